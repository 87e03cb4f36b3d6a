// run_helpers.hpp — what the step tests share: the R3 workload path, a step run, and the
// Llama-2 7B trn1 layout the invariants vary.
#pragma once
#include <string>

#include "helpers.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"

namespace trnsim::test {
inline const std::string kR3 = std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json";

inline StepResult run(const Workload& w, bool allow_oom = true) { return execute_step(make_scenario(w, allow_oom)); }

inline Workload llama(int64_t nodes, int64_t global_batch) {
  auto w = workload("llama2-7b", "trn1.32xlarge", nodes, 8, 1, nodes * 4, 1, global_batch, 4096);
  w.sequence_parallel = true;
  w.zero = 1;
  w.checkpointing = Checkpointing::Selective;
  return w;
}
}  // namespace trnsim::test
