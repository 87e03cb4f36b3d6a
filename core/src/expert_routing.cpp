// expert_routing.cpp — the closed form of expert_routing.hpp.
#include "trnsim/expert_routing.hpp"

#include <cstdint>

namespace trnsim {
namespace {

// C(a, k) / C(b, k) for 0 <= a <= b: the chance that k distinct draws from b items all miss the
// b - a items set apart.
double choose_ratio(int64_t a, int64_t b, int64_t k) {
  if (a < k) return 0.0;
  double r = 1.0;
  for (int64_t i = 0; i < k; ++i) r *= static_cast<double>(a - i) / static_cast<double>(b - i);
  return r;
}

double choose(int64_t n, int64_t k) {
  if (k < 0 || k > n) return 0.0;
  double r = 1.0;
  for (int64_t i = 0; i < k; ++i) r = r * static_cast<double>(n - i) / static_cast<double>(i + 1);
  return r;
}

}  // namespace

double remote_domains_per_token(const ExpertRouting& r, int domains) {
  if (!r.active() || domains <= 1) return 0.0;
  const int64_t E = r.experts, D = domains, k = r.top_k, G = r.groups, M = r.group_topk;
  const bool limited = G > 1 && M < G && E % G == 0 && E % D == 0 && (G % D == 0 || D % G == 0);
  double hit = 0.0;  // chance one given domain holds at least one of the token's experts
  if (!limited) {
    const int64_t own = E / D;
    hit = 1.0 - choose_ratio(E - own, E, k);
  } else if (G % D == 0) {  // each domain holds q whole groups; j of them chosen (hypergeometric)
    const int64_t q = G / D, pool = M * (E / G);
    for (int64_t j = 0; j <= q && j <= M; ++j) {
      const double pj = choose(q, j) * choose(G - q, M - j) / choose(G, M);
      hit += pj * (1.0 - choose_ratio(pool - j * (E / G), pool, k));
    }
  } else {  // each group spans D / G domains: the domain's group is chosen with chance M / G
    const int64_t pool = M * (E / G);
    hit = static_cast<double>(M) / static_cast<double>(G) * (1.0 - choose_ratio(pool - E / D, pool, k));
  }
  return static_cast<double>(D - 1) * hit;
}

}  // namespace trnsim
