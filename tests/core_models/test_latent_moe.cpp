// test_latent_moe.cpp — LatentMoE (Nemotron 3 Super, model field moe.latent): the routed experts
// work on a latent-wide copy of each token, projected down before the dispatch and up after the
// combine. Checked by hand: the published size, the expert weights on the latent, the two
// projections, the experts' GEMM shapes, the all-to-all bytes (latent-wide, a quarter of the hidden
// width's), and that a model without a latent is unchanged.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "model_spec.hpp"
#include "step_graph.hpp"

using namespace trnsim;

namespace {
// Nemotron 3 Super on 8 DGX-B200s (64 GPUs): TP 1, EP 8, micro-batch 1 of 8,192 tokens, MXFP8.
Workload super_ep8() {
  Workload w = test::moe_workload("nemotron-3-super", "dgx-b200", 8, 1, 64, 8, 1, 64, 8192);
  w.precision = Precision::MXFP8;
  return w;
}
}  // namespace

TEST_CASE("LatentMoE: Nemotron 3 Super counts its published size and puts its experts on the latent", "[moe][latent]") {
  const ModelSpec m = load_model_spec(model_path("nemotron-3-super"));
  REQUIRE(m.moe.latent == 1024);
  // Model card: 120B total parameters (the MTP module aside).
  CHECK(static_cast<double>(m.total_parameters()) == Approx(120e9).epsilon(0.03));
  // Routed experts: 512 x (up 1024 x 2688 + down 2688 x 1024), squared ReLU (no gate), on the latent.
  const int64_t moe_layer = 1;  // the pattern's second layer, an E
  REQUIRE(m.kind(moe_layer) == LayerKind::Moe);
  CHECK(m.expert_parameters(moe_layer) == 512LL * 2 * 1024 * 2688);
  // The layer's other weights: its norm, the router (4096 x 512), the shared expert on the full
  // width (up and down, 4096 x 5376 each) and the latent's projections (4096 x 1024, down and up).
  CHECK(m.layer_parameters(moe_layer) - m.expert_parameters(moe_layer) ==
        4096 + 4096LL * 512 + 2LL * 4096 * 5376 + 2LL * 4096 * 1024);
}

TEST_CASE("LatentMoE: the experts' GEMMs and the all-to-alls are latent-wide", "[moe][latent]") {
  const ModelSpec m = load_model_spec(model_path("nemotron-3-super"));
  const Workload w = super_ep8();
  const StepPlan p = build_step_plan(m, w);
  const Op* up = test::op_named(p, "L1.experts.up");
  const Op* down = test::op_named(p, "L1.experts.down");
  const Op* dispatch = test::op_named(p, "L1.moe.dispatch");
  const Op* proj_down = test::op_named(p, "L1.moe.latent_down");
  const Op* proj_up = test::op_named(p, "L1.moe.latent_up");
  REQUIRE(up != nullptr);
  REQUIRE(down != nullptr);
  REQUIRE(dispatch != nullptr);
  REQUIRE(proj_down != nullptr);
  REQUIRE(proj_up != nullptr);
  CHECK(up->k == 1024);
  CHECK(up->n == 2688);
  CHECK(down->k == 2688);
  CHECK(down->n == 1024);
  CHECK(proj_down->k == 4096);
  CHECK(proj_down->n == 1024);
  CHECK(proj_up->k == 1024);
  CHECK(proj_up->n == 4096);
  // 8,192 tokens x 22 routed copies x 1,024 latent x 2 bytes (BF16 dispatch).
  CHECK(dispatch->comm_bytes.base() == Approx(8192.0 * 22 * 1024 * 2));
}

TEST_CASE("LatentMoE: a model without a latent has no projections and hidden-wide experts", "[moe][latent]") {
  const ModelSpec m = load_model_spec(model_path("nemotron-3-nano"));
  REQUIRE(m.moe.latent == 0);
  Workload w = test::moe_workload("nemotron-3-nano", "dgx-b200", 1, 1, 8, 8, 1, 8, 4096);
  const StepPlan p = build_step_plan(m, w);
  CHECK(test::op_named(p, "L1.moe.latent_down") == nullptr);
  const Op* up = test::op_named(p, "L1.experts.up");
  REQUIRE(up != nullptr);
  CHECK(up->k == m.hidden);
  CHECK(m.expert_parameters(1) == 128LL * 2 * m.hidden * 1856);
}
