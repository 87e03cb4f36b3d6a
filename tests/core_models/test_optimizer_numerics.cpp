// test_optimizer_numerics.cpp — the optimizer's numerics as workload fields (issue 25 item 4):
// master_weights (an FP32 copy beside the compute-dtype parameters, or pure BF16 training) and
// optimizer_state_dtype (AdamW's moments in FP32 or BF16). Checked against closed forms written
// here: bytes per trained parameter of each term, the optimizer op's state traffic, the JSON
// round trip, a stack profile setting them, and one-line errors for values that mean nothing.
#include <catch2/catch.hpp>

#include <algorithm>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"

using namespace trnsim;
using test::workload;

namespace {
Workload llama_zero1() {
  Workload w = workload("llama2-7b", "dgx-h100", 2, 2, 1, 8, 1, 32, 4096);
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 1;
  return w;
}
MemoryBreakdown stage0(const ModelSpec& m, const Workload& w) {
  return memory_per_stage(m, w, build_step_plan(m, w)).front();
}
const Op& adamw(const StepPlan& plan) {
  const Op* o = test::op_named(plan, "optimizer.adamw");
  REQUIRE(o);
  return *o;
}
}  // namespace

TEST_CASE("optimizer numerics: bytes per trained parameter of master weights and AdamW moments", "[memory][optimizer]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  const Workload mixed = llama_zero1();
  const MemoryBreakdown a = stage0(m, mixed);
  // Mixed BF16 by default: FP32 master (4 B) and FP32 moments (8 B) per trained parameter.
  REQUIRE(a.master_weights.base() > 0);
  const double trained = a.master_weights.base() / 4.0;
  CHECK(a.optimizer_states.base() == Approx(8.0 * trained));

  Workload pure = mixed;
  pure.master_weights = false;
  pure.optimizer_state_dtype = DType::BF16;
  pure.fp32_grads = false;
  const MemoryBreakdown b = stage0(m, pure);
  CHECK(b.master_weights.base() == 0);
  CHECK(b.optimizer_states.base() == Approx(4.0 * trained));  // two BF16 moments
  CHECK(b.weights.base() == Approx(a.weights.base()));         // the BF16 parameters are the same
  // Parameters 2 + gradients 2 + moments 4: 8 B per parameter where mixed BF16 keeps 2 + 4 + 8 + 4.
  CHECK((a.total() - b.total()).base() ==
        Approx(4.0 * trained + 4.0 * trained + (a.gradients.base() - b.gradients.base())));
  CHECK(a.gradients.base() == Approx(2.0 * b.gradients.base()));

  // Each choice alone.
  Workload moments = mixed;
  moments.optimizer_state_dtype = DType::BF16;
  CHECK(stage0(m, moments).optimizer_states.base() == Approx(4.0 * trained));
  CHECK(stage0(m, moments).master_weights.base() == Approx(4.0 * trained));
  Workload bf16_sr_master = mixed;
  bf16_sr_master.precision = Precision::BF16_SR;  // Neuron's "BF16+FP32Optimizer" keeps a master
  bf16_sr_master.master_weights = true;
  CHECK(stage0(m, bf16_sr_master).master_weights.base() == Approx(4.0 * trained));
  bf16_sr_master.master_weights.reset();  // bf16-sr's default: none
  CHECK(stage0(m, bf16_sr_master).master_weights.base() == 0);
}

TEST_CASE("optimizer numerics: the AdamW op streams the moments and master it keeps", "[optimizer]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  Workload w = llama_zero1();
  const StepPlan plan_mixed = build_step_plan(m, w);
  w.master_weights = false;
  w.optimizer_state_dtype = DType::BF16;
  const StepPlan plan_pure = build_step_plan(m, w);
  const Op& mixed = adamw(plan_mixed);
  const Op& pure = adamw(plan_pure);
  // Same parameters; it writes the BF16 parameter and its states: 8 + 4 bytes (FP32 moments and
  // master) against 4 (BF16 moments) per parameter.
  REQUIRE(pure.elements == mixed.elements);
  const double n = static_cast<double>(mixed.elements);
  CHECK(mixed.bytes_written.base() == Approx(n * (2 + 12)));
  CHECK(pure.bytes_written.base() == Approx(n * (2 + 4)));
}

TEST_CASE("optimizer numerics: workload and stack fields, round trip and errors", "[optimizer][workload]") {
  nlohmann::json j = test::torchtitan_llama8b_json(1, 1, 8, 64);  // torchtitan's profile leaves both unset
  j["master_weights"] = false;
  j["optimizer_state_dtype"] = "bf16";
  const Workload w = workload_from_json(j, "w.json", stack_lookup());
  REQUIRE(w.master_weights);
  CHECK_FALSE(*w.master_weights);
  CHECK_FALSE(w.fp32_master());
  CHECK(w.optimizer_state_dtype == DType::BF16);
  const Workload back = workload_from_json(nlohmann::json::parse(workload_to_json(w)), "back.json", stack_lookup());
  CHECK(back.master_weights == w.master_weights);
  CHECK(back.optimizer_state_dtype == DType::BF16);
  // Unset: the precision's default, and nothing written back.
  j.erase("master_weights");
  j.erase("optimizer_state_dtype");
  const Workload d = workload_from_json(j, "w.json", stack_lookup());
  CHECK(d.fp32_master() == has_fp32_master(d.precision));
  CHECK(d.optimizer_state_dtype == DType::FP32);
  CHECK_FALSE(nlohmann::json::parse(workload_to_json(d)).contains("master_weights"));
  // A profile may set both.
  CHECK(std::count(stack_settable_fields().begin(), stack_settable_fields().end(), "master_weights") == 1);
  CHECK(std::count(stack_settable_fields().begin(), stack_settable_fields().end(), "optimizer_state_dtype") == 1);

  nlohmann::json bad = j;
  bad["precision"] = "fp32";
  bad["master_weights"] = true;
  CHECK_THROWS_WITH(workload_from_json(bad, "w.json", stack_lookup()), Catch::Contains("w.json") && Catch::Contains("master_weights"));
  bad = j;
  bad["optimizer_state_dtype"] = "fp16";
  CHECK_THROWS_WITH(workload_from_json(bad, "w.json", stack_lookup()), Catch::Contains("optimizer_state_dtype"));
  bad = j;
  bad["master_weights"] = "no";
  CHECK_THROWS_WITH(workload_from_json(bad, "w.json", stack_lookup()), Catch::Contains("master_weights"));
}
