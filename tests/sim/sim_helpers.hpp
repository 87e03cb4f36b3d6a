// sim_helpers.hpp — runs one collective on the fabric through the SystemC kernel and returns its
// simulated duration (shared by the link and collective tests).
#pragma once
#include "collective.hpp"
#include "platform.hpp"

namespace trnsim::test {

inline double collective_seconds(const HwSpec& hw, const std::string& algo, OpKind kind, Bytes size,
                                 const GroupLayout& g, const ExpertRouting& routing = {}) {
  auto& p = Platform::instance();
  p.configure(hw);
  auto a = make_collective(algo, hw.collectives.intra_algorithm);
  double took = 0;
  sc_core::sc_spawn([&] {
    const auto t0 = sc_core::sc_time_stamp();
    a->run(p.fabric(), CollectiveCall{kind, size, g, routing});
    took = (sc_core::sc_time_stamp() - t0).to_seconds();
  });
  sc_core::sc_start();
  return took;
}

}  // namespace trnsim::test
