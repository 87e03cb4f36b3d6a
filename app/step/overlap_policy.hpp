// overlap_policy.hpp — what hides behind what: how a collective in a rank's op list meets the
// compute around it.
// Why: the step executor (run_ops) applies these rules and the search's step bound (step_bound.cpp)
// must never exceed what the executor does; both ask here, so an overlap mechanism is written once.
#pragma once
#include "trnsim/op.hpp"

namespace trnsim {

enum class CommPlacement {
  Paired,        // an expert all-to-all of a steady-state 1F1B pair (ep_overlap): beside the pair's other pass
  BesideNext,    // started when the chain reaches it, awaited after the next op.overlap_ops compute ops
  WithPrevious,  // started with the compute op before it (op.overlap_previous), awaited before the next
  DpStream,      // a ZeRO-3 parameter gather: on the rank's DP stream, awaited by its layer's ops
  OnChain,       // on the chain, the compute not on the chain (weight gradients) beside it (tp_overlap)
  Serial,        // on the chain, after every engine has drained
};

// `tp_overlap`: the workload's parallel.tp_overlap (backward collectives beside the weight-gradient
// GEMMs); `ep_paired`: the list is a pass of a steady-state pair and the workload has ep_overlap.
inline CommPlacement placement(const Op& op, bool tp_overlap, bool ep_paired) {
  if (ep_paired && op.group == Group::EP) return CommPlacement::Paired;
  if (op.overlap_ops > 0) return CommPlacement::BesideNext;
  if (op.overlap_previous) return CommPlacement::WithPrevious;
  if (op.group == Group::DP) return CommPlacement::DpStream;
  return tp_overlap && op.phase == Phase::Backward ? CommPlacement::OnChain : CommPlacement::Serial;
}

}  // namespace trnsim
