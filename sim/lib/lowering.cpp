// lowering.cpp — see lowering.hpp for the model these functions implement.
#include "lowering.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim_time.hpp"

namespace trnsim {
namespace {

constexpr int kMaxUnits = 128;  // work units per op; beyond this, consecutive units merge

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Unit {
  double tensor_cycles = 0;
  double evict_elems = 0;
  double load_bytes = 0, store_bytes = 0;
  int load_instrs = 0, store_instrs = 0;  // DMA descriptors (each pays the DMA latency)
  double elems = 0;                        // vector-class ops
};

void merge_units(std::vector<Unit>& units) {
  if (static_cast<int>(units.size()) <= kMaxUnits) return;
  std::vector<Unit> merged;
  const size_t per = (units.size() + kMaxUnits - 1) / kMaxUnits;
  for (size_t i = 0; i < units.size(); i += per) {
    Unit g;
    for (size_t k = i; k < std::min(units.size(), i + per); ++k) {
      g.tensor_cycles += units[k].tensor_cycles;
      g.evict_elems += units[k].evict_elems;
      g.load_bytes += units[k].load_bytes;
      g.store_bytes += units[k].store_bytes;
      g.load_instrs += units[k].load_instrs;
      g.store_instrs += units[k].store_instrs;
      g.elems += units[k].elems;
    }
    merged.push_back(g);
  }
  units.swap(merged);
}

// Each DMA descriptor pays a fixed latency before its bytes move; the core's DMA engines
// work on independent descriptors in parallel, so n descriptors cost one latency plus
// (n - 1) latencies shared among the engines.
sc_core::sc_time dma_latency(const HwSpec& hw, int instrs) {
  if (instrs <= 0) return sc_core::SC_ZERO_TIME;
  return sim_seconds(hw.dma.latency_s * (1.0 + static_cast<double>(instrs - 1) / hw.dma.engines));
}

std::vector<Unit> gemm_units(const Op& op, const HwSpec& hw) {
  const TensorSpec& t = hw.tensor;
  const double dt = dtype_bytes(op.dtype), dto = dtype_bytes(op.out_dtype);
  // Cycles per matmul instruction relative to BF16 (datasheet peak ratio), over the dtype's efficiency.
  // A GEMM of a non-native attention kernel: that kernel's published slowdown on this chip.
  const DType rate = op.bf16_rate ? DType::BF16 : op.dtype;  // the kernel's issue rate (Op::bf16_rate)
  const double slow = t.slowdown(rate) * t.efficiency / t.efficiency_of(rate) * t.attention_slowdown_of(op.attention_kernel);
  const int64_t kpasses = ceil_div(op.k, t.rows);
  const double third = hw.sram.sbuf.base() / 3.0;
  const bool a_resident = static_cast<double>(op.m * op.k * dt) <= third;
  int64_t nb = static_cast<int64_t>(third / static_cast<double>(op.k * dt)) / t.cols * t.cols;
  nb = std::clamp<int64_t>(nb, t.cols, std::max<int64_t>(op.n, t.cols));
  const int64_t blocks = ceil_div(op.n, nb);
  const int64_t mchunks = ceil_div(op.m, t.max_moving);
  std::vector<Unit> units;
  if (t.units > 1) {  // many arrays (GPU SMs): one unit per B block, output tiles spread in waves
    // A tile is tm x tn outputs (a CTA tile); an array computes it in ceil(tn / cols) column
    // passes of max(tm, min_issue) cycles per K slice. Partial last waves and partial tiles at
    // the edges cost full time: wave quantisation.
    // The waves are over the whole GEMM's tiles (the GPU schedules every CTA of the kernel); the
    // L2 blocks below only pace the loads, each taking its share of the compute. Like cuBLAS's
    // heuristic, the library picks the tile (the largest, or halved in M and / or N) that finishes
    // first, so small GEMMs are not stuck with one under-filled wave of large tiles.
    const int64_t tm0 = t.tile_m > 0 ? t.tile_m : t.max_moving, tn0 = t.output_tile_n();
    double total_cycles = 0;
    int64_t tm = tm0, tn = tn0;  // the tile the library picks
    // (Tiles below 128 x 64 are left out: they cannot keep the tensor cores at full rate.)
    for (auto [fm, fn] : {std::pair<int64_t, int64_t>{1, 1}, {2, 1}, {1, 2}, {2, 2}}) {
      const int64_t m_ = std::min<int64_t>(std::max<int64_t>(tm0 / fm, t.min_issue_cycles), op.m);
      const int64_t n_ = std::min<int64_t>(std::max<int64_t>(tn0 / fn, t.cols), op.n);
      const int64_t tiles = op.batch * ceil_div(op.m, m_) * ceil_div(op.n, n_);
      const double c = static_cast<double>(ceil_div(tiles, t.units) * kpasses * ceil_div(n_, t.cols)) *
                       static_cast<double>(std::max<int64_t>(m_, t.min_issue_cycles));
      if (total_cycles == 0 || c < total_cycles) total_cycles = c, tm = m_, tn = n_;
    }
    total_cycles *= slow / t.efficiency;
    // HBM traffic: the cheaper of two schedules a GEMM library can run. (1) L2 blocks of B columns
    // (nb, as for a NeuronCore's SBUF): B read once, A once if it fits the L2 share, else once per
    // block. (2) Waves of CTA tiles: every CTA streams its A row panel (tm x K) and B column panel
    // (K x tn); the CTAs of one wave (one per array) cover a near-square block of wm x wn tiles and
    // share their panels through L2, so a wave reads wm A panels and wn B panels once; an operand
    // that fits the L2 share is read once. (1) is cheap for short K; for a long K (a weight gradient
    // over a micro-batch's tokens) its blocks shrink to one array's width and A is re-read per
    // block, where (2) reads each operand a few times. Per batch element.
    const int64_t gm = ceil_div(op.m, tm), gn = ceil_div(op.n, tn);
    int64_t wm = std::min<int64_t>(gm, std::max<int64_t>(1, static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(t.units))))));
    const int64_t wn = std::min<int64_t>(gn, ceil_div(t.units, wm));
    wm = std::min<int64_t>(gm, ceil_div(t.units, wn));
    const double waves = std::max(1.0, static_cast<double>(gm * gn) / static_cast<double>(t.units));
    const double a_bytes = static_cast<double>(op.m * op.k) * dt, b_bytes = static_cast<double>(op.k * op.n) * dt;
    const double a_traffic =
        op.onchip_in ? 0.0
                     : (a_resident ? a_bytes : std::max(a_bytes, waves * static_cast<double>(wm * tm * op.k) * dt));
    const double b_traffic = b_bytes <= third ? b_bytes : std::max(b_bytes, waves * static_cast<double>(wn * tn * op.k) * dt);
    const double blocked = (op.onchip_in ? 0.0 : (a_resident ? 1.0 : static_cast<double>(blocks)) * a_bytes) + b_bytes;
    const bool waves_cheaper = a_traffic + b_traffic < blocked;
    const double wave_traffic = static_cast<double>(op.batch) * (a_traffic + b_traffic);
    for (int64_t j = 0; j < blocks; ++j) {
      const int64_t nj = std::min(nb, op.n - j * nb);
      Unit u;
      u.tensor_cycles = total_cycles * static_cast<double>(nj) / static_cast<double>(op.n);
      const bool load_a = (j == 0 || !a_resident) && !op.onchip_in;
      u.load_bytes = waves_cheaper ? wave_traffic * static_cast<double>(nj) / static_cast<double>(op.n)  // paced by the blocks
                                   : static_cast<double>(op.batch * (op.k * nj + (load_a ? op.m * op.k : 0)) * dt);
      u.store_bytes = op.onchip_out ? 0.0 : static_cast<double>(op.batch * op.m * nj) * dto;
      u.evict_elems = static_cast<double>(op.batch * op.m * nj);
      u.load_instrs = 2;
      u.store_instrs = 1;
      units.push_back(u);
    }
    return units;
  }
  // Batched GEMMs of small matrices (attention heads): consecutive batch elements that
  // fit a third of SBUF together form one unit, moved by one strided descriptor per operand.
  const double per_elem = static_cast<double>(op.m * op.k + op.k * op.n) * dt + static_cast<double>(op.m * op.n) * dto;
  const int64_t group = (op.batch > 1 && blocks == 1 && mchunks == 1)
                            ? std::clamp<int64_t>(static_cast<int64_t>(third / per_elem), 1, op.batch)
                            : 1;
  for (int64_t b = 0; b < op.batch; ++b)
    for (int64_t j = 0; j < blocks; ++j) {
      const int64_t nj = std::min(nb, op.n - j * nb);
      const int64_t ntiles = ceil_div(nj, t.cols);
      for (int64_t i = 0; i < mchunks; ++i) {
        const int64_t mi = std::min<int64_t>(t.max_moving, op.m - i * t.max_moving);
        Unit u;
        u.tensor_cycles = static_cast<double>(ntiles * kpasses) *
                          static_cast<double>(std::max<int64_t>(mi, t.min_issue_cycles)) * slow / t.efficiency +
                          hw.sram.access_overhead_cycles;
        const bool load_a = (j == 0 || !a_resident) && !op.onchip_in;
        u.load_bytes = static_cast<double>(((load_a ? mi * op.k : 0) + (i == 0 ? op.k * nj : 0)) * dt);
        u.load_instrs = (load_a ? 1 : 0) + (i == 0 ? 1 : 0);
        u.store_bytes = op.onchip_out ? 0.0 : static_cast<double>(mi * nj) * dto;
        u.store_instrs = op.onchip_out ? 0 : 1;
        u.evict_elems = static_cast<double>(mi * nj);
        if (group > 1 && b % group != 0) {  // join the current group of batch elements
          Unit& g = units.back();
          g.tensor_cycles += u.tensor_cycles - hw.sram.access_overhead_cycles;
          g.load_bytes += u.load_bytes;
          g.store_bytes += u.store_bytes;
          g.evict_elems += u.evict_elems;
          continue;
        }
        units.push_back(u);
      }
    }
  return units;
}

void lower_gemm(const Op& op, const HwSpec& hw, Program& p) {
  auto units = gemm_units(op, hw);
  merge_units(units);
  const int sL = p.new_semaphore(), sT = p.new_semaphore(), sEv = p.new_semaphore(), sEs = p.new_semaphore();
  const bool evict = hw.sram.psum.base() > 0;
  const bool scalar = hw.scalar.present;
  int nv = 0, ns = 0;
  std::vector<std::pair<int, int>> evict_of(units.size());  // (sem, count) that marks unit u evicted
  for (size_t u = 0; u < units.size(); ++u) {
    const auto& w = units[u];
    const int iu = static_cast<int>(u);
    Instruction ld;
    ld.busy = dma_latency(hw, w.load_instrs);
    ld.bytes = Bytes(w.load_bytes);
    if (iu >= 2) ld.waits.push_back({sT, iu - 1});  // buffer of unit u-2 free
    ld.signal = sL;
    p.q(Queue::DmaLoad).push_back(ld);

    Instruction te;
    te.busy = sim_cycles(w.tensor_cycles, hw.tensor.clock_hz);
    te.waits.push_back({sL, iu + 1});
    if (evict && iu >= 2) te.waits.push_back({evict_of[u - 2].first, evict_of[u - 2].second});
    te.signal = sT;
    p.q(Queue::Tensor).push_back(te);

    Instruction st;
    st.bytes = Bytes(w.store_bytes);
    st.busy = dma_latency(hw, w.store_instrs);
    if (evict) {
      const bool on_scalar = scalar && (u % 2 == 1);
      const LaneEngineSpec& e = on_scalar ? hw.scalar : hw.vector;
      Instruction ev;
      ev.busy = sim_cycles(w.evict_elems / (e.lanes * e.elems_per_lane_cycle) + e.overhead_cycles, e.clock_hz);
      ev.waits.push_back({sT, iu + 1});
      ev.signal = on_scalar ? sEs : sEv;
      evict_of[u] = {ev.signal, on_scalar ? ++ns : ++nv};
      p.q(on_scalar ? Queue::Scalar : Queue::Vector).push_back(ev);
      st.waits.push_back({evict_of[u].first, evict_of[u].second});
    } else {
      st.waits.push_back({sT, iu + 1});
    }
    p.q(Queue::DmaStore).push_back(st);
  }
}

void lower_streaming(const Op& op, const HwSpec& hw, Program& p) {
  const LaneEngineSpec& vec = hw.vector;
  const int64_t per_part = ceil_div(std::max<int64_t>(op.elements, 1), vec.lanes);
  const int64_t free_size = std::min<int64_t>(per_part, 8192);
  const int64_t tiles = ceil_div(per_part, free_size);
  std::vector<Unit> units;
  for (int64_t i = 0; i < tiles; ++i) {
    Unit u;
    u.elems = static_cast<double>(std::min(free_size, per_part - i * free_size));
    const double frac = u.elems / static_cast<double>(per_part);
    u.load_bytes = op.onchip_in ? 0.0 : op.bytes_read.base() * frac;
    u.store_bytes = op.onchip_out ? 0.0 : op.bytes_written.base() * frac;
    u.load_instrs = op.onchip_in ? 0 : 1;
    u.store_instrs = op.onchip_out ? 0 : 1;
    units.push_back(u);
  }
  merge_units(units);
  const bool gpsimd_op = op.engine == Engine::GpSimd && hw.gpsimd.present;
  const bool dma_only = op.kind == OpKind::Embedding && op.engine == Engine::Dma;
  const int sL = p.new_semaphore(), sC = p.new_semaphore();
  const double in_factor = std::min(op.inputs, 2);
  for (size_t u = 0; u < units.size(); ++u) {
    const auto& w = units[u];
    const int iu = static_cast<int>(u);
    Instruction ld;
    ld.busy = dma_latency(hw, w.load_instrs);
    ld.bytes = Bytes(w.load_bytes);
    if (iu >= 2) ld.waits.push_back({sC, iu - 1});
    ld.signal = sL;
    p.q(Queue::DmaLoad).push_back(ld);

    // Compute chain of this tile: vector passes, then the transcendental pass.
    std::vector<std::pair<Queue, sc_core::sc_time>> chain;
    auto pass = [&](const LaneEngineSpec& e, double factor) {
      return sim_cycles(w.elems * factor / e.elems_per_lane_cycle + e.overhead_cycles, e.clock_hz);
    };
    if (gpsimd_op) chain.push_back({Queue::GpSimd, pass(hw.gpsimd, 2.0)});
    else if (!dma_only) {
      const int passes = hw.scalar.present && op.passes_with_activation_engine >= 0 ? op.passes_with_activation_engine : op.passes;
      for (int k = 0; k < passes; ++k) chain.push_back({Queue::Vector, pass(vec, in_factor)});
      if (op.transcendental) {
        if (hw.scalar.present) chain.push_back({Queue::Scalar, pass(hw.scalar, 1.0)});
        else chain.push_back({Queue::Vector, pass(vec, vec.transcendental_lane_cycles)});
      }
    }
    if (chain.empty()) chain.push_back({Queue::GpSimd, sc_core::SC_ZERO_TIME});
    int prev_sem = sL, prev_count = iu + 1;
    for (size_t c = 0; c < chain.size(); ++c) {
      Instruction ins;
      ins.busy = chain[c].second;
      ins.waits.push_back({prev_sem, prev_count});
      const bool last = c + 1 == chain.size();
      if (last) {
        ins.signal = sC;
      } else {
        ins.signal = p.new_semaphore();
        prev_sem = ins.signal;
        prev_count = 1;
      }
      p.q(chain[c].first).push_back(ins);
    }
    Instruction st;
    st.bytes = Bytes(w.store_bytes);
    st.busy = dma_latency(hw, w.store_instrs);
    st.waits.push_back({sC, iu + 1});
    p.q(Queue::DmaStore).push_back(st);
  }
}

// An op of a fused attention kernel on a chip that publishes the kernel's rate: its GEMM work at
// that rate (per core), times the implementation's slowdown; its softmax passes run inside the
// kernel's measured time (zero here). One tensor-engine instruction: the kernel keeps Q, K, V
// tiles and the scores on chip, and its operand traffic is part of the measured rate.
void lower_fused_attention(const Op& op, const HwSpec& hw, Program& p) {
  Instruction te;
  if (op.kind == OpKind::Gemm) {
    const double per_core = hw.tensor.fused_attention_tflops * 1e12 / static_cast<double>(hw.cores_per_chip);
    te.busy = sim_seconds(op.flops.base() / per_core * hw.tensor.attention_slowdown_of(op.attention_kernel));
  }
  p.q(Queue::Tensor).push_back(te);
}

}  // namespace

double gemm_tensor_cycles(const Op& op, const TensorSpec& t) {
  const int64_t kpasses = ceil_div(op.k, t.rows);
  double cycles = 0;
  const int64_t mchunks = ceil_div(op.m, t.max_moving);
  for (int64_t i = 0; i < mchunks; ++i) {
    const int64_t mi = std::min<int64_t>(t.max_moving, op.m - i * t.max_moving);
    cycles += static_cast<double>(ceil_div(op.n, t.cols) * kpasses * std::max<int64_t>(mi, t.min_issue_cycles));
  }
  return cycles * static_cast<double>(op.batch);
}

Program lower_op(const Op& op, const HwSpec& hw) {
  if (op.is_collective()) throw std::logic_error("lower_op: collectives run on links, not on a core");
  Program p;
  if (op.fused_attention && hw.tensor.fused_attention_tflops > 0) {
    lower_fused_attention(op, hw, p);
    return p;
  }
  if (op.kind == OpKind::Gemm) lower_gemm(op, hw, p);
  else lower_streaming(op, hw, p);
  return p;
}

}  // namespace trnsim
