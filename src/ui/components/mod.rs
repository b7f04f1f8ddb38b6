//! One small piece of UI per file, each a function component with its own props (values and
//! `on…` callbacks); a component's transient state (a hover, a "copied", an open box) lives in it.

mod chart_view;
mod controls;
mod export;
mod inputs;
mod lang_switch;
mod ledger_table;
mod measured_compare;
mod model_import;
mod notices;
mod oom_tree;
mod share;
mod speed_card;
mod verdict_card;

pub use chart_view::{render_chart, ChartView};
pub use controls::Controls;
pub use export::Export;
pub use lang_switch::Switches;
pub use ledger_table::LedgerTable;
pub use measured_compare::MeasuredCompare;
pub use model_import::ModelImport;
pub use notices::Notices;
pub use oom_tree::OomTree;
pub use share::Share;
pub use speed_card::SpeedCard;
pub use verdict_card::VerdictCard;
