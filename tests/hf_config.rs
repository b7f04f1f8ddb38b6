//! Import of Hugging Face `config.json` files: the families we support give the published
//! parameter counts, and every kind of bad input gives an error that names the field.
//!
//! The files under tests/data/configs/ are the models' config.json as published on the Hub.

use vram_ledger::ledger::hf_config::parse_config;
use vram_ledger::ledger::presets;

fn load(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/configs/{name}.json", env!("CARGO_MANIFEST_DIR"))).expect(name)
}

#[test]
fn supported_families_import_with_their_published_counts() {
    // (file, preset whose published count the import must equal)
    for (file, preset) in [
        ("llama-3.1-8b", "llama-3.1-8b"),
        ("mistral-7b", "mistral-7b"),
        ("mixtral-8x7b", "mixtral-8x7b"),
        ("qwen2.5-0.5b", "qwen2.5-0.5b"),
        ("qwen2-vl-7b", "qwen2-vl-7b"),
        ("gemma-2-2b", "gemma-2-2b"),
        ("phi-3-mini", "phi-3-mini"),
        ("gpt2", "gpt2"),
    ] {
        let arch = parse_config(&load(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let published = presets::model(preset).expect(preset).published_parameters;
        assert_eq!(arch.parameters(), published, "{file}");
    }
}

#[test]
fn imported_architecture_keeps_gqa_and_tying() {
    let a = parse_config(&load("llama-3.1-8b")).expect("llama");
    assert_eq!((a.heads, a.kv_heads, a.head_dim, a.tied_embeddings), (32, 8, 128, false));
    let q = parse_config(&load("qwen2.5-0.5b")).expect("qwen");
    assert!(q.tied_embeddings && q.qkv_bias);
    let g = parse_config(&load("gemma-2-2b")).expect("gemma");
    assert_eq!((g.head_dim, g.norms_per_layer), (256, 4), "Gemma-2 head_dim is not hidden/heads");
    // Gemma-2 soft-caps (attn 50.0, final 30.0 in the file); nulls turn it off, other families never do.
    assert!(g.softcapping && !a.softcapping && !q.softcapping);
    let off = load("gemma-2-2b")
        .replace("\"attn_logit_softcapping\": 50.0", "\"attn_logit_softcapping\": null")
        .replace("\"final_logit_softcapping\": 30.0", "\"final_logit_softcapping\": null");
    assert!(!parse_config(&off).expect("gemma without caps").softcapping);
    let bad = load("gemma-2-2b").replace("\"final_logit_softcapping\": 30.0", "\"final_logit_softcapping\": \"lots\"");
    assert!(parse_config(&bad).unwrap_err().to_string().contains("final_logit_softcapping"));
}

/// Newer transformers nest the language model of Qwen2-VL under `text_config`.
#[test]
fn qwen2_vl_with_nested_text_config() {
    let mut v: serde_json::Value = serde_json::from_str(&load("qwen2-vl-7b")).expect("json");
    let obj = v.as_object_mut().expect("object");
    let mut text = serde_json::Map::new();
    for key in [
        "hidden_size",
        "intermediate_size",
        "num_attention_heads",
        "num_hidden_layers",
        "num_key_value_heads",
        "vocab_size",
    ] {
        text.insert(key.into(), obj.remove(key).expect(key));
    }
    obj.insert("text_config".into(), text.into());
    let a = parse_config(&v.to_string()).expect("nested");
    assert_eq!(a.parameters(), 8_291_375_616);
}

fn error_of(text: &str) -> String {
    match parse_config(text) {
        Ok(a) => panic!("accepted {text}: {a:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn errors_name_the_field() {
    let llama = load("llama-3.1-8b");
    let without = |key: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&llama).expect("json");
        v.as_object_mut().expect("object").remove(key);
        v.to_string()
    };
    for key in ["hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"] {
        let e = error_of(&without(key));
        assert!(e.contains(&format!("`{key}`")) && e.contains("missing"), "{e}");
    }
    let e = error_of(&without("model_type"));
    assert!(e.contains("`model_type`") && e.contains("llama"), "lists the supported families: {e}");

    let with = |key: &str, value: &str| {
        llama.replacen(&format!("\"{key}\":"), &format!("\"{key}\": {value}, \"_old_{key}\":"), 1)
    };
    let e = error_of(&with("hidden_size", "\"4096\""));
    assert!(e.contains("`hidden_size`") && e.contains("whole number"), "{e}");
    let e = error_of(&with("num_hidden_layers", "-3"));
    assert!(e.contains("`num_hidden_layers`"), "{e}");
    let e = error_of(&with("num_key_value_heads", "64"));
    assert!(e.contains("`kv_heads`") || e.contains("num_key_value_heads"), "{e}");
    let e = error_of(&with("vocab_size", "0"));
    assert!(e.contains("`vocab_size`") && e.contains("at least 1"), "{e}");
    let e = error_of(&with("tie_word_embeddings", "\"yes\""));
    assert!(e.contains("`tie_word_embeddings`"), "{e}");
    let e = error_of(&with("hidden_size", "1e30"));
    assert!(e.contains("`hidden_size`"), "{e}");
}

#[test]
fn not_json_or_not_an_object_or_unsupported() {
    assert!(error_of("{\"model_type\": ").contains("not valid JSON"));
    assert!(error_of("[1, 2]").contains("JSON object"));
    assert!(error_of("null").contains("JSON object"));
    let e = error_of(r#"{"model_type": "t5"}"#);
    assert!(e.contains("t5") && e.contains("not supported"), "{e}");
    let e = error_of(
        r#"{"model_type": "qwen2_vl", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 8, "vocab_size": 8}"#,
    );
    assert!(e.contains("`vision_config`"), "{e}");
}

/// Only `owner/name` ids reach the fetch URL: nothing that could change its path or host.
#[test]
fn model_ids_are_checked_before_fetching() {
    use vram_ledger::ledger::hf_config::valid_model_id;
    for ok in ["Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B", "a/b", "x_y/z.v-1"] {
        assert!(valid_model_id(ok), "{ok}");
    }
    for bad in
        ["", "qwen", "a/b/c", "../etc", "a/..", "a/b?x=1", "a/b#", "https://evil/x", "a /b", "a/<img>", "/b", "a/"]
    {
        assert!(!valid_model_id(bad), "{bad}");
    }
}

/// A hostile config with the largest accepted sizes gives a (saturated) count, not an overflow.
#[test]
fn absurd_sizes_saturate() {
    let text = r#"{"model_type": "qwen2_vl", "hidden_size": 16777216, "num_hidden_layers": 10000, "num_attention_heads": 16777216,
        "num_key_value_heads": 16777216, "head_dim": 16777216, "intermediate_size": 16777216, "vocab_size": 134217728,
        "vision_config": {"depth": 10000, "embed_dim": 16777216, "num_heads": 1, "patch_size": 4096, "spatial_merge_size": 64, "temporal_patch_size": 64, "mlp_ratio": 900000}}"#;
    let arch = parse_config(text).expect("accepted sizes");
    assert_eq!(arch.parameters(), u64::MAX);
    let s = vram_ledger::ledger::Scenario { architecture: arch, images: 1024, image_px: 100_000, ..Default::default() };
    let bill = vram_ledger::ledger::estimate(&s);
    assert!(!bill.fits());
}
