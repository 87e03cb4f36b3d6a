// test_trainium_2026.cpp — issue 26: Logical NeuronCores (a rank of k physical cores) and the
// host execution modes (eager per-op dispatch, lazy tracing, compiled graphs).
#include <catch2/catch.hpp>

#include "run_helpers.hpp"
#include "report.hpp"
#include "scenario.hpp"

using namespace trnsim;
using namespace trnsim::test;

TEST_CASE("LNC regroups physical cores: chip totals stay, a rank gets k cores' engines and memory", "[lnc]") {
  const HwSpec hw2 = load_hw_spec(hw_path("trn2.48xlarge"));
  REQUIRE(hw2.lnc == 2);  // the documented default
  HwSpec hw1 = hw2;
  hw1.set_lnc(1);
  CHECK(hw1.cores_per_chip == 2 * hw2.cores_per_chip);
  CHECK(hw1.cores_per_node() == 128);
  CHECK(hw2.cores_per_node() == 64);
  // Per chip: the same arrays, lanes, SRAM, DMA engines and HBM.
  CHECK(hw1.peak_per_core().base() * hw1.cores_per_chip == Approx(hw2.peak_per_core().base() * hw2.cores_per_chip));
  CHECK(hw1.vector.lanes * hw1.cores_per_chip == hw2.vector.lanes * hw2.cores_per_chip);
  CHECK(hw1.sram.sbuf.base() * hw1.cores_per_chip == Approx(hw2.sram.sbuf.base() * hw2.cores_per_chip));
  CHECK(hw1.dma.engines * hw1.cores_per_chip == hw2.dma.engines * hw2.cores_per_chip);
  CHECK(hw1.hbm_per_core().base() == Approx(hw2.hbm_per_core().base() / 2));
  // 667 TFLOPS per chip either way (hardware.md).
  CHECK(hw2.peak_per_core().base() * hw2.cores_per_chip / 1e12 == Approx(667).epsilon(0.06));
  // Round trip: back to LNC 2 is the file's spec exactly (same op-cache fingerprint).
  hw1.set_lnc(2);
  CHECK(hw1.fingerprint() == hw2.fingerprint());
}

TEST_CASE("LNC 1 and 2 run the same Llama 3.1 8B step - per-rank memory halves at LNC 1", "[lnc][run]") {
  auto w2 = load_workload(std::string(TRNSIM_SOURCE_DIR) + "/workloads/torchneuron_llama3.1_8b_trn2_tp4_fsdp16.json", stack_lookup());
  auto w1 = load_workload(std::string(TRNSIM_SOURCE_DIR) + "/workloads/torchneuron_llama3.1_8b_trn2_lnc1_tp8_fsdp16.json", stack_lookup());
  const auto s2 = make_scenario(w2), s1 = make_scenario(w1);
  CHECK(s2.hw.lnc == 2);
  CHECK(s1.hw.lnc == 1);
  CHECK(w1.devices() == 2 * w2.devices());
  CHECK(w1.tokens_per_step() == w2.tokens_per_step());
  const double m2 = peak_stage(s2.memory).total().base(), m1 = peak_stage(s1.memory).total().base();
  // TP doubles inside the chip: weights, gradients and activations per rank halve (FSDP shards over the same 16 chips).
  CHECK(m1 == Approx(m2 / 2).epsilon(0.02));
  const auto r2 = execute_step(s2), r1 = execute_step(s1);
  // Same chips, same work: within 25% of each other (the layouts differ: TP 8 vs 4).
  CHECK(r1.step_time_s == Approx(r2.step_time_s).epsilon(0.25));
  const auto j = make_report(s1, r1);
  CHECK(j["workload"]["lnc"] == 1);
}

TEST_CASE("execution modes: eager adds per-op dispatch below the op time, compiled and lazy do not", "[host][run]") {
  auto w = load_workload(std::string(TRNSIM_SOURCE_DIR) + "/workloads/torchneuron_llama3.1_8b_trn2_eager.json", stack_lookup());
  w.seq_len = 1024;  // short ops, where a per-op host cost shows
  const auto eager = make_scenario(w);
  w.execution = "compiled";
  const auto compiled = make_scenario(w);
  REQUIRE(eager.hw.host.execution == Execution::Eager);
  REQUIRE(compiled.hw.host.execution == Execution::Compiled);
  CHECK(compiled.hw.host.op_dispatch_s() == 0.0);
  CHECK(compiled.hw.host.op_trace_s() == 0.0);
  const auto re = execute_step(eager), rc = execute_step(compiled);
  CHECK(re.step_time_s > rc.step_time_s);
  // Closed form bound: eager raises each op to at least the dispatch cost, so the step grows by at
  // most (ops below the dispatch cost) x dispatch per micro-batch pass.
  const double dispatch = eager.hw.host.op_dispatch_s();
  const double ops = sum_ops(eager.plan, [](const Op& op) { return op.is_collective() ? 0.0 : 1.0; });
  double optimizer_ops = 0;
  for (const auto& st : eager.plan.stages) optimizer_ops += static_cast<double>(st.optimizer.size());
  CHECK(re.step_time_s - rc.step_time_s <= (ops * static_cast<double>(w.grad_accum()) + optimizer_ops) * dispatch + 1e-9);
  w.execution = "lazy";  // trn2 keeps the legacy torch-xla trace cost
  const auto lazy = make_scenario(w);
  CHECK(lazy.hw.host.op_trace_s() > 0);
  CHECK(execute_step(lazy).step_time_s >= rc.step_time_s);
}

TEST_CASE("TorchNeuron eager: element-wise chains op by op cost HBM traffic beyond the dispatch floor", "[host][run]") {
  // The 8B at seq 8192 has every op above the eager dispatch cost, so the floor adds nothing; the
  // unfused RMSNorm / rotary / SwiGLU / loss kernels (stack profile: an eager run of a compiling
  // stack) each read and write HBM, and the step grows.
  const auto w = load_workload(std::string(TRNSIM_SOURCE_DIR) + "/workloads/torchneuron_llama3.1_8b_trn2_eager.json", stack_lookup());
  REQUIRE_FALSE(w.fused_elementwise);
  Workload fused = w;
  fused.fused_elementwise = true;
  Workload compiled = fused;
  compiled.execution = "compiled";
  const double t_eager = execute_step(make_scenario(w)).step_time_s;
  const double t_fused = execute_step(make_scenario(fused)).step_time_s;
  CHECK(t_fused == Approx(execute_step(make_scenario(compiled)).step_time_s).epsilon(1e-9));  // no op below the floor
  CHECK(t_eager > 1.02 * t_fused);
  CHECK(t_eager < 1.15 * t_fused);  // element-wise traffic, not a different step
}
