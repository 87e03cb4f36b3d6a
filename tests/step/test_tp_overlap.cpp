// test_tp_overlap.cpp — TP communication overlap (Megatron-Core tp_comm_overlap / TE userbuffers,
// torchtitan's async TP) in the forward: the SP all-gather runs beside the column-parallel GEMM
// after it and the reduce-scatter beside the row-parallel GEMM before it (frameworks.md §3 b:
// "pipelined AG and RS overlap" on by default with tp_comm_overlap). Checked on the plan's flags,
// and on the step: less exposed TP time, never a slower step, never faster than its compute.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "step_executor.hpp"

using namespace trnsim;

namespace {
Workload llama70b(bool overlap) {
  Workload w = test::workload("llama3.1-70b", "dgx-b200", 1, 8, 1, 1, 1, 4, 4096);
  w.sequence_parallel = true;
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.checkpointing = Checkpointing::Full;
  w.tp_overlap = w.tp_overlap_forward = overlap;
  return w;
}
}  // namespace

TEST_CASE("TP overlap marks the forward SP all-gathers and reduce-scatters, not their backward", "[tp][overlap]") {
  const auto m = load_model_spec(model_path("llama3.1-70b"));
  const auto on = build_step_plan(m, llama70b(true)), off = build_step_plan(m, llama70b(false));
  int ag = 0, rs = 0;
  for (const auto& st : on.stages)
    for (auto v : boost::make_iterator_range(boost::vertices(st.graph))) {
      const Op& o = st.graph[v];
      if (!o.is_collective() || o.group != Group::TP) continue;
      if (o.phase == Phase::Backward) {
        CHECK(o.overlap_ops == 0);
        CHECK_FALSE(o.overlap_previous);
        continue;
      }
      if (o.kind == OpKind::AllGather && o.label.find("_enter") != std::string::npos) {
        CHECK(o.overlap_ops == 1);  // beside the GEMM after it
        ++ag;
      }
      if (o.kind == OpKind::ReduceScatter) {
        CHECK(o.overlap_previous);  // beside the GEMM before it
        ++rs;
      }
    }
  CHECK(ag >= 2 * m.layers);  // attention and MLP of every layer (and its recompute)
  CHECK(rs >= 2 * m.layers);
  for (const auto& st : off.stages)
    for (auto v : boost::make_iterator_range(boost::vertices(st.graph))) {
      CHECK(st.graph[v].overlap_previous == false);
      if (st.graph[v].group == Group::TP) CHECK(st.graph[v].overlap_ops == 0);
    }
}

TEST_CASE("TP overlap hides forward TP time: never slower, never faster than the compute", "[tp][overlap][tlm]") {
  const auto m = load_model_spec(model_path("llama3.1-70b"));
  const StepResult on = execute_step(make_scenario(llama70b(true), m)), off = execute_step(make_scenario(llama70b(false), m));
  const auto &a = on.stages.front(), &b = off.stages.front();
  CHECK(a.tp_comm_s < b.tp_comm_s);
  CHECK(on.step_time_s <= off.step_time_s);
  CHECK(on.step_time_s >= a.compute_s + a.recompute_s);
  // The same work either way; overlapped collectives only slow the GEMMs beside them (they hold SMs).
  CHECK(a.compute_s + a.recompute_s - a.comm_slowdown_s == Approx(b.compute_s + b.recompute_s - b.comm_slowdown_s));
  CHECK(a.comm_slowdown_s >= b.comm_slowdown_s);
}
