// test_megatron_softmax.cpp — the unfused attention's softmax under Megatron's FusedScaleMaskSoftmax
// (fused.softmax "megatron", the Megatron profiles): its fused kernel runs where
// is_kernel_available() allows (closed cases of its rule below); elsewhere PyTorch's chain runs,
// five kernels over FP32 scores each way, with their HBM traffic and five host launches each.
#include <catch2/catch.hpp>

#include "block_builder.hpp"
#include "dataset_common.hpp"
#include "helpers.hpp"
#include "step_executor.hpp"

using namespace trnsim;

TEST_CASE("Megatron's fused softmax kernel: where is_kernel_available() lets it run", "[attention][stack]") {
  // Causal (GPT): micro-batch x heads per rank a multiple of 4 and of the batches per block (4 for
  // more than 128 keys: 128-thread blocks of 32-lane warps, one row each).
  CHECK_FALSE(megatron_fused_softmax_available(1, 2, 1024, 1024, true, true));  // 16 heads over TP 8
  CHECK(megatron_fused_softmax_available(2, 2, 1024, 1024, true, true));
  CHECK(megatron_fused_softmax_available(1, 4, 2048, 2048, true, true));
  CHECK_FALSE(megatron_fused_softmax_available(2, 3, 2048, 2048, true, true));  // 48 heads over TP 16
  CHECK(megatron_fused_softmax_available(4, 3, 2048, 2048, true, true));
  CHECK_FALSE(megatron_fused_softmax_available(4, 4, 8192, 8192, true, true));  // more than 4,096 keys
  CHECK_FALSE(megatron_fused_softmax_available(4, 4, 16, 16, true, true));      // 16 keys or fewer
  CHECK_FALSE(megatron_fused_softmax_available(4, 4, 1024, 1024, true, false));  // FP32 input
  // Up to 128 keys two rows per warp: 8 per block.
  CHECK_FALSE(megatron_fused_softmax_available(1, 4, 64, 64, true, true));
  CHECK(megatron_fused_softmax_available(2, 4, 64, 64, true, true));
  // A padding mask (encoders): the queries, not the batches, must fill the blocks.
  CHECK(megatron_fused_softmax_available(1, 4, 64, 64, false, true));
}

TEST_CASE("Megatron's softmax fallback: PyTorch's chain, its bytes and launches, and a slower step", "[attention][stack][host]") {
  // vTrain's GPT h1024 (16 heads) on 8 A100s at TP 8: 2 heads per rank, so micro-batch 1 falls back.
  const ModelSpec m = datasets::megatron_gpt("gpt-h1024-l12", 12, 1024, 16, 4096, 1024);
  Workload w = test::workload(m.name, "vtrain-a100", 1, 8, 1, 1, 1, 4, 1024);
  w.execution = "eager";
  w.precision = Precision::MixedBF16;
  w.attention = Attention::Unfused;
  w.softmax_kernel = Workload::SoftmaxKernel::Megatron;
  auto softmax_ops = [&](const Workload& wl) {
    const StepPlan p = build_step_plan(m, wl);
    const StageProgram& st = p.stages.front();
    std::pair<Op, Op> fb;
    for (OpVertex v : st.forward)
      if (st.graph[v].label == "L0.softmax") fb.first = st.graph[v];
    for (OpVertex v : st.backward)
      if (st.graph[v].label == "L0.softmax.bwd") fb.second = st.graph[v];
    return fb;
  };
  const double scores = 1.0 * 2 * 1024 * 1024;  // micro-batch x heads per rank x s x s
  const auto [fwd, bwd] = softmax_ops(w);
  CHECK(fwd.launches == 5);
  CHECK(fwd.bytes_read.base() == Approx(18 * scores));
  CHECK(fwd.bytes_written.base() == Approx(18 * scores));
  CHECK(bwd.launches == 5);
  CHECK(bwd.bytes_read.base() == Approx(22 * scores));
  CHECK(bwd.bytes_written.base() == Approx(18 * scores));
  // The kernel where it is available: micro-batch 2 (4 matrices), or the default fused softmax.
  Workload two = w;
  two.micro_batch = 2;
  CHECK(softmax_ops(two).first.launches == 1);
  CHECK(softmax_ops(two).first.bytes_read.base() == Approx(2 * 2 * scores));
  Workload fused = w;
  fused.softmax_kernel = Workload::SoftmaxKernel::Fused;
  CHECK(softmax_ops(fused).first.launches == 1);
  // The fallback costs time: at least its extra launches' host dispatch per layer and pass
  // (4 more forward, 4 more backward; no recompute here), on each of the step's micro-batches.
  const HwSpec hw = load_hw_spec(hw_path("vtrain-a100"));
  const double slower = execute_step(make_scenario(w, m)).step_time_s - execute_step(make_scenario(fused, m)).step_time_s;
  CHECK(slower >= 0.98 * 8 * 12 * static_cast<double>(w.grad_accum()) * hw.host.dispatch_s);
}
