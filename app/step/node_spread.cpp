// node_spread.cpp — see node_spread.hpp.
#include "node_spread.hpp"

#include <cmath>

namespace trnsim {

double expected_max_of_normals(int64_t n) {
  if (n <= 1) return 0.0;
  // E = integral of x n phi(x) Phi(x)^(n-1) dx, Simpson's rule on [-10, 10] (the integrand is
  // below 1e-20 outside it for any n up to 2^20).
  const double lo = -10.0, hi = 10.0;
  const int steps = 4000;
  const double h = (hi - lo) / steps, dn = static_cast<double>(n);
  auto f = [dn](double x) {
    const double phi = std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    return cdf <= 0 ? 0.0 : x * dn * phi * std::exp((dn - 1.0) * std::log(cdf));
  };
  double sum = f(lo) + f(hi);
  for (int i = 1; i < steps; ++i) sum += f(lo + i * h) * (i % 2 ? 4.0 : 2.0);
  return sum * h / 3.0;
}

double slowest_node_fraction(const HwSpec& hw, int64_t nodes) {
  return hw.cluster.node_spread > 0 ? hw.cluster.node_spread * expected_max_of_normals(nodes) : 0.0;
}

}  // namespace trnsim
