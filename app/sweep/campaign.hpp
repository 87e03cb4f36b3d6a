// campaign.hpp — a whole training run, not one step: a seeded Monte-Carlo (sampled per
// checkpoint segment, so O(1) per trial) of node failures (exponential per-node MTBF), detection, restart, lost work since the
// last checkpoint, checkpoint writes (size from the memory model's sharded states, time
// from the storage bandwidth; synchronous or asynchronous), reporting goodput with a
// confidence interval, wall-clock days, node-hours, cost and the optimal interval.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>

namespace trnsim {

struct CampaignParams {
  double tokens = 1e12;
  double tokens_per_s = 0;          // from the simulated step
  int64_t nodes = 1;
  double mtbf_node_hours = 6300;
  double checkpoint_bytes = 0;      // whole model + optimizer states
  double storage_gbps = 10;         // aggregate write/read bandwidth to the checkpoint store, GB/s
  bool async_save = false;
  double async_stall_s = 0;         // compute stall of an asynchronous save (copy to host memory)
  double detect_s = 0, restart_s = 0, compile_s = 0;
  double interval_s = 0;            // useful compute between checkpoints; 0 = find the optimum
  int trials = 200;
  uint64_t seed = 1;
  double usd_per_node_hour_on_demand = 0, usd_per_node_hour_reserved = 0;
};

struct CampaignOutcome {
  double goodput_mean = 0, goodput_ci95 = 0;
  double wall_days = 0, node_hours = 0, failures = 0;
  double checkpoint_stall_s = 0;    // per save
  double interval_s = 0;
};

// Recovery presets (minutes): auto = automatic detection + spare node + relaunch with a warm
// compile cache; manual = a person notices the stalled job and resubmits it. The manual
// figures are assumptions stated in results/campaign.md (chosen to match R3's manual-recovery utilisation).
struct RecoveryPreset {
  double detect_min, restart_min;
};
RecoveryPreset recovery_preset(bool automatic);
// Campaign inputs for a simulated workload: throughput, nodes, prices and checkpoint size
// (weights + FP32 AdamW moments, + FP32 master weights in mixed precision).
CampaignParams campaign_params(const struct Scenario& s, double tokens_per_s, bool automatic);

// Runs the Monte-Carlo at a fixed interval.
CampaignOutcome simulate_campaign(const CampaignParams& p);
// Exact expected wall seconds at interval `tau` (renewal formula; the Monte-Carlo samples it).
// Throws ConfigError for a run that could not finish (over 10^12 expected restarts).
double expected_wall_s(const CampaignParams& p, double tau);
// Young/Daly first-order optimum sqrt(2·C·M) (C: checkpoint stall, M: cluster MTBF), seconds.
double young_daly_interval(const CampaignParams& p);
// Interval minimising mean wall time (golden-section search over log interval, common random numbers).
double optimal_interval(const CampaignParams& p);
nlohmann::json campaign_report(const CampaignParams& p, const CampaignOutcome& o);

}  // namespace trnsim
