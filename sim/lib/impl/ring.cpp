// impl/ring.cpp — flat ring over all ranks of the group. Inside one node it is the
// classic ring (or the direct exchange on all-to-all wiring); across nodes every step
// is bounded by the slower of the intra-node hop and the node-crossing hop.
#include "collective.hpp"

namespace trnsim {
namespace {

class Ring : public CollectiveAlgorithm {
 public:
  explicit Ring(bool direct) : direct_(direct) {}
  const char* name() const override { return "ring"; }
  void steps(StepSink& f, const CollectiveCall& c) const override {
    const GroupLayout& g = c.layout;
    if (c.kind == OpKind::SendRecv) {
      f.send(g.p2p, c.size);
      return;
    }
    if (c.kind == OpKind::AllToAll) {
      phase::all_to_all(f, g, c.size, c.routing);
      return;
    }
    const int phases = c.kind == OpKind::AllReduce ? 2 : 1;
    if (g.nodes == 1) {
      for (int p = 0; p < phases; ++p) phase::intra(f, g, c.size, direct_);
      return;
    }
    const Bytes chunk = c.size / g.size;
    const PathCost& step = f.idle_step_seconds(g.flat_cross, chunk) >= f.idle_step_seconds(g.intra_ring, chunk) ||
                                   g.local == 1
                               ? g.flat_cross
                               : g.intra_ring;
    for (int p = 0; p < phases; ++p) phase::ring_steps(f, step, chunk, g.size - 1);
  }

 private:
  bool direct_;
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_ring(bool direct_intra) { return std::make_unique<Ring>(direct_intra); }

}  // namespace trnsim
