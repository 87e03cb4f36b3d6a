// bench_main.cpp — Google Benchmark runner inside sc_main (the SystemC kernel owns main).
#include <benchmark/benchmark.h>
#include <systemc>

#include "scenario.hpp"

int sc_main(int argc, char* argv[]) {
  trnsim::set_data_dir(TRNSIM_SOURCE_DIR);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
