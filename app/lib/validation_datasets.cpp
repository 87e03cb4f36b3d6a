// validation_datasets.cpp — one mapping per dataset of the validation corpus, from its CSV
// columns to a workload in trnsim's own schema (see validation_case.hpp).
//
// Rules every mapping follows:
//   * a row's stated configuration is used as stated; what its source leaves unstated is a
//     structural assumption of the whole dataset (the `kStack*` blocks below, each with its
//     evidence in ../shared/reference/frameworks.md), never a per-row choice;
//   * a row trnsim cannot write down gets `not_expressible` naming every missing feature,
//     and is counted, never dropped;
//   * no mapping reads a measured figure except into `measured`.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "cli_args.hpp"
#include "csv_table.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"
#include "validation_case.hpp"

namespace trnsim {

const char* to_string(Metric q) {
  switch (q) {
    case Metric::IterationTime: return "iteration_time";
    case Metric::ClusterSeqPerS: return "cluster_seq_per_s";
    case Metric::TokensPerSPerGpu: return "tokens_per_s_per_gpu";
    case Metric::StatesGiB: return "states_memory";
    case Metric::ActivationsGiB: return "activation_memory";
    case Metric::ActivationPctOfNone: return "activation_pct_of_none";
  }
  return "?";
}
const char* unit_of(Metric q) {
  switch (q) {
    case Metric::IterationTime: return "s";
    case Metric::ClusterSeqPerS: return "seq/s";
    case Metric::TokensPerSPerGpu: return "tokens/s/GPU";
    case Metric::StatesGiB:
    case Metric::ActivationsGiB: return "GiB";
    case Metric::ActivationPctOfNone: return "%";
  }
  return "?";
}
bool is_performance(Metric q) {
  return q == Metric::IterationTime || q == Metric::ClusterSeqPerS || q == Metric::TokensPerSPerGpu;
}

namespace {

double num(const CsvTable& t, size_t r, const std::string& col) {
  const std::string& s = t.at(r, col);
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == 0 || !std::isfinite(v)) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw ConfigError(fmt::format("{}: row {}: column \"{}\" is \"{}\", not a number; fix the CSV", t.file(), r + 1, col, s));
  }
}
int64_t inum(const CsvTable& t, size_t r, const std::string& col) { return std::llround(num(t, r, col)); }
bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Megatron-LM GPT (Korthikanti, vTrain, neuronx-nemo-megatron GPT-3): GeLU MLP, LayerNorm,
// biases, learned positions, tied embeddings, dropout 0.1 (Megatron's default
// --hidden-dropout / --attention-dropout), padded GPT-2 vocabulary 51200 unless given.
ModelSpec megatron_gpt(const std::string& name, int64_t layers, int64_t hidden, int64_t heads, int64_t ffn,
                       int64_t seq, int64_t vocab = 51200) {
  ModelSpec m;
  m.name = name;
  m.file = "(built from the validation corpus)";
  m.layers = layers, m.hidden = hidden, m.heads = heads, m.kv_heads = heads, m.ffn = ffn, m.vocab = vocab;
  m.max_seq = seq;
  m.activation = Activation::GeLU;
  m.norm = NormKind::LayerNorm;
  m.tied_embeddings = true;
  m.biases = true;
  m.dropout = 0.1;
  m.learned_positions = seq;
  m.public_parameters = static_cast<double>(m.total_parameters());
  return m;
}

// Llama 3 / 3.1 (Meta's released config.json): SwiGLU, RMSNorm, rotary, GQA with 8 KV
// heads, untied 128,256-token vocabulary, no biases, no dropout.
ModelSpec llama3(const std::string& name, int64_t layers, int64_t hidden, int64_t heads, int64_t ffn) {
  ModelSpec m;
  m.name = name;
  m.file = "(built from the validation corpus)";
  m.layers = layers, m.hidden = hidden, m.heads = heads, m.kv_heads = 8, m.ffn = ffn, m.vocab = 128256;
  m.max_seq = 131072;
  m.rotary_fraction = 1.0;
  m.public_parameters = static_cast<double>(m.total_parameters());
  return m;
}

Workload workload(const std::string& file, size_t row, const ModelSpec& m, const std::string& hw, int64_t nodes,
                  int64_t tp, int64_t pp, int64_t dp, int64_t mb, int64_t gb, int64_t seq) {
  Workload w;
  w.file = fmt::format("{}: row {}", file, row + 1);
  w.name = fmt::format("{}_row{}", std::filesystem::path(file).stem().string(), row + 1);
  w.model = m.name;
  w.hw = hw;
  w.nodes = nodes;
  w.tp = tp, w.pp = pp, w.dp = dp;
  w.micro_batch = mb, w.global_batch = gb, w.seq_len = seq;
  w.fused_qkv = true, w.fused_gate_up = true;
  return w;
}

void fill_features(ValidationCase& c) {
  if (!c.has_workload) return;
  c.params_b = static_cast<double>(c.model.total_parameters()) / 1e9;
  c.tp = c.workload.tp, c.pp = c.workload.pp, c.seq = c.workload.seq_len;
  c.gpus = c.workload.devices();
}

// ---------------------------------------------------------------------------------------
// Korthikanti et al. 2022 on NVIDIA Selene (DGX A100 80GB), Megatron-LM mid-2022.
// Stack facts (frameworks.md §1): unfused attention with fused softmax; fp16 with fp32 main
// params and grads (mixed precision; fp16 costs what bf16 does); DP 1; 1F1B, interleaved
// where the row says so; "full" = full-layer recompute, "attn_only" = selective; backward TP
// communication overlapped with weight-gradient GEMMs (async TP all-reduce, default-on since
// 2021-09; with SP the all-gather/reduce-scatter overlap); forward TP collectives exposed.
std::vector<ValidationCase> korthikanti(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  for (size_t r = 0; r < t.rows(); ++r) {
    const std::string item = t.at(r, "paper_item");
    const int64_t seq = inum(t, r, "seq_len");
    const ModelSpec m = megatron_gpt(t.at(r, "model"), inum(t, r, "layers"), inum(t, r, "hidden"), inum(t, r, "heads"),
                                     inum(t, r, "ffn"), seq);
    const int64_t gpus = inum(t, r, "gpus"), tp = inum(t, r, "TP"), pp = inum(t, r, "PP"), dp = inum(t, r, "DP");
    Workload w = workload(file, r, m, "dgx-a100-80g", gpus / 8, tp, pp, dp, inum(t, r, "micro_batch"),
                          inum(t, r, "global_batch"), seq);
    w.precision = Precision::MixedBF16;
    w.fp32_grads = true;
    w.sequence_parallel = t.at(r, "sequence_parallel") == "yes";
    const std::string rc = t.at(r, "activation_recompute");
    w.checkpointing = rc == "full" ? Checkpointing::Full : rc == "attn_only" ? Checkpointing::Selective : Checkpointing::None;
    w.virtual_stages = inum(t, r, "pipeline_interleaving");
    w.tp_overlap = true;  // async TP all-reduce (on by default since 2021-09) / SP's AG-dgrad, RS-wgrad overlap
    w.pp_scatter_gather = true;  // scatter_gather_tensors_in_pipeline, default on (frameworks.md §1 d)
    ValidationCase c;
    c.dataset = "korthikanti2022";
    c.row = static_cast<int>(r + 1);
    c.family = "a100";
    c.model_name = m.name;
    c.label = fmt::format("{} {} TP{} PP{} VP{}", m.name, t.at(r, "mode_label"), tp, pp, w.virtual_stages);
    c.has_workload = true;
    c.workload = w;
    c.model = m;
    fill_features(c);
    if (contains(item, "Table 5")) {
      c.quantity = Metric::IterationTime;
      c.measured = num(t, r, "measured_iteration_time_s");
      out.push_back(c);
    } else if (contains(item, "Figure 1")) {
      c.quantity = Metric::StatesGiB;
      c.measured = num(t, r, "measured_params_grads_optimizer_GiB");
      out.push_back(c);
      c.quantity = Metric::ActivationsGiB;
      c.measured = num(t, r, "measured_activations_GiB");
      out.push_back(c);
    } else if (contains(item, "Figure 7")) {
      c.quantity = Metric::ActivationPctOfNone;
      c.measured = num(t, r, "measured_activation_pct_of_none");
      out.push_back(c);
    } else {
      throw ConfigError(fmt::format("{}: row {}: unknown paper_item \"{}\"; extend the mapping", file, r + 1, item));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// vTrain (Megatron-DeepSpeed on A100, 8 GPUs per node), multi-node and single-node files.
// Stack facts (frameworks.md §2): unfused attention + fused softmax; fp16 mixed precision;
// use_checkpoint true = full recompute; 1F1B; gradients reduced once per step after the
// last micro-batch, not overlapped ("no gradient bucketing"); no TP overlap (--deepspeed
// forces async TP all-reduce off). Assumed (not stated): no
// ZeRO, no sequence parallelism, GPT vocabulary 51200, FFN 4h.
std::vector<ValidationCase> vtrain(const std::string& file, const std::string& dataset) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  for (size_t r = 0; r < t.rows(); ++r) {
    const int64_t h = inum(t, r, "hidden size"), a = inum(t, r, "attention heads"), L = inum(t, r, "# layers");
    const int64_t seq = inum(t, r, "sequence length"), gpus = inum(t, r, "# GPUs");
    const ModelSpec m = megatron_gpt(fmt::format("gpt-h{}-l{}", h, L), L, h, a, 4 * h, seq);
    const int64_t tp = inum(t, r, "tensor parallelism"), pp = inum(t, r, "pipeline parallelism"),
                  dp = inum(t, r, "data parallelism");
    const int64_t nodes = std::max<int64_t>(1, gpus / 8);
    Workload w = workload(file, r, m, "vtrain-a100", nodes, tp, pp, dp, inum(t, r, "micro batch"),
                          inum(t, r, "global batch"), seq);
    if (gpus < 8) w.cores_per_node = gpus;
    w.precision = Precision::MixedBF16;
    w.fp32_grads = true;
    w.checkpointing = Checkpointing::Full;
    w.overlap_dp = false;
    ValidationCase c;
    c.dataset = dataset;
    c.row = static_cast<int>(r + 1);
    c.family = "a100";
    c.model_name = m.name;
    c.label = fmt::format("{} {} GPUs TP{} PP{} DP{} mb{}", m.name, gpus, tp, pp, dp, w.micro_batch);
    c.has_workload = true;
    c.workload = w;
    c.model = m;
    c.quantity = Metric::IterationTime;
    c.measured = num(t, r, "iteration time (ms)") / 1000.0;
    fill_features(c);
    out.push_back(c);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
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
std::vector<ValidationCase> neuron_trn1(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  const std::string data = data_dir();
  for (size_t r = 0; r < t.rows(); ++r) {
    const std::string name = t.at(r, "model");
    const std::string prec = t.at(r, "precision");
    const int64_t nodes = inum(t, r, "nodes"), tp = inum(t, r, "TP"), pp = inum(t, r, "PP");
    const int64_t mb = inum(t, r, "micro_batch"), gb = inum(t, r, "global_batch_seqs");
    const int64_t dp = nodes * 32 / (tp * pp);
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
    if (c.not_expressible.empty()) {
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
        w.checkpointing = Checkpointing::Selective;
        w.sequence_parallel = true;
        w.zero = 1;
        w.attention = Attention::Flash;  // NxD examples call the NKI flash kernel from SDK 2.19 (rows: 2.20+)
      } else {
        w.checkpointing = contains(name, "175B") ? Checkpointing::Selective : Checkpointing::Full;
        w.sequence_parallel = contains(t.at(r, "library"), "NeMo");
      }
      c.has_workload = true;
      c.workload = w;
      c.model = m;
      c.model_name = m.name;
      fill_features(c);
    }
    out.push_back(c);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// NVIDIA NeMo / Megatron-Bridge performance tables (H100 → GB300). Stack facts
// (frameworks.md §3): Transformer Engine with fused (flash/cuDNN) attention, distributed
// optimizer (ZeRO-1), SP with TP > 1, mixed precision with FP32 master weights. Measured:
// tokens/s/GPU. Rows are written only when every feature they use exists in trnsim; the
// blockers are listed in a fixed order.
struct NemoShape {
  const char* key;
  int64_t layers, hidden, heads, kv, ffn, vocab;
  bool swiglu;
};
const NemoShape kNemoShapes[] = {
    {"LLAMA2-7B", 32, 4096, 32, 32, 11008, 32000, true},    {"LLAMA2-13B", 40, 5120, 40, 40, 13824, 32000, true},
    {"LLAMA2-70B", 80, 8192, 64, 8, 28672, 32000, true},    {"LLAMA3-8B", 32, 4096, 32, 8, 14336, 128256, true},
    {"LLAMA3_8B", 32, 4096, 32, 8, 14336, 128256, true},    {"LLAMA3-70B", 80, 8192, 64, 8, 28672, 128256, true},
    {"LLAMA3_70B", 80, 8192, 64, 8, 28672, 128256, true},   {"LLAMA3.1_405B", 126, 16384, 128, 8, 53248, 128256, true},
    {"GPT3-175B", 96, 12288, 96, 96, 49152, 50257, false},
};
bool is_moe(const std::string& model) {
  for (const char* k : {"DeepSeek", "Qwen3", "GPT OSS", "Kimi", "Nemotron_3", "Mixtral"})
    if (contains(model, k)) return true;
  return false;
}

std::vector<ValidationCase> nemo(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  const std::map<std::string, std::string> systems = {{"DGX-H100", "dgx-h100"}};
  for (size_t r = 0; r < t.rows(); ++r) {
    const std::string name = t.at(r, "model"), task = t.at(r, "task"), prec = t.at(r, "precision");
    const std::string sys = t.at(r, "system");
    auto cell_num = [&](const std::string& col, int64_t fallback) {
      const std::string& s = t.at(r, col);
      if (s.empty() || s == "n/a") return fallback;
      try { return static_cast<int64_t>(std::stoll(s)); } catch (const std::exception&) { return fallback; }
    };
    ValidationCase c;
    c.dataset = "nvidia_nemo";
    c.row = static_cast<int>(r + 1);
    c.family = contains(sys, "H100") ? "h100" : "blackwell";
    c.model_name = name;
    c.quantity = Metric::TokensPerSPerGpu;
    c.label = fmt::format("{} {} {} GPUs {}", name, sys, t.at(r, "num_gpus"), t.at(r, "container"));
    const int64_t gpus = cell_num("num_gpus", 0), tp = cell_num("TP", 1), pp = cell_num("PP", 1);
    const int64_t cp = cell_num("CP", 1), vp = cell_num("VP", 1), ep = cell_num("EP", 1);
    c.gpus = gpus, c.tp = tp, c.pp = pp, c.seq = cell_num("seq_len", 0);
    const std::string fsdp = t.at(r, "FSDP");
    std::vector<std::string> blockers;
    if (!systems.count(sys)) blockers.push_back("hardware: no " + sys + " file (Blackwell)");
    if (!contains(prec, "BF16")) blockers.push_back("FP8/FP4 precision");
    if (is_moe(name) || ep > 1) blockers.push_back("MoE / expert parallelism");
    if (!contains(task, "Pre")) blockers.push_back("fine-tuning / LoRA");
    if (cp > 1) blockers.push_back("context parallelism");
    if (!fsdp.empty() && fsdp[0] != '0') blockers.push_back("FSDP (ZeRO-3)");
    const NemoShape* shape = nullptr;
    for (const auto& s : kNemoShapes)
      if (name == s.key) shape = &s;
    if (!shape && !is_moe(name)) blockers.push_back("model shape not in trnsim");
    const std::string tok = t.at(r, "tokens_per_s_per_gpu");
    if (tok.empty()) blockers.push_back("no measured tokens/s/GPU");
    else c.measured = num(t, r, "tokens_per_s_per_gpu");
    for (size_t i = 0; i < blockers.size(); ++i) c.not_expressible += (i ? "; " : "") + blockers[i];
    if (blockers.empty()) {
      ModelSpec m = shape->swiglu ? llama3(shape->key, shape->layers, shape->hidden, shape->heads, shape->ffn)
                                  : megatron_gpt(shape->key, shape->layers, shape->hidden, shape->heads, shape->ffn,
                                                 c.seq, shape->vocab);
      m.kv_heads = shape->kv;
      m.vocab = shape->vocab;
      m.dropout = 0;
      m.max_seq = std::max(m.max_seq, c.seq);
      const int64_t mb = cell_num("micro_batch", 1), gb = cell_num("global_batch", 1);
      Workload w = workload(file, r, m, systems.at(sys), std::max<int64_t>(1, gpus / 8), tp, pp,
                            gpus / (tp * pp), mb, gb, c.seq);
      if (gpus < 8) w.cores_per_node = gpus;
      w.precision = Precision::MixedBF16;
      w.fp32_grads = true;
      w.sequence_parallel = tp > 1;
      w.zero = 1;
      w.virtual_stages = vp;
      w.checkpointing = Checkpointing::None;
      w.attention = Attention::Flash;  // Transformer Engine picks a flash backend (cuDNN / FA)
      c.has_workload = true;
      c.workload = w;
      c.model = m;
      fill_features(c);
    }
    out.push_back(c);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The seed rows (results/published.json): the project's own workload files, each compared
// with its published whole-cluster sequences per second.
std::vector<ValidationCase> seed(const std::string& file) {
  auto pub = load_json_file(file);
  std::vector<ValidationCase> out;
  int row = 0;
  for (const auto& r : pub["rows"]) {
    const std::string wl = r["workload"].get<std::string>();
    ValidationCase c;
    c.dataset = "seed";
    c.row = ++row;
    c.family = r["hw_family"].get<std::string>();
    c.workload = load_workload(data_dir() + "/workloads/" + wl + ".json");
    c.model = load_model_spec(model_path(c.workload.model));
    c.model_name = c.model.name;
    c.has_workload = true;
    c.label = wl;
    c.quantity = Metric::ClusterSeqPerS;
    c.measured = r["published_seq_per_s"].get<double>();
    fill_features(c);
    out.push_back(c);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& dataset_names() {
  static const std::vector<std::string> names = {"seed", "korthikanti2022", "vtrain_multi", "vtrain_single",
                                                 "aws_neuron_trn1", "nvidia_nemo"};
  return names;
}

std::vector<ValidationCase> load_dataset(const std::string& name, const std::string& dir) {
  if (name == "seed") return seed(data_dir() + "/results/published.json");
  if (name == "korthikanti2022") return korthikanti(dir + "/korthikanti2022.csv");
  if (name == "vtrain_multi") return vtrain(dir + "/vtrain_ground_truth_multi.csv", name);
  if (name == "vtrain_single") return vtrain(dir + "/vtrain_ground_truth_single.csv", name);
  if (name == "aws_neuron_trn1") return neuron_trn1(dir + "/aws_neuron_trn1_training.csv");
  if (name == "nvidia_nemo") return nemo(dir + "/nvidia_nemo_megatron_bridge.csv");
  std::string all;
  for (const auto& n : dataset_names()) all += (all.empty() ? "" : ", ") + n;
  throw UsageError(fmt::format("--dataset {}: unknown dataset; choose from {}", name, all));
}

}  // namespace trnsim
