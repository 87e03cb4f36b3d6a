// fused_attention_overlap.cpp — see fused_attention_overlap.hpp.
#include "fused_attention_overlap.hpp"

#include <algorithm>

namespace trnsim {

void overlap_fused_attention(const StageProgram& st, const std::vector<OpVertex>& list, int64_t key_tile,
                             std::vector<double>& d) {
  const int64_t tile = std::max<int64_t>(key_tile, 1);
  auto in_kernel = [&](size_t i) {
    const Op& o = st.graph[list[i]];
    return !o.is_collective() && o.fused_attention && (o.onchip_in || o.onchip_out);
  };
  for (size_t i = 0; i < list.size();) {
    if (!in_kernel(i)) {
      ++i;
      continue;
    }
    size_t j = i;
    double gemm = 0, other = 0;
    int64_t keys = 0;
    bool pipelined = true;
    for (; j < list.size() && in_kernel(j); ++j) {
      const Op& o = st.graph[list[j]];
      if (o.kind == OpKind::Gemm) {
        gemm += d[j];
        pipelined = pipelined && o.attention_kernel == AttentionKernel::Native;
      } else {
        other += d[j];
        keys = std::max(keys, o.row);  // softmax, dS and exp rows run over the key columns
      }
    }
    if (pipelined && gemm > 0 && other > 0) {
      const double steps = static_cast<double>(std::max<int64_t>(1, (keys + tile - 1) / tile));
      const double total = std::max(gemm, other) + std::min(gemm, other) / steps;
      const double scale = (total - gemm) / other;
      for (size_t k = i; k < j; ++k)
        if (st.graph[list[k]].kind != OpKind::Gemm) d[k] *= scale;
    }
    i = j;
  }
}

}  // namespace trnsim
