// collective_table.cpp — see collective_table.hpp.
#include "collective_table.hpp"

#include <fmt/format.h>

#include <cmath>

#include "csv_table.hpp"
#include "trnsim/error.hpp"

namespace trnsim {

std::vector<MeasuredCollective> load_collective_table(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  const std::string op_column = t.has("collective") ? "collective" : "op";
  const bool mib = t.has("size_MB");
  std::vector<MeasuredCollective> out;
  for (size_t r = 0; r < t.rows(); ++r) {
    auto bad = [&](const std::string& column, const std::string& why) {
      return ConfigError(fmt::format("{}: row {}: column {}: {}", file, r + 1, column, why));
    };
    auto number = [&](const std::string& column) {
      const std::string& cell = t.at(r, column);
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      if (cell.empty() || *end != '\0' || !std::isfinite(v) || v <= 0) throw bad(column, fmt::format("\"{}\" is not a positive number", cell));
      return v;
    };
    MeasuredCollective m;
    const auto kind = collective_named(t.at(r, op_column));
    if (!kind) throw bad(op_column, fmt::format("\"{}\" is not all_reduce, all_gather, reduce_scatter or alltoall", t.at(r, op_column)));
    m.kind = *kind;
    const double nodes = number("nodes");
    if (nodes != std::floor(nodes) || nodes > 1e5) throw bad("nodes", "expected a whole number of nodes");
    m.nodes = static_cast<int>(nodes);
    m.size_bytes = mib ? number("size_MB") * 1024.0 * 1024.0 : number("size_bytes");
    m.busbw_GBps = number("busbw_GBps");
    if (t.has("hardware")) m.hardware = t.at(r, "hardware");
    m.row = r + 1;
    out.push_back(m);
  }
  return out;
}

std::vector<MeasuredCollective> rows_for(const std::vector<MeasuredCollective>& rows, const HwSpec& hw) {
  std::vector<MeasuredCollective> out;
  for (const auto& m : rows)
    if (m.hardware.empty() || m.hardware.rfind(hw.instance, 0) == 0) out.push_back(m);
  return out;
}

std::vector<CollectiveComparison> compare_collectives(const HwSpec& hw, const std::vector<MeasuredCollective>& rows) {
  std::vector<CollectiveComparison> out;
  for (const auto& m : rows) out.push_back({bench_collective(hw, m.kind, m.nodes, m.size_bytes), m});
  return out;
}

}  // namespace trnsim
