// link.cpp — FCFS bandwidth server for one link class (see link.hpp).
#include "link.hpp"

#include "sim_time.hpp"

namespace trnsim {

const char* to_string(LinkClass c) {
  switch (c) {
    case LinkClass::OnChip: return "onchip";
    case LinkClass::TorusX: return "link_x";
    case LinkClass::TorusY: return "link_y";
    case LinkClass::Pair: return "pair_link";
    case LinkClass::SwitchPort: return "switch_port";
    case LinkClass::Nic: return "nic";
    case LinkClass::ScaleUp: return "scaleup";
    case LinkClass::Count: break;
  }
  return "?";
}

Link::Link(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  socket.register_b_transport(this, &Link::b_transport);
}

void Link::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const auto& b = *reinterpret_cast<const WireBooking*>(trans.get_data_ptr());
  const auto d = static_cast<size_t>(b.domain);
  if (d >= busy_until_.size()) busy_until_.resize(d + 1, sc_core::SC_ZERO_TIME);
  sc_core::sc_time& until = busy_until_[d];
  const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
  const sc_core::sc_time start = arrival > until ? arrival : until;
  const sc_core::sc_time occupancy = transfer_time(Bytes(b.bytes), bandwidth_);
  until = start + occupancy;
  busy_ += occupancy;
  carried_ += Bytes(b.bytes);
  delay = until - sc_core::sc_time_stamp();
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace trnsim
