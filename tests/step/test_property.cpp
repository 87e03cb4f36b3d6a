// test_property.cpp — property test over random valid layouts (issue 15): doubling any one
// bandwidth or clock of the hardware never makes a simulated step slower. The layouts are a
// seeded random sample of what `trnsim sweep` enumerates (two models, Trainium and GPU
// hardware, one and two nodes, with and without pipelining), so the test is repeatable.
//
// Tolerance 1e-5 of the step: a streaming op's DMA loads and stores share HBM first-come
// first-served in chunks, as real DMA rings do; a faster engine changes how they
// interleave, and a memory-bound op can end a few microseconds later (AdamW on p4d: 8.128 ->
// 8.134 ms with a doubled vector clock, 1e-6 of the step). That is a real list-scheduling
// anomaly, bounded and tiny. The defect this test was written for — stages sharing a node
// queued behind each other on links whose multiplicity already counted them — made steps
// 0.02-0.5 % slower, and fails it.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <functional>
#include <random>

#include "layouts.hpp"
#include "scenario.hpp"
#include "step_bound.hpp"
#include "step_executor.hpp"

using namespace trnsim;

namespace {

struct Knob {
  const char* name;
  std::function<void(HwSpec&)> double_it;
};

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> k = {
      {"tensor clock", [](HwSpec& h) { h.tensor.clock_hz *= 2; }},
      {"vector clock", [](HwSpec& h) { h.vector.clock_hz *= 2; }},
      {"scalar clock", [](HwSpec& h) { h.scalar.clock_hz *= 2; }},
      {"gpsimd clock", [](HwSpec& h) { h.gpsimd.clock_hz *= 2; }},
      {"DMA bandwidth", [](HwSpec& h) { h.dma.per_engine = h.dma.per_engine * 2.0; }},
      {"HBM bandwidth", [](HwSpec& h) { h.hbm.bandwidth_per_chip = h.hbm.bandwidth_per_chip * 2.0; }},
      {"on-chip bandwidth", [](HwSpec& h) { h.intra.onchip_bandwidth = h.intra.onchip_bandwidth * 2.0; }},
      {"intra-node link bandwidth", [](HwSpec& h) { h.intra.link_bandwidth = h.intra.link_bandwidth * 2.0; }},
      {"network bandwidth", [](HwSpec& h) { h.inter.nic_bandwidth = h.inter.nic_bandwidth * 2.0; }},
  };
  return k;
}

// A seeded sample of `count` layouts that fit in memory, drawn from the sweep's spaces.
std::vector<Scenario> sample_layouts(size_t count, uint64_t seed) {
  std::vector<Scenario> fitting;
  for (const char* hw : {"trn1.32xlarge", "p4d.24xlarge"})
    for (int64_t nodes : {1, 2}) {
      LayoutSpace sp;
      sp.model = "hlat-7b";
      sp.hw = hw;
      sp.nodes = nodes;
      sp.seq_len = 512;
      sp.global_batch = 128;
      sp.micro_batches = {1, 8};
      if (std::string(hw) != "trn1.32xlarge") sp.precision = Precision::MixedBF16;
      for (const auto& w : enumerate_layouts(sp)) {
        Scenario s = make_scenario(w, true);
        if (s.fits) fitting.push_back(std::move(s));
      }
    }
  std::mt19937_64 rng(seed);
  std::shuffle(fitting.begin(), fitting.end(), rng);
  if (fitting.size() > count) fitting.resize(count);
  return fitting;
}

}  // namespace

TEST_CASE("property: doubling any bandwidth or clock never slows a step (random valid layouts)", "[run][invariant][property]") {
  const auto layouts = sample_layouts(24, 20261123);
  REQUIRE(layouts.size() == 24);
  int checked = 0;
  for (const auto& s : layouts) {
    const double base = execute_step(s).step_time_s;
    for (const auto& k : knobs()) {
      Scenario f = s;
      k.double_it(f.hw);
      const double faster = execute_step(f).step_time_s;
      INFO(fmt::format("{} with doubled {}: {:.6f} s -> {:.6f} s", s.workload.name, k.name, base, faster));
      CHECK(faster <= base * (1 + 1e-5));
      ++checked;
    }
  }
  CHECK(checked == 24 * static_cast<int>(knobs().size()));
}

TEST_CASE("the search's step-time lower bound never exceeds the simulated step", "[search][invariant][property]") {
  // The sampled layouts, plus long 1F1B schedules (extrapolated), GPipe and interleaving.
  std::vector<Scenario> layouts = sample_layouts(24, 7);
  auto add = [&](const char* file, auto change) {
    Scenario s = load_scenario(std::string(TRNSIM_SOURCE_DIR) + "/workloads/" + file);
    change(s.workload);
    layouts.push_back(make_scenario(s.workload, true));
  };
  add("r1_neox20b_tp8_pp4_4node.json", [](Workload&) {});
  add("r1_neox20b_tp8_pp4_4node.json", [](Workload& w) { w.schedule = Schedule::GPipe; });
  add("r1_neox20b_tp8_pp4_4node.json", [](Workload& w) { w.virtual_stages = 11; });
  add("llama7b_tp8_dp512.json", [](Workload& w) { w.tp_overlap = true; });
  add("llama7b_tp8_dp512.json", [](Workload& w) { w.overlap_dp = false; });  // buckets after the backward
  add("llama7b_tp8_dp512.json", [](Workload& w) {  // ZeRO-3 (FSDP): gathers on the DP stream
    w.zero = 3;
    w.reduce_every_micro_batch = true;
  });
  for (const auto& s : layouts) {
    const StepBound b = step_lower_bound(s);
    const double step = execute_step(s).step_time_s;
    INFO(fmt::format("{}: bound {:.6f} s, step {:.6f} s", s.workload.name, b.step_time_s, step));
    CHECK(b.step_time_s <= step);
    CHECK(b.step_time_s > 0.3 * step);  // and useful: it is a bound, not zero
    CHECK(b.work_s <= step);
  }
  // ZeRO-3 over 512 replicas, reducing every micro-batch: the DP stream (gathers and
  // reduce-scatters on the EFA fabric) outlasts the compute, and the bound counts it (the search
  // simulated 7.6x the layouts of a DeepSeek-V3 space before it did).
  const Scenario& zero3 = layouts.back();
  REQUIRE(zero3.workload.zero == 3);
  const StepWork work = step_work(zero3);
  const StepBound b = step_lower_bound(zero3);
  INFO(fmt::format("DP stream {:.3f} s, compute work {:.3f} s, bound {:.3f} s", work.dp_stream_s[0], b.work_s, b.step_time_s));
  CHECK(work.dp_stream_s[0] > b.work_s);
  CHECK(b.step_time_s >= work.dp_stream_s[0]);
  CHECK(b.step_time_s <= execute_step(zero3).step_time_s);
  // Without DP overlap the gradient buckets start once the last backward is done: the bound is the
  // compute work plus every bucket on idle links (one pipeline rank, one reduction per step).
  const Scenario& serial_dp = layouts[layouts.size() - 2];
  REQUIRE(!serial_dp.workload.overlap_dp);
  const StepWork sw = step_work(serial_dp);
  const StepBound sb = step_lower_bound(serial_dp);
  INFO(fmt::format("compute work {:.4f} s, buckets {:.4f} s, bound {:.4f} s", sb.work_s, sw.dp_tail_s[0], sb.step_time_s));
  CHECK(sw.dp_tail_s[0] > 0.01 * sb.work_s);
  CHECK(sb.step_time_s >= (sb.work_s + sw.dp_tail_s[0]) * (1 - 1e-6));
  CHECK(sb.step_time_s <= execute_step(serial_dp).step_time_s);
}
