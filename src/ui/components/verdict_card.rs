use yew::prelude::*;

use crate::i18n::{self, text, Lang, Text};
use crate::ledger::bill::{Bill, Verdict};
use crate::ledger::units::{format_bytes, Unit};
use crate::ledger::Scenario;

#[derive(PartialEq)]
pub struct VerdictCardProps {
    pub lang: Lang,
    pub unit: Unit,
    pub scenario: Scenario,
    pub bill: Bill,
}

/// The model, the three totals, and fits / does not fit against the GPU.
pub fn verdict_card(props: VerdictCardProps) -> Html {
    let (lang, s, bill) = (props.lang, &props.scenario, &props.bill);
    let v = bill.verdict();
    let class = match v {
        Verdict::Fits => "fits",
        Verdict::FitsWithoutMargin => "tight",
        Verdict::DoesNotFit => "oom",
    };
    let headroom = bill.headroom_bytes();
    let amount = format_bytes(headroom.unsigned_abs().min(u64::MAX as u128) as u64, props.unit);
    let headroom_text = if headroom >= 0 {
        format!("{amount} {}", text(lang, Text::Headroom))
    } else {
        format!("{amount} {}", text(lang, Text::Over))
    };
    html! {
        <section class={classes!("verdict", class)}>
            <p class="scenario-line" data-testid="scenario">
                { i18n::scenario_line(lang, s) }
            </p>
            <p class="verdict-line" data-testid="verdict" data-fits={bill.fits().to_string()} data-verdict={class}>
                <strong>{ i18n::verdict(lang, v) }</strong>
                { format!(" — {} / {} {} ({headroom_text})",
                    format_bytes(bill.device_bytes(), props.unit),
                    format_bytes(bill.gpu_bytes, props.unit),
                    s.gpu.name) }
            </p>
            <dl class="totals">
                <dt>{ text(lang, Text::Allocated) }</dt>
                <dd data-testid="total-allocated" data-bytes={bill.allocated_bytes().to_string()}>{ format_bytes(bill.allocated_bytes(), props.unit) }</dd>
                <dt>{ text(lang, Text::Reserved) }</dt>
                <dd data-testid="total-reserved" data-bytes={bill.reserved_bytes().to_string()}>{ format_bytes(bill.reserved_bytes(), props.unit) }</dd>
                <dt>{ text(lang, Text::Device) }</dt>
                <dd data-testid="total" data-bytes={bill.device_bytes().to_string()}>{ format_bytes(bill.device_bytes(), props.unit) }</dd>
            </dl>
            <p class="verdict-uses">{ text(lang, Text::VerdictUses) }</p>
            if !bill.notes.is_empty() {
                <ul class="bill-notes" data-testid="bill-notes">
                    { for bill.notes.iter().map(|n| html! { <li data-key={n.key}>{ i18n::localize_formula(lang, &n.text) }</li> }) }
                </ul>
            }
        </section>
    }
}
