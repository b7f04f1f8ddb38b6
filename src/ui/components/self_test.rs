use yew::prelude::*;

use crate::chart::escape_xml;
use crate::i18n::{cause, render, text, Lang, Text};
use crate::ledger::msg::Msg;
use crate::query::to_query;
use crate::selftest::{texts, Demo};

/// A link to the calculator on `s` (with the reader's language and `extra` view keys), escaped.
fn calculator_link(base: &str, lang: Lang, s: &crate::ledger::Scenario, extra: &[(&str, &str)]) -> String {
    let mut ui = vec![("lang", lang.id())];
    ui.extend_from_slice(extra);
    escape_xml(&format!("{base}?{}", to_query(s, &ui)))
}

/// The self-test (`view=selftest`): each question with its hint, and inside the hint its answer
/// (so the hint comes first), the ledger's finding on the reader's configuration and the two bars
/// (`svg`) that show it. `demos` holds the questions shown (all, or `q=N`'s alone).
///
/// The questions and their `<details>` are yew's, so an opened answer stays open when the
/// configuration changes; what the ledger computed (the finding, the bars, the link) is static
/// markup written as one string, every text escaped (yew's element builders for it cost more of
/// the download).
pub fn self_test(lang: Lang, demos: &[(u8, Demo, String)], base: &str, new_tab: bool) -> Html {
    let target = if new_tab { "_blank" } else { "_self" };
    let t = |id| render(lang, &Msg::plain(id));
    // Embedded, an opened hint or answer changes the height the course page must give the frame.
    let ontoggle = new_tab.then(|| Callback::from(|_: Event| crate::ui::embed::post_height()));
    html! {
        <section class="selftest" data-testid="selftest">
            { for demos.iter().filter_map(|(n, d, svg)| {
                let (q, hint, answer) = texts(*n)?;
                let node = d.diagnosis.map_or(String::new(), |(c, node)| {
                    format!(
                        r#" <a href="{}" target="{target}" data-testid="selftest-node" data-node="{}">{}</a>"#,
                        calculator_link(base, lang, &d.before.scenario, &[("tree", node.id())]),
                        node.id(),
                        escape_xml(cause(lang, c))
                    )
                });
                let shown = format!(
                    r#"<div><p class="finding" data-testid="finding">{}{node}</p><div class="chart">{svg}</div><p><a href="{}" target="{target}" data-testid="see-it">{}</a></p></div>"#,
                    escape_xml(&render(lang, &d.finding)),
                    calculator_link(base, lang, &d.after.scenario, &[]),
                    escape_xml(text(lang, Text::SeeInLedger)),
                );
                Some(html! {
                    <article key={*n} class="card question" id={format!("q{n}")} data-testid={format!("q{n}")}>
                        <h2>{ format!("{n}. {}", t(q)) }</h2>
                        <details data-testid="hint" ontoggle={ontoggle.clone()}>
                            <summary>{ text(lang, Text::Hint) }</summary>
                            <p>{ t(hint) }</p>
                            <details data-testid="answer" ontoggle={ontoggle.clone()}>
                                <summary>{ text(lang, Text::Answer) }</summary>
                                <p>{ t(answer) }</p>
                                { super::markup(shown) }
                            </details>
                        </details>
                    </article>
                })
            }) }
        </section>
    }
}
