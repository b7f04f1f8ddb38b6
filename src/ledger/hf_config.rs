//! Import of a Hugging Face `config.json`.
//!
//! Supported `model_type`s: llama, mistral, mixtral, qwen2, qwen2_vl, gemma2, phi3, gpt2. The input
//! is untrusted (pasted by a user or fetched from the Hub): every problem becomes an error that names
//! the field, never a panic.

use serde_json::{Map, Value};

use super::msg::{Arg, Msg};
use crate::msg;

use super::architecture::{Architecture, MlpKind, MoeSpec, NormKind, VisionSpec};

pub const SUPPORTED: [&str; 8] = ["llama", "mistral", "mixtral", "qwen2", "qwen2_vl", "gemma2", "phi3", "gpt2"];

/// Upper bounds that keep every later product finite and meaningful.
const MAX_DIM: u64 = 1 << 24;
const MAX_LAYERS: u64 = 10_000;
const MAX_VOCAB: u64 = 1 << 27;

/// Why a config could not be imported (rendered by `crate::i18n::render`).
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError(pub Msg);

fn err<T>(m: Msg) -> Result<T, ConfigError> {
    Err(ConfigError(m))
}

struct Fields<'a> {
    obj: &'a Map<String, Value>,
    prefix: &'a str,
}

impl<'a> Fields<'a> {
    fn raw(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    fn name(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    fn opt_uint(&self, key: &str, max: u64) -> Result<Option<u64>, ConfigError> {
        let Some(v) = self.raw(key) else { return Ok(None) };
        let n = match v {
            Value::Number(n) => n
                .as_u64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1e18).map(|f| f as u64)),
            _ => None,
        };
        match n {
            Some(0) => err(msg!(ConfigFieldZero, Arg::Text(self.name(key)))),
            Some(n) if n > max => err(msg!(ConfigFieldTooLarge, Arg::Text(self.name(key)), Arg::Int(n), Arg::Int(max))),
            Some(n) => Ok(Some(n)),
            None => err(msg!(ConfigFieldNotUint, Arg::Text(self.name(key)), Arg::Text(short(v)))),
        }
    }

    fn uint(&self, key: &str, max: u64) -> Result<u64, ConfigError> {
        self.opt_uint(key, max)?.map_or_else(|| err(msg!(ConfigFieldMissing, Arg::Text(self.name(key)))), Ok)
    }

    fn opt_bool(&self, key: &str) -> Result<Option<bool>, ConfigError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => err(msg!(ConfigFieldNotBool, Arg::Text(self.name(key)), Arg::Text(short(v)))),
        }
    }

    fn opt_float(&self, key: &str) -> Result<Option<f64>, ConfigError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(f) if f.is_finite() && f > 0.0 && f < 1e6 => Ok(Some(f)),
                _ => err(msg!(ConfigFieldNotPositive, Arg::Text(self.name(key)))),
            },
            Some(v) => err(msg!(ConfigFieldNotNumber, Arg::Text(self.name(key)), Arg::Text(short(v)))),
        }
    }
}

/// A short, safe rendering of an offending value for an error message.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// Parses `config.json` text into an architecture.
pub fn parse_config(text: &str) -> Result<Architecture, ConfigError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| ConfigError(msg!(ConfigNotJson, Arg::Text(e.to_string()))))?;
    from_value(&value)
}

pub fn from_value(value: &Value) -> Result<Architecture, ConfigError> {
    let Some(obj) = value.as_object() else {
        return err(msg!(ConfigNotObject));
    };
    let top = Fields { obj, prefix: "" };
    let model_type = match top.raw("model_type") {
        Some(Value::String(s)) => s.as_str(),
        Some(v) => return err(msg!(ConfigFieldNotString, Arg::Code("model_type"), Arg::Text(short(v)))),
        None => return err(msg!(ConfigModelTypeMissing, Arg::Text(SUPPORTED.join(", ")))),
    };
    let name = match top.raw("_name_or_path") {
        Some(Value::String(s)) if !s.is_empty() => s.chars().take(120).collect(),
        _ => model_type.chars().take(40).collect::<String>(),
    };
    match model_type {
        "gpt2" => gpt2(&top, name),
        "llama" | "mistral" | "mixtral" | "qwen2" | "gemma2" | "phi3" => decoder(&top, model_type, name),
        "qwen2_vl" => qwen2_vl(obj, name),
        other => {
            err(msg!(ConfigUnsupported, Arg::Text(other.chars().take(40).collect()), Arg::Text(SUPPORTED.join(", "))))
        }
    }
}

fn decoder(f: &Fields, model_type: &str, name: String) -> Result<Architecture, ConfigError> {
    let layers = f.uint("num_hidden_layers", MAX_LAYERS)?;
    let hidden = f.uint("hidden_size", MAX_DIM)?;
    let heads = f.uint("num_attention_heads", MAX_DIM)?;
    let kv_heads = f.opt_uint("num_key_value_heads", MAX_DIM)?.unwrap_or(heads);
    let head_dim = match f.opt_uint("head_dim", MAX_DIM)? {
        Some(d) => d,
        None if hidden % heads == 0 => hidden / heads,
        None => return err(msg!(ConfigHeadDim, Arg::Int(hidden), Arg::Int(heads))),
    };
    let ffn = f.uint("intermediate_size", MAX_DIM)?;
    let vocab = f.uint("vocab_size", MAX_VOCAB)?;
    // transformers' own defaults per family when the field is absent.
    let tied_default = model_type == "gemma2";
    let tied = f.opt_bool("tie_word_embeddings")?.unwrap_or(tied_default);
    let attention_bias = f.opt_bool("attention_bias")?.unwrap_or(false);
    let mlp_bias = f.opt_bool("mlp_bias")?.unwrap_or(false);
    let moe = if model_type == "mixtral" {
        let experts = f.uint("num_local_experts", 1 << 16)?;
        let active = f.uint("num_experts_per_tok", 1 << 16)?;
        if active > experts {
            return err(msg!(ConfigExpertsPerToken, Arg::Int(active), Arg::Int(experts)));
        }
        Some(MoeSpec { experts, active, expert_ffn: ffn, shared: 0, shared_ffn: 0 })
    } else {
        None
    };
    // Gemma-2 soft-caps attention scores and final logits (transformers' defaults 50.0 and 30.0);
    // an explicit null turns a cap off.
    let softcapping = model_type == "gemma2" && {
        let on = |key: &str| -> Result<bool, ConfigError> {
            Ok(!matches!(f.obj.get(key), Some(Value::Null)) && f.opt_float(key)?.is_none_or(|c| c > 0.0))
        };
        on("final_logit_softcapping")? || on("attn_logit_softcapping")?
    };
    let arch = Architecture {
        name,
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim,
        ffn,
        vocab,
        tied_embeddings: tied,
        mlp: MlpKind::Glu,
        norm: NormKind::RmsNorm,
        norms_per_layer: if model_type == "gemma2" { 4 } else { 2 },
        qkv_bias: model_type == "qwen2" || attention_bias,
        out_and_mlp_bias: mlp_bias,
        learned_positions: 0,
        softcapping,
        moe,
        vision: None,
    };
    arch.validate().map_err(ConfigError)?;
    Ok(arch)
}

fn qwen2_vl(obj: &Map<String, Value>, name: String) -> Result<Architecture, ConfigError> {
    // Newer transformers nest the language model's fields under `text_config`.
    let text_obj = match obj.get("text_config") {
        Some(Value::Object(t)) if t.contains_key("hidden_size") => t,
        _ => obj,
    };
    let prefix = if std::ptr::eq(text_obj, obj) { "" } else { "text_config." };
    let mut arch = decoder(&Fields { obj: text_obj, prefix }, "qwen2", name)?;
    // The top level decides tying when the nested config does not say.
    if let Some(Value::Bool(t)) = obj.get("tie_word_embeddings") {
        arch.tied_embeddings = *t;
    }
    let vision = match obj.get("vision_config") {
        Some(Value::Object(v)) => v,
        Some(_) => return err(msg!(ConfigFieldNotObject, Arg::Code("vision_config"))),
        None => return err(msg!(ConfigFieldMissing, Arg::Text("vision_config".into()))),
    };
    let v = Fields { obj: vision, prefix: "vision_config." };
    let dim = v.uint("embed_dim", MAX_DIM)?;
    let ratio = v.opt_float("mlp_ratio")?.unwrap_or(4.0);
    arch.vision = Some(VisionSpec {
        blocks: v.uint("depth", MAX_LAYERS)?,
        dim,
        heads: v.uint("num_heads", MAX_DIM)?,
        mlp: ((dim as f64) * ratio).round() as u64,
        patch: v.opt_uint("patch_size", 4096)?.unwrap_or(14),
        temporal_patch: v.opt_uint("temporal_patch_size", 64)?.unwrap_or(2),
        merge: v.opt_uint("spatial_merge_size", 64)?.unwrap_or(2),
        min_tokens: 4,
        max_tokens: 16384,
    });
    Ok(arch)
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
    let arch = Architecture {
        name,
        layers: f.uint("n_layer", MAX_LAYERS)?,
        hidden,
        heads,
        kv_heads: heads,
        head_dim: hidden / heads,
        ffn: f.opt_uint("n_inner", MAX_DIM)?.unwrap_or(4 * hidden),
        vocab: f.uint("vocab_size", MAX_VOCAB)?,
        tied_embeddings: f.opt_bool("tie_word_embeddings")?.unwrap_or(true),
        mlp: MlpKind::Gelu,
        norm: NormKind::LayerNorm,
        norms_per_layer: 2,
        qkv_bias: true,
        out_and_mlp_bias: true,
        learned_positions: f.opt_uint("n_positions", MAX_DIM)?.unwrap_or(1024),
        softcapping: false,
        moe: None,
        vision: None,
    };
    arch.validate().map_err(ConfigError)?;
    Ok(arch)
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
                && p.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}
