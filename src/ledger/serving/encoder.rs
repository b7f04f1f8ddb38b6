//! A vision-language model's encoder at a serving engine's start-up. vLLM's profiling run encodes
//! the largest multimodal batch its scheduler could meet and keeps the outputs (and, before its V2
//! model runner, the pixel inputs) through the language model's dummy run; a prompt limit of 0
//! skips both, and from 0.10.1 the tower itself. SGLang profiles no encoder: it lowers its default
//! static share for a multimodal model instead. Read in vLLM 0.7.3–0.34.0 and SGLang
//! 0.4.6–0.5.23 (docs/research/serving/vlm-encoder-profile.md, with file and line per rule).

use crate::ledger::architecture::{Architecture, ImageSize, VisionKind, VisionSpec};
use crate::ledger::scenario::{EngineSettings, Release};

/// The image processor's own `max_pixels` of a tower that takes it (the Qwen-VL towers).
pub fn max_pixels_of(v: &VisionSpec) -> Option<u64> {
    v.kind.is_qwen_vl().then(|| default_max_pixels(v))
}

/// The image processors' own `max_pixels`: Qwen2-VL and Qwen2.5-VL 12,845,056 (16,384 tokens of
/// 28 px), Qwen3-VL 16,777,216 (16,384 tokens of 32 px).
pub fn default_max_pixels(v: &VisionSpec) -> u64 {
    match v.kind {
        VisionKind::Qwen3Vl => 16_777_216,
        _ => 12_845_056,
    }
}

/// vLLM's frames per dummy video from 0.11 (`_MAX_FRAMES_PER_VIDEO`).
const MAX_FRAMES: u64 = 14;

/// What one profiled item is: its language-model tokens (embeddings), the placeholder tokens the
/// scheduler counts for it in 0.10.1–0.12 (breaks and markers included), its patches, and the
/// fp32 pixel values per patch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Item {
    pub video: bool,
    pub tokens: u64,
    pub placeholder: u64,
    pub patches: u64,
    pub pixels_per_patch: u64,
}

/// The largest image vLLM's dummy data builds for `v` (`get_image_size_with_most_features`):
/// a Qwen-VL image of `max_pixels`, Gemma-3's one 896 px crop (pan-and-scan off), Llama-4's
/// 16 tiles and the global view, Pixtral's square of 1,540 px, Gemma-4's image at its budget.
fn image_item(v: &VisionSpec, max_pixels: u64) -> Item {
    let patch_pixels = 3 * v.patch * v.patch;
    match v.kind {
        VisionKind::Qwen2Vl | VisionKind::Qwen25Vl | VisionKind::Qwen3Vl => {
            let side = v.pixels_per_token_side();
            let tokens = (max_pixels / (side * side)).max(v.min_tokens.max(1));
            let patches = tokens.saturating_mul(v.merge * v.merge);
            Item {
                video: false,
                tokens,
                placeholder: tokens,
                patches,
                pixels_per_patch: patch_pixels * v.temporal_patch,
            }
        }
        VisionKind::Siglip => {
            let patches = v.tile_patches().unwrap_or(0);
            Item { video: false, tokens: 256, placeholder: 260, patches, pixels_per_patch: patch_pixels }
        }
        // Gemma-4: the budget's tokens (`get_mm_max_tokens_per_item`: `default_output_length`)
        // between its two markers, from the processor's patches padded to merge² · budget (whether
        // vLLM drops the padding before the blocks was not read: counted).
        VisionKind::Gemma4 => Item {
            video: false,
            tokens: v.max_tokens,
            placeholder: v.max_tokens + 2,
            patches: v.patches_per_image(ImageSize::square(0)),
            pixels_per_patch: patch_pixels,
        },
        VisionKind::Llama4 => {
            let tiles = 17;
            let patches = tiles * v.tile_patches().unwrap_or(0);
            Item {
                video: false,
                tokens: tiles * 144,
                placeholder: tiles * 145 + 2,
                patches,
                pixels_per_patch: patch_pixels,
            }
        }
        // InternVL: the grid of the most tiles (`get_image_size_with_most_features`: max_dynamic_patch
        // of them) and the thumbnail, each 256 tokens between `<img>` and `</img>`.
        VisionKind::InternVl => {
            let per_tile = v.internvl_tile_tokens();
            let tiles = v.internvl_max_tiles() + 1;
            let patches = tiles * v.tile_patches().unwrap_or(0);
            Item {
                video: false,
                tokens: tiles * per_tile,
                placeholder: tiles * per_tile + 2,
                patches,
                pixels_per_patch: patch_pixels,
            }
        }
        VisionKind::Pixtral => {
            let per_side = 1540u64.div_ceil(v.pixels_per_token_side());
            let patches = per_side * per_side * v.merge * v.merge;
            let tokens = per_side * per_side;
            Item { video: false, tokens, placeholder: tokens + per_side, patches, pixels_per_patch: patch_pixels }
        }
    }
}

/// Qwen2-VL's and Qwen2.5-VL's dummy video from vLLM 0.11: as many frames (up to 14) as the
/// context holds, a pair of frames one image's tokens. Earlier releases built a one-frame dummy
/// (an image's size); Qwen3-VL's video is not modelled (from 0.13 its image is the larger).
fn video_item(v: &VisionSpec, image: Item, context: u64) -> Option<Item> {
    if !matches!(v.kind, VisionKind::Qwen2Vl | VisionKind::Qwen25Vl) {
        return None;
    }
    let pairs = (context / image.tokens.max(1)).clamp(1, MAX_FRAMES.div_ceil(2));
    let tokens = pairs * image.tokens;
    Some(Item { video: true, tokens, placeholder: tokens, patches: pairs * image.patches, ..image })
}

/// The profile vLLM runs: `items` of `item`, the bytes the encoder's forward holds at its
/// largest moment, and what stays through the language model's dummy run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EncoderProfile {
    pub item: Item,
    pub items: u64,
    /// The pixel values (fp32), the encoder's largest block moment, Pixtral's dense mask.
    pub inputs: f64,
    pub forward: f64,
    pub mask: f64,
    /// The outputs kept (rows × the language model's width, 16-bit; padded rows in 0.11–0.12).
    pub outputs: f64,
    pub output_rows: u64,
    /// Whether the inputs stay through the language model's run (before the V2 model runner).
    pub inputs_held: bool,
}

impl EncoderProfile {
    /// The encoder's own moment: its inputs, a block's working set and Pixtral's mask.
    pub fn encoder_peak(&self) -> f64 {
        self.inputs + self.forward + self.mask
    }

    /// What the language model's dummy run and the sampler's warm-up find held.
    pub fn held(&self) -> f64 {
        self.outputs + if self.inputs_held { self.inputs } else { 0.0 }
    }
}

/// Whether a served VLM encodes nothing: every modality it takes limited to 0 per prompt.
pub fn text_only(arch: &Architecture, e: &EngineSettings) -> bool {
    match &arch.vision {
        None => true,
        Some(v) => e.mm_limit == Some(0) && (!takes_video(v) || e.mm_video == Some(0)),
    }
}

fn takes_video(v: &VisionSpec) -> bool {
    v.kind.is_qwen_vl()
}

/// Whether vLLM `version` builds no vision tower when every limit is 0: from 0.10.1 for
/// Qwen2/2.5-VL, Mistral-3 and Llama-4, 0.11 for Qwen3-VL, 0.16 for every model (Gemma-3).
pub fn vllm_skips_tower(arch: &Architecture, e: &EngineSettings, version: Release) -> bool {
    let Some(v) = &arch.vision else { return false };
    let from = match v.kind {
        VisionKind::Qwen3Vl => Release(0, 11, 0),
        VisionKind::Siglip => Release(0, 16, 0),
        _ => Release(0, 10, 1),
    };
    text_only(arch, e) && version >= from
}

/// One patch's bytes at the encoder block's largest moment, in 16-bit activations: the residual
/// and the normed input, then either attention's fused qkv output and its q, k, v made contiguous
/// (with rotary positions, q's fp32 copy and the rotated result) or the MLP's up (and gate) and
/// activation outputs. vLLM's ViT attention (FlashAttention varlen, xFormers, or SDPA per image or
/// window) builds no patches² scores. The tower is counted whole on each GPU: its qkv is gathered
/// across tensor parallel before the heads are split (`split_qkv`).
fn patch_bytes(v: &VisionSpec) -> f64 {
    let d = v.dim as f64;
    let rotary = if v.kind == VisionKind::Siglip { 0.0 } else { 8.0 * d };
    let gated = v.kind.gated_mlp();
    let mlp = if gated { 3.0 } else { 2.0 } * v.mlp as f64;
    let attention = 2.0 * (2.0 * d + 6.0 * d) + rotary;
    (2.0 * (2.0 * d + mlp)).max(attention)
}

/// vLLM's encoder profile for a served VLM (`None`: a text model, or every limit 0). `seqs` and
/// `batched` are the scheduler's `max_num_seqs` and `max_num_batched_tokens`, `context` the
/// `max_model_len`, `hidden` the language model's width.
pub fn vllm_profile(
    arch: &Architecture,
    e: &EngineSettings,
    (version, v0): (Release, bool),
    (seqs, batched, context): (u64, u64, u64),
) -> Option<EncoderProfile> {
    let v = arch.vision.as_ref()?;
    if text_only(arch, e) {
        return None;
    }
    let v1 = !v0;
    let default_limit = if v1 { 999 } else { 1 };
    let image_limit = e.mm_limit.map_or(default_limit, u64::from);
    let video_limit = e.mm_video.map_or(default_limit, u64::from);
    let image = image_item(v, e.max_pixels.map_or_else(|| default_max_pixels(v), u64::from));
    let video = video_item(v, image, context).filter(|_| version >= Release(0, 11, 0) && video_limit > 0);
    // The modality whose item has the most tokens (an image when no limit lets it in).
    let (item, limit) = match video {
        Some(clip) if clip.tokens > image.tokens || image_limit == 0 => (clip, video_limit),
        _ => (image, image_limit),
    };
    // 0.10.1–0.12 count the placeholder's tokens (markers and row breaks too).
    let counted =
        if version >= Release(0, 10, 1) && version < Release(0, 13, 0) { item.placeholder } else { item.tokens };
    let counted = counted.max(1);
    let budget = batched.max(counted);
    let seqs = seqs.max(1);
    let items = if !v1 {
        // V0: as many dummy sequences as the batch holds, each with every item its limit allows.
        (batched / limit.saturating_mul(counted).max(1)).clamp(1, seqs) * limit.max(1)
    } else if version < Release(0, 10, 0) {
        budget.div_ceil(counted).min(seqs.saturating_mul(limit))
    } else if version < Release(0, 10, 1) {
        (budget / counted).min(seqs.saturating_mul(limit)).max(1)
    } else {
        let per_prompt = limit.min(context / counted).max(1);
        (budget / counted).min(seqs.saturating_mul(per_prompt)).max(1)
    };
    let patches = items.saturating_mul(item.patches) as f64;
    // 0.11 pads each output to the encoder budget's rows, 0.12 to the modality's largest item.
    let rows_per_item = if version >= Release(0, 11, 0) && version < Release(0, 12, 0) {
        budget
    } else if version >= Release(0, 12, 0) && version < Release(0, 13, 0) {
        counted
    } else {
        item.tokens
    };
    let output_rows = items.saturating_mul(rows_per_item);
    // Qwen3-VL's rows carry its three DeepStack levels beside the merger's output (Qwen3.5: none).
    let width = if v.kind == VisionKind::Qwen3Vl { 1 + v.deepstack } else { 1 } * arch.hidden;
    // Pixtral's attention without xFormers (vLLM 0.12–0.28 on CUDA): HF's dense block mask over
    // every patch of the batch, in 16 bits.
    let mask = if v.kind == VisionKind::Pixtral && version >= Release(0, 12, 0) && version < Release(0, 30, 0) {
        patches * patches * 2.0
    } else {
        0.0
    };
    Some(EncoderProfile {
        item,
        items,
        inputs: patches * item.pixels_per_patch as f64 * 4.0,
        forward: patches * patch_bytes(v),
        mask,
        outputs: output_rows as f64 * width as f64 * 2.0,
        output_rows,
        inputs_held: version < Release(0, 33, 0),
    })
}

/// SGLang's factor on its default `mem_fraction_static` for a multimodal model: 0.9 before
/// 0.4.10; from 0.4.10 (`adjust_mem_fraction_for_vlm`) 0.95 × clamp(1 − 0.1 × (L·H² ÷ (24 ·
/// 1,024²) − 1), 0.8, 1.05), with L the vision config's `num_hidden_layers` (24 when it has none:
/// Qwen's towers name theirs `depth`) and H its `hidden_size` (Qwen2-VL's repeats the language
/// model's). Gemma-3 and Llama-4 are served text-only unless `--enable-multimodal` (1.0); Gemma-4
/// is taken as Gemma-3 (not read: a published 26B-A4B log's pool is reproduced without the factor,
/// tests/serving.rs).
pub fn sglang_fraction_factor(arch: &Architecture, version: Release) -> f64 {
    let Some(v) = &arch.vision else { return 1.0 };
    // Gemma-3, Gemma-4 and Llama-4 (`sglang_factor_applies`) are served as text models.
    let (layers, hidden) = match v.kind {
        VisionKind::Siglip | VisionKind::Gemma4 | VisionKind::Llama4 => return 1.0,
        VisionKind::Qwen2Vl => (24, arch.hidden),
        VisionKind::Qwen25Vl | VisionKind::Qwen3Vl => (24, v.dim),
        VisionKind::Pixtral | VisionKind::InternVl => (v.blocks, v.dim),
    };
    if version < Release(0, 4, 10) {
        return 0.9;
    }
    let ratio = layers as f64 * (hidden as f64).powi(2) / (24.0 * 1024.0 * 1024.0);
    0.95 * crate::ledger::units::within(1.0 - 0.1 * (ratio - 1.0), 0.8, 1.05)
}

/// Whether SGLang serves the model as multimodal by default (`--enable-multimodal` is off for
/// Gemma-3, Gemma-4 and Llama-4).
fn sglang_factor_applies(v: &VisionSpec) -> bool {
    !matches!(v.kind, VisionKind::Siglip | VisionKind::Gemma4 | VisionKind::Llama4)
}

/// SGLang 0.5.23's multimodal embedding cache, taken from the pool (`SGLANG_VLM_CACHE_SIZE_MB`,
/// 100 MB; Qwen3-VL turns it off on large Hopper cards): earlier releases cache lazily, outside
/// the budget.
pub fn sglang_cache_bytes(arch: &Architecture, version: Release, hopper: bool) -> f64 {
    match &arch.vision {
        Some(v)
            if version >= Release(0, 5, 23)
                && sglang_factor_applies(v)
                && !(v.kind == VisionKind::Qwen3Vl && hopper) =>
        {
            100.0 * 1024.0 * 1024.0
        }
        _ => 0.0,
    }
}
