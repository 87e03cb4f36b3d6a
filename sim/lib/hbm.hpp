// hbm.hpp — the chip's HBM as a shared TLM-2.0 target. Bandwidth is a per-chip
// resource: requests from all cores are served first-come first-served in the order
// they arrive (loosely timed: each b_transport reserves the next free interval), so two
// cores streaming at once each get about half. Capacity is checked by the run layer.
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "trnsim/units.hpp"

namespace trnsim {

class Hbm : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Hbm> socket;  // one binding per core
  explicit Hbm(sc_core::sc_module_name name);
  void configure(Bandwidth bw) { bandwidth_ = bw; }
  Bytes bytes_served() const { return served_; }

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  Bandwidth bandwidth_;
  sc_core::sc_time busy_until_ = sc_core::SC_ZERO_TIME;
  Bytes served_;
};

}  // namespace trnsim
