//! The bill of any scenario: a supervised step or inference (`step`), or a preference / RL step
//! made of those (`rl`).

use super::bill::Bill;

/// The memory bill of one GPU for `s`.
pub fn estimate(s: &super::Scenario) -> Bill {
    if cfg!(not(feature = "page")) && s.bills_a_grid() {
        // A supervised or DPO step on a training grid.
        super::parallel::estimate(s)
    } else if s.is_rl() {
        super::rl::estimate(s)
    } else if cfg!(feature = "page") && s.billed_on_demand() {
        // The page's build asks the reader worker for this bill (`readers::grid`).
        super::parallel::pending(s)
    } else {
        super::step::step(s)
    }
}
