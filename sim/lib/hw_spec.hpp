// hw_spec.hpp — the *system* description (Calculon's split): one instance type, read
// strictly from hw/<instance>.json. Every figure in those files names its source.
// Quantities carry units (Bytes, Bandwidth, FlopRate); clocks are Hz, latencies seconds.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measured_collectives.hpp"

#include "trnsim/op.hpp"
#include "trnsim/units.hpp"

namespace trnsim {

enum class Topology { Torus, Ring, AllToAll, Switch };
const char* to_string(Topology t);

struct TensorSpec {
  int rows = 128, cols = 128;   // PE array: rows = contraction (K) partitions, cols = stationary free size
  int units = 1;                // independent arrays per core (GPU: SMs)
  double clock_hz = 0;
  int min_issue_cycles = 64;    // back-to-back matmul issue interval floor
  int max_moving = 512;         // moving free size per instruction (one PSUM bank)
  // Many-array devices (GPUs): the output tile one array (SM) computes at a time, M x N (a
  // cuBLAS / CUTLASS CTA tile); tiles run in waves over the arrays. 0: max_moving x cols.
  int tile_m = 0, tile_n = 0;
  // Output columns one array computes per tile (tile_n, else the array's width); a flash kernel
  // steps over its key columns in tiles this wide (app/step/fused_attention_overlap.hpp).
  int output_tile_n() const { return tile_n > 0 ? tile_n : cols; }
  double fp32_slowdown = 4;     // FP32 matmul runs this many times slower than BF16
  double efficiency = 1.0;      // calibrated: achieved fraction of matmul issue slots (see results/calibration.md)
  // The same for GEMMs on FP8 / MXFP8 / NVFP4 operands (a separate fitted parameter: narrower
  // operands leave the array waiting on operand delivery and scaling more often). 0: as BF16.
  double efficiency_low_precision = 0;
  // Datasheet dense peak per chip for each dtype (TFLOPS; 0: the chip has no such GEMM). Only
  // ratios to BF16 are used: the array's BF16 rate comes from rows x cols x units x clock.
  double peak_tflops[kDTypes] = {};
  // How many times longer a non-native attention kernel's GEMMs take than the chip's own fused
  // kernel's (hw file tensor.attention_slowdown, from a published benchmark of both on the chip).
  // 0: no published figure; such a kernel is timed as the native one (the report says so).
  double attention_slowdown[kAttentionKernels] = {};
  // The native fused attention kernel's published rate, forward + backward, per chip (hw file
  // tensor.fused_attention, TFLOPS; 0: none published). With it, a fused-attention op's time is
  // its GEMM work over this rate (its softmax passes add nothing: the measured kernel includes
  // them), times attention_slowdown for another implementation, which then is the ratio of whole
  // kernel times; without it, each op of the kernel is timed as a GEMM or a vector pass.
  double fused_attention_tflops = 0;
  // The FP8 GEMM accepts its operands in any layout (Blackwell's tcgen05; Hopper's FP8 wgmma takes
  // only K-major operands, so FP8 operands also exist transposed): per-tensor FP8 keeps no
  // transposed copy. Workload::fp8_any_layout carries it into the plan.
  bool fp8_any_layout = false;
  double attention_slowdown_of(AttentionKernel k) const {
    const double f = attention_slowdown[static_cast<int>(k)];
    return f > 0 ? f : 1.0;
  }
  bool attention_kernel_declared(AttentionKernel k) const {
    return k == AttentionKernel::Native || attention_slowdown[static_cast<int>(k)] > 0;
  }
  FlopRate peak_bf16() const { return FlopRate(2.0 * rows * cols * units * clock_hz); }
  bool supports(DType d) const { return d == DType::BF16 || d == DType::FP32 || peak_tflops[static_cast<int>(d)] > 0; }
  // Cycles of a matmul instruction on dtype d relative to BF16.
  double slowdown(DType d) const {
    if (d == DType::BF16) return 1.0;
    if (d == DType::FP32) return fp32_slowdown;
    const double r = peak_tflops[static_cast<int>(d)];
    return r > 0 ? peak_tflops[static_cast<int>(DType::BF16)] / r : 1.0;
  }
  double efficiency_of(DType d) const {
    return is_low_precision(d) && efficiency_low_precision > 0 ? efficiency_low_precision : efficiency;
  }
};

struct LaneEngineSpec {
  bool present = false;
  int lanes = 0;
  double clock_hz = 0;
  int overhead_cycles = 0;      // fixed cost per dependent instruction
  double elems_per_lane_cycle = 1;  // elements each lane retires per cycle
  // Lane-cycles one transcendental (exp, SiLU's sigmoid, sqrt) takes on the vector engine where no
  // activation engine runs it: a GPU's SFUs retire 16 per SM-clock against 128 FP32 lanes (8).
  double transcendental_lane_cycles = 4;
};

struct SramSpec {
  Bytes sbuf, psum;
  int access_overhead_cycles = 0;
};

struct DmaSpec {
  int engines = 1;
  Bandwidth per_engine;
  double latency_s = 0;  // fixed cost per DMA descriptor
  Bandwidth total() const { return per_engine * engines; }
};

struct HbmSpec {
  Bytes capacity_per_chip;
  Bandwidth bandwidth_per_chip;
  double usable_fraction = 1.0;
};

struct IntraNodeSpec {
  Topology topology = Topology::Torus;
  int dim_x = 1, dim_y = 1;        // torus/ring chip grid
  Bandwidth link_bandwidth;        // per link, per direction
  double link_latency_s = 0;
  Bandwidth onchip_bandwidth;      // core-to-core inside one chip, per direction
};

struct InterNodeSpec {
  Bandwidth nic_bandwidth;         // per node, per direction, all NICs together
  double latency_s = 0;
};

// A scale-up domain larger than one node: NVIDIA GB200/GB300 NVL72 (18 trays of 4 GPUs on one
// NVLink switch fabric), Trn2 / Trn3 UltraServers (instances joined by NeuronLink). Groups whose
// nodes all sit in one domain cross nodes at `node_bandwidth`, not over the NICs.
struct ScaleUpSpec {
  int nodes = 1;                   // nodes per domain (1: no domain beyond the node)
  Bandwidth node_bandwidth;        // per node, per direction, into the domain fabric
  double latency_s = 0;
};

struct CollectiveSpec {
  std::string intra_algorithm = "ring";        // ring | direct
  std::string inter_algorithm = "hierarchical"; // hierarchical | pipelined | ring | ring+hierarchical | ring+pipelined (collective.hpp)
  double step_overhead_s = 0;                  // software cost per algorithm step
  // Fixed cost of one collective call before its first step (NCCL's kernel launch and protocol
  // set-up): what a small all-reduce pays however few ranks it has.
  double call_overhead_s = 0;
  // Fraction of the chip-to-chip link rate a large collective achieves (measured bus bandwidth /
  // line rate, where a measurement is published; 1 where none is).
  double intra_bandwidth_fraction = 1.0;
  // The same for the network: fraction of the NICs' line rate a large collective achieves across
  // nodes (measured bus bandwidth / what the algorithm would reach at the line rate).
  double inter_bandwidth_fraction = 1.0;
  // Compute units (a GPU's SMs) a running collective's kernels hold: NCCL runs each channel as a
  // thread block on an SM, so compute beside a collective gets the rest. 0: collectives run on
  // their own engines (DMA rings, on-chip NICs) and take nothing from compute.
  int compute_units = 0;
  // The cluster's measured collective table (measured_table: a CSV path, absolute or relative to
  // the working directory; empty: none): collectives that cross nodes take what it says on idle
  // links (measured_collectives.hpp, idle_collective_seconds).
  MeasuredTable measured;
  // The algorithm collectives run: inter_algorithm, except that under a measured table the table
  // decides the time and the model only shares its bytes out over the links, which needs one
  // algorithm whose time is a line in the size (the two-level part of a tuned "ring+X": X).
  std::string algorithm() const {
    const size_t plus = inter_algorithm.rfind('+');
    return measured.empty() || plus == std::string::npos ? inter_algorithm : inter_algorithm.substr(plus + 1);
  }
};

// The host side of a device. Two ways a framework feeds the device, each a per-op host cost:
//   * eager (PyTorch on GPUs): every op is issued by the host (kernel launch plus dispatch), so
//     a device op never takes less than `dispatch_s`;
//   * lazy tensors (torch-xla on Neuron): the host traces a micro-step's forward and backward
//     into a graph, `trace_s` per op, and hands it to the device, which runs it asynchronously
//     while the host traces the next one. The device cannot start a graph before it is traced,
//     so a micro-step never takes less than its ops x trace_s (small, fast models are host-bound).
// Both 0 where the family has no such cost.
// A third, `compiled` (torch.compile / a Neuron graph compiled ahead): one launch per graph, no
// per-op host cost. `execution` is the mode in use (hw file default, workload override); the
// per-op costs of the other modes do not apply (op_dispatch_s / op_trace_s).
enum class Execution { Eager, Lazy, Compiled };
const char* to_string(Execution e);
// "eager" / "lazy" / "compiled" (the caller has checked the word).
Execution parse_execution(const std::string& word);
struct HostSpec {
  double dispatch_s = 0;  // the file's per-op cost of eager and of lazy execution
  double trace_s = 0;
  Execution execution = Execution::Compiled;
  // Per-op costs of the mode in use (0 for the other modes).
  double op_dispatch_s() const { return execution == Execution::Eager ? dispatch_s : 0.0; }
  double op_trace_s() const { return execution == Execution::Lazy ? trace_s : 0.0; }
};

// The cluster beyond one node's hardware: how far nodes' step times spread (app/step/node_spread.hpp).
struct ClusterSpec {
  double node_spread = 0;  // relative standard deviation of one node's step time (0: identical nodes)
};

struct PriceSpec {
  double on_demand_per_hour = 0;  // USD per node-hour
  double reserved_per_hour = 0;
};

struct HwSpec {
  std::string instance, file;
  int chips_per_node = 1, cores_per_chip = 1;
  TensorSpec tensor;
  LaneEngineSpec vector, scalar, gpsimd;
  SramSpec sram;
  DmaSpec dma;
  HbmSpec hbm;
  IntraNodeSpec intra;
  InterNodeSpec inter;
  ScaleUpSpec scaleup;
  CollectiveSpec collectives;
  // The fraction of the tensor engine's throughput a running collective takes (its compute
  // units of the chip's): a GEMM beside it takes 1 / (1 - share) of its time.
  double collective_compute_share() const {
    return static_cast<double>(collectives.compute_units) / static_cast<double>(tensor.units);
  }
  HostSpec host;
  ClusterSpec cluster;
  PriceSpec price;
  bool stochastic_rounding = false;  // BF16 weights without FP32 master copies (bf16-sr)
  // Tensor, vector, scalar and GpSimd engines run their own instruction streams at once
  // (NeuronCore-v2, Gaudi's MME beside its TPCs); false: one stream of kernels (GPU SMs).
  bool concurrent_engines = false;
  // Logical NeuronCores (Trn2 / Trn3): `lnc` physical cores act as one rank, with their tensor
  // arrays, engine lanes, SBUF / PSUM and DMA engines together. The hw file describes one
  // physical core; `lnc_allowed` empty: the chip has no such configuration (lnc stays 1).
  int lnc = 1;
  std::vector<int> lnc_allowed;
  // Regroups the chip's physical cores into logical cores of k (k must be allowed).
  void set_lnc(int k);

  int cores_per_node() const { return chips_per_node * cores_per_chip; }
  Bytes hbm_per_core() const { return hbm.capacity_per_chip * (hbm.usable_fraction / cores_per_chip); }
  FlopRate peak_per_core() const { return tensor.peak_bf16(); }
  std::string fingerprint() const;        // hash of every parameter that times ops on a core (op cache key)
  std::string intra_fingerprint() const;  // topology parameters that decide link loads
  // Everything a collective's time on idle links depends on: intra_fingerprint plus the links'
  // latencies, the NICs, the scale-up latency and the algorithms' step cost (memo key of the
  // search's idle-collective times; a hw variant in the same process must not hit another's).
  std::string fabric_fingerprint() const;
};

HwSpec load_hw_spec(const std::string& file);
// The same from parsed JSON; `file` names the source in messages.
HwSpec hw_spec_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace trnsim
