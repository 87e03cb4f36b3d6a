// step_executor.hpp — runs one training step of a Scenario on the SystemC platform.
// One SC_THREAD per pipeline stage executes the representative core's ops in schedule
// order (1F1B or GPipe over the micro-batches): compute ops take their memoised TLM
// duration, TP collectives and PP send/recv run on the fabric's links with the real
// group placement; a second thread per stage streams the DP gradient buckets, started
// as the last micro-batch's backward completes each bucket (overlap) or after it; the
// optimizer follows. DP replicas are not simulated one by one: the collectives'
// link multiplicities account for all of them, which is exact while replicas run
// identical programs (it ignores stragglers and jitter between replicas).
#pragma once
#include <array>
#include <string>
#include <vector>

#include "program.hpp"
#include "scenario.hpp"
#include "trace.hpp"
#include "trnsim/op.hpp"

namespace trnsim {

struct StageTimes {
  double finish_s = 0;
  double compute_s = 0, recompute_s = 0, tp_comm_s = 0, pp_comm_s = 0, bubble_s = 0, dp_exposed_s = 0, optimizer_s = 0;
  double ep_comm_s = 0;  // MoE all-to-all and expert-TP collectives on the chain (exposed)
  double cp_comm_s = 0;  // ring-attention K/V exchange not hidden behind the attention (exposed)
  double host_wait_s = 0;               // device idle, waiting for the host to trace a graph (lazy tensors)
  double dp_comm_s = 0;                 // DP collective time, hidden or not
  // Part of compute_s / recompute_s: GEMMs slowed by a collective holding some of the compute
  // units beside them (hw collectives.compute_units).
  double comm_slowdown_s = 0;
  std::array<double, 6> engine_s{};     // compute time by bounding engine (Engine enum order)
  // Compute, recompute and optimizer compute time by the part of the model an op computes (Part
  // enum order; a GEMM slowed by a collective beside it counts in its own part).
  std::array<double, kParts> part_s{};
  // Busy time of each engine's instruction queue in the TLM core model (Queue order: tensor,
  // vector, scalar/activation, GpSimd, DMA load, DMA store), summed over the ops run: an op's
  // engines overlap, so these add up to more than its duration.
  std::array<double, kQueues> queue_busy_s{};
  // Everything but waiting for another stage: compute, recompute, exposed collectives, the optimizer.
  double busy_s() const { return finish_s - bubble_s; }
};

struct StepResult {
  double step_time_s = 0;
  // Part of step_time_s: the wait for the slowest node (node_spread.hpp; 0 on one node).
  double slowest_node_s = 0;
  int critical_stage = 0;
  std::vector<StageTimes> stages;
  size_t ops_simulated = 0, op_lookups = 0;
  int64_t micro_batches_simulated = 0;  // < grad_accum when the steady state was extrapolated
  std::vector<TraceEvent> trace;
};

struct StepOptions {
  bool trace = false;
  int64_t extrapolate_after = 0;  // simulate at most this many micro-batches (0: the default cap)
};

StepResult execute_step(const Scenario& s, const StepOptions& opt = {});

// Ranks between consecutive members of a parallel group (Megatron's rank order: TP fastest, then
// CP, then DP, then PP; the expert grid over a stage's TP x CP x DP ranks: ETP, then EP, then
// expert data parallel). The executor lays every group out with it; the search's step bound too.
int group_stride(Group g, const Workload& w);

}  // namespace trnsim
