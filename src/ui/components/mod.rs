//! One small piece of UI per file. A piece with state of its own (a hover, a copied button, text
//! being typed, a fetch) is a function component holding it with `use_state`, so that its changes
//! re-render it alone; a piece without is a view function of its values. All of it is Yew's
//! `html!`, which escapes text; the only markup written as a string is a chart's SVG, drawn by
//! plotters into a [`crate::markup::Markup`].

mod chart_view;
mod controls;
mod export;
mod grid_view;
mod inputs;
#[cfg(feature = "prerender")]
pub use inputs::FIRST_PAINT;
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
mod timeline_view;
mod trace_drop;
mod verdict_card;

pub use chart_view::{chart_view, render_bars, render_chart, ChartPicture};
pub use controls::Controls;
pub use export::export;
pub use grid_view::grid_view;
pub use lang_switch::switches;
pub use ledger_table::ledger_table;
pub use measured_compare::measured_compare;
pub use model_import::ModelImport;
pub use notices::notices;
pub use oom_tree::{oom_tree, OomTreeProps};
pub use planner::{planner, PlannerData};
pub use self_test::{self_test, self_test_chart, SelfTestAnswer};
pub use share::Share;
pub use speed_card::speed_card;
pub use timeline_view::{peak_line, render_timeline, timeline_view};
pub use trace_drop::{trace_comparison, TraceDrop};
pub use verdict_card::verdict_card;

/// Text whose `` `code spans` `` are shown as code ([`crate::i18n::code_spans`]).
pub fn code_spans(text: &str) -> yew::Html {
    use yew::html;
    html! {
        { for crate::i18n::code_spans(text).into_iter().map(|(part, code)| if code { html! { <code>{ part }</code> } } else { html! { { part } } }) }
    }
}
