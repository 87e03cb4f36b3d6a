// layouts.cpp — see layouts.hpp.
#include "layouts.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "hw_spec.hpp"
#include "layout_rules.hpp"
#include "model_spec.hpp"
#include "scenario.hpp"
#include "stack_profile.hpp"

namespace trnsim {

std::string layout_id(const Workload& w) {
  return fmt::format("{}-{}-{}n-tp{}-pp{}-dp{}-mb{}-{}-z{}-{}", w.model, w.hw, w.nodes, w.tp, w.pp, w.dp, w.micro_batch,
                     to_string(w.checkpointing), w.zero, w.fused_qkv ? "fused" : "unfused");
}

std::vector<Workload> enumerate_layouts(const LayoutSpace& sp) {
  const ModelSpec m = load_model_spec(model_path(sp.model));
  const HwSpec hw = sp.hw_set.empty() ? load_hw_spec(hw_path(sp.hw)) : load_hw_with_edits(sp.hw, sp.hw_set);
  const int64_t devices = sp.nodes * hw.cores_per_node();
  std::optional<StackProfile> stack;
  if (!sp.stack.empty()) stack = load_stack_profile(stack_lookup()(sp.stack));
  std::set<std::string> seen;
  std::vector<Workload> out;
  for (int64_t tp = 1; tp <= hw.cores_per_node(); tp *= 2) {
    if (!tp_problem(m, tp).empty()) continue;
    for (int64_t pp = 1; pp <= m.layers && tp * pp <= devices; ++pp) {
      if (m.layers % pp || devices % (tp * pp)) continue;
      const int64_t dp = devices / (tp * pp);
      for (int64_t mb : sp.micro_batches) {
        if (sp.global_batch % (dp * mb)) continue;
        for (auto ck : sp.checkpointing)
          for (int z : sp.zero) {
            if (z == 1 && dp == 1) continue;
            for (bool fused : sp.fused) {
              Workload w;
              w.model = sp.model;
              w.hw = sp.hw;
              w.nodes = sp.nodes;
              w.tp = tp;
              w.pp = pp;
              w.dp = dp;
              w.sequence_parallel = tp > 1;
              w.zero = z;
              w.micro_batch = mb;
              w.global_batch = sp.global_batch;
              w.seq_len = sp.seq_len;
              w.precision = sp.precision;
              w.fp32_grads = sp.precision != Precision::BF16_SR;
              w.checkpointing = ck;
              w.fused_qkv = w.fused_gate_up = fused;
              w.lora.rank = sp.lora_rank;
              w.name = w.file = layout_id(w);
              if (stack) {  // the loader's rules: the profile's fields, then the sweep's recompute axis
                w = with_stack(w, *stack);
                w.checkpointing = ck;
                w.name = w.file = layout_id(w);
              }
              if (seen.insert(w.name).second) out.push_back(w);
            }
          }
      }
    }
  }
  return out;
}

}  // namespace trnsim
