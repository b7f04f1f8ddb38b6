//! Training on a Megatron-style grid (`tp`, `pp`, `ep`, `etp`, `cp`, `dp`): one GPU's bill, for
//! the pipeline stage that needs the most unless `stage` picks one, and the `parallel` summary of
//! every stage. The rules, each as Megatron-Core lays the model out:
//!
//! - **Weights** (bf16): attention, dense MLPs and shared experts split over `tp`; each MoE layer's
//!   routed experts over `ep` (whole experts) and `etp` (each expert's matrices); norms and routers
//!   whole on every GPU. Stage p of P holds its layers (the first `layers mod P` stages one more);
//!   the first stage the embedding ÷ tp, the last the LM head ÷ tp (a tied model's last stage keeps
//!   its own copy of the embedding when P > 1, as Megatron does).
//! - **Gradients**: Megatron's contiguous fp32 buffer (`main_grad`; bf16 training accumulates and
//!   all-reduces in fp32) of every parameter the GPU trains, 4 B each, never sharded.
//! - **Master weights and optimizer states**: fp32 copies (4 B) and Adam's two fp32 moments (8 B);
//!   with the distributed optimizer sharded over dp × cp, the routed experts' over the experts'
//!   own data-parallel group (tp × cp × dp ÷ (ep × etp)).
//! - **Activations** (bf16, FlashAttention, no dropout), per token of a micro-batch and per layer:
//!   each norm's input and output (Transformer Engine's LayerNormLinear keeps both: the norm's
//!   backward needs its input, the linear's weight gradient its output; whole on every
//!   tensor-parallel GPU unless `sp`), q, k, v and the
//!   attention output with its fp32 log-sum-exp, the MLP's gate and up outputs and their product
//!   (÷ tp); a MoE layer's router probabilities and, per routed token, its permuted input, its
//!   expert's gate, up and product (÷ etp) and the expert's output (the unpermute keeps it for the
//!   routing probabilities' gradient). A GPU holds seq × batch ÷ cp tokens of each micro-batch,
//!   and the stage holds as many micro-batches as the schedule keeps in flight. `gc=1` (Megatron's
//!   full recompute) keeps each layer's input only, and one layer's activations live again.
//!   Transient on top: one MoE layer's all-to-all buffers (send, receive and the permuted copy),
//!   ring attention's key/value send and receive buffers under `cp`.
//! - **Logits** (last stage): one micro-batch's tokens × vocab ÷ tp, 6 B each: the bf16 logits and
//!   the vocab-parallel cross-entropy's fp32 copy (megatron/core/tensor_parallel/cross_entropy.py:
//!   `calculate_logits_max` casts with `.float()`, the max is subtracted and the exponent taken in
//!   place, the softmax kept for backward becomes the gradient in place).
//! - **NCCL**: one communicator's buffers per process group of more than one GPU that a step uses,
//!   as Megatron-Core makes its groups ([`nccl`]), outside PyTorch's allocator.
//! - **DPO** (`objective=dpo`, as Megatron-SWIFT's `MegatronDPOTrainer` runs it, padding-free): a
//!   micro-batch carries each pair's chosen and rejected sequences, so its tokens are twice
//!   seq × batch; a full fine-tune's reference is a second model on the same grid (`get_model`
//!   without DDP since ms-swift #6027, so no gradient buffer): this stage's parameters in bf16. Its
//!   no-grad forward runs before the policy's in each forward step and keeps only per-token
//!   log-probabilities.
//! - **GRPO with its rollout on other GPUs** (`rollout=server`, Megatron-SWIFT's `vllm_mode
//!   server`): a micro-batch of `batch` completions, each prompt_len + completion_len tokens, their
//!   logits over every token (Megatron's output layer); with the KL term (`beta` > 0) a full
//!   fine-tune's reference as DPO's.

use super::architecture::{Architecture, LayerClass, LayerKind, LinearGroup, MlpKind};
use super::bill::{
    in_host_ram, line, to_bytes, Bill, Component, ComponentId, Note, ParallelSummary, RankSummary, SlackRule,
    StepAmounts, Timeline,
};
use super::msg::{when, Arg, Msg};
use super::plan::{resolve, Plan, NCCL_GIB, NCCL_NVLS_GIB};
use super::scenario::{Layout, Method, Offload, Optimizer, Precision, Reference, Scenario, Schedule, GIB, MIB};
use super::step::{in_bill_order, SLACK_PERSISTENT, SLACK_TRANSIENT, SLACK_TRANSIENT_EXPANDABLE};
use crate::msg;

/// Bytes of a bf16 activation element.
const ACT: f64 = 2.0;

/// Parameters one GPU of a stage holds, and how many of them train.
#[derive(Clone, Copy, Debug, Default)]
struct StageParams {
    /// Split over tp, or whole (norms, routers, the vision tower): sharded by the optimizer over dp × cp.
    dense: f64,
    /// Routed experts ÷ (ep × etp): sharded by the optimizer over the experts' data-parallel group.
    experts: f64,
    trainable_dense: f64,
    trainable_experts: f64,
    has_embedding: bool,
    has_lm_head: bool,
}

fn stage_params(s: &Scenario, l: &Layout, p: u64) -> StageParams {
    let arch = &s.architecture;
    let (tp, experts_split) = (l.tp as f64, (l.ep * l.etp) as f64);
    let lora = s.method != Method::Full;
    let linears = arch.linears();
    let small_per_layer = arch.small_parameters() as f64 / arch.layers.max(1) as f64;
    let last = l.is_last_stage(p);
    let mut out = StageParams::default();
    let add_layer = |out: &mut StageParams, class: LayerClass| {
        out.dense += small_per_layer;
        out.trainable_dense += if lora { 0.0 } else { small_per_layer };
        for lin in linears.iter().filter(|x| class.has(x)) {
            let expert = lin.group == LinearGroup::Expert;
            let split = if expert { experts_split } else { tp };
            let weights = lin.parameters() as f64 / split;
            let trains = if !lora {
                weights
            } else if s.targets.includes(lin.name) {
                s.rank as f64 * (lin.d_in as f64 + lin.d_out as f64) * lin.per_layer as f64 / split
            } else {
                0.0
            };
            if expert {
                out.experts += weights;
                out.trainable_experts += trains;
            } else {
                out.dense += weights;
                out.trainable_dense += trains;
            }
        }
    };
    for layer in l.stage_layers(arch.layers, p) {
        add_layer(&mut out, arch.layer_class(layer));
    }
    let table = arch.vocab.saturating_mul(arch.hidden) as f64 / tp;
    if last && l.mtp_layers > 0 {
        // Each multi-token-prediction layer (Megatron-Core's MultiTokenPredictionLayer): a
        // decoder layer like the model's last, `eh_proj` (2h → h, column-parallel ÷ tp) and the
        // enorm, hnorm and final norm; the LM head is the model's, and the stage builds the
        // embedding too (`pre_process or mtp_process`): a copy of its own on a later stage of an
        // untied model (a tied one's last stage already keeps one).
        let (h, class) = (arch.hidden as f64, arch.layer_class(arch.layers.saturating_sub(1)));
        for _ in 0..l.mtp_layers {
            add_layer(&mut out, class);
            let own = 2.0 * h * h / tp + 3.0 * h;
            out.dense += own;
            out.trainable_dense += if lora { 0.0 } else { own };
        }
        if l.pp > 1 && !arch.tied_embeddings {
            out.dense += table;
            out.trainable_dense += if lora { 0.0 } else { table };
        }
    }
    if p == 0 {
        out.has_embedding = true;
        let embedding = arch.embedding_parameters() as f64 / tp + arch.encoder_parameters() as f64;
        out.dense += embedding;
        out.trainable_dense += if lora { 0.0 } else { embedding };
    }
    if last {
        out.has_lm_head = true;
        // A tied model's last stage keeps its own copy of the embedding when P > 1.
        let head = if arch.tied_embeddings && l.pp <= 1 { 0.0 } else { table } + arch.hidden as f64;
        out.dense += head;
        out.trainable_dense += if lora { 0.0 } else { head };
    }
    out
}

/// Saved activation bytes per token of one layer on one GPU, and a MoE layer's routed tokens per
/// local token (for the all-to-all buffers).
fn layer_bytes_per_token(arch: &Architecture, l: &Layout, class: LayerClass) -> (f64, f64) {
    let (h, tp, etp) = (arch.hidden as f64, l.tp as f64, l.etp as f64);
    let norm_split = if l.sp { tp } else { 1.0 };
    let linears = arch.linears();
    let outputs = |group: fn(LinearGroup) -> bool, skip: &str| -> f64 {
        linears.iter().filter(|x| class.has(x) && group(x.group) && x.name != skip).map(|x| x.d_out as f64).sum()
    };
    // The layer's own attention output width (Gemma-4's full-attention layers).
    let out = arch.attention_widths(class.attention).2 as f64;
    let mlp = |ffn: f64| match arch.mlp {
        MlpKind::Glu => 3.0 * ffn * ACT,
        MlpKind::Gelu => 2.0 * ffn * ACT,
    };
    // The residual dropout after each block keeps its mask, 1 B per element, where the norms are.
    let norms = if arch.hidden_dropout > 0.0 { 2.0 * ACT + 1.0 } else { 2.0 * ACT };
    let mut bytes = 0.0;
    if class.attention.attends() {
        bytes += norms * h / norm_split;
        bytes += (ACT * (outputs(LinearGroup::is_attention, "o_proj") + out) + 4.0 * arch.heads as f64) / tp;
    } else if class.attention == LayerKind::Linear {
        bytes += norms * h / norm_split;
        let value = linears.iter().find(|x| x.name == "out_proj").map_or(0.0, |x| x.d_in as f64);
        bytes += ACT * (outputs(|g| g == LinearGroup::LinearAttention, "out_proj") + value) / tp;
    }
    let mut routed = 0.0;
    if class.mlp {
        bytes += norms * h / norm_split;
        match (&arch.moe, class.moe) {
            (Some(m), true) => {
                routed = m.active as f64 * if l.sp { etp / tp } else { 1.0 };
                bytes += 2.0 * 4.0 * m.experts as f64 / norm_split;
                // Per routed token: its permuted input, its expert's tensors, and the expert's output
                // that the unpermute keeps for the routing probabilities' gradient.
                bytes += routed * (2.0 * ACT * h + mlp(m.expert_ffn as f64 / etp));
                bytes += mlp(m.shared_ffn as f64 * m.shared as f64) / tp;
            }
            _ => bytes += mlp(arch.dense_ffn_of(&class) as f64) / tp,
        }
    }
    (bytes, routed)
}

/// A micro-batch's tokens on one GPU: the trainer's sequences (`Scenario::trainer_sequences`:
/// DPO's pairs twice seq × batch, GRPO's completions prompt_len + completion_len each) ÷ cp.
fn local_tokens(s: &Scenario, l: &Layout) -> f64 {
    let (seq, sequences) = s.trainer_sequences();
    (seq.saturating_mul(sequences) as f64 / l.cp as f64).ceil()
}

/// A full fine-tune's reference on the grid (DPO's, GRPO's with `beta` > 0; `ref=model`): a
/// frozen copy of the stage's parameters in the weights' dtype, laid out as the policy's (÷ dp ×
/// cp under FSDP, `zero=3`); none for the adapters' own reference (`ref=adapter`), precomputed
/// log-probabilities or no KL term.
fn stage_reference(s: &Scenario, l: &Layout, params: &StageParams, param_bytes: f64) -> Option<Component> {
    if s.reference() != Some(Reference::Model) {
        return None;
    }
    let shard = if s.zero == 3 { (l.dp * l.cp).max(1) } else { 1 };
    let count = params.dense + params.experts;
    let bytes = count * param_bytes / shard as f64;
    Some(line(
        ComponentId::ReferenceModel,
        bytes,
        "§1",
        msg!(
            GridReference,
            Arg::Count(count as u64),
            Arg::Factor(param_bytes),
            when(shard > 1, || msg!(ShardZero, Arg::Int(shard), Arg::Int(3)))
        ),
    ))
}

/// Micro-batches stage `p` holds in flight (fractional under the interleaved schedule's penalty).
pub fn in_flight(l: &Layout, microbatches: u64, p: u64) -> f64 {
    let m = microbatches.max(1);
    if l.pp <= 1 {
        return 1.0;
    }
    let one_f_one_b = (l.pp - p.min(l.pp - 1)).min(m) as f64;
    match l.schedule {
        Schedule::OneFOneB | Schedule::ZeroBubble => one_f_one_b,
        // Megatron-Core's interleaved schedule counts in model-chunk passes: every rank warms up with
        // (vpp − 1) × pp of them (`microbatch_group_size_per_vp_stage` = pp) plus 2 per stage after
        // its own, holds at most one more (`max_outstanding_backprops`), all m × vpp when that is
        // more (schedules.py `get_pp_rank_microbatches`, core_v0.13 … HEAD d98e8a6): in whole-stage
        // micro-batches, ÷ vpp. The first stage's is Narayanan et al.'s pp × (1 + (pp − 1) / (pp ×
        // vpp)); the last stage's is nearly as much, where 1F1B's is one.
        Schedule::Interleaved => {
            let (pp, vpp) = (l.pp, l.vpp.max(1));
            let warmup = 2 * (pp - 1 - p.min(pp - 1)) + (vpp - 1) * pp;
            (warmup + 1).min(m.saturating_mul(vpp)) as f64 / vpp as f64
        }
        Schedule::Gpipe => m as f64,
    }
}

/// One stage's lines before the allocator's slack and the context.
struct StageLines {
    lines: Vec<Component>,
    layers: u64,
    weights: f64,
    activations: f64,
    gradients: f64,
    /// What an offloaded optimizer holds in host RAM.
    host: f64,
}

fn stage_lines(s: &Scenario, l: &Layout, p: u64, (nccl, groups, all_to_all): (f64, u64, f64)) -> StageLines {
    let arch = &s.architecture;
    let params = stage_params(s, l, p);
    let layers = l.stage_layers(arch.layers, p);
    let layer_count = layers.end - layers.start;
    let (param_bytes, has_master) = match s.precision {
        Precision::Fp32 => (4.0, false),
        _ => (2.0, true),
    };
    // Adam's two moments (SGD's momentum one), in the precision-aware optimizer's dtype on a
    // Megatron grid (`moments`).
    let moment = if s.zero == 3 { 4.0 } else { f64::from(l.moment_bytes) };
    let moments = match s.optimizer {
        Optimizer::Sgd => 0.0,
        Optimizer::SgdMomentum => moment,
        _ => 2.0 * moment,
    };
    let mut lines = if s.zero == 3 {
        fsdp_lines(s, l, &params, param_bytes, moments)
    } else {
        megatron_lines(l, &params, p, layer_count, param_bytes, has_master, moments)
    };
    // Megatron's optimizer CPU offload (`--optimizer-cpu-offload`, all of it): the fp32 master
    // weights and the moments live and step in host RAM; the GPU keeps the bf16 weights and main_grad.
    let mut host = 0.0;
    if s.offload != Offload::None {
        for c in lines.iter_mut().filter(|c| matches!(c.id, ComponentId::Optimizer | ComponentId::MasterWeights)) {
            let (on_gpu, in_host) = in_host_ram(c.clone(), 0.0);
            *c = on_gpu;
            host += in_host;
        }
    }
    lines.extend(stage_reference(s, l, &params, param_bytes));
    let (activations, act_line) = stage_activations(s, l, p);
    lines.push(act_line);
    lines.push(stage_logits(s, l, params.has_lm_head));
    if nccl > 0.0 {
        lines.push(line(
            ComponentId::NonTorch,
            nccl,
            "§3",
            msg!(GridNccl, Arg::Bytes(nccl), Arg::Int(groups), Arg::Bytes(all_to_all)),
        ));
    }
    let bytes = |id: ComponentId| lines.iter().filter(|c| c.id == id).map(|c| c.bytes as f64).sum::<f64>();
    let (weights, gradients) = (bytes(ComponentId::Weights), bytes(ComponentId::Gradients));
    StageLines { lines, layers: layer_count, weights, activations, gradients, host }
}

/// The distributed optimizer's lines (Megatron-Core): bf16 weights, the fp32 `main_grad`, fp32
/// master weights and moments, sharded over dp × cp (the experts' over their own group) when on.
fn megatron_lines(
    l: &Layout,
    params: &StageParams,
    p: u64,
    layer_count: u64,
    param_bytes: f64,
    has_master: bool,
    moments: f64,
) -> Vec<Component> {
    let (dense_shard, expert_shard) =
        if l.dist_optim { ((l.dp * l.cp) as f64, l.expert_dp() as f64) } else { (1.0, 1.0) };
    let trainable = params.trainable_dense + params.trainable_experts;
    let sharded = params.trainable_dense / dense_shard + params.trainable_experts / expert_shard;
    let shard_msg = when(l.dist_optim, || msg!(GridSharded, Arg::Int(l.dp * l.cp), Arg::Int(l.expert_dp())));
    let mut lines = vec![
        line(
            ComponentId::Weights,
            (params.dense + params.experts) * param_bytes,
            "§1",
            msg!(
                GridWeights,
                Arg::Count((params.dense + params.experts) as u64),
                Arg::Factor(param_bytes),
                Arg::Int(p),
                Arg::Int(l.pp),
                Arg::Int(layer_count),
                Arg::Int(l.tp),
                Arg::Int(l.ep * l.etp),
                when(params.has_embedding, || msg!(GridEmbedding)),
                when(params.has_lm_head, || msg!(GridLmHead)),
                when(params.has_lm_head && l.mtp_layers > 0, || msg!(GridMtp, Arg::Int(l.mtp_layers)))
            ),
        ),
        line(
            ComponentId::Gradients,
            trainable * f64::from(l.main_grad_bytes),
            "§1",
            msg!(GridGradients, Arg::Count(trainable as u64), Arg::Int(u64::from(l.main_grad_bytes))),
        ),
        line(
            ComponentId::Optimizer,
            sharded * moments,
            "§1",
            msg!(
                GridStates,
                Arg::Count(trainable as u64),
                Arg::Factor(moments),
                shard_msg.clone(),
                Arg::Int(u64::from(l.moment_bytes))
            ),
        ),
    ];
    if has_master {
        // The precision-aware optimizer (TransformerEngine's FusedAdam keeps the master weights,
        // `store_param_remainders` on by default since TE 2.1) stores only the 16 bits of each
        // fp32 master weight that its bf16 weight lacks: 2 B.
        let master = if l.precision_aware() { 2.0 } else { 4.0 };
        lines.push(line(
            ComponentId::MasterWeights,
            sharded * master,
            "§1",
            msg!(
                GridMaster,
                Arg::Count(trainable as u64),
                shard_msg,
                when(l.precision_aware(), || msg!(GridMasterRemainders))
            ),
        ));
    }
    lines
}

/// `zero=3` on a grid: FSDP (torchtitan's FSDP2) over dp × cp instead of the distributed optimizer.
/// The weights (fp32 under mixed precision: they are the master copy), gradients and optimizer
/// states are sharded; the largest layer and the next, prefetched, are gathered in bf16, with one
/// layer's fp32 gradient before its reduce-scatter. Under a pipeline torchtitan does not reshard
/// after forward (`fsdp_reshard_after_forward = not parallel_dims.pp_enabled`, to spare each
/// micro-batch its all-gathers) and PyTorch's pipeline stage syncs gradients only at the last
/// micro-batch: the whole stage's bf16 weights and its unsharded gradients stay on the GPU, the
/// gradients upcast to the fp32 reduce dtype for the accumulation (FSDP2's
/// `FSDPParam.to_accumulated_grad_if_needed`).
fn fsdp_lines(s: &Scenario, l: &Layout, params: &StageParams, param_bytes: f64, moments: f64) -> Vec<Component> {
    let shard = (l.dp * l.cp) as f64;
    let stored = if s.precision == Precision::Mixed { 4.0 } else { param_bytes };
    let all = params.dense + params.experts;
    let trainable = params.trainable_dense + params.trainable_experts;
    let layer = s.architecture.largest_layer_parameters() as f64 / l.tp as f64;
    let gathered_grad = if trainable > 0.0 { layer * 4.0 } else { 0.0 };
    let whole_stage = l.pp > 1;
    let gathered = if whole_stage {
        line(
            ComponentId::GatheredLayer,
            all * 2.0 + trainable * stored,
            "§1",
            msg!(GridFsdpStage, Arg::Count(all as u64), Arg::Count(trainable as u64), Arg::Factor(stored)),
        )
    } else {
        line(
            ComponentId::GatheredLayer,
            2.0 * layer * 2.0 + gathered_grad,
            "§1",
            msg!(GridFsdpGathered, Arg::Count(layer as u64), Arg::Bytes(gathered_grad)),
        )
    };
    vec![
        line(
            ComponentId::Weights,
            all * stored / shard,
            "§1",
            msg!(GridFsdpWeights, Arg::Count(all as u64), Arg::Int(l.dp * l.cp), Arg::Factor(stored)),
        ),
        line(
            ComponentId::Gradients,
            trainable * 4.0 / shard,
            "§1",
            msg!(GridFsdpShard, Arg::Count(trainable as u64), Arg::Int(l.dp * l.cp), Arg::Factor(4.0)),
        ),
        line(
            ComponentId::Optimizer,
            trainable * moments / shard,
            "§1",
            msg!(GridFsdpShard, Arg::Count(trainable as u64), Arg::Int(l.dp * l.cp), Arg::Factor(moments)),
        ),
        gathered,
    ]
}

fn stage_activations(s: &Scenario, l: &Layout, p: u64) -> (f64, Component) {
    let arch = &s.architecture;
    let tokens = local_tokens(s, l);
    let microbatches = if l.microbatches > 0 { l.microbatches } else { s.accum };
    let flight = in_flight(l, microbatches, p);
    let (mut saved, mut largest, mut routed) = (0.0f64, 0.0f64, 0.0f64);
    let input = ACT * arch.hidden as f64 / if l.sp { l.tp as f64 } else { 1.0 };
    // The last stage's multi-token-prediction layers count as layers of its own: each a layer
    // like the model's last, with the enorm's and hnorm's inputs and their concatenation
    // (2h, `eh_proj`'s input) kept beside it.
    let mtp = if l.is_last_stage(p) { l.mtp_layers } else { 0 };
    let last_class = arch.layer_class(arch.layers.saturating_sub(1));
    let classes = l.stage_layers(arch.layers, p).map(|layer| (arch.layer_class(layer), 0.0));
    let mut layer_count = 0.0;
    for (class, beside) in classes.chain((0..mtp).map(|_| (last_class, 4.0 * input))) {
        let (bytes, r) = layer_bytes_per_token(arch, l, class);
        saved += bytes + beside;
        largest = largest.max(bytes + beside);
        routed = routed.max(r);
        layer_count += 1.0;
    }
    let recompute = s.checkpointing.is_on();
    let kept =
        if recompute { flight * layer_count * input * tokens + largest * tokens } else { flight * saved * tokens };
    // One MoE layer's all-to-all: the tokens sent, received, and the permuted copy.
    let dispatch = 3.0 * routed * tokens * ACT * arch.hidden as f64;
    // Ring attention: the next chunk's keys and values received while this one is used, both ways.
    // The widest layer's (Gemma-4's full-attention layers have their own width).
    let kv_dim = arch.kv_dim().max(arch.attention_widths(LayerKind::Full).1);
    let ring = if l.cp > 1 { 2.0 * 2.0 * tokens * ACT * kv_dim as f64 / l.tp as f64 } else { 0.0 };
    let bytes = kept + dispatch + ring;
    let formula = msg!(
        GridActivations,
        Arg::Factor((flight * 100.0).round() / 100.0),
        Arg::Code(l.schedule.id()),
        Arg::Int(layer_count as u64),
        Arg::Count(tokens as u64),
        Arg::Bytes(saved / layer_count.max(1.0)),
        when(recompute, || msg!(GridRecompute, Arg::Bytes(input))),
        when(dispatch > 0.0, || msg!(GridDispatch, Arg::Bytes(dispatch))),
        when(ring > 0.0, || msg!(GridRing, Arg::Bytes(ring)))
    );
    (bytes, line(ComponentId::Activations, bytes, "§2", formula))
}

fn stage_logits(s: &Scenario, l: &Layout, last: bool) -> Component {
    if !last {
        return line(ComponentId::Logits, 0.0, "§2", msg!(NotUsed));
    }
    let arch = &s.architecture;
    let tokens = local_tokens(s, l);
    let logits = tokens * arch.vocab as f64 / l.tp as f64;
    // Each multi-token-prediction depth computes its own logits through the shared LM head and
    // its own loss (`process_mtp_loss`), whose fp32 softmax stays for the backward as the main
    // loss's does: 4 B more per logit and depth.
    let mtp = 4.0 * l.mtp_layers as f64 * logits;
    let mtp_msg = when(mtp > 0.0, || msg!(GridMtpLogits, Arg::Int(l.mtp_layers), Arg::Bytes(mtp)));
    let loss = s.loss.unwrap_or(super::scenario::LossKernel::Hf);
    if s.zero == 3 && loss == super::scenario::LossKernel::Fused {
        // A fused linear cross-entropy (Liger's, as Accelerate's and TRL's FSDP runs use it) on
        // this GPU's tokens: one chunk of logits, the input gradient, and Liger's head gradient of
        // a full fine-tune (the gathered bf16 head), as on one GPU (`logits::fused_loss`).
        let vocab = arch.vocab.div_ceil(l.tp.max(1));
        let liger = s.kernels == super::scenario::Kernels::Liger;
        let full = s.method == super::scenario::Method::Full;
        let (head, head_text) = super::logits::liger_head_gradient(vocab, arch.hidden, full, liger, 2.0);
        let (bytes, formula) =
            super::logits::fused_loss(tokens as u64, vocab, arch.hidden, 2.0, None, [mtp_msg, head_text]);
        return line(ComponentId::Logits, bytes + head + mtp, "§2", formula);
    }
    if s.zero == 3 {
        // torchtitan's loss: PyTorch's cross-entropy on the (vocab-parallel) logits, as `loss` and
        // `compile` say (`compile=model` leaves it eager).
        let compiled = s.compile == super::scenario::Compile::Full;
        let (per, formula) = super::logits::bytes_per_logit(loss, super::dtype::Dtype::Bf16, compiled, false);
        return line(
            ComponentId::Logits,
            logits * per + mtp,
            "§2",
            msg!(
                GridLogitsLoss,
                Arg::Count(tokens as u64),
                Arg::Count(arch.vocab),
                Arg::Int(l.tp),
                Arg::Factor(per),
                formula.arg(),
                mtp_msg
            ),
        );
    }
    line(
        ComponentId::Logits,
        logits * 6.0 + mtp,
        "§2",
        msg!(GridLogits, Arg::Count(tokens as u64), Arg::Count(arch.vocab), Arg::Int(l.tp), mtp_msg),
    )
}

/// The grid's notes: its size, and what Megatron would refuse.
fn grid_notes(s: &Scenario, l: &Layout, billed: u64, worst: u64) -> Vec<Note> {
    let arch = &s.architecture;
    let mut notes = vec![Note {
        key: "grid",
        text: msg!(
            NoteGrid,
            Arg::Text(format!("tp{}·pp{}·ep{}·etp{}·cp{}·dp{}", l.tp, l.pp, l.ep, l.etp, l.cp, l.dp)),
            Arg::Count(l.gpus()),
            Arg::Int(billed),
            Arg::Int(worst)
        ),
    }];
    let mut refuse = |what: &'static str, size: u64, of: &'static str, total: u64| {
        if size > 1 && total % size != 0 {
            notes.push(Note {
                key: "grid_refused",
                text: msg!(NoteGridRefused, Arg::Code(what), Arg::Int(size), Arg::Code(of), Arg::Count(total)),
            });
        }
    };
    refuse("tp", l.tp, "heads", arch.heads);
    refuse("tp", l.tp, "kv_heads", arch.kv_heads);
    refuse("ep", l.ep, "experts", arch.moe.map_or(l.ep, |m| m.experts));
    refuse("ep×etp", l.ep * l.etp, "tp×cp×dp", l.tp * l.cp * l.dp);
    // More stages than layers: billed as one layer per stage (`estimate` clamps), and said.
    if s.layout.pp > arch.layers {
        notes.push(Note {
            key: "grid_refused",
            text: msg!(
                NoteGridRefused,
                Arg::Code("pp"),
                Arg::Int(s.layout.pp),
                Arg::Code("layers"),
                Arg::Count(arch.layers)
            ),
        });
    }
    if let Some((stages, layers)) = l.uneven_rest(arch.layers) {
        notes.push(Note { key: "grid_uneven", text: msg!(NoteGridUneven, Arg::Int(stages), Arg::Int(layers)) });
    }
    if s.method == Method::Qlora {
        notes.push(Note { key: "grid_qlora", text: msg!(NoteGridQlora) });
    }
    if matches!(s.optimizer, Optimizer::AdamW8bit | Optimizer::Adafactor) {
        notes.push(Note { key: "grid_optimizer", text: msg!(NoteGridOptimizer, Arg::Code(s.optimizer.id())) });
    }
    notes
}

/// NCCL's buffers on a GPU of the grid, and the process groups of more than one GPU they serve.
///
/// A communicator per process group that a step uses, as Megatron-Core creates them
/// (megatron/core/parallel_state.py, core_r0.11.0): a group object of its own even where two have
/// the same GPUs (data parallel and data parallel with context; tensor and expert tensor; the
/// model-parallel group beside `tp`), each given its communicator when first used, since neither
/// Megatron nor ms-swift passes `device_id` to `init_process_group`. Used in a step: the world's
/// (barriers), `tp`, the pipeline's, `cp`, data parallel with `cp` (the gradients' reduce and the
/// distributed optimizer's gather), model parallel `tp × pp` (the gradient norm); with experts, `ep`
/// (the tokens' all-to-all), `etp`, `tp × ep` (the token counts' gather), `etp × ep × pp` (the
/// experts' gradient norm) and the experts' data parallel. (docs/research/parallel/megatron-swift-memory.md)
///
/// What a communicator holds: a step's collectives carry large tensors, so NCCL connects its
/// protocols' buffers (10 MiB per connection) on every channel, and NVLink nodes open many channels.
/// On NVLink cards a communicator of two GPUs holds 0.51 GiB and a larger one 0.64 GiB (nccl#964: a
/// 4 MB all-reduce on four NVLink A100s, 544 and 688 MB per communicator); over PCIe 0.25 GiB, as
/// the serving engines' fit (`NCCL_GIB`); with NVLS the first one 1.9 GiB. The experts' all-to-all
/// connects every peer of `ep` beside that: (ep − 1) × 0.44 GiB (nccl#1685: the first all_to_all on
/// eight NVLink H100s took NCCL from 1.06 to 4.34 GB), at most the seven others of a node. Returns the bytes, the groups and the
/// all-to-all's part (docs/research/parallel/megatron-nccl-memory.md).
fn nccl(l: &Layout, card: &Plan, moe: bool) -> (f64, u64, f64) {
    let dense = [l.gpus(), l.tp, l.pp, l.cp, l.dp * l.cp, l.tp * l.pp];
    let experts = [l.ep, l.etp, l.tp * l.ep, l.etp * l.ep * l.pp, l.expert_dp()];
    let used: Vec<u64> = dense.iter().chain(if moe { &experts[..] } else { &[] }).copied().filter(|&g| g > 1).collect();
    let nvlink = card.nvlink();
    let each = |g: u64| match () {
        _ if !nvlink => NCCL_GIB,
        _ if g == 2 => NCCL_NVLINK_PAIR_GIB,
        _ => NCCL_NVLINK_GIB,
    };
    let mut gib: f64 = used.iter().map(|&g| each(g)).sum();
    if let Some(&first) = used.first() {
        if card.nvls() {
            gib += NCCL_NVLS_GIB - each(first);
        }
    }
    // Only a peer on the same node connects over NVLink with buffers of its own: the GPUs of a
    // node (eight on these platforms) bound them; peers on other nodes share the network
    // transport's pool (NCCL src/transport/net.cc: channels × NCCL_SHARED_STEPS × the 128 KiB p2p
    // chunk, for all of them), which is not billed.
    let nvlink_peers = l.ep.saturating_sub(1).min(NVLINK_NODE_GPUS - 1);
    let all_to_all = if moe && nvlink { nvlink_peers as f64 * NCCL_ALL_TO_ALL_PEER_GIB * GIB } else { 0.0 };
    (gib * GIB + all_to_all, used.len() as u64, all_to_all)
}

/// NCCL's buffers per communicator on NVLink cards: of two GPUs, of more (nccl#964), and per peer
/// of the experts' all-to-all (nccl#1685).
const NCCL_NVLINK_PAIR_GIB: f64 = 0.51;
const NCCL_NVLINK_GIB: f64 = 0.64;
const NCCL_ALL_TO_ALL_PEER_GIB: f64 = 0.44;
/// GPUs in a node of the NVLink platforms [`Plan::nvlink`] names (DGX/HGX and MI300X: eight).
const NVLINK_NODE_GPUS: u64 = 8;

/// A stage's lines with the allocator's slack and the CUDA context, in bill order.
fn with_overheads(mut lines: Vec<Component>, rule: &SlackRule, overhead_mib: f64) -> Vec<Component> {
    let allocated = |transient: bool| -> f64 {
        lines
            .iter()
            .filter(|c| c.id.layer() == super::TotalKind::Allocated && c.id.is_transient() == transient)
            .map(|c| c.bytes as f64)
            .sum()
    };
    let (transient, persistent) = (allocated(true), allocated(false));
    lines.push(line(
        ComponentId::AllocatorSlack,
        rule.bytes((transient, persistent, transient)),
        "§3 ⑦",
        msg!(
            AllocatorSlackTraining,
            Arg::Bytes(transient),
            Arg::Fixed(rule.transient * 100.0, 0),
            Arg::Bytes(persistent),
            Arg::Fixed(SLACK_PERSISTENT * 100.0, 0),
            Msg::empty().arg()
        ),
    ));
    lines.push(line(ComponentId::CudaContext, overhead_mib * MIB, "§3", msg!(CudaContext, Arg::Factor(overhead_mib))));
    in_bill_order(lines)
}

/// What the page's build bills for a grid until the reader worker answers (`readers::grid`):
/// no line, and the note that says so.
pub fn pending(s: &Scenario) -> Bill {
    Bill {
        components: in_bill_order(Vec::new()),
        gpu_bytes: s.gpu.bytes,
        parameters: s.architecture.parameters(),
        notes: vec![Note { key: "grid", text: msg!(NoteGridPending) }],
        saved_logits_bytes: 0,
        backward_overlap_bytes: 0,
        gradient_bytes: 0,
        open_high_bytes: 0,
        serving: None,
        timeline: Timeline::Phases(Vec::new()),
        rl: None,
        parallel: Some(ParallelSummary {
            layout: s.layout,
            worst_stage: 0,
            worst_bytes: 0,
            billed_stage: 0,
            ranks: Vec::new(),
        }),
    }
}

/// The bill of one GPU of a training grid: the stage `stage` picks, or the one that needs the most.
pub fn estimate(s: &Scenario) -> Bill {
    let mut l = s.layout;
    l.pp = l.pp.clamp(1, s.architecture.layers.max(1));
    // `gpus` alone on a grid (Megatron's distributed optimizer and nothing else given): data parallel.
    if [l.tp, l.pp, l.ep, l.etp, l.cp, l.dp].iter().all(|&x| x == 1) {
        l.dp = s.gpus.max(1);
    }
    let plan = resolve(s);
    let (nccl_bytes, groups, all_to_all) = nccl(&l, &plan, s.architecture.moe.is_some());
    let rule = SlackRule {
        transient: if plan.expandable_segments { SLACK_TRANSIENT_EXPANDABLE } else { SLACK_TRANSIENT },
        persistent: SLACK_PERSISTENT,
        wrap_cache: 0.0,
    };
    let mut ranks = Vec::new();
    let mut stages = Vec::new();
    for p in 0..l.pp {
        let StageLines { lines, layers, weights, activations, gradients, host } =
            stage_lines(s, &l, p, (nccl_bytes, groups, all_to_all));
        let lines = with_overheads(lines, &rule, plan.overhead_mib);
        ranks.push(RankSummary {
            stage: p,
            layers,
            weights_bytes: to_bytes(weights),
            activations_bytes: to_bytes(activations),
            allocated_bytes: super::bill::total(&lines, super::bill::TotalKind::Allocated),
            device_bytes: super::bill::total(&lines, super::bill::TotalKind::Device),
        });
        stages.push((lines, gradients, host));
    }
    let worst = ranks.iter().max_by_key(|r| (r.device_bytes, std::cmp::Reverse(r.stage))).map_or(0, |r| r.stage);
    let billed = l.stage.map_or(worst, |x| x.min(l.pp - 1));
    let worst_bytes = ranks.get(worst as usize).map_or(0, |r| r.device_bytes);
    let (components, gradients, host) = stages.swap_remove(billed as usize);
    let offloaded = (host > 0.0).then(|| Note { key: "offload_host", text: msg!(NoteOffloadHost, Arg::Bytes(host)) });
    Bill {
        components,
        gpu_bytes: s.gpu.bytes,
        parameters: s.architecture.parameters(),
        notes: plan
            .notes
            .iter()
            .filter(|n| matches!(n.key, "framework" | "unified_memory"))
            .cloned()
            .chain(grid_notes(s, &l, billed, worst))
            .chain(offloaded)
            .collect(),
        saved_logits_bytes: 0,
        backward_overlap_bytes: 0,
        gradient_bytes: to_bytes(gradients),
        open_high_bytes: 0,
        serving: None,
        timeline: Timeline::Training(StepAmounts {
            all_gradients: to_bytes(gradients),
            at_start_gradients: to_bytes(gradients),
            temporaries: 0,
            buffer_gradients: to_bytes(gradients),
            slack: rule,
        }),
        rl: None,
        parallel: Some(ParallelSummary { layout: l, worst_stage: worst, worst_bytes, billed_stage: billed, ranks }),
    }
}
