// test_op_memo.cpp — the op-timing memo may only merge ops that lowering cannot tell apart.
// An op's key once left out its HBM traffic: an AdamW step with BF16 moments and one with FP32
// moments over the same parameters shared a key, so whichever a process simulated first timed
// both, and a validation row's prediction depended on the rows its worker had run before
// (0.1-0.3 % on 12 NeMo rows, more on optimizer-bound ones).
#include <catch2/catch.hpp>

#include <functional>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "op_factory.hpp"
#include "platform.hpp"
#include "sim_helpers.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

TEST_CASE("every field lowering reads is in the op's memo key", "[memo]") {
  const std::vector<std::pair<const char*, std::function<void(Op&)>>> changes = {
      {"kind", [](Op& o) { o.kind = OpKind::Norm; }},
      {"engine", [](Op& o) { o.engine = Engine::GpSimd; }},
      {"dtype", [](Op& o) { o.dtype = o.dtype == DType::FP32 ? DType::BF16 : DType::FP32; }},
      {"out_dtype", [](Op& o) { o.out_dtype = DType::FP8; }},
      {"batch", [](Op& o) { o.batch += 1; }},
      {"m", [](Op& o) { o.m += 1; }},
      {"k", [](Op& o) { o.k += 1; }},
      {"n", [](Op& o) { o.n += 1; }},
      {"elements", [](Op& o) { o.elements += 1; }},
      {"row", [](Op& o) { o.row += 1; }},
      {"inputs", [](Op& o) { o.inputs += 1; }},
      {"passes", [](Op& o) { o.passes += 1; }},
      {"transcendental", [](Op& o) { o.transcendental = !o.transcendental; }},
      {"onchip_in", [](Op& o) { o.onchip_in = !o.onchip_in; }},
      {"onchip_out", [](Op& o) { o.onchip_out = !o.onchip_out; }},
      {"attention_kernel", [](Op& o) { o.attention_kernel = AttentionKernel::Flash2; }},
      {"bf16_rate", [](Op& o) { o.bf16_rate = !o.bf16_rate; }},
      {"fused_attention", [](Op& o) { o.fused_attention = !o.fused_attention; }},
      {"bytes_read", [](Op& o) { o.bytes_read = o.bytes_read + Bytes(2); }},
      {"bytes_written", [](Op& o) { o.bytes_written = o.bytes_written + Bytes(2); }},
  };
  for (const Op& base : {ops::gemm("g", 1, 512, 1024, 2048, DType::BF16), ops::optimizer("adam", 1 << 20, 8, 4, DType::FP32)})
    for (const auto& [field, change] : changes) {
      Op o = base;
      change(o);
      INFO(base.label << " with a different " << field);
      CHECK(o.shape_key() != base.shape_key());
      CHECK_FALSE(o.shape() == base.shape());
      CHECK(OpShapeHash{}(o.shape()) != OpShapeHash{}(base.shape()));
    }
  // What lowering does not read stays out: the label and the launch count share one timing.
  Op relabelled = ops::optimizer("other", 1 << 20, 8, 4, DType::FP32);
  relabelled.launches = 7;
  CHECK(relabelled.shape() == ops::optimizer("adam", 1 << 20, 8, 4, DType::FP32).shape());
}

TEST_CASE("the memo gives each op its own simulated time, whatever the process timed before", "[memo][tlm]") {
  const HwSpec hw = load_hw_spec(hw_path("dgx-h100"));
  // AdamW over 64 M parameters: FP32 moments (8 B each) against BF16 moments (4 B): same elements,
  // operands and passes, a third less traffic.
  const Op fp32_moments = ops::optimizer("adam", 64 << 20, 8, 4, DType::FP32);
  const Op bf16_moments = ops::optimizer("adam", 64 << 20, 4, 4, DType::FP32);
  const double alone_fp32 = test::op_seconds(hw, fp32_moments), alone_bf16 = test::op_seconds(hw, bf16_moments);
  REQUIRE(alone_bf16 < 0.9 * alone_fp32);  // memory-bound: the traffic decides
  Platform& p = Platform::instance();
  p.configure(hw);
  CHECK(p.timer().time(fp32_moments).seconds == Approx(alone_fp32).epsilon(1e-9));
  CHECK(p.timer().time(bf16_moments).seconds == Approx(alone_bf16).epsilon(1e-9));
}

// Op timings are cached per hardware fingerprint: every figure lowering reads must change it, the
// lane engines' transcendental rate and clock each on their own (a product of the two would let a
// faster clock and a slower exponential share one key).
TEST_CASE("the hardware fingerprint separates the lane engines' exponential rate and clock", "[memo]") {
  const HwSpec base = load_hw_spec(hw_path("gb200-nvl72"));
  HwSpec rate = base, both = base;
  rate.vector.transcendental_lane_cycles = 4;
  CHECK(rate.fingerprint() != base.fingerprint());
  both.vector.transcendental_lane_cycles = base.vector.transcendental_lane_cycles / 2;
  both.vector.clock_hz = base.vector.clock_hz * 2;
  CHECK(both.fingerprint() != base.fingerprint());
  // Only the vector engine runs exponentials in its place: an activation engine's file may not say.
  nlohmann::json j = load_json_file(hw_path("trn1.32xlarge"));
  j["scalar"]["transcendental_lane_cycles"] = 2;
  CHECK_THROWS_WITH(hw_spec_from_json(j, "trn1-test.json"), Catch::Contains("/scalar") && Catch::Contains("transcendental_lane_cycles"));
}
