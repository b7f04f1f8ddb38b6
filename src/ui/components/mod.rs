//! One small piece of UI per file. Each yew component type costs 0.5–2 KB of the gzip download
//! (docs/size.md, measured), so a piece is a component only when it needs a hook the app cannot
//! hold (the model import's fetch, the controls' search box); every other piece is a view function
//! of its values, its state in the app's reducer (text typed into a box) or in the DOM (a copied
//! button's mark, the chart's hover line), and static tables are one escaped markup string.

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
mod self_test;
mod share;
mod speed_card;
mod verdict_card;

pub use chart_view::{chart_view, render_bars, render_chart};
pub use controls::Controls;
pub use export::export;
pub use lang_switch::switches;
pub use ledger_table::ledger_table;
pub use measured_compare::measured_compare;
pub use model_import::ModelImport;
pub use notices::notices;
pub use oom_tree::{diagnosis, oom_tree, OomTreeProps};
pub use planner::{planner, PlannerData};
pub use self_test::self_test;
pub use share::share;
pub use speed_card::speed_card;
pub use verdict_card::verdict_card;

/// Static markup written as one string (every text in it escaped by the caller).
pub fn markup(html: impl Into<yew::AttrValue>) -> yew::Html {
    yew::Html::from_html_unchecked(html.into())
}
