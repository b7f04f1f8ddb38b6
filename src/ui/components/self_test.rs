//! The self-test (`view=selftest`): the chapter's seven questions, each with its hint and, inside
//! the hint, its answer and what the ledger shows on the reader's configuration. The questions,
//! their texts and the demonstrations come from the reader worker (`crate::readers::selftest`,
//! asked by the app when the view opens), so none of them is in the page's first download; the
//! page bills the two configurations of each demonstration itself and draws them.

use std::rc::Rc;

use yew::prelude::*;

use super::chart_view::{render_bars, ChartPicture};
use crate::chart::{Bar, Chart};
use crate::i18n::{text, Lang, Text};
use crate::ledger::{estimate, Bill};
use crate::readers::SelfTestItem;

/// The worker's answer as the page holds it: `None` while it is asked for.
pub type SelfTestAnswer = Option<Result<Rc<Vec<SelfTestItem>>, ()>>;

/// A question's two bars, billed on the page from the links the worker sent.
pub fn self_test_chart(lang: Lang, item: &SelfTestItem) -> Rc<Chart> {
    let bill = |query: &str| -> Bill { estimate(&crate::query::parse(query).scenario) };
    let (before, after) = (bill(&item.before.1), bill(&item.after.1));
    let label = |l: &Option<String>| l.clone().unwrap_or_else(|| text(lang, Text::ThisConfig).to_string());
    let bars = [Bar { label: label(&item.before.0), bill: &before }, Bar { label: label(&item.after.0), bill: &after }];
    Rc::new(render_bars(lang, &bars, after.gpu_bytes))
}

/// A link to the calculator on `query` (a demonstration's configuration) in the reader's
/// language, with `extra` view keys.
fn calculator_link(base: &str, lang: Lang, query: &str, extra: &str) -> String {
    let sep = if query.is_empty() { "" } else { "&" };
    format!("{base}?{query}{sep}lang={}{extra}", lang.id())
}

/// The questions the worker answered (all, or `q=N`'s alone), each with its two bars (`charts`).
/// The `<details>` keep their own open state, so an opened answer stays open when the
/// configuration changes (the last answer stays until the next comes).
pub fn self_test(lang: Lang, answer: &SelfTestAnswer, charts: &[Rc<Chart>], base: &str, new_tab: bool) -> Html {
    let items = match answer {
        Some(Ok(items)) => items,
        Some(Err(())) => {
            return html! { <p class="card notice" data-testid="selftest-failed">{ text(lang, Text::SelfTestFailed) }</p> };
        }
        None => {
            return html! { <p class="card hint" data-testid="selftest-loading">{ text(lang, Text::SelfTestLoading) }</p> }
        }
    };
    let target = if new_tab { "_blank" } else { "_self" };
    // Embedded, an opened hint or answer changes the height the course page must give the frame.
    let ontoggle = new_tab.then(|| Callback::from(|_: Event| crate::ui::embed::post_height()));
    let t = |pair: &(String, String)| if lang == Lang::Zh { pair.1.clone() } else { pair.0.clone() };
    html! {
        <section class="selftest" data-testid="selftest">
            { for items.iter().zip(charts).map(|(item, chart)| {
                let n = item.n;
                let node = item.diagnosis.map(|(_, node)| html! {
                    <>
                        { " " }
                        <a href={calculator_link(base, lang, &item.before.1, &format!("&tree={}", node.id()))} target={target}
                            data-testid="selftest-node" data-node={node.id()}>{ t(&item.cause_label) }</a>
                    </>
                });
                html! {
                    <article key={n} class="card question" id={format!("q{n}")} data-testid={format!("q{n}")}>
                        <h2>{ format!("{n}. {}", t(&item.question)) }</h2>
                        <details data-testid="hint" ontoggle={ontoggle.clone()}>
                            <summary>{ text(lang, Text::Hint) }</summary>
                            <p>{ t(&item.hint) }</p>
                            <details data-testid="answer" ontoggle={ontoggle.clone()}>
                                <summary>{ text(lang, Text::Answer) }</summary>
                                <p>{ t(&item.answer) }</p>
                                <div>
                                    <p class="finding" data-testid="finding">{ t(&item.finding) }{ node }</p>
                                    <ChartPicture chart={chart.clone()} testid={format!("q{n}-chart")} detail_testid={format!("q{n}-detail")} />
                                    <p><a href={calculator_link(base, lang, &item.after.1, "")} target={target} data-testid="see-it">{ text(lang, Text::SeeInLedger) }</a></p>
                                </div>
                            </details>
                        </details>
                    </article>
                }
            }) }
        </section>
    }
}
