// op_timer.hpp — simulated duration of one op on one core, memoised by
// (hardware fingerprint, op shape key). All cores of the chip run the same op at once
// (TP ranks and DP replicas execute identical programs), so HBM is shared as in reality.
// Must be called outside a running simulation (it drives sc_start itself).
#pragma once
#include <array>
#include <string>
#include <unordered_map>

#include "chip.hpp"
#include "hw_spec.hpp"
#include "op_cache_file.hpp"
#include "program.hpp"
#include "trnsim/op.hpp"

namespace trnsim {

class OpTimer {
 public:
  explicit OpTimer(Chip& chip) : chip_(chip) {}
  void use(const HwSpec& hw);
  const OpTiming& time(const Op& op);
  // The memoised timing of `op` on the hardware in use, or null if it is not memoised yet: a
  // read that never simulates, safe from several threads while no thread calls time() or use().
  const OpTiming* find(const Op& op) const {
    auto f = fast_now_->find(op.shape());
    return f == fast_now_->end() ? nullptr : f->second;
  }
  size_t simulated() const { return misses_; }
  size_t lookups() const { return lookups_; }
  // Persistent cache: entries are keyed by fingerprint|shape, values exact; the
  // file format and its checks are op_cache_file.hpp's (a damaged file is a ConfigError).
  void load_cache(const std::string& file);
  void save_cache(const std::string& file) const;
  // Runs `p` on the active cores from the current time and returns core 0's timing.
  OpTiming run_program(const Program& p, int cores);

 private:
  Chip& chip_;
  const HwSpec* hw_ = nullptr;
  std::string fingerprint_;
  OpTimingMap cache_;  // "fingerprint|shape key" -> timing (persistent form)
  // Fast front: per hardware fingerprint, shape -> entry of cache_ (node addresses are stable).
  std::unordered_map<std::string, std::unordered_map<OpShape, const OpTiming*, OpShapeHash>> fast_;
  std::unordered_map<OpShape, const OpTiming*, OpShapeHash>* fast_now_ = nullptr;
  size_t misses_ = 0, lookups_ = 0;
};

}  // namespace trnsim
