use yew::prelude::*;

use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::{Bill, TotalKind, Verdict};
use crate::ledger::serving::{Serving, ServingStatus};
use crate::ledger::units::{fixed, format_bytes, group, Unit};
use crate::ledger::Scenario;

/// "Serves 16 requests of 32,768 tokens at once (vLLM 0.33)" and its variants.
fn serving_line(lang: Lang, sv: &Serving, v: Verdict) -> Html {
    let engine = match sv.engine {
        crate::ledger::scenario::Engine::Llamacpp => "llama.cpp".to_string(),
        e => format!("{} {}", if e == crate::ledger::scenario::Engine::Vllm { "vLLM" } else { "SGLang" }, sv.version),
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
    html! {
        <dl class="totals serving" data-testid="serving">
            <dt>{ text(lang, Text::ServingTokens) }</dt>
            <dd data-testid="serving-kv-tokens" data-value={sv.kv_tokens.to_string()}>{ group(sv.kv_tokens) }</dd>
            <dt>{ text(lang, Text::ServingConcurrency) }</dt>
            <dd data-testid="serving-concurrency" data-value={fixed(sv.max_concurrency, 2)}>{ format!("{}×", fixed(sv.max_concurrency, 2)) }</dd>
            <dt>{ text(lang, Text::ServingLongest) }</dt>
            <dd data-testid="serving-max-context" data-value={sv.max_context.to_string()}>{ format!("{} {}", group(sv.max_context), if lang == Lang::Zh { "token" } else { "tokens" }) }</dd>
            if sv.host_bytes > 0 {
                <dt>{ text(lang, Text::ServingHost) }</dt>
                <dd data-testid="serving-host">{ format_bytes(sv.host_bytes, unit) }</dd>
            }
        </dl>
    }
}

#[inline(never)]
fn total_dd(testid: &'static str, bytes: u64, (low, high): (u64, u64), unit: Unit) -> Html {
    let range = (low != high).then(|| format!(" {}–{}", format_bytes(low, unit), format_bytes(high, unit)));
    html! {
        <dd data-testid={testid} data-bytes={bytes.to_string()} data-low={low.to_string()} data-high={high.to_string()}>
            { format_bytes(bytes, unit) }<small class="range">{ range }</small>
        </dd>
    }
}

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
    let total = |testid: &'static str, kind: TotalKind, bytes: u64| total_dd(testid, bytes, bill.range(kind), unit);
    let line = match &bill.serving {
        Some(sv) => serving_line(lang, sv, v),
        None => html! {
            <>
                <strong>{ i18n::verdict(lang, v) }</strong>
                { format!(" — {} / {} {} ({amount} {side})", format_bytes(bill.device_bytes(), unit), format_bytes(bill.gpu_bytes, unit), s.gpu.name) }
            </>
        },
    };
    html! {
        <section class={classes!("verdict", class)}>
            <p class="scenario-line" data-testid="scenario">{ i18n::scenario_line(lang, s) }</p>
            <p class="verdict-line" data-testid="verdict" data-fits={bill.fits().to_string()} data-verdict={class}>
                { line }
            </p>
            if let Some(sv) = &bill.serving {
                { serving_figures(lang, unit, sv) }
            }
            <dl class="totals">
                <dt>{ text(lang, Text::Allocated) }</dt>
                { total("total-allocated", TotalKind::Allocated, bill.allocated_bytes()) }
                <dt>{ text(lang, Text::Reserved) }</dt>
                { total("total-reserved", TotalKind::Reserved, bill.reserved_bytes()) }
                <dt>{ text(lang, Text::Device) }</dt>
                { total("total", TotalKind::Device, bill.device_bytes()) }
            </dl>
            if bill.serving.is_none() {
                <p class="verdict-uses">
                    { text(lang, if bill.high_end_decides() { Text::VerdictHighEnd } else { Text::VerdictUses }) }
                </p>
            }
            if !bill.notes.is_empty() {
                <ul class="bill-notes" data-testid="bill-notes">
                    { for bill.notes.iter().map(|n| html! { <li data-key={n.key}>{ render(lang, &n.text) }</li> }) }
                </ul>
            }
        </section>
    }
}
