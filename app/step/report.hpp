// report.hpp — turns a simulated step into the numbers users decide with: step time and
// its breakdown, throughput, MFU/HFU, memory per core, cost per token at both price
// plans, with the inputs echoed. The report is typed (step_report.hpp); text, Markdown and JSON
// render from it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "scenario.hpp"
#include "step_executor.hpp"
#include "step_report.hpp"

namespace trnsim {

StepReport build_report(const Scenario& s, const StepResult& r);
// build_report as JSON: for the commands that read a run's figures as data (search rows, sweep
// workers, validation), the documented `--format json` document.
nlohmann::json make_report(const Scenario& s, const StepResult& r);
// " CP 2 EP 8 ETP 2": the context and expert degrees the report shows for `w` (the field table's rule).
std::string shown_degrees(const Workload& w);
// The step breakdown's keys (step.breakdown_s) with their labels, in report order.
const std::vector<std::pair<const char*, const char*>>& breakdown_labels();
std::string render_text(const StepReport& report);
std::string render_markdown(const StepReport& report);
std::string render(const StepReport& report, const std::string& format);  // text | json | md
// The step's Chrome/Perfetto trace (run with StepOptions::trace), saying how much of the step it covers.
std::string step_trace_json(const Scenario& s, const StepResult& r);

// Dollars per node-hour for the workload's plan (or the given one).
double price_per_node_hour(const HwSpec& hw, PricePlan plan);

// One output row from a `run --format json` report: layout, step time, throughput, memory, and
// time and on-demand cost to train `train_tokens` (days = tokens / tokens_per_s / 86400,
// cost = days x 24 x nodes x price).
nlohmann::json row_from_report(const nlohmann::json& report, double train_tokens);
// The reason a layout was rejected, for counting: "does not fit in HBM" or "invalid <JSON path>"
// from a ConfigError's one-line message.
std::string rejection_reason(const std::string& message);

}  // namespace trnsim
