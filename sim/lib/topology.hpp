// topology.hpp — where a communication group's ranks sit, and what that means for
// links. Ranks are numbered as Megatron does (tensor-parallel fastest, then data-
// parallel, then pipeline), cores numbered chip-major inside a node. For a group given
// by its stride and size, every group of that kind in the node is routed at once
// (dimension-order on a torus, direct pairs on all-to-all, one egress port on a switch),
// loads are counted per physical directed link, and the representative ring's
// bottleneck hop is reported: its link class, how many flows share that link, and its
// hop count. This is exact under symmetry: all groups of one kind run identical steps at
// the same time.
#pragma once
#include "hw_spec.hpp"
#include "link.hpp"

namespace trnsim {

struct PathCost {
  LinkClass link = LinkClass::OnChip;
  double multiplicity = 1;  // flows sharing the bottleneck physical link
  int hops = 1;             // links traversed (latency)
  int domain = 0;           // which disjoint set of the class's links (see Link)
  // Its hop latencies and per-step software cost x this: a measured collective table faster than
  // the model's latencies scales them (measured_collectives.hpp); 1 otherwise.
  double latency_scale = 1;
};

struct GroupLayout {
  int size = 1;    // ranks in the group
  int local = 1;   // ranks of the group inside one node
  int nodes = 1;   // nodes the group spans
  // Scale-up domains (NVL72, UltraServers): the group's nodes in each domain, and how many
  // domains it spans (nodes = domain_nodes x domains; 1 x nodes without a domain level).
  int domain_nodes = 1, domains = 1;
  PathCost intra_ring;    // one step of a ring among the local ranks
  PathCost intra_direct;  // one step of a direct exchange among the local ranks
  PathCost domain_ring;   // one step of a ring among the group's nodes of one domain (scale-up fabric)
  PathCost inter_ring;    // one step of a ring among nodes / domains over the NICs
  PathCost flat_cross;    // the node-crossing hop of a flat ring over all ranks
  PathCost p2p;           // send to the rank `stride` away (pipeline neighbour)
  // The same placement on another disjoint set of links (e.g. another pipeline stage's nodes).
  GroupLayout in_domain(int d) const {
    GroupLayout g = *this;
    for (PathCost* p : {&g.intra_ring, &g.intra_direct, &g.domain_ring, &g.inter_ring, &g.flat_cross, &g.p2p}) p->domain = d;
    return g;
  }
  GroupLayout with_latency_scale(double k) const {
    GroupLayout g = *this;
    for (PathCost* p : {&g.intra_ring, &g.intra_direct, &g.domain_ring, &g.inter_ring, &g.flat_cross, &g.p2p}) p->latency_scale = k;
    return g;
  }
};

// stride: distance in ranks between consecutive group members; size: group size.
GroupLayout layout_group(const HwSpec& hw, int stride, int size);

}  // namespace trnsim
