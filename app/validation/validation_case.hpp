// validation_case.hpp — one published measurement turned into something trnsim can
// check: the workload in the project's own schema (or the reason it cannot be written
// in it), the measured quantity, and the features the error tables group by.
// Why: the validation corpus (data/validation/) has five datasets with
// five column layouts; each gets one adapter (datasets/*.cpp) onto this type,
// and everything downstream (run, fit, tables, plots) sees only this type.
#pragma once
#include <string>
#include <vector>

#include "model_spec.hpp"
#include "workload.hpp"

namespace trnsim {

enum class Metric {
  IterationTime,        // seconds per training step
  ClusterSeqPerS,       // sequences per second, whole cluster
  TokensPerSPerGpu,     // tokens per second per GPU
  StatesGiB,            // params + grads + optimizer states per GPU (GiB)
  ActivationsGiB,       // activation memory per GPU (GiB)
  ActivationPctOfNone,  // activation memory as % of the same layout without recompute/SP
  PeakMemoryGiB,        // peak device memory per GPU as the stack reports it (GiB)
};
const char* to_string(Metric q);
const char* unit_of(Metric q);
// Time-like quantities depend on the calibrated hardware parameters; memory ones do not.
bool is_performance(Metric q);
// The same for a quantity's name in validation.json (to_string of a Metric).
bool is_performance_quantity(const std::string& name);

struct ValidationCase {
  std::string dataset;
  int row = 0;                   // 1-based data row of the CSV (header excluded)
  std::string label;             // short human description: model, layout
  std::string family;            // hardware family (calibration unit), e.g. "a100"
  std::string model_name;        // as the dataset names it (calibration rule groups by it)
  std::string not_expressible;   // non-empty: what trnsim lacks, "; "-separated blockers
  bool has_workload = false;
  Workload workload;
  // A row that ran "the most performant configuration" of a kind without listing it: the other
  // layouts the stack could have run (same model, GPUs, batch). The prediction is the fastest of
  // `workload` and these that fits (validation.hpp predict_case).
  std::vector<Workload> alternatives;
  ModelSpec model;
  Metric quantity = Metric::IterationTime;
  double measured = 0;
  bool calibration = false;      // chosen by the declared rule (validation.cpp)
  // Where a stack's rule chose the run's recompute (the lightest that fits): what no recompute
  // would need, so `--explain` shows how close the decision was. Empty otherwise.
  std::string recompute_note;
  // The recompute is the stack's rule's choice, not the row's statement (the row does not say):
  // a comparison of two rows (paired_ratios) holds their stated layouts fixed, not trnsim's choice.
  bool recompute_by_rule = false;
  // The software release the row ran, as the dataset names it ("NeMo 26.06", "SDK 2.20.0"); empty
  // where a dataset has one release or does not say. Diagnostic only (the error-by-release table).
  std::string release;
  // features for the error-vs-feature tables
  double params_b = 0;
  int64_t gpus = 0, tp = 1, pp = 1, seq = 0;
};

// The datasets, in report order, and their CSV files under `dir`.
const std::vector<std::string>& dataset_names();
// The validation corpus shipped with the project: data/validation/ of the data directory.
std::string corpus_dir();
// The file a dataset is read from (its CSV under `dir`, corpus_dir() when `dir` is empty; the seed
// rows' results/published.json).
std::string dataset_file(const std::string& name, const std::string& dir);
// Builds every row of one dataset (throws ConfigError naming the file on a malformed CSV).
std::vector<ValidationCase> load_dataset(const std::string& name, const std::string& dir);

}  // namespace trnsim
