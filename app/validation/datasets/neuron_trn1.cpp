// neuron_trn1.cpp — the validation adapter of one dataset (dataset_common.hpp has the rules).
// AWS Neuron docs' trn1 training tables. One rule for the layout: DP = nodes x 32 / (TP x PP)
// (the docs' definition; some rows print a DP that does not multiply out). Instance: the
// docs never say trn1 or trn1n; trn1.32xlarge (the slower network) is assumed for all.
// Per-stack facts (frameworks.md §4, §5, §7):
//   All rows: torch-xla (lazy tensors), one traced graph per micro-step, run asynchronously
//     while the host traces the next (the hw file's host.trace_us, fitted for the family).
//   GPT-3 (Megatron-LM reference, neuronx-nemo-megatron): BF16+SR, no ZeRO, full recompute
//     (test.sh default) except GPT3-175B selective (gpt_175b.sh); SP on for NeMo-Megatron;
//     sequence 2048 (GPT-3's context; stated from 2024 on).
//   Llama-3.1 (NxD, SDK 2.20+): mixed precision with FP32 optimizer, ZeRO-1, SP, selective
//     recompute, NKI flash attention (default on from SDK 2.19), sequence 8192 (stated).
//   GPT-3 and BERT: unfused attention (NNM's flash option defaults off; HF BERT is stock).
//   BERT-Large phase 2 (HF): pure DP, no recompute, separate Q / K / V projections (stock HF
//     BertSelfAttention), gradients reduced once per step;
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
std::vector<ValidationCase> neuron_trn1(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  const std::string data = data_dir();
  for (size_t r = 0; r < t.rows(); ++r) map_row(out, "aws_neuron_trn1", Metric::ClusterSeqPerS, r, [&] {
    const std::string name = t.at(r, "model");
    const std::string prec = t.at(r, "precision");
    const int64_t nodes = inum(t, r, "nodes"), tp = inum(t, r, "TP"), pp = inum(t, r, "PP");
    const int64_t mb = inum(t, r, "micro_batch"), gb = inum(t, r, "global_batch_seqs");
    const int64_t dp = tp > 0 && pp > 0 ? nodes * 32 / (tp * pp) : 0;
    ValidationCase c;
    c.dataset = "aws_neuron_trn1";
    c.row = static_cast<int>(r + 1);
    c.family = "trainium";
    c.model_name = name;
    c.quantity = Metric::ClusterSeqPerS;
    c.measured = num(t, r, "throughput_seq_per_s");
    c.label = fmt::format("{} {} nodes TP{} PP{} SDK {}", name, nodes, tp, pp, t.at(r, "neuron_sdk_version"));
    c.gpus = nodes * 32, c.tp = tp, c.pp = pp;
    ModelSpec m;
    int64_t seq = 0;
    Workload w;
    // The tables' rows are trn1 (instance "trn1.32xlarge/trn1n.32xlarge" or not stated); a row of
    // another instance, or one whose degrees cannot split the nodes' 32 cores each, is not mapped.
    const std::string instance = t.at(r, "instance_type");
    if (!instance.empty() && !contains(instance, "trn1")) {
      c.not_expressible = "instance \"" + instance + "\": this adapter maps the trn1 tables' rows (trn1.32xlarge / trn1n.32xlarge)";
      out.push_back(c);
      return;
    }
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
        states_exceed_hbm(m, 2.0, tp, "trn1.32xlarge"))
      c.not_expressible = fmt::format("published layout inconsistent: TP {} with the pipeline degree not stated cannot hold the model's BF16 weights", tp);
    if (c.not_expressible.empty()) build_row(c, [&] {
      w = workload(file, r, m, "trn1.32xlarge", nodes, tp, pp, dp, mb, gb, seq);
      if (contains(prec, "FP32Optimizer")) {
        w.precision = Precision::MixedBF16;
      } else if (prec == "FP32") {
        w.precision = Precision::FP32;
        w.fp32_grads = true;
      } else {
        w.precision = Precision::BF16_SR;
      }
      if (contains(name, "BERT")) {
        w.checkpointing = Checkpointing::None;
        w.fused_qkv = false;  // HF BertSelfAttention: separate query / key / value Linear layers
      } else if (contains(name, "Llama")) {
        w = with_stack(w, stack_profile("nxd"));  // NKI flash from SDK 2.19 (rows: 2.20+), ZeRO-1, SP, selective
      } else if (contains(t.at(r, "library"), "NeMo")) {
        w = with_stack(w, stack_profile("neuronx-nemo-megatron"));
        if (contains(name, "175B")) w.checkpointing = Checkpointing::Selective;  // gpt_175b.sh
      } else {
        w.checkpointing = contains(name, "175B") ? Checkpointing::Selective : Checkpointing::Full;
        w.sequence_parallel = contains(t.at(r, "library"), "NeMo");
      }
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
