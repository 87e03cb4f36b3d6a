// versus.hpp — one step against a what-if of it, side by side (`trnsim run W --vs EDITS`).
// Why: the question a user asks of a run is rarely "how fast is this?" alone but "what would TP 4,
// FP8, twice the nodes or a faster NIC buy?". Running twice and comparing by eye invites mistakes
// (a different price plan, the wrong breakdown line). `--vs` simulates the workload with the edits
// on top of the base's (and `--vs-hw` its hw file edited) in the same process and reports every
// headline figure for both with its change, and a one-line verdict on speed and cost per token.
// A variant that does not fit is an answer too: the section says so, with the memory it needs.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "step_report.hpp"

namespace trnsim {

// Sets the base `report`'s versus: the variant's edits (as the command line gave them), its layout,
// its report (and so its interval), and one row per figure (quantity, unit, base, variant, change %).
// `hardware_edited`: the variant's hw file has edits the base's does not (--vs-hw), recorded as
// versus.hardware_edited.
void add_versus(StepReport& report, const StepReport& variant_report, const std::string& edits, bool hardware_edited = false);
// Sets versus for a variant that cannot run: its edits and the reason (one line).
void add_versus_refusal(StepReport& report, const std::string& edits, const std::string& reason);
// The corpus's pair statistic for a comparison (ranking.hpp, versus_ordering) as one sentence.
std::string versus_ordering_sentence(const nlohmann::json& ordering);

// A pair-order bin's range as text ("10-20 %", "20 % or more"): validation's "pair_order" bins as
// `run --vs`, `search` and validation.md quote them.
std::string pair_gap_range(const nlohmann::json& bin);
// The "How far to trust the order: ..." sentence of a search or sweep document's "top_order"
// (ranking.hpp, top_order_of), one Markdown line.
std::string top_order_sentence(const nlohmann::json& top_order);

// The section as JSON ("versus"), text (with the base step's interval beside the variant's) and Markdown.
nlohmann::json versus_json(const VersusFigures& vs);
std::string versus_text(const VersusFigures& vs, const std::optional<IntervalFigures>& base_interval);
std::string versus_markdown(const VersusFigures& vs);

}  // namespace trnsim
