// model_spec.hpp — the *application* description of a transformer (Calculon's split):
// architecture and sizes only, read strictly from models/<name>.json.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>

namespace trnsim {

// MLP activation. SwiGLU is gated (gate and up projections); GeLU and squared ReLU (Nemotron-H /
// Nemotron 3: relu(x)^2) are not (one up projection).
enum class Activation { SwiGLU, GeLU, ReLU2 };
inline bool gated(Activation a) { return a == Activation::SwiGLU; }
enum class NormKind { RMSNorm, LayerNorm };

// Mixture-of-experts MLP (layers from `dense_layers` on): a router scores `experts` routed
// experts (SwiGLU, FFN `expert_ffn` each), every token goes to `top_k` of them, plus
// `shared_experts` experts every token uses. experts == 0: a dense model.
struct MoeSpec {
  int64_t experts = 0, top_k = 0, expert_ffn = 0, shared_experts = 0, dense_layers = 0;
  // After the leading dense layers, every `every`-th layer is a MoE layer, the others dense (Llama 4
  // Maverick's interleave_moe_layer_step 2: layers 1, 3, 5, ...); 1: all of them.
  int64_t every = 1;
  bool sigmoid_router = false;    // DeepSeek-V3 style (sigmoid scores) vs softmax top-k
  // Group-limited routing (DeepSeek-V3's n_group / topk_group): the experts form `route_groups`
  // contiguous groups and a token's top_k experts come from its best `route_group_topk` groups.
  int64_t route_groups = 1, route_group_topk = 1;
  double capacity_factor = 0;     // 0: dropless
  bool active() const { return experts > 0; }
};

// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): queries and keys/values go through
// low-rank latents (q_lora_rank, kv_lora_rank) and are projected back up per head; each head's
// query/key is qk_nope + qk_rope wide (the rope part of the key is shared by all heads), its value
// v_head_dim wide. q_lora_rank 0: queries projected directly.
struct MlaSpec {
  int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  bool active() const { return kv_lora_rank > 0; }
  int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
};

// Mamba-2 mixer (Dao & Gu 2024, state-space duality; Nemotron-H / Nemotron 3 hybrids): `heads`
// SSM heads of `head_dim` channels (d_inner = heads x head_dim), `groups` groups of B / C of
// `state` dimensions, a depthwise causal conv of `conv_kernel`, the chunked scan over `chunk` tokens.
struct MambaSpec {
  int64_t heads = 0, head_dim = 0, state = 0, groups = 1, conv_kernel = 4, chunk = 128;
  bool active() const { return heads > 0; }
  int64_t inner() const { return heads * head_dim; }
  int64_t conv_channels() const { return inner() + 2 * groups * state; }
  // in_proj outputs: z (gate) and x (d_inner each), B and C (groups x state each), dt (one per head).
  int64_t in_proj_width() const { return 2 * inner() + 2 * groups * state + heads; }
};

// What a layer of a hybrid model is (model field layer_pattern, Nemotron-H's
// hybrid_override_pattern): a Mamba-2 mixer ('M'), a MoE MLP ('E'), self-attention ('*') or a dense
// MLP ('-'), each with its own pre-norm and residual. Models without a pattern have standard blocks
// (attention then MLP or MoE).
enum class LayerKind { Standard, Mamba, Moe, Attention, Mlp };

// Sliding-window attention on some layers (GPT-OSS: every other layer; Gemma 2/3, Mistral): a
// windowed layer's queries see only the last `window` keys. Layer i is full-attention when
// full_every > 0 and (i + 1) % full_every == 0, windowed otherwise; window 0: every layer full.
struct SlidingWindowSpec {
  int64_t window = 0, full_every = 0;
  bool active() const { return window > 0; }
  bool windowed(int64_t layer) const { return active() && (full_every == 0 || (layer + 1) % full_every != 0); }
};

struct ModelSpec {
  std::string name;
  std::string file;
  int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0, max_seq = 0;
  Activation activation = Activation::SwiGLU;
  NormKind norm = NormKind::RMSNorm;
  double rotary_fraction = 0.0;   // fraction of head dim rotated (0: learned positions)
  bool parallel_residual = false; // GPT-NeoX: x + attn(ln1 x) + mlp(ln2 x)
  bool encoder = false;           // BERT: bidirectional, post-norm, MLM head
  bool tied_embeddings = false;
  bool biases = false;            // linear layers carry biases (NeoX, BERT)
  double dropout = 0.0;           // attention/hidden dropout probability (0: no dropout ops)
  int64_t learned_positions = 0;  // rows of a learned position table (BERT: 512)
  double public_parameters = 0;   // the published size, for the parameter-count test
  int64_t head_dim_override = 0;  // head dimension when not hidden / heads (Qwen3: 128)
  MoeSpec moe;
  MlaSpec mla;
  SlidingWindowSpec sliding_window;
  MambaSpec mamba;
  std::string layer_pattern;  // one of M E * - per layer (empty: standard blocks)
  // Multi-token prediction depth (DeepSeek-V3: 1): modules after the last layer that predict one
  // more token each. Not part of total_parameters() (the published 671 B excludes them).
  int64_t mtp_layers = 0;
  int64_t mtp_parameters() const;           // all MTP modules (the embedding and head are shared)
  int64_t mtp_expert_parameters() const;    // of those, routed experts

  LayerKind kind(int64_t layer) const;
  bool hybrid() const { return !layer_pattern.empty(); }
  // The kind of layer that makes this model other than a dense attention / MLP decoder ("MoE",
  // "latent-attention", "Mamba-2", "encoder"), or nullptr: LoRA is modelled for dense decoders.
  const char* non_dense_layers() const {
    return moe.active() ? "MoE" : mla.active() ? "latent-attention" : hybrid() ? "Mamba-2" : encoder ? "encoder" : nullptr;
  }

  int64_t head_dim() const { return head_dim_override > 0 ? head_dim_override : hidden / heads; }
  bool is_moe_layer(int64_t layer) const {
    return hybrid() ? kind(layer) == LayerKind::Moe
                    : moe.active() && layer >= moe.dense_layers && (layer - moe.dense_layers + 1) % moe.every == 0;
  }
  // Parameters of one transformer block (layer 0..layers-1; MoE layers differ from dense ones).
  int64_t layer_parameters(int64_t layer = 0) const;
  // Of those, the routed experts' (sharded over expert parallelism; 0 for a dense layer).
  int64_t expert_parameters(int64_t layer) const;
  // The largest block (the one ZeRO-3 gathers whole).
  int64_t max_layer_parameters() const;
  // Input embedding (+ positions/type) and output head (if untied) and final norm.
  int64_t embedding_parameters() const;
  int64_t head_parameters() const;  // LM/MLM head, excluding tied embedding
  int64_t total_parameters() const;
};

ModelSpec load_model_spec(const std::string& file);
// The same from parsed JSON; `file` names the source in messages.
ModelSpec model_spec_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace trnsim
