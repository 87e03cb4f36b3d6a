// reproduction.cpp — see reproduction.hpp. Predictions come from the model only; the
// published figure enters solely to compute the error (and, for the declared
// calibration rows, the fit done by `trnsim calibrate`, calibration.cpp).
#include "reproduction.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>

#include "layouts.hpp"
#include "report.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {

std::string workload_path(const std::string& name) { return data_dir() + "/workloads/" + name + ".json"; }

struct Prediction {
  double seq_per_s, tokens_per_usd_on_demand, usd_per_million_tokens;
  nlohmann::json report;
};

Prediction predict(const Scenario& s) {
  auto r = execute_step(s);
  auto j = make_report(s, r);
  return {j["throughput"]["sequences_per_s"].get<double>(), j["cost"]["on_demand"]["tokens_per_usd"].is_number() ? j["cost"]["on_demand"]["tokens_per_usd"].get<double>() : 0.0,
          j["cost"]["on_demand"]["usd_per_million_tokens"].get<double>(), j};
}

// Best (cheapest per token, on-demand) layout of a model on a cluster.
nlohmann::json best_layout(const LayoutSpace& space) {
  nlohmann::json best;
  double best_cost = 1e300;
  int tried = 0, fitted = 0;
  for (const auto& w : enumerate_layouts(space)) {
    ++tried;
    Scenario s = make_scenario(w, true);
    if (!s.fits) continue;
    ++fitted;
    auto p = predict(s);
    if (p.usd_per_million_tokens < best_cost) {
      best_cost = p.usd_per_million_tokens;
      best = {{"layout", w.name}, {"usd_per_million_tokens", p.usd_per_million_tokens},
              {"tokens_per_s", p.report["throughput"]["tokens_per_s"]}, {"mfu", p.report["throughput"]["mfu"]}};
    }
  }
  best["layouts_tried"] = tried;
  best["layouts_fitting"] = fitted;
  return best;
}

}  // namespace

nlohmann::json run_reproduction(const std::string& published_file) {
  auto pub = load_json_file(published_file);
  if (!pub.is_object() || !pub.contains("rows") || !pub["rows"].is_array() || pub["rows"].empty())
    throw ConfigError(fmt::format("{}: not a published-results file (no \"rows\" array of published figures); use "
                                  "results/published.json", published_file));
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, std::pair<double, double>> base;  // series -> (pred per node, pub per node) of first row
  std::map<std::string, std::string> assumed;             // row -> ids of the structural assumptions it rests on
  for (const auto& a : pub.value("structural_assumptions", nlohmann::json::array()))
    for (const auto& w : a["rows"]) {
      auto& ids = assumed[w.get<std::string>()];
      ids += (ids.empty() ? "" : ",") + a["id"].get<std::string>();
    }
  const auto open_misses = pub.value("open_misses", nlohmann::json::object());
  double abs_err = 0;
  int n_pred = 0;
  for (const auto& r : pub["rows"]) {
    for (const char* key : {"workload", "series", "published_seq_per_s", "calibration", "published_usd_per_node_hour"})
      if (!r.is_object() || !r.contains(key))
        throw ConfigError(fmt::format("{}: a row lacks \"{}\"; every row needs workload, series, published_seq_per_s, "
                                      "calibration and published_usd_per_node_hour", published_file, key));
    const std::string name = r["workload"].get<std::string>();
    Scenario s = load_scenario(workload_path(name));
    auto p = predict(s);
    const double published = r["published_seq_per_s"].get<double>();
    const double nodes = static_cast<double>(s.workload.nodes);
    const std::string series = r["series"].get<std::string>();
    if (!base.count(series)) base[series] = {p.seq_per_s / nodes, published / nodes};
    const double pred_eff = p.seq_per_s / nodes / base[series].first;
    const double pub_eff = published / nodes / base[series].second;
    const double err = 100.0 * (p.seq_per_s / published - 1.0);
    const bool calib = r["calibration"].get<bool>();
    if (!calib) {
      abs_err += std::abs(err);
      ++n_pred;
    }
    const double price = r["published_usd_per_node_hour"].get<double>() * nodes;
    const double seq = static_cast<double>(s.workload.seq_len);
    rows.push_back({{"workload", r["workload"]},
                    {"series", series},
                    {"nodes", s.workload.nodes},
                    {"calibration", calib},
                    {"assumptions", assumed[name]},
                    {"open_miss", open_misses.contains(name)},
                    {"published_seq_per_s", published},
                    {"predicted_seq_per_s", p.seq_per_s},
                    {"error_pct", err},
                    {"published_scaling_eff_pct", 100 * pub_eff},
                    {"predicted_scaling_eff_pct", 100 * pred_eff},
                    {"scaling_eff_error_points", 100 * (pred_eff - pub_eff)},
                    {"published_tokens_per_usd", published * seq * 3600 / price},
                    {"predicted_tokens_per_usd", p.seq_per_s * seq * 3600 / price},
                    {"predicted_mfu", p.report["throughput"]["mfu"]}});
  }
  nlohmann::json out;
  out["rows"] = rows;
  out["mean_abs_error_pct_predictions"] = n_pred ? abs_err / n_pred : 0.0;
  out["structural_assumptions"] = pub.value("structural_assumptions", nlohmann::json::array());
  out["open_misses"] = open_misses;
  // R3: Llama-2 7B on 128 trn1 vs the best layout found on p4d.24xlarge (R3: "up to 46% lower").
  Scenario r3 = load_scenario(workload_path("llama7b_tp8_dp512"));
  auto pr3 = predict(r3);
  LayoutSpace p4d;
  p4d.model = "llama2-7b";
  p4d.hw = "p4d.24xlarge";
  p4d.nodes = 64;
  p4d.seq_len = 4096;
  p4d.global_batch = 1024;
  p4d.micro_batches = {1, 2};
  p4d.zero = {1};
  p4d.fused = {true};
  p4d.precision = Precision::MixedBF16;
  auto best = best_layout(p4d);
  const double trn = pr3.usd_per_million_tokens;
  out["r3_cost"] = {{"trn1_workload", "llama7b_tp8_dp512"},
                    {"trn1_usd_per_million_tokens_on_demand", trn},
                    {"trn1_tokens_per_s", pr3.report["throughput"]["tokens_per_s"]},
                    {"trn1_mfu", pr3.report["throughput"]["mfu"]},
                    {"p4d_best", best},
                    {"p4d_price_note", "p4d on-demand $32.77/h (pre-2025 list, the price R3 compared against)"},
                    {"trn1_saving_pct", 100 * (1 - trn / best["usd_per_million_tokens"].get<double>())}};
  return out;
}

namespace {
std::string role(const nlohmann::json& x) {
  if (x["calibration"].get<bool>()) return "**calibration**";
  std::string r = x["open_miss"].get<bool>() ? "prediction, open miss" : "prediction";
  const std::string a = x["assumptions"].get<std::string>();
  return a.empty() ? r : r + " (" + a + ")";
}
}  // namespace

std::string reproduction_markdown(const nlohmann::json& r) {
  std::string o =
      "# Reproduction of the published results\n\n"
      "Generated by `scripts/reproduce` from a clean build; do not edit. Published figures come from\n"
      "`data/reference/published-results.md` (copied to `results/published.json`). Predictions come\n"
      "from the model only; rows marked **calibration** were used to fit one hardware parameter per family\n"
      "(see [calibration.md](calibration.md)); every other row is a prediction. Scaling efficiency is\n"
      "throughput per node relative to the first row of the series, computed from the predictions.\n"
      "Tokens per $ use the published price per node-hour.\n\n"
      "| row | nodes | role | published seq/s | predicted seq/s | error | published scaling | predicted scaling | Δ points | published tokens/$ | predicted tokens/$ | predicted MFU |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& x : r["rows"])
    o += fmt::format("| {} | {} | {} | {:.2f} | {:.2f} | {:+.1f}% | {:.1f}% | {:.1f}% | {:+.1f} | {:.0f} | {:.0f} | {:.1f}% |\n",
                     x["workload"].get<std::string>(), x["nodes"].get<int64_t>(),
                     role(x), x["published_seq_per_s"].get<double>(),
                     x["predicted_seq_per_s"].get<double>(), x["error_pct"].get<double>(),
                     x["published_scaling_eff_pct"].get<double>(), x["predicted_scaling_eff_pct"].get<double>(),
                     x["scaling_eff_error_points"].get<double>(), x["published_tokens_per_usd"].get<double>(),
                     x["predicted_tokens_per_usd"].get<double>(), 100 * x["predicted_mfu"].get<double>());
  o += fmt::format("\nMean absolute throughput error over the prediction rows: **{:.1f}%**.\n",
                   r["mean_abs_error_pct_predictions"].get<double>());
  if (!r["structural_assumptions"].empty()) {
    o += "\n## Structural assumptions (declared, not fitted)\n\n"
         "Where a report does not state how its framework schedules work, the workload files state a choice.\n"
         "Rows marked with an id rest on it; the choice is binary, made once per framework, and the evidence\n"
         "for it is given, including where it is the published figures themselves.\n";
    for (const auto& a : r["structural_assumptions"])
      o += fmt::format("\n**{}: {}** — `{}`.\n\n- Evidence: {}\n- Consequence: {}\n", a["id"].get<std::string>(),
                       a["framework"].get<std::string>(), a["setting"].get<std::string>(),
                       a["evidence"].get<std::string>(), a["consequence"].get<std::string>());
  }
  if (!r["open_misses"].empty()) {
    o += "\n## Open misses (outside 15% / 5 points; the test requires they still miss until fixed)\n\n";
    for (const auto& [row, why] : r["open_misses"].items())
      o += fmt::format("- `{}`: {}\n", row, why.get<std::string>());
  }
  const auto& c = r["r3_cost"];
  o += fmt::format(
      "\n## R3: cost per token, trn1 vs p4d (R3 claims \"up to 46% lower\")\n\n"
      "| system | layout | tokens/s | MFU | $ per million tokens (on-demand) |\n|---|---|---|---|---|\n"
      "| 128 x trn1.32xlarge | R3: TP8 PP1 DP512 SP, selective, ZeRO-1, bf16-sr | {:.0f} | {:.1f}% | {:.4f} |\n"
      "| 64 x p4d.24xlarge | best of {} layouts searched ({} fit): {} | {:.0f} | {:.1f}% | {:.4f} |\n\n"
      "Predicted saving of trn1: **{:.0f}%**. {}.\n",
      c["trn1_tokens_per_s"].get<double>(), 100 * c["trn1_mfu"].get<double>(),
      c["trn1_usd_per_million_tokens_on_demand"].get<double>(), c["p4d_best"]["layouts_tried"].get<int>(),
      c["p4d_best"]["layouts_fitting"].get<int>(), c["p4d_best"]["layout"].get<std::string>(),
      c["p4d_best"]["tokens_per_s"].get<double>(), 100 * c["p4d_best"]["mfu"].get<double>(),
      c["p4d_best"]["usd_per_million_tokens"].get<double>(), c["trn1_saving_pct"].get<double>(),
      c["p4d_price_note"].get<std::string>());
  return o;
}

}  // namespace trnsim
