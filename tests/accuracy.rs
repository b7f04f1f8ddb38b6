//! The accuracy report (issue 6): the ledger against the published measurements of
//! tests/data/measured.toml. Fails when the median absolute error passes 10 % (the chapter's bar
//! for homework 1), when a case leaves the tolerance its unknowns allow, or when docs/accuracy.md
//! is not what `make accuracy` writes.

use vram_ledger::ledger::bill::ComponentId;
use vram_ledger::validation::accuracy::{
    evaluate, markdown, parse_set, problems, summarize, tolerance_for, Case, FigureKind, Outcome, Workload,
};

const SET: &str = include_str!("data/measured.toml");

fn outcomes() -> Vec<Outcome> {
    let cases = parse_set(SET).unwrap_or_else(|e| panic!("{e}"));
    evaluate(&cases).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_set_has_twenty_public_cases_beyond_measured_public_across_workloads() {
    let all = outcomes();
    let beyond = all.iter().filter(|o| o.case.origin != "measured-public").count();
    assert!(beyond >= 20, "{beyond} cases beyond measured-public.md");
    // Every kind of workload the issue names is covered, with several families and sizes.
    for w in Workload::ALL {
        assert!(all.iter().filter(|o| o.workload == w).count() >= 3, "{w:?}");
    }
    let families = ["llama-2", "llama-3", "mistral", "phi", "falcon", "stablelm", "codellama", "tiny-llama"];
    for f in families {
        assert!(all.iter().any(|o| o.case.id.contains(f)), "no case for {f}");
    }
    // Long contexts (the Unsloth rows reach 28k tokens of training; C1 128k of KV cache).
    assert!(all.iter().any(|o| o.case.query.contains("seq=28454")));
    assert!(all.iter().any(|o| o.case.query.contains("seq=128000")));
}

/// The bar of issue 6 and every case's own tolerance.
#[test]
fn median_error_within_ten_percent_and_every_case_within_its_tolerance() {
    let all = outcomes();
    let p = problems(&all);
    assert!(p.is_empty(), "{}", p.join("\n"));
    let s = summarize(&all).expect("cases");
    assert!(s.median_abs <= 0.10, "{}", s.median_abs);
}

/// docs/accuracy.md is generated (`make accuracy`); a formula change must regenerate it.
#[test]
fn docs_accuracy_md_is_current() {
    let written =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/accuracy.md")).expect("docs/accuracy.md");
    assert!(written == markdown(&outcomes()), "docs/accuracy.md is stale: run `make accuracy`");
}

/// Tolerances follow from the unknowns: 2 % exact, 10 % + 10 % per unknown; nothing else parses.
#[test]
fn tolerances_follow_from_the_unknowns_only() {
    let tags = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(tolerance_for(&tags(&["exact"])), Some(0.02));
    assert_eq!(tolerance_for(&tags(&[])), Some(0.10));
    assert!((tolerance_for(&tags(&["length", "framework"])).unwrap() - 0.30).abs() < 1e-12);
    assert_eq!(tolerance_for(&tags(&["length", "length"])), None);
    assert_eq!(tolerance_for(&tags(&["vibes"])), None);
    // A case that widens its own tolerance is refused.
    let widened = SET.replacen("tolerance = 0.02", "tolerance = 0.5", 1);
    let err = parse_set(&widened).unwrap_err();
    assert!(err.contains("does not follow from its unknowns"), "{err}");
}

fn synthetic(id: &str, query: &str, figure: f64, kind: &str, unknowns: &[&str]) -> Case {
    let unknowns: Vec<String> = unknowns.iter().map(|s| s.to_string()).collect();
    Case {
        id: id.into(),
        query: query.into(),
        figure,
        unit: "GiB".into(),
        kind: kind.into(),
        tolerance: tolerance_for(&unknowns).unwrap(),
        unknowns,
        source: "synthetic".into(),
        url: "https://example.invalid".into(),
        origin: String::new(),
        note: String::new(),
        open: String::new(),
    }
}

/// The arithmetic of the report, on figures done by hand. Llama-2-7B's bf16 weights are
/// 6,738,415,616 × 2 B = 12.5513 GiB (tests/presets.rs pins the count).
#[test]
fn errors_median_and_failures_by_hand() {
    let weights = 6_738_415_616.0 * 2.0 / (1u64 << 30) as f64;
    let q = "model=llama-2-7b&mode=infer";
    // Measurements 10 % below, 5 % above and exactly at the estimate: errors +11.1 %, −4.76 %, 0.
    let cases = vec![
        synthetic("low", q, weights / 1.1 * 1.0, "weights", &[]),
        synthetic("high", q, weights * 1.05, "weights", &[]),
        synthetic("exact", q, weights, "weights", &["exact"]),
    ];
    let o = evaluate(&cases).unwrap();
    assert!((o[0].error() - 0.1).abs() < 1e-6, "{}", o[0].error());
    assert!((o[1].error() - (1.0 / 1.05 - 1.0)).abs() < 1e-6);
    assert!(o[2].error().abs() < 1e-6);
    let s = summarize(&o).unwrap();
    // |errors| sorted: 0, 0.0476, 0.1 → median 0.0476; worst 0.1 ("low").
    assert!((s.median_abs - (1.0 - 1.0 / 1.05)).abs() < 1e-6);
    assert_eq!(s.worst_id, "low");
    // "low" at +10.0 % sits on its 10 % tolerance (within); move it to +25 % and it fails, and so
    // does the median bar once two of three are above 10 %.
    let mut worse = cases.clone();
    worse[0].figure = weights / 1.25;
    worse[1].figure = weights * 1.2;
    let o = evaluate(&worse).unwrap();
    let p = problems(&o);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p[0].contains("median absolute error"), "{p:?}");
    assert!(p[1].contains("`low`") && p[1].contains("+25.0 %"), "{p:?}");
    assert!(p[2].contains("`high`") && p[2].contains("−16.7 %"), "{p:?}");
    // A known miss marked open is listed, not failed; a marked case back inside its tolerance fails.
    let mut marked = worse.clone();
    marked[0].open = "what the ledger does not model".into();
    let p = problems(&evaluate(&marked).unwrap());
    assert!(!p.iter().any(|x| x.contains("`low`")), "{p:?}");
    marked[1].open = "stale".into();
    marked[1].figure = weights;
    let p = problems(&evaluate(&marked).unwrap());
    assert!(p.iter().any(|x| x.contains("`high` is marked open but is within")), "{p:?}");
}

#[test]
fn figure_kinds_and_bad_files() {
    assert_eq!(FigureKind::parse("kv_cache"), Some(FigureKind::Component(ComponentId::KvCache)));
    assert_eq!(FigureKind::parse("reserved"), Some(FigureKind::Reserved));
    assert_eq!(FigureKind::parse("peak"), None);
    assert_eq!(FigureKind::parse("decode_peak"), Some(FigureKind::DecodePeak));
    assert!(parse_set("[[case]]\nid = 1").unwrap_err().starts_with("measured set:"));
    let bad_unit = SET.replacen("unit = \"GiB\"", "unit = \"gigs\"", 1);
    assert!(parse_set(&bad_unit).unwrap_err().contains("unit `gigs`"));
    // A query the ledger refuses is reported with the case's id, never a panic.
    let bad_query = vec![synthetic("broken", "model=nope", 1.0, "weights", &[])];
    assert!(evaluate(&bad_query).unwrap_err().contains("case `broken`"));
}

/// `decode_peak` is the decode phase: Llama-2-7B bf16, a 6,144-token prompt and 2,048 generated
/// tokens. By hand: weights 6,738,415,616 × 2 B; the cache 2 × 32 layers × 4,096 × 8,192 tokens × 2 B
/// = 4 GiB; beyond them at most a step's copy of one layer's grown cache (2 × 4,096 × 8,192 × 2 B =
/// 128 MiB) and the last logits (32,000 × 10 B). The prefill's working set (an MLP of 11,008 over
/// 6,144 tokens is hundreds of MiB) is not in it; here it is the peak all the same, since the prefill
/// holds 1 GiB less cache (2,048 tokens) than the decode and its working set is smaller than that.
#[test]
fn decode_peak_is_the_decode_phase_by_hand() {
    let q = "model=llama-2-7b&mode=infer&engine=hf&attn=flash&seq=6144&gen=2048&batch=1";
    let scenario = vram_ledger::query::parse(q).scenario;
    let bill = vram_ledger::ledger::estimate(&scenario);
    let decode = FigureKind::DecodePeak.of(&bill);
    let weights = 6_738_415_616.0 * 2.0;
    let cache = 4.0 * (1u64 << 30) as f64;
    let held = decode - weights - cache;
    assert!((0.0..=128.0 * 1048576.0 + 320_000.0).contains(&held), "{held}");
    assert_eq!(decode, FigureKind::Allocated.of(&bill));
    // A 30,720-token prompt with 16 generated tokens: the prefill's working set now dominates.
    let long = "model=llama-2-7b&mode=infer&engine=hf&attn=flash&seq=30720&gen=16&batch=1";
    let bill = vram_ledger::ledger::estimate(&vram_ledger::query::parse(long).scenario);
    assert!(FigureKind::DecodePeak.of(&bill) < FigureKind::Allocated.of(&bill) - 256.0 * 1048576.0);
}

/// Issue 15's targets on the engines' start-up logs: at least 30 logs (a log is one run: its
/// source and its configuration), KV tokens within 3 % and the KV pool within 5 % at the median.
#[test]
fn serving_engines_meet_their_targets_on_the_start_up_logs() {
    let all = outcomes();
    let serving: Vec<&Outcome> = all.iter().filter(|o| o.workload == Workload::Serving).collect();
    let mut logs: Vec<(&str, &str)> = serving.iter().map(|o| (o.case.url.as_str(), o.case.query.as_str())).collect();
    logs.sort_unstable();
    logs.dedup();
    assert!(logs.len() >= 30, "{} start-up logs", logs.len());
    let median = |kind: &str| {
        let of_kind: Vec<&Outcome> = serving.iter().copied().filter(|o| o.case.kind == kind).collect();
        assert!(of_kind.len() >= 10, "{kind}: {} cases", of_kind.len());
        summarize(of_kind).expect("cases").median_abs
    };
    let (tokens, pool) = (median("kv_tokens"), median("kv_pool"));
    assert!(tokens <= 0.03, "kv_tokens median {tokens}");
    assert!(pool <= 0.05, "kv_pool median {pool}");
    // Every engine is checked.
    for engine in ["engine=vllm", "engine=sglang", "engine=llamacpp"] {
        assert!(serving.iter().filter(|o| o.case.query.contains(engine)).count() >= 5, "{engine}");
    }
}
