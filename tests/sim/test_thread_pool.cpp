// test_thread_pool.cpp — the reused SystemC threads (thread_pool.hpp) behave as spawned ones: a
// task starts in the same evaluation phase sc_spawn would start it, a process creates only as
// many threads as were ever busy at once, and a step simulated twice in one process (threads
// reused the second time) takes exactly the same time.
#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "platform.hpp"
#include "run_helpers.hpp"
#include "run_kernel.hpp"
#include "sim_time.hpp"

using namespace trnsim;

namespace {
// Starts a pooled task and a spawned one from inside a simulation at 5 ns; returns the
// (time since the run began, delta) at which each began. Times as sc_time: exact.
struct Start {
  sc_core::sc_time at;
  uint64_t delta = 0;
};
std::pair<Start, Start> start_both(ThreadPool& pool) {
  Start pooled, spawned;
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  auto now = [&] { return Start{sc_core::sc_time_stamp() - t0, sc_core::sc_delta_count()}; };
  sc_core::sc_spawn([&] {
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_NS));
    pool.run([&] { pooled = now(); });
    sc_core::sc_spawn([&] { spawned = now(); });
  });
  run_kernel();
  return {pooled, spawned};
}
}  // namespace

TEST_CASE("a pooled task starts when a spawned thread would", "[pool][tlm]") {
  ThreadPool& pool = Platform::instance().threads();
  for (int round = 0; round < 2; ++round) {  // the first may create a thread, the second reuses one
    INFO("round " << round);
    const auto [pooled, spawned] = start_both(pool);
    CHECK(pooled.at == sc_core::sc_time(5, sc_core::SC_NS));
    CHECK(pooled.at == spawned.at);
    CHECK(pooled.delta == spawned.delta);  // same delta cycle
  }
}

TEST_CASE("the pool creates only as many threads as were busy at once", "[pool][tlm]") {
  ThreadPool& pool = Platform::instance().threads();
  const size_t before = pool.threads();
  int finished = 0;
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 3; ++k)
      pool.run([&finished, k] {
        sc_core::wait(sc_core::sc_time(1 + k, sc_core::SC_NS));
        ++finished;
      });
    run_kernel();
  }
  CHECK(finished == 9);
  CHECK(pool.threads() <= before + 3);
  const size_t after = pool.threads();
  for (int k = 0; k < 3; ++k) pool.run([&finished] { ++finished; });
  run_kernel();
  CHECK(pool.threads() == after);
}

TEST_CASE("a step simulated again in the same process takes the same time", "[pool][step]") {
  Workload w = test::llama(4, 64);
  w.pp = 2;
  w.dp = 8;
  w.tp = 8;
  const StepResult first = test::run(w);
  const size_t threads = Platform::instance().threads().threads();
  const StepResult second = test::run(w);
  CHECK(second.step_time_s == first.step_time_s);
  CHECK(Platform::instance().threads().threads() == threads);
}
