//! Serving engines (issue 15): the rules read from vLLM's, SGLang's and llama.cpp's source, checked
//! with hand arithmetic and against the engines' own start-up lines. (The measured set,
//! tests/data/measured.toml, holds the logs with their URLs; these tests pin the rules themselves.)

use vram_ledger::ledger::bill::{ComponentId, Verdict};
use vram_ledger::ledger::bill::{Serving, ServingStatus};
use vram_ledger::ledger::concurrency::chart_contexts;
use vram_ledger::ledger::estimate;
use vram_ledger::query;

mod common;
use common::GEMMA4_E4B;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// What PyTorch reports for an H100 80 GB: 79.19 GiB (docs/gpus.md).
fn h100() -> f64 {
    vram_ledger::ledger::presets::gpu("h100-80g").expect("h100").torch_bytes() as f64
}

fn serve(q: &str) -> (Serving, vram_ledger::ledger::Bill) {
    let parsed = query::parse(q);
    assert!(parsed.errors.is_empty(), "{q}: {:?}", parsed.errors);
    let bill = estimate(&parsed.scenario);
    (bill.serving.clone().unwrap_or_else(|| panic!("{q}: no serving figures")), bill)
}

/// vLLM's uniform layout: a block is every layer's page of 16 tokens, so the pool holds
/// blocks × 16 tokens and a request of L tokens takes ⌈L / 16⌉ blocks (kv_cache_utils.py).
#[test]
fn vllm_blocks_tokens_and_concurrency_follow_the_page_size() {
    let (s, bill) = serve("model=llama-3.1-8b&mode=infer&engine=vllm&seq=32768&gpu=h100-80g");
    // Llama-3.1-8B: 32 layers × 16 tokens × (2 × 8 KV heads × 128 × 2 B) = 2 MiB per block.
    let per_block = 32.0 * 16.0 * 4096.0;
    let blocks = s.kv_blocks.expect("blocks");
    assert_eq!(blocks, (s.kv_pool_bytes as f64 / per_block).floor() as u64);
    assert_eq!(bill.component(ComponentId::KvCache), (blocks as f64 * per_block) as u64);
    // 0.33 reports tokens as concurrency × max_model_len; for a uniform model that is blocks × 16
    // to within one request's rounding.
    let by_blocks = blocks * 16;
    assert!(s.kv_tokens <= by_blocks && by_blocks - s.kv_tokens < 32_768, "{} vs {by_blocks}", s.kv_tokens);
    assert!((s.max_concurrency - blocks as f64 / 2048.0).abs() < 1e-9, "32768 / 16 = 2048 blocks per request");
    // The budget is ⌈0.92 × 79.19 GiB⌉ (0.20 on) and the bill's budget lines add up to it.
    assert_eq!(s.budget_bytes, (0.92 * h100()).ceil() as u64);
    assert!((h100() / GIB - 79.19).abs() < 0.001);
    let budget_lines: u64 =
        [ComponentId::Weights, ComponentId::Activations, ComponentId::NonTorch, ComponentId::CudaGraphs]
            .iter()
            .map(|&c| bill.component(c))
            .sum::<u64>()
            + s.kv_pool_bytes;
    assert!(budget_lines.abs_diff(s.budget_bytes) < 4, "{budget_lines} vs {}", s.budget_bytes);
}

#[test]
fn vllm_default_utilization_follows_the_release() {
    let (old, _) = serve("model=qwen3-8b&mode=infer&engine=vllm&engine_version=0.19&gpu=h100-80g");
    let (new, _) = serve("model=qwen3-8b&mode=infer&engine=vllm&engine_version=0.20&gpu=h100-80g");
    let (set, _) = serve("model=qwen3-8b&mode=infer&engine=vllm&gpu_util=0.5&gpu=h100-80g");
    // vllm/config/cache.py: 0.90 through 0.19.1, 0.92 from 0.20.2 on.
    assert_eq!(old.budget_bytes, (0.90 * h100()).ceil() as u64);
    assert_eq!(new.budget_bytes, (0.92 * h100()).ceil() as u64);
    assert_eq!(set.budget_bytes, (0.5 * h100()).ceil() as u64);
}

/// The hybrid manager (0.10 on) gives gpt-oss's 12 sliding-window layers their own block group:
/// a request of L tokens takes ⌈L/16⌉ blocks for the full layers and ⌈(window − 1 + batched
/// tokens)/16⌉ + 1 for the windowed ones.
#[test]
fn vllm_sliding_window_layers_keep_the_window_and_a_batch() {
    let (s, _) = serve("model=gpt-oss-20b&mode=infer&engine=vllm&engine_version=0.19&seq=131072&gpu=a100-80g");
    // 0.19 on an A100: 2,048 batched tokens, one batch in flight: ⌈(127 + 2048)/16⌉ + 1 = 137.
    let per_request = 131_072 / 16 + 137;
    assert!((s.max_concurrency - s.kv_blocks.expect("blocks") as f64 / per_request as f64).abs() < 1e-9);
    // Two groups (12 full, 12 sliding): 0.11–0.19 report blocks / groups × 16 tokens.
    assert_eq!(s.kv_tokens, s.kv_blocks.expect("blocks") / 2 * 16);
    // Without the hybrid manager (0.8) every layer keeps every token: fewer requests fit.
    let (old, _) = serve("model=gpt-oss-20b&mode=infer&engine=vllm&engine_version=0.8.5&seq=131072&gpu=a100-80g");
    assert!(old.max_concurrency < 0.6 * s.max_concurrency, "{} vs {}", old.max_concurrency, s.max_concurrency);
}

/// Latent attention caches one latent per token and layer, whole on every tensor-parallel GPU
/// (SGLang's log prints the same 0.65 GB on both ranks of a TP2 DeepSeek-V3); KV heads are
/// replicated once the GPUs outnumber them.
#[test]
fn latent_caches_are_not_split_and_kv_heads_are_replicated() {
    for engine in ["vllm", "sglang"] {
        let tokens = |gpus: u32| {
            let (s, _) = serve(&format!(
                "model=deepseek-v3&mode=infer&engine={engine}&gpus={gpus}&seq=8192&gpu=h200&gpu_util=0.9&mem_fraction=0.9"
            ));
            s.kv_pool_bytes as f64 / s.kv_tokens.max(1) as f64
        };
        // 61 layers × (512 + 64) × 2 B = 70,272 B per token on every GPU.
        let (one, eight) = (tokens(8), tokens(16));
        assert!((one - 70_272.0).abs() / 70_272.0 < 0.02, "{engine}: {one}");
        assert!((eight - 70_272.0).abs() / 70_272.0 < 0.02, "{engine}: {eight}");
    }
    // Qwen3-235B has 4 KV heads: on 8 GPUs each still holds one (94 × 2 × 128 × 2 B = 48,128 B).
    let (s8, _) = serve("model=qwen3-235b-a22b&mode=infer&quant=fp8_block&engine=sglang&gpus=8&gpu=h200");
    assert!((s8.kv_pool_bytes as f64 / s8.kv_tokens as f64 - 48_128.0).abs() < 1.0);
}

/// transformers' `generate()` caches latent attention decompressed: `DeepseekV3Attention.forward`
/// (which GLM-4.7-Flash's and Kimi-K2's classes share) updates the cache with every head's
/// `key_states` (nope 128 + rotary 64 for DeepSeek-V2-Lite) and `value_states` (128) after
/// `kv_b_proj`, where vLLM and SGLang keep the 512 + 64 latent. DeepSeek-V2-Lite at 4,096 tokens:
/// 27 layers × 16 heads × (192 + 128) × 2 B = 276,480 B per token, 1.05 GiB — 8.9 × the latent's
/// 27 × 576 × 2 B = 31,104 B. The page's build leaves that bill to the reader worker.
#[test]
fn transformers_caches_latent_attention_decompressed() {
    let s = common::scenario("model=deepseek-v2-lite&mode=infer&seq=4096");
    assert!(s.caches_latent_decompressed() && s.billed_on_demand());
    let bill = estimate(&s);
    assert_eq!(bill.component(ComponentId::KvCache), 4096 * 27 * 16 * (192 + 128) * 2);
    let kv = bill.components.iter().find(|c| c.id == ComponentId::KvCache).expect("kv line").formula.to_string();
    assert!(kv.contains("16 heads × (K 128 + rotary 64 + V 128)"), "{kv}");
    // vLLM's pool of the same model: the latent per token.
    let (v, _) = serve("model=deepseek-v2-lite&mode=infer&engine=vllm&seq=4096&gpu=a100-80g");
    assert!((v.kv_pool_bytes as f64 / v.kv_tokens as f64 - 31_104.0).abs() < 1.0);
    // A model without latent attention is billed on the page as before.
    assert!(!common::scenario("model=llama-3.1-8b&mode=infer").caches_latent_decompressed());
}

/// gpt-oss-120b on one H100 with vLLM 0.10.1 does not start: "Available KV cache memory: -2.14 GiB"
/// (vllm-project/vllm issue 23278). The ledger finds −2.1 GiB, and says it as vLLM does.
#[test]
fn vllm_refuses_to_start_as_the_log_does() {
    let (s, bill) = serve("model=gpt-oss-120b&mode=infer&engine=vllm&engine_version=0.10.1&seq=131072&gpu=h100-80g");
    let ServingStatus::NoKvMemory { available } = s.status else { panic!("{:?}", s.status) };
    let gib = available as f64 / GIB;
    assert!((gib + 2.14).abs() < 0.2, "{gib}");
    assert_eq!(bill.verdict(), Verdict::DoesNotFit);
    let note = bill.notes.iter().find(|n| n.key == "engine_status").expect("status note").text.to_string();
    assert!(note.contains("No available memory for the cache blocks") && note.contains("−2."), "{note}");

    // A context longer than the pool: the engine's message with the longest context it estimates.
    let (s, bill) = serve("model=llama-3.1-8b&mode=infer&engine=vllm&seq=1000000&gpu=rtx4090");
    let ServingStatus::ContextTooLong { longest, .. } = s.status else { panic!("{:?}", s.status) };
    assert!(longest > 0 && longest < 1_000_000 && longest == s.max_context, "{longest} {}", s.max_context);
    let note = bill.notes.iter().find(|n| n.key == "engine_status").expect("note").text.to_string();
    assert!(note.contains("1,000,000") && note.contains("estimated maximum model length"), "{note}");

    // Asking for more than the card has free: vLLM ≥ 0.10 checks before it profiles.
    let (s, _) = serve("model=qwen3-0.6b&mode=infer&engine=vllm&gpu_util=0.99&gpu=rtx4090");
    assert!(matches!(s.status, ServingStatus::NotEnoughFree { .. }), "{:?}", s.status);
    let (s, _) = serve("model=qwen3-0.6b&mode=infer&engine=vllm&engine_version=0.8.5&gpu_util=0.99&gpu=rtx4090");
    assert!(s.status.starts(), "0.8 had no such check: {:?}", s.status);
}

/// Requests beyond the concurrency queue; the verdict says the engine starts but they wait.
#[test]
fn requests_beyond_the_pool_queue() {
    let (s, bill) = serve("model=qwen3-8b&mode=infer&engine=vllm&seq=32768&batch=64&gpu=rtx4090");
    let ServingStatus::Queues { concurrent } = s.status else { panic!("{:?}", s.status) };
    assert_eq!(concurrent, s.max_concurrency.floor() as u64);
    assert_eq!(bill.verdict(), Verdict::FitsWithoutMargin);
    // The longest context 64 requests can each have fits 64 of them at once.
    let (at, _) = serve(&format!("model=qwen3-8b&mode=infer&engine=vllm&seq={}&batch=64&gpu=rtx4090", s.max_context));
    assert_eq!(at.status, ServingStatus::Serves);
    let (over, _) =
        serve(&format!("model=qwen3-8b&mode=infer&engine=vllm&seq={}&batch=64&gpu=rtx4090", s.max_context + 16));
    assert!(matches!(over.status, ServingStatus::Queues { .. }), "{:?}", over.status);
}

/// SGLang: (free before loading × mem_fraction_static − weights) / bytes per token. QwQ-32B at TP4
/// on 4× L4 with 0.85 (printed): "#tokens: 46611, K size: 1.42 GB, V size: 1.42 GB".
#[test]
fn sglang_pool_is_the_fraction_less_the_weights() {
    let (s, _) = serve("model=qwen2.5-32b&mode=infer&engine=sglang&engine_version=0.4.3&gpus=4&seq=32768&gpu=l4");
    // Qwen2.5-32B at TP4: 64 layers × 2 KV heads × 128 × 2 × 2 B = 65,536 B per token.
    assert_eq!(s.kv_pool_bytes, s.kv_tokens * 65_536);
    assert!((s.kv_tokens as f64 - 46_611.0).abs() / 46_611.0 < 0.01, "{}", s.kv_tokens);
    let (more, _) = serve("model=qwen2.5-32b&mode=infer&engine=sglang&mem_fraction=0.9&gpus=4&seq=32768&gpu=l4");
    assert!(more.kv_tokens > s.kv_tokens);
    let (none, bill) = serve("model=qwen2.5-32b&mode=infer&engine=sglang&mem_fraction=0.5&gpus=4&seq=32768&gpu=l4");
    assert!(matches!(none.status, ServingStatus::NoKvMemory { .. }));
    let note = bill.notes.iter().find(|n| n.key == "engine_status").expect("note").text.to_string();
    assert!(note.contains("Not enough memory") && note.contains("mem_fraction"), "{note}");
}

/// llama.cpp: n_ctx cells per slot (padded to 256 in current builds, 32 in 2025's), sliding-window
/// layers keep window + micro-batch cells per slot, and `gpu_layers` moves layers and their KV to
/// host RAM (the token embedding is always there).
#[test]
fn llamacpp_cells_slots_and_offload() {
    // gpt-oss-20b, 2 slots of 5,000 tokens: pad256 → 5,120 cells each; SWA pad256(128 + 512) = 768.
    let (s, bill) = serve("model=gpt-oss-20b&mode=infer&engine=llamacpp&seq=5000&batch=2&gpu=rtx4090");
    assert_eq!(s.kv_tokens, 2 * 5120);
    // 12 full layers × 10,240 cells + 12 sliding layers × 2 × 768 cells, × 2,048 B per cell and layer.
    let kv = (12 * 10_240 + 12 * 2 * 768) * 2048;
    assert_eq!(s.kv_pool_bytes, kv);
    assert_eq!(bill.component(ComponentId::KvCache), kv, "all on the GPU");
    // Older builds padded to 32: 5,024 cells per slot, 640 per SWA slot.
    let (old, _) =
        serve("model=gpt-oss-20b&mode=infer&engine=llamacpp&engine_version=b6182&seq=5000&batch=2&gpu=rtx4090");
    assert_eq!(old.kv_pool_bytes, (12 * 2 * 5024 + 12 * 2 * 640) * 2048);
    // No layer on the GPU: weights and KV in host RAM, nothing of them on the card.
    let (cpu, bill) = serve("model=gpt-oss-20b&mode=infer&engine=llamacpp&gpu_layers=0&seq=5000&batch=2&gpu=rtx4090");
    assert_eq!(bill.component(ComponentId::Weights), 0);
    assert_eq!(bill.component(ComponentId::KvCache), 0);
    assert!(cpu.host_bytes > 12 * (1u64 << 30), "{}", cpu.host_bytes);
    // q8_0 and q4_0 caches: 34 and 18 bytes per 32 values.
    let (q8, _) = serve("model=llama-3.1-8b&mode=infer&engine=llamacpp&kv=int8&seq=4096&gpu=rtx4090");
    assert_eq!(q8.kv_pool_bytes, 4096 * 32 * 2 * 8 * 128 * 34 / 32);
}

/// llama.cpp's caches are separate buffers, and the `serving` JSON's pools name each: the
/// full-attention cells, the sliding-window cells of every slot (gpt-oss-20b above: 12 × 2 × 768
/// cells), and the recurrent states of a hybrid (`llama_memory_recurrent`'s RS buffer, one per slot).
/// Falcon-H1-1.5B by its shapes (24 layers as 48 blocks; the log of GeniePod/genie-claw#410 prints
/// "KV buffer size = 768.00 MiB" and "RS buffer size = 72.98 MiB ( 1 cells, 24 layers, R 0.98 +
/// S 72.00 )"): 24 × 32,768 × 2 × 2 × 128 × 2 B; 24 × (3 × 3,584 + 48 × 64 × 256) × 4 B.
#[test]
fn llamacpp_pools_are_its_buffers() {
    use vram_ledger::ledger::bill::PoolKind;
    let (s, _) = serve("model=gpt-oss-20b&mode=infer&engine=llamacpp&seq=5000&batch=2&gpu=rtx4090");
    let pools: Vec<(PoolKind, u64, u64)> = s.pools().map(|p| (p.kind, p.bytes, p.tokens)).collect();
    assert_eq!(pools, [(PoolKind::Full, 12 * 10_240 * 2048, 10_240), (PoolKind::Swa, 12 * 2 * 768 * 2048, 2 * 768)]);
    let falcon = "model=custom&layers=48&hidden=2048&heads=8&kv_heads=2&head_dim=128&ffn=4608&vocab=65537&tied=0\
        &mlp=glu&norms=1&layer_pattern=MF&linear_k_heads=1&linear_v_heads=48&linear_head_dim=64&linear_state=256\
        &mode=infer&engine=llamacpp&quant=q4_k_m&seq=32768&vram=8";
    let (s, _) = serve(falcon);
    let pools: Vec<(PoolKind, u64, u64)> = s.pools().map(|p| (p.kind, p.bytes, p.tokens)).collect();
    let states = 24 * (3 * 3_584 + 48 * 64 * 256) * 4;
    assert_eq!(pools, [(PoolKind::Full, 768 << 20, 32_768), (PoolKind::State, states, 1)]);
    assert_eq!(s.kv_pool_bytes, (768 << 20) + states);
    // LFM2-1.2B's short convolutions: llama.cpp keeps (conv_L_cache − 1) × n_embd f32 per layer and
    // slot (`n_embd_r`), 10 × 2 × 2,048 × 4 B; its 6 attention layers 6 × 4,096 cells × 2 × 512 × 2 B.
    let lfm2 = "model=custom&layers=16&hidden=2048&heads=32&kv_heads=8&head_dim=64&ffn=8192&vocab=65536&tied=1\
        &mlp=glu&qk_norm=1&layer_pattern=LLFLLFLLFLFLFLFL&linear_k_heads=1&linear_v_heads=1&linear_head_dim=2048\
        &linear_conv=3&short_conv=1&mode=infer&engine=llamacpp&seq=4096&gpu=l4";
    let (s, _) = serve(lfm2);
    let pools: Vec<(PoolKind, u64, u64)> = s.pools().map(|p| (p.kind, p.bytes, p.tokens)).collect();
    assert_eq!(pools, [(PoolKind::Full, 6 * 4_096 * 2 * 512 * 2, 4_096), (PoolKind::State, 10 * 2 * 2_048 * 4, 1)]);
}

/// A card too small for what llama.cpp is asked to allocate: the status says so and what fits.
#[test]
fn llamacpp_reports_what_fits() {
    let (s, bill) = serve("model=qwen3-32b&mode=infer&quant=q4_k_m&engine=llamacpp&seq=131072&gpu=rtx4090");
    assert!(matches!(s.status, ServingStatus::GpuTooSmall { .. }), "{:?}", s.status);
    assert_eq!(bill.verdict(), Verdict::DoesNotFit);
    assert!(s.max_context > 0 && s.max_context < 131_072 && s.max_context % 256 == 0, "{}", s.max_context);
    let (fits, _) =
        serve(&format!("model=qwen3-32b&mode=infer&quant=q4_k_m&engine=llamacpp&seq={}&gpu=rtx4090", s.max_context));
    assert_eq!(fits.status, ServingStatus::Serves);
}

#[test]
fn engines_apply_to_inference_only_and_hf_is_unchanged() {
    let train = query::parse("model=qwen3-8b&engine=vllm").scenario;
    let bill = estimate(&train);
    assert!(bill.serving.is_none());
    assert!(bill.notes.iter().any(|n| n.key == "engine_ignored"));
    let hf = estimate(&query::parse("model=qwen3-8b&mode=infer").scenario);
    let explicit = estimate(&query::parse("model=qwen3-8b&mode=infer&engine=hf").scenario);
    assert_eq!(hf, explicit);
    assert!(hf.serving.is_none());
}

#[test]
fn bad_engine_values_are_refused_with_the_accepted_ones() {
    let p = query::parse("engine=tgi&gpu_util=1.5&engine_version=latest&block_size=0");
    let keys: Vec<&str> = p.errors.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["engine", "engine_version", "gpu_util", "block_size"]);
    assert!(p.errors[0].message.to_string().contains("vllm"), "{}", p.errors[0].message);
    assert!(p.errors[1].message.to_string().contains("0.11"), "{}", p.errors[1].message);
}

#[test]
fn chart_contexts_are_increasing_and_bounded() {
    let xs = chart_contexts(131_072);
    assert_eq!(xs.first(), Some(&512));
    assert!(xs.windows(2).all(|w| w[0] < w[1]));
    assert!(*xs.last().expect("points") <= 131_072);
    assert!(chart_contexts(0).len() == 1);
}

/// The planner's levers, one variable at a time: more of the card, an 8-bit KV cache, a quantized
/// checkpoint, more GPUs, a shorter context — each lets more requests run at once.
#[test]
fn serving_levers_raise_concurrency() {
    use vram_ledger::tree::{serving_gain, Lever};
    for q in [
        "model=qwen3-8b&mode=infer&engine=vllm&seq=32768&batch=16&gpu=rtx4090",
        "model=qwen3-8b&mode=infer&engine=sglang&seq=32768&batch=16&gpu=rtx4090",
    ] {
        let s = query::parse(q).scenario;
        for l in [Lever::EngineShare, Lever::KvEightBit, Lever::QuantizedWeights, Lever::Shard, Lever::ShorterSequence]
        {
            let (before, after) = serving_gain(&s, l).unwrap_or_else(|| panic!("{l:?} applies to {q}"));
            assert!(
                after.max_concurrency > before.max_concurrency,
                "{q} {l:?}: {} → {}",
                before.max_concurrency,
                after.max_concurrency
            );
        }
        // fp8 halves the bytes per token: the pool holds twice the tokens.
        let (b, a) = serving_gain(&s, Lever::KvEightBit).expect("kv");
        assert!((a.kv_tokens as f64 / b.kv_tokens as f64 - 2.0).abs() < 0.02);
    }
    let s = query::parse("model=qwen3-8b&mode=infer&engine=llamacpp&seq=8192&gpu=rtx4090").scenario;
    assert_eq!(Lever::EngineShare.apply(&s), None, "llama.cpp has no budget share");
    assert_eq!(Lever::KvEightBit.apply(&s).map(|t| t.kv), Some(vram_ledger::ledger::storage::KvDtype::Int8));
    let done = query::parse("model=qwen3-8b&mode=infer&engine=vllm&gpu_util=0.95").scenario;
    assert_eq!(Lever::EngineShare.apply(&done), None);
}

/// The planner's curve falls as the context grows and meets the scenario's own figure at its context.
#[test]
fn the_concurrency_curve_matches_the_bill() {
    use vram_ledger::ledger::concurrency::concurrency_curve;
    let s = query::parse("model=llama-3.1-8b&mode=infer&engine=vllm&seq=8192&gpu=h100-80g").scenario;
    let curve = concurrency_curve(&s);
    assert!(curve.len() > 8);
    assert!(curve.windows(2).all(|w| w[1].1 <= w[0].1), "{curve:?}");
    let at = curve.iter().find(|p| p.0 == 8192).expect("8k point");
    let (own, _) = serve("model=llama-3.1-8b&mode=infer&engine=vllm&seq=8192&gpu=h100-80g");
    assert!((at.1 - own.max_concurrency).abs() < 1e-9);
    assert!(concurrency_curve(&query::parse("model=llama-3.1-8b&mode=infer").scenario).is_empty());
}

/// vLLM 0.8 and 0.9 run their V0 engine on a card before Ampere: V1's oracle falls back below
/// compute capability 8.0 (`engine/arg_utils.py` `_is_v1_supported_oracle`, "Compute Capability <
/// 8.0"). V0 does not count the CUDA context in the budget (0.6.5 on) and batches the whole context
/// (here 4,096 tokens, 256 sequences); V1 of 0.8–0.9 counts the 500 MiB context and batches 2,048.
/// Unsloth's GRPO notebooks on a T4 with 0.8.5 print V0's profile ("non_torch_memory takes
/// 0.03GiB").
#[test]
fn vllm_0_8_on_a_card_before_ampere_runs_its_v0_engine() {
    let bill = |gpu: &str| {
        let s =
            query::parse(&format!("model=qwen2.5-3b&mode=infer&engine=vllm&engine_version=0.8.5&seq=4096&gpu={gpu}"))
                .scenario;
        estimate(&s)
    };
    let t4 = bill("t4");
    let l4 = bill("l4");
    let gib = |b: u64| b as f64 / 1_073_741_824.0;
    // The context (500 MiB) is in V1's non-torch line only.
    let gap = gib(l4.component(ComponentId::NonTorch)) - gib(t4.component(ComponentId::NonTorch));
    assert!((gap - 500.0 / 1024.0).abs() < 0.01, "{gap}");
    let profile = |b: &vram_ledger::ledger::Bill| {
        b.components
            .iter()
            .find(|c| c.id == ComponentId::Activations)
            .map(|c| vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &c.formula))
            .unwrap_or_default()
    };
    assert!(profile(&t4).contains("4,096 dummy tokens"), "{}", profile(&t4));
    assert!(profile(&l4).contains("2,048 dummy tokens"), "{}", profile(&l4));
}

/// vLLM from 0.12 loads MXFP4 experts on Hopper through Triton (the wheel bundles
/// `triton_kernels`): no Marlin padding, a swizzled copy of the scales with output rows padded to
/// 256, fp32 biases. By hand for gpt-oss-120b (36 MoE layers × 128 experts, hidden and expert FFN
/// 2,880): scales (5,888 × 90 + 3,072 × 90) B = 806,400 B and biases (5,760 + 2,880) × 2 B = 17,280 B
/// per expert and layer, × 4,608 = 3,795,517,440 B beyond the checkpoint's shapes. 0.11 (Marlin)
/// and an A100 (no Triton below compute capability 9.0) keep the padding.
#[test]
fn vllm_0_12_loads_mxfp4_experts_through_triton_on_hopper() {
    let weights = |q: &str| estimate(&query::parse(q).scenario).component(ComponentId::Weights) as f64;
    let triton = weights("model=gpt-oss-120b&mode=infer&engine=vllm&engine_version=0.14.1&gpu=h100-80g");
    let marlin = weights("model=gpt-oss-120b&mode=infer&engine=vllm&engine_version=0.11.2&gpu=h100-80g");
    let a100 = weights("model=gpt-oss-120b&mode=infer&engine=vllm&engine_version=0.14.1&gpu=a100-80g");
    assert_eq!(marlin, a100, "Marlin on both");
    // Marlin's padding: the experts' stored bytes × (3,072 / 2,880 × 2,944 / 2,880 − 1).
    let experts = 114_661_785_600.0 * 4.25 / 8.0;
    let padding = experts * (3072.0 / 2880.0 * 2944.0 / 2880.0 - 1.0);
    let expected = marlin - padding + 3_795_517_440.0;
    assert!((triton - expected).abs() < 4096.0, "{triton} vs {expected}");
}

/// Gemma-4 26B-A4B's importer link (tests/data/configs/gemma-4-26b-a4b.json): 25 sliding layers of
/// 8 KV heads × 256 and 5 full-attention layers of their own 2 × 512, K used as V.
const GEMMA4_26B: &str = "model=custom&layers=30&hidden=2816&heads=16&kv_heads=8&head_dim=256&ffn=704&vocab=262144&tied=1&mlp=glu&experts=128&active_experts=8&norms=4&model_context=262144&softcap=1&qk_norm=1&layer_pattern=SSSSSF&window=1024&full_kv_heads=2&full_head_dim=512&full_k_eq_v=1&shared_experts=1&shared_ffn=2112&vision=gemma4&vision_blocks=27&vision_dim=1152&vision_heads=16&vision_ffn=4304";

/// vLLM unifies the page size of layers that cache different bytes per token
/// (`unify_kv_cache_spec_page_size`: the largest page, the smaller layers' blocks grown by the
/// ratio): Gemma-4's full-attention layers cache 2 × 2 × 512 B per token in fp8 against the
/// sliding layers' 2 × 8 × 256, so their blocks hold 32 tokens against 16. Hand arithmetic on the
/// pool a published 0.19.2rc1 log gives (RedHatAI/gemma-4-26B-A4B-it-NVFP4, fp8 KV, max_model_len
/// 98,304, 8,192 batched tokens: "Available KV cache memory: 9.08 GiB", "GPU KV cache size: 79,344
/// tokens", "Maximum concurrency for 98,304 tokens per request: 5.00x"; read in the code index,
/// whose entry does not name its repository, so it is not in the measured set).
#[test]
fn vllm_gives_a_layer_kind_of_smaller_pages_longer_blocks() {
    let q = format!("{GEMMA4_26B}&mode=infer&engine=vllm&engine_version=0.19.2&seq=98304&gpu=rtx5090&kv=fp8&quant=nvfp4&max_num_seqs=2&max_batched_tokens=8192&kv_cache_memory=9.08");
    let (s, _) = serve(&q);
    // 6 groups of 5 layers (1 full, 5 sliding), each page 16 × 8 × 256 × 2 × 1 B = 64 KiB.
    let blocks = (9.08 * GIB / (5.0 * 65_536.0)).floor() as u64;
    assert_eq!(s.kv_blocks, Some(blocks));
    assert_eq!(blocks, 29_753);
    // 0.19 reports blocks / groups × the smallest block: 29,753 / 6 × 16 = 79,328 (the log: 79,344
    // from the unrounded pool).
    assert_eq!(s.kv_tokens, blocks / 6 * 16);
    // A request of 98,304 tokens: ⌈98,304 / 32⌉ = 3,072 full blocks and 5 × (⌈(1,023 + 8,192) / 16⌉ + 1)
    // = 2,885 sliding ones.
    let per_request = 3_072 + 5 * 577;
    assert!((s.max_concurrency - blocks as f64 / per_request as f64).abs() < 1e-9, "{}", s.max_concurrency);
    assert!((s.max_concurrency - 5.00).abs() < 0.01, "the log's 5.00x: {}", s.max_concurrency);
}

/// SGLang sizes its full and sliding-window pools (`SWAKVPool`) with each kind's own bytes per
/// token: a published log of Gemma-4 26B-A4B in bf16 prints "SWAKVPool mem usage: 36.69 GB, swa
/// size: 171008, full size: 213761" (36.69 GiB = 213,761 × 5 × 2 × 2 × 512 × 2 B + 171,008 × 25
/// × 2 × 8 × 256 × 2 B; read in the code index, whose entry does not name its repository).
#[test]
fn sglang_sizes_each_pool_with_its_layers_own_shape() {
    let (s, bill) = serve(&format!("{GEMMA4_26B}&mode=infer&engine=sglang&seq=8192&gpu=h100-80g"));
    let full = s.pools().find(|p| p.kind == vram_ledger::ledger::bill::PoolKind::Full).expect("full pool");
    let swa = s.pools().find(|p| p.kind == vram_ledger::ledger::bill::PoolKind::Swa).expect("swa pool");
    // Per token: 5 full layers × 4,096 B and 25 sliding layers × 8,192 B.
    assert_eq!(full.bytes, full.tokens * 5 * 4_096);
    assert!(swa.bytes.abs_diff(swa.tokens * 25 * 8_192) < 25 * 8_192, "{} vs {}", swa.bytes, swa.tokens);
    // The pool's bytes per token at SGLang's default 0.8 share of sliding tokens.
    let per_token = 5.0 * 4_096.0 + 0.8 * 25.0 * 8_192.0;
    let pool = bill.component(ComponentId::KvCache) as f64;
    assert!((pool - s.kv_tokens as f64 * per_token).abs() < per_token, "{pool} vs {}", s.kv_tokens);
    // The published pool: 213,761 full tokens at 0.8 → 171,008 sliding, 36.69 GiB.
    let published = 213_761.0 * 5.0 * 4_096.0 + 171_008.0 * 25.0 * 8_192.0;
    assert!((published / GIB - 36.69).abs() < 0.005, "{}", published / GIB);
}

/// llama.cpp sizes each layer's cache by its own heads (`n_embd_k_gqa` per layer: Gemma-4
/// 26B-A4B's full-attention layers 2 × 512, its sliding layers 8 × 256; the b8854 log: "640.00 MiB
/// (16384 cells, 5 layers, 2/2 seqs)", "600.00 MiB (1536 cells, 25 layers, 2/2 seqs)"); without flash
/// attention it keeps V transposed and every layer's V row as wide as the widest layer's
/// (`llama-kv-cache.cpp`: `n_embd_v_gqa_max`, read by a helper), so the full layers' V doubles.
#[test]
fn llamacpp_caches_each_layer_in_its_own_shape_and_pads_v_without_flash_attention() {
    let q =
        format!("{GEMMA4_26B}&mode=infer&engine=llamacpp&engine_version=b8854&seq=16384&batch=2&quant=q4_k_m&gpu=t4");
    const MIB: u64 = 1 << 20;
    // 5 × 32,768 cells × (1,024 + 1,024) × 2 B + 25 × 2 × 1,536 cells × (2,048 + 2,048) × 2 B.
    let (flash, _) = serve(&format!("{q}&attn=flash"));
    assert_eq!(flash.kv_pool_bytes, 640 * MIB + 600 * MIB);
    // Without flash attention the full layers' V rows are 2,048 wide: 5 × 32,768 × (1,024 + 2,048) × 2 B.
    let (eager, _) = serve(&format!("{q}&attn=eager"));
    assert_eq!(eager.kv_pool_bytes, 960 * MIB + 600 * MIB);
}

/// What vLLM loads for E4B beyond its parameters (vLLM 0.22.1 and 0.30.0 `gemma4.py`,
/// `gemma4_mm.py`, `rotary_embedding/gemma4_rope.py`, read in the wheels): the sliding layers'
/// RoPE table 131,072 × 256 and the full layers' 131,072 × 512 (`rotary_dim = head_size`), bf16;
/// until 0.29 the 18 KV-shared layers' k and v projections (15 × 2 × 512 × 2,560 + 3 × 2 × 1,024 ×
/// 2,560 = 55,050,240 parameters; PR #54917 skips them from 0.30); the per-layer inputs' buffer,
/// 2,048 batched tokens × 42 × 256 × 2 B. The 0.22.1 log on an RTX 3090 Ti: "Model loading took
/// 15.18 GiB" (measured set: vllm-0.22.1-gemma-4-e4b-3090ti-model-loading).
#[test]
fn vllm_loads_gemma_4s_shared_layers_projections_until_0_30_and_its_per_layer_input_buffer() {
    let bill = |version: &str| {
        serve(&format!("{GEMMA4_E4B}&mode=infer&engine=vllm&engine_version={version}&seq=32768&gpu=rtx3090")).1
    };
    let weights = |version: &str| bill(version).component(ComponentId::Weights) as f64;
    // The model's bf16 parameters (the text model's count is pinned in tests/hf_config.rs).
    let parameters = bill("0.30").parameters as f64 * 2.0;
    let rope = (131_072.0 * 256.0 + 131_072.0 * 512.0) * 2.0;
    let buffer = 2_048.0 * 42.0 * 256.0 * 2.0;
    let projections = 55_050_240.0 * 2.0;
    let (old, new) = (weights("0.22.1"), weights("0.30"));
    assert!((old - (parameters + rope + projections + buffer)).abs() < 2.0, "{old}");
    assert!((new - (parameters + rope + buffer)).abs() < 2.0, "{new}");
    // Within 1.5 % of the log's 15.18 GiB.
    assert!((old / GIB / 15.18 - 1.0).abs() < 0.015, "{}", old / GIB);
}

/// DeepSeek-V3.2 on vLLM and SGLang: the indexer's key beside the latent, 132 B a token and layer
/// (128 fp8 values and an fp32 scale) whatever the latent's dtype; an fp8 latent is FlashMLA's
/// `fp8_ds_mla` layout, 512 fp8 values, 4 fp32 scales and the 64-wide rotary key in bf16 = 656 B
/// (vLLM `MLAAttentionSpec` / `DeepseekV32IndexerCache`, SGLang `NSATokenToKVPool`). SGLang PR
/// 11309's log on 8 × B200 printed "KV Cache is allocated. #tokens: 975424, KV size: 43.67 GB":
/// 43.67 GiB / (975,424 × 61 layers) = 788.06 B. SGLang sizes the pool by (512 + 64) × 1 + 132 = 708 B
/// a layer (`profile_max_num_token`) and allocates 788: 11 % more than it budgets.
#[test]
fn deepseek_v32_caches_its_indexer_key_beside_the_latent() {
    let v32 = "model=custom&layers=61&hidden=7168&heads=128&kv_heads=128&head_dim=192&ffn=2048&vocab=129280&tied=0\
        &mlp=glu&experts=256&active_experts=8&model_context=163840&q_lora_rank=1536&kv_lora_rank=512\
        &shared_experts=1&shared_ffn=2048&dense_layers=3&dense_ffn=18432&router_bias=1&checkpoint=fp8_block\
        &index_heads=64&mode=infer&gpus=8&seq=32768";
    for (engine, kv, per_layer) in [("vllm", "fp8", 788), ("vllm", "bf16", 1152 + 132), ("sglang", "fp8", 788)] {
        let (s, _) = serve(&format!("{v32}&engine={engine}&kv={kv}&gpu=b200"));
        assert!(s.kv_tokens > 0, "{engine} {kv}");
        // vLLM's pool is what the budget leaves, its tokens the whole 64-token blocks that fit in it.
        let (per_token, exact) = (s.kv_pool_bytes as f64 / s.kv_tokens as f64, 61.0 * per_layer as f64);
        assert!(
            per_token >= exact && per_token < exact * (1.0 + 64.0 / s.kv_tokens as f64),
            "{engine} {kv}: {per_token}"
        );
    }
    // Without the indexer (V3), the latent alone in bf16: 576 × 2 B.
    let (v3, _) = serve(&format!("{}&engine=vllm&kv=bf16&gpu=b200", v32.replace("&index_heads=64", "")));
    let per_token = v3.kv_pool_bytes as f64 / v3.kv_tokens as f64;
    assert!(per_token >= 61.0 * 1152.0 && per_token < 61.0 * 1152.0 * (1.0 + 64.0 / v3.kv_tokens as f64));
    // SGLang's tokens are what 708 B a layer would fit: the pool it allocates is 788 / 708 of that.
    let (sg, _) = serve(&format!("{v32}&engine=sglang&kv=fp8&gpu=b200"));
    let sized = sg.kv_tokens as f64 * 61.0 * 708.0;
    assert!((sg.kv_pool_bytes as f64 / sized - 788.0 / 708.0).abs() < 1e-9);
}
