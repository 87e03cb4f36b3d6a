// validation.hpp — every row of the validation corpus predicted and compared with its
// measurement; the declared calibration rule and fit (per hardware family, named hardware
// parameters only); leave-one-dataset-out errors; the tables of results/validation.md.
#pragma once
#include <nlohmann/json.hpp>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "hw_spec.hpp"
#include "step_executor.hpp"
#include "validation_case.hpp"

namespace trnsim {

// family -> parameter name -> value
using FamilyParams = std::map<std::string, std::map<std::string, double>>;

struct ValidationOptions {
  std::vector<std::string> datasets;  // empty: all
  std::string csv_dir;                // empty: corpus_dir(), the corpus shipped in data/validation/
  size_t sample_single = 0;           // >0: seeded sample of vtrain_single rows (stated in the report)
  unsigned seed = 1;
  bool leave_one_out = true;
  bool progress = true;               // one status line per stage on stderr
  int jobs = 1;                       // worker processes for the fits and the predictions (fork_map)
};

// The named hardware parameters fitted per family (at most three each).
const std::vector<std::string>& calibration_parameters(const std::string& family);
// Writes one fitted parameter into a hw file's JSON, at its key and in the file's unit.
void write_parameter(nlohmann::ordered_json& hw_file, const std::string& name, double value);
// Whether a hw file's JSON carries a fitted parameter. A host cost belongs to an execution mode the
// file offers: a Trainium3 file has no torch-xla trace cost (PyTorch/XLA ended with Neuron 2.30),
// so the Trainium family's host.trace_s is neither written into it nor checked there.
bool file_carries_parameter(const nlohmann::json& hw_file, const std::string& name);
// The hw files that carry a family's fitted parameters (each the ones it offers).
std::vector<std::string> family_hw_files(const std::string& family);

// The datasets a run reads: those asked for by name, else every dataset whose file is in the corpus
// directory (the others into `missing`, when given; all of them when none is there, so that
// loading raises the error naming the directory).
std::vector<std::string> corpus_datasets(const ValidationOptions& opt, std::vector<std::string>* missing);
// Loads the datasets and marks calibration rows by the declared rule (results/validation/RULES.md).
std::vector<ValidationCase> load_corpus(const ValidationOptions& opt);
// Fits every family that has calibration rows; families without keep their hw-file values.
FamilyParams fit_families(const std::vector<ValidationCase>& cases, const std::string& exclude_dataset = "",
                          nlohmann::json* log = nullptr);
// One family's fit (validation_fit.cpp): its parameters (empty when it has no calibration rows
// outside `exclude`) and the prior-carrying parameters its rows do not pin (their information
// about it is below the prior's). `prior_centres` moves a prior's centre (pooled_prior_centres).
// `log_cov`: the covariance of the fitted parameters' logarithms (how well the calibration rows
// know them): s^2 (J^T J)^-1 at the optimum, J the log residuals' (rows and prior pseudo-rows)
// derivatives by the log parameters, s^2 the rows' squared log residuals over n - p; an unpinned
// parameter with a pooled prior is known only as well as the families that pin it agree
// (`prior_spreads`: its variance is that spread squared, uncorrelated with the others).
using LogCovariance = std::map<std::string, std::map<std::string, double>>;
// The relative step of a parameter for the fit's covariance and for a prediction's sensitivity to
// it (the same step on both sides of g^T C g).
constexpr double kParameterStep = 1.01;
struct FamilyFit {
  std::map<std::string, double> params;
  std::set<std::string> unpinned;
  LogCovariance log_cov;
};
FamilyFit fit_family(const std::vector<ValidationCase>& cases, const std::string& family, const std::string& exclude,
                     nlohmann::json* log = nullptr, const std::map<std::string, double>& prior_centres = {},
                     const std::map<std::string, double>& prior_spreads = {});
// For `family`'s unpinned parameters, the geometric mean of the same parameter over the other
// families of one fit (same rows left out) whose rows pin it; a parameter no family pins is absent.
std::map<std::string, double> pooled_prior_centres(const std::map<std::string, FamilyFit>& fits,
                                                   const std::string& family);
// The same parameters' spread: the sample standard deviation of their logarithms over the pinning
// families, times sqrt(1 + 1/n) (where a new member of that group may fall); only where n >= 2.
std::map<std::string, double> pooled_prior_spreads(const std::map<std::string, FamilyFit>& fits,
                                                   const std::string& family);
// sqrt(g^T C g): the log-throughput standard deviation a prediction inherits from its family's
// fitted parameters, `g` its sensitivity d ln(throughput) / d ln(parameter) (names absent from
// either side count as zero).
double parameter_sigma(const LogCovariance& cov, const std::map<std::string, double>& g);
// Pass 2 of the declared fit: the fits to redo with a pooled prior. `fits`: pass 1, keyed by
// (left-out dataset, or "" for in-sample; family). `calibrated_in`: dataset -> families it has
// calibration rows of. `row_families`: dataset -> families of its rows (whose left-out predictions
// use that family's fit; ignored without `leave_one_out`). An exclusion sees its own refit of a
// family it calibrates and the in-sample fit of every other. A refit is due in-sample for every
// unpinned family other families pin, and left out where the dataset calibrates the family or its
// fits move the family's pooled centre.
struct PooledRefit {
  std::string exclude, family;
  std::map<std::string, double> centres, spreads;
};
using FitKey = std::pair<std::string, std::string>;
std::vector<PooledRefit> pooled_refits(const std::map<FitKey, FamilyFit>& fits,
                                       const std::map<std::string, std::set<std::string>>& calibrated_in,
                                       const std::map<std::string, std::set<std::string>>& row_families, bool leave_one_out);
// Where a fitted parameter lives in HwSpec, its typical size, and the family's values applied to a spec.
double* parameter_slot(HwSpec& hw, const std::string& name);
double parameter_scale(const std::string& name);
void apply_family_params(HwSpec& hw, const std::string& family, const FamilyParams& p);
// Performance quantities as a throughput (bigger = faster), so that one sign convention holds.
double as_throughput(Metric q, double v);
// The prediction of one case under the given parameters. Returns false and sets `status`
// ("refused: ...") when trnsim rejects a configuration that ran. A performance case's simulated
// step is handed to `observe` (`validation --explain` prints its report and trace from it).
// A case with alternatives (a row that ran the fastest layout of several, unlisted) predicts the
// fastest of its layouts that fits; `used`, when given, receives the layout the prediction is of.
using StepObserver = std::function<void(const Scenario&, const StepResult&)>;
bool predict_case(const ValidationCase& c, const FamilyParams& p, double& predicted, std::string& status,
                  const StepOptions& step_options = {}, const StepObserver& observe = {}, Workload* used = nullptr);
// Signed error in the report's convention: performance rows (predicted/measured throughput - 1,
// positive = trnsim too fast), memory rows (predicted/measured - 1, positive = too much).
double signed_error(const ValidationCase& c, double predicted);

// Signed errors (predicted / measured - 1) summarised: n, mean abs, median, p90 and worst abs, bias (%).
nlohmann::json error_stats(const std::vector<double>& signed_errs);
nlohmann::json run_validation(const ValidationOptions& opt);
std::string validation_markdown(const nlohmann::json& v);
// validation.md's table of the sweeps below Spearman 0.9 or above 3 % regret, from ranking_quality's result.
std::string weak_sweeps_markdown(const nlohmann::json& ranking);

}  // namespace trnsim
