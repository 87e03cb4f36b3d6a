// test_mamba_hybrid.cpp — issue 24: hybrid Mamba-2 / MoE / attention models (Nemotron 3 Nano),
// against closed forms written here: the parameter count by hand (and the model card's 31.6 B
// total / 3.6 B active with embeddings), the FLOPs of one Mamba-2 layer per token (projections
// 2·h·(2·d_inner + 2·G·N + H) and 2·d_inner·h; the chunked scan 2·Q·N per group plus 2·Q·P + 4·N·P
// per head), that a Mamba layer's work is linear in the sequence while attention's is not, the
// activation memory of a whole pipeline chunk as the sum of its layers, and the bad inputs.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

namespace {
Workload nano(int64_t seq, int64_t tp = 1) {
  return test::moe_workload("nemotron-3-nano", "gb300-nvl72", 2, tp, 8 / tp, 8 / tp, 1, 64 / tp, seq);
}
double fwd_flops(const StepPlan& p, const std::string& prefix) {
  double f = 0;
  for (const auto& st : p.stages)
    for (auto v : st.forward)
      if (st.graph[v].label.rfind(prefix, 0) == 0 && !st.graph[v].is_collective()) f += st.graph[v].flops.base();
  return f;
}
}  // namespace

TEST_CASE("Nemotron 3 Nano: parameters by hand and the model card's totals", "[mamba][moe]") {
  const auto m = load_model_spec(model_path("nemotron-3-nano"));
  const int64_t h = 2688, di = 64 * 64, conv = di + 2 * 8 * 128;
  const int64_t mamba = h + h * (2 * di + 2 * 8 * 128 + 64) + conv * 5 + 3 * 64 + di + di * h;
  const int64_t moe = h + h * 128 + 2 * 2 * h * 1856 + 128 * 2 * h * 1856;  // router, shared (3712), experts: relu2
  const int64_t attn = h + h * 32 * 128 + 2 * h * 2 * 128 + 32 * 128 * h;
  const int64_t total = 23 * mamba + 23 * moe + 6 * attn + 2 * 131072 * h + h;
  CHECK(m.total_parameters() == total);
  CHECK(static_cast<double>(total) / 31.6e9 == Approx(1.0).epsilon(0.005));
  const int64_t active = total - 23 * (128 - 6) * 2 * h * 1856;
  CHECK(static_cast<double>(active) / 3.6e9 == Approx(1.0).epsilon(0.01));
  CHECK(m.kind(0) == LayerKind::Mamba);
  CHECK(m.kind(1) == LayerKind::Moe);
  CHECK(m.kind(5) == LayerKind::Attention);
  CHECK(m.is_moe_layer(1));
  CHECK_FALSE(m.is_moe_layer(0));
}

TEST_CASE("Mamba-2 layer: FLOPs per token by closed form, linear in the sequence", "[mamba]") {
  const auto m = load_model_spec(model_path("nemotron-3-nano"));
  const double h = 2688, di = 4096, H = 64, P = 64, N = 128, G = 8, Q = 128;
  for (int64_t seq : {4096, 8192}) {
    INFO("seq " << seq);
    const auto plan = build_step_plan(m, nano(seq));
    const double T = static_cast<double>(seq);
    const double proj = 2 * h * (2 * di + 2 * G * N + H) + 2 * di * h;
    const double scan = 2 * Q * N * G + (2 * Q * P + 4 * N * P) * H;
    const double gemm = fwd_flops(plan, "L0.in_proj") + fwd_flops(plan, "L0.out_proj") + fwd_flops(plan, "L0.ssd.cb") +
                        fwd_flops(plan, "L0.ssd.intra") + fwd_flops(plan, "L0.ssd.states") + fwd_flops(plan, "L0.ssd.inter");
    CHECK(gemm / T == Approx(proj + scan).epsilon(1e-9));
  }
  // Linear in s for the Mamba layer, superlinear for the attention layer (layer 5).
  const auto p4 = build_step_plan(m, nano(4096)), p8 = build_step_plan(m, nano(8192));
  CHECK(fwd_flops(p8, "L0.") == Approx(2 * fwd_flops(p4, "L0.")).epsilon(1e-9));
  CHECK(fwd_flops(p8, "L5.flash") > 3.5 * fwd_flops(p4, "L5.flash"));
  // TP 2 splits the Mamba heads and groups: half the projection and scan work per rank.
  const auto t2 = build_step_plan(m, nano(4096, 2));
  CHECK(fwd_flops(t2, "L0.in_proj") == Approx(fwd_flops(p4, "L0.in_proj") / 2));
  CHECK(fwd_flops(t2, "L0.ssd.") == Approx(fwd_flops(p4, "L0.ssd.") / 2));
}

TEST_CASE("hybrid memory: a chunk holds the sum of its layers' activations", "[mamba][memory]") {
  const auto m = load_model_spec(model_path("nemotron-3-nano"));
  Workload w = nano(8192);
  const auto plan = build_step_plan(m, w);
  const auto mem = memory_per_stage(m, w, plan).front();
  Bytes sum;
  for (int64_t l = 0; l < m.layers; ++l) sum += layer_activation_bytes(m, w, l);
  const double logits = 4.0 * 8192 * 131072;  // FP32 logits of the micro-batch, held for the loss
  CHECK(mem.activations.base() == Approx(sum.base() + logits));
  // A Mamba layer by hand, BF16: norm and in_proj inputs (2 x 2sbh), in_proj output, conv output,
  // scan output, FP32 chunk states, gated-norm output.
  const double s = 8192, h = 2688, di = 4096;
  const double by_hand = 4 * s * h + 2 * s * (2 * di + 2 * 8 * 128 + 64) + 2 * s * (di + 2 * 8 * 128) + 2 * s * di +
                         4 * (s / 128) * 64 * 64 * 128 + 2 * s * di;
  CHECK(layer_activation_bytes(m, w, 0).base() == Approx(by_hand));
  w.checkpointing = Checkpointing::Full;
  CHECK(layer_activation_bytes(m, w, 0).base() == Approx(2 * s * h));
}

TEST_CASE("hybrid models: bad patterns and layouts are one-line errors", "[mamba]") {
  auto j = load_json_file(model_path("nemotron-3-nano"));
  auto bad = j;
  bad["layer_pattern"] = "MEM";
  CHECK_THROWS_WITH(model_spec_from_json(bad, "m.json"), Catch::Contains("/layer_pattern") && Catch::Contains("52 layers"));
  bad = j;
  bad["layer_pattern"] = std::string(51, 'M') + "X";
  CHECK_THROWS_WITH(model_spec_from_json(bad, "m.json"), Catch::Contains("'X' at layer 51"));
  bad = j;
  bad.erase("mamba");
  CHECK_THROWS_WITH(model_spec_from_json(bad, "m.json"), Catch::Contains("/mamba"));
  bad = j;
  bad.erase("layer_pattern");
  CHECK_THROWS_WITH(model_spec_from_json(bad, "m.json"), Catch::Contains("/layer_pattern"));
  const auto m = load_model_spec(model_path("nemotron-3-nano"));
  CHECK_THROWS_WITH(build_step_plan(m, nano(4096, 16)), Catch::Contains("Mamba-2 heads"));
  Workload op = nano(4096);
  op.checkpointing = Checkpointing::OpSelective;
  CHECK_THROWS_WITH(build_step_plan(m, op), Catch::Contains("/checkpointing"));
}
