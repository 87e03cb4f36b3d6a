// step_graph.hpp — the operator graph of one training step for the representative core
// of each pipeline stage (Boost.Graph DAG): forward and backward of one micro-batch
// (activation-grad and weight-grad GEMMs separately, recompute per checkpointing
// mode), DP gradient buckets, the optimizer step, and PP send/recv sizes.
// TP ranks and DP replicas run identical programs, so one core per stage stands for all.
#pragma once
#include <array>
#include <vector>

#include "model_spec.hpp"
#include "op_graph.hpp"
#include "trnsim/op.hpp"
#include "workload.hpp"

namespace trnsim {

struct DpBucket {
  OpVertex op;             // the DP collective
  size_t ready_after = 0;  // grads complete once backward[ready_after] has run
};

// The parameters of one piece of a program (embedding, a block, the head, an MTP layer), held
// by this core after TP / EP sharding: the unit of ZeRO-3 gathering and of DP gradient bucketing.
struct PieceParameters {
  int64_t params = 0;     // held (the ZeRO-3 gather's size)
  int64_t trainable = 0;  // of params, with gradients (all; under LoRA the adapters')
  int64_t expert = 0;     // of params, routed experts (reduced over the expert-data-parallel ranks)
};

// One model chunk's program. Without interleaving there is one per pipeline rank; with
// virtual_stages v, rank r holds v chunks, chunk c being virtual stage c*pp + r (Megatron).
struct StageProgram {
  int stage = 0;                     // virtual stage (index in StepPlan::stages)
  int rank = 0, chunk = 0;           // pipeline rank that runs it, and which of its chunks
  int64_t first_layer = 0, num_layers = 0;
  bool first = false, last = false;
  int64_t parameters = 0;            // parameters held by this core (after TP sharding)
  int64_t expert_parameters = 0;     // of those, routed-expert parameters (after EP sharding)
  int64_t trainable_parameters = 0;  // of those, the ones the optimizer updates (LoRA: the adapters; else all)
  OpGraph graph;
  std::vector<OpVertex> forward;     // one micro-batch, in order
  // The first micro-batch's forward when the optimizer's parameter gather runs beside it
  // (Workload::overlap_param_gather): `forward` with each piece's gather one piece ahead; else empty.
  std::vector<OpVertex> first_forward;
  std::vector<OpVertex> backward;    // one micro-batch, recompute included, in order
  std::vector<DpBucket> dp_buckets;  // once per step, after the last micro-batch's backward
  std::vector<OpVertex> optimizer;   // once per step, after all buckets
  std::vector<PieceParameters> pieces;  // in forward order (what the DP-stream ops below are built from)
  Bytes p2p_bytes;                   // activation (or its gradient) sent to the next/previous stage
  // Pipeline scatter/gather (workload parallel.pp_scatter_gather): each TP rank sends 1/tp of the
  // tensor and the receiver all-gathers the full tensor (these bytes) over its TP group; 0 = off.
  Bytes p2p_gather_bytes;
  const Op& op(OpVertex v) const { return graph[v]; }
};

struct StepPlan {
  std::vector<StageProgram> stages;  // by virtual stage: pp x virtual_stages programs
  int64_t ranks = 1, virtual_stages = 1;
  int64_t micro_batches = 1;   // per step per DP replica (gradient accumulation)
  // Whole-cluster FLOPs per step: model (fwd+bwd GEMMs) and hardware (+ recompute).
  Flops model_flops, hardware_flops;
};

// Throws ConfigError (naming the workload file and field) if the plan cannot shard the model.
StepPlan build_step_plan(const ModelSpec& m, const Workload& w);
// A stage's optimizer compute: the gradient-norm pass and AdamW over its (ZeRO-sharded) parameters.
std::array<Op, 2> optimizer_compute_ops(int64_t stage_parameters, const Workload& w, int64_t expert_parameters = 0);
DType compute_dtype(const Workload& w);
// The DP-stream collectives build_step_plan puts in a program, from its pieces alone (the search
// bounds the DP stream of every DP degree and ZeRO stage from one plan shape with these):
//   * ZeRO-3 (DP x CP > 1): a piece's parameter all-gather, in forward and, resharded after
//     forward, again in backward;
//   * a piece's gradient buckets: its dense gradients over DP x CP, its expert gradients over the
//     expert-data-parallel ranks (reduce-scatter under ZeRO >= 1, else all-reduce), each only when
//     its group has more than one rank;
//   * ZeRO-1 / ZeRO-2: the optimizer's parameter all-gather of the stage's trainable parameters.
bool zero3_gathers(const Workload& w);
Op param_gather_op(const PieceParameters& p, const Workload& w);
std::vector<Op> grad_bucket_ops(const PieceParameters& p, const Workload& w);
// The data-parallel reductions of a stage's gradients, pieces given in backward order (their
// gradients complete in that order): one per piece, or flat buffers of
// Workload::grad_bucket_elements, each closed once it holds that many elements and the last
// after the final piece. The step graph issues these; the search's bound times them.
std::vector<PieceParameters> grad_buckets(const std::vector<PieceParameters>& backward_order, const Workload& w);
// Whether the open buffer (the pieces' gradients not yet reduced) is reduced now.
bool grad_bucket_closes(const PieceParameters& open, const Workload& w, bool last_piece);
bool optimizer_param_gather(const Workload& w);
// `low_precision_weights`: those kept only in FP8 (Workload::fp8_param_gather), gathered at one byte.
Op optimizer_param_gather_op(int64_t trainable_parameters, int64_t low_precision_weights, const Workload& w);
int64_t stage_layers(const ModelSpec& m, const Workload& w);
// Layers of each program (virtual stage) in order: stage_layers each, one fewer on the first and
// the last under the embedding-and-loss split.
std::vector<int64_t> program_layers(const ModelSpec& m, const Workload& w);
// `layers` over `programs` as evenly as whole layers allow, the remainder on the middle-most first
// (the balanced split; the ends carry the embedding and the loss).
std::vector<int64_t> balanced_layers(int64_t layers, int64_t programs);

}  // namespace trnsim
