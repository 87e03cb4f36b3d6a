// test_gemm_traffic.cpp — a GPU GEMM's HBM traffic (sim/lib/lowering.cpp, gemm_units): the CTAs of
// a wave share their A and B panels through L2, so a GEMM whose reduction dimension K is long (a
// weight gradient over every token of a micro-batch) reads each operand a few times, not once per
// L2-sized column block. Checked against the closed form of the panel model and as an invariant:
// the same FLOPs in the weight-gradient shape are not slower than in the forward shape by more than
// the tile quantisation.
#include <catch2/catch.hpp>

#include <cmath>

#include "helpers.hpp"
#include "sim_helpers.hpp"
#include "lowering.hpp"
#include "op_factory.hpp"
#include "platform.hpp"
#include "scenario.hpp"

using namespace trnsim;

namespace {
double loaded_bytes(const HwSpec& hw, const Op& op) {
  Program p = lower_op(op, hw);
  double b = 0;
  for (const auto& i : p.q(Queue::DmaLoad)) b += i.bytes.base();
  return b;
}
}  // namespace

TEST_CASE("a long-K GEMM on a GPU reads its panels once per wave, not once per L2 block", "[tlm][gemm]") {
  const HwSpec h100 = load_hw_spec(hw_path("dgx-h100"));
  // A 4096 x 4096 projection's weight gradient over a micro-batch of 12 x 8192 tokens (torchtitan's
  // Llama 3.1 8B at TP 8): M = N = 4096, K = 98,304.
  const int64_t T = 12 * 8192, h = 4096;
  const Op fwd = ops::gemm("proj", 1, T, h, h, DType::BF16), wgrad = ops::gemm("proj.wgrad", 1, h, T, h, DType::BF16);
  // Closed form: 256 x 128 tiles, a 16 x 32 grid over 132 SMs; waves of a 12 x 11 block, 512 / 132
  // waves, each reading 12 A panels and 11 B panels of K x 2 bytes: 2.1x the operands (one L2
  // block of 64 columns per reload of A, as before, read A 64 times: 32x).
  const double waves = 512.0 / 132.0, panel = static_cast<double>(T) * 2.0;
  const double expected = waves * (12 * 256 + 11 * 128) * panel;
  CHECK(loaded_bytes(h100, wgrad) == Approx(expected).epsilon(0.01));
  CHECK(loaded_bytes(h100, wgrad) < 2.5 * 2.0 * static_cast<double>(2 * h * T));
  // The same FLOPs: the weight gradient is compute-bound like the forward GEMM.
  CHECK(test::op_seconds(h100, wgrad) < 1.15 * test::op_seconds(h100, fwd));
  // Operands that fit the L2 share are read once.
  const Op small = ops::gemm("small", 1, 1024, 1024, 1024, DType::BF16);
  CHECK(loaded_bytes(h100, small) == Approx(2.0 * 2.0 * 1024 * 1024));
}
