// units.hpp — distinct types for bytes, FLOPs, bandwidth, FLOP rate and wall seconds.
// Why: a GB/s read as B/s, or bytes added to FLOPs, must not compile. Values are
// stored in base SI units (bytes, FLOPs, bytes/s, FLOP/s, s); constructors name the unit.
// Simulated time inside sim/ uses sc_core::sc_time; Seconds is for the report layer.
#pragma once
#include <cmath>

namespace trnsim {

template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double base) : v_(base) {}
  constexpr double base() const { return v_; }
  constexpr Quantity operator+(Quantity o) const { return Quantity(v_ + o.v_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(v_ - o.v_); }
  constexpr Quantity operator*(double k) const { return Quantity(v_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(v_ / k); }
  constexpr double operator/(Quantity o) const { return v_ / o.v_; }
  Quantity& operator+=(Quantity o) { v_ += o.v_; return *this; }
  Quantity& operator-=(Quantity o) { v_ -= o.v_; return *this; }
  constexpr bool operator<(Quantity o) const { return v_ < o.v_; }
  constexpr bool operator>(Quantity o) const { return v_ > o.v_; }
  constexpr bool operator<=(Quantity o) const { return v_ <= o.v_; }
  constexpr bool operator>=(Quantity o) const { return v_ >= o.v_; }
  constexpr bool operator==(Quantity o) const { return v_ == o.v_; }
  constexpr bool operator!=(Quantity o) const { return v_ != o.v_; }
 private:
  double v_ = 0.0;
};
template <class Tag>
constexpr Quantity<Tag> operator*(double k, Quantity<Tag> q) { return q * k; }

struct BytesTag {};
struct FlopsTag {};
struct BandwidthTag {};   // bytes per second
struct FlopRateTag {};    // FLOP per second
struct SecondsTag {};     // wall/report seconds (not simulated kernel time)

using Bytes = Quantity<BytesTag>;
using Flops = Quantity<FlopsTag>;
using Bandwidth = Quantity<BandwidthTag>;
using FlopRate = Quantity<FlopRateTag>;
using Seconds = Quantity<SecondsTag>;

// Named constructors: the only way to make a quantity from a number with a unit.
constexpr Bytes bytes(double b) { return Bytes(b); }
constexpr Bytes kib(double x) { return Bytes(x * 1024.0); }
constexpr Bytes mib(double x) { return Bytes(x * 1024.0 * 1024.0); }
constexpr Bytes gib(double x) { return Bytes(x * 1024.0 * 1024.0 * 1024.0); }
constexpr Bytes gigabytes(double x) { return Bytes(x * 1e9); }
constexpr Flops flops(double f) { return Flops(f); }
constexpr Bandwidth gigabytes_per_s(double x) { return Bandwidth(x * 1e9); }
constexpr Bandwidth gibibytes_per_s(double x) { return Bandwidth(x * 1024.0 * 1024.0 * 1024.0); }
constexpr Bandwidth gigabits_per_s(double x) { return Bandwidth(x * 1e9 / 8.0); }
constexpr FlopRate teraflops_per_s(double x) { return FlopRate(x * 1e12); }
constexpr Seconds seconds(double s) { return Seconds(s); }

// Cross-unit arithmetic that has a physical meaning.
constexpr Seconds operator/(Bytes b, Bandwidth bw) { return Seconds(b.base() / bw.base()); }
constexpr Seconds operator/(Flops f, FlopRate r) { return Seconds(f.base() / r.base()); }
constexpr Bytes operator*(Bandwidth bw, Seconds s) { return Bytes(bw.base() * s.base()); }
constexpr FlopRate operator/(Flops f, Seconds s) { return FlopRate(f.base() / s.base()); }
constexpr Bandwidth operator/(Bytes b, Seconds s) { return Bandwidth(b.base() / s.base()); }

// Read-out helpers for reports, naming the unit they return.
constexpr double in_gib(Bytes b) { return b.base() / (1024.0 * 1024.0 * 1024.0); }
constexpr double in_mib(Bytes b) { return b.base() / (1024.0 * 1024.0); }
constexpr double in_gb(Bytes b) { return b.base() / 1e9; }
constexpr double in_tflops(Flops f) { return f.base() / 1e12; }
constexpr double in_gbps(Bandwidth b) { return b.base() / 1e9; }
constexpr double in_tflops_per_s(FlopRate r) { return r.base() / 1e12; }

}  // namespace trnsim
