// ranking.hpp — ranking quality of the predictions (issue 25, item 6). A user of a performance
// model mostly asks "which layout is fastest?", so a model can be accurate on average and still
// useless if it orders layouts wrongly. For every sweep in the corpus (rows of one dataset with the
// same model, hardware, GPU count, sequence length and precision, at least 3 distinct layouts; rows
// of one layout, e.g. software versions, count once at their mean), this computes the
// Spearman rank correlation between predicted and measured throughput (tokens per second; an
// iteration time is turned into one with the row's tokens per step) and the regret of trusting
// the prediction: 1 - measured throughput of the predicted-best layout / best measured throughput.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

namespace trnsim {

// Spearman's rho with average ranks for ties (Pearson correlation of the ranks); 0 when either
// side is constant or fewer than 2 values.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

// From validation rows (fields dataset, model, hw, gpus, seq, quantity, status, measured,
// predicted, tokens_per_step, precision, layout): {"sweeps": [...], "by_dataset": {dataset: {sweeps, layouts,
// mean_spearman, min_spearman, mean_regret_pct, max_regret_pct}}, "all": {...}}.
nlohmann::json ranking_quality(const nlohmann::json& rows);

}  // namespace trnsim
