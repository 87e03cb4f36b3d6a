// sensitivity.hpp — which hardware resource bounds this step. A hardware team asks "what would a
// faster X buy us?" and a user asks "what is this step waiting on?": the breakdown says where the
// time goes, but overlapped work hides what binds. This re-simulates the step with one resource at
// a time made `factor` better (the tensor engines' clock, the vector-side engines' clock, HBM and
// DMA bandwidth, the scale-up links, the NICs, the host's per-op cost, the fixed latencies) and
// reports each one's step time and elasticity: ln(step / step with it) / ln(factor), the share of
// the step that scales with the resource (1: all of it; 0: none; overlap makes the shares sum to
// anything between the largest one and the number of resources).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw_spec.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"
#include "step_report.hpp"

namespace trnsim {

// One hardware resource: what it is (with its unit), how its figure reads in the hw file, and how
// to make it `factor` better (bandwidths and clocks times factor, costs and latencies over it).
struct HwResource {
  std::string name;         // short key: tensor, vector, memory, scale_up, network, host, latency
  std::string description;  // what is scaled, with the hw file fields
  void (*improve)(HwSpec& hw, double factor);
  // The resource's figure on `hw`, with its unit ("1.41 GHz", "3350 GB/s", ...), for the report.
  std::string (*figure)(const HwSpec& hw);
};

// How much better each resource is made when the user does not say (`--sensitivity-pct`), in %.
constexpr double kSensitivityDefaultPct = 10;

// The resources in report order.
const std::vector<HwResource>& hw_resources();

// Re-simulates the run once per resource at `factor` (> 1) and sets the report's sensitivity: the
// factor, and per resource its figure, the step time with it improved, the change (%) and the
// elasticity; sorted by elasticity, largest first. A resource whose variant cannot run (it should
// not happen: capacity is unchanged) is reported with its error instead.
void add_sensitivity(StepReport& report, const Scenario& s, const StepResult& r, double factor);

// The section as JSON ("sensitivity") and as text lines.
nlohmann::json sensitivity_json(const SensitivityFigures& sv);
std::string sensitivity_text(const SensitivityFigures& sv);

}  // namespace trnsim
