use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::fit::{self, CardColumn};
use crate::ledger::units::params_short;

#[derive(PartialEq)]
pub struct SpeedCardProps {
    pub lang: Lang,
    /// Whether the box is open (the card is computed only then).
    pub open: bool,
    pub ontoggle: Callback<bool>,
}

/// The chapter's speed card (§4), recomputed by the ledger when opened (it runs a few hundred
/// estimates, so not on every input).
pub fn speed_card(props: SpeedCardProps) -> Html {
    let lang = props.lang;
    let ontoggle = {
        let cb = props.ontoggle.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlDetailsElement = e.target_unchecked_into();
            cb.emit(el.open());
        })
    };
    let table = props.open.then(|| {
        let rows = fit::speed_card();
        html! {
            <div class="ledger-wrap">
                <table class="ledger speed-card" data-testid="speed-card">
                    <thead><tr>
                        <th scope="col">{ text(lang, Text::Gpu) }</th>
                        { for CardColumn::ALL.iter().map(|&c| html! { <th scope="col">{ crate::i18n::card_column(lang, c) }</th> }) }
                    </tr></thead>
                    <tbody>
                        { for rows.iter().map(|r| html! {
                            <tr>
                                <th scope="row">{ &r.gpu.name }</th>
                                { for r.cells.iter().map(|c| html! {
                                    <td>{ match &c.model {
                                        Some((id, p)) => format!("{id} ({})", params_short(*p)),
                                        None => "—".to_string(),
                                    } }</td>
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        }
    });
    html! {
        <details class="speed-card-box" data-testid="speed-card-box" open={props.open} {ontoggle}>
            <summary>{ text(lang, Text::SpeedCard) }</summary>
            <p class="tree-hint">{ text(lang, Text::SpeedCardNote) }{ " " }<span>{ text(lang, Text::CardAssumptions) }</span></p>
            { table.unwrap_or_default() }
        </details>
    }
}
