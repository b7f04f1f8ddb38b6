//! The scenario vocabulary as a query string: the public contract of share links and the CLI.

use vram_ledger::ledger::scenario::{AttentionKernel, LoraTargets, Method, Mode, Optimizer, Precision};
use vram_ledger::ledger::storage::{KvDtype, StorageFormat};
use vram_ledger::ledger::Scenario;
use vram_ledger::query::{parse, percent_decode, split_query, to_query, KEYS};

/// The defaults a missing key stands for are frozen: links in course pages depend on them. This
/// test spells them out; changing one is a breaking change.
#[test]
fn defaults_are_the_documented_contract() {
    let s = parse("").scenario;
    assert_eq!(s.model_id.as_deref(), Some("llama-3.1-8b"));
    assert_eq!((s.mode, s.method, s.precision), (Mode::Train, Method::Lora, Precision::Mixed));
    assert_eq!((s.quant, s.double_quant, s.optimizer), (StorageFormat::Bf16, true, Optimizer::AdamW));
    assert_eq!((s.seq, s.batch, s.accum, s.rank), (2048, 1, 1, 16));
    assert_eq!((s.targets, s.checkpointing.is_on(), s.attention), (LoraTargets::All, true, AttentionKernel::Sdpa));
    assert_eq!(
        (s.gpus, s.zero, s.kv, s.generated, s.images, s.image.text()),
        (1, 0, KvDtype::Bf16, 0, 0, "448".into())
    );
    assert_eq!((s.gpu.id, s.overhead_mib), (Some("rtx4090"), 500.0));
    assert_eq!(parse("method=qlora").scenario.quant, StorageFormat::Nf4, "QLoRA's base defaults to NF4");
    // Every documented default of the key table agrees with the parser.
    for k in KEYS.iter().filter(|k| k.doc.default.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')) {
        let p = parse(&format!("{}={}", k.name, k.doc.default));
        assert!(p.errors.is_empty(), "{}: {:?}", k.name, p.errors);
        assert_eq!(to_query(&p.scenario, &[]), "", "{}={} is the default", k.name, k.doc.default);
    }
}

#[test]
fn default_scenario_writes_an_empty_query() {
    assert_eq!(to_query(&Scenario::default(), &[]), "");
    assert_eq!(to_query(&Scenario::default(), &[("lang", "zh")]), "lang=zh");
}

/// Writing then reading gives back the same scenario, for presets with overrides, custom models,
/// custom GPUs and every mode.
#[test]
fn round_trips() {
    for q in [
        "model=qwen2.5-7b&method=qlora&rank=64&targets=qv&seq=4096&batch=4&accum=8",
        "model=mixtral-8x7b&mode=infer&quant=awq4&kv=fp8&gen=512&batch=16&gpu=h100-80g",
        "model=llama-2-70b&method=full&precision=bf16&optim=adamw8bit&gpus=8&zero=3&gc=0&attn=flash",
        "model=gemma-2-9b&loss=fused",
        "loss=hf_shift&seq=932",
        "method=qlora&bnb=legacy&targets=qv",
        "model=custom&layers=4&hidden=256&heads=4&kv_heads=2&head_dim=64&ffn=512&vocab=1000&tied=1&mlp=gelu",
        "model=llama-3.1-8b&layers=16&kv_heads=4&experts=8&active_experts=2",
        "model=qwen2-vl-7b&images=4&image_px=896&vram=22.5&overhead_mib=700",
        "mode=infer&quant=q4_k_m&seq=131072&kv=int4",
        "method=qlora&quant=gptq4&dq=0&optim=adafactor&precision=fp32",
    ] {
        let first = parse(q);
        assert!(first.errors.is_empty() && first.warnings.is_empty(), "{q}: {:?} {:?}", first.errors, first.warnings);
        let written = to_query(&first.scenario, &[]);
        let second = parse(&written);
        assert!(second.errors.is_empty(), "{written}: {:?}", second.errors);
        assert_eq!(second.scenario, first.scenario, "{q} → {written}");
        assert_eq!(to_query(&second.scenario, &[]), written, "writing is stable");
    }
}

#[test]
fn whole_urls_fragments_and_percent_escapes() {
    let url = "https://course.example/7.1/calc/?model=qwen2.5-7b&seq=4096&lang=zh#ledger";
    let p = parse(url);
    assert_eq!(p.scenario.model_id.as_deref(), Some("qwen2.5-7b"));
    assert_eq!(p.scenario.seq, 4096);
    assert_eq!(p.ui, vec![("lang".to_string(), "zh".to_string())]);
    assert!(parse("https://course.example/calc/").errors.is_empty());
    assert_eq!(parse("?model=llama%2D2%2D7b").scenario.model_id.as_deref(), Some("llama-2-7b"));
    assert_eq!(split_query("a=1&&=2&b"), vec![("a".into(), "1".into()), ("b".into(), String::new())]);
    assert_eq!(percent_decode("%E6%98%BE%E5%AD%98+%zz%"), "显存 %zz%");
}

#[test]
fn unknown_keys_warn_and_invalid_values_list_what_is_accepted() {
    let p = parse("colour=red&quant=int3&seq=0&batch=lots&gc=yes&gpu=rtx9090&model=llama-9");
    assert_eq!(p.warnings.len(), 1);
    assert!(p.warnings[0].message.to_string().contains("colour"));
    let msg = |key: &str| p.errors.iter().find(|e| e.key == key).map(|e| e.message.to_string()).unwrap_or_default();
    assert!(msg("quant").contains("nf4") && msg("quant").contains("q4_k_m"), "{}", msg("quant"));
    assert!(msg("seq").contains("1 to 100000000"), "{}", msg("seq"));
    assert!(msg("batch").contains("lots"));
    assert!(msg("gc").contains("0, 1, reentrant, sac"), "{}", msg("gc"));
    assert!(msg("gpu").contains("rtx4090"));
    assert!(msg("model").contains("llama-3.1-8b"));
    // Each bad value kept its default.
    let d = Scenario::default();
    assert_eq!((p.scenario.seq, p.scenario.batch, p.scenario.quant), (d.seq, d.batch, d.quant));
}

#[test]
fn custom_size_wins_over_a_preset_and_bad_kv_heads_are_clamped() {
    let p = parse("gpu=a100-80g&vram=40");
    assert_eq!(p.scenario.gpu.bytes, 40 * (1 << 30));
    assert_eq!(p.scenario.gpu.id, None);
    let p = parse("heads=8&kv_heads=16");
    assert_eq!(p.scenario.architecture.kv_heads, 8);
    assert!(p.errors.iter().any(|e| e.key == "kv_heads"));
}

#[test]
fn every_key_is_documented_once() {
    let mut keys: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
    keys.sort_unstable();
    let n = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), n);
    for key in [
        "model",
        "layers",
        "hidden",
        "heads",
        "kv_heads",
        "head_dim",
        "ffn",
        "vocab",
        "tied",
        "mlp",
        "experts",
        "active_experts",
        "mode",
        "method",
        "precision",
        "quant",
        "optim",
        "seq",
        "batch",
        "accum",
        "rank",
        "targets",
        "gc",
        "attn",
        "bnb",
        "loss",
        "gpus",
        "zero",
        "kv",
        "gen",
        "images",
        "image_px",
        "gpu",
        "vram",
        "overhead_mib",
    ] {
        assert!(keys.contains(&key), "{key} is documented");
    }
}

/// The UI's controls set one key at a time through `with_key`.
#[test]
fn with_key_sets_one_value_and_rejects_bad_ones() {
    use vram_ledger::query::{with_key, Key};
    let s = parse("model=llama-3.1-8b&layers=16&seq=4096").scenario;
    let (t, p) = with_key(&s, Key::Batch, "8");
    assert!(p.is_none());
    assert_eq!((t.batch, t.seq, t.architecture.layers), (8, 4096, 16));
    // A new model drops the old model's overrides.
    let (t, _) = with_key(&s, Key::Model, "qwen2.5-7b");
    assert_eq!((t.architecture.layers, t.seq), (28, 4096));
    // QLoRA brings its NF4 default; back to LoRA brings bf16.
    let (q, _) = with_key(&s, Key::Method, "qlora");
    assert_eq!(q.quant, StorageFormat::Nf4);
    let (l, _) = with_key(&q, Key::Method, "lora");
    assert_eq!(l.quant, StorageFormat::Bf16);
    let (same, problem) = with_key(&s, Key::Seq, "-1");
    assert_eq!(same, s);
    assert!(problem.expect("problem").message.to_string().contains("seq=-1"));
}

/// A pasted config.json becomes a custom model; its link must reproduce the same architecture and
/// so the same bill. Every preset, taken as a custom model, round-trips through the link.
#[test]
fn every_architecture_round_trips_as_a_custom_model() {
    use vram_ledger::ledger::{estimate, presets};
    for p in presets::models() {
        for mode in ["", "mode=infer&"] {
            let base = parse(&format!("{mode}model={}", p.id)).scenario;
            let mut custom = base.clone();
            custom.model_id = None;
            custom.architecture.name = "custom".into();
            let link = to_query(&custom, &[]);
            let back = parse(&link);
            assert!(back.errors.is_empty() && back.warnings.is_empty(), "{}: {link}: {:?}", p.id, back.errors);
            assert_eq!(back.scenario.architecture, custom.architecture, "{}: {link}", p.id);
            assert_eq!(estimate(&back.scenario), estimate(&custom), "{}", p.id);
            // And the preset's own link names it and nothing of its shape.
            let own = to_query(&base, &[]);
            let expected = if p.id == "llama-3.1-8b" { String::new() } else { format!("model={}", p.id) };
            assert_eq!(own.replace("&mode=infer", "").replace("mode=infer", ""), expected, "{}", p.id);
        }
    }
}

/// The full-attention layers' own shape (`full_kv_heads`, `full_head_dim`, `full_k_eq_v`): a link
/// sets and writes it back, 0 stands for the model's, and a shape that is the model's is no shape
/// of its own.
#[test]
fn full_attention_layers_take_their_own_shape() {
    let q = "model=gemma-3-27b&full_kv_heads=4&full_head_dim=512&full_k_eq_v=1";
    let s = parse(q).scenario;
    let own = s.architecture.full_attention.expect("own shape");
    assert_eq!((own.kv_heads, own.head_dim, own.k_is_v), (4, 512, true));
    assert!(s.architecture.name.ends_with("(modified)"));
    let written = to_query(&s, &[]);
    assert!(written.contains("full_kv_heads=4&full_head_dim=512&full_k_eq_v=1"), "{written}");
    assert_eq!(parse(&written).scenario, s);
    // Gemma-3 27B: 16 KV heads of 128; a head width of its own keeps the model's KV heads.
    let s = parse("model=gemma-3-27b&full_head_dim=256&full_kv_heads=0").scenario;
    assert_eq!(s.architecture.full_attention.map(|f| (f.kv_heads, f.head_dim)), Some((16, 256)));
    let s = parse("model=gemma-3-27b&full_kv_heads=16&full_head_dim=128").scenario;
    assert_eq!(s.architecture.full_attention, None, "the model's own shape");
    assert!(s.billed_on_demand() == s.architecture.full_attention.is_some());
    // More KV heads than query heads is refused by the architecture's check.
    let p = parse("model=gemma-3-27b&full_kv_heads=64");
    assert!(!p.errors.is_empty() || p.scenario.architecture.validate().is_err());
}
