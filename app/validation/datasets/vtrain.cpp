// vtrain.cpp — the validation adapter of one dataset (dataset_common.hpp has the rules).
// vTrain (Megatron-DeepSpeed on A100, 8 GPUs per node), multi-node and single-node files.
// Stack facts (frameworks.md §2): unfused attention + fused softmax; fp16 mixed precision;
// use_checkpoint true = full recompute; 1F1B; gradients reduced once per step after the
// last micro-batch, not overlapped ("no gradient bucketing"); no TP overlap (--deepspeed
// forces async TP all-reduce off). Assumed (not stated): no
// ZeRO, no sequence parallelism, GPT vocabulary 51200, FFN 4h.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "dataset_common.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim::datasets {
std::vector<ValidationCase> vtrain(const std::string& file, const std::string& dataset) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  for (size_t r = 0; r < t.rows(); ++r) map_row(out, dataset, Metric::IterationTime, r, [&] {
    const int64_t h = inum(t, r, "hidden size"), a = inum(t, r, "attention heads"), L = inum(t, r, "# layers");
    const int64_t seq = inum(t, r, "sequence length"), gpus = count(t, r, "# GPUs");
    const ModelSpec m = megatron_gpt(fmt::format("gpt-h{}-l{}", h, L), L, h, a, 4 * h, seq);
    const int64_t tp = inum(t, r, "tensor parallelism"), pp = inum(t, r, "pipeline parallelism"),
                  dp = inum(t, r, "data parallelism"), mb = inum(t, r, "micro batch");
    ValidationCase c;
    c.dataset = dataset;
    c.row = static_cast<int>(r + 1);
    c.family = "a100";
    c.model_name = m.name;
    c.label = fmt::format("{} {} GPUs TP{} PP{} DP{} mb{}", m.name, gpus, tp, pp, dp, mb);
    c.quantity = Metric::IterationTime;
    c.measured = num(t, r, "iteration time (ms)") / 1000.0;
    build_row(c, [&] {
      const int64_t nodes = std::max<int64_t>(1, gpus / 8);
      Workload w = workload(file, r, m, "vtrain-a100", nodes, tp, pp, dp, mb, inum(t, r, "global batch"), seq);
      if (gpus < 8) w.cores_per_node = gpus;
      w.precision = Precision::MixedBF16;
      w = with_stack(w, stack_profile("megatron-deepspeed"));
      c.has_workload = true;
      c.workload = w;
      c.model = m;
      fill_features(c);
    });
    out.push_back(c);
  });
  return out;
}

}  // namespace trnsim::datasets
