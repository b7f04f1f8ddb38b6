//! Renderings of a bill for people (a text table) and programs (JSON, schema 1).

use serde_json::{json, Value};

use crate::ledger::bill::{Bill, TotalKind, Verdict, MARGIN};
use crate::ledger::fit::{self, CardRow, CARD_ASSUMPTIONS};
use crate::ledger::scenario::Scenario;
use crate::ledger::serving::{Serving, ServingStatus};
use crate::ledger::units::{format_bytes, group, params_short, Unit};

/// `{"schema":1, "model":{"id","name","parameters","architecture"}, "allocated_bytes", "reserved_bytes",
/// "device_bytes", "gpu", "fits", "verdict", "components":[{"id","bytes","formula","section"}], "notes"}`.
/// The components sum to device_bytes; `architecture` is every shape field the ledger used.
/// Inference on a serving engine adds `serving` ([`serving_json`]); it is `null` otherwise.
pub fn to_json(s: &Scenario, bill: &Bill) -> Value {
    json!({
        "schema": 1,
        "model": {
            "id": s.model_id,
            "name": s.architecture.name,
            "parameters": s.architecture.parameters(),
            "architecture": &s.architecture,
        },
        "allocated_bytes": bill.allocated_bytes(),
        "reserved_bytes": bill.reserved_bytes(),
        "device_bytes": bill.device_bytes(),
        "gpu": { "id": s.gpu.id.unwrap_or("custom"), "name": s.gpu.name, "bytes": s.gpu.bytes },
        "fits": bill.fits(),
        "verdict": bill.verdict(),
        "verdict_uses": TotalKind::Device,
        "components": bill.components.iter().map(|c| json!({
            "id": c.id.id(),
            "bytes": c.bytes,
            "formula": c.formula.to_string(),
            "section": c.section,
        })).collect::<Vec<_>>(),
        "notes": bill.notes.iter().map(|n| json!({"key": n.key, "text": n.text.to_string()})).collect::<Vec<_>>(),
        "serving": bill.serving.as_ref().map(serving_json),
    })
}

/// The `serving` object (its names are a public contract, like the query keys).
pub fn serving_json(s: &Serving) -> Value {
    json!({
        "engine": s.engine.id(),
        "engine_version": s.version.to_string(),
        "budget_bytes": s.budget_bytes,
        "weights_bytes": s.weights_bytes,
        "non_torch_bytes": s.non_torch_bytes,
        "activation_peak_bytes": s.activation_peak_bytes,
        "cuda_graph_bytes": s.cuda_graph_bytes,
        "kv_pool_bytes": s.kv_pool_bytes,
        "kv_tokens": s.kv_tokens,
        "kv_blocks": s.kv_blocks,
        "max_concurrency": (s.max_concurrency * 100.0).round() / 100.0,
        "max_context": s.max_context,
        "host_bytes": s.host_bytes,
        "context_tokens": s.context_tokens,
        "requests": s.requests,
        "starts": s.status.starts(),
    })
}

fn serving_text(s: &Serving, unit: Unit) -> String {
    let mut out = format!(
        "\n{} {}: budget {}, KV pool {}, {} KV tokens{}\nmax concurrency for {} tokens per request: {:.2}x; longest context for {} request(s): {} tokens\n",
        s.engine.id(),
        s.version,
        format_bytes(s.budget_bytes, unit),
        format_bytes(s.kv_pool_bytes, unit),
        group(s.kv_tokens),
        s.kv_blocks.map(|b| format!(" ({} blocks)", group(b))).unwrap_or_default(),
        group(s.context_tokens),
        (s.max_concurrency * 100.0).round() / 100.0,
        s.requests,
        group(s.max_context)
    );
    if s.host_bytes > 0 {
        out.push_str(&format!("host RAM: {}\n", format_bytes(s.host_bytes, unit)));
    }
    out
}

fn verdict_text(bill: &Bill, unit: Unit) -> String {
    if let Some(s) = &bill.serving {
        return match (s.status, bill.verdict()) {
            (_, Verdict::Fits) => {
                format!("SERVES {} request(s) of {} tokens at once", s.requests, group(s.context_tokens))
            }
            (ServingStatus::Queues { concurrent }, _) => {
                format!("STARTS, {concurrent} of {} requests at once (the rest queue)", s.requests)
            }
            _ => "DOES NOT START".to_string(),
        };
    }
    let headroom = bill.headroom_bytes();
    let amount = format_bytes(headroom.unsigned_abs().min(u64::MAX as u128) as u64, unit);
    match bill.verdict() {
        Verdict::Fits => format!("FITS with the {:.0} % margin ({amount} free)", MARGIN * 100.0),
        Verdict::FitsWithoutMargin => {
            format!("FITS WITHOUT THE MARGIN ({amount} free, less than {:.0} % of the card)", MARGIN * 100.0)
        }
        Verdict::DoesNotFit => format!("DOES NOT FIT ({amount} over)"),
    }
}

/// A readable table: one line per non-zero component, its formula below it, then the totals.
pub fn to_table(s: &Scenario, bill: &Bill, unit: Unit) -> String {
    let a = &s.architecture;
    let mut out = String::new();
    out.push_str(&format!(
        "{} ({} params) · {} · {}\n",
        a.name,
        params_short(a.parameters()),
        describe_mode(s),
        s.gpu.name
    ));
    out.push_str(&format!("{:<20} {:>14} {:>7}  formula\n", "component", unit.label(), "share"));
    let device = bill.device_bytes().max(1) as f64;
    for c in bill.components.iter().filter(|c| c.bytes > 0) {
        out.push_str(&format!(
            "{:<20} {:>14} {:>6.1}%  {}\n",
            c.id.id(),
            format_bytes(c.bytes, unit).trim_end_matches(unit.label()).trim(),
            100.0 * c.bytes as f64 / device,
            c.formula
        ));
    }
    out.push_str(&format!(
        "\nallocated (torch max_memory_allocated)  {}\nreserved  (torch max_memory_reserved)   {}\ndevice    (nvidia-smi)                  {}\nGPU                                     {}\nverdict (device total vs GPU): {}\n",
        format_bytes(bill.allocated_bytes(), unit),
        format_bytes(bill.reserved_bytes(), unit),
        format_bytes(bill.device_bytes(), unit),
        format_bytes(bill.gpu_bytes, unit),
        verdict_text(bill, unit)
    ));
    if let Some(sv) = &bill.serving {
        out.push_str(&serving_text(sv, unit));
    }
    for n in &bill.notes {
        out.push_str(&format!("note: {}\n", n.text));
    }
    out
}

pub fn describe_mode(s: &Scenario) -> String {
    use crate::ledger::scenario::{Method, Mode};
    match s.mode {
        Mode::Infer => format!(
            "inference{}, {} weights, {} + {} tokens × {}",
            match s.serving.engine {
                crate::ledger::scenario::Engine::Hf => String::new(),
                e => format!(" on {}", e.id()),
            },
            s.quant.id(),
            group(s.sequence_tokens()),
            group(s.generated),
            s.batch
        ),
        Mode::Train => {
            let method = match s.method {
                Method::Full => format!("full fine-tune ({})", s.precision.id()),
                Method::Lora => format!("LoRA r={} {} on {}", s.rank, s.targets.id(), s.quant.id()),
                Method::Qlora => format!("QLoRA r={} {} on {}", s.rank, s.targets.id(), s.quant.id()),
            };
            format!(
                "{method}, {}, seq {} × batch {}{}",
                s.optimizer.id(),
                group(s.sequence_tokens()),
                s.batch,
                if s.gradient_checkpointing { ", checkpointing" } else { "" }
            )
        }
    }
}

/// The speed card as a Markdown table.
pub fn card_markdown(rows: &[CardRow]) -> String {
    let mut out = String::from("| GPU |");
    for c in fit::CardColumn::ALL {
        out.push_str(&format!(" {} |", c.label()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(fit::CardColumn::ALL.len()));
    out.push('\n');
    for row in rows {
        out.push_str(&format!("| {} ({}) |", row.gpu.name, format_bytes(row.gpu.bytes, Unit::GiB)));
        for cell in &row.cells {
            match &cell.model {
                Some((id, p)) => out.push_str(&format!(" {id} ({}) |", params_short(*p))),
                None => out.push_str(" none |"),
            }
        }
        out.push('\n');
    }
    out.push_str(&format!("\nAssumptions: {CARD_ASSUMPTIONS}.\n"));
    out
}

/// The bill as a Markdown table, for the "compute and time" section of a project proposal
/// (chapter 7.1, homework 3). `name` gives each component's name in the reader's language;
/// `headers` are (component, size, share, formula).
pub fn bill_markdown(
    title: &str,
    bill: &Bill,
    unit: Unit,
    name: impl Fn(crate::ledger::bill::ComponentId) -> String,
    formula: impl Fn(&crate::ledger::msg::Msg) -> String,
    headers: [&str; 4],
    total_label: &str,
) -> String {
    let cell = |t: &str| t.replace('|', "\\|").replace('\n', " ");
    let device = bill.device_bytes().max(1) as f64;
    let mut out = format!(
        "**{}**\n\n| {} | {} | {} | {} |\n|---|---:|---:|---|\n",
        cell(title),
        headers[0],
        headers[1],
        headers[2],
        headers[3]
    );
    for c in bill.components.iter().filter(|c| c.bytes > 0) {
        out.push_str(&format!(
            "| {} | {} | {} % | `{}` |\n",
            cell(&name(c.id)),
            format_bytes(c.bytes, unit),
            crate::ledger::units::fixed(100.0 * c.bytes as f64 / device, 1),
            cell(&formula(&c.formula)).replace('`', "'")
        ));
    }
    out.push_str(&format!(
        "| **{}** | **{}** | 100 % | |\n",
        cell(total_label),
        format_bytes(bill.device_bytes(), unit)
    ));
    out
}
