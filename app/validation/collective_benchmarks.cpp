// collective_benchmarks.cpp — see collective_benchmarks.hpp.
#include "collective_benchmarks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "collective_bench.hpp"
#include "measured_collectives.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"
#include "validation.hpp"

namespace trnsim {
nlohmann::json collective_benchmarks(const std::string& csv_dir) {
  nlohmann::json out = nlohmann::json::object();
  std::vector<std::filesystem::path> tables;
  if (std::filesystem::is_directory(csv_dir))
    for (const auto& e : std::filesystem::directory_iterator(csv_dir)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("nccl_tests_", 0) == 0 && e.path().extension() == ".csv") tables.push_back(e.path());
    }
  std::sort(tables.begin(), tables.end());
  for (const auto& path : tables) {
    const auto rows = load_collective_table(path.string());
    std::map<std::string, std::vector<MeasuredCollective>> by_hw;  // instance: the hardware column's first word
    for (const auto& r : rows) {
      const std::string hw = r.hardware.substr(0, r.hardware.find(' '));
      if (hw.empty()) throw ConfigError(fmt::format("{} row {}: column hardware: name the instance (e.g. p5.48xlarge)", path.string(), r.row));
      by_hw[hw].push_back(r);
    }
    std::vector<double> all;  // signed errors: whole table, per node count, per collective
    std::map<int, std::vector<double>> nodes;
    std::map<std::string, std::vector<double>> ops;
    nlohmann::json hws = nlohmann::json::array();
    for (const auto& [hw, measured] : by_hw) {
      hws.push_back(hw);
      for (const CollectiveComparison& c : compare_collectives(load_hw_spec(hw_path(hw)), measured)) {
        all.push_back(c.error());
        nodes[c.measured.nodes].push_back(c.error());
        ops[collective_word(c.measured.kind)].push_back(c.error());
      }
    }
    nlohmann::json t = {{"file", path.filename().string()}, {"hw", hws}, {"error", error_stats(all)}};
    for (const auto& [n, errs] : nodes) t["by_nodes"][std::to_string(n)] = error_stats(errs);
    for (const auto& [op, errs] : ops) t["by_collective"][op] = error_stats(errs);
    out[path.stem().string() + " / busbw"] = t;
  }
  return out;
}

std::string collective_benchmarks_markdown(const nlohmann::json& b) {
  if (b.empty()) return "";
  std::string o =
      "\n## Collective benchmarks (bus bandwidth on idle links)\n\n"
      "Each row of the corpus's nccl-tests tables against `trnsim collective` on the hw file its hardware column names "
      "(error = trnsim's bus bandwidth / measured − 1; positive: trnsim faster). No parameter is fitted on these rows: "
      "the in-sample and the left-out error are one figure. Details and mechanisms: docs/validation.md.\n\n"
      "| table | hardware | rows | mean abs % (in-sample = left out) | bias % | per node count, mean abs % | per collective, mean abs % |\n"
      "|---|---|---|---|---|---|---|\n";
  for (auto it = b.begin(); it != b.end(); ++it) {
    const auto& t = it.value();
    std::vector<std::pair<int, double>> nodes;
    for (auto n = t["by_nodes"].begin(); n != t["by_nodes"].end(); ++n) nodes.push_back({std::stoi(n.key()), n.value()["mean_abs_pct"].get<double>()});
    std::sort(nodes.begin(), nodes.end());
    std::string per_nodes, per_op, hws;
    for (const auto& [n, e] : nodes) per_nodes += fmt::format("{}{}: {:.1f}", per_nodes.empty() ? "" : ", ", n, e);
    for (auto op = t["by_collective"].begin(); op != t["by_collective"].end(); ++op)
      per_op += fmt::format("{}{}: {:.1f}", per_op.empty() ? "" : ", ", op.key(), op.value()["mean_abs_pct"].get<double>());
    for (const auto& h : t["hw"]) hws += (hws.empty() ? "" : ", ") + h.get<std::string>();
    o += fmt::format("| {} | {} | {} | {:.1f} | {:+.1f} | {} | {} |\n", t["file"].get<std::string>(), hws, t["error"]["n"].get<int>(),
                     t["error"]["mean_abs_pct"].get<double>(), t["error"]["bias_pct"].get<double>(), per_nodes, per_op);
  }
  return o;
}

}  // namespace trnsim
