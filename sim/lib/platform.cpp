// platform.cpp — process-wide elaboration (see platform.hpp).
#include "platform.hpp"

namespace trnsim {

Platform::Platform() : chip_("chip"), fabric_("fabric"), timer_(chip_) {
  // Silence the kernel's banner-level info; keep warnings.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

Platform& Platform::instance() {
  static Platform p;
  return p;
}

void Platform::configure(const HwSpec& hw) {
  timer_.use(hw);
  fabric_.configure(hw);
}

}  // namespace trnsim
