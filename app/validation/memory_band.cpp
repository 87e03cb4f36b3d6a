// memory_band.cpp — see memory_band.hpp.
#include "memory_band.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <vector>

#include "intervals.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {

std::optional<MemoryErrorBand> memory_error_band(const std::string& validation_json) {
  const nlohmann::json doc = load_json_file(validation_json);
  std::vector<double> errors;
  if (doc.contains("rows") && doc["rows"].is_array())
    for (const auto& r : doc["rows"])
      if (r.value("quantity", "") == "peak_memory" && r.value("status", "") == "predicted" && r.contains("error_pct") &&
          r["error_pct"].is_number())
        errors.push_back(r["error_pct"].get<double>() / 100);
  if (errors.size() < 5) return std::nullopt;
  return MemoryErrorBand{errors.size(), quantile(errors, 0.05), quantile(errors, 0.95)};
}

std::string memory_margin_note(const MemoryErrorBand& band, double needed_gib, double usable_gib) {
  if (needed_gib <= usable_gib || band.hi <= 0 || needed_gib / (1 + band.hi) > usable_gib) return "";
  return fmt::format("; over by {:.1f} %, inside trnsim's memory error (on {} published runs that state their peak memory "
                     "its prediction was {:+.0f} to {:+.0f} % of the measurement, 90 %): this layout may still fit, so its "
                     "step is predicted; a short run would tell",
                     100 * (needed_gib / usable_gib - 1), band.rows, 100 * band.lo, 100 * band.hi);
}

std::string memory_margin_note(const Scenario& s) {
  const std::string file = validation_results_file();
  if (s.fits || s.memory.empty() || file.empty()) return "";
  // Read once per file: validation asks for every row that does not fit.
  static std::mutex mutex;
  static std::map<std::string, std::optional<MemoryErrorBand>> bands;
  std::optional<MemoryErrorBand> band;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = bands.find(file);
    if (it == bands.end()) it = bands.emplace(file, memory_error_band(file)).first;
    band = it->second;
  }
  if (!band) return "";
  return memory_margin_note(*band, in_gib(peak_stage(s.memory).total()), in_gib(s.hw.hbm_per_core()));
}

std::string memory_warning_or_refusal(const Scenario& s) {
  if (s.fits) return "";
  const std::string note = memory_margin_note(s);
  if (note.empty()) throw ConfigError(s.memory_error);
  return "warning: " + s.memory_error + note;
}

std::string variant_refusal(Scenario& variant) {
  try {
    if (const std::string warning = memory_warning_or_refusal(variant); !warning.empty()) variant.notes.push_back(warning);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace trnsim
