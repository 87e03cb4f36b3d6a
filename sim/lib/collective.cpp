// collective.cpp — shared phases and the by-name factory (see collective.hpp).
#include "collective.hpp"

#include <stdexcept>

namespace trnsim {

std::unique_ptr<CollectiveAlgorithm> make_ring(bool direct_intra);
std::unique_ptr<CollectiveAlgorithm> make_hierarchical(bool direct_intra);

std::unique_ptr<CollectiveAlgorithm> make_collective(const std::string& name, const std::string& intra_name) {
  const bool direct = intra_name == "direct";
  if (name == "ring") return make_ring(direct);
  if (name == "hierarchical") return make_hierarchical(direct);
  throw std::invalid_argument("unknown collective algorithm: " + name);
}

namespace phase {

void intra(Fabric& f, const GroupLayout& g, Bytes size, bool direct) {
  if (g.local <= 1) return;
  const Bytes chunk = size / g.local;
  if (direct) {
    f.send(g.intra_direct, chunk);
    return;
  }
  for (int s = 0; s < g.local - 1; ++s) f.send(g.intra_ring, chunk);
}

void inter(Fabric& f, const GroupLayout& g, Bytes size) {
  if (g.nodes <= 1) return;
  const Bytes chunk = size / g.nodes;
  for (int s = 0; s < g.nodes - 1; ++s) f.send(g.inter_ring, chunk);
}

}  // namespace phase
}  // namespace trnsim
