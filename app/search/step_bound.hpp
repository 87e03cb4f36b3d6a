// step_bound.hpp — a lower bound on a scenario's simulated step time, without simulating the
// step: what the search uses to skip layouts that cannot enter its top-K or Pareto
// front. It mirrors the executor's rules (step_executor.cpp), keeping only what can only add
// time:
//   * a micro-batch's forward (backward) on a stage takes at least its compute work: the sum of
//     its ops' durations on the busiest engine timeline (one timeline per engine on hardware
//     with concurrent engines, else one), the same memoised op timings the executor uses;
//     collectives, host waits, link contention and pipeline waits only add to that;
//   * a pipeline rank runs its m forwards and m backwards one after another, and cannot start
//     before micro-batch 0's forward has crossed every earlier stage;
//   * the last micro-batch's backward then crosses every earlier stage back to rank 0;
//   * each rank's optimizer compute follows its last backward.
//   * a rank's DP stream (ZeRO-3 parameter gathers, gradient buckets) runs one collective at a
//     time, each taking at least its time alone on idle links; it starts no earlier than the
//     rank's first forward, and the optimizer (compute and collectives) waits for it to drain.
// So step >= max over ranks r of
//   sum_{s<r} F_s + m (F_r + B_r) + max(opt_r, sum_{s<r} B_s + opt_0)   (one chunk per rank),
// and >= sum_{s<r} F_s + m sum_chunks (F + B) + opt_r with interleaving, and
//   >= sum_{s<r} F_s + DP_r + opt_r, DP_r = m x gathers_r + reductions x buckets_r, and (one chunk
//   per rank) the first bound with the DP time that must follow the rank's backward compute added.
// Every simulated layout of the search's tests is checked against it.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "scenario.hpp"
#include "step_graph.hpp"

namespace trnsim {

struct StepBound {
  double step_time_s = 0;  // lower bound on execute_step(s).step_time_s
  double work_s = 0;       // the busiest rank's compute work alone (m (F + B) + optimizer)
};

// Times the scenario's ops on the process's platform (memoised, like execute_step).
StepBound step_lower_bound(const Scenario& s);

// The parts: per program (virtual stage) one micro-batch's forward and backward compute work,
// and per rank the optimizer's; and the bound from them for m micro-batches per step.
struct StepWork {
  std::vector<double> forward_s;              // by program
  std::vector<double> backward_s;             // by program, for the workload's tp_overlap setting
  std::vector<double> backward_other_s;       // by program, for the opposite setting (the plan is the same)
  std::vector<double> optimizer_s;            // by pipeline rank, compute and collectives (zeros unless asked for)
  std::vector<double> dp_stream_s;            // by pipeline rank, the step's DP-stream collectives (empty unless asked for)
  std::vector<double> dp_tail_s;              // by pipeline rank, DP time after its backward compute (DpStreamWork::tail_s)
  double ops_per_micro_batch = 0;             // forward + backward ops of every program
};
// The optimizer's ops are timed only with `with_optimizer`: the search times them per DP degree
// and ZeRO stage itself, and a replica-sized optimizer op is the costliest op to simulate.
StepWork step_work(const Scenario& s, bool with_optimizer = true);

// Where step_work reads op durations and idle-link collective times: the process's memo tables
// (OpTimer, and one for collectives). Simulating, a miss is simulated (SystemC: the one thread
// that owns the kernel). Looking up, the tables are only read, so any number of threads may look
// up at once while none simulates: a miss counts as zero and is remembered, and
// simulate_missed() (SystemC thread) fills the tables so a second look-up is complete.
// Both expect Platform::instance() configured for `hw` (the simulating one configures it).
class WorkTimes {
 public:
  WorkTimes(const HwSpec& hw, bool simulate);
  double op_s(const Op& op);          // the op's device time (launch floors: launch_floor.hpp)
  // A collective alone on idle links, its group laid out as the executor does: `stride` ranks
  // between members (TP / EP: 1, a run of consecutive ranks, the least a group of its size takes).
  double collective_s(const Op& op, int stride = 1);
  bool missed() const { return !missed_ops_.empty() || !missed_collectives_.empty(); }
  void simulate_missed();

 private:
  const HwSpec& hw_;
  std::string hw_key_;
  bool simulate_;
  std::vector<Op> missed_ops_;
  std::vector<std::pair<Op, int>> missed_collectives_;  // (op, stride)
};
// One program's DP stream: its collectives per micro-batch (ZeRO-3 gathers), per gradient
// reduction (its buckets) and the optimizer's, from its pieces (step_graph.hpp's builders).
struct DpStreamWork {
  double per_micro_batch_s = 0, per_reduction_s = 0, optimizer_s = 0;
  double last_bucket_s = 0;  // the buckets of the piece whose gradients complete last (the first piece)
  // A rank's programs' streams, one after another.
  DpStreamWork& operator+=(const DpStreamWork& o) {
    per_micro_batch_s += o.per_micro_batch_s, per_reduction_s += o.per_reduction_s, optimizer_s += o.optimizer_s;
    last_bucket_s += o.last_bucket_s;
    return *this;
  }
  // Busy time over a step of m micro-batches (every one reduces, or only the last).
  double step_s(const Workload& w, int64_t micro_batches) const {
    const double m = static_cast<double>(micro_batches);
    return m * per_micro_batch_s + (w.reduce_every_micro_batch ? m : 1.0) * per_reduction_s;
  }
  // DP time that follows the program's backward compute (executor rank_thread / run_ops): without
  // DP overlap every reduction's buckets start once its backward is done, and the rank drains them
  // before it goes on; with overlap, the last piece's buckets are handed over once the last
  // backward has drained.
  double tail_s(const Workload& w, int64_t micro_batches) const {
    if (w.overlap_dp) return last_bucket_s;
    return (w.reduce_every_micro_batch ? static_cast<double>(micro_batches) : 1.0) * per_reduction_s;
  }
};
// A program's pieces with consecutive equal ones merged (its blocks are mostly alike): what the
// search keeps per plan shape.
struct PieceRun {
  PieceParameters piece;
  int64_t count = 0;
};
std::vector<PieceRun> piece_runs(const std::vector<PieceParameters>& pieces);
DpStreamWork dp_stream_work(const std::vector<PieceRun>& pieces, int64_t trainable_parameters, const Workload& w,
                            WorkTimes& times);
// The same work from a plan (tp_overlap: the workload's setting, which backward_s is for;
// ep_overlap: the expert all-to-alls count nothing, Workload::ep_overlap).
StepWork step_work(const StepPlan& plan, const HwSpec& hw, bool tp_overlap, bool ep_overlap, WorkTimes& times,
                   bool with_optimizer);
// The executor advances SystemC time in whole picoseconds, one wait per op at most, so its sums
// can land below the exact real-number sum by up to 1 ps per op: the bound gives that back
// (ops_per_micro_batch x micro_batches ps) and 1e-9 of itself for floating-point order.
// dp_stream_s: per rank, the step's DP-stream busy time; dp_tail_s: per rank, the DP time that
// follows its backward compute, counted without interleaving (empty: not counted).
double step_bound_from_work(const std::vector<double>& forward_s, const std::vector<double>& backward_s,
                            const std::vector<double>& optimizer_s, int64_t ranks, int64_t virtual_stages, int64_t micro_batches,
                            double ops_per_micro_batch, const std::vector<double>& dp_stream_s = {},
                            const std::vector<double>& dp_tail_s = {});

}  // namespace trnsim
