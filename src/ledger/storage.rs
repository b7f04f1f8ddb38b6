//! Storage formats of weights and of the KV cache: bytes per element, scales included.
//!
//! Sources (see `../shared/reference/formulas.md` §1.2):
//! - bitsandbytes NF4: 4-bit codes + one fp32 absmax per 64 weights = 4.5 bits; with double quantization
//!   the absmax is 8-bit with an fp32 constant per 256 blocks = 4 + 8/64 + 32/(64·256) ≈ 4.127 bits
//!   (QLoRA paper §3).
//! - LLM.int8 (bitsandbytes): 1 byte + one fp32 scale per output row (≈ 8.008 bits at 4096 inputs).
//! - GPTQ / AWQ 4-bit, group 128: packed 4-bit codes + an fp16 scale and a packed 4-bit zero per
//!   group = 4 + 16/128 + 4/128 = 4.156 bits.
//! - GGUF: whole-file averages that llama.cpp's `tools/quantize/README.md` measured on Llama-3.1-8B
//!   (they already include the embedding and output tensors, which the mixes store at other types).

use std::fmt;

use super::msg::{Arg, Msg};
use crate::msg;

/// How the weights are stored in GPU memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StorageFormat {
    Fp32,
    Bf16,
    Fp16,
    Fp8,
    Int8,
    Nf4,
    Gptq4,
    Awq4,
    Q4KM,
    Q5KM,
    Q6K,
    Q80,
}

impl StorageFormat {
    pub const ALL: [StorageFormat; 12] = [
        StorageFormat::Fp32,
        StorageFormat::Bf16,
        StorageFormat::Fp16,
        StorageFormat::Fp8,
        StorageFormat::Int8,
        StorageFormat::Nf4,
        StorageFormat::Gptq4,
        StorageFormat::Awq4,
        StorageFormat::Q4KM,
        StorageFormat::Q5KM,
        StorageFormat::Q6K,
        StorageFormat::Q80,
    ];

    /// The id used in links and on the command line (a stable contract).
    pub fn id(self) -> &'static str {
        match self {
            StorageFormat::Fp32 => "fp32",
            StorageFormat::Bf16 => "bf16",
            StorageFormat::Fp16 => "fp16",
            StorageFormat::Fp8 => "fp8",
            StorageFormat::Int8 => "int8",
            StorageFormat::Nf4 => "nf4",
            StorageFormat::Gptq4 => "gptq4",
            StorageFormat::Awq4 => "awq4",
            StorageFormat::Q4KM => "q4_k_m",
            StorageFormat::Q5KM => "q5_k_m",
            StorageFormat::Q6K => "q6_k",
            StorageFormat::Q80 => "q8_0",
        }
    }

    pub fn from_id(id: &str) -> Option<StorageFormat> {
        StorageFormat::ALL.into_iter().find(|f| f.id() == id)
    }

    /// Plain dense dtypes: every parameter, embeddings included, at the same width.
    pub fn is_dense(self) -> bool {
        matches!(self, StorageFormat::Fp32 | StorageFormat::Bf16 | StorageFormat::Fp16)
    }

    /// GGUF mixes: the bits-per-weight figure is a whole-file average over every tensor.
    pub fn is_gguf(self) -> bool {
        matches!(self, StorageFormat::Q4KM | StorageFormat::Q5KM | StorageFormat::Q6K | StorageFormat::Q80)
    }

    /// 4-bit formats a QLoRA-style adapter can be trained on.
    pub fn is_four_bit(self) -> bool {
        matches!(self, StorageFormat::Nf4 | StorageFormat::Gptq4 | StorageFormat::Awq4)
    }

    /// Bits per weight of the quantized linear matrices (scales and zeros included).
    /// `double_quant` applies to NF4 only; `d_in` is the input width that per-row int8 scales divide.
    pub fn bits_per_weight(self, double_quant: bool, d_in: u64) -> f64 {
        match self {
            StorageFormat::Fp32 => 32.0,
            StorageFormat::Bf16 | StorageFormat::Fp16 => 16.0,
            // One fp32 per-tensor scale: negligible.
            StorageFormat::Fp8 => 8.0,
            StorageFormat::Int8 => 8.0 + 32.0 / d_in.max(1) as f64,
            StorageFormat::Nf4 => {
                if double_quant {
                    4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)
                } else {
                    4.0 + 32.0 / 64.0
                }
            }
            StorageFormat::Gptq4 | StorageFormat::Awq4 => 4.0 + 16.0 / 128.0 + 4.0 / 128.0,
            StorageFormat::Q4KM => 4.8944,
            StorageFormat::Q5KM => 5.7036,
            StorageFormat::Q6K => 6.5633,
            StorageFormat::Q80 => 8.5008,
        }
    }

    /// How the bits are made up, used inside formulas.
    pub fn explain(self, double_quant: bool) -> Msg {
        let dense = |bytes: u64| msg!(FormatDense, Arg::Code(self.id()), Arg::Int(bytes));
        match self {
            StorageFormat::Fp32 => dense(4),
            StorageFormat::Bf16 | StorageFormat::Fp16 => dense(2),
            StorageFormat::Fp8 => dense(1),
            StorageFormat::Int8 => msg!(FormatInt8),
            StorageFormat::Nf4 if double_quant => msg!(FormatNf4Dq),
            StorageFormat::Nf4 => msg!(FormatNf4),
            StorageFormat::Gptq4 => msg!(FormatGroup128, Arg::Code("GPTQ")),
            StorageFormat::Awq4 => msg!(FormatGroup128, Arg::Code("AWQ")),
            StorageFormat::Q4KM | StorageFormat::Q5KM | StorageFormat::Q6K | StorageFormat::Q80 => {
                msg!(FormatGguf, Arg::Code(self.gguf_name()), Arg::Factor(self.bits_per_weight(false, 1)))
            }
        }
    }

    /// The GGUF type name as llama.cpp prints it.
    fn gguf_name(self) -> &'static str {
        match self {
            StorageFormat::Q4KM => "Q4_K_M",
            StorageFormat::Q5KM => "Q5_K_M",
            StorageFormat::Q6K => "Q6_K",
            _ => "Q8_0",
        }
    }
}

impl fmt::Display for StorageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Data type of the KV cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KvDtype {
    Bf16,
    Fp16,
    Fp8,
    Int8,
    Int4,
}

impl KvDtype {
    pub const ALL: [KvDtype; 5] = [KvDtype::Bf16, KvDtype::Fp16, KvDtype::Fp8, KvDtype::Int8, KvDtype::Int4];

    pub fn id(self) -> &'static str {
        match self {
            KvDtype::Bf16 => "bf16",
            KvDtype::Fp16 => "fp16",
            KvDtype::Fp8 => "fp8",
            KvDtype::Int8 => "int8",
            KvDtype::Int4 => "int4",
        }
    }

    pub fn from_id(id: &str) -> Option<KvDtype> {
        KvDtype::ALL.into_iter().find(|k| k.id() == id)
    }

    /// Bits per cached element. int8 / int4 are llama.cpp's q8_0 / q4_0 blocks (32 values + one fp16
    /// scale: 8.5 / 4.5 bits), which reproduce ollama's measured 4 GiB → 1.1 GiB for 32k tokens.
    pub fn bits(self) -> f64 {
        match self {
            KvDtype::Bf16 | KvDtype::Fp16 => 16.0,
            KvDtype::Fp8 => 8.0,
            KvDtype::Int8 => 8.5,
            KvDtype::Int4 => 4.5,
        }
    }
}
