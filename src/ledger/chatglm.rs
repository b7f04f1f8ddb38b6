//! ChatGLM's remote code (`modeling_chatglm.py` of ChatGLM2/3 and GLM-4-9B, `mask=full`): its
//! prefill replayed tensor by tensor through the caching allocator.
//!
//! The code builds the prompt's cache by concatenation: `GLMTransformer.forward` keeps
//! `presents` as one tensor and, after each layer, `torch.cat((presents, kv_cache), dim=0)`
//! ("prefilling in decoding, use tensor format to save cuda memory"). Each layer asks for a block
//! one layer's cache larger than the last; the block it frees is too small for the next, and is
//! cut up by the next layer's temporaries, whose own blocks then cannot be reused in turn. The
//! live tensors are what a layer at a time holds; the reserved memory is much more, and nvidia-smi
//! shows the reserved memory. GLM-4-9B-Chat (THUDM/GLM-4 basic_demo's stress test, A100): about
//! 0.29 MiB per prompt token beyond the weights from 8k to 200k tokens, where the live tensors are
//! 0.17 MiB.
//!
//! Each layer, as the code runs it (one sequence of `tokens` positions; 16-bit activations):
//! - `RMSNorm`: the input in fp32, its square, the normalised product and the weighted product,
//!   then the 16-bit result;
//! - `query_key_value`'s output; `apply_rotary_pos_emb` on the query and on the key: the rotated
//!   half copied, four products and two differences, their stack, and the concatenation with the
//!   half that passes;
//! - the layer's `kv_cache` (`torch.cat` of key and value); multi-query attention expands the
//!   key and value to every head (`.contiguous()`);
//! - attention: SDPA or FlashAttention-2 write the output (and its log-sum-exp); eager
//!   `CoreAttention` materialises the scores (its `baddbmm` buffer and result, the layer-number
//!   scaling's copy, a boolean causal mask and its negation, the masked scores, the softmax);
//! - the output transposed contiguous, `dense`, the residual sum; the second norm; the MLP's
//!   `dense_h_to_4h` (2 × ffn), SiLU of its first half and the product, `dense_4h_to_h`, the
//!   second residual sum;
//! - `presents` grown by the layer's cache.
//!
//! Source: THUDM/glm-4-9b-chat `modeling_chatglm.py` (the GitHub copies of June 2024 and later),
//! the same loop in ChatGLM2/3's.

use super::caching_allocator::{Allocation, CachingAllocator};
use super::plan::Plan;
use super::scenario::AttentionKernel;

/// What the prefill holds beyond the weights: the most bytes live at once, and the most reserved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prefill {
    pub allocated: f64,
    pub reserved: f64,
}

/// The replay's working memory: named live tensors.
struct Replay {
    allocator: CachingAllocator,
    live: Vec<(&'static str, Allocation)>,
    tokens: u64,
}

impl Replay {
    /// Allocates `per_token` bytes for each position under `name`.
    fn take(&mut self, name: &'static str, per_token: u64) {
        self.take_bytes(name, per_token.saturating_mul(self.tokens));
    }

    /// Allocates a tensor of `bytes` in all under `name`.
    fn take_bytes(&mut self, name: &'static str, bytes: u64) {
        let a = self.allocator.malloc(bytes);
        self.live.push((name, a));
    }

    fn free(&mut self, name: &'static str) {
        if let Some(at) = self.live.iter().rposition(|(n, _)| *n == name) {
            let (_, a) = self.live.remove(at);
            self.allocator.free(a);
        }
    }

    fn rename(&mut self, from: &'static str, to: &'static str) {
        if let Some(entry) = self.live.iter_mut().rev().find(|(n, _)| *n == from) {
            entry.0 = to;
        }
    }

    /// `RMSNorm.forward` on a 16-bit tensor of `h` per position: `to(float32)`, `pow(2)` (freed
    /// after the mean), `* rsqrt` (the fp32 input freed), `weight *` (fp32), `.to(dtype)`.
    fn rms_norm(&mut self, h: u64, act: u64, out: &'static str) {
        self.take("norm_fp32", 4 * h);
        self.take("norm_square", 4 * h);
        self.free("norm_square");
        self.take("norm_scaled", 4 * h);
        self.free("norm_fp32");
        self.take("norm_weighted", 4 * h);
        self.take(out, act * h);
        self.free("norm_weighted");
        self.free("norm_scaled");
    }

    /// The attention's output (`context_heads`) and what computing it holds: SDPA's and
    /// FlashAttention-2's log-sum-exp, or eager `CoreAttention`'s scores and masks.
    fn attend(&mut self, p: &Plan, heads: u64, q_bytes: u64) {
        let act = p.acts.bytes() as u64;
        match p.kernel {
            AttentionKernel::Eager => {
                let s = p.tokens;
                let scores = p.batch.saturating_mul(heads).saturating_mul(s).saturating_mul(s).saturating_mul(act);
                let mask = p.batch.saturating_mul(s).saturating_mul(s);
                self.take_bytes("scores_buffer", scores);
                self.take_bytes("scores", scores);
                self.take_bytes("scores_scaled", scores);
                self.take_bytes("mask_ones", mask);
                self.take_bytes("mask", mask);
                self.free("mask_ones");
                self.take_bytes("scores_masked", scores);
                self.take_bytes("probabilities", scores);
                self.take("context_heads", q_bytes);
                for name in ["scores_buffer", "scores", "scores_scaled", "mask", "scores_masked", "probabilities"] {
                    self.free(name);
                }
            }
            _ => {
                self.take("context_heads", q_bytes);
                self.take("log_sum_exp", heads * 4);
                self.free("log_sum_exp");
            }
        }
    }

    /// `apply_rotary_pos_emb` on `heads` heads of `head_dim`, rotating the first half.
    fn rotate(&mut self, heads: u64, head_dim: u64, act: u64, out: &'static str) {
        let half = heads * head_dim / 2 * act;
        self.take("rope_shaped", half);
        for _ in 0..2 {
            self.take("rope_product_a", half / 2);
            self.take("rope_product_b", half / 2);
            self.take("rope_part", half / 2);
            self.free("rope_product_a");
            self.free("rope_product_b");
        }
        self.take("rope_stacked", half);
        self.free("rope_part");
        self.free("rope_part");
        self.take(out, 2 * half);
        self.free("rope_stacked");
        self.free("rope_shaped");
    }
}

/// The most layers a replay runs (ChatGLM2/3 have 28, GLM-4-9B 40).
pub const REPLAYED_LAYERS: u64 = 256;

/// What a replay depends on: positions, batch, the layers' shapes, the activations' bytes, the
/// attention kernel and the room on the card.
type ReplayKey = [u64; 11];

/// Replays kept for the same question asked again (a page's bill, phases and notes, a search that
/// comes back to a length): each costs thousands of allocator steps.
const KEPT_REPLAYS: usize = 16;

thread_local! {
    static REPLAYS: std::cell::RefCell<Vec<(ReplayKey, Prefill)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The prefill of `p`'s prompt (batch × tokens positions) in ChatGLM's remote code, on a card of
/// `p.gpu`'s memory less the weights.
pub fn prefill(p: &Plan, weights: f64) -> Prefill {
    let arch = p.arch;
    let room = (p.gpu.bytes as f64 - weights).max(0.0) as u64;
    let key: ReplayKey = [
        p.tokens,
        p.batch,
        arch.layers,
        arch.hidden,
        arch.heads,
        arch.kv_heads,
        arch.head_dim,
        arch.dense_ffn(),
        p.acts.bytes() as u64,
        p.kernel as u64,
        room,
    ];
    if let Some(kept) = REPLAYS.with(|r| r.borrow().iter().find(|(k, _)| *k == key).map(|(_, v)| *v)) {
        return kept;
    }
    let replayed = replay(p, room);
    REPLAYS.with(|r| {
        let mut r = r.borrow_mut();
        if r.len() == KEPT_REPLAYS {
            r.remove(0);
        }
        r.push((key, replayed));
    });
    replayed
}

fn replay(p: &Plan, room: u64) -> Prefill {
    let arch = p.arch;
    let act = p.acts.bytes() as u64;
    let (h, heads, head_dim) = (arch.hidden, arch.heads, arch.head_dim);
    let kv_heads = arch.kv_heads.clamp(1, heads.max(1));
    let ffn = arch.dense_ffn();
    let layers = arch.layers;
    let tokens = p.batch.saturating_mul(p.tokens);
    let mut r = Replay { allocator: CachingAllocator::new(room), live: Vec::with_capacity(32), tokens };
    let layer_cache = 2 * kv_heads * head_dim * act;
    let q_bytes = heads * head_dim * act;
    r.take("hidden", act * h);
    for layer in 0..layers {
        r.rms_norm(h, act, "normed");
        r.take("qkv", (heads + 2 * kv_heads) * head_dim * act);
        r.rotate(heads, head_dim, act, "query");
        r.rotate(kv_heads, head_dim, act, "key");
        r.take("kv_cache", layer_cache);
        if kv_heads < heads {
            r.take("key_expanded", q_bytes);
            r.take("value_expanded", q_bytes);
        }
        r.attend(p, heads, q_bytes);
        r.free("key_expanded");
        r.free("value_expanded");
        r.take("context", q_bytes);
        r.free("context_heads");
        r.take("attention_out", act * h);
        r.free("context");
        r.free("query");
        r.free("key");
        r.free("qkv");
        r.take("residual", act * h);
        r.free("attention_out");
        r.rms_norm(h, act, "normed_2");
        r.free("normed");
        r.take("h_to_4h", 2 * ffn * act);
        r.take("silu", ffn * act);
        r.take("swiglu", ffn * act);
        r.free("silu");
        r.free("h_to_4h");
        r.take("mlp_out", act * h);
        r.free("swiglu");
        r.take("next_hidden", act * h);
        r.free("mlp_out");
        r.free("normed_2");
        r.free("residual");
        r.free("hidden");
        r.rename("next_hidden", "hidden");
        // `presents`: the first layer's cache is the tensor itself; later ones a concatenation
        // one layer larger, the old freed; the layer's own cache lives until the next returns.
        r.free("kv_cache_before");
        if layer == 0 {
            r.rename("kv_cache", "presents");
        } else {
            r.take("presents_grown", (layer + 1) * layer_cache);
            r.free("presents");
            r.rename("presents_grown", "presents");
            r.rename("kv_cache", "kv_cache_before");
        }
    }
    r.free("kv_cache_before");
    r.rms_norm(h, act, "final");
    Prefill { allocated: r.allocator.peak_allocated() as f64, reserved: r.allocator.peak_reserved() as f64 }
}
