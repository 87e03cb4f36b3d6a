// test_tlm.cpp — issue 4: micro-benchmarks through the real SystemC kernel, checked
// against tile arithmetic and collective closed forms derived here.
#include <catch2/catch.hpp>

#include "collective.hpp"
#include "sim_helpers.hpp"
#include "lowering.hpp"
#include "op_factory.hpp"
#include "platform.hpp"
#include "scenario.hpp"
#include "sim_time.hpp"

using namespace trnsim;

namespace {
HwSpec trn1() { return load_hw_spec(hw_path("trn1.32xlarge")); }

Op gemm_op(int64_t m, int64_t k, int64_t n) { return ops::gemm("gemm", 1, m, k, n, DType::BF16); }

// Seconds one op takes on a single core (the chip's other core idle).
double single_core_seconds(const HwSpec& hw, const Op& op) { return test::op_seconds(hw, op); }

// Runs one collective on the fabric and returns its simulated duration.
using test::collective_seconds;

// A node of one single-core chip: a ring of n such nodes has one rank per NIC.
HwSpec one_core_nodes(double nic_gbps, double latency_us) {
  HwSpec h = trn1();
  h.chips_per_node = 1;
  h.cores_per_chip = 1;
  h.intra.dim_x = h.intra.dim_y = 1;
  h.inter.nic_bandwidth = gigabits_per_s(nic_gbps);
  h.inter.latency_s = latency_us * 1e-6;
  h.collectives.step_overhead_s = 0;
  return h;
}
}  // namespace

TEST_CASE("large aligned BF16 GEMM runs at peak x the tile-pipeline efficiency", "[tlm]") {
  const HwSpec hw = trn1();
  const Op op = gemm_op(4096, 4096, 4096);
  // Tile arithmetic: 32 n-tiles x 32 k-passes x 8 moving chunks of 512 columns, each
  // max(512, 64) = 512 cycles: exactly FLOPs / (2·128·128) cycles, so the steady-state
  // pipeline efficiency is the calibrated issue efficiency alone; fill (first 12 MiB of
  // loads) and drain (last eviction + store) are what the 2% allows for.
  const double cycles = 32.0 * 32 * 8 * 512;
  CHECK(cycles == op.flops.base() / (2 * 128 * 128));
  CHECK(gemm_tensor_cycles(op, hw.tensor) == cycles);
  const double expected = op.flops.base() / (hw.peak_per_core().base() * hw.tensor.efficiency);
  const double got = single_core_seconds(hw, op);
  CHECK(got == Approx(expected).epsilon(0.02));
  CHECK(got >= expected);
}

TEST_CASE("small, skinny or unaligned GEMMs are less efficient, by the tile arithmetic", "[tlm]") {
  const HwSpec hw = trn1();
  auto efficiency = [&](const Op& op) {
    return op.flops.base() / (single_core_seconds(hw, op) * hw.peak_per_core().base() * hw.tensor.efficiency);
  };
  const double big = efficiency(gemm_op(4096, 4096, 4096));
  // M=4096, K=128 x 32, N=100: one n-tile fills 100 of 128 PE columns, so the tensor engine
  // alone would reach 100/128 = 0.781 of the big GEMM. But each 512-row chunk of A (4 MiB)
  // now feeds one n-tile only: 100 FLOP/byte, below the ~111 the core needs, so the DMA
  // queue bounds it: 8 chunks of 4 MiB (+ the 1 MiB weight panel) at the core's DMA rate,
  // one 2 us descriptor each, then the last tile's compute.
  {
    const double t_tensor = 32.0 * 512 / (hw.tensor.clock_hz * hw.tensor.efficiency);
    const double dma = hw.dma.total().base(), lat = hw.dma.latency_s;
    // unit 0 carries two descriptors (A chunk + weight panel), units 1..7 one each
    const double loads = (8 + 1.0 / hw.dma.engines) * lat + (4096.0 * 4096 * 2 + 4096.0 * 128 * 2) / dma;
    const double skinny_t = single_core_seconds(hw, gemm_op(4096, 4096, 100));
    CHECK(skinny_t == Approx(loads + t_tensor).epsilon(0.03));
    const double skinny = efficiency(gemm_op(4096, 4096, 100));
    CHECK(skinny < 100.0 / 128.0 * big);
  }
  // 128^3: 128 cycles of work behind a pipeline that cannot overlap anything: the load
  // (two descriptors: one latency + 1/16 of another), then the eviction, then the store
  // (one latency); efficiency below 5%.
  const Op tiny = gemm_op(128, 128, 128);
  const double t = single_core_seconds(hw, tiny);
  CHECK(t >= hw.dma.latency_s * (2 + 1.0 / hw.dma.engines));
  CHECK(efficiency(tiny) < 0.05 * big);
}

TEST_CASE("a streaming copy saturates HBM and two cores share it", "[tlm]") {
  const HwSpec hw = trn1();
  Program copy;
  for (int i = 0; i < 16; ++i) {
    Instruction in;
    in.bytes = mib(64);
    copy.q(Queue::DmaLoad).push_back(in);
  }
  auto& p = Platform::instance();
  p.configure(hw);
  const double one = p.timer().run_program(copy, 1).seconds;
  const double two = p.timer().run_program(copy, 2).seconds;
  const double gib1 = gib(1).base();
  // One core alone is limited by its 16 DMA engines (16 x 27 GiB/s), below the chip's 820 GB/s.
  CHECK(gib1 / one == Approx(std::min(hw.dma.total().base(), hw.hbm.bandwidth_per_chip.base())).epsilon(0.01));
  // Both cores streaming: about half of 820 GB/s each.
  CHECK(gib1 / two == Approx(hw.hbm.bandwidth_per_chip.base() / 2).epsilon(0.02));
}

TEST_CASE("ring all-reduce of 1 GiB matches 2(n-1)(a + S/(nB))", "[tlm][collective]") {
  const Bytes S = gib(1);
  SECTION("8 ranks on one trn1 node: the torus row link (51.5 GB/s) is the bottleneck") {
    HwSpec hw = trn1();
    hw.collectives.intra_algorithm = "ring";
    const GroupLayout g = layout_group(hw, 1, 8);
    const double B = hw.intra.link_bandwidth.base();
    const double a = hw.intra.link_latency_s + hw.collectives.step_overhead_s;
    const double closed = 2 * 7 * (a + S.base() / (8 * B));
    CHECK(collective_seconds(hw, "ring", OpKind::AllReduce, S, g) == Approx(closed).epsilon(0.02));
  }
  SECTION("the same as a bidirectional ring: half of each chunk each way, so twice the bandwidth") {
    HwSpec hw = trn1();
    hw.collectives.intra_algorithm = "bidirectional-ring";
    const GroupLayout g = layout_group(hw, 1, 8);
    const double B = hw.intra.link_bandwidth.base();
    const double a = hw.intra.link_latency_s + hw.collectives.step_overhead_s;
    const double closed = 2 * 7 * (a + S.base() / (8 * 2 * B));
    CHECK(collective_seconds(hw, "ring", OpKind::AllReduce, S, g) == Approx(closed).epsilon(0.02));
  }
  for (int n : {32, 256}) {
    SECTION("flat ring over " + std::to_string(n) + " single-rank nodes") {
      const HwSpec hw = one_core_nodes(100, 15);
      const GroupLayout g = layout_group(hw, 1, n);
      const double B = 100e9 / 8, a = 15e-6;
      const double closed = 2 * (n - 1) * (a + S.base() / (n * B));
      CHECK(collective_seconds(hw, "ring", OpKind::AllReduce, S, g) == Approx(closed).epsilon(0.02));
    }
  }
}

TEST_CASE("a collective call pays collectives.call_overhead_us once, whatever its kind, size or group", "[tlm][collective]") {
  HwSpec hw = load_hw_spec(hw_path("vtrain-a100"));
  REQUIRE(hw.collectives.call_overhead_s == Approx(27.4e-6));
  HwSpec none = hw;
  none.collectives.call_overhead_s = 0;
  const double a = hw.intra.link_latency_s + hw.collectives.step_overhead_s;  // one ring step's latency
  for (int n : {2, 4, 8})
    for (const OpKind kind : {OpKind::AllReduce, OpKind::ReduceScatter, OpKind::AllGather, OpKind::SendRecv})
      for (const double mib : {0.001, 1.0, 256.0}) {
        const GroupLayout g = layout_group(hw, 1, n);
        const Bytes S(mib * 1024 * 1024);
        const double with = collective_seconds(hw, "ring", kind, S, g), without = collective_seconds(none, "ring", kind, S, g);
        INFO(n << " GPUs, kind " << static_cast<int>(kind) << ", " << mib << " MiB");
        CHECK(with - without == Approx(27.4e-6).epsilon(1e-3));
        // The 2(n-1) steps of a tiny all-reduce: latency only, on top of the call's cost.
        if (kind == OpKind::AllReduce && mib < 0.01) CHECK(with == Approx(27.4e-6 + 2 * (n - 1) * a).epsilon(0.02));
      }
}

TEST_CASE("hierarchical all-reduce beats the flat ring across nodes, as the closed form says", "[tlm][collective]") {
  // 256 DP ranks, 4 per trn1 node (TP 8), over 64 nodes.
  HwSpec hw = trn1();
  hw.collectives.intra_algorithm = "ring";  // the closed form below is for the one-way ring
  const GroupLayout g = layout_group(hw, 8, 256);
  REQUIRE(g.local == 4);
  REQUIRE(g.nodes == 64);
  const double S = 1e9;
  const double an = hw.inter.latency_s + hw.collectives.step_overhead_s;
  const double ai = hw.intra.link_latency_s + hw.collectives.step_overhead_s;
  const double nic = hw.inter.nic_bandwidth.base(), link = hw.intra.link_bandwidth.base();
  // Flat: 2(n-1) steps of S/n; the NIC carries the crossing of each of the 32/4 = 8 rings of the node.
  const double flat = 2 * 255 * (an + (S / 256) * 8 / nic);
  // Hierarchical: intra ring of 4 down a torus column (both cores of a chip are in
  // different groups on the same column link: 2 flows), inter ring of 64 on S/4 with all
  // 32 cores of the node sharing the NIC, intra all-gather.
  auto hier_closed = [&](double bytes) {
    return 2 * 3 * (ai + bytes / 4 * 2 / link) + 2 * 63 * (an + (bytes / 4 / 64) * 32 / nic);
  };
  auto flat_closed = [&](double bytes) { return 2 * 255 * (an + (bytes / 256) * 8 / nic); };
  CHECK(flat == flat_closed(S));
  const double got_flat = collective_seconds(hw, "ring", OpKind::AllReduce, Bytes(S), g);
  const double got_hier = collective_seconds(hw, "hierarchical", OpKind::AllReduce, Bytes(S), g);
  CHECK(got_flat == Approx(flat_closed(S)).epsilon(0.02));
  CHECK(got_hier == Approx(hier_closed(S)).epsilon(0.02));
  // Rings are bandwidth-optimal: at 1 GiB both move ~16 GB through each node's NICs and the
  // flat ring's extra 384 latency steps cost less than the hierarchical intra phases; the
  // simulator must agree with the closed form on which wins.
  CHECK((got_hier < got_flat) == (hier_closed(S) < flat_closed(S)));
  // Latency-bound (16 MiB): 132 steps instead of 510, so hierarchical wins.
  const double small = 16.0 * 1024 * 1024;
  REQUIRE(hier_closed(small) < flat_closed(small));
  const double small_flat = collective_seconds(hw, "ring", OpKind::AllReduce, Bytes(small), g);
  const double small_hier = collective_seconds(hw, "hierarchical", OpKind::AllReduce, Bytes(small), g);
  CHECK(small_hier == Approx(hier_closed(small)).epsilon(0.02));
  CHECK(small_flat == Approx(flat_closed(small)).epsilon(0.02));
  CHECK(small_hier < small_flat);
}

TEST_CASE("simulated time is deterministic", "[tlm]") {
  const HwSpec hw = trn1();
  const Op op = gemm_op(4096, 1536, 4096);
  const double a = single_core_seconds(hw, op), b = single_core_seconds(hw, op);
  CHECK(a == b);  // bit-identical
}

// GPU GEMMs (issue 14, item 7): output tiles of 256 x 128 run in waves over the 108 SMs.
// Checked on the tensor-engine busy time (the loads' pipeline fill comes on top).
TEST_CASE("A100 GEMM time follows wave quantisation of its CTA tiles", "[tlm][gpu]") {
  const HwSpec hw = load_hw_spec(hw_path("dgx-a100-80g"));
  REQUIRE((hw.tensor.units == 108 && hw.tensor.tile_m == 256 && hw.tensor.tile_n == 128));
  auto tensor_busy = [&](const Op& op) {
    auto& p = Platform::instance();
    p.configure(hw);
    return p.timer().run_program(lower_op(op, hw), 1).busy_s[static_cast<size_t>(Queue::Tensor)];
  };
  const int64_t K = 16384;
  // 12 x 9 = 108 tiles: exactly one full wave; each tile 4 column passes x K/32 k-slices x 256 cycles.
  const Op one_wave = gemm_op(256 * 12, K, 128 * 9);
  const double wave_s = (4.0 * (K / 32) * 256) / hw.tensor.clock_hz / hw.tensor.efficiency;
  const double t1 = tensor_busy(one_wave);
  CHECK(t1 == Approx(wave_s).epsilon(1e-3));
  // Throughput at a full wave is the calibrated fraction of peak.
  const double peak = hw.peak_per_core().base();
  CHECK(one_wave.flops.base() / t1 == Approx(peak * hw.tensor.efficiency).epsilon(1e-3));
  // One more column of tiles (120 tiles): 256 x 128 needs two full waves, 256 x 64 or 128 x 128
  // three waves of half-size tiles (1.5), 128 x 64 five waves of quarter tiles (1.25): picked.
  const Op spill = gemm_op(256 * 12, K, 128 * 10);
  const double t2 = tensor_busy(spill);
  CHECK(t2 == Approx(1.25 * wave_s).epsilon(1e-3));
  CHECK(spill.flops.base() / t2 < 0.9 * peak * hw.tensor.efficiency);  // 10/9 of the work in 1.25x the time
}

// A flash kernel's online softmax on a chip with an activation engine (NeuronCore ScalarE: exp with
// a per-row bias and an accumulated row sum in one instruction) needs one vector pass, the row max;
// a GPU's SMs run max, shift and sum as vector passes and the exponential among them. Closed form on
// the vector queue's busy time: passes x (elements / lanes / elems per lane-cycle + overhead) cycles.
TEST_CASE("the flash softmax's vector passes follow the chip's activation engine", "[tlm]") {
  const int64_t elems = int64_t{128} * 8192 * 64;  // one partition's tiles of 8,192, 64 of them
  Op sm = ops::vector_op(OpKind::Softmax, "flash.softmax", elems, 4096, 1, 3, true, 5, DType::BF16);
  sm.onchip_in = sm.onchip_out = true;
  sm.fused_attention = true;
  auto vector_busy = [](const HwSpec& hw, const Op& op) {
    auto& p = Platform::instance();
    p.configure(hw);
    return p.timer().run_program(lower_op(op, hw), 1).busy_s[static_cast<size_t>(Queue::Vector)];
  };
  auto pass_s = [&](const HwSpec& hw, double instructions_per_element = 1) {
    const LaneEngineSpec& v = hw.vector;
    const double per_lane = static_cast<double>(elems) / v.lanes;
    const double tiles = std::ceil(per_lane / 8192.0);
    return (per_lane * instructions_per_element / v.elems_per_lane_cycle + tiles * v.overhead_cycles) / v.clock_hz;
  };
  const HwSpec t = trn1();
  REQUIRE(t.scalar.present);
  CHECK(vector_busy(t, sm) == Approx(3 * pass_s(t)).epsilon(1e-3));  // no activation-engine count: as written
  sm.passes_with_activation_engine = 1;
  CHECK(vector_busy(t, sm) == Approx(pass_s(t)).epsilon(1e-3));
  CHECK(sm.shape_key() != ops::vector_op(OpKind::Softmax, "x", elems, 4096, 1, 3, true, 5, DType::BF16).shape_key());
  // A GPU has no activation engine: three vector passes, and the exponential one more at the SFUs'
  // rate: 16 results per SM-clock against 64 FP32 lanes on an A100 (4 lane-cycles), 128 on Hopper
  // and Blackwell (8), doubled on Blackwell Ultra (4).
  const HwSpec g = load_hw_spec(hw_path("dgx-a100-80g"));
  REQUIRE_FALSE(g.scalar.present);
  CHECK(g.vector.transcendental_lane_cycles == 4);
  CHECK(vector_busy(g, sm) == Approx(3 * pass_s(g) + pass_s(g, 4)).epsilon(1e-3));
  const HwSpec b = load_hw_spec(hw_path("gb200-nvl72")), u = load_hw_spec(hw_path("gb300-nvl72"));
  CHECK(b.vector.transcendental_lane_cycles == 8);
  CHECK(u.vector.transcendental_lane_cycles == 4);
  REQUIRE((b.vector.lanes == u.vector.lanes && b.vector.clock_hz == u.vector.clock_hz));
  CHECK(vector_busy(b, sm) == Approx(3 * pass_s(b) + pass_s(b, 8)).epsilon(1e-3));
  CHECK(vector_busy(u, sm) == Approx(3 * pass_s(u) + pass_s(u, 4)).epsilon(1e-3));
  CHECK(vector_busy(u, sm) < vector_busy(b, sm));  // faster hardware never slows the op
}
