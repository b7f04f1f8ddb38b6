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
//! - OCP MX FP4 (`mxfp4`, gpt-oss): 4-bit e2m1 codes in blocks of 32 with one E8M0 (8-bit) scale:
//!   4 + 8/32 = 4.25 bits. NVIDIA NVFP4: blocks of 16 with an fp8 (e4m3) scale, plus one fp32 scale
//!   per tensor: 4 + 8/16 = 4.5 bits.
//! - FP8 (e4m3): `fp8` with one scale per tensor (8 bits); `fp8_block` with an fp32 scale per
//!   128 × 128 block (DeepSeek-V3's checkpoint: 8 + 32/16384 bits); `fp8_channel` with an fp32 scale
//!   per output channel (Meta's Llama-3.1-405B-FP8, fbgemm: 8 + 32/d_in bits).
//! - compressed-tensors: `w4a16` (symmetric 4-bit in groups of 128 with a 16-bit scale: 4 + 16/128 =
//!   4.125 bits) and `w8a8` (int8 with a 16-bit scale per output channel: 8 + 16/d_in bits).

use std::fmt;

use super::msg::{Arg, Msg};
use crate::msg;

/// How the weights are stored in GPU memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
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
    Mxfp4,
    Nvfp4,
    Fp8Block,
    Fp8Channel,
    W4a16,
    W8a8,
}

impl StorageFormat {
    pub const ALL: [StorageFormat; 18] = [
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
        StorageFormat::Mxfp4,
        StorageFormat::Nvfp4,
        StorageFormat::Fp8Block,
        StorageFormat::Fp8Channel,
        StorageFormat::W4a16,
        StorageFormat::W8a8,
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
            StorageFormat::Mxfp4 => "mxfp4",
            StorageFormat::Nvfp4 => "nvfp4",
            StorageFormat::Fp8Block => "fp8_block",
            StorageFormat::Fp8Channel => "fp8_channel",
            StorageFormat::W4a16 => "w4a16",
            StorageFormat::W8a8 => "w8a8",
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

    /// The formats bitsandbytes loads on the fly (NF4, LLM.int8): what PEFT's k-bit preparation
    /// acts on, and what leaves transformers 5's fused experts 16-bit.
    pub fn is_bitsandbytes(self) -> bool {
        matches!(self, StorageFormat::Nf4 | StorageFormat::Int8)
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
            StorageFormat::Mxfp4 => 4.0 + 8.0 / 32.0,
            StorageFormat::Nvfp4 => 4.0 + 8.0 / 16.0,
            StorageFormat::Fp8Block => 8.0 + 32.0 / (128.0 * 128.0),
            StorageFormat::Fp8Channel => 8.0 + 32.0 / d_in.max(1) as f64,
            StorageFormat::W4a16 => 4.0 + 16.0 / 128.0,
            StorageFormat::W8a8 => 8.0 + 16.0 / d_in.max(1) as f64,
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
            StorageFormat::Mxfp4 => msg!(FormatMxfp4),
            StorageFormat::Nvfp4 => msg!(FormatNvfp4),
            StorageFormat::Fp8Block => msg!(FormatFp8Block),
            StorageFormat::Fp8Channel => msg!(FormatFp8Channel),
            StorageFormat::W4a16 => msg!(FormatW4a16),
            StorageFormat::W8a8 => msg!(FormatW8a8),
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

/// Which linear layers a quantized format covers; the others stay 16-bit. gpt-oss ships MXFP4
/// experts with bf16 attention; Meta's FP8 405B quantizes the MLPs only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum QuantLayers {
    /// Every linear layer of the decoder.
    All,
    /// The MLPs: dense MLPs, routed and shared experts (not attention).
    Mlp,
    /// The routed experts only.
    Experts,
}

impl QuantLayers {
    pub const ALL: [QuantLayers; 3] = [QuantLayers::All, QuantLayers::Mlp, QuantLayers::Experts];

    pub fn id(self) -> &'static str {
        match self {
            QuantLayers::All => "all",
            QuantLayers::Mlp => "mlp",
            QuantLayers::Experts => "experts",
        }
    }

    pub fn from_id(id: &str) -> Option<QuantLayers> {
        QuantLayers::ALL.into_iter().find(|q| q.id() == id)
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
