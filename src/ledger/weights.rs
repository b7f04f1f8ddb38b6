//! Bytes of stored weights in any storage format.
//!
//! Quantized checkpoints (int8, fp8, NF4, GPTQ, AWQ, MXFP4 …) compress only big linear matrices of
//! the decoder — all of them, or only the MLPs or the experts (`quant_layers`); the embeddings, the
//! LM head, norms, biases, routers and the vision tower stay 16-bit. For a small model with a large
//! vocabulary that 16-bit part dominates (Qwen2.5-0.5B: 27 % of its parameters are the embedding).
//! GGUF files are accounted with llama.cpp's measured whole-file averages, which already include
//! their embedding and output tensors.

use super::architecture::{Architecture, LinearGroup, LinearShape};
use super::msg::{when, Arg, Msg};
use super::storage::{QuantLayers, StorageFormat};
use crate::msg;

/// The routed experts' parameters kept 16-bit (none in the page's build).
#[cfg(not(feature = "page"))]
fn kept_experts(w: WeightFormat) -> u64 {
    w.kept_experts
}

#[cfg(feature = "page")]
fn kept_experts(_: WeightFormat) -> u64 {
    0
}

/// Stored weights and how they add up.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredWeights {
    pub bytes: f64,
    pub formula: Msg,
    /// Parameters the format leaves 16-bit (embeddings, LM head, norms, biases, routers, the vision
    /// tower and any linear it does not cover); all of them for a dense or GGUF format.
    pub unquantized: u64,
}

/// A storage format and the linear layers it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightFormat {
    pub format: StorageFormat,
    pub double_quant: bool,
    pub layers: QuantLayers,
    /// The (untied) LM head quantized too, from fp16 (Lightning's BitsandbytesPrecision).
    pub head: bool,
    /// Parameters of covered linears kept 16-bit all the same (`keep16`: bitsandbytes'
    /// `llm_int8_skip_modules` naming single layers, as Unsloth's dynamic 4-bit checkpoints do).
    pub keep16: u64,
    /// Parameters of the routed experts bitsandbytes leaves 16-bit (transformers 5's fused experts:
    /// `Scenario::keeps_experts_16bit`), left out of the covered set exactly (not in the page's
    /// build, which sends such a bill to the reader worker).
    #[cfg(not(feature = "page"))]
    pub kept_experts: u64,
}

impl WeightFormat {
    /// Every linear layer in `format` (NF4 with double quantization).
    pub fn all(format: StorageFormat) -> WeightFormat {
        WeightFormat {
            format,
            double_quant: true,
            layers: QuantLayers::All,
            head: false,
            keep16: 0,
            #[cfg(not(feature = "page"))]
            kept_experts: 0,
        }
    }
}

/// Parameters and bytes of the covered linear weights. Bytes are summed per layer, then times the
/// layers that hold them (one run of linears per layer count, in order).
/// The third count is the parameters among them the checkpoint keeps 16-bit (`keep16`), left out of
/// the first two.
fn covered_linears(arch: &Architecture, w: WeightFormat) -> (u64, f64, u64) {
    let (mut params, mut bytes) = (0u64, 0.0);
    let (mut run_layers, mut run_bytes) = (0u64, 0.0);
    let kept_expert = |l: &&LinearShape| kept_experts(w) > 0 && l.group == LinearGroup::Expert;
    for l in arch.linears().iter().filter(|l| l.group.quantized_under(w.layers) && !kept_expert(l)) {
        params = params.saturating_add(l.total_parameters());
        if l.layers != run_layers {
            bytes += run_bytes * run_layers as f64;
            (run_layers, run_bytes) = (l.layers, 0.0);
        }
        run_bytes += l.parameters() as f64 * w.format.bits_per_weight(w.double_quant, l.d_in) / 8.0;
    }
    bytes += run_bytes * run_layers as f64;
    // The linears the checkpoint keeps 16-bit leave the covered set at its average bits per weight.
    let kept = w.keep16.min(params);
    if kept > 0 {
        bytes -= bytes * kept as f64 / params as f64;
        params -= kept;
    }
    if w.head {
        let head = arch.lm_head_parameters();
        params = params.saturating_add(head);
        bytes += head as f64 * w.format.bits_per_weight(w.double_quant, arch.hidden) / 8.0;
    }
    (params, bytes, kept)
}

/// The weight matrix dequantized at the peak and its bytes per parameter: the largest linear layer
/// in bf16 (2 B), or a quantized LM head, which Lightning dequantizes to fp16 and then casts to
/// bf16 (2 + 2 B), whichever is larger.
pub fn dequantized_matrix(arch: &Architecture, w: WeightFormat) -> (u64, f64) {
    let largest = arch.largest_linear();
    let head = if w.head { arch.lm_head_parameters() } else { 0 };
    if head as f64 * 4.0 > largest as f64 * 2.0 {
        (head, 4.0)
    } else {
        (largest, 2.0)
    }
}

pub fn stored_weights(arch: &Architecture, w: WeightFormat) -> StoredWeights {
    stored_weights_of(arch, w, arch.parameters())
}

/// As `stored_weights`, with the model's parameters (`total`) already counted.
pub fn stored_weights_of(arch: &Architecture, w: WeightFormat, total: u64) -> StoredWeights {
    let format = w.format;
    if format.is_dense() {
        let b = format.bits_per_weight(false, 1) / 8.0;
        return StoredWeights {
            bytes: total as f64 * b,
            formula: msg!(WeightsDense, Arg::Count(total), Arg::Factor(b), Arg::Code(format.id())),
            unquantized: total,
        };
    }
    let encoders = arch.encoder_parameters();
    let audio = when(arch.audio_encoder > 0, || msg!(AudioEncoderToo));
    if format.is_gguf() {
        let lm = total - encoders;
        let bpw = format.bits_per_weight(false, 1);
        let formula = msg!(
            WeightsGguf,
            Arg::Count(lm),
            Arg::Factor(bpw),
            format.explain(false).arg(),
            when(encoders > 0, || msg!(VisionTowerPlus, Arg::Count(encoders), audio.clone()))
        );
        return StoredWeights { bytes: lm as f64 * bpw / 8.0 + encoders as f64 * 2.0, formula, unquantized: total };
    }
    let (linear, lin_bytes, kept) = covered_linears(arch, w);
    let rest = total - linear.min(total);
    let avg_bits = if linear > 0 { lin_bytes * 8.0 / linear as f64 } else { 0.0 };
    let vision_listed = when(encoders > 0, || msg!(VisionTowerListed, audio));
    let vision_listed =
        if kept > 0 { msg!(KeptLinearsListed, vision_listed, Arg::Count(kept)).arg() } else { vision_listed };
    let vision_listed = if kept_experts(w) > 0 {
        msg!(KeptExpertsListed, vision_listed, Arg::Count(kept_experts(w))).arg()
    } else {
        vision_listed
    };
    let explain = format.explain(w.double_quant).arg();
    let formula = match w.layers {
        QuantLayers::All if w.head && arch.lm_head_parameters() > 0 => {
            msg!(
                WeightsQuantizedHead,
                Arg::Count(linear),
                Arg::Factor(avg_bits),
                explain,
                vision_listed,
                Arg::Count(rest)
            )
        }
        QuantLayers::All => {
            msg!(WeightsQuantized, Arg::Count(linear), Arg::Factor(avg_bits), explain, vision_listed, Arg::Count(rest))
        }
        QuantLayers::Mlp | QuantLayers::Experts => msg!(
            WeightsPartial,
            if w.layers == QuantLayers::Mlp { msg!(QuantMlp) } else { msg!(QuantExperts) }.arg(),
            Arg::Count(linear),
            Arg::Factor(avg_bits),
            explain,
            vision_listed,
            Arg::Count(rest)
        ),
    };
    StoredWeights { bytes: lin_bytes + rest as f64 * 2.0, formula, unquantized: rest }
}
