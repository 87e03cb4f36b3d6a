// test_fused_attention_overlap.cpp — a native flash kernel runs its softmax beside its GEMMs
// (fused_attention_overlap.hpp): where no kernel rate is published, the run of a flash kernel's ops
// lasts max(G, V) + min(G, V) / steps, not G + V. Checked by hand on a plan's op lists, and through
// the executor on DGX B200 (no published kernel rate), against the same kernel run in series.
#include <catch2/catch.hpp>

#include <cmath>

#include "block_builder.hpp"
#include "dataset_common.hpp"
#include "fused_attention_overlap.hpp"
#include "helpers.hpp"
#include "report.hpp"
#include "step_executor.hpp"

using namespace trnsim;

namespace {
// Llama 2 7B on one DGX B200, data parallel, flash attention, mixed BF16.
Workload b200(int64_t seq, AttentionKernel kernel) {
  Workload w = test::workload("llama2-7b", "dgx-b200", 1, 1, 1, 8, 1, 8, seq);
  w.attention = Attention::Flash;
  w.attention_kernel = kernel;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 1;
  return w;
}
bool is_flash(const Op& o) { return !o.is_collective() && o.fused_attention && (o.onchip_in || o.onchip_out); }  // by hand, not fused_runs.hpp

// Applies the overlap with GEMMs at `g` and other ops at `v` each; checks every flash run by hand
// (the closed form) and every other op untouched. Returns the number of runs checked.
int check_runs(const StageProgram& st, const std::vector<OpVertex>& list, double g, double v, bool pipelined) {
  std::vector<double> d(list.size());
  for (size_t i = 0; i < list.size(); ++i) d[i] = st.graph[list[i]].kind == OpKind::Gemm ? g : v;
  const std::vector<double> before = d;
  overlap_fused_attention(st, list, 128, d);
  int runs = 0;
  for (size_t i = 0; i < list.size();) {
    if (!is_flash(st.graph[list[i]])) {
      CHECK(d[i] == before[i]);
      ++i;
      continue;
    }
    double gemm = 0, other = 0, total = 0;
    int64_t keys = 0;
    size_t j = i;
    for (; j < list.size() && is_flash(st.graph[list[j]]); ++j) {
      const Op& o = st.graph[list[j]];
      (o.kind == OpKind::Gemm ? gemm : other) += before[j];
      if (o.kind == OpKind::Gemm) CHECK(d[j] == before[j]);  // GEMMs keep their time
      else keys = std::max(keys, o.row);
      total += d[j];
    }
    REQUIRE(gemm > 0);
    REQUIRE(other > 0);
    REQUIRE(keys > 0);
    const double steps = std::ceil(static_cast<double>(keys) / 128.0);
    const double expect = pipelined ? std::max(gemm, other) + std::min(gemm, other) / steps : gemm + other;
    CHECK(total == Approx(expect).epsilon(1e-12));
    ++runs;
    i = j;
  }
  return runs;
}
}  // namespace

TEST_CASE("a native flash kernel's run lasts max(G, V) + min(G, V) / steps", "[attention][overlap]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  const auto plan = build_step_plan(m, b200(4096, AttentionKernel::Native));
  const auto& st = plan.stages.front();
  // GEMM-bound (the usual case), softmax-bound, and one of each: forward and backward kernels.
  for (auto [g, v] : {std::pair<double, double>{3e-4, 1e-4}, {1e-4, 3e-4}, {2e-4, 2e-4}}) {
    CHECK(check_runs(st, st.forward, g, v, true) == m.layers);
    CHECK(check_runs(st, st.backward, g, v, true) == m.layers);
  }
}

TEST_CASE("FlashAttention-2 runs its softmax and GEMMs in series", "[attention][overlap]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  const auto plan = build_step_plan(m, b200(4096, AttentionKernel::Flash2));
  const auto& st = plan.stages.front();
  CHECK(check_runs(st, st.forward, 3e-4, 1e-4, false) == m.layers);
  CHECK(check_runs(st, st.backward, 3e-4, 1e-4, false) == m.layers);
}

TEST_CASE("on a chip without a published kernel rate the executor overlaps a native kernel", "[attention][overlap][tlm]") {
  // DGX B200 publishes no flash kernel rate and no FlashAttention-2 slowdown, so FlashAttention-2 is
  // the same ops timed in series: its trace gives G and V, and the native kernel must take
  // max(G, V) + min(G, V) / steps per run: Llama 3.1 8B at 16,384 tokens, whose causal kernel
  // meets 8,448 key columns per query row on average (flash_key_columns), 66 steps of 128.
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  StepOptions opt;
  opt.trace = true;
  auto layer0 = [&](AttentionKernel k, double& gemm, double& other) {
    Workload w = b200(16384, k);
    w.model = "llama3.1-8b";
    const StepResult r = execute_step(make_scenario(w, m), opt);
    gemm = other = 0;
    for (const auto& e : r.trace)
      if (e.name.rfind("L0.flash.", 0) == 0 && e.track.find("stage 0 /") == 0) {
        const bool soft = e.name.find("softmax") != std::string::npos || e.name.find("bwd_exp") != std::string::npos;
        (soft ? other : gemm) += e.dur_us;
      }
    return r.step_time_s;
  };
  double g2 = 0, v2 = 0, gn = 0, vn = 0;
  const double serial = layer0(AttentionKernel::Flash2, g2, v2);
  const double native = layer0(AttentionKernel::Native, gn, vn);
  REQUIRE(g2 > 0);
  REQUIRE(v2 > 0);
  CHECK(gn == Approx(g2).epsilon(1e-9));  // the GEMMs are the same work at the same rate
  CHECK(vn < v2);
  // Forward and backward kernels are GEMM-bound here (checked by their sums), so the layer's
  // softmax time falls to V / steps in each.
  CHECK(g2 > v2);
  const int64_t keys = flash_key_columns(16384, true);
  CHECK(keys == 8448);
  CHECK(vn == Approx(v2 / std::ceil(keys / 128.0)).epsilon(1e-6));
  CHECK(native < serial);
}

TEST_CASE("the report says where a flash kernel's softmax runs beside its GEMMs", "[attention][overlap][report]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  auto workload_json = [&](Workload w) {
    const auto s = make_scenario(w, m);
    return make_report(s, execute_step(s))["workload"];
  };
  CHECK(workload_json(b200(4096, AttentionKernel::Native)).value("attention_softmax_overlapped", false));
  CHECK_FALSE(workload_json(b200(4096, AttentionKernel::Flash2)).contains("attention_softmax_overlapped"));
  Workload h100 = b200(4096, AttentionKernel::Native);
  h100.hw = "dgx-h100";  // a published kernel rate: the measured kernel already includes its softmax
  const auto j = workload_json(h100);
  CHECK_FALSE(j.contains("attention_softmax_overlapped"));
  CHECK(j.contains("attention_kernel_TFLOPS"));
}
