// test_stack_profile.cpp — issue 25 item 1: training stacks as declared profiles. A profile's
// defaults fill what the workload leaves out and nothing else; defaults that need degrees the run
// lacks are switched off; provenance survives a round trip; bad profiles are one-line errors
// naming the stack file and the field. Also the two mechanisms profiles set: FSDP's FP32 shard
// (fsdp_shard "master") and a replicated loss (loss_parallel false), against closed forms.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "helpers.hpp"
#include "memory_model.hpp"
#include "report.hpp"
#include "step_executor.hpp"
#include "stack_profile.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

namespace {
nlohmann::json base_workload() { return test::torchtitan_llama8b_json(2, 4, 4, 16); }
// Llama 3.1 8B under ZeRO-3 over 16 H100s (mixed BF16, FP32 gradients reduced every micro-batch, flash).
Workload fsdp_llama8b() {
  Workload w = test::workload("llama3.1-8b", "dgx-h100", 2, 1, 1, 16, 1, 16, 4096);
  w.precision = Precision::MixedBF16;
  w.fp32_grads = true;
  w.zero = 3;
  w.reduce_every_micro_batch = true;
  w.attention = Attention::Flash;
  return w;
}
// Llama 3.1 8B at TP 4 with SP on one node (mixed BF16, flash, micro-batch 2 x 4096 tokens).
Workload tp4_sp_llama8b() {
  Workload w = test::workload("llama3.1-8b", "dgx-h100", 1, 4, 1, 2, 2, 8, 4096);
  w.precision = Precision::MixedBF16;
  w.sequence_parallel = true;
  w.attention = Attention::Flash;
  return w;
}
bool has(const std::vector<std::string>& v, const std::string& prefix) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
}
}  // namespace

TEST_CASE("stack profile: defaults fill what the workload leaves out, the workload wins", "[stack]") {
  const Workload w = workload_from_json(base_workload(), "w.json", stack_lookup());
  CHECK(w.stack == "torchtitan");
  CHECK(w.attention == Attention::Flash);
  CHECK_FALSE(w.fused_qkv);
  CHECK(w.zero == 3);
  CHECK(w.reduce_every_micro_batch);  // follows ZeRO-3 as for a written-out zero
  CHECK(w.sequence_parallel);
  CHECK(w.fp32_grads);
  CHECK(w.fsdp_shard == Workload::FsdpShard::Master);
  CHECK(w.checkpointing == Checkpointing::Full);  // the workload's own
  CHECK(has(w.stack_fields, "parallel/zero = 3"));
  CHECK_FALSE(has(w.stack_fields, "checkpointing"));

  auto j = base_workload();
  j["attention"] = "unfused";
  j["parallel"]["zero"] = 1;
  j["fused"] = {{"qkv", true}};
  const Workload o = workload_from_json(j, "w.json", stack_lookup());
  CHECK(o.attention == Attention::Unfused);
  CHECK(o.zero == 1);
  CHECK_FALSE(o.reduce_every_micro_batch);
  CHECK(o.fused_qkv);
  CHECK_FALSE(o.fused_gate_up);  // the sibling still comes from the profile
  CHECK_FALSE(has(o.stack_fields, "attention"));
  CHECK(has(o.stack_fields, "fused/gate_up"));
}

TEST_CASE("stack profile: defaults needing degrees the run lacks are off, not refused", "[stack]") {
  auto j = base_workload();
  j["parallel"] = {{"tp", 1}, {"pp", 1}, {"dp", 1}};
  j["batch"]["global_batch"] = 4;
  j["nodes"] = 1;
  j["cores_per_node"] = 1;
  const Workload w = workload_from_json(j, "w.json", stack_lookup());
  CHECK_FALSE(w.sequence_parallel);  // SP needs tp > 1 (an explicit true would be an error)
  CHECK(w.zero == 0);                // nothing to shard over one rank
  CHECK_FALSE(w.reduce_every_micro_batch);
  CHECK(has(w.stack_fields, "parallel/zero = 0"));
}

TEST_CASE("stack profile: a round trip keeps the values and the provenance", "[stack]") {
  const Workload w = workload_from_json(base_workload(), "w.json", stack_lookup());
  const std::string text = workload_to_json(w);
  CHECK(text.find("\"attention\"") == std::string::npos);  // left to the profile
  const Workload back = workload_from_json(nlohmann::json::parse(text), "w.json", stack_lookup());
  CHECK(workload_to_json(back) == text);
  CHECK(back.stack_fields == w.stack_fields);
}

TEST_CASE("stack profile: a field changed after loading is written out, not left to the profile", "[stack]") {
  Workload w = workload_from_json(base_workload(), "w.json", stack_lookup());
  w.attention = Attention::Unfused;  // the profile said flash
  const std::string text = workload_to_json(w);
  CHECK(text.find("\"attention\": \"unfused\"") != std::string::npos);
  CHECK(workload_from_json(nlohmann::json::parse(text), "w.json", stack_lookup()).attention == Attention::Unfused);
}

TEST_CASE("stack profile: with_stack on a workload built in code equals the file form", "[stack]") {
  Workload w = test::workload("llama3.1-8b", "dgx-h100", 2, 4, 1, 4, 1, 16, 8192);
  w.precision = Precision::MixedBF16;
  w.checkpointing = Checkpointing::Full;
  w.attention = Attention::Unfused;  // replaced: the profile sets the attention kernel
  const Workload s = with_stack(w, load_stack_profile(stack_path("torchtitan")));
  const Workload f = workload_from_json(base_workload(), "w.json", stack_lookup());
  CHECK(s.attention == f.attention);
  CHECK(s.zero == f.zero);
  CHECK(s.fused_qkv == f.fused_qkv);
  CHECK(s.sequence_parallel == f.sequence_parallel);
  CHECK(s.stack_fields == f.stack_fields);
  CHECK(s.model == "llama3.1-8b");
}

TEST_CASE("stack profile: every shipped profile loads and names its sources", "[stack]") {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(TRNSIM_SOURCE_DIR) + "/stacks")) {
    const StackProfile s = load_stack_profile(e.path().string());
    INFO(e.path());
    CHECK(s.name == e.path().stem().string());
    CHECK_FALSE(s.sources.empty());
    CHECK_FALSE(s.defaults.empty());
    ++n;
  }
  CHECK(n >= 7);  // the issue's seven stacks at least
}

TEST_CASE("stack profile: bad profiles and names are one-line errors naming the file and field", "[stack]") {
  auto j = base_workload();
  j["stack"] = "no-such-stack";
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()),
                    Catch::Contains("w.json: /stack") && Catch::Contains("unknown stack \"no-such-stack\"") &&
                        Catch::Contains("torchtitan"));
  j["stack"] = "../hw/dgx-h100";
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()), Catch::Contains("/stack") && Catch::Contains("not a stack name"));
  CHECK_THROWS_WITH(workload_from_json(base_workload(), "w.json"), Catch::Contains("no stacks/ directory"));
  // A parent of a profile field given as a non-object is the reader's one-line error (found by the fuzzer).
  auto typed = base_workload();
  typed["fused"] = "llama3.1-8b";
  CHECK_THROWS_AS(workload_from_json(typed, "w.json", stack_lookup()), ConfigError);
  CHECK_THROWS_WITH(workload_from_json(typed, "w.json", stack_lookup()), Catch::Contains("/fused"));
  typed = base_workload();
  typed["parallel"] = 3;
  CHECK_THROWS_AS(workload_from_json(typed, "w.json", stack_lookup()), ConfigError);

  const auto profile = [](const std::string& defaults) {
    return nlohmann::json::parse(R"({"name": "x", "description": "d", "sources": ["s"], "defaults": )" + defaults + "}");
  };
  CHECK_THROWS_WITH(stack_profile_from_json(profile(R"({"parallel": {"tp": 4}})"), "stacks/x.json"),
                    Catch::Contains("stacks/x.json") && Catch::Contains("/defaults/parallel/tp") &&
                        Catch::Contains("unknown field for a stack profile"));
  CHECK_THROWS_WITH(stack_profile_from_json(profile(R"({"attention": "fast"})"), "stacks/x.json"),
                    Catch::Contains("stacks/x.json /defaults") && Catch::Contains("/attention"));
  CHECK_THROWS_WITH(stack_profile_from_json(profile(R"({"parallel": {"zero": 7}})"), "stacks/x.json"),
                    Catch::Contains("/parallel/zero"));
  CHECK_THROWS_WITH(stack_profile_from_json(profile(R"({"fp8_param_gather": "yes"})"), "stacks/x.json"),
                    Catch::Contains("stacks/x.json /defaults") && Catch::Contains("/fp8_param_gather"));
  CHECK_NOTHROW(stack_profile_from_json(profile(R"({"fp8_param_gather": true})"), "stacks/x.json"));
  auto nosrc = profile("{}");
  nosrc["sources"] = nlohmann::json::array();
  CHECK_THROWS_WITH(stack_profile_from_json(nosrc, "stacks/x.json"), Catch::Contains("/sources"));
  // The checkpointing policies a stack offers: known names, each once, holding the profile's own default.
  auto policies = profile(R"({"checkpointing": "full"})");
  policies["checkpointing_policies"] = {"none", "full", "layer"};
  CHECK_THROWS_WITH(stack_profile_from_json(policies, "stacks/x.json"),
                    Catch::Contains("stacks/x.json") && Catch::Contains("/checkpointing_policies") && Catch::Contains("\"layer\""));
  policies["checkpointing_policies"] = {"full", "none", "full"};
  CHECK_THROWS_WITH(stack_profile_from_json(policies, "stacks/x.json"),
                    Catch::Contains("/checkpointing_policies") && Catch::Contains("listed twice"));
  policies["checkpointing_policies"] = {"none", "op_selective"};
  CHECK_THROWS_WITH(stack_profile_from_json(policies, "stacks/x.json"),
                    Catch::Contains("/checkpointing_policies") && Catch::Contains("own checkpointing \"full\""));
  policies["checkpointing_policies"] = nlohmann::json::array();
  CHECK_THROWS_WITH(stack_profile_from_json(policies, "stacks/x.json"), Catch::Contains("/checkpointing_policies"));
  policies["checkpointing_policies"] = {"none", "full"};
  CHECK(stack_profile_from_json(policies, "stacks/x.json").checkpointing_policies == std::vector<std::string>{"none", "full"});
  auto extra = profile("{}");
  extra["speedup"] = 1.2;
  CHECK_THROWS_WITH(stack_profile_from_json(extra, "stacks/x.json"), Catch::Contains("speedup"));
}

TEST_CASE("fsdp_shard master: the FP32 shard is the master, BF16 exists only for gathered units", "[stack][memory]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Workload w = fsdp_llama8b();
  const auto plan = build_step_plan(m, w);
  const auto sep = memory_per_stage(m, w, plan).front();
  w.fsdp_shard = Workload::FsdpShard::Master;
  const auto mas = memory_per_stage(m, w, plan).front();
  const double P = static_cast<double>(m.total_parameters());
  // The BF16 shard (2 bytes per parameter over 16 ranks) is gone; the gathered pieces and the
  // FP32 master shard are unchanged.
  CHECK((sep.weights - mas.weights).base() == Approx(2.0 * P / 16).epsilon(1e-6));
  CHECK(mas.master_weights.base() == Approx(sep.master_weights.base()));
  CHECK(mas.master_weights.base() == Approx(4.0 * P / 16).epsilon(1e-6));
}

TEST_CASE("loss_parallel false: logits all-gathered over TP, full-vocabulary loss and logits memory", "[stack][memory]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Workload w = tp4_sp_llama8b();
  const auto par = build_step_plan(m, w);
  const auto mp = memory_per_stage(m, w, par).front();
  CHECK(test::op_named(par, "head.ce_sum"));
  CHECK_FALSE(test::op_named(par, "head.logits_gather"));
  w.loss_parallel = false;
  const auto rep = build_step_plan(m, w);
  const auto mr = memory_per_stage(m, w, rep).front();
  const Op* g = test::op_named(rep, "head.logits_gather");
  REQUIRE(g);
  const double T = 2.0 * 4096, V = static_cast<double>(m.vocab);
  CHECK(g->kind == OpKind::AllGather);
  CHECK(g->comm_bytes.base() == Approx(T * V * 2));  // BF16 logits of the micro-batch
  CHECK_FALSE(test::op_named(rep, "head.ce_sum"));             // no vocab-parallel reductions
  const Op* ce = test::op_named(rep, "head.cross_entropy");
  REQUIRE(ce);
  // FP32 logits kept for the loss: the full vocabulary instead of a quarter of it.
  const double shard = 4.0 * T * static_cast<double>((m.vocab + 3) / 4);
  CHECK((mr.activations - mp.activations).base() == Approx(4.0 * T * V - shard).epsilon(1e-9));
}

TEST_CASE("sp_saves_gathered_inputs: a saved gathered input is not gathered again in backward", "[stack][comm]") {
  // Megatron's SP linears gather their sequence shard again for the weight gradient: one backward
  // all-gather per TP-region entry beside the input gradient's reduce-scatter. DTensor's saved the
  // gathered tensor: the reduce-scatter only.
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Workload w = tp4_sp_llama8b();
  Workload dt = w;
  dt.sp_saves_gathered_inputs = true;
  const auto count = [](const StepPlan& p, OpKind k, const std::string& suffix) {
    return test::sum_ops(p, [&](const Op& o) {
      return o.kind == k && o.phase == Phase::Backward && o.label.size() >= suffix.size() &&
                     o.label.compare(o.label.size() - suffix.size(), suffix.size(), suffix) == 0
                 ? 1.0
                 : 0.0;
    });
  };
  const StepPlan pm = build_step_plan(m, w), pd = build_step_plan(m, dt);
  const double entries = count(pm, OpKind::ReduceScatter, ".bwd");
  CHECK(entries >= 2.0 * static_cast<double>(m.layers));  // attention and MLP of every layer at least
  CHECK(count(pm, OpKind::AllGather, ".regather") == entries);
  CHECK(count(pd, OpKind::AllGather, ".regather") == 0);
  CHECK(count(pd, OpKind::ReduceScatter, ".bwd") == entries);
  // Fewer collectives on the same GPUs: never a slower step.
  CHECK(execute_step(make_scenario(dt, m), StepOptions{}).step_time_s <=
        execute_step(make_scenario(w, m), StepOptions{}).step_time_s);
}

TEST_CASE("sp_saves_gathered_inputs: DTensor's SP keeps the all-gathered linear inputs whole", "[stack][memory]") {
  // Megatron's SP saves each linear's sequence shard and gathers it again in backward (Korthikanti
  // et al.: every tensor outside the TP regions / t); DTensor's (torchtitan) saves what it
  // all-gathered: the attention and MLP inputs, 2sbh each, whole on every TP rank, and the LM
  // head's BF16 input on the last stage.
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Workload w = tp4_sp_llama8b();
  const double sbh = 2.0 * 4096 * static_cast<double>(m.hidden), t = 4;
  Workload dt = w;
  dt.sp_saves_gathered_inputs = true;
  const double extra = (2 * sbh + 2 * sbh) * (1 - 1 / t);
  CHECK((layer_activation_bytes(m, dt) - layer_activation_bytes(m, w)).base() == Approx(extra));
  // Low-precision linears save their FP8 input: half of it.
  Workload w8 = w, dt8 = dt;
  w8.precision = dt8.precision = Precision::FP8;
  CHECK((layer_activation_bytes(m, dt8) - layer_activation_bytes(m, w8)).base() == Approx(extra / 2));
  // Per stage: every layer's extra, and the head's gathered input on the last stage.
  const auto plan = build_step_plan(m, w);
  const auto mw = memory_per_stage(m, w, plan).back(), md = memory_per_stage(m, dt, plan).back();
  CHECK((md.activations - mw.activations).base() == Approx(static_cast<double>(m.layers) * extra + 2 * sbh));
  // Full recompute keeps the block input only (sharded either way); the recomputed layer holds
  // the gathered inputs again.
  w.checkpointing = dt.checkpointing = Checkpointing::Full;
  CHECK(layer_activation_bytes(m, dt).base() == Approx(layer_activation_bytes(m, w).base()));
  const auto fw = memory_per_stage(m, w, plan).back(), fd = memory_per_stage(m, dt, plan).back();
  CHECK((fd.activations - fw.activations).base() == Approx(2 * sbh));
  CHECK((fd.temporary - fw.temporary).base() == Approx(extra));
  // Without SP the inputs are replicated already: no change.
  w.sequence_parallel = dt.sequence_parallel = false;
  w.checkpointing = dt.checkpointing = Checkpointing::None;
  CHECK(layer_activation_bytes(m, dt).base() == Approx(layer_activation_bytes(m, w).base()));
  // The field round-trips and the DTensor profiles set it.
  CHECK(workload_from_json(base_workload(), "w.json", stack_lookup()).sp_saves_gathered_inputs);
  auto j = base_workload();
  j["parallel"]["sp_saves_gathered_inputs"] = false;
  const Workload off = workload_from_json(j, "w.json", stack_lookup());
  CHECK_FALSE(off.sp_saves_gathered_inputs);
  CHECK_FALSE(workload_from_json(nlohmann::json::parse(workload_to_json(off)), "w.json", stack_lookup()).sp_saves_gathered_inputs);
  // So does any profile field a run sets against its profile (KempnerForge keeps parameters
  // gathered; this run reshards them).
  auto k = base_workload();
  k["stack"] = "kempnerforge";
  k["parallel"]["fsdp_reshard_after_forward"] = true;
  const Workload kf = workload_from_json(k, "w.json", stack_lookup());
  CHECK(kf.fsdp_reshard_after_forward);
  CHECK(workload_from_json(nlohmann::json::parse(workload_to_json(kf)), "w.json", stack_lookup()).fsdp_reshard_after_forward);
  j["parallel"]["sp_saves_gathered_inputs"] = "yes";
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()), Catch::Contains("sp_saves_gathered_inputs"));
}

TEST_CASE("FSDP schedule: reshard after forward and prefetch depth, in the graph and in memory", "[stack][memory][zero3]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Workload w = fsdp_llama8b();
  w.fsdp_shard = Workload::FsdpShard::Master;
  auto gathers = [](const StepPlan& p, Phase phase) {
    int n = 0;
    for (const auto& st : p.stages)
      for (auto v : boost::make_iterator_range(boost::vertices(st.graph)))
        n += st.graph[v].kind == OpKind::AllGather && st.graph[v].group == Group::DP && st.graph[v].phase == phase;
    return n;
  };
  const int pieces = static_cast<int>(m.layers) + 2;  // embedding, blocks, head
  const auto base_plan = build_step_plan(m, w);
  CHECK(gathers(base_plan, Phase::Forward) == pieces);
  CHECK(gathers(base_plan, Phase::Backward) == pieces);
  const auto base = memory_per_stage(m, w, base_plan).front();
  const double P = static_cast<double>(m.total_parameters());
  const double piece = static_cast<double>(std::max({m.max_layer_parameters(), m.embedding_parameters(), m.head_parameters()}));
  CHECK(base.weights.base() == Approx(2.0 * 2 * piece));  // the running and the prefetched piece, BF16
  // Prefetch 2: three pieces gathered at once; the same number of gathers.
  w.fsdp_prefetch = 2;
  const auto deep_plan = build_step_plan(m, w);
  CHECK(gathers(deep_plan, Phase::Forward) == pieces);
  CHECK(memory_per_stage(m, w, deep_plan).front().weights.base() == Approx(2.0 * 3 * piece));
  // No resharding after forward: no backward all-gathers; every parameter stays gathered (BF16).
  w.fsdp_prefetch = 1;
  w.fsdp_reshard_after_forward = false;
  const auto keep_plan = build_step_plan(m, w);
  CHECK(gathers(keep_plan, Phase::Forward) == pieces);
  CHECK(gathers(keep_plan, Phase::Backward) == 0);
  CHECK(memory_per_stage(m, w, keep_plan).front().weights.base() == Approx(2.0 * P));
  // A profile may set both; a workload field reads and writes back.
  auto j = base_workload();
  j["parallel"]["fsdp_reshard_after_forward"] = false;
  j["parallel"]["fsdp_prefetch"] = 0;
  const Workload r = workload_from_json(j, "w.json", stack_lookup());
  CHECK_FALSE(r.fsdp_reshard_after_forward);
  CHECK(r.fsdp_prefetch == 0);
  CHECK(workload_from_json(nlohmann::json::parse(workload_to_json(r)), "w.json", stack_lookup()).fsdp_prefetch == 0);
  j["parallel"]["fsdp_prefetch"] = 9;
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()), Catch::Contains("/parallel/fsdp_prefetch"));
}

TEST_CASE("ZeRO-3 without gradient sync until the last micro-batch: unsharded FP32 gradients, one reduction", "[memory][zero3]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Workload w = fsdp_llama8b();  // FSDP 16, FP32 gradients, reduced every micro-batch
  const double P = static_cast<double>(m.total_parameters()), layers = static_cast<double>(m.layers);
  const auto synced = memory_per_stage(m, w, build_step_plan(m, w)).front();
  // The FP32 shard plus the layer in flight.
  CHECK(synced.gradients.base() == Approx(4.0 * (P / 16 + P / layers)).epsilon(1e-6));
  w.reduce_every_micro_batch = false;  // FSDP2 under a pipeline schedule (set_requires_gradient_sync(False))
  const auto nosync = memory_per_stage(m, w, build_step_plan(m, w)).front();
  // Every unsharded gradient, and the shard of the unit being reduced (the shards exist only from
  // the last micro-batch's backward on, as the unsharded gradients are reduced and freed).
  CHECK(nosync.gradients.base() == Approx(4.0 * (P + P / layers / 16)).epsilon(1e-6));
  CHECK(nosync.weights == synced.weights);
  CHECK(nosync.optimizer_states == synced.optimizer_states);
  // The workload says so with grad_reduce "per_step"; ZeRO-2 still may not.
  auto j = base_workload();
  j["parallel"]["grad_reduce"] = "per_step";
  CHECK_FALSE(workload_from_json(j, "w.json", stack_lookup()).reduce_every_micro_batch);
  j["parallel"]["zero"] = 2;
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()), Catch::Contains("/parallel/grad_reduce"));
}

// A profile may declare when its stack reduces gradients (KempnerForge: once per step, FSDP2
// without gradient sync until the last micro-batch); a ZeRO-2 run, which must reduce every
// micro-batch, keeps its own rule instead of being refused.
TEST_CASE("stack profile: grad_reduce per_step applies to ZeRO-3 runs, not to ZeRO-2", "[stack][zero3]") {
  auto j = base_workload();
  j["stack"] = "kempnerforge";
  const Workload w = workload_from_json(j, "w.json", stack_lookup());
  CHECK(w.zero == 3);
  CHECK_FALSE(w.reduce_every_micro_batch);
  CHECK(has(w.stack_fields, "parallel/grad_reduce = per_step"));
  j["parallel"]["zero"] = 2;
  const Workload z2 = workload_from_json(j, "w.json", stack_lookup());
  CHECK(z2.reduce_every_micro_batch);
  CHECK_FALSE(has(z2.stack_fields, "parallel/grad_reduce"));
  // The workload's own field wins over the profile's.
  j["parallel"]["zero"] = 3;
  j["parallel"]["grad_reduce"] = "per_micro_batch";
  CHECK(workload_from_json(j, "w.json", stack_lookup()).reduce_every_micro_batch);
  // with_stack on a workload built in code: the same as the file form.
  Workload coded = fsdp_llama8b();
  CHECK_FALSE(with_stack(coded, load_stack_profile(stack_path("kempnerforge"))).reduce_every_micro_batch);
}

namespace {
// A NeMo-profile workload (Llama 3.1 8B on one DGX B200, DP 8) for the profile's conditional defaults.
nlohmann::json nemo_b200(const std::string& precision) {
  return {{"name", "n"},
          {"model", "llama3.1-8b"},
          {"hw", "dgx-b200"},
          {"nodes", 1},
          {"stack", "nemo"},
          {"parallel", {{"tp", 1}, {"pp", 1}, {"dp", 8}}},
          {"batch", {{"micro_batch", 1}, {"global_batch", 8}, {"seq_len", 8192}}},
          {"precision", precision},
          {"checkpointing", "none"}};
}
}  // namespace

// NeMo's FP8 / MXFP8 recipes keep the linear weights only in low precision (fp8_param_gather, a
// distributed-optimizer setting): the profile sets it where it exists and nowhere else.
TEST_CASE("stack profile: nemo's fp8_param_gather applies to FP8 / MXFP8 under ZeRO-1 / 2 only", "[stack][precision]") {
  nlohmann::json j = nemo_b200("fp8");
  auto read = [&](const std::string& precision, int zero) {
    auto k = j;
    k["precision"] = precision;
    if (zero >= 0) k["parallel"]["zero"] = zero;
    return workload_from_json(k, "w.json", stack_lookup());
  };
  for (const char* p : {"fp8", "mxfp8"}) {
    INFO(p);
    const Workload w = read(p, -1);  // the profile's ZeRO-1
    CHECK(w.zero == 1);
    CHECK(w.fp8_param_gather);
    CHECK(has(w.stack_fields, "fp8_param_gather = true"));
    CHECK(read(p, 2).fp8_param_gather);
    CHECK_FALSE(read(p, 0).fp8_param_gather);
    CHECK_FALSE(read(p, 3).fp8_param_gather);
  }
  for (const char* p : {"mixed-bf16", "nvfp4"}) {
    INFO(p);
    const Workload w = read(p, -1);
    CHECK_FALSE(w.fp8_param_gather);
    CHECK_FALSE(has(w.stack_fields, "fp8_param_gather"));
  }
  // One GPU: the profile's ZeRO is switched off, and fp8_param_gather with it.
  auto one = j;
  one["parallel"]["tp"] = 8;
  one["parallel"]["dp"] = 1;
  one["batch"]["global_batch"] = 1;
  CHECK_FALSE(workload_from_json(one, "w.json", stack_lookup()).fp8_param_gather);
  // The workload's own false wins.
  auto off = j;
  off["fp8_param_gather"] = false;
  CHECK_FALSE(workload_from_json(off, "w.json", stack_lookup()).fp8_param_gather);
}

// Megatron-Bridge keeps the FP32 master as remainders beside the BF16 parameters (its performance
// guide, frameworks.md 3 e): the nemo profile sets master_remainders where there is a master.
TEST_CASE("stack profile: nemo's master remainders apply where an FP32 master exists", "[stack][memory]") {
  nlohmann::json j = nemo_b200("mixed-bf16");
  auto read = [&](const nlohmann::json& k) { return workload_from_json(k, "w.json", stack_lookup()); };
  const Workload w = read(j);
  CHECK(w.master_remainders);
  CHECK(has(w.stack_fields, "master_remainders = true"));
  CHECK(w.master_bytes() == 2.0);
  for (const char* p : {"fp32", "bf16-sr"}) {
    auto k = j;
    k["precision"] = p;
    CHECK_FALSE(read(k).master_remainders);  // no master: the default is skipped, not refused
  }
  auto pure = j;
  pure["master_weights"] = false;
  CHECK_FALSE(read(pure).master_remainders);
  auto sr_master = j;  // BF16 with stochastic rounding and an FP32 master asked for: it has one
  sr_master["precision"] = "bf16-sr";
  sr_master["master_weights"] = true;
  CHECK(read(sr_master).master_remainders);
  auto off = j;
  off["master_remainders"] = false;
  CHECK_FALSE(read(off).master_remainders);
  CHECK(read(off).master_bytes() == 4.0);
}

TEST_CASE("stack profile: the training loop's launches come from the profile, survive a round trip, and are checked", "[stack][launch]") {
  nlohmann::json j = base_workload();
  j["stack"] = "megatron-deepspeed";
  j.erase("checkpointing");  // the profile's (full)
  const Workload w = workload_from_json(j, "w.json", stack_lookup());
  CHECK(w.loop == Workload::Loop{12, 31, 14});
  // The profile's DeepSpeed engine: 16-bit gradients (vTrain's fp16) in 5e8-element buffers.
  CHECK(w.grad_bytes() == 2);
  CHECK(w.grad_bucket_elements == 500'000'000);
  CHECK(workload_from_json(nlohmann::json::parse(workload_to_json(w)), "w.json", stack_lookup()).grad_bucket_elements ==
        500'000'000);
  const std::string text = workload_to_json(w);
  CHECK(text.find("\"loop\"") == std::string::npos);  // at the profile's values: left to it, no empty object
  CHECK(workload_from_json(nlohmann::json::parse(text), "w.json", stack_lookup()).loop == w.loop);
  // A run's own count is written out and comes back; one field given, the others from the profile.
  Workload own = w;
  own.loop.batch_launches = 5;
  const Workload back = workload_from_json(nlohmann::json::parse(workload_to_json(own)), "w.json", stack_lookup());
  CHECK(back.loop == Workload::Loop{5, 31, 14});
  // Without a stack: none unless given.
  j.erase("stack");
  j["checkpointing"] = "full";
  j["parallel"]["sequence_parallel"] = false;
  j["parallel"]["zero"] = 0;
  j["fused"] = {{"qkv", true}, {"gate_up", true}};
  CHECK_FALSE(workload_from_json(j, "w.json").loop.active());
  j["loop"] = {{"batch_launches", -1}};
  CHECK_THROWS_WITH(workload_from_json(j, "w.json"), Catch::Contains("w.json") && Catch::Contains("/loop/batch_launches"));
  j["loop"] = {{"batch_launch", 3}};
  CHECK_THROWS_WITH(workload_from_json(j, "w.json"), Catch::Contains("/loop/batch_launch") && Catch::Contains("unknown"));
}

TEST_CASE("stack profile: an eager run of a compiling stack issues its element-wise chains op by op", "[stack][launch]") {
  // torchneuron compiles by default and declares no element-wise fusion of its own: the fusion is
  // the compiler's. Run eager, every ATen op of RMSNorm / rotary / SwiGLU / the loss is a kernel.
  const auto file = std::string(TRNSIM_SOURCE_DIR) + "/workloads/torchneuron_llama3.1_8b_trn2_tp4_fsdp16.json";
  const nlohmann::json compiled = load_json_file(file);
  REQUIRE_FALSE(compiled.contains("execution"));
  const Workload c = workload_from_json(compiled, file, stack_lookup());
  CHECK(c.fused_elementwise);
  CHECK_FALSE(has(c.stack_fields, "fused/elementwise"));

  nlohmann::json j = compiled;
  j["execution"] = "eager";
  const Workload e = workload_from_json(j, file, stack_lookup());
  CHECK_FALSE(e.fused_elementwise);
  CHECK(e.loss() == Workload::LossKernel::Eager);
  CHECK(has(e.stack_fields, "fused/elementwise = false"));
  // A round trip leaves it to the profile and gets it back.
  const std::string text = workload_to_json(e);
  CHECK(text.find("\"elementwise\"") == std::string::npos);
  CHECK_FALSE(workload_from_json(nlohmann::json::parse(text), file, stack_lookup()).fused_elementwise);
  // The workload's own choice wins (an eager run with hand-fused kernels).
  j["fused"] = {{"elementwise", true}};
  CHECK(workload_from_json(j, file, stack_lookup()).fused_elementwise);
  // A stack that runs eager by default keeps its own declaration (torchtitan: unfused, kempnerforge:
  // fused under torch.compile) whatever the workload's execution says.
  auto t = base_workload();
  t["execution"] = "eager";
  CHECK_FALSE(workload_from_json(t, "w.json", stack_lookup()).fused_elementwise);
  t["stack"] = "kempnerforge";
  CHECK(workload_from_json(t, "w.json", stack_lookup()).fused_elementwise);
}

// Issue 25 item 4: the caching allocator's fragmentation as a declared per-stack fraction. No
// shipped profile declares one (no source in the corpus states a stack's fraction); a profile or a
// workload that does adds that fraction of every stage's live peak, and it decides what fits.
TEST_CASE("allocator fragmentation: a declared reserve over each stage's live peak", "[stack][memory]") {
  const auto m = load_model_spec(model_path("llama3.1-8b"));
  Workload w = fsdp_llama8b();
  const auto plan = build_step_plan(m, w);
  const auto none = memory_per_stage(m, w, plan).front();
  CHECK(none.allocator_reserve.base() == 0);
  w.allocator_fragmentation = 0.1;
  const auto reserved = memory_per_stage(m, w, plan).front();
  CHECK(reserved.allocator_reserve.base() == Approx(0.1 * none.total().base()));
  CHECK(reserved.total().base() == Approx(1.1 * none.total().base()));
  CHECK(reserved.activations.base() == none.activations.base());  // the live tensors are what they were
  // From a workload file, with its range checked; from a profile, listed as the profile's.
  nlohmann::json j = base_workload();
  j["allocator"] = {{"fragmentation", 0.05}};
  CHECK(workload_from_json(j, "w.json", stack_lookup()).allocator_fragmentation == 0.05);
  j["allocator"]["fragmentation"] = 1.5;
  CHECK_THROWS_WITH(workload_from_json(j, "w.json", stack_lookup()), Catch::Contains("/allocator/fragmentation"));
  StackProfile p = load_stack_profile(stack_path("torchtitan"));
  CHECK_FALSE(p.defaults.contains("allocator"));  // none declared in a shipped profile
  p.defaults["allocator"] = {{"fragmentation", 0.07}};
  std::vector<std::string> taken;
  nlohmann::json under = base_workload();
  under.erase("stack");
  const nlohmann::json merged = apply_stack_defaults(under, p, &taken);
  CHECK(merged["allocator"]["fragmentation"] == 0.07);
  CHECK(has(taken, "allocator/fragmentation"));
  // The report prints the reserve and its fraction.
  Workload shown = fsdp_llama8b();
  shown.allocator_fragmentation = 0.1;
  const Scenario s = make_scenario(shown, true);
  const StepReport report = build_report(s, execute_step(s));
  CHECK(to_json(report)["memory_per_core_gib"]["allocator_fragmentation"] == 0.1);
  CHECK_THAT(render(report, "text"), Catch::Contains("allocator reserve") && Catch::Contains("(declared fragmentation 10.0 %"));
}
