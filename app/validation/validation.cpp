// validation.cpp — see validation.hpp. Predictions come from the model only; a measured
// figure enters solely to compute the error and, for the rows the declared rule marks,
// the per-family fit of the named hardware parameters.
#include "validation.hpp"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <random>
#include <set>

#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {

// A fitted hardware parameter: where it lives in HwSpec and in the hw file (block, key, and the
// file's unit per HwSpec unit), its bounds and a typical size (the fit works on value / scale,
// so that parameters in seconds and in fractions are comparable).
struct ParamDef {
  const char* name;
  double lo, hi, scale;
  double* (*slot)(HwSpec&);
  const char *file_block, *file_key;
  double file_unit;
};
const ParamDef kParams[] = {
    {"tensor.efficiency", 0.05, 1.0, 1.0, [](HwSpec& h) { return &h.tensor.efficiency; }, "tensor", "efficiency", 1.0},
    {"host.dispatch_s", 0.0, 200e-6, 1e-5, [](HwSpec& h) { return &h.host.dispatch_s; }, "host", "dispatch_us", 1e6},
    {"host.trace_s", 0.0, 2e-3, 1e-4, [](HwSpec& h) { return &h.host.trace_s; }, "host", "trace_us", 1e6},
};
const ParamDef& param_def(const std::string& name) {
  for (const auto& p : kParams)
    if (name == p.name) return p;
  throw ConfigError(fmt::format("calibration: unknown parameter \"{}\"; allowed: tensor.efficiency, host.dispatch_s, host.trace_s", name));
}
double* parameter_slot(HwSpec& hw, const std::string& name) { return param_def(name).slot(hw); }

}  // namespace

void write_parameter(nlohmann::ordered_json& hw_file, const std::string& name, double value) {
  const ParamDef& d = param_def(name);
  hw_file[d.file_block][d.file_key] = std::round(value * d.file_unit * 1e6) / 1e6;  // drops float noise only
}

namespace {

void apply(HwSpec& hw, const std::string& family, const FamilyParams& p) {
  auto it = p.find(family);
  if (it == p.end()) return;
  for (const auto& [name, value] : it->second) *parameter_slot(hw, name) = value;
}

// Performance rows as a throughput (bigger = faster), so that one sign convention holds.
double as_throughput(Metric q, double v) { return q == Metric::IterationTime ? 1.0 / v : v; }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double idx = p * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(idx)), hi = static_cast<size_t>(std::ceil(idx));
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}

nlohmann::json stats(const std::vector<double>& signed_errs) {
  std::vector<double> a;
  for (double e : signed_errs) a.push_back(std::abs(e));
  if (a.empty()) return {{"n", 0}};
  const double n = static_cast<double>(a.size());
  return {{"n", a.size()},
          {"mean_abs_pct", 100 * std::accumulate(a.begin(), a.end(), 0.0) / n},
          {"median_abs_pct", 100 * percentile(a, 0.5)},
          {"p90_abs_pct", 100 * percentile(a, 0.9)},
          {"worst_abs_pct", 100 * *std::max_element(a.begin(), a.end())},
          {"bias_pct", 100 * std::accumulate(signed_errs.begin(), signed_errs.end(), 0.0) / n}};
}

void progress(bool on, const std::string& msg) {
  if (on) std::cerr << "validation: " << msg << "\n";
}

}  // namespace

const std::vector<std::string>& calibration_parameters(const std::string& family) {
  // Eager PyTorch on GPUs issues every op from the host (host.dispatch_s); torch-xla on Neuron
  // traces every micro-step's graph on the host, overlapped with the device (host.trace_s). How
  // much either costs is a property of the host + framework, in no datasheet. Gaudi (SynapseAI
  // lazy mode) would have the second too, but its two calibration rows cannot identify two
  // parameters; it keeps tensor.efficiency alone.
  static const std::vector<std::string> eager = {"tensor.efficiency", "host.dispatch_s"};
  static const std::vector<std::string> lazy = {"tensor.efficiency", "host.trace_s"};
  static const std::vector<std::string> compiled = {"tensor.efficiency"};
  if (family == "a100" || family == "h100") return eager;
  return family == "trainium" ? lazy : compiled;
}

std::vector<std::string> family_hw_files(const std::string& family) {
  if (family == "trainium") return {"trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge"};
  if (family == "gaudi") return {"dl1.24xlarge"};
  if (family == "a100") return {"p4d.24xlarge", "dgx-a100-80g", "vtrain-a100"};
  if (family == "h100") return {"dgx-h100", "p5.48xlarge"};
  return {};
}

bool predict_case(const ValidationCase& c, const FamilyParams& p, double& predicted, std::string& status) {
  if (!c.has_workload) {
    status = "not expressible: " + c.not_expressible;
    return false;
  }
  try {
    Scenario s = make_scenario(c.workload, c.model, /*allow_oom=*/true);
    apply(s.hw, c.family, p);
    const auto& peak = peak_stage(s.memory);
    switch (c.quantity) {
      case Metric::StatesGiB: {
        // Korthikanti's Figure 1 counts the transformer layers' parameters only (every bar equals
        // 18 bytes x the layers' parameters per GPU, embedding and head excluded): same here.
        double params = 0;
        for (const auto& st : s.plan.stages)
          if (st.rank == peak.stage) params += static_cast<double>(st.parameters);
        const double layer_params = static_cast<double>(c.model.layer_parameters()) /
                                    static_cast<double>(c.workload.tp) * static_cast<double>(c.model.layers) /
                                    static_cast<double>(c.workload.pp);
        predicted = in_gib(peak.weights + peak.gradients + peak.optimizer_states + peak.master_weights) * layer_params / params;
        return true;
      }
      case Metric::ActivationsGiB:
        predicted = in_gib(peak.activations);
        return true;
      case Metric::ActivationPctOfNone: {
        Workload none = c.workload;
        none.checkpointing = Checkpointing::None;
        none.sequence_parallel = false;
        Scenario b = make_scenario(none, c.model, true);
        predicted = 100.0 * peak.activations.base() / peak_stage(b.memory).activations.base();
        return true;
      }
      default:
        break;
    }
    if (!s.fits) {
      status = fmt::format("refused: does not fit in HBM ({:.1f} GiB needed, {:.1f} GiB usable)", in_gib(peak.total()),
                           in_gib(s.hw.hbm_per_core()));
      return false;
    }
    const double step = execute_step(s).step_time_s;
    const auto& w = c.workload;
    if (c.quantity == Metric::IterationTime) predicted = step;
    else if (c.quantity == Metric::ClusterSeqPerS) predicted = static_cast<double>(w.global_batch) / step;
    else predicted = static_cast<double>(w.tokens_per_step()) / step / static_cast<double>(w.devices());
    return true;
  } catch (const ConfigError& e) {
    status = std::string("refused: ") + e.what();
    return false;
  }
}

double signed_error(const ValidationCase& c, double predicted) {
  if (is_performance(c.quantity)) return as_throughput(c.quantity, predicted) / as_throughput(c.quantity, c.measured) - 1;
  return predicted / c.measured - 1;
}

std::vector<ValidationCase> load_corpus(const ValidationOptions& opt) {
  std::vector<ValidationCase> all;
  for (const auto& name : opt.datasets.empty() ? dataset_names() : opt.datasets) {
    auto rows = load_dataset(name, opt.csv_dir);
    if (name == "vtrain_single" && opt.sample_single > 0 && opt.sample_single < rows.size()) {
      std::mt19937 rng(opt.seed);
      std::shuffle(rows.begin(), rows.end(), rng);
      rows.resize(opt.sample_single);
      std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.row < b.row; });
    }
    all.insert(all.end(), rows.begin(), rows.end());
  }
  // The declared rule (results/validation/RULES.md): in each dataset, for each model as the
  // dataset names it, the performance row with the fewest devices that trnsim accepts (valid
  // and fitting in memory); ties go to the first row of the file.
  std::map<std::pair<std::string, std::string>, size_t> pick;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& c = all[i];
    if (!c.has_workload || !is_performance(c.quantity)) continue;
    try {
      if (!make_scenario(c.workload, c.model, true).fits) continue;
    } catch (const ConfigError&) {
      continue;
    }
    const auto key = std::make_pair(c.dataset, c.model_name);
    auto it = pick.find(key);
    if (it == pick.end() || c.gpus < all[it->second].gpus) pick[key] = i;
  }
  for (const auto& [key, i] : pick) all[i].calibration = true;
  return all;
}

FamilyParams fit_families(const std::vector<ValidationCase>& cases, const std::string& exclude, nlohmann::json* log) {
  std::map<std::string, std::vector<const ValidationCase*>> by_family;
  for (const auto& c : cases)
    if (c.calibration && c.dataset != exclude) by_family[c.family].push_back(&c);
  FamilyParams out;
  for (const auto& entry : by_family) {
    const std::string& family = entry.first;  // named, not bound: lambdas below capture them
    const std::vector<const ValidationCase*>& rows = entry.second;
    const auto& names = calibration_parameters(family);
    const auto files = family_hw_files(family);
    if (files.empty()) continue;
    HwSpec start = load_hw_spec(hw_path(files.front()));
    // x holds value / scale of each parameter.
    const auto idx = [](size_t k) { return static_cast<Eigen::Index>(k); };
    Eigen::VectorXd x(idx(names.size())), lo(idx(names.size())), hi(idx(names.size()));
    for (size_t k = 0; k < names.size(); ++k) {
      const ParamDef& d = param_def(names[k]);
      x(idx(k)) = *d.slot(start) / d.scale;
      lo(idx(k)) = d.lo / d.scale;
      hi(idx(k)) = d.hi / d.scale;
    }
    auto residual = [&](const Eigen::VectorXd& v) {
      FamilyParams p;
      for (size_t k = 0; k < names.size(); ++k) p[family][names[k]] = v(idx(k)) * param_def(names[k]).scale;
      Eigen::VectorXd r(static_cast<Eigen::Index>(rows.size()));
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
    int it = 0;
    Eigen::VectorXd r = residual(x);
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
    for (size_t k = 0; k < names.size(); ++k)  // 4 significant decimals of the scaled value
      out[family][names[k]] = std::round(x(idx(k)) * 1e4) / 1e4 * param_def(names[k]).scale;
    if (log) {
      nlohmann::json rows_j = nlohmann::json::array();
      for (const auto* c : rows) rows_j.push_back(fmt::format("{} row {} ({})", c->dataset, c->row, c->label));
      (*log)[family] = {{"parameters", out[family]},
                        {"rows", rows_j},
                        {"iterations", it},
                        {"rms_log_residual", std::sqrt(r.squaredNorm() / static_cast<double>(r.size()))},
                        {"hw_files", files}};
    }
  }
  return out;
}

nlohmann::json run_validation(const ValidationOptions& opt) {
  progress(opt.progress, "loading datasets and choosing calibration rows by the declared rule");
  const auto cases = load_corpus(opt);
  nlohmann::json fit_log = nlohmann::json::object();
  progress(opt.progress, "fitting per-family hardware parameters on the calibration rows");
  const FamilyParams params = fit_families(cases, "", &fit_log);
  // Hardware files must carry the fitted values, or the seed reproduction and `trnsim run`
  // would disagree with this report.
  nlohmann::json stale = nlohmann::json::array();
  for (const auto& [family, ps] : params)
    for (const auto& file : family_hw_files(family)) {
      HwSpec hw = load_hw_spec(hw_path(file));
      for (const auto& [name, v] : ps)
        if (std::abs(*parameter_slot(hw, name) - v) > 5e-4 * param_def(name).scale)
          stale.push_back(fmt::format("hw/{}.json {} = {} (fit: {})", file, name, *parameter_slot(hw, name), v));
    }
  std::map<std::string, FamilyParams> lodo;  // dataset -> parameters fitted without it
  std::map<std::string, std::vector<std::string>> lodo_unfitted;
  if (opt.leave_one_out) {
    std::set<std::string> ds;
    for (const auto& c : cases) ds.insert(c.dataset);
    for (const auto& d : ds) {
      progress(opt.progress, "leave-one-dataset-out fit without " + d);
      lodo[d] = fit_families(cases, d);
      std::set<std::string> fams;
      for (const auto& c : cases)
        if (c.dataset == d && c.has_workload) fams.insert(c.family);
      for (const auto& f : fams)
        if (!lodo[d].count(f)) lodo_unfitted[d].push_back(f);
    }
  }
  nlohmann::json rows = nlohmann::json::array();
  size_t done = 0;
  for (const auto& c : cases) {
    if (opt.progress && ++done % 200 == 0) progress(true, fmt::format("{} / {} rows", done, cases.size()));
    nlohmann::json j = {{"dataset", c.dataset}, {"row", c.row},           {"label", c.label},
                        {"family", c.family},   {"model", c.model_name}, {"quantity", to_string(c.quantity)},
                        {"unit", unit_of(c.quantity)}, {"measured", c.measured}, {"calibration", c.calibration},
                        {"params_b", c.params_b}, {"gpus", c.gpus}, {"tp", c.tp}, {"pp", c.pp}, {"seq", c.seq}};
    if (c.has_workload)
      j["layout"] = fmt::format("TP{} PP{} DP{} VP{} mb{} gb{} seq{} {} {}{}", c.workload.tp, c.workload.pp,
                                c.workload.dp, c.workload.virtual_stages, c.workload.micro_batch,
                                c.workload.global_batch, c.workload.seq_len, to_string(c.workload.precision),
                                to_string(c.workload.checkpointing), c.workload.sequence_parallel ? " SP" : "");
    double pred = 0;
    std::string status;
    if (predict_case(c, params, pred, status)) {
      j["status"] = c.calibration ? "calibration" : "predicted";
      j["predicted"] = pred;
      j["error_pct"] = 100 * signed_error(c, pred);
      if (opt.leave_one_out && is_performance(c.quantity) && lodo.count(c.dataset)) {
        double p2 = 0;
        std::string s2;
        if (predict_case(c, lodo[c.dataset], p2, s2)) j["error_lodo_pct"] = 100 * signed_error(c, p2);
      }
    } else {
      j["status"] = status.rfind("not expressible", 0) == 0 ? "not expressible" : "refused";
      j["reason"] = status.rfind("not expressible: ", 0) == 0 ? c.not_expressible : status;
    }
    rows.push_back(j);
  }
  // Summaries: per dataset x quantity, per family (performance quantities), blockers.
  auto summarise = [&](auto key_of) {
    std::map<std::string, nlohmann::json> acc;
    std::map<std::string, std::vector<double>> errs, lerrs;
    for (const auto& r : rows) {
      const std::string k = key_of(r);
      if (k.empty()) continue;
      auto& a = acc[k];
      if (a.is_null()) a = {{"rows", 0}, {"predicted", 0}, {"calibration", 0}, {"not_expressible", 0}, {"refused", 0}};
      a["rows"] = a["rows"].get<int>() + 1;
      const std::string st = r["status"];
      const std::string field = st == "not expressible" ? "not_expressible" : st;
      a[field] = a[field].get<int>() + 1;
      if (st == "predicted") errs[k].push_back(r["error_pct"].get<double>() / 100);
      if (st != "refused" && st != "not expressible" && r.contains("error_lodo_pct"))
        lerrs[k].push_back(r["error_lodo_pct"].get<double>() / 100);
    }
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, a] : acc) {
      a["error"] = stats(errs[k]);
      a["error_leave_dataset_out"] = stats(lerrs[k]);
      out[k] = a;
    }
    return out;
  };
  nlohmann::json v;
  v["by_dataset"] = summarise([](const nlohmann::json& r) {
    return r["dataset"].get<std::string>() + " / " + r["quantity"].get<std::string>();
  });
  v["by_family"] = summarise([](const nlohmann::json& r) {
    const std::string q = r["quantity"];
    const bool perf = q == "iteration_time" || q == "cluster_seq_per_s" || q == "tokens_per_s_per_gpu";
    return (perf ? r["family"].get<std::string>() + " / performance" : r["family"].get<std::string>() + " / memory");
  });
  std::map<std::string, std::pair<int, int>> blockers;  // feature -> (rows it blocks, rows it alone blocks)
  for (const auto& r : rows) {
    if (r["status"] != "not expressible") continue;
    const std::string reason = r["reason"];
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t p; (p = reason.find("; ", start)) != std::string::npos; start = p + 2) parts.push_back(reason.substr(start, p - start));
    parts.push_back(reason.substr(start));
    for (const auto& p : parts) {
      ++blockers[p].first;
      if (parts.size() == 1) ++blockers[p].second;
    }
  }
  nlohmann::json bl = nlohmann::json::array();
  for (const auto& [k, n] : blockers) bl.push_back({{"feature", k}, {"rows_blocked", n.first}, {"rows_blocked_by_it_alone", n.second}});
  std::sort(bl.begin(), bl.end(), [](const auto& a, const auto& b) { return a["rows_blocked"] > b["rows_blocked"]; });
  v["blockers"] = bl;
  v["calibration"] = fit_log;
  v["stale_hw_files"] = stale;
  nlohmann::json lj = nlohmann::json::object();
  for (const auto& [d, p] : lodo) lj[d] = {{"parameters", p}, {"families_without_other_data", lodo_unfitted[d]}};
  v["leave_one_dataset_out"] = lj;
  v["sample_single"] = opt.sample_single;
  v["seed"] = opt.seed;
  v["rows"] = rows;
  return v;
}

}  // namespace trnsim
