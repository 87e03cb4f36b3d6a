// scaling.hpp — the weak-scaling efficiency `trnsim run` reports: the run's per-core throughput
// against the same model replica (TP, PP, CP, expert grid, micro-batch and gradient accumulation
// per replica) with data parallelism shrunk to the fewest whole nodes that hold it. What is lost is
// what the larger cluster adds: data-parallel collectives over more ranks and across more of the
// network, expert all-to-all spanning more nodes; what is gained is optimizer state sharded over
// more ranks (ZeRO / FSDP), so the figure may exceed 100 %.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "scenario.hpp"
#include "step_executor.hpp"
#include "step_report.hpp"

namespace trnsim {

// The baseline workload: data parallelism d, the smallest divisor of the run's DP whose replicas
// fill whole nodes and hold the expert grid (ep x etp dividing tp x cp x d); the global batch is
// d replicas' share. nullopt with `why` set when there is none smaller than the run itself.
std::optional<Workload> one_node_baseline(const Workload& w, int64_t cores_per_node, std::string& why);

// Simulates the baseline and sets the report's scaling (the run's build_report): efficiency, the
// baseline's DP, nodes, step time and per-core throughput, whether it fits in memory; or the
// reason there is none.
void add_scaling(StepReport& report, const Scenario& s);

}  // namespace trnsim
