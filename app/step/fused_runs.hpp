// fused_runs.hpp — which consecutive ops of an op list are one fused kernel.
// A flash-attention kernel is modelled as several ops (scores, softmax, context and their backward)
// that pass their operands on chip (Op::onchip_in / onchip_out); a collective ends a run. The launch
// floor (launch_floor.hpp) charges such a run one launch, and a native kernel's run overlaps its
// GEMMs and softmax (fused_attention_overlap.hpp): both ask this one rule.
#pragma once
#include <cstddef>
#include <vector>

#include "step_graph.hpp"

namespace trnsim {

inline bool in_fused_run(const Op& o) { return !o.is_collective() && (o.onchip_in || o.onchip_out); }

// Calls f(begin, end) for every maximal run [begin, end) of list positions whose ops are in_fused_run.
template <class F>
void for_each_fused_run(const StageProgram& st, const std::vector<OpVertex>& list, F&& f) {
  for (size_t i = 0; i < list.size();) {
    if (!in_fused_run(st.graph[list[i]])) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < list.size() && in_fused_run(st.graph[list[j]])) ++j;
    f(i, j);
    i = j;
  }
}

}  // namespace trnsim
