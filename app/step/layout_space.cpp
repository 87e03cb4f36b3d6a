// layout_space.cpp — see layout_space.hpp.
#include "layout_space.hpp"

#include "layout_rules.hpp"
#include "workload_fields.hpp"
#include "trnsim/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>


namespace trnsim {
namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

Precision precision_of(uint8_t prec, const HwSpec& hw) {
  switch (prec) {
    case 1: return Precision::FP8;
    case 2: return Precision::MXFP8;
    case 3: return Precision::NVFP4;
    default: return hw.stochastic_rounding ? Precision::BF16_SR : Precision::MixedBF16;
  }
}

bool allowed(const AxisLimits& axes, const std::string& axis, int64_t value) {
  auto it = axes.find(axis);
  return it == axes.end() || std::find(it->second.begin(), it->second.end(), value) != it->second.end();
}

}  // namespace

const std::vector<std::string>& axis_names() {
  static const std::vector<std::string> names = {"tp", "pp", "vs", "mb", "recompute", "zero", "sp",
                                                 "tp_overlap", "dp_overlap", "fused", "attention", "precision",
                                                 "ep", "etp", "cp", "ep_overlap"};
  return names;
}

AxisLimits parse_axes(const std::string& text) {
  AxisLimits out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string axis = item.substr(0, eq);
    if (eq == std::string::npos || std::find(axis_names().begin(), axis_names().end(), axis) == axis_names().end())
      throw UsageError(fmt::format("trnsim search: --axes \"{}\": expected AXIS=V1,V2 with AXIS one of: {}", item,
                                   fmt::join(axis_names(), ", ")));
    std::stringstream vs(item.substr(eq + 1));
    std::string v;
    auto& values = out[axis];
    while (std::getline(vs, v, ',')) {
      int64_t x = 0;
      static const std::vector<std::string> precisions = {"bf16", "fp8", "mxfp8", "nvfp4"};
      const auto pr = std::find(precisions.begin(), precisions.end(), v);
      if (axis == "precision") {
        if (pr == precisions.end())
          throw UsageError(fmt::format("trnsim search: --axes precision: \"{}\" is not a precision (bf16, fp8, mxfp8, nvfp4)", v));
        values.push_back(pr - precisions.begin());
        continue;
      }
      if (v == "on" || v == "true" || v == "flash" || v == "selective") x = 1;
      else if (v == "off" || v == "false" || v == "unfused" || v == "none") x = 0;
      else if (v == "full") x = 2;
      else if (v == "op_selective") x = 3;
      else {
        try {
          size_t used = 0;
          x = std::stoll(v, &used);
          if (used != v.size() || x < 0) throw std::invalid_argument(v);
        } catch (const std::exception&) {
          throw UsageError(fmt::format("trnsim search: --axes {}: \"{}\" is not a value (numbers, on/off, "
                                       "none/selective/full/op_selective, unfused/flash)", axis, v));
        }
      }
      // On / off axes take 0 / 1 (on, off, true, false; attention: unfused, flash); recompute 0-3.
      static const std::vector<std::string> switches = {"sp", "tp_overlap", "dp_overlap", "fused", "attention", "ep_overlap"};
      const bool is_switch = std::find(switches.begin(), switches.end(), axis) != switches.end();
      static const std::vector<std::string> degrees = {"tp", "pp", "vs", "mb", "ep", "etp", "cp"};
      const bool is_degree = std::find(degrees.begin(), degrees.end(), axis) != degrees.end();
      if (is_degree && (x < 1 || x > (int64_t{1} << 20)))
        throw UsageError(fmt::format("trnsim search: --axes {}: \"{}\" is out of range; a degree is a whole number from 1 to 1048576", axis, v));
      if (axis == "zero" && x > 3)
        throw UsageError(fmt::format("trnsim search: --axes zero: \"{}\" is out of range; ZeRO stages are 0, 1, 2 and 3", v));
      if ((is_switch && x > 1) || (axis == "recompute" && x > 3))
        throw UsageError(fmt::format("trnsim search: --axes {}: \"{}\" is out of range ({})", axis, v,
                                     axis == "recompute" ? "none, selective, full, op_selective"
                                     : axis == "attention" ? "unfused, flash"
                                                           : "on, off"));
      values.push_back(x);
    }
    if (values.empty()) throw UsageError(fmt::format("trnsim search: --axes {}: give at least one value", axis));
  }
  return out;
}

void use_stack(SpaceSpec& spec, const std::string& name, const StackLookup& stacks) {
  Workload base;
  base.name = "stack-template";
  base.file = "--stack " + name;
  base.model = "m", base.hw = "h";
  base.tp = 2, base.dp = 2, base.global_batch = 2, base.seq_len = 2;
  // FP8 and per-op AC, as the profile check's skeleton (stack_profile.cpp): the profile's defaults
  // that apply only under them (fp8_recipe, op_selective_saved_formats) reach the template too.
  base.precision = Precision::FP8;
  base.checkpointing = Checkpointing::OpSelective;
  spec.stack = name;
  const StackProfile profile = load_stack_profile(stacks(name));
  spec.stack_template = with_stack(base, profile);
  const auto g = profile.defaults.find("fp8_param_gather");  // a boolean: the profile loader checked it
  spec.stack_fp8_param_gather = g != profile.defaults.end() && g->is_boolean() && g->get<bool>();
  const auto e = profile.defaults.find("parallel");
  spec.stack_ep_overlap = e != profile.defaults.end() && e->is_object() && e->value("ep_overlap", false);
  spec.stack_recompute.clear();
  for (const auto& policy : profile.checkpointing_policies)
    for (int ck = 0; ck < 4; ++ck)  // the recompute axis's values are Checkpointing's
      if (policy == to_string(static_cast<Checkpointing>(ck))) spec.stack_recompute.push_back(ck);
  spec.stack_axes.clear();
  const std::pair<const char*, const char*> axis_of[] = {{"attention", "attention"},    {"fused/qkv", "fused"},
                                                         {"parallel/sequence_parallel", "sp"},
                                                         {"parallel/tp_overlap", "tp_overlap"},
                                                         {"parallel/overlap_dp", "dp_overlap"}, {"parallel/zero", "zero"}};
  spec.stack_grad_reduce.clear();
  for (const auto& f : spec.stack_template.stack_fields) {
    for (const auto& [path, axis] : axis_of)
      if (f.rfind(std::string(path) + " = ", 0) == 0 && !spec.axes.count(axis)) spec.stack_axes.push_back(axis);
    const std::string gr = "parallel/grad_reduce = ";
    if (f.rfind(gr, 0) == 0) spec.stack_grad_reduce = f.substr(gr.size());
  }
}

std::vector<Layout> enumerate_space(const SpaceSpec& spec, const ModelSpec& m, const std::vector<HwSpec>& hws) {
  std::vector<Layout> out;
  const auto& ax = spec.axes;
  const Workload& st = spec.stack_template;
  // A value the stack fixes: only its own (as the loader applies it to these degrees).
  auto fixed = [&](const char* axis, int64_t value, int64_t stack_value) {
    return std::find(spec.stack_axes.begin(), spec.stack_axes.end(), axis) == spec.stack_axes.end() ||
           value == stack_value;
  };
  for (size_t h = 0; h < hws.size(); ++h) {
    const int64_t cpn = hws[h].cores_per_node();
    std::vector<uint8_t> precs;  // the precisions asked for (bf16 alone by default) that this hardware has
    for (uint8_t pr = 0; pr < 4; ++pr)
      if ((ax.count("precision") ? allowed(ax, "precision", pr) : pr == 0) &&
          hws[h].tensor.supports(linear_dtype(precision_of(pr, hws[h]))))
        precs.push_back(pr);
    for (int64_t nodes : spec.nodes) {
      const int64_t devices = nodes * cpn;
      for (int64_t tp : divisors(m.heads)) {
        if (!allowed(ax, "tp", tp) || !tp_problem(m, tp).empty()) continue;
        if (tp > devices || (tp <= cpn ? cpn % tp : tp % cpn)) continue;  // within a node, or whole nodes
        // Pipeline degrees: the divisors of the layers, and any other degree --axes lists (up to
        // the layer count), whose layers split as evenly as possible (the balanced split, which
        // Megatron-Core expresses as a pipeline layout, torchtitan and NxD by their own split).
        std::vector<int64_t> pps = divisors(m.layers);
        if (const auto listed = ax.find("pp"); listed != ax.end())
          for (int64_t p : listed->second)
            if (p <= m.layers && m.layers % p != 0) pps.push_back(p);
        std::sort(pps.begin(), pps.end());
        for (int64_t pp : pps) {
          if (!allowed(ax, "pp", pp) || devices % (tp * pp)) continue;
          // Context parallelism only when asked for (--axes cp=...); expert parallelism over every
          // divisor of the experts that divides tp x cp x dp for MoE models (1 for dense ones). EP
          // beside CP > 1 only when --axes lists ep degrees: every EP degree at every CP degree
          // multiplies a MoE space several times over (DeepSeek-V3's benchmark space: 11 M layouts,
          // 1.4 GiB; with it > 3 GiB), and long-context MoE runs are the exception.
          std::vector<int64_t> cps = {1};
          if (ax.count("cp")) cps = divisors(devices / (tp * pp));
          for (int64_t cp : cps) {
          if (!allowed(ax, "cp", cp) || (devices / (tp * pp)) % cp || spec.seq_len % (2 * cp)) continue;
          if (cp > 1 && spec.document_tokens > 0) continue;  // packed documents: no context parallelism
          const int64_t dp = devices / (tp * pp * cp);
          if (spec.global_batch % dp) continue;
          std::vector<int64_t> eps = {1};
          if (m.moe.active() && (cp == 1 || ax.count("ep"))) eps = divisors(m.moe.experts);
          for (int64_t ep : eps) {
          if (!allowed(ax, "ep", ep) || (tp * cp * dp) % ep) continue;
          // Expert TP only when asked for (--axes etp=...): divisors of the expert FFN whose expert
          // grid (etp x ep) fits the TP x CP x DP ranks.
          std::vector<int64_t> etps = {1};
          if (ax.count("etp") && m.moe.active()) etps = divisors(m.moe.expert_ffn);
          for (int64_t etp : etps) {
          if (!allowed(ax, "etp", etp) || etp > 1024 || (tp * cp * dp) % (ep * etp)) continue;
          // Expert all-to-all overlap (needs ep > 1 and 1F1B): both settings when --axes lists it,
          // else the profile's.
          const bool epo_applies = ep_overlap_applies(ep, st.schedule);
          std::vector<int> epos = {epo_applies && spec.stack_ep_overlap ? 1 : 0};
          if (ax.count("ep_overlap")) epos = epo_applies ? std::vector<int>{0, 1} : std::vector<int>{0};
          for (int epo : epos) {
          if (!allowed(ax, "ep_overlap", epo)) continue;
          // Virtual stages: divisors of the layers per stage; for an uneven degree, those --axes
          // lists (1 if it lists none) that leave every chunk a layer.
          std::vector<int64_t> vss = divisors(m.layers / pp);
          if (m.layers % pp != 0) {
            const auto listed = ax.find("vs");
            vss = listed == ax.end() ? std::vector<int64_t>{1} : listed->second;
          }
          for (int64_t vs : vss) {
            if (!allowed(ax, "vs", vs) || (vs > 1 && pp < 2) || pp * vs > m.layers) continue;
            for (int64_t mb : divisors(spec.global_batch / dp)) {
              const int64_t micro_batches = spec.global_batch / dp / mb;
              if (!allowed(ax, "mb", mb) || (vs > 1 && micro_batches % pp)) continue;
              if (tp > 1 && (mb * spec.seq_len) % tp) continue;  // sequence parallelism splits tokens
              for (int ck = 0; ck < 4; ++ck) {  // --axes's policies, else the stack's, else none / selective / full
                if (!allowed(ax, "recompute", ck)) continue;
                if (!ax.count("recompute") &&
                    (spec.stack_recompute.empty() ? ck == 3
                                                  : std::find(spec.stack_recompute.begin(), spec.stack_recompute.end(), ck) ==
                                                        spec.stack_recompute.end()))
                  continue;
                for (int z = 0; z <= 3; ++z) {
                  if (!allowed(ax, "zero", z) || (z > 0 && dp == 1) || !fixed("zero", z, dp > 1 ? st.zero : 0)) continue;
                  for (int sp = 0; sp <= (tp > 1 ? 1 : 0); ++sp) {
                    if (!allowed(ax, "sp", sp) || !fixed("sp", sp, tp > 1 && st.sequence_parallel)) continue;
                    if (m.moe.active() && tp > 1 && !sp) continue;  // MoE layers route SP's token shards (step_graph)
                    for (int tpo = 0; tpo <= (tp > 1 ? 1 : 0); ++tpo) {
                      if (!allowed(ax, "tp_overlap", tpo) || !fixed("tp_overlap", tpo, tp > 1 && st.tp_overlap)) continue;
                      for (int dpo = (dp > 1 ? 0 : 1); dpo <= 1; ++dpo) {
                        if (!allowed(ax, "dp_overlap", dpo) || !fixed("dp_overlap", dpo, dp == 1 || st.overlap_dp)) continue;
                        for (int fused = 0; fused <= 1; ++fused) {
                          if (!allowed(ax, "fused", fused) || !fixed("fused", fused, st.fused_qkv)) continue;
                          for (int flash = 0; flash <= 1; ++flash) {
                            if (!allowed(ax, "attention", flash) || (cp > 1 && !flash) ||
                                !fixed("attention", flash, st.attention == Attention::Flash))
                              continue;
                            Layout l;
                            l.hw = static_cast<uint16_t>(h);
                            l.nodes = static_cast<int32_t>(nodes);
                            l.tp = static_cast<int32_t>(tp);
                            l.pp = static_cast<int32_t>(pp);
                            l.vs = static_cast<int32_t>(vs);
                            l.dp = static_cast<int32_t>(dp);
                            l.mb = static_cast<int32_t>(mb);
                            l.ckpt = static_cast<uint8_t>(ck);
                            l.zero = static_cast<uint8_t>(z);
                            l.sp = sp;
                            l.tp_overlap = tpo;
                            l.overlap_dp = dpo;
                            l.fused = fused;
                            l.flash = flash;
                            l.ep = static_cast<int32_t>(ep);
                            l.etp = static_cast<int16_t>(etp);
                            l.cp = static_cast<int32_t>(cp);
                            l.balanced = m.layers % (pp * vs) != 0;
                            l.ep_overlap = epo;
                            for (uint8_t pr : precs) {
                              l.prec = pr;
                              out.push_back(l);
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
          }
          }
          }
          }
        }
      }
    }
  }
  return out;
}

Precision precision_of_layout(const Layout& l, const HwSpec& hw) { return precision_of(l.prec, hw); }

std::string layout_name(const Layout& l, const SpaceSpec& spec) {
  static const char* pr[] = {"", "-fp8", "-mxfp8", "-nvfp4"};
  return fmt::format("{}-{}-{}n-tp{}{}{}-pp{}-v{}-dp{}{}{}{}-mb{}-{}-z{}{}-{}-{}{}", spec.model, spec.hws[l.hw], l.nodes, l.tp,
                     l.sp ? "sp" : "", l.tp_overlap ? "o" : "", l.pp, l.vs, l.dp,
                     l.cp > 1 ? fmt::format("-cp{}", l.cp) : "",
                     l.ep > 1 ? fmt::format("-ep{}{}", l.ep, l.ep_overlap ? "o" : "") : "",
                     l.etp > 1 ? fmt::format("-etp{}", l.etp) : "", l.mb,
                     to_string(static_cast<Checkpointing>(l.ckpt)), l.zero, l.overlap_dp ? "" : "-nodpo", l.fused ? "fused" : "unfused",
                     l.flash ? "flash" : "attn", pr[l.prec]);
}

// The fields a stack profile gives every layout: those it may set except the ones the search sets
// per layout (its axes, and the pipeline split it picks).
static const std::vector<const WorkloadField*>& profile_fields() {
  static const std::vector<const WorkloadField*> fields = [] {
    const std::set<std::string> searched = {
        "parallel/sequence_parallel", "parallel/zero", "parallel/tp_overlap", "parallel/overlap_dp", "parallel/ep_overlap",
        "parallel/pipeline_split",    "checkpointing", "fused/qkv",           "fused/gate_up",       "attention"};
    std::vector<const WorkloadField*> out;
    for (const WorkloadField& f : workload_fields())
      if (f.stack_settable && !searched.count(f.path)) out.push_back(&f);
    return out;
  }();
  return fields;
}

Workload layout_workload(const Layout& l, const SpaceSpec& spec, const HwSpec& hw) {
  Workload w;
  w.model = spec.model;
  w.hw = spec.hws[l.hw];
  w.nodes = l.nodes;
  w.tp = l.tp;
  w.pp = l.pp;
  w.dp = l.dp;
  w.ep = l.ep;
  w.etp = l.etp;
  w.cp = l.cp;
  w.virtual_stages = l.vs;
  if (l.balanced) w.pipeline_split = Workload::PipelineSplit::Balanced;
  w.sequence_parallel = l.sp;
  w.tp_overlap = l.tp_overlap;
  w.ep_overlap = l.ep_overlap;
  w.overlap_dp = l.overlap_dp;
  w.zero = l.zero;
  w.reduce_every_micro_batch = reduces_every_micro_batch(l.zero, "");  // the loader's default for the stage
  w.micro_batch = l.mb;
  w.global_batch = spec.global_batch;
  w.seq_len = spec.seq_len;
  w.lora.rank = spec.lora_rank;
  w.document_tokens = spec.document_tokens;
  w.precision = precision_of(l.prec, hw);
  w.fp8_any_layout = hw.tensor.fp8_any_layout;
  w.fp32_grads = w.precision != Precision::BF16_SR;
  w.checkpointing = static_cast<Checkpointing>(l.ckpt);
  w.fused_qkv = w.fused_gate_up = l.fused;
  w.attention = l.flash ? Attention::Flash : Attention::Unfused;
  if (!spec.stack.empty()) {
    // Every field the profile may set, from the template (the workload loader put it under the
    // profile), except the search's own axes and the split it picks; then the loader's rules for
    // the fields whose profile default applies only to some layouts.
    const Workload& st = spec.stack_template;
    w.stack = spec.stack;
    for (const WorkloadField* f : profile_fields()) f->copy(w, st);
    w.fp32_grads = w.precision == Precision::FP32 || st.fp32_grads;
    w.pp_scatter_gather = w.tp > 1 && st.pp_scatter_gather;
    w.tp_overlap_forward = w.tp_overlap && st.tp_overlap_forward;  // how the stack overlaps, where it does
    w.master_remainders = st.master_remainders && w.fp32_master();  // the profile's rule: where a master exists
    w.attention_kernel = w.attention == Attention::Flash ? st.attention_kernel : AttentionKernel::Native;
    // When the stack reduces gradients, where the layout's ZeRO stage allows it.
    w.reduce_every_micro_batch = reduces_every_micro_batch(w.zero, spec.stack_grad_reduce);
    w.fp8_recipe = w.precision == Precision::FP8 ? st.fp8_recipe : Fp8Recipe::Delayed;
    w.fp8_param_gather = spec.stack_fp8_param_gather && fp8_param_gather_applies(w.precision, w.zero);
  }
  w.name = layout_name(l, spec);
  w.file = w.name;
  return w;
}

}  // namespace trnsim
