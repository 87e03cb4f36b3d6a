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
// (nccl-tests, nccom-test) measures. Seconds.
double idle_collective_seconds(const HwSpec& hw, const CollectiveCall& call);

}  // namespace trnsim
