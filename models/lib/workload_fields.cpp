// workload_fields.cpp — the workload's field table (see workload_fields.hpp): one row per setting,
// in the order a workload file lists them. A row names its JSON path and member; the builder
// below gives it a type, unit, default, range or choices, and says whether a stack profile may set
// it, when the writer writes it and whether the report shows it.
#include "workload_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace trnsim {

namespace {

using nlohmann::json;

// A row under construction. The typed makers below bind it to a member; the chained calls add
// what the row declares beyond its type. When it is written and reported is settled on conversion
// into the table, from the row's binding and default whatever order the calls came in.
struct Row {
  enum class Write { Default, Always, ChangedOrStacked, Custom };
  enum class Report { No, Always, Changed, Custom };
  WorkloadField f;
  Write write = Write::Default;
  Report shown = Report::No;
  Row(std::string path, FieldType type) {
    f.path = std::move(path);
    f.type = type;
  }
  Row& unit(std::string u) { return f.unit = std::move(u), *this; }
  Row& range(double lo, double hi) { return f.min = lo, f.max = hi, *this; }
  Row& or_else(json v) { return f.fallback = std::move(v), *this; }
  Row& choices(std::vector<std::string> c) { return f.choices = std::move(c), *this; }
  Row& required() { return f.required = true, *this; }
  Row& settable() { return f.stack_settable = true, *this; }
  Row& default_is(std::string text) { return f.default_text = std::move(text), *this; }
  Row& desc(std::string d) { return f.description = std::move(d), *this; }
  Row& reads(std::function<void(const WorkloadField&, JsonReader&, Workload&)> r) { return f.read = std::move(r), *this; }
  Row& bind(std::function<json(const Workload&)> get, std::function<void(Workload&, const json&)> set) {
    f.get = std::move(get);
    f.set = std::move(set);
    return *this;
  }
  Row& copies(std::function<void(Workload&, const Workload&)> c) { return f.copy = std::move(c), *this; }
  // Writing: by default a required field always, another when off its default.
  Row& write_always() { return write = Write::Always, *this; }
  // Off its default, or under a stack: a run's own value then survives the round trip where the
  // profile sets another (workload_to_json drops the fields the profile supplied at its value).
  Row& write_changed_or_stacked() { return write = Write::ChangedOrStacked, *this; }
  Row& write_when(std::function<bool(const Workload&, bool stacked)> p) {
    write = Write::Custom;
    f.write_when = std::move(p);
    return *this;
  }
  Row& write_if(std::function<bool(const Workload&)> p) {
    return write_when([p = std::move(p)](const Workload& w, bool) { return p(w); });
  }
  // The report shows it under `key` (default: the field's own key), always, when off its default,
  // or when `p` holds.
  Row& report(std::string key = "") {
    shown = Report::Always;
    f.report_key = key.empty() ? f.key() : std::move(key);
    return *this;
  }
  Row& report_if_changed() { return report(), shown = Report::Changed, *this; }
  Row& report_if(std::function<bool(const Workload&)> p, std::string key = "") {
    report(std::move(key));
    shown = Report::Custom;
    f.report_when = std::move(p);
    return *this;
  }
  operator WorkloadField() const {  // NOLINT: rows convert into the table
    WorkloadField out = f;
    const auto changed = [g = f.get, d = f.fallback](const Workload& w) { return g(w) != d; };
    switch (write) {
      case Write::Default:
        if (f.required) out.write_when = [](const Workload&, bool) { return true; };
        else out.write_when = [changed](const Workload& w, bool) { return changed(w); };
        break;
      case Write::Always: out.write_when = [](const Workload&, bool) { return true; }; break;
      case Write::ChangedOrStacked:
        out.write_when = [changed](const Workload& w, bool stacked) { return stacked || changed(w); };
        break;
      case Write::Custom: break;
    }
    if (shown == Report::Always) out.report_when = [](const Workload&) { return true; };
    if (shown == Report::Changed) out.report_when = changed;
    return out;
  }
};

template <class C, class T>
Row member_row(std::string path, FieldType type, T C::*m) {
  Row r(std::move(path), type);
  r.bind([m](const Workload& w) { return json(w.*m); },
         [m](Workload& w, const json& v) { w.*m = v.get<T>(); });
  return r.copies([m](Workload& to, const Workload& from) { to.*m = from.*m; });
}
template <class C>
Row text(std::string path, std::string C::*m) { return member_row(std::move(path), FieldType::String, m); }
template <class C, class T>
Row integer(std::string path, T C::*m, double lo, double hi) {
  return member_row(std::move(path), FieldType::Integer, m).range(lo, hi);
}
template <class C>
Row number(std::string path, double C::*m, double lo, double hi) {
  return member_row(std::move(path), FieldType::Number, m).range(lo, hi);
}
template <class C>
Row flag(std::string path, bool C::*m) { return member_row(std::move(path), FieldType::Boolean, m); }
// A choice bound to a member through its names (an enum's, or a string member's own values).
template <class C, class T>
Row choice(std::string path, T C::*m, std::vector<std::pair<std::string, T>> names) {
  Row r(std::move(path), FieldType::Choice);
  for (const auto& [n, v] : names) r.f.choices.push_back(n);
  r.bind(
      [m, names](const Workload& w) {
        for (const auto& [n, v] : names)
          if (w.*m == v) return json(n);
        return json();
      },
      [m, names](Workload& w, const json& s) {
        for (const auto& [n, v] : names)
          if (s == n) w.*m = v;
      });
  return r.copies([m](Workload& to, const Workload& from) { to.*m = from.*m; });
}
bool ep_run(const Workload& w) { return w.ep > 1; }
bool loop_written(const Workload& w, bool stacked) { return w.loop.active() || stacked; }

// A field of the loop's counts.
Row loop_count(std::string path, int Workload::Loop::*m) {
  Row r(std::move(path), FieldType::Integer);
  r.bind([m](const Workload& w) { return json(w.loop.*m); },
         [m](Workload& w, const json& v) { w.loop.*m = static_cast<int>(v.get<int64_t>()); });
  r.copies([m](Workload& to, const Workload& from) { to.loop.*m = from.loop.*m; });
  // The loop's counts are written together: all three when any is set, or under a stack.
  return r.range(0, 10000).unit("kernel launches").or_else(0).settable().write_when(loop_written);
}


std::vector<std::pair<std::string, Precision>> precision_names() {
  std::vector<std::pair<std::string, Precision>> out;
  for (Precision p : {Precision::BF16_SR, Precision::MixedBF16, Precision::FP32, Precision::FP8, Precision::MXFP8,
                      Precision::NVFP4})
    out.emplace_back(to_string(p), p);
  return out;
}

// Pipeline split, layout and explicit layer counts: three keys, one setting.
void read_pipeline_split(const WorkloadField& f, JsonReader& p, Workload& w) {
  const std::string split = p.choice_or("pipeline_split", p.has("layers_per_stage") ? "explicit" : "even", f.choices);
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
}
const char* split_name(Workload::PipelineSplit s) {
  switch (s) {
    case Workload::PipelineSplit::Even: return "even";
    case Workload::PipelineSplit::EmbeddingAndLoss: return "embedding_and_loss";
    case Workload::PipelineSplit::Balanced: return "balanced";
    case Workload::PipelineSplit::Explicit: break;
  }
  return "explicit";
}

std::vector<WorkloadField> make_table() {
  const auto no_read = [](const WorkloadField&, JsonReader&, Workload&) {};  // another row of the same setting reads it
  return {
      text("name", &Workload::name).required().write_always().report().desc("Workload name."),
      text("description", &Workload::description).or_else("").desc("What this configuration is and where it comes from."),
      text("stack", &Workload::stack)
          .or_else("")
          .reads([](const WorkloadField&, JsonReader& r, Workload&) { r.ignore("stack"); })  // workload_from_json applies the profile
          .desc("Training-stack profile (stacks/<stack>.json, e.g. \"megatron-core\", \"torchtitan\", \"nxd\", \"torchneuron\"): "
                "its defaults fill the fields this workload leaves out (the fields `trnsim fields` marks settable); a field set "
                "here wins. Defaults needing degrees the run lacks are switched off (SP, TP overlap, scatter-gather need tp > 1; "
                "a ZeRO stage needs dp x cp > 1)."),
      text("model", &Placement::model).required().report().desc("Model name: models/<model>.json (a name, not a path)."),
      text("hw", &Placement::hw).required().report().desc("Instance name: hw/<hw>.json (a name, not a path)."),
      integer("nodes", &Placement::nodes, 1, 100000).unit("nodes").required().report().desc("Nodes (instances)."),
      integer("cores_per_node", &Placement::cores_per_node, 1, 4096)
          .unit("cores")
          .or_else(0)
          .default_is("every core of the node")
          .desc("Use only this many cores per node (partial nodes need a switch or all-to-all node)."),
      integer("lnc", &Placement::lnc, 1, 64)
          .unit("cores")
          .or_else(0)
          .default_is("the hw file's lnc.default")
          .desc("Logical NeuronCore configuration (Trn2 / Trn3): physical cores per rank; the hw file's lnc.allowed lists "
                "the choices."),
      member_row("execution", FieldType::Choice, &Kernels::execution)
          .choices({"eager", "lazy", "compiled"})
          .or_else("")
          .settable()
          .default_is("the hw file's host.execution")
          .desc("How the framework feeds the device: eager (per-op host dispatch: PyTorch eager, TorchNeuron eager), lazy "
                "(torch-xla traces each micro-step's graph on the host), compiled (torch.compile / ahead-compiled graph, one "
                "launch per graph)."),
      // parallel: the degrees, the pipeline's shape, and what overlaps what.
      integer("parallel/tp", &Degrees::tp, 1, 1024).unit("ranks").required().report().desc("Tensor-parallel degree."),
      integer("parallel/pp", &Degrees::pp, 1, 1024).unit("stages").required().report().desc("Pipeline-parallel degree."),
      integer("parallel/dp", &Degrees::dp, 1, 1 << 22).unit("replicas").required().report().desc("Data-parallel degree."),
      flag("parallel/sequence_parallel", &Degrees::sequence_parallel)
          .required()
          .settable()
          .report()
          .desc("Megatron sequence parallelism (needs tp > 1)."),
      integer("parallel/zero", &Degrees::zero, 0, 3)
          .unit("stage")
          .required()
          .settable()
          .report()
          .desc("ZeRO stage: 0 replicated, 1 optimizer states sharded, 2 + gradients, 3 + parameters (FSDP, gathered per "
                "layer)."),
      choice("parallel/schedule", &Degrees::schedule, {{"1f1b", Schedule::OneF1B}, {"gpipe", Schedule::GPipe}})
          .or_else("1f1b")
          .settable()
          .write_always()
          .report()
          .desc("Pipeline schedule."),
      integer("parallel/virtual_stages", &Degrees::virtual_stages, 1, 1024)
          .unit("chunks")
          .or_else(1)
          .write_always()
          .report()
          .desc("Interleaved 1F1B: model chunks per pipeline rank."),
      flag("parallel/tp_overlap", &Overlap::tp_overlap)
          .or_else(false)
          .settable()
          .write_always()
          .desc("Overlap tensor-parallel communication with compute."),
      flag("parallel/tp_overlap_forward", &Overlap::tp_overlap_forward)
          .or_else(false)
          .settable()
          .write_always()
          .desc("With tp_overlap, also pipeline the forward's SP all-gather with the GEMM after it and its reduce-scatter "
                "with the GEMM before it (Transformer Engine userbuffers under Megatron-Core tp_comm_overlap, torch async TP; "
                "false: backward only, as Megatron-LM 2021-22)."),
      flag("parallel/pp_scatter_gather", &Overlap::pp_scatter_gather)
          .or_else(false)
          .settable()
          .write_always()
          .desc("Megatron scatter/gather of pipeline activations across the TP group."),
      flag("parallel/pp_overlap", &Overlap::pp_overlap)
          .or_else(false)
          .settable()
          .write_always()
          .report_if([](const Workload& w) { return w.pp_overlap_applies(); })
          .desc("Overlap pipeline sends and receives with compute in the interleaved schedule (Megatron-Core "
                "overlap_p2p_comm): a stage's output starts across the link when its pass ends and the next stage waits "
                "only for its arrival, in the steady state (warm-up and flush stay blocking, Megatron-Core's default); "
                "applies with virtual_stages > 1 (Megatron-Core overlaps only the interleaved schedule's p2p; false: a "
                "blocking send / receive the receiver waits out)."),
      flag("parallel/overlap_dp", &Overlap::overlap_dp)
          .or_else(true)
          .settable()
          .write_always()
          .report()
          .desc("Overlap the data-parallel gradient reduction with backward."),
      Row("parallel/grad_reduce", FieldType::Choice)
          .bind([](const Workload& w) { return json(grad_reduce_name(w)); }, [](Workload&, const json&) {})
          .copies([](Workload& to, const Workload& from) { to.reduce_every_micro_batch = from.reduce_every_micro_batch; })
          .choices({"per_step", "per_micro_batch"})
          .reads([](const WorkloadField& f, JsonReader& p, Workload& w) {
            // ZeRO-2 keeps only its gradient shard, so it must reduce after every micro-batch. ZeRO-3 may
            // reduce once per step: FSDP without gradient sync until the last micro-batch, which then holds
            // every unsharded gradient (memory_model.cpp).
            const std::string g = p.has("grad_reduce") ? p.choice("grad_reduce", f.choices) : "";
            w.reduce_every_micro_batch = reduces_every_micro_batch(w.zero, g);
            if (w.zero == 2 && g == "per_step")
              p.fail("grad_reduce", "ZeRO-2 partitions gradients, so it reduces them every micro-batch; remove grad_reduce or set "
                                    "\"per_micro_batch\" (or use zero 1, or zero 3 without gradient sync, for a per-step reduction)");
          })
          .settable()
          .write_always()
          .report()
          .default_is("per_step; ZeRO-2 and ZeRO-3: per_micro_batch")
          .desc("When gradients are reduced. ZeRO-3 with per_step is FSDP without gradient sync until the last "
                "micro-batch (as torch's pipeline schedules run FSDP2): every unsharded gradient accumulates in the gradient "
                "dtype."),
      flag("parallel/overlap_param_gather", &Overlap::overlap_param_gather)
          .or_else(false)
          .settable()
          .write_changed_or_stacked()
          .report_if_changed()
          .desc("With a distributed optimizer (zero 1 or 2): all-gather the updated parameters beside the next step's first "
                "forward, bucket by bucket, each piece's forward waiting for its own gather (Megatron-Core "
                "overlap_param_gather, Apex DistributedFusedAdam overlap_param_sync). false: the gather follows the "
                "optimizer step, in series."),
      integer("parallel/ep", &Degrees::ep, 1, 1 << 16)
          .unit("ranks")
          .or_else(1)
          .report_if(ep_run)
          .desc("Expert-parallel degree (MoE models): routed experts split over ep ranks taken from the TP x CP x DP ranks; "
                "must divide tp x cp x dp and the experts."),
      integer("parallel/etp", &Degrees::etp, 1, 1 << 10)
          .unit("ranks")
          .or_else(1)
          .report_if([](const Workload& w) { return w.etp > 1; })
          .desc("Expert tensor-parallel degree (Megatron-Core expert_tensor_parallel_size, MoE models): each expert's FFN "
                "split over etp ranks; tokens all-gathered over the ETP group before the experts and reduce-scattered "
                "after. ep x etp must divide tp x cp x dp; etp must divide the expert FFN."),
      flag("parallel/ep_overlap", &Overlap::ep_overlap)
          .or_else(false)
          .settable()
          .report_if(ep_run)
          .desc("Hide the expert all-to-alls (dispatch, combine) of 1F1B's steady state behind the compute of the other "
                "micro-batch of each forward / backward pair (Megatron-Core overlap_moe_expert_parallel_comm, combined 1F1B); "
                "warm-up and cool-down passes expose theirs; needs ep > 1 and a 1F1B schedule."),
      integer("parallel/cp", &Degrees::cp, 1, 1 << 12)
          .unit("ranks")
          .or_else(1)
          .report_if([](const Workload& w) { return w.cp > 1; })
          .desc("Context-parallel degree: each sequence split over cp ranks (ring attention over K/V chunks beside the "
                "attention; activations divide by cp, gradients reduce over DP x CP); tp x pp x cp x dp = cores."),
      Row("parallel/pipeline_split", FieldType::Choice)
          .bind([](const Workload& w) { return json(split_name(w.pipeline_split)); }, [](Workload&, const json&) {})
          .copies([](Workload& to, const Workload& from) {  // with the layout and the explicit counts it implies
            to.pipeline_split = from.pipeline_split;
            to.pipeline_layout = from.pipeline_layout;
            to.layers_per_stage = from.layers_per_stage;
            to.layout_mtp = from.layout_mtp;
          })
          .choices({"even", "embedding_and_loss", "balanced", "explicit"})
          .reads(read_pipeline_split)
          .settable()
          .write_if([](const Workload& w) {
            return w.pipeline_split == Workload::PipelineSplit::EmbeddingAndLoss ||
                   w.pipeline_split == Workload::PipelineSplit::Balanced;
          })
          .default_is("even, or explicit when layers_per_stage is given")
          .desc("How layers split over the (virtual) pipeline stages: even (layers / (pp x vs)); embedding_and_loss "
                "(Megatron-Core: the embedding and the loss each take a layer's slot); balanced (as evenly as possible, extra "
                "layers on the middle stages: torchtitan / NxD style, an assumption); explicit (layers_per_stage)."),
      text("parallel/pipeline_layout", &Degrees::pipeline_layout)
          .or_else("")
          .reads(no_read)
          .report_if_changed()
          .desc("Megatron-Core's pipeline_model_parallel_layout: E embedding, t decoder layer, m multi-token-prediction "
                "module, L loss, '|' ends a (virtual) pipeline chunk, X*N repeats a symbol or a (group); spaces and commas "
                "ignored. One chunk per pp x virtual_stages, E in the first, m and L in the last (which may hold no t), e.g. "
                "\"Et|(tt|)*30mL\" for DeepSeek-V3 on PP 8 x VP 4. Sets the split; not with layers_per_stage or "
                "pipeline_split."),
      Row("parallel/layers_per_stage", FieldType::Integers)
          .bind([](const Workload& w) { return json(w.layers_per_stage); }, [](Workload&, const json&) {})
          .copies([](Workload&, const Workload&) {})  // with pipeline_split
          .reads(no_read)
          .unit("layers")
          .range(0, 100000)
          .write_if([](const Workload& w) {
            return w.pipeline_layout.empty() && w.pipeline_split == Workload::PipelineSplit::Explicit;
          })
          .desc("Layers of each (virtual) pipeline stage in order, pp x virtual_stages entries adding up to the model's "
                "layers."),
      number("parallel/moe_load_imbalance", &Moe::moe_load_imbalance, 1.0, 64.0)
          .unit("ratio")
          .or_else(1.0)
          .settable()
          .desc("Tokens the busiest expert gets over the balanced share (1: force-balanced routing)."),
      choice("parallel/moe_dispatcher", &Moe::moe_dispatcher,
             {{"alltoall", Workload::MoeDispatcher::AllToAll}, {"deepep", Workload::MoeDispatcher::PerDomain}})
          .or_else("alltoall")
          .settable()
          .report_if(ep_run)
          .desc("How MoE tokens reach their experts' ranks: alltoall (Megatron-Core's alltoall dispatcher) sends every "
                "routed copy to its expert's rank; deepep (the flex dispatcher with DeepEP / HybridEP) sends a token once per "
                "destination scale-up domain and forwards it over the intra-node links there, so only the token's distinct "
                "remote domains cross the network (fewer with the model's group-limited routing)."),
      choice("parallel/moe_grouped_gemm", &Moe::moe_grouped_gemm,
             {{"fused", Workload::MoeGroupedGemm::Fused}, {"per_expert", Workload::MoeGroupedGemm::PerExpert}})
          .or_else("fused")
          .settable()
          .desc("How a rank's experts run their GEMMs in eager execution: fused (one grouped-GEMM kernel for all local "
                "experts: CUTLASS grouped GEMM, torch._grouped_mm) or per_expert (Transformer Engine's GroupedLinear, used "
                "by Megatron-Core's TEGroupedMLP, launches one cuBLAS GEMM per local expert), which pays the host's "
                "dispatch time once per local expert."),
      choice("parallel/fsdp_shard", &Fsdp::fsdp_shard,
             {{"separate", Workload::FsdpShard::Separate}, {"master", Workload::FsdpShard::Master}})
          .or_else("separate")
          .settable()
          .report_if_changed()
          .desc("What a ZeRO-3 / FSDP rank keeps of its parameters between uses: separate, a BF16 shard beside the FP32 "
                "master shard (DeepSpeed ZeRO-3, Megatron); master, the sharded parameter is the FP32 master and BF16 "
                "copies exist only for the gathered units (PyTorch FSDP1 / FSDP2 mixed precision)."),
      flag("parallel/loss_parallel", &Kernels::loss_parallel)
          .or_else(true)
          .settable()
          .write_changed_or_stacked()
          .report_if_changed()
          .desc("Vocabulary-parallel loss: the logits stay split over TP through the cross-entropy. false: the logits are "
                "all-gathered over TP and every rank holds and reduces the full-vocabulary logits."),
      flag("parallel/sp_saves_gathered_inputs", &Memory::sp_saves_gathered_inputs)
          .or_else(false)
          .settable()
          .write_changed_or_stacked()
          .desc("Sequence parallelism as DTensor runs it (torchtitan, KempnerForge): autograd saves the all-gathered input "
                "of the column-parallel linears (q, k, v; gate, up; the LM head), the whole sequence on every TP rank "
                "(false: Megatron saves the sequence shard and gathers it again in backward). Memory only; no effect "
                "without sequence_parallel and TP > 1."),
      flag("parallel/fsdp_reshard_after_forward", &Fsdp::fsdp_reshard_after_forward)
          .or_else(true)
          .settable()
          .write_changed_or_stacked()
          .desc("ZeRO-3 / FSDP: free each unit's gathered parameters after its forward and gather them again for its "
                "backward (true: FSDP FULL_SHARD, FSDP2, DeepSpeed ZeRO-3); false keeps them gathered until the backward "
                "(SHARD_GRAD_OP): no second all-gather, the rank's whole parameters in memory."),
      integer("parallel/fsdp_prefetch", &Fsdp::fsdp_prefetch, 0, 8)
          .unit("units")
          .or_else(1)
          .settable()
          .write_changed_or_stacked()
          .desc("ZeRO-3 / FSDP: units gathered ahead of the one running (0 gathers each just before use)."),
      integer("parallel/grad_bucket_elements", &Overlap::grad_bucket_elements, 0, static_cast<double>(int64_t{1} << 40))
          .unit("elements")
          .or_else(0)
          .settable()
          .write_changed_or_stacked()
          .desc("Gradient elements per data-parallel reduction (0: one reduction per layer, bucketed DDP at layer "
                "granularity). N > 0: the layers' gradients fill flat buffers in backward order, each reduced once it holds "
                "N elements and the last after the final layer (DeepSpeed's allreduce_bucket_size, 500,000,000 by "
                "default)."),
      // batch
      integer("batch/micro_batch", &Batch::micro_batch, 1, 1 << 20)
          .unit("sequences")
          .required()
          .report()
          .desc("Sequences per micro-batch per replica."),
      integer("batch/global_batch", &Batch::global_batch, 1, 1 << 30)
          .unit("sequences")
          .required()
          .report()
          .desc("Sequences per optimizer step."),
      integer("batch/seq_len", &Batch::seq_len, 1, 1 << 22).unit("tokens").required().report().desc("Sequence length."),
      integer("batch/document_tokens", &Batch::document_tokens, 1, 1 << 22)
          .unit("tokens")
          .or_else(0)
          .report_if_changed()
          .default_is("seq_len (one document per sequence)")
          .desc("Documents packed into each sequence (packed fine-tuning samples, document masking): attention runs within "
                "a document (flash attention's variable-length form), so its cost follows this length, not seq_len. The "
                "cost-weighted mean (sum of squared lengths over their sum). Not with cp > 1."),
      // numerics
      choice("precision", &Numerics::precision, precision_names())
          .required()
          .report()
          .desc("bf16-sr: BF16 weights with stochastic rounding (Trainium); mixed-bf16: BF16 compute with FP32 master "
                "weights; fp32; fp8 / mxfp8 / nvfp4: mixed-bf16 whose transformer-block linear layers run their GEMMs on "
                "E4M3/E5M2 with per-tensor or per-row scales, E4M3 with per-32 E8M0 block scales, or E2M1 with per-16 E4M3 "
                "block scales (docs/precision.md)."),
      choice("fp8_recipe", &Numerics::fp8_recipe,
             {{"delayed", Fp8Recipe::Delayed}, {"current", Fp8Recipe::Current}, {"rowwise", Fp8Recipe::Rowwise}})
          .or_else("delayed")
          .settable()
          .reads([](const WorkloadField& f, JsonReader& r, Workload& w) {
            if (!r.has("fp8_recipe")) return;
            if (w.precision != Precision::FP8)
              r.fail("fp8_recipe", fmt::format("fp8_recipe applies to precision \"fp8\" only (this workload is \"{}\"); "
                                               "remove it", to_string(w.precision)));
            f.set(w, r.choice("fp8_recipe", f.choices));
          })
          .write_if([](const Workload& w) { return w.precision == Precision::FP8; })
          .report_if([](const Workload& w) { return w.precision == Precision::FP8; })
          .desc("Only with precision fp8: how scales are chosen. delayed: from an amax history (TE DelayedScaling); "
                "current: tensorwise from the tensor's own amax (TE Float8CurrentScaling, torchao tensorwise); rowwise: one "
                "scale per row (torchao rowwise)."),
      flag("fp8_param_gather", &Numerics::fp8_param_gather)
          .or_else(false)
          .settable()
          .report_if_changed()
          .desc("Only with precision fp8 or mxfp8 and parallel.zero 1 or 2 (Megatron-Core's fp8_param_gather with the "
                "distributed optimizer): the linear weights exist between steps only in their FP8 / MXFP8 form, with no "
                "BF16 copy (saves 2 bytes per linear weight). Per-tensor FP8 all-gathers the updated weights in FP8 (1 byte "
                "each); MXFP8 gathers them in BF16 into the free gradient buffer and quantizes there."),
      number("allocator/fragmentation", &Memory::allocator_fragmentation, 0.0, 0.9)
          .unit("fraction")
          .or_else(0.0)
          .settable()
          .write_changed_or_stacked()
          .desc("Memory the allocator holds beyond the peak of live tensors (block rounding, fragmentation), as a fraction "
                "of that peak: added to every stage's memory and so to what fits."),
      loop_count("loop/batch_launches", &Workload::Loop::batch_launches)
          .desc("Preparing a micro-batch on each stage that reads it (the first and the last): copies, broadcasts over TP, "
                "attention mask, loss mask, position ids; no backward."),
      loop_count("loop/loss_launches", &Workload::Loop::loss_launches)
          .desc("The loss's forward kernels beyond the cross-entropy's one (a vocabulary-parallel cross-entropy's pieces, "
                "loss masking, averaging over DP, gradient-accumulation scaling)."),
      loop_count("loop/loss_backward_launches", &Workload::Loop::loss_backward_launches)
          .desc("The loss's backward kernels beyond the cross-entropy backward's one."),
      integer("bf16_layers/first", &Numerics::bf16_first_layers, 0, 1 << 16)
          .unit("layers")
          .or_else(0)
          .write_if([](const Workload& w) { return w.has_bf16_layers(); })
          .report_if([](const Workload& w) { return w.has_bf16_layers(); }, "bf16_layers/first")
          .desc("The first N blocks."),
      integer("bf16_layers/last", &Numerics::bf16_last_layers, 0, 1 << 16)
          .unit("layers")
          .or_else(0)
          .write_if([](const Workload& w) { return w.has_bf16_layers(); })
          .report_if([](const Workload& w) { return w.has_bf16_layers(); }, "bf16_layers/last")
          .desc("The last N blocks."),
      Row("grad_dtype", FieldType::Choice)
          .bind([](const Workload& w) { return json(w.fp32_grads ? "fp32" : "bf16"); }, [](Workload&, const json&) {})
          .copies([](Workload& to, const Workload& from) { to.fp32_grads = from.fp32_grads; })
          .choices({"bf16", "fp32"})
          .reads([](const WorkloadField& f, JsonReader& r, Workload& w) {
            w.fp32_grads = r.choice_or("grad_dtype", w.precision == Precision::BF16_SR ? "bf16" : "fp32", f.choices) == "fp32";
          })
          .settable()
          .write_always()
          .report()
          .default_is("bf16 for bf16-sr, else fp32")
          .desc("Gradient type."),
      Row("master_weights", FieldType::Boolean)
          .bind([](const Workload& w) { return w.master_weights ? json(*w.master_weights) : json(); },
                [](Workload&, const json&) {})
          .copies([](Workload& to, const Workload& from) { to.master_weights = from.master_weights; })
          .reads([](const WorkloadField&, JsonReader& r, Workload& w) {
            if (r.has("master_weights")) w.master_weights = r.boolean("master_weights");
          })
          .settable()
          .write_if([](const Workload& w) { return w.master_weights.has_value(); })
          .report_if([](const Workload& w) { return w.master_weights.has_value(); })
          .default_is("true for mixed-bf16 / fp8 / mxfp8 / nvfp4, false for bf16-sr and fp32")
          .desc("An FP32 master copy of the parameters beside the compute-dtype ones, which the optimizer updates. false: "
                "pure BF16 training, the BF16 parameters are updated in place."),
      flag("master_remainders", &Numerics::master_remainders)
          .or_else(false)
          .settable()
          .desc("Keep the FP32 master as the 16 low bits beside the BF16 parameter, which holds the high ones: 2 bytes per "
                "trained parameter instead of 4 (Megatron-Core's precision-aware optimizer store_param_remainders, Apex "
                "DistributedFusedAdam store_param_remainders); a weight held only in FP8 / MXFP8 (fp8_param_gather) keeps "
                "a whole FP32 master. Needs an FP32 master."),
      choice("optimizer_state_dtype", &Numerics::optimizer_state_dtype, {{"fp32", DType::FP32}, {"bf16", DType::BF16}})
          .or_else("fp32")
          .settable()
          .report_if_changed()
          .desc("dtype of AdamW's first and second moments: fp32 (8 bytes per trained parameter) or bf16 (4 bytes: "
                "DeepSeek-V3's BF16 moments, Megatron-Core's --exp-avg-dtype / --exp-avg-sq-dtype bf16, torch.optim.AdamW on "
                "BF16 parameters)."),
      // recompute
      choice("checkpointing", &Recompute::checkpointing,
             {{"none", Checkpointing::None}, {"selective", Checkpointing::Selective}, {"full", Checkpointing::Full},
              {"op_selective", Checkpointing::OpSelective}})
          .required()
          .settable()
          .report()
          .desc("Activation recompute: none; selective (Megatron: recompute the attention core); full (keep only each "
                "block's input); op_selective (torchtitan's per-op selective AC: keep matmul and attention-kernel outputs "
                "except every second matmul of a block, recompute the rest)."),
      Row("op_selective_saved_formats", FieldType::Strings)
          .bind(
              [](const Workload& w) {
                json saved = json::array();
                for (DType d : kLowPrecisionDTypes)
                  if (w.op_selective_saves_gemm(d)) saved.push_back(to_string(d));
                return saved;
              },
              [](Workload&, const json&) {})
          .copies([](Workload& to, const Workload& from) { to.op_selective_saves = from.op_selective_saves; })
          .choices({"fp8", "mxfp8", "nvfp4"})
          .reads([](const WorkloadField&, JsonReader& r, Workload& w) {
            if (!r.has("op_selective_saved_formats")) return;
            if (w.checkpointing != Checkpointing::OpSelective)
              r.fail("op_selective_saved_formats",
                     fmt::format("names what per-op selective AC saves, and checkpointing is \"{}\"; remove "
                                 "op_selective_saved_formats or set checkpointing \"op_selective\"", to_string(w.checkpointing)));
            for (DType d : kLowPrecisionDTypes) w.op_selective_saves[static_cast<size_t>(d)] = false;
            for (const std::string& f : r.strings("op_selective_saved_formats")) {
              const auto d = std::find_if(kLowPrecisionDTypes.begin(), kLowPrecisionDTypes.end(),
                                          [&](DType x) { return f == to_string(x); });
              if (d != kLowPrecisionDTypes.end()) w.op_selective_saves[static_cast<size_t>(*d)] = true;
              else
                r.fail("op_selective_saved_formats", fmt::format("unknown format \"{}\"; list low-precision GEMM formats: fp8, "
                                                                 "mxfp8, nvfp4 (BF16 matmuls are always saved)", f));
            }
          })
          .settable()
          .write_if([](const Workload& w) {
            return w.checkpointing == Checkpointing::OpSelective &&
                   std::any_of(kLowPrecisionDTypes.begin(), kLowPrecisionDTypes.end(),
                               [&](DType d) { return !w.op_selective_saves_gemm(d); });
          })
          .default_is("all three")
          .desc("With checkpointing op_selective: the low-precision GEMM formats whose outputs the per-op policy saves as it "
                "saves BF16 matmuls (torchtitan's _save_list names aten.mm). A linear in a format not listed runs its GEMM "
                "through an op outside the policy's list: it is recomputed and keeps nothing, so its block keeps only its "
                "input and the attention kernel's output."),
      integer("checkpoint_every", &Recompute::checkpoint_every, 1, 1 << 16)
          .unit("layers")
          .or_else(1)
          .report_if_changed()
          .desc("Apply the checkpointing policy to every k-th layer only (layer index % k == 0; torchtitan's selective layer "
                "AC, selective_ac_option = \"k\"); the other layers keep all their activations. 1: every layer. Needs "
                "checkpointing other than none."),
      integer("checkpoint_layers", &Recompute::checkpoint_layers, 1, 1 << 16)
          .unit("layers")
          .or_else(0)
          .report_if_changed()
          .default_is("every layer")
          .desc("Apply the checkpointing policy to the first N layers of each pipeline chunk only (Megatron-Core's "
                "recompute_method \"block\" with recompute_num_layers N); the other layers keep all their activations. "
                "Needs checkpointing other than none."),
      // kernels
      flag("fused/qkv", &Kernels::fused_qkv).required().settable().report("fused_qkv").desc("One GEMM for Q, K and V."),
      flag("fused/gate_up", &Kernels::fused_gate_up)
          .required()
          .settable()
          .report("fused_gate_up")
          .desc("One GEMM for the MLP gate and up projections."),
      flag("fused/elementwise", &Kernels::fused_elementwise)
          .or_else(true)
          .settable()
          .write_always()
          .report("fused_elementwise")
          .desc("Element-wise chains (RMSNorm, rotary, SwiGLU) run as one kernel each: hand-fused kernels (TE, Apex, "
                "Megatron) or torch.compile. false: eager PyTorch, one kernel per ATen op, each with its own HBM round "
                "trip."),
      Row("fused/loss", FieldType::Choice)
          .bind([](const Workload& w) { return json(to_string(w.loss_kernel)); }, [](Workload&, const json&) {})
          .copies([](Workload& to, const Workload& from) { to.loss_kernel = from.loss_kernel; })
          .choices({"eager", "fused", "compiled"})
          .reads([](const WorkloadField& row, JsonReader& f, Workload& w) {
            const std::string loss = f.choice_or("loss", "auto", row.choices);
            w.loss_kernel = loss == "eager"      ? Workload::LossKernel::Eager
                            : loss == "compiled" ? Workload::LossKernel::Compiled
                            : loss == "fused"    ? Workload::LossKernel::Fused
                                                 : Workload::LossKernel::Auto;
          })
          .settable()
          // Written only when set: left to its default it follows fused.elementwise after a round trip.
          .write_if([](const Workload& w) { return w.loss_kernel != Workload::LossKernel::Auto; })
          .default_is("eager if elementwise is false, else fused")
          .desc("How the loss runs, which sets the memory at the loss: eager (PyTorch F.cross_entropy(logits.float()): the "
                "FP32 upcast beside the FP32 log-softmax kept for backward), fused (a loss kernel such as Megatron's "
                "vocab-parallel cross entropy: the FP32 log-softmax kept), compiled (torch.compile of the loss: one kernel "
                "keeping only the BF16 logits)."),
      choice("fused/softmax", &Kernels::softmax_kernel,
             {{"fused", Workload::SoftmaxKernel::Fused}, {"megatron", Workload::SoftmaxKernel::Megatron}})
          .or_else("fused")
          .settable()
          .write_changed_or_stacked()
          .desc("The unfused attention's softmax: fused (one kernel always) or megatron (Megatron's FusedScaleMaskSoftmax: "
                "its fused kernel where is_kernel_available() allows it, 16-bit input, 16 < sk <= 4096, sq and sk multiples "
                "of 4, micro-batch x local heads a multiple of 4 and of the kernel's batches per block; else PyTorch's chain "
                "of five kernels over FP32 scores, forward and backward). No effect with flash attention."),
      choice("attention", &Kernels::attention, {{"unfused", Attention::Unfused}, {"flash", Attention::Flash}})
          .or_else("unfused")
          .settable()
          .write_always()
          .report()
          .desc("Attention kernel."),
      choice("attention_kernel", &Kernels::attention_kernel,
             {{"native", AttentionKernel::Native}, {"flash2", AttentionKernel::Flash2}, {"flash1", AttentionKernel::Flash1}})
          .or_else("native")
          .settable()
          .report_if_changed()
          .desc("Implementation of the flash attention kernel (with attention \"flash\"): native = the chip's own best fused "
                "kernel (cuDNN / FlashAttention-3 class through Transformer Engine on NVIDIA Hopper and later, NKI on "
                "Trainium); flash2 = FlashAttention-2 (also PyTorch SDPA's flash backend), written for Ampere's "
                "instructions; flash1 = FlashAttention v1 and its 2022 Triton port. The hw file's tensor.attention_slowdown "
                "says how much slower a non-native kernel's GEMMs run on that chip."),
      // LoRA
      Row("lora/rank", FieldType::Integer)
          .bind([](const Workload& w) { return json(w.lora.rank); },
                [](Workload& w, const json& v) { w.lora.rank = v.get<int64_t>(); })
          .copies([](Workload& to, const Workload& from) { to.lora.rank = from.lora.rank; })
          .range(1, 1 << 16)
          .unit("dimensions")
          .required()
          .write_if([](const Workload& w) { return w.lora.active(); })
          .desc("Adapter rank r (NeMo / Megatron-Bridge default 32)."),
      Row("lora/targets", FieldType::Strings)
          .bind([](const Workload& w) { return json(lora_target_names(w)); }, [](Workload&, const json&) {})
          .copies([](Workload& to, const Workload& from) {
            to.lora.qkv = from.lora.qkv, to.lora.proj = from.lora.proj, to.lora.fc1 = from.lora.fc1, to.lora.fc2 = from.lora.fc2;
          })
          .choices({"linear_qkv", "linear_proj", "linear_fc1", "linear_fc2"})
          .reads([](const WorkloadField&, JsonReader& l, Workload& w) {
            if (!l.has("targets")) return;
            w.lora.qkv = w.lora.proj = w.lora.fc1 = w.lora.fc2 = false;
            for (const std::string& t : l.strings("targets")) {
              if (t == "linear_qkv") w.lora.qkv = true;
              else if (t == "linear_proj") w.lora.proj = true;
              else if (t == "linear_fc1") w.lora.fc1 = true;
              else if (t == "linear_fc2") w.lora.fc2 = true;
              else l.fail("targets", fmt::format("unknown target \"{}\"; use linear_qkv, linear_proj, linear_fc1 or linear_fc2", t));
            }
          })
          .write_if([](const Workload& w) { return w.lora.active(); })
          .default_is("all four")
          .desc("Linear layers that get an adapter, by Megatron-Core module name."),
      choice("price_plan", &Workload::price_plan, {{"on_demand", PricePlan::OnDemand}, {"reserved", PricePlan::Reserved}})
          .or_else("on_demand")
          .write_always()
          .report()
          .desc("Which price the report's cost uses first."),
  };
}

}  // namespace

const char* to_string(FieldType t) {
  switch (t) {
    case FieldType::String: return "string";
    case FieldType::Integer: return "integer";
    case FieldType::Number: return "number";
    case FieldType::Boolean: return "boolean";
    case FieldType::Choice: return "choice";
    case FieldType::Integers: return "integer list";
    case FieldType::Strings: return "string list";
  }
  return "?";
}

std::string WorkloadField::section() const {
  const auto slash = path.find('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}
std::string WorkloadField::key() const { return path.substr(path.find('/') + 1); }

const std::vector<WorkloadField>& workload_fields() {
  static const std::vector<WorkloadField> table = make_table();
  return table;
}

const std::vector<WorkloadSection>& workload_sections() {
  static const std::vector<WorkloadSection> sections = {
      {"parallel", true, "Parallel plan; tp x pp x cp x dp must equal the cores used."},
      {"batch", true, "Batch sizes; global_batch must be a multiple of dp x micro_batch."},
      {"allocator", false,
       "The caching allocator (PyTorch's and the like). Default: no reserve beyond the live tensors; a stack profile or "
       "the workload may declare one."},
      {"loop", false,
       "Kernels the training loop launches per micro-batch outside the model, each one host dispatch in eager execution "
       "(what a small, host-bound model pays per micro-batch beyond its layers). Default: none (the model's ops alone); a "
       "stack profile declares its loop's counts."},
      {"bf16_layers", false,
       "Only with precision fp8 / mxfp8 / nvfp4: transformer blocks whose linear layers stay in BF16 (GEMMs, saved "
       "inputs, no low-precision weight copies), the first and the last ones: recipes that keep the model's ends in high "
       "precision (torchtitan's NVFP4 recipe keeps the last 5 of Llama 3 8B's 32 blocks and the last 6 of Qwen3 8B's 36). "
       "At most the model's layer count together."},
      {"fused", true, "Fused projections and kernels."},
      {"lora", false,
       "Low-rank adaptation: every base parameter frozen (no weight gradients, no gradient reduction, no optimizer states "
       "for them); each targeted linear layer gains a trainable rank-r path x.A.B. Dense attention / MLP models only."},
  };
  return sections;
}

const WorkloadField& workload_field(const std::string& path) {
  for (const auto& f : workload_fields())
    if (f.path == path) return f;
  throw std::out_of_range("no workload field " + path);
}

const WorkloadField& workload_report_field(const std::string& report_key) {
  for (const auto& f : workload_fields())
    if (f.report_key == report_key) return f;
  throw std::out_of_range("no workload field reported as " + report_key);
}

bool workload_reports(const Workload& w, const std::string& report_key) { return workload_report_field(report_key).report_when(w); }

const WorkloadSection& workload_section(const std::string& name) {
  for (const auto& s : workload_sections())
    if (s.name == name) return s;
  throw std::out_of_range("no workload section " + name);
}

nlohmann::json workload_fields_json() {
  json out = json::array();
  for (const auto& f : workload_fields()) {
    json row = {{"path", f.path}, {"type", to_string(f.type)}, {"stack_settable", f.stack_settable},
                {"required", f.required}, {"description", f.description}};
    if (!f.unit.empty()) row["unit"] = f.unit;
    if (!f.default_text.empty()) row["default"] = f.default_text;
    else if (!f.fallback.is_null()) row["default"] = f.fallback;
    if (f.min) row["min"] = *f.min;
    if (f.max) row["max"] = *f.max;
    if (!f.choices.empty()) row["choices"] = f.choices;
    if (!f.report_key.empty()) row["report_key"] = f.report_key;
    out.push_back(row);
  }
  return out;
}

namespace {

using ojson = nlohmann::ordered_json;  // the schema keeps the table's order

// A bound as the schema writes it: an integer for integer fields.
ojson bound(const WorkloadField& f, double v) {
  return f.type == FieldType::Number ? ojson(v) : ojson(static_cast<int64_t>(v));
}

ojson property(const WorkloadField& f) {
  ojson p;
  std::string description = f.description;
  switch (f.type) {
    case FieldType::String: p["type"] = "string"; break;
    case FieldType::Integer:
    case FieldType::Number: p["type"] = f.type == FieldType::Number ? "number" : "integer"; break;
    case FieldType::Boolean: p["type"] = "boolean"; break;
    case FieldType::Choice: p["type"] = "string", p["enum"] = f.choices; break;
    case FieldType::Integers: {
      p["type"] = "array";
      p["minItems"] = 1;
      ojson items = {{"type", "integer"}};
      if (f.min) items["minimum"] = bound(f, *f.min);
      if (f.max) items["maximum"] = bound(f, *f.max);
      p["items"] = items;
      break;
    }
    case FieldType::Strings:
      p["type"] = "array";
      p["minItems"] = 1;
      p["items"] = {{"type", "string"}, {"enum", f.choices}};
      break;
  }
  if (f.type == FieldType::Integer || f.type == FieldType::Number) {
    if (f.min) p["minimum"] = bound(f, *f.min);
    if (f.max) p["maximum"] = bound(f, *f.max);
  }
  // Names, not paths.
  if (f.path == "model" || f.path == "hw") p["pattern"] = "^[A-Za-z0-9_-][A-Za-z0-9._-]*$";
  if (f.path == "stack") p["pattern"] = "^[a-z0-9_-][a-z0-9._-]*$";
  if (f.path == "parallel/pipeline_layout") p["minLength"] = 1;
  // A default the schema can state: one value the field accepts.
  const bool in_range = f.fallback.is_number() ? (!f.min || f.fallback.get<double>() >= *f.min) &&
                                                     (!f.max || f.fallback.get<double>() <= *f.max)
                        : f.fallback.is_string() ? f.choices.empty()
                                                       ? !f.fallback.get<std::string>().empty()
                                                       : std::find(f.choices.begin(), f.choices.end(),
                                                                   f.fallback.get<std::string>()) != f.choices.end()
                                                 : f.fallback.is_boolean();
  if (f.default_text.empty() && in_range) p["default"] = f.fallback;
  if (!f.default_text.empty()) description += " Default: " + f.default_text + ".";
  if (!f.unit.empty()) {
    p["x-unit"] = f.unit;
    description += " Unit: " + f.unit + ".";
  }
  p["description"] = description;
  return p;
}

}  // namespace

nlohmann::ordered_json workload_schema_properties(bool settable_only) {
  ojson props = ojson::object();
  if (!settable_only) {  // keys the reader skips: documentation only
    props["$schema"] = {{"type", "string"}, {"description", "JSON Schema of this file (ignored by trnsim)."}};
    props["notes"] = {{"description", "Free-form notes (ignored by trnsim)."}};
  }
  for (const auto& f : workload_fields()) {
    if (settable_only && !f.stack_settable) continue;
    const std::string section = f.section();
    if (!section.empty() && !props.contains(section)) {
      props[section] = {{"type", "object"}, {"additionalProperties", false}, {"description", workload_section(section).description},
                        {"properties", ojson::object()}};
      ojson required = ojson::array();  // in a stack profile nothing is required
      for (const auto& g : workload_fields())
        if (!settable_only && g.section() == section && g.required && !g.stack_settable) required.push_back(g.key());
      if (!required.empty()) props[section]["required"] = required;
    }
    if (section.empty()) props[f.path] = property(f);
    else props[section]["properties"][f.key()] = property(f);
  }
  return props;
}

nlohmann::ordered_json workload_schema_required() {
  ojson always = ojson::array(), unless_stack = ojson::array(), inner = ojson::object();
  for (const auto& s : workload_sections()) {
    bool own = false, from_stack = false;
    for (const auto& f : workload_fields())
      if (f.section() == s.name && f.required) (f.stack_settable ? from_stack : own) = true;
    if (s.required && own) always.push_back(s.name);
    else if (s.required && from_stack) unless_stack.push_back(s.name);
  }
  for (const auto& f : workload_fields()) {
    if (!f.required) continue;
    const std::string section = f.section();
    if (section.empty()) (f.stack_settable ? unless_stack : always).push_back(f.path);
    else if (f.stack_settable) inner[section]["required"].push_back(f.key());
  }
  // What a stack profile may supply is required only of a workload that names none.
  ojson then = {{"required", unless_stack}, {"properties", inner}};
  return {{"required", always}, {"allOf", ojson::array({{{"if", {{"not", {{"required", {"stack"}}}}}}, {"then", then}}})}};
}

}  // namespace trnsim
