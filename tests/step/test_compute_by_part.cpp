// test_compute_by_part.cpp — the report's compute by model part (Op::part, StageTimes::part_s):
// every compute second lands in exactly one part, the parts a model lacks stay empty, and the
// attention share grows with the sequence as its quadratic term says.
#include <catch2/catch.hpp>

#include <numeric>

#include "report.hpp"
#include "run_helpers.hpp"

using namespace trnsim;

namespace {
double part(const StageTimes& t, Part p) { return t.part_s[static_cast<size_t>(p)]; }
double total(const StageTimes& t) { return std::accumulate(t.part_s.begin(), t.part_s.end(), 0.0); }

// Llama 2 7B on one DGX-H100 at TP 2 x DP 4, flash attention, mixed BF16 (no casts): the
// Megatron-Core settings of test::moe_workload, with EP 1.
Workload dense(int64_t seq, int64_t global_batch) {
  return test::moe_workload("llama2-7b", "dgx-h100", 1, 2, 4, 1, 1, global_batch, seq);
}
}  // namespace

TEST_CASE("compute by part: every compute second is in one part", "[step][parts]") {
  // 16 micro-batches: the step is extrapolated from 8, and the parts with it.
  for (int64_t gb : {8, 64}) {
    const StepResult r = test::run(dense(4096, gb));
    const StageTimes& t = r.stages[static_cast<size_t>(r.critical_stage)];
    INFO("global batch " << gb);
    // Forward, backward and recompute ops are compute_s + recompute_s; the optimizer's compute is its own part.
    CHECK(total(t) - part(t, Part::Optimizer) == Approx(t.compute_s + t.recompute_s).epsilon(1e-9));
    CHECK(part(t, Part::Optimizer) > 0);
    CHECK(part(t, Part::Optimizer) <= t.optimizer_s + 1e-12);
    CHECK(part(t, Part::Attention) > 0);
    CHECK(part(t, Part::Mlp) > 0);
    CHECK(part(t, Part::EmbeddingHead) > 0);
    CHECK(part(t, Part::Glue) > 0);
    for (Part p : {Part::Experts, Part::MoeRouting, Part::Mamba, Part::Casts}) CHECK(part(t, p) == 0);
  }
}

TEST_CASE("compute by part: attention's share grows with the sequence", "[step][parts]") {
  // Per token, attention's core grows with s while the linears do not: 4x the tokens per sequence
  // at the same tokens per step raises attention's share of the compute.
  // Compiled: no host floor, whose fixed cost per op would hide the trend in short sequences' small ops.
  Workload w1 = dense(1024, 32), w4 = dense(4096, 8);
  w1.execution = w4.execution = "compiled";
  const StepResult s1k = test::run(w1), s4k = test::run(w4);
  const auto& a = s1k.stages[0];
  const auto& b = s4k.stages[0];
  // Llama 2 7B per token and layer: linears 404 MFLOP (attention 134), the causal core 4 x (s / 2) x 4096
  // (x 3.5 with the flash backward and recompute): attention 35 % at 1,024, 39 % at 4,096.
  CHECK(part(b, Part::Attention) / total(b) > part(a, Part::Attention) / total(a) + 0.03);
  CHECK(part(b, Part::Attention) > part(a, Part::Attention));  // the same tokens, 4x the keys each
}

TEST_CASE("compute by part: experts, routing, Mamba and casts where the model and precision have them",
          "[step][parts]") {
  // Qwen3-30B-A3B at EP 8: routed experts and their routing, no dense MLP, no Mamba.
  const StepResult moe = test::run(test::moe_workload("qwen3-30b-a3b", "dgx-b200", 1, 1, 8, 8, 1, 16, 4096));
  const auto& m = moe.stages[0];
  CHECK(part(m, Part::Experts) > 0);
  CHECK(part(m, Part::MoeRouting) > 0);
  CHECK(part(m, Part::Mlp) == 0);
  CHECK(part(m, Part::Mamba) == 0);
  // Nemotron 3 Nano: Mamba-2 mixers beside its MoE layers; its shared expert is a dense MLP.
  const StepResult hybrid = test::run(test::moe_workload("nemotron-3-nano", "dgx-b200", 1, 1, 8, 8, 1, 16, 4096));
  const auto& h = hybrid.stages[0];
  CHECK(part(h, Part::Mamba) > 0);
  CHECK(part(h, Part::Experts) > 0);
  CHECK(part(h, Part::Mlp) > 0);
  // FP8 linears: the casts to E4M3 / E5M2 are their own part; the rest still adds up.
  Workload f = dense(4096, 8);
  f.precision = Precision::FP8;
  const StepResult fp8 = test::run(f);
  const auto& q = fp8.stages[0];
  CHECK(part(q, Part::Casts) > 0);
  CHECK(total(q) >= q.compute_s + q.recompute_s);
}

TEST_CASE("compute by part: the report carries it in JSON and prints the parts the model has",
          "[step][parts][report]") {
  const Workload w = test::moe_workload("qwen3-30b-a3b", "dgx-b200", 1, 1, 8, 8, 1, 16, 4096);
  const Scenario s = make_scenario(w, true);
  const StepResult r = execute_step(s);
  const StepReport typed = build_report(s, r);
  const nlohmann::json j = to_json(typed);
  const auto& parts = j["step"]["compute_by_part_s"];
  REQUIRE(parts.size() == static_cast<size_t>(kParts));
  CHECK(parts["experts_s"].get<double>() == Approx(part(r.stages[0], Part::Experts)));
  const std::string text = render_text(typed), md = render_markdown(typed);
  CHECK(text.find("compute by model part") != std::string::npos);
  CHECK(text.find("experts ") != std::string::npos);
  CHECK(text.find("mamba") == std::string::npos);  // a part the model lacks is not printed
  CHECK(md.find("| compute: moe_routing (s) |") != std::string::npos);
  CHECK(md.find("| compute: mlp (s) |") == std::string::npos);
}
