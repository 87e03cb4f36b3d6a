// cmd_compare.cpp — the `compare` subcommand: a study file -> results/<name>.{md,json,svg},
// and --check: the numbers against a stored copy within a tolerance (the CI golden test).
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "cli_args.hpp"
#include "command_api.hpp"
#include "commands.hpp"
#include "compare.hpp"
#include "scenario.hpp"
#include "trnsim/atomic_file.hpp"
#include "trnsim/fork_map.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {

// First difference between two result documents: numbers beyond `rel` relative (or 1e-9
// absolute) tolerance, strings / booleans / shapes that differ. Paths of files are not compared.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, double rel, const std::string& path) {
  if (path == "/study/file" || path == "/prices/file") return "";
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::abs(x - y) <= rel * std::max(std::abs(x), std::abs(y)) + 1e-9 ? ""
                                                                             : fmt::format("{}: {} vs {}", path, x, y);
  }
  if (a.type() != b.type()) return fmt::format("{}: {} vs {}", path, a.dump(), b.dump());
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return fmt::format("{}/{}: missing in the new result", path, it.key());
      auto d = first_difference(it.value(), b[it.key()], rel, path + "/" + it.key());
      if (!d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) return fmt::format("{}/{}: not in the stored result", path, it.key());
    return "";
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return fmt::format("{}: {} vs {} entries", path, a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      auto d = first_difference(a[i], b[i], rel, path + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    return "";
  }
  return a == b ? "" : fmt::format("{}: {} vs {}", path, a.dump(), b.dump());
}

}  // namespace

Args compare_args() {
  Args a("compare", "STUDY.json [options]",
         "For every model and hardware of a study file (studies/*.json), search the fastest layout at the study's\n"
         "chip count, at BF16 and at the chip's fastest low-precision format, and tabulate step time, tokens/s,\n"
         "MFU, $ per million tokens under every plan of a dated price file (prices/*.json), and the days and cost\n"
         "to train the study's token budgets, each with a 90% prediction interval from the validation corpus's\n"
         "leave-one-dataset-out errors (wider for chips with no measured row). Writes PREFIX.md, .json, .svg.");
  a.option("prices", "", "price file replacing the study's (prices/*.json format)")
      .option("validation", "", "validation.json whose residuals give the intervals (default: results/validation.json)")
      .option("out", "", "output prefix (default: results/<study name>)")
      .option("check", "", "stored result JSON: exit 1 if any number differs by more than --tolerance")
      .option("tolerance", "0.001", "relative tolerance of --check")
      .option("jobs", std::to_string(online_cpus()), "worker processes, one search each (default: every online CPU)")
      .option("data-dir", "", "directory holding hw/, models/, prices/ and studies/")
      .flag("sensitivity", "what bounds each row's best layout: its step re-simulated with each hardware resource (tensor, "
                           "vector, memory bandwidth, scale-up links, network, host, latencies) --sensitivity-pct better; "
                           "each row gains the elasticities and the report a table of them (7 more steps per row)")
      .option("sensitivity-pct", "", "how much better each resource is made for --sensitivity, in % (0.1 to 100; default 10; "
                                     "giving it turns --sensitivity on)")
      .flag("quiet", "no progress line on stderr");
  return a;
}

CompareOptions compare_options(const Args& a) {
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  if (a.positional().size() != 1) throw UsageError("trnsim compare: expected one STUDY.json (e.g. studies/cost-2026.json); see --help");
  CompareOptions o;
  o.study = resolve_workload_path(a.positional().front());
  o.prices = a.get("prices");
  o.validation_json = a.get("validation");
  o.workers = static_cast<int>(a.integer("jobs", 1, 1024));
  o.progress = !a.has("quiet") && isatty(2);
  o.sensitivity_factor = sensitivity_factor(a);
  return o;
}

int cmd_compare(const ArgList& argv) {
  Args a = compare_args();
  if (!a.parse(argv)) return 0;
  const CompareOptions o = compare_options(a);
  const double tolerance = a.number("tolerance", 0.0, 1.0);
  // The folder of PREFIX.{json,md,svg} is made, and the three checked writable, before the searches
  // run when --out names them (else once the study's name is known).
  const auto prepare = [](const std::string& prefix) {
    const auto parent = std::filesystem::path(prefix).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) throw UsageError(fmt::format("trnsim compare: --out {}: cannot create {} ({})", prefix, parent.string(), ec.message()));
    for (const char* ext : {".json", ".md", ".svg"}) check_writable(prefix + ext);
  };
  if (!a.get("out").empty()) prepare(a.get("out"));
  const nlohmann::json doc = run_compare(o);
  const std::string prefix =
      a.get("out").empty() ? data_dir() + "/results/" + doc["study"]["name"].get<std::string>() : a.get("out");
  if (a.get("out").empty()) prepare(prefix);
  OutputSet outputs;  // all three or none
  outputs.add(prefix + ".json", doc.dump(1) + "\n");
  outputs.add(prefix + ".md", compare_markdown(doc));
  outputs.add(prefix + ".svg", compare_svg(doc));
  outputs.commit();
  std::cout << fmt::format("{} rows; wrote {}.md {}.json {}.svg\n", doc["rows"].size(), prefix, prefix, prefix);
  if (a.has("check") && !a.get("check").empty()) {
    const auto stored = load_json_file(a.get("check"));
    const std::string d = first_difference(stored, doc, tolerance, "");
    if (!d.empty()) {
      std::cerr << fmt::format("error: {} differs from this run beyond {} relative at {}; if the model changed on "
                               "purpose, regenerate it with `trnsim compare` and say why in the commit\n",
                               a.get("check"), tolerance, d);
      return 1;
    }
    std::cout << fmt::format("{}: every number within {} relative\n", a.get("check"), tolerance);
  }
  return 0;
}

}  // namespace trnsim
