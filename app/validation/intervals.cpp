// intervals.cpp — see intervals.hpp.
#include "intervals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "scenario.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {

double quantile(std::vector<double> xs, double q) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  const double pos = q * static_cast<double>(xs.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  const size_t j = std::min(i + 1, xs.size() - 1);
  return xs[i] + (xs[j] - xs[i]) * (pos - static_cast<double>(i));
}

namespace {
bool same_chip(double a_tflops, double a_bw, double b_tflops, double b_bw) {
  return std::abs(a_tflops / b_tflops - 1) < 1e-6 && std::abs(a_bw / b_bw - 1) < 1e-6;
}
double bf16_per_chip(const HwSpec& hw) { return hw.tensor.peak_tflops[static_cast<int>(DType::BF16)]; }
}  // namespace

IntervalModel::IntervalModel(const std::string& validation_json) {
  const nlohmann::json doc = load_json_file(validation_json);
  if (!doc.contains("rows") || !doc["rows"].is_array())
    throw ConfigError(fmt::format("{}: no \"rows\" array; regenerate it with `trnsim validation`", validation_json));
  std::set<std::string> hws;
  for (const auto& r : doc["rows"]) {
    if (!r.contains("error_lodo_pct") || !r.contains("hw") || !r.contains("family")) continue;
    const std::string q = r.value("quantity", "");
    if (q.find("memory") != std::string::npos) continue;  // performance rows only
    const std::string st = r.value("status", "");
    if (st != "predicted" && st != "calibration") continue;
    const double e = r["error_lodo_pct"].get<double>() / 100;
    by_family_[r["family"].get<std::string>()].push_back(e);
    pooled_.push_back(e);
    if (hws.insert(r["hw"].get<std::string>()).second) {
      const HwSpec hw = load_hw_spec(hw_path(r["hw"].get<std::string>()));
      measured_.push_back({bf16_per_chip(hw), hw.hbm.bandwidth_per_chip.base(), r["family"].get<std::string>()});
    }
  }
  if (pooled_.empty())
    throw ConfigError(fmt::format("{}: no performance row has a leave-one-dataset-out error; regenerate it with "
                                  "`trnsim validation`", validation_json));
}

Interval IntervalModel::for_hw(const HwSpec& hw) const {
  Interval iv;
  const std::vector<double>* xs = &pooled_;
  iv.extrapolated = true;
  iv.basis = "extrapolated: no measured row on this chip; all families' errors pooled";
  for (const auto& c : measured_)
    if (same_chip(c.bf16_tflops_per_chip, c.hbm_GBps_per_chip, bf16_per_chip(hw), hw.hbm.bandwidth_per_chip.base())) {
      xs = &by_family_.at(c.family);
      iv.extrapolated = false;
      iv.basis = fmt::format("family {} (measured chip)", c.family);
      break;
    }
  iv.e_lo = quantile(*xs, 0.05);
  iv.e_hi = quantile(*xs, 0.95);
  iv.rows = xs->size();
  return iv;
}

}  // namespace trnsim
