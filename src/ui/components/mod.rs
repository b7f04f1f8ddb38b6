//! One small component per file; each takes values and `on…` callbacks, and owns no shared state.

mod lang_switch;
mod ledger_table;
mod notices;
mod verdict_card;

pub use lang_switch::LangSwitch;
pub use ledger_table::LedgerTable;
pub use notices::Notices;
pub use verdict_card::VerdictCard;
