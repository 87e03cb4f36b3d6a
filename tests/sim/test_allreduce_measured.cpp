// test_allreduce_measured.cpp — the A100 collective model against a measurement it was not fitted
// on: vTrain's nccl-tests-style all-reduce tables (trace/a100/AR_GPU{2,4,8}_1M_1024M_LUT @f8dda84,
// transcribed in data/reference/frameworks.md §i). The 1 GiB, 8-GPU bus bandwidth set
// collectives.intra_bandwidth_fraction (229 / 300), and the three 1 MiB points the latencies (a
// least-squares line through their latency over 2, 6 and 14 ring steps: call_overhead_us 27.4 per
// call, 3.95 us per step = step_overhead_us 1.95 + the 2 us link latency); every other size and
// group is a prediction of the ring model, so this checks the range a TP all-reduce of a few MiB
// (small models, TP 2-8) and a DP bucket of hundreds of MiB live on.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "scenario.hpp"
#include "sim_helpers.hpp"
#include "topology.hpp"

using namespace trnsim;

TEST_CASE("A100 all-reduce times follow vTrain's measured nccl-tests tables", "[tlm][collective][measured]") {
  const HwSpec hw = load_hw_spec(hw_path("vtrain-a100"));
  struct Point {
    int gpus;
    double mib, busbw_GBps;  // measured bus bandwidth = algorithm bandwidth x 2(n-1)/n
  };
  // frameworks.md §i, the 1 GiB 8-GPU point excluded (it set the bandwidth fraction); the 1 MiB
  // points set the latencies and stay in as a check of that fit.
  const Point points[] = {{8, 1, 19.8},  {8, 8, 109},  {8, 16, 126}, {8, 64, 203}, {8, 256, 217},
                          {4, 1, 30.6},  {4, 16, 140}, {4, 64, 185}, {4, 256, 209}, {4, 1024, 222},
                          {2, 1, 23.7},  {2, 16, 127}, {2, 64, 166}, {2, 256, 184}, {2, 1024, 197}};
  double worst = 0;
  for (const Point& p : points) {
    const double bytes = p.mib * 1024 * 1024;
    const double measured_s = bytes * 2.0 * (p.gpus - 1) / p.gpus / (p.busbw_GBps * 1e9);
    const double simulated_s = test::collective_seconds(hw, hw.collectives.inter_algorithm, OpKind::AllReduce, Bytes(bytes),
                                                        layout_group(hw, 1, p.gpus));
    const double ratio = simulated_s / measured_s;
    INFO(fmt::format("{} GPUs, {} MiB: measured {:.1f} us, simulated {:.1f} us (x{:.2f})", p.gpus, p.mib, measured_s * 1e6,
                     simulated_s * 1e6, ratio));
    // Within 30 % at every size and group: small messages latency-bound (a fixed cost per call plus
    // 2(n-1) ring steps), large ones bandwidth-bound; NCCL's protocol switches (LL, LL128, Simple)
    // are not modelled, and one bandwidth fraction serves a pair (197 GB/s at 1 GiB) and 8 GPUs
    // (229 GB/s), so the pair stays the fast side (x0.82-0.90).
    CHECK(ratio > 1 / 1.3);
    CHECK(ratio < 1.3);
    worst = std::max(worst, std::abs(std::log(ratio)));
  }
  CHECK(worst > 0);  // the loop ran
}
