// test_idle_collective_memo.cpp — the search's memo of collectives alone on idle links is keyed by
// every hardware field their time depends on: a variant of one hw file in the same process (an
// invariant test doubling the NICs, a what-if of the links) gets its own times, not the first's.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "op_factory.hpp"
#include "platform.hpp"
#include "scenario.hpp"
#include "step_bound.hpp"

using namespace trnsim;

TEST_CASE("idle-collective times follow the NICs, the latencies and the step cost of the hw in use", "[search][memo]") {
  const HwSpec base = load_hw_spec(hw_path("dgx-h100"));
  const int per_node = base.cores_per_node();
  // A DP all-reduce of 1 GiB over 4 nodes: one rank per node, so the ring crosses the NICs.
  const Op ar = ops::collective(OpKind::AllReduce, "dp", Group::DP, 4, Bytes(1u << 30));
  auto idle_s = [&](const HwSpec& hw) {
    Platform::instance().configure(hw);
    WorkTimes times(hw, /*simulate=*/true);
    return times.collective_s(ar, per_node);
  };
  const double t0 = idle_s(base);
  REQUIRE(t0 > 0);
  HwSpec fast_nic = base;
  fast_nic.inter.nic_bandwidth = base.inter.nic_bandwidth * 2.0;
  CHECK(idle_s(fast_nic) < 0.7 * t0);  // bandwidth-bound: about half
  HwSpec slow_steps = base;
  slow_steps.collectives.step_overhead_s = base.collectives.step_overhead_s + 1e-3;  // 1 ms per ring step
  CHECK(idle_s(slow_steps) > t0 + 5e-3);  // 2 (n - 1) = 6 steps of the ring at least
  HwSpec far = base;
  far.inter.latency_s = base.inter.latency_s + 1e-3;
  CHECK(idle_s(far) > t0 + 5e-3);
  CHECK(idle_s(base) == t0);  // and the base's own entry is still its own
}
