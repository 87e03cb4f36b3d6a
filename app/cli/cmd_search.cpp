// cmd_search.cpp — the `search` subcommand: exact top-K layouts and Pareto front
// by branch-and-bound over the whole layout space (search.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>

#include "cli_args.hpp"
#include "command_api.hpp"
#include "commands.hpp"
#include "intervals.hpp"
#include "ranking.hpp"
#include "scenario.hpp"
#include "search.hpp"
#include "trnsim/fork_map.hpp"
#include "trnsim/atomic_file.hpp"

namespace trnsim {

Args search_args() {
  Args a("search", "--model M --hw H[,H...] --nodes N[,N...] [options]",
         "Find the top-K layouts by throughput and by cost to train, the Pareto front of time vs cost, and the fastest\n"
         "layout of each hardware at each node count (the clusters where nothing fits named), over\n"
         "every layout: TP any divisor of the heads (within or across nodes), PP any divisor of the layers, virtual\n"
         "stages, every micro-batch dividing the local batch, recompute, ZeRO 0-3 (3 = FSDP), SP, TP and DP overlap, fusion,\n"
         "attention kernel, precision (BF16 unless --axes lists fp8 / mxfp8 / nvfp4; a format a chip lacks is skipped\n"
         "for it). Memory is exact for every layout; a layout is simulated only if its lower-bound step time\n"
         "could still enter a top-K, the front or its cluster's best, so the answer equals exhaustive simulation\n"
         "(--exhaustive checks it).");
  a.option("model", "", "model name (models/<name>.json)")
      .option("hw", "", "comma-separated instance names (hw/<name>.json)")
      .option("nodes", "", "comma-separated node counts")
      .option("seq", "4096", "sequence length (tokens)")
      .option("global-batch", "1024", "global batch (sequences)")
      .option("lora-rank", "0", "fine-tune with LoRA adapters of this rank on every linear layer, the base frozen "
                                "(0: full training; dense decoders only)")
      .option("document-tokens", "0", "tokens per packed document: attention runs within each (0: one document per "
                                      "sequence; excludes CP)")
      .option("axes", "", "limit axes, e.g. \"tp=1,2,4;zero=1;attention=flash;recompute=none,selective\" (axes: "
                          "tp pp vs mb recompute zero sp tp_overlap dp_overlap fused attention precision=bf16,fp8,mxfp8,nvfp4 ep etp cp ep_overlap; "
                          "etp, cp and ep_overlap only when listed)")
      .option("stack", "", "training-stack profile (stacks/<name>.json, e.g. torchtitan, megatron-core, nxd): the axes it "
                           "sets (attention, fused, sp, tp_overlap, dp_overlap, zero) take its values unless --axes names "
                           "them, and its other fields apply to every layout")
      .option("hw-set", "", "what-if edits of every --hw file, e.g. \"inter_node.nic_Gbps_per_node=3200\" (a hypothetical "
                            "chip or cluster; dotted JSON paths as `trnsim run --set`; each edited file is checked like a file)")
      .option("top-k", "20", "rows in each top list")
      .option("train-tokens", "1e12", "tokens of the training run for time and cost to train")
      .option("threads", std::to_string(online_cpus()), "threads building plan shapes and bounds (default: every online CPU; "
                                                        "step simulations run on one, as SystemC has one kernel per process)")
      .flag("exhaustive", "simulate every layout that fits (slow; the exactness reference)")
      .flag("quiet", "no progress lines on stderr")
      .option("out", "search", "output prefix: writes PREFIX.json and PREFIX.md")
      .option("data-dir", "", "directory holding hw/ and models/");
  return a;
}

SearchOptions search_options(const Args& a) {
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  for (const char* req : {"model", "hw", "nodes"})
    if (a.get(req).empty()) throw UsageError(fmt::format("trnsim search: --{} is required; see --help", req));
  SearchOptions o;
  o.space.model = a.get("model");
  o.space.hws = a.words("hw");
  check_data_names(a);
  o.space.nodes = a.integers("nodes", 1, 100000);
  o.space.seq_len = a.integer("seq", 1, 1 << 20);
  o.space.global_batch = a.integer("global-batch", 1, 1 << 24);
  o.space.axes = parse_axes(a.get("axes"));
  o.space.lora_rank = a.integer("lora-rank", 0, 1 << 16);
  o.space.document_tokens = a.integer("document-tokens", 0, o.space.seq_len);
  if (o.space.document_tokens == o.space.seq_len) o.space.document_tokens = 0;  // one document per sequence
  check_lora_model("search", o.space.model, o.space.lora_rank);
  if (!a.get("stack").empty()) {
    try {
      use_stack(o.space, a.get("stack"), stack_lookup());
    } catch (const ConfigError& e) {
      throw UsageError(fmt::format("trnsim search: --stack: {}", e.what()));
    }
  }
  o.hw_set = a.get("hw-set");
  o.top_k = static_cast<size_t>(a.integer("top-k", 1, 10000));
  o.train_tokens = a.number("train-tokens", 1e6, 1e16);
  o.exhaustive = a.has("exhaustive");
  o.threads = static_cast<int>(a.integer("threads", 1, 1024));
  o.progress = !a.has("quiet");
  return o;
}

// Each listed layout's 90% interval: the rule of `trnsim run` and `trnsim
// compare` (intervals.hpp), from results/validation.json's left-out residuals for the layout's
// hardware, with its parameter term where that can widen it (the row's workload re-simulated);
// no interval when that file is absent (a tree without validation results). The rows' workloads
// are dropped from the output afterwards.
namespace {
void add_intervals(nlohmann::json& doc, const std::optional<IntervalModel>& intervals) {
  const IntervalModel* model = intervals ? &*intervals : nullptr;
  std::map<std::string, nlohmann::json> by_id;  // a layout listed twice gets one interval
  for (const char* list : {"top_by_throughput", "top_by_cost", "pareto", "best_by_cluster"})
    for (auto& r : doc[list]) {
      if (model) {
        const std::string id = r["id"].get<std::string>();
        auto it = by_id.find(id);
        if (it == by_id.end()) {
          const double t = r["step_time_s"].get<double>();
          const Interval iv = model->for_scenario(scenario_from_json(r["workload"], "search row " + id), t, true);
          it = by_id.emplace(id, interval_json(iv, t, r["tokens_per_s"].get<double>())).first;
        }
        r["interval"] = it->second;
      }
      r.erase("workload");
    }
}
}  // namespace

nlohmann::json search_checked(const SearchOptions& options) {
  SearchOptions o = options;
  if (const auto cp = o.space.axes.find("cp"); cp != o.space.axes.end()) {
    const auto& cps = cp->second;
    if (std::none_of(cps.begin(), cps.end(), [&](int64_t c) { return o.space.seq_len % (2 * c) == 0; }))
      throw UsageError(fmt::format("trnsim search: --axes cp: no listed degree splits the sequence of {} tokens into 2 x cp "
                                   "equal chunks (context parallelism's load balancing); list a cp with 2 x cp dividing {}",
                                   o.space.seq_len, o.space.seq_len));
  }
  o.keep_workloads = !validation_results_file().empty();  // for the intervals' parameter term
  nlohmann::json doc = run_search(o);
  if (doc["counts"]["enumerated"].get<size_t>() == 0)
    throw UsageError("trnsim search: the space is empty: no layout of these --nodes and --axes passes the divisibility "
                     "checks (TP dividing the heads and a node, PP the layers, DP the global batch, 2 x CP the sequence); widen them");
  const ValidationResults validation = load_validation_results();
  add_intervals(doc, validation.intervals);
  add_top_order(doc, "top_by_throughput", validation.ranking);  // how far to trust the order of the best two (ranking.hpp)
  return doc;
}

int cmd_search(const ArgList& argv) {
  Args a = search_args();
  if (!a.parse(argv)) return 0;
  const SearchOptions options = search_options(a);
  const std::string prefix = a.get("out");
  for (const char* ext : {".json", ".md"}) check_writable(prefix + ext);  // before the search, which may take long
  const nlohmann::json doc = search_checked(options);
  OutputSet outputs;
  outputs.add(prefix + ".json", doc.dump(2) + "\n");
  outputs.add(prefix + ".md", search_markdown(doc));
  outputs.commit();
  const auto& c = doc["counts"];
  std::cout << fmt::format("{} layouts enumerated, {} fit, {} simulated, {} bounded out; {:.1f} CPU-s ({:.0f} layouts per CPU-s)\n",
                           c["enumerated"].get<size_t>(), c["fits"].get<size_t>(), c["simulated"].get<size_t>(),
                           c["bounded_out"].get<size_t>(), doc["stats"]["cpu_s"].get<double>(),
                           doc["stats"]["layouts_per_cpu_s"].get<double>());
  if (!doc["top_by_throughput"].empty())
    std::cout << fmt::format("fastest: {} ({:.0f} tokens/s); cheapest: {} (${:.0f} to train)\n",
                             doc["top_by_throughput"][0]["id"].get<std::string>(), doc["top_by_throughput"][0]["tokens_per_s"].get<double>(),
                             doc["top_by_cost"][0]["id"].get<std::string>(), doc["top_by_cost"][0]["usd_to_train_on_demand"].get<double>());
  if (doc["best_by_cluster"].size() > 1)
    for (const auto& r : doc["best_by_cluster"])
      std::cout << fmt::format("  fastest on {} x {}: {} ({:.0f} tokens/s{}, ${:.0f} to train)\n", r["nodes"].get<int64_t>(),
                               r["hw"].get<std::string>(), r["id"].get<std::string>(), r["tokens_per_s"].get<double>(),
                               r.contains("scaling_vs_fewest_nodes")
                                   ? fmt::format(", {:.1f} % of the per-node throughput on {}",
                                                 100 * r["scaling_vs_fewest_nodes"]["efficiency"].get<double>(),
                                                 nodes_text(r["scaling_vs_fewest_nodes"]["nodes"].get<int64_t>()))
                                   : "",
                               r["usd_to_train_on_demand"].get<double>());
  for (const auto& u : doc["clusters_without_a_fitting_layout"])
    std::cout << fmt::format("  no layout fits on {} x {} ({} tried)\n", u["nodes"].get<int64_t>(), u["hw"].get<std::string>(),
                             u["enumerated"].get<int64_t>());
  std::cout << fmt::format("wrote {0}.json {0}.md\n", prefix);
  if (c["fits"].get<size_t>() == 0) {
    std::cerr << fmt::format("error: none of the {} layouts fits in memory (see the rejected counts in {}.md); add nodes, "
                             "or allow ZeRO, recompute or more TP/PP in --axes\n", c["enumerated"].get<size_t>(), prefix);
    return 1;
  }
  if (c["bound_violations"].get<size_t>() > 0) {
    std::cerr << fmt::format("error: the step-time lower bound exceeded the simulated time on {} layouts (a bug: the "
                             "pruned result may be wrong)\n", c["bound_violations"].get<size_t>());
    return 3;
  }
  return 0;
}

}  // namespace trnsim
