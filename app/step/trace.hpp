// trace.hpp — Chrome / Perfetto trace-event JSON of one simulated step: one track per
// stage's compute engines, its TP / PP / DP communication, and the links they use.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trnsim {

struct TraceEvent {
  std::string name, track;
  double start_us = 0, dur_us = 0;
};

// How much of the step the events cover. Long 1F1B / GPipe schedules simulate only the first
// `micro_batches_simulated` of `micro_batches` and extrapolate the steady state; the trace then
// says so (otherData.coverage and a closing marker at the end of the simulated part) instead of
// passing a 4 s window off as a 1,080 s step.
struct TraceCoverage {
  int64_t micro_batches_simulated = 0;
  int64_t micro_batches = 0;
  double step_time_s = 0;
};

std::string trace_json(const std::vector<TraceEvent>& events, const std::string& title, const TraceCoverage& coverage);

}  // namespace trnsim
