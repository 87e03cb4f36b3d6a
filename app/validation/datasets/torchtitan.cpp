// torchtitan.cpp — the validation adapter of one dataset (dataset_common.hpp has the rules).
// pytorch/torchtitan benchmark pages and docs (2024-10 → 2025-06) and torchao's MXFP8 / NVFP4
// notes. Measured: tokens/s/GPU. Stack facts (validation README, hardware.md "torchtitan"):
//   * FSDP2 shards every parameter over the data-parallel group, all-gathers each block's
//     parameters before use and frees them after forward, reduce-scatters gradients: ZeRO-3
//     semantics, a reduction every micro-batch;
//   * mixed precision: BF16 compute parameters, FP32 sharded parameters and reductions
//     (FSDP2 MixedPrecisionPolicy param_dtype bf16, reduce_dtype fp32);
//   * attention through F.scaled_dot_product_attention (a flash / cuDNN kernel): flash;
//   * TP (DTensor) with sequence parallelism on the norms: SP whenever TP > 1; "async TP" rows
//     overlap the TP collectives (tp_overlap), "vanilla TP" rows do not;
//   * float8 (torchao) converts the block's nn.Linear layers, not the output layer:
//     "tensorwise" (and unlabelled float8, torchao's default) = current per-tensor scaling,
//     "rowwise" = per-row scales; "mxfp8" = MXFP8;
//   * activation checkpointing: "full" = every block (full), "none"; torchtitan's per-op
//     selective AC (keep matmul and attention outputs except every second matmul, recompute the
//     rest; also the "selective AC" default of its Llama configs) = op_selective; per-layer
//     selective AC (every k-th block) = full on every k-th layer (checkpoint_every), k = 2:
//     the rows do not state k, and 2 is torchtitan's default selective_ac_option (recalled from
//     its job config, not in the corpus; a declared assumption for every such row);
//   * torchtitan's Llama has separate wq / wk / wv and w1 / w3 linears (not fused).
//   * torch.compile where a row says so: element-wise chains fused (fused.elementwise); eager
//     otherwise (the profile's default, torchtitan's compile = false).
//   * the loss (F.cross_entropy(pred.float(), labels)) runs eagerly, op by op, unless compiled:
//     torchtitan's train.py of late 2024 left its loss compile commented out ("TODO: compiling
//     loss function causes CUDA errors, turning off for now"), and its 2025 loss builder
//     (components/loss.py, build_cross_entropy_loss) compiles it when training.compile is set
//     (both recalled, not in the corpus: a declared assumption by commit date, the same for every
//     row). So the 2024-12 compile rows keep the FP32 upcast of the logits beside their FP32
//     log-softmax and the 2025 compile rows keep only the BF16 logits (fused.loss). Evidence: the
//     rows that state memory; the 8B compile rows of 2024-12 were -14 to -27 % with a fused loss.
// Not modelled, the same for every row: FP8 FSDP all-gathers. Hardware: the Grand Teton H100s
// (96 GB HBM2e, 500 W) are their own family (h100_500w); H200 hosts are p5en.48xlarge; the B200
// rows ran power-limited at a limit the page does not state (not expressible); the NVFP4 page's
// "Blackwell, SKU not stated" rows ran on GB200s (the device size their memory implies,
// blackwell_by_memory); their activation checkpointing is not stated: the config default of
// torchtitan's Llama 3 8B and Qwen3 configs, per-op selective AC (as row 31 infers it), a declared
// assumption for every such row. Evidence: with it, the four BF16 / MXFP8 rows' stated memory is
// predicted +6 to +11 %, and the NVFP4 rows' +3 to +5 % once NVFP4 GEMMs are outside the policy's
// save list (stacks/torchtitan.json). The NVFP4 rows' BF16 tail (the last 5 / 6 blocks) is
// Workload::bf16_layers. Trainium rows (none in the corpus yet; hardware "Trn2", "Trainium3", an
// "UltraServer"): TorchTitan Neuron over TorchNeuron (Neuron 2.33), on trn2 / trn2u / trn3 / trn3u
// with the torchneuron profile (compiled unless the row says eager), a "GPU" being a rank (a
// logical NeuronCore at the file's default LNC), family trainium. Hardware no corpus row names yet
//: any other H100 is an 80 GB SXM part in an 8-GPU NVLink node (dgx-h100), an A100
// 40GB is a p4d.24xlarge, a B300 a DGX B300 and a GB300 the GB300 NVL72 (a power-limited B300, like
// the B200, not expressible).
// A100 80GB: p4de.24xlarge (8 x A100 80GB, 400 Gb/s EFA per node), a declared assumption for
// every A100 row: the page names no cluster. Evidence: its two Llama 2 70B rows run at the same
// rate (355 tokens/s/GPU at micro-batch 1 with per-op selective AC, 353 at micro-batch 2 with full
// AC) although the first does ~20 % less compute per token: the signature of a step set by a cost
// fixed per step, which FSDP's traffic is (2 x 138 GB of BF16 gathers and 276 GB of FP32
// reduce-scatters per step). At 1,600 Gb/s per node (a DGX A100) that traffic takes ~2.8 s and
// hides behind the 9 s of compute, and the first row came out at 462 (+30 %); at 400 Gb/s it sets
// the step: 344 (-3 %). PyTorch's distributed team published FSDP scaling runs on AWS A100
// instances with EFA (recalled, not in the corpus).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "dataset_common.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"

namespace trnsim::datasets {
namespace {

struct TitanShape {
  const char* key;
  int64_t layers, hidden, heads, kv, ffn, vocab;
};
const TitanShape kShapes[] = {
    // Meta's released config.json files.
    {"Llama 3.1 8B", 32, 4096, 32, 8, 14336, 128256},    {"Llama 3 8B", 32, 4096, 32, 8, 14336, 128256},
    {"Llama 3.1 70B", 80, 8192, 64, 8, 28672, 128256},   {"Llama 3 70B", 80, 8192, 64, 8, 28672, 128256},
    {"Llama 3.1 405B", 126, 16384, 128, 8, 53248, 128256}, {"Llama 2 13B", 40, 5120, 40, 40, 13824, 32000},
    {"Llama 2 70B", 80, 8192, 64, 8, 28672, 32000},
    // Qwen's released config.json (the CSV's columns agree); head_dim 128. Its per-head q / k
    // RMSNorm is not modelled (two norms over 4,096 values per token per layer, < 0.1 % of its FLOPs).
    {"Qwen3 8B", 36, 4096, 32, 8, 12288, 151936},
};

// The device size a row's "Memory X GiB (Y%)" implies (X / Y); 0 when the notes do not say both.
double implied_device_gib(const std::string& notes) {
  const auto at = notes.find("GiB (");
  if (at == std::string::npos) return 0;
  size_t start = at;
  while (start > 0 && notes[start - 1] == ' ') --start;
  const size_t end = start;
  while (start > 0 && (std::isdigit(static_cast<unsigned char>(notes[start - 1])) || notes[start - 1] == '.')) --start;
  try {
    const double gib = std::stod(notes.substr(start, end - start)), pct = std::stod(notes.substr(at + 5));
    return pct > 0 ? gib * 100 / pct : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// Declared assumption: a Blackwell row whose SKU is not stated but whose memory is
// printed as GiB and as a % of the device ran on the Blackwell part with the smallest HBM at or
// above the device size that implies. The NVFP4 page's rows imply 184.3 GiB (110.95 GiB = 60.2 %,
// 179.94 = 97.6 %, 174.49 = 94.7 %): above the B200's 180 GiB, far below the B300's 288 (which
// would put them at 38-62 %): the GB200 (186 GiB), whose compute tray holds the 4 GPUs the rows ran.
std::string blackwell_by_memory(double device_gib) {
  std::string best;
  double best_cap = 0;
  for (const char* f : {"dgx-b200", "gb200-nvl72", "dgx-b300"}) {
    const double cap = load_hw_spec(hw_path(f)).hbm.capacity_per_chip.base() / double(1ull << 30);
    if (cap >= device_gib && (best.empty() || cap < best_cap)) best = f, best_cap = cap;
  }
  return best;
}

// The hardware cell as a hw file and family; empty: not expressible.
std::pair<std::string, std::string> titan_hw(const std::string& cell, double device_gib) {
  if (contains(cell, "H100") && contains(cell, "HBM2e")) return {"grand-teton-h100-96gb", "h100_500w"};
  if (contains(cell, "H200")) return {"p5en.48xlarge", "h100"};
  if (contains(cell, "H100")) return {"dgx-h100", "h100"};  // an 80 GB SXM part in an 8-GPU NVLink node
  if (contains(cell, "A100 80GB")) return {"p4de.24xlarge", "a100"};  // see the header
  if (contains(cell, "A100 40GB")) return {"p4d.24xlarge", "a100"};
  if (contains(cell, "GB200")) return {"gb200-nvl72", "blackwell"};  // before "B200", which it contains
  if (contains(cell, "GB300")) return {"gb300-nvl72", "blackwell"};  // before "B300"
  if (contains(cell, "B200")) return {contains(cell, "power limited") ? "" : "dgx-b200", "blackwell"};
  if (contains(cell, "B300")) return {contains(cell, "power limited") ? "" : "dgx-b300", "blackwell"};
  if (contains(cell, "Blackwell") && contains(cell, "SKU not stated") && device_gib > 0) return {blackwell_by_memory(device_gib), "blackwell"};
  // TorchTitan Neuron (Neuron 2.33) on Trainium: the instance, or its UltraServer; a rank ("GPU")
  // is a logical NeuronCore at the hw file's default LNC, as torchrun counts them.
  const bool ultra = contains(cell, "UltraServer") || contains(cell, "trn2u") || contains(cell, "trn3u");
  if (contains(cell, "Trn3") || contains(cell, "trn3") || contains(cell, "Trainium3"))
    return {ultra ? "trn3u.48xlarge" : "trn3.48xlarge", "trainium"};
  if (contains(cell, "Trn2") || contains(cell, "trn2") || contains(cell, "Trainium2"))
    return {ultra ? "trn2u.48xlarge" : "trn2.48xlarge", "trainium"};
  return {"", contains(cell, "Blackwell") || contains(cell, "GB200") ? "blackwell" : "h100"};
}

// The year of the torchtitan commit a row ran ("torchtitan 9dec370 (2024-12-26); torch ..."): the
// first "(YYYY-" in the cell; without one, the year of the torch it names: a nightly's
// "devYYYYMMDD", else a release "torch 2.N" with N >= 6 is 2025 or later (torch 2.6 was released
// in 2025-01; PyTorch's release notes); 0 when the cell says none of these.
int titan_year(const std::string& cell) {
  const auto digits = [&](size_t at, size_t n) {
    return at + n <= cell.size() && std::all_of(cell.begin() + static_cast<long>(at), cell.begin() + static_cast<long>(at + n),
                                                [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; });
  };
  for (size_t at = cell.find('('); at != std::string::npos; at = cell.find('(', at + 1))
    if (at + 5 < cell.size() && cell[at + 5] == '-' && digits(at + 1, 4)) return std::stoi(cell.substr(at + 1, 4));
  if (const size_t at = cell.find(".dev"); at != std::string::npos && digits(at + 4, 4)) return std::stoi(cell.substr(at + 4, 4));
  if (const size_t at = cell.find("torch 2."); at != std::string::npos && digits(at + 8, 1)) {
    size_t end = at + 8;
    while (digits(end, 1)) ++end;
    if (std::stoi(cell.substr(at + 8, end - at - 8)) >= 6) return 2025;
  }
  return 0;
}

}  // namespace

std::vector<ValidationCase> torchtitan(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  for (size_t r = 0; r < t.rows(); ++r) map_row(out, "torchtitan", Metric::TokensPerSPerGpu, r, [&] {
    const std::string model = t.at(r, "model"), hwcell = t.at(r, "hardware"), prec = t.at(r, "precision");
    const std::string rec = t.at(r, "recompute"), notes = t.at(r, "notes"), mbs = t.at(r, "micro_batch");
    const int64_t gpus = count(t, r, "gpus"), tp = count(t, r, "tp"), pp = count(t, r, "pp"), cp = count(t, r, "cp");
    const int64_t dp = gpus / (tp * pp * cp), gb = inum(t, r, "global_batch");
    ValidationCase c;
    c.dataset = "torchtitan";
    c.row = static_cast<int>(r + 1);
    c.model_name = model;
    c.quantity = Metric::TokensPerSPerGpu;
    const auto mapped = titan_hw(hwcell, implied_device_gib(notes));
    const std::string hw = mapped.first, family = mapped.second;  // (named: build_row's lambda captures them)
    c.family = family;
    c.label = fmt::format("{} {} GPUs {} {}", model, t.at(r, "gpus"), prec.substr(0, 24), rec);
    std::vector<std::string> blockers;
    if (dp < 1) blockers.push_back("published layout inconsistent: TP x PP x CP above the GPUs");
    const TitanShape* shape = nullptr;
    for (const auto& s : kShapes)
      if (model == s.key) shape = &s;
    // Llama 4 Scout (models/llama4-scout.json), MXFP8 MoE page: its heading says 512 GPUs, its config
    // 64 nodes x 4 = 256 with FSDP 256; per GPU (torchtitan logs tokens/s per device) the count
    // changes only the FSDP ring's (n - 1) / n. What decides these rows is their stated layout:
    // activation checkpointing "none" with a local batch of 10 x 8,192 tokens. Korthikanti et al.
    // 2022's closed form for one block's activations without recompute, 34 s b h bytes (BF16, no
    // sequence parallelism; an MoE block saves more), times the layers is 637 GiB here, over three
    // times a GB200's HBM: the transcribed layout cannot be the one that ran (the same check for
    // every row of the dataset).
    const bool scout = contains(model, "Llama 4 Scout");
    if (!shape && !scout) blockers.push_back("model shape not in trnsim");
    if (!hw.empty() && contains(rec, "none") && !mbs.empty()) {
      const double bound = 34.0 * num(t, r, "seq_len") * std::stod(mbs) * num(t, r, "hidden") * num(t, r, "layers");
      const Bytes hbm = load_hw_spec(hw_path(hw)).hbm.capacity_per_chip;
      if (bound > hbm.base())
        blockers.push_back(fmt::format("published layout inconsistent: without activation checkpointing, {} x {} tokens per GPU "
                                       "need >= 34 s b h L = {:.0f} GiB of activations (Korthikanti et al. 2022), the GPU has {:.0f} GiB",
                                       mbs, t.at(r, "seq_len"), in_gib(Bytes(bound)), in_gib(hbm)));
    }
    if (hw.empty())
      blockers.push_back(contains(hwcell, "power limited") ? "hardware: power-limited B200 (limit not stated)"
                                                           : "hardware SKU not stated");
    // Pipelined rows (declared assumptions, stacks/torchtitan.json): a single-stage schedule (1F1B)
    // holds one stage per rank, a looped one (Interleaved 1F1B) two; layers that do not divide the
    // stages split as evenly as possible (the profile's balanced split); and without a stated
    // micro-batch count the local batch splits into as many micro-batches as there are stages.
    const int64_t stages_per_rank = contains(notes, "Interleaved") ? 2 : 1;
    std::string micro = mbs;
    if (micro.empty() && pp > 1 && dp > 0 && contains(notes, "1F1B")) {
      const int64_t local = gb / dp, stages = pp * stages_per_rank;
      if (local % stages == 0) micro = std::to_string(local / stages);
    }
    if (micro.empty()) blockers.push_back("micro-batch not stated");
    // NVFP4 with a BF16 tail ("bf16 tail: layers 27-31 + LM head bf16"): the last blocks stay in
    // BF16 (Workload::bf16_layers; the LM head is BF16 in every low-precision run).
    int64_t bf16_last = 0;
    if (const size_t at = prec.find("bf16 tail: layers "); at != std::string::npos) {
      const std::string span = prec.substr(at + 18);
      const size_t dash = span.find('-');
      const int64_t layers = inum(t, r, "layers");
      if (dash != std::string::npos && std::isdigit(static_cast<unsigned char>(span[0])) &&
          std::isdigit(static_cast<unsigned char>(span[dash + 1])) && std::stoll(span.substr(dash + 1)) == layers - 1)
        bf16_last = layers - std::stoll(span);
      else
        blockers.push_back("per-layer mixed precision other than a BF16 tail");
      c.label = fmt::format("{} {} GPUs {} + BF16 tail {}", model, t.at(r, "gpus"), prec.substr(0, prec.find(" (")), rec);
    }
    Precision p = Precision::MixedBF16;
    Fp8Recipe recipe = Fp8Recipe::Current;
    if (contains(prec, "mxfp8") || contains(prec, "MXFP8")) p = Precision::MXFP8;
    else if (contains(prec, "NVFP4")) p = Precision::NVFP4;
    else if (contains(prec, "fp8") || contains(prec, "float8")) {
      p = Precision::FP8;
      if (contains(prec, "rowwise")) recipe = Fp8Recipe::Rowwise;
    }
    c.measured = num(t, r, "measured_value");
    for (size_t i = 0; i < blockers.size(); ++i) c.not_expressible += (i ? "; " : "") + blockers[i];
    if (blockers.empty()) build_row(c, [&] {
      ModelSpec m = llama3(shape->key, shape->layers, shape->hidden, shape->heads, shape->ffn);
      m.kv_heads = shape->kv;
      m.vocab = shape->vocab;
      const int64_t seq = inum(t, r, "seq_len"), mb = std::stoll(micro);
      m.max_seq = std::max(m.max_seq, seq);
      const int64_t per_node = cores_per_node_of(hw);
      Workload w = workload(file, r, m, hw, std::max<int64_t>(1, gpus / per_node), tp, pp, dp, mb, gb, seq);
      w.cp = cp;
      if (gpus < per_node) w.cores_per_node = gpus;
      w.precision = p;
      w.fp8_recipe = recipe;
      w.bf16_last_layers = bf16_last;
      // The per-op policy counts the unfused wq, wk, wv, wo, w1, w3, w2 matmuls in that order; "not
      // stated" is the config default, per-op (header). Set before the profile, which says what
      // the per-op policy saves.
      const bool every_k = contains(rec, "layer");  // selective layer AC: full on every 2nd block (header)
      w.checkpointing = contains(rec, "full") || every_k ? Checkpointing::Full
                        : contains(rec, "selective") || contains(rec, "not stated") ? Checkpointing::OpSelective
                                                                                     : Checkpointing::None;
      if (every_k) w.checkpoint_every = 2;
      // On Trainium torchtitan runs as TorchTitan Neuron over TorchNeuron (its profile: compiled by
      // default, NKI flash attention); a row that says eager runs eager.
      const bool neuron = family == "trainium";
      const Checkpointing stated = w.checkpointing;
      w = with_stack(w, stack_profile(neuron ? "torchneuron" : "torchtitan"));
      w.checkpointing = stated;  // the row's policy, not a profile's default (torchneuron: selective)
      w.tp_overlap = w.tp_overlap_forward = tp > 1 && contains(notes, "async TP");  // fused AG + matmul, matmul + RS
      if (neuron) {
        if (contains(notes, "eager")) w.execution = "eager", w.fused_elementwise = false;
      } else {
        // torch.compile fuses the element-wise chains; eager (the config default) does not.
        w.fused_elementwise = contains(notes, "compile") && !contains(notes, "compile=eager") && !contains(notes, "compile not stated");
        // The loss runs eagerly unless compiled, and torchtitan compiled it only from 2025 (header).
        w.loss_kernel = w.fused_elementwise && titan_year(t.at(r, "framework_version")) >= 2025 ? Workload::LossKernel::Compiled
                                                                                                 : Workload::LossKernel::Eager;
      }
      if (pp > 1) {
        w.virtual_stages = stages_per_rank;
        // apply_fsdp with PP: no reshard after forward; the pipeline schedule turns FSDP2's gradient
        // sync off until the last micro-batch, so the unsharded gradients accumulate.
        w.fsdp_reshard_after_forward = false;
        w.reduce_every_micro_batch = false;
        if (m.layers % (pp * stages_per_rank) != 0) w.pipeline_split = Workload::PipelineSplit::Balanced;
      }
      c.has_workload = true;
      c.workload = w;
      c.model = m;
      fill_features(c);
    });
    out.push_back(c);
    // The peak memory a row states ("Memory 82.4 GiB", torchtitan's max reserved over ranks).
    const auto at = notes.find("Memory ");
    if (c.has_workload && at != std::string::npos && at + 7 < notes.size() &&
        std::isdigit(static_cast<unsigned char>(notes[at + 7])) && notes.find("GiB", at) != std::string::npos)
      out.push_back(peak_memory_case(c, std::stod(notes.substr(at + 7))));
  });
  return out;
}

}  // namespace trnsim::datasets
