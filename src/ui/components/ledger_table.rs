//! The ledger table: each component of the bill, its size, its share of the device total, its
//! formula with the scenario's numbers, and the chapter section it comes from.

use yew::prelude::*;

use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::Bill;
use crate::ledger::units::{fixed, format_bytes, Unit};

/// The table of `bill`'s non-zero components, under the phase that holds the peak.
pub fn ledger_table(lang: Lang, unit: Unit, bill: &Bill, peak: Html) -> Html {
    let device = bill.device_bytes().max(1) as f64;
    let row = |c: &crate::ledger::bill::Component| {
        html! {
            <tr data-testid={format!("component-{}", c.id.id())} data-bytes={c.bytes.to_string()}>
                <th scope="row"><span class="swatch" style={format!("background:{}", crate::chart::css_color(c.id))}></span>{ i18n::component(lang, c.id) }</th>
                <td class="num">{ format_bytes(c.bytes, unit) }</td>
                <td class="num">{ format!("{} %", fixed(100.0 * c.bytes as f64 / device, 1)) }</td>
                // The formula is set as code already: its code spans' backticks go.
                <td class="formula"><code>{ i18n::plain(&render(lang, &c.formula)) }</code></td>
                <td>{ c.section }</td>
            </tr>
        }
    };
    html! {
        <div class="ledger-wrap">
            { peak }
            <table class="ledger" data-testid="ledger">
                <thead>
                    <tr>
                        <th scope="col">{ text(lang, Text::Component) }</th>
                        <th scope="col" class="num">{ text(lang, Text::Size) }</th>
                        <th scope="col" class="num">{ text(lang, Text::Share) }</th>
                        <th scope="col">{ text(lang, Text::Formula) }</th>
                        <th scope="col">{ text(lang, Text::Section) }</th>
                    </tr>
                </thead>
                <tbody>{ for bill.components.iter().filter(|c| c.bytes > 0).map(row) }</tbody>
            </table>
        </div>
    }
}
