//! The trace reader (src/validation/trace) on traces laid out as PyTorch writes them. The
//! fixtures in tests/data/traces are synthetic (tools/make_trace_fixtures.py) but one real CPU
//! recording (`recorded-cpu-…`, its command beside its test); every expected number below is hand
//! arithmetic, written in that script's docstrings or beside the test, in MiB unless said.

use std::io::Read;
use vram_ledger::ledger::bill::ComponentId;
use vram_ledger::ledger::msg::MsgId;
use vram_ledger::ledger::phases::{Phase, PhaseName};
use vram_ledger::validation::trace::{self, compare, Category, TraceFormat};

const MIB: u64 = 1 << 20;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/traces/{name}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
}

fn by_category(t: &trace::Trace) -> Vec<(&'static str, u64)> {
    Category::ALL
        .iter()
        .filter(|c| t.categories[c.index()] > 0)
        .map(|c| (c.id(), t.categories[c.index()] / MIB))
        .collect()
}

fn refused_with(bytes: &[u8]) -> MsgId {
    match trace::read(bytes) {
        Ok(t) => panic!("read as {:?}", t.format),
        Err(m) => m.id,
    }
}

#[test]
fn the_profiler_s_memory_timeline_gives_the_peak_and_its_categories() {
    let t = trace::read(&fixture("timeline.json")).expect("reads");
    assert_eq!(t.format, TraceFormat::MemoryTimeline);
    assert_eq!(t.events, 8);
    // optimizer_step: 1000 weights + 2000 state + 500 temporary + 1000 gradients.
    assert_eq!(t.peak_bytes, 4500 * MIB);
    assert_eq!(t.peak_time_us, 3000, "4000 µs, from the first time 1000 µs");
    assert_eq!(t.reserved_peak_bytes, None);
    assert_eq!(
        by_category(&t),
        [("parameter", 1000), ("optimizer_state", 2000), ("temporary", 500), ("gradient", 1000)]
    );
    assert_eq!(t.curve.len(), 8);
    assert_eq!(t.curve[1].allocated, 1308 * MIB, "forward: 1000 + 8 input + 300 activations");
}

#[test]
fn a_gzipped_timeline_reads_the_same_once_decompressed() {
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&fixture("timeline.json.gz")[..]).read_to_end(&mut plain).expect("gunzips");
    assert_eq!(trace::read(&plain), trace::read(&fixture("timeline.json")));
    // Not decompressed: said so, not misread.
    assert_eq!(refused_with(&fixture("timeline.json.gz")), MsgId::TraceGzipped);
}

#[test]
fn the_raw_timeline_replays_its_events_to_the_same_peak() {
    let t = trace::read(&fixture("timeline.raw.json")).expect("reads");
    assert_eq!(t.format, TraceFormat::MemoryTimelineRaw);
    assert_eq!(t.peak_bytes, 4500 * MIB);
    assert_eq!(t.peak_time_us, 4000, "4,000,000 ns; the preexisting weights at time −1 count from 0");
    assert_eq!(
        by_category(&t),
        [("parameter", 1000), ("optimizer_state", 2000), ("temporary", 500), ("gradient", 1000)]
    );
}

#[test]
fn a_snapshot_s_events_give_the_peak_its_reserve_and_what_the_frames_say() {
    let t = trace::read(&fixture("snapshot.pickle")).expect("reads");
    assert_eq!(t.format, TraceFormat::Snapshot);
    assert_eq!(t.events, 12);
    assert_eq!(t.peak_bytes, 4500 * MIB);
    assert_eq!(t.preexisting_bytes, 200 * MIB, "live at the end 3000, the trace's net 2800");
    assert_eq!(t.reserved_peak_bytes, Some(8704 * MIB), "512 before the history + the 8192 segment");
    // The optimizer's 500 block is freed after the peak: a temporary; the 200 before the history
    // has no frames: unknown.
    assert_eq!(
        by_category(&t),
        [("parameter", 800), ("optimizer_state", 2000), ("temporary", 500), ("gradient", 1000), ("unknown", 200)]
    );
}

#[test]
fn frames_name_the_category_innermost_first() {
    use trace::snapshot::frame_category;
    assert_eq!(
        frame_category("/usr/lib/python3/site-packages/torch/optim/adamw.py", "_single_tensor_adamw"),
        Some(Category::OptimizerState)
    );
    assert_eq!(frame_category("??", "torch::autograd::Engine::evaluate_function"), Some(Category::Gradient));
    assert_eq!(frame_category("C:\\py\\torch\\autograd\\__init__.py", "backward"), Some(Category::Gradient));
    assert_eq!(frame_category("transformers/modeling_utils.py", "from_pretrained"), Some(Category::Parameter));
    assert_eq!(frame_category("torch/nn/modules/module.py", "forward"), Some(Category::Activation));
    assert_eq!(frame_category("train.py", "main"), None);
}

#[test]
fn a_pickle_that_would_call_code_is_refused() {
    assert_eq!(refused_with(&fixture("hostile.pickle")), MsgId::TraceRefusedGlobal);
    // Protocol 4's STACK_GLOBAL and a bare REDUCE are refused too.
    assert_eq!(refused_with(b"\x80\x04\x8c\x02os\x8c\x06system\x93."), MsgId::TraceRefusedGlobal);
    assert_eq!(refused_with(b"\x80\x02N)R."), MsgId::TraceRefusedGlobal);
}

#[test]
fn broken_traces_get_a_message_never_a_panic() {
    assert_eq!(refused_with(b""), MsgId::TraceEmpty);
    assert_eq!(refused_with(b"  \n"), MsgId::TraceEmpty);
    assert_eq!(refused_with(b"hello"), MsgId::TraceUnknown);
    assert_eq!(refused_with(br#"{"traceEvents": []}"#), MsgId::TraceChromeTrace);
    assert_eq!(refused_with(br#"{"tool": "x"}"#), MsgId::ReportTool);
    assert_eq!(refused_with(b"[[1,2],[[0,1,2,3,4,5,6,7]]]"), MsgId::TraceBadRow);
    assert_eq!(refused_with(b"[[1,2],[[0,1,2,3,4,5,6,7,8]]]"), MsgId::TraceRowsTimes);
    assert_eq!(refused_with(b"[[1.5],[[0,1,2,3,4,5,6,7,8]]]"), MsgId::TraceBadTimeline);
    assert_eq!(refused_with(b"[[1,0,5,9]]"), MsgId::TraceBadCategory);
    assert_eq!(refused_with(b"[[1,0,5]]"), MsgId::TraceBadEvent);
    assert_eq!(refused_with(b"[[]]"), MsgId::TraceNoEvents);
    assert_eq!(refused_with(b"[[1,0,5,0]] x"), MsgId::TraceBadTimeline);
    assert_eq!(refused_with(b"\x80\x04}."), MsgId::TraceNotSnapshot);
    assert_eq!(refused_with(b"\x80\x04}\x8c\x0ddevice_traces]s."), MsgId::TraceNoEvents);
    let snapshot = fixture("snapshot.pickle");
    for cut in [1, 2, 10, snapshot.len() / 2, snapshot.len() - 1] {
        assert!(trace::read(&snapshot[..cut]).is_err(), "cut at {cut}");
    }
    let big = vec![b' '; trace::MAX_TRACE_BYTES + 1];
    assert_eq!(refused_with(&big), MsgId::TraceTooLarge);
}

#[test]
fn any_bytes_are_read_or_refused() {
    use proptest::prelude::*;
    let seeds = [fixture("snapshot.pickle"), fixture("timeline.json"), fixture("timeline.raw.json")];
    proptest!(ProptestConfig::with_cases(600), |(which in 0usize..3, at in 0usize..4000, byte in any::<u8>(), cut in 0usize..4000)| {
        let mut b = seeds[which].clone();
        let i = at % b.len();
        b[i] = byte;
        b.truncate(cut.max(1).min(b.len()));
        let _ = trace::read(&b);
    });
}

fn phase(name: PhaseName, mib: u64) -> Phase {
    Phase { name, components: vec![(ComponentId::Weights, mib * MIB)] }
}

#[test]
fn the_curve_is_laid_on_the_phases_by_its_peak_and_parts_where_it_differs_most() {
    let t = trace::read(&fixture("timeline.json")).expect("reads");
    use PhaseName::*;
    let phases = [
        phase(Load, 1000),
        phase(Forward, 1300),
        phase(Loss, 1400),
        phase(Backward, 2000),
        phase(OptimizerStep, 4500),
        phase(ZeroGrad, 3000),
    ];
    let c = compare::compare(&t, &phases).expect("a peak");
    assert_eq!(c.peak_phase, OptimizerStep);
    // Before the peak, 0–3000 µs over phases 0–4: rows at 0, 1000, 1500, 2000, 2500 µs fall on
    // 0, 1.33, 2, 2.67, 3.33 → load, forward, loss, backward, backward (max(1858, 2000)); after
    // it, 3500 and 4000 µs on 4.5 and 5 → zero_grad (max(4000, 3000); halves round up).
    let measured: Vec<(PhaseName, Option<u64>)> =
        c.measured_by_phase.iter().map(|(n, _, m)| (*n, m.map(|b| b / MIB))).collect();
    assert_eq!(
        measured,
        [
            (Load, Some(1000)),
            (Forward, Some(1308)),
            (Loss, Some(1408)),
            (Backward, Some(2000)),
            (OptimizerStep, Some(4500)),
            (ZeroGrad, Some(4000))
        ]
    );
    // |measured − predicted|: 0, 8, 8, 0, 0, 1000.
    assert_eq!(c.diverges_at, ZeroGrad);
    // Everything predicted is "parameter" here: the measured 1000 MiB of it is 3500 short.
    assert_eq!(c.largest_gap, Category::Parameter);
}

#[test]
fn every_ledger_component_that_is_a_tensor_has_a_profiler_category() {
    for id in ComponentId::ALL {
        let c = compare::category_of(id);
        let is_tensor = id.layer() == vram_ledger::ledger::bill::TotalKind::Allocated;
        assert_eq!(c.is_some(), is_tensor, "{id:?}");
    }
}

#[test]
fn the_cli_reads_a_gzipped_trace_and_writes_the_contract() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vram-ledger"))
        .args(["--trace", &format!("{}/tests/data/traces/timeline.json.gz", env!("CARGO_MANIFEST_DIR")), "--json"])
        .arg("model=qwen2.5-0.5b&method=full&seq=512&batch=1")
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let t = &v["trace"];
    assert_eq!(t["format"], "memory_timeline");
    assert_eq!(t["peak_bytes"], 4500 * MIB);
    assert!(t["reserved_peak_bytes"].is_null());
    assert_eq!(t["categories"]["optimizer_state"], 2000 * MIB);
    let phases: Vec<&str> =
        v["phases"].as_array().expect("phases").iter().map(|p| p["name"].as_str().unwrap_or("")).collect();
    assert!(phases.contains(&t["diverges_at"].as_str().expect("a phase")), "{t}");
    // The predicted components are the bill's peak phase's.
    let peak = v["phases"].as_array().and_then(|p| p.iter().find(|p| p["name"] == v["peak_phase"])).expect("peak");
    assert_eq!(t["predicted"], peak["components"]);
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_vram-ledger"))
        .args(["--trace", &format!("{}/tests/data/traces/hostile.pickle", env!("CARGO_MANIFEST_DIR"))])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("refused"));
}

#[test]
fn pickle_longs_are_little_endian_twos_complement() {
    use trace::pickle::{read, Node};
    // LONG1 of 0xff = −1; of 00 01 = 256; of zero bytes = 0 (pickletools' encode_long).
    for (bytes, v) in
        [(&b"\x80\x02\x8a\x01\xff."[..], -1), (b"\x80\x02\x8a\x02\x00\x01.", 256), (b"\x80\x02\x8a\x00.", 0)]
    {
        let p = read(bytes, &mut |_| {}).expect("reads");
        assert_eq!(p.node(p.root), &Node::Int(v));
    }
}

/// A real recording (issue 25): `python tools/mem_report.py --demo --timeline
/// tests/data/traces/recorded-cpu-torch-2.9.1-timeline.json > tests/data/traces/recorded-cpu-torch-2.9.1-report.json`,
/// torch 2.9.1 on the CPU, 2026-12-05: the demo model's first training step under the profiler.
/// Expected: the demo has 2,094,336 fp32 parameters, counted by hand in tests/validation.rs — 8,377,344
/// B of weights, as many of gradients, twice as many of AdamW states (its step counters, 0-d
/// tensors, add a few bytes); the peak comes when all three exist.
#[test]
fn a_real_cpu_recording_gives_the_hand_counted_parameters_gradients_and_states() {
    let t = trace::read(&fixture("recorded-cpu-torch-2.9.1-timeline.json")).expect("read");
    assert_eq!(t.format, TraceFormat::MemoryTimeline);
    let at = |c: Category| t.categories[c.index()];
    assert_eq!(at(Category::Parameter), 2_094_336 * 4);
    assert_eq!(at(Category::Gradient), 2_094_336 * 4);
    let states = at(Category::OptimizerState);
    assert!((2 * 2_094_336 * 4..2 * 2_094_336 * 4 + 1024).contains(&states), "{states}");
    assert!(t.peak_bytes >= at(Category::Parameter) + at(Category::Gradient) + states);
    // The report beside it carries the configuration the CLI lays the recording over.
    let report: serde_json::Value =
        serde_json::from_slice(&fixture("recorded-cpu-torch-2.9.1-report.json")).expect("report");
    assert_eq!(report["bytes"]["weights"], 2_094_336 * 4);
    assert!(vram_ledger::query::parse(report["query"].as_str().expect("query")).errors.is_empty());
}
