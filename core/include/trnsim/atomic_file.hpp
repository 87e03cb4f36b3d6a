// atomic_file.hpp — every output file trnsim writes appears whole or not at all.
// Why: a report, trace or sweep table cut short by a full disk, a file-size limit or a
// killed process must never be left behind looking like a result (sweep workers decide
// "done" by a report file's existence). The text goes to a temporary file in the same
// directory, is flushed to disk (fsync, unless the caller opts out below) and renamed over the target; any failed step is a
// one-line ConfigError naming the path and the reason, and the temporary file is removed.
#pragma once
#include <string>

namespace trnsim {

// Fsync: the result survives a crash of the machine (every output a user asked for).
// RenameOnly: whole-or-absent only, no fsync — for a sweep's scratch files, thousands per
// sweep in a temporary directory that a machine crash discards anyway.
enum class Durability { Fsync, RenameOnly };

void write_file_atomically(const std::string& path, const std::string& text, Durability d = Durability::Fsync);

}  // namespace trnsim
