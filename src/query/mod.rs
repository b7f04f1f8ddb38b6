//! The scenario vocabulary as a query string: `model=llama-3.1-8b&method=qlora&seq=4096`.
//!
//! The same text is the web app's share URL, the CLI's argument and the UI's state, and course pages
//! link to it, so keys and values never change meaning (a new meaning gets a new key) and neither do
//! the defaults a missing key stands for. Every key is documented in `docs/query-keys.md`.
//!
//! Parsing is lenient: an unknown key is ignored with a warning, an invalid value is an error that
//! lists what is accepted and leaves that setting at its default. The CLI refuses any error; the web
//! app shows them as notices and goes on.

mod codec;
mod keys;

pub use codec::{percent_decode, percent_encode, split_query};
pub use keys::{KeyDoc, KEYS, KEY_NAMES, UI_KEYS};

use crate::ledger::architecture::{Architecture, MlpKind, MoeSpec};
use crate::ledger::presets;
use crate::ledger::scenario::{
    AttentionKernel, Bitsandbytes, Drill, Gpu, LoraTargets, LossKernel, Method, Mode, Optimizer, Precision, Scenario, DEFAULT_MODEL,
};
use crate::ledger::storage::{KvDtype, StorageFormat};

/// A problem with one key of a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub key: String,
    pub message: String,
}

/// The result of reading a query: the scenario, plus what could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub scenario: Scenario,
    /// Invalid values (the setting kept its default).
    pub errors: Vec<Problem>,
    /// Unknown keys (ignored).
    pub warnings: Vec<Problem>,
    /// Keys the web app reads (`lang`, `embed`, `tree`, `unit`), as given.
    pub ui: Vec<(String, String)>,
}

/// Architecture fields a link may set, on top of a preset or `model=custom`.
const ARCH_KEYS: [&str; 11] =
    ["layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "tied", "mlp", "experts", "active_experts"];

/// Limits of numeric values: wide enough for any real model, small enough that no product overflows.
pub const MAX_SEQ: u64 = 100_000_000;
pub const MAX_BATCH: u64 = 65_536;

struct Reader<'a> {
    pairs: Vec<(String, String)>,
    errors: &'a mut Vec<Problem>,
}

impl Reader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        // The last occurrence wins, as in URLSearchParams.get's common use with replaceState.
        self.pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn error(&mut self, key: &str, message: String) {
        self.errors.push(Problem { key: key.to_string(), message });
    }

    fn uint(&mut self, key: &str, min: u64, max: u64) -> Option<u64> {
        let raw = self.get(key)?.trim().to_string();
        match raw.parse::<u64>() {
            Ok(v) if (min..=max).contains(&v) => Some(v),
            _ => {
                let shown = display_value(&raw);
                self.error(key, format!("`{key}={shown}` is not accepted: a whole number from {min} to {max}"));
                None
            }
        }
    }

    fn float(&mut self, key: &str, min: f64, max: f64) -> Option<f64> {
        let raw = self.get(key)?.trim().to_string();
        match raw.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= min && v <= max => Some(v),
            _ => {
                let shown = display_value(&raw);
                self.error(key, format!("`{key}={shown}` is not accepted: a number from {min} to {max}"));
                None
            }
        }
    }

    fn flag(&mut self, key: &str) -> Option<bool> {
        match self.get(key)?.trim() {
            "1" => Some(true),
            "0" => Some(false),
            other => {
                let shown = display_value(other);
                self.error(key, format!("`{key}={shown}` is not accepted: use 0 or 1"));
                None
            }
        }
    }

    fn keyword<T>(&mut self, key: &str, from_id: impl Fn(&str) -> Option<T>, accepted: &[&str]) -> Option<T> {
        let raw = self.get(key)?.trim().to_string();
        match from_id(&raw) {
            Some(v) => Some(v),
            None => {
                let shown = display_value(&raw);
                self.error(key, format!("`{key}={shown}` is not accepted; accepted values: {}", accepted.join(", ")));
                None
            }
        }
    }
}

/// An offending value as it may be shown to a user: at most 40 characters. (The UI escapes it.)
fn display_value(raw: &str) -> String {
    if raw.chars().count() > 40 {
        format!("{}…", raw.chars().take(40).collect::<String>())
    } else {
        raw.to_string()
    }
}

fn ids<T: Copy>(all: &[T], id: impl Fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|&v| id(v)).collect()
}

/// Reads a query string or a whole share URL.
pub fn parse(input: &str) -> Parsed {
    let pairs = split_query(input);
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut ui = Vec::new();
    for (k, v) in &pairs {
        if UI_KEYS.contains(&k.as_str()) {
            ui.push((k.clone(), v.clone()));
        } else if !KEY_NAMES.contains(&k.as_str()) {
            let shown = display_value(k);
            warnings.push(Problem { key: k.clone(), message: format!("unknown key `{shown}` ignored") });
        }
    }
    let mut r = Reader { pairs, errors: &mut errors };
    let mut s = Scenario::default();

    // The model: a preset, or `custom`, then field overrides.
    if let Some(raw) = r.get("model").map(str::to_string) {
        let id = raw.trim();
        if id == "custom" {
            s.model_id = None;
            s.architecture.name = "custom".into();
        } else if let Some(p) = presets::model(id) {
            s.model_id = Some(p.id.to_string());
            s.architecture = p.architecture;
        } else {
            let shown = display_value(id);
            // The list is built only for the message: every control's input goes through here.
            let model_ids: Vec<&str> = presets::models().iter().map(|m| m.id).collect();
            r.error("model", format!("`model={shown}` is not a preset; accepted values: custom, {}", model_ids.join(", ")));
        }
    }
    apply_architecture_overrides(&mut r, &mut s.architecture);

    if let Some(v) = r.keyword("mode", Mode::from_id, &ids(Mode::ALL, Mode::id)) {
        s.mode = v;
    }
    if let Some(v) = r.keyword("method", Method::from_id, &ids(Method::ALL, Method::id)) {
        s.method = v;
    }
    if let Some(v) = r.keyword("precision", Precision::from_id, &ids(Precision::ALL, Precision::id)) {
        s.precision = v;
    }
    s.quant = Scenario::default_quant(s.mode, s.method);
    if let Some(v) = r.keyword("quant", StorageFormat::from_id, &ids(&StorageFormat::ALL, StorageFormat::id)) {
        s.quant = v;
    }
    if let Some(v) = r.flag("dq") {
        s.double_quant = v;
    }
    if let Some(v) = r.keyword("optim", Optimizer::from_id, &ids(Optimizer::ALL, Optimizer::id)) {
        s.optimizer = v;
    }
    if let Some(v) = r.uint("seq", 1, MAX_SEQ) {
        s.seq = v;
    }
    if let Some(v) = r.uint("batch", 1, MAX_BATCH) {
        s.batch = v;
    }
    if let Some(v) = r.uint("accum", 1, 1_000_000) {
        s.accum = v;
    }
    if let Some(v) = r.uint("rank", 1, 65_536) {
        s.rank = v;
    }
    if let Some(v) = r.keyword("targets", LoraTargets::from_id, &ids(LoraTargets::ALL, LoraTargets::id)) {
        s.targets = v;
    }
    if let Some(v) = r.flag("gc") {
        s.gradient_checkpointing = v;
    }
    if let Some(v) = r.keyword("attn", AttentionKernel::from_id, &ids(AttentionKernel::ALL, AttentionKernel::id)) {
        s.attention = v;
    }
    if let Some(v) = r.keyword("bnb", Bitsandbytes::from_id, &ids(Bitsandbytes::ALL, Bitsandbytes::id)) {
        s.bnb = v;
    }
    if let Some(v) = r.keyword("loss", LossKernel::from_id, &ids(LossKernel::ALL, LossKernel::id)) {
        s.loss = v;
    }
    if let Some(v) = r.uint("gpus", 1, 100_000) {
        s.gpus = v;
    }
    if let Some(v) = r.uint("zero", 0, 3) {
        s.zero = v as u8;
    }
    if let Some(v) = r.keyword("kv", KvDtype::from_id, &ids(&KvDtype::ALL, KvDtype::id)) {
        s.kv = v;
    }
    if let Some(v) = r.uint("gen", 0, MAX_SEQ) {
        s.generated = v;
    }
    if let Some(v) = r.uint("images", 0, 1024) {
        s.images = v;
    }
    if let Some(v) = r.uint("image_px", 1, 100_000) {
        s.image_px = v;
    }
    let gpu_ids: Vec<&str> = presets::GPUS.iter().map(|g| g.id).collect();
    if let Some(v) = r.keyword("gpu", Gpu::preset, &gpu_ids) {
        s.gpu = v;
    }
    // A custom size wins over a preset: it is the more specific statement.
    if let Some(v) = r.float("vram", 0.001, 1_000_000.0) {
        s.gpu = Gpu::custom_gib(v);
    }
    if let Some(v) = r.float("overhead_mib", 0.0, 1_000_000.0) {
        s.overhead_mib = v;
    }
    if let Some(raw) = r.get("drill").map(str::to_string) {
        match Drill::from_id_list(&raw) {
            Ok(d) => s.drill = d,
            Err(bad) => r.error("drill", format!("`drill={}` is not accepted; a comma-separated list of: {}", display_value(&bad), Drill::IDS.join(", "))),
        }
    }
    Parsed { scenario: s, errors, warnings, ui }
}

fn apply_architecture_overrides(r: &mut Reader, a: &mut Architecture) {
    let before = a.clone();
    const MAX_DIM: u64 = 1 << 24;
    if let Some(v) = r.uint("layers", 1, 10_000) {
        a.layers = v;
    }
    if let Some(v) = r.uint("hidden", 1, MAX_DIM) {
        a.hidden = v;
    }
    if let Some(v) = r.uint("heads", 1, MAX_DIM) {
        a.heads = v;
    }
    if let Some(v) = r.uint("kv_heads", 1, MAX_DIM) {
        a.kv_heads = v;
    }
    if let Some(v) = r.uint("head_dim", 1, MAX_DIM) {
        a.head_dim = v;
    }
    if let Some(v) = r.uint("ffn", 1, MAX_DIM) {
        a.ffn = v;
        if let Some(m) = a.moe.as_mut() {
            m.expert_ffn = v;
        }
    }
    if let Some(v) = r.uint("vocab", 1, 1 << 27) {
        a.vocab = v;
    }
    if let Some(v) = r.flag("tied") {
        a.tied_embeddings = v;
    }
    if let Some(v) = r.keyword("mlp", mlp_from_id, &["glu", "gelu"]) {
        a.mlp = v;
    }
    let experts = r.uint("experts", 1, 1 << 16);
    let active = r.uint("active_experts", 1, 1 << 16);
    if experts.is_some() || active.is_some() {
        let e = experts.or(a.moe.map(|m| m.experts)).unwrap_or(1);
        let k = active.or(a.moe.map(|m| m.active)).unwrap_or(1).min(e);
        a.moe = if e > 1 {
            Some(MoeSpec { experts: e, active: k, expert_ffn: a.ffn, shared: 0, shared_ffn: 0 })
        } else {
            None
        };
    }
    if a.kv_heads > a.heads {
        r.error("kv_heads", format!("`kv_heads={}` cannot exceed heads ({}); using {}", a.kv_heads, a.heads, a.heads));
        a.kv_heads = a.heads;
    }
    if *a != before && !a.name.ends_with("(modified)") && a.name != "custom" {
        a.name = format!("{} (modified)", a.name);
    }
}

fn mlp_from_id(id: &str) -> Option<MlpKind> {
    match id {
        "glu" => Some(MlpKind::Glu),
        "gelu" => Some(MlpKind::Gelu),
        _ => None,
    }
}

fn mlp_id(m: MlpKind) -> &'static str {
    match m {
        MlpKind::Glu => "glu",
        MlpKind::Gelu => "gelu",
    }
}

/// Writes the shortest query that reproduces `s`: only keys that differ from the defaults, in a
/// fixed order, followed by the given UI keys.
pub fn to_query(s: &Scenario, ui: &[(&str, &str)]) -> String {
    let d = Scenario::default();
    let mut out: Vec<(&str, String)> = Vec::new();
    let base = match &s.model_id {
        Some(id) => presets::model(id).map(|p| p.architecture),
        None => None,
    };
    let template = match &base {
        Some(a) => {
            if s.model_id.as_deref() != Some(DEFAULT_MODEL) {
                out.push(("model", s.model_id.clone().unwrap_or_default()));
            }
            a.clone()
        }
        None => {
            out.push(("model", "custom".into()));
            Scenario::default().architecture
        }
    };
    let a = &s.architecture;
    let custom = base.is_none();
    let mut num = |k: &'static str, v: u64, t: u64| {
        if custom || v != t {
            out.push((k, v.to_string()));
        }
    };
    num("layers", a.layers, template.layers);
    num("hidden", a.hidden, template.hidden);
    num("heads", a.heads, template.heads);
    num("kv_heads", a.kv_heads, template.kv_heads);
    num("head_dim", a.head_dim, template.head_dim);
    num("ffn", a.ffn, template.ffn);
    num("vocab", a.vocab, template.vocab);
    if custom || a.tied_embeddings != template.tied_embeddings {
        out.push(("tied", u8::from(a.tied_embeddings).to_string()));
    }
    if custom || a.mlp != template.mlp {
        out.push(("mlp", mlp_id(a.mlp).into()));
    }
    let (e, k) = a.moe.map_or((1, 1), |m| (m.experts, m.active));
    let (te, tk) = template.moe.map_or((1, 1), |m| (m.experts, m.active));
    if e != te {
        out.push(("experts", e.to_string()));
    }
    if k != tk {
        out.push(("active_experts", k.to_string()));
    }

    let mut kw = |k: &'static str, v: &'static str, dv: &'static str| {
        if v != dv {
            out.push((k, v.to_string()));
        }
    };
    kw("mode", s.mode.id(), d.mode.id());
    kw("method", s.method.id(), d.method.id());
    kw("precision", s.precision.id(), d.precision.id());
    kw("quant", s.quant.id(), Scenario::default_quant(s.mode, s.method).id());
    kw("dq", if s.double_quant { "1" } else { "0" }, "1");
    kw("optim", s.optimizer.id(), d.optimizer.id());
    let mut n = |k: &'static str, v: u64, dv: u64| {
        if v != dv {
            out.push((k, v.to_string()));
        }
    };
    n("seq", s.seq, d.seq);
    n("batch", s.batch, d.batch);
    n("accum", s.accum, d.accum);
    n("rank", s.rank, d.rank);
    if s.targets != d.targets {
        out.push(("targets", s.targets.id().into()));
    }
    if s.gradient_checkpointing != d.gradient_checkpointing {
        out.push(("gc", u8::from(s.gradient_checkpointing).to_string()));
    }
    if s.attention != d.attention {
        out.push(("attn", s.attention.id().into()));
    }
    if s.bnb != d.bnb {
        out.push(("bnb", s.bnb.id().into()));
    }
    if s.loss != d.loss {
        out.push(("loss", s.loss.id().into()));
    }
    let mut n = |k: &'static str, v: u64, dv: u64| {
        if v != dv {
            out.push((k, v.to_string()));
        }
    };
    n("gpus", s.gpus, d.gpus);
    n("zero", s.zero as u64, d.zero as u64);
    if s.kv != d.kv {
        out.push(("kv", s.kv.id().into()));
    }
    let mut n = |k: &'static str, v: u64, dv: u64| {
        if v != dv {
            out.push((k, v.to_string()));
        }
    };
    n("gen", s.generated, d.generated);
    n("images", s.images, d.images);
    n("image_px", s.image_px, d.image_px);
    match s.gpu.id {
        Some(id) if Some(id) == d.gpu.id => {}
        Some(id) => out.push(("gpu", id.into())),
        None => out.push(("vram", crate::ledger::scenario::trim_float(s.gpu.bytes as f64 / crate::ledger::scenario::GIB))),
    }
    if s.overhead_mib != d.overhead_mib {
        out.push(("overhead_mib", crate::ledger::scenario::trim_float(s.overhead_mib)));
    }
    if !s.drill.is_empty() {
        out.push(("drill", s.drill.to_id_list()));
    }
    let mut parts: Vec<String> = out.iter().map(|(k, v)| format!("{k}={}", percent_encode(v))).collect();
    parts.extend(ui.iter().map(|(k, v)| format!("{k}={}", percent_encode(v))));
    parts.join("&")
}

/// The architecture keys, for documentation and the UI.
pub fn architecture_keys() -> &'static [&'static str] {
    &ARCH_KEYS
}

/// `s` with one key set to `value`, read exactly as a link would read it; on an invalid value, `s`
/// unchanged and the problem. The UI's controls go through here.
pub fn with_key(s: &Scenario, key: &str, value: &str) -> (Scenario, Option<Problem>) {
    let mut base = to_query(s, &[]);
    if key == "model" {
        // A new model starts from its own preset, not from the old model's field overrides.
        base = base
            .split('&')
            .filter(|kv| {
                let k = kv.split('=').next().unwrap_or("");
                !ARCH_KEYS.contains(&k) && k != "model"
            })
            .collect::<Vec<_>>()
            .join("&");
    }
    let parsed = parse(&format!("{base}&{key}={}", percent_encode(value)));
    match parsed.errors.into_iter().find(|e| e.key == key) {
        Some(problem) => (s.clone(), Some(problem)),
        None => (parsed.scenario, None),
    }
}
