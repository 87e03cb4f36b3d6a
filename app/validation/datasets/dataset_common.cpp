// dataset_common.cpp — see dataset_common.hpp: the metric names and the helpers every dataset
// adapter shares (numbers from CSV cells, the Megatron GPT and Llama 3 shapes, a workload skeleton).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "dataset_common.hpp"
#include "trnsim/csv_table.hpp"
#include "memory_model.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"

namespace trnsim {

const char* to_string(Metric q) {
  switch (q) {
    case Metric::IterationTime: return "iteration_time";
    case Metric::ClusterSeqPerS: return "cluster_seq_per_s";
    case Metric::TokensPerSPerGpu: return "tokens_per_s_per_gpu";
    case Metric::StatesGiB: return "states_memory";
    case Metric::ActivationsGiB: return "activation_memory";
    case Metric::ActivationPctOfNone: return "activation_pct_of_none";
    case Metric::PeakMemoryGiB: return "peak_memory";
  }
  return "?";
}
const char* unit_of(Metric q) {
  switch (q) {
    case Metric::IterationTime: return "s";
    case Metric::ClusterSeqPerS: return "seq/s";
    case Metric::TokensPerSPerGpu: return "tokens/s/GPU";
    case Metric::StatesGiB:
    case Metric::ActivationsGiB:
    case Metric::PeakMemoryGiB: return "GiB";
    case Metric::ActivationPctOfNone: return "%";
  }
  return "?";
}
bool is_performance(Metric q) {
  return q == Metric::IterationTime || q == Metric::ClusterSeqPerS || q == Metric::TokensPerSPerGpu;
}
bool is_performance_quantity(const std::string& name) {
  for (Metric q : {Metric::IterationTime, Metric::ClusterSeqPerS, Metric::TokensPerSPerGpu})
    if (name == to_string(q)) return true;
  return false;
}

namespace datasets {

double num(const CsvTable& t, size_t r, const std::string& col) {
  const std::string& s = t.at(r, col);
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == 0 || !std::isfinite(v)) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw CsvCellError(fmt::format("{}: row {}: column \"{}\" is \"{}\", not a number; fix the CSV", t.file(), r + 1, col, s));
  }
}
int64_t inum(const CsvTable& t, size_t r, const std::string& col) { return std::llround(num(t, r, col)); }
int64_t count(const CsvTable& t, size_t r, const std::string& col) {
  const int64_t n = inum(t, r, col);
  if (n < 1)
    throw CsvCellError(fmt::format("{}: row {}: column \"{}\" is \"{}\", not a count of at least 1; fix the CSV", t.file(), r + 1,
                                   col, t.at(r, col)));
  return n;
}
bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Megatron-LM GPT (Korthikanti, vTrain, neuronx-nemo-megatron GPT-3): GeLU MLP, LayerNorm,
// biases, learned positions, tied embeddings, dropout 0.1 (Megatron's default
// --hidden-dropout / --attention-dropout), padded GPT-2 vocabulary 51200 unless given.
ModelSpec megatron_gpt(const std::string& name, int64_t layers, int64_t hidden, int64_t heads, int64_t ffn,
                       int64_t seq, int64_t vocab) {
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

ModelSpec nemotron4(const std::string& name, int64_t layers, int64_t hidden, int64_t heads, int64_t kv, int64_t ffn) {
  ModelSpec m;
  m.name = name;
  m.file = "(built from the validation corpus)";
  m.layers = layers, m.hidden = hidden, m.heads = heads, m.kv_heads = kv, m.ffn = ffn, m.vocab = 256000;
  m.max_seq = 4096;
  m.activation = Activation::ReLU2;
  m.norm = NormKind::LayerNorm;
  m.rotary_fraction = 0.5;
  m.tied_embeddings = false;
  m.biases = false;
  m.dropout = 0;
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

ValidationCase peak_memory_case(const ValidationCase& c, double stated_gib) {
  ValidationCase mem = c;
  mem.quantity = Metric::PeakMemoryGiB;
  mem.measured = stated_gib;
  mem.label = c.label + " (peak memory)";
  return mem;
}

void fill_features(ValidationCase& c) {
  if (!c.has_workload) return;
  c.params_b = static_cast<double>(c.model.total_parameters()) / 1e9;
  c.tp = c.workload.tp, c.pp = c.workload.pp, c.seq = c.workload.seq_len;
  c.gpus = c.workload.devices();
}

const StackProfile& stack_profile(const std::string& name) {
  static std::map<std::string, StackProfile> profiles;
  auto it = profiles.find(name);
  if (it == profiles.end()) it = profiles.emplace(name, load_stack_profile(stack_path(name))).first;
  return it->second;
}

// hw/<name>.json, read once per process (adapters ask for every row).
static const HwSpec& hw_spec_of(const std::string& hw) {
  static std::map<std::string, HwSpec> specs;
  auto it = specs.find(hw);
  if (it == specs.end()) it = specs.emplace(hw, load_hw_spec(hw_path(hw))).first;
  return it->second;
}

int64_t cores_per_node_of(const std::string& hw) { return hw_spec_of(hw).cores_per_node(); }

bool states_exceed_hbm(const ModelSpec& m, double bytes_per_parameter, int64_t shards, const std::string& hw) {
  const HwSpec& h = hw_spec_of(hw);
  return static_cast<double>(m.total_parameters()) * bytes_per_parameter / static_cast<double>(shards) >
         h.hbm.capacity_per_chip.base() / h.cores_per_chip;
}

namespace {
// A message about one row without its "file: row N: " prefix (the report names the row already).
std::string without_row_prefix(const std::string& why) {
  const auto at = why.find(": row ");
  const auto after = at == std::string::npos ? std::string::npos : why.find(": ", at + 6);
  return after == std::string::npos ? why : why.substr(after + 2);
}
}  // namespace

void map_row(std::vector<ValidationCase>& out, const std::string& dataset, Metric quantity, size_t r,
             const std::function<void()>& body) {
  const size_t before = out.size();
  std::string why;
  try {
    body();
    return;
  } catch (const CsvCellError& e) {
    why = e.what();
  } catch (const std::invalid_argument& e) {  // a number inside a notes cell (std::stod)
    why = std::string("a number the mapping reads from the row's text is not a number (") + e.what() + ")";
  } catch (const std::out_of_range& e) {
    why = std::string("a number the mapping reads from the row's text is out of range (") + e.what() + ")";
  }
  out.resize(before);  // what the body appended for this row before it failed
  ValidationCase c;
  c.dataset = dataset;
  c.row = static_cast<int>(r + 1);
  c.quantity = quantity;
  c.label = fmt::format("row {} (unreadable)", r + 1);
  c.family = "unknown";
  c.not_expressible = "unreadable row: " + without_row_prefix(why);
  out.push_back(c);
}

void build_row(ValidationCase& c, const std::function<void()>& build) {
  try {
    build();
  } catch (const CsvCellError&) {
    throw;  // an unreadable cell: map_row's to report
  } catch (const ConfigError& e) {
    c.has_workload = false;
    c.alternatives.clear();
    c.not_expressible = "published configuration cannot run as stated: " + without_row_prefix(e.what());
  }
}

void lightest_recompute_that_fits(ValidationCase& c) {
  Workload& w = c.workload;
  c.recompute_by_rule = true;
  auto scenario = [&](Checkpointing ck, int64_t first_layers) {
    w.checkpointing = ck;
    w.checkpoint_layers = first_layers;
    return make_scenario(w, c.model, true);
  };
  auto fits = [&](Checkpointing ck, int64_t first_layers) { return scenario(ck, first_layers).fits; };
  try {
    const Scenario none = scenario(Checkpointing::None, 0);
    if (none.fits) return;
    const double need = in_gib(peak_stage(none.memory).total()), usable = in_gib(none.hw.hbm_per_core());
    c.recompute_note = fmt::format("the stack's rule takes the lightest recompute that fits: none would need {:.1f} GiB of "
                                   "{:.1f} GiB usable ({:+.1f} %)",
                                   need, usable, 100.0 * (need / usable - 1.0));
    if (fits(Checkpointing::Selective, 0)) return;
    // Block recompute of the first N layers of each chunk: memory falls as N grows, so the
    // smallest N that fits is found by bisection over 1 .. (layers per chunk) - 1.
    const int64_t chunk = (c.model.layers + w.pp * w.virtual_stages - 1) / (w.pp * w.virtual_stages);
    int64_t lo = 1, hi = chunk;  // hi: every layer, plain full recompute
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (fits(Checkpointing::Full, mid)) hi = mid;
      else lo = mid + 1;
    }
    if (hi < chunk && fits(Checkpointing::Full, hi)) return;
    fits(Checkpointing::Full, 0);
  } catch (const ConfigError&) {
    // invalid for another reason: the run reports it
  }
}

}  // namespace datasets
}  // namespace trnsim
