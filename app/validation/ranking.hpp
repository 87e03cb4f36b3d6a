// ranking.hpp — ranking quality of the predictions. A user of a performance
// model mostly asks "which layout is fastest?", so a model can be accurate on average and still
// useless if it orders layouts wrongly. For every sweep in the corpus (rows of one dataset with the
// same model, hardware, GPU count, sequence length and precision, at least 3 distinct layouts; rows
// of one layout, e.g. software versions, count once at their mean), this computes the
// Spearman rank correlation between predicted and measured throughput (tokens per second; an
// iteration time is turned into one with the row's tokens per step) and the regret of trusting
// the prediction: 1 - measured throughput of the predicted-best layout / best measured throughput.
// And pair by pair: for every two layouts of a sweep, whether the one trnsim predicts
// faster measured faster, binned by how far apart it predicts them (0-2, 2-5, 5-10, 10-20, >= 20 %):
// how far a predicted difference between two layouts can be trusted (`trnsim run --vs` quotes it).
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
// ..., "pair_order": {dataset and "all": [{gap_lo_pct, gap_hi_pct (not on the last bin), pairs,
// ordered_right, ordered_right_pct (where pairs > 0)}]}.
nlohmann::json ranking_quality(const nlohmann::json& rows);

// The "all" pair-order bin of `ranking` (validation.json's "ranking") that holds a predicted gap of
// `gap` (a fraction: |predicted ratio - 1|); null when the document has none or the bin no pairs.
nlohmann::json pair_order_for_gap(const nlohmann::json& ranking, double gap);

// For a `trnsim run --vs` report: how often trnsim ordered layout pairs predicted as far apart as
// its base and variant right in the corpus's sweeps (`ranking`: validation.json's "ranking"), as
// report["versus"]["ordering"]; where base and variant are not two layouts of one model on one
// hardware and cluster size, the statistic does not apply and the object says why.
nlohmann::json versus_ordering(const nlohmann::json& report, const nlohmann::json& ranking);

// For rows sorted by throughput (a search's "top_by_throughput", a sweep's "rows"): how far apart
// the best and its runner-up (the next row of the same hardware, node count and precision) are
// predicted, and how often the corpus's sweeps ordered pairs that far apart right; how many rows of
// that kind lie within 5 % of the best. Null when there is no such runner-up or `ranking` has no
// pair statistics.
nlohmann::json top_order_of(const nlohmann::json& rows, const nlohmann::json& ranking);
// Adds top_order_of(doc[list], ranking) as doc["top_order"] where there is one (a null `ranking`,
// a tree without validation results: nothing).
void add_top_order(nlohmann::json& doc, const std::string& list, const nlohmann::json& ranking);

}  // namespace trnsim
