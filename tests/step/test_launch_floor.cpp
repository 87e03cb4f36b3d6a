// test_launch_floor.cpp — eager execution's host floor is per kernel launch (launch_floor.hpp): a
// fused flash-attention kernel modelled as several ops pays the dispatch time once. Checked by
// hand on a plan's op list, and against Transformer Engine's published H100 attention timings
// (frameworks.md: fwd + bwd of b 2, 16 heads, d 128, s 2048, causal: cuDNN 0.366 ms, flash-attn
// 0.585 ms), which ten ops each floored at the fitted ~77 us dispatch overshot (0.79 ms).
#include <catch2/catch.hpp>

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
