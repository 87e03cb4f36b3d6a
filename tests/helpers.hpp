// helpers.hpp — small builders shared by the tests (workloads made in code, sums over graphs).
#pragma once
#include <functional>

#include "scenario.hpp"
#include "search.hpp"
#include "layout_space.hpp"
#include "step_graph.hpp"
#include "workload.hpp"

namespace trnsim::test {

// A search over `hws` x `nodes` for `model` at `seq` tokens and a global batch of `gb` sequences,
// limited by `axes` (--axes syntax), listing the top `top_k`.
inline SearchOptions search_options(const std::string& model, const std::vector<std::string>& hws,
                                    const std::vector<int64_t>& nodes, int64_t seq, int64_t gb, const std::string& axes,
                                    size_t top_k) {
  SearchOptions o;
  o.space.model = model;
  o.space.hws = hws;
  o.space.nodes = nodes;
  o.space.seq_len = seq;
  o.space.global_batch = gb;
  o.space.axes = parse_axes(axes);
  o.top_k = top_k;
  return o;
}

inline Workload workload(const std::string& model, const std::string& hw, int64_t nodes, int64_t tp, int64_t pp,
                         int64_t dp, int64_t mb, int64_t gb, int64_t seq) {
  Workload w;
  w.name = "test";
  w.file = "test-workload";
  w.model = model;
  w.hw = hw;
  w.nodes = nodes;
  w.tp = tp;
  w.pp = pp;
  w.dp = dp;
  w.micro_batch = mb;
  w.global_batch = gb;
  w.seq_len = seq;
  return w;
}

// A Megatron-Core / NeMo style MoE workload: flash attention, mixed BF16 with FP32 gradients, the
// distributed optimizer (ZeRO-1), SP with TP, `ep` expert-parallel ranks.
inline Workload moe_workload(const std::string& model, const std::string& hw, int64_t nodes, int64_t tp, int64_t dp,
                             int64_t ep, int64_t mb, int64_t gb, int64_t seq) {
  Workload w = workload(model, hw, nodes, tp, 1, dp, mb, gb, seq);
  w.ep = ep;
  w.sequence_parallel = tp > 1;
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 1;
  return w;
}

// A torchtitan Llama 3.1 8B workload file's JSON on H100s (micro-batch 1, 8,192 tokens, mixed BF16,
// full recompute) with no stack-profile field of its own, for tests of what the profile fills in.
inline nlohmann::json torchtitan_llama8b_json(int64_t nodes, int64_t tp, int64_t dp, int64_t global_batch) {
  return {{"name", "t"},
          {"model", "llama3.1-8b"},
          {"hw", "dgx-h100"},
          {"nodes", nodes},
          {"stack", "torchtitan"},
          {"parallel", {{"tp", tp}, {"pp", 1}, {"dp", dp}}},
          {"batch", {{"micro_batch", 1}, {"global_batch", global_batch}, {"seq_len", 8192}}},
          {"precision", "mixed-bf16"},
          {"checkpointing", "full"}};
}

// The op of a step plan with this label (nullptr if none), searched over every stage's graph.
inline const Op* op_named(const StepPlan& p, const std::string& label) {
  for (const auto& st : p.stages)
    for (auto v : boost::make_iterator_range(boost::vertices(st.graph)))
      if (st.graph[v].label == label) return &st.graph[v];
  return nullptr;
}

// Sum f(op) over one micro-batch's forward+backward of every stage.
inline double sum_ops(const StepPlan& p, const std::function<double(const Op&)>& f) {
  double s = 0;
  for (const auto& st : p.stages) {
    for (auto v : st.forward) s += f(st.graph[v]);
    for (auto v : st.backward) s += f(st.graph[v]);
  }
  return s;
}

}  // namespace trnsim::test
