// layout_rules.cpp — which layouts a model admits (see layout_rules.hpp).
#include "layout_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trnsim/error.hpp"

namespace trnsim {

std::string tp_problem(const ModelSpec& m, int64_t tp) {
  if (m.heads % tp != 0)
    return fmt::format("tp {} does not divide the {} attention heads of {}; use a divisor of {}", tp, m.heads, m.name, m.heads);
  if (m.kv_heads % tp != 0 && tp % m.kv_heads != 0)
    return fmt::format("tp {} and kv_heads {} of {} must divide one another", tp, m.kv_heads, m.name);
  if (m.ffn % tp != 0) return fmt::format("tp {} does not divide FFN size {}", tp, m.ffn);
  if (m.mamba.active() && (m.mamba.heads % tp != 0 || m.mamba.groups % tp != 0))
    return fmt::format("tp {} must divide the {} Mamba-2 heads and {} groups of {}", tp, m.mamba.heads, m.mamba.groups, m.name);
  return "";
}

std::optional<std::pair<std::string, std::string>> expert_grid_problem(const Degrees& d) {
  // Megatron-Core's expert grid (ETP x EP x expert DP) re-arranges one stage's TP x CP x DP ranks.
  const int64_t dense_ranks = d.dense_ranks();
  if (dense_ranks % d.ep != 0)
    return std::pair<std::string, std::string>{
        "ep", fmt::format("ep {} must divide tp x cp x dp = {} (expert-parallel ranks come from the TP, CP and DP ranks "
                          "of one pipeline stage)", d.ep, dense_ranks)};
  if (dense_ranks % (d.ep * d.etp) != 0)
    return std::pair<std::string, std::string>{
        "etp", fmt::format("ep x etp = {} x {} must divide tp x cp x dp = {} (the expert grid re-arranges the TP, CP and DP "
                           "ranks of one pipeline stage); pick an etp dividing {}", d.ep, d.etp, dense_ranks, dense_ranks / d.ep)};
  return std::nullopt;
}

void check_layout(const ModelSpec& m, const Workload& w) {
  auto fail = [&](const std::string& path, const std::string& msg) {
    throw ConfigError(config_message(w.file, path, msg));
  };
  if (const std::string why = tp_problem(m, w.tp); !why.empty()) fail("/parallel/tp", why);
  if (w.bf16_first_layers + w.bf16_last_layers > m.layers)
    fail("/bf16_layers", fmt::format("first {} + last {} BF16 blocks exceed the {} layers of {}; keep their sum at most {}",
                                     w.bf16_first_layers, w.bf16_last_layers, m.layers, m.name, m.layers));
  if (m.hybrid() && w.checkpointing == Checkpointing::OpSelective)
    fail("/checkpointing", "per-op selective checkpointing is modelled for standard blocks only; use none, selective or full");
  if (m.hybrid() && w.cp > 1)
    fail("/parallel/cp", "context parallelism of Mamba-2 layers is not modelled; use cp 1");
  if (w.ep > 1 && !m.moe.active())
    fail("/parallel/ep", fmt::format("ep {} but {} has no experts (not a MoE model); set ep 1", w.ep, m.name));
  if (m.moe.active() && m.moe.experts % w.ep != 0)
    fail("/parallel/ep", fmt::format("ep {} does not divide the {} experts of {}; use a divisor of {}", w.ep, m.moe.experts,
                                     m.name, m.moe.experts));
  if (w.etp > 1 && !m.moe.active())
    fail("/parallel/etp", fmt::format("etp {} but {} has no experts (not a MoE model); set etp 1", w.etp, m.name));
  if (m.moe.active() && m.moe.expert_ffn % w.etp != 0)
    fail("/parallel/etp", fmt::format("etp {} does not divide the expert FFN width {} of {}; use a divisor of {}", w.etp,
                                      m.moe.expert_ffn, m.name, m.moe.expert_ffn));
  if (const auto p = expert_grid_problem(w)) fail("/parallel/" + p->first, p->second);
  if (w.lora.active() && m.non_dense_layers())
    fail("/lora", fmt::format("LoRA is modelled for dense attention / MLP decoders; {} has {} layers (use full training)",
                              m.name, m.non_dense_layers()));
  if (w.cp > 1 && w.attention != Attention::Flash)
    fail("/attention", "context parallelism runs attention as a ring of flash kernels; set attention \"flash\"");
  if (m.moe.active() && w.tp > 1 && !w.sequence_parallel)
    fail("/parallel/sequence_parallel", "MoE layers with tp > 1 route the sequence-parallel token shards; set sequence_parallel true");
  if (w.pipeline_split == Workload::PipelineSplit::EmbeddingAndLoss) {
    const int64_t slots = m.layers + 2, programs = w.pp * w.virtual_stages;
    if (slots % programs != 0)
      fail("/parallel/pipeline_split", fmt::format("embedding_and_loss splits layers + 2 = {} slots over pp x virtual_stages "
                                                   "= {}; it does not divide them (use \"even\" or another pp)",
                                                   slots, programs));
  } else if (w.pipeline_split == Workload::PipelineSplit::Explicit) {
    const auto& l = w.layers_per_stage;
    int64_t sum = 0;
    for (int64_t x : l) sum += x;
    if (!w.pipeline_layout.empty()) {  // its grammar and E/m/L placement were checked when it was read
      const std::string f = "/parallel/pipeline_layout";
      if (static_cast<int64_t>(l.size()) != w.pp * w.virtual_stages)
        fail(f, fmt::format("{} chunks but pp x virtual_stages = {} x {} = {}; give one chunk ('|') per (virtual) stage",
                            l.size(), w.pp, w.virtual_stages, w.pp * w.virtual_stages));
      if (sum != m.layers)
        fail(f, fmt::format("the layout places {} decoder layers t but {} has {}; add or remove t", sum, m.name, m.layers));
      if (w.layout_mtp != m.mtp_layers)
        fail(f, fmt::format("the layout places {} MTP modules m but {} has {}; write {} m before the L", w.layout_mtp,
                            m.name, m.mtp_layers, m.mtp_layers));
    } else {
      if (static_cast<int64_t>(l.size()) != w.pp * w.virtual_stages)
        fail("/parallel/layers_per_stage", fmt::format("{} entries but pp x virtual_stages = {}; give one count per stage",
                                                       l.size(), w.pp * w.virtual_stages));
      if (sum != m.layers)
        fail("/parallel/layers_per_stage", fmt::format("the counts add up to {} but {} has {} layers", sum, m.name, m.layers));
      if (std::any_of(l.begin(), l.end(), [](int64_t x) { return x < 1; }))
        fail("/parallel/layers_per_stage", "every stage needs at least one layer");
    }
  } else if (w.pipeline_split == Workload::PipelineSplit::Balanced) {
    if (m.layers < w.pp * w.virtual_stages)
      fail("/parallel/pp", fmt::format("pp x virtual_stages = {} exceeds the {} layers of {}", w.pp * w.virtual_stages,
                                       m.layers, m.name));
  } else {
    if (m.layers % w.pp != 0)
      fail("/parallel/pp", fmt::format("pp {} does not divide the {} layers of {}; use a divisor of {} (or "
                                       "pipeline_split \"balanced\" or \"embedding_and_loss\", or layers_per_stage)",
                                       w.pp, m.layers, m.name, m.layers));
    if (m.layers % (w.pp * w.virtual_stages) != 0)
      fail("/parallel/virtual_stages", fmt::format("pp x virtual_stages = {} x {} does not divide the {} layers of {}",
                                                   w.pp, w.virtual_stages, m.layers, m.name));
  }
  if (w.virtual_stages > 1 && w.pp < 2)
    fail("/parallel/virtual_stages", "interleaving needs pp >= 2; set virtual_stages 1");
  if (w.virtual_stages > 1 && w.schedule != Schedule::OneF1B)
    fail("/parallel/virtual_stages", "interleaving is a 1F1B schedule; set schedule \"1f1b\" or virtual_stages 1");
  if (w.virtual_stages > 1 && w.grad_accum() % w.pp != 0)
    fail("/batch/global_batch", fmt::format("the interleaved schedule needs micro-batches per step ({}) divisible by pp {} "
                                            "(Megatron); change global_batch or micro_batch", w.grad_accum(), w.pp));
  if (w.sequence_parallel && w.seq_len * w.micro_batch % w.tp != 0)
    fail("/batch/seq_len", fmt::format("sequence parallelism needs micro_batch x seq_len divisible by tp {}", w.tp));
  if (w.seq_len > m.max_seq)
    fail("/batch/seq_len", fmt::format("seq_len {} exceeds the model's maximum {}; lower it", w.seq_len, m.max_seq));
}

}  // namespace trnsim
