// memory_model.cpp — see memory_model.hpp. Activation terms per layer (s: sequence,
// b: micro-batch, h: hidden, a: heads, g: KV heads, f: FFN, t: TP; BF16 = 2 bytes):
//   norm inputs 4sbh; attention input 2sbh; Q,K 4sbh(1+g/a)/2·... (see code); softmax
//   output 2as²b; dropout mask as²b + output 2as²b (only with dropout); V 2sbh·g/a;
//   out-proj input 2sbh; MLP input 2sbh; first GEMM output 2sbf (SwiGLU: gate+up 4sbf);
//   activation output 2sbf; dropout masks sbh each (only with dropout).
// For GPT shapes (f = 4h, g = a, dropout) this is exactly Korthikanti's 34sbh + 5as²b;
// with SP everything divides by t; without SP, the norm inputs, the two GEMM inputs and
// the dropout masks stay whole (Korthikanti's 10 + 24/t).
#include "memory_model.hpp"

#include "block_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace trnsim {
namespace {
double activation_scale(const Workload& w) { return w.precision == Precision::FP32 ? 2.0 : 1.0; }  // FP32: twice BF16
// Low-precision linears save their quantized input for the weight gradient instead of the BF16
// one (TE Linear / LayerNormLinear keep the FP8 copy): those saved inputs scale by the format's
// bytes over 2.
double saved_input_scale(const Workload& w) {
  const DType lin = linear_dtype(w.precision);
  return is_low_precision(lin) ? dtype_bytes(lin) / 2.0 : 1.0;
}
// A dense MLP's saved middle tensors for sb tokens: the first GEMM's output (gate and up with
// SwiGLU) and the activation's output (the down projection's, quantized, input).
double mlp_mid_bytes(const ModelSpec& m, double sb, double f, double lq) {
  return (m.activation == Activation::SwiGLU ? 4 : 2) * sb * f + 2 * sb * f * lq;
}
// A MoE layer's saved tensors inside its expert block, before TP / SP division: per routed token
// copy its hidden input (BF16; with expert TP the ETP group's gathered copies, etp of them per own
// copy), and per routed token the expert's up output and activation (on this rank's 1/etp slice
// of the FFN, so the same bytes per own token whatever etp), plus the shared experts' MLP.
double moe_inside_bytes(const ModelSpec& m, const Workload& w, double sb, double lq) {
  const double f = static_cast<double>(m.moe.expert_ffn), k = static_cast<double>(m.moe.top_k);
  const double mid = (gated(m.activation) ? 4 : 2) * f + 2 * f * lq;
  return sb * k * (2 * static_cast<double>(m.hidden) * static_cast<double>(w.etp) + mid) +
         static_cast<double>(m.moe.shared_experts) * sb * mid;
}
}  // namespace

Bytes layer_activation_bytes(const ModelSpec& m, const Workload& w) {
  // Context parallelism keeps 1/cp of each sequence's activations on a rank.
  const double s = static_cast<double>(w.seq_len) / static_cast<double>(w.cp), b = static_cast<double>(w.micro_batch);
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads);
  const double g = static_cast<double>(m.kv_heads), f = static_cast<double>(m.ffn), t = static_cast<double>(w.tp);
  const double sbh = s * b * h;
  const bool drop = m.dropout > 0;
  const double el = activation_scale(w);

  // Tensors outside the TP regions (divided by t only with SP).
  double outside = 4 * sbh /*norm inputs*/ + 2 * sbh /*attn input*/ + 2 * sbh /*mlp input*/ + (drop ? 2 * sbh : 0);
  // Tensors inside the TP regions (always divided by t). The attention and MLP inputs, the
  // out-projection input and the activation output are saved linear inputs (saved_input_scale).
  const double lq = saved_input_scale(w);
  outside -= (1 - lq) * (2 * sbh + 2 * sbh);
  double qk = 2 * sbh * (1 + g / a);
  double v = 2 * sbh * (g / a);
  double proj_in = 2 * sbh * lq;
  double mlp_mid = mlp_mid_bytes(m, s * b, f, lq);
  double core = 2 * a * s * s * b + (drop ? 3 * a * s * s * b : 0);  // softmax out (+ mask, dropout out)
  if (w.attention == Attention::Flash) core = 4 * a * s * b;  // flash: FP32 log-sum-exp per row, no s x s term
  double latents = 0;  // MLA's query / key-value latents: duplicated on every TP rank
  if (m.mla.active()) {
    // Per head: Q and K qk_nope + qk_rope wide, V v_head_dim wide (no sharing between heads);
    // the out-projection input is heads x v_head_dim; the latents and their normalised copies
    // are kept for the up projections' weight gradients.
    const double qkd = static_cast<double>(m.mla.qk_head_dim()), dv = static_cast<double>(m.mla.v_head_dim);
    qk = 2 * s * b * a * qkd * 2;
    v = 2 * s * b * a * dv;
    proj_in = 2 * s * b * a * dv * lq;
    latents = 2 * s * b * static_cast<double>(2 * m.mla.q_lora_rank + 2 * m.mla.kv_lora_rank + m.mla.qk_rope_head_dim);
  }
  double inside = qk + v + proj_in + mlp_mid;

  if (w.checkpointing == Checkpointing::OpSelective) {
    // Kept: the block input (sharded with SP), the outputs of the block's odd-numbered linear
    // GEMMs in order (q, k, v or fused qkv; out-proj; gate, up or fused gate-up; down), and the
    // attention kernel's output with its FP32 log-sum-exp. Everything else is recomputed. Linear
    // GEMMs in a format the policy does not save (Workload::op_selective_saves) keep nothing.
    // Under torch.compile (fused.elementwise: per-op SAC is torchtitan's, whose element-wise
    // chains fuse only when compiled) the partitioner saves a tensor only if the backward reads
    // it, so the out- and down-projections' outputs, read only by the residual add, are not kept
    // (eager SAC caches every listed op's output as it runs). Evidence: docs/stacks.md.
    const bool compiled = w.fused_elementwise;
    const double d = static_cast<double>(m.head_dim()), sb = s * b;
    struct Out {
      double elements;  // output elements of the linear GEMM (whole, before TP)
      bool residual_only;
    };
    std::vector<Out> outs;
    if (w.fused_qkv) outs.push_back({sb * (a + 2 * g) * d, false});
    else outs.insert(outs.end(), {{sb * a * d, false}, {sb * g * d, false}, {sb * g * d, false}});
    outs.push_back({sbh, true});
    if (m.activation == Activation::SwiGLU) {
      if (w.fused_gate_up) outs.push_back({2 * sb * f, false});
      else outs.insert(outs.end(), {{sb * f, false}, {sb * f, false}});
    } else {
      outs.push_back({sb * f, false});
    }
    outs.push_back({sbh, true});
    double kept = 0;
    if (w.op_selective_saves_gemm(linear_dtype(w.precision)))
      for (size_t i = 0; i < outs.size(); i += 2)
        if (!(compiled && outs[i].residual_only)) kept += 2 * outs[i].elements;
    kept += 2 * sb * a * d + 4 * a * sb;  // attention output (BF16) and log-sum-exp (FP32)
    const double input = 2 * sbh;
    return Bytes(el * ((w.sequence_parallel ? input / t : input) + kept / t));
  }
  if (w.checkpointing == Checkpointing::Full) {
    // Only the block input survives; Megatron keeps it sharded with SP.
    return Bytes(el * 2 * sbh / (w.sequence_parallel ? t : 1.0));
  }
  if (w.checkpointing == Checkpointing::Selective) core = 0;  // attention core recomputed
  // The attention and MLP inputs: sharded with Megatron's SP, whole under DTensor's, which saves
  // what it all-gathered (Workload::sp_saves_gathered_inputs).
  const double gathered = w.sequence_parallel && w.sp_saves_gathered_inputs ? lq * (2 * sbh + 2 * sbh) : 0.0;
  double total = (w.sequence_parallel ? (outside - gathered) / t + gathered : outside) + inside / t + core / t + latents;
  return Bytes(el * total);
}

Bytes layer_activation_bytes(const ModelSpec& m, const Workload& w, int64_t layer) {
  if (w.bf16_layer(layer, m.layers)) {
    Workload bf16 = w;  // a block kept in BF16 saves its linear layers' inputs in BF16
    bf16.precision = Precision::MixedBF16;
    bf16.bf16_first_layers = bf16.bf16_last_layers = 0;
    return layer_activation_bytes(m, bf16, layer);
  }
  if (!m.hybrid()) {
    const Bytes dense = layer_activation_bytes(m, w);
    // A MoE layer of a uniform model keeps the attention block's tensors and the expert block's
    // in place of the dense MLP's (full and per-op recompute keep what the dense formula says).
    if (!m.is_moe_layer(layer) || w.checkpointing == Checkpointing::Full || w.checkpointing == Checkpointing::OpSelective)
      return dense;
    const double sb = static_cast<double>(w.seq_len / w.cp * w.micro_batch), lq = saved_input_scale(w);
    const double moe_over_mlp = moe_inside_bytes(m, w, sb, lq) - mlp_mid_bytes(m, sb, static_cast<double>(m.ffn), lq);
    return dense + Bytes(activation_scale(w) * moe_over_mlp / static_cast<double>(w.tp));
  }
  const double s = static_cast<double>(w.seq_len) / static_cast<double>(w.cp), b = static_cast<double>(w.micro_batch);
  const double h = static_cast<double>(m.hidden), t = static_cast<double>(w.tp), sbh = s * b * h;
  const double el = activation_scale(w);
  const double outside_t = w.sequence_parallel ? t : 1.0;
  if (w.checkpointing == Checkpointing::Full) return Bytes(el * 2 * sbh / outside_t);  // the layer input
  const double lq = saved_input_scale(w);
  // Every kind keeps its norm input and the (quantized) input of its first linear layer, whole
  // under DTensor's SP (Workload::sp_saves_gathered_inputs).
  double outside = 2 * sbh + 2 * sbh * lq, inside = 0;
  const double gathered = w.sequence_parallel && w.sp_saves_gathered_inputs ? 2 * sbh * lq : 0.0;
  switch (m.kind(layer)) {
    case LayerKind::Mamba: {
      // in_proj output (z, x, B, C, dt), conv output, the scan's output y, FP32 chunk states, the
      // gated norm's output (out_proj's input).
      const MambaSpec& ms = m.mamba;
      const double di = static_cast<double>(ms.inner()), chunks = b * std::ceil(s / static_cast<double>(ms.chunk));
      inside = 2 * s * b * static_cast<double>(ms.in_proj_width()) + 2 * s * b * static_cast<double>(ms.conv_channels()) +
               2 * s * b * di + 4 * chunks * static_cast<double>(ms.heads * ms.head_dim * ms.state) + 2 * s * b * di * lq;
      break;
    }
    case LayerKind::Attention: {
      // Q, K (a + g heads), V (g heads), the out-projection input, and the kernel's saved state:
      // the FP32 log-sum-exp per row (flash) or the s x s probabilities (unfused); none of it
      // under selective recompute of the core.
      const double a = static_cast<double>(m.heads), g = static_cast<double>(m.kv_heads);
      const double d = static_cast<double>(m.head_dim());
      double core = w.attention == Attention::Flash ? 4 * a * s * b : 2 * a * s * s * b;
      if (w.checkpointing == Checkpointing::Selective) core = 0;
      inside = 2 * s * b * d * (a + g) + 2 * s * b * d * g + 2 * s * b * a * d * lq + core;
      break;
    }
    case LayerKind::Moe:
      inside = moe_inside_bytes(m, w, s * b, lq);
      break;
    default:
      inside = s * b * static_cast<double>(m.ffn) * ((gated(m.activation) ? 4 : 2) + 2 * lq);
  }
  return Bytes(el * ((outside - gathered) / outside_t + gathered + inside / t));
}

// Chunk-micro-batches whose activations a pipeline rank holds at its peak. GPipe: every
// micro-batch. 1F1B: p - r (Narayanan et al. 2021). Interleaved 1F1B (Megatron): the warm-up
// forwards (p - r - 1)*2 + (v - 1)*p plus the one in flight; for rank 0 that is
// p*v*(1 + (p-1)/(p*v)) chunks, Korthikanti et al.'s L(1 + (p-1)/(pm)) layers. With expert
// all-to-all overlap (ep_overlap) a rank without warm-up forwards (no pipeline, or 1F1B's last
// rank) runs forward i + 1 beside backward i: two micro-batches in flight, not one.
int64_t in_flight_chunks(const Workload& w, int64_t rank, int64_t micro_batches) {
  const int64_t p = w.pp, v = w.virtual_stages;
  if (w.schedule == Schedule::GPipe) return micro_batches;
  if (v == 1) return std::min<int64_t>(std::max<int64_t>(p - rank, w.ep_overlap ? 2 : 1), micro_batches);
  return std::min<int64_t>((p - rank - 1) * 2 + (v - 1) * p + 1, micro_batches * v);
}

std::vector<RankMemoryInputs> rank_memory_inputs(const StepPlan& plan) {
  std::vector<RankMemoryInputs> out(static_cast<size_t>(plan.ranks));
  for (int64_t rank = 0; rank < plan.ranks; ++rank) {
    RankMemoryInputs& in = out[static_cast<size_t>(rank)];
    for (const auto& st : plan.stages) {
      if (st.rank != rank) continue;
      in.parameters += static_cast<double>(st.parameters);
      in.expert_parameters += static_cast<double>(st.expert_parameters);
      in.trainable_parameters += static_cast<double>(st.trainable_parameters);
      in.layers += st.num_layers;
      if (st.num_layers > in.chunk_layers) in.chunk_first_layer = st.first_layer;
      in.chunk_layers = std::max(in.chunk_layers, st.num_layers);  // the largest chunk (uneven splits)
      in.first = in.first || st.first;
      in.last = in.last || st.last;
      // Largest temporary: the biggest output of a forward / backward / recompute op (a transient
      // buffer such as the score gradient or the logits). Optimizer ops are excluded: AdamW updates
      // parameters and states in place, and those are already counted (counting its output again
      // double-counted ~14 B/parameter).
      for (auto v : boost::make_iterator_range(boost::vertices(st.graph))) {
        const Op& op = st.graph[v];
        if (op.phase == Phase::Forward && op.kind == OpKind::Gemm && is_low_precision(op.dtype))
          in.linear_parameters += static_cast<double>(op.batch * op.k * op.n);  // batch: a grouped GEMM's local experts
        if (op.phase == Phase::Optimizer || op.is_collective() || op.onchip_out) continue;
        // The loss's outputs are kept apart: how big they are depends on how the loss runs
        // (Workload::loss_kernel).
        Bytes& largest = op.loss ? in.largest_loss_output : in.largest_output;
        largest = std::max(largest, op.bytes_written);
      }
    }
  }
  return out;
}

std::vector<MemoryBreakdown> memory_per_stage(const ModelSpec& m, const Workload& w, const StepPlan& plan) {
  return memory_per_stage(m, w, rank_memory_inputs(plan), plan.micro_batches);
}

std::vector<MemoryBreakdown> memory_per_stage(const ModelSpec& m, const Workload& w,
                                              const std::vector<RankMemoryInputs>& ranks, int64_t mbs) {
  std::vector<MemoryBreakdown> out;
  const int pbytes = w.precision == Precision::FP32 ? 4 : 2;
  const DType lin = linear_dtype(w.precision);
  const int gbytes = w.grad_bytes();
  for (int64_t rank = 0; rank < static_cast<int64_t>(ranks.size()); ++rank) {
    const RankMemoryInputs& in = ranks[static_cast<size_t>(rank)];
    MemoryBreakdown b;
    b.stage = static_cast<int>(rank);
    const double P = in.parameters;
    const int64_t layers = in.layers, chunk_layers = in.chunk_layers;
    const bool last = in.last;
    // ZeRO shards dense parameters over DP and routed experts over the expert-data-parallel ranks.
    const double Pe = in.expert_parameters, Pd = P - Pe;
    const double dshard = w.zero >= 1 ? static_cast<double>(w.dp_cp()) : 1.0;
    const double eshard = w.zero >= 1 ? static_cast<double>(w.edp()) : 1.0;
    const double sharded = Pd / dshard + Pe / eshard;  // parameters this core keeps a shard of
    // Parameters with gradients, master weights and optimizer states: all of them, or under LoRA
    // only the adapters (dense, sharded over DP like any dense parameter); their ZeRO shard.
    const double Pt = w.lora.active() ? in.trainable_parameters : P;
    const double trained = w.lora.active() ? Pt / dshard : sharded;
    b.weights = Bytes(P * pbytes);
    if (w.zero == 3 && w.dp_cp() > 1) {
      // ZeRO-3 / FSDP: a parameter shard, plus two pieces gathered whole (the one running and the
      // one prefetched; the largest of this rank's layer, embedding and head).
      double piece = static_cast<double>(m.max_layer_parameters());
      if (in.first) piece = std::max(piece, static_cast<double>(m.embedding_parameters()));
      if (last) piece = std::max(piece, static_cast<double>(m.head_parameters()));
      // With fsdp_shard "master" the shard is the FP32 master itself (counted below): only the
      // gathered pieces exist in the compute dtype.
      const double shard =
          w.fsdp_shard == Workload::FsdpShard::Master && w.fp32_master() && !w.lora.active() ? 0.0 : sharded;
      // Gathered at once: the running piece and the prefetched ones; without resharding after
      // forward, every piece of the rank stays gathered until its backward.
      const double gathered = w.fsdp_reshard_after_forward ? static_cast<double>(1 + w.fsdp_prefetch) * piece / static_cast<double>(w.tp)
                                                           : P;
      b.weights = Bytes(shard * pbytes + gathered * pbytes);
    }
    // ZeRO-2/3 keep their gradient shard plus one layer's full gradients (the reduce bucket in flight).
    // ZeRO-3 reducing once per step (FSDP2 without gradient sync until the last micro-batch, as a
    // pipeline schedule runs it) accumulates every unsharded gradient in the gradient dtype
    // (FSDP2's unsharded_accumulated_grad in reduce_dtype); the shard exists only from the last
    // micro-batch's backward on, as each unit's unsharded gradient is reduced and freed (the step's
    // optimizer zeroed it to None), so the peak holds the unsharded gradients and one unit's shard.
    const double per_unit = Pt / static_cast<double>(std::max<int64_t>(1, layers));
    b.gradients = w.zero < 2                    ? Bytes(Pt * gbytes)
                  : w.reduce_every_micro_batch ? Bytes(trained * gbytes + per_unit * gbytes)
                                               : Bytes(Pt * gbytes + per_unit / static_cast<double>(w.dp_cp()) * gbytes);
    b.optimizer_states = Bytes(trained * w.optimizer_state_bytes());  // first and second moments
    // fp8_param_gather: the linear weights exist only in FP8 / MXFP8, no BF16 copy beside them
    // (frozen LoRA base weights are not the distributed optimizer's and stay BF16).
    const bool lp_only_linears =
        is_low_precision(lin) && w.fp8_param_gather && fp8_param_gather_applies(w.precision, w.zero) && !w.lora.active();
    if (w.fp32_master()) {
      // Remainders need the BF16 parameter as their high half: linear weights kept only in low
      // precision keep a whole FP32 master.
      const double linear_share = P > 0 ? std::min(1.0, in.linear_parameters / P) : 0.0;
      const bool whole_linear_masters = w.master_remainders && lp_only_linears;
      b.master_weights = Bytes(trained * (w.master_bytes() + (whole_linear_masters ? 2.0 * linear_share : 0.0)));
    }
    // Low-precision copies of the linear weights, row-wise and transposed / column-wise (TE keeps
    // both between steps; the row-wise one alone for per-tensor FP8 where the FP8 GEMM takes any
    // layout); under ZeRO-3 only the gathered pieces (two layers) hold them.
    if (is_low_precision(lin)) {
      double lp = in.linear_parameters;
      if (w.zero == 3 && w.dp_cp() > 1 && w.fsdp_reshard_after_forward)
        lp *= std::min(1.0, static_cast<double>(1 + w.fsdp_prefetch) / static_cast<double>(std::max<int64_t>(1, layers)));
      b.low_precision_weights = Bytes(lp * dtype_bytes(lin) * quant_rule(w).copies);
      if (lp_only_linears) b.weights -= Bytes(in.linear_parameters * pbytes);  // those copies are the linear weights
    }
    b.in_flight = in_flight_chunks(w, rank, mbs);
    // Under full or per-op recompute the layer being recomputed holds its activations again (per-op:
    // the ones it did not keep): the largest such extra over the chunk's checkpointed layers.
    Bytes again;
    const bool again_policy = w.checkpointing == Checkpointing::Full || w.checkpointing == Checkpointing::OpSelective;
    if (m.hybrid() || m.moe.active() || w.checkpoint_every > 1 || w.checkpoint_layers > 0 || w.has_bf16_layers()) {  // layers differ: the chunk's sum
      Workload none = w;
      none.checkpointing = Checkpointing::None;
      // Layers of one kind and policy keep the same bytes: computed once per (kind, policy) (a
      // search evaluates this for millions of layouts of 61-layer models).
      struct Kept {
        Bytes kept, extra;
        bool known = false;
      };
      std::array<std::array<std::array<Kept, 2>, 2>, 5> memo{};  // [kind][BF16 block][checkpointed]
      Bytes chunk;
      for (int64_t l = in.chunk_first_layer; l < in.chunk_first_layer + chunk_layers; ++l) {
        const bool checkpointed = w.checkpointing_of(l, l - in.chunk_first_layer) != Checkpointing::None;
        const auto kind = static_cast<size_t>(m.hybrid() ? m.kind(l) : m.is_moe_layer(l) ? LayerKind::Moe : LayerKind::Standard);
        Kept& k = memo[kind][w.bf16_layer(l, m.layers) ? 1 : 0][checkpointed];
        if (!k.known) {
          k.kept = layer_activation_bytes(m, checkpointed ? w : none, l);
          if (checkpointed && again_policy)
            k.extra = layer_activation_bytes(m, none, l) - (w.checkpointing == Checkpointing::Full ? Bytes(0) : k.kept);
          k.known = true;
        }
        chunk += k.kept;
        again = std::max(again, k.extra);
      }
      b.activation_per_layer = chunk / static_cast<double>(std::max<int64_t>(1, chunk_layers));
      b.activations = chunk * static_cast<double>(b.in_flight);
    } else {
      b.activation_per_layer = layer_activation_bytes(m, w);
      b.activations = b.activation_per_layer * static_cast<double>(chunk_layers * b.in_flight);
      if (again_policy) {
        Workload none = w;
        none.checkpointing = Checkpointing::None;
        again = layer_activation_bytes(m, none) - (w.checkpointing == Checkpointing::Full ? Bytes(0) : b.activation_per_layer);
      }
    }
    // Logits kept for the loss's backward: one micro-batch's under 1F1B (its backward follows at
    // once), all under GPipe. The FP32 log-softmax, or under a compiled loss the BF16 logits alone.
    const double logit_elements = static_cast<double>(w.micro_batch * (w.seq_len / w.cp)) *
                                  static_cast<double>(w.loss_parallel ? (m.vocab + w.tp - 1) / w.tp : m.vocab);
    const bool compiled_loss = w.loss() == Workload::LossKernel::Compiled;
    const Bytes fp32_logits(4.0 * logit_elements), kept_logits(compiled_loss ? 2.0 * logit_elements : 4.0 * logit_elements);
    if (last) b.activations += kept_logits * static_cast<double>(w.schedule == Schedule::GPipe ? b.in_flight : 1);
    // DTensor's SP saves the LM head's all-gathered input (BF16, FP32 in FP32 runs), the whole
    // sequence, outside any checkpointed block; Megatron's sequence shard of it (1/tp) is small and
    // not counted.
    if (last && w.sequence_parallel && w.sp_saves_gathered_inputs && w.tp > 1)
      b.activations += Bytes(activation_scale(w) * 2.0 * static_cast<double>(w.micro_batch * (w.seq_len / w.cp) * m.hidden)) *
                       static_cast<double>(w.schedule == Schedule::GPipe ? b.in_flight : 1);
    // Multi-token prediction on the last stage: each module's block (as the last layer), its norm
    // and projection inputs (the two normalised halves and their concatenation), and its own FP32 logits.
    if (last && m.mtp_layers > 0) {
      const double sb = static_cast<double>(w.micro_batch * (w.seq_len / w.cp)), hh = static_cast<double>(m.hidden);
      const double el = activation_scale(w), sp = w.sequence_parallel ? static_cast<double>(w.tp) : 1.0;
      const Bytes module = layer_activation_bytes(m, w, m.layers - 1) + Bytes(el * (4 * sb * hh + 4 * sb * hh) / sp) +
                           Bytes(4.0 * sb * static_cast<double>((m.vocab + w.tp - 1) / w.tp));
      b.activations += module * static_cast<double>(m.mtp_layers * (w.schedule == Schedule::GPipe ? b.in_flight : 1));
    }
    // Largest temporary (see rank_memory_inputs), and the recomputed layer's activations (above).
    // A compiled loss writes no FP32 tensor of the logits' size: its largest output is the BF16
    // gradient of the logits.
    const Bytes loss_output = compiled_loss && last ? Bytes(2.0 * logit_elements) : in.largest_loss_output;
    b.temporary = std::max(in.largest_output, loss_output) + again;
    // Eager PyTorch's loss (torchtitan: F.cross_entropy(pred.float(), labels)) materialises the FP32
    // upcast of the logits beside log_softmax's FP32 output: one more FP32 copy at the loss. A fused
    // or compiled loss does not. Run vocabulary-parallel over TP (DTensor's loss_parallel), eager
    // log-softmax is not ATen's one kernel but its decomposition into separate ops, and its backward
    // (nll and log-softmax fused into one Python function) holds four FP32 copies of the local
    // logits at once where ATen's kernels hold three: the saved log-softmax, the scattered target
    // gradient, exp(log-softmax) times the incoming gradient, and their sum (docs/stacks.md).
    if (last && w.loss() == Workload::LossKernel::Eager)
      b.temporary += fp32_logits * (w.loss_parallel && w.tp > 1 ? 2.0 : 1.0);
    // The allocator's reserve over the live peak, where the stack (or the workload) declares one.
    b.allocator_reserve = b.total() * w.allocator_fragmentation;
    out.push_back(b);
  }
  return out;
}

const MemoryBreakdown& peak_stage(const std::vector<MemoryBreakdown>& v) {
  return *std::max_element(v.begin(), v.end(),
                           [](const MemoryBreakdown& a, const MemoryBreakdown& b) { return a.total() < b.total(); });
}

std::string memory_advice(const MemoryBreakdown& b, const Workload& w, Bytes capacity) {
  std::string fix;
  Bytes states = b.weights + b.gradients + b.optimizer_states + b.master_weights + b.low_precision_weights;
  if (states > capacity * 0.6) fix = w.zero == 0 && w.dp > 1 ? "enable ZeRO-1 or raise tp/pp" : "raise tp or pp";
  else if (w.checkpointing != Checkpointing::Full) fix = "use more activation checkpointing, a smaller micro_batch, or raise tp";
  else fix = "lower micro_batch or raise tp/pp";
  return fmt::format(
      "needs {:.2f} GiB per core on stage {} but {:.2f} GiB are usable (weights {:.2f}, grads {:.2f}, optimizer {:.2f}, "
      "master {:.2f}, {}activations {:.2f} for {} micro-batch(es), temporary {:.2f}{} GiB); {}",
      in_gib(b.total()), b.stage, in_gib(capacity), in_gib(b.weights), in_gib(b.gradients), in_gib(b.optimizer_states),
      in_gib(b.master_weights),
      b.low_precision_weights.base() > 0 ? fmt::format("low-precision weight copies {:.2f}, ", in_gib(b.low_precision_weights))
                                         : std::string(),
      in_gib(b.activations), b.in_flight, in_gib(b.temporary),
      b.allocator_reserve.base() > 0 ? fmt::format(", allocator reserve {:.2f}", in_gib(b.allocator_reserve)) : std::string(), fix);
}

}  // namespace trnsim
