//! One small component per file; each takes values and `on…` callbacks, and owns no shared state.

mod chart_view;
mod controls;
mod export;
mod inputs;
mod lang_switch;
mod model_import;
mod ledger_table;
mod notices;
mod oom_tree;
mod share;
mod speed_card;
mod verdict_card;

pub use chart_view::{render_chart, ChartView};
pub use controls::Controls;
pub use export::Export;
pub use lang_switch::LangSwitch;
pub use model_import::ModelImport;
pub use ledger_table::LedgerTable;
pub use notices::Notices;
pub use oom_tree::OomTree;
pub use share::Share;
pub use speed_card::SpeedCard;
pub use verdict_card::VerdictCard;
