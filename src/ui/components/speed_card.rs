use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::fit::{self, CardColumn, CardRow};
use crate::ledger::units::params_short;

#[derive(Properties, PartialEq)]
pub struct SpeedCardProps {
    pub lang: Lang,
}

fn card_table(lang: Lang, rows: &[CardRow]) -> Html {
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
}

/// The chapter's speed card (§4) as the ledger computed it (`make card`), built the first time it is
/// opened.
#[function_component(SpeedCard)]
pub fn speed_card(props: &SpeedCardProps) -> Html {
    let lang = props.lang;
    let open = use_state(|| false);
    let rows = use_memo(*open, |open| if *open { fit::speed_card_stored() } else { Vec::new() });
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            let now = e.target_unchecked_into::<web_sys::HtmlDetailsElement>().open();
            if *open != now {
                open.set(now);
            }
        })
    };
    html! {
        <details class="speed-card-box" data-testid="speed-card-box" open={*open} {ontoggle}>
            <summary>{ text(lang, Text::SpeedCard) }</summary>
            <p class="tree-hint">{ text(lang, Text::SpeedCardNote) }{ " " }<span>{ text(lang, Text::CardAssumptions) }</span></p>
            if *open { { card_table(lang, &rows) } }
        </details>
    }
}
