// node_spread.hpp — the slowest node ends a synchronous step. Nodes do not run identically (host,
// clocks, thermals, OS noise, the network's own jitter); every rank of a data-parallel step waits
// for the slowest node in the gradient reduction and the collectives after it. With node step times
// spread normally at relative standard deviation `cluster.node_spread` (a hw-file figure: a user's
// own cluster's, `--hw-set "cluster.node_spread=0.02"`; no shipped file states one, and fitted on the
// corpus it did not generalise: docs/validation.md), N nodes take the mean times 1 + spread x
// E[max of N standard normals]. One node waits for nobody.
#pragma once
#include <cstdint>

#include "hw_spec.hpp"

namespace trnsim {

// E[max of n independent standard normals]: 0 for n <= 1, 1/sqrt(pi) for 2, 1.5/sqrt(pi) for 3.
double expected_max_of_normals(int64_t n);

// The fraction a step on `nodes` nodes of `hw` adds for its slowest node (0 without a spread).
double slowest_node_fraction(const HwSpec& hw, int64_t nodes);

}  // namespace trnsim
