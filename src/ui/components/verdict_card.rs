//! The verdict: static markup, written as one string (yew's element builders for it cost ~1 KB of the
//! gzip download more); every text is escaped.

use std::fmt::Write;

use yew::prelude::*;

use crate::chart::escape_xml;
use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::{Bill, TotalKind, Verdict};
use crate::ledger::serving::{Serving, ServingStatus};
use crate::ledger::units::{fixed, format_bytes, group, Unit};
use crate::ledger::Scenario;

/// "Serves 16 requests of 32,768 tokens at once (vLLM 0.33)" and its variants, as markup.
fn serving_line(lang: Lang, sv: &Serving, v: Verdict) -> String {
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
    format!("<strong>{}</strong>{}", escape_xml(text(lang, head)), escape_xml(&detail))
}

/// KV tokens, requests at once, the longest context, host RAM: what the engine prints at start-up.
fn serving_figures(out: &mut String, lang: Lang, unit: Unit, sv: &Serving) {
    let concurrency = fixed(sv.max_concurrency, 2);
    let _ = write!(
        out,
        r#"<dl class="totals serving" data-testid="serving"><dt>{}</dt><dd data-testid="serving-kv-tokens" data-value="{}">{}</dd><dt>{}</dt><dd data-testid="serving-concurrency" data-value="{concurrency}">{concurrency}×</dd><dt>{}</dt><dd data-testid="serving-max-context" data-value="{}">{} {}</dd>"#,
        escape_xml(text(lang, Text::ServingTokens)),
        sv.kv_tokens,
        group(sv.kv_tokens),
        escape_xml(text(lang, Text::ServingConcurrency)),
        escape_xml(text(lang, Text::ServingLongest)),
        sv.max_context,
        group(sv.max_context),
        if lang == Lang::Zh { "token" } else { "tokens" },
    );
    if sv.host_bytes > 0 {
        let _ = write!(
            out,
            r#"<dt>{}</dt><dd data-testid="serving-host">{}</dd>"#,
            escape_xml(text(lang, Text::ServingHost)),
            escape_xml(&format_bytes(sv.host_bytes, unit))
        );
    }
    out.push_str("</dl>");
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
    let amount = format_bytes(headroom.unsigned_abs(), unit);
    let side = text(lang, if headroom >= 0 { Text::Headroom } else { Text::Over });
    let line = match &bill.serving {
        Some(sv) => serving_line(lang, sv, v),
        None => format!(
            "<strong>{}</strong>{}",
            escape_xml(i18n::verdict(lang, v)),
            escape_xml(&format!(
                " — {} / {} {} ({amount} {side})",
                format_bytes(bill.device_bytes(), unit),
                format_bytes(bill.gpu_bytes, unit),
                s.gpu.name
            ))
        ),
    };
    let mut out = format!(
        r#"<section class="verdict {class}"><p class="scenario-line" data-testid="scenario">{}</p><p class="verdict-line" data-testid="verdict" data-fits="{}" data-verdict="{class}">{line}</p>"#,
        escape_xml(&i18n::scenario_line(lang, s)),
        bill.fits(),
    );
    if let Some(sv) = &bill.serving {
        serving_figures(&mut out, lang, unit, sv);
    }
    out.push_str(r#"<dl class="totals">"#);
    for (label, testid, kind, bytes) in [
        (Text::Allocated, "total-allocated", TotalKind::Allocated, bill.allocated_bytes()),
        (Text::Reserved, "total-reserved", TotalKind::Reserved, bill.reserved_bytes()),
        (Text::Device, "total", TotalKind::Device, bill.device_bytes()),
    ] {
        let (low, high) = bill.range(kind);
        let range = if low != high {
            format!(" {}–{}", format_bytes(low, unit), format_bytes(high, unit))
        } else {
            String::new()
        };
        let _ = write!(
            out,
            r#"<dt>{}</dt><dd data-testid="{testid}" data-bytes="{bytes}" data-low="{low}" data-high="{high}">{}<small class="range">{}</small></dd>"#,
            escape_xml(text(lang, label)),
            escape_xml(&format_bytes(bytes, unit)),
            escape_xml(&range),
        );
    }
    out.push_str("</dl>");
    if bill.serving.is_none() {
        let uses = if bill.high_end_decides() { Text::VerdictHighEnd } else { Text::VerdictUses };
        let _ = write!(out, r#"<p class="verdict-uses">{}</p>"#, escape_xml(text(lang, uses)));
    }
    if !bill.notes.is_empty() {
        out.push_str(r#"<ul class="bill-notes" data-testid="bill-notes">"#);
        for n in &bill.notes {
            let _ = write!(out, r#"<li data-key="{}">{}</li>"#, escape_xml(n.key), escape_xml(&render(lang, &n.text)));
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>");
    super::markup(out)
}
