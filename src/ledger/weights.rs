//! Bytes of stored weights in any storage format.
//!
//! Quantized checkpoints (int8, fp8, NF4, GPTQ, AWQ) compress only the big linear matrices of the
//! decoder layers; the embeddings, the LM head, norms, biases and the vision tower stay 16-bit. For a
//! small model with a large vocabulary that 16-bit part dominates (Qwen2.5-0.5B: 27 % of its
//! parameters are the embedding). GGUF files are accounted with llama.cpp's measured whole-file
//! averages, which already include their embedding and output tensors.

use super::architecture::Architecture;
use super::msg::{when, Arg, Msg};
use super::storage::StorageFormat;
use crate::msg;

/// Stored weights and how they add up.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredWeights {
    pub bytes: f64,
    pub formula: Msg,
}

/// Bytes of the language model's quantizable linear weights in `format`.
fn linear_bytes(arch: &Architecture, format: StorageFormat, double_quant: bool) -> f64 {
    arch.layer_linears()
        .iter()
        .map(|l| l.parameters() as f64 * format.bits_per_weight(double_quant, l.d_in) / 8.0)
        .sum::<f64>()
        * arch.layers as f64
}

pub fn stored_weights(arch: &Architecture, format: StorageFormat, double_quant: bool) -> StoredWeights {
    let total = arch.parameters();
    if format.is_dense() {
        let b = format.bits_per_weight(false, 1) / 8.0;
        return StoredWeights {
            bytes: total as f64 * b,
            formula: msg!(WeightsDense, Arg::Count(total), Arg::Factor(b), Arg::Code(format.id())),
        };
    }
    let vision = arch.vision_parameters();
    if format.is_gguf() {
        let lm = total - vision;
        let bpw = format.bits_per_weight(false, 1);
        let formula = msg!(
            WeightsGguf,
            Arg::Count(lm),
            Arg::Factor(bpw),
            format.explain(false).arg(),
            when(vision > 0, || msg!(VisionTowerPlus, Arg::Count(vision)))
        );
        return StoredWeights { bytes: lm as f64 * bpw / 8.0 + vision as f64 * 2.0, formula };
    }
    let linear = arch.linear_parameters();
    let rest = total - linear;
    let lin_bytes = linear_bytes(arch, format, double_quant);
    let avg_bits = if linear > 0 { lin_bytes * 8.0 / linear as f64 } else { 0.0 };
    StoredWeights {
        bytes: lin_bytes + rest as f64 * 2.0,
        formula: msg!(
            WeightsQuantized,
            Arg::Count(linear),
            Arg::Factor(avg_bits),
            format.explain(double_quant).arg(),
            when(vision > 0, || msg!(VisionTowerListed)),
            Arg::Count(rest)
        ),
    }
}
