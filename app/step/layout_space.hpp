// layout_space.hpp — the layout space `trnsim search` explores: Calculon's axes and
// more. TP: every divisor of the heads (and of the FFN, compatible with the KV heads) that fits
// a node or spans whole nodes; PP: every divisor of the layers, and any other degree --axes lists
// (its layers split as evenly as possible, with the virtual stages --axes lists or 1); interleaved
// virtual stages dividing the layers per stage; every micro-batch dividing the local batch; recompute
// none / selective / full; ZeRO 0-3 (3: FSDP); sequence parallelism on / off (on for MoE models with tp > 1); TP and DP overlap on /
// off; fused projections; attention kernel; hardware and node counts; precision (bf16 only unless
// --axes lists fp8 / mxfp8 / nvfp4; a format the hardware lacks is skipped for it); expert
// parallelism (every divisor of a MoE model's experts that divides tp x cp x dp); context parallelism
// (only when --axes lists cp values: flash attention, seq divisible by 2 x cp). `--axes`
// limits any of them. Layouts are kept compact (no strings) so millions fit in memory.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hw_spec.hpp"
#include "model_spec.hpp"
#include "workload.hpp"

namespace trnsim {

// A value list per axis; an axis absent from the map takes every valid value.
using AxisLimits = std::map<std::string, std::vector<int64_t>>;
// Parses "tp=1,2,4;zero=1;attention=flash" (booleans as on/off or 1/0; recompute as
// none/selective/full; attention as unfused/flash; precision as bf16/fp8/mxfp8/nvfp4). Throws
// UsageError naming the axis.
AxisLimits parse_axes(const std::string& text);
const std::vector<std::string>& axis_names();

struct Layout {
  uint16_t hw = 0;                 // index into the search's hardware list
  int32_t nodes = 1, tp = 1, pp = 1, vs = 1, dp = 1, mb = 1;
  int32_t ep = 1, cp = 1;          // expert and context parallelism
  int16_t etp = 1;                 // expert tensor parallelism
  uint8_t ckpt = 0, zero = 0;      // Checkpointing enum value, ZeRO stage
  uint8_t prec = 0;                // 0 bf16 (bf16-sr where the hardware rounds stochastically), 1 fp8, 2 mxfp8, 3 nvfp4
  bool sp = false, tp_overlap = false, overlap_dp = true, fused = true, flash = false;
  bool balanced = false;           // pp x vs does not divide the layers: the balanced split
  bool ep_overlap = false;         // expert all-to-alls hidden in 1F1B's steady state (Workload::ep_overlap)
};

struct SpaceSpec {
  std::string model;
  std::vector<std::string> hws;
  std::vector<int64_t> nodes;
  int64_t seq_len = 4096, global_batch = 1024;
  // Fine-tuning, the same for every layout: LoRA adapters of this rank on all four linear layers
  // (0: full training) and packed documents of this many tokens (0: one per sequence, as seq_len is;
  // no CP then).
  int64_t lora_rank = 0, document_tokens = 0;
  AxisLimits axes;
  // A training stack (stacks/<stack>.json; empty: none). Axes the profile sets (attention, fused,
  // sp, tp_overlap, dp_overlap, zero) take its value wherever the workload loader would apply it
  // (SP and TP overlap with tp > 1, a ZeRO stage with dp > 1), unless --axes names them; the
  // profile's other fields (gradient dtype, FSDP shard, loss parallel, execution, schedule, ...)
  // go to every layout's workload. Set with use_stack().
  std::string stack;
  Workload stack_template;              // the profile applied to a tp 2, dp 2 workload
  std::vector<std::string> stack_axes;  // the axes it fixes
  // The profile's parallel.grad_reduce, if it sets one: "per_step" makes a ZeRO-3 layout reduce once
  // per step (FSDP2 without gradient sync), "per_micro_batch" a ZeRO-0/1 layout every micro-batch;
  // ZeRO-2 always reduces every micro-batch. Empty: the loader's default by ZeRO stage.
  std::string stack_grad_reduce;
  // The profile's fp8_param_gather: set on every FP8 / MXFP8 layout under ZeRO-1 / 2
  // (fp8_param_gather_applies).
  bool stack_fp8_param_gather = false;
  // The profile's parallel.ep_overlap: set on every layout with ep > 1 (and a 1F1B schedule)
  // unless --axes lists ep_overlap.
  bool stack_ep_overlap = false;
  // The profile's checkpointing_policies as recompute-axis values (0 none, 1 selective, 2 full,
  // 3 op_selective): the policies searched unless --axes lists recompute. Empty: none, selective,
  // full.
  std::vector<int> stack_recompute;
};
// Loads stacks/<name>.json into the spec (throws ConfigError naming the stack if unknown).
void use_stack(SpaceSpec& spec, const std::string& name, const StackLookup& stacks);

// Every layout of the space that passes the arithmetic checks (divisibility, node fit).
std::vector<Layout> enumerate_space(const SpaceSpec& spec, const ModelSpec& model, const std::vector<HwSpec>& hws);
// The workload of a layout (bf16: bf16-sr where the hardware has stochastic rounding, else
// mixed-bf16; fp8 with delayed scaling, mxfp8, nvfp4 as the layout says).
Workload layout_workload(const Layout& l, const SpaceSpec& spec, const HwSpec& hw);
std::string layout_name(const Layout& l, const SpaceSpec& spec);
Precision precision_of_layout(const Layout& l, const HwSpec& hw);

}  // namespace trnsim
