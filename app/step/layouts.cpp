// layouts.cpp — see layouts.hpp.
#include "layouts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hw_spec.hpp"
#include "layout_space.hpp"
#include "model_spec.hpp"
#include "scenario.hpp"
#include "stack_profile.hpp"
#include "trnsim/error.hpp"

namespace trnsim {

std::string layout_id(const Workload& w) {
  return fmt::format("{}-{}-{}n-tp{}-pp{}-dp{}-mb{}-{}-z{}-{}", w.model, w.hw, w.nodes, w.tp, w.pp, w.dp, w.micro_batch,
                     to_string(w.checkpointing), w.zero, w.fused_qkv ? "fused" : "unfused");
}

namespace {
// The layout space's precision axis value of the sweep's precision (layout_space.cpp's precision_of).
int64_t precision_axis(Precision p) {
  switch (p) {
    case Precision::BF16_SR:
    case Precision::MixedBF16: return 0;
    case Precision::FP8: return 1;
    case Precision::MXFP8: return 2;
    case Precision::NVFP4: return 3;
    default:
      throw ConfigError(fmt::format("layout space: precision {} has no sweep axis value; use bf16, fp8, mxfp8 or nvfp4",
                                    to_string(p)));
  }
}
}  // namespace

std::vector<Workload> enumerate_layouts(const LayoutSpace& sp) {
  const ModelSpec m = load_model_spec(model_path(sp.model));
  const HwSpec hw = sp.hw_set.empty() ? load_hw_spec(hw_path(sp.hw)) : load_hw_with_edits(sp.hw, sp.hw_set);
  SpaceSpec spec;
  spec.model = sp.model;
  spec.hws = {sp.hw};
  spec.nodes = {sp.nodes};
  spec.seq_len = sp.seq_len;
  spec.global_batch = sp.global_batch;
  spec.lora_rank = sp.lora_rank;
  if (!sp.stack.empty()) use_stack(spec, sp.stack, stack_lookup());
  const auto& fixed = spec.stack_axes;
  const bool sp_fixed = std::find(fixed.begin(), fixed.end(), "sp") != fixed.end();
  // The sweep's axes as the enumerator's limits. An axis the stack profile fixes keeps the profile's
  // value (the sweep's promise: the fields a stack sets win); the recompute axis is always the sweep's.
  auto limit = [&](const char* axis, std::vector<int64_t> values) {
    if (std::find(fixed.begin(), fixed.end(), axis) == fixed.end()) spec.axes[axis] = std::move(values);
  };
  std::vector<int64_t> tps;
  for (int64_t tp = 1; tp <= hw.cores_per_node(); tp *= 2) tps.push_back(tp);
  spec.axes["tp"] = tps;
  spec.axes["vs"] = {1};
  spec.axes["ep"] = {1};
  spec.axes["mb"] = sp.micro_batches;
  for (Checkpointing ck : sp.checkpointing) spec.axes["recompute"].push_back(static_cast<int64_t>(ck));
  spec.axes["precision"] = {precision_axis(sp.precision)};
  limit("zero", std::vector<int64_t>(sp.zero.begin(), sp.zero.end()));
  std::vector<int64_t> fused;
  for (bool f : sp.fused) fused.push_back(f ? 1 : 0);
  limit("fused", fused);
  limit("attention", {0});   // the workload's default attention (unfused)
  limit("tp_overlap", {0});  // and its default TP and DP overlap
  limit("dp_overlap", {1});
  std::set<std::string> seen;
  std::vector<Workload> out;
  for (const Layout& l : enumerate_space(spec, m, {hw})) {
    if (!sp_fixed && l.sp != (l.tp > 1)) continue;  // sequence parallelism wherever TP splits a layer
    Workload w = layout_workload(l, spec, hw);
    w.name = w.file = layout_id(w);
    if (seen.insert(w.name).second) out.push_back(std::move(w));
  }
  return out;
}

}  // namespace trnsim
