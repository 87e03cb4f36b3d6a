// test_param_gather_overlap.cpp — the distributed optimizer's parameter all-gather beside the next
// step's first forward (parallel.overlap_param_gather: Megatron-Core overlap_param_gather, Apex
// DistributedFusedAdam overlap_param_sync). Checked on the plan (the same bytes, moved from the
// optimizer into the first forward piece by piece), on the step (the optimizer loses the gather,
// the DP stream carries it, the step is never slower than its compute), on the search's lower
// bound, and where it has no effect.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "model_spec.hpp"
#include "scenario.hpp"
#include "step_bound.hpp"
#include "step_executor.hpp"
#include "step_graph.hpp"

using namespace trnsim;

namespace {
// Llama 3.1 8B on 4 DGX-H100s: TP 8, DP 4, ZeRO-1, 8 micro-batches of 8,192 tokens.
Workload llama8b(bool overlap, int zero = 1) {
  Workload w = test::workload("llama3.1-8b", "dgx-h100", 4, 8, 1, 4, 1, 32, 8192);
  w.sequence_parallel = true;
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = zero;
  w.overlap_param_gather = overlap;
  return w;
}

double gather_bytes(const StageProgram& st, const std::vector<OpVertex>& list) {
  double b = 0;
  for (auto v : list)
    if (st.graph[v].kind == OpKind::AllGather && st.graph[v].group == Group::DP) b += st.graph[v].comm_bytes.base();
  return b;
}
}  // namespace

TEST_CASE("overlapped parameter gather: the optimizer's gather moves into the first forward, byte for byte", "[dp][overlap]") {
  const ModelSpec m = load_model_spec(model_path("llama3.1-8b"));
  const StepPlan serial = build_step_plan(m, llama8b(false));
  const StepPlan overlapped = build_step_plan(m, llama8b(true));
  const StageProgram& a = serial.stages[0];
  const StageProgram& b = overlapped.stages[0];
  REQUIRE(test::op_named(serial, "optimizer.param_gather") != nullptr);
  CHECK(test::op_named(overlapped, "optimizer.param_gather") == nullptr);
  CHECK(a.first_forward.empty());
  CHECK(gather_bytes(b, b.optimizer) == 0);
  // Every piece trains: one gather per piece (batch-loop piece aside), the serial gather's bytes in all.
  CHECK(gather_bytes(b, b.first_forward) == Approx(gather_bytes(a, a.optimizer)).epsilon(1e-12));
  size_t gathers = 0;
  for (auto v : b.first_forward) gathers += b.graph[v].kind == OpKind::AllGather && b.graph[v].group == Group::DP;
  CHECK(gathers == b.pieces.size());
  // The first forward is the forward with the gathers in it, the compute in the same order.
  std::vector<OpVertex> compute;
  for (auto v : b.first_forward)
    if (!(b.graph[v].kind == OpKind::AllGather && b.graph[v].group == Group::DP)) compute.push_back(v);
  CHECK(compute == b.forward);
  // The first gather comes before any compute (it has nothing to hide behind), the next one piece ahead.
  REQUIRE(!b.first_forward.empty());
  CHECK(b.graph[b.first_forward[0]].group == Group::DP);
  CHECK(b.graph[b.first_forward[1]].group == Group::DP);
}

TEST_CASE("overlapped parameter gather: the optimizer loses the gather and the step is not slower", "[dp][overlap]") {
  const Scenario serial = make_scenario(llama8b(false), true);
  const Scenario overlapped = make_scenario(llama8b(true), true);
  const StepResult rs = execute_step(serial), ro = execute_step(overlapped);
  const auto& s0 = rs.stages[0];
  const auto& o0 = ro.stages[0];
  // The serial step pays the gather after the optimizer's compute; the overlapped one does not.
  CHECK(o0.optimizer_s < s0.optimizer_s);
  // The DP stream carries it instead (reductions plus the gather).
  CHECK(o0.dp_comm_s > s0.dp_comm_s);
  // Hidden behind the first forward, at least in part: the step gains, and never more than the
  // optimizer lost.
  CHECK(ro.step_time_s <= rs.step_time_s);
  CHECK(rs.step_time_s - ro.step_time_s <= s0.optimizer_s - o0.optimizer_s + 1e-9);
  // The search's bound stays below what the executor does.
  CHECK(step_lower_bound(overlapped).step_time_s <= ro.step_time_s);
}

TEST_CASE("overlapped parameter gather: no effect without a distributed optimizer or data parallelism", "[dp][overlap]") {
  const ModelSpec m = load_model_spec(model_path("llama3.1-8b"));
  for (int zero : {0, 3}) {
    const StepPlan p = build_step_plan(m, llama8b(true, zero));
    CHECK(p.stages[0].first_forward.empty());
    CHECK(execute_step(make_scenario(llama8b(true, zero), true)).step_time_s ==
          execute_step(make_scenario(llama8b(false, zero), true)).step_time_s);
  }
  Workload one = llama8b(true);
  one.nodes = 1, one.dp = 1, one.global_batch = 8;
  CHECK(build_step_plan(m, one).stages[0].first_forward.empty());
}
