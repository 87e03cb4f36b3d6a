// dataset_common.hpp — what the dataset adapters (one file per CSV of the validation corpus)
// share. Rules every adapter follows:
//   * a row's stated configuration is used as stated; what its source leaves unstated comes
//     from the dataset's stack profile (stacks/*.json via with_stack, each setting with its
//     source or declared assumption), never a per-row choice;
//   * a row trnsim cannot write down gets `not_expressible` naming every missing feature,
//     and is counted, never dropped;
//   * no adapter reads a measured figure except into `measured`.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "trnsim/csv_table.hpp"
#include "model_spec.hpp"
#include "validation_case.hpp"
#include "workload.hpp"

namespace trnsim::datasets {

double num(const CsvTable& t, size_t r, const std::string& col);
int64_t inum(const CsvTable& t, size_t r, const std::string& col);
// A count the mapping divides by (GPUs, a parallel degree): a whole number >= 1, else CsvCellError.
int64_t count(const CsvTable& t, size_t r, const std::string& col);
bool contains(const std::string& s, const std::string& what);
// Megatron-LM GPT (Korthikanti, vTrain, neuronx-nemo-megatron GPT-3): GeLU MLP, LayerNorm,
// biases, learned positions, tied embeddings, dropout 0.1, padded GPT-2 vocabulary 51200 unless given.
ModelSpec megatron_gpt(const std::string& name, int64_t layers, int64_t hidden, int64_t heads, int64_t ffn,
                       int64_t seq, int64_t vocab = 51200);
// Llama 3 / 3.1 (Meta's released config.json): SwiGLU, RMSNorm, rotary, GQA 8 KV heads, vocab 128,256.
ModelSpec llama3(const std::string& name, int64_t layers, int64_t hidden, int64_t heads, int64_t ffn);
// Nemotron-4 (NVIDIA's Nemotron-4 15B / 340B reports, recalled, not in the sources): squared-ReLU MLP
// (not gated), LayerNorm, rotary embeddings on half of each head, no biases, no dropout, untied
// embeddings over a 256,000-token vocabulary, `kv` KV heads.
ModelSpec nemotron4(const std::string& name, int64_t layers, int64_t hidden, int64_t heads, int64_t kv, int64_t ffn);
Workload workload(const std::string& file, size_t row, const ModelSpec& m, const std::string& hw, int64_t nodes,
                  int64_t tp, int64_t pp, int64_t dp, int64_t mb, int64_t gb, int64_t seq);
void fill_features(ValidationCase& c);
// The peak memory per device a row states, as a second case of the same workload (quantity
// peak_memory, GiB as the source prints it).
ValidationCase peak_memory_case(const ValidationCase& c, double stated_gib);
// stacks/<name>.json, read once per process (adapters put every row under their dataset's profile).
const StackProfile& stack_profile(const std::string& name);
// Cores (GPUs) per node of hw/<name>.json, read once per process (adapters ask for every row).
int64_t cores_per_node_of(const std::string& hw);
// Whether `bytes_per_parameter` of every parameter of `m`, split over `shards` ranks, exceeds one
// core's HBM on hw/<name>.json (its whole capacity, before the usable fraction): a hand check
// that a published layout cannot have run as stated, whatever trnsim's memory model says.
bool states_exceed_hbm(const ModelSpec& m, double bytes_per_parameter, int64_t shards, const std::string& hw);
// For stacks whose published configurations are tuned to fit (NVIDIA's recipes): the lightest
// activation recompute with which the row's workload fits in memory, in the order none, selective
// (attention core), full recompute of the first N layers of each pipeline chunk (Megatron-Core's
// block method, the smallest N), full; left at full when none fits (the row is then refused).
void lightest_recompute_that_fits(ValidationCase& c);
// Runs `build`, the part of an adapter that writes one row's workload into `c`. A ConfigError from
// it means the row's stated configuration cannot run as stated (its degrees do not multiply to its
// GPUs, DP x micro-batch does not divide its global batch, ...): the row stays in the report as
// not expressible with that reason, and the corpus's other rows still run.
void build_row(ValidationCase& c, const std::function<void()>& build);
// Runs `body`, which appends data row r's cases (of `quantity`, the dataset's measure) to `out`. A cell it cannot read (CsvCellError: text
// where a number must be; std::invalid_argument / out_of_range: a number inside a notes cell)
// replaces what it appended for the row by one not-expressible case of family "unknown" naming
// the cell, so one unreadable row does not end the run; a missing column or a ragged row (a fault
// of the file) still ends it.
void map_row(std::vector<ValidationCase>& out, const std::string& dataset, Metric quantity, size_t r,
             const std::function<void()>& body);

// The adapters, one per dataset (file names in registry.cpp).
std::vector<ValidationCase> korthikanti(const std::string& file);
std::vector<ValidationCase> vtrain(const std::string& file, const std::string& dataset);
std::vector<ValidationCase> neuron_trn1(const std::string& file);
// The NeMo tables in two populations: dense models, and MoE models (moe_rows), reported and
// calibrated as separate datasets (their software stacks changed at different rates).
// The NeMo / Megatron-Bridge table's rows of one kind, each kind its own dataset: dense
// pre-training (nvidia_nemo), MoE pre-training (nvidia_nemo_moe), fine-tuning, SFT and LoRA
// (nvidia_nemo_finetune; its structural assumptions, packed samples and adapters, are its own).
enum class NemoRows { Dense, Moe, FineTuning };
std::vector<ValidationCase> nemo(const std::string& file, NemoRows kind);
std::vector<ValidationCase> torchtitan(const std::string& file);
std::vector<ValidationCase> kempnerforge(const std::string& file);
std::vector<ValidationCase> llmfoundry(const std::string& file);
std::vector<ValidationCase> seed(const std::string& file);

}  // namespace trnsim::datasets
