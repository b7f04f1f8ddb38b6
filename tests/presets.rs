//! Every preset's computed parameter count against the count its publisher gives.
//!
//! Sources: `../shared/reference/formulas.md` §1.1 — Hugging Face model cards and PEFT's printed
//! `all params` (e.g. Llama-3.2-1B: PEFT quicktour prints 1,236,338,688 with 524,288 LoRA
//! parameters, so the base is 1,235,814,400). Qwen2-VL-7B-Instruct: the Hub's safetensors count.

use vram_ledger::ledger::presets::{self, models};

/// Within 0.5 % of the published count (the bound); most presets match exactly.
#[test]
fn every_preset_matches_its_published_parameter_count() {
    for m in models() {
        let computed = m.architecture.parameters() as f64;
        let published = m.published_parameters as f64;
        let error = (computed - published).abs() / published;
        assert!(error <= 0.005, "{}: computed {computed} vs published {published} ({:.3} %)", m.id, error * 100.0);
    }
}

/// The counts below are exact: each term can be checked by hand from config.json.
#[test]
fn exact_counts_for_hand_checked_models() {
    let exact = [
        // 12 × (4·768² + 4·768 attention + 2·768·3072 + 3072 + 768 MLP + 2·2·768 LayerNorms)
        // + 50257·768 + 1024·768 + 2·768 = 124,439,808
        ("gpt2", 124_439_808u64),
        ("llama-2-7b", 6_738_415_616),
        ("llama-3.1-8b", 8_030_261_248),
        ("qwen2.5-0.5b", 494_032_768),
        ("gemma-2-2b", 2_614_341_888),
        ("phi-3-mini", 3_821_079_552),
        ("mixtral-8x7b", 46_702_792_704),
    ];
    for (id, n) in exact {
        let m = presets::model(id).expect(id);
        assert_eq!(m.architecture.parameters(), n, "{id}");
    }
}

/// Mixtral runs 2 of 8 experts per token: 12,879,925,248 active parameters (formulas.md §1.1).
#[test]
fn mixtral_active_parameters() {
    let m = presets::model("mixtral-8x7b").expect("preset");
    assert_eq!(m.architecture.active_parameters(), 12_879_925_248);
}

#[test]
fn gpu_presets_are_what_the_driver_reports() {
    // models-and-gpus.md: RTX 4090 24564 MiB, A100-80GB 81920 MiB, H200 143771 MiB.
    assert_eq!(presets::gpu("rtx4090").expect("4090").bytes(), 24_564 * 1024 * 1024);
    assert_eq!(presets::gpu("a100-80g").expect("a100").bytes(), 81_920 * 1024 * 1024);
    assert_eq!(presets::gpu("h200").expect("h200").mib, 143_771);
    let mut ids: Vec<&str> = presets::GPUS.iter().map(|g| g.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), presets::GPUS.len(), "GPU ids are unique");
}

/// docs/gpus.md: PyTorch's total sits a few hundred MiB below nvidia-smi's on every dedicated card
/// (gaps of 246–770 MiB measured; the Ascend 910B's npu-smi shows ~3.1 GiB held at idle).
#[test]
fn torch_totals_sit_below_the_driver_totals() {
    for g in presets::GPUS.iter().filter(|g| g.memory == presets::Memory::Dedicated) {
        let gap_mib = (g.bytes() - g.torch_bytes()) as f64 / (1 << 20) as f64;
        let bound = if g.id == "ascend-910b" { 3300.0 } else { 800.0 };
        assert!(gap_mib > 0.0 && gap_mib < bound, "{}: torch total {gap_mib:.0} MiB below nvidia-smi", g.id);
    }
    // H200: 139.80 GiB in its OOM messages; RTX 4090: 23.64 GiB (docs/gpus.md sources).
    let h200 = presets::gpu("h200").expect("h200").torch_bytes() as f64 / (1u64 << 30) as f64;
    assert!((h200 - 139.80).abs() < 0.005, "{h200}");
    let rtx = presets::gpu("rtx4090").expect("4090").torch_bytes() as f64 / (1u64 << 30) as f64;
    assert!((rtx - 23.64).abs() < 0.005, "{rtx}");
}

/// Apple silicon: Metal's working-set limit is ⅔ of RAM up to 32 GB on macOS 13–14 and 0.75–0.84 of
/// it above (docs/gpus.md); a Mac never lends its GPU all of its RAM.
#[test]
fn apple_presets_lend_metal_a_share_of_ram() {
    let mut seen = 0;
    for g in presets::GPUS.iter() {
        if let presets::Memory::Unified { ram_gb } = g.memory {
            let share = g.bytes() as f64 / (ram_gb as f64 * (1u64 << 30) as f64);
            assert!((0.66..=0.85).contains(&share), "{}: {share:.3} of RAM", g.id);
            seen += 1;
        }
    }
    assert!(seen >= 10, "{seen} Apple presets");
}

/// The bill of a Mac says which limit it is checked against: Metal's, not the RAM.
#[test]
fn a_mac_bill_names_its_metal_limit() {
    let parsed = vram_ledger::query::parse("model=qwen3-8b&mode=infer&gpu=m-32g");
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let bill = vram_ledger::ledger::estimate(&parsed.scenario);
    let note = bill.notes.iter().find(|n| n.key == "unified_memory").expect("unified-memory note");
    let text = note.text.to_string();
    assert!(text.contains("32 GB") && text.contains("21.33 GiB"), "{text}");
    let card = vram_ledger::query::parse("model=qwen3-8b&mode=infer&gpu=rtx4090").scenario;
    assert!(vram_ledger::ledger::estimate(&card).notes.iter().all(|n| n.key != "unified_memory"));
}
