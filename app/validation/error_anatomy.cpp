// error_anatomy.cpp — see error_anatomy.hpp.
#include "error_anatomy.hpp"

#include "validation_case.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace trnsim {
namespace {

struct Row {
  std::string config, model;
  double log_throughput;  // log of the measured throughput (an iteration time counts as its inverse)
  double log_ratio;       // log(predicted / measured throughput) = log(1 + error)
};

std::string base_model(const std::string& name) {
  const auto p = name.find(" (");
  return p == std::string::npos ? name : name.substr(0, p);
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

double abs_pct(double log_ratio) { return std::abs(std::expm1(log_ratio)) * 100; }

nlohmann::json family_anatomy(const std::vector<Row>& rows) {
  const double n = static_cast<double>(rows.size());
  double total = 0;
  for (const auto& r : rows) total += abs_pct(r.log_ratio);
  // The floor: each repeated configuration predicted at its measured median.
  std::map<std::string, std::vector<double>> configs;
  for (const auto& r : rows) configs[r.config].push_back(r.log_throughput);
  double floor = 0;
  int repeated = 0;
  for (const auto& [key, xs] : configs) {
    if (xs.size() < 2) continue;
    repeated += static_cast<int>(xs.size());
    const double m = median(xs);
    for (double x : xs) floor += abs_pct(m - x);
  }
  // One geometric-mean offset per model.
  struct Model {
    int rows = 0;
    double log_sum = 0, signed_pct = 0, abs_sum = 0;
  };
  std::map<std::string, Model> models;
  for (const auto& r : rows) {
    auto& m = models[r.model];
    ++m.rows;
    m.log_sum += r.log_ratio;
    m.signed_pct += std::expm1(r.log_ratio) * 100;
    m.abs_sum += abs_pct(r.log_ratio);
  }
  double after = 0;
  for (const auto& r : rows) {
    const auto& m = models.at(r.model);
    after += abs_pct(r.log_ratio - m.log_sum / m.rows);
  }
  nlohmann::json ms = nlohmann::json::array();
  for (const auto& [name, m] : models)
    ms.push_back({{"model", name},
                  {"rows", m.rows},
                  {"bias_pct", m.signed_pct / m.rows},
                  {"mean_abs_pct", m.abs_sum / m.rows},
                  {"share_pct", total > 0 ? 100 * m.abs_sum / total : 0.0}});
  std::stable_sort(ms.begin(), ms.end(), [](const auto& a, const auto& b) { return a["share_pct"] > b["share_pct"]; });
  return {{"rows", rows.size()},
          {"mean_abs_pct", total / n},
          {"repeat_rows", repeated},
          {"repeat_floor_pct", floor / n},
          {"after_model_offsets_pct", after / n},
          {"models", ms}};
}

}  // namespace

bool release_before(const std::string& a, const std::string& b) {
  auto numbers = [](const std::string& s) {
    std::vector<long> n;
    for (size_t i = 0; i < s.size();) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      n.push_back(std::stol(s.substr(i, std::min<size_t>(j - i, 9))));
      i = j;
    }
    return n;
  };
  const auto na = numbers(a), nb = numbers(b);
  return na != nb ? na < nb : a < b;
}

nlohmann::json error_by_release(const nlohmann::json& rows) {
  struct Acc {
    int n = 0;
    double signed_sum = 0, abs_sum = 0;
  };
  std::map<std::string, std::map<std::string, Acc>> acc;  // dataset -> release -> errors
  for (const auto& r : rows) {
    if (r.value("status", "") != "predicted" || !r.contains("error_pct") || !r.contains("release")) continue;
    if (!is_performance_quantity(r.value("quantity", ""))) continue;
    const double e = r["error_pct"].get<double>();
    Acc& a = acc[r.value("dataset", "")][r["release"].get<std::string>()];
    ++a.n, a.signed_sum += e, a.abs_sum += std::abs(e);
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [dataset, releases] : acc) {
    if (releases.size() < 2) continue;
    std::vector<std::string> names;
    for (const auto& [name, a] : releases) names.push_back(name);
    std::sort(names.begin(), names.end(), release_before);
    for (const auto& name : names) {
      const Acc& a = releases.at(name);
      out.push_back({{"dataset", dataset}, {"release", name}, {"rows", a.n}, {"bias_pct", a.signed_sum / a.n},
                     {"mean_abs_pct", a.abs_sum / a.n}});
    }
  }
  return out;
}

nlohmann::json error_anatomy(const nlohmann::json& rows) {
  std::map<std::string, std::vector<Row>> by_family;
  for (const auto& r : rows) {
    if (r.value("status", "") != "predicted" || !r.contains("error_pct") || !r.contains("family")) continue;
    const std::string quantity = r.value("quantity", "");
    if (!is_performance_quantity(quantity)) continue;
    const double measured = r.value("measured", 0.0), e = r["error_pct"].get<double>();
    if (measured <= 0 || e <= -100) continue;
    const double lt = quantity == to_string(Metric::IterationTime) ? -std::log(measured) : std::log(measured);
    const std::string model = r.value("model", "");
    const std::string config = r.value("dataset", "") + "|" + model + "|" + r.value("hw", "") + "|" +
                               std::to_string(r.value("gpus", 0)) + "|" + r.value("layout", "") + "|" + quantity;
    by_family[r["family"].get<std::string>()].push_back({config, base_model(model), lt, std::log1p(e / 100)});
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [family, rs] : by_family) out[family] = family_anatomy(rs);
  return out;
}

}  // namespace trnsim
