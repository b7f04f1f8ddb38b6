//! Serving add-ons (issue 29): speculative decoding, served LoRA, prefix sharing, SGLang's hybrid
//! pools and `--kv-cache-memory`. Each expected figure is hand arithmetic from the rule read in
//! the engine's source (docs/serving.md, "Add-ons"), or a published start-up line with its URL.

use vram_ledger::ledger::bill::{Bill, ComponentId, PoolKind, Serving};
use vram_ledger::ledger::estimate;
use vram_ledger::query;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn serve(q: &str) -> (Serving, Bill) {
    let parsed = query::parse(q);
    assert!(parsed.errors.is_empty(), "{q}: {:?}", parsed.errors);
    let bill = estimate(&parsed.scenario);
    (bill.serving.clone().unwrap_or_else(|| panic!("{q}: no serving figures")), bill)
}

const LLAMA: &str = "model=llama-3.1-8b&mode=infer&engine=vllm&seq=8192&gpu=h100-80g";

/// Llama-3.1-8B's elements per LoRA rank on one GPU in vLLM (hidden 4096, KV 1024, MLP 14336,
/// 32 layers, vocabulary 128,256): per layer q (4096 + 4096), k and v (4096 + 1024 each), o
/// (4096 + 4096), gate and up (4096 + 14336 each), down (14336 + 4096) = 81,920; × 32 = 2,621,440;
/// the LM head (4096 + 128,256, already a multiple of 256) and the embedding (128,256 + 4096).
const LLAMA_LORA_PER_RANK: f64 = 2_621_440.0 + 132_352.0 + 132_352.0;

#[test]
fn vllm_lora_slots_are_part_of_the_weights_and_come_out_of_the_pool() {
    let (plain, _) = serve(LLAMA);
    let (s, bill) = serve(&format!("{LLAMA}&max_loras=4&max_lora_rank=64"));
    let slots = 4.0 * 64.0 * 2.0 * LLAMA_LORA_PER_RANK;
    assert_eq!(bill.component(ComponentId::AdapterWeights), slots as u64);
    assert_eq!(s.lora_bytes, slots as u64);
    // "Model loading took" counts the slots (gpu_model_runner.py: load_lora_model runs inside the
    // load's memory profiler), so the weights figure grows and the pool shrinks by them.
    assert!((s.weights_bytes as f64 - plain.weights_bytes as f64 - slots).abs() < 2.0);
    // Every CUDA graph is captured twice, with and without adapters (`cudagraph_specialize_lora`,
    // on by default from 0.11.1: `_get_lora_cases` = [0, max_loras + 1]), and from 0.20 the graphs
    // are estimated inside the budget: the pool also gives up the second set.
    assert_eq!(s.cuda_graph_bytes, 2 * plain.cuda_graph_bytes);
    let graphs = (s.cuda_graph_bytes - plain.cuda_graph_bytes) as f64;
    assert!((plain.kv_pool_bytes as f64 - s.kv_pool_bytes as f64 - slots - graphs).abs() < 2.0);
    // max_cpu_loras defaults to max_loras: four whole adapters in host RAM.
    assert!((s.host_bytes as f64 - slots).abs() < 2.0);
    let (cached, _) = serve(&format!("{LLAMA}&max_loras=4&max_lora_rank=64&max_cpu_loras=10"));
    assert!((cached.host_bytes as f64 - slots * 10.0 / 4.0).abs() < 4.0);
    assert_eq!(cached.kv_pool_bytes, s.kv_pool_bytes, "host RAM is not on the GPU");
}

#[test]
fn lora_slots_split_like_their_layers_under_tensor_parallelism() {
    // TP2: column-parallel layers keep the whole input and half the output, row-parallel ones
    // (o, down) half the input and the whole output: q 4096 + 2048, k and v 4096 + 512 each,
    // o 2048 + 4096, gate and up 4096 + 7168 each, down 7168 + 4096 = 55,296 per layer; the LM
    // head and the embedding whole on each GPU.
    let (s, _) = serve(&format!("{LLAMA}&gpus=2&max_loras=1&max_lora_rank=16"));
    let per_rank = 55_296.0 * 32.0 + 132_352.0 * 2.0;
    assert!((s.lora_bytes as f64 - per_rank * 16.0 * 2.0).abs() < 2.0, "{}", s.lora_bytes);
    // SGLang's pool holds the adapters' targets only (no LM head or embedding) and is not part of
    // "Load weight end", but it is allocated before the pool is sized.
    let (g, _) =
        serve("model=llama-3.1-8b&mode=infer&engine=sglang&seq=8192&gpu=h100-80g&max_loras=8&max_lora_rank=16");
    assert!((g.lora_bytes as f64 - 2_621_440.0 * 16.0 * 2.0 * 8.0).abs() < 2.0);
}

#[test]
fn eagle_heads_join_the_weights_the_blocks_and_the_graphs() {
    let (plain, plain_bill) = serve(LLAMA);
    let (s, bill) = serve(&format!("{LLAMA}&spec=eagle"));
    // One decoder layer: q/k/v 4096 × (4096 + 2 × 1024), o 4096 × 4096, MLP 3 × 4096 × 14336, two
    // norms; fc 2 × 4096 × 4096: 251,666,432 params × 2 B.
    let head = 251_666_432.0 * 2.0;
    assert_eq!(bill.component(ComponentId::DraftModel), head as u64);
    assert!((s.weights_bytes as f64 - plain.weights_bytes as f64 - head).abs() < 2.0);
    // The head's attention layer joins the 32 layers' blocks: 33 × 16 tokens × 4 KiB per block.
    let per_block = 33.0 * 16.0 * 4096.0;
    assert_eq!(s.kv_blocks, Some((s.kv_pool_bytes as f64 / per_block).floor() as u64));
    // Its graphs are captured with the model's: 33 layers instead of 32.
    let graphs = |b: &Bill| b.component(ComponentId::CudaGraphs) as f64;
    assert!((graphs(&bill) / graphs(&plain_bill) - 33.0 / 32.0).abs() < 1e-6);
    // n-gram lookup holds nothing on the GPU.
    let (ngram, ngram_bill) = serve(&format!("{LLAMA}&spec=ngram"));
    assert_eq!(ngram.kv_pool_bytes, plain.kv_pool_bytes);
    assert_eq!(ngram_bill.component(ComponentId::DraftModel), 0);
}

/// vLLM ≈ 0.11 loading Llama-3.x-8B with an EAGLE-3 head that has its own LM head: "Model loading
/// took 15.8114 GiB" (https://github.com/vllm-project/speculators/pull/166). The head: a layer
/// whose q/k/v read 2 × 4096, fc 3 × 4096 × 4096 and a 32,000 × 4096 LM head.
#[test]
fn an_eagle3_head_matches_a_published_load() {
    let (s, _) = serve(&format!("{LLAMA}&spec=eagle3&engine_version=0.11"));
    let loaded = s.weights_bytes as f64 / GIB;
    assert!((loaded / 15.8114 - 1.0).abs() < 0.01, "{loaded:.4} GiB against 15.8114");
}

#[test]
fn a_draft_model_and_mtp_layers_are_billed() {
    let (s, bill) = serve(&format!("{LLAMA}&spec=draft&spec_model=llama-3.2-1b"));
    let one_b = vram_ledger::ledger::presets::model("llama-3.2-1b").expect("preset").architecture.parameters();
    assert_eq!(bill.component(ComponentId::DraftModel), one_b * 2);
    // Llama-3.2-1B: 16 layers × 2 × 8 KV heads × 64 × 2 B = 32 KiB per token, the size of eight of
    // the 8B's 4 KiB layers: 40 layer slots per block.
    assert_eq!(s.kv_blocks, Some((s.kv_pool_bytes as f64 / (40.0 * 16.0 * 4096.0)).floor() as u64));
    // Without spec_model the bill says so and bills no drafter.
    let (_, missing) = serve(&format!("{LLAMA}&spec=draft"));
    assert_eq!(missing.component(ComponentId::DraftModel), 0);
    // DeepSeek-V3's MTP layer: a layer like its largest (a MoE layer) in the served FP8, over 8 GPUs.
    let (m, mb) = serve("model=deepseek-v3&mode=infer&engine=vllm&gpus=8&gpu=h200&seq=32768&spec=mtp");
    let draft = mb.component(ComponentId::DraftModel) as f64;
    // ~11.5 B parameters of the MoE layer and eh_proj at ~1 B each, over 8 GPUs: 1.2–1.5 GiB.
    assert!(draft > 1.2 * GIB && draft < 1.5 * GIB, "{}", draft / GIB);
    assert!(m.kv_pool_bytes > 0);
}

#[test]
fn a_shared_prefix_raises_the_effective_concurrency_not_the_pool() {
    let (plain, _) = serve(&format!("{LLAMA}&batch=64"));
    let (s, bill) = serve(&format!("{LLAMA}&batch=64&prefix_share=0.5"));
    assert_eq!(s.kv_pool_bytes, plain.kv_pool_bytes);
    assert_eq!(s.max_concurrency, plain.max_concurrency, "the engine's start-up figure");
    // 8,192 tokens = 512 blocks per request; the prefix's 4,096 tokens fill 256 blocks, held once.
    let blocks = s.kv_blocks.expect("blocks") as f64;
    assert!((s.effective_concurrency - (blocks - 256.0) / 256.0).abs() < 1e-9);
    assert!(s.max_context > plain.max_context);
    assert!(bill.notes.iter().any(|n| n.key == "prefix_share"));
    // SGLang: tokens, not blocks: (tokens − 4,096) / 4,096.
    let (g, _) = serve("model=llama-3.1-8b&mode=infer&engine=sglang&seq=8192&gpu=h100-80g&prefix_share=0.5");
    assert!((g.effective_concurrency - (g.kv_tokens as f64 - 4096.0) / 4096.0).abs() < 1e-9);
}

#[test]
fn kv_cache_memory_sizes_the_pool_and_the_plan_prints_it() {
    let (plain, _) = serve(LLAMA);
    let (given, bill) = serve(&format!("{LLAMA}&kv_cache_memory=10"));
    assert_eq!(given.kv_pool_bytes, 10 * 1024 * 1024 * 1024);
    assert_eq!(given.kv_blocks, Some((10.0 * GIB / (32.0 * 16.0 * 4096.0)).floor() as u64));
    assert!(bill.notes.iter().any(|n| n.key == "kv_cache_memory"));
    // The value that reproduces the plan is the pool the budget left.
    assert_eq!(plain.kv_cache_memory_bytes, plain.kv_pool_bytes);
    let gib = plain.kv_cache_memory_bytes as f64 / GIB;
    let (again, _) = serve(&format!("{LLAMA}&kv_cache_memory={gib:.6}"));
    assert_eq!(again.kv_blocks, plain.kv_blocks);
}

#[test]
fn pools_name_the_full_sliding_and_state_parts() {
    let (u, _) = serve(LLAMA);
    let pools: Vec<_> = u.pools().collect();
    assert_eq!(pools.len(), 1);
    assert_eq!((pools[0].kind, pools[0].tokens), (PoolKind::Full, u.kv_tokens));
    let (g, bill) = serve("model=gemma-3-27b&mode=infer&engine=vllm&seq=32768&gpu=h200");
    let kinds: Vec<PoolKind> = g.pools().map(|p| p.kind).collect();
    assert_eq!(kinds, vec![PoolKind::Full, PoolKind::Swa]);
    let sum: u64 = g.pools().map(|p| p.bytes).sum();
    let kv = bill.component(ComponentId::KvCache);
    assert!(sum.abs_diff(kv) <= 2, "{sum} vs {kv}");
    // SGLang's sliding-window pool keeps swa_ratio of the full pool's tokens.
    let (s, _) = serve("model=gemma-3-27b&mode=infer&engine=sglang&seq=32768&gpu=h200&swa_ratio=0.5");
    let full = s.pools().find(|p| p.kind == PoolKind::Full).expect("full").tokens;
    let swa = s.pools().find(|p| p.kind == PoolKind::Swa).expect("swa").tokens;
    assert_eq!(swa, (full as f64 * 0.5).floor() as u64);
}

#[test]
fn sglang_sizes_a_mamba_state_pool_for_linear_attention() {
    // Qwen3-Next over 2 GPUs: 36 Gated DeltaNet layers, each request's state = the conv's last 3
    // taps × 8,192 channels × 2 B + 32 heads × 128 × 128 × 4 B (fp32) = 2,146,304 B per layer, ÷ 2.
    let q = "model=qwen3-next-80b-a3b&mode=infer&engine=sglang&seq=32768&gpu=h200&gpus=2";
    let (s, bill) = serve(q);
    let per_state = 36.0 * 2_146_304.0 / 2.0;
    let state = s.pools().find(|p| p.kind == PoolKind::State).expect("state pool");
    assert!((state.bytes as f64 - state.tokens as f64 * per_state).abs() < 2.0);
    // mamba_full_memory_ratio 0.9: the states take 0.9 / 1.9 of what the weights leave.
    let kv = s.kv_pool_bytes as f64;
    let rest = kv + state.bytes as f64;
    assert!((state.bytes as f64 / rest - 0.9 / 1.9).abs() < 0.01, "{}", state.bytes as f64 / rest);
    // At most a third of the states run at once.
    assert!(s.effective_concurrency <= (state.tokens / 3) as f64);
    assert!(bill.component(ComponentId::KvCache) > 0);
    // max_mamba_cache fixes the count.
    let (fixed, _) = serve(&format!("{q}&max_mamba_cache=100"));
    assert_eq!(fixed.pools().find(|p| p.kind == PoolKind::State).map(|p| p.tokens), Some(100));
}

#[test]
fn sglang_speculation_reserves_more_and_grows_the_pool_by_its_headroom() {
    let base = "model=llama-3.1-8b&mode=infer&engine=sglang&seq=8192&gpu=h100-80g";
    let (plain, _) = serve(base);
    let (eagle, _) = serve(&format!("{base}&spec=eagle"));
    // 0.5.23 on an H100: 13,904 MiB reserved (sglang.rs's unit test), + 2,048 for EAGLE:
    // (81,559 − 15,952) / 81,559 = 0.804.
    assert_eq!(plain.share, 0.83);
    assert_eq!(eagle.share, 0.804);
    // With the fraction fixed, the pool grows by 48 requests × (5 steps × top-4 + 8 draft tokens)
    // + 100 = 1,444 tokens (Llama's defaults), the draft worker's pool beside it.
    let (a, _) = serve(&format!("{base}&mem_fraction=0.8"));
    let (b, bill) = serve(&format!("{base}&mem_fraction=0.8&spec=eagle"));
    assert_eq!(b.kv_tokens - a.kv_tokens, 1444);
    assert!(bill.component(ComponentId::DraftModel) > 0);
    // DeepSeek-style models chain 3 steps of top-1 with 4 draft tokens: 48 × 7 + 100 = 436.
    let ds = "model=deepseek-v3&mode=infer&engine=sglang&seq=8192&gpu=h200&gpus=8&mem_fraction=0.85";
    let (c, _) = serve(ds);
    let (d, _) = serve(&format!("{ds}&spec=mtp"));
    assert_eq!(d.kv_tokens - c.kv_tokens, 436);
}

#[test]
fn hostile_add_on_values_are_refused_with_a_message() {
    for bad in ["spec=medusa", "spec_model=not-a-model", "prefix_share=1.5", "max_loras=-1", "kv_cache_memory=NaN"] {
        let parsed = query::parse(&format!("{LLAMA}&{bad}"));
        assert!(!parsed.errors.is_empty(), "{bad} accepted");
        let bill = estimate(&parsed.scenario);
        assert!(bill.serving.is_some(), "{bad}: the rest of the link still bills");
    }
    // llama.cpp says the add-ons are not billed there.
    let (_, bill) = serve("model=llama-3.1-8b&mode=infer&engine=llamacpp&seq=8192&gpu=rtx4090&spec=eagle");
    assert!(bill.notes.iter().any(|n| n.key == "engine_addons"));
}

/// The planner's curve is the effective concurrency: on SGLang (tokens per request, no blocks) a
/// prefix of half of each request's context, held once, leaves each request `c/2` tokens of its
/// own, so `T` pool tokens hold (T − c/2)/(c/2) = 2·T/c − 1 requests of `c` tokens: twice the
/// plain curve's T/c, less one, at every context (hand arithmetic from `with_prefix`).
#[test]
fn the_planner_curve_counts_the_shared_prefix_once() {
    use vram_ledger::ledger::concurrency::concurrency_curve;
    let q = "model=qwen3-8b&mode=infer&engine=sglang&seq=4096&gpu=h100-80g";
    let plain = concurrency_curve(&query::parse(q).scenario);
    let shared = concurrency_curve(&query::parse(&format!("{q}&prefix_share=0.5")).scenario);
    assert_eq!(plain.len(), shared.len());
    assert!(plain.len() >= 8);
    for ((c, n), (c2, m)) in plain.iter().zip(&shared) {
        assert_eq!(c, c2);
        if c % 2 == 0 && *n > 0.0 {
            assert!((m - (2.0 * n - 1.0)).abs() < 1e-6, "{c}: {n} → {m}");
        }
    }
}

/// `max_model_len=auto`: the engine's own context. The model's is config.json's
/// `max_position_embeddings` (Llama-3.1-8B 131,072; Qwen3-8B 40,960: tests/data/configs). vLLM 0.12
/// on (`--max-model-len auto`, kv_cache_utils.py::_auto_fit_max_model_len) keeps it when one request
/// of it fits the pool, else takes the longest that does; before 0.14 there is no auto.
#[test]
fn max_model_len_auto_is_the_models_context_or_what_fits() {
    // A 24 GB card holds fewer than 131,072 tokens: the longest one request that fits is the whole
    // pool, blocks × 16 tokens, and one request of it fits at once.
    let (s, bill) = serve("model=llama-3.1-8b&mode=infer&engine=vllm&max_model_len=auto&gpu=rtx4090");
    assert!(s.context_tokens < 131_072, "{}", s.context_tokens);
    assert_eq!(Some(s.context_tokens), s.kv_blocks.map(|b| b * 16));
    assert!((s.max_concurrency - 1.0).abs() < 1e-9, "{}", s.max_concurrency);
    assert!(bill.notes.iter().any(|n| n.key == "max_model_len"));
    // An 80 GB card holds more than one request of the model's own context: it is kept.
    let (s, _) = serve("model=llama-3.1-8b&mode=infer&engine=vllm&max_model_len=auto&gpu=h100-80g");
    assert_eq!(s.context_tokens, 131_072);
    assert!(s.kv_tokens > 131_072 && s.max_concurrency > 1.0);
    // 0.11 has no auto-fit: the model's own length, which the 24 GB card cannot hold (vLLM refuses
    // to start, the "estimated maximum model length" message).
    let (s, _) = serve("model=llama-3.1-8b&mode=infer&engine=vllm&engine_version=0.11&max_model_len=auto&gpu=rtx4090");
    assert_eq!(s.context_tokens, 131_072);
    assert!(matches!(s.status, vram_ledger::ledger::bill::ServingStatus::ContextTooLong { .. }), "{:?}", s.status);
    // SGLang's context_length defaults to the model's.
    let (s, _) = serve("model=qwen3-8b&mode=infer&engine=sglang&max_model_len=auto&gpu=h100-80g");
    assert_eq!(s.context_tokens, 40_960);
    // Without it, `seq` + `gen` as before; the link keeps the key and refuses another value.
    let (s, _) = serve("model=qwen3-8b&mode=infer&engine=sglang&seq=4096&gen=512&gpu=h100-80g");
    assert_eq!(s.context_tokens, 4_608);
    let parsed = query::parse("model=qwen3-8b&mode=infer&engine=vllm&max_model_len=auto");
    assert!(query::to_query(&parsed.scenario, &[]).contains("max_model_len=auto"));
    assert!(!query::parse("max_model_len=4096").errors.is_empty());
    // A custom model's context is its own key (`model_context`); the importer reads it from
    // config.json (tests/hf_config.rs checks every preset's file).
    let custom = query::parse("model=custom&layers=4&hidden=512&heads=8&kv_heads=2&head_dim=64&ffn=1024&vocab=32000&model_context=2048&mode=infer&engine=vllm&max_model_len=auto");
    assert!(custom.errors.is_empty(), "{:?}", custom.errors);
    assert_eq!(estimate(&custom.scenario).serving.map(|s| s.context_tokens), Some(2_048));
}

/// The fused-MoE workspace vLLM keeps between calls for block-FP8 experts (docs/research/serving/
/// fp8-moe-vllm-0.14-0.34.md, read in 0.14–0.34), held through the sampler's warm-up. By hand,
/// Qwen3-235B-A22B (hidden 4096, expert_ffn 1536, top-8) on four H100s at vLLM's default 8,192
/// batched tokens: N = 2 × 1536 / 4 = 768, so Triton keeps 2 B × 8192 × 8 × (4096 + 4096) =
/// 1 GiB (0.14, and 0.18 on); FlashInfer's CUTLASS kernel (0.15) 2 B × 8192 × 4096 = 64 MiB.
#[test]
fn block_fp8_experts_keep_the_moe_workspace_through_the_sampler() {
    let q = |v: &str, gpu: &str, extra: &str| {
        format!("model=qwen3-235b-a22b&mode=infer&quant=fp8_block&engine=vllm&engine_version={v}&gpus=4&seq=40960&gpu={gpu}{extra}")
    };
    let peak = |query: String| serve(&query).0.activation_peak_bytes as f64;
    let gib = 1024.0 * 1024.0 * 1024.0;
    // 0.13 freed Triton's buffers after each call; 0.14's WorkspaceManager keeps them. The sampler
    // (the larger term) is the same in both releases.
    assert_eq!(peak(q("0.14", "h100-80g", "")) - peak(q("0.13", "h100-80g", "")), gib);
    assert_eq!(peak(q("0.15", "h100-80g", "")) - peak(q("0.13", "h100-80g", "")), 64.0 * 1024.0 * 1024.0);
    // 0.18: Triton on Hopper; Blackwell's TRTLLM kernel keeps none (same defaults: 8,192 tokens).
    assert_eq!(peak(q("0.18", "h100-80g", "")) - peak(q("0.18", "b200", "")), gib);
    // 16-bit experts run another path: nothing kept.
    let bf16 = |v: &str| peak(q(v, "h100-80g", "").replace("quant=fp8_block", "quant=bf16"));
    assert_eq!(bf16("0.14"), bf16("0.13"));
    // The pool pays it: 1 GiB less (to a block).
    let pool = |v: &str| serve(&q(v, "h100-80g", "")).0.kv_pool_bytes as f64;
    assert!((pool("0.13") - pool("0.14") - gib).abs() < 1e-3 * gib, "{} {}", pool("0.13"), pool("0.14"));
    // DeepSeek-V3 on eight H200s (hidden 7168, expert_ffn 2048, top-8): N = 512, 2 B × 8192 × 8 ×
    // (7168 + 7168) = 1.75 GiB, the research's worked figure.
    // Against Blackwell at the same release (the same defaults and sampler).
    let dsv3 = |gpu: &str| {
        let query = format!("model=deepseek-v3&mode=infer&engine=vllm&engine_version=0.18&gpus=8&gpu={gpu}");
        serve(&query).0.activation_peak_bytes as f64
    };
    assert_eq!(dsv3("h200") - dsv3("b200"), 1.75 * gib);
}
