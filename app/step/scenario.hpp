// scenario.hpp — a workload file resolved into everything a run needs (workload, model,
// hardware, step plan, memory), with every cross-file check done before simulating:
// devices = tp x pp x dp, tp within a node, divisibility, memory fits in HBM.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw_spec.hpp"
#include "json_edits.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "step_graph.hpp"
#include "workload.hpp"

namespace trnsim {

struct Scenario {
  Workload workload;
  ModelSpec model;
  HwSpec hw;
  StepPlan plan;
  std::vector<MemoryBreakdown> memory;
  bool fits = true;
  std::string memory_error;  // set when !fits
  std::vector<std::string> notes;  // facts the user should know about this run (e.g. no FP8 speed-up)
};

// Directory holding hw/, models/, workloads/ (flag > TRNSIM_DATA > source tree > install).
std::string data_dir();
void set_data_dir(const std::string& dir);
std::string model_path(const std::string& name);
std::string hw_path(const std::string& name);
// stacks/<name>.json in the data directory; an unknown name is a ConfigError listing the known ones.
std::string stack_path(const std::string& name);
StackLookup stack_lookup();
// A relative path that does not exist from the working directory is looked up in the data
// directory too (workloads/x.json, studies/x.json work from anywhere).
std::string resolve_workload_path(const std::string& file);

// hw/<name>.json with `spec` (--hw-set, json_edits.hpp) applied before it is read: a hypothetical
// chip or cluster, checked as strictly as the file; errors name the file and the edits.
HwSpec load_hw_with_edits(const std::string& name, const std::string& spec);
// The same with several options' edits in order (`run --hw-set A --vs-hw B`'s variant).
HwSpec load_hw_with_edits(const std::string& name, const std::vector<JsonEdits>& edits);

void validate_against_hw(const Workload& w, const HwSpec& hw);
// The workload's execution mode (eager / lazy / compiled) on the hardware's host model; throws
// ConfigError if the hw file gives no cost for it.
void use_execution(const Workload& w, HwSpec& hw);
// Throws ConfigError on any problem; with allow_oom, a config that does not fit is
// returned with fits = false instead (sweeps count those).
Scenario load_scenario(const std::string& workload_file, bool allow_oom = false);
// `hw_set` (non-empty): the workload's hw file read with those what-if edits (load_hw_with_edits).
Scenario make_scenario(const Workload& w, bool allow_oom = false, const std::string& hw_set = "");
// The same with the hw file's edits from several options, in order.
Scenario make_scenario(const Workload& w, bool allow_oom, const std::vector<JsonEdits>& hw_edits);
// The same with a model given in memory (the validation corpus builds shapes per row).
Scenario make_scenario(const Workload& w, const ModelSpec& model, bool allow_oom = false, const std::string& hw_set = "");
// The same with the hardware already loaded (the search prices millions of layouts of a few
// instances: the file is read once, not per layout).
Scenario make_scenario(const Workload& w, const ModelSpec& model, const HwSpec& hw, bool allow_oom = false);
// Strict check of any config file: hw (has "instance"), model (has "layers") or workload.
void validate_file(const std::string& file);
// The same checks on parsed JSON (hw, model or workload, told apart by their keys); `file`
// names the source in messages. Used by the Python module for dicts.
void validate_json(const nlohmann::json& j, const std::string& file);
// A workload given as parsed JSON (e.g. a Python dict); `file` names it in messages.
Scenario scenario_from_json(const nlohmann::json& j, const std::string& file, bool allow_oom = false);

}  // namespace trnsim
