// fused_attention_overlap.hpp — a flash kernel's GEMMs and softmax run side by side.
// Where no hw file publishes a fused-attention kernel's rate (tensor.fused_attention), trnsim times
// the kernel's GEMMs (scores, context, their backward) and its softmax passes (max, exp, row sum,
// dS) as separate ops, and run one after the other they added up. The kernel does not run them in
// series: it loops over key tiles, and while the tensor cores (the PE array) multiply one tile the
// special-function units (the activation and vector engines) exponentiate another. The chip's own
// kernel does (AttentionKernel::Native: cuDNN's fused attention on Hopper and Blackwell, NKI's flash
// kernel, whose engines run their own instruction queues): FlashAttention-3 introduced the overlap on
// Hopper (Shah et al. 2024, arXiv 2407.08608: at head dim 128 "exponential can take 50% of the cycle
// time compared to matmul"; ping-pong warp groups and intra-warpgroup pipelining hide it), where
// FlashAttention-1 and -2 issue each tile's MMAs and exponentials from the same warps in turn, so
// their runs stay in series (recalled, not in data/reference/). So a native fused run takes
//   T = max(G, V) + min(G, V) / steps,   steps = ceil(key columns / key tile)
// G its GEMM time, V its other ops' time, one key tile's share of the shorter side the pipeline's
// fill. Where the kernel's rate is published its softmax ops take no time (lower_fused_attention)
// and nothing changes. The executor and the search's step bound apply it to the same op lists.
#pragma once
#include <cstdint>
#include <vector>

#include "step_graph.hpp"

namespace trnsim {

// `d[i]` holds the device time of list[i]. In every fused run (fused_runs.hpp) of a native kernel
// the non-GEMM ops' times are scaled so the run lasts T above; GEMM times are kept. `key_tile`: key
// columns per pipeline step (>= 1).
void overlap_fused_attention(const StageProgram& st, const std::vector<OpVertex>& list, int64_t key_tile,
                             std::vector<double>& d);

}  // namespace trnsim
