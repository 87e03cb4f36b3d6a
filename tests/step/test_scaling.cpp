// test_scaling.cpp — `trnsim run`'s weak-scaling efficiency (app/step/scaling.hpp): the baseline is
// the same replica and per-replica batch on the fewest whole nodes, its step is the one a workload
// written for those nodes gives, and with nothing sharded over data parallelism a larger cluster
// never raises the per-core throughput.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "report.hpp"
#include "scaling.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"

using namespace trnsim;

TEST_CASE("scaling baseline: the same replica and per-replica batch on the fewest whole nodes", "[run][scaling]") {
  // TP 8 x DP 16 on 4 trn1 nodes of 32 cores, 8 micro-batches per replica: one node holds DP 4.
  const Workload w = test::workload("llama2-7b", "trn1.32xlarge", 4, 8, 1, 16, 1, 128, 4096);
  std::string why;
  const auto b = one_node_baseline(w, 32, why);
  REQUIRE(b.has_value());
  CHECK(b->dp == 4);
  CHECK(b->nodes == 1);
  CHECK(b->devices() == 32);
  CHECK(b->grad_accum() == w.grad_accum());
  CHECK(b->global_batch == 32);
  // A replica wider than a node: TP 8 x PP 8 = 64 cores, so the baseline is DP 1 on 2 nodes.
  const auto wide = one_node_baseline(test::workload("llama2-7b", "trn1.32xlarge", 8, 8, 8, 4, 1, 64, 4096), 32, why);
  REQUIRE(wide.has_value());
  CHECK(wide->dp == 1);
  CHECK(wide->nodes == 2);
  // Nothing smaller: DP 1, or an expert grid of 8 over TP 1 that only DP 8 holds.
  CHECK_FALSE(one_node_baseline(test::workload("llama2-7b", "trn1.32xlarge", 1, 32, 1, 1, 1, 8, 4096), 32, why));
  CHECK_THAT(why, Catch::Contains("data parallelism is 1"));
  CHECK_FALSE(one_node_baseline(test::moe_workload("qwen3-30b-a3b", "gb200-nvl72", 2, 1, 8, 8, 1, 64, 4096), 4, why));
  CHECK_THAT(why, Catch::Contains("expert grid"));
  CHECK_FALSE(one_node_baseline(test::workload("llama2-7b", "trn1.32xlarge", 1, 8, 1, 4, 1, 32, 4096), 32, why));
  CHECK_THAT(why, Catch::Contains("one node already"));
}

TEST_CASE("scaling efficiency: the baseline's own step, and no gain from more replicas with nothing sharded", "[run][scaling]") {
  Workload w = test::workload("llama2-7b", "trn1.32xlarge", 4, 8, 1, 16, 1, 128, 4096);
  w.zero = 0;
  w.checkpointing = Checkpointing::Full;
  const Scenario s = make_scenario(w);
  const StepResult r = execute_step(s, StepOptions{});
  StepReport typed = build_report(s, r);
  add_scaling(typed, s);
  const nlohmann::json report = to_json(typed);
  REQUIRE(report["scaling"].contains("efficiency"));
  const double eff = report["scaling"]["efficiency"].get<double>();
  CHECK(eff <= 1.0 + 1e-12);
  CHECK(eff > 0.5);
  // The same figure from the one-node workload written out by hand.
  Workload one = test::workload("llama2-7b", "trn1.32xlarge", 1, 8, 1, 4, 1, 32, 4096);
  one.zero = 0;
  one.checkpointing = Checkpointing::Full;
  const StepResult r1 = execute_step(make_scenario(one), StepOptions{});
  CHECK(report["scaling"]["baseline"]["step_time_s"].get<double>() == Approx(r1.step_time_s).epsilon(1e-12));
  const double per_core_one = 32.0 * 4096 / r1.step_time_s / 32, per_core = 128.0 * 4096 / r.step_time_s / 128;
  CHECK(eff == Approx(per_core / per_core_one).epsilon(1e-12));
}
