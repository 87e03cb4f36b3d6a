// campaign.cpp — see campaign.hpp.
#include "campaign.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "scenario.hpp"
#include "trnsim/error.hpp"

namespace trnsim {
namespace {

double checkpoint_stall(const CampaignParams& p) {
  const double write = p.checkpoint_bytes / (p.storage_gbps * 1e9);
  return p.async_save ? p.async_stall_s : write;
}

struct Trial {
  double wall = 0, failures = 0;
};

// The run is a sequence of segments: n full segments of `tau` useful seconds each followed by
// a checkpoint save (stall C), then a last segment of the remaining work with no save. A
// failure anywhere in a segment (save included) loses the segment: after the downtime R
// (detect + restart + reload + compile, failure-free) it starts over. With exponential
// failures (rate λ) each attempt of a segment of length L succeeds with q = exp(-λL), so
// the failures before k segments succeed are negative-binomial(k, q) and each failed attempt
// loses a time drawn from the exponential truncated to [0, L). Sampling those totals instead
// of walking every interval makes a trial O(1) whatever the token count (a 1.8e15
// token run with 1-minute intervals was 10^9 loop iterations).
struct Segments {
  double lambda = 0, downtime = 0;
  double full = 0, last = 0;  // lengths incl. the save (full) / without (last)
  int64_t n_full = 0;         // segments followed by a checkpoint
};

Segments segments(const CampaignParams& p, double tau) {
  Segments g;
  g.lambda = static_cast<double>(p.nodes) / (p.mtbf_node_hours * 3600.0);  // cluster failures per second
  g.downtime = p.detect_s + p.restart_s + p.checkpoint_bytes / (p.storage_gbps * 1e9) + p.compile_s;
  const double total = p.tokens / p.tokens_per_s;  // useful compute seconds
  const double n = std::max(0.0, std::ceil(total / tau) - 1);
  if (n > 1e15) throw ConfigError(fmt::format("campaign: {:.3g} checkpoint intervals; raise --checkpoint-interval", n));
  g.n_full = static_cast<int64_t>(n);
  g.full = tau + checkpoint_stall(p);
  g.last = total - n * tau;
  // Expected failures: (e^{λL} - 1) per segment. Beyond 10^12 the run never finishes in any
  // useful sense (and the counts would not fit the sampler).
  const double failures = n * std::expm1(g.lambda * g.full) + std::expm1(g.lambda * g.last);
  if (!(failures <= 1e12))
    throw ConfigError(fmt::format("campaign: a {:.3g} s checkpoint interval (+ save) spans {:.3g} cluster MTBFs, so the "
                                  "run would need over {:.3g} restarts; shorten --checkpoint-interval, speed up the save or "
                                  "raise --mtbf-node-hours", g.full, g.lambda * g.full, std::min(failures, 1e300)));
  return g;
}

// Expected wall seconds of the whole run (renewal argument): each segment of length L costs
// (e^{λL} - 1)(1/λ + R) in expectation.
double expected_wall(const Segments& g) {
  auto seg = [&](double L) { return std::expm1(g.lambda * L) * (1 / g.lambda + g.downtime); };
  return static_cast<double>(g.n_full) * seg(g.full) + seg(g.last);
}

// k segments of length L: successful attempts, sampled failures and their lost time.
void sample_segments(const Segments& g, double L, int64_t k, std::mt19937_64& rng, Trial& t) {
  if (k <= 0 || L <= 0) return;
  t.wall += static_cast<double>(k) * L;
  const double q = std::exp(-g.lambda * L);
  const auto failures = static_cast<double>(std::negative_binomial_distribution<int64_t>(k, q)(rng));
  t.failures += failures;
  t.wall += failures * g.downtime;
  const double lost_cdf = -std::expm1(-g.lambda * L);  // P(failure within L)
  if (failures <= 64) {  // draw each lost span: exponential truncated to [0, L)
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int i = 0; i < static_cast<int>(failures); ++i) t.wall += -std::log1p(-u(rng) * lost_cdf) / g.lambda;
  } else {  // sum of many: normal with the truncated exponential's exact mean and variance
    const double e = std::expm1(g.lambda * L);
    const double mean = 1 / g.lambda - L / e;
    const double var = std::max(0.0, 1 / (g.lambda * g.lambda) - L * L * (e + 1) / (e * e));
    t.wall += std::max(0.0, std::normal_distribution<double>(failures * mean, std::sqrt(failures * var))(rng));
  }
}

Trial run_trial(const Segments& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Trial t;
  sample_segments(g, g.full, g.n_full, rng, t);
  sample_segments(g, g.last, 1, rng, t);
  return t;
}

}  // namespace

RecoveryPreset recovery_preset(bool automatic) { return automatic ? RecoveryPreset{3, 12} : RecoveryPreset{750, 90}; }

CampaignParams campaign_params(const Scenario& s, double tokens_per_s, bool automatic) {
  CampaignParams p;
  p.tokens_per_s = tokens_per_s;
  p.nodes = s.workload.nodes;
  const double state_bytes = (s.workload.precision == Precision::FP32 ? 4 : 2) + s.workload.optimizer_kept_bytes();
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
  const Segments g = segments(p, o.interval_s);
  std::vector<double> goodput;
  double wall = 0, failures = 0;
  for (int i = 0; i < p.trials; ++i) {
    Trial t = run_trial(g, p.seed * 1000003ULL + static_cast<uint64_t>(i));
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

double expected_wall_s(const CampaignParams& p, double tau) { return expected_wall(segments(p, tau)); }

double young_daly_interval(const CampaignParams& p) {
  const double M = p.mtbf_node_hours * 3600.0 / static_cast<double>(p.nodes);
  return std::sqrt(2.0 * checkpoint_stall(p) * M);
}

double optimal_interval(const CampaignParams& p) {
  // The expected wall time is exact (expected_wall), so the search needs no sampling. An
  // interval so long that segments() refuses it is never the optimum.
  auto mean_wall = [&](double tau) {
    try {
      return expected_wall(segments(p, tau));
    } catch (const ConfigError&) {
      return std::numeric_limits<double>::infinity();
    }
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
