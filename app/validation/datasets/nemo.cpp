// nemo.cpp — the validation adapter of one dataset (dataset_common.hpp has the rules).
// NVIDIA NeMo / Megatron-Bridge performance tables (H100 → GB300). Stack facts
// (frameworks.md §3): Transformer Engine with fused (flash/cuDNN) attention, distributed
// optimizer (ZeRO-1), SP with TP > 1, mixed precision with FP32 master weights and FP32
// gradient reduction, TP comm overlap on where TP > 1 (the MB guide: the best TP-overlap
// configurations are set in the recipes by default), the lightest activation recompute that
// fits: none, selective, full on the first N layers of each chunk (Megatron-Core's block method,
// smallest N), full (the 24.07 configs' granularity is null where the model
// fits; the pages do not say what the FSDP and large-micro-batch rows use, and NVIDIA publishes
// only configurations that run). FSDP rows:
// Megatron-FSDP, ZeRO-3 semantics over DP (also a dense row whose FSDP cell reads 0 on a layout
// that cannot hold its unsharded weights and gradients). NeMo 24.07 rows: the launcher's NeMo 1.x
// (profile nemo-launcher: Apex distributed Adam, BF16 gradients, TP overlap per model config). Precision: the page's label; "FP8" on the 24.x
// pages is Transformer Engine's default delayed scaling (the 24.07 launcher configs set
// fp8_amax_history_len 1024), "FP8" and the unlabelled 25.09 table on later pages are
// current scaling (25.11 labels the same primary column FP8-CS); a figure in parentheses
// (another recipe) is not used. Measured: tokens/s/GPU (the long-sequence page prints model
// TFLOP/s only: divided by the page's FLOPs per token, nemo_flops_per_token; micro-batch 1, not
// stated). The long-sequence page's rows "without CP" ran "the most performant configuration
// without CP", unlisted: the prediction is trnsim's fastest layout without CP on the row's GPUs and
// global batch (fastest_layouts_without_cp). Rows are written only when every feature
// they use exists in trnsim; the blockers are listed in a fixed order.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "dataset_common.hpp"
#include "layout_rules.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim::datasets {
namespace {
enum class NemoArch { Llama, Gpt3, Nemotron4 };
struct NemoShape {
  const char* key;
  int64_t layers, hidden, heads, kv, ffn, vocab;
  NemoArch arch;
};
constexpr NemoArch kLlama = NemoArch::Llama, kGpt3 = NemoArch::Gpt3, kNemotron4 = NemoArch::Nemotron4;
const NemoShape kNemoShapes[] = {
    {"LLAMA2-7B", 32, 4096, 32, 32, 11008, 32000, kLlama},    {"LLAMA2-13B", 40, 5120, 40, 40, 13824, 32000, kLlama},
    {"LLAMA2-70B", 80, 8192, 64, 8, 28672, 32000, kLlama},    {"LLAMA3-8B", 32, 4096, 32, 8, 14336, 128256, kLlama},
    {"LLAMA3_8B", 32, 4096, 32, 8, 14336, 128256, kLlama},    {"LLAMA3-70B", 80, 8192, 64, 8, 28672, 128256, kLlama},
    {"LLAMA3_70B", 80, 8192, 64, 8, 28672, 128256, kLlama},   {"LLAMA3.1_405B", 126, 16384, 128, 8, 53248, 128256, kLlama},
    {"GPT3-175B", 96, 12288, 96, 96, 49152, 50257, kGpt3},
    // NeMo launcher configs gpt3/5b.yaml and 20b.yaml: 24 x 4096 x 32 heads, 44 x 6144 x 48 heads, FFN 4h.
    {"GPT3-5B", 24, 4096, 32, 32, 16384, 50257, kGpt3},     {"GPT3-20B", 44, 6144, 48, 48, 24576, 50257, kGpt3},
    // NeMo 24.07's Nemotron rows (shapes not in the sources): Nemotron-4 340B as its report gives it
    // (96 x 18432, 96 heads / 8 KV, FFN 73728; recalled), the 8B and 22B as NeMo's Nemotron configs
    // (32 x 4096 and 40 x 6144, multi-head, FFN 4h; recalled). Evidence: with these shapes the page's
    // own FLOPs per token (nemo_flops_per_token: 24.07 counts a non-gated MLP as 12 ffn / h) times each
    // row's tokens/s gives its printed TFLOP/s within 0.05 % (8B: 12,701 x 5.139e10 = 652.7 of 653;
    // 22B: 4,256 x 1.302e11 = 554.3 of 554; 340B: 322 x 2.104e12 = 677.6 of 678; the 22B with 8 KV
    // heads would be 12 % off), and their layers divide the rows' PP x VP (22B: 4 x 10, 340B: 8 x 12).
    {"Nemotron-8B", 32, 4096, 32, 32, 16384, 256000, kNemotron4},
    {"Nemotron-22B", 40, 6144, 48, 48, 24576, 256000, kNemotron4},
    {"Nemotron-340B", 96, 18432, 96, 8, 73728, 256000, kNemotron4},
};
// The page's precision label as a trnsim precision (see the header); empty: not expressible.
struct NemoPrecision {
  Precision precision;
  Fp8Recipe recipe;
};
// The release a container names, whatever the page's spelling: "NeMo24.03.01.framework" ->
// "NeMo 24.03.01", "NeMo 26.04" stays; empty if the cell names none.
std::string nemo_release(const std::string& container) {
  size_t p = 0;
  while (p < container.size() && !std::isdigit(static_cast<unsigned char>(container[p]))) ++p;
  std::string v;
  while (p < container.size()) {
    if (std::isdigit(static_cast<unsigned char>(container[p])) || container[p] == '.') v += container[p++];
    else if (container.compare(p, 2, "rc") == 0) v += "rc", p += 2;
    else break;
  }
  while (!v.empty() && v.back() == '.') v.pop_back();
  return v.empty() ? "" : "NeMo " + v;
}

// NeMo 24.x containers (24.03, 24.07) ran NeMo 1.x; later pages run Megatron-Bridge.
bool nemo1_container(const std::string& container) { return contains(container, "24."); }

bool nemo_precision(const std::string& label, const std::string& container, NemoPrecision& out) {
  const bool early = nemo1_container(container);
  out.recipe = early ? Fp8Recipe::Delayed : Fp8Recipe::Current;
  if (label == "BF16") out.precision = Precision::MixedBF16;
  else if (label == "MXFP8" || label == "FP8-MX") out.precision = Precision::MXFP8;
  else if (label == "NVFP4") out.precision = Precision::NVFP4;
  else if (contains(label, "FP8") || contains(label, "not stated")) out.precision = Precision::FP8;
  else return false;
  if (contains(label, "FP8-CS")) out.recipe = Fp8Recipe::Current;
  return true;
}
// MoE models: the model file trnsim has for each, or the feature still missing. "(tokendrop)"
// rows are the same runs with a capacity factor; with NVIDIA's force-balanced routing no token is
// dropped (the pages print the same figures), so they map to the same model.
struct NemoMoe {
  const char* key;
  const char* model_file;  // models/<name>.json, or nullptr
  const char* missing;     // the model and why there is no file (a missing shape, not a missing feature)
};
const NemoMoe kNemoMoe[] = {
    {"Qwen3_30B_a3B", "qwen3-30b-a3b", nullptr},
    {"Qwen3_235B_a22B", "qwen3-235b-a22b", nullptr},
    {"DeepSeekV4", nullptr, "DeepSeek-V4 Flash (its config is not given)"},
    // 61 layers over the pages' PP x VP: the recipe's pipeline layout (deepseek_layout below).
    {"DeepSeek", "deepseek-v3", nullptr},
    {"Kimi", "kimi-k2", nullptr},  // shape recalled (models-2026.md); DeepSeek-V3's architecture and layouts
    {"GPT OSS", "gpt-oss-120b", nullptr},  // alternating sliding-window attention (model field sliding_window)
    {"Nemotron_3_Nano", "nemotron-3-nano", nullptr},  // Mamba-2 / MoE / attention hybrid (model field layer_pattern)
    {"Nemotron_3", nullptr, "Nemotron 3 Super / Ultra / 3.5 Lightning (hybrids of the kind of Nemotron 3 Nano, which trnsim runs, with configs that are not given)"},
    {"Mixtral_8x22", "mixtral-8x22b", nullptr},  // no Mixtral row in the corpus today
    {"Mixtral", "mixtral-8x7b", nullptr},
    {"Maverick", "llama4-maverick", nullptr},  // no Llama 4 row in the corpus today
    {"Scout", "llama4-scout", nullptr},
};
// Declared structural assumption (the tables give PP and VP, not the layout): DeepSeek-V3's 61
// layers are split by Megatron-Bridge's recipe layouts (recalled from its deepseek_v3 recipe, whose
// map from (PP, VP) to a pipeline_model_parallel_layout gives, by chunk count: 8 chunks E+8 | 8 x 6 |
// 5+m+L; 16 chunks E+4 | 4 x 14 | 1+m+L; and the H100 configuration's 32 chunks "Et|(tt|)*30mL",
// the example of Megatron-Core's layout documentation). Kimi K2 (61 layers, DeepSeek-V3's
// architecture, no MTP) is taken to use the same layouts. The same rule for every such row; a chunk
// count outside the table is a named blocker.
std::string deepseek_layout(int64_t chunks, int64_t mtp) {
  const std::string tail = std::string(static_cast<size_t>(mtp), 'm') + "L";
  if (chunks == 8) return "Et*8|(t*8|)*6t*5" + tail;
  if (chunks == 16) return "Et*4|(t*4|)*14t" + tail;
  if (chunks == 32) return "Et|(tt|)*30" + tail;
  return "";
}
bool uses_recipe_layout(const std::string& model) { return contains(model, "DeepSeekV3") || contains(model, "Kimi"); }

const NemoMoe* moe_of(const std::string& model) {
  for (const auto& k : kNemoMoe)
    if (contains(model, k.key)) return &k;
  return nullptr;
}

// Fine-tuning rows (declared assumptions, the same for every such row; docs/stacks.md):
// - Data: SQuAD v1.1 packed to the sequence length (the page's note), attention within each
//   packed sample (NeMo's packed-sequence SFT runs TE's THD attention with cu_seqlens). A sample
//   is the context, question and answer, about 200 Llama tokens (SQuAD paragraphs average ~120
//   words; recalled, not in the sources): 256 tokens cost-weighted.
// - SFT trains every parameter like pre-training. LoRA: rank 32 (NeMo's and Megatron-Bridge's
//   default adapter_dim / dim), on linear_qkv only in NeMo 24.07 (NeMo 1.x lora_tuning's default
//   target_modules ['attention_qkv']) and on linear_qkv, linear_proj, linear_fc1 and linear_fc2
//   from Megatron-Bridge on (its LoRA default); both recalled, not in the sources.
// - NeMo 24.07's one "Finetuning" table mixes SFT and LoRA rows; the CSV lost that column. The
//   page's model TFLOP/s counts 6 N FLOPs per token for SFT and 4 N for LoRA (checked on the 26.06
//   rows, whose sections name the mode: 6.2 N and 4.0 N), so a row's model TFLOP/s per token over
//   its model's N says which table it came from. The ratio does not depend on the measured speed.
// NeMo's model FLOPs per token of a Llama-style model on the NeMo 1.x / 2.0 pages (the model
// TFLOP/s they print): L h^2 (12 + 12 kv/heads + 18 ffn/h + 12 s/h + 6 V / (L h)), attention
// counted in full (not causal); a non-gated MLP (GPT-3, Nemotron-4: two matrices, not three)
// 12 ffn/h. Checked: every 24.07 pre-training row that prints both figures satisfies tokens/s x
// this = TFLOP/s within 0.1 % (tests/validation); the Megatron-Bridge pages (25.09 on) count the
// attention term causal (6 s/h; their rows satisfy that one instead).
double nemo_flops_per_token(const NemoShape& s, int64_t seq) {
  const double h = static_cast<double>(s.hidden), L = static_cast<double>(s.layers);
  const double mlp = s.arch == NemoArch::Llama ? 18.0 : 12.0;
  return L * h * h *
         (12.0 + 12.0 * static_cast<double>(s.kv) / static_cast<double>(s.heads) + mlp * static_cast<double>(s.ffn) / h +
          12.0 * static_cast<double>(seq) / h + 6.0 * static_cast<double>(s.vocab) / (L * h));
}

constexpr int64_t kPackedSampleTokens = 256;
constexpr int64_t kLoraRank = 32;

void fine_tuning(Workload& w, const ModelSpec& m, const CsvTable& t, size_t r, bool sft_section, bool lora_section) {
  w.document_tokens = std::min(kPackedSampleTokens, w.seq_len);
  bool lora = lora_section;
  if (!sft_section && !lora_section) {  // NeMo 24.07's mixed table
    const double flops_per_token = num(t, r, "model_tflops_per_gpu") * 1e12 / num(t, r, "tokens_per_s_per_gpu");
    lora = flops_per_token < 5.0 * static_cast<double>(m.total_parameters());
  }
  if (!lora) return;
  w.lora.rank = kLoraRank;
  const bool nemo1 = nemo1_container(t.at(r, "container"));
  w.lora.proj = w.lora.fc1 = w.lora.fc2 = !nemo1;
}

// A whole-number cell, or `fallback` when it is empty, "n/a" or not a number.
int64_t cell_num(const CsvTable& t, size_t r, const std::string& col, int64_t fallback) {
  const std::string& s = t.at(r, col);
  if (s.empty() || s == "n/a") return fallback;
  try {
    return static_cast<int64_t>(std::stoll(s));
  } catch (const std::exception&) {
    return fallback;
  }
}

// The layouts a Megatron run without CP can take on the row's GPUs and global batch: TP a power of
// two dividing the query groups, inside a node (NVLink), PP a power of two that the layers (or
// layers + 2, the recipes' embedding-and-loss split) divide, DP the rest with micro-batch 1 and
// the global batch a multiple of DP, each with the lightest recompute that fits. The first that
// fits becomes the case's workload, the others its alternatives (the prediction is the fastest).
// None fits: the case keeps the first layout, and the run refuses it with its memory.
void fastest_layouts_without_cp(ValidationCase& c, int64_t global_batch, int64_t gpus_per_node,
                                const std::function<Workload(int64_t, int64_t)>& build) {
  const int64_t gpus = c.gpus, layers = c.model.layers;
  std::vector<Workload> fitting;
  Workload first;
  bool any = false;
  // (The recipes' TP also divides the query groups, which layout_rules would let TP replicate.)
  for (int64_t tp = 1; tp <= std::min(gpus, gpus_per_node) && c.model.kv_heads % tp == 0 && tp_problem(c.model, tp).empty(); tp *= 2)
    for (int64_t pp = 1; tp * pp <= gpus && pp <= layers; pp *= 2) {
      if (gpus % (tp * pp) != 0 || (layers % pp != 0 && (layers + 2) % pp != 0)) continue;
      const int64_t dp = gpus / (tp * pp);
      if (global_batch % dp != 0) continue;
      ValidationCase k = c;
      k.workload = build(tp, pp);
      if (!any) first = k.workload, any = true;
      lightest_recompute_that_fits(k);
      try {
        if (make_scenario(k.workload, k.model, true).fits) fitting.push_back(k.workload);
      } catch (const ConfigError&) {
        // not a layout this stack runs
      }
    }
  if (fitting.empty()) {
    c.workload = first;
    return;
  }
  c.workload = fitting.front();
  c.alternatives.assign(fitting.begin() + 1, fitting.end());
}


// Declared assumption, per long-sequence table (one system): when every row that states
// its DP ("DP=" in the notes) has TP x PP x CP x DP equal to the same fraction 1/k (k > 1) of the
// GPU column, the table's GPU column is k times the GPUs its runs used, and every row of that table
// (with or without CP) ran on GPUs / k. Evidence: the DGX-B200 table (NeMo 25.04) states DP 2 at 8
// GPUs with TP 1 x CP 1, DP 4 at 16 with TP 1 x CP 1, ..., DP 4 at 1,024 with TP 4 x CP 16: all
// eight rows use exactly a quarter of the column, whose values (8 GPUs at 8 K tokens ... 1,024 at
// 1 M) repeat the H100 table's (4 K at 4 ... 1 M at 1,024; consistent there). Its rows without CP
// confirm it: at 256 K and 512 K on the stated 256 / 512 GPUs with a global batch of 16 / 8, no
// layout without CP avoids a pipeline run on a single micro-batch (Llama 3 8B's 8 KV heads cap TP
// at 8), which bounds the throughput near 1/PP of the CP rows', while the page measured 73 % / 37 %.
std::map<std::string, int64_t> long_sequence_gpu_factors(const CsvTable& t) {
  std::map<std::string, std::set<int64_t>> seen;
  for (size_t r = 0; r < t.rows(); ++r) {
    if (!contains(t.at(r, "task"), "long sequence")) continue;
    const std::string notes = t.at(r, "notes");
    const auto at = notes.find("DP=");
    if (at == std::string::npos) continue;
    auto degree = [&](const char* col) { return std::max<int64_t>(1, cell_num(t, r, col, 1)); };
    const int64_t used = degree("TP") * degree("PP") * degree("CP") * std::max<int64_t>(1, std::atoll(notes.c_str() + at + 3));
    const int64_t gpus = cell_num(t, r, "num_gpus", 0);
    seen[t.at(r, "system")].insert(gpus % used == 0 ? gpus / used : 0);
  }
  std::map<std::string, int64_t> out;
  for (const auto& [sys, ks] : seen)
    if (ks.size() == 1 && *ks.begin() > 1) out[sys] = *ks.begin();
  return out;
}

}  // namespace

std::vector<ValidationCase> nemo(const std::string& file, NemoRows kind) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  const std::map<std::string, std::string> systems = {{"DGX-H100", "dgx-h100"},  {"DGX-H200", "dgx-h200"},
                                                       {"DGX-B200", "dgx-b200"},  {"DGX-B300", "dgx-b300"},
                                                       {"DGX-GB200", "gb200-nvl72"}, {"DGX-GB300", "gb300-nvl72"}};
  const std::map<std::string, int64_t> gpu_factor = long_sequence_gpu_factors(t);
  const std::string dataset_name =
      kind == NemoRows::Moe ? "nvidia_nemo_moe" : kind == NemoRows::FineTuning ? "nvidia_nemo_finetune" : "nvidia_nemo";
  for (size_t r = 0; r < t.rows(); ++r) map_row(out, dataset_name, Metric::TokensPerSPerGpu, r, [&] {
    const std::string name = t.at(r, "model"), task = t.at(r, "task"), prec = t.at(r, "precision");
    const std::string sys = t.at(r, "system");
    auto cell = [&](const std::string& col, int64_t fallback) { return cell_num(t, r, col, fallback); };
    const NemoMoe* moe = moe_of(name);
    const bool pretrain = contains(task, "Pre");
    const NemoRows row_kind = !pretrain ? NemoRows::FineTuning
                              : (moe != nullptr || cell("EP", 1) > 1) ? NemoRows::Moe
                                                                           : NemoRows::Dense;
    if (row_kind != kind) return;
    ValidationCase c;
    c.dataset = dataset_name;
    c.row = static_cast<int>(r + 1);
    c.family = contains(sys, "H100") || contains(sys, "H200") ? "h100" : "blackwell";  // Hopper, else Blackwell
    c.model_name = name;
    c.quantity = Metric::TokensPerSPerGpu;
    c.label = fmt::format("{} {} {} GPUs {}", name, sys, t.at(r, "num_gpus"), t.at(r, "container"));
    c.release = nemo_release(t.at(r, "container"));
    const auto factor = contains(task, "long sequence") ? gpu_factor.find(sys) : gpu_factor.end();
    const int64_t k = factor != gpu_factor.end() ? factor->second : 1;
    const int64_t gpus = cell("num_gpus", 0) / k;
    if (k > 1) c.label += fmt::format(" (run on {} GPUs: the table's layouts use 1/{} of its GPU column)", gpus, k);
    const int64_t tp = cell("TP", 1), pp = cell("PP", 1);
    const int64_t cp = cell("CP", 1), vp = cell("VP", 1), ep = cell("EP", 1);
    c.gpus = gpus, c.tp = tp, c.pp = pp, c.seq = cell("seq_len", 0);
    if (std::min({tp, pp, cp, vp, ep}) < 1 || gpus < 1) {  // (the checks below divide by them)
      c.not_expressible = "published layout inconsistent: a GPU count or parallel degree below 1";
      out.push_back(c);
      return;
    }
    const std::string fsdp = t.at(r, "FSDP");
    std::vector<std::string> blockers;
    ModelSpec shape_free_model;
    if (!systems.count(sys)) blockers.push_back("hardware: no " + sys + " file");
    NemoPrecision np{};
    if (!nemo_precision(prec, t.at(r, "container"), np)) blockers.push_back("precision label \"" + prec + "\" unknown");
    if (moe && !moe->model_file) {
      blockers.push_back(std::string("model shape not in the sources: ") + moe->missing);
    }
    const bool sft = contains(task, "SFT"), lora = contains(task, "LoRA");
    if (!pretrain && !sft && !lora && !contains(task, "Finetuning")) blockers.push_back("task \"" + task + "\" unknown");
    if (contains(task, "Finetuning") && (t.at(r, "model_tflops_per_gpu").empty() || t.at(r, "tokens_per_s_per_gpu").empty()))
      blockers.push_back("fine-tuning mode (SFT or LoRA) not stated");
    const bool fsdp_on = !fsdp.empty() && fsdp[0] != '0';
    const NemoShape* shape = nullptr;
    for (const auto& s : kNemoShapes)
      if (name == s.key) shape = &s;
    if (!shape && !moe) blockers.push_back("model shape not in trnsim");
    // Pipeline split: where the layers do not divide PP x VP, the recipes count the embedding
    // and the loss as one layer each (Megatron-Core account_for_embedding / _loss_in_pipeline_split).
    // Evidence: in all 82 such rows layers + 2 divides PP x VP, layers + 1 never does.
    auto uneven = [&](int64_t layers) {
      const int64_t slots = pp * std::max<int64_t>(1, vp);
      return layers % slots != 0 && (layers + 2) % slots != 0;
    };
    if (shape && uneven(shape->layers)) blockers.push_back("pipeline split: neither layers nor layers + 2 divide PP x VP");
    const std::string tok = t.at(r, "tokens_per_s_per_gpu");
    // The long-sequence page (NeMo 24.03 / 25.04) prints model TFLOP/s per GPU only; with the
    // page's FLOPs per token (nemo_flops_per_token, NeMo 1.x / 2.0's formula) it is tokens/s per
    // GPU. Its rows "without CP" ran "the most performant configuration without CP", not listed:
    const std::string notes = t.at(r, "notes");
    const bool long_seq = contains(task, "long sequence");
    // Declared assumption for those rows: NeMo's authors picked the fastest layout without CP that
    // the GPUs and the global batch allow; trnsim predicts the fastest it finds among the same
    // choices (fastest_layouts_without_cp below), a prediction of the search, not of the figure.
    const bool fastest_without_cp = long_seq && contains(notes, "WITHOUT CP");
    if (long_seq && tok.empty() && shape && !t.at(r, "model_tflops_per_gpu").empty()) {
      c.measured = num(t, r, "model_tflops_per_gpu") * 1e12 / nemo_flops_per_token(*shape, c.seq);
      c.label += " (from model TFLOP/s)";
    } else if (tok.empty()) {
      blockers.push_back("no measured tokens/s/GPU");
    } else {
      c.measured = num(t, r, "tokens_per_s_per_gpu");
    }
    // A DP the notes state must be what the GPUs leave (the B200 long-sequence rows: DP 2-4 stated,
    // 8-16 left by TP x PP x CP; their global batch of 4 could not fill 16).
    if (const auto at = notes.find("DP="); at != std::string::npos && gpus > 0) {
      const int64_t dp_stated = std::atoll(notes.c_str() + at + 3), dp_left = gpus / (tp * pp * cp);
      if (dp_stated > 0 && dp_stated != dp_left)
        blockers.push_back(fmt::format("published layout inconsistent: DP {} stated, TP {} x PP {} x CP {} leaves {} of {} GPUs",
                                       dp_stated, tp, pp, cp, dp_left, gpus));
    }
    const bool no_mtp = contains(name, "w/o MTP");
    std::string layout;
    if (moe && uses_recipe_layout(name) && pp > 1) {
      layout = deepseek_layout(pp * std::max<int64_t>(1, vp), no_mtp || contains(name, "Kimi") ? 0 : 1);
      if (layout.empty())
        blockers.push_back(fmt::format("pipeline layout: no recipe layout for 61 layers over PP {} x VP {} in the sources", pp, vp));
    }
    // Megatron-Core takes the expert-parallel ranks from one pipeline stage's TP x CP x DP ranks;
    // a row whose EP does not divide them states a layout that cannot run (one row: DeepSeek-V3,
    // GB300, PP 8 with EP 64 on 256 GPUs, 32 ranks per stage; its GA 64 confirms DP 32).
    if (ep > 1 && gpus > 0 && gpus % pp == 0 && (gpus / pp) % ep != 0)
      blockers.push_back(fmt::format("published layout inconsistent: EP {} does not divide the {} ranks of a pipeline stage",
                                     ep, gpus / pp));
    for (size_t i = 0; i < blockers.size(); ++i) c.not_expressible += (i ? "; " : "") + blockers[i];
    if (blockers.empty() && moe) {
      ModelSpec m = load_model_spec(model_path(moe->model_file));
      m.max_seq = std::max(m.max_seq, c.seq);
      if (no_mtp) m.mtp_layers = 0;
      if (layout.empty() && pp > 1 && uneven(m.layers))
        blockers.push_back("pipeline split: neither layers nor layers + 2 divide PP x VP"), c.not_expressible = blockers.back();
      else
        shape_free_model = m;
    }
    if (blockers.empty()) build_row(c, [&] {
      ModelSpec m = !shape                          ? shape_free_model
                    : shape->arch == NemoArch::Llama ? llama3(shape->key, shape->layers, shape->hidden, shape->heads, shape->ffn)
                    : shape->arch == NemoArch::Nemotron4
                        ? nemotron4(shape->key, shape->layers, shape->hidden, shape->heads, shape->kv, shape->ffn)
                        : megatron_gpt(shape->key, shape->layers, shape->hidden, shape->heads, shape->ffn, c.seq, shape->vocab);
      if (shape) {
        m.kv_heads = shape->kv;
        m.vocab = shape->vocab;
        m.dropout = 0;
        m.max_seq = std::max(m.max_seq, c.seq);
      }
      const int64_t mb = cell("micro_batch", 1), gb = cell("global_batch", 1);
      const int64_t per_node = cores_per_node_of(systems.at(sys));  // 4 per GB200/GB300 tray
      // The row's workload on a layout (the stated one, or one of the layouts tried for a row that
      // does not state it); the parameters shadow the row's TP / PP / CP on purpose.
      auto build = [&](int64_t tp, int64_t pp, int64_t cp) {
        Workload w = workload(file, r, m, systems.at(sys), std::max<int64_t>(1, gpus / per_node), tp, pp,
                              gpus / (tp * pp * cp), mb, gb, c.seq);
        w.cp = cp;
        if (gpus < per_node) w.cores_per_node = gpus;
        w.precision = np.precision;
        w.fp8_recipe = np.recipe;
        // NeMo 24.07 rows ran NeMo 1.x from the launcher's configs (profile nemo-launcher: Apex
        // distributed Adam, BF16 gradients); later pages run Megatron-Bridge's recipes (nemo).
        const bool launcher = nemo1_container(t.at(r, "container"));
        w.ep = std::max<int64_t>(1, ep);  // a row fact, checked with the rest of the layout by the run
        w = with_stack(w, stack_profile(launcher ? "nemo-launcher" : "nemo"));  // (its defaults see the degrees)
        // The launcher's per-model ub_tp_comm_overlap (frameworks.md §3 b): on in the Llama 70B configs.
        if (launcher) w.tp_overlap = w.tp_overlap_forward = tp > 1 && contains(name, "70B");
        // A dense row whose FSDP cell reads 0 on a layout that cannot hold the model's unsharded
        // BF16 weights and the stack's gradients (TP x PP shards them, nothing else) ran sharded:
        // Megatron-FSDP, as the same model and system in the page's other tables (one row: Llama 3
        // 70B, GB300, NVFP4, TP 1 x PP 1 on 64 GPUs: 423 GB of weights and FP32 gradients per GPU).
        const bool unshardable = !moe && states_exceed_hbm(m, 2.0 + w.grad_bytes(), tp * pp, w.hw);
        // (Megatron-FSDP keeps its own parameter buffers: the profile's fp8_param_gather, a
        // distributed-optimizer setting, does not carry over; its gathered units stay BF16.)
        if (fsdp_on || unshardable) w.zero = 3, w.reduce_every_micro_batch = true, w.fp8_param_gather = false;
        w.virtual_stages = vp;
        if (!layout.empty()) {
          set_pipeline_layout(w, layout);
        } else if (m.layers % (pp * std::max<int64_t>(1, vp)) != 0) {
          w.pipeline_split = Workload::PipelineSplit::EmbeddingAndLoss;
        }
        if (!pretrain) fine_tuning(w, m, t, r, sft, lora);
        return w;
      };
      c.has_workload = true;
      c.model = m;
      if (fastest_without_cp) {
        fastest_layouts_without_cp(c, gb, per_node, [&](int64_t tp_tried, int64_t pp_tried) { return build(tp_tried, pp_tried, 1); });
      } else {
        c.workload = build(tp, pp, cp);
        lightest_recompute_that_fits(c);
      }
      fill_features(c);
    });
    out.push_back(c);
  });
  return out;
}

}  // namespace trnsim::datasets
