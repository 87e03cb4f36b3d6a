// test_all_to_all.cpp — issue 24: the MoE all-to-all on the real topology, against closed forms
// derived here. Each rank sends S/n to every other rank; inside a node all pairs cross the switch
// ports at once, across nodes every core of a node pushes its off-node share through the node's
// NICs (or, inside an NVL72 domain, its NVLink ports); the slowest part bounds the exchange.
#include <catch2/catch.hpp>

#include <cmath>

#include "collective.hpp"
#include "sim_helpers.hpp"
#include "platform.hpp"
#include "scenario.hpp"

using namespace trnsim;

namespace {
double a2a_seconds(const HwSpec& hw, Bytes size, const GroupLayout& g, const ExpertRouting& routing = {}) {
  return test::collective_seconds(hw, hw.collectives.inter_algorithm, OpKind::AllToAll, size, g, routing);
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

namespace {
// C(a, k) / C(b, k), written out for the closed forms below.
double miss(double a, double b, int k) {
  double r = 1;
  for (int i = 0; i < k; ++i) r *= (a - i) / (b - i);
  return r;
}
}  // namespace

TEST_CASE("distinct remote domains of a token's experts: closed forms", "[moe][routing]") {
  // Unlimited routing, 256 experts over 8 domains, top-8: each other domain is hit unless all
  // 8 draws miss its 32 experts.
  const ExpertRouting free_routing{8, 256, 1, 1, true};
  CHECK(remote_domains_per_token(free_routing, 8) == Approx(7 * (1 - miss(224, 256, 8))).epsilon(1e-12));
  CHECK(remote_domains_per_token(free_routing, 1) == 0.0);
  // One copy per token: the chance its expert is remote.
  CHECK(remote_domains_per_token({1, 256, 1, 1, true}, 8) == Approx(7.0 / 8).epsilon(1e-12));
  // DeepSeek-V3 over 8 domains of one group each: a domain is one of the token's 4 groups with
  // chance 1/2, then hit unless all 8 draws from the 128-expert pool miss its 32.
  const ExpertRouting ds{8, 256, 8, 4, true};
  const double ds8 = 7 * 0.5 * (1 - miss(96, 128, 8));
  CHECK(remote_domains_per_token(ds, 8) == Approx(ds8).epsilon(1e-12));
  CHECK(remote_domains_per_token(ds, 8) < 4.0);  // node-limited: at most 4 domains, own included
  // 4 domains of two groups each: j of a domain's 2 groups among the 4 chosen (hypergeometric).
  double hit4 = 0;
  for (int j = 0; j <= 2; ++j) {
    const double pj = std::tgamma(3) / (std::tgamma(j + 1) * std::tgamma(3 - j)) *
                      (std::tgamma(7) / (std::tgamma(4 - j + 1) * std::tgamma(6 - (4 - j) + 1))) / 70.0;
    hit4 += pj * (1 - miss(128 - 32 * j, 128, 8));
  }
  CHECK(remote_domains_per_token(ds, 4) == Approx(3 * hit4).epsilon(1e-12));
  // 16 domains, each half a group: its group chosen with chance 1/2, then 16 of the pool's 128.
  CHECK(remote_domains_per_token(ds, 16) == Approx(15 * 0.5 * (1 - miss(112, 128, 8))).epsilon(1e-12));
  // Group limits never add domains.
  for (int d : {2, 4, 8, 16, 32})
    CHECK(remote_domains_per_token(ds, d) <= remote_domains_per_token(free_routing, d) + 1e-12);
}

TEST_CASE("a once-per-domain dispatcher puts only a token's distinct remote domains on the NICs", "[tlm][collective][moe]") {
  const double S = 256e6;  // one rank's buffer: tokens x top_k copies
  const HwSpec h100 = load_hw_spec(hw_path("dgx-h100"));
  const double nic = h100.inter.nic_bandwidth.base(), oh = h100.collectives.step_overhead_s;
  const GroupLayout ep64 = layout_group(h100, 1, 64);  // 8 DGX nodes
  // Every routed copy: 7/8 of the buffer leaves the node, 8 GPUs at once through its NICs.
  const double plain = a2a_seconds(h100, Bytes(S), ep64);
  CHECK(plain == Approx(8 * (S * 7 / 8) / nic + h100.inter.latency_s + oh).epsilon(0.01));
  // DeepEP with DeepSeek-V3's routing: S / 8 per token copy, sent once per remote node.
  const ExpertRouting ds{8, 256, 8, 4, true};
  const double per_domain = a2a_seconds(h100, Bytes(S), ep64, ds);
  const double network = S / 8 * remote_domains_per_token(ds, 8);
  CHECK(per_domain == Approx(8 * network / nic + h100.inter.latency_s + oh).epsilon(0.01));
  CHECK(per_domain < 0.5 * plain);  // under half the copies cross InfiniBand
  // The same dispatcher inside one node changes nothing: there is no network part.
  const GroupLayout ep8 = layout_group(h100, 1, 8);
  CHECK(a2a_seconds(h100, Bytes(S), ep8, ds) == Approx(a2a_seconds(h100, Bytes(S), ep8)).epsilon(1e-9));
  // Without the dispatcher flag the routing is only a description: every copy travels.
  ExpertRouting described = ds;
  described.once_per_domain = false;
  CHECK(a2a_seconds(h100, Bytes(S), ep64, described) == Approx(plain).epsilon(1e-9));
}
