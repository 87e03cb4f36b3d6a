// fnv_hash.hpp — FNV-1a 64, the one non-cryptographic hash trnsim uses where a value must be
// the same across runs and machines (std::hash is not): op-shape memo keys, the op-cache
// checksum, sweep identities.
#pragma once
#include <cstdint>
#include <string_view>

namespace trnsim {

constexpr uint64_t kFnvOffset = 1469598103934665603ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

// Folds one 64-bit word into h (word-wise FNV-1a, for keys made of integers).
constexpr uint64_t fnv1a_mix(uint64_t h, uint64_t v) { return (h ^ v) * kFnvPrime; }

// Byte-wise FNV-1a 64 of s.
constexpr uint64_t fnv1a64(std::string_view s) {
  uint64_t h = kFnvOffset;
  for (unsigned char c : s) h = fnv1a_mix(h, c);
  return h;
}

}  // namespace trnsim
