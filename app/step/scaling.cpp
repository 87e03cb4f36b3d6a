// scaling.cpp — the run's weak-scaling efficiency against its one-node (or one-replica) baseline.
#include "scaling.hpp"

#include <fmt/format.h>

#include <exception>

#include "report.hpp"

namespace trnsim {

std::optional<Workload> one_node_baseline(const Workload& w, int64_t cores_per_node, std::string& why) {
  const int64_t replica = w.tp * w.cp * w.pp;
  for (int64_t d = 1; d < w.dp; ++d) {
    if (w.dp % d != 0) continue;
    if ((replica * d) % cores_per_node != 0) continue;  // whole nodes only
    if ((w.tp * w.cp * d) % (w.ep * w.etp) != 0) continue;  // the expert grid must still fit a stage's ranks
    Workload b = w;
    b.dp = d;
    b.nodes = replica * d / cores_per_node;
    b.global_batch = w.micro_batch * w.grad_accum() * d;
    b.name = w.name + " (one-node baseline)";
    return b;
  }
  if (w.dp == 1) why = "data parallelism is 1: nothing to scale";
  else if (replica * w.dp <= cores_per_node) why = "the run is one node already: nothing to scale";
  else
    why = fmt::format("no smaller data-parallel size fills whole nodes of {} cores{}", cores_per_node,
                      w.ep * w.etp > 1 ? " and holds the expert grid" : "");
  return std::nullopt;
}

void add_scaling(StepReport& report, const Scenario& s) {
  std::string why;
  ScalingFigures sc;
  const auto base = one_node_baseline(s.workload, s.hw.cores_per_node(), why);
  if (!base) {
    sc.unavailable = why;
    report.scaling = sc;
    return;
  }
  try {
    const Scenario bs = make_scenario(*base, s.model, /*allow_oom=*/true);
    const StepResult br = execute_step(bs, StepOptions{});
    // Per-core throughput as the reports define it (build_report), the run's and the baseline's.
    const double one = build_report(bs, br).throughput.tokens_per_s_per_core;
    sc.efficiency = report.throughput.tokens_per_s_per_core / one;
    sc.baseline = {bs.workload.dp, bs.workload.nodes, bs.workload.devices(), bs.workload.global_batch, br.step_time_s, one, bs.fits};
  } catch (const std::exception& e) {
    sc = ScalingFigures{};
    sc.unavailable = fmt::format("the one-node baseline (DP {}) is not a valid layout: {}", base->dp, e.what());
  }
  report.scaling = sc;
}

}  // namespace trnsim
