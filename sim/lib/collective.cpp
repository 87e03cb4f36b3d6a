// collective.cpp — shared phases and the by-name factory (see collective.hpp).
#include "collective.hpp"

#include <algorithm>
#include <vector>
#include <stdexcept>

namespace trnsim {

std::unique_ptr<CollectiveAlgorithm> make_ring(bool direct_intra);
std::unique_ptr<CollectiveAlgorithm> make_hierarchical(bool direct_intra);
std::unique_ptr<CollectiveAlgorithm> make_pipelined(bool direct_intra);
std::unique_ptr<CollectiveAlgorithm> make_tuned(std::vector<std::unique_ptr<CollectiveAlgorithm>> candidates);

namespace {
// The steps of an algorithm, added up as they would go on idle links: no booking, no waiting.
class IdleClock : public StepSink {
 public:
  explicit IdleClock(const StepSink& fabric) : fabric_(fabric) {}
  void send(const PathCost& path, Bytes chunk, int steps) override {
    seconds += steps * fabric_.idle_step_seconds(path, chunk);
  }
  void send_pipelined(const std::vector<Transfer>& transfers) override {
    double longest = 0, latencies = 0;
    for (const Transfer& t : transfers) {
      if (t.steps <= 0) continue;
      const double latency = fabric_.idle_step_seconds(*t.path, Bytes(0));
      longest = std::max(longest, t.steps * (fabric_.idle_step_seconds(*t.path, t.chunk) - latency));
      latencies += t.steps * latency;
    }
    seconds += longest + latencies;
  }
  double idle_step_seconds(const PathCost& path, Bytes chunk) const override { return fabric_.idle_step_seconds(path, chunk); }
  double seconds = 0;

 private:
  const StepSink& fabric_;
};

std::unique_ptr<CollectiveAlgorithm> make_one(const std::string& name, bool direct) {
  if (name == "ring") return make_ring(direct);
  if (name == "hierarchical") return make_hierarchical(direct);
  if (name == "pipelined") return make_pipelined(direct);
  throw std::invalid_argument("unknown collective algorithm: " + name);
}
}  // namespace

double CollectiveAlgorithm::idle_seconds(const StepSink& f, const CollectiveCall& c) const {
  IdleClock clock(f);
  steps(clock, c);
  return clock.seconds;
}

std::unique_ptr<CollectiveAlgorithm> make_collective(const std::string& name, const std::string& intra_name) {
  const bool direct = intra_name == "direct";
  if (name.find('+') == std::string::npos) return make_one(name, direct);
  std::vector<std::unique_ptr<CollectiveAlgorithm>> candidates;
  for (size_t start = 0;;) {
    const size_t plus = name.find('+', start);
    candidates.push_back(make_one(name.substr(start, plus - start), direct));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return make_tuned(std::move(candidates));
}

namespace phase {

void ring_steps(StepSink& f, const PathCost& path, Bytes chunk, int steps) {
  const int bookings = std::min(steps, kMaxBookings);
  for (int b = 0; b < bookings; ++b) f.send(path, chunk, steps / bookings + (b < steps % bookings ? 1 : 0));
}

void intra(StepSink& f, const GroupLayout& g, Bytes size, bool direct) {
  if (g.local <= 1) return;
  const Bytes chunk = size / g.local;
  if (direct) {
    f.send(g.intra_direct, chunk);
    return;
  }
  ring_steps(f, g.intra_ring, chunk, g.local - 1);
}

void inter(StepSink& f, const GroupLayout& g, Bytes size) {
  if (g.nodes <= 1) return;
  if (g.domain_nodes > 1) ring_steps(f, g.domain_ring, size / g.domain_nodes, g.domain_nodes - 1);
  if (g.domains > 1) ring_steps(f, g.inter_ring, size / g.nodes, g.domains - 1);
}

void all_to_all(StepSink& f, const GroupLayout& g, Bytes size, const ExpertRouting& routing) {
  if (g.size <= 1) return;
  const double n = g.size, local = g.local;
  struct Part {
    const PathCost* path;
    Bytes chunk;
  };
  // The bytes to other domains: every routed copy there (1/n of the buffer per member), or, sent
  // once per destination domain, the token's distinct remote domains; the receiving rank then
  // forwards each copy to its expert's rank over the intra-node links (1/local of it stays).
  Bytes network = size * (local * (g.nodes - g.domain_nodes) / n), forward;
  if (routing.once_per_domain && routing.active() && g.domains > 1) {
    network = size * (remote_domains_per_token(routing, g.domains) / routing.top_k);
    if (g.local > 1) forward = network / local;
  }
  std::vector<Part> parts;
  if (g.local > 1) parts.push_back({&g.intra_direct, size / n + forward});
  if (g.domain_nodes > 1) parts.push_back({&g.domain_ring, size * (local * (g.domain_nodes - 1) / n)});
  if (g.domains > 1) parts.push_back({&g.inter_ring, network});
  const Part* slowest = nullptr;
  for (const auto& p : parts)
    if (!slowest || f.idle_step_seconds(*p.path, p.chunk) > f.idle_step_seconds(*slowest->path, slowest->chunk)) slowest = &p;
  if (slowest) f.send(*slowest->path, slowest->chunk);
}

}  // namespace phase
}  // namespace trnsim
