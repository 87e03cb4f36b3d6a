// scenario.cpp — resolution and cross-checks (see scenario.hpp).
#include "scenario.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {
std::string g_data_dir;

bool has_layout(const std::filesystem::path& p) {
  return std::filesystem::is_directory(p / "hw") && std::filesystem::is_directory(p / "models");
}
}  // namespace

void set_data_dir(const std::string& dir) { g_data_dir = dir; }

std::string data_dir() {
  if (!g_data_dir.empty()) return g_data_dir;
  if (const char* env = std::getenv("TRNSIM_DATA")) return env;
  if (has_layout(TRNSIM_SOURCE_DIR)) return TRNSIM_SOURCE_DIR;
  return TRNSIM_INSTALL_DATA_DIR;
}

std::string model_path(const std::string& name) { return data_dir() + "/models/" + name + ".json"; }
std::string hw_path(const std::string& name) { return data_dir() + "/hw/" + name + ".json"; }

void validate_against_hw(const Workload& w, const HwSpec& hw) {
  auto fail = [&](const std::string& path, const std::string& msg) {
    throw ConfigError(config_message(w.file, path, msg));
  };
  const int64_t devices = w.nodes * hw.cores_per_node();
  if (w.devices() != devices)
    fail("/parallel", fmt::format("tp x pp x dp = {} x {} x {} = {} but {} nodes of {} have {} cores; make the product {}",
                                  w.tp, w.pp, w.dp, w.devices(), w.nodes, hw.instance, devices, devices));
  if (w.tp > hw.cores_per_node())
    fail("/parallel/tp", fmt::format("tp {} exceeds the {} cores of one {} node; tensor parallelism stays inside a node",
                                     w.tp, hw.cores_per_node(), hw.instance));
  if (w.precision == Precision::BF16_SR && !hw.stochastic_rounding)
    fail("/precision", fmt::format("{} has no hardware stochastic rounding; use \"mixed-bf16\"", hw.instance));
  if (hw.cores_per_node() % w.tp != 0)
    fail("/parallel/tp", fmt::format("tp {} must divide the {} cores per node", w.tp, hw.cores_per_node()));
}

Scenario make_scenario(const Workload& w, bool allow_oom) {
  Scenario s;
  s.workload = w;
  auto resolve = [&](const std::string& kind, const std::string& name, const std::string& path) {
    if (!std::filesystem::exists(path))
      throw ConfigError(config_message(w.file, "/" + kind, fmt::format("unknown {} \"{}\" (no {}); see `trnsim list`",
                                                                        kind, name, path)));
  };
  resolve("model", w.model, model_path(w.model));
  resolve("hw", w.hw, hw_path(w.hw));
  s.model = load_model_spec(model_path(w.model));
  s.hw = load_hw_spec(hw_path(w.hw));
  validate_against_hw(w, s.hw);
  s.plan = build_step_plan(s.model, w);
  s.memory = memory_per_stage(s.model, w, s.plan);
  const auto& peak = peak_stage(s.memory);
  if (peak.total() > s.hw.hbm_per_core()) {
    s.fits = false;
    s.memory_error = config_message(w.file, "", "does not fit in HBM: " + memory_advice(peak, w, s.hw.hbm_per_core()));
    if (!allow_oom) throw ConfigError(s.memory_error);
  }
  return s;
}

void validate_file(const std::string& file) {
  auto j = load_json_file(file);
  if (j.contains("instance")) load_hw_spec(file);
  else if (j.contains("layers")) load_model_spec(file);
  else load_scenario(file);
}

Scenario load_scenario(const std::string& workload_file, bool allow_oom) {
  return make_scenario(load_workload(workload_file), allow_oom);
}

}  // namespace trnsim
