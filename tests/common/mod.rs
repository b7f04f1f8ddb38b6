//! Helpers shared by the native test files.

use vram_ledger::ledger::Scenario;
use vram_ledger::query;

/// The scenario of a query that must be valid.
pub fn scenario(q: &str) -> Scenario {
    let p = query::parse(q);
    assert!(p.errors.is_empty(), "{q}: {:?}", p.errors);
    p.scenario
}
