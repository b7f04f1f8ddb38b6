//! One small piece of UI per file; each takes values and `on…` callbacks and owns no shared state.
//! Pieces with no state of their own are plain functions returning `Html` rather than components:
//! every component type adds several kilobytes of Yew lifecycle code to the download.

mod chart_view;
mod controls;
mod export;
mod inputs;
mod lang_switch;
mod measured_compare;
mod model_import;
mod ledger_table;
mod notices;
mod oom_tree;
mod share;
mod speed_card;
mod verdict_card;

pub use chart_view::{chart_view, render_chart, ChartViewProps};
pub use controls::Controls;
pub use export::{export, ExportProps};
pub use lang_switch::{lang_switch, LangSwitchProps};
pub use measured_compare::MeasuredCompare;
pub use model_import::ModelImport;
pub use ledger_table::{ledger_table, LedgerTableProps};
pub use notices::{notices, NoticesProps};
pub use oom_tree::OomTree;
pub use share::{share, ShareProps};
pub use speed_card::{speed_card, SpeedCardProps};
pub use verdict_card::{verdict_card, VerdictCardProps};
