// validation_report.cpp — results/validation.md from the JSON of run_validation: the
// error tables per dataset and per hardware family, the feature roadmap (rows each
// missing feature blocks), error against features, the worst rows, and the comparison
// with Calculon on Korthikanti's Table 5.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "collective_benchmarks.hpp"
#include "validation.hpp"
#include "versus.hpp"

namespace trnsim {
namespace {

std::string stat_cells(const nlohmann::json& e) {
  if (e["n"].get<int>() == 0) return "– | – | – | – | –";
  return fmt::format("{:.1f} | {:.1f} | {:.1f} | {:.1f} | {:+.1f}", e["mean_abs_pct"].get<double>(),
                     e["median_abs_pct"].get<double>(), e["p90_abs_pct"].get<double>(),
                     e["worst_abs_pct"].get<double>(), e["bias_pct"].get<double>());
}

std::string summary_table(const nlohmann::json& groups, const std::string& what) {
  std::string o = fmt::format(
      "| {} | rows | predicted | calibration | not expressible | refused | mean abs % | median % | p90 % | worst % | bias % | "
      "mean abs %, dataset left out of the fit |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      what);
  for (auto it = groups.begin(); it != groups.end(); ++it) {
    const auto& a = it.value();
    const auto& l = a["error_leave_dataset_out"];
    o += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", it.key(), a["rows"].get<int>(), a["predicted"].get<int>(),
                     a["calibration"].get<int>(), a["not_expressible"].get<int>(), a["refused"].get<int>(),
                     stat_cells(a["error"]), l["n"].get<int>() ? fmt::format("{:.1f}", l["mean_abs_pct"].get<double>()) : "–");
  }
  return o;
}

// Mean absolute error of predicted performance rows, binned by a feature.
std::string feature_table(const nlohmann::json& rows, const std::string& feature, const std::string& title) {
  std::map<std::string, std::map<double, std::pair<double, int>>> acc;  // family -> bin -> (sum signed, n)
  std::map<std::string, std::map<double, double>> abs_acc;
  for (const auto& r : rows) {
    if (r["status"] != "predicted") continue;
    const std::string q = r["quantity"];
    if (q != "iteration_time" && q != "cluster_seq_per_s" && q != "tokens_per_s_per_gpu") continue;
    double x = r[feature].get<double>();
    if (feature == "params_b") x = std::pow(10.0, std::floor(std::log10(std::max(x, 1e-3))));  // decade bins
    auto& b = acc[r["family"]][x];
    b.first += r["error_pct"].get<double>();
    b.second += 1;
    abs_acc[r["family"]][x] += std::abs(r["error_pct"].get<double>());
  }
  std::string o = fmt::format("\n**{}** (mean signed error %, mean abs error %, rows)\n\n| family | bin | signed % | abs % | rows |\n|---|---|---|---|---|\n", title);
  for (const auto& [fam, bins] : acc)
    for (const auto& [x, b] : bins)
      o += fmt::format("| {} | {}{} | {:+.1f} | {:.1f} | {} |\n", fam, feature == "params_b" ? "≥ " : "", x,
                       b.first / b.second, abs_acc[fam][x] / b.second, b.second);
  return o;
}

// Why a row is off by more than 20 %: the mechanisms found (or not) for each group of misses.
// Explanations only; nothing here touches a prediction.
struct MissReason {
  const char* dataset;
  const char* model_prefix;  // "" = any
  int tp;                    // 0 = any
  int sign;                  // +1: trnsim too fast, -1: too slow, 0: either
  const char* layout_has;    // "" = any
  const char* why;
};
const MissReason kMissReasons[] = {
    {"aws_neuron_trn1", "bert-large", 0, +1, "fp32",
     "FP32 at micro-batch 2 is device-bound and FP32 matmul costs more than the documented 4x the BF16 rate "
     "(the host-bound FP32 micro-batch-1 row is within 2 %); no FP32 matmul measurement to fit it on"},
    {"aws_neuron_trn1", "gpt3-6.7b", 0, -1, "",
     "Neuron compiler gains across SDKs: the same layout ran 42 % faster under SDK 2.13 than 2.5 in the docs' own "
     "table; the model has no SDK version"},
    {"vtrain_single", "", 8, +1, "",
     "TP8 of hidden-1024/2048 GPTs: measured slower than TP communication at the measured NCCL bandwidth and the fitted "
     "per-op dispatch explain; mechanism not found"},
    {"vtrain_multi", "", 0, +1, "",
     "64-256 GPUs at TP4/TP8: measured slower than the modelled TP and DP traffic explains (vTrain reports 14.7 % "
     "multi-node error for its own model); mechanism not found"},
    {"vtrain_single", "", 0, -1, "",
     "hidden-2048 GPTs at TP1/TP4: trnsim slower than measured while the same models at TP8 come out fast, so no "
     "single efficiency explains both; mechanism not found"},
    {"nvidia_nemo", "LLAMA2-7B", 0, +1, "",
     "long-sequence page (16K-1M tokens, CP up to 32): the error grows with the sequence (+8 % at 4K, +36 % at 1M), "
     "so attention on 2024's kernels runs slower at long sequences than trnsim's native H100 kernel, which is set by "
     "cuDNN 9.3's figure at 2K tokens; the page does not name the kernel"},
    {"nvidia_nemo_finetune", "LLAMA2-70B", 0, -1, "",
     "SFT at DP 1 (NeMo 24.07): the optimizer state is not sharded, so trnsim needs block recompute of 17 layers per "
     "chunk to fit; what NeMo 1.x saves there (Apex's master-weight remainders, for one) is not modelled"},
};
std::string miss_reason(const nlohmann::json& r) {
  if (r.contains("reason")) return r["reason"].get<std::string>();
  if (!r.contains("error_pct")) return "";
  const double e = r["error_pct"].get<double>();
  for (const auto& m : kMissReasons) {
    if (r.value("dataset", "") != m.dataset) continue;
    if (r.value("model", "").rfind(m.model_prefix, 0) != 0) continue;
    if (m.tp != 0 && r.value("tp", 0) != m.tp) continue;
    if ((m.sign > 0 && e < 0) || (m.sign < 0 && e > 0)) continue;
    if (r.value("layout", "").find(m.layout_has) == std::string::npos) continue;
    return m.why;
  }
  return "mechanism not found";
}

}  // namespace

// The sweeps that pull the mean down (Spearman below 0.9 or regret above 3 %), lowest Spearman
// first: where a user should not trust trnsim's ranking of layouts yet. Empty when there are none.
std::string weak_sweeps_markdown(const nlohmann::json& ranking) {
  std::vector<const nlohmann::json*> weak;
  if (ranking.contains("sweeps"))
    for (const auto& sw : ranking["sweeps"])
      if (sw["spearman"].get<double>() < 0.9 || sw["regret_pct"].get<double>() > 3.0) weak.push_back(&sw);
  std::stable_sort(weak.begin(), weak.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    return (*a)["spearman"].get<double>() < (*b)["spearman"].get<double>();
  });
  if (weak.empty()) return "";
  std::string o = "\nSweeps below Spearman 0.9 or above 3 % regret (the predicted-best row is the layout trnsim would pick):\n\n"
                  "| sweep | rows | layouts | Spearman | regret | predicted-best row |\n|---|---|---|---|---|---|\n";
  for (const auto* sw : weak) {
    std::string key = (*sw)["sweep"].get<std::string>();  // "a | b | c": a table cell cannot hold '|'
    for (size_t at = key.find(" | "); at != std::string::npos; at = key.find(" | ", at)) key.replace(at, 3, ", ");
    o += fmt::format("| {} | {} | {} | {:.3f} | {:.1f} % | {} |\n", key, (*sw)["rows"].get<int>(), (*sw)["layouts"].get<int>(),
                     (*sw)["spearman"].get<double>(), (*sw)["regret_pct"].get<double>(), (*sw)["predicted_best_row"].get<int>());
  }
  return o;
}

namespace {
// Where each family's performance error lies (error_anatomy.hpp): the floor no release-blind model
// can beat, what one offset per model would leave, and the models with the largest shares.
std::string error_anatomy_markdown(const nlohmann::json& anatomy) {
  std::string o =
      "\n## Where the error lies (performance predictions)\n\n"
      "A diagnostic, not a fit. *Floor*: rows of one configuration (dataset, model, hardware, GPU count and "
      "layout) published more than once, e.g. by successive software releases, scatter around their median; "
      "predicting each at that median is the best a model that sees only the configuration can do (mean abs "
      "error over all the family's rows; a configuration seen once adds 0). *One offset per model*: the mean "
      "abs error left after dividing each row by its model's geometric-mean error; the gap to the mean abs "
      "error is the part that follows the model, not the hardware or the layout. *Largest shares*: the "
      "models holding most of the family's absolute error, with their mean signed error.\n\n"
      "| family | rows | mean abs % | repeated-configuration rows | floor % | after one offset per model % | largest shares of the absolute error |\n"
      "|---|---|---|---|---|---|---|\n";
  for (auto it = anatomy.begin(); it != anatomy.end(); ++it) {
    const auto& a = it.value();
    std::string shares;
    int shown = 0;
    for (const auto& m : a["models"]) {
      if (shown++ == 3) break;
      shares += fmt::format("{}{} {:.0f} % ({} rows, bias {:+.1f} %)", shares.empty() ? "" : "; ", m["model"].get<std::string>(),
                            m["share_pct"].get<double>(), m["rows"].get<int>(), m["bias_pct"].get<double>());
    }
    o += fmt::format("| {} | {} | {:.1f} | {} | {:.1f} | {:.1f} | {} |\n", it.key(), a["rows"].get<int>(),
                     a["mean_abs_pct"].get<double>(), a["repeat_rows"].get<int>(), a["repeat_floor_pct"].get<double>(),
                     a["after_model_offsets_pct"].get<double>(), shares);
  }
  return o;
}

// The same rows by software release (error_by_release): where the bias moves with the release.
std::string release_markdown(const nlohmann::json& by_release) {
  if (by_release.empty()) return "";
  std::string o =
      "\n**By software release** (datasets whose predicted rows ran more than one): trnsim sees the "
      "configuration, not the release, so a bias that moves with the release is what the software "
      "changed between releases (kernels, recipes, defaults), not a hardware or stack parameter.\n\n"
      "| dataset | release | rows | bias % | mean abs % |\n|---|---|---|---|---|\n";
  for (const auto& r : by_release)
    o += fmt::format("| {} | {} | {} | {:+.1f} | {:.1f} |\n", r["dataset"].get<std::string>(), r["release"].get<std::string>(),
                     r["rows"].get<int>(), r["bias_pct"].get<double>(), r["mean_abs_pct"].get<double>());
  return o;
}

// Comparisons the corpus measures directly (paired_ratios.hpp): a change of precision or hardware
// with everything else stated the same, its measured ratio against trnsim's.
std::string paired_ratios_markdown(const nlohmann::json& paired) {
  if (!paired.contains("groups") || paired["groups"].empty()) return "";
  std::string o =
      "\n## Comparisons: a change of precision, hardware or scale, measured against predicted\n\n"
      "A planner is asked \"FP8 or BF16?\" and \"GB200 or GB300?\" more than for one absolute figure. Here, every "
      "pair of rows of one dataset, model, software release, GPU count and stated layout (a recompute the stack's "
      "rule chose does not count as stated) that differ only in the precision, or only in the hardware (calibration "
      "rows included: a ratio of two rows is not what the fit matched); and, as *scale*, rows of one stated replica "
      "(the layout without the data-parallel degree, the same batch per replica) on more and fewer GPUs of one "
      "hardware and precision: their per-GPU throughput ratio is the weak-scaling efficiency `trnsim run` reports. The "
      "same two runs under another name count once. *Measured* and *predicted*: the geometric mean of the pairs' "
      "per-GPU throughput ratios, to / from; *ratio error*: predicted ratio / measured ratio − 1 "
      "(positive: trnsim expects more from the change than it gave). A diagnostic: nothing here feeds a prediction; "
      "the pairs are in validation.json (`paired_ratios`).\n\n"
      "| change | family | from → to | pairs | measured | predicted | ratio error, mean abs % | bias % |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : paired["groups"]) {
    const bool scale = g.contains("dataset");
    const std::string span = !scale ? ""
                             : g["scale_min"] == g["scale_max"] ? fmt::format(" ({:g}x)", g["scale_min"].get<double>())
                                                                 : fmt::format(" ({:g}-{:g}x)", g["scale_min"].get<double>(), g["scale_max"].get<double>());
    o += fmt::format("| {} | {}{} | {} → {}{} | {} | {:.3f}x | {:.3f}x | {:.1f} | {:+.1f} |\n", g["factor"].get<std::string>(),
                     g["family"].get<std::string>(), scale ? " (" + g["dataset"].get<std::string>() + ")" : "",
                     g["from"].get<std::string>(), g["to"].get<std::string>(), span, g["pairs"].get<int>(),
                     g["measured_ratio"].get<double>(), g["predicted_ratio"].get<double>(), g["mean_abs_ratio_error_pct"].get<double>(),
                     g["bias_pct"].get<double>());
  }
  return o;
}
}  // namespace

std::string validation_markdown(const nlohmann::json& v) {
  std::string o =
      "# Validation against public training measurements\n\n"
      "Generated by `trnsim validation` (see `trnsim validation --help`) from `data/validation/` and the\n"
      "seed rows of `results/published.json`. Every row of every dataset is here: predicted, used for calibration,\n"
      "**not expressible** (trnsim lacks a feature the row needs; counted in the roadmap below) or **refused**\n"
      "(trnsim rejects a configuration that ran: a miss). Mappings: `app/validation/datasets/`, one file per\n"
      "dataset, with each stack's structural assumptions. Calibration rule, written before the fit:\n"
      "[validation/RULES.md](validation/RULES.md).\n\n"
      "Sign convention: performance rows, error = predicted throughput / measured throughput − 1 (positive: trnsim\n"
      "predicts faster than measured; iteration times are compared as their inverse); memory rows, predicted /\n"
      "measured − 1. Statistics are over prediction rows only (calibration rows excluded).\n\n";
  if (v["sample_single"].get<size_t>() > 0)
    o += fmt::format("vtrain_single is a seeded sample of {} rows (seed {}), stated here; the full set runs without --sample-single.\n\n",
                     v["sample_single"].get<size_t>(), v["seed"].get<unsigned>());
  o += "## Per hardware family\n\n" + summary_table(v["by_family"], "family / kind");
  o += "\n## Per dataset and measured quantity\n\n" + summary_table(v["by_dataset"], "dataset / quantity");
  if (v.contains("error_anatomy")) o += error_anatomy_markdown(v["error_anatomy"]);
  if (v.contains("error_by_release")) o += release_markdown(v["error_by_release"]);
  if (v.contains("paired_ratios")) o += paired_ratios_markdown(v["paired_ratios"]);
  if (v.contains("collective_benchmarks")) o += collective_benchmarks_markdown(v["collective_benchmarks"]);
  o += "\n## Calibration (per family, named hardware parameters only)\n\n"
       "| family | fitted parameters | calibration rows | RMS log residual at fit | applied to |\n|---|---|---|---|---|\n";
  for (auto it = v["calibration"].begin(); it != v["calibration"].end(); ++it) {
    std::string ps, rows, files;
    for (auto p = it.value()["parameters"].begin(); p != it.value()["parameters"].end(); ++p)
      ps += p.key().size() > 2 && p.key().substr(p.key().size() - 2) == "_s"  // host times: in microseconds
                ? fmt::format("{} = {:.1f} us ", p.key().substr(0, p.key().size() - 2), p.value().get<double>() * 1e6)
                : fmt::format("{} = {:.4f} ", p.key(), p.value().get<double>());
    for (const auto& r : it.value()["rows"]) rows += (rows.empty() ? "" : "<br>") + r.get<std::string>();
    for (const auto& f : it.value()["hw_files"]) files += (files.empty() ? "" : ", ") + ("hw/" + f.get<std::string>() + ".json");
    o += fmt::format("| {} | {} | {} | {:.3f} | {} |\n", it.key(), ps, rows, it.value()["rms_log_residual"].get<double>(), files);
  }
  if (!v["stale_hw_files"].empty()) {
    o += "\n**Hardware files differ from the fit** (run `trnsim calibrate --apply`):";
    for (const auto& s : v["stale_hw_files"]) o += " " + s.get<std::string>() + ";";
    o += "\n";
  }
  if (v.contains("ranking")) {
    o += "\n## Ranking of layouts within sweeps\n\n"
         "Which layout is fastest is what a user asks. For every sweep (rows of one dataset with the same model, "
         "hardware, GPU count, sequence length and precision; at least 3 distinct layouts, rows of one layout counted once): Spearman's rank correlation of predicted vs "
         "measured throughput, and the regret of running the predicted-best layout (1 - its measured throughput / "
         "the best measured). The target is Spearman >= 0.9 and regret <= 3 % on average.\n\n"
         "| dataset | sweeps | layouts | mean Spearman | lowest | mean regret | worst regret |\n|---|---|---|---|---|---|---|\n";
    for (auto it = v["ranking"]["by_dataset"].begin(); it != v["ranking"]["by_dataset"].end(); ++it) {
      const auto& x = it.value();
      o += fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {:.1f} % | {:.1f} % |\n", it.key(), x["sweeps"].get<int>(),
                       x["layouts"].get<int>(), x["mean_spearman"].get<double>(), x["min_spearman"].get<double>(),
                       x["mean_regret_pct"].get<double>(), x["max_regret_pct"].get<double>());
    }
    if (v["ranking"].contains("pair_order") && v["ranking"]["pair_order"].contains("all")) {
      o += "\nPair by pair: for every two layouts of a sweep, whether the one trnsim predicts faster measured faster, by how "
           "far apart trnsim predicts them (`trnsim run --vs` quotes the bin of its variant). vTrain's single-node sweeps "
           "hold most pairs.\n\n| predicted apart | pairs | ordered right | of them, vTrain single-node |\n|---|---|---|---|\n";
      const auto& all = v["ranking"]["pair_order"]["all"];
      const nlohmann::json none = nlohmann::json::array();
      const auto& vt = v["ranking"]["pair_order"].contains("vtrain_single") ? v["ranking"]["pair_order"]["vtrain_single"] : none;
      for (size_t b = 0; b < all.size(); ++b) {
        const auto& x = all[b];
        const std::string range = pair_gap_range(x);
        o += fmt::format("| {} | {} | {} | {} |\n", range, x["pairs"].get<int>(),
                         x.contains("ordered_right_pct") ? fmt::format("{:.1f} %", x["ordered_right_pct"].get<double>()) : "-",
                         b < vt.size() ? std::to_string(vt[b]["pairs"].get<int>()) : "0");
      }
    }
    o += weak_sweeps_markdown(v["ranking"]);
  }
  if (v.contains("interval_coverage")) {
    o += "\n## Prediction intervals: coverage on held-out datasets\n\n"
         "`trnsim run`, `trnsim compare` and `trnsim search` give a 90% interval built from the leave-one-dataset-out errors: "
         "each dataset's mean offset (a stack nobody fitted may be off like any seen dataset) plus each dataset's spread "
         "around its mean (its rows may scatter like any seen dataset's), from the chip's own family where it was "
         "measured on three or more datasets (A100, H100, Blackwell), else from every family (Trainium, Gaudi, the "
         "500 W H100s, and chips nobody has measured); widened to +-1.645 s.d. of the prediction's own parameter uncertainty where that is wider (the "
         "fitted parameters' log covariance through the prediction's sensitivity to each: large where the rows "
         "left do not pin a parameter and it comes from the other families' pooled value). "
         "Checked here on data it was not built from: each row against the interval built with its whole "
         "dataset left out, its parameter term from the fit without that dataset. A calibrated 90% interval covers "
         "about 90% of rows; the target is 85-95% overall. "
         "Per family, and per held-out dataset (each one a stack the fit never saw; vtrain_single's 1,440 rows "
         "weigh most in the overall figure).\n\n"
         "| family | rows | covered | coverage |\n|---|---|---|---|\n";
    auto table = [&](const nlohmann::json& t) {
      for (auto it = t.begin(); it != t.end(); ++it)
        o += fmt::format("| {} | {} | {} | {:.1f} % |\n", it.key(), it.value()["rows"].get<int>(),
                         it.value()["covered"].get<int>(), it.value()["coverage_pct"].get<double>());
    };
    table(v["interval_coverage"]);
    if (v.contains("interval_coverage_by_dataset")) {
      o += "\n| held-out dataset | rows | covered | coverage |\n|---|---|---|---|\n";
      table(v["interval_coverage_by_dataset"]);
    }
  }
  o += "\n## Roadmap: features that block rows\n\n| missing feature | rows blocked | rows it alone blocks |\n|---|---|---|\n";
  for (const auto& b : v["blockers"])
    o += fmt::format("| {} | {} | {} |\n", b["feature"].get<std::string>(), b["rows_blocked"].get<int>(),
                     b["rows_blocked_by_it_alone"].get<int>());
  // Calculon comparison on Korthikanti Table 5.
  std::vector<double> t5;
  int t5_total = 0;
  for (const auto& r : v["rows"])
    if (r["dataset"] == "korthikanti2022" && r["quantity"] == "iteration_time") {
      ++t5_total;
      if (r.contains("error_pct")) t5.push_back(std::abs(r["error_pct"].get<double>()));
    }
  if (t5_total > 0) {
    double mean = 0, worst = 0;
    for (double e : t5) mean += e / static_cast<double>(t5.size()), worst = std::max(worst, e);
    o += fmt::format(
        "\n## Korthikanti et al. 2022, Table 5: trnsim beside Calculon\n\n| model | rows run | mean abs % | worst % |\n|---|---|---|---|\n"
        "| Calculon (published) | 8 of 8 | 3.7 | 8.9 |\n| trnsim | {} of {} | {} | {} |\n",
        t5.size(), t5_total, t5.empty() ? "–" : fmt::format("{:.1f}", mean), t5.empty() ? "–" : fmt::format("{:.1f}", worst));
  }
  o += "\n## Error against features (predicted performance rows)\n";
  o += feature_table(v["rows"], "tp", "tensor-parallel degree");
  o += feature_table(v["rows"], "pp", "pipeline-parallel degree");
  o += feature_table(v["rows"], "seq", "sequence length");
  o += feature_table(v["rows"], "params_b", "model size (billions of parameters, decade bins)");
  o += "\nPlots: [predicted vs measured per family](plots/validation_scatter.svg), "
       "[error vs features](plots/validation_error_vs_feature.svg).\n";
  // Worst rows and every refusal.
  std::vector<const nlohmann::json*> off;
  for (const auto& r : v["rows"])
    if ((r["status"] == "predicted" && std::abs(r["error_pct"].get<double>()) > 20) || r["status"] == "refused")
      off.push_back(&r);
  o += fmt::format("\n## Rows off by more than 20 %, and refusals ({})\n\n| dataset | row | configuration | layout | measured | predicted | error % | note |\n|---|---|---|---|---|---|---|---|\n", off.size());
  for (const auto* r : off) {
    const auto& x = *r;
    o += fmt::format("| {} | {} | {} | {} | {:.4g} {} | {} | {} | {} |\n", x["dataset"].get<std::string>(), x["row"].get<int>(),
                     x["label"].get<std::string>(), x.value("layout", ""), x["measured"].get<double>(),
                     x["unit"].get<std::string>(), x.contains("predicted") ? fmt::format("{:.4g}", x["predicted"].get<double>()) : "–",
                     x.contains("error_pct") ? fmt::format("{:+.1f}", x["error_pct"].get<double>()) : "–",
                     miss_reason(x));
  }
  return o;
}

}  // namespace trnsim
