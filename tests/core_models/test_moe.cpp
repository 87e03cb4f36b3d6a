// test_moe.cpp — issue 24: mixture-of-experts layers with expert parallelism, checked against
// hand calculations written here: published parameter counts, the ops of one MoE layer (router,
// all-to-all dispatch / combine, the grouped expert GEMMs with tokens per expert), FLOPs =
// 6 x active parameters x tokens + attention, EP-sharded expert states, and the bad inputs.
#include <catch2/catch.hpp>

#include <cmath>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;
using test::sum_ops;
using test::workload;

namespace {
Workload qwen(int64_t tp, int64_t dp, int64_t ep, int64_t mb = 1) {
  return test::moe_workload("qwen3-30b-a3b", "gb200-nvl72", dp * tp / 4, tp, dp, ep, mb, dp * mb * 2, 4096);
}
// Qwen3-235B-A22B on 64 GB200s at TP 2 (SP, flash, mixed BF16 with FP32 gradients, ZeRO-1).
Workload qwen235(int64_t dp, int64_t ep, int64_t cp = 1) {
  Workload w = workload("qwen3-235b-a22b", "gb200-nvl72", 16, 2, 1, dp, 1, 1024, 4096);
  w.cp = cp;
  w.ep = ep;
  w.sequence_parallel = true;
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 1;
  return w;
}
// Its dense (non-expert) parameters per TP-2 rank, by hand: attention (64 query heads, 4 KV heads),
// router, two norms per layer; embedding and head; the final norm.
double qwen235_dense_per_rank(const ModelSpec& m) {
  const double L = m.layers, h = m.hidden, d = m.head_dim();
  return (L * (h * 64 * d + 2 * h * 4 * d + 64 * d * h + h * 128 + 2 * h) + 2 * h * m.vocab + h) / 2;
}
}  // namespace

TEST_CASE("Qwen3 MoE models count their published parameters", "[moe]") {
  // Model cards: Qwen3-30B-A3B 30.5B (30,532,122,624 in the checkpoint), Qwen3-235B-A22B 235B.
  // The remainder is QK-norm (2 x head_dim per layer), not modelled: 12,288 for the 30B.
  const auto a = load_model_spec(model_path("qwen3-30b-a3b"));
  CHECK(a.public_parameters - static_cast<double>(a.total_parameters()) == Approx(48 * 2 * 128));
  const auto b = load_model_spec(model_path("qwen3-235b-a22b"));
  CHECK(static_cast<double>(b.total_parameters()) / 235.09e9 == Approx(1.0).epsilon(0.005));
  // A MoE layer = attention + router + 128 experts of 3 x 2048 x 768 + two RMSNorms.
  const double attn = 2048.0 * 4096 + 2 * 2048.0 * 512 + 4096.0 * 2048;
  CHECK(static_cast<double>(a.layer_parameters(0)) == Approx(attn + 2048.0 * 128 + 128 * 3 * 2048.0 * 768 + 2 * 2048));
  CHECK(a.expert_parameters(0) == 128 * 3 * 2048 * 768);
}

TEST_CASE("one MoE layer: router, all-to-all dispatch and combine, grouped expert GEMMs", "[moe]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  const Workload w = qwen(1, 8, 8, 2);
  const auto plan = build_step_plan(m, w);
  const auto& st = plan.stages.front();
  int a2a_fwd = 0, a2a_bwd = 0;
  const Op* gate_up = nullptr;
  for (auto v : boost::make_iterator_range(boost::vertices(st.graph))) {
    const Op& o = st.graph[v];
    if (o.layer != 0) continue;
    if (o.kind == OpKind::AllToAll) {
      (o.phase == Phase::Forward ? a2a_fwd : a2a_bwd)++;
      CHECK(o.group == Group::EP);
      CHECK(o.group_size == 8);
      // Each rank sends its tokens x top_k copies of the hidden vector (BF16).
      CHECK(o.comm_bytes.base() == Approx(2.0 * 4096 * 8 * 2048 * 2));
    }
    if (o.label == "L0.experts.gate_up") gate_up = &o;
  }
  CHECK(a2a_fwd == 2);  // dispatch, combine
  CHECK(a2a_bwd == 2);
  REQUIRE(gate_up);
  // 128 experts over EP 8: 16 on this rank; 8192 local tokens x 8 routes spread over them.
  CHECK(gate_up->batch == 16);
  CHECK(gate_up->m == 2 * 4096 * 8 / 16);
  CHECK(gate_up->n == 2 * 768);
  // Expert gradients reduce over the expert-data-parallel group (tp x dp / ep = 1 here: none);
  // with EP 4 over DP 8 they reduce over 2 ranks.
  const auto plan4 = build_step_plan(m, qwen(1, 8, 4, 2));
  int edp = 0;
  for (auto v : boost::make_iterator_range(boost::vertices(plan4.stages.front().graph))) {
    const Op& o = plan4.stages.front().graph[v];
    if (o.is_collective() && o.group == Group::EDP) {
      CHECK(o.group_size == 2);
      ++edp;
    }
  }
  CHECK(edp == m.layers);
}

TEST_CASE("MoE FLOPs: 6 x active parameters x tokens + attention", "[moe]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  const Workload w = qwen(1, 8, 8, 2);
  const auto plan = build_step_plan(m, w);
  const double tokens = static_cast<double>(w.tokens_per_step());
  const double h = m.hidden, d = m.head_dim(), L = m.layers, s = w.seq_len;
  // Active per token: attention projections, router, top_k experts; plus the LM head.
  const double active = L * (h * 32 * d + 2 * h * 4 * d + 32 * d * h + h * 128 + 8 * 3 * h * 768) + h * m.vocab;
  // Causal flash attention: QK^T and PV over (s + 512) / 2 key columns (4 a d n per token), twice
  // that in backward, plus the backward's recomputed QK^T (2 a d n): 14 a d n.
  const double n = std::floor((s + 512 + 1) / 2);
  const double attention = 14 * L * 32 * d * n * tokens;
  CHECK(plan.model_flops.base() == Approx(6 * active * tokens + attention).epsilon(0.01));
}

TEST_CASE("EP shards expert states: Qwen3-235B-A22B at TP 2, EP 64, DP 32, by hand", "[moe][memory]") {
  const auto m = load_model_spec(model_path("qwen3-235b-a22b"));
  const Workload w = qwen235(32, 64);
  const auto mem = memory_per_stage(m, w, build_step_plan(m, w));
  const auto& b = mem.front();
  const double experts = m.layers * 128 * 3 * static_cast<double>(m.hidden) * 1536 / 64;  // 2 of 128 experts per layer
  const double dense = qwen235_dense_per_rank(m);
  CHECK(b.weights.base() == Approx(2 * (experts + dense)).epsilon(1e-3));  // BF16 weights
  CHECK(b.gradients.base() == Approx(4 * (experts + dense)).epsilon(1e-3));  // FP32 main grads
  // Distributed optimizer: dense states over DP 32, expert states over EDP = 2 x 32 / 64 = 1.
  CHECK(b.optimizer_states.base() == Approx(8 * (dense / 32 + experts)).epsilon(1e-3));
  CHECK(b.master_weights.base() == Approx(4 * (dense / 32 + experts)).epsilon(1e-3));
}

TEST_CASE("bad MoE input gets a precise error", "[moe][config]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  CHECK_THROWS_WITH(build_step_plan(m, qwen(1, 8, 3)), Catch::Contains("/parallel/ep") && Catch::Contains("128 experts"));
  const auto dense = load_model_spec(model_path("llama2-7b"));
  Workload w = workload("llama2-7b", "gb200-nvl72", 2, 1, 1, 8, 1, 16, 4096);
  w.ep = 8;
  CHECK_THROWS_WITH(build_step_plan(dense, w), Catch::Contains("not a MoE model"));
  nlohmann::json j = load_json_file(model_path("qwen3-30b-a3b"));
  j["moe"]["top_k"] = 256;
  CHECK_THROWS_WITH(model_spec_from_json(j, "m.json"), Catch::Contains("/moe/top_k") && Catch::Contains("exceeds the 128 experts"));
  nlohmann::json wl = nlohmann::json::parse(workload_to_json(qwen(1, 8, 8)));
  wl["parallel"]["ep"] = 16;
  wl["parallel"]["dp"] = 4;
  CHECK_THROWS_WITH(workload_from_json(wl, "w.json"), Catch::Contains("/parallel/ep") && Catch::Contains("divide tp x cp x dp"));
  // With CP the expert grid has the CP ranks too: ep 16 over tp 1 x cp 2 x dp 4 = 8 ranks cannot be.
  wl["parallel"]["cp"] = 2;
  wl["parallel"]["dp"] = 4;
  CHECK_THROWS_WITH(workload_from_json(wl, "w.json"), Catch::Contains("/parallel/ep") && Catch::Contains("= 8"));
}

TEST_CASE("CP beside EP: the expert grid re-arranges the TP x CP x DP ranks, by hand", "[moe][memory][cp]") {
  // Qwen3-235B-A22B on 64 GB200s: TP 2 x CP 2 x DP 16, EP 32. Experts: 4 of 128 per rank. Dense
  // states shard over DP x CP = 32 (the distributed optimizer), expert states over expert DP =
  // 2 x 2 x 16 / 32 = 2. Activations: each rank holds half of every sequence.
  const auto m = load_model_spec(model_path("qwen3-235b-a22b"));
  const Workload w = qwen235(16, 32, 2);
  CHECK(w.edp() == 2);
  const auto b = memory_per_stage(m, w, build_step_plan(m, w)).front();
  const double experts = m.layers * 128 * 3 * static_cast<double>(m.hidden) * 1536 / 32;
  const double dense = qwen235_dense_per_rank(m);
  CHECK(b.weights.base() == Approx(2 * (experts + dense)).epsilon(1e-3));
  CHECK(b.optimizer_states.base() == Approx(8 * (dense / 32 + experts / 2)).epsilon(1e-3));
  CHECK(b.master_weights.base() == Approx(4 * (dense / 32 + experts / 2)).epsilon(1e-3));
  // The same layout without CP (DP 32): the same states; half the activations with CP 2.
  const Workload nocp = qwen235(32, 32);
  const auto c = memory_per_stage(m, nocp, build_step_plan(m, nocp)).front();
  CHECK(c.optimizer_states.base() == Approx(b.optimizer_states.base()).epsilon(1e-9));
  CHECK(b.activations.base() == Approx(c.activations.base() / 2).epsilon(0.02));
}

TEST_CASE("group-limited routing and the per-domain dispatcher reach the all-to-all ops", "[moe][routing]") {
  const auto ds = load_model_spec(model_path("deepseek-v3"));
  CHECK(ds.moe.route_groups == 8);
  CHECK(ds.moe.route_group_topk == 4);
  Workload w = qwen(1, 8, 8);
  nlohmann::json wl = nlohmann::json::parse(workload_to_json(w));
  CHECK_FALSE(wl["parallel"].contains("moe_dispatcher"));  // the default is not written out
  wl["parallel"]["moe_dispatcher"] = "deepep";
  const Workload back = workload_from_json(wl, "w.json");
  CHECK(back.moe_dispatcher == Workload::MoeDispatcher::PerDomain);
  CHECK(nlohmann::json::parse(workload_to_json(back))["parallel"]["moe_dispatcher"] == "deepep");
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  int a2a = 0;
  const auto plan = build_step_plan(m, back);
  const auto& st = plan.stages.front();
  for (auto v : boost::make_iterator_range(boost::vertices(st.graph)))
    if (const Op& op = st.graph[v]; op.kind == OpKind::AllToAll) {
        ++a2a;
        CHECK(op.routing.top_k == 8);
        CHECK(op.routing.experts == 128);
        CHECK(op.routing.groups == 1);
        CHECK(op.routing.once_per_domain);
      }
  CHECK(a2a == 4 * m.layers);  // dispatch and combine, forward and backward, every layer
  wl["parallel"]["moe_dispatcher"] = "hybrid";
  CHECK_THROWS_WITH(workload_from_json(wl, "w.json"), Catch::Contains("/parallel/moe_dispatcher"));
  nlohmann::json j = load_json_file(model_path("deepseek-v3"));
  j["moe"]["route_groups"] = 7;
  CHECK_THROWS_WITH(model_spec_from_json(j, "m.json"), Catch::Contains("/moe/route_groups") && Catch::Contains("divide the 256"));
  j["moe"]["route_groups"] = 8;
  j["moe"]["route_group_topk"] = 9;
  CHECK_THROWS_WITH(model_spec_from_json(j, "m.json"), Catch::Contains("/moe/route_group_topk") && Catch::Contains("at most 8"));
  j["moe"]["route_groups"] = 64;
  j["moe"]["route_group_topk"] = 1;
  CHECK_THROWS_WITH(model_spec_from_json(j, "m.json"), Catch::Contains("/moe/route_group_topk") && Catch::Contains("fewer than top_k 8"));
}
