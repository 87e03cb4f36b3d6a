// cmd_validation.cpp — the `validation` subcommand: every row of the validation corpus
// predicted, results/validation.{md,json}, and the CI gate on per-dataset mean errors.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "trnsim/atomic_file.hpp"
#include "cli_args.hpp"
#include "command_api.hpp"
#include "commands.hpp"
#include "scenario.hpp"
#include "trnsim/fork_map.hpp"
#include "trnsim/json_reader.hpp"
#include "report.hpp"
#include "sensitivity.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "intervals.hpp"
#include "paired_ratios.hpp"
#include "validation.hpp"

namespace trnsim {
namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t p; (p = s.find(',', start)) != std::string::npos; start = p + 1) out.push_back(s.substr(start, p - start));
  out.push_back(s.substr(start));
  return out;
}

// Fails (exit 1) when a dataset's mean absolute error is above the value recorded in the
// thresholds file, or when a recorded dataset has fewer predicted rows than recorded.
int check_thresholds(const nlohmann::json& v, const std::string& file) {
  auto t = load_json_file(file);
  int bad = 0;
  // The error a limit's key names: a step dataset's ("<dataset> / <quantity>") or a collective
  // benchmark's ("<table> / busbw"); null where this run has neither (not selected).
  const auto error_of = [&v](const std::string& key) -> const nlohmann::json* {
    if (v["by_dataset"].contains(key)) return &v["by_dataset"][key]["error"];
    if (v.contains("collective_benchmarks") && v["collective_benchmarks"].contains(key)) return &v["collective_benchmarks"][key]["error"];
    return nullptr;
  };
  for (auto it = t["max_mean_abs_pct"].begin(); it != t["max_mean_abs_pct"].end(); ++it) {
    const std::string key = it.key();
    for (const auto& m : v.value("datasets_not_found", nlohmann::json::array()))
      if (key.rfind(m["dataset"].get<std::string>() + " /", 0) == 0 || key == m["dataset"].get<std::string>()) {
        std::cout << fmt::format("{:<48} its file {} is not there  MISSING\n", key, m["file"].get<std::string>());
        ++bad;
      }
    const nlohmann::json* found = error_of(key);
    if (!found) continue;  // not selected in this run
    const auto& e = *found;
    const double limit = it.value().get<double>();
    const double got = e["n"].get<int>() ? e["mean_abs_pct"].get<double>() : 0.0;
    const bool ok = got <= limit + 1e-9;
    std::cout << fmt::format("{:<48} mean abs {:6.2f} %  limit {:6.2f} %  {}\n", key, got, limit, ok ? "ok" : "ABOVE LIMIT");
    if (!ok) ++bad;
  }
  // Ranking quality per dataset: Spearman may only go up, regret only down.
  for (const auto& [field, higher_is_better] : {std::pair<const char*, bool>{"min_mean_spearman", true}, {"max_mean_regret_pct", false}}) {
    if (!t.contains(field)) continue;
    for (auto it = t[field].begin(); it != t[field].end(); ++it) {
      if (!v.contains("ranking") || !v["ranking"]["by_dataset"].contains(it.key())) continue;
      const double got = v["ranking"]["by_dataset"][it.key()][higher_is_better ? "mean_spearman" : "mean_regret_pct"];
      const double limit = it.value().get<double>();
      const bool ok = higher_is_better ? got >= limit - 1e-9 : got <= limit + 1e-9;
      std::cout << fmt::format("{:<48} {} {:7.3f}  limit {:7.3f}  {}\n", it.key(),
                               higher_is_better ? "Spearman" : "regret %", got, limit, ok ? "ok" : "BEYOND LIMIT");
      if (!ok) ++bad;
    }
  }
  // Pair order: of the layout pairs predicted at least so far apart (the key, a bin's
  // lower edge in %), the share ordered right, over every sweep; may only go up.
  // Recorded on the whole corpus: checked only when every dataset with a recorded limit ran.
  bool whole_corpus = true;
  for (auto it = t["max_mean_abs_pct"].begin(); it != t["max_mean_abs_pct"].end(); ++it)
    whole_corpus = whole_corpus && error_of(it.key());
  if (!whole_corpus && t.contains("min_pair_order_right_pct"))
    std::cout << fmt::format("{:<48} not checked: recorded on the whole corpus, and this run has a part of it\n", "layout pair order");
  if (whole_corpus && t.contains("min_pair_order_right_pct") && v.contains("ranking") && v["ranking"].contains("pair_order") &&
      v["ranking"]["pair_order"].contains("all")) {
    for (auto it = t["min_pair_order_right_pct"].begin(); it != t["min_pair_order_right_pct"].end(); ++it) {
      const double lo = std::stod(it.key()), limit = it.value().get<double>();
      const nlohmann::json* bin = nullptr;
      for (const auto& b : v["ranking"]["pair_order"]["all"])
        if (std::abs(b["gap_lo_pct"].get<double>() - lo) < 1e-9) bin = &b;
      const double got = bin && bin->contains("ordered_right_pct") ? (*bin)["ordered_right_pct"].get<double>() : 0.0;
      const bool ok = got >= limit - 1e-9;
      std::cout << fmt::format("{:<48} ordered right {:6.2f} %  limit {:6.2f} %  {}\n",
                               bin && bin->contains("gap_hi_pct")
                                   ? fmt::format("layout pairs predicted {}-{:.0f} % apart", it.key(), (*bin)["gap_hi_pct"].get<double>())
                                   : fmt::format("layout pairs predicted >= {} % apart", it.key()),
                               got, limit, ok ? "ok" : "BEYOND LIMIT");
      if (!ok) ++bad;
    }
  }
  if (!v["stale_hw_files"].empty()) {
    std::cerr << fmt::format("error: hw files differ from the fit ({}); run `trnsim calibrate --apply`\n",
                             v["stale_hw_files"].front().get<std::string>());
    ++bad;
  }
  if (bad) std::cerr << fmt::format("error: {}: {} dataset(s) above their recorded mean error; fix the model (limits only go down)\n", file, bad);
  return bad ? 1 : 0;
}

// `--workload FILE` with --explain: the row's workload as a file `trnsim run` takes, so a user can
// change one field and rerun it. Only when the row's model is a shipped model file unchanged (an
// adapter may build or edit the model); the file is reloaded and simulated, and must reproduce the
// row's step time, or nothing is kept.
std::string row_workload_text(const ValidationCase& c, double step_s, const std::string& file) {
  const std::string mp = model_path(c.workload.model);
  bool shipped = std::filesystem::exists(mp);
  if (shipped) {
    const ModelSpec file_model = load_model_spec(mp);
    shipped = file_model.total_parameters() == c.model.total_parameters() && file_model.layers == c.model.layers;
  }
  if (!shipped)
    throw ConfigError(fmt::format("--workload {}: the row's model '{}' is built by the dataset adapter, not models/{}.json; "
                                  "no workload file can reproduce it (omit --workload)", file, c.workload.model, c.workload.model));
  const std::string text = workload_to_json(c.workload) + "\n";
  const double again = execute_step(scenario_from_json(nlohmann::json::parse(text), file, /*allow_oom=*/true)).step_time_s;
  if (std::abs(again / step_s - 1) > 1e-9) {
    throw ConfigError(fmt::format("--workload {}: the written workload gives a {:.6g} s step, not the row's {:.6g} s "
                                  "(a field the file format cannot carry); nothing written", file, again, step_s));
  }
  return text;
}

// `--explain DATASET:ROW`: the row as trnsim maps it (workload, measured value) and the full step
// report of its prediction under the hw files' fitted parameters, to read why a row is off.
// With --sensitivity: how far each resource alone would have to move to give the measured value, to
// first order (the step scales as speed^-elasticity near the prediction): a mechanism that needs a
// resource at half its rate or less, or more than twice it, is not a plausible explanation alone.
std::string single_resource_reading(const nlohmann::json& report, double signed_error) {
  const double step_ratio = 1 + signed_error;  // the step the measurement implies over the predicted one
  if (!report.contains("sensitivity") || step_ratio <= 0) return "";
  std::string o = fmt::format("  to give the measured value by one resource alone (step x{:.3f}; first order, from each elasticity):", step_ratio);
  int listed = 0;
  for (const auto& x : report["sensitivity"]["resources"]) {
    if (!x.contains("elasticity") || x["elasticity"].get<double>() < 0.02) continue;
    const double speed = std::pow(step_ratio, -1.0 / x["elasticity"].get<double>());
    const std::string factor = speed > 100 ? "x>100" : speed < 0.01 ? "x<0.01" : fmt::format("x{:.2f}", speed);
    o += fmt::format("{} {} speed {}{}", listed++ ? ";" : "", x["resource"].get<std::string>(), factor,
                     speed < 0.5 || speed > 2 ? " (implausible alone)" : "");
  }
  return listed ? o + "\n" : "";
}

int explain_row(const ValidationOptions& base, const std::string& spec, const std::string& trace,
                const std::string& workload_file, bool sensitivity) {
  for (const std::string& out : {trace, workload_file})  // refused before the row is simulated
    if (!out.empty()) check_writable(out);
  const auto colon = spec.find(':');
  const std::string dataset = spec.substr(0, colon);
  int row = 0;
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no colon");
    size_t used = 0;
    row = std::stoi(spec.substr(colon + 1), &used);
    if (used != spec.size() - colon - 1 || row < 1) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw UsageError(fmt::format("trnsim validation: --explain {}: expected DATASET:ROW with ROW a 1-based data row, e.g. nvidia_nemo_moe:86", spec));
  }
  const auto& names = dataset_names();
  if (std::find(names.begin(), names.end(), dataset) == names.end())
    throw UsageError(fmt::format("trnsim validation: --explain {}: unknown dataset '{}'; see --help for the list", spec, dataset));
  ValidationOptions opt = base;
  opt.datasets = {dataset};
  opt.sample_single = 0;
  int found = 0;
  for (const ValidationCase& c : load_corpus(opt)) {
    if (c.row != row) continue;
    ++found;
    std::cout << fmt::format("{} row {}: {}\n", dataset, row, c.label);
    if (c.measured > 0)
      std::cout << fmt::format("  measured {} = {:g} {}{}\n", to_string(c.quantity), c.measured, unit_of(c.quantity),
                               c.calibration ? " (a calibration row)" : "");
    if (!c.has_workload) {
      std::cout << "  not expressible: " << c.not_expressible << "\n";
      continue;
    }
    double predicted = 0;
    std::string status, report;
    double step_s = 0;
    StepOptions so;
    so.trace = !trace.empty();
    // The step behind the prediction (performance rows only): its report and trace, not a rerun.
    nlohmann::json report_json;
    std::string trace_text;
    const auto keep = [&](const Scenario& s, const StepResult& r) {
      StepReport rep = build_report(s, r);
      if (sensitivity) add_sensitivity(rep, s, r, 1 + kSensitivityDefaultPct / 100);
      report = render(rep, "text");
      report_json = to_json(rep);
      step_s = r.step_time_s;
      if (so.trace) trace_text = step_trace_json(s, r);
    };
    Workload used;
    if (!predict_case(c, FamilyParams{}, predicted, status, so, keep, &used)) {
      std::cout << "  " << status << "\n";
      continue;
    }
    std::cout << fmt::format("  predicted {:g} {} (error {:+.1f} %)\n", predicted, unit_of(c.quantity),
                             100.0 * signed_error(c, predicted));
    if (!c.alternatives.empty())
      std::cout << fmt::format("  layout: trnsim's fastest of the {} layouts the row could have run (the source does not list it)\n",
                               c.alternatives.size() + 1);
    if (!c.recompute_note.empty()) std::cout << "  recompute: " << c.recompute_note << "\n";
    std::cout << report;
    // The comparisons this row is half of (paired_ratios.hpp), as results/validation.json recorded them.
    const std::string pairs = row_pairs_text(load_validation_results(false).paired, c.dataset, c.row);
    if (!pairs.empty()) std::cout << "comparisons with rows that differ only in precision, hardware or scale (results/validation.json):\n" << pairs;
    if (sensitivity && c.measured > 0) std::cout << single_resource_reading(report_json, signed_error(c, predicted));
    OutputSet outputs;  // the trace and the workload, both or neither
    if (so.trace) outputs.add(trace, trace_text);
    if (!workload_file.empty() && step_s > 0) {
      ValidationCase ran = c;
      ran.workload = used;
      outputs.add(workload_file, row_workload_text(ran, step_s, workload_file));
    }
    outputs.commit();
    if (!workload_file.empty() && step_s > 0)
      std::cout << fmt::format("  workload written to {} (trnsim run {} reproduces this step)\n", workload_file, workload_file);
  }
  if (!found) {
    // Datasets that split one CSV by kind (NeMo's dense, MoE and fine-tuning rows): name the one
    // that holds the row.
    std::string hint;
    const std::string file = dataset_file(dataset, opt.csv_dir);
    for (const auto& other : names) {
      if (other == dataset || !hint.empty() || dataset_file(other, opt.csv_dir) != file) continue;
      for (const ValidationCase& c : load_dataset(other, opt.csv_dir))
        if (c.row == row) hint = fmt::format("; that row of {} is in {} (--explain {}:{})", file, other, other, row);
    }
    throw UsageError(fmt::format("trnsim validation: --explain {}: {} has no data row {}{}", spec, dataset, row, hint));
  }
  return 0;
}

}  // namespace

Args validation_args() {
  Args a("validation", "[options]",
         "Predict every row of the public validation corpus (Korthikanti 2022, vTrain, AWS Neuron trn1 tables,\n"
         "NVIDIA NeMo tables, and the seed rows), fit the declared per-family hardware parameters on the rows\n"
         "the calibration rule picks, and write validation.md / validation.json: error per dataset and family,\n"
         "leave-one-dataset-out errors, rows not expressible (by missing feature) and refusals.");
  a.option("dataset", "", "comma-separated datasets (default: all): seed, korthikanti2022, vtrain_multi, vtrain_single, aws_neuron_trn1, nvidia_nemo, nvidia_nemo_moe, nvidia_nemo_finetune, torchtitan, kempnerforge, llmfoundry")
      .option("data", "", "directory of the corpus CSVs (default: data/validation/ of the data directory)")
      .option("out", "", "directory for validation.md and validation.json (default: results/ of the data directory)")
      .option("sample-single", "0", "use a seeded sample of N vtrain_single rows (0: all 1,440)")
      .option("seed", "1", "seed of that sample")
      .option("check", "", "thresholds JSON: exit 1 if a dataset's mean abs error exceeds its recorded limit")
      .option("data-dir", "", "directory holding hw/ and models/")
      .option("jobs", std::to_string(online_cpus()), "worker processes for the fits and predictions (default: every online CPU)")
      .option("explain", "", "DATASET:ROW: print how trnsim maps that row and the step report of its prediction (hw files' fitted parameters); writes nothing but --trace / --workload")
      .option("trace", "", "with --explain: write the row's Chrome/Perfetto trace-event JSON to FILE")
      .option("workload", "", "with --explain: write the row's workload JSON to FILE for `trnsim run` (rows whose model is a shipped model file; checked to reproduce the step)")
      .flag("sensitivity", "with --explain: the step re-simulated with each hardware resource 10 % better (as `trnsim run "
                           "--sensitivity`), and how far each resource alone would have to move to give the measured value")
      .flag("no-leave-out", "skip the leave-one-dataset-out refits")
      .flag("quiet", "no progress lines on stderr");
  return a;
}

ValidationOptions validation_options(const Args& a) {
  if (!a.positional().empty()) throw UsageError("trnsim validation: takes no positional arguments; see --help");
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  ValidationOptions opt;
  if (a.has("dataset") && !a.get("dataset").empty()) opt.datasets = split(a.get("dataset"));
  opt.csv_dir = a.get("data");  // empty: corpus_dir()
  opt.sample_single = static_cast<size_t>(a.integer("sample-single", 0, 1000000));
  opt.seed = static_cast<unsigned>(a.integer("seed", 0, 4294967295LL));
  opt.leave_one_out = !a.has("no-leave-out");
  opt.progress = !a.has("quiet");
  opt.jobs = static_cast<int>(a.integer("jobs", 1, 1024));
  return opt;
}

int cmd_validation(const ArgList& argv) {
  Args a = validation_args();
  if (!a.parse(argv)) return 0;
  const ValidationOptions opt = validation_options(a);
  if (a.has("trace") && !a.has("explain")) throw UsageError("trnsim validation: --trace needs --explain DATASET:ROW");
  if (a.has("workload") && !a.has("explain")) throw UsageError("trnsim validation: --workload needs --explain DATASET:ROW");
  if (a.has("sensitivity") && !a.has("explain")) throw UsageError("trnsim validation: --sensitivity needs --explain DATASET:ROW");
  if (a.has("explain"))
    return explain_row(opt, a.get("explain"), a.has("trace") ? a.get("trace") : "", a.has("workload") ? a.get("workload") : "",
                       a.has("sensitivity"));
  std::error_code ec;
  const std::string out = a.get("out").empty() ? data_dir() + "/results" : a.get("out");
  std::filesystem::create_directories(out, ec);
  if (ec) throw UsageError(fmt::format("trnsim validation: --out {}: cannot create the directory ({})", out, ec.message()));
  auto v = run_validation(opt);
  OutputSet outputs;
  outputs.add(out + "/validation.json", v.dump(1) + "\n");
  outputs.add(out + "/validation.md", validation_markdown(v));
  outputs.commit();
  std::cout << "wrote " << out << "/validation.md and validation.json\n";
  for (auto it = v["by_family"].begin(); it != v["by_family"].end(); ++it) {
    const auto& e = it.value()["error"];
    if (e["n"].get<int>() == 0) continue;
    std::cout << fmt::format("{:<24} {:4d} predicted  mean abs {:5.1f} %  bias {:+5.1f} %\n", it.key(), e["n"].get<int>(),
                             e["mean_abs_pct"].get<double>(), e["bias_pct"].get<double>());
  }
  if (a.has("check") && !a.get("check").empty()) return check_thresholds(v, a.get("check"));
  return 0;
}

}  // namespace trnsim
