//! One small piece of UI per file. A piece that keeps state of its own (a hover, a "copied", an
//! open box, text being typed) or memoises is a function component with its props, and its state
//! lives in it, so a hover never re-renders the app; a piece without state is a view function of
//! its values (no props struct: each component type costs ~0.7 KB gzip of the download, measured).

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
mod planner;
mod share;
mod speed_card;
mod verdict_card;

pub use chart_view::{render_chart, ChartView};
pub use controls::Controls;
pub use export::export;
pub use lang_switch::switches;
pub use ledger_table::ledger_table;
pub use measured_compare::MeasuredCompare;
pub use model_import::ModelImport;
pub use notices::notices;
pub use oom_tree::OomTree;
pub use planner::{planner, PlannerData};
pub use share::Share;
pub use speed_card::SpeedCard;
pub use verdict_card::verdict_card;
