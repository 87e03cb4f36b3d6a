// pipeline_layout.cpp — Megatron-Core pipeline layout strings (see pipeline_layout.hpp).
#include "pipeline_layout.hpp"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace trnsim {
namespace {

// Recursive-descent expansion of the repeat syntax into a flat symbol string.
struct Expander {
  const std::string& s;
  size_t i = 0;
  int depth = 0;
  static constexpr size_t kMaxExpanded = 1 << 20;  // a layout of a million symbols is a typo, not a model

  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(fmt::format("{} at character {} of \"{}\"", why, i + 1, s));
  }
  void skip() {
    while (i < s.size() && (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == ',')) ++i;
  }
  int64_t count() {
    skip();
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) fail("'*' needs a repeat count");
    int64_t n = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      n = n * 10 + (s[i++] - '0');
      if (n > 100000) fail("repeat count above 100000");
    }
    return n;
  }
  std::string sequence() {
    std::string out;
    for (;;) {
      skip();
      if (i >= s.size() || s[i] == ')') return out;
      std::string item;
      const char c = s[i];
      if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
        item = std::string(1, c);
        ++i;
      } else if (c == '(') {
        ++i;
        if (++depth > 32) fail("parentheses nested deeper than 32");
        item = sequence();
        --depth;
        if (i >= s.size()) fail("'(' without its ')'");
        ++i;  // ')'
      } else {
        fail(fmt::format("unknown symbol '{}' (use E, t, m, L, |, ( ), *N)", c));
      }
      skip();
      int64_t n = 1;
      if (i < s.size() && s[i] == '*') {
        ++i;
        n = count();
      }
      if (static_cast<double>(item.size()) * static_cast<double>(n) + static_cast<double>(out.size()) > kMaxExpanded)
        fail("the layout expands to more than a million symbols");
      for (int64_t k = 0; k < n; ++k) out += item;
    }
  }
};

}  // namespace

std::vector<LayoutChunk> parse_pipeline_layout(const std::string& layout) {
  Expander e{layout};
  const std::string flat = e.sequence();
  if (e.i < layout.size()) e.fail("')' without its '('");
  if (flat.empty()) throw std::invalid_argument("empty layout (write e.g. \"Et*4|(t*4|)*14tmL\")");
  std::vector<LayoutChunk> chunks(1);
  for (size_t k = 0; k < flat.size(); ++k) {
    LayoutChunk& c = chunks.back();
    switch (flat[k]) {
      case 'E': c.embedding = true; break;
      case 't': ++c.layers; break;
      case 'm': ++c.mtp; break;
      case 'L': c.loss = true; break;
      default:  // '|': a chunk ends; a trailing '|' ends the last one
        if (k + 1 < flat.size()) chunks.emplace_back();
    }
  }
  return chunks;
}

std::string pipeline_layout_problem(const std::vector<LayoutChunk>& chunks) {
  const size_t n = chunks.size();
  for (size_t c = 0; c < n; ++c) {
    const LayoutChunk& k = chunks[c];
    const bool first = c == 0, last = c + 1 == n;
    if (k.embedding && !first)
      return fmt::format("the embedding E is in chunk {}; trnsim runs it in the first chunk (chunk 0): move E there", c);
    if (k.loss && !last)
      return fmt::format("the loss L is in chunk {}; trnsim runs it in the last chunk ({}): move L there", c, n - 1);
    if (k.mtp > 0 && !last)
      return fmt::format("an MTP module m is in chunk {}; trnsim runs MTP with the loss in the last chunk ({}): move m there",
                         c, n - 1);
    if (k.layers == 0 && !k.embedding && !k.loss && k.mtp == 0) return fmt::format("chunk {} is empty; give it a t", c);
    if (k.layers == 0 && !first && !last)
      return fmt::format("chunk {} has no decoder layer t; only the first and last chunks may hold E or m/L alone", c);
  }
  if (!chunks.front().embedding) return "the first chunk has no embedding E; start the layout with E";
  if (!chunks.back().loss) return "the last chunk has no loss L; end the layout with L";
  return "";
}

std::vector<int64_t> layout_layers(const std::vector<LayoutChunk>& chunks) {
  std::vector<int64_t> n;
  n.reserve(chunks.size());
  for (const auto& c : chunks) n.push_back(c.layers);
  return n;
}

}  // namespace trnsim
