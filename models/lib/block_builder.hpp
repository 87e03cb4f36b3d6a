// block_builder.hpp — forward op lists of one transformer block, the embedding and the
// head, for each architecture (Llama, GPT-NeoX, BERT), sharded Megatron-style over TP.
// Each entry carries the role that decides its backward: a compute op, or the entry /
// exit of a tensor-parallel region (Megatron's f and g operators).
#pragma once
#include <vector>

#include "model_spec.hpp"
#include "trnsim/op.hpp"
#include "workload.hpp"

namespace trnsim {

enum class Role {
  Compute,
  TpEnter,  // f: fwd identity (SP: all-gather); bwd all-reduce (SP: reduce-scatter + input re-gather)
  TpExit,   // g: fwd all-reduce (SP: reduce-scatter); bwd identity (SP: all-gather)
  TpGather, // token-split work rejoins: fwd all-gather, bwd reduce-scatter (SP or not)
};

struct FwdOp {
  Op op;                        // for TpEnter/TpExit: the collective's size is in op.comm_bytes
  Role role = Role::Compute;
  bool attention_core = false;  // recomputed under selective checkpointing
  bool flash_scores = false;    // the flash kernel's QK^T: its backward recomputes scores and exp first
};

// Key columns a causal flash kernel computes per query row, on average: the tiles on or below
// the diagonal, (s + tile) / 2 with 512-wide key tiles (the NKI flash_fwd reference kernel's
// k tile; the only published tiling among the stacks). Non-causal (encoder): all s.
int64_t flash_key_columns(int64_t s, bool causal);

struct ShardContext {
  const ModelSpec& m;
  const Workload& w;
  DType dt;
  int64_t tokens() const { return w.micro_batch * w.seq_len; }                        // T
  int64_t local_tokens() const { return w.sequence_parallel ? tokens() / w.tp : tokens(); }  // outside TP regions
  int64_t vocab_shard() const { return (m.vocab + w.tp - 1) / w.tp; }  // padded to a multiple of tp
};

std::vector<FwdOp> block_forward(const ShardContext& c, int layer);
std::vector<FwdOp> embedding_forward(const ShardContext& c);
std::vector<FwdOp> head_forward(const ShardContext& c);

}  // namespace trnsim
