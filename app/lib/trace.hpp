// trace.hpp — Chrome / Perfetto trace-event JSON of one simulated step: one track per
// stage's compute engines, its TP / PP / DP communication, and the links they use.
#pragma once
#include <string>
#include <vector>

namespace trnsim {

struct TraceEvent {
  std::string name, track;
  double start_us = 0, dur_us = 0;
};

std::string trace_json(const std::vector<TraceEvent>& events, const std::string& title);

}  // namespace trnsim
