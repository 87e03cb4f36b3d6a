// versus.cpp — the base step and a what-if of it, figure by figure (see versus.hpp).
#include "versus.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "report.hpp"

namespace trnsim {

namespace {

// "TP 4 PP 1 DP 1024 EP 8 | mb 1 x 2 = 1024 x 4096 tokens | fp8, selective | 128 x trn1.32xlarge"
std::string layout_line(const nlohmann::json& w) {
  std::string extra;
  for (const auto& [key, name] : {std::pair<const char*, const char*>{"cp", "CP"}, {"ep", "EP"}, {"etp", "ETP"}})
    if (w.contains(key)) extra += fmt::format(" {} {}", name, w[key].get<int64_t>());
  if (w["virtual_stages"].get<int64_t>() > 1) extra += fmt::format(" VP {}", w["virtual_stages"].get<int64_t>());
  return fmt::format("TP {} PP {} DP {}{} SP {} ZeRO-{} | micro-batch {} x {} = global {} x {} tokens | {}, {} checkpointing | "
                     "{} x {} ({} cores)",
                     w["tp"].get<int64_t>(), w["pp"].get<int64_t>(), w["dp"].get<int64_t>(), extra,
                     w["sequence_parallel"].get<bool>() ? "on" : "off", w["zero"].get<int>(), w["micro_batch"].get<int64_t>(),
                     w["grad_accum"].get<int64_t>(), w["global_batch"].get<int64_t>(), w["seq_len"].get<int64_t>(),
                     w["precision"].get<std::string>(), w["checkpointing"].get<std::string>(), w["nodes"].get<int64_t>(),
                     w["hw"].get<std::string>(), w["devices"].get<int64_t>());
}

double usd_per_million(const nlohmann::json& r) {
  return r["cost"][r["cost"]["selected_plan"].get<std::string>()]["usd_per_million_tokens"].get<double>();
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
std::string change_text(const nlohmann::json& r) {
  if (r.contains("change_pct")) return fmt::format("{:+.1f} %", r["change_pct"].get<double>());
  return r["variant"].get<double>() != 0 ? "new" : "-";
}

nlohmann::json row(const std::string& quantity, const std::string& unit, double base, double variant) {
  nlohmann::json j = {{"quantity", quantity}, {"unit", unit}, {"base", base}, {"variant", variant}};
  if (base != 0) j["change_pct"] = 100 * (variant / base - 1);
  return j;
}

// The change (%) of the first row whose quantity starts with `quantity` (0 when it has none).
double change_of(const nlohmann::json& vs, const std::string& quantity) {
  for (const auto& r : vs["rows"])
    if (r["quantity"].get<std::string>().rfind(quantity, 0) == 0) return r.value("change_pct", 0.0);
  return 0;
}

// The corpus's pair statistic for this comparison (ranking.hpp, versus_ordering), as one sentence.
std::string ordering_sentence(const nlohmann::json& od) {
  if (!od["applies"].get<bool>()) return od["reason"].get<std::string>();
  const auto& b = od["bin"];
  const std::string range = pair_gap_range(b);
  return fmt::format("of the layout pairs trnsim predicted {} apart in the validation corpus's sweeps, it ordered {:.1f} % right "
                     "({} pairs; results/validation.md)",
                     range, b["ordered_right_pct"].get<double>(), b["pairs"].get<int>());
}

}  // namespace

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

void add_versus(nlohmann::json& report, const nlohmann::json& v, const std::string& edits, bool hardware_edited) {
  const nlohmann::json& b = report;
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back(row("step time", "s", b["step"]["step_time_s"].get<double>(), v["step"]["step_time_s"].get<double>()));
  const auto& bb = b["step"]["breakdown_s"];
  const auto& vb = v["step"]["breakdown_s"];
  for (const auto& [key, label] : breakdown_labels())
    if (bb.value(key, 0.0) != 0 || vb.value(key, 0.0) != 0)  // parts neither step has are left out
      rows.push_back(row(label, "s", bb.value(key, 0.0), vb.value(key, 0.0)));
  rows.push_back(row("throughput", "tokens/s", b["throughput"]["tokens_per_s"].get<double>(), v["throughput"]["tokens_per_s"].get<double>()));
  rows.push_back(row("throughput per core", "tokens/s", b["throughput"]["tokens_per_s_per_core"].get<double>(),
                     v["throughput"]["tokens_per_s_per_core"].get<double>()));
  rows.push_back(row("MFU", "%", 100 * b["throughput"]["mfu"].get<double>(), 100 * v["throughput"]["mfu"].get<double>()));
  rows.push_back(row("memory per core", "GiB", b["memory_per_core_gib"]["total"].get<double>(),
                     v["memory_per_core_gib"]["total"].get<double>()));
  rows.push_back(row("cores", "", b["workload"]["devices"].get<double>(), v["workload"]["devices"].get<double>()));
  rows.push_back(row(fmt::format("cost ({})", v["cost"]["selected_plan"].get<std::string>()), "$ per M tokens",
                     usd_per_million(b), usd_per_million(v)));
  nlohmann::json out = {{"edits", edits}, {"layout", layout_line(v["workload"])}, {"rows", rows}, {"hardware_edited", hardware_edited}};
  if (v.contains("interval")) out["interval_step_time_s"] = v["interval"]["step_time_s"];
  if (v.contains("notes")) out["notes"] = v["notes"];
  out["report"] = v;
  report["versus"] = out;
}

void add_versus_refusal(nlohmann::json& report, const std::string& edits, const std::string& reason) {
  report["versus"] = {{"edits", edits}, {"refused", reason}};
}

std::string versus_text(const nlohmann::json& j) {
  if (!j.contains("versus")) return "";
  const auto& vs = j["versus"];
  std::string o = fmt::format("\nversus {} (the same step with these edits, simulated)\n", vs["edits"].get<std::string>());
  if (vs.contains("refused")) return o + "  cannot run: " + vs["refused"].get<std::string>() + "\n";
  o += "  variant: " + vs["layout"].get<std::string>() + "\n";
  o += fmt::format("  {:<34}{:>14}{:>14}{:>10}\n", "", "base", "variant", "change");
  for (const auto& r : vs["rows"]) {
    const std::string unit = r["unit"].get<std::string>();
    const std::string label = r["quantity"].get<std::string>() + (unit.empty() ? "" : " (" + unit + ")");
    const double base = r["base"].get<double>(), var = r["variant"].get<double>();
    o += fmt::format("  {:<34}{:>14}{:>14}{:>10}\n", label, number(base, unit), number(var, unit), change_text(r));
  }
  const double speed = change_of(vs, "throughput"), cost = change_of(vs, "cost");
  o += fmt::format("  verdict: the variant trains {:.1f} % {} tokens per second at {:.1f} % {} cost per token\n", std::abs(speed),
                   speed >= 0 ? "more" : "fewer", std::abs(cost), cost <= 0 ? "lower" : "higher");
  if (j.contains("interval") && vs.contains("interval_step_time_s"))
    o += fmt::format("  90% intervals of the step: base {:.4f} - {:.4f} s, variant {:.4f} - {:.4f} s\n",
                     j["interval"]["step_time_s"][0].get<double>(), j["interval"]["step_time_s"][1].get<double>(),
                     vs["interval_step_time_s"][0].get<double>(), vs["interval_step_time_s"][1].get<double>());
  if (vs.contains("ordering")) o += "  how far to trust the order: " + ordering_sentence(vs["ordering"]) + "\n";
  if (vs.contains("corpus_pairs")) o += "  how far to trust the gain: " + vs["corpus_pairs"]["sentence"].get<std::string>() + "\n";
  if (vs.contains("notes"))
    for (const auto& n : vs["notes"]) o += "  variant note: " + n.get<std::string>() + "\n";
  return o;
}

std::string versus_markdown(const nlohmann::json& j) {
  if (!j.contains("versus")) return "";
  const auto& vs = j["versus"];
  std::string o = fmt::format("\n### versus `{}`\n\n", vs["edits"].get<std::string>());
  if (vs.contains("refused")) return o + "Cannot run: " + vs["refused"].get<std::string>() + "\n";
  o += "Variant: " + vs["layout"].get<std::string>() + "\n\n| quantity | base | variant | change |\n|---|---|---|---|\n";
  for (const auto& r : vs["rows"]) {
    const std::string unit = r["unit"].get<std::string>();
    o += fmt::format("| {}{} | {} | {} | {} |\n", r["quantity"].get<std::string>(), unit.empty() ? "" : " (" + unit + ")",
                     number(r["base"].get<double>(), unit), number(r["variant"].get<double>(), unit), change_text(r));
  }
  if (vs.contains("ordering")) o += "\nHow far to trust the order: " + ordering_sentence(vs["ordering"]) + ".\n";
  if (vs.contains("corpus_pairs")) o += "\nHow far to trust the gain: " + vs["corpus_pairs"]["sentence"].get<std::string>() + ".\n";
  return o;
}

}  // namespace trnsim
