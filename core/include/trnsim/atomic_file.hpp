// atomic_file.hpp — every output file trnsim writes appears whole or not at all.
// Why: a report, trace or sweep table cut short by a full disk, a file-size limit or a
// killed process must never be left behind looking like a result (sweep workers decide
// "done" by a report file's existence). The text goes to a temporary file in the same
// directory, is flushed to disk (fsync, unless the caller opts out below) and renamed over the target; any failed step is a
// one-line error naming the path and the reason, and the temporary file is removed.
// Only a regular file (or a new one) is replaced: a device, FIFO or other special file the user
// names (--output /dev/null, --trace /dev/stdout) is written in place, and a symbolic link's
// target is replaced, not the link.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace trnsim {

// Fsync: the result survives a crash of the machine (every output a user asked for).
// RenameOnly: whole-or-absent only, no fsync — for a sweep's scratch files, thousands per
// sweep in a temporary directory that a machine crash discards anyway.
enum class Durability { Fsync, RenameOnly };

void write_file_atomically(const std::string& path, const std::string& text, Durability d = Durability::Fsync);
// Refuses, before any work, an output path that cannot be written: a directory, or a new file in a
// folder that does not exist or is not writable (throws FileError naming the path).
void check_writable(const std::string& path);

// A command's outputs as one set: every file is written to its temporary first, and only when all
// of them were written are they renamed into place, so a failure leaves none of them behind (a
// report without its trace, a study's table without its chart). Files not committed are removed.
class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();
  // Queues one file (an empty path is skipped: the option was not given).
  void add(const std::string& path, std::string text);
  // Writes every queued file to its temporary, then renames them all; throws naming the first
  // file that failed, leaving none of the set behind.
  void commit(Durability d = Durability::Fsync);

 private:
  std::vector<std::pair<std::string, std::string>> files_;
  std::vector<std::string> temporaries_;
};

}  // namespace trnsim
