//! The user's trace over the timeline: a file dropped or chosen is read by the reader worker
//! (`crate::ui::reader_worker`: started on demand, ended after it answers), so the page never
//! holds a 100 MB snapshot and stays responsive, with the progress shown. What it read goes up to the app, which draws the measured curve over the phases and the
//! comparison card below. Nothing of a trace is put into the link.

use std::rc::Rc;

use wasm_bindgen::JsValue;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::code_spans;
use super::measured_compare::{comparison_table, Row};
use crate::i18n::{render, text, trace_category, Lang, Text};
use crate::ledger::msg::{Arg, Msg};
use crate::ledger::phases::Phase;
use crate::ledger::units::{fixed, human_bytes, Unit};
use crate::msg;
use crate::readers::Answer;
use crate::ui::reader_worker;
use crate::validation::trace::{compare, Category, Trace, MAX_TRACE_BYTES};

#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Reading(f64),
    Failed(Msg),
    /// Read: the worker's memory after reading (bytes) and the time it took (ms).
    Read(u64, f64),
}

#[derive(Properties, PartialEq)]
pub struct TraceDropProps {
    pub lang: Lang,
    pub on_trace: Callback<Option<Rc<Trace>>>,
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Gives `payload` (a File) to the reader worker; its progress and answer set `status`, and the
/// trace it read goes to `on_trace`.
fn start(payload: JsValue, status: UseStateHandle<Status>, on_trace: Callback<Option<Rc<Trace>>>) {
    let started = now_ms();
    status.set(Status::Reading(0.0));
    let answer_status = status.clone();
    let started_worker = reader_worker::ask("trace", payload, move |answer| match answer {
        Some(Answer::Progress(p)) => {
            answer_status.set(Status::Reading(crate::ledger::units::within(p, 0.0, 1.0)));
            false
        }
        Some(Answer::Trace(trace, memory)) => {
            answer_status.set(Status::Read(memory, now_ms() - started));
            on_trace.emit(Some(Rc::new(*trace)));
            true
        }
        Some(Answer::Failed(m)) => {
            answer_status.set(Status::Failed(m));
            true
        }
        _ => {
            answer_status.set(Status::Failed(msg!(TraceUnknown)));
            true
        }
    });
    if !started_worker {
        status.set(Status::Failed(msg!(FetchReadFailed, Arg::Text("Web Worker".into()))));
    }
}

#[function_component(TraceDrop)]
pub fn trace_drop(props: &TraceDropProps) -> Html {
    let lang = props.lang;
    let status = use_state(|| Status::Idle);
    let read_file = {
        let (status, on_trace) = (status.clone(), props.on_trace.clone());
        move |file: Option<web_sys::File>| {
            let Some(file) = file else { return };
            // A gzipped trace is bounded again by the worker after decompressing.
            if file.size() > MAX_TRACE_BYTES as f64 {
                status.set(Status::Failed(msg!(
                    TraceTooLarge,
                    Arg::Bytes(file.size()),
                    Arg::Bytes(MAX_TRACE_BYTES as f64)
                )));
                return;
            }
            start(file.into(), status.clone(), on_trace.clone());
        }
    };
    let on_choose = {
        let read_file = read_file.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            read_file(input.files().and_then(|f| f.get(0)));
            input.set_value("");
        })
    };
    let on_drop = Callback::from(move |e: DragEvent| {
        e.prevent_default();
        read_file(e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)));
    });
    let state_line = match &*status {
        Status::Idle => html! {},
        Status::Reading(p) => html! {
            <progress data-testid="trace-progress" max="1" value={fixed(*p, 3)}
                aria-label={format!("{} {} %", text(lang, Text::TraceReading), (p * 100.0).round() as u32)} />
        },
        Status::Failed(m) => {
            html! { <p class="notice-error" role="alert" data-testid="trace-error">{ code_spans(&render(lang, m)) }</p> }
        }
        Status::Read(memory, ms) => html! {
            <span class="tree-hint" data-testid="trace-read" data-memory={memory.to_string()} data-ms={(ms.round() as u64).to_string()}>
                { format!(" {} ms · {}", ms.round() as u64, human_bytes(*memory as f64)) }
            </span>
        },
    };
    html! {
        <label class="field drop-zone" for="trace-file" ondrop={on_drop} ondragover={Callback::from(|e: DragEvent| e.prevent_default())}>
            <span class="field-label">{ text(lang, Text::TraceFile) }</span>
            <input id="trace-file" type="file" data-testid="trace-file" onchange={on_choose} accept=".pickle,.pkl,.json,.gz" />
            { state_line }
        </label>
    }
}

/// The trace beside the ledger, in the measured panel: the trace's facts, per category the
/// measured and predicted bytes at the peaks (the panel's table), and where the two part most.
pub fn trace_comparison(lang: Lang, unit: Unit, trace: &Trace, phases: &[Phase]) -> Html {
    let Some(c) = compare::compare(trace, phases) else { return html! {} };
    let mut facts = format!(
        "{} · {} {} · {} {}",
        trace.format.id(),
        trace.events,
        text(lang, Text::TraceEvents),
        text(lang, Text::TracePeak),
        human_bytes(trace.peak_bytes as f64)
    );
    if let Some(r) = trace.reserved_peak_bytes {
        facts.push_str(&format!(" · {} {}", text(lang, Text::TraceReservedPeak), human_bytes(r as f64)));
    }
    if trace.preexisting_bytes > 0 {
        facts.push_str(&format!(
            " · {} {}",
            text(lang, Text::TracePreexisting),
            human_bytes(trace.preexisting_bytes as f64)
        ));
    }
    let rows: Vec<Row> = (Category::ALL.iter())
        .filter(|k| trace.categories[k.index()] > 0 || c.predicted[k.index()] > 0)
        .map(|&k| Row {
            what: trace_category(lang, k),
            testid: k.id(),
            measured: trace.categories[k.index()],
            estimated: c.predicted[k.index()],
        })
        .collect();
    html! {
        <div data-testid="trace-result" data-diverges={c.diverges_at.id()} data-gap={c.largest_gap.id()}>
            <p class="tree-hint" data-testid="trace-facts">{ facts }</p>
            { comparison_table(lang, unit, &rows, "trace-table") }
            <p class="tree-hint" data-testid="trace-diverges">
                { format!("{} {} · {} {} · {}", text(lang, Text::TracePartsAt), crate::i18n::phase(lang, c.diverges_at),
                    text(lang, Text::TraceLargestGap), trace_category(lang, c.largest_gap), text(lang, Text::TraceNoQuery)) }
            </p>
        </div>
    }
}
