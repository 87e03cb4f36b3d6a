// search.cpp — see search.hpp.
#include "search.hpp"
#include "versus.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "memory_model.hpp"
#include "platform.hpp"
#include "report.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"
#include "plan_shapes.hpp"
#include "node_spread.hpp"
#include "step_bound.hpp"
#include "step_graph.hpp"
#include "trnsim/error.hpp"

namespace trnsim {
namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// tp_overlap's backward overlap is an executor setting, not part of the plan: one shape serves
// both. The forward overlap a stack may add (tp_overlap_forward) marks the plan's collectives, so
// it is part of the key.
// ep_overlap changes no op of the plan either, but the bound's work (step_work) and the memory
// (a second micro-batch in flight): part of the key.
using ShapeKey = std::tuple<int, int, int, int, int, int, bool, bool, bool, int, int, int, int, bool, bool>;
ShapeKey shape_key(const Layout& l, const SpaceSpec& space) {
  return {l.hw, l.tp, l.pp, l.vs, l.mb, l.ckpt, l.sp, l.fused, l.flash, l.prec, l.ep, l.cp, l.etp,
          l.tp_overlap && space.stack_template.tp_overlap_forward, l.ep_overlap};
}

struct Candidate {
  uint32_t layout;
  double bound_s;
};

struct Metrics {  // the row's ranking quantities, from a step time (bound or simulated)
  double tokens_per_s, days, cost;
};

Metrics metrics(double step_s, double tokens_per_step, double train_tokens, double cluster_usd_per_h) {
  const double tps = tokens_per_step / step_s;
  const double days = train_tokens / tps / 86400.0;
  return {tps, days, days * 24 * cluster_usd_per_h};
}

}  // namespace

nlohmann::json run_search(const SearchOptions& o) {
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  const ModelSpec model = load_model_spec(model_path(o.space.model));
  std::vector<HwSpec> hws;
  for (const auto& h : o.space.hws) {
    hws.push_back(o.hw_set.empty() ? load_hw_spec(hw_path(h)) : load_hw_with_edits(h, o.hw_set));
    use_execution(o.space.stack_template, hws.back());  // a stack's execution mode, for bounds and runs alike
  }
  const std::vector<Layout> layouts = enumerate_space(o.space, model, hws);
  if (o.progress && !layouts.empty()) std::cerr << fmt::format("trnsim search: {} layouts enumerated\n", layouts.size());
  const double tokens_per_step = static_cast<double>(o.space.global_batch * o.space.seq_len);

  // 1. Plan shapes and every layout's memory (on every core), then each fitting layout's bound,
  //    without simulating a step.
  std::map<ShapeKey, size_t> shape_of;  // -> index into jobs / shapes
  std::vector<ShapeJob> jobs;
  std::vector<std::vector<uint32_t>> members;  // per shape: its layouts
  for (uint32_t i = 0; i < layouts.size(); ++i) {
    const Layout& l = layouts[i];
    auto [it, added] = shape_of.emplace(shape_key(l, o.space), jobs.size());
    if (added) {
      Workload serial = layout_workload(l, o.space, hws[l.hw]);
      serial.tp_overlap = false;  // an executor setting: one shape serves both (tp_overlap_forward stays)
      jobs.push_back({std::move(serial), l.hw});
      members.emplace_back();
    }
    members[it->second].push_back(i);
  }
  shape_of.clear();
  // Which layouts fit in HBM, checked as soon as their shape's plan exists; a shape none of whose
  // layouts fits is not timed. (Each layout belongs to one shape: threads write distinct bytes.)
  std::vector<uint8_t> in_hbm(layouts.size(), 0);
  auto any_fits = [&](size_t job, const PlanShape& sh) {
    bool any = false;
    for (uint32_t i : members[job]) {
      const Layout& l = layouts[i];
      const Workload w = layout_workload(l, o.space, hws[l.hw]);
      const auto mem = memory_per_stage(model, w, sh.memory, w.grad_accum());
      in_hbm[i] = peak_stage(mem).total() <= hws[l.hw].hbm_per_core();
      any = any || in_hbm[i];
    }
    return any;
  };
  const double shape0 = cpu_seconds();
  std::vector<PlanShape> shapes = build_plan_shapes(jobs, model, hws, any_fits, o.threads, o.progress);
  const double shape_cpu = cpu_seconds() - shape0;
  jobs.clear();
  std::map<std::string, int64_t> rejected;
  std::vector<Candidate> fits;
  double simulate_cpu = 0;
  int configured_hw = -1;
  // Idle-link collective times (memoised by the process), one look-up table per hardware.
  std::vector<std::unique_ptr<WorkTimes>> times_of(hws.size());
  auto work_times = [&](size_t h) -> WorkTimes& {
    if (!times_of[h]) times_of[h] = std::make_unique<WorkTimes>(hws[h], true);
    return *times_of[h];
  };
  std::vector<double> dp_s, tail_s;  // per rank: the layout's DP-stream busy time, and what follows its backward
  for (size_t k = 0; k < shapes.size(); ++k) {
    PlanShape& sh = shapes[k];
    if (!sh.ok) {
      rejected[sh.reason] += static_cast<int64_t>(members[k].size());
      continue;
    }
    for (uint32_t i : members[k]) {
      if (!in_hbm[i]) {
        ++rejected["does not fit in HBM"];
        continue;
      }
      const Layout& l = layouts[i];
      const HwSpec& hw = hws[l.hw];
      const Workload w = layout_workload(l, o.space, hw);
      // Optimizer work and the DP stream depend on the DP degree and ZeRO stage: the same ops
      // build_step_plan makes.
      auto& opt = sh.optimizer[{w.dp, w.zero}];
      auto& dp = sh.dp_stream[{w.dp, w.zero}];
      if (opt.empty()) {
        if (configured_hw != l.hw) Platform::instance().configure(hw);  // (formatting its fingerprint is not free)
        configured_hw = l.hw;
        WorkTimes& times = work_times(l.hw);
        opt.assign(static_cast<size_t>(sh.ranks), 0.0);
        dp.assign(static_cast<size_t>(sh.ranks), DpStreamWork{});
        for (size_t p = 0; p < sh.parameters.size(); ++p) {
          auto& rank_opt = opt[p % opt.size()];
          for (const Op& op : optimizer_compute_ops(sh.parameters[p], w, sh.expert_parameters[p]))
            rank_opt += std::max(Platform::instance().timer().time(op).seconds, hw.host.op_dispatch_s());
          const DpStreamWork d = dp_stream_work(sh.pieces[p], sh.parameters[p], w, times);
          dp[p % dp.size()] += d;
          rank_opt += d.optimizer_s;
        }
      }
      dp_s.resize(dp.size());
      tail_s.resize(dp.size());
      for (size_t r = 0; r < dp.size(); ++r) dp_s[r] = dp[r].step_s(w, w.grad_accum()), tail_s[r] = dp[r].tail_s(w, w.grad_accum());
      fits.push_back({i, step_bound_from_work(sh.F, l.tp_overlap ? sh.B_overlap : sh.B_serial, opt, sh.ranks, sh.vstages,
                                              w.grad_accum(), sh.ops_per_micro_batch, dp_s, tail_s) *
                             (1 + slowest_node_fraction(hw, w.nodes))});
    }
    sh.optimizer.clear();
    sh.dp_stream.clear();
    sh.pieces.clear();
  }
  // Layouts in enumeration order, as before: the passes below sort by bound, ties by this order.
  std::sort(fits.begin(), fits.end(), [](const Candidate& a, const Candidate& b) { return a.layout < b.layout; });

  // 2. Branch-and-bound (or everything, with --exhaustive).
  std::unordered_map<uint32_t, nlohmann::json> simulated;  // layout -> row
  size_t violations = 0;
  nlohmann::json violation_examples = nlohmann::json::array();
  double worst_ratio = 0;
  auto cluster_h = [&](const Layout& l) { return hws[l.hw].price.on_demand_per_hour * l.nodes; };
  auto name_of = [&](uint32_t i) { return layout_name(layouts[i], o.space); };
  auto simulate = [&](const Candidate& c) -> const nlohmann::json& {
    auto it = simulated.find(c.layout);
    if (it != simulated.end()) return it->second;
    const Layout& l = layouts[c.layout];
    const double c0 = cpu_seconds();
    const Scenario s = make_scenario(layout_workload(l, o.space, hws[l.hw]), model, hws[l.hw], true);
    const StepResult r = execute_step(s);
    simulate_cpu += cpu_seconds() - c0;
    configured_hw = -1;  // execute_step configured the platform with the scenario's own (now gone) copy
    nlohmann::json report = make_report(s, r);
    nlohmann::json row = row_from_report(report, o.train_tokens);
    row["vs"] = l.vs;
    if (l.balanced) row["pipeline_split"] = "balanced";
    row["sp"] = l.sp;
    row["tp_overlap"] = l.tp_overlap;
    row["dp_overlap"] = l.overlap_dp;
    row["attention"] = l.flash ? "flash" : "unfused";
    if (s.workload.attention_kernel != AttentionKernel::Native) row["attention_kernel"] = to_string(s.workload.attention_kernel);
    row["precision"] = to_string(precision_of_layout(l, hws[l.hw]));
    row["ep"] = l.ep;
    row["ep_overlap"] = l.ep_overlap;
    row["etp"] = l.etp;
    row["cp"] = l.cp;
    row["bound_s"] = c.bound_s;
    row["breakdown_s"] = report["step"]["breakdown_s"];
    // With a pipeline: how unevenly its stages are loaded (busiest / mean busy; trnsim run details it).
    if (report["step"].contains("stage_balance")) row["stage_imbalance"] = report["step"]["stage_balance"]["imbalance"];
    if (o.keep_workloads) row["workload"] = nlohmann::json::parse(workload_to_json(s.workload));
    if (c.bound_s > r.step_time_s && ++violations <= 5)
      violation_examples.push_back({{"id", row["id"]}, {"bound_s", c.bound_s}, {"step_time_s", r.step_time_s}});
    worst_ratio = std::max(worst_ratio, c.bound_s / r.step_time_s);
    return simulated.emplace(c.layout, std::move(row)).first->second;
  };
  auto better_time = [&](uint32_t a, uint32_t b) {  // strict order: throughput, then name
    const double ta = simulated.at(a)["tokens_per_s"].get<double>(), tb = simulated.at(b)["tokens_per_s"].get<double>();
    return ta != tb ? ta > tb : name_of(a) < name_of(b);
  };
  auto better_cost = [&](uint32_t a, uint32_t b) {
    const double ca = simulated.at(a)["usd_to_train_on_demand"].get<double>(), cb = simulated.at(b)["usd_to_train_on_demand"].get<double>();
    return ca != cb ? ca < cb : name_of(a) < name_of(b);
  };
  auto insert_top = [&](std::vector<uint32_t>& top, uint32_t i, auto better) {
    top.insert(std::upper_bound(top.begin(), top.end(), i, better), i);
    if (top.size() > o.top_k) top.pop_back();
  };
  std::vector<uint32_t> top_time, top_cost;
  std::map<std::string, size_t> by_pass;  // layouts first simulated by each pass
  std::vector<std::pair<double, double>> front;  // (days, cost) of simulated non-dominated rows
  auto dominated = [&](double days, double cost) {
    for (const auto& [d, c] : front)
      if (d <= days && c <= cost && (d < days || c < cost)) return true;
    return false;
  };
  auto add_front = [&](double days, double cost) {
    if (dominated(days, cost)) return;
    front.erase(std::remove_if(front.begin(), front.end(),
                               [&](const auto& q) { return days <= q.first && cost <= q.second && (days < q.first || cost < q.second); }),
                front.end());
    front.emplace_back(days, cost);
  };
  // The fastest layout of each (hardware, node count): on one cluster the fastest is also the
  // cheapest to train, so this answers "which layout on which instance" for every cluster asked.
  std::map<std::pair<int, int>, uint32_t> best_of_cluster;
  auto cluster_of = [&](uint32_t i) { return std::make_pair(static_cast<int>(layouts[i].hw), static_cast<int>(layouts[i].nodes)); };
  auto account = [&](const Candidate& c) {
    const nlohmann::json& row = simulate(c);
    insert_top(top_time, c.layout, better_time);
    insert_top(top_cost, c.layout, better_cost);
    add_front(row["days_to_train"].get<double>(), row["usd_to_train_on_demand"].get<double>());
    auto [it, fresh] = best_of_cluster.emplace(cluster_of(c.layout), c.layout);
    if (!fresh && better_time(c.layout, it->second)) it->second = c.layout;
  };
  auto bound_metrics = [&](const Candidate& c) {
    return metrics(c.bound_s, tokens_per_step, o.train_tokens, cluster_h(layouts[c.layout]));
  };
  if (o.exhaustive) {
    for (const auto& c : fits) account(c);
  } else {
    std::vector<Candidate> order = fits;
    size_t before = 0;  // simulated when the pass began
    auto mark = [&](const char* pass) {
      by_pass[pass] = simulated.size() - before;
      before = simulated.size();
    };
    // Pass 1: by time bound. A layout whose best possible throughput is below the K-th best found cannot enter.
    std::sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) { return a.bound_s < b.bound_s; });
    for (const auto& c : order) {
      if (top_time.size() == o.top_k &&
          bound_metrics(c).tokens_per_s < simulated.at(top_time.back())["tokens_per_s"].get<double>())
        break;  // sorted: every later layout is bounded out too
      account(c);
    }
    mark("throughput");
    // Pass 2: by cost bound.
    std::sort(order.begin(), order.end(), [&](const Candidate& a, const Candidate& b) {
      return bound_metrics(a).cost < bound_metrics(b).cost;
    });
    for (const auto& c : order) {
      if (top_cost.size() == o.top_k &&
          bound_metrics(c).cost > simulated.at(top_cost.back())["usd_to_train_on_demand"].get<double>())
        break;
      if (!simulated.count(c.layout)) account(c);  // simulated ones are already in every list
    }
    mark("cost");
    // Pass 3: Pareto front of (days, cost), by days bound; skip what a simulated layout dominates.
    std::sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) { return a.bound_s < b.bound_s; });
    for (const auto& c : order) {
      const Metrics b = bound_metrics(c);
      if (simulated.count(c.layout) || dominated(b.days, b.cost)) continue;
      account(c);
    }
    mark("pareto");
    // Pass 4: the fastest layout of each cluster, by time bound; skip a layout whose bound is below
    // its cluster's best simulated throughput (the best only improves, so it cannot win later).
    for (const auto& c : order) {
      if (simulated.count(c.layout)) continue;
      const auto best = best_of_cluster.find(cluster_of(c.layout));
      if (best != best_of_cluster.end() &&
          bound_metrics(c).tokens_per_s < simulated.at(best->second)["tokens_per_s"].get<double>())
        continue;
      account(c);
    }
    mark("cluster");
  }

  // 3. The result.
  auto rows_of = [&](const std::vector<uint32_t>& ids) {
    nlohmann::json a = nlohmann::json::array();
    for (uint32_t i : ids) a.push_back(simulated.at(i));
    return a;
  };
  std::vector<uint32_t> pareto;
  for (const auto& [i, row] : simulated) {
    const double d = row["days_to_train"].get<double>(), c = row["usd_to_train_on_demand"].get<double>();
    if (!dominated(d, c)) pareto.push_back(i);
  }
  std::sort(pareto.begin(), pareto.end(), better_time);
  nlohmann::json doc;
  doc["space"] = {{"model", o.space.model}, {"hw", o.space.hws}, {"nodes", o.space.nodes}, {"seq_len", o.space.seq_len},
                  {"global_batch", o.space.global_batch}, {"axes", o.space.axes}, {"top_k", o.top_k},
                  {"train_tokens", o.train_tokens}, {"mode", o.exhaustive ? "exhaustive" : "branch-and-bound"}};
  if (!o.space.stack.empty()) {
    doc["space"]["stack"] = {{"name", o.space.stack}, {"fixed_axes", o.space.stack_axes}};
    // The recompute policies searched: --axes's if it names recompute, else the stack's (if it lists them).
    if (!o.space.axes.count("recompute") && !o.space.stack_recompute.empty()) {
      std::vector<std::string> names;
      for (int ck : o.space.stack_recompute) names.push_back(to_string(static_cast<Checkpointing>(ck)));
      doc["space"]["stack"]["recompute_policies"] = names;
    }
  }
  if (o.space.lora_rank > 0) doc["space"]["lora_rank"] = o.space.lora_rank;
  if (!o.hw_set.empty()) doc["space"]["hw_set"] = o.hw_set;
  if (o.space.document_tokens > 0) doc["space"]["document_tokens"] = o.space.document_tokens;
  doc["top_by_throughput"] = rows_of(top_time);
  doc["top_by_cost"] = rows_of(top_cost);
  doc["pareto"] = rows_of(pareto);
  std::vector<uint32_t> cluster_best;
  for (const auto& [cluster, i] : best_of_cluster) cluster_best.push_back(i);  // by hardware (as given), then nodes
  doc["best_by_cluster"] = rows_of(cluster_best);
  // Strong scaling over node counts (the global batch is fixed): each cluster's fastest layout's
  // throughput per node against that of the fewest nodes of the same hardware.
  for (auto& r : doc["best_by_cluster"]) {
    const nlohmann::json* base = nullptr;
    for (const auto& b : doc["best_by_cluster"])
      if (b["hw"] == r["hw"] && (!base || b["nodes"].get<int64_t>() < (*base)["nodes"].get<int64_t>())) base = &b;
    if (base == &r) continue;
    const auto per_node = [](const nlohmann::json& x) { return x["tokens_per_s"].get<double>() / x["nodes"].get<double>(); };
    r["scaling_vs_fewest_nodes"] = {{"nodes", (*base)["nodes"]}, {"efficiency", per_node(r) / per_node(*base)}};
  }
  // Clusters asked for where no layout fits, with how many layouts each had before the memory check
  // (counted only for them: usually there is none, and the space can hold millions of layouts).
  std::vector<std::pair<int, int>> unfit_order;  // hardware as listed, nodes as given
  std::map<std::pair<int, int>, int64_t> unfit_tried;
  for (size_t h = 0; h < o.space.hws.size(); ++h)
    for (int64_t n : o.space.nodes) {
      const std::pair<int, int> key{static_cast<int>(h), static_cast<int>(n)};
      if (!best_of_cluster.count(key) && unfit_tried.emplace(key, 0).second) unfit_order.push_back(key);
    }
  if (!unfit_tried.empty())
    for (uint32_t i = 0; i < layouts.size(); ++i) {
      const auto it = unfit_tried.find(cluster_of(i));
      if (it != unfit_tried.end()) ++it->second;
    }
  nlohmann::json unfit = nlohmann::json::array();
  for (const auto& key : unfit_order)
    unfit.push_back({{"hw", o.space.hws[static_cast<size_t>(key.first)]}, {"nodes", key.second}, {"enumerated", unfit_tried[key]}});
  doc["clusters_without_a_fitting_layout"] = unfit;
  const size_t fit = fits.size();
  if (o.progress && !layouts.empty())
    std::cerr << fmt::format("trnsim search: {} layouts fit, {} simulated, the rest bounded out\n", fit, simulated.size());
  doc["counts"] = {{"enumerated", layouts.size()}, {"rejected", rejected}, {"fits", fit},
                   {"simulated", simulated.size()}, {"bounded_out", fit - simulated.size()},
                   {"bound_violations", violations}, {"plan_shapes", shapes.size()},
                   {"simulated_by_pass", by_pass}, {"bound_violation_examples", violation_examples}};
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = cpu_seconds() - cpu0;
  doc["stats"] = {{"wall_s", wall}, {"cpu_s", cpu}, {"layouts_per_cpu_s", static_cast<double>(layouts.size()) / std::max(cpu, 1e-9)},
                  {"largest_bound_to_step_ratio", worst_ratio}, {"shape_cpu_s", shape_cpu}, {"simulate_cpu_s", simulate_cpu}, {"threads", o.threads},
                  {"op_shapes_simulated", Platform::instance().timer().simulated()}};
  return doc;
}

std::string nodes_text(int64_t nodes) { return nodes == 1 ? "1 node" : fmt::format("{} nodes", nodes); }

std::string search_markdown(const nlohmann::json& doc) {
  const auto& c = doc["counts"];
  std::string o = fmt::format("# trnsim search: {} on {}\n\n", doc["space"]["model"].get<std::string>(), doc["space"]["hw"].dump());
  if (doc["space"].contains("stack"))
    o += fmt::format("Stack profile: {} (stacks/{}.json); axes it fixes: {}{}.\n\n", doc["space"]["stack"]["name"].get<std::string>(),
                     doc["space"]["stack"]["name"].get<std::string>(), doc["space"]["stack"]["fixed_axes"].dump(),
                     doc["space"]["stack"].contains("recompute_policies")
                         ? fmt::format("; recompute policies it has, searched: {}", doc["space"]["stack"]["recompute_policies"].dump())
                         : "");
  if (doc["space"].contains("lora_rank"))
    o += fmt::format("LoRA fine-tuning: rank-{} adapters on every linear layer, the base frozen.\n\n",
                     doc["space"]["lora_rank"].get<int64_t>());
  if (doc["space"].contains("hw_set"))
    o += fmt::format("Hypothetical hardware: every --hw file edited with --hw-set \"{}\" (intervals are the unedited "
                     "family's).\n\n", doc["space"]["hw_set"].get<std::string>());
  if (doc["space"].contains("document_tokens"))
    o += fmt::format("Packed documents of {} tokens: attention runs within each.\n\n", doc["space"]["document_tokens"].get<int64_t>());
  o += fmt::format("{} layouts enumerated, {} rejected, {} fit, {} simulated, {} bounded out (never simulated: "
                   "their lower bound could not enter the top {} or the Pareto front); {:.1f} CPU-s, {:.0f} layouts per CPU-s.\n\n",
                   c["enumerated"].get<size_t>(), c["enumerated"].get<size_t>() - c["fits"].get<size_t>(), c["fits"].get<size_t>(),
                   c["simulated"].get<size_t>(), c["bounded_out"].get<size_t>(), doc["space"]["top_k"].get<size_t>(),
                   doc["stats"]["cpu_s"].get<double>(), doc["stats"]["layouts_per_cpu_s"].get<double>());
  if (!c["rejected"].empty()) {
    std::vector<std::string> why;
    for (auto it = c["rejected"].begin(); it != c["rejected"].end(); ++it) why.push_back(fmt::format("{} {}", it.key(), it.value().get<int64_t>()));
    o += fmt::format("Rejected layouts: {}.\n", fmt::join(why, ", "));
  }
  // `trnsim search` adds each row's 90% interval (cmd_search.cpp) when validation results exist.
  const bool with_interval = !doc["top_by_throughput"].empty() && doc["top_by_throughput"][0].contains("interval");
  auto table = [&](const char* title, const nlohmann::json& rows) {
    o += fmt::format("\n## {}\n\n| # | layout | step (s) | tokens/s{} | MFU | GiB/core | days | cost (M$, on-demand) |\n|---|---|---|---|---|---|---|---|\n",
                     title, with_interval ? " (90% interval)" : "");
    int k = 0;
    for (const auto& r : rows)
      o += fmt::format("| {} | {} | {:.4f} | {:.0f}{} | {:.1f}% | {:.1f} | {:.2f} | {:.3f} |\n", ++k, r["id"].get<std::string>(),
                       r["step_time_s"].get<double>(), r["tokens_per_s"].get<double>(),
                       r.contains("interval") ? fmt::format(" ({:.0f}–{:.0f})", r["interval"]["tokens_per_s"][0].get<double>(),
                                                            r["interval"]["tokens_per_s"][1].get<double>())
                                              : "",
                       100 * r["mfu"].get<double>(),
                       r["memory_per_core_gib"].get<double>(), r["days_to_train"].get<double>(),
                       r["usd_to_train_on_demand"].get<double>() / 1e6);
  };
  table("Top by throughput", doc["top_by_throughput"]);
  if (doc.contains("top_order")) o += "\n" + top_order_sentence(doc["top_order"]);  // added by `trnsim search` (ranking.hpp)
  table("Top by cost to train", doc["top_by_cost"]);
  table("Pareto front (days vs cost to train)", doc["pareto"]);
  if (doc.contains("best_by_cluster") && doc["best_by_cluster"].size() + doc["clusters_without_a_fitting_layout"].size() > 1) {
    table("Fastest per hardware and node count (on its cluster also the cheapest to train)", doc["best_by_cluster"]);
    std::vector<std::string> scaling;
    for (const auto& r : doc["best_by_cluster"])
      if (r.contains("scaling_vs_fewest_nodes"))
        scaling.push_back(fmt::format("{} x {} {:.1f} % of the per-node throughput on {}", r["nodes"].get<int64_t>(),
                                      r["hw"].get<std::string>(), 100 * r["scaling_vs_fewest_nodes"]["efficiency"].get<double>(),
                                      nodes_text(r["scaling_vs_fewest_nodes"]["nodes"].get<int64_t>())));
    if (!scaling.empty())
      o += fmt::format("\nScaling of the fastest layouts (global batch fixed): {}.\n", fmt::join(scaling, "; "));
    for (const auto& u : doc["clusters_without_a_fitting_layout"])
      o += u["enumerated"].get<int64_t>() > 0
               ? fmt::format("\nNo layout fits on {} node(s) of {} ({} tried; see the rejected counts).\n", u["nodes"].get<int64_t>(),
                             u["hw"].get<std::string>(), u["enumerated"].get<int64_t>())
               : fmt::format("\nNo layout of the space on {} node(s) of {}: the divisibility checks and --axes leave none.\n",
                             u["nodes"].get<int64_t>(), u["hw"].get<std::string>());
  }
  return o;
}

}  // namespace trnsim
