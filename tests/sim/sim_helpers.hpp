// sim_helpers.hpp — runs one collective on the fabric through the SystemC kernel and returns its
// simulated duration (shared by the link and collective tests); and one op's simulated time alone
// on a core (the engine and lowering tests).
#pragma once
#include "collective.hpp"
#include "lowering.hpp"
#include "platform.hpp"

namespace trnsim::test {

inline double collective_seconds(const HwSpec& hw, const std::string& algo, OpKind kind, Bytes size,
                                 const GroupLayout& g, const ExpertRouting& routing = {}) {
  auto& p = Platform::instance();
  p.configure(hw);
  auto a = make_collective(algo, hw.collectives.intra_algorithm);
  double took = 0;
  p.threads().run([&] {  // a reused thread, as the step executor runs its collectives
    const auto t0 = sc_core::sc_time_stamp();
    a->run(p.fabric(), CollectiveCall{kind, size, g, routing});
    took = (sc_core::sc_time_stamp() - t0).to_seconds();
  });
  sc_core::sc_start();
  return took;
}

// One op lowered for `hw` and run alone on a core: its simulated seconds.
inline double op_seconds(const HwSpec& hw, const Op& op) {
  auto& p = Platform::instance();
  p.configure(hw);
  return p.timer().run_program(lower_op(op, hw), 1).seconds;
}

}  // namespace trnsim::test
