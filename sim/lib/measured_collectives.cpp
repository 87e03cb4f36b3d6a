// measured_collectives.cpp — see measured_collectives.hpp.
#include "measured_collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "trnsim/csv_table.hpp"
#include "trnsim/error.hpp"

namespace trnsim {

std::optional<OpKind> collective_named(const std::string& word) {
  if (word == "all_reduce") return OpKind::AllReduce;
  if (word == "all_gather") return OpKind::AllGather;
  if (word == "reduce_scatter") return OpKind::ReduceScatter;
  if (word == "alltoall") return OpKind::AllToAll;
  return std::nullopt;
}

const char* collective_word(OpKind kind) {
  switch (kind) {
    case OpKind::AllReduce: return "all_reduce";
    case OpKind::AllGather: return "all_gather";
    case OpKind::ReduceScatter: return "reduce_scatter";
    case OpKind::AllToAll: return "alltoall";
    default: return "?";
  }
}

double bus_factor(OpKind kind, int ranks) {
  const double n = ranks;
  return kind == OpKind::AllReduce ? 2 * (n - 1) / n : (n - 1) / n;
}

std::vector<MeasuredCollective> load_collective_table(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  const std::string op_column = t.has("collective") ? "collective" : "op";
  const bool mib = t.has("size_MB");
  for (const auto& [present, what] : {std::pair<bool, const char*>{t.has(op_column), "collective"}, {t.has("nodes"), "nodes"},
                                      {mib || t.has("size_bytes"), "size_MB (MiB) or size_bytes"}, {t.has("busbw_GBps"), "busbw_GBps"}})
    if (!present)
      throw ConfigError(fmt::format("{}: no {} column; a measured collective table has the columns collective, nodes, size_MB "
                                    "(or size_bytes) and busbw_GBps, as nccl-tests reports them", file, what));
  std::vector<MeasuredCollective> out;
  for (size_t r = 0; r < t.rows(); ++r) {
    auto bad = [&](const std::string& column, const std::string& why) {
      return ConfigError(fmt::format("{}: row {}: column {}: {}", file, r + 1, column, why));
    };
    auto number = [&](const std::string& column) {
      const std::string& cell = t.at(r, column);
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      if (cell.empty() || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 1e15)
        throw bad(column, fmt::format("\"{}\" is not a positive number", cell));
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
  if (out.empty()) throw ConfigError(fmt::format("{}: no data rows; give one row per (collective, nodes, size)", file));
  return out;
}

std::vector<MeasuredCollective> rows_for(const std::vector<MeasuredCollective>& rows, const std::string& instance) {
  std::vector<MeasuredCollective> out;
  for (const auto& m : rows)
    if (m.hardware.empty() || m.hardware.rfind(instance, 0) == 0) out.push_back(m);
  return out;
}

namespace {
// Linear interpolation of y over x (sorted, distinct), held at the ends.
double interpolate(const std::vector<std::pair<double, double>>& xy, double x) {
  if (x <= xy.front().first) return xy.front().second;
  if (x >= xy.back().first) return xy.back().second;
  const auto hi = std::lower_bound(xy.begin(), xy.end(), std::make_pair(x, -1e300));
  const auto lo = hi - 1;
  const double f = (x - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}
}  // namespace

std::optional<double> MeasuredTable::seconds(OpKind kind, int nodes, double size_bytes, int ranks_per_node) const {
  if (nodes < 2 || size_bytes <= 0) return std::nullopt;
  OpKind look = kind;
  double share = 1;
  const auto has = [&](OpKind k) { return std::any_of(rows.begin(), rows.end(), [&](const MeasuredCollective& m) { return m.kind == k; }); };
  if (!has(kind)) {
    if ((kind == OpKind::ReduceScatter || kind == OpKind::AllGather) && has(OpKind::AllReduce)) look = OpKind::AllReduce, share = 0.5;
    else return std::nullopt;
  }
  // Per node count: log2 size -> bus bandwidth; then across log2 node counts at this size.
  std::vector<std::pair<double, double>> across;
  for (const auto& [n, xy] : curves(look)) across.push_back({std::log2(static_cast<double>(n)), interpolate(xy, std::log2(size_bytes))});
  const double busbw = interpolate(across, std::log2(static_cast<double>(nodes))) * 1e9;
  const int ranks = nodes * ranks_per_node;
  return share * size_bytes * bus_factor(look, ranks) / busbw;
}

const std::map<int, MeasuredTable::Curve>& MeasuredTable::curves(OpKind kind) const {
  const int k = static_cast<int>(kind);
  const auto it = curves_.find(k);
  if (it != curves_.end()) return it->second;
  std::map<int, Curve>& by_nodes = curves_[k];
  for (const auto& m : rows)
    if (m.kind == kind) by_nodes[m.nodes].push_back({std::log2(m.size_bytes), m.busbw_GBps});
  for (auto& [n, xy] : by_nodes) {
    std::sort(xy.begin(), xy.end());
    xy.erase(std::unique(xy.begin(), xy.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), xy.end());
  }
  return by_nodes;
}

std::string MeasuredTable::digest() const {
  if (!digest_.empty()) return digest_;
  std::string s;
  for (const auto& m : rows) s += fmt::format("{}:{}:{}:{};", static_cast<int>(m.kind), m.nodes, m.size_bytes, m.busbw_GBps);
  return digest_ = fmt::format("{:016x}", std::hash<std::string>{}(s));
}

}  // namespace trnsim
