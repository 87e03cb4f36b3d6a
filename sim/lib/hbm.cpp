// hbm.cpp — FCFS bandwidth server behind a TLM target socket (see hbm.hpp).
#include "hbm.hpp"

#include "sim_time.hpp"

namespace trnsim {

Hbm::Hbm(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  socket.register_b_transport(this, &Hbm::b_transport);
}

void Hbm::b_transport(int /*initiator*/, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  // Payload data pointers are not used: this is a timing model; the length carries the size.
  const Bytes size(static_cast<double>(trans.get_data_length()));
  const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
  const sc_core::sc_time start = arrival > busy_until_ ? arrival : busy_until_;
  busy_until_ = start + transfer_time(size, bandwidth_);
  delay = busy_until_ - sc_core::sc_time_stamp();
  served_ += size;
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace trnsim
