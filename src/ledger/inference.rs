//! The lines of an inference forward pass (Hugging Face `generate()`): the served weights, the KV
//! cache, the prefill's transient peak, the last position's logits, and bitsandbytes' dequantization
//! buffer. Tensor parallelism divides weights, KV heads and the prefill peak over the GPUs.

use super::activations::inference_layer_peak;
use super::bill::{line, Component, ComponentId};
use super::msg::{when, Arg};
use super::plan::{Inference, Plan};
use super::storage::StorageFormat;
use super::weights::stored_weights;
use crate::msg;

fn tensor_parallel(i: &Inference) -> Arg {
    when(i.tp > 1, || msg!(TensorParallel, Arg::Int(i.tp)))
}

pub fn weights(p: &Plan, i: &Inference) -> Component {
    let w = stored_weights(p.arch, i.format, i.double_quant);
    line(ComponentId::Weights, w.bytes / i.tp as f64, "§2", msg!(ServedWeights, w.formula.arg(), tensor_parallel(i)))
}

/// KV cache: 2 (K and V) · layers · kv_heads · head_dim · tokens · batch · bytes. With tensor
/// parallelism each GPU holds its share of the KV heads (replicated when GPUs > KV heads).
pub fn kv_cache(p: &Plan, i: &Inference) -> Component {
    let arch = p.arch;
    let tokens = p.tokens.saturating_add(i.generated);
    let kv_heads_here = arch.kv_heads.div_ceil(i.tp).max(1);
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

/// The prefill runs one layer at a time; its peak is the larger of attention and MLP.
pub fn prefill(p: &Plan, i: &Inference) -> Component {
    let arch = p.arch;
    let peak = inference_layer_peak(arch, p.kernel, p.acts, p.tokens, p.batch) / i.tp as f64;
    let ffn = arch.moe.as_ref().map_or(arch.ffn, |m| m.expert_ffn);
    let formula =
        msg!(Prefill, Arg::Count(p.tokens), Arg::Int(p.batch), Arg::Count(ffn), tensor_parallel(i), Arg::Bytes(peak));
    line(ComponentId::Activations, peak, "§2", formula)
}

/// Only the last position is projected when generating (transformers ≥ 4.45, vLLM): its 16-bit
/// logits, an fp32 copy and the fp32 probabilities.
pub fn logits(p: &Plan) -> Component {
    let act = p.acts.bytes();
    let per_logit = act + 4.0 + 4.0;
    let formula =
        msg!(InferenceLogits, Arg::Int(p.batch), Arg::Count(p.arch.vocab), Arg::Factor(per_logit), Arg::Factor(act));
    line(ComponentId::Logits, p.batch as f64 * p.arch.vocab as f64 * per_logit, "§2", formula)
}

/// bitsandbytes dequantizes an NF4 matrix to bf16 for the prefill's matmuls.
pub fn dequant_buffer(p: &Plan, i: &Inference) -> Option<Component> {
    if i.format != StorageFormat::Nf4 {
        return None;
    }
    let largest = p.arch.largest_linear();
    Some(line(ComponentId::DequantBuffer, largest as f64 * 2.0, "§2", msg!(DequantPrefill, Arg::Count(largest))))
}
