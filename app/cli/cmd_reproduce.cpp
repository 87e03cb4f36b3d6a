// cmd_reproduce.cpp — the `calibrate` and `reproduce` subcommands.
#include <fmt/format.h>

#include <iostream>

#include "trnsim/atomic_file.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "calibration.hpp"
#include "reproduction.hpp"
#include "scenario.hpp"

namespace trnsim {
namespace {
// A command's two files (JSON and Markdown), both or neither.
void write_pair(const std::string& json_path, const std::string& json, const std::string& md_path, const std::string& md) {
  OutputSet outputs;
  outputs.add(json_path, json);
  outputs.add(md_path, md);
  outputs.commit();
  std::cout << "wrote " << json_path << "\nwrote " << md_path << "\n";
}
}  // namespace

int cmd_calibrate(const ArgList& argv) {
  Args a("calibrate", "[options]",
         "Fit the declared hardware parameters of each family (results/validation/RULES.md) on the calibration\n"
         "rows the written rule picks from the validation corpus and the seed rows; write\n"
         "results/calibration.{md,json}; with --apply, write the values into the family's hw files.");
  a.option("data", "", "directory of the corpus CSVs (default: data/validation/ of the data directory)")
      .option("out", "", "directory for calibration.md / calibration.json (default: results/ of the data directory)")
      .option("data-dir", "", "directory holding hw/ and models/")
      .flag("apply", "write the fitted values into the hw files of each family");
  if (!a.parse(argv)) return 0;
  if (!a.positional().empty()) throw UsageError("trnsim calibrate: takes no positional arguments; see --help");
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  ValidationOptions opt;
  opt.csv_dir = a.get("data");  // empty: corpus_dir()
  const std::string out = a.get("out").empty() ? data_dir() + "/results" : a.get("out");
  // Checked before the fit: --apply rewrites hw files, which must not happen for a fit whose
  // report then cannot be written.
  for (const char* name : {"/calibration.json", "/calibration.md"}) check_writable(out + name);
  auto c = run_calibration(opt, a.has("apply"));
  write_pair(out + "/calibration.json", c.dump(2) + "\n", out + "/calibration.md", calibration_markdown(c));
  return 0;
}

int cmd_reproduce(const ArgList& argv) {
  Args a("reproduce", "[options]",
         "Simulate every published configuration and write results/reproduction.{md,json}: prediction\n"
         "beside publication, error, scaling efficiency from the predictions, tokens per $, and R3's\n"
         "trn1-vs-p4d cost comparison.");
  a.option("published", "", "published figures, comparison only (default: results/published.json of the data directory)")
      .option("out", "", "output directory (default: results/ of the data directory)")
      .option("data-dir", "", "directory holding hw/, models/, workloads/ and results/");
  if (!a.parse(argv)) return 0;
  if (!a.positional().empty()) throw UsageError("trnsim reproduce: takes no positional arguments; see --help");
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  const std::string out = a.get("out").empty() ? data_dir() + "/results" : a.get("out");
  for (const char* name : {"/reproduction.json", "/reproduction.md"}) check_writable(out + name);  // before the work
  auto r = run_reproduction(a.get("published").empty() ? data_dir() + "/results/published.json" : a.get("published"));
  write_pair(out + "/reproduction.json", r.dump(2) + "\n", out + "/reproduction.md", reproduction_markdown(r));
  std::cout << fmt::format("mean absolute error over prediction rows: {:.1f}%\n",
                           r["mean_abs_error_pct_predictions"].get<double>());
  return 0;
}

}  // namespace trnsim
