// test_collective_bench.cpp — `trnsim collective`'s arithmetic and the collective model's shape:
// nccl-tests' bus factors, sizes as nccl-tests reads them, a one-node ring against its closed form,
// bus bandwidth monotone in size and in node count, and the shipped p5 nccl-tests table read whole.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "collective_bench.hpp"
#include "collective_table.hpp"
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
  REQUIRE(rows_for(rows, hw).size() == 80);
  CHECK(rows_for(rows, load_hw_spec(hw_path("trn1.32xlarge"))).empty());
  CHECK(rows.front().size_bytes == 32.0 * 1024 * 1024);
  for (const CollectiveComparison& c : compare_collectives(hw, rows)) {
    CHECK(std::isfinite(c.error()));
    CHECK(c.predicted.ranks == c.measured.nodes * 8);
  }
}
