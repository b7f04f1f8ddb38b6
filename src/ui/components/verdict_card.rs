//! The verdict: the model and configuration, fits / does not fit (or, served by an engine, whether
//! it serves the requests asked for), the engine's start-up figures, the three totals with their
//! ranges, and the bill's notes.

use yew::prelude::*;

use super::code_spans;
use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::{Bill, Serving, ServingStatus, TotalKind, Verdict};
use crate::ledger::scenario::Engine;
use crate::ledger::units::{fixed, format_bytes, group, Unit};
use crate::ledger::Scenario;

/// "Serves 16 requests of 32,768 tokens at once (vLLM 0.33)" and its variants.
fn serving_line(lang: Lang, sv: &Serving, v: Verdict) -> Html {
    let engine = match sv.engine {
        Engine::Llamacpp => sv.engine.name().to_string(),
        e => format!("{} {}", e.name(), sv.version),
    };
    let (head, detail) = match (sv.status, v) {
        (_, Verdict::Fits) => (
            Text::ServingServes,
            match lang {
                Lang::Zh => format!(" — 同时 {} 个 {} token 的请求({engine})", sv.requests, group(sv.context_tokens)),
                Lang::En => {
                    format!(" — {} request(s) of {} tokens at once ({engine})", sv.requests, group(sv.context_tokens))
                }
            },
        ),
        (ServingStatus::Queues { concurrent }, _) => (
            Text::ServingQueues,
            match lang {
                Lang::Zh => format!(" — {} 个请求中同时只能跑 {concurrent} 个({engine})", sv.requests),
                Lang::En => format!(" — {concurrent} of {} at once ({engine})", sv.requests),
            },
        ),
        _ => (Text::ServingFails, format!(" ({engine})")),
    };
    html! { <><strong>{ text(lang, head) }</strong>{ detail }</> }
}

/// KV tokens, requests at once, the longest context, host RAM: what the engine prints at start-up.
fn serving_figures(lang: Lang, unit: Unit, sv: &Serving) -> Html {
    let concurrency = fixed(sv.max_concurrency, 2);
    let tokens = if lang == Lang::Zh { "token" } else { "tokens" };
    html! {
        <dl class="totals serving" data-testid="serving">
            <dt>{ text(lang, Text::ServingTokens) }</dt>
            <dd data-testid="serving-kv-tokens" data-value={sv.kv_tokens.to_string()}>{ group(sv.kv_tokens) }</dd>
            <dt>{ text(lang, Text::ServingConcurrency) }</dt>
            <dd data-testid="serving-concurrency" data-value={concurrency.clone()}>{ format!("{concurrency}×") }</dd>
            <dt>{ text(lang, Text::ServingLongest) }</dt>
            <dd data-testid="serving-max-context" data-value={sv.max_context.to_string()}>{ format!("{} {tokens}", group(sv.max_context)) }</dd>
            if sv.host_bytes > 0 {
                <dt>{ text(lang, Text::ServingHost) }</dt>
                <dd data-testid="serving-host">{ format_bytes(sv.host_bytes, unit) }</dd>
            }
        </dl>
    }
}

/// One of the three totals with its low–high range.
fn total(lang: Lang, unit: Unit, bill: &Bill, label: Text, testid: &'static str, kind: TotalKind, bytes: u64) -> Html {
    let (low, high) = bill.range(kind);
    let range = (low != high).then(|| format!(" {}–{}", format_bytes(low, unit), format_bytes(high, unit)));
    html! {
        <>
            <dt>{ text(lang, label) }</dt>
            <dd data-testid={testid} data-bytes={bytes.to_string()} data-low={low.to_string()} data-high={high.to_string()}>
                { format_bytes(bytes, unit) }<small class="range">{ range.unwrap_or_default() }</small>
            </dd>
        </>
    }
}

/// The model, the three totals, and fits / does not fit against the GPU. `pending`: the reader
/// worker has not yet answered for this configuration (what is shown is its last answer or the
/// placeholder), which the section says in `data-pending`.
pub fn verdict_card(lang: Lang, unit: Unit, s: &Scenario, bill: &Bill, pending: bool) -> Html {
    let v = bill.verdict();
    let class = match v {
        Verdict::Fits => "fits",
        Verdict::FitsWithoutMargin => "tight",
        Verdict::DoesNotFit => "oom",
    };
    let headroom = bill.headroom_bytes();
    let amount = format_bytes(headroom.unsigned_abs(), unit);
    let side = text(lang, if headroom >= 0 { Text::Headroom } else { Text::Over });
    let line = match &bill.serving {
        Some(sv) => serving_line(lang, sv, v),
        None => html! {
            <>
                <strong>{ i18n::verdict(lang, v) }</strong>
                { format!(
                    " — {} / {} {} ({amount} {side})",
                    format_bytes(bill.device_bytes(), unit),
                    format_bytes(bill.gpu_bytes, unit),
                    s.gpu.name
                ) }
            </>
        },
    };
    let uses = if bill.high_end_decides() { Text::VerdictHighEnd } else { Text::VerdictUses };
    html! {
        <section class={classes!("verdict", class)} data-pending={pending.then_some("1")}>
            <p class="scenario-line" data-testid="scenario">{ i18n::scenario_line(lang, s, bill.parameters) }</p>
            <p class="verdict-line" data-testid="verdict" data-fits={bill.fits().to_string()} data-verdict={class}>{ line }</p>
            if let Some(sv) = &bill.serving { { serving_figures(lang, unit, sv) } }
            <dl class="totals">
                { total(lang, unit, bill, Text::Allocated, "total-allocated", TotalKind::Allocated, bill.allocated_bytes()) }
                { total(lang, unit, bill, Text::Reserved, "total-reserved", TotalKind::Reserved, bill.reserved_bytes()) }
                { total(lang, unit, bill, Text::Device, "total", TotalKind::Device, bill.device_bytes()) }
            </dl>
            if bill.serving.is_none() { <p class="verdict-uses">{ text(lang, uses) }</p> }
            if !bill.notes.is_empty() {
                <ul class="bill-notes" data-testid="bill-notes">
                    { for bill.notes.iter().map(|n| html! { <li data-key={n.key}>{ code_spans(&render(lang, &n.text)) }</li> }) }
                </ul>
            }
        </section>
    }
}
