// block_builder.cpp — per-architecture forward op lists (see block_builder.hpp).
// Shapes follow Megatron-LM: QKV / up / gate column-parallel (N split by tp), out / down
// row-parallel (K split by tp), vocab-parallel embedding and logits.
#include "block_builder.hpp"

#include <fmt/format.h>

#include <cmath>

#include "op_factory.hpp"

namespace trnsim {

int64_t flash_key_columns(int64_t s, bool causal) {
  constexpr int64_t kKeyTile = 512;
  return causal ? std::min(s, (s + kKeyTile + 1) / 2) : s;
}

int64_t flash_window_key_columns(int64_t s, int64_t window) {
  constexpr int64_t kKeyTile = 512;  // the query tile flash_key_columns's causal average implies
  return std::min(flash_key_columns(s, true), window + kKeyTile);
}

bool megatron_fused_softmax_available(int64_t b, int64_t np, int64_t sq, int64_t sk, bool causal, bool half_input) {
  const int64_t attn_batches = b * np;
  if (!half_input || sk <= 16 || sk > 4096 || sq % 4 != 0 || sk % 4 != 0 || attn_batches % 4 != 0) return false;
  // get_batch_per_block: warps of min(next power of two of sk, 32) lanes in 128-thread blocks, two
  // rows per warp up to 128 keys, one beyond.
  int64_t pow2 = 1;
  while (pow2 < sk) pow2 *= 2;
  const int64_t warp = std::min<int64_t>(pow2, 32);
  const int64_t batch_per_block = (128 / warp) * (pow2 <= 128 ? 2 : 1);
  return causal ? attn_batches % batch_per_block == 0 : sq % batch_per_block == 0;
}

QuantRule quant_rule(const Workload& w) {
  QuantRule q;
  q.to = linear_dtype(w.precision);
  q.active = is_low_precision(q.to);
  if (!q.active) return q;
  if (w.precision == Precision::FP8) {
    q.passes = w.fp8_recipe == Fp8Recipe::Delayed ? 1 : 2;
    q.tp_amax = w.fp8_recipe == Fp8Recipe::Current;
    q.amax_history = w.fp8_recipe == Fp8Recipe::Delayed;
    if (w.fp8_any_layout) q.copies = 1;  // no transposed copy where the FP8 GEMM takes any layout
    // Row-wise scaling (torchao): a scale per row of each operand, so the transposed copy for the
    // weight gradient is cast from BF16 along the other axis (a pass more), and the GEMMs run on
    // torch._scaled_mm's row-wise kernel, which issues at the BF16 rate (workload.hpp, fp8_recipe).
    // torchtitan gathers row-wise inputs in BF16 under TP ("float8 all-gather with TP is only
    // supported for tensorwise float8 scaling recipes", parallelize_llama; recalled), then casts
    // the gathered tensor.
    if (w.fp8_recipe == Fp8Recipe::Rowwise) q.passes = 3, q.bf16_rate = true, q.low_gather = false;
  } else if (w.precision == Precision::NVFP4) {
    q.passes = 2;     // a per-tensor FP32 scale over the per-16 E4M3 block scales needs the global amax
    q.tp_amax = true;
  }  // MXFP8: block-32 scales are local to the block: one pass
  return q;
}

namespace {

struct Emitter {
  const ShardContext& c;
  std::string prefix;
  std::vector<FwdOp> out;
  int layer = -1;
  Part part = Part::Glue;  // the part of the model the ops emitted now belong to (Op::part)

  // Emits a section's ops under `p`, then restores the enclosing part.
  struct Section {
    Emitter& e;
    Part saved;
    Section(Emitter& em, Part p) : e(em), saved(em.part) { e.part = p; }
    ~Section() { e.part = saved; }
    Section(const Section&) = delete;
    Section& operator=(const Section&) = delete;
  };

  // A compute op of this emitter's block: its label under the block's prefix, the section's part.
  Op own(Op o) const {
    o.label = prefix + o.label;
    o.part = part;
    return o;
  }
  void compute(Op o, bool core = false) { out.push_back({own(std::move(o)), Role::Compute, core}); }
  // `low`: the region's input was quantized before entering it; with SP its all-gather moves
  // the low-precision copy (TE gathers FP8 inputs), its backward reduce-scatter BF16 gradients.
  void tp_boundary(Role role, const std::string& name, bool low = false) {
    const int t = static_cast<int>(c.w.tp);
    if (t == 1) return;
    Bytes full(static_cast<double>(c.tokens() * c.m.hidden) * dtype_bytes(c.dt));
    OpKind kind = role == Role::TpExit ? OpKind::ReduceScatter : OpKind::AllGather;
    if (!c.w.sequence_parallel && role != Role::TpGather) kind = OpKind::AllReduce;
    const bool low_gather = low && kind == OpKind::AllGather;
    Op o = ops::collective(kind, prefix + name, Group::TP, t,
                           low_gather ? Bytes(static_cast<double>(c.tokens() * c.m.hidden) * dtype_bytes(c.q.to)) : full);
    // TP communication overlap (TE userbuffers, torch async TP) pipelines the SP all-gather with
    // the column-parallel GEMM after it and the reduce-scatter with the row-parallel GEMM before it
    // (Megatron-Core tp_comm_overlap: "pipelined AG and RS overlap", frameworks.md §3 b).
    if (c.w.tp_overlap_forward && c.w.sequence_parallel) {
      if (role == Role::TpEnter) o.overlap_ops = 1;
      if (role == Role::TpExit) o.overlap_previous = true;
    }
    FwdOp f{std::move(o), role, false};
    if (low_gather) f.grad_comm_bytes = full;
    out.push_back(std::move(f));
  }
  // Quantize a linear layer's BF16 input of `elems` values (nothing outside the low-precision modes).
  void quantize(const std::string& name, int64_t elems, bool gathered) {
    if (!c.q.active) return;
    if (gathered && c.q.tp_amax && c.w.tp > 1 && c.w.sequence_parallel)
      out.push_back({ops::collective(OpKind::AllReduce, prefix + name + ".amax", Group::TP, static_cast<int>(c.w.tp),
                                     Bytes(4.0)),
                     Role::Compute, false});
    compute(ops::quantize(name + ".quant", elems, c.q.passes, c.q.copies, c.q.to));
    out.back().op.part = Part::Casts;
  }
  // The entry of a TP region whose first op is a linear: quantize the local sequence shard and
  // gather the low-precision copy (TE, torchao tensorwise), or, where the recipe gathers in high
  // precision (QuantRule::low_gather false), gather BF16 and quantize the gathered tensor.
  void quantized_enter(const std::string& quant, const std::string& enter) {
    if (c.q.active && !c.q.low_gather && c.w.tp > 1 && c.w.sequence_parallel) {
      tp_boundary(Role::TpEnter, enter);
      quantize(quant, c.tokens() * h(), false);
      return;
    }
    quantize(quant, c.local_tokens() * h(), true);
    tp_boundary(Role::TpEnter, enter, c.q.active);
  }
  // A block linear layer: on the low-precision format when the precision has one (`batch`
  // independent weights: the grouped GEMM of a rank's experts).
  void linear(const std::string& name, int64_t m, int64_t k, int64_t n, int64_t batch = 1) {
    compute(ops::gemm(name, batch, m, k, n, c.q.active ? c.q.to : c.dt));
    if (c.q.active) out.back().grad_quant_passes = c.q.passes, out.back().op.bf16_rate = c.q.bf16_rate;
    if (batch > 1 && c.w.moe_grouped_gemm == Workload::MoeGroupedGemm::PerExpert) out.back().op.launches = static_cast<int>(batch);
    if (!c.w.lora.active()) return;
    out.back().frozen = true;
    if (lora_targets(name)) lora_adapter(name, m, k, n);
  }
  // Whether a block linear layer is one of the workload's LoRA targets (Megatron-Core names:
  // linear_qkv = q, k, v or fused qkv; linear_proj = the attention output projection;
  // linear_fc1 = gate, up or fused gate-up; linear_fc2 = down).
  bool lora_targets(const std::string& name) const {
    const Workload::Lora& l = c.w.lora;
    if (name == "qkv" || name == "q" || name == "k" || name == "v") return l.qkv;
    if (name == "out_proj") return l.proj;
    if (name == "gate_up" || name == "gate" || name == "up") return l.fc1;
    if (name == "down") return l.fc2;
    return false;
  }
  // The adapter beside a frozen m x k x n linear (k, n: the rank's shard): x.A (k x r) and .B
  // (r x n) in the compute dtype, then the sum into the base output. The rank-r tensors' TP
  // collectives (m x r elements, under 1 % of the layer's traffic) are not modelled.
  void lora_adapter(const std::string& name, int64_t m, int64_t k, int64_t n) {
    const int64_t r = c.w.lora.rank;
    compute(ops::gemm(name + ".lora_a", 1, m, k, r, c.dt));
    out.back().lora_adapter = true;
    compute(ops::gemm(name + ".lora_b", 1, m, r, n, c.dt));
    out.back().lora_adapter = true;
    elementwise(name + ".lora_add", m * n, 2, 1, false, 2);  // out + scale x (x.A.B)
  }
  int64_t h() const { return c.m.hidden; }
  int64_t t() const { return c.w.tp; }
  // One eager PyTorch kernel of an element-wise chain: `rb` / `wb` HBM bytes read / written per
  // element (dtype sets the backward's bytes).
  struct Kernel {
    const char* name;
    DType dt;
    int inputs;
    double rb, wb;
    bool transc;
    double fpe;
  };
  void eager_kernels(const std::string& name, int64_t elems, std::initializer_list<Kernel> ks) {
    for (const Kernel& k : ks) {
      Op o = ops::vector_op(OpKind::Elementwise, name + "." + k.name, elems, 0, k.inputs, 1, k.transc, k.fpe, k.dt);
      o.bytes_read = Bytes(k.rb * static_cast<double>(elems));
      o.bytes_written = Bytes(k.wb * static_cast<double>(elems));
      compute(std::move(o));
    }
  }
  // Rotary embedding of `elems` Q and K values: x * cos + rotate(x) * sin.
  void rotary(int64_t elems) {
    if (!c.w.fused_elementwise) {  // eager (torchtitan's complex form): upcast, complex multiply, cast back
      const double b = dtype_bytes(c.dt);
      eager_kernels("rotary", elems, {{"to_fp32", c.dt, 1, b, 4, false, 0},
                                      {"complex_mul", DType::FP32, 2, 4, 4, false, 3},
                                      {"to_bf16", DType::FP32, 1, 4, b, false, 0}});
      return;
    }
    elementwise("rotary", elems, 2, 3, false, 3);
  }
  void norm(const std::string& name, int64_t tokens) {
    const bool ln = c.m.norm == NormKind::LayerNorm;
    if (!ln && !c.w.fused_elementwise) {
      // Eager RMSNorm (ATen's composite rms_norm, what nn.RMSNorm runs without torch.compile):
      // upcast to FP32, pow, mean, x * rsqrt, cast back, x weight; each its own kernel.
      const DType bf = c.dt, f32 = DType::FP32;
      const double b = dtype_bytes(bf);
      eager_kernels(name, tokens * h(), {{"to_fp32", bf, 1, b, 4, false, 0},
                                         {"pow", f32, 1, 4, 4, false, 1},
                                         {"mean", f32, 1, 4, 0, false, 1},
                                         {"mul_rsqrt", f32, 2, 4, 4, false, 1},
                                         {"to_bf16", f32, 1, 4, b, false, 0},
                                         {"mul_weight", bf, 2, b, b, false, 1}});
      return;
    }
    // RMSNorm: sum of squares, scale (rsqrt is per row); LayerNorm: mean, variance, normalise.
    compute(ops::vector_op(OpKind::Norm, name, tokens * h(), h(), 1, ln ? 3 : 2, false, ln ? 8 : 5, c.dt));
  }
  void elementwise(const std::string& name, int64_t elems, int inputs, int passes, bool transc, double fpe,
                   bool core = false) {
    compute(ops::vector_op(OpKind::Elementwise, name, elems, 0, inputs, passes, transc, fpe, c.dt), core);
  }
  void dropout(const std::string& name, int64_t elems, bool core = false) {
    if (c.m.dropout > 0) elementwise(name, elems, 1, 2, false, 2, core);  // RNG mask + scale
  }
  void gemm(const std::string& name, int64_t m, int64_t k, int64_t n) {  // a weight GEMM outside the LoRA targets
    compute(ops::gemm(name, 1, m, k, n, c.dt));
    out.back().frozen = c.w.lora.active();
  }

  // QKV projection, rotary, attention core, output projection (no collective).
  void attention() {
    const Section section(*this, Part::Attention);
    if (c.m.mla.active()) return latent_attention();
    const int64_t T = c.tokens(), d = c.m.head_dim();
    const int64_t a = c.m.heads / t();
    const int64_t g = std::max<int64_t>(1, c.m.kv_heads / t());
    if (c.w.fused_qkv) {
      linear("qkv", T, h(), (a + 2 * g) * d);
    } else {
      linear("q", T, h(), a * d);
      linear("k", T, h(), g * d);
      linear("v", T, h(), g * d);
    }
    if (c.m.rotary_fraction > 0) {
      auto rot = static_cast<int64_t>(static_cast<double>(T * (a + g) * d) * c.m.rotary_fraction);
      rotary(rot);
    }
    attention_core(a, g, d, d);
    quantize("proj_in", T * a * d, false);
    linear("out_proj", T, a * d, h());
  }
  // Multi-head latent attention (DeepSeek-V3; Megatron-Core's MLA): the down projections to the
  // query and key/value latents are small and duplicated on every TP rank, each latent is
  // normalised, the up projections are column-parallel over heads; the attention core runs with
  // qk_nope + qk_rope wide queries / keys and v_head_dim wide values, all heads distinct.
  void latent_attention() {
    const MlaSpec& ml = c.m.mla;
    const int64_t T = c.tokens(), a = c.m.heads / t(), qk = ml.qk_head_dim(), dv = ml.v_head_dim;
    auto latent_norm = [&](const std::string& name, int64_t width) {
      compute(ops::vector_op(OpKind::Norm, name, T * width, width, 1, 2, false, 5, c.dt));
    };
    if (ml.q_lora_rank > 0) {
      linear("q_down", T, h(), ml.q_lora_rank);
      latent_norm("q_latent_norm", ml.q_lora_rank);
      linear("q_up", T, ml.q_lora_rank, a * qk);
    } else {
      linear("q", T, h(), a * qk);
    }
    linear("kv_down", T, h(), ml.kv_lora_rank + ml.qk_rope_head_dim);
    latent_norm("kv_latent_norm", ml.kv_lora_rank);
    linear("kv_up", T, ml.kv_lora_rank, a * (ml.qk_nope_head_dim + dv));
    if (ml.qk_rope_head_dim > 0) rotary(T * (a + 1) * ml.qk_rope_head_dim);
    attention_core(a, a, qk, dv);
    quantize("proj_in", T * a * dv, false);
    linear("out_proj", T, a * dv, h());
  }
  // Scores, softmax and context of `a` local query heads against `g` key/value heads, with
  // query/key width dqk and value width dv.
  void attention_core(int64_t a, int64_t g, int64_t dqk, int64_t dv) {
    const int64_t b = c.w.micro_batch, s = c.w.seq_len;
    if (c.w.attention == Attention::Flash) {
      // One fused kernel: scores and probabilities never leave on-chip memory; dropout is
      // regenerated from the RNG state, not stored. With context parallelism each rank holds
      // s / cp queries (2 x cp chunks, so every rank gets the same causal work) and meets all s
      // keys as the K/V chunks go round the ring: cp - 1 transfers of its chunk, beside the
      // attention they feed (ring attention, TE's P2P context parallelism).
      const int64_t sq = s / c.w.cp;
      // A sliding-window layer's kernel skips key tiles outside the window (attention sinks, one
      // learned logit per head, add less than 1/window to the softmax and are not an op).
      // Packed documents: the variable-length kernel runs each document's own causal tiles.
      const int64_t span = std::min(s, c.w.attention_span());
      const int64_t n = c.m.sliding_window.windowed(layer) ? flash_window_key_columns(span, c.m.sliding_window.window)
                                                           : flash_key_columns(span, !c.m.encoder);
      Bytes ring;
      if (c.w.cp > 1) {
        ring = Bytes(static_cast<double>((c.w.cp - 1) * b * sq * g * (dqk + dv)) * dtype_bytes(c.dt));
        Op kv = ops::collective(OpKind::SendRecv, prefix + "cp.kv_ring", Group::CP, static_cast<int>(c.w.cp), ring);
        kv.overlap_ops = 3;
        out.push_back({std::move(kv), Role::Compute});
      }
      Op qk = ops::gemm("flash.scores", b * a, sq, dqk, n, c.dt);
      qk.onchip_out = true;
      qk.attention_kernel = c.w.attention_kernel;
      Op sm = ops::vector_op(OpKind::Softmax, "flash.softmax", b * a * sq * n, n, 1, 3, true, 5, c.dt);
      sm.onchip_in = sm.onchip_out = true;
      sm.passes_with_activation_engine = 1;  // the row max; exp(s - max) and its row sum in one activation pass
      Op pv = ops::gemm("flash.context", b * a, sq, n, dv, c.dt);
      pv.onchip_in = true;
      pv.attention_kernel = c.w.attention_kernel;
      qk.fused_attention = sm.fused_attention = pv.fused_attention = true;
      out.push_back({own(std::move(qk)), Role::Compute, true, true});
      out.push_back({own(std::move(sm)), Role::Compute, true, false});
      out.push_back({own(std::move(pv)), Role::Compute, true, false});
      out.back().ring_bwd_bytes = ring * 2.0;  // K/V again and their gradients
      return;
    }
    // Batched over (micro-batch x local heads); GQA: K/V shared, shapes per query head.
    compute(ops::gemm("scores", b * a, s, dqk, s, c.dt), true);
    const int64_t scores = b * a * s * s;
    if (c.w.softmax_kernel == Workload::SoftmaxKernel::Megatron &&
        !megatron_fused_softmax_available(b, a, s, s, !c.m.encoder, dtype_bytes(c.dt) == 2)) {
      // Megatron's fallback (forward_torch_softmax): the scores cast to FP32, scaled, masked,
      // softmax, cast back: five kernels, 2 + 4 + 4 + 4 + 4 bytes read and 4 + 4 + 4 + 4 + 2 written
      // per score. Backward, autograd's five: 2 + 8 + 4 + 4 + 4 read, 4 + 4 + 4 + 4 + 2 written.
      Op sm = ops::vector_op(OpKind::Softmax, "softmax", scores, s, 1, 5, true, 7, DType::FP32);
      sm.bytes_read = Bytes(18.0 * static_cast<double>(scores));
      sm.bytes_written = Bytes(18.0 * static_cast<double>(scores));
      sm.launches = 5;
      compute(std::move(sm), true);
      out.back().backward_launches = 5;
      out.back().backward_read = Bytes(22.0 * static_cast<double>(scores));
      out.back().backward_written = Bytes(18.0 * static_cast<double>(scores));
    } else {
      compute(ops::vector_op(OpKind::Softmax, "softmax", scores, s, 1, 3, true, 5, c.dt), true);
    }
    dropout("attn_dropout", scores, true);
    compute(ops::gemm("context", b * a, s, s, dv, c.dt), true);
  }
  // Routed experts of a MoE layer on this rank's (sequence-parallel) tokens: router scores and
  // top-k, permutation, all-to-all dispatch over the EP group, the grouped GEMMs of the rank's
  // experts (tokens per expert = local tokens x top_k / local experts x the declared imbalance,
  // so small shares pay the GEMM's tile and wave quantisation), all-to-all combine, and the
  // weighted un-permutation. Expert TP (etp > 1): each expert's FFN is split over the ETP group,
  // whose ranks all-gather the tokens they were dispatched (so each runs the group's tokens on its
  // slice of the FFN) and reduce-scatter the partial outputs before the combine (Megatron-Core's
  // all-to-all dispatcher with expert_tensor_parallel_size > 1).
  //
  // Kernel launches (Op::launches; eager execution pays the host's dispatch time for each): the
  // router's scoring, top-k and load-balancing loss, and the dispatcher's bookkeeping and
  // permutations, are many small kernels in every eager MoE layer. Counts declared from
  // Megatron-Core's TopKRouter and MoEAlltoAllTokenDispatcher (2025, recalled, not in the sources):
  // router 20 (score function, top-k, probability normalisation and scaling, scatter into the
  // routing map, the auxiliary loss's scores / counts / products / scaler), permute 6 (token counts,
  // their exchange and device-to-host split sizes, the permutation, the sort of chunks by local
  // expert), un-permute 4 (unsort, un-permute, probability weighting, sum); backward one per kernel.
  // A per-expert grouped GEMM (moe_grouped_gemm) launches once per local expert.
  static constexpr int kRouterLaunches = 20, kPermuteLaunches = 6, kUnpermuteLaunches = 4;
  void moe() {
    const Section section(*this, Part::MoeRouting);
    const MoeSpec& e = c.m.moe;
    const int64_t Tl = c.local_tokens(), ep = c.w.ep, el = e.experts / ep, etp = c.w.etp;
    const int64_t routed = Tl * e.top_k, gathered = routed * etp, ffn = e.expert_ffn / etp;
    const auto per_expert = static_cast<int64_t>(
        std::ceil(static_cast<double>(gathered) * c.w.moe_load_imbalance / static_cast<double>(el)));
    gemm("router", Tl, h(), e.experts);
    compute(ops::vector_op(OpKind::Softmax, "router.topk", Tl * e.experts, e.experts, 1, 3, true, 5, c.dt));
    out.back().op.launches = kRouterLaunches;
    elementwise("moe.permute", routed * h(), 1, 1, false, 0);
    out.back().op.launches = kPermuteLaunches;
    const Bytes buffer(static_cast<double>(routed * h()) * dtype_bytes(c.dt));
    auto all_to_all = [&](const char* name) {
      Op a = ops::collective(OpKind::AllToAll, prefix + name, Group::EP, static_cast<int>(ep), buffer);
      a.routing = {static_cast<int>(e.top_k), static_cast<int>(e.experts), static_cast<int>(e.route_groups),
                   static_cast<int>(e.route_group_topk), c.w.moe_dispatcher == Workload::MoeDispatcher::PerDomain};
      out.push_back({std::move(a), Role::AllToAll});
    };
    if (ep > 1) all_to_all("moe.dispatch");
    const Bytes group_buffer(static_cast<double>(gathered * h()) * dtype_bytes(c.dt));
    if (etp > 1)
      out.push_back({ops::collective(OpKind::AllGather, prefix + "moe.etp_gather", Group::ETP, static_cast<int>(etp),
                                     group_buffer),
                     Role::TpGather});
    part = Part::Experts;
    quantize("experts_in", el * per_expert * h(), false);
    if (gated(c.m.activation)) {
      linear("experts.gate_up", per_expert, h(), 2 * ffn, el);
      swiglu("experts.swiglu", el * per_expert * ffn);
    } else {  // squared ReLU experts (Nemotron 3): one up projection
      linear("experts.up", per_expert, h(), ffn, el);
      elementwise("experts.relu2", el * per_expert * ffn, 1, 1, false, 2);
    }
    quantize("experts_down_in", el * per_expert * ffn, false);
    linear("experts.down", per_expert, ffn, h(), el);
    if (etp > 1)
      out.push_back({ops::collective(OpKind::ReduceScatter, prefix + "moe.etp_scatter", Group::ETP, static_cast<int>(etp),
                                     group_buffer),
                     Role::Scatter});
    part = Part::MoeRouting;
    if (ep > 1) all_to_all("moe.combine");
    elementwise("moe.unpermute", routed * h(), 2, 1, false, 2);
    out.back().op.launches = kUnpermuteLaunches;
  }
  // Mamba-2 mixer with state-space duality (Dao & Gu 2024, mamba_ssm's chunked scan), heads and
  // groups split over TP like attention heads. Per chunk of Q tokens: C·B^T within the chunk
  // (per group), its decay mask, the masked scores times X (per head), the chunk's final state
  // B^T·X, the recurrence across chunks, and each token's read-out C·state; then D·x, the gated
  // RMSNorm y·silu(z) and the output projection.
  void mamba() {
    const Section section(*this, Part::Mamba);
    const MambaSpec& s = c.m.mamba;
    const int64_t T = c.tokens(), b = c.w.micro_batch, seq = c.w.seq_len / c.w.cp;
    const int64_t H = s.heads / t(), G = std::max<int64_t>(1, s.groups / t()), P = s.head_dim, N = s.state;
    const int64_t Q = std::min(s.chunk, seq), chunks = b * ((seq + Q - 1) / Q), di = H * P;
    linear("in_proj", T, h(), 2 * di + 2 * G * N + H);
    elementwise("conv1d", T * (di + 2 * G * N), 1, 1, true, 2.0 * static_cast<double>(s.conv_kernel) + 4);  // + silu
    elementwise("dt_softplus", T * H, 2, 1, true, 4);
    gemm_batched("ssd.cb", chunks * G, Q, N, Q);
    elementwise("ssd.decay", chunks * H * Q * Q, 2, 1, true, 4);   // exp(segment sums), causal mask, x scores
    gemm_batched("ssd.intra", chunks * H, Q, Q, P);
    gemm_batched("ssd.states", chunks * H, N, Q, P);
    elementwise("ssd.state_pass", chunks * H * N * P, 2, 1, true, 3);  // decayed sum over chunks
    gemm_batched("ssd.inter", chunks * H, Q, N, P);
    elementwise("ssd.combine", T * di, 3, 1, false, 3);             // intra + inter + D x
    compute(ops::vector_op(OpKind::Norm, "gated_norm", T * di, di / G, 2, 3, true, 9, c.dt));
    quantize("proj_in", T * di, false);
    linear("out_proj", T, di, h());
  }
  void gemm_batched(const std::string& name, int64_t batch, int64_t m, int64_t k, int64_t n) {
    compute(ops::gemm(name, batch, m, k, n, c.dt));
  }
  // A MoE MLP on the normalised input: the shared experts (a dense MLP, tensor-parallel as the
  // block's), the routed experts, and the residual sum of both with the block input.
  void experts_with_residual(const std::string& residual) {
    const int64_t Tl = c.local_tokens();
    if (c.m.moe.shared_experts > 0) {
      quantized_enter("shared_in", "shared_enter");
      mlp_of(c.m.moe.shared_experts * c.m.moe.expert_ffn);
      tp_boundary(Role::TpExit, "shared_exit");
    }
    moe();
    elementwise(residual, Tl * h(), c.m.moe.shared_experts > 0 ? 3 : 2, 1, false, 1);
  }
  void mlp() { mlp_of(c.m.ffn); }
  // silu(gate) * up: one kernel when fused (silu on the scalar engine, the product on the vector
  // engine); eager: F.silu, then the product, each reading and writing HBM.
  void swiglu(const std::string& name, int64_t elems) {
    if (!c.w.fused_elementwise) {
      const double b = dtype_bytes(c.dt);
      eager_kernels(name, elems, {{"silu", c.dt, 1, b, b, true, 4}, {"mul", c.dt, 2, 2 * b, b, false, 1}});
      return;
    }
    elementwise(name, elems, 2, 1, true, 5);
  }
  void mlp_of(int64_t ffn) {
    const Section section(*this, Part::Mlp);
    const int64_t T = c.tokens(), f = ffn / t();
    if (c.m.activation == Activation::SwiGLU) {
      if (c.w.fused_gate_up) {
        linear("gate_up", T, h(), 2 * f);
      } else {
        linear("gate", T, h(), f);
        linear("up", T, h(), f);
      }
      swiglu("swiglu", T * f);
    } else if (c.m.activation == Activation::GeLU) {
      linear("up", T, h(), f);
      elementwise("gelu", T * f, 1, 0, true, 8);    // scalar (activation) engine only
    } else {
      linear("up", T, h(), f);
      elementwise("relu2", T * f, 1, 1, false, 2);  // max(x, 0)^2 on the vector engine
    }
    quantize("down_in", T * f, false);
    linear("down", T, f, h());
  }
};

}  // namespace

std::vector<FwdOp> block_forward(const ShardContext& c, int layer) {
  Emitter e{c, fmt::format("L{}.", layer), {}, layer};
  const int64_t Tl = c.local_tokens(), h = c.m.hidden;
  if (c.m.hybrid()) {  // one mixer or MLP per layer, each pre-norm with its residual
    const LayerKind k = c.m.kind(layer);
    e.norm("norm1", Tl);
    if (k == LayerKind::Moe) {
      e.experts_with_residual("residual1");
    } else {
      e.quantized_enter("mixer_in", "mixer_enter");
      if (k == LayerKind::Mamba) e.mamba();
      else if (k == LayerKind::Attention) e.attention();
      else e.mlp();
      e.tp_boundary(Role::TpExit, "mixer_exit");
      e.elementwise("residual1", Tl * h, 2, 1, false, 1);
    }
  } else if (c.m.encoder) {  // BERT: post-norm, sequential
    e.quantized_enter("attn_in", "attn_enter");
    e.attention();
    e.tp_boundary(Role::TpExit, "attn_exit");
    e.dropout("hidden_dropout1", Tl * h);
    e.elementwise("residual1", Tl * h, 2, 1, false, 1);
    e.norm("norm1", Tl);
    e.quantized_enter("mlp_in", "mlp_enter");
    e.mlp();
    e.tp_boundary(Role::TpExit, "mlp_exit");
    e.dropout("hidden_dropout2", Tl * h);
    e.elementwise("residual2", Tl * h, 2, 1, false, 1);
    e.norm("norm2", Tl);
  } else if (c.m.parallel_residual) {  // GPT-NeoX: x + attn(ln1 x) + mlp(ln2 x), one reduction
    e.norm("norm1", Tl);
    e.norm("norm2", Tl);
    e.tp_boundary(Role::TpEnter, "block_enter");  // one BF16 gather of x serves both branches
    e.quantize("attn_in", c.tokens() * h, false);  // then each branch quantizes its own norm output
    e.quantize("mlp_in", c.tokens() * h, false);
    e.attention();
    e.mlp();
    e.elementwise("branch_sum", c.tokens() * h, 2, 1, false, 1);
    e.tp_boundary(Role::TpExit, "block_exit");
    e.dropout("hidden_dropout", Tl * h);
    e.elementwise("residual", Tl * h, 3, 1, false, 2);
  } else if (c.m.is_moe_layer(layer)) {  // MoE decoder: pre-norm attention, then routed (+ shared) experts
    e.norm("norm1", Tl);
    e.quantized_enter("attn_in", "attn_enter");
    e.attention();
    e.tp_boundary(Role::TpExit, "attn_exit");
    e.elementwise("residual1", Tl * h, 2, 1, false, 1);
    e.norm("norm2", Tl);
    e.experts_with_residual("residual2");
  } else {  // Llama: pre-norm, sequential
    e.norm("norm1", Tl);
    e.quantized_enter("attn_in", "attn_enter");
    e.attention();
    e.tp_boundary(Role::TpExit, "attn_exit");
    e.dropout("hidden_dropout1", Tl * h);
    e.elementwise("residual1", Tl * h, 2, 1, false, 1);
    e.norm("norm2", Tl);
    e.quantized_enter("mlp_in", "mlp_enter");
    e.mlp();
    e.tp_boundary(Role::TpExit, "mlp_exit");
    e.dropout("hidden_dropout2", Tl * h);
    e.elementwise("residual2", Tl * h, 2, 1, false, 1);
  }
  for (auto& f : e.out) f.op.layer = layer;
  return e.out;
}

std::vector<FwdOp> batch_forward(const ShardContext& c) {
  Emitter e{c, "batch.", {}, -1};
  e.part = Part::EmbeddingHead;
  e.compute(ops::vector_op(OpKind::Elementwise, "prepare", c.tokens(), c.w.seq_len, 1, 1, false, 1, DType::FP32));
  e.out.back().op.launches = c.w.loop.batch_launches;
  e.out.back().no_backward = true;
  return e.out;
}

std::vector<FwdOp> embedding_forward(const ShardContext& c) {
  Emitter e{c, "embed.", {}, -1};
  e.part = Part::EmbeddingHead;
  const int64_t T = c.tokens(), Tl = c.local_tokens(), h = c.m.hidden;
  e.compute(ops::embedding("lookup", T * h, c.dt));  // vocab-parallel: every rank looks up all tokens
  e.out.back().frozen = c.w.lora.active();
  e.tp_boundary(Role::TpExit, "reduce");
  if (c.m.learned_positions > 0) e.elementwise("positions", Tl * h, 2, 1, false, 1);
  if (c.m.encoder) e.norm("norm", Tl);
  e.dropout("dropout", Tl * h);
  return e.out;
}

namespace {
// Softmax + NLL over rows of `row` logits (FP32 math), marked as the loss for the memory model.
Op loss_op(int64_t elements, int64_t row) {
  Op o = ops::vector_op(OpKind::CrossEntropy, "cross_entropy", elements, row, 1, 3, true, 5, DType::FP32);
  o.loss = true;
  return o;
}
// The loss's kernels beyond the cross-entropy's own (Workload::Loop), forward and backward.
void loop_loss(FwdOp& f, const Workload::Loop& l) {
  f.op.launches += l.loss_launches;
  f.backward_launches = 1 + l.loss_backward_launches;
}
}  // namespace

std::vector<FwdOp> head_forward(const ShardContext& c) {
  Emitter e{c, "head.", {}, -1};
  e.part = Part::EmbeddingHead;
  const int64_t T = c.tokens(), Tl = c.local_tokens(), h = c.m.hidden;
  const int64_t v = c.vocab_shard();
  if (!c.m.encoder) e.norm("final_norm", Tl);
  if (c.m.encoder) {
    // MLM transform (dense + GeLU + LayerNorm) is not TP-sharded in Megatron: each rank
    // transforms a 1/tp slice of the tokens, then the slices are gathered for the logits.
    const int64_t Ts = T / c.w.tp;
    e.gemm("mlm_dense", Ts, h, h);
    e.elementwise("mlm_gelu", Ts * h, 1, 0, true, 8);
    e.norm("mlm_norm", Ts);
    e.tp_boundary(Role::TpGather, "mlm_gather");
  } else {
    e.tp_boundary(Role::TpEnter, "logits_enter");
  }
  e.gemm("logits", T, h, v);
  if (!c.w.loss_parallel && c.w.tp > 1) {
    // Replicated loss: the vocabulary shards are all-gathered and every TP rank computes the
    // cross-entropy over the full vocabulary (its backward slices the gradient back to the shard;
    // modelled as the gather's reduce-scatter, an over-count of T x V x 2 / tp bytes).
    e.out.push_back({ops::collective(OpKind::AllGather, "head.logits_gather", Group::TP, static_cast<int>(c.w.tp),
                                     Bytes(static_cast<double>(T * c.m.vocab) * dtype_bytes(c.dt))),
                     Role::TpGather, false});
    e.compute(loss_op(T * c.m.vocab, c.m.vocab));
    loop_loss(e.out.back(), c.w.loop);
    return e.out;
  }
  e.compute(loss_op(T * v, v));
  loop_loss(e.out.back(), c.w.loop);
  if (c.w.tp > 1) {  // vocab-parallel loss: max, target logit, sum-exp, each a small all-reduce
    for (const char* n : {"ce_max", "ce_target", "ce_sum"})
      e.out.push_back({ops::collective(OpKind::AllReduce, std::string("head.") + n, Group::TP,
                                       static_cast<int>(c.w.tp), Bytes(4.0 * T)),
                       Role::Compute, false});
  }
  return e.out;
}

}  // namespace trnsim

namespace trnsim {

std::vector<FwdOp> mtp_forward(const ShardContext& c, int depth) {
  const int id = static_cast<int>(c.m.layers) + depth;
  const std::string prefix = fmt::format("mtp{}.", depth);
  Emitter e{c, prefix, {}, id};
  e.part = Part::EmbeddingHead;  // the module's embedding, norms and projection; its block keeps its parts
  const int64_t T = c.tokens(), Tl = c.local_tokens(), h = c.m.hidden;
  e.compute(ops::embedding("embed", T * h, c.dt));  // vocab-parallel lookup of the shifted tokens
  e.tp_boundary(Role::TpExit, "embed_reduce");
  e.norm("enorm", Tl);
  e.norm("hnorm", Tl);
  e.gemm("eh_proj", Tl, 2 * h, h);  // small; each TP rank projects its own tokens
  // A block like the model's last, then the shared head: relabelled into this module.
  auto relabel = [&](std::vector<FwdOp> ops, const std::string& from) {
    for (auto& f : ops) {
      if (f.op.label.rfind(from, 0) == 0) f.op.label = prefix + f.op.label.substr(from.size());
      e.out.push_back(std::move(f));
    }
  };
  relabel(block_forward(c, static_cast<int>(c.m.layers) - 1), fmt::format("L{}.", c.m.layers - 1));
  relabel(head_forward(c), "");
  for (auto& f : e.out) f.op.layer = id;
  return e.out;
}

}  // namespace trnsim
