//! Model architectures and their exact parameter counts.
//!
//! The counts follow the tensors a Hugging Face checkpoint holds — embeddings, attention (grouped-
//! query, latent or linear), the MLP or the experts with their router and shared experts, norms,
//! biases, sinks, the LM head, the vision tower and its projector — so that they can be checked
//! against the counts the checkpoints publish. Layers may differ: each has an attention kind (full,
//! sliding window, chunked local, linear) from a repeating pattern, and an MLP kind (dense, or a
//! mixture of experts from `dense_layers` on, every `moe_step`-th layer).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::msg::{Arg, Msg};
use super::storage::{QuantLayers, StorageFormat};
use crate::msg;

/// The page's build bills no model whose full-attention layers have their own shape: it asks the
/// reader worker (`Scenario::billed_on_demand`), so the per-kind views below drop out of it.
const PAGE: bool = cfg!(feature = "page");

/// Gated (SwiGLU / GeGLU: gate, up, down) or plain (GELU: fc1, fc2) feed-forward block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MlpKind {
    Glu,
    Gelu,
}

impl MlpKind {
    /// Weight matrices of one MLP of intermediate size `ffn`.
    pub fn matrices(self) -> u64 {
        match self {
            MlpKind::Glu => 3,
            MlpKind::Gelu => 2,
        }
    }
}

/// RMSNorm carries one weight vector; LayerNorm a weight and a bias.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NormKind {
    RmsNorm,
    LayerNorm,
}

/// How a layer attends, and so what it caches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayerKind {
    /// Full attention: the cache holds every token (`F`).
    Full,
    /// Sliding window of `window` tokens (`S`: Gemma-3's local layers, gpt-oss).
    Sliding,
    /// Chunked local attention, `chunk` tokens (`C`: Llama-4).
    Chunked,
    /// Linear attention or a state-space layer: a fixed state per sequence (`L`: Qwen3-Next).
    Linear,
    /// No mixer: a block that is only an MLP (Nemotron-H's `-` and `E` blocks; `P`).
    None,
}

impl LayerKind {
    pub const ALL: [LayerKind; 5] =
        [LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked, LayerKind::Linear, LayerKind::None];

    pub fn letter(self) -> char {
        match self {
            LayerKind::Full => 'F',
            LayerKind::Sliding => 'S',
            LayerKind::Chunked => 'C',
            LayerKind::Linear => 'L',
            LayerKind::None => 'P',
        }
    }

    /// The letter and whether the layer has an MLP: F, S, C, L with one; A (attention) and M
    /// (Mamba / linear attention) blocks without one; P an MLP alone.
    fn from_letter(c: char) -> Option<(LayerKind, bool)> {
        match c.to_ascii_uppercase() {
            'A' => Some((LayerKind::Full, false)),
            'M' => Some((LayerKind::Linear, false)),
            c => LayerKind::ALL.into_iter().find(|k| k.letter() == c).map(|k| (k, true)),
        }
    }

    /// Whether a layer of this kind attends with softmax attention (and so caches keys and values).
    pub fn attends(self) -> bool {
        matches!(self, LayerKind::Full | LayerKind::Sliding | LayerKind::Chunked)
    }
}

/// The repeating per-layer string of attention kinds: layer i has kind `pattern[i % len]`, and an
/// MLP unless its bit in `no_mlp` is set (block-level hybrids such as Nemotron-H, whose blocks are
/// a mixer or an MLP, never both).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayerPattern {
    kinds: [LayerKind; LayerPattern::MAX],
    no_mlp: u128,
    len: u8,
}

impl LayerPattern {
    pub const MAX: usize = 128;

    /// Every layer full attention (`F`).
    pub const FULL: LayerPattern = LayerPattern { kinds: [LayerKind::Full; LayerPattern::MAX], no_mlp: 0, len: 1 };

    /// A pattern known to be valid at compile time (presets): letters other than F, S, C, L are F.
    pub const fn of(letters: &[u8]) -> LayerPattern {
        let mut p = LayerPattern { kinds: [LayerKind::Full; LayerPattern::MAX], no_mlp: 0, len: 0 };
        let mut i = 0;
        while i < letters.len() && i < LayerPattern::MAX {
            p.kinds[i] = match letters[i] {
                b'S' => LayerKind::Sliding,
                b'C' => LayerKind::Chunked,
                b'L' => LayerKind::Linear,
                _ => LayerKind::Full,
            };
            i += 1;
        }
        p.len = if i == 0 { 1 } else { i as u8 };
        p
    }

    /// `SSSSSF`, `SF`, `CCCF`, `LLLF` …: 1 to 128 letters of F, S, C, L (a layer with its MLP), A,
    /// M (an attention or a Mamba / linear-attention block without one), P (an MLP alone).
    pub fn parse(s: &str) -> Option<LayerPattern> {
        let s = s.trim();
        if s.is_empty() || s.chars().count() > LayerPattern::MAX {
            return None;
        }
        let blocks: Option<Vec<(LayerKind, bool)>> = s.chars().map(LayerKind::from_letter).collect();
        LayerPattern::from_blocks(&blocks?, false)
    }

    /// A pattern of `n` kinds (from a config's `layer_types`), shortened to its repeating unit.
    pub fn from_kinds(kinds: &[LayerKind]) -> Option<LayerPattern> {
        let blocks: Vec<(LayerKind, bool)> = kinds.iter().map(|&k| (k, true)).collect();
        LayerPattern::from_blocks(&blocks, true)
    }

    /// Layers as (kind, has an MLP), shortened to their repeating unit when `shorten`.
    pub fn from_blocks(blocks: &[(LayerKind, bool)], shorten: bool) -> Option<LayerPattern> {
        let n = blocks.len();
        let unit = if shorten {
            (1..=n.min(LayerPattern::MAX))
                .find(|&u| n % u == 0 && blocks.iter().enumerate().all(|(i, b)| *b == blocks[i % u]))?
        } else {
            n
        };
        if unit == 0 || unit > LayerPattern::MAX {
            return None;
        }
        let mut p = LayerPattern { kinds: [LayerKind::Full; LayerPattern::MAX], no_mlp: 0, len: unit as u8 };
        for (i, &(kind, mlp)) in blocks[..unit].iter().enumerate() {
            // A block has a mixer or an MLP or both; an attention-less, MLP-less one is nothing.
            if !mlp && !matches!(kind, LayerKind::Full | LayerKind::Linear) {
                return None;
            }
            p.kinds[i] = kind;
            if !mlp {
                p.no_mlp |= 1 << i;
            }
        }
        Some(p)
    }

    /// Whether layer `layer` has an MLP.
    pub fn has_mlp(&self, layer: u64) -> bool {
        self.no_mlp & (1 << (layer % self.len.max(1) as u64)) == 0
    }

    /// Layers among `layers` that have an MLP.
    pub fn mlp_count(&self, layers: u64) -> u64 {
        if self.no_mlp == 0 {
            return layers;
        }
        let len = self.len.max(1) as u64;
        let without = |n: u64| (0..n).filter(|&i| !self.has_mlp(i)).count() as u64;
        layers - ((layers / len).saturating_mul(without(len)).saturating_add(without(layers % len))).min(layers)
    }

    pub fn kinds(&self) -> &[LayerKind] {
        &self.kinds[..self.len as usize]
    }

    pub fn kind_of(&self, layer: u64) -> LayerKind {
        self.kinds[(layer % self.len.max(1) as u64) as usize]
    }

    /// Every layer full attention with its MLP.
    pub fn is_full(&self) -> bool {
        self.no_mlp == 0 && self.kinds().iter().all(|k| *k == LayerKind::Full)
    }

    /// Layers of `kind` among `layers`.
    pub fn count(&self, kind: LayerKind, layers: u64) -> u64 {
        let len = self.len.max(1) as u64;
        let per_unit = self.kinds().iter().filter(|k| **k == kind).count() as u64;
        let rest = self.kinds().iter().take((layers % len) as usize).filter(|k| **k == kind).count() as u64;
        (layers / len).saturating_mul(per_unit).saturating_add(rest)
    }

    pub fn text(&self) -> String {
        (self.kinds().iter().enumerate())
            .map(|(i, k)| match (k, self.has_mlp(i as u64)) {
                (LayerKind::Full, false) => 'A',
                (LayerKind::Linear, false) => 'M',
                (k, _) => k.letter(),
            })
            .collect()
    }
}

impl Serialize for LayerPattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for LayerPattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        LayerPattern::parse(&s).ok_or_else(|| serde::de::Error::custom("a layer pattern of F, S, C, L, A, M, P"))
    }
}

/// Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2): keys and values come from a shared
/// latent of `kv_lora_rank` values plus a `qk_rope_head_dim` rotary key, which is all the cache
/// holds per token; queries come through a `q_lora_rank` latent (0: a direct projection).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MlaSpec {
    pub q_lora_rank: u64,
    pub kv_lora_rank: u64,
    pub qk_rope_head_dim: u64,
    pub qk_nope_head_dim: u64,
    pub v_head_dim: u64,
}

impl MlaSpec {
    /// Values cached per token and layer: the latent and the rotary key, once (not K and V).
    pub fn cached_per_token(&self) -> u64 {
        self.kv_lora_rank.saturating_add(self.qk_rope_head_dim)
    }

    pub fn qk_head_dim(&self) -> u64 {
        self.qk_nope_head_dim.saturating_add(self.qk_rope_head_dim)
    }

    /// Values per token and layer of a cache that keeps the latent decompressed: every one of
    /// `heads` heads' key (nope and rotary) and value (transformers' `generate()`, llama.cpp before
    /// it cached the latent).
    pub fn decompressed_per_token(&self, heads: u64) -> u64 {
        heads.saturating_mul(self.qk_head_dim().saturating_add(self.v_head_dim))
    }
}

/// DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, `index_n_heads` ×
/// `index_head_dim`), beside latent attention in every layer: `wq_b` from the query latent to its
/// heads, `wk` from the hidden state to one key, a LayerNorm on the key, `weights_proj` to a weight
/// per head (DeepSeek's `inference/model.py` `Indexer`); vLLM and SGLang cache its key apart from
/// the latent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexerSpec {
    pub heads: u64,
    pub head_dim: u64,
}

impl IndexerSpec {
    /// One layer's parameters over a `hidden` state and a query latent of `q_lora_rank`.
    pub fn parameters(&self, hidden: u64, q_lora_rank: u64) -> u64 {
        let wq_b = q_lora_rank.saturating_mul(self.heads.saturating_mul(self.head_dim));
        let wk_and_norm = hidden.saturating_add(2).saturating_mul(self.head_dim);
        wq_b.saturating_add(wk_and_norm).saturating_add(hidden.saturating_mul(self.heads))
    }

    /// Its cached key per token and layer in vLLM and SGLang whatever the latent's dtype:
    /// `head_dim` fp8 values and an fp32 scale per 128 (132 B for V3.2).
    pub fn key_bytes(&self) -> u64 {
        self.head_dim.saturating_add(4 * self.head_dim.div_ceil(128))
    }
}

/// The linear-attention (`L`) layers' mixer, one of two kinds. Gated DeltaNet (Qwen3-Next,
/// Qwen3.5; `ssm_state` 0): `k_heads` key heads and `v_heads` value heads of `head_dim`, a short
/// causal convolution of `conv` taps; each sequence keeps a `v_heads × head_dim × head_dim` state
/// instead of a KV cache. Mamba-2 (Granite-4.0-H, Bamba; `ssm_state` N > 0): `v_heads` heads of
/// `head_dim` (the inner size), `k_heads` groups of B and C of N each, the convolution over x, B and
/// C; each sequence keeps a `v_heads × head_dim × N` state. LFM2's gated short convolution
/// (`short_conv`): `in_proj` to B, C and x of `v_heads × head_dim` channels each, a depthwise
/// convolution of `conv` taps over B·x, C times its output, `out_proj`; no state but the taps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinearSpec {
    pub k_heads: u64,
    pub v_heads: u64,
    pub head_dim: u64,
    pub conv: u64,
    /// Mamba-2's state size N (`mamba_d_state`); 0 for Gated DeltaNet.
    #[serde(default)]
    pub ssm_state: u64,
    /// LFM2's gated short convolution instead of a recurrence (`ssm_state` and `k_heads` unused).
    #[serde(default)]
    pub short_conv: bool,
    /// Each linear block runs beside the attention block after it, on the same input, the two one
    /// decoder layer (Falcon-H1's `FalconH1DecoderLayer`): a checkpoint keeps one input for the pair,
    /// and its backward recomputes both.
    #[serde(default)]
    pub side_by_side: bool,
}

impl LinearSpec {
    /// Whether the mixer is Mamba-2's (else Gated DeltaNet's).
    pub fn is_mamba(&self) -> bool {
        self.ssm_state > 0
    }

    /// Gated DeltaNet's q and k; Mamba-2's B and C (groups × N).
    fn key_dim(&self) -> u64 {
        if self.short_conv {
            return 0;
        }
        self.k_heads.saturating_mul(if self.is_mamba() { self.ssm_state } else { self.head_dim })
    }

    fn value_dim(&self) -> u64 {
        self.v_heads.saturating_mul(self.head_dim)
    }

    /// Channels of the convolution: q, k and v (Mamba-2: x, B and C).
    pub fn conv_dim(&self) -> u64 {
        self.key_dim().saturating_mul(2).saturating_add(self.value_dim())
    }

    /// Elements of the recurrent state of one sequence in one layer (a short convolution has none
    /// but its taps, `conv_dim`).
    pub fn state_elements(&self) -> u64 {
        if self.short_conv {
            return 0;
        }
        let n = if self.is_mamba() { self.ssm_state } else { self.head_dim };
        self.v_heads.saturating_mul(self.head_dim).saturating_mul(n)
    }

    /// Tokens per chunk of the chunked scan, whose fp32 state at each chunk boundary training
    /// keeps: fla's Gated DeltaNet kernel 64, mamba_ssm's `mamba_chunk_scan_combined` 256.
    pub fn chunk(&self) -> f64 {
        if self.is_mamba() {
            256.0
        } else {
            64.0
        }
    }
}

/// Mixture of experts: `experts` expert MLPs of size `expert_ffn` in every MoE layer, `active` of
/// them run for each token, plus `shared` always-on experts of size `shared_ffn`. The first
/// `dense_layers` layers, and all but every `step`-th after them, have a dense MLP of `dense_ffn`
/// (0: the model's `ffn`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoeSpec {
    pub experts: u64,
    pub active: u64,
    pub expert_ffn: u64,
    pub shared: u64,
    pub shared_ffn: u64,
    #[serde(default)]
    pub dense_layers: u64,
    #[serde(default)]
    pub dense_ffn: u64,
    #[serde(default = "one")]
    pub step: u64,
    /// A bias per expert on the router (gpt-oss; DeepSeek-V3's correction bias).
    #[serde(default)]
    pub router_bias: bool,
    /// A sigmoid gate (hidden → 1) on the shared experts (Qwen2-MoE, Qwen3-Next).
    #[serde(default)]
    pub shared_gate: bool,
    /// Every routed expert runs over every token, scaled by the router's score (zero for the
    /// experts not chosen): transformers' Llama-4 (`Llama4TextMoe`: `hidden_states.repeat(num_experts, 1)`,
    /// one batched matmul over all experts), where most implementations run each expert on its share.
    #[serde(default)]
    pub dense_experts: bool,
}

fn one() -> u64 {
    1
}

impl MoeSpec {
    /// `experts` routed experts of `expert_ffn`, `active` per token, in every layer; no shared
    /// experts, no dense layers, no biases.
    pub const fn routed(experts: u64, active: u64, expert_ffn: u64) -> MoeSpec {
        MoeSpec {
            experts,
            active,
            expert_ffn,
            shared: 0,
            shared_ffn: 0,
            dense_layers: 0,
            dense_ffn: 0,
            step: 1,
            router_bias: false,
            shared_gate: false,
            dense_experts: false,
        }
    }

    /// The routed experts whose intermediates a token occupies: its `active` ones, or all of them
    /// where every expert runs over every token (`dense_experts`).
    pub const fn experts_per_token(&self) -> u64 {
        if self.dense_experts {
            self.experts
        } else {
            self.active
        }
    }
}

/// Which vision tower a vision-language model carries (their layouts and token rules differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VisionKind {
    /// Qwen2-VL: LayerNorm blocks with a GELU MLP, 2×2 patch merger; (px/28)² tokens.
    Qwen2Vl,
    /// Qwen2.5-VL: RMSNorm blocks with a SwiGLU MLP (window attention), 2×2 merger; (px/28)² tokens.
    Qwen25Vl,
    /// Qwen3-VL: learned positions, 3 DeepStack mergers; (px/32)² tokens.
    Qwen3Vl,
    /// Gemma-3's SigLIP: a fixed 896 px image, pooled to 256 tokens.
    Siglip,
    /// Llama-4: 336 px tiles (up to 16, plus a global view), 144 tokens each after pixel shuffle.
    Llama4,
    /// Mistral-Small-3.1's Pixtral: one token per 28 px square after a 2×2 merge, plus a break per row.
    Pixtral,
    /// Gemma-4's tower: gated RMSNorm blocks with q, k and v norms and 2-D RoPE, a factored
    /// position table; an image keeps its aspect and is sized to a soft-token budget (`max_tokens`,
    /// the config's `default_output_length`: 280), its patches pooled `merge` × `merge` (3 × 3), and
    /// every image runs the budget's patch positions through the blocks, padding included.
    Gemma4,
    /// InternVL's InternViT (LayerNorm blocks with biases and layer scales, a GELU MLP, a class
    /// token and a position table): an image tiled into 448 px squares by the aspect ratio nearest
    /// its own (up to `max_tokens` ÷ 256 tiles, the config's `max_dynamic_patch`: 12) plus a
    /// thumbnail when more than one, each tile 1,024 patches and a class token, pixel-shuffled 2 × 2
    /// into 256 tokens of a two-layer projector.
    InternVl,
}

impl VisionKind {
    /// The Qwen-VL towers: an image processor with `max_pixels`, videos, and M-RoPE in their
    /// language model.
    pub fn is_qwen_vl(self) -> bool {
        matches!(self, VisionKind::Qwen2Vl | VisionKind::Qwen25Vl | VisionKind::Qwen3Vl)
    }

    /// The towers whose blocks have a gated MLP (gate, up and down) and RMSNorm: Qwen2.5-VL's,
    /// Pixtral's and Gemma-4's; the others have two matrices and LayerNorm.
    pub fn gated_mlp(self) -> bool {
        matches!(self, VisionKind::Qwen25Vl | VisionKind::Pixtral | VisionKind::Gemma4)
    }
}

/// An image's width and height in pixels (`image_px`: `N` for a square, `WxH` for another
/// shape).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSize {
    pub width: u64,
    pub height: u64,
}

impl ImageSize {
    pub const fn square(px: u64) -> ImageSize {
        ImageSize { width: px, height: px }
    }

    /// How a link writes it: `448`, or `320x50`.
    pub fn text(self) -> String {
        let mut text = self.width.to_string();
        if self.height != self.width {
            text.push('x');
            text.push_str(&self.height.to_string());
        }
        text
    }
}

/// A ViT-style vision tower and its projector into the language model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VisionSpec {
    #[serde(default = "qwen2vl")]
    pub kind: VisionKind,
    pub blocks: u64,
    pub dim: u64,
    pub heads: u64,
    pub mlp: u64,
    pub patch: u64,
    pub temporal_patch: u64,
    pub merge: u64,
    /// Smallest and largest number of language-model tokens one image may become.
    pub min_tokens: u64,
    pub max_tokens: u64,
    /// The projector's hidden width where it has one (Llama-4's adapter: 4096; 0 otherwise).
    #[serde(default)]
    pub out_dim: u64,
    /// Qwen3-VL's DeepStack mergers (`deepstack_visual_indexes`: 3; Qwen3.5's tower has none).
    /// Always written by whoever serializes a tower (the reader worker's answers).
    #[serde(default)]
    pub deepstack: u64,
}

fn qwen2vl() -> VisionKind {
    VisionKind::Qwen2Vl
}

impl VisionSpec {
    /// A tower of `kind` with `blocks` blocks of width `dim`, `heads` heads and an MLP of `mlp`, on
    /// `patch`-pixel patches; Qwen-style temporal patches of 2, a 2×2 merge, 4 … 16384 tokens.
    pub const fn of(kind: VisionKind, blocks: u64, dim: u64, heads: u64, mlp: u64, patch: u64) -> VisionSpec {
        VisionSpec {
            kind,
            blocks,
            dim,
            heads,
            mlp,
            patch,
            temporal_patch: 2,
            merge: 2,
            min_tokens: 4,
            max_tokens: 16384,
            out_dim: 0,
            deepstack: 3,
        }
    }
}

impl VisionSpec {
    /// The tower's blocks as a decoder of their widths (no embedding, no head, no rotary
    /// tables), so that the rules counting a layer's saved tensors and its adapters count the
    /// tower's blocks when it trains (`vision_train`): a pre-norm attention over an image's
    /// patches and an MLP — gated with RMSNorm where [`VisionKind::gated_mlp`] (Gemma-4's with its
    /// sandwich norms and q/k norms), two matrices with LayerNorm and biases in the others.
    pub fn as_encoder(&self) -> Architecture {
        let gated = self.kind.gated_mlp();
        let head_dim = self.dim / self.heads.max(1);
        let mut a = Architecture::decoder(
            "vision tower",
            self.blocks,
            self.dim,
            self.heads,
            self.heads,
            head_dim,
            self.mlp,
            0,
            true,
        );
        a.mlp = if gated { MlpKind::Glu } else { MlpKind::Gelu };
        a.norm = if gated { NormKind::RmsNorm } else { NormKind::LayerNorm };
        a.qkv_bias = !matches!(self.kind, VisionKind::Pixtral | VisionKind::Gemma4);
        a.out_and_mlp_bias = !gated;
        a.rope = RopeTables::None;
        if self.kind == VisionKind::Gemma4 {
            // Gemma's sandwich: norms before and after attention and the MLP, q and k normed.
            (a.norms_per_layer, a.qk_norm) = (4, true);
        }
        a
    }

    /// Pixels on a side that one language-model token covers (patch · merge, 28 for Qwen2-VL).
    pub fn pixels_per_token_side(&self) -> u64 {
        (self.patch * self.merge).max(1)
    }

    /// 336 px tiles of an image (Llama-4): the tiles that cover it, the longer side's taken off
    /// until they are at most 16, plus a global view when more than one.
    fn llama4_tiles(image: ImageSize) -> u64 {
        let (mut w, mut h) = (image.width.div_ceil(336).clamp(1, 16), image.height.div_ceil(336).clamp(1, 16));
        while w * h > 16 {
            if w >= h {
                w -= 1;
            } else {
                h -= 1;
            }
        }
        let tiles = w * h;
        if tiles > 1 {
            tiles + 1
        } else {
            1
        }
    }

    /// InternVL's `dynamic_preprocess` (its model cards' `load_image`, vLLM's and ms-swift's
    /// copies): of the grids of i × j tiles with 1 ≤ i · j ≤ `max_num`, in order of their count, the
    /// one whose i / j is nearest the image's aspect ratio — on a tie the larger when the image's
    /// area is more than half of theirs (448² · i · j) — plus the thumbnail when it has more than
    /// one tile. 3,328 tokens for a 1,024 × 768 photograph (4 × 3 tiles and the thumbnail).
    fn internvl_tiles(image: ImageSize, max_num: u64) -> u64 {
        let (w, h) = (image.width.max(1) as f64, image.height.max(1) as f64);
        let aspect = w / h;
        let mut grids: Vec<(u64, u64)> = (1..=max_num).flat_map(|i| (1..=max_num / i).map(move |j| (i, j))).collect();
        grids.sort_by_key(|&(i, j)| (i * j, i));
        let (mut best, mut best_diff) = ((1, 1), f64::INFINITY);
        for (i, j) in grids {
            let diff = (aspect - i as f64 / j as f64).abs();
            if diff < best_diff {
                (best, best_diff) = ((i, j), diff);
            } else if diff == best_diff && w * h > 0.5 * 448.0 * 448.0 * (i * j) as f64 {
                best = (i, j);
            }
        }
        let tiles = best.0 * best.1;
        if tiles > 1 {
            tiles + 1
        } else {
            1
        }
    }

    /// InternVL's tokens per 448 px tile: (448 / patch / merge)², 256.
    pub fn internvl_tile_tokens(&self) -> u64 {
        (448 / self.pixels_per_token_side()).pow(2).max(1)
    }

    /// The most 448 px tiles InternVL cuts an image into, the thumbnail aside (`max_dynamic_patch`).
    pub fn internvl_max_tiles(&self) -> u64 {
        (self.max_tokens / self.internvl_tile_tokens()).max(1)
    }

    /// What one tile (or the one fixed-size image) of a tiled tower is through its blocks:
    /// InternVL's 448 px tile and Llama-4's 336 px one, their patches and a class token (1,025 and
    /// 577 at 14 px); Gemma-3's 896 px image, (896 / 14)² = 4,096 patches. `None` for the towers
    /// whose patches follow the image.
    pub fn tile_patches(&self) -> Option<u64> {
        let side = |px: u64| (px / self.patch.max(1)).pow(2);
        match self.kind {
            VisionKind::InternVl => Some(side(448) + 1),
            VisionKind::Llama4 => Some(side(336) + 1),
            VisionKind::Siglip => Some(side(896)),
            _ => None,
        }
    }

    /// Gemma-4's processor (transformers 5.25 `get_aspect_ratio_preserving_size`): the image
    /// resized, keeping its aspect, to the most whole `patch · merge` squares within merge² ·
    /// budget patches, whatever its own size (a side that rounds to none is one square, the other
    /// ⌊ratio⌋ squares up to the budget's); tokens are its patches ÷ merge².
    fn gemma4_tokens(&self, image: ImageSize) -> u64 {
        let (unit, budget) = ((self.patch * self.merge).max(1) as f64, self.max_tokens as f64);
        let (w, h) = (image.width.max(1) as f64, image.height.max(1) as f64);
        let area = budget * (self.merge * self.merge * self.patch * self.patch) as f64;
        let factor = (area / (w * h)).sqrt();
        let (mut tw, mut th) = ((factor * w / unit).floor(), (factor * h / unit).floor());
        if th < 1.0 {
            (th, tw) = (1.0, (w / h).floor().min(budget));
        } else if tw < 1.0 {
            (tw, th) = (1.0, (h / w).floor().min(budget));
        }
        (tw * th) as u64
    }

    /// Pixtral's grid of tokens for an image: one token per 28 px square on each side, within
    /// 1,540 px (a longer side is brought down to it, and the other with it).
    fn pixtral_grid(&self, image: ImageSize) -> (u64, u64) {
        let longer = image.width.max(image.height).max(1540);
        let fit = |x: u64| (x * 1540 / longer).max(1).div_ceil(self.pixels_per_token_side());
        (fit(image.width), fit(image.height))
    }

    /// Language-model tokens for one image.
    pub fn tokens_per_image(&self, image: ImageSize) -> u64 {
        let side = self.pixels_per_token_side();
        match self.kind {
            VisionKind::Siglip => 256,
            // ⌊√budget⌋² for a square (256 of 280), 252 for a 320 × 50 strip. The page's build asks
            // the reader worker for a Gemma-4 tower's bill (`Scenario::billed_on_demand`), here and
            // below.
            VisionKind::Gemma4 if !PAGE => self.gemma4_tokens(image),
            VisionKind::Gemma4 => 0,
            VisionKind::InternVl if !PAGE => {
                let per_tile = self.internvl_tile_tokens();
                per_tile * VisionSpec::internvl_tiles(image, self.internvl_max_tiles())
            }
            VisionKind::InternVl => 0,
            VisionKind::Llama4 => 144 * VisionSpec::llama4_tiles(image),
            // One break token after each row.
            VisionKind::Pixtral => {
                let (w, h) = self.pixtral_grid(image);
                w * h + h
            }
            // `smart_resize`: each side rounded to the nearest multiple of patch · merge.
            VisionKind::Qwen2Vl | VisionKind::Qwen25Vl | VisionKind::Qwen3Vl => {
                let per = |px: u64| ((px + side / 2) / side).max(1);
                per(image.width)
                    .saturating_mul(per(image.height))
                    .clamp(self.min_tokens, self.max_tokens.max(self.min_tokens))
            }
        }
    }

    /// Patches the vision blocks see for one image (before merging or pooling).
    pub fn patches_per_image(&self, image: ImageSize) -> u64 {
        match self.kind {
            VisionKind::Siglip => self.tile_patches().unwrap_or(0),
            // The processor pads every image's patches to merge² · budget (2,520), and the blocks
            // run over all of them (the padding masked).
            VisionKind::Gemma4 if !PAGE => self.max_tokens.saturating_mul(self.merge * self.merge),
            VisionKind::Gemma4 => 0,
            // Each tile's patches and its class token.
            VisionKind::InternVl => {
                let tiles = self.tokens_per_image(image) / self.internvl_tile_tokens();
                tiles * self.tile_patches().unwrap_or(0)
            }
            VisionKind::Llama4 => VisionSpec::llama4_tiles(image) * self.tile_patches().unwrap_or(0),
            VisionKind::Pixtral => {
                let (w, h) = self.pixtral_grid(image);
                w * h * self.merge * self.merge
            }
            _ => self.tokens_per_image(image).saturating_mul(self.merge * self.merge),
        }
    }

    /// The patches one attention of the tower sees when `patches` go through it: a tile of
    /// InternVL's or Llama-4's (its patches and class token), Gemma-3's one image; the others
    /// attend over every patch of the batch (Qwen2-VL's and Pixtral's block-diagonal masks).
    pub fn attention_span(&self, patches: u64) -> u64 {
        self.tile_patches().unwrap_or(patches).min(patches)
    }

    /// Exact parameter count of the tower and its projector into `lm_hidden`.
    pub fn parameters(&self, lm_hidden: u64) -> u64 {
        // In f64: exact for every real tower (each product stays far below 2^53), and a pasted
        // config's absurd sizes saturate in the final conversion instead of overflowing.
        let (d, mlp, lm) = (self.dim as f64, self.mlp as f64, lm_hidden as f64);
        let (p, blocks) = (self.patch as f64, self.blocks as f64);
        let merged = d * (self.merge as f64) * (self.merge as f64);
        let temporal = self.temporal_patch as f64;
        let out = self.out_dim as f64;
        let attention = d * 3.0 * d + 3.0 * d + d * d + d; // qkv and output, with biases
        let total = match self.kind {
            VisionKind::Qwen2Vl => {
                let block = 2.0 * (2.0 * d) + attention + d * mlp + mlp + mlp * d + d;
                let merger = 2.0 * d + merged * merged + merged + merged * lm + lm;
                3.0 * temporal * p * p * d + blocks * block + merger
            }
            VisionKind::Qwen25Vl => {
                let block = 2.0 * d + attention + 2.0 * (d * mlp + mlp) + mlp * d + d;
                let merger = d + merged * merged + merged + merged * lm + lm;
                3.0 * temporal * p * p * d + blocks * block + merger
            }
            VisionKind::Qwen3Vl => {
                let block = 4.0 * d + attention + d * mlp + mlp + mlp * d + d;
                let one_merger = merged * merged + merged + merged * lm + lm;
                let merger = 2.0 * d + one_merger;
                let deepstack = self.deepstack as f64 * (2.0 * merged + one_merger);
                3.0 * temporal * p * p * d + d + 2304.0 * d + blocks * block + merger + deepstack
            }
            VisionKind::Siglip => {
                let block = 4.0 * (d * d + d) + d * mlp + mlp + mlp * d + d + 4.0 * d;
                // A position a patch of the 896 px image.
                let positions = self.tile_patches().unwrap_or(0) as f64;
                3.0 * p * p * d + d + positions * d + blocks * block + 2.0 * d + d + d * lm
            }
            VisionKind::Llama4 => {
                let block = 4.0 * (d * d + d) + d * mlp + mlp + mlp * d + d + 4.0 * d;
                // A position a patch of the 336 px tile, and the class token's.
                let positions = self.tile_patches().unwrap_or(0) as f64;
                let adapter = d * 4.0 * out + out * out;
                3.0 * p * p * d + d + positions * d + 4.0 * d + blocks * block + adapter + out * lm
            }
            VisionKind::Pixtral => {
                let block = 2.0 * d + 4.0 * d * d + 3.0 * d * mlp;
                3.0 * p * p * d + d + blocks * block + d + merged * d + d * lm + lm * lm
            }
            VisionKind::Gemma4 if !PAGE => {
                // No biases; four norms and the q and k norms (v's has no scale); the patch
                // embedder, the x and y position tables (10,240 rows each) and the projector
                // (its norm has no scale). The large towers' `standardize` pair is buffers.
                let head_dim = d / self.heads.max(1) as f64;
                let block = 4.0 * d * d + 3.0 * d * mlp + 4.0 * d + 2.0 * head_dim;
                3.0 * p * p * d + 2.0 * 10_240.0 * d + blocks * block + d * lm
            }
            VisionKind::Gemma4 => 0.0,
            VisionKind::InternVl if !PAGE => {
                // Two LayerNorms, q/k/v and the output with biases, two layer scales and the MLP a
                // block; the patch embedder with its bias, the class token and 1,025 positions; the
                // projector `mlp1`: a LayerNorm over the shuffled 4d, 4d → lm and lm → lm with biases.
                let block = 4.0 * d + attention + 2.0 * d + d * mlp + mlp + mlp * d + d;
                let positions = self.tile_patches().unwrap_or(0) as f64;
                let embeddings = 3.0 * p * p * d + d + d + positions * d;
                let projector = 2.0 * merged + merged * lm + lm + lm * lm + lm;
                embeddings + blocks * block + projector
            }
            VisionKind::InternVl => 0.0,
        };
        total as u64
    }
}

/// The cos/sin tables vLLM and SGLang precompute for the rotary embedding: `get_rope` builds one
/// `cos_sin_cache` per distinct configuration (the layers that share it share the buffer), over the
/// positions its class covers, `rotary_dim` wide (cos and sin halves), on every GPU — whatever
/// `--max-model-len` is (vLLM 0.19 `layers/rotary_embedding/base.py`; what each engine multiplies
/// is `serving::engine::rope_tables`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RopeTables {
    /// One table over `max_context` positions of the head's width (latent attention: its
    /// rotary key): plain RoPE, Llama-3's (its factor changes frequencies, not positions), and
    /// DeepSeek's and gpt-oss's YaRN over original × factor, which their configs'
    /// `max_position_embeddings` equal.
    #[default]
    OverContext,
    /// Tables whose positions differ from the context or that rotate part of the head: linear,
    /// dynamic-NTK and YaRN scaling multiply the positions by the factor. `positions` is summed
    /// over the distinct tables (0: `max_context`); `dim` is the rotary width (0: the head's).
    Tables { positions: u64, dim: u64 },
    /// Gemma-3's two: the sliding layers' over `local` positions and the global layers' over
    /// `global` (linear scaling × 8 from 4B up). SGLang's Gemma-3 computes them per step instead.
    LocalGlobal { local: u64, global: u64 },
    /// No rotary embedding (learned or no positions).
    None,
}

impl RopeTables {
    /// These tables with the rotary width `other` gave (a link sets positions and width apart).
    pub fn with_dim_of(self, other: RopeTables) -> RopeTables {
        match (self, other) {
            (RopeTables::Tables { positions, .. }, RopeTables::Tables { dim, .. }) => {
                RopeTables::Tables { positions, dim }
            }
            _ => self,
        }
    }
}

/// The full-attention layers' own shape, where it is not the other attention layers' (Gemma-4's
/// global layers: `num_global_key_value_heads` KV heads of `global_head_dim`; with
/// `attention_k_eq_v` they have no v_proj and use their keys as values, which the caches of
/// transformers, vLLM and llama.cpp still hold apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FullAttention {
    pub kv_heads: u64,
    pub head_dim: u64,
    pub k_is_v: bool,
}

/// Everything about a decoder-only transformer that memory depends on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Architecture {
    /// Display name (from a preset, or from a pasted config.json — untrusted text).
    pub name: Cow<'static, str>,
    pub layers: u64,
    pub hidden: u64,
    pub heads: u64,
    pub kv_heads: u64,
    pub head_dim: u64,
    pub ffn: u64,
    pub vocab: u64,
    pub tied_embeddings: bool,
    pub mlp: MlpKind,
    pub norm: NormKind,
    /// Norm layers per block: 2 for most models, 4 for Gemma-2/3 (pre/post attention and MLP).
    pub norms_per_layer: u64,
    /// Biases on the q, k and v projections (Qwen2).
    pub qkv_bias: bool,
    /// Biases on the attention output projection and on the MLP linears (GPT-2; gpt-oss's experts).
    pub out_and_mlp_bias: bool,
    /// Learned absolute position embeddings (GPT-2: 1024 positions); 0 for rotary models.
    pub learned_positions: u64,
    /// The residual stream's dropout probability in training (Megatron's `--hidden-dropout`, 0.1 by
    /// default; GPT-2's `resid_pdrop`): above 0 each of a layer's two dropouts keeps its mask for
    /// the backward, 1 B per element. 0 for the models of 2024 on.
    #[serde(default)]
    pub hidden_dropout: f64,
    /// The longest context the model is made for (config.json's `max_position_embeddings`, the
    /// length a serving engine derives by default); 0 when not known. Only `max_model_len=auto`
    /// reads it: nothing is billed from it.
    #[serde(default)]
    pub max_context: u64,
    /// The rotary embedding's cos/sin tables as the serving engines precompute them.
    #[serde(default)]
    pub rope: RopeTables,
    /// tanh soft-capping of the attention scores and of the final logits (Gemma-2): each keeps its
    /// tanh output for backward.
    #[serde(default)]
    pub softcapping: bool,
    /// RMSNorm on q and k per head (Qwen3, Gemma-3, Llama-4 Scout).
    #[serde(default)]
    pub qk_norm: bool,
    /// One learned sink logit per head and layer (gpt-oss).
    #[serde(default)]
    pub sinks: bool,
    /// An output gate on full attention: q_proj also produces a gate (Qwen3-Next).
    #[serde(default)]
    pub attn_gate: bool,
    /// Attention kind per layer.
    #[serde(default = "full_pattern")]
    pub layer_pattern: LayerPattern,
    /// The full-attention layers' own KV heads and head width (Gemma-4); `None`: the model's.
    #[serde(default)]
    pub full_attention: Option<FullAttention>,
    /// The last layers that read the KV cache of the last earlier layer of their kind (Gemma-4
    /// E2B/E4B: `num_kv_shared_layers`, 20 of 35 and 18 of 42): no cache of their own, and in
    /// transformers 5.25 and vLLM no k_proj or v_proj (the checkpoints still ship them).
    #[serde(default)]
    pub kv_shared_layers: u64,
    /// Per-layer embeddings' width (Gemma-4 E2B/E4B: `hidden_size_per_layer_input`, 256): a table
    /// of vocab × layers × width beside the token embedding, a projection of the hidden state to
    /// layers × width, and in every layer a gate (hidden → width), a projection back and a norm.
    #[serde(default)]
    pub per_layer_input: u64,
    /// The KV-shared layers' MLP is twice `ffn` wide (Gemma-4 E2B's `use_double_wide_mlp`).
    #[serde(default)]
    pub wide_shared_mlp: bool,
    /// Tokens a sliding-window layer attends to.
    #[serde(default)]
    pub window: u64,
    /// Tokens of a chunked local attention layer's chunk.
    #[serde(default)]
    pub chunk: u64,
    #[serde(default)]
    pub mla: Option<MlaSpec>,
    /// DeepSeek-V3.2's lightning indexer (with `mla`); billed by the reader worker.
    #[serde(default)]
    pub indexer: Option<IndexerSpec>,
    #[serde(default)]
    pub linear: Option<LinearSpec>,
    pub moe: Option<MoeSpec>,
    pub vision: Option<VisionSpec>,
    /// Parameters of an audio encoder beside the language model (Qwen3-Omni's thinker: its AuT
    /// encoder), frozen and billed in 16 bits with the vision tower; 0 for most models.
    #[serde(default)]
    pub audio_encoder: u64,
    /// How the published checkpoint stores its weights, and which layers that covers (bf16 and
    /// all for most; MXFP4 experts for gpt-oss; block FP8 for DeepSeek-V3).
    #[serde(default = "bf16_checkpoint")]
    pub checkpoint: (StorageFormat, QuantLayers),
}

fn full_pattern() -> LayerPattern {
    LayerPattern::FULL
}

fn bf16_checkpoint() -> (StorageFormat, QuantLayers) {
    (StorageFormat::Bf16, QuantLayers::All)
}

/// Layers that attend the same way and have the same kind of MLP (their activations are alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerClass {
    pub attention: LayerKind,
    pub moe: bool,
    /// Whether the layer has an MLP at all (a block-level hybrid's mixer blocks have none).
    pub mlp: bool,
    /// Whether the layer reads an earlier layer's KV cache ([`Architecture::kv_shared_layers`]).
    pub kv_shared: bool,
    pub count: u64,
}

impl LayerClass {
    /// Whether a linear layer is part of a layer of this class.
    pub fn has(&self, l: &LinearShape) -> bool {
        if l.kv_shared.is_some_and(|shared| shared != self.kv_shared) {
            return false;
        }
        match l.group {
            LinearGroup::Attention => self.attention.attends(),
            LinearGroup::LocalAttention => self.attention.attends() && self.attention != LayerKind::Full,
            LinearGroup::FullAttention => self.attention == LayerKind::Full,
            LinearGroup::LinearAttention => self.attention == LayerKind::Linear,
            LinearGroup::Mlp => self.mlp && !self.moe,
            LinearGroup::Expert | LinearGroup::SharedExpert => self.mlp && self.moe,
        }
    }
}

/// The part of the model a linear layer belongs to (what `quant_layers` selects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinearGroup {
    /// Every softmax-attention layer's projections.
    Attention,
    /// The sliding-window and chunked layers' projections, where the full-attention layers have
    /// a shape of their own ([`FullAttention`]).
    LocalAttention,
    /// The full-attention layers' projections in their own shape.
    FullAttention,
    /// A dense MLP (also the dense layers of a mixture of experts).
    Mlp,
    /// A routed expert.
    Expert,
    /// An always-on shared expert.
    SharedExpert,
    /// A linear-attention layer's projections.
    LinearAttention,
}

impl LinearGroup {
    /// A softmax-attention layer's projections (of every layer, or of one kind's).
    pub fn is_attention(self) -> bool {
        matches!(self, LinearGroup::Attention | LinearGroup::LocalAttention | LinearGroup::FullAttention)
    }

    /// Part of the MLP block: a dense MLP, a routed or a shared expert.
    pub fn in_mlp(self) -> bool {
        matches!(self, LinearGroup::Mlp | LinearGroup::Expert | LinearGroup::SharedExpert)
    }

    /// Whether a format that covers `layers` quantizes a linear layer of this group.
    pub fn quantized_under(self, layers: QuantLayers) -> bool {
        match layers {
            QuantLayers::All => true,
            QuantLayers::Mlp => matches!(self, LinearGroup::Mlp | LinearGroup::Expert | LinearGroup::SharedExpert),
            QuantLayers::Experts => self == LinearGroup::Expert,
        }
    }
}

/// One kind of weight matrix, with how many of it the whole model holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearShape {
    pub name: &'static str,
    pub group: LinearGroup,
    pub d_in: u64,
    pub d_out: u64,
    /// Copies in one layer that has it (the experts of a mixture-of-experts layer).
    pub per_layer: u64,
    /// Layers that have it.
    pub layers: u64,
    /// Only in the layers that read an earlier layer's KV cache (`Some(true)`: Gemma-4 E2B's wide
    /// MLP), only in the others (`Some(false)`: their k_proj and v_proj), or in either (`None`).
    pub kv_shared: Option<bool>,
}

impl LinearShape {
    /// Copies in the whole model.
    pub fn count(&self) -> u64 {
        self.per_layer.saturating_mul(self.layers)
    }

    /// Parameters in one layer that has it.
    pub fn parameters(&self) -> u64 {
        self.d_in.saturating_mul(self.d_out).saturating_mul(self.per_layer)
    }

    /// Parameters in the whole model.
    pub fn total_parameters(&self) -> u64 {
        self.parameters().saturating_mul(self.layers)
    }
}

/// The linear layers of the model, without a heap allocation (at most 16 kinds).
#[derive(Clone, Copy, Debug)]
pub struct Linears {
    items: [LinearShape; 16],
    len: usize,
}

const NO_LINEAR: LinearShape = LinearShape {
    name: "",
    group: LinearGroup::Attention,
    d_in: 0,
    d_out: 0,
    per_layer: 0,
    layers: 0,
    kv_shared: None,
};

impl Linears {
    fn new() -> Linears {
        Linears { items: [NO_LINEAR; 16], len: 0 }
    }

    fn push(&mut self, l: LinearShape) {
        if self.len < self.items.len() && l.layers > 0 && l.per_layer > 0 {
            self.items[self.len] = l;
            self.len += 1;
        }
    }

    /// The linear layers outside the MLP block (a tiled MLP's adapters keep nothing).
    pub fn outside_mlp(self) -> Linears {
        let mut out = Linears::new();
        self.iter().filter(|l| !l.group.in_mlp()).for_each(|l| out.push(*l));
        out
    }
}

impl std::ops::Deref for Linears {
    type Target = [LinearShape];
    fn deref(&self) -> &[LinearShape] {
        &self.items[..self.len]
    }
}

impl Architecture {
    /// A Llama-style decoder (gated MLP, RMSNorm, no biases, full attention, bf16 checkpoint) of
    /// the given shape; presets and imports change what differs.
    #[allow(clippy::too_many_arguments)]
    pub const fn decoder(
        name: &'static str,
        layers: u64,
        hidden: u64,
        heads: u64,
        kv_heads: u64,
        head_dim: u64,
        ffn: u64,
        vocab: u64,
        tied_embeddings: bool,
    ) -> Architecture {
        Architecture {
            name: Cow::Borrowed(name),
            layers,
            hidden,
            heads,
            kv_heads,
            head_dim,
            ffn,
            vocab,
            tied_embeddings,
            mlp: MlpKind::Glu,
            norm: NormKind::RmsNorm,
            norms_per_layer: 2,
            qkv_bias: false,
            out_and_mlp_bias: false,
            learned_positions: 0,
            hidden_dropout: 0.0,
            max_context: 0,
            rope: RopeTables::OverContext,
            softcapping: false,
            qk_norm: false,
            sinks: false,
            attn_gate: false,
            layer_pattern: LayerPattern::FULL,
            full_attention: None,
            kv_shared_layers: 0,
            per_layer_input: 0,
            wide_shared_mlp: false,
            window: 0,
            chunk: 0,
            mla: None,
            indexer: None,
            linear: None,
            moe: None,
            vision: None,
            audio_encoder: 0,
            checkpoint: (StorageFormat::Bf16, QuantLayers::All),
        }
    }

    /// The rotary tables a serving engine keeps on each GPU ([`RopeTables`]): their positions
    /// (summed over the distinct tables) and width; zeros when the model has none.
    pub fn rope_tables(&self) -> (u64, u64) {
        match self.rope {
            _ if self.learned_positions > 0 => (0, 0),
            RopeTables::None => (0, 0),
            RopeTables::Tables { positions, dim } => (
                if positions > 0 { positions } else { self.max_context },
                if dim > 0 { dim } else { self.rotary_head_width() },
            ),
            RopeTables::LocalGlobal { local, global } => (local.saturating_add(global), self.rotary_head_width()),
            RopeTables::OverContext => (self.max_context, self.rotary_head_width()),
        }
    }

    /// The width a head rotates when all of it does (latent attention: its rotary key).
    fn rotary_head_width(&self) -> u64 {
        self.mla.as_ref().map_or(self.head_dim, |m| m.qk_rope_head_dim)
    }

    pub fn q_dim(&self) -> u64 {
        match &self.mla {
            Some(m) => self.heads.saturating_mul(m.qk_head_dim()),
            None => self.heads.saturating_mul(self.head_dim),
        }
    }

    /// Width of K (and V) across the KV heads (full-size keys and values of latent attention).
    pub fn kv_dim(&self) -> u64 {
        match &self.mla {
            Some(m) => self.heads.saturating_mul(m.qk_head_dim()),
            None => self.kv_heads.saturating_mul(self.head_dim),
        }
    }

    /// Width of the attention output before o_proj.
    pub fn attn_out_dim(&self) -> u64 {
        match &self.mla {
            Some(m) => self.heads.saturating_mul(m.v_head_dim),
            None => self.heads.saturating_mul(self.head_dim),
        }
    }

    /// Layers of an attention kind.
    pub fn layers_of(&self, kind: LayerKind) -> u64 {
        self.layer_pattern.count(kind, self.layers)
    }

    /// Layers that attend with softmax attention (and so keep a KV cache).
    pub fn attention_layers(&self) -> u64 {
        let other = self.layers_of(LayerKind::Linear).saturating_add(self.layers_of(LayerKind::None));
        self.layers - other.min(self.layers)
    }

    /// Layers with an MLP (all but a block-level hybrid's mixer blocks).
    pub fn mlp_layers(&self) -> u64 {
        self.layer_pattern.mlp_count(self.layers)
    }

    /// Layers with a mixture of experts (the rest of those with an MLP have a dense one).
    pub fn moe_layers(&self) -> u64 {
        match &self.moe {
            None => 0,
            Some(_) if self.layer_pattern.no_mlp != 0 => {
                (0..self.layers).filter(|&i| self.is_moe_layer(i) && self.layer_pattern.has_mlp(i)).count() as u64
            }
            Some(m) => {
                let from = m.dense_layers.min(self.layers);
                let step = m.step.max(1);
                // Layer i (from `dense_layers` on) is MoE when (i + 1) is a multiple of `step`.
                (self.layers / step).saturating_sub(from / step)
            }
        }
    }

    /// Whether layer `i` has a mixture of experts.
    pub fn is_moe_layer(&self, i: u64) -> bool {
        self.moe.as_ref().is_some_and(|m| i >= m.dense_layers && (i + 1) % m.step.max(1) == 0)
    }

    /// The class of layer `layer` alone (a count of 1).
    pub fn layer_class(&self, layer: u64) -> LayerClass {
        LayerClass {
            attention: self.layer_pattern.kind_of(layer),
            moe: self.is_moe_layer(layer),
            mlp: self.layer_pattern.has_mlp(layer),
            kv_shared: self.is_kv_shared(layer),
            count: 1,
        }
    }

    /// The classes of layers (attention kind × MLP kind × whether the layer reads another's KV
    /// cache) with how many layers each: one class for a uniform model, at most sixteen.
    pub fn layer_classes(&self) -> Vec<LayerClass> {
        let mut classes: Vec<LayerClass> = Vec::with_capacity(2);
        let uniform = self.layer_pattern.is_full() && self.kv_shared() == 0;
        if uniform && self.moe.as_ref().is_none_or(|m| m.dense_layers == 0 && m.step <= 1) {
            classes.push(LayerClass {
                attention: LayerKind::Full,
                moe: self.moe.is_some(),
                mlp: true,
                kv_shared: false,
                count: self.layers,
            });
            return classes;
        }
        // Full attention with dense first layers or every `step`-th layer MoE: two classes counted,
        // in the order of their first layer (as the walk below finds them), without the walk.
        if uniform {
            let moe = self.moe_layers().min(self.layers);
            let mut sides = [(false, self.layers - moe), (true, moe)];
            if self.is_moe_layer(0) {
                sides.reverse();
            }
            for (moe, count) in sides.into_iter().filter(|s| s.1 > 0) {
                classes.push(LayerClass { attention: LayerKind::Full, moe, mlp: true, kv_shared: false, count });
            }
            return classes;
        }
        for i in 0..self.layers {
            let mut class = LayerClass { count: 1, ..self.layer_class(i) };
            class.moe &= class.mlp;
            match classes.iter_mut().find(|c| LayerClass { count: 1, ..**c } == class) {
                Some(c) => c.count += 1,
                None => classes.push(class),
            }
        }
        classes
    }

    pub fn dense_mlp_layers(&self) -> u64 {
        let mlp = self.mlp_layers();
        mlp - self.moe_layers().min(mlp)
    }

    /// Intermediate size of the dense MLP layers.
    pub fn dense_ffn(&self) -> u64 {
        match &self.moe {
            Some(m) if m.dense_ffn > 0 => m.dense_ffn,
            _ => self.ffn,
        }
    }

    /// Intermediate size of the dense MLP of a layer of `class`: twice the others' in Gemma-4 E2B's
    /// KV-shared layers (`wide_shared_mlp`).
    pub fn dense_ffn_of(&self, class: &LayerClass) -> u64 {
        let wide = !PAGE && class.kv_shared && self.wide_shared_mlp;
        self.dense_ffn().saturating_mul(if wide { 2 } else { 1 })
    }

    /// Every linear layer of the decoder, in the names PEFT's `target_modules` use.
    pub fn linears(&self) -> Linears {
        let mut out = Linears::new();
        self.attention_linears(&mut out);
        let h = self.hidden;
        let mlp = |out: &mut Linears, ffn: u64, group, per_layer, (layers, kv_shared)| {
            let (gate, up, down) = match (self.mlp, group) {
                (MlpKind::Glu, LinearGroup::SharedExpert) => {
                    ("shared_expert.gate_proj", "shared_expert.up_proj", "shared_expert.down_proj")
                }
                (MlpKind::Glu, _) => ("gate_proj", "up_proj", "down_proj"),
                (MlpKind::Gelu, _) => ("", "fc1", "fc2"),
            };
            let mut push = |name, d_in, d_out| {
                out.push(LinearShape { name, group, d_in, d_out, per_layer, layers, kv_shared });
            };
            if self.mlp == MlpKind::Glu {
                push(gate, h, ffn);
            }
            push(up, h, ffn);
            push(down, ffn, h);
        };
        // Gemma-4 E2B's KV-shared layers have an MLP twice as wide as the others'.
        let wide = if !PAGE && self.wide_shared_mlp { self.shared_dense_mlp_layers() } else { 0 };
        let dense = self.dense_mlp_layers().saturating_sub(wide);
        mlp(&mut out, self.dense_ffn(), LinearGroup::Mlp, 1, (dense, (wide > 0).then_some(false)));
        if wide > 0 {
            mlp(&mut out, self.dense_ffn().saturating_mul(2), LinearGroup::Mlp, 1, (wide, Some(true)));
        }
        if let Some(m) = &self.moe {
            mlp(&mut out, m.expert_ffn, LinearGroup::Expert, m.experts, (self.moe_layers(), None));
            if m.shared > 0 {
                // Several shared experts are one wider MLP in the checkpoints (DeepSeek: n_shared × size).
                let ffn = m.shared_ffn.saturating_mul(m.shared);
                mlp(&mut out, ffn, LinearGroup::SharedExpert, 1, (self.moe_layers(), None));
            }
        }
        out
    }

    /// The last layers, which read an earlier layer's KV cache ([`Architecture::kv_shared_layers`];
    /// never in the page's build, which asks the reader worker for such a model's bill).
    #[inline(always)]
    pub fn kv_shared(&self) -> u64 {
        if PAGE {
            return 0;
        }
        self.kv_shared_layers.min(self.layers)
    }

    /// Whether layer `i` reads an earlier layer's KV cache.
    pub fn is_kv_shared(&self, i: u64) -> bool {
        i >= self.layers - self.kv_shared()
    }

    /// Layers of attention kind `kind` that read an earlier layer's KV cache.
    pub fn shared_layers_of(&self, kind: LayerKind) -> u64 {
        if self.kv_shared() == 0 {
            return 0;
        }
        let own = self.layer_pattern.count(kind, self.layers - self.kv_shared());
        self.layers_of(kind).saturating_sub(own)
    }

    /// Layers of attention kind `kind` that keep a KV cache of their own (all of that kind but the
    /// KV-shared ones).
    pub fn cache_layers_of(&self, kind: LayerKind) -> u64 {
        self.layers_of(kind) - self.shared_layers_of(kind)
    }

    /// KV-shared layers with a dense MLP.
    fn shared_dense_mlp_layers(&self) -> u64 {
        let from = self.layers - self.kv_shared();
        (from..self.layers).filter(|&i| self.layer_pattern.has_mlp(i) && !self.is_moe_layer(i)).count() as u64
    }

    /// The per-layer embeddings' width (0 in the page's build, as [`Architecture::kv_shared`]).
    #[inline(always)]
    fn per_layer_width(&self) -> u64 {
        if PAGE {
            return 0;
        }
        self.per_layer_input
    }

    fn attention_linears(&self, out: &mut Linears) {
        let (h, layers) = (self.hidden, self.attention_layers());
        let shared = |kinds: &[LayerKind]| kinds.iter().map(|&k| self.shared_layers_of(k)).sum::<u64>();
        let (full, local) = (LayerKind::Full, [LayerKind::Sliding, LayerKind::Chunked]);
        match (&self.mla, self.own_full_attention()) {
            (Some(m), _) => {
                let mut push = |name, d_in, d_out| {
                    let group = LinearGroup::Attention;
                    out.push(LinearShape { name, group, d_in, d_out, per_layer: 1, layers, kv_shared: None })
                };
                if m.q_lora_rank > 0 {
                    push("q_a_proj", h, m.q_lora_rank);
                    push("q_b_proj", m.q_lora_rank, self.q_dim());
                } else {
                    push("q_proj", h, self.q_dim());
                }
                push("kv_a_proj_with_mqa", h, m.kv_lora_rank.saturating_add(m.qk_rope_head_dim));
                push(
                    "kv_b_proj",
                    m.kv_lora_rank,
                    self.heads.saturating_mul(m.qk_nope_head_dim.saturating_add(m.v_head_dim)),
                );
                push("o_proj", self.attn_out_dim(), h);
            }
            (None, None) => {
                let all = (layers, shared(&[full, local[0], local[1]]));
                self.grouped_query_linears(out, (LinearGroup::Attention, local[0]), all, true);
            }
            (None, Some(f)) => {
                let n = self.layers_of(full);
                let others = (layers.saturating_sub(n), shared(&local));
                self.grouped_query_linears(out, (LinearGroup::LocalAttention, local[0]), others, true);
                self.grouped_query_linears(out, (LinearGroup::FullAttention, full), (n, shared(&[full])), !f.k_is_v);
            }
        }
        self.linear_attention_linears(out);
    }

    /// q (with Qwen3-Next's output gate), k, v (unless the keys are the values) and o of
    /// grouped-query attention in `layers` layers of attention kind `kind` (in their widths,
    /// [`Architecture::attention_widths`]), of which `shared` read an earlier layer's KV cache and
    /// have no k or v of their own.
    fn grouped_query_linears(
        &self,
        out: &mut Linears,
        (group, kind): (LinearGroup, LayerKind),
        (layers, shared): (u64, u64),
        values: bool,
    ) {
        let (h, (q, kv, o)) = (self.hidden, self.attention_widths(kind));
        let own = (shared > 0).then_some(false);
        let mut push = |name, d_in, d_out, (layers, kv_shared)| {
            out.push(LinearShape { name, group, d_in, d_out, per_layer: 1, layers, kv_shared });
        };
        push("q_proj", h, q.saturating_mul(if self.attn_gate { 2 } else { 1 }), (layers, None));
        push("k_proj", h, kv, (layers.saturating_sub(shared), own));
        if values {
            push("v_proj", h, kv, (layers.saturating_sub(shared), own));
        }
        push("o_proj", o, h, (layers, None));
    }

    /// The full-attention layers' own shape, where the model gives one (never in the page's build,
    /// which asks the reader worker for such a model's bill).
    #[inline(always)]
    pub fn own_full_attention(&self) -> Option<FullAttention> {
        if PAGE {
            return None;
        }
        self.full_attention
    }

    /// The linear-attention layers' projections: Gated DeltaNet's (Qwen3-Next) or Mamba-2's one
    /// `in_proj` to z, x, B, C and dt (transformers' `MambaMixer2`: inner + conv_dim + heads).
    fn linear_attention_linears(&self, out: &mut Linears) {
        let Some(l) = &self.linear else { return };
        let (h, layers, group) = (self.hidden, self.layers_of(LayerKind::Linear), LinearGroup::LinearAttention);
        let mut push = |name, d_in, d_out| {
            out.push(LinearShape { name, group, d_in, d_out, per_layer: 1, layers, kv_shared: None })
        };
        if l.short_conv {
            push("in_proj", h, 3 * l.value_dim());
        } else if l.is_mamba() {
            push("in_proj", h, l.value_dim() + l.conv_dim() + l.v_heads);
        } else {
            push("in_proj_qkvz", h, l.key_dim() * 2 + l.value_dim() * 2);
            push("in_proj_ba", h, 2 * l.v_heads);
        }
        push("out_proj", l.value_dim(), h);
    }

    pub fn norm_size(&self) -> u64 {
        match self.norm {
            NormKind::RmsNorm => self.hidden,
            NormKind::LayerNorm => self.hidden.saturating_mul(2),
        }
    }

    /// Parameters that are not in the big linear matrices: norms, biases, sinks, routers, latent
    /// norms, the linear-attention layers' convolution and gates. They stay in 16-bit when a
    /// checkpoint is quantized. All layers together.
    pub fn small_parameters(&self) -> u64 {
        // In f64, saturating at the end (sizes come from untrusted links and configs); exact for every
        // real model (far below 2^53).
        let (l, h) = (self.layers as f64, self.hidden as f64);
        let attn = self.attention_layers() as f64;
        let mut p = l * self.norms_per_layer as f64 * self.norm_size() as f64;
        p += match self.own_full_attention() {
            Some(f) => {
                let full = self.layers_of(LayerKind::Full) as f64;
                let own = self.attention_small(LayerKind::Full, !f.k_is_v);
                (attn - full) * self.attention_small(LayerKind::Sliding, true) + full * own
            }
            None => attn * self.attention_small(LayerKind::Sliding, true),
        };
        if self.out_and_mlp_bias {
            p += attn * h + self.mlp_biases();
        }
        let ple = self.per_layer_width() as f64;
        if ple > 0.0 {
            // The projection to every layer's slice and its norm; each layer's gate, projection
            // back and norm (transformers' Gemma4TextModel / Gemma4TextDecoderLayer).
            p += h * l * ple + ple + l * (2.0 * h * ple + h);
        }
        if self.sinks {
            p += attn * self.heads as f64;
        }
        if let Some(m) = &self.mla {
            p += attn * (if m.q_lora_rank > 0 { m.q_lora_rank as f64 } else { 0.0 } + m.kv_lora_rank as f64);
            // The indexer, 16-bit here (an FP8 checkpoint stores wq_b and wk in fp8: 0.12 % of
            // V3.2's weights over). The page's build never has one (`index_heads` is the worker's).
            if let Some(ix) = self.indexer.filter(|_| !PAGE) {
                p += attn * ix.parameters(self.hidden, m.q_lora_rank) as f64;
            }
        }
        if let Some(lin) = &self.linear {
            let n = self.layers_of(LayerKind::Linear) as f64;
            let nv = lin.v_heads as f64;
            let conv = lin.conv_dim() as f64;
            p += n * if lin.short_conv {
                // LFM2's depthwise convolution, without a bias (`conv_bias: false`).
                conv * lin.conv as f64
            } else if lin.is_mamba() {
                // Depthwise conv with its bias, dt_bias, A_log and D per head, the gated norm over
                // the inner size.
                conv * (lin.conv as f64 + 1.0) + 3.0 * nv + lin.value_dim() as f64
            } else {
                conv * lin.conv as f64 + 2.0 * nv + lin.head_dim as f64
            };
        }
        if let Some(m) = &self.moe {
            let moe = self.moe_layers() as f64;
            p += moe * h * m.experts as f64; // router
            p += moe * if m.router_bias { m.experts as f64 } else { 0.0 };
            p += moe * if m.shared_gate { h } else { 0.0 };
        }
        p as u64
    }

    /// One attention layer's q/k/v biases (v's unless its keys are its values) and q/k norms, in
    /// the widths of a layer of attention kind `kind`.
    fn attention_small(&self, kind: LayerKind, values: bool) -> f64 {
        let ((q, kv, _), head_dim) = (self.attention_widths(kind), self.heads_of(kind).1);
        let kv_biases = if values { 2.0 } else { 1.0 } * kv as f64;
        let biases = if self.qkv_bias { q as f64 + kv_biases } else { 0.0 };
        biases + if self.qk_norm { 2.0 * head_dim as f64 } else { 0.0 }
    }

    /// Biases of the MLP linears (GPT-2's fc1/fc2, gpt-oss's experts), all layers.
    fn mlp_biases(&self) -> f64 {
        self.linears()
            .iter()
            .filter(|l| matches!(l.group, LinearGroup::Mlp | LinearGroup::Expert | LinearGroup::SharedExpert))
            .map(|l| l.d_out as f64 * l.count() as f64)
            .sum()
    }

    /// Parameters of the largest layer (what ZeRO-3 / FSDP gathers at once): its linear matrices and
    /// its share of the small parameters.
    pub fn largest_layer_parameters(&self) -> u64 {
        let linears = self.linears();
        let small = self.small_parameters() / self.layers.max(1);
        self.layer_classes()
            .iter()
            .map(|c| linears.iter().filter(|l| c.has(l)).map(LinearShape::parameters).fold(0, u64::saturating_add))
            .max()
            .unwrap_or(0)
            .saturating_add(small)
    }

    /// Parameters in the big linear matrices of all layers (what quantization compresses).
    pub fn linear_parameters(&self) -> u64 {
        self.linears().iter().map(LinearShape::total_parameters).fold(0, u64::saturating_add)
    }

    /// Input embedding (+ learned positions).
    pub fn embedding_parameters(&self) -> u64 {
        self.vocab.saturating_add(self.learned_positions).saturating_mul(self.hidden)
    }

    /// The per-layer embeddings' table (Gemma-4 E2B/E4B): vocab × layers × their width, a lookup
    /// beside the token embedding (frozen under LoRA, 16-bit in a quantized checkpoint).
    pub fn per_layer_embedding_parameters(&self) -> u64 {
        self.vocab.saturating_mul(self.layers).saturating_mul(self.per_layer_width())
    }

    /// A separate LM head when the embeddings are not tied.
    pub fn lm_head_parameters(&self) -> u64 {
        if self.tied_embeddings {
            0
        } else {
            self.vocab.saturating_mul(self.hidden)
        }
    }

    /// The encoders beside the language model: the vision tower with its projector, and an audio
    /// encoder where the model has one.
    pub fn encoder_parameters(&self) -> u64 {
        self.vision.as_ref().map_or(0, |v| v.parameters(self.hidden)).saturating_add(self.audio_encoder)
    }

    /// The exact parameter count of the whole model.
    pub fn parameters(&self) -> u64 {
        self.linear_parameters()
            .saturating_add(self.small_parameters())
            .saturating_add(self.embedding_parameters())
            .saturating_add(self.per_layer_embedding_parameters())
            .saturating_add(self.lm_head_parameters())
            .saturating_add(self.norm_size()) // final norm
            .saturating_add(self.encoder_parameters())
    }

    /// Parameters used for one token: a mixture-of-experts layer runs only `active` of its routed
    /// experts (every expert is still resident in memory).
    pub fn active_parameters(&self) -> u64 {
        match &self.moe {
            None => self.parameters(),
            Some(m) => {
                let per_expert = self.mlp.matrices().saturating_mul(self.hidden).saturating_mul(m.expert_ffn);
                let idle = m.experts.saturating_sub(m.active).saturating_mul(per_expert);
                self.parameters().saturating_sub(self.moe_layers().saturating_mul(idle))
            }
        }
    }

    /// Parameters of the routed experts' linears, every MoE layer's.
    pub fn routed_expert_parameters(&self) -> u64 {
        let linears = self.linears();
        let routed = linears.iter().filter(|l| l.group == LinearGroup::Expert);
        routed.map(|l| l.total_parameters()).fold(0, u64::saturating_add)
    }

    /// The largest single weight matrix (what a 4-bit kernel dequantizes at once).
    pub fn largest_linear(&self) -> u64 {
        self.linears().iter().map(|l| l.d_in.saturating_mul(l.d_out)).max().unwrap_or(0)
    }

    /// KV-cache elements per token of one softmax-attention layer: K and V of every KV head, or
    /// latent attention's one latent + rotary key.
    pub fn kv_elements_per_layer(&self, kv_heads: u64) -> u64 {
        self.kv_elements_of(LayerKind::Sliding, kv_heads)
    }

    /// The same for a layer of attention kind `kind`, `kv_heads` being its KV heads on one GPU
    /// ([`Architecture::heads_of`]).
    pub fn kv_elements_of(&self, kind: LayerKind, kv_heads: u64) -> u64 {
        match &self.mla {
            Some(m) => m.cached_per_token(),
            None => 2u64.saturating_mul(kv_heads).saturating_mul(self.heads_of(kind).1),
        }
    }

    /// A layer of attention kind `kind`'s KV heads and head width: the full-attention layers' own
    /// ([`FullAttention`]) or the model's.
    #[inline(always)]
    pub fn heads_of(&self, kind: LayerKind) -> (u64, u64) {
        match self.own_full_attention() {
            Some(f) if kind == LayerKind::Full => (f.kv_heads, f.head_dim),
            _ => (self.kv_heads, self.head_dim),
        }
    }

    /// A layer of attention kind `kind`'s widths of q, of K (and of V), and of the attention
    /// output before o_proj.
    #[inline(always)]
    pub fn attention_widths(&self, kind: LayerKind) -> (u64, u64, u64) {
        match self.own_full_attention() {
            Some(f) if kind == LayerKind::Full && self.mla.is_none() => {
                let q = self.heads.saturating_mul(f.head_dim);
                (q, f.kv_heads.saturating_mul(f.head_dim), q)
            }
            _ => (self.q_dim(), self.kv_dim(), self.attn_out_dim()),
        }
    }

    /// Problems that make the architecture meaningless, named by their scenario key.
    pub fn validate(&self) -> Result<(), Msg> {
        let positive = [
            ("layers", self.layers),
            ("hidden", self.hidden),
            ("heads", self.heads),
            ("kv_heads", self.kv_heads),
            ("head_dim", self.head_dim),
            ("ffn", self.ffn),
            ("vocab", self.vocab),
        ];
        if let Some((key, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(msg!(ArchAtLeastOne, Arg::Code(key)));
        }
        if self.kv_heads > self.heads {
            return Err(msg!(ArchKvHeads, Arg::Int(self.kv_heads), Arg::Int(self.heads)));
        }
        if let Some(f) = self.full_attention {
            if f.kv_heads == 0 || f.head_dim == 0 {
                return Err(msg!(
                    ArchAtLeastOne,
                    Arg::Code(if f.kv_heads == 0 { "full_kv_heads" } else { "full_head_dim" })
                ));
            }
            if f.kv_heads > self.heads {
                return Err(msg!(ArchKvHeads, Arg::Int(f.kv_heads), Arg::Int(self.heads)));
            }
        }
        if let Some(m) = &self.moe {
            if m.experts == 0 || m.active == 0 || m.active > m.experts {
                return Err(msg!(ArchActiveExperts, Arg::Int(m.active), Arg::Int(m.experts)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{LayerKind, LayerPattern};

    /// Gemma-3 27B: 62 layers of SSSSSF → 10 full, 52 sliding (10 × 6 = 60, then S, S).
    #[test]
    fn a_pattern_repeats_over_the_layers() {
        let p = LayerPattern::parse("SSSSSF").expect("valid");
        assert_eq!((p.count(LayerKind::Full, 62), p.count(LayerKind::Sliding, 62)), (10, 52));
        assert_eq!(p.kind_of(5), LayerKind::Full);
        assert_eq!(LayerPattern::parse("sf").map(|p| p.text()), Some("SF".to_string()));
        assert!(LayerPattern::parse("SX").is_none() && LayerPattern::parse("").is_none());
    }

    /// gpt-oss's `layer_types` (24 alternating) shorten to `SF`; a non-repeating list stays whole.
    #[test]
    fn layer_types_shorten_to_their_unit() {
        use LayerKind::{Full as F, Sliding as S};
        let alternating: Vec<LayerKind> = (0..24).map(|i| if i % 2 == 0 { S } else { F }).collect();
        assert_eq!(LayerPattern::from_kinds(&alternating).map(|p| p.text()), Some("SF".into()));
        assert_eq!(LayerPattern::from_kinds(&[S, S, F]).map(|p| p.text()), Some("SSF".into()));
    }
}
