//! SNAPSHOT (a change detector, not a check of correctness): every fixed link of
//! tests/data/links.txt decodes to the scenario whose canonical query and totals are pinned in
//! tests/data/links.tsv. The pinned totals are the ledger's own output, recorded by `make links`;
//! they say "the numbers did not change", never "the numbers are right" — that is what the tests
//! against the chapter, hand arithmetic and measurements (chapter.rs, pitfalls.rs, measured.rs,
//! accuracy.rs) are for. Regenerate only when the ledger's numbers change on purpose, and say why
//! in the commit. The canonical queries, on the other hand, are a contract: old links must keep
//! decoding to the same scenario. The web page is checked against the same file by
//! tests/e2e/calculator.test.mjs.

use vram_ledger::ledger::estimate;
use vram_ledger::query;

#[test]
fn snapshot_fixed_links_decode_and_total_as_pinned() {
    let pinned =
        std::fs::read_to_string(format!("{}/tests/data/links.tsv", env!("CARGO_MANIFEST_DIR"))).expect("links.tsv");
    let links =
        std::fs::read_to_string(format!("{}/tests/data/links.txt", env!("CARGO_MANIFEST_DIR"))).expect("links.txt");
    let rows: Vec<Vec<&str>> =
        pinned.lines().filter(|l| !l.starts_with('#')).map(|l| l.split('\t').collect()).collect();
    let listed: Vec<&str> = links.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert_eq!(rows.len(), listed.len(), "every link is pinned: run `make links`");
    for row in rows {
        let [link, canonical, allocated, reserved, device] = row[..] else { panic!("bad row {row:?}") };
        let parsed = query::parse(link);
        assert!(parsed.errors.is_empty() && parsed.warnings.is_empty(), "{link}: {:?}", parsed.errors);
        assert_eq!(query::to_query(&parsed.scenario, &[]), canonical, "{link} decodes to another scenario");
        let bill = estimate(&parsed.scenario);
        assert_eq!(bill.allocated_bytes().to_string(), allocated, "{link}");
        assert_eq!(bill.reserved_bytes().to_string(), reserved, "{link}");
        assert_eq!(bill.device_bytes().to_string(), device, "{link}");
    }
}
