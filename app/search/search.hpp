// search.hpp — `trnsim search`: the exact top-K layouts by throughput and by cost to
// train, and the Pareto front of time vs cost, over the whole space of layout_space.hpp,
// simulating only the layouts that could enter them.
//
// Every layout gets exact memory and a lower bound on its step time (step_bound.hpp) without
// being simulated: both come from its plan shape (model, hardware, TP, PP, virtual stages,
// micro-batch, recompute, SP, TP overlap, fusion, attention), computed once per shape on every
// core (plan_shapes.hpp) and shared by every DP degree, ZeRO stage, DP-overlap setting and node
// count. Step simulations run on the calling thread (SystemC has one kernel per process). Branch-and-bound then runs
// four passes (by time bound, by cost bound, by Pareto dominance, by time bound within each
// cluster of hardware x node count); a layout is simulated only if its bound could still beat the
// current K-th best, enter the front or beat its cluster's fastest. The state only improves,
// so a layout skipped once can never enter the final result: the answer equals exhaustive
// simulation (`--exhaustive` checks it), ties broken by layout name.
#pragma once
#include <nlohmann/json.hpp>

#include "layout_space.hpp"

namespace trnsim {

struct SearchOptions {
  SpaceSpec space;
  size_t top_k = 20;
  double train_tokens = 1e12;
  bool exhaustive = false;  // simulate every layout that fits (for exactness checks)
  bool progress = false;
  int threads = 1;  // plan shapes are built on this many threads (step simulations run on one: SystemC)
  bool keep_workloads = false;  // each simulated row carries "workload": its workload file's JSON (compare re-runs it)
  // --hw-set: what-if edits applied to every --hw file before it is read (a hypothetical chip or
  // cluster; json_edits.hpp); empty: the files as they are.
  std::string hw_set;
};

// The result document: top_by_throughput, top_by_cost (rows with breakdowns), pareto (rows),
// best_by_cluster (the fastest row of each hardware x node count that has a fitting layout, by
// hardware as listed then nodes; beyond the fewest nodes of a hardware, scaling_vs_fewest_nodes
// {nodes, efficiency}: its throughput per node against theirs, the global batch fixed),
// clusters_without_a_fitting_layout ({hw, nodes}),
// counts {enumerated, rejected{reason: n}, fits, bounded_out, simulated, bound_violations},
// stats {wall_s, cpu_s, layouts_per_cpu_s, shapes}.
nlohmann::json run_search(const SearchOptions& o);
std::string search_markdown(const nlohmann::json& doc);
// "1 node" / "4 nodes", for the scaling lines.
std::string nodes_text(int64_t nodes);

}  // namespace trnsim
