// lowering.hpp — turns a hardware-neutral Op into a core Program at tile granularity.
//
// GEMM (C[M,N] = A[M,K] x B[K,N]) on a rows x cols systolic array:
//   * the stationary operand is a K-slice x N-slice tile (<= rows x cols), the moving
//     operand streams up to max_moving columns; one matmul instruction occupies the array
//     for max(moving, min_issue_cycles) cycles whatever the tile fill, so partial tiles
//     (K % rows, N % cols) and short moving sizes (< min_issue) waste PE cycles;
//   * cycles of one work unit = n_tiles x ceil(K/rows) x max(m, min_issue), / efficiency;
//   * SBUF blocking: B is loaded in column blocks that fit a third of SBUF; A stays
//     resident if it fits a third of SBUF, else it is re-streamed once per B block;
//   * loads are double-buffered against compute, PSUM is double-buffered against the
//     evictions (alternating vector and scalar engines), stores follow evictions.
// So the tile-pipeline efficiency of a large aligned GEMM is
//   m/max(m,min_issue) (=1 for m = 512) x efficiency x (1 - fill/drain share),
// where the fill is the first unit's loads and the drain its last eviction + store.
// Vector-class ops stream tiles of `lanes` partitions x F elements: load, `passes`
// vector instructions (~F cycles per input operand + fixed overhead each), one scalar
// pass for transcendentals, store; also double-buffered.
// An op of a fused attention kernel (Op::fused_attention) on a chip whose hw file publishes the
// kernel's measured rate (tensor.fused_attention) is one tensor instruction of its GEMM work over
// that rate (its softmax passes: zero, inside the measured kernel); elsewhere it is lowered as above.
#pragma once
#include "hw_spec.hpp"
#include "program.hpp"
#include "trnsim/op.hpp"

namespace trnsim {

Program lower_op(const Op& op, const HwSpec& hw);

// Cycle count of the tensor engine alone for a GEMM (no efficiency, no overlap): used by
// tests and by the report's "ideal" column.
double gemm_tensor_cycles(const Op& op, const TensorSpec& t);

}  // namespace trnsim
