//! Speed of the ledger: one estimate, a fit solve, the speed card (figures, not pass/fail).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use vram_ledger::ledger::{estimate, fit, Scenario};
use vram_ledger::query;

fn benches(c: &mut Criterion) {
    let s = query::parse("model=llama-3.1-8b&method=qlora&seq=4096&gpu=rtx4090").scenario;
    c.bench_function("estimate", |b| b.iter(|| estimate(black_box(&s))));
    // The heaviest layouts: latent attention with dense first layers and shared experts (training),
    // alternating sliding-window layers over MXFP4 experts, and a VLM's vision tower.
    for (name, q) in [
        ("estimate deepseek-v3 lora", "model=deepseek-v3&method=lora&seq=4096&gpus=8&zero=3&gpu=h200"),
        ("estimate gpt-oss-120b infer", "model=gpt-oss-120b&mode=infer&seq=131072&gpu=h100-80g"),
        ("estimate qwen2.5-vl-7b lora", "model=qwen2.5-vl-7b&method=lora&images=2&seq=2048"),
        // The serving engines: budget, pool, concurrency and the longest-context search.
        ("estimate vllm gpt-oss-20b", "model=gpt-oss-20b&mode=infer&engine=vllm&seq=131072&batch=8&gpu=h100-80g"),
        ("estimate sglang deepseek-v3", "model=deepseek-v3&mode=infer&engine=sglang&gpus=8&seq=65536&gpu=h200"),
        (
            "estimate llamacpp qwen3-32b",
            "model=qwen3-32b&mode=infer&quant=q4_k_m&engine=llamacpp&seq=32768&batch=4&gpu=rtx4090",
        ),
        // A preference / RL step: the trainer's bill, a vLLM engine on the card, the log-probability pass.
        ("estimate grpo colocate", "model=qwen2.5-7b&method=lora&objective=grpo&rollout=colocate&batch=8&gpu=h100-80g"),
        ("estimate dpo full", "model=llama-3.1-8b&method=full&objective=dpo&gpus=8&zero=3&gpu=h100-80g"),
        ("estimate hf device_map 72b pp=4", "model=qwen2.5-72b&mode=infer&engine=hf&seq=8192&gpu=a800-80g&pp=4"),
    ] {
        let s = query::parse(q).scenario;
        c.bench_function(name, |b| b.iter(|| estimate(black_box(&s))));
    }
    // ChatGLM's remote code: its prefill replayed through the caching allocator (40 layers), a new
    // prompt length each time (more lengths than the replays kept), then the same one again.
    let glm = "model=custom&layers=40&hidden=4096&heads=32&kv_heads=2&head_dim=128&ffn=13696&vocab=151552&tied=0&qkv_bias=1&mode=infer&engine=hf&attn=sdpa&gen=512&gpu=a100-80g&mask=full";
    let lengths: Vec<Scenario> =
        (0..64).map(|k| query::parse(&format!("{glm}&seq={}", 128_000 + k)).scenario).collect();
    let mut k = 0;
    c.bench_function("estimate hf chatglm remote 128k, replayed", |b| {
        b.iter(|| {
            k = (k + 1) % lengths.len();
            estimate(black_box(&lengths[k]))
        })
    });
    c.bench_function("estimate hf chatglm remote 128k, kept", |b| b.iter(|| estimate(black_box(&lengths[0]))));
    c.bench_function("parse+estimate", |b| {
        b.iter(|| estimate(&query::parse(black_box("model=qwen2.5-7b&method=lora&seq=4096")).scenario))
    });
    c.bench_function("max_batch", |b| b.iter(|| fit::max_batch(black_box(&s))));
    c.bench_function("max_seq", |b| b.iter(|| fit::max_seq(black_box(&Scenario::default()))));
    c.bench_function("speed_card", |b| b.iter(fit::speed_card));
    // The self-test page computes all seven demonstrations on each change of the configuration.
    c.bench_function("selftest all seven", |b| {
        b.iter(|| {
            (1..=vram_ledger::selftest::QUESTIONS).filter_map(|n| vram_ledger::selftest::demo(n, black_box(&s))).count()
        })
    });
}

/// Readers of user files on big inputs (the bound: any JSON up to 16 MB read or refused in under
/// 1 s): a 1.2 MB object of 80,000 members and a 150,000-entry `tokenizer.json` given as a
/// config.json, a 1 MiB paste of table characters, the charts drawn from a bill.
fn readers(c: &mut Criterion) {
    use vram_ledger::ledger::hf_config::parse_config;
    let members: Vec<String> = (0..80_000).map(|i| format!("\"k{i}\": {i}")).collect();
    let wide = format!("{{{}}}", members.join(", "));
    let vocab: Vec<String> = (0..150_000).map(|i| format!("\"tok{i}\": {i}")).collect();
    let merges: Vec<String> = (0..150_000).map(|i| format!("\"a{i} b{i}\"")).collect();
    let tokenizer = format!(
        r#"{{"version": "1.0", "added_tokens": [], "model": {{"type": "BPE", "vocab": {{{}}}, "merges": [{}]}}}}"#,
        vocab.join(", "),
        merges.join(", ")
    );
    let mut group = c.benchmark_group("readers");
    group.sample_size(10);
    group.bench_function("config 80,000 members (1.2 MB)", |b| b.iter(|| parse_config(black_box(&wide)).is_err()));
    group.bench_function(format!("config tokenizer.json ({} MB)", tokenizer.len() >> 20), |b| {
        b.iter(|| parse_config(black_box(&tokenizer)).is_err())
    });
    let paste = "| ".repeat(1 << 19);
    group.bench_function("paste 1 MiB of table rules", |b| {
        b.iter(|| vram_ledger::tree::reader::read(black_box(&paste)))
    });
    group.finish();
}

criterion_group!(ledger, benches, readers);
criterion_main!(ledger);
