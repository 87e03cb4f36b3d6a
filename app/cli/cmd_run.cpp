// cmd_run.cpp — the `run` subcommand: parse options, simulate the step, write the report (and trace).
#include <fmt/format.h>

#include <filesystem>
#include <sstream>
#include <iostream>
#include <map>

#include <unistd.h>

#include "trnsim/atomic_file.hpp"
#include "cli_args.hpp"
#include "command_api.hpp"
#include "fault_injection.hpp"
#include "platform.hpp"
#include "commands.hpp"
#include "intervals.hpp"
#include "memory_band.hpp"
#include "report.hpp"
#include "scaling.hpp"
#include "sensitivity.hpp"
#include "split_advice.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "versus.hpp"
#include "paired_ratios.hpp"
#include "workload_set.hpp"

namespace trnsim {


int cmd_run(const ArgList& argv) {
  Args a("run", "WORKLOAD.json [options]",
         "Simulate one training step of a workload and report step time, breakdown, throughput,\n"
         "MFU, weak-scaling efficiency against the same replica on one node, memory per core and cost\n"
         "per token.");
  a.option("format", "text", "output format: text | json | md")
      .option("trace", "", "write a Chrome/Perfetto trace-event JSON of the step to FILE")
      .option("output", "", "write the report to FILE instead of stdout")
      .option("op-cache", "", "op-timing cache file: read before, extended after (shared by sweep workers)")
      .option("set", "", kWorkloadSetHelp)
      .option("hw-set", "", kHwSetHelp)
      .flag("no-scaling", "skip the weak-scaling baseline (a second, one-node step; its efficiency is left out)")
      .flag("no-split-advice", "skip the pipeline-split advice (where the first or last stage is busier than the rest, up "
                               "to two more steps simulate splits that even them out)")
      .flag("sensitivity", "which hardware resource bounds the step: re-simulate it with each one (tensor engines, vector "
                           "engines, memory bandwidth, scale-up links, network, host per-op cost, latencies) better by "
                           "--sensitivity-pct and report each one's step time and elasticity (7 more steps)")
      .option("sensitivity-pct", "", "how much better each resource is made for --sensitivity, in % (0.1 to 100; "
                                     "default 10; giving it turns --sensitivity on)")
      .option("vs", "", "compare with a what-if: the same step with these workload edits on top of --set's (syntax as --set, "
                        "e.g. \"parallel.tp=4;parallel.dp=1024\"); every headline figure for both, with its change (the variant "
                        "gets no trace, scaling baseline, split advice or sensitivity of its own)")
      .option("vs-hw", "", "compare with a what-if of the hardware: the hw file with these edits on top of --hw-set's "
                           "(syntax as --hw-set); may be given with --vs")
      .option("data-dir", "", "directory holding hw/ and models/ (default: the source tree)");
  if (!a.parse(argv)) return 0;
  if (a.positional().size() != 1) throw UsageError("trnsim run: expected exactly one workload file; see `trnsim run --help`");
  const std::string fmt_name = a.choice("format", {"text", "json", "md"});
  const double sensitivity = sensitivity_factor(a);
  if (a.has("data-dir")) set_data_dir(a.get("data-dir"));
  for (const char* out : {"output", "trace"})  // an output that cannot be written is refused before the step runs
    if (a.has(out)) check_writable(a.get(out));
  Scenario s = load_scenario_with_set(a.positional()[0], a.get("set"), /*allow_oom=*/true, a.get("hw-set"));
  // Over the usable HBM: refused, unless by less than trnsim's memory error (memory_band.hpp), when it
  // is predicted with a warning on stderr and in the report's notes.
  if (const std::string warning = memory_warning_or_refusal(s); !warning.empty()) {
    s.notes.push_back(warning);
    std::cerr << warning << "\n";
  }
  // The what-if (--vs / --vs-hw), read before anything runs so that a bad edit fails at once.
  const bool versus = a.has("vs") || a.has("vs-hw");
  Scenario variant;
  if (versus)
    variant = load_scenario_with_edits(a.positional()[0], {{"--set", a.get("set")}, {"--vs", a.get("vs")}},
                                       {{"--hw-set", a.get("hw-set")}, {"--vs-hw", a.get("vs-hw")}}, /*allow_oom=*/true);
  maybe_inject_fault(s.workload.name);
  StepOptions opt;
  opt.trace = a.has("trace");
  OpTimer& timer = Platform::instance().timer();
  if (a.has("op-cache")) {
    require_op_cache_file(a.get("op-cache"), "--op-cache");
    timer.load_cache(a.get("op-cache"));
  }
  const size_t cached_before = timer.simulated();
  StepResult r = execute_step(s, opt);
  StepReport report = build_report(s, r);
  const ValidationResults validation = load_validation_results();  // read once: both steps' intervals, --vs's ordering
  if (validation.intervals) add_interval(report, s, *validation.intervals);
  if (!a.has("no-scaling")) add_scaling(report, s);
  if (!a.has("no-split-advice")) add_split_advice(report, s, r);
  if (sensitivity > 0) add_sensitivity(report, s, r, sensitivity);
  if (versus) {
    const std::string edits = fmt::format("{}{}", a.has("vs") ? fmt::format("--vs \"{}\"", a.get("vs")) : "",
                                          a.has("vs-hw") ? fmt::format("{}--vs-hw \"{}\"", a.has("vs") ? " " : "", a.get("vs-hw")) : "");
    if (const std::string refusal = variant_refusal(variant); !refusal.empty()) {
      add_versus_refusal(report, edits, refusal);
    } else {
      const StepResult vr = execute_step(variant, StepOptions{});
      StepReport vrep = build_report(variant, vr);
      if (validation.intervals) add_interval(vrep, variant, *validation.intervals);
      add_versus(report, vrep, edits, a.has("vs-hw"));
      add_versus_checks(report, validation);
    }
  }
  // The cache file is extended with what this run simulated (and so rewritten whole where it was damaged).
  if (a.has("op-cache") && timer.simulated() > cached_before) timer.save_cache(a.get("op-cache"));
  OutputSet outputs;  // the trace and the report, both or neither
  if (opt.trace) {
    outputs.add(a.get("trace"), step_trace_json(s, r));
    if (r.micro_batches_simulated < s.plan.micro_batches)
      std::cerr << fmt::format("note: the trace in {} shows {} of {} micro-batches; the rest of the step was extrapolated\n",
                               a.get("trace"), r.micro_batches_simulated, s.plan.micro_batches);
  }
  const std::string text = render(report, fmt_name);
  if (a.has("output")) outputs.add(a.get("output"), text);
  outputs.commit();
  if (!a.has("output")) std::cout << text;
  return 0;
}

}  // namespace trnsim
