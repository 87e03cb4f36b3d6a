// cmd_sweep.cpp — the `sweep` and `merge` subcommands.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <thread>

#include <filesystem>

#include "trnsim/atomic_file.hpp"
#include "cli_args.hpp"
#include "command_api.hpp"
#include "fault_injection.hpp"
#include "platform.hpp"
#include "intervals.hpp"
#include "ranking.hpp"
#include "report.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "scenario.hpp"
#include "commands.hpp"
#include "sweep.hpp"
#include "trnsim/json_reader.hpp"
#include "hw_spec.hpp"
#include "stack_profile.hpp"
#include "workload_set.hpp"

#include <map>

namespace trnsim {
namespace {

// PREFIX.{json,csv,md} refused before the work when they cannot be written (a sweep may run for hours).
void check_outputs(const std::string& prefix) {
  for (const char* ext : {".json", ".csv", ".md"}) check_writable(prefix + ext);
}

void write_outputs(const nlohmann::json& swept, const std::string& prefix) {
  nlohmann::json doc = swept;
  add_top_order(doc, "rows", load_validation_results(/*with_intervals=*/false).ranking);  // how far to trust the order of the best two (ranking.hpp)
  OutputSet outputs;
  outputs.add(prefix + ".json", doc.dump(2) + "\n");
  outputs.add(prefix + ".csv", sweep_csv(doc));
  outputs.add(prefix + ".md", sweep_markdown(doc));
  outputs.commit();
  std::cout << fmt::format("wrote {0}.json {0}.csv {0}.md\n", prefix);
}

void print_summary(const nlohmann::json& doc) {
  std::cout << fmt::format("{} enumerated, {} simulated, {} failed", doc["enumerated"].get<size_t>(),
                           doc["rows"].size() + doc["failed"].size(), doc["failed"].size());
  if (doc["stats"].contains("configs_per_s"))
    std::cout << fmt::format(", {:.1f} configs/s with {} workers", doc["stats"]["configs_per_s"].get<double>(),
                             doc["stats"]["workers"].get<int>());
  std::cout << "\n";
  if (!doc["best"].is_null())
    std::cout << fmt::format("best: {} — {:.0f} tokens/s, {:.4f} $/M tokens\n", doc["best"]["id"].get<std::string>(),
                             doc["best"]["tokens_per_s"].get<double>(),
                             doc["best"]["usd_per_million_tokens_on_demand"].get<double>());
}

// A sweep with failed configurations is not a clean result: exit 1 (they are in every output)
// unless the caller accepts that with --allow-failures.
int failures_exit(const nlohmann::json& doc, bool allowed) {
  const size_t n = doc["failed"].size();
  if (n == 0 || allowed) return 0;
  std::cerr << fmt::format("error: {} configuration(s) failed (see the \"failed\" section of the outputs, e.g. {}: {}); "
                           "pass --allow-failures to accept a partial sweep\n",
                           n, doc["failed"][0]["id"].get<std::string>(), doc["failed"][0]["error"].get<std::string>());
  return 1;
}

}  // namespace

Args sweep_args() {
  Args a("sweep", "--model M --hw H[,H...] --nodes N[,N...] [options]",
         "Enumerate every valid parallel layout (TP dividing heads within a node, PP dividing layers, DP the\n"
         "rest; micro-batch, recompute, ZeRO, fusion), drop those that do not fit (reasons counted), simulate\n"
         "the rest in worker processes, and write CSV, JSON and Markdown sorted by throughput with the Pareto\n"
         "front of time-to-train vs cost marked.");
  const unsigned hc = std::thread::hardware_concurrency();
  a.option("model", "", "model name (models/<name>.json)")
      .option("hw", "", "comma-separated instance names (hw/<name>.json)")
      .option("nodes", "", "comma-separated node counts")
      .option("seq", "4096", "sequence length (tokens)")
      .option("global-batch", "1024", "global batch (sequences)")
      .option("micro-batches", "1,2,4", "micro-batch sizes to try")
      .option("precision", "bf16", "bf16 (BF16 with stochastic rounding where the chip has it, else mixed-bf16), fp8, mxfp8 or nvfp4 (a format one of the --hw chips lacks is an error)")
      .option("stack", "", "training-stack profile (stacks/<name>.json, e.g. torchtitan, megatron-core, nxd) applied to every layout: the fields it sets win over the enumerated ZeRO / fusion / SP values")
      .option("hw-set", "", "what-if edits of every --hw file, e.g. \"collectives.measured_table=my_nccl_tests.csv\" (your cluster's measured collectives) or \"inter_node.nic_Gbps_per_node=6400\"")
      .option("lora-rank", "0", "fine-tune with LoRA adapters of this rank on every linear layer, the base frozen (0: full training; dense decoders only)")
      .option("train-tokens", "1e12", "tokens of the training run for time/cost-to-train")
      .option("workers", std::to_string(hc ? hc : 1), "worker processes in parallel")
      .option("timeout", "120", "seconds one configuration may take; its worker is then killed, the configuration retried alone once, then recorded as failed")
      .option("shard", "1/1", "run only slice K of N (K/N) of the configurations; combine with `trnsim merge`")
      .option("op-cache", "", "shared op-timing cache file (read by every worker, extended at the end)")
      .option("out", "sweep", "output prefix: writes PREFIX.json, PREFIX.csv, PREFIX.md")
      .option("data-dir", "", "directory holding hw/ and models/")
      .flag("allow-failures", "exit 0 even if configurations failed (they are listed in every output either way)");
  return a;
}

SweepOptions sweep_options(const Args& a) {
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  for (const char* req : {"model", "hw", "nodes"})
    if (a.get(req).empty()) throw UsageError(fmt::format("trnsim sweep: --{} is required; see --help", req));
  SweepOptions o;
  o.space.model = a.get("model");
  o.space.seq_len = a.integer("seq", 1, 1 << 20);
  o.space.global_batch = a.integer("global-batch", 1, 1 << 24);
  o.space.micro_batches = a.integers("micro-batches", 1, 1 << 16);
  o.hws = a.words("hw");
  check_data_names(a);
  const std::string prec = a.get("precision");
  if (prec != "bf16") {
    const std::map<std::string, Precision> low = {{"fp8", Precision::FP8}, {"mxfp8", Precision::MXFP8}, {"nvfp4", Precision::NVFP4}};
    const auto it = low.find(prec);
    if (it == low.end())
      throw UsageError(fmt::format("trnsim sweep: --precision: \"{}\" is not a precision (bf16, fp8, mxfp8, nvfp4)", prec));
    o.low_precision = it->second;
    for (const auto& h : o.hws) {
      const std::string path = hw_path(h);
      if (!std::filesystem::exists(path)) continue;  // named by the sweep's own unknown-hw error
      if (!load_hw_spec(path).tensor.supports(linear_dtype(it->second)))
        throw UsageError(fmt::format("trnsim sweep: --precision {}: {} has no {} GEMMs (no tensor.peak_TFLOPS_per_chip.{}); "
                                     "use bf16 or drop it from --hw", prec, h, prec, prec));
    }
  }
  o.space.lora_rank = a.integer("lora-rank", 0, 1 << 16);
  check_lora_model("sweep", o.space.model, o.space.lora_rank);
  if (!a.get("stack").empty()) {
    o.space.stack = a.get("stack");
    try {
      load_stack_profile(stack_lookup()(o.space.stack));
    } catch (const ConfigError& e) {
      throw UsageError(fmt::format("trnsim sweep: --stack: {}", e.what()));
    }
  }
  o.nodes = a.integers("nodes", 1, 100000);
  o.workers = static_cast<int>(a.integer("workers", 1, 256));
  o.timeout_s = a.number("timeout", 1e-4, 86400);
  o.train_tokens = a.number("train-tokens", 1e6, 1e16);
  o.op_cache = a.get("op-cache");
  o.space.hw_set = a.get("hw-set");
  for (const std::string& h : o.hws)  // a bad edit is an error now, not in every worker
    if (!o.space.hw_set.empty()) (void)load_hw_with_edits(h, o.space.hw_set);
  if (a.has("op-cache")) require_op_cache_file(o.op_cache, "--op-cache");
  if (std::sscanf(a.get("shard").c_str(), "%d/%d", &o.shard_index, &o.shard_count) != 2 || o.shard_index < 1 ||
      o.shard_index > o.shard_count)
    throw UsageError("trnsim sweep: --shard must be K/N with 1 <= K <= N");
  o.progress = isatty(2);
  return o;
}

int cmd_sweep(const ArgList& argv) {
  Args a = sweep_args();
  if (!a.parse(argv)) return 0;
  const SweepOptions options = sweep_options(a);
  check_outputs(a.get("out"));
  auto doc = run_sweep(options);
  write_outputs(doc, a.get("out"));
  print_summary(doc);
  return failures_exit(doc, a.has("allow-failures"));
}

int cmd_run_batch(const ArgList& argv) {
  Args a("run-batch", "LIST.txt --outdir DIR [options]",
         "Worker side of `trnsim sweep`: run each workload file listed (one per line) in this process and\n"
         "write DIR/<name>.report.json (the report) or DIR/<name>.err (the one-line error). SystemC elaborates once\n"
         "for the whole batch; the sweep re-runs a failed batch one configuration per process.");
  a.option("outdir", "", "output directory").option("op-cache", "", "op-timing cache file (read; new ops go to FILE.<pid>)")
      .option("hw-set", "", "what-if edits of every workload's hw file (as `trnsim run --hw-set`)")
      .option("data-dir", "", "directory holding hw/ and models/")
      .option("heartbeat", "", "file rewritten (with the workload's name) before each workload: the sweep's per-configuration time-out");
  if (!a.parse(argv)) return 0;
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  if (a.positional().size() != 1 || a.get("outdir").empty()) throw UsageError("trnsim run-batch: LIST.txt --outdir DIR");
  OpTimer& timer = Platform::instance().timer();
  if (a.has("op-cache")) {
    require_op_cache_file(a.get("op-cache"), "--op-cache");
    timer.load_cache(a.get("op-cache"));
  }
  const size_t before = timer.simulated();
  std::ifstream list(a.positional()[0]);
  std::string file;
  while (std::getline(list, file)) {
    if (file.empty()) continue;
    const std::string base = a.get("outdir") + "/" + std::filesystem::path(file).stem().string();
    if (a.has("heartbeat")) std::ofstream(a.get("heartbeat"), std::ios::trunc) << file << "\n";
    try {
      Scenario s = a.has("hw-set") ? load_scenario_with_set(file, "", false, a.get("hw-set")) : load_scenario(file);
      maybe_inject_fault(s.workload.name);
      // Written whole once the simulation has finished: the sweep takes its existence as "done".
      write_file_atomically(base + ".report.json", make_report(s, execute_step(s)).dump() + "\n",
                            Durability::RenameOnly);
    } catch (const ConfigError& e) {
      write_file_atomically(base + ".err", std::string(e.what()) + "\n", Durability::RenameOnly);
    }
  }
  if (a.has("op-cache") && timer.simulated() > before) timer.save_cache(a.get("op-cache") + "." + std::to_string(getpid()));
  return 0;
}

int cmd_merge(const ArgList& argv) {
  Args a("merge", "PART.json... [--out PREFIX]", "Combine sweep shards (JSON outputs of `trnsim sweep --shard`) into one.");
  a.option("out", "sweep", "output prefix").flag("allow-failures", "exit 0 even if configurations failed");
  if (!a.parse(argv)) return 0;
  if (a.positional().empty()) throw UsageError("trnsim merge: give the shard JSON files");
  std::vector<nlohmann::json> parts;
  for (const auto& f : a.positional()) parts.push_back(load_json_file(f));
  check_shards(a.positional(), parts);
  check_outputs(a.get("out"));
  auto doc = merge_sweeps(parts);
  write_outputs(doc, a.get("out"));
  print_summary(doc);
  return failures_exit(doc, a.has("allow-failures"));
}

}  // namespace trnsim
