// memory_band.hpp — how far trnsim's memory model was from the published peak memory of runs that
// state it, so a layout refused by a small margin says that it may still fit.
// validation.json's peak-memory rows are predictions (no fitted parameter touches memory), so
// their errors are an honest band; `trnsim run` adds it to a does-not-fit error.
#pragma once
#include <optional>
#include <string>

#include "scenario.hpp"

namespace trnsim {

// Published peak-memory rows predicted, and the 5 % / 95 % quantiles of predicted / measured - 1.
struct MemoryErrorBand {
  size_t rows = 0;
  double lo = 0, hi = 0;
};
// From validation.json's rows of quantity peak_memory; nullopt with fewer than 5 such rows. A
// missing or malformed file is a ConfigError naming it.
std::optional<MemoryErrorBand> memory_error_band(const std::string& validation_json);
// The sentence a does-not-fit error gets when the layout needs `needed_gib` of `usable_gib` and
// would fit had the prediction been as high as the band's top ("" otherwise).
std::string memory_margin_note(const MemoryErrorBand& band, double needed_gib, double usable_gib);
// The same for a scenario that does not fit, from validation_results_file() ("" without one).
std::string memory_margin_note(const Scenario& s);

}  // namespace trnsim
