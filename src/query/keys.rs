//! Every key of the scenario vocabulary, each defined once: its name, how its text is read, what it
//! sets in the scenario, how it is written back, and its documentation. `docs/query-keys.md` is
//! generated from this table (`vram-ledger --keys`) and a test keeps the two identical. The UI
//! names keys through [`Key`], so a misspelt key does not compile.
//!
//! The table's order is the order keys are read and written: the model before its shape fields,
//! `mode` and `method` before `quant` (choosing a method picks its default weight format, and an
//! explicit `quant` wins), `gpu` before `vram` (a custom size wins over a preset).

use crate::ledger::architecture::{Architecture, MlpKind, MoeSpec};
use crate::ledger::presets;
use crate::ledger::scenario::{
    trim_float, AttentionKernel, Bitsandbytes, Drill, Gpu, LoraTargets, LossKernel, Method, Mode, Optimizer, Precision,
    Scenario, GIB,
};
use crate::ledger::storage::{KvDtype, StorageFormat};

/// Limits of numeric values: wide enough for any real model, small enough that no product overflows.
pub const MAX_SEQ: u64 = 100_000_000;
pub const MAX_BATCH: u64 = 65_536;
const MAX_DIM: u64 = 1 << 24;

macro_rules! key_enum {
    ($($variant:ident),+ $(,)?) => {
        /// A key of the scenario vocabulary.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Key { $($variant),+ }

        impl Key {
            pub const ALL: &'static [Key] = &[$(Key::$variant),+];
        }
    };
}

key_enum!(
    Model,
    Layers,
    Hidden,
    Heads,
    KvHeads,
    HeadDim,
    Ffn,
    Vocab,
    Tied,
    Mlp,
    Experts,
    ActiveExperts,
    Mode,
    Method,
    Precision,
    Quant,
    Dq,
    Optim,
    Seq,
    Batch,
    Accum,
    Rank,
    Targets,
    Gc,
    Attn,
    Bnb,
    Loss,
    Gpus,
    Zero,
    Kv,
    Gen,
    Images,
    ImagePx,
    Gpu,
    Vram,
    OverheadMib,
    Drill,
);

impl Key {
    /// The key's definition.
    pub fn def(self) -> &'static KeyDef {
        // The table holds one entry per key, in `Key::ALL`'s order (a test checks it).
        &KEYS[self as usize]
    }

    /// The name in links and on the command line.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    pub fn from_name(name: &str) -> Option<Key> {
        KEYS.iter().find(|d| d.name == name).map(|d| d.key)
    }
}

/// How a key's text is read.
#[derive(Clone, Copy, Debug)]
pub enum Read {
    /// A whole number in `min..=max`.
    Uint { min: u64, max: u64 },
    /// A finite number in `min..=max`.
    Float { min: f64, max: f64 },
    /// `0` or `1`.
    Flag,
    /// One word of a list (given by a function: some lists come from the preset tables).
    Word(fn() -> Vec<&'static str>),
    /// A comma-separated list of words.
    List(&'static [&'static str]),
}

/// A key's value, as read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    Uint(u64),
    Float(f64),
    Flag(bool),
    Word(&'a str),
}

impl<'a> Value<'a> {
    fn uint(self) -> u64 {
        if let Value::Uint(v) = self {
            v
        } else {
            0
        }
    }

    fn float(self) -> f64 {
        if let Value::Float(v) = self {
            v
        } else {
            0.0
        }
    }

    fn flag(self) -> bool {
        self == Value::Flag(true)
    }

    fn word(self) -> &'a str {
        if let Value::Word(v) = self {
            v
        } else {
            ""
        }
    }
}

/// What writing a key compares against: the default scenario and the model's own shape.
pub struct Context<'a> {
    pub default: &'a Scenario,
    /// The preset's architecture, or the template a custom model starts from.
    pub template: &'a Architecture,
    /// `model=custom`: every shape key is written.
    pub custom: bool,
}

/// A key's documentation (native builds only: the web bundle does not carry it).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy, Debug)]
pub struct Doc {
    /// Accepted values, when the read rule does not say it well (`None`: derived from it).
    pub values: Option<&'static str>,
    pub default: &'static str,
    pub meaning: &'static str,
}

/// One key of the vocabulary.
pub struct KeyDef {
    pub key: Key,
    pub name: &'static str,
    pub read: Read,
    /// Sets the scenario from a read value; `Err(())` when a word is not one the key accepts.
    pub set: fn(&mut Scenario, Value) -> Result<(), ()>,
    /// The value's text, when it differs from what the key's absence means.
    pub write: fn(&Scenario, &Context) -> Option<String>,
    /// A shape field of the model (overrides a preset; reset when the model changes).
    pub architecture: bool,
    #[cfg(not(target_arch = "wasm32"))]
    pub doc: Doc,
}

/// The documentation of a key (native builds).
#[cfg(not(target_arch = "wasm32"))]
macro_rules! doc {
    ($default:expr, $meaning:expr) => {
        Doc { values: None, default: $default, meaning: $meaning }
    };
    ($values:expr, $default:expr, $meaning:expr) => {
        Doc { values: Some($values), default: $default, meaning: $meaning }
    };
}

fn differs<T: PartialEq + ToString>(v: T, d: T) -> Option<String> {
    (v != d).then(|| v.to_string())
}

fn flag_text(b: bool) -> String {
    u8::from(b).to_string()
}

/// A shape field: written for a custom model, or when it differs from the preset's.
fn shape(v: u64, t: u64, c: &Context) -> Option<String> {
    (c.custom || v != t).then(|| v.to_string())
}

fn set_mode(s: &mut Scenario, m: Mode) {
    s.mode = m;
    s.quant = Scenario::default_quant(s.mode, s.method);
}

fn set_method(s: &mut Scenario, m: Method) {
    s.method = m;
    s.quant = Scenario::default_quant(s.mode, s.method);
}

fn set_model(s: &mut Scenario, id: &str) -> Result<(), ()> {
    if id == "custom" {
        s.model_id = None;
        s.architecture.name = "custom".into();
        return Ok(());
    }
    let p = presets::model(id).ok_or(())?;
    s.model_id = Some(p.id.to_string());
    s.architecture = p.architecture;
    Ok(())
}

fn write_model(s: &Scenario, c: &Context) -> Option<String> {
    match &s.model_id {
        _ if c.custom => Some("custom".into()),
        Some(id) if Some(id.as_str()) != c.default.model_id.as_deref() => Some(id.clone()),
        _ => None,
    }
}

fn model_ids() -> Vec<&'static str> {
    let mut ids = vec!["custom"];
    ids.extend(presets::models().iter().map(|m| m.id));
    ids
}

/// Mixture of experts from `experts` (1 = dense) and `active_experts`, the MLP size per expert.
fn set_experts(a: &mut Architecture, experts: Option<u64>, active: Option<u64>) {
    let e = experts.or(a.moe.map(|m| m.experts)).unwrap_or(1);
    let k = active.or(a.moe.map(|m| m.active)).unwrap_or(1).min(e);
    a.moe = (e > 1).then_some(MoeSpec { experts: e, active: k, expert_ffn: a.ffn, shared: 0, shared_ffn: 0 });
}

fn moe_counts(a: &Architecture) -> (u64, u64) {
    a.moe.map_or((1, 1), |m| (m.experts, m.active))
}

fn mlp_id(m: MlpKind) -> &'static str {
    match m {
        MlpKind::Glu => "glu",
        MlpKind::Gelu => "gelu",
    }
}

fn mlp_from_id(id: &str) -> Option<MlpKind> {
    match id {
        "glu" => Some(MlpKind::Glu),
        "gelu" => Some(MlpKind::Gelu),
        _ => None,
    }
}

fn ids<T: Copy>(all: &[T], id: fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|&v| id(v)).collect()
}

/// Sets a keyword value through its `from_id`.
fn keyword<T>(word: &str, from_id: fn(&str) -> Option<T>, set: impl FnOnce(T)) -> Result<(), ()> {
    from_id(word).map(set).ok_or(())
}

/// The table. One entry per key, in `Key`'s order.
pub static KEYS: [KeyDef; 37] = [
    KeyDef {
        key: Key::Model,
        name: "model",
        read: Read::Word(model_ids),
        set: |s, v| set_model(s, v.word().trim()),
        write: write_model,
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("a preset id (see `vram-ledger --presets`) or `custom`", "llama-3.1-8b", "the model; `custom` starts from a Llama-style template that the fields below describe"),
    },
    KeyDef {
        key: Key::Layers,
        name: "layers",
        read: Read::Uint { min: 1, max: 10_000 },
        set: |s, v| {
            s.architecture.layers = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.layers, c.template.layers, c),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's", "decoder layers"),
    },
    KeyDef {
        key: Key::Hidden,
        name: "hidden",
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.hidden = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.hidden, c.template.hidden, c),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's", "hidden size"),
    },
    KeyDef {
        key: Key::Heads,
        name: "heads",
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.heads = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.heads, c.template.heads, c),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's", "attention (query) heads"),
    },
    KeyDef {
        key: Key::KvHeads,
        name: "kv_heads",
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.kv_heads = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.kv_heads, c.template.kv_heads, c),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("1–heads", "the preset's", "key/value heads (GQA/MQA when fewer than heads)"),
    },
    KeyDef {
        key: Key::HeadDim,
        name: "head_dim",
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.head_dim = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.head_dim, c.template.head_dim, c),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's", "dimension of one head"),
    },
    KeyDef {
        key: Key::Ffn,
        name: "ffn",
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.ffn = v.uint();
            if let Some(m) = s.architecture.moe.as_mut() {
                m.expert_ffn = v.uint();
            }
            Ok(())
        },
        write: |s, c| shape(s.architecture.ffn, c.template.ffn, c),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's", "MLP intermediate size (per expert for MoE)"),
    },
    KeyDef {
        key: Key::Vocab,
        name: "vocab",
        read: Read::Uint { min: 1, max: 1 << 27 },
        set: |s, v| {
            s.architecture.vocab = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.vocab, c.template.vocab, c),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's", "vocabulary size"),
    },
    KeyDef {
        key: Key::Tied,
        name: "tied",
        read: Read::Flag,
        set: |s, v| {
            s.architecture.tied_embeddings = v.flag();
            Ok(())
        },
        write: |s, c| {
            let (v, t) = (s.architecture.tied_embeddings, c.template.tied_embeddings);
            (c.custom || v != t).then(|| flag_text(v))
        },
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's", "input embeddings shared with the LM head"),
    },
    KeyDef {
        key: Key::Mlp,
        name: "mlp",
        read: Read::Word(|| vec!["glu", "gelu"]),
        set: |s, v| keyword(v.word(), mlp_from_id, |m| s.architecture.mlp = m),
        write: |s, c| (c.custom || s.architecture.mlp != c.template.mlp).then(|| mlp_id(s.architecture.mlp).into()),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's", "gated (SwiGLU: gate, up, down) or plain (GELU: fc1, fc2) MLP"),
    },
    KeyDef {
        key: Key::Experts,
        name: "experts",
        read: Read::Uint { min: 1, max: 1 << 16 },
        set: |s, v| {
            set_experts(&mut s.architecture, Some(v.uint()), None);
            Ok(())
        },
        write: |s, c| differs(moe_counts(&s.architecture).0, moe_counts(c.template).0),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("the preset's (1 = dense)", "mixture-of-experts: experts per layer"),
    },
    KeyDef {
        key: Key::ActiveExperts,
        name: "active_experts",
        read: Read::Uint { min: 1, max: 1 << 16 },
        set: |s, v| {
            set_experts(&mut s.architecture, None, Some(v.uint()));
            Ok(())
        },
        write: |s, c| differs(moe_counts(&s.architecture).1, moe_counts(c.template).1),
        architecture: true,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("1–experts", "the preset's", "experts each token runs through"),
    },
    KeyDef {
        key: Key::Mode,
        name: "mode",
        read: Read::Word(|| ids(Mode::ALL, Mode::id)),
        set: |s, v| keyword(v.word(), Mode::from_id, |m| set_mode(s, m)),
        write: |s, c| differs(s.mode.id(), c.default.mode.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("train", "a training step or inference"),
    },
    KeyDef {
        key: Key::Method,
        name: "method",
        read: Read::Word(|| ids(Method::ALL, Method::id)),
        set: |s, v| keyword(v.word(), Method::from_id, |m| set_method(s, m)),
        write: |s, c| differs(s.method.id(), c.default.method.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("lora", "what trains: every weight, LoRA adapters on a 16-bit/8-bit base, or adapters on a 4-bit base"),
    },
    KeyDef {
        key: Key::Precision,
        name: "precision",
        read: Read::Word(|| ids(Precision::ALL, Precision::id)),
        set: |s, v| keyword(v.word(), Precision::from_id, |p| s.precision = p),
        write: |s, c| differs(s.precision.id(), c.default.precision.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("mixed", "mixed = bf16 weights + fp32 master weights and optimizer states (2+2+8+4 B/param with AdamW); bf16 = all bf16; fp32 = all fp32"),
    },
    KeyDef {
        key: Key::Quant,
        name: "quant",
        read: Read::Word(|| ids(&StorageFormat::ALL, StorageFormat::id)),
        set: |s, v| keyword(v.word(), StorageFormat::from_id, |f| s.quant = f),
        write: |s, _| differs(s.quant.id(), Scenario::default_quant(s.mode, s.method).id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("bf16 (nf4 for method=qlora)", "how stored weights are kept: the frozen base for LoRA/QLoRA, the served weights for inference (ignored by full fine-tuning)"),
    },
    KeyDef {
        key: Key::Dq,
        name: "dq",
        read: Read::Flag,
        set: |s, v| {
            s.double_quant = v.flag();
            Ok(())
        },
        write: |s, c| (s.double_quant != c.default.double_quant).then(|| flag_text(s.double_quant)),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("1", "NF4 double quantization (QLoRA's default)"),
    },
    KeyDef {
        key: Key::Optim,
        name: "optim",
        read: Read::Word(|| ids(Optimizer::ALL, Optimizer::id)),
        set: |s, v| keyword(v.word(), Optimizer::from_id, |o| s.optimizer = o),
        write: |s, c| differs(s.optimizer.id(), c.default.optimizer.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("adamw", "optimizer"),
    },
    KeyDef {
        key: Key::Seq,
        name: "seq",
        read: Read::Uint { min: 1, max: MAX_SEQ },
        set: |s, v| {
            s.seq = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.seq, c.default.seq),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("2048", "tokens per sequence (the prompt, for inference); vision tokens are added to it"),
    },
    KeyDef {
        key: Key::Batch,
        name: "batch",
        read: Read::Uint { min: 1, max: MAX_BATCH },
        set: |s, v| {
            s.batch = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.batch, c.default.batch),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("1", "micro-batch per GPU (concurrent sequences, for inference)"),
    },
    KeyDef {
        key: Key::Accum,
        name: "accum",
        read: Read::Uint { min: 1, max: 1_000_000 },
        set: |s, v| {
            s.accum = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.accum, c.default.accum),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("1", "gradient accumulation steps (no memory; shown as the effective batch)"),
    },
    KeyDef {
        key: Key::Rank,
        name: "rank",
        read: Read::Uint { min: 1, max: 65_536 },
        set: |s, v| {
            s.rank = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.rank, c.default.rank),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("16", "LoRA rank r"),
    },
    KeyDef {
        key: Key::Targets,
        name: "targets",
        read: Read::Word(|| ids(LoraTargets::ALL, LoraTargets::id)),
        set: |s, v| keyword(v.word(), LoraTargets::from_id, |t| s.targets = t),
        write: |s, c| differs(s.targets.id(), c.default.targets.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("all", "linear layers with LoRA adapters"),
    },
    KeyDef {
        key: Key::Gc,
        name: "gc",
        read: Read::Flag,
        set: |s, v| {
            s.gradient_checkpointing = v.flag();
            Ok(())
        },
        write: |s, c| (s.gradient_checkpointing != c.default.gradient_checkpointing).then(|| flag_text(s.gradient_checkpointing)),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("1", "gradient checkpointing (per decoder layer)"),
    },
    KeyDef {
        key: Key::Attn,
        name: "attn",
        read: Read::Word(|| ids(AttentionKernel::ALL, AttentionKernel::id)),
        set: |s, v| keyword(v.word(), AttentionKernel::from_id, |k| s.attention = k),
        write: |s, c| differs(s.attention.id(), c.default.attention.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("sdpa", "attention kernel; eager stores the s² scores"),
    },
    KeyDef {
        key: Key::Bnb,
        name: "bnb",
        read: Read::Word(|| ids(Bitsandbytes::ALL, Bitsandbytes::id)),
        set: |s, v| keyword(v.word(), Bitsandbytes::from_id, |b| s.bnb = b),
        write: |s, c| differs(s.bnb.id(), c.default.bnb.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("fixed", "bitsandbytes behind a 4-bit base (QLoRA): legacy = before 0.43.2, whose 4-bit layers kept their input for backward; fixed = 0.43.2 on"),
    },
    KeyDef {
        key: Key::Loss,
        name: "loss",
        read: Read::Word(|| ids(LossKernel::ALL, LossKernel::id)),
        set: |s, v| keyword(v.word(), LossKernel::from_id, |l| s.loss = l),
        write: |s, c| differs(s.loss.id(), c.default.loss.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("hf", "how the loss meets the logits (training): hf = transformers ≥ 4.48 (fp32 upcast + log-softmax, 12 B per logit at its backward), hf_shift = older transformers (+ a shifted fp32 copy), chunked = chunked cross-entropy (LitGPT, torchtune), fused = fused linear cross-entropy (Liger, Cut Cross-Entropy, Unsloth)"),
    },
    KeyDef {
        key: Key::Gpus,
        name: "gpus",
        read: Read::Uint { min: 1, max: 100_000 },
        set: |s, v| {
            s.gpus = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.gpus, c.default.gpus),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("1", "data-parallel GPUs (training) or tensor-parallel GPUs (inference); the bill is per GPU"),
    },
    KeyDef {
        key: Key::Zero,
        name: "zero",
        read: Read::Uint { min: 0, max: 3 },
        set: |s, v| {
            s.zero = v.uint() as u8;
            Ok(())
        },
        write: |s, c| differs(s.zero, c.default.zero),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("0, 1, 2, 3", "0", "ZeRO stage over `gpus` (3 = FSDP full shard)"),
    },
    KeyDef {
        key: Key::Kv,
        name: "kv",
        read: Read::Word(|| ids(&KvDtype::ALL, KvDtype::id)),
        set: |s, v| keyword(v.word(), KvDtype::from_id, |k| s.kv = k),
        write: |s, c| differs(s.kv.id(), c.default.kv.id()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("bf16", "KV-cache dtype (int8/int4 = llama.cpp q8_0/q4_0 blocks)"),
    },
    KeyDef {
        key: Key::Gen,
        name: "gen",
        read: Read::Uint { min: 0, max: MAX_SEQ },
        set: |s, v| {
            s.generated = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.generated, c.default.generated),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("0", "generated tokens; the KV cache holds prompt + generated"),
    },
    KeyDef {
        key: Key::Images,
        name: "images",
        read: Read::Uint { min: 0, max: 1024 },
        set: |s, v| {
            s.images = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.images, c.default.images),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("0", "images per sequence (vision-language presets)"),
    },
    KeyDef {
        key: Key::ImagePx,
        name: "image_px",
        read: Read::Uint { min: 1, max: 100_000 },
        set: |s, v| {
            s.image_px = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.image_px, c.default.image_px),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("448", "side of a square image in pixels; Qwen2-VL makes (px/28)² tokens of it"),
    },
    KeyDef {
        key: Key::Gpu,
        name: "gpu",
        read: Read::Word(|| presets::GPUS.iter().map(|g| g.id).collect()),
        set: |s, v| Gpu::preset(v.word()).map(|g| s.gpu = g).ok_or(()),
        write: |s, c| match s.gpu.id {
            Some(id) if Some(id) != c.default.gpu.id => Some(id.into()),
            _ => None,
        },
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("a GPU preset id (see `vram-ledger --presets`)", "rtx4090", "the GPU"),
    },
    KeyDef {
        key: Key::Vram,
        name: "vram",
        read: Read::Float { min: 0.001, max: 1_000_000.0 },
        set: |s, v| {
            s.gpu = Gpu::custom_gib(v.float());
            Ok(())
        },
        write: |s, _| s.gpu.id.is_none().then(|| trim_float(s.gpu.bytes as f64 / GIB)),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("—", "a custom GPU size in GiB (wins over `gpu`)"),
    },
    KeyDef {
        key: Key::OverheadMib,
        name: "overhead_mib",
        read: Read::Float { min: 0.0, max: 1_000_000.0 },
        set: |s, v| {
            s.overhead_mib = v.float();
            Ok(())
        },
        write: |s, c| (s.overhead_mib != c.default.overhead_mib).then(|| trim_float(s.overhead_mib)),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("500", "CUDA context + library workspaces per GPU, in MiB"),
    },
    KeyDef {
        key: Key::Drill,
        name: "drill",
        read: Read::List(&Drill::IDS),
        set: |s, v| Drill::from_id_list(v.word()).map(|d| s.drill = d).map_err(|_| ()),
        write: |s, _| (!s.drill.is_empty()).then(|| s.drill.to_id_list()),
        architecture: false,
        #[cfg(not(target_arch = "wasm32"))]
        doc: doc!("— (no mistakes)", "the five-OOM drill: inject classic mistakes (evaluation without no_grad, logits kept in a list for 10 steps, embedding and LM head left in fp32, a leftover process)"),
    },
];

/// Keys the web app reads; the ledger ignores them without a warning.
pub const UI_KEYS: [&str; 4] = ["lang", "embed", "tree", "unit"];

/// The accepted values of a key, as its documentation lists them.
#[cfg(not(target_arch = "wasm32"))]
pub fn values_doc(d: &KeyDef) -> String {
    if let Some(v) = d.doc.values {
        return v.to_string();
    }
    match d.read {
        Read::Uint { min, max } => format!("{min}–{max}"),
        Read::Float { min, max } => format!("{min}–{max}"),
        Read::Flag => "0, 1".into(),
        Read::Word(list) => list().join(", "),
        Read::List(list) => format!("comma-separated: {}", list.join(", ")),
    }
}
