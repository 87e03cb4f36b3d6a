// test_error_anatomy.cpp — the validation report's diagnostic of where a family's error lies: the
// floor of repeated configurations, the error left after one offset per model, each model's share.
#include <catch2/catch.hpp>

#include <cmath>

#include "error_anatomy.hpp"

using namespace trnsim;

namespace {
nlohmann::json row(const char* model, const char* layout, double measured, double error_pct,
                   const char* quantity = "tokens_per_s_per_gpu", const char* status = "predicted") {
  return {{"family", "f"}, {"dataset", "d"}, {"model", model}, {"hw", "h"}, {"gpus", 8},
          {"layout", layout}, {"quantity", quantity}, {"status", status}, {"measured", measured}, {"error_pct", error_pct}};
}
}  // namespace

TEST_CASE("error anatomy by hand: the repeated-configuration floor and per-model offsets and shares",
          "[validation][anatomy]") {
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back(row("M", "TP1", 100, +10));               // one configuration measured twice
  rows.push_back(row("M (tokendrop)", "TP1", 120, -5));    // (its variant name is another configuration, the same model)
  rows.push_back(row("M", "TP1", 120, -5));
  rows.push_back(row("N", "TP2", 50, +20));
  rows.push_back(row("N", "TP2", 40, 0, "peak_memory"));   // memory rows are not performance
  rows.push_back(row("N", "TP2", 40, 50, "tokens_per_s_per_gpu", "calibration"));  // nor calibration rows
  const auto a = error_anatomy(rows)["f"];
  REQUIRE(a["rows"] == 4);
  CHECK(a["mean_abs_pct"].get<double>() == Approx((10 + 5 + 5 + 20) / 4.0));
  // "M" TP1 measured 100 and 120: the best configuration-only prediction is their geometric mean
  // (the median of the logs); "M (tokendrop)" and "N" are measured once and add nothing.
  const double g = std::sqrt(100.0 * 120.0);
  CHECK(a["repeat_rows"] == 2);
  CHECK(a["repeat_floor_pct"].get<double>() == Approx((std::abs(g / 100 - 1) + std::abs(g / 120 - 1)) * 100 / 4));
  // One geometric-mean offset per model: M's three rows (+10, -5, -5) leave their spread, N's one row nothing.
  const double m = (std::log(1.1) + 2 * std::log(0.95)) / 3;
  const double after = std::abs(std::exp(std::log(1.1) - m) - 1) + 2 * std::abs(std::exp(std::log(0.95) - m) - 1);
  CHECK(a["after_model_offsets_pct"].get<double>() == Approx(after * 100 / 4));
  // Shares of the absolute error, largest first: M 20 of 40, N 20 of 40 (ties keep name order).
  REQUIRE(a["models"].size() == 2);
  CHECK(a["models"][0]["model"] == "M");
  CHECK(a["models"][0]["rows"] == 3);
  CHECK(a["models"][0]["share_pct"].get<double>() == Approx(50.0));
  CHECK(a["models"][0]["bias_pct"].get<double>() == Approx(0.0));
  CHECK(a["models"][1]["bias_pct"].get<double>() == Approx(20.0));
}

TEST_CASE("error anatomy: an iteration time is a throughput inverse and a family without predictions is absent",
          "[validation][anatomy]") {
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back(row("M", "TP1", 2.0, 0, "iteration_time"));
  rows.push_back(row("M", "TP1", 2.5, 0, "iteration_time"));
  rows.push_back(row("M", "TP1", 2.0, 0, "iteration_time", "not expressible"));
  const auto all = error_anatomy(rows);
  REQUIRE(all.size() == 1);
  // Throughputs 0.5 and 0.4: predicted at their geometric mean, errors |g / 0.5 - 1| and |g / 0.4 - 1|.
  const double g = std::sqrt(0.5 * 0.4);
  CHECK(all["f"]["repeat_floor_pct"].get<double>() == Approx((std::abs(g / 0.5 - 1) + std::abs(g / 0.4 - 1)) * 100 / 2));
  CHECK(error_anatomy(nlohmann::json::array()).empty());
}

TEST_CASE("error by release: per dataset with more than one release, in version order, by hand", "[validation][anatomy]") {
  auto at = [](const char* dataset, const char* release, double e, const char* status = "predicted") {
    nlohmann::json r = row("M", "TP1", 100, e, "tokens_per_s_per_gpu", status);
    r["dataset"] = dataset;
    r["release"] = release;
    return r;
  };
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back(at("d", "NeMo 26.04.01", -30));
  rows.push_back(at("d", "NeMo 24.07", +10));
  rows.push_back(at("d", "NeMo 26.04", -10));
  rows.push_back(at("d", "NeMo 26.04", +20));
  rows.push_back(at("d", "NeMo 25.04.rc2", +5, "calibration"));  // calibration rows are not predictions
  rows.push_back(at("one", "SDK 2.20.0", +3));                   // a dataset with one release: no table
  rows.push_back(row("M", "TP1", 100, +50));                      // a row without a release: not counted
  const auto t = error_by_release(rows);
  REQUIRE(t.size() == 3);
  CHECK(t[0]["release"] == "NeMo 24.07");
  CHECK(t[1]["release"] == "NeMo 26.04");
  CHECK(t[1]["rows"] == 2);
  CHECK(t[1]["bias_pct"].get<double>() == Approx(5.0));
  CHECK(t[1]["mean_abs_pct"].get<double>() == Approx(15.0));
  CHECK(t[2]["release"] == "NeMo 26.04.01");
  CHECK(t[2]["bias_pct"].get<double>() == Approx(-30.0));
}

TEST_CASE("release order: by the numbers in the name, then the text", "[validation][anatomy]") {
  CHECK(release_before("NeMo 24.07", "NeMo 25.04.rc2"));
  CHECK(release_before("NeMo 26.04", "NeMo 26.04.01"));
  CHECK(release_before("SDK 2.9.0", "SDK 2.10.0"));
  CHECK_FALSE(release_before("SDK 2.10.0", "SDK 2.9.0"));
  CHECK_FALSE(release_before("NeMo 26.04", "NeMo 26.04"));
}
