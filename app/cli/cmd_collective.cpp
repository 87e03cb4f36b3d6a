// cmd_collective.cpp — the `collective` subcommand: trnsim's collectives on idle links, printed as
// nccl-tests / nccom-test print them, and beside a measured table when one is given.
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "cli_args.hpp"
#include "collective_bench.hpp"
#include "command_api.hpp"
#include "commands.hpp"
#include "scenario.hpp"
#include "trnsim/atomic_file.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {

std::vector<double> sizes_from(const std::string& text) {
  std::vector<double> out;
  const auto dots = text.find("..");
  if (dots != std::string::npos) {  // a doubling range, as nccl-tests' -b LO -e HI -f 2
    const auto lo = parse_size(text.substr(0, dots)), hi = parse_size(text.substr(dots + 2));
    if (!lo || !hi || *hi < *lo)
      throw UsageError(fmt::format("trnsim collective: --size {}: expected LO..HI with sizes like 32M..8G (K / M / G / T: powers of 1024)", text));
    for (double s = *lo; s <= *hi * (1 + 1e-9) && out.size() < 64; s *= 2) out.push_back(s);
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto s = parse_size(item);
    if (!s) throw UsageError(fmt::format("trnsim collective: --size: \"{}\" is not a size (e.g. 32M, 1G, 4096)", item));
    out.push_back(*s);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string size_text(double b) {
  for (const auto& [unit, scale] : std::vector<std::pair<const char*, double>>{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}})
    if (b >= scale && std::fmod(b, scale) == 0) return fmt::format("{:g}{}", b / scale, unit);
  return fmt::format("{:g}", b);
}

nlohmann::json row_json(const CollectiveBench& b) {
  return {{"op", b.op}, {"nodes", b.nodes}, {"ranks", b.ranks}, {"size_bytes", b.size_bytes}, {"time_us", b.time_s * 1e6},
          {"algbw_GBps", b.algbw_GBps}, {"busbw_GBps", b.busbw_GBps}, {"algorithm", b.algorithm}};
}

}  // namespace

Args collective_args() {
  Args a("collective", "--hw INSTANCE [options]",
         "Time one collective over every rank of N nodes on idle links, with the hw file's algorithms (what a\n"
         "step's collectives cost before contention), and print it as nccl-tests / nccom-test do: size, time,\n"
         "algorithm bandwidth (size / time) and bus bandwidth (algbw x 2(n-1)/n for all_reduce, x (n-1)/n for\n"
         "the others). With --compare, the rows of a measured table (nccl-tests CSV: collective, nodes, size_MB\n"
         "or size_bytes, busbw_GBps[, hardware]) beside trnsim's, and the mean error overall and per node count.");
  a.option("hw", "", "instance name (hw/<name>.json)")
      .option("op", "all_reduce", "all_reduce | all_gather | reduce_scatter | alltoall")
      .option("nodes", "2", "comma-separated node counts")
      .option("size", "32M..8G", "sizes per rank: LO..HI doubling, or a comma list (K / M / G / T: powers of 1024, as nccl-tests)")
      .option("compare", "", "measured table (CSV) to compare with; its rows replace --op / --nodes / --size")
      .option("hw-set", "", "what-if edits of the hw file, e.g. \"inter_node.nic_Gbps_per_node=6400\" or \"collectives.measured_table=FILE\"")
      .option("format", "text", "text | json")
      .option("output", "", "write to FILE (atomically) instead of standard output")
      .option("data-dir", "", "directory holding hw/ and models/");
  return a;
}

nlohmann::json collective_json(const Args& a) {
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  if (!a.positional().empty()) throw UsageError("trnsim collective: takes no positional arguments; see --help");
  if (!a.has("hw")) throw UsageError("trnsim collective: --hw is required (e.g. --hw p5.48xlarge; `trnsim list` shows them)");
  check_data_names(a);
  (void)a.choice("format", {"text", "json"});
  // Every option is read before anything is simulated.
  const auto kind = collective_named(a.get("op"));
  if (!kind) throw UsageError(fmt::format("trnsim collective: --op {}: use all_reduce, all_gather, reduce_scatter or alltoall", a.get("op")));
  const std::vector<int64_t> nodes = a.integers("nodes", 1, 100000);
  const std::vector<double> sizes = sizes_from(a.get("size"));
  const HwSpec hw = a.get("hw-set").empty() ? load_hw_spec(hw_path(a.get("hw"))) : load_hw_with_edits(a.get("hw"), a.get("hw-set"));
  std::vector<MeasuredCollective> measured;
  if (a.has("compare")) {
    measured = rows_for(load_collective_table(a.get("compare")), hw.instance);
    if (measured.empty())
      throw ConfigError(fmt::format("{}: no row is for {} (its hardware column names other instances)", a.get("compare"), hw.instance));
  }
  nlohmann::json doc = {{"hw", hw.instance}, {"algorithms", {{"inter", hw.collectives.inter_algorithm}, {"intra", hw.collectives.intra_algorithm}}},
                        {"ranks_per_node", hw.cores_per_node()}, {"rows", nlohmann::json::array()}};
  if (!hw.collectives.measured.empty()) doc["measured_table"] = hw.collectives.measured.file;
  if (measured.empty()) {
    for (int64_t n : nodes)
      for (double s : sizes) doc["rows"].push_back(row_json(bench_collective(hw, *kind, static_cast<int>(n), s)));
    return doc;
  }
  doc["compare"] = a.get("compare");
  std::map<int, std::pair<double, int>> by_nodes;
  double sum = 0;
  for (const CollectiveComparison& c : compare_collectives(hw, measured)) {
    nlohmann::json r = row_json(c.predicted);
    r["measured_busbw_GBps"] = c.measured.busbw_GBps;
    r["error"] = c.error();
    r["table_row"] = c.measured.row;
    doc["rows"].push_back(r);
    sum += std::abs(c.error());
    auto& [s, n] = by_nodes[c.measured.nodes];
    s += std::abs(c.error());
    ++n;
  }
  doc["mean_abs_error"] = sum / static_cast<double>(measured.size());
  for (const auto& [n, sn] : by_nodes) doc["mean_abs_error_by_nodes"][std::to_string(n)] = sn.first / sn.second;
  return doc;
}

namespace {
std::string collective_text(const nlohmann::json& doc) {
  const bool compared = doc.contains("compare");
  std::string text = fmt::format("# trnsim collective on {} ({} ranks per node; {} across nodes, {} inside), idle links{}\n",
                                 doc["hw"].get<std::string>(), doc["ranks_per_node"].get<int>(), doc["algorithms"]["inter"].get<std::string>(),
                                 doc["algorithms"]["intra"].get<std::string>(),
                                 doc.contains("measured_table") ? fmt::format("; measured table {}", doc["measured_table"].get<std::string>()) : "");
  if (compared) text += fmt::format("# measured: {}; error = trnsim busbw / measured - 1 (+ = trnsim faster)\n", doc["compare"].get<std::string>());
  text += fmt::format("{:>14} {:>6} {:>6} {:>9} {:>12} {:>13} {:>13} {:>13}", "op", "nodes", "ranks", "size", "time (us)", "algbw (GB/s)",
                      "busbw (GB/s)", "algorithm");
  text += compared ? fmt::format(" {:>16} {:>8}\n", "measured (GB/s)", "error") : "\n";
  for (const auto& r : doc["rows"]) {
    text += fmt::format("{:>14} {:>6} {:>6} {:>9} {:>12.1f} {:>13.2f} {:>13.2f} {:>13}", r["op"].get<std::string>(), r["nodes"].get<int>(),
                        r["ranks"].get<int>(), size_text(r["size_bytes"].get<double>()), r["time_us"].get<double>(),
                        r["algbw_GBps"].get<double>(), r["busbw_GBps"].get<double>(), r["algorithm"].get<std::string>());
    text += compared ? fmt::format(" {:>16.2f} {:>+7.1f}%\n", r["measured_busbw_GBps"].get<double>(), 100 * r["error"].get<double>()) : "\n";
  }
  if (compared) {
    text += fmt::format("mean abs error on bus bandwidth: {:.1f} % over {} rows;", 100 * doc["mean_abs_error"].get<double>(), doc["rows"].size());
    std::map<int, double> by_nodes;  // JSON keeps its keys as text; the line lists node counts in order
    for (auto it = doc["mean_abs_error_by_nodes"].begin(); it != doc["mean_abs_error_by_nodes"].end(); ++it)
      by_nodes[std::stoi(it.key())] = it.value().get<double>();
    for (const auto& [n, e] : by_nodes) text += fmt::format(" {} nodes {:.1f} %", n, 100 * e);
    text += "\n";
  }
  return text;
}
}  // namespace

int cmd_collective(const ArgList& argv) {
  Args a = collective_args();
  if (!a.parse(argv)) return 0;
  if (a.has("output")) check_writable(a.get("output"));  // before the work
  const nlohmann::json doc = collective_json(a);
  const std::string out = a.get("format") == "json" ? doc.dump(2) + "\n" : collective_text(doc);
  if (a.has("output")) write_file_atomically(a.get("output"), out);
  else std::cout << out;
  return 0;
}

}  // namespace trnsim
