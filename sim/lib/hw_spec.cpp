// hw_spec.cpp — strict reader for hw/<instance>.json. Each section must carry a
// "source" string: an unsourced hardware figure is a configuration error.
#include "hw_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <functional>

#include "trnsim/json_reader.hpp"

namespace trnsim {

const char* to_string(Topology t) {
  switch (t) {
    case Topology::Torus: return "torus";
    case Topology::Ring: return "ring";
    case Topology::AllToAll: return "all-to-all";
    case Topology::Switch: return "switch";
  }
  return "?";
}

namespace {

void require_source(JsonReader& r) {
  std::string s = r.string("source");
  if (s.size() < 8) r.fail("source", "every hardware figure needs a real source (document, page, or 'estimate: why')");
}

// `transcendentals`: the engine runs exponentials itself where the core has no activation engine
// (the vector engine), so its file may give their cost.
LaneEngineSpec read_lane_engine(JsonReader& parent, const std::string& key, bool transcendentals = false) {
  LaneEngineSpec e;
  auto r = parent.child(key);
  e.present = r.boolean("present");
  if (e.present) {
    e.lanes = static_cast<int>(r.integer("lanes", 1, 1 << 20));
    e.clock_hz = r.number("clock_GHz", 0.05, 10.0) * 1e9;
    e.overhead_cycles = static_cast<int>(r.integer("overhead_cycles", 0, 100000));
    e.elems_per_lane_cycle = r.number_or("elements_per_lane_cycle", 1.0, 0.01, 64.0);
    if (transcendentals) e.transcendental_lane_cycles = r.number_or("transcendental_lane_cycles", 4.0, 0.25, 64.0);
  }
  require_source(r);
  r.ignore("notes");
  r.finish();
  return e;
}

}  // namespace

HwSpec load_hw_spec(const std::string& file) { return hw_spec_from_json(load_json_file(file), file); }

HwSpec hw_spec_from_json(const nlohmann::json& j, const std::string& file) {
  JsonReader r(j, file);
  r.ignore("$schema");
  HwSpec h;
  h.file = file;
  h.instance = r.string("instance");
  r.ignore("source");
  r.ignore("notes");
  {
    auto n = r.child("node");
    h.chips_per_node = static_cast<int>(n.integer("chips", 1, 1024));
    h.cores_per_chip = static_cast<int>(n.integer("cores_per_chip", 1, 8));
    require_source(n);
    n.finish();
  }
  {
    auto t = r.child("tensor");
    h.tensor.rows = static_cast<int>(t.integer("rows", 1, 4096));
    h.tensor.cols = static_cast<int>(t.integer("cols", 1, 4096));
    h.tensor.units = static_cast<int>(t.integer("units", 1, 1024));
    h.tensor.clock_hz = t.number("clock_GHz", 0.05, 10.0) * 1e9;
    h.tensor.min_issue_cycles = static_cast<int>(t.integer("min_issue_cycles", 1, 100000));
    h.tensor.max_moving = static_cast<int>(t.integer("max_moving", 1, 1 << 16));
    h.tensor.tile_m = static_cast<int>(t.integer_or("tile_m", 0, 0, 1 << 16));
    h.tensor.tile_n = static_cast<int>(t.integer_or("tile_n", 0, 0, 1 << 16));
    h.tensor.fp32_slowdown = t.number("fp32_slowdown", 1.0, 64.0);
    h.tensor.efficiency = t.number("efficiency", 0.05, 1.0);
    h.tensor.efficiency_low_precision = t.number_or("efficiency_low_precision", 0.0, 0.05, 1.0);
    const double array_tflops = h.tensor.peak_bf16().base() * h.cores_per_chip / 1e12;
    h.tensor.peak_tflops[static_cast<int>(DType::BF16)] = array_tflops;
    if (t.has("peak_TFLOPS_per_chip")) {
      auto pk = t.child("peak_TFLOPS_per_chip");
      const double bf16 = pk.number("bf16", 1.0, 1e6);
      // The array model (rows x cols x units x clock) must be the chip the datasheet describes.
      if (std::abs(bf16 / array_tflops - 1.0) > 0.06)
        pk.fail("bf16", fmt::format("datasheet {:.0f} TFLOPS but the tensor array gives {:.0f} (rows x cols x units x "
                                    "clock x 2 x cores_per_chip); fix the array or the figure",
                                    bf16, array_tflops));
      h.tensor.peak_tflops[static_cast<int>(DType::BF16)] = bf16;
      for (DType d : kLowPrecisionDTypes)
        h.tensor.peak_tflops[static_cast<int>(d)] = pk.number_or(to_string(d), 0.0, 1.0, 1e6);
      require_source(pk);
      pk.ignore("notes");
      pk.finish();
    }
    if (t.has("attention_slowdown")) {
      auto a = t.child("attention_slowdown");
      for (AttentionKernel k : {AttentionKernel::Flash2, AttentionKernel::Flash1})
        h.tensor.attention_slowdown[static_cast<int>(k)] = a.number_or(to_string(k), 0.0, 1.0, 10.0);
      require_source(a);
      a.ignore("notes");
      a.finish();
    }
    if (t.has("fused_attention")) {
      auto a = t.child("fused_attention");
      const double bf16 = h.tensor.peak_tflops[static_cast<int>(DType::BF16)];
      h.tensor.fused_attention_tflops = a.number("TFLOPS_per_chip", 1.0, 1e6);
      if (h.tensor.fused_attention_tflops > bf16)
        a.fail("TFLOPS_per_chip", fmt::format("{:.0f} TFLOPS is above the chip's BF16 peak of {:.0f}; an attention kernel "
                                              "cannot beat the tensor array: check the figure", h.tensor.fused_attention_tflops, bf16));
      require_source(a);
      a.ignore("notes");
      a.finish();
    }
    h.tensor.fp8_any_layout = t.boolean_or("fp8_any_layout", false);
    if (h.tensor.fp8_any_layout && !h.tensor.supports(DType::FP8))
      t.fail("fp8_any_layout", "the chip lists no fp8 rate in peak_TFLOPS_per_chip; remove it");
    if (h.tensor.efficiency_low_precision > 0 && !h.tensor.supports(DType::FP8) && !h.tensor.supports(DType::MXFP8) &&
        !h.tensor.supports(DType::NVFP4))
      t.fail("efficiency_low_precision", "the chip lists no fp8 / mxfp8 / nvfp4 rate in peak_TFLOPS_per_chip; remove it");
    require_source(t);
    t.ignore("notes");
    t.finish();
  }
  h.vector = read_lane_engine(r, "vector", true);
  h.scalar = read_lane_engine(r, "scalar");
  h.gpsimd = read_lane_engine(r, "gpsimd");
  if (!h.vector.present) r.fail("vector", "every core needs a vector engine (set present: true)");
  {
    auto s = r.child("sram");
    h.sram.sbuf = mib(s.number("sbuf_MiB", 0.1, 1 << 16));
    h.sram.psum = mib(s.number("psum_MiB", 0.0, 1 << 16));
    h.sram.access_overhead_cycles = static_cast<int>(s.integer("access_overhead_cycles", 0, 100000));
    require_source(s);
    s.finish();
  }
  {
    auto d = r.child("dma");
    h.dma.engines = static_cast<int>(d.integer("engines", 1, 1024));
    h.dma.per_engine = gibibytes_per_s(d.number("GiBps_each", 0.01, 1e5));
    h.dma.latency_s = d.number("latency_us", 0.0, 1e4) * 1e-6;
    require_source(d);
    d.finish();
  }
  {
    auto m = r.child("hbm");
    h.hbm.capacity_per_chip = gib(m.number("capacity_GiB_per_chip", 0.1, 1e5));
    h.hbm.bandwidth_per_chip = gigabytes_per_s(m.number("bandwidth_GBps_per_chip", 1, 1e6));
    h.hbm.usable_fraction = m.number("usable_fraction", 0.1, 1.0);
    require_source(m);
    m.ignore("notes");
    m.finish();
  }
  {
    auto i = r.child("intra_node");
    std::string topo = i.choice("topology", {"torus", "ring", "all-to-all", "switch"});
    h.intra.topology = topo == "torus" ? Topology::Torus : topo == "ring" ? Topology::Ring
                     : topo == "all-to-all" ? Topology::AllToAll : Topology::Switch;
    h.intra.dim_x = static_cast<int>(i.integer_or("dim_x", h.chips_per_node, 1, 1024));
    h.intra.dim_y = static_cast<int>(i.integer_or("dim_y", 1, 1, 1024));
    if (h.intra.dim_x * h.intra.dim_y != h.chips_per_node)
      i.fail("dim_x", fmt::format("dim_x * dim_y = {} but the node has {} chips; make the grid cover every chip",
                                  h.intra.dim_x * h.intra.dim_y, h.chips_per_node));
    h.intra.link_bandwidth = gigabytes_per_s(i.number("link_GBps_per_direction", 0.01, 1e6));
    h.intra.link_latency_s = i.number("link_latency_us", 0.0, 1e6) * 1e-6;
    h.intra.onchip_bandwidth = gigabytes_per_s(i.number("onchip_GBps_per_direction", 0.01, 1e6));
    require_source(i);
    i.ignore("notes");
    i.finish();
  }
  {
    auto e = r.child("inter_node");
    h.inter.nic_bandwidth = gigabits_per_s(e.number("nic_Gbps_per_node", 0.1, 1e6));
    h.inter.latency_s = e.number("latency_us", 0.0, 1e6) * 1e-6;
    require_source(e);
    e.ignore("notes");
    e.finish();
  }
  if (r.has("scaleup_domain")) {
    auto d = r.child("scaleup_domain");
    h.scaleup.nodes = static_cast<int>(d.integer("nodes", 1, 4096));
    h.scaleup.node_bandwidth = gigabytes_per_s(d.number("node_GBps_per_direction", 0.01, 1e7));
    h.scaleup.latency_s = d.number("latency_us", 0.0, 1e6) * 1e-6;
    require_source(d);
    d.ignore("notes");
    d.finish();
  }
  {
    auto c = r.child("collectives");
    h.collectives.intra_algorithm = c.choice("intra_algorithm", {"ring", "bidirectional-ring", "direct"});
    h.collectives.inter_algorithm =
        c.choice("inter_algorithm", {"hierarchical", "pipelined", "ring", "ring+hierarchical", "ring+pipelined"});
    h.collectives.step_overhead_s = c.number("step_overhead_us", 0.0, 1e6) * 1e-6;
    h.collectives.call_overhead_s = c.number_or("call_overhead_us", 0.0, 0.0, 1e6) * 1e-6;
    h.collectives.intra_bandwidth_fraction = c.number_or("intra_bandwidth_fraction", 1.0, 0.05, 1.0);
    h.collectives.inter_bandwidth_fraction = c.number_or("inter_bandwidth_fraction", 1.0, 0.05, 1.0);
    h.collectives.compute_units = static_cast<int>(c.integer_or("compute_units", 0, 0, 1 << 20));
    if (c.has("measured_table")) {  // a cluster's own nccl-tests / nccom-test results (measured_collectives.hpp)
      const std::string table = c.string("measured_table");
      try {
        h.collectives.measured.file = table;
        h.collectives.measured.rows = rows_for(load_collective_table(table), h.instance);
      } catch (const ConfigError& e) {
        c.fail("measured_table", e.what());
      }
      if (h.collectives.measured.rows.empty())
        c.fail("measured_table", fmt::format("{} has no row for {} (its hardware column names other instances)", table, h.instance));
    }
    if (h.collectives.compute_units >= h.tensor.units)
      c.fail("compute_units", fmt::format("a collective cannot hold all {} compute units (tensor.units) of the chip; "
                                          "give fewer, or 0 where collectives run on their own engines",
                                          h.tensor.units));
    require_source(c);
    c.ignore("notes");
    c.finish();
  }
  if (r.has("host")) {
    auto hs = r.child("host");
    h.host.dispatch_s = hs.number_or("dispatch_us", 0.0, 0.0, 1e4) * 1e-6;
    h.host.trace_s = hs.number_or("trace_us", 0.0, 0.0, 1e5) * 1e-6;
    // Default mode: stated, or the one whose per-op cost the file gives.
    const std::string fallback = h.host.dispatch_s > 0 ? "eager" : h.host.trace_s > 0 ? "lazy" : "compiled";
    const std::string mode = hs.choice_or("execution", fallback, {"eager", "lazy", "compiled"});
    const Execution e = parse_execution(mode);
    if (e == Execution::Eager && h.host.dispatch_s == 0)
      hs.fail("execution", "\"eager\" needs dispatch_us (the host cost to issue one op)");
    if (e == Execution::Lazy && h.host.trace_s == 0)
      hs.fail("execution", "\"lazy\" needs trace_us (the host cost to trace one op)");
    h.host.execution = e;
    require_source(hs);
    hs.ignore("notes");
    hs.finish();
  }
  if (r.has("cluster")) {  // optional: without it, nodes run identically
    auto cl = r.child("cluster");
    h.cluster.node_spread = cl.number("node_spread", 0.0, 0.5);
    require_source(cl);
    cl.ignore("notes");
    cl.finish();
  }
  {
    auto p = r.child("price");
    h.price.on_demand_per_hour = p.number("on_demand_usd_per_node_hour", 0.0, 1e4);
    h.price.reserved_per_hour = p.number("reserved_usd_per_node_hour", 0.0, 1e4);
    require_source(p);
    p.ignore("notes");
    p.finish();
  }
  {
    auto e = r.child("engines");
    h.concurrent_engines = e.boolean("concurrent");
    if (h.concurrent_engines && h.collectives.compute_units > 0)
      e.fail("concurrent", "collectives.compute_units models kernels sharing one stream of compute units (GPU SMs); "
                           "with concurrent engines set it to 0");
    require_source(e);
    e.finish();
  }
  {
    auto n = r.child("numerics");
    h.stochastic_rounding = n.boolean("stochastic_rounding");
    require_source(n);
    n.finish();
  }
  if (r.has("lnc")) {
    auto l = r.child("lnc");
    const int physical = h.cores_per_chip;
    for (int64_t k : l.integers("allowed", 1, 64)) {
      if (physical % k != 0)
        l.fail("allowed", fmt::format("{} does not divide the {} physical cores per chip; list divisors only", k, physical));
      h.lnc_allowed.push_back(static_cast<int>(k));
    }
    const int def = static_cast<int>(l.integer("default", 1, physical));
    if (std::find(h.lnc_allowed.begin(), h.lnc_allowed.end(), def) == h.lnc_allowed.end())
      l.fail("default", fmt::format("{} is not in allowed", def));
    require_source(l);
    l.ignore("notes");
    l.finish();
    h.set_lnc(def);
  }
  r.finish();
  if (h.collectives.intra_algorithm == "direct" && h.intra.topology != Topology::AllToAll &&
      h.intra.topology != Topology::Switch)
    r.fail("collectives", "intra_algorithm \"direct\" needs an all-to-all or switch topology; use \"ring\"");
  return h;
}

const char* to_string(Execution e) {
  switch (e) {
    case Execution::Eager: return "eager";
    case Execution::Lazy: return "lazy";
    case Execution::Compiled: return "compiled";
  }
  return "?";
}

Execution parse_execution(const std::string& word) {
  return word == "eager" ? Execution::Eager : word == "lazy" ? Execution::Lazy : Execution::Compiled;
}

void HwSpec::set_lnc(int k) {
  const int physical = cores_per_chip * lnc;
  if (k < 1 || physical % k != 0) throw std::logic_error("HwSpec::set_lnc: k must divide the physical cores");
  auto regroup = [&](int& x) { x = x / lnc * k; };
  regroup(tensor.units);
  regroup(vector.lanes);
  regroup(scalar.lanes);
  regroup(gpsimd.lanes);
  regroup(dma.engines);
  sram.sbuf = sram.sbuf * (static_cast<double>(k) / lnc);
  sram.psum = sram.psum * (static_cast<double>(k) / lnc);
  cores_per_chip = physical / k;
  lnc = k;
}

std::string HwSpec::fingerprint() const {
  std::string s = fmt::format(
      "{}|{}x{}|t{}x{}x{}@{}:{}:{}:{}:{}|v{}:{}:{}:{}|s{}:{}:{}:{}|g{}:{}:{}|sram{}:{}:{}|dma{}:{}|hbm{}:{}",
      instance, chips_per_node, cores_per_chip, tensor.rows, tensor.cols, tensor.units, tensor.clock_hz,
      tensor.min_issue_cycles, tensor.max_moving * 100003 + tensor.tile_m * 317 + tensor.tile_n, tensor.fp32_slowdown, tensor.efficiency, vector.present, vector.lanes,
      vector.clock_hz, vector.overhead_cycles, scalar.present, scalar.lanes, scalar.clock_hz, scalar.overhead_cycles,
      gpsimd.present, gpsimd.lanes, gpsimd.clock_hz, sram.sbuf.base(), sram.psum.base(), sram.access_overhead_cycles,
      dma.engines, dma.per_engine.base() + dma.latency_s, hbm.capacity_per_chip.base(), hbm.bandwidth_per_chip.base());
  for (int d = 0; d < kDTypes; ++d) s += fmt::format("|{}", tensor.peak_tflops[d]);
  if (tensor.efficiency_low_precision > 0) s += fmt::format("|lp{}", tensor.efficiency_low_precision);
  if (tensor.fp8_any_layout) s += "|fp8any";
  s += fmt::format("|tl{}", vector.transcendental_lane_cycles);
  if (tensor.fused_attention_tflops > 0) s += fmt::format("|fa{}", tensor.fused_attention_tflops);
  for (int k = 1; k < kAttentionKernels; ++k)
    if (tensor.attention_slowdown[k] > 0) s += fmt::format("|a{}:{}", k, tensor.attention_slowdown[k]);
  return fmt::format("{:016x}", std::hash<std::string>{}(s));
}

}  // namespace trnsim

namespace trnsim {
std::string HwSpec::intra_fingerprint() const {
  return fmt::format("|{}:{}x{}:{}:{}:{}:{}|su{}:{}", static_cast<int>(intra.topology), intra.dim_x, intra.dim_y,
                     intra.link_bandwidth.base(), intra.onchip_bandwidth.base(), collectives.intra_algorithm,
                     collectives.intra_bandwidth_fraction, scaleup.nodes, scaleup.node_bandwidth.base());
}

std::string HwSpec::fabric_fingerprint() const {
  return intra_fingerprint() + fmt::format("|l{}|nic{}:{}|su{}|c{}:{}:{}", intra.link_latency_s, inter.nic_bandwidth.base(), inter.latency_s,
                                           scaleup.latency_s, collectives.inter_algorithm, collectives.step_overhead_s,
                                           collectives.call_overhead_s) +
         (collectives.inter_bandwidth_fraction != 1.0 ? fmt::format("|nf{}", collectives.inter_bandwidth_fraction) : std::string()) +
         (collectives.measured.empty() ? std::string() : "|m" + collectives.measured.digest());
}
}  // namespace trnsim
