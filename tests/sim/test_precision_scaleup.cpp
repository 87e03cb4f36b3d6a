// test_precision_scaleup.cpp — issue 23 through the SystemC kernel: a GEMM's tensor time on each
// dtype follows the datasheet peak ratio (trn1's FP8 runs at the BF16 rate), a chip without a
// format refuses it by name, and collectives inside a multi-node scale-up domain (GB200 NVL72)
// ride the domain fabric, crossing the NICs only between domains (closed form below).
#include <catch2/catch.hpp>

#include "collective.hpp"
#include "sim_helpers.hpp"
#include "helpers.hpp"
#include "lowering.hpp"
#include "op_factory.hpp"
#include "platform.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"

using namespace trnsim;

namespace {
double collective_seconds(const HwSpec& hw, OpKind kind, Bytes size, const GroupLayout& g) {
  return test::collective_seconds(hw, "hierarchical", kind, size, g);
}
}  // namespace

TEST_CASE("a compute-bound GEMM's time scales with the dtype's datasheet peak", "[tlm][precision]") {
  HwSpec h100 = load_hw_spec(hw_path("dgx-h100"));
  h100.tensor.efficiency_low_precision = h100.tensor.efficiency;  // isolate the rate ratio
  const Op bf = ops::gemm("g", 1, 8192, 8192, 8192, DType::BF16), f8 = ops::gemm("g", 1, 8192, 8192, 8192, DType::FP8);
  const double ratio = test::op_seconds(h100, f8) / test::op_seconds(h100, bf);
  CHECK(ratio == Approx(989.0 / 1979.0).epsilon(0.05));
  // A lower low-precision efficiency slows it by exactly that factor on the tensor engine.
  HwSpec slow = h100;
  slow.tensor.efficiency_low_precision = h100.tensor.efficiency / 2;
  CHECK(test::op_seconds(slow, f8) == Approx(2 * test::op_seconds(h100, f8)).epsilon(0.05));
  // Faster hardware never slows the op: NVFP4 on Blackwell beats its FP8.
  const HwSpec gb = load_hw_spec(hw_path("gb200-nvl72"));
  CHECK(test::op_seconds(gb, ops::gemm("g", 1, 8192, 8192, 8192, DType::NVFP4)) < test::op_seconds(gb, ops::gemm("g", 1, 8192, 8192, 8192, DType::FP8)));
  // trn1: cFP8 at the BF16 rate, so the tensor time is the BF16 time (operands are smaller,
  // which a compute-bound GEMM does not feel).
  const HwSpec trn1 = load_hw_spec(hw_path("trn1.32xlarge"));
  const Op tb = ops::gemm("g", 1, 4096, 4096, 4096, DType::BF16), tf = ops::gemm("g", 1, 4096, 4096, 4096, DType::FP8);
  CHECK(test::op_seconds(trn1, tf) == Approx(test::op_seconds(trn1, tb)).epsilon(0.03));
  // A row-wise-scaled FP8 GEMM (torchao through torch._scaled_mm) issues at the BF16 rate and
  // efficiency on H100: its compute-bound time is the BF16 GEMM's, twice the tensorwise FP8 one's.
  Op rw = f8;
  rw.bf16_rate = true;
  const HwSpec h100_fitted = load_hw_spec(hw_path("dgx-h100"));
  CHECK(test::op_seconds(h100_fitted, rw) == Approx(test::op_seconds(h100_fitted, bf)).epsilon(0.03));
  CHECK(test::op_seconds(h100_fitted, rw) > 1.8 * test::op_seconds(h100, f8));
  CHECK(rw.shape_key() != f8.shape_key());  // memoised apart
}

TEST_CASE("trn1 accepts FP8 with a note - a chip without the format refuses it by name", "[precision]") {
  Workload w = test::workload("llama2-7b", "trn1.32xlarge", 1, 8, 1, 4, 1, 32, 4096);
  w.precision = Precision::FP8;
  w.sequence_parallel = true;
  w.attention = Attention::Flash;
  w.zero = 1;
  const Scenario s = make_scenario(w, false);
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes.front().find("BF16 rate") != std::string::npos);
  Workload a = test::workload("llama2-7b", "p4d.24xlarge", 1, 8, 1, 1, 1, 8, 4096);
  a.precision = Precision::FP8;
  CHECK_THROWS_WITH(make_scenario(a, true), Catch::Contains("p4d.24xlarge") && Catch::Contains("no fp8 GEMMs"));
  Workload n = test::workload("llama2-7b", "dgx-h100", 1, 8, 1, 1, 1, 8, 4096);
  n.precision = Precision::NVFP4;
  CHECK_THROWS_WITH(make_scenario(n, true), Catch::Contains("no nvfp4 GEMMs") && Catch::Contains("\"fp8\""));
}

TEST_CASE("GB200 NVL72: collectives stay on NVLink inside the domain, cross the NICs only between domains",
          "[tlm][collective][scaleup]") {
  const HwSpec hw = load_hw_spec(hw_path("gb200-nvl72"));
  REQUIRE(hw.cores_per_node() == 4);
  REQUIRE(hw.scaleup.nodes == 18);
  // 128 GPUs = 32 trays: two domains of 16 trays (the largest divisor of 32 one domain holds).
  const GroupLayout g = layout_group(hw, 1, 128);
  CHECK((g.local == 4 && g.nodes == 32 && g.domain_nodes == 16 && g.domains == 2));
  CHECK(g.domain_ring.link == LinkClass::ScaleUp);
  CHECK(g.inter_ring.link == LinkClass::Nic);
  // 64 GPUs = 16 trays: all in one domain, nothing on the NICs.
  const GroupLayout one = layout_group(hw, 1, 64);
  CHECK((one.domain_nodes == 16 && one.domains == 1));
  CHECK(one.flat_cross.link == LinkClass::ScaleUp);
  // Closed form of the hierarchical all-reduce of S over 128 GPUs: an intra-tray ring of 4
  // (one switch port per GPU), a ring of 16 trays on S/4 over the domain fabric shared by the
  // tray's 4 GPUs, a ring of 2 domains on S/128 over the tray's NICs, and back.
  const double S = 1e9;
  const double oh = hw.collectives.step_overhead_s;
  const double link = hw.intra.link_bandwidth.base() * hw.collectives.intra_bandwidth_fraction;
  const double su = hw.scaleup.node_bandwidth.base(), nic = hw.inter.nic_bandwidth.base();
  const double closed = 2 * 3 * (hw.intra.link_latency_s + oh + S / 4 / link) +
                        2 * 15 * (hw.scaleup.latency_s + oh + S / 4 / 16 * 4 / su) +
                        2 * 1 * (hw.inter.latency_s + oh + S / 128 * 4 / nic);
  const double got = collective_seconds(hw, OpKind::AllReduce, Bytes(S), g);
  CHECK(got == Approx(closed).epsilon(0.02));
  // Without the domain (every tray on its NICs) the same all-reduce is slower.
  HwSpec flat = hw;
  flat.scaleup.nodes = 1;
  CHECK(collective_seconds(flat, OpKind::AllReduce, Bytes(S), layout_group(flat, 1, 128)) > 2 * got);
}
