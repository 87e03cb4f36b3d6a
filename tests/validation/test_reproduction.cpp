// test_reproduction.cpp — issue 6: the published table, with a stated tolerance.
// Every non-calibration row (calibration rows: the written rule, results/validation/RULES.md)
// must be within 15% on throughput and 5 points on scaling efficiency, except rows listed in results/published.json "open_misses" (each with its
// reason); those must still miss, so the list can only shrink as the model improves.
// Also: the hw files carry exactly the calibrated values.
#include <catch2/catch.hpp>
#include <fstream>
#include <iostream>

#include "hw_spec.hpp"
#include "reproduction.hpp"
#include "scenario.hpp"
#include "trnsim/json_reader.hpp"
#include "validation.hpp"

using namespace trnsim;

TEST_CASE("published rows are reproduced within 15% throughput and 5 scaling points", "[reproduction]") {
  const std::string pub_file = std::string(TRNSIM_SOURCE_DIR) + "/results/published.json";
  auto pub = load_json_file(pub_file);
  auto r = run_reproduction(pub_file);
  int checked = 0;
  for (const auto& row : r["rows"]) {
    if (row["calibration"].get<bool>()) continue;  // fitted jointly with the corpus (results/calibration.md)
    const std::string name = row["workload"].get<std::string>();
    const double err = std::abs(row["error_pct"].get<double>());
    const double pts = std::abs(row["scaling_eff_error_points"].get<double>());
    const bool within = err <= 15.0 && pts <= 5.0;
    INFO(name << ": throughput error " << err << "%, scaling error " << pts << " points");
    if (pub["open_misses"].contains(name)) CHECK_FALSE(within);  // remove it from open_misses once fixed
    else CHECK(within);
    ++checked;
  }
  CHECK(checked == 10);
  std::cout << "reproduction: mean absolute throughput error over prediction rows "
            << r["mean_abs_error_pct_predictions"].get<double>() << "%\n";
  // R3's claim is "up to 46% lower cost than comparable GPU instances": trn1 must come out cheaper.
  CHECK(r["r3_cost"]["trn1_saving_pct"].get<double>() > 0);
}

TEST_CASE("the seed rows flagged for calibration are the ones the written rule picks", "[reproduction]") {
  ValidationOptions opt;
  opt.datasets = {"seed"};
  opt.progress = false;
  auto pub = load_json_file(std::string(TRNSIM_SOURCE_DIR) + "/results/published.json");
  const auto corpus = load_corpus(opt);
  REQUIRE(corpus.size() == pub["rows"].size());
  for (size_t i = 0; i < corpus.size(); ++i) {
    INFO(corpus[i].label);
    CHECK(pub["rows"][i]["calibration"].get<bool>() == corpus[i].calibration);
  }
}

TEST_CASE("hw files carry the calibrated values recorded in results/", "[reproduction]") {
  std::ifstream in(std::string(TRNSIM_SOURCE_DIR) + "/results/calibration.json");
  auto cal = nlohmann::json::parse(in);
  REQUIRE(cal.size() >= 3);
  for (auto fam = cal.begin(); fam != cal.end(); ++fam)
    for (const auto& h : fam.value()["hw_files"]) {
      const HwSpec hw = load_hw_spec(hw_path(h.get<std::string>()));
      const auto& p = fam.value()["parameters"];
      INFO(fam.key() << ": " << h);
      // Parameters a family does not fit (results/validation/RULES.md) are absent from its record.
      if (p.contains("tensor.efficiency")) CHECK(hw.tensor.efficiency == Approx(p["tensor.efficiency"].get<double>()));
      if (p.contains("tensor.efficiency_low_precision"))
        CHECK(hw.tensor.efficiency_low_precision == Approx(p["tensor.efficiency_low_precision"].get<double>()));
      CHECK(p.size() >= 1);
      if (p.contains("host.dispatch_s")) CHECK(hw.host.dispatch_s == Approx(p["host.dispatch_s"].get<double>()).epsilon(1e-3));
    }
}
