// neuron_trn1.cpp — the validation adapter of one dataset (dataset_common.hpp has the rules).
// AWS Neuron docs' trn1 training tables. One rule for the layout: DP = nodes x cores / (TP x PP)
// (the docs' definition; some rows print a DP that does not multiply out). Instance: the
// docs never say trn1 or trn1n; trn1.32xlarge (the slower network) is assumed for all. Rows of
// the same table format on Trainium2 / Trainium3 (none in the corpus yet) run on the trn2 / trn2u /
// trn3 / trn3u files, with the cores a node has at its default LNC (64 logical NeuronCores: the
// ranks torchrun and the docs count): NxD / NeMo rows as torch-xla (lazy, the file's trace cost;
// not on Trainium3, which came after PyTorch/XLA ended with Neuron 2.30), TorchTitan / TorchNeuron
// rows with the torchneuron profile.
// Per-stack facts (frameworks.md §4, §5, §7):
//   All rows: torch-xla (lazy tensors), one traced graph per micro-step, run asynchronously
//     while the host traces the next (the hw file's host.trace_us, fitted for the family).
//   GPT-3 (Megatron-LM reference, neuronx-nemo-megatron): BF16+SR, no ZeRO, full recompute
//     (test.sh default) except GPT3-175B selective (gpt_175b.sh); SP on for NeMo-Megatron;
//     sequence 2048 (GPT-3's context; stated from 2024 on).
//   Llama-3.1 (NxD, SDK 2.20+): mixed precision with FP32 optimizer, ZeRO-1, SP, selective
//     recompute, NKI flash attention (default on from SDK 2.19), sequence 8192 (stated).
//   GPT-3 and BERT: unfused attention (NNM's flash option defaults off; HF BERT is stock).
//   DP gradients: reduced once per step, after the backward and not beside it, on every stack
//     here: NNM and Megatron-LM's local DDP after the micro-batch loop (§4 c, §1 c), HF BERT after
//     the loop's mark_step (§7 c), NxD where the compiler puts ZeRO's reduce-scatter, at the end
//     of the backward (§5 c).
//   BERT-Large phase 2 (HF): pure DP, no recompute, separate Q / K / V projections (stock HF
//     BertSelfAttention);
//     sequence 512 (the phase-2 recipe; the printed "128" contradicts micro-batch 2 vs
//     phase 1's 16 at 128 and is taken as a table error).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "dataset_common.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim::datasets {
namespace {
// The hw file a row's instance runs on, whether it runs torch-xla (lazy tracing), or why it cannot.
struct Instance {
  std::string hw;
  bool xla = true;
  std::string not_expressible;
};
Instance instance_of(const std::string& cell, const std::string& library) {
  const bool torchneuron = contains(library, "TorchTitan") || contains(library, "TorchNeuron");
  const bool ultra = contains(cell, "trn2u") || contains(cell, "trn3u") || contains(cell, "UltraServer");
  if (cell.empty() || contains(cell, "trn1")) return {"trn1.32xlarge", true, ""};
  if (contains(cell, "trn2")) return {ultra ? "trn2u.48xlarge" : "trn2.48xlarge", !torchneuron, ""};
  if (contains(cell, "trn3")) {
    if (!torchneuron)
      return {"", false, "NxD / NeMo (torch-xla) on Trainium3: PyTorch/XLA ended with Neuron 2.30, before Trainium3"};
    return {ultra ? "trn3u.48xlarge" : "trn3.48xlarge", false, ""};
  }
  return {"", false, "instance \"" + cell + "\": not a Trainium instance (trn1, trn2, trn3) this adapter maps"};
}
}  // namespace

std::vector<ValidationCase> neuron_trn1(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  const std::string data = data_dir();
  for (size_t r = 0; r < t.rows(); ++r) map_row(out, "aws_neuron_trn1", Metric::ClusterSeqPerS, r, [&] {
    const std::string name = t.at(r, "model");
    const std::string prec = t.at(r, "precision");
    const int64_t nodes = inum(t, r, "nodes"), tp = inum(t, r, "TP"), pp = inum(t, r, "PP");
    const int64_t mb = inum(t, r, "micro_batch"), gb = inum(t, r, "global_batch_seqs");
    const Instance inst = instance_of(t.at(r, "instance_type"), t.at(r, "library"));
    const int64_t cores = inst.hw.empty() ? 32 : cores_per_node_of(inst.hw);
    const int64_t dp = tp > 0 && pp > 0 ? nodes * cores / (tp * pp) : 0;
    ValidationCase c;
    c.dataset = "aws_neuron_trn1";
    c.row = static_cast<int>(r + 1);
    c.family = "trainium";
    c.model_name = name;
    c.quantity = Metric::ClusterSeqPerS;
    c.measured = num(t, r, "throughput_seq_per_s");
    c.label = fmt::format("{} {} nodes TP{} PP{} SDK {}", name, nodes, tp, pp, t.at(r, "neuron_sdk_version"));
    if (!t.at(r, "neuron_sdk_version").empty()) c.release = "SDK " + t.at(r, "neuron_sdk_version");
    c.gpus = nodes * cores, c.tp = tp, c.pp = pp;
    ModelSpec m;
    int64_t seq = 0;
    Workload w;
    // A row of an instance trnsim has no file for, or whose degrees cannot split the nodes' cores,
    // is not mapped.
    if (!inst.not_expressible.empty()) {
      c.not_expressible = inst.not_expressible;
      out.push_back(c);
      return;
    }
    if (inst.hw != "trn1.32xlarge") c.label += " on " + inst.hw;
    if (nodes < 1 || tp < 1 || pp < 1 || dp < 1) {
      c.not_expressible = "published layout inconsistent: a node count or parallel degree below 1, or TP x PP above the cores";
      out.push_back(c);
      return;
    }
    if (contains(name, "BERT-Large")) {
      m = load_model_spec(data + "/models/bert-large.json");
      seq = 512;
    } else if (contains(name, "6.7B")) {
      m = megatron_gpt("gpt3-6.7b", 32, 4096, 32, 16384, 2048, 50257);
      seq = 2048;
    } else if (contains(name, "175B")) {
      m = megatron_gpt("gpt3-175b", 96, 12288, 96, 49152, 2048, 50257);
      seq = 2048;
    } else if (contains(name, "405B")) {
      m = llama3("llama3.1-405b", 126, 16384, 128, 53248);
      seq = 8192;
    } else if (contains(name, "8B")) {
      m = llama3("llama3.1-8b", 32, 4096, 32, 14336);
      seq = 8192;
    } else if (contains(name, "70B")) {
      m = llama3("llama3.1-70b", 80, 8192, 64, 28672);
      seq = 8192;
    } else if (contains(name, "46B")) {
      c.not_expressible = "model shape not published (GPT3-46B layers/hidden not in the sources)";
    } else {
      c.not_expressible = "vision / perceiver model (no such model kind)";
    }
    // A topology string without a pipeline degree is read as PP 1; where that layout cannot hold
    // even the model's BF16 weights, the string is inconsistent (one row: GPT3-175B at TP 8, 44 GB
    // of weights per 16 GB NeuronCore; the next version of the table gives the same figure at
    // TP 32 x PP 8).
    if (c.not_expressible.empty() && contains(t.at(r, "notes"), "PP not stated") &&
        states_exceed_hbm(m, 2.0, tp, inst.hw))
      c.not_expressible = fmt::format("published layout inconsistent: TP {} with the pipeline degree not stated cannot hold the model's BF16 weights", tp);
    if (c.not_expressible.empty()) build_row(c, [&] {
      w = workload(file, r, m, inst.hw, nodes, tp, pp, dp, mb, gb, seq);
      if (contains(prec, "FP32Optimizer")) {
        w.precision = Precision::MixedBF16;
      } else if (prec == "FP32") {
        w.precision = Precision::FP32;
        w.fp32_grads = true;
      } else {
        w.precision = Precision::BF16_SR;
      }
      if (!inst.xla) {
        w = with_stack(w, stack_profile("torchneuron"));  // TorchTitan Neuron: FSDP2, compiled by default
      } else if (contains(name, "BERT")) {
        w.checkpointing = Checkpointing::None;
        w.fused_qkv = false;  // HF BertSelfAttention: separate query / key / value Linear layers
        w.overlap_dp = false;  // xm.reduce_gradients after the loop's mark_step (frameworks.md 7 c)
      } else if (contains(name, "Llama")) {
        w = with_stack(w, stack_profile("nxd"));  // NKI flash from SDK 2.19 (rows: 2.20+), ZeRO-1, SP, selective
      } else if (contains(t.at(r, "library"), "NeMo")) {
        w = with_stack(w, stack_profile("neuronx-nemo-megatron"));
        if (contains(name, "175B")) w.checkpointing = Checkpointing::Selective;  // gpt_175b.sh
      } else {
        w.checkpointing = contains(name, "175B") ? Checkpointing::Selective : Checkpointing::Full;
        w.sequence_parallel = contains(t.at(r, "library"), "NeMo");
        w.overlap_dp = false;  // Megatron-LM's local DDP: one all-reduce after the schedule (frameworks.md 1 c)
      }
      if (inst.xla && inst.hw != "trn1.32xlarge") w.execution = "lazy";  // torch-xla on Trainium2 (the file's default is TorchNeuron's)
      c.has_workload = true;
      c.workload = w;
      c.model = m;
      c.model_name = m.name;
      fill_features(c);
    });
    out.push_back(c);
  });
  return out;
}

}  // namespace trnsim::datasets
