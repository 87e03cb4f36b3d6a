// test_plan_shapes.cpp — issue 24's threaded search: plan shapes built on several threads equal
// those built on one; a look-up-only WorkTimes counts what it has not seen as missing (never
// simulating), and once simulate_missed() has run it gives exactly the simulating step work; a
// shape nobody needs is described (memory inputs) but not timed; the space never offers a MoE
// layout the plan refuses (tp > 1 without sequence parallelism).
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "plan_shapes.hpp"
#include "platform.hpp"
#include "scenario.hpp"
#include "layout_space.hpp"
#include "step_bound.hpp"
#include "step_graph.hpp"

using namespace trnsim;

namespace {
// One DGX H100's Qwen3-30B-A3B at TP 2, DP 4, EP 8 (tests/helpers.hpp), by micro-batch and recompute.
Workload moe_shape_workload(int64_t mb, Checkpointing ck) {
  Workload w = test::moe_workload("qwen3-30b-a3b", "dgx-h100", 1, 2, 4, 8, mb, 32, 1024);
  w.checkpointing = ck;
  return w;
}
}  // namespace

TEST_CASE("a look-up-only WorkTimes misses unseen ops, and after simulate_missed equals simulating", "[search][threads]") {
  const ModelSpec model = load_model_spec(model_path("qwen3-30b-a3b"));
  const HwSpec hw = load_hw_spec(hw_path("dgx-h100"));
  // A micro-batch no other test uses, so its GEMM shapes are new to the process's op memo.
  const Workload w = moe_shape_workload(3, Checkpointing::Selective);
  const StepPlan plan = build_step_plan(model, w);
  Platform::instance().configure(hw);
  WorkTimes look(hw, false);
  const StepWork partial = step_work(plan, hw, false, false, look, false);
  REQUIRE(look.missed());
  look.simulate_missed();
  CHECK_FALSE(look.missed());
  Platform::instance().configure(hw);
  WorkTimes again(hw, false);
  const StepWork complete = step_work(plan, hw, false, false, again, false);
  CHECK_FALSE(again.missed());
  WorkTimes simulating(hw, true);
  const StepWork reference = step_work(plan, hw, false, false, simulating, false);
  CHECK(complete.forward_s == reference.forward_s);
  CHECK(complete.backward_s == reference.backward_s);
  CHECK(complete.backward_other_s == reference.backward_other_s);
  for (size_t k = 0; k < partial.forward_s.size(); ++k) CHECK(partial.forward_s[k] <= complete.forward_s[k]);
}

TEST_CASE("plan shapes built on three threads equal those built on one - unneeded shapes are not timed", "[search][threads]") {
  const ModelSpec model = load_model_spec(model_path("qwen3-30b-a3b"));
  const std::vector<HwSpec> hws = {load_hw_spec(hw_path("dgx-h100"))};
  std::vector<ShapeJob> jobs;
  for (int64_t mb : {1, 2, 4})
    for (auto ck : {Checkpointing::None, Checkpointing::Selective, Checkpointing::Full}) jobs.push_back({moe_shape_workload(mb, ck), 0});
  auto all = [](size_t, const PlanShape&) { return true; };
  const auto one = build_plan_shapes(jobs, model, hws, all, 1, false);
  const auto three = build_plan_shapes(jobs, model, hws, all, 3, false);
  REQUIRE(one.size() == jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) {
    INFO("shape " << k);
    CHECK(one[k].ok);
    CHECK(one[k].timed);
    CHECK(one[k].F == three[k].F);
    CHECK(one[k].B_serial == three[k].B_serial);
    CHECK(one[k].B_overlap == three[k].B_overlap);
    CHECK(one[k].parameters == three[k].parameters);
    CHECK(one[k].ops_per_micro_batch == three[k].ops_per_micro_batch);
  }
  // Only the even jobs are needed: the others keep their memory inputs but are not timed.
  auto even = [](size_t k, const PlanShape& sh) { return k % 2 == 0 && !sh.memory.empty(); };
  const auto some = build_plan_shapes(jobs, model, hws, even, 2, false);
  for (size_t k = 0; k < jobs.size(); ++k) {
    CHECK(some[k].ok);
    CHECK(some[k].timed == (k % 2 == 0));
    CHECK(some[k].memory.size() == one[k].memory.size());
    if (k % 2 == 0) CHECK(some[k].F == one[k].F);
  }
}

// Its own test case (process, under ctest), and not run under the sanitizers ([no-sanitizer]): the
// plan's refusal is a ConfigError caught inside build_plan_shapes, after which clang's ASan reports
// a stack-buffer-overflow inside libfmt.so (uninstrumented) formatting HwSpec::fingerprint: stale
// shadow of the unwound frames read through fmt's instrumented inline buffer code, the class of
// google/sanitizers#189. The plain build runs it.
TEST_CASE("a shape the plan refuses gets its rejection reason on one thread and on three", "[search][threads][no-sanitizer]") {
  const ModelSpec model = load_model_spec(model_path("qwen3-30b-a3b"));
  const std::vector<HwSpec> hws = {load_hw_spec(hw_path("dgx-h100"))};
  Workload bad = moe_shape_workload(1, Checkpointing::None);
  bad.sequence_parallel = false;  // refused by the plan: a rejection reason, not an exception
  const std::vector<ShapeJob> jobs = {{bad, 0}, {bad, 0}};
  auto all = [](size_t, const PlanShape&) { return true; };
  const auto one = build_plan_shapes(jobs, model, hws, all, 1, false);
  const auto three = build_plan_shapes(jobs, model, hws, all, 3, false);
  for (size_t k = 0; k < jobs.size(); ++k) {
    CHECK_FALSE(one[k].ok);
    CHECK_FALSE(one[k].timed);
    CHECK(one[k].reason.find("sequence_parallel") != std::string::npos);
    CHECK(three[k].reason == one[k].reason);
  }
}

TEST_CASE("the search space has no MoE layout with tp > 1 and sequence parallelism off", "[search][moe]") {
  SpaceSpec spec;
  spec.model = "qwen3-30b-a3b";
  spec.hws = {"dgx-h100"};
  spec.nodes = {1};
  spec.seq_len = 1024;
  spec.global_batch = 32;
  spec.axes = parse_axes("attention=flash;fused=on;recompute=none;zero=1;dp_overlap=on;mb=1");
  const std::vector<HwSpec> hws = {load_hw_spec(hw_path("dgx-h100"))};
  const ModelSpec model = load_model_spec(model_path("qwen3-30b-a3b"));
  size_t tp_gt_1 = 0;
  for (const auto& l : enumerate_space(spec, model, hws)) {
    if (l.tp == 1) continue;
    ++tp_gt_1;
    CHECK(l.sp);
  }
  CHECK(tp_gt_1 > 0);
}
