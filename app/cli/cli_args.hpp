// cli_args.hpp — the strict argument parser shared by the subcommands (CLI11 underneath):
// flags and options are declared with their help text; unknown options, missing values, values
// given twice and out-of-range numbers are one-line UsageErrors (exit 2).
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "trnsim/error.hpp"  // UsageError

namespace trnsim {

class Args {
 public:
  Args(std::string command, std::string synopsis, std::string description);
  Args& flag(const std::string& name, const std::string& help);                    // boolean
  Args& option(const std::string& name, const std::string& def, const std::string& help);  // takes a value
  // Returns false if --help was given (help printed). Throws UsageError on bad input.
  bool parse(const std::vector<std::string>& argv);
  bool has(const std::string& name) const;
  std::string get(const std::string& name) const;
  // Numeric options: the whole value must parse, be finite and lie in [lo, hi], else a one-line
  // UsageError naming the option, the value and the allowed range.
  double number(const std::string& name, double lo, double hi) const;
  int64_t integer(const std::string& name, int64_t lo, int64_t hi) const;
  std::vector<int64_t> integers(const std::string& name, int64_t lo, int64_t hi) const;  // comma-separated
  std::vector<std::string> words(const std::string& name) const;  // comma-separated, empty items skipped
  // An option that takes one of a fixed set of words; anything else is a one-line UsageError.
  std::string choice(const std::string& name, const std::vector<std::string>& allowed) const;
  const std::vector<std::string>& positional() const { return positional_; }
  std::string help() const;

 private:
  std::string command_, synopsis_, description_;
  struct Spec {
    bool takes_value;
    std::string def, help;
  };
  std::vector<std::pair<std::string, Spec>> specs_;
  const Spec& specs_of(const std::string& name) const;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

}  // namespace trnsim
