//! The scenario vocabulary as a query string: `model=llama-3.1-8b&method=qlora&seq=4096`.
//!
//! The same text is the web app's share URL, the CLI's argument and the UI's state, and course pages
//! link to it, so keys and values never change meaning (a new meaning gets a new key) and neither do
//! the defaults a missing key stands for. Every key is defined once, in `keys::KEYS`, and documented
//! in `docs/query-keys.md` (generated from it).
//!
//! Parsing is lenient: an unknown key is ignored with a warning, an invalid value is an error that
//! lists what is accepted and leaves that setting at its default. The CLI refuses any error; the web
//! app shows them as notices and goes on.

mod codec;
mod keys;

pub use codec::{percent_decode, percent_encode, split_query};
#[cfg(not(target_arch = "wasm32"))]
pub use keys::{values_doc, Doc};
pub use keys::{Context, Key, KeyDef, Read, Value, KEYS, MAX_BATCH, MAX_SEQ, UI_KEYS};

use crate::ledger::msg::{Arg, Msg};
use crate::ledger::presets;
use crate::ledger::scenario::Scenario;
use crate::ledger::units::trim_float;
use crate::msg;

/// A problem with one key of a query.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub key: String,
    pub message: Msg,
}

/// The result of reading a query: the scenario, plus what could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub scenario: Scenario,
    /// Invalid values (the setting kept its default).
    pub errors: Vec<Problem>,
    /// Unknown keys (ignored).
    pub warnings: Vec<Problem>,
    /// Keys the web app reads (`lang`, `embed`, `tree`, `unit`, `oom`, `view`, `q`), as given.
    pub ui: Vec<(String, String)>,
}

/// An offending value as it may be shown to a user: at most 40 characters. (The UI escapes it.)
pub fn display_value(raw: &str) -> String {
    if raw.chars().count() > 40 {
        format!("{}…", raw.chars().take(40).collect::<String>())
    } else {
        raw.to_string()
    }
}

/// Reads one key's raw text by its rule; the message names what is accepted.
fn read<'a>(def: &KeyDef, raw: &'a str) -> Result<Value<'a>, Msg> {
    let raw = raw.trim();
    let shown = || Arg::Text(display_value(raw));
    let name = Arg::Code(def.name);
    match def.read {
        Read::Uint { min, max } => match raw.parse::<u64>() {
            Ok(v) if (min..=max).contains(&v) => Ok(Value::Uint(v)),
            _ => Err(msg!(BadUint, name, shown(), Arg::Int(min), Arg::Int(max))),
        },
        Read::Float { min, max } => match crate::ledger::units::parse_decimal(raw) {
            Some(v) if v.is_finite() && v >= min && v <= max => Ok(Value::Float(v)),
            _ => Err(msg!(BadFloat, name, shown(), Arg::Text(trim_float(min)), Arg::Text(trim_float(max)))),
        },
        Read::Flag => match raw {
            "1" => Ok(Value::Flag(true)),
            "0" => Ok(Value::Flag(false)),
            _ => Err(msg!(BadFlag, name, shown())),
        },
        Read::Word(_) | Read::List(_) | Read::Text(_) => Ok(Value::Word(raw)),
    }
}

/// The message for a word the key's `set` refused.
fn rejected(def: &KeyDef, raw: &str) -> Msg {
    let raw = raw.trim();
    match def.read {
        Read::List(accepted) => {
            let bad = raw.split(',').map(str::trim).find(|w| !w.is_empty() && !accepted.contains(w)).unwrap_or(raw);
            msg!(BadList, Arg::Code(def.name), Arg::Text(display_value(bad)), Arg::Text(accepted.join(", ")))
        }
        _ if def.key == Key::Model => {
            let ids: Vec<&str> = presets::models().iter().map(|m| m.id).collect();
            msg!(NotPreset, Arg::Text(display_value(raw)), Arg::Text(ids.join(", ")))
        }
        Read::Text(hint) => msg!(
            BadText,
            Arg::Code(def.name),
            Arg::Text(display_value(raw)),
            crate::ledger::msg::Msg::plain(hint).arg()
        ),
        Read::Word(accepted) => {
            msg!(BadChoice, Arg::Code(def.name), Arg::Text(display_value(raw)), Arg::Text(accepted().join(", ")))
        }
        _ => msg!(BadChoice, Arg::Code(def.name), Arg::Text(display_value(raw)), Arg::Text(String::new())),
    }
}

/// Reads a query string or a whole share URL.
pub fn parse(input: &str) -> Parsed {
    let pairs = split_query(input);
    let mut warnings = Vec::new();
    let mut ui = Vec::new();
    for (k, v) in &pairs {
        if UI_KEYS.contains(&k.as_str()) {
            ui.push((k.clone(), v.clone()));
        } else if Key::from_name(k).is_none() {
            warnings.push(Problem { key: k.clone(), message: msg!(UnknownKey, Arg::Text(display_value(k))) });
        }
    }
    // The last occurrence wins, as in URLSearchParams.get's common use with replaceState.
    let get = |name: &str| pairs.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let mut s = Scenario::default();
    let mut errors = Vec::new();
    let mut template = None;
    let mut set_by_link: Vec<&str> = Vec::new();
    for def in KEYS.iter() {
        if def.architecture && template.is_none() {
            template = Some(s.architecture.clone());
        }
        let Some(raw) = get(def.name) else { continue };
        let result = read(def, raw).and_then(|v| (def.set)(&mut s, v).map_err(|()| rejected(def, raw)));
        match result {
            Ok(()) => set_by_link.push(def.name),
            Err(message) => errors.push(Problem { key: def.name.to_string(), message }),
        }
    }
    finish_architecture(&mut s, template.as_ref(), &mut errors);
    // The framework's defaults for the keys the link left out.
    crate::ledger::framework::apply(&mut s, |key| set_by_link.contains(&key));
    Parsed { scenario: s, errors, warnings, ui }
}

/// After the shape fields: KV heads cannot exceed heads, and a preset whose shape was changed says
/// so in its name.
fn finish_architecture(
    s: &mut Scenario,
    template: Option<&crate::ledger::architecture::Architecture>,
    errors: &mut Vec<Problem>,
) {
    // A shape key the page's build keeps for the reader worker modifies the model too.
    let kept = !s.for_worker.is_empty();
    let a = &mut s.architecture;
    if a.kv_heads > a.heads {
        errors.push(Problem {
            key: "kv_heads".into(),
            message: msg!(KvHeadsOverHeads, Arg::Int(a.kv_heads), Arg::Int(a.heads)),
        });
        a.kv_heads = a.heads;
    }
    if (kept || template.is_some_and(|t| t != a)) && !a.name.ends_with("(modified)") && a.name != "custom" {
        a.name = format!("{} (modified)", a.name).into();
    }
}

/// The page's build: two scenarios are the same configuration when they write the same link.
/// The link is the whole configuration (`tests/query.rs` `round_trips`: what it reads back equals,
/// field by field, what wrote it), and a derived comparison of every field is 2.5 KB of the wasm.
#[cfg(feature = "page")]
impl PartialEq for Scenario {
    fn eq(&self, other: &Self) -> bool {
        to_query(self, &[]) == to_query(other, &[])
    }
}

/// Writes the shortest query that reproduces `s`: only keys that differ from the defaults, in the
/// table's order, followed by the given UI keys.
pub fn to_query(s: &Scenario, ui: &[(&str, &str)]) -> String {
    let default = crate::ledger::framework::defaults_for(s);
    let preset = s.model_id.as_deref().and_then(presets::model).map(|p| p.architecture.clone());
    let custom = preset.is_none();
    let template = preset.unwrap_or_else(|| default.architecture.clone());
    let context = Context { default: &default, template: &template, custom };
    let mut parts: Vec<String> = KEYS
        .iter()
        .filter_map(|def| (def.write)(s, &context).map(|v| format!("{}={}", def.name, percent_encode(&v))))
        .collect();
    parts.extend(ui.iter().map(|(k, v)| format!("{k}={}", percent_encode(v))));
    parts.join("&")
}

/// `s` with one key set to `value`, read exactly as a link would read it; on an invalid value, `s`
/// unchanged and the problem. The UI's controls go through here.
pub fn with_key(s: &Scenario, key: Key, value: &str) -> (Scenario, Option<Problem>) {
    // An emptied engine setting goes back to the engine's own default.
    if value.trim().is_empty() {
        let mut t = s.clone();
        let e = &mut t.serving;
        match key {
            Key::EngineVersion => e.version = None,
            Key::FrameworkVersion => {
                // The newest release: the link (written against the old release's defaults) drops
                // the key, and the newest release's rules fill what it leaves out.
                let base = to_query(s, &[]);
                let kept: Vec<&str> = base.split('&').filter(|kv| !kv.starts_with("framework_version=")).collect();
                return (parse(&kept.join("&")).scenario, None);
            }
            Key::GpuUtil => e.gpu_util = None,
            Key::MaxBatchedTokens => e.max_batched_tokens = None,
            Key::MaxNumSeqs => e.max_num_seqs = None,
            Key::BlockSize => e.block_size = None,
            Key::MemFraction => e.mem_fraction = None,
            Key::GpuLayers => e.gpu_layers = None,
            Key::SpecModel => e.spec_model = None,
            Key::SpecTokens => e.spec_tokens = None,
            Key::MaxLoraRank => e.max_lora_rank = None,
            Key::MaxCpuLoras => e.max_cpu_loras = None,
            Key::SwaRatio => e.swa_ratio = None,
            Key::MambaRatio => e.mamba_ratio = None,
            Key::MaxMambaCache => e.max_mamba_cache = None,
            Key::KvCacheMemory => e.kv_cache_memory = None,
            Key::MmLimit => e.mm_limit = None,
            Key::MmVideo => e.mm_video = None,
            Key::MaxPixels => e.max_pixels = None,
            Key::MaxModelLen => e.max_model_len_auto = false,
            _ => return with_key_text(s, key, value),
        }
        return (t, None);
    }
    with_key_text(s, key, value)
}

fn with_key_text(s: &Scenario, key: Key, value: &str) -> (Scenario, Option<Problem>) {
    let mut base = to_query(s, &[]);
    if key == Key::Model {
        // A new model starts from its own preset, not from the old model's field overrides.
        base = base
            .split('&')
            .filter(|kv| {
                let k = kv.split('=').next().unwrap_or("");
                Key::from_name(k).is_some_and(|k| !k.def().architecture && k != Key::Model)
            })
            .collect::<Vec<_>>()
            .join("&");
    }
    let parsed = parse(&format!("{base}&{}={}", key.name(), percent_encode(value)));
    match parsed.errors.into_iter().find(|e| e.key == key.name()) {
        Some(problem) => (s.clone(), Some(problem)),
        None => (parsed.scenario, None),
    }
}

#[cfg(test)]
mod tests {
    use super::{Key, KEYS};

    /// `keys!` writes the enum and the table from one list, so `Key::def` is an index; the names are
    /// distinct (each finds its own key).
    #[test]
    fn the_table_follows_the_key_enum() {
        assert_eq!(KEYS.len(), Key::ALL.len());
        for (i, k) in Key::ALL.iter().enumerate() {
            assert_eq!(KEYS[i].key, *k);
            assert_eq!(Key::from_name(k.name()), Some(*k));
        }
    }
}
