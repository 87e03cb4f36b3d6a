// op_cache_file.cpp — versioned, checksummed op-timing cache files (see op_cache_file.hpp).
#include "op_cache_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "trnsim/atomic_file.hpp"
#include "trnsim/error.hpp"
#include "trnsim/fnv_hash.hpp"

namespace trnsim {
namespace {

constexpr const char* kHeader = "trnsim-op-cache 1";

[[noreturn]] void damaged(const std::string& file, const std::string& what) {
  throw ConfigError(fmt::format("{}: {} (the op-timing cache is damaged or from another trnsim version)", file, what));
}

}  // namespace

void read_op_cache(const std::string& file, OpTimingMap& into) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return;
  if (!std::filesystem::is_regular_file(file, ec)) damaged(file, "not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("{}: cannot read the op-timing cache; check its permissions", file));
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  if (text.rfind(std::string(kHeader) + "\n", 0) != 0) damaged(file, "no \"trnsim-op-cache 1\" header");
  const size_t tail = text.rfind("checksum ");
  if (tail == std::string::npos || (tail > 0 && text[tail - 1] != '\n')) damaged(file, "no checksum line (truncated?)");
  uint64_t stored = 0;
  if (std::sscanf(text.c_str() + tail, "checksum %16" SCNx64, &stored) != 1 || stored != fnv1a64(text.substr(0, tail)))
    damaged(file, "checksum mismatch");
  std::istringstream body(text.substr(std::string(kHeader).size() + 1, tail - std::string(kHeader).size() - 1));
  std::string line;
  std::vector<std::pair<std::string, OpTiming>> entries;
  for (int n = 2; std::getline(body, line); ++n) {
    std::istringstream ss(line);
    std::string key, extra;
    OpTiming t;
    ss >> key >> t.seconds;
    for (auto& b : t.busy_s) ss >> b;
    const bool ok = !ss.fail() && !(ss >> extra) && key.find('|') != std::string::npos;
    const bool sane = ok && std::isfinite(t.seconds) && t.seconds >= 0 &&
                      std::all_of(t.busy_s.begin(), t.busy_s.end(), [](double b) { return std::isfinite(b) && b >= 0; });
    if (!sane) damaged(file, fmt::format("line {}: expected KEY and {} finite non-negative times", n, 1 + kQueues));
    entries.emplace_back(std::move(key), t);
  }
  for (auto& [k, t] : entries) into.emplace(std::move(k), t);  // all or nothing
}

bool read_op_cache_or_warn(const std::string& file, OpTimingMap& into) {
  try {
    read_op_cache(file, into);
    return true;
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "warning: %s; ignored: op timings are simulated afresh and the cache is rewritten\n", e.what());
    return false;
  }
}

void require_op_cache_file(const std::string& file, const std::string& option) {
  std::error_code ec;
  if (file.empty() || std::filesystem::is_directory(file, ec))
    throw UsageError(fmt::format("{} {}: is a directory; give a file path (the cache is created there if missing)", option,
                                 file.empty() ? "\"\"" : file));
}

void write_op_cache(const std::string& file, const OpTimingMap& entries) {
  std::vector<const OpTimingMap::value_type*> sorted;
  sorted.reserve(entries.size());
  for (const auto& e : entries) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::string text = std::string(kHeader) + "\n";
  for (const auto* e : sorted) {
    text += fmt::format("{} {:.17g}", e->first, e->second.seconds);
    for (double b : e->second.busy_s) text += fmt::format(" {:.17g}", b);
    text += '\n';
  }
  text += fmt::format("checksum {:016x}\n", fnv1a64(text));
  write_file_atomically(file, text);
}

}  // namespace trnsim
