// workload_set.hpp — `trnsim run W --set "parallel.tp=4;batch.micro_batch=2"`: what-if edits of a
// workload without writing a file. Each `path=value` sets one field of the workload's JSON (a dotted
// path; objects on the way are created), the value read as JSON where it parses (4, true, "x",
// [1, 2]) and as a string otherwise (bf16, full); the edited workload is then read as strictly as a
// file, so an unknown field or an inconsistent layout is the reader's one-line error.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "json_edits.hpp"
#include "scenario.hpp"

namespace trnsim {

// Applies `spec` ("a.b=v;c=w") to a workload's JSON (json_edits.hpp; errors name `option`).
inline void apply_workload_set(nlohmann::json& workload, const std::string& spec, const std::string& option = "--set") {
  apply_json_edits(workload, spec, option);
}

// The scenario of a workload file (found as `trnsim run` finds it), with `spec` applied first when
// it is not empty; errors name the file and the edits. run, graph and campaign read workloads so.
// `hw_spec` (run's --hw-set) edits the workload's hw file the same way before it is read: a
// hypothetical chip or cluster (faster HBM, more NIC bandwidth); the report notes the edit.
Scenario load_scenario_with_set(const std::string& file, const std::string& spec, bool allow_oom,
                                const std::string& hw_spec = "");

// The same with several options' edits, in order: the workload's (`--set`, then `run --vs`) and its
// hw file's (`--hw-set`, then `run --vs-hw`). Errors and the report's note name every option given.
Scenario load_scenario_with_edits(const std::string& file, const std::vector<JsonEdits>& workload_edits,
                                  const std::vector<JsonEdits>& hw_edits, bool allow_oom);

// The --set option's help text, one for every command that takes it.
extern const char* const kWorkloadSetHelp;
extern const char* const kHwSetHelp;

}  // namespace trnsim
