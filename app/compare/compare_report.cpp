// compare_report.cpp — renders `trnsim compare` results: the Markdown table of results/cost-2026.md
// and a plain-SVG bar chart (see compare.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "compare.hpp"
#include "sensitivity.hpp"

namespace trnsim {
namespace {

std::string money(const nlohmann::json& v) {
  if (!v.is_number()) return "–";
  const double x = v.get<double>();
  if (x >= 1e6) return fmt::format("${:.2f} M", x / 1e6);
  if (x >= 1e3) return fmt::format("${:.0f} k", x / 1e3);
  return fmt::format("${:.3f}", x);
}

std::string range(const nlohmann::json& v, const char* f) {
  if (!v.is_array() || v.size() != 2) return "";
  return fmt::format(" ({}–{})", fmt::format(fmt::runtime(f), v[0].get<double>()), fmt::format(fmt::runtime(f), v[1].get<double>()));
}

// "studies/x.json" from an absolute path inside the data directory; the path itself otherwise.
std::string from_dir(const std::string& path, const std::string& dir) {
  const auto at = path.rfind(dir);
  return at == std::string::npos ? path : path.substr(at);
}

std::string precision_label(const nlohmann::json& r) { return r.value("precision", r["precision_axis"].get<std::string>()); }

// `trnsim compare --sensitivity`: what bounds each best layout of model `m`, one row per hardware
// and precision, one column per resource (elasticity of the step to it; "" when not computed).
std::string sensitivity_table(const nlohmann::json& doc, const std::string& m) {
  double factor = 0;
  for (const auto& r : doc["rows"])
    if (r["model"] == m && r.contains("sensitivity")) factor = r["sensitivity"]["factor"].get<double>();
  if (factor == 0) return "";
  std::vector<std::string> resources;  // in the order `trnsim run --sensitivity` defines them
  for (const HwResource& x : hw_resources()) resources.push_back(x.name);
  std::string o = fmt::format("What bounds each best layout: elasticity of its step to each hardware resource made {:.0f} % better "
                              "(ln(step / step with it) / ln({:g}); the largest binds most)\n\n| hardware | precision |",
                              100 * (factor - 1), factor);
  for (const auto& x : resources) o += " " + x + " |";
  o += "\n|---|---|";
  for (size_t i = 0; i < resources.size(); ++i) o += "---|";
  o += "\n";
  for (const auto& r : doc["rows"]) {
    if (r["model"] != m || !r.contains("sensitivity")) continue;
    o += fmt::format("| {} | {} |", compare_row_label(r), precision_label(r));
    for (const auto& name : resources) {
      std::string cell = " – |";
      for (const auto& x : r["sensitivity"]["resources"])
        if (x["resource"] == name) cell = fmt::format(" {:.2f} |", x["elasticity"].get<double>());
      o += cell;
    }
    o += "\n";
  }
  return o + "\n";
}

// How trnsim's weak scaling held on the corpus's measured pairs for the study chips' families
// (compare.cpp, weak_scaling_checks): the rows below are that scaling at these chip counts.
std::string weak_scaling_paragraph(const nlohmann::json& checks) {
  std::string o =
      "**Scaling, as measured.** These rows are trnsim's scaling at these chip counts. On the validation corpus's pairs "
      "of one replica on more and fewer devices (results/validation.md, \"Comparisons\"; per-device throughput, more "
      "over fewer, measured against predicted):";
  int listed = 0;
  for (auto it = checks["families"].begin(); it != checks["families"].end(); ++it) {
    o += fmt::format("{} {}:", listed++ ? ";" : "", it.key());
    if (it.value().empty()) {
      o += " no pair measured";
      continue;
    }
    int shown = 0;
    for (const auto& g : it.value()) {
      const double lo = g["scale_min"].get<double>(), hi = g["scale_max"].get<double>();
      o += fmt::format("{} {} {:.3f}x against {:.3f}x ({} pair(s), {} the devices)", shown++ ? "," : "", g["dataset"].get<std::string>(),
                       g["measured_ratio"].get<double>(), g["predicted_ratio"].get<double>(), g["pairs"].get<int>(),
                       lo == hi ? fmt::format("{:g}x", lo) : fmt::format("{:g}-{:g}x", lo, hi));
    }
  }
  if (!checks["extrapolated"].empty()) {
    std::string names;
    for (const auto& h : checks["extrapolated"]) names += (names.empty() ? "" : ", ") + h.get<std::string>();
    o += fmt::format("; {} extrapolated (no measured row on the chip)", names);
  }
  return o + ". Where the measured ratio is below the predicted one, trnsim was optimistic about scaling on those pairs; rows here "
             "on more devices than any pair measured extrapolate it.\n\n";
}

}  // namespace

std::string compare_markdown(const nlohmann::json& doc) {
  const auto& st = doc["study"];
  const auto& pr = doc["prices"];
  const auto plans = pr["plans"].get<std::vector<std::string>>();
  std::string o;
  o += fmt::format("# {}: training cost and throughput by hardware\n\n", st["name"].get<std::string>());
  o += st["description"].get<std::string>() + "\n\n";
  o += fmt::format(
      "Regenerate: `trnsim compare {}` (CI checks the numbers against this file). Each row is the fastest "
      "layout the exact search finds for that hardware at that chip count (sequence {} tokens; axes `{}` plus the "
      "hardware's own, and the recompute policies its stack has unless the axes name them), at BF16 and at the chip's fastest low-precision format. Prices: `{}`, read {} ({}); "
      "replace the file with your own quote (`--prices`). Intervals are 90% prediction intervals from the validation "
      "corpus's leave-one-dataset-out errors (`trnsim validation`): the datasets' offsets plus their spreads, from the "
      "chip's own family where it was measured on three or more datasets (the GPUs), else from every family. On an **extrapolated** chip (no public training measurement: trn2, trn3, H200) "
      "nothing checks trnsim, and the interval cannot say how far off its unmeasured parameters are. MFU is given against the BF16 peak (comparable across rows; a low-precision run can exceed 100 %) and against the dense peak of the format the linear layers run in.\n\n",
      from_dir(st["file"], "studies/"), st["seq_len"].get<int64_t>(), st["axes"].get<std::string>(), from_dir(pr["file"], "prices/"),
      pr["date"].get<std::string>(), pr["source"].get<std::string>());
  if (doc.contains("weak_scaling_checks")) o += weak_scaling_paragraph(doc["weak_scaling_checks"]);
  std::vector<std::string> models;
  for (const auto& r : doc["rows"])
    if (std::find(models.begin(), models.end(), r["model"].get<std::string>()) == models.end()) models.push_back(r["model"]);
  for (const auto& m : models) {
    o += fmt::format("## {}\n\n", m);
    o += "| hardware | chips | precision | layout | step (s) | tokens/s (90% interval) | MFU (BF16 peak) | MFU (format peak) |";
    for (const auto& p : plans) o += fmt::format(" $/M tokens {} |", p);
    for (const auto& t : st["train_tokens"]) o += fmt::format(" {:g} T tokens: days, $ {} |", t.get<double>() / 1e12, plans.front());
    o += "\n|---|---|---|---|---|---|---|---|";
    for (size_t i = 0; i < plans.size() + st["train_tokens"].size(); ++i) o += "---|";
    o += "\n";
    for (const auto& r : doc["rows"]) {
      if (r["model"] != m) continue;
      if (r["status"] != "ok") {
        o += fmt::format("| {} | {} | {} | {} at {} chips |\n", compare_row_label(r), r["chips"].get<int64_t>(),
                         r["precision_axis"].get<std::string>(), r["status"].get<std::string>(), r["chips"].get<int64_t>());
        continue;
      }
      const bool ex = r["interval"]["extrapolated"].get<bool>();
      const std::string stack = r.contains("stack") ? r["stack"].get<std::string>() : std::string();
      o += fmt::format("| {}{}{}{} | {} | {} | TP{} PP{} DP{}{} mb{} ZeRO-{} {} | {:.2f} | {:.0f}{} | {:.1f} % | {:.1f} % |", compare_row_label(r),
                       stack.empty() ? std::string() : " (" + stack + ")", ex ? " (extrapolated)" : "",
                       r.contains("hw_set") ? fmt::format(" (hypothetical: {} with {})", r["hw"].get<std::string>(), r["hw_set"].get<std::string>()) : "", r["chips"].get<int64_t>(), precision_label(r), r["tp"].get<int64_t>(),
                       r["pp"].get<int64_t>(), r["dp"].get<int64_t>(),
                       r["ep"].get<int64_t>() > 1 ? fmt::format(" EP{}", r["ep"].get<int64_t>()) : std::string(),
                       r["micro_batch"].get<int64_t>(), r["zero"].get<int>(), r["checkpointing"].get<std::string>(),
                       r["step_time_s"].get<double>(), r["tokens_per_s"].get<double>(), range(r["tokens_per_s_interval"], "{:.0f}"),
                       100 * r["mfu"].get<double>(), 100 * r["mfu_of_format_peak"].get<double>());
      for (const auto& p : plans) {
        const auto& v = r["usd_per_million_tokens"][p];
        o += v.is_number() ? fmt::format(" {:.3f}{} |", v.get<double>(), range(r["usd_per_million_tokens_interval"][p], "{:.3f}"))
                           : std::string(" – |");
      }
      for (const auto& t : r["train"])
        o += fmt::format(" {:.0f}{}, {} |", t["days"].get<double>(), range(t["days_interval"], "{:.0f}"), money(t["usd"][plans.front()]));
      o += "\n";
    }
    o += "\n";
    o += sensitivity_table(doc, m);
  }
  if (!doc["not_expressible"].empty()) {
    o += "## Not in the table\n\n";
    for (const auto& x : doc["not_expressible"])
      o += fmt::format("- **{}**: {}\n", x["model"].get<std::string>(), x["reason"].get<std::string>());
    o += "\n";
  }
  if (!doc["pairs"].empty()) {
    o += fmt::format("## Trainium vs GPU: $ per million tokens, {} prices (each side's cheaper precision)\n\n", plans.front());
    o += "| model | Trainium | GPU | Trainium $/M tokens | GPU $/M tokens | Trainium saving |\n|---|---|---|---|---|---|\n";
    for (const auto& p : doc["pairs"])
      o += fmt::format("| {} | {} ({}) | {} ({}) | {:.3f} | {:.3f} | {:+.0f} % |\n", p["model"].get<std::string>(),
                       p["trainium"].get<std::string>(), p["trainium_precision"].get<std::string>(), p["gpu"].get<std::string>(),
                       p["gpu_precision"].get<std::string>(), p["trainium_usd_per_million_tokens"].get<double>(),
                       p["gpu_usd_per_million_tokens"].get<double>(), p["saving_pct"].get<double>());
    o += "\n";
  }
  o += "## Price sources\n\n";
  for (auto it = pr["instances"].begin(); it != pr["instances"].end(); ++it)
    o += fmt::format("- `{}`: {}\n", it.key(), it.value().get<std::string>());
  return o;
}

std::string compare_svg(const nlohmann::json& doc) {
  const std::string plan = doc["prices"]["plans"][0];
  std::vector<std::string> models, hws;
  for (const auto& r : doc["rows"]) {
    if (std::find(models.begin(), models.end(), r["model"].get<std::string>()) == models.end()) models.push_back(r["model"]);
    if (std::find(hws.begin(), hws.end(), compare_row_label(r)) == hws.end()) hws.push_back(compare_row_label(r));
  }
  const double panel_h = 270, left = 70, bar_w = 14, group_w = 2 * bar_w + 14, top = 40;
  const double width = std::max(820.0, left + group_w * static_cast<double>(hws.size()) + 170);
  const double height = top + panel_h * static_cast<double>(models.size()) + 20;
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" font-family=\"sans-serif\" font-size=\"10\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{:.0f}\" y=\"18\" font-size=\"13\">$ per million tokens ({} prices, {}), best layout per hardware; "
      "whiskers: 90% prediction interval</text>\n",
      width, height, left, plan, doc["prices"]["date"].get<std::string>());
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const double y0 = top + panel_h * static_cast<double>(mi), plot_h = panel_h - 120;
    double ymax = 0;
    for (const auto& r : doc["rows"])
      if (r["model"] == models[mi] && r["status"] == "ok" && r["usd_per_million_tokens_interval"].contains(plan))
        ymax = std::max(ymax, r["usd_per_million_tokens_interval"][plan][1].get<double>());
    if (ymax <= 0) continue;
    auto y_of = [&](double v) { return y0 + 20 + plot_h * (1 - v / ymax); };
    o += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"12\" font-weight=\"bold\">{}</text>\n", left, y0 + 12, models[mi]);
    o += fmt::format("<line x1=\"{0:.0f}\" y1=\"{1:.1f}\" x2=\"{0:.0f}\" y2=\"{2:.1f}\" stroke=\"black\"/>\n", left - 4, y_of(ymax), y_of(0));
    for (int k = 0; k <= 4; ++k) {
      const double v = ymax * k / 4;
      o += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.3g}</text>\n", left - 8, y_of(v) + 3, v);
    }
    for (size_t hi = 0; hi < hws.size(); ++hi) {
      const double x0 = left + group_w * static_cast<double>(hi);
      for (const auto& r : doc["rows"]) {
        if (r["model"] != models[mi] || compare_row_label(r) != hws[hi] || r["status"] != "ok" || !r["usd_per_million_tokens"][plan].is_number())
          continue;
        const bool bf16 = r["precision_axis"] == "bf16";
        const double x = x0 + (bf16 ? 0 : bar_w + 2);
        const double v = r["usd_per_million_tokens"][plan], lo = r["usd_per_million_tokens_interval"][plan][0],
                     hi_v = r["usd_per_million_tokens_interval"][plan][1];
        o += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", x, y_of(v), bar_w,
                         y_of(0) - y_of(v), bf16 ? "#4878a8" : "#e08a3c");
        o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"black\"/>\n", x + bar_w / 2,
                         y_of(lo), y_of(hi_v));
      }
      o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" transform=\"rotate(30 {:.1f} {:.1f})\">{}</text>\n", x0, y_of(0) + 12, x0,
                         y_of(0) + 12, hws[hi]);
    }
  }
  const double lx = width - 150;
  o += fmt::format("<rect x=\"{:.0f}\" y=\"30\" width=\"10\" height=\"10\" fill=\"#4878a8\"/><text x=\"{:.0f}\" y=\"39\">BF16</text>\n", lx, lx + 14);
  o += fmt::format("<rect x=\"{:.0f}\" y=\"46\" width=\"10\" height=\"10\" fill=\"#e08a3c\"/><text x=\"{:.0f}\" y=\"55\">fastest low precision</text>\n", lx, lx + 14);
  o += "</svg>\n";
  return o;
}

}  // namespace trnsim
