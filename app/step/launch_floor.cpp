// launch_floor.cpp — see launch_floor.hpp.
#include "launch_floor.hpp"

#include <algorithm>

#include "fused_runs.hpp"

namespace trnsim {

void apply_launch_floor(const StageProgram& st, const std::vector<OpVertex>& list, double dispatch_s, std::vector<double>& d) {
  if (dispatch_s <= 0) return;
  for (size_t i = 0; i < list.size(); ++i) {
    const Op& o = st.graph[list[i]];
    if (!o.is_collective() && !in_fused_run(o)) d[i] = std::max(d[i], dispatch_s * o.launches);
  }
  for_each_fused_run(st, list, [&](size_t begin, size_t end) {
    double total = 0;
    for (size_t k = begin; k < end; ++k) total += d[k];
    d[begin] += std::max(0.0, dispatch_s - total);
  });
}

}  // namespace trnsim
