// paired_ratios.cpp — see paired_ratios.hpp.
#include "paired_ratios.hpp"

#include "intervals.hpp"
#include "ranking.hpp"
#include "validation_case.hpp"
#include "versus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <tuple>
#include <vector>

namespace trnsim {

int precision_rank(const std::string& precision) {
  static const char* const kOrder[] = {"fp32", "bf16-sr", "mixed-bf16", "fp8", "mxfp8", "nvfp4"};
  for (int i = 0; i < static_cast<int>(std::size(kOrder)); ++i)
    if (precision == kOrder[i]) return i;
  return static_cast<int>(std::size(kOrder));
}

namespace {

struct RatioRow {
  const nlohmann::json* j;
  // Log throughput per GPU, measured and predicted: an iteration time counts as the step's tokens
  // over it, a whole-cluster rate is divided by the GPUs (a scale pair compares GPUs of two sizes).
  double log_measured, log_predicted;
  bool per_gpu;  // false: an iteration time without the step's tokens (fine within one GPU count, not across)
};

// What a pair may differ in, and what its key holds fixed besides the dataset, model, release and
// quantity: the stated layout and the GPU count for a precision or a hardware change; for a scale
// change the stated replica (the layout without DP and the global batch, with the batch per
// replica: weak scaling), the hardware and the precision.
enum class Change { Precision, Hardware, Scale };
struct PairFactor {
  Change change;
  const char* name;  // as validation.json names it
};
const PairFactor kPairFactors[] = {{Change::Precision, "precision"}, {Change::Hardware, "hardware"}, {Change::Scale, "scale"}};

std::string pair_key(const PairFactor& f, const nlohmann::json& j) {
  std::string key = j.value("dataset", "") + "|" + j.value("model", "") + "|" + j.value("release", "") + "|" + j.value("quantity", "");
  if (f.change == Change::Scale) return key + "|" + j.value("stated_replica", "") + "|" + j.value("hw", "") + "|" + j.value("precision", "");
  key += "|" + j["stated_layout"].get<std::string>() + "|" + std::to_string(j.value("gpus", 0));
  return key + "|" + (f.change == Change::Precision ? j.value("hw", "") : j.value("precision", ""));
}

// The value a pair differs in, as text ("64" GPUs for scale), and whether `a` comes first.
std::string varied(const PairFactor& f, const nlohmann::json& j) {
  switch (f.change) {
    case Change::Precision: return j.value("precision", "");
    case Change::Hardware: return j.value("hw", "");
    case Change::Scale: break;
  }
  return std::to_string(j.value("gpus", 0));
}
bool pairs_from_first(const PairFactor& f, const std::string& a, const std::string& b) {
  if (f.change == Change::Precision) {
    const int ra = precision_rank(a), rb = precision_rank(b);
    return ra != rb ? ra < rb : a < b;
  }
  if (f.change == Change::Scale) return std::stoll(a) < std::stoll(b);
  return a < b;
}

double log_mean_exp(const std::vector<double>& logs) {
  double s = 0;
  for (double x : logs) s += x;
  return std::exp(s / static_cast<double>(logs.size()));
}

}  // namespace

nlohmann::json paired_ratios(const nlohmann::json& rows) {
  std::vector<RatioRow> usable;
  for (const auto& r : rows) {
    const std::string status = r.value("status", "");
    if (status != "predicted" && status != "calibration") continue;
    if (!r.contains("stated_layout") || !r.contains("predicted") || !is_performance_quantity(r.value("quantity", ""))) continue;
    const double m = r.value("measured", 0.0), p = r["predicted"].get<double>();
    const double gpus = static_cast<double>(r.value("gpus", 0)), tokens = r.value("tokens_per_step", 0.0);
    if (m <= 0 || p <= 0 || gpus <= 0) continue;
    const std::string q = r.value("quantity", "");
    double offset = 0, sign = 1;  // log per-GPU throughput = sign * log(value) + offset
    bool per_gpu = true;
    if (q == to_string(Metric::IterationTime)) {
      sign = -1, per_gpu = tokens > 0;
      if (per_gpu) offset = std::log(tokens / gpus);
    } else if (q == to_string(Metric::ClusterSeqPerS)) {
      offset = -std::log(gpus);
    }
    usable.push_back({&r, sign * std::log(m) + offset, sign * std::log(p) + offset, per_gpu});
  }
  nlohmann::json pairs = nlohmann::json::array();
  struct RatioAcc {
    std::vector<double> measured, predicted, errors;
    double scale_min = 0, scale_max = 0;  // scale pairs: the GPU-count ratios the group spans
  };
  // (factor, family, from, to, dataset): precision and hardware changes pool a family's datasets;
  // scale pairs are grouped per dataset (a stack's scaling is its own; from / to read fewer / more).
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, RatioAcc> groups;
  for (const PairFactor& f : kPairFactors) {
    const bool scale = f.change == Change::Scale;
    std::map<std::string, std::vector<const RatioRow*>> by_key;
    for (const auto& r : usable)
      if (!scale || (r.per_gpu && r.j->contains("stated_replica"))) by_key[pair_key(f, *r.j)].push_back(&r);
    // Pair signature -> its index in `pairs`: a repeat (the same runs under another name or page) is
    // recorded on the first as its "same_as" rows, not counted again.
    std::map<std::tuple<std::string, std::string, std::string, long long, long long>, size_t> seen;
    for (const auto& [key, members] : by_key)
      for (size_t i = 0; i < members.size(); ++i)
        for (size_t k = i + 1; k < members.size(); ++k) {
          const RatioRow *a = members[i], *b = members[k];
          std::string va = varied(f, *a->j), vb = varied(f, *b->j);
          if (va == vb) continue;
          if (!pairs_from_first(f, va, vb)) std::swap(a, b), std::swap(va, vb);
          const double lm = b->log_measured - a->log_measured, lp = b->log_predicted - a->log_predicted;
          // The same two runs under another model name ("(tokendrop)" twins) count once.
          const auto sig = std::make_tuple(a->j->value("dataset", ""), va, vb, std::llround(lm * 1e6), std::llround(lp * 1e6));
          const auto [at, fresh] = seen.emplace(sig, pairs.size());
          if (!fresh) {
            pairs[at->second]["same_as"].push_back({a->j->value("row", 0), b->j->value("row", 0)});
            continue;
          }
          const std::string fa = a->j->value("family", ""), fb = b->j->value("family", "");
          const std::string family = fa == fb ? fa : fa + " -> " + fb;
          const double err = std::expm1(lp - lm);
          const std::string dataset = a->j->value("dataset", "");
          pairs.push_back({{"factor", f.name},
                           {"family", family},
                           {"from", scale ? va + " devices" : va},
                           {"to", scale ? vb + " devices" : vb},
                           {"dataset", dataset},
                           {"model", a->j->value("model", "")},
                           {"release", a->j->value("release", "")},
                           {"rows", {a->j->value("row", 0), b->j->value("row", 0)}},
                           {"measured_ratio", std::exp(lm)},
                           {"predicted_ratio", std::exp(lp)},
                           {"ratio_error_pct", 100 * err}});
          RatioAcc& g = scale ? groups[{f.name, family, "fewer devices", "more devices", dataset}] : groups[{f.name, family, va, vb, ""}];
          g.measured.push_back(lm), g.predicted.push_back(lp), g.errors.push_back(err);
          if (scale) {
            const double ratio = std::stod(vb) / std::stod(va);
            g.scale_min = g.scale_min > 0 ? std::min(g.scale_min, ratio) : ratio;
            g.scale_max = std::max(g.scale_max, ratio);
          }
        }
  }
  nlohmann::json out_groups = nlohmann::json::array();
  for (const auto& [key, g] : groups) {
    double abs_sum = 0, sum = 0;
    for (double e : g.errors) abs_sum += std::abs(e), sum += e;
    const double n = static_cast<double>(g.errors.size());
    nlohmann::json j = {{"factor", std::get<0>(key)},
                        {"family", std::get<1>(key)},
                        {"from", std::get<2>(key)},
                        {"to", std::get<3>(key)},
                        {"pairs", g.errors.size()},
                        {"measured_ratio", log_mean_exp(g.measured)},
                        {"predicted_ratio", log_mean_exp(g.predicted)},
                        {"mean_abs_ratio_error_pct", 100 * abs_sum / n},
                        {"bias_pct", 100 * sum / n}};
    if (!std::get<4>(key).empty()) j["dataset"] = std::get<4>(key), j["scale_min"] = g.scale_min, j["scale_max"] = g.scale_max;
    out_groups.push_back(j);
  }
  // Report order: precision, hardware, scale; then family (and dataset), then the precisions' own order.
  std::stable_sort(out_groups.begin(), out_groups.end(), [](const nlohmann::json& x, const nlohmann::json& y) {
    const auto key = [](const nlohmann::json& g) {
      const std::string f = g["factor"];
      return std::make_tuple(f == "precision" ? 0 : f == "hardware" ? 1 : 2, g["family"].get<std::string>(), g.value("dataset", ""),
                             precision_rank(g["from"]), precision_rank(g["to"]));
    };
    return key(x) < key(y);
  });
  nlohmann::json families = nlohmann::json::object();
  for (const auto& r : rows)
    if (r.contains("hw") && r.contains("family")) families[r["hw"].get<std::string>()] = r["family"];
  return {{"pairs", pairs}, {"hw_families", families}, {"groups", out_groups}};
}

nlohmann::json versus_ratio_check(const nlohmann::json& report, const nlohmann::json& paired) {
  const auto& b = report["workload"];
  const auto& v = report["versus"]["report"]["workload"];
  const auto no = [](const std::string& why) { return nlohmann::json{{"applies", false}, {"reason", why}}; };
  if (report["versus"].value("hardware_edited", false))
    return no("the variant's hardware file is edited (--vs-hw): no measured chip to compare with");
  const auto differ = [&](const char* key, const nlohmann::json& dflt) { return b.value(key, dflt) != v.value(key, dflt); };
  const std::string only = " (the corpus's pairs change the precision, the hardware or the number of replicas alone)";
  for (const char* key : {"model", "seq_len", "tp", "pp", "micro_batch", "virtual_stages"})
    if (differ(key, nlohmann::json())) return no(fmt::format("base and variant differ in {}{}", key, only));
  for (const char* key : {"cp", "ep", "etp"})
    if (differ(key, 1)) return no(fmt::format("base and variant differ in {}{}", key, only));
  const auto replica_batch = [](const nlohmann::json& w) {
    return w["global_batch"].get<int64_t>() / std::max<int64_t>(1, w["dp"].get<int64_t>());
  };
  const bool precision = differ("precision", ""), hardware = differ("hw", ""), scale = differ("devices", 0);
  if (scale && replica_batch(b) != replica_batch(v))
    return no("base and variant differ in the batch per replica (the corpus's scale pairs keep it: weak scaling)");
  if (!scale && (differ("dp", 0) || differ("global_batch", 0)))
    return no(fmt::format("base and variant differ in the data-parallel degree or the global batch at one size{}", only));
  if (static_cast<int>(precision) + static_cast<int>(hardware) + static_cast<int>(scale) != 1)
    return no(precision || hardware || scale ? "base and variant differ in more than one of precision, hardware and size (the corpus's pairs change one)"
                                             : "base and variant have the same precision, hardware and size");
  const auto family_of = [&](const nlohmann::json& hw) {
    const auto& f = paired.contains("hw_families") ? paired["hw_families"] : nlohmann::json::object();
    return f.contains(hw.get<std::string>()) ? f[hw.get<std::string>()].get<std::string>() : std::string();
  };
  const double gain = report["versus"]["report"]["throughput"]["tokens_per_s_per_core"].get<double>() /
                      report["throughput"]["tokens_per_s_per_core"].get<double>();
  if (scale) {
    // Weak scaling: per-GPU throughput on more GPUs over fewer, per dataset of the family.
    const std::string family = family_of(b["hw"]);
    if (family.empty()) return no("the hardware has no measured rows in the corpus (its family is unknown)");
    const bool grows = v["devices"].get<int64_t>() > b["devices"].get<int64_t>();
    nlohmann::json groups = nlohmann::json::array();
    if (paired.contains("groups"))
      for (const auto& g : paired["groups"])
        if (g["factor"] == "scale" && g["family"] == family) groups.push_back(g);
    return {{"applies", true}, {"factor", "scale"}, {"family", family}, {"from", "fewer devices"}, {"to", "more devices"},
            {"variant_gain", gain}, {"reversed", !grows}, {"groups", groups}};
  }
  std::string from = precision ? b["precision"].get<std::string>() : b["hw"].get<std::string>();
  std::string to = precision ? v["precision"].get<std::string>() : v["hw"].get<std::string>();
  bool swapped = precision ? precision_rank(to) < precision_rank(from) || (precision_rank(to) == precision_rank(from) && to < from)
                           : to < from;
  std::string fa = family_of(b["hw"]), fb = family_of(v["hw"]);
  if (swapped) std::swap(from, to), std::swap(fa, fb);
  if (fa.empty() || fb.empty()) return no("the hardware has no measured rows in the corpus (its family is unknown)");
  const std::string family = fa == fb ? fa : fa + " -> " + fb;
  nlohmann::json out = {{"applies", true}, {"factor", precision ? "precision" : "hardware"}, {"family", family}, {"from", from},
                        {"to", to}, {"variant_gain", gain}, {"reversed", swapped}, {"group", nullptr}};
  if (paired.contains("groups"))
    for (const auto& g : paired["groups"])
      if (g["factor"] == out["factor"] && g["family"] == family && g["from"] == from && g["to"] == to) out["group"] = g;
  return out;
}

std::string ratio_check_sentence(const nlohmann::json& c) {
  if (!c.value("applies", false)) return c.value("reason", "");
  if (c["factor"] == "scale") {
    const std::string family = c["family"].get<std::string>();
    if (c["groups"].empty())
      return "no pair of measured " + family + " rows in the corpus on more and fewer devices: the scaling is the model's alone";
    std::string o = "weak scaling measured against predicted in the corpus (" + family +
                    ", per-device throughput of one replica on more devices over fewer" +
                    (c.value("reversed", false) ? "; the variant has fewer, so its change is the inverse" : "") + "):";
    int listed = 0;
    for (const auto& g : c["groups"]) {
      const double lo = g["scale_min"].get<double>(), hi = g["scale_max"].get<double>();
      o += fmt::format("{} {} {:.3f}x against {:.3f}x ({} pair(s), {} the devices)", listed++ ? ";" : "", g["dataset"].get<std::string>(),
                       g["measured_ratio"].get<double>(), g["predicted_ratio"].get<double>(), g["pairs"].get<int>(),
                       lo == hi ? fmt::format("{:g}x", lo) : fmt::format("{:g}-{:g}x", lo, hi));
    }
    return o + " (results/validation.md)";
  }
  const std::string change = fmt::format("{} {} -> {} ({})", c["factor"].get<std::string>(), c["from"].get<std::string>(),
                                         c["to"].get<std::string>(), c["family"].get<std::string>());
  if (c["group"].is_null()) return "no pair of measured rows in the corpus makes this change (" + change + "): the gain is the model's alone";
  const auto& g = c["group"];
  return fmt::format("over {} pair(s) of measured rows that made {} change ({}), the measured gain was {:.2f}x where trnsim "
                     "predicted {:.2f}x (ratio error {:+.1f} % on average, {:.1f} % mean abs; results/validation.md)",
                     g["pairs"].get<int>(), c.value("reversed", false) ? "the reverse" : "this", change, g["measured_ratio"].get<double>(),
                     g["predicted_ratio"].get<double>(), g["bias_pct"].get<double>(), g["mean_abs_ratio_error_pct"].get<double>());
}

std::string row_pairs_text(const nlohmann::json& paired, const std::string& dataset, int row) {
  std::string o;
  if (paired.is_null() || !paired.contains("pairs")) return o;
  for (const auto& p : paired["pairs"]) {
    if (p.value("dataset", "") != dataset) continue;
    // The row as one of the pair's two, or of a repeat recorded under it ("same_as").
    nlohmann::json rows, all = nlohmann::json::array({p["rows"]});
    if (p.contains("same_as"))
      for (const auto& r : p["same_as"]) all.push_back(r);
    for (const auto& r : all)
      if (r[0] == row || r[1] == row) rows = r;
    if (rows.is_null()) continue;
    const bool is_from = rows[0] == row;
    o += fmt::format("  paired: {} {} -> {} ({}{}) with row {}: measured {:.2f}x, predicted {:.2f}x, ratio error {:+.1f} %\n",
                     p["factor"].get<std::string>(), p["from"].get<std::string>(), p["to"].get<std::string>(),
                     p["family"].get<std::string>(), p.value("release", "").empty() ? "" : ", " + p["release"].get<std::string>(),
                     (is_from ? rows[1] : rows[0]).get<int>(), p["measured_ratio"].get<double>(), p["predicted_ratio"].get<double>(),
                     p["ratio_error_pct"].get<double>());
  }
  return o;
}

void add_versus_checks(StepReport& report, const ValidationResults& validation) {
  if (!report.versus || !report.versus->report) return;  // refused variants have no report
  const nlohmann::json j = to_json(report);  // the analyses read the documented report
  VersusFigures& vs = *report.versus;
  if (!validation.ranking.is_null()) {
    vs.ordering = versus_ordering(j, validation.ranking);
    vs.ordering_sentence = versus_ordering_sentence(vs.ordering);
  }
  if (validation.paired.is_null()) return;
  nlohmann::json check = versus_ratio_check(j, validation.paired);
  if (!check.value("applies", false)) return;
  check["sentence"] = ratio_check_sentence(check);
  vs.corpus_pairs_sentence = check["sentence"].get<std::string>();
  vs.corpus_pairs = check;
}

}  // namespace trnsim
