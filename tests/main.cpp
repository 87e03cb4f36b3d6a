// main.cpp — Catch2 runner inside sc_main: the tests drive the real SystemC kernel, which
// elaborates once per process (the Platform singleton).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

#include "scenario.hpp"

int sc_main(int argc, char* argv[]) {
  trnsim::set_data_dir(TRNSIM_SOURCE_DIR);
  return Catch::Session().run(argc, argv);
}
