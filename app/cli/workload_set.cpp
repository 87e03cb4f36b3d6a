// workload_set.cpp — see workload_set.hpp.
#include "workload_set.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "json_edits.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
const char* const kWorkloadSetHelp =
    "what-if edits of the workload, e.g. \"parallel.tp=4;parallel.dp=1024;precision=fp8\" (dotted JSON paths; values as "
    "JSON, else strings; the result is checked like a file)";

const char* const kHwSetHelp =
    "what-if edits of the workload's hw file, e.g. \"hbm.bandwidth_GBps_per_chip=4000;inter_node.nic_Gbps_per_node=3200\" "
    "(a hypothetical chip or cluster; dotted JSON paths as --set; the edited file is checked like a file)";

Scenario load_scenario_with_edits(const std::string& file, const std::vector<JsonEdits>& workload_edits,
                                  const std::vector<JsonEdits>& hw_edits, bool allow_oom) {
  if (!any_edits(workload_edits) && !any_edits(hw_edits)) return load_scenario(file, allow_oom);
  const std::string path = resolve_workload_path(file);
  nlohmann::json j = load_json_file(path);
  apply_json_edits(j, workload_edits);
  const std::string name = path + edits_suffix(workload_edits);
  if (!any_edits(hw_edits)) return scenario_from_json(j, name, allow_oom);
  // The hw file edited before it is read: its strict reader checks every edited figure.
  Scenario s = make_scenario(workload_from_json(j, name, stack_lookup()), allow_oom, hw_edits);
  std::vector<std::string> given;
  for (const JsonEdits& e : hw_edits)
    if (!e.spec.empty()) given.push_back(fmt::format("{} \"{}\"", e.option, e.spec));
  s.notes.push_back(fmt::format("hardware edited with {}: a hypothetical {}; the interval and the fitted parameters are "
                                "the unedited family's",
                                fmt::join(given, " and "), s.workload.hw));
  return s;
}

Scenario load_scenario_with_set(const std::string& file, const std::string& spec, bool allow_oom, const std::string& hw_spec) {
  return load_scenario_with_edits(file, {{"--set", spec}}, {{"--hw-set", hw_spec}}, allow_oom);
}

}  // namespace trnsim
