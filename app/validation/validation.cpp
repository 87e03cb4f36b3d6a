// validation.cpp — see validation.hpp. Predictions come from the model only; a measured
// figure enters solely to compute the error and, for the rows the declared rule marks,
// the per-family fit of the named hardware parameters.
#include "validation.hpp"
#include "memory_band.hpp"
#include "intervals.hpp"
#include "error_anatomy.hpp"
#include "collective_benchmarks.hpp"
#include "paired_ratios.hpp"
#include "ranking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "trnsim/fork_map.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double idx = p * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(idx)), hi = static_cast<size_t>(std::ceil(idx));
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}

void progress(bool on, const std::string& msg) {
  if (on) std::cerr << "validation: " << msg << "\n";
}

}  // namespace

nlohmann::json error_stats(const std::vector<double>& signed_errs) {
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

namespace {
// `stated`: the row's own layout (not one of trnsim's guesses at an unstated one), which ran: one that
// needs more HBM than usable by less than the memory model's error is predicted, not refused.
bool predict_layout(const ValidationCase& c, const FamilyParams& p, double& predicted, std::string& status,
                    const StepOptions& step_options, const StepObserver& observe, bool stated) {
  if (!c.has_workload) {
    status = "not expressible: " + c.not_expressible;
    return false;
  }
  try {
    Scenario s = make_scenario(c.workload, c.model, /*allow_oom=*/true);
    apply_family_params(s.hw, c.family, p);
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
      case Metric::PeakMemoryGiB:  // everything trnsim allocates at the peak stage; no runtime overhead added
        predicted = in_gib(peak.total());
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
    if (!s.fits && !(stated && !memory_margin_note(s).empty())) {
      status = fmt::format("refused: does not fit in HBM ({:.1f} GiB needed, {:.1f} GiB usable)", in_gib(peak.total()),
                           in_gib(s.hw.hbm_per_core()));
      return false;
    }
    const StepResult r = execute_step(s, step_options);
    if (observe) observe(s, r);
    const double step = r.step_time_s;
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
}  // namespace

bool predict_case(const ValidationCase& c, const FamilyParams& p, double& predicted, std::string& status,
                  const StepOptions& step_options, const StepObserver& observe, Workload* used) {
  if (c.alternatives.empty() || !is_performance(c.quantity)) {
    if (used) *used = c.workload;
    return predict_layout(c, p, predicted, status, step_options, observe, /*stated=*/true);
  }
  // The fastest layout that fits; its step is simulated once more for the observer.
  ValidationCase one = c;
  one.alternatives.clear();
  std::vector<const Workload*> layouts{&c.workload};
  for (const auto& w : c.alternatives) layouts.push_back(&w);
  const Workload* best = nullptr;
  std::string first_refusal;
  for (const Workload* w : layouts) {
    one.workload = *w;
    double v = 0;
    std::string st;
    if (!predict_layout(one, p, v, st, step_options, {}, /*stated=*/false)) {
      if (first_refusal.empty()) first_refusal = st;
      continue;
    }
    if (!best || as_throughput(c.quantity, v) > as_throughput(c.quantity, predicted)) best = w, predicted = v;
  }
  if (!best) {
    status = fmt::format("refused: none of the {} layouts tried fits or runs (the first: {})", layouts.size(), first_refusal);
    return false;
  }
  if (used) *used = *best;
  if (observe) {
    one.workload = *best;
    return predict_layout(one, p, predicted, status, step_options, observe, /*stated=*/false);
  }
  return true;
}

double signed_error(const ValidationCase& c, double predicted) {
  if (is_performance(c.quantity)) return as_throughput(c.quantity, predicted) / as_throughput(c.quantity, c.measured) - 1;
  return predicted / c.measured - 1;
}

std::vector<std::string> corpus_datasets(const ValidationOptions& opt, std::vector<std::string>* missing) {
  if (!opt.datasets.empty()) return opt.datasets;  // asked for by name: a missing file is an error
  std::vector<std::string> there, absent;
  for (const auto& name : dataset_names())
    (std::filesystem::exists(dataset_file(name, opt.csv_dir)) ? there : absent).push_back(name);
  // None there: the directory is wrong; load one to raise the usual error naming it.
  if (there.empty() || (there.size() == 1 && there.front() == "seed")) return dataset_names();
  if (missing) *missing = absent;
  return there;
}

std::vector<ValidationCase> load_corpus(const ValidationOptions& opt) {
  std::vector<ValidationCase> all;
  for (const auto& name : corpus_datasets(opt, nullptr)) {
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
  // and fitting in memory); ties go to the first row of the file. Per
  // hardware family and low-precision format too ("none" for BF16 / FP32 GEMMs), which selects
  // the same rows as before in every dataset that has one family and no FP8 / FP4 rows.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> pick;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& c = all[i];
    if (!c.has_workload || !is_performance(c.quantity)) continue;
    try {
      if (!make_scenario(c.workload, c.model, true).fits) continue;
    } catch (const ConfigError&) {
      continue;
    }
    const DType lin = linear_dtype(c.workload.precision);
    const auto key = std::make_tuple(c.dataset, c.model_name, c.family, is_low_precision(lin) ? to_string(lin) : "none");
    auto it = pick.find(key);
    if (it == pick.end() || c.gpus < all[it->second].gpus) pick[key] = i;
  }
  for (const auto& [key, i] : pick) all[i].calibration = true;
  return all;
}

namespace {

// The fit a dataset's rows are predicted with when it is left out, and how well it knows its parameters.
struct LeftOut {
  FamilyParams params;
  std::map<std::string, LogCovariance> covariance;  // family -> log-parameter covariance
};

// d ln(throughput) / d ln(parameter) of one case's prediction `base` for each parameter of its
// family's fit, by a 1 % step (the step the fit's covariance was taken with).
std::map<std::string, double> parameter_sensitivity(const ValidationCase& c, const FamilyParams& p, double base) {
  std::map<std::string, double> g;
  const auto fam = p.find(c.family);
  if (fam == p.end()) return g;
  for (const auto& [name, value] : fam->second) {
    FamilyParams q = p;
    q[c.family][name] = value * kParameterStep;
    double pred = 0;
    std::string status;
    if (value > 0 && predict_case(c, q, pred, status))
      g[name] = std::log(as_throughput(c.quantity, pred) / as_throughput(c.quantity, base)) / std::log(kParameterStep);
  }
  return g;
}

namespace {
std::string cp_ep_text(const Workload& w) {  // " CP2 EP8", the degrees that are 1 left out
  return (w.cp > 1 ? fmt::format(" CP{}", w.cp) : "") + (w.ep > 1 ? fmt::format(" EP{}", w.ep) : "");
}
std::string degrees_text(const Workload& w) {  // TP .. seq: what every layout text starts with
  return fmt::format("TP{} PP{} DP{}{} VP{} mb{} gb{} seq{}", w.tp, w.pp, w.dp, cp_ep_text(w), w.virtual_stages, w.micro_batch,
                     w.global_batch, w.seq_len);
}
std::string recompute_text(const Workload& w) {
  return to_string(w.checkpointing) + (w.checkpoint_every > 1 ? fmt::format("-every-{}", w.checkpoint_every) : "") +
         (w.checkpoint_layers > 0 ? fmt::format("-first-{}", w.checkpoint_layers) : "");
}
// What a stated layout ends with: the recompute unless the stack's rule chose it, and SP.
std::string stated_tail(const ValidationCase& c) {
  return (c.recompute_by_rule ? "" : " " + recompute_text(c.workload)) + (c.workload.sequence_parallel ? " SP" : "");
}
}  // namespace

std::string layout_text(const Workload& w) {
  return fmt::format("{} {} {}{}", degrees_text(w), to_string(w.precision), recompute_text(w), w.sequence_parallel ? " SP" : "");
}

// The layout as the row states it, without its precision (paired_ratios compares rows that differ
// in it) and without a recompute the stack's rule chose (two rows of one stated layout may get
// different recompute where their memory differs).
std::string stated_layout_text(const ValidationCase& c) { return degrees_text(c.workload) + stated_tail(c); }

// The replica as the row states it, for weak-scaling pairs (paired_ratios): the layout without the
// data-parallel degree and the global batch, with the batch each replica takes per step instead.
std::string stated_replica_text(const ValidationCase& c) {
  const Workload& w = c.workload;
  return fmt::format("TP{} PP{}{} VP{} mb{} seq{} replica-batch{}", w.tp, w.pp, cp_ep_text(w), w.virtual_stages, w.micro_batch,
                     w.seq_len, w.global_batch / std::max<int64_t>(1, w.dp)) +
         stated_tail(c);
}

// One row of validation.json: the case, its layout, and its prediction (or why there is none),
// with the leave-one-dataset-out error where that fit exists.
nlohmann::json row_result(const ValidationCase& c, const FamilyParams& params, const std::map<std::string, LeftOut>& lodo,
                          bool leave_one_out) {
  nlohmann::json j = {{"dataset", c.dataset}, {"row", c.row},           {"label", c.label},
                      {"family", c.family},   {"model", c.model_name}, {"quantity", to_string(c.quantity)},
                      {"unit", unit_of(c.quantity)}, {"measured", c.measured}, {"calibration", c.calibration},
                      {"params_b", c.params_b}, {"gpus", c.gpus}, {"tp", c.tp}, {"pp", c.pp}, {"seq", c.seq}};
  if (c.has_workload) {
    j["hw"] = c.workload.hw;
    j["tokens_per_step"] = static_cast<double>(c.workload.global_batch * c.workload.seq_len);
    j["precision"] = to_string(c.workload.precision);
  }
  if (c.has_workload) j["layout"] = layout_text(c.workload);
  if (c.has_workload && c.alternatives.empty()) {
    j["stated_layout"] = stated_layout_text(c);
    if (c.workload.global_batch % std::max<int64_t>(1, c.workload.dp) == 0) j["stated_replica"] = stated_replica_text(c);
  }
  if (!c.recompute_note.empty()) j["recompute_note"] = c.recompute_note;  // how close no recompute came
  if (!c.release.empty()) j["release"] = c.release;
  double pred = 0;
  std::string status;
  Workload used;
  if (predict_case(c, params, pred, status, {}, {}, &used)) {
    if (!c.alternatives.empty())
      j["layout"] = fmt::format("{} (trnsim's fastest of {} layouts)", layout_text(used), c.alternatives.size() + 1);
    j["status"] = c.calibration ? "calibration" : "predicted";
    j["predicted"] = pred;
    j["error_pct"] = 100 * signed_error(c, pred);
    const auto it = lodo.find(c.dataset);
    if (leave_one_out && is_performance(c.quantity) && it != lodo.end()) {
      double p2 = 0;
      std::string s2;
      if (predict_case(c, it->second.params, p2, s2)) {
        j["error_lodo_pct"] = 100 * signed_error(c, p2);
        // What the left-out fit's parameter uncertainty makes of this prediction (intervals.hpp).
        const auto cov = it->second.covariance.find(c.family);
        if (cov != it->second.covariance.end())
          j["lodo_param_sigma"] = parameter_sigma(cov->second, parameter_sensitivity(c, it->second.params, p2));
      }
    }
  } else {
    j["status"] = status.rfind("not expressible", 0) == 0 ? "not expressible" : "refused";
    j["reason"] = status.rfind("not expressible: ", 0) == 0 ? c.not_expressible : status;
  }
  return j;
}

}  // namespace

nlohmann::json run_validation(const ValidationOptions& opt) {
  std::vector<std::string> missing;
  corpus_datasets(opt, &missing);
  for (const auto& name : missing)
    std::cerr << fmt::format("warning: dataset {} skipped: {} is not there\n", name, dataset_file(name, opt.csv_dir));
  progress(opt.progress, "loading datasets and choosing calibration rows by the declared rule");
  const auto cases = load_corpus(opt);
  // The fits: each family on all its calibration rows, and for each dataset d the families d
  // has calibration rows in, without d (leave-one-dataset-out). Every other (d, family) pair has
  // the same rows as the full fit, hence the same parameters. Independent tasks: fork_map runs
  // them on every core, the longest (most rows) first.
  struct FitTask {
    std::string exclude, family;
    size_t rows = 0;
  };
  std::vector<FitTask> fit_tasks;
  std::map<std::string, std::set<std::string>> calibrated_in;  // dataset -> families it calibrates
  {
    std::map<std::string, size_t> per_family;
    for (const auto& c : cases)
      if (c.calibration) {
        ++per_family[c.family];
        calibrated_in[c.dataset].insert(c.family);
      }
    for (const auto& [family, n] : per_family) fit_tasks.push_back({"", family, n});
    if (opt.leave_one_out)
      for (const auto& [d, fams] : calibrated_in)
        for (const auto& f : fams) fit_tasks.push_back({d, f, per_family[f]});
    std::stable_sort(fit_tasks.begin(), fit_tasks.end(), [](const FitTask& x, const FitTask& y) { return x.rows > y.rows; });
  }
  const size_t lodo_fits = static_cast<size_t>(
      std::count_if(fit_tasks.begin(), fit_tasks.end(), [](const FitTask& t) { return !t.exclude.empty(); }));
  progress(opt.progress, fmt::format("fitting per-family hardware parameters: {} fits ({} with a dataset left out) on {} worker(s)",
                                     fit_tasks.size(), lodo_fits, std::max(1, opt.jobs)));
  // Pass 2 of the declared fit (fit_families): a family whose rows leave a host parameter to its
  // prior refits with the prior centred on the pooled fit of the families whose rows pin it, under
  // the same rows left out. Tasks carry the centres; the results come back as JSON.
  using Pooled = std::pair<std::map<std::string, double>, std::map<std::string, double>>;  // centres, spreads
  auto run_fits = [&](const std::vector<FitTask>& tasks, const std::vector<Pooled>& pooled) {
    return fork_map(tasks.size(), opt.jobs, [&](size_t i) {
      nlohmann::json log = nlohmann::json::object();
      const auto f = fit_family(cases, tasks[i].family, tasks[i].exclude, tasks[i].exclude.empty() ? &log : nullptr,
                                pooled.empty() ? std::map<std::string, double>{} : pooled[i].first,
                                pooled.empty() ? std::map<std::string, double>{} : pooled[i].second);
      return nlohmann::json{{"parameters", f.params}, {"unpinned", f.unpinned}, {"log_cov", f.log_cov}, {"log", log}}.dump();
    });
  };
  nlohmann::json fit_log = nlohmann::json::object();
  std::map<FitKey, FamilyFit> fits;  // (left-out dataset or "", family)
  auto collect = [&](const std::vector<FitTask>& tasks, const std::vector<std::string>& out) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      const auto j = nlohmann::json::parse(out[i]);
      fits[{tasks[i].exclude, tasks[i].family}] = {j["parameters"].get<std::map<std::string, double>>(),
                                                   j["unpinned"].get<std::set<std::string>>(), j["log_cov"].get<LogCovariance>()};
      for (auto it = j["log"].begin(); it != j["log"].end(); ++it) fit_log[it.key()] = it.value();
    }
  };
  collect(fit_tasks, run_fits(fit_tasks, {}));
  {
    std::map<std::string, std::set<std::string>> row_families;  // dataset -> families of its rows
    for (const auto& c : cases)
      if (c.has_workload) row_families[c.dataset].insert(c.family);
    std::vector<FitTask> second;
    std::vector<Pooled> pooled;
    for (auto& r : pooled_refits(fits, calibrated_in, row_families, opt.leave_one_out)) {
      second.push_back({r.exclude, r.family, 0});
      pooled.emplace_back(std::move(r.centres), std::move(r.spreads));
    }
    if (!second.empty()) {
      progress(opt.progress, fmt::format("refitting {} fit(s) whose host prior the rows do not pin, with the pooled prior", second.size()));
      collect(second, run_fits(second, pooled));
    }
  }
  FamilyParams params;
  std::map<std::string, LogCovariance> covariance;  // family -> in-sample fit's
  std::map<FitKey, FamilyFit> lodo_fit;
  for (const auto& [key, f] : fits) {
    if (key.first.empty()) {
      if (!f.params.empty()) params[key.second] = f.params, covariance[key.second] = f.log_cov;
    } else {
      lodo_fit[key] = f;
    }
  }
  // Hardware files must carry the fitted values, or the seed reproduction and `trnsim run`
  // would disagree with this report. Tolerance: 2e-3 of the parameter's scale (0.002 of an
  // efficiency, 0.02 us of dispatch): the fit stops where the objective is flat to 1e-9, and a
  // refit started from the applied values may land that far away.
  nlohmann::json stale = nlohmann::json::array();
  for (const auto& [family, ps] : params)
    for (const auto& file : family_hw_files(family)) {
      HwSpec hw = load_hw_spec(hw_path(file));
      const nlohmann::json raw = load_json_file(hw_path(file));
      for (const auto& [name, v] : ps)
        if (file_carries_parameter(raw, name) && std::abs(*parameter_slot(hw, name) - v) > 2e-3 * parameter_scale(name))
          stale.push_back(fmt::format("hw/{}.json {} = {} (fit: {})", file, name, *parameter_slot(hw, name), v));
    }
  std::map<std::string, LeftOut> lodo;  // dataset -> parameters fitted without it
  std::map<std::string, std::vector<std::string>> lodo_unfitted;
  if (opt.leave_one_out) {
    std::set<std::string> ds;
    for (const auto& c : cases) ds.insert(c.dataset);
    for (const auto& d : ds) {
      FamilyParams& l = lodo[d].params;
      for (const auto& [family, p] : params) {
        const auto q = lodo_fit.find({d, family});
        if (q == lodo_fit.end()) l[family] = p, lodo[d].covariance[family] = covariance[family];
        else if (!q->second.params.empty()) l[family] = q->second.params, lodo[d].covariance[family] = q->second.log_cov;
      }
      std::set<std::string> fams;
      for (const auto& c : cases)
        if (c.dataset == d && c.has_workload) fams.insert(c.family);
      for (const auto& f : fams)
        if (!l.count(f)) lodo_unfitted[d].push_back(f);
    }
  }
  // The predictions: independent rows, in chunks over the same workers; results come back in order.
  const size_t chunk = 16, n_chunks = (cases.size() + chunk - 1) / chunk;
  size_t reported = 0;
  const auto predicted = fork_map(
      n_chunks, opt.jobs,
      [&](size_t k) {
        nlohmann::json out = nlohmann::json::array();
        for (size_t i = k * chunk; i < std::min(cases.size(), (k + 1) * chunk); ++i) out.push_back(row_result(cases[i], params, lodo, opt.leave_one_out));
        return out.dump();
      },
      [&](size_t done, size_t) {
        const size_t rows_done = std::min(cases.size(), done * chunk);
        if (opt.progress && rows_done / 200 > reported / 200) progress(true, fmt::format("{} / {} rows", rows_done, cases.size()));
        reported = rows_done;
      });
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& part : predicted)
    for (auto& r : nlohmann::json::parse(part)) rows.push_back(std::move(r));
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
      a["error"] = error_stats(errs[k]);
      a["error_leave_dataset_out"] = error_stats(lerrs[k]);
      out[k] = a;
    }
    return out;
  };
  nlohmann::json v;
  v["by_dataset"] = summarise([](const nlohmann::json& r) {
    return r["dataset"].get<std::string>() + " / " + r["quantity"].get<std::string>();
  });
  v["by_family"] = summarise([](const nlohmann::json& r) {
    const bool perf = is_performance_quantity(r["quantity"]);
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
  v["datasets_not_found"] = nlohmann::json::array();
  for (const auto& name : missing) v["datasets_not_found"].push_back({{"dataset", name}, {"file", dataset_file(name, opt.csv_dir)}});
  nlohmann::json lj = nlohmann::json::object();
  for (const auto& [d, p] : lodo)
    lj[d] = {{"parameters", p.params}, {"log_covariance", p.covariance}, {"families_without_other_data", lodo_unfitted[d]}};
  v["leave_one_dataset_out"] = lj;
  v["sample_single"] = opt.sample_single;
  v["seed"] = opt.seed;
  v["rows"] = rows;
  if (opt.leave_one_out) {
    v["interval_coverage"] = interval_coverage(rows);
    v["interval_coverage_by_dataset"] = interval_coverage_by_dataset(rows);
  }
  v["ranking"] = ranking_quality(rows);
  v["error_anatomy"] = error_anatomy(rows);
  v["error_by_release"] = error_by_release(rows);
  v["paired_ratios"] = paired_ratios(rows);
  if (opt.datasets.empty()) v["collective_benchmarks"] = collective_benchmarks(opt.csv_dir.empty() ? corpus_dir() : opt.csv_dir);
  return v;
}

}  // namespace trnsim
