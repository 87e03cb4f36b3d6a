// platform.cpp — process-wide elaboration (see platform.hpp).
#include "platform.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include "run_kernel.hpp"
#include "topology.hpp"

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

namespace {
double idle_seconds_as_modelled(const HwSpec& hw, const CollectiveCall& call) {
  Platform& platform = Platform::instance();
  auto algo = make_collective(hw.collectives.algorithm(), hw.collectives.intra_algorithm);
  double took = 0;
  platform.threads().run([&] {
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    algo->run(platform.fabric(), call);
    took = (sc_core::sc_time_stamp() - t0).to_seconds();
  });
  run_kernel();
  return took;
}

struct IdleLine {
  double latency_s = 0, seconds_per_byte = 0;
};
using LineKey = std::tuple<std::string, int, int>;  // hardware (with its fabric), kind, nodes
std::map<LineKey, IdleLine>& line_memo() {
  static std::map<LineKey, IdleLine> memo;
  return memo;
}
LineKey line_key(const HwSpec& hw, OpKind kind, int nodes) {
  return {hw.fingerprint() + hw.fabric_fingerprint(), static_cast<int>(kind), nodes};
}
}  // namespace

void prepare_measured(const HwSpec& hw, OpKind kind, int nodes) {
  if (hw.collectives.measured.empty() || nodes < 2 || !hw.collectives.measured.seconds(kind, nodes, 1 << 20, hw.cores_per_node()))
    return;
  const LineKey key = line_key(hw, kind, nodes);
  if (line_memo().count(key)) return;
  Platform::instance().configure(hw);
  const GroupLayout whole = layout_group(hw, 1, nodes * hw.cores_per_node());
  const double s1 = 64.0 * (1 << 20), s2 = 1024.0 * (1 << 20);
  const double t1 = idle_seconds_as_modelled(hw, {kind, Bytes(s1), whole, ExpertRouting{}});
  const double t2 = idle_seconds_as_modelled(hw, {kind, Bytes(s2), whole, ExpertRouting{}});
  const double k = (t2 - t1) / (s2 - s1);
  line_memo()[key] = {t1 - k * s1, k};
}

MeasuredScale measured_scale(const HwSpec& hw, OpKind kind, int nodes, double size_bytes) {
  const MeasuredTable& table = hw.collectives.measured;
  if (table.empty() || nodes < 2 || size_bytes <= 0) return {};
  const auto t = table.seconds(kind, nodes, size_bytes, hw.cores_per_node());
  if (!t) return {};
  const auto it = line_memo().find(line_key(hw, kind, nodes));
  if (it == line_memo().end()) throw std::logic_error("measured_scale: prepare_measured was not run for this collective");
  const IdleLine& line = it->second;
  const double bandwidth_s = line.seconds_per_byte * size_bytes;
  if (bandwidth_s <= 0) return {};
  if (*t >= line.latency_s) return {std::min((*t - line.latency_s) / bandwidth_s, 50.0), 1.0};
  // Faster than the model's latencies: everything but the fixed call overhead by one factor.
  const double call = hw.collectives.call_overhead_s;
  const double k = std::max((*t - call) / (line.latency_s - call + bandwidth_s), 0.02);
  return {k, k};
}

CollectiveCall as_measured(const HwSpec& hw, const CollectiveCall& call) {
  const MeasuredScale m = measured_scale(hw, call.kind, call.layout.nodes, call.size.base());
  if (m.bytes == 1 && m.latency == 1) return call;
  CollectiveCall scaled = call;
  scaled.size = call.size * m.bytes;
  if (m.latency != 1) scaled.layout = call.layout.with_latency_scale(m.latency);
  return scaled;
}

std::string collective_algorithm_for(const HwSpec& hw, const CollectiveCall& call) {
  if (call.kind == OpKind::AllToAll) return "pairwise";  // every algorithm runs all-to-all as one exchange with every peer
  if (call.kind == OpKind::SendRecv) return "p2p";
  if (call.layout.nodes <= 1) return hw.collectives.intra_algorithm;
  prepare_measured(hw, call.kind, call.layout.nodes);
  Platform& platform = Platform::instance();
  platform.configure(hw);
  return make_collective(hw.collectives.algorithm(), hw.collectives.intra_algorithm)->chosen_for(platform.fabric(), as_measured(hw, call));
}

double idle_collective_seconds(const HwSpec& hw, const CollectiveCall& call) {
  prepare_measured(hw, call.kind, call.layout.nodes);
  return idle_seconds_as_modelled(hw, as_measured(hw, call));
}

}  // namespace trnsim
