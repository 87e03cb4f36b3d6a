// fuzz_hw.cpp — libFuzzer harness for the hardware-file loader (hw/*.json).
#include "fuzz_common.hpp"
#include "hw_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return trnsim::fuzz::load_or_reject(data, size, [](const std::string& f) { (void)trnsim::load_hw_spec(f); });
}
