// option_checks.cpp — the --lora-rank check `trnsim search` and `trnsim sweep` share: one message,
// so both commands refuse the same input the same way.
#include <fmt/format.h>

#include <filesystem>

#include "command_api.hpp"
#include "model_spec.hpp"
#include "trnsim/error.hpp"

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

}  // namespace trnsim
