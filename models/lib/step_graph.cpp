// step_graph.cpp — builds StepPlan (see step_graph.hpp).
#include "step_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <stdexcept>

#include "block_builder.hpp"
#include "layout_rules.hpp"
#include "op_factory.hpp"
#include "trnsim/error.hpp"

namespace trnsim {
namespace {

// Backward ops of one forward entry, in execution order, into `out` (cleared first; the caller
// reuses one vector for a whole plan). `regather`: with SP, a linear that saved only its sequence
// shard gathers its input again for the weight gradient (Megatron); one that saved the gathered
// input (DTensor, Workload::sp_saves_gathered_inputs) does not.
void backward_of(const FwdOp& f, bool sp, bool regather, int cp, std::vector<Op>& out) {
  out.clear();
  if (f.no_backward) return;
  const Op& o = f.op;
  auto coll = [&](OpKind k, const std::string& suffix, bool gradient = false) {
    Op c = o;
    c.kind = k;
    c.label = o.label + suffix;
    c.phase = Phase::Backward;
    c.overlap_ops = 0, c.overlap_previous = false;  // the backward's own overlap: tp_overlap in the executor
    if (gradient && f.grad_comm_bytes.base() > 0) c.comm_bytes = f.grad_comm_bytes;
    out.push_back(std::move(c));
  };
  if (f.role == Role::TpEnter) {
    if (sp) {
      if (regather) coll(OpKind::AllGather, ".regather");  // re-gather the (quantized) input for the weight gradient
      coll(OpKind::ReduceScatter, ".bwd", true);
    } else {
      coll(OpKind::AllReduce, ".bwd", true);
    }
    return;
  }
  if (f.role == Role::TpExit) {
    if (sp) coll(OpKind::AllGather, ".bwd");
    return;
  }
  if (f.role == Role::TpGather) {
    coll(OpKind::ReduceScatter, ".bwd");
    return;
  }
  if (f.role == Role::Scatter) {
    coll(OpKind::AllGather, ".bwd");
    return;
  }
  if (f.role == Role::AllToAll) {
    coll(OpKind::AllToAll, ".bwd");
    return;
  }
  // A cast to a low-precision format passes its gradient straight through (the backward
  // quantizes the output gradient instead, see the GEMM case).
  if (o.kind == OpKind::Elementwise && o.out_dtype != o.dtype) return;
  switch (o.kind) {
    case OpKind::Gemm: {  // C=A.B: dA = dC.B^T (M,N,K); dB = A^T.dC (K,M,N)
      if (f.ring_bwd_bytes.base() > 0) {  // ring attention backward: K/V and dK/dV round the CP ring
        Op ring = ops::collective(OpKind::SendRecv, o.label + ".cp_ring_bwd", Group::CP, cp, f.ring_bwd_bytes);
        ring.overlap_ops = 7;  // context dgrad/wgrad, softmax, scores recompute/exp/dgrad/wgrad
        out.push_back(std::move(ring));
      }
      Op dg = ops::gemm(o.label + ".dgrad", o.batch, o.m, o.n, o.k, o.dtype);
      Op wg = ops::gemm(o.label + ".wgrad", o.batch, o.k, o.m, o.n, o.dtype);
      dg.launches = wg.launches = o.launches;  // a per-expert loop in forward loops in backward too
      dg.attention_kernel = wg.attention_kernel = o.attention_kernel;  // the attention kernel's own backward
      dg.fused_attention = wg.fused_attention = o.fused_attention;
      dg.bf16_rate = wg.bf16_rate = o.bf16_rate;                        // the same scaled-matmul kernel
      // Only GEMMs whose B operand is a parameter have a weight gradient; in attention's core
      // (QK^T, xV) both operands are activations and both gradients feed the chain.
      wg.weight_grad = !f.attention_core;
      if (o.onchip_in || o.onchip_out) {  // inside a flash kernel: the s x n operand stays on chip
        dg.onchip_in = wg.onchip_in = true;
        dg.onchip_out = o.onchip_in;  // dP (gradient of the on-chip probabilities) stays on chip
      }
      if (f.grad_quant_passes > 0) {  // the output gradient (E5M2 / MX / NVFP4) for dgrad and, transposed, wgrad
        out.push_back(ops::quantize(o.label + ".grad_quant", o.batch * o.m * o.n, f.grad_quant_passes, 2, o.dtype));
        out.back().part = Part::Casts;
      }
      if (f.flash_scores) {  // the flash backward first recomputes S = QK^T and P = exp(S - lse)
        Op re = o;
        re.label = o.label + ".bwd_recompute";
        out.push_back(std::move(re));
        Op ex = ops::vector_op(OpKind::Elementwise, o.label + ".bwd_exp", o.batch * o.m * o.n, o.n, 1, 1, true, 2, o.dtype);
        ex.onchip_in = ex.onchip_out = true;
        ex.passes_with_activation_engine = 0;  // exp(s - lse): the bias is the activation's own
        ex.fused_attention = o.fused_attention;
        out.push_back(std::move(ex));
      }
      out.push_back(std::move(dg));
      if (!f.frozen) out.push_back(std::move(wg));  // a frozen (LoRA base) weight has no gradient
      break;
    }
    case OpKind::Softmax:
    case OpKind::CrossEntropy: {
      Op b = ops::vector_op(OpKind::Elementwise, o.label + ".bwd", o.elements, o.row, 2, o.kind == OpKind::Softmax ? 3 : 2,
                            false, 3, o.dtype);
      b.launches = f.backward_launches > 0 ? f.backward_launches : o.launches;  // else one backward kernel per forward kernel
      if (f.backward_read.base() > 0) b.bytes_read = f.backward_read;
      if (f.backward_written.base() > 0) b.bytes_written = f.backward_written;
      b.loss = o.loss;
      b.onchip_in = o.onchip_in;
      b.onchip_out = o.onchip_out;
      b.fused_attention = o.fused_attention;
      // Inside a flash kernel dS = P x (dP - D), D the per-row sum of dO x O: one pass over the two
      // tensors with the row's scalar (NeuronCore's scalar-tensor-tensor instruction).
      if (o.passes_with_activation_engine >= 0) b.passes_with_activation_engine = 1;
      out.push_back(std::move(b));
      break;
    }
    case OpKind::Norm: {
      Op b = ops::vector_op(OpKind::Norm, o.label + ".bwd", o.elements, o.row, 2, 2 * o.passes, false,
                            2 * o.flops.base() / std::max<int64_t>(1, o.elements), o.dtype);
      out.push_back(std::move(b));
      break;
    }
    case OpKind::Elementwise: {
      Op b = ops::vector_op(OpKind::Elementwise, o.label + ".bwd", o.elements, o.row, o.inputs + 1, std::max(1, o.passes),
                            o.transcendental, o.flops.base() / std::max<int64_t>(1, o.elements), o.dtype);
      b.launches = o.launches;
      out.push_back(std::move(b));
      break;
    }
    case OpKind::Embedding: {
      if (f.frozen) break;  // a frozen table: no gradient to scatter
      Op b = o;
      b.label = o.label + ".bwd";  // scatter-add of the gradient rows
      b.engine = Engine::GpSimd;
      out.push_back(std::move(b));
      break;
    }
    default:
      break;  // forward-only collectives (loss all-reduces)
  }
  for (auto& b : out) {
    b.phase = Phase::Backward;
    b.layer = o.layer;
  }
}

struct GraphBuilder {
  StageProgram& sp;
  OpVertex prev = OpGraph::null_vertex();

  OpVertex add(Op o, bool chain = true) {
    // add_vertex(g) + assignment, not add_vertex(property, g): the latter goes through Boost's
    // named_graph optional<>, which GCC 12 flags as uninitialised under sanitizers.
    OpVertex v = boost::add_vertex(sp.graph);
    sp.graph[v] = std::move(o);
    if (chain && prev != OpGraph::null_vertex()) boost::add_edge(prev, v, sp.graph);
    if (chain) prev = v;
    return v;
  }
};

}  // namespace

// torchtitan's per-op policy (_save_list: mm, the SDPA kernels, reduce_scatter): an op is
// recomputed unless it is a matmul with an odd count in its block (1st, 3rd, ...), the attention
// kernel, or a reduce-scatter. So norms, rotary, activations, quantize ops and TP all-gathers are
// recomputed, as are every second linear GEMM (wk, wo, w3 in torchtitan's Llama order). A
// low-precision GEMM in a format the policy does not list (Workload::op_selective_saves) is not a
// matmul to it: recomputed, and not counted.
bool op_selective_recomputes(const FwdOp& f, const Workload& w, int& matmuls) {
  if (f.attention_core) return false;
  if (f.op.kind == OpKind::Gemm && !w.op_selective_saves_gemm(f.op.dtype)) return true;
  if (f.op.kind == OpKind::Gemm) return ++matmuls % 2 == 0;
  if (f.op.is_collective()) return f.op.kind == OpKind::AllGather;
  return true;
}

DType compute_dtype(const Workload& w) { return w.precision == Precision::FP32 ? DType::FP32 : DType::BF16; }

int64_t stage_layers(const ModelSpec& m, const Workload& w) {
  const int64_t programs = w.pp * w.virtual_stages;
  return w.pipeline_split == Workload::PipelineSplit::EmbeddingAndLoss ? (m.layers + 2) / programs : m.layers / programs;
}

std::vector<int64_t> balanced_layers(int64_t layers, int64_t programs) {
  std::vector<int64_t> n(static_cast<size_t>(programs), layers / programs);
  // The remainder goes to the middle stages first, outwards (the ends carry embedding and loss).
  int64_t extra = layers % programs;
  const int64_t mid = (programs - 1) / 2;
  for (int64_t k = 0; extra > 0; ++k) {
    const int64_t i = k % 2 == 0 ? mid - k / 2 : mid + (k + 1) / 2;
    if (i < 0 || i >= programs) continue;
    ++n[static_cast<size_t>(i)];
    --extra;
  }
  return n;
}

std::vector<int64_t> program_layers(const ModelSpec& m, const Workload& w) {
  const int64_t programs = w.pp * w.virtual_stages;
  if (w.pipeline_split == Workload::PipelineSplit::Explicit) return w.layers_per_stage;
  if (w.pipeline_split == Workload::PipelineSplit::Balanced) return balanced_layers(m.layers, programs);
  std::vector<int64_t> n(static_cast<size_t>(programs), stage_layers(m, w));
  if (w.pipeline_split == Workload::PipelineSplit::EmbeddingAndLoss) {
    n.front() -= 1;  // the embedding's slot
    n.back() -= 1;   // the loss's slot
  }
  return n;
}

std::array<Op, 2> optimizer_compute_ops(int64_t stage_parameters, const Workload& w, int64_t expert_parameters) {
  // ZeRO-1+ shards dense states over DP and expert states over the expert-data-parallel ranks.
  const int64_t dense = stage_parameters - expert_parameters;
  const int64_t opt_params = w.zero >= 1 ? (dense + w.dp_cp() - 1) / w.dp_cp() + (expert_parameters + w.edp() - 1) / w.edp()
                                         : stage_parameters;
  const int param_bytes = static_cast<int>(dtype_bytes(compute_dtype(w)));
  const int state_bytes = static_cast<int>(w.optimizer_kept_bytes());  // m, v (+ the FP32 master)
  Op norm = ops::vector_op(OpKind::Elementwise, "optimizer.grad_norm", opt_params, 0, 1, 1, false, 2,
                           w.grad_bytes() == 2 ? DType::BF16 : DType::FP32);
  norm.phase = Phase::Optimizer;
  Op adam = ops::optimizer("optimizer.adamw", opt_params, state_bytes, param_bytes, DType::FP32);
  adam.phase = Phase::Optimizer;
  return {norm, adam};
}

bool zero3_gathers(const Workload& w) { return w.zero == 3 && w.dp_cp() > 1; }

Op param_gather_op(const PieceParameters& p, const Workload& w) {
  return ops::collective(OpKind::AllGather, "param_gather", Group::DP, static_cast<int>(w.dp_cp()),
                         Bytes(static_cast<double>(p.params) * dtype_bytes(compute_dtype(w))));
}

std::vector<Op> grad_bucket_ops(const PieceParameters& p, const Workload& w) {
  const OpKind k = w.zero >= 1 ? OpKind::ReduceScatter : OpKind::AllReduce;
  std::vector<Op> out;
  auto bucket = [&](Group g, int64_t size, int64_t params) {
    if (size > 1 && params > 0)
      out.push_back(ops::collective(k, "grad_sync", g, static_cast<int>(size), Bytes(static_cast<double>(params) * w.grad_bytes())));
  };
  bucket(Group::DP, w.dp_cp(), p.trainable - p.expert);
  bucket(Group::EDP, w.edp(), p.expert);
  return out;
}

bool grad_bucket_closes(const PieceParameters& open, const Workload& w, bool last_piece) {
  return w.grad_bucket_elements <= 0 || open.trainable >= w.grad_bucket_elements || last_piece;
}

namespace {
void add_piece(PieceParameters& to, const PieceParameters& p) {
  to.params += p.params;
  to.trainable += p.trainable;
  to.expert += p.expert;
}
}  // namespace

std::vector<PieceParameters> grad_buckets(const std::vector<PieceParameters>& backward_order, const Workload& w) {
  std::vector<PieceParameters> out;
  PieceParameters open;
  for (size_t i = 0; i < backward_order.size(); ++i) {
    add_piece(open, backward_order[i]);
    if (grad_bucket_closes(open, w, i + 1 == backward_order.size())) out.push_back(std::exchange(open, {}));
  }
  return out;
}

// ZeRO-3 keeps its parameters sharded: no gather after the update.
bool optimizer_param_gather(const Workload& w) { return (w.zero == 1 || w.zero == 2) && w.dp_cp() > 1; }

// `low_precision_weights`: the stage's linear weights kept in FP8 (fp8_param_gather), gathered at one
// byte each; MXFP8 gathers them in BF16 (Workload::fp8_param_gather).
Op optimizer_param_gather_op(int64_t trainable_parameters, int64_t low_precision_weights, const Workload& w) {
  // (Under LoRA the frozen linear weights are not the optimizer's: only the BF16 adapters are gathered.)
  const bool fp8 = w.fp8_param_gather && w.precision == Precision::FP8 && !w.lora.active();
  const double lp = fp8 ? static_cast<double>(std::min(low_precision_weights, trainable_parameters)) : 0.0;
  const double bytes = (static_cast<double>(trainable_parameters) - lp) * dtype_bytes(compute_dtype(w)) + lp * dtype_bytes(DType::FP8);
  Op ag = ops::collective(OpKind::AllGather, "optimizer.param_gather", Group::DP, static_cast<int>(w.dp_cp()), Bytes(bytes));
  ag.phase = Phase::Optimizer;
  return ag;
}

StepPlan build_step_plan(const ModelSpec& m, const Workload& w) {
  check_layout(m, w);
  const DType dt = compute_dtype(w);
  ShardContext ctx{m, w, dt, quant_rule(w)};
  const ShardContext bf16_ctx{m, w, dt, QuantRule{}};  // a block kept in BF16 (Workload::bf16_layer)
  StepPlan plan;
  plan.micro_batches = w.grad_accum();
  const std::vector<int64_t> layers_of = program_layers(m, w);
  int64_t next_layer = 0;
  const bool sp = w.sequence_parallel;
  double fwd_bwd_flops = 0, recompute_flops = 0;
  const int64_t programs = w.pp * w.virtual_stages;
  plan.ranks = w.pp;
  plan.virtual_stages = w.virtual_stages;
  plan.stages.reserve(static_cast<size_t>(programs));
  std::vector<Op> bwd_ops;  // one forward op's backward ops, reused

  for (int s = 0; s < programs; ++s) {
    // Built in place: Boost's adjacency_list has no move constructor, so moving a StageProgram in
    // would copy its whole graph (stages is reserved, the reference stays valid).
    StageProgram& st = plan.stages.emplace_back();
    st.stage = s;
    st.rank = static_cast<int>(s % w.pp);
    st.chunk = static_cast<int>(s / w.pp);
    st.first = s == 0;
    st.last = s == programs - 1;
    const int64_t per_stage = layers_of[static_cast<size_t>(s)];
    st.first_layer = next_layer;
    st.num_layers = per_stage;
    next_layer += per_stage;
    st.p2p_bytes = Bytes(static_cast<double>(ctx.local_tokens() * m.hidden) * dtype_bytes(dt));
    if (w.pp_scatter_gather && !w.sequence_parallel && w.tp > 1) {  // SP's tensor is already split
      st.p2p_gather_bytes = st.p2p_bytes;
      st.p2p_bytes = st.p2p_bytes / static_cast<double>(w.tp);
    }

    // Forward pieces: [embedding] + blocks + [head]. Each piece is a unit of recompute and of DP bucketing.
    struct Piece {
      std::vector<FwdOp> fwd;
      int64_t params;
      bool is_block;
      int64_t expert_params = 0;  // of params: routed experts (whole on their EP rank, reduced over EDP)
      int64_t trainable = 0;      // of params, those with gradients (all; under LoRA the adapters')
      PieceParameters parameters() const { return {params, trainable, expert_params}; }
    };
    std::vector<Piece> pieces;
    if ((st.first || st.last) && w.loop.batch_launches > 0) pieces.push_back({batch_forward(ctx), 0, false});
    if (st.first) pieces.push_back({embedding_forward(ctx), m.embedding_parameters() / w.tp, false});
    for (int64_t l = st.first_layer; l < st.first_layer + per_stage; ++l) {
      const int64_t experts = m.expert_parameters(l) / (w.ep * w.etp);
      pieces.push_back({block_forward(w.bf16_layer(l, m.layers) ? bf16_ctx : ctx, static_cast<int>(l)),
                        (m.layer_parameters(l) - m.expert_parameters(l)) / w.tp + experts, true, experts});
    }
    if (st.last) pieces.push_back({head_forward(ctx), m.head_parameters() / w.tp, false});
    if (st.last)
      for (int d = 0; d < m.mtp_layers; ++d) {
        const int64_t experts = m.mtp_expert_parameters() / m.mtp_layers / (w.ep * w.etp);
        pieces.push_back({mtp_forward(ctx, d), (m.mtp_parameters() - m.mtp_expert_parameters()) / m.mtp_layers / w.tp + experts,
                          true, experts});
      }
    // LoRA: the adapters' weights are held beside the frozen base and are all that trains.
    for (auto& p : pieces) {
      if (w.lora.active()) {
        for (const auto& f : p.fwd)
          if (f.lora_adapter) p.trainable += f.op.k * f.op.n;
        p.params += p.trainable;
      } else {
        p.trainable = p.params;
      }
      st.parameters += p.params, st.expert_parameters += p.expert_params, st.trainable_parameters += p.trainable;
    }
    // MTP looks up the next tokens in the shared embedding: the last stage keeps a copy.
    if (st.last && m.mtp_layers > 0 && w.pp > 1) st.parameters += m.vocab * m.hidden / w.tp;
    if (st.last && m.tied_embeddings && w.pp > 1) st.parameters += m.vocab * m.hidden / w.tp;  // head's copy
    if (!w.lora.active()) st.trainable_parameters = st.parameters;

    // Reserve the graph's vertex storage: a search builds plans by the hundred thousand and
    // growing it (reallocate, copy every Op) was a fifth of its CPU. Per forward op:
    // itself, a recompute copy and about two backward ops (measured 2.5 ops per forward op without
    // recompute on DeepSeek-V3); per piece: two gathers, two buckets.
    size_t fwd_ops = 0;
    for (const auto& p : pieces) fwd_ops += p.fwd.size();
    const size_t expect = 4 * fwd_ops + 4 * pieces.size() + 8;
    st.graph.m_vertices.reserve(expect);
    GraphBuilder gb{st};
    // ZeRO-3 / FSDP: each piece's parameters are sharded over DP and all-gathered before the piece
    // runs, in forward and again in backward, one piece ahead (prefetch depth 1: FSDP's
    // forward_prefetch / BACKWARD_PRE, DeepSpeed's prefetch bucket). The gather carries the piece's
    // layer (-1 for embedding and head) so the executor can make that piece's ops wait for it.
    const bool zero3 = zero3_gathers(w);
    for (const auto& p : pieces) st.pieces.push_back(p.parameters());
    auto gather = [&](const Piece& p, Phase phase) {
      const int layer = p.is_block ? p.fwd.front().op.layer : -1;
      Op g = param_gather_op(p.parameters(), w);
      g.label = p.is_block ? fmt::format("L{}.param_gather", layer) : "param_gather";
      g.layer = layer;
      g.phase = phase;
      return gb.add(g, false);
    };
    // Prefetch depth k: the first k pieces are gathered up front, then piece i + k while piece i
    // runs (k = 0: each piece's gather just before it).
    const size_t ahead = static_cast<size_t>(w.fsdp_prefetch);
    if (zero3)
      for (size_t pi = 0; pi < std::min(ahead, pieces.size()); ++pi) st.forward.push_back(gather(pieces[pi], Phase::Forward));
    std::vector<size_t> piece_start(pieces.size());  // where each piece's forward ops begin in st.forward
    for (size_t pi = 0; pi < pieces.size(); ++pi) {
      auto& p = pieces[pi];
      if (zero3 && pi + ahead < pieces.size()) st.forward.push_back(gather(pieces[pi + ahead], Phase::Forward));
      piece_start[pi] = st.forward.size();
      for (auto& f : p.fwd) {
        if (f.op.is_collective() && f.role == Role::TpEnter && !sp) continue;  // f is identity in forward
        Op o = f.op;
        o.phase = Phase::Forward;
        st.forward.push_back(gb.add(o));
        if (!o.is_collective()) fwd_bwd_flops += o.flops.base();
      }
    }
    // Backward, pieces in reverse; recompute first where checkpointing asks for it. Without
    // resharding after forward the parameters are still gathered: no second all-gather.
    const bool regather = zero3 && w.fsdp_reshard_after_forward;
    const size_t n_pieces = pieces.size();
    if (regather)
      for (size_t k = 0; k < std::min(ahead, n_pieces); ++k) st.backward.push_back(gather(pieces[n_pieces - 1 - k], Phase::Backward));
    PieceParameters open_bucket;  // gradients not yet in a reduced bucket
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
      const size_t from_end = static_cast<size_t>(std::distance(pieces.rbegin(), it));
      if (regather && from_end + ahead < n_pieces)
        st.backward.push_back(gather(pieces[n_pieces - 1 - from_end - ahead], Phase::Backward));
      const int64_t layer = it->fwd.front().op.layer;
      const Checkpointing policy = it->is_block ? w.checkpointing_of(layer, layer - st.first_layer) : Checkpointing::None;
      if (policy != Checkpointing::None) {
        int matmuls = 0;  // per-op selective: the block's linear GEMMs in order
        for (auto& f : it->fwd) {
          bool redo = policy == Checkpointing::Full || f.attention_core;
          if (policy == Checkpointing::OpSelective) redo = op_selective_recomputes(f, w, matmuls);
          if (!redo) continue;
          if (f.op.is_collective() && f.role == Role::TpEnter && !sp) continue;
          Op o = f.op;
          o.phase = Phase::Recompute;
          o.label += ".recompute";
          st.backward.push_back(gb.add(o));
          if (!o.is_collective()) recompute_flops += o.flops.base();
        }
      }
      for (auto f = it->fwd.rbegin(); f != it->fwd.rend(); ++f) {
        backward_of(*f, sp, sp && !w.sp_saves_gathered_inputs, static_cast<int>(w.cp), bwd_ops);
        for (auto& b : bwd_ops) {
          if (b.part == Part::Glue) b.part = f->op.part;  // a backward op computes the part its forward op does
          if (!b.is_collective()) fwd_bwd_flops += b.flops.base();
          st.backward.push_back(gb.add(std::move(b)));
        }
      }
      // This piece's gradients are complete: one DP bucket, and for a MoE layer one bucket of
      // expert gradients over the expert-data-parallel ranks. With flat buffers
      // (grad_bucket_elements N > 0) the pieces' gradients join the open buffer in backward order,
      // which is reduced once it holds N elements, and after the last piece.
      const std::string label = it->is_block ? fmt::format("L{}.grad_sync", it->fwd.front().op.layer)
                                             : (it == pieces.rbegin() && st.last ? "head.grad_sync" : "embed.grad_sync");
      add_piece(open_bucket, it->parameters());
      if (!grad_bucket_closes(open_bucket, w, std::next(it) == pieces.rend())) continue;
      for (Op& c : grad_bucket_ops(std::exchange(open_bucket, {}), w)) {
        c.label = c.group == Group::EDP ? label + ".experts" : label;
        c.phase = Phase::Backward;
        OpVertex v = gb.add(c, false);
        boost::add_edge(st.backward.back(), v, st.graph);
        st.dp_buckets.push_back({v, st.backward.size() - 1});
      }
    }
    // Optimizer step: gradient-norm pass, AdamW, and the ZeRO-1 parameter all-gather.
    auto compute = optimizer_compute_ops(st.trainable_parameters, w, st.expert_parameters);
    for (Op& o : compute) o.part = Part::Optimizer;
    OpVertex nv = gb.add(compute[0]);
    for (auto& b : st.dp_buckets) boost::add_edge(b.op, nv, st.graph);
    st.optimizer.push_back(nv);
    st.optimizer.push_back(gb.add(compute[1]));
    // The stage's low-precision linear weights (a grouped GEMM holds `batch` local experts).
    int64_t weights = 0, tensors = 0;
    if (ctx.q.active)
      for (auto v : st.forward) {
        const Op& o = st.graph[v];
        if (o.kind == OpKind::Gemm && o.dtype == ctx.q.to && o.phase == Phase::Forward) weights += o.batch * o.k * o.n, tensors += o.batch;
      }
    if (optimizer_param_gather(w) && !w.overlap_param_gather)
      st.optimizer.push_back(gb.add(optimizer_param_gather_op(st.trainable_parameters, weights, w)));
    if (optimizer_param_gather(w) && w.overlap_param_gather) {
      // Each piece's share of the gather (its trainable parameters, its low-precision weights at one
      // byte under fp8_param_gather), issued one piece ahead of the first micro-batch's forward;
      // the piece's ops wait for it (the executor's ZeRO-3 gather rule). Frozen pieces gather nothing.
      std::vector<OpVertex> gathers(pieces.size(), OpVertex{});
      std::vector<bool> has(pieces.size(), false);
      for (size_t pi = 0; pi < pieces.size(); ++pi) {
        const Piece& p = pieces[pi];
        if (p.trainable <= 0) continue;
        int64_t lp = 0;
        for (const auto& f : p.fwd)
          if (ctx.q.active && f.op.kind == OpKind::Gemm && f.op.dtype == ctx.q.to) lp += f.op.batch * f.op.k * f.op.n;
        Op g = optimizer_param_gather_op(p.trainable, lp, w);
        const int layer = p.is_block ? p.fwd.front().op.layer : -1;
        g.label = p.is_block ? fmt::format("L{}.param_gather", layer) : "param_gather";
        g.layer = layer;
        g.phase = Phase::Forward;
        gathers[pi] = gb.add(g, false);
        has[pi] = true;
      }
      auto issue = [&](size_t pi) {
        if (pi < pieces.size() && has[pi]) st.first_forward.push_back(gathers[pi]);
      };
      // The first gather leads (the executor issues it at the step's start); then one piece ahead.
      const size_t lead = static_cast<size_t>(std::find(has.begin(), has.end(), true) - has.begin());
      issue(lead);
      for (size_t pi = 0; lead < pieces.size() && pi < pieces.size(); ++pi) {
        if (pi >= lead) issue(pi + 1);
        const size_t end = pi + 1 < pieces.size() ? piece_start[pi + 1] : st.forward.size();
        st.first_forward.insert(st.first_forward.end(), st.forward.begin() + static_cast<std::ptrdiff_t>(piece_start[pi]),
                                st.forward.begin() + static_cast<std::ptrdiff_t>(end));
      }
    }
    if (ctx.q.active) {  // the updated weights cast once per step (TE caches them over micro-batches)
      Op cast = ops::quantize("optimizer.weight_quant", weights, ctx.q.passes, ctx.q.copies, ctx.q.to);
      cast.phase = Phase::Optimizer;
      cast.part = Part::Casts;
      st.optimizer.push_back(gb.add(cast));
      if (ctx.q.amax_history && w.dp_cp() > 1) {  // one fused all-reduce of every input / weight / gradient amax
        Op amax = ops::collective(OpKind::AllReduce, "optimizer.amax_reduce", Group::DP, static_cast<int>(w.dp_cp()),
                                  Bytes(4.0 * 3 * static_cast<double>(tensors)));
        amax.phase = Phase::Optimizer;
        st.optimizer.push_back(gb.add(amax));
      }
    }
  }
  // Sanity: every edge runs from an older op to a newer one, so the graph is a DAG and the
  // vertex order is a topological order (cheaper than a topological sort per plan).
  for (auto& st : plan.stages)
    for (auto [e, end] = boost::edges(st.graph); e != end; ++e)
      if (boost::source(*e, st.graph) >= boost::target(*e, st.graph))
        throw std::logic_error("build_step_plan: an edge runs backwards in the op graph");
  const double replicas = static_cast<double>(w.dp * w.cp * w.tp * plan.micro_batches);
  plan.model_flops = Flops(fwd_bwd_flops * replicas);
  plan.hardware_flops = Flops((fwd_bwd_flops + recompute_flops) * replicas);
  return plan;
}

}  // namespace trnsim
