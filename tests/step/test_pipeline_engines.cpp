// test_pipeline_engines.cpp — pipeline schedules against their closed forms (bubble,
// extrapolated 1F1B, interleaving), concurrent engines and TP overlap bounds, PP scatter/gather.
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

TEST_CASE("extrapolating the 1F1B steady state equals simulating every micro-batch", "[run][closed-form]") {
  // GPT-NeoX 20B TP8 PP4 on 4 trn1 nodes, 64 micro-batches: simulated in full and
  // extrapolated from 12 (the default cap for 4 stages) and from 8.
  auto w = workload("gpt-neox-20b", "trn1.32xlarge", 4, 8, 4, 4, 1, 4 * 64, 2048);
  w.sequence_parallel = true;
  w.zero = 1;
  w.checkpointing = Checkpointing::Selective;
  const auto s = make_scenario(w, true);
  StepOptions full;
  full.extrapolate_after = 64;
  const auto ref = execute_step(s, full);
  REQUIRE(ref.micro_batches_simulated == 64);
  for (int64_t cap : {12, 8}) {
    StepOptions o;
    o.extrapolate_after = cap;
    const auto r = execute_step(s, o);
    INFO("cap " << cap);
    CHECK(r.micro_batches_simulated == cap);
    CHECK(r.step_time_s == Approx(ref.step_time_s).epsilon(1e-6));
  }
}

// Identical programs on every virtual stage (a middle stage's, copied) and free links: the
// pipeline time is then exactly (m*v + p - 1) chunk-times for 1F1B (v = 1, Narayanan et al.
// 2021) and interleaved 1F1B (Megatron; bubble (p-1)/v stage-times), where a chunk-time is one
// micro-batch's forward + backward on one chunk.
namespace {
double pipeline_time(int64_t p, int64_t v, int64_t m, double& chunk_time) {
  auto w = workload("llama2-7b", "trn1.32xlarge", p / 4, 8, p, 1, 1, m, 4096);  // TP 8 x PP p fills p/4 nodes
  w.sequence_parallel = true;
  w.checkpointing = Checkpointing::Selective;
  w.virtual_stages = v;
  auto s = make_scenario(w, true);
  s.hw.intra.link_bandwidth = s.hw.intra.onchip_bandwidth = s.hw.inter.nic_bandwidth = gigabytes_per_s(1e12);
  s.hw.intra.link_latency_s = s.hw.inter.latency_s = s.hw.collectives.step_overhead_s = 0;
  s.hw.concurrent_engines = false;  // chunk-time = busy time
  s.hw.host.trace_s = 0;            // the device schedule is the subject, not the host
  const StageProgram& mid = s.plan.stages[1];
  for (auto& st : s.plan.stages) {
    const int stage = st.stage, rank = st.rank, chunk = st.chunk;
    st = mid;
    st.stage = stage, st.rank = rank, st.chunk = chunk;
    st.optimizer.clear();
  }
  auto r = execute_step(s, StepOptions{false, 1 << 20});  // no extrapolation: the full schedule
  chunk_time = r.stages[0].compute_s + r.stages[0].recompute_s;
  chunk_time /= static_cast<double>(m * v);
  return r.step_time_s;
}
}  // namespace

TEST_CASE("1F1B and interleaved 1F1B take exactly (m v + p - 1) chunk-times with free links", "[run][pipeline]") {
  for (auto [p, v, m] : std::vector<std::array<int64_t, 3>>{{4, 1, 8}, {4, 2, 8}, {4, 4, 8}, {4, 2, 12}, {8, 2, 16}, {8, 4, 8}}) {
    double t = 0;
    const double total = pipeline_time(p, v, m, t);
    INFO("p " << p << " v " << v << " m " << m << ": " << total << " s vs " << (m * v + p - 1) << " chunk-times of " << t);
    CHECK(total == Approx(static_cast<double>(m * v + p - 1) * t).epsilon(1e-9));
  }
}

TEST_CASE("interleaving shrinks the bubble by v and adds no compute", "[run][pipeline]") {
  double t1 = 0, t2 = 0;
  const int64_t p = 4, m = 8;
  const double plain = pipeline_time(p, 1, m, t1), inter = pipeline_time(p, 2, m, t2);
  const double bubble_plain = plain - static_cast<double>(m) * t1, bubble_inter = inter - static_cast<double>(m * 2) * t2;
  CHECK(2 * t2 == Approx(t1).epsilon(1e-9));  // a chunk is half a stage
  CHECK(bubble_inter == Approx(bubble_plain / 2).epsilon(1e-9));
}

// Engine concurrency (hw engines.concurrent): the schedule may only overlap, never add work.
TEST_CASE("concurrent engines: never slower than one engine at a time, never faster than the busiest engine", "[run][engines]") {
  auto w = workload("llama2-7b", "trn1.32xlarge", 1, 8, 1, 4, 1, 16, 4096);
  w.sequence_parallel = true;
  w.checkpointing = Checkpointing::Selective;
  auto s = make_scenario(w, true);
  s.hw.concurrent_engines = false;
  const auto serial = execute_step(s);
  s.hw.concurrent_engines = true;
  const auto conc = execute_step(s);
  const auto& st = conc.stages[0];
  const double busiest = *std::max_element(st.engine_s.begin(), st.engine_s.begin() + 5);  // compute engines
  INFO("serial " << serial.step_time_s << " s, concurrent " << conc.step_time_s << " s, busiest engine " << busiest << " s");
  CHECK(conc.step_time_s <= serial.step_time_s);
  CHECK(conc.step_time_s < serial.step_time_s);  // weight gradients do overlap vector work
  CHECK(conc.step_time_s >= busiest);
  // Same work either way.
  CHECK(conc.stages[0].compute_s == Approx(serial.stages[0].compute_s).epsilon(1e-12));
}

TEST_CASE("TP overlap hides at most the weight-gradient GEMMs it runs beside", "[run][engines]") {
  auto w = workload("llama2-7b", "p4d.24xlarge", 1, 8, 1, 1, 1, 4, 2048);
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  auto s = make_scenario(w, true);
  const auto off = execute_step(s);
  s.workload.tp_overlap = true;
  const auto on = execute_step(s);
  double wgrad = 0;  // weight-gradient GEMM time per step
  OpTimer& timer = Platform::instance().timer();
  for (const auto& st : s.plan.stages)
    for (auto v : st.backward)
      if (st.graph[v].weight_grad) wgrad += std::max(timer.time(st.graph[v]).seconds, s.hw.host.dispatch_s);
  wgrad *= static_cast<double>(s.plan.micro_batches);
  INFO("off " << off.step_time_s << " s, on " << on.step_time_s << " s, weight-gradient GEMMs " << wgrad << " s");
  CHECK(on.step_time_s < off.step_time_s);
  CHECK(off.step_time_s - on.step_time_s <= wgrad * (1 + 1e-9));
  CHECK(on.stages[0].tp_comm_s == Approx(off.stages[0].tp_comm_s).epsilon(1e-9));  // same collectives
}

// Megatron-LM's pipeline scatter/gather (parallel.pp_scatter_gather): each TP rank sends 1/tp of
// the activation over its own inter-node link and the receiving TP group all-gathers it.
TEST_CASE("pipeline scatter/gather: 1/tp of the activation crosses nodes, then a TP all-gather", "[run][pp]") {
  auto w = workload("llama2-7b", "dgx-a100-80g", 2, 8, 2, 1, 1, 8, 2048);  // one stage per node
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  auto s = make_scenario(w, true);
  const double full = 1 * 2048 * 4096 * 2.0;  // micro-batch x seq x hidden x bf16
  REQUIRE(s.plan.stages[0].p2p_bytes.base() == full);
  REQUIRE(s.plan.stages[0].p2p_gather_bytes.base() == 0);
  const auto plain = execute_step(s);
  s.workload.pp_scatter_gather = true;
  s.plan = build_step_plan(s.model, s.workload);
  CHECK(s.plan.stages[0].p2p_bytes.base() == full / 8);
  CHECK(s.plan.stages[0].p2p_gather_bytes.base() == full);
  const auto sg = execute_step(s);
  INFO("plain PP comm " << plain.stages[1].pp_comm_s << " s, scatter/gather " << sg.stages[1].pp_comm_s << " s");
  // An 8th of the bytes on the inter-node link plus an NVLink all-gather costs less than all of them.
  CHECK(sg.stages[1].pp_comm_s < plain.stages[1].pp_comm_s);
  CHECK(sg.stages[1].pp_comm_s > plain.stages[1].pp_comm_s / 8);
  CHECK(sg.stages[1].compute_s == Approx(plain.stages[1].compute_s).epsilon(1e-12));
  // With sequence parallelism the activation is already split: the setting changes nothing.
  s.workload.sequence_parallel = true;
  s.plan = build_step_plan(s.model, s.workload);
  CHECK(s.plan.stages[0].p2p_bytes.base() == full / 8);
  CHECK(s.plan.stages[0].p2p_gather_bytes.base() == 0);
}

// Megatron-Core's overlap_p2p_comm (parallel.pp_overlap): in the interleaved schedule a chunk's
// output starts across the link when its pass ends and the receiver waits only for its arrival
// (in the steady state; warm-up and flush stay blocking). Bounds: free links <= overlapped <=
// blocking; the compute is the same; without interleaving (virtual_stages 1) Megatron-Core does
// not overlap and the setting changes nothing.
TEST_CASE("pipeline p2p overlap: between free links and blocking transfers, interleaved only", "[run][pp]") {
  auto w = workload("llama2-7b", "dgx-a100-80g", 2, 8, 2, 1, 1, 8, 4096);  // one stage per node
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.virtual_stages = 4;
  auto s = make_scenario(w, true);
  s.hw.inter.nic_bandwidth = gigabytes_per_s(25);  // a slow network: each transfer ~ a chunk's pass
  const auto blocking = execute_step(s);
  s.workload.pp_overlap = true;
  REQUIRE(s.workload.pp_overlap_applies());
  const auto overlapped = execute_step(s);
  auto free = s;
  free.workload.pp_overlap = false;
  free.hw.inter.nic_bandwidth = gigabytes_per_s(1e12);
  free.hw.inter.latency_s = 0;
  const auto no_link = execute_step(free);
  INFO("step: blocking " << blocking.step_time_s << " s, overlapped " << overlapped.step_time_s << " s, free links "
                         << no_link.step_time_s << " s; exposed PP comm of stage 1: " << blocking.stages[1].pp_comm_s
                         << " / " << overlapped.stages[1].pp_comm_s << " s");
  REQUIRE(blocking.stages[1].pp_comm_s > 0.05 * blocking.step_time_s);  // the transfers matter here
  CHECK(overlapped.step_time_s < blocking.step_time_s);
  CHECK(overlapped.step_time_s >= no_link.step_time_s * (1 - 1e-9));
  CHECK(overlapped.stages[1].pp_comm_s < blocking.stages[1].pp_comm_s);
  CHECK(overlapped.stages[1].pp_comm_s > 0);  // warm-up and flush transfers stay blocking (Megatron-Core's default)
  for (size_t r = 0; r < 2; ++r) CHECK(overlapped.stages[r].compute_s == Approx(blocking.stages[r].compute_s).epsilon(1e-12));
  // Without interleaving the setting does not apply.
  s.workload.virtual_stages = 1;
  s.plan = build_step_plan(s.model, s.workload);
  CHECK_FALSE(s.workload.pp_overlap_applies());
  const auto plain_on = execute_step(s);
  s.workload.pp_overlap = false;
  const auto plain_off = execute_step(s);
  CHECK(plain_on.step_time_s == Approx(plain_off.step_time_s).epsilon(1e-12));
}

// Lazy-tensor host (hw host.trace_s): the host traces each graph, running ahead of the device.

// Issue 26: transcendentals (SiLU, softmax's exp, the optimizer's sqrt) and half of the PSUM
// evictions run on the activation (scalar) engine; the report's per-queue busy time shows it.
TEST_CASE("the activation engine is busy for at least the transcendentals' element passes", "[run][engines]") {
  auto w = llama(1, 16);
  const auto s = make_scenario(w, true);
  const auto r = execute_step(s);
  const auto& busy = r.stages[0].queue_busy_s;
  const double scalar = busy[static_cast<size_t>(Queue::Scalar)];
  const auto& e = s.hw.scalar;
  // Lower bound: every transcendental element once through the activation engine's lanes, per micro-batch.
  const double per_mb = sum_ops(s.plan, [&](const Op& op) {
    return op.transcendental && !op.is_collective() ? static_cast<double>(op.elements) : 0.0;
  }) / (e.lanes * e.elems_per_lane_cycle * e.clock_hz);
  const double bound = per_mb * static_cast<double>(w.grad_accum());
  INFO("scalar busy " << scalar << " s, transcendental lower bound " << bound << " s");
  REQUIRE(bound > 0);
  CHECK(scalar >= bound);
  CHECK(scalar < r.step_time_s);
  // Without an activation engine the same elements go through the vector engine instead.
  auto no_act = s;
  no_act.hw.scalar.present = false;
  const auto r2 = execute_step(no_act);
  CHECK(r2.stages[0].queue_busy_s[static_cast<size_t>(Queue::Scalar)] == 0.0);
  CHECK(r2.stages[0].queue_busy_s[static_cast<size_t>(Queue::Vector)] > busy[static_cast<size_t>(Queue::Vector)] + bound);
  CHECK(r2.step_time_s >= r.step_time_s);
}

// Issue 25: uneven pipeline splits.
TEST_CASE("an uneven split: the stage with the most layers decides the step", "[run][pipeline]") {
  auto w = workload("llama3.1-8b", "trn1.32xlarge", 1, 8, 4, 1, 1, 16, 2048);
  w.sequence_parallel = true;
  w.checkpointing = Checkpointing::Selective;
  const auto even = execute_step(make_scenario(w, true));
  w.pipeline_split = Workload::PipelineSplit::Explicit;
  w.layers_per_stage = {5, 11, 8, 8};  // same 32 layers, the second stage heavier by 3
  const auto uneven = execute_step(make_scenario(w, true));
  INFO("even " << even.step_time_s << " s, uneven " << uneven.step_time_s << " s");
  CHECK(uneven.step_time_s > even.step_time_s);
  // The heaviest stage's compute grows by 11/8; the step cannot grow by more than that.
  CHECK(uneven.step_time_s < even.step_time_s * 11.0 / 8.0);
}
