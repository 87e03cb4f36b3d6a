// paired_ratios.hpp — what a change of precision, of hardware or of scale does, measured against
// predicted.
// Why: a planner is used for comparisons ("FP8 or BF16?", "GB200 or GB300?", "what do more nodes
// buy?") more than for one absolute figure, and a comparison can be wrong while both absolute
// errors look moderate (two rows at -10 % and +20 % are each "within 20 %", their ratio is 33 %
// off). The corpus holds such comparisons directly: rows of one dataset, model, software release
// and stated layout that differ only in the precision, or only in the hardware, and rows of one
// replica on more and fewer devices (weak scaling). Their measured ratio is a fact no fit touches;
// trnsim's predicted ratio of the same two rows says whether the mechanism behind the change (a
// dtype's GEMM rate and cast costs, a chip's rates and links, the collectives that grow with the
// cluster) is right. A diagnostic, like error_anatomy: nothing here feeds a prediction.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

#include "step_report.hpp"

namespace trnsim {

// From validation rows (fields dataset, model, release, stated_layout, stated_replica, quantity,
// status, family, hw, gpus, tokens_per_step, precision, measured, predicted, row): every pair of
// rows with a prediction (predicted or calibration) whose dataset, model, release, quantity and
// stated layout and GPU count agree and which differ in exactly one of precision or hardware; and
// (factor "scale") every pair whose stated replica (the layout without DP and the global batch, with
// the batch per replica), hardware and precision agree on two GPU counts: weak scaling. A row
// without "stated_layout" (its layout was searched, not stated) pairs with nothing. Each pair runs
// from the lower precision (fp32 < bf16-sr < mixed-bf16 < fp8 < mxfp8 < nvfp4), the alphabetically
// first hardware or the fewer GPUs to the other; ratios are of per-GPU throughput (an iteration time
// counts as the step's tokens over it, a whole-cluster rate is divided by the GPUs). Identical pairs
// (the same run under two model names, NeMo's "(tokendrop)" twins) count once.
// Returns {"pairs": [{factor ("precision" | "hardware"), family (or "a -> b" across families),
// from, to, dataset, model, release, rows: [from row, to row], measured_ratio, predicted_ratio,
// ratio_error_pct, same_as (optional: the [from, to] rows of repeats, counted once)}], "hw_families": {hw: family}, "groups"
// (scale groups also carry dataset, scale_min and scale_max, the GPU-count ratios they span): [{factor, family, from, to, pairs, measured_ratio, predicted_ratio
// (geometric means), mean_abs_ratio_error_pct, bias_pct}]} (groups by factor, family, from, to).
nlohmann::json paired_ratios(const nlohmann::json& rows);

// For `trnsim run --vs`: when the variant changes only the precision, or only the hardware (same
// model, GPU count, sequence and degrees), or only the number of replicas (more or fewer GPUs, the
// same batch per replica), the corpus's group of that change (`paired`: what paired_ratios
// returned, or validation.json's "paired_ratios"), so the report can say how far the predicted
// gain held on measured pairs. {"applies": false, "reason"} otherwise; {"applies": true, "factor",
// "family", "from", "to", "reversed", "variant_gain" (the predicted per-GPU throughput ratio,
// variant / base), and "group" (or null: no such pair measured) or, for scale, "groups" (the
// family's scale groups, one per dataset)}. A hardware family comes from the corpus rows' hw ->
// family map ("hw_families").
nlohmann::json versus_ratio_check(const nlohmann::json& report, const nlohmann::json& paired);
// The sentence `run --vs` prints for versus_ratio_check's result.
std::string ratio_check_sentence(const nlohmann::json& check);

// What `run --vs` (CLI and Python alike) adds from the validation results to a report that holds
// its "versus": the ordering statistic of a layout pair (ranking.hpp, versus_ordering) and, when the
// variant changes only the precision or only the hardware, the corpus's pairs of that change
// ("corpus_pairs", with its "sentence").
struct ValidationResults;
void add_versus_checks(StepReport& report, const ValidationResults& validation);

// For `validation --explain DATASET:ROW`: the recorded pairs (`paired`'s "pairs") that hold the row,
// one line each ("  paired: precision mixed-bf16 -> mxfp8 with row 351 (...): measured 1.61x,
// predicted 1.44x, ratio error -11.3 %"); empty when it is in none.
std::string row_pairs_text(const nlohmann::json& paired, const std::string& dataset, int row);

// The order precisions are paired in (lower first); unknown names sort last, by name.
int precision_rank(const std::string& precision);

}  // namespace trnsim
