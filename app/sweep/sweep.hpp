// sweep.hpp — all valid parallel layouts of a model on one or more cluster sizes: drop
// those that do not fit (counting reasons), simulate the rest in worker processes, sort
// by throughput and mark the Pareto front of time-to-train vs cost-to-train.
#pragma once
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "layouts.hpp"
#include "report.hpp"  // row_from_report, rejection_reason

namespace trnsim {

struct SweepOptions {
  LayoutSpace space;              // nodes, hw and precision fields ignored; see below
  std::vector<std::string> hws;   // precision per hw: bf16-sr where stochastic rounding exists, else mixed-bf16,
  std::optional<Precision> low_precision;  // unless this is set (fp8, mxfp8, nvfp4: every hw)
  std::vector<int64_t> nodes;
  int workers = 1;
  double timeout_s = 120;
  int shard_index = 1, shard_count = 1;  // run configs i with i % count == index - 1
  double train_tokens = 1e12;     // for time-to-train and cost-to-train
  std::string op_cache;           // shared op-timing cache file ("" = none)
  bool progress = false;
  std::string worker_executable;  // the trnsim CLI the workers run ("" = this process's executable)
};

nlohmann::json run_sweep(const SweepOptions& o);
// Identity of a sweep (its space, hardware, nodes and shard count): shards of one sweep share it.
std::string sweep_id(const SweepOptions& o);
// Checks that `parts` (read from `files`) are the shards 1..N of one sweep, each exactly once;
// a run report, a shard of another sweep, a duplicate or a missing shard is a ConfigError.
void check_shards(const std::vector<std::string>& files, const std::vector<nlohmann::json>& parts);
// Sorts rows (throughput, then id: independent of worker count) and marks the Pareto front.
void finalize_sweep(nlohmann::json& doc);
nlohmann::json merge_sweeps(const std::vector<nlohmann::json>& parts);
std::string sweep_csv(const nlohmann::json& doc);
std::string sweep_markdown(const nlohmann::json& doc, size_t max_rows = 40);

}  // namespace trnsim
