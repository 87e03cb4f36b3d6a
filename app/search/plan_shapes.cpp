// plan_shapes.cpp — see plan_shapes.hpp.
#include "plan_shapes.hpp"

#include <algorithm>
#include <atomic>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "platform.hpp"
#include "report.hpp"
#include "step_bound.hpp"
#include "step_graph.hpp"
#include "trnsim/error.hpp"

namespace trnsim {
namespace {

// Runs f(i) for i in [begin, end) on `threads` threads (the caller is one of them); rethrows the
// first exception a call raised.
template <class F>
void parallel_for(size_t begin, size_t end, int threads, F&& f) {
  std::atomic<size_t> next{begin};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (size_t i = next++; i < end; i = next++) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = end;
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t extra = std::min<size_t>(static_cast<size_t>(std::max(threads, 1) - 1), end > begin ? end - begin - 1 : 0);
  for (size_t t = 0; t < extra; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

void describe(PlanShape& sh, const StepPlan& plan) {
  sh.memory = rank_memory_inputs(plan);
  for (const auto& st : plan.stages)
    sh.parameters.push_back(st.trainable_parameters), sh.expert_parameters.push_back(st.expert_parameters),
        sh.pieces.push_back(piece_runs(st.pieces));
  sh.ranks = plan.ranks;
  sh.vstages = plan.virtual_stages;
  sh.ops_per_micro_batch = 0;
  for (const auto& st : plan.stages)
    sh.ops_per_micro_batch += static_cast<double>(st.forward.size() + st.backward.size() + st.optimizer.size());
  sh.ok = true;
}

void time_with(PlanShape& sh, const StepWork& work) {
  sh.F = work.forward_s;
  sh.B_serial = work.backward_s;  // the jobs have tp_overlap off
  sh.B_overlap = work.backward_other_s;
  sh.timed = true;
}

}  // namespace

std::vector<PlanShape> build_plan_shapes(const std::vector<ShapeJob>& jobs, const ModelSpec& model,
                                         const std::vector<HwSpec>& hws, const ShapeNeeded& needed, int threads,
                                         bool progress) {
  const bool tty = isatty(2) != 0;
  std::vector<PlanShape> shapes(jobs.size());
  // A batch holds a few plans per thread (a plan of a large model is megabytes) of one hardware.
  const size_t batch = 4 * static_cast<size_t>(std::max(threads, 1));
  for (size_t i = 0; i < jobs.size();) {
    size_t j = i;
    while (j < jobs.size() && j - i < batch && jobs[j].hw == jobs[i].hw) ++j;
    const HwSpec& hw = hws[jobs[i].hw];
    Platform::instance().configure(hw);  // the look-ups read this hardware's op timings
    std::vector<std::optional<StepPlan>> plans(j - i);
    std::vector<std::unique_ptr<WorkTimes>> times(j - i);
    // 1. Build the plans and time them from the memo tables, noting what is not there yet.
    parallel_for(i, j, threads, [&](size_t k) {
      try {
        plans[k - i] = build_step_plan(model, jobs[k].workload);
      } catch (const ConfigError& e) {
        shapes[k].reason = rejection_reason(e.what());
        return;
      }
      describe(shapes[k], *plans[k - i]);
      if (!needed(k, shapes[k])) {
        plans[k - i].reset();
        return;
      }
      times[k - i] = std::make_unique<WorkTimes>(hw, false);
      const StepWork work = step_work(*plans[k - i], hw, false, jobs[k].workload.ep_overlap, *times[k - i], false);  // optimizer: per (dp, zero), by the search
      if (!times[k - i]->missed()) {
        time_with(shapes[k], work);
        plans[k - i].reset();  // freed by the thread that allocated it (cross-thread frees contend in malloc)
      }
    });
    // 2. Simulate what was missed, here (the SystemC thread).
    bool missed = false;
    for (auto& t : times)
      if (t && t->missed()) t->simulate_missed(), missed = true;
    // 3. Finish the shapes that missed some timing: every look-up now hits.
    if (missed) {
      Platform::instance().configure(hw);
      parallel_for(i, j, threads, [&](size_t k) {
        if (!plans[k - i]) return;
        WorkTimes again(hw, false);
        const StepWork work = step_work(*plans[k - i], hw, false, jobs[k].workload.ep_overlap, again, false);
        if (again.missed()) throw std::logic_error("plan shapes: an op timing missed after it was simulated");
        time_with(shapes[k], work);
        plans[k - i].reset();
      });
    }
    if (progress && tty) std::fprintf(stderr, "\rtrnsim search: %zu / %zu plan shapes", j, jobs.size());
    if (progress && !tty && j * 10 / jobs.size() > i * 10 / jobs.size())  // a line per tenth where stderr is a log
      std::fprintf(stderr, "trnsim search: %zu / %zu plan shapes\n", j, jobs.size());
    i = j;
  }
  if (progress && tty && !jobs.empty()) std::fputc('\n', stderr);
  return shapes;
}

}  // namespace trnsim
