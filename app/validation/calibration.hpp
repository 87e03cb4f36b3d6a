// calibration.hpp — `trnsim calibrate`: the per-family fit of the declared hardware parameters
// on the rows the written rule picks (results/validation/RULES.md), recorded in
// results/calibration.{md,json} and, with apply, written into the family's hw files.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "validation.hpp"

namespace trnsim {

nlohmann::json run_calibration(const ValidationOptions& opt, bool apply);
std::string calibration_markdown(const nlohmann::json& c);

}  // namespace trnsim
