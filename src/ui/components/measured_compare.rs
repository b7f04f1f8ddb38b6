//! Measured against estimated: paste the JSON of `tools/mem_report.py` (homework 1) and see each
//! component's error against the ledger.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::bill::Bill;
use crate::ledger::msg::Msg;
use crate::ledger::units::{fixed, format_bytes, Unit};
use crate::validation::{compare, MemReport};

/// One line of a measured-against-estimated table.
pub struct Row {
    pub what: &'static str,
    /// `measured-{testid}` names the row.
    pub testid: &'static str,
    pub measured: u64,
    pub estimated: u64,
}

/// The table of measured against estimated bytes, each row's error as a share of the measured.
pub fn comparison_table(lang: Lang, unit: Unit, rows: &[Row], testid: &'static str) -> Html {
    let row = |r: &Row| {
        let error = (r.measured > 0).then(|| (r.estimated as f64 - r.measured as f64) / r.measured as f64);
        let shown = error.map(|e| format!("{}{} %", if e < 0.0 { "−" } else { "+" }, fixed(e.abs() * 100.0, 1)));
        html! {
            <tr data-testid={format!("measured-{}", r.testid)} data-error={error.map(crate::ledger::units::trim_float).unwrap_or_default()}>
                <th scope="row"><code>{ r.what }</code></th>
                <td class="num">{ format_bytes(r.measured, unit) }</td>
                <td class="num">{ format_bytes(r.estimated, unit) }</td>
                <td class="num">{ shown.unwrap_or_else(|| "—".into()) }</td>
            </tr>
        }
    };
    html! {
        <div class="ledger-wrap">
            <table class="ledger" data-testid={testid}>
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
    }
}

/// The comparison box: a pasted report, or a trace file (`trace`: its reader and what it read,
/// whose curve the timeline draws). `pasted` is the report as typed (the app's state: `Action::SetReport`);
/// `read` is the reader worker's reading of it (`None` while it reads, or for an empty box), compared with
/// `bill` on every render; `oninput` hands the new text to the app, `onload` loads
/// the configuration the report names (its `query`).
#[allow(clippy::too_many_arguments)]
pub fn measured_compare(
    lang: Lang,
    unit: Unit,
    bill: &Bill,
    pasted: &str,
    read: Option<Result<&MemReport, &Msg>>,
    oninput: Callback<String>,
    onload: Callback<String>,
    trace: Html,
) -> Html {
    let oninput =
        Callback::from(move |e: InputEvent| oninput.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value()));
    let body = match read.filter(|_| !pasted.trim().is_empty()) {
        None => html! {},
        Some(Err(e)) => {
            html! { <p class="notice-error" role="alert" data-testid="measured-error">{ crate::i18n::render(lang, e) }</p> }
        }
        Some(Ok(report)) => {
            let rows = compare(report, bill);
            let load = report.query.clone().map(|q| {
                html! {
                    <button type="button" class="link-button" data-testid="measured-load" onclick={move |_| onload.emit(q.clone())}>
                        { text(lang, Text::LoadReportConfig) }
                    </button>
                }
            });
            let rows: Vec<Row> = (rows.iter())
                .map(|r| Row { what: r.what, testid: r.what, measured: r.measured, estimated: r.estimated })
                .collect();
            let table = comparison_table(lang, unit, &rows, "measured-table");
            html! {
                <>
                    <p class="tree-hint">{ format!("{}: {}", text(lang, Text::MeasuredOn), report.device) } { load.unwrap_or_default() }</p>
                    { table }
                </>
            }
        }
    };
    html! {
        <details class="model-import measured" id="measured" data-testid="measured">
            <summary>{ text(lang, Text::MeasuredTitle) }</summary>
            <p class="tree-hint">{ text(lang, Text::MeasuredHint) }</p>
            <p class="tree-hint">{ super::code_spans(text(lang, Text::TraceHowTo)) }</p>
            { trace }
            <textarea data-testid="measured-json" rows="3" spellcheck="false" aria-label={text(lang, Text::MeasuredTitle)}
                placeholder="{\"tool\": \"vram-ledger/mem_report\", …}" {oninput} value={pasted.to_string()} />
            { body }
        </details>
    }
}
