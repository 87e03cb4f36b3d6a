// split_advice.cpp — a simulated pipeline split that evens out the stages (see split_advice.hpp).
#include "split_advice.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>

#include "report.hpp"

namespace trnsim {

std::vector<std::vector<int64_t>> balanced_splits(const Scenario& s, const StepResult& r) {
  const Workload& w = s.workload;
  const auto p = static_cast<int64_t>(r.stages.size());
  if (p < 3 || w.virtual_stages > 1 || !w.pipeline_layout.empty()) return {};  // one program per rank from here
  std::vector<int64_t> layers;
  for (const StageProgram& g : s.plan.stages) layers.push_back(g.num_layers);
  const int64_t total = std::accumulate(layers.begin(), layers.end(), int64_t{0});
  auto busy = [&](int64_t i) { return r.stages[static_cast<size_t>(i)].busy_s(); };
  // Busy time per layer on the middle stages (they hold only layers); the ends' extra work in layers.
  double mid_busy = 0;
  int64_t mid_layers = 0;
  for (int64_t i = 1; i + 1 < p; ++i) mid_busy += busy(i), mid_layers += layers[static_cast<size_t>(i)];
  if (mid_layers == 0 || mid_busy <= 0) return {};
  const double per_layer = mid_busy / static_cast<double>(mid_layers);
  const double extra_first = busy(0) / per_layer - static_cast<double>(layers.front());
  const double extra_last = busy(p - 1) / per_layer - static_cast<double>(layers.back());
  const double target = (static_cast<double>(total) + extra_first + extra_last) / static_cast<double>(p);
  auto ends = [&](double extra, int64_t now, bool move) {
    return move ? std::max<int64_t>(1, std::llround(target - extra)) : now;
  };
  std::vector<std::vector<int64_t>> out;
  for (bool move_first : {true, false}) {
    const int64_t first = ends(extra_first, layers.front(), move_first), last = ends(extra_last, layers.back(), true);
    const int64_t rest = total - first - last;
    if (rest < p - 2) continue;
    std::vector<int64_t> split{first};
    for (int64_t l : balanced_layers(rest, p - 2)) split.push_back(l);
    split.push_back(last);
    if (split != layers && std::find(out.begin(), out.end(), split) == out.end()) out.push_back(split);
  }
  return out;
}

void add_split_advice(StepReport& report, const Scenario& s, const StepResult& r) {
  double best_step = r.step_time_s * (1 - 0.005);  // beat the run by more than 0.5 %
  for (const auto& split : balanced_splits(s, r)) {
    Workload w = s.workload;
    w.pipeline_split = Workload::PipelineSplit::Explicit;
    w.layers_per_stage = split;
    try {
      const Scenario a = make_scenario(w, s.model, s.hw, /*allow_oom=*/true);
      if (!a.fits) continue;
      const StepResult ar = execute_step(a, StepOptions{});
      if (ar.step_time_s >= best_step) continue;
      best_step = ar.step_time_s;
      const StepReport j = build_report(a, ar);
      report.split_advice = SplitAdvice{split, ar.step_time_s, 100 * (ar.step_time_s / r.step_time_s - 1), j.step.balance->imbalance,
                                        j.memory.total,
                                        fmt::format("parallel.pipeline_split=explicit;parallel.layers_per_stage=[{}]", fmt::join(split, ","))};
    } catch (const std::exception&) {
      continue;  // a split the run cannot take (e.g. a stage's memory): not advice
    }
  }
}

}  // namespace trnsim
