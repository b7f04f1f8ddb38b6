//! Every key of the scenario vocabulary, each defined once, in one `keys!` entry: its name, its
//! control label in both languages, how its text is read, what it sets in the scenario, how it is
//! written back, and its documentation. The [`Key`] enum and the [`KEYS`] table are generated from
//! that one list. `docs/query-keys.md` is generated from the table (`vram-ledger --keys`) and a test
//! keeps the two identical. The UI names keys through [`Key`], so a misspelt key does not compile.
//!
//! The table's order is the order keys are read and written: the model before its shape fields,
//! `mode` and `method` before `quant` (choosing a method picks its default weight format, and an
//! explicit `quant` wins), `gpu` before `vram` (a custom size wins over a preset).

use crate::ledger::architecture::{
    Architecture, FullAttention, ImageSize, IndexerSpec, LayerPattern, LinearSpec, MlaSpec, MlpKind, MoeSpec, NormKind,
    RopeTables, VisionKind, VisionSpec,
};
use crate::ledger::msg::MsgId;
use crate::ledger::presets;
use crate::ledger::scenario::{
    Allocator, AttentionKernel, AttentionMask, Bitsandbytes, Checkpointing, Compile, Drill, Engine, ExpertStorage,
    Framework, Gpu, Kernels, LoraTargets, LossKernel, Method, Mode, Objective, Offload, Optimizer, PpoUpdate,
    Precision, Recipe, Reference, Release, Rollout, RopeCache, Scenario, Schedule, TrainerOffload, TrainingLoop,
    Zero3Impl, GIB, MAX_GENERATIONS, MOMENT_DTYPES,
};
use crate::ledger::storage::{KvDtype, QuantLayers, StorageFormat};
use crate::ledger::units::trim_float;

/// Limits of numeric values: wide enough for any real model, small enough that no product overflows.
pub const MAX_SEQ: u64 = 100_000_000;
pub const MAX_BATCH: u64 = 65_536;
const MAX_DIM: u64 = 1 << 24;
/// An encoder's parameters: up to about a trillion.
const MAX_PARAMS: u64 = 1 << 40;

/// Defines every key once: `Variant = "name" { label, read, set, write, architecture, doc }`
/// gives the [`Key`] variant, its [`KeyDef`] in [`KEYS`] (in the same order, so `Key::def` is an
/// index) and its control label; nothing else lists the keys.
macro_rules! keys {
    ($($variant:ident = $name:literal {
        label: $label:expr,
        read: $read:expr,
        set: $set:expr,
        write: $write:expr,
        architecture: $architecture:expr,
        doc: $doc:expr $(,)?
    }),+ $(,)?) => {
        /// A key of the scenario vocabulary.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Key { $($variant),+ }

        impl Key {
            pub const ALL: &'static [Key] = &[$(Key::$variant),+];
        }

        /// Every key's control label, (English, Chinese), in [`Key`]'s order.
        const LABELS: &[(&str, &str)] = &[$($label),+];

        /// Every key's definition, in [`Key`]'s order.
        pub static KEYS: &[KeyDef] = &[$(KeyDef {
            key: Key::$variant,
            name: $name,
            read: $read,
            set: $set,
            write: $write,
            architecture: $architecture,
            #[cfg(not(target_arch = "wasm32"))]
            doc: $doc,
        }),+];
    };
}

const fn label_at(i: usize) -> (&'static str, &'static str) {
    LABELS[i]
}

crate::i18n::packed!(PACKED_LABELS, LABELS.len(), label_at);

impl Key {
    /// The key's definition.
    pub fn def(self) -> &'static KeyDef {
        // `keys!` writes the table in `Key`'s order.
        &KEYS[self as usize]
    }

    /// The name in links and on the command line.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// The control's label: (English, Chinese).
    pub fn label(self) -> (&'static str, &'static str) {
        PACKED_LABELS.pair(self as usize)
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
    /// Free text that `set` checks; the hint says what is accepted.
    Text(MsgId),
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

/// `N` (a square) or `WxH` (a lowercase x), each side 1–100000 pixels.
fn image_size(text: &str) -> Option<ImageSize> {
    let side = |t: &str| t.trim().parse::<u64>().ok().filter(|n| (1..=100_000).contains(n));
    match text.split_once('x') {
        Some((w, h)) => Some(ImageSize { width: side(w)?, height: side(h)? }),
        None => side(text).map(ImageSize::square),
    }
}

/// `rope_positions`: a count of positions (0: no tables) or Gemma-3's `local,global`.
fn rope_positions(text: &str) -> Option<RopeTables> {
    const MAX: u64 = 1 << 34;
    let count = |t: &str| t.trim().parse::<u64>().ok().filter(|&n| n <= MAX);
    match text.split_once(',') {
        Some((local, global)) => Some(RopeTables::LocalGlobal { local: count(local)?, global: count(global)? }),
        None => match count(text)? {
            0 => Some(RopeTables::None),
            positions => Some(RopeTables::Tables { positions, dim: 0 }),
        },
    }
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
    s.quant = Scenario::default_quant(s.mode, s.method, &s.architecture);
}

fn set_method(s: &mut Scenario, m: Method) {
    s.method = m;
    s.quant = Scenario::default_quant(s.mode, s.method, &s.architecture);
}

fn set_model(s: &mut Scenario, id: &str) -> Result<(), ()> {
    if id == "custom" {
        s.model_id = None;
        s.architecture.name = "custom".into();
        return Ok(());
    }
    let p = presets::model(id).ok_or(())?;
    s.model_id = Some(p.id.to_string());
    s.architecture = p.architecture.clone();
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
    // Shared experts, dense layers and biases stay as they were.
    let rest = a.moe.unwrap_or(MoeSpec::routed(e, k, a.ffn));
    a.moe = (e > 1).then_some(MoeSpec { experts: e, active: k, expert_ffn: a.ffn, ..rest });
}

/// A field of a sub-structure (latent attention, linear attention, MoE, vision) the scenario's model
/// has: written when it differs from the template's, or — when the template has none — from the
/// value a new one starts with (so that shape keys added since keep old custom links unchanged).
fn sub<T: Copy>(v: Option<&T>, t: Option<&T>, fresh: T, field: fn(&T) -> u64) -> Option<String> {
    let v = v.map(field)?;
    let t = t.map_or(field(&fresh), field);
    (v != t).then(|| v.to_string())
}

fn sub_flag<T: Copy>(v: Option<&T>, t: Option<&T>, fresh: T, field: fn(&T) -> bool) -> Option<String> {
    let v = v.map(field)?;
    let t = t.map_or(field(&fresh), field);
    (v != t).then(|| flag_text(v))
}

/// A newly made latent attention (DeepSeek's dimensions) and linear attention (Qwen3-Next's).
const FRESH_MLA: MlaSpec =
    MlaSpec { q_lora_rank: 0, kv_lora_rank: 512, qk_rope_head_dim: 64, qk_nope_head_dim: 128, v_head_dim: 128 };
const FRESH_LINEAR: LinearSpec = crate::ledger::presets::QWEN3_NEXT_LINEAR;
const FRESH_MOE: MoeSpec = MoeSpec::routed(2, 1, 1);
/// DeepSeek-V3.2's indexer.
const FRESH_INDEXER: IndexerSpec = IndexerSpec { heads: 64, head_dim: 128 };

fn fresh_tower(s: &Scenario) -> VisionSpec {
    s.architecture.vision.and_then(|v| default_tower(v.kind)).unwrap_or(VisionSpec::of(
        VisionKind::Qwen2Vl,
        1,
        1,
        1,
        1,
        1,
    ))
}

/// Latent attention's fields, creating DeepSeek's dimensions when the model has none yet; a
/// `kv_lora_rank` of 0 turns it off.
fn set_mla(s: &mut Scenario, f: impl FnOnce(&mut MlaSpec)) {
    let mut m = s.architecture.mla.unwrap_or(FRESH_MLA);
    f(&mut m);
    s.architecture.mla = (m.kv_lora_rank > 0).then_some(m);
}

/// Linear attention's fields, creating Qwen3-Next's when the model has none yet.
fn set_linear(s: &mut Scenario, f: impl FnOnce(&mut LinearSpec)) {
    let mut l = s.architecture.linear.unwrap_or(FRESH_LINEAR);
    f(&mut l);
    s.architecture.linear = Some(l);
}

/// The setter of a key whose field only the reader worker's bills read (the page's build asks the worker for
/// them, `Scenario::billed_on_demand`): in the page's build its setter keeps the link's value and
/// its writer writes it back (`Scenario::for_worker`), so the page carries neither the field's
/// setter nor its writer; elsewhere, the key's own.
macro_rules! set_for_worker {
    ($key:ident, $set:expr) => {
        if cfg!(feature = "page") {
            keep_for_worker::<{ Key::$key as usize }> as fn(&mut Scenario, Value) -> Result<(), ()>
        } else {
            $set
        }
    };
}

/// The label of such a key: none in the page's build, which shows no control for it.
macro_rules! label_for_worker {
    ($label:expr) => {
        if cfg!(feature = "page") {
            ("", "")
        } else {
            $label
        }
    };
}

/// The writer of such a key ([`set_for_worker`]).
macro_rules! write_for_worker {
    ($key:ident, $write:expr) => {
        if cfg!(feature = "page") {
            kept_text::<{ Key::$key as usize }> as fn(&Scenario, &Context) -> Option<String>
        } else {
            $write
        }
    };
}

/// The page's build: the link's value of key `K`, kept for the worker.
fn keep_for_worker<const K: usize>(s: &mut Scenario, v: Value) -> Result<(), ()> {
    keep(s, KEYS[K].name, v);
    Ok(())
}

/// The page's build: key `K`'s kept value.
fn kept_text<const K: usize>(s: &Scenario, _: &Context) -> Option<String> {
    kept(s, KEYS[K].name).map(str::to_string)
}

fn keep(s: &mut Scenario, name: &str, v: Value) {
    let text = match v {
        Value::Uint(n) => n.to_string(),
        Value::Float(x) => trim_float(x),
        Value::Flag(b) => flag_text(b),
        Value::Word(w) => w.to_string(),
    };
    let kept: String = s
        .for_worker
        .split_terminator('&')
        .filter(|kv| kv.split('=').next() != Some(name))
        .map(|kv| format!("{kv}&"))
        .collect();
    s.for_worker = format!("{kept}{name}={text}&");
}

fn kept<'a>(s: &'a Scenario, name: &str) -> Option<&'a str> {
    s.for_worker.split_terminator('&').find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
}

/// The full-attention layers' own shape, made from the model's when it has none; dropped again when
/// it is the model's (0 stands for the model's KV heads or head width).
fn set_full_attention(s: &mut Scenario, f: impl FnOnce(&mut FullAttention)) {
    let a = &mut s.architecture;
    let model = FullAttention { kv_heads: a.kv_heads, head_dim: a.head_dim, k_is_v: false };
    let mut own = a.full_attention.unwrap_or(model);
    f(&mut own);
    own.kv_heads = if own.kv_heads == 0 { a.kv_heads } else { own.kv_heads };
    own.head_dim = if own.head_dim == 0 { a.head_dim } else { own.head_dim };
    a.full_attention = (own != model).then_some(own);
}

/// A field of the full-attention layers' own shape; 0 when they have none.
fn full_attention_field(a: &Architecture, field: fn(&FullAttention) -> u64) -> u64 {
    a.full_attention.as_ref().map_or(0, field)
}

/// A field of the mixture of experts (ignored by a dense model).
fn set_moe(s: &mut Scenario, f: impl FnOnce(&mut MoeSpec)) {
    if let Some(m) = s.architecture.moe.as_mut() {
        f(m);
    }
}

/// A field of the vision tower (ignored by a text-only model).
fn set_vision(s: &mut Scenario, f: impl FnOnce(&mut VisionSpec)) {
    if let Some(v) = s.architecture.vision.as_mut() {
        f(v);
    }
}

/// The soft-token budgets Gemma-4's image processor accepts (transformers 5.25
/// `image_processing_gemma4.py` `_SUPPORTED_SOFT_TOKENS`; any other raises).
const GEMMA4_BUDGETS: [&str; 5] = ["70", "140", "280", "560", "1120"];

const VISION_KINDS: [(&str, Option<VisionKind>); 9] = [
    ("none", None),
    ("qwen2vl", Some(VisionKind::Qwen2Vl)),
    ("qwen25vl", Some(VisionKind::Qwen25Vl)),
    ("qwen3vl", Some(VisionKind::Qwen3Vl)),
    ("siglip", Some(VisionKind::Siglip)),
    ("llama4", Some(VisionKind::Llama4)),
    ("pixtral", Some(VisionKind::Pixtral)),
    ("gemma4", Some(VisionKind::Gemma4)),
    ("internvl", Some(VisionKind::InternVl)),
];

fn vision_id(v: Option<&VisionSpec>) -> &'static str {
    VISION_KINDS.iter().find(|(_, k)| *k == v.map(|v| v.kind)).map_or("none", |(id, _)| id)
}

/// A tower of `kind` with the dimensions of the preset that has one (Gemma-4's small tower: no
/// preset has one).
fn default_tower(kind: VisionKind) -> Option<VisionSpec> {
    match kind {
        VisionKind::Gemma4 => return Some(presets::GEMMA4_TOWER),
        VisionKind::InternVl => return Some(presets::INTERNVIT_300M),
        _ => {}
    }
    presets::models().iter().filter_map(|m| m.architecture.vision).find(|v| v.kind == kind)
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

fn norm_id(n: NormKind) -> &'static str {
    match n {
        NormKind::RmsNorm => "rms",
        NormKind::LayerNorm => "layer",
    }
}

fn norm_from_id(id: &str) -> Option<NormKind> {
    match id {
        "rms" => Some(NormKind::RmsNorm),
        "layer" => Some(NormKind::LayerNorm),
        _ => None,
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

// The table, in the order keys are read and written (see the module doc).
keys! {
    Model = "model" {
        label: ("Model", "模型"),
        read: Read::Word(model_ids),
        set: |s, v| set_model(s, v.word().trim()),
        write: write_model,
        architecture: false,
        doc: doc!("a preset id (see `vram-ledger --presets`) or `custom`", "llama-3.1-8b", "the model; `custom` starts from a Llama-style template that the fields below describe"),
    },
    Layers = "layers" {
        label: ("Layers", "层数"),
        read: Read::Uint { min: 1, max: 10_000 },
        set: |s, v| {
            s.architecture.layers = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.layers, c.template.layers, c),
        architecture: true,
        doc: doc!("the preset's", "decoder layers"),
    },
    Hidden = "hidden" {
        label: ("Hidden size", "隐藏层宽度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.hidden = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.hidden, c.template.hidden, c),
        architecture: true,
        doc: doc!("the preset's", "hidden size"),
    },
    Heads = "heads" {
        label: ("Attention heads", "注意力头数"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.heads = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.heads, c.template.heads, c),
        architecture: true,
        doc: doc!("the preset's", "attention (query) heads"),
    },
    KvHeads = "kv_heads" {
        label: ("KV heads", "KV 头数"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.kv_heads = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.kv_heads, c.template.kv_heads, c),
        architecture: true,
        doc: doc!("1–heads", "the preset's", "key/value heads (GQA/MQA when fewer than heads)"),
    },
    HeadDim = "head_dim" {
        label: ("Head dimension", "每头维度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            s.architecture.head_dim = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.head_dim, c.template.head_dim, c),
        architecture: true,
        doc: doc!("the preset's", "dimension of one head"),
    },
    Ffn = "ffn" {
        label: ("MLP size", "MLP 中间层宽度"),
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
        doc: doc!("the preset's", "MLP intermediate size (per expert for MoE)"),
    },
    Vocab = "vocab" {
        label: ("Vocabulary", "词表大小"),
        read: Read::Uint { min: 1, max: 1 << 27 },
        set: |s, v| {
            s.architecture.vocab = v.uint();
            Ok(())
        },
        write: |s, c| shape(s.architecture.vocab, c.template.vocab, c),
        architecture: true,
        doc: doc!("the preset's", "vocabulary size"),
    },
    Tied = "tied" {
        label: ("Tied embeddings", "共享 embedding 与 LM head"),
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
        doc: doc!("the preset's", "input embeddings shared with the LM head"),
    },
    Mlp = "mlp" {
        label: ("MLP kind", "MLP 类型"),
        read: Read::Word(|| vec!["glu", "gelu"]),
        set: |s, v| keyword(v.word(), mlp_from_id, |m| s.architecture.mlp = m),
        write: |s, c| (c.custom || s.architecture.mlp != c.template.mlp).then(|| mlp_id(s.architecture.mlp).into()),
        architecture: true,
        doc: doc!("the preset's", "gated (SwiGLU: gate, up, down) or plain (GELU: fc1, fc2) MLP"),
    },
    Experts = "experts" {
        label: ("Experts", "专家数"),
        read: Read::Uint { min: 1, max: 1 << 16 },
        set: |s, v| {
            set_experts(&mut s.architecture, Some(v.uint()), None);
            Ok(())
        },
        write: |s, c| differs(moe_counts(&s.architecture).0, moe_counts(c.template).0),
        architecture: true,
        doc: doc!("the preset's (1 = dense)", "mixture-of-experts: experts per layer"),
    },
    ActiveExperts = "active_experts" {
        label: ("Active experts", "激活专家数"),
        read: Read::Uint { min: 1, max: 1 << 16 },
        set: |s, v| {
            set_experts(&mut s.architecture, None, Some(v.uint()));
            Ok(())
        },
        write: |s, c| differs(moe_counts(&s.architecture).1, moe_counts(c.template).1),
        architecture: true,
        doc: doc!("1–experts", "the preset's", "experts each token runs through"),
    },
    Norm = "norm" {
        label: ("Norm kind", "归一化类型"),
        read: Read::Word(|| vec!["rms", "layer"]),
        set: |s, v| keyword(v.word(), norm_from_id, |n| s.architecture.norm = n),
        write: |s, c| (s.architecture.norm != c.template.norm).then(|| norm_id(s.architecture.norm).into()),
        architecture: true,
        doc: doc!("the preset's", "RMSNorm (one weight vector) or LayerNorm (weight and bias)"),
    },
    Norms = "norms" {
        label: ("Norms per layer", "每层归一化数"),
        read: Read::Uint { min: 1, max: 8 },
        set: |s, v| {
            s.architecture.norms_per_layer = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.architecture.norms_per_layer, c.template.norms_per_layer),
        architecture: true,
        doc: doc!("the preset's", "norm layers per decoder layer: 2, or 4 for Gemma-2/3 (pre and post norms)"),
    },
    QkvBias = "qkv_bias" {
        label: ("q/k/v biases", "q/k/v 偏置"),
        read: Read::Flag,
        set: |s, v| {
            s.architecture.qkv_bias = v.flag();
            Ok(())
        },
        write: |s, c| (s.architecture.qkv_bias != c.template.qkv_bias).then(|| flag_text(s.architecture.qkv_bias)),
        architecture: true,
        doc: doc!("the preset's", "biases on the q, k and v projections (Qwen2, GLM, gpt-oss)"),
    },
    OutMlpBias = "out_mlp_bias" {
        label: ("Output and MLP biases", "输出与 MLP 偏置"),
        read: Read::Flag,
        set: |s, v| {
            s.architecture.out_and_mlp_bias = v.flag();
            Ok(())
        },
        write: |s, c| (s.architecture.out_and_mlp_bias != c.template.out_and_mlp_bias).then(|| flag_text(s.architecture.out_and_mlp_bias)),
        architecture: true,
        doc: doc!("the preset's", "biases on the attention output and the MLP or expert linears (GPT-2, gpt-oss)"),
    },
    HiddenDropout = "hidden_dropout" {
        label: ("Hidden dropout", "隐藏层 dropout"),
        read: Read::Float { min: 0.0, max: 0.99 },
        set: |s, v| {
            s.architecture.hidden_dropout = v.float();
            Ok(())
        },
        write: |s, c| (s.architecture.hidden_dropout != c.template.hidden_dropout).then(|| trim_float(s.architecture.hidden_dropout)),
        architecture: true,
        doc: doc!("0 (the preset's)", "the residual stream's dropout probability in training (Megatron's `--hidden-dropout`, whose default is 0.1; GPT-2's `resid_pdrop`): above 0 the two dropouts of every layer keep their masks, 1 B per element each (÷ tp only with sequence parallel)"),
    },
    ModelContext = "model_context" {
        label: ("Model's context (tokens)", "模型上下文(token)"),
        read: Read::Uint { min: 0, max: 1 << 30 },
        set: |s, v| {
            s.architecture.max_context = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.architecture.max_context, c.template.max_context),
        architecture: true,
        doc: doc!("the preset's", "the longest context the model is made for (config.json's `max_position_embeddings`); 0 = not known. Only `max_model_len=auto` reads it"),
    },
    RopePositions = "rope_positions" {
        label: ("RoPE table positions", "RoPE 表位置数"),
        read: Read::Text(MsgId::HintRopePositions),
        set: |s, v| rope_positions(v.word()).map(|r| s.architecture.rope = r.with_dim_of(s.architecture.rope)).ok_or(()),
        write: |s, c| match s.architecture.rope {
            r if r == c.template.rope => None,
            RopeTables::None => Some("0".into()),
            RopeTables::Tables { positions, .. } if positions > 0 => Some(positions.to_string()),
            RopeTables::LocalGlobal { local, global } => Some(format!("{local},{global}")),
            _ => None,
        },
        architecture: true,
        doc: doc!("a count, or local,global", "the model's context", "positions of the rotary cos/sin tables vLLM and SGLang build on every GPU, summed over the distinct tables (linear or YaRN scaling: × the factor); local,global = Gemma-3's two tables (SGLang builds none); 0 = no rotary tables"),
    },
    RopeDim = "rope_dim" {
        label: ("RoPE table width", "RoPE 表宽度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            let positions = match s.architecture.rope {
                RopeTables::Tables { positions, .. } => positions,
                _ => 0,
            };
            s.architecture.rope = RopeTables::Tables { positions, dim: v.uint() };
            Ok(())
        },
        write: |s, c| match s.architecture.rope {
            r if r == c.template.rope => None,
            RopeTables::Tables { dim, .. } if dim > 0 => Some(dim.to_string()),
            _ => None,
        },
        architecture: true,
        doc: doc!("the head's", "the rotary width of those tables when only part of each head rotates (`partial_rotary_factor` × head_dim)"),
    },
    Positions = "positions" {
        label: ("Learned positions", "可学习位置编码"),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: |s, v| {
            s.architecture.learned_positions = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.architecture.learned_positions, c.template.learned_positions),
        architecture: true,
        doc: doc!("the preset's", "learned absolute position embeddings (GPT-2: 1024); 0 for rotary models"),
    },
    Softcap = "softcap" {
        label: ("Soft-capping", "软截断"),
        read: Read::Flag,
        set: |s, v| {
            s.architecture.softcapping = v.flag();
            Ok(())
        },
        write: |s, c| (s.architecture.softcapping != c.template.softcapping).then(|| flag_text(s.architecture.softcapping)),
        architecture: true,
        doc: doc!("the preset's", "tanh soft-capping of attention scores and logits (Gemma-2)"),
    },
    QkNorm = "qk_norm" {
        label: ("q/k norms", "q/k 归一化"),
        read: Read::Flag,
        set: |s, v| {
            s.architecture.qk_norm = v.flag();
            Ok(())
        },
        write: |s, c| (s.architecture.qk_norm != c.template.qk_norm).then(|| flag_text(s.architecture.qk_norm)),
        architecture: true,
        doc: doc!("the preset's", "RMSNorm on q and k per head (Qwen3, Gemma-3)"),
    },
    Sinks = "sinks" {
        label: ("Attention sinks", "注意力汇点"),
        read: Read::Flag,
        set: |s, v| {
            s.architecture.sinks = v.flag();
            Ok(())
        },
        write: |s, c| (s.architecture.sinks != c.template.sinks).then(|| flag_text(s.architecture.sinks)),
        architecture: true,
        doc: doc!("the preset's", "one learned attention-sink logit per head and layer (gpt-oss)"),
    },
    AttnGate = "attn_gate" {
        label: ("Attention output gate", "注意力输出门"),
        read: Read::Flag,
        set: |s, v| {
            s.architecture.attn_gate = v.flag();
            Ok(())
        },
        write: |s, c| (s.architecture.attn_gate != c.template.attn_gate).then(|| flag_text(s.architecture.attn_gate)),
        architecture: true,
        doc: doc!("the preset's", "an output gate on full attention: q_proj also produces a gate (Qwen3-Next)"),
    },
    LayerPattern = "layer_pattern" {
        label: ("Layer pattern", "层类型模式"),
        read: Read::Text(MsgId::HintLayerPattern),
        set: |s, v| LayerPattern::parse(v.word()).map(|p| s.architecture.layer_pattern = p).ok_or(()),
        write: |s, c| (s.architecture.layer_pattern != c.template.layer_pattern).then(|| s.architecture.layer_pattern.text()),
        architecture: true,
        doc: doc!("1–128 letters of F, S, C, L, A, M, P", "the preset's (F)", "the repeating per-layer attention kinds: F full, S sliding window, C chunked local, L linear attention / state space (Gemma-3 SSSSSF, gpt-oss SF, Llama-4 CCCF, Qwen3-Next LLLF), each with its MLP; for block-level hybrids (Nemotron-H) A an attention block and M a Mamba / linear-attention block without an MLP, P an MLP block without a mixer"),
    },
    Window = "window" {
        label: ("Sliding window (tokens)", "滑动窗口(token)"),
        read: Read::Uint { min: 0, max: 1 << 30 },
        set: |s, v| {
            s.architecture.window = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.architecture.window, c.template.window),
        architecture: true,
        doc: doc!("the preset's", "tokens a sliding-window (S) layer attends to and caches"),
    },
    Chunk = "chunk" {
        label: ("Attention chunk (tokens)", "注意力分块(token)"),
        read: Read::Uint { min: 0, max: 1 << 30 },
        set: |s, v| {
            s.architecture.chunk = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.architecture.chunk, c.template.chunk),
        architecture: true,
        doc: doc!("the preset's", "tokens of a chunked local attention (C) layer's chunk (Llama-4: 8192)"),
    },
    FullKvHeads = "full_kv_heads" {
        label: label_for_worker!(("Full layers' KV heads", "全注意力层 KV 头数")),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: set_for_worker!(FullKvHeads, |s, v| {
            set_full_attention(s, |f| f.kv_heads = v.uint());
            Ok(())
        }),
        write: write_for_worker!(FullKvHeads, |s, c| differs(full_attention_field(&s.architecture, |f| f.kv_heads), full_attention_field(c.template, |f| f.kv_heads))),
        architecture: true,
        doc: doc!("0–heads", "the preset's (0: `kv_heads`)", "the full-attention (F) layers' own KV heads where they differ from the other layers' (Gemma-4: `num_global_key_value_heads`, 2 against 8 on its sliding layers); their KV cache, projections and activations use them"),
    },
    FullHeadDim = "full_head_dim" {
        label: label_for_worker!(("Full layers' head dimension", "全注意力层每头维度")),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: set_for_worker!(FullHeadDim, |s, v| {
            set_full_attention(s, |f| f.head_dim = v.uint());
            Ok(())
        }),
        write: write_for_worker!(FullHeadDim, |s, c| differs(full_attention_field(&s.architecture, |f| f.head_dim), full_attention_field(c.template, |f| f.head_dim))),
        architecture: true,
        doc: doc!("the preset's (0: `head_dim`)", "the full-attention (F) layers' own head width (Gemma-4: `global_head_dim`, 512 against 256)"),
    },
    FullKEqV = "full_k_eq_v" {
        label: label_for_worker!(("Full layers use K as V", "全注意力层以 K 作 V")),
        read: Read::Flag,
        set: set_for_worker!(FullKEqV, |s, v| {
            set_full_attention(s, |f| f.k_is_v = v.flag());
            Ok(())
        }),
        write: write_for_worker!(FullKEqV, |s, c| {
            let k_is_v = |a: &Architecture| a.full_attention.is_some_and(|f| f.k_is_v);
            (k_is_v(&s.architecture) != k_is_v(c.template)).then(|| flag_text(k_is_v(&s.architecture)))
        }),
        architecture: true,
        doc: doc!("the preset's (0)", "the full-attention (F) layers have no v_proj and use their keys as values (Gemma-4's `attention_k_eq_v`); the KV cache still holds both"),
    },
    KvSharedLayers = "kv_shared_layers" {
        label: label_for_worker!(("KV-shared last layers", "共享 KV 的末尾层数")),
        read: Read::Uint { min: 0, max: 10_000 },
        set: set_for_worker!(KvSharedLayers, |s, v| {
            s.architecture.kv_shared_layers = v.uint();
            Ok(())
        }),
        write: write_for_worker!(KvSharedLayers, |s, c| differs(s.architecture.kv_shared_layers, c.template.kv_shared_layers)),
        architecture: true,
        doc: doc!("0–layers", "the preset's (0)", "the last layers read the KV cache of the last earlier layer of their attention kind (Gemma-4 E2B: 20 of 35, E4B: 18 of 42, `num_kv_shared_layers`): they keep no cache and have no k_proj or v_proj of their own"),
    },
    PleDim = "ple_dim" {
        label: label_for_worker!(("Per-layer embedding width", "逐层嵌入宽度")),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: set_for_worker!(PleDim, |s, v| {
            s.architecture.per_layer_input = v.uint();
            Ok(())
        }),
        write: write_for_worker!(PleDim, |s, c| differs(s.architecture.per_layer_input, c.template.per_layer_input)),
        architecture: true,
        doc: doc!("the preset's (0)", "per-layer embeddings' width (Gemma-4 E2B/E4B: `hidden_size_per_layer_input`, 256): a table of vocab × layers × width beside the token embedding (2.35B parameters in E2B), a projection to it and each layer's gate, projection back and norm"),
    },
    WideSharedMlp = "wide_shared_mlp" {
        label: label_for_worker!(("KV-shared layers' MLP twice as wide", "共享 KV 层的 MLP 加倍")),
        read: Read::Flag,
        set: set_for_worker!(WideSharedMlp, |s, v| {
            s.architecture.wide_shared_mlp = v.flag();
            Ok(())
        }),
        write: write_for_worker!(WideSharedMlp, |s, c| (s.architecture.wide_shared_mlp != c.template.wide_shared_mlp).then(|| flag_text(s.architecture.wide_shared_mlp))),
        architecture: true,
        doc: doc!("the preset's (0)", "the KV-shared layers' MLP is twice `ffn` wide (Gemma-4 E2B's `use_double_wide_mlp`)"),
    },
    QLoraRank = "q_lora_rank" {
        label: ("Query latent rank", "查询潜向量秩"),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: |s, v| {
            set_mla(s, |m| m.q_lora_rank = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.mla.as_ref(), c.template.mla.as_ref(), FRESH_MLA, |m| m.q_lora_rank),
        architecture: true,
        doc: doc!("the preset's", "latent attention: rank of the query latent (0: a direct q_proj)"),
    },
    KvLoraRank = "kv_lora_rank" {
        label: ("KV latent rank", "KV 潜向量秩"),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: |s, v| {
            set_mla(s, |m| m.kv_lora_rank = v.uint());
            Ok(())
        },
        write: |s, c| match (&s.architecture.mla, &c.template.mla) {
            (Some(m), None) => Some(m.kv_lora_rank.to_string()),
            (None, Some(_)) => Some("0".into()),
            (v, t) => sub(v.as_ref(), t.as_ref(), FRESH_MLA, |m| m.kv_lora_rank),
        },
        architecture: true,
        doc: doc!("the preset's (0 = no latent attention)", "latent attention (DeepSeek-V2/V3, Kimi-K2): rank of the key/value latent; > 0 turns it on, and a serving engine's KV cache holds kv_lora_rank + qk_rope_head_dim values per token and layer (transformers' `generate()` every head's decompressed K and V)"),
    },
    QkRopeHeadDim = "qk_rope_head_dim" {
        label: ("Rotary head dim", "旋转位置头维度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_mla(s, |m| m.qk_rope_head_dim = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.mla.as_ref(), c.template.mla.as_ref(), FRESH_MLA, |m| m.qk_rope_head_dim),
        architecture: true,
        doc: doc!("the preset's", "latent attention: the rotary part of each query/key head (and of the cached key)"),
    },
    QkNopeHeadDim = "qk_nope_head_dim" {
        label: ("Non-rotary head dim", "非旋转头维度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_mla(s, |m| m.qk_nope_head_dim = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.mla.as_ref(), c.template.mla.as_ref(), FRESH_MLA, |m| m.qk_nope_head_dim),
        architecture: true,
        doc: doc!("the preset's", "latent attention: the non-rotary part of each query/key head"),
    },
    VHeadDim = "v_head_dim" {
        label: ("Value head dim", "值头维度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_mla(s, |m| m.v_head_dim = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.mla.as_ref(), c.template.mla.as_ref(), FRESH_MLA, |m| m.v_head_dim),
        architecture: true,
        doc: doc!("the preset's", "latent attention: dimension of each value head"),
    },
    IndexHeads = "index_heads" {
        label: label_for_worker!(("Indexer heads", "索引器头数")),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: set_for_worker!(IndexHeads, |s, v| {
            let head_dim = s.architecture.indexer.map_or(FRESH_INDEXER.head_dim, |i| i.head_dim);
            s.architecture.indexer = (v.uint() > 0).then_some(IndexerSpec { heads: v.uint(), head_dim });
            Ok(())
        }),
        write: write_for_worker!(IndexHeads, |s, c| {
            let heads = |a: &Architecture| a.indexer.map_or(0, |i| i.heads);
            differs(heads(&s.architecture), heads(c.template))
        }),
        architecture: true,
        doc: doc!("0 (none)", "DeepSeek Sparse Attention's lightning indexer beside latent attention (DeepSeek-V3.2: 64, config.json's `index_n_heads`): its heads' query projection from the query latent, one key, a LayerNorm and a weight per head in every layer, and in vLLM and SGLang its own key cache of index_head_dim fp8 values and an fp32 scale per 128 per token and layer; billed by the reader worker"),
    },
    IndexHeadDim = "index_head_dim" {
        label: label_for_worker!(("Indexer head dim", "索引器头维度")),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: set_for_worker!(IndexHeadDim, |s, v| {
            if let Some(i) = &mut s.architecture.indexer {
                i.head_dim = v.uint();
            }
            Ok(())
        }),
        write: write_for_worker!(IndexHeadDim, |s, c| sub(s.architecture.indexer.as_ref(), c.template.indexer.as_ref(), FRESH_INDEXER, |i| i.head_dim)),
        architecture: true,
        doc: doc!("128", "the lightning indexer's head width (config.json's `index_head_dim`); with index_heads"),
    },
    LinearKHeads = "linear_k_heads" {
        label: ("Linear-attention key heads", "线性注意力键头数"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_linear(s, |l| l.k_heads = v.uint());
            Ok(())
        },
        write: |s, c| match (&s.architecture.linear, &c.template.linear) {
            (Some(l), None) => Some(l.k_heads.to_string()),
            (v, t) => sub(v.as_ref(), t.as_ref(), FRESH_LINEAR, |l| l.k_heads),
        },
        architecture: true,
        doc: doc!("the preset's", "linear attention (L layers, Gated DeltaNet): key heads"),
    },
    LinearVHeads = "linear_v_heads" {
        label: ("Linear-attention value heads", "线性注意力值头数"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_linear(s, |l| l.v_heads = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.linear.as_ref(), c.template.linear.as_ref(), FRESH_LINEAR, |l| l.v_heads),
        architecture: true,
        doc: doc!("the preset's", "linear attention: value heads (the state is v_heads × head_dim × head_dim per sequence)"),
    },
    LinearHeadDim = "linear_head_dim" {
        label: ("Linear-attention head dim", "线性注意力头维度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_linear(s, |l| l.head_dim = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.linear.as_ref(), c.template.linear.as_ref(), FRESH_LINEAR, |l| l.head_dim),
        architecture: true,
        doc: doc!("the preset's", "linear attention: dimension of each head"),
    },
    LinearConv = "linear_conv" {
        label: ("Linear-attention conv taps", "线性注意力卷积宽度"),
        read: Read::Uint { min: 1, max: 64 },
        set: |s, v| {
            set_linear(s, |l| l.conv = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.linear.as_ref(), c.template.linear.as_ref(), FRESH_LINEAR, |l| l.conv),
        architecture: true,
        doc: doc!("the preset's", "linear attention: taps of its short convolution"),
    },
    LinearState = "linear_state" {
        label: ("Mamba-2 state size", "Mamba-2 状态维度"),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: |s, v| {
            set_linear(s, |l| l.ssm_state = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.linear.as_ref(), c.template.linear.as_ref(), FRESH_LINEAR, |l| l.ssm_state),
        architecture: true,
        doc: doc!("the preset's (0: Gated DeltaNet)", "the linear-attention layers' mixer: 0 = Gated DeltaNet (Qwen3-Next, Qwen3.5); N > 0 = Mamba-2 with state size N (Granite-4.0-H, Bamba: linear_v_heads = its heads of linear_head_dim, linear_k_heads = its groups of B and C, the state v_heads × head_dim × N per sequence)"),
    },
    ShortConv = "short_conv" {
        label: ("Gated short convolution", "门控短卷积"),
        read: Read::Flag,
        // `short_conv=0` leaves a model without linear layers without them.
        set: |s, v| {
            if v.flag() || s.architecture.linear.is_some() {
                set_linear(s, |l| l.short_conv = v.flag());
            }
            Ok(())
        },
        write: |s, c| sub_flag(s.architecture.linear.as_ref(), c.template.linear.as_ref(), FRESH_LINEAR, |l| l.short_conv),
        architecture: true,
        doc: doc!("0", "the linear layers are LFM2's gated short convolutions (`conv` in `layer_types`): in_proj to B, C and x of linear_v_heads × linear_head_dim channels each (LFM2: 1 × hidden), a depthwise convolution of linear_conv taps over B·x, C times its output, out_proj; each sequence keeps only the taps (linear_conv − 1 of them in vLLM and llama.cpp, all of them in transformers' cache), no recurrent state"),
    },
    SideBySide = "side_by_side" {
        label: label_for_worker!(("Mixer beside attention", "混合器与注意力并行")),
        read: Read::Flag,
        // `side_by_side=0` leaves a model without linear layers without them.
        set: set_for_worker!(SideBySide, |s, v| {
            if v.flag() || s.architecture.linear.is_some() {
                set_linear(s, |l| l.side_by_side = v.flag());
            }
            Ok(())
        }),
        write: write_for_worker!(SideBySide, |s, c| sub_flag(s.architecture.linear.as_ref(), c.template.linear.as_ref(), FRESH_LINEAR, |l| l.side_by_side)),
        architecture: true,
        doc: doc!("0", "each linear (M) block runs beside the attention block after it, on the same input, the two one decoder layer (Falcon-H1: the config.json import sets it): a checkpointed step keeps one input for the pair and recomputes both; billed by the reader worker"),
    },
    SharedExperts = "shared_experts" {
        label: ("Shared experts", "共享专家数"),
        read: Read::Uint { min: 0, max: 1024 },
        set: |s, v| {
            set_moe(s, |m| m.shared = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.moe.as_ref(), c.template.moe.as_ref(), FRESH_MOE, |m| m.shared),
        architecture: true,
        doc: doc!("the preset's", "mixture of experts: always-on shared experts per MoE layer"),
    },
    SharedFfn = "shared_ffn" {
        label: ("Shared expert size", "共享专家宽度"),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: |s, v| {
            set_moe(s, |m| m.shared_ffn = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.moe.as_ref(), c.template.moe.as_ref(), FRESH_MOE, |m| m.shared_ffn),
        architecture: true,
        doc: doc!("the preset's", "mixture of experts: intermediate size of one shared expert"),
    },
    DenseLayers = "dense_layers" {
        label: ("Dense first layers", "前若干稠密层"),
        read: Read::Uint { min: 0, max: 10_000 },
        set: |s, v| {
            set_moe(s, |m| m.dense_layers = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.moe.as_ref(), c.template.moe.as_ref(), FRESH_MOE, |m| m.dense_layers),
        architecture: true,
        doc: doc!("the preset's", "mixture of experts: the first k layers have a dense MLP (DeepSeek's first_k_dense_replace)"),
    },
    DenseFfn = "dense_ffn" {
        label: ("Dense MLP size", "稠密层 MLP 宽度"),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: |s, v| {
            set_moe(s, |m| m.dense_ffn = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.moe.as_ref(), c.template.moe.as_ref(), FRESH_MOE, |m| m.dense_ffn),
        architecture: true,
        doc: doc!("the preset's (0 = ffn)", "mixture of experts: intermediate size of the dense layers"),
    },
    MoeStep = "moe_step" {
        label: ("MoE every n layers", "每 n 层一个 MoE"),
        read: Read::Uint { min: 1, max: 10_000 },
        set: |s, v| {
            set_moe(s, |m| m.step = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.moe.as_ref(), c.template.moe.as_ref(), FRESH_MOE, |m| m.step),
        architecture: true,
        doc: doc!("the preset's (1)", "mixture of experts: every n-th layer has experts, the others a dense MLP (Llama-4 Maverick: 2)"),
    },
    RouterBias = "router_bias" {
        label: ("Router bias", "路由偏置"),
        read: Read::Flag,
        set: |s, v| {
            set_moe(s, |m| m.router_bias = v.flag());
            Ok(())
        },
        write: |s, c| sub_flag(s.architecture.moe.as_ref(), c.template.moe.as_ref(), FRESH_MOE, |m| m.router_bias),
        architecture: true,
        doc: doc!("the preset's", "mixture of experts: a bias per expert on the router (gpt-oss, DeepSeek-V3)"),
    },
    SharedGate = "shared_gate" {
        label: ("Shared-expert gate", "共享专家门"),
        read: Read::Flag,
        set: |s, v| {
            set_moe(s, |m| m.shared_gate = v.flag());
            Ok(())
        },
        write: |s, c| sub_flag(s.architecture.moe.as_ref(), c.template.moe.as_ref(), FRESH_MOE, |m| m.shared_gate),
        architecture: true,
        doc: doc!("the preset's", "mixture of experts: a sigmoid gate on the shared experts (Qwen2-MoE, Qwen3-Next)"),
    },
    DenseExperts = "dense_experts" {
        label: ("All experts per token", "每个 token 算全部专家"),
        read: Read::Flag,
        set: |s, v| {
            set_moe(s, |m| m.dense_experts = v.flag());
            Ok(())
        },
        write: |s, c| sub_flag(s.architecture.moe.as_ref(), c.template.moe.as_ref(), FRESH_MOE, |m| m.dense_experts),
        architecture: true,
        doc: doc!("the preset's (1 for Llama-4)", "mixture of experts: every routed expert runs over every token, scaled by its router score (transformers' Llama-4: one batched matmul over all experts), so a layer's expert activations are those of all experts, not the active ones"),
    },
    Vision = "vision" {
        label: ("Vision tower", "视觉塔"),
        read: Read::Word(|| VISION_KINDS.iter().map(|(id, _)| *id).collect()),
        set: |s, v| {
            let kind = VISION_KINDS.iter().find(|(id, _)| *id == v.word()).ok_or(())?.1;
            s.architecture.vision = kind.and_then(|k| s.architecture.vision.filter(|t| t.kind == k).or_else(|| default_tower(k)));
            Ok(())
        },
        write: |s, c| differs(vision_id(s.architecture.vision.as_ref()), vision_id(c.template.vision.as_ref())),
        architecture: true,
        doc: doc!("none, qwen2vl, qwen25vl, qwen3vl, siglip, llama4, pixtral, gemma4, internvl", "the preset's", "the vision tower (its layout and how many tokens an image becomes); internvl = InternViT-300M (InternVL 2.5–3.5): 448 px tiles of 256 tokens by the aspect ratio nearest the image's, up to 12 and a thumbnail"),
    },
    VisionBlocks = "vision_blocks" {
        label: ("Vision blocks", "视觉塔层数"),
        read: Read::Uint { min: 1, max: 10_000 },
        set: |s, v| {
            set_vision(s, |t| t.blocks = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.vision.as_ref(), c.template.vision.as_ref().filter(|t| Some(t.kind) == s.architecture.vision.map(|v| v.kind)), fresh_tower(s), |t| t.blocks),
        architecture: true,
        doc: doc!("the preset's", "vision tower: blocks"),
    },
    VisionDim = "vision_dim" {
        label: ("Vision width", "视觉塔宽度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_vision(s, |t| t.dim = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.vision.as_ref(), c.template.vision.as_ref().filter(|t| Some(t.kind) == s.architecture.vision.map(|v| v.kind)), fresh_tower(s), |t| t.dim),
        architecture: true,
        doc: doc!("the preset's", "vision tower: width"),
    },
    VisionHeads = "vision_heads" {
        label: ("Vision heads", "视觉塔头数"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_vision(s, |t| t.heads = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.vision.as_ref(), c.template.vision.as_ref().filter(|t| Some(t.kind) == s.architecture.vision.map(|v| v.kind)), fresh_tower(s), |t| t.heads),
        architecture: true,
        doc: doc!("the preset's", "vision tower: attention heads"),
    },
    VisionFfn = "vision_ffn" {
        label: ("Vision MLP size", "视觉塔 MLP 宽度"),
        read: Read::Uint { min: 1, max: MAX_DIM },
        set: |s, v| {
            set_vision(s, |t| t.mlp = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.vision.as_ref(), c.template.vision.as_ref().filter(|t| Some(t.kind) == s.architecture.vision.map(|v| v.kind)), fresh_tower(s), |t| t.mlp),
        architecture: true,
        doc: doc!("the preset's", "vision tower: MLP intermediate size"),
    },
    VisionPatch = "vision_patch" {
        label: ("Vision patch (px)", "视觉 patch(px)"),
        read: Read::Uint { min: 1, max: 4096 },
        set: |s, v| {
            set_vision(s, |t| t.patch = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.vision.as_ref(), c.template.vision.as_ref().filter(|t| Some(t.kind) == s.architecture.vision.map(|v| v.kind)), fresh_tower(s), |t| t.patch),
        architecture: true,
        doc: doc!("the preset's", "vision tower: patch side in pixels"),
    },
    VisionOut = "vision_out" {
        label: ("Vision projector width", "视觉投影宽度"),
        read: Read::Uint { min: 0, max: MAX_DIM },
        set: |s, v| {
            set_vision(s, |t| t.out_dim = v.uint());
            Ok(())
        },
        write: |s, c| sub(s.architecture.vision.as_ref(), c.template.vision.as_ref().filter(|t| Some(t.kind) == s.architecture.vision.map(|v| v.kind)), fresh_tower(s), |t| t.out_dim),
        architecture: true,
        doc: doc!("the preset's", "vision tower: the projector's hidden width (Llama-4's adapter: 4096)"),
    },
    VisionDeepstack = "vision_deepstack" {
        label: label_for_worker!(("Vision tower: DeepStack mergers", "视觉塔:DeepStack 合并层")),
        read: Read::Uint { min: 0, max: 64 },
        set: set_for_worker!(VisionDeepstack, |s, v| {
            set_vision(s, |t| t.deepstack = v.uint());
            Ok(())
        }),
        write: write_for_worker!(VisionDeepstack, |s, c| sub(s.architecture.vision.as_ref(), c.template.vision.as_ref().filter(|t| Some(t.kind) == s.architecture.vision.map(|v| v.kind)), fresh_tower(s), |t| t.deepstack)),
        architecture: true,
        doc: doc!("the preset's (3 for Qwen3-VL)", "vision tower: Qwen3-VL's DeepStack mergers, each a LayerNorm and a two-layer MLP into the language model (`deepstack_visual_indexes`: three); Qwen3.5's tower has none, which its config.json import writes as 0"),
    },
    MaxSoftTokens = "max_soft_tokens" {
        label: ("Image token budget", "每张图的 token 预算"),
        read: Read::Word(|| GEMMA4_BUDGETS.to_vec()),
        set: |s, v| {
            let budget = GEMMA4_BUDGETS.contains(&v.word()).then(|| v.word().parse::<u64>().ok()).flatten().ok_or(())?;
            set_vision(s, |t| {
                if t.kind == VisionKind::Gemma4 {
                    t.max_tokens = budget;
                }
            });
            Ok(())
        },
        // Every Gemma-4 config's `default_output_length` is the tower's 280 (no preset has a tower of
        // its own kind).
        write: |s, _| {
            let default = presets::GEMMA4_TOWER.max_tokens;
            let budget = s.architecture.vision.filter(|v| v.kind == VisionKind::Gemma4).map_or(default, |v| v.max_tokens);
            differs(budget, default)
        },
        architecture: true,
        doc: doc!("the config's `default_output_length` (280)", "a Gemma-4 tower: the image processor's soft-token budget per image (`max_soft_tokens`, `processor(..., max_soft_tokens=N)` or vLLM's `--mm-processor-kwargs`; transformers accepts only these five): an image keeps its aspect and is resized to the most whole 48 px squares within 9 × the budget patches, one token each, and the tower runs 9 × the budget patch positions whatever the image"),
    },
    AudioParams = "audio_params" {
        label: ("Audio encoder parameters", "音频编码器参数量"),
        read: Read::Uint { min: 0, max: MAX_PARAMS },
        set: |s, v| {
            s.architecture.audio_encoder = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.architecture.audio_encoder, c.template.audio_encoder),
        architecture: true,
        doc: doc!("0", "an audio encoder's parameters beside the language model (Qwen3-Omni's thinker: 647,927,168), billed frozen in 16 bits with the vision tower"),
    },
    Checkpoint = "checkpoint" {
        label: ("Checkpoint format", "检查点存储格式"),
        read: Read::Word(|| ids(&StorageFormat::ALL, StorageFormat::id)),
        set: |s, v| keyword(v.word(), StorageFormat::from_id, |f| s.architecture.checkpoint.0 = f),
        write: |s, c| (s.architecture.checkpoint.0 != c.template.checkpoint.0).then(|| s.architecture.checkpoint.0.id().into()),
        architecture: true,
        doc: doc!("a weight format (as `quant`)", "the preset's (bf16)", "the format the published checkpoint stores (the default of `quant` for inference): mxfp4 for gpt-oss, fp8_block for DeepSeek-V3"),
    },
    CheckpointLayers = "checkpoint_layers" {
        label: ("Checkpoint format covers", "检查点格式覆盖的层"),
        read: Read::Word(|| ids(&QuantLayers::ALL, QuantLayers::id)),
        set: |s, v| keyword(v.word(), QuantLayers::from_id, |q| s.architecture.checkpoint.1 = q),
        write: |s, c| (s.architecture.checkpoint.1 != c.template.checkpoint.1).then(|| s.architecture.checkpoint.1.id().into()),
        architecture: true,
        doc: doc!("the preset's (all)", "the linear layers the checkpoint's format covers: all, mlp, experts"),
    },
    Mode = "mode" {
        label: ("Mode", "场景"),
        read: Read::Word(|| ids(Mode::ALL, Mode::id)),
        set: |s, v| keyword(v.word(), Mode::from_id, |m| set_mode(s, m)),
        write: |s, c| differs(s.mode.id(), c.default.mode.id()),
        architecture: false,
        doc: doc!("train", "a training step or inference"),
    },
    Method = "method" {
        label: ("Method", "方法"),
        read: Read::Word(|| ids(Method::ALL, Method::id)),
        set: |s, v| keyword(v.word(), Method::from_id, |m| set_method(s, m)),
        write: |s, c| differs(s.method.id(), c.default.method.id()),
        architecture: false,
        doc: doc!("lora", "what trains: every weight, LoRA adapters on a 16-bit/8-bit base, or adapters on a 4-bit base"),
    },
    Framework = "framework" {
        label: ("I train with", "我用的训练框架"),
        read: Read::Word(|| ids(Framework::ALL, Framework::id)),
        set: |s, v| keyword(v.word(), Framework::from_id, |f| s.framework = f),
        // Against `hf`: the context's defaults are this framework's own.
        write: |s, _| differs(s.framework.id(), Framework::Hf.id()),
        architecture: false,
        doc: doc!("hf", "the training framework (training): its release's defaults fill the keys the link leaves out — checkpointing, loss, recipe, optimizer, precision, loop, allocator, ZeRO-3's implementation, sync_module_states (docs/frameworks.md, with each default's source line); a key the link sets wins, and the bill's note lists what the framework set. hf = the transformers Trainer as the other keys' defaults describe it; megatron = Megatron-Core / Megatron-SWIFT; answerai = fsdp_qlora's train.py"),
    },
    FrameworkVersion = "framework_version" {
        label: ("Release", "版本"),
        read: Read::Text(MsgId::HintFrameworkVersion),
        set: |s, v| Release::parse(v.word()).map(|r| s.framework_version = Some(r)).ok_or(()),
        write: |s, _| s.framework_version.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("a release: 5.25, 1.9, 2026.8.19", "the newest release the framework's rules were read from (docs/frameworks.md)", "the framework's release (transformers' for hf): the rules that changed between releases follow it"),
    },
    Precision = "precision" {
        label: ("Precision", "精度"),
        read: Read::Word(|| ids(Precision::ALL, Precision::id)),
        set: |s, v| keyword(v.word(), Precision::from_id, |p| s.precision = p),
        write: |s, c| differs(s.precision.id(), c.default.precision.id()),
        architecture: false,
        doc: doc!("mixed", "mixed = bf16 weights + fp32 master weights and optimizer states (2+2+8+4 B/param with AdamW; under zero=3 FSDP shards the fp32 weights and gradients, the bf16 copy only in the gathered layers); bf16 = all bf16; fp32 = all fp32; fp8 = mixed with torchao's float8 linears (they save their bf16 inputs for backward, so activations are as mixed) and FSDP2's float8 all-gather: with zero=3 the gathered layers are fp8, 1 B/param"),
    },
    Quant = "quant" {
        label: ("Weight format", "权重存储格式"),
        read: Read::Word(|| ids(&StorageFormat::ALL, StorageFormat::id)),
        set: |s, v| keyword(v.word(), StorageFormat::from_id, |f| s.quant = f),
        write: |s, _| differs(s.quant.id(), Scenario::default_quant(s.mode, s.method, &s.architecture).id()),
        architecture: false,
        doc: doc!("bf16 (nf4 for method=qlora)", "how stored weights are kept: the frozen base for LoRA/QLoRA, the served weights for inference (ignored by full fine-tuning)"),
    },
    QuantLayers = "quant_layers" {
        label: ("Quantized layers", "量化覆盖的层"),
        read: Read::Word(|| ids(&QuantLayers::ALL, QuantLayers::id)),
        set: |s, v| {
            let q = QuantLayers::from_id(v.word()).ok_or(())?;
            s.quant_layers = None;
            s.quant_layers = (q != s.quant_layers()).then_some(q);
            Ok(())
        },
        write: |s, _| s.quant_layers.map(|q| q.id().into()),
        architecture: false,
        doc: doc!("as the checkpoint (all for a format it does not use)", "which linear layers `quant` covers: all, mlp (MLPs and experts), experts (routed experts only); the rest stays 16-bit"),
    },
    Keep16 = "keep16" {
        label: ("Linears kept 16-bit", "保留 16 位的线性层"),
        read: Read::Uint { min: 0, max: 1 << 50 },
        set: |s, v| {
            s.keep16 = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.keep16, c.default.keep16),
        architecture: false,
        doc: doc!("0", "parameters of the linears `quant` covers that the checkpoint keeps 16-bit all the same: `llm_int8_skip_modules` naming single layers, as in Unsloth's dynamic 4-bit checkpoints (`model.layers.1.mlp`); the config.json import counts them"),
    },
    FusedExperts = "fused_experts" {
        label: label_for_worker!(("MoE experts under bitsandbytes", "bitsandbytes 下的 MoE 专家")),
        read: Read::Word(|| vec!["0", "1", "16bit"]),
        set: set_for_worker!(FusedExperts, |s, v| {
            s.fused_experts = ExpertStorage::from_id(v.word()).ok_or(())?;
            Ok(())
        }),
        write: write_for_worker!(FusedExperts, |s, c| (s.fused_experts != c.default.fused_experts).then(|| s.fused_experts.id().to_string())),
        architecture: false,
        doc: doc!("0, 1, 16bit", "16bit (transformers ≥ 5: `0` for `generate()` before 5.0)", "how a MoE's routed experts are held when bitsandbytes loads the model (QLoRA, LoRA on int8, `generate()` of an NF4 or int8 checkpoint): 16bit = transformers 5's fused 3-D expert parameters, which bitsandbytes leaves in 16 bits (`replace_with_bnb_linear` swaps `nn.Linear` only: 5.0.0–5.25.0); 1 = fused and quantized on load by a parametrization (Axolotl's `quantize_moe_experts`, unsloth-zoo ≥ 2026.6.2): each access dequantizes a whole layer's experts, cached for the layer's forward and kept for its backward (one layer under checkpointing, every MoE layer without); 0 = one `nn.Linear` per expert (transformers 4, Unsloth's gpt-oss), quantized with the other linears. The frameworks set it by release (docs/frameworks.md)"),
    },
    Dq = "dq" {
        label: ("Double quantization", "双重量化"),
        read: Read::Flag,
        set: |s, v| {
            s.double_quant = v.flag();
            Ok(())
        },
        write: |s, c| (s.double_quant != c.default.double_quant).then(|| flag_text(s.double_quant)),
        architecture: false,
        doc: doc!("1", "NF4 double quantization (QLoRA's default)"),
    },
    QuantHead = "quant_head" {
        label: ("LM head quantized too", "LM head 也量化"),
        read: Read::Flag,
        set: |s, v| {
            s.quant_head = v.flag();
            Ok(())
        },
        write: |s, c| (s.quant_head != c.default.quant_head).then(|| flag_text(s.quant_head)),
        architecture: false,
        doc: doc!("0", "the LM head quantized with the linear layers (an untied head; a quantized `quant` only): Lightning's BitsandbytesPrecision, LitGPT's `--quantize`, swaps every nn.Linear and quantizes from fp16, so each dequantization of the head holds an fp16 and a bf16 copy of it; 0 = transformers with bitsandbytes, which skip the head"),
    },
    Optim = "optim" {
        label: ("Optimizer", "优化器"),
        read: Read::Word(|| ids(Optimizer::ALL, Optimizer::id)),
        set: |s, v| keyword(v.word(), Optimizer::from_id, |o| s.optimizer = o),
        write: |s, c| differs(s.optimizer.id(), c.default.optimizer.id()),
        architecture: false,
        doc: doc!("adamw", "optimizer: adamw = PyTorch's AdamW, whose default foreach step holds a full-size temporary (one state's size); adamw_fused = AdamW stepped in place by a fused kernel, no step temporaries: DeepSpeed's FusedAdam, which a ds_config `optimizer` of type Adam or AdamW builds unless `torch_adam` (runtime/engine.py `_configure_basic_optimizer`), torch's `fused=True`, the Trainer's `adamw_torch_fused`; adamw8bit = bitsandbytes' 8-bit AdamW; sgd, sgdm = SGD without and with momentum; adafactor = factored second moments"),
    },
    Seq = "seq" {
        label: ("Sequence length (tokens)", "序列长度 (tokens)"),
        read: Read::Uint { min: 1, max: MAX_SEQ },
        set: |s, v| {
            s.seq = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.seq, c.default.seq),
        architecture: false,
        doc: doc!("2048", "tokens per sequence (the prompt, for inference); vision tokens are added to it. In training it is the longest padded batch: without packing each batch is padded to its longest sample, so it is the framework's max_seq_length (cutoff_len, sequence_len) only when samples reach it or are packed — a run on short samples peaks at their length, not at the cap"),
    },
    Batch = "batch" {
        label: ("Micro-batch (per GPU)", "micro-batch(每卡)"),
        read: Read::Uint { min: 1, max: MAX_BATCH },
        set: |s, v| {
            s.batch = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.batch, c.default.batch),
        architecture: false,
        doc: doc!("1", "micro-batch per GPU (concurrent sequences, for inference)"),
    },
    Accum = "accum" {
        label: ("Gradient accumulation", "梯度累积步数"),
        read: Read::Uint { min: 1, max: 1_000_000 },
        set: |s, v| {
            s.accum = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.accum, c.default.accum),
        architecture: false,
        doc: doc!("1", "gradient accumulation steps (no memory; shown as the effective batch)"),
    },
    Rank = "rank" {
        label: ("LoRA rank r", "LoRA 秩 r"),
        read: Read::Uint { min: 1, max: 65_536 },
        set: |s, v| {
            s.rank = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.rank, c.default.rank),
        architecture: false,
        doc: doc!("16", "LoRA rank r"),
    },
    Targets = "targets" {
        label: ("LoRA targets", "LoRA 目标层"),
        read: Read::Word(|| ids(LoraTargets::ALL, LoraTargets::id)),
        set: |s, v| keyword(v.word(), LoraTargets::from_id, |t| s.targets = t),
        write: |s, c| differs(s.targets.id(), c.default.targets.id()),
        architecture: false,
        doc: doc!("all", "linear layers with LoRA adapters"),
    },
    Gc = "gc" {
        label: ("Gradient checkpointing", "gradient checkpointing"),
        read: Read::Word(|| ids(Checkpointing::ALL, Checkpointing::id)),
        set: |s, v| keyword(v.word(), Checkpointing::from_id, |c| s.checkpointing = c),
        write: |s, c| (s.checkpointing != c.default.checkpointing).then(|| s.checkpointing.id().to_string()),
        architecture: false,
        doc: doc!("0, 1, reentrant, sac", "1", "gradient checkpointing per decoder layer (1 = non-reentrant: transformers 5's default, TRL ≥ 0.28); reentrant = torch's reentrant checkpoint, transformers 4's `gradient_checkpointing_enable()` without kwargs and LLaMA-Factory's `use_reentrant_gc` default (off under FSDP2) — under FSDP over frozen units (LoRA, QLoRA) FSDP1 then keeps every layer's input gradient until backward ends (with gc=1 there that is the range's high end) when the checkpoint wraps each FSDP unit from outside, as transformers' does — one applied inside each unit (torch's apply_activation_checkpointing after wrapping: Answer.AI's train.py) retains nothing and is gc=1; sac = selective, torchtitan's per-op policy (each layer keeps every other matmul's output and the attention kernel's, the rest recomputed)"),
    },
    Mask = "mask" {
        label: ("Attention mask (remote code)", "注意力掩码(远程代码)"),
        read: Read::Word(|| ids(AttentionMask::ALL, AttentionMask::id)),
        set: |s, v| keyword(v.word(), AttentionMask::from_id, |m| s.mask = m),
        write: |s, c| differs(s.mask.id(), c.default.mask.id()),
        architecture: false,
        doc: doc!("causal", "inference with engine=hf: causal = transformers' own model classes; full = ChatGLM's remote code (modeling_chatglm.py of ChatGLM2/3 and GLM-4-9B, which the config importer recognises by its auto_map), whatever the transformers release: it projects only the last position (return_last_logit) and grows the prompt's cache by torch.cat after each layer (`presents`), so its prefill is replayed tensor by tensor through PyTorch's caching allocator, whose fragmentation the bill's slack then carries (GLM-4-9B-Chat at a 128k prompt: 21 GiB live, 38 GiB reserved beyond the weights). It builds a (batch, 1, s, s) mask only under eager attention (CoreAttention, with its s² scores) or for a padded batch (`(attention_mask is not None and not attention_mask.all()) or (past_key_values and seq_length != 1)`); SDPA and FlashAttention-2 run is_causal without one. The replay runs for the whole model on one GPU; with tp or a device map the layer rule stands"),
    },
    Attn = "attn" {
        label: ("Attention kernel", "注意力实现"),
        read: Read::Word(|| ids(AttentionKernel::ALL, AttentionKernel::id)),
        set: |s, v| keyword(v.word(), AttentionKernel::from_id, |k| s.attention = k),
        write: |s, c| differs(s.attention.id(), c.default.attention.id()),
        architecture: false,
        doc: doc!("sdpa", "attention kernel; eager stores the s² scores"),
    },
    Bnb = "bnb" {
        label: ("bitsandbytes version", "bitsandbytes 版本"),
        read: Read::Word(|| ids(Bitsandbytes::ALL, Bitsandbytes::id)),
        set: |s, v| keyword(v.word(), Bitsandbytes::from_id, |b| s.bnb = b),
        write: |s, c| differs(s.bnb.id(), c.default.bnb.id()),
        architecture: false,
        doc: doc!("fixed", "bitsandbytes behind a 4-bit base (QLoRA): legacy = before 0.43.2, whose 4-bit layers kept their input for backward; fixed = 0.43.2 on"),
    },
    Loss = "loss" {
        label: ("Loss implementation (logits)", "损失实现(logits)"),
        read: Read::Word(|| ids(LossKernel::ALL, LossKernel::id)),
        set: |s, v| keyword(v.word(), LossKernel::from_id, |l| s.loss = Some(l)),
        write: |s, c| s.loss.filter(|l| *l != c.default.loss.unwrap_or_else(|| s.default_loss())).map(|l| l.id().to_string()),
        architecture: false,
        doc: doc!("hf; selective for objective=dpo|grpo|ppo", "how the loss meets the logits (training): hf = transformers ≥ 4.49 (fp32 upcast + log-softmax, 12 B per logit at its backward), hf_shift = older transformers, through 4.48 (+ a shifted fp32 copy), chunked = chunked cross-entropy (LitGPT, torchtune), fused = fused linear cross-entropy (Liger, Cut Cross-Entropy, Unsloth): one chunk of logits at a time + the input gradient, half = a model's own 16-bit cross-entropy without upcast (remote-code Qwen v1, Baichuan 2, InternLM: 3 × 2 B per logit; under the Trainer's autocast, which runs cross_entropy in fp32, 2 × 2 + 4 + 4 B; DeepSpeed runs no autocast), selective = TRL's selective_log_softmax, which DPO, GRPO and PPO trainers use for per-token log-probabilities (TRL ≥ 0.15, ms-swift, verl without flash-attn): on 16-bit logits (DeepSpeed) each sequence's 16-bit log-softmax beside them, 2 × 2 B per logit; on fp32 logits (the Trainer's mixed precision, whose Accelerate wrapper returns them in fp32, or precision=fp32) the logsumexp path, 16 B per logit at backward (tools/measure_loss.py)"),
    },
    Kernels = "kernels" {
        label: ("Layer kernels", "层的算子实现"),
        read: Read::Word(|| ids(Kernels::ALL, Kernels::id)),
        set: |s, v| keyword(v.word(), Kernels::from_id, |k| s.kernels = k),
        write: |s, c| differs(s.kernels.id(), c.default.kernels.id()),
        architecture: false,
        doc: doc!("hf", "the decoder layer's kernels (training): hf = transformers' modules; liger = Liger's fused RMSNorm, SwiGLU and RoPE (the norm keeps its input and an fp32 value per row, not an fp32 copy; SwiGLU keeps its two inputs and writes its gradients into them); unsloth = the same plus Unsloth's fused LoRA (fast_lora.py: each projection group keeps only its input, the rank-r intermediates and the MLP's product are recomputed in backward). Set with loss=fused for Liger's fused linear cross-entropy; framework=unsloth sets kernels=unsloth"),
    },
    TiledMlp = "tiled_mlp" {
        label: ("MLP in sequence tiles", "MLP 按序列分块"),
        read: Read::Flag,
        set: |s, v| {
            s.tiled_mlp = v.flag();
            Ok(())
        },
        write: |s, c| (s.tiled_mlp != c.default.tiled_mlp).then(|| flag_text(s.tiled_mlp)),
        architecture: false,
        doc: doc!("0", "the MLP (a MoE layer's router and experts too) run in sequence tiles (training): Unsloth's `unsloth_tiled_mlp=True` (unsloth-zoo `tiled_mlp.py`, the \"arctic\" split: ⌊S / h⌋ tiles of a sequence of S tokens), Arctic Long Sequence Training's TiledMLP. The MLP keeps only its input; its backward recomputes one tile at a time beside a full-size input gradient"),
    },
    VisionTrain = "vision_train" {
        label: label_for_worker!(("Vision tower trains too", "视觉塔也参与训练")),
        read: Read::Flag,
        set: set_for_worker!(VisionTrain, |s, v| {
            s.vision_train = v.flag();
            Ok(())
        }),
        write: write_for_worker!(VisionTrain, |s, c| (s.vision_train != c.default.vision_train).then(|| flag_text(s.vision_train))),
        architecture: false,
        doc: doc!("0 (Unsloth's LoRA: 1)", "a VLM's vision tower trains too (training): Unsloth's `finetune_vision_layers` (its `get_peft_model` default, which `framework=unsloth` sets for LoRA and QLoRA), LLaMA-Factory's `freeze_vision_tower: false`, ms-swift's `--freeze_vit false`. LoRA and QLoRA put adapters on every block's attention and MLP linears (in the adapter line); full fine-tuning trains the tower's weights (gradients, master copy and optimizer states); the blocks keep their activations for backward over every patch of the batch — under checkpointing each block's input and one block recomputed — where a frozen tower keeps nothing"),
    },
    Recipe = "recipe" {
        label: ("Training recipe", "训练配方"),
        read: Read::Word(|| ids(Recipe::ALL, Recipe::id)),
        set: |s, v| keyword(v.word(), Recipe::from_id, |r| s.recipe = Some(r)),
        write: |s, c| s.recipe.filter(|r| *r != c.default.recipe.unwrap_or_else(|| s.default_recipe())).map(|r| r.id().to_string()),
        architecture: false,
        doc: doc!("peft for LoRA over a bitsandbytes base (QLoRA) unless sharded by ZeRO-3 / FSDP, else plain", "the training recipe: peft = PEFT's prepare_model_for_kbit_training under the Trainer's bf16 autocast (QLoRA tutorials that call it before a Trainer): embedding, LM head and norms cast to fp32, an fp32 residual stream, a bf16 copy of the LM head (undone under DeepSpeed, whose engine casts the module to 16 bits); trl = TRL's SFTTrainer 0.9–0.25 with bf16, which casts the embedding and LM head back to bf16 and keeps the norms in fp32 (the fp32 stream stays); plain = the model as loaded (LitGPT, torchtune, TRL ≥ 0.26, Unsloth); fms = as plain, under fms-acceleration's accelerated PEFT, whose triton GPTQ kernel saves the packed weights for backward where auto-gptq's and GPTQModel's PyTorch dequantization saves each layer's fp16 weights"),
    },
    LoraDropout = "lora_dropout" {
        label: ("LoRA dropout", "LoRA dropout"),
        read: Read::Float { min: 0.0, max: 0.99 },
        set: |s, v| {
            s.lora_dropout = v.float();
            Ok(())
        },
        write: |s, c| (s.lora_dropout != c.default.lora_dropout).then(|| trim_float(s.lora_dropout)),
        architecture: false,
        doc: doc!("0", "LoRA dropout probability: above 0 each adapter keeps its own dropped copy of its input and the mask (1 B per element); 0 = PEFT's identity, nothing kept"),
    },
    Loop = "loop" {
        label: ("Training loop", "训练循环"),
        read: Read::Word(|| ids(TrainingLoop::ALL, TrainingLoop::id)),
        set: |s, v| keyword(v.word(), TrainingLoop::from_id, |l| s.training_loop = l),
        write: |s, c| differs(s.training_loop.id(), c.default.training_loop.id()),
        architecture: false,
        doc: doc!("trainer", "the training loop: trainer = Hugging Face's Trainer, TRL, Accelerate loops (the model's output is dropped before backward); script = a hand-written loop that keeps the output and its logits through backward until the next forward (LitGPT, Answer.AI's train.py, `out = model(**batch); out.loss.backward()`); with bitsandbytes before 0.43.2 it also keeps the previous step's 4-bit layer inputs"),
    },
    Compile = "compile" {
        label: ("torch.compile", "torch.compile 编译"),
        read: Read::Word(|| ids(Compile::ALL, Compile::id)),
        set: |s, v| keyword(v.word(), Compile::from_id, |c| s.compile = c),
        write: |s, c| (s.compile != c.default.compile).then(|| s.compile.id().to_string()),
        architecture: false,
        doc: doc!("0, model, 1", "0", "torch.compile in training: model = the model's layers only, the loss eager (torchtitan's December 2024 benchmark, torchtune's recipes of late 2024); 1 = the model and its loss (transformers computes the loss inside the model; torchtune's chunked loss and torchtitan's components/loss.py compile theirs). Inductor's partitioner recomputes pointwise results in backward instead of saving them — RMSNorm's fp32 copy and normalised value, the SiLU output — and a compiled loss=hf or hf_shift fuses the fp32 upcast and log-softmax, keeping only the logits and their gradient"),
    },
    Gpus = "gpus" {
        label: ("GPUs", "GPU 数"),
        read: Read::Uint { min: 1, max: 100_000 },
        set: |s, v| {
            s.gpus = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.gpus, c.default.gpus),
        architecture: false,
        doc: doc!("1", "data-parallel GPUs (training) or tensor-parallel GPUs (inference); the bill is per GPU"),
    },
    Tp = "tp" {
        label: ("Tensor parallel", "张量并行"),
        read: Read::Uint { min: 1, max: 1024 },
        set: |s, v| {
            s.layout.tp = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.tp, c.default.layout.tp),
        architecture: false,
        doc: doc!("1", "tensor-parallel size of a Megatron-style training grid (with `pp`, `ep`, `etp`, `cp`, `dp`): attention, dense MLPs, shared experts, the embedding and the LM head split over it; the bill is one GPU's, of the worst pipeline stage unless `stage` picks one; `gpus` becomes tp × pp × cp × dp. In inference the tensor-parallel size, as `gpus` is; with `engine=vllm` the CLI bills `pp`, `dp` and `ep` with it (a served grid of tp × pp × dp GPUs), with `engine=sglang` `pp`, `dp` (data-parallel attention: SGLang's `--tp` is tp × dp) and `ep`, with `engine=hf` `pp` (a `device_map=\"auto\"` over pp GPUs); the page and llama.cpp bill one GPU of tp and say so"),
    },
    Pp = "pp" {
        label: ("Pipeline stages", "流水线并行"),
        read: Read::Uint { min: 1, max: 1024 },
        set: |s, v| {
            s.layout.pp = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.pp, c.default.layout.pp),
        architecture: false,
        doc: doc!("1", "pipeline-parallel stages (training grid): each stage holds its layers (as `first_stage_layers` and `last_stage_layers` say, the stages between sharing the rest; without them an uneven rest gives the first stages one more, which Megatron refuses), the first the embedding, the last the LM head and the logits; a stage holds as many micro-batches' activations as `schedule` keeps in flight. Served by vLLM (CLI): stages of `layers / pp` layers, the remainder one each to the stages before the last; each sizes its blocks from its own layers and the engine takes the fewest. With `engine=hf` (CLI): the GPUs of transformers' `device_map=\"auto\"` — accelerate puts whole layers on each in order (every GPU but the last gets the model ÷ pp + 1.25 layers, the first keeps room for its largest module), one GPU works at a time and each runs its own layer's working set; before transformers 4.45 the first also receives the prompt's fp32 logits. The bill is the GPU that needs the most; the JSON's `parallel.allocated_sum` adds up every GPU's peak"),
    },
    Ep = "ep" {
        label: ("Expert parallel", "专家并行"),
        read: Read::Uint { min: 1, max: 1024 },
        set: |s, v| {
            s.layout.ep = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.ep, c.default.layout.ep),
        architecture: false,
        doc: doc!("1", "expert-parallel size (training grid): each GPU holds experts ÷ ep routed experts of every MoE layer; tokens reach them by all-to-all (the dispatch and combine buffers are billed). Served by vLLM (CLI, `--enable-expert-parallel`): any value above 1 turns it on over the expert-parallel group of tp × dp GPUs, whole experts each (the first ranks one more when they do not divide evenly)"),
    },
    Etp = "etp" {
        label: ("Expert tensor parallel", "专家张量并行"),
        read: Read::Uint { min: 1, max: 1024 },
        set: |s, v| {
            s.layout.etp = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.etp, c.default.layout.etp),
        architecture: false,
        doc: doc!("1", "expert tensor parallel (training grid): each routed expert split over etp GPUs; ep × etp must divide tp × cp × dp"),
    },
    Cp = "cp" {
        label: ("Context parallel", "上下文并行"),
        read: Read::Uint { min: 1, max: 1024 },
        set: |s, v| {
            s.layout.cp = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.cp, c.default.layout.cp),
        architecture: false,
        doc: doc!("1", "context-parallel size (training grid): the sequence split over cp GPUs (each holds seq ÷ cp tokens' activations; ring attention's key/value exchange buffers are billed)"),
    },
    Dp = "dp" {
        label: ("Data parallel", "数据并行"),
        read: Read::Uint { min: 1, max: 100000 },
        set: |s, v| {
            s.layout.dp = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.dp, c.default.layout.dp),
        architecture: false,
        doc: doc!("1", "data-parallel replicas of the grid (training); with `dist_optim` the fp32 master weights and optimizer states are sharded over dp × cp. Served by vLLM (CLI): data-parallel ranks of tp GPUs each, a mixture of experts' routed experts split over all tp × dp GPUs, each rank its own KV pool; by SGLang (CLI): data-parallel attention, attention over tp and the rest over SGLang's tp × dp group"),
    },
    Vpp = "vpp" {
        label: ("Virtual stages", "虚拟流水线阶段"),
        read: Read::Uint { min: 1, max: 64 },
        set: |s, v| {
            s.layout.vpp = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.vpp, c.default.layout.vpp),
        architecture: false,
        doc: doc!("1", "virtual pipeline stages per GPU (`schedule=interleaved`)"),
    },
    Microbatches = "microbatches" {
        label: ("Micro-batches per step", "每步微批次数"),
        read: Read::Uint { min: 0, max: 100_000 },
        set: |s, v| {
            s.layout.microbatches = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.microbatches, c.default.layout.microbatches),
        architecture: false,
        doc: doc!("0–100000", "0", "micro-batches per optimizer step in a pipeline (global batch ÷ (micro-batch × dp); 0 = `accum`); a stage never holds more in flight than there are"),
    },
    Stage = "stage" {
        label: ("Pipeline stage billed", "查看的流水线阶段"),
        read: Read::Uint { min: 0, max: 1023 },
        set: |s, v| {
            s.layout.stage = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.layout.stage.map(|x| x.to_string()),
        architecture: false,
        doc: doc!("0–1023", "the worst", "which pipeline stage's GPU the bill is (0 = the first, with the embedding); without it, the stage that needs the most (a served grid: the stage whose layers leave the fewest KV blocks, which the engine takes for every stage; a `device_map`: the GPU that needs the most)"),
    },
    FirstStageLayers = "first_stage_layers" {
        label: ("Layers on the first stage", "第一段的层数"),
        read: Read::Uint { min: 0, max: 100_000 },
        set: |s, v| {
            s.layout.first_stage_layers = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.layout.first_stage_layers.map(|x| x.to_string()),
        architecture: false,
        doc: doc!("0–100000", "an even split", "Megatron's uneven pipeline (`--decoder-first-pipeline-num-layers`; ms-swift's `decoder_first_pipeline_num_layers`): the decoder layers of the first stage, which also holds the embedding (and a VLM's vision tower: fewer layers leave it room); the stages between the first and the last share the rest"),
    },
    LastStageLayers = "last_stage_layers" {
        label: ("Layers on the last stage", "最后一段的层数"),
        read: Read::Uint { min: 0, max: 100_000 },
        set: |s, v| {
            s.layout.last_stage_layers = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.layout.last_stage_layers.map(|x| x.to_string()),
        architecture: false,
        doc: doc!("0–100000", "an even split", "Megatron's uneven pipeline (`--decoder-last-pipeline-num-layers`): the decoder layers of the last stage, which also holds the LM head, the logits and the multi-token-prediction layers"),
    },
    MtpLayers = "mtp_layers" {
        label: ("Multi-token-prediction layers", "多 token 预测层数"),
        read: Read::Uint { min: 0, max: 16 },
        set: |s, v| {
            s.layout.mtp_layers = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.layout.mtp_layers, c.default.layout.mtp_layers),
        architecture: false,
        doc: doc!("0–16", "0", "on a training grid, multi-token-prediction layers trained beside the model (Megatron's `--mtp-num-layers`, ms-swift's `mtp_num_layers`; DeepSeek-V3, GLM-4.5 and MiMo ship one), on the last stage: each a layer like the model's last with `eh_proj` (2h → h) and its norms, its activations, and its own logits' fp32 softmax kept for the backward (4 B per token × vocab ÷ tp); an untied model's later stage builds the embedding too"),
    },
    Sp = "sp" {
        label: ("Sequence parallel", "序列并行"),
        read: Read::Flag,
        set: |s, v| {
            s.layout.sp = v.flag();
            Ok(())
        },
        write: |s, c| (s.layout.sp != c.default.layout.sp).then(|| flag_text(s.layout.sp)),
        architecture: false,
        doc: doc!("0", "sequence parallel over `tp` (Megatron's --sequence-parallel): the norms' inputs and the residual stream split over tp too (without it each tensor-parallel GPU keeps them whole)"),
    },
    DistOptim = "dist_optim" {
        label: ("Distributed optimizer", "分布式优化器"),
        read: Read::Flag,
        set: |s, v| {
            s.layout.dist_optim = v.flag();
            Ok(())
        },
        write: |s, c| (s.layout.dist_optim != c.default.layout.dist_optim).then(|| flag_text(s.layout.dist_optim)),
        architecture: false,
        doc: doc!("0", "Megatron's distributed optimizer (--use-distributed-optimizer): the fp32 master weights and Adam's two moments sharded over dp × cp (the experts' over their own data-parallel group); the fp32 gradient buffer stays whole"),
    },
    Schedule = "schedule" {
        label: ("Pipeline schedule", "流水线调度"),
        read: Read::Word(|| ids(Schedule::ALL, Schedule::id)),
        set: |s, v| {
            keyword(v.word(), Schedule::from_id, |x| s.layout.schedule = x)
        },
        write: |s, c| differs(s.layout.schedule.id(), c.default.layout.schedule.id()),
        architecture: false,
        doc: doc!("1f1b", "a pipeline's schedule: 1f1b = one forward, one backward (stage p of P holds P − p micro-batches in flight); interleaved = 1F1B over `vpp` virtual stages (× 1 + (P − 1) ÷ (P·vpp), Megatron's theoretical_memory_usage.py); gpipe = every micro-batch's forward first (all of them in flight); zb = zero-bubble ZB-H1 (1F1B's count)"),
    },
    Moments = "moments" {
        label: ("Adam moments dtype", "Adam 动量精度"),
        read: Read::Word(|| MOMENT_DTYPES.iter().map(|d| d.0).collect()),
        set: |s, v| {
            keyword(v.word(), |w| MOMENT_DTYPES.iter().find(|d| d.0 == w).map(|d| d.1), |b| s.layout.moment_bytes = b)
        },
        write: |s, c| (s.layout.moment_bytes != c.default.layout.moment_bytes)
            .then(|| MOMENT_DTYPES.iter().find(|d| d.1 == s.layout.moment_bytes).map_or("fp32", |d| d.0).to_string()),
        architecture: false,
        doc: doc!("fp32, bf16, fp16, fp8", "fp32", "on a Megatron grid, the precision-aware optimizer's Adam moments (`--use-precision-aware-optimizer` with `--exp-avg-dtype` and `--exp-avg-sq-dtype`, TransformerEngine's FusedAdam): each moment in 2 B (bf16, fp16) or 1 B (fp8) instead of 4, sharded as the distributed optimizer shards them; the fp32 master weights (`--main-params-dtype fp32`, Megatron's default) cost 2 B, their 16-bit remainders beside the bf16 weights (TransformerEngine's `store_param_remainders`, on by default since TE 2.1)"),
    },
    MainGrads = "main_grads" {
        label: ("main_grad dtype", "main_grad 精度"),
        read: Read::Word(|| vec!["fp32", "bf16"]),
        set: |s, v| {
            keyword(v.word(), |w| match w { "fp32" => Some(4), "bf16" => Some(2), _ => None }, |b| s.layout.main_grad_bytes = b)
        },
        write: |s, c| (s.layout.main_grad_bytes != c.default.layout.main_grad_bytes)
            .then(|| if s.layout.main_grad_bytes == 2 { "bf16" } else { "fp32" }.to_string()),
        architecture: false,
        doc: doc!("fp32, bf16", "fp32", "on a Megatron grid, the gradient buffer `main_grad` (`--main-grads-dtype`, with `--use-precision-aware-optimizer`): 2 B per trained parameter in bf16 instead of 4, never sharded"),
    },
    Zero = "zero" {
        label: ("ZeRO stage", "ZeRO 阶段"),
        read: Read::Uint { min: 0, max: 3 },
        set: |s, v| {
            s.zero = v.uint() as u8;
            Ok(())
        },
        write: |s, c| differs(s.zero, c.default.zero),
        architecture: false,
        doc: doc!("0, 1, 2, 3", "0", "ZeRO stage over `gpus`: 1 and 2 = DeepSpeed's (optimizer states, then gradients sharded; its gradient buckets billed, on one GPU too), 3 = FSDP full shard; on a Megatron-style grid (`tp`, `pp`, `ep`, `cp`, `dp`) 3 = FSDP2 over dp × cp as torchtitan lays it out (under a pipeline the stage stays gathered with its fp32 gradients until the last micro-batch)"),
    },
    ReduceBucketSize = "reduce_bucket_size" {
        label: ("DeepSpeed reduce_bucket_size", "DeepSpeed reduce_bucket_size"),
        read: Read::Uint { min: 1, max: 100_000_000_000 },
        set: |s, v| {
            s.reduce_bucket_size = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.reduce_bucket_size, c.default.reduce_bucket_size),
        architecture: false,
        doc: doc!("1–100000000000", "500000000", "DeepSpeed ZeRO-1/2's `reduce_bucket_size` in elements: each gradient bucket is this many 16-bit values, however few parameters train (DeepSpeed's and LLaMA-Factory's 5e8; ms-swift and Qwen 2e8; Hugging Face's \"auto\" hidden²)"),
    },
    OverlapComm = "overlap_comm" {
        label: ("DeepSpeed overlap_comm", "DeepSpeed overlap_comm"),
        read: Read::Flag,
        set: |s, v| {
            s.overlap_comm = v.flag();
            Ok(())
        },
        write: |s, c| (s.overlap_comm != c.default.overlap_comm).then(|| flag_text(s.overlap_comm)),
        architecture: false,
        doc: doc!("0", "DeepSpeed ZeRO-1/2's `overlap_comm`: 1 doubles the gradient buckets (LLaMA-Factory's and ms-swift's configs set it until March 2025, Qwen's still do)"),
    },
    Zero3 = "zero3" {
        label: ("ZeRO-3 by", "ZeRO-3 实现"),
        read: Read::Word(|| ids(Zero3Impl::ALL, Zero3Impl::id)),
        set: |s, v| keyword(v.word(), Zero3Impl::from_id, |z| s.zero3 = z),
        write: |s, c| differs(s.zero3.id(), c.default.zero3.id()),
        architecture: false,
        doc: doc!("fsdp", "whose ZeRO-3 `zero=3` is (ignored otherwise): fsdp = PyTorch FSDP full shard (mixed precision keeps fp32 shards, the 16-bit copy only in the gathered layers; FSDP1's reentrant-checkpoint retention); deepspeed = DeepSpeed stage 3 (LLaMA-Factory's ds_z3_config, ms-swift's zero3, Qwen's ds_config_zero3, the PEFT guide): 16-bit partitions beside the fp32 master, 16-bit gradient partitions from the start, and at the step an fp32 copy of them (4 B per trainable parameter ÷ GPUs, a `sub_group_size` of 10⁹ at a time) beside the optimizer's temporaries"),
    },
    SyncModuleStates = "sync_module_states" {
        label: ("FSDP sync_module_states", "FSDP sync_module_states"),
        read: Read::Flag,
        set: |s, v| {
            s.sync_module_states = v.flag();
            Ok(())
        },
        write: |s, c| (s.sync_module_states != c.default.sync_module_states).then(|| flag_text(s.sync_module_states)),
        architecture: false,
        doc: doc!("0", "FSDP1 initialised with `sync_module_states` (rank 0 holds the loaded weights and broadcasts each unit: Answer.AI's train.py, Accelerate's `fsdp_cpu_ram_efficient_loading`): the copies the wrapping moves, broadcasts and flattens stay cached on rank 0 (2 × the root unit + the LM head + 3 × a layer, unsharded), and what the step's tensors leave of them unfilled stays reserved; zero=3 with FSDP only, not with expandable segments"),
    },
    Offload = "offload" {
        label: ("CPU offload", "CPU 卸载(offload)"),
        read: Read::Word(|| ids(Offload::ALL, Offload::id)),
        set: |s, v| keyword(v.word(), Offload::from_id, |o| s.offload = o),
        write: |s, c| differs(s.offload.id(), c.default.offload.id()),
        architecture: false,
        doc: doc!("none", "CPU offload under `zero` 1–3 (training; ignored with a note without ZeRO): optimizer = DeepSpeed's offload_optimizer (ZeRO-Offload: fp32 master weights, optimizer states and gradients in host RAM, the step on the CPU; on the GPU one parameter's gradient at a time on its way out); all = the parameter shards too (ZeRO-3's offload_param, FSDP's CPUOffload(offload_params=True), LLaMA-Factory's ds_z3_offload_config, Answer.AI's --use_cpu_offload): only the gathered units stay; a note gives the host RAM per process; DeepSpeed 0.14.1–0.16.x's copy of the fp32 partition to the GPU at each ZeRO-1/2 step is the range's high end; on a Megatron-style grid (`tp`, `pp`, `ep`, `cp`, `dp`, `dist_optim`) optimizer or all = Megatron's optimizer CPU offload: the fp32 master weights and moments in host RAM, the bf16 weights and main_grad on the GPU"),
    },
    Alloc = "alloc" {
        label: ("CUDA allocator", "CUDA 分配器"),
        read: Read::Word(|| ids(Allocator::ALL, Allocator::id)),
        set: |s, v| keyword(v.word(), Allocator::from_id, |a| s.alloc = a),
        write: |s, c| differs(s.alloc.id(), c.default.alloc.id()),
        architecture: false,
        doc: doc!("default", "PyTorch's caching allocator (training): default = its segments, where what a step allocates and frees leaves holes (the slack: 14 % of those tensors); expandable = `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`, one growing segment whose free pages go back before an OOM (the slack: 2 % of them, an allocator replay's bound)"),
    },
    RopeCache = "rope_cache" {
        label: ("RoPE tables", "RoPE 表"),
        read: Read::Word(|| ids(RopeCache::ALL, RopeCache::id)),
        set: |s, v| keyword(v.word(), RopeCache::from_id, |r| s.rope_cache = r),
        write: |s, c| differs(s.rope_cache.id(), c.default.rope_cache.id()),
        architecture: false,
        doc: doc!("none", "RoPE's cos/sin tables resident on the GPU, billed with the weights: none = computed at each forward (transformers' own classes from 4.41, Qwen2's from 4.45; in `engine=hf` inference with `engine_version` below those, they keep layer_full unless the link says otherwise, remote code `mask=full` none; other engines none); model = one pair for the model (Unsloth from 2025.1.1); layer = a pair in every attention layer, max(seq, the model's context) positions up to 32,768, grown in 8,192-token steps for a longer sequence (Unsloth 2024.8 – 2024.12); layer_full = a pair per layer over the whole max(seq, context) (Unsloth before 2024.8); 16-bit (fp32 for Gemma's four-norm layers, Unsloth's GemmaFixedRotaryEmbedding)"),
    },
    Exllama = "exllama" {
        label: ("GPTQ exllama kernel", "GPTQ exllama 内核"),
        read: Read::Uint { min: 0, max: 2 },
        set: |s, v| {
            s.exllama = Some(v.uint() as u8);
            Ok(())
        },
        write: |s, c| s.exllama.filter(|_| s.exllama != c.default.exllama).map(|v| v.to_string()),
        architecture: false,
        doc: doc!("0, 1, 2", "transformers' default: 1 with `engine_version` 4.32–4.48 (AutoGPTQ's exllama v1), else 0", "`quant=gptq4` inference with `engine=hf` on AutoGPTQ's exllama kernel (transformers / optimum `use_exllama` with `exllama_config={\"version\": …}`), whose buffers `autogptq_post_init` allocates on each GPU after loading: 1 = exllama's fp16 dequantization buffer of the largest layer (in × out × 2 B); 2 = exllamav2's scratch, the largest layer's dequantized weight and a forward buffer for 2,048 × 8 input rows (in × out × 2 B + out × 2,048 × 8 × 4 B), whatever the batch; 0 = no kernel buffer billed (cuda-old, Marlin, the others)"),
    },
    AwqVersion = "awq_version" {
        label: ("AWQ kernel", "AWQ 内核"),
        read: Read::Word(|| vec!["gemm", "gemv"]),
        set: |s, v| {
            s.awq_gemv = match v.word() {
                "gemm" => false,
                "gemv" => true,
                _ => return Err(()),
            };
            Ok(())
        },
        write: |s, c| (s.awq_gemv != c.default.awq_gemv).then(|| if s.awq_gemv { "gemv" } else { "gemm" }.to_string()),
        architecture: false,
        doc: doc!("gemm", "`quant=awq4` inference with `engine=hf` on AutoAWQ's kernel (transformers' `AwqConfig(version=…)`): gemm dequantizes the largest layer to fp16 for a prefill of 1,024 rows or more and keeps 8 split-k partial sums of its output below; gemv keeps the 8 partial sums (8 × rows × out × 2 B) for every input of more than 8 rows"),
    },
    HeadCopy = "head_copy" {
        label: label_for_worker!(("Tied LM head stored apart", "共享 LM head 单独存储")),
        read: Read::Flag,
        set: set_for_worker!(HeadCopy, |s, v| {
            s.head_copy = v.flag();
            Ok(())
        }),
        write: write_for_worker!(HeadCopy, |s, c| (s.head_copy != c.default.head_copy).then(|| flag_text(s.head_copy))),
        architecture: false,
        doc: doc!("0", "the checkpoint stores a tied model's LM head as a tensor of its own (AutoAWQ's saves before 0.2.8, Qwen2.5's official AWQ files among them): `engine=hf` inference loads it onto the GPU as a second matrix until `from_pretrained` ties the weights (vocab × hidden × 2 B, a moment of loading that the peak includes when it is larger than generate()'s); billed by the reader worker"),
    },
    Adapter = "adapter" {
        label: ("PEFT adapter loaded", "加载 PEFT 适配器"),
        read: Read::Flag,
        set: |s, v| {
            s.adapter = v.flag();
            Ok(())
        },
        write: |s, c| (s.adapter != c.default.adapter).then(|| flag_text(s.adapter)),
        architecture: false,
        doc: doc!("0", "`engine=hf` inference with a LoRA adapter of `rank` over `targets` loaded by PEFT over the base and left unmerged (PeftModel.from_pretrained; a quantized base cannot merge it): its A and B matrices, fp32 as PEFT creates and loads them, beside the weights (Guanaco, the QLoRA paper's models: rank 64 over every linear layer)"),
    },
    Kv = "kv" {
        label: ("KV-cache dtype", "KV cache 精度"),
        read: Read::Word(|| ids(&KvDtype::ALL, KvDtype::id)),
        set: |s, v| keyword(v.word(), KvDtype::from_id, |k| s.kv = k),
        write: |s, c| differs(s.kv.id(), c.default.kv.id()),
        architecture: false,
        doc: doc!("bf16", "KV-cache dtype (int8/int4 = llama.cpp q8_0/q4_0 blocks)"),
    },
    Gen = "gen" {
        label: ("Generated tokens", "生成 token 数"),
        read: Read::Uint { min: 0, max: MAX_SEQ },
        set: |s, v| {
            s.generated = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.generated, c.default.generated),
        architecture: false,
        doc: doc!("0", "generated tokens; the KV cache holds prompt + generated"),
    },
    Images = "images" {
        label: ("Images per sequence", "每条样本图片数"),
        read: Read::Uint { min: 0, max: 1024 },
        set: |s, v| {
            s.images = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.images, c.default.images),
        architecture: false,
        doc: doc!("0", "images per sequence (vision-language presets)"),
    },
    ImagePx = "image_px" {
        label: ("Image size (px, or WxH)", "图片尺寸 (px,或 宽x高)"),
        read: Read::Text(MsgId::HintImageSize),
        set: |s, v| image_size(v.word()).map(|i| s.image = i).ok_or(()),
        write: |s, c| (s.image != c.default.image).then(|| s.image.text()),
        architecture: false,
        doc: doc!("N or WxH", "448", "each image's size in pixels: `N` for a square, `WxH` for another shape (1–100000 a side); Qwen2-VL makes (W/28)·(H/28) tokens of it, Gemma-3 256 whatever its size, Gemma-4 the most its budget allows keeping the aspect (256 of 280 for a square, 252 for a 320x50 strip), Llama-4 144 per 336 px tile, Pixtral one per 28 px square and one per row"),
    },
    Gpu = "gpu" {
        label: ("GPU", "显卡"),
        read: Read::Word(|| presets::GPUS.iter().map(|g| g.id).collect()),
        set: |s, v| Gpu::preset(v.word()).map(|g| s.gpu = g).ok_or(()),
        write: |s, c| match s.gpu.id {
            Some(id) if Some(id) != c.default.gpu.id => Some(id.into()),
            _ => None,
        },
        architecture: false,
        doc: doc!("a GPU preset id (see `vram-ledger --presets`)", "rtx4090", "the GPU"),
    },
    Vram = "vram" {
        label: ("Custom size (GiB)", "自定义容量 (GiB)"),
        read: Read::Float { min: 0.001, max: 1_000_000.0 },
        set: |s, v| {
            s.gpu = Gpu::custom_gib(v.float());
            Ok(())
        },
        write: |s, _| s.gpu.id.is_none().then(|| trim_float(s.gpu.bytes as f64 / GIB)),
        architecture: false,
        doc: doc!("—", "a custom GPU size in GiB (wins over `gpu`)"),
    },
    OverheadMib = "overhead_mib" {
        label: ("CUDA context (MiB)", "CUDA 上下文 (MiB)"),
        read: Read::Float { min: 0.0, max: 1_000_000.0 },
        set: |s, v| {
            s.overhead_mib = v.float();
            Ok(())
        },
        write: |s, c| (s.overhead_mib != c.default.overhead_mib).then(|| trim_float(s.overhead_mib)),
        architecture: false,
        doc: doc!("500", "CUDA context + library workspaces per GPU, in MiB"),
    },
    Drill = "drill" {
        label: ("Drill", "演习"),
        read: Read::List(&Drill::IDS),
        set: |s, v| Drill::from_id_list(v.word()).map(|d| s.drill = d).map_err(|_| ()),
        write: |s, _| (!s.drill.is_empty()).then(|| s.drill.to_id_list()),
        architecture: false,
        doc: doc!("— (no mistakes)", "the five-OOM drill: inject classic mistakes (evaluation without no_grad, logits kept in a list for 10 steps, embedding and LM head left in fp32, a leftover process)"),
    },
    Objective = "objective" {
        label: ("Objective", "训练目标"),
        read: Read::Word(|| ids(Objective::ALL, Objective::id)),
        set: |s, v| keyword(v.word(), Objective::from_id, |o| s.rl.objective = o),
        write: |s, c| differs(s.rl.objective.id(), c.default.rl.objective.id()),
        architecture: false,
        doc: doc!("sft", "what the step optimises (training): sft = supervised; dpo = preference pairs (each `batch` pair a chosen + a rejected sequence of `seq` tokens, and the reference's log-probabilities); grpo, ppo = completions generated by a rollout (`rollout`), scored, and trained on: the step's phases are load, rollout, logprobs, forward, loss, backward, optimizer_step, and the bill is the largest"),
    },
    Ref = "ref" {
        label: ("Reference model", "参考模型"),
        read: Read::Word(|| ids(Reference::ALL, Reference::id)),
        set: |s, v| keyword(v.word(), Reference::from_id, |r| s.rl.reference = Some(r)),
        write: |s, _| s.rl.reference.map(|r| r.id().into()),
        architecture: false,
        doc: doc!("adapter for method=lora|qlora, model for full", "where DPO's (and, with `beta` > 0, GRPO's and PPO's) reference log-probabilities come from: adapter = the policy with its LoRA adapters disabled (PEFT, TRL: no copy); model = a frozen copy in bf16 (fp32 with precision=fp32; sharded under zero=3); precomputed = computed before training (TRL's precompute_ref_log_probs)"),
    },
    Generations = "generations" {
        label: ("Completions per prompt", "每个 prompt 的生成数"),
        read: Read::Uint { min: 1, max: MAX_GENERATIONS },
        set: |s, v| {
            s.rl.generations = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.rl.generations, c.default.rl.generations),
        architecture: false,
        doc: doc!("8", "completions per prompt (TRL's num_generations, verl's rollout.n): the generation batch (batch × accum × gpus completions, TRL's per_device_train_batch_size counting completions) must be a multiple of it"),
    },
    PromptLen = "prompt_len" {
        label: ("Prompt tokens", "prompt token 数"),
        read: Read::Uint { min: 1, max: MAX_SEQ },
        set: |s, v| {
            s.rl.prompt_len = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.rl.prompt_len, c.default.rl.prompt_len),
        architecture: false,
        doc: doc!("512", "GRPO / PPO: tokens of each prompt (the trainer's sequence is prompt_len + completion_len; `seq` is not used)"),
    },
    CompletionLen = "completion_len" {
        label: ("Completion tokens", "生成 token 数(completion)"),
        read: Read::Uint { min: 1, max: MAX_SEQ },
        set: |s, v| {
            s.rl.completion_len = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.rl.completion_len, c.default.rl.completion_len),
        architecture: false,
        doc: doc!("256", "GRPO / PPO: generated tokens of each completion (TRL's max_completion_length, verl's max_response_length); the loss's logits cover these"),
    },
    Rollout = "rollout" {
        label: ("Rollout engine", "采样引擎"),
        read: Read::Word(|| ids(Rollout::ALL, Rollout::id)),
        set: |s, v| keyword(v.word(), Rollout::from_id, |r| s.rl.rollout = r),
        write: |s, c| differs(s.rl.rollout.id(), c.default.rl.rollout.id()),
        architecture: false,
        doc: doc!("hf", "what generates GRPO's / PPO's completions: hf = generate() with the trainer's model (its cache over batch × accum sequences); colocate = vLLM in the trainer's process on the same card with its own copy of the weights (TRL's vllm_mode=\"colocate\", verl, OpenRLHF --colocate_all_models), sized by rollout_util; shared = vLLM reading the trainer's own weights (Unsloth's fast_inference): its pool only; server = vLLM on other GPUs (nothing on these)"),
    },
    RolloutUtil = "rollout_util" {
        label: ("Rollout gpu_memory_utilization", "采样引擎 gpu_memory_utilization"),
        read: Read::Float { min: 0.01, max: 1.0 },
        set: |s, v| {
            s.rl.rollout_util = v.float();
            Ok(())
        },
        write: |s, c| (s.rl.rollout_util != c.default.rl.rollout_util).then(|| trim_float(s.rl.rollout_util)),
        architecture: false,
        doc: doc!("0.3 (TRL's colocate default since 0.18; verl 0.5, OpenRLHF 0.95, ms-swift 0.9, Unsloth 0.5 of the free memory)", "the rollout engine's gpu_memory_utilization on a shared card: its weights, workspace and KV pool within that share of the card's total"),
    },
    RolloutTp = "rollout_tp" {
        label: label_for_worker!(("Rollout tensor parallel", "采样引擎张量并行")),
        read: Read::Uint { min: 1, max: 64 },
        set: set_for_worker!(RolloutTp, |s, v| {
            s.rl.rollout_tp = v.uint();
            Ok(())
        }),
        write: write_for_worker!(RolloutTp, |s, c| {
            (s.rl.rollout_tp != c.default.rl.rollout_tp).then(|| s.rl.rollout_tp.to_string())
        }),
        architecture: false,
        doc: doc!("1 (TRL's and ms-swift's vllm_tensor_parallel_size; verl's rollout default is 2)", "the rollout engine's tensor-parallel size (rollout=colocate or shared): each engine spans this many of the trainer's GPUs, its weights ÷ rollout_tp on each, its pool within rollout_util of each card; billed by the reader worker"),
    },
    RolloutOffload = "rollout_offload" {
        label: label_for_worker!(("Trainer offloaded during the rollout", "采样期间卸载训练状态")),
        read: Read::Word(|| vec!["none", "optimizer", "all"]),
        set: set_for_worker!(RolloutOffload, |s, v| {
            s.rl.rollout_offload = TrainerOffload::from_id(v.word()).ok_or(())?;
            Ok(())
        }),
        write: write_for_worker!(RolloutOffload, |s, c| {
            (s.rl.rollout_offload != c.default.rl.rollout_offload).then(|| s.rl.rollout_offload.id().to_string())
        }),
        architecture: false,
        doc: doc!("none", "what of the trainer moves to host RAM while a colocated engine generates (rollout=colocate, or shared for the optimizer alone), back before the log-probability pass: optimizer = the fp32 master weights and the optimizer's states (ms-swift's offload_optimizer, verl's optimizer_offload); all = those, the trainer's weights, Megatron's gradient buffer and the reference model too (ms-swift's offload_model, which moves its ref_models with the model; verl's param_offload, grad_offload and the reference's param_offload); a note gives the host RAM; billed by the reader worker"),
    },
    Sleep = "sleep" {
        label: ("Engine sleep level", "引擎休眠级别"),
        read: Read::Uint { min: 0, max: 2 },
        set: |s, v| {
            s.rl.sleep = v.uint() as u8;
            Ok(())
        },
        write: |s, c| differs(s.rl.sleep, c.default.rl.sleep),
        architecture: false,
        doc: doc!("0", "vLLM's sleep mode between rollouts (colocate, shared): 0 = awake, its weights and pool resident in every phase; 1 = weights to host RAM and the pool dropped (OpenRLHF, verl before vLLM 0.8.5); 2 = both dropped, the weights reloaded from the trainer (TRL's vllm_enable_sleep_mode, verl); with rollout=shared (Unsloth's standby) only the pool is dropped; the CUDA graphs and the memory outside PyTorch stay"),
    },
    Beta = "beta" {
        label: ("KL weight β", "KL 系数 β"),
        read: Read::Float { min: 0.0, max: 1000.0 },
        set: |s, v| {
            s.rl.beta = v.float();
            Ok(())
        },
        write: |s, c| (s.rl.beta != c.default.rl.beta).then(|| trim_float(s.rl.beta)),
        architecture: false,
        doc: doc!("0 (TRL's GRPOConfig since 0.19; ms-swift 0.04)", "GRPO / PPO: the KL term's weight; above 0 the step needs the reference's log-probabilities (`ref`)"),
    },
    LogprobBatch = "logprob_batch" {
        label: ("Log-probability micro-batch", "对数概率 micro-batch"),
        read: Read::Uint { min: 1, max: MAX_BATCH },
        set: |s, v| {
            s.rl.logprob_batch = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.rl.logprob_batch.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("the micro-batch (DPO: 2 × batch)", "sequences per no-grad log-probability pass (the old policy's, the reference's): TRL's per-device batch, verl's log_prob_micro_batch_size_per_gpu"),
    },
    Critic = "critic" {
        label: ("Critic model", "critic 模型"),
        read: Read::Word(|| presets::models().iter().map(|m| m.id).collect()),
        set: |s, v| presets::model(v.word()).map(|p| s.rl.critic = Some(p.id)).ok_or(()),
        write: |s, _| s.rl.critic.map(str::to_string),
        architecture: false,
        doc: doc!("a model preset id", "the policy's architecture", "PPO's critic (value model), trained with the policy's method and optimizer: its weights, master copy and optimizer states stay on the card"),
    },
    PpoUpdate = "ppo_update" {
        label: ("PPO critic update", "PPO critic 更新方式"),
        read: Read::Word(|| ids(PpoUpdate::ALL, PpoUpdate::id)),
        set: |s, v| keyword(v.word(), PpoUpdate::from_id, |u| s.rl.ppo_update = u),
        write: |s, c| differs(s.rl.ppo_update.id(), c.default.rl.ppo_update.id()),
        architecture: false,
        doc: doc!("apart", "PPO: apart = the critic's forward, backward and step after the policy's (verl, OpenRLHF); joint = one backward through the policy and the value model (TRL's PolicyAndValueWrapper; ms-swift's PPO runs TRL's trainer): the critic's activations and gradients are on the card with the policy's. framework=trl and framework=ms-swift set joint"),
    },
    Reward = "reward" {
        label: ("Reward model", "奖励模型"),
        read: Read::Word(|| {
            let mut ids = vec!["none"];
            ids.extend(presets::models().iter().map(|m| m.id));
            ids
        }),
        set: |s, v| match v.word() {
            "none" => {
                s.rl.reward = None;
                Ok(())
            }
            id => presets::model(id).map(|p| s.rl.reward = Some(p.id)).ok_or(()),
        },
        write: |s, _| s.rl.reward.map(str::to_string),
        architecture: false,
        doc: doc!("none, or a model preset id", "none (a rule-based reward)", "PPO's reward model, its bf16 weights on the card (sharded under zero=3)"),
    },
    Engine = "engine" {
        label: ("Inference engine", "推理引擎"),
        read: Read::Word(|| ids(Engine::ALL, Engine::id)),
        set: |s, v| keyword(v.word(), Engine::from_id, |e| s.serving.engine = e),
        write: |s, c| differs(s.serving.engine.id(), c.default.serving.engine.id()),
        architecture: false,
        doc: doc!("hf", "what serves the model (inference): hf = Hugging Face `generate()`; vllm, sglang, llamacpp = the engine's start-up budget, KV pool, concurrency and longest context (ignored in training)"),
    },
    EngineVersion = "engine_version" {
        label: ("Engine release", "引擎版本"),
        read: Read::Text(MsgId::HintEngineVersion),
        set: |s, v| Release::parse(v.word()).map(|e| s.serving.version = Some(e)).ok_or(()),
        write: |s, _| s.serving.version.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("a release: 0.11, 0.19.1, 0.5.23, 4.41", "the newest release the rules were read from (vLLM 0.33, SGLang 0.5.23, transformers 5.25)", "the engine's release, where its memory rules changed (defaults, what the budget counts); with engine=hf the transformers release generate() runs on: before 4.42 a decoding step holds the old and the new cache whole, before 4.45 the prefill projects and upcasts every prompt position, before 4.49 a 4-bit GPTQ checkpoint runs on AutoGPTQ's exllama v1, before 4.54 SDPA repeats a grouped-query layer's K and V to every query head (docs/research/transformers-inference-by-release.md)"),
    },
    GpuUtil = "gpu_util" {
        label: ("gpu_memory_utilization", "gpu_memory_utilization(显存占比)"),
        read: Read::Float { min: 0.01, max: 1.0 },
        set: |s, v| {
            s.serving.gpu_util = Some(v.float());
            Ok(())
        },
        write: |s, _| s.serving.gpu_util.map(trim_float),
        architecture: false,
        doc: doc!("the release's (vLLM 0.90; 0.92 from 0.20)", "vLLM's `gpu_memory_utilization`: the share of the card's total (as PyTorch sees it) the engine budgets"),
    },
    MaxBatchedTokens = "max_batched_tokens" {
        label: ("Batched tokens per step", "每步批处理 token 数"),
        read: Read::Uint { min: 1, max: MAX_SEQ },
        set: |s, v| {
            s.serving.max_batched_tokens = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.serving.max_batched_tokens.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("the engine's, by release and card (vLLM serve: 8192 on ≥ 70 GiB cards but A100, else 2048)", "vLLM's `max_num_batched_tokens` (its profiling run's batch), SGLang's `chunked_prefill_size`, llama.cpp's `n_ubatch`"),
    },
    CudaGraphs = "cuda_graphs" {
        label: ("CUDA graphs", "CUDA graphs"),
        read: Read::Flag,
        set: |s, v| {
            s.serving.cuda_graphs = v.flag();
            Ok(())
        },
        write: |s, c| (s.serving.cuda_graphs != c.default.serving.cuda_graphs).then(|| flag_text(s.serving.cuda_graphs)),
        architecture: false,
        doc: doc!("1", "CUDA graphs captured (0 = vLLM `--enforce-eager`, SGLang `--disable-cuda-graph`)"),
    },
    BlockSize = "block_size" {
        label: ("KV block size (tokens)", "KV 块大小(token)"),
        read: Read::Uint { min: 1, max: 4096 },
        set: |s, v| {
            s.serving.block_size = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.serving.block_size.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("16 (64 for latent attention)", "vLLM's KV block size in tokens"),
    },
    MaxNumSeqs = "max_num_seqs" {
        label: ("Requests scheduled at once (max_num_seqs)", "同时调度的请求数(max_num_seqs)"),
        read: Read::Uint { min: 1, max: MAX_BATCH },
        set: |s, v| {
            s.serving.max_num_seqs = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.serving.max_num_seqs.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("the release's, by card (vLLM serve: 1024 on ≥ 70 GiB cards but A100, else 256)", "vLLM's `max_num_seqs`: requests it schedules at once; its start-up sampler warm-up (dummy requests × vocabulary) and CUDA graphs grow with it"),
    },
    MemFraction = "mem_fraction" {
        label: ("mem_fraction_static", "mem_fraction_static(静态显存占比)"),
        read: Read::Float { min: 0.01, max: 1.0 },
        set: |s, v| {
            s.serving.mem_fraction = Some(v.float());
            Ok(())
        },
        write: |s, _| s.serving.mem_fraction.map(trim_float),
        architecture: false,
        doc: doc!("SGLang's, by release, card and GPUs (0.830 on an H100 with 0.5.23)", "SGLang's `mem_fraction_static`: (weights + KV pool) as a share of the memory free before loading"),
    },
    GpuLayers = "gpu_layers" {
        label: ("Layers on the GPU", "放在 GPU 上的层数"),
        read: Read::Uint { min: 0, max: 100_000 },
        set: |s, v| {
            s.serving.gpu_layers = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.serving.gpu_layers.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("all (layers + 1)", "llama.cpp's `n_gpu_layers`: the last N of the layers and the output layer are on the GPU, the rest (and the token embedding) in host RAM"),
    },
    // The serving add-ons (issue 29).
    Spec = "spec" {
        label: ("Speculative decoding", "投机解码"),
        read: Read::Word(|| ids(crate::ledger::scenario::SpecMethod::ALL, crate::ledger::scenario::SpecMethod::id)),
        set: |s, v| keyword(v.word(), crate::ledger::scenario::SpecMethod::from_id, |x| s.serving.spec = x),
        write: |s, c| differs(s.serving.spec.id(), c.default.serving.spec.id()),
        architecture: false,
        doc: doc!("none", "speculative decoding on vLLM / SGLang: draft = a separate model (`spec_model`); eagle, eagle3 = an EAGLE head (one decoder layer; EAGLE-3 with its own head over a 32k draft vocabulary); mtp = the checkpoint's multi-token-prediction layer; ngram = prompt lookup. The drafter's weights join the weights, its attention layers the KV cache's bytes per token, its graphs the CUDA graphs"),
    },
    SpecModel = "spec_model" {
        label: ("Draft model", "草稿模型"),
        read: Read::Word(|| {
            let mut ids = vec!["none"];
            ids.extend(presets::models().iter().map(|m| m.id));
            ids
        }),
        set: |s, v| match v.word() {
            "none" => {
                s.serving.spec_model = None;
                Ok(())
            }
            id => presets::model(id).map(|p| s.serving.spec_model = Some(p.id)).ok_or(()),
        },
        write: |s, _| s.serving.spec_model.map(str::to_string),
        architecture: false,
        doc: doc!("none, or a model preset id", "none", "the draft model of `spec=draft` (a preset, served in 16 bits over the same tensor-parallel GPUs)"),
    },
    SpecTokens = "spec_tokens" {
        label: ("Speculative tokens per step", "每步投机 token 数"),
        read: Read::Uint { min: 1, max: 64 },
        set: |s, v| {
            s.serving.spec_tokens = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.serving.spec_tokens.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("3 (1 for mtp)", "`num_speculative_tokens`: tokens proposed per step; each running request keeps that many more KV slots"),
    },
    MaxLoras = "max_loras" {
        label: ("LoRA adapters on the GPU (max_loras)", "GPU 上的 LoRA 适配器数(max_loras)"),
        read: Read::Uint { min: 0, max: 1024 },
        set: |s, v| {
            s.serving.max_loras = v.uint();
            Ok(())
        },
        write: |s, c| differs(s.serving.max_loras, c.default.serving.max_loras),
        architecture: false,
        doc: doc!("0 (LoRA not enabled)", "served LoRA (vLLM `--enable-lora --max-loras`, SGLang `--max-loras-per-batch`): every LoRA-capable linear layer gets this many adapter slots of `max_lora_rank` on the GPU, allocated with the weights"),
    },
    MaxLoraRank = "max_lora_rank" {
        label: ("Largest served LoRA rank", "服务 LoRA 的最大秩"),
        read: Read::Uint { min: 1, max: 4096 },
        set: |s, v| {
            s.serving.max_lora_rank = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.serving.max_lora_rank.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("16 (vLLM), the adapters' own (SGLang)", "`--max-lora-rank`: each slot is sized for this rank"),
    },
    MaxCpuLoras = "max_cpu_loras" {
        label: ("LoRA adapters cached in RAM", "内存中缓存的 LoRA 适配器数"),
        read: Read::Uint { min: 0, max: 65_536 },
        set: |s, v| {
            s.serving.max_cpu_loras = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.serving.max_cpu_loras.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("max_loras", "vLLM's `--max-cpu-loras`: adapters kept in host RAM (at most this many of `max_lora_rank`)"),
    },
    PrefixShare = "prefix_share" {
        label: ("Shared prefix (share of the context)", "共享前缀(占上下文比例)"),
        read: Read::Float { min: 0.0, max: 0.99 },
        set: |s, v| {
            s.serving.prefix_share = v.float();
            Ok(())
        },
        write: |s, c| (s.serving.prefix_share != c.default.serving.prefix_share).then(|| trim_float(s.serving.prefix_share)),
        architecture: false,
        doc: doc!("0", "the share of each request's context that is a prefix common to all requests (system prompt, few-shot examples); prefix caching holds it once, so more requests run at once and each can be longer. The start-up pool does not change"),
    },
    SwaRatio = "swa_ratio" {
        label: ("SWA tokens ratio (swa_full_tokens_ratio)", "滑动窗口池比例(swa_full_tokens_ratio)"),
        read: Read::Float { min: 0.01, max: 1.0 },
        set: |s, v| {
            s.serving.swa_ratio = Some(v.float());
            Ok(())
        },
        write: |s, _| s.serving.swa_ratio.map(trim_float),
        architecture: false,
        doc: doc!("0.8 (SGLang's default)", "SGLang's `--swa-full-tokens-ratio`: the sliding-window pool's tokens as a share of the full pool's"),
    },
    MambaRatio = "mamba_ratio" {
        label: ("Mamba state share (mamba_full_memory_ratio)", "Mamba 状态池占比(mamba_full_memory_ratio)"),
        read: Read::Float { min: 0.01, max: 10.0 },
        set: |s, v| {
            s.serving.mamba_ratio = Some(v.float());
            Ok(())
        },
        write: |s, _| s.serving.mamba_ratio.map(trim_float),
        architecture: false,
        doc: doc!("0.9 (SGLang's default)", "SGLang's `--mamba-full-memory-ratio`: the linear-attention (Mamba) state pool's bytes as a share of the full-attention KV pool's"),
    },
    MaxMambaCache = "max_mamba_cache" {
        label: ("Mamba states (max_mamba_cache_size)", "Mamba 状态数(max_mamba_cache_size)"),
        read: Read::Uint { min: 1, max: MAX_BATCH },
        set: |s, v| {
            s.serving.max_mamba_cache = Some(v.uint());
            Ok(())
        },
        write: |s, _| s.serving.max_mamba_cache.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("from mamba_ratio", "SGLang's `--max-mamba-cache-size`: request states the Mamba pool holds; the KV pool gets the rest"),
    },
    MaxModelLen = "max_model_len" {
        label: ("Context: the engine's own (max_model_len=auto)", "上下文:由引擎决定(max_model_len=auto)"),
        read: Read::Word(|| vec!["auto"]),
        set: |s, v| match v.word() {
            "auto" => {
                s.serving.max_model_len_auto = true;
                Ok(())
            }
            _ => Err(()),
        },
        write: |s, _| s.serving.max_model_len_auto.then(|| "auto".to_string()),
        architecture: false,
        doc: doc!("none (`seq` + `gen`)", "`auto`: the engine's own context — the model's (`model_context`) on SGLang and llama.cpp; on vLLM 0.14 on (`--max-model-len auto`) the model's if one request of it fits the KV pool, else the longest that does"),
    },
    MmLimit = "mm_limit" {
        label: ("Images per prompt (--limit-mm-per-prompt)", "每个提示的图片数(--limit-mm-per-prompt)"),
        read: Read::Uint { min: 0, max: 1024 },
        set: |s, v| {
            s.serving.mm_limit = Some(v.uint().min(1024) as u16);
            Ok(())
        },
        write: |s, _| s.serving.mm_limit.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("999 (vLLM V1), 1 (V0)", "a served VLM: images one prompt may carry (vLLM's `--limit-mm-per-prompt '{\"image\": N}'`); vLLM profiles its vision encoder with as many of the largest image as the scheduler could meet at once, and keeps their outputs through the language model's dummy run. 0 (with `mm_video=0` where the model takes videos) skips the profile and, from 0.10.1, loads no vision tower"),
    },
    MmVideo = "mm_video" {
        label: ("Videos per prompt (--limit-mm-per-prompt)", "每个提示的视频数(--limit-mm-per-prompt)"),
        read: Read::Uint { min: 0, max: 1024 },
        set: |s, v| {
            s.serving.mm_video = Some(v.uint().min(1024) as u16);
            Ok(())
        },
        write: |s, _| s.serving.mm_video.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("999 (vLLM V1), 1 (V0)", "a served Qwen2-VL or Qwen2.5-VL: videos one prompt may carry (`--limit-mm-per-prompt '{\"video\": N}'`); from vLLM 0.11 the profile encodes one video of up to 14 frames when the context holds it, which outweighs an image"),
    },
    MaxPixels = "max_pixels" {
        label: ("Largest image (max_pixels)", "最大图片像素(max_pixels)"),
        read: Read::Uint { min: 784, max: 1_073_741_824 },
        set: |s, v| {
            s.serving.max_pixels = Some(v.uint().min(1 << 30) as u32);
            Ok(())
        },
        write: |s, _| s.serving.max_pixels.map(|v| v.to_string()),
        architecture: false,
        doc: doc!("the model's (12,845,056 for Qwen2/2.5-VL, 16,777,216 for Qwen3-VL)", "a served Qwen-VL model: the image processor's `max_pixels` (`--mm-processor-kwargs '{\"max_pixels\": N}'`): the largest image, which vLLM's profile encodes, becomes max_pixels ÷ (patch × merge)² tokens (28² for Qwen2/2.5-VL, 32² for Qwen3-VL)"),
    },
    KvCacheMemory = "kv_cache_memory" {
        label: ("KV cache memory (GiB, vLLM --kv-cache-memory)", "KV 缓存显存(GiB,vLLM --kv-cache-memory)"),
        read: Read::Float { min: 0.01, max: 100_000.0 },
        set: |s, v| {
            s.serving.kv_cache_memory = Some((v.float() * GIB).round() as u64);
            Ok(())
        },
        write: |s, _| s.serving.kv_cache_memory.map(|b| trim_float(b as f64 / GIB)),
        architecture: false,
        doc: doc!("none (the budget decides)", "vLLM's `--kv-cache-memory` in GiB: the KV pool as given, `gpu_memory_utilization` ignored; the planner prints the value that reproduces its own plan"),
    },
}

/// Keys the web app reads; the ledger ignores them without a warning.
pub const UI_KEYS: [&str; 7] = ["lang", "embed", "tree", "unit", "oom", "view", "q"];

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
        Read::Text(_) => "text".into(),
    }
}
