// test_run.cpp — issue 5: the whole step. Report and trace structure, and invariants
// the model must obey whatever its calibration.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <set>

#include "helpers.hpp"
#include "platform.hpp"
#include "report.hpp"
#include "step_executor.hpp"

using namespace trnsim;
using test::workload;

namespace {
const std::string kR3 = std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json";

StepResult run(const Workload& w, bool allow_oom = true) { return execute_step(make_scenario(w, allow_oom)); }

Workload llama(int64_t nodes, int64_t global_batch) {
  auto w = workload("llama2-7b", "trn1.32xlarge", nodes, 8, 1, nodes * 4, 1, global_batch, 4096);
  w.sequence_parallel = true;
  w.zero = 1;
  w.checkpointing = Checkpointing::Selective;
  return w;
}
}  // namespace

TEST_CASE("the R3 report is complete, machine-readable, and its trace has the expected tracks", "[run]") {
  auto s = load_scenario(kR3);
  StepOptions opt;
  opt.trace = true;
  auto r = execute_step(s, opt);
  auto j = make_report(s, r);
  auto parsed = nlohmann::json::parse(render(j, "json"));
  for (const char* k : {"workload", "step", "throughput", "memory_per_core_gib", "cost"}) CHECK(parsed.contains(k));
  CHECK(parsed["step"]["step_time_s"].get<double>() > 0);
  CHECK(parsed["throughput"]["mfu"].get<double>() > 0.05);
  CHECK(parsed["throughput"]["mfu"].get<double>() < 1.0);
  auto trace = nlohmann::json::parse(step_trace_json(s, r));
  CHECK_THAT(trace["otherData"]["coverage"].get<std::string>(), Catch::StartsWith("complete: all 2 micro-batches"));
  std::set<std::string> tracks;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
  for (const char* t : {"stage 0 / tensor", "stage 0 / vector", "stage 0 / tp", "stage 0 / dp"}) {
    INFO(t);
    CHECK(tracks.count(t) == 1);
  }
  CHECK_THAT(render(j, "text"), Catch::Contains("tokens/s") && Catch::Contains("GiB") && Catch::Contains("$/M tokens"));
  CHECK_THAT(render(j, "md"), Catch::Contains("| step time (s) |"));
}

TEST_CASE("the trace of an extrapolated schedule says it is partial and where the simulated part ends", "[run]") {
  auto s = load_scenario(kR3);
  s.plan.micro_batches = 40;  // beyond the default cap (8 for one stage): the steady state is extrapolated
  StepOptions opt;
  opt.trace = true;
  auto r = execute_step(s, opt);
  REQUIRE(r.micro_batches_simulated < 40);
  auto trace = nlohmann::json::parse(step_trace_json(s, r));
  CHECK_THAT(trace["otherData"]["coverage"].get<std::string>(),
             Catch::StartsWith(fmt::format("partial: the trace shows {} of the step's 40 micro-batches", r.micro_batches_simulated)));
  double last_end = 0, marker = -1;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") last_end = std::max(last_end, e["ts"].get<double>() + e["dur"].get<double>());
    if (e["ph"] == "i") marker = e["ts"].get<double>();
  }
  CHECK(marker == last_end);
  CHECK(last_end * 1e-6 < 0.5 * r.step_time_s);  // the window really is a fraction of the step
}

TEST_CASE("cost per token is price x step time / tokens per step, exactly", "[run]") {
  auto s = load_scenario(kR3);
  auto j = make_report(s, execute_step(s));
  const double step = j["step"]["step_time_s"].get<double>();
  const double tokens = 1024.0 * 4096;
  for (auto [plan, price] : {std::pair{"on_demand", 21.50}, std::pair{"reserved", 7.59}}) {
    const double usd_per_token = price * 128 * step / 3600.0 / tokens;
    CHECK(j["cost"][plan]["usd_per_million_tokens"].get<double>() == Approx(usd_per_token * 1e6).epsilon(1e-12));
  }
}

TEST_CASE("doubling DP at fixed global batch never raises per-step compute per core", "[run][invariant]") {
  double prev = 1e30;
  for (int64_t nodes : {8, 16, 32, 64, 128}) {
    auto r = run(llama(nodes, 1024));
    const double compute = r.stages[0].compute_s + r.stages[0].recompute_s;
    INFO(nodes << " nodes: compute " << compute);
    CHECK(compute <= prev);
    prev = compute;
  }
}

TEST_CASE("PP bubble matches (p-1)/(m+p-1) when communication is free", "[run][invariant]") {
  const int64_t p = 4, m = 8;
  auto w = workload("llama2-7b", "trn1.32xlarge", 1, 8, p, 1, 1, m, 4096);
  w.sequence_parallel = true;
  w.checkpointing = Checkpointing::Selective;
  auto s = make_scenario(w, true);
  // Free links: infinite bandwidth, zero latency and overhead.
  s.hw.intra.link_bandwidth = s.hw.intra.onchip_bandwidth = s.hw.inter.nic_bandwidth = gigabytes_per_s(1e12);
  s.hw.intra.link_latency_s = s.hw.inter.latency_s = s.hw.collectives.step_overhead_s = 0;
  s.hw.concurrent_engines = false;  // the closed form counts busy time: one engine at a time
  auto r = execute_step(s);
  // Busy time of one micro-batch on the slowest stage, from the unpipelined stage time.
  double busiest = 0;
  for (const auto& st : r.stages) busiest = std::max(busiest, st.compute_s + st.recompute_s);
  const double pipeline = r.step_time_s - r.stages[static_cast<size_t>(r.critical_stage)].optimizer_s;
  const double bubble = 1.0 - busiest / pipeline;
  const double expected = double(p - 1) / double(m + p - 1);
  INFO("bubble " << bubble << " expected " << expected);
  CHECK(bubble == Approx(expected).epsilon(0.05));
}

TEST_CASE("turning off DP overlap never makes a step faster", "[run][invariant]") {
  auto w = llama(16, 256);
  const double on = run(w).step_time_s;
  w.overlap_dp = false;
  const double off = run(w).step_time_s;
  CHECK(off >= on);
}

TEST_CASE("selective recompute is slower than none and faster than full", "[run][invariant]") {
  auto w = llama(16, 256);
  w.checkpointing = Checkpointing::None;
  const double none = run(w).step_time_s;
  w.checkpointing = Checkpointing::Selective;
  const double sel = run(w).step_time_s;
  w.checkpointing = Checkpointing::Full;
  const double full = run(w).step_time_s;
  CHECK(none < sel);
  CHECK(sel < full);
}

TEST_CASE("the same input gives bit-identical reports", "[run]") {
  auto s = load_scenario(kR3);
  auto a = make_report(s, execute_step(s));
  auto b = make_report(s, execute_step(s));  // second run answers from the op cache
  CHECK(b["simulator"]["ops_simulated"] == 0);
  a.erase("simulator");
  b.erase("simulator");
  CHECK(a.dump() == b.dump());
}

TEST_CASE("reducing every micro-batch costs grad_accum reductions instead of one", "[run][closed-form]") {
  // Without overlap, each reduction runs alone on the fabric, so the exposed DP time is the
  // per-step reduction's exposed time times the number of micro-batches (all of them, as the
  // last one's reduction is the end-of-step one).
  auto w = workload("bert-1.5b", "dl1.24xlarge", 2, 1, 1, 16, 16, 16 * 16 * 6, 128);
  w.precision = Precision::MixedBF16;
  w.zero = 1;
  w.overlap_dp = false;
  REQUIRE(w.grad_accum() == 6);
  const auto once = run(w);
  w.reduce_every_micro_batch = true;
  const auto every = run(w);
  const auto& a = once.stages[0];
  const auto& b = every.stages[0];
  CHECK(b.dp_exposed_s == Approx(6 * a.dp_exposed_s).epsilon(1e-6));
  CHECK(b.dp_comm_s == Approx(6 * a.dp_comm_s).epsilon(1e-6));
  CHECK(b.compute_s == Approx(a.compute_s).epsilon(1e-12));
  CHECK(every.step_time_s == Approx(once.step_time_s + 5 * a.dp_exposed_s).epsilon(1e-6));
  // One micro-batch per step: the two schedules are the same program.
  w.global_batch = 16 * 16;
  const double one = run(w).step_time_s;
  w.reduce_every_micro_batch = false;
  CHECK(run(w).step_time_s == one);
}

TEST_CASE("ZeRO-2 shards gradients and reduces them every micro-batch", "[run][memory]") {
  auto w = llama(16, 256);
  w.overlap_dp = false;
  const auto z1 = make_scenario(w, true);
  w.zero = 2;
  w.reduce_every_micro_batch = true;
  const auto z2 = make_scenario(w, true);
  const auto& m1 = z1.memory[0];
  const auto& m2 = z2.memory[0];
  // Shard (1/dp) plus one layer's full gradients in flight; every other term unchanged.
  const double P = static_cast<double>(z1.plan.stages[0].parameters);
  CHECK(m2.gradients.base() == Approx(P * 2 / 64 + P / 32 * 2));
  CHECK(m2.gradients < m1.gradients);
  CHECK(m2.optimizer_states.base() == m1.optimizer_states.base());
  CHECK(m2.activations.base() == m1.activations.base());
  CHECK(execute_step(z2).step_time_s > execute_step(z1).step_time_s);
}

TEST_CASE("slower EFA never speeds a step up, and never touches TP traffic inside a node", "[run][invariant]") {
  // GPT-NeoX 20B TP8 PP4 on 4 trn1 nodes: one pipeline stage per node, so TP collectives stay
  // on each node's NeuronLinks and the stages' links are disjoint. (A shared link queue
  // across stages once made this step 3% faster at half the EFA bandwidth.)
  auto w = workload("gpt-neox-20b", "trn1.32xlarge", 4, 8, 4, 4, 1, 4 * 16, 2048);
  w.sequence_parallel = true;
  w.zero = 1;
  w.checkpointing = Checkpointing::Selective;
  auto s = make_scenario(w, true);
  std::vector<StepResult> r;
  for (double f : {1.0, 0.5, 0.25}) {
    auto sf = s;
    sf.hw.inter.nic_bandwidth = s.hw.inter.nic_bandwidth * f;
    r.push_back(execute_step(sf));
  }
  for (size_t i = 1; i < r.size(); ++i) {
    CHECK(r[i].step_time_s >= r[i - 1].step_time_s);
    for (size_t st = 0; st < r[i].stages.size(); ++st) CHECK(r[i].stages[st].tp_comm_s == Approx(r[0].stages[st].tp_comm_s).epsilon(1e-9));
  }
}

TEST_CASE("extrapolating the 1F1B steady state equals simulating every micro-batch", "[run][closed-form]") {
  // GPT-NeoX 20B TP8 PP4 on 4 trn1 nodes, 64 micro-batches: simulated in full and
  // extrapolated from 12 (the default cap for 4 stages) and from 8.
  auto w = workload("gpt-neox-20b", "trn1.32xlarge", 4, 8, 4, 4, 1, 4 * 64, 2048);
  w.sequence_parallel = true;
  w.zero = 1;
  w.checkpointing = Checkpointing::Selective;
  const auto s = make_scenario(w, true);
  StepOptions full;
  full.extrapolate_after = 64;
  const auto ref = execute_step(s, full);
  REQUIRE(ref.micro_batches_simulated == 64);
  for (int64_t cap : {12, 8}) {
    StepOptions o;
    o.extrapolate_after = cap;
    const auto r = execute_step(s, o);
    INFO("cap " << cap);
    CHECK(r.micro_batches_simulated == cap);
    CHECK(r.step_time_s == Approx(ref.step_time_s).epsilon(1e-6));
  }
}

// Identical programs on every virtual stage (a middle stage's, copied) and free links: the
// pipeline time is then exactly (m*v + p - 1) chunk-times for 1F1B (v = 1, Narayanan et al.
// 2021) and interleaved 1F1B (Megatron; bubble (p-1)/v stage-times), where a chunk-time is one
// micro-batch's forward + backward on one chunk.
namespace {
double pipeline_time(int64_t p, int64_t v, int64_t m, double& chunk_time) {
  auto w = workload("llama2-7b", "trn1.32xlarge", p / 4, 8, p, 1, 1, m, 4096);  // TP 8 x PP p fills p/4 nodes
  w.sequence_parallel = true;
  w.checkpointing = Checkpointing::Selective;
  w.virtual_stages = v;
  auto s = make_scenario(w, true);
  s.hw.intra.link_bandwidth = s.hw.intra.onchip_bandwidth = s.hw.inter.nic_bandwidth = gigabytes_per_s(1e12);
  s.hw.intra.link_latency_s = s.hw.inter.latency_s = s.hw.collectives.step_overhead_s = 0;
  s.hw.concurrent_engines = false;  // chunk-time = busy time
  s.hw.host.trace_s = 0;            // the device schedule is the subject, not the host
  const StageProgram& mid = s.plan.stages[1];
  for (auto& st : s.plan.stages) {
    const int stage = st.stage, rank = st.rank, chunk = st.chunk;
    st = mid;
    st.stage = stage, st.rank = rank, st.chunk = chunk;
    st.optimizer.clear();
  }
  auto r = execute_step(s, StepOptions{false, 1 << 20});  // no extrapolation: the full schedule
  chunk_time = r.stages[0].compute_s + r.stages[0].recompute_s;
  chunk_time /= static_cast<double>(m * v);
  return r.step_time_s;
}
}  // namespace

TEST_CASE("1F1B and interleaved 1F1B take exactly (m v + p - 1) chunk-times with free links", "[run][pipeline]") {
  for (auto [p, v, m] : std::vector<std::array<int64_t, 3>>{{4, 1, 8}, {4, 2, 8}, {4, 4, 8}, {4, 2, 12}, {8, 2, 16}, {8, 4, 8}}) {
    double t = 0;
    const double total = pipeline_time(p, v, m, t);
    INFO("p " << p << " v " << v << " m " << m << ": " << total << " s vs " << (m * v + p - 1) << " chunk-times of " << t);
    CHECK(total == Approx(static_cast<double>(m * v + p - 1) * t).epsilon(1e-9));
  }
}

TEST_CASE("interleaving shrinks the bubble by v and adds no compute", "[run][pipeline]") {
  double t1 = 0, t2 = 0;
  const int64_t p = 4, m = 8;
  const double plain = pipeline_time(p, 1, m, t1), inter = pipeline_time(p, 2, m, t2);
  const double bubble_plain = plain - static_cast<double>(m) * t1, bubble_inter = inter - static_cast<double>(m * 2) * t2;
  CHECK(2 * t2 == Approx(t1).epsilon(1e-9));  // a chunk is half a stage
  CHECK(bubble_inter == Approx(bubble_plain / 2).epsilon(1e-9));
}

// Engine concurrency (hw engines.concurrent): the schedule may only overlap, never add work.
TEST_CASE("concurrent engines: never slower than one engine at a time, never faster than the busiest engine", "[run][engines]") {
  auto w = workload("llama2-7b", "trn1.32xlarge", 1, 8, 1, 4, 1, 16, 4096);
  w.sequence_parallel = true;
  w.checkpointing = Checkpointing::Selective;
  auto s = make_scenario(w, true);
  s.hw.concurrent_engines = false;
  const auto serial = execute_step(s);
  s.hw.concurrent_engines = true;
  const auto conc = execute_step(s);
  const auto& st = conc.stages[0];
  const double busiest = *std::max_element(st.engine_s.begin(), st.engine_s.begin() + 5);  // compute engines
  INFO("serial " << serial.step_time_s << " s, concurrent " << conc.step_time_s << " s, busiest engine " << busiest << " s");
  CHECK(conc.step_time_s <= serial.step_time_s);
  CHECK(conc.step_time_s < serial.step_time_s);  // weight gradients do overlap vector work
  CHECK(conc.step_time_s >= busiest);
  // Same work either way.
  CHECK(conc.stages[0].compute_s == Approx(serial.stages[0].compute_s).epsilon(1e-12));
}

TEST_CASE("TP overlap hides at most the weight-gradient GEMMs it runs beside", "[run][engines]") {
  auto w = workload("llama2-7b", "p4d.24xlarge", 1, 8, 1, 1, 1, 4, 2048);
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  auto s = make_scenario(w, true);
  const auto off = execute_step(s);
  s.workload.tp_overlap = true;
  const auto on = execute_step(s);
  double wgrad = 0;  // weight-gradient GEMM time per step
  OpTimer& timer = Platform::instance().timer();
  for (const auto& st : s.plan.stages)
    for (auto v : st.backward)
      if (st.graph[v].weight_grad) wgrad += std::max(timer.time(st.graph[v]).seconds, s.hw.host.dispatch_s);
  wgrad *= static_cast<double>(s.plan.micro_batches);
  INFO("off " << off.step_time_s << " s, on " << on.step_time_s << " s, weight-gradient GEMMs " << wgrad << " s");
  CHECK(on.step_time_s < off.step_time_s);
  CHECK(off.step_time_s - on.step_time_s <= wgrad * (1 + 1e-9));
  CHECK(on.stages[0].tp_comm_s == Approx(off.stages[0].tp_comm_s).epsilon(1e-9));  // same collectives
}

// Megatron-LM's pipeline scatter/gather (parallel.pp_scatter_gather): each TP rank sends 1/tp of
// the activation over its own inter-node link and the receiving TP group all-gathers it.
TEST_CASE("pipeline scatter/gather: 1/tp of the activation crosses nodes, then a TP all-gather", "[run][pp]") {
  auto w = workload("llama2-7b", "dgx-a100-80g", 2, 8, 2, 1, 1, 8, 2048);  // one stage per node
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  auto s = make_scenario(w, true);
  const double full = 1 * 2048 * 4096 * 2.0;  // micro-batch x seq x hidden x bf16
  REQUIRE(s.plan.stages[0].p2p_bytes.base() == full);
  REQUIRE(s.plan.stages[0].p2p_gather_bytes.base() == 0);
  const auto plain = execute_step(s);
  s.workload.pp_scatter_gather = true;
  s.plan = build_step_plan(s.model, s.workload);
  CHECK(s.plan.stages[0].p2p_bytes.base() == full / 8);
  CHECK(s.plan.stages[0].p2p_gather_bytes.base() == full);
  const auto sg = execute_step(s);
  INFO("plain PP comm " << plain.stages[1].pp_comm_s << " s, scatter/gather " << sg.stages[1].pp_comm_s << " s");
  // An 8th of the bytes on the inter-node link plus an NVLink all-gather costs less than all of them.
  CHECK(sg.stages[1].pp_comm_s < plain.stages[1].pp_comm_s);
  CHECK(sg.stages[1].pp_comm_s > plain.stages[1].pp_comm_s / 8);
  CHECK(sg.stages[1].compute_s == Approx(plain.stages[1].compute_s).epsilon(1e-12));
  // With sequence parallelism the activation is already split: the setting changes nothing.
  s.workload.sequence_parallel = true;
  s.plan = build_step_plan(s.model, s.workload);
  CHECK(s.plan.stages[0].p2p_bytes.base() == full / 8);
  CHECK(s.plan.stages[0].p2p_gather_bytes.base() == 0);
}

// Lazy-tensor host (hw host.trace_s): the host traces each graph, running ahead of the device.
TEST_CASE("host tracing: hidden behind the device except the first graph; binding when the host is slower", "[run][host]") {
  auto w = workload("bert-large", "trn1.32xlarge", 1, 1, 1, 32, 2, 256, 512);  // 4 micro-batches
  w.checkpointing = Checkpointing::None;
  auto s = make_scenario(w, true);
  REQUIRE(s.plan.micro_batches == 4);
  const auto& st = s.plan.stages[0];
  const double n_fwd = static_cast<double>(st.forward.size()), n_bwd = static_cast<double>(st.backward.size());
  s.hw.host.trace_s = 0;
  const double t0 = execute_step(s).step_time_s;
  // Fast host: only the first forward graph's trace is exposed, exactly.
  s.hw.host.trace_s = 1e-6;
  const auto fast = execute_step(s);
  CHECK(fast.step_time_s == Approx(t0 + n_fwd * 1e-6).epsilon(1e-9));
  CHECK(fast.stages[0].host_wait_s == Approx(n_fwd * 1e-6).epsilon(1e-9));
  // Slow host: every micro-step takes its trace time; the device adds at most one step's work.
  s.hw.host.trace_s = 10e-3;
  const auto slow = execute_step(s);
  const double host = 4 * (n_fwd + n_bwd) * 10e-3;
  INFO("device-only " << t0 << " s, host-bound " << slow.step_time_s << " s, host trace " << host << " s");
  CHECK(slow.step_time_s >= host);
  CHECK(slow.step_time_s <= host + t0);
  // The device work is the same either way.
  CHECK(slow.stages[0].compute_s == Approx(fast.stages[0].compute_s).epsilon(1e-12));
}

TEST_CASE("a slower host never makes a step faster", "[run][host][invariant]") {
  auto w = workload("llama2-7b", "trn1.32xlarge", 1, 8, 2, 2, 1, 16, 2048);
  w.checkpointing = Checkpointing::Full;
  auto s = make_scenario(w, true);
  double last = 0;
  for (double tr : {0.0, 50e-6, 150e-6, 500e-6, 2e-3}) {
    s.hw.host.trace_s = tr;
    const double t = execute_step(s).step_time_s;
    INFO("trace " << tr << " s/op: step " << t << " s");
    CHECK(t >= last);
    last = t;
  }
}

// ZeRO-3 / FSDP (issue 16): parameters sharded over DP and gathered per piece, one ahead.
namespace {
Scenario zero_scenario(int zero, double nic_scale = 1.0) {
  auto w = workload("llama2-7b", "trn1.32xlarge", 4, 8, 1, 16, 1, 64, 4096);
  w.sequence_parallel = true;
  w.zero = zero;
  w.reduce_every_micro_batch = zero >= 2;
  w.checkpointing = Checkpointing::Selective;
  auto s = make_scenario(w, true);
  s.hw.inter.nic_bandwidth = s.hw.inter.nic_bandwidth * nic_scale;
  return s;
}
}  // namespace

TEST_CASE("ZeRO-3 gathers every piece's parameters in forward and in backward, and not after the optimizer", "[run][zero3]") {
  const auto s = zero_scenario(3);
  const auto& st = s.plan.stages[0];
  auto gathers = [&](const std::vector<OpVertex>& list) {
    double bytes = 0;
    int n = 0;
    for (auto v : list)
      if (st.graph[v].group == Group::DP && st.graph[v].kind == OpKind::AllGather) {
        bytes += st.graph[v].comm_bytes.base();
        ++n;
      }
    return std::pair{n, bytes};
  };
  const double all_params = static_cast<double>(st.parameters) * 2;  // bf16
  const int pieces = static_cast<int>(s.model.layers) + 2;            // embedding, layers, head
  CHECK(gathers(st.forward) == std::pair{pieces, all_params});
  CHECK(gathers(st.backward) == std::pair{pieces, all_params});
  CHECK(gathers(st.optimizer).first == 0);
  const auto z2 = zero_scenario(2);  // ZeRO-1/2 gather the parameters after the update instead
  const auto& st2 = z2.plan.stages[0];
  CHECK(std::count_if(st2.optimizer.begin(), st2.optimizer.end(),
                      [&](OpVertex v) { return st2.graph[v].kind == OpKind::AllGather; }) == 1);
  CHECK(std::count_if(st2.forward.begin(), st2.forward.end(), [&](OpVertex v) { return st2.graph[v].group == Group::DP; }) == 0);
}

TEST_CASE("ZeRO-3 memory: a parameter shard plus two pieces whole; gradients and states as ZeRO-2", "[run][zero3][memory]") {
  const auto z3 = zero_scenario(3), z2 = zero_scenario(2);
  const auto& m3 = z3.memory[0];
  const auto& m2 = z2.memory[0];
  const double P = static_cast<double>(z3.plan.stages[0].parameters);
  const double piece = static_cast<double>(std::max(z3.model.embedding_parameters(), z3.model.layer_parameters())) / 8;
  CHECK(m3.weights.base() == Approx(P * 2 / 16 + 2 * piece * 2).epsilon(1e-12));
  CHECK(m3.gradients.base() == m2.gradients.base());
  CHECK(m3.optimizer_states.base() == m2.optimizer_states.base());
  CHECK(m3.total() < m2.total());
}

TEST_CASE("ZeRO-3 prefetch hides the gathers behind compute until the network is too slow", "[run][zero3][invariant]") {
  const auto fast = execute_step(zero_scenario(3)), slow = execute_step(zero_scenario(3, 0.02));
  const auto& f = fast.stages[0];
  const auto& sl = slow.stages[0];
  // Gathers run twice per micro-batch on the DP stream: DP time covers them.
  CHECK(f.dp_comm_s > 0);
  INFO(fmt::format("exposed {:.4f} of {:.4f} s DP at full EFA; {:.4f} of {:.4f} s at 2%", f.dp_exposed_s, f.dp_comm_s,
                   sl.dp_exposed_s, sl.dp_comm_s));
  CHECK(f.dp_exposed_s < 0.5 * f.dp_comm_s);    // mostly hidden
  CHECK(sl.dp_exposed_s > 0.5 * sl.dp_comm_s);  // a 50x slower network cannot be hidden
  CHECK(slow.step_time_s > fast.step_time_s);
  CHECK(execute_step(zero_scenario(2)).step_time_s < slow.step_time_s);
}
