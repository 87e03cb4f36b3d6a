// op_cache_file.hpp — the on-disk form of the op-timing cache (`--op-cache`), shared by
// `trnsim run`, the sweep workers and the sweep's merge of their partial caches.
// Why its own file: a cache is trusted input — a stale or damaged one would silently
// change every step time (negative durations gave "step time 0 s, MFU inf %"). So the file
// carries a format version and a checksum, every value is checked (finite, >= 0), and it
// is written atomically; a file that fails any check is a one-line error naming it.
//
// Format (text): "trnsim-op-cache 1", then one "KEY SECONDS BUSY_0 .. BUSY_{kQueues-1}"
// line per op (KEY = hardware fingerprint|op shape, no spaces), then
// "checksum <FNV-1a 64 of every preceding byte, 16 hex digits>".
#pragma once
#include <array>
#include <string>
#include <unordered_map>

#include "program.hpp"

namespace trnsim {

struct OpTiming {
  double seconds = 0;                       // wall duration of the op on the core
  std::array<double, kQueues> busy_s{};     // busy time per engine queue
};

using OpTimingMap = std::unordered_map<std::string, OpTiming>;

// Adds FILE's entries to `into` (entries already there win: values are exact, so equal).
// A missing FILE adds nothing; a damaged one throws ConfigError.
void read_op_cache(const std::string& file, OpTimingMap& into);
// The cache is only an accelerator: a damaged or unreadable FILE is ignored with a one-line
// warning on stderr naming it and why (the op timings are then simulated afresh, and the next
// save replaces the file). Returns false when it was ignored.
bool read_op_cache_or_warn(const std::string& file, OpTimingMap& into);
// Refuses a cache path that cannot be a file (a directory), naming the option, before any work.
void require_op_cache_file(const std::string& file, const std::string& option);
// Writes `entries` sorted by key, atomically.
void write_op_cache(const std::string& file, const OpTimingMap& entries);

}  // namespace trnsim
