// test_fp8_layout.cpp — issue 23 (FP8 weight copies in memory): the hw file's tensor.fp8_any_layout
// reaches the plan. Hopper's FP8 GEMM takes only TN operands, so Transformer Engine keeps every FP8
// weight row-wise and transposed; Blackwell's takes any layout and per-tensor FP8 keeps one copy.
// MXFP8 keeps two copies on Blackwell too (its 1 x 32 scale blocks run along K).
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "scenario.hpp"

using namespace trnsim;

namespace {
Scenario llama8b(const std::string& hw, Precision p) {
  Workload w = test::workload("llama3.1-8b", hw, 1, 1, 1, 8, 1, 64, 4096);
  w.attention = Attention::Flash;
  w.precision = p;
  w.fp8_recipe = Fp8Recipe::Current;
  w.fp32_grads = true;
  return make_scenario(w, true);
}
double lp_weights(const Scenario& s) { return peak_stage(s.memory).low_precision_weights.base(); }
}  // namespace

TEST_CASE("FP8 weight copies: two on Hopper, one on Blackwell - MXFP8 two on Blackwell", "[precision]") {
  const Scenario h100 = llama8b("dgx-h100", Precision::FP8), b200 = llama8b("dgx-b200", Precision::FP8);
  const Scenario mx = llama8b("dgx-b200", Precision::MXFP8);
  CHECK_FALSE(h100.workload.fp8_any_layout);
  CHECK(b200.workload.fp8_any_layout);
  // The same linear weights at one byte each (FP8, MXFP8's per-32 scales aside): 2 : 1 : 2.
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  const double h = m.hidden, f = m.ffn, d = m.head_dim();
  const double linear = m.layers * (h * (m.heads + 2 * m.kv_heads) * d + m.heads * d * h + 3 * h * f);
  CHECK(lp_weights(h100) == Approx(2 * linear));
  CHECK(lp_weights(b200) == Approx(linear));
  CHECK(lp_weights(mx) == Approx(2 * linear * dtype_bytes(DType::MXFP8)));
  // The row-wise quantization of a linear input writes one copy on Blackwell, two on Hopper.
  const Op* qh = test::op_named(h100.plan, "L0.attn_in.quant");
  const Op* qb = test::op_named(b200.plan, "L0.attn_in.quant");
  REQUIRE((qh && qb));
  CHECK(qb->bytes_written.base() == Approx(qh->bytes_written.base() / 2));
}
