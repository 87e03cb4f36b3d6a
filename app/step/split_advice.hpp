// split_advice.hpp — a pipeline split that evens out the stages, simulated. An even split of
// the layers leaves the first stage with the embedding and the last with the LM head and the loss
// (a large vocabulary's head can weigh more than a layer); the others wait for the busiest stage.
// From the run's per-stage busy times (report.cpp add_stages) this proposes layers per stage that
// give each stage the same work, simulates that split, and reports it when it is faster and fits:
// what Megatron-Core's account_for_embedding / loss_in_pipeline_split and torchtitan's manual
// splits do by hand. Only for plain pipelines (no virtual stages, no explicit pipeline_layout).
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "scenario.hpp"
#include "step_executor.hpp"
#include "step_report.hpp"

namespace trnsim {

// Layers per stage that equalise the stages' busy time, from the run's busy time per layer on the
// middle stages and what the first and last stages do besides their layers (in layers' worth);
// candidates in order of preference (both ends moved; only the last stage's end moved). Empty
// when the pipeline has fewer than 3 stages, virtual stages or a fixed layout, or the split is
// already as even as whole layers allow.
std::vector<std::vector<int64_t>> balanced_splits(const Scenario& s, const StepResult& r);

// Simulates the candidates and sets the report's split advice (the run's build_report)
// for the fastest that fits in memory and beats the run by more than 0.5 %: layers per stage, step
// time, change against the run, busiest / mean busy stage, memory per core and the --set string
// that runs it. Adds nothing when no candidate does.
void add_split_advice(StepReport& report, const Scenario& s, const StepResult& r);

}  // namespace trnsim
