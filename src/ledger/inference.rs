//! The lines of an inference forward pass (Hugging Face `generate()`): the served weights, the KV
//! cache, the prefill's transient peak, the last position's logits, and bitsandbytes' dequantization
//! buffer. Tensor parallelism divides weights, KV heads and the prefill peak over the GPUs.

use super::activations::{inference_layer_peak, layer_class_name};
use super::architecture::{LayerClass, LayerKind};
use super::bill::{line, Component, ComponentId};
use super::msg::{when, Arg, Msg};
use super::plan::{Inference, Plan};
use super::storage::StorageFormat;
use super::weights::stored_weights;
use crate::msg;

fn tensor_parallel(i: &Inference) -> Arg {
    when(i.tp > 1, || msg!(TensorParallel, Arg::Int(i.tp)))
}

pub fn weights(p: &Plan, i: &Inference) -> Component {
    let w = stored_weights(p.arch, i.weights);
    line(ComponentId::Weights, w.bytes / i.tp as f64, "§2", msg!(ServedWeights, w.formula.arg(), tensor_parallel(i)))
}

/// KV cache: 2 (K and V) · layers · kv_heads · head_dim · tokens · batch · bytes. With tensor
/// parallelism each GPU holds its share of the KV heads (replicated when GPUs > KV heads).
/// Sliding-window and chunked layers keep only their window or chunk (as Hugging Face's cache
/// does), latent attention caches one latent per token, linear-attention layers a fixed state.
pub fn kv_cache(p: &Plan, i: &Inference) -> Component {
    let arch = p.arch;
    let kv_heads_here = arch.kv_heads.div_ceil(i.tp).max(1);
    if arch.layer_pattern.is_full() && arch.mla.is_none() && arch.linear.is_none() {
        return uniform_kv_cache(p, i, kv_heads_here);
    }
    let tokens = p.tokens.saturating_add(i.generated);
    let bytes_per = i.kv.bits() / 8.0;
    let per_token_layer = arch.kv_elements_per_layer(kv_heads_here) as f64 * bytes_per;
    let mut token_layers = 0.0;
    let mut parts = Vec::new();
    for kind in [LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked] {
        let n = arch.layers_of(kind);
        if n == 0 {
            continue;
        }
        let limit = match kind {
            LayerKind::Sliding => arch.window,
            LayerKind::Chunked => arch.chunk,
            _ => 0,
        };
        let held = if limit > 0 { tokens.min(limit) } else { tokens };
        token_layers += n as f64 * held as f64;
        let class = LayerClass { attention: kind, moe: false, mlp: true, count: n };
        let windowed = when(limit > 0 && held < tokens, || msg!(KvWindow));
        parts.push(msg!(KvPart, Arg::Int(n), layer_class_name(class).arg(), Arg::Count(held), windowed));
    }
    let per_token = match &arch.mla {
        Some(m) => msg!(
            KvPerTokenMla,
            Arg::Int(m.kv_lora_rank),
            Arg::Int(m.qk_rope_head_dim),
            Arg::Factor(bytes_per),
            Arg::Code(i.kv.id())
        ),
        None => msg!(
            KvPerToken,
            Arg::Int(kv_heads_here),
            when(i.tp > 1, || msg!(PerGpu)),
            Arg::Int(arch.head_dim),
            Arg::Factor(bytes_per),
            Arg::Code(i.kv.id())
        ),
    };
    let (state_bytes, state) = linear_state(p, i);
    let kv = token_layers * per_token_layer * p.batch as f64 + state_bytes;
    let formula =
        msg!(KvCacheByKind, Arg::List(parts), Arg::Factor(per_token_layer), per_token.arg(), Arg::Int(p.batch), state);
    line(ComponentId::KvCache, kv, "§2", formula)
}

/// The fixed state of linear-attention layers: the recurrent state (fp32) and the convolution's
/// last taps, per sequence, split over tensor-parallel GPUs by head.
fn linear_state(p: &Plan, i: &Inference) -> (f64, Arg) {
    let (Some(lin), n) = (&p.arch.linear, p.arch.layers_of(LayerKind::Linear)) else {
        return (0.0, Msg::empty().arg());
    };
    if n == 0 {
        return (0.0, Msg::empty().arg());
    }
    let act = p.acts.bytes();
    let per_seq = lin.state_elements() as f64 * 4.0 + (lin.conv_dim() * lin.conv) as f64 * act;
    let bytes = n as f64 * per_seq * p.batch as f64 / i.tp as f64;
    let formula = msg!(
        KvLinearState,
        Arg::Int(n),
        Arg::Int(lin.v_heads),
        Arg::Int(lin.head_dim),
        Arg::Int(lin.head_dim),
        Arg::Count(lin.conv_dim()),
        Arg::Int(lin.conv),
        Arg::Factor(act),
        Arg::Bytes(bytes)
    );
    (bytes, formula.arg())
}

fn uniform_kv_cache(p: &Plan, i: &Inference, kv_heads_here: u64) -> Component {
    let arch = p.arch;
    let tokens = p.tokens.saturating_add(i.generated);
    let bytes_per = i.kv.bits() / 8.0;
    let kv = 2.0
        * arch.layers as f64
        * kv_heads_here as f64
        * arch.head_dim as f64
        * tokens as f64
        * p.batch as f64
        * bytes_per;
    let formula = msg!(
        KvCache,
        Arg::Int(arch.layers),
        Arg::Int(kv_heads_here),
        when(i.tp > 1, || msg!(PerGpu)),
        Arg::Int(arch.head_dim),
        Arg::Count(p.tokens),
        Arg::Count(i.generated),
        Arg::Int(p.batch),
        Arg::Factor(bytes_per),
        Arg::Code(i.kv.id())
    );
    line(ComponentId::KvCache, kv, "§2", formula)
}

/// The transformers release `generate()` follows (`engine_version` with `engine=hf`); `None`: the
/// newest read. docs/research/transformers-inference-by-release.md has each rule's source line.
fn transformers_before(i: &Inference, major: u16, minor: u16) -> bool {
    i.engine.engine == super::scenario::Engine::Hf
        && i.engine.version.is_some_and(|v| v < super::scenario::Release(major, minor, 0))
}

/// Whether the prefill projects every prompt position: transformers' own classes before 4.45 —
/// not remote code that returns the last position's logit itself (`mask=full`).
fn projects_every_position(p: &Plan, i: &Inference) -> bool {
    transformers_before(i, 4, 45) && p.mask != super::scenario::AttentionMask::Full
}

/// A remote-code forward's materialized (batch, 1, s, s) boolean mask (`mask=full`), held through
/// the prefill's layers.
pub fn full_mask_bytes(p: &Plan) -> f64 {
    if p.mask != super::scenario::AttentionMask::Full {
        return 0.0;
    }
    let s = p.tokens as f64;
    p.batch as f64 * s * s
}

/// The prefill runs one layer at a time; its peak is the larger of attention and MLP, with the
/// prompt's KV cache beside it. The generated tokens' KV (`kv_generated`) and the last position's
/// logits (`logits`) come after that peak, so this line is what the peak needs beyond them — or a
/// decoding step's transient, whichever is larger: `torch.cat` writes one layer's grown cache
/// while the old one is alive (measured with tools/measure_generate.py on transformers 5.24).
/// Before transformers 4.42 the cache was a tuple of tensors grown by `torch.cat` and the step's
/// outputs were not deleted: at a decoding step the old cache and the new one coexist whole
/// (`kv_total`, generation/utils.py before `del outputs` and the `DynamicCache` of 4.42).
/// Also returns the prefill's peak and the decoding step's transient (the phases' activations).
pub fn prefill(p: &Plan, i: &Inference, kv_generated: f64, logits: f64, kv_total: f64) -> (Component, f64, f64) {
    let arch = p.arch;
    let peak = inference_layer_peak(arch, p.kernel, p.acts, p.tokens, p.batch) / i.tp as f64 + full_mask_bytes(p);
    let ffn = arch.moe.as_ref().map_or(arch.ffn, |m| m.expert_ffn);
    let tp = tensor_parallel(i);
    if i.generated == 0 {
        let formula = msg!(Prefill, Arg::Count(p.tokens), Arg::Int(p.batch), Arg::Count(ffn), tp, Arg::Bytes(peak));
        return (line(ComponentId::Activations, peak, "§2", formula), peak, 0.0);
    }
    let kv_heads_here = arch.kv_heads.div_ceil(i.tp).max(1);
    let cat_copy = if transformers_before(i, 4, 42) {
        kv_total
    } else {
        arch.kv_elements_per_layer(kv_heads_here) as f64
            * p.tokens.saturating_add(i.generated) as f64
            * p.batch as f64
            * (i.kv.bits() / 8.0)
    };
    let rest = (peak - kv_generated - logits).max(cat_copy);
    let formula = msg!(
        PrefillBeforeDecode,
        Arg::Count(p.tokens),
        Arg::Int(p.batch),
        Arg::Count(ffn),
        tp,
        Arg::Bytes(peak),
        Arg::Bytes(kv_generated),
        Arg::Bytes(logits),
        Arg::Bytes(cat_copy),
        Arg::Bytes(rest)
    );
    (line(ComponentId::Activations, rest, "§2", formula), peak, cat_copy)
}

/// Before transformers 4.45 the logits are every prompt position's, held at the prefill's end
/// beside the prompt's cache and gone by the decoding steps, which hold the whole cache (and before
/// 4.42 its second copy): the bill is the larger moment. Returns the logits and activations lines'
/// bytes at it, given the prompt's cache, the whole cache, the prefill's layer peak and the decoding
/// step's transient (`None` from 4.45 on, where the lines add up as they are).
pub fn prefill_logits_moment(
    p: &Plan,
    i: &Inference,
    (prompt_kv, kv_total): (f64, f64),
    (logits, peak, decode): (f64, f64, f64),
) -> Option<(f64, f64)> {
    if !projects_every_position(p, i) {
        return None;
    }
    let prefill = prompt_kv + peak.max(logits);
    let decoding = kv_total + decode;
    if decoding >= prefill {
        // At the peak the prompt's logits are gone.
        return Some((0.0, decode));
    }
    let beyond = prefill - kv_total;
    let kept = logits.min(beyond);
    Some((kept, beyond - kept))
}

/// Only the last position is projected when generating (transformers ≥ 4.45, vLLM): its 16-bit
/// logits, an fp32 copy and the fp32 probabilities. Before 4.45 `generate()` passed no
/// `num_logits_to_keep`: the prefill projects every prompt position, and the causal LM's forward
/// upcast them all (`logits = logits.float()`, modeling_llama.py until 4.46).
pub fn logits(p: &Plan, i: &Inference) -> Component {
    let act = p.acts.bytes();
    if projects_every_position(p, i) {
        let per_logit = act + 4.0;
        let bytes = p.batch as f64 * p.tokens as f64 * p.arch.vocab as f64 * per_logit;
        let formula = msg!(
            InferenceLogitsAll,
            Arg::Int(p.batch),
            Arg::Count(p.tokens),
            Arg::Count(p.arch.vocab),
            Arg::Factor(per_logit),
            Arg::Factor(act)
        );
        return line(ComponentId::Logits, bytes, "§2", formula);
    }
    let per_logit = act + 4.0 + 4.0;
    let formula =
        msg!(InferenceLogits, Arg::Int(p.batch), Arg::Count(p.arch.vocab), Arg::Factor(per_logit), Arg::Factor(act));
    line(ComponentId::Logits, p.batch as f64 * p.arch.vocab as f64 * per_logit, "§2", formula)
}

/// bitsandbytes dequantizes an NF4 matrix to bf16 for the prefill's matmuls.
pub fn dequant_buffer(p: &Plan, i: &Inference) -> Option<Component> {
    if i.weights.format != StorageFormat::Nf4 {
        return None;
    }
    let (matrix, bytes) = super::weights::dequantized_matrix(p.arch, i.weights);
    let formula =
        if bytes > 2.0 { msg!(DequantHead, Arg::Count(matrix)) } else { msg!(DequantPrefill, Arg::Count(matrix)) };
    Some(line(ComponentId::DequantBuffer, matrix as f64 * bytes, "§2", formula))
}
