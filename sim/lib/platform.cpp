// platform.cpp — process-wide elaboration (see platform.hpp).
#include "platform.hpp"

#include "run_kernel.hpp"

namespace trnsim {

Platform::Platform() : chip_("chip"), fabric_("fabric"), timer_(chip_) {
  // Silence the kernel's banner-level info; keep warnings.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

Platform& Platform::instance() {
  static Platform* p = [] {
    auto* made = new Platform();
    // Finish elaboration and run the initialisation phase now, so every engine thread is
    // already waiting for work before the first program is started.
    run_kernel(sc_core::SC_ZERO_TIME);
    return made;
  }();
  return *p;
}

void Platform::configure(const HwSpec& hw) {
  timer_.use(hw);
  fabric_.configure(hw);
}

double idle_collective_seconds(const HwSpec& hw, const CollectiveCall& call) {
  Platform& platform = Platform::instance();
  auto algo = make_collective(hw.collectives.inter_algorithm, hw.collectives.intra_algorithm);
  double took = 0;
  platform.threads().run([&] {
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    algo->run(platform.fabric(), call);
    took = (sc_core::sc_time_stamp() - t0).to_seconds();
  });
  run_kernel();
  return took;
}

}  // namespace trnsim
