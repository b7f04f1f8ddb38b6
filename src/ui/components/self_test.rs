//! The self-test (`view=selftest`): the chapter's seven questions, each with its hint and, inside
//! the hint, its answer and what the ledger shows on the reader's configuration.

use std::rc::Rc;

use yew::prelude::*;

use super::chart_view::ChartPicture;
use crate::chart::Chart;
use crate::i18n::{cause, render, text, Lang, Text};
use crate::ledger::msg::Msg;
use crate::query::to_query;
use crate::selftest::{texts, Demo};

/// A link to the calculator on `s` (with the reader's language and `extra` view keys).
fn calculator_link(base: &str, lang: Lang, s: &crate::ledger::Scenario, extra: &[(&str, &str)]) -> String {
    let mut ui = vec![("lang", lang.id())];
    ui.extend_from_slice(extra);
    format!("{base}?{}", to_query(s, &ui))
}

/// The questions `demos` holds (all, or `q=N`'s alone), each with the two bars (`chart`) that
/// show its demonstration. The `<details>` keep their own open state, so an opened answer stays
/// open when the configuration changes.
pub fn self_test(lang: Lang, demos: &[(u8, Demo, Rc<Chart>)], base: &str, new_tab: bool) -> Html {
    let target = if new_tab { "_blank" } else { "_self" };
    let t = |id| render(lang, &Msg::plain(id));
    // Embedded, an opened hint or answer changes the height the course page must give the frame.
    let ontoggle = new_tab.then(|| Callback::from(|_: Event| crate::ui::embed::post_height()));
    html! {
        <section class="selftest" data-testid="selftest">
            { for demos.iter().filter_map(|(n, d, chart)| {
                let (q, hint, answer) = texts(*n)?;
                let node = d.diagnosis.map(|(c, node)| html! {
                    <>
                        { " " }
                        <a href={calculator_link(base, lang, &d.before.scenario, &[("tree", node.id())])} target={target}
                            data-testid="selftest-node" data-node={node.id()}>{ cause(lang, c) }</a>
                    </>
                });
                Some(html! {
                    <article key={*n} class="card question" id={format!("q{n}")} data-testid={format!("q{n}")}>
                        <h2>{ format!("{n}. {}", t(q)) }</h2>
                        <details data-testid="hint" ontoggle={ontoggle.clone()}>
                            <summary>{ text(lang, Text::Hint) }</summary>
                            <p>{ t(hint) }</p>
                            <details data-testid="answer" ontoggle={ontoggle.clone()}>
                                <summary>{ text(lang, Text::Answer) }</summary>
                                <p>{ t(answer) }</p>
                                <div>
                                    <p class="finding" data-testid="finding">{ render(lang, &d.finding) }{ node }</p>
                                    <ChartPicture chart={chart.clone()} testid={format!("q{n}-chart")} detail_testid={format!("q{n}-detail")} />
                                    <p><a href={calculator_link(base, lang, &d.after.scenario, &[])} target={target} data-testid="see-it">{ text(lang, Text::SeeInLedger) }</a></p>
                                </div>
                            </details>
                        </details>
                    </article>
                })
            }) }
        </section>
    }
}
