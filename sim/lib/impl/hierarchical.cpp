// impl/hierarchical.cpp — two-level collective: reduce-scatter among the ranks inside
// each node, a ring across nodes on 1/local of the data (all cores of a node use the
// NICs at once), then all-gather inside the node. Falls back to the intra-node
// algorithm when the group fits in one node.
#include "collective.hpp"

namespace trnsim {
namespace {

class Hierarchical : public CollectiveAlgorithm {
 public:
  explicit Hierarchical(bool direct) : direct_(direct) {}
  const char* name() const override { return "hierarchical"; }
  void steps(StepSink& f, const CollectiveCall& c) const override {
    const GroupLayout& g = c.layout;
    const Bytes shard = c.size / g.local;
    switch (c.kind) {
      case OpKind::SendRecv:
        f.send(g.p2p, c.size);
        break;
      case OpKind::AllToAll:
        phase::all_to_all(f, g, c.size, c.routing);
        break;
      case OpKind::AllReduce:
        phase::intra(f, g, c.size, direct_);
        phase::inter(f, g, shard);
        phase::inter(f, g, shard);
        phase::intra(f, g, c.size, direct_);
        break;
      case OpKind::ReduceScatter:
        phase::intra(f, g, c.size, direct_);
        phase::inter(f, g, shard);
        break;
      case OpKind::AllGather:
        phase::inter(f, g, shard);
        phase::intra(f, g, c.size, direct_);
        break;
      default:
        break;
    }
  }

 private:
  bool direct_;
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_hierarchical(bool direct_intra) {
  return std::make_unique<Hierarchical>(direct_intra);
}

}  // namespace trnsim
