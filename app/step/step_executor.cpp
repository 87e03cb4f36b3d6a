// step_executor.cpp — see step_executor.hpp.
#include "step_executor.hpp"

#include "node_spread.hpp"
#include "overlap_policy.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <tuple>
#include <map>
#include <memory>
#include <systemc>

#include "collective.hpp"
#include "fused_attention_overlap.hpp"
#include "launch_floor.hpp"
#include "platform.hpp"
#include "pipeline_schedule.hpp"
#include "run_kernel.hpp"
#include "topology.hpp"

namespace trnsim {
namespace {

// Per program (model chunk): micro-batches finished, op durations.
struct ProgramState {
  int fwd_done = 0, bwd_done = 0;
  sc_core::sc_event progressed;
  // With pp_overlap: inputs (activations, gradients) that have crossed the link to this program,
  // and which of its passes receive theirs overlapped (steady-state slots), per micro-batch.
  std::vector<char> fwd_async, bwd_async, fwd_arrived, bwd_arrived;
  sc_core::sc_event arrived;
  std::vector<double> duration;  // per vertex, seconds (compute ops)
  std::vector<std::array<double, kQueues>> busy;  // per vertex: each engine queue's TLM busy time
  // The overlapped parameter gather's first piece (overlap_param_gather): issued at the step's start,
  // as the optimizer step dispatches it, so a rank waiting out the pipeline's warm-up gathers
  // meanwhile; its first forward finds it here. Null when there is none.
  std::shared_ptr<bool> early_gather;
};
// Per pipeline rank: its DP bucket queue.
struct RankState {
  // (program, op, done flag or null): gradient buckets and ZeRO-3 parameter gathers, in issue order.
  std::deque<std::tuple<int, OpVertex, std::shared_ptr<bool>>> dp_pending;
  bool dp_closed = false, dp_idle = true;
  sc_core::sc_event dp_kick, dp_drained;
};

class Executor {
 public:
  Executor(const Scenario& s, const StepOptions& opt, int64_t micro_batches)
      : s_(s), opt_(opt), p_(Platform::instance()), m_(micro_batches),
        algo_(make_collective(s.hw.collectives.algorithm(), s.hw.collectives.intra_algorithm)) {
    const auto& w = s.workload;
    // Gradients reduce over DP x CP; expert gradients over the expert-data-parallel ranks.
    auto group = [&](Group g, int64_t size) { return layout_group(s.hw, group_stride(g, w), static_cast<int>(size)); };
    const GroupLayout tp = group(Group::TP, w.tp), cp = group(Group::CP, w.cp), dp = group(Group::DP, w.dp_cp()),
                      pp = group(Group::PP, w.pp), etp = group(Group::ETP, w.etp), ep = group(Group::EP, w.ep),
                      edp = group(Group::EDP, w.edp());
    // Each pipeline stage books its own link domain. When stages share a node their groups may
    // share physical links, but layout_group's multiplicity already counts every group of that
    // kind in the node (all stages') as sending at once; queueing the stages behind each other
    // as well counted that contention twice and made the step depend chaotically on who queued
    // first (doubling DMA bandwidth made 6 of 282 random layouts up to 0.24 % slower).
    for (int64_t r = 0; r < w.pp; ++r) {
      const int d = static_cast<int>(r);
      layouts_.push_back({tp.in_domain(d), dp.in_domain(d), pp.in_domain(d), ep.in_domain(d), edp.in_domain(d),
                          cp.in_domain(d), etp.in_domain(d)});
    }
    // A measured collective table scales what crosses nodes; its idle runs happen now, before the step.
    for (const GroupLayout* g : {&tp, &cp, &dp, &etp, &ep, &edp})
      for (OpKind k : {OpKind::AllReduce, OpKind::ReduceScatter, OpKind::AllGather, OpKind::AllToAll}) prepare_measured(s.hw, k, g->nodes);
  }

  StepResult run() {
    p_.configure(s_.hw);
    OpTimer& timer = p_.timer();
    const size_t sim0 = timer.simulated(), look0 = timer.lookups();
    const size_t n = s_.plan.stages.size();
    const size_t ranks = static_cast<size_t>(s_.plan.ranks);
    prog_ = std::vector<ProgramState>(n);
    rank_ = std::vector<RankState>(ranks);
    ep_pending_.assign(ranks, {});
    if (s_.workload.pp_overlap_applies()) mark_async_receives();
    result_.stages.assign(ranks, StageTimes{});
    // Op timing pre-pass (memoised; drives its own sc_start runs).
    for (size_t i = 0; i < n; ++i) {
      const auto& st = s_.plan.stages[i];
      prog_[i].duration.assign(boost::num_vertices(st.graph), 0.0);
      prog_[i].busy.assign(boost::num_vertices(st.graph), {});
      for (auto v : boost::make_iterator_range(boost::vertices(st.graph)))
        if (!st.graph[v].is_collective()) {
          const OpTiming& t = timer.time(st.graph[v]);
          prog_[i].duration[v] = t.seconds;
          prog_[i].busy[v] = t.busy_s;
        }
      // The host must issue a kernel before the device can run it (launch_floor.hpp).
      std::vector<double> d;
      for (const auto* list : {&st.forward, &st.backward, &st.optimizer}) {
        d.resize(list->size());
        for (size_t k = 0; k < list->size(); ++k) d[k] = prog_[i].duration[(*list)[k]];
        overlap_fused_attention(st, *list, s_.hw.tensor.output_tile_n(), d);
        apply_launch_floor(st, *list, s_.hw.host.op_dispatch_s(), d);
        for (size_t k = 0; k < list->size(); ++k) prog_[i].duration[(*list)[k]] = d[k];
      }
    }
    result_.ops_simulated = timer.simulated() - sim0;
    result_.op_lookups = timer.lookups() - look0;
    p_.fabric().reset_stats();
    t0_ = sc_core::sc_time_stamp();
    for (size_t r = 0; r < ranks; ++r) {
      const int rank = static_cast<int>(r);
      p_.threads().run([this, rank] { rank_thread(rank); });
      p_.threads().run([this, rank] { dp_thread(rank); });
    }
    run_kernel();
    for (size_t r = 0; r < ranks; ++r)
      if (result_.stages[r].finish_s > result_.step_time_s) {
        result_.step_time_s = result_.stages[r].finish_s;
        result_.critical_stage = static_cast<int>(r);
      }
    return std::move(result_);
  }

 private:
  double now() const { return (sc_core::sc_time_stamp() - t0_).to_seconds(); }
  void record(const std::string& name, const std::string& track, double start) {
    if (opt_.trace) result_.trace.push_back({name, track, start * 1e6, (now() - start) * 1e6});
  }
  static std::string track(int r, const std::string& what) { return "stage " + std::to_string(r) + " / " + what; }
  // The kind of communication a chain collective is: its trace track and the exposed time it adds
  // to. Ring attention (cp), expert (ep: EP and ETP), tensor parallel (tp).
  struct CommKind {
    const char* track;
    double StageTimes::*exposed;
  };
  static CommKind comm_kind(Group g) {
    if (g == Group::CP) return {"cp", &StageTimes::cp_comm_s};
    if (g == Group::EP || g == Group::ETP) return {"ep", &StageTimes::ep_comm_s};
    return {"tp", &StageTimes::tp_comm_s};
  }
  // A collective of rank r run in its own SystemC thread; `done` is set and `finished` notified at its end.
  struct Pending {
    std::shared_ptr<bool> done = std::make_shared<bool>(false);
    std::shared_ptr<sc_core::sc_event> finished = std::make_shared<sc_core::sc_event>();
  };
  Pending launch(int r, const Op& op) {
    Pending p;
    const Op* o = &op;
    p_.threads().run([this, r, o, p] {
      collective(r, *o, track(r, comm_kind(o->group).track));
      *p.done = true;
      p.finished->notify(sc_core::SC_ZERO_TIME);
    });
    return p;
  }
  // Collectives of rank r run on its links; a PP transfer is booked by the receiving rank.
  const GroupLayout& layout_of(int r, Group g) const {
    const auto& l = layouts_[static_cast<size_t>(r)];
    switch (g) {
      case Group::TP: return l.tp;
      case Group::DP: return l.dp;
      case Group::EP: return l.ep;
      case Group::EDP: return l.edp;
      case Group::CP: return l.cp;
      case Group::ETP: return l.etp;
      default: return l.pp;
    }
  }

  void collective(int r, const Op& op, const std::string& trk) {
    const double t = now();
    algo_->run(p_.fabric(), as_measured(s_.hw, CollectiveCall{op.kind, op.comm_bytes, layout_of(r, op.group), op.routing}));
    record(op.label, trk, t);
  }

  // Runs the ops of a program's list on rank r, as a schedule on engine timelines:
  //   * every op waits for the op before it in the list (the data chain), except that nothing
  //     waits for a weight-gradient GEMM (its result only feeds the DP bucket / optimizer);
  //   * each op occupies its bounding engine; engines that run their own instruction streams
  //     (hw compute.concurrent_engines: NeuronCore, Gaudi MME+TPC) have a timeline each, else all
  //     compute shares one (a GPU's SMs), so overlap comes only from off-chain weight gradients;
  //   * a TP collective starts when its input is ready; unless the workload overlaps TP
  //     communication (parallel.tp_overlap), it also waits for every engine to drain;
  //   * a DP bucket is handed over once every engine has drained (its weight gradients are done);
  //   * with ep_overlap, in a steady-state pair (`pair` 1 opens it, 2 closes it; Slot::pair) an
  //     expert all-to-all starts when its input is ready and holds nothing: the other pass of the
  //     pair has the compute to run beside it; the pair waits for all of them at its end.
  // Time is simulated time; waits are only issued where the schedule needs the SystemC clock.
  // `reduces`: this backward's gradients cross the DP group (see reduces_after).
  void run_ops(int r, int k, const std::vector<OpVertex>& list, bool reduces, int pair = 0) {
    const auto& st = s_.plan.stages[static_cast<size_t>(k)];
    auto& times = result_.stages[static_cast<size_t>(r)];
    auto& ps = prog_[static_cast<size_t>(k)];
    auto& rs = rank_[static_cast<size_t>(r)];
    const bool buckets = reduces && &list == &st.backward && s_.workload.overlap_dp;
    const bool concurrent = s_.hw.concurrent_engines;
    const double share = concurrent ? 0.0 : s_.hw.collective_compute_share();
    // What compute that needed `busy` seconds on every SM adds when a collective holds `share` of them.
    auto slowdown = [share](double busy) { return busy * share / (1.0 - share); };
    size_t bucket = 0;
    std::array<double, 6> engine_free;
    engine_free.fill(now());
    double chain = now();  // when the latest on-chain result is ready
    auto lane = [&](Engine e) { return concurrent ? static_cast<size_t>(e) : size_t{0}; };
    auto all_idle = [&] { return std::max(chain, *std::max_element(engine_free.begin(), engine_free.end())); };
    auto wait_until = [&](double t) {
      if (t > now()) sc_core::wait(sim_time(t - now()));
    };
    // ZeRO-3 parameter gathers (DP all-gathers inside the list) run on the rank's DP stream, issued
    // when the chain reaches them (one piece ahead); a piece's ops wait for the latest gather of
    // their layer. Waiting for one counts as exposed DP communication.
    std::map<int, std::shared_ptr<bool>> gathered;
    auto exposed = [&](Group g) -> double& { return times.*comm_kind(g).exposed; };
    // The chain waits for a collective running beside compute; the wait is exposed communication.
    auto await = [&](const Pending& p, Group g) {
      wait_until(chain);
      const double t = now();
      while (!*p.done) sc_core::wait(*p.finished);
      exposed(g) += now() - t;
      chain = std::max(chain, now());
    };
    // A collective running beside the next compute ops (op.overlap_ops): started when the chain
    // reaches it, waited for after them.
    struct Beside {
      Pending pending;
      int left = 0;
      Group group = Group::None;
    } beside;
    // Compute that ran on the SMs between t0 and t1 beside a collective the chain waited for (TP
    // overlap) had only the SMs it left: the busy part of [t0, t1] takes 1 / (1 - share) as long.
    // Returns whether the compute timeline moved.
    Part last_part = Part::Glue;  // the part of the latest compute op (what slow_beside slows)
    auto slow_beside = [&](double t0, double t1) {
      double& free = engine_free[0];
      const double busy = std::min(free, t1) - t0;
      if (share <= 0 || busy <= 0) return false;
      const double extra = slowdown(busy);
      free += extra;
      times.comm_slowdown_s += extra;
      times.compute_s += extra;
      times.part_s[static_cast<size_t>(last_part)] += extra;
      times.engine_s[static_cast<size_t>(Engine::Tensor)] += extra;
      return true;
    };
    double previous_start = now();  // start of the latest compute op (overlap_previous)
    auto& ep_pending = ep_pending_[static_cast<size_t>(r)];
    const bool ep_async = pair != 0 && s_.workload.ep_overlap;
    // Whether one of them still runs; the finished ones are dropped (done only ever turns true), so
    // a long pair's GEMMs do not rescan every all-to-all it has started.
    auto ep_busy = [&] {
      ep_pending.erase(std::remove_if(ep_pending.begin(), ep_pending.end(), [](const Pending& e) { return *e.done; }),
                       ep_pending.end());
      return !ep_pending.empty();
    };
    for (size_t i = 0; i < list.size(); ++i) {
      const Op& op = st.graph[list[i]];
      const CommPlacement where = op.is_collective() ? placement(op, s_.workload.tp_overlap, ep_async) : CommPlacement::Serial;
      if (op.is_collective() && where == CommPlacement::Paired) {
        wait_until(chain);
        ep_pending.push_back(launch(r, op));
        continue;
      }
      if (op.is_collective() && where == CommPlacement::BesideNext) {
        wait_until(chain);
        beside = {launch(r, op), op.overlap_ops, op.group};
        continue;
      }
      if (op.is_collective() && where == CommPlacement::WithPrevious) {
        wait_until(previous_start);
        const double t = now();
        await(launch(r, op), op.group);
        if (slow_beside(t, now())) chain = std::max(chain, engine_free[0]);  // the op it ran beside is on the chain
        continue;
      }
      if (op.is_collective() && where == CommPlacement::DpStream) {
        if (&list == &st.first_forward && i == 0 && ps.early_gather) {  // issued at the step's start
          gathered[op.layer] = ps.early_gather;
          continue;
        }
        wait_until(chain);
        auto done = std::make_shared<bool>(false);
        gathered[op.layer] = done;
        rs.dp_pending.push_back({k, list[i], done});
        rs.dp_kick.notify(sc_core::SC_ZERO_TIME);
        continue;
      }
      if (!gathered.empty()) {
        auto g = gathered.find(op.layer);
        if (g != gathered.end() && !*g->second) {
          wait_until(chain);
          const double t = now();
          while (!*g->second) sc_core::wait(rs.dp_drained);
          times.dp_exposed_s += now() - t;
          chain = std::max(chain, now());
        }
      }
      if (op.is_collective()) {
        const bool overlap = where == CommPlacement::OnChain;
        wait_until(overlap ? chain : all_idle());
        const double t = now();
        collective(r, op, track(r, comm_kind(op.group).track));
        exposed(op.group) += now() - t;
        if (overlap) slow_beside(t, now());  // the weight-gradient GEMMs running beside it
        chain = now();
      } else {
        double d = ps.duration[list[i]];
        double& free = engine_free[lane(op.engine)];
        const double start = std::max(free, chain);
        // A GEMM that starts while a collective runs beside it (a DP bucket or gather, or a
        // collective overlapped with the next ops) has the compute units that collective leaves.
        if (share > 0 && op.engine == Engine::Tensor) {
          if (beside.left == 0 && (dp_busy(rs) || !ep_pending.empty())) wait_until(start);  // comm still running when it starts?
          if (beside.left > 0 || dp_busy(rs) || ep_busy()) {
            const double extra = slowdown(d);
            d += extra;
            times.comm_slowdown_s += extra;
          }
        }
        previous_start = start;
        free = start + d;
        if (!op.weight_grad) chain = free;
        if (opt_.trace) result_.trace.push_back({op.label, track(r, to_string(op.engine)), start * 1e6, d * 1e6});
        if (op.phase == Phase::Recompute) times.recompute_s += d;
        else times.compute_s += d;
        times.engine_s[static_cast<size_t>(op.engine)] += d;
        times.part_s[static_cast<size_t>(op.part)] += d;
        last_part = op.part;
        add_busy(times, ps.busy[list[i]]);
        if (beside.left > 0 && --beside.left == 0) await(beside.pending, beside.group);
      }
      // DP buckets whose gradients are now complete.
      if (buckets)
        while (bucket < st.dp_buckets.size() && st.dp_buckets[bucket].ready_after <= i) {
          if (st.dp_buckets[bucket].ready_after == i) {
            wait_until(all_idle());
            rs.dp_pending.push_back({k, st.dp_buckets[bucket].op, nullptr});
            rs.dp_kick.notify(sc_core::SC_ZERO_TIME);
          }
          ++bucket;
        }
    }
    if (pair != 1 && !ep_pending.empty()) {  // the pair's all-to-alls end before the next slot
      wait_until(all_idle());
      const double t = now();
      for (const auto& e : ep_pending)
        while (!*e.done) sc_core::wait(*e.finished);
      times.ep_comm_s += now() - t;
      ep_pending.clear();
    }
    wait_until(all_idle());
  }

  static void add_busy(StageTimes& t, const std::array<double, kQueues>& b) {
    for (size_t q = 0; q < b.size(); ++q) t.queue_busy_s[q] += b[q];
  }

  static sc_core::sc_time sim_time(double s) { return sc_core::sc_time(s * 1e12, sc_core::SC_PS); }

  // Rank r waits until program k has finished `count` forwards (or backwards).
  void wait_for(int r, int k, bool forward, int count) {
    auto& other = prog_[static_cast<size_t>(k)];
    const double t = now();
    while ((forward ? other.fwd_done : other.bwd_done) < count) sc_core::wait(other.progressed);
    result_.stages[static_cast<size_t>(r)].bubble_s += now() - t;
  }

  // The transfer into program k (booked on its rank r's links): the activation or gradient, and
  // with pipeline scatter/gather its all-gather inside the TP group.
  void transfer(int r, int k, const std::string& name) {
    Op op;
    op.kind = OpKind::SendRecv;
    op.engine = Engine::Collective;
    op.group = Group::PP;
    op.comm_bytes = s_.plan.stages[static_cast<size_t>(k)].p2p_bytes;
    op.label = name;
    collective(r, op, track(r, "pp"));
    const Bytes gather = s_.plan.stages[static_cast<size_t>(k)].p2p_gather_bytes;
    if (gather > Bytes(0)) {  // pipeline scatter/gather: rebuild the full tensor inside the TP group
      op.kind = OpKind::AllGather;
      op.group = Group::TP;
      op.comm_bytes = gather;
      op.label = name + ".gather";
      collective(r, op, track(r, "pp"));
    }
  }

  // pp_overlap: Megatron-Core overlaps the steady state's sends and receives; in warm-up and
  // flush they stay blocking (overlap_p2p_comm_warmup_flush off by default; the Megatron-Bridge
  // guide, frameworks.md 3 d). Which passes receive overlapped: the rank schedule's paired slots.
  void mark_async_receives() {
    const int p = static_cast<int>(s_.plan.ranks), v = static_cast<int>(s_.plan.virtual_stages), m = static_cast<int>(m_);
    for (auto& ps : prog_)
      for (auto* a : {&ps.fwd_async, &ps.bwd_async, &ps.fwd_arrived, &ps.bwd_arrived}) a->assign(static_cast<size_t>(m), 0);
    for (int r = 0; r < p; ++r)
      for (const Slot& slot : rank_schedule(s_.workload.schedule, p, r, m, v)) {
        auto& ps = prog_[static_cast<size_t>(slot.chunk * p + r)];
        (slot.forward ? ps.fwd_async : ps.bwd_async)[static_cast<size_t>(slot.mb)] = slot.pair != 0;
      }
  }
  // False for every pass without pp_overlap (the tables are empty).
  bool receives_async(int k, bool forward, int mb) const {
    const auto& ps = prog_[static_cast<size_t>(k)];
    const auto& a = forward ? ps.fwd_async : ps.bwd_async;
    return static_cast<size_t>(mb) < a.size() && a[static_cast<size_t>(mb)];
  }

  // A blocking transfer: the receiving rank r waits it out once the sender is done.
  void p2p(int r, int k, const std::string& name) {
    const double t = now();
    transfer(r, k, name);
    result_.stages[static_cast<size_t>(r)].pp_comm_s += now() - t;
  }

  // pp_overlap: program `to`'s input starts across the link as soon as its producer's pass ends,
  // in its own thread, while the sender goes on computing (Megatron-Core's overlap_p2p_comm posts
  // isend / irecv and waits for them only before the pass that needs the data).
  void send_async(int to, bool forward, int mb, const std::string& name) {
    const int rr = to % static_cast<int>(s_.plan.ranks);
    p_.threads().run([this, rr, to, forward, mb, name] {
      transfer(rr, to, name);
      auto& dst = prog_[static_cast<size_t>(to)];
      (forward ? dst.fwd_arrived : dst.bwd_arrived)[static_cast<size_t>(mb)] = 1;
      dst.arrived.notify(sc_core::SC_ZERO_TIME);
    });
  }
  // Rank r waits for micro-batch mb's input of program k to arrive; the wait is exposed PP communication.
  void wait_arrival(int r, int k, bool forward, int mb) {
    auto& ps = prog_[static_cast<size_t>(k)];
    const auto& in = forward ? ps.fwd_arrived : ps.bwd_arrived;
    const double t = now();
    while (!in[static_cast<size_t>(mb)]) sc_core::wait(ps.arrived);
    result_.stages[static_cast<size_t>(r)].pp_comm_s += now() - t;
  }

  void rank_thread(int r) {
    auto& rs = rank_[static_cast<size_t>(r)];
    auto& times = result_.stages[static_cast<size_t>(r)];
    const int p = static_cast<int>(s_.plan.ranks), v = static_cast<int>(s_.plan.virtual_stages);
    const int programs = p * v;
    const int m = static_cast<int>(m_);
    // Lazy-tensor host (hw host.trace_s): the host traces each forward / backward graph in
    // order, starting at once and running ahead of the device (asynchronous execution); a
    // graph cannot start on the device before it is traced.
    double traced = now();
    // The optimizer step dispatches each chunk's first overlapped parameter gather (Megatron-Core's
    // start_param_sync): it runs from the step's start, beside the warm-up's waiting.
    for (int c = 0; c < v; ++c) {
      const int k = c * p + r;
      const auto& st = s_.plan.stages[static_cast<size_t>(k)];
      const auto& first = st.first_forward;
      if (first.empty() || st.graph[first.front()].group != Group::DP) continue;
      auto& ps = prog_[static_cast<size_t>(k)];
      ps.early_gather = std::make_shared<bool>(false);
      rs.dp_pending.push_back({k, first.front(), ps.early_gather});
      rs.dp_kick.notify(sc_core::SC_ZERO_TIME);
    }
    for (const Slot& slot : rank_schedule(s_.workload.schedule, p, r, m, v)) {
      const int k = slot.chunk * p + r;  // the program (virtual stage) this slot runs
      const auto& st = s_.plan.stages[static_cast<size_t>(k)];
      auto& ps = prog_[static_cast<size_t>(k)];
      if (s_.hw.host.op_trace_s() > 0) {
        traced += static_cast<double>((slot.forward ? st.forward : st.backward).size()) * s_.hw.host.op_trace_s();
        if (traced > now()) {
          const double t = now();
          sc_core::wait(sim_time(traced - now()));
          times.host_wait_s += now() - t;
        }
      }
      if (slot.forward) {
        if (k > 0) {
          wait_for(r, k - 1, true, slot.mb + 1);
          if (receives_async(k, true, slot.mb)) wait_arrival(r, k, true, slot.mb);
          else p2p(r, k, "recv_activation");
        }
        // The first micro-batch's forward carries the optimizer's overlapped parameter gather.
        run_ops(r, k, slot.mb == 0 && !st.first_forward.empty() ? st.first_forward : st.forward, /*reduces=*/false, slot.pair);
        ++ps.fwd_done;
        if (k < programs - 1 && receives_async(k + 1, true, slot.mb)) send_async(k + 1, true, slot.mb, "recv_activation");
      } else {
        if (k < programs - 1) {
          wait_for(r, k + 1, false, slot.mb + 1);
          if (receives_async(k, false, slot.mb)) wait_arrival(r, k, false, slot.mb);
          else p2p(r, k, "recv_gradient");
        }
        const bool reduces = reduces_after(slot.mb);
        run_ops(r, k, st.backward, reduces, slot.pair);
        // Without overlap every bucket starts once the backward is done; before a further
        // micro-batch the rank waits for them (the last one's wait is the step's end).
        if (reduces && !s_.workload.overlap_dp) {
          for (const auto& b : st.dp_buckets) rs.dp_pending.push_back({k, b.op, nullptr});
          rs.dp_kick.notify(sc_core::SC_ZERO_TIME);
          if (slot.mb != m - 1) times.dp_exposed_s += drain(r);
        }
        ++ps.bwd_done;
        if (k > 0 && receives_async(k - 1, false, slot.mb)) send_async(k - 1, false, slot.mb, "recv_gradient");
      }
      ps.progressed.notify(sc_core::SC_ZERO_TIME);
    }
    rs.dp_closed = true;
    rs.dp_kick.notify(sc_core::SC_ZERO_TIME);
    times.dp_exposed_s += drain(r);
    const double t_opt = now();
    for (int c = 0; c < v; ++c) {
      const int k = c * p + r;
      const auto& st = s_.plan.stages[static_cast<size_t>(k)];
      for (auto vx : st.optimizer) {
        const Op& op = st.graph[vx];
        const double to = now();
        if (op.is_collective()) collective(r, op, track(r, "dp"));
        else {
          sc_core::wait(sim_time(prog_[static_cast<size_t>(k)].duration[vx]));
          times.engine_s[static_cast<size_t>(op.engine)] += now() - to;
          times.part_s[static_cast<size_t>(op.part)] += now() - to;
          add_busy(times, prog_[static_cast<size_t>(k)].busy[vx]);
          record(op.label, track(r, to_string(op.engine)), to);
        }
      }
    }
    times.optimizer_s = now() - t_opt;
    times.finish_s = now();
  }

  // Whether micro-batch i's backward ends with its gradients crossing the DP group: the last
  // one always, every one when the workload reduces per micro-batch.
  bool reduces_after(int i) const { return i == static_cast<int>(m_) - 1 || s_.workload.reduce_every_micro_batch; }

  static bool dp_busy(const RankState& rs) { return !(rs.dp_pending.empty() && rs.dp_idle); }

  // Waits until rank r's DP thread has no bucket queued or in flight; returns the wait (s).
  double drain(int r) {
    auto& rs = rank_[static_cast<size_t>(r)];
    const double t = now();
    while (dp_busy(rs)) sc_core::wait(rs.dp_drained);
    return now() - t;
  }

  void dp_thread(int r) {
    auto& rs = rank_[static_cast<size_t>(r)];
    auto& times = result_.stages[static_cast<size_t>(r)];
    for (;;) {
      while (rs.dp_pending.empty()) {
        if (rs.dp_closed) {
          rs.dp_drained.notify(sc_core::SC_ZERO_TIME);
          return;
        }
        sc_core::wait(rs.dp_kick);
      }
      rs.dp_idle = false;
      const auto [k, v, done] = rs.dp_pending.front();
      rs.dp_pending.pop_front();
      const double t = now();
      collective(r, s_.plan.stages[static_cast<size_t>(k)].graph[v], track(r, "dp"));
      times.dp_comm_s += now() - t;
      if (done) *done = true;
      rs.dp_idle = true;
      rs.dp_drained.notify(sc_core::SC_ZERO_TIME);
    }
  }

  const Scenario& s_;
  StepOptions opt_;
  Platform& p_;
  int64_t m_;
  std::unique_ptr<CollectiveAlgorithm> algo_;
  struct StageLayouts {
    GroupLayout tp, dp, pp, ep, edp, cp, etp;
  };
  std::vector<StageLayouts> layouts_;  // per rank
  std::vector<ProgramState> prog_;
  std::vector<RankState> rank_;
  // Per rank: expert all-to-alls of the current steady-state pair still running (ep_overlap).
  std::vector<std::vector<Pending>> ep_pending_;
  StepResult result_;
  sc_core::sc_time t0_;
};

}  // namespace

int group_stride(Group g, const Workload& w) {
  switch (g) {
    case Group::CP:
    case Group::DP: return static_cast<int>(w.tp);
    case Group::PP: return static_cast<int>(w.tp * w.dp_cp());
    case Group::EP: return static_cast<int>(w.etp);
    case Group::EDP: return static_cast<int>(w.ep * w.etp);
    default: return 1;  // TP, ETP: runs of consecutive ranks
  }
}

namespace {
// One node's step as simulated (one representative rank per stage).
StepResult execute_step_of_a_node(const Scenario& s, const StepOptions& opt) {
  const int64_t m = s.plan.micro_batches;
  const int64_t p = s.plan.ranks;
  // 1F1B / GPipe are periodic once the pipeline is full: every p extra micro-batches add
  // the same time to every stage (the period is p, not 1: with unequal stages a slope
  // over one micro-batch was measured to be off by 2% per node on GPT-NeoX PP4).
  // Beyond `cap` micro-batches, simulate cap - p and cap and extrapolate each stage's
  // times linearly (the DP reduction and optimizer, which happen once, cancel out).
  int64_t cap = opt.extrapolate_after > 0 ? std::max(opt.extrapolate_after, p + 1) : std::max<int64_t>(8, 2 * p + 4);
  // The interleaved schedule runs micro-batches in groups of p: simulate whole groups.
  if (s.plan.virtual_stages > 1) cap = (cap + p - 1) / p * p;
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
                                  &StageTimes::dp_exposed_s, &StageTimes::optimizer_s, &StageTimes::dp_comm_s,
                                  &StageTimes::host_wait_s, &StageTimes::ep_comm_s, &StageTimes::cp_comm_s,
                                  &StageTimes::comm_slowdown_s})
      sb.*f = ext(sa.*f, sb.*f);
    for (size_t e = 0; e < sb.engine_s.size(); ++e) sb.engine_s[e] = ext(sa.engine_s[e], sb.engine_s[e]);
    for (size_t q = 0; q < sb.part_s.size(); ++q) sb.part_s[q] = ext(sa.part_s[q], sb.part_s[q]);
    for (size_t q = 0; q < sb.queue_busy_s.size(); ++q) sb.queue_busy_s[q] = ext(sa.queue_busy_s[q], sb.queue_busy_s[q]);
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
}  // namespace

StepResult execute_step(const Scenario& s, const StepOptions& opt) {
  StepResult r = execute_step_of_a_node(s, opt);
  // Then the wait for the slowest of the job's nodes at the step's end (node_spread.hpp).
  r.slowest_node_s = r.step_time_s * slowest_node_fraction(s.hw, s.workload.nodes);
  r.step_time_s += r.slowest_node_s;
  return r;
}

}  // namespace trnsim
