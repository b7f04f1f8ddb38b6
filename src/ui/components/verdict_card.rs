use yew::prelude::*;

use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::{Bill, Verdict};
use crate::ledger::units::{format_bytes, Unit};
use crate::ledger::Scenario;

/// The model, the three totals, and fits / does not fit against the GPU.
pub fn verdict_card(lang: Lang, unit: Unit, s: &Scenario, bill: &Bill) -> Html {
    let v = bill.verdict();
    let class = match v {
        Verdict::Fits => "fits",
        Verdict::FitsWithoutMargin => "tight",
        Verdict::DoesNotFit => "oom",
    };
    let headroom = bill.headroom_bytes();
    let amount = format_bytes(headroom.unsigned_abs().min(u64::MAX as u128) as u64, unit);
    let side = text(lang, if headroom >= 0 { Text::Headroom } else { Text::Over });
    let total = |testid: &'static str, bytes: u64| {
        html! {
            <dd data-testid={testid} data-bytes={bytes.to_string()}>{ format_bytes(bytes, unit) }</dd>
        }
    };
    html! {
        <section class={classes!("verdict", class)}>
            <p class="scenario-line" data-testid="scenario">{ i18n::scenario_line(lang, s) }</p>
            <p class="verdict-line" data-testid="verdict" data-fits={bill.fits().to_string()} data-verdict={class}>
                <strong>{ i18n::verdict(lang, v) }</strong>
                { format!(" — {} / {} {} ({amount} {side})", format_bytes(bill.device_bytes(), unit), format_bytes(bill.gpu_bytes, unit), s.gpu.name) }
            </p>
            <dl class="totals">
                <dt>{ text(lang, Text::Allocated) }</dt>
                { total("total-allocated", bill.allocated_bytes()) }
                <dt>{ text(lang, Text::Reserved) }</dt>
                { total("total-reserved", bill.reserved_bytes()) }
                <dt>{ text(lang, Text::Device) }</dt>
                { total("total", bill.device_bytes()) }
            </dl>
            <p class="verdict-uses">{ text(lang, Text::VerdictUses) }</p>
            if !bill.notes.is_empty() {
                <ul class="bill-notes" data-testid="bill-notes">
                    { for bill.notes.iter().map(|n| html! { <li data-key={n.key}>{ render(lang, &n.text) }</li> }) }
                </ul>
            }
        </section>
    }
}
