//! The rotary embedding's cos/sin tables vLLM and SGLang build on every GPU beside the weights
//! (issue 29: what the engines hold that the weights do not say). Rules read in vLLM 0.8.5 and
//! 0.19.0 and SGLang 0.4.10 and 0.5.9 (`layers/rotary_embedding`, the models' `get_rope` calls;
//! docs/serving.md): one table per distinct configuration, over the config's
//! `max_position_embeddings` (× the factor for linear and YaRN scaling, × 4 for vLLM's M-RoPE),
//! `rotary_dim` wide, whatever `max_model_len` is; vLLM in the model's dtype (gpt-oss fp32), SGLang
//! in fp32 on CUDA; SGLang's Gemma-3 builds none. Every expected figure is hand arithmetic.

use vram_ledger::ledger::architecture::RopeTables;
use vram_ledger::ledger::bill::{ComponentId, Serving};
use vram_ledger::ledger::estimate;
use vram_ledger::ledger::hf_config::parse_config;
use vram_ledger::query;

fn serve(q: &str) -> Serving {
    let parsed = query::parse(q);
    assert!(parsed.errors.is_empty(), "{q}: {:?}", parsed.errors);
    estimate(&parsed.scenario).serving.unwrap_or_else(|| panic!("{q}: no serving figures"))
}

/// The weights line of `q` less that of the same link without rotary tables (`rope_positions=0`).
fn tables_bytes(q: &str) -> u64 {
    serve(q).weights_bytes - serve(&format!("{q}&rope_positions=0")).weights_bytes
}

#[test]
fn llama_4_scout_s_table_covers_its_ten_million_positions_on_every_gpu() {
    // max_position_embeddings 10,485,760 (Llama-3-type scaling changes frequencies, not positions),
    // head_dim 128, bf16: 2.5 GiB on each GPU, not divided by tensor parallelism. The llm-d-planner
    // log of vLLM 0.19 at TP 4 printed "Model loading took 53.12 GiB" (the measured set's row).
    let q = "model=llama-4-scout&mode=infer&engine=vllm&engine_version=0.19.0&seq=8192&gpu=h100-80g";
    assert_eq!(tables_bytes(q), 10_485_760 * 128 * 2);
    assert_eq!(tables_bytes(&format!("{q}&gpus=4")), 10_485_760 * 128 * 2);
    // max_model_len does not shrink it.
    assert_eq!(tables_bytes(&q.replace("seq=8192", "seq=1024")), 10_485_760 * 128 * 2);
}

#[test]
fn gemma_3_has_a_local_and_a_global_table_in_vllm_and_none_in_sglang() {
    // 4B: head_dim 256; local over 131,072 positions, global linear × 8 over 1,048,576.
    let q = "model=gemma-3-4b&mode=infer&engine=vllm&engine_version=0.19.0&seq=8192&gpu=h100-80g";
    assert_eq!(tables_bytes(q), (131_072 + 1_048_576) * 256 * 2);
    // 27B: head_dim 128.
    assert_eq!(tables_bytes(&q.replace("gemma-3-4b", "gemma-3-27b")), (131_072 + 1_048_576) * 128 * 2);
    // SGLang's gemma3_causal.py computes cos/sin per step from inv_freq.
    let sglang = "model=gemma-3-4b&mode=infer&engine=sglang&seq=8192&gpu=h100-80g";
    assert_eq!(tables_bytes(sglang), 0);
}

#[test]
fn sglang_s_weights_line_says_each_part_once() {
    // Under TP 2 the weights are halved and the table is not: the line says so once each.
    let q = "model=llama-3.1-8b&mode=infer&engine=sglang&seq=8192&gpu=h100-80g&gpus=2";
    let parsed = query::parse(q);
    let bill = estimate(&parsed.scenario);
    let weights = bill.components.iter().find(|c| c.id == ComponentId::Weights).expect("weights");
    let text = weights.formula.to_string();
    assert_eq!(text.matches("as loaded").count(), 1, "{text}");
    assert_eq!(text.matches("÷ 2 GPUs").count(), 1, "{text}");
    assert!(text.ends_with("whatever the request length)"), "{text}");
}

#[test]
fn sglang_keeps_its_tables_in_fp32_on_cuda_cards() {
    // Llama-3.1-8B: 131,072 positions × 128 × 4 B on an H100; 2 B on an MI300X (ROCm casts them).
    let q = "model=llama-3.1-8b&mode=infer&engine=sglang&seq=8192&gpu=h100-80g";
    assert_eq!(tables_bytes(q), 131_072 * 128 * 4);
    assert_eq!(tables_bytes(&q.replace("h100-80g", "mi300x")), 131_072 * 128 * 2);
    // vLLM: the model's dtype.
    assert_eq!(tables_bytes(&q.replace("sglang", "vllm")), 131_072 * 128 * 2);
}

#[test]
fn each_model_s_table_as_vllm_builds_it() {
    let vllm = |model: &str| tables_bytes(&format!("model={model}&mode=infer&engine=vllm&seq=4096&gpu=h200"));
    // gpt-oss: YaRN over 4,096 × 32 positions, 64 wide, fp32 (gpt_oss.py asks for it).
    assert_eq!(vllm("gpt-oss-20b"), 131_072 * 64 * 4);
    // Qwen2.5-VL: M-RoPE over 4 × 128,000 positions.
    assert_eq!(vllm("qwen2.5-vl-7b"), 4 * 128_000 * 128 * 2);
    // DeepSeek-V3: latent attention's rotary key, 64 wide, YaRN over 4,096 × 40.
    assert_eq!(vllm("deepseek-v3"), 163_840 * 64 * 2);
    // Qwen3-Next: partial_rotary_factor 0.25 of 256.
    assert_eq!(vllm("qwen3-next-80b-a3b"), 262_144 * 64 * 2);
    // GPT-2's learned positions: no table.
    assert_eq!(vllm("gpt2"), 0);
}

#[test]
fn config_json_carries_the_scaling_the_partial_width_and_no_positions() {
    let rope = |path: &str| {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        parse_config(&text).map(|i| i.architecture.rope).unwrap_or_else(|e| panic!("{path}: {}", e.0))
    };
    // Gemma-3-4B's config: rope_scaling linear × 8, max_position_embeddings 131,072.
    assert_eq!(
        rope("tests/data/configs/gemma-3-4b.json"),
        RopeTables::LocalGlobal { local: 131_072, global: 1_048_576 }
    );
    // GLM-4.5-Air: partial_rotary_factor 0.5 of head_dim 128.
    assert_eq!(rope("tests/data/configs/glm-4.5-air.json"), RopeTables::Tables { positions: 0, dim: 64 });
    // Nemotron-H's attention has no positions.
    assert_eq!(rope("tests/data/configs/nemotron-h-56b.json"), RopeTables::None);
    // Llama-3.1-8B (llama3 scaling): the usual table.
    assert_eq!(rope("tests/data/configs/llama-3.1-8b.json"), RopeTables::OverContext);
    // A Qwen2.5 config with YaRN added as Qwen's model cards say: 32,768 × 4 positions.
    let yarn = r#"{"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28,
        "num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944,
        "vocab_size": 152064, "max_position_embeddings": 32768,
        "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}"#;
    let imported = parse_config(yarn).unwrap_or_else(|e| panic!("{}", e.0));
    assert_eq!(imported.architecture.rope, RopeTables::Tables { positions: 131_072, dim: 0 });
}

#[test]
fn the_link_keys_round_trip_and_refuse_nonsense() {
    let q = "model=qwen2.5-7b&mode=infer&engine=vllm&seq=4096&gpu=h200";
    // Qwen2.5-7B's own table: 32,768 positions × 128 × 2 B; with YaRN × 4 written in the link,
    // 131,072 positions; then half of the head.
    assert_eq!(tables_bytes(q), 32_768 * 128 * 2);
    assert_eq!(tables_bytes(&format!("{q}&rope_positions=131072")), 131_072 * 128 * 2);
    assert_eq!(
        serve(&format!("{q}&rope_positions=131072&rope_dim=64")).weights_bytes,
        serve(&format!("{q}&rope_positions=0")).weights_bytes + 131_072 * 64 * 2
    );
    let parsed = query::parse(&format!("{q}&rope_positions=1000,8000"));
    assert_eq!(parsed.scenario.architecture.rope, RopeTables::LocalGlobal { local: 1_000, global: 8_000 });
    let link = query::to_query(&parsed.scenario, &[]);
    assert!(link.contains("rope_positions=1000,8000"), "{link}");
    for bad in ["abc", "1,2,3", "-5", "99999999999999999999", "1,", ",2"] {
        let parsed = query::parse(&format!("{q}&rope_positions={bad}"));
        assert!(!parsed.errors.is_empty(), "rope_positions={bad} was accepted");
    }
}
