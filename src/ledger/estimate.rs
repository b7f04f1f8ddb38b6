//! The bill of any scenario: a supervised step or inference (`step`), or a preference / RL step
//! made of those (`rl`).

use super::bill::Bill;

/// The memory bill of one GPU for `s`.
pub fn estimate(s: &super::Scenario) -> Bill {
    if s.is_rl() {
        super::rl::estimate(s)
    } else if s.bills_a_grid() {
        // The page's build asks the reader worker for a grid's bill (`readers::grid`).
        #[cfg(feature = "page")]
        return super::parallel::pending(s);
        #[cfg(not(feature = "page"))]
        super::parallel::estimate(s)
    } else {
        super::step::step(s)
    }
}
