//! Served grids (issue 28: `tp`, `pp`, `dp`, `ep` in inference): vLLM's, and SGLang's data-parallel
//! attention with expert parallel. Expected figures are
//! hand arithmetic from the rules read in vLLM's source (docs/research/serving/grid-rules.md):
//! `get_pp_indices`' layer split, whole experts over the expert-parallel group of tp × dp, each
//! stage's blocks from its own layers with the engine taking the fewest, the sampler's warm-up on
//! the last stage only.

use vram_ledger::ledger::bill::{Bill, ComponentId};
use vram_ledger::ledger::estimate;
use vram_ledger::query;

fn bill(q: &str) -> Bill {
    let parsed = query::parse(q);
    assert!(parsed.errors.is_empty(), "{q}: {:?}", parsed.errors);
    estimate(&parsed.scenario)
}

fn weights(q: &str) -> f64 {
    bill(q).component(ComponentId::Weights) as f64
}

/// How close a grid's weights come to the tensor-parallel bill's: the grid keeps the final norm
/// (hidden × 2 B) whole on every GPU, where the tensor-parallel bill divides everything by tp.
const NORM_SLACK: f64 = 8192.0;

const QWEN3_30B: &str = "model=qwen3-30b-a3b&mode=infer&engine=vllm&gpu=h100-80g";
/// Qwen3-30B-A3B's routed experts in bf16: 48 layers × 128 experts × 3 matrices × 2048 × 768.
const QWEN3_30B_EXPERT_BYTES: f64 = 48.0 * 128.0 * 3.0 * 2048.0 * 768.0 * 2.0;

#[test]
fn pipeline_stages_split_the_layers_as_vllm_does() {
    // get_pp_indices: 61 layers over 4 stages are 15 each, the one left over to stage pp − 2.
    let b = bill("model=deepseek-v3&mode=infer&engine=vllm&quant=fp8_block&gpu=h200&tp=8&pp=4");
    let p = b.parallel.as_ref().expect("a served grid lists its stages");
    let layers: Vec<u64> = p.ranks.iter().map(|r| r.layers).collect();
    assert_eq!(layers, [15, 15, 16, 15]);
    // 94 layers over 4: 23 each, two left over to stages 1 and 2.
    let b = bill("model=qwen3-235b-a22b&mode=infer&engine=vllm&gpu=h200&tp=2&pp=4");
    let layers: Vec<u64> = b.parallel.as_ref().map(|p| p.ranks.iter().map(|r| r.layers).collect()).unwrap_or_default();
    assert_eq!(layers, [23, 24, 24, 23]);
}

#[test]
fn a_stage_holds_its_layers_the_first_the_embedding_the_last_the_head() {
    // Llama-3.1-8B in bf16 over two stages, tp 1: one layer is attention 4096 × (4096 + 1024 +
    // 1024 + 4096) = 41,943,040, the MLP 3 × 4096 × 14,336 = 176,160,768 and two norms 8,192:
    // 218,112,000 parameters; 16 layers = 3,489,792,000. The embedding and the LM head are
    // 128,256 × 4096 = 525,336,576 each; the final norm 4,096. Each stage also builds the RoPE
    // table over 131,072 positions × 128 × 2 B.
    let b = bill("model=llama-3.1-8b&mode=infer&engine=vllm&gpu=h100-80g&pp=2");
    let p = b.parallel.as_ref().expect("stages");
    let w: Vec<u64> = p.ranks.iter().map(|r| r.weights_bytes).collect();
    let rope = 131_072 * 128 * 2;
    assert_eq!(w[0], (3_489_792_000u64 + 525_336_576) * 2 + rope);
    assert_eq!(w[1], (3_489_792_000u64 + 525_336_576 + 4_096) * 2 + rope);
    // The sampler warms up on the last stage only: its profile peak is the larger.
    assert!(p.ranks[0].activations_bytes < p.ranks[1].activations_bytes);
    // The engine takes the fewest blocks: the billed stage (the last, which holds more) binds,
    // and picking stage 0 bills its GPU with the same pool of tokens.
    assert_eq!(p.worst_stage, 1);
    let s1 = b.serving.as_ref().expect("serving").kv_tokens;
    let first = bill("model=llama-3.1-8b&mode=infer&engine=vllm&gpu=h100-80g&pp=2&stage=0");
    assert_eq!(first.serving.as_ref().expect("serving").kv_tokens, s1);
    assert_eq!(first.component(ComponentId::Weights), w[0]);
    // Half the layers per GPU: a token costs half the bytes, so about twice the tokens of one GPU.
    let one = bill("model=llama-3.1-8b&mode=infer&engine=vllm&gpu=h100-80g");
    let ratio = s1 as f64 / one.serving.as_ref().expect("serving").kv_tokens as f64;
    assert!(ratio > 2.0 && ratio < 2.5, "{ratio}");
}

#[test]
fn expert_parallel_over_tensor_parallel_alone_holds_the_same_weights() {
    // 128 experts over 8 GPUs: 16 whole experts each, the same bytes as each expert split 8 ways.
    let tp = weights(&format!("{QWEN3_30B}&gpus=8"));
    let ep = weights(&format!("{QWEN3_30B}&tp=8&ep=8"));
    assert!((tp - ep).abs() < NORM_SLACK, "{tp} {ep}");
}

#[test]
fn data_parallel_ranks_split_the_experts_over_every_gpu() {
    // tp 4 × dp 2: attention and the rest split 4 ways, the routed experts over all 8 GPUs (whole
    // with ep, split without it: the same bytes when 128 divides evenly).
    let tp4 = weights(&format!("{QWEN3_30B}&tp=4"));
    let expected = tp4 - QWEN3_30B_EXPERT_BYTES / 4.0 + QWEN3_30B_EXPERT_BYTES / 8.0;
    for grid in ["tp=4&dp=2&ep=8", "tp=4&dp=2"] {
        let w = weights(&format!("{QWEN3_30B}&{grid}"));
        assert!((w - expected).abs() < NORM_SLACK, "{grid}: {w} vs {expected}");
    }
    // A dense model's data-parallel ranks are whole replicas: the same GPU as tp alone.
    let dense = "model=llama-3.1-8b&mode=infer&engine=vllm&gpu=h100-80g";
    let (replica, alone) = (weights(&format!("{dense}&tp=2&dp=4")), weights(&format!("{dense}&tp=2")));
    assert!((replica - alone).abs() < NORM_SLACK, "{replica} {alone}");
}

#[test]
fn whole_experts_that_do_not_divide_evenly_bill_the_rank_with_one_more() {
    // 128 experts over 3 × 2 = 6 GPUs: the first 2 ranks hold 22, the rest 21; the bill is the
    // fuller rank's, 22 of 128 experts.
    let tp3 = weights(&format!("{QWEN3_30B}&tp=3"));
    let w = weights(&format!("{QWEN3_30B}&tp=3&dp=2&ep=6"));
    let expected = tp3 - QWEN3_30B_EXPERT_BYTES / 3.0 + QWEN3_30B_EXPERT_BYTES * 22.0 / 128.0;
    assert!((w - expected).abs() < NORM_SLACK, "{w} vs {expected}");
}

#[test]
fn other_engines_and_the_unbilled_sizes_say_so() {
    let note = |q: &str| bill(q).notes.iter().any(|n| n.key == "serving_grid");
    assert!(!note("model=qwen3-30b-a3b&mode=infer&engine=vllm&tp=4&dp=2&ep=8"));
    // SGLang bills its pipeline, data-parallel attention and expert parallel; llama.cpp none.
    assert!(!note("model=qwen3-30b-a3b&mode=infer&engine=sglang&tp=4&dp=2&ep=8"));
    assert!(!note("model=qwen3-30b-a3b&mode=infer&engine=sglang&tp=4&pp=2"));
    assert!(note("model=qwen3-30b-a3b&mode=infer&engine=sglang&tp=4&cp=2"));
    assert!(note("model=qwen3-30b-a3b&mode=infer&engine=llamacpp&tp=2&ep=2"));
    assert!(note("model=qwen3-30b-a3b&mode=infer&engine=vllm&tp=4&cp=2"));
    // A served grid's JSON names no training schedule.
    let parsed = query::parse("model=qwen3-30b-a3b&mode=infer&engine=vllm&tp=2&pp=2");
    let v = vram_ledger::report::to_json(&parsed.scenario, &estimate(&parsed.scenario));
    assert_eq!(v["parallel"]["pp"], 2);
    assert!(v["parallel"]["schedule"].is_null());
    assert_eq!(v["parallel"]["ranks"].as_array().map(Vec::len), Some(2));
}

const QWEN3_30B_SGLANG: &str = "model=qwen3-30b-a3b&mode=infer&engine=sglang&gpu=h100-80g";
/// Qwen3-30B-A3B's untied LM head in bf16: vocabulary 151,936 × hidden 2048.
const QWEN3_30B_HEAD_BYTES: f64 = 151_936.0 * 2048.0 * 2.0;

#[test]
fn sglang_data_parallel_attention_splits_attention_over_tp_and_the_rest_over_the_group() {
    // tp 1 × dp 4 (SGLang's --tp 4 --dp 4 --enable-dp-attention) with --ep-size 4: attention, the
    // norms and the embedding whole on every GPU (0.5.23: the embedding over the attention's tp),
    // 32 of the 128 experts whole, the LM head over the group of 4.
    let one = weights(QWEN3_30B_SGLANG);
    let w = weights(&format!("{QWEN3_30B_SGLANG}&tp=1&dp=4&ep=4"));
    let expected = one - 0.75 * QWEN3_30B_EXPERT_BYTES - 0.75 * QWEN3_30B_HEAD_BYTES;
    assert!((w - expected).abs() < NORM_SLACK, "{w} vs {expected}");
    // Up to 0.5.6 the embedding is whole on every GPU even with tp 2 inside each attention rank;
    // from 0.5.10 it splits over that tp (vocabulary 151,936 × 2048 × 2 B, half of it).
    let old = weights(&format!("{QWEN3_30B_SGLANG}&tp=2&dp=2&engine_version=0.5.6"));
    let new = weights(&format!("{QWEN3_30B_SGLANG}&tp=2&dp=2&engine_version=0.5.23"));
    assert!((old - new - QWEN3_30B_HEAD_BYTES / 2.0).abs() < NORM_SLACK, "{old} {new}");
}

#[test]
fn sglang_data_parallel_attention_keeps_every_kv_head_of_its_rank_and_reserves_for_its_graphs() {
    // KV heads split over the attention's tp only: tp 1 keeps all 4 KV heads of every layer,
    // 4 × 128 × 2 (K and V) × 48 layers × 2 B = 98,304 B per token.
    let b = bill(&format!("{QWEN3_30B_SGLANG}&tp=1&dp=4&ep=4"));
    let s = b.serving.as_ref().expect("serving");
    let per_token = s.kv_pool_bytes as f64 / s.kv_tokens as f64;
    assert!((per_token - 98_304.0).abs() < 1.0, "{per_token}");
    // SGLang 0.5.23's default mem_fraction_static on an H100 (81,559 MiB) for a group of 4:
    // reserved = 512 + 1.5 × 8192 + 2 × 512 (graphs up to batch 512) + 4/8 × 1024 + 58 prefill
    // graph sizes × 8 = 14,800 MiB: (81,559 − 14,800) / 81,559 = 0.819. Data-parallel attention
    // adds 4.5 × 512 × 4 = 9,216 MiB (3 MiB per size and rank, half again above 300 sizes):
    // (81,559 − 24,016) / 81,559 = 0.706.
    let plain = bill(&format!("{QWEN3_30B_SGLANG}&tp=4"));
    assert_eq!(plain.serving.as_ref().map(|s| s.share), Some(0.819));
    assert_eq!(s.share, 0.706);
}

/// GLM-4.7's shape (GLM-4.5's; no preset yet) in block FP8, as vLLM issue #32105 served it.
const GLM47: &str = "model=custom&layers=92&hidden=5120&heads=96&kv_heads=8&head_dim=128&ffn=1536&vocab=151552&tied=0&mlp=glu&experts=160&active_experts=8&shared_experts=1&shared_ffn=1536&dense_layers=3&dense_ffn=12288&qkv_bias=1&qk_norm=1&router_bias=1&mode=infer&engine=vllm&quant=fp8_block&pp=8&gpu=a100-80g&gpu_util=0.925&seq=202752&max_num_seqs=128";

#[test]
fn vllm_0_15_checks_a_pipeline_s_context_against_every_layer() {
    use vram_ledger::ledger::bill::ServingStatus;
    // vLLM 0.15.0rc1 refused this run: "71.16 GiB KV cache is needed, which is larger than the
    // available KV cache memory (28.57 GiB) … the estimated maximum model length is 81392"
    // (https://github.com/vllm-project/vllm/issues/32105). 71.16 GiB is every one of the 92 layers:
    // 92 × 8 KV heads × 128 × 2 (K, V) × 2 B × 202,752 tokens, in blocks of 16.
    let b = bill(&format!("{GLM47}&engine_version=0.15"));
    let s = b.serving.as_ref().expect("serving");
    let ServingStatus::ContextTooLong { needed_bytes, longest, .. } = s.status else { panic!("{:?}", s.status) };
    assert_eq!(needed_bytes, 92 * 4096 * 202_752);
    // The longest context is what 92 layers' blocks fit in the least pool: the log's 81,392 within 1 %.
    assert!((longest as f64 / 81_392.0 - 1.0).abs() < 0.01, "{longest}");
    // The bill says a newer release would start: each stage's own pool holds the context.
    assert!(b.notes.iter().any(|n| n.key == "pipeline_check"));
    // 0.13 and 0.18 check each stage's own 11 or 12 layers: the context fits.
    for v in ["0.13", "0.18"] {
        let b = bill(&format!("{GLM47}&engine_version={v}"));
        assert!(b.serving.as_ref().is_some_and(|s| s.status.starts()), "{v}");
        assert!(!b.notes.iter().any(|n| n.key == "pipeline_check"), "{v}");
    }
}

#[test]
fn sglang_pipeline_stages_split_as_its_release_does_and_share_the_fewest_tokens() {
    // 94 layers over 4 stages: 23 each and 2 left over — to the last stage up to 0.5.4, one each
    // to the last two from 0.5.6 (get_pp_indices; docs/research/serving/grid-rules.md, B3.6).
    let layers = |v: &str| -> Vec<u64> {
        let b = bill(&format!("model=qwen3-235b-a22b&mode=infer&engine=sglang&engine_version={v}&gpu=h200&tp=2&pp=4"));
        b.parallel.map(|p| p.ranks.iter().map(|r| r.layers).collect()).unwrap_or_default()
    };
    assert_eq!(layers("0.5.4"), [23, 23, 23, 25]);
    assert_eq!(layers("0.5.23"), [23, 23, 24, 24]);
    // Every stage takes the fewest tokens (all-reduced from 0.5.2): picking stage 0, which holds
    // 23 layers, bills the same tokens as the binding stage of 24.
    let q = "model=qwen3-235b-a22b&mode=infer&engine=sglang&gpu=h200&tp=2&pp=4";
    let tokens = |extra: &str| bill(&format!("{q}{extra}")).serving.map(|s| s.kv_tokens);
    assert_eq!(tokens(""), tokens("&stage=0"));
    // `stage` picks the GPU billed: stage 0's 23 layers, not the binding stage's 24.
    let first = bill(&format!("{q}&stage=0"));
    assert_eq!(first.parallel.as_ref().map(|p| p.billed_stage), Some(0));
    // Half the layers per stage holds about twice the tokens of two stages' worth on one GPU.
    let b = bill(q);
    let p = b.parallel.as_ref().expect("stages");
    assert_eq!(p.ranks[p.worst_stage as usize].layers, 24);
}

#[test]
fn sglang_data_parallel_attention_caches_every_kv_head_as_a_published_pool_shows() {
    // SGLang serving Qwen3-Next-80B-A3B-FP8 with dp_size=4 (ranks "DP0 TP0 EP0" … "DP3 TP3 EP3":
    // --tp 4 --dp 4 --enable-dp-attention, attention tp 1) printed on every rank "KV Cache is
    // allocated. #tokens: 2786325, K size: 31.89 GB, V size: 31.89 GB"
    // (https://github.com/sgl-project/sglang/pull/10622, comment of 2025-12-26): 31.89 GiB ÷
    // 2,786,325 tokens = 12,289 B of K per token = 12 full-attention layers × 2 KV heads × 256 × 2 B:
    // every KV head, none split. Plain tensor parallel over 4 splits the 2 heads (one each: half).
    let per_token = |grid: &str| {
        let b = bill(&format!("model=qwen3-next-80b-a3b&mode=infer&engine=sglang&quant=fp8_block&gpu=h200&{grid}"));
        let s = b.serving.expect("serving");
        s.kv_pool_bytes as f64 / s.kv_tokens as f64
    };
    let k_and_v = 2.0 * 12.0 * 2.0 * 256.0 * 2.0;
    assert!((per_token("tp=1&dp=4&ep=4") - k_and_v).abs() < 1.0);
    assert!((31.89 * 1024.0 * 1024.0 * 1024.0 / 2_786_325.0 - k_and_v / 2.0).abs() < 2.0);
    assert!((per_token("tp=4") - k_and_v / 2.0).abs() < 1.0);
}

#[test]
fn a_speculative_drafter_is_on_the_last_stage_only() {
    // vLLM builds the drafter only on the last pipeline rank (gpu_model_runner.py: `if
    // self.speculative_config and get_pp_group().is_last_rank`, 0.10.1.1 … 0.33). Llama-3.1-8B's
    // EAGLE head: one decoder layer (2 × 4096² + 2 × 4096 × 1024 + 3 × 4096 × 14,336 + 2 × 4096 =
    // 218,112,000) and fc 2h → h (33,554,432): 251,666,432 parameters × 2 B.
    let q = "model=llama-3.1-8b&mode=infer&engine=vllm&gpu=h100-80g&pp=2&spec=eagle";
    let first = bill(&format!("{q}&stage=0"));
    let last = bill(&format!("{q}&stage=1"));
    assert_eq!(first.component(ComponentId::DraftModel), 0);
    assert_eq!(last.component(ComponentId::DraftModel), 251_666_432 * 2);
    // Its weights and its attention layer's blocks are the last stage's: that stage binds the pool.
    let p = last.parallel.as_ref().expect("a served grid");
    assert_eq!(p.worst_stage, 1);
    let (r0, r1) = (&p.ranks[0], &p.ranks[1]);
    // Llama's embedding and head are the same size; the last stage has the final norm (4096 × 2 B).
    assert_eq!(r1.weights_bytes, r0.weights_bytes + 8192);
    // What each stage loads ("Model loading took"): the drafter with the last stage's layers only.
    let loaded = |b: &Bill| b.serving.as_ref().map_or(0, |s| s.weights_bytes);
    assert_eq!(loaded(&first), r0.weights_bytes);
    assert_eq!(loaded(&last), r1.weights_bytes + 251_666_432 * 2);
}

#[test]
fn each_stage_holds_the_lora_slots_of_its_own_modules() {
    // vLLM wraps the modules a stage builds (the others are PPMissingLayer). Llama-3.1-8B, rank 16,
    // 16-bit A and B: per layer and rank, q 4096 + 4096, k and v 4096 + 1024, o 4096 + 4096, gate and
    // up 4096 + 14,336, down 14,336 + 4096 = 81,920 elements; the embedding 128,256 + 4096 on the
    // first stage, the LM head 128,256 (a multiple of 256) + 4096 on the last. Stage 0 of 2: 16
    // layers and the embedding = 1,443,072 elements × 16 × 2 B per slot, × 4 slots.
    let q = "model=llama-3.1-8b&mode=infer&engine=vllm&gpu=h100-80g&max_loras=4";
    let per_slot = |elements: u64| elements * 16 * 2 * 4;
    assert_eq!(weights_of(&format!("{q}&pp=2&stage=0")), per_slot(16 * 81_920 + 132_352));
    assert_eq!(weights_of(&format!("{q}&pp=2&stage=1")), per_slot(16 * 81_920 + 132_352));
    // Without a grid the one GPU holds every module's.
    assert_eq!(weights_of(q), per_slot(32 * 81_920 + 2 * 132_352));
}

fn weights_of(q: &str) -> u64 {
    bill(q).component(ComponentId::AdapterWeights)
}

/// The page bills a served grid through the reader worker (`Scenario::serves_a_grid`): what it
/// reads back is the CLI's bill — its lines and texts, the engine's figures, the stages — and
/// the planner's curve is the CLI's too. A lever's figure is the requests the grid then holds at
/// once (× 100): an engine takes its share of each card whatever the grid, so bytes would not move.
#[test]
fn the_worker_answers_a_served_grid_the_page_reads_back() {
    use vram_ledger::i18n::{render, Lang};
    use vram_ledger::readers::{decode, grid, Answer};
    for q in [
        "model=qwen3-235b-a22b&mode=infer&engine=vllm&quant=fp8_block&tp=4&pp=2&gpu=h100-80g&seq=8192&batch=16",
        "model=qwen3-30b-a3b&mode=infer&engine=sglang&tp=2&dp=2&ep=4&gpu=h100-80g",
        "model=gemma-3-27b&mode=infer&engine=vllm&tp=2&pp=2&gpu=l40s&seq=32768",
    ] {
        let parsed = query::parse(q);
        assert!(parsed.scenario.serves_a_grid(), "{q}");
        let local = bill(q);
        let Some(Answer::Grid(g)) = decode(&grid(q)) else { panic!("{q}: no grid answer") };
        assert_eq!(g.bill.components.len(), local.components.len(), "{q}");
        for (a, b) in local.components.iter().zip(&g.bill.components) {
            assert_eq!((a.id, a.bytes), (b.id, b.bytes), "{q}");
            assert_eq!(render(Lang::Zh, &a.formula), render(Lang::Zh, &b.formula), "{q}");
        }
        assert_eq!(g.bill.serving, local.serving, "{q}: the engine's figures");
        assert_eq!(g.bill.timeline, local.timeline, "{q}");
        assert_eq!(g.bill.parallel, local.parallel, "{q}");
        let keys = |b: &Bill| b.notes.iter().map(|n| n.key).collect::<Vec<_>>();
        assert_eq!(keys(&g.bill), keys(&local), "{q}: every note keeps its key");
        let curve = vram_ledger::ledger::concurrency::concurrency_curve(&parsed.scenario);
        assert!(!curve.is_empty());
        assert_eq!(g.curve, curve, "{q}: the planner's curve");
    }
    // vLLM tp 4 × pp 2 → tp 8: the lever's figure is that grid's requests at once.
    let q = "model=qwen3-235b-a22b&mode=infer&engine=vllm&quant=fp8_block&tp=4&pp=2&gpu=h100-80g&seq=8192&batch=16";
    let Some(Answer::Grid(g)) = decode(&grid(q)) else { panic!("no grid answer") };
    let tp = g.levers.iter().find(|(k, _, _)| k == "tp").expect("a tp lever");
    assert_eq!(tp.1, "8");
    let after = bill(&q.replace("tp=4", "tp=8")).serving.expect("served").effective_concurrency;
    assert_eq!(tp.2, (after * 100.0).round() as u64);
    assert!(after > local_concurrency(q), "a wider grid holds more requests at once");
    // An engine splits the experts over its tp × dp GPUs with or without `ep` (whole experts or
    // slices: the same bytes), so a served grid offers no ep lever; none it cannot take.
    assert!(g.levers.iter().all(|(k, _, _)| ["tp", "pp"].contains(&k.as_str())), "{:?}", g.levers);
    let q = "model=qwen3-30b-a3b&mode=infer&engine=vllm&tp=2&dp=2&gpu=l40s&seq=8192&batch=64";
    assert_eq!(local_concurrency(q), local_concurrency(&format!("{q}&ep=4")));
}

fn local_concurrency(q: &str) -> f64 {
    bill(q).serving.expect("served").effective_concurrency
}

/// Each stage in a served grid's summary is the bill of that stage (`stage=N`), a drafter's
/// weights and pool and the LoRA slots included: the page draws the stages' bars from the summary
/// and the totals from the bill, so they must agree (within the bytes each line rounds).
#[test]
fn each_stage_in_the_summary_is_the_bill_of_that_stage() {
    for q in [
        "model=qwen3-30b-a3b&mode=infer&engine=sglang&tp=2&dp=2&max_loras=4&gpu=h100-80g",
        "model=llama-3.1-70b&mode=infer&engine=sglang&tp=2&pp=2&spec=eagle3&max_loras=2&gpu=h100-80g",
        "model=llama-3.1-70b&mode=infer&engine=vllm&tp=2&pp=2&spec=eagle3&max_loras=4&gpu=h100-80g",
    ] {
        let whole = bill(q);
        let ranks = whole.parallel.as_ref().expect("a grid").ranks.clone();
        for r in &ranks {
            let b = bill(&format!("{q}&stage={}", r.stage));
            let close = |a: u64, b: u64| a.abs_diff(b) <= 8;
            assert!(
                close(r.device_bytes, b.device_bytes()),
                "{q} stage {}: {} vs {}",
                r.stage,
                r.device_bytes,
                b.device_bytes()
            );
            assert!(
                close(r.allocated_bytes, b.allocated_bytes()),
                "{q} stage {}: {} vs {}",
                r.stage,
                r.allocated_bytes,
                b.allocated_bytes()
            );
        }
    }
}

/// Hostile grids through the worker's answer: the largest sizes the codec accepts give a bill the
/// page reads back, with finite figures and at most one summary row per stage.
#[test]
fn hostile_served_grids_answer_the_page() {
    use vram_ledger::readers::{decode, grid, Answer};
    for q in [
        "model=deepseek-v3&mode=infer&engine=vllm&tp=1024&pp=1024&dp=1024&ep=2&gpu=h200",
        "model=qwen3-30b-a3b&mode=infer&engine=sglang&tp=3&dp=7&ep=5&pp=13&gpu=t4&spec=eagle3&max_loras=1024&max_lora_rank=4096",
        "model=llama-3.1-8b&mode=infer&engine=hf&pp=1024&seq=100000000&gen=99999999&gpu=t4",
    ] {
        let Some(Answer::Grid(g)) = decode(&grid(q)) else { panic!("{q}: no grid answer") };
        let p = g.bill.parallel.as_ref().expect("a grid");
        assert!(!p.ranks.is_empty() && p.ranks.len() <= 1024, "{q}");
        assert!(g.bill.device_bytes() > 0, "{q}");
        if let Some(sv) = &g.bill.serving {
            assert!(sv.max_concurrency.is_finite() && sv.effective_concurrency.is_finite() && sv.share.is_finite(), "{q}");
        }
        assert!(g.curve.iter().all(|&(_, at_once)| at_once.is_finite()), "{q}");
    }
}

/// The planner's levers the worker lists for a link it bills are ones the page can apply: vLLM's
/// share lever needs no bill (every release's default is below 0.95), SGLang's needs the link's
/// own `mem_fraction` (its default comes from the card, which only a bill computes).
#[test]
fn the_worker_lists_planner_levers_the_page_can_apply() {
    use vram_ledger::readers::{decode, grid, Answer};
    use vram_ledger::tree::Lever;
    let levers = |q: &str| match decode(&grid(q)) {
        Some(Answer::Grid(g)) => g.planner_levers.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        _ => panic!("{q}: no grid answer"),
    };
    let vllm = "model=llama-3.1-8b&mode=infer&engine=vllm&seq=8192&gpu=h100-80g&spec=eagle3&max_loras=4";
    assert!(levers(vllm).contains(&Lever::EngineShare));
    let applied = Lever::EngineShare.apply(&query::parse(vllm).scenario).expect("applies");
    assert_eq!(applied.serving.gpu_util, Some(0.95));
    let sglang = "model=qwen3-30b-a3b&mode=infer&engine=sglang&tp=2&dp=2&gpu=h100-80g";
    assert!(!levers(sglang).contains(&Lever::EngineShare));
    let set = format!("{sglang}&mem_fraction=0.7");
    assert!(levers(&set).contains(&Lever::EngineShare));
    let applied = Lever::EngineShare.apply(&query::parse(&set).scenario).expect("applies");
    assert_eq!(applied.serving.mem_fraction, Some(0.75));
}

/// Which experts a GPU holds, as the CLI prints it (issue 28): whole experts over the
/// expert-parallel group, contiguous, the first ranks one more when they do not divide (vLLM's
/// `determine_expert_map`). Hand arithmetic: 128 over 4 is 32 each (rank 3: 96 … 127); 128 over 6
/// is 21 with 2 left over, so ranks 0 and 1 hold 22 and rank 5 starts at 5 × 21 + 2 = 107.
#[test]
fn the_cli_says_which_experts_each_gpu_holds() {
    use vram_ledger::report::{experts_text, GridKind};
    let text = |q: &str, kind| experts_text(&query::parse(q).scenario, kind).unwrap_or_default();
    let megatron = "model=qwen3-30b-a3b&method=full&framework=megatron&tp=2&pp=4&ep=4&dp=2&seq=4096&gpu=h100-80g";
    assert!(text(megatron, GridKind::Training).contains("rank 0 holds experts 0 … 31, rank 3 experts 96 … 127"));
    let vllm = "model=qwen3-30b-a3b&mode=infer&engine=vllm&tp=2&dp=2&ep=2&gpu=h100-80g";
    assert!(text(vllm, GridKind::Served).contains("whole over 4 GPUs"), "vLLM's expert parallel spans tp × dp");
    let sglang = "model=qwen3-30b-a3b&mode=infer&engine=sglang&tp=6&ep=6&gpu=h100-80g";
    assert!(text(sglang, GridKind::Served).contains("rank 0 holds experts 0 … 21, rank 5 experts 107 … 127"));
    let sliced = "model=qwen3-30b-a3b&mode=infer&engine=vllm&tp=2&pp=2&gpu=h100-80g";
    assert!(text(sliced, GridKind::Served).contains("every one on each GPU, each expert's matrices ÷ 2"));
    // `gpus` alone is the tensor-parallel size in inference, as the bill takes it.
    let by_gpus = "model=qwen3-30b-a3b&mode=infer&engine=vllm&gpus=4&pp=2&gpu=h100-80g";
    assert!(text(by_gpus, GridKind::Served).contains("each expert's matrices ÷ 4"));
    assert_eq!(text("model=llama-3.1-70b&mode=infer&engine=vllm&tp=2&pp=2&gpu=h100-80g", GridKind::Served), "");
    assert_eq!(text("model=qwen3-30b-a3b&mode=infer&engine=hf&pp=3&gpu=a100-80g", GridKind::DeviceMap), "");
}
