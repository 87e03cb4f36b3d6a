// op.cpp — names and shape keys for the hardware-neutral Op (see op.hpp).
#include "trnsim/op.hpp"

#include <fmt/format.h>

namespace trnsim {

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::Gemm: return "gemm";
    case OpKind::Softmax: return "softmax";
    case OpKind::Norm: return "norm";
    case OpKind::Elementwise: return "elementwise";
    case OpKind::Embedding: return "embedding";
    case OpKind::CrossEntropy: return "cross_entropy";
    case OpKind::Optimizer: return "optimizer";
    case OpKind::AllReduce: return "all_reduce";
    case OpKind::ReduceScatter: return "reduce_scatter";
    case OpKind::AllGather: return "all_gather";
    case OpKind::SendRecv: return "send_recv";
    case OpKind::AllToAll: return "all_to_all";
  }
  return "?";
}
const char* to_string(Engine e) {
  switch (e) {
    case Engine::Tensor: return "tensor";
    case Engine::Vector: return "vector";
    case Engine::Scalar: return "scalar";
    case Engine::GpSimd: return "gpsimd";
    case Engine::Dma: return "dma";
    case Engine::Collective: return "collective";
  }
  return "?";
}
const char* to_string(Part p) {
  switch (p) {
    case Part::Glue: return "norms_residuals";
    case Part::Attention: return "attention";
    case Part::Mlp: return "mlp";
    case Part::Experts: return "experts";
    case Part::MoeRouting: return "moe_routing";
    case Part::Mamba: return "mamba";
    case Part::EmbeddingHead: return "embedding_head";
    case Part::Casts: return "casts";
    case Part::Optimizer: return "optimizer";
  }
  return "?";
}
const char* to_string(Group g) {
  switch (g) {
    case Group::None: return "none";
    case Group::TP: return "tp";
    case Group::DP: return "dp";
    case Group::PP: return "pp";
    case Group::EP: return "ep";
    case Group::EDP: return "edp";
    case Group::CP: return "cp";
    case Group::ETP: return "etp";
  }
  return "?";
}
const char* to_string(Phase p) {
  switch (p) {
    case Phase::Forward: return "fwd";
    case Phase::Backward: return "bwd";
    case Phase::Recompute: return "recompute";
    case Phase::Optimizer: return "optimizer";
  }
  return "?";
}
const char* to_string(DType d) {
  switch (d) {
    case DType::BF16: return "bf16";
    case DType::FP32: return "fp32";
    case DType::FP8: return "fp8";
    case DType::MXFP8: return "mxfp8";
    case DType::NVFP4: return "nvfp4";
  }
  return "?";
}

const char* to_string(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::Native: return "native";
    case AttentionKernel::Flash2: return "flash2";
    case AttentionKernel::Flash1: return "flash1";
  }
  return "?";
}

std::string Op::shape_key() const {
  if (is_collective())
    return fmt::format("{}:{}:{}:{}{}", to_string(kind), to_string(group), group_size, comm_bytes.base(),
                       routing.active() ? fmt::format(":k{}e{}g{}/{}{}", routing.top_k, routing.experts, routing.groups,
                                                      routing.group_topk, routing.once_per_domain ? "d" : "")
                                        : "");
  return fmt::format("{}:{}:{}:{}x{}x{}x{}:e{}:r{}:i{}:p{}:t{}:b{}/{}{}{}{}{}{}{}", to_string(kind), to_string(engine), to_string(dtype), batch, m, k,
                     n, elements, row, inputs, passes, transcendental ? 1 : 0, bytes_read.base(), bytes_written.base(),
                     onchip_in || onchip_out ? fmt::format(":c{}", (onchip_in ? 1 : 0) | (onchip_out ? 2 : 0)) : "",
                     out_dtype != dtype ? fmt::format(":o{}", to_string(out_dtype)) : "",
                     attention_kernel != AttentionKernel::Native ? fmt::format(":a{}", to_string(attention_kernel)) : "",
                     bf16_rate ? ":r16" : "", fused_attention ? ":fa" : "",
                     passes_with_activation_engine >= 0 ? fmt::format(":pa{}", passes_with_activation_engine) : "");
}

}  // namespace trnsim
