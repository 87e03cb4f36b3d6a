// test_graph.cpp — issue 3: the operator graph and memory model against closed forms
// written here independently of the builder: FLOPs = 6·N·tokens + 12·L·h·s·tokens (+ the
// recomputed forward), exact TP sharding of GEMM FLOPs, TP collective sizes, and
// hand-calculated memory (Korthikanti et al. 2022) for three configurations.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "model_spec.hpp"
#include "trnsim/error.hpp"

using namespace trnsim;
using test::sum_ops;
using test::workload;

namespace {
double gemm_flops(const Op& o) { return o.kind == OpKind::Gemm ? o.flops.base() : 0.0; }
double count_kind(const StepPlan& p, OpKind k, Group g = Group::None) {
  return sum_ops(p, [&](const Op& o) { return o.kind == k && (g == Group::None || o.group == g) ? 1.0 : 0.0; });
}
// Parameters that take part in matmuls, by hand: per-layer projection matrices + logits.
double matmul_params(const ModelSpec& m) {
  const double h = m.hidden, f = m.ffn, d = m.head_dim(), a = m.heads, g = m.kv_heads, V = m.vocab;
  double layer = h * a * d + 2 * h * g * d + a * d * h + (m.activation == Activation::SwiGLU ? 3 : 2) * h * f;
  double head = h * V + (m.encoder ? h * h : 0);  // BERT adds the MLM transform
  return m.layers * layer + head;
}
}  // namespace

TEST_CASE("whole-step FLOPs match 6·N·tokens + attention (+ recompute) within 1%", "[graph]") {
  struct Case {
    const char* model;
    int64_t seq;
  };
  for (auto c : {Case{"llama2-7b", 4096}, Case{"pythia-6.9b", 2048}, Case{"gpt-neox-20b", 2048}, Case{"bert-large", 128}}) {
    for (auto ck : {Checkpointing::None, Checkpointing::Selective, Checkpointing::Full}) {
      auto m = load_model_spec(model_path(c.model));
      auto w = workload(c.model, "trn1.32xlarge", 1, 8, 1, 4, 1, 8, c.seq);
      w.checkpointing = ck;
      auto plan = build_step_plan(m, w);
      const double tokens = static_cast<double>(w.global_batch * c.seq);
      const double L = m.layers, h = m.hidden, s = c.seq;
      const double N = matmul_params(m);
      const double model = 6 * N * tokens + 12 * L * h * s * tokens;
      double hardware = model;
      if (ck == Checkpointing::Selective) hardware += 4 * L * h * s * tokens;  // QK^T and attention x V again
      if (ck == Checkpointing::Full) hardware += 2 * (N - h * m.vocab - (m.encoder ? h * h : 0)) * tokens + 4 * L * h * s * tokens;
      INFO(c.model << " " << to_string(ck));
      CHECK(plan.model_flops.base() == Approx(model).epsilon(0.01));
      CHECK(plan.hardware_flops.base() == Approx(hardware).epsilon(0.01));
    }
  }
}

TEST_CASE("TP-sharded GEMM FLOPs summed over ranks equal the unsharded ones exactly", "[graph]") {
  for (const char* model : {"llama2-7b", "gpt-neox-20b", "bert-large"}) {
    auto m = load_model_spec(model_path(model));
    const int64_t seq = m.encoder ? 128 : 2048;
    auto w1 = workload(model, "trn1.32xlarge", 1, 1, 1, 32, 1, 32, seq);
    const int64_t t = m.vocab % 8 == 0 ? 8 : 2;  // BERT's 30,522-word vocabulary shards evenly over 2
    auto w8 = workload(model, "trn1.32xlarge", 1, t, 1, 32 / t, 1, 32 / t, seq);
    for (bool sp : {false, true}) {
      w8.sequence_parallel = sp;
      const double f1 = sum_ops(build_step_plan(m, w1), gemm_flops);
      const double f8 = sum_ops(build_step_plan(m, w8), gemm_flops);
      INFO(model << " sp=" << sp);
      CHECK(f8 * static_cast<double>(t) == f1);
    }
  }
}

TEST_CASE("TP collective sizes and counts follow Megatron's f/g operators", "[graph]") {
  auto m = load_model_spec(model_path("llama2-7b"));
  auto w = workload("llama2-7b", "trn1.32xlarge", 1, 8, 1, 4, 1, 4, 4096);
  const double bsh2 = 1.0 * 4096 * 4096 * 2;  // b·s·h BF16 bytes
  const double L = m.layers;
  SECTION("without SP: two all-reduces forward and two backward per layer, each 2·b·s·h bytes") {
    auto p = build_step_plan(m, w);
    // + embedding all-reduce (fwd) + logits entry all-reduce (bwd) + 3 small loss all-reduces
    CHECK(count_kind(p, OpKind::AllReduce, Group::TP) == 4 * L + 2 + 3);
    const double big = sum_ops(p, [&](const Op& o) {
      return o.group == Group::TP && o.comm_bytes.base() == bsh2 ? 1.0 : 0.0;
    });
    CHECK(big == 4 * L + 2);
  }
  SECTION("with SP: all-gather / reduce-scatter pairs replace the all-reduces") {
    w.sequence_parallel = true;
    auto p = build_step_plan(m, w);
    CHECK(count_kind(p, OpKind::AllReduce, Group::TP) == 3);  // only the loss reductions
    // fwd: 2 AG + 2 RS per layer; bwd: 2 RS + 2 AG (for g) + 2 AG (input re-gather)
    CHECK(count_kind(p, OpKind::ReduceScatter, Group::TP) == 4 * L + 1 + 1);
    CHECK(count_kind(p, OpKind::AllGather, Group::TP) == 6 * L + 1 + 2);
  }
  SECTION("GPT-NeoX parallel residual reduces once per layer, not twice") {
    auto mn = load_model_spec(model_path("gpt-neox-20b"));
    auto wn = workload("gpt-neox-20b", "trn1.32xlarge", 1, 8, 1, 4, 1, 4, 2048);
    auto p = build_step_plan(mn, wn);
    CHECK(count_kind(p, OpKind::AllReduce, Group::TP) == 2 * mn.layers + 2 + 3);
  }
}

TEST_CASE("architectures differ in the graph, not only in a label", "[graph]") {
  auto count_norm_passes = [](const char* model, int64_t seq) {
    auto m = load_model_spec(model_path(model));
    auto p = build_step_plan(m, workload(model, "trn1.32xlarge", 1, 8, 1, 4, 1, 4, seq));
    return sum_ops(p, [](const Op& o) { return o.kind == OpKind::Norm && o.phase == Phase::Forward ? o.passes : 0.0; });
  };
  // RMSNorm: 2 passes x (2 per layer + final); LayerNorm: 3 passes.
  CHECK(count_norm_passes("llama2-7b", 4096) == 2 * (2 * 32 + 1));
  CHECK(count_norm_passes("pythia-6.9b", 2048) == 3 * (2 * 32 + 1));
  CHECK(count_norm_passes("bert-large", 128) == 3 * (2 * 24 + 2));  // + embedding LN + MLM LN
}

TEST_CASE("fused QKV and gate-up: equal FLOPs, fewer and larger GEMMs", "[graph]") {
  auto m = load_model_spec(model_path("llama2-7b"));
  auto w = workload("llama2-7b", "trn1.32xlarge", 1, 8, 1, 4, 1, 4, 4096);
  auto fused = build_step_plan(m, w);
  w.fused_qkv = w.fused_gate_up = false;
  auto split = build_step_plan(m, w);
  CHECK(sum_ops(fused, gemm_flops) == sum_ops(split, gemm_flops));
  const double n_fused = count_kind(fused, OpKind::Gemm), n_split = count_kind(split, OpKind::Gemm);
  CHECK(n_split - n_fused == 32 * 3 * 3);  // per layer: 3 more GEMMs, each with fwd + dgrad + wgrad
}

TEST_CASE("memory per core matches hand calculations", "[graph][memory]") {
  SECTION("Llama-2 7B TP8 SP selective bf16-sr ZeRO-1 DP512 (R3)") {
    auto s = load_scenario(std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json");
    const auto& b = s.memory.front();
    const double P = 842301952;  // 6,738,415,616 / 8
    CHECK(b.weights.base() == 2 * P);
    CHECK(b.gradients.base() == 2 * P);
    CHECK(b.optimizer_states.base() == Approx(8 * P / 512));
    CHECK(b.master_weights.base() == 0);
    // selective: Korthikanti's 34·sbh/t generalised: norms 4, inputs 2+2, Q,K 4, V 2, out-proj 2 (x sbh)
    // + SwiGLU gate/up 4·sbf + product 2·sbf; all / t with SP.
    const double s_ = 4096, h = 4096, f = 11008, t = 8;
    const double layer = (16 * s_ * h + 6 * s_ * f) / t;
    CHECK(b.activation_per_layer.base() == Approx(layer));
    CHECK(b.activations.base() == Approx(32 * layer + 4 * s_ * 32000 / t));  // + FP32 logits
    CHECK(b.temporary.base() == Approx(4.0 * s_ * s_ * 2));  // scores of 4 local heads, BF16
    CHECK(s.fits);
  }
  SECTION("GPT-NeoX 20B TP8 PP4, full recompute, no SP, 1F1B: stage 0 holds 4 micro-batches") {
    auto m = load_model_spec(model_path("gpt-neox-20b"));
    auto w = workload("gpt-neox-20b", "trn1.32xlarge", 4, 8, 4, 4, 1, 64, 2048);
    w.checkpointing = Checkpointing::Full;
    auto plan = build_step_plan(m, w);
    auto mem = memory_per_stage(m, w, plan);
    const auto& b = mem.front();
    const double sbh = 2048.0 * 6144;
    CHECK(b.in_flight == 4);
    CHECK(b.activation_per_layer.base() == 2 * sbh);  // only the block input, not sharded without SP
    CHECK(b.activations.base() == 4 * 11 * 2 * sbh);
    const double P0 = 11.0 * (m.layer_parameters() / 8) + static_cast<double>(m.embedding_parameters() / 8);
    CHECK(b.weights.base() == 2 * P0);
    CHECK(mem.back().in_flight == 1);
  }
  SECTION("BERT 1.5B ZeRO-1 mixed precision on 8 Gaudi: Korthikanti's 34sbh + 5as²b exactly") {
    auto m = load_model_spec(model_path("bert-1.5b"));
    auto w = workload("bert-1.5b", "dl1.24xlarge", 1, 1, 1, 8, 16, 3072, 128);
    w.zero = 1;
    w.precision = Precision::MixedBF16;
    w.fp32_grads = true;  // Megatron-style FP32 main grads
    auto plan = build_step_plan(m, w);
    const auto mem = memory_per_stage(m, w, plan);
    const auto& b = mem.front();
    const double s = 128, bb = 16, h = 1600, a = 25;
    CHECK(b.activation_per_layer.base() == Approx(s * bb * h * (34 + 5 * a * s / h)));
    const double P = static_cast<double>(m.total_parameters());
    CHECK(b.weights.base() == Approx(2 * P));
    CHECK(b.gradients.base() == Approx(4 * P));
    CHECK(b.optimizer_states.base() == Approx(8 * P / 8));
    CHECK(b.master_weights.base() == Approx(4 * P / 8));
  }
  SECTION("a 7B model with TP1 and data parallelism only does not fit on trn1") {
    auto w = workload("llama2-7b", "trn1.32xlarge", 128, 1, 1, 4096, 1, 4096, 4096);
    w.checkpointing = Checkpointing::Selective;
    CHECK_THROWS_WITH(make_scenario(w), Catch::Contains("does not fit in HBM") && Catch::Contains("weights"));
  }
}

TEST_CASE("invariant: a bigger model never uses less memory", "[graph][memory]") {
  auto mem = [](const char* model) {
    auto m = load_model_spec(model_path(model));
    auto w = workload(model, "trn1.32xlarge", 1, 8, 1, 4, 1, 4, 2048);
    auto p = build_step_plan(m, w);
    return peak_stage(memory_per_stage(m, w, p)).total().base();
  };
  CHECK(mem("pythia-6.9b") < mem("gpt-neox-20b"));
  CHECK(mem("llama2-7b") < mem("gpt-neox-20b"));
}

TEST_CASE("embedding-and-loss pipeline split: (layers + 2) / (pp x vs) slots, one fewer layer at each end", "[graph]") {
  auto m = load_model_spec(model_path("llama3.1-8b"));
  m.layers = 30;  // 30 layers over PP 4 x VS 2: 32 slots, 4 per program; the first and the last hold 3
  auto w = workload("llama3.1-8b", "trn1.32xlarge", 1, 8, 4, 1, 1, 8, 4096);
  w.virtual_stages = 2;
  CHECK_THROWS_WITH(build_step_plan(m, w), Catch::Contains("/parallel/pp"));
  w.pipeline_split = Workload::PipelineSplit::EmbeddingAndLoss;
  const auto plan = build_step_plan(m, w);
  int64_t total = 0, next = 0;
  for (const auto& st : plan.stages) {
    CHECK(st.first_layer == next);
    CHECK(st.num_layers == (st.first || st.last ? 3 : 4));
    next += st.num_layers;
    total += st.num_layers;
  }
  CHECK(total == 30);
  w.pp = 8;  // 32 slots over 16 programs: 2 each, the ends 1 layer
  w.dp = 1;
  CHECK_NOTHROW(build_step_plan(m, w));
  w.pp = 4, w.virtual_stages = 3;  // 32 slots over 12: not whole
  CHECK_THROWS_WITH(build_step_plan(m, w), Catch::Contains("/parallel/pipeline_split"));
}

// Issue 25: a pipeline degree that does not divide the layers is allowed as the stacks split it.
TEST_CASE("balanced and explicit pipeline splits: every layer once, the extra layers in the middle", "[graph]") {
  auto m = load_model_spec(model_path("llama3.1-8b"));
  m.layers = 30;  // 30 layers over PP 4: 7 each plus 2 extra, on the two middle stages
  auto w = workload("llama3.1-8b", "trn1.32xlarge", 1, 8, 4, 1, 1, 8, 4096);
  w.pipeline_split = Workload::PipelineSplit::Balanced;
  CHECK(program_layers(m, w) == std::vector<int64_t>{7, 8, 8, 7});
  const auto plan = build_step_plan(m, w);
  int64_t next = 0;
  for (const auto& st : plan.stages) {
    CHECK(st.first_layer == next);
    next += st.num_layers;
  }
  CHECK(next == 30);
  m.layers = 61;  // DeepSeek-V3's 61 over 4: 15 + 1 extra
  CHECK(program_layers(m, w) == std::vector<int64_t>{15, 16, 15, 15});
  m.layers = 30;
  w.pipeline_split = Workload::PipelineSplit::Explicit;
  w.layers_per_stage = {6, 9, 9, 6};
  CHECK(program_layers(m, w) == w.layers_per_stage);
  CHECK_NOTHROW(build_step_plan(m, w));
  w.layers_per_stage = {6, 9, 9, 7};
  CHECK_THROWS_WITH(build_step_plan(m, w), Catch::Contains("add up to 31 but llama3.1-8b has 30 layers"));
  w.layers_per_stage = {10, 10, 10};
  CHECK_THROWS_WITH(build_step_plan(m, w), Catch::Contains("3 entries but pp x virtual_stages = 4"));
  w.layers_per_stage = {0, 10, 10, 10};
  CHECK_THROWS_WITH(build_step_plan(m, w), Catch::Contains("at least one layer"));
}

// Issue 25 item 2: torchtitan's per-op selective activation checkpointing.
TEST_CASE("per-op selective AC: every second linear GEMM and all non-GEMM ops recomputed, attention kept", "[graph][checkpoint]") {
  auto m = load_model_spec(model_path("llama3.1-8b"));
  auto w = workload("llama3.1-8b", "trn1.32xlarge", 1, 1, 1, 32, 1, 32, 4096);
  w.attention = Attention::Flash;
  w.fused_qkv = false, w.fused_gate_up = false;  // torchtitan: wq, wk, wv, wo, w1, w3, w2
  w.checkpointing = Checkpointing::OpSelective;
  w.fused_elementwise = false;  // eager: SAC caches every listed op's output
  const auto plan = build_step_plan(m, w);
  int recomputed_gemms = 0, recomputed_other = 0, recomputed_flash = 0;
  for (const auto& st : plan.stages)
    for (auto v : st.backward) {
      const Op& op = st.graph[v];
      if (op.phase != Phase::Recompute) continue;
      if (op.label.find("flash") != std::string::npos) ++recomputed_flash;
      else if (op.kind == OpKind::Gemm) ++recomputed_gemms;
      else if (!op.is_collective()) ++recomputed_other;
    }
  CHECK(recomputed_gemms == 3 * m.layers);  // wk, wo, w3 of each block
  CHECK(recomputed_flash == 0);             // the attention kernel's output is kept
  CHECK(recomputed_other >= 3 * m.layers);  // norms, rotary, SwiGLU at least
  // Memory per layer: block input + outputs of wq, wv, w1, w2 + attention output (BF16) and LSE (FP32).
  const double s = 4096, b = 1, h = 4096, f = 14336, a = 32, g = 8, d = 128;
  const double expect = 2 * s * b * h + 2 * (s * b * a * d + s * b * g * d + s * b * f + s * b * h) + 2 * s * b * a * d + 4 * a * s * b;
  CHECK(layer_activation_bytes(m, w).base() == Approx(expect));
  // Under torch.compile the partitioner keeps only what the backward reads: w2's output feeds
  // only the residual add, so it is not kept; the recomputed GEMMs are the same.
  auto compiled = w;
  compiled.fused_elementwise = true;
  CHECK(layer_activation_bytes(m, compiled).base() == Approx(expect - 2 * s * b * h));
  int compiled_recomputed = 0;
  for (const auto& st : build_step_plan(m, compiled).stages)
    for (auto v : st.backward) {
      const Op& op = st.graph[v];
      compiled_recomputed += op.phase == Phase::Recompute && op.kind == OpKind::Gemm && op.label.find("flash") == std::string::npos;
    }
  CHECK(compiled_recomputed == 3 * m.layers);
  // Fused QKV and gate-up (outputs: qkv, wo, gate-up, w2): the saved ones are qkv and gate-up,
  // neither read only by the residual add, so eager and compiled keep the same.
  auto fused = w, fused_compiled = compiled;
  fused.fused_qkv = fused.fused_gate_up = fused_compiled.fused_qkv = fused_compiled.fused_gate_up = true;
  CHECK(layer_activation_bytes(m, fused).base() == Approx(layer_activation_bytes(m, fused_compiled).base()));
  // Between selective (attention core only) and full in memory.
  auto sel = w, full = w;
  sel.checkpointing = Checkpointing::Selective;
  full.checkpointing = Checkpointing::Full;
  CHECK(layer_activation_bytes(m, w).base() < layer_activation_bytes(m, sel).base());
  CHECK(layer_activation_bytes(m, w).base() > layer_activation_bytes(m, full).base());
}

// A low-precision GEMM the per-op policy does not list (torchtitan: torchao's NVFP4 linear) is
// recomputed and keeps nothing; the attention kernel's output and the block input are still kept.
TEST_CASE("per-op selective AC: linears in an unsaved format are all recomputed and keep nothing", "[graph][checkpoint]") {
  auto m = load_model_spec(model_path("llama3.1-8b"));
  auto w = workload("llama3.1-8b", "dgx-b200", 1, 1, 1, 8, 1, 8, 4096);
  w.attention = Attention::Flash;
  w.fused_qkv = false, w.fused_gate_up = false;
  w.checkpointing = Checkpointing::OpSelective;
  w.precision = Precision::NVFP4;
  const auto recomputed_gemms = [&](const Workload& x) {
    int n = 0;
    for (const auto& st : build_step_plan(m, x).stages)
      for (auto v : st.backward) {
        const Op& op = st.graph[v];
        n += op.phase == Phase::Recompute && op.kind == OpKind::Gemm && op.label.find("flash") == std::string::npos;
      }
    return n;
  };
  CHECK(recomputed_gemms(w) == 3 * m.layers);  // saved like BF16 matmuls: wk, wo, w3
  const double saved = layer_activation_bytes(m, w).base();
  auto unsaved = w;
  unsaved.op_selective_saves[static_cast<size_t>(DType::NVFP4)] = false;
  CHECK(recomputed_gemms(unsaved) == 7 * m.layers);  // wq, wk, wv, wo, w1, w3, w2
  const double s = 4096, h = 4096, a = 32, d = 128;
  CHECK(layer_activation_bytes(m, unsaved).base() == Approx(2 * s * h + 2 * s * a * d + 4 * a * s));
  CHECK(layer_activation_bytes(m, unsaved).base() < saved);
  // Blocks kept in BF16 run aten.mm: saved as before.
  unsaved.bf16_last_layers = 4;
  CHECK(recomputed_gemms(unsaved) == 7 * (m.layers - 4) + 3 * 4);
  CHECK(layer_activation_bytes(m, unsaved, m.layers - 1).base() > layer_activation_bytes(m, unsaved, 0).base());
  // Another format's runs are unaffected.
  auto mx = unsaved;
  mx.precision = Precision::MXFP8;
  mx.bf16_last_layers = 0;
  CHECK(recomputed_gemms(mx) == 3 * m.layers);
}

TEST_CASE("flat gradient buffers: the DP reductions of a step, their bytes and when they are ready", "[graph][dp]") {
  // Llama 2 7B on 8 A100s at DP 8: 32 layers, the head and the embedding.
  const ModelSpec m = load_model_spec(model_path("llama2-7b"));
  Workload w = workload("llama2-7b", "p4d.24xlarge", 1, 1, 1, 8, 1, 8, 4096);
  auto syncs = [&](const Workload& wl) {
    const StepPlan p = build_step_plan(m, wl);
    const StageProgram& st = p.stages.front();
    std::vector<double> bytes;
    for (const auto& b : st.dp_buckets) bytes.push_back(st.graph[b.op].comm_bytes.base());
    return std::make_pair(bytes, st.dp_buckets);
  };
  const auto [per_piece, per_piece_buckets] = syncs(w);
  CHECK(per_piece.size() == static_cast<size_t>(m.layers + 2));  // one per layer piece (the default)
  double total = 0;
  for (double b : per_piece) total += b;
  // Buffers of two layers' gradients: every second piece closes one, the bytes are unchanged.
  const double layer = per_piece[1];  // the last layer's bucket (the head's is the first)
  Workload two = w;
  two.grad_bucket_elements = static_cast<int64_t>(std::llround(2 * layer / w.grad_bytes())) - 1;
  const auto [pairs, pair_buckets] = syncs(two);
  double total_pairs = 0;
  for (double b : pairs) total_pairs += b;
  CHECK(total_pairs == Approx(total));
  CHECK(pairs.size() < per_piece.size());
  CHECK(pairs.size() >= per_piece.size() / 2);
  // DeepSpeed's 5e8 elements: whole layers join a buffer until it holds 5e8 (three Llama 2 7B
  // layers of 202 M), so every buffer but the last holds 5e8 to 5e8 + one piece, and the last is
  // reduced after the embedding's backward: the last op of the backward.
  Workload ds = w;
  ds.grad_bucket_elements = 500'000'000;
  const auto [flat, flat_buckets] = syncs(ds);
  double largest_piece = 0;
  for (double b : per_piece) largest_piece = std::max(largest_piece, b);
  for (size_t i = 0; i + 1 < flat.size(); ++i) {
    CHECK(flat[i] >= 500e6 * w.grad_bytes());
    CHECK(flat[i] < 500e6 * w.grad_bytes() + largest_piece);
  }
  CHECK(flat.size() == 12);
  const StepPlan ds_plan = build_step_plan(m, ds);
  CHECK(flat_buckets.back().ready_after == ds_plan.stages.front().backward.size() - 1);
  // A workload's value survives its JSON; a negative one is refused with its field named.
  CHECK(workload_from_json(nlohmann::json::parse(workload_to_json(ds)), "w.json").grad_bucket_elements == 500'000'000);
  auto j = nlohmann::json::parse(workload_to_json(ds));
  j["parallel"]["grad_bucket_elements"] = -1;
  CHECK_THROWS_WITH(workload_from_json(j, "w.json"), Catch::Contains("w.json") && Catch::Contains("grad_bucket_elements"));
}
