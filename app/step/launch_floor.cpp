// launch_floor.cpp — see launch_floor.hpp.
#include "launch_floor.hpp"

#include <algorithm>

namespace trnsim {

void apply_launch_floor(const StageProgram& st, const std::vector<OpVertex>& list, double dispatch_s, std::vector<double>& d) {
  if (dispatch_s <= 0) return;
  auto fused = [&](size_t i) {
    const Op& o = st.graph[list[i]];
    return !o.is_collective() && (o.onchip_in || o.onchip_out);
  };
  for (size_t i = 0; i < list.size();) {
    if (st.graph[list[i]].is_collective()) {
      ++i;
      continue;
    }
    if (!fused(i)) {
      d[i] = std::max(d[i], dispatch_s * st.graph[list[i]].launches);
      ++i;
      continue;
    }
    size_t j = i;
    double total = 0;
    for (; j < list.size() && fused(j); ++j) total += d[j];
    d[i] += std::max(0.0, dispatch_s - total);
    i = j;
  }
}

}  // namespace trnsim
