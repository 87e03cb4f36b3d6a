// test_partial_checkpointing.cpp — issue 25 item 2, checkpointing a subset of the layers: every
// k-th layer (checkpoint_every, torchtitan's selective layer AC) and the first N layers of each
// pipeline chunk (checkpoint_layers, Megatron-Core's block method). Checked against counts by
// hand: which layers recompute, the recompute FLOPs as a fraction of full recompute, the
// activation bytes of the mix, the step time between none and full, and the input errors
// (the NeMo adapter's ladder over N: tests/validation/test_recompute_ladder.cpp).
#include <catch2/catch.hpp>

#include <set>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "stack_profile.hpp"
#include "step_executor.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

namespace {
Workload llama8b(Checkpointing ck, int64_t every, int64_t seq = 4096) {
  Workload w = test::workload("llama3.1-8b", "dgx-h100", 1, 1, 1, 8, 1, 8, seq);
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 1;
  w.checkpointing = ck;
  w.checkpoint_every = every;
  return w;
}
double recompute_flops(const StepPlan& p) {
  return test::sum_ops(p, [](const Op& o) { return o.phase == Phase::Recompute && !o.is_collective() ? o.flops.base() : 0.0; });
}
}  // namespace

TEST_CASE("every-k checkpointing recomputes layers 0, k, 2k, ... only", "[checkpoint]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));  // 32 layers
  const auto every3 = build_step_plan(m, llama8b(Checkpointing::Full, 3));
  std::set<int> recomputed;
  for (const auto& st : every3.stages)
    for (auto v : st.backward)
      if (st.graph[v].phase == Phase::Recompute) recomputed.insert(st.graph[v].layer);
  std::set<int> expect;
  for (int l = 0; l < m.layers; l += 3) expect.insert(l);
  CHECK(recomputed == expect);  // 11 of 32 layers
  // Identical layers: the recompute FLOPs are that share of full recompute's.
  const auto full = build_step_plan(m, llama8b(Checkpointing::Full, 1));
  REQUIRE(recompute_flops(full) > 0);
  CHECK(recompute_flops(every3) == Approx(recompute_flops(full) * 11.0 / 32.0));
  // Forward and backward are untouched.
  auto fwd_bwd = [](const Op& o) { return o.phase != Phase::Recompute && !o.is_collective() ? o.flops.base() : 0.0; };
  CHECK(test::sum_ops(every3, fwd_bwd) == Approx(test::sum_ops(full, fwd_bwd)));
}

TEST_CASE("every-k checkpointing keeps full activations on the other layers", "[checkpoint][memory]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  const Workload w2 = llama8b(Checkpointing::Full, 2), w1 = llama8b(Checkpointing::Full, 1);
  const Workload none = llama8b(Checkpointing::None, 1);
  const double kept = layer_activation_bytes(m, w1).base(), all = layer_activation_bytes(m, none).base();
  // Full recompute keeps the block input: 2 s b h bytes (BF16).
  CHECK(kept == Approx(2.0 * 4096 * 4096));
  const auto mem2 = memory_per_stage(m, w2, build_step_plan(m, w2)).front();
  const auto mem1 = memory_per_stage(m, w1, build_step_plan(m, w1)).front();
  const auto mem0 = memory_per_stage(m, none, build_step_plan(m, none)).front();
  const double logits = mem1.activations.base() - 32 * kept;  // the FP32 logits of the last stage
  CHECK(mem2.activations.base() == Approx(16 * kept + 16 * all + logits));
  CHECK(mem0.activations.base() == Approx(32 * all + logits));
  // The layer being recomputed holds its activations again, as under full recompute.
  CHECK(mem2.temporary.base() == Approx(mem1.temporary.base()));
  CHECK(mem1.activations.base() < mem2.activations.base());
  CHECK(mem2.activations.base() < mem0.activations.base());
}

TEST_CASE("every-k checkpointing: a step between no recompute and full recompute", "[checkpoint][tlm]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  const double t0 = execute_step(make_scenario(llama8b(Checkpointing::None, 1, 2048), m)).step_time_s;
  const double t2 = execute_step(make_scenario(llama8b(Checkpointing::Full, 2, 2048), m)).step_time_s;
  const double t1 = execute_step(make_scenario(llama8b(Checkpointing::Full, 1, 2048), m)).step_time_s;
  CHECK(t0 < t2);
  CHECK(t2 < t1);
  // Half the layers recompute: about half of full recompute's extra time.
  CHECK((t2 - t0) / (t1 - t0) == Approx(0.5).margin(0.05));
}

TEST_CASE("checkpoint_every: JSON field, report round trip and bad input", "[checkpoint][config]") {
  auto j = nlohmann::json::parse(R"({
    "name": "t", "model": "llama3.1-8b", "hw": "dgx-h100", "nodes": 1, "stack": "torchtitan",
    "parallel": {"tp": 1, "pp": 1, "dp": 8},
    "batch": {"micro_batch": 1, "global_batch": 8, "seq_len": 8192},
    "precision": "mixed-bf16", "checkpointing": "full", "checkpoint_every": 2})");
  const Workload w = workload_from_json(j, "w.json", stack_lookup());
  CHECK(w.checkpoint_every == 2);
  CHECK(w.checkpointing_of(4, 4) == Checkpointing::Full);
  CHECK(w.checkpointing_of(5, 5) == Checkpointing::None);
  CHECK(nlohmann::json::parse(workload_to_json(w)).at("checkpoint_every") == 2);
  j["checkpoint_every"] = 0;
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()), Catch::Contains("checkpoint_every"));
  j["checkpoint_every"] = 2;
  j["checkpointing"] = "none";
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()),
                    Catch::Contains("checkpoint_every") && Catch::Contains("remove checkpoint_every"));
}

TEST_CASE("block checkpointing recomputes the first N layers of each pipeline chunk", "[checkpoint]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));  // 32 layers: 16 per stage at PP 2
  Workload w = llama8b(Checkpointing::Full, 1);
  w.pp = 2, w.dp = 4, w.global_batch = 8;
  w.checkpoint_layers = 3;
  const auto plan = build_step_plan(m, w);
  std::set<int> recomputed;
  for (const auto& st : plan.stages)
    for (auto v : st.backward)
      if (st.graph[v].phase == Phase::Recompute) recomputed.insert(st.graph[v].layer);
  CHECK(recomputed == std::set<int>{0, 1, 2, 16, 17, 18});
  // Stage 0 holds p - r = 2 micro-batches in flight under 1F1B: 3 kept inputs and 13 whole layers each.
  Workload all = w, none = w;
  all.checkpoint_layers = 0;
  none.checkpointing = Checkpointing::None, none.checkpoint_layers = 0;
  const double kept = layer_activation_bytes(m, all).base(), whole = layer_activation_bytes(m, none).base();
  const auto mem = memory_per_stage(m, w, plan).front();
  CHECK(mem.in_flight == 2);
  CHECK(mem.activations.base() == Approx(2 * (3 * kept + 13 * whole)));
  auto bad = nlohmann::json::parse(workload_to_json(w));
  bad["checkpointing"] = "none";
  CHECK_THROWS_WITH(workload_from_json(bad, "w.json"), Catch::Contains("checkpoint_layers"));
}
