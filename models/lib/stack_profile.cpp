// stack_profile.cpp — reading stacks/*.json and laying a profile under a workload (see
// stack_profile.hpp).
#include "stack_profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "trnsim/json_reader.hpp"
#include "workload.hpp"
#include "workload_fields.hpp"

namespace trnsim {

const std::vector<std::string>& stack_settable_fields() {
  static const std::vector<std::string> fields = [] {
    std::vector<std::string> out;
    for (const auto& f : workload_fields())
      if (f.stack_settable) out.push_back(f.path);
    return out;
  }();
  return fields;
}

namespace {

nlohmann::json::json_pointer pointer(const std::string& path) { return nlohmann::json::json_pointer("/" + path); }

// Every leaf of `j` as a "a/b" path (objects only; arrays are leaves).
void leaves(const nlohmann::json& j, const std::string& prefix, std::vector<std::string>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string p = prefix.empty() ? it.key() : prefix + "/" + it.key();
    if (it->is_object() && !it->empty()) leaves(*it, p, out);
    else out.push_back(p);
  }
}

// A complete workload around the defaults, so the workload reader checks their types and values
// (tp, pp, dp, ep 2: every conditional default applies; fp8 so an fp8_recipe is legal; op_selective so
// what it saves is legal).
nlohmann::json skeleton_with(const nlohmann::json& defaults) {
  nlohmann::json w = {{"name", "stack-check"},
                      {"model", "m"},
                      {"hw", "h"},
                      {"nodes", 1},
                      {"parallel", {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"ep", 2}, {"sequence_parallel", false}, {"zero", 0}}},
                      {"batch", {{"micro_batch", 1}, {"global_batch", 8}, {"seq_len", 1024}}},
                      {"precision", "fp8"},
                      {"checkpointing", "op_selective"},
                      {"fused", {{"qkv", true}, {"gate_up", true}}}};
  // fp8_param_gather needs a distributed optimizer: the profile's own ZeRO stage, else ZeRO-1.
  const auto g = defaults.find("fp8_param_gather");  // (its type is the workload reader's to check)
  if (g != defaults.end() && g->is_boolean() && g->get<bool>()) w["parallel"]["zero"] = 1;
  w.merge_patch(defaults);
  return w;
}

int64_t int_at(const nlohmann::json& w, const char* key, int64_t fallback) {
  const auto p = w.find("parallel");
  if (p == w.end() || !p->is_object()) return fallback;
  const auto v = p->find(key);
  return v != p->end() && v->is_number_integer() ? v->get<int64_t>() : fallback;
}

}  // namespace

StackProfile load_stack_profile(const std::string& file) { return stack_profile_from_json(load_json_file(file), file); }

StackProfile stack_profile_from_json(const nlohmann::json& j, const std::string& file) {
  JsonReader r(j, file);
  r.ignore("$schema");
  StackProfile s;
  s.file = file;
  s.name = r.string("name");
  s.description = r.string("description");
  s.sources = r.strings("sources");  // each names where a setting comes from
  if (r.has("assumptions")) s.assumptions = r.strings("assumptions");
  if (r.has("checkpointing_policies")) {
    std::vector<std::string> known;  // the workload's checkpointing values
    for (auto c : {Checkpointing::None, Checkpointing::Selective, Checkpointing::Full, Checkpointing::OpSelective})
      known.push_back(to_string(c));
    s.checkpointing_policies = r.strings("checkpointing_policies");
    std::set<std::string> seen;
    for (const std::string& p : s.checkpointing_policies) {
      if (std::find(known.begin(), known.end(), p) == known.end())
        r.fail("checkpointing_policies", fmt::format("unknown policy \"{}\"; use {}", p, fmt::join(known, ", ")));
      if (!seen.insert(p).second)
        r.fail("checkpointing_policies", fmt::format("\"{}\" is listed twice; list each policy once", p));
    }
  }
  if (!j.contains("defaults") || !j.at("defaults").is_object())
    r.fail("defaults", "an object of workload fields the stack sets (e.g. {\"attention\": \"flash\"})");
  s.defaults = j.at("defaults");
  r.ignore("defaults");
  r.finish();
  std::vector<std::string> set;
  leaves(s.defaults, "", set);
  const auto& allowed = stack_settable_fields();
  for (const auto& p : set)
    if (std::find(allowed.begin(), allowed.end(), p) == allowed.end())
      throw ConfigError(fmt::format("{}: /defaults/{}: unknown field for a stack profile (a profile cannot set the run's own "
                                    "fields); remove it. A profile may set: {}",
                                    file, p, fmt::join(allowed, ", ")));
  // Values: the workload reader's own checks, naming this file.
  (void)workload_from_json(skeleton_with(s.defaults), file + " /defaults");
  const std::string own = s.defaults.value("checkpointing", std::string());
  if (!own.empty() && !s.checkpointing_policies.empty() &&
      std::find(s.checkpointing_policies.begin(), s.checkpointing_policies.end(), own) == s.checkpointing_policies.end())
    throw ConfigError(fmt::format("{}: /checkpointing_policies: the profile's own checkpointing \"{}\" is not among them ({}); "
                                  "add it or change the default",
                                  file, own, fmt::join(s.checkpointing_policies, ", ")));
  return s;
}

nlohmann::json apply_stack_defaults(const nlohmann::json& workload, const StackProfile& s, std::vector<std::string>* taken) {
  nlohmann::json out = workload;
  const int64_t tp = int_at(workload, "tp", 1), dp = int_at(workload, "dp", 1), cp = int_at(workload, "cp", 1);
  // A missing or unknown precision is the workload reader's to report; the defaults read it as mixed BF16.
  const Precision precision = (workload.contains("precision") && workload.at("precision").is_string()
                                   ? precision_named(workload.at("precision").get<std::string>())
                                   : std::nullopt)
                                  .value_or(Precision::MixedBF16);
  const bool fp8 = precision == Precision::FP8;
  if (!out.is_object()) return out;  // the workload reader reports it
  for (const auto& path : stack_settable_fields()) {
    const auto ptr = pointer(path);
    // A parent the workload gives as something other than an object ("fused": "yes") is left for
    // the workload reader to report; the profile does not write through it.
    const auto slash = path.find('/');
    if (slash != std::string::npos && out.contains(path.substr(0, slash)) && !out.at(path.substr(0, slash)).is_object())
      continue;
    if (!s.defaults.contains(ptr) || out.contains(ptr)) continue;
    nlohmann::json v = s.defaults.at(ptr);
    // Defaults that need degrees the run does not have are switched off, not refused.
    if ((path == "parallel/sequence_parallel" || path == "parallel/tp_overlap" || path == "parallel/tp_overlap_forward" ||
         path == "parallel/pp_scatter_gather") &&
        tp == 1)
      v = false;
    if (path == "parallel/zero" && dp * cp == 1) v = 0;
    // Expert all-to-all overlap needs expert parallelism and 1F1B's forward / backward pairs.
    if (path == "parallel/ep_overlap" &&
        !ep_overlap_applies(int_at(out, "ep", 1), out.contains("parallel") && out["parallel"].value("schedule", "") == "gpipe"
                                                      ? Schedule::GPipe
                                                      : Schedule::OneF1B))
      v = false;
    // ZeRO-2 partitions gradients and reduces them every micro-batch: a per-step default skips it.
    if (path == "parallel/grad_reduce" && v == "per_step" && out.contains("parallel") && out["parallel"].contains("zero") &&
        out["parallel"]["zero"] == 2)
      continue;
    if (path == "fp8_recipe" && !fp8) continue;
    // Master remainders, for a run that keeps an FP32 master beside BF16 parameters: the rule of
    // Workload::fp32_master (master_weights if given, else the precision's default).
    if (path == "master_remainders" &&
        !(out.contains("master_weights") && out["master_weights"].is_boolean() ? out["master_weights"].get<bool>()
                                                                                 : has_fp32_master(precision)))
      continue;
    // fp8_param_gather for a run it applies to: FP8 / MXFP8 under the (profile's) ZeRO-1 / 2.
    if (path == "fp8_param_gather" &&
        !fp8_param_gather_applies(precision, int_at(out, "zero", 0)))
      continue;
    // What per-op selective AC saves, for a run that uses it.
    if (path == "op_selective_saved_formats" && out.value("checkpointing", std::string()) != "op_selective") continue;
    // The flash kernel's implementation, for a run whose own attention is not the profile's flash.
    if (path == "attention_kernel" && out.value("attention", std::string()) != "flash") continue;
    out[ptr] = v;
    if (taken) taken->push_back(fmt::format("{} = {}", path, v.is_string() ? v.get<std::string>() : v.dump()));
  }
  // A stack whose element-wise fusion comes from compiling (its default execution "compiled", no
  // fused/elementwise of its own), run eager by the workload: PyTorch eager issues every ATen op of
  // an element-wise chain (RMSNorm, rotary, SwiGLU, the loss) as its own kernel, each reading and
  // writing HBM. The workload's own fused/elementwise wins.
  const auto elementwise = pointer("fused/elementwise");
  const auto is = [](const nlohmann::json& j, const char* key, const char* value) {  // a wrong type is the reader's to report
    const auto it = j.find(key);
    return it != j.end() && it->is_string() && it->get<std::string>() == value;
  };
  if (is(s.defaults, "execution", "compiled") && !s.defaults.contains(elementwise) && is(workload, "execution", "eager") &&
      !out.contains(elementwise) && (!out.contains("fused") || out.at("fused").is_object())) {
    out[elementwise] = false;
    if (taken) taken->push_back("fused/elementwise = false");
  }
  return out;
}

}  // namespace trnsim
