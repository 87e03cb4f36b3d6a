// chip.hpp — thin top module: up to kMaxCores cores wired to one shared HBM target.
// Elaborated once per process; parameters are loaded per hardware description, so one
// elaboration serves every hw file a process needs (tests, calibration).
#pragma once
#include <memory>
#include <systemc>
#include <vector>

#include "core_model.hpp"
#include "hbm.hpp"
#include "hw_spec.hpp"

namespace trnsim {

class Chip : public sc_core::sc_module {
 public:
  static constexpr int kMaxCores = 8;
  explicit Chip(sc_core::sc_module_name name);
  void configure(const HwSpec& hw);
  CoreModel& core(int i) { return *cores_[static_cast<size_t>(i)]; }
  Hbm& hbm() { return hbm_; }
  int active_cores() const { return active_; }

 private:
  Hbm hbm_;
  std::vector<std::unique_ptr<CoreModel>> cores_;
  int active_ = 1;
};

}  // namespace trnsim
