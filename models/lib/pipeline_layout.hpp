// pipeline_layout.hpp — Megatron-Core's pipeline_model_parallel_layout strings.
// Why: DeepSeek-V3-style models (61 layers, multi-token prediction) are pipelined with an explicit
// per-chunk layout ("Et|(tt|)*30mL") that no even or embedding-and-loss split reproduces; users
// copy these strings from their recipes, so trnsim reads the same grammar.
//
// Grammar (Megatron-Core megatron/core/transformer/pipeline_parallel_layer_layout.py): a string of
// E (embedding), t (decoder layer), m (multi-token-prediction module), L (loss: final norm, output
// layer, loss), '|' ends a (virtual) pipeline chunk, X*N repeats X (a symbol or a parenthesised
// group) N times; spaces and ',' are ignored. Chunks are in Megatron's virtual-stage order: chunk
// c runs on pipeline rank c % pp as its model chunk c / pp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trnsim {

struct LayoutChunk {
  int64_t layers = 0;  // decoder layers ('t')
  bool embedding = false;
  int64_t mtp = 0;  // multi-token-prediction modules ('m')
  bool loss = false;
};

// Parses a layout into its chunks; throws std::invalid_argument with a one-line reason (the
// caller names the file and field) on a grammar error.
std::vector<LayoutChunk> parse_pipeline_layout(const std::string& layout);

// Where trnsim can run a parsed layout: the embedding in the first chunk, the loss and any MTP
// modules in the last, every other chunk with at least one decoder layer. Returns an empty string
// when it can, else the reason and the fix in one line.
std::string pipeline_layout_problem(const std::vector<LayoutChunk>& chunks);

// Decoder layers per chunk, in order.
std::vector<int64_t> layout_layers(const std::vector<LayoutChunk>& chunks);

}  // namespace trnsim
