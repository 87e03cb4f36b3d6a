// memory_band.hpp — how far trnsim's memory model was from the published peak memory of runs that
// state it, so a layout over the usable HBM by less than that error is predicted with a warning
// rather than refused.
// validation.json's peak-memory rows are predictions (no fitted parameter touches memory), so
// their errors are an honest band (today: the 95th percentile over-predicts by about 2.6 %). `trnsim
// run` predicts such a layout and warns; validation predicts a row's stated layout inside the band
// (the run happened); the search, the sweep and the adapters' guesses at unstated layouts stay strict.
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
// The warning a layout gets when it needs `needed_gib` of `usable_gib` and would fit had the
// prediction been as high as the band's top ("" otherwise: it is refused).
std::string memory_margin_note(const MemoryErrorBand& band, double needed_gib, double usable_gib);
// The same for a scenario that does not fit, from validation_results_file() ("" without one; the
// file is read once per process).
std::string memory_margin_note(const Scenario& s);

// The rule `trnsim run` and trnsim.run share: "" when `s` fits; when it needs more than the usable
// HBM by less than trnsim's memory error, the warning to give (its step is predicted); otherwise
// throws its does-not-fit ConfigError.
std::string memory_warning_or_refusal(const Scenario& s);
// The same for a what-if beside the run (--vs, trnsim.run's vs=): its warning goes into its notes and
// the refusal, if any, is returned ("" when its step is to be predicted) rather than thrown.
std::string variant_refusal(Scenario& variant);

}  // namespace trnsim
