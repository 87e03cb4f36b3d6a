// fuzz_common.hpp — shared by the libFuzzer harnesses: the input is written to a file (the
// loaders read files: size caps, regular-file checks and error messages naming the file are
// part of what is fuzzed) and the loader is called; a ConfigError is the expected outcome for
// bad input, anything else escaping (another exception, a crash, a sanitizer report) is a bug.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

#include "trnsim/error.hpp"

namespace trnsim::fuzz {

inline const std::string& input_file() {
  static const std::string f = "/tmp/trnsim-fuzz-" + std::to_string(getpid()) + ".json";
  return f;
}

template <typename Load>
int load_or_reject(const uint8_t* data, size_t size, Load load) {
  {
    std::ofstream out(input_file(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    load(input_file());
  } catch (const ConfigError&) {  // the loader's one-line rejection: fine
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: unexpected exception (not a ConfigError): %s\n", e.what());
    std::abort();
  }
  return 0;
}

}  // namespace trnsim::fuzz

// libsystemc.so calls sc_main from its own main(); libFuzzer brings main, so this is never run.
// Each harness is one translation unit, so this one definition per executable is fine.
extern "C" int sc_main(int, char*[]) { return 0; }
