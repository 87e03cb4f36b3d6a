// plan_shapes.hpp — what every layout of one plan shape shares (per-program forward / backward
// work, memory inputs, parameters), built on every core. A plan shape is the search's unit of
// work: its step plan is the costly part of bounding a layout, and it is the same for every DP
// degree, ZeRO stage, DP-overlap setting and node count.
//
// Threads: building a plan (models/) and reading memoised op timings are thread-safe; simulating
// an op is not (one SystemC kernel per process). So shapes go in batches: worker threads build
// the plans and look their op timings up, the calling thread simulates the ops none had seen, and
// the threads finish the shapes that missed some. The result does not depend on the thread count.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hw_spec.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "step_bound.hpp"
#include "workload.hpp"

namespace trnsim {

struct PlanShape {
  bool ok = false;                          // the plan was built (memory fields, parameters, ranks are set)
  bool timed = false;                       // F, B_serial, B_overlap, ops_per_micro_batch are set
  std::string reason;                       // why the shape is invalid (a rejection reason)
  std::vector<double> F;                    // per program (virtual stage), one micro-batch's forward
  std::vector<double> B_serial, B_overlap;  // per program, without / with TP overlap in the backward
  std::vector<RankMemoryInputs> memory;
  std::vector<int64_t> parameters;         // per program: what its optimizer updates (before ZeRO sharding)
  std::vector<int64_t> expert_parameters;  // per program: of those, routed experts
  std::vector<std::vector<PieceRun>> pieces;  // per program: what its DP-stream collectives are built from
  double ops_per_micro_batch = 0;
  int64_t ranks = 1, vstages = 1;
  // (dp, zero) -> per rank: optimizer work (compute and collectives), and the DP stream's
  // collectives per micro-batch and per reduction (the search fills them).
  std::map<std::pair<int64_t, int>, std::vector<double>> optimizer;
  std::map<std::pair<int64_t, int>, std::vector<DpStreamWork>> dp_stream;
};

struct ShapeJob {
  Workload workload;  // a layout of the shape, with tp_overlap off (one shape serves both settings)
  size_t hw = 0;      // index into the hardware list
};

// needed(job, shape): called on a worker thread once the shape's plan is built (ok, memory inputs
// set); false skips timing it (no layout of it fits, say). Calls for different jobs may run at once.
using ShapeNeeded = std::function<bool(size_t job, const PlanShape& shape)>;
// threads: worker threads (>= 1). progress: report batches on stderr.
std::vector<PlanShape> build_plan_shapes(const std::vector<ShapeJob>& jobs, const ModelSpec& model,
                                         const std::vector<HwSpec>& hws, const ShapeNeeded& needed, int threads,
                                         bool progress);

}  // namespace trnsim
