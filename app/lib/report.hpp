// report.hpp — turns a simulated step into the numbers users decide with: step time and
// its breakdown, throughput, MFU/HFU, memory per core, cost per token at both price
// plans, with the inputs echoed. JSON is the source; text and Markdown render from it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "scenario.hpp"
#include "step_executor.hpp"

namespace trnsim {

nlohmann::json make_report(const Scenario& s, const StepResult& r);
std::string render_text(const nlohmann::json& report);
std::string render_markdown(const nlohmann::json& report);
std::string render(const nlohmann::json& report, const std::string& format);  // text | json | md
// The step's Chrome/Perfetto trace (run with StepOptions::trace), saying how much of the step it covers.
std::string step_trace_json(const Scenario& s, const StepResult& r);

// Dollars per node-hour for the workload's plan (or the given one).
double price_per_node_hour(const HwSpec& hw, PricePlan plan);

}  // namespace trnsim
