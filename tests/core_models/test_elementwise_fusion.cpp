// test_elementwise_fusion.cpp — issue 25 item 1 (which element-wise ops are fused: eager vs
// torch.compile vs hand-fused kernels). Eager PyTorch runs RMSNorm, rotary and SwiGLU as one
// kernel per ATen op, each through HBM: the kernels and their bytes against ATen's composite
// definitions, the profile defaults, and a step that cannot beat the extra bytes at HBM speed.
#include <boost/range/iterator_range.hpp>
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "stack_profile.hpp"
#include "step_executor.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

namespace {
Workload llama8b(bool fused) {
  Workload w = test::workload("llama3.1-8b", "dgx-h100", 1, 1, 1, 8, 1, 8, 2048);
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 1;
  w.fused_qkv = w.fused_gate_up = false;
  w.fused_elementwise = fused;
  return w;
}
// Forward HBM bytes (read, written) of the ops whose label starts with `prefix`, and their count.
struct Traffic {
  double read = 0, written = 0;
  int ops = 0;
};
Traffic forward_traffic(const StepPlan& p, const std::string& prefix) {
  Traffic t;
  for (auto v : p.stages.front().forward) {
    const Op& o = p.stages.front().graph[v];
    if (o.label.rfind(prefix, 0) != 0) continue;
    t.read += o.bytes_read.base(), t.written += o.bytes_written.base(), ++t.ops;
  }
  return t;
}
// A torchtitan Llama 3.1 8B workload on one node, with no fusion fields of its own.
nlohmann::json titan_8b() { return test::torchtitan_llama8b_json(1, 1, 8, 8); }
}  // namespace

TEST_CASE("eager RMSNorm, rotary and SwiGLU are ATen's kernels with their HBM bytes", "[fusion]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  const auto fused = build_step_plan(m, llama8b(true)), eager = build_step_plan(m, llama8b(false));
  const double T = 2048, h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn);
  const double qk = T * static_cast<double>((m.heads + m.kv_heads) * m.head_dim());

  // rms_norm: x.to(fp32) 2 -> 4; pow 4 -> 4; mean 4 -> row; x * rsqrt 4 -> 4; type_as 4 -> 2; x weight 2 -> 2.
  const Traffic nf = forward_traffic(fused, "L0.norm1"), ne = forward_traffic(eager, "L0.norm1");
  CHECK(nf.ops == 1);
  CHECK(nf.read + nf.written == Approx(4 * T * h));
  CHECK(ne.ops == 6);
  CHECK(ne.read == Approx(20 * T * h));
  CHECK(ne.written == Approx(16 * T * h));
  // Rotary (complex form): float() 2 -> 4, complex multiply 4 -> 4, type_as 4 -> 2; fused: 4 -> 2.
  const Traffic rf = forward_traffic(fused, "L0.rotary"), re = forward_traffic(eager, "L0.rotary");
  CHECK(rf.ops == 1);
  CHECK(rf.read + rf.written == Approx(6 * qk));
  CHECK(re.ops == 3);
  CHECK(re.read + re.written == Approx(20 * qk));
  // SwiGLU: F.silu 2 -> 2, then the product 4 -> 2; fused: 4 -> 2.
  const Traffic sf = forward_traffic(fused, "L0.swiglu"), se = forward_traffic(eager, "L0.swiglu");
  CHECK(sf.ops == 1);
  CHECK(sf.read + sf.written == Approx(6 * T * f));
  CHECK(se.ops == 2);
  CHECK(se.read + se.written == Approx(10 * T * f));
  // The GEMMs and everything else are the same ops.
  auto gemm_flops = [](const Op& o) { return o.kind == OpKind::Gemm ? o.flops.base() : 0.0; };
  CHECK(test::sum_ops(eager, gemm_flops) == Approx(test::sum_ops(fused, gemm_flops)));
}

TEST_CASE("an eager step pays its extra bytes at no more than HBM speed", "[fusion][tlm]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  const Scenario fs = make_scenario(llama8b(true), m), es = make_scenario(llama8b(false), m);
  const double tf = execute_step(fs).step_time_s, te = execute_step(es).step_time_s;
  auto bytes = [](const Op& o) { return o.is_collective() ? 0.0 : o.bytes_read.base() + o.bytes_written.base(); };
  const double extra = (test::sum_ops(es.plan, bytes) - test::sum_ops(fs.plan, bytes)) *
                       static_cast<double>(es.workload.grad_accum());
  REQUIRE(extra > 0);
  const double hbm = fs.hw.hbm.bandwidth_per_chip.base() / fs.hw.cores_per_chip;
  CHECK(te - tf >= extra / hbm * 0.99);  // memory-bound ops cannot move bytes faster than HBM
  CHECK(te - tf < 0.5 * tf);             // and they are element-wise ops, not the step
}

TEST_CASE("stack profiles: torchtitan is eager unless the run compiles, Megatron fuses", "[fusion][stack]") {
  auto j = titan_8b();
  CHECK_FALSE(workload_from_json(j, "w.json", stack_lookup()).fused_elementwise);
  j["fused"] = {{"elementwise", true}};  // torch.compile
  CHECK(workload_from_json(j, "w.json", stack_lookup()).fused_elementwise);
  j.erase("fused");
  j["stack"] = "megatron-core";
  CHECK(workload_from_json(j, "w.json", stack_lookup()).fused_elementwise);
  j["fused"] = {{"elementwise", "no"}};
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()), Catch::Contains("elementwise"));
}

TEST_CASE("an eager loss holds one more FP32 copy of the logits on the last stage", "[fusion][memory]") {
  // torchtitan: F.cross_entropy(pred.float(), labels): the FP32 upcast beside log_softmax's output.
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  const Workload fused = llama8b(true), eager = llama8b(false);
  const auto mf = memory_per_stage(m, fused, build_step_plan(m, fused)).back();
  const auto me = memory_per_stage(m, eager, build_step_plan(m, eager)).back();
  CHECK(me.temporary.base() - mf.temporary.base() == Approx(4.0 * 1 * 2048 * m.vocab));
  CHECK(me.activations.base() == Approx(mf.activations.base()));
}

TEST_CASE("an eager vocabulary-parallel loss holds four FP32 copies of the local logits, not three", "[fusion][memory]") {
  // DTensor's loss_parallel runs log-softmax as separate ops and fuses nll and log-softmax backward
  // into one function: the saved log-softmax, the scattered target gradient, exp(log-softmax) x
  // the incoming gradient and their sum are alive together; ATen's kernels (TP 1) hold three.
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  auto at_tp = [&](int64_t tp, bool fused, bool loss_parallel) {
    Workload w = test::workload("llama3.1-8b", "dgx-h100", 1, tp, 1, 8 / tp, 1, 8 / tp, 2048);
    w.precision = Precision::MixedBF16;
    w.attention = Attention::Flash;
    w.fused_qkv = w.fused_gate_up = false;
    w.fused_elementwise = fused;
    w.loss_parallel = loss_parallel;
    return memory_per_stage(m, w, build_step_plan(m, w)).back().temporary.base();
  };
  const double local = 2048.0 * static_cast<double>((m.vocab + 3) / 4);  // TP 4's vocabulary shard
  CHECK(at_tp(4, false, true) - at_tp(4, true, true) == Approx(2 * 4.0 * local));   // 4 copies against the fused loss's 2
  CHECK(at_tp(1, false, true) - at_tp(1, true, true) == Approx(4.0 * 2048.0 * static_cast<double>(m.vocab)));  // ATen: 3 against 2
  // A replicated loss (loss_parallel false) runs ATen's kernels on the whole vocabulary.
  CHECK(at_tp(4, false, false) - at_tp(4, true, false) == Approx(4.0 * 2048.0 * static_cast<double>(m.vocab)));
}

TEST_CASE("a compiled loss keeps the BF16 logits and writes no FP32 copy of them", "[fusion][memory]") {
  // torch.compile of the loss (torchtitan 2025): one kernel keeps the BF16 logits for backward
  // instead of the FP32 log-softmax, and its largest output is their BF16 gradient.
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  const double logits = 1.0 * 2048 * static_cast<double>(m.vocab);  // micro-batch 1, seq 2048, one rank
  Workload fused = llama8b(true), compiled = llama8b(true), eager = llama8b(true);
  compiled.loss_kernel = Workload::LossKernel::Compiled;
  eager.loss_kernel = Workload::LossKernel::Eager;  // blocks compiled, the loss not (torchtitan 2024-12)
  const auto plan = build_step_plan(m, fused);
  const auto mf = memory_per_stage(m, fused, plan).back();
  const auto mc = memory_per_stage(m, compiled, plan).back();
  const auto me = memory_per_stage(m, eager, plan).back();
  CHECK(mf.activations.base() - mc.activations.base() == Approx(2.0 * logits));  // FP32 -> BF16 kept
  // The fused loss's largest transient is its FP32 output (the size of the logits, 4 bytes); the
  // compiled one's is the larger of the BF16 gradient and every other op's output.
  const auto inputs = rank_memory_inputs(plan).back();
  CHECK(inputs.largest_loss_output.base() == Approx(4.0 * logits));
  // The loss is found by its mark, not its label: the cross-entropy and its backward only.
  int marked = 0;
  for (const auto& st : plan.stages)
    for (auto v : boost::make_iterator_range(boost::vertices(st.graph))) {
      const Op& op = st.graph[v];
      if (!op.loss) continue;
      ++marked;
      CHECK(op.label.find("cross_entropy") != std::string::npos);
    }
  CHECK(marked == 2);
  CHECK(mc.temporary.base() == Approx(std::max(inputs.largest_output.base(), 2.0 * logits) +
                                      (mf.temporary.base() - std::max(inputs.largest_output, inputs.largest_loss_output).base())));
  CHECK(me.temporary.base() - mf.temporary.base() == Approx(4.0 * logits));  // the eager FP32 upcast
  CHECK(mc.total().base() < mf.total().base());
}

TEST_CASE("fused.loss: defaults from fused.elementwise, round-trips, and rejects other values", "[fusion][stack]") {
  auto j = titan_8b();
  CHECK(workload_from_json(j, "w.json", stack_lookup()).loss() == Workload::LossKernel::Eager);
  j["fused"] = {{"elementwise", true}};
  CHECK(workload_from_json(j, "w.json", stack_lookup()).loss() == Workload::LossKernel::Fused);
  j["fused"]["loss"] = "compiled";
  const Workload w = workload_from_json(j, "w.json", stack_lookup());
  CHECK(w.loss_kernel == Workload::LossKernel::Compiled);
  CHECK(nlohmann::json::parse(workload_to_json(w))["fused"]["loss"] == "compiled");
  // Left to its default, it is not written: it follows fused.elementwise after a round trip.
  Workload unset = w;
  unset.loss_kernel = Workload::LossKernel::Auto;
  const auto back = nlohmann::json::parse(workload_to_json(unset));
  CHECK_FALSE(back["fused"].contains("loss"));
  j["fused"]["loss"] = "inductor";
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()), Catch::Contains("loss"));
}
