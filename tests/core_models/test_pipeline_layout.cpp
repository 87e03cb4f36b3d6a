// test_pipeline_layout.cpp — Megatron-Core pipeline layout strings (issue 24: DeepSeek-V3's 61
// layers over PP x VP): the grammar, the placements trnsim runs, the workload field and its
// errors, and the plan a layout builds (chunk contents, FLOPs independent of the split).
#include <catch2/catch.hpp>

#include <stdexcept>

#include "helpers.hpp"
#include "model_spec.hpp"
#include "pipeline_layout.hpp"
#include "trnsim/error.hpp"

using namespace trnsim;

TEST_CASE("pipeline layout grammar: symbols, repeats, groups, separators", "[pipeline][layout]") {
  // Megatron-Core's documented DeepSeek-V3 layout for PP 8 x VP 4.
  const auto c = parse_pipeline_layout("Et|(tt|)*30mL");
  REQUIRE(c.size() == 32);
  CHECK(c[0].embedding);
  CHECK(c[0].layers == 1);
  for (size_t k = 1; k < 31; ++k) {
    CHECK(c[k].layers == 2);
    CHECK_FALSE(c[k].embedding);
    CHECK_FALSE(c[k].loss);
  }
  CHECK(c[31].layers == 0);
  CHECK(c[31].mtp == 1);
  CHECK(c[31].loss);
  CHECK(pipeline_layout_problem(c).empty());
  int64_t sum = 0;
  for (auto n : layout_layers(c)) sum += n;
  CHECK(sum == 61);
  // Spaces and commas are ignored; nested repeats multiply; a trailing '|' ends the last chunk.
  const auto d = parse_pipeline_layout("E t*2 | ((t|)*2)*3 , t L |");
  REQUIRE(d.size() == 8);
  CHECK(d[0].layers == 2);
  CHECK(d[6].layers == 1);
  CHECK(d[7].layers == 1);
  CHECK(d[7].loss);
}

TEST_CASE("pipeline layout errors name the problem and the place", "[pipeline][layout]") {
  CHECK_THROWS_WITH(parse_pipeline_layout("Ex|tL"), Catch::Contains("unknown symbol 'x'"));
  CHECK_THROWS_WITH(parse_pipeline_layout("E(tt|tL"), Catch::Contains("'(' without its ')'"));
  CHECK_THROWS_WITH(parse_pipeline_layout("Ett)|tL"), Catch::Contains("')' without its '('"));
  CHECK_THROWS_WITH(parse_pipeline_layout("Et*|tL"), Catch::Contains("repeat count"));
  CHECK_THROWS_WITH(parse_pipeline_layout(" , "), Catch::Contains("empty layout"));
  CHECK_THROWS_AS(parse_pipeline_layout("((t*100000)*100000)*100000"), std::invalid_argument);
  auto problem = [](const std::string& s) { return pipeline_layout_problem(parse_pipeline_layout(s)); };
  CHECK_THAT(problem("t|EtL"), Catch::Contains("embedding E is in chunk 1"));
  CHECK_THAT(problem("EtL|t"), Catch::Contains("loss L is in chunk 0"));
  CHECK_THAT(problem("Et|tm|L"), Catch::Contains("MTP module m is in chunk 1"));
  CHECK_THAT(problem("Et||tL"), Catch::Contains("chunk 1 is empty"));
  CHECK_THAT(problem("Et|E|tL"), Catch::Contains("embedding E is in chunk 1"));
  CHECK_THAT(problem("t|tL"), Catch::Contains("no embedding E"));
  CHECK_THAT(problem("Et|t"), Catch::Contains("no loss L"));
  CHECK(problem("E|t*4|tL").empty());  // the embedding alone in the first chunk
}

TEST_CASE("workload pipeline_layout: an explicit split, round trip, one-line errors", "[pipeline][layout][config]") {
  nlohmann::json j = {{"name", "ds"},
                      {"model", "deepseek-v3"},
                      {"hw", "gb200-nvl72"},
                      {"nodes", 64},
                      {"parallel", {{"tp", 1}, {"pp", 4}, {"dp", 64}, {"ep", 64}, {"virtual_stages", 4}, {"zero", 1},
                                    {"sequence_parallel", false}, {"pipeline_layout", "Et*4|(t*4|)*14tmL"}}},
                      {"batch", {{"micro_batch", 1}, {"global_batch", 4096}, {"seq_len", 4096}}},
                      {"precision", "mxfp8"},
                      {"checkpointing", "none"},
                      {"fused", {{"qkv", true}, {"gate_up", true}}},
                      {"attention", "flash"}};
  const Workload w = workload_from_json(j, "ds.json");
  CHECK(w.pipeline_split == Workload::PipelineSplit::Explicit);
  CHECK(w.layers_per_stage.size() == 16);
  CHECK(w.layers_per_stage.back() == 1);
  CHECK(w.layout_mtp == 1);
  const Workload back = workload_from_json(nlohmann::json::parse(workload_to_json(w)), "back.json");
  CHECK(back.pipeline_layout == w.pipeline_layout);
  CHECK(back.layers_per_stage == w.layers_per_stage);

  auto bad = j;
  bad["parallel"]["pipeline_layout"] = "Et*4|(t*4|)*14tm|L";
  CHECK_THROWS_WITH(workload_from_json(bad, "ds.json"),
                    Catch::Contains("ds.json") && Catch::Contains("pipeline_layout") && Catch::Contains("move m there"));
  bad = j;
  bad["parallel"]["layers_per_stage"] = std::vector<int>(16, 4);
  CHECK_THROWS_WITH(workload_from_json(bad, "ds.json"), Catch::Contains("remove layers_per_stage"));
  // Checked against the model and the degrees when the plan is built.
  const auto m = load_model_spec(model_path("deepseek-v3"));
  Workload x = w;
  x.virtual_stages = 2;
  CHECK_THROWS_WITH(build_step_plan(m, x), Catch::Contains("16 chunks but pp x virtual_stages = 4 x 2 = 8"));
  set_pipeline_layout(x, "Et*8|(t*8|)*6t*5L");
  CHECK_THROWS_WITH(build_step_plan(m, x), Catch::Contains("0 MTP modules m but deepseek-v3 has 1"));
  set_pipeline_layout(x, "Et*8|(t*8|)*6t*4mL");
  CHECK_THROWS_WITH(build_step_plan(m, x), Catch::Contains("places 60 decoder layers t but deepseek-v3 has 61"));
}

TEST_CASE("a layout's plan: embedding first, MTP and loss last, same FLOPs as any split", "[pipeline][layout][graph]") {
  const auto m = load_model_spec(model_path("deepseek-v3"));
  Workload w = test::moe_workload("deepseek-v3", "gb200-nvl72", 64, 1, 64, 64, 1, 4096, 4096);
  w.pp = 8, w.dp = 32, w.ep = 32, w.virtual_stages = 4;
  set_pipeline_layout(w, "Et|(tt|)*30mL");
  const auto plan = build_step_plan(m, w);
  REQUIRE(plan.stages.size() == 32);
  const auto& first = plan.stages.front();
  const auto& last = plan.stages.back();
  CHECK(first.num_layers == 1);
  CHECK(last.num_layers == 0);
  CHECK(last.rank == 7);
  auto has = [](const StageProgram& st, const std::string& part) {
    for (auto v : boost::make_iterator_range(boost::vertices(st.graph)))
      if (st.graph[v].label.find(part) != std::string::npos) return true;
    return false;
  };
  CHECK(has(last, "mtp0."));
  CHECK(has(last, "logits"));
  CHECK_FALSE(has(plan.stages[30], "mtp0."));
  CHECK(has(first, "embed"));
  // Total work does not depend on where the layers sit: the same model over 32 balanced chunks.
  Workload even = w;
  even.pipeline_layout.clear();
  even.pipeline_split = Workload::PipelineSplit::Balanced;
  const auto gemm = [](const Op& o) { return o.kind == OpKind::Gemm ? o.flops.base() : 0.0; };
  CHECK(test::sum_ops(plan, gemm) == Approx(test::sum_ops(build_step_plan(m, even), gemm)).epsilon(1e-12));
  // The step runs; the last rank's chunk without decoder layers still carries MTP and the head.
  CHECK(make_scenario(w, m, true).plan.stages.back().parameters > 0);
}
