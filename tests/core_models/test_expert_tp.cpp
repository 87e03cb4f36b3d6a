// test_expert_tp.cpp — issue 24 item 2, expert tensor parallelism (etp, Megatron-Core's
// expert_tensor_parallel_size): each expert's FFN split over etp ranks, tokens all-gathered over
// the ETP group before the experts and reduce-scattered after. Checked by hand on Qwen3-30B-A3B:
// the collectives and their bytes, the expert GEMM shapes, FLOPs unchanged, expert states over
// ep x etp and the expert-data-parallel group, the step, and the bad inputs.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "step_executor.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

namespace {
// One GB200 NVL72 domain's 8 GPUs: TP 2 (SP), DP 4, EP 4, expert TP `etp`; micro-batch 2 x 4096.
Workload qwen(int64_t etp, int64_t ep = 4) {
  Workload w = test::moe_workload("qwen3-30b-a3b", "gb200-nvl72", 2, 2, 4, ep, 2, 16, 4096);
  w.etp = etp;
  return w;
}
const Op* find(const StepPlan& p, const std::string& label) {
  const Op* o = test::op_named(p, label);
  REQUIRE(o);
  return o;
}
}  // namespace

TEST_CASE("expert TP: the ETP gather and scatter, and the experts' GEMMs on an FFN slice", "[moe][etp]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  const auto plan = build_step_plan(m, qwen(2));
  const double Tl = 2.0 * 4096 / 2;  // SP: this rank's tokens
  const double gathered = Tl * 8 * 2;  // top-8 copies, gathered from the 2 ETP ranks
  const Op* g = find(plan, "L0.moe.etp_gather");
  CHECK(g->kind == OpKind::AllGather);
  CHECK(g->group == Group::ETP);
  CHECK(g->group_size == 2);
  CHECK(g->comm_bytes.base() == Approx(gathered * 2048 * 2));  // BF16 hidden vectors, gathered size
  const Op* s = find(plan, "L0.moe.etp_scatter");
  CHECK(s->kind == OpKind::ReduceScatter);
  CHECK(s->comm_bytes.base() == Approx(gathered * 2048 * 2));
  // Backward mirrors them: the gather's gradient is reduce-scattered, the scatter's all-gathered.
  CHECK(find(plan, "L0.moe.etp_gather.bwd")->kind == OpKind::ReduceScatter);
  CHECK(find(plan, "L0.moe.etp_scatter.bwd")->kind == OpKind::AllGather);
  // 128 experts over EP 4: 32 here, each seeing the group's tokens on half of its FFN (768 / 2).
  const Op* up = find(plan, "L0.experts.gate_up");
  CHECK(up->batch == 32);
  CHECK(up->m == static_cast<int64_t>(gathered / 32));
  CHECK(up->n == 2 * 384);
  const Op* down = find(plan, "L0.experts.down");
  CHECK(down->k == 384);
  CHECK(down->n == 2048);
  // The expert FLOPs per rank are those of EP 4 without expert TP: the split moves work, not adds it.
  const auto plain = build_step_plan(m, qwen(1));
  auto expert_flops = [](const Op& o) { return o.label.find("experts.") != std::string::npos ? o.flops.base() : 0.0; };
  CHECK(test::sum_ops(plan, expert_flops) == Approx(test::sum_ops(plain, expert_flops)));
  CHECK(test::op_named(plain, "L0.moe.etp_gather") == nullptr);
}

TEST_CASE("expert TP shards expert states over ep x etp, the optimizer over the rest", "[moe][etp][memory]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  const Workload w = qwen(2);
  REQUIRE(w.edp() == 1);  // tp x dp / (ep x etp) = 8 / 8
  const auto plan = build_step_plan(m, w);
  const double L = m.layers, h = m.hidden;
  const double experts = L * 128 * 3 * h * 768 / (4 * 2);
  CHECK(static_cast<double>(plan.stages.front().expert_parameters) == Approx(experts));
  const auto b = memory_per_stage(m, w, plan).front();
  const auto b1 = memory_per_stage(m, qwen(1), build_step_plan(m, qwen(1))).front();
  // Without expert TP, EP 4 keeps twice the expert weights and grads, and shards their optimizer
  // states over EDP 2: the same states per rank.
  const double dense = static_cast<double>(plan.stages.front().parameters) - experts;
  CHECK(b.weights.base() == Approx(2 * (experts + dense)));
  CHECK(b1.weights.base() - b.weights.base() == Approx(2 * experts));
  CHECK(b.optimizer_states.base() == Approx(b1.optimizer_states.base()));
  // The ETP group's gathered hidden inputs are saved for the experts' weight gradient: etp copies
  // of each routed token (2 bytes x h each), the expert mid-activations per own token unchanged.
  const double sb = 2.0 * 4096;
  CHECK(b.activations.base() - b1.activations.base() == Approx(L * sb * 8 * 2 * h / 2));  // / TP 2 (SP)
}

TEST_CASE("expert TP: the step runs the ETP collectives as expert communication", "[moe][etp][tlm]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  const StepResult r2 = execute_step(make_scenario(qwen(2), m)), r1 = execute_step(make_scenario(qwen(1), m));
  CHECK(r2.stages.front().ep_comm_s > r1.stages.front().ep_comm_s);  // two more collectives per MoE layer and pass
  CHECK(r2.step_time_s > 0);
}

TEST_CASE("bad expert-TP input gets a precise error", "[moe][etp][config]") {
  auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  nlohmann::json wl = nlohmann::json::parse(workload_to_json(qwen(2)));
  wl["parallel"]["etp"] = 3;  // ep x etp = 12 does not divide tp x dp = 8
  CHECK_THROWS_WITH(workload_from_json(wl, "w.json"), Catch::Contains("/parallel/etp") && Catch::Contains("divide tp x cp x dp"));
  wl["parallel"]["etp"] = 0;
  CHECK_THROWS_WITH(workload_from_json(wl, "w.json"), Catch::Contains("/parallel/etp"));
  m.moe.expert_ffn = 770;  // not a multiple of etp 4
  CHECK_THROWS_WITH(build_step_plan(m, qwen(4, 2)), Catch::Contains("/parallel/etp") && Catch::Contains("770"));
  const auto dense = load_model_spec(model_path("llama2-7b"));
  Workload w = test::workload("llama2-7b", "gb200-nvl72", 2, 1, 1, 8, 1, 16, 4096);
  w.etp = 2;
  CHECK_THROWS_WITH(build_step_plan(dense, w), Catch::Contains("not a MoE model"));
}
