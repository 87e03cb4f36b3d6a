// bench_sim.cpp — what the simulator's users wait for: one GEMM lowered and simulated,
// one transformer layer fwd+bwd on one core, the full R3 run (cold and warm op cache) and with
// --sensitivity's seven variants and with --vs's one,
// ring and hierarchical all-reduce over 512 ranks, `trnsim collective`'s 80-row comparison with the
// p5 nccl-tests table (with and without that table as the cluster's own), sweep throughput in-process, and building one
// DeepSeek-V3 step plan (the search's unit of work: 204 k of them in issue 24's space).
#include <benchmark/benchmark.h>

#include "collective.hpp"
#include "collective_bench.hpp"
#include "layouts.hpp"
#include "lowering.hpp"
#include "op_factory.hpp"
#include "platform.hpp"
#include "scenario.hpp"
#include "json_edits.hpp"
#include "report.hpp"
#include "sensitivity.hpp"
#include "trnsim/json_reader.hpp"
#include "versus.hpp"
#include "step_executor.hpp"

using namespace trnsim;

namespace {
const std::string kR3 = std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json";

void BM_GemmLowerAndSimulate(benchmark::State& st) {
  HwSpec hw = load_hw_spec(hw_path("trn1.32xlarge"));
  auto& p = Platform::instance();
  p.configure(hw);
  const Op op = ops::gemm("gemm", 1, 4096, 4096, 1536, DType::BF16);
  for (auto _ : st) benchmark::DoNotOptimize(p.timer().run_program(lower_op(op, hw), 2));
}
BENCHMARK(BM_GemmLowerAndSimulate)->Unit(benchmark::kMicrosecond);

void BM_LayerFwdBwdOneCore(benchmark::State& st) {
  Scenario s = load_scenario(kR3);
  auto& p = Platform::instance();
  const auto& stage = s.plan.stages.front();
  std::vector<OpVertex> layer;
  for (auto v : stage.forward)
    if (stage.graph[v].layer == 5 && !stage.graph[v].is_collective()) layer.push_back(v);
  for (auto v : stage.backward)
    if (stage.graph[v].layer == 5 && !stage.graph[v].is_collective()) layer.push_back(v);
  p.configure(s.hw);
  for (auto _ : st)  // uncached: every op of the layer lowered and simulated
    for (auto v : layer) benchmark::DoNotOptimize(p.timer().run_program(lower_op(stage.graph[v], s.hw), 2));
  st.counters["ops"] = static_cast<double>(layer.size());
}
BENCHMARK(BM_LayerFwdBwdOneCore)->Unit(benchmark::kMillisecond);

void BM_FullRunR3_WarmOpCache(benchmark::State& st) {
  for (auto _ : st) {
    Scenario s = load_scenario(kR3);
    benchmark::DoNotOptimize(execute_step(s).step_time_s);
  }
}
BENCHMARK(BM_FullRunR3_WarmOpCache)->Unit(benchmark::kMillisecond);

// `trnsim run --sensitivity` on R3: the step and seven variants, each resource 10 % better (every
// variant's ops are new shapes on the first pass: warm here after the first iteration).
void BM_SensitivityR3_WarmOpCache(benchmark::State& st) {
  for (auto _ : st) {
    Scenario s = load_scenario(kR3);
    const StepResult r = execute_step(s);
    StepReport report;
    add_sensitivity(report, s, r, 1.1);
    benchmark::DoNotOptimize(report.sensitivity);
  }
}
BENCHMARK(BM_SensitivityR3_WarmOpCache)->Unit(benchmark::kMillisecond);

// `trnsim run --vs "parallel.tp=4;parallel.dp=1024"` on R3: the step, its what-if and their reports
// side by side (warm after the first iteration).
void BM_VersusR3_WarmOpCache(benchmark::State& st) {
  nlohmann::json edited = load_json_file(kR3);
  apply_json_edits(edited, "parallel.tp=4;parallel.dp=1024", "--vs");
  for (auto _ : st) {
    const Scenario s = load_scenario(kR3), v = scenario_from_json(edited, kR3);
    StepReport report = build_report(s, execute_step(s));
    add_versus(report, build_report(v, execute_step(v)), "--vs");
    benchmark::DoNotOptimize(report.versus);
  }
}
BENCHMARK(BM_VersusR3_WarmOpCache)->Unit(benchmark::kMillisecond);

void BM_AllReduce512(benchmark::State& st) {
  HwSpec hw = load_hw_spec(hw_path("trn1.32xlarge"));
  auto& p = Platform::instance();
  p.configure(hw);
  const GroupLayout g = layout_group(hw, 8, 512);  // DP 512 over 128 nodes, 4 per node
  auto algo = make_collective(st.range(0) ? "hierarchical" : "ring", hw.collectives.intra_algorithm);
  for (auto _ : st) {
    p.threads().run([&] { algo->run(p.fabric(), CollectiveCall{OpKind::AllReduce, gib(1), g}); });  // a reused thread, as the executor
    sc_core::sc_start();
  }
  st.SetLabel(st.range(0) ? "hierarchical" : "flat ring");
}
BENCHMARK(BM_AllReduce512)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// `trnsim collective --compare`: the 80 rows of the p5 nccl-tests table timed on idle links; Arg(1)
// with the table as the cluster's own (collectives.measured_table: two more idle runs per kind and
// node count, then a look-up per row).
void BM_CollectiveCompareP5(benchmark::State& st) {
  const std::string table = std::string(TRNSIM_SOURCE_DIR) + "/data/validation/nccl_tests_p5_efa.csv";
  const HwSpec hw = st.range(0) ? load_hw_with_edits("p5.48xlarge", "collectives.measured_table=" + table) : load_hw_spec(hw_path("p5.48xlarge"));
  const auto rows = load_collective_table(table);
  for (auto _ : st) benchmark::DoNotOptimize(compare_collectives(hw, rows));
  st.SetLabel(st.range(0) ? "with the measured table" : "modelled");
}
BENCHMARK(BM_CollectiveCompareP5)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Sweep throughput: every 8th Llama-2 7B layout on 128 trn1 nodes (fit check + simulation),
// cold (first pass simulates every new op shape) and warm (op cache already holds them).
std::vector<Workload> sweep_subset() {
  LayoutSpace sp;
  sp.model = "llama2-7b";
  sp.hw = "trn1.32xlarge";
  sp.nodes = 128;
  sp.seq_len = 4096;
  sp.global_batch = 1024;
  auto all = enumerate_layouts(sp);
  std::vector<Workload> out;
  for (size_t i = 0; i < all.size(); i += 8) out.push_back(all[i]);
  return out;
}

void sweep_once(const std::vector<Workload>& layouts) {
  for (const auto& w : layouts) {
    Scenario s = make_scenario(w, true);
    if (s.fits) benchmark::DoNotOptimize(execute_step(s).step_time_s);
  }
}

void BM_SweepWarmOpCache(benchmark::State& st) {
  const auto layouts = sweep_subset();
  sweep_once(layouts);  // warm the op cache (not timed)
  for (auto _ : st) sweep_once(layouts);
  st.counters["configs_per_s"] =
      benchmark::Counter(static_cast<double>(st.iterations() * layouts.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepWarmOpCache)->Unit(benchmark::kMillisecond);

void BM_LayersScaling(benchmark::State& st) {  // time per step vs number of layers (pp=1)
  for (auto _ : st) {
    Scenario s = load_scenario(kR3);
    s.model.layers = st.range(0);
    s.plan = build_step_plan(s.model, s.workload);
    benchmark::DoNotOptimize(execute_step(s).step_time_s);
  }
}
BENCHMARK(BM_LayersScaling)->Arg(8)->Arg(16)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_DpScaling(benchmark::State& st) {  // time per step vs DP degree (nodes), fixed global batch
  auto w = load_workload(kR3);
  w.nodes = st.range(0);
  w.dp = w.nodes * 4;
  for (auto _ : st) {
    Scenario s = make_scenario(w, true);
    benchmark::DoNotOptimize(execute_step(s).step_time_s);
  }
}
BENCHMARK(BM_DpScaling)->Arg(16)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_BuildStepPlanDeepSeekV3(benchmark::State& st) {  // 61 MoE / MLA layers, TP 1 PP 1 EP 8
  const ModelSpec m = load_model_spec(model_path("deepseek-v3"));
  Workload w;
  w.name = "bench";
  w.file = "bench";
  w.model = "deepseek-v3";
  w.hw = "dgx-h100";
  w.nodes = 32;
  w.dp = 256;
  w.ep = 8;
  w.micro_batch = 1;
  w.global_batch = 15360;
  w.seq_len = 4096;
  w.attention = Attention::Flash;
  w.zero = 1;
  w.checkpointing = st.range(0) ? Checkpointing::Full : Checkpointing::None;
  for (auto _ : st) benchmark::DoNotOptimize(build_step_plan(m, w).stages.size());
}
BENCHMARK(BM_BuildStepPlanDeepSeekV3)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
