// test_stages.cpp — the report's per-pipeline-stage figures (report.cpp add_stages): each rank's
// layers, busy and waiting time and memory, and which stage the others wait for. A user reading
// an uneven split (issue 25, item 3) needs to see the stage that decides the step.
#include <catch2/catch.hpp>

#include <numeric>

#include "report.hpp"
#include "run_helpers.hpp"
#include "split_advice.hpp"

using namespace trnsim;

namespace {
// Llama 2 7B (32 layers) on two DGX-H100s at TP 2 x PP 4 x DP 2, flash attention, compiled (no
// host floor), 16 micro-batches per replica.
Workload piped(std::vector<int64_t> split, const std::string& model = "llama2-7b") {
  Workload w = test::workload(model, "dgx-h100", 2, 2, 4, 2, 1, 32, 4096);
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.sequence_parallel = true;
  w.execution = "compiled";
  if (!split.empty()) {
    w.pipeline_split = Workload::PipelineSplit::Explicit;
    w.layers_per_stage = std::move(split);
  }
  return w;
}

StepReport typed_report(const Workload& w) {
  const Scenario s = make_scenario(w, true);
  return build_report(s, execute_step(s));
}
nlohmann::json report(const Workload& w) { return to_json(typed_report(w)); }
}  // namespace

TEST_CASE("stages: every pipeline rank with its layers and its busy and waiting time", "[step][stages]") {
  const nlohmann::json j = report(piped({5, 9, 9, 9}));
  const auto& st = j["step"];
  REQUIRE(st.contains("stages"));
  const auto& stages = st["stages"];
  REQUIRE(stages.size() == 4);
  int64_t layers = 0;
  double latest = 0;
  for (size_t i = 0; i < 4; ++i) {
    const auto& g = stages[i];
    INFO("stage " << i);
    CHECK(g["stage"].get<size_t>() == i);
    layers += g["layers"].get<int64_t>();
    // busy + waiting is the stage's whole time line, and no stage ends after the step.
    CHECK(g["busy_s"].get<double>() + g["waiting_s"].get<double>() == Approx(g["finish_s"].get<double>()).epsilon(1e-12));
    CHECK(g["compute_s"].get<double>() <= g["busy_s"].get<double>() + 1e-12);
    CHECK(g["memory_gib"].get<double>() > 0);
    latest = std::max(latest, g["finish_s"].get<double>());
  }
  CHECK(layers == 32);
  CHECK(stages[0]["layers"] == 5);
  CHECK(stages[1]["layers"] == 9);
  CHECK(stages[0]["embedding"].get<bool>());
  CHECK(stages[3]["loss"].get<bool>());
  CHECK_FALSE(stages[1]["embedding"].get<bool>());
  // The critical stage is the one that ends the step.
  CHECK(latest == Approx(st["step_time_s"].get<double>()).epsilon(1e-12));
  CHECK(stages[st["critical_stage"].get<size_t>()]["finish_s"].get<double>() == Approx(latest).epsilon(1e-12));
  // Five layers and the embedding keep stage 0 the least busy; the others wait for a 9-layer stage.
  const auto& bal = st["stage_balance"];
  CHECK(bal["busiest_stage"].get<int>() >= 1);
  CHECK(stages[0]["busy_s"].get<double>() < 0.75 * bal["busiest_busy_s"].get<double>());
  // The idle stage 0 waits: its waiting time is at least the busy gap to the busiest stage, less
  // the fill and drain it would wait anyway (a fraction of a micro-batch per stage).
  CHECK(stages[0]["waiting_s"].get<double>() > 0.5 * (bal["busiest_busy_s"].get<double>() - stages[0]["busy_s"].get<double>()));
}

TEST_CASE("stages: an uneven split is more imbalanced than an even one", "[step][stages]") {
  const double even = report(piped({}))["step"]["stage_balance"]["imbalance"].get<double>();
  const double uneven = report(piped({5, 9, 9, 9}))["step"]["stage_balance"]["imbalance"].get<double>();
  INFO("imbalance even " << even << ", 5/9/9/9 " << uneven);
  // Busy time follows the layers, the last stage carrying the LM head and loss besides: worth h
  // layers, the even split's busiest stage is the last, (8 + h) / ((32 + h) / 4) = even, which
  // gives h; the 5/9/9/9 split's is the last too, at (9 + h) / ((32 + h) / 4). (What every stage
  // does beside its layers, the DP stream and the optimizer, pulls both a little towards 1.)
  REQUIRE(even > 1.0);
  const double h = 8 * (even - 1) / (1 - even / 4);
  CHECK(h > 0.2);  // the head: 32,000 x 4,096 weights against a layer's 202 M, at the same tokens
  CHECK(h < 1.5);
  CHECK(uneven == Approx((9 + h) / ((32 + h) / 4)).epsilon(0.02));
  CHECK(uneven > even + 0.05);
}

TEST_CASE("stages: none without a pipeline and the text lists them", "[step][stages]") {
  Workload one = piped({});
  one.pp = 1;
  one.dp = 8;
  CHECK_FALSE(report(one)["step"].contains("stages"));
  const std::string text = render_text(typed_report(piped({5, 9, 9, 9})));
  CHECK(text.find("pipeline stages: busiest") != std::string::npos);
  CHECK(text.find("E 5") != std::string::npos);
  CHECK(text.find("9 L") != std::string::npos);
  CHECK(render_markdown(typed_report(piped({}))).find("busiest pipeline stage") != std::string::npos);
}

TEST_CASE("split advice: layers move off the stage with the LM head and the step gets faster", "[step][stages]") {
  // Llama 3.1 8B: a 128,256 x 4,096 head (525 M weights) against 218 M per layer, on the last of
  // four stages of 8 layers: that stage does about 10.4 layers' work, the mean 8.6.
  const Workload w = piped({}, "llama3.1-8b");
  const Scenario s = make_scenario(w, true);
  const StepResult r = execute_step(s);
  const auto splits = balanced_splits(s, r);
  REQUIRE_FALSE(splits.empty());
  for (const auto& split : splits) {
    CHECK(split.size() == 4);
    CHECK(std::accumulate(split.begin(), split.end(), int64_t{0}) == 32);
    CHECK(split.back() < 8);  // the head's stage gives layers away
    CHECK(split.back() >= 5);
  }
  StepReport typed = build_report(s, r);
  add_split_advice(typed, s, r);
  const nlohmann::json j = to_json(typed);
  REQUIRE(j.contains("pipeline_split_advice"));
  const auto& a = j["pipeline_split_advice"];
  CHECK(a["change_pct"].get<double>() < -0.5);
  CHECK(a["imbalance"].get<double>() < j["step"]["stage_balance"]["imbalance"].get<double>());
  // The advice is what that split simulates to, and its --set string names it.
  Workload e = w;
  e.pipeline_split = Workload::PipelineSplit::Explicit;
  e.layers_per_stage = a["layers_per_stage"].get<std::vector<int64_t>>();
  CHECK(test::run(e).step_time_s == Approx(a["step_time_s"].get<double>()).epsilon(1e-12));
  CHECK(a["set"].get<std::string>().find("parallel.layers_per_stage=[") != std::string::npos);
  CHECK(render_text(typed).find("a split that evens the stages out") != std::string::npos);
}

TEST_CASE("split advice: none for two stages or virtual stages", "[step][stages]") {
  for (bool two : {true, false}) {
    Workload w = piped({}, "llama3.1-8b");
    if (two) w.pp = 2, w.dp = 4;
    else w.virtual_stages = 2;
    const Scenario s = make_scenario(w, true);
    const StepResult r = execute_step(s);
    CHECK(balanced_splits(s, r).empty());
    StepReport typed = build_report(s, r);
    add_split_advice(typed, s, r);
    CHECK_FALSE(to_json(typed).contains("pipeline_split_advice"));
  }
}
