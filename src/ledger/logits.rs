//! The logits of a training step: what the loss holds at its peak per logit (batch × tokens ×
//! vocabulary), by loss implementation — Hugging Face's fp32 upcast and log-softmax, the older
//! shifted copy, a chunked or fused loss, a model's own 16-bit cross-entropy — and what autograd
//! saves of it; the output a hand-written loop keeps through backward; the bf16 copy autocast
//! makes of an fp32 LM head.

use super::architecture::Architecture;
use super::bill::{line, Component, ComponentId};
use super::dtype::Dtype;
use super::framework::FusedChunks;
use super::msg::{when, Arg, Msg};
use super::plan::{Base, Plan, Training};
use super::scenario::{LossKernel, Method};
use crate::msg;

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
pub fn bytes_per_logit(loss: LossKernel, act: Dtype, compiled: bool, autocast: bool) -> (f64, Msg) {
    let act_b = act.bytes();
    let upcast = if act.is_half() { 4.0 } else { 0.0 };
    if compiled && matches!(loss, LossKernel::Hf | LossKernel::HfShift) {
        let returned = returned_logit_bytes(loss, act);
        return (2.0 * returned, msg!(LossCompiled, Arg::Factor(returned)));
    }
    // A compiled chunked loss (torchtune's `training.compile_loss` of CEWithChunkedOutputLoss) fuses
    // each chunk's upcast and log-softmax: the 16-bit logits stay, and one chunk's gradient of the
    // eight at a time.
    if compiled && loss == LossKernel::Chunked {
        return (act_b * (1.0 + 1.0 / CHUNKS), msg!(LossChunkedCompiled, Arg::Factor(act_b)));
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
        // TRL's selective_log_softmax. Under the Trainer's mixed precision Accelerate wraps the
        // model's forward in autocast and converts its outputs to fp32 (`convert_outputs_to_fp32`):
        // fp32 logits take the logsumexp path, which keeps them for backward, where the gather's
        // gradient and the rows' stacked gradient (each a full fp32 copy) meet their sum: 16 B,
        // counted tensor by tensor on the CPU (tools/measure_loss.py). 16-bit logits (DeepSpeed, or
        // no mixed precision) take a loop over the sequences, each row's log-softmax in their dtype,
        // kept by autograd: 2 × 2 B.
        LossKernel::Selective if autocast || act == Dtype::Fp32 => (16.0, msg!(LossSelectiveFp32)),
        LossKernel::Selective => (2.0 * act_b, msg!(LossSelective)),
        // The logits themselves: the kernel saves them (and a per-token fp32 log-sum-exp) and its
        // backward stores the gradient into them (`tl.store(logits_ptr + …)`).
        LossKernel::Inplace => (act_b, msg!(LossInplace)),
    }
}

/// torchtune's `CEWithChunkedOutputLoss(num_output_chunks=8)`.
const CHUNKS: f64 = 8.0;

/// Of those, what autograd saves for backward: log-softmax's fp32 output (none when fused; the
/// logits themselves when compiled).
fn saved_bytes_per_logit(loss: LossKernel, act: Dtype, compiled: bool, autocast: bool) -> f64 {
    match loss {
        LossKernel::Fused => 0.0,
        LossKernel::Hf | LossKernel::HfShift if compiled => returned_logit_bytes(loss, act),
        LossKernel::Chunked if compiled => act.bytes(),
        LossKernel::Half if !autocast => act.bytes(),
        LossKernel::Selective if autocast || act == Dtype::Fp32 => 4.0,
        LossKernel::Selective | LossKernel::Inplace => act.bytes(),
        _ => 4.0,
    }
}

/// Bytes per logit that final-logit soft-capping (Gemma-2: tanh) adds: its saved tanh output,
/// alive through the loss (a fused kernel caps inside, as Unsloth's cross-entropy kernel does:
/// `DO_SOFTCAPPING` in kernels/cross_entropy_loss.py).
fn softcap_bytes_per_logit(arch: &Architecture, loss: LossKernel, act: Dtype) -> f64 {
    match loss {
        _ if !arch.softcapping => 0.0,
        LossKernel::Fused | LossKernel::Inplace => 0.0,
        _ => act.bytes(),
    }
}

/// A fused linear-cross-entropy kernel (Liger's; Cut Cross-Entropy keeps less) never holds all
/// the logits: one chunk of tokens × vocab at a time — the chunk is the next power of two of
/// tokens ÷ ⌈vocab / hidden⌉, so that it matches the hidden states' size — in the activations' dtype
/// plus its fp32 softmax, the input gradient it computes in the forward pass (tokens × hidden), and
/// an fp32 loss per token. Returns the bytes and the logits line's text, `notes` at its end.
fn fused_loss_bytes(p: &Plan, t: &Training, notes: [Arg; 2]) -> (f64, Msg) {
    let tokens = p.batch.saturating_mul(p.logit_tokens).max(1);
    let chunks = match t.fused_chunks {
        FusedChunks::Fixed => None,
        sized => Some(unsloth_chunks(p, t, tokens, sized)),
    };
    fused_loss(tokens, p.arch.vocab, p.arch.hidden, p.acts.bytes(), chunks, notes)
}

/// [`fused_loss_bytes`] for `tokens` over a `vocab` (a tensor-parallel slice of it) and `hidden`,
/// in `chunks` (`None`: Liger's fixed chunk); a grid's stage bills it too.
pub fn fused_loss(tokens: u64, vocab: u64, hidden: u64, act: f64, chunks: Option<u64>, notes: [Arg; 2]) -> (f64, Msg) {
    let (tokens, vocab, hidden) = (tokens.max(1), vocab.max(1), hidden.max(1));
    let chunk = match chunks {
        None => tokens.div_ceil(vocab.div_ceil(hidden).max(1)).checked_next_power_of_two().unwrap_or(tokens),
        Some(n) => tokens.div_ceil(n.max(1)),
    }
    .min(tokens);
    let bytes = chunk as f64 * vocab as f64 * (act + 4.0) + tokens as f64 * (hidden as f64 * act + 4.0);
    let [first, second] = notes;
    let formula = msg!(
        LogitsFused,
        Arg::Count(chunk),
        Arg::Count(vocab),
        Arg::Factor(act + 4.0),
        Arg::Count(tokens),
        Arg::Count(hidden),
        Arg::Factor(act),
        Arg::Bytes(bytes),
        first,
        second
    );
    (bytes, formula)
}

/// Liger's fused linear cross-entropy computes the LM head's weight gradient in the forward pass
/// when the head trains (liger-kernel `ops/fused_linear_cross_entropy.py`
/// `fused_linear_cross_entropy_forward`: `grad_weight = torch.zeros_like(weight)`, accumulated chunk
/// by chunk and saved for the backward): a full fine-tune holds it from the loss to the head's
/// backward, vocab (this GPU's slice of it) × hidden in the dtype of the weight the loss is given
/// (`weight_bytes`). Returns
/// its bytes (0 when the head is frozen or the kernel is not Liger's) and the text.
pub fn liger_head_gradient(vocab: u64, hidden: u64, head_trains: bool, liger: bool, weight_bytes: f64) -> (f64, Arg) {
    let on = head_trains && liger;
    let params = if on { vocab.saturating_mul(hidden) } else { 0 };
    let text = when(on, || msg!(LigerHeadGradient, Arg::Count(params), Arg::Factor(weight_bytes)));
    (params as f64 * weight_bytes, text)
}

/// How many chunks Unsloth's fused loss splits `tokens` into: the fp32 logits (tokens × vocab × 4 B)
/// over a target of half the memory free at its first call — the card less the weights (the CUDA
/// context, adapters and any master copy left out: no gradients or states yet) — rounded to a
/// multiple of 4 (one chunk when that rounds to none); from 2026.7.1 the target is at most 4 GiB
/// and the count rounds up (unsloth-zoo `get_chunk_size`).
fn unsloth_chunks(p: &Plan, t: &Training, tokens: u64, sized: FusedChunks) -> u64 {
    let capped = sized == FusedChunks::HalfFreeCapped;
    let resident = match t.base {
        Base::Frozen(_) => t.base_weights.as_ref().map_or(0.0, |w| w.bytes),
        Base::Trained(dtype) => p.parameters as f64 * dtype.bytes(),
    };
    let free = p.gpu.bytes as f64 - resident;
    let target = (free / 2.0).min(if capped { 4.0 * (1u64 << 30) as f64 } else { f64::MAX });
    // A quarter of the fp32 logits over the target (`exact / 4`): one chunk when they fit it, else a
    // multiple of 4. A card with nothing free gives one chunk, or one token per chunk where the target
    // is zero (Unsloth stops there): never NaN, the tokens and vocabulary being at least 1.
    let quarters = tokens as f64 * p.arch.vocab as f64 / target;
    (if capped && quarters > 0.25 { quarters.ceil() } else { quarters.round() } * 4.0).max(1.0) as u64
}

/// The logits a loop that keeps the model's output holds through backward: one copy in the dtype
/// the model returns them (fp32 from transformers before 4.46, which upcast inside the model:
/// `loss=hf_shift`; else the activations'); none from a fused loss, which returns no logits.
pub fn held_output_bytes(p: &Plan, t: &Training) -> f64 {
    if !t.keeps_output || t.loss == LossKernel::Fused {
        return 0.0;
    }
    p.batch as f64 * p.logit_tokens as f64 * p.arch.vocab as f64 * returned_logit_bytes(t.loss, p.acts)
}

/// The logits line of a training step, and the part of it autograd saves (what a saved-tensor
/// hook sees).
pub fn training_logits(p: &Plan, t: &Training) -> (Component, f64) {
    // Unsloth's 2024 forward returns the 16-bit logits its kernel keeps, and under the Trainer's
    // mixed precision Accelerate converts the returned outputs to fp32 at the forward's end
    // (`convert_outputs_to_fp32`, accelerate 0.30 accelerator.py:1356-1365, operations.py:768-789):
    // both alive until `compute_loss` returns (docs/research/frameworks/unsloth-2024-step.md).
    let (loss_bytes, what) = if t.loss == LossKernel::Inplace && t.autocast {
        (p.acts.bytes() + 4.0, msg!(LossInplaceCast))
    } else {
        bytes_per_logit(t.loss, p.acts, t.loss_compiled, t.autocast)
    };
    let softcap = softcap_bytes_per_logit(p.arch, t.loss, p.acts);
    let per_logit = loss_bytes + softcap;
    let count = p.batch as f64 * p.logit_tokens as f64 * p.arch.vocab as f64;
    let saved = count * (saved_bytes_per_logit(t.loss, p.acts, t.loss_compiled, t.autocast) + softcap);
    // PEFT's k-bit recipe leaves the LM head in fp32; autocast computes it from a bf16 copy of the
    // weight, which its backward keeps until the loss's gradient has passed.
    let head_params = if t.fp32_head { p.arch.vocab.saturating_mul(p.arch.hidden) } else { 0 };
    let head_copy = head_params as f64 * 2.0;
    let held = held_output_bytes(p, t);
    let head_note = when(head_copy > 0.0, || msg!(HeadCopy, Arg::Count(head_params), Arg::Bytes(head_copy)));
    let held_note = || when(held > 0.0, || msg!(HeldOutput, Arg::Bytes(held)));
    if t.loss == LossKernel::Fused {
        // Under ZeRO-3 / FSDP the loss is given the gathered 16-bit weight; else the trained weight
        // as the bill holds it (mixed precision's bf16 working copy, fp32 in fp32 training).
        let weight_bytes = match t.base {
            Base::Trained(d) if t.shard.zero < 3 => d.bytes(),
            _ => p.acts.bytes(),
        };
        let liger = t.kernels == super::scenario::Kernels::Liger;
        let (head_grad, head_grad_note) =
            liger_head_gradient(p.arch.vocab, p.arch.hidden, t.method == Method::Full, liger, weight_bytes);
        let (bytes, formula) = fused_loss_bytes(p, t, [head_note, head_grad_note]);
        // A fused loss returns no logits to hold (`held_output_bytes`).
        return (line(ComponentId::Logits, bytes + head_copy + head_grad, "§1", formula), 0.0);
    }
    let formula = msg!(
        Logits,
        Arg::Int(p.batch),
        Arg::Count(p.logit_tokens),
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
