// workload.cpp — strict reader for workloads/*.json (see workload.hpp).
#include "workload.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <stdexcept>

#include "pipeline_layout.hpp"
#include "trnsim/json_reader.hpp"

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

// The workload with the profile's defaults beneath it (none: the workload as given), then the strict
// reading of every field. One path for files, dicts and workloads put under a profile in code.
static Workload parse_workload(const nlohmann::json& given, const std::string& file, const StackProfile* profile) {
  Workload w;
  nlohmann::json j = given;
  if (profile != nullptr && given.is_object()) {
    w.stack = profile->name;
    j = apply_stack_defaults(given, *profile, &w.stack_fields);
  }
  JsonReader r(j, file);
  r.ignore("$schema");
  r.ignore("stack");
  w.file = file;
  w.name = r.string("name");
  w.description = r.string_or("description", "");
  r.ignore("notes");
  w.model = r.string("model");
  w.hw = r.string("hw");
  // Names, not paths: "../hw/trn1.32xlarge" must not load a hw file as a model.
  for (const auto& [key, name] : {std::pair<const char*, const std::string&>{"model", w.model}, {"hw", w.hw}})
    if (!is_plain_name(name))
      r.fail(key, fmt::format("\"{}\" is not a name; use a file name from `trnsim list` without directory or .json", name));
  w.nodes = r.integer("nodes", 1, 100000);
  w.cores_per_node = r.integer_or("cores_per_node", 0, 1, 4096);
  w.lnc = r.integer_or("lnc", 0, 1, 64);
  w.execution = r.has("execution") ? r.choice("execution", {"eager", "lazy", "compiled"}) : "";
  {
    auto p = r.child("parallel");
    w.tp = p.integer("tp", 1, 1024);
    w.pp = p.integer("pp", 1, 1024);
    w.dp = p.integer("dp", 1, 1 << 22);
    w.ep = p.integer_or("ep", 1, 1, 1 << 16);
    w.etp = p.integer_or("etp", 1, 1, 1 << 10);
    w.cp = p.integer_or("cp", 1, 1, 1 << 12);
    w.moe_load_imbalance = p.number_or("moe_load_imbalance", 1.0, 1.0, 64.0);
    w.moe_dispatcher = p.choice_or("moe_dispatcher", "alltoall", {"alltoall", "deepep"}) == "deepep"
                           ? Workload::MoeDispatcher::PerDomain
                           : Workload::MoeDispatcher::AllToAll;
    w.moe_grouped_gemm = p.choice_or("moe_grouped_gemm", "fused", {"fused", "per_expert"}) == "per_expert"
                             ? Workload::MoeGroupedGemm::PerExpert
                             : Workload::MoeGroupedGemm::Fused;
    w.sequence_parallel = p.boolean("sequence_parallel");
    w.zero = static_cast<int>(p.integer("zero", 0, 3));
    w.schedule = p.choice_or("schedule", "1f1b", {"1f1b", "gpipe"}) == "1f1b" ? Schedule::OneF1B : Schedule::GPipe;
    w.overlap_dp = p.boolean_or("overlap_dp", true);
    w.virtual_stages = p.integer_or("virtual_stages", 1, 1, 1024);
    const std::string split = p.choice_or("pipeline_split", p.has("layers_per_stage") ? "explicit" : "even",
                                          {"even", "embedding_and_loss", "balanced", "explicit"});
    w.pipeline_split = split == "even"                 ? Workload::PipelineSplit::Even
                       : split == "embedding_and_loss" ? Workload::PipelineSplit::EmbeddingAndLoss
                       : split == "balanced"           ? Workload::PipelineSplit::Balanced
                                                       : Workload::PipelineSplit::Explicit;
    if (p.has("pipeline_layout")) {
      if (p.has("layers_per_stage") || p.has("pipeline_split"))
        p.fail("pipeline_layout", "a layout fixes the split; remove layers_per_stage and pipeline_split");
      try {
        set_pipeline_layout(w, p.string("pipeline_layout"));
      } catch (const std::invalid_argument& e) {
        p.fail("pipeline_layout", e.what());
      }
    } else if (p.has("layers_per_stage")) {
      if (w.pipeline_split != Workload::PipelineSplit::Explicit)
        p.fail("layers_per_stage", "an explicit split; remove pipeline_split or set it to \"explicit\"");
      w.layers_per_stage = p.integers("layers_per_stage", 0, 100000);
    } else if (w.pipeline_split == Workload::PipelineSplit::Explicit) {
      p.fail("pipeline_split", "\"explicit\" needs layers_per_stage: [layers of stage 0, stage 1, ...]");
    }
    w.tp_overlap = p.boolean_or("tp_overlap", false);
    w.tp_overlap_forward = p.boolean_or("tp_overlap_forward", false);
    if (w.tp_overlap_forward && !w.tp_overlap)
      p.fail("tp_overlap_forward", "overlaps the forward's TP collectives too, and tp_overlap is false; set tp_overlap true or "
                                   "remove tp_overlap_forward");
    w.pp_scatter_gather = p.boolean_or("pp_scatter_gather", false);
    w.pp_overlap = p.boolean_or("pp_overlap", false);
    w.ep_overlap = p.boolean_or("ep_overlap", false);
    w.fsdp_shard = p.choice_or("fsdp_shard", "separate", {"separate", "master"}) == "master" ? Workload::FsdpShard::Master
                                                                                            : Workload::FsdpShard::Separate;
    w.loss_parallel = p.boolean_or("loss_parallel", true);
    w.sp_saves_gathered_inputs = p.boolean_or("sp_saves_gathered_inputs", false);
    w.fsdp_reshard_after_forward = p.boolean_or("fsdp_reshard_after_forward", true);
    w.fsdp_prefetch = p.integer_or("fsdp_prefetch", 1, 0, 8);
    w.grad_bucket_elements = p.integer_or("grad_bucket_elements", 0, 0, int64_t{1} << 40);
    // ZeRO-2 keeps only its gradient shard, so it must reduce after every micro-batch. ZeRO-3 may
    // reduce once per step: FSDP without gradient sync until the last micro-batch, which then holds
    // every unsharded gradient (memory_model.cpp).
    const std::string grad_reduce = p.has("grad_reduce") ? p.choice("grad_reduce", {"per_step", "per_micro_batch"}) : "";
    w.reduce_every_micro_batch = reduces_every_micro_batch(w.zero, grad_reduce);
    if (w.zero == 2 && grad_reduce == "per_step")
      p.fail("grad_reduce", "ZeRO-2 partitions gradients, so it reduces them every micro-batch; remove grad_reduce or set "
                            "\"per_micro_batch\" (or use zero 1, or zero 3 without gradient sync, for a per-step reduction)");
    p.finish();
    // Megatron-Core's expert grid (ETP x EP x expert DP) re-arranges one stage's TP x CP x DP ranks.
    const int64_t dense_ranks = w.dense_ranks();
    if (dense_ranks % w.ep != 0)
      p.fail("ep", fmt::format("ep {} must divide tp x cp x dp = {} (expert-parallel ranks come from the TP, CP and DP "
                               "ranks)", w.ep, dense_ranks));
    if (dense_ranks % (w.ep * w.etp) != 0)
      p.fail("etp", fmt::format("ep x etp = {} x {} must divide tp x cp x dp = {} (the expert grid re-arranges the TP, CP "
                                "and DP ranks); pick an etp dividing {}", w.ep, w.etp, dense_ranks, dense_ranks / w.ep));
    if (w.sequence_parallel && w.tp == 1)
      p.fail("sequence_parallel", "sequence parallelism needs tp > 1; set it false or raise tp");
    if (w.ep_overlap && w.ep == 1)
      p.fail("ep_overlap", "overlaps expert all-to-alls and the run has none (ep 1); raise ep or remove ep_overlap");
    if (w.ep_overlap && w.schedule == Schedule::GPipe)
      p.fail("ep_overlap", "pairs 1F1B's steady-state forward and backward, and gpipe has no such pairs; use schedule "
                           "\"1f1b\" or remove ep_overlap");
  }
  {
    auto b = r.child("batch");
    w.micro_batch = b.integer("micro_batch", 1, 1 << 20);
    w.global_batch = b.integer("global_batch", 1, 1 << 30);
    w.seq_len = b.integer("seq_len", 1, 1 << 22);
    w.document_tokens = b.integer_or("document_tokens", 0, 1, 1 << 22);
    b.finish();
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
  const std::string prec = r.choice("precision", {"bf16-sr", "mixed-bf16", "fp32", "fp8", "mxfp8", "nvfp4"});
  w.precision = *precision_named(prec);  // one of the choices above
  if (r.has("bf16_layers")) {
    auto b = r.child("bf16_layers");
    w.bf16_first_layers = b.integer_or("first", 0, 0, 1 << 16);
    w.bf16_last_layers = b.integer_or("last", 0, 0, 1 << 16);
    b.finish();
    if (!is_low_precision(linear_dtype(w.precision)))
      r.fail("bf16_layers", fmt::format("keeps blocks in BF16 in a low-precision run, and precision is \"{}\"; remove "
                                        "bf16_layers or set precision to fp8, mxfp8 or nvfp4", prec));
  }
  if (r.has("fp8_recipe")) {
    if (w.precision != Precision::FP8)
      r.fail("fp8_recipe", fmt::format("fp8_recipe applies to precision \"fp8\" only (this workload is \"{}\"); remove it",
                                       prec));
    const std::string rec = r.choice("fp8_recipe", {"delayed", "current", "rowwise"});
    w.fp8_recipe = rec == "delayed" ? Fp8Recipe::Delayed : rec == "current" ? Fp8Recipe::Current : Fp8Recipe::Rowwise;
  }
  if (r.has("fp8_param_gather")) {
    w.fp8_param_gather = r.boolean("fp8_param_gather");
    if (w.fp8_param_gather && !fp8_param_gather_applies(w.precision, w.zero))
      r.fail("fp8_param_gather",
             fmt::format("keeps the linear weights only in FP8 / MXFP8 under a distributed optimizer, and this workload "
                         "has precision \"{}\" and parallel.zero {}; remove fp8_param_gather or use precision fp8 or "
                         "mxfp8 with zero 1 or 2",
                         prec, w.zero));
  }
  const std::string gdef = w.precision == Precision::BF16_SR ? "bf16" : "fp32";
  w.fp32_grads = r.choice_or("grad_dtype", gdef, {"bf16", "fp32"}) == "fp32";
  if (w.precision == Precision::FP32 && !w.fp32_grads)
    r.fail("grad_dtype", "fp32 training keeps fp32 gradients; remove grad_dtype or set \"fp32\"");
  if (r.has("master_weights")) {
    w.master_weights = r.boolean("master_weights");
    if (w.precision == Precision::FP32 && *w.master_weights)
      r.fail("master_weights", "fp32 training updates its FP32 parameters directly (no separate master copy); remove "
                               "master_weights or set false");
  }
  w.master_remainders = r.boolean_or("master_remainders", false);
  if (w.master_remainders && !w.fp32_master())
    r.fail("master_remainders", "keeps the FP32 master as 16-bit remainders beside BF16 parameters, and this workload has "
                                "no FP32 master (precision fp32 / bf16-sr, or master_weights false); remove master_remainders");
  w.optimizer_state_dtype = r.choice_or("optimizer_state_dtype", "fp32", {"fp32", "bf16"}) == "bf16" ? DType::BF16 : DType::FP32;
  std::string ck = r.choice("checkpointing", {"none", "selective", "full", "op_selective"});
  w.checkpointing = ck == "none"        ? Checkpointing::None
                    : ck == "selective" ? Checkpointing::Selective
                    : ck == "full"      ? Checkpointing::Full
                                        : Checkpointing::OpSelective;
  if (r.has("op_selective_saved_formats")) {
    if (w.checkpointing != Checkpointing::OpSelective)
      r.fail("op_selective_saved_formats", fmt::format("names what per-op selective AC saves, and checkpointing is \"{}\"; "
                                                       "remove op_selective_saved_formats or set checkpointing \"op_selective\"", ck));
    for (DType d : kLowPrecisionDTypes) w.op_selective_saves[static_cast<size_t>(d)] = false;
    for (const std::string& f : r.strings("op_selective_saved_formats")) {
      const auto d = std::find_if(kLowPrecisionDTypes.begin(), kLowPrecisionDTypes.end(), [&](DType x) { return f == to_string(x); });
      if (d != kLowPrecisionDTypes.end()) w.op_selective_saves[static_cast<size_t>(*d)] = true;
      else
        r.fail("op_selective_saved_formats", fmt::format("unknown format \"{}\"; list low-precision GEMM formats: fp8, mxfp8, nvfp4 "
                                                         "(BF16 matmuls are always saved)", f));
    }
  }
  w.checkpoint_every = r.integer_or("checkpoint_every", 1, 1, 1 << 16);
  if (w.checkpoint_every > 1 && w.checkpointing == Checkpointing::None)
    r.fail("checkpoint_every", "applies the checkpointing policy to every k-th layer, and checkpointing is \"none\"; "
                               "remove checkpoint_every or set checkpointing");
  w.checkpoint_layers = r.integer_or("checkpoint_layers", 0, 1, 1 << 16);
  if (w.checkpoint_layers > 0 && w.checkpointing == Checkpointing::None)
    r.fail("checkpoint_layers", "applies the checkpointing policy to the first N layers of each pipeline chunk, and "
                                "checkpointing is \"none\"; remove checkpoint_layers or set checkpointing");
  {
    auto f = r.child("fused");
    w.fused_qkv = f.boolean("qkv");
    w.fused_gate_up = f.boolean("gate_up");
    w.fused_elementwise = f.boolean_or("elementwise", true);
    const std::string loss = f.choice_or("loss", "auto", {"eager", "fused", "compiled"});
    w.loss_kernel = loss == "eager"      ? Workload::LossKernel::Eager
                    : loss == "compiled" ? Workload::LossKernel::Compiled
                    : loss == "fused"    ? Workload::LossKernel::Fused
                                         : Workload::LossKernel::Auto;
    w.softmax_kernel = f.choice_or("softmax", "fused", {"fused", "megatron"}) == "megatron" ? Workload::SoftmaxKernel::Megatron
                                                                                            : Workload::SoftmaxKernel::Fused;
    f.finish();
  }
  w.attention = r.choice_or("attention", "unfused", {"unfused", "flash"}) == "flash" ? Attention::Flash : Attention::Unfused;
  {
    const std::string k = r.choice_or("attention_kernel", "native", {"native", "flash2", "flash1"});
    w.attention_kernel = k == "flash2" ? AttentionKernel::Flash2 : k == "flash1" ? AttentionKernel::Flash1 : AttentionKernel::Native;
    if (w.attention_kernel != AttentionKernel::Native && w.attention != Attention::Flash)
      r.fail("attention_kernel", "names the implementation of a flash kernel, and attention is \"unfused\"; set \"attention\": \"flash\" "
                                 "or remove attention_kernel");
  }
  if (r.has("allocator")) {
    auto a = r.child("allocator");
    w.allocator_fragmentation = a.number_or("fragmentation", 0.0, 0.0, 0.9);
    a.finish();
  }
  if (r.has("loop")) {
    auto l = r.child("loop");
    w.loop.batch_launches = static_cast<int>(l.integer_or("batch_launches", 0, 0, 10000));
    w.loop.loss_launches = static_cast<int>(l.integer_or("loss_launches", 0, 0, 10000));
    w.loop.loss_backward_launches = static_cast<int>(l.integer_or("loss_backward_launches", 0, 0, 10000));
    l.finish();
  }
  if (r.has("lora")) {
    auto l = r.child("lora");
    w.lora.rank = l.integer("rank", 1, 1 << 16);
    if (l.has("targets")) {
      w.lora.qkv = w.lora.proj = w.lora.fc1 = w.lora.fc2 = false;
      for (const std::string& t : l.strings("targets")) {
        if (t == "linear_qkv") w.lora.qkv = true;
        else if (t == "linear_proj") w.lora.proj = true;
        else if (t == "linear_fc1") w.lora.fc1 = true;
        else if (t == "linear_fc2") w.lora.fc2 = true;
        else
          l.fail("targets", fmt::format("unknown target \"{}\"; use linear_qkv, linear_proj, linear_fc1 or linear_fc2", t));
      }
    }
    l.finish();
  }
  w.price_plan = r.choice_or("price_plan", "on_demand", {"on_demand", "reserved"}) == "on_demand" ? PricePlan::OnDemand
                                                                                                 : PricePlan::Reserved;
  r.finish();
  return w;
}

}  // namespace trnsim

namespace trnsim {

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
  j["name"] = w.name;
  if (!w.description.empty()) j["description"] = w.description;
  if (!w.stack.empty()) j["stack"] = w.stack;
  j["model"] = w.model;
  j["hw"] = w.hw;
  j["nodes"] = w.nodes;
  if (w.cores_per_node > 0) j["cores_per_node"] = w.cores_per_node;
  if (w.lnc > 0) j["lnc"] = w.lnc;
  if (!w.execution.empty()) j["execution"] = w.execution;
  j["parallel"] = {{"tp", w.tp}, {"pp", w.pp}, {"dp", w.dp}, {"sequence_parallel", w.sequence_parallel},
                   {"zero", w.zero}, {"schedule", to_string(w.schedule)}, {"virtual_stages", w.virtual_stages}, {"tp_overlap", w.tp_overlap},
                   {"tp_overlap_forward", w.tp_overlap_forward},
                   {"pp_scatter_gather", w.pp_scatter_gather}, {"pp_overlap", w.pp_overlap}, {"overlap_dp", w.overlap_dp},
                   {"grad_reduce", grad_reduce_name(w)}};
  if (w.ep > 1) j["parallel"]["ep"] = w.ep;
  if (w.etp > 1) j["parallel"]["etp"] = w.etp;
  if (w.ep_overlap) j["parallel"]["ep_overlap"] = true;
  if (w.cp > 1) j["parallel"]["cp"] = w.cp;
  if (w.pipeline_split == Workload::PipelineSplit::EmbeddingAndLoss) j["parallel"]["pipeline_split"] = "embedding_and_loss";
  if (w.pipeline_split == Workload::PipelineSplit::Balanced) j["parallel"]["pipeline_split"] = "balanced";
  if (!w.pipeline_layout.empty()) j["parallel"]["pipeline_layout"] = w.pipeline_layout;
  else if (w.pipeline_split == Workload::PipelineSplit::Explicit) j["parallel"]["layers_per_stage"] = w.layers_per_stage;
  if (w.moe_load_imbalance != 1.0) j["parallel"]["moe_load_imbalance"] = w.moe_load_imbalance;
  if (w.moe_dispatcher == Workload::MoeDispatcher::PerDomain) j["parallel"]["moe_dispatcher"] = moe_dispatcher_name(w);
  if (w.moe_grouped_gemm == Workload::MoeGroupedGemm::PerExpert) j["parallel"]["moe_grouped_gemm"] = "per_expert";
  if (w.fsdp_shard == Workload::FsdpShard::Master) j["parallel"]["fsdp_shard"] = "master";
  // Written when off their reader default, and always under a stack: a run's own value then
  // survives the round trip where the profile sets another (the provenance pass below drops the
  // fields the profile supplied at its value).
  const bool stacked = !w.stack.empty();
  if (!w.loss_parallel || stacked) j["parallel"]["loss_parallel"] = w.loss_parallel;
  if (w.sp_saves_gathered_inputs || stacked) j["parallel"]["sp_saves_gathered_inputs"] = w.sp_saves_gathered_inputs;
  if (!w.fsdp_reshard_after_forward || stacked) j["parallel"]["fsdp_reshard_after_forward"] = w.fsdp_reshard_after_forward;
  if (w.fsdp_prefetch != 1 || stacked) j["parallel"]["fsdp_prefetch"] = w.fsdp_prefetch;
  if (w.grad_bucket_elements != 0 || stacked) j["parallel"]["grad_bucket_elements"] = w.grad_bucket_elements;
  j["batch"] = {{"micro_batch", w.micro_batch}, {"global_batch", w.global_batch}, {"seq_len", w.seq_len}};
  if (w.document_tokens > 0) j["batch"]["document_tokens"] = w.document_tokens;
  j["precision"] = to_string(w.precision);
  if (w.precision == Precision::FP8) j["fp8_recipe"] = to_string(w.fp8_recipe);
  if (w.fp8_param_gather) j["fp8_param_gather"] = true;
  if (w.allocator_fragmentation > 0 || stacked) j["allocator"] = {{"fragmentation", w.allocator_fragmentation}};
  if (w.loop.active() || stacked)
    j["loop"] = {{"batch_launches", w.loop.batch_launches}, {"loss_launches", w.loop.loss_launches},
                 {"loss_backward_launches", w.loop.loss_backward_launches}};
  if (w.has_bf16_layers()) j["bf16_layers"] = {{"first", w.bf16_first_layers}, {"last", w.bf16_last_layers}};
  j["grad_dtype"] = w.fp32_grads ? "fp32" : "bf16";
  if (w.master_weights) j["master_weights"] = *w.master_weights;
  if (w.master_remainders) j["master_remainders"] = true;
  if (w.optimizer_state_dtype != DType::FP32) j["optimizer_state_dtype"] = "bf16";
  j["checkpointing"] = to_string(w.checkpointing);
  if (w.checkpointing == Checkpointing::OpSelective) {
    std::vector<std::string> saved;
    bool all = true;
    for (DType d : kLowPrecisionDTypes) {
      if (w.op_selective_saves_gemm(d)) saved.push_back(to_string(d));
      else all = false;
    }
    if (!all) j["op_selective_saved_formats"] = saved;
  }
  if (w.checkpoint_every > 1) j["checkpoint_every"] = w.checkpoint_every;
  if (w.checkpoint_layers > 0) j["checkpoint_layers"] = w.checkpoint_layers;
  j["fused"] = {{"qkv", w.fused_qkv}, {"gate_up", w.fused_gate_up}, {"elementwise", w.fused_elementwise}};
  // Written only when set: left to its default it follows fused.elementwise after a round trip.
  if (w.loss_kernel != Workload::LossKernel::Auto) j["fused"]["loss"] = to_string(w.loss_kernel);
  if (w.softmax_kernel != Workload::SoftmaxKernel::Fused || stacked)
    j["fused"]["softmax"] = w.softmax_kernel == Workload::SoftmaxKernel::Megatron ? "megatron" : "fused";
  j["attention"] = to_string(w.attention);
  if (w.attention_kernel != AttentionKernel::Native) j["attention_kernel"] = to_string(w.attention_kernel);
  if (w.lora.active()) j["lora"] = {{"rank", w.lora.rank}, {"targets", lora_target_names(w)}};
  j["price_plan"] = to_string(w.price_plan);
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
