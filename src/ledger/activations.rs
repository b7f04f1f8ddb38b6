//! Activations: the tensors autograd keeps from the forward pass for the backward pass, counted
//! tensor by tensor for a Hugging Face-style decoder block, and the transient peak of an inference
//! forward pass. The loss's logits are in `logits`, the frozen vision tower's working set in
//! `vision`.
//!
//! Why not the textbook `s·b·h·L·(34 + 5·a·s/h)` (Korthikanti et al. 2022)? It describes a GPT-3 block
//! with dropout, a 4h GELU MLP and eager attention. Modern models have no dropout, gated MLPs, GQA
//! and FlashAttention/SDPA kernels that never store the s² score matrix, so the textbook figure
//! over-counts (furiousteabag/vram measured 3,403 MiB where it predicts 7,104 MiB). Here each saved
//! tensor is named:
//!
//! - RMSNorm (HF): an fp32 copy of its input (4·h bytes), the normalised value when the norm weight
//!   trains, and its output when the next linear layer trains (a frozen linear needs only its weight
//!   for the input gradient, so autograd does not keep its input). Gemma-2's two post-norms count the
//!   same, without an output kept.
//! - attention: q and k after RoPE and v; the output (+ fp32 log-sum-exp) for SDPA/flash; `eager`
//!   instead keeps the fp32 softmax and its 16-bit copy, heads·s² each, and repeats k/v to all heads.
//! - gated MLP: gate output (SiLU input), SiLU output and up output (the product's two operands), and
//!   the product (down_proj input) when down_proj trains.
//! - dropout on the residual stream (`hidden_dropout` > 0: Megatron's default, GPT-2's): each block's
//!   mask, 1 B per element.
//! - LoRA: each adapted layer keeps the input of its adapter (its own copy when the fp32 adapter
//!   casts the 16-bit input) and the rank-r intermediate.
//! - QLoRA with bitsandbytes before 0.43.2 (`bnb=legacy`): the frozen 4-bit layers' matmul kept its
//!   input, so every linear input is saved as in full fine-tuning even though no base weight trains.

use super::architecture::{Architecture, LayerClass, LayerKind, LinearShape, LinearSpec, MlpKind, NormKind};
use super::bill::{line, Component, ComponentId};
use super::dtype::Dtype;
use super::msg::{when, Arg, Msg};
use super::plan::{tower_trainable, Plan, Trainable, Training};
use super::scenario::{AttentionKernel, Kernels};
use crate::msg;

/// The web page's build, which bills a tiled MLP in its reader worker.
const PAGE: bool = cfg!(feature = "page");

/// Saved bytes of one decoder layer.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerActivations {
    /// Bytes per token (linear in sequence length and batch).
    pub per_token: f64,
    /// Bytes per sequence that grow with s² (eager attention only).
    pub per_sequence_quadratic: f64,
}

impl LayerActivations {
    pub fn bytes(&self, seq: u64, batch: u64) -> f64 {
        let s = seq as f64;
        let b = batch as f64;
        self.per_token * s * b + self.per_sequence_quadratic * b
    }
}

/// How a decoder layer runs in training: what fuses its pointwise work (torch.compile, `compile`;
/// a kernel library, `kernels`), and whether its MLP runs in sequence tiles (`tiled_mlp`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerRun {
    pub compiled: bool,
    pub kernels: Kernels,
    pub tiled_mlp: bool,
}

impl LayerRun {
    pub const NONE: LayerRun = LayerRun { compiled: false, kernels: Kernels::Hf, tiled_mlp: false };

    /// Norms and SwiGLU keep their inputs and recompute the rest (compiled, or fused kernels).
    fn fused(self) -> bool {
        self.compiled || self.kernels.fused()
    }
}

/// What a norm keeps. Compiled (`compile=1`), Inductor's min-cut partitioner saves the fused
/// kernel's input and recomputes the fp32 copy and the normalised value in backward; Liger's and
/// Unsloth's RMSNorm kernels keep their input and the fp32 inverse RMS per row (`ctx.save_for_backward(X, W, r)`).
fn norm_saved(arch: &Architecture, act: f64, weight_trains: bool, next_trains: bool, run: LayerRun) -> f64 {
    let h = arch.hidden as f64;
    let out = if next_trains { act * h } else { 0.0 };
    match arch.norm {
        NormKind::RmsNorm if run.fused() => act * h + out,
        // fp32 copy of the input (it *is* the input in fp32 training) + normalised + output.
        NormKind::RmsNorm => 4.0 * h + if weight_trains { act * h } else { 0.0 } + out,
        // The fused kernel keeps its input (and per-row statistics).
        NormKind::LayerNorm => act * h + out,
    }
}

/// The tensors one decoder layer of `class` keeps for backward, but its adapters' (added last by
/// `SavedLayers::of`). The parts are added in a fixed order (attention, MLP, adapters).
fn training_layer(
    arch: &Architecture,
    class: LayerClass,
    trainable: Trainable,
    kernel: AttentionKernel,
    act: Dtype,
    seq: u64,
    run: LayerRun,
) -> LayerActivations {
    let mut saved = LayerActivations { per_token: 0.0, per_sequence_quadratic: 0.0 };
    let (full, inputs_kept) = (trainable.is_full(), trainable.inputs_kept());
    let stream = trainable.stream_bytes(act);
    // A block-level hybrid's MLP-only block has no mixer and its norm; its mixer blocks no MLP.
    // Each block's residual dropout keeps its mask (1 B per element) when the model trains with one.
    let mask = if arch.hidden_dropout > 0.0 { arch.hidden as f64 } else { 0.0 };
    if class.attention != LayerKind::None {
        saved.per_token += norm_saved(arch, stream, full, inputs_kept, run) + mask;
    }
    match (class.attention, &arch.linear) {
        (LayerKind::Linear, Some(lin)) => saved.per_token += linear_attention_saved(lin, act.bytes(), inputs_kept),
        (LayerKind::None, _) => {}
        _ => attention_saved(&mut saved, arch, class, trainable, kernel, act.bytes(), seq),
    }
    // Post-norms (Gemma-2's post-attention and post-MLP norms): their output joins the residual
    // stream, which keeps nothing.
    for _ in 2..arch.norms_per_layer.min(8) {
        saved.per_token += norm_saved(arch, stream, full, false, run);
    }
    if class.mlp {
        saved.per_token += norm_saved(arch, stream, full, inputs_kept, run) + mask;
        if !PAGE && run.tiled_mlp {
            // A tiled MLP keeps only its input, the norm's output (already kept when the next linear
            // trains): unsloth-zoo `tiled_mlp.py` `TiledMLP.forward`, `ctx.save_for_backward(x)`.
            saved.per_token += if inputs_kept { 0.0 } else { stream * arch.hidden as f64 };
        } else {
            mlp_saved(&mut saved, arch, class, trainable, stream, run);
        }
    }
    saved
}

/// Softmax attention: what the kernel keeps for the input gradients. Latent attention (MLA) also
/// keeps its latents and their norms' fp32 copies; q/k norms keep fp32 copies of q and k; an
/// output gate keeps its input and its sigmoid.
fn attention_saved(
    saved: &mut LayerActivations,
    arch: &Architecture,
    class: LayerClass,
    trainable: Trainable,
    kernel: AttentionKernel,
    act: f64,
    seq: u64,
) {
    let (qd, kvd, out) = arch.attention_widths(class.attention);
    // A KV-shared layer (Gemma-4 E2B/E4B) attends over an earlier layer's keys and values, already
    // kept: it projects and normalises none of its own.
    let kvd = if class.kv_shared { 0 } else { kvd };
    let (qd, kvd, out) = (qd as f64, kvd as f64, out as f64);
    let heads = arch.heads as f64;
    let (full, inputs_kept) = (trainable.is_full(), trainable.inputs_kept());
    match kernel {
        AttentionKernel::Eager => {
            // q, and k/v repeated to all heads before the matmuls.
            saved.per_token += act * 3.0 * qd;
            // fp32 softmax output + the 16-bit copy the second matmul keeps; soft-capped scores
            // (Gemma-2) also keep their tanh output.
            let softmax_bytes = if act < 4.0 { 4.0 + act } else { 4.0 };
            let softcap_bytes = if arch.softcapping { act } else { 0.0 };
            let s = seq as f64;
            saved.per_sequence_quadratic += heads * s * s * (softmax_bytes + softcap_bytes);
        }
        AttentionKernel::Sdpa | AttentionKernel::Flash => match &arch.mla {
            None => {
                saved.per_token += act * (qd + 2.0 * kvd); // q, k, v
                saved.per_token += act * qd + 4.0 * heads; // output + fp32 log-sum-exp
            }
            Some(_) => {
                saved.per_token += act * (qd + kvd + out); // q, k (nope + rope), v
                saved.per_token += act * out + 4.0 * heads;
            }
        },
    }
    if let Some(m) = &arch.mla {
        let latents = (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim) as f64;
        saved.per_token += act * latents + 4.0 * (m.q_lora_rank + m.kv_lora_rank) as f64;
    }
    if arch.qk_norm {
        saved.per_token += 4.0 * (qd + kvd) + if full { act * (qd + kvd) } else { 0.0 };
    }
    if arch.attn_gate {
        saved.per_token += act * 2.0 * out;
    }
    if inputs_kept {
        saved.per_token += o_proj_input(kernel, act, out);
    }
}

/// A Gated DeltaNet layer (Qwen3-Next): the convolution's input and output (q, k, v), the z gate,
/// the output and the gated norm's input, the b/a gates (and their fp32 forms), and the chunked
/// kernel's fp32 state at every 64-token chunk boundary.
/// Mamba-2 keeps the same kinds of tensor: the in-projection's x, B, C before and after the
/// convolution, z and the output with the gated norm's input, dt, and mamba_ssm's fp32 state at
/// every 256-token chunk boundary.
fn linear_attention_saved(lin: &LinearSpec, act: f64, inputs_kept: bool) -> f64 {
    let (conv, value, nv) = (lin.conv_dim() as f64, (lin.v_heads * lin.head_dim) as f64, lin.v_heads as f64);
    let states = 4.0 * lin.state_elements() as f64 / lin.chunk();
    act * (2.0 * conv + 3.0 * value + 2.0 * nv) + 4.0 * 2.0 * nv + states + if inputs_kept { act * value } else { 0.0 }
}

/// Intermediate size a token runs through in a layer of `class`: its dense MLP, or its active
/// routed experts plus the shared ones.
fn ffn_active(arch: &Architecture, class: LayerClass) -> f64 {
    match &arch.moe {
        _ if !class.mlp => 0.0,
        Some(m) if class.moe => (m.expert_ffn * m.experts_per_token() + m.shared_ffn * m.shared) as f64,
        _ => arch.dense_ffn_of(&class) as f64,
    }
}

/// The copies of a token a layer of `class` runs its MLP over: one, or in a MoE layer one per expert
/// the token occupies (`MoeSpec::experts_per_token`).
fn routed_copies(arch: &Architecture, class: LayerClass) -> f64 {
    arch.moe.as_ref().filter(|_| class.moe).map_or(1.0, |m| m.experts_per_token() as f64)
}

/// MLP block (its norm is the caller's): the router, the gated or plain MLP's saved tensors.
fn mlp_saved(
    saved: &mut LayerActivations,
    arch: &Architecture,
    class: LayerClass,
    trainable: Trainable,
    act: f64,
    run: LayerRun,
) {
    let h = arch.hidden as f64;
    let (full, inputs_kept) = (trainable.is_full(), trainable.inputs_kept());
    let moe = arch.moe.as_ref().filter(|_| class.moe);
    let routed = routed_copies(arch, class);
    if let Some(m) = moe {
        saved.per_token += 4.0 * m.experts as f64; // fp32 router probabilities
        if full {
            saved.per_token += act * h * routed; // tokens gathered per expert
        }
    }
    let kept = if inputs_kept { 1.0 } else { 0.0 };
    saved.per_token += act
        * ffn_active(arch, class)
        * match arch.mlp {
            // gate output (SiLU input), SiLU output, up output; + the product (down input).
            // Compiled or a fused SwiGLU kernel (Liger's `LigerSiLUMulFunction`, Unsloth's), the
            // SiLU output is recomputed from the gate output.
            MlpKind::Glu if run.fused() => 2.0 + kept,
            MlpKind::Glu => 3.0 + kept,
            // fc1 output (GELU input); + GELU output (fc2 input)
            MlpKind::Gelu => 1.0 + kept,
        };
}

/// LoRA adapters: the inputs the adapters keep for their weight gradients, and the rank-r
/// intermediates lora_B needs. Adapters on layers that read the same input share one copy of it
/// unless each casts its own.
fn adapters_saved(
    per_token: &mut f64,
    arch: &Architecture,
    linears: &[LinearShape],
    class: LayerClass,
    trainable: Trainable,
    kernel: AttentionKernel,
    act: f64,
) {
    let Trainable::Lora { targets, rank, input_copies, frozen_keeps_inputs, dropout, .. } = trainable else { return };
    let h = arch.hidden as f64;
    let routed = routed_copies(arch, class);
    let mut shared_inputs = 0.0;
    let (mut seen_attn_in, mut seen_mlp_in, mut seen_shared_in) = (false, false, false);
    for l in linears.iter().filter(|l| class.has(l) && targets.includes(l.name)) {
        let copies = if l.per_layer > 1 { routed } else { 1.0 };
        *per_token += act * rank as f64 * copies;
        if dropout {
            // lora_A keeps the dropped input (its 16-bit cast under autocast); dropout its mask.
            *per_token += (act + 1.0) * l.d_in as f64 * copies;
            continue;
        }
        if input_copies {
            *per_token += act * l.d_in as f64 * copies;
            continue;
        }
        if frozen_keeps_inputs {
            // The quantized base already keeps every layer input (counted above).
            continue;
        }
        shared_inputs += match l.name {
            "q_proj" | "k_proj" | "v_proj" | "q_a_proj" | "kv_a_proj_with_mqa" | "in_proj_qkvz" | "in_proj_ba"
            | "in_proj"
                if !seen_attn_in =>
            {
                seen_attn_in = true;
                act * h
            }
            "q_b_proj" | "kv_b_proj" | "out_proj" => act * l.d_in as f64,
            "o_proj" => o_proj_input(kernel, act, arch.attention_widths(class.attention).2 as f64),
            "gate_proj" | "up_proj" | "fc1" if !seen_mlp_in => {
                seen_mlp_in = true;
                act * h * routed
            }
            "down_proj" | "fc2" => act * l.d_in as f64 * routed,
            "shared_expert.gate_proj" | "shared_expert.up_proj" if !seen_shared_in => {
                seen_shared_in = true;
                act * h
            }
            "shared_expert.down_proj" => act * l.d_in as f64,
            _ => 0.0,
        };
    }
    *per_token += shared_inputs;
}

/// Unsloth's fused LoRA (`fast_lora.py`: `LoRA_QKV`, `LoRA_W`, `LoRA_MLP`) keeps only the input of
/// each adapted group — the attention's, o_proj's, the MLP's — and recomputes the rank-r
/// intermediates and the MLP's product (`h = swiglu(e, g)`) in backward; A and B are cast to the
/// input's dtype inside the kernel, so there are no fp32 input copies.
fn unsloth_adapters_saved(
    per_token: &mut f64,
    arch: &Architecture,
    linears: &[LinearShape],
    class: LayerClass,
    trainable: Trainable,
    kernel: AttentionKernel,
    act: f64,
) {
    let Trainable::Lora { targets, .. } = trainable else { return };
    let adapted =
        |names: &[&str]| linears.iter().any(|l| class.has(l) && targets.includes(l.name) && names.contains(&l.name));
    let h = arch.hidden as f64;
    let routed = routed_copies(arch, class);
    if adapted(&["q_proj", "k_proj", "v_proj"]) {
        *per_token += act * h;
    }
    if adapted(&["o_proj"]) {
        *per_token += o_proj_input(kernel, act, arch.attention_widths(class.attention).2 as f64);
    }
    if adapted(&["gate_proj", "up_proj", "down_proj"]) {
        *per_token += act * h * routed;
    }
}

/// The input o_proj keeps: SDPA's (b, heads, s, d) output and eager's matmul result are transposed
/// into a new tensor; flash returns (b, s, heads, d), which o_proj reads as a view of the saved output.
fn o_proj_input(kernel: AttentionKernel, act: f64, qd: f64) -> f64 {
    match kernel {
        AttentionKernel::Flash => 0.0,
        AttentionKernel::Sdpa | AttentionKernel::Eager => act * qd,
    }
}

/// The final norm before the LM head, kept for backward.
fn final_norm_bytes_per_token(arch: &Architecture, trainable: Trainable, act: f64, run: LayerRun) -> f64 {
    let full = trainable.is_full();
    norm_saved(arch, act, full, full, run)
}

// ---------------------------------------------------------------------------------------------
// The activations line of a training step.

/// Every layer's saved tensors, by class of layer.
pub struct SavedLayers {
    pub classes: Vec<(LayerClass, LayerActivations)>,
}

impl SavedLayers {
    pub fn of(
        arch: &Architecture,
        trainable: Trainable,
        kernel: AttentionKernel,
        act: Dtype,
        tokens: u64,
        run: LayerRun,
    ) -> SavedLayers {
        // A tiled MLP's adapters are recomputed with it, a tile at a time: none of them keeps anything.
        // `!PAGE` repeats `training_activations`' test so that the page's build drops the tiled
        // branches here and in `training_layer` (139 B of the first download).
        let linears = if !PAGE && run.tiled_mlp { arch.linears().outside_mlp() } else { arch.linears() };
        let classes = arch
            .layer_classes()
            .into_iter()
            .map(|c| {
                let mut layer = training_layer(arch, c, trainable, kernel, act, tokens, run);
                let bytes = act.bytes();
                if run.kernels == Kernels::Unsloth {
                    unsloth_adapters_saved(&mut layer.per_token, arch, &linears, c, trainable, kernel, bytes);
                } else {
                    adapters_saved(&mut layer.per_token, arch, &linears, c, trainable, kernel, bytes);
                }
                (c, layer)
            })
            .collect();
        SavedLayers { classes }
    }

    /// All layers' saved bytes for `batch` sequences of `tokens`.
    pub fn bytes(&self, tokens: u64, batch: u64) -> f64 {
        self.classes.iter().map(|(c, l)| c.count as f64 * l.bytes(tokens, batch)).sum()
    }

    /// The class whose layer keeps the most (what checkpointing recomputes at once).
    pub fn largest(&self, tokens: u64, batch: u64) -> Option<&LayerActivations> {
        self.classes.iter().map(|(_, l)| l).max_by(|a, b| a.bytes(tokens, batch).total_cmp(&b.bytes(tokens, batch)))
    }

    /// "48 layers × … B/token" for each class (the formula's parts).
    pub fn parts(&self) -> Arg {
        Arg::List(
            self.classes
                .iter()
                .map(|(c, l)| {
                    msg!(ClassPart, Arg::Int(c.count), layer_class_name(*c).arg(), Arg::Count(l.per_token as u64))
                })
                .collect(),
        )
    }
}

/// "full-attention MoE", "sliding-window dense" …
pub fn layer_class_name(c: LayerClass) -> Msg {
    let kind = match c.attention {
        LayerKind::Full => msg!(KindFull),
        LayerKind::Sliding => msg!(KindSliding),
        LayerKind::Chunked => msg!(KindChunked),
        LayerKind::Linear => msg!(KindLinear),
        LayerKind::None => msg!(KindMlpOnly),
    };
    let mlp = match (c.mlp, c.moe) {
        (false, _) => msg!(ClassNoMlp),
        (true, true) => msg!(ClassMoe),
        (true, false) => msg!(Empty),
    };
    msg!(ClassName, kind.arg(), mlp.arg())
}

/// Activations of a training step. With checkpointing each layer keeps only its input, and one
/// layer is recomputed at a time; the loss's backward ends (and frees the logits) before the last
/// layer is recomputed, so the recomputed layer and the logits' peak never coexist: only the part
/// of the recomputed layer beyond `freed_logits_bytes` (the logits line less any output the loop
/// keeps, which is not freed by then) counts.
/// Also returns what FSDP1's retention of every recomputed layer's input gradient would add when the
/// checkpoint's implementation is not said (`Training::unknown_reentrant`: the range's high end); with
/// `gc=reentrant` (`retains_input_grads`) the line holds it. Last, the bytes Unsloth's offloaded
/// checkpoint keeps in host RAM (`gc=unsloth`).
pub fn training_activations(p: &Plan, t: &Training, freed_logits_bytes: f64) -> (Component, f64, f64) {
    let arch = p.arch;
    let (tokens, batch) = (p.tokens, p.batch);
    // A tiled MLP is billed in the reader worker (`Scenario::billed_on_demand`).
    let run = LayerRun { compiled: t.compiled, kernels: t.kernels, tiled_mlp: !PAGE && t.tiled_mlp };
    let saved = SavedLayers::of(arch, t.saved, p.kernel, p.acts, tokens, run);
    let zero = LayerActivations { per_token: 0.0, per_sequence_quadratic: 0.0 };
    let layer = if side_by_side(arch) {
        // One decoder layer is a linear block and the attention block beside it: their sum.
        let sum = |f: fn(&LayerActivations) -> f64| saved.classes.iter().map(|(_, l)| f(l)).sum();
        LayerActivations { per_token: sum(|l| l.per_token), per_sequence_quadratic: sum(|l| l.per_sequence_quadratic) }
    } else {
        saved.largest(tokens, batch).unwrap_or(&zero).clone()
    };
    let tile = if run.tiled_mlp { Tile::of(p, t, run, &layer) } else { Tile { tokens: 0.0, bytes: 0.0 } };
    let stream = t.saved.stream_bytes(p.acts);
    let step = Step {
        layer_bytes: layer.bytes(tokens, batch),
        final_norm: final_norm_bytes_per_token(arch, t.saved, stream, run) * tokens as f64 * batch as f64,
        quadratic: when(layer.per_sequence_quadratic > 0.0, || {
            msg!(EagerScores, Arg::Factor(layer.per_sequence_quadratic / (tokens as f64).powi(2)))
        }),
        stream,
        dequantized: kept_dequantized_bytes(p, t),
        saved,
        layer,
        tile,
    };
    if t.selective {
        (selective_activations(p, t, step.layer_bytes, freed_logits_bytes, step.final_norm), 0.0, 0.0)
    } else if t.checkpointing {
        checkpointed_activations(p, t, &step, freed_logits_bytes)
    } else {
        (stored_activations(p, t, &step), 0.0, 0.0)
    }
}

/// What a training step's activations are made of, before checkpointing decides what stays.
struct Step {
    saved: SavedLayers,
    /// The layer (of the class) that keeps the most, and its bytes for the step's batch.
    layer: LayerActivations,
    layer_bytes: f64,
    /// The final norm before the LM head.
    final_norm: f64,
    /// Eager attention's s² part of the formula (or nothing).
    quadratic: Arg,
    /// Bytes per element of the residual stream.
    stream: f64,
    /// The largest layer's dequantized GPTQ weights PyTorch keeps for backward.
    dequantized: f64,
    /// A tiled MLP's tile (`tiled_mlp`), recomputed one at a time in backward.
    tile: Tile,
}

/// One tile of a tiled MLP: its tokens — unsloth-zoo's "arctic" split (`tiled_mlp.py`
/// `tiled_forward_arctic_size`: ⌊S / h⌋ tiles of the batch's flattened tokens, at least one, the
/// remainder a tile of its own) — and what the MLP keeps of them while backward recomputes the tile:
/// the untiled layer's MLP tensors (and its adapters') per token, over the tile.
struct Tile {
    tokens: f64,
    bytes: f64,
}

impl Tile {
    fn of(p: &Plan, t: &Training, run: LayerRun, tiled: &LayerActivations) -> Tile {
        let untiled =
            SavedLayers::of(p.arch, t.saved, p.kernel, p.acts, p.tokens, LayerRun { tiled_mlp: false, ..run });
        let whole = untiled.largest(p.tokens, p.batch).map_or(0.0, |l| l.per_token);
        let tiles = (p.tokens / p.arch.hidden.max(1)).max(1);
        let tokens = (p.tokens.saturating_mul(p.batch) / tiles) as f64;
        Tile { tokens, bytes: (whole - tiled.per_token).max(0.0) * tokens }
    }
}

/// Checkpointed: each layer keeps its input, and one layer is recomputed at a time beyond what the
/// logits freed; also what the reentrant retention adds when its implementation is not said, and
/// what an offloaded checkpoint keeps in host RAM.
///
/// Unsloth's offloaded checkpoint (`gc=unsloth`, unsloth-zoo `gradient_checkpointing.py`) copies
/// each layer's input to a pinned host buffer in forward, except the last layer's (`LAST_GC_INDEX`
/// after the first step), and backward reloads them into one staging buffer, a second one when
/// 512 MiB are free (`DOUBLE_BUFFER_HEADROOM`): three layer inputs on the GPU at most.
fn checkpointed_activations(p: &Plan, t: &Training, step: &Step, freed_logits_bytes: f64) -> (Component, f64, f64) {
    let arch = p.arch;
    let (tokens, batch) = (p.tokens, p.batch);
    let layer_input = tokens as f64 * batch as f64 * step.stream * arch.hidden as f64;
    // A checkpoint per decoder layer: a linear block beside its attention block is one.
    let layers = if side_by_side(arch) { arch.layers - arch.layers_of(LayerKind::Linear) } else { arch.layers };
    let every_input = layers as f64 * layer_input;
    let on_gpu = if t.offloaded_inputs { layers.min(OFFLOADED_INPUTS_ON_GPU) } else { layers };
    let inputs = on_gpu as f64 * layer_input;
    let host = if t.offloaded_inputs { layers.saturating_sub(1) as f64 * layer_input } else { 0.0 };
    // With the hook, layer 0's recompute comes with every other layer's input gradient.
    // A recomputed layer's backward also holds the gradients of its widest intermediates: the
    // MLP's product, gate and up (2 × its width beyond the incoming hidden-size gradient).
    // Fused SwiGLU kernels (Liger's, Unsloth's) write the gate's and up's gradients into their saved
    // inputs: only the product's gradient is new.
    // A tiled MLP's backward holds them for one tile, beside the tile's recomputed tensors.
    let width = step.saved.classes.iter().map(|(c, _)| ffn_active(arch, *c)).fold(0.0, f64::max);
    let widths = if t.kernels.fused() { 1.0 } else { 2.0 };
    let all = tokens as f64 * batch as f64;
    let width_tokens = if step.tile.tokens > 0.0 { step.tile.tokens } else { all };
    let transients = (widths * width * width_tokens + arch.hidden as f64 * all) * p.acts.bytes() + step.tile.bytes;
    let layer_bytes = step.layer_bytes + transients + step.dequantized;
    let retention = every_input * layers.saturating_sub(1) as f64 / layers.max(1) as f64;
    let retained = if t.retains_input_grads { retention } else { 0.0 };
    let recompute_excess = (layer_bytes + retained - freed_logits_bytes).max(0.0);
    let open_high = if t.unknown_reentrant {
        (layer_bytes + retention - freed_logits_bytes).max(0.0) - recompute_excess
    } else {
        0.0
    };
    let formula = msg!(
        ActivationsCheckpointed,
        Arg::Int(on_gpu),
        Arg::Count(tokens),
        Arg::Int(batch),
        Arg::Count(arch.hidden),
        Arg::Factor(step.stream),
        Arg::Bytes(inputs),
        Arg::Bytes(step.final_norm),
        Arg::Count(step.layer.per_token as u64),
        step.quadratic.clone(),
        Arg::Bytes(layer_bytes),
        Arg::Bytes(recompute_excess),
        when(retained > 0.0, || msg!(RetainedInputGrads, Arg::Int(layers.saturating_sub(1)), Arg::Bytes(retained))),
        Arg::Bytes(transients),
        when(step.dequantized > 0.0, || msg!(DequantKept, Arg::Bytes(step.dequantized))),
        when(step.tile.tokens > 0.0, || msg!(TiledMlpPart, Arg::Count(step.tile.tokens as u64)))
    );
    let formula = if host > 0.0 { msg!(OffloadedCheckpoints, formula.arg(), Arg::Bytes(host)) } else { formula };
    (line(ComponentId::Activations, inputs + recompute_excess + step.final_norm, "§1", formula), open_high, host)
}

/// Whether each linear block and the attention block after it are one decoder layer (Falcon-H1:
/// `LinearSpec::side_by_side`, the reader worker's key).
fn side_by_side(arch: &Architecture) -> bool {
    !PAGE && arch.linear.is_some_and(|l| l.side_by_side)
}

/// Layer inputs Unsloth's offloaded checkpoint keeps on the GPU: the last layer's and two reload
/// buffers.
const OFFLOADED_INPUTS_ON_GPU: u64 = 3;

/// Without checkpointing: every layer's saved tensors, beside the previous step's 4-bit inputs
/// (bitsandbytes) or every layer's dequantized GPTQ weights — never both.
fn stored_activations(p: &Plan, t: &Training, step: &Step) -> Component {
    let arch = p.arch;
    let (tokens, batch) = (p.tokens, p.batch);
    let stored = step.saved.bytes(tokens, batch);
    let dequantized = step.dequantized * arch.layers as f64;
    let previous = previous_step_inputs(p, t) + dequantized;
    let previous_note = if dequantized > 0.0 {
        msg!(DequantKept, Arg::Bytes(dequantized)).arg()
    } else {
        when(previous > 0.0, || msg!(PreviousInputs, Arg::Bytes(previous)))
    };
    let formula = if step.saved.classes.len() == 1 {
        msg!(
            ActivationsStored,
            Arg::Int(arch.layers),
            Arg::Count(tokens),
            Arg::Int(batch),
            Arg::Count(step.layer.per_token as u64),
            step.quadratic.clone(),
            Arg::Bytes(stored),
            Arg::Bytes(step.final_norm),
            previous_note
        )
    } else {
        msg!(
            ActivationsByClass,
            step.saved.parts(),
            Arg::Count(tokens),
            Arg::Int(batch),
            step.quadratic.clone(),
            Arg::Bytes(stored),
            Arg::Bytes(step.final_norm),
            previous_note
        )
    };
    line(ComponentId::Activations, stored + step.final_norm + previous, "§1", formula)
}

/// Selective checkpointing as torchtitan's per-op policy (`_save_list`, every second matmul
/// recomputed): each layer keeps its input, the outputs of the 1st, 3rd, 5th and 7th matmul (q, v,
/// the MLP's gate and down projections) and the attention kernel's output with its fp32 log-sum-exp;
/// the rest of one layer is recomputed at a time, beyond the logits' peak.
fn selective_activations(
    p: &Plan,
    t: &Training,
    layer_bytes: f64,
    freed_logits_bytes: f64,
    final_norm: f64,
) -> Component {
    let arch = p.arch;
    let h = arch.hidden as f64;
    let act = p.acts.bytes();
    let stream = t.saved.stream_bytes(p.acts);
    let tokens = p.tokens as f64 * p.batch as f64;
    let classes = arch.layer_classes();
    let per_token_of = |c: &LayerClass| {
        let (qd, kvd, _) = arch.attention_widths(c.attention);
        let (qd, kvd) = (qd as f64, kvd as f64);
        stream * h + act * (2.0 * qd + kvd + ffn_active(arch, *c) + h) + 4.0 * arch.heads as f64
    };
    let kept: f64 = classes.iter().map(|c| c.count as f64 * per_token_of(c) * tokens).sum();
    let per_layer = classes.iter().map(per_token_of).fold(0.0, f64::max);
    let rest = (layer_bytes - per_layer * tokens).max(0.0);
    let excess = (rest - freed_logits_bytes).max(0.0);
    let formula = msg!(
        ActivationsSelective,
        Arg::Int(arch.layers),
        Arg::Count(p.tokens),
        Arg::Int(p.batch),
        Arg::Count(per_layer as u64),
        Arg::Bytes(kept),
        Arg::Bytes(final_norm),
        Arg::Bytes(excess)
    );
    line(ComponentId::Activations, kept + final_norm + excess, "§1", formula)
}

/// The largest layer's GPTQ weights as PyTorch dequantizes them (auto-gptq's `qlinear_cuda_old` from 128
/// rows on, GPTQModel's torch kernel): `torch.matmul(x, weight)` saves the fp16 weight, not the
/// packed one, for the input's gradient (fms-acceleration's triton kernel saves the packed ones).
fn kept_dequantized_bytes(p: &Plan, t: &Training) -> f64 {
    if t.keeps_dequantized {
        p.arch.largest_layer_parameters() as f64 * 2.0
    } else {
        0.0
    }
}

/// bitsandbytes before 0.43.2 kept each 4-bit layer's input as a plain `ctx` attribute, which
/// backward does not free: a loop that holds the previous step's output keeps those inputs alive
/// until the next forward returns, beside that forward's own — every frozen linear layer's input
/// (attention and MLP inputs, o_proj's and down_proj's), in the activations' dtype.
fn previous_step_inputs(p: &Plan, t: &Training) -> f64 {
    let Trainable::Lora { frozen_keeps_inputs: true, .. } = t.saved else { return 0.0 };
    // With checkpointing the forward keeps only layer inputs (the 4-bit inputs are the recomputed
    // graph's, gone with it).
    if !t.keeps_output || t.checkpointing {
        return 0.0;
    }
    let h = p.arch.hidden as f64;
    let out = |c: &LayerClass| p.arch.attention_widths(c.attention).2 as f64;
    let per_token: f64 =
        p.arch.layer_classes().iter().map(|c| c.count as f64 * (2.0 * h + out(c) + ffn_active(p.arch, *c))).sum();
    per_token * p.acts.bytes() * p.tokens as f64 * p.batch as f64
}

// ---------------------------------------------------------------------------------------------
// Inference.

/// The transient peak inside one layer during an inference forward pass (nothing is kept for
/// backward): the residual stream and the norm output, plus the larger of the attention working set
/// and the MLP working set (SiLU output, up output and their product exist together). The largest
/// over the model's classes of layers.
/// `repeat_kv`: SDPA repeats K and V to every query head (transformers before 4.54,
/// `inference::repeats_kv`), two more q-sized tensors beside q, k, v and the output.
pub fn inference_layer_peak(
    arch: &Architecture,
    kernel: AttentionKernel,
    act: Dtype,
    (seq, batch): (u64, u64),
    repeat_kv: bool,
) -> f64 {
    let classes = arch.layer_classes();
    let peak = |c: &LayerClass| inference_class_peak(arch, *c, kernel, act, seq, batch, repeat_kv);
    classes.iter().map(peak).fold(0.0, f64::max)
}

fn inference_class_peak(
    arch: &Architecture,
    class: LayerClass,
    kernel: AttentionKernel,
    act: Dtype,
    seq: u64,
    batch: u64,
    repeat_kv: bool,
) -> f64 {
    let act = act.bytes();
    let h = arch.hidden as f64;
    let (qd, kvd, _) = arch.attention_widths(class.attention);
    let (qd, kvd) = (qd as f64, kvd as f64);
    let tokens = seq as f64 * batch as f64;
    // Experts run one after another on their share of the tokens; transformers' Llama-4 runs all of
    // them at once, each over its own copy of every token (`dense_experts`).
    let all = arch.moe.as_ref().filter(|m| class.moe && m.dense_experts).map_or(0, |m| m.experts);
    let ffn_active = match &arch.moe {
        Some(m) if class.moe => (m.expert_ffn * all.max(1) + m.shared_ffn * m.shared) as f64,
        _ => arch.dense_ffn_of(&class) as f64,
    };
    let residual = tokens * (2.0 * act * h + 4.0 * h);
    let mlp = if class.mlp { tokens * act * (3.0 * ffn_active + (all * arch.hidden) as f64) } else { 0.0 };
    let attention = match (class.attention, &arch.linear, kernel) {
        (LayerKind::None, _, _) => 0.0,
        (LayerKind::Linear, Some(lin), _) => {
            tokens * act * (2.0 * lin.conv_dim() as f64 + 2.0 * (lin.v_heads * lin.head_dim) as f64)
        }
        (_, _, AttentionKernel::Eager) => {
            // The masked scores, their fp32 softmax, and its cast back to 16 bits, alive together
            // (transformers' eager_attention_forward; 8 B per score in bf16, measured).
            let s = seq as f64;
            let cast = if act < 4.0 { act } else { 0.0 };
            tokens * act * 3.0 * qd + batch as f64 * arch.heads as f64 * s * s * (act + 4.0 + cast)
        }
        _ if repeat_kv => tokens * act * (4.0 * qd + 2.0 * kvd),
        _ => tokens * act * (2.0 * qd + 2.0 * kvd),
    };
    residual + mlp.max(attention)
}

/// A vision tower that trains (`vision_train`): its blocks keep what a decoder layer of their
/// widths keeps ([`super::architecture::VisionSpec::as_encoder`]: the same per-tensor rules, its
/// adapters' inputs included) over every image's patches, each image attending over its own;
/// under checkpointing (transformers checkpoints the tower's blocks as the language model's) each
/// block keeps its input and one block is recomputed at a time. Replaces the frozen tower's line
/// (`vision::vision_activations`, whose note on the images' tokens stays).
pub fn trained_vision_tower(p: &Plan, t: &Training) -> Option<Component> {
    let (v, input) = (p.arch.vision.as_ref()?, p.vision?);
    let encoder = v.as_encoder();
    let trainable = tower_trainable(p.arch, t.trains);
    let patches = v.patches_per_image(input.image);
    let images = input.images.saturating_mul(p.batch);
    if images == 0 {
        return None;
    }
    // A tiled tower (InternVL, Llama-4) attends within each tile: its tiles are the sequences.
    let span = v.attention_span(patches).max(1);
    let sequences = images.saturating_mul(patches / span);
    let saved = SavedLayers::of(&encoder, t.saved, p.kernel, p.acts, span, LayerRun::NONE);
    let largest = saved.largest(span, sequences);
    let block = largest.map_or(0.0, |l| l.bytes(span, sequences));
    let per_patch = largest.map_or(0.0, |l| l.per_token);
    let all = patches as f64 * images as f64;
    let (bytes, kept) = if t.checkpointing {
        let inputs = encoder.layers as f64 * all * v.dim as f64 * p.acts.bytes();
        let kept = msg!(
            VisionTrainedCheckpointed,
            Arg::Int(encoder.layers),
            Arg::Count(v.dim),
            Arg::Factor(p.acts.bytes()),
            Arg::Bytes(inputs),
            Arg::Count(per_patch as u64),
            Arg::Bytes(block)
        );
        (inputs + block, kept)
    } else {
        let stored = saved.bytes(span, sequences);
        (stored, msg!(VisionTrainedStored, Arg::Int(encoder.layers), Arg::Count(per_patch as u64)))
    };
    let formula = msg!(
        VisionTrained,
        Arg::Count(trainable),
        Arg::Count(patches * images),
        Arg::Int(images),
        Arg::Count(patches),
        kept.arg(),
        Arg::Bytes(bytes)
    );
    Some(line(ComponentId::VisionActivations, bytes, "§3 ④", formula))
}
