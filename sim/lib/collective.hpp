// collective.hpp — collective algorithms as chunked transfers on the Fabric, one
// implementation per file under impl/, built by name (Ramulator-2 style):
//   ring          flat ring over all ranks (2(n-1) steps of S/n for all-reduce)
//   direct        all-to-all exchange inside a node (one step of S/n per phase)
//   hierarchical  intra-node reduce-scatter, inter-node ring, intra-node all-gather
//   pipelined     the same transfers as hierarchical, its chunks through both levels at once
//   a+b           the tuner: per call, whichever of the named algorithms is faster on idle links
//                 (NCCL picks its algorithm per call from its own cost model; NCCL_ALGO docs, recalled)
// run() blocks the calling SC_THREAD for the duration of the collective: the fabric's fixed
// per-call cost, then the algorithm's steps.
#pragma once
#include <memory>
#include <string>

#include "fabric.hpp"
#include "topology.hpp"
#include "trnsim/op.hpp"

namespace trnsim {

struct CollectiveCall {
  OpKind kind = OpKind::AllReduce;  // AllReduce, ReduceScatter, AllGather, SendRecv
  Bytes size;                       // full logical buffer (see Op::comm_bytes)
  GroupLayout layout;
  ExpertRouting routing{};          // all-to-all of an MoE dispatch / combine (else inactive)
};

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual const char* name() const = 0;
  void run(Fabric& f, const CollectiveCall& c) const {
    f.begin_call();
    steps(f, c);
  }
  // Seconds the steps take on idle links (the fixed per-call cost left out: every algorithm pays it).
  double idle_seconds(const StepSink& f, const CollectiveCall& c) const;
  // The steps alone, without the per-call cost (an algorithm that delegates to another).
  void steps_on(StepSink& f, const CollectiveCall& c) const { steps(f, c); }
  // The algorithm this call runs: its own name, or, for the tuner, the candidate it picks.
  virtual std::string chosen_for(const StepSink&, const CollectiveCall&) const { return name(); }

 protected:
  virtual void steps(StepSink& f, const CollectiveCall& c) const = 0;
};

std::unique_ptr<CollectiveAlgorithm> make_collective(const std::string& name, const std::string& intra_name);

// Phases shared by the implementations.
namespace phase {
// A ring phase of `steps` steps of `chunk` on `path`, booked in at most kMaxBookings
// transactions, so simulation cost does not grow with the group size while concurrent
// traffic on the same link still interleaves with it.
constexpr int kMaxBookings = 4;
void ring_steps(StepSink& f, const PathCost& path, Bytes chunk, int steps);
// Reduce-scatter or all-gather of `size` among the `layout.local` ranks of one node.
void intra(StepSink& f, const GroupLayout& g, Bytes size, bool direct);
// Reduce-scatter or all-gather of `size` among `g.nodes` nodes (one rank per node per ring): a
// ring inside each scale-up domain, then one among the domains over the NICs.
void inter(StepSink& f, const GroupLayout& g, Bytes size);
// All-to-all of `size` bytes per rank (1/n to each member): the part to ranks of the same node
// crosses the intra-node links (all pairs at once), the part to other nodes of the same scale-up
// domain the domain fabric, the rest the NICs, every core of a node sending at once. The parts
// use disjoint links and run concurrently: the slowest is booked (and contends with other traffic).
// A dispatcher that sends a token once per destination domain (routing.once_per_domain) puts only
// the token's distinct remote domains on the NICs (remote_domains_per_token x size / top_k) and
// fans the copies out over the intra-node links at the destination.
void all_to_all(StepSink& f, const GroupLayout& g, Bytes size, const ExpertRouting& routing);
}  // namespace phase

}  // namespace trnsim
