// versus.cpp — the base step and a what-if of it, figure by figure (see versus.hpp).
#include "versus.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "report.hpp"

namespace trnsim {

namespace {

// "TP 4 PP 1 DP 1024 EP 8 | mb 1 x 2 = 1024 x 4096 tokens | fp8, selective | 128 x trn1.32xlarge"
std::string layout_line(const WorkloadEcho& e) {
  const Workload& w = e.workload;
  std::string extra = shown_degrees(w);
  if (w.virtual_stages > 1) extra += fmt::format(" VP {}", w.virtual_stages);
  return fmt::format("TP {} PP {} DP {}{} SP {} ZeRO-{} | micro-batch {} x {} = global {} x {} tokens | {}, {} checkpointing | "
                     "{} x {} ({} cores)",
                     w.tp, w.pp, w.dp, extra, w.sequence_parallel ? "on" : "off", w.zero, w.micro_batch, e.grad_accum, w.global_batch,
                     w.seq_len, to_string(w.precision), to_string(w.checkpointing), w.nodes, w.hw, e.devices);
}

// A figure as its unit reads best: seconds and dollars to 4 decimals, GiB to 2, % to 1, rates above
// 1000 as integers.
std::string number(double x, const std::string& unit) {
  if (unit == "s" || unit.rfind("$", 0) == 0) return fmt::format("{:.4f}", x);
  if (unit == "GiB") return fmt::format("{:.2f}", x);
  if (unit == "%" || (unit != "" && std::abs(x) < 1000)) return fmt::format("{:.1f}", x);
  return fmt::format("{:.0f}", x);
}

// "+11.2 %"; "new" for a figure the base does not have; "-" where neither has it.
std::string change_text(const VersusFigures::Row& r) {
  if (r.change_pct) return fmt::format("{:+.1f} %", *r.change_pct);
  return r.variant != 0 ? "new" : "-";
}

VersusFigures::Row row(const std::string& quantity, const std::string& unit, double base, double variant) {
  VersusFigures::Row r{quantity, unit, base, variant, {}};
  if (base != 0) r.change_pct = 100 * (variant / base - 1);
  return r;
}

// The change (%) of the first row whose quantity starts with `quantity` (0 when it has none).
double change_of(const VersusFigures& vs, const std::string& quantity) {
  for (const auto& r : vs.rows)
    if (r.quantity.rfind(quantity, 0) == 0) return r.change_pct.value_or(0.0);
  return 0;
}

}  // namespace

// The corpus's pair statistic for this comparison (ranking.hpp, versus_ordering), as one sentence.
std::string versus_ordering_sentence(const nlohmann::json& od) {
  if (!od["applies"].get<bool>()) return od["reason"].get<std::string>();
  const auto& b = od["bin"];
  const std::string range = pair_gap_range(b);
  return fmt::format("of the layout pairs trnsim predicted {} apart in the validation corpus's sweeps, it ordered {:.1f} % right "
                     "({} pairs; results/validation.md)",
                     range, b["ordered_right_pct"].get<double>(), b["pairs"].get<int>());
}

std::string pair_gap_range(const nlohmann::json& b) {
  return b.contains("gap_hi_pct") ? fmt::format("{:.0f}-{:.0f} %", b["gap_lo_pct"].get<double>(), b["gap_hi_pct"].get<double>())
                                  : fmt::format("{:.0f} % or more", b["gap_lo_pct"].get<double>());
}

std::string top_order_sentence(const nlohmann::json& t) {
  const auto& b = t["bin"];
  const double right = b["ordered_right_pct"].get<double>();
  return fmt::format("How far to trust the order: the runner-up on the same hardware, nodes and precision is predicted {:.1f} % "
                     "slower than the best, and {} listed row(s) of that kind lie within 5 % of it; of the layout pairs trnsim predicted "
                     "{} apart in the validation corpus's sweeps it ordered {:.1f} % right ({} pairs, results/validation.md){}.\n",
                     t["gap_pct"].get<double>(), t["rows_within_5pct"].get<int>(), pair_gap_range(b), right, b["pairs"].get<int>(),
                     right < 80 ? ": treat the close ones as one choice and time a few steps of each" : "");
}

void add_versus(StepReport& report, const StepReport& v, const std::string& edits, bool hardware_edited) {
  const StepReport& b = report;
  VersusFigures out;
  out.edits = edits;
  out.rows.push_back(row("step time", "s", b.step.step_time_s, v.step.step_time_s));
  for (const auto& [key, label] : breakdown_labels())
    if (b.step.part(key) != 0 || v.step.part(key) != 0)  // parts neither step has are left out
      out.rows.push_back(row(label, "s", b.step.part(key), v.step.part(key)));
  out.rows.push_back(row("throughput", "tokens/s", b.throughput.tokens_per_s, v.throughput.tokens_per_s));
  out.rows.push_back(row("throughput per core", "tokens/s", b.throughput.tokens_per_s_per_core, v.throughput.tokens_per_s_per_core));
  out.rows.push_back(row("MFU", "%", 100 * b.throughput.mfu, 100 * v.throughput.mfu));
  out.rows.push_back(row("memory per core", "GiB", b.memory.total, v.memory.total));
  out.rows.push_back(row("cores", "", static_cast<double>(b.workload.devices), static_cast<double>(v.workload.devices)));
  out.rows.push_back(row(fmt::format("cost ({})", to_string(v.selected_plan)), "$ per M tokens", b.selected_cost().usd_per_million_tokens,
                         v.selected_cost().usd_per_million_tokens));
  out.layout = layout_line(v.workload);
  out.hardware_edited = hardware_edited;
  out.notes = v.notes;
  out.report = std::make_shared<const StepReport>(v);
  report.versus = std::move(out);
}

void add_versus_refusal(StepReport& report, const std::string& edits, const std::string& reason) {
  VersusFigures out;
  out.edits = edits;
  out.refused = reason;
  report.versus = std::move(out);
}

nlohmann::json versus_json(const VersusFigures& vs) {
  if (vs.refused) return {{"edits", vs.edits}, {"refused", *vs.refused}};
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : vs.rows) {
    nlohmann::json j = {{"quantity", r.quantity}, {"unit", r.unit}, {"base", r.base}, {"variant", r.variant}};
    if (r.change_pct) j["change_pct"] = *r.change_pct;
    rows.push_back(j);
  }
  nlohmann::json out = {{"edits", vs.edits}, {"layout", vs.layout}, {"rows", rows}, {"hardware_edited", vs.hardware_edited}};
  if (vs.report->interval) out["interval_step_time_s"] = vs.report->interval->step_time_s;
  if (!vs.notes.empty()) out["notes"] = vs.notes;
  out["report"] = to_json(*vs.report);
  if (!vs.ordering.is_null()) out["ordering"] = vs.ordering;
  if (!vs.corpus_pairs.is_null()) out["corpus_pairs"] = vs.corpus_pairs;
  return out;
}

std::string versus_text(const VersusFigures& vs, const std::optional<IntervalFigures>& base_interval) {
  std::string o = fmt::format("\nversus {} (the same step with these edits, simulated)\n", vs.edits);
  if (vs.refused) return o + "  cannot run: " + *vs.refused + "\n";
  o += "  variant: " + vs.layout + "\n";
  o += fmt::format("  {:<34}{:>14}{:>14}{:>10}\n", "", "base", "variant", "change");
  for (const auto& r : vs.rows) {
    const std::string label = r.quantity + (r.unit.empty() ? "" : " (" + r.unit + ")");
    o += fmt::format("  {:<34}{:>14}{:>14}{:>10}\n", label, number(r.base, r.unit), number(r.variant, r.unit), change_text(r));
  }
  const double speed = change_of(vs, "throughput"), cost = change_of(vs, "cost");
  o += fmt::format("  verdict: the variant trains {:.1f} % {} tokens per second at {:.1f} % {} cost per token\n", std::abs(speed),
                   speed >= 0 ? "more" : "fewer", std::abs(cost), cost <= 0 ? "lower" : "higher");
  if (base_interval && vs.report->interval)
    o += fmt::format("  90% intervals of the step: base {:.4f} - {:.4f} s, variant {:.4f} - {:.4f} s\n", base_interval->step_time_s[0],
                     base_interval->step_time_s[1], vs.report->interval->step_time_s[0], vs.report->interval->step_time_s[1]);
  if (vs.ordering_sentence) o += "  how far to trust the order: " + *vs.ordering_sentence + "\n";
  if (vs.corpus_pairs_sentence) o += "  how far to trust the gain: " + *vs.corpus_pairs_sentence + "\n";
  for (const std::string& n : vs.notes) o += "  variant note: " + n + "\n";
  return o;
}

std::string versus_markdown(const VersusFigures& vs) {
  std::string o = fmt::format("\n### versus `{}`\n\n", vs.edits);
  if (vs.refused) return o + "Cannot run: " + *vs.refused + "\n";
  o += "Variant: " + vs.layout + "\n\n| quantity | base | variant | change |\n|---|---|---|---|\n";
  for (const auto& r : vs.rows)
    o += fmt::format("| {}{} | {} | {} | {} |\n", r.quantity, r.unit.empty() ? "" : " (" + r.unit + ")", number(r.base, r.unit),
                     number(r.variant, r.unit), change_text(r));
  if (vs.ordering_sentence) o += "\nHow far to trust the order: " + *vs.ordering_sentence + ".\n";
  if (vs.corpus_pairs_sentence) o += "\nHow far to trust the gain: " + *vs.corpus_pairs_sentence + ".\n";
  return o;
}

}  // namespace trnsim
