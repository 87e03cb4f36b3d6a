// test_host_zero3.cpp — host tracing/dispatch and ZeRO-3 (gathers, memory, prefetch).
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <set>

#include "run_helpers.hpp"
#include "platform.hpp"
#include "report.hpp"
#include "step_executor.hpp"

using namespace trnsim;
using test::workload;


using namespace trnsim;
using namespace trnsim::test;

TEST_CASE("host tracing: hidden behind the device except the first graph - binding when the host is slower", "[run][host]") {
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

TEST_CASE("ZeRO-3 memory: a parameter shard plus two pieces whole - gradients and states as ZeRO-2", "[run][zero3][memory]") {
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
