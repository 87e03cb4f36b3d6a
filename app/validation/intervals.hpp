// intervals.hpp — prediction intervals from the validation corpus (issues 25 and 26).
// Why: a step time without its uncertainty invites over-trust. The interval of a prediction comes
// from trnsim's leave-one-dataset-out errors (each row predicted by a fit that never saw its
// dataset), taken from results/validation.json. An error is modelled as a dataset-level offset (a
// stack on a cluster is off by its own mean, and a stack nobody fitted may be off like any seen
// dataset) plus a row-level spread around that mean, which may also look like any seen dataset's;
// the interval is the 5th-95th percentile of every dataset offset plus every centred residual. A
// chip whose family was measured on three or more datasets (A100, H100, Blackwell) takes its own
// family's datasets (pooled, A100's small errors were 98.9 % covered and Blackwell's
// 74 %; own, 92.4 and 84.8 %); the others and extrapolated chips (trn2, trn3, ...) take every
// family's; the report says which. interval_coverage() checks the rule on held-out datasets
// (validation.md reports it; the family's own spread alone covered 66 %).
// A second term adds what the fit's parameters leave open: a prediction inherits the uncertainty of
// its family's fitted parameters (FamilyFit::log_cov) through its sensitivity to them, small where
// the calibration rows pin them, large where a parameter is known only from other families (a
// left-out dataset that alone measured the host: vtrain_single's small models, 74 % covered
// without this term). The residuals behind the interval were themselves predicted by left-out
// fits, so they already hold a typical parameter uncertainty: adding the term in quadrature counts
// it twice (tried: 96.9 % coverage, every dataset but two at 98-100 %). The interval is the wider
// of the two about its log centre: the offsets-and-spread one, and +-1.645 s.d. of this
// prediction's parameter term.
// Errors are e = predicted / measured throughput - 1, so the measured throughput of a prediction
// P lies in [P / (1 + e95), P / (1 + e5)].
#pragma once
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw_spec.hpp"
#include "scenario.hpp"
#include "step_report.hpp"

namespace trnsim {

struct Interval {
  double e_lo = 0, e_hi = 0;  // 5th and 95th percentile of the errors (fractions)
  size_t rows = 0;            // residuals behind it
  std::string basis;          // where the residuals come from (measured chip's family, or extrapolated)
  bool extrapolated = false;
  // The interval of a throughput-like prediction (bigger = faster), and of a time-like one.
  double throughput_lo(double p) const { return p / (1 + e_hi); }
  double throughput_hi(double p) const { return p / (1 + e_lo); }
  double time_lo(double t) const { return t * (1 + e_lo); }
  double time_hi(double t) const { return t * (1 + e_hi); }
  double param_sigma = 0;  // log-throughput s.d. from the fitted parameters (0: not applied)
  bool param_sigma_is_bound = false;  // param_sigma is the family's largest parameter s.d., not this step's term
};
// `iv` widened to +-1.645 `sigma` (1 s.d. of log throughput) about its log centre where that is wider (header).
Interval with_parameter_sigma(Interval iv, double sigma);

class IntervalModel {
 public:
  // Reads validation.json (rows with "hw", "family", "quantity", "error_lodo_pct"); a missing or
  // malformed file is a ConfigError naming it.
  explicit IntervalModel(const std::string& validation_json);
  // The same from the parsed document (`name` for errors): a command that also reads the document's
  // other sections (its "ranking") parses it once (load_validation_results).
  IntervalModel(const nlohmann::json& doc, const std::string& name);
  Interval for_hw(const HwSpec& hw) const;
  // The family whose measured rows ran on this chip (the same BF16 rate and HBM bandwidth); empty
  // for a chip nobody measured (an extrapolated interval).
  std::string measured_family(const HwSpec& hw) const;
  // for_hw() plus the parameter term of scenario `s`, whose step takes `step_time_s`: its
  // sensitivity to each fitted parameter of the hw file's family (the step re-simulated with the
  // parameter 1 % higher) through the in-sample fit's covariance (`trnsim run`, `compare`, `search`).
  // With `skip_if_inside`, the re-simulations are skipped where the term cannot widen the interval:
  // a step's sensitivities are shares of its time (|g| summing to at most 1), so its term is at most
  // the family's largest parameter s.d.; when 1.645 times that is inside the interval the result is
  // for_hw()'s, with that bound reported (`trnsim search`, which lists up to 60 rows).
  Interval for_scenario(const Scenario& s, double step_time_s, bool skip_if_inside = false) const;
  // The in-sample fit's log-parameter covariance of the family whose hw files include `hw_name`
  // (validation.json's calibration log); empty when none does.
  std::map<std::string, std::map<std::string, double>> covariance_for(const std::string& hw_name) const;

 private:
  struct Chip {
    double bf16_tflops_per_chip, hbm_GBps_per_chip;
    std::string family;
  };
  std::map<std::string, std::map<std::string, std::vector<double>>> groups_;  // family -> dataset -> errors
  std::vector<Chip> measured_;
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> covariance_;  // hw file -> covariance
};

// <data dir>/results/validation.json, or "" when the tree has none (no interval then).
std::string validation_results_file();
// The "interval" object of one prediction (90%: step time and tokens/s, basis, residual rows), as
// `trnsim run` reports and `trnsim search` rows carry it.
IntervalFigures interval_figures(const Interval& iv, double step_time_s, double tokens_per_s);
nlohmann::json interval_json(const Interval& iv, double step_time_s, double tokens_per_s);
// results/validation.json read once for a command: its interval model (unless `with_intervals` is
// false: a sweep quotes only the ranking) and its "ranking" section (ranking.hpp's pair
// statistics); both empty (no model, null ranking) when the tree has no file.
struct ValidationResults {
  std::optional<IntervalModel> intervals;
  nlohmann::json ranking;
  nlohmann::json paired;  // validation.json's "paired_ratios" (paired_ratios.hpp); null when absent
};
ValidationResults load_validation_results(bool with_intervals = true);
// Sets the interval of a `trnsim run` report of scenario `s` from `model`. Its parameter term takes
// the step's sensitivity to each fitted parameter of the hw file's family (d ln(throughput) /
// d ln(parameter), the step re-simulated with the parameter 1 % higher) through the in-sample
// fit's covariance.
void add_interval(StepReport& report, const Scenario& s, const IntervalModel& model);

// How often the 90% intervals hold on data they were not built from: each performance
// row's leave-one-dataset-out error is checked against the interval built with its dataset left
// out entirely (offsets and spread). Per family and overall: {rows, covered, coverage_pct}.
nlohmann::json interval_coverage(const nlohmann::json& rows);
// The same check counted per held-out dataset (each dataset one "stack nobody fitted").
nlohmann::json interval_coverage_by_dataset(const nlohmann::json& rows);

// The q-quantile (0..1) of xs by linear interpolation between order statistics.
double quantile(std::vector<double> xs, double q);

}  // namespace trnsim
