//! Speculative decoding (`spec`): what the drafter adds to a serving engine's start-up. vLLM loads
//! the drafter in the same process as the model (`gpu_model_runner.py::load_model`: its memory is
//! part of "Model loading took"), registers its attention layers beside the model's so the KV
//! cache's blocks hold them too (`get_kv_cache_spec` walks every attention layer of the forward
//! context), and captures its CUDA graphs with the model's. SGLang's draft worker shares the
//! target's token indices and keeps its own KV pool of the same token count.
//!
//! The drafter's size by method (docs/serving.md, "Speculative decoding"):
//! - `eagle`: one decoder layer of the model's width with a dense MLP of the model's dense size,
//!   and `fc` (2h → h); the embedding and LM head are the model's (vLLM shares them).
//! - `eagle3`: one decoder layer whose q, k and v read the embedding and the hidden state (2h),
//!   `fc` from three hidden states (3h → h), and its own LM head over a draft vocabulary of 32,000.
//! - `mtp`: the checkpoint's multi-token-prediction layer (`num_nextn_predict_layers` = 1 in
//!   DeepSeek-V3, GLM-4.5, Qwen3-Next, MiMo): a layer like the model's largest, `eh_proj`
//!   (2h → h) and two norms, in the served format; the embedding and head shared.
//! - `draft`: a separate model (`spec_model`), 16-bit, over the same tensor-parallel GPUs.
//! - `ngram`: prompt lookup on the CPU: nothing on the GPU.

use crate::ledger::architecture::Architecture;
use crate::ledger::msg::{Arg, Msg};
use crate::ledger::plan::{Inference, Plan};
use crate::ledger::presets;
use crate::ledger::scenario::SpecMethod;
use crate::ledger::weights::stored_weights;
use crate::msg;

/// EAGLE-3 heads predict over a draft vocabulary (`draft_vocab_size` of the published heads).
pub const EAGLE3_DRAFT_VOCAB: u64 = 32_000;

/// Tokens a drafter proposes per step when `spec_tokens` is not given: one MTP layer proposes
/// one, the others three.
pub fn default_tokens(method: SpecMethod) -> u64 {
    if method == SpecMethod::Mtp {
        1
    } else {
        3
    }
}

/// What the drafter holds on one GPU.
pub struct Drafter {
    pub weights_bytes: f64,
    /// Attention layers the drafter adds to the KV cache, counted in the model's own layers' bytes
    /// per token (a draft model's layers converted by their bytes).
    pub kv_layers: u64,
    /// The drafter's KV bytes per token on one GPU (all its layers).
    pub kv_token_bytes: f64,
    pub formula: Msg,
}

/// The drafter of `i.engine.spec` on one GPU; `None` without speculative decoding. `layer_bytes`
/// is the model's KV bytes per token and layer on one GPU.
pub fn drafter(p: &Plan, i: &Inference, layer_bytes: f64, kv_element_bytes: f64) -> Option<Drafter> {
    // The page's build asks the reader worker for a drafter's bill (`Scenario::served_by_engine`).
    if cfg!(feature = "page") {
        return None;
    }
    let method = i.engine.spec;
    let tp = i.tp.max(1) as f64;
    let a = p.arch;
    let tokens = i.engine.spec_tokens.unwrap_or(default_tokens(method));
    let h = a.hidden;
    let (parameters, bytes_per_parameter, kv_layers, kv_token_bytes, what) = match method {
        SpecMethod::None => return None,
        SpecMethod::Ngram => (0, 0.0, 0, 0.0, msg!(SpecNgram)),
        SpecMethod::Eagle => {
            let p = eagle_layer(a, h).saturating_add(2 * h * h);
            (p, 2.0, 1, layer_bytes, msg!(SpecEagle))
        }
        SpecMethod::Eagle3 => {
            let p = eagle_layer(a, 2 * h).saturating_add(3 * h * h).saturating_add(EAGLE3_DRAFT_VOCAB * h);
            (p, 2.0, 1, layer_bytes, msg!(SpecEagle3, Arg::Count(EAGLE3_DRAFT_VOCAB)))
        }
        SpecMethod::Mtp => {
            let served = stored_weights(a, i.weights);
            let per_parameter = served.bytes / a.parameters().max(1) as f64;
            let p = a.largest_layer_parameters().saturating_add(2 * h * h).saturating_add(2 * h);
            (p, per_parameter, 1, layer_bytes, msg!(SpecMtp))
        }
        SpecMethod::Draft => {
            let Some(d) = i.engine.spec_model.and_then(presets::model) else {
                return Some(Drafter {
                    weights_bytes: 0.0,
                    kv_layers: 0,
                    kv_token_bytes: 0.0,
                    formula: msg!(SpecDraftMissing),
                });
            };
            let da = &d.architecture;
            let heads = (da.kv_heads / i.tp.max(1)).max(1);
            let per_token = (da.kv_elements_per_layer(heads) * da.attention_layers()) as f64 * kv_element_bytes;
            // vLLM keeps one page size: the draft's layers take as many of the model's layer slots
            // as their bytes need.
            let slots = if layer_bytes > 0.0 { (per_token / layer_bytes).ceil() as u64 } else { 0 };
            let what = msg!(SpecDraftModel, Arg::Text(d.id.to_string()), Arg::Int(da.layers));
            (da.parameters(), 2.0, slots, per_token, what)
        }
    };
    let weights_bytes = parameters as f64 * bytes_per_parameter / tp;
    let formula = msg!(
        SpecDrafter,
        what.arg(),
        Arg::Int(tokens),
        Arg::Count(parameters),
        Arg::Factor(bytes_per_parameter),
        Arg::Int(i.tp.max(1)),
        Arg::Bytes(weights_bytes),
        Arg::Int(kv_layers)
    );
    Some(Drafter { weights_bytes, kv_layers, kv_token_bytes, formula })
}

/// One EAGLE decoder layer whose q, k and v read `d_in` features: attention, the model's dense MLP
/// (gate, up and down) and two norms.
fn eagle_layer(a: &Architecture, d_in: u64) -> u64 {
    let h = a.hidden;
    let attention = d_in
        .saturating_mul(a.q_dim().saturating_add(2 * a.kv_dim()))
        .saturating_add(a.attn_out_dim().saturating_mul(h));
    let ffn = a.dense_ffn().max(a.moe.as_ref().map_or(0, |m| m.expert_ffn.saturating_mul(m.active.max(1))));
    attention.saturating_add(3u64.saturating_mul(h).saturating_mul(ffn)).saturating_add(2 * h)
}
