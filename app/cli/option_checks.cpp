// option_checks.cpp — option checks commands share, so they refuse the same input the same way:
// --lora-rank (`trnsim search`, `trnsim sweep`), --hw / --model as names (`search`, `sweep`,
// `collective`) and --sensitivity[-pct] (`trnsim run`, `trnsim compare`).
#include <fmt/format.h>

#include <filesystem>

#include "command_api.hpp"
#include "model_spec.hpp"
#include "sensitivity.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {

void check_lora_model(const std::string& command, const std::string& model, int64_t lora_rank) {
  if (lora_rank <= 0) return;
  const std::string path = model_path(model);
  if (!std::filesystem::exists(path)) return;  // the command's own unknown-model error names it
  const ModelSpec m = load_model_spec(path);
  if (m.non_dense_layers())
    throw UsageError(fmt::format("trnsim {}: --lora-rank: LoRA is modelled for dense attention / MLP decoders; {} has "
                                 "{} layers (use 0, full training)",
                                 command, m.name, m.non_dense_layers()));
}

void check_data_names(const Args& a) {
  for (const std::string& name : a.words("hw"))
    if (!is_plain_name(name))
      throw UsageError(fmt::format("--hw {}: \"{}\" is not an instance name; use names from `trnsim list` (no directory, no .json)",
                                   a.get("hw"), name));
  if (a.has("model") && !is_plain_name(a.get("model")))
    throw UsageError(fmt::format("--model {}: not a model name; use a name from `trnsim list` (no directory, no .json)", a.get("model")));
}

double sensitivity_factor(const Args& a) {
  if (!a.has("sensitivity") && !a.has("sensitivity-pct")) return 0;
  return 1 + (a.has("sensitivity-pct") ? a.number("sensitivity-pct", 0.1, 100) : kSensitivityDefaultPct) / 100;
}

}  // namespace trnsim
