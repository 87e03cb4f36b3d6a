// stack_profile.hpp — a training stack (Megatron-Core, NeMo, torchtitan, NxD, TorchNeuron, ...)
// as a declared profile, read from stacks/<name>.json.
// Why: what differs between stacks (attention kernel, TP / DP overlap, FSDP flavour, fused
// linears, gradient dtype, execution mode, pipeline split, ...) used to be scattered over
// dataset adapters and hand-written workload files. A profile is a partial workload: its
// `defaults` hold workload fields, the workload names the profile with "stack" and may override
// any of them. Each profile names its sources and the assumptions it declares; the report
// prints the profile and which fields came from it.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace trnsim {

struct StackProfile {
  std::string name, file, description;
  std::vector<std::string> sources;      // where each setting comes from
  std::vector<std::string> assumptions;  // what the sources leave unstated, declared
  nlohmann::json defaults;               // a partial workload: only the fields in stack_settable_fields()
  // The activation-checkpointing policies the stack offers ("none", "selective", "full",
  // "op_selective"; empty: not declared). What `trnsim search --stack` searches; not a workload
  // field: a workload may still ask for another policy as a what-if.
  std::vector<std::string> checkpointing_policies;
};

// JSON paths (as "parallel/zero") a profile may set; every other workload field is the run's own.
const std::vector<std::string>& stack_settable_fields();

// Strict reading: unknown keys, fields a profile may not set, and values the workload reader
// would refuse are one-line errors naming the stack file and the field.
StackProfile load_stack_profile(const std::string& file);
StackProfile stack_profile_from_json(const nlohmann::json& j, const std::string& file);

// Maps a stack name to its file (the app layer knows the data directory).
using StackLookup = std::function<std::string(const std::string& name)>;

// The workload JSON with the profile's defaults beneath it: a field the workload sets wins.
// Defaults that do not apply to the run's degrees are turned off rather than refused
// (sequence parallelism, TP overlap and pipeline scatter-gather need tp > 1; a sharding stage
// needs dp x cp > 1; an FP8 recipe needs precision "fp8"). `taken` receives one
// "path = value" entry per field the profile supplied (in stack_settable_fields() order).
nlohmann::json apply_stack_defaults(const nlohmann::json& workload, const StackProfile& s,
                                    std::vector<std::string>* taken);

}  // namespace trnsim
