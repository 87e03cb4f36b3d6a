// campaign.cpp — see campaign.hpp.
#include "campaign.hpp"

#include <cmath>
#include <random>
#include <vector>

#include "scenario.hpp"

namespace trnsim {
namespace {

double checkpoint_stall(const CampaignParams& p) {
  const double write = p.checkpoint_bytes / (p.storage_gbps * 1e9);
  return p.async_save ? p.async_stall_s : write;
}

struct Trial {
  double wall = 0, failures = 0;
};

Trial run_trial(const CampaignParams& p, double tau, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double rate = static_cast<double>(p.nodes) / (p.mtbf_node_hours * 3600.0);  // cluster failures per second
  std::exponential_distribution<double> next_failure(rate);
  const double total = p.tokens / p.tokens_per_s;  // useful compute seconds
  const double stall = checkpoint_stall(p);
  const double reload = p.checkpoint_bytes / (p.storage_gbps * 1e9);
  double done = 0, since = 0, F = next_failure(rng);
  Trial t;
  auto fail = [&](double elapsed) {
    t.wall += elapsed + p.detect_s + p.restart_s + reload + p.compile_s;
    since = 0;  // work since the last checkpoint is lost
    t.failures += 1;
    F = next_failure(rng);
  };
  while (done < total) {
    const double seg = std::min(tau - since, total - done - since);
    if (F < seg) {
      fail(F);
      continue;
    }
    t.wall += seg;
    F -= seg;
    since += seg;
    if (done + since >= total) break;  // finished: no final checkpoint needed
    if (F < stall) {                   // failure while saving: this checkpoint is lost too
      fail(F);
      continue;
    }
    t.wall += stall;
    F -= stall;
    done += since;
    since = 0;
  }
  return t;
}

}  // namespace

RecoveryPreset recovery_preset(bool automatic) { return automatic ? RecoveryPreset{3, 12} : RecoveryPreset{750, 90}; }

CampaignParams campaign_params(const Scenario& s, double tokens_per_s, bool automatic) {
  CampaignParams p;
  p.tokens_per_s = tokens_per_s;
  p.nodes = s.workload.nodes;
  const double state_bytes = (s.workload.precision == Precision::FP32 ? 4 : 2) + 8 +
                             (s.workload.precision == Precision::MixedBF16 ? 4 : 0);
  p.checkpoint_bytes = static_cast<double>(s.model.total_parameters()) * state_bytes;
  const RecoveryPreset r = recovery_preset(automatic);
  p.detect_s = 60 * r.detect_min;
  p.restart_s = 60 * r.restart_min;
  p.usd_per_node_hour_on_demand = s.hw.price.on_demand_per_hour;
  p.usd_per_node_hour_reserved = s.hw.price.reserved_per_hour;
  return p;
}

CampaignOutcome simulate_campaign(const CampaignParams& p) {
  CampaignOutcome o;
  o.interval_s = p.interval_s > 0 ? p.interval_s : optimal_interval(p);
  o.checkpoint_stall_s = checkpoint_stall(p);
  const double total = p.tokens / p.tokens_per_s;
  std::vector<double> goodput;
  double wall = 0, failures = 0;
  for (int i = 0; i < p.trials; ++i) {
    Trial t = run_trial(p, o.interval_s, p.seed * 1000003ULL + static_cast<uint64_t>(i));
    goodput.push_back(total / t.wall);
    wall += t.wall;
    failures += t.failures;
  }
  const double n = static_cast<double>(p.trials);
  for (double g : goodput) o.goodput_mean += g / n;
  double var = 0;
  for (double g : goodput) var += (g - o.goodput_mean) * (g - o.goodput_mean) / std::max(1.0, n - 1);
  o.goodput_ci95 = 1.96 * std::sqrt(var / n);
  o.wall_days = wall / n / 86400.0;
  o.node_hours = wall / n / 3600.0 * static_cast<double>(p.nodes);
  o.failures = failures / n;
  return o;
}

double young_daly_interval(const CampaignParams& p) {
  const double M = p.mtbf_node_hours * 3600.0 / static_cast<double>(p.nodes);
  return std::sqrt(2.0 * checkpoint_stall(p) * M);
}

double optimal_interval(const CampaignParams& p) {
  auto mean_wall = [&](double tau) {
    double w = 0;
    const int trials = std::min(p.trials, 64);
    for (int i = 0; i < trials; ++i) w += run_trial(p, tau, p.seed * 7919ULL + static_cast<uint64_t>(i)).wall;
    return w / trials;
  };
  // Golden-section search on log(tau) between 10 s and 7 days.
  double a = std::log(10.0), b = std::log(7 * 86400.0);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = mean_wall(std::exp(c)), fd = mean_wall(std::exp(d));
  for (int it = 0; it < 40 && b - a > 1e-3; ++it) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = mean_wall(std::exp(c));
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = mean_wall(std::exp(d));
    }
  }
  return std::exp((a + b) / 2);
}

nlohmann::json campaign_report(const CampaignParams& p, const CampaignOutcome& o) {
  return {{"inputs",
           {{"tokens", p.tokens},
            {"tokens_per_s", p.tokens_per_s},
            {"nodes", p.nodes},
            {"mtbf_node_hours", p.mtbf_node_hours},
            {"cluster_mtbf_hours", p.mtbf_node_hours / static_cast<double>(p.nodes)},
            {"checkpoint_gb", p.checkpoint_bytes / 1e9},
            {"storage_GBps", p.storage_gbps},
            {"async_save", p.async_save},
            {"detect_min", p.detect_s / 60},
            {"restart_min", p.restart_s / 60},
            {"compile_min", p.compile_s / 60},
            {"trials", p.trials},
            {"seed", p.seed}}},
          {"goodput", o.goodput_mean},
          {"goodput_ci95", o.goodput_ci95},
          {"useful_days", p.tokens / p.tokens_per_s / 86400.0},
          {"wall_days", o.wall_days},
          {"node_hours", o.node_hours},
          {"expected_failures", o.failures},
          {"checkpoint_interval_min", o.interval_s / 60},
          {"young_daly_interval_min", young_daly_interval(p) / 60},
          {"checkpoint_stall_s", o.checkpoint_stall_s},
          {"cost_usd_on_demand", o.node_hours * p.usd_per_node_hour_on_demand},
          {"cost_usd_reserved", o.node_hours * p.usd_per_node_hour_reserved}};
}

}  // namespace trnsim
