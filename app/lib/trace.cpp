// trace.cpp — trace-event JSON writer (see trace.hpp).
#include "trace.hpp"

#include <map>
#include <nlohmann/json.hpp>

namespace trnsim {

std::string trace_json(const std::vector<TraceEvent>& events, const std::string& title) {
  nlohmann::json out;
  out["displayTimeUnit"] = "ms";
  out["otherData"] = {{"title", title}, {"time_unit", "microseconds of simulated time"}};
  auto& ev = out["traceEvents"] = nlohmann::json::array();
  std::map<std::string, int> tids;
  for (const auto& e : events)
    if (!tids.count(e.track)) tids.emplace(e.track, static_cast<int>(tids.size()) + 1);
  ev.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", title}}}});
  for (const auto& [track, tid] : tids)
    ev.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", track}}}});
  for (const auto& e : events)
    ev.push_back({{"ph", "X"}, {"pid", 1}, {"tid", tids[e.track]}, {"name", e.name}, {"ts", e.start_us}, {"dur", e.dur_us}});
  return out.dump(1);
}

}  // namespace trnsim
