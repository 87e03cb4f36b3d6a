// fabric.hpp — thin top module holding one Link per link class, each behind its own
// TLM initiator socket. send() moves one algorithm step's chunk over a path: it books
// the bottleneck link for chunk x multiplicity bytes, then waits the hop latencies and
// the per-step software overhead. Called from SC_THREADs only.
#pragma once
#include <array>
#include <memory>
#include <vector>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_spec.hpp"
#include "link.hpp"
#include "topology.hpp"

namespace trnsim {

// What a collective algorithm's steps go to: the simulated fabric (below), or an idle clock that
// adds up what the same steps take on idle links (collective.hpp; a tuner's estimate).
class StepSink {
 public:
  virtual ~StepSink() = default;
  // `steps` consecutive algorithm steps booked as one transaction (same bytes, latencies
  // and overheads as `steps` separate sends on an uncontended link).
  virtual void send(const PathCost& path, Bytes chunk, int steps = 1) = 0;
  // Transfers that flow through their links at once, as a pipelined collective's chunks pass the
  // intra-node and the inter-node hops together: each is booked on its own link (contending with
  // other traffic there), and the call waits for the last of them plus every transfer's step
  // latencies (the pipeline's fill and drain).
  struct Transfer {
    const PathCost* path;
    Bytes chunk;
    int steps;
  };
  virtual void send_pipelined(const std::vector<Transfer>& transfers) = 0;
  // Time one step would take on an idle fabric (used to pick a flat ring's bottleneck).
  virtual double idle_step_seconds(const PathCost& path, Bytes chunk) const = 0;
};

class Fabric : public sc_core::sc_module, public StepSink {
 public:
  explicit Fabric(sc_core::sc_module_name name);
  void configure(const HwSpec& hw);
  void send(const PathCost& path, Bytes chunk, int steps = 1) override;
  void send_pipelined(const std::vector<Transfer>& transfers) override;
  // The fixed cost of one collective call (hw collectives.call_overhead_us), before its first step.
  void begin_call();
  double idle_step_seconds(const PathCost& path, Bytes chunk) const override;
  Link& link(LinkClass c) { return *links_[static_cast<size_t>(c)]; }
  void reset_stats();

 private:
  std::array<std::unique_ptr<Link>, kLinkClasses> links_;
  std::array<std::unique_ptr<tlm_utils::simple_initiator_socket<Fabric>>, kLinkClasses> sockets_;
  // Books chunk x multiplicity x steps bytes on the path's link; returns when, from now, they are through.
  sc_core::sc_time book(const PathCost& path, Bytes chunk, int steps);
  // The path's hop latencies and per-step software cost over `steps` steps.
  sc_core::sc_time step_latencies(const PathCost& path, int steps) const;
  double step_overhead_s_ = 0;
  std::array<sc_core::sc_time, kLinkClasses> hop_latency_{};
  sc_core::sc_time step_overhead_ = sc_core::SC_ZERO_TIME;
  sc_core::sc_time call_overhead_ = sc_core::SC_ZERO_TIME;
  // One payload reused by every send: b_transport returns without yielding, so no two
  // sends ever hold it at once.
  tlm::tlm_generic_payload payload_;
};

}  // namespace trnsim
