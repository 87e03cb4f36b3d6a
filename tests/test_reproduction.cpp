// test_reproduction.cpp — issue 6: the published table, with a stated tolerance.
// Every non-calibration row must be within 15% on throughput and 5 points on scaling
// efficiency, except rows listed in results/published.json "open_misses" (each with its
// reason); those must still miss, so the list can only shrink as the model improves.
// Also: the hw files carry exactly the calibrated values.
#include <catch2/catch.hpp>
#include <fstream>
#include <iostream>

#include "hw_spec.hpp"
#include "reproduction.hpp"
#include "scenario.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

TEST_CASE("published rows are reproduced within 15% throughput and 5 scaling points", "[reproduction]") {
  const std::string pub_file = std::string(TRNSIM_SOURCE_DIR) + "/results/published.json";
  auto pub = load_json_file(pub_file);
  auto r = run_reproduction(pub_file);
  int checked = 0;
  for (const auto& row : r["rows"]) {
    if (row["calibration"].get<bool>()) {
      CHECK(std::abs(row["error_pct"].get<double>()) < 0.1);  // the fit itself
      continue;
    }
    const std::string name = row["workload"].get<std::string>();
    const double err = std::abs(row["error_pct"].get<double>());
    const double pts = std::abs(row["scaling_eff_error_points"].get<double>());
    const bool within = err <= 15.0 && pts <= 5.0;
    INFO(name << ": throughput error " << err << "%, scaling error " << pts << " points");
    if (pub["open_misses"].contains(name)) CHECK_FALSE(within);  // remove it from open_misses once fixed
    else CHECK(within);
    ++checked;
  }
  CHECK(checked == 12);
  std::cout << "reproduction: mean absolute throughput error over prediction rows "
            << r["mean_abs_error_pct_predictions"].get<double>() << "%\n";
  // R3's claim is "up to 46% lower cost than comparable GPU instances": trn1 must come out cheaper.
  CHECK(r["r3_cost"]["trn1_saving_pct"].get<double>() > 0);
}

TEST_CASE("hw files carry the calibrated values recorded in results/", "[reproduction]") {
  std::ifstream in(std::string(TRNSIM_SOURCE_DIR) + "/results/calibration.json");
  auto cal = nlohmann::json::parse(in);
  for (const auto& f : cal)
    for (const auto& h : f["hw_files"]) {
      INFO(h);
      CHECK(load_hw_spec(hw_path(h.get<std::string>())).tensor.efficiency == Approx(f["fitted_value"].get<double>()));
    }
}
