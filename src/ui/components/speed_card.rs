//! The chapter's speed card (§4) as the ledger computed it (`make card`; the stored table).

use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::fit::{self, CardColumn};
use crate::ledger::units::params_short;

/// The card in a closed `<details>` (its open state is the element's own).
pub fn speed_card(lang: Lang) -> Html {
    let rows = fit::speed_card_stored();
    html! {
        <details class="speed-card-box" data-testid="speed-card-box">
            <summary>{ text(lang, Text::SpeedCard) }</summary>
            <p class="tree-hint">{ text(lang, Text::SpeedCardNote) }{ " " }<span>{ text(lang, Text::CardAssumptions) }</span></p>
            <div class="ledger-wrap">
                <table class="ledger speed-card" data-testid="speed-card">
                    <thead>
                        <tr>
                            <th scope="col">{ text(lang, Text::Gpu) }</th>
                            { for CardColumn::ALL.iter().map(|&c| html! { <th scope="col">{ crate::i18n::card_column(lang, c) }</th> }) }
                        </tr>
                    </thead>
                    <tbody>
                        { for rows.iter().map(|r| html! {
                            <tr>
                                <th scope="row">{ r.gpu.name.clone() }</th>
                                { for r.cells.iter().map(|c| match &c.model {
                                    Some((id, p)) => html! { <td>{ format!("{id} ({})", params_short(*p)) }</td> },
                                    None => html! { <td>{ "—" }</td> },
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </details>
    }
}
