//! Model architectures and their exact parameter counts.
//!
//! The counts follow the tensors a Hugging Face checkpoint actually holds (embeddings, attention with
//! grouped-query k/v projections, the MLP, norms, the LM head), so that they can be checked against the
//! parameter counts the model cards publish.

use serde::{Deserialize, Serialize};

use super::msg::{Arg, Msg};
use crate::msg;

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

/// Mixture of experts: the MLP of every layer is replaced by `experts` expert MLPs of size
/// `expert_ffn`, of which `active` run for each token, plus `shared` always-on experts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoeSpec {
    pub experts: u64,
    pub active: u64,
    pub expert_ffn: u64,
    pub shared: u64,
    pub shared_ffn: u64,
}

/// A ViT-style vision tower as used by Qwen2-VL: patches of `patch` pixels, `merge`×`merge`
/// patches merged into one language-model token by an MLP projector.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VisionSpec {
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
}

impl VisionSpec {
    /// Pixels on a side that one language-model token covers (patch · merge, 28 for Qwen2-VL).
    pub fn pixels_per_token_side(&self) -> u64 {
        (self.patch * self.merge).max(1)
    }

    /// Language-model tokens for one square image of `px` × `px` pixels: (H/28)·(W/28) for Qwen2-VL,
    /// with the side rounded to a multiple of 28 and the count kept inside the processor's bounds.
    pub fn tokens_per_image(&self, px: u64) -> u64 {
        let side = self.pixels_per_token_side();
        let per_side = ((px + side / 2) / side).max(1);
        per_side.saturating_mul(per_side).clamp(self.min_tokens, self.max_tokens.max(self.min_tokens))
    }

    /// Patches the vision blocks see for one image (before the merge).
    pub fn patches_per_image(&self, px: u64) -> u64 {
        self.tokens_per_image(px).saturating_mul(self.merge * self.merge)
    }

    /// Exact parameter count of the tower: patch embedding (3-D conv, no bias), pre-norm blocks with
    /// LayerNorm, fused qkv with bias, output projection, a GELU MLP, and the patch merger
    /// (LayerNorm + two linear layers into the language model's hidden size).
    pub fn parameters(&self, lm_hidden: u64) -> u64 {
        // In u128: a pasted config may hold absurd sizes; the count saturates instead of overflowing.
        let (d, mlp, lm) = (self.dim as u128, self.mlp as u128, lm_hidden as u128);
        let patch_embed = 3 * self.temporal_patch as u128 * self.patch as u128 * self.patch as u128 * d;
        let block = 2 * (2 * d) // two LayerNorms
            + d * 3 * d + 3 * d // qkv
            + d * d + d // proj
            + d * mlp + mlp // fc1
            + mlp * d + d; // fc2
        let merged = d * self.merge as u128 * self.merge as u128;
        let merger = 2 * d + merged.saturating_mul(merged) + merged + merged * lm + lm;
        let total = patch_embed.saturating_add((self.blocks as u128).saturating_mul(block)).saturating_add(merger);
        u64::try_from(total).unwrap_or(u64::MAX)
    }
}

/// Everything about a decoder-only transformer that memory depends on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Architecture {
    /// Display name (from a preset, or from a pasted config.json — untrusted text).
    pub name: String,
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
    /// Norm layers per block: 2 for most models, 4 for Gemma-2 (pre/post attention and MLP).
    pub norms_per_layer: u64,
    /// Biases on the q, k and v projections (Qwen2).
    pub qkv_bias: bool,
    /// Biases on the attention output projection and on the MLP linears (GPT-2).
    pub out_and_mlp_bias: bool,
    /// Learned absolute position embeddings (GPT-2: 1024 positions); 0 for rotary models.
    pub learned_positions: u64,
    /// tanh soft-capping of the attention scores and of the final logits (Gemma-2): each keeps its
    /// tanh output for backward.
    #[serde(default)]
    pub softcapping: bool,
    pub moe: Option<MoeSpec>,
    pub vision: Option<VisionSpec>,
}

/// One kind of weight matrix inside every layer, with how many of it each layer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearShape {
    pub name: &'static str,
    pub d_in: u64,
    pub d_out: u64,
    /// Copies per layer (the experts of a mixture-of-experts layer).
    pub per_layer: u64,
}

/// The linear layers of one block, without a heap allocation (at most 8 kinds).
#[derive(Clone, Copy, Debug)]
pub struct Linears {
    items: [LinearShape; 8],
    len: usize,
}

const NO_LINEAR: LinearShape = LinearShape { name: "", d_in: 0, d_out: 0, per_layer: 0 };

impl Linears {
    fn new() -> Linears {
        Linears { items: [NO_LINEAR; 8], len: 0 }
    }

    fn push(&mut self, l: LinearShape) {
        if self.len < self.items.len() {
            self.items[self.len] = l;
            self.len += 1;
        }
    }
}

impl std::ops::Deref for Linears {
    type Target = [LinearShape];
    fn deref(&self) -> &[LinearShape] {
        &self.items[..self.len]
    }
}

impl LinearShape {
    pub fn parameters(&self) -> u64 {
        self.d_in.saturating_mul(self.d_out).saturating_mul(self.per_layer)
    }
}

impl Architecture {
    pub fn q_dim(&self) -> u64 {
        self.heads.saturating_mul(self.head_dim)
    }

    pub fn kv_dim(&self) -> u64 {
        self.kv_heads.saturating_mul(self.head_dim)
    }

    /// The linear layers of one decoder block, in the names PEFT's `target_modules` use.
    pub fn layer_linears(&self) -> Linears {
        let h = self.hidden;
        let mut out = Linears::new();
        out.push(LinearShape { name: "q_proj", d_in: h, d_out: self.q_dim(), per_layer: 1 });
        out.push(LinearShape { name: "k_proj", d_in: h, d_out: self.kv_dim(), per_layer: 1 });
        out.push(LinearShape { name: "v_proj", d_in: h, d_out: self.kv_dim(), per_layer: 1 });
        out.push(LinearShape { name: "o_proj", d_in: self.q_dim(), d_out: h, per_layer: 1 });
        let (ffn, copies) = match &self.moe {
            Some(m) => (m.expert_ffn, m.experts),
            None => (self.ffn, 1),
        };
        match self.mlp {
            MlpKind::Glu => {
                out.push(LinearShape { name: "gate_proj", d_in: h, d_out: ffn, per_layer: copies });
                out.push(LinearShape { name: "up_proj", d_in: h, d_out: ffn, per_layer: copies });
                out.push(LinearShape { name: "down_proj", d_in: ffn, d_out: h, per_layer: copies });
            }
            MlpKind::Gelu => {
                out.push(LinearShape { name: "fc1", d_in: h, d_out: ffn, per_layer: copies });
                out.push(LinearShape { name: "fc2", d_in: ffn, d_out: h, per_layer: copies });
            }
        }
        if let Some(m) = &self.moe {
            if m.shared > 0 {
                let n = self.mlp.matrices();
                out.push(LinearShape { name: "shared_expert", d_in: h, d_out: m.shared_ffn, per_layer: m.shared * n });
            }
        }
        out
    }

    fn norm_size(&self) -> u64 {
        match self.norm {
            NormKind::RmsNorm => self.hidden,
            NormKind::LayerNorm => self.hidden.saturating_mul(2),
        }
    }

    /// Parameters of one decoder block that are *not* in its big linear matrices: norms, biases and
    /// the MoE router. They stay in 16-bit when a checkpoint is quantized.
    pub fn layer_small_parameters(&self) -> u64 {
        // In u128, saturating at the end (sizes come from untrusted links and configs).
        let h = self.hidden as u128;
        let mut p = self.norms_per_layer as u128 * self.norm_size() as u128;
        if self.qkv_bias {
            p += self.q_dim() as u128 + 2 * self.kv_dim() as u128;
        }
        if self.out_and_mlp_bias {
            p += h; // o_proj / c_proj bias
            let ffn = self.moe.as_ref().map_or(self.ffn, |m| m.expert_ffn) as u128;
            let copies = self.moe.as_ref().map_or(1, |m| m.experts) as u128;
            p += copies
                * match self.mlp {
                    MlpKind::Glu => 2 * ffn + h,
                    MlpKind::Gelu => ffn + h,
                };
        }
        if let Some(m) = &self.moe {
            p += h * m.experts as u128; // router
        }
        u64::try_from(p).unwrap_or(u64::MAX)
    }

    /// Parameters in the big linear matrices of one block (what quantization compresses).
    pub fn layer_linear_parameters(&self) -> u64 {
        self.layer_linears().iter().map(LinearShape::parameters).fold(0, u64::saturating_add)
    }

    pub fn layer_parameters(&self) -> u64 {
        self.layer_linear_parameters().saturating_add(self.layer_small_parameters())
    }

    /// Input embedding (+ learned positions).
    pub fn embedding_parameters(&self) -> u64 {
        self.vocab.saturating_add(self.learned_positions).saturating_mul(self.hidden)
    }

    /// A separate LM head when the embeddings are not tied.
    pub fn lm_head_parameters(&self) -> u64 {
        if self.tied_embeddings {
            0
        } else {
            self.vocab.saturating_mul(self.hidden)
        }
    }

    pub fn vision_parameters(&self) -> u64 {
        self.vision.as_ref().map_or(0, |v| v.parameters(self.hidden))
    }

    /// The exact parameter count of the whole model.
    pub fn parameters(&self) -> u64 {
        self.layers
            .saturating_mul(self.layer_parameters())
            .saturating_add(self.embedding_parameters())
            .saturating_add(self.lm_head_parameters())
            .saturating_add(self.norm_size()) // final norm
            .saturating_add(self.vision_parameters())
    }

    /// Parameters used for one token: mixture-of-experts layers run only `active` (+ shared) experts.
    pub fn active_parameters(&self) -> u64 {
        match &self.moe {
            None => self.parameters(),
            Some(m) => {
                let per_expert = self.mlp.matrices().saturating_mul(self.hidden).saturating_mul(m.expert_ffn);
                let idle = m.experts.saturating_sub(m.active).saturating_mul(per_expert);
                self.parameters().saturating_sub(self.layers.saturating_mul(idle))
            }
        }
    }

    /// Parameters stored in the language model's linear layers (quantizable), all layers together.
    pub fn linear_parameters(&self) -> u64 {
        self.layers.saturating_mul(self.layer_linear_parameters())
    }

    /// The largest single weight matrix (what a 4-bit kernel dequantizes at once).
    pub fn largest_linear(&self) -> u64 {
        self.layer_linears().iter().map(|l| l.d_in.saturating_mul(l.d_out)).max().unwrap_or(0)
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
        if let Some(m) = &self.moe {
            if m.experts == 0 || m.active == 0 || m.active > m.experts {
                return Err(msg!(ArchActiveExperts, Arg::Int(m.active), Arg::Int(m.experts)));
            }
        }
        Ok(())
    }
}
