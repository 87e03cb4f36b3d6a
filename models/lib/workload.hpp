// workload.hpp — the *execution* description (Calculon's split): which model on which
// hardware, how many nodes, and the parallel plan, read strictly from workloads/*.json.
// Cross-checks that need the hardware (devices per node, HBM) happen in the run layer.
#pragma once
#include <nlohmann/json.hpp>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stack_profile.hpp"
#include "trnsim/op.hpp"

namespace trnsim {

// Training precision. FP8 / MXFP8 / NVFP4 are mixed BF16 (FP32 master weights and optimizer
// states, BF16 activations and non-linear ops) whose transformer-block linear layers run their
// GEMMs on that format (Transformer Engine / torchao / Megatron-Core recipes; see
// docs/precision.md for what stays in BF16 and the sources).
enum class Precision { BF16_SR, MixedBF16, FP32, FP8, MXFP8, NVFP4 };
// How FP8 tensors get their scale. Delayed: from an amax history (TE DelayedScaling, the cast
// itself records the amax; one amax all-reduce per step). Current (tensorwise): the amax of the
// tensor being cast, one extra read first, and an all-reduce over TP for inputs that are
// gathered over the sequence-parallel group. Rowwise: one scale per row (torchao), an amax pass,
// a cast from BF16 along the other axis for the transposed copy, and (torchtitan under TP) a BF16
// sequence-parallel gather cast after it; its GEMMs run on
// torch._scaled_mm's row-wise kernel, which issues at the BF16 tensor rate (a declared structural
// assumption, docs/precision.md "Row-wise FP8": recalled, with the corpus's evidence).
enum class Fp8Recipe { Delayed, Current, Rowwise };
bool has_fp32_master(Precision p);
// The dtype of the block linear layers' GEMMs (BF16 / FP32 outside the low-precision modes).
DType linear_dtype(Precision p);
// Selective: Megatron's attention-core recompute. OpSelective: torchtitan's per-op selective AC
// (keep the outputs of matmuls and of the attention kernel except every second matmul of a
// block, recompute everything else). Full: only the block input is kept.
enum class Checkpointing { None, Selective, Full, OpSelective };
enum class Schedule { OneF1B, GPipe };
enum class PricePlan { OnDemand, Reserved };
// Attention kernel. Unfused: QK^T into an s x s score tensor in HBM, softmax, x V (Megatron
// 2021-22, HF, Neuron before NKI flash). Flash: one tiled kernel keeping scores on chip, storing
// no s x s tensor, recomputing them in backward, and for causal (decoder) models computing only
// the key tiles on or below the diagonal (FlashAttention, TE/cuDNN, NKI flash_fwd).
enum class Attention { Unfused, Flash };

const char* to_string(Precision p);
// The precision a workload file names (to_string's inverse); nullopt for any other name.
std::optional<Precision> precision_named(const std::string& name);
const char* to_string(Fp8Recipe r);
const char* to_string(Checkpointing c);
const char* to_string(Schedule s);
const char* to_string(PricePlan p);
const char* to_string(Attention a);

// The workload's settings, in sub-structs by what they decide. Each setting is declared once, in
// the field table (workload_fields.cpp: JSON path, type, unit, default, range, whether a stack
// profile may set it, description); the reader, the writer, the stack profiles' settable list and
// the JSON Schemas follow from that table. Cross-field rules live in one check per sub-struct
// (workload.cpp). Workload inherits the sub-structs, so `w.tp` reads as `w.Degrees::tp`.

// Where the run happens: which nodes and how many of their cores.
struct Placement {
  std::string model, hw;  // names resolved to models/<model>.json and hw/<hw>.json
  int64_t nodes = 1;
  // Cores used in each node (0: all of them). Fewer than the node has is allowed on
  // switch / all-to-all nodes, where every core sees the same fabric (e.g. 2 of 8 GPUs).
  int64_t cores_per_node = 0;
  // Logical NeuronCore configuration (Trn2 / Trn3): physical cores per rank; 0: the hw default.
  int64_t lnc = 0;
};

// The parallel degrees and the pipeline's shape.
struct Degrees {
  int64_t tp = 1, pp = 1, dp = 1;
  // Expert parallelism (MoE models): routed experts are split over `ep` ranks taken from the
  // TP x CP x DP ranks of a stage; expert gradients reduce over the tp x cp x dp / (ep x etp)
  // expert-data-parallel ranks.
  int64_t ep = 1;
  // Expert tensor parallelism (Megatron-Core's expert_tensor_parallel_size): each expert's FFN
  // split over `etp` ranks (column-parallel up, row-parallel down). The expert grid orders the
  // same TP x CP x DP ranks ETP fastest, then EP, then expert-data-parallel; tokens are all-gathered
  // over the ETP group after the dispatch and reduce-scattered before the combine.
  int64_t etp = 1;
  // Context parallelism: each sequence split over `cp` ranks (between TP and DP in Megatron's
  // rank order), attention as a ring exchanging K/V chunks, 2 x cp chunks for causal balance.
  // Gradients and ZeRO shards span the dp x cp ranks.
  int64_t cp = 1;
  int64_t dp_cp() const { return dp * cp; }
  int64_t dense_ranks() const { return tp * cp * dp; }  // one pipeline stage's ranks, which the expert grid re-arranges
  int64_t edp() const { return dense_ranks() / (ep * etp); }
  int64_t devices() const { return tp * cp * pp * dp; }
  bool sequence_parallel = false;
  int zero = 0;  // 0: replicated; 1: optimizer states (and FP32 master) sharded over DP; 2: + gradients; 3: + parameters (FSDP)
  Schedule schedule = Schedule::OneF1B;
  // Interleaved 1F1B: model chunks per pipeline rank (Megatron's virtual pipeline size); 1 = plain.
  int64_t virtual_stages = 1;
  // How layers split over the pipeline's (virtual) stages. Even: layers / (pp x vs) each.
  // Embedding and loss: the embedding and the loss each take one layer's slot (Megatron-Core's
  // account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split), so
  // (layers + 2) / (pp x vs) slots per stage, one fewer layer on the first and the last.
  // Balanced: layers not divisible by pp x vs split as evenly as possible, the extra layers on
  // the middle stages (the first and last also carry the embedding and the loss), as torchtitan and
  // NxD split a pipeline (an assumption where a stack does not say). Explicit: the
  // workload's layers_per_stage, one count per (virtual) stage in order.
  enum class PipelineSplit { Even, EmbeddingAndLoss, Balanced, Explicit } pipeline_split = PipelineSplit::Even;
  std::vector<int64_t> layers_per_stage;  // PipelineSplit::Explicit only
  // Megatron-Core's pipeline_model_parallel_layout, when the workload gave one (pipeline_layout.hpp):
  // the split is Explicit with layers_per_stage from its chunks; the first and last chunk may hold
  // no decoder layer (E or m/L alone).
  std::string pipeline_layout;
  int64_t layout_mtp = 0;  // MTP modules the layout places ('m'), checked against the model
};

// Sequences and tokens.
struct Batch {
  int64_t micro_batch = 1, global_batch = 1, seq_len = 0;
  // Documents packed into each sequence (fine-tuning on packed samples, pre-training with document
  // masking): attention runs within a document (flash attention's variable-length / THD form with
  // cu_seqlens), so a flash kernel computes doc x doc causal tiles per document, not seq x seq.
  // The cost-weighted length (sum of squares over sum); 0: one document per sequence.
  int64_t document_tokens = 0;
  int64_t attention_span() const { return document_tokens > 0 ? document_tokens : seq_len; }
  int64_t tokens_per_step() const { return global_batch * seq_len; }
};

// Number formats: the GEMMs', the gradients', the optimizer's.
struct Numerics {
  Precision precision = Precision::BF16_SR;
  Fp8Recipe fp8_recipe = Fp8Recipe::Delayed;  // only with precision fp8
  // Taken from the hardware (hw tensor.fp8_any_layout), never from a workload file: the chip's FP8
  // GEMM accepts its operands in any layout, so per-tensor FP8 keeps one quantized copy of each
  // tensor and no FP8 transpose (Blackwell). false: FP8 GEMMs take only the TN layout (Hopper),
  // so every FP8 operand also exists transposed. MXFP8 / NVFP4 keep a row-wise and a column-wise
  // copy either way (their block scales run along the contraction dimension).
  bool fp8_any_layout = false;
  // Megatron-Core's fp8_param_gather with its distributed optimizer (ZeRO-1 / 2): the linear
  // weights exist between steps only in their FP8 / MXFP8 form (the module's parameter is the
  // quantized tensor; the optimizer updates the FP32 master shard and casts it), so no BF16 copy of
  // them is kept. Per-tensor FP8 all-gathers the updated weights in FP8; MXFP8 gathers them in
  // BF16 into the gradient buffer, free after the step (reuse_grad_buf_for_mxfp8_param_ag), and
  // quantizes them there. Set only where fp8_param_gather_applies.
  bool fp8_param_gather = false;
  // Gradient buffers and their DP reduction: BF16 for bf16-sr; for mixed-bf16 FP32 main
  // grads (Megatron-LM) unless the framework keeps BF16 grads (DeepSpeed bf16 default).
  bool fp32_grads = false;
  int grad_bytes() const { return fp32_grads ? 4 : 2; }
  // Optimizer numerics. master_weights: an FP32 copy of the parameters the optimizer updates
  // beside the compute-dtype ones (unset: the precision's default, has_fp32_master; false: pure
  // BF16 training, the parameters themselves are updated). optimizer_state_dtype: AdamW's first
  // and second moments (FP32 by default; BF16 as DeepSeek-V3 trains, arXiv 2412.19437 section
  // 3.3.2, Megatron-Core's --exp-avg-dtype / --exp-avg-sq-dtype, or torch.optim.AdamW on BF16
  // parameters, which keeps its moments in the parameters' dtype).
  std::optional<bool> master_weights;
  DType optimizer_state_dtype = DType::FP32;
  bool fp32_master() const { return master_weights.value_or(has_fp32_master(precision)); }
  // The FP32 master kept as the 16 low bits beside the BF16 parameter, which holds the high ones
  // (Megatron-Core's precision-aware optimizer, store_param_remainders; Apex's DistributedFusedAdam
  // store_param_remainders): 2 bytes per trained parameter, not 4. A parameter held only in FP8 /
  // MXFP8 (fp8_param_gather) has no BF16 high half and keeps its 4 bytes.
  bool master_remainders = false;
  // Bytes per trained parameter of the master copy, for a parameter that has a BF16 copy.
  double master_bytes() const { return fp32_master() ? (master_remainders ? 2.0 : 4.0) : 0.0; }
  // Bytes per trained parameter of the two moments.
  double optimizer_state_bytes() const { return 2.0 * dtype_bytes(optimizer_state_dtype); }
  // Bytes per trained parameter the optimizer keeps beside the parameter: the moments and the
  // FP32 master if there is one (what its step streams and a checkpoint stores).
  double optimizer_kept_bytes() const { return optimizer_state_bytes() + master_bytes(); }
  // Blocks whose linear layers stay in BF16 in a low-precision run: the first and the last ones
  // (low-precision recipes that keep the model's ends in high precision, e.g. torchtitan's NVFP4
  // recipe: the last 5 of Llama 3 8B's 32 blocks). Their GEMMs, saved inputs and weights are BF16.
  int64_t bf16_first_layers = 0, bf16_last_layers = 0;
  // Whether any block is kept in BF16: some are declared and the run is low precision.
  bool has_bf16_layers() const {
    return bf16_first_layers + bf16_last_layers > 0 && is_low_precision(linear_dtype(precision));
  }
  bool bf16_layer(int64_t layer, int64_t layers) const {
    return has_bf16_layers() && (layer < bf16_first_layers || layer >= layers - bf16_last_layers);
  }
};

// Activation checkpointing: what a layer keeps and what its backward recomputes.
struct Recompute {
  Checkpointing checkpointing = Checkpointing::None;
  // The policy applies to every k-th layer (global index % k == 0); the others keep all their
  // activations (torchtitan's selective layer AC, `selective_ac_option = "k"`). 1: every layer.
  int64_t checkpoint_every = 1;
  // Megatron-Core's recompute_method "block" with recompute_num_layers N: the policy runs on the
  // first N layers of each pipeline chunk only. 0: on every layer of the chunk.
  int64_t checkpoint_layers = 0;
  // Per-op selective AC saves the outputs of the matmuls its policy lists (torchtitan: aten.mm). A
  // low-precision linear whose GEMM runs through an op outside that list (a format marked false
  // here) is recomputed and keeps nothing: its block saves only its input and the attention
  // kernel's output. Indexed by DType; BF16 / FP32 matmuls are always saved.
  std::array<bool, kDTypes> op_selective_saves{true, true, true, true, true};
  bool op_selective_saves_gemm(DType d) const { return op_selective_saves[static_cast<size_t>(d)]; }
  // The policy of a layer, `in_chunk` its position in its pipeline chunk.
  Checkpointing checkpointing_of(int64_t layer, int64_t in_chunk) const {
    if (layer % checkpoint_every != 0 || (checkpoint_layers > 0 && in_chunk >= checkpoint_layers)) return Checkpointing::None;
    return checkpointing;
  }
};

// Which kernels run the model, and how the framework launches them.
struct Kernels {
  // How the framework feeds the device: "eager" (per-op host dispatch), "lazy" (torch-xla graph
  // tracing), "compiled" (graph compiled ahead, one launch per graph); empty: the hw default.
  std::string execution;
  bool fused_qkv = true, fused_gate_up = true;
  // Element-wise chains (RMSNorm, rotary, SwiGLU) as one kernel each: hand-fused kernels (TE,
  // Apex, Megatron) or torch.compile. false: eager PyTorch, one kernel per ATen op with its own
  // HBM round trip (docs/stacks.md, "Element-wise fusion").
  bool fused_elementwise = true;
  // How the loss runs, which sets the memory at the loss (memory_model.cpp): eager PyTorch's
  // F.cross_entropy(logits.float()) materialises the FP32 upcast beside the FP32 log-softmax it
  // keeps for backward; a fused loss kernel (Megatron's vocab-parallel cross entropy) keeps the
  // FP32 log-softmax; a compiled one (torch.compile of the loss, Inductor) is one kernel that keeps
  // only the BF16 logits (and a per-token log-sum-exp) and writes their gradient directly.
  // Workload JSON fused.loss; Auto (the default): eager if fused.elementwise is false, else fused.
  enum class LossKernel { Auto, Eager, Fused, Compiled };
  LossKernel loss_kernel = LossKernel::Auto;
  // The unfused attention's softmax (scores materialised; attention "unfused"): one fused kernel
  // always (Fused, the default), or Megatron's FusedScaleMaskSoftmax, whose fused kernel runs only
  // where its is_kernel_available() allows (16-bit input, 16 < sk <= 4096, sq and sk multiples of
  // 4, micro-batch x local heads a multiple of 4 and of the kernel's batches per block) and which
  // otherwise runs PyTorch's chain (cast to FP32, scale, masked fill, softmax, cast back): five
  // kernels over FP32 scores forward and five backward (workload fused.softmax "megatron").
  enum class SoftmaxKernel { Fused, Megatron };
  SoftmaxKernel softmax_kernel = SoftmaxKernel::Fused;
  LossKernel loss() const {
    return loss_kernel != LossKernel::Auto ? loss_kernel : fused_elementwise ? LossKernel::Fused : LossKernel::Eager;
  }
  Attention attention = Attention::Unfused;
  // The flash kernel's implementation (core/op.hpp): the stack's, e.g. FlashAttention-2 through
  // PyTorch SDPA for torchtitan, cuDNN through Transformer Engine for Megatron-Core.
  AttentionKernel attention_kernel = AttentionKernel::Native;
  // Vocabulary-parallel loss: the LM head's logits stay split over TP through the cross-entropy
  // (Megatron's vocab-parallel CE, torchtitan's loss_parallel). Off: the logits are all-gathered
  // and every TP rank holds and reduces the full-vocabulary logits (DTensor's default
  // ColwiseParallel output with Replicate layout).
  bool loss_parallel = true;
};

// Communication beside computation, and when gradients cross the data-parallel group.
struct Overlap {
  bool overlap_dp = true;      // DP gradient reduction overlapped with backward, bucket by bucket
  // Backward TP collectives may run while weight-gradient GEMMs still execute (Megatron's async
  // TP all-reduce 2021-09+ and its SP all-gather/reduce-scatter overlap; TE userbuffers). Off on
  // Neuron ("TP CC operations cannot be effectively overlapped", Neuron docs).
  bool tp_overlap = false;
  // Also the forward (TE userbuffers' pipelined AG / RS overlap with Megatron-Core tp_comm_overlap,
  // torch async TP): the SP all-gather beside the column-parallel GEMM after it, the reduce-scatter
  // beside the row-parallel GEMM before it. Megatron-LM 2021-22's async all-reduce: backward only.
  bool tp_overlap_forward = false;
  // Expert all-to-alls (dispatch and combine) of 1F1B's steady state hidden behind the compute of
  // the other micro-batch of the pair (Megatron-Core's overlap_moe_expert_parallel_comm, the
  // combined 1F1B schedule: forward i + 1 interleaved with backward i). Warm-up and cool-down
  // passes, and the first forward and last backward without a pipeline, run alone and expose
  // theirs; a running all-to-all takes the SMs its kernels use (hw collectives.compute_units).
  bool ep_overlap = false;
  // Pipeline send/recv split across the TP ranks: each sends 1/tp of the activation over its own
  // link and the receivers all-gather it inside the TP group (Megatron-LM 2021-2022
  // scatter_gather_tensors_in_pipeline, default on; no effect with SP, whose tensor is split).
  bool pp_scatter_gather = false;
  // Pipeline sends / receives beside compute (Megatron-Core overlap_p2p_comm): a pass's output
  // starts across the link when the pass ends and the receiving stage waits only for its arrival.
  // Megatron-Core overlaps only the interleaved schedule's p2p: it applies with virtual_stages > 1
  // (pp_overlap_applies), and only in the steady state (warm-up and flush stay blocking,
  // overlap_p2p_comm_warmup_flush off); otherwise the receiver waits out a blocking transfer after
  // the sender ends.
  bool pp_overlap = false;
  // The distributed optimizer's parameter all-gather (ZeRO-1 / 2) beside the next step's first
  // forward, bucket by bucket (Megatron-Core's overlap_param_gather, Apex DistributedFusedAdam's
  // overlap_param_sync): each piece's forward in the first micro-batch waits for its piece's gather,
  // the next piece's gather is issued once it is done (one ahead). In steady state the gather of
  // one step's update runs during the next step's first forward; the simulated step carries it in
  // its own first forward. false: the gather follows the optimizer, in series. No effect without a
  // distributed optimizer (zero 1 or 2) and dp x cp > 1.
  bool overlap_param_gather = false;
  // When gradients cross the DP group: once per step after the last micro-batch (PyTorch
  // DDP no_sync, Megatron, DeepSpeed ZeRO-0/1) or after every micro-batch's backward
  // (DeepSpeed ZeRO-2 and DDP without no_sync), which multiplies DP traffic by grad_accum.
  bool reduce_every_micro_batch = false;
  // Gradient elements per data-parallel reduction (parallel.grad_bucket_elements): 0, one
  // reduction per layer piece (the default; bucketed DDP at layer granularity); N > 0, flat
  // buffers filled with the pieces' gradients in backward order, each reduced once it holds N
  // elements and the last after the final piece (DeepSpeed's allreduce_bucket_size).
  int64_t grad_bucket_elements = 0;
};

// ZeRO-3 / FSDP: what a rank keeps of its parameters and when it gathers them.
struct Fsdp {
  // What a ZeRO-3 / FSDP rank keeps of its parameters between uses. Separate: a BF16 shard beside
  // the FP32 master shard (DeepSpeed ZeRO-3, Megatron's distributed optimizer). Master: the
  // sharded parameter *is* the FP32 master; BF16 copies exist only for the gathered units
  // (PyTorch FSDP1 / FSDP2 with a mixed-precision policy: cast at all-gather time).
  enum class FsdpShard { Separate, Master } fsdp_shard = FsdpShard::Separate;
  // ZeRO-3 / FSDP schedule. Reshard after forward (FSDP FULL_SHARD, FSDP2's default, DeepSpeed
  // ZeRO-3): each unit's gathered parameters are freed after its forward and gathered again for its
  // backward; off (FSDP SHARD_GRAD_OP, FSDP2 reshard_after_forward=False): they stay gathered until
  // the backward, no second all-gather, the rank's whole parameters in memory. Prefetch: units
  // gathered ahead of the one running (FSDP2's default 1; 0: gather just before use).
  bool fsdp_reshard_after_forward = true;
  int64_t fsdp_prefetch = 1;
};

// Mixture-of-experts routing and expert GEMMs.
struct Moe {
  // Tokens the busiest expert rank gets over the balanced share (1: force-balanced routing, as
  // NVIDIA's published MoE tables run).
  double moe_load_imbalance = 1.0;
  // How MoE tokens reach their experts' ranks: AllToAll sends every routed copy (Megatron-Core's
  // alltoall dispatcher); PerDomain sends a token once per destination scale-up domain and fans it
  // out over the intra-node links there (the flex dispatcher with DeepEP / HybridEP).
  enum class MoeDispatcher { AllToAll, PerDomain } moe_dispatcher = MoeDispatcher::AllToAll;
  // How a rank's experts run their GEMMs: Fused, one grouped-GEMM kernel for all local experts
  // (CUTLASS grouped GEMM, torch._grouped_mm); PerExpert, one GEMM launch per local expert
  // (Transformer Engine's GroupedLinear, which Megatron-Core's TEGroupedMLP uses, loops cuBLAS
  // GEMMs over the experts on the host), so eager execution pays one launch per local expert.
  enum class MoeGroupedGemm { Fused, PerExpert } moe_grouped_gemm = MoeGroupedGemm::Fused;
};

// How the framework holds tensors beyond the model's own.
struct Memory {
  // The caching allocator's reserve beyond the peak of live tensors, as a fraction of that peak
  // (PyTorch's block rounding and fragmentation): a declared per-stack figure, 0 unless a profile
  // or the workload states one (`allocator.fragmentation`; no shipped profile does: no source in
  // the corpus gives a stack's fraction).
  double allocator_fragmentation = 0;
  // Sequence parallelism as DTensor runs it (torchtitan, KempnerForge: PrepareModuleInput
  // redistributes the norm's sequence-sharded output to Replicate before the column-parallel
  // linears): autograd saves the all-gathered input of q / k / v, of gate / up and of the LM head,
  // the whole sequence on every TP rank. false (Megatron): the linears save their sequence shard
  // and gather it again in backward (Korthikanti et al. 2022): memory (memory_model.cpp) and the
  // backward's all-gathers (step_graph.cpp, backward_of).
  bool sp_saves_gathered_inputs = false;
};

struct Workload : Placement, Degrees, Batch, Numerics, Recompute, Kernels, Overlap, Fsdp, Moe, Memory {
  std::string name, file, description;
  // The training-stack profile the workload names (stacks/<stack>.json; empty: none), and the
  // fields it supplied ("parallel/zero = 3"), for the report.
  std::string stack;
  std::vector<std::string> stack_fields;
  // Kernels the training loop launches per micro-batch outside the model, each a host dispatch in
  // eager execution (what a small, host-bound model pays per micro-batch beyond its layers):
  // preparing the batch on the stages that read it (the first and the last: copies, broadcasts
  // over TP, attention mask, loss mask, position ids), and the loss beyond the cross-entropy's one
  // kernel (the vocabulary-parallel cross-entropy's pieces, loss masking, averaging over DP, the
  // gradient-accumulation scaling) and its backward. 0: the model's ops alone.
  struct Loop {
    int batch_launches = 0, loss_launches = 0, loss_backward_launches = 0;
    bool active() const { return batch_launches > 0 || loss_launches > 0 || loss_backward_launches > 0; }
    bool operator==(const Loop& o) const {
      return batch_launches == o.batch_launches && loss_launches == o.loss_launches &&
             loss_backward_launches == o.loss_backward_launches;
    }
  } loop;
  // Low-rank adaptation (LoRA, Hu et al. 2021): every base parameter is frozen (no weight
  // gradient, no gradient reduction, no optimizer state); each targeted linear layer W gets a
  // trainable x.A.B path of rank `rank` beside it (A: in x r, B: r x out), whose gradients and
  // optimizer states are all that train. Targets by Megatron-Core's module names.
  struct Lora {
    int64_t rank = 0;  // 0: full training
    bool qkv = true, proj = true, fc1 = true, fc2 = true;  // linear_qkv, linear_proj, linear_fc1, linear_fc2
    bool active() const { return rank > 0; }
  } lora;
  PricePlan price_plan = PricePlan::OnDemand;

  bool pp_overlap_applies() const { return pp_overlap && pp > 1 && virtual_stages > 1; }
  int64_t grad_accum() const { return global_batch / (dp * micro_batch); }
};

// Whether a run of ZeRO stage `zero` reduces its gradients every micro-batch, given the workload's
// or profile's parallel.grad_reduce ("" when neither sets it): ZeRO-2 always (it keeps only its
// gradient shard), otherwise as set, by default ZeRO-3 too (FSDP with gradient sync). The loader
// and the search's layouts share this rule.
inline bool reduces_every_micro_batch(int64_t zero, const std::string& grad_reduce) {
  if (zero == 2) return true;
  return grad_reduce.empty() ? zero >= 2 : grad_reduce == "per_micro_batch";
}
// "per_micro_batch" or "per_step": the workload file's parallel.grad_reduce.
inline const char* grad_reduce_name(const Workload& w) { return w.reduce_every_micro_batch ? "per_micro_batch" : "per_step"; }
// Where Megatron-Core's fp8_param_gather exists: FP8 or MXFP8 linears under a distributed
// optimizer (ZeRO-1 / 2). The loader, the profile's default and the search's layouts share this rule.
inline bool fp8_param_gather_applies(Precision p, int64_t zero) {
  return (p == Precision::FP8 || p == Precision::MXFP8) && (zero == 1 || zero == 2);
}
// Where expert all-to-all overlap (ep_overlap) can hide anything: expert parallelism, and 1F1B's
// forward / backward pairs (GPipe has none). The profile's default and the search's layouts share
// this rule; the loader refuses the field elsewhere, naming which half fails.
inline bool ep_overlap_applies(int64_t ep, Schedule s) { return ep > 1 && s != Schedule::GPipe; }
// The workload field's value for a dispatcher ("alltoall" or "deepep").
inline const char* moe_dispatcher_name(const Workload& w) {
  return w.moe_dispatcher == Workload::MoeDispatcher::PerDomain ? "deepep" : "alltoall";
}

// The LoRA targets by Megatron-Core's module names, in layer order.
inline std::vector<std::string> lora_target_names(const Workload& w) {
  std::vector<std::string> out;
  if (w.lora.qkv) out.push_back("linear_qkv");
  if (w.lora.proj) out.push_back("linear_proj");
  if (w.lora.fc1) out.push_back("linear_fc1");
  if (w.lora.fc2) out.push_back("linear_fc2");
  return out;
}

// A workload naming a "stack" needs `stacks` to find the profile's file (the app layer's
// stack_path); without it such a workload is an error.
Workload load_workload(const std::string& file, const StackLookup& stacks = {});
// The same from parsed JSON; `file` names the source in messages.
Workload workload_from_json(const nlohmann::json& j, const std::string& file, const StackLookup& stacks = {});
// A workload built in code (the validation adapters) put under a profile: the fields the profile
// sets are taken from it (as if the workload file had left them out); everything else is kept.
// Set the run's own choices (checkpointing, precision, ...) after this call.
Workload with_stack(const Workload& w, const StackProfile& profile);
// The inverse of load_workload: a JSON document that loads back to the same Workload.
// "eager", "fused" or "compiled": the JSON value of fused.loss.
const char* to_string(Workload::LossKernel k);
std::string workload_to_json(const Workload& w);

// Puts the workload under a Megatron-Core pipeline layout string (pipeline_layout.hpp): an
// Explicit split with the layout's chunks; throws std::invalid_argument with the reason.
void set_pipeline_layout(Workload& w, const std::string& layout);

}  // namespace trnsim
