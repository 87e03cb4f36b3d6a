// test_context_parallel.cpp — issue 24: context parallelism (ring attention), against closed
// forms written here: each rank holds 1/cp of every sequence, the attention meets all keys,
// the K/V ring moves (cp - 1) chunks beside the attention (and twice that in backward), the
// whole step's FLOPs do not depend on cp, activations divide by cp, and a ring that cannot hide
// behind the attention is exposed by exactly what it does not overlap.
#include <catch2/catch.hpp>

#include "block_builder.hpp"
#include "helpers.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"

using namespace trnsim;
using test::workload;

namespace {
Workload llama_cp(int64_t cp, int64_t seq = 32768) {
  Workload w = workload("llama3.1-8b", "dgx-h100", 1, 1, 1, 8 / cp, 1, 8 / cp * 2, seq);
  w.cp = cp;
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 3;
  w.reduce_every_micro_batch = true;
  w.checkpointing = Checkpointing::Full;
  return w;
}
}  // namespace

TEST_CASE("context parallelism: 1/cp of the queries, all keys, a K/V ring beside the attention", "[cp]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  const int64_t s = 32768, d = m.head_dim(), g = m.kv_heads;
  for (int64_t cp : {2, 4, 8}) {
    INFO("cp " << cp);
    const auto plan = build_step_plan(m, llama_cp(cp));
    const Op* qk = test::op_named(plan, "L0.flash.scores");
    REQUIRE(qk);
    CHECK(qk->m == s / cp);                          // this rank's queries
    CHECK(qk->n == flash_key_columns(s, true));      // every key, causal half on average
    const Op* qkv = test::op_named(plan, "L0.qkv");
    CHECK(qkv->m == s / cp);                         // every other op sees 1/cp of the tokens
    const Op* ring = test::op_named(plan, "L0.cp.kv_ring");
    REQUIRE(ring);
    CHECK(ring->group == Group::CP);
    CHECK(ring->overlap_ops == 3);
    CHECK(ring->comm_bytes.base() == Approx(2.0 * (cp - 1) * (s / cp) * 2 * g * d));  // K and V, BF16
    const Op* back = test::op_named(plan, "L0.flash.context.cp_ring_bwd");
    REQUIRE(back);
    CHECK(back->comm_bytes.base() == Approx(2 * ring->comm_bytes.base()));  // K/V again + dK/dV
    CHECK(back->overlap_ops == 7);
  }
}

TEST_CASE("context parallelism keeps the step's FLOPs and divides activations by cp", "[cp]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  // Same global batch of sequences: cp 1 x dp 8 and cp 4 x dp 2.
  Workload one = llama_cp(1), four = llama_cp(4);
  one.global_batch = four.global_batch = 8;
  const auto p1 = build_step_plan(m, one), p4 = build_step_plan(m, four);
  CHECK(p4.model_flops.base() == Approx(p1.model_flops.base()).epsilon(0.002));
  Workload a = one, b = four;
  a.checkpointing = b.checkpointing = Checkpointing::None;
  CHECK(layer_activation_bytes(m, b).base() == Approx(layer_activation_bytes(m, a).base() / 4));
  // Gradients and ZeRO shards span dp x cp: the bucket all-reduces over 8 ranks either way.
  const Op* sync = test::op_named(p4, "L0.grad_sync");
  REQUIRE(sync);
  CHECK(sync->group_size == 8);
}

TEST_CASE("the K/V ring hides behind the attention until the link is too slow", "[cp][tlm]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Scenario s = make_scenario(llama_cp(2), m, true);
  const StepResult fast = execute_step(s);
  CHECK(fast.stages.front().cp_comm_s == Approx(0).margin(1e-9));  // NVLink: fully hidden
  s.hw.intra.link_bandwidth = gigabytes_per_s(0.5);                 // a crawling link
  s.hw.intra.onchip_bandwidth = gigabytes_per_s(0.5);
  const StepResult slow = execute_step(s);
  CHECK(slow.stages.front().cp_comm_s > 0);
  CHECK(slow.step_time_s > fast.step_time_s);
  // Never more exposed than the ring itself takes.
  CHECK(slow.stages.front().cp_comm_s < slow.step_time_s);
}

TEST_CASE("bad context-parallel input gets a precise error", "[cp][config]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Workload w = llama_cp(2);
  w.attention = Attention::Unfused;
  CHECK_THROWS_WITH(build_step_plan(m, w), Catch::Contains("/attention") && Catch::Contains("ring of flash kernels"));
  nlohmann::json j = nlohmann::json::parse(workload_to_json(llama_cp(4)));
  j["batch"]["seq_len"] = 4100;
  CHECK_THROWS_WITH(workload_from_json(j, "w.json"), Catch::Contains("/batch/seq_len") && Catch::Contains("2 x cp = 8"));
  // Without CP an odd sequence is a sequence (ViT's 197 tokens): no chunking rule applies.
  nlohmann::json odd = nlohmann::json::parse(workload_to_json(llama_cp(1)));
  odd["batch"]["seq_len"] = 4097;
  CHECK(workload_from_json(odd, "w.json").seq_len == 4097);
  nlohmann::json e = nlohmann::json::parse(workload_to_json(llama_cp(2)));
  e["parallel"]["ep"] = 2;  // CP beside EP is a layout (test_moe.cpp), but this model has no experts
  const Workload with_ep = workload_from_json(e, "w.json");
  CHECK_THROWS_WITH(build_step_plan(m, with_ep), Catch::Contains("/parallel/ep") && Catch::Contains("not a MoE model"));
}
