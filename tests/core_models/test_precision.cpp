// test_precision.cpp — issue 23: what each low-precision recipe puts in the operator graph and
// in memory, checked against counts and closed forms written here: which GEMMs run on the
// narrow format (the block's linear layers only), one quantize op per linear input and per
// output gradient with the recipe's passes and two outputs, the amax all-reduces the recipe
// needs, the per-step weight cast, FP8 sequence-parallel gathers, and the memory terms.
#include <catch2/catch.hpp>

#include <map>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"
#include "workload.hpp"

using namespace trnsim;
using test::workload;

namespace {
struct Counts {
  int low_gemms = 0, bf16_gemms = 0, quant = 0, grad_quant = 0, tp_amax = 0;
  int quant_passes = 0;
};
// One layer's forward and backward ops of stage 0 (layer 0).
Counts layer_counts(const StepPlan& plan, DType low) {
  Counts c;
  const auto& st = plan.stages.front();
  auto visit = [&](const Op& o) {
    if (o.layer != 0) return;
    if (o.kind == OpKind::Gemm) (o.dtype == low ? c.low_gemms : c.bf16_gemms)++;
    if (o.label.find(".grad_quant") != std::string::npos) ++c.grad_quant;
    else if (o.label.find(".quant") != std::string::npos) ++c.quant, c.quant_passes = o.passes;
    if (o.is_collective() && o.label.find(".amax") != std::string::npos) ++c.tp_amax;
  };
  for (auto v : st.forward) visit(st.graph[v]);
  for (auto v : st.backward) visit(st.graph[v]);
  return c;
}
Workload llama_tp2(Precision p, Fp8Recipe r = Fp8Recipe::Delayed) {
  Workload w = workload("llama2-7b", "dgx-h100", 1, 2, 1, 4, 1, 8, 4096);
  w.sequence_parallel = true;
  w.attention = Attention::Flash;
  w.precision = p;
  w.fp8_recipe = r;
  w.fp32_grads = true;
  w.zero = 1;
  return w;
}
}  // namespace

TEST_CASE("each precision puts exactly the block linears on its format, with its quantize ops", "[precision]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  struct Case {
    Precision p;
    Fp8Recipe r;
    DType low;
    int passes, amax_per_layer;
  };
  // Llama block with fused QKV and gate/up: 4 linears (qkv, out_proj, gate_up, down), each with
  // a forward dgrad and wgrad: 12 low-precision GEMMs; the flash kernel's GEMMs (2 forward, 5
  // backward with the recomputed scores) stay BF16. Inputs quantized: attn_in, proj_in, mlp_in,
  // down_in; output gradients: one per linear. Amax all-reduces over TP: the two inputs that
  // are gathered over the sequence-parallel group, where the scale needs the global amax.
  for (const Case& c : {Case{Precision::FP8, Fp8Recipe::Delayed, DType::FP8, 1, 0},
                        Case{Precision::FP8, Fp8Recipe::Current, DType::FP8, 2, 2},
                        Case{Precision::FP8, Fp8Recipe::Rowwise, DType::FP8, 3, 0},
                        Case{Precision::MXFP8, Fp8Recipe::Delayed, DType::MXFP8, 1, 0},
                        Case{Precision::NVFP4, Fp8Recipe::Delayed, DType::NVFP4, 2, 2}}) {
    INFO(to_string(c.p) << " " << to_string(c.r));
    const auto plan = build_step_plan(m, llama_tp2(c.p, c.r));
    const Counts n = layer_counts(plan, c.low);
    CHECK(n.low_gemms == 12);
    CHECK(n.bf16_gemms == 7);
    CHECK(n.quant == 4);
    CHECK(n.grad_quant == 4);
    CHECK(n.quant_passes == c.passes);
    CHECK(n.tp_amax == c.amax_per_layer);
    CHECK(test::op_named(plan, "head.logits")->dtype == DType::BF16);  // LM head stays BF16
    // Row-wise FP8 (torchao): the GEMMs keep FP8 operands and issue at the BF16 rate, backward too.
    const bool rowwise = c.r == Fp8Recipe::Rowwise && c.p == Precision::FP8;
    for (const char* name : {"L0.qkv", "L0.qkv.dgrad", "L0.down.wgrad"}) {
      INFO(name);
      REQUIRE(test::op_named(plan, name));
      CHECK(test::op_named(plan, name)->bf16_rate == rowwise);
    }
  }
  // BF16 has none of it.
  const Counts b = layer_counts(build_step_plan(m, llama_tp2(Precision::MixedBF16)), DType::FP8);
  CHECK((b.low_gemms == 0 && b.quant == 0 && b.grad_quant == 0 && b.tp_amax == 0));
}

TEST_CASE("quantize ops move the bytes of their format, SP gathers move FP8, gradients stay BF16", "[precision]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  const int64_t T = 4096, h = m.hidden, t = 2;
  for (Precision p : {Precision::FP8, Precision::MXFP8, Precision::NVFP4}) {
    INFO(to_string(p));
    const DType low = linear_dtype(p);
    const auto plan = build_step_plan(m, llama_tp2(p));
    const Op* q = test::op_named(plan, "L0.attn_in.quant");  // the local SP shard: T/t tokens
    REQUIRE(q);
    CHECK(q->elements == T / t * h);
    CHECK(q->bytes_written.base() == Approx(2.0 * dtype_bytes(low) * T / t * h));  // row-wise + transposed copies
    CHECK(q->bytes_read.base() == Approx(2.0 * q->passes * T / t * h));
    const Op* ag = test::op_named(plan, "L0.attn_enter");
    const Op* rs = test::op_named(plan, "L0.attn_enter.bwd");
    REQUIRE((ag && rs));
    CHECK(ag->comm_bytes.base() == Approx(dtype_bytes(low) * T * h));
    CHECK(rs->comm_bytes.base() == Approx(2.0 * T * h));  // BF16 input gradients
    const Op* qkv = test::op_named(plan, "L0.qkv");
    CHECK(qkv->bytes_written.base() == Approx(2.0 * T * qkv->n));  // a low-precision GEMM writes BF16
  }
  // Row-wise FP8 (torchtitan under TP): the sequence-parallel gather moves BF16, and the cast runs
  // on the gathered tensor (T tokens, not T / t), after the gather.
  const auto rw = build_step_plan(m, llama_tp2(Precision::FP8, Fp8Recipe::Rowwise));
  const Op* ag = test::op_named(rw, "L0.attn_enter");
  const Op* q = test::op_named(rw, "L0.attn_in.quant");
  REQUIRE((ag && q));
  CHECK(ag->comm_bytes.base() == Approx(2.0 * T * h));
  CHECK(q->elements == T * h);
  const auto& fwd = rw.stages.front().forward;
  auto position = [&](const std::string& label) {
    for (size_t i = 0; i < fwd.size(); ++i)
      if (rw.stages.front().graph[fwd[i]].label == label) return i;
    return fwd.size();
  };
  CHECK(position("L0.attn_enter") < position("L0.attn_in.quant"));
}

TEST_CASE("the weight cast runs once per step over the stage's linear weights", "[precision]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  const auto plan = build_step_plan(m, llama_tp2(Precision::FP8));
  const Op* cast = test::op_named(plan, "optimizer.weight_quant");
  REQUIRE(cast);
  CHECK(cast->phase == Phase::Optimizer);
  const double h = m.hidden, f = m.ffn, d = m.head_dim();
  const double linear = m.layers * (h * (m.heads + 2 * m.kv_heads) * d + m.heads * d * h + 3 * h * f) / 2;  // TP 2
  CHECK(static_cast<double>(cast->elements) == Approx(linear));
  // Delayed scaling reduces the amax history once per step over DP; current scaling does not.
  CHECK(test::op_named(plan, "optimizer.amax_reduce"));
  CHECK_FALSE(test::op_named(build_step_plan(m, llama_tp2(Precision::FP8, Fp8Recipe::Current)), "optimizer.amax_reduce"));
}

TEST_CASE("low-precision memory: weight copies and narrower saved linear inputs, by hand", "[precision]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  Workload bf = llama_tp2(Precision::MixedBF16), f8 = llama_tp2(Precision::FP8);
  const double s = 4096, b = 1, h = m.hidden, f = m.ffn, t = 2;
  // Saved linear inputs (attention in, MLP in, out-projection in, activation out) in FP8: half
  // of 2sbh + 2sbh + 2sbh + 2sbf, all divided by t with SP.
  const double saved = (2 * s * b * h * 3 + 2 * s * b * f) / t;
  CHECK(layer_activation_bytes(m, bf).base() - layer_activation_bytes(m, f8).base() == Approx(saved / 2));
  Workload nv = llama_tp2(Precision::NVFP4);
  CHECK(layer_activation_bytes(m, bf).base() - layer_activation_bytes(m, nv).base() ==
        Approx(saved * (1 - dtype_bytes(DType::NVFP4) / 2)));
  // Copies: every linear weight of the rank, twice (row-wise and transposed), at the format's bytes.
  const auto mem = memory_per_stage(m, f8, build_step_plan(m, f8));
  const double d = m.head_dim();
  const double linear = m.layers * (h * (m.heads + 2 * m.kv_heads) * d + m.heads * d * h + 3 * h * f) / t;
  CHECK(mem.front().low_precision_weights.base() == Approx(2 * linear));
  CHECK(memory_per_stage(m, bf, build_step_plan(m, bf)).front().low_precision_weights.base() == 0);
  // FP8 keeps FP32 master weights like mixed-bf16.
  CHECK(mem.front().master_weights.base() > 0);
}

TEST_CASE("per-tensor FP8 keeps one copy where the FP8 GEMM takes any layout and block formats keep two",
          "[precision]") {
  // Hopper's FP8 GEMM takes only TN operands, so TE quantizes every FP8 operand row-wise and
  // transposed; Blackwell's takes any layout, and per-tensor FP8 keeps the row-wise copy alone.
  // MXFP8 / NVFP4 scale blocks along K, so the column-wise copy is a second quantization anyway.
  const auto m = load_model_spec(model_path("llama2-7b"));
  const int64_t T = 4096, h = m.hidden, t = 2;
  for (Precision p : {Precision::FP8, Precision::MXFP8, Precision::NVFP4}) {
    INFO(to_string(p));
    Workload tn = llama_tp2(p), any = llama_tp2(p);
    any.fp8_any_layout = true;
    const double copies = p == Precision::FP8 ? 1 : 2;
    const DType low = linear_dtype(p);
    const auto plan = build_step_plan(m, any);
    const Op* q = test::op_named(plan, "L0.attn_in.quant");
    REQUIRE(q);
    CHECK(q->bytes_written.base() == Approx(copies * dtype_bytes(low) * T / t * h));
    const auto plan_tn = build_step_plan(m, tn);
    const Op* cast = test::op_named(plan, "optimizer.weight_quant");
    const Op* cast_tn = test::op_named(plan_tn, "optimizer.weight_quant");
    REQUIRE((cast && cast_tn));
    CHECK(cast->bytes_written.base() == Approx(cast_tn->bytes_written.base() * copies / 2));
    const double lp_any = memory_per_stage(m, any, plan).front().low_precision_weights.base();
    const double lp_tn = memory_per_stage(m, tn, plan_tn).front().low_precision_weights.base();
    CHECK(lp_any == Approx(lp_tn * copies / 2));
  }
}

TEST_CASE("BF16 blocks of a low-precision run: their linears, saved inputs and weights stay BF16", "[precision]") {
  // torchtitan's NVFP4 recipe keeps the last blocks in BF16 (bf16_layers): Llama 2 7B's 32
  // blocks with the first 2 and the last 5 kept.
  const auto m = load_model_spec(model_path("llama2-7b"));
  Workload nv = llama_tp2(Precision::NVFP4), kept = nv;
  kept.bf16_first_layers = 2;
  kept.bf16_last_layers = 5;
  REQUIRE(kept.bf16_layer(0, 32));
  REQUIRE(kept.bf16_layer(27, 32));
  REQUIRE_FALSE(kept.bf16_layer(2, 32));
  REQUIRE_FALSE(kept.bf16_layer(26, 32));
  const auto plan = build_step_plan(m, kept);
  // Per layer: 12 linear GEMMs (4 linears x forward, dgrad, wgrad) on NVFP4 or BF16, and the
  // block's quantize ops only where the linears are low precision.
  std::map<int, int> low, bf16, quant;
  const auto& st = plan.stages.front();
  for (const auto* list : {&st.forward, &st.backward})
    for (auto v : *list) {
      const Op& o = st.graph[v];
      if (o.layer < 0) continue;
      if (o.kind == OpKind::Gemm && o.label.find(".flash.") == std::string::npos) (o.dtype == DType::NVFP4 ? low : bf16)[o.layer]++;
      if (o.label.find("quant") != std::string::npos) quant[o.layer]++;
    }
  for (int l = 0; l < 32; ++l) {
    INFO("layer " << l);
    const bool b = l < 2 || l >= 27;
    CHECK(low[l] == (b ? 0 : 12));
    CHECK(bf16[l] == (b ? 12 : 0));
    CHECK((quant[l] == 0) == b);
  }
  // Activations: a BF16 block saves its linear inputs in BF16, as a mixed-bf16 run.
  Workload bf = llama_tp2(Precision::MixedBF16);
  CHECK(layer_activation_bytes(m, kept, 30).base() == Approx(layer_activation_bytes(m, bf).base()));
  CHECK(layer_activation_bytes(m, kept, 10).base() == Approx(layer_activation_bytes(m, nv).base()));
  // Weight copies: the NVFP4 blocks' only, 25 of 32.
  const double lp_all = memory_per_stage(m, nv, build_step_plan(m, nv)).front().low_precision_weights.base();
  const auto mem = memory_per_stage(m, kept, plan).front();
  CHECK(mem.low_precision_weights.base() == Approx(lp_all * 25 / 32));
  // Saved activations: 7 blocks at BF16, 25 at NVFP4.
  const auto all = memory_per_stage(m, nv, build_step_plan(m, nv)).front();
  CHECK(mem.activations.base() - all.activations.base() ==
        Approx(7 * (layer_activation_bytes(m, bf).base() - layer_activation_bytes(m, nv).base())));
  // More BF16 work: the step is slower, never faster (on a chip with an NVFP4 rate).
  Workload nb = workload("llama2-7b", "dgx-b200", 1, 2, 1, 4, 1, 8, 4096), kb = nb;
  nb.precision = kb.precision = Precision::NVFP4;
  kb.bf16_last_layers = 5;
  CHECK(execute_step(make_scenario(kb, true)).step_time_s > execute_step(make_scenario(nb, true)).step_time_s);
}

TEST_CASE("bf16_layers: refused without a low precision and beyond the model's layers, round-trips", "[precision]") {
  auto parse = [](const std::string& precision, const std::string& layers) {
    return workload_from_json(nlohmann::json::parse(R"({"name": "w", "model": "llama2-7b", "hw": "dgx-h100", "nodes": 1,
      "parallel": {"tp": 1, "pp": 1, "dp": 8, "sequence_parallel": false, "zero": 1},
      "batch": {"micro_batch": 1, "global_batch": 8, "seq_len": 4096}, "precision": ")" + precision +
                                                    R"(", "checkpointing": "full", "fused": {"qkv": true, "gate_up": true},
      "bf16_layers": )" + layers + "}"), "w.json");
  };
  const Workload w = parse("fp8", R"({"last": 4})");
  CHECK(w.bf16_last_layers == 4);
  CHECK(w.bf16_first_layers == 0);
  CHECK(workload_from_json(nlohmann::json::parse(workload_to_json(w)), "w.json").bf16_last_layers == 4);
  CHECK_THROWS_WITH(parse("mixed-bf16", R"({"last": 4})"), Catch::Contains("/bf16_layers") && Catch::Contains("mixed-bf16"));
  CHECK_THROWS_WITH(parse("fp8", R"({"lats": 4})"), Catch::Contains("/bf16_layers/lats") && Catch::Contains("first, last"));
  CHECK_THROWS_WITH(parse("fp8", R"({"last": -1})"), Catch::Contains("/bf16_layers/last"));
  const auto m = load_model_spec(model_path("llama2-7b"));
  CHECK_THROWS_WITH(build_step_plan(m, parse("fp8", R"({"first": 16, "last": 17})")),
                    Catch::Contains("/bf16_layers") && Catch::Contains("exceed the 32 layers"));
}

// Megatron-Core's fp8_param_gather (issue 23 / 25, declared for NeMo in stacks/nemo.json): the
// distributed optimizer keeps the linear weights only in FP8 / MXFP8, so the rank holds its
// low-precision copies and no BF16 copy of them; per-tensor FP8 gathers the updated weights in FP8.
TEST_CASE("fp8_param_gather: no BF16 copy of the linear weights, FP8 gathered at one byte, by hand", "[precision]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  const double h = m.hidden, f = m.ffn, d = m.head_dim(), t = 2;
  const double linear = m.layers * (h * (m.heads + 2 * m.kv_heads) * d + m.heads * d * h + 3 * h * f) / t;
  for (Precision p : {Precision::FP8, Precision::MXFP8}) {
    INFO(to_string(p));
    Workload plain = llama_tp2(p), gather = llama_tp2(p);
    plain.dp = gather.dp = 4;
    plain.global_batch = gather.global_batch = 16;
    gather.fp8_param_gather = true;
    const auto plan = build_step_plan(m, plain), plan_g = build_step_plan(m, gather);
    const auto mem = memory_per_stage(m, plain, plan).front(), mem_g = memory_per_stage(m, gather, plan_g).front();
    CHECK(mem.weights.base() - mem_g.weights.base() == Approx(2 * linear));
    CHECK(mem_g.low_precision_weights.base() == Approx(mem.low_precision_weights.base()));
    CHECK(mem_g.master_weights.base() == Approx(mem.master_weights.base()));
    const Op* ag = test::op_named(plan, "optimizer.param_gather");
    const Op* ag_g = test::op_named(plan_g, "optimizer.param_gather");
    REQUIRE((ag && ag_g));
    // FP8: the linear weights one byte each instead of two; MXFP8 gathers BF16 into the gradient buffer.
    CHECK(ag->comm_bytes.base() - ag_g->comm_bytes.base() == Approx(p == Precision::FP8 ? linear : 0.0));
  }
  // Not under ZeRO-3 (Megatron-FSDP keeps its own buffers): the flag is inert there.
  Workload z3 = llama_tp2(Precision::FP8), z3g = z3;
  z3.zero = z3g.zero = 3;
  z3.dp = z3g.dp = 4;
  z3.global_batch = z3g.global_batch = 16;
  z3g.fp8_param_gather = true;
  CHECK(memory_per_stage(m, z3g, build_step_plan(m, z3g)).front().weights.base() ==
        Approx(memory_per_stage(m, z3, build_step_plan(m, z3)).front().weights.base()));
}

TEST_CASE("low-precision weight copies count every local expert of a grouped GEMM, by hand", "[precision][moe]") {
  // Mixtral 8x7B, EP 4 on 8 GPUs (2 local experts per rank), FP8 with transposes (Hopper): the copies
  // are twice the rank's linear weights, the attention projections and both local experts' three
  // matrices (the router, embedding and head stay BF16).
  const auto m = load_model_spec(model_path("mixtral-8x7b"));
  Workload w = test::moe_workload("mixtral-8x7b", "dgx-h100", 1, 1, 8, 4, 1, 8, 4096);
  w.precision = Precision::FP8;
  w.fused_qkv = w.fused_gate_up = true;
  const auto plan = build_step_plan(m, w);
  const double h = m.hidden, d = m.head_dim(), fe = m.moe.expert_ffn, el = m.moe.experts / 4.0;
  const double attn = h * (m.heads + 2 * m.kv_heads) * d + m.heads * d * h;
  const double experts = el * 3 * h * fe;
  const Op* gate_up = test::op_named(plan, "L0.experts.gate_up");
  REQUIRE(gate_up);
  CHECK(gate_up->batch == static_cast<int64_t>(el));
  const Op* qkv = test::op_named(plan, "L0.qkv");
  REQUIRE(qkv);
  CHECK(qkv->dtype == DType::FP8);
  const double linear = m.layers * (attn + experts);
  CHECK(memory_per_stage(m, w, plan).front().low_precision_weights.base() == Approx(2 * linear));
  // The once-per-step weight cast covers the same weights.
  const Op* cast = test::op_named(plan, "optimizer.weight_quant");
  REQUIRE(cast);
  CHECK(static_cast<double>(cast->elements) == Approx(linear));
}

TEST_CASE("fp8_param_gather: refused without FP8 / MXFP8 or without a distributed optimizer, round-trips",
          "[precision]") {
  auto parse = [](const std::string& precision, int zero) {
    return workload_from_json(nlohmann::json::parse(R"({"name": "w", "model": "llama2-7b", "hw": "dgx-h100", "nodes": 1,
      "parallel": {"tp": 1, "pp": 1, "dp": 8, "sequence_parallel": false, "zero": )" + std::to_string(zero) + R"(},
      "batch": {"micro_batch": 1, "global_batch": 8, "seq_len": 4096}, "precision": ")" + precision +
                                                    R"(", "checkpointing": "full", "fused": {"qkv": true, "gate_up": true},
      "fp8_param_gather": true})"), "w.json");
  };
  const Workload w = parse("mxfp8", 1);
  CHECK(w.fp8_param_gather);
  CHECK(workload_from_json(nlohmann::json::parse(workload_to_json(w)), "w.json").fp8_param_gather);
  CHECK_THROWS_WITH(parse("mixed-bf16", 1), Catch::Contains("w.json") && Catch::Contains("/fp8_param_gather") &&
                                                Catch::Contains("mixed-bf16"));
  CHECK_THROWS_WITH(parse("fp8", 0), Catch::Contains("/fp8_param_gather") && Catch::Contains("zero 1 or 2"));
  CHECK_THROWS_WITH(parse("fp8", 3), Catch::Contains("/fp8_param_gather"));
  CHECK_THROWS_WITH(parse("nvfp4", 1), Catch::Contains("/fp8_param_gather"));
}

// Master remainders (Megatron-Core's precision-aware optimizer store_param_remainders, declared
// for NeMo / Megatron-Bridge in stacks/nemo.json): the FP32 master is the BF16 parameter plus its
// 16 low bits, 2 bytes per trained parameter; a linear weight held only in FP8 (fp8_param_gather)
// has no BF16 high half and keeps 4.
TEST_CASE("master remainders: 2 bytes per trained parameter, 4 where the weight is only FP8, by hand", "[precision]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  const double h = m.hidden, f = m.ffn, d = m.head_dim(), t = 2, dp = 4;
  const double linear = m.layers * (h * (m.heads + 2 * m.kv_heads) * d + m.heads * d * h + 3 * h * f) / t;
  auto stage0 = [&](const Workload& w) { return memory_per_stage(m, w, build_step_plan(m, w)).front(); };
  Workload bf16 = llama_tp2(Precision::MixedBF16);
  bf16.dp = 4;
  bf16.global_batch = 16;
  Workload rem = bf16;
  rem.master_remainders = true;
  const auto full = stage0(bf16), half = stage0(rem);
  REQUIRE(full.master_weights.base() > 0);
  CHECK(half.master_weights.base() == Approx(full.master_weights.base() / 2));
  CHECK(half.weights.base() == Approx(full.weights.base()));
  CHECK(rem.optimizer_kept_bytes() == Approx(bf16.optimizer_kept_bytes() - 2));
  // FP8 with fp8_param_gather: the linear weights' masters stay whole (their shard: linear / dp).
  Workload fp8 = rem;
  fp8.precision = Precision::FP8;
  fp8.fp8_param_gather = true;
  CHECK(stage0(fp8).master_weights.base() == Approx(full.master_weights.base() / 2 + 2 * linear / dp));
  fp8.fp8_param_gather = false;
  CHECK(stage0(fp8).master_weights.base() == Approx(full.master_weights.base() / 2));
  // Parsed, round-tripped, and refused without an FP32 master.
  auto parse = [](const std::string& precision) {
    return workload_from_json(nlohmann::json::parse(R"({"name": "w", "model": "llama2-7b", "hw": "dgx-h100", "nodes": 1,
      "parallel": {"tp": 1, "pp": 1, "dp": 8, "sequence_parallel": false, "zero": 1},
      "batch": {"micro_batch": 1, "global_batch": 8, "seq_len": 4096}, "precision": ")" + precision +
                                                    R"(", "checkpointing": "full", "fused": {"qkv": true, "gate_up": true}, "master_remainders": true})"), "w.json");
  };
  const Workload w = parse("mixed-bf16");
  CHECK(w.master_remainders);
  CHECK(workload_from_json(nlohmann::json::parse(workload_to_json(w)), "w.json").master_remainders);
  CHECK_THROWS_WITH(parse("fp32"), Catch::Contains("w.json") && Catch::Contains("/master_remainders") &&
                                       Catch::Contains("no FP32 master"));
  CHECK_THROWS_WITH(parse("bf16-sr"), Catch::Contains("/master_remainders"));
}
