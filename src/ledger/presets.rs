//! Built-in models and GPUs, as static data.
//!
//! Architectures are the models' own `config.json` fields (kept in `tests/data/configs/`, where
//! `tests/presets.rs` imports each file and checks it gives the preset); each preset's parameter
//! count is checked against the count its checkpoint publishes. GPU memory is what the driver
//! reports; Apple silicon is Metal's working-set limit, not the RAM.

use super::architecture::{
    Architecture, LayerPattern, LinearSpec, MlaSpec, MlpKind, MoeSpec, NormKind, RopeTables, VisionKind, VisionSpec,
};
use super::storage::{QuantLayers, StorageFormat};

/// A built-in model with the parameter count its checkpoint publishes (checked by a test).
#[derive(Clone, Debug)]
pub struct ModelPreset {
    pub id: &'static str,
    pub family: &'static str,
    /// Year of release (the picker shows it).
    pub year: u16,
    /// The checkpoint's Hugging Face repository. Not in the page's build (feature `page`), which
    /// never shows it: with the published counts below, 0.6 KB of its download (docs/size.md); the
    /// reader worker, the CLI and the tests have both.
    #[cfg(not(feature = "page"))]
    pub hf_repo: &'static str,
    /// Checked by the tests against the architecture's count; not in the page's build either.
    #[cfg(not(feature = "page"))]
    pub published_parameters: u64,
    pub architecture: Architecture,
}

impl ModelPreset {
    /// The checkpoint's Hugging Face repository; empty in the page's build, which never shows it.
    pub fn repository(&self) -> &'static str {
        #[cfg(not(feature = "page"))]
        return self.hf_repo;
        #[cfg(feature = "page")]
        ""
    }
}

/// What kind of memory a GPU preset is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Dedicated memory as the driver reports it (nvidia-smi, rocm-smi, npu-smi).
    Dedicated,
    /// Apple unified memory: `mib` is Metal's `recommendedMaxWorkingSetSize` of a machine with
    /// `ram_gb` of RAM — what the GPU may use, not the RAM.
    Unified { ram_gb: u64 },
}

/// A built-in GPU: memory as the driver reports it, and as PyTorch (and so a serving engine) sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuPreset {
    pub id: &'static str,
    pub name: &'static str,
    /// nvidia-smi's total (MiB).
    pub mib: u64,
    /// `torch.cuda.mem_get_info()`'s total in hundredths of a GiB (0: not published; the driver
    /// total less 500 MiB is used). Always a few hundred MiB below nvidia-smi's.
    pub torch_cgib: u64,
    pub memory: Memory,
}

impl GpuPreset {
    pub fn bytes(&self) -> u64 {
        self.mib * 1024 * 1024
    }

    /// What PyTorch reports as the card's total: the memory an engine's budget starts from.
    pub fn torch_bytes(&self) -> u64 {
        match self.torch_cgib {
            0 => self.bytes().saturating_sub(500 << 20),
            c => c * (1u64 << 30) / 100,
        }
    }
}

const fn gpu_preset(id: &'static str, name: &'static str, mib: u64, torch_cgib: u64) -> GpuPreset {
    GpuPreset { id, name, mib, torch_cgib, memory: Memory::Dedicated }
}

const fn apple(id: &'static str, name: &'static str, mib: u64, ram_gb: u64) -> GpuPreset {
    GpuPreset { id, name, mib, torch_cgib: 0, memory: Memory::Unified { ram_gb } }
}

/// nvidia-smi's and PyTorch's totals as collected in `docs/gpus.md`, with the source of each;
/// Apple silicon as Metal's `recommendedMaxWorkingSetSize`.
pub const GPUS: [GpuPreset; 39] = [
    gpu_preset("t4", "Tesla T4 16 GB", 15360, 1475),
    gpu_preset("rtx3060-12g", "GeForce RTX 3060 12 GB", 12288, 1176),
    gpu_preset("rtx4060ti-16g", "GeForce RTX 4060 Ti 16 GB", 16380, 1555),
    gpu_preset("v100-16g", "Tesla V100 16 GB", 16384, 0),
    gpu_preset("rtx2080ti-22g", "GeForce RTX 2080 Ti 22 GB (modified)", 22528, 2170),
    gpu_preset("l4", "L4 24 GB", 23034, 2203),
    gpu_preset("a10g", "A10G 24 GB", 23028, 2198),
    gpu_preset("rtx3090", "GeForce RTX 3090 24 GB", 24576, 2370),
    gpu_preset("rtx4090", "GeForce RTX 4090 24 GB", 24564, 2364),
    gpu_preset("rtx4090d", "GeForce RTX 4090 D 24 GB", 24564, 2364),
    gpu_preset("rtx5090", "GeForce RTX 5090 32 GB", 32607, 3136),
    gpu_preset("v100-32g", "Tesla V100 32 GB", 32768, 0),
    gpu_preset("a100-40g", "A100 40 GB", 40960, 3950),
    gpu_preset("a800-40g", "A800 40 GB", 40960, 3950),
    gpu_preset("l20", "L20 48 GB", 46068, 4453),
    gpu_preset("l40", "L40 48 GB", 46068, 4440),
    gpu_preset("l40s", "L40S 48 GB", 46068, 4439),
    gpu_preset("a6000", "RTX A6000 48 GB", 49140, 0),
    gpu_preset("ascend-910b", "Ascend 910B 64 GB", 65536, 6097),
    gpu_preset("a100-80g", "A100 80 GB", 81920, 7925),
    gpu_preset("a800-80g", "A800 80 GB", 81920, 7933),
    gpu_preset("h100-80g", "H100 80 GB", 81559, 7919),
    gpu_preset("h800", "H800 80 GB", 81559, 7919),
    gpu_preset("h20", "H20 96 GB", 97871, 9500),
    gpu_preset("h200", "H200 141 GB", 143771, 13980),
    gpu_preset("h20-141g", "H20 141 GB", 143771, 13980),
    gpu_preset("b200", "B200 180 GB", 183359, 17835),
    gpu_preset("mi300x", "Instinct MI300X 192 GB", 196608, 19198),
    apple("m-8g", "Apple silicon, 8 GB unified (5.33 GiB to Metal)", 5461, 8),
    apple("m-16g", "Apple silicon, 16 GB unified (10.67 GiB to Metal)", 10923, 16),
    apple("m-24g", "Apple silicon, 24 GB unified (16 GiB to Metal)", 16384, 24),
    apple("m-32g", "Apple silicon, 32 GB unified (21.33 GiB to Metal)", 21845, 32),
    apple("m-36g", "Apple silicon, 36 GB unified (28.08 GiB to Metal)", 28754, 36),
    apple("m-48g", "Apple silicon, 48 GB unified (37.44 GiB to Metal)", 38339, 48),
    apple("m-64g", "Apple silicon, 64 GB unified (48 GiB to Metal)", 49152, 64),
    apple("m-96g", "Apple silicon, 96 GB unified (72 GiB to Metal)", 73728, 96),
    apple("m-128g", "Apple silicon, 128 GB unified (107.52 GiB to Metal)", 110100, 128),
    apple("m-192g", "Apple silicon, 192 GB unified (144 GiB to Metal, estimated)", 147456, 192),
    apple("m-256g", "Apple silicon, 256 GB unified (208 GiB to Metal)", 212992, 256),
];

pub fn gpu(id: &str) -> Option<GpuPreset> {
    GPUS.iter().copied().find(|g| g.id == id)
}

const fn qwen2(mut a: Architecture) -> Architecture {
    a.qkv_bias = true;
    a
}

const fn qwen3(mut a: Architecture) -> Architecture {
    a.qk_norm = true;
    a
}

/// Gemma-2: four norms per layer, soft-capping, sliding-window (4096) and global layers alternating.
const fn gemma2(mut a: Architecture) -> Architecture {
    a.norms_per_layer = 4;
    a.softcapping = true;
    a.layer_pattern = LayerPattern::of(b"SF");
    a.window = 4096;
    a
}

/// Gemma-3: four norms per layer, q/k norms, five sliding-window layers to one global; its rotary
/// tables a local one (base 10,000) and a global one (base 1,000,000; from 4B on linear scaling × 8,
/// so 8 × 131,072 positions in vLLM's table).
const fn gemma3(mut a: Architecture, window: u64, rope: RopeTables) -> Architecture {
    a.rope = rope;
    a.norms_per_layer = 4;
    a.qk_norm = true;
    a.layer_pattern = LayerPattern::of(b"SSSSSF");
    a.window = window;
    a
}

const GEMMA3_1B_ROPE: RopeTables = RopeTables::LocalGlobal { local: 32_768, global: 32_768 };
const GEMMA3_ROPE: RopeTables = RopeTables::LocalGlobal { local: 131_072, global: 8 * 131_072 };

const SIGLIP: VisionSpec =
    VisionSpec { temporal_patch: 1, merge: 1, ..VisionSpec::of(VisionKind::Siglip, 27, 1152, 16, 4304, 14) };

/// Gemma-4 E2B's and E4B's tower (their config.json: 16 blocks of 768, 12 heads, MLP 3,072, 16 px
/// patches pooled 3 × 3, a budget of 280 tokens per image); 26B-A4B's and 31B's is 27 × 1,152.
/// No preset carries it: `vision=gemma4` starts from it.
pub const GEMMA4_TOWER: VisionSpec = VisionSpec {
    temporal_patch: 1,
    merge: 3,
    max_tokens: 280,
    ..VisionSpec::of(VisionKind::Gemma4, 16, 768, 12, 3072, 16)
};

/// InternVL 2.5–3.5's InternViT-300M-448px (24 blocks of 1,024, 16 heads, an MLP of 4,096, 14 px
/// patches, pixel shuffle 2 × 2), tiling an image into at most 12 tiles (`max_dynamic_patch`) of
/// 256 tokens; what `vision=internvl` gives a model without a tower.
pub const INTERNVIT_300M: VisionSpec = VisionSpec {
    temporal_patch: 1,
    max_tokens: 12 * 256,
    ..VisionSpec::of(VisionKind::InternVl, 24, 1024, 16, 4096, 14)
};

/// DeepSeek's latent attention with its usual dimensions (V2-Lite has no q latent).
const fn mla(q_lora_rank: u64) -> Option<MlaSpec> {
    Some(MlaSpec { q_lora_rank, kv_lora_rank: 512, qk_rope_head_dim: 64, qk_nope_head_dim: 128, v_head_dim: 128 })
}

/// DeepSeek-V3-style MoE: 1 shared expert, the first `dense` layers dense (18432), router bias.
const fn deepseek_moe(experts: u64, dense: u64) -> Option<MoeSpec> {
    Some(MoeSpec {
        shared: 1,
        shared_ffn: 2048,
        dense_layers: dense,
        dense_ffn: 18432,
        router_bias: true,
        ..MoeSpec::routed(experts, 8, 2048)
    })
}

/// gpt-oss: biases on attention and experts, sinks, alternating 128-token windows, MXFP4 experts.
const fn gpt_oss(name: &'static str, layers: u64, experts: u64) -> Architecture {
    let mut a = Architecture::decoder(name, layers, 2880, 64, 8, 64, 2880, 201088, false);
    a.qkv_bias = true;
    a.out_and_mlp_bias = true;
    a.sinks = true;
    a.layer_pattern = LayerPattern::of(b"SF");
    a.window = 128;
    a.moe = Some(MoeSpec { router_bias: true, ..MoeSpec::routed(experts, 4, 2880) });
    a.checkpoint = (StorageFormat::Mxfp4, QuantLayers::Experts);
    a
}

/// Llama-4: chunked local attention on three layers of four, a shared expert, the 336 px tiles.
const fn llama4(name: &'static str, experts: u64, step: u64) -> Architecture {
    let mut a = Architecture::decoder(name, 48, 5120, 40, 8, 128, 8192, 202048, false);
    a.layer_pattern = LayerPattern::of(b"CCCF");
    a.chunk = 8192;
    a.moe = Some(MoeSpec {
        shared: 1,
        shared_ffn: 8192,
        dense_ffn: 16384,
        step,
        dense_experts: true,
        ..MoeSpec::routed(experts, 1, 8192)
    });
    a.vision = Some(VisionSpec {
        temporal_patch: 1,
        merge: 1,
        out_dim: 4096,
        ..VisionSpec::of(VisionKind::Llama4, 34, 1408, 16, 5632, 14)
    });
    a
}

const fn qwen25_vl(a: Architecture) -> Architecture {
    with_vision(qwen2(a), VisionSpec::of(VisionKind::Qwen25Vl, 32, 1280, 16, 3420, 14))
}

const fn preset(
    id: &'static str,
    family: &'static str,
    year: u16,
    hf_repo: &'static str,
    published_parameters: u64,
    context: u64,
    mut architecture: Architecture,
) -> ModelPreset {
    architecture.max_context = context;
    #[cfg(feature = "page")]
    let _ = (hf_repo, published_parameters);
    ModelPreset {
        id,
        family,
        year,
        #[cfg(not(feature = "page"))]
        hf_repo,
        #[cfg(not(feature = "page"))]
        published_parameters,
        architecture,
    }
}

use Architecture as A;

const fn with_moe(mut a: Architecture, moe: MoeSpec) -> Architecture {
    a.moe = Some(moe);
    a
}

const fn with_vision(mut a: Architecture, vision: VisionSpec) -> Architecture {
    a.vision = Some(vision);
    a
}

/// Qwen3-Next's Gated DeltaNet: 16 key heads, 32 value heads of 128, a 4-tap convolution.
pub const QWEN3_NEXT_LINEAR: LinearSpec = LinearSpec {
    k_heads: 16,
    v_heads: 32,
    head_dim: 128,
    conv: 4,
    ssm_state: 0,
    short_conv: false,
    side_by_side: false,
};

const fn qwen3_next() -> Architecture {
    let mut a = qwen3(Architecture::decoder("Qwen3-Next-80B-A3B", 48, 2048, 16, 2, 256, 512, 151936, false));
    a.attn_gate = true;
    a.layer_pattern = LayerPattern::of(b"LLLF");
    a.linear = Some(QWEN3_NEXT_LINEAR);
    a.moe = Some(MoeSpec { shared: 1, shared_ffn: 512, shared_gate: true, ..MoeSpec::routed(512, 10, 512) });
    // partial_rotary_factor 0.25 of the 256-wide heads.
    a.rope = RopeTables::Tables { positions: 0, dim: 64 };
    a
}

/// DeepSeek-V3 / R1 and Kimi-K2: latent attention, block-FP8 checkpoints.
const fn deepseek_v3(name: &'static str, heads: u64, experts: u64, dense: u64, vocab: u64) -> Architecture {
    let mut a = Architecture::decoder(name, 61, 7168, heads, heads, 192, 2048, vocab, false);
    a.mla = mla(1536);
    a.moe = deepseek_moe(experts, dense);
    a.checkpoint = (StorageFormat::Fp8Block, QuantLayers::All);
    a
}

const fn deepseek_v2_lite() -> Architecture {
    let mut a = Architecture::decoder("DeepSeek-V2-Lite", 27, 2048, 16, 16, 192, 1408, 102400, false);
    a.mla = mla(0);
    a.moe = Some(MoeSpec {
        shared: 2,
        shared_ffn: 1408,
        dense_layers: 1,
        dense_ffn: 10944,
        ..MoeSpec::routed(64, 6, 1408)
    });
    a
}

const fn glm_4_5_air() -> Architecture {
    let moe = MoeSpec {
        shared: 1,
        shared_ffn: 1408,
        dense_layers: 1,
        dense_ffn: 10944,
        router_bias: true,
        ..MoeSpec::routed(128, 8, 1408)
    };
    let mut a = with_moe(qwen2(Architecture::decoder("GLM-4.5-Air", 46, 4096, 96, 8, 128, 1408, 151552, false)), moe);
    // partial_rotary_factor 0.5 of the 128-wide heads.
    a.rope = RopeTables::Tables { positions: 0, dim: 64 };
    a
}

/// GLM-4.7-Flash (`glm4_moe_lite`): DeepSeek-V3's latent attention (q rank 768; keys 192 + 64
/// rotary, values 256 wide) over 20 heads, 64 routed experts of 1,536 (top 4) and one shared, the
/// first layer dense (10,240), router bias (tests/data/configs/glm-4.7-flash.json).
const fn glm_4_7_flash() -> Architecture {
    let mut a = Architecture::decoder("GLM-4.7-Flash", 47, 2048, 20, 20, 256, 1536, 154880, false);
    a.mla = Some(MlaSpec {
        q_lora_rank: 768,
        kv_lora_rank: 512,
        qk_rope_head_dim: 64,
        qk_nope_head_dim: 192,
        v_head_dim: 256,
    });
    a.moe = Some(MoeSpec {
        shared: 1,
        shared_ffn: 1536,
        dense_layers: 1,
        dense_ffn: 10240,
        router_bias: true,
        ..MoeSpec::routed(64, 4, 1536)
    });
    a
}

const fn gpt2() -> Architecture {
    let mut a = Architecture::decoder("GPT-2", 12, 768, 12, 12, 64, 3072, 50257, true);
    a.mlp = MlpKind::Gelu;
    a.norm = NormKind::LayerNorm;
    a.qkv_bias = true;
    a.out_and_mlp_bias = true;
    a.learned_positions = 1024;
    // `resid_pdrop` 0.1: each block's dropout keeps its mask in training.
    a.hidden_dropout = 0.1;
    a
}

/// Every built-in model, grouped by family. Published counts: the Hub's safetensors totals and the
/// model cards, each with its source in `tests/presets.rs`.
pub static MODELS: [ModelPreset; 55] = [
    preset(
        "llama-2-7b",
        "Llama 2",
        2023,
        "meta-llama/Llama-2-7b-hf",
        6_738_415_616,
        4_096,
        A::decoder("Llama-2-7B", 32, 4096, 32, 32, 128, 11008, 32000, false),
    ),
    preset(
        "llama-2-13b",
        "Llama 2",
        2023,
        "meta-llama/Llama-2-13b-hf",
        13_015_864_320,
        4_096,
        A::decoder("Llama-2-13B", 40, 5120, 40, 40, 128, 13824, 32000, false),
    ),
    preset(
        "llama-2-70b",
        "Llama 2",
        2023,
        "meta-llama/Llama-2-70b-hf",
        68_976_648_192,
        4_096,
        A::decoder("Llama-2-70B", 80, 8192, 64, 8, 128, 28672, 32000, false),
    ),
    preset(
        "llama-3.2-1b",
        "Llama 3",
        2024,
        "meta-llama/Llama-3.2-1B",
        1_235_814_400,
        131_072,
        A::decoder("Llama-3.2-1B", 16, 2048, 32, 8, 64, 8192, 128256, true),
    ),
    preset(
        "llama-3.2-3b",
        "Llama 3",
        2024,
        "meta-llama/Llama-3.2-3B",
        3_212_749_824,
        131_072,
        A::decoder("Llama-3.2-3B", 28, 3072, 24, 8, 128, 8192, 128256, true),
    ),
    preset(
        "llama-3.1-8b",
        "Llama 3",
        2024,
        "meta-llama/Llama-3.1-8B",
        8_030_261_248,
        131_072,
        A::decoder("Llama-3.1-8B", 32, 4096, 32, 8, 128, 14336, 128256, false),
    ),
    preset(
        "llama-3.1-70b",
        "Llama 3",
        2024,
        "meta-llama/Llama-3.1-70B",
        70_553_706_496,
        131_072,
        A::decoder("Llama-3.1-70B", 80, 8192, 64, 8, 128, 28672, 128256, false),
    ),
    preset(
        "llama-3.3-70b",
        "Llama 3",
        2024,
        "meta-llama/Llama-3.3-70B-Instruct",
        70_553_706_496,
        131_072,
        A::decoder("Llama-3.3-70B-Instruct", 80, 8192, 64, 8, 128, 28672, 128256, false),
    ),
    preset(
        "llama-3.1-405b",
        "Llama 3",
        2024,
        "meta-llama/Llama-3.1-405B",
        405_853_388_800,
        131_072,
        A::decoder("Llama-3.1-405B", 126, 16384, 128, 8, 128, 53248, 128256, false),
    ),
    preset(
        "llama-4-scout",
        "Llama 4",
        2025,
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        108_641_793_536,
        10_485_760,
        llama4("Llama-4-Scout-17B-16E", 16, 1),
    ),
    preset(
        "llama-4-maverick",
        "Llama 4",
        2025,
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
        401_583_781_376,
        1_048_576,
        llama4("Llama-4-Maverick-17B-128E", 128, 2),
    ),
    preset(
        "qwen3-0.6b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-0.6B",
        596_049_920,
        40_960,
        qwen3(A::decoder("Qwen3-0.6B", 28, 1024, 16, 8, 128, 3072, 151936, true)),
    ),
    preset(
        "qwen3-1.7b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-1.7B",
        1_720_574_976,
        40_960,
        qwen3(A::decoder("Qwen3-1.7B", 28, 2048, 16, 8, 128, 6144, 151936, true)),
    ),
    preset(
        "qwen3-4b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-4B",
        4_022_468_096,
        40_960,
        qwen3(A::decoder("Qwen3-4B", 36, 2560, 32, 8, 128, 9728, 151936, true)),
    ),
    preset(
        "qwen3-8b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-8B",
        8_190_735_360,
        40_960,
        qwen3(A::decoder("Qwen3-8B", 36, 4096, 32, 8, 128, 12288, 151936, false)),
    ),
    preset(
        "qwen3-14b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-14B",
        14_768_307_200,
        40_960,
        qwen3(A::decoder("Qwen3-14B", 40, 5120, 40, 8, 128, 17408, 151936, false)),
    ),
    preset(
        "qwen3-32b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-32B",
        32_762_123_264,
        40_960,
        qwen3(A::decoder("Qwen3-32B", 64, 5120, 64, 8, 128, 25600, 151936, false)),
    ),
    preset(
        "qwen3-30b-a3b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-30B-A3B",
        30_532_122_624,
        40_960,
        with_moe(
            qwen3(A::decoder("Qwen3-30B-A3B", 48, 2048, 32, 4, 128, 768, 151936, false)),
            MoeSpec::routed(128, 8, 768),
        ),
    ),
    preset(
        "qwen3-235b-a22b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-235B-A22B",
        235_093_634_560,
        40_960,
        with_moe(
            qwen3(A::decoder("Qwen3-235B-A22B", 94, 4096, 64, 4, 128, 1536, 151936, false)),
            MoeSpec::routed(128, 8, 1536),
        ),
    ),
    preset(
        "qwen3-next-80b-a3b",
        "Qwen3",
        2025,
        "Qwen/Qwen3-Next-80B-A3B-Instruct",
        79_674_391_296,
        262_144,
        qwen3_next(),
    ),
    preset(
        "qwen3-vl-8b",
        "Qwen-VL",
        2025,
        "Qwen/Qwen3-VL-8B-Instruct",
        8_767_123_696,
        262_144,
        with_vision(
            qwen3(A::decoder("Qwen3-VL-8B", 36, 4096, 32, 8, 128, 12288, 151936, false)),
            VisionSpec::of(VisionKind::Qwen3Vl, 27, 1152, 16, 4304, 16),
        ),
    ),
    preset(
        "qwen2.5-0.5b",
        "Qwen2.5",
        2024,
        "Qwen/Qwen2.5-0.5B",
        494_032_768,
        32_768,
        qwen2(A::decoder("Qwen2.5-0.5B", 24, 896, 14, 2, 64, 4864, 151936, true)),
    ),
    preset(
        "qwen2.5-1.5b",
        "Qwen2.5",
        2024,
        "Qwen/Qwen2.5-1.5B",
        1_543_714_304,
        32_768,
        qwen2(A::decoder("Qwen2.5-1.5B", 28, 1536, 12, 2, 128, 8960, 151936, true)),
    ),
    preset(
        "qwen2.5-3b",
        "Qwen2.5",
        2024,
        "Qwen/Qwen2.5-3B",
        3_085_938_688,
        32_768,
        qwen2(A::decoder("Qwen2.5-3B", 36, 2048, 16, 2, 128, 11008, 151936, true)),
    ),
    preset(
        "qwen2.5-7b",
        "Qwen2.5",
        2024,
        "Qwen/Qwen2.5-7B",
        7_615_616_512,
        32_768,
        qwen2(A::decoder("Qwen2.5-7B", 28, 3584, 28, 4, 128, 18944, 152064, false)),
    ),
    preset(
        "qwen2.5-14b",
        "Qwen2.5",
        2024,
        "Qwen/Qwen2.5-14B",
        14_770_033_664,
        32_768,
        qwen2(A::decoder("Qwen2.5-14B", 48, 5120, 40, 8, 128, 13824, 152064, false)),
    ),
    preset(
        "qwen2.5-32b",
        "Qwen2.5",
        2024,
        "Qwen/Qwen2.5-32B",
        32_763_876_352,
        32_768,
        qwen2(A::decoder("Qwen2.5-32B", 64, 5120, 40, 8, 128, 27648, 152064, false)),
    ),
    preset(
        "qwen2.5-72b",
        "Qwen2.5",
        2024,
        "Qwen/Qwen2.5-72B",
        72_706_203_648,
        32_768,
        qwen2(A::decoder("Qwen2.5-72B", 80, 8192, 64, 8, 128, 29568, 152064, false)),
    ),
    preset(
        "qwen2-vl-7b",
        "Qwen-VL",
        2024,
        "Qwen/Qwen2-VL-7B-Instruct",
        8_291_375_616,
        32_768,
        with_vision(
            qwen2(A::decoder("Qwen2-VL-7B-Instruct", 28, 3584, 28, 4, 128, 18944, 152064, false)),
            VisionSpec::of(VisionKind::Qwen2Vl, 32, 1280, 16, 5120, 14),
        ),
    ),
    preset(
        "qwen2.5-vl-7b",
        "Qwen-VL",
        2025,
        "Qwen/Qwen2.5-VL-7B-Instruct",
        8_292_166_656,
        128_000,
        qwen25_vl(A::decoder("Qwen2.5-VL-7B-Instruct", 28, 3584, 28, 4, 128, 18944, 152064, false)),
    ),
    preset(
        "qwen2.5-vl-72b",
        "Qwen-VL",
        2025,
        "Qwen/Qwen2.5-VL-72B-Instruct",
        73_406_351_360,
        128_000,
        qwen25_vl(A::decoder("Qwen2.5-VL-72B-Instruct", 80, 8192, 64, 8, 128, 29568, 152064, false)),
    ),
    preset(
        "qwen1.5-moe-a2.7b",
        "Qwen1.5-MoE",
        2024,
        "Qwen/Qwen1.5-MoE-A2.7B",
        14_315_784_192,
        32_768,
        with_moe(
            qwen2(A::decoder("Qwen1.5-MoE-A2.7B", 24, 2048, 16, 16, 128, 1408, 151936, false)),
            MoeSpec { shared: 1, shared_ffn: 5632, shared_gate: true, ..MoeSpec::routed(60, 4, 1408) },
        ),
    ),
    preset(
        "deepseek-v3",
        "DeepSeek",
        2025,
        "deepseek-ai/DeepSeek-V3",
        671_026_419_200,
        163_840,
        deepseek_v3("DeepSeek-V3 / R1", 128, 256, 3, 129280),
    ),
    preset(
        "deepseek-v2-lite",
        "DeepSeek",
        2024,
        "deepseek-ai/DeepSeek-V2-Lite",
        15_706_484_224,
        163_840,
        deepseek_v2_lite(),
    ),
    preset(
        "deepseek-r1-distill-qwen-7b",
        "DeepSeek",
        2025,
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        7_615_616_512,
        131_072,
        qwen2(A::decoder("DeepSeek-R1-Distill-Qwen-7B", 28, 3584, 28, 4, 128, 18944, 152064, false)),
    ),
    preset(
        "deepseek-r1-distill-qwen-32b",
        "DeepSeek",
        2025,
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
        32_763_876_352,
        131_072,
        qwen2(A::decoder("DeepSeek-R1-Distill-Qwen-32B", 64, 5120, 40, 8, 128, 27648, 152064, false)),
    ),
    preset(
        "deepseek-r1-distill-llama-70b",
        "DeepSeek",
        2025,
        "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
        70_553_706_496,
        131_072,
        A::decoder("DeepSeek-R1-Distill-Llama-70B", 80, 8192, 64, 8, 128, 28672, 128256, false),
    ),
    preset(
        "kimi-k2",
        "Kimi",
        2025,
        "moonshotai/Kimi-K2-Instruct",
        1_026_408_232_448,
        131_072,
        deepseek_v3("Kimi-K2", 64, 384, 1, 163840),
    ),
    preset("glm-4.5-air", "GLM", 2025, "zai-org/GLM-4.5-Air", 106_852_251_264, 131_072, glm_4_5_air()),
    // The Hub's "31B" counts the multi-token-prediction layer (with its own embedding and head),
    // which transformers does not load (tests/hf_config.rs).
    preset("glm-4.7-flash", "GLM", 2026, "zai-org/GLM-4.7-Flash", 29_943_393_920, 202_752, glm_4_7_flash()),
    preset(
        "gpt-oss-20b",
        "gpt-oss",
        2025,
        "openai/gpt-oss-20b",
        20_914_757_184,
        131_072,
        gpt_oss("gpt-oss-20b", 24, 32),
    ),
    preset(
        "gpt-oss-120b",
        "gpt-oss",
        2025,
        "openai/gpt-oss-120b",
        116_829_156_672,
        131_072,
        gpt_oss("gpt-oss-120b", 36, 128),
    ),
    preset(
        "gemma-3-1b",
        "Gemma 3",
        2025,
        "google/gemma-3-1b-it",
        999_885_952,
        32_768,
        gemma3(A::decoder("Gemma-3-1B", 26, 1152, 4, 1, 256, 6912, 262144, true), 512, GEMMA3_1B_ROPE),
    ),
    preset(
        "gemma-3-4b",
        "Gemma 3",
        2025,
        "google/gemma-3-4b-it",
        4_300_079_472,
        131_072,
        with_vision(
            gemma3(A::decoder("Gemma-3-4B", 34, 2560, 8, 4, 256, 10240, 262208, true), 1024, GEMMA3_ROPE),
            SIGLIP,
        ),
    ),
    preset(
        "gemma-3-12b",
        "Gemma 3",
        2025,
        "google/gemma-3-12b-it",
        12_187_325_040,
        131_072,
        with_vision(
            gemma3(A::decoder("Gemma-3-12B", 48, 3840, 16, 8, 256, 15360, 262208, true), 1024, GEMMA3_ROPE),
            SIGLIP,
        ),
    ),
    preset(
        "gemma-3-27b",
        "Gemma 3",
        2025,
        "google/gemma-3-27b-it",
        27_432_406_640,
        131_072,
        with_vision(
            gemma3(A::decoder("Gemma-3-27B", 62, 5376, 32, 16, 128, 21504, 262208, true), 1024, GEMMA3_ROPE),
            SIGLIP,
        ),
    ),
    preset(
        "gemma-2-2b",
        "Gemma 2",
        2024,
        "google/gemma-2-2b",
        2_614_341_888,
        8_192,
        gemma2(A::decoder("Gemma-2-2B", 26, 2304, 8, 4, 256, 9216, 256000, true)),
    ),
    preset(
        "gemma-2-9b",
        "Gemma 2",
        2024,
        "google/gemma-2-9b",
        9_241_705_984,
        8_192,
        gemma2(A::decoder("Gemma-2-9B", 42, 3584, 16, 8, 256, 14336, 256000, true)),
    ),
    preset(
        "gemma-2-27b",
        "Gemma 2",
        2024,
        "google/gemma-2-27b",
        27_227_128_320,
        8_192,
        gemma2(A::decoder("Gemma-2-27B", 46, 4608, 32, 16, 128, 36864, 256000, true)),
    ),
    preset(
        "mistral-7b",
        "Mistral",
        2023,
        "mistralai/Mistral-7B-v0.1",
        7_241_732_096,
        32_768,
        A::decoder("Mistral-7B-v0.1", 32, 4096, 32, 8, 128, 14336, 32000, false),
    ),
    preset(
        "mixtral-8x7b",
        "Mistral",
        2023,
        "mistralai/Mixtral-8x7B-v0.1",
        46_702_792_704,
        32_768,
        with_moe(
            A::decoder("Mixtral-8x7B-v0.1", 32, 4096, 32, 8, 128, 14336, 32000, false),
            MoeSpec::routed(8, 2, 14336),
        ),
    ),
    preset(
        "mistral-small-3.1-24b",
        "Mistral",
        2025,
        "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        24_011_361_280,
        131_072,
        with_vision(
            A::decoder("Mistral-Small-3.1-24B", 40, 5120, 32, 8, 128, 32768, 131072, false),
            VisionSpec { temporal_patch: 1, ..VisionSpec::of(VisionKind::Pixtral, 24, 1024, 16, 4096, 14) },
        ),
    ),
    preset(
        "phi-3-mini",
        "Phi",
        2024,
        "microsoft/Phi-3-mini-4k-instruct",
        3_821_079_552,
        4_096,
        A::decoder("Phi-3-mini-4k-instruct", 32, 3072, 32, 32, 96, 8192, 32064, false),
    ),
    preset(
        "phi-4",
        "Phi",
        2024,
        "microsoft/phi-4",
        14_659_507_200,
        16_384,
        A::decoder("Phi-4", 40, 5120, 40, 10, 128, 17920, 100352, false),
    ),
    preset("gpt2", "GPT-2", 2019, "openai-community/gpt2", 124_439_808, 1_024, gpt2()),
];

pub fn models() -> &'static [ModelPreset] {
    &MODELS
}

pub fn model(id: &str) -> Option<&'static ModelPreset> {
    MODELS.iter().find(|m| m.id == id)
}
