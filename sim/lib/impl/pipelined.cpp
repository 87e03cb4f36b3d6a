// impl/pipelined.cpp — the two-level collective as NCCL runs it: the same transfers as
// `hierarchical` (reduce-scatter among a node's ranks, a ring across nodes on 1/local of the data,
// all-gather inside the node), but its chunks flow through the intra-node and the inter-node hops
// at once rather than phase after phase, so a large collective takes its slowest link's time, not
// the sum. Latencies still add up: every step of every phase is on the pipeline's path once.
#include "collective.hpp"

namespace trnsim {
namespace {

class Pipelined : public CollectiveAlgorithm {
 public:
  explicit Pipelined(bool direct) : direct_(direct) {}
  const char* name() const override { return "pipelined"; }
  void steps(StepSink& f, const CollectiveCall& c) const override {
    const GroupLayout& g = c.layout;
    switch (c.kind) {
      case OpKind::SendRecv:
        f.send(g.p2p, c.size);
        return;
      case OpKind::AllToAll:
        phase::all_to_all(f, g, c.size, c.routing);
        return;
      case OpKind::AllReduce:
        run(f, g, c.size, 2);
        return;
      case OpKind::ReduceScatter:
      case OpKind::AllGather:
        run(f, g, c.size, 1);
        return;
      default:
        return;
    }
  }

 private:
  // `halves` = 2 for an all-reduce (reduce-scatter and all-gather), 1 for either alone.
  void run(StepSink& f, const GroupLayout& g, Bytes size, int halves) const {
    std::vector<StepSink::Transfer> t;
    if (g.local > 1) {
      if (direct_) t.push_back({&g.intra_direct, size / g.local, halves});
      else t.push_back({&g.intra_ring, size / g.local, halves * (g.local - 1)});
    }
    const Bytes shard = size / g.local;
    if (g.nodes > 1 && g.domain_nodes > 1) t.push_back({&g.domain_ring, shard / g.domain_nodes, halves * (g.domain_nodes - 1)});
    if (g.nodes > 1 && g.domains > 1) t.push_back({&g.inter_ring, shard / g.nodes, halves * (g.domains - 1)});
    f.send_pipelined(t);
  }
  bool direct_;
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_pipelined(bool direct_intra) { return std::make_unique<Pipelined>(direct_intra); }

}  // namespace trnsim
