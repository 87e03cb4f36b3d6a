// error.hpp — the one exception type user-facing code throws for bad input.
// Why: every bad configuration must become a single line "file: path: problem; fix"
// and a non-zero exit, never a crash; the CLI catches exactly this type.
#pragma once
#include <stdexcept>
#include <string>

namespace trnsim {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file that cannot be read or written (missing, not a regular file, no permission, disk
// full). Still a ConfigError for the CLI (exit 1); the Python module raises OSError for it.
class FileError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// A bad command-line option or argument (exit 2): thrown by the CLI's parser and by the wings
// that interpret option values (search axes, dataset names).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Builds "FILE: PATH: PROBLEM" (PATH is a JSON pointer such as /parallel/tp).
std::string config_message(const std::string& file, const std::string& path, const std::string& problem);

}  // namespace trnsim
