// report.cpp — metrics and renderers (see report.hpp). Every key carries its unit.
#include "report.hpp"
#include "versus.hpp"
#include "sensitivity.hpp"
#include "trace.hpp"
#include "workload_fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace trnsim {
namespace {
// tokens per dollar for the text and Markdown tables; "n/a" for a free (price 0) plan.
std::string tokens_per_usd_text(const nlohmann::json& plan_cost) {
  const auto& v = plan_cost["tokens_per_usd"];
  return v.is_number() ? fmt::format("{:.0f}", v.get<double>()) : "n/a";
}

// Each pipeline rank's share of the step ("the critical stage decides the step"): the
// layers of its chunks, its busy time (everything but waiting for another stage: compute,
// recompute, exposed collectives, the optimizer) and its memory. The critical stage is the one
// that finishes last (under 1F1B usually stage 0, whose last backward ends the step); the
// busiest one is the stage the others wait for, and busiest / mean busy says how unevenly the
// split loads them.
void add_stages(const Scenario& s, const StepResult& r, nlohmann::json& step) {
  nlohmann::json stages = nlohmann::json::array();
  double sum = 0, most = -1;
  int busiest = 0;
  for (size_t i = 0; i < r.stages.size(); ++i) {
    const StageTimes& t = r.stages[i];
    std::vector<int64_t> chunk_layers;
    bool embedding = false, loss = false;
    for (const StageProgram& p : s.plan.stages)  // by virtual stage: this rank's chunks in order
      if (p.rank == static_cast<int>(i)) {
        chunk_layers.push_back(p.num_layers);
        embedding = embedding || p.first;
        loss = loss || p.last;
      }
    double memory = 0;
    for (const MemoryBreakdown& m : s.memory)
      if (m.stage == static_cast<int>(i)) memory = in_gib(m.total());
    const double busy = t.busy_s();
    sum += busy;
    if (busy > most) most = busy, busiest = static_cast<int>(i);
    stages.push_back({{"stage", i},
                      {"layers", std::accumulate(chunk_layers.begin(), chunk_layers.end(), int64_t{0})},
                      {"layers_per_chunk", chunk_layers},
                      {"embedding", embedding},
                      {"loss", loss},
                      {"busy_s", busy},
                      {"waiting_s", t.bubble_s},
                      {"compute_s", t.compute_s + t.recompute_s},
                      {"finish_s", t.finish_s},
                      {"memory_gib", memory}});
  }
  step["stages"] = stages;
  const double mean = sum / static_cast<double>(r.stages.size());
  step["stage_balance"] = {{"busiest_stage", busiest},
                           {"busiest_busy_s", most},
                           {"mean_busy_s", mean},
                           {"imbalance", mean > 0 ? most / mean : 1.0}};
}
}  // namespace

double price_per_node_hour(const HwSpec& hw, PricePlan plan) {
  return plan == PricePlan::OnDemand ? hw.price.on_demand_per_hour : hw.price.reserved_per_hour;
}

nlohmann::json make_report(const Scenario& s, const StepResult& r) {
  const auto& w = s.workload;
  const double step = r.step_time_s;
  const double devices = static_cast<double>(w.devices());
  const double tokens = static_cast<double>(w.tokens_per_step());
  const double peak = s.hw.peak_per_core().base();
  nlohmann::json j;
  // The settings the field table marks for the report (workload_fields.cpp), then what the run
  // derived from them and from the hardware.
  j["workload"] = nlohmann::json::object();
  for (const WorkloadField& f : workload_fields())
    if (f.report_when && f.report_when(w)) j["workload"][nlohmann::json::json_pointer("/" + f.report_key)] = f.get(w);
  j["workload"]["file"] = w.file;
  j["workload"]["devices"] = w.devices();
  j["workload"]["grad_accum"] = w.grad_accum();
  j["workload"]["loss_kernel"] = to_string(w.loss());
  j["workload"]["model_parameters"] = s.model.total_parameters();
  // The native flash kernel's published rate where the chip has one (HwSpec::fused_attention_tflops).
  if (w.attention == Attention::Flash && s.hw.tensor.fused_attention_tflops > 0)
    j["workload"]["attention_kernel_TFLOPS"] = s.hw.tensor.fused_attention_tflops / s.hw.tensor.attention_slowdown_of(w.attention_kernel);
  // Without one, the native kernel's softmax runs beside its GEMMs (fused_attention_overlap.hpp).
  else if (w.attention == Attention::Flash && w.attention_kernel == AttentionKernel::Native)
    j["workload"]["attention_softmax_overlapped"] = true;
  // Per-op selective AC that does not save this run's low-precision GEMMs: its linears are recomputed.
  if (const DType lin = linear_dtype(w.precision);
      w.checkpointing == Checkpointing::OpSelective && is_low_precision(lin) && !w.op_selective_saves_gemm(lin))
    j["workload"]["op_selective_unsaved_format"] = to_string(lin);
  // The stack profile and the fields it supplied (the rest are the workload's own).
  if (!w.stack.empty()) j["workload"]["stack"] = {{"name", w.stack}, {"from_profile", w.stack_fields}};
  if (!s.notes.empty()) j["notes"] = s.notes;
  const auto& c = r.stages[static_cast<size_t>(r.critical_stage)];
  nlohmann::json engines;
  for (int e = 0; e < 5; ++e) engines[std::string(to_string(static_cast<Engine>(e))) + "_s"] = c.engine_s[static_cast<size_t>(e)];
  // Where the device time goes: compute, recompute and optimizer compute by the model part an op computes.
  nlohmann::json parts;
  for (int p = 0; p < kParts; ++p) parts[std::string(to_string(static_cast<Part>(p))) + "_s"] = c.part_s[static_cast<size_t>(p)];
  // Each engine queue's busy time in the TLM core model over the step (ops' engines overlap).
  nlohmann::json busy;
  for (int q = 0; q < kQueues; ++q) busy[to_string(static_cast<Queue>(q))] = c.queue_busy_s[static_cast<size_t>(q)];
  j["step"] = {{"step_time_s", step},
               {"critical_stage", r.critical_stage},
               {"breakdown_s",
                {{"compute", c.compute_s},
                 {"recompute", c.recompute_s},
                 {"tp_comm_exposed", c.tp_comm_s},
                 {"pp_comm_exposed", c.pp_comm_s},
                 {"pipeline_bubble", c.bubble_s},
                 {"dp_comm_exposed", c.dp_exposed_s},
                 {"optimizer", c.optimizer_s},
                 {"host_wait", c.host_wait_s}}},
               {"compute_by_engine_s", engines},
               {"compute_by_part_s", parts},
               {"engine_busy_s", busy},
               {"dp_comm_total_s", c.dp_comm_s},
               {"compute_slowed_by_collectives_s", c.comm_slowdown_s}};
  if (r.stages.size() > 1) add_stages(s, r, j["step"]);
  if (s.model.moe.active()) j["step"]["breakdown_s"]["ep_comm_exposed"] = c.ep_comm_s;
  if (w.cp > 1) j["step"]["breakdown_s"]["cp_comm_exposed"] = c.cp_comm_s;
  if (!s.hw.lnc_allowed.empty()) j["workload"]["lnc"] = s.hw.lnc;
  j["workload"]["execution"] = to_string(s.hw.host.execution);
  if (w.lora.active()) {
    std::vector<int64_t> per_rank(static_cast<size_t>(s.plan.ranks), 0);  // the adapters a core holds
    for (const auto& st : s.plan.stages) per_rank[static_cast<size_t>(st.rank)] += st.trainable_parameters;
    j["workload"]["lora"] = {{"rank", w.lora.rank},
                             {"targets", lora_target_names(w)},
                             {"trainable_parameters_per_core", *std::max_element(per_rank.begin(), per_rank.end())}};
  }
  j["throughput"] = {{"sequences_per_s", static_cast<double>(w.global_batch) / step},
                     {"tokens_per_s", tokens / step},
                     {"tokens_per_s_per_core", tokens / step / devices},
                     {"model_tflops_per_step", in_tflops(s.plan.model_flops)},
                     {"mfu", s.plan.model_flops.base() / (step * devices * peak)},
                     {"hfu", s.plan.hardware_flops.base() / (step * devices * peak)},
                     {"peak_tflops_per_core", peak / 1e12}};
  const auto& m = peak_stage(s.memory);
  const Bytes cap = s.hw.hbm_per_core();
  j["memory_per_core_gib"] = {{"stage", m.stage},
                              {"weights", in_gib(m.weights)},
                              {"gradients", in_gib(m.gradients)},
                              {"optimizer_states", in_gib(m.optimizer_states)},
                              {"master_weights", in_gib(m.master_weights)},
                              {"activations", in_gib(m.activations)},
                              {"activation_micro_batches_in_flight", m.in_flight},
                              {"temporary", in_gib(m.temporary)},
                              {"total", in_gib(m.total())},
                              {"usable_capacity", in_gib(cap)},
                              {"headroom", in_gib(cap - m.total())}};
  if (m.low_precision_weights.base() > 0) j["memory_per_core_gib"]["low_precision_weight_copies"] = in_gib(m.low_precision_weights);
  if (m.allocator_reserve.base() > 0) {
    j["memory_per_core_gib"]["allocator_reserve"] = in_gib(m.allocator_reserve);
    j["memory_per_core_gib"]["allocator_fragmentation"] = w.allocator_fragmentation;
  }
  nlohmann::json cost;
  for (PricePlan plan : {PricePlan::OnDemand, PricePlan::Reserved}) {
    const double node_h = price_per_node_hour(s.hw, plan);
    const double cluster_h = node_h * static_cast<double>(w.nodes);
    const double usd_per_step = cluster_h * step / 3600.0;
    cost[to_string(plan)] = {{"usd_per_node_hour", node_h},
                             {"usd_per_cluster_hour", cluster_h},
                             {"usd_per_step", usd_per_step},
                             {"usd_per_million_tokens", usd_per_step / tokens * 1e6},
                             // A free plan (price 0) has no tokens-per-dollar figure: null, not infinity.
                             {"tokens_per_usd", usd_per_step > 0 ? nlohmann::json(tokens / usd_per_step) : nlohmann::json()}};
  }
  cost["selected_plan"] = to_string(w.price_plan);
  j["cost"] = cost;
  j["simulator"] = {{"ops_simulated", r.ops_simulated},
                    {"op_lookups", r.op_lookups},
                    {"micro_batches_simulated", r.micro_batches_simulated},
                    {"micro_batches_per_step", s.plan.micro_batches}};
  return j;
}

// One line for the weak-scaling efficiency (scaling.hpp), or why there is none.
static std::string scaling_line(const nlohmann::json& sc) {
  if (!sc.contains("efficiency"))
    return fmt::format("scaling efficiency   n/a: {}\n", sc["unavailable"].get<std::string>());
  const auto& b = sc["baseline"];
  return fmt::format("scaling efficiency   {:5.1f} %   (per-core throughput vs {} node(s) at DP {}: {:.1f} tokens/s/core{}; "
                     "same replica and per-replica batch)\n",
                     100 * sc["efficiency"].get<double>(), b["nodes"].get<int64_t>(), b["dp"].get<int64_t>(),
                     b["tokens_per_s_per_core"].get<double>(),
                     b["fits_in_memory"].get<bool>() ? "" : ", a baseline that would not fit in memory, timed anyway");
}

// The pipeline ranks' busy and waiting time, layers and memory (add_stages): every stage up to
// 16, beyond that the first, the last and the three busiest (the JSON lists every one).
static std::string stages_text(const nlohmann::json& st) {
  const auto& stages = st["stages"];
  const auto& bal = st["stage_balance"];
  const size_t n = stages.size();
  std::vector<size_t> shown;
  if (n <= 16) {
    for (size_t i = 0; i < n; ++i) shown.push_back(i);
  } else {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return stages[a]["busy_s"].get<double>() > stages[b]["busy_s"].get<double>();
    });
    shown = {0, n - 1, order[0], order[1], order[2]};
    std::sort(shown.begin(), shown.end());
    shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
  }
  std::string o = fmt::format(
      "  pipeline stages: busiest {} ({:.4f} s busy; imbalance {:.3f} = busiest / mean busy {:.4f} s){}\n"
      "    stage  layers (E embedding, L loss, | chunk)     busy s   waiting s   memory GiB\n",
      bal["busiest_stage"].get<int>(), bal["busiest_busy_s"].get<double>(), bal["imbalance"].get<double>(),
      bal["mean_busy_s"].get<double>(), n > shown.size() ? fmt::format("; {} of {} stages shown, --format json lists all", shown.size(), n) : "");
  for (size_t i : shown) {
    const auto& g = stages[i];
    std::vector<std::string> chunks;
    for (const auto& l : g["layers_per_chunk"]) chunks.push_back(std::to_string(l.get<int64_t>()));
    const std::string layers = (g["embedding"].get<bool>() ? "E " : "") + fmt::format("{}", fmt::join(chunks, "|")) +
                               (g["loss"].get<bool>() ? " L" : "");
    o += fmt::format("    {:5}  {:<36}{:10.4f}{:12.4f}{:13.2f}\n", g["stage"].get<size_t>(), layers, g["busy_s"].get<double>(),
                     g["waiting_s"].get<double>(), g["memory_gib"].get<double>());
  }
  return o;
}

const std::vector<std::pair<const char*, const char*>>& breakdown_labels() {
  static const std::vector<std::pair<const char*, const char*>> labels = {
      {"compute", "compute"},
      {"recompute", "recompute"},
      {"tp_comm_exposed", "TP comm (exposed)"},
      {"ep_comm_exposed", "EP all-to-all"},
      {"cp_comm_exposed", "CP ring (exposed)"},
      {"pp_comm_exposed", "PP comm (exposed)"},
      {"pipeline_bubble", "pipeline bubble"},
      {"dp_comm_exposed", "DP comm (exposed)"},
      {"optimizer", "optimizer"},
      {"host_wait", "host (exposed)"}};
  return labels;
}

std::string render_text(const nlohmann::json& j) {
  const auto& w = j["workload"];
  const auto& st = j["step"];
  const auto& b = st["breakdown_s"];
  const auto& t = j["throughput"];
  const auto& m = j["memory_per_core_gib"];
  std::string o;
  o += fmt::format("trnsim report: {} ({} on {} x {}, {} cores{})\n", w["name"].get<std::string>(),
                   w["model"].get<std::string>(), w["nodes"].get<int64_t>(), w["hw"].get<std::string>(),
                   w["devices"].get<int64_t>(),
                   w.contains("lnc") ? fmt::format(" of LNC {}", w["lnc"].get<int>()) : std::string());
  std::string expert;  // the MoE and CP degrees where used
  for (const auto& [key, name] : {std::pair<const char*, const char*>{"cp", "CP"}, {"ep", "EP"}, {"etp", "ETP"}})
    if (w.contains(key)) expert += fmt::format(" {} {}", name, w[key].get<int64_t>());
  if (w.contains("moe_dispatcher"))
    expert += fmt::format(" ({} dispatcher{})", w["moe_dispatcher"].get<std::string>(),
                          w.value("ep_overlap", false) ? ", all-to-alls hidden in 1F1B's steady state" : "");
  o += fmt::format("  plan: TP {} PP {} DP {}{} SP {} ZeRO-{} {} | micro-batch {} x grad-accum {} = global {} seqs of {} tokens\n",
                   w["tp"].get<int64_t>(), w["pp"].get<int64_t>(), w["dp"].get<int64_t>(), expert,
                   w["sequence_parallel"].get<bool>() ? "on" : "off", w["zero"].get<int>(), w["schedule"].get<std::string>(),
                   w["micro_batch"].get<int64_t>(), w["grad_accum"].get<int64_t>(), w["global_batch"].get<int64_t>(),
                   w["seq_len"].get<int64_t>());
  // Optimizer numerics that differ from the precision's defaults, in parentheses after it.
  std::string precision = w["precision"].get<std::string>(), kept;
  if (w.contains("master_weights")) kept = w["master_weights"].get<bool>() ? "FP32 master" : "no FP32 master";
  if (w.contains("optimizer_state_dtype")) kept += std::string(kept.empty() ? "" : ", ") + "BF16 AdamW moments";
  if (w.contains("bf16_layers")) {
    const auto& b = w["bf16_layers"];
    const int64_t first = b["first"].get<int64_t>(), last = b["last"].get<int64_t>();
    kept = (first > 0 ? fmt::format("first {}", first) : "") + (first > 0 && last > 0 ? " and " : "") +
           (last > 0 ? fmt::format("last {}", last) : "") + " blocks BF16" + (kept.empty() ? "" : ", ") + kept;
  }
  if (!kept.empty()) precision += " (" + kept + ")";
  o += fmt::format("  precision {} | checkpointing {} | fused qkv {} gate-up {} elementwise {} loss {} | attention {} | virtual stages {} | "
                   "execution {}\n",
                   precision,
                   w["checkpointing"].get<std::string>() +
                       (w.contains("checkpoint_every") ? fmt::format(" (every {} layers)", w["checkpoint_every"].get<int64_t>()) : "") +
                       (w.contains("checkpoint_layers")
                            ? fmt::format(" (first {} layers of each chunk)", w["checkpoint_layers"].get<int64_t>())
                            : "") +
                       (w.contains("op_selective_unsaved_format")
                            ? fmt::format(" ({} linears recomputed: not in the policy's save list)",
                                          w["op_selective_unsaved_format"].get<std::string>())
                            : ""),
                   w["fused_qkv"].get<bool>(),
                   w["fused_gate_up"].get<bool>(),
                   w["fused_elementwise"].get<bool>(),
                   w["loss_kernel"].get<std::string>(),
                   w["attention"].get<std::string>() +
                       (w.contains("attention_kernel") ? fmt::format(" ({})", w["attention_kernel"].get<std::string>()) : "") +
                       (w.contains("attention_kernel_TFLOPS")
                            ? fmt::format(" at {:.0f} TFLOPS (published kernel rate)", w["attention_kernel_TFLOPS"].get<double>())
                            : "") +
                       (w.value("attention_softmax_overlapped", false) ? " (softmax beside its GEMMs)" : ""),
                   fmt::format("{}{}", w["virtual_stages"].get<int64_t>(),
                               w.value("pp_overlap", false) ? " (p2p overlapped with compute)" : ""),
                   w["execution"].get<std::string>());
  if (w.contains("document_tokens"))
    o += fmt::format("  packed documents of {} tokens: attention runs within each document\n", w["document_tokens"].get<int64_t>());
  if (w.contains("lora")) {
    const auto& l = w["lora"];
    std::vector<std::string> t(l["targets"].begin(), l["targets"].end());
    o += fmt::format("  LoRA rank {} on {} (base frozen; at most {:.2f} M trainable parameters per core)\n",
                     l["rank"].get<int64_t>(), fmt::join(t, ", "),
                     static_cast<double>(l["trainable_parameters_per_core"].get<int64_t>()) / 1e6);
  }
  if (w.contains("pipeline_layout"))
    o += fmt::format("  pipeline layout {} (E embedding, t decoder layer, m MTP, L loss, | chunk)\n",
                     w["pipeline_layout"].get<std::string>());
  if (w.contains("stack")) {
    const auto& fields = w["stack"]["from_profile"];
    std::vector<std::string> f(fields.begin(), fields.end());
    o += fmt::format("  stack {} (stacks/{}.json){}{}\n", w["stack"]["name"].get<std::string>(),
                     w["stack"]["name"].get<std::string>(), f.empty() ? " | every field set by the workload" : " | from the profile: ",
                     fmt::join(f, ", "));
  }
  o += fmt::format("\nstep time            {:10.4f} s   (critical stage {})\n", st["step_time_s"].get<double>(),
                   st["critical_stage"].get<int>());
  if (j.contains("interval"))
    o += fmt::format("  90% interval       {:.4f} - {:.4f} s   ({}; {} residuals; fitted parameters +-{:.1f} % at 1 s.d.)\n",
                     j["interval"]["step_time_s"][0].get<double>(), j["interval"]["step_time_s"][1].get<double>(),
                     j["interval"]["basis"].get<std::string>(), j["interval"]["residual_rows"].get<size_t>(),
                     100 * std::expm1(j["interval"].value("parameter_sigma_log", 0.0)));
  for (auto [k, label] : breakdown_labels())
    if (b.contains(k)) o += fmt::format("  {:<19}{:10.4f} s   {:5.1f} %\n", label, b[k].get<double>(),
                     100.0 * b[k].get<double>() / st["step_time_s"].get<double>());
  // Compute and recompute sum each op's time on its engine; where a core's engines run ops side by
  // side (a NeuronCore's tensor, vector and scalar engines) those overlap, and the parts can add up
  // to more than the step.
  double parts_sum = 0;
  for (auto it = b.begin(); it != b.end(); ++it) parts_sum += it.value().get<double>();
  if (parts_sum > 1.001 * st["step_time_s"].get<double>())
    o += fmt::format("  (these add up to {:.1f} % of the step: compute and recompute count each engine's op time, "
                     "and this core's engines run ops side by side)\n",
                     100.0 * parts_sum / st["step_time_s"].get<double>());
  o += "  ops by bounding engine: ";
  for (auto it = st["compute_by_engine_s"].begin(); it != st["compute_by_engine_s"].end(); ++it)
    o += fmt::format("{} {:.4f} s  ", it.key().substr(0, it.key().size() - 2), it.value().get<double>());
  if (st.contains("compute_by_part_s")) {  // largest first; parts the model does not have are left out
    std::vector<std::pair<double, std::string>> parts;
    double total = 0;
    for (auto it = st["compute_by_part_s"].begin(); it != st["compute_by_part_s"].end(); ++it) {
      const double v = it.value().get<double>();
      total += v;
      if (v > 0) parts.push_back({v, it.key().substr(0, it.key().size() - 2)});
    }
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    o += "\n  compute by model part (incl. recompute, optimizer): ";
    for (const auto& [v, name] : parts) o += fmt::format("{} {:.4f} s ({:.1f} %)  ", name, v, total > 0 ? 100 * v / total : 0.0);
  }
  o += "\n  engine busy (TLM queues, overlapping): ";
  for (auto it = st["engine_busy_s"].begin(); it != st["engine_busy_s"].end(); ++it)
    o += fmt::format("{} {:.4f} s  ", it.key() == "scalar" ? "scalar/activation" : it.key(), it.value().get<double>());
  o += fmt::format("\n  DP comm total (incl. hidden) {:.4f} s\n", st["dp_comm_total_s"].get<double>());
  if (const double slow = st["compute_slowed_by_collectives_s"].get<double>(); slow > 0)
    o += fmt::format("  GEMMs slowed by collectives on their SMs +{:.4f} s (part of compute)\n", slow);
  if (st.contains("stages")) o += stages_text(st);
  if (j.contains("pipeline_split_advice")) {
    const auto& a = j["pipeline_split_advice"];
    std::vector<int64_t> split = a["layers_per_stage"].get<std::vector<int64_t>>();
    o += fmt::format("  a split that evens the stages out (simulated): layers per stage [{}]: step {:.4f} s ({:+.1f} %), "
                     "busiest / mean busy {:.3f}, memory {:.2f} GiB per core; run it with --set \"{}\"\n",
                     fmt::join(split, ", "), a["step_time_s"].get<double>(), a["change_pct"].get<double>(),
                     a["imbalance"].get<double>(), a["memory_per_core_gib"].get<double>(), a["set"].get<std::string>());
  }
  o += sensitivity_text(j);
  o += fmt::format("\nthroughput           {:10.2f} seq/s   {:12.0f} tokens/s   {:8.1f} tokens/s/core\n",
                   t["sequences_per_s"].get<double>(), t["tokens_per_s"].get<double>(),
                   t["tokens_per_s_per_core"].get<double>());
  o += fmt::format("utilisation          MFU {:5.1f} %   HFU {:5.1f} %   (peak {:.1f} TFLOP/s per core)\n",
                   100 * t["mfu"].get<double>(), 100 * t["hfu"].get<double>(), t["peak_tflops_per_core"].get<double>());
  if (j.contains("scaling")) o += scaling_line(j["scaling"]);
  o += fmt::format(
      "\nmemory per core      {:6.2f} GiB of {:.2f} GiB usable (headroom {:.2f} GiB), stage {}\n"
      "  weights {:.2f} | grads {:.2f} | optimizer {:.2f} | master {:.2f} | activations {:.2f} ({} micro-batch) | temp {:.2f} GiB\n",
      m["total"].get<double>(), m["usable_capacity"].get<double>(), m["headroom"].get<double>(), m["stage"].get<int>(),
      m["weights"].get<double>(), m["gradients"].get<double>(), m["optimizer_states"].get<double>(),
      m["master_weights"].get<double>(), m["activations"].get<double>(),
      m["activation_micro_batches_in_flight"].get<int64_t>(), m["temporary"].get<double>());
  if (m.contains("low_precision_weight_copies"))
    o += fmt::format("  low-precision weight copies {:.2f} GiB{}\n", m["low_precision_weight_copies"].get<double>(),
                     j["workload"].value("fp8_param_gather", false)
                         ? " (the only copy of the linear weights: fp8_param_gather, no BF16 one)"
                         : "");
  if (m.contains("allocator_reserve"))
    o += fmt::format("  allocator reserve {:.2f} GiB (declared fragmentation {:.1f} % of the live peak)\n",
                     m["allocator_reserve"].get<double>(), 100 * m["allocator_fragmentation"].get<double>());
  // Sharded state that reduces once per step holds every gradient unsharded: say why grads are big.
  if (j["workload"]["zero"].get<int64_t>() == 3 && j["workload"]["grad_reduce"] == "per_step")
    o += "  grads are unsharded: ZeRO-3 reducing once per step (no gradient sync until the last micro-batch)\n";
  o += "\ncost                 plan        $/node-h   $/cluster-h   $/M tokens   tokens/$\n";
  for (const char* plan : {"on_demand", "reserved"}) {
    const auto& c = j["cost"][plan];
    o += fmt::format("                     {:<10}{:10.3f}{:14.2f}{:13.4f}{:>12}{}\n", plan,
                     c["usd_per_node_hour"].get<double>(), c["usd_per_cluster_hour"].get<double>(),
                     c["usd_per_million_tokens"].get<double>(), tokens_per_usd_text(c),
                     j["cost"]["selected_plan"] == plan ? "  (selected)" : "");
  }
  o += versus_text(j);
  o += fmt::format("\nsimulator: {} distinct ops simulated, {} op lookups\n", j["simulator"]["ops_simulated"].get<size_t>(),
                   j["simulator"]["op_lookups"].get<size_t>());
  if (j.contains("notes"))
    for (const auto& n : j["notes"]) o += "note: " + n.get<std::string>() + "\n";
  return o;
}

std::string render_markdown(const nlohmann::json& j) {
  const auto& w = j["workload"];
  const auto& st = j["step"];
  const auto& t = j["throughput"];
  const auto& m = j["memory_per_core_gib"];
  std::string o = fmt::format("## {}\n\n{} on {} x {} ({} cores): TP {} / PP {} / DP {}, SP {}, ZeRO-{}, {} checkpointing, {}\n\n",
                              w["name"].get<std::string>(), w["model"].get<std::string>(), w["nodes"].get<int64_t>(),
                              w["hw"].get<std::string>(), w["devices"].get<int64_t>(), w["tp"].get<int64_t>(),
                              w["pp"].get<int64_t>(), w["dp"].get<int64_t>(), w["sequence_parallel"].get<bool>() ? "on" : "off",
                              w["zero"].get<int>(), w["checkpointing"].get<std::string>(), w["precision"].get<std::string>());
  o += "| metric | value |\n|---|---|\n";
  o += fmt::format("| step time (s) | {:.4f} |\n", st["step_time_s"].get<double>());
  for (auto it = st["breakdown_s"].begin(); it != st["breakdown_s"].end(); ++it)
    o += fmt::format("| {} (s) | {:.4f} |\n", it.key(), it.value().get<double>());
  if (st.contains("compute_by_part_s"))  // the model's parts; those it lacks are left out
    for (auto it = st["compute_by_part_s"].begin(); it != st["compute_by_part_s"].end(); ++it)
      if (it.value().get<double>() > 0)
        o += fmt::format("| compute: {} (s) | {:.4f} |\n", it.key().substr(0, it.key().size() - 2), it.value().get<double>());
  o += fmt::format("| throughput (seq/s) | {:.2f} |\n| throughput (tokens/s) | {:.0f} |\n| tokens/s per core | {:.1f} |\n",
                   t["sequences_per_s"].get<double>(), t["tokens_per_s"].get<double>(), t["tokens_per_s_per_core"].get<double>());
  o += fmt::format("| MFU (%) | {:.1f} |\n| HFU (%) | {:.1f} |\n", 100 * t["mfu"].get<double>(), 100 * t["hfu"].get<double>());
  if (j.contains("scaling") && j["scaling"].contains("efficiency"))
    o += fmt::format("| scaling efficiency vs {} node(s), DP {} (%) | {:.1f} |\n", j["scaling"]["baseline"]["nodes"].get<int64_t>(),
                     j["scaling"]["baseline"]["dp"].get<int64_t>(), 100 * j["scaling"]["efficiency"].get<double>());
  if (j.contains("pipeline_split_advice"))
    o += fmt::format("| a split that evens the stages out: layers per stage, step (s) | {}, {:.4f} ({:+.1f} %) |\n",
                     j["pipeline_split_advice"]["layers_per_stage"].dump(), j["pipeline_split_advice"]["step_time_s"].get<double>(),
                     j["pipeline_split_advice"]["change_pct"].get<double>());
  if (st.contains("stage_balance"))
    o += fmt::format("| busiest pipeline stage (busy s; busiest / mean busy) | {} ({:.4f}; {:.3f}) |\n",
                     st["stage_balance"]["busiest_stage"].get<int>(), st["stage_balance"]["busiest_busy_s"].get<double>(),
                     st["stage_balance"]["imbalance"].get<double>());
  if (j.contains("sensitivity"))
    for (const auto& row : j["sensitivity"]["resources"])
      if (row.contains("elasticity"))
        o += fmt::format("| elasticity of the step to {} ({:.0f} % better: step s) | {:.3f} ({:.4f}) |\n",
                         row["resource"].get<std::string>(), 100 * (j["sensitivity"]["factor"].get<double>() - 1),
                         row["elasticity"].get<double>(), row["step_time_s"].get<double>());
  o += fmt::format("| memory per core (GiB) | {:.2f} of {:.2f} |\n", m["total"].get<double>(), m["usable_capacity"].get<double>());
  for (const char* plan : {"on_demand", "reserved"})
    o += fmt::format("| cost, {} ($ per M tokens) | {:.4f} |\n| tokens per $, {} | {} |\n", plan,
                     j["cost"][plan]["usd_per_million_tokens"].get<double>(), plan,
                     tokens_per_usd_text(j["cost"][plan]));
  o += versus_markdown(j);
  return o;
}

std::string render(const nlohmann::json& report, const std::string& format) {
  if (format == "json") return report.dump(2) + "\n";
  if (format == "md") return render_markdown(report);
  return render_text(report);
}

std::string step_trace_json(const Scenario& s, const StepResult& r) {
  return trace_json(r.trace, s.workload.name, {r.micro_batches_simulated, s.plan.micro_batches, r.step_time_s});
}

nlohmann::json row_from_report(const nlohmann::json& r, double train_tokens) {
  const auto& w = r["workload"];
  const double tps = r["throughput"]["tokens_per_s"].get<double>();
  const double days = train_tokens / tps / 86400.0;
  const double cluster_h = r["cost"]["on_demand"]["usd_per_cluster_hour"].get<double>();
  return {{"id", w["name"]},
          {"hw", w["hw"]},
          {"nodes", w["nodes"]},
          {"tp", w["tp"]},
          {"pp", w["pp"]},
          {"dp", w["dp"]},
          {"micro_batch", w["micro_batch"]},
          {"checkpointing", w["checkpointing"]},
          {"zero", w["zero"]},
          {"fused", w["fused_qkv"]},
          {"step_time_s", r["step"]["step_time_s"]},
          {"sequences_per_s", r["throughput"]["sequences_per_s"]},
          {"tokens_per_s", tps},
          {"mfu", r["throughput"]["mfu"]},
          {"memory_per_core_gib", r["memory_per_core_gib"]["total"]},
          {"usd_per_million_tokens_on_demand", r["cost"]["on_demand"]["usd_per_million_tokens"]},
          {"usd_per_million_tokens_reserved", r["cost"]["reserved"]["usd_per_million_tokens"]},
          {"days_to_train", days},
          {"usd_to_train_on_demand", days * 24 * cluster_h}};
}

std::string rejection_reason(const std::string& message) {
  if (message.find("does not fit in HBM") != std::string::npos) return "does not fit in HBM";
  auto first = message.find(": /");
  if (first == std::string::npos) return message;
  auto colon = message.find(": ", first + 2);
  return "invalid " + message.substr(first + 2, colon == std::string::npos ? std::string::npos : colon - first - 2);
}

}  // namespace trnsim
