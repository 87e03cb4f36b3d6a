// link.hpp — one class of physical link (a NeuronLink direction, a switch port, the
// node's NICs) as a TLM-2.0 target. A transaction's data length is the bytes that
// cross this link during one algorithm step, already multiplied by how many symmetric
// flows share the physical link; requests are served first-come first-served, so
// concurrent collectives on the same link share its bandwidth. Domains are disjoint sets
// of physical links of the class (e.g. the nodes of different pipeline stages): each has
// its own queue, so traffic in one never waits for traffic in another.
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "trnsim/units.hpp"

namespace trnsim {

// ScaleUp: a node's port into a multi-node scale-up domain (NVL72 NVLink switches, UltraServer
// NeuronLink), used by groups that cross nodes without leaving the domain.
enum class LinkClass { OnChip = 0, TorusX, TorusY, Pair, SwitchPort, Nic, ScaleUp, Count };
constexpr int kLinkClasses = static_cast<int>(LinkClass::Count);
const char* to_string(LinkClass c);

// What a transaction's data pointer carries: bytes on the wire (may exceed the 2^32
// length field) and the link domain they cross.
struct WireBooking {
  double bytes = 0;
  int domain = 0;
};

class Link : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Link> socket;
  explicit Link(sc_core::sc_module_name name);
  void configure(Bandwidth bw, double latency_s) {
    bandwidth_ = bw;
    latency_ = sc_core::sc_time(latency_s * 1e12, sc_core::SC_PS);
  }
  Bandwidth bandwidth() const { return bandwidth_; }
  sc_core::sc_time latency() const { return latency_; }
  Bytes carried() const { return carried_; }
  sc_core::sc_time busy() const { return busy_; }
  void reset_stats() {
    carried_ = Bytes(0);
    busy_ = sc_core::SC_ZERO_TIME;
  }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  Bandwidth bandwidth_;
  sc_core::sc_time latency_ = sc_core::SC_ZERO_TIME;
  std::vector<sc_core::sc_time> busy_until_;  // per domain
  sc_core::sc_time busy_ = sc_core::SC_ZERO_TIME;
  Bytes carried_;
};

}  // namespace trnsim
