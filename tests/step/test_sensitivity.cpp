// test_sensitivity.cpp — `trnsim run --sensitivity` (app/step/sensitivity.cpp): the step
// re-simulated with one hardware resource at a time improved. Invariants: a better resource never
// slows the step; a resource the run does not use (the NICs of a one-node run, the host of compiled
// graphs) has elasticity exactly 0; and the tensor engines' gain is bounded by the closed form
// (the time of the ops they bound) x (1 - 1 / factor).
#include <catch2/catch.hpp>

#include <cmath>

#include "report.hpp"
#include "run_helpers.hpp"
#include "sensitivity.hpp"

using namespace trnsim;

namespace {
struct Sensed {
  nlohmann::json report;
  StepResult run;
  StepReport typed;
};

Sensed sensed(const Scenario& s, double factor) {
  Sensed out{{}, execute_step(s), {}};
  out.typed = build_report(s, out.run);
  add_sensitivity(out.typed, s, out.run, factor);
  out.report = to_json(out.typed);
  return out;
}

const nlohmann::json& resource(const nlohmann::json& report, const std::string& name) {
  for (const auto& r : report["sensitivity"]["resources"])
    if (r["resource"] == name) return r;
  FAIL("no resource " << name);
  static const nlohmann::json none;
  return none;
}

// Llama 2 7B on one DGX-H100 at TP 8, compiled graphs: no NIC traffic, no host per-op cost.
Workload one_node_compiled() {
  Workload w = test::workload("llama2-7b", "dgx-h100", 1, 8, 1, 1, 1, 8, 4096);
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.sequence_parallel = true;
  w.execution = "compiled";
  return w;
}
}  // namespace

TEST_CASE("sensitivity: no hardware resource made better slows the step", "[step][sensitivity]") {
  for (const std::string& file : {test::kR3, std::string(TRNSIM_SOURCE_DIR) + "/workloads/qwen3_30b_a3b_gb200_ep8.json",
                                 std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama3_70b_h100_fp8_64gpu.json"}) {
    const Sensed x = sensed(load_scenario(file, true), 1.1);
    const auto& rs = x.report["sensitivity"]["resources"];
    REQUIRE(rs.size() == hw_resources().size());
    for (const auto& r : rs) {
      INFO(file << ": " << r.dump());
      REQUIRE(r.contains("step_time_s"));
      CHECK(r["step_time_s"].get<double>() <= x.run.step_time_s * (1 + 1e-12));
      CHECK(r["elasticity"].get<double>() >= -1e-9);
      CHECK(r["elasticity"].get<double>() <= 1 + 1e-9);  // no resource speeds the step by more than itself
    }
    // Sorted: the resource that binds most comes first.
    for (size_t i = 1; i < rs.size(); ++i) CHECK(rs[i - 1]["elasticity"].get<double>() >= rs[i]["elasticity"].get<double>());
  }
}

TEST_CASE("sensitivity: resources a run does not use have elasticity 0", "[step][sensitivity]") {
  const Sensed x = sensed(make_scenario(one_node_compiled(), true), 1.2);
  CHECK(resource(x.report, "network")["step_time_s"].get<double>() == x.run.step_time_s);
  CHECK(resource(x.report, "host")["step_time_s"].get<double>() == x.run.step_time_s);
  // ... and those it does use move it: TP 8 all-reduces over NVLink, GEMMs on the tensor cores.
  CHECK(resource(x.report, "scale_up")["elasticity"].get<double>() > 0.01);
  CHECK(resource(x.report, "tensor")["elasticity"].get<double>() > 0.2);
}

TEST_CASE("sensitivity: the tensor engines include the published fused-attention kernel", "[step][sensitivity]") {
  // Llama 3.1 8B at 64 k tokens on a DGX-H100 (TP 8): flash attention, timed at the H100 file's
  // published kernel rate (tensor.fused_attention), is most of the step; faster tensor cores run it
  // faster too.
  Workload w = test::workload("llama3.1-8b", "dgx-h100", 1, 8, 1, 1, 1, 8, 65536);
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.sequence_parallel = true;
  w.execution = "compiled";
  w.checkpointing = Checkpointing::Full;
  const Scenario s = make_scenario(w, true);
  REQUIRE(s.fits);
  REQUIRE(s.hw.tensor.fused_attention_tflops > 0);
  const Sensed x = sensed(s, 1.1);
  const double attention = x.report["step"]["compute_by_part_s"]["attention_s"].get<double>();
  INFO("attention " << attention << " s of a " << x.run.step_time_s << " s step");
  REQUIRE(attention > 0.5 * x.run.step_time_s);
  CHECK(resource(x.report, "tensor")["elasticity"].get<double>() > 0.5);
}

TEST_CASE("sensitivity: the tensor engines' gain is at most their ops' time x (1 - 1 / factor)", "[step][sensitivity]") {
  // One stage (PP 1): the step shortens by at most the shortening of its ops, and an op bound by
  // the tensor engine shortens by at most 1 - 1/f of its time (it may become bound by memory).
  const double f = 1.25;
  for (const Workload& w : {one_node_compiled(), test::llama(1, 64)}) {
    const Scenario s = make_scenario(w, true);
    const Sensed x = sensed(s, f);
    const double tensor_bound = x.report["step"]["compute_by_engine_s"]["tensor_s"].get<double>();
    const double gain = x.run.step_time_s - resource(x.report, "tensor")["step_time_s"].get<double>();
    INFO(w.hw << ": tensor-bound ops " << tensor_bound << " s, step " << x.run.step_time_s << " s, gain " << gain << " s");
    CHECK(gain > 0);
    CHECK(gain <= tensor_bound * (1 - 1 / f) * (1 + 1e-9));
  }
}

TEST_CASE("sensitivity: rendered in text and Markdown with the resource's figure now", "[step][sensitivity]") {
  const Sensed x = sensed(make_scenario(one_node_compiled(), true), 1.1);
  const std::string text = render(x.typed, "text"), md = render(x.typed, "md");
  CHECK(text.find("sensitivity: the step with one hardware resource 10 % better") != std::string::npos);
  CHECK(text.find("GB/s HBM per chip") != std::string::npos);
  CHECK(md.find("| elasticity of the step to tensor (10 % better: step s) |") != std::string::npos);
}
