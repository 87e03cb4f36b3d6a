// step_bound.cpp — see step_bound.hpp.
#include "step_bound.hpp"

#include "node_spread.hpp"

#include <algorithm>
#include <array>

#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "collective.hpp"
#include "fused_attention_overlap.hpp"
#include "overlap_policy.hpp"
#include "launch_floor.hpp"
#include "platform.hpp"
#include "run_kernel.hpp"
#include "step_executor.hpp"
#include "topology.hpp"

namespace trnsim {
namespace {

// hardware, kind, bytes, group size, stride, MoE routing (top_k, experts, groups, group_topk, once per domain)
using CollectiveKey = std::tuple<std::string, int, int64_t, int, int, int, int, int, int, bool>;
std::map<CollectiveKey, double>& collective_memo() {
  static std::map<CollectiveKey, double> memo;
  return memo;
}

// A collective alone on idle links: the least it can take inside a step (other traffic on its
// links only queues it). Simulated once per (hardware, kind, bytes, group, stride) and memoised.
double simulate_idle_collective_s(const HwSpec& hw, const CollectiveKey& key, const Op& op, int stride) {
  const CollectiveCall call{op.kind, op.comm_bytes, layout_group(hw, stride, op.group_size), op.routing};
  return collective_memo()[key] = idle_collective_seconds(hw, call);
}

// Least time one op list can take on a rank, two ways:
//   * the data chain: every op but a weight-gradient GEMM starts after the previous chain op
//     ends, and every collective placed on the chain (overlap_policy.hpp) starts after the chain and
//     ends it (executor run_ops), so the chain ops and the collectives (on idle links) add up;
//   * the busiest engine timeline (lane(op.engine)), plus the collectives placed Serial (each waits
//     for every engine to drain, and everything after waits for it).
// One walk gives both settings of tp_overlap: {off, on}. With ep_overlap the expert all-to-alls
// count nothing (Paired: in 1F1B's steady state they run beside the other micro-batch).
std::pair<double, double> list_work(const StageProgram& st, const std::vector<OpVertex>& list, const HwSpec& hw,
                                    WorkTimes& times, bool ep_overlap) {
  // Device times with the executor's launch floors (the same rule on the same list).
  std::vector<double> d(list.size(), 0.0);
  for (size_t i = 0; i < list.size(); ++i)
    if (!st.graph[list[i]].is_collective()) d[i] = times.op_s(st.graph[list[i]]);
  overlap_fused_attention(st, list, hw.tensor.output_tile_n(), d);
  apply_launch_floor(st, list, hw.host.op_dispatch_s(), d);
  std::array<double, 6> lane{};
  double comm = 0, chain = 0;
  std::array<double, 2> serial{};  // per tp_overlap setting: the collectives nothing runs beside
  for (size_t i = 0; i < list.size(); ++i) {
    const Op& op = st.graph[list[i]];
    if (op.is_collective()) {
      // TP, EP and ETP collectives on the chain count. All are timed on layout_group(hw, 1, size),
      // runs of consecutive ranks: TP's and ETP's groups are, and an EP group (ranks etp apart)
      // spans at least as many nodes as a consecutive one, so it takes no less time than that bound.
      if (op.group != Group::TP && op.group != Group::EP && op.group != Group::ETP) continue;
      double t = -1;  // looked up once, for the first setting that places it on the chain
      for (int tpo = 0; tpo < 2; ++tpo) {
        const CommPlacement where = placement(op, tpo == 1, ep_overlap);
        if (where != CommPlacement::OnChain && where != CommPlacement::Serial) continue;
        if (t < 0) t = times.collective_s(op);
        if (tpo == 0) comm += t;  // on the chain either way
        if (where == CommPlacement::Serial) serial[static_cast<size_t>(tpo)] += t;
      }
      continue;
    }
    lane[hw.concurrent_engines ? static_cast<size_t>(op.engine) : 0] += d[i];
    if (!op.weight_grad) chain += d[i];
  }
  const double busiest = *std::max_element(lane.begin(), lane.end());
  return {std::max(chain + comm, busiest + serial[0]), std::max(chain + comm, busiest + serial[1])};
}

double optimizer_work(const StageProgram& st, const HwSpec& hw, WorkTimes& times) {
  double t = 0;  // the executor waits for each optimizer compute op in turn
  for (OpVertex v : st.optimizer)
    if (!st.graph[v].is_collective()) t += std::max(times.op_s(st.graph[v]), hw.host.op_dispatch_s());
  return t;
}

}  // namespace

WorkTimes::WorkTimes(const HwSpec& hw, bool simulate)
    : hw_(hw), hw_key_(hw.fingerprint() + hw.fabric_fingerprint()), simulate_(simulate) {
  if (simulate_) Platform::instance().configure(hw);
}

double WorkTimes::op_s(const Op& op) {
  OpTimer& timer = Platform::instance().timer();
  const OpTiming* t = simulate_ ? &timer.time(op) : timer.find(op);
  if (!t) {
    missed_ops_.push_back(op);
    return 0;
  }
  return t->seconds;
}

namespace {
CollectiveKey collective_key(const std::string& hw_key, const Op& op, int stride) {
  const ExpertRouting& r = op.routing;
  return {hw_key, static_cast<int>(op.kind), op.comm_bytes.base(), op.group_size, stride, r.top_k, r.experts, r.groups,
          r.group_topk, r.once_per_domain};
}
}  // namespace

double WorkTimes::collective_s(const Op& op, int stride) {
  const CollectiveKey key = collective_key(hw_key_, op, stride);
  const auto& memo = collective_memo();
  auto it = memo.find(key);
  if (it != memo.end()) return it->second;
  if (simulate_) return simulate_idle_collective_s(hw_, key, op, stride);
  missed_collectives_.push_back({op, stride});
  return 0;
}

void WorkTimes::simulate_missed() {
  Platform::instance().configure(hw_);
  OpTimer& timer = Platform::instance().timer();
  for (const Op& op : missed_ops_) timer.time(op);
  for (const auto& [op, stride] : missed_collectives_) {
    const CollectiveKey key = collective_key(hw_key_, op, stride);
    if (!collective_memo().count(key)) simulate_idle_collective_s(hw_, key, op, stride);
  }
  missed_ops_.clear();
  missed_collectives_.clear();
}

StepWork step_work(const StepPlan& plan, const HwSpec& hw, bool tp_overlap, bool ep_overlap, WorkTimes& times,
                   bool with_optimizer) {
  const auto p = static_cast<size_t>(plan.ranks), v = static_cast<size_t>(plan.virtual_stages);
  StepWork w;
  w.forward_s.resize(p * v);
  w.backward_s.resize(p * v);
  w.backward_other_s.resize(p * v);
  w.optimizer_s.assign(p, 0.0);
  for (size_t k = 0; k < p * v; ++k) {
    const auto& st = plan.stages[k];
    // The executor overlaps TP collectives with compute only in the backward, with tp_overlap.
    w.forward_s[k] = list_work(st, st.forward, hw, times, ep_overlap).first;
    const auto [serial, overlapped] = list_work(st, st.backward, hw, times, ep_overlap);
    w.backward_s[k] = tp_overlap ? overlapped : serial;
    w.backward_other_s[k] = tp_overlap ? serial : overlapped;
    w.ops_per_micro_batch += static_cast<double>(st.forward.size() + st.backward.size() + st.optimizer.size());
    if (with_optimizer) w.optimizer_s[k % p] += optimizer_work(st, hw, times);
  }
  return w;
}

std::vector<PieceRun> piece_runs(const std::vector<PieceParameters>& pieces) {
  std::vector<PieceRun> runs;
  for (const PieceParameters& p : pieces) {
    if (!runs.empty()) {
      const PieceParameters& q = runs.back().piece;
      if (q.params == p.params && q.trainable == p.trainable && q.expert == p.expert) {
        ++runs.back().count;
        continue;
      }
    }
    runs.push_back({p, 1});
  }
  return runs;
}

DpStreamWork dp_stream_work(const std::vector<PieceRun>& pieces, int64_t trainable_parameters, const Workload& w,
                            WorkTimes& times) {
  // DP and expert-data-parallel groups as the executor lays them out.
  auto stride = [&w](const Op& op) { return group_stride(op.group, w); };
  DpStreamWork d;
  const double gathers = w.fsdp_reshard_after_forward ? 2.0 : 1.0;  // forward, and again in backward
  // Backward runs the pieces in reverse: the first piece's gradients complete last.
  if (w.grad_bucket_elements <= 0) {
    if (!pieces.empty())
      for (const Op& b : grad_bucket_ops(pieces.front().piece, w)) d.last_bucket_s += times.collective_s(b, stride(b));
    for (const auto& [p, count] : pieces)
      for (const Op& b : grad_bucket_ops(p, w)) d.per_reduction_s += static_cast<double>(count) * times.collective_s(b, stride(b));
  } else {  // flat buffers: the step graph's buckets (grad_buckets), the last holding the first piece
    std::vector<PieceParameters> backward_order;
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) backward_order.insert(backward_order.end(), static_cast<size_t>(it->count), it->piece);
    const auto buckets = grad_buckets(backward_order, w);
    for (size_t i = 0; i < buckets.size(); ++i)
      for (const Op& b : grad_bucket_ops(buckets[i], w)) {
        const double t = times.collective_s(b, stride(b));
        d.per_reduction_s += t;
        if (i + 1 == buckets.size()) d.last_bucket_s += t;
      }
  }
  if (zero3_gathers(w))
    for (const auto& [p, count] : pieces) {
      const Op g = param_gather_op(p, w);
      d.per_micro_batch_s += static_cast<double>(count) * gathers * times.collective_s(g, stride(g));
    }
  // Beside the first forward (overlap_param_gather) it may hide entirely: nothing counts.
  if (optimizer_param_gather(w) && !w.overlap_param_gather) {
    // Under FP8 fp8_param_gather some of them go at one byte: all of them at one byte bounds it below.
    const Op g = optimizer_param_gather_op(trainable_parameters, trainable_parameters, w);
    d.optimizer_s += times.collective_s(g, stride(g));
  }
  return d;
}

StepWork step_work(const Scenario& s, bool with_optimizer) {
  WorkTimes times(s.hw, true);
  StepWork work = step_work(s.plan, s.hw, s.workload.tp_overlap, s.workload.ep_overlap, times, with_optimizer);
  work.dp_stream_s.assign(static_cast<size_t>(s.plan.ranks), 0.0);
  work.dp_tail_s.assign(static_cast<size_t>(s.plan.ranks), 0.0);
  for (const auto& st : s.plan.stages) {
    const DpStreamWork d = dp_stream_work(piece_runs(st.pieces), st.trainable_parameters, s.workload, times);
    const auto r = static_cast<size_t>(st.rank);
    work.dp_stream_s[r] += d.step_s(s.workload, s.plan.micro_batches);
    work.dp_tail_s[r] += d.tail_s(s.workload, s.plan.micro_batches);
    if (with_optimizer) work.optimizer_s[r] += d.optimizer_s;
  }
  return work;
}

namespace {
// One micro-batch's forward + backward work on pipeline rank r, over its chunks.
double rank_work_per_micro_batch(const std::vector<double>& F, const std::vector<double>& B, size_t p, size_t v, size_t r) {
  double per_mb = 0;
  for (size_t c = 0; c < v; ++c) per_mb += F[c * p + r] + B[c * p + r];
  return per_mb;
}
}  // namespace

double step_bound_from_work(const std::vector<double>& F, const std::vector<double>& B, const std::vector<double>& opt,
                            int64_t ranks, int64_t virtual_stages, int64_t micro_batches, double ops_per_micro_batch,
                            const std::vector<double>& dp_stream_s, const std::vector<double>& dp_tail_s) {
  const auto p = static_cast<size_t>(ranks), v = static_cast<size_t>(virtual_stages);
  const double m = static_cast<double>(micro_batches);
  double bound = 0, before_f = 0, before_b = 0;  // chunk 0 of the earlier ranks
  for (size_t r = 0; r < p; ++r) {
    const double work = m * rank_work_per_micro_batch(F, B, p, v, r);
    const double tail = v == 1 && !dp_tail_s.empty() ? dp_tail_s[r] : 0.0;
    double t = before_f + work + tail + opt[r];
    if (v == 1) t = std::max(t, before_f + work + before_b + opt[0]);
    if (!dp_stream_s.empty()) t = std::max(t, before_f + dp_stream_s[r] + opt[r]);
    bound = std::max(bound, t);
    before_f += F[r];
    before_b += B[r];
  }
  const double rounding = 1e-12 * (ops_per_micro_batch * m + 1000.0);
  return std::max(0.0, bound * (1 - 1e-9) - rounding);
}

StepBound step_lower_bound(const Scenario& s) {
  const StepWork w = step_work(s);
  StepBound b;
  b.step_time_s = step_bound_from_work(w.forward_s, w.backward_s, w.optimizer_s, s.plan.ranks, s.plan.virtual_stages,
                                       s.plan.micro_batches, w.ops_per_micro_batch, w.dp_stream_s, w.dp_tail_s) *
                  (1 + slowest_node_fraction(s.hw, s.workload.nodes));  // the slowest node's wait, as the executor adds it
  const double m = static_cast<double>(s.plan.micro_batches);
  const auto p = static_cast<size_t>(s.plan.ranks), v = static_cast<size_t>(s.plan.virtual_stages);
  for (size_t r = 0; r < p; ++r)
    b.work_s = std::max(b.work_s, m * rank_work_per_micro_batch(w.forward_s, w.backward_s, p, v, r) + w.optimizer_s[r]);
  return b;
}

}  // namespace trnsim
