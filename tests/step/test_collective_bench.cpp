// test_collective_bench.cpp — `trnsim collective`'s arithmetic and the collective model's shape:
// nccl-tests' bus factors, sizes as nccl-tests reads them, a one-node ring against its closed form,
// bus bandwidth monotone in size and in node count, and the shipped p5 nccl-tests table read whole.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "collective_bench.hpp"
#include "measured_collectives.hpp"
#include "scenario.hpp"

using namespace trnsim;

TEST_CASE("collective bench: nccl-tests' sizes and bus factors", "[collective][bench]") {
  CHECK(*parse_size("32M") == 32.0 * 1024 * 1024);
  CHECK(*parse_size("32MB") == 32.0 * 1024 * 1024);
  CHECK(*parse_size("1.5GiB") == 1.5 * 1024 * 1024 * 1024);
  CHECK(*parse_size("4096") == 4096);
  CHECK_FALSE(parse_size("32Q"));
  CHECK_FALSE(parse_size("-1M"));
  CHECK_FALSE(parse_size(""));
  CHECK(bus_factor(OpKind::AllReduce, 16) == Approx(2.0 * 15 / 16));
  CHECK(bus_factor(OpKind::AllToAll, 16) == Approx(15.0 / 16));
  CHECK(*collective_named("alltoall") == OpKind::AllToAll);
  CHECK_FALSE(collective_named("broadcast"));
}

TEST_CASE("collective bench: one node's ring all-reduce is 2(n-1)/n S over the link rate", "[collective][bench][tlm]") {
  // On one DGX H100 a large all-reduce is bandwidth-bound: its bus bandwidth approaches the link
  // rate times the achieved fraction the hw file states (latencies are a vanishing share at 8 GiB).
  const HwSpec hw = load_hw_spec(hw_path("dgx-h100"));
  const CollectiveBench b = bench_collective(hw, OpKind::AllReduce, 1, 8.0 * (1 << 30));
  const double rate = hw.intra.link_bandwidth.base() * hw.collectives.intra_bandwidth_fraction / 1e9;
  CHECK(b.ranks == 8);
  CHECK(b.busbw_GBps == Approx(rate).epsilon(0.02));
  CHECK(b.algbw_GBps == Approx(b.size_bytes / b.time_s / 1e9));
}

TEST_CASE("collective bench: bus bandwidth grows with size and does not grow with nodes", "[collective][bench][tlm]") {
  const HwSpec hw = load_hw_spec(hw_path("p5.48xlarge"));
  for (OpKind k : {OpKind::AllReduce, OpKind::AllToAll}) {
    double last_nodes = 1e30;
    for (int nodes : {2, 4, 8, 16, 32}) {
      double last = 0;
      for (double mib = 32; mib <= 8192; mib *= 4) {
        const double bw = bench_collective(hw, k, nodes, mib * 1024 * 1024).busbw_GBps;
        CHECK(bw >= last * (1 - 1e-9));
        last = bw;
      }
      const double at_1g = bench_collective(hw, k, nodes, 1024.0 * 1024 * 1024).busbw_GBps;
      CHECK(at_1g <= last_nodes * (1 + 1e-9));
      last_nodes = at_1g;
    }
  }
}

TEST_CASE("collective bench: the shipped p5 nccl-tests table is read and compared whole", "[collective][bench][tlm]") {
  const auto rows = load_collective_table(std::string(TRNSIM_SOURCE_DIR) + "/data/validation/nccl_tests_p5_efa.csv");
  REQUIRE(rows.size() == 80);
  const HwSpec hw = load_hw_spec(hw_path("p5.48xlarge"));
  REQUIRE(rows_for(rows, hw.instance).size() == 80);
  CHECK(rows_for(rows, "trn1.32xlarge").empty());
  CHECK(rows.front().size_bytes == 32.0 * 1024 * 1024);
  for (const CollectiveComparison& c : compare_collectives(hw, rows)) {
    CHECK(std::isfinite(c.error()));
    CHECK(c.predicted.ranks == c.measured.nodes * 8);
  }
}

namespace {
const std::string kP5Table = std::string(TRNSIM_SOURCE_DIR) + "/data/validation/nccl_tests_p5_efa.csv";
}  // namespace

TEST_CASE("collective bench: with the cluster's measured table, every row is reproduced", "[collective][bench][measured][tlm]") {
  const HwSpec hw = load_hw_with_edits("p5.48xlarge", "collectives.measured_table=" + kP5Table);
  REQUIRE(hw.collectives.measured.rows.size() == 80);
  CHECK(hw.fabric_fingerprint() != load_hw_spec(hw_path("p5.48xlarge")).fabric_fingerprint());
  for (const CollectiveComparison& c : compare_collectives(hw, load_collective_table(kP5Table))) {
    INFO(c.predicted.op << " " << c.predicted.nodes << " nodes " << c.predicted.size_bytes << " B");
    CHECK(std::abs(c.error()) < 0.05);
  }
}

TEST_CASE("measured table: interpolation between points, halves for the missing halves", "[collective][measured]") {
  MeasuredTable t;
  t.rows = {{OpKind::AllReduce, 2, 64.0 * (1 << 20), 100, "", 1}, {OpKind::AllReduce, 2, 256.0 * (1 << 20), 200, "", 2},
            {OpKind::AllReduce, 8, 64.0 * (1 << 20), 50, "", 3}, {OpKind::AllReduce, 8, 256.0 * (1 << 20), 100, "", 4}};
  const double mib = 1 << 20;
  auto busbw = [&](OpKind k, int nodes, double size) { return size * bus_factor(k, nodes * 8) / *t.seconds(k, nodes, size, 8) / 1e9; };
  CHECK(busbw(OpKind::AllReduce, 2, 64 * mib) == Approx(100));
  CHECK(busbw(OpKind::AllReduce, 2, 128 * mib) == Approx(150));   // halfway in log2 size
  CHECK(busbw(OpKind::AllReduce, 4, 64 * mib) == Approx(75));     // halfway in log2 nodes
  CHECK(busbw(OpKind::AllReduce, 2, 4096 * mib) == Approx(200));  // held beyond the largest size
  CHECK(busbw(OpKind::AllReduce, 64, 256 * mib) == Approx(100));  // held beyond the most nodes
  // reduce_scatter without rows of its own: half an all_reduce's time.
  CHECK(*t.seconds(OpKind::ReduceScatter, 2, 64 * mib, 8) == Approx(*t.seconds(OpKind::AllReduce, 2, 64 * mib, 8) / 2));
  CHECK_FALSE(t.seconds(OpKind::AllToAll, 2, 64 * mib, 8));
  CHECK_FALSE(t.seconds(OpKind::AllReduce, 1, 64 * mib, 8));  // inside a node: not the network's table
}

TEST_CASE("pipelined two-level collective: the slowest link's time plus every latency", "[collective][bench][tlm]") {
  // On 2 p5 nodes an 8 GiB all-reduce pipelined through NVLink and EFA takes the larger of the two
  // links' times (plus latencies, a vanishing share here), where the phase-after-phase algorithm
  // takes their sum: NVLink moves 2 x 7/8 x S per GPU at its rate, EFA 2 x 1/2 x S/8 per GPU at
  // 1/8 of the node's NIC rate (times the achieved fraction).
  const double s = 8.0 * (1 << 30);
  const HwSpec serial = load_hw_with_edits("p5.48xlarge", "collectives.inter_algorithm=hierarchical");
  const HwSpec piped = load_hw_with_edits("p5.48xlarge", "collectives.inter_algorithm=pipelined;collectives.inter_bandwidth_fraction=0.8");
  const double nvlink = 2 * 7.0 / 8 * s / (serial.intra.link_bandwidth.base() * serial.collectives.intra_bandwidth_fraction);
  const double efa = 2 * 0.5 * (s / 8) / (serial.inter.nic_bandwidth.base() / 8 * 0.8);
  const double t_piped = bench_collective(piped, OpKind::AllReduce, 2, s).time_s;
  CHECK(t_piped == Approx(std::max(nvlink, efa)).epsilon(0.01));
  const double t_serial = bench_collective(serial, OpKind::AllReduce, 2, s).time_s;
  CHECK(t_serial == Approx(nvlink + 2 * 0.5 * (s / 8) / (serial.inter.nic_bandwidth.base() / 8)).epsilon(0.01));
  // Never slower than phase after phase, at any size or node count.
  for (int nodes : {2, 8, 32})
    for (double mib : {32.0, 1024.0})
      CHECK(bench_collective(load_hw_with_edits("p5.48xlarge", "collectives.inter_algorithm=pipelined"), OpKind::AllReduce, nodes,
                             mib * (1 << 20)).time_s <= bench_collective(serial, OpKind::AllReduce, nodes, mib * (1 << 20)).time_s * (1 + 1e-9));
}

TEST_CASE("tuned collective: each call takes the faster of its algorithms on idle links", "[collective][bench][tlm]") {
  // "ring+hierarchical" runs, per call, whichever of the flat ring and the two-level algorithm is
  // faster (NCCL's tuner): its time is the smaller of theirs at every size and node count, and the
  // estimate it picks by is the fabric's own time (the same steps on an idle clock).
  const HwSpec ring = load_hw_with_edits("p5.48xlarge", "collectives.inter_algorithm=ring");
  const HwSpec two_level = load_hw_with_edits("p5.48xlarge", "collectives.inter_algorithm=hierarchical");
  const HwSpec tuned = load_hw_spec(hw_path("p5.48xlarge"));  // ships "ring+hierarchical"
  REQUIRE(tuned.collectives.inter_algorithm == "ring+hierarchical");
  int ring_won = 0, two_level_won = 0;
  for (OpKind k : {OpKind::AllReduce, OpKind::ReduceScatter, OpKind::AllGather})
    for (int nodes : {2, 8, 32})
      for (double mib : {32.0, 256.0, 8192.0}) {
        const double s = mib * (1 << 20);
        const double a = bench_collective(ring, k, nodes, s).time_s, b = bench_collective(two_level, k, nodes, s).time_s;
        INFO(nodes << " nodes " << mib << " MiB");
        CHECK(bench_collective(tuned, k, nodes, s).time_s == Approx(std::min(a, b)).epsilon(1e-9));
        (a < b ? ring_won : two_level_won)++;
      }
  // Both win somewhere: the ring's 2(n-1) steps cost latency on small messages at many ranks; on
  // large ones it moves 2(n-1)/n S per GPU over the NIC where the two-level one adds the NVLink phases.
  CHECK(ring_won > 0);
  CHECK(two_level_won > 0);
  CHECK(bench_collective(tuned, OpKind::AllReduce, 8, 8192.0 * (1 << 20)).time_s ==
        Approx(bench_collective(ring, OpKind::AllReduce, 8, 8192.0 * (1 << 20)).time_s));
  CHECK(bench_collective(tuned, OpKind::AllReduce, 32, 32.0 * (1 << 20)).time_s ==
        Approx(bench_collective(two_level, OpKind::AllReduce, 32, 32.0 * (1 << 20)).time_s));
  // The bench names the pick, as the row's algorithm.
  CHECK(bench_collective(tuned, OpKind::AllReduce, 8, 8192.0 * (1 << 20)).algorithm == "ring");
  CHECK(bench_collective(tuned, OpKind::AllReduce, 32, 32.0 * (1 << 20)).algorithm == "hierarchical");
  CHECK(bench_collective(tuned, OpKind::AllReduce, 1, 32.0 * (1 << 20)).algorithm == tuned.collectives.intra_algorithm);
  CHECK(bench_collective(tuned, OpKind::AllToAll, 8, 32.0 * (1 << 20)).algorithm == "pairwise");
}
