// step_report.hpp — the report of one simulated step as typed values: what `trnsim run` prints in
// text, Markdown and JSON, and what the Python API returns. Why typed: the three renderers read the
// same members (report.cpp), so a figure cannot be spelt one way in the JSON and read another way
// in the text; the JSON (to_json) is one renderer among three, and the documented machine format.
// The sections other modules attach (interval, scaling, split advice, sensitivity, versus) are
// members too, filled by those modules' add_* functions.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workload.hpp"

namespace trnsim {

// The settings as run (the field table's report rows render them) and what the run derived from
// them and from the hardware.
struct WorkloadEcho {
  Workload workload;
  int64_t devices = 0, grad_accum = 0, model_parameters = 0;
  std::string loss_kernel, execution;
  std::optional<int> lnc;                              // where the chip has logical NeuronCore configs
  std::optional<double> attention_kernel_tflops;       // the native flash kernel's published rate
  bool attention_softmax_overlapped = false;           // a native kernel without one: softmax beside its GEMMs
  std::optional<std::string> op_selective_unsaved_format;  // per-op AC not saving this run's low-precision GEMMs
  struct Lora {
    int64_t rank = 0;
    std::vector<std::string> targets;
    int64_t trainable_parameters_per_core = 0;
  };
  std::optional<Lora> lora;
};

// One line of the step's breakdown: its key (step.breakdown_s), its label and seconds.
struct BreakdownPart {
  const char* key;
  const char* label;
  double s;
};
// A named time (an engine, a model part, an engine queue).
struct NamedSeconds {
  std::string name;
  double s;
};

struct StageRow {  // one pipeline rank (report.cpp stages_of)
  int stage = 0;
  std::vector<int64_t> layers_per_chunk;
  bool embedding = false, loss = false;
  double busy_s = 0, waiting_s = 0, compute_s = 0, finish_s = 0, memory_gib = 0;
  int64_t layers() const;
};
struct StageBalance {
  int busiest_stage = 0;
  double busiest_busy_s = 0, mean_busy_s = 0, imbalance = 1;
};

struct StepFigures {
  double step_time_s = 0;
  int critical_stage = 0;
  std::vector<BreakdownPart> breakdown;  // breakdown_labels() order, the parts this step has
  std::vector<NamedSeconds> by_engine, by_part, engine_busy;
  double dp_comm_total_s = 0, compute_slowed_by_collectives_s = 0;
  std::vector<StageRow> stages;  // every pipeline rank, when there are more than one
  std::optional<StageBalance> balance;
  double part(const std::string& key) const;  // a breakdown part's seconds (0 if the step has none)
};

struct ThroughputFigures {
  double sequences_per_s = 0, tokens_per_s = 0, tokens_per_s_per_core = 0, model_tflops_per_step = 0, mfu = 0, hfu = 0,
         peak_tflops_per_core = 0;
};

struct MemoryFigures {  // GiB per core, the peak stage's
  int stage = 0;
  double weights = 0, gradients = 0, optimizer_states = 0, master_weights = 0, activations = 0, temporary = 0, total = 0,
         usable_capacity = 0, headroom = 0;
  int64_t activation_micro_batches_in_flight = 1;
  std::optional<double> low_precision_weight_copies;
  std::optional<double> allocator_reserve, allocator_fragmentation;
};

struct PlanCost {
  PricePlan plan = PricePlan::OnDemand;
  double usd_per_node_hour = 0, usd_per_cluster_hour = 0, usd_per_step = 0, usd_per_million_tokens = 0;
  std::optional<double> tokens_per_usd;  // none for a free (price 0) plan
};

struct SimulatorFigures {
  size_t ops_simulated = 0, op_lookups = 0;
  int64_t micro_batches_simulated = 0, micro_batches_per_step = 0;
};

// The 90 % interval of the prediction (app/validation/intervals.hpp fills it).
struct IntervalFigures {
  std::string basis;
  bool extrapolated = false, parameter_sigma_is_upper_bound = false;
  size_t residual_rows = 0;
  double parameter_sigma_log = 0;
  std::array<double, 2> step_time_s{}, tokens_per_s{};
};

// Weak-scaling efficiency against the one-node baseline (scaling.hpp), or why there is none.
struct ScalingFigures {
  std::optional<double> efficiency;
  std::string unavailable;  // the reason, when there is no efficiency
  struct Baseline {
    int64_t dp = 0, nodes = 0, devices = 0, global_batch = 0;
    double step_time_s = 0, tokens_per_s_per_core = 0;
    bool fits_in_memory = true;
  } baseline;
};

// A pipeline split that evens the stages out, simulated (split_advice.hpp).
struct SplitAdvice {
  std::vector<int64_t> layers_per_stage;
  double step_time_s = 0, change_pct = 0, imbalance = 1, memory_per_core_gib = 0;
  std::string set;  // the --set string that runs it
};

// The step with each hardware resource better in turn (sensitivity.hpp).
struct SensitivityFigures {
  double factor = 1, step_time_s = 0;
  struct Row {
    std::string resource, scaled, figure;
    std::optional<double> step_time_s, change_pct, elasticity;
    std::optional<std::string> error;
  };
  std::vector<Row> resources;  // largest elasticity first
};

struct StepReport;
// The step against a what-if of it (versus.hpp).
struct VersusFigures {
  std::string edits;
  std::optional<std::string> refused;  // the variant cannot run: why
  std::string layout;
  struct Row {
    std::string quantity, unit;
    double base = 0, variant = 0;
    std::optional<double> change_pct;
  };
  std::vector<Row> rows;
  bool hardware_edited = false;
  std::vector<std::string> notes;                    // the variant's
  std::shared_ptr<const StepReport> report;          // the variant's whole report
  // How far to trust the comparison, from the validation corpus (paired_ratios.hpp): the analysis as
  // JSON, and the sentence the text and Markdown print.
  nlohmann::json ordering, corpus_pairs;
  std::optional<std::string> ordering_sentence, corpus_pairs_sentence;
};

struct StepReport {
  WorkloadEcho workload;
  std::vector<std::string> notes;
  StepFigures step;
  ThroughputFigures throughput;
  MemoryFigures memory;
  std::array<PlanCost, 2> cost;  // on-demand, reserved
  PricePlan selected_plan = PricePlan::OnDemand;
  SimulatorFigures simulator;
  std::optional<IntervalFigures> interval;
  std::optional<ScalingFigures> scaling;
  std::optional<SplitAdvice> split_advice;
  std::optional<SensitivityFigures> sensitivity;
  std::optional<VersusFigures> versus;
  const PlanCost& selected_cost() const { return cost[selected_plan == PricePlan::OnDemand ? 0 : 1]; }
};

// The report as JSON (the `--format json` document; every key carries its unit), and its "interval"
// object alone (as `trnsim search` rows carry it too).
nlohmann::json to_json(const StepReport& r);
nlohmann::json to_json(const IntervalFigures& iv);

}  // namespace trnsim
