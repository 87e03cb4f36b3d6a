// model_spec.cpp — strict reader and parameter counting for ModelSpec.
#include "model_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trnsim/json_reader.hpp"

namespace trnsim {

int64_t ModelSpec::expert_parameters(int64_t layer) const {
  return is_moe_layer(layer) ? moe.experts * (gated(activation) ? 3 : 2) * hidden * moe.expert_ffn : 0;
}

// One MTP module (Megatron-Core MultiTokenPredictionLayer): RMSNorms of the hidden state and of
// the next tokens' embedding, the 2h -> h projection, a block like the last layer, and the shared
// head's own final norm.
int64_t ModelSpec::mtp_parameters() const {
  return mtp_layers * (3 * hidden + 2 * hidden * hidden + layer_parameters(layers - 1));
}
int64_t ModelSpec::mtp_expert_parameters() const { return mtp_layers * expert_parameters(layers - 1); }

LayerKind ModelSpec::kind(int64_t layer) const {
  if (layer_pattern.empty()) return LayerKind::Standard;
  switch (layer_pattern[static_cast<size_t>(layer)]) {
    case 'M': return LayerKind::Mamba;
    case 'E': return LayerKind::Moe;
    case '*': return LayerKind::Attention;
    default: return LayerKind::Mlp;
  }
}

namespace {
// One layer of a hybrid model: its mixer or MLP and one pre-norm.
int64_t hybrid_layer_parameters(const ModelSpec& m, int64_t layer) {
  const int64_t h = m.hidden, d = m.head_dim(), mats = gated(m.activation) ? 3 : 2;
  const int64_t norm = (m.norm == NormKind::LayerNorm ? 2 : 1) * h;
  switch (m.kind(layer)) {
    case LayerKind::Mamba: {
      const MambaSpec& s = m.mamba;
      // in_proj; conv weights and bias; A_log, D, dt_bias per head; the gated norm; out_proj.
      return norm + h * s.in_proj_width() + s.conv_channels() * (s.conv_kernel + 1) + 3 * s.heads + s.inner() +
             s.inner() * h;
    }
    case LayerKind::Moe:
      return norm + h * m.moe.experts + m.moe.shared_experts * mats * h * m.moe.expert_ffn + m.expert_parameters(layer);
    case LayerKind::Attention:
      return norm + h * (m.heads * d) + 2 * h * (m.kv_heads * d) + (m.heads * d) * h;
    default:
      return norm + mats * h * m.ffn;
  }
}
}  // namespace

int64_t ModelSpec::layer_parameters(int64_t layer) const {
  if (hybrid()) return hybrid_layer_parameters(*this, layer);
  const int64_t h = hidden, d = head_dim();
  int64_t attn = h * (heads * d) + 2 * h * (kv_heads * d) + (heads * d) * h;
  if (mla.active()) {  // down / up projections with their latent norms, and the output projection
    const int64_t qk = mla.qk_head_dim(), ql = mla.q_lora_rank, kl = mla.kv_lora_rank;
    const int64_t q = ql > 0 ? h * ql + ql + ql * heads * qk : h * heads * qk;
    attn = q + h * (kl + mla.qk_rope_head_dim) + kl + kl * heads * (mla.qk_nope_head_dim + mla.v_head_dim) +
           heads * mla.v_head_dim * h;
  }
  int64_t mlp = (activation == Activation::SwiGLU ? 3 : 2) * h * ffn;
  if (is_moe_layer(layer))  // router + shared experts + routed experts
    mlp = h * moe.experts + moe.shared_experts * 3 * h * moe.expert_ffn + expert_parameters(layer);
  int64_t bias = 0;
  const int64_t up = activation == Activation::SwiGLU ? 2 : 1;
  if (biases && is_moe_layer(layer))  // Q/K/V and output biases; each expert's up and down biases; the router's
    bias = (heads + 2 * kv_heads) * d + h + (moe.experts + moe.shared_experts) * (up * moe.expert_ffn + h) + moe.experts;
  else if (biases)
    bias = (heads + 2 * kv_heads) * d + h + up * ffn + h;
  int64_t norms = (norm == NormKind::LayerNorm ? 2 : 1) * h * 2;  // two norms per block
  return attn + mlp + bias + norms;
}

int64_t ModelSpec::max_layer_parameters() const {
  int64_t best = 0;
  for (int64_t l = 0; l < layers; ++l) best = std::max(best, layer_parameters(l));
  return best;
}

int64_t ModelSpec::embedding_parameters() const {
  int64_t p = vocab * hidden + learned_positions * hidden;
  if (encoder) p += 2 * hidden + 2 * hidden;  // token-type table (2 rows) + embedding LayerNorm
  return p;
}

int64_t ModelSpec::head_parameters() const {
  int64_t final_norm = encoder ? 0 : (norm == NormKind::LayerNorm ? 2 : 1) * hidden;
  int64_t p = final_norm;
  if (!tied_embeddings) p += vocab * hidden;
  if (encoder) p += hidden * hidden + hidden + 2 * hidden + vocab;  // MLM transform + LN + output bias
  return p;
}

int64_t ModelSpec::total_parameters() const {
  int64_t blocks = 0;
  for (int64_t l = 0; l < layers; ++l) blocks += layer_parameters(l);
  return blocks + embedding_parameters() + head_parameters();
}

ModelSpec load_model_spec(const std::string& file) { return model_spec_from_json(load_json_file(file), file); }

ModelSpec model_spec_from_json(const nlohmann::json& j, const std::string& file) {
  JsonReader r(j, file);
  r.ignore("$schema");
  ModelSpec m;
  m.file = file;
  m.name = r.string("name");
  m.layers = r.integer("layers", 1, 1000);
  m.hidden = r.integer("hidden", 64, 1 << 18);
  m.heads = r.integer("heads", 1, 1024);
  m.kv_heads = r.integer_or("kv_heads", m.heads, 1, 1024);
  m.ffn = r.integer("ffn", 1, 1 << 20);
  m.vocab = r.integer("vocab", 2, 1 << 22);
  m.max_seq = r.integer("max_seq", 1, 1 << 22);
  const std::string act = r.choice("activation", {"swiglu", "gelu", "relu2"});
  m.activation = act == "swiglu" ? Activation::SwiGLU : act == "gelu" ? Activation::GeLU : Activation::ReLU2;
  m.norm = r.choice("norm", {"rmsnorm", "layernorm"}) == "rmsnorm" ? NormKind::RMSNorm : NormKind::LayerNorm;
  m.rotary_fraction = r.number("rotary_fraction", 0.0, 1.0);
  m.parallel_residual = r.boolean("parallel_residual");
  m.encoder = r.choice("kind", {"decoder", "encoder"}) == "encoder";
  m.tied_embeddings = r.boolean("tied_embeddings");
  m.biases = r.boolean_or("biases", false);
  m.dropout = r.number_or("dropout", 0.0, 0.0, 0.9);
  m.learned_positions = r.integer_or("learned_positions", 0, 0, 1 << 20);
  m.public_parameters = r.number("public_parameters", 1e6, 1e13);
  m.head_dim_override = r.integer_or("head_dim", 0, 8, 1024);
  if (r.has("moe")) {
    auto e = r.child("moe");
    m.moe.experts = e.integer("experts", 2, 1 << 14);
    m.moe.top_k = e.integer("top_k", 1, 1 << 10);
    m.moe.expert_ffn = e.integer("expert_ffn", 1, 1 << 20);
    m.moe.shared_experts = e.integer_or("shared_experts", 0, 0, 64);
    m.moe.dense_layers = e.integer_or("dense_layers", 0, 0, m.layers);
    m.moe.every = e.integer_or("every", 1, 1, 64);
    m.moe.sigmoid_router = e.choice_or("router", "topk", {"topk", "sigmoid"}) == "sigmoid";
    m.moe.capacity_factor = e.number_or("capacity_factor", 0.0, 0.0, 64.0);
    m.moe.route_groups = e.integer_or("route_groups", 1, 1, 1 << 14);
    m.moe.route_group_topk = e.integer_or("route_group_topk", m.moe.route_groups, 1, 1 << 14);
    e.ignore("source");
    e.ignore("notes");
    e.finish();
    if (m.moe.top_k > m.moe.experts)
      e.fail("top_k", fmt::format("top_k {} exceeds the {} experts; use at most {}", m.moe.top_k, m.moe.experts, m.moe.experts));
    if (m.moe.experts % m.moe.route_groups != 0)
      e.fail("route_groups", fmt::format("{} groups do not divide the {} experts; use a divisor", m.moe.route_groups, m.moe.experts));
    if (m.moe.route_group_topk > m.moe.route_groups)
      e.fail("route_group_topk", fmt::format("{} exceeds the {} route_groups; use at most {}", m.moe.route_group_topk,
                                             m.moe.route_groups, m.moe.route_groups));
    if (m.moe.route_group_topk * (m.moe.experts / m.moe.route_groups) < m.moe.top_k)
      e.fail("route_group_topk", fmt::format("{} groups of {} experts hold fewer than top_k {}; raise route_group_topk",
                                             m.moe.route_group_topk, m.moe.experts / m.moe.route_groups, m.moe.top_k));
  }
  if (r.has("mla")) {
    auto a = r.child("mla");
    m.mla.q_lora_rank = a.integer_or("q_lora_rank", 0, 0, 1 << 16);
    m.mla.kv_lora_rank = a.integer("kv_lora_rank", 1, 1 << 16);
    m.mla.qk_nope_head_dim = a.integer("qk_nope_head_dim", 1, 4096);
    m.mla.qk_rope_head_dim = a.integer("qk_rope_head_dim", 0, 4096);
    m.mla.v_head_dim = a.integer("v_head_dim", 1, 4096);
    a.ignore("source");
    a.ignore("notes");
    a.finish();
    if (m.kv_heads != m.heads)
      r.fail("kv_heads", "multi-head latent attention projects keys and values per head; remove kv_heads or set it to heads");
  }
  if (r.has("mamba")) {
    auto a = r.child("mamba");
    m.mamba.heads = a.integer("heads", 1, 1 << 14);
    m.mamba.head_dim = a.integer("head_dim", 1, 4096);
    m.mamba.state = a.integer("state", 1, 4096);
    m.mamba.groups = a.integer_or("groups", 1, 1, 1 << 10);
    m.mamba.conv_kernel = a.integer_or("conv_kernel", 4, 1, 64);
    m.mamba.chunk = a.integer_or("chunk", 128, 1, 1 << 16);
    a.ignore("source");
    a.ignore("notes");
    a.finish();
    if (m.mamba.heads % m.mamba.groups != 0)
      a.fail("groups", fmt::format("groups {} must divide the {} heads", m.mamba.groups, m.mamba.heads));
  }
  if (r.has("layer_pattern")) {
    m.layer_pattern = r.string("layer_pattern");
    if (static_cast<int64_t>(m.layer_pattern.size()) != m.layers)
      r.fail("layer_pattern", fmt::format("{} characters for {} layers; give one of M E * - per layer",
                                          m.layer_pattern.size(), m.layers));
    const auto bad = m.layer_pattern.find_first_not_of("ME*-");
    if (bad != std::string::npos)
      r.fail("layer_pattern", fmt::format("'{}' at layer {}: use M (Mamba-2), E (MoE), * (attention) or - (MLP)",
                                          m.layer_pattern[bad], bad));
    if (m.layer_pattern.find('M') != std::string::npos && !m.mamba.active())
      r.fail("mamba", "the layer pattern has Mamba-2 layers (M); add \"mamba\": {heads, head_dim, state, groups}");
    if (m.layer_pattern.find('E') != std::string::npos && !m.moe.active())
      r.fail("moe", "the layer pattern has MoE layers (E); add \"moe\": {...}");
  } else if (m.mamba.active()) {
    r.fail("layer_pattern", "a Mamba-2 model needs its layer pattern (one of M E * - per layer)");
  }
  m.mtp_layers = r.integer_or("mtp_layers", 0, 0, 8);
  if (r.has("sliding_window")) {
    auto sw = r.child("sliding_window");
    m.sliding_window.window = sw.integer("window", 1, 1 << 22);
    m.sliding_window.full_every = sw.integer_or("full_every", 0, 0, m.layers);
    sw.ignore("source");
    sw.ignore("notes");
    sw.finish();
    if (m.encoder) sw.fail("window", "sliding-window attention is for causal decoders; remove sliding_window");
  }
  if (r.string("source").empty()) r.fail("source", "empty; say where the architecture figures come from (paper, config.json)");
  r.ignore("notes");
  r.finish();
  if (m.head_dim_override == 0 && m.hidden % m.heads != 0)
    r.fail("heads", "hidden must be divisible by heads; pick heads dividing hidden or give head_dim");
  if (m.heads % m.kv_heads != 0) r.fail("kv_heads", "heads must be divisible by kv_heads (grouped-query attention)");
  if (m.encoder && m.parallel_residual) r.fail("parallel_residual", "encoder (BERT) models are post-norm sequential; set false");
  if (m.moe.active()) {
    bool any = false;
    for (int64_t l = 0; l < m.layers && !any; ++l) any = m.is_moe_layer(l);
    if (!any)
      r.fail("moe", fmt::format("no layer is a MoE layer (dense_layers {}, every {}, {} layers); lower dense_layers or "
                                "remove the moe section for a dense model", m.moe.dense_layers, m.moe.every, m.layers));
  }
  return m;
}

}  // namespace trnsim
