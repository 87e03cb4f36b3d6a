// test_moe_models.cpp — issue 24 item 1's model files (Mixtral 8x7B / 8x22B, Kimi K2, Llama 4
// Maverick and Scout): parameter counts, total and active per token, against the model cards, and the
// interleaved MoE layers of Maverick (moe.every).
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "model_spec.hpp"

using namespace trnsim;

namespace {
// Parameters a token uses: everything but the routed experts it is not sent to.
double active_parameters(const ModelSpec& m) {
  double idle = 0;
  for (int64_t l = 0; l < m.layers; ++l)
    idle += static_cast<double>(m.expert_parameters(l)) * (1.0 - static_cast<double>(m.moe.top_k) / static_cast<double>(m.moe.experts));
  return static_cast<double>(m.total_parameters()) - idle;
}
}  // namespace

TEST_CASE("2026 MoE model files count their published parameters", "[moe][models]") {
  struct Card {
    const char* name;
    double total, active, tolerance;  // model card figures (rounded as published), relative tolerance
  };
  // Kimi K2's card rounds to "1T total, 32B activated" (1.03T and 32.7B counted here).
  for (const Card& c : {Card{"mixtral-8x7b", 46.7e9, 12.9e9, 0.01}, Card{"mixtral-8x22b", 141e9, 39e9, 0.01},
                        Card{"kimi-k2", 1.0e12, 32e9, 0.04}, Card{"llama4-maverick", 400e9, 17e9, 0.02},
                        Card{"llama4-scout", 109e9, 17e9, 0.02}}) {
    INFO(c.name);
    const auto m = load_model_spec(model_path(c.name));
    CHECK(static_cast<double>(m.total_parameters()) == Approx(c.total).epsilon(c.tolerance));
    CHECK(active_parameters(m) == Approx(c.active).epsilon(c.tolerance));
  }
}

TEST_CASE("Llama 4 Maverick interleaves dense and MoE layers (moe.every 2)", "[moe][models]") {
  const auto m = load_model_spec(model_path("llama4-maverick"));
  for (int64_t l = 0; l < m.layers; ++l) CHECK(m.is_moe_layer(l) == (l % 2 == 1));
  // Dense layers: one SwiGLU MLP of 16384; MoE layers: router, shared and 128 routed experts of 8192.
  const double h = 5120, attn = h * 40 * 128 * 2 + 2 * h * 8 * 128, norms = 2 * h;
  CHECK(static_cast<double>(m.layer_parameters(0)) == Approx(attn + norms + 3 * h * 16384));
  CHECK(static_cast<double>(m.layer_parameters(1)) == Approx(attn + norms + h * 128 + 3 * h * 8192 * 129));
  // A step plan builds: the dense layers have no EP traffic, the MoE layers two all-to-alls each way.
  Workload w = test::moe_workload("llama4-maverick", "gb200-nvl72", 16, 1, 64, 64, 1, 64, 4096);
  const auto plan = build_step_plan(m, w);
  CHECK(test::op_named(plan, "L0.moe.dispatch") == nullptr);
  CHECK(test::op_named(plan, "L1.moe.dispatch") != nullptr);
}
