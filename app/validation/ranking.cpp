// ranking.cpp — see ranking.hpp.
#include "ranking.hpp"

#include "validation_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>

namespace trnsim {
namespace {

std::vector<double> ranks(const std::vector<double>& x) {
  std::vector<size_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t i, size_t j) { return x[i] < x[j]; });
  std::vector<double> r(x.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && x[idx[j + 1]] == x[idx[i]]) ++j;
    const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = avg;
    i = j + 1;
  }
  return r;
}

// Throughput (bigger = faster) of a value of the row's quantity.
double throughput(const nlohmann::json& r, double v) {
  if (r["quantity"] == to_string(Metric::IterationTime)) return r.value("tokens_per_step", 0.0) / v;
  return v;
}

// Bins of how far apart trnsim predicts two layouts (|predicted throughput ratio - 1|).
constexpr double kGapEdges[] = {0.0, 0.02, 0.05, 0.10, 0.20};
constexpr size_t kGapBins = sizeof(kGapEdges) / sizeof(kGapEdges[0]);

size_t gap_bin(double gap) {
  size_t b = 0;
  while (b + 1 < kGapBins && gap >= kGapEdges[b + 1]) ++b;
  return b;
}

struct PairCount {
  int pairs = 0, right = 0;
};

nlohmann::json pair_order_json(const std::array<PairCount, kGapBins>& c) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t b = 0; b < kGapBins; ++b) {
    nlohmann::json bin = {{"gap_lo_pct", 100 * kGapEdges[b]}, {"pairs", c[b].pairs}, {"ordered_right", c[b].right}};
    if (b + 1 < kGapBins) bin["gap_hi_pct"] = 100 * kGapEdges[b + 1];
    if (c[b].pairs > 0) bin["ordered_right_pct"] = 100.0 * c[b].right / c[b].pairs;
    out.push_back(bin);
  }
  return out;
}

}  // namespace

nlohmann::json pair_order_for_gap(const nlohmann::json& ranking, double gap) {
  if (!ranking.contains("pair_order") || !ranking["pair_order"].contains("all")) return nullptr;
  const auto& bins = ranking["pair_order"]["all"];
  const size_t b = gap_bin(std::abs(gap));
  if (b >= bins.size() || bins[b]["pairs"].get<int>() == 0) return nullptr;
  return bins[b];
}

nlohmann::json versus_ordering(const nlohmann::json& report, const nlohmann::json& ranking) {
  const auto& b = report["workload"];
  const auto& v = report["versus"]["report"]["workload"];
  if (report["versus"].value("hardware_edited", false))
    return {{"applies", false},
            {"reason", "the variant's hardware is edited (the corpus's pair statistics are for layouts of one model on one "
                       "hardware, cluster size, sequence length and precision)"}};
  for (const char* key : {"model", "hw", "devices", "seq_len", "precision"})  // what one sweep holds fixed
    if (b[key] != v[key])
      return {{"applies", false},
              {"reason", fmt::format("base and variant differ in {} (the corpus's pair statistics are for layouts of one model on "
                                     "one hardware, cluster size, sequence length and precision)",
                                     key)}};
  const double base = report["throughput"]["tokens_per_s"].get<double>();
  const double var = report["versus"]["report"]["throughput"]["tokens_per_s"].get<double>();
  const double gap = std::max(base, var) / std::min(base, var) - 1;
  const nlohmann::json bin = pair_order_for_gap(ranking, gap);
  if (bin.is_null()) return {{"applies", false}, {"reason", "no pairs of layouts this far apart in the corpus's sweeps"}};
  return {{"applies", true}, {"predicted_gap_pct", 100 * gap}, {"bin", bin}};
}

nlohmann::json top_order_of(const nlohmann::json& top, const nlohmann::json& ranking) {
  if (!top.is_array() || top.size() < 2) return nullptr;
  const auto& best = top[0];
  const auto same_sweep = [&](const nlohmann::json& r) {
    return r["hw"] == best["hw"] && r["nodes"] == best["nodes"] && r.value("precision", "") == best.value("precision", "");
  };
  const double t_best = best["tokens_per_s"].get<double>();
  int within = 0;
  const nlohmann::json* runner = nullptr;
  for (size_t i = 1; i < top.size(); ++i) {
    if (!same_sweep(top[i])) continue;
    if (!runner) runner = &top[i];
    if (t_best / top[i]["tokens_per_s"].get<double>() - 1 < 0.05) ++within;
  }
  if (!runner) return nullptr;
  const double gap = t_best / (*runner)["tokens_per_s"].get<double>() - 1;
  const nlohmann::json bin = pair_order_for_gap(ranking, gap);
  if (bin.is_null()) return nullptr;
  return {{"best", best["id"]}, {"runner_up", (*runner)["id"]}, {"gap_pct", 100 * gap}, {"bin", bin},
          {"rows_within_5pct", within}};
}

void add_top_order(nlohmann::json& doc, const std::string& list, const nlohmann::json& ranking) {
  if (!doc.contains(list) || ranking.is_null()) return;
  if (nlohmann::json t = top_order_of(doc[list], ranking); !t.is_null()) doc["top_order"] = std::move(t);
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return 0;
  const auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

nlohmann::json ranking_quality(const nlohmann::json& rows) {
  std::map<std::string, std::vector<const nlohmann::json*>> groups;
  for (const auto& r : rows) {
    const std::string st = r.value("status", "");
    if (st != "predicted" && st != "calibration") continue;
    const std::string q = r.value("quantity", "");
    if (!is_performance_quantity(q)) continue;
    if (!r.contains("predicted") || !r.contains("hw")) continue;
    if (q == to_string(Metric::IterationTime) && r.value("tokens_per_step", 0.0) <= 0) continue;
    groups[fmt::format("{} | {} | {} | {} GPUs | seq {} | {}", r["dataset"].get<std::string>(), r["model"].get<std::string>(),
                       r["hw"].get<std::string>(), r["gpus"].get<int64_t>(), r["seq"].get<int64_t>(), r.value("precision", ""))]
        .push_back(&r);
  }
  nlohmann::json sweeps = nlohmann::json::array();
  struct Acc {
    int sweeps = 0, rows = 0;
    double rho = 0, rho_min = 1, regret = 0, regret_max = 0;
  };
  std::map<std::string, Acc> acc;
  std::map<std::string, std::array<PairCount, kGapBins>> pairs;  // dataset (and "all") -> per gap bin
  for (const auto& [key, g] : groups) {
    // Rows of one layout (software versions, repeated runs) are one point: their mean measured
    // throughput; a sweep needs at least 3 distinct layouts.
    std::map<std::string, std::vector<const nlohmann::json*>> by_layout;
    for (const auto* r : g) by_layout[r->value("layout", std::to_string((*r)["row"].get<int>()))].push_back(r);
    if (by_layout.size() < 3) continue;
    std::vector<double> meas, pred;
    std::vector<const nlohmann::json*> first;
    for (const auto& [layout, rs] : by_layout) {
      double m = 0;
      for (const auto* r : rs) m += throughput(*r, (*r)["measured"].get<double>());
      meas.push_back(m / static_cast<double>(rs.size()));
      pred.push_back(throughput(*rs.front(), (*rs.front())["predicted"].get<double>()));
      first.push_back(rs.front());
    }
    const double rho = spearman(pred, meas);
    const size_t best_pred = static_cast<size_t>(std::max_element(pred.begin(), pred.end()) - pred.begin());
    const double best = *std::max_element(meas.begin(), meas.end());
    const double regret = 1 - meas[best_pred] / best;
    const std::string dataset = (*g.front())["dataset"];
    sweeps.push_back({{"sweep", key}, {"dataset", dataset}, {"rows", g.size()}, {"layouts", meas.size()}, {"spearman", rho},
                      {"regret_pct", 100 * regret}, {"predicted_best_row", (*first[best_pred])["row"]}});
    // Every two layouts of the sweep: does the faster predicted one measure faster? (Ties in the
    // measurement are left out: there is no order to get right.)
    for (size_t i = 0; i < meas.size(); ++i)
      for (size_t j = i + 1; j < meas.size(); ++j) {
        if (meas[i] == meas[j] || pred[i] <= 0 || pred[j] <= 0) continue;
        const size_t b = gap_bin(std::max(pred[i], pred[j]) / std::min(pred[i], pred[j]) - 1);
        const bool right = (pred[i] > pred[j]) == (meas[i] > meas[j]);
        for (auto* c : {&pairs[dataset][b], &pairs["all"][b]}) {
          ++c->pairs;
          c->right += right ? 1 : 0;
        }
      }
    for (Acc* a : {&acc[dataset], &acc["all"]}) {
      ++a->sweeps;
      a->rows += static_cast<int>(meas.size());
      a->rho += rho;
      a->rho_min = std::min(a->rho_min, rho);
      a->regret += regret;
      a->regret_max = std::max(a->regret_max, regret);
    }
  }
  nlohmann::json by = nlohmann::json::object();
  for (const auto& [k, a] : acc)
    by[k] = {{"sweeps", a.sweeps},         {"layouts", a.rows},
             {"mean_spearman", a.rho / a.sweeps}, {"min_spearman", a.rho_min},
             {"mean_regret_pct", 100 * a.regret / a.sweeps}, {"max_regret_pct", 100 * a.regret_max}};
  nlohmann::json order = nlohmann::json::object();
  for (const auto& [k, c] : pairs) order[k] = pair_order_json(c);
  return {{"sweeps", sweeps}, {"by_dataset", by}, {"pair_order", order}};
}

}  // namespace trnsim
