// chip.cpp — wiring only (see chip.hpp).
#include "chip.hpp"

namespace trnsim {

Chip::Chip(sc_core::sc_module_name name) : sc_module(name), hbm_("hbm") {
  for (int i = 0; i < kMaxCores; ++i) {
    cores_.push_back(std::make_unique<CoreModel>(sc_core::sc_gen_unique_name("core")));
    cores_.back()->hbm_socket.bind(hbm_.socket);
  }
}

void Chip::configure(const HwSpec& hw) {
  active_ = hw.cores_per_chip;
  hbm_.configure(hw.hbm.bandwidth_per_chip);
  for (auto& c : cores_) c->configure(hw.dma.total(), mib(1));
}

}  // namespace trnsim
