// test_compare.cpp — issue 26: prediction intervals (quantiles, measured vs extrapolated chips),
// the price file's checks, and a compare row against its closed forms.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "compare.hpp"
#include "intervals.hpp"
#include "prices.hpp"
#include "scenario.hpp"
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
  // A hardware the price file does not list is refused before any search runs.
  const auto unpriced = write_tmp("study_unpriced.json", R"({
    "name": "t", "description": "test study", "prices": "prices/aws-2026-11.json", "seq_len": 4096,
    "train_tokens_billions": [1000], "hardware": [{"hw": "dgx-b300"}],
    "models": [{"model": "llama2-7b", "chips": 8, "global_batch": 64}]})");
  o.study = unpriced;
  CHECK_THROWS_WITH(run_compare(o), Catch::Contains("no prices for \"dgx-b300\""));
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
