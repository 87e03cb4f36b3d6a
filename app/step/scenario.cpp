// scenario.cpp — resolution and cross-checks (see scenario.hpp).
#include "scenario.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "json_edits.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {
std::string g_data_dir;

bool has_layout(const std::filesystem::path& p) {
  return std::filesystem::is_directory(p / "hw") && std::filesystem::is_directory(p / "models");
}
}  // namespace

void set_data_dir(const std::string& dir) {
  if (!has_layout(dir))
    throw ConfigError(fmt::format("--data-dir {}: not a data directory (it needs hw/ and models/ folders); point it at "
                                  "the trnsim source tree or an installed share/trnsim", dir));
  g_data_dir = dir;
}

std::string data_dir() {
  if (!g_data_dir.empty()) return g_data_dir;
  if (const char* env = std::getenv("TRNSIM_DATA")) return env;
  if (has_layout(TRNSIM_SOURCE_DIR)) return TRNSIM_SOURCE_DIR;
  return TRNSIM_INSTALL_DATA_DIR;
}

namespace {
std::string data_file(const char* kind, const char* folder, const std::string& name) {
  if (!is_plain_name(name))
    throw ConfigError(fmt::format("{} \"{}\" is not a name; use a file name from `trnsim list` without directory or .json",
                                  kind, name));
  return data_dir() + "/" + folder + "/" + name + ".json";
}
}  // namespace

std::string model_path(const std::string& name) { return data_file("model", "models", name); }
std::string hw_path(const std::string& name) { return data_file("hw", "hw", name); }
std::string stack_path(const std::string& name) {
  if (name.empty() || name[0] == '.' || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") != std::string::npos)
    throw ConfigError(fmt::format("\"{}\" is not a stack name; use a file name from stacks/ without directory or .json "
                                  "(`trnsim list` shows them)", name));
  const std::string path = data_dir() + "/stacks/" + name + ".json";
  if (!std::filesystem::exists(path)) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(data_dir() + "/stacks", ec))
      if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    throw ConfigError(fmt::format("unknown stack \"{}\" (no {}); use one of: {}", name, path, fmt::join(names, ", ")));
  }
  return path;
}
StackLookup stack_lookup() { return [](const std::string& name) { return stack_path(name); }; }

void validate_against_hw(const Workload& w, const HwSpec& hw) {
  auto fail = [&](const std::string& path, const std::string& msg) {
    throw ConfigError(config_message(w.file, path, msg));
  };
  if (w.cores_per_node > hw.cores_per_node())
    fail("/cores_per_node", fmt::format("{} cores per node asked but one {} has {}; lower cores_per_node", w.cores_per_node,
                                        hw.instance, hw.cores_per_node()));
  const int64_t devices = w.nodes * hw.cores_per_node();
  if (w.devices() != devices)
    fail("/parallel", w.cp > 1 ? fmt::format("tp x pp x cp x dp = {} x {} x {} x {} = {} but {} nodes of {} have {} cores; make the product {}",
                                             w.tp, w.pp, w.cp, w.dp, w.devices(), w.nodes, hw.instance, devices, devices)
                               : fmt::format("tp x pp x dp = {} x {} x {} = {} but {} nodes of {} have {} cores; make the product {}",
                                             w.tp, w.pp, w.dp, w.devices(), w.nodes, hw.instance, devices, devices));
  // TP may span nodes (Megatron allows it; its collectives then cross the NICs) in whole nodes.
  if (w.tp > hw.cores_per_node() && w.tp % hw.cores_per_node() != 0)
    fail("/parallel/tp", fmt::format("tp {} spans nodes but is not a multiple of the {} cores of one {} node; use a "
                                     "multiple of {} or at most {}",
                                     w.tp, hw.cores_per_node(), hw.instance, hw.cores_per_node(), hw.cores_per_node()));
  if (w.precision == Precision::BF16_SR && !hw.stochastic_rounding)
    fail("/precision", fmt::format("{} has no hardware stochastic rounding; use \"mixed-bf16\"", hw.instance));
  if (w.tp < hw.cores_per_node() && hw.cores_per_node() % w.tp != 0)
    fail("/parallel/tp", fmt::format("tp {} must divide the {} cores per node", w.tp, hw.cores_per_node()));
  const DType lin = linear_dtype(w.precision);
  if (!hw.tensor.supports(lin)) {
    std::string has;
    for (DType d : kLowPrecisionDTypes)
      if (hw.tensor.supports(d)) has += fmt::format(", \"{}\"", to_string(d));
    fail("/precision", fmt::format("{} ({}) has no {} GEMMs (no tensor.peak_TFLOPS_per_chip.{}); use \"mixed-bf16\"{}",
                                   hw.instance, hw.file, to_string(lin), to_string(lin), has));
  }
}

// What the hardware does differently from what the workload asked (no low-precision speed-up, an
// attention kernel with no published figure on the chip): lines for the report.
std::vector<std::string> hardware_notes(const Workload& w, const HwSpec& hw) {
  std::vector<std::string> notes;
  if (!hw.collectives.measured.empty())
    notes.push_back(fmt::format("collectives that cross nodes follow the measured table {} ({} rows; `trnsim collective "
                                "--compare` shows it beside the model)",
                                hw.collectives.measured.file, hw.collectives.measured.rows.size()));
  const DType lin = linear_dtype(w.precision);
  if (is_low_precision(lin) && hw.tensor.slowdown(lin) >= 1.0)
    notes.push_back(fmt::format("{} runs {} GEMMs at the BF16 rate ({:.0f} vs {:.0f} TFLOPS per chip): no {} speed-up, "
                                "only the smaller operands, at the cost of the quantize ops",
                                hw.instance, to_string(lin), hw.tensor.peak_tflops[static_cast<int>(lin)],
                                hw.tensor.peak_tflops[static_cast<int>(DType::BF16)], to_string(lin)));
  if (w.attention == Attention::Flash && w.attention_kernel != AttentionKernel::Native) {
    const AttentionKernel k = w.attention_kernel;
    notes.push_back(hw.tensor.attention_kernel_declared(k)
                        ? fmt::format("attention kernel {}: {} {:.2f}x the native fused kernel's time on {}{} "
                                      "(tensor.attention_slowdown)",
                                      to_string(k), hw.tensor.fused_attention_tflops > 0 ? "takes" : "its GEMMs take",
                                      hw.tensor.attention_slowdown_of(k), hw.instance,
                                      hw.tensor.fused_attention_tflops > 0
                                          ? fmt::format(" ({:.0f} TFLOPS published, tensor.fused_attention)", hw.tensor.fused_attention_tflops)
                                          : "")
                        : fmt::format("attention kernel {}: {} ({}) publishes no figure for it (no tensor.attention_slowdown.{}); "
                                      "timed as the chip's native fused kernel, so attention may be predicted too fast",
                                      to_string(k), hw.instance, hw.file, to_string(k)));
  }
  return notes;
}

// Logical NeuronCores: the workload's `lnc` regroups the chip's physical cores (hw default if unset).
void use_lnc(const Workload& w, HwSpec& hw) {
  if (w.lnc == 0 || w.lnc == hw.lnc) return;
  const int physical = hw.cores_per_chip * hw.lnc;
  if (hw.lnc_allowed.empty())
    throw ConfigError(config_message(w.file, "/lnc",
                                     fmt::format("{} ({}) has no logical-core configuration (each of its {} cores per chip is a "
                                                 "rank); remove \"lnc\"",
                                                 hw.instance, hw.file, physical)));
  if (std::find(hw.lnc_allowed.begin(), hw.lnc_allowed.end(), w.lnc) == hw.lnc_allowed.end()) {
    std::string allowed;
    for (int k : hw.lnc_allowed) allowed += (allowed.empty() ? "" : " or ") + std::to_string(k);
    throw ConfigError(config_message(
        w.file, "/lnc",
        fmt::format("{} {} {} physical cores per chip of {}; use {}", w.lnc,
                    physical % w.lnc != 0 ? "does not divide the" : "is not a supported grouping of the", physical,
                    hw.instance, allowed)));
  }
  hw.set_lnc(static_cast<int>(w.lnc));
}

// The workload's execution mode (eager / lazy / compiled) replaces the hw file's default; a mode
// needs its per-op host cost in the file (compiled has none).
void use_execution(const Workload& w, HwSpec& hw) {
  if (w.execution.empty()) return;
  const Execution e = parse_execution(w.execution);
  if (e == Execution::Eager && hw.host.dispatch_s == 0)
    throw ConfigError(config_message(w.file, "/execution",
                                     fmt::format("{} ({}) gives no eager per-op cost (host.dispatch_us); use \"{}\"",
                                                 hw.instance, hw.file, to_string(hw.host.execution))));
  if (e == Execution::Lazy && hw.host.trace_s == 0)
    throw ConfigError(config_message(w.file, "/execution",
                                     fmt::format("{} ({}) has no lazy-tensor (torch-xla) stack (no host.trace_us); use "
                                                 "\"{}\"",
                                                 hw.instance, hw.file, to_string(hw.host.execution))));
  hw.host.execution = e;
}

// A workload using fewer cores than a node has runs on a node of that many cores: exact on a
// switch or all-to-all node (every core sees the same fabric), refused elsewhere.
void use_partial_nodes(const Workload& w, HwSpec& hw) {
  if (w.cores_per_node == 0 || w.cores_per_node == hw.cores_per_node()) return;
  if (w.cores_per_node > hw.cores_per_node()) return;  // validate_against_hw reports it
  const bool uniform = hw.intra.topology == Topology::Switch || hw.intra.topology == Topology::AllToAll;
  if (!uniform || hw.cores_per_chip != 1)
    throw ConfigError(config_message(w.file, "/cores_per_node",
                                     fmt::format("partial nodes need a switch or all-to-all node of one core per chip; {} "
                                                 "is a {} of {}-core chips; remove cores_per_node",
                                                 hw.instance, to_string(hw.intra.topology), hw.cores_per_chip)));
  // The node's NICs belong to its GPUs (one NIC per GPU or GPU pair on DGX / p5 / p5en nodes:
  // GPUDirect RDMA sends through the NIC on the GPU's own PCIe switch), so the partial node has its
  // cores' share of the NIC rate.
  hw.inter.nic_bandwidth = hw.inter.nic_bandwidth * (static_cast<double>(w.cores_per_node) / hw.cores_per_node());
  hw.chips_per_node = static_cast<int>(w.cores_per_node);
  hw.intra.dim_x = hw.chips_per_node;
  hw.intra.dim_y = 1;
}

HwSpec load_hw_with_edits(const std::string& name, const std::vector<JsonEdits>& edits) {
  const std::string file = hw_path(name);
  nlohmann::json j = load_json_file(file);
  apply_json_edits(j, edits);
  return hw_spec_from_json(j, file + edits_suffix(edits));
}

HwSpec load_hw_with_edits(const std::string& name, const std::string& spec) {
  return load_hw_with_edits(name, std::vector<JsonEdits>{{"--hw-set", spec}});
}

namespace {
// The workload's hw file, with the edits applied when there are any; an unknown hw names the workload.
HwSpec workload_hw(const Workload& w, const std::vector<JsonEdits>& edits) {
  const std::string hw_file = hw_path(w.hw);
  if (!std::filesystem::exists(hw_file))
    throw ConfigError(config_message(w.file, "/hw", fmt::format("unknown hw \"{}\" (no {}); see `trnsim list`", w.hw,
                                                                hw_file)));
  return any_edits(edits) ? load_hw_with_edits(w.hw, edits) : load_hw_spec(hw_file);
}
}  // namespace

Scenario make_scenario(const Workload& w, bool allow_oom, const std::vector<JsonEdits>& hw_edits) {
  const std::string path = model_path(w.model);
  if (!std::filesystem::exists(path))
    throw ConfigError(config_message(w.file, "/model", fmt::format("unknown model \"{}\" (no {}); see `trnsim list`",
                                                                   w.model, path)));
  const ModelSpec model = load_model_spec(path);
  return make_scenario(w, model, workload_hw(w, hw_edits), allow_oom);
}

Scenario make_scenario(const Workload& w, bool allow_oom, const std::string& hw_set) {
  return make_scenario(w, allow_oom, std::vector<JsonEdits>{{"--hw-set", hw_set}});
}

Scenario make_scenario(const Workload& w, const ModelSpec& model, bool allow_oom, const std::string& hw_set) {
  return make_scenario(w, model, workload_hw(w, {{"--hw-set", hw_set}}), allow_oom);
}

Scenario make_scenario(const Workload& w, const ModelSpec& model, const HwSpec& hw, bool allow_oom) {
  Scenario s;
  s.workload = w;
  s.workload.fp8_any_layout = hw.tensor.fp8_any_layout;
  s.model = model;
  s.hw = hw;
  use_lnc(w, s.hw);
  use_execution(w, s.hw);
  use_partial_nodes(w, s.hw);
  validate_against_hw(w, s.hw);
  s.notes = hardware_notes(w, s.hw);
  s.plan = build_step_plan(s.model, s.workload);
  s.memory = memory_per_stage(s.model, s.workload, s.plan);
  const auto& peak = peak_stage(s.memory);
  if (peak.total() > s.hw.hbm_per_core()) {
    s.fits = false;
    s.memory_error = config_message(w.file, "", "does not fit in HBM: " + memory_advice(peak, w, s.hw.hbm_per_core()));
    if (!allow_oom) throw ConfigError(s.memory_error);
  }
  return s;
}

void validate_file(const std::string& file) { validate_json(load_json_file(file), file); }

void validate_json(const nlohmann::json& j, const std::string& file) {
  if (j.contains("instance")) hw_spec_from_json(j, file);
  else if (j.contains("layers")) model_spec_from_json(j, file);
  else if (j.contains("defaults") && j.contains("sources")) stack_profile_from_json(j, file);
  else make_scenario(workload_from_json(j, file, stack_lookup()));
}

Scenario scenario_from_json(const nlohmann::json& j, const std::string& file, bool allow_oom) {
  return make_scenario(workload_from_json(j, file, stack_lookup()), allow_oom);
}

// A relative workload path that does not exist from the working directory is looked up in
// the data directory too, so `trnsim run workloads/x.json` works from anywhere.
std::string resolve_workload_path(const std::string& file) {
  std::error_code ec;
  const std::filesystem::path p(file);
  if (p.is_absolute() || std::filesystem::exists(p, ec)) return file;
  const auto in_data = std::filesystem::path(data_dir()) / p;
  return std::filesystem::exists(in_data, ec) ? in_data.string() : file;
}

Scenario load_scenario(const std::string& workload_file, bool allow_oom) {
  return make_scenario(load_workload(resolve_workload_path(workload_file), stack_lookup()), allow_oom);
}

}  // namespace trnsim
