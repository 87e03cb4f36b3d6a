// fuzz_workload.cpp — libFuzzer harness for the workload loader and everything `trnsim run`
// checks before simulating: the model and hardware it names, the parallel plan, the operator
// graph and the memory model (load_scenario; nothing is simulated).
#include "fuzz_common.hpp"
#include "scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = [] {
    trnsim::set_data_dir(TRNSIM_SOURCE_DIR);
    return true;
  }();
  (void)ready;
  return trnsim::fuzz::load_or_reject(data, size, [](const std::string& f) { (void)trnsim::load_scenario(f, true); });
}
