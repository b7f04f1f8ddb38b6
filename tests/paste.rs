//! Pasted OOM messages: the reader and the diagnosis against real reports (tests/data/oom_reports.toml,
//! each with its thread's URL and the diagnosis the thread supports), hand-written messages of every
//! layout with hand-computed expectations, and hostile pastes.

use proptest::prelude::*;
use serde::Deserialize;
use vram_ledger::i18n::{render, Lang};
use vram_ledger::ledger::msg::{Arg, Msg, MsgId};
use vram_ledger::tree::paste::{diagnose_paste, diagnose_reading, Advice, Cause, Pasted};
use vram_ledger::tree::reader::{read, Format, Reading, MAX_TEXT};
use vram_ledger::tree::NodeId;

const REPORTS: &str = include_str!("data/oom_reports.toml");
const MIB: f64 = 1048576.0;
const GIB: f64 = 1073741824.0;

#[derive(Deserialize)]
struct Report {
    id: String,
    url: String,
    lang: String,
    formats: Vec<String>,
    diagnosis: String,
    text: String,
}

#[derive(Deserialize)]
struct Reports {
    report: Vec<Report>,
}

fn reports() -> Vec<Report> {
    match toml::from_str::<Reports>(REPORTS) {
        Ok(r) => r.report,
        Err(e) => panic!("tests/data/oom_reports.toml: {e}"),
    }
}

const CAUSES: [Cause; 12] = Cause::ALL;

/// Unique ids, each report a GitHub thread with a diagnosis of the contract.
fn well_formed(all: &[Report]) {
    let mut ids: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len(), "ids are unique");
    for r in all {
        assert!(r.url.starts_with("https://github.com/"), "{}: {}", r.id, r.url);
        assert!(CAUSES.iter().any(|c| c.id() == r.diagnosis), "{}: diagnosis {}", r.id, r.diagnosis);
    }
}

#[test]
fn the_fixture_has_what_the_issue_asks_for() {
    let all = reports();
    assert!(all.len() >= 40, "{} reports", all.len());
    let count = |f: &dyn Fn(&Report) -> bool| all.iter().filter(|r| f(r)).count();
    assert!(count(&|r| r.diagnosis == "fragmentation") >= 8);
    assert!(count(&|r| r.diagnosis == "zombie") >= 8);
    let serving = ["vllm_kv", "vllm_kv_v1", "vllm_no_blocks", "vllm_free_memory", "sglang", "llamacpp"];
    assert!(count(&|r| r.formats.iter().any(|f| serving.contains(&f.as_str()))) >= 8);
    assert!(count(&|r| r.lang == "zh") >= 8, "Chinese-language reports");
    well_formed(&all);
    for r in &all {
        for f in &r.formats {
            assert!(Format::from_id(f).is_some(), "{}: format {f}", r.id);
        }
    }
    // Every layout the issue names is among them.
    for f in [
        "torch22",
        "torch21",
        "torch15",
        "torch14",
        "mps",
        "bare",
        "nvidia_smi",
        "memory_summary",
        "vllm_kv",
        "vllm_kv_v1",
        "vllm_no_blocks",
        "vllm_free_memory",
        "sglang",
        "llamacpp",
        "training_log",
        "vllm_wake_up",
        "vllm_sampler",
    ] {
        assert!(all.iter().any(|r| r.formats.iter().any(|x| x == f)), "no report in the layout {f}");
    }
}

/// Read: every layout the report is labelled with is recognised, and a PyTorch message's request,
/// capacity and free memory come out.
fn is_read(r: &Report) -> bool {
    let got = read(&r.text);
    let torch = ["torch22", "torch21", "torch15", "torch14"];
    r.formats.iter().all(|f| Format::from_id(f).is_some_and(|f| got.has(f)))
        && (!r.formats.iter().any(|f| torch.contains(&f.as_str()))
            || got.numbers.tried_to_allocate.is_some() && got.numbers.total.is_some() && got.numbers.free.is_some())
}

#[test]
fn the_reader_reads_the_real_reports() {
    let all = reports();
    let unread: Vec<&str> = all.iter().filter(|r| !is_read(r)).map(|r| r.id.as_str()).collect();
    let read_count = all.len() - unread.len();
    eprintln!("read {read_count} of {} real reports; not read: {unread:?}", all.len());
    // Measured: 101 of 101.
    assert!(read_count * 100 >= all.len() * 95, "read {read_count} of {}: {unread:?}", all.len());
}

#[test]
fn the_diagnosis_agrees_with_the_threads() {
    let all = reports();
    let mut agree = 0;
    let mut disagree = Vec::new();
    for r in &all {
        let p = diagnose_paste(&r.text, None);
        if p.cause.id() == r.diagnosis {
            agree += 1;
        } else {
            disagree.push(format!("{} ({} → {})", r.id, r.diagnosis, p.cause.id()));
        }
    }
    eprintln!("diagnosed {agree} of {} as the thread did; the others: {disagree:#?}", all.len());
    // Measured: 87 of 101 (86 %). The misses are mostly bare messages whose cause only the thread's
    // narrative tells (the reader answers "unknown" and says what to run) and engine budgets the
    // collector called a shortage or a configuration mistake.
    assert!(agree * 100 >= all.len() * 80, "{agree} of {}", all.len());
    // The two causes the issue singles out, one by one.
    for cause in ["zombie", "fragmentation"] {
        let of: Vec<&Report> = all.iter().filter(|r| r.diagnosis == cause).collect();
        let hit = of.iter().filter(|r| diagnose_paste(&r.text, None).cause.id() == cause).count();
        assert!(hit * 10 >= of.len() * 9, "{cause}: {hit} of {}", of.len());
    }
}

/// The reports collected after the rules (tests/data/oom_reports_heldout_*.toml, 67 threads of
/// 2019–2026: serving engines and RL rollouts; training and plain inference, 16 in Chinese).
/// Measured: 28 of 67 (41.8 %) before the seventh session's rules, 46 of 67 (68.7 %) after —
/// engines 23 of 29, training 23 of 38; 45 of 67 as the tenth session left it, 56 of 67 (83.6 %)
/// after the eleventh's (the reporter's words, an engine's share of the card, a described
/// configuration billed), 57 of 67 (85.1 %) after the twelfth's. Most of the rest are prose
/// without an error message (the reader answers "unknown" and says what to paste) or a cause only
/// the thread's narrative tells.
#[test]
fn the_held_out_reports_agree_with_their_threads() {
    let all = held_out(&[
        include_str!("data/oom_reports_heldout_engines.toml"),
        include_str!("data/oom_reports_heldout_training.toml"),
    ]);
    assert!(all.len() >= 60, "{} reports", all.len());
    let agree = all.iter().filter(|r| diagnose_paste(&r.text, None).cause.id() == r.diagnosis).count();
    assert!(agree * 100 >= all.len() * 80, "{agree} of {}", all.len());
}

/// A held-out file's reports, each well formed and none in an earlier file.
fn held_out(texts: &[&str]) -> Vec<Report> {
    let mut all = Vec::new();
    for text in texts {
        all.extend(toml::from_str::<Reports>(text).unwrap_or_else(|e| panic!("held-out reports: {e}")).report);
    }
    well_formed(&all);
    let known: Vec<String> = reports().into_iter().map(|r| r.url).collect();
    for r in &all {
        assert!(!known.contains(&r.url), "{}: already in oom_reports.toml", r.id);
    }
    all
}

/// Rounds 3 and 4 (the eleventh session): 68 and 62 more threads, mostly prose. Round 3 was read to
/// write rules; round 4 was collected after them, and its figure before it was read is the
/// held-out one: 24 of 62 (38.7 %; 20 of 62 with the tenth session's reader). On the 19 of its
/// reports that carry a message the reader reads, 13 agree; on the 43 that are prose or a bare
/// error, 11. Measured after the three fixes its misses showed: round 3 44 of 68 (64.7 %), round 4
/// 29 of 62 (46.8 %). Round 5 (55 threads), collected after every rule and fix and not read since:
/// 14 of 55 (25.5 %; 12 with the tenth session's reader). The issue's 90 % is not reached: most
/// misses are reports whose cause only the thread's later answers tell.
///
/// The twelfth session wrote rules from rounds 3 and 4's misses (a loss summed with its graph, a
/// missing `no_grad` in words, Colab's and Ray's RAM messages, a run that failed partway in words,
/// models beyond the presets by their shape, `CUDA_VISIBLE_DEVICES` under a launcher): round 3
/// 44 → 45, round 4 29 → 40. Measured then on the unseen rounds: round 5 14 → 13 of 55, and
/// round 6 (43 threads collected in that session, `oom_reports_heldout_round6.toml`) 11 → 12 of
/// 43 (27.9 %). Round 5's loss was `max_pixels` read as a long sample (a Qwen2.5-VL server and a
/// LoRA run, both other causes); that word was then removed, which gives round 5 back its 14.
/// Rules fitted to seen reports did not move the unseen ones: 28 of round 6's 31 misses are
/// answered "unknown" (prose without a message whose cause only the thread's answers tell).
#[test]
fn rounds_three_to_six_agree_as_measured() {
    let earlier: Vec<String> = held_out(&[
        include_str!("data/oom_reports_heldout_engines.toml"),
        include_str!("data/oom_reports_heldout_training.toml"),
    ])
    .into_iter()
    .map(|r| r.url)
    .collect();
    let round3 = held_out(&[include_str!("data/oom_reports_heldout_round3.toml")]);
    let round4 = held_out(&[include_str!("data/oom_reports_heldout_round4.toml")]);
    let round5 = held_out(&[include_str!("data/oom_reports_heldout_round5.toml")]);
    let round6 = held_out(&[include_str!("data/oom_reports_heldout_round6.toml")]);
    // Rounds 7 and 8 are measured on their own (`round_seven_first_contact`,
    // `round_eight_first_contact`) but are distinct from every earlier round's too.
    let round7 = held_out(&[include_str!("data/oom_reports_heldout_round7.toml")]);
    let round8 = held_out(&[include_str!("data/oom_reports_heldout_round8.toml")]);
    let mut urls: Vec<&str> = round3
        .iter()
        .chain(&round4)
        .chain(&round5)
        .chain(&round6)
        .chain(&round7)
        .chain(&round8)
        .map(|r| r.url.as_str())
        .collect();
    assert!(urls.iter().all(|u| !earlier.iter().any(|e| e == u)), "a thread of rounds 3–8 is in round 2");
    urls.sort_unstable();
    let n = urls.len();
    urls.dedup();
    assert_eq!(urls.len(), n, "a thread is in two rounds");
    let agree = |all: &[Report]| all.iter().filter(|r| diagnose_paste(&r.text, None).cause.id() == r.diagnosis).count();
    assert_eq!((round3.len(), round4.len(), round5.len(), round6.len()), (68, 62, 55, 43));
    assert!(agree(&round3) >= 45, "round 3: {} of 68", agree(&round3));
    assert!(agree(&round4) >= 40, "round 4: {} of 62", agree(&round4));
    assert!(agree(&round5) >= 14, "round 5: {} of 55", agree(&round5));
    assert!(agree(&round6) >= 12, "round 6: {} of 43", agree(&round6));
}

#[derive(Deserialize)]
struct Answered {
    id: String,
    when: String,
    grew: String,
    killed: String,
    others: String,
    engine: String,
    setup: String,
}

#[derive(Deserialize)]
struct AnswerFile {
    answers: Vec<Answered>,
}

/// A report's text with the answers its reporter would have given (`unknown` left out) as the
/// page appends them (`#answer key=value`), and the run as they described it in words.
fn answered(r: &Report, a: &Answered) -> String {
    let mut text = r.text.clone();
    for (key, value) in
        [("killed", &a.killed), ("when", &a.when), ("grew", &a.grew), ("others", &a.others), ("engine", &a.engine)]
    {
        if value != "unknown" {
            text.push_str(&format!("\n#answer {key}={value}"));
        }
    }
    if a.setup != "unknown" {
        text.push_str(&format!("\n{}", a.setup));
    }
    text
}

/// A round's agreement with its threads without and with the answers its reporters would have
/// given (each report listed with `--nocapture`), after checking the answers match the reports.
fn agreement_with_answers(round: u32, reports: &[Report], answers: &str) -> (usize, usize) {
    let answers =
        toml::from_str::<AnswerFile>(answers).unwrap_or_else(|e| panic!("round {round} answers: {e}")).answers;
    assert_eq!(
        answers.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        reports.iter().map(|r| r.id.as_str()).collect::<Vec<_>>()
    );
    let agree = |text: &dyn Fn(&Report, &Answered) -> String| {
        reports
            .iter()
            .zip(&answers)
            .filter(|(r, a)| diagnose_paste(&text(r, a), None).cause.id() == r.diagnosis)
            .count()
    };
    let before = agree(&|r, _| r.text.clone());
    let after = agree(&answered);
    for (r, a) in reports.iter().zip(&answers) {
        let p = diagnose_paste(&answered(r, a), None);
        let mark = if p.cause.id() == r.diagnosis { "" } else { "✗" };
        eprintln!("round {round} {:<50} {:<14} {:<14} {mark}", r.id, r.diagnosis, p.cause.id());
    }
    eprintln!("round {round}: {before} → {after} of {}", reports.len());
    (before, after)
}

/// The tree's questions (fifteenth session): when a paste leaves the cause open, the page asks what
/// failed (the GPU or the process killed), when (loading, the first step, later, evaluation),
/// whether memory grew, whether other processes hold the GPU, whether it is a serving engine, and
/// whether the calculator is set to the run; a click appends `#answer key=value` to the paste.
/// Measured on rounds 5 and 6 (unseen when the questions were written) with the answers each
/// reporter would have given, labelled by helpers from the reporters' own words
/// (`oom_reports_answers_round5.toml`, `…round6.toml`; the run they described added as words):
/// round 5 14 → 21 of 55, round 6 12 → 17 of 43 (first contact: no rule was written from them).
/// The sixteenth session then read round 6's misses (so these rounds are no longer unseen) and
/// added two rules that agree with the calculator's own verdicts: a described run that failed
/// inside the chapter's 20 % margin is a shortage (Qwen2.5-3B full, ZeRO-2 on 24 GB cards: 20.1
/// GiB), and a model beyond the presets named with its size bills as the least preset of that size
/// (Baichuan-13B LoRA on a 4090: 13 B × 2 B of weights alone above 24 GB). Round 6: 12 → 13 of 43
/// without answers, 17 → 19 with them; round 5 and the other sets unchanged.
#[test]
fn answering_the_tree_s_questions_moves_the_unseen_rounds() {
    for (round, reports, answers, without, with) in [
        (
            5,
            include_str!("data/oom_reports_heldout_round5.toml"),
            include_str!("data/oom_reports_answers_round5.toml"),
            14,
            21,
        ),
        (
            6,
            include_str!("data/oom_reports_heldout_round6.toml"),
            include_str!("data/oom_reports_answers_round6.toml"),
            13,
            19,
        ),
    ] {
        let reports = held_out(&[reports]);
        let (before, after) = agreement_with_answers(round, &reports, answers);
        assert_eq!(before, without, "round {round} without answers");
        assert!(after >= with, "round {round}: {after} of {} with the answers", reports.len());
    }
}

/// Round 7 (sixteenth session): 37 threads collected by three helpers after every rule above, with
/// every earlier file's URLs excluded, and the answers each reporter would have given, labelled from
/// the reporters' own words (`oom_reports_heldout_round7.toml`, `oom_reports_answers_round7.toml`).
/// Measured on first contact, before any report was read here and with no rule written from them
/// (a measurement, kept as a floor): **5 of 37 (13.5 %) without the answers, 8 of 37 (21.6 %) with
/// them**. The issue's 90 % is far: most reports are prose whose cause only the thread's later
/// answers tell (9 of the 37 threads never found one). After reading its misses (so no longer
/// unseen), one general rule: a serving engine said to take the card's memory without failing is
/// its budget by design (TGI #1599): 6 without the answers, 9 with them.
#[test]
fn round_seven_first_contact() {
    let reports = held_out(&[include_str!("data/oom_reports_heldout_round7.toml")]);
    let (before, after) = agreement_with_answers(7, &reports, include_str!("data/oom_reports_answers_round7.toml"));
    assert_eq!(reports.len(), 37);
    assert!(before >= 6, "round 7 without the answers: {before} of 37");
    assert!(after >= 9, "round 7 with the answers: {after} of 37");
}

/// Round 8 (twenty-ninth session): 38 threads (18 serving engines and RL trainers, 20 training and
/// plain inference, 17 in Chinese) collected by two helpers after every rule above, with every
/// earlier round's URLs excluded, and measured on first contact before any of it was read here:
/// 9 of 38 (23.7 %) without the answers, 17 of 38 (44.7 %) with the answers each reporter would
/// have given (round 7 had 6 and 9 of 37). Read afterwards (so no longer unseen), one general rule
/// from its misses: cuBLAS failing to create its handle is an out-of-memory (llama.cpp #10080): 10
/// and 18 of 38. The floors are those figures; `--nocapture` lists each.
#[test]
fn round_eight_first_contact() {
    let reports = held_out(&[include_str!("data/oom_reports_heldout_round8.toml")]);
    let (before, after) = agreement_with_answers(8, &reports, include_str!("data/oom_reports_answers_round8.toml"));
    assert_eq!(reports.len(), 38);
    assert!(before >= 10, "round 8 without the answers: {before} of 38");
    assert!(after >= 18, "round 8 with the answers: {after} of 38");
}

#[test]
fn cause_ids_and_nodes_are_the_contract() {
    let ids: Vec<&str> = CAUSES.iter().map(|c| c.id()).collect();
    assert_eq!(
        ids,
        [
            "zombie",
            "fragmentation",
            "eval_no_grad",
            "tensor_list",
            "long_tail",
            "shortage",
            "kv_budget",
            "other",
            "unknown",
            "host_ram",
            "rollout",
            "startup_log"
        ]
    );
    assert!(Cause::ALL.iter().all(|c| Cause::from_id(c.id()) == Some(*c)));
    assert_eq!(Cause::Rollout.node(), NodeId::Batch);
    assert_eq!(Cause::StartupLog.node(), NodeId::SeqLen);
    assert_eq!(Cause::Zombie.node(), NodeId::Kill);
    assert_eq!(Cause::Fragmentation.node(), NodeId::Fragmentation);
    assert_eq!(Cause::EvalNoGrad.node(), NodeId::DtypeNoGrad);
    assert_eq!(Cause::Unknown.node(), NodeId::Measure);
}

fn why_id(p: &Pasted) -> MsgId {
    p.why.id
}

fn first_do(p: &Pasted) -> Option<&Msg> {
    p.advice.iter().find_map(|a| match a {
        Advice::Do(m) => Some(m),
        _ => None,
    })
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= 1e-6 * b.abs().max(1.0))
}

// Hand-written messages in each layout; expectations by hand arithmetic on their numbers.

#[test]
fn the_container_s_own_process_line_is_not_a_zombie() {
    // The issue: "a single 'Process N' line whose size equals this process's own usage is the process
    // itself seen from inside a container". 15.77 GiB − 514 MiB free = 15.27 GiB in use ≈ the line's 15.25.
    let p = diagnose_paste("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 546.00 MiB. GPU 0 has a total capacity of 15.77 GiB of which 514.19 MiB is free. Process 562167 has 15.25 GiB memory in use. Of the allocated memory 13.73 GiB is allocated by PyTorch, with 46.00 MiB allocated in private pools (e.g., CUDA Graphs), and 736.86 MiB is reserved by PyTorch but unallocated.", None);
    assert_ne!(p.cause, Cause::Zombie);
    // 736.86 MiB unallocated ≥ the 546 MiB request, 13.73 of 15.77 GiB live (87 %): fragmentation.
    assert_eq!(p.cause, Cause::Fragmentation);
    assert_eq!(p.node, NodeId::Fragmentation);
    assert_eq!(p.path.first(), Some(&NodeId::Oom));
    assert_eq!(p.path.last(), Some(&NodeId::Fragmentation));
    assert!(close(p.reading.numbers.private_pools, 46.0 * MIB));
}

#[test]
fn a_second_process_is_a_zombie() {
    // 23.65 GiB card, this process 9.1 GiB, another one 14.3 GiB: 14.3 > 10 % of the card.
    let p = diagnose_paste("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 180.00 MiB is free. Process 4411 has 14.30 GiB memory in use. Including non-PyTorch memory, this process has 9.10 GiB memory in use. Of the allocated memory 8.20 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.", None);
    assert_eq!(p.cause, Cause::Zombie);
    assert_eq!(p.node, NodeId::Kill);
    assert_eq!(why_id(&p), MsgId::WhyZombie);
    match p.why.args.first() {
        Some(Arg::Bytes(b)) => assert!((b - 14.30 * GIB).abs() < 1.0, "{b}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(first_do(&p).map(|m| m.id), Some(MsgId::DoKill));
}

#[test]
fn a_large_cache_is_not_fragmentation_when_the_request_exceeds_everything() {
    // 22.78 GiB asked; free 12.73 + unallocated 9.35 = 22.08 GiB < 22.78: it never fits.
    let p = diagnose_paste("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.78 GiB. GPU 0 has a total capacity of 31.47 GiB of which 12.73 GiB is free. Including non-PyTorch memory, this process has 18.73 GiB memory in use. Of the allocated memory 9.08 GiB is allocated by PyTorch, and 9.35 GiB is reserved by PyTorch but unallocated.", None);
    assert_eq!(p.cause, Cause::Shortage);
    assert_eq!(p.node, NodeId::SeqLen, "one input too large: the sequence / resolution node");
    assert_eq!(why_id(&p), MsgId::WhyHugeRequest);
}

#[test]
fn the_pre_1_5_cached_layout_excludes_allocated() {
    // "C cached" is reserved − allocated: 13.13 GiB allocated + 1.67 GiB cached = 14.80 GiB reserved.
    let r = read("RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 15.90 GiB total capacity; 13.13 GiB already allocated; 410.00 MiB free; 1.67 GiB cached)");
    assert_eq!(r.formats, vec![Format::Torch14]);
    assert!(close(r.numbers.reserved_unallocated, 1.67 * GIB));
    assert!(close(r.numbers.reserved, 14.80 * GIB));
    // 1.5–2.0's "reserved in total": unallocated = 14.80 − 13.13 = 1.67 GiB.
    let r = read("RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 15.90 GiB total capacity; 13.13 GiB already allocated; 410.00 MiB free; 14.80 GiB reserved in total by PyTorch)");
    assert_eq!(r.formats, vec![Format::Torch15]);
    assert!(close(r.numbers.reserved_unallocated, 1.67 * GIB));
    let p = diagnose_paste("RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 15.90 GiB total capacity; 13.13 GiB already allocated; 410.00 MiB free; 14.80 GiB reserved in total by PyTorch)", None);
    assert_eq!(p.cause, Cause::Fragmentation);
}

#[test]
fn torch_2_1_s_misspelling_and_rocm_read_alike() {
    let r = read("torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacty of 4.00 GiB of which 0 bytes is free. Of the allocated memory 3.00 GiB is allocated by PyTorch, and 20.00 MiB is reserved by PyTorch but unallocated.");
    assert_eq!(r.formats, vec![Format::Torch21]);
    assert!(close(r.numbers.total, 4.0 * GIB));
    assert!(close(r.numbers.free, 0.0));
}

#[test]
fn a_per_process_cap_free_above_total_and_plenty_free_are_other() {
    let cap = diagnose_paste("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 60.00 GiB is free. 19.79 GiB allowed; Of the allocated memory 18.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.", None);
    assert_eq!((cap.cause, why_id(&cap)), (Cause::Other, MsgId::WhyAllowedCap));
    assert!(close(cap.reading.numbers.allowed, 19.79 * GIB));
    let wrong = diagnose_paste("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 16.00 GiB. GPU 0 has a total capacity of 15.49 GiB of which 84.98 GiB is free. Of the allocated memory 1.67 GiB is allocated by PyTorch, and 8.08 GiB is reserved by PyTorch but unallocated.", None);
    assert_eq!((wrong.cause, why_id(&wrong)), (Cause::Other, MsgId::WhyFreeAboveTotal));
    let free = diagnose_paste("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 22.00 GiB total capacity; 512.00 MiB already allocated; 20.28 GiB free; 530.00 MiB reserved in total by PyTorch)", None);
    assert_eq!((free.cause, why_id(&free)), (Cause::Other, MsgId::WhyFreeAboveRequest));
    assert_eq!(free.node, NodeId::Measure);
}

#[test]
fn a_bare_message_says_what_to_run() {
    let p = diagnose_paste(
        "RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported",
        None,
    );
    assert_eq!(p.reading.formats, vec![Format::Bare]);
    assert_eq!(p.cause, Cause::Unknown);
    assert_eq!(first_do(&p).map(|m| m.id), Some(MsgId::DoMeasure));
    let en = render(Lang::En, first_do(&p).unwrap_or(&p.why));
    assert!(en.contains("nvidia-smi") && en.contains("memory_summary"), "{en}");
}

#[test]
fn an_evaluation_frame_and_a_kept_loss_are_read_from_the_traceback() {
    let eval = diagnose_paste("Traceback (most recent call last):\n  File \"train.py\", line 200, in main\n    eval_loss = evaluate(model, criterion)\n  File \"train.py\", line 120, in evaluate\n    out = model(x)\nRuntimeError: CUDA error: out of memory", None);
    assert_eq!(eval.cause, Cause::EvalNoGrad);
    assert_eq!(eval.node, NodeId::DtypeNoGrad);
    let kept = diagnose_paste("    losses.append(loss)\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity; 7.10 GiB already allocated; 10.00 MiB free; 7.20 GiB reserved in total by PyTorch)", None);
    assert_eq!(kept.cause, Cause::TensorList);
}

#[test]
fn a_log_whose_peak_grows_is_a_leak_and_a_flat_one_a_long_tail() {
    let grows = diagnose_paste("step 10 mem: 10.1G\nstep 20 mem: 12.4G\nstep 30 mem: 14.9G\nstep 40 mem: 17.2G\nRuntimeError: CUDA error: out of memory", None);
    assert_eq!(grows.cause, Cause::TensorList);
    assert_eq!(why_id(&grows), MsgId::WhyGrowth);
    // 10.1 → 17.2 GiB, the log's figures read as GiB.
    assert_eq!(grows.why.args.first(), Some(&Arg::Bytes(10.1 * GIB)));
    let flat = diagnose_paste("{'loss': 3.79, 'memory(GiB)': 38.62, 'global_step': 79}\n{'loss': 4.12, 'memory(GiB)': 38.62, 'global_step': 80}\nTraceback (most recent call last):", None);
    assert_eq!(flat.cause, Cause::LongTail);
    assert_eq!(flat.node, NodeId::SeqLen);
}

#[test]
fn an_oom_after_many_steps_without_growth_is_a_long_tail() {
    let p = diagnose_paste("epoch 001:  16634 / 210883 loss=5.174, ups=1.44\nWARNING: OOM: Ran out of memory with exception: CUDA out of memory. Tried to allocate 2.13 GiB (GPU 0; 39.59 GiB total capacity; 30.80 GiB already allocated; 1.85 GiB free; 32.66 GiB reserved in total by PyTorch)", None);
    assert_eq!(p.reading.numbers.steps_done, Some(16634.0));
    assert_eq!(p.cause, Cause::LongTail);
    assert_eq!(why_id(&p), MsgId::WhyAfterSteps);
}

#[test]
fn nvidia_smi_alone_shows_who_holds_the_card() {
    let table = "+-----------------------------------------------------------------------------+\n| Processes:                                                       GPU Memory |\n|  GPU       PID   Type   Process name                             Usage      |\n|=============================================================================|\n|    0     31794      C   python                                     5371MiB |\n|    0     27707      C   python                                     1011MiB |\n+-----------------------------------------------------------------------------+";
    let p = diagnose_paste(table, None);
    assert_eq!(p.reading.formats, vec![Format::NvidiaSmi]);
    assert_eq!(p.reading.numbers.smi_processes, vec![(0, 31794, 5371.0 * MIB), (0, 27707, 1011.0 * MIB)]);
    assert_eq!(p.cause, Cause::Zombie);
    // The CSV form.
    let csv = read("memory.used [MiB], memory.total [MiB]\n12799 MiB, 16280 MiB");
    assert_eq!((csv.numbers.smi_used, csv.numbers.smi_total), (Some(12799.0 * MIB), Some(16280.0 * MIB)));
    // gpustat prints MiB as "MB": read as binary, and said.
    let gpustat = read("[6] NVIDIA A100 80GB PCIe | 52'C, 100 % | 10151 / 81920 MB | (null)");
    assert_eq!(gpustat.numbers.smi_used, Some(10151.0 * MIB));
    assert!(gpustat.signals.gb_as_gib);
    assert_eq!(
        diagnose_paste("[6] NVIDIA A100 80GB PCIe | 52'C, 100 % | 10151 / 81920 MB | (null)", None).cause,
        Cause::Zombie
    );
}

#[test]
fn memory_summary_peaks() {
    let r = read("|===========================================================================|\n|                  PyTorch CUDA memory summary, device ID 0                 |\n|---------------------------------------------------------------------------|\n|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n|---------------------------------------------------------------------------|\n| Allocated memory      |   1062 MB  |   4877 MB  |  131 GB    |  130 GB    |\n| GPU reserved memory   |   5440 MB  |   5440 MB  |   5440 MB  |      0 B   |");
    assert!(r.has(Format::MemorySummary));
    assert_eq!(r.numbers.peak_allocated, Some(4877.0 * MIB));
    assert_eq!(r.numbers.peak_reserved, Some(5440.0 * MIB));
}

#[test]
fn mps_s_message() {
    let p = diagnose_paste("RuntimeError: MPS backend out of memory (MPS allocated: 15.72 GB, other allocations: 384.00 KB, max allowed: 18.13 GB). Tried to allocate 5.81 GB on private pool.", None);
    assert!(p.reading.has(Format::Mps));
    assert_eq!(p.reading.numbers.mps_allocated, Some(15.72 * GIB));
    assert!(p.reading.signals.gb_as_gib, "MPS prints GiB as GB");
    assert_eq!(p.cause, Cause::Shortage);
}

#[test]
fn vllm_s_messages_give_the_engine_s_lever_with_numbers() {
    let kv = diagnose_paste("ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (7344). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.", None);
    assert_eq!((kv.cause, kv.node), (Cause::KvBudget, NodeId::SeqLen));
    assert_eq!(first_do(&kv).map(|m| m.args.clone()), Some(vec![Arg::Count(7344)]), "max_model_len 7344 fits");
    // Hard-wrapped mid-word by a terminal, behind the engine's "(EngineCore pid=…)" prefix.
    let line = "(EngineCore pid=316) ValueError: To serve at least one request with the model's max seq len (100000), (4.26 GiB KV cache is needed, which is larger than the available KV cache memory (4.25 GiB). Based on the available memory, the estimated maximum model length is 99760. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.";
    let wrapped: Vec<String> = line.as_bytes().chunks(119).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    assert!(wrapped[0].ends_with("KV cach"), "{wrapped:?}");
    let v1 = diagnose_paste(&wrapped.join("\n"), None);
    assert!(v1.reading.has(Format::VllmKvV1), "{:?}", v1.reading.formats);
    assert_eq!(v1.reading.numbers.estimated_max_len, Some(99760.0));
    assert_eq!(first_do(&v1).map(|m| m.args.clone()), Some(vec![Arg::Count(99760)]));
    // A negative pool: 0.70 × 8 GiB budget, 1.05 GiB short: 0.70 + (1.05 + 0.5 margin) / 8 = 0.894 → 0.90.
    let neg = diagnose_paste("the current vLLM instance can use total_gpu_memory (8.00GiB) x gpu_memory_utilization (0.70) = 5.60GiB\nmodel weights take 5.20GiB; non_torch_memory takes 0.03GiB; PyTorch activation peak memory takes 1.42GiB; the rest of the memory reserved for KV Cache is -1.05GiB.\n# cuda blocks: 0, # CPU blocks: 4681", None);
    assert_eq!(neg.cause, Cause::KvBudget);
    assert_eq!(first_do(&neg).map(|m| (m.id, m.args.clone())), Some((MsgId::DoRaiseUtil, vec![Arg::Fixed(0.9, 2)])));
    // Free memory at start-up: 0.49 of 79.32 GiB free, the rest held elsewhere.
    let held = diagnose_paste("ValueError: Free memory on device (0.49/79.32 GiB) on startup is less than desired GPU memory utilization (0.9, 71.39 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.", None);
    assert_eq!(held.cause, Cause::Zombie);
    let named = read("ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB).");
    assert!(close(named.numbers.free, 19.77 * GIB));
    assert_eq!(named.numbers.utilization, Some(0.9));
}

/// A rollout engine beside a trainer (issue 26): vLLM failing inside TRL's GRPOTrainer, verl or
/// Unsloth is the engine's share of a card the trainer also holds, not a serving budget; its wake-up
/// from sleep mode is the trainer's leftovers beside the engine. With an RL configuration the
/// levers are the rollout's, ranked by what the ledger says they save.
#[test]
fn a_rollout_engine_inside_a_trainer_is_the_rollout_s_cause() {
    let trainer = "  File \"/opt/venv/lib/python3.12/site-packages/trl/trainer/grpo_trainer.py\", line 515, in __init__\n    self.llm = LLM(\n";
    let no_blocks = format!("{trainer}ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.");
    let p = diagnose_paste(&no_blocks, None);
    assert!(p.reading.signals.trainer && p.reading.has(Format::VllmNoBlocks));
    assert_eq!((p.cause, p.node, why_id(&p)), (Cause::Rollout, NodeId::Batch, MsgId::WhyRolloutNoBlocks));
    assert_eq!(first_do(&p).map(|m| m.id), Some(MsgId::DoRolloutShare));
    // The same message from a serving engine stays the engine's KV budget.
    let served = diagnose_paste("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.", None);
    assert_eq!(served.cause, Cause::KvBudget);
    // Free memory at start-up inside the trainer: 31.44 of 47.38 GiB free, 45.01 asked for; what
    // fits: (31.44 − 0.5) / 47.38 = 0.653 → 0.65.
    let free = diagnose_paste(&format!("{trainer}ValueError: Free memory on device (31.44/47.38 GiB) on startup is less than desired GPU memory utilization (0.95, 45.01 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."), None);
    assert_eq!((free.cause, why_id(&free)), (Cause::Rollout, MsgId::WhyRolloutFree));
    assert_eq!(first_do(&free).map(|m| (m.id, m.args.clone())), Some((MsgId::DoLowerUtil, vec![Arg::Fixed(0.65, 2)])));
    // The wake-up: vLLM's cumem allocator, whichever trainer.
    let woke = diagnose_paste("  File \"/usr/local/lib/python3.10/dist-packages/vllm/device_allocator/cumem.py\", line 207, in wake_up\n    create_and_map(handle)\nRuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62", None);
    assert!(woke.reading.has(Format::VllmWakeUp));
    assert_eq!((woke.cause, why_id(&woke)), (Cause::Rollout, MsgId::WhyRolloutWakeUp));
    // The sampler's warm-up: a serving engine's, unless a trainer is named.
    let warm = "RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.";
    let p = diagnose_paste(warm, None);
    assert_eq!((p.cause, first_do(&p).map(|m| m.id)), (Cause::KvBudget, Some(MsgId::DoSampler)));
    assert_eq!(diagnose_paste(&format!("{trainer}{warm}"), None).cause, Cause::Rollout);
    // A link carries the new layouts and the trainer signal.
    for text in [no_blocks.as_str(), warm] {
        let r = read(text);
        assert_eq!(Reading::from_link(&r.to_link()), Some(r));
    }
    // With a colocated GRPO configuration: the rollout's levers, ranked by what they save.
    let s = vram_ledger::query::parse(
        "objective=grpo&rollout=colocate&rollout_util=0.3&batch=8&gpu=h100-80g&model=qwen2.5-1.5b&method=full",
    )
    .scenario;
    let p = diagnose_paste(&no_blocks, Some(&s));
    let levers: Vec<vram_ledger::tree::Lever> = p
        .advice
        .iter()
        .filter_map(|a| match a {
            Advice::Saves { lever, .. } => Some(*lever),
            _ => None,
        })
        .collect();
    assert!(levers.contains(&vram_ledger::tree::Lever::RolloutSleep), "{levers:?}");
    assert!(levers.contains(&vram_ledger::tree::Lever::RolloutServer), "{levers:?}");
}

#[test]
fn sglang_and_llama_cpp() {
    let low = diagnose_paste("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.2", None);
    assert_eq!((low.cause, why_id(&low)), (Cause::KvBudget, MsgId::WhySglangFraction));
    // 166.59 GB of weights, 21.73 GB left: 11.5 % of 188.32, more than the 5 % a 0.95 share leaves.
    let profiled = diagnose_paste("Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=21.73 GB, mem usage=166.59 GB.\nmax_total_tokens=131072 is larger than the profiled value -561981. Use the profiled value instead.", None);
    assert!(profiled.reading.has(Format::Sglang));
    assert_eq!(profiled.reading.numbers.kv_tokens, Some(-561981.0));
    assert_eq!(profiled.cause, Cause::KvBudget);
    let kv = diagnose_paste("llama_kv_cache_init: CUDA0 KV buffer size = 204800.00 MiB\nggml_backend_cuda_buffer_type_alloc_buffer: allocating 204800.00 MiB on device 0: cudaMalloc failed: out of memory\nllama_kv_cache_init: failed to allocate buffer for kv cache", None);
    assert!(kv.reading.has(Format::Llamacpp));
    assert_eq!(kv.reading.numbers.llama_alloc, Some(204800.0 * MIB));
    assert_eq!(kv.cause, Cause::KvBudget);
    let weights = diagnose_paste("load_tensors: offloading 62 repeating layers to GPU\nggml_backend_cuda_buffer_type_alloc_buffer: allocating 144817.04 MiB on device 0: cudaMalloc failed: out of memory\nalloc_tensor_range: failed to allocate CUDA0 buffer of size 151852187648", None);
    assert_eq!((weights.cause, weights.node), (Cause::Shortage, NodeId::Sharding));
}

// ---------------------------------------------------------------------------------------------
// With the user's configuration: the levers ranked for it.

#[test]
fn with_a_configuration_a_shortage_ranks_the_ledger_s_levers() {
    let parsed = vram_ledger::query::parse("model=qwen2.5-7b&method=full&gpu=rtx4090&batch=8&seq=2048");
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let s = parsed.scenario;
    let p = diagnose_paste("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. GPU 0 has a total capacity of 23.65 GiB of which 90.00 MiB is free. Including non-PyTorch memory, this process has 23.55 GiB memory in use. Of the allocated memory 22.90 GiB is allocated by PyTorch, and 190.00 MiB is reserved by PyTorch but unallocated.", Some(&s));
    assert_eq!(p.cause, Cause::Shortage);
    let saves: Vec<i64> = p
        .advice
        .iter()
        .filter_map(|a| match a {
            Advice::Saves { bytes, .. } => Some(*bytes),
            _ => None,
        })
        .collect();
    assert!(saves.len() >= 3, "{:?}", p.advice);
    assert!(saves.windows(2).all(|w| w[0] >= w[1]), "ranked by what they save: {saves:?}");
    assert!(saves.iter().all(|b| *b > 0));
    // The node is the best lever's.
    assert_ne!(p.node, NodeId::Measure);
}

// ---------------------------------------------------------------------------------------------
// Hostile pastes: no panic, no NaN, a clear answer, the text never echoed.

fn sane(p: &Pasted) {
    let n = &p.reading.numbers;
    let all = [
        n.tried_to_allocate,
        n.total,
        n.free,
        n.process,
        n.allocated,
        n.reserved,
        n.reserved_unallocated,
        n.smi_used,
        n.smi_total,
        n.kv_available,
        n.llama_alloc,
    ];
    assert!(all.iter().flatten().all(|v| v.is_finite()), "{n:?}");
    for lang in [Lang::En, Lang::Zh] {
        let why = render(lang, &p.why);
        assert!(!why.is_empty());
        assert!(!why.contains("NaN") && !why.contains("inf"), "{why}");
        for a in &p.advice {
            if let Advice::Do(m) = a {
                assert!(!render(lang, m).contains("NaN"));
            }
        }
    }
    assert_eq!(p.path.first(), Some(&NodeId::Oom));
    assert_eq!(p.path.last(), Some(&p.node));
}

/// A 16 MB log (the bound every reader of user files keeps) is read from its last 1 MiB.
#[test]
fn megabytes_of_log_are_read_from_their_end() {
    let mut text = "INFO step 1 loss=2.0 lr=1e-5 some ordinary training output\n".repeat(280_000);
    text.push_str("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity; 7.10 GiB already allocated; 10.00 MiB free; 7.20 GiB reserved in total by PyTorch)");
    assert!(text.len() > 16_000_000 && text.len() > 3 * MAX_TEXT);
    let p = diagnose_paste(&text, None);
    sane(&p);
    assert!(p.reading.signals.truncated);
    assert!(p.reading.has(Format::Torch15));
}

#[test]
fn junk_markup_and_other_languages_get_a_clear_answer() {
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    let junk = String::from_utf8_lossy(&bytes).into_owned();
    for text in [
        junk.as_str(),
        "<script>alert('x')</script><img src=x onerror=alert(1)> Tried to allocate <b>1 GiB</b>",
        "メモリ不足です。GPU のメモリが足りません。",
        "Недостаточно памяти на видеокарте",
        "",
        "Tried to allocate",
        "Tried to allocate 99999999999999999999999999999999 GiB. GPU 0 has a total capacity of 0 bytes of which 0 bytes is free.",
        "Tried to allocate -5 GiB. GPU 0 has a total capacity of 8 GiB of which 9e999 GiB is free.",
        "max seq len (999999999999999999999) is larger than the maximum number of tokens that can be stored in KV cache (-1)",
        "Free memory on device (5/0 GiB) on startup is less than desired GPU memory utilization (0.9, 1 GiB)",
        &"process has ".repeat(100_000),
        &"tried to allocate 1 GiB. ".repeat(50_000),
        &"| 0 1 C python 5MiB |\n".repeat(50_000),
        &"1/2 [".repeat(200_000),
        &"中文".repeat(300_000),
    ] {
        let p = diagnose_paste(text, None);
        sane(&p);
        // Nothing of the paste comes back as text: the why carries numbers only.
        for arg in &p.why.args {
            assert!(!matches!(arg, Arg::Text(_)), "{arg:?}");
        }
    }
    let markup = diagnose_paste("<script>alert('x')</script>", None);
    assert_eq!(markup.cause, Cause::Unknown);
    assert_eq!(diagnose_paste("メモリ不足です", None).cause, Cause::Unknown);
}

proptest! {
    #[test]
    fn no_paste_panics(text in ".{0,2000}") {
        sane(&diagnose_paste(&text, None));
    }

    #[test]
    fn cut_and_spliced_real_reports_never_panic(i in 0usize..96, a in 0usize..4000, b in 0usize..4000, junk in ".{0,40}") {
        let all = reports();
        let t = &all[i % all.len()].text;
        let (lo, hi) = (a.min(b).min(t.len()), a.max(b).min(t.len()));
        let (lo, hi) = ((0..=lo).rev().find(|&k| t.is_char_boundary(k)).unwrap_or(0), (0..=hi).rev().find(|&k| t.is_char_boundary(k)).unwrap_or(0));
        let spliced = format!("{}{}{}", &t[..lo], junk, &t[hi.max(lo)..]);
        sane(&diagnose_paste(&spliced, None));
    }
}

/// The link carries what was read, never the text: every real report's reading survives `oom=`
/// with the same diagnosis, node and reasons, and the text's words are not in it.
#[test]
fn a_link_carries_the_numbers_and_gives_the_same_diagnosis() {
    let rounds = held_out(&[
        include_str!("data/oom_reports_heldout_round3.toml"),
        include_str!("data/oom_reports_heldout_round4.toml"),
        include_str!("data/oom_reports_heldout_round5.toml"),
    ]);
    for r in reports().into_iter().chain(rounds) {
        let reading = read(&r.text);
        let link = reading.to_link();
        assert!(link.len() < 2000, "{}: {} characters", r.id, link.len());
        // '_' is in a start-up log's settings' key names (`Kgpu_util:0.9`).
        assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.,:_".contains(&b)), "{}: {link}", r.id);
        let back = Reading::from_link(&link).unwrap_or_else(|| panic!("{}: {link}", r.id));
        let (a, b) = (diagnose_reading(reading, None), diagnose_reading(back, None));
        assert_eq!(
            (a.cause, a.node, a.why.id, &a.described),
            (b.cause, b.node, b.why.id, &b.described),
            "{}: {link}",
            r.id
        );
        assert_eq!(a.advice.len(), b.advice.len(), "{}", r.id);
    }
    // By hand: 546 × 2^20 = 572,522,496; 15.77 × 2^30 = 16,932,908,564.5; 514.19 × 2^20 =
    // 539,167,293.4 (bytes, rounded); F1 = the first layout (torch22); X256 = the ninth signal (oom).
    let link =
        read("Tried to allocate 546.00 MiB. GPU 0 has a total capacity of 15.77 GiB of which 514.19 MiB is free.")
            .to_link();
    assert_eq!(link, "a572522496,b16932908564,c539167293,F1,X256");
    for bad in ["", "zz", "a", "a1e999", "Q5", "F", "G1", "b-", &"a1,".repeat(1000)] {
        assert!(Reading::from_link(bad).is_none(), "{bad:?}");
    }
}

/// A process the operating system killed for host RAM is not a GPU out-of-memory. The layouts are
/// torchrun's `ChildFailedError` report ("exitcode  : -9 … Signal 9 (SIGKILL)", as PyTorch's
/// `torch/distributed/elastic/multiprocessing/errors` prints it; LLaMA-Factory's issue #6755 —
/// Qwen2.5-32B full fine-tuning with ds_z3_offload on one H100 and 744 GB of RAM — reported
/// "exitcode -9", dmesg showing the OOM killer: https://github.com/hiyouga/LLaMA-Factory/issues/6755)
/// and the kernel's own line; a CUDA message with numbers still wins.
#[test]
fn a_host_ram_kill_is_read_as_host_ram_not_as_the_gpu() {
    let torchrun = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n\
        Root Cause (first observed failure):\n[0]:\n  rank      : 0 (local_rank: 0)\n  exitcode  : -9 (pid: 48213)\n\
        error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) received by PID 48213\n";
    let dmesg = "[ 1234.5] Out of memory: Killed process 48213 (python) total-vm:800000000kB, anon-rss:760000000kB";
    for text in [torchrun, dmesg] {
        let d = diagnose_paste(text, None);
        assert_eq!(d.cause, Cause::HostRam, "{text}");
        assert_eq!(d.node, NodeId::Measure);
        assert!(!d.reading.has(Format::Bare), "not a bare CUDA out-of-memory");
        assert!(render(Lang::En, &d.why).contains("host's RAM"));
        assert!(render(Lang::Zh, &d.why).contains("主机内存"));
        // The reading round-trips through the link with its new signal.
        let back = Reading::from_link(&d.reading.to_link()).expect("link");
        assert!(back.signals.host_killed);
    }
    let cuda = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of \
        23.65 GiB of which 1.12 GiB is free. Process 48213 has 22.52 GiB memory in use. Of the allocated memory 21.80 GiB \
        is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.\n\
        [1]:\n  exitcode  : -9 (pid: 48214)\n  traceback : Signal 9 (SIGKILL) received by PID 48214\n";
    assert_ne!(diagnose_paste(cuda, None).cause, Cause::HostRam);
}

#[test]
fn with_a_configuration_fragmentation_offers_expandable_segments() {
    // The container row above (736.86 MiB unallocated ≥ the 546 MiB request, 87 % live): the
    // fragmentation node's lever, `alloc=expandable`, with what the ledger says it takes off the
    // reserved memory of this configuration (the slack of what a step frees: 14 % → 2 %).
    let s = vram_ledger::query::parse("model=llama-3.1-8b&method=qlora&seq=4096&gpu=rtx4090").scenario;
    let p = diagnose_paste("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 546.00 MiB. GPU 0 has a total capacity of 15.77 GiB of which 514.19 MiB is free. Process 562167 has 15.25 GiB memory in use. Of the allocated memory 13.73 GiB is allocated by PyTorch, with 46.00 MiB allocated in private pools (e.g., CUDA Graphs), and 736.86 MiB is reserved by PyTorch but unallocated.", Some(&s));
    assert_eq!((p.cause, p.node), (Cause::Fragmentation, NodeId::Fragmentation));
    let saved = p.advice.iter().find_map(|a| match a {
        Advice::Saves { lever: vram_ledger::tree::Lever::Expandable, bytes } => Some(*bytes),
        _ => None,
    });
    assert_eq!(saved, vram_ledger::tree::saving(&s, vram_ledger::tree::Lever::Expandable));
    assert!(saved.is_some_and(|b| b > 0), "{:?}", p.advice);
    assert!(p
        .advice
        .iter()
        .all(|a| !matches!(a, Advice::Saves { lever, .. } if *lever != vram_ledger::tree::Lever::Expandable)));
}
