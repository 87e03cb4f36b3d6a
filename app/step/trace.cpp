// trace.cpp — trace-event JSON writer (see trace.hpp).
#include "trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace trnsim {

std::string trace_json(const std::vector<TraceEvent>& events, const std::string& title, const TraceCoverage& c) {
  nlohmann::json out;
  out["displayTimeUnit"] = "ms";
  const bool partial = c.micro_batches_simulated < c.micro_batches;
  double end_us = 0;
  for (const auto& e : events) end_us = std::max(end_us, e.start_us + e.dur_us);
  const std::string note =
      partial ? fmt::format("partial: the trace shows {} of the step's {} micro-batches ({:.4f} s); the other {} "
                            "repeat the steady state and were extrapolated, so the step takes {:.4f} s",
                            c.micro_batches_simulated, c.micro_batches, end_us * 1e-6,
                            c.micro_batches - c.micro_batches_simulated, c.step_time_s)
              : fmt::format("complete: all {} micro-batches of the step ({:.4f} s)", c.micro_batches, c.step_time_s);
  out["otherData"] = {{"title", title},
                      {"time_unit", "microseconds of simulated time"},
                      {"coverage", note},
                      {"micro_batches_simulated", c.micro_batches_simulated},
                      {"micro_batches_in_step", c.micro_batches},
                      {"step_time_s", c.step_time_s}};
  auto& ev = out["traceEvents"] = nlohmann::json::array();
  std::map<std::string, int> tids;
  for (const auto& e : events)
    if (!tids.count(e.track)) tids.emplace(e.track, static_cast<int>(tids.size()) + 1);
  ev.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", title}}}});
  for (const auto& [track, tid] : tids)
    ev.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", track}}}});
  for (const auto& e : events)
    ev.push_back({{"ph", "X"}, {"pid", 1}, {"tid", tids[e.track]}, {"name", e.name}, {"ts", e.start_us}, {"dur", e.dur_us}});
  if (partial)  // a global instant marker where the simulated part ends, carrying the note
    ev.push_back({{"ph", "i"}, {"s", "g"}, {"pid", 1}, {"tid", 0}, {"name", "end of simulated micro-batches"},
                  {"ts", end_us}, {"args", {{"note", note}}}});
  return out.dump(1);
}

}  // namespace trnsim
