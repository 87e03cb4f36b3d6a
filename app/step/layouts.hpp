// layouts.hpp — enumerates parallel layouts of a model on a cluster: TP dividing heads
// and within a node, PP dividing layers, DP the rest, micro-batch sizes, checkpointing,
// ZeRO and fusion; optionally under a training-stack profile, in a low precision or as LoRA
// fine-tuning. Used by `sweep` and by the reproduction's best-p4d search.
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
  Precision precision = Precision::BF16_SR;
  // A training-stack profile (stacks/<stack>.json, "" = none) applied to every layout: the fields
  // it sets win over the enumerated ones (a stack with ZeRO-3 makes every layout ZeRO-3), and
  // layouts that become identical are listed once.
  std::string stack;
  int64_t lora_rank = 0;  // LoRA adapters of this rank on every linear layer (0: full training)
  // What-if edits of the hw file (as `trnsim run --hw-set`, json_edits.hpp; "" = the file as it is).
  std::string hw_set;
};

// Every combination that passes the structural checks (divisibility); memory is checked later.
std::vector<Workload> enumerate_layouts(const LayoutSpace& space);
std::string layout_id(const Workload& w);

}  // namespace trnsim
