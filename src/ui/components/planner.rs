//! The serving planner: how many requests of what length the engine holds at once on this card,
//! as a curve with the user's point on it, and the engine's levers one click away, each with what
//! it buys (requests at once at the user's context, the longest context for the user's batch).

use yew::prelude::*;

use std::rc::Rc;

use super::chart_view::ChartPicture;
use crate::chart::{concurrency, Chart, CurveText};
use crate::i18n::{text, Lang, Text};
use crate::ledger::bill::Serving;
use crate::ledger::units::{fixed, group};
use crate::tree::Lever;

/// What the planner shows, computed once per scenario and language (the app memoises it).
#[derive(Clone, Debug, PartialEq)]
pub struct PlannerData {
    pub curve: Vec<(u64, f64)>,
    pub serving: Serving,
    /// Levers that apply, with the engine's figures after each.
    pub levers: Vec<(Lever, Serving)>,
    pub chart: Rc<Chart>,
}

impl PlannerData {
    /// `None` unless `s` is served by an engine. The figures, levers and curve of a bill the
    /// reader worker made (`grid`) come from its answer.
    pub fn of(
        s: &crate::ledger::Scenario,
        lang: Lang,
        grid: Option<&crate::readers::GridAnswer>,
    ) -> Option<PlannerData> {
        let (serving, levers, curve) = match grid {
            Some(g) => (g.bill.serving.clone()?, g.planner_levers.clone(), g.curve.clone()),
            // The page's build bills no served model itself (`Scenario::billed_on_demand`).
            None if cfg!(feature = "page") => return None,
            None => (
                crate::ledger::estimate(s).serving?,
                crate::tree::planner_levers(s),
                crate::ledger::concurrency::concurrency_curve(s),
            ),
        };
        let curve_text = CurveText {
            x_axis: text(lang, Text::PlannerX).to_string(),
            y_axis: text(lang, Text::PlannerY).to_string(),
            you: format!(
                "{} ({} × {})",
                text(lang, Text::PlannerYou),
                serving.requests,
                crate::chart::tokens_label(serving.context_tokens)
            ),
        };
        let chart = concurrency(&curve, (serving.context_tokens, serving.requests), &curve_text, 520, 280);
        Some(PlannerData { curve, serving, levers, chart: Rc::new(chart) })
    }
}

fn tokens(lang: Lang, n: u64) -> String {
    format!("{} {}", group(n), if lang == Lang::Zh { "token" } else { "tokens" })
}

/// The planner section.
pub fn planner(lang: Lang, data: &PlannerData, onapply: Callback<Lever>) -> Html {
    let sv = &data.serving;
    let lever = |(l, after): &(Lever, Serving)| {
        let l = *l;
        let cb = onapply.clone();
        let (joint, middle) = match lang {
            Lang::Zh => (";", " 个请求的最长上下文 "),
            Lang::En => (" at once; longest context for ", ": "),
        };
        let what = format!(
            "{}× → {}×{joint}{}{middle}{} → {}",
            fixed(sv.effective_concurrency, 2),
            fixed(after.effective_concurrency, 2),
            sv.requests,
            tokens(lang, sv.max_context),
            tokens(lang, after.max_context)
        );
        html! {
            <li>
                <button type="button" class="lever" data-testid={format!("plan-{}", l.id())}
                    data-after={fixed(after.effective_concurrency, 2)} onclick={move |_| cb.emit(l)}>{ if lang == Lang::Zh { l.label().zh } else { l.label().en } }</button>
                <span class="lever-effect">{ what }</span>
            </li>
        }
    };
    html! {
        <section class="planner" data-testid="planner">
            <h2>{ text(lang, Text::PlannerTitle) }</h2>
            <p class="hint">{ text(lang, Text::PlannerHint) }</p>
            <ChartPicture chart={data.chart.clone()} testid="planner-chart" detail_testid="planner-detail" points={data.curve.len()} />
            if !data.levers.is_empty() {
                <h3>{ text(lang, Text::PlannerLevers) }</h3>
                <ul class="planner-levers">{ for data.levers.iter().map(lever) }</ul>
            }
        </section>
    }
}
