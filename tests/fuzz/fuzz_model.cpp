// fuzz_model.cpp — libFuzzer harness for the model-file loader (models/*.json).
#include "fuzz_common.hpp"
#include "model_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return trnsim::fuzz::load_or_reject(data, size, [](const std::string& f) { (void)trnsim::load_model_spec(f); });
}
