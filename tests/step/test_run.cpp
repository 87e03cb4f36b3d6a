// test_run.cpp — issue 5: the whole step. Report and trace structure, cost, and invariants
// the model must obey whatever its calibration.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <set>

#include "run_helpers.hpp"
#include "platform.hpp"
#include "report.hpp"
#include "step_executor.hpp"

using namespace trnsim;
using test::workload;


using namespace trnsim;
using namespace trnsim::test;

TEST_CASE("the R3 report is complete, machine-readable, and its trace has the expected tracks", "[run]") {
  auto s = load_scenario(kR3);
  StepOptions opt;
  opt.trace = true;
  auto r = execute_step(s, opt);
  StepReport j = build_report(s, r);
  auto parsed = nlohmann::json::parse(render(j, "json"));
  for (const char* k : {"workload", "step", "throughput", "memory_per_core_gib", "cost"}) CHECK(parsed.contains(k));
  CHECK(parsed["step"]["step_time_s"].get<double>() > 0);
  CHECK(parsed["throughput"]["mfu"].get<double>() > 0.05);
  CHECK(parsed["throughput"]["mfu"].get<double>() < 1.0);
  auto trace = nlohmann::json::parse(step_trace_json(s, r));
  CHECK_THAT(trace["otherData"]["coverage"].get<std::string>(), Catch::StartsWith("complete: all 2 micro-batches"));
  std::set<std::string> tracks;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
  for (const char* t : {"stage 0 / tensor", "stage 0 / vector", "stage 0 / tp", "stage 0 / dp"}) {
    INFO(t);
    CHECK(tracks.count(t) == 1);
  }
  CHECK_THAT(render(j, "text"), Catch::Contains("tokens/s") && Catch::Contains("GiB") && Catch::Contains("$/M tokens"));
  CHECK_THAT(render(j, "md"), Catch::Contains("| step time (s) |"));
  // ZeRO-0 here: no note on unsharded gradients. The same report with a ZeRO-3 run reducing once
  // per step says why its gradients are as large as the unsharded model's.
  CHECK_THAT(render(j, "text"), !Catch::Contains("grads are unsharded"));
  j.workload.workload.zero = 3;
  j.workload.workload.reduce_every_micro_batch = false;
  CHECK_THAT(render(j, "text"), Catch::Contains("grads are unsharded: ZeRO-3 reducing once per step"));
  // A run whose linear weights live only in FP8 / MXFP8 (fp8_param_gather) says so beside the copies.
  s.workload.precision = Precision::FP8;
  s.workload.zero = 1;
  s.workload.fp8_param_gather = true;
  j = build_report(s, r);
  CHECK(to_json(j)["workload"]["fp8_param_gather"] == true);
  j.memory.low_precision_weight_copies = 1.5;
  CHECK_THAT(render(j, "text"), Catch::Contains("low-precision weight copies 1.50 GiB (the only copy of the linear weights"));
}

TEST_CASE("the trace of an extrapolated schedule says it is partial and where the simulated part ends", "[run]") {
  auto s = load_scenario(kR3);
  s.plan.micro_batches = 40;  // beyond the default cap (8 for one stage): the steady state is extrapolated
  StepOptions opt;
  opt.trace = true;
  auto r = execute_step(s, opt);
  REQUIRE(r.micro_batches_simulated < 40);
  auto trace = nlohmann::json::parse(step_trace_json(s, r));
  CHECK_THAT(trace["otherData"]["coverage"].get<std::string>(),
             Catch::StartsWith(fmt::format("partial: the trace shows {} of the step's 40 micro-batches", r.micro_batches_simulated)));
  double last_end = 0, marker = -1;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") last_end = std::max(last_end, e["ts"].get<double>() + e["dur"].get<double>());
    if (e["ph"] == "i") marker = e["ts"].get<double>();
  }
  CHECK(marker == last_end);
  CHECK(last_end * 1e-6 < 0.5 * r.step_time_s);  // the window really is a fraction of the step
}

TEST_CASE("cost per token is price x step time / tokens per step, exactly", "[run]") {
  auto s = load_scenario(kR3);
  auto j = make_report(s, execute_step(s));
  const double step = j["step"]["step_time_s"].get<double>();
  const double tokens = 1024.0 * 4096;
  for (auto [plan, price] : {std::pair{"on_demand", 21.50}, std::pair{"reserved", 7.59}}) {
    const double usd_per_token = price * 128 * step / 3600.0 / tokens;
    CHECK(j["cost"][plan]["usd_per_million_tokens"].get<double>() == Approx(usd_per_token * 1e6).epsilon(1e-12));
  }
}

TEST_CASE("doubling DP at fixed global batch never raises per-step compute per core", "[run][invariant]") {
  double prev = 1e30;
  for (int64_t nodes : {8, 16, 32, 64, 128}) {
    auto r = run(llama(nodes, 1024));
    const double compute = r.stages[0].compute_s + r.stages[0].recompute_s;
    INFO(nodes << " nodes: compute " << compute);
    CHECK(compute <= prev);
    prev = compute;
  }
}

TEST_CASE("PP bubble matches (p-1)/(m+p-1) when communication is free", "[run][invariant]") {
  const int64_t p = 4, m = 8;
  auto w = workload("llama2-7b", "trn1.32xlarge", 1, 8, p, 1, 1, m, 4096);
  w.sequence_parallel = true;
  w.checkpointing = Checkpointing::Selective;
  auto s = make_scenario(w, true);
  // Free links: infinite bandwidth, zero latency and overhead.
  s.hw.intra.link_bandwidth = s.hw.intra.onchip_bandwidth = s.hw.inter.nic_bandwidth = gigabytes_per_s(1e12);
  s.hw.intra.link_latency_s = s.hw.inter.latency_s = s.hw.collectives.step_overhead_s = 0;
  s.hw.concurrent_engines = false;  // the closed form counts busy time: one engine at a time
  auto r = execute_step(s);
  // Busy time of one micro-batch on the slowest stage, from the unpipelined stage time.
  double busiest = 0;
  for (const auto& st : r.stages) busiest = std::max(busiest, st.compute_s + st.recompute_s);
  const double pipeline = r.step_time_s - r.stages[static_cast<size_t>(r.critical_stage)].optimizer_s;
  const double bubble = 1.0 - busiest / pipeline;
  const double expected = double(p - 1) / double(m + p - 1);
  INFO("bubble " << bubble << " expected " << expected);
  CHECK(bubble == Approx(expected).epsilon(0.05));
}

TEST_CASE("turning off DP overlap never makes a step faster", "[run][invariant]") {
  auto w = llama(16, 256);
  const double on = run(w).step_time_s;
  w.overlap_dp = false;
  const double off = run(w).step_time_s;
  CHECK(off >= on);
}

TEST_CASE("selective recompute is slower than none and faster than full", "[run][invariant]") {
  auto w = llama(16, 256);
  w.checkpointing = Checkpointing::None;
  const double none = run(w).step_time_s;
  w.checkpointing = Checkpointing::Selective;
  const double sel = run(w).step_time_s;
  w.checkpointing = Checkpointing::Full;
  const double full = run(w).step_time_s;
  CHECK(none < sel);
  CHECK(sel < full);
}

TEST_CASE("the same input gives bit-identical reports", "[run]") {
  auto s = load_scenario(kR3);
  auto a = make_report(s, execute_step(s));
  auto b = make_report(s, execute_step(s));  // second run answers from the op cache
  CHECK(b["simulator"]["ops_simulated"] == 0);
  a.erase("simulator");
  b.erase("simulator");
  CHECK(a.dump() == b.dump());
}

TEST_CASE("reducing every micro-batch costs grad_accum reductions instead of one", "[run][closed-form]") {
  // Without overlap, each reduction runs alone on the fabric, so the exposed DP time is the
  // per-step reduction's exposed time times the number of micro-batches (all of them, as the
  // last one's reduction is the end-of-step one).
  auto w = workload("bert-1.5b", "dl1.24xlarge", 2, 1, 1, 16, 16, 16 * 16 * 6, 128);
  w.precision = Precision::MixedBF16;
  w.zero = 1;
  w.overlap_dp = false;
  REQUIRE(w.grad_accum() == 6);
  const auto once = run(w);
  w.reduce_every_micro_batch = true;
  const auto every = run(w);
  const auto& a = once.stages[0];
  const auto& b = every.stages[0];
  CHECK(b.dp_exposed_s == Approx(6 * a.dp_exposed_s).epsilon(1e-6));
  CHECK(b.dp_comm_s == Approx(6 * a.dp_comm_s).epsilon(1e-6));
  CHECK(b.compute_s == Approx(a.compute_s).epsilon(1e-12));
  CHECK(every.step_time_s == Approx(once.step_time_s + 5 * a.dp_exposed_s).epsilon(1e-6));
  // One micro-batch per step: the two schedules are the same program.
  w.global_batch = 16 * 16;
  const double one = run(w).step_time_s;
  w.reduce_every_micro_batch = false;
  CHECK(run(w).step_time_s == one);
}

TEST_CASE("ZeRO-2 shards gradients and reduces them every micro-batch", "[run][memory]") {
  auto w = llama(16, 256);
  w.overlap_dp = false;
  const auto z1 = make_scenario(w, true);
  w.zero = 2;
  w.reduce_every_micro_batch = true;
  const auto z2 = make_scenario(w, true);
  const auto& m1 = z1.memory[0];
  const auto& m2 = z2.memory[0];
  // Shard (1/dp) plus one layer's full gradients in flight; every other term unchanged.
  const double P = static_cast<double>(z1.plan.stages[0].parameters);
  CHECK(m2.gradients.base() == Approx(P * 2 / 64 + P / 32 * 2));
  CHECK(m2.gradients < m1.gradients);
  CHECK(m2.optimizer_states.base() == m1.optimizer_states.base());
  CHECK(m2.activations.base() == m1.activations.base());
  CHECK(execute_step(z2).step_time_s > execute_step(z1).step_time_s);
}

TEST_CASE("slower EFA never speeds a step up, and never touches TP traffic inside a node", "[run][invariant]") {
  // GPT-NeoX 20B TP8 PP4 on 4 trn1 nodes: one pipeline stage per node, so TP collectives stay
  // on each node's NeuronLinks and the stages' links are disjoint. (A shared link queue
  // across stages once made this step 3% faster at half the EFA bandwidth.)
  auto w = workload("gpt-neox-20b", "trn1.32xlarge", 4, 8, 4, 4, 1, 4 * 16, 2048);
  w.sequence_parallel = true;
  w.zero = 1;
  w.checkpointing = Checkpointing::Selective;
  auto s = make_scenario(w, true);
  std::vector<StepResult> r;
  for (double f : {1.0, 0.5, 0.25}) {
    auto sf = s;
    sf.hw.inter.nic_bandwidth = s.hw.inter.nic_bandwidth * f;
    r.push_back(execute_step(sf));
  }
  for (size_t i = 1; i < r.size(); ++i) {
    CHECK(r[i].step_time_s >= r[i - 1].step_time_s);
    for (size_t st = 0; st < r[i].stages.size(); ++st) CHECK(r[i].stages[st].tp_comm_s == Approx(r[0].stages[st].tp_comm_s).epsilon(1e-9));
  }
}

// The step breakdown's parts are exposed times plus compute and recompute, which sum each op's time
// on its engine: on one kernel stream (a GPU) they cannot add up to more than the step; on a
// NeuronCore, whose engines run ops side by side, they may, and the text report says so.
TEST_CASE("step breakdown: parts within the step on one stream and an overlap note where engines run side by side", "[run][report]") {
  auto parts_over_step = [](const nlohmann::json& rep) {
    double sum = 0;
    for (auto it = rep["step"]["breakdown_s"].begin(); it != rep["step"]["breakdown_s"].end(); ++it) sum += it.value().get<double>();
    return sum / rep["step"]["step_time_s"].get<double>();
  };
  for (const char* file : {"workloads/llama3_70b_h100_fp8_64gpu.json", "workloads/qwen3_30b_a3b_gb200_ep8.json"}) {
    const Scenario s = load_scenario(file);
    REQUIRE_FALSE(s.hw.concurrent_engines);
    const StepReport typed = build_report(s, execute_step(s, StepOptions{}));
    INFO(file);
    CHECK(parts_over_step(to_json(typed)) <= 1.0 + 1e-9);
    CHECK(render_text(typed).find("these add up to") == std::string::npos);
  }
  const Scenario t = load_scenario(kR3);
  const StepReport typed = build_report(t, execute_step(t, StepOptions{}));
  const bool over = parts_over_step(to_json(typed)) > 1.001;
  CHECK((render_text(typed).find("these add up to") != std::string::npos) == over);
}
