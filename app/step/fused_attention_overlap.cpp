// fused_attention_overlap.cpp — see fused_attention_overlap.hpp.
#include "fused_attention_overlap.hpp"

#include <algorithm>

#include "fused_runs.hpp"

namespace trnsim {

void overlap_fused_attention(const StageProgram& st, const std::vector<OpVertex>& list, int64_t key_tile,
                             std::vector<double>& d) {
  const int64_t tile = std::max<int64_t>(key_tile, 1);
  for_each_fused_run(st, list, [&](size_t begin, size_t end) {
    double gemm = 0, other = 0;
    int64_t keys = 0;
    bool native = true;
    for (size_t k = begin; k < end; ++k) {
      const Op& o = st.graph[list[k]];
      if (o.kind == OpKind::Gemm) {
        gemm += d[k];
        native = native && o.attention_kernel == AttentionKernel::Native;
      } else {
        other += d[k];
        keys = std::max(keys, o.row);  // softmax, dS and exp rows run over the key columns
      }
    }
    if (!native || gemm <= 0 || other <= 0) return;
    const double steps = static_cast<double>(std::max<int64_t>(1, (keys + tile - 1) / tile));
    const double scale = (std::max(gemm, other) + std::min(gemm, other) / steps - gemm) / other;
    for (size_t k = begin; k < end; ++k)
      if (st.graph[list[k]].kind != OpKind::Gemm) d[k] *= scale;
  });
}

}  // namespace trnsim
