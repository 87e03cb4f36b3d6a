// op.hpp — one unit of work for one core, in hardware-neutral terms.
// Why: models/ (which knows transformers) emits Ops; sim/ (which knows engines and
// links) times them. This header is the whole contract between the two layers, so it
// names shapes (GEMM M,K,N; element counts; bytes) but no layer or model concepts
// beyond a free-text label and a coarse tag for the report (Part), which nothing times by.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "trnsim/fnv_hash.hpp"
#include "trnsim/expert_routing.hpp"
#include "trnsim/units.hpp"

namespace trnsim {

enum class OpKind {
  Gemm,          // C[M,N] = A[M,K] x B[K,N], `batch` independent copies (batched attention GEMMs)
  Softmax,       // row softmax over `elements` values, rows of length `row`
  Norm,          // RMSNorm / LayerNorm over rows of length `row`
  Elementwise,   // `passes` arithmetic passes over `elements` values with `inputs` operands
  Embedding,     // gather of `elements` values from a table (DMA/GpSimd)
  CrossEntropy,  // softmax + NLL over rows of length `row`
  Optimizer,     // AdamW update of `elements` parameters
  AllReduce,
  ReduceScatter,
  AllGather,
  SendRecv,
  AllToAll,      // every rank sends 1/n of its buffer to each other rank (MoE token dispatch / combine)
};

enum class Engine { Tensor, Vector, Scalar, GpSimd, Dma, Collective };
// EP: the expert-parallel group (MoE all-to-all); EDP: the expert-data-parallel group that
// reduces expert gradients (tp x dp / ep ranks).
enum class Group { None, TP, DP, PP, EP, EDP, CP, ETP };
enum class Phase { Forward, Backward, Recompute, Optimizer };
// Element types. FP8: E4M3 / E5M2 with one FP32 scale per tensor or per row (Transformer
// Engine, torchao). MXFP8: E4M3 with one E8M0 scale per 32 elements (OCP MX). NVFP4: E2M1 with
// one E4M3 scale per 16 elements and an FP32 scale per tensor (NVIDIA Blackwell).
enum class DType { BF16, FP32, FP8, MXFP8, NVFP4 };
// Which implementation of a fused attention kernel runs an attention op (its GEMMs). Native: the
// chip's own best fused kernel (cuDNN / FlashAttention-3 class on NVIDIA Hopper and later, NKI on
// Trainium), timed like any GEMM on the chip. Flash2: FlashAttention-2 (Dao 2023; also PyTorch
// SDPA's flash backend), written for Ampere's instructions. Flash1: FlashAttention v1 and its 2022
// Triton port. A hw file states how much slower a non-native kernel's GEMMs run on that chip
// (tensor.attention_slowdown); nothing else here knows a kernel's name.
enum class AttentionKernel { Native, Flash2, Flash1 };
constexpr int kAttentionKernels = 3;
// The part of the model an op computes, for the report's compute-by-part table (where a step's
// device time goes); timing never depends on it. Glue: norms, residual adds, dropout, positional
// terms outside attention. MoeRouting: router, token permutation and un-permutation (the
// all-to-alls are communication, reported apart). Casts: quantisation to a low-precision format.
enum class Part { Glue, Attention, Mlp, Experts, MoeRouting, Mamba, EmbeddingHead, Casts, Optimizer };
constexpr int kParts = 9;
constexpr int kDTypes = 5;

// Bytes per element, block scales included (MXFP8 1 + 1/32; NVFP4 1/2 + 1/16).
constexpr double dtype_bytes(DType d) {
  switch (d) {
    case DType::BF16: return 2;
    case DType::FP32: return 4;
    case DType::FP8: return 1;
    case DType::MXFP8: return 1.0 + 1.0 / 32;
    case DType::NVFP4: return 0.5 + 1.0 / 16;
  }
  return 2;
}
// Every low-precision format (narrower than BF16: the tensor engine's low-precision rate), in the
// order reports list them.
constexpr std::array<DType, 3> kLowPrecisionDTypes{DType::FP8, DType::MXFP8, DType::NVFP4};
constexpr bool is_low_precision(DType d) {
  for (DType x : kLowPrecisionDTypes)
    if (x == d) return true;
  return false;
}
const char* to_string(OpKind k);
const char* to_string(Engine e);
const char* to_string(Part p);
const char* to_string(Group g);
const char* to_string(Phase p);
const char* to_string(DType d);
const char* to_string(AttentionKernel k);

// The fields that decide an op's timing, as a cheap hashable value (no strings).
struct OpShape {
  int kind, engine, dtype, out_dtype, inputs, passes, transcendental, onchip, kernel;  // onchip: bits onchip_in 1, onchip_out 2, bf16_rate 4, fused_attention 8
  int64_t batch, m, k, n, elements, row;
  // HBM traffic (a vector op's time follows it: an optimizer step moves master weights and
  // moments that its element count does not show).
  double read, written;
  bool operator==(const OpShape& o) const {
    return kind == o.kind && engine == o.engine && dtype == o.dtype && out_dtype == o.out_dtype && inputs == o.inputs && passes == o.passes &&
           transcendental == o.transcendental && onchip == o.onchip && kernel == o.kernel && batch == o.batch && m == o.m && k == o.k &&
           n == o.n && elements == o.elements && row == o.row && read == o.read && written == o.written;
  }
};
struct OpShapeHash {
  size_t operator()(const OpShape& s) const {
    uint64_t h = kFnvOffset;
    for (int64_t v : {int64_t(s.kind), int64_t(s.engine), int64_t(s.dtype), int64_t(s.out_dtype), int64_t(s.inputs), int64_t(s.passes),
                      int64_t(s.transcendental), int64_t(s.onchip), int64_t(s.kernel), s.batch, s.m, s.k, s.n, s.elements, s.row,
                      static_cast<int64_t>(s.read), static_cast<int64_t>(s.written)})
      h = fnv1a_mix(h, static_cast<uint64_t>(v));
    return static_cast<size_t>(h);
  }
};

struct Op {
  OpKind kind = OpKind::Elementwise;
  Engine engine = Engine::Vector;  // the engine class that bounds it
  Phase phase = Phase::Forward;
  std::string label;               // e.g. "L3.qkv.fwd" (free text, for traces only)
  int layer = -1;                  // -1: not inside a repeated block
  DType dtype = DType::BF16;      // operands (GEMM: A and B)
  DType out_dtype = DType::BF16;  // result (a low-precision GEMM writes BF16; a quantize op writes FP8)

  // GEMM shape
  int64_t batch = 1, m = 0, k = 0, n = 0;
  // vector-class shape
  int64_t elements = 0;   // values touched per pass
  int64_t row = 0;        // reduction length for softmax/norm/cross-entropy
  int inputs = 1;         // operands per pass (1 or 2)
  int passes = 1;         // dependent engine passes (e.g. LayerNorm: mean, var, normalise)
  bool transcendental = false;  // needs the scalar (activation) engine: exp, GeLU, SiLU
  // Vector passes when the chip has an activation (scalar) engine that applies the exponential with
  // a per-row bias and accumulates the row sum in the same instruction (NeuronCore's ScalarE); -1:
  // `passes` everywhere. A flash kernel's online softmax then needs one vector pass (the row max)
  // where a GPU's SMs run max, shift and sum (and the exponential) as separate instructions.
  int passes_with_activation_engine = -1;
  // Fused kernels keep intermediates in on-chip memory (SBUF / shared memory): the first
  // operand (GEMM A, or a vector op's inputs) is not loaded from HBM, the output not stored.
  bool onchip_in = false, onchip_out = false;
  // A GEMM inside a fused attention kernel: the kernel implementation that runs it.
  AttentionKernel attention_kernel = AttentionKernel::Native;
  // Part of a fused (flash) attention kernel, forward or backward: its GEMMs and its on-chip
  // softmax / exp passes. Where the hw file publishes the kernel's own rate
  // (tensor.fused_attention), the kernel's time is its GEMM work at that rate and its softmax
  // passes add nothing (the measured kernel overlaps them); elsewhere each op is timed on its own.
  bool fused_attention = false;
  // A low-precision GEMM whose scaled-matmul kernel issues at the BF16 tensor rate: operands
  // stored (and moved) in `dtype`, the math at BF16's peak and efficiency (torchao's row-wise
  // FP8 through torch._scaled_mm, see Workload::fp8_recipe).
  bool bf16_rate = false;
  // A weight-gradient GEMM: no later op of the micro-batch's backward consumes its result
  // (only the DP reduction and the optimizer do), so the schedule does not wait for it.
  bool weight_grad = false;
  // The loss (cross-entropy) and its backward: the memory model sizes their buffers by how the
  // loss runs (Workload::loss_kernel), apart from every other op's. Not in shape_key (no timing).
  bool loss = false;
  // Kernel launches the host issues for this op in eager execution, each costing the host's
  // dispatch time: 1 for one kernel; more for an op the framework runs as a loop of kernels (a
  // grouped GEMM issued as one GEMM per local expert, a router's softmax / top-k / auxiliary-loss
  // kernels). The device time does not depend on it (not in shape_key).
  int launches = 1;
  // What part of the model this op computes (the report's compute-by-part table). Not in
  // shape_key (no timing).
  Part part = Part::Glue;

  // collective
  Group group = Group::None;
  int group_size = 1;
  Bytes comm_bytes;       // full logical buffer size (all-reduce: S; RS: input S; AG: output S; all-to-all: one rank's send buffer)
  // A collective that runs beside the next `overlap_ops` compute ops instead of before them (ring
  // attention's K/V exchange beside the attention it feeds); they wait for it only at the end.
  int overlap_ops = 0;
  // A collective that runs beside the compute op before it (TE userbuffers' pipelined GEMM +
  // reduce-scatter): it starts with that op, and the chain waits for both.
  bool overlap_previous = false;
  // An MoE dispatch / combine all-to-all: how the routed copies spread (what crosses the network).
  ExpertRouting routing;

  // accounting (filled by the builder)
  Flops flops;
  Bytes bytes_read;
  Bytes bytes_written;

  bool is_collective() const { return engine == Engine::Collective; }
  // Identical ops (same work on the same hardware) share a key, so timing can be memoised. The key
  // holds every field lowering reads (tests/sim/test_op_memo.cpp changes each and checks the key changes).
  std::string shape_key() const;
  OpShape shape() const {
    return {static_cast<int>(kind), static_cast<int>(engine), static_cast<int>(dtype), static_cast<int>(out_dtype), inputs, passes,
            transcendental ? 1 : 0, (onchip_in ? 1 : 0) | (onchip_out ? 2 : 0) | (bf16_rate ? 4 : 0) | (fused_attention ? 8 : 0), static_cast<int>(attention_kernel), batch, m, k, n, elements, row,
            bytes_read.base(), bytes_written.base()};
  }
};

}  // namespace trnsim
