// sensitivity.cpp — the step re-simulated with one hardware resource at a time improved (see
// sensitivity.hpp).
#include "sensitivity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>

namespace trnsim {

namespace {

std::string gbps(Bandwidth b) { return fmt::format("{:.0f} GB/s", b.base() / 1e9); }

std::string host_figure(const HwSpec& hw) {
  switch (hw.host.execution) {
    case Execution::Eager: return fmt::format("{:.1f} us per op (eager dispatch)", hw.host.dispatch_s * 1e6);
    case Execution::Lazy: return fmt::format("{:.1f} us per op (lazy-tensor trace)", hw.host.trace_s * 1e6);
    case Execution::Compiled: break;
  }
  return "none (compiled graphs)";
}

}  // namespace

const std::vector<HwResource>& hw_resources() {
  static const std::vector<HwResource> all = {
      {"tensor", "tensor engines (matmul, and the fused attention kernel that runs on them): tensor.clock_GHz and "
                 "tensor.fused_attention",
       [](HwSpec& hw, double f) {
         hw.tensor.clock_hz *= f;
         hw.tensor.fused_attention_tflops *= f;  // a published kernel rate (0: none) is the tensor cores' too
       },
       [](const HwSpec& hw) {
         return fmt::format("{:.0f} TFLOP/s BF16 per core at {:.2f} GHz", hw.peak_per_core().base() / 1e12,
                            hw.tensor.clock_hz / 1e9);
       }},
      {"vector", "vector, scalar and GpSimd engines (elementwise, softmax, norms): their clock_GHz",
       [](HwSpec& hw, double f) {
         hw.vector.clock_hz *= f;
         hw.scalar.clock_hz *= f;
         hw.gpsimd.clock_hz *= f;
       },
       [](const HwSpec& hw) { return fmt::format("vector engine at {:.2f} GHz", hw.vector.clock_hz / 1e9); }},
      {"memory", "memory bandwidth: hbm.bandwidth_GBps_per_chip and the DMA engines' rate",
       [](HwSpec& hw, double f) {
         hw.hbm.bandwidth_per_chip = hw.hbm.bandwidth_per_chip * f;
         hw.dma.per_engine = hw.dma.per_engine * f;
       },
       [](const HwSpec& hw) { return fmt::format("{} HBM per chip", gbps(hw.hbm.bandwidth_per_chip)); }},
      {"scale_up", "scale-up links (NVLink / NeuronLink inside the node and the scale-up domain): intra_node and scale_up bandwidths",
       [](HwSpec& hw, double f) {
         hw.intra.link_bandwidth = hw.intra.link_bandwidth * f;
         hw.intra.onchip_bandwidth = hw.intra.onchip_bandwidth * f;
         hw.scaleup.node_bandwidth = hw.scaleup.node_bandwidth * f;
       },
       [](const HwSpec& hw) { return fmt::format("{} per link per direction", gbps(hw.intra.link_bandwidth)); }},
      {"network", "scale-out network (EFA / InfiniBand): inter_node.nic_Gbps_per_node",
       [](HwSpec& hw, double f) { hw.inter.nic_bandwidth = hw.inter.nic_bandwidth * f; },
       [](const HwSpec& hw) { return fmt::format("{:.0f} Gb/s per node", hw.inter.nic_bandwidth.base() * 8 / 1e9); }},
      {"host", "host per-op cost (eager kernel dispatch, lazy-tensor tracing): host.dispatch_us / trace_us",
       [](HwSpec& hw, double f) {
         hw.host.dispatch_s /= f;
         hw.host.trace_s /= f;
       },
       host_figure},
      {"latency", "fixed latencies: link, NIC, scale-up and DMA latencies and the collectives' per-call and per-step costs",
       [](HwSpec& hw, double f) {
         hw.intra.link_latency_s /= f;
         hw.inter.latency_s /= f;
         hw.scaleup.latency_s /= f;
         hw.dma.latency_s /= f;
         hw.collectives.step_overhead_s /= f;
         hw.collectives.call_overhead_s /= f;
       },
       [](const HwSpec& hw) {
         return fmt::format("{:.1f} us link, {:.1f} us NIC, {:.1f} us per collective call", hw.intra.link_latency_s * 1e6,
                            hw.inter.latency_s * 1e6, hw.collectives.call_overhead_s * 1e6);
       }},
  };
  return all;
}

void add_sensitivity(StepReport& report, const Scenario& s, const StepResult& r, double factor) {
  SensitivityFigures sv;
  sv.factor = factor;
  sv.step_time_s = r.step_time_s;
  for (const HwResource& res : hw_resources()) {
    SensitivityFigures::Row row{res.name, res.description, res.figure(s.hw), {}, {}, {}, {}};
    try {
      HwSpec hw = s.hw;
      res.improve(hw, factor);
      const Scenario v = make_scenario(s.workload, s.model, hw, /*allow_oom=*/true);
      const StepResult vr = execute_step(v, StepOptions{});
      row.step_time_s = vr.step_time_s;
      row.change_pct = 100 * (vr.step_time_s / r.step_time_s - 1);
      row.elasticity = std::log(r.step_time_s / vr.step_time_s) / std::log(factor);
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    sv.resources.push_back(row);
  }
  std::stable_sort(sv.resources.begin(), sv.resources.end(), [](const auto& a, const auto& b) {
    return a.elasticity.value_or(-1.0) > b.elasticity.value_or(-1.0);
  });
  report.sensitivity = sv;
}

nlohmann::json sensitivity_json(const SensitivityFigures& sv) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : sv.resources) {
    nlohmann::json row = {{"resource", r.resource}, {"scaled", r.scaled}, {"figure", r.figure}};
    if (r.error) row["error"] = *r.error;
    else row.update({{"step_time_s", *r.step_time_s}, {"change_pct", *r.change_pct}, {"elasticity", *r.elasticity}});
    rows.push_back(row);
  }
  return {{"factor", sv.factor}, {"step_time_s", sv.step_time_s}, {"resources", rows}};
}

std::string sensitivity_text(const SensitivityFigures& sv) {
  const double f = sv.factor;
  std::string o = fmt::format(
      "\nsensitivity: the step with one hardware resource {:.0f} % better (elasticity = ln(step / step with it) / "
      "ln({:g}): the share of the step that scales with it)\n",
      100 * (f - 1), f);
  o += fmt::format("  {:<10}{:>12}{:>11}{:>12}   {}\n", "resource", "step s", "change %", "elasticity", "figure now");
  for (const auto& row : sv.resources) {
    if (row.error) {
      o += fmt::format("  {:<10}  not simulated: {}\n", row.resource, *row.error);
      continue;
    }
    o += fmt::format("  {:<10}{:>12.4f}{:>+11.2f}{:>12.3f}   {}\n", row.resource, *row.step_time_s, *row.change_pct, *row.elasticity,
                     row.figure);
  }
  return o;
}

}  // namespace trnsim
