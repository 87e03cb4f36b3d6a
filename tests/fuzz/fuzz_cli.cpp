// fuzz_cli.cpp — libFuzzer harness for the command-line parser (app/lib/cli_args): the input,
// split at newlines, is an argument list for an option set like `trnsim sweep`'s; every
// option is then read the way the commands read it. A UsageError is the expected outcome for
// bad input; anything else escaping is a bug.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> argv;
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      argv.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) argv.push_back(cur);
  trnsim::Args a("sweep", "[options]", "fuzzed");
  a.option("nodes", "1", "").option("micro-batches", "1,2,4", "").option("seq", "2048", "").option("timeout", "120", "")
      .option("format", "json", "").option("out", "", "").flag("allow-failures", "").flag("quiet", "");
  try {
    if (!a.parse(argv)) return 0;
    (void)a.integers("nodes", 1, 1 << 20);
    (void)a.integers("micro-batches", 1, 1 << 20);
    (void)a.integer("seq", 1, 1 << 24);
    (void)a.number("timeout", 1e-4, 86400);
    (void)a.choice("format", {"json", "csv", "md"});
    (void)a.has("allow-failures");
    (void)a.get("out");
    for (const auto& p : a.positional()) (void)p.size();
  } catch (const trnsim::UsageError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: unexpected exception (not a UsageError): %s\n", e.what());
    std::abort();
  }
  return 0;
}
