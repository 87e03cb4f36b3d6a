// test_ep_overlap.cpp — expert all-to-all overlap (parallel.ep_overlap: Megatron-Core's
// overlap_moe_expert_parallel_comm, the combined 1F1B schedule that interleaves forward i + 1 with
// backward i). Checked on the schedule's pairs (which slots may hide their all-to-alls), on the
// step (less exposed EP time, never slower, never faster than its compute, nothing hidden without
// a pair), on the search's lower bound, and on the loader's errors.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "pipeline_schedule.hpp"
#include "layout_space.hpp"
#include "stack_profile.hpp"
#include "step_bound.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

namespace {
// Each steady-state pair is a slot opening it (1) and the next closing it (2); everything else runs alone.
void check_pairs(const std::vector<Slot>& order, int expected_pairs) {
  int pairs = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i].pair == 1) {
      REQUIRE(i + 1 < order.size());
      CHECK(order[i + 1].pair == 2);
      CHECK(order[i].forward != order[i + 1].forward);  // a forward with a backward
      ++pairs;
    }
    if (order[i].pair == 2) CHECK((i > 0 && order[i - 1].pair == 1));
  }
  CHECK(pairs == expected_pairs);
}

// Qwen3-30B-A3B on 16 DGX-B200s' GPUs (2 nodes) at EP 16: the all-to-alls cross InfiniBand.
Workload qwen_ep16(int64_t pp, int64_t gb, bool overlap) {
  Workload w = test::moe_workload("qwen3-30b-a3b", "dgx-b200", 2, 1, 16 / pp, 16 / pp, 1, gb, 4096);
  w.pp = pp;
  w.ep_overlap = overlap;
  return w;
}

// A Qwen3-30B-A3B search space on two nodes of one hardware, with the enumerator's inputs.
struct QwenSpace {
  SpaceSpec spec;
  std::vector<HwSpec> hws;
  ModelSpec model;
};
QwenSpace qwen_space(const std::string& hw, int64_t seq, int64_t global_batch, const std::string& axes) {
  QwenSpace q;
  q.spec.model = "qwen3-30b-a3b";
  q.spec.hws = {hw};
  q.spec.nodes = {2};
  q.spec.seq_len = seq;
  q.spec.global_batch = global_batch;
  q.spec.axes = parse_axes(axes);
  q.hws = {load_hw_spec(hw_path(hw))};
  q.model = load_model_spec(model_path("qwen3-30b-a3b"));
  return q;
}
}  // namespace

TEST_CASE("1F1B's steady-state forward / backward pairs, as a combined schedule runs them", "[ep][overlap][schedule]") {
  // Rank 0 of 4, 8 micro-batches: 3 warm-up forwards, 5 pairs (forward 3 + i with backward i), 3 cool-down backwards.
  const auto first = rank_schedule(Schedule::OneF1B, 4, 0, 8, 1);
  check_pairs(first, 5);
  for (int i = 0; i < 3; ++i) CHECK(first[static_cast<size_t>(i)].pair == 0);
  CHECK(first[3].forward);
  CHECK(first[3].mb == 3);
  CHECK(first[4].mb == 0);
  for (size_t i = first.size() - 3; i < first.size(); ++i) CHECK(first[i].pair == 0);
  // No warm-up (no pipeline, or the last rank): backward i pairs with forward i + 1; the first
  // forward and the last backward run alone.
  for (const auto& order : {rank_schedule(Schedule::OneF1B, 1, 0, 6, 1), rank_schedule(Schedule::OneF1B, 4, 3, 6, 1)}) {
    check_pairs(order, 5);
    CHECK(order.front().pair == 0);
    CHECK(order.back().pair == 0);
    CHECK(order[1].pair == 1);
    CHECK_FALSE(order[1].forward);
    CHECK(order[2].mb == 1);
  }
  // Interleaved 1F1B: every slot after the warm-up pairs until the cool-down.
  const auto interleaved = rank_schedule(Schedule::OneF1B, 2, 0, 4, 2);  // 8 passes each way, 4 warm-up forwards
  check_pairs(interleaved, 4);
  // One micro-batch, or GPipe: no pairs.
  check_pairs(rank_schedule(Schedule::OneF1B, 1, 0, 1, 1), 0);
  check_pairs(rank_schedule(Schedule::GPipe, 4, 0, 8, 1), 0);
}

TEST_CASE("EP overlap hides the steady state's all-to-alls: never slower, never faster than the compute", "[ep][overlap][tlm]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  for (int64_t pp : {1, 2}) {
    INFO("pp " << pp);
    const StepResult on = execute_step(make_scenario(qwen_ep16(pp, 128, true), m)),
                     off = execute_step(make_scenario(qwen_ep16(pp, 128, false), m));
    const auto &a = on.stages.front(), &b = off.stages.front();
    CHECK(b.ep_comm_s > 0.05 * off.step_time_s);  // the all-to-alls matter here (InfiniBand)
    CHECK(a.ep_comm_s < 0.5 * b.ep_comm_s);
    CHECK(on.step_time_s < off.step_time_s);
    CHECK(on.step_time_s >= a.compute_s + a.recompute_s);
    // The same work either way; the hidden all-to-alls only slow the GEMMs beside them (DeepEP's SMs).
    CHECK(a.compute_s + a.recompute_s - a.comm_slowdown_s == Approx(b.compute_s + b.recompute_s - b.comm_slowdown_s));
    CHECK(a.comm_slowdown_s > b.comm_slowdown_s);
  }
  // One micro-batch per step has no steady-state pair: nothing is hidden, the step is unchanged.
  const StepResult one_on = execute_step(make_scenario(qwen_ep16(1, 16, true), m)),
                   one_off = execute_step(make_scenario(qwen_ep16(1, 16, false), m));
  CHECK(one_on.step_time_s == Approx(one_off.step_time_s).epsilon(1e-9));
  CHECK(one_on.stages.front().ep_comm_s == Approx(one_off.stages.front().ep_comm_s).epsilon(1e-9));
}

// Forward i + 1 beside backward i: a rank without warm-up forwards holds two micro-batches'
// activations, not one; ranks with warm-up hold what 1F1B holds (p - r).
TEST_CASE("EP overlap holds a second micro-batch's activations where 1F1B holds one", "[ep][overlap][memory]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  auto stages = [&](int64_t pp, int64_t gb, bool overlap) {
    const Workload w = qwen_ep16(pp, gb, overlap);
    return memory_per_stage(m, w, build_step_plan(m, w));
  };
  const auto on = stages(1, 128, true), off = stages(1, 128, false);
  CHECK(on.front().in_flight == 2);
  CHECK(off.front().in_flight == 1);
  // One more micro-batch of every layer's saved activations (the loss's kept logits stay one set).
  CHECK(on.front().activations.base() - off.front().activations.base() ==
        Approx(off.front().activation_per_layer.base() * static_cast<double>(m.layers)));
  CHECK(on.front().weights.base() == off.front().weights.base());
  // One micro-batch per step: nothing beside it.
  CHECK(stages(1, 16, true).front().in_flight == 1);
  // Two stages: the first keeps 1F1B's two, the last (no warm-up) goes from one to two.
  const auto pon = stages(2, 128, true), poff = stages(2, 128, false);
  CHECK(pon.front().in_flight == 2);
  CHECK(poff.front().in_flight == 2);
  CHECK(pon.back().in_flight == 2);
  CHECK(poff.back().in_flight == 1);
}

TEST_CASE("the search's lower bound holds under EP overlap", "[ep][overlap][search][invariant]") {
  const auto m = load_model_spec(model_path("qwen3-30b-a3b"));
  for (int64_t pp : {1, 2}) {
    const Scenario s = make_scenario(qwen_ep16(pp, 128, true), m);
    const StepBound b = step_lower_bound(s);
    const double step = execute_step(s).step_time_s;
    INFO(fmt::format("pp {}: bound {:.6f} s, step {:.6f} s", pp, b.step_time_s, step));
    CHECK(b.step_time_s <= step);
    CHECK(b.step_time_s > 0.5 * step);
  }
}

TEST_CASE("ep_overlap: refused without expert parallelism or without 1F1B pairs, round-trips", "[ep][overlap][config]") {
  nlohmann::json j = load_json_file(std::string(TRNSIM_SOURCE_DIR) + "/workloads/qwen3_30b_a3b_gb200_ep8.json");
  j["parallel"]["ep_overlap"] = true;
  const Workload w = workload_from_json(j, "w.json");
  CHECK(w.ep_overlap);
  CHECK(workload_from_json(nlohmann::json::parse(workload_to_json(w)), "again.json").ep_overlap);
  j["parallel"]["ep"] = 1;
  CHECK_THROWS_WITH(workload_from_json(j, "w.json"),
                    Catch::Contains("w.json") && Catch::Contains("ep_overlap") && Catch::Contains("raise ep"));
  j["parallel"]["ep"] = 8;
  j["parallel"]["schedule"] = "gpipe";
  CHECK_THROWS_WITH(workload_from_json(j, "w.json"), Catch::Contains("ep_overlap") && Catch::Contains("1f1b"));
}

// A profile may declare it: applied to runs with expert parallelism only (switched off at ep 1, as
// SP is at tp 1), and the search sets it on exactly the layouts with ep > 1.
TEST_CASE("a profile's ep_overlap: applied where ep > 1, in runs and in the search's layouts", "[ep][overlap][stack][search]") {
  const auto profile = [](const std::string& defaults) {
    return nlohmann::json::parse(R"({"name": "x", "description": "d", "sources": ["s"], "defaults": )" + defaults + "}");
  };
  CHECK_THROWS_WITH(stack_profile_from_json(profile(R"({"parallel": {"ep_overlap": "yes"}})"), "stacks/x.json"),
                    Catch::Contains("stacks/x.json /defaults") && Catch::Contains("/parallel/ep_overlap"));
  const nlohmann::json defaults = {{"parallel", {{"ep_overlap", true}}}};
  const std::string file = "/tmp/trnsim_test_ep_overlap_profile.json";
  {
    std::ofstream out(file);
    out << profile(defaults.dump()).dump();
  }
  const StackLookup lookup = [&](const std::string&) { return file; };
  nlohmann::json j = load_json_file(std::string(TRNSIM_SOURCE_DIR) + "/workloads/qwen3_30b_a3b_gb200_ep8.json");
  j["stack"] = "x";
  CHECK(workload_from_json(j, "w.json", lookup).ep_overlap);
  j["parallel"].erase("ep");
  CHECK_FALSE(workload_from_json(j, "w.json", lookup).ep_overlap);

  auto [spec, hws, model] = qwen_space("gb200-nvl72", 2048, 32, "attention=flash;fused=on;recompute=none;tp=1;pp=1;zero=1;dp_overlap=on;mb=1;ep=1,2,8");
  use_stack(spec, "x", lookup);
  std::set<int64_t> seen;
  for (const auto& l : enumerate_space(spec, model, hws)) {
    const Workload w = layout_workload(l, spec, hws[0]);
    CHECK(w.ep_overlap == (w.ep > 1));
    seen.insert(w.ep);
  }
  CHECK(seen == std::set<int64_t>{1, 2, 8});
  std::remove(file.c_str());
}

TEST_CASE("ep_overlap as a search axis: both settings where ep > 1, off where ep = 1, named apart", "[ep][overlap][search]") {
  auto [spec, hws, model] =
      qwen_space("dgx-h100", 1024, 64, "attention=flash;fused=on;recompute=none;tp=1;pp=1;zero=1;dp_overlap=on;mb=1;ep=1,8,16;ep_overlap=on,off");
  std::set<std::pair<int64_t, bool>> seen;
  std::set<std::string> names;
  for (const auto& l : enumerate_space(spec, model, hws)) {
    const Workload w = layout_workload(l, spec, hws[0]);
    CHECK(w.ep_overlap == l.ep_overlap);
    seen.insert({w.ep, w.ep_overlap});
    names.insert(w.name);
  }
  CHECK(seen == std::set<std::pair<int64_t, bool>>{{1, false}, {8, false}, {8, true}, {16, false}, {16, true}});
  CHECK(names.size() == 5);
  // Without the axis (and without a profile that sets it): off everywhere, the space no larger.
  spec.axes = parse_axes("attention=flash;fused=on;recompute=none;tp=1;pp=1;zero=1;dp_overlap=on;mb=1;ep=1,8,16");
  CHECK(enumerate_space(spec, model, hws).size() == 3);
  CHECK_THROWS_AS(parse_axes("ep_overlap=maybe"), UsageError);
}
