//! Measured against estimated: paste the JSON of `tools/mem_report.py` (homework 1) and see each
//! component's error against the ledger.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::bill::Bill;
use crate::ledger::units::{fixed, format_bytes, Unit};
use crate::validation::{compare, parse_report};

/// The comparison box. `pasted` is the report as typed (the app's state: `Action::SetReport`),
/// compared with `bill` on every render; `oninput` hands the new text to the app, `onload` loads
/// the configuration the report names (its `query`).
pub fn measured_compare(
    lang: Lang,
    unit: Unit,
    bill: &Bill,
    pasted: &str,
    oninput: Callback<String>,
    onload: Callback<String>,
) -> Html {
    let oninput =
        Callback::from(move |e: InputEvent| oninput.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value()));
    let body = if pasted.trim().is_empty() {
        html! {}
    } else {
        match parse_report(pasted) {
            Err(e) => {
                html! { <p class="notice-error" role="alert" data-testid="measured-error">{ crate::i18n::render(lang, &e) }</p> }
            }
            Ok(report) => {
                let rows = compare(&report, bill);
                let load = report.query.clone().map(|q| {
                    html! {
                        <button type="button" class="link-button" data-testid="measured-load" onclick={move |_| onload.emit(q.clone())}>
                            { text(lang, Text::LoadReportConfig) }
                        </button>
                    }
                });
                let row = |r: &crate::validation::Row| {
                    let error = r
                        .error()
                        .map(|e| format!("{}{} %", if e < 0.0 { "−" } else { "+" }, fixed(e.abs() * 100.0, 1)));
                    html! {
                        <tr data-testid={format!("measured-{}", r.what)} data-error={r.error().map(crate::ledger::units::trim_float).unwrap_or_default()}>
                            <th scope="row"><code>{ r.what }</code></th>
                            <td class="num">{ format_bytes(r.measured, unit) }</td>
                            <td class="num">{ format_bytes(r.estimated, unit) }</td>
                            <td class="num">{ error.unwrap_or_else(|| "—".into()) }</td>
                        </tr>
                    }
                };
                let table = html! {
                    <div class="ledger-wrap">
                        <table class="ledger" data-testid="measured-table">
                            <thead>
                                <tr>
                                    <th scope="col">{ text(lang, Text::Component) }</th>
                                    <th scope="col" class="num">{ text(lang, Text::Measured) }</th>
                                    <th scope="col" class="num">{ text(lang, Text::Estimated) }</th>
                                    <th scope="col" class="num">{ text(lang, Text::Error) }</th>
                                </tr>
                            </thead>
                            <tbody>{ for rows.iter().map(row) }</tbody>
                        </table>
                    </div>
                };
                html! {
                    <>
                        <p class="tree-hint">{ format!("{}: {}", text(lang, Text::MeasuredOn), report.device) } { load.unwrap_or_default() }</p>
                        { table }
                    </>
                }
            }
        }
    };
    html! {
        <details class="model-import measured" data-testid="measured">
            <summary>{ text(lang, Text::MeasuredTitle) }</summary>
            <p class="tree-hint">{ text(lang, Text::MeasuredHint) }</p>
            <textarea data-testid="measured-json" rows="3" spellcheck="false" aria-label={text(lang, Text::MeasuredTitle)}
                placeholder="{\"tool\": \"vram-ledger/mem_report\", …}" {oninput} value={pasted.to_string()} />
            { body }
        </details>
    }
}
