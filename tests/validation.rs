//! Measured against estimated (homework 1): the JSON of tools/mem_report.py is read and lined up with
//! the bill. synthetic.json is synthetic (it tests the reading and the arithmetic, not the ledger's
//! accuracy); its `query` is the model tools/mem_report.py --demo builds. recorded-cpu-torch-2.5.1.json
//! is a real report of that demo, recorded on the CPU with torch 2.5.1.

use vram_ledger::ledger::estimate;
use vram_ledger::query;
use vram_ledger::validation::{compare, parse_report};

fn fixture() -> String {
    std::fs::read_to_string(format!("{}/tests/data/mem_report/synthetic.json", env!("CARGO_MANIFEST_DIR")))
        .expect("fixture")
}

/// The demo model of mem_report.py, counted by hand: embedding 1000 × 256; per layer qkv 256 × 768,
/// o 256², gate/up/down 3 × 256 × 688, two RMSNorms 2 × 256 = 791,040; ×2 layers; final norm 256;
/// head 256 × 1000 → 2,094,336 parameters × 4 B (fp32) = 8,377,344 B. The demo's query must describe
/// exactly that model, so that a real report compares like with like.
#[test]
fn the_demo_query_describes_the_demo_model() {
    let report = parse_report(&fixture()).expect("parses");
    let s = query::parse(report.query.as_deref().expect("query")).scenario;
    assert_eq!(s.architecture.parameters(), 2_094_336);
    let rows = compare(&report, &estimate(&s));
    let weights = rows.iter().find(|r| r.what == "weights").expect("weights row");
    assert_eq!(weights.estimated, 8_377_344);
    assert_eq!(weights.error(), Some(0.0));
    // fp32 full training with AdamW: gradients = weights, optimizer = 2 × weights (m and v).
    let est = |w: &str| rows.iter().find(|r| r.what == w).expect(w).estimated;
    assert_eq!(est("gradients"), 8_377_344);
    assert_eq!(est("optimizer"), 2 * 8_377_344);
    assert_eq!(rows.len(), 6, "peaks present → two more rows");
}

#[test]
fn errors_are_relative_to_the_measurement() {
    let report = parse_report(&fixture()).expect("parses");
    let s = query::parse(report.query.as_deref().expect("query")).scenario;
    let rows = compare(&report, &estimate(&s));
    let act = rows.iter().find(|r| r.what == "activations").expect("row");
    let expected = (act.estimated as f64 - 9_000_000.0) / 9_000_000.0;
    assert_eq!(act.error(), Some(expected));
}

#[test]
fn bad_reports_name_the_field() {
    let bad = |text: &str| parse_report(text).expect_err(text).to_string();
    assert!(bad("{").contains("not valid JSON"));
    assert!(bad(r#"{"tool": "other", "version": 1}"#).contains("`tool`"));
    assert!(bad(r#"{"tool": "vram-ledger/mem_report", "version": 2}"#).contains("`version`"));
    assert!(bad(r#"{"tool": "vram-ledger/mem_report", "version": 1}"#).contains("`bytes`"));
    let f = fixture().replace("\"gradients\": 8377344", "\"gradients\": -1");
    assert!(bad(&f).contains("`bytes.gradients`"));
    let f = fixture().replace("\"peak_reserved\": 62914560", "\"peak_reserved\": \"lots\"");
    assert!(bad(&f).contains("`bytes.peak_reserved`"));
    // CPU reports have no peaks: fewer rows, no error.
    let cpu = fixture().replace(
        "\"peak_allocated\": 50000000, \"peak_reserved\": 62914560",
        "\"peak_allocated\": null, \"peak_reserved\": null",
    );
    let r = parse_report(&cpu).expect("cpu");
    assert_eq!((r.peak_allocated, r.peak_reserved), (None, None));
}

/// A real report, recorded on the CPU with torch 2.5.1 (`python tools/mem_report.py --demo` >
/// tests/data/mem_report/recorded-cpu-torch-2.5.1.json): the demo model's weights, gradients and AdamW
/// states are exactly the ledger's (2,094,336 fp32 parameters, counted by hand above), and the tensors
/// autograd saved (12,698,804 B) are within the homework's 10 % of the ledger's activations plus the
/// saved fp32 log-probabilities (12,197,888 + 2 × 128 × 1,000 × 4 = 13,221,888 B: +4.1 %). No peaks on
/// the CPU, so four rows.
#[test]
fn a_recorded_cpu_report_agrees_with_the_ledger() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/mem_report/recorded-cpu-torch-2.5.1.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("recorded report");
    let report = parse_report(&text).expect("parses");
    assert_eq!(report.device, "cpu");
    let s = query::parse(report.query.as_deref().expect("query")).scenario;
    let bill = estimate(&s);
    assert_eq!(bill.saved_logits_bytes, 2 * 128 * 1000 * 4);
    let rows = compare(&report, &bill);
    assert_eq!(rows.len(), 4);
    for what in ["weights", "gradients", "optimizer"] {
        let row = rows.iter().find(|r| r.what == what).expect(what);
        assert_eq!(row.error(), Some(0.0), "{what}");
    }
    let act = rows.iter().find(|r| r.what == "activations").expect("activations");
    assert_eq!(act.measured, 12_698_804);
    let e = act.error().expect("measured");
    assert!(e.abs() < 0.10, "{e}");
}
