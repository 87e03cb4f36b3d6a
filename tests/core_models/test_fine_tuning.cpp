// test_fine_tuning.cpp — fine-tuning workloads (issue 23's NeMo SFT / LoRA rows): LoRA's frozen
// base and trainable adapters, and packed documents' attention, against closed forms written here.
#include <catch2/catch.hpp>

#include "block_builder.hpp"
#include "helpers.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;
using test::sum_ops;
using test::workload;

namespace {
Workload llama7b(int64_t dp = 1) {
  Workload w = workload("llama2-7b", "dgx-h100", 1, 1, 1, dp, 1, 4 * dp, 4096);
  w.attention = Attention::Flash;
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  return w;
}
// Llama 2 7B's GEMM weights per layer, by LoRA target: (in, out) of each linear layer.
struct Linear {
  double in, out;
};
const Linear kQkv{4096, 3 * 4096}, kProj{4096, 4096}, kFc1{4096, 2 * 11008}, kFc2{11008, 4096};
double adapter_params(double r) {
  double p = 0;
  for (const Linear& l : {kQkv, kProj, kFc1, kFc2}) p += r * (l.in + l.out);
  return 32 * p;  // 32 layers
}
double gemm_weights() {  // every GEMM weight: the blocks' linear layers and the LM head
  double p = 0;
  for (const Linear& l : {kQkv, kProj, kFc1, kFc2}) p += l.in * l.out;
  return 32 * p + 4096.0 * 32000;
}
}  // namespace

TEST_CASE("LoRA: the frozen base loses its weight gradients, the adapters add 6 x r x (in + out) per token",
          "[finetune]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  Workload full = llama7b();
  Workload lora = full;
  lora.lora.rank = 16;
  const double tokens = static_cast<double>(full.tokens_per_step());
  const auto pf = build_step_plan(m, full), pl = build_step_plan(m, lora);
  // Full training minus LoRA = the base weight gradients (2 x weights per token) minus the
  // adapters' forward, input and weight gradients (2 + 2 + 2 FLOPs per adapter weight per token).
  // The adapter's sum into the base output: 2 FLOPs per output element forward, 2 backward.
  const double outs = 32 * (kQkv.out + kProj.out + kFc1.out + kFc2.out);
  const double removed = 2 * gemm_weights() * tokens - 6 * adapter_params(16) * tokens - 4 * outs * tokens;
  CHECK(pf.model_flops.base() - pl.model_flops.base() == Approx(removed).epsilon(1e-9));
  // No base weight-gradient GEMM, no embedding backward; the adapters' weight gradients exist.
  CHECK(test::op_named(pl, "L0.qkv.wgrad") == nullptr);
  CHECK(test::op_named(pl, "head.logits.wgrad") == nullptr);
  CHECK(test::op_named(pl, "embed.lookup.bwd") == nullptr);
  CHECK(test::op_named(pf, "embed.lookup.bwd") != nullptr);
  REQUIRE(test::op_named(pl, "L0.down.lora_a.wgrad") != nullptr);
  CHECK(test::op_named(pl, "L0.qkv.dgrad") != nullptr);  // the input gradient still flows through the base
  CHECK(pl.stages.front().trainable_parameters == static_cast<int64_t>(adapter_params(16)));
  CHECK(pf.stages.front().trainable_parameters == pf.stages.front().parameters);
}

TEST_CASE("LoRA targets: only the named linear layers get adapters", "[finetune]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  Workload w = llama7b();
  w.lora.rank = 32;
  w.lora.proj = w.lora.fc1 = w.lora.fc2 = false;  // NeMo 1.x's default: attention_qkv only
  const auto p = build_step_plan(m, w);
  CHECK(test::op_named(p, "L3.qkv.lora_a") != nullptr);
  CHECK(test::op_named(p, "L3.out_proj.lora_a") == nullptr);
  CHECK(test::op_named(p, "L3.down.lora_b") == nullptr);
  CHECK(p.stages.front().trainable_parameters == static_cast<int64_t>(32 * 32 * (kQkv.in + kQkv.out)));
}

TEST_CASE("LoRA memory and gradient traffic: only the adapters have gradients, master weights and Adam states",
          "[finetune]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  Workload w = llama7b(8);
  w.lora.rank = 32;
  const auto plan = build_step_plan(m, w);
  const auto mem = memory_per_stage(m, w, plan);
  const double a = adapter_params(32), P = static_cast<double>(m.total_parameters()) + a;
  CHECK(mem[0].weights.base() == Approx(2 * P));           // BF16 base + adapters
  CHECK(mem[0].gradients.base() == Approx(4 * a));         // FP32 adapter gradients
  CHECK(mem[0].optimizer_states.base() == Approx(8 * a));  // Adam moments (ZeRO-0)
  CHECK(mem[0].master_weights.base() == Approx(4 * a));
  // The DP reduction moves the adapters' gradients only.
  double reduced = 0;
  for (const auto& b : plan.stages.front().dp_buckets) reduced += plan.stages.front().graph[b.op].comm_bytes.base();
  CHECK(reduced == Approx(4 * a));
  // ZeRO-1 shards the adapters' states over DP 8.
  w.zero = 1;
  const auto z = memory_per_stage(m, w, build_step_plan(m, w));
  CHECK(z[0].optimizer_states.base() == Approx(8 * a / 8));
}

TEST_CASE("packed documents: a flash kernel runs each document's causal tiles", "[finetune]") {
  const auto m = load_model_spec(model_path("llama2-7b"));
  Workload w = llama7b();
  Workload packed = w;
  packed.document_tokens = 256;
  const auto p = build_step_plan(m, w), q = build_step_plan(m, packed);
  const Op* a = test::op_named(p, "L0.flash.scores");
  const Op* b = test::op_named(q, "L0.flash.scores");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->n == flash_key_columns(4096, true));  // 2304 key columns per query row
  CHECK(b->n == flash_key_columns(256, true));   // 256: the 512-wide tile covers the document
  CHECK(a->m == b->m);                           // every query still runs
  // Only attention's core changes. Per (sequence, head, query, key column): seven GEMM passes of
  // 2 x head_dim FLOPs (QK^T forward, its backward recompute, dgrad and wgrad; PV forward, dgrad,
  // wgrad) and 10 element-wise FLOPs (softmax 5, its backward 3, the backward's exp 2).
  const double per_column = 4.0 /*sequences*/ * 32 /*heads*/ * 4096 /*queries*/ * 32 /*layers*/ * (7 * 2 * 128 + 10);
  CHECK(p.model_flops.base() - q.model_flops.base() ==
        Approx(per_column * static_cast<double>(flash_key_columns(4096, true) - flash_key_columns(256, true))));
}

TEST_CASE("fine-tuning fields round-trip and refuse bad values", "[finetune]") {
  Workload w = llama7b();
  w.name = "t";
  w.hw = "dgx-h100";
  w.document_tokens = 512;
  w.lora.rank = 8;
  w.lora.fc1 = false;
  const Workload back = workload_from_json(nlohmann::json::parse(workload_to_json(w)), "round-trip");
  CHECK(back.document_tokens == 512);
  CHECK(back.lora.rank == 8);
  CHECK(back.lora.qkv);
  CHECK_FALSE(back.lora.fc1);
  CHECK(back.lora.fc2);
  // document_tokens equal to seq_len is one document per sequence.
  nlohmann::json j = nlohmann::json::parse(workload_to_json(w));
  j["batch"]["document_tokens"] = 4096;
  CHECK(workload_from_json(j, "x").document_tokens == 0);
  j["batch"]["document_tokens"] = 0;
  CHECK_THROWS_AS(workload_from_json(j, "x"), ConfigError);
  j["batch"]["document_tokens"] = 512;
  j["lora"]["alpha"] = 32;  // not a performance field: refused as unknown, not ignored
  CHECK_THROWS_WITH(workload_from_json(j, "x"), Catch::Contains("/lora/alpha"));
}
