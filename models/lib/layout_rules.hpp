// layout_rules.hpp — which parallel layouts a model admits, with the reason when it does not.
// Why: one home for these rules. The step checks a whole workload against its model here
// (step_graph.cpp); the workload reader checks the expert grid here; the search's and the sweep's
// enumerators and the dataset adapters ask about a TP degree here before they build a workload.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "model_spec.hpp"
#include "workload.hpp"

namespace trnsim {

// "" when the model admits tensor parallelism `tp` (its heads, KV heads, FFN and Mamba-2 heads and
// groups split evenly), else the reason.
std::string tp_problem(const ModelSpec& m, int64_t tp);
// The expert grid (ETP x EP x expert DP) re-arranges one stage's TP x CP x DP ranks: the field
// ("ep" or "etp") and the reason when it cannot.
std::optional<std::pair<std::string, std::string>> expert_grid_problem(const Degrees& d);
// Every rule between the model and the workload's layout (degrees, pipeline split, SP, CP, MoE,
// LoRA, sequence length); throws ConfigError naming the workload file and the field.
void check_layout(const ModelSpec& m, const Workload& w);

}  // namespace trnsim
