// thread_pool.cpp — see thread_pool.hpp.
#include "thread_pool.hpp"

namespace trnsim {

void ThreadPool::run(std::function<void()> task) {
  if (!idle_.empty()) {
    Worker* w = idle_.back();
    idle_.pop_back();
    w->task = std::move(task);
    w->go.notify();  // immediate: runnable in this evaluation phase, like a spawned thread
    return;
  }
  workers_.push_back(std::make_unique<Worker>());
  Worker* w = workers_.back().get();
  w->task = std::move(task);
  sc_core::sc_spawn(sc_bind(&ThreadPool::loop, this, w), sc_core::sc_gen_unique_name("pool"));
}

void ThreadPool::loop(Worker* w) {
  for (;;) {
    {
      // Destroy the task (and what it captured) before the worker is offered again.
      auto task = std::move(w->task);
      w->task = nullptr;
      task();
    }
    idle_.push_back(w);
    sc_core::wait(w->go);
  }
}

}  // namespace trnsim
