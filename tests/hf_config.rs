//! Import of Hugging Face `config.json` files: the families we support give the published
//! parameter counts, and every kind of bad input gives an error that names the field.
//!
//! The files under tests/data/configs/ are the models' config.json (see the README there for where
//! each was found).

use vram_ledger::ledger::architecture::{ImageSize, VisionKind};
use vram_ledger::ledger::hf_config::parse_config;
use vram_ledger::ledger::presets;

fn load(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/configs/{name}.json", env!("CARGO_MANIFEST_DIR"))).expect(name)
}

/// Every preset's config.json imports to exactly the preset's architecture (all but the display
/// name), and so to its published parameter count and its checkpoint's weight format.
#[test]
fn every_preset_config_imports_to_its_preset() {
    let mut checked = 0;
    for p in presets::models() {
        let path = format!("{}/tests/data/configs/{}.json", env!("CARGO_MANIFEST_DIR"), p.id);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let imported = parse_config(&text).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        let mut a = imported.architecture;
        a.name = p.architecture.name.clone();
        assert_eq!(a, p.architecture, "{}", p.id);
        assert_eq!(a.parameters(), p.published_parameters, "{}", p.id);
        // A checkpoint's MTP layers (DeepSeek-V3's, GLM-4.5's) are named, not billed.
        let mtp = |n: &vram_ledger::ledger::msg::Msg| n.to_string().contains("num_nextn_predict_layers");
        assert!(imported.notes.iter().all(mtp), "{}: {:?}", p.id, imported.notes);
        checked += 1;
    }
    // 41 of the 55 presets have their config.json here (the older Llama-2, Llama-3.1/3.2, Qwen2.5
    // and Gemma-2 sizes share their family's layout with one that does).
    assert_eq!(checked, 41);
}

/// What the importer reads from the fields that set current models apart.
#[test]
fn current_architectures_are_read_from_their_fields() {
    use vram_ledger::ledger::architecture::LayerKind;
    use vram_ledger::ledger::storage::{QuantLayers, StorageFormat};
    let arch = |f: &str| parse_config(&load(f)).unwrap_or_else(|e| panic!("{f}: {e}")).architecture;
    let ds = arch("deepseek-v3");
    let mla = ds.mla.expect("latent attention");
    assert_eq!((mla.kv_lora_rank, mla.qk_rope_head_dim, mla.q_lora_rank), (512, 64, 1536));
    assert_eq!(ds.checkpoint, (StorageFormat::Fp8Block, QuantLayers::All), "quant_method fp8 with weight_block_size");
    let moe = ds.moe.expect("experts");
    assert_eq!(
        (moe.experts, moe.active, moe.shared, moe.dense_layers, moe.dense_ffn, moe.router_bias),
        (256, 8, 1, 3, 18432, true)
    );
    let oss = arch("gpt-oss-20b");
    assert_eq!(
        (oss.layer_pattern.text(), oss.window, oss.sinks),
        ("SF".to_string(), 128, true),
        "layer_types alternate sliding/full"
    );
    assert_eq!(
        oss.checkpoint,
        (StorageFormat::Mxfp4, QuantLayers::Experts),
        "modules_to_not_convert: self_attn, router"
    );
    let g3 = arch("gemma-3-27b");
    assert_eq!((g3.layer_pattern.text(), g3.window, g3.layers_of(LayerKind::Full)), ("SSSSSF".to_string(), 1024, 10));
    assert_eq!(g3.vocab, 262208, "the raw config omits vocab_size: Gemma3TextConfig's default");
    assert!(g3.vision.is_some() && g3.qk_norm && g3.norms_per_layer == 4);
    let l4 = arch("llama-4-maverick");
    assert_eq!(
        (l4.layer_pattern.text(), l4.chunk, l4.moe_layers()),
        ("CCCF".to_string(), 8192, 24),
        "every 2nd layer MoE"
    );
    // transformers' Llama4TextMoe runs all 128 routed experts over every token.
    assert!(l4.moe.is_some_and(|m| m.dense_experts && m.experts_per_token() == 128));
    assert!(!arch("qwen3-30b-a3b").moe.is_some_and(|m| m.dense_experts), "Qwen3-MoE routes each token to its 8");
    let next = arch("qwen3-next-80b-a3b");
    assert_eq!((next.layer_pattern.text(), next.layers_of(LayerKind::Linear)), ("LLLF".to_string(), 36));
    assert!(next.linear.is_some() && next.attn_gate);
}

/// A config of a model_type the importer does not know, with the standard decoder fields, is
/// imported as a generic decoder with a note; without them the error names the missing field.
#[test]
fn unknown_model_types_import_as_generic_decoders() {
    let llama = load("llama-3.1-8b").replace("\"model_type\": \"llama\"", "\"model_type\": \"my_new_decoder\"");
    let imported = parse_config(&llama).expect("generic");
    assert_eq!(imported.architecture.parameters(), 8_030_261_248);
    assert_eq!(imported.notes.len(), 1);
    assert!(imported.notes[0].to_string().contains("my_new_decoder"));
    let e = error_of(r#"{"model_type": "t5", "d_model": 512}"#);
    assert!(e.contains("`num_hidden_layers`") && e.contains("missing"), "{e}");
}

/// quantization_config of each method gives its weight format.
#[test]
fn quantization_configs_give_the_weight_format() {
    use vram_ledger::ledger::storage::StorageFormat as F;
    let with = |q: &str| {
        let text = load("qwen2.5-0.5b").replacen('{', &format!("{{\"quantization_config\": {q},"), 1);
        parse_config(&text).unwrap_or_else(|e| panic!("{q}: {e}")).architecture.checkpoint.0
    };
    assert_eq!(with(r#"{"quant_method": "awq", "bits": 4}"#), F::Awq4);
    assert_eq!(with(r#"{"quant_method": "gptq", "bits": 4}"#), F::Gptq4);
    assert_eq!(with(r#"{"quant_method": "bitsandbytes", "load_in_4bit": true}"#), F::Nf4);
    assert_eq!(with(r#"{"quant_method": "bitsandbytes", "load_in_8bit": true}"#), F::Int8);
    assert_eq!(with(r#"{"quant_method": "fbgemm_fp8"}"#), F::Fp8Channel);
    assert_eq!(
        with(r#"{"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 4}}}}"#),
        F::W4a16
    );
    assert_eq!(
        with(
            r#"{"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 8, "type": "int"}, "input_activations": {"num_bits": 8}}}}"#
        ),
        F::W8a8
    );
    assert_eq!(with(r#"{"quant_method": "something_new"}"#), F::Bf16);
}

#[test]
fn imported_architecture_keeps_gqa_and_tying() {
    let arch = |f: &str| parse_config(&load(f)).unwrap_or_else(|e| panic!("{f}: {e}")).architecture;
    let a = arch("llama-3.1-8b");
    assert_eq!((a.heads, a.kv_heads, a.head_dim, a.tied_embeddings), (32, 8, 128, false));
    let q = arch("qwen2.5-0.5b");
    assert!(q.tied_embeddings && q.qkv_bias);
    let g = arch("gemma-2-2b");
    assert_eq!((g.head_dim, g.norms_per_layer), (256, 4), "Gemma-2 head_dim is not hidden/heads");
    // Gemma-2 soft-caps (attn 50.0, final 30.0 in the file); nulls turn it off, other families never do.
    assert!(g.softcapping && !a.softcapping && !q.softcapping);
    let off = load("gemma-2-2b")
        .replace("\"attn_logit_softcapping\": 50.0", "\"attn_logit_softcapping\": null")
        .replace("\"final_logit_softcapping\": 30.0", "\"final_logit_softcapping\": null");
    assert!(!parse_config(&off).expect("gemma without caps").architecture.softcapping);
    let bad = load("gemma-2-2b").replace("\"final_logit_softcapping\": 30.0", "\"final_logit_softcapping\": \"lots\"");
    assert!(error_of(&bad).contains("final_logit_softcapping"));
}

/// Newer transformers nest the language model of Qwen2-VL under `text_config`; errors then name
/// the nested field.
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
    let a = parse_config(&v.to_string()).expect("nested").architecture;
    assert_eq!(a.parameters(), 8_291_375_616);
    let broken = v.to_string().replace("\"vocab_size\":152064", "\"vocab_size\":\"many\"");
    assert!(error_of(&broken).contains("`text_config.vocab_size`"));
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
    assert!(e.contains("`num_hidden_layers`"), "{e}");
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
    assert_eq!(arch.architecture.parameters(), u64::MAX);
    let s = vram_ledger::ledger::Scenario {
        architecture: arch.architecture,
        images: 1024,
        image: vram_ledger::ledger::architecture::ImageSize::square(100_000),
        ..Default::default()
    };
    let bill = vram_ledger::ledger::estimate(&s);
    assert!(!bill.fits());
}

/// Big files a user may drop by mistake are read in one linear pass and get a message saying what
/// they are (the reader once took 18 s on the first: a quadratic member lookup); more than 16 MiB is
/// refused unread. The times are `make bench`'s ("readers"); here the answers.
#[test]
fn big_files_are_read_or_refused_with_a_message() {
    use vram_ledger::i18n::{render, Lang};
    use vram_ledger::ledger::hf_config::MAX_CONFIG_BYTES;
    let message = |text: &str| render(Lang::En, &parse_config(text).expect_err("not a config").0);
    // 80,000 members, 1.2 MB, none of them `model_type`.
    let members: Vec<String> = (0..80_000).map(|i| format!("\"k{i}\": {i}")).collect();
    let wide = format!("{{{}}}", members.join(", "));
    assert!(wide.len() > 1_200_000);
    assert!(message(&wide).starts_with("field `model_type` is missing"), "{}", message(&wide));
    // A tokenizer.json with a 150,000-entry vocabulary: named as what it is.
    let vocab: Vec<String> = (0..150_000).map(|i| format!("\"tok{i}\": {i}")).collect();
    let tokenizer = format!(
        r#"{{"version": "1.0", "added_tokens": [], "model": {{"type": "BPE", "vocab": {{{}}}}}}}"#,
        vocab.join(", ")
    );
    assert!(message(&tokenizer).contains("a tokenizer (`tokenizer.json`), not the model's `config.json`"));
    assert!(message(r#"{"metadata": {}, "weight_map": {"lm_head.weight": "model-00004.safetensors"}}"#)
        .contains("`model.safetensors.index.json`"));
    assert!(
        message(r#"{"bos_token_id": 1, "eos_token_id": 2, "do_sample": true}"#).contains("`generation_config.json`")
    );
    // Over the bound: refused with its size, unread.
    let huge = format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_CONFIG_BYTES));
    assert!(message(&huge).starts_with("the text is 16.00 MiB"), "{}", message(&huge));
    // Nesting deeper than 128 levels is an error, not a stack overflow.
    let deep = message(&"[".repeat(100_000));
    assert!(deep.starts_with("config.json is not valid JSON: nested too deeply at byte 129"), "{deep}");
}

/// The 2025–26 model types people fine-tune beyond the presets, from their real config.json files
/// (tests/data/configs/README.md, docs/research/frameworks/configs-2026.md): each read as its
/// family, within 3 % of its published parameter count (the published figures are rounded).
#[test]
fn models_of_2026_import_to_their_published_size() {
    use vram_ledger::ledger::architecture::LayerKind;
    let import = |f: &str| parse_config(&load(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let near = |f: &str, published: f64| {
        let imported = import(f);
        let n = imported.architecture.parameters() as f64;
        assert!((n / published - 1.0).abs() < 0.03, "{f}: {n} vs {published}");
        imported
    };
    // Qwen3.5-27B: "27B (dense)"; Gated DeltaNet 3 of every 4 layers, gated attention, Qwen3-VL's tower.
    let q = near("qwen3.5-27b", 27e9).architecture;
    assert_eq!(q.layer_pattern.text(), "LLLF");
    assert!(q.attn_gate && q.linear.is_some() && q.vision.is_some());
    // Qwen3.5-35B-A3B: "35B in total and 3B activated"; no dense intermediate_size.
    let m = near("qwen3.5-35b-a3b", 35e9).architecture;
    let moe = m.moe.expect("experts");
    assert_eq!((moe.experts, moe.active, moe.expert_ffn, moe.shared, moe.shared_ffn), (256, 8, 512, 1, 512));
    // Hunyuan-A13B: "a total of 80 billion parameters"; per-layer lists, the shared MLP, tied.
    let h = near("hunyuan-a13b", 80e9);
    let hm = h.architecture.moe.expect("experts");
    assert_eq!((hm.experts, hm.active, hm.shared, hm.shared_ffn), (64, 8, 1, 3072));
    assert!(h.architecture.tied_embeddings && h.architecture.qk_norm);
    assert!(h.notes.is_empty(), "uniform lists need no note: {:?}", h.notes);
    // Gemma-4 26B-A4B: "25.2B total parameters"; the MoE block beside the dense MLP, sliding 5:1.
    let g = near("gemma-4-26b-a4b", 25.2e9);
    let gm = g.architecture.moe.expect("experts");
    assert_eq!((gm.experts, gm.active, gm.expert_ffn, gm.shared_ffn), (128, 8, 704, 2112));
    assert_eq!(g.architecture.layer_pattern.text(), "SSSSSF");
    assert!(g.architecture.layer_pattern.kinds().contains(&LayerKind::Sliding) && g.architecture.window == 1024);
    // Its 5 full-attention layers: 2 KV heads × 512, K used as V (no v_proj). The text model's
    // count from the checkpoint's shapes (a helper's reading of transformers 5.25's
    // `modeling_gemma4.py`, docs/research/frameworks/configs-2026.md): 25,233,141,790.
    let full = g.architecture.full_attention.expect("own full-attention shape");
    assert_eq!((full.kv_heads, full.head_dim, full.k_is_v), (2, 512, true));
    let text = g.architecture.parameters() - g.architecture.encoder_parameters();
    assert!((text as f64 / 25_233_141_790.0 - 1.0).abs() < 1e-4, "text parameters {text}");
    assert!(g.notes.is_empty(), "the global layers are billed in their own shape: {:?}", g.notes);
    // Kimi-K2.5: "Total parameters 1T".
    near("kimi-k2.5", 1.0e12);
}

/// A per-layer list whose entries differ is billed at its largest, and the note says so.
#[test]
fn per_layer_lists_read_as_their_largest() {
    let text = load("hunyuan-a13b").replacen("\"moe_topk\": [\n    8,", "\"moe_topk\": [\n    2,", 1);
    assert_ne!(text, load("hunyuan-a13b"), "the fixture's layout changed");
    let imported = parse_config(&text).expect("imports");
    assert_eq!(imported.architecture.moe.expect("experts").active, 8);
    let notes: Vec<String> =
        imported.notes.iter().map(|m| vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, m)).collect();
    assert!(notes.iter().any(|n| n.contains("moe_topk") && n.contains("2 … 8")), "{notes:?}");
    assert!(error_of(&load("hunyuan-a13b").replacen("\"moe_topk\": [\n    8,", "\"moe_topk\": [\n    \"x\",", 1))
        .contains("moe_topk"));
}

/// An unknown type is read as the generic decoder, and the note names the fields that describe its
/// shape and were not read. A hybrid stack given by fields the generic reading does not know (here
/// Nemotron-H's, as if its type were unknown) is named field by field.
#[test]
fn a_generic_import_names_the_fields_it_ignored() {
    let text = load("nemotron-3-nano-30b-a3b").replace("\"nemotron_h\"", "\"my_hybrid\"");
    let imported = parse_config(&text).expect("generic");
    let notes: Vec<String> =
        imported.notes.iter().map(|m| vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, m)).collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("my_hybrid"));
    for field in ["hybrid_override_pattern", "mamba_num_heads", "ssm_state_size", "n_groups"] {
        assert!(notes[1].contains(field), "{field} in {}", notes[1]);
    }
    // Fields the generic reading uses, or that do not describe the shape, are not listed.
    for field in ["num_hidden_layers", "rope_theta", "rms_norm_eps", "max_position_embeddings"] {
        assert!(!notes[1].contains(field), "{field} in {}", notes[1]);
    }
}

/// Nemotron-H (`nemotron_h`): 52 or 118 blocks, each a Mamba-2 mixer (M), an attention (*) or an MLP
/// (- dense, E mixture of experts), read from `hybrid_override_pattern` into layers without an MLP
/// (A, M) and MLP-only layers (P); squared-ReLU MLPs of two matrices, one norm per block.
/// Published: Nemotron-3-Nano "31.6B total parameters" (arXiv 2512.20848); Nemotron-H-56B "This
/// model has 56B model parameters" (its model card); the real files carry Python's `Infinity`.
#[test]
fn nemotron_h_blocks_are_read_one_by_one() {
    use vram_ledger::ledger::architecture::LayerKind;
    for (file, published, blocks) in
        [("nemotron-3-nano-30b-a3b", 31.6e9, (23, 6, 23)), ("nemotron-h-56b", 56e9, (54, 10, 54))]
    {
        let imported = parse_config(&load(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(imported.notes.is_empty(), "{file}: {:?}", imported.notes);
        let a = imported.architecture;
        let n = a.parameters() as f64;
        assert!((n / published - 1.0).abs() < 0.01, "{file}: {n} vs {published}");
        let counted = (a.layers_of(LayerKind::Linear), a.layers_of(LayerKind::Full), a.layers_of(LayerKind::None));
        assert_eq!(counted, blocks, "{file}: Mamba, attention and MLP blocks");
        assert_eq!(a.mlp_layers(), blocks.2, "{file}: only the MLP blocks have an MLP");
        assert_eq!(a.attention_layers(), blocks.1, "{file}: only the attention blocks cache keys and values");
        // The custom model's link carries the blocks (A, M, P letters) and reads back the same.
        let s = vram_ledger::ledger::Scenario { model_id: None, architecture: a.clone(), ..Default::default() };
        let back = vram_ledger::query::parse(&vram_ledger::query::to_query(&s, &[])).scenario.architecture;
        assert_eq!(back.parameters(), a.parameters(), "{file}");
        assert_eq!(back.layer_pattern, a.layer_pattern, "{file}");
    }
    let bad = load("nemotron-3-nano-30b-a3b").replacen("MEMEM*", "MEMEMX", 1);
    assert!(error_of(&bad).contains("hybrid_override_pattern"));
    let short = load("nemotron-3-nano-30b-a3b").replacen("MEMEM*", "MEM*", 1);
    assert!(error_of(&short).contains("52"));
}

/// Mamba-2 layers (Granite-4.0-H's `granitemoehybrid`, transformers' `MambaMixer2`), counted by hand
/// on a small config with the real field names (no Granite-4.0-H config.json was found as an
/// exact copy in a public repository: docs/research/frameworks/configs-2026.md).
/// hidden 64, heads 4 × head_dim 32 = inner 128, state N = 16, 1 group, conv 4:
///   in_proj 64 × (inner 128 + conv_dim (128 + 2·16) 160 + heads 4) = 18,688; conv 160 × (4 + 1) = 800;
///   dt_bias, A_log, D 3 × 4 = 12; gated norm 128; out_proj 128 × 64 = 8,192 → 27,820 per Mamba layer;
/// the attention layer (4 heads of 16, 2 KV heads): 64·64 + 2·64·32 + 64·64 = 12,288; the shared MLP of
/// 96 (gated) in each of 4 layers: 4 × 3 × 64 × 96 = 73,728; norms 2 × 4 × 64 + 64 = 576; the tied
/// embedding 100 × 64 = 6,400 → 3 × 27,820 + 12,288 + 73,728 + 576 + 6,400 = 176,452.
#[test]
fn mamba2_hybrid_layers_are_counted_as_transformers_builds_them() {
    let config = r#"{"model_type": "granitemoehybrid", "hidden_size": 64, "num_hidden_layers": 4,
        "layers_block_type": ["mamba", "mamba", "mamba", "attention"], "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 96, "shared_intermediate_size": 96, "num_local_experts": 0,
        "num_experts_per_tok": 0, "vocab_size": 100, "tie_word_embeddings": true, "mamba_n_heads": 4,
        "mamba_d_head": 32, "mamba_d_state": 16, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2,
        "time_step_limit": [0.0, Infinity]}"#;
    let imported = parse_config(config).expect("imports");
    let a = &imported.architecture;
    assert_eq!(a.parameters(), 176_452);
    let lin = a.linear.expect("Mamba-2 layers");
    assert_eq!((lin.v_heads, lin.head_dim, lin.ssm_state, lin.k_heads, lin.conv), (4, 32, 16, 1, 4));
    // The state of one sequence in one layer: heads × head_dim × N = 2,048 elements.
    assert_eq!(lin.state_elements(), 2_048);
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    // The custom model's link carries it (linear_state) and reads back the same.
    let s = vram_ledger::ledger::Scenario { model_id: None, architecture: a.clone(), ..Default::default() };
    let link = vram_ledger::query::to_query(&s, &[]);
    assert!(link.contains("linear_state=16"), "{link}");
    assert_eq!(vram_ledger::query::parse(&link).scenario.architecture.parameters(), 176_452);
}

/// ChatGLM / GLM-4's remote configs (`model_type: chatglm`) name the decoder's fields their own way
/// and point `auto_map` at `modeling_chatglm`, whose prefill the ledger replays (`src/ledger/chatglm.rs`): the
/// import reads them and sets `mask=full` (issue 30). GLM-4-9B's shape, by hand: embedding and
/// output 2 × 151,552 × 4,096 = 1,241,513,984; per layer q 4,096² + k, v 2 × 4,096 × 256 + o 4,096²
/// = 35,651,584, the q/k/v biases 4,096 + 2 × 256 = 4,608, the MLP 3 × 4,096 × 13,696 = 168,296,448,
/// two norms 8,192: 203,960,832 × 40 = 8,158,433,280; the final norm 4,096 → 9,399,951,360.
#[test]
fn chatglm_remote_configs_are_read_with_their_mask() {
    let config = r#"{"model_type": "chatglm", "num_layers": 40, "padded_vocab_size": 151552, "hidden_size": 4096,
        "ffn_hidden_size": 13696, "kv_channels": 128, "num_attention_heads": 32, "multi_query_attention": true,
        "multi_query_group_num": 2, "add_qkv_bias": true, "add_bias_linear": false, "tie_word_embeddings": false,
        "auto_map": {"AutoModelForCausalLM": "modeling_chatglm.ChatGLMForConditionalGeneration"}}"#;
    let imported = parse_config(config).expect("imports");
    assert_eq!(imported.architecture.parameters(), 9_399_951_360);
    assert!(imported.full_mask);
    assert_eq!(imported.notes.len(), 1, "only the mask is said: {:?}", imported.notes);
    assert!(!parse_config(&load("llama-3.1-8b")).expect("llama").full_mask);
}

/// The residual dropout a config trains with (`hidden_dropout`, `hidden_dropout_prob`, GPT-2's and
/// Phi's `resid_pdrop`): GPT-2's 0.1 (its config.json; GPT2Config's default when absent), Phi-4's
/// 0.0, Nemotron-H's `hidden_dropout` 0.0; a value outside [0, 1) is not a dropout and reads as none.
#[test]
fn hidden_dropout_is_read_from_its_fields() {
    let dropout = |f: &str| parse_config(&load(f)).unwrap_or_else(|e| panic!("{f}: {e}")).architecture.hidden_dropout;
    assert_eq!(dropout("gpt2"), 0.1);
    assert_eq!(dropout("phi-4"), 0.0);
    assert_eq!(dropout("nemotron-h-56b"), 0.0);
    assert_eq!(dropout("llama-3.1-8b"), 0.0);
    let with = |field: &str| {
        let text = load("qwen3-0.6b").replacen('{', &format!("{{{field},"), 1);
        parse_config(&text).expect("imports").architecture.hidden_dropout
    };
    assert_eq!(with(r#""hidden_dropout_prob": 0.1"#), 0.1);
    // Seed-OSS drops the attention's and the MLP's outputs by `residual_dropout` (transformers
    // 4.57.1 modeling_seed_oss.py L82, L184; its config class defaults to 0.1).
    assert_eq!(with(r#""residual_dropout": 0.1"#), 0.1);
    assert_eq!(with(r#""hidden_dropout": 1.5"#), 0.0);
    assert_eq!(with(r#""resid_pdrop": "x""#), 0.0);
}

/// The importer reads layer-indexed skip entries and leaves whole-kind ones to `quant_layers`: a
/// skip list naming `model.layers.0.self_attn` does not make the format MLP-only, a vision tower's
/// layers are 16-bit already, and a module the ledger does not itemise is named in a note.
#[test]
fn skip_lists_are_read_layer_by_layer() {
    use vram_ledger::ledger::storage::QuantLayers;
    let with = |list: &str| {
        let q = format!(
            "{{\"quantization_config\": {{\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true, \"llm_int8_skip_modules\": {list}}},"
        );
        parse_config(&load("qwen3-4b").replacen('{', &q, 1)).expect("imports")
    };
    // Qwen3-4B: hidden 2,560, 32 heads × 128, 8 KV heads, MLP 9,728. One attention block:
    // 2,560 × 4,096 × 2 + 2,560 × 1,024 × 2 = 26,214,400; one MLP 3 × 2,560 × 9,728 = 74,711,040.
    let i = with(
        r#"["lm_head", "model.layers.0.self_attn", "model.layers.0.mlp", "model.layers.0.mlp.down_proj", "visual.blocks.3.mlp"]"#,
    );
    assert_eq!(i.keep16, 26_214_400 + 74_711_040, "each module once");
    assert_eq!(i.architecture.checkpoint.1, QuantLayers::All);
    let i = with(r#"["model.layers.5.self_attn.o_proj", "model.layers.99.mlp", "model.layers.2.cross_attn.o_proj"]"#);
    assert_eq!(i.keep16, 2_560 * 4_096, "layer 99 does not exist; cross_attn is not itemised");
    let notes: Vec<String> =
        i.notes.iter().map(|m| vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, m)).collect();
    assert!(notes.iter().any(|n| n.contains("layers.2.cross_attn.o_proj")), "{notes:?}");
    assert!(with(r#"["lm_head"]"#).notes.is_empty(), "a list without layers is no news");
}

/// Issue 27's model types beyond the presets, each against its real `config.json`
/// (tests/data/configs/README.md says how each file was copied or put together) and the parameter
/// count its publisher or its checkpoint gives. Exact counts are the checkpoints' own
/// (`model.safetensors.index.json` totals, or transformers 4.57.1 building the model on the meta
/// device and summing `numel()`; collected in the twenty-second session:
/// docs/research/frameworks/configs-2026.md).
#[test]
fn models_people_fine_tune_in_2026_import_to_their_checkpoint_counts() {
    use vram_ledger::ledger::architecture::{LayerKind, MlpKind};
    let import = |f: &str| parse_config(&load(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let exact = |f: &str, count: u64| {
        let imported = import(f);
        let n = imported.architecture.parameters();
        assert!((n as f64 / count as f64 - 1.0).abs() < 2e-4, "{f}: {n} vs the checkpoint's {count}");
        imported
    };
    // Apertus (swiss-ai, model cards "8B" / "70B"; the Hub lists 8.05B and 70.6B): an MLP without
    // gate (up, xIELU, down), q and k normed per head. Its xIELU's two scalars per layer are left out.
    let apertus = exact("apertus-8b", 8_053_338_176).architecture;
    assert_eq!((apertus.mlp, apertus.qk_norm), (MlpKind::Gelu, true));
    exact("apertus-70b", 70_599_864_480);
    // OLMo 3 (allenai, "7B and 32B"): three sliding layers of 4,096 tokens to one full layer; q and
    // k normed over their whole width (no parameters to speak of; their fp32 copies are kept).
    let olmo = exact("olmo-3-7b", 7_298_011_136).architecture;
    assert_eq!((olmo.layer_pattern.text(), olmo.window, olmo.qk_norm), ("SSSF".to_string(), 4096, true));
    assert_eq!(olmo.layers_of(LayerKind::Sliding), 24);
    exact("olmo-3-32b", 32_233_522_176);
    // Seed-OSS-36B (README "36B"; its index: 36,151,104,512): q is 80 × 128 = 10,240 wide, twice
    // the hidden size, with biases on q, k and v (attention_bias) and none on o.
    let seed = exact("seed-oss-36b", 36_151_104_512).architecture;
    assert!(seed.qkv_bias && !seed.out_and_mlp_bias);
    assert_eq!(seed.q_dim(), 10_240);
    // MiMo-7B: Qwen2's decoder; its index holds 7,833,409,536 with the one MTP layer and
    // 7,622,619,136 without, which neither transformers nor vLLM's main model loads (the note says so).
    let mimo = exact("mimo-7b", 7_622_619_136);
    assert!(mimo.architecture.qkv_bias);
    assert!(mimo.notes.iter().any(|n| n.to_string().contains("num_nextn_predict_layers")), "{:?}", mimo.notes);
    // Qwen3.5-0.8B, 2B and 4B: Qwen3-VL's tower without its DeepStack mergers
    // (`deepstack_visual_indexes: []`). Unsloth 2026.2.1's banners (unslothai/notebooks @ 2daf110d,
    // the three Qwen3_5 vision notebooks) printed "Trainable parameters = 13,181,952 of 866,167,872",
    // "23,110,656 of 2,236,352,320" and "38,756,352 of 4,578,021,888": the models are the totals less
    // the adapters. With the three mergers counted the 0.8B was 37,847,040 (4.4 %) over.
    for (f, total, adapters) in [
        ("qwen3.5-0.8b", 866_167_872u64, 13_181_952u64),
        ("qwen3.5-2b", 2_236_352_320, 23_110_656),
        ("qwen3.5-4b", 4_578_021_888, 38_756_352),
    ] {
        let qwen = import(f).architecture;
        assert_eq!(qwen.parameters(), total - adapters, "{f}");
        assert_eq!(qwen.vision.map(|v| v.deepstack), Some(0), "{f}");
    }
    // Qwen3-VL's own towers keep their three.
    assert_eq!(import("qwen3-vl-8b").architecture.vision.map(|v| v.deepstack), Some(3));
    // Devstral-Small-2507 (Mistral's layout; index 23,572,403,200).
    exact("devstral-small-2507", 23_572_403_200);
    // Ministral 3 8B (card: "8.4B language model + 0.4B vision encoder"): a `mistral3` config whose
    // text model is `ministral3`, with Pixtral's tower.
    let ministral = import("ministral-3-8b").architecture;
    let n = ministral.parameters() as f64;
    assert!((n / 8.8e9 - 1.0).abs() < 0.03, "{n}");
    assert!(ministral.vision.is_some() && !ministral.tied_embeddings);
    // GLM-4.7 ("about 358B total parameters", with its MTP layer): 92 layers, the first 3 dense.
    let glm = import("glm-4.7");
    let n = glm.architecture.parameters() as f64;
    assert!((n / 358e9 - 1.0).abs() < 0.03, "{n}");
    assert!(glm.notes.iter().any(|n| n.to_string().contains("num_nextn_predict_layers")));
    // GLM-4.7-Flash (`glm4_moe_lite`; card "30B-A3B", Hub "31B params"): DeepSeek-V3's latent
    // attention over 20 heads of hidden 2,048 (not divisible: the widths are the latent's), 64 routed
    // experts of 1,536 (top 4) and one shared, the first layer dense (10,240), router bias, untied.
    // By hand: embedding and head 2 × 154,880 × 2,048 = 634,388,480; per layer attention q_a 2,048 ×
    // 768 + 768 + q_b 768 × 5,120 + kv_a 2,048 × 576 + 512 + kv_b 512 × 8,960 + o 5,120 × 2,048 =
    // 21,759,232 and two norms 4,096 (× 47); the dense MLP 3 × 2,048 × 10,240 = 62,914,560; each of
    // 46 MoE layers 64 × 3 × 2,048 × 1,536 + 3 × 2,048 × 1,536 + 64 × 2,048 + 64 = 613,548,096; the
    // final norm 2,048: 29,943,393,920. The checkpoint's multi-token-prediction layer (not loaded by
    // transformers, named in a note) with its own embedding and head copies adds 1,278,094,656:
    // 31.22 B, the Hub's 31B.
    let flash = exact("glm-4.7-flash", 29_943_393_920);
    let a = &flash.architecture;
    assert_eq!(a.parameters(), 29_943_393_920);
    let mla = a.mla.expect("latent attention");
    assert_eq!(
        (mla.q_lora_rank, mla.kv_lora_rank, mla.qk_nope_head_dim, mla.qk_rope_head_dim, mla.v_head_dim),
        (768, 512, 192, 64, 256)
    );
    let moe = a.moe.expect("experts");
    assert_eq!(
        (moe.experts, moe.active, moe.shared, moe.shared_ffn, moe.dense_layers, moe.dense_ffn, moe.router_bias),
        (64, 4, 1, 1536, 1, 10240, true)
    );
    assert!(!a.tied_embeddings && a.max_context == 202_752);
    assert!(flash.notes.iter().any(|n| n.to_string().contains("num_nextn_predict_layers")));
    // Qwen3-VL-30B-A3B (`qwen3_vl_moe`, Hub "31.1B"): Qwen3-30B-A3B's text model (its preset's
    // 30,532,122,624) and Qwen3-VL's tower with three DeepStack mergers (Qwen3-Omni's, below:
    // 538,631,408) — 31,070,754,032; read before the twenty-seventh session as a generic decoder
    // without its tower or q/k norms.
    let vl = exact("qwen3-vl-30b-a3b", 31_070_754_032).architecture;
    assert_eq!(vl.parameters(), 30_532_122_624 + 538_631_408);
    assert!(
        vl.qk_norm
            && vl
                .vision
                .is_some_and(|v| v.kind == vram_ledger::ledger::architecture::VisionKind::Qwen3Vl && v.deepstack == 3)
    );
    assert_eq!(vl.moe.map(|m| (m.experts, m.active, m.shared)), Some((128, 8, 0)));
    // ERNIE-4.5-21B-A3B (`ernie4_5_moe`, card "21B total, 3B activated", Hub "21.8B"): its experts
    // under ERNIE's names, which a generic reading misses (a dense 3.3 B model). By hand: the tied
    // embedding 103,424 × 2,560 = 264,765,440; per layer attention 2 × 2,560² + 2 × 2,560 × 512 =
    // 15,728,640 and two norms 5,120 (× 28); layer 0 dense, 3 × 2,560 × 12,288 = 94,371,840; layers
    // 1–27 with 64 experts of 1,536 (754,974,720), one shared MLP of 2 × 1,536 (23,592,960), the
    // router 64 × 2,560 and its 64 correction biases: 778,731,584 each; the final norm 2,560:
    // 21,825,437,888.
    let ernie = exact("ernie-4.5-21b-a3b", 21_825_437_888).architecture;
    assert_eq!(ernie.parameters(), 21_825_437_888);
    let moe = ernie.moe.expect("experts");
    assert_eq!(
        (moe.experts, moe.active, moe.shared, moe.shared_ffn, moe.dense_layers, moe.dense_ffn),
        (64, 6, 1, 3072, 1, 12288)
    );
    // "3B activated": 3.09 B per token besides the embedding (6 experts of 64, the shared MLP).
    let active = ernie.active_parameters() - 103_424 * 2_560;
    assert!((active as f64 / 3e9 - 1.0).abs() < 0.05, "{active}");
    // InternVL3.5-8B (`internvl_chat`: Qwen3-8B under `llm_config`, InternViT-300M; the checkpoint's
    // index: 8,528,318,464): the language model exactly the Qwen3-8B preset's, the tower read as
    // InternViT (`vision=internvl`) exactly, by hand from the remote code's modeling_intern_vit.py
    // (d 1,024, MLP 4,096, 14 px patches, 448 px tiles) and the projector `mlp1`:
    //   patch embedder 3 × 14² × 1,024 + 1,024 = 603,136; class token 1,024; positions 1,025 × 1,024
    //   = 1,049,600; a block: two LayerNorms 4,096, qkv 3,145,728 + 3,072, proj 1,048,576 + 1,024,
    //   the layer scales 2,048, fc1 4,194,304 + 4,096, fc2 4,194,304 + 1,024 = 12,598,272, × 24 =
    //   302,358,528; mlp1: LayerNorm(4,096) 8,192, 4,096 → 4,096 and 4,096 → 4,096 with biases
    //   2 × 16,781,312: 33,570,816. In all 337,583,104 = 8,528,318,464 − Qwen3-8B's.
    let internvl = exact("internvl3.5-8b", 8_528_318_464);
    let lm = presets::model("qwen3-8b").expect("preset").architecture.parameters();
    let tower = internvl.architecture.vision.expect("a tower");
    assert_eq!(tower.kind, VisionKind::InternVl);
    assert_eq!(tower.parameters(4096), 337_583_104);
    assert_eq!(internvl.architecture.parameters() - tower.parameters(4096), lm);
    assert_eq!((tower.blocks, tower.dim, tower.mlp, tower.patch, tower.merge), (24, 1024, 4096, 14, 2));
    assert!(internvl.notes.iter().any(|n| n.to_string().contains("InternViT")));
    // Its tiles (dynamic_preprocess with max_dynamic_patch 12, use_thumbnail): a 448 px image one
    // tile, 256 tokens; a 1,024 × 768 photograph the 4 × 3 grid (aspect 4/3 exactly) and the
    // thumbnail, 13 × 256; a 1,000 px square ties 1 × 1, 2 × 2 and 3 × 3 and takes each larger one
    // while its area passes half of theirs (1,000² > 0.5 × 448² × 9 = 903,168): 10 tiles; a 320 × 50
    // formula strip (aspect 6.4) the nearest 6 × 1 and the thumbnail: 7 tiles. Each tile is 1,024
    // patches and a class token through the tower.
    let tokens = |w: u64, h: u64| tower.tokens_per_image(ImageSize { width: w, height: h });
    assert_eq!((tokens(448, 448), tokens(1024, 768), tokens(1000, 1000), tokens(320, 50)), (256, 3_328, 2_560, 1_792));
    assert_eq!(tower.patches_per_image(ImageSize { width: 1024, height: 768 }), 13 * 1_025);
    // GLM-4.5V (`glm4v_moe`; its tensor listing: 107,710,933,120): the language model is GLM-4.5-Air's
    // preset exactly; the tower in Qwen2.5-VL's shape leaves out GLM-4V's merger SwiGLU, 3 × 4,096 ×
    // 10,944 = 134,479,872, which the note names (−0.11 %).
    let glm_v = import("glm-4.5v");
    let air = presets::model("glm-4.5-air").expect("preset").architecture.parameters();
    let tower = glm_v.architecture.vision.expect("a tower");
    assert_eq!(glm_v.architecture.parameters() - tower.parameters(4096), air);
    let n = glm_v.architecture.parameters() as f64;
    assert!((n / 107_710_933_120.0 - 1.0).abs() < 0.002, "{n}");
    assert!(glm_v.notes.iter().any(|n| n.to_string().contains("134,479,872")));
    assert!(import("glm-4.1v-9b-thinking").architecture.vision.is_some_and(|v| v.mlp == 4096));
    // Ling-mini-2.0 (`bailing_moe`; "1.43B activated of 16.26B total params"): one shared MLP of
    // 512 × 1, the first layer dense, q/k norms. By the remote code's shapes: 16,255,643,392.
    let ling = exact("ling-mini-2.0", 16_255_643_392).architecture;
    assert_eq!(ling.parameters(), 16_255_643_392);
    assert!((ling.active_parameters() as f64 / 1.43e9 - 1.0).abs() < 0.01, "{}", ling.active_parameters());
    // MiniMax-M2.5 (`minimax_m2`, "230 billion total"): 62 layers of 256 experts, no shared one.
    let minimax = import("minimax-m2.5").architecture;
    assert!((minimax.parameters() as f64 / 230e9 - 1.0).abs() < 0.01 && minimax.qk_norm);
    assert_eq!(minimax.moe.map(|m| (m.experts, m.shared, m.router_bias)), Some((256, 0, true)));
    // DeepSeek-V3.2 (`deepseek_v32`): V3's shapes (the preset's count) and the lightning indexer in
    // each of the 61 layers (DeepSeek's `inference/model.py` `Indexer`): wq_b 1,536 × 64 × 128 =
    // 12,582,912, wk 7,168 × 128 = 917,504, k_norm's weight and bias 256, weights_proj 7,168 × 64 =
    // 458,752: 13,959,424 a layer, 851,524,864 in all (671,877,944,064 with V3's 671,026,419,200).
    let v32 = import("deepseek-v3.2");
    let v3 = presets::model("deepseek-v3").expect("preset").architecture.parameters();
    assert_eq!(v32.architecture.parameters(), v3 + 61 * 13_959_424);
    assert_eq!(v32.architecture.parameters(), 671_877_944_064);
    assert_eq!(v32.architecture.indexer.map(|i| (i.heads, i.head_dim, i.key_bytes())), Some((64, 128, 132)));
    // The link carries it (`index_heads`) and reads back the same.
    let s =
        vram_ledger::ledger::Scenario { model_id: None, architecture: v32.architecture.clone(), ..Default::default() };
    let link = vram_ledger::query::to_query(&s, &[]);
    assert!(link.contains("index_heads=64") && !link.contains("index_head_dim"), "{link}");
    assert_eq!(vram_ledger::query::parse(&link).scenario.architecture.indexer, v32.architecture.indexer);
    // Qwen3-Omni-30B-A3B: the thinker — text MoE 30,532,646,912, SigLIP-2 tower 538,631,408, AuT
    // audio encoder 647,927,168 (the checkpoint's tensors summed by module: 31,719,205,488; the
    // report's table: thinker 30B-A3B, AuT 650M, vision 540M); no shared expert (its size is 0).
    let omni = exact("qwen3-omni-30b-a3b", 31_719_205_488);
    assert_eq!(omni.architecture.audio_encoder, 647_927_168, "AuT by its source's formula");
    let moe = omni.architecture.moe.expect("experts");
    assert_eq!((moe.experts, moe.active, moe.shared), (128, 8, 0));
    assert!(omni.notes.iter().any(|n| n.to_string().contains("talker")), "{:?}", omni.notes);
    // Granite-4.0-H (model card: Tiny "7B total / 1B active", Small "32B total / 9B active"):
    // 4 attention layers among 36 Mamba-2 mixers, every layer with the experts and the shared MLP.
    let near = |f: &str, total: f64, active: f64| {
        let a = import(f).architecture;
        let (n, k) = (a.parameters() as f64, a.active_parameters() as f64);
        assert!((n / total - 1.0).abs() < 0.03, "{f}: {n} vs {total}");
        assert!(active == 0.0 || (k / active - 1.0).abs() < 0.03, "{f}: active {k} vs {active}");
        a
    };
    let small = near("granite-4.0-h-small", 32e9, 9e9);
    assert_eq!((small.layers_of(LayerKind::Linear), small.layers_of(LayerKind::Full)), (36, 4));
    // Tiny's active count is 1.47B by the same table; IBM rounds it to "1B": not checked.
    near("granite-4.0-h-tiny", 7e9, 0.0);
}

/// Every `model_type` the error message lists as supported is read with its own fields, not as the
/// generic decoder (a type whose family needs more fields, such as a VLM's `vision_config`, may
/// refuse the bare decoder config instead, naming the field).
#[test]
fn every_supported_model_type_has_its_reading() {
    use vram_ledger::ledger::hf_config::SUPPORTED;
    let base: serde_json::Value = serde_json::from_str(&load("qwen2.5-0.5b")).expect("fixture");
    for t in SUPPORTED.iter().filter(|&&t| t != "gpt2") {
        let mut config = base.clone();
        config["model_type"] = serde_json::Value::String(t.to_string());
        match parse_config(&config.to_string()) {
            Ok(imported) => assert!(
                !imported.notes.iter().any(|n| n.to_string().contains("not one the importer knows")),
                "{t}: {:?}",
                imported.notes
            ),
            Err(e) => assert!(e.to_string().contains('`'), "{t}: {e}"),
        }
    }
}

/// Gemma-4's full-attention layers have their own heads (transformers 5.25 `Gemma4TextAttention`:
/// `global_head_dim` wide, `num_global_key_value_heads` of them where `attention_k_eq_v`, no
/// v_proj then; the caches of transformers, vLLM and llama.cpp still keep V apart): the importer
/// reads them, and the weights, the KV cache and the activations of those layers follow them.
#[test]
fn gemma4_full_attention_layers_are_billed_in_their_own_shape() {
    use vram_ledger::ledger::architecture::{LayerKind, LinearGroup};
    let g = parse_config(&load("gemma-4-31b")).expect("imports").architecture;
    let full = g.full_attention.expect("own full-attention shape");
    assert_eq!((full.kv_heads, full.head_dim, full.k_is_v), (4, 512, true));
    // 31B: "30.7B" (the model card); the text model's count from its shapes: 30,697,345,340 (a
    // helper's reading of transformers 5.25, docs/research/frameworks/configs-2026.md).
    let text = g.parameters() - g.encoder_parameters();
    assert!((text as f64 / 30_697_345_340.0 - 1.0).abs() < 1e-4, "text parameters {text}");
    // 10 full-attention layers: q 5,376 → 32 × 512, k 5,376 → 4 × 512, no v, o back; the 50 others
    // q 32 × 256, k and v 16 × 256.
    let linears = g.linears();
    let find = |group: LinearGroup, name: &str| linears.iter().find(|l| l.group == group && l.name == name).copied();
    let q = find(LinearGroup::FullAttention, "q_proj").expect("full q");
    assert_eq!((q.d_in, q.d_out, q.layers), (5_376, 16_384, 10));
    assert_eq!(find(LinearGroup::FullAttention, "k_proj").map(|k| k.d_out), Some(2_048));
    assert!(find(LinearGroup::FullAttention, "v_proj").is_none(), "K is V");
    let v = find(LinearGroup::LocalAttention, "v_proj").expect("sliding v");
    assert_eq!((v.d_out, v.layers), (4_096, 50));
    assert_eq!(g.attention_widths(LayerKind::Full), (16_384, 2_048, 16_384));
    assert_eq!(g.attention_widths(LayerKind::Sliding), (8_192, 4_096, 8_192));
    // transformers' cache at 8,192 tokens in bf16: 10 full layers × 8,192 × 2 × 4 × 512 × 2 B
    // + 50 sliding layers × 1,024 × 2 × 16 × 256 × 2 B = 671,088,640 + 838,860,800 B.
    let mut s = vram_ledger::query::parse("model=llama-3.1-8b&mode=infer&seq=8192&gpu=h200").scenario;
    s.architecture = g;
    s.model_id = None;
    let bill = vram_ledger::ledger::estimate(&s);
    assert_eq!(bill.component(vram_ledger::ledger::bill::ComponentId::KvCache), 671_088_640 + 838_860_800);
}

/// Gemma-4 E2B and E4B: their last layers read earlier layers' KV caches (`num_kv_shared_layers`:
/// no cache, no k_proj or v_proj at run time in transformers 5.25 and vLLM), per-layer embeddings
/// (`hidden_size_per_layer_input`: a table of vocab × layers × 256), and E2B's KV-shared layers'
/// MLP twice as wide (`use_double_wide_mlp`). The text models' run-time counts from their shapes
/// (a helper's reading of transformers 5.25 `modeling_gemma4.py`, tests/data/configs/README.md):
/// 4,628,569,344 and 7,463,013,376.
#[test]
fn gemma4_small_models_share_kv_and_embed_per_layer() {
    use vram_ledger::ledger::architecture::{LayerKind, LinearGroup};
    for (name, text, shared, own_sliding, own_full) in
        [("gemma-4-e2b", 4_628_569_344.0, 20, 12, 3), ("gemma-4-e4b", 7_463_013_376.0, 18, 20, 4)]
    {
        let a = parse_config(&load(name)).expect("imports").architecture;
        assert_eq!((a.kv_shared_layers, a.per_layer_input), (shared, 256), "{name}");
        // The Conformer audio encoder with its projector (the same reading): 307,183,904 in E2B
        // (hidden 1,536), 308,756,768 in E4B (2,560).
        assert_eq!(a.audio_encoder, if name == "gemma-4-e2b" { 307_183_904 } else { 308_756_768 });
        let counted = (a.parameters() - a.encoder_parameters()) as f64;
        assert!((counted / text - 1.0).abs() < 1e-4, "{name}: text parameters {counted}");
        assert_eq!(
            (a.cache_layers_of(LayerKind::Sliding), a.cache_layers_of(LayerKind::Full)),
            (own_sliding, own_full)
        );
        // The per-layer table: 262,144 × layers × 256 (E2B 2,348,810,240).
        assert_eq!(a.per_layer_embedding_parameters(), 262_144 * a.layers * 256, "{name}");
        let linears = a.linears();
        let k = |group| linears.iter().find(|l| l.group == group && l.name == "k_proj").map(|l| l.layers);
        assert_eq!(
            (k(LinearGroup::LocalAttention), k(LinearGroup::FullAttention)),
            (Some(own_sliding), Some(own_full))
        );
    }
    // E2B's 20 KV-shared layers have a 12,288-wide MLP, its 15 others 6,144.
    let e2b = parse_config(&load("gemma-4-e2b")).expect("imports").architecture;
    let up: Vec<(u64, u64)> =
        e2b.linears().iter().filter(|l| l.name == "up_proj").map(|l| (l.d_out, l.layers)).collect();
    assert_eq!(up, vec![(6_144, 15), (12_288, 20)]);
    // transformers' cache at 4,096 tokens in bf16: 3 full layers × 4,096 × 2 × 512 × 2 B + 12
    // sliding layers × 512 (the window) × 2 × 256 × 2 B = 25,165,824 + 6,291,456 B.
    let mut s = vram_ledger::query::parse("model=llama-3.1-8b&mode=infer&seq=4096").scenario;
    (s.architecture, s.model_id) = (e2b, None);
    let bill = vram_ledger::ledger::estimate(&s);
    assert_eq!(bill.component(vram_ledger::ledger::bill::ComponentId::KvCache), 25_165_824 + 6_291_456);
}

/// Gemma-4's vision tower in its own kind (transformers 5.25 `modeling_gemma4.py`, a helper's
/// reading: docs/research/serving/gemma-4-vision-tokens.md): blocks without biases (4 d² of
/// attention, a gated MLP 3 d × ffn, four norms, q and k norms of the head's width), the patch
/// embedder (3 × 16² × d), two position tables (2 × 10,240 × d) and the projector (d × the text
/// width). E2B's by hand: 16 × (4 × 768² + 3 × 768 × 3,072 + 4 × 768 + 2 × 64) + 3 × 256 × 768 +
/// 2 × 10,240 × 768 + 768 × 1,536 = 168,544,256.
///
/// Whole models, against Unsloth 2026.4.4's banners (unslothai/notebooks @ bdda2efc, the Gemma4
/// text notebooks: "Trainable parameters = 12,668,928 of 5,135,846,944" for E2B, "18,350,080 of
/// 8,014,506,528" for E4B, "61,214,720 of 31,334,301,232" for 31B): the totals less the adapters
/// are the import's count and, in E2B and E4B, the KV-shared layers' k and v projections the
/// checkpoint holds and the ledger does not run (E2B: 16 × 2 × 256 × 1,536 + 4 × 2 × 512 × 1,536
/// = 18,874,368; E4B: 15 × 2 × 512 × 2,560 + 3 × 2 × 1,024 × 2,560 = 55,050,240).
#[test]
fn gemma4_vision_towers_are_counted_in_their_own_shape() {
    use vram_ledger::ledger::architecture::VisionKind;
    for (name, checkpoint, shared_kv) in [
        ("gemma-4-e2b", 5_135_846_944u64 - 12_668_928, 18_874_368u64),
        ("gemma-4-e4b", 8_014_506_528 - 18_350_080, 55_050_240),
        ("gemma-4-31b", 31_334_301_232 - 61_214_720, 0),
    ] {
        let a = parse_config(&load(name)).expect("imports").architecture;
        let v = a.vision.expect("a tower");
        assert_eq!((v.kind, v.merge, v.max_tokens, v.patch), (VisionKind::Gemma4, 3, 280, 16), "{name}");
        assert_eq!(a.parameters() + shared_kv, checkpoint, "{name}");
    }
    let e2b = parse_config(&load("gemma-4-e2b")).expect("imports").architecture;
    assert_eq!(e2b.vision.expect("a tower").parameters(1_536), 168_544_256);
}

/// Model types of 2025 beyond the presets, each from its config.json (tests/data/configs/README.md)
/// against its count by hand from transformers' modeling code (a helper's reading, with the
/// arithmetic in the README) and, where one was found, the published count:
/// - Falcon-H1 (`falcon_h1`): every layer runs attention and a Mamba-2 mixer side by side, read as
///   two blocks (M, then attention with the MLP). 7B: 7,585,648,736, the checkpoint's count (also in
///   Falcon-H1R-7B's GGUF metadata). 0.5B: 521,411,104 in its 579 tensors; the ledger's Mamba-2
///   counts the gated norm over the mixer's 1,536 channels that the 0.5B leaves out
///   (`mamba_rms_norm: false`): 36 × 1,536 = 55,296 more.
/// - EXAONE 4.0 (`exaone4`): q/k norms per head, 3 sliding layers to 1 global. 32B: 30,954,640,384
///   without the embeddings (the card's "30.95B") + 2 × 102,400 × 5,120 = 32,003,216,384; 1.2B
///   (tied, all global): 1,069,676,288 + 102,400 × 2,048 = 1,279,391,488.
/// - Cohere2 (Command R7B): one LayerNorm per layer, tied by default, 3 sliding to 1 global:
///   32 × 218,107,904 + 256,000 × 4,096 + 4,096 = 8,028,033,024 (the card's "7 billion" leaves out
///   the 1.05 B embedding).
/// - dots.llm1 (`dots1`): q/k norms, one dense layer of 10,944, 61 MoE layers of 128 experts of 1,408
///   and 2 shared, the router's bias: 142,774,381,696 (transformers' docs: "142B total").
/// - SmolLM3-3B (`smollm3`): Llama's shapes, tied: 36 × 78,123,008 + 128,256 × 2,048 + 2,048 =
///   3,075,098,624.
/// - Arcee AFM (`arcee`): the ReLU² MLP has two matrices: 36 × 110,105,600 + 2 × 128,005 × 2,560 +
///   2,560 = 4,619,189,760 (a fine-tune's config: its vocabulary may not be the base model's).
#[test]
fn models_of_2025_beyond_the_presets_import_exactly() {
    use vram_ledger::ledger::architecture::LayerKind;
    let read = |f: &str, count: u64| {
        let imported = parse_config(&load(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(imported.architecture.parameters(), count, "{f}");
        imported
    };
    let import = |f: &str, count: u64| {
        let imported = read(f, count);
        assert!(imported.notes.is_empty(), "{f}: {:?}", imported.notes);
        imported.architecture
    };
    // Falcon-H1's note says how its layers are read.
    let notes = read("falcon-h1-7b", 7_585_648_736).notes;
    let said: Vec<String> = notes.iter().map(|m| vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, m)).collect();
    assert!(
        said.len() == 1 && said[0].starts_with("each of its 44 layers") && said[0].contains("88 blocks"),
        "{said:?}"
    );
    let falcon = read("falcon-h1-7b", 7_585_648_736).architecture;
    assert_eq!((falcon.layers, falcon.layer_pattern.text().as_str()), (88, "MF"));
    assert!(falcon.linear.is_some_and(|l| l.side_by_side), "a pair of blocks is one decoder layer");
    assert_eq!((falcon.attention_layers(), falcon.layers_of(LayerKind::Linear), falcon.mlp_layers()), (44, 44, 44));
    let mamba = falcon.linear.expect("Mamba-2");
    assert_eq!((mamba.v_heads, mamba.head_dim, mamba.ssm_state, mamba.k_heads), (24, 128, 256, 1));
    assert_eq!(mamba.state_elements(), 24 * 128 * 256);
    let small = read("falcon-h1-0.5b", 521_411_104 + 36 * 1_536).architecture;
    assert_eq!(small.linear.map(|l| (l.v_heads, l.head_dim, l.ssm_state)), Some((24, 64, 128)));
    for (file, count, pattern, window) in [
        ("exaone-4.0-32b", 32_003_216_384, "SSSF", 4_096),
        ("exaone-4.0-1.2b", 1_279_391_488, "F", 0),
        ("command-r7b", 8_028_033_024, "SSSF", 4_096),
    ] {
        let a = import(file, count);
        assert_eq!((a.layer_pattern.text().as_str(), a.window), (pattern, window), "{file}");
    }
    let dots = import("dots.llm1.base", 142_774_381_696).moe.expect("experts");
    assert_eq!((dots.experts, dots.active, dots.dense_layers, dots.dense_ffn), (128, 6, 1, 10_944));
    import("smollm3-3b", 3_075_098_624);
    import("austral-afm-4.5b-sft", 4_619_189_760);
    // Two blocks a layer: a Falcon-H1 of more than half the layers a link carries is refused by name.
    let deep = load("falcon-h1-7b").replace("\"num_hidden_layers\": 44", "\"num_hidden_layers\": 6000");
    assert_eq!(error_of(&deep), "field `num_hidden_layers` is 6000, more than the largest supported value 5000");
    // EXAONE's pattern as letters, and a pattern that is neither letters nor a count.
    let letters =
        load("exaone-4.0-32b").replace("\"sliding_window_pattern\": 4", "\"sliding_window_pattern\": \"LLLG\"");
    assert_eq!(parse_config(&letters).expect("letters").architecture.layer_pattern.text(), "SSSF");
    let bad = load("exaone-4.0-32b").replace("\"sliding_window_pattern\": 4", "\"sliding_window_pattern\": \"LLXG\"");
    assert!(error_of(&bad).contains("sliding_window_pattern"), "{}", error_of(&bad));
}

/// LFM2 (`lfm2`, `lfm2_moe`): gated short-convolution layers beside attention layers, read as `L`
/// layers with `short_conv` (transformers' `Lfm2ShortConv`: in_proj hidden → 3 × hidden, a
/// depthwise convolution of `conv_L_cache` taps, out_proj, no bias) and `F` layers with q/k norms,
/// every layer a SwiGLU MLP of `block_ff_dim` × 2/3 rounded up to 256 (`block_auto_adjust_ff_dim`).
/// By hand for LFM2-1.2B (12,288 → 8,192): a conv layer 4 × 2,048² + 2,048 × 3 = 16,783,360, an
/// attention layer 2,048 × (2,048 + 2 × 512 + 2,048) + 2 × 64 = 10,485,888, the MLP 3 × 2,048 ×
/// 8,192 and two norms a layer: 10 × 16,783,360 + 6 × 10,485,888 + 16 × 50,335,744 + 65,536 ×
/// 2,048 + 2,048 = 1,170,340,608, the model card's count; LFM2-350M's card says 354,483,968.
/// LFM2-8B-A1B: two dense layers of 7,168 (not shrunk), 22 of 32 experts of 1,792 with the router's
/// bias (22 × 32 = 704), 8,339,930,560 ("8.3B").
#[test]
fn lfm2_short_convolutions_are_read_as_transformers_builds_them() {
    use vram_ledger::ledger::architecture::LayerKind;
    for (file, count) in [("lfm2-350m", 354_483_968), ("lfm2-1.2b", 1_170_340_608), ("lfm2-8b-a1b", 8_339_930_560)] {
        let imported = parse_config(&load(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(imported.notes.is_empty(), "{file}: {:?}", imported.notes);
        let a = imported.architecture;
        assert_eq!(a.parameters(), count, "{file}");
        let conv = a.linear.expect("short convolutions");
        assert!(conv.short_conv && conv.conv == 3 && conv.head_dim == a.hidden, "{file}: {conv:?}");
        // No recurrent state: each sequence keeps the convolution's taps over hidden channels.
        assert_eq!((conv.state_elements(), conv.conv_dim()), (0, a.hidden), "{file}");
        // The custom model's link carries it and reads back the same.
        let s = vram_ledger::ledger::Scenario { model_id: None, architecture: a.clone(), ..Default::default() };
        let link = vram_ledger::query::to_query(&s, &[]);
        assert!(link.contains("short_conv=1"), "{link}");
        assert_eq!(vram_ledger::query::parse(&link).scenario.architecture.parameters(), count, "{file}");
    }
    let a = parse_config(&load("lfm2-1.2b")).expect("1.2B").architecture;
    assert_eq!((a.ffn, a.layers_of(LayerKind::Linear), a.attention_layers()), (8_192, 10, 6));
    assert_eq!(a.layer_pattern.text(), "LLFLLFLLFLFLFLFL");
    let moe = parse_config(&load("lfm2-8b-a1b")).expect("8B-A1B").architecture.moe.expect("experts");
    assert_eq!((moe.experts, moe.active, moe.dense_layers, moe.dense_ffn, moe.router_bias), (32, 4, 2, 7_168, true));
}

/// Falcon-H1's pair of blocks is one decoder layer (`side_by_side=1`, which its import sets):
/// transformers' per-layer checkpoint keeps one input per pair — 44 × 8,192 tokens × 3,072 × 2 B =
/// 2,214,592,512 B (2.06 GiB) where two blocks a layer would keep twice that — and its backward
/// recomputes both blocks, the mixer's tensors beside the attention block's.
#[test]
fn falcon_h1_checkpoints_one_input_per_decoder_layer() {
    use vram_ledger::ledger::{estimate, ComponentId};
    // The link the import of tests/data/configs/falcon-h1-7b.json writes (`vram-ledger --config`).
    let link = "model=custom&layers=88&hidden=3072&heads=12&kv_heads=2&head_dim=128&ffn=12288&vocab=130048&tied=0&mlp=glu&norms=1&model_context=262144&layer_pattern=MF&linear_k_heads=1&linear_v_heads=24&linear_state=256";
    let imported = parse_config(&load("falcon-h1-7b")).expect("falcon");
    let written = vram_ledger::query::to_query(
        &vram_ledger::ledger::Scenario { architecture: imported.architecture.clone(), ..Default::default() },
        &[],
    );
    assert!(written.contains("side_by_side=1"), "{written}");
    let step = "method=full&seq=8192&batch=1&gc=1&gpu=h100-80g";
    let bill = |q: &str| estimate(&vram_ledger::query::parse(q).scenario);
    let paired = bill(&format!("{link}&side_by_side=1&{step}"));
    let blocks = bill(&format!("{link}&{step}"));
    let formula = |b: &vram_ledger::ledger::Bill| {
        let line = b.components.iter().find(|c| c.id == ComponentId::Activations).expect("activations");
        vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &line.formula)
    };
    assert!(
        formula(&paired).starts_with("checkpointing: 44 layer inputs × 8,192 tokens × 1 seq × 3,072 × 2 B = 2.06 GiB"),
        "{}",
        formula(&paired)
    );
    assert!(formula(&blocks).starts_with("checkpointing: 88 layer inputs"), "{}", formula(&blocks));
    let recomputed = |b: &vram_ledger::ledger::Bill| {
        let f = formula(b);
        let at = f.find("one layer recomputed (").expect("recompute") + "one layer recomputed (".len();
        f[at..].split(' ').next().unwrap_or("").replace(',', "").parse::<u64>().expect("B/token")
    };
    assert!(recomputed(&paired) > recomputed(&blocks), "{} vs {}", recomputed(&paired), recomputed(&blocks));
}
