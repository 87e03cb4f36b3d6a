// test_launch_floor.cpp — eager execution's host floor is per kernel launch (launch_floor.hpp): a
// fused flash-attention kernel modelled as several ops pays the dispatch time once. Checked by
// hand on a plan's op list, and against Transformer Engine's published H100 attention timings
// (frameworks.md: fwd + bwd of b 2, 16 heads, d 128, s 2048, causal: cuDNN 0.366 ms, flash-attn
// 0.585 ms), which ten ops each floored at the fitted ~77 us dispatch overshot (0.79 ms).
#include <catch2/catch.hpp>

#include "dataset_common.hpp"
#include "helpers.hpp"
#include "launch_floor.hpp"
#include "step_executor.hpp"

using namespace trnsim;

namespace {
// Llama 2 7B at TP 2: 16 heads of 128 per rank; micro-batch 2 x 2048, the TE example's shape.
Workload probe() {
  Workload w = test::workload("llama2-7b", "dgx-h100", 1, 2, 1, 4, 2, 8, 2048);
  w.sequence_parallel = true;
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 1;
  w.execution = "eager";
  return w;
}
}  // namespace

TEST_CASE("a fused kernel pays the launch floor once, a lone op each time", "[host][launch]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  const auto plan = build_step_plan(m, probe());
  const auto& st = plan.stages.front();
  const double floor = 50e-6, tiny = 1e-6;
  std::vector<double> d(st.forward.size(), tiny);
  apply_launch_floor(st, st.forward, floor, d);
  int flash_runs = 0;
  for (size_t i = 0; i < st.forward.size(); ++i) {
    const Op& o = st.graph[st.forward[i]];
    if (o.is_collective()) {
      CHECK(d[i] == tiny);  // collectives are not host-floored here
    } else if (o.label.find("flash.scores") != std::string::npos) {
      // scores, softmax, context: one kernel, one floor on the three together.
      REQUIRE(i + 2 < st.forward.size());
      CHECK(st.graph[st.forward[i + 2]].label.find("flash.context") != std::string::npos);
      CHECK(d[i] + d[i + 1] + d[i + 2] == Approx(floor));
      CHECK(d[i + 1] == tiny);
      ++flash_runs;
      i += 2;
    } else {
      CHECK(d[i] == Approx(floor));
    }
  }
  CHECK(flash_runs == m.layers);
  // Long parts: no floor at all.
  std::vector<double> long_ops(st.forward.size(), 2 * floor), before = long_ops;
  apply_launch_floor(st, st.forward, floor, long_ops);
  CHECK(long_ops == before);
}

TEST_CASE("flash attention on DGX H100 within TE's published cuDNN / flash-attn timings", "[host][launch][tlm]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  StepOptions opt;
  opt.trace = true;
  const StepResult r = execute_step(make_scenario(probe(), m), opt);
  double flash_us = 0;
  for (const auto& e : r.trace)
    if (e.name.rfind("L0.flash.", 0) == 0) flash_us += e.dur_us;  // one micro-batch's fwd + bwd of layer 0
  REQUIRE(flash_us > 0);
  CHECK(flash_us >= 0.366e3 * 0.9);  // not faster than cuDNN's kernel (less 10 %)
  CHECK(flash_us <= 0.585e3);        // nor slower than flash-attn's
}

TEST_CASE("an op the framework issues as several kernels pays one floor per launch", "[host][launch][moe]") {
  // Qwen3-30B-A3B on EP 8: 16 local experts. Under Transformer Engine's GroupedLinear (per_expert)
  // each expert GEMM is one launch, in forward, dgrad and wgrad; the router and the dispatcher's
  // permutations are the declared kernel counts (block_builder.cpp), their backward one per kernel.
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  Workload w = test::moe_workload("qwen3-30b-a3b", "gb200-nvl72", 2, 1, 8, 8, 1, 16, 4096);
  w.execution = "eager";
  const auto fused = build_step_plan(m, w);
  w.moe_grouped_gemm = Workload::MoeGroupedGemm::PerExpert;
  const auto loop = build_step_plan(m, w);
  for (const char* label : {"L0.experts.gate_up", "L0.experts.gate_up.dgrad", "L0.experts.down.wgrad"}) {
    INFO(label);
    REQUIRE(test::op_named(loop, label));
    CHECK(test::op_named(loop, label)->launches == 16);
    CHECK(test::op_named(fused, label)->launches == 1);
  }
  CHECK(test::op_named(loop, "L0.router.topk")->launches == 20);
  CHECK(test::op_named(loop, "L0.router.topk.bwd")->launches == 20);
  CHECK(test::op_named(loop, "L0.moe.permute")->launches == 6);
  CHECK(test::op_named(loop, "L0.moe.unpermute.bwd")->launches == 4);
  CHECK(test::op_named(loop, "L0.qkv")->launches == 1);
  // The floor: launches x dispatch for a short op, the device time for a long one.
  const auto& st = loop.stages.front();
  const double floor = 20e-6;
  std::vector<double> d(st.forward.size(), 1e-6), long_ops(st.forward.size(), 1.0);
  apply_launch_floor(st, st.forward, floor, d);
  apply_launch_floor(st, st.forward, floor, long_ops);
  for (size_t i = 0; i < st.forward.size(); ++i) {
    const Op& o = st.graph[st.forward[i]];
    if (o.is_collective() || o.onchip_in || o.onchip_out) continue;
    INFO(o.label);
    CHECK(d[i] == Approx(floor * o.launches));
    CHECK(long_ops[i] == 1.0);
  }
}

TEST_CASE("the training loop's kernels (Workload::Loop): batch preparation and the loss's pieces", "[host][launch][stack]") {
  // GPT h1024 x 12 layers on 2 A100s, PP 2: vTrain's smallest kind of row, host-bound (a vocabulary of
  // 1,024 so that the loss's kernels are as tiny as the batch's).
  const ModelSpec m = datasets::megatron_gpt("gpt-h1024-l12", 12, 1024, 16, 4096, 1024, 1024);
  Workload w = test::workload(m.name, "vtrain-a100", 1, 1, 2, 1, 1, 8, 1024);
  w.cores_per_node = 2;
  w.execution = "eager";
  w.checkpointing = Checkpointing::Full;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  const StepPlan bare = build_step_plan(m, w);
  w.loop = {12, 31, 14};
  const StepPlan looped = build_step_plan(m, w);
  auto launches = [](const StageProgram& st, const std::vector<OpVertex>& list, const std::string& label) {
    int n = 0, found = 0;
    for (OpVertex v : list)
      if (st.graph[v].label.find(label) != std::string::npos) n += st.graph[v].launches, ++found;
    return std::make_pair(n, found);
  };
  for (size_t s = 0; s < looped.stages.size(); ++s) {
    const StageProgram& st = looped.stages[s];
    // Both stages read the batch (the first its tokens, the last its labels); no gradient flows back into it.
    CHECK(launches(st, st.forward, "batch.prepare") == std::make_pair(12, 1));
    CHECK(launches(st, st.backward, "batch.prepare").second == 0);
    // One more op per stage than without the loop, and no more backward ops.
    CHECK(st.forward.size() == bare.stages[s].forward.size() + 1);
    CHECK(st.backward.size() == bare.stages[s].backward.size());
  }
  const StageProgram& last = looped.stages.back();
  CHECK(launches(last, last.forward, "cross_entropy") == std::make_pair(1 + 31, 1));
  CHECK(launches(last, last.backward, "cross_entropy") == std::make_pair(1 + 14, 1));
  CHECK(launches(looped.stages.front(), looped.stages.front().forward, "cross_entropy").second == 0);

  // Each launch pays the host's dispatch time: tiny kernels, so every micro-batch's stage 1 gains
  // (12 + 31 + 14) dispatches and stage 0 12, all on the pipeline's critical path. The step grows
  // by at least the last stage's share over its micro-batches and at most both stages' (1F1B).
  const HwSpec hw = load_hw_spec(hw_path("vtrain-a100"));
  const double d = hw.host.dispatch_s, mb = static_cast<double>(w.grad_accum());
  Workload plain = w;
  plain.loop = {};
  const double grown = execute_step(make_scenario(w, m)).step_time_s - execute_step(make_scenario(plain, m)).step_time_s;
  CHECK(grown >= 0.98 * mb * 57 * d);
  CHECK(grown <= 1.02 * (mb * 57 + (mb + 1) * 12) * d);
  // Compiled execution: no per-launch host cost, so the loop costs only its (tiny) device time.
  w.execution = plain.execution = "compiled";
  const double compiled = execute_step(make_scenario(w, m)).step_time_s - execute_step(make_scenario(plain, m)).step_time_s;
  CHECK(compiled < 0.02 * grown);
}
