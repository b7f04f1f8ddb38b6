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
    ] {
        let s = query::parse(q).scenario;
        c.bench_function(name, |b| b.iter(|| estimate(black_box(&s))));
    }
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

criterion_group!(ledger, benches);
criterion_main!(ledger);
