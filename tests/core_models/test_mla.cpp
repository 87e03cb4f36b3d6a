// test_mla.cpp — issue 24: multi-head latent attention and DeepSeek-V3 (parameter count, the
// attention's op shapes, and an EP 64 layout's memory by hand).
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "step_graph.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;
using test::workload;

namespace {
// DeepSeek-V3 by hand: MLA per layer, 3 dense layers, 58 MoE layers of 256 + 1 experts.
constexpr double h = 7168, H = 128, ql = 1536, kl = 512, dn = 128, dr = 64, dv = 128, V = 129280;
constexpr double mla = h * ql + ql + ql * H * (dn + dr) + h * (kl + dr) + kl + kl * H * (dn + dv) + H * dv * h;
constexpr double expert = 3 * h * 2048;
constexpr double dense_layer = mla + 3 * h * 18432 + 2 * h;
constexpr double moe_layer_dense_part = mla + h * 256 + expert + 2 * h;  // attention, router, shared expert, norms
constexpr double routed = 58 * 256 * expert;
constexpr double non_expert = 3 * dense_layer + 58 * moe_layer_dense_part + 2 * V * h + h;
// The multi-token-prediction module: norms of the hidden state, of the next tokens' embedding and
// of its head's input, the 2h -> h projection, and one MoE block (the embedding and head are shared).
constexpr double mtp_dense = 3 * h + 2 * h * h + moe_layer_dense_part, mtp_routed = 256 * expert;
}  // namespace

TEST_CASE("DeepSeek-V3 counts its published 671B parameters, by hand", "[mla][moe]") {
  const auto m = load_model_spec(model_path("deepseek-v3"));
  CHECK(static_cast<double>(m.total_parameters()) == Approx(non_expert + routed).epsilon(1e-12));
  CHECK(static_cast<double>(m.total_parameters()) / 671e9 == Approx(1.0).epsilon(0.005));
}

TEST_CASE("MLA's ops: duplicated down projections, latent norms, column-parallel up projections, 192/128-wide heads", "[mla]") {
  const auto m = load_model_spec(model_path("deepseek-v3"));
  auto w = workload("deepseek-v3", "gb200-nvl72", 64, 4, 1, 64, 1, 64, 4096);
  w.ep = 64;
  w.sequence_parallel = true;
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  const auto plan = build_step_plan(m, w);
  const auto& st = plan.stages.front();
  std::map<std::string, Op> first;
  for (auto v : st.forward) {
    const Op& op = st.graph[v];
    if (op.layer == 0 && !first.count(op.label)) first[op.label] = op;
  }
  auto find = [&](const std::string& suffix) -> const Op& {
    for (const auto& [label, op] : first)
      if (label.size() >= suffix.size() && label.compare(label.size() - suffix.size(), suffix.size(), suffix) == 0) return op;
    FAIL("no op " << suffix);
    return first.begin()->second;
  };
  const int64_t T = 4096;  // micro-batch 1 x seq 4096, gathered for the column-parallel GEMMs
  CHECK((find("q_down").m == T && find("q_down").k == 7168 && find("q_down").n == 1536));  // whole on every TP rank
  CHECK((find("q_up").k == 1536 && find("q_up").n == 128 / 4 * 192));
  CHECK((find("kv_down").n == 512 + 64 && find("kv_up").n == 128 / 4 * (128 + 128)));
  CHECK(find("flash.scores").k == 192);   // query / key width qk_nope + qk_rope
  CHECK(find("flash.context").n == 128);  // value width
  CHECK((find("out_proj").k == 128 / 4 * 128 && find("out_proj").n == 7168));
}

TEST_CASE("DeepSeek-V3's MTP module: parameters by hand, its ops on the last stage", "[mla][moe][mtp]") {
  const auto m = load_model_spec(model_path("deepseek-v3"));
  CHECK(m.mtp_layers == 1);
  CHECK(static_cast<double>(m.mtp_parameters()) == Approx(mtp_dense + mtp_routed).epsilon(1e-12));
  // DeepSeek-V3's README: the 14 B MTP weights are 11.5 B unique plus the shared 0.9 B embedding and head.
  CHECK(static_cast<double>(m.mtp_parameters()) / 11.5e9 == Approx(1.0).epsilon(0.015));
  Workload w = test::moe_workload("deepseek-v3", "gb200-nvl72", 64, 1, 32, 32, 1, 256, 4096);
  w.pp = 8;
  w.pipeline_split = Workload::PipelineSplit::Balanced;
  const auto plan = build_step_plan(m, w);
  const Op* proj = test::op_named(plan, "mtp0.eh_proj");
  REQUIRE(proj);
  CHECK((proj->m == 4096 && proj->k == 2 * 7168 && proj->n == 7168));
  CHECK(test::op_named(plan, "mtp0.head.logits"));  // the shared head, run again for the next token
  CHECK(test::op_named(plan, "mtp0.moe.dispatch"));  // its block is a MoE block like the last layer
  for (const auto& st : plan.stages)
    for (auto v : boost::make_iterator_range(boost::vertices(st.graph)))
      if (st.graph[v].label.rfind("mtp0.", 0) == 0) CHECK(st.last);
  // The last stage keeps a copy of the embedding for the module's lookup (PP > 1).
  const auto& last = plan.stages.back();
  const double last_layers = static_cast<double>(last.num_layers);
  CHECK(static_cast<double>(last.parameters) ==
        Approx(last_layers * moe_layer_dense_part + last_layers * 256 * expert / 32 + V * h + h + mtp_dense +
               mtp_routed / 32 + V * h)
            .epsilon(1e-9));
}

TEST_CASE("DeepSeek-V3 at EP 64, TP 1, DP 256: memory per GPU by hand", "[mla][moe][memory]") {
  const auto m = load_model_spec(model_path("deepseek-v3"));
  const Workload w = test::moe_workload("deepseek-v3", "gb200-nvl72", 64, 1, 256, 64, 1, 1024, 4096);
  const auto mem = memory_per_stage(m, w, build_step_plan(m, w));
  const auto& b = mem.front();
  // 4 of 256 experts per MoE layer on each rank; one pipeline stage holds the MTP module too.
  const double experts = (routed + mtp_routed) / 64, dense = non_expert + mtp_dense;
  CHECK(b.weights.base() == Approx(2 * (dense + experts)).epsilon(1e-9));    // BF16 weights
  CHECK(b.gradients.base() == Approx(4 * (dense + experts)).epsilon(1e-9));  // FP32 main grads
  // Distributed optimizer: dense states over DP 256, expert states over EDP = 256 / 64 = 4.
  CHECK(b.optimizer_states.base() == Approx(8 * (dense / 256 + experts / 4)).epsilon(1e-6));
  CHECK(b.master_weights.base() == Approx(4 * (dense / 256 + experts / 4)).epsilon(1e-6));
}

TEST_CASE("MLA input errors", "[mla][config]") {
  auto j = load_json_file(model_path("deepseek-v3"));
  j["kv_heads"] = 8;
  CHECK_THROWS_WITH(model_spec_from_json(j, "x.json"), Catch::Contains("/kv_heads: multi-head latent attention"));
  j.erase("kv_heads");
  j["mla"].erase("kv_lora_rank");
  CHECK_THROWS_WITH(model_spec_from_json(j, "x.json"), Catch::Contains("/mla/kv_lora_rank: missing required field"));
}
