// cmd_inspect.cpp — the `validate`, `list` and `graph` subcommands: check files, list the shipped
// hardware / models / workloads / stack profiles, and draw a step's operator graph.
#include <fmt/format.h>

#include "op_graph.hpp"  // before graphviz: the warning guard below
TRNSIM_BOOST_GRAPH_HEADERS_BEGIN
#include <boost/graph/graphviz.hpp>
TRNSIM_BOOST_GRAPH_HEADERS_END
#include <filesystem>
#include <sstream>
#include <iostream>
#include <map>

#include <unistd.h>

#include "trnsim/atomic_file.hpp"
#include "cli_args.hpp"
#include "compare.hpp"
#include "prices.hpp"
#include "trnsim/json_reader.hpp"
#include "workload_set.hpp"
#include "fault_injection.hpp"
#include "platform.hpp"
#include "commands.hpp"
#include "report.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"

namespace trnsim {
int cmd_validate(const ArgList& argv) {
  Args a("validate", "FILE.json...",
         "Strictly check hw/, models/, workloads/, stacks/, studies/ and prices/ files (kind told from the keys);\n"
         "workloads are also checked against their model and hardware, memory included.");
  a.option("data-dir", "", "directory holding hw/ and models/");
  if (!a.parse(argv)) return 0;
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  if (a.positional().empty()) throw UsageError("trnsim validate: give at least one file");
  int bad = 0;
  for (const auto& f : a.positional()) {
    try {
      // The kind from the shape: a study (models + hardware), a price file (plans + instances), else
      // hw / model / stack / workload (validate_file tells those apart).
      const nlohmann::json j = load_json_file(f);
      if (j.contains("models") && j.contains("hardware")) check_study_file(f);
      else if (j.contains("plans") && j.contains("instances")) (void)load_price_file(f);
      else validate_file(f);
      std::cout << "ok   " << f << "\n";
    } catch (const ConfigError& e) {
      std::cout << "FAIL " << e.what() << "\n";
      ++bad;
    }
  }
  return bad == 0 ? 0 : 1;
}

int cmd_list(const ArgList& argv) {
  Args a("list", "", "List the hardware, models, workloads and training-stack profiles trnsim knows (from the data directory).");
  a.option("data-dir", "", "directory holding hw/, models/, workloads/ and stacks/");
  if (!a.parse(argv)) return 0;
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  for (const char* dir : {"hw", "models", "workloads", "stacks"}) {
    std::cout << dir << ":\n";
    std::vector<std::string> names;
    const auto path = std::filesystem::path(data_dir()) / dir;
    if (std::filesystem::is_directory(path))
      for (const auto& e : std::filesystem::directory_iterator(path))
        if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names) std::cout << "  " << n << "\n";
  }
  return 0;
}

int cmd_graph(const ArgList& argv) {
  Args a("graph", "WORKLOAD.json [options]",
         "Print the per-step op counts, FLOPs and bytes by op kind for the workload's representative\n"
         "cores, and optionally write stage 0's operator graph as Graphviz DOT.");
  a.option("dot", "", "write stage 0's graph to FILE (Graphviz DOT)")
      .option("set", "", kWorkloadSetHelp)
      .option("data-dir", "", "directory holding hw/ and models/");
  if (!a.parse(argv)) return 0;
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  if (a.positional().size() != 1) throw UsageError("trnsim graph: expected one workload file");
  Scenario s = load_scenario_with_set(a.positional()[0], a.get("set"), true);
  const double mbs = static_cast<double>(s.plan.micro_batches);
  struct Row {
    double count = 0, tflop = 0, gb_read = 0, gb_written = 0, comm_gb = 0;
  };
  std::map<std::string, Row> rows;
  for (const auto& st : s.plan.stages) {
    auto add = [&](OpVertex v, double times) {
      const Op& o = st.graph[v];
      auto& r = rows[fmt::format("{:<15} {:<10}", to_string(o.kind), to_string(o.phase))];
      r.count += times;
      r.tflop += times * in_tflops(o.flops);
      r.gb_read += times * in_gb(o.bytes_read);
      r.gb_written += times * in_gb(o.bytes_written);
      r.comm_gb += times * in_gb(o.comm_bytes);
    };
    for (auto v : st.forward) add(v, mbs);
    for (auto v : st.backward) add(v, mbs);
    for (auto b : st.dp_buckets) add(b.op, 1);
    for (auto v : st.optimizer) add(v, 1);
  }
  std::cout << fmt::format("{} — per step, summed over the {} stage(s)' representative cores\n", s.workload.name,
                           s.plan.stages.size());
  std::cout << fmt::format("{:<26} {:>9} {:>12} {:>12} {:>12} {:>12}\n", "kind / phase", "count", "TFLOP", "GB read",
                           "GB written", "comm GB");
  for (const auto& [k, r] : rows)
    std::cout << fmt::format("{:<26} {:>9.0f} {:>12.3f} {:>12.3f} {:>12.3f} {:>12.3f}\n", k, r.count, r.tflop, r.gb_read,
                             r.gb_written, r.comm_gb);
  std::cout << fmt::format("whole cluster per step: model {:.1f} TFLOP, hardware (with recompute) {:.1f} TFLOP\n",
                           in_tflops(s.plan.model_flops), in_tflops(s.plan.hardware_flops));
  if (!s.fits) std::cout << "warning: " << s.memory_error << "\n";
  if (a.has("dot")) {
    std::ostringstream out;
    const auto& g = s.plan.stages.front().graph;
    boost::write_graphviz(out, g, [&](std::ostream& os, OpVertex v) {
      os << "[label=\"" << g[v].label << "\\n" << to_string(g[v].kind) << "\"]";
    });
    write_file_atomically(a.get("dot"), out.str());
    std::cout << "wrote " << a.get("dot") << "\n";
  }
  return 0;
}

}  // namespace trnsim
