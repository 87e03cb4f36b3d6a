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

// Software releases: per dataset whose predicted performance rows name more than one release
// (field release), per release in version order: {"dataset", "release", "rows", "bias_pct",
// "mean_abs_pct"}. A release-blind model predicts one software state; a bias that moves with the
// release is what the software changed, which no hardware or stack parameter should absorb.
nlohmann::json error_by_release(const nlohmann::json& rows);

// Version order of release names: by the numbers in them ("NeMo 24.07" < "NeMo 25.04.rc2" <
// "NeMo 26.04" < "NeMo 26.04.01"; "SDK 2.9" < "SDK 2.10"), then by text.
bool release_before(const std::string& a, const std::string& b);

}  // namespace trnsim
