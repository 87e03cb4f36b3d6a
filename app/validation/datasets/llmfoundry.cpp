// llmfoundry.cpp — the validation adapter of one dataset (dataset_common.hpp has the rules).
// mosaicml/llm-foundry's benchmarking table (scripts/train/benchmarking/README.md, July 2023,
// torch 1.13 image), A100 80GB with 1600 Gbps node-to-node RoCE. Measured: tokens/s/GPU.
// Stack: stacks/llm-foundry.json (Composer + PyTorch FSDP1 FULL_SHARD: ZeRO-3 per block, the
// FP32 flat parameter as the master, PURE mixed precision: BF16 parameters, gradients and
// reductions; flash attention, the yaml default Triton kernel). Row facts used as stated: model
// shape, sequence, GPUs, micro and global batch, activation checkpointing (full or none).
// MPT shapes (the repo's yamls, validation README): MHA, FFN 4·d, GeLU, LayerNorm, learned
// positions over the row's sequence, vocabulary 50368, tied embeddings, no dropout; the table's
// parameter counts include biases, so the blocks keep Megatron GPT's biases. Hardware: the DGX
// A100 80GB of Korthikanti's runs (8 x 200 Gb/s = 1600 Gbps per node, as the table's cluster).
// The README's other sections (none in the corpus yet) by their hardware cell: "A100 40GB" the DGX
// A100 40GB (the same 1600 Gbps), "H100 80GB" the DGX H100 (3200 Gbps), FP8 rows as Transformer
// Engine's delayed scaling (Composer's amp_fp8).
#include <fmt/format.h>

#include <algorithm>

#include "dataset_common.hpp"
#include "scenario.hpp"

namespace trnsim::datasets {
namespace {
// The hardware cell as a hw file and family; empty: not expressible.
std::pair<std::string, std::string> foundry_hw(const std::string& cell) {
  if (contains(cell, "H100")) return {"dgx-h100", "h100"};
  if (contains(cell, "A100 40GB")) return {"dgx-a100-40g", "a100"};
  if (contains(cell, "A100")) return {"dgx-a100-80g", "a100"};
  return {"", "unknown"};
}
}  // namespace

std::vector<ValidationCase> llmfoundry(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  for (size_t r = 0; r < t.rows(); ++r) map_row(out, "llmfoundry", Metric::TokensPerSPerGpu, r, [&] {
    const std::string model = t.at(r, "model"), rec = t.at(r, "recompute");
    const int64_t gpus = count(t, r, "gpus"), seq = inum(t, r, "seq_len");
    ValidationCase c;
    c.dataset = "llmfoundry";
    c.row = static_cast<int>(r + 1);
    c.model_name = model;
    const auto hw_family = foundry_hw(t.at(r, "hardware"));  // not a structured binding: the lambda below captures it
    const std::string hw = hw_family.first;
    c.family = hw_family.second;
    c.quantity = Metric::TokensPerSPerGpu;
    c.measured = num(t, r, "measured_value");
    c.label = fmt::format("{} seq {} {} GPUs mb{} {}", model, seq, gpus, t.at(r, "micro_batch"),
                          contains(rec, "full") ? "full AC" : "no AC");
    if (inum(t, r, "tp") != 1 || inum(t, r, "pp") != 1) c.not_expressible = "llm-foundry 2023 rows are FSDP only";
    if (hw.empty()) c.not_expressible = "hardware \"" + t.at(r, "hardware") + "\": no file (A100 40GB / 80GB, H100 80GB)";
    if (c.not_expressible.empty()) build_row(c, [&] {
      ModelSpec m = megatron_gpt(model, inum(t, r, "layers"), inum(t, r, "hidden"), inum(t, r, "heads"), inum(t, r, "ffn"),
                                 seq, inum(t, r, "vocab"));
      m.dropout = 0;
      const int64_t per_node = std::min<int64_t>(8, gpus);
      Workload w = workload(file, r, m, hw, std::max<int64_t>(1, gpus / per_node), 1, 1, gpus,
                            inum(t, r, "micro_batch"), inum(t, r, "global_batch"), seq);
      if (gpus < per_node) w.cores_per_node = gpus;
      w.precision = contains(t.at(r, "precision"), "fp8") ? Precision::FP8 : Precision::MixedBF16;
      if (w.precision == Precision::FP8) w.fp8_recipe = Fp8Recipe::Delayed;  // TE's DelayedScaling (amp_fp8)
      w = with_stack(w, stack_profile("llm-foundry"));
      w.checkpointing = contains(rec, "full") ? Checkpointing::Full : Checkpointing::None;
      c.has_workload = true;
      c.workload = w;
      c.model = m;
      fill_features(c);
    });
    out.push_back(c);
  });
  return out;
}

}  // namespace trnsim::datasets
