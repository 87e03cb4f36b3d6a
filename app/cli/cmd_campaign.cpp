// cmd_campaign.cpp — the `campaign` subcommand: a whole training run with failures.
#include <fmt/format.h>

#include <iostream>

#include "campaign.hpp"
#include "cli_args.hpp"
#include "workload_set.hpp"
#include "command_api.hpp"
#include "commands.hpp"
#include "report.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"

namespace trnsim {

Args campaign_args() {
  Args a("campaign", "WORKLOAD.json [options]",
         "Monte-Carlo of a whole training campaign: node failures, detection, restart, lost work, checkpoint\n"
         "writes. Reports goodput (useful step time / wall time) with a 95% interval, wall-clock days,\n"
         "node-hours, cost at both price plans, expected failures and the optimal checkpoint interval.\n"
         "Recovery presets (override with the --*-min options): auto = 3 min detection + 12 min restart\n"
         "(spare node, relaunch, reload, warm compile cache); manual = 12.5 h detection + 1.5 h restart.");
  a.option("tokens", "1.8e12", "tokens to train on")
      .option("mtbf-node-hours", "6300", "mean time between failures of one node (hours)")
      .option("checkpoint-interval", "auto", "minutes of training between checkpoints, or auto (optimal)")
      .option("recovery", "auto", "auto | manual")
      .option("detect-min", "", "minutes to detect a failure (overrides the preset)")
      .option("restart-min", "", "minutes to replace the node and relaunch (overrides the preset)")
      .option("compile-min", "0", "minutes of compilation per restart (0 = warm compile cache)")
      .option("storage-GBps", "10", "aggregate checkpoint storage bandwidth (GB/s)")
      .flag("async-save", "asynchronous checkpoint save (compute stalls only for the copy to host memory)")
      .option("host-copy-GBps", "25", "per-node device-to-host copy bandwidth for asynchronous saves (GB/s)")
      .option("trials", "200", "Monte-Carlo trials")
      .option("seed", "1", "random seed (results are reproducible for a seed)")
      .option("format", "text", "text | json")
      .option("set", "", kWorkloadSetHelp)
      .option("data-dir", "", "directory holding hw/ and models/");
  return a;
}

nlohmann::json campaign_json(const Args& a, const Scenario* given) {
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  if (given == nullptr && a.positional().size() != 1) throw UsageError("trnsim campaign: expected one workload file");
  const std::string rec = a.choice("recovery", {"auto", "manual"});
  // Every option is parsed before the step is simulated: a usage error never costs a simulation (and is
  // never thrown from a process whose SystemC coroutines have run).
  const double tokens = a.number("tokens", 1e6, 1e15);
  const double mtbf_node_hours = a.number("mtbf-node-hours", 100, 1e8);
  const double storage_gbps = a.number("storage-GBps", 0.01, 1e5);
  const double host_copy_gbps = a.number("host-copy-GBps", 0.01, 1e5);
  const bool detect_set = !a.get("detect-min").empty(), restart_set = !a.get("restart-min").empty();
  const double detect_min = detect_set ? a.number("detect-min", 0, 1e5) : 0;
  const double restart_min = restart_set ? a.number("restart-min", 0, 1e5) : 0;
  const double compile_min = a.number("compile-min", 0, 1e5);
  const double interval_min = a.get("checkpoint-interval") == "auto" ? 0 : a.number("checkpoint-interval", 1, 1e6);
  const int trials = static_cast<int>(a.integer("trials", 2, 100000));
  const auto seed = static_cast<uint64_t>(a.integer("seed", 0, INT64_MAX));
  (void)a.choice("format", {"text", "json"});

  const Scenario s = given != nullptr ? *given : load_scenario_with_set(a.positional()[0], a.get("set"), false);
  auto report = make_report(s, execute_step(s));
  CampaignParams p = campaign_params(s, report["throughput"]["tokens_per_s"].get<double>(), rec == "auto");
  p.tokens = tokens;
  p.mtbf_node_hours = mtbf_node_hours;
  p.storage_gbps = storage_gbps;
  p.async_save = a.has("async-save");
  p.async_stall_s = p.checkpoint_bytes / (static_cast<double>(p.nodes) * host_copy_gbps * 1e9);
  if (detect_set) p.detect_s = 60 * detect_min;
  if (restart_set) p.restart_s = 60 * restart_min;
  p.compile_s = 60 * compile_min;
  p.interval_s = 60 * interval_min;
  p.trials = trials;
  p.seed = seed;
  auto j = campaign_report(p, simulate_campaign(p));
  j["workload"] = s.workload.name;
  j["inputs"]["recovery"] = rec;
  j["inputs"]["hw"] = s.workload.hw;
  return j;
}

int cmd_campaign(const ArgList& argv) {
  Args a = campaign_args();
  if (!a.parse(argv)) return 0;
  const nlohmann::json j = campaign_json(a);
  const nlohmann::json& in = j["inputs"];
  if (a.get("format") == "json") {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format(
      "campaign: {} on {} x {}, {:.3g} tokens at {:.0f} tokens/s ({:.1f} days of useful compute)\n"
      "  node MTBF {:.0f} h -> cluster MTBF {:.1f} h; recovery {} (detect {:.0f} min, restart {:.0f} min, compile {:.0f} min)\n"
      "  checkpoint {:.1f} GB, {} save stalls {:.1f} s; interval {:.1f} min (Young/Daly {:.1f} min)\n\n"
      "goodput            {:6.2f} % +- {:.2f} (95% CI, {} trials)\n"
      "wall clock         {:8.2f} days\n"
      "node-hours         {:10.0f}\n"
      "expected failures  {:8.1f}\n"
      "cost               ${:.0f} on-demand   ${:.0f} reserved\n",
      j["workload"].get<std::string>(), in["nodes"].get<int64_t>(), in["hw"].get<std::string>(), in["tokens"].get<double>(),
      in["tokens_per_s"].get<double>(), j["useful_days"].get<double>(), in["mtbf_node_hours"].get<double>(),
      in["cluster_mtbf_hours"].get<double>(), in["recovery"].get<std::string>(), in["detect_min"].get<double>(),
      in["restart_min"].get<double>(), in["compile_min"].get<double>(), in["checkpoint_gb"].get<double>(),
      in["async_save"].get<bool>() ? "async" : "sync", j["checkpoint_stall_s"].get<double>(),
      j["checkpoint_interval_min"].get<double>(), j["young_daly_interval_min"].get<double>(), 100 * j["goodput"].get<double>(),
      100 * j["goodput_ci95"].get<double>(), in["trials"].get<int>(), j["wall_days"].get<double>(), j["node_hours"].get<double>(),
      j["expected_failures"].get<double>(), j["cost_usd_on_demand"].get<double>(), j["cost_usd_reserved"].get<double>());
  return 0;
}

}  // namespace trnsim
