// layouts.hpp — the sweep's layout axes: TP a power of two within a node (dividing the heads), PP
// dividing the layers, DP the rest, micro-batch sizes, checkpointing, ZeRO and fusion; optionally
// under a training-stack profile, in a low precision or as LoRA fine-tuning. The layouts come from
// the one enumerator (layout_space.hpp) with these axes as its limits, so the sweep and the search
// admit the same layouts by the same rules. Used by `sweep` and by the reproduction's best-p4d search.
#pragma once
#include <string>
#include <vector>

#include "workload.hpp"

namespace trnsim {

struct LayoutSpace {
  std::string model, hw;
  int64_t nodes = 1, seq_len = 2048, global_batch = 1024;
  std::vector<int64_t> micro_batches{1, 2, 4};
  std::vector<Checkpointing> checkpointing{Checkpointing::None, Checkpointing::Selective, Checkpointing::Full};
  std::vector<int> zero{0, 1};
  std::vector<bool> fused{true, false};
  // BF16_SR or MixedBF16: the chip's BF16 (with stochastic rounding where it has it); FP8, MXFP8,
  // NVFP4: that format (layouts on a chip that lacks it are not enumerated).
  Precision precision = Precision::BF16_SR;
  // A training-stack profile (stacks/<stack>.json, "" = none) applied to every layout: the fields
  // it sets win over the enumerated ones (a stack with ZeRO-3 makes every layout ZeRO-3), and
  // layouts that become identical are listed once.
  std::string stack;
  int64_t lora_rank = 0;  // LoRA adapters of this rank on every linear layer (0: full training)
  // What-if edits of the hw file (as `trnsim run --hw-set`, json_edits.hpp; "" = the file as it is).
  std::string hw_set;
};

// Every combination that passes the structural checks (layout_rules.hpp and the enumerator's
// arithmetic); memory is checked later. Throws ConfigError for a precision the sweep has no axis value for.
std::vector<Workload> enumerate_layouts(const LayoutSpace& space);
std::string layout_id(const Workload& w);

}  // namespace trnsim
