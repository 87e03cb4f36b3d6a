// test_compare.cpp — issue 26: prediction intervals (quantiles, measured vs extrapolated chips),
// the price file's checks, and a compare row against its closed forms.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "compare.hpp"
#include "helpers.hpp"
#include "intervals.hpp"
#include "prices.hpp"
#include "validation.hpp"
#include "scenario.hpp"
#include "search.hpp"
#include "layout_space.hpp"
#include "sensitivity.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"

using namespace trnsim;

namespace {
const std::string kValidation = std::string(TRNSIM_SOURCE_DIR) + "/results/validation.json";
std::string write_tmp(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/trnsim_test_" + name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("quantile interpolates between order statistics", "[compare][interval]") {
  CHECK(quantile({3, 1, 2}, 0.5) == Approx(2));
  CHECK(quantile({0, 10}, 0.05) == Approx(0.5));
  CHECK(quantile({0, 10}, 0.95) == Approx(9.5));
  CHECK(quantile({7}, 0.9) == Approx(7));
}

TEST_CASE("intervals: every dataset's offset and spread, and the basis names a measured chip's family", "[compare][interval]") {
  const IntervalModel m(kValidation);
  const Interval trn1 = m.for_hw(load_hw_spec(hw_path("trn1.32xlarge")));
  const Interval p5 = m.for_hw(load_hw_spec(hw_path("p5.48xlarge")));
  const Interval trn2 = m.for_hw(load_hw_spec(hw_path("trn2.48xlarge")));
  CHECK_FALSE(trn1.extrapolated);
  CHECK(trn1.basis.find("trainium") != std::string::npos);
  CHECK_FALSE(p5.extrapolated);  // the same H100 silicon as the DGX H100 rows
  CHECK(p5.basis.find("h100") != std::string::npos);
  CHECK(trn2.extrapolated);      // no Trainium2 measurement exists
  CHECK(trn2.rows == trn1.rows);  // one pooled rule (session 23): the chip changes the label, not the residuals
  CHECK(trn2.e_lo == trn1.e_lo);
  CHECK(trn2.e_hi == trn1.e_hi);
  for (const Interval* iv : {&trn1, &p5, &trn2}) {
    CHECK(iv->e_lo <= iv->e_hi);
    // The interval of a throughput P: [P / (1 + e95), P / (1 + e5)]; of a time t: [t (1 + e5), t (1 + e95)].
    CHECK(iv->throughput_lo(100) == Approx(100 / (1 + iv->e_hi)));
    CHECK(iv->time_hi(2) == Approx(2 * (1 + iv->e_hi)));
  }
  CHECK_THROWS_AS(IntervalModel("/nonexistent/validation.json"), ConfigError);
  // The family a chip was measured in, by its silicon (the same BF16 rate and HBM bandwidth).
  CHECK(m.measured_family(load_hw_spec(hw_path("trn1.32xlarge"))) == "trainium");
  CHECK(m.measured_family(load_hw_spec(hw_path("p5.48xlarge"))) == "h100");
  CHECK(m.measured_family(load_hw_spec(hw_path("trn2.48xlarge"))).empty());
}

TEST_CASE("interval coverage: each row against the interval built with its whole dataset left out", "[compare][interval]") {
  // Family A: datasets d1 {0.0, 0.1} and d2 {0.2, 0.3}; family B: d3 {-0.1, 0.1}.
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](const char* fam, const char* ds, double e) {
    rows.push_back({{"family", fam}, {"dataset", ds}, {"quantity", "tokens_per_s_per_gpu"}, {"status", "predicted"},
                    {"error_lodo_pct", 100 * e}});
  };
  add("A", "d1", 0.0), add("A", "d1", 0.1), add("A", "d2", 0.2), add("A", "d2", 0.3), add("B", "d3", -0.1), add("B", "d3", 0.1);
  rows.push_back({{"family", "A"}, {"dataset", "d1"}, {"quantity", "activation_memory"}, {"status", "predicted"},
                  {"error_lodo_pct", 90.0}});  // memory rows do not count
  const auto c = interval_coverage(rows);
  // Every remaining dataset's offset plus every remaining dataset's centred residuals:
  // d1 held out: offsets {0.25 (d2), 0.0 (d3)} + spread {-0.05, 0.05, -0.1, 0.1} -> [-0.0825, 0.3325]: both d1 rows inside.
  // d2 held out: offsets {0.05, 0.0} + {-0.05, 0.05, -0.1, 0.1} -> [-0.0825, 0.1325]: both d2 rows (0.2, 0.3) outside.
  CHECK(c["A"]["rows"] == 4);
  CHECK(c["A"]["covered"] == 2);
  // d3 held out: offsets {0.05, 0.25} + {-0.05, 0.05, -0.05, 0.05} -> [0, 0.3]: 0.1 inside, -0.1 outside.
  CHECK(c["B"]["covered"] == 1);
  CHECK(c["all"]["rows"] == 6);
  CHECK(c["all"]["coverage_pct"].get<double>() == Approx(50.0));
  const auto d = interval_coverage_by_dataset(rows);
  CHECK(d["d1"]["covered"] == 2);
  CHECK(d["d2"]["covered"] == 0);
  CHECK(d["d3"]["rows"] == 2);
  CHECK(d["d3"]["covered"] == 1);
  CHECK(d["all"] == c["all"]);
  // One dataset alone: nothing to build a held-out interval from, so no row is counted.
  nlohmann::json one = nlohmann::json::array();
  one.push_back(rows[0]);
  one.push_back(rows[1]);
  CHECK(interval_coverage(one).empty());
}

// Session 36: a family measured on three or more datasets takes its own datasets' offsets and
// spread (issue 25: "from the validation residuals of its family"); with fewer it takes every
// family's, as above.
TEST_CASE("interval coverage: a family of three or more datasets is held to its own residuals", "[compare][interval]") {
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](const char* fam, const char* ds, double e) {
    rows.push_back({{"family", fam}, {"dataset", ds}, {"quantity", "tokens_per_s_per_gpu"}, {"status", "predicted"},
                    {"error_lodo_pct", 100 * e}});
  };
  // Family A: d1, d2, d3 of small errors, ten rows each (any two of them: the 20 rows its own rule
  // needs); family B: one dataset 60 % off, whose offset a pooled interval would take in.
  for (int i = 0; i < 10; ++i) add("A", "d1", 0.01 * (i % 3) - 0.01);
  for (int i = 0; i < 10; ++i) add("A", "d2", 0.02 + 0.01 * (i % 2));
  for (int i = 0; i < 10; ++i) add("A", "d3", -0.02 + 0.01 * (i % 2));
  for (int i = 0; i < 10; ++i) add("B", "d4", 0.6 + 0.02 * (i % 2));
  add("A", "d1", 0.5);  // a miss of family A: inside the pooled interval (B's offset), outside A's own
  const auto c = interval_coverage(rows);
  // d1 held out, family A: offsets {0.025 (d2), -0.015 (d3)} + spreads of d2, d3 (+-0.005): [-0.02, 0.03];
  // all ten ordinary d1 rows (-0.01 .. 0.01) inside, the 0.5 miss outside.
  const auto d = interval_coverage_by_dataset(rows);
  CHECK(d["d1"]["rows"] == 11);
  CHECK(d["d1"]["covered"] == 10);
  // Family B has one dataset: nothing of its own to hold it to, and nothing else is left of it.
  CHECK(d["d4"]["rows"] == 10);
  // The model behind `trnsim run`: a measured chip of family A would take A's residuals alone; the
  // pooled rule (family B, extrapolated chips) takes every row.
  CHECK(c["A"]["rows"] == 31);
}

TEST_CASE("parameter term: sqrt(g^T C g), and the interval is the wider of it and the offsets-and-spread one", "[compare][interval]") {
  const LogCovariance cov = {{"a", {{"a", 0.04}, {"b", 0.01}}}, {"b", {{"a", 0.01}, {"b", 0.09}}}};
  // g_a^2 C_aa + 2 g_a g_b C_ab + g_b^2 C_bb = 0.04 - 0.04 + 0.36
  CHECK(parameter_sigma(cov, {{"a", 1.0}, {"b", -2.0}}) == Approx(0.6));
  CHECK(parameter_sigma(cov, {{"c", 5.0}}) == 0.0);  // a parameter the fit does not have adds nothing
  Interval iv;
  iv.e_lo = -0.2, iv.e_hi = 0.3;
  const Interval same = with_parameter_sigma(iv, 0.0);
  CHECK(same.e_lo == iv.e_lo);
  CHECK(same.e_hi == iv.e_hi);
  // Log bounds ln 0.8 = -0.223 and ln 1.3 = 0.262 about 0.020: +-1.645 x 0.1 is inside them, 0.2 is not.
  const Interval narrow = with_parameter_sigma(iv, 0.1);
  CHECK(narrow.e_lo == Approx(iv.e_lo));
  CHECK(narrow.e_hi == Approx(iv.e_hi));
  const Interval w = with_parameter_sigma(iv, 0.2);
  const double mid = (std::log(0.8) + std::log(1.3)) / 2;
  CHECK(std::log1p(w.e_lo) == Approx(mid - 1.6449 * 0.2));
  CHECK(std::log1p(w.e_hi) == Approx(mid + 1.6449 * 0.2));
  CHECK(w.param_sigma == 0.2);
  // A held-out row outside the offsets-and-spread interval is inside once its prediction carries
  // the left-out fit's parameter uncertainty. The d2 rows of the coverage test above:
  // [-0.0825, 0.1325], log centre 0.0192; 0.0192 + 1.645 x 0.1 = 0.1837 -> up to +0.2017.
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](const char* ds, double e, double sigma) {
    rows.push_back({{"family", "A"}, {"dataset", ds}, {"quantity", "tokens_per_s_per_gpu"}, {"status", "predicted"},
                    {"error_lodo_pct", 100 * e}, {"lodo_param_sigma", sigma}});
  };
  add("d1", 0.0, 0), add("d1", 0.1, 0), add("d2", 0.2, 0.1), add("d2", 0.3, 0.1), add("d3", -0.05, 0), add("d3", 0.05, 0);
  CHECK(interval_coverage_by_dataset(rows)["d2"]["covered"] == 1);  // 0.2 now inside, 0.3 still out
}

TEST_CASE("the left-out fit of the dataset that alone pinned A100's host knows it only as the other families agree", "[compare][interval]") {
  const auto doc = nlohmann::json::parse(std::ifstream(kValidation));
  const auto in_sample = doc["calibration"]["a100"]["log_covariance"];
  const auto left_out = doc["leave_one_dataset_out"]["vtrain_single"]["log_covariance"]["a100"];
  const double pinned = std::sqrt(in_sample["host.dispatch_s"]["host.dispatch_s"].get<double>());
  const double pooled = std::sqrt(left_out["host.dispatch_s"]["host.dispatch_s"].get<double>());
  CHECK(pinned < 0.1);   // vTrain's 1,440 small-model rows pin it
  CHECK(pooled > 0.1);   // the spread of the other families' host costs
  CHECK(left_out["host.dispatch_s"]["tensor.efficiency"].get<double>() == 0.0);
  // That spread: the sample s.d. of the log host costs of the families whose rows pin it (vtrain_single
  // calibrates only a100, so the other families' in-sample flags hold), times sqrt(1 + 1/n).
  std::vector<double> logs;
  for (const char* f : {"blackwell", "h100", "h100_500w"})
    if (doc["calibration"][f]["priors"]["host.dispatch_s"]["pinned_by_rows"].get<bool>())
      logs.push_back(std::log(doc["leave_one_dataset_out"]["vtrain_single"]["parameters"][f]["host.dispatch_s"].get<double>()));
  REQUIRE(logs.size() >= 2);
  const double n = static_cast<double>(logs.size());
  double mean = 0, ss = 0;
  for (double l : logs) mean += l / n;
  for (double l : logs) ss += (l - mean) * (l - mean);
  CHECK(pooled == Approx(std::sqrt(ss / (n - 1)) * std::sqrt(1 + 1 / n)));
}

// (A short name: Catch2 2.13's console reporter loops forever wrapping the longer one's failure
// header, which filled a disk with 75 GB of output.)
TEST_CASE("stored 90 % intervals: held-out coverage 85-95 % overall, each family at its floor", "[compare][interval]") {
  // results/validation.json is regenerated by `trnsim validation` (six minutes with the left-out
  // fits, too long for CI); this guards what is committed against a change that breaks the rule.
  // The bounds are recorded in results/validation/thresholds.json (interval_coverage_pct) with the
  // reason for each exception: issue 25 asks for 85-95 % overall, and 80 % is every family's floor
  // unless an exception is recorded there (they may only move towards the rule).
  const auto doc = nlohmann::json::parse(std::ifstream(kValidation));
  const auto limits = nlohmann::json::parse(std::ifstream(std::string(TRNSIM_SOURCE_DIR) +
                                                          "/results/validation/thresholds.json"))["interval_coverage_pct"];
  const double all = doc["interval_coverage"]["all"]["coverage_pct"].get<double>();
  CHECK(limits["all_min"].get<double>() >= 85.0);  // the recorded bounds are never looser than the rule
  CHECK(limits["all_max"].get<double>() <= 95.0);  // (session 36 withdrew session 35's exceptions)
  CHECK(all >= limits["all_min"].get<double>());
  CHECK(all <= limits["all_max"].get<double>());
  for (auto it = doc["interval_coverage"].begin(); it != doc["interval_coverage"].end(); ++it) {
    INFO(it.key());
    const double floor = limits.contains("family_min") ? limits["family_min"].value(it.key(), limits["family_min_default"].get<double>())
                                                       : limits["family_min_default"].get<double>();
    CHECK(floor >= 80.0);
    CHECK(it.value()["coverage_pct"].get<double>() >= floor);
  }
}

TEST_CASE("price files: dated, every plan a number or null, unknown instances refused by name", "[compare][prices]") {
  const PriceFile p = load_price_file(std::string(TRNSIM_SOURCE_DIR) + "/prices/aws-2026-11.json");
  CHECK(p.date == "2026-11-25");
  CHECK(p.price("trn1.32xlarge", "on_demand").value() == Approx(21.5));
  CHECK_FALSE(p.price("trn1.32xlarge", "capacity_block").has_value());
  CHECK_THROWS_WITH(p.price("h800", "on_demand"), Catch::Contains("no prices for \"h800\""));
  const auto bad_date = write_tmp("prices_bad_date.json",
                                  R"({"date": "Nov 2026", "currency": "USD", "source": "test source", "plans": ["on_demand"],
                                      "instances": {"trn1.32xlarge": {"on_demand": 21.5, "source": "test"}}})");
  CHECK_THROWS_WITH(load_price_file(bad_date), Catch::Contains("/date: \"Nov 2026\" is not a date"));
  const auto negative = write_tmp("prices_negative.json",
                                  R"({"date": "2026-11-25", "currency": "USD", "source": "test source", "plans": ["on_demand"],
                                      "instances": {"trn1.32xlarge": {"on_demand": -3, "source": "test"}}})");
  CHECK_THROWS_WITH(load_price_file(negative), Catch::Contains("/instances/trn1.32xlarge/on_demand"));
  const auto unknown = write_tmp("prices_unknown_field.json",
                                 R"({"date": "2026-11-25", "currency": "USD", "source": "test source", "plans": ["on_demand"],
                                     "instances": {"trn1.32xlarge": {"on_demand": 21.5, "spot": 9, "source": "test"}}})");
  CHECK_THROWS_WITH(load_price_file(unknown), Catch::Contains("spot"));
}

TEST_CASE("a compare row: $ per million tokens = price x nodes / tokens per second - days = tokens / rate", "[compare]") {
  const auto study = write_tmp("study.json", R"({
    "name": "t", "description": "test study", "prices": "prices/aws-2026-11.json", "seq_len": 4096,
    "train_tokens_billions": [1000],
    "axes": "tp=8;pp=1;vs=1;mb=1;sp=on;zero=1;recompute=selective;tp_overlap=off;dp_overlap=on;fused=on;attention=flash",
    "hardware": [{"hw": "trn2.48xlarge"}],
    "models": [{"model": "llama2-7b", "chips": 16, "global_batch": 64}]})");
  CompareOptions o;
  o.study = study;
  o.validation_json = kValidation;
  const auto doc = run_compare(o);
  REQUIRE(doc["rows"].size() == 2);  // BF16 and trn2's FP8
  for (const auto& r : doc["rows"]) {
    REQUIRE(r["status"] == "ok");
    const double tps = r["tokens_per_s"], nodes = r["nodes"];
    CHECK(r["usd_per_million_tokens"]["on_demand"].get<double>() == Approx(46.0 * nodes / 3600 / tps * 1e6));
    CHECK(r["usd_per_million_tokens"]["capacity_block"].is_null());
    CHECK(r["train"][0]["days"].get<double>() == Approx(1e12 / tps / 86400));
    CHECK(r["tokens_per_s_interval"][0].get<double>() <= tps);
    CHECK(r["tokens_per_s_interval"][1].get<double>() >= tps);
    CHECK(r["interval"]["extrapolated"] == true);
    CHECK(r["step_time_s"].get<double>() * tps == Approx(64.0 * 4096));
  }
  CHECK(doc["rows"][1]["precision"] == "fp8");
  CHECK(doc["rows"][1]["tokens_per_s"].get<double>() > doc["rows"][0]["tokens_per_s"].get<double>());
  CHECK_FALSE(compare_markdown(doc).empty());
  CHECK(compare_svg(doc).find("<svg") == 0);
  // The corpus's weak-scaling pairs for the study chips' families: trn2 has none (extrapolated).
  CHECK(doc["weak_scaling_checks"]["extrapolated"] == nlohmann::json::array({"trn2.48xlarge"}));
  CHECK(doc["weak_scaling_checks"]["families"].empty());
  CHECK_THAT(compare_markdown(doc), Catch::Contains("**Scaling, as measured.**") && Catch::Contains("trn2.48xlarge extrapolated"));
  // A hardware the price file does not list is refused before any search runs.
  const auto unpriced = write_tmp("study_unpriced.json", R"({
    "name": "t", "description": "test study", "prices": "prices/aws-2026-11.json", "seq_len": 4096,
    "train_tokens_billions": [1000], "hardware": [{"hw": "dgx-b300"}],
    "models": [{"model": "llama2-7b", "chips": 8, "global_batch": 64}]})");
  o.study = unpriced;
  CHECK_THROWS_WITH(run_compare(o), Catch::Contains("no prices for \"dgx-b300\""));
}

TEST_CASE("a search row's workload reproduces its step, and its interval's parameter term is sqrt(g^T C g)", "[compare][interval]") {
  SearchOptions o = test::search_options(
      "llama2-7b", {"p5.48xlarge"}, {1}, 2048, 16,
      "tp=1;pp=1;vs=1;mb=1;sp=off;zero=3;recompute=full;tp_overlap=off;dp_overlap=on;fused=on;attention=flash", 1);
  o.keep_workloads = true;
  const auto doc = run_search(o);
  REQUIRE(doc["top_by_throughput"].size() == 1);
  const auto& row = doc["top_by_throughput"][0];
  const Scenario s = scenario_from_json(row["workload"], "row");
  const double t = row["step_time_s"].get<double>();
  CHECK(execute_step(s).step_time_s == Approx(t).epsilon(1e-12));
  // The term by hand: each fitted parameter of the H100 family 1 % higher, the step re-simulated.
  const IntervalModel m(kValidation);
  const auto cov = m.covariance_for("p5.48xlarge");
  REQUIRE(cov.count("host.dispatch_s"));
  std::map<std::string, double> g;
  for (const auto& [name, unused] : cov) {
    HwSpec hw = s.hw;
    *parameter_slot(hw, name) *= 1.01;
    g[name] = -std::log(execute_step(make_scenario(s.workload, s.model, hw)).step_time_s / t) / std::log(1.01);
  }
  CHECK(g.at("tensor.efficiency") > 0);  // a faster GEMM never slows the step
  CHECK(g.at("tensor.efficiency") <= 1);
  CHECK(g.at("host.dispatch_s") <= 0);   // a dearer launch never speeds it
  const Interval iv = m.for_scenario(s, t);
  CHECK(iv.param_sigma == Approx(parameter_sigma(cov, g)));
  CHECK_FALSE(iv.param_sigma_is_bound);
  // The search's shortcut: H100's host s.d. (x 1.645) reaches past the interval's half-width, so
  // the term is computed; trn1's parameters are pinned tightly enough that it cannot widen there,
  // and the family's largest parameter s.d. is reported as a bound instead.
  double largest_h100 = 0;
  for (const auto& [name, row] : cov) largest_h100 = std::max(largest_h100, std::sqrt(row.at(name)));
  const double half = (std::log1p(m.for_hw(s.hw).e_hi) - std::log1p(m.for_hw(s.hw).e_lo)) / 2;
  CHECK(1.6449 * largest_h100 > half);
  CHECK_FALSE(m.for_scenario(s, t, true).param_sigma_is_bound);
  const Scenario trn1 = load_scenario(std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json");
  const Interval skipped = m.for_scenario(trn1, execute_step(trn1).step_time_s, true);
  CHECK(skipped.param_sigma_is_bound);
  CHECK(1.6449 * skipped.param_sigma <= half);
  CHECK(skipped.e_lo == m.for_hw(trn1.hw).e_lo);
  const Interval base = m.for_hw(s.hw);
  // The wider of the two about the log centre: never narrower than the family's (to rounding of
  // the log / exp round trip when the family's is the wider).
  CHECK(iv.e_lo <= base.e_lo + 1e-12);
  CHECK(iv.e_hi >= base.e_hi - 1e-12);
}

TEST_CASE("a study's hardware runs under its stack profile - an unknown profile is refused by name", "[compare][stack]") {
  const auto study = write_tmp("study_stack.json", R"({
    "name": "t", "description": "test study", "prices": "prices/aws-2026-11.json", "seq_len": 4096,
    "train_tokens_billions": [1000], "axes": "tp=8;pp=1;vs=1;mb=1;recompute=selective;precision=bf16",
    "hardware": [{"hw": "trn2.48xlarge", "stack": "torchneuron"}],
    "models": [{"model": "llama2-7b", "chips": 16, "global_batch": 64}]})");
  CompareOptions o;
  o.study = study;
  o.validation_json = kValidation;
  const auto doc = run_compare(o);
  REQUIRE(!doc["rows"].empty());
  for (const auto& r : doc["rows"]) {
    REQUIRE(r["status"] == "ok");
    CHECK(r["stack"] == "torchneuron");
    CHECK(r["zero"] == 3);  // FSDP2 across the chips, as the profile says
  }
  CHECK(compare_markdown(doc).find("trn2.48xlarge (torchneuron)") != std::string::npos);
  const auto bad = write_tmp("study_bad_stack.json", R"({
    "name": "t", "description": "test study", "prices": "prices/aws-2026-11.json", "seq_len": 4096,
    "train_tokens_billions": [1000], "hardware": [{"hw": "trn2.48xlarge", "stack": "torchtitn"}],
    "models": [{"model": "llama2-7b", "chips": 16, "global_batch": 64}]})");
  o.study = bad;
  CHECK_THROWS_WITH(run_compare(o), Catch::Contains("/hardware/0/stack") && Catch::Contains("unknown stack"));
}

// A study may list a hypothetical variant of an instance ("hw_set": its hw file edited, "label":
// its name): its rows carry the label and the edit, sit beside the real instance's in the table and
// the chart, and a faster memory system never makes them slower. With --sensitivity every row says
// what bounds its best layout.
TEST_CASE("compare: a hypothetical hardware entry (hw_set, label) beside the real instance", "[compare]") {
  const auto study = write_tmp("study_hw_set.json", R"({
    "name": "t", "description": "test study", "prices": "prices/aws-2026-11.json", "seq_len": 4096,
    "train_tokens_billions": [1000],
    "axes": "tp=8;pp=1;vs=1;mb=1;sp=on;zero=1;recompute=selective;tp_overlap=off;dp_overlap=on;fused=on;attention=flash;precision=bf16",
    "hardware": [{"hw": "trn2.48xlarge"},
                 {"hw": "trn2.48xlarge", "hw_set": "hbm.bandwidth_GBps_per_chip=5800", "label": "trn2, 2x HBM"}],
    "models": [{"model": "llama2-7b", "chips": 16, "global_batch": 64}]})");
  CompareOptions o;
  o.study = study;
  o.validation_json = kValidation;
  o.sensitivity_factor = 1.1;  // --sensitivity: what bounds each row's best layout
  const auto doc = run_compare(o);
  for (const auto& r : doc["rows"]) {
    REQUIRE(r.contains("sensitivity"));
    CHECK(r["sensitivity"]["resources"].size() == hw_resources().size());
    for (const auto& x : r["sensitivity"]["resources"]) {
      CHECK(x["elasticity"].get<double>() >= -1e-9);
      CHECK(x["elasticity"].get<double>() <= 1 + 1e-9);
    }
  }
  CHECK(compare_markdown(doc).find("| trn2, 2x HBM | bf16-sr |") != std::string::npos);  // the "what bounds" table
  const nlohmann::json *real = nullptr, *edited = nullptr;
  for (const auto& r : doc["rows"])
    if (r["precision_axis"] == "bf16") (r.contains("label") ? edited : real) = &r;
  REQUIRE(real);
  REQUIRE(edited);
  CHECK(compare_row_label(*real) == "trn2.48xlarge");
  CHECK(compare_row_label(*edited) == "trn2, 2x HBM");
  CHECK((*edited)["hw_set"] == "hbm.bandwidth_GBps_per_chip=5800");
  CHECK((*edited)["tokens_per_s"].get<double>() >= (*real)["tokens_per_s"].get<double>());
  CHECK(compare_markdown(doc).find("| trn2, 2x HBM (extrapolated) (hypothetical: trn2.48xlarge with hbm.bandwidth_GBps_per_chip=5800)") !=
        std::string::npos);
  CHECK(compare_svg(doc).find(">trn2, 2x HBM</text>") != std::string::npos);
  // Without a label, with a bad edit, or named twice: the study's one-line error.
  auto refused = [&](const std::string& name, const std::string& hardware) {
    o.study = write_tmp(name, R"({"name": "t", "description": "d", "prices": "prices/aws-2026-11.json", "seq_len": 4096,
      "train_tokens_billions": [1000], "hardware": )" + hardware + R"(, "models": [{"model": "llama2-7b", "chips": 16, "global_batch": 64}]})");
    return o;
  };
  CHECK_THROWS_WITH(run_compare(refused("s1.json", R"([{"hw": "trn2.48xlarge", "hw_set": "hbm.bandwidth_GBps_per_chip=5800"}])")),
                    Catch::Contains("/hardware/0/label") && Catch::Contains("name it"));
  CHECK_THROWS_WITH(run_compare(refused("s2.json", R"([{"hw": "trn2.48xlarge", "hw_set": "hbm.bw=1", "label": "x"}])")),
                    Catch::Contains("/hardware/0/hw_set") && Catch::Contains("unknown field \"bw\""));
  CHECK_THROWS_WITH(run_compare(refused("s3.json", R"([{"hw": "trn2.48xlarge"}, {"hw": "trn2.48xlarge"}])")),
                    Catch::Contains("/hardware/1/hw") && Catch::Contains("listed twice"));
}
