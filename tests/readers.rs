//! What the reader worker tells the page (src/readers.rs) gives back exactly what the readers
//! read natively: every config.json fixture the same architecture, every real pasted OOM report
//! (tests/data/oom_reports.toml) the same diagnosis, a trace the same trace, an error the same
//! message (rendered by the worker in both languages: its templates load on demand). The expected
//! values are the native readers' own results: these are round-trip tests.

use serde::Deserialize;
use vram_ledger::i18n::{render, Lang};
use vram_ledger::ledger::hf_config::parse_config;
use vram_ledger::ledger::msg::{Arg, Msg, MsgId};
use vram_ledger::readers::{self, decode, Answer};

/// The same text in English and in Chinese.
fn same_text(a: &Msg, b: &Msg) -> bool {
    [Lang::En, Lang::Zh].into_iter().all(|l| render(l, a) == render(l, b))
}
use vram_ledger::tree::paste::{diagnose_paste, diagnose_reading, Advice};
use vram_ledger::tree::reader::{read, Reading};

/// The same advice, a two-decimal ratio within a hundredth.
fn same_advice(a: &Advice, b: &Advice) -> bool {
    match (a, b) {
        (Advice::Do(x), Advice::Do(y)) => {
            x.id == y.id
                && x.args.len() == y.args.len()
                && x.args.iter().zip(&y.args).all(|(p, q)| match (p, q) {
                    (Arg::Fixed(u, 2), Arg::Fixed(v, 2)) => (u - v).abs() <= 0.0101,
                    _ => p == q,
                })
        }
        _ => a == b,
    }
}
use vram_ledger::validation::trace;

#[test]
fn a_config_comes_back_as_its_link_and_name_with_the_same_architecture() {
    let dir = format!("{}/tests/data/configs", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("configs") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        let native = parse_config(&text);
        let answer = decode(&readers::config(&text));
        match (native, answer) {
            (Ok(imported), Some(Answer::Config(query, name, notes))) => {
                let mut a = vram_ledger::query::parse(&query).scenario.architecture;
                a.name = name.into();
                assert_eq!(a, imported.architecture, "{}", path.display());
                assert_eq!(notes.len(), imported.notes.len(), "{}", path.display());
                assert!(notes.iter().zip(&imported.notes).all(|(a, b)| same_text(a, b)), "{}", path.display());
                n += 1;
            }
            (Err(e), Some(Answer::Failed(m))) => assert!(same_text(&m, &e.0), "{}", path.display()),
            (native, answer) => panic!("{}: {:?} / {answer:?}", path.display(), native.is_ok()),
        }
    }
    assert!(n >= 20, "{n} configs");
    // A broken one: the same message, with its field.
    let broken = r#"{"model_type": "llama", "hidden_size": "wide"}"#;
    let Err(e) = parse_config(broken) else { panic!("read") };
    let Some(Answer::Failed(m)) = decode(&readers::config(broken)) else { panic!("no error") };
    assert!(same_text(&m, &e.0));
    assert_eq!(m.id, MsgId::Bilingual);
}

#[derive(Deserialize)]
struct Report {
    id: String,
    text: String,
}

#[derive(Deserialize)]
struct Reports {
    report: Vec<Report>,
}

#[test]
fn every_real_paste_gets_the_same_diagnosis_through_the_worker() {
    let reports: Reports = toml::from_str(include_str!("data/oom_reports.toml")).expect("fixture");
    assert_eq!(reports.report.len(), 101);
    let s = vram_ledger::query::parse("model=qwen2.5-7b&method=lora&gpu=rtx4090").scenario;
    for r in &reports.report {
        let Some(Answer::Paste(link)) = decode(&readers::paste(&r.text, false)) else { panic!("{}", r.id) };
        // The page keeps the value as sent and writes it into its link as is; the worker reads it.
        assert_eq!(link, read(&r.text).to_link(), "{}", r.id);
        let reading = Reading::from_link(&link).unwrap_or_else(|| panic!("{}: {link}", r.id));
        // The link's codec rounds a byte count to a whole byte and drops pids; the diagnosis, its
        // numbers as shown, its path and advice are the same.
        let (via, native) = (diagnose_reading(reading, Some(&s)), diagnose_paste(&r.text, Some(&s)));
        assert_eq!((via.cause, via.node, &via.path), (native.cause, native.node, &native.path), "{}", r.id);
        for lang in [Lang::En, Lang::Zh] {
            assert_eq!(render(lang, &via.why), render(lang, &native.why), "{}", r.id);
        }
        // The link keeps fractions to 3 decimals and bytes whole: a ratio in the advice may move
        // by a hundredth at a rounding edge (0.675), nothing else.
        assert_eq!(via.advice.len(), native.advice.len(), "{}", r.id);
        for (a, b) in via.advice.iter().zip(&native.advice) {
            assert!(same_advice(a, b), "{}: {a:?} {b:?}", r.id);
        }
        let near = match (via.other_processes, native.other_processes) {
            (Some(a), Some(b)) => (a - b).abs() <= 2.0,
            (a, b) => a == b,
        };
        assert!(near, "{}: {:?} {:?}", r.id, via.other_processes, native.other_processes);
    }
}

/// The tree form's four numbers are read in the worker like a paste: the same reading as
/// `tree::measured_reading` (by hand: 10 GiB allocated, 12 reserved, 14 in use of 16, a 500 MiB
/// context → free 2 GiB, 2 GiB reserved but unallocated, this process 12 GiB + 500 MiB), and the
/// end of a longer paste says so.
#[test]
fn typed_numbers_and_a_cut_paste_come_back_as_readings() {
    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    let Some(Answer::Paste(link)) = decode(&readers::typed("10,12,14,16,500")) else { panic!("typed") };
    let r = Reading::from_link(&link).expect("a reading");
    assert!(r.has(vram_ledger::tree::reader::Format::Typed));
    assert_eq!(r.numbers.free, Some(2.0 * GIB));
    assert_eq!(r.numbers.reserved_unallocated, Some(2.0 * GIB));
    assert_eq!(r.numbers.process, Some(12.0 * GIB + 500.0 * 1024.0 * 1024.0));
    assert_eq!(link, r.to_link());
    // Bad numbers: an error, not a reading.
    for bad in ["", "1,2,3", "1,2,3,x,500", "12,10,14,16,500"] {
        assert!(!matches!(decode(&readers::typed(bad)), Some(Answer::Paste(..))), "{bad}");
    }
    let Some(Answer::Paste(cut)) = decode(&readers::paste("CUDA out of memory.", true)) else { panic!("cut") };
    assert!(Reading::from_link(&cut).is_some_and(|r| r.signals.truncated));
    // The diagnosis tells the page about the cut (the page shows a hint), and a value that is not
    // a reading is an error the page shows nothing for.
    let q = format!("oom={cut}");
    let Some(Answer::Diagnosis(d)) = decode(&readers::diagnosis(&q)) else { panic!("diagnosis") };
    assert!(d.truncated && !d.gb_as_gib);
    assert!(matches!(decode(&readers::diagnosis("oom=zz")), Some(Answer::Failed(_))));
}

#[test]
fn a_trace_and_a_message_come_back_unchanged() {
    let bytes =
        std::fs::read(format!("{}/tests/data/traces/snapshot.pickle", env!("CARGO_MANIFEST_DIR"))).expect("fixture");
    let t = trace::read(&bytes).expect("reads");
    assert_eq!(decode(&readers::trace(&Ok(t.clone()), 7)), Some(Answer::Trace(Box::new(t), 7)));
    let m = Msg::new(
        MsgId::TraceTooLarge,
        vec![
            Arg::Bytes(3.5e8),
            Arg::Msg(Box::new(Msg::new(MsgId::ReportField, vec![Arg::Text("weights".into())]))),
            Arg::Fixed(0.25, 2),
        ],
    );
    let Some(Answer::Failed(back)) = decode(&readers::failed(&m)) else { panic!("no error") };
    assert!(same_text(&back, &m));
    assert_eq!(decode(&readers::progress(0.5)), Some(Answer::Progress(0.5)));
    assert_eq!(decode(&readers::ready()), Some(Answer::Ready));
    // Anything else is not an answer (the page says so rather than guessing).
    for junk in ["", "{}", "[1]", r#"{"error": {"id": 99999, "args": []}}"#, r#"{"paste": 3}"#] {
        assert_eq!(decode(junk), None, "{junk}");
    }
}

/// The self-test comes from the worker (its demonstrations and texts are not in the page's
/// bundle): each question's texts in both languages, the finding as the native demonstration
/// renders it, question 5's tree node, and two links whose bills are the demonstration's own.
#[test]
fn the_self_test_comes_back_as_texts_and_two_links_per_question() {
    use vram_ledger::ledger::estimate;
    use vram_ledger::selftest::{demo, texts, QUESTIONS};
    for q in [
        "",
        "model=qwen3-8b&method=qlora&seq=4096&gpu=rtx4090",
        "mode=infer&engine=vllm&gpu=h20",
        "q=5&model=custom&layers=4&hidden=512&heads=8&kv_heads=2&head_dim=64&ffn=1024&vocab=32000",
    ] {
        let Some(Answer::SelfTest(items)) = decode(&readers::selftest(q)) else { panic!("{q}: no self-test") };
        let s = vram_ledger::query::parse(q).scenario;
        let expected: Vec<u8> = if q.starts_with("q=5") { vec![5] } else { (1..=QUESTIONS).collect() };
        assert_eq!(items.iter().map(|i| i.n).collect::<Vec<_>>(), expected, "{q}");
        for item in &items {
            let (t, d) = (texts(item.n).expect("texts"), demo(item.n, &s).expect("demo"));
            assert_eq!(item.question, (t.question.0.to_string(), t.question.1.to_string()));
            assert_eq!(item.hint, (t.hint.0.to_string(), t.hint.1.to_string()));
            assert_eq!(item.answer, (t.answer.0.to_string(), t.answer.1.to_string()));
            assert_eq!(item.finding, (d.finding.render(Lang::En), d.finding.render(Lang::Zh)), "{q} q{}", item.n);
            assert_eq!(item.diagnosis, d.diagnosis);
            // The cause's name comes with it (the page has no table of names).
            if let Some((c, _)) = item.diagnosis {
                let name = |l| vram_ledger::i18n::cause(l, c).to_string();
                assert_eq!(item.cause_label, (name(Lang::En), name(Lang::Zh)), "{q} q{}", item.n);
            }
            for (link, side) in [(&item.before, &d.before), (&item.after, &d.after)] {
                assert_eq!(link.0, side.label);
                let bill = estimate(&vram_ledger::query::parse(&link.1).scenario);
                assert_eq!(bill.device_bytes(), side.bill.device_bytes(), "{q} q{}: {}", item.n, link.1);
            }
        }
    }
    // Anything else in its place is not a self-test.
    assert_eq!(decode(r#"{"selftest": [{"n": 1}]}"#), None);
    assert_eq!(decode(r#"{"selftest": [{"n": 300, "question": ["a", "b"]}]}"#), None);
}
