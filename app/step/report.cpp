// report.cpp — the typed report of a step and its three renderers (see report.hpp). Every JSON key carries its unit.
#include "report.hpp"
#include "versus.hpp"
#include "sensitivity.hpp"
#include "trace.hpp"
#include "workload_fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace trnsim {
namespace {
// tokens per dollar for the text and Markdown tables; "n/a" for a free (price 0) plan.
std::string tokens_per_usd_text(const PlanCost& c) {
  return c.tokens_per_usd ? fmt::format("{:.0f}", *c.tokens_per_usd) : "n/a";
}

// Each pipeline rank's share of the step ("the critical stage decides the step"): the
// layers of its chunks, its busy time (everything but waiting for another stage: compute,
// recompute, exposed collectives, the optimizer) and its memory. The critical stage is the one
// that finishes last (under 1F1B usually stage 0, whose last backward ends the step); the
// busiest one is the stage the others wait for, and busiest / mean busy says how unevenly the
// split loads them.
void add_stages(const Scenario& s, const StepResult& r, StepFigures& step) {
  double sum = 0, most = -1;
  int busiest = 0;
  for (size_t i = 0; i < r.stages.size(); ++i) {
    const StageTimes& t = r.stages[i];
    StageRow row;
    row.stage = static_cast<int>(i);
    for (const StageProgram& p : s.plan.stages)  // by virtual stage: this rank's chunks in order
      if (p.rank == static_cast<int>(i)) {
        row.layers_per_chunk.push_back(p.num_layers);
        row.embedding = row.embedding || p.first;
        row.loss = row.loss || p.last;
      }
    for (const MemoryBreakdown& m : s.memory)
      if (m.stage == static_cast<int>(i)) row.memory_gib = in_gib(m.total());
    row.busy_s = t.busy_s();
    row.waiting_s = t.bubble_s;
    row.compute_s = t.compute_s + t.recompute_s;
    row.finish_s = t.finish_s;
    sum += row.busy_s;
    if (row.busy_s > most) most = row.busy_s, busiest = row.stage;
    step.stages.push_back(row);
  }
  const double mean = sum / static_cast<double>(r.stages.size());
  step.balance = StageBalance{busiest, most, mean, mean > 0 ? most / mean : 1.0};
}

// Named times in name order (the JSON object's order, which the text and Markdown follow).
std::vector<NamedSeconds> by_name(std::vector<NamedSeconds> v) {
  std::sort(v.begin(), v.end(), [](const NamedSeconds& a, const NamedSeconds& b) { return a.name < b.name; });
  return v;
}
nlohmann::json seconds_object(const std::vector<NamedSeconds>& v, const char* suffix) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, s] : v) j[name + suffix] = s;
  return j;
}
}  // namespace

int64_t StageRow::layers() const { return std::accumulate(layers_per_chunk.begin(), layers_per_chunk.end(), int64_t{0}); }

double StepFigures::part(const std::string& key) const {
  for (const BreakdownPart& p : breakdown)
    if (key == p.key) return p.s;
  return 0;
}

std::string shown_degrees(const Workload& w) {
  std::string out;
  for (const auto& [key, name, value] : {std::tuple<const char*, const char*, int64_t>{"cp", "CP", w.cp}, {"ep", "EP", w.ep}, {"etp", "ETP", w.etp}})
    if (workload_reports(w, key)) out += fmt::format(" {} {}", name, value);
  return out;
}

double price_per_node_hour(const HwSpec& hw, PricePlan plan) {
  return plan == PricePlan::OnDemand ? hw.price.on_demand_per_hour : hw.price.reserved_per_hour;
}

StepReport build_report(const Scenario& s, const StepResult& r) {
  const auto& w = s.workload;
  const double step = r.step_time_s;
  const double devices = static_cast<double>(w.devices());
  const double tokens = static_cast<double>(w.tokens_per_step());
  const double peak = s.hw.peak_per_core().base();
  StepReport rep;
  WorkloadEcho& e = rep.workload;
  e.workload = w;
  e.devices = w.devices();
  e.grad_accum = w.grad_accum();
  e.loss_kernel = to_string(w.loss());
  e.model_parameters = s.model.total_parameters();
  // The native flash kernel's published rate where the chip has one (HwSpec::fused_attention_tflops).
  if (w.attention == Attention::Flash && s.hw.tensor.fused_attention_tflops > 0)
    e.attention_kernel_tflops = s.hw.tensor.fused_attention_tflops / s.hw.tensor.attention_slowdown_of(w.attention_kernel);
  // Without one, the native kernel's softmax runs beside its GEMMs (fused_attention_overlap.hpp).
  else if (w.attention == Attention::Flash && w.attention_kernel == AttentionKernel::Native)
    e.attention_softmax_overlapped = true;
  // Per-op selective AC that does not save this run's low-precision GEMMs: its linears are recomputed.
  if (const DType lin = linear_dtype(w.precision);
      w.checkpointing == Checkpointing::OpSelective && is_low_precision(lin) && !w.op_selective_saves_gemm(lin))
    e.op_selective_unsaved_format = to_string(lin);
  if (!s.hw.lnc_allowed.empty()) e.lnc = s.hw.lnc;
  e.execution = to_string(s.hw.host.execution);
  if (w.lora.active()) {
    std::vector<int64_t> per_rank(static_cast<size_t>(s.plan.ranks), 0);  // the adapters a core holds
    for (const auto& st : s.plan.stages) per_rank[static_cast<size_t>(st.rank)] += st.trainable_parameters;
    e.lora = WorkloadEcho::Lora{w.lora.rank, lora_target_names(w), *std::max_element(per_rank.begin(), per_rank.end())};
  }
  rep.notes = s.notes;

  const auto& c = r.stages[static_cast<size_t>(r.critical_stage)];
  StepFigures& st = rep.step;
  st.step_time_s = step;
  st.critical_stage = r.critical_stage;
  const std::map<std::string, double> parts = {
      {"compute", c.compute_s},         {"recompute", c.recompute_s},     {"tp_comm_exposed", c.tp_comm_s},
      {"pp_comm_exposed", c.pp_comm_s}, {"pipeline_bubble", c.bubble_s},  {"dp_comm_exposed", c.dp_exposed_s},
      {"optimizer", c.optimizer_s},     {"host_wait", c.host_wait_s},     {"ep_comm_exposed", c.ep_comm_s},
      {"cp_comm_exposed", c.cp_comm_s}, {"slowest_node", r.slowest_node_s}};
  for (const auto& [key, label] : breakdown_labels()) {
    if ((std::string(key) == "ep_comm_exposed" && !s.model.moe.active()) || (std::string(key) == "cp_comm_exposed" && w.cp <= 1) ||
        (std::string(key) == "slowest_node" && r.slowest_node_s <= 0))
      continue;  // parts only a MoE model / a CP run / nodes that spread have
    st.breakdown.push_back({key, label, parts.at(key)});
  }
  for (int q = 0; q < 5; ++q) st.by_engine.push_back({to_string(static_cast<Engine>(q)), c.engine_s[static_cast<size_t>(q)]});
  // Where the device time goes: compute, recompute and optimizer compute by the model part an op computes.
  for (int p = 0; p < kParts; ++p) st.by_part.push_back({to_string(static_cast<Part>(p)), c.part_s[static_cast<size_t>(p)]});
  // Each engine queue's busy time in the TLM core model over the step (ops' engines overlap).
  for (int q = 0; q < kQueues; ++q) st.engine_busy.push_back({to_string(static_cast<Queue>(q)), c.queue_busy_s[static_cast<size_t>(q)]});
  st.dp_comm_total_s = c.dp_comm_s;
  st.compute_slowed_by_collectives_s = c.comm_slowdown_s;
  if (r.stages.size() > 1) add_stages(s, r, st);

  rep.throughput = {static_cast<double>(w.global_batch) / step,
                    tokens / step,
                    tokens / step / devices,
                    in_tflops(s.plan.model_flops),
                    s.plan.model_flops.base() / (step * devices * peak),
                    s.plan.hardware_flops.base() / (step * devices * peak),
                    peak / 1e12};
  const auto& m = peak_stage(s.memory);
  const Bytes cap = s.hw.hbm_per_core();
  MemoryFigures& mem = rep.memory;
  mem.stage = m.stage;
  mem.weights = in_gib(m.weights);
  mem.gradients = in_gib(m.gradients);
  mem.optimizer_states = in_gib(m.optimizer_states);
  mem.master_weights = in_gib(m.master_weights);
  mem.activations = in_gib(m.activations);
  mem.activation_micro_batches_in_flight = m.in_flight;
  mem.temporary = in_gib(m.temporary);
  mem.total = in_gib(m.total());
  mem.usable_capacity = in_gib(cap);
  mem.headroom = in_gib(cap - m.total());
  if (m.low_precision_weights.base() > 0) mem.low_precision_weight_copies = in_gib(m.low_precision_weights);
  if (m.allocator_reserve.base() > 0) {
    mem.allocator_reserve = in_gib(m.allocator_reserve);
    mem.allocator_fragmentation = w.allocator_fragmentation;
  }
  for (PricePlan plan : {PricePlan::OnDemand, PricePlan::Reserved}) {
    PlanCost& pc = rep.cost[plan == PricePlan::OnDemand ? 0 : 1];
    pc.plan = plan;
    pc.usd_per_node_hour = price_per_node_hour(s.hw, plan);
    pc.usd_per_cluster_hour = pc.usd_per_node_hour * static_cast<double>(w.nodes);
    pc.usd_per_step = pc.usd_per_cluster_hour * step / 3600.0;
    pc.usd_per_million_tokens = pc.usd_per_step / tokens * 1e6;
    if (pc.usd_per_step > 0) pc.tokens_per_usd = tokens / pc.usd_per_step;  // a free plan has none
  }
  rep.selected_plan = w.price_plan;
  rep.simulator = {r.ops_simulated, r.op_lookups, r.micro_batches_simulated, s.plan.micro_batches};
  return rep;
}

nlohmann::json to_json(const StepReport& rep) {
  const WorkloadEcho& e = rep.workload;
  const Workload& w = e.workload;
  nlohmann::json j;
  // The settings the field table marks for the report (workload_fields.cpp), then what the run
  // derived from them and from the hardware.
  j["workload"] = nlohmann::json::object();
  for (const WorkloadField& f : workload_fields())
    if (f.report_when && f.report_when(w)) j["workload"][nlohmann::json::json_pointer("/" + f.report_key)] = f.get(w);
  auto& jw = j["workload"];
  jw["file"] = w.file;
  jw["devices"] = e.devices;
  jw["grad_accum"] = e.grad_accum;
  jw["loss_kernel"] = e.loss_kernel;
  jw["model_parameters"] = e.model_parameters;
  if (e.attention_kernel_tflops) jw["attention_kernel_TFLOPS"] = *e.attention_kernel_tflops;
  if (e.attention_softmax_overlapped) jw["attention_softmax_overlapped"] = true;
  if (e.op_selective_unsaved_format) jw["op_selective_unsaved_format"] = *e.op_selective_unsaved_format;
  // The stack profile and the fields it supplied (the rest are the workload's own).
  if (!w.stack.empty()) jw["stack"] = {{"name", w.stack}, {"from_profile", w.stack_fields}};
  if (e.lnc) jw["lnc"] = *e.lnc;
  jw["execution"] = e.execution;
  if (e.lora)
    jw["lora"] = {{"rank", e.lora->rank}, {"targets", e.lora->targets}, {"trainable_parameters_per_core", e.lora->trainable_parameters_per_core}};
  if (!rep.notes.empty()) j["notes"] = rep.notes;

  const StepFigures& st = rep.step;
  nlohmann::json breakdown = nlohmann::json::object();
  for (const BreakdownPart& p : st.breakdown) breakdown[p.key] = p.s;
  j["step"] = {{"step_time_s", st.step_time_s},
               {"critical_stage", st.critical_stage},
               {"breakdown_s", breakdown},
               {"compute_by_engine_s", seconds_object(st.by_engine, "_s")},
               {"compute_by_part_s", seconds_object(st.by_part, "_s")},
               {"engine_busy_s", seconds_object(st.engine_busy, "")},
               {"dp_comm_total_s", st.dp_comm_total_s},
               {"compute_slowed_by_collectives_s", st.compute_slowed_by_collectives_s}};
  if (!st.stages.empty()) {
    nlohmann::json stages = nlohmann::json::array();
    for (const StageRow& g : st.stages)
      stages.push_back({{"stage", g.stage},
                        {"layers", g.layers()},
                        {"layers_per_chunk", g.layers_per_chunk},
                        {"embedding", g.embedding},
                        {"loss", g.loss},
                        {"busy_s", g.busy_s},
                        {"waiting_s", g.waiting_s},
                        {"compute_s", g.compute_s},
                        {"finish_s", g.finish_s},
                        {"memory_gib", g.memory_gib}});
    j["step"]["stages"] = stages;
  }
  if (st.balance)
    j["step"]["stage_balance"] = {{"busiest_stage", st.balance->busiest_stage},
                                  {"busiest_busy_s", st.balance->busiest_busy_s},
                                  {"mean_busy_s", st.balance->mean_busy_s},
                                  {"imbalance", st.balance->imbalance}};
  const ThroughputFigures& t = rep.throughput;
  j["throughput"] = {{"sequences_per_s", t.sequences_per_s},
                     {"tokens_per_s", t.tokens_per_s},
                     {"tokens_per_s_per_core", t.tokens_per_s_per_core},
                     {"model_tflops_per_step", t.model_tflops_per_step},
                     {"mfu", t.mfu},
                     {"hfu", t.hfu},
                     {"peak_tflops_per_core", t.peak_tflops_per_core}};
  const MemoryFigures& m = rep.memory;
  j["memory_per_core_gib"] = {{"stage", m.stage},
                              {"weights", m.weights},
                              {"gradients", m.gradients},
                              {"optimizer_states", m.optimizer_states},
                              {"master_weights", m.master_weights},
                              {"activations", m.activations},
                              {"activation_micro_batches_in_flight", m.activation_micro_batches_in_flight},
                              {"temporary", m.temporary},
                              {"total", m.total},
                              {"usable_capacity", m.usable_capacity},
                              {"headroom", m.headroom}};
  if (m.low_precision_weight_copies) j["memory_per_core_gib"]["low_precision_weight_copies"] = *m.low_precision_weight_copies;
  if (m.allocator_reserve) {
    j["memory_per_core_gib"]["allocator_reserve"] = *m.allocator_reserve;
    j["memory_per_core_gib"]["allocator_fragmentation"] = *m.allocator_fragmentation;
  }
  nlohmann::json cost;
  for (const PlanCost& pc : rep.cost)
    cost[to_string(pc.plan)] = {{"usd_per_node_hour", pc.usd_per_node_hour},
                                {"usd_per_cluster_hour", pc.usd_per_cluster_hour},
                                {"usd_per_step", pc.usd_per_step},
                                {"usd_per_million_tokens", pc.usd_per_million_tokens},
                                // A free plan (price 0) has no tokens-per-dollar figure: null, not infinity.
                                {"tokens_per_usd", pc.tokens_per_usd ? nlohmann::json(*pc.tokens_per_usd) : nlohmann::json()}};
  cost["selected_plan"] = to_string(rep.selected_plan);
  j["cost"] = cost;
  j["simulator"] = {{"ops_simulated", rep.simulator.ops_simulated},
                    {"op_lookups", rep.simulator.op_lookups},
                    {"micro_batches_simulated", rep.simulator.micro_batches_simulated},
                    {"micro_batches_per_step", rep.simulator.micro_batches_per_step}};
  if (rep.interval) j["interval"] = to_json(*rep.interval);
  if (rep.scaling) {
    const ScalingFigures& sc = *rep.scaling;
    if (!sc.efficiency) {
      j["scaling"] = {{"unavailable", sc.unavailable}};
    } else {
      const auto& b = sc.baseline;
      j["scaling"] = {{"efficiency", *sc.efficiency},
                      {"basis", "weak scaling: per-core throughput against the same replica and per-replica batch "
                                "with data parallelism shrunk to the fewest whole nodes"},
                      {"baseline",
                       {{"dp", b.dp},
                        {"nodes", b.nodes},
                        {"devices", b.devices},
                        {"global_batch", b.global_batch},
                        {"step_time_s", b.step_time_s},
                        {"tokens_per_s_per_core", b.tokens_per_s_per_core},
                        {"fits_in_memory", b.fits_in_memory}}}};
    }
  }
  if (rep.split_advice) {
    const SplitAdvice& a = *rep.split_advice;
    j["pipeline_split_advice"] = {{"layers_per_stage", a.layers_per_stage}, {"step_time_s", a.step_time_s},
                                  {"change_pct", a.change_pct},             {"imbalance", a.imbalance},
                                  {"memory_per_core_gib", a.memory_per_core_gib}, {"set", a.set}};
  }
  if (rep.sensitivity) j["sensitivity"] = sensitivity_json(*rep.sensitivity);
  if (rep.versus) j["versus"] = versus_json(*rep.versus);
  return j;
}

nlohmann::json to_json(const IntervalFigures& iv) {
  return {{"confidence", 0.9},
          {"basis", iv.basis},
          {"extrapolated", iv.extrapolated},
          {"residual_rows", iv.residual_rows},
          {"parameter_sigma_log", iv.parameter_sigma_log},
          {"parameter_sigma_is_upper_bound", iv.parameter_sigma_is_upper_bound},
          {"step_time_s", iv.step_time_s},
          {"tokens_per_s", iv.tokens_per_s}};
}

nlohmann::json make_report(const Scenario& s, const StepResult& r) { return to_json(build_report(s, r)); }

// One line for the weak-scaling efficiency (scaling.hpp), or why there is none.
static std::string scaling_line(const ScalingFigures& sc) {
  if (!sc.efficiency) return fmt::format("scaling efficiency   n/a: {}\n", sc.unavailable);
  const auto& b = sc.baseline;
  return fmt::format("scaling efficiency   {:5.1f} %   (per-core throughput vs {} node(s) at DP {}: {:.1f} tokens/s/core{}; "
                     "same replica and per-replica batch)\n",
                     100 * *sc.efficiency, b.nodes, b.dp, b.tokens_per_s_per_core,
                     b.fits_in_memory ? "" : ", a baseline that would not fit in memory, timed anyway");
}

// The pipeline ranks' busy and waiting time, layers and memory (add_stages): every stage up to
// 16, beyond that the first, the last and the three busiest (the JSON lists every one).
static std::string stages_text(const StepFigures& st) {
  const auto& stages = st.stages;
  const StageBalance& bal = *st.balance;
  const size_t n = stages.size();
  std::vector<size_t> shown_stages;
  if (n <= 16) {
    for (size_t i = 0; i < n; ++i) shown_stages.push_back(i);
  } else {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return stages[a].busy_s > stages[b].busy_s; });
    shown_stages = {0, n - 1, order[0], order[1], order[2]};
    std::sort(shown_stages.begin(), shown_stages.end());
    shown_stages.erase(std::unique(shown_stages.begin(), shown_stages.end()), shown_stages.end());
  }
  std::string o = fmt::format(
      "  pipeline stages: busiest {} ({:.4f} s busy; imbalance {:.3f} = busiest / mean busy {:.4f} s){}\n"
      "    stage  layers (E embedding, L loss, | chunk)     busy s   waiting s   memory GiB\n",
      bal.busiest_stage, bal.busiest_busy_s, bal.imbalance, bal.mean_busy_s,
      n > shown_stages.size() ? fmt::format("; {} of {} stages shown, --format json lists all", shown_stages.size(), n) : "");
  for (size_t i : shown_stages) {
    const StageRow& g = stages[i];
    const std::string layers = (g.embedding ? "E " : "") + fmt::format("{}", fmt::join(g.layers_per_chunk, "|")) + (g.loss ? " L" : "");
    o += fmt::format("    {:5}  {:<36}{:10.4f}{:12.4f}{:13.2f}\n", g.stage, layers, g.busy_s, g.waiting_s, g.memory_gib);
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
      {"host_wait", "host (exposed)"},
      {"slowest_node", "slowest node (sync)"}};
  return labels;
}

std::string render_text(const StepReport& rep) {
  const WorkloadEcho& e = rep.workload;
  const Workload& w = e.workload;
  const StepFigures& st = rep.step;
  const ThroughputFigures& t = rep.throughput;
  const MemoryFigures& m = rep.memory;
  std::string o;
  o += fmt::format("trnsim report: {} ({} on {} x {}, {} cores{})\n", w.name, w.model, w.nodes, w.hw, e.devices,
                   e.lnc ? fmt::format(" of LNC {}", *e.lnc) : std::string());
  std::string expert = shown_degrees(w);  // the MoE and CP degrees where used
  if (workload_reports(w, "moe_dispatcher"))
    expert += fmt::format(" ({} dispatcher{})", workload_report_field("moe_dispatcher").get(w).get<std::string>(),
                          workload_reports(w, "ep_overlap") && w.ep_overlap ? ", all-to-alls hidden in 1F1B's steady state" : "");
  o += fmt::format("  plan: TP {} PP {} DP {}{} SP {} ZeRO-{} {} | micro-batch {} x grad-accum {} = global {} seqs of {} tokens\n",
                   w.tp, w.pp, w.dp, expert, w.sequence_parallel ? "on" : "off", w.zero, to_string(w.schedule), w.micro_batch,
                   e.grad_accum, w.global_batch, w.seq_len);
  // Optimizer numerics that differ from the precision's defaults, in parentheses after it.
  std::string precision = to_string(w.precision), kept;
  if (workload_reports(w, "master_weights")) kept = *w.master_weights ? "FP32 master" : "no FP32 master";
  if (workload_reports(w, "optimizer_state_dtype")) kept += std::string(kept.empty() ? "" : ", ") + "BF16 AdamW moments";
  if (w.has_bf16_layers()) {
    const int64_t first = w.bf16_first_layers, last = w.bf16_last_layers;
    kept = (first > 0 ? fmt::format("first {}", first) : "") + (first > 0 && last > 0 ? " and " : "") +
           (last > 0 ? fmt::format("last {}", last) : "") + " blocks BF16" + (kept.empty() ? "" : ", ") + kept;
  }
  if (!kept.empty()) precision += " (" + kept + ")";
  o += fmt::format("  precision {} | checkpointing {} | fused qkv {} gate-up {} elementwise {} loss {} | attention {} | virtual stages {} | "
                   "execution {}\n",
                   precision,
                   to_string(w.checkpointing) +
                       (workload_reports(w, "checkpoint_every") ? fmt::format(" (every {} layers)", w.checkpoint_every) : "") +
                       (workload_reports(w, "checkpoint_layers") ? fmt::format(" (first {} layers of each chunk)", w.checkpoint_layers) : "") +
                       (e.op_selective_unsaved_format
                            ? fmt::format(" ({} linears recomputed: not in the policy's save list)", *e.op_selective_unsaved_format)
                            : ""),
                   w.fused_qkv, w.fused_gate_up, w.fused_elementwise, e.loss_kernel,
                   to_string(w.attention) +
                       (workload_reports(w, "attention_kernel") ? fmt::format(" ({})", to_string(w.attention_kernel)) : "") +
                       (e.attention_kernel_tflops ? fmt::format(" at {:.0f} TFLOPS (published kernel rate)", *e.attention_kernel_tflops)
                                                  : "") +
                       (e.attention_softmax_overlapped ? " (softmax beside its GEMMs)" : ""),
                   fmt::format("{}{}", w.virtual_stages, workload_reports(w, "pp_overlap") && w.pp_overlap ? " (p2p overlapped with compute)" : ""),
                   e.execution);
  if (workload_reports(w, "document_tokens"))
    o += fmt::format("  packed documents of {} tokens: attention runs within each document\n", w.document_tokens);
  if (e.lora)
    o += fmt::format("  LoRA rank {} on {} (base frozen; at most {:.2f} M trainable parameters per core)\n", e.lora->rank,
                     fmt::join(e.lora->targets, ", "), static_cast<double>(e.lora->trainable_parameters_per_core) / 1e6);
  if (workload_reports(w, "pipeline_layout"))
    o += fmt::format("  pipeline layout {} (E embedding, t decoder layer, m MTP, L loss, | chunk)\n", w.pipeline_layout);
  if (!w.stack.empty())
    o += fmt::format("  stack {} (stacks/{}.json){}{}\n", w.stack, w.stack,
                     w.stack_fields.empty() ? " | every field set by the workload" : " | from the profile: ", fmt::join(w.stack_fields, ", "));
  o += fmt::format("\nstep time            {:10.4f} s   (critical stage {})\n", st.step_time_s, st.critical_stage);
  if (rep.interval)
    o += fmt::format("  90% interval       {:.4f} - {:.4f} s   ({}; {} residuals; fitted parameters +-{:.1f} % at 1 s.d.)\n",
                     rep.interval->step_time_s[0], rep.interval->step_time_s[1], rep.interval->basis, rep.interval->residual_rows,
                     100 * std::expm1(rep.interval->parameter_sigma_log));
  for (const BreakdownPart& p : st.breakdown)
    o += fmt::format("  {:<19}{:10.4f} s   {:5.1f} %\n", p.label, p.s, 100.0 * p.s / st.step_time_s);
  // Compute and recompute sum each op's time on its engine; where a core's engines run ops side by
  // side (a NeuronCore's tensor, vector and scalar engines) those overlap, and the parts can add up
  // to more than the step.
  double parts_sum = 0;
  for (const BreakdownPart& p : st.breakdown) parts_sum += p.s;
  if (parts_sum > 1.001 * st.step_time_s)
    o += fmt::format("  (these add up to {:.1f} % of the step: compute and recompute count each engine's op time, "
                     "and this core's engines run ops side by side)\n",
                     100.0 * parts_sum / st.step_time_s);
  o += "  ops by bounding engine: ";
  for (const auto& [name, s] : by_name(st.by_engine)) o += fmt::format("{} {:.4f} s  ", name, s);
  {  // largest first; parts the model does not have are left out
    std::vector<std::pair<double, std::string>> parts;
    double total = 0;
    for (const auto& [name, v] : by_name(st.by_part)) {
      total += v;
      if (v > 0) parts.push_back({v, name});
    }
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    o += "\n  compute by model part (incl. recompute, optimizer): ";
    for (const auto& [v, name] : parts) o += fmt::format("{} {:.4f} s ({:.1f} %)  ", name, v, total > 0 ? 100 * v / total : 0.0);
  }
  o += "\n  engine busy (TLM queues, overlapping): ";
  for (const auto& [name, s] : by_name(st.engine_busy)) o += fmt::format("{} {:.4f} s  ", name == "scalar" ? "scalar/activation" : name, s);
  o += fmt::format("\n  DP comm total (incl. hidden) {:.4f} s\n", st.dp_comm_total_s);
  if (st.compute_slowed_by_collectives_s > 0)
    o += fmt::format("  GEMMs slowed by collectives on their SMs +{:.4f} s (part of compute)\n", st.compute_slowed_by_collectives_s);
  if (!st.stages.empty()) o += stages_text(st);
  if (rep.split_advice) {
    const SplitAdvice& a = *rep.split_advice;
    o += fmt::format("  a split that evens the stages out (simulated): layers per stage [{}]: step {:.4f} s ({:+.1f} %), "
                     "busiest / mean busy {:.3f}, memory {:.2f} GiB per core; run it with --set \"{}\"\n",
                     fmt::join(a.layers_per_stage, ", "), a.step_time_s, a.change_pct, a.imbalance, a.memory_per_core_gib, a.set);
  }
  if (rep.sensitivity) o += sensitivity_text(*rep.sensitivity);
  o += fmt::format("\nthroughput           {:10.2f} seq/s   {:12.0f} tokens/s   {:8.1f} tokens/s/core\n", t.sequences_per_s,
                   t.tokens_per_s, t.tokens_per_s_per_core);
  o += fmt::format("utilisation          MFU {:5.1f} %   HFU {:5.1f} %   (peak {:.1f} TFLOP/s per core)\n", 100 * t.mfu, 100 * t.hfu,
                   t.peak_tflops_per_core);
  if (rep.scaling) o += scaling_line(*rep.scaling);
  o += fmt::format(
      "\nmemory per core      {:6.2f} GiB of {:.2f} GiB usable (headroom {:.2f} GiB), stage {}\n"
      "  weights {:.2f} | grads {:.2f} | optimizer {:.2f} | master {:.2f} | activations {:.2f} ({} micro-batch) | temp {:.2f} GiB\n",
      m.total, m.usable_capacity, m.headroom, m.stage, m.weights, m.gradients, m.optimizer_states, m.master_weights, m.activations,
      m.activation_micro_batches_in_flight, m.temporary);
  if (m.low_precision_weight_copies)
    o += fmt::format("  low-precision weight copies {:.2f} GiB{}\n", *m.low_precision_weight_copies,
                     workload_reports(w, "fp8_param_gather") && w.fp8_param_gather
                         ? " (the only copy of the linear weights: fp8_param_gather, no BF16 one)"
                         : "");
  if (m.allocator_reserve)
    o += fmt::format("  allocator reserve {:.2f} GiB (declared fragmentation {:.1f} % of the live peak)\n", *m.allocator_reserve,
                     100 * *m.allocator_fragmentation);
  // Sharded state that reduces once per step holds every gradient unsharded: say why grads are big.
  if (w.zero == 3 && !w.reduce_every_micro_batch)
    o += "  grads are unsharded: ZeRO-3 reducing once per step (no gradient sync until the last micro-batch)\n";
  o += "\ncost                 plan        $/node-h   $/cluster-h   $/M tokens   tokens/$\n";
  for (const PlanCost& c : rep.cost)
    o += fmt::format("                     {:<10}{:10.3f}{:14.2f}{:13.4f}{:>12}{}\n", to_string(c.plan), c.usd_per_node_hour,
                     c.usd_per_cluster_hour, c.usd_per_million_tokens, tokens_per_usd_text(c),
                     rep.selected_plan == c.plan ? "  (selected)" : "");
  if (rep.versus) o += versus_text(*rep.versus, rep.interval);
  o += fmt::format("\nsimulator: {} distinct ops simulated, {} op lookups\n", rep.simulator.ops_simulated, rep.simulator.op_lookups);
  for (const std::string& n : rep.notes) o += "note: " + n + "\n";
  return o;
}

std::string render_markdown(const StepReport& rep) {
  const WorkloadEcho& e = rep.workload;
  const Workload& w = e.workload;
  const StepFigures& st = rep.step;
  const ThroughputFigures& t = rep.throughput;
  const MemoryFigures& m = rep.memory;
  std::string o = fmt::format("## {}\n\n{} on {} x {} ({} cores): TP {} / PP {} / DP {}, SP {}, ZeRO-{}, {} checkpointing, {}\n\n",
                              w.name, w.model, w.nodes, w.hw, e.devices, w.tp, w.pp, w.dp, w.sequence_parallel ? "on" : "off", w.zero,
                              to_string(w.checkpointing), to_string(w.precision));
  o += "| metric | value |\n|---|---|\n";
  o += fmt::format("| step time (s) | {:.4f} |\n", st.step_time_s);
  std::vector<BreakdownPart> parts = st.breakdown;  // by key, as the JSON lists them
  std::sort(parts.begin(), parts.end(), [](const BreakdownPart& a, const BreakdownPart& b) { return std::string(a.key) < b.key; });
  for (const BreakdownPart& p : parts) o += fmt::format("| {} (s) | {:.4f} |\n", p.key, p.s);
  for (const auto& [name, s] : by_name(st.by_part))  // the model's parts; those it lacks are left out
    if (s > 0) o += fmt::format("| compute: {} (s) | {:.4f} |\n", name, s);
  o += fmt::format("| throughput (seq/s) | {:.2f} |\n| throughput (tokens/s) | {:.0f} |\n| tokens/s per core | {:.1f} |\n",
                   t.sequences_per_s, t.tokens_per_s, t.tokens_per_s_per_core);
  o += fmt::format("| MFU (%) | {:.1f} |\n| HFU (%) | {:.1f} |\n", 100 * t.mfu, 100 * t.hfu);
  if (rep.scaling && rep.scaling->efficiency)
    o += fmt::format("| scaling efficiency vs {} node(s), DP {} (%) | {:.1f} |\n", rep.scaling->baseline.nodes, rep.scaling->baseline.dp,
                     100 * *rep.scaling->efficiency);
  if (rep.split_advice)
    o += fmt::format("| a split that evens the stages out: layers per stage, step (s) | {}, {:.4f} ({:+.1f} %) |\n",
                     nlohmann::json(rep.split_advice->layers_per_stage).dump(), rep.split_advice->step_time_s, rep.split_advice->change_pct);
  if (st.balance)
    o += fmt::format("| busiest pipeline stage (busy s; busiest / mean busy) | {} ({:.4f}; {:.3f}) |\n", st.balance->busiest_stage,
                     st.balance->busiest_busy_s, st.balance->imbalance);
  if (rep.sensitivity)
    for (const auto& row : rep.sensitivity->resources)
      if (row.elasticity)
        o += fmt::format("| elasticity of the step to {} ({:.0f} % better: step s) | {:.3f} ({:.4f}) |\n", row.resource,
                         100 * (rep.sensitivity->factor - 1), *row.elasticity, *row.step_time_s);
  o += fmt::format("| memory per core (GiB) | {:.2f} of {:.2f} |\n", m.total, m.usable_capacity);
  for (const PlanCost& c : rep.cost)
    o += fmt::format("| cost, {} ($ per M tokens) | {:.4f} |\n| tokens per $, {} | {} |\n", to_string(c.plan), c.usd_per_million_tokens,
                     to_string(c.plan), tokens_per_usd_text(c));
  if (rep.versus) o += versus_markdown(*rep.versus);
  return o;
}

std::string render(const StepReport& report, const std::string& format) {
  if (format == "json") return to_json(report).dump(2) + "\n";
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
