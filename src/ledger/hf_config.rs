//! Import of a Hugging Face `config.json`.
//!
//! Every `model_type` of the presets is read with its own fields (latent attention, sliding-window
//! and chunked layers, linear attention, shared experts and dense first layers, vision towers,
//! `quantization_config`); a config of another `model_type` that has the standard decoder fields
//! is imported as a generic decoder, with a note naming what was assumed. The input is untrusted
//! (pasted by a user or fetched from a hub): every problem becomes an error that names the field,
//! never a panic.

use crate::ledger::units::{find, has};
use std::borrow::Cow;

use crate::ledger::json::Json;

use super::architecture::{
    Architecture, FullAttention, IndexerSpec, LayerKind, LayerPattern, LinearGroup, LinearSpec, MlaSpec, MlpKind,
    MoeSpec, NormKind, RopeTables, VisionKind, VisionSpec,
};
use super::msg::{Arg, Msg};
use super::storage::{QuantLayers, StorageFormat};
use crate::msg;

/// The `model_type`s read with their own fields.
pub const SUPPORTED: [&str; 62] = [
    "lfm2",
    "lfm2_moe",
    "llama",
    "smollm3",
    "exaone4",
    "cohere2",
    "dots1",
    "arcee",
    "falcon_h1",
    "mistral",
    "mixtral",
    "ministral3",
    "mistral3",
    "phi3",
    "granite",
    "seed_oss",
    "olmo2",
    "olmo3",
    "apertus",
    "qwen2",
    "qwen2_moe",
    "qwen2_vl",
    "qwen2_5_vl",
    "mimo",
    "qwen3",
    "qwen3_moe",
    "qwen3_vl",
    "qwen3_vl_moe",
    "qwen3_omni_moe",
    "qwen3_next",
    "qwen3_5",
    "qwen3_5_moe",
    "hunyuan_v1_dense",
    "ernie4_5",
    "ernie4_5_moe",
    "hunyuan_v1_moe",
    "granitemoehybrid",
    "bamba",
    "nemotron_h",
    "deepseek_v2",
    "deepseek_v3",
    "kimi_k2",
    "gpt_oss",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "gemma4",
    "llama4",
    "llama4_text",
    "glm4_moe",
    "glm4_moe_lite",
    "glm4",
    "glm4v",
    "glm4v_moe",
    "deepseek_v32",
    "bailing_moe",
    "bailing_moe_v2",
    "minimax_m2",
    "internvl_chat",
    "internvl",
    "chatglm",
    "gpt2",
];

/// Upper bounds that keep every later product finite and meaningful.
const MAX_DIM: u64 = 1 << 24;
const MAX_LAYERS: u64 = 10_000;
const MAX_VOCAB: u64 = 1 << 27;

/// Why a config could not be imported (rendered by `crate::i18n::render`).
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError(pub Msg);

/// An imported model: its architecture (with the checkpoint's format) and what was assumed.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub architecture: Architecture,
    pub notes: Vec<Msg>,
    /// The config names remote code known to materialize a full attention mask (ChatGLM / GLM-4's
    /// `auto_map`): its bill wants `mask=full`.
    pub full_mask: bool,
    /// Parameters of the linears the checkpoint's `llm_int8_skip_modules` keeps 16-bit layer by
    /// layer (`keep16`).
    pub keep16: u64,
}

fn err<T>(m: Msg) -> Result<T, ConfigError> {
    Err(ConfigError(m))
}

#[derive(Clone, Copy)]
struct Fields<'a> {
    obj: &'a [(String, Json)],
    prefix: &'a str,
}

impl<'a> Fields<'a> {
    fn get(&self, key: &str) -> Option<&'a Json> {
        self.obj.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn raw(&self, key: &str) -> Option<&'a Json> {
        self.get(key).filter(|v| !v.is_null())
    }

    fn name(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// A whole number ≥ `min`; `Ok(None)` when absent. A per-layer list of whole numbers (Hunyuan's
    /// `moe_topk`, `num_shared_expert`) reads as its largest (`per_layer_notes` says so when they differ).
    fn opt_count(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>, ConfigError> {
        let Some(v) = self.raw(key) else { return Ok(None) };
        let n = match v {
            Json::Array(items) if !items.is_empty() && items.len() <= MAX_LAYERS as usize => {
                items.iter().map(Json::as_u64).collect::<Option<Vec<u64>>>().and_then(|l| l.into_iter().max())
            }
            _ => v.as_u64(),
        };
        let n = n.filter(|n| *n < 1_000_000_000_000_000_000);
        match n {
            Some(n) if n < min => err(msg!(ConfigFieldZero, Arg::Text(self.name(key)))),
            Some(n) if n > max => err(msg!(ConfigFieldTooLarge, Arg::Text(self.name(key)), Arg::Int(n), Arg::Int(max))),
            Some(n) => Ok(Some(n)),
            None => err(msg!(ConfigFieldNotUint, Arg::Text(self.name(key)), Arg::Text(short(v)))),
        }
    }

    fn opt_uint(&self, key: &str, max: u64) -> Result<Option<u64>, ConfigError> {
        self.opt_count(key, 1, max)
    }

    fn uint(&self, key: &str, max: u64) -> Result<u64, ConfigError> {
        self.opt_uint(key, max)?.map_or_else(|| err(msg!(ConfigFieldMissing, Arg::Text(self.name(key)))), Ok)
    }

    /// The first of `keys` that is present.
    fn first_uint(&self, keys: &[&str], max: u64) -> Result<Option<u64>, ConfigError> {
        for k in keys {
            if let Some(v) = self.opt_uint(k, max)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    fn opt_bool(&self, key: &str) -> Result<Option<bool>, ConfigError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Json::Bool(b)) => Ok(Some(*b)),
            Some(v) => err(msg!(ConfigFieldNotBool, Arg::Text(self.name(key)), Arg::Text(short(v)))),
        }
    }

    fn opt_float(&self, key: &str) -> Result<Option<f64>, ConfigError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Json::Uint(n)) if (1..1_000_000).contains(n) => Ok(Some(*n as f64)),
            Some(Json::Num(f)) if f.is_finite() && *f > 0.0 && *f < 1e6 => Ok(Some(*f)),
            Some(Json::Uint(_) | Json::Num(_)) => err(msg!(ConfigFieldNotPositive, Arg::Text(self.name(key)))),
            Some(v) => err(msg!(ConfigFieldNotNumber, Arg::Text(self.name(key)), Arg::Text(short(v)))),
        }
    }

    /// A probability in [0, 1) (a dropout's): absent or anything else is `None`.
    fn opt_probability(&self, key: &str) -> Option<f64> {
        match self.raw(key) {
            Some(Json::Uint(0)) => Some(0.0),
            Some(Json::Num(f)) if (0.0..1.0).contains(f) => Some(*f),
            _ => None,
        }
    }

    /// The residual stream's dropout in training (`hidden_dropout`, BERT-style `hidden_dropout_prob`,
    /// GPT-2's and Phi's `resid_pdrop`); 0 when the config names none.
    fn hidden_dropout(&self) -> f64 {
        ["hidden_dropout", "hidden_dropout_prob", "resid_pdrop", "residual_dropout"]
            .iter()
            .find_map(|k| self.opt_probability(k))
            .unwrap_or(0.0)
    }

    fn opt_str(&self, key: &str) -> Option<&'a str> {
        self.raw(key).and_then(Json::as_str)
    }

    fn object(&self, key: &str) -> Result<Option<&'a [(String, Json)]>, ConfigError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Json::Object(o)) => Ok(Some(o)),
            Some(_) => err(msg!(ConfigFieldNotObject, Arg::Text(self.name(key)))),
        }
    }
}

/// A short, safe rendering of an offending value for an error message.
fn short(v: &Json) -> String {
    v.short(40)
}

/// The largest text read as a config.json (a real one is a few kilobytes; a `tokenizer.json` of a
/// 150,000-token vocabulary is 7–11 MB, and is read to say what it is).
pub const MAX_CONFIG_BYTES: usize = 16 << 20;

/// What other file of a model repository a JSON object without `model_type` is, by the fields
/// that file always has (a `tokenizer.json`'s `added_tokens` or vocabulary, an index's
/// `weight_map`, …).
fn other_model_file(top: &Fields) -> Option<Msg> {
    let has = |key: &str| top.get(key).is_some();
    if has("added_tokens") || top.object("model").ok().flatten().is_some_and(|m| m.iter().any(|(k, _)| k == "vocab")) {
        Some(msg!(FileTokenizer))
    } else if has("weight_map") {
        Some(msg!(FileWeightIndex))
    } else if has("tokenizer_class") || has("chat_template") {
        Some(msg!(FileTokenizerConfig))
    } else if has("do_sample") || has("max_new_tokens") || (has("eos_token_id") && !has("hidden_size")) {
        Some(msg!(FileGenerationConfig))
    } else {
        None
    }
}

/// Parses `config.json` text into an architecture. The reader is linear (`super::json`), so any file
/// a user drops — a `tokenizer.json` by mistake — is read or refused quickly, never a frozen tab;
/// more than [`MAX_CONFIG_BYTES`] is refused unread.
pub fn parse_config(text: &str) -> Result<Imported, ConfigError> {
    if text.len() > MAX_CONFIG_BYTES {
        return err(msg!(ConfigTooLarge, Arg::Bytes(text.len() as f64)));
    }
    let value = Json::parse(text).map_err(|e| ConfigError(msg!(ConfigNotJson, Arg::Text(e.to_string()))))?;
    from_value(&value)
}

pub fn from_value(value: &Json) -> Result<Imported, ConfigError> {
    let Some(obj) = value.as_object() else {
        return err(msg!(ConfigNotObject));
    };
    let top = Fields { obj, prefix: "" };
    let model_type = match top.raw("model_type") {
        Some(Json::Str(s)) => s.as_str(),
        Some(v) => return err(msg!(ConfigFieldNotString, Arg::Code("model_type"), Arg::Text(short(v)))),
        None => {
            return err(match other_model_file(&top) {
                Some(file) => msg!(ConfigOtherFile, file.arg()),
                None => msg!(ConfigModelTypeMissing, Arg::Text(SUPPORTED.join(", "))),
            })
        }
    };
    let name: String = match top.raw("_name_or_path") {
        Some(Json::Str(s)) if !s.is_empty() => s.chars().take(120).collect(),
        _ => model_type.chars().take(40).collect(),
    };
    let mut notes = Vec::new();
    // Qwen-Omni nests what is fine-tuned and served, its thinker (the language model, the vision
    // tower, the audio encoder), under `thinker_config`; the talker and code2wav only speak.
    let thinker = top.object("thinker_config")?;
    let outer = match thinker {
        Some(t) => {
            notes.push(msg!(ImportOmniThinker));
            Fields { obj: t, prefix: "thinker_config." }
        }
        None => Fields { obj, prefix: "" },
    };
    let mut arch = match model_type {
        "gpt2" => gpt2(&top, name)?,
        _ => {
            // Vision-language configs nest the language model under `text_config`.
            let text = match (outer.object("text_config")?, outer.object("llm_config")?) {
                (Some(t), _) if t.iter().any(|(k, _)| k == "hidden_size") => Fields {
                    obj: t,
                    prefix: if thinker.is_some() { "thinker_config.text_config." } else { "text_config." },
                },
                (_, Some(t)) if t.iter().any(|(k, _)| k == "hidden_size") => Fields { obj: t, prefix: "llm_config." },
                _ => outer,
            };
            let family = Family::of(model_type, &text);
            if family == Family::Generic {
                notes.push(msg!(ImportGeneric, Arg::Text(model_type.chars().take(40).collect())));
                let ignored = ignored_fields(&text);
                if !ignored.is_empty() {
                    notes.push(msg!(ImportIgnored, Arg::Text(ignored.join(", "))));
                }
            }
            let mut a = decoder(&text, family, name)?;
            if family == Family::FalconH1 {
                notes.push(msg!(ImportParallelHybrid, Arg::Int(a.layers / 2), Arg::Int(a.layers)));
            }
            per_layer_notes(&text, &mut notes);
            if let Some(n) = text.opt_count("num_nextn_predict_layers", 0, MAX_LAYERS)?.filter(|&n| n > 0) {
                notes.push(msg!(ImportMtpLayers, Arg::Int(n)));
            }
            if let Some(t) = top.opt_bool("tie_word_embeddings")? {
                a.tied_embeddings = t;
            }
            a.vision = vision(&outer, family, model_type)?;
            shape_notes(&outer, model_type, &mut notes)?;
            a.audio_encoder = audio_encoder(&outer, a.hidden, &mut notes)?;
            a.max_context = model_context(&outer, model_type)?;
            a.rope = rope_tables(&text, family, &a)?;
            a
        }
    };
    arch.checkpoint = checkpoint(&top, &mut notes)?;
    arch.max_context = model_context(&outer, model_type)?;
    arch.validate().map_err(ConfigError)?;
    let full_mask = remote_full_mask(&top);
    if full_mask {
        notes.push(msg!(ImportFullMask));
    }
    let keep16 = if arch.checkpoint.0.is_dense() { 0 } else { kept_linears(&arch, skip_list(&top)?, &mut notes) };
    Ok(Imported { architecture: arch, notes, full_mask, keep16 })
}

/// The rotary tables vLLM builds for this config ([`RopeTables`]; vLLM 0.19's
/// `layers/rotary_embedding`): the positions its scaling covers, the partial rotary width, and
/// Gemma-3's two tables. `rope_scaling` is transformers 5's `rope_parameters`, which Gemma-3 nests
/// per attention kind.
fn rope_tables(f: &Fields, family: Family, a: &Architecture) -> Result<RopeTables, ConfigError> {
    // Nemotron-H's attention blocks have no positions (Jamba's attention); Granite-4.0-H says "nope".
    if family == Family::NemotronH || f.opt_str("position_embedding_type") == Some("nope") {
        return Ok(RopeTables::None);
    }
    let scaling = match f.object("rope_scaling")? {
        Some(o) => Some(o),
        None => f.object("rope_parameters")?,
    };
    let params = scaling.map(|obj| Fields { obj, prefix: "rope_parameters." });
    let global = match &params {
        Some(p) => p.object("full_attention")?.map(|obj| Fields { obj, prefix: "rope_parameters.full_attention." }),
        None => None,
    };
    let global = global.as_ref().or(params.as_ref());
    let positions = scaled_positions(global, a.max_context)?;
    if matches!(family, Family::Gemma3 | Family::Gemma4) {
        return Ok(RopeTables::LocalGlobal { local: a.max_context, global: positions });
    }
    let partial = match f.opt_float("partial_rotary_factor")? {
        Some(x) => Some(x),
        None => match global {
            Some(p) => p.opt_float("partial_rotary_factor")?,
            None => None,
        },
    };
    let dim = match (partial, &a.mla) {
        (Some(x), None) if x < 1.0 => (a.head_dim as f64 * x) as u64,
        _ => 0,
    };
    // Positions 0 stand for the model's context, as the presets write them.
    let positions = if positions == a.max_context { 0 } else { positions };
    Ok(if positions == 0 && dim == 0 { RopeTables::OverContext } else { RopeTables::Tables { positions, dim } })
}

/// The positions of the table a rope scaling makes: linear and dynamic NTK × the factor, YaRN
/// (DeepSeek's too) the original context × the factor, LongRoPE the short and the long table;
/// Llama-3's, M-RoPE and the rest over the model's context.
fn scaled_positions(p: Option<&Fields>, context: u64) -> Result<u64, ConfigError> {
    let Some(p) = p else { return Ok(context) };
    let kind = p.opt_str("rope_type").or_else(|| p.opt_str("type")).unwrap_or("default");
    let factor = p.opt_float("factor")?.unwrap_or(1.0);
    let original = p.opt_uint("original_max_position_embeddings", 1 << 30)?;
    let times = |n: u64| (n as f64 * factor).round() as u64;
    Ok(match kind {
        "linear" | "dynamic" => times(context),
        "yarn" | "deepseek_yarn" => times(original.unwrap_or(context)),
        "longrope" | "su" => original.unwrap_or(0).saturating_add(context),
        _ => context,
    })
}

/// The fields that give a model's longest context, in the order they are read (transformers'
/// names, and the older ones some remote-code models use).
const CONTEXT_FIELDS: [&str; 5] =
    ["max_position_embeddings", "n_positions", "max_sequence_length", "seq_length", "max_seq_len"];

/// The model's longest context: the language model's (a VLM's `text_config`) first, then the top
/// level's, then transformers' default for the type (Gemma 3's text config: 131,072); 0 when none.
fn model_context(top: &Fields, model_type: &str) -> Result<u64, ConfigError> {
    let max = 1 << 30;
    for (nested, prefix) in [("text_config", "text_config."), ("llm_config", "llm_config.")] {
        if let Some(t) = top.object(nested)? {
            if let Some(n) = (Fields { obj: t, prefix }).first_uint(&CONTEXT_FIELDS, max)? {
                return Ok(n);
            }
        }
    }
    let default = if matches!(model_type, "gemma3" | "gemma3_text") { 131_072 } else { 0 };
    Ok(top.first_uint(&CONTEXT_FIELDS, max)?.unwrap_or(default))
}

/// The fields the generic reading uses.
const GENERIC_READS: &[&str] = &[
    "max_position_embeddings",
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "attention_head_dim",
    "intermediate_size",
    "vocab_size",
    "tie_word_embeddings",
    "attention_bias",
    "mlp_bias",
    "sliding_window",
    "layer_types",
    "layers_block_type",
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "num_experts_per_tok",
    "experts_per_token",
    "moe_topk",
    "top_k_experts",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "n_shared_experts",
    "first_k_dense_replace",
    "interleave_moe_layer_step",
    "decoder_sparse_step",
    "moe_layer_freq",
    "topk_method",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "attention_chunk_size",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_conv_kernel_dim",
];

/// Fields of an unknown type that look like its shape (layers, experts, heads, sizes, a hybrid
/// stack's pattern and state) and that the generic reading did not use: the note names them, so a
/// count that leaves them out is not taken for the model's.
fn ignored_fields(f: &Fields) -> Vec<String> {
    const SHAPE: &[&str] = &[
        "layer", "expert", "moe", "head", "dim", "size", "proj", "conv", "state", "group", "block", "mamba", "ssm",
        "pattern", "hybrid", "window", "shared", "mtp", "nextn", "expand",
    ];
    const NOT_SHAPE: &[&str] = &[
        "dropout",
        "eps",
        "token_id",
        "position",
        "rope",
        "act",
        "init",
        "aux",
        "dtype",
        "pdrop",
        "scal",
        "max_window",
    ];
    (f.obj.iter())
        .map(|(k, _)| k.as_str())
        .filter(|k| !GENERIC_READS.contains(k) && f.raw(k).is_some())
        .filter(|k| SHAPE.iter().any(|p| k.contains(p)) && !NOT_SHAPE.iter().any(|p| k.contains(p)))
        .take(16)
        .map(|k| f.name(k).chars().take(60).collect())
        .collect()
}

/// ChatGLM's remote code (`auto_map` naming `modeling_chatglm`: ChatGLM2/3, GLM-4-9B), whose
/// prefill `super::chatglm` replays (`mask=full`).
fn remote_full_mask(top: &Fields) -> bool {
    let Some(Json::Object(map)) = top.raw("auto_map") else { return false };
    map.iter().any(|(_, v)| v.as_str().is_some_and(|s| s.contains("modeling_chatglm")))
}

/// What the importer reads in another model's shape: InternViT's and GLM-4V's towers.
fn shape_notes(outer: &Fields, model_type: &str, notes: &mut Vec<Msg>) -> Result<(), ConfigError> {
    let tower = outer.object("vision_config")?.map(|obj| Fields { obj, prefix: "vision_config." });
    match (model_type, &tower) {
        ("internvl_chat" | "internvl", Some(_)) => notes.push(msg!(
            ImportVisionInternVl,
            Arg::Int(outer.opt_count("max_dynamic_patch", 1, 1 << 10)?.unwrap_or(12))
        )),
        ("glm4v" | "glm4v_moe", Some(v)) => {
            let (out, inner) = (v.opt_uint("out_hidden_size", MAX_DIM)?, v.opt_uint("intermediate_size", MAX_DIM)?);
            let merger = 3u64.saturating_mul(out.unwrap_or(0)).saturating_mul(inner.unwrap_or(0));
            notes.push(msg!(ImportVisionGlm4v, Arg::Count(merger)));
        }
        _ => {}
    }
    Ok(())
}

/// A per-layer list whose entries differ is read as its largest: the note names it.
fn per_layer_notes(f: &Fields, notes: &mut Vec<Msg>) {
    for key in ["moe_topk", "num_shared_expert", "moe_intermediate_size", "num_experts_per_tok"] {
        let Some(Json::Array(items)) = f.raw(key) else { continue };
        let values: Vec<u64> = items.iter().filter_map(Json::as_u64).collect();
        let (Some(low), Some(high)) = (values.iter().min(), values.iter().max()) else { continue };
        if low != high {
            notes.push(msg!(ImportPerLayer, Arg::Text(f.name(key)), Arg::Int(*low), Arg::Int(*high)));
        }
    }
}

/// Which reading of the fields a `model_type` gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Llama,
    Qwen2,
    Qwen3,
    Qwen3Next,
    Hunyuan,
    /// Hybrid Mamba-2 + attention with a shared-expert MoE (Granite-4.0-H, Bamba).
    GraniteHybrid,
    /// Nemotron-H: blocks that are a Mamba-2 mixer, an attention or an MLP (dense or MoE), never two.
    NemotronH,
    DeepSeek,
    GptOss,
    Gemma2,
    Gemma3,
    Gemma4,
    Llama4,
    Glm,
    /// OLMo 2 / 3: Llama's projections, q and k normed over their whole width, the norms after
    /// attention and after the MLP (two per layer, as Llama's).
    Olmo,
    /// Apertus: an MLP without gate (up, xIELU, down: two matrices), q and k normed per head.
    Apertus,
    /// Ling / Ring 2.0 (inclusionAI, `bailing_moe`): one shared MLP `moe_intermediate_size ×
    /// num_shared_experts` wide (the remote code's `BailingMoeV2MLP`), q/k norms by `use_qk_norm`,
    /// the router's expert bias by `moe_router_enable_expert_bias`.
    Ling,
    /// MiniMax-M2: every layer's experts `intermediate_size` wide, q/k norms by `use_qk_norm`, the
    /// router's bias by `use_routing_bias`, a shared MLP only when `shared_intermediate_size` > 0.
    MiniMax,
    /// ERNIE 4.5 (Baidu): Llama's decoder; its MoE under its own names (`moe_num_experts`, `moe_k`,
    /// `moe_num_shared_experts`, the dense layers before `moe_layer_start_index`).
    Ernie,
    /// EXAONE 4.0 (LG): Llama's projections, q and k normed per head, the norms after attention and
    /// after the MLP (two per layer, as OLMo 2's), three sliding-window layers to one global
    /// (`sliding_window_pattern`).
    Exaone4,
    /// Cohere2 (Command R7B, Command A): attention and the MLP side by side off one LayerNorm
    /// (weight only: transformers' `CohereLayerNorm`), three sliding-window layers to one global,
    /// tied embeddings by default.
    Cohere2,
    /// dots.llm1 (rednote): Qwen3's attention (q/k norms per head) in DeepSeek-V3's decoder layer
    /// (dense first layers of `intermediate_size`, routed and shared experts, the router's
    /// correction bias).
    Dots,
    /// Falcon-H1 (TII): every layer runs attention and a Mamba-2 mixer side by side on one norm's
    /// output, then the MLP; read as two blocks per layer, the mixer's (M) and the attention's with
    /// the MLP (F).
    FalconH1,
    /// LFM2 (Liquid AI): gated short-convolution layers (`conv`) and attention layers with q/k
    /// norms per head, each with a SwiGLU MLP whose width `block_auto_adjust_ff_dim` shrinks;
    /// LFM2-MoE's experts after `num_dense_layers` dense ones.
    Lfm2,
    /// Arcee AFM: Llama's attention, an MLP without gate (up, ReLU², down: two matrices).
    Arcee,
    /// Another decoder with the standard fields.
    Generic,
}

impl Family {
    fn of(model_type: &str, text: &Fields) -> Family {
        match model_type {
            // ChatGLM / GLM-4's remote code: a Llama-style decoder under its own field names
            // (num_layers, kv_channels, ffn_hidden_size, padded_vocab_size, add_qkv_bias).
            // Ministral 3's nested text model and Seed-OSS (q, k, v biases by `attention_bias`) too.
            "llama" | "mistral" | "mixtral" | "phi3" | "mistral3" | "ministral" | "ministral3" | "granite"
            | "chatglm" | "seed_oss" => Family::Llama,
            // SmolLM3: Llama's shapes; every fourth layer without RoPE changes no size.
            "smollm3" => Family::Llama,
            "exaone4" => Family::Exaone4,
            "cohere2" => Family::Cohere2,
            "dots1" => Family::Dots,
            "arcee" => Family::Arcee,
            "falcon_h1" => Family::FalconH1,
            "lfm2" | "lfm2_moe" => Family::Lfm2,
            // MiMo is Qwen2's decoder with multi-token-prediction layers the model does not load.
            "qwen2" | "qwen2_moe" | "qwen2_vl" | "qwen2_5_vl" | "mimo" => Family::Qwen2,
            "qwen3"
            | "qwen3_moe"
            | "qwen3_vl"
            | "qwen3_vl_text"
            | "qwen3_vl_moe"
            | "qwen3_vl_moe_text"
            | "qwen3_omni_moe"
            | "qwen3_omni_moe_text" => Family::Qwen3,
            "olmo2" | "olmo3" => Family::Olmo,
            "apertus" => Family::Apertus,
            // Qwen3.5 is Qwen3-Next's hybrid (Gated DeltaNet + gated attention) with a vision tower.
            "qwen3_next" | "qwen3_5" | "qwen3_5_text" | "qwen3_5_moe" | "qwen3_5_moe_text" => Family::Qwen3Next,
            "hunyuan" | "hunyuan_v1_moe" | "hunyuan_v1_dense" => Family::Hunyuan,
            "granitemoehybrid" | "bamba" => Family::GraniteHybrid,
            "nemotron_h" => Family::NemotronH,
            // GLM-4.7-Flash (`glm4_moe_lite`): DeepSeek-V3's latent attention and experts (shared
            // expert, dense first layers, the router's correction bias) under GLM's name.
            // DeepSeek-V3.2's lightning indexer (`index_n_heads` × `index_head_dim`) too.
            "deepseek_v2" | "deepseek_v3" | "deepseek_v32" | "kimi_k2" | "glm4_moe_lite" => Family::DeepSeek,
            "gpt_oss" => Family::GptOss,
            "gemma2" => Family::Gemma2,
            "gemma3" | "gemma3_text" => Family::Gemma3,
            "gemma4" | "gemma4_text" => Family::Gemma4,
            "llama4" | "llama4_text" => Family::Llama4,
            // GLM-4.1V and GLM-4.5V: GLM-4's and GLM-4.5's language models (flat in GLM-4.1V's first
            // release, under `text_config` since).
            "glm4_moe" | "glm4" | "glm4v" | "glm4v_text" | "glm4v_moe" | "glm4v_moe_text" => Family::Glm,
            "bailing_moe" | "bailing_moe_v2" => Family::Ling,
            "minimax_m2" => Family::MiniMax,
            // InternVL: its language model under `llm_config` (the remote code's `internvl_chat`) or
            // `text_config` (transformers' `internvl`), of its own type.
            "internvl_chat" | "internvl" => match text.opt_str("model_type") {
                Some(t) if t != model_type && !t.is_empty() => Family::of(t, &Fields { obj: &[], prefix: "" }),
                _ => Family::Llama,
            },
            "ernie4_5" | "ernie4_5_moe" => Family::Ernie,
            // A nested text model of a known type.
            _ => match text.opt_str("model_type") {
                Some(t) if t != model_type && !t.is_empty() => Family::of(t, &Fields { obj: &[], prefix: "" }),
                _ => Family::Generic,
            },
        }
    }
}

fn decoder(f: &Fields, family: Family, name: String) -> Result<Architecture, ConfigError> {
    let gemma3 = family == Family::Gemma3;
    // ChatGLM / GLM-4's remote configs name the same fields differently.
    let layers = f
        .first_uint(&["num_hidden_layers", "num_layers"], MAX_LAYERS)?
        .map_or_else(|| f.uint("num_hidden_layers", MAX_LAYERS), Ok)?;
    let hidden = f.uint("hidden_size", MAX_DIM)?;
    let heads = match f.opt_uint("num_attention_heads", MAX_DIM)? {
        Some(h) => h,
        None if gemma3 => 8, // Gemma3TextConfig's default
        None => f.uint("num_attention_heads", MAX_DIM)?,
    };
    let kv_heads = f.first_uint(&["num_key_value_heads", "multi_query_group_num"], MAX_DIM)?.unwrap_or(if gemma3 {
        4
    } else {
        heads
    });
    let head_dim = match f.first_uint(&["head_dim", "attention_head_dim", "kv_channels"], MAX_DIM)? {
        Some(d) => d,
        None if gemma3 => 256,
        None if hidden % heads == 0 => hidden / heads,
        // Latent attention sets its own widths (GLM-4.7-Flash: hidden 2,048 over 20 heads).
        None if f.raw("kv_lora_rank").is_some() => 0,
        None => return err(msg!(ConfigHeadDim, Arg::Int(hidden), Arg::Int(heads))),
    };
    // A mixture of experts without dense layers (Qwen3.5-MoE) has no `intermediate_size`; a dense
    // Granite-4.0-H has only its shared MLP.
    let shared_only = family == Family::GraniteHybrid
        && f.opt_count("num_local_experts", 0, 1 << 16)?.unwrap_or(0) < 2
        && f.raw("shared_intermediate_size").is_some();
    let ffn = match f.opt_uint(if shared_only { "shared_intermediate_size" } else { "intermediate_size" }, MAX_DIM)? {
        _ if family == Family::Lfm2 => lfm2_ffn(f)?,
        Some(n) => n,
        None if f.raw("ffn_hidden_size").is_some() => f.uint("ffn_hidden_size", MAX_DIM)?,
        None => {
            f.opt_uint("moe_intermediate_size", MAX_DIM)?.map_or_else(|| f.uint("intermediate_size", MAX_DIM), Ok)?
        }
    };
    let vocab = match f.first_uint(&["vocab_size", "padded_vocab_size"], MAX_VOCAB)? {
        Some(v) => v,
        None if gemma3 => 262208,
        None => f.uint("vocab_size", MAX_VOCAB)?,
    };
    // transformers' own defaults per family when the field is absent.
    let tied_default =
        matches!(family, Family::Gemma2 | Family::Gemma3 | Family::Gemma4 | Family::Cohere2 | Family::Lfm2);
    // LFM2's first configs name it `tie_embedding`.
    let tied = f.opt_bool("tie_word_embeddings")?.or(f.opt_bool("tie_embedding")?).unwrap_or(tied_default);
    let attention_bias =
        f.opt_bool("attention_bias")?.or(f.opt_bool("add_qkv_bias")?).or(f.opt_bool("use_qkv_bias")?).unwrap_or(false);
    let mlp_bias = f.opt_bool("mlp_bias")?.unwrap_or(false);
    let mut a = Architecture {
        name: Cow::Owned(name),
        ..Architecture::decoder("", layers, hidden, heads, kv_heads, head_dim, ffn, vocab, tied)
    };
    a.qkv_bias = family == Family::Qwen2 || attention_bias;
    a.out_and_mlp_bias = mlp_bias;
    a.hidden_dropout = f.hidden_dropout();
    a.qk_norm = qk_norm(f, family)?;
    family_details(f, family, &mut a)?;
    a.moe = moe(f, family, ffn)?;
    // The `ffn` of a mixture of experts is one expert's size (the dense layers keep `dense_ffn`).
    if let Some(m) = &a.moe {
        a.ffn = m.expert_ffn;
    }
    a.mla = mla(f)?;
    // DeepSeek-V3.2's lightning indexer.
    if let (Some(_), Some(heads)) = (a.mla, f.opt_count("index_n_heads", 1, MAX_DIM)?) {
        let head_dim = f.opt_count("index_head_dim", 1, MAX_DIM)?.unwrap_or(128);
        a.indexer = Some(IndexerSpec { heads, head_dim });
    }
    if a.mla.is_some() {
        a.kv_heads = heads;
        a.head_dim = a.mla.map_or(head_dim, |m| m.qk_head_dim());
    }
    layer_kinds(f, family, &mut a)?;
    Ok(a)
}

/// LFM2's MLP width (transformers' `Lfm2MLP`): `block_ff_dim` (or `intermediate_size`), with
/// `block_auto_adjust_ff_dim` (the dense model's default) two thirds of it × `block_ffn_dim_multiplier`,
/// rounded up to `block_multiple_of`; LFM2-MoE's dense layers take `intermediate_size` as it is.
fn lfm2_ffn(f: &Fields) -> Result<u64, ConfigError> {
    let base = match f.opt_uint("block_ff_dim", MAX_DIM)? {
        Some(n) => n,
        None => f.uint("intermediate_size", MAX_DIM)?,
    };
    if !f.opt_bool("block_auto_adjust_ff_dim")?.unwrap_or(f.raw("num_experts").is_none()) {
        return Ok(base);
    }
    let mut width = 2 * base / 3;
    if let Some(m) = f.opt_float("block_ffn_dim_multiplier")? {
        width = (m * width as f64) as u64;
    }
    let multiple = f.opt_count("block_multiple_of", 1, MAX_DIM)?.unwrap_or(256);
    Ok(width.div_ceil(multiple).saturating_mul(multiple).clamp(1, MAX_DIM))
}

/// Whether q and k are normed per head: always in some families, by `use_qk_norm` in others.
fn qk_norm(f: &Fields, family: Family) -> Result<bool, ConfigError> {
    Ok(matches!(
        family,
        Family::Qwen3
            | Family::Qwen3Next
            | Family::Gemma3
            | Family::Gemma4
            | Family::Olmo
            | Family::Apertus
            | Family::Exaone4
            | Family::Dots
            | Family::Lfm2
    ) || (matches!(family, Family::Glm | Family::Hunyuan | Family::Ling | Family::MiniMax)
        && f.opt_bool("use_qk_norm")?.unwrap_or(false)))
}

/// Norms, biases, sinks, soft-capping: what sets a family apart.
fn family_details(f: &Fields, family: Family, a: &mut Architecture) -> Result<(), ConfigError> {
    match family {
        Family::Gemma2 => {
            a.norms_per_layer = 4;
            // Soft-capping of scores and logits (transformers' defaults 50.0 and 30.0); an explicit
            // null turns a cap off.
            let on = |key: &str| -> Result<bool, ConfigError> {
                Ok(!matches!(f.get(key), Some(Json::Null)) && f.opt_float(key)?.is_none_or(|c| c > 0.0))
            };
            a.softcapping = on("final_logit_softcapping")? || on("attn_logit_softcapping")?;
        }
        Family::Gemma3 => a.norms_per_layer = 4,
        Family::Gemma4 => {
            a.norms_per_layer = 4;
            a.softcapping = f.opt_float("final_logit_softcapping")?.is_some();
            a.full_attention = gemma4_full_attention(f, a)?;
            // E2B and E4B: their last layers read earlier layers' caches, per-layer embeddings
            // (their table's vocabulary is `vocab_size_per_layer_input`, the model's 262,144), and
            // E2B's KV-shared layers have a twice wider MLP.
            a.kv_shared_layers = f.opt_count("num_kv_shared_layers", 0, MAX_LAYERS)?.unwrap_or(0).min(a.layers);
            a.per_layer_input = f.opt_count("hidden_size_per_layer_input", 0, MAX_DIM)?.unwrap_or(0);
            a.wide_shared_mlp = f.opt_bool("use_double_wide_mlp")?.unwrap_or(false) && a.kv_shared_layers > 0;
        }
        Family::GptOss => {
            // attention_bias covers q, k, v and o; the experts have biases; one sink per head.
            a.qkv_bias = true;
            a.out_and_mlp_bias = true;
            a.sinks = true;
        }
        Family::Qwen3Next => a.attn_gate = true,
        Family::NemotronH => {
            // One norm per block; squared-ReLU MLPs and experts have two matrices, no gate.
            a.norms_per_layer = 1;
            if f.opt_str("mlp_hidden_act") == Some("relu2") {
                a.mlp = super::architecture::MlpKind::Gelu;
            }
        }
        Family::Llama4 => a.qk_norm = false, // Llama-4's q/k norm is an L2 norm without weights
        // transformers' ApertusMLP: `down_proj(act_fn(up_proj(x)))` (its xIELU's two scalars per
        // layer are left out).
        Family::Apertus | Family::Arcee => a.mlp = super::architecture::MlpKind::Gelu,
        // One weight-only LayerNorm per layer feeds both attention and the MLP.
        Family::Cohere2 => a.norms_per_layer = 1,
        // Falcon-H1's two norms (before the mixers, before the MLP), one for each of its blocks.
        Family::FalconH1 => a.norms_per_layer = 1,
        _ => {}
    }
    Ok(())
}

/// Gemma-4's full-attention layers: `global_head_dim` wide (transformers' `Gemma4TextAttention`:
/// `head_dim = global_head_dim if not is_sliding`), with `num_global_key_value_heads` KV heads and
/// no v_proj when `attention_k_eq_v` (E2B and E4B keep `num_key_value_heads` and their v_proj).
fn gemma4_full_attention(f: &Fields, a: &Architecture) -> Result<Option<FullAttention>, ConfigError> {
    let k_is_v = f.opt_bool("attention_k_eq_v")?.unwrap_or(false);
    let head_dim = f.opt_uint("global_head_dim", MAX_DIM)?.unwrap_or(a.head_dim);
    let kv_heads = match f.opt_count("num_global_key_value_heads", 1, MAX_DIM)? {
        Some(n) if k_is_v => n,
        _ => a.kv_heads,
    };
    let own = FullAttention { kv_heads, head_dim, k_is_v };
    Ok((own != FullAttention { kv_heads: a.kv_heads, head_dim: a.head_dim, k_is_v: false }).then_some(own))
}

/// The mixture of experts, from whichever names the family uses.
fn moe(f: &Fields, family: Family, ffn: u64) -> Result<Option<MoeSpec>, ConfigError> {
    // 0 experts is a dense model (Granite-4.0-H's `num_local_experts: 0`).
    let mut experts = None;
    for key in ["num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"] {
        experts = experts.or(f.opt_count(key, 0, 1 << 16)?);
    }
    let Some(experts) = experts else {
        return Ok(None);
    };
    if experts < 2 {
        return Ok(None);
    }
    let active = f
        .first_uint(&["num_experts_per_tok", "experts_per_token", "moe_topk", "top_k_experts", "moe_k"], 1 << 16)?
        .unwrap_or(1);
    if active > experts {
        return err(msg!(ConfigExpertsPerToken, Arg::Int(active), Arg::Int(experts)));
    }
    let expert_ffn = f.opt_uint("moe_intermediate_size", MAX_DIM)?.unwrap_or(ffn);
    let mut m = MoeSpec::routed(experts, active, expert_ffn);
    // Qwen3-Omni's thinker writes 0: no shared expert.
    if let Some(shared_ffn) = f.opt_count("shared_expert_intermediate_size", 0, MAX_DIM)?.filter(|&n| n > 0) {
        (m.shared, m.shared_ffn, m.shared_gate) = (1, shared_ffn, true);
    }
    if let Some(n) = f.opt_count("n_shared_experts", 0, 1 << 10)? {
        (m.shared, m.shared_ffn) = (n, expert_ffn);
    }
    m.dense_layers = f.opt_count("first_k_dense_replace", 0, MAX_LAYERS)?.unwrap_or(0);
    m.step = f
        .first_uint(
            &["interleave_moe_layer_step", "decoder_sparse_step", "moe_layer_freq", "moe_layer_interval"],
            MAX_LAYERS,
        )?
        .unwrap_or(1);
    m.router_bias = family == Family::GptOss || f.opt_str("topk_method") == Some("noaux_tc");
    match family {
        // The dense layers are the model's intermediate_size; the experts are moe_intermediate_size.
        Family::DeepSeek => m.dense_ffn = ffn,
        // dots.llm1's `DeepseekV3TopkRouter` keeps the correction bias (`scoring_func: noaux_tc`).
        Family::Dots => (m.dense_ffn, m.router_bias) = (ffn, true),
        // GLM-4.5's router keeps its `e_score_correction_bias` whatever the config says of it.
        Family::Glm => (m.dense_ffn, m.router_bias) = (ffn, true),
        Family::Ling | Family::MiniMax | Family::Ernie => named_experts(f, family, ffn, &mut m)?,
        Family::Llama4 => {
            // transformers' `Llama4TextMoe` runs every expert over every token.
            m.dense_experts = true;
            (m.shared, m.shared_ffn) = (1, expert_ffn);
            m.dense_ffn = f.opt_uint("intermediate_size_mlp", MAX_DIM)?.unwrap_or(ffn);
        }
        // Gemma-4's MoE block runs beside the layer's dense MLP (`intermediate_size`).
        Family::Gemma4 => (m.shared, m.shared_ffn) = (1, ffn),
        // Nemotron-H's shared expert has its own size.
        Family::NemotronH => {
            if let Some(n) = f.opt_uint("moe_shared_expert_intermediate_size", MAX_DIM)? {
                (m.shared, m.shared_ffn) = (f.opt_count("n_shared_experts", 0, 1 << 10)?.unwrap_or(1), n);
            }
        }
        // LFM2-MoE: dense layers first, the router's `expert_bias` by `use_expert_bias`.
        Family::Lfm2 => {
            m.dense_layers = f.opt_count("num_dense_layers", 0, MAX_LAYERS)?.unwrap_or(0);
            m.dense_ffn = ffn;
            m.router_bias = f.opt_bool("use_expert_bias")?.unwrap_or(false);
        }
        // GraniteMoeSharedMoE: the routed experts (`intermediate_size`) beside one shared MLP.
        Family::GraniteHybrid => {
            if let Some(n) = f.opt_uint("shared_intermediate_size", MAX_DIM)? {
                (m.shared, m.shared_ffn) = (1, n);
            }
        }
        // HunYuanMoE's shared MLP (`use_mixed_mlp_moe`) is `intermediate_size × num_shared_expert`.
        Family::Hunyuan if f.opt_bool("use_mixed_mlp_moe")?.unwrap_or(false) => {
            let n = f.opt_count("num_shared_expert", 0, 1 << 10)?.unwrap_or(1);
            (m.shared, m.shared_ffn) = (1, ffn.saturating_mul(n));
        }
        _ => {}
    }
    Ok(Some(m))
}

/// The shared MLP, dense layers and router bias of the families that name them their own way.
fn named_experts(f: &Fields, family: Family, ffn: u64, m: &mut MoeSpec) -> Result<(), ConfigError> {
    let expert_ffn = m.expert_ffn;
    match family {
        Family::Ling => {
            let n = f.opt_count("num_shared_experts", 0, 1 << 10)?.unwrap_or(0);
            (m.shared, m.shared_ffn) = (n.min(1), expert_ffn.saturating_mul(n));
            m.dense_ffn = ffn;
            m.router_bias = f.opt_bool("moe_router_enable_expert_bias")?.unwrap_or(false);
        }
        Family::MiniMax => {
            m.router_bias = f.opt_bool("use_routing_bias")?.unwrap_or(false);
            if let Some(n) = f.opt_count("shared_intermediate_size", 0, MAX_DIM)?.filter(|&n| n > 0) {
                (m.shared, m.shared_ffn) = (1, n);
            }
        }
        // transformers' `Ernie4_5_MoeSparseMoeBlock`: one shared MLP of `moe_intermediate_size ×
        // moe_num_shared_experts`, the router's correction bias (`moe_statics`), the layers before
        // `moe_layer_start_index` dense.
        Family::Ernie => {
            let n = f.opt_count("moe_num_shared_experts", 0, 1 << 10)?.unwrap_or(0);
            (m.shared, m.shared_ffn) = (n.min(1), expert_ffn.saturating_mul(n));
            m.dense_layers = f.opt_count("moe_layer_start_index", 0, MAX_LAYERS)?.unwrap_or(0);
            m.dense_ffn = ffn;
            m.router_bias = true;
        }
        _ => {}
    }
    Ok(())
}

/// Latent attention, when `kv_lora_rank` is set.
fn mla(f: &Fields) -> Result<Option<MlaSpec>, ConfigError> {
    let Some(kv_lora_rank) = f.opt_uint("kv_lora_rank", MAX_DIM)? else { return Ok(None) };
    Ok(Some(MlaSpec {
        q_lora_rank: f.opt_count("q_lora_rank", 0, MAX_DIM)?.unwrap_or(0),
        kv_lora_rank,
        qk_rope_head_dim: f.uint("qk_rope_head_dim", MAX_DIM)?,
        qk_nope_head_dim: f.uint("qk_nope_head_dim", MAX_DIM)?,
        v_head_dim: f.uint("v_head_dim", MAX_DIM)?,
    }))
}

/// The attention kind of each layer: `layer_types`, or the family's own rule (Gemma-3's
/// `sliding_window_pattern`, Llama-4's chunked layers, Qwen3-Next's `full_attention_interval`).
fn layer_kinds(f: &Fields, family: Family, a: &mut Architecture) -> Result<(), ConfigError> {
    let window = f.opt_uint("sliding_window", 1 << 30)?.unwrap_or(0);
    if let Some(pattern) = f.opt_str("hybrid_override_pattern").filter(|_| family == Family::NemotronH) {
        a.layer_pattern = hybrid_blocks(f, pattern, a.layers)?;
    } else if family == Family::FalconH1 {
        // transformers' `FalconH1DecoderLayer`: `mamba` and `self_attn` both read the
        // input_layernorm's output and their sum joins the residual; the MLP follows.
        if a.layers > MAX_LAYERS / 2 {
            return err(msg!(
                ConfigFieldTooLarge,
                Arg::Text(f.name("num_hidden_layers")),
                Arg::Int(a.layers),
                Arg::Int(MAX_LAYERS / 2)
            ));
        }
        a.layers *= 2;
        a.layer_pattern = LayerPattern::parse("MF").unwrap_or(LayerPattern::FULL);
    } else if let (Family::Lfm2, None, Some(Json::Array(idxs))) =
        (family, f.raw("layer_types"), f.raw("full_attn_idxs"))
    {
        // LFM2's first configs list the attention layers; the rest are short convolutions.
        let mut kinds = vec![LayerKind::Linear; a.layers as usize];
        for i in idxs.iter().filter_map(Json::as_u64).filter(|&i| i < a.layers) {
            kinds[i as usize] = LayerKind::Full;
        }
        a.layer_pattern = LayerPattern::from_kinds(&kinds).unwrap_or(LayerPattern::FULL);
    } else if let Some(Json::Array(types)) = f.raw("layer_types").or(f.raw("layers_block_type")) {
        let kinds: Vec<LayerKind> = types
            .iter()
            .map(|t| match t.as_str() {
                Some("sliding_attention") => LayerKind::Sliding,
                Some("chunked_attention") => LayerKind::Chunked,
                Some("linear_attention" | "mamba" | "conv") => LayerKind::Linear,
                _ => LayerKind::Full,
            })
            .collect();
        if let Some(p) = LayerPattern::from_kinds(&kinds) {
            a.layer_pattern = p;
        }
    } else {
        a.layer_pattern = match family {
            Family::Gemma3 => {
                then_full('S', f.first_uint(&["sliding_window_pattern", "_sliding_window_pattern"], 64)?.unwrap_or(6))
            }
            Family::Gemma2 | Family::GptOss if window > 0 => LayerPattern::of(b"SF"),
            Family::Exaone4 | Family::Cohere2 if window > 0 => every_nth_global(f)?,
            Family::Llama4 => then_full('C', f.opt_uint("no_rope_layer_interval", 64)?.unwrap_or(4)),
            Family::Qwen3Next => then_full('L', f.opt_uint("full_attention_interval", 64)?.unwrap_or(4)),
            _ => LayerPattern::FULL,
        };
    }
    // A window or chunk matters only to layers of that kind (Qwen2 configs carry an unused one).
    let kinds = a.layer_pattern.kinds();
    a.window = if kinds.contains(&LayerKind::Sliding) { window } else { 0 };
    a.chunk =
        if kinds.contains(&LayerKind::Chunked) { f.opt_uint("attention_chunk_size", 1 << 30)?.unwrap_or(0) } else { 0 };
    a.linear = linear_spec(f, a)?;
    // Falcon-H1's Mamba-2 mixer runs beside its attention on one input (`FalconH1DecoderLayer`).
    if let Some(l) = a.linear.as_mut().filter(|_| family == Family::FalconH1) {
        l.side_by_side = true;
    }
    Ok(())
}

/// `n` − 1 layers of the kind `letter` names, then one full-attention layer (Gemma-3's and EXAONE's
/// `sliding_window_pattern`, Llama-4's chunked layers, Qwen3-Next's `full_attention_interval`); `n`
/// is at most 64, as its callers read it.
fn then_full(letter: char, n: u64) -> LayerPattern {
    let letters: String = std::iter::repeat_n(letter, n.saturating_sub(1) as usize).chain(['F']).collect();
    LayerPattern::parse(&letters).unwrap_or(LayerPattern::FULL)
}

/// EXAONE 4.0's and Cohere2's `sliding_window_pattern` (transformers' default 4): layer i slides
/// unless (i + 1) is a multiple of it, or EXAONE's letters ("LLLG": L local, G global).
fn every_nth_global(f: &Fields) -> Result<LayerPattern, ConfigError> {
    let key = "sliding_window_pattern";
    let Some(text) = f.opt_str(key) else {
        return Ok(then_full('S', f.opt_count(key, 1, 64)?.unwrap_or(4)));
    };
    let letters: Option<String> = text.chars().map(|c| ['S', 'F'].get("LG".find(c)?).copied()).collect();
    match letters.as_deref().and_then(LayerPattern::parse) {
        Some(p) => Ok(p),
        None => {
            err(msg!(ConfigFieldNotUint, Arg::Text(f.name(key)), Arg::Text(f.raw(key).map(short).unwrap_or_default())))
        }
    }
}

/// Nemotron-H's `hybrid_override_pattern`: M a Mamba-2 block, * an attention block, - and E an MLP
/// block (E a mixture of experts), one letter per layer.
fn hybrid_blocks(f: &Fields, pattern: &str, layers: u64) -> Result<LayerPattern, ConfigError> {
    let blocks: Option<Vec<(LayerKind, bool)>> = pattern
        .chars()
        .map(|c| match c {
            'M' => Some((LayerKind::Linear, false)),
            '*' => Some((LayerKind::Full, false)),
            '-' | 'E' => Some((LayerKind::None, true)),
            _ => None,
        })
        .collect();
    let counted = blocks.as_ref().is_some_and(|b| b.len() as u64 == layers);
    blocks.filter(|_| counted).and_then(|b| LayerPattern::from_blocks(&b, true)).map_or_else(
        || err(msg!(ConfigFieldNotPattern, Arg::Text(f.name("hybrid_override_pattern")), Arg::Int(layers))),
        Ok,
    )
}

/// The linear-attention layers' mixer, when the model has any: Mamba-2's (Granite-4.0-H's field
/// names, then Nemotron-H's) or Gated DeltaNet's (Qwen3-Next, Qwen3.5).
fn linear_spec(f: &Fields, a: &Architecture) -> Result<Option<LinearSpec>, ConfigError> {
    if !a.layer_pattern.kinds().contains(&LayerKind::Linear) {
        return Ok(None);
    }
    // LFM2's `Lfm2ShortConv`: in_proj hidden → 3 × hidden (B, C, x), a depthwise convolution of
    // `conv_L_cache` taps, out_proj; no bias (`conv_bias`).
    if let Some(taps) = f.opt_count("conv_L_cache", 1, 64)? {
        return Ok(Some(LinearSpec {
            k_heads: 1,
            v_heads: 1,
            head_dim: a.hidden,
            conv: taps,
            ssm_state: 0,
            short_conv: true,
            side_by_side: false,
        }));
    }
    if let Some(ssm_state) = f.first_uint(&["mamba_d_state", "ssm_state_size"], MAX_DIM)? {
        // transformers' MambaMixer2: heads × head_dim = the inner size (`mamba_expand` × hidden
        // when `mamba_d_head` is "auto").
        let heads = f
            .first_uint(&["mamba_n_heads", "mamba_num_heads"], MAX_DIM)?
            .map_or_else(|| f.uint("mamba_n_heads", MAX_DIM), Ok)?;
        let head_dim = match f.first_uint(&["mamba_d_head", "mamba_head_dim"], MAX_DIM) {
            Ok(Some(d)) => d,
            // Falcon-H1's mixer is `mamba_d_ssm` wide.
            _ if f.raw("mamba_d_ssm").is_some() => f.uint("mamba_d_ssm", MAX_DIM)? / heads.max(1),
            _ => f.first_uint(&["mamba_expand", "expand"], 64)?.unwrap_or(2).saturating_mul(a.hidden) / heads,
        };
        return Ok(Some(LinearSpec {
            k_heads: f.first_uint(&["mamba_n_groups", "n_groups"], MAX_DIM)?.unwrap_or(1),
            v_heads: heads,
            head_dim,
            conv: f.first_uint(&["mamba_d_conv", "conv_kernel"], 64)?.unwrap_or(4),
            ssm_state,
            short_conv: false,
            side_by_side: false,
        }));
    }
    Ok(Some(LinearSpec {
        k_heads: f.uint("linear_num_key_heads", MAX_DIM)?,
        v_heads: f.uint("linear_num_value_heads", MAX_DIM)?,
        head_dim: f.uint("linear_key_head_dim", MAX_DIM)?,
        conv: f.opt_uint("linear_conv_kernel_dim", 64)?.unwrap_or(4),
        ssm_state: 0,
        short_conv: false,
        side_by_side: false,
    }))
}

/// The vision tower of a vision-language config.
fn vision(top: &Fields, family: Family, model_type: &str) -> Result<Option<VisionSpec>, ConfigError> {
    let Some(obj) = top.object("vision_config")? else {
        return match model_type {
            "qwen2_vl" | "qwen2_5_vl" | "qwen3_vl" | "qwen3_vl_moe" | "internvl_chat" | "internvl" => {
                err(msg!(ConfigFieldMissing, Arg::Text("vision_config".into())))
            }
            _ => Ok(None),
        };
    };
    let v = Fields { obj, prefix: "vision_config." };
    let kind = match model_type {
        "qwen2_vl" => VisionKind::Qwen2Vl,
        "qwen2_5_vl" => VisionKind::Qwen25Vl,
        // Qwen3.5's tower is Qwen3-VL's, without deepstack.
        "qwen3_vl" | "qwen3_vl_moe" | "qwen3_5" | "qwen3_5_moe" | "qwen3_omni_moe" => VisionKind::Qwen3Vl,
        "llama4" => VisionKind::Llama4,
        "internvl_chat" | "internvl" => VisionKind::InternVl,
        // A tower read in the shape of one the ledger knows (`ImportVisionShape`): GLM-4V's
        // (RMSNorm, a SwiGLU MLP `out_hidden_size` wide, 2 × 2 merge) as Qwen2.5-VL's.
        "glm4v" | "glm4v_moe" => VisionKind::Qwen25Vl,
        "mistral3" => VisionKind::Pixtral,
        _ if family == Family::Gemma4 => VisionKind::Gemma4,
        _ if family == Family::Gemma3 => VisionKind::Siglip,
        _ => return Ok(None),
    };
    let dim =
        v.first_uint(&["embed_dim", "hidden_size"], MAX_DIM)?.map_or_else(|| v.uint("hidden_size", MAX_DIM), Ok)?;
    let mlp = match kind {
        VisionKind::Qwen2Vl if v.raw("mlp_ratio").is_some() || v.raw("intermediate_size").is_none() => {
            ((dim as f64) * v.opt_float("mlp_ratio")?.unwrap_or(4.0)).round() as u64
        }
        _ if model_type.starts_with("glm4v") => v.uint("out_hidden_size", MAX_DIM)?,
        _ => v.uint("intermediate_size", MAX_DIM)?,
    };
    let qwen = kind.is_qwen_vl();
    Ok(Some(VisionSpec {
        kind,
        blocks: v
            .first_uint(&["depth", "num_hidden_layers"], MAX_LAYERS)?
            .map_or_else(|| v.uint("depth", MAX_LAYERS), Ok)?,
        dim,
        heads: v.first_uint(&["num_heads", "num_attention_heads"], MAX_DIM)?.unwrap_or(16),
        mlp,
        // transformers' InternVL writes `[14, 14]`.
        patch: match v.raw("patch_size") {
            Some(Json::Array(sides)) => sides.first().and_then(Json::as_u64).map_or(14, |s| s.clamp(1, 4096)),
            _ => v.opt_uint("patch_size", 4096)?.unwrap_or(14),
        },
        temporal_patch: if qwen { v.opt_uint("temporal_patch_size", 64)?.unwrap_or(2) } else { 1 },
        merge: tower_merge(kind, top, &v)?,
        min_tokens: 4,
        // Gemma-4's soft-token budget per image (its processor's `max_soft_tokens`); InternVL's
        // tiles of 256 tokens (`max_dynamic_patch`, 12: transformers' `internvl` leaves it to the
        // processor, whose default is 12 too).
        max_tokens: match kind {
            VisionKind::Gemma4 => v.opt_uint("default_output_length", 1 << 20)?.unwrap_or(280),
            VisionKind::InternVl => 256 * top.opt_count("max_dynamic_patch", 1, 64)?.unwrap_or(12),
            _ => 16384,
        },
        out_dim: if kind == VisionKind::Llama4 {
            v.opt_uint("projector_output_dim", MAX_DIM)?.unwrap_or(4096)
        } else {
            0
        },
        // Qwen3-VL's three DeepStack levels (`deepstack_visual_indexes` [8, 16, 24]); Qwen3.5's
        // configs list none.
        deepstack: match v.raw("deepstack_visual_indexes") {
            Some(Json::Array(levels)) => levels.len().min(64) as u64,
            _ => 3,
        },
    }))
}

/// Patches a tower merges into one token along each side: Gemma-4's pooling kernel, InternVL's
/// pixel shuffle (`downsample_ratio` 0.5 merges 2 × 2), the Qwen towers' `spatial_merge_size`.
fn tower_merge(kind: VisionKind, top: &Fields, v: &Fields) -> Result<u64, ConfigError> {
    Ok(match kind {
        VisionKind::Siglip | VisionKind::Llama4 => 1,
        VisionKind::Gemma4 => v.opt_uint("pooling_kernel_size", 64)?.unwrap_or(3),
        VisionKind::InternVl => match top.opt_float("downsample_ratio")? {
            Some(r) if r > 0.0 && r <= 1.0 => (1.0 / r).round().min(64.0) as u64,
            _ => 2,
        },
        _ => top.opt_uint("spatial_merge_size", 64)?.or(v.opt_uint("spatial_merge_size", 64)?).unwrap_or(2),
    })
}

/// The audio encoder's parameters (`audio_config`): Qwen3-Omni's AuT, read from its source
/// (transformers 5.25 `Qwen3OmniMoeAudioEncoder`): three 3 × 3 convolutions of
/// `downsample_hidden_size` channels halving the mel bins three times, a linear into `d_model`,
/// `encoder_layers` pre-norm blocks (q, k, v, o with biases, LayerNorms, a GELU MLP of
/// `encoder_ffn_dim`), a final LayerNorm and a two-layer projector to `output_dim`. Another
/// encoder is left out with a note.
fn audio_encoder(outer: &Fields, lm_hidden: u64, notes: &mut Vec<Msg>) -> Result<u64, ConfigError> {
    let Some(obj) = outer.object("audio_config")? else { return Ok(0) };
    let a = Fields { obj, prefix: "audio_config." };
    if a.opt_str("model_type") == Some("gemma4_audio") {
        return gemma4_audio(&a, lm_hidden);
    }
    if a.opt_str("model_type") != Some("qwen3_omni_moe_audio_encoder") {
        notes.push(msg!(ImportAudioUnread));
        return Ok(0);
    }
    let d = a.uint("d_model", MAX_DIM)? as f64;
    let ffn = a.uint("encoder_ffn_dim", MAX_DIM)? as f64;
    let layers = a.uint("encoder_layers", MAX_LAYERS)? as f64;
    let c = a.opt_uint("downsample_hidden_size", MAX_DIM)?.unwrap_or(480) as f64;
    let mels = a.opt_uint("num_mel_bins", MAX_DIM)?.unwrap_or(128);
    let out = a.opt_uint("output_dim", MAX_DIM)?.unwrap_or(2048) as f64;
    let freq = mels.div_ceil(2).div_ceil(2).div_ceil(2) as f64;
    let block = 4.0 * (d * d + d) + 2.0 * d * ffn + ffn + d + 4.0 * d;
    let convs = (9.0 * c + c) + 2.0 * (9.0 * c * c + c) + c * freq * d;
    let head = 2.0 * d + (d * d + d) + (d * out + out);
    // In f64 so that absurd sizes saturate in the conversion.
    Ok((layers * block + convs + head) as u64)
}

/// Gemma-4 E2B's and E4B's Conformer audio encoder with its projector into the language model, from
/// the shapes of transformers 5.25's `modeling_gemma4.py` (a helper's reading: with the text model and
/// the vision tower, E2B's bf16 bytes come to within 0.003 % of its published `model.safetensors`):
/// two subsampling convolutions (3 × 3) and their input projection; per block two macaron
/// feed-forwards (H → 4H → H and their norms), attention (q, k, v, o, a relative position
/// projection and a per-head scale), a light convolution (a gated 2H projection, a depthwise
/// kernel, the output and two norms) and three norms; the output projection, and the embedder's
/// projection to the language model's width.
fn gemma4_audio(a: &Fields, lm_hidden: u64) -> Result<u64, ConfigError> {
    let h = a.uint("hidden_size", MAX_DIM)? as f64;
    let layers = a.uint("num_hidden_layers", MAX_LAYERS)? as f64;
    let heads = a.opt_uint("num_attention_heads", MAX_DIM)?.unwrap_or(8) as f64;
    let kernel = a.opt_uint("conv_kernel_size", MAX_DIM)?.unwrap_or(5) as f64;
    let out = a.opt_uint("output_proj_dims", MAX_DIM)?.unwrap_or(1536) as f64;
    let channels: Vec<f64> = match a.get("subsampling_conv_channels") {
        Some(Json::Array(c)) => c.iter().filter_map(Json::as_u64).map(|x| x as f64).collect(),
        _ => Vec::new(),
    };
    let (c0, c1) = match channels[..] {
        [c0, c1] => (c0, c1),
        _ => (128.0, 32.0),
    };
    let subsampling = 9.0 * c0 + c0 + 9.0 * c0 * c1 + c1 + (c0 / 4.0).floor() * c1 * h;
    let feed_forward = 8.0 * h * h + 2.0 * h;
    let attention = 5.0 * h * h + (h / heads).floor();
    let light_conv = 3.0 * h * h + h * kernel + 2.0 * h;
    let block = 2.0 * feed_forward + attention + light_conv + 3.0 * h;
    // In f64 so that absurd sizes saturate in the conversion.
    Ok((subsampling + layers * block + h * out + out + out * lm_hidden as f64) as u64)
}

/// The checkpoint's weight format from `quantization_config`.
fn checkpoint(top: &Fields, notes: &mut Vec<Msg>) -> Result<(StorageFormat, QuantLayers), ConfigError> {
    let Some(q) = top.object("quantization_config")? else { return Ok((StorageFormat::Bf16, QuantLayers::All)) };
    let q = Fields { obj: q, prefix: "quantization_config." };
    let method = q.opt_str("quant_method").unwrap_or("").to_ascii_lowercase();
    let bits = q.opt_uint("bits", 64)?;
    // An entry with an index names one layer or block (`kept_linears`), not a kind.
    let skipped = |needle: &str| {
        listed(&q, &["modules_to_not_convert", "ignore"])
            .iter()
            .filter_map(Json::as_str)
            .any(|m| has(m, needle) && !m.split('.').any(|p| p.parse::<u64>().is_ok()))
    };
    let layers = if skipped("self_attn") {
        if skipped("router") || skipped("shared") {
            QuantLayers::Experts
        } else {
            QuantLayers::Mlp
        }
    } else {
        QuantLayers::All
    };
    let format = match method.as_str() {
        "fp8" if q.raw("weight_block_size").is_some() => StorageFormat::Fp8Block,
        "fp8" => StorageFormat::Fp8,
        "fbgemm_fp8" => StorageFormat::Fp8Channel,
        "mxfp4" => StorageFormat::Mxfp4,
        "gptq" if bits == Some(8) => StorageFormat::Int8,
        "gptq" => StorageFormat::Gptq4,
        "awq" => StorageFormat::Awq4,
        "bitsandbytes" if q.opt_bool("load_in_8bit")? == Some(true) => StorageFormat::Int8,
        "bitsandbytes" => StorageFormat::Nf4,
        "modelopt" | "nvfp4" => StorageFormat::Nvfp4,
        "compressed-tensors" | "compressed_tensors" => compressed_tensors(&q)?,
        other => {
            notes.push(msg!(ImportUnknownQuant, Arg::Text(other.chars().take(40).collect())));
            StorageFormat::Bf16
        }
    };
    Ok((format, layers))
}

/// The modules `quantization_config` leaves unquantized: bitsandbytes' `llm_int8_skip_modules`,
/// or `modules_to_not_convert` / `ignore` (other methods).
fn skip_list<'a>(top: &Fields<'a>) -> Result<&'a [Json], ConfigError> {
    let Some(q) = top.object("quantization_config")? else { return Ok(&[]) };
    let q = Fields { obj: q, prefix: "quantization_config." };
    Ok(listed(&q, &["llm_int8_skip_modules", "modules_to_not_convert", "ignore"]))
}

/// The list under the first of `keys` a `quantization_config` has (empty when it is not a list).
fn listed<'a>(q: &Fields<'a>, keys: &[&str]) -> &'a [Json] {
    match keys.iter().find_map(|k| q.raw(k)) {
        Some(Json::Array(list)) => list,
        _ => &[],
    }
}

/// A skip-list entry that names one decoder layer: its index and the module path after it
/// (`model.layers.37.self_attn.o_proj` → 37, `self_attn.o_proj`; a language model nested in a VLM
/// as `language_model.model.layers.…`). Vision and audio towers' layers are 16-bit already.
fn layer_entry(entry: &str) -> Option<(u64, &str)> {
    if ["vision", "visual", "audio"].iter().any(|t| entry.contains(t)) {
        return None;
    }
    let at = entry.find("layers.")?;
    let rest = &entry[at + "layers.".len()..];
    let (index, module) = rest.split_once('.').unwrap_or((rest, ""));
    Some((index.parse().ok()?, module))
}

/// Parameters of the linears a skip list keeps 16-bit layer by layer (Unsloth's dynamic 4-bit:
/// `model.layers.1.mlp`, `model.layers.37.self_attn.o_proj`), each layer's module counted once.
/// Entries that name a kind in every layer (`self_attn`, `router`) set `quant_layers` instead; a
/// module the ledger does not itemise (Llama-3.2-Vision's `cross_attn`) is named in a note.
fn kept_linears(arch: &Architecture, list: &[Json], notes: &mut Vec<Msg>) -> u64 {
    let linears = arch.linears();
    let mut kept = std::collections::BTreeSet::new();
    let mut unknown = Vec::new();
    let mut total = 0u64;
    for (layer, module) in list.iter().filter_map(Json::as_str).filter_map(layer_entry) {
        let (block, leaf) = module.split_once('.').unwrap_or((module, ""));
        let moe = arch.is_moe_layer(layer);
        let mut matched = false;
        for (i, l) in linears.iter().enumerate() {
            let in_block = match block {
                "" => true,
                "self_attn" | "attention" | "attn" => l.group.is_attention(),
                "mlp" | "feed_forward" | "block_sparse_moe" => match l.group {
                    LinearGroup::Mlp => !moe,
                    LinearGroup::Expert | LinearGroup::SharedExpert => moe,
                    _ => false,
                },
                "linear_attn" => l.group == LinearGroup::LinearAttention,
                _ => false,
            };
            let leaf_matches = leaf.is_empty()
                || l.name == leaf
                || l.name.strip_prefix(leaf).is_some_and(|r| r.starts_with('.'))
                || (leaf == "experts" && l.group == LinearGroup::Expert);
            if layer < arch.layers && in_block && leaf_matches {
                matched = true;
                if kept.insert((layer, i)) {
                    total = total.saturating_add(l.parameters());
                }
            }
        }
        if !matched && unknown.len() < 4 {
            unknown.push(format!("layers.{layer}.{module}").chars().take(60).collect::<String>());
        }
    }
    if total > 0 {
        notes.push(msg!(ImportKeep16, Arg::Count(total), Arg::Int(kept.len() as u64)));
    }
    if !unknown.is_empty() {
        notes.push(msg!(ImportKeep16Unknown, Arg::Text(unknown.join(", "))));
    }
    total
}

/// compressed-tensors: the first config group's weight bits and whether activations are quantized.
fn compressed_tensors(q: &Fields) -> Result<StorageFormat, ConfigError> {
    let group = q
        .object("config_groups")?
        .and_then(|g| g.iter().find_map(|(_, v)| v.as_object()))
        .map(|g| Fields { obj: g, prefix: "" });
    let weights =
        group.as_ref().and_then(|g| g.object("weights").ok().flatten()).map(|w| Fields { obj: w, prefix: "" });
    let bits = weights.as_ref().and_then(|w| w.raw("num_bits")).and_then(Json::as_u64).unwrap_or(4);
    let float = weights.as_ref().and_then(|w| w.opt_str("type")) == Some("float");
    let activations = group.as_ref().and_then(|g| g.raw("input_activations")).is_some();
    Ok(match (bits, float, activations) {
        (8, true, _) => StorageFormat::Fp8Channel,
        (8, false, true) => StorageFormat::W8a8,
        (8, false, false) => StorageFormat::Int8,
        (4, true, _) => StorageFormat::Nvfp4,
        _ => StorageFormat::W4a16,
    })
}

fn gpt2(f: &Fields, name: String) -> Result<Architecture, ConfigError> {
    let hidden = f.uint("n_embd", MAX_DIM)?;
    let heads = f.uint("n_head", MAX_DIM)?;
    if hidden % heads != 0 {
        return err(msg!(
            ConfigNotDivisible,
            Arg::Code("n_embd"),
            Arg::Int(hidden),
            Arg::Code("n_head"),
            Arg::Int(heads)
        ));
    }
    let base = Architecture::decoder(
        "",
        f.uint("n_layer", MAX_LAYERS)?,
        hidden,
        heads,
        heads,
        hidden / heads,
        f.opt_uint("n_inner", MAX_DIM)?.unwrap_or(4 * hidden),
        f.uint("vocab_size", MAX_VOCAB)?,
        f.opt_bool("tie_word_embeddings")?.unwrap_or(true),
    );
    Ok(Architecture {
        name: Cow::Owned(name),
        mlp: MlpKind::Gelu,
        norm: NormKind::LayerNorm,
        qkv_bias: true,
        out_and_mlp_bias: true,
        learned_positions: f.opt_uint("n_positions", MAX_DIM)?.unwrap_or(1024),
        // GPT2Config's default `resid_pdrop` is 0.1.
        hidden_dropout: f.opt_probability("resid_pdrop").unwrap_or(0.1),
        ..base
    })
}

/// A Hub model id: `owner/name` of letters, digits, `.`, `_` and `-` (nothing that could change
/// the URL's path or host).
pub fn valid_model_id(id: &str) -> bool {
    let mut parts = id.split('/');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| {
            !p.is_empty()
                && p.len() <= 96
                && p != "."
                && p != ".."
                && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// Where a config.json is fetched from. The Hugging Face Hub is unreachable from many networks in
/// mainland China, where ModelScope and Hub mirrors (hf-mirror.com) serve the same files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hub {
    HuggingFace,
    ModelScope,
    /// A Hub mirror with the Hub's URL layout, at the given endpoint.
    Mirror,
}

impl Hub {
    pub const ALL: [Hub; 3] = [Hub::HuggingFace, Hub::ModelScope, Hub::Mirror];

    pub fn id(self) -> &'static str {
        match self {
            Hub::HuggingFace => "hf",
            Hub::ModelScope => "modelscope",
            Hub::Mirror => "mirror",
        }
    }

    pub fn from_id(id: &str) -> Option<Hub> {
        Hub::ALL.into_iter().find(|h| h.id() == id)
    }
}

/// The mirror endpoint offered when none is set.
pub const DEFAULT_MIRROR: &str = "https://hf-mirror.com";

/// A mirror endpoint: `https://host[:port][/path]` (or `http://` on localhost), without a query,
/// a fragment, credentials or spaces; the trailing slash is dropped.
pub fn valid_endpoint(endpoint: &str) -> Option<String> {
    let e = endpoint.trim().trim_end_matches('/');
    let rest = e
        .strip_prefix("https://")
        .or_else(|| e.strip_prefix("http://").filter(|r| r.starts_with("localhost") || r.starts_with("127.0.0.1")))?;
    let host = rest.split('/').next().unwrap_or("");
    let ok_host = !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
    let ok_path = rest.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-' | '_' | ':' | '~'));
    (ok_host && ok_path && e.len() <= 200).then(|| e.to_string())
}

/// The URL of a model's config.json on `hub`; `None` when the id or the endpoint is not valid.
pub fn config_url(hub: Hub, endpoint: &str, id: &str) -> Option<String> {
    if !valid_model_id(id) {
        return None;
    }
    Some(match hub {
        Hub::HuggingFace => format!("https://huggingface.co/{id}/resolve/main/config.json"),
        Hub::ModelScope => format!("https://modelscope.cn/models/{id}/resolve/master/config.json"),
        Hub::Mirror => format!("{}/{id}/resolve/main/config.json", valid_endpoint(endpoint)?),
    })
}

/// The host a URL names (for messages).
pub fn host_of(url: &str) -> &str {
    let rest = find(url, "://").map_or(url, |i| &url[i + 3..]);
    rest.split('/').next().unwrap_or(url)
}

#[cfg(test)]
mod fetch_tests {
    use super::{config_url, valid_endpoint, Hub};

    #[test]
    fn urls_for_each_hub() {
        assert_eq!(
            config_url(Hub::HuggingFace, "", "Qwen/Qwen3-8B").as_deref(),
            Some("https://huggingface.co/Qwen/Qwen3-8B/resolve/main/config.json")
        );
        assert_eq!(
            config_url(Hub::ModelScope, "", "Qwen/Qwen3-8B").as_deref(),
            Some("https://modelscope.cn/models/Qwen/Qwen3-8B/resolve/master/config.json")
        );
        assert_eq!(
            config_url(Hub::Mirror, "https://hf-mirror.com/", "Qwen/Qwen3-8B").as_deref(),
            Some("https://hf-mirror.com/Qwen/Qwen3-8B/resolve/main/config.json")
        );
        assert_eq!(config_url(Hub::HuggingFace, "", "../etc/passwd"), None);
    }

    /// An endpoint cannot smuggle a query, credentials or another scheme into the request.
    #[test]
    fn endpoints_are_checked() {
        assert_eq!(valid_endpoint(" https://mirror.example.cn/hf/ ").as_deref(), Some("https://mirror.example.cn/hf"));
        assert_eq!(valid_endpoint("http://localhost:8000").as_deref(), Some("http://localhost:8000"));
        for bad in [
            "http://evil.example",
            "javascript:alert(1)",
            "https://a@b.com",
            "https://x.com/?q=1",
            "https://x.com/#f",
            "https:// x",
            "ftp://x.com",
            "",
        ] {
            assert_eq!(valid_endpoint(bad), None, "{bad}");
        }
    }
}
