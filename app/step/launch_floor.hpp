// launch_floor.hpp — the host's issue cost in eager execution, per kernel launch.
// Eager PyTorch issues every kernel from the host: a kernel takes at least the host's dispatch time
// (HostSpec::op_dispatch_s). A fused kernel is one launch however many ops model it: flash
// attention's scores, softmax and context (and its backward) pass their operands on chip
// (Op::onchip_in / onchip_out), so a run of consecutive such ops pays the floor once, on its
// total. The executor and the search's step bound apply the same rule to the same op lists.
#pragma once
#include <vector>

#include "step_graph.hpp"

namespace trnsim {

// `d[i]` holds the device time of list[i] (collectives: ignored, they end a fused run); on return
// each launch lasts at least `dispatch_s`: a lone op max(d, launches x floor) (Op::launches: an op
// the framework issues as several kernels), a fused run's first op d + max(0, floor - the run's total).
void apply_launch_floor(const StageProgram& st, const std::vector<OpVertex>& list, double dispatch_s, std::vector<double>& d);

}  // namespace trnsim
