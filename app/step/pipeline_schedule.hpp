// pipeline_schedule.hpp — the order in which one pipeline rank runs its forward and backward
// passes (GPipe, 1F1B, interleaved 1F1B as Megatron-LM orders them). Pure arithmetic, shared by
// the step executor; kept apart so it can be read and tested without the SystemC machinery.
#pragma once
#include <vector>

#include "workload.hpp"

namespace trnsim {

// One entry of a rank's schedule: forward or backward of micro-batch `mb` on chunk `chunk`.
struct Slot {
  bool forward;
  int chunk, mb;
  // Steady state of 1F1B ("one forward, one backward"): a combined schedule runs a forward and a
  // backward of different micro-batches as one interleaved pair, so the communication of either
  // hides behind the compute of the other (Workload::ep_overlap). 0: the slot runs alone; 1: it
  // opens a pair; 2: it closes the pair opened by the slot before it.
  int pair = 0;
};

// The order in which rank r of p runs its forwards and backwards over m micro-batches and v
// chunks. GPipe: all forwards, then all backwards. 1F1B (v = 1) and interleaved 1F1B (v > 1),
// as Megatron-LM's schedules: (p - r - 1)*2 + (v - 1)*p warm-up forwards (p - r - 1 without
// interleaving), then one forward / one backward pairs, then the cool-down backwards. Forward
// k runs chunk (k / p) % v on micro-batch (k / (p v)) p + k % p; backward k the same
// micro-batch on chunk v - 1 - (k / p) % v. With warm-up forwards the pairs are forward
// warm + i with backward i; without (the last rank, or no pipeline) backward i pairs with
// forward i + 1, and the first forward and the last backward run alone.
std::vector<Slot> rank_schedule(Schedule sched, int p, int r, int m, int v);

}  // namespace trnsim
