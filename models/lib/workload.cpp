// workload.cpp — reading and writing workloads/*.json by the field table (workload_fields.hpp), and
// the cross-field rules of each sub-struct (see workload.hpp).
#include "workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "layout_rules.hpp"
#include "pipeline_layout.hpp"
#include "trnsim/json_reader.hpp"
#include "workload_fields.hpp"

namespace trnsim {

void set_pipeline_layout(Workload& w, const std::string& layout) {
  const std::vector<LayoutChunk> chunks = parse_pipeline_layout(layout);
  if (const std::string why = pipeline_layout_problem(chunks); !why.empty()) throw std::invalid_argument(why);
  w.pipeline_layout = layout;
  w.pipeline_split = Workload::PipelineSplit::Explicit;
  w.layers_per_stage = layout_layers(chunks);
  w.layout_mtp = chunks.back().mtp;
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::BF16_SR: return "bf16-sr";
    case Precision::MixedBF16: return "mixed-bf16";
    case Precision::FP32: return "fp32";
    case Precision::FP8: return "fp8";
    case Precision::MXFP8: return "mxfp8";
    case Precision::NVFP4: return "nvfp4";
  }
  return "?";
}
std::optional<Precision> precision_named(const std::string& name) {
  for (Precision p : {Precision::BF16_SR, Precision::MixedBF16, Precision::FP32, Precision::FP8, Precision::MXFP8,
                      Precision::NVFP4})
    if (name == to_string(p)) return p;
  return std::nullopt;
}
const char* to_string(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::Delayed: return "delayed";
    case Fp8Recipe::Current: return "current";
    case Fp8Recipe::Rowwise: return "rowwise";
  }
  return "?";
}
bool has_fp32_master(Precision p) { return p != Precision::BF16_SR && p != Precision::FP32; }
DType linear_dtype(Precision p) {
  switch (p) {
    case Precision::FP32: return DType::FP32;
    case Precision::FP8: return DType::FP8;
    case Precision::MXFP8: return DType::MXFP8;
    case Precision::NVFP4: return DType::NVFP4;
    default: return DType::BF16;
  }
}
const char* to_string(Checkpointing c) {
  switch (c) {
    case Checkpointing::None: return "none";
    case Checkpointing::Selective: return "selective";
    case Checkpointing::Full: return "full";
    case Checkpointing::OpSelective: return "op_selective";
  }
  return "?";
}
const char* to_string(Schedule s) { return s == Schedule::OneF1B ? "1f1b" : "gpipe"; }
const char* to_string(Attention a) { return a == Attention::Flash ? "flash" : "unfused"; }
const char* to_string(PricePlan p) { return p == PricePlan::OnDemand ? "on_demand" : "reserved"; }

Workload load_workload(const std::string& file, const StackLookup& stacks) {
  return workload_from_json(load_json_file(file), file, stacks);
}

namespace {

// The readers of one workload document: the root's and one per section the table reads from.
class Readers {
 public:
  Readers(const nlohmann::json& j, const std::string& file) : root_(j, file) { open_.reserve(workload_sections().size()); }
  JsonReader& root() { return root_; }
  // The section's reader; nullptr for an optional section the file leaves out.
  JsonReader* section(const WorkloadSection& s) {
    for (auto& [name, r] : open_)
      if (name == s.name) return r ? &*r : nullptr;
    auto& [name, r] = open_.emplace_back(s.name, std::nullopt);
    if (s.required || root_.has(s.name)) r.emplace(root_.child(s.name));
    return r ? &*r : nullptr;
  }
  JsonReader& at(const std::string& name) { return *section(workload_section(name)); }
  void finish() {
    for (auto& [name, r] : open_)
      if (r) r->finish();
    root_.finish();
  }

 private:
  JsonReader root_;
  std::vector<std::pair<std::string, std::optional<JsonReader>>> open_;
};

// The strict read of one field by its declaration.
void read_field(const WorkloadField& f, JsonReader& r, Workload& w) {
  if (f.read) return f.read(f, r, w);
  const std::string k = f.key();
  const bool given = f.required || r.has(k);
  if (!given) {
    if (!f.fallback.is_null()) f.set(w, f.fallback);
    return;
  }
  const auto lo = static_cast<int64_t>(f.min.value_or(0)), hi = static_cast<int64_t>(f.max.value_or(0));
  switch (f.type) {
    case FieldType::String: f.set(w, r.string(k)); break;
    case FieldType::Integer: f.set(w, r.integer(k, lo, hi)); break;
    case FieldType::Number: f.set(w, r.number(k, *f.min, *f.max)); break;
    case FieldType::Boolean: f.set(w, r.boolean(k)); break;
    case FieldType::Choice: f.set(w, r.choice(k, f.choices)); break;
    case FieldType::Integers: f.set(w, r.integers(k, lo, hi)); break;
    case FieldType::Strings: f.set(w, r.strings(k)); break;
  }
}

// Cross-field rules, one check per sub-struct, after every field is read.
void check_placement(const Workload& w, Readers& rd) {
  // Names, not paths: "../hw/trn1.32xlarge" must not load a hw file as a model.
  for (const auto& [key, name] : {std::pair<const char*, const std::string&>{"model", w.model}, {"hw", w.hw}})
    if (!is_plain_name(name))
      rd.root().fail(key, fmt::format("\"{}\" is not a name; use a file name from `trnsim list` without directory or .json", name));
}

void check_degrees(const Workload& w, Readers& rd) {
  JsonReader& p = rd.at("parallel");
  if (w.tp_overlap_forward && !w.tp_overlap)
    p.fail("tp_overlap_forward", "overlaps the forward's TP collectives too, and tp_overlap is false; set tp_overlap true or "
                                 "remove tp_overlap_forward");
  if (const auto problem = expert_grid_problem(w)) p.fail(problem->first, problem->second);
  if (w.sequence_parallel && w.tp == 1)
    p.fail("sequence_parallel", "sequence parallelism needs tp > 1; set it false or raise tp");
  if (w.ep_overlap && w.ep == 1)
    p.fail("ep_overlap", "overlaps expert all-to-alls and the run has none (ep 1); raise ep or remove ep_overlap");
  if (w.ep_overlap && w.schedule == Schedule::GPipe)
    p.fail("ep_overlap", "pairs 1F1B's steady-state forward and backward, and gpipe has no such pairs; use schedule "
                         "\"1f1b\" or remove ep_overlap");
}

void check_batch(Workload& w, Readers& rd) {
  JsonReader& b = rd.at("batch");
  if (w.document_tokens > w.seq_len)
    b.fail("document_tokens", fmt::format("documents of {} tokens do not fit a sequence of {}; use at most seq_len, or "
                                          "remove document_tokens for one document per sequence",
                                          w.document_tokens, w.seq_len));
  if (w.document_tokens == w.seq_len) w.document_tokens = 0;
  if (w.document_tokens > 0 && w.cp > 1)
    b.fail("document_tokens", "packed documents with context parallelism are not modelled (the ring's causal balance "
                              "assumes one document); remove document_tokens or use cp 1");
  if (w.cp > 1 && w.seq_len % (2 * w.cp) != 0)
    b.fail("seq_len", fmt::format("context parallelism splits each sequence into 2 x cp = {} chunks; use a seq_len "
                                  "divisible by {}", 2 * w.cp, 2 * w.cp));
  if (w.global_batch % (w.dp * w.micro_batch) != 0)
    b.fail("global_batch", fmt::format("global_batch {} is not divisible by dp x micro_batch = {} x {} = {}; "
                                       "pick a multiple of {}",
                                       w.global_batch, w.dp, w.micro_batch, w.dp * w.micro_batch, w.dp * w.micro_batch));
}

void check_numerics(const Workload& w, Readers& rd) {
  JsonReader& r = rd.root();
  const char* prec = to_string(w.precision);
  if (r.has("bf16_layers") && !is_low_precision(linear_dtype(w.precision)))
    r.fail("bf16_layers", fmt::format("keeps blocks in BF16 in a low-precision run, and precision is \"{}\"; remove "
                                      "bf16_layers or set precision to fp8, mxfp8 or nvfp4", prec));
  if (w.fp8_param_gather && !fp8_param_gather_applies(w.precision, w.zero))
    r.fail("fp8_param_gather",
           fmt::format("keeps the linear weights only in FP8 / MXFP8 under a distributed optimizer, and this workload "
                       "has precision \"{}\" and parallel.zero {}; remove fp8_param_gather or use precision fp8 or "
                       "mxfp8 with zero 1 or 2",
                       prec, w.zero));
  if (w.precision == Precision::FP32 && !w.fp32_grads)
    r.fail("grad_dtype", "fp32 training keeps fp32 gradients; remove grad_dtype or set \"fp32\"");
  if (w.precision == Precision::FP32 && w.master_weights.value_or(false))
    r.fail("master_weights", "fp32 training updates its FP32 parameters directly (no separate master copy); remove "
                             "master_weights or set false");
  if (w.master_remainders && !w.fp32_master())
    r.fail("master_remainders", "keeps the FP32 master as 16-bit remainders beside BF16 parameters, and this workload has "
                                "no FP32 master (precision fp32 / bf16-sr, or master_weights false); remove master_remainders");
}

void check_recompute(const Workload& w, Readers& rd) {
  JsonReader& r = rd.root();
  if (w.checkpoint_every > 1 && w.checkpointing == Checkpointing::None)
    r.fail("checkpoint_every", "applies the checkpointing policy to every k-th layer, and checkpointing is \"none\"; "
                               "remove checkpoint_every or set checkpointing");
  if (w.checkpoint_layers > 0 && w.checkpointing == Checkpointing::None)
    r.fail("checkpoint_layers", "applies the checkpointing policy to the first N layers of each pipeline chunk, and "
                                "checkpointing is \"none\"; remove checkpoint_layers or set checkpointing");
}

void check_kernels(const Workload& w, Readers& rd) {
  if (w.attention_kernel != AttentionKernel::Native && w.attention != Attention::Flash)
    rd.root().fail("attention_kernel", "names the implementation of a flash kernel, and attention is \"unfused\"; set "
                                       "\"attention\": \"flash\" or remove attention_kernel");
}

}  // namespace

// The workload with the profile's defaults beneath it (none: the workload as given), then the strict
// reading of every field by the table, then the cross-field checks. One path for files, dicts and
// workloads put under a profile in code.
static Workload parse_workload(const nlohmann::json& given, const std::string& file, const StackProfile* profile) {
  Workload w;
  nlohmann::json j = given;
  if (profile != nullptr && given.is_object()) {
    w.stack = profile->name;
    j = apply_stack_defaults(given, *profile, &w.stack_fields);
  }
  Readers rd(j, file);
  rd.root().ignore("$schema");
  rd.root().ignore("notes");
  w.file = file;
  for (const WorkloadField& f : workload_fields()) {
    const std::string section = f.section();
    JsonReader* r = section.empty() ? &rd.root() : rd.section(workload_section(section));
    if (r != nullptr) read_field(f, *r, w);
  }
  rd.finish();
  check_placement(w, rd);
  check_degrees(w, rd);
  check_batch(w, rd);
  check_numerics(w, rd);
  check_recompute(w, rd);
  check_kernels(w, rd);
  return w;
}

const char* to_string(Workload::LossKernel k) {
  switch (k) {
    case Workload::LossKernel::Eager: return "eager";
    case Workload::LossKernel::Compiled: return "compiled";
    case Workload::LossKernel::Fused:
    case Workload::LossKernel::Auto: break;
  }
  return "fused";
}

std::string workload_to_json(const Workload& w) {
  nlohmann::ordered_json j;
  const bool stacked = !w.stack.empty();
  for (const WorkloadField& f : workload_fields()) {
    if (!f.write_when(w, stacked)) continue;
    const std::string section = f.section();
    if (section.empty()) j[f.path] = f.get(w);
    else j[section][f.key()] = f.get(w);
  }
  // Fields the profile supplied, and still at its value, are left to it, so the document loads back
  // with the same provenance; a field changed since (a run's own choice) stays written out.
  for (const auto& f : w.stack_fields) {
    const auto eq = f.find(" = ");
    const std::string path = f.substr(0, eq), value = f.substr(eq + 3);
    const nlohmann::ordered_json::json_pointer ptr("/" + path);
    if (!j.contains(ptr)) continue;
    const auto& now = j.at(ptr);
    if ((now.is_string() ? now.get<std::string>() : now.dump()) != value) continue;
    j[ptr.parent_pointer()].erase(ptr.back());
    const auto parent = ptr.parent_pointer();  // an object the pass emptied goes too (e.g. "loop": {})
    if (!parent.empty() && j[parent].empty()) j[parent.parent_pointer()].erase(parent.back());
  }
  return j.dump(2) + "\n";
}

Workload workload_from_json(const nlohmann::json& given, const std::string& file, const StackLookup& stacks) {
  if (!given.is_object() || !given.contains("stack")) return parse_workload(given, file, nullptr);
  JsonReader r(given, file);
  const std::string name = r.string("stack");
  if (!stacks) r.fail("stack", "this reader has no stacks/ directory; load the workload through trnsim or its Python module");
  std::string path;
  try {
    path = stacks(name);  // refuses names that are paths, and unknown names with the known ones
  } catch (const ConfigError& e) {
    r.fail("stack", e.what());
  }
  const StackProfile profile = load_stack_profile(path);
  if (profile.name != name)
    throw ConfigError(fmt::format("{}: /name: \"{}\" but the file is stacks/{}.json; make them equal", profile.file,
                                  profile.name, name));
  return parse_workload(given, file, &profile);
}

Workload with_stack(const Workload& w, const StackProfile& profile) {
  nlohmann::json j = nlohmann::json::parse(workload_to_json(w));
  for (const auto& path : stack_settable_fields()) {
    const nlohmann::json::json_pointer ptr("/" + path);
    if (!profile.defaults.contains(ptr) || !j.contains(ptr)) continue;
    j[ptr.parent_pointer()].erase(ptr.back());
    if (path == "parallel/zero") j["parallel"].erase("grad_reduce");  // follows the profile's stage
  }
  j["stack"] = profile.name;
  // The adapters name models by their published names ("Llama 3.1 8B"), not file names.
  j["model"] = "m";
  j["hw"] = "h";
  Workload out = parse_workload(j, w.file, &profile);
  out.model = w.model;
  out.hw = w.hw;
  return out;
}

}  // namespace trnsim
