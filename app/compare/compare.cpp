// compare.cpp — see compare.hpp.
#include "compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "intervals.hpp"
#include "prices.hpp"
#include "scenario.hpp"
#include "search.hpp"
#include "sensitivity.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "trnsim/fork_map.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {

struct StudyHw {
  std::string hw, axes;
  std::string stack;  // training-stack profile the hardware runs (stacks/<stack>.json; empty: none)
  // A hypothetical variant: what-if edits of the hw file (json_edits.hpp) and the name its rows
  // carry (the instance's name when there are no edits; required with them, unique in the study).
  std::string hw_set, label;
};

// The entry's hardware: its hw file, edited when the study says so.
HwSpec study_hw(const StudyHw& h) { return h.hw_set.empty() ? load_hw_spec(hw_path(h.hw)) : load_hw_with_edits(h.hw, h.hw_set); }

struct StudyModel {
  std::string model;
  int64_t chips = 0, global_batch = 0;
};
struct Study {
  std::string file, name, description, prices, axes;
  int64_t seq_len = 0;
  std::vector<double> train_tokens;
  std::vector<StudyHw> hardware;
  std::vector<StudyModel> models;
  std::vector<std::pair<std::string, std::string>> not_expressible;  // model, reason
  std::vector<std::pair<std::string, std::string>> pairs;            // Trainium hw, GPU hw
};

// A path in a study is relative to the data directory (where hw/ and models/ live).
std::string data_path(const std::string& p) { return p.empty() || p[0] == '/' ? p : data_dir() + "/" + p; }
// The reverse for the result document: no checkout path in a committed file.
std::string shown_path(const std::string& p) {
  const std::string d = data_dir() + "/";
  return p.rfind(d, 0) == 0 ? p.substr(d.size()) : p;
}

Study load_study(const std::string& file) {
  const nlohmann::json j = load_json_file(file);
  JsonReader r(j, file);
  r.ignore("$schema");
  Study s;
  s.file = file;
  s.name = r.string("name");
  if (!is_plain_name(s.name))
    r.fail("name", fmt::format("\"{}\" is not a name: the study's outputs are results/<name>.md / .json / .svg; use letters, "
                               "digits, '.', '_' and '-' (no directory, not starting with '.')", s.name));
  s.description = r.string("description");
  s.prices = r.string("prices");
  s.axes = r.string_or("axes", "");
  // A bad axis is the study's error now, not a worker's.
  const auto check_axes = [](JsonReader& at, const std::string& axes) {
    try {
      parse_axes(axes);
    } catch (const UsageError& e) {
      std::string why = e.what();
      const std::string lead = "trnsim search: --axes ";
      if (why.rfind(lead, 0) == 0) why = why.substr(lead.size());
      at.fail("axes", why);
    }
  };
  check_axes(r, s.axes);
  s.seq_len = r.integer("seq_len", 1, 1 << 20);
  for (int64_t t : r.integers("train_tokens_billions", 1, 1000000)) s.train_tokens.push_back(static_cast<double>(t) * 1e9);
  for (auto& h : r.children("hardware")) {
    StudyHw x{h.string("hw"), h.string_or("axes", ""), h.string_or("stack", ""), h.string_or("hw_set", ""), ""};
    x.label = h.string_or("label", x.hw_set.empty() ? x.hw : "");
    check_axes(h, x.axes);
    if (!x.stack.empty()) {
      try {
        (void)stack_path(x.stack);
      } catch (const ConfigError& e) {
        h.fail("stack", e.what());
      }
    }
    if (!is_plain_name(x.hw)) h.fail("hw", fmt::format("\"{}\" is not an instance name; use a name from `trnsim list`", x.hw));
    if (!std::filesystem::exists(hw_path(x.hw))) h.fail("hw", fmt::format("unknown hw \"{}\"; see `trnsim list`", x.hw));
    if (!x.hw_set.empty()) {
      if (x.label.empty())
        h.fail("label", "a hardware entry with hw_set is a hypothetical chip: name it, e.g. \"label\": \"" + x.hw + ", 2x HBM\"");
      try {
        (void)study_hw(x);  // a bad edit is the study's error now, not a worker's
      } catch (const std::exception& e) {
        h.fail("hw_set", e.what());
      }
    }
    for (const auto& other : s.hardware)
      if (other.label == x.label)
        h.fail(x.hw_set.empty() ? "hw" : "label",
               fmt::format("\"{}\" is listed twice; give each hardware entry its own name (\"label\")", x.label));
    h.finish();
    s.hardware.push_back(x);
  }
  for (auto& m : r.children("models")) {
    StudyModel x{m.string("model"), m.integer("chips", 1, 1 << 20), m.integer("global_batch", 1, 1 << 24)};
    if (!is_plain_name(x.model)) m.fail("model", fmt::format("\"{}\" is not a model name; use a name from `trnsim list`", x.model));
    for (const StudyHw& h : s.hardware) {  // whole nodes of every hardware, not a silent round-up
      const int64_t per_node = study_hw(h).chips_per_node;
      if (x.chips % per_node != 0)
        m.fail("chips", fmt::format("{} chips is not a whole number of {} nodes ({} chips each); use {} or {}", x.chips, h.label,
                                    per_node, x.chips / per_node * per_node, (x.chips / per_node + 1) * per_node));
    }
    if (!std::filesystem::exists(model_path(x.model)))
      m.fail("model", fmt::format("unknown model \"{}\"; see `trnsim list`", x.model));
    m.finish();
    s.models.push_back(x);
  }
  if (r.has("not_expressible"))
    for (auto& m : r.children("not_expressible")) {
      s.not_expressible.push_back({m.string("model"), m.string("reason")});
      m.finish();
    }
  if (r.has("pairs"))
    for (auto& p : r.children("pairs")) {
      s.pairs.push_back({p.string("trainium"), p.string("gpu")});
      for (const auto& [key, named] : {std::pair<const char*, const std::string&>{"trainium", s.pairs.back().first}, {"gpu", s.pairs.back().second}}) {
        const std::string& name = named;  // a structured binding cannot be captured before C++20
        if (std::none_of(s.hardware.begin(), s.hardware.end(), [&](const StudyHw& h) { return h.label == name; }))
          p.fail(key, fmt::format("\"{}\" is not one of the study's hardware entries; name one by its \"hw\" (its \"label\" "
                                  "for a hypothetical chip)", name));
      }
      p.finish();
    }
  r.finish();
  if (s.hardware.empty() || s.models.empty()) r.fail("models", "a study needs at least one model and one hardware");
  return s;
}

// The chip's fastest format below BF16's cost ("" if none is faster than BF16, e.g. trn1's cFP8).
std::string best_low_precision(const HwSpec& hw) {
  std::string best;
  double rate = hw.tensor.peak_tflops[static_cast<int>(DType::BF16)];
  for (DType d : kLowPrecisionDTypes)
    if (hw.tensor.supports(d) && hw.tensor.peak_tflops[static_cast<int>(d)] > rate * (1 + 1e-9)) {
      rate = hw.tensor.peak_tflops[static_cast<int>(d)];
      best = to_string(d);
    }
  return best;
}

struct Cell {
  size_t model = 0, hw = 0;
  std::string precision;  // search axis value: bf16, fp8, mxfp8, nvfp4
};

AxisLimits cell_axes(const Study& s, const StudyHw& h, const std::string& precision) {
  AxisLimits a = parse_axes(s.axes);
  for (auto& [k, v] : parse_axes(h.axes)) a[k] = v;
  a.erase("precision");
  for (auto& [k, v] : parse_axes("precision=" + precision)) a[k] = v;
  return a;
}

// What bounds a row's best layout: its step re-simulated with each hardware resource `factor`
// better, on the entry's (possibly edited) hardware; {resource: elasticity}, largest first.
nlohmann::json best_layout_sensitivity(const nlohmann::json& best, const HwSpec& hw, double factor) {
  const Workload w = workload_from_json(best["workload"], "best layout " + best["id"].get<std::string>(), stack_lookup());
  const Scenario sc = make_scenario(w, load_model_spec(model_path(w.model)), hw, true);
  const StepResult r = execute_step(sc);
  StepReport report;
  add_sensitivity(report, sc, r, factor);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& x : report.sensitivity->resources)
    if (x.elasticity) out.push_back({{"resource", x.resource}, {"elasticity", *x.elasticity}});
  return out;
}

nlohmann::json run_cell(const Study& s, const Cell& c, const PriceFile& prices, const IntervalModel& intervals,
                        double sensitivity_factor) {
  const StudyModel& m = s.models[c.model];
  const StudyHw& h = s.hardware[c.hw];
  const HwSpec hw = study_hw(h);
  const int64_t nodes = (m.chips + hw.chips_per_node - 1) / hw.chips_per_node;
  SearchOptions o;
  o.hw_set = h.hw_set;
  o.space.model = m.model;
  o.space.hws = {h.hw};
  o.space.nodes = {nodes};
  o.space.seq_len = s.seq_len;
  o.space.global_batch = m.global_batch;
  o.space.axes = cell_axes(s, h, c.precision);
  if (!h.stack.empty()) use_stack(o.space, h.stack, stack_lookup());  // after the axes: the study's named axes win
  o.top_k = 1;
  o.keep_workloads = true;  // the best row's workload, for its interval's parameter term
  o.train_tokens = s.train_tokens.front();
  const nlohmann::json doc = run_search(o);
  nlohmann::json row = {{"model", m.model}, {"hw", h.hw}, {"precision_axis", c.precision}, {"chips", nodes * hw.chips_per_node},
                        {"nodes", nodes}, {"global_batch", m.global_batch}, {"seq_len", s.seq_len},
                        {"layouts_enumerated", doc["counts"]["enumerated"]}, {"layouts_fit", doc["counts"]["fits"]}};
  if (!h.stack.empty()) row["stack"] = h.stack;
  if (!h.hw_set.empty()) row["label"] = h.label, row["hw_set"] = h.hw_set;
  if (doc["top_by_throughput"].empty()) {
    row["status"] = "does not fit";
    return row;
  }
  const auto& best = doc["top_by_throughput"][0];
  const double t = best["step_time_s"].get<double>(), tps = best["tokens_per_s"].get<double>();
  const Interval iv = intervals.for_scenario(scenario_from_json(best["workload"], fmt::format("{} on {}", m.model, h.hw)), t);
  row["status"] = "ok";
  row["layout"] = best["id"];
  for (const char* k : {"precision", "tp", "pp", "dp", "ep", "cp", "micro_batch", "zero", "checkpointing", "mfu",
                        "memory_per_core_gib"})
    row[k] = best[k];
  row["cores"] = nodes * hw.cores_per_node();
  // MFU against the dense peak of the format the linear layers run in (the search's "mfu" is
  // against BF16, which a low-precision run can exceed).
  double format_peak = hw.tensor.peak_tflops[static_cast<int>(DType::BF16)];
  for (DType d : kLowPrecisionDTypes)
    if (c.precision == to_string(d)) format_peak = hw.tensor.peak_tflops[static_cast<int>(d)];
  row["mfu_of_format_peak"] = best["mfu"].get<double>() * hw.tensor.peak_tflops[static_cast<int>(DType::BF16)] / format_peak;
  row["step_time_s"] = t;
  row["step_time_interval_s"] = {iv.time_lo(t), iv.time_hi(t)};
  row["tokens_per_s"] = tps;
  row["tokens_per_s_interval"] = {iv.throughput_lo(tps), iv.throughput_hi(tps)};
  row["interval"] = {{"basis", iv.basis}, {"extrapolated", iv.extrapolated}, {"residual_rows", iv.rows},
                     {"error_p5_pct", 100 * iv.e_lo}, {"error_p95_pct", 100 * iv.e_hi},
                     {"parameter_sigma_log", iv.param_sigma}};
  nlohmann::json usd = nlohmann::json::object(), usd_iv = nlohmann::json::object();
  for (const auto& plan : prices.plans) {
    const auto p = prices.price(h.hw, plan);
    if (!p) {
      usd[plan] = nullptr;
      continue;
    }
    const double per_token = *p * static_cast<double>(nodes) / 3600.0;  // USD per second of the cluster
    usd[plan] = per_token / tps * 1e6;
    usd_iv[plan] = {per_token / iv.throughput_hi(tps) * 1e6, per_token / iv.throughput_lo(tps) * 1e6};
  }
  row["usd_per_million_tokens"] = usd;
  row["usd_per_million_tokens_interval"] = usd_iv;
  nlohmann::json train = nlohmann::json::array();
  for (double tokens : s.train_tokens) {
    nlohmann::json x = {{"tokens", tokens},
                        {"days", tokens / tps / 86400},
                        {"days_interval", {tokens / iv.throughput_hi(tps) / 86400, tokens / iv.throughput_lo(tps) / 86400}}};
    nlohmann::json cost = nlohmann::json::object();
    for (const auto& plan : prices.plans)
      cost[plan] = usd[plan].is_null() ? nlohmann::json(nullptr) : nlohmann::json(usd[plan].get<double>() * tokens / 1e6);
    x["usd"] = cost;
    train.push_back(x);
  }
  row["train"] = train;
  if (sensitivity_factor > 1) row["sensitivity"] = {{"factor", sensitivity_factor}, {"resources", best_layout_sensitivity(best, hw, sensitivity_factor)}};
  return row;
}

}  // namespace

std::string compare_row_label(const nlohmann::json& row) {
  return row.contains("label") ? row["label"].get<std::string>() : row["hw"].get<std::string>();
}

namespace {
PriceFile study_prices(const Study& s, const std::string& price_file) {
  const PriceFile prices = load_price_file(price_file);
  for (const auto& h : s.hardware) prices.price(h.hw, prices.plans.front());  // every hw priced (else a clear error)
  return prices;
}
}  // namespace

void check_study_file(const std::string& file) {
  const Study s = load_study(file);
  (void)study_prices(s, data_path(s.prices));
}

nlohmann::json run_compare(const CompareOptions& o) {
  const Study s = load_study(o.study);
  const std::string price_file = o.prices.empty() ? data_path(s.prices) : o.prices;
  const PriceFile prices = study_prices(s, price_file);
  // validation.json, parsed once: the intervals and the weak-scaling checks below both read it.
  const std::string validation_file = o.validation_json.empty() ? data_dir() + "/results/validation.json" : o.validation_json;
  const nlohmann::json validation_doc = load_json_file(validation_file);
  const IntervalModel intervals(validation_doc, validation_file);
  std::vector<std::string> low(s.hardware.size());  // each hardware's fastest low precision ("" if none)
  for (size_t h = 0; h < s.hardware.size(); ++h) low[h] = best_low_precision(study_hw(s.hardware[h]));
  std::vector<Cell> cells;
  for (size_t m = 0; m < s.models.size(); ++m)
    for (size_t h = 0; h < s.hardware.size(); ++h) {
      cells.push_back({m, h, "bf16"});
      if (!low[h].empty()) cells.push_back({m, h, low[h]});
    }
  auto progress = [&](size_t done, size_t n) {
    if (o.progress) std::cerr << fmt::format("\rtrnsim compare: {}/{} searches", done, n) << (done == n ? "\n" : "");
  };
  const auto results = fork_map(
      cells.size(), o.workers, [&](size_t i) { return run_cell(s, cells[i], prices, intervals, o.sensitivity_factor).dump(); }, progress);
  nlohmann::json doc;
  doc["study"] = {{"name", s.name}, {"description", s.description}, {"file", shown_path(s.file)}, {"seq_len", s.seq_len},
                  {"axes", s.axes}, {"train_tokens", s.train_tokens}};
  doc["prices"] = {{"file", shown_path(price_file)}, {"date", prices.date}, {"currency", prices.currency}, {"source", prices.source},
                   {"plans", prices.plans}};
  nlohmann::json price_sources = nlohmann::json::object();
  for (const auto& h : s.hardware) price_sources[h.hw] = prices.instances.at(h.hw).source;
  doc["prices"]["instances"] = price_sources;
  doc["rows"] = nlohmann::json::array();
  for (const auto& r : results) doc["rows"].push_back(nlohmann::json::parse(r));
  doc["not_expressible"] = nlohmann::json::array();
  for (const auto& [m, why] : s.not_expressible) doc["not_expressible"].push_back({{"model", m}, {"reason", why}});
  // What the corpus measured of weak scaling on each study chip's family (paired_ratios.hpp): the
  // figures here are trnsim's scaling, and where it was optimistic on measured pairs a report says so.
  const nlohmann::json paired = validation_doc.value("paired_ratios", nlohmann::json::object());
  nlohmann::json scaling = {{"families", nlohmann::json::object()}, {"extrapolated", nlohmann::json::array()}};
  for (const auto& h : s.hardware) {
    const std::string family = intervals.measured_family(study_hw(h));
    if (family.empty()) {
      scaling["extrapolated"].push_back(h.hw);
      continue;
    }
    if (scaling["families"].contains(family)) continue;
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : paired.value("groups", nlohmann::json::array()))
      if (g["factor"] == "scale" && g["family"] == family)
        groups.push_back({{"dataset", g["dataset"]}, {"pairs", g["pairs"]}, {"measured_ratio", g["measured_ratio"]},
                          {"predicted_ratio", g["predicted_ratio"]}, {"scale_min", g["scale_min"]}, {"scale_max", g["scale_max"]}});
    scaling["families"][family] = groups;
  }
  doc["weak_scaling_checks"] = scaling;
  // Trainium vs GPU: the cheaper of each side's rows (any precision) per model, first plan.
  doc["pairs"] = nlohmann::json::array();
  const std::string plan = prices.plans.front();
  for (const auto& [trn, gpu] : s.pairs)
    for (const auto& m : s.models) {
      auto cheapest = [&](const std::string& hw) -> const nlohmann::json* {
        const nlohmann::json* best = nullptr;
        for (const auto& r : doc["rows"])
          if (r["model"] == m.model && compare_row_label(r) == hw && r["status"] == "ok" && r["usd_per_million_tokens"][plan].is_number() &&
              (!best || r["usd_per_million_tokens"][plan].get<double>() < (*best)["usd_per_million_tokens"][plan].get<double>()))
            best = &r;
        return best;
      };
      const auto* a = cheapest(trn);
      const auto* b = cheapest(gpu);
      if (!a || !b) continue;
      const double ca = (*a)["usd_per_million_tokens"][plan], cb = (*b)["usd_per_million_tokens"][plan];
      doc["pairs"].push_back({{"model", m.model}, {"trainium", trn}, {"gpu", gpu}, {"plan", plan},
                              {"trainium_precision", (*a)["precision"]}, {"gpu_precision", (*b)["precision"]},
                              {"trainium_usd_per_million_tokens", ca}, {"gpu_usd_per_million_tokens", cb},
                              {"saving_pct", 100 * (1 - ca / cb)}});
    }
  return doc;
}

}  // namespace trnsim
