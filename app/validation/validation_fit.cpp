// validation_fit.cpp — the declared calibration: which named hardware parameters each family
// fits (at most three), where they live in HwSpec and in the hw files, and the bounded
// Gauss-Newton fit on the calibration rows the rule picked (validation.cpp).
#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>

#include <cmath>
#include <set>

#include "scenario.hpp"
#include "trnsim/error.hpp"
#include "validation.hpp"

namespace trnsim {
namespace {

// A fitted hardware parameter: where it lives in HwSpec and in the hw file (block, key, and the
// file's unit per HwSpec unit), its bounds and a typical size (the fit works on value / scale,
// so that parameters in seconds and in fractions are comparable).
struct ParamDef {
  const char* name;
  double lo, hi, scale;
  double start_low, start_high;  // a refit's two starting points (RULES.md: documented, not the hw file's)
  // A weak prior (RULES.md): the documented estimate the parameter would have without
  // data, and the factor that counts as one typical calibration row's error (0: none).
  double prior, prior_factor;
  double* (*slot)(HwSpec&);
  const char *file_block, *file_key;
  double file_unit;
};
const ParamDef kParams[] = {
    {"tensor.efficiency", 0.05, 1.0, 1.0, 0.5, 0.85, 0, 0, [](HwSpec& h) { return &h.tensor.efficiency; }, "tensor", "efficiency", 1.0},
    {"tensor.efficiency_low_precision", 0.05, 1.0, 1.0, 0.5, 0.85, 0, 0, [](HwSpec& h) { return &h.tensor.efficiency_low_precision; },
     "tensor", "efficiency_low_precision", 1.0},
    // Priors: the hw files' documented estimates. Eager PyTorch: a CUDA kernel launch (~5 us) plus
    // Python / ATen dispatch, 10 us. torch-xla: 150 us per traced op (HF BERT-Large phase 2 takes
    // the same ~130 ms per micro-step at 4x different device work, ~900 ops; hw/trn1.32xlarge.json).
    {"host.dispatch_s", 0.0, 200e-6, 1e-5, 10e-6, 60e-6, 10e-6, 4.0, [](HwSpec& h) { return &h.host.dispatch_s; }, "host",
     "dispatch_us", 1e6},
    {"host.trace_s", 0.0, 2e-3, 1e-4, 50e-6, 300e-6, 150e-6, 4.0, [](HwSpec& h) { return &h.host.trace_s; }, "host", "trace_us",
     1e6},
};
// The log error of a typical calibration row (the fits' RMS log residuals are 0.05 - 0.17).
constexpr double kTypicalRow = 0.1;

const ParamDef& param_def(const std::string& name) {
  for (const auto& p : kParams)
    if (name == p.name) return p;
  throw ConfigError(fmt::format("calibration: unknown parameter \"{}\"; allowed: tensor.efficiency, tensor.efficiency_low_precision, host.dispatch_s, host.trace_s", name));
}
}  // namespace

double* parameter_slot(HwSpec& hw, const std::string& name) { return param_def(name).slot(hw); }
double parameter_scale(const std::string& name) { return param_def(name).scale; }

void write_parameter(nlohmann::ordered_json& hw_file, const std::string& name, double value) {
  const ParamDef& d = param_def(name);
  hw_file[d.file_block][d.file_key] = std::round(value * d.file_unit * 1e6) / 1e6;  // drops float noise only
}

bool file_carries_parameter(const nlohmann::json& hw_file, const std::string& name) {
  const ParamDef& d = param_def(name);
  if (std::string(d.file_block) == "tensor") return true;  // every file has a tensor engine to fit
  return hw_file.contains(d.file_block) && hw_file[d.file_block].contains(d.file_key);
}

void apply_family_params(HwSpec& hw, const std::string& family, const FamilyParams& p) {
  auto it = p.find(family);
  if (it == p.end()) return;
  for (const auto& [name, value] : it->second) *parameter_slot(hw, name) = value;
}

// Performance rows as a throughput (bigger = faster), so that one sign convention holds.
double as_throughput(Metric q, double v) { return q == Metric::IterationTime ? 1.0 / v : v; }

const std::vector<std::string>& calibration_parameters(const std::string& family) {
  // Eager PyTorch on GPUs issues every op from the host (host.dispatch_s); torch-xla on Neuron
  // traces every micro-step's graph on the host, overlapped with the device (host.trace_s). How
  // much either costs is a property of the host + framework, in no datasheet. Gaudi (SynapseAI
  // lazy mode) would have the second too, but its two calibration rows cannot identify two
  // parameters; it keeps tensor.efficiency alone.
  static const std::vector<std::string> eager = {"tensor.efficiency", "host.dispatch_s"};
  static const std::vector<std::string> lazy = {"tensor.efficiency", "host.trace_s"};
  static const std::vector<std::string> compiled = {"tensor.efficiency"};
  // FP8-capable GPUs add the low-precision GEMM efficiency (the corpus's H100 and Blackwell rows
  // are mostly FP8 / MXFP8 / NVFP4).
  static const std::vector<std::string> eager_lowp = {"tensor.efficiency", "tensor.efficiency_low_precision",
                                                      "host.dispatch_s"};
  if (family == "h100" || family == "h100_500w" || family == "blackwell") return eager_lowp;
  if (family == "a100") return eager;
  return family == "trainium" ? lazy : compiled;
}

std::vector<std::string> family_hw_files(const std::string& family) {
  if (family == "trainium")
    return {"trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge", "trn2u.48xlarge", "trn3.48xlarge", "trn3u.48xlarge"};
  if (family == "gaudi") return {"dl1.24xlarge"};
  if (family == "a100") return {"p4d.24xlarge", "p4de.24xlarge", "dgx-a100-40g", "dgx-a100-80g", "vtrain-a100"};
  if (family == "h100") return {"dgx-h100", "dgx-h200", "p5.48xlarge", "p5en.48xlarge"};
  if (family == "h100_500w") return {"grand-teton-h100-96gb"};
  if (family == "blackwell") return {"dgx-b200", "p6-b200.48xlarge", "gb200-nvl72", "dgx-b300", "gb300-nvl72"};
  return {};
}

// One family's fit on its calibration rows (dataset `exclude` left out); empty when none remain.
FamilyFit fit_family(const std::vector<ValidationCase>& cases, const std::string& family, const std::string& exclude,
                     nlohmann::json* log, const std::map<std::string, double>& prior_centres,
                     const std::map<std::string, double>& prior_spreads) {
  std::vector<const ValidationCase*> rows;
  for (const auto& c : cases)
    if (c.calibration && c.family == family && c.dataset != exclude) rows.push_back(&c);
  // A GEMM-efficiency parameter is fitted only if some calibration row runs its linear layers
  // on that parameter's dtypes (BF16 / FP32 for tensor.efficiency, FP8 / MXFP8 / NVFP4 for
  // tensor.efficiency_low_precision); otherwise it would be tuned through the few GEMMs that
  // stay BF16 in low-precision runs (attention, LM head), and it keeps its hw-file value.
  std::vector<std::string> names;
  for (const auto& n : calibration_parameters(family)) {
    const bool low = n == "tensor.efficiency_low_precision";
    if (n == "tensor.efficiency" || low) {
      const bool any = std::any_of(rows.begin(), rows.end(), [&](const ValidationCase* c) {
        return is_low_precision(linear_dtype(c->workload.precision)) == low;
      });
      if (!any) continue;
    }
    names.push_back(n);
  }
  const auto files = family_hw_files(family);
  if (rows.empty() || files.empty()) return {};
  // The centre of each parameter's prior: the documented estimate, or the pooled fit of the
  // families whose rows pin it (fit_families).
  const auto centre = [&](size_t k) {
    const auto it = prior_centres.find(names[k]);
    return it != prior_centres.end() ? it->second : param_def(names[k]).prior;
  };
  // x holds value / scale of each parameter. A leave-one-dataset-out refit starts from two
  // documented points (every parameter low, every parameter high) and keeps the better optimum,
  // never from the hw file's values, which hold the last in-sample fit: it cannot inherit the
  // left-out dataset through a direction its remaining rows do not pin, and it does not depend on
  // whether `calibrate --apply` ran. The in-sample fit (same rows as the hw files' values came
  // from) starts warm from those values: checked to land where the two starts land (to 4 digits),
  // in one descent instead of two long ones (CI runs it).
  const auto idx = [](size_t k) { return static_cast<Eigen::Index>(k); };
  Eigen::VectorXd first_start(idx(names.size())), second_start(idx(names.size())), lo(idx(names.size())), hi(idx(names.size()));
  HwSpec current = load_hw_spec(hw_path(files.front()));
  for (size_t k = 0; k < names.size(); ++k) {
    const ParamDef& d = param_def(names[k]);
    first_start(idx(k)) = (exclude.empty() ? *d.slot(current) : d.start_low) / d.scale;
    second_start(idx(k)) = d.start_high / d.scale;
    lo(idx(k)) = d.lo / d.scale;
    hi(idx(k)) = d.hi / d.scale;
  }
  auto residual = [&](const Eigen::VectorXd& v) {
    FamilyParams p;
    for (size_t k = 0; k < names.size(); ++k) p[family][names[k]] = v(idx(k)) * param_def(names[k]).scale;
    Eigen::VectorXd r = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(rows.size() + names.size()));
    // One pseudo-row per parameter with a prior: kTypicalRow x ln(value / prior) / ln(factor), so
    // a value `factor` times off its prior costs what a typical row's error does. It decides only
    // where the rows leave a direction unpinned (a left-out dataset that alone measured the host).
    for (size_t k = 0; k < names.size(); ++k) {
      const ParamDef& d = param_def(names[k]);
      if (d.prior_factor <= 0) continue;
      const double floor = 0.1 * d.prior;  // the log stays finite at a zero bound
      r(static_cast<Eigen::Index>(rows.size() + k)) =
          kTypicalRow * std::log((v(idx(k)) * d.scale + floor) / (centre(k) + floor)) / std::log(d.prior_factor);
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      double pred = 0;
      std::string status;
      if (!predict_case(*rows[i], p, pred, status))
        throw ConfigError(fmt::format("calibration row {} row {} cannot run: {}", rows[i]->dataset, rows[i]->row, status));
      r(static_cast<Eigen::Index>(i)) = std::log(as_throughput(rows[i]->quantity, pred) /
                                                 as_throughput(rows[i]->quantity, rows[i]->measured));
    }
    return r;
  };
  // Gauss-Newton on log throughput (finite-difference Jacobian), parameters kept in their bounds,
  // with a backtracking line search: the step time is piecewise smooth (schedules change at
  // thresholds), so a full step near the optimum can overshoot and the plain iteration cycled
  // between two points ~1e-3 apart for all 30 iterations (93 residual evaluations). A step is
  // taken only if it lowers the squared residual (halving it up to 6 times); the fit stops when
  // no step does, or the gain is below 1e-9 of the residual.
  auto descend = [&](Eigen::VectorXd x, Eigen::VectorXd& r, int& it) {
  r = residual(x);
  for (it = 1; it <= 30; ++it) {
    Eigen::MatrixXd J(r.size(), x.size());
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      Eigen::VectorXd xp = x;
      xp(k) += 1e-4;
      J.col(k) = (residual(xp) - r) / 1e-4;
    }
    // Active set: a parameter at a bound whose step points outward is held there and the step
    // is solved for the others (else the clipped step goes nowhere and the fit stalls).
    Eigen::VectorXd step = J.colPivHouseholderQr().solve(-r);
    for (Eigen::Index k = 0; k < x.size(); ++k)
      if ((x(k) <= lo(k) && step(k) < 0) || (x(k) >= hi(k) && step(k) > 0)) J.col(k).setZero();
    step = J.colPivHouseholderQr().solve(-r);
    const double before = r.squaredNorm();
    bool improved = false;
    double moved = 0;
    for (double alpha = 1.0; alpha >= 1.0 / 64 && !improved; alpha /= 2) {
      const Eigen::VectorXd next = (x + alpha * step).cwiseMax(lo).cwiseMin(hi);
      const Eigen::VectorXd rn = residual(next);
      if (rn.squaredNorm() < before) {
        moved = (next - x).norm();
        x = next;
        r = rn;
        improved = true;
      }
    }
    if (!improved || moved < 1e-6 || before - r.squaredNorm() < 1e-9 * before) break;
  }
  return x;
  };
  int it = 0, it_high = 0;
  Eigen::VectorXd r, r_high;
  Eigen::VectorXd x = descend(first_start, r, it);
  if (!exclude.empty()) {
    const Eigen::VectorXd x_high = descend(second_start, r_high, it_high);
    if (r_high.squaredNorm() < r.squaredNorm()) x = x_high, r = r_high, it = it_high;
  }
  FamilyFit out;
  std::map<std::string, double>& fitted = out.params;
  for (size_t k = 0; k < names.size(); ++k)  // 4 significant decimals of the scaled value
    fitted[names[k]] = std::round(x(idx(k)) * 1e4) / 1e4 * param_def(names[k]).scale;
  // Which priors decided their parameter: the rows' information about it (squared change of the
  // row residuals per unit of the scaled parameter, by a 1 % finite difference) against the
  // prior pseudo-row's at the optimum. Below it, the value is the prior's, not the data's.
  for (size_t k = 0; k < names.size(); ++k) {
    const ParamDef& d = param_def(names[k]);
    if (d.prior_factor <= 0) continue;
    const double floor = 0.1 * d.prior, value = x(idx(k)) * d.scale;
    double h = 0.01 * (value + floor) / d.scale;
    if (x(idx(k)) + h > hi(idx(k))) h = -h;
    Eigen::VectorXd xp = x;
    xp(idx(k)) += h;
    const auto rows_n = idx(rows.size());
    const double data_info = (residual(xp).head(rows_n) - r.head(rows_n)).squaredNorm() / (h * h);
    const double prior_slope = kTypicalRow / std::log(d.prior_factor) * d.scale / (value + floor);
    if (data_info < prior_slope * prior_slope) out.unpinned.insert(names[k]);
  }
  // How well the rows know the parameters (validation.hpp, FamilyFit::log_cov): J by a 1 % step of
  // each parameter (inward at a bound), s^2 over n - p degrees of freedom, then the pooled spread
  // for an unpinned parameter whose prior centre is the other families' fit.
  {
    const Eigen::Index np = idx(names.size()), nrows = idx(rows.size());
    Eigen::MatrixXd J(r.size(), np);
    for (Eigen::Index k = 0; k < np; ++k) {
      const ParamDef& d = param_def(names[static_cast<size_t>(k)]);
      const double v = x(k) * d.scale;
      const double f = v * kParameterStep > d.hi ? 1 / kParameterStep : kParameterStep;
      Eigen::VectorXd xp = x;
      xp(k) = v * f / d.scale;
      J.col(k) = v > 0 ? Eigen::VectorXd((residual(xp) - r) / std::log(f)) : Eigen::VectorXd::Zero(r.size());
    }
    const double s2 = r.head(nrows).squaredNorm() / static_cast<double>(std::max<Eigen::Index>(1, nrows - np));
    const Eigen::MatrixXd cov = s2 * (J.transpose() * J).completeOrthogonalDecomposition().pseudoInverse();
    for (Eigen::Index a = 0; a < np; ++a)
      for (Eigen::Index b = 0; b < np; ++b) out.log_cov[names[static_cast<size_t>(a)]][names[static_cast<size_t>(b)]] = cov(a, b);
    for (const auto& [name, spread] : prior_spreads) {
      if (!out.unpinned.count(name) || !out.log_cov.count(name)) continue;
      for (auto& [other, row] : out.log_cov) {
        row[name] = other == name ? spread * spread : 0.0;
        out.log_cov[name][other] = row[name];
      }
    }
  }
  if (log) {
    nlohmann::json rows_j = nlohmann::json::array();
    for (const auto* c : rows) rows_j.push_back(fmt::format("{} row {} ({})", c->dataset, c->row, c->label));
    nlohmann::json priors = nlohmann::json::object();
    for (size_t k = 0; k < names.size(); ++k)
      if (param_def(names[k]).prior_factor > 0)
        priors[names[k]] = {{"centre", centre(k)},
                            {"pooled", prior_centres.count(names[k]) > 0},
                            {"pinned_by_rows", out.unpinned.count(names[k]) == 0}};
    (*log)[family] = {{"parameters", fitted},
                      {"priors", priors},
                      {"rows", rows_j},
                      {"iterations", it},
                      {"log_covariance", out.log_cov},
                      {"log_parameter_sigma", [&] {
                         nlohmann::json sig = nlohmann::json::object();
                         for (const auto& n : names) sig[n] = std::sqrt(std::max(0.0, out.log_cov[n][n]));
                         return sig;
                       }()},
                      {"rms_log_residual", std::sqrt(r.head(idx(rows.size())).squaredNorm() / static_cast<double>(rows.size()))},
                      {"hw_files", files}};
  }
  return out;
}

namespace {
// For each of `family`'s unpinned parameters, the logarithms of the same parameter fitted by the
// other families whose rows pin it (what the pooled prior's centre and spread are made of).
std::map<std::string, std::vector<double>> pinning_logs(const std::map<std::string, FamilyFit>& fits,
                                                        const std::string& family) {
  std::map<std::string, std::vector<double>> out;
  const auto own = fits.find(family);
  if (own == fits.end()) return out;
  for (const auto& name : own->second.unpinned)
    for (const auto& [other, f] : fits)
      if (other != family && !f.unpinned.count(name) && f.params.count(name)) out[name].push_back(std::log(f.params.at(name)));
  return out;
}
}  // namespace

std::map<std::string, double> pooled_prior_centres(const std::map<std::string, FamilyFit>& fits,
                                                   const std::string& family) {
  std::map<std::string, double> out;
  for (const auto& [name, logs] : pinning_logs(fits, family)) {
    double log_sum = 0;
    for (double l : logs) log_sum += l;
    out[name] = std::exp(log_sum / static_cast<double>(logs.size()));
  }
  return out;
}

std::map<std::string, double> pooled_prior_spreads(const std::map<std::string, FamilyFit>& fits,
                                                   const std::string& family) {
  std::map<std::string, double> out;
  for (const auto& [name, logs] : pinning_logs(fits, family)) {
    if (logs.size() < 2) continue;
    const double n = static_cast<double>(logs.size());
    double mean = 0, ss = 0;
    for (double l : logs) mean += l / n;
    for (double l : logs) ss += (l - mean) * (l - mean);
    out[name] = std::sqrt(ss / (n - 1)) * std::sqrt(1 + 1 / n);
  }
  return out;
}

double parameter_sigma(const LogCovariance& cov, const std::map<std::string, double>& g) {
  double var = 0;
  for (const auto& [a, ga] : g)
    for (const auto& [b, gb] : g) {
      const auto row = cov.find(a);
      if (row == cov.end()) continue;
      const auto c = row->second.find(b);
      if (c != row->second.end()) var += ga * c->second * gb;
    }
  return std::sqrt(std::max(0.0, var));
}

std::vector<PooledRefit> pooled_refits(const std::map<FitKey, FamilyFit>& fits,
                                       const std::map<std::string, std::set<std::string>>& calibrated_in,
                                       const std::map<std::string, std::set<std::string>>& row_families, bool leave_one_out) {
  std::set<std::string> families;
  for (const auto& [key, f] : fits)
    if (key.first.empty()) families.insert(key.second);
  const auto calibrates = [&](const std::string& d, const std::string& f) {
    const auto it = calibrated_in.find(d);
    return it != calibrated_in.end() && it->second.count(f) > 0;
  };
  const auto fits_under = [&](const std::string& e) {
    std::map<std::string, FamilyFit> out;
    for (const auto& f : families) {
      const FitKey key = e.empty() || !calibrates(e, f) ? FitKey{"", f} : FitKey{e, f};
      const auto it = fits.find(key);
      if (it != fits.end() && !it->second.params.empty()) out[f] = it->second;
    }
    return out;
  };
  std::vector<PooledRefit> out;
  const auto in_sample = fits_under("");
  for (const auto& f : families)
    if (auto c = pooled_prior_centres(in_sample, f); !c.empty()) out.push_back({"", f, std::move(c), pooled_prior_spreads(in_sample, f)});
  if (!leave_one_out) return out;
  for (const auto& [d, fams] : row_families) {
    const auto under = fits_under(d);
    for (const auto& f : fams) {
      auto c = pooled_prior_centres(under, f);
      if (!c.empty() && (calibrates(d, f) || c != pooled_prior_centres(in_sample, f)))
        out.push_back({d, f, std::move(c), pooled_prior_spreads(under, f)});
    }
  }
  return out;
}

FamilyParams fit_families(const std::vector<ValidationCase>& cases, const std::string& exclude, nlohmann::json* log) {
  std::set<std::string> families;
  for (const auto& c : cases)
    if (c.calibration && c.dataset != exclude) families.insert(c.family);
  // Pass 1: every family on its rows, each prior at its documented centre. Pass 2: a family whose
  // rows do not pin a host parameter refits with that prior centred on the geometric mean of the
  // families' fits whose rows do (RULES.md): the same eager-PyTorch issue path.
  // (One exclusion at a time here: its fits are keyed as in-sample ones for pooled_refits.)
  std::map<FitKey, FamilyFit> fits;
  for (const auto& family : families) fits[{"", family}] = fit_family(cases, family, exclude, log);
  for (const auto& r : pooled_refits(fits, {}, {}, false))
    fits[{"", r.family}] = fit_family(cases, r.family, exclude, log, r.centres, r.spreads);
  FamilyParams out;
  for (const auto& [key, f] : fits)
    if (!f.params.empty()) out[key.second] = f.params;
  return out;
}

}  // namespace trnsim
