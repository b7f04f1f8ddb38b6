//! Helpers shared by the native test files (each uses a part of them).
#![allow(dead_code)]

use vram_ledger::ledger::Scenario;
use vram_ledger::query;

/// The scenario of a query that must be valid.
pub fn scenario(q: &str) -> Scenario {
    let p = query::parse(q);
    assert!(p.errors.is_empty(), "{q}: {:?}", p.errors);
    p.scenario
}

/// Gemma-4 E4B's importer link (tests/data/configs/gemma-4-e4b.json): 42 layers, the last 18
/// KV-shared (15 sliding of 2 × 256, 3 full of 2 × 512), per-layer inputs 256 wide, RoPE over
/// 131,072 positions for each kind, the small Gemma-4 vision tower and the audio encoder.
pub const GEMMA4_E4B: &str = "model=custom&layers=42&hidden=2560&heads=8&kv_heads=2&head_dim=256&ffn=10240&vocab=262144&tied=1&mlp=glu&norms=4&rope_positions=131072,131072&softcap=1&qk_norm=1&layer_pattern=SSSSSF&window=512&full_kv_heads=2&full_head_dim=512&kv_shared_layers=18&ple_dim=256&vision=gemma4&audio_params=308756768";
