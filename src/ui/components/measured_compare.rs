//! Measured against estimated: paste the JSON of `tools/mem_report.py` (homework 1) and see each
//! component's error against the ledger.

use std::fmt::Write;

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::chart::escape_xml;
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
                let mut table = format!(
                    r#"<div class="ledger-wrap"><table class="ledger" data-testid="measured-table"><thead><tr><th scope="col">{}</th><th scope="col" class="num">{}</th><th scope="col" class="num">{}</th><th scope="col" class="num">{}</th></tr></thead><tbody>"#,
                    escape_xml(text(lang, Text::Component)),
                    escape_xml(text(lang, Text::Measured)),
                    escape_xml(text(lang, Text::Estimated)),
                    escape_xml(text(lang, Text::Error)),
                );
                for r in &rows {
                    let error = r
                        .error()
                        .map(|e| format!("{}{} %", if e < 0.0 { "−" } else { "+" }, fixed(e.abs() * 100.0, 1)));
                    let _ = write!(
                        table,
                        r#"<tr data-testid="measured-{what}" data-error="{}"><th scope="row"><code>{what}</code></th><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
                        r.error().map(crate::ledger::scenario::trim_float).unwrap_or_default(),
                        escape_xml(&format_bytes(r.measured, unit)),
                        escape_xml(&format_bytes(r.estimated, unit)),
                        error.unwrap_or_else(|| "—".into()),
                        what = escape_xml(r.what),
                    );
                }
                table.push_str("</tbody></table></div>");
                html! {
                    <>
                        <p class="tree-hint">{ format!("{}: {}", text(lang, Text::MeasuredOn), report.device) } { load.unwrap_or_default() }</p>
                        { super::markup(table) }
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
