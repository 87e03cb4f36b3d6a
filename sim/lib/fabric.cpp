// fabric.cpp — wiring of link classes and the per-step send (see fabric.hpp).
#include "fabric.hpp"

#include <algorithm>

#include "sim_time.hpp"

namespace trnsim {

Fabric::Fabric(sc_core::sc_module_name name) : sc_module(name) {
  for (int c = 0; c < kLinkClasses; ++c) {
    const auto ci = static_cast<size_t>(c);
    links_[ci] = std::make_unique<Link>(to_string(static_cast<LinkClass>(c)));
    sockets_[ci] = std::make_unique<tlm_utils::simple_initiator_socket<Fabric>>(sc_core::sc_gen_unique_name("to_link"));
    sockets_[ci]->bind(links_[ci]->socket);
  }
}

void Fabric::configure(const HwSpec& hw) {
  step_overhead_s_ = hw.collectives.step_overhead_s;
  for (int c = 0; c < kLinkClasses; ++c) {
    auto cls = static_cast<LinkClass>(c);
    auto& l = *links_[static_cast<size_t>(c)];
    if (cls == LinkClass::Nic) l.configure(hw.inter.nic_bandwidth * hw.collectives.inter_bandwidth_fraction, hw.inter.latency_s);
    else if (cls == LinkClass::ScaleUp)
      l.configure(hw.scaleup.nodes > 1 ? hw.scaleup.node_bandwidth : hw.inter.nic_bandwidth, hw.scaleup.latency_s);
    else if (cls == LinkClass::OnChip) l.configure(hw.intra.onchip_bandwidth, hw.intra.link_latency_s);
    else l.configure(hw.intra.link_bandwidth * hw.collectives.intra_bandwidth_fraction, hw.intra.link_latency_s);
    hop_latency_[static_cast<size_t>(c)] = l.latency();
  }
  step_overhead_ = sim_seconds(step_overhead_s_);
  call_overhead_ = sim_seconds(hw.collectives.call_overhead_s);
}

void Fabric::send_pipelined(const std::vector<Transfer>& transfers) {
  sc_core::sc_time longest = sc_core::SC_ZERO_TIME, latencies = sc_core::SC_ZERO_TIME;
  for (const Transfer& t : transfers) {
    if (t.steps <= 0) continue;
    longest = std::max(longest, book(*t.path, t.chunk, t.steps));
    latencies += step_latencies(*t.path, t.steps);
  }
  sc_core::wait(longest + latencies);
}

void Fabric::begin_call() {
  if (call_overhead_ > sc_core::SC_ZERO_TIME) sc_core::wait(call_overhead_);
}

void Fabric::reset_stats() {
  for (auto& l : links_) l->reset_stats();
}

double Fabric::idle_step_seconds(const PathCost& path, Bytes chunk) const {
  const Link& l = *links_[static_cast<size_t>(path.link)];
  return (chunk * path.multiplicity / l.bandwidth()).base() +
         (path.hops * l.latency().to_seconds() + step_overhead_s_) * path.latency_scale;
}

sc_core::sc_time Fabric::book(const PathCost& path, Bytes chunk, int steps) {
  WireBooking wire{chunk.base() * path.multiplicity * steps, path.domain};
  payload_.set_command(tlm::TLM_WRITE_COMMAND);
  payload_.set_data_ptr(reinterpret_cast<unsigned char*>(&wire));
  payload_.set_data_length(sizeof(wire));
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  (*sockets_[static_cast<size_t>(path.link)])->b_transport(payload_, delay);
  return delay;
}

sc_core::sc_time Fabric::step_latencies(const PathCost& path, int steps) const {
  return (hop_latency_[static_cast<size_t>(path.link)] * static_cast<double>(path.hops) + step_overhead_) *
         (static_cast<double>(steps) * path.latency_scale);
}

void Fabric::send(const PathCost& path, Bytes chunk, int steps) {
  sc_core::wait(book(path, chunk, steps) + step_latencies(path, steps));
}

}  // namespace trnsim
