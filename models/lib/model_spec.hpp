// model_spec.hpp — the *application* description of a transformer (Calculon's split):
// architecture and sizes only, read strictly from models/<name>.json.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>

namespace trnsim {

enum class Activation { SwiGLU, GeLU };
enum class NormKind { RMSNorm, LayerNorm };

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

  int64_t head_dim() const { return hidden / heads; }
  // Parameters of one transformer block.
  int64_t layer_parameters() const;
  // Input embedding (+ positions/type) and output head (if untied) and final norm.
  int64_t embedding_parameters() const;
  int64_t head_parameters() const;  // LM/MLM head, excluding tied embedding
  int64_t total_parameters() const;
};

ModelSpec load_model_spec(const std::string& file);
// The same from parsed JSON; `file` names the source in messages.
ModelSpec model_spec_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace trnsim
