// reproduction.hpp — every published row simulated and set beside its publication:
// error per row, scaling efficiency per series computed from the predictions, tokens
// per dollar at the published price, and the R3 trn1-vs-p4d cost comparison.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace trnsim {

nlohmann::json run_reproduction(const std::string& published_file);
std::string reproduction_markdown(const nlohmann::json& r);

}  // namespace trnsim
