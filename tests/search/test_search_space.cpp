// test_search_space.cpp — issue 23: precision as a search axis. BF16 alone unless --axes lists
// low-precision formats; a format a chip lacks is skipped for that chip, not an error; the
// layout's workload carries the precision and its name says it.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "scenario.hpp"
#include "search.hpp"
#include "layout_space.hpp"
#include "trnsim/error.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

using namespace trnsim;

namespace {
// One hardware's search space: the spec, its loaded hw file and model.
struct OneHwSpace {
  SpaceSpec spec;
  std::vector<HwSpec> hws;
  ModelSpec model;
};
OneHwSpace one_hw_space(const std::string& model, const std::string& hw, int64_t nodes, int64_t seq, int64_t gb,
                        const std::string& axes) {
  OneHwSpace s;
  s.spec.model = model;
  s.spec.hws = {hw};
  s.spec.nodes = {nodes};
  s.spec.seq_len = seq;
  s.spec.global_batch = gb;
  s.spec.axes = parse_axes(axes);
  s.hws = {load_hw_spec(hw_path(hw))};
  s.model = load_model_spec(model_path(model));
  return s;
}
}  // namespace

TEST_CASE("precision is a search axis - formats a chip lacks are skipped for it", "[search][precision]") {
  const auto axes = parse_axes("precision=bf16,fp8,nvfp4;tp=8;pp=1;vs=1;mb=1;recompute=none;zero=1;sp=on;tp_overlap=off;"
                               "dp_overlap=on;fused=on;attention=flash");
  CHECK(axes.at("precision") == std::vector<int64_t>{0, 1, 3});
  SpaceSpec spec;
  spec.model = "llama2-7b";
  spec.hws = {"p4d.24xlarge", "dgx-h100", "trn1.32xlarge", "gb200-nvl72"};
  spec.nodes = {4};
  spec.seq_len = 4096;
  spec.global_batch = 64;
  spec.axes = axes;
  std::vector<HwSpec> hws;
  for (const auto& h : spec.hws) hws.push_back(load_hw_spec(hw_path(h)));
  const auto model = load_model_spec(model_path(spec.model));
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& l : enumerate_space(spec, model, hws)) {
    const Workload w = layout_workload(l, spec, hws[l.hw]);
    seen[w.hw].insert(to_string(w.precision));
    if (w.precision != Precision::MixedBF16 && w.precision != Precision::BF16_SR)
      CHECK(layout_name(l, spec).find(std::string("-") + to_string(w.precision)) != std::string::npos);
  }
  CHECK(seen["p4d.24xlarge"] == std::set<std::string>{"mixed-bf16"});               // A100: no FP8
  CHECK(seen["dgx-h100"] == std::set<std::string>{"mixed-bf16", "fp8"});            // Hopper: no NVFP4
  CHECK(seen["trn1.32xlarge"] == std::set<std::string>{"bf16-sr", "fp8"});          // cFP8 at the BF16 rate
  CHECK(seen["gb200-nvl72"] == std::set<std::string>{"mixed-bf16", "fp8", "nvfp4"});
  // Without the axis: BF16 only.
  spec.axes.erase("precision");
  for (const auto& l : enumerate_space(spec, model, hws)) CHECK(l.prec == 0);
  CHECK_THROWS_AS(parse_axes("precision=fp6"), UsageError);
  CHECK_THROWS_WITH(parse_axes("precision=fp6"), Catch::Contains("bf16, fp8, mxfp8, nvfp4"));
  // An on / off axis given a number beyond 1, or recompute beyond op_selective, is a usage error
  // naming the axis and its values (it used to empty the space with a divisibility message).
  CHECK_THROWS_WITH(parse_axes("tp_overlap=2"), Catch::Contains("tp_overlap") && Catch::Contains("on, off"));
  CHECK_THROWS_WITH(parse_axes("ep_overlap=on,2"), Catch::Contains("ep_overlap") && Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_axes("attention=3"), Catch::Contains("unfused, flash"));
  CHECK_THROWS_WITH(parse_axes("recompute=4"), Catch::Contains("op_selective"));
  CHECK(parse_axes("recompute=3;sp=1;tp_overlap=0").at("recompute") == std::vector<int64_t>{3});
}

TEST_CASE("expert and context parallelism are search axes", "[search][moe][cp]") {
  const auto [spec, hws, model] =
      one_hw_space("qwen3-30b-a3b", "gb200-nvl72", 2, 2048, 32, "attention=flash;fused=on;recompute=none;tp=1;pp=1;zero=1;dp_overlap=on;mb=1;cp=1,2;ep=1,2,4,8");
  std::set<std::pair<int, int>> seen;  // (ep, cp)
  for (const auto& l : enumerate_space(spec, model, hws)) {
    seen.insert({l.ep, l.cp});
    const Workload w = layout_workload(l, spec, hws[0]);
    CHECK(w.devices() == 8);
    CHECK(model.moe.experts % w.ep == 0);
    CHECK((w.tp * w.cp * w.dp) % w.ep == 0);
    if (l.ep > 1) CHECK(layout_name(l, spec).find(fmt::format("-ep{}", l.ep)) != std::string::npos);
  }
  // EP: 1, 2, 4, 8 over the 8 ranks of a stage (128 experts), with CP 1 (DP 8) and CP 2 (DP 4):
  // the expert grid takes the CP ranks too.
  CHECK(seen == std::set<std::pair<int, int>>{{1, 1}, {2, 1}, {4, 1}, {8, 1}, {1, 2}, {2, 2}, {4, 2}, {8, 2}});
  // Without ep in --axes, CP > 1 keeps EP 1 (EP at every CP degree multiplies a MoE space).
  auto [spec2, hws2, model2] =
      one_hw_space("qwen3-30b-a3b", "gb200-nvl72", 2, 2048, 32, "attention=flash;fused=on;recompute=none;tp=1;pp=1;zero=1;dp_overlap=on;mb=1;cp=1,2");
  std::set<std::pair<int, int>> seen2;
  for (const auto& l : enumerate_space(spec2, model2, hws2)) seen2.insert({l.ep, l.cp});
  CHECK(seen2 == std::set<std::pair<int, int>>{{1, 1}, {2, 1}, {4, 1}, {8, 1}, {1, 2}});
}

TEST_CASE("a stack profile fixes the axes it sets, where the loader would apply them", "[search][stack]") {
  auto [spec, hws, model] = one_hw_space("llama2-7b", "dgx-h100", 2, 4096, 64, "pp=1;vs=1;mb=1;recompute=full");
  const size_t free_layouts = enumerate_space(spec, model, hws).size();
  use_stack(spec, "torchtitan", stack_lookup());
  const auto layouts = enumerate_space(spec, model, hws);
  REQUIRE(!layouts.empty());
  CHECK(layouts.size() < free_layouts);
  std::set<int> tps;
  for (const auto& l : layouts) {
    tps.insert(l.tp);
    CHECK(l.flash);                         // SDPA
    CHECK_FALSE(l.fused);                   // separate wq / wk / wv
    CHECK(l.sp == (l.tp > 1));              // SP with TP
    CHECK_FALSE(l.tp_overlap);
    CHECK(l.zero == (l.dp > 1 ? 3 : 0));    // FSDP2 over the data-parallel ranks
    const Workload w = layout_workload(l, spec, hws[0]);
    CHECK(w.stack == "torchtitan");
    CHECK(w.fsdp_shard == Workload::FsdpShard::Master);
    CHECK(w.fp32_grads);
    CHECK(w.reduce_every_micro_batch == (w.zero >= 2));
    // Its per-op AC keeps float8 / MXFP8 GEMM outputs, not NVFP4's (stacks/torchtitan.json).
    CHECK(w.op_selective_saves_gemm(DType::MXFP8));
    CHECK_FALSE(w.op_selective_saves_gemm(DType::NVFP4));
  }
  CHECK(tps.size() > 1);  // TP, PP, micro-batch, recompute stay search axes
  // --axes wins over the profile: ZeRO-1 asked for, ZeRO-1 searched.
  SpaceSpec z1 = spec;
  z1.axes["zero"] = {1};
  use_stack(z1, "torchtitan", stack_lookup());
  for (const auto& l : enumerate_space(z1, model, hws)) CHECK(l.zero == 1);
  CHECK_THROWS_WITH(use_stack(z1, "no-such-stack", stack_lookup()), Catch::Contains("unknown stack"));
}

// A stack searches the checkpointing policies it has (checkpointing_policies): torchtitan's per-op
// selective, never Megatron's core-attention recompute it has no mode for; Megatron-Core the
// reverse; a profile that declares none, the default three; --axes recompute wins over all.
TEST_CASE("a stack profile's checkpointing policies are the search's recompute axis", "[search][stack]") {
  auto policies = [](const char* stack, const std::string& axes) {
    auto [spec, hws, model] = one_hw_space("llama2-7b", "dgx-h100", 1, 4096, 16, "tp=2;pp=1;vs=1;mb=1" + axes);
    if (stack != nullptr) use_stack(spec, stack, stack_lookup());
    std::set<int> seen;
    for (const auto& l : enumerate_space(spec, model, hws)) seen.insert(l.ckpt);
    return seen;
  };
  const int none = static_cast<int>(Checkpointing::None), sel = static_cast<int>(Checkpointing::Selective),
            full = static_cast<int>(Checkpointing::Full), op = static_cast<int>(Checkpointing::OpSelective);
  CHECK(policies("torchtitan", "") == std::set<int>{none, full, op});
  CHECK(policies("torchneuron", "") == std::set<int>{none, full, op});
  CHECK(policies("megatron-core", "") == std::set<int>{none, sel, full});
  CHECK(load_stack_profile(stack_path("llm-foundry")).checkpointing_policies.empty());
  CHECK(policies("llm-foundry", "") == std::set<int>{none, sel, full});
  CHECK(policies(nullptr, "") == std::set<int>{none, sel, full});
  CHECK(policies("torchtitan", ";recompute=selective") == std::set<int>{sel});  // a what-if the user asks for
  // The search's report names the policies it searched, from the stack, or none when --axes chose.
  SearchOptions o = test::search_options("llama2-7b", {"dgx-h100"}, {1}, 2048, 8, "tp=1;pp=1;vs=1;mb=1", 1);
  use_stack(o.space, "torchtitan", stack_lookup());
  const auto doc = run_search(o);
  CHECK(doc["space"]["stack"]["recompute_policies"] == nlohmann::json({"none", "op_selective", "full"}));
  CHECK(search_markdown(doc).find("recompute policies it has, searched: [\"none\",\"op_selective\",\"full\"]") != std::string::npos);
  o.space.axes = parse_axes("tp=1;pp=1;vs=1;mb=1;recompute=full");
  use_stack(o.space, "torchtitan", stack_lookup());
  CHECK_FALSE(run_search(o)["space"]["stack"].contains("recompute_policies"));
}

// The fastest layout of each cluster (hardware x node count): Llama 3.1 70B's weights and Adam state
// (16 bytes a parameter, ~1.1 TB) cannot fit on one DGX H100 (640 GB) even fully sharded, so that
// cluster is named as having no fitting layout; on four nodes the cluster's fastest row is the top
// of the throughput list (the only cluster), and the report says both.
TEST_CASE("search: the fastest layout of every cluster, and the clusters where nothing fits", "[search]") {
  const auto doc = run_search(test::search_options(
      "llama3.1-70b", {"dgx-h100"}, {1, 4}, 2048, 32,
      "tp=8;pp=1;vs=1;mb=1;recompute=full;zero=0,3;sp=on;tp_overlap=off;dp_overlap=on;fused=on;attention=flash", 2));
  REQUIRE(doc["best_by_cluster"].size() == 1);
  CHECK(doc["best_by_cluster"][0]["nodes"] == 4);
  CHECK(doc["best_by_cluster"][0]["id"] == doc["top_by_throughput"][0]["id"]);
  CHECK(doc["clusters_without_a_fitting_layout"] == nlohmann::json::array({{{"hw", "dgx-h100"}, {"nodes", 1}, {"enumerated", 1}}}));
  const std::string md = search_markdown(doc);
  CHECK(md.find("## Fastest per hardware and node count") != std::string::npos);
  CHECK(md.find("No layout fits on 1 node(s) of dgx-h100 (1 tried") != std::string::npos);
  CHECK(md.find("Rejected layouts: does not fit in HBM") != std::string::npos);
  CHECK_FALSE(doc["best_by_cluster"][0].contains("scaling_vs_fewest_nodes"));  // the fewest nodes that fit
}

// Scaling over node counts: each cluster's fastest layout's throughput per node against that of
// the fewest nodes of the same hardware (the global batch fixed); the fewest carry none.
TEST_CASE("search: per-node scaling of the fastest layouts against the fewest nodes", "[search]") {
  const auto doc = run_search(test::search_options(
      "llama2-7b", {"dgx-h100"}, {1, 2, 4}, 2048, 64,
      "tp=1,2;pp=1;vs=1;mb=1;recompute=none;zero=1;sp=off;tp_overlap=off;dp_overlap=on;fused=on;attention=flash", 2));
  const auto& rows = doc["best_by_cluster"];
  REQUIRE(rows.size() == 3);
  CHECK_FALSE(rows[0].contains("scaling_vs_fewest_nodes"));
  const double one = rows[0]["tokens_per_s"].get<double>();
  for (size_t i = 1; i < 3; ++i) {
    const auto& sc = rows[i]["scaling_vs_fewest_nodes"];
    CHECK(sc["nodes"] == 1);
    const double eff = sc["efficiency"].get<double>();
    CHECK(eff == Approx(rows[i]["tokens_per_s"].get<double>() / rows[i]["nodes"].get<double>() / one).epsilon(1e-12));
    CHECK(eff > 0.5);
  }
  CHECK(search_markdown(doc).find("Scaling of the fastest layouts (global batch fixed): 2 x dgx-h100") != std::string::npos);
}

// A pipelined layout's row says how unevenly its stages are loaded (busiest / mean busy, as `trnsim
// run` reports it); a layout without a pipeline has no such figure. Llama 2 7B: the last of 4 stages
// carries the LM head and the loss besides its 8 layers.
TEST_CASE("search: pipelined rows carry their stage imbalance", "[search][stages]") {
  const auto doc = run_search(test::search_options(
      "llama2-7b", {"dgx-h100"}, {1}, 2048, 64,
      "tp=2;pp=1,4;vs=1;mb=1;recompute=none;zero=0;sp=on;tp_overlap=off;dp_overlap=on;fused=on;attention=flash", 4));
  int piped = 0, flat = 0;
  for (const auto& row : doc["top_by_throughput"]) {
    INFO(row["id"].get<std::string>());
    if (row["pp"].get<int64_t>() > 1) {
      ++piped;
      REQUIRE(row.contains("stage_imbalance"));
      CHECK(row["stage_imbalance"].get<double>() > 1.0);
      CHECK(row["stage_imbalance"].get<double>() < 1.3);
    } else {
      ++flat;
      CHECK_FALSE(row.contains("stage_imbalance"));
    }
  }
  CHECK(piped > 0);
  CHECK(flat > 0);
}

// A profile's grad_reduce reaches every layout where the layout's ZeRO stage allows it: KempnerForge
// reduces once per step (FSDP2 without gradient sync), so its ZeRO-3 layouts hold the unsharded
// gradients, as `trnsim run` of the same workload does; a ZeRO-2 layout still reduces every
// micro-batch.
TEST_CASE("a stack profile's grad_reduce reaches the search's ZeRO-3 layouts", "[search][stack]") {
  auto [spec, hws, model] = one_hw_space("llama2-7b", "dgx-h100", 2, 4096, 64, "pp=1;vs=1;mb=1;recompute=full");
  use_stack(spec, "kempnerforge", stack_lookup());
  CHECK(spec.stack_grad_reduce == "per_step");
  int zero3 = 0;
  for (const auto& l : enumerate_space(spec, model, hws)) {
    const Workload w = layout_workload(l, spec, hws[0]);
    CHECK_FALSE(w.reduce_every_micro_batch);
    zero3 += w.zero == 3;
  }
  CHECK(zero3 > 0);
  SpaceSpec z2 = spec;
  z2.axes["zero"] = {2};
  use_stack(z2, "kempnerforge", stack_lookup());
  for (const auto& l : enumerate_space(z2, model, hws))
    CHECK(layout_workload(l, z2, hws[0]).reduce_every_micro_batch == (l.zero == 2));
  // The torchtitan profile sets none: ZeRO-3 layouts reduce every micro-batch (the loader's default).
  use_stack(spec, "torchtitan", stack_lookup());
  CHECK(spec.stack_grad_reduce.empty());
}

// Every profile field that is not a search axis reaches the layouts, as `trnsim run` applies it:
// KempnerForge's pure BF16 optimizer and gathered-until-backward FSDP schedule, torchtitan's eager
// element-wise kernels and eager loss. (The search had left them at the workload defaults: FP32
// master and moments, resharding, compiled kernels.)
TEST_CASE("a stack profile's optimizer, FSDP schedule and fusion reach every layout", "[search][stack]") {
  auto [spec, hws, model] = one_hw_space("llama2-7b", "dgx-h100", 2, 4096, 64, "pp=1;vs=1;mb=1;recompute=full");
  use_stack(spec, "kempnerforge", stack_lookup());
  const auto layouts = enumerate_space(spec, model, hws);
  REQUIRE(!layouts.empty());
  for (const auto& l : layouts) {
    const Workload w = layout_workload(l, spec, hws[0]);
    CHECK_FALSE(w.fp32_master());
    CHECK(w.optimizer_state_dtype == DType::BF16);
    CHECK_FALSE(w.fsdp_reshard_after_forward);
    CHECK(w.fused_elementwise);
    CHECK_FALSE(w.loss_parallel);
  }
  use_stack(spec, "torchtitan", stack_lookup());
  for (const auto& l : enumerate_space(spec, model, hws)) {
    const Workload w = layout_workload(l, spec, hws[0]);
    CHECK_FALSE(w.fused_elementwise);  // eager unless a run says torch.compile
    CHECK(w.loss() == Workload::LossKernel::Eager);
    CHECK(w.fsdp_reshard_after_forward);
    CHECK(w.optimizer_state_dtype == DType::FP32);
  }
}

// The invariant behind the two cases above, for every shipped profile: a search layout's workload,
// written out with the profile's non-axis fields removed and read back under the profile (what
// `trnsim run` does with a workload file that names the stack), is the same workload. A profile
// field the search forgets to copy fails here.
TEST_CASE("every shipped profile: a search layout equals trnsim run's reading of the same workload", "[search][stack]") {
  const std::set<std::string> axis_fields = {"attention",        "checkpointing",          "fused/qkv",
                                             "fused/gate_up",    "parallel/sequence_parallel", "parallel/tp_overlap",
                                             "parallel/overlap_dp", "parallel/zero"};
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TRNSIM_SOURCE_DIR) + "/stacks")) {
    const std::string name = entry.path().stem().string();
    const StackProfile profile = load_stack_profile(entry.path().string());
    // BF16 and FP8 layouts: profile fields that apply to low precision only (fp8_recipe, fp8_param_gather) too.
    auto [spec, hws, model] = one_hw_space("llama2-7b", "dgx-h100", 2, 4096, 64, "pp=1,2;vs=1;mb=1;recompute=full;precision=bf16,fp8");
    use_stack(spec, name, stack_lookup());
    const auto layouts = enumerate_space(spec, model, hws);
    REQUIRE(!layouts.empty());
    for (size_t i = 0; i < layouts.size(); i += std::max<size_t>(1, layouts.size() / 12)) {
      const Workload w = layout_workload(layouts[i], spec, hws[0]);
      nlohmann::json j = nlohmann::json::parse(workload_to_json(w));
      for (const auto& path : stack_settable_fields()) {
        const nlohmann::json::json_pointer ptr("/" + path);
        if (axis_fields.count(path) || !profile.defaults.contains(ptr) || !j.contains(ptr)) continue;
        j[ptr.parent_pointer()].erase(ptr.back());
      }
      if (j.contains("parallel")) j["parallel"].erase("grad_reduce");  // follows the ZeRO stage and the profile
      // Both written out in full (no provenance: the writer leaves profile-supplied fields out).
      Workload r = workload_from_json(j, w.file, stack_lookup()), sw = w;
      r.stack_fields.clear(), sw.stack_fields.clear();
      const auto read = nlohmann::json::parse(workload_to_json(r));
      const auto searched = nlohmann::json::parse(workload_to_json(sw));
      std::string diff;  // the fields that differ: "path: read vs searched"
      for (const auto& d : nlohmann::json::diff(searched, read)) diff += d.dump() + "; ";
      INFO(name << " " << w.name << ": " << diff);
      CHECK(diff.empty());
    }
  }
}

// --hw-set: the search over a hypothetical cluster. Faster links never lower the best layout's
// throughput (every layout's step can only shorten, so the best can only rise), the document says the
// hardware was edited, and a misspelt field is the hw reader's error naming the edit.
TEST_CASE("search: --hw-set searches a hypothetical cluster", "[search]") {
  const std::string axes = "tp=1,2,8;pp=1;vs=1;mb=1;recompute=none;sp=on;tp_overlap=off;dp_overlap=on;fused=on;attention=flash";
  SearchOptions o = test::search_options("llama2-7b", {"dgx-h100"}, {2}, 2048, 64, axes, 3);
  const auto base = run_search(o);
  o.hw_set = "inter_node.nic_Gbps_per_node=12800;intra_node.link_GBps_per_direction=900";
  const auto faster = run_search(o);
  CHECK(faster["space"]["hw_set"] == o.hw_set);
  CHECK(search_markdown(faster).find("Hypothetical hardware: every --hw file edited with --hw-set") != std::string::npos);
  const double before = base["top_by_throughput"][0]["tokens_per_s"].get<double>();
  const double after = faster["top_by_throughput"][0]["tokens_per_s"].get<double>();
  CHECK(after > before);  // 2 nodes: data-parallel traffic crosses the NICs
  o.hw_set = "inter_node.nic_gbps=1";
  CHECK_THROWS_WITH(run_search(o), Catch::Contains("(with --hw-set inter_node.nic_gbps=1)") && Catch::Contains("unknown field"));
}
