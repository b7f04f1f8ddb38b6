//! Activations: the tensors autograd keeps from the forward pass for the backward pass, counted
//! tensor by tensor for a Hugging Face-style decoder block; the logits the loss holds; the frozen
//! vision tower's working set; and the transient peak of an inference forward pass.
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
//! - LoRA: each adapted layer keeps the input of its adapter (its own copy when the fp32 adapter
//!   casts the 16-bit input) and the rank-r intermediate.
//! - QLoRA with bitsandbytes before 0.43.2 (`bnb=legacy`): the frozen 4-bit layers' matmul kept its
//!   input, so every linear input is saved as in full fine-tuning even though no base weight trains.

use super::architecture::{Architecture, LayerClass, LayerKind, LinearShape, LinearSpec, MlpKind, NormKind};
use super::bill::{line, Component, ComponentId};
use super::dtype::Dtype;
use super::msg::{when, Arg, Msg};
use super::plan::{Plan, Training};
use super::scenario::{AttentionKernel, LoraTargets, LossKernel};
use crate::msg;

/// Which weights train, as far as activations care.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Trainable {
    /// Every weight (full fine-tuning).
    All,
    /// Only LoRA adapters on `targets`; `input_copies` when the adapters' dtype differs from the
    /// activations' (fp32 adapters under bf16 autocast), so each adapter keeps its own input copy.
    /// `frozen_keeps_inputs` when the frozen base's matmuls keep their input although no base weight
    /// trains: bitsandbytes before 0.43.2 (`MatMul4Bit` saved `ctx.tensors = (A, B)`; since then
    /// `(None, B)`), where a frozen 16-bit `F.linear` keeps only its weight.
    /// `fp32_stream` when the residual stream and the MLP compute in fp32 (PEFT's k-bit
    /// preparation casts the norms to fp32, and bitsandbytes' 4-bit layers return their input's
    /// dtype); attention still runs in 16 bits under autocast. `dropout` when each adapter drops
    /// its input: its own dropped copy and a 1-byte mask per element.
    Lora {
        targets: LoraTargets,
        rank: u64,
        input_copies: bool,
        frozen_keeps_inputs: bool,
        fp32_stream: bool,
        dropout: bool,
    },
}

impl Trainable {
    fn is_full(self) -> bool {
        matches!(self, Trainable::All)
    }

    /// Every linear layer keeps its input: trainable weights need it for their gradient, quantized
    /// frozen ones (legacy bitsandbytes) keep it anyway.
    fn inputs_kept(self) -> bool {
        self.is_full() || matches!(self, Trainable::Lora { frozen_keeps_inputs: true, .. })
    }

    /// Bytes per element of the residual stream and the MLP's tensors.
    pub fn stream_bytes(self, act: Dtype) -> f64 {
        match self {
            Trainable::Lora { fp32_stream: true, .. } => 4.0,
            _ => act.bytes(),
        }
    }
}

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

/// What a norm keeps. Compiled (`compile=1`), Inductor's min-cut partitioner saves the fused
/// kernel's input and recomputes the fp32 copy and the normalised value in backward.
fn norm_saved(arch: &Architecture, act: f64, weight_trains: bool, next_trains: bool, compiled: bool) -> f64 {
    let h = arch.hidden as f64;
    let out = if next_trains { act * h } else { 0.0 };
    match arch.norm {
        NormKind::RmsNorm if compiled => act * h + out,
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
    compiled: bool,
) -> LayerActivations {
    let mut saved = LayerActivations { per_token: 0.0, per_sequence_quadratic: 0.0 };
    let (full, inputs_kept) = (trainable.is_full(), trainable.inputs_kept());
    let stream = trainable.stream_bytes(act);
    saved.per_token += norm_saved(arch, stream, full, inputs_kept, compiled);
    match (class.attention, &arch.linear) {
        (LayerKind::Linear, Some(lin)) => saved.per_token += linear_attention_saved(lin, act.bytes(), inputs_kept),
        _ => attention_saved(&mut saved, arch, trainable, kernel, act.bytes(), seq),
    }
    // Post-norms (Gemma-2's post-attention and post-MLP norms): their output joins the residual
    // stream, which keeps nothing.
    for _ in 2..arch.norms_per_layer.min(8) {
        saved.per_token += norm_saved(arch, stream, full, false, compiled);
    }
    mlp_saved(&mut saved, arch, class, trainable, stream, compiled);
    saved
}

/// Softmax attention: what the kernel keeps for the input gradients. Latent attention (MLA) also
/// keeps its latents and their norms' fp32 copies; q/k norms keep fp32 copies of q and k; an
/// output gate keeps its input and its sigmoid.
fn attention_saved(
    saved: &mut LayerActivations,
    arch: &Architecture,
    trainable: Trainable,
    kernel: AttentionKernel,
    act: f64,
    seq: u64,
) {
    let qd = arch.q_dim() as f64;
    let kvd = arch.kv_dim() as f64;
    let out = arch.attn_out_dim() as f64;
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
fn linear_attention_saved(lin: &LinearSpec, act: f64, inputs_kept: bool) -> f64 {
    let (conv, value, nv) = (lin.conv_dim() as f64, (lin.v_heads * lin.head_dim) as f64, lin.v_heads as f64);
    let states = 4.0 * lin.state_elements() as f64 / 64.0;
    act * (2.0 * conv + 3.0 * value + 2.0 * nv) + 4.0 * 2.0 * nv + states + if inputs_kept { act * value } else { 0.0 }
}

/// Intermediate size a token runs through in a layer of `class`: its dense MLP, or its active
/// routed experts plus the shared ones.
fn ffn_active(arch: &Architecture, class: LayerClass) -> f64 {
    match &arch.moe {
        Some(m) if class.moe => (m.expert_ffn * m.active + m.shared_ffn * m.shared) as f64,
        _ => arch.dense_ffn() as f64,
    }
}

/// MLP block: its norm, the router, the gated or plain MLP's saved tensors.
fn mlp_saved(
    saved: &mut LayerActivations,
    arch: &Architecture,
    class: LayerClass,
    trainable: Trainable,
    act: f64,
    compiled: bool,
) {
    let h = arch.hidden as f64;
    let (full, inputs_kept) = (trainable.is_full(), trainable.inputs_kept());
    let moe = arch.moe.as_ref().filter(|_| class.moe);
    let routed = moe.map_or(1.0, |m| m.active as f64);
    saved.per_token += norm_saved(arch, act, full, inputs_kept, compiled);
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
            // Compiled, the SiLU output is recomputed from the gate output.
            MlpKind::Glu if compiled => 2.0 + kept,
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
    let routed = arch.moe.as_ref().filter(|_| class.moe).map_or(1.0, |m| m.active as f64);
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
                if !seen_attn_in =>
            {
                seen_attn_in = true;
                act * h
            }
            "q_b_proj" | "kv_b_proj" | "out_proj" => act * l.d_in as f64,
            "o_proj" => o_proj_input(kernel, act, arch.attn_out_dim() as f64),
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

/// The input o_proj keeps: SDPA's (b, heads, s, d) output and eager's matmul result are transposed
/// into a new tensor; flash returns (b, s, heads, d), which o_proj reads as a view of the saved output.
fn o_proj_input(kernel: AttentionKernel, act: f64, qd: f64) -> f64 {
    match kernel {
        AttentionKernel::Flash => 0.0,
        AttentionKernel::Sdpa | AttentionKernel::Eager => act * qd,
    }
}

/// The final norm before the LM head, kept for backward.
fn final_norm_bytes_per_token(arch: &Architecture, trainable: Trainable, act: f64, compiled: bool) -> f64 {
    let full = trainable.is_full();
    norm_saved(arch, act, full, full, compiled)
}

// ---------------------------------------------------------------------------------------------
// The loss's logits.

/// The dtype's bytes the model returns its logits in: fp32 from transformers before 4.46, which
/// upcast inside the model (`loss=hf_shift`); else the activations'.
fn returned_logit_bytes(loss: LossKernel, act: Dtype) -> f64 {
    if loss == LossKernel::HfShift {
        4.0
    } else {
        act.bytes()
    }
}

/// Bytes per logit (batch × tokens × vocab) at the loss's peak, and what they are. Compiled with
/// the model (`compile=1`: transformers computes the loss inside its forward; torchtitan and
/// torchtune compile their loss function), Inductor fuses the fp32 upcast, the log-softmax and its
/// backward: the graph keeps the logits it was given and writes one gradient of them.
fn bytes_per_logit(loss: LossKernel, act: Dtype, compiled: bool, autocast: bool) -> (f64, Msg) {
    let act_b = act.bytes();
    let upcast = if act.is_half() { 4.0 } else { 0.0 };
    if compiled && matches!(loss, LossKernel::Hf | LossKernel::HfShift) {
        let returned = returned_logit_bytes(loss, act);
        return (2.0 * returned, msg!(LossCompiled, Arg::Factor(returned)));
    }
    match loss {
        // Backward of log-softmax: its saved fp32 output, the incoming gradient and the gradient
        // it returns (12 B); the 16-bit logits are freed by then.
        LossKernel::Hf => ((4.0 * 3.0_f64).max(act_b + upcast + 4.0), msg!(LossHf)),
        // Forward: 16-bit logits + fp32 upcast + shifted fp32 copy + fp32 log-probabilities.
        LossKernel::HfShift => (act_b + upcast + 4.0 + 4.0, msg!(LossHfShift)),
        // The 16-bit logits stay for the chunks' backward; each chunk's fp32 log-probabilities.
        LossKernel::Chunked => (act_b + 4.0, msg!(LossChunked)),
        LossKernel::Fused => (0.0, msg!(LossFused)),
        // Forward: 16-bit logits + their shifted copy + 16-bit log-probabilities; backward: the saved
        // log-probabilities, the incoming gradient and the one it returns, as many. Autocast runs
        // `cross_entropy` in fp32 (its fp32 op list): the 16-bit logits and their shifted copy, the
        // fp32 cast and fp32 log-probabilities, 2 × 2 + 4 + 4 B (Accelerate's fp32 copy of the
        // returned logits comes after the copy and the cast are freed; backward holds 3 × 4 B).
        LossKernel::Half if autocast => (2.0 * act_b + 8.0, msg!(LossHalfConverted)),
        LossKernel::Half => (3.0 * act_b, msg!(LossHalf)),
    }
}

/// Of those, what autograd saves for backward: log-softmax's fp32 output (none when fused; the
/// logits themselves when compiled).
fn saved_bytes_per_logit(loss: LossKernel, act: Dtype, compiled: bool, autocast: bool) -> f64 {
    match loss {
        LossKernel::Fused => 0.0,
        LossKernel::Hf | LossKernel::HfShift if compiled => returned_logit_bytes(loss, act),
        LossKernel::Half if !autocast => act.bytes(),
        _ => 4.0,
    }
}

/// Bytes per logit that final-logit soft-capping (Gemma-2: tanh) adds: its saved tanh output,
/// alive through the loss (a fused kernel caps inside).
fn softcap_bytes_per_logit(arch: &Architecture, loss: LossKernel, act: Dtype) -> f64 {
    match loss {
        _ if !arch.softcapping => 0.0,
        LossKernel::Fused => 0.0,
        _ => act.bytes(),
    }
}

/// A fused linear-cross-entropy kernel (Liger's; Cut Cross-Entropy keeps less) never holds all
/// the logits: one chunk of tokens × vocab at a time — the chunk is the next power of two of
/// tokens ÷ ⌈vocab / hidden⌉, so that it matches the hidden states' size — in the activations' dtype
/// plus its fp32 softmax, the input gradient it computes in the forward pass (tokens × hidden), and
/// an fp32 loss per token. Returns (bytes, chunk tokens).
fn fused_loss_bytes(p: &Plan) -> (f64, u64) {
    let tokens = p.batch.saturating_mul(p.tokens).max(1);
    let (vocab, hidden) = (p.arch.vocab.max(1), p.arch.hidden.max(1));
    let inc = vocab.div_ceil(hidden).max(1);
    let chunk = tokens.div_ceil(inc).checked_next_power_of_two().unwrap_or(tokens).min(tokens);
    let act = p.acts.bytes();
    let bytes = chunk as f64 * vocab as f64 * (act + 4.0) + tokens as f64 * (hidden as f64 * act + 4.0);
    (bytes, chunk)
}

/// The logits a loop that keeps the model's output holds through backward: one copy in the dtype
/// the model returns them (fp32 from transformers before 4.46, which upcast inside the model:
/// `loss=hf_shift`; else the activations'); none from a fused loss, which returns no logits.
pub fn held_output_bytes(p: &Plan, t: &Training) -> f64 {
    if !t.keeps_output || t.loss == LossKernel::Fused {
        return 0.0;
    }
    p.batch as f64 * p.tokens as f64 * p.arch.vocab as f64 * returned_logit_bytes(t.loss, p.acts)
}

/// The logits line of a training step, and the part of it autograd saves (what a saved-tensor
/// hook sees).
pub fn training_logits(p: &Plan, t: &Training) -> (Component, f64) {
    let (loss_bytes, what) = bytes_per_logit(t.loss, p.acts, t.loss_compiled, t.autocast);
    let softcap = softcap_bytes_per_logit(p.arch, t.loss, p.acts);
    let per_logit = loss_bytes + softcap;
    let count = p.batch as f64 * p.tokens as f64 * p.arch.vocab as f64;
    let saved = count * (saved_bytes_per_logit(t.loss, p.acts, t.loss_compiled, t.autocast) + softcap);
    // PEFT's k-bit recipe leaves the LM head in fp32; autocast computes it from a bf16 copy of the
    // weight, which its backward keeps until the loss's gradient has passed.
    let head_params = if t.fp32_head { p.arch.vocab.saturating_mul(p.arch.hidden) } else { 0 };
    let head_copy = head_params as f64 * 2.0;
    let held = held_output_bytes(p, t);
    let head_note = when(head_copy > 0.0, || msg!(HeadCopy, Arg::Count(head_params), Arg::Bytes(head_copy)));
    let held_note = || when(held > 0.0, || msg!(HeldOutput, Arg::Bytes(held)));
    if t.loss == LossKernel::Fused {
        let (bytes, chunk) = fused_loss_bytes(p);
        let formula = msg!(
            LogitsFused,
            Arg::Count(chunk),
            Arg::Count(p.arch.vocab),
            Arg::Factor(p.acts.bytes() + 4.0),
            Arg::Count(p.batch * p.tokens),
            Arg::Count(p.arch.hidden),
            Arg::Factor(p.acts.bytes()),
            Arg::Bytes(bytes),
            head_note,
            held_note()
        );
        return (line(ComponentId::Logits, bytes + head_copy + held, "§1", formula), 0.0);
    }
    let formula = msg!(
        Logits,
        Arg::Int(p.batch),
        Arg::Count(p.tokens),
        Arg::Count(p.arch.vocab),
        Arg::Factor(per_logit),
        Arg::Code(t.loss.id()),
        what.arg(),
        when(softcap > 0.0, || msg!(Softcap, Arg::Factor(softcap))),
        head_note,
        held_note()
    );
    (line(ComponentId::Logits, count * per_logit + head_copy + held, "§1", formula), saved)
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
        compiled: bool,
    ) -> SavedLayers {
        let linears = arch.linears();
        let classes = arch
            .layer_classes()
            .into_iter()
            .map(|c| {
                let mut layer = training_layer(arch, c, trainable, kernel, act, tokens, compiled);
                adapters_saved(&mut layer.per_token, arch, &linears, c, trainable, kernel, act.bytes());
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
    };
    msg!(ClassName, kind.arg(), if c.moe { msg!(ClassMoe) } else { msg!(Empty) }.arg())
}

/// Activations of a training step. With checkpointing each layer keeps only its input, and one
/// layer is recomputed at a time; the loss's backward ends (and frees the logits) before the last
/// layer is recomputed, so the recomputed layer and the logits' peak never coexist: only the part
/// of the recomputed layer beyond `freed_logits_bytes` (the logits line less any output the loop
/// keeps, which is not freed by then) counts.
/// Also returns what FSDP1's retention of every recomputed layer's input gradient would add when the
/// checkpoint's implementation is not said (`Training::unknown_reentrant`: the range's high end); with
/// `gc=reentrant` (`retains_input_grads`) the line holds it.
pub fn training_activations(p: &Plan, t: &Training, freed_logits_bytes: f64) -> (Component, f64) {
    let arch = p.arch;
    let (tokens, batch) = (p.tokens, p.batch);
    let saved = SavedLayers::of(arch, t.saved, p.kernel, p.acts, tokens, t.compiled);
    let uniform = saved.classes.len() == 1;
    let zero = LayerActivations { per_token: 0.0, per_sequence_quadratic: 0.0 };
    let layer = saved.largest(tokens, batch).unwrap_or(&zero);
    let layer_bytes = layer.bytes(tokens, batch);
    let stream = t.saved.stream_bytes(p.acts);
    let final_norm = final_norm_bytes_per_token(arch, t.saved, stream, t.compiled) * tokens as f64 * batch as f64;
    let quadratic = when(layer.per_sequence_quadratic > 0.0, || {
        msg!(EagerScores, Arg::Factor(layer.per_sequence_quadratic / (tokens as f64).powi(2)))
    });
    if t.selective {
        return (selective_activations(p, t, layer_bytes, freed_logits_bytes, final_norm), 0.0);
    }
    let dequantized = kept_dequantized_bytes(p, t);
    if t.checkpointing {
        let inputs = arch.layers as f64 * tokens as f64 * batch as f64 * stream * arch.hidden as f64;
        // With the hook, layer 0's recompute comes with every other layer's input gradient.
        // A recomputed layer's backward also holds the gradients of its widest intermediates: the
        // MLP's product, gate and up (2 × its width beyond the incoming hidden-size gradient).
        let width = saved.classes.iter().map(|(c, _)| ffn_active(arch, *c)).fold(0.0, f64::max);
        let transients = (2.0 * width + arch.hidden as f64) * p.acts.bytes() * tokens as f64 * batch as f64;
        let layer_bytes = layer_bytes + transients + dequantized;
        let retention = inputs * arch.layers.saturating_sub(1) as f64 / arch.layers.max(1) as f64;
        let retained = if t.retains_input_grads { retention } else { 0.0 };
        let recompute_excess = (layer_bytes + retained - freed_logits_bytes).max(0.0);
        let open_high = if t.unknown_reentrant {
            (layer_bytes + retention - freed_logits_bytes).max(0.0) - recompute_excess
        } else {
            0.0
        };
        let formula = msg!(
            ActivationsCheckpointed,
            Arg::Int(arch.layers),
            Arg::Count(tokens),
            Arg::Int(batch),
            Arg::Count(arch.hidden),
            Arg::Factor(stream),
            Arg::Bytes(inputs),
            Arg::Bytes(final_norm),
            Arg::Count(layer.per_token as u64),
            quadratic,
            Arg::Bytes(layer_bytes),
            Arg::Bytes(recompute_excess),
            when(retained > 0.0, || msg!(
                RetainedInputGrads,
                Arg::Int(arch.layers.saturating_sub(1)),
                Arg::Bytes(retained)
            )),
            Arg::Bytes(transients),
            when(dequantized > 0.0, || msg!(DequantKept, Arg::Bytes(dequantized)))
        );
        (line(ComponentId::Activations, inputs + recompute_excess + final_norm, "§1", formula), open_high)
    } else {
        let stored = saved.bytes(tokens, batch);
        // Beside the saved activations: the previous step's 4-bit inputs (bitsandbytes) or every
        // layer's dequantized GPTQ weights; never both.
        let dequantized = dequantized * arch.layers as f64;
        let previous = previous_step_inputs(p, t) + dequantized;
        let previous_note = if dequantized > 0.0 {
            msg!(DequantKept, Arg::Bytes(dequantized)).arg()
        } else {
            when(previous > 0.0, || msg!(PreviousInputs, Arg::Bytes(previous)))
        };
        let formula = if uniform {
            msg!(
                ActivationsStored,
                Arg::Int(arch.layers),
                Arg::Count(tokens),
                Arg::Int(batch),
                Arg::Count(layer.per_token as u64),
                quadratic,
                Arg::Bytes(stored),
                Arg::Bytes(final_norm),
                previous_note
            )
        } else {
            msg!(
                ActivationsByClass,
                saved.parts(),
                Arg::Count(tokens),
                Arg::Int(batch),
                quadratic,
                Arg::Bytes(stored),
                Arg::Bytes(final_norm),
                previous_note
            )
        };
        (line(ComponentId::Activations, stored + final_norm + previous, "§1", formula), 0.0)
    }
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
    let (h, qd, kvd) = (arch.hidden as f64, arch.q_dim() as f64, arch.kv_dim() as f64);
    let act = p.acts.bytes();
    let stream = t.saved.stream_bytes(p.acts);
    let tokens = p.tokens as f64 * p.batch as f64;
    let classes = arch.layer_classes();
    let per_token_of =
        |c: &LayerClass| stream * h + act * (2.0 * qd + kvd + ffn_active(arch, *c) + h) + 4.0 * arch.heads as f64;
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
    let (h, out) = (p.arch.hidden as f64, p.arch.attn_out_dim() as f64);
    let per_token: f64 =
        p.arch.layer_classes().iter().map(|c| c.count as f64 * (2.0 * h + out + ffn_active(p.arch, *c))).sum();
    per_token * p.acts.bytes() * p.tokens as f64 * p.batch as f64
}

// ---------------------------------------------------------------------------------------------
// Inference.

/// The transient peak inside one layer during an inference forward pass (nothing is kept for
/// backward): the residual stream and the norm output, plus the larger of the attention working set
/// and the MLP working set (SiLU output, up output and their product exist together). The largest
/// over the model's classes of layers.
pub fn inference_layer_peak(arch: &Architecture, kernel: AttentionKernel, act: Dtype, seq: u64, batch: u64) -> f64 {
    let classes = arch.layer_classes();
    classes.iter().map(|c| inference_class_peak(arch, *c, kernel, act, seq, batch)).fold(0.0, f64::max)
}

fn inference_class_peak(
    arch: &Architecture,
    class: LayerClass,
    kernel: AttentionKernel,
    act: Dtype,
    seq: u64,
    batch: u64,
) -> f64 {
    let act = act.bytes();
    let h = arch.hidden as f64;
    let qd = arch.q_dim() as f64;
    let kvd = arch.kv_dim() as f64;
    let tokens = seq as f64 * batch as f64;
    let ffn_active = match &arch.moe {
        // Experts run one after another on their share of the tokens.
        Some(m) if class.moe => (m.expert_ffn + m.shared_ffn * m.shared) as f64,
        _ => arch.dense_ffn() as f64,
    };
    let residual = tokens * (2.0 * act * h + 4.0 * h);
    let mlp = tokens * act * 3.0 * ffn_active;
    let attention = match (class.attention, &arch.linear, kernel) {
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
        _ => tokens * act * (2.0 * qd + 2.0 * kvd),
    };
    residual + mlp.max(attention)
}

// ---------------------------------------------------------------------------------------------
// The vision tower.

/// The vision tower runs frozen: its forward pass keeps nothing, but one block's working set over
/// every patch of the batch is alive at a time. Eager attention adds the patches² score matrix and
/// mask (Qwen2-VL attends over all patches of the batch with a block-diagonal mask).
fn vision_block_peak(arch: &Architecture, kernel: AttentionKernel, act: f64, patches: u64) -> f64 {
    let Some(v) = &arch.vision else { return 0.0 };
    let d = v.dim as f64;
    let p = patches as f64;
    let residual = p * act * 2.0 * d;
    let mlp = p * act * 2.0 * v.mlp as f64;
    let attention = match kernel {
        AttentionKernel::Eager => p * act * 4.0 * d + v.heads as f64 * p * p * (act + 4.0) + p * p * act,
        _ => p * act * 4.0 * d,
    };
    residual + mlp.max(attention)
}

/// The vision tower's line and the note on how many tokens the images become; `None` without
/// images or a tower.
pub fn vision_activations(p: &Plan) -> Option<(Component, Msg)> {
    let (v, input) = (p.arch.vision.as_ref()?, p.vision?);
    let per_image = v.tokens_per_image(input.image_px);
    let patches = input.images.saturating_mul(v.patches_per_image(input.image_px)).saturating_mul(p.batch);
    let note = msg!(
        NoteVisionTokens,
        Arg::Int(input.images),
        Arg::Int(input.image_px),
        Arg::Int(input.images),
        Arg::Int(input.image_px),
        Arg::Count(p.tokens - p.text_tokens),
        Arg::Count(p.text_tokens),
        Arg::Count(p.tokens)
    );
    let bytes = vision_block_peak(p.arch, p.kernel, p.acts.bytes(), patches);
    let formula = msg!(
        VisionActivations,
        Arg::Count(patches),
        Arg::Count(per_image * v.merge * v.merge),
        Arg::Count(per_image),
        Arg::Int(v.merge * v.merge),
        Arg::Bytes(bytes)
    );
    Some((line(ComponentId::VisionActivations, bytes, "§3 ④", formula), note))
}
