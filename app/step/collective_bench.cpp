// collective_bench.cpp — see collective_bench.hpp.
#include "collective_bench.hpp"

#include <cmath>
#include <cstdlib>

#include "platform.hpp"
#include "topology.hpp"

namespace trnsim {

std::optional<double> parse_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(v) || v <= 0) return std::nullopt;
  std::string unit(end);
  for (const char* suffix : {"iB", "B"})
    if (unit.size() >= std::string(suffix).size() && unit.compare(unit.size() - std::string(suffix).size(), std::string::npos, suffix) == 0) {
      unit.resize(unit.size() - std::string(suffix).size());
      break;
    }
  double scale = 0;
  if (unit.empty()) scale = 1;
  else if (unit == "K" || unit == "k") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  if (scale == 0 || v * scale > 1e15) return std::nullopt;
  return std::round(v * scale);
}

CollectiveBench bench_collective(const HwSpec& hw, OpKind kind, int nodes, double size_bytes) {
  Platform::instance().configure(hw);
  CollectiveBench b;
  b.op = collective_word(kind);
  b.nodes = nodes;
  b.ranks = nodes * hw.cores_per_node();
  b.size_bytes = size_bytes;
  const CollectiveCall call{kind, Bytes(size_bytes), layout_group(hw, 1, b.ranks), ExpertRouting{}};
  b.time_s = idle_collective_seconds(hw, call);
  b.algorithm = collective_algorithm_for(hw, call);
  b.algbw_GBps = b.time_s > 0 ? size_bytes / b.time_s / 1e9 : 0;
  b.busbw_GBps = b.algbw_GBps * bus_factor(kind, b.ranks);
  return b;
}

std::vector<CollectiveComparison> compare_collectives(const HwSpec& hw, const std::vector<MeasuredCollective>& rows) {
  std::vector<CollectiveComparison> out;
  for (const auto& m : rows) out.push_back({bench_collective(hw, m.kind, m.nodes, m.size_bytes), m});
  return out;
}

}  // namespace trnsim
