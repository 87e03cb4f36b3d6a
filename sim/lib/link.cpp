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
    case LinkClass::Count: break;
  }
  return "?";
}

Link::Link(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  socket.register_b_transport(this, &Link::b_transport);
}

void Link::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  // The data pointer carries a double: bytes on the wire (may exceed the 2^32 length field).
  const double wire = *reinterpret_cast<const double*>(trans.get_data_ptr());
  const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
  const sc_core::sc_time start = arrival > busy_until_ ? arrival : busy_until_;
  const sc_core::sc_time occupancy = transfer_time(Bytes(wire), bandwidth_);
  busy_until_ = start + occupancy;
  busy_ += occupancy;
  carried_ += Bytes(wire);
  delay = busy_until_ - sc_core::sc_time_stamp();
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace trnsim
