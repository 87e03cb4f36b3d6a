// block_builder.hpp — forward op lists of one transformer block, the embedding and the
// head, for each architecture (Llama, GPT-NeoX, BERT), sharded Megatron-style over TP.
// Each entry carries the role that decides its backward: a compute op, or the entry /
// exit of a tensor-parallel region (Megatron's f and g operators).
#pragma once
#include <vector>

#include "model_spec.hpp"
#include "trnsim/op.hpp"
#include "workload.hpp"

namespace trnsim {

enum class Role {
  Compute,
  TpEnter,  // f: fwd identity (SP: all-gather); bwd all-reduce (SP: reduce-scatter + input re-gather)
  TpExit,   // g: fwd all-reduce (SP: reduce-scatter); bwd identity (SP: all-gather)
  TpGather, // token-split work rejoins: fwd all-gather, bwd reduce-scatter (SP or not)
  Scatter,  // its mirror: fwd reduce-scatter, bwd all-gather (expert TP leaving the experts)
  AllToAll, // MoE token dispatch / combine over the EP group: the backward sends the gradients back the same way
};

struct FwdOp {
  FwdOp(Op o, Role r = Role::Compute, bool core = false, bool flash = false)
      : op(std::move(o)), role(r), attention_core(core), flash_scores(flash) {}
  Op op;                        // for TpEnter/TpExit: the collective's size is in op.comm_bytes
  Role role = Role::Compute;
  bool attention_core = false;  // recomputed under selective checkpointing
  bool flash_scores = false;    // the flash kernel's QK^T: its backward recomputes scores and exp first
  // A low-precision linear: its backward first quantizes the output gradient (this many passes).
  int grad_quant_passes = 0;
  // TpEnter whose forward gather moves low-precision data: the backward reduce-scatter moves
  // BF16 gradients of this size (0: the same bytes as forward).
  Bytes grad_comm_bytes;
  // LoRA: a frozen base parameter's op (its backward computes no weight gradient), and the
  // trainable adapter GEMMs beside a targeted linear layer (their weights: op.k x op.n each).
  bool frozen = false;
  bool lora_adapter = false;
  // The training loop's batch preparation (Workload::Loop): no gradient flows through it.
  bool no_backward = false;
  // Kernels autograd launches for this op's backward (0: as many as the forward's op.launches).
  int backward_launches = 0;
  // The backward's HBM traffic where the forward's kernels do not say it (0: derived from the
  // forward op): PyTorch's softmax chain reads and writes FP32 in most of its five kernels.
  Bytes backward_read, backward_written;
  // Context parallelism: the last op of the attention core; its backward starts with the ring
  // exchange of K/V and their gradients (this many bytes), beside the attention backward.
  Bytes ring_bwd_bytes;
};

// Megatron's FusedScaleMaskSoftmax.is_kernel_available (megatron/model/fused_softmax.py, 2022 on;
// recalled, not in the sources): whether its fused CUDA kernel runs for `b` x `np` score matrices of
// sq x sk (16-bit input; causal: the upper-triangular kernel, else a padding mask).
bool megatron_fused_softmax_available(int64_t b, int64_t np, int64_t sq, int64_t sk, bool causal, bool half_input);

// How a precision recipe quantizes a BF16 tensor (docs/precision.md has the sources):
// `passes` reads of the input (2 where the scale needs the whole tensor's amax first),
// `copies` outputs (row-wise + transposed / column-wise: every operand feeds two GEMMs; one for
// per-tensor FP8 where the FP8 GEMM takes any operand layout, Workload::fp8_any_layout),
// `tp_amax`: inputs gathered over the sequence-parallel group first all-reduce their amax over TP.
struct QuantRule {
  bool active = false;
  DType to = DType::BF16;
  int passes = 1, copies = 2;
  bool tp_amax = false;
  bool amax_history = false;  // delayed scaling: one amax-history all-reduce per step
  bool bf16_rate = false;     // the scaled GEMMs issue at the BF16 rate (row-wise FP8, Op::bf16_rate)
  bool low_gather = true;     // sequence-parallel all-gathers move the quantized copy (else BF16, then cast)
};
QuantRule quant_rule(const Workload& w);

// Key columns a causal flash kernel computes per query row, on average: the tiles on or below
// the diagonal, (s + tile) / 2 with 512-wide key tiles (the NKI flash_fwd reference kernel's
// k tile; the only published tiling among the stacks). Non-causal (encoder): all s.
int64_t flash_key_columns(int64_t s, bool causal);
// Key columns per query row a causal sliding-window flash kernel computes: the window plus one
// query tile's span (tile-granular masking), never more than the causal average.
int64_t flash_window_key_columns(int64_t s, int64_t window);

struct ShardContext {
  const ModelSpec& m;
  const Workload& w;
  DType dt;
  QuantRule q;  // the block linear layers' recipe (inactive outside FP8 / MXFP8 / NVFP4)
  int64_t tokens() const { return w.micro_batch * w.seq_len / w.cp; }                 // T (this rank's share of the sequence)
  int64_t local_tokens() const { return w.sequence_parallel ? tokens() / w.tp : tokens(); }  // outside TP regions
  int64_t vocab_shard() const { return (m.vocab + w.tp - 1) / w.tp; }  // padded to a multiple of tp
};

std::vector<FwdOp> block_forward(const ShardContext& c, int layer);
// The training loop's preparation of a micro-batch on a stage that reads it (Workload::Loop): its
// kernels (copies, broadcasts, masks, position ids) move a few bytes per token; what they cost is
// their launches. For a loop that declares batch launches (build_step_plan asks only then).
std::vector<FwdOp> batch_forward(const ShardContext& c);
std::vector<FwdOp> embedding_forward(const ShardContext& c);
std::vector<FwdOp> head_forward(const ShardContext& c);
// Multi-token-prediction module `depth` (0-based), after the head on the last stage: the next
// tokens' embedding (shared table), two RMSNorms, the 2h -> h projection, a block like the last
// layer, and the shared head with its loss. Its ops carry layer id layers + depth.
std::vector<FwdOp> mtp_forward(const ShardContext& c, int depth);

}  // namespace trnsim
