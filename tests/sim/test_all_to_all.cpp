// test_all_to_all.cpp — issue 24: the MoE all-to-all on the real topology, against closed forms
// derived here. Each rank sends S/n to every other rank; inside a node all pairs cross the switch
// ports at once, across nodes every core of a node pushes its off-node share through the node's
// NICs (or, inside an NVL72 domain, its NVLink ports); the slowest part bounds the exchange.
#include <catch2/catch.hpp>

#include "collective.hpp"
#include "sim_helpers.hpp"
#include "platform.hpp"
#include "scenario.hpp"

using namespace trnsim;

namespace {
double a2a_seconds(const HwSpec& hw, Bytes size, const GroupLayout& g) {
  return test::collective_seconds(hw, hw.collectives.inter_algorithm, OpKind::AllToAll, size, g);
}
}  // namespace

TEST_CASE("all-to-all inside one node vs across nodes vs across an NVL72 domain", "[tlm][collective][moe]") {
  const double S = 256e6;
  const HwSpec h100 = load_hw_spec(hw_path("dgx-h100"));
  const double oh = h100.collectives.step_overhead_s;
  const double port = h100.intra.link_bandwidth.base() * h100.collectives.intra_bandwidth_fraction;
  // EP 8 in one DGX-H100: each GPU's switch port carries its 7 outgoing chunks of S/8.
  const double one_node = 7 * (S / 8) / port + h100.intra.link_latency_s + oh;
  const double t1 = a2a_seconds(h100, Bytes(S), layout_group(h100, 1, 8));
  CHECK(t1 == Approx(one_node).epsilon(0.01));
  // EP 16 over two nodes: half of each rank's buffer leaves the node, and the node's 8 GPUs push
  // theirs through its 3,200 Gb/s of NICs at once: 8 x S/2 over the NIC rate.
  const double nic = h100.inter.nic_bandwidth.base();
  const double two_nodes = 8 * (S / 2) / nic + h100.inter.latency_s + oh;
  const double t2 = a2a_seconds(h100, Bytes(S), layout_group(h100, 1, 16));
  CHECK(t2 == Approx(two_nodes).epsilon(0.01));
  CHECK(t2 > 5 * t1);  // crossing InfiniBand costs an order of magnitude more than NVLink
  // GB200 NVL72: EP 64 over 16 trays of one NVLink domain: 60/64 of each buffer leaves the tray,
  // over the tray's NVLink ports (4 x 900 GB/s), not the NICs.
  const HwSpec gb = load_hw_spec(hw_path("gb200-nvl72"));
  const double su = gb.scaleup.node_bandwidth.base();
  const double domain = 4 * (S * 4 * 15 / 64) / su + gb.scaleup.latency_s + gb.collectives.step_overhead_s;
  const double t3 = a2a_seconds(gb, Bytes(S), layout_group(gb, 1, 64));
  CHECK(t3 == Approx(domain).epsilon(0.01));
  HwSpec no_domain = gb;
  no_domain.scaleup.nodes = 1;
  CHECK(a2a_seconds(no_domain, Bytes(S), layout_group(no_domain, 1, 64)) > 3 * t3);
}
