// thread_pool.hpp — SystemC thread processes that are reused instead of spawned per task.
// Why it exists: a step simulation runs every collective in its own thread process, and the
// calibration fits simulate thousands of steps. sc_spawn allocates a coroutine stack and
// mprotects its guard page each time; freed stacks go back to the allocator and come back as
// fresh zero pages, so `trnsim validation` spent more time in page faults than in the model
// (345 s of kernel time against 218 s of user time on the corpus). A pool keeps the threads
// of the process alive, each waiting for its next task, so a process creates only as many as
// were ever busy at once.
//
// Timing is that of sc_spawn: an idle thread is released by an immediate notification, so the
// task starts in the same evaluation phase as a spawned thread would.
#pragma once
#include <functional>
#include <memory>
#include <systemc>
#include <vector>

namespace trnsim {

class ThreadPool {
 public:
  // Runs `task` in a SystemC thread process (from inside or outside a simulation run).
  void run(std::function<void()> task);
  // Thread processes created so far (the most ever busy at once).
  size_t threads() const { return workers_.size(); }

 private:
  struct Worker {
    std::function<void()> task;
    sc_core::sc_event go;
  };
  void loop(Worker* w);
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> idle_;
};

}  // namespace trnsim
