//! The chapter's self-test (§5, issue 14): each demonstration shows what its answer says, on the
//! numbers the ledger computes. Expected figures are the chapter's (16 B per parameter; LoRA's
//! gradients and moments only for the adapters; activations linear in batch and sequence; the eval
//! graph on top of training; KV outgrowing the weights under concurrency) or hand arithmetic on the
//! architecture (in the comments); none is copied from the code's output.

mod common;
use common::scenario;
use vram_ledger::i18n::{render, Lang};
use vram_ledger::ledger::bill::{ComponentId as C, TotalKind};
use vram_ledger::ledger::msg::Arg;
use vram_ledger::ledger::presets;
use vram_ledger::ledger::{estimate, fit};
use vram_ledger::query;
use vram_ledger::selftest::{demo, texts, Demo, Finding, QUESTIONS};
use vram_ledger::tree::paste::Cause;
use vram_ledger::tree::NodeId;
use vram_ledger::view;

/// The numbers a finding shows, in the order its template places them.
fn numbers(f: &Finding) -> Vec<f64> {
    f.args
        .iter()
        .filter_map(|a| match a {
            Arg::Int(n) => Some(*n as f64),
            Arg::Count(n) => Some(*n as f64),
            Arg::Bytes(x) | Arg::Factor(x) | Arg::Fixed(x, _) => Some(*x),
            _ => None,
        })
        .collect()
}

/// The chapter's 20 % margin, written out: nvidia-smi's total at most 80 % of the card, and the
/// high end of its range (what the scenario leaves open) within the card.
fn fits_with_margin(s: &vram_ledger::ledger::Scenario) -> bool {
    let b = estimate(s);
    b.device_bytes() as f64 <= 0.8 * b.gpu_bytes as f64 && b.range(TotalKind::Device).1 <= b.gpu_bytes
}

fn shown(n: u8, q: &str) -> (Demo, Vec<f64>) {
    let d = demo(n, &scenario(q)).expect("questions 1–7 have a demonstration");
    let v = numbers(&d.finding);
    (d, v)
}

/// Llama-3.1-8B: 8,030,261,248 parameters; weights 2 + gradients 2 + AdamW 8 + master 4 = 16 B
/// each (the chapter's answer), 128,484,179,968 B in all.
#[test]
fn question_1_shows_16_bytes_per_parameter() {
    for q in [
        "",
        "model=qwen3-8b&gpu=a800-80g",
        "model=gpt-oss-20b&mode=infer",
        "model=qwen2.5-7b&method=qlora&gpus=4&zero=3",
    ] {
        let (d, v) = shown(1, q);
        assert_eq!(&v[..5], &[2.0, 2.0, 8.0, 4.0, 16.0], "{q}: {v:?}");
        let params = d.after.scenario.architecture.parameters() as f64;
        assert_eq!(v[5], params);
        assert!((v[6] - 16.0 * params).abs() <= 4.0, "{q}: {} vs 16 × {params}", v[6]);
        assert_eq!(d.before.label.as_deref(), Some("mode=infer"));
        assert_eq!(d.after.label.as_deref(), Some("mode=train"));
    }
    let (_, v) = shown(1, "");
    assert_eq!(v[5], 8_030_261_248.0);
    assert_eq!(v[6], 128_484_179_968.0);
}

/// LoRA r = 16 on every linear of Llama-3.1-8B: per layer r · Σ(d_in + d_out) = 16 × (8,192 +
/// 5,120 + 5,120 + 8,192 + 18,432 × 3) = 1,310,720, × 32 layers = 41,943,040 trainable (0.522 %).
/// Their gradients are fp32 adapters' (4 B: 160 MiB), their AdamW moments 8 B (320 MiB); the full
/// fine-tune's are 2 B and 8 B per model parameter.
#[test]
fn question_2_shows_gradients_and_moments_only_for_the_adapters() {
    let (d, v) = shown(2, "");
    assert_eq!(v[0], 16.0);
    assert_eq!(v[1], 41_943_040.0);
    assert_eq!(v[2], 8_030_261_248.0);
    assert!((v[3] - 0.522).abs() < 0.001, "{}", v[3]);
    assert_eq!(v[4], 2.0 * 8_030_261_248.0);
    assert_eq!(v[5], 4.0 * 41_943_040.0);
    assert_eq!(v[6], 8.0 * 8_030_261_248.0);
    assert_eq!(v[7], 8.0 * 41_943_040.0);
    // The saving is what the bars show: the full bill less the LoRA bill.
    assert_eq!(v[8], (d.before.bill.device_bytes() - d.after.bill.device_bytes()) as f64);
    // A smaller rank trains proportionally fewer parameters.
    let (_, r8) = shown(2, "rank=8");
    assert_eq!(r8[1], 41_943_040.0 / 2.0);
}

/// Activations (no checkpointing, SDPA) are per token: twice the batch or twice the sequence is
/// exactly twice the activations; eager attention's s² scores make a doubled sequence more than
/// twice; checkpointing keeps one layer input per layer and cuts most of it.
#[test]
fn question_3_shows_activations_linear_in_batch_and_sequence() {
    for q in ["", "model=qwen3-8b&seq=4096&batch=2", "model=qwen2.5-7b&method=qlora"] {
        let (d, v) = shown(3, q);
        assert_eq!(v[0] * 2.0, v[1]);
        assert!((v[3] / v[2] - 2.0).abs() < 1e-9, "{q}: batch × 2 → × {}", v[3] / v[2]);
        assert_eq!(v[4], 2.0, "{q}");
        assert_eq!(v[5], 2.0, "{q}: sequence × 2");
        assert!(v[6] < 0.2 * v[2] && v[7] > 80.0, "{q}: checkpointing {} → {} (−{} %)", v[2], v[6], v[7]);
        assert!(!d.before.scenario.checkpointing.is_on());
    }
    let (_, eager) = shown(3, "attn=eager");
    assert!(eager[5] > 2.0, "eager scores grow with s²: × {}", eager[5]);
}

/// Evaluating without no_grad keeps the eval batch's graph on top of the training step's memory:
/// the peak grows by exactly that graph.
#[test]
fn question_4_shows_the_eval_peak_above_the_training_peak() {
    for q in ["", "method=full&gpu=h100-80g", "model=qwen3-8b&method=qlora&seq=4096"] {
        let (d, v) = shown(4, q);
        assert!(v[2] > v[0], "{q}: eval {} ≤ training {}", v[2], v[0]);
        assert_eq!(v[2] - v[0], v[1], "{q}: the growth is the eval graph");
        assert_eq!(v[1], d.after.bill.component(C::EvalGraph) as f64);
        assert_eq!(d.before.bill.component(C::EvalGraph), 0);
    }
}

/// A peak well below the card with the card's memory all reserved is fragmentation on the tree;
/// a leftover process of the same run shows in nvidia-smi, not in PyTorch's allocated.
#[test]
fn question_5_reads_fragmentation_on_the_tree() {
    for q in ["", "model=qwen3-8b&gpu=a800-80g", "model=llama-3.2-1b&gpu=rtx4090d&mode=infer"] {
        let (d, v) = shown(5, q);
        assert!(v[2] < 80.0, "{q}: the peak is {} % of the card", v[2]);
        assert_eq!(d.diagnosis, Some((Cause::Fragmentation, NodeId::Fragmentation)), "{q}");
        assert!((v[4] - (v[3] - v[0])).abs() < 1.0, "{q}: unallocated = reserved − allocated");
        assert!(v[5] > 0.0);
        assert_eq!(d.after.bill.allocated_bytes(), d.before.bill.allocated_bytes());
    }
}

/// A sample four times the usual length needs more; the longest that fits with the margin fits,
/// one token more does not.
#[test]
fn question_6_shows_the_cutoff_that_fits() {
    for q in ["", "model=qwen3-8b&gpu=a800-80g&method=full&zero=3&gpus=8", "model=qwen2.5-7b&method=qlora&gpu=rtx4090d"]
    {
        let (d, v) = shown(6, q);
        assert_eq!(v[2], 4.0 * v[0]);
        assert!(v[3] > v[1], "{q}");
        let cutoff = v[4] as u64;
        let mut s = d.before.scenario.clone();
        s.seq = cutoff;
        assert!(cutoff == 0 || fits_with_margin(&s), "{q}: {cutoff} tokens should fit");
        s.seq = cutoff + 1;
        assert!(cutoff == fit::MAX_SEQ || !fits_with_margin(&s), "{q}: {} tokens should not fit", cutoff + 1);
    }
}

/// Llama-3.1-8B at 2,048 tokens: KV per request 2 × 32 layers × 8 heads × 128 × 2,048 × 2 B =
/// 268,435,456 B (256 MiB); the weights 16,060,522,496 B; from ⌊weights / KV⌋ + 1 = 60 requests
/// at once the KV cache is the larger.
#[test]
fn question_7_shows_kv_outgrowing_the_weights() {
    let (d, v) = shown(7, "");
    assert_eq!(v[0], 16_060_522_496.0);
    assert_eq!(v[1], 2048.0);
    assert_eq!(v[2], 268_435_456.0);
    assert_eq!(v[4], 60.0);
    assert_eq!(v[5], 60.0 * 268_435_456.0);
    assert!(v[5] > v[0]);
    assert_eq!(d.after.label.as_deref(), Some("batch=60"));
    for q in ["model=qwen3-8b&gpu=h20&seq=8192", "model=gpt-oss-20b&gpu=rtx4090", "model=qwen2.5-7b&gen=1024"] {
        let (d, v) = shown(7, q);
        let kv = |batch: u64| {
            let mut s = d.before.scenario.clone();
            s.batch = batch;
            estimate(&s).component(C::KvCache) as f64
        };
        let crossing = v[4] as u64;
        assert!(kv(crossing) > v[0] && kv(crossing - 1) <= v[0], "{q}: crossing at {crossing}");
        // The weights do not change with the number of requests; only the KV cache does.
        assert_eq!(d.before.bill.component(C::Weights), d.after.bill.component(C::Weights));
        // The card holds v[3] requests with the margin and not one more: the KV cache fills it.
        let fits = |batch: f64| {
            let mut s = d.before.scenario.clone();
            s.batch = batch as u64;
            fits_with_margin(&s)
        };
        assert!(fits(v[3]) && !fits(v[3] + 1.0), "{q}: {} requests", v[3]);
    }
}

/// Each demonstration changes one key: the two bars' links differ in that key alone.
#[test]
fn each_demonstration_changes_one_key() {
    for n in 1..=QUESTIONS {
        let d = demo(n, &scenario("model=qwen3-8b&batch=2")).unwrap();
        let pairs = |s| -> Vec<String> { query::to_query(s, &[]).split('&').map(String::from).collect() };
        let (b, a) = (pairs(&d.before.scenario), pairs(&d.after.scenario));
        let changed: Vec<&String> =
            a.iter().filter(|p| !b.contains(p)).chain(b.iter().filter(|p| !a.contains(p))).collect();
        let keys: std::collections::BTreeSet<&str> =
            changed.iter().map(|p| p.split('=').next().unwrap_or("")).collect();
        assert_eq!(keys.len(), 1, "question {n}: {changed:?}");
        let label = d.after.label.clone().unwrap_or_default();
        assert!(label.starts_with(keys.iter().next().unwrap()), "question {n}: {label} vs {keys:?}");
    }
}

/// Every question, on every preset and in both modes, renders in both languages with finite,
/// non-negative numbers (no NaN reaches the page).
#[test]
fn every_question_renders_on_every_preset() {
    for m in presets::models() {
        for mode in ["train", "infer"] {
            let s = scenario(&format!("model={}&mode={mode}&gpu=h100-80g", m.id));
            for n in 1..=QUESTIONS {
                let d = demo(n, &s).unwrap();
                for x in numbers(&d.finding) {
                    assert!(x.is_finite() && x >= 0.0, "{} {mode} q{n}: {x}", m.id);
                }
                for lang in [Lang::Zh, Lang::En] {
                    let text = d.finding.render(lang);
                    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
                }
            }
        }
    }
    assert!(texts(0).is_none() && texts(8).is_none() && demo(8, &scenario("")).is_none());
}

/// `view=selftest&q=N` in a link; a bad value is named with what is accepted, and ignored.
#[test]
fn the_view_keys_are_read_and_checked() {
    let read = |q: &str| view::read(&query::parse(q).ui);
    let v = read("view=selftest&q=3&model=qwen3-8b");
    assert!(v.selftest && v.question == Some(3) && v.errors.is_empty());
    assert!(!read("view=calculator").selftest);
    for bad in ["q=0", "q=8", "q=x", "q=", "view=quiz", "q=99999999999"] {
        let v = read(bad);
        assert_eq!(v.errors.len(), 1, "{bad}");
        assert!(v.question.is_none() && !v.selftest, "{bad}");
        let text = render(Lang::En, &v.errors[0].message);
        assert!(text.contains("accepted"), "{bad}: {text}");
    }
    // The scenario keys of a self-test link are the calculator's; the view keys raise no warning.
    let parsed = query::parse("view=selftest&q=2&seq=4096");
    assert!(parsed.warnings.is_empty() && parsed.errors.is_empty());
    assert_eq!(parsed.scenario.seq, 4096);
}

/// Absurd configurations (the largest values the keys accept, the smallest card) still give every
/// question a finding with finite numbers: no panic, no NaN, no hang in the fit solvers.
#[test]
fn absurd_configurations_still_answer() {
    for q in [
        "seq=100000000&batch=65536",
        "vram=0.001",
        "gpus=100000&zero=3&method=full",
        "model=custom&layers=10000&hidden=16777216&heads=16777216&kv_heads=1&head_dim=1&ffn=16777216&vocab=134217728",
        "mode=infer&gen=100000000&kv=int4&engine=vllm",
        "method=qlora&rank=65536&lora_dropout=0.99&loop=script&bnb=legacy&compile=1&precision=fp8",
    ] {
        let s = scenario(q);
        for n in 1..=QUESTIONS {
            let d = demo(n, &s).unwrap();
            for x in numbers(&d.finding) {
                assert!(x.is_finite() && x >= 0.0, "{q} q{n}: {x}");
            }
        }
    }
}
