// ranking.cpp — see ranking.hpp.
#include "ranking.hpp"

#include "validation_case.hpp"

#include <fmt/format.h>

#include <algorithm>
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

}  // namespace

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
  return {{"sweeps", sweeps}, {"by_dataset", by}};
}

}  // namespace trnsim
