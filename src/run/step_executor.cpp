// step_executor.cpp — see step_executor.hpp.
#include "step_executor.hpp"

#include <deque>
#include <memory>
#include <systemc>

#include "collective.hpp"
#include "platform.hpp"
#include "topology.hpp"

namespace trnsim {
namespace {

struct StageState {
  int fwd_done = 0, bwd_done = 0;
  sc_core::sc_event progressed;
  std::deque<OpVertex> dp_pending;
  bool dp_closed = false, dp_idle = true;
  sc_core::sc_event dp_kick, dp_drained;
  std::vector<double> duration;  // per vertex, seconds (compute ops)
};

class Executor {
 public:
  Executor(const Scenario& s, const StepOptions& opt, int64_t micro_batches)
      : s_(s), opt_(opt), p_(Platform::instance()), m_(micro_batches),
        algo_(make_collective(s.hw.collectives.inter_algorithm, s.hw.collectives.intra_algorithm)) {
    const auto& w = s.workload;
    const GroupLayout tp = layout_group(s.hw, 1, static_cast<int>(w.tp));
    const GroupLayout dp = layout_group(s.hw, static_cast<int>(w.tp), static_cast<int>(w.dp));
    const GroupLayout pp = layout_group(s.hw, static_cast<int>(w.tp * w.dp), static_cast<int>(w.pp));
    // Stages filling whole nodes use disjoint links (each its own link domain); stages
    // sharing a node may share links, so they share one domain (conservative).
    const bool disjoint = (w.tp * w.dp) % s.hw.cores_per_node() == 0;
    for (int64_t st = 0; st < w.pp; ++st) {
      const int d = disjoint ? static_cast<int>(st) : 0;
      layouts_.push_back({tp.in_domain(d), dp.in_domain(d), pp.in_domain(d)});
    }
  }

  StepResult run() {
    p_.configure(s_.hw);
    OpTimer& timer = p_.timer();
    const size_t sim0 = timer.simulated(), look0 = timer.lookups();
    const size_t n = s_.plan.stages.size();
    state_ = std::vector<StageState>(n);
    result_.stages.assign(n, StageTimes{});
    // Op timing pre-pass (memoised; drives its own sc_start runs).
    for (size_t i = 0; i < n; ++i) {
      const auto& st = s_.plan.stages[i];
      state_[i].duration.assign(boost::num_vertices(st.graph), 0.0);
      for (auto v : boost::make_iterator_range(boost::vertices(st.graph)))
        if (!st.graph[v].is_collective()) state_[i].duration[v] = timer.time(st.graph[v]).seconds;
    }
    result_.ops_simulated = timer.simulated() - sim0;
    result_.op_lookups = timer.lookups() - look0;
    p_.fabric().reset_stats();
    t0_ = sc_core::sc_time_stamp();
    for (size_t i = 0; i < n; ++i) {
      sc_core::sc_spawn(sc_bind(&Executor::stage_thread, this, static_cast<int>(i)));
      sc_core::sc_spawn(sc_bind(&Executor::dp_thread, this, static_cast<int>(i)));
    }
    sc_core::sc_start();
    for (size_t i = 0; i < n; ++i)
      if (result_.stages[i].finish_s > result_.step_time_s) {
        result_.step_time_s = result_.stages[i].finish_s;
        result_.critical_stage = static_cast<int>(i);
      }
    return std::move(result_);
  }

 private:
  double now() const { return (sc_core::sc_time_stamp() - t0_).to_seconds(); }
  void record(const std::string& name, const std::string& track, double start) {
    if (opt_.trace) result_.trace.push_back({name, track, start * 1e6, (now() - start) * 1e6});
  }
  // Collectives of stage s run on its links; a PP transfer is booked by the receiving stage.
  const GroupLayout& layout_of(int s, Group g) const {
    const auto& l = layouts_[static_cast<size_t>(s)];
    return g == Group::TP ? l.tp : g == Group::DP ? l.dp : l.pp;
  }

  void collective(int s, const Op& op, const std::string& track) {
    const double t = now();
    algo_->run(p_.fabric(), CollectiveCall{op.kind, op.comm_bytes, layout_of(s, op.group)});
    record(op.label, track, t);
  }

  // Runs ops [begin, end) of a list. Consecutive compute ops are one wait (their trace
  // events keep exact start times); a collective or a DP bucket becoming ready ends the run.
  // `reduces`: this backward's gradients cross the DP group (see reduces_after).
  void run_ops(int s, const std::vector<OpVertex>& list, size_t begin, size_t end, bool reduces) {
    const auto& st = s_.plan.stages[static_cast<size_t>(s)];
    auto& times = result_.stages[static_cast<size_t>(s)];
    auto& ss = state_[static_cast<size_t>(s)];
    const std::string prefix = "stage " + std::to_string(s) + " / ";
    const bool buckets = reduces && &list == &st.backward && s_.workload.overlap_dp;
    size_t bucket = 0;
    double pending = 0;  // compute time not yet waited for
    auto flush = [&] {
      if (pending > 0) sc_core::wait(sim_time(pending));
      pending = 0;
    };
    for (size_t k = begin; k < end; ++k) {
      const Op& op = st.graph[list[k]];
      if (op.is_collective()) {
        flush();
        const double t = now();
        collective(s, op, prefix + "tp");
        times.tp_comm_s += now() - t;
      } else {
        const double d = ss.duration[list[k]];
        if (opt_.trace) result_.trace.push_back({op.label, prefix + to_string(op.engine), (now() + pending) * 1e6, d * 1e6});
        pending += d;
        if (op.phase == Phase::Recompute) times.recompute_s += d;
        else times.compute_s += d;
        times.engine_s[static_cast<size_t>(op.engine)] += d;
      }
      // DP buckets whose gradients are now complete.
      if (buckets)
        while (bucket < st.dp_buckets.size() && st.dp_buckets[bucket].ready_after <= k) {
          if (st.dp_buckets[bucket].ready_after == k) {
            flush();
            ss.dp_pending.push_back(st.dp_buckets[bucket].op);
            ss.dp_kick.notify(sc_core::SC_ZERO_TIME);
          }
          ++bucket;
        }
    }
    flush();
  }

  static sc_core::sc_time sim_time(double s) { return sc_core::sc_time(s * 1e12, sc_core::SC_PS); }

  void wait_for(int s, bool forward, int count) {
    auto& other = state_[static_cast<size_t>(forward ? s - 1 : s + 1)];
    const double t = now();
    while ((forward ? other.fwd_done : other.bwd_done) < count) sc_core::wait(other.progressed);
    result_.stages[static_cast<size_t>(s)].bubble_s += now() - t;
  }

  void p2p(int s, const std::string& name) {
    const double t = now();
    Op op;
    op.kind = OpKind::SendRecv;
    op.engine = Engine::Collective;
    op.group = Group::PP;
    op.comm_bytes = s_.plan.stages[static_cast<size_t>(s)].p2p_bytes;
    op.label = name;
    collective(s, op, "stage " + std::to_string(s) + " / pp");
    result_.stages[static_cast<size_t>(s)].pp_comm_s += now() - t;
  }

  void stage_thread(int s) {
    const auto& st = s_.plan.stages[static_cast<size_t>(s)];
    auto& ss = state_[static_cast<size_t>(s)];
    auto& times = result_.stages[static_cast<size_t>(s)];
    const int p = static_cast<int>(s_.plan.stages.size());
    const int m = static_cast<int>(m_);
    // Schedule: sequence of (forward?, micro-batch).
    std::vector<std::pair<bool, int>> order;
    if (s_.workload.schedule == Schedule::GPipe) {
      for (int i = 0; i < m; ++i) order.push_back({true, i});
      for (int i = 0; i < m; ++i) order.push_back({false, i});
    } else {
      const int warm = std::min(p - s - 1, m);
      for (int i = 0; i < warm; ++i) order.push_back({true, i});
      for (int i = 0; i < m - warm; ++i) {
        order.push_back({true, warm + i});
        order.push_back({false, i});
      }
      for (int i = m - warm; i < m; ++i) order.push_back({false, i});
    }
    for (auto [fwd, i] : order) {
      if (fwd) {
        if (s > 0) {
          wait_for(s, true, i + 1);
          p2p(s, "recv_activation");
        }
        run_ops(s, st.forward, 0, st.forward.size(), /*reduces=*/false);
        ++ss.fwd_done;
      } else {
        if (s < p - 1) {
          wait_for(s, false, i + 1);
          p2p(s, "recv_gradient");
        }
        const bool reduces = reduces_after(i);
        run_ops(s, st.backward, 0, st.backward.size(), reduces);
        // Without overlap every bucket starts once the backward is done; before a further
        // micro-batch the stage waits for them (the last one's wait is the step's end).
        if (reduces && !s_.workload.overlap_dp) {
          for (const auto& b : st.dp_buckets) ss.dp_pending.push_back(b.op);
          ss.dp_kick.notify(sc_core::SC_ZERO_TIME);
          if (i != m - 1) times.dp_exposed_s += drain(s);
        }
        ++ss.bwd_done;
      }
      ss.progressed.notify(sc_core::SC_ZERO_TIME);
    }
    ss.dp_closed = true;
    ss.dp_kick.notify(sc_core::SC_ZERO_TIME);
    times.dp_exposed_s += drain(s);
    const double t_opt = now();
    for (auto v : st.optimizer) {
      const Op& op = st.graph[v];
      const double to = now();
      if (op.is_collective()) collective(s, op, "stage " + std::to_string(s) + " / dp");
      else {
        sc_core::wait(sim_time(ss.duration[v]));
        times.engine_s[static_cast<size_t>(op.engine)] += now() - to;
        record(op.label, "stage " + std::to_string(s) + " / " + to_string(op.engine), to);
      }
    }
    times.optimizer_s = now() - t_opt;
    times.finish_s = now();
  }

  // Whether micro-batch i's backward ends with its gradients crossing the DP group: the last
  // one always, every one when the workload reduces per micro-batch.
  bool reduces_after(int i) const { return i == static_cast<int>(m_) - 1 || s_.workload.reduce_every_micro_batch; }

  // Waits until the stage's DP thread has no bucket queued or in flight; returns the wait (s).
  double drain(int s) {
    auto& ss = state_[static_cast<size_t>(s)];
    const double t = now();
    while (!(ss.dp_pending.empty() && ss.dp_idle)) sc_core::wait(ss.dp_drained);
    return now() - t;
  }

  void dp_thread(int s) {
    auto& ss = state_[static_cast<size_t>(s)];
    auto& times = result_.stages[static_cast<size_t>(s)];
    const auto& st = s_.plan.stages[static_cast<size_t>(s)];
    for (;;) {
      while (ss.dp_pending.empty()) {
        if (ss.dp_closed) {
          ss.dp_drained.notify(sc_core::SC_ZERO_TIME);
          return;
        }
        sc_core::wait(ss.dp_kick);
      }
      ss.dp_idle = false;
      OpVertex v = ss.dp_pending.front();
      ss.dp_pending.pop_front();
      const double t = now();
      collective(s, st.graph[v], "stage " + std::to_string(s) + " / dp");
      times.dp_comm_s += now() - t;
      ss.dp_idle = true;
      ss.dp_drained.notify(sc_core::SC_ZERO_TIME);
    }
  }

  const Scenario& s_;
  StepOptions opt_;
  Platform& p_;
  int64_t m_;
  std::unique_ptr<CollectiveAlgorithm> algo_;
  struct StageLayouts {
    GroupLayout tp, dp, pp;
  };
  std::vector<StageLayouts> layouts_;  // per stage
  std::vector<StageState> state_;
  StepResult result_;
  sc_core::sc_time t0_;
};

}  // namespace

StepResult execute_step(const Scenario& s, const StepOptions& opt) {
  const int64_t m = s.plan.micro_batches;
  const int64_t p = static_cast<int64_t>(s.plan.stages.size());
  // 1F1B / GPipe are periodic once the pipeline is full: every p extra micro-batches add
  // the same time to every stage (the period is p, not 1: with unequal stages a slope
  // over one micro-batch was measured to be off by 2% per node on GPT-NeoX PP4).
  // Beyond `cap` micro-batches, simulate cap - p and cap and extrapolate each stage's
  // times linearly (the DP reduction and optimizer, which happen once, cancel out).
  const int64_t cap = opt.extrapolate_after > 0 ? std::max(opt.extrapolate_after, p + 1) : std::max<int64_t>(8, 2 * p + 4);
  if (m <= cap) {
    StepResult r = Executor(s, opt, m).run();
    r.micro_batches_simulated = m;
    return r;
  }
  StepOptions quiet = opt;
  quiet.trace = false;
  StepResult a = Executor(s, quiet, cap - p).run();
  StepResult b = Executor(s, opt, cap).run();
  const double k = static_cast<double>(m - cap) / static_cast<double>(p);
  auto ext = [k](double x1, double x2) { return x2 + (x2 - x1) * k; };
  for (size_t i = 0; i < b.stages.size(); ++i) {
    auto &sa = a.stages[i], &sb = b.stages[i];
    for (double StageTimes::*f : {&StageTimes::finish_s, &StageTimes::compute_s, &StageTimes::recompute_s,
                                  &StageTimes::tp_comm_s, &StageTimes::pp_comm_s, &StageTimes::bubble_s,
                                  &StageTimes::dp_exposed_s, &StageTimes::optimizer_s, &StageTimes::dp_comm_s})
      sb.*f = ext(sa.*f, sb.*f);
    for (size_t e = 0; e < sb.engine_s.size(); ++e) sb.engine_s[e] = ext(sa.engine_s[e], sb.engine_s[e]);
  }
  b.step_time_s = 0;
  for (size_t i = 0; i < b.stages.size(); ++i)
    if (b.stages[i].finish_s > b.step_time_s) {
      b.step_time_s = b.stages[i].finish_s;
      b.critical_stage = static_cast<int>(i);
    }
  b.ops_simulated += a.ops_simulated;
  b.op_lookups += a.op_lookups;
  b.micro_batches_simulated = cap;
  return b;
}

}  // namespace trnsim
