// platform.hpp — the one SystemC elaboration of a process: a representative chip (for
// op timing) and the fabric (for collectives). SystemC elaborates once per process, so
// this is built on first use, before any sc_start, and reconfigured per hw description.
#pragma once
#include "chip.hpp"
#include "collective.hpp"
#include "fabric.hpp"
#include "op_timer.hpp"
#include "thread_pool.hpp"

namespace trnsim {

class Platform {
 public:
  static Platform& instance();
  void configure(const HwSpec& hw);
  Chip& chip() { return chip_; }
  Fabric& fabric() { return fabric_; }
  OpTimer& timer() { return timer_; }
  // Reusable thread processes for the step's ranks and collectives (thread_pool.hpp).
  ThreadPool& threads() { return threads_; }

 private:
  Platform();
  Chip chip_;
  Fabric fabric_;
  OpTimer timer_;
  ThreadPool threads_;
};

// One collective alone on idle links of `hw` (the platform is configured for it), with the hw
// file's algorithms: the least it takes inside a step, and what a collective benchmark
// (nccl-tests, nccom-test) measures. Seconds. With a measured table (collectives.measured) its
// bytes are scaled as measured_bytes_scale says.
double idle_collective_seconds(const HwSpec& hw, const CollectiveCall& call);
// The algorithm that call runs across nodes (the tuner's pick, where the hw file names two), or the
// intra-node algorithm when the group stays in one node; "pairwise" for an all-to-all, "p2p" for a send.
std::string collective_algorithm_for(const HwSpec& hw, const CollectiveCall& call);

// With a measured collective table, a collective that crosses `nodes` nodes moves its bytes x a
// factor, so that on idle links a whole-node group of that kind, node count and size takes what the
// table says: (T_table - L) / (k x size), where T = L + k x size is the modelled idle time of that
// whole-node group (its latencies and per-byte time). Any other group of those nodes (one rank per
// node for DP beside TP, say) keeps its own latencies and takes the same factor on its bandwidth
// time: what the cluster delivers at that scale and size against the model. 1 without a table, for
// a kind it does not measure, or inside one node. prepare_measured (which simulates the two idle
// runs) must have run for (kind, nodes) first, outside a running step.
// Where the table is faster than the model's latencies alone can be, the latencies and per-step
// costs scale too (every part of the call but its fixed call overhead, by one factor).
struct MeasuredScale {
  double bytes = 1, latency = 1;
};
void prepare_measured(const HwSpec& hw, OpKind kind, int nodes);
MeasuredScale measured_scale(const HwSpec& hw, OpKind kind, int nodes, double size_bytes);
// The call as the measured table has it (itself without a table).
CollectiveCall as_measured(const HwSpec& hw, const CollectiveCall& call);

}  // namespace trnsim
