//! Built-in models and GPUs.
//!
//! Architectures are the models' own `config.json` fields on the Hugging Face Hub (see
//! `../shared/reference/models-and-gpus.md`); GPU memory is what the driver reports.

use super::architecture::{Architecture, MlpKind, MoeSpec, NormKind, VisionSpec};

/// A built-in model with the parameter count its model card publishes (checked by a test).
#[derive(Clone, Debug)]
pub struct ModelPreset {
    pub id: &'static str,
    pub family: &'static str,
    pub hf_repo: &'static str,
    pub published_parameters: u64,
    pub architecture: Architecture,
}

/// A built-in GPU: memory as `nvidia-smi` / the driver reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuPreset {
    pub id: &'static str,
    pub name: &'static str,
    pub mib: u64,
}

impl GpuPreset {
    pub fn bytes(&self) -> u64 {
        self.mib * 1024 * 1024
    }
}

pub const GPUS: [GpuPreset; 14] = [
    GpuPreset { id: "t4", name: "Tesla T4 16 GB", mib: 15360 },
    GpuPreset { id: "v100-16g", name: "Tesla V100 16 GB", mib: 16384 },
    GpuPreset { id: "l4", name: "L4 24 GB", mib: 23034 },
    GpuPreset { id: "a10g", name: "A10G 24 GB", mib: 22835 },
    GpuPreset { id: "rtx3090", name: "GeForce RTX 3090 24 GB", mib: 24576 },
    GpuPreset { id: "rtx4090", name: "GeForce RTX 4090 24 GB", mib: 24564 },
    GpuPreset { id: "v100-32g", name: "Tesla V100 32 GB", mib: 32768 },
    GpuPreset { id: "a100-40g", name: "A100 40 GB", mib: 40960 },
    GpuPreset { id: "l40s", name: "L40S 48 GB", mib: 46068 },
    GpuPreset { id: "a6000", name: "RTX A6000 48 GB", mib: 49140 },
    GpuPreset { id: "a100-80g", name: "A100 80 GB", mib: 81920 },
    GpuPreset { id: "h100-80g", name: "H100 80 GB", mib: 81559 },
    GpuPreset { id: "h200", name: "H200 141 GB", mib: 143771 },
    GpuPreset { id: "mi300x", name: "Instinct MI300X 192 GB", mib: 196608 },
];

pub fn gpu(id: &str) -> Option<GpuPreset> {
    GPUS.iter().copied().find(|g| g.id == id)
}

struct Dense {
    layers: u64,
    hidden: u64,
    heads: u64,
    kv_heads: u64,
    head_dim: u64,
    ffn: u64,
    vocab: u64,
    tied: bool,
}

fn llama_like(name: &str, d: Dense) -> Architecture {
    Architecture {
        name: name.to_string(),
        layers: d.layers,
        hidden: d.hidden,
        heads: d.heads,
        kv_heads: d.kv_heads,
        head_dim: d.head_dim,
        ffn: d.ffn,
        vocab: d.vocab,
        tied_embeddings: d.tied,
        mlp: MlpKind::Glu,
        norm: NormKind::RmsNorm,
        norms_per_layer: 2,
        qkv_bias: false,
        out_and_mlp_bias: false,
        learned_positions: 0,
        softcapping: false,
        moe: None,
        vision: None,
    }
}

fn qwen2(name: &str, d: Dense) -> Architecture {
    Architecture { qkv_bias: true, ..llama_like(name, d) }
}

fn gemma2(name: &str, d: Dense) -> Architecture {
    Architecture { norms_per_layer: 4, softcapping: true, ..llama_like(name, d) }
}

fn preset(
    id: &'static str,
    family: &'static str,
    hf_repo: &'static str,
    published_parameters: u64,
    architecture: Architecture,
) -> ModelPreset {
    ModelPreset { id, family, hf_repo, published_parameters, architecture }
}

macro_rules! dense {
    ($l:expr, $h:expr, $nq:expr, $nkv:expr, $d:expr, $ffn:expr, $v:expr, $tied:expr) => {
        Dense { layers: $l, hidden: $h, heads: $nq, kv_heads: $nkv, head_dim: $d, ffn: $ffn, vocab: $v, tied: $tied }
    };
}

/// Every built-in model. Published counts: the HF model cards / PEFT prints collected in
/// `../shared/reference/formulas.md` §1.1 (Qwen2-VL-7B: the Hub's safetensors count, 8,291,375,616).
pub fn models() -> Vec<ModelPreset> {
    vec![
        preset(
            "llama-2-7b",
            "Llama 2",
            "meta-llama/Llama-2-7b-hf",
            6_738_415_616,
            llama_like("Llama-2-7B", dense!(32, 4096, 32, 32, 128, 11008, 32000, false)),
        ),
        preset(
            "llama-2-13b",
            "Llama 2",
            "meta-llama/Llama-2-13b-hf",
            13_015_864_320,
            llama_like("Llama-2-13B", dense!(40, 5120, 40, 40, 128, 13824, 32000, false)),
        ),
        preset(
            "llama-2-70b",
            "Llama 2",
            "meta-llama/Llama-2-70b-hf",
            68_976_648_192,
            llama_like("Llama-2-70B", dense!(80, 8192, 64, 8, 128, 28672, 32000, false)),
        ),
        preset(
            "llama-3.2-1b",
            "Llama 3",
            "meta-llama/Llama-3.2-1B",
            1_235_814_400,
            llama_like("Llama-3.2-1B", dense!(16, 2048, 32, 8, 64, 8192, 128256, true)),
        ),
        preset(
            "llama-3.2-3b",
            "Llama 3",
            "meta-llama/Llama-3.2-3B",
            3_212_749_824,
            llama_like("Llama-3.2-3B", dense!(28, 3072, 24, 8, 128, 8192, 128256, true)),
        ),
        preset(
            "llama-3.1-8b",
            "Llama 3",
            "meta-llama/Llama-3.1-8B",
            8_030_261_248,
            llama_like("Llama-3.1-8B", dense!(32, 4096, 32, 8, 128, 14336, 128256, false)),
        ),
        preset(
            "llama-3.1-70b",
            "Llama 3",
            "meta-llama/Llama-3.1-70B",
            70_553_706_496,
            llama_like("Llama-3.1-70B", dense!(80, 8192, 64, 8, 128, 28672, 128256, false)),
        ),
        preset(
            "mistral-7b",
            "Mistral",
            "mistralai/Mistral-7B-v0.1",
            7_241_732_096,
            llama_like("Mistral-7B-v0.1", dense!(32, 4096, 32, 8, 128, 14336, 32000, false)),
        ),
        preset(
            "mixtral-8x7b",
            "Mistral",
            "mistralai/Mixtral-8x7B-v0.1",
            46_702_792_704,
            Architecture {
                moe: Some(MoeSpec { experts: 8, active: 2, expert_ffn: 14336, shared: 0, shared_ffn: 0 }),
                ..llama_like("Mixtral-8x7B-v0.1", dense!(32, 4096, 32, 8, 128, 14336, 32000, false))
            },
        ),
        preset(
            "qwen2.5-0.5b",
            "Qwen2.5",
            "Qwen/Qwen2.5-0.5B",
            494_032_768,
            qwen2("Qwen2.5-0.5B", dense!(24, 896, 14, 2, 64, 4864, 151936, true)),
        ),
        preset(
            "qwen2.5-1.5b",
            "Qwen2.5",
            "Qwen/Qwen2.5-1.5B",
            1_543_714_304,
            qwen2("Qwen2.5-1.5B", dense!(28, 1536, 12, 2, 128, 8960, 151936, true)),
        ),
        preset(
            "qwen2.5-3b",
            "Qwen2.5",
            "Qwen/Qwen2.5-3B",
            3_085_938_688,
            qwen2("Qwen2.5-3B", dense!(36, 2048, 16, 2, 128, 11008, 151936, true)),
        ),
        preset(
            "qwen2.5-7b",
            "Qwen2.5",
            "Qwen/Qwen2.5-7B",
            7_615_616_512,
            qwen2("Qwen2.5-7B", dense!(28, 3584, 28, 4, 128, 18944, 152064, false)),
        ),
        preset(
            "qwen2.5-14b",
            "Qwen2.5",
            "Qwen/Qwen2.5-14B",
            14_770_033_664,
            qwen2("Qwen2.5-14B", dense!(48, 5120, 40, 8, 128, 13824, 152064, false)),
        ),
        preset(
            "qwen2.5-32b",
            "Qwen2.5",
            "Qwen/Qwen2.5-32B",
            32_763_876_352,
            qwen2("Qwen2.5-32B", dense!(64, 5120, 40, 8, 128, 27648, 152064, false)),
        ),
        preset(
            "qwen2.5-72b",
            "Qwen2.5",
            "Qwen/Qwen2.5-72B",
            72_706_203_648,
            qwen2("Qwen2.5-72B", dense!(80, 8192, 64, 8, 128, 29568, 152064, false)),
        ),
        preset(
            "qwen2-vl-7b",
            "Qwen2-VL",
            "Qwen/Qwen2-VL-7B-Instruct",
            8_291_375_616,
            Architecture {
                vision: Some(VisionSpec {
                    blocks: 32,
                    dim: 1280,
                    heads: 16,
                    mlp: 5120,
                    patch: 14,
                    temporal_patch: 2,
                    merge: 2,
                    min_tokens: 4,
                    max_tokens: 16384,
                }),
                ..qwen2("Qwen2-VL-7B-Instruct", dense!(28, 3584, 28, 4, 128, 18944, 152064, false))
            },
        ),
        preset(
            "gemma-2-2b",
            "Gemma 2",
            "google/gemma-2-2b",
            2_614_341_888,
            gemma2("Gemma-2-2B", dense!(26, 2304, 8, 4, 256, 9216, 256000, true)),
        ),
        preset(
            "gemma-2-9b",
            "Gemma 2",
            "google/gemma-2-9b",
            9_241_705_984,
            gemma2("Gemma-2-9B", dense!(42, 3584, 16, 8, 256, 14336, 256000, true)),
        ),
        preset(
            "gemma-2-27b",
            "Gemma 2",
            "google/gemma-2-27b",
            27_227_128_320,
            gemma2("Gemma-2-27B", dense!(46, 4608, 32, 16, 128, 36864, 256000, true)),
        ),
        preset(
            "phi-3-mini",
            "Phi-3",
            "microsoft/Phi-3-mini-4k-instruct",
            3_821_079_552,
            llama_like("Phi-3-mini-4k-instruct", dense!(32, 3072, 32, 32, 96, 8192, 32064, false)),
        ),
        preset(
            "gpt2",
            "GPT-2",
            "openai-community/gpt2",
            124_439_808,
            Architecture {
                mlp: MlpKind::Gelu,
                norm: NormKind::LayerNorm,
                qkv_bias: true,
                out_and_mlp_bias: true,
                learned_positions: 1024,
                softcapping: false,
                ..llama_like("GPT-2", dense!(12, 768, 12, 12, 64, 3072, 50257, true))
            },
        ),
    ]
}

pub fn model(id: &str) -> Option<ModelPreset> {
    models().into_iter().find(|m| m.id == id)
}
