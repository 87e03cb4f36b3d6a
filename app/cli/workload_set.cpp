// workload_set.cpp — see workload_set.hpp.
#include "workload_set.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>
#include <vector>

#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  return out;
}

}  // namespace

void apply_workload_set(nlohmann::json& workload, const std::string& spec, const std::string& option) {
  const char* example = option == "--hw-set" ? "hbm.bandwidth_GBps_per_chip=4000;tensor.clock_GHz=3" : "parallel.tp=4;batch.micro_batch=2";
  for (const std::string& raw : split(spec, ';')) {
    const std::string item = trim(raw);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw UsageError(fmt::format("{} \"{}\": expected path=value, e.g. {}", option, item, example));
    const std::string path = trim(item.substr(0, eq)), text = trim(item.substr(eq + 1));
    const std::vector<std::string> keys = split(path, '.');
    if (path.empty() || path.back() == '.' || text.empty())
      throw UsageError(fmt::format("{} \"{}\": the path and the value must both be given (e.g. nodes=64)", option, item));
    nlohmann::json* at = &workload;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].empty())
        throw UsageError(fmt::format("{} \"{}\": an empty name in the path \"{}\"", option, item, path));
      if (at->is_null()) *at = nlohmann::json::object();  // a section the workload did not have yet
      if (!at->is_object())
        throw UsageError(fmt::format("{} \"{}\": \"{}\" is a value, not a section, in this {}", option, item,
                                     fmt::join(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(k), "."),
                                     option == "--hw-set" ? "hw file" : "workload"));
      at = &(*at)[keys[k]];
    }
    nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    *at = value.is_discarded() ? nlohmann::json(text) : value;
  }
}

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
  const Workload w = workload_from_json(j, name, stack_lookup());
  const std::string hw_file = hw_path(w.hw);
  if (!std::filesystem::exists(hw_file))
    throw ConfigError(config_message(w.file, "/hw", fmt::format("unknown hw \"{}\" (no {}); see `trnsim list`", w.hw, hw_file)));
  nlohmann::json h = load_json_file(hw_file);
  apply_workload_set(h, hw_spec, "--hw-set");
  const HwSpec hw = hw_spec_from_json(h, fmt::format("{} (with --hw-set {})", hw_file, hw_spec));
  const std::string model_file = model_path(w.model);
  if (!std::filesystem::exists(model_file))
    throw ConfigError(config_message(w.file, "/model", fmt::format("unknown model \"{}\" (no {}); see `trnsim list`", w.model, model_file)));
  Scenario s = make_scenario(w, load_model_spec(model_file), hw, allow_oom);
  s.notes.push_back(fmt::format("hardware edited with --hw-set \"{}\": a hypothetical {}; the interval and the fitted "
                                "parameters are the unedited family's",
                                hw_spec, w.hw));
  return s;
}

}  // namespace trnsim
