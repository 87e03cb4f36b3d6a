// topology.cpp — routing and link-load counting for groups (see topology.hpp).
#include "topology.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace trnsim {
namespace {

struct LinkId {
  LinkClass cls;
  int a, b;
  bool operator<(const LinkId& o) const { return std::tie(cls, a, b) < std::tie(o.cls, o.a, o.b); }
};

struct Router {
  const HwSpec& hw;
  int chip_of(int core) const { return core / hw.cores_per_chip; }
  // Directed links traversed from core u to core v.
  std::vector<LinkId> route(int u, int v) const {
    std::vector<LinkId> path;
    int cu = chip_of(u), cv = chip_of(v);
    if (cu == cv) {
      path.push_back({LinkClass::OnChip, u, v});
      return path;
    }
    switch (hw.intra.topology) {
      case Topology::AllToAll: path.push_back({LinkClass::Pair, cu, cv}); break;
      case Topology::Switch: path.push_back({LinkClass::SwitchPort, cu, -1}); break;
      case Topology::Torus:
      case Topology::Ring: {
        const int X = hw.intra.dim_x, Y = hw.intra.dim_y;
        int x = cu % X, y = cu / X;
        const int tx = cv % X, ty = cv / X;
        auto walk = [&](int& pos, int target, int dim, LinkClass cls, auto chip_at) {
          int fwd = (target - pos + dim) % dim;
          int step = fwd <= dim - fwd ? 1 : -1;
          while (pos != target) {
            int from = chip_at();
            pos = (pos + step + dim) % dim;
            path.push_back({cls, from, step});
          }
        };
        walk(x, tx, X, LinkClass::TorusX, [&] { return y * X + x; });
        walk(y, ty, Y, LinkClass::TorusY, [&] { return y * X + x; });
        break;
      }
    }
    return path;
  }
};

double class_bandwidth(const HwSpec& hw, LinkClass c) {
  return c == LinkClass::OnChip ? hw.intra.onchip_bandwidth.base() : hw.intra.link_bandwidth.base();
}

// Cost of one step in which every member sends to the member `shift` places ahead,
// for all groups of this kind in the node at once; returns the representative's worst hop.
// BiRing: a bidirectional ring, half of every chunk going each way round (full-duplex links).
enum class Pattern { Ring, BiRing, AllPairs, Chain };

PathCost ring_cost(const HwSpec& hw, const std::vector<std::vector<int>>& groups, Pattern pattern) {
  Router r{hw};
  std::map<LinkId, int> load;
  auto hops_of = [&](const std::vector<int>& g) {
    std::vector<std::vector<LinkId>> paths;
    const size_t n = g.size();
    for (size_t i = 0; i < n; ++i) {
      if (pattern == Pattern::AllPairs) {
        for (size_t j = 0; j < n; ++j)
          if (j != i) paths.push_back(r.route(g[i], g[j]));
      } else if (pattern == Pattern::Ring || pattern == Pattern::BiRing || i + 1 < n) {
        paths.push_back(r.route(g[i], g[(i + 1) % n]));
        if (pattern == Pattern::BiRing) paths.push_back(r.route(g[(i + 1) % n], g[i]));
      }
    }
    return paths;
  };
  for (const auto& g : groups)
    for (const auto& p : hops_of(g))
      for (const auto& l : p) ++load[l];
  PathCost worst;
  double worst_time = -1;
  for (const auto& p : hops_of(groups.front())) {
    double t = 0;
    LinkClass cls = LinkClass::OnChip;
    double mult = 1;
    for (const auto& l : p) {
      double lt = load[l] / class_bandwidth(hw, l.cls);
      if (lt > t) {
        t = lt;
        cls = l.cls;
        mult = load[l];
      }
    }
    if (t > worst_time) {
      worst_time = t;
      // Each direction of a bidirectional ring carries half of the chunk.
      worst = {cls, pattern == Pattern::BiRing ? mult / 2 : mult, static_cast<int>(p.size())};
    }
  }
  return worst;
}

}  // namespace

GroupLayout compute_layout(const HwSpec& hw, int stride, int size);

GroupLayout layout_group(const HwSpec& hw, int stride, int size) {
  // Memoised: sweeps ask for the same few (hardware, stride, size) triples again and again.
  static std::map<std::tuple<std::string, int, int>, GroupLayout> memo;
  const auto key = std::make_tuple(hw.fingerprint() + hw.intra_fingerprint(), stride, size);
  auto it = memo.find(key);
  if (it != memo.end()) return it->second;
  return memo[key] = compute_layout(hw, stride, size);
}

GroupLayout compute_layout(const HwSpec& hw, int stride, int size) {
  GroupLayout g;
  const int cpn = hw.cores_per_node();
  g.size = size;
  g.local = stride >= cpn ? 1 : std::min(size, cpn / stride);
  g.nodes = (size + g.local - 1) / g.local;
  // All groups of this kind inside one node: member j of the group based at b is b + j*stride.
  std::vector<std::vector<int>> groups;
  if (g.local > 1) {
    std::vector<bool> used(static_cast<size_t>(cpn), false);
    for (int b = 0; b < cpn; ++b) {
      if (used[static_cast<size_t>(b)]) continue;
      std::vector<int> m;
      for (int j = 0; j < g.local && b + j * stride < cpn; ++j) {
        m.push_back(b + j * stride);
        used[static_cast<size_t>(b + j * stride)] = true;
      }
      groups.push_back(m);
    }
    g.intra_ring = ring_cost(hw, groups, hw.collectives.intra_algorithm == "bidirectional-ring" ? Pattern::BiRing : Pattern::Ring);
    g.intra_direct = ring_cost(hw, groups, Pattern::AllPairs);
  }
  // Inter-node: every core of the node takes part in some group's node-level ring at once. With
  // scale-up domains the group's nodes split into domains of domain_nodes nodes (the largest
  // divisor of the group's node count that one domain holds at the group's node stride: jobs
  // place power-of-two groups, e.g. 16 of an NVL72's 18 trays): rings inside a domain run on the
  // domain fabric, only the ring between domains crosses the NICs.
  const int node_stride = std::max(1, stride / cpn);
  if (hw.scaleup.nodes > 1 && g.nodes > 1) {
    const int cap = std::max(1, hw.scaleup.nodes / node_stride);
    for (int d = std::min(cap, g.nodes); d >= 1; --d)
      if (g.nodes % d == 0) {
        g.domain_nodes = d;
        break;
      }
  }
  g.domains = g.nodes / g.domain_nodes;
  g.domain_ring = {LinkClass::ScaleUp, static_cast<double>(cpn), 1};
  g.inter_ring = {LinkClass::Nic, static_cast<double>(cpn), 1};
  g.flat_cross = {g.domains > 1 ? LinkClass::Nic : LinkClass::ScaleUp, static_cast<double>(cpn) / g.local, 1};
  // Pipeline neighbour: every core sends to the core `stride` ranks ahead at once; between nodes
  // the representative pair is inside a domain when the domain holds more than one stage.
  if (stride < cpn) {
    std::vector<std::vector<int>> pairs;
    for (int c = 0; c + stride < cpn; ++c) pairs.push_back({c, c + stride});
    g.p2p = ring_cost(hw, pairs, Pattern::Chain);
  } else {
    g.p2p = {hw.scaleup.nodes > node_stride ? LinkClass::ScaleUp : LinkClass::Nic, static_cast<double>(cpn), 1};
  }
  return g;
}

}  // namespace trnsim
