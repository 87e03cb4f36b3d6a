// test_campaign.cpp — issue 8: the campaign Monte-Carlo against R3's utilisation figures
// (under the parameters stated in results/campaign.md), the Young/Daly closed form, and
// the invariant that goodput falls as the node count rises at fixed per-node MTBF.
#include <catch2/catch.hpp>

#include "campaign.hpp"
#include "report.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"

#include <cmath>

using namespace trnsim;

namespace {
CampaignParams r3(bool automatic) {
  auto s = load_scenario(std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json");
  auto tps = make_report(s, execute_step(s))["throughput"]["tokens_per_s"].get<double>();
  CampaignParams p = campaign_params(s, tps, automatic);
  p.tokens = 1.8e12;
  p.mtbf_node_hours = 6300;  // Llama 3 paper: 419 interruptions in 54 days on 2,048 nodes
  p.storage_gbps = 10;       // FSx for Lustre, synchronous save
  p.interval_s = 35 * 60;    // every 1,000 steps, as HLAT did
  p.trials = 400;
  return p;
}
}  // namespace

TEST_CASE("R3 utilisation: 98.81% with automatic and 77.83% with manual recovery, within 1 point", "[campaign]") {
  const double automatic = simulate_campaign(r3(true)).goodput_mean;
  const double manual = simulate_campaign(r3(false)).goodput_mean;
  CHECK(automatic == Approx(0.9881).margin(0.01));
  CHECK(manual == Approx(0.7783).margin(0.01));
}

TEST_CASE("the optimal checkpoint interval agrees with Young/Daly sqrt(2·C·M)", "[campaign]") {
  CampaignParams p;
  p.tokens = 2e11;
  p.tokens_per_s = 1e6;
  p.nodes = 128;
  p.mtbf_node_hours = 6300;          // M = 49 h
  p.checkpoint_bytes = 60e9 * 10;    // C = 60 s at 10 GB/s, C << M
  p.storage_gbps = 10;
  p.detect_s = p.restart_s = 60;
  p.trials = 100;
  const double yd = young_daly_interval(p);
  CHECK(yd == Approx(std::sqrt(2 * 60.0 * 6300 * 3600 / 128)));
  CHECK(optimal_interval(p) == Approx(yd).epsilon(0.25));  // first-order optimum; the wall-time minimum is flat
}

TEST_CASE("goodput falls as node count rises at fixed MTBF", "[campaign][invariant]") {
  double prev = 1.0;
  for (int64_t nodes : {16, 64, 256, 1024}) {
    CampaignParams p;
    p.tokens = 1e12;
    p.tokens_per_s = 2e6;  // same job, same throughput: only the failure rate changes
    p.nodes = nodes;
    p.checkpoint_bytes = 67e9;
    p.detect_s = 180;
    p.restart_s = 720;
    p.interval_s = 1800;
    p.trials = 100;
    const double g = simulate_campaign(p).goodput_mean;
    CHECK(g < prev);
    prev = g;
  }
}

TEST_CASE("a campaign is reproducible for a seed", "[campaign]") {
  auto p = r3(false);
  p.trials = 20;
  CHECK(simulate_campaign(p).goodput_mean == simulate_campaign(p).goodput_mean);
}

TEST_CASE("the Monte-Carlo mean wall time matches the renewal closed form - hopeless runs are refused", "[campaign]") {
  CampaignParams p;
  p.tokens = 1e12;
  p.tokens_per_s = 2e6;
  p.nodes = 128;
  p.mtbf_node_hours = 2000;
  p.checkpoint_bytes = 7e10;
  p.storage_gbps = 10;
  p.detect_s = 180;
  p.restart_s = 720;
  p.interval_s = 1800;
  p.trials = 2000;
  const double exact = expected_wall_s(p, p.interval_s);
  // By hand: segments of L = 1800 s + 7 s save; each costs (e^{λL} - 1)(1/λ + R).
  const double lambda = 128 / (2000 * 3600.0), R = 180 + 720 + 7.0, total = 1e12 / 2e6;
  const double n = std::ceil(total / 1800) - 1, last = total - n * 1800;
  const double by_hand = n * std::expm1(lambda * 1807) * (1 / lambda + R) + std::expm1(lambda * last) * (1 / lambda + R);
  CHECK(exact == Approx(by_hand).epsilon(1e-12));
  CHECK(exact > total);
  const auto o = simulate_campaign(p);
  INFO("exact " << exact / 86400 << " days, sampled " << o.wall_days << " days");
  CHECK(o.wall_days * 86400 == Approx(exact).epsilon(0.005));
  // A 10-day interval on a cluster that fails every few minutes can never finish.
  p.mtbf_node_hours = 100;
  p.nodes = 4096;
  p.interval_s = 864000;
  CHECK_THROWS_AS(simulate_campaign(p), ConfigError);
}
