// memory_model.hpp — bytes each core holds at its peak: weights, gradients, optimizer
// states (+ FP32 master weights in mixed precision), activations of the in-flight
// micro-batches (Korthikanti et al. 2022, generalised to GQA/SwiGLU/no-dropout), and
// the largest temporary buffer. Checked against the core's HBM by the run layer.
#pragma once
#include <string>
#include <vector>

#include "model_spec.hpp"
#include "step_graph.hpp"
#include "trnsim/units.hpp"
#include "workload.hpp"

namespace trnsim {

struct MemoryBreakdown {
  int stage = 0;  // pipeline rank
  Bytes weights, gradients, optimizer_states, master_weights, activations, temporary;
  Bytes low_precision_weights;  // FP8 / MXFP8 / NVFP4 copies of the linear weights (0 otherwise)
  Bytes allocator_reserve;      // the caching allocator's declared fragmentation over the rest (0 unless declared)
  Bytes activation_per_layer;  // one micro-batch, one layer
  int64_t in_flight = 1;       // (chunk, micro-batch) activation sets live at once on this rank
  Bytes total() const {
    return weights + gradients + optimizer_states + master_weights + low_precision_weights + activations + temporary +
           allocator_reserve;
  }
};

// Activation bytes of one layer for one micro-batch on one core.
Bytes layer_activation_bytes(const ModelSpec& m, const Workload& w);
// The same for layer `layer` of a hybrid model (its kind: Mamba-2, MoE, attention, MLP); for other
// models every layer is the standard block above.
Bytes layer_activation_bytes(const ModelSpec& m, const Workload& w, int64_t layer);
// Worst stage first; one entry per stage.
std::vector<MemoryBreakdown> memory_per_stage(const ModelSpec& m, const Workload& w, const StepPlan& plan);

// What memory_per_stage reads from a plan, per pipeline rank. It does not depend on the DP
// degree, ZeRO stage or node count, so the search computes it once per plan shape and prices
// every DP / ZeRO variant from it (the same arithmetic as memory_per_stage, which calls this).
struct RankMemoryInputs {
  double parameters = 0;            // held by the core, all its chunks
  double linear_parameters = 0;     // of those, the weights of low-precision linear GEMMs
  double expert_parameters = 0;     // of those, routed experts (ZeRO shards them over the EDP ranks)
  double trainable_parameters = 0;  // of those, the ones with gradients and optimizer states (LoRA: the adapters)
  int64_t layers = 0, chunk_layers = 0;
  int64_t chunk_first_layer = 0;    // first layer of that largest chunk (hybrid models sum its layers)
  bool first = false, last = false;  // holds the embedding / the LM head (FP32 logits)
  Bytes largest_output;             // biggest forward/backward/recompute op output, the loss's excluded
  Bytes largest_loss_output;        // biggest output of the loss (cross entropy and its backward)
};
std::vector<RankMemoryInputs> rank_memory_inputs(const StepPlan& plan);
std::vector<MemoryBreakdown> memory_per_stage(const ModelSpec& m, const Workload& w,
                                              const std::vector<RankMemoryInputs>& ranks, int64_t micro_batches);
const MemoryBreakdown& peak_stage(const std::vector<MemoryBreakdown>& v);
// A one-line explanation of what to change when it does not fit.
std::string memory_advice(const MemoryBreakdown& b, const Workload& w, Bytes capacity);

}  // namespace trnsim
