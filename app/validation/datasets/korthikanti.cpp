// korthikanti.cpp — the validation adapter of one dataset (dataset_common.hpp has the rules).
// Korthikanti et al. 2022 on NVIDIA Selene (DGX A100 80GB), Megatron-LM mid-2022.
// Stack facts (frameworks.md §1): unfused attention with fused softmax; fp16 with fp32 main
// params and grads (mixed precision; fp16 costs what bf16 does); DP 1; 1F1B, interleaved
// where the row says so; "full" = full-layer recompute, "attn_only" = selective; backward TP
// communication overlapped with weight-gradient GEMMs (async TP all-reduce, default-on since
// 2021-09; with SP the all-gather/reduce-scatter overlap); forward TP collectives exposed.
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
std::vector<ValidationCase> korthikanti(const std::string& file) {
  const CsvTable t = CsvTable::load(file);
  std::vector<ValidationCase> out;
  for (size_t r = 0; r < t.rows(); ++r) {
    const std::string item = t.at(r, "paper_item");
    const int64_t seq = inum(t, r, "seq_len");
    const ModelSpec m = megatron_gpt(t.at(r, "model"), inum(t, r, "layers"), inum(t, r, "hidden"), inum(t, r, "heads"),
                                     inum(t, r, "ffn"), seq);
    const int64_t gpus = inum(t, r, "gpus"), tp = inum(t, r, "TP"), pp = inum(t, r, "PP"), dp = inum(t, r, "DP");
    Workload w = workload(file, r, m, "dgx-a100-80g", gpus / 8, tp, pp, dp, inum(t, r, "micro_batch"),
                          inum(t, r, "global_batch"), seq);
    w.precision = Precision::MixedBF16;
    w = with_stack(w, stack_profile("megatron-lm-2022"));
    w.sequence_parallel = t.at(r, "sequence_parallel") == "yes";
    const std::string rc = t.at(r, "activation_recompute");
    w.checkpointing = rc == "full" ? Checkpointing::Full : rc == "attn_only" ? Checkpointing::Selective : Checkpointing::None;
    w.virtual_stages = inum(t, r, "pipeline_interleaving");
    ValidationCase c;
    c.dataset = "korthikanti2022";
    c.row = static_cast<int>(r + 1);
    c.family = "a100";
    c.model_name = m.name;
    c.label = fmt::format("{} {} TP{} PP{} VP{}", m.name, t.at(r, "mode_label"), tp, pp, w.virtual_stages);
    c.has_workload = true;
    c.workload = w;
    c.model = m;
    fill_features(c);
    if (contains(item, "Table 5")) {
      c.quantity = Metric::IterationTime;
      c.measured = num(t, r, "measured_iteration_time_s");
      out.push_back(c);
    } else if (contains(item, "Figure 1")) {
      c.quantity = Metric::StatesGiB;
      c.measured = num(t, r, "measured_params_grads_optimizer_GiB");
      out.push_back(c);
      c.quantity = Metric::ActivationsGiB;
      c.measured = num(t, r, "measured_activations_GiB");
      out.push_back(c);
    } else if (contains(item, "Figure 7")) {
      c.quantity = Metric::ActivationPctOfNone;
      c.measured = num(t, r, "measured_activation_pct_of_none");
      out.push_back(c);
    } else {
      throw ConfigError(fmt::format("{}: row {}: unknown paper_item \"{}\"; extend the mapping", file, r + 1, item));
    }
  }
  return out;
}

}  // namespace trnsim::datasets
