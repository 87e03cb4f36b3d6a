// platform.hpp — the one SystemC elaboration of a process: a representative chip (for
// op timing) and the fabric (for collectives). SystemC elaborates once per process, so
// this is built on first use, before any sc_start, and reconfigured per hw description.
#pragma once
#include "chip.hpp"
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

}  // namespace trnsim
