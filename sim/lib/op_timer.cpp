// op_timer.cpp — memoised op simulation (see op_timer.hpp).
#include "op_timer.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "lowering.hpp"
#include "run_kernel.hpp"

namespace trnsim {

void OpTimer::use(const HwSpec& hw) {
  hw_ = &hw;
  fingerprint_ = hw.fingerprint();
  fast_now_ = &fast_[fingerprint_];
  chip_.configure(hw);
}

OpTiming OpTimer::run_program(const Program& p, int cores) {
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  for (int c = 0; c < cores; ++c) chip_.core(c).start(p);
  run_kernel();
  OpTiming t;
  t.seconds = (sc_core::sc_time_stamp() - t0).to_seconds();
  const auto& busy = chip_.core(0).busy();
  for (int q = 0; q < kQueues; ++q) t.busy_s[static_cast<size_t>(q)] = busy[static_cast<size_t>(q)].to_seconds();
  return t;
}

const OpTiming& OpTimer::time(const Op& op) {
  ++lookups_;
  const OpShape shape = op.shape();
  auto f = fast_now_->find(shape);
  if (f != fast_now_->end()) return *f->second;
  const std::string key = fingerprint_ + "|" + op.shape_key();
  auto it = cache_.find(key);
  if (it == cache_.end()) {  // neither in memory nor in a loaded cache file: simulate it
    ++misses_;
    it = cache_.emplace(key, run_program(lower_op(op, *hw_), hw_->cores_per_chip)).first;
  }
  fast_now_->emplace(shape, &it->second);
  return it->second;
}

void OpTimer::load_cache(const std::string& file) { read_op_cache_or_warn(file, cache_); }

void OpTimer::save_cache(const std::string& file) const { write_op_cache(file, cache_); }

}  // namespace trnsim
