// error_anatomy.hpp — where a family's prediction error lies: a diagnostic over the validation
// rows, not a fit (nothing here feeds a prediction). Two questions a user deciding how far to trust
// a family's figures asks, answered from the measurements themselves:
//   * how much error no release-blind model could remove: the same configuration (dataset, model,
//     hardware, GPU count and layout) published more than once, e.g. by successive software
//     releases, scatters around its median; predicting each group's median is the best any model
//     that sees only the configuration can do (its mean abs error over the family is the floor);
//   * how much follows the model rather than the hardware or the layout: the error left after
//     dividing each row by its model's geometric-mean offset, and each model's share of the
//     family's absolute error (a large share in one or two models points at something those models
//     do that trnsim does not model, not at a hardware parameter).
#pragma once
#include <nlohmann/json.hpp>

namespace trnsim {

// From validation rows (fields family, dataset, model, hw, gpus, layout, quantity, status,
// measured, error_pct): per family, over its predicted performance rows, {"rows", "mean_abs_pct",
// "repeat_rows" (rows whose configuration is measured more than once), "repeat_floor_pct",
// "after_model_offsets_pct", "models": [{model, rows, bias_pct, mean_abs_pct, share_pct}, ...]
// (largest share first)}. A model is the row's model name without a parenthesised variant
// ("DeepSeekV3 (tokendrop)" counts as "DeepSeekV3").
nlohmann::json error_anatomy(const nlohmann::json& rows);

}  // namespace trnsim
