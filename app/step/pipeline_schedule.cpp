// pipeline_schedule.cpp — see pipeline_schedule.hpp.
#include "pipeline_schedule.hpp"

#include <algorithm>

namespace trnsim {

std::vector<Slot> rank_schedule(Schedule sched, int p, int r, int m, int v) {
  std::vector<Slot> order;
  const int total = m * v;
  auto fwd = [&](int k) { return Slot{true, (k / p) % v, (k / (p * v)) * p + k % p}; };
  auto bwd = [&](int k) { return Slot{false, v - 1 - (k / p) % v, (k / (p * v)) * p + k % p}; };
  if (sched == Schedule::GPipe) {
    for (int k = 0; k < total; ++k) order.push_back(fwd(k));
    for (int k = 0; k < total; ++k) order.push_back(bwd(k));
    return order;
  }
  const int warm = std::min(total, v == 1 ? p - r - 1 : (p - r - 1) * 2 + (v - 1) * p);
  for (int k = 0; k < warm; ++k) order.push_back(fwd(k));
  for (int i = 0; i < total - warm; ++i) {
    order.push_back(fwd(warm + i));
    order.push_back(bwd(i));
  }
  for (int i = total - warm; i < total; ++i) order.push_back(bwd(i));
  // Steady-state pairs: the slots after the warm-up two by two, shifted by one without warm-up.
  const int first = warm == 0 ? 1 : warm;                              // the first paired slot
  const int end = warm + 2 * (total - warm) - (warm == 0 ? 1 : 0);      // one past the last
  for (int i = first; i + 1 < end; i += 2) {
    order[static_cast<size_t>(i)].pair = 1;
    order[static_cast<size_t>(i) + 1].pair = 2;
  }
  return order;
}

}  // namespace trnsim
