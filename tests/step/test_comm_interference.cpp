// test_comm_interference.cpp — a collective running beside compute holds some of a GPU's SMs
// (hw collectives.compute_units), so a GEMM that starts while it runs takes 1 / (1 - share) of
// its time; element-wise ops (memory-bound) and hardware with its own collective engines are
// unaffected.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "run_helpers.hpp"
#include "step_executor.hpp"

using namespace trnsim;
using namespace trnsim::test;

namespace {
// Llama-2 7B with FSDP (ZeRO-3) over 16 A100s on two p4de nodes: gathers and gradient
// reduce-scatters run on the DP stream beside the GEMMs for most of the step.
Scenario fsdp_scenario(int compute_units, int64_t dp = 16) {
  auto w = workload("llama2-7b", "p4de.24xlarge", std::max<int64_t>(1, dp / 8), 1, 1, dp, 1, 2 * dp, 4096);
  if (dp < 8) w.cores_per_node = dp;
  w.zero = dp > 1 ? 3 : 0;
  w.reduce_every_micro_batch = dp > 1;
  w.checkpointing = Checkpointing::Full;
  w.precision = Precision::MixedBF16;
  auto s = make_scenario(w, true);
  s.hw.collectives.compute_units = compute_units;
  return s;
}
double compute_of(const StepResult& r) {
  const auto& c = r.stages[static_cast<size_t>(r.critical_stage)];
  return c.compute_s + c.recompute_s;
}
}  // namespace

TEST_CASE("GEMMs beside a collective run on the SMs it leaves: 1 / (1 - share) each, and only those", "[run][interference]") {
  auto s = fsdp_scenario(0);
  const auto free_run = execute_step(s);
  REQUIRE(free_run.stages[0].dp_comm_s > 0.2 * free_run.step_time_s);  // the DP stream is busy for much of the step
  CHECK(free_run.stages[0].comm_slowdown_s == 0);

  s.hw.collectives.compute_units = 16;
  const double share = 16.0 / 108.0;
  REQUIRE(s.hw.collective_compute_share() == Approx(share));
  const auto shared = execute_step(s);
  const auto& a = free_run.stages[0];
  const auto& b = shared.stages[0];
  INFO("step " << free_run.step_time_s << " -> " << shared.step_time_s << " s; slowdown " << b.comm_slowdown_s << " s");
  CHECK(b.comm_slowdown_s > 0);
  // The added time is exactly the stretched GEMMs' extra, all on the tensor engine ...
  CHECK(compute_of(shared) == Approx(compute_of(free_run) + b.comm_slowdown_s).epsilon(1e-9));
  const auto tensor = static_cast<size_t>(Engine::Tensor), vector = static_cast<size_t>(Engine::Vector);
  CHECK(b.engine_s[tensor] == Approx(a.engine_s[tensor] + b.comm_slowdown_s).epsilon(1e-9));
  CHECK(b.engine_s[vector] == Approx(a.engine_s[vector]).epsilon(1e-12));
  // ... at most every GEMM stretched by share / (1 - share), at least one.
  CHECK(b.comm_slowdown_s <= a.engine_s[tensor] * share / (1 - share) * (1 + 1e-9));
  // The DP traffic is the same; the step can only grow, and by no more than the slowdown.
  CHECK(b.dp_comm_s == Approx(a.dp_comm_s).epsilon(1e-9));
  CHECK(shared.step_time_s >= free_run.step_time_s);
  CHECK(shared.step_time_s <= free_run.step_time_s + b.comm_slowdown_s * (1 + 1e-9));
}

TEST_CASE("the per-op stretch in the trace is 1 / (1 - share) or none", "[run][interference]") {
  auto s = fsdp_scenario(0);
  StepOptions o;
  o.trace = true;
  const auto base = execute_step(s, o);
  s.hw.collectives.compute_units = 27;  // a quarter of the SMs: stretch 4/3
  const auto slow = execute_step(s, o);
  // The GEMMs of each run, by name and occurrence (collectives enter the trace as they end, so
  // the order differs between runs).
  auto gemms = [](const StepResult& r) {
    std::map<std::pair<std::string, int>, double> m;
    std::map<std::string, int> seen;
    for (const auto& e : r.trace)
      if (e.track.find("/ tensor") != std::string::npos) m[{e.name, seen[e.name]++}] = e.dur_us;
    return m;
  };
  const auto x = gemms(base), y = gemms(slow);
  REQUIRE(x.size() == y.size());
  int stretched = 0, plain = 0;
  for (const auto& [key, d] : x) {
    REQUIRE(y.count(key) == 1);
    const double e = y.at(key);
    if (e == Approx(d).epsilon(1e-9)) ++plain;
    else {
      CHECK(e == Approx(d * 4.0 / 3.0).epsilon(1e-9));
      ++stretched;
    }
  }
  INFO(stretched << " GEMMs stretched, " << plain << " not");
  CHECK(stretched > 0);
  CHECK(plain > 0);  // the first gather's wait and the unsharded head run alone
}

TEST_CASE("interference: none without a collective beside compute, and more SMs taken never speed a step", "[run][interference][invariant]") {
  // One GPU: no DP stream, nothing beside the GEMMs.
  auto one = fsdp_scenario(16, 1);
  const auto r1 = execute_step(one);
  CHECK(r1.stages[0].comm_slowdown_s == 0);
  auto s = fsdp_scenario(0);
  double last = 0;
  for (int units : {0, 8, 16, 32, 64}) {
    s.hw.collectives.compute_units = units;
    const double t = execute_step(s).step_time_s;
    INFO(units << " SMs: " << t << " s");
    CHECK(t >= last);
    last = t;
  }
}

TEST_CASE("overlapped TP collectives slow the GEMMs beside them - exposed ones slow nothing", "[run][interference]") {
  auto w = workload("llama2-7b", "p4de.24xlarge", 1, 8, 1, 1, 1, 4, 4096);
  w.precision = Precision::MixedBF16;
  w.sequence_parallel = true;
  w.checkpointing = Checkpointing::Selective;
  for (bool overlap : {false, true}) {
    w.tp_overlap = overlap;
    auto s = make_scenario(w, true);
    s.hw.collectives.compute_units = 0;
    const auto free_run = execute_step(s);
    s.hw.collectives.compute_units = 16;
    const auto shared = execute_step(s);
    const auto &a = free_run.stages[0], &b = shared.stages[0];
    INFO("tp_overlap " << overlap << ": step " << free_run.step_time_s << " -> " << shared.step_time_s << " s");
    CHECK(a.comm_slowdown_s == 0);
    CHECK(compute_of(shared) == Approx(compute_of(free_run) + b.comm_slowdown_s).epsilon(1e-9));
    if (overlap) {
      CHECK(b.comm_slowdown_s > 0);
      // Only compute that ran during the TP collectives is stretched.
      CHECK(b.comm_slowdown_s <= a.tp_comm_s * (16.0 / 92.0) * (1 + 1e-9));
      CHECK(shared.step_time_s >= free_run.step_time_s);
    } else {
      CHECK(b.comm_slowdown_s == 0);  // one rank group, no DP stream: every collective runs alone
      CHECK(shared.step_time_s == Approx(free_run.step_time_s).epsilon(1e-12));
    }
  }
}

TEST_CASE("a partial node has its cores' share of the node's NICs (one NIC per GPU or GPU pair)", "[run][partial]") {
  // 4 of a p5en's 8 H200s per node, 4 nodes: KempnerForge's cluster shape.
  auto w = workload("llama2-7b", "p5en.48xlarge", 4, 1, 1, 16, 1, 32, 4096);
  w.zero = 3;
  w.checkpointing = Checkpointing::Full;
  w.precision = Precision::MixedBF16;
  const HwSpec full = load_hw_spec(hw_path("p5en.48xlarge"));
  w.cores_per_node = 4;
  const Scenario half = make_scenario(w, true);
  CHECK(half.hw.cores_per_node() == 4);
  CHECK(half.hw.inter.nic_bandwidth.base() == Approx(full.inter.nic_bandwidth.base() / 2));
  // Whole nodes keep the file's rate.
  w.cores_per_node = 8;
  w.nodes = 2;
  CHECK(make_scenario(w, true).hw.inter.nic_bandwidth.base() == Approx(full.inter.nic_bandwidth.base()));
}
