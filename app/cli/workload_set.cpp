// workload_set.cpp — see workload_set.hpp.
#include "workload_set.hpp"

#include <fmt/format.h>

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

Scenario load_scenario_with_set(const std::string& file, const std::string& spec, bool allow_oom, const std::string& hw_spec) {
  if (spec.empty() && hw_spec.empty()) return load_scenario(file, allow_oom);
  const std::string path = resolve_workload_path(file);
  nlohmann::json j = load_json_file(path);
  if (!spec.empty()) apply_workload_set(j, spec);
  const std::string name = spec.empty() ? path : fmt::format("{} (with --set {})", path, spec);
  if (hw_spec.empty()) return scenario_from_json(j, name, allow_oom);
  // The hw file edited before it is read: its strict reader checks every edited figure.
  Scenario s = make_scenario(workload_from_json(j, name, stack_lookup()), allow_oom, hw_spec);
  s.notes.push_back(fmt::format("hardware edited with --hw-set \"{}\": a hypothetical {}; the interval and the fitted "
                                "parameters are the unedited family's",
                                hw_spec, s.workload.hw));
  return s;
}

}  // namespace trnsim
