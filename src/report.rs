//! Renderings of a bill for people (a text table) and programs (JSON, schema 1).

use serde_json::{json, Value};

use crate::i18n::plain;
use crate::ledger::bill::{Bill, TotalKind, Verdict, MARGIN};
use crate::ledger::bill::{ParallelSummary, PoolKind, Serving, ServingStatus};
use crate::ledger::fit::{self, CardRow, CARD_ASSUMPTIONS};
use crate::ledger::phases::{self, Phase};
use crate::ledger::rl::RlSummary;
use crate::ledger::scenario::Scenario;
use crate::ledger::units::{format_bytes, group, human_bytes, params_short, Unit};
use crate::validation::trace::{compare, Trace};

/// `{"schema":1, "model":{"id","name","parameters","architecture"}, "allocated_bytes", "reserved_bytes",
/// "device_bytes", "gpu", "fits", "verdict", "components":[{"id","bytes","formula","section"}], "notes"}`.
/// The components sum to device_bytes; `architecture` is every shape field the ledger used.
/// Inference on a serving engine adds `serving` ([`serving_json`]); it is `null` otherwise.
/// `phases` are the step's moments in time order ([`phases_json`]) and `peak_phase` the name of the
/// one whose totals are the bill's.
pub fn to_json(s: &Scenario, bill: &Bill) -> Value {
    let range = |kind| {
        let (low, high) = bill.range(kind);
        json!([low, high])
    };
    let phases = phases::of(bill);
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
        "allocated_range": range(TotalKind::Allocated),
        "reserved_range": range(TotalKind::Reserved),
        "device_range": range(TotalKind::Device),
        "gpu": { "id": s.gpu.id.unwrap_or("custom"), "name": s.gpu.name, "bytes": s.gpu.bytes },
        "fits": bill.fits(),
        "verdict": bill.verdict(),
        "verdict_uses": TotalKind::Device,
        // The point against the 20 % margin, and the high end of the device range against the card.
        "verdict_end": if bill.high_end_decides() { "high" } else { "point" },
        "components": bill.components.iter().map(|c| json!({
            "id": c.id.id(),
            "bytes": c.bytes,
            "formula": c.formula.to_string(),
            "section": c.section,
        })).collect::<Vec<_>>(),
        "notes": bill.notes.iter().map(|n| json!({"key": n.key, "text": n.text.to_string()})).collect::<Vec<_>>(),
        "serving": bill.serving.as_ref().map(serving_json),
        "rl": bill.rl.as_ref().map(rl_json),
        "parallel": bill.parallel.as_ref().map(|p| parallel_json(p, GridKind::of(bill))),
        "phases": phases_json(&phases),
        "peak_phase": phases::peak(&phases).map(|p| p.name.id()),
    })
}

/// `[{"name", "allocated_bytes", "reserved_bytes", "device_bytes", "components": {id: bytes}}]`.
pub fn phases_json(phases: &[Phase]) -> Value {
    phases
        .iter()
        .map(|p| {
            let components: serde_json::Map<String, Value> =
                p.components.iter().map(|(id, b)| (id.id().to_string(), json!(b))).collect();
            json!({
                "name": p.name.id(),
                "allocated_bytes": p.total(TotalKind::Allocated),
                "reserved_bytes": p.total(TotalKind::Reserved),
                "device_bytes": p.total(TotalKind::Device),
                "components": components,
            })
        })
        .collect()
}

/// The phases as a table: one line per phase with its three totals and its largest components,
/// the peak marked.
pub fn phases_table(bill: &Bill, unit: Unit) -> String {
    let phases = phases::of(bill);
    let peak = phases::peak(&phases).map(|p| p.name);
    let mut out = format!("{:<16} {:>14} {:>14} {:>14}  largest\n", "phase", "allocated", "reserved", "device");
    for p in &phases {
        let mut largest: Vec<&(crate::ledger::ComponentId, u64)> =
            p.components.iter().filter(|(id, _)| id.layer() == TotalKind::Allocated).collect();
        largest.sort_by_key(|(_, b)| std::cmp::Reverse(*b));
        let named: Vec<String> =
            largest.iter().take(3).map(|(id, b)| format!("{} {}", id.id(), format_bytes(*b, unit))).collect();
        out.push_str(&format!(
            "{:<16} {:>14} {:>14} {:>14}  {}{}\n",
            p.name.id(),
            format_bytes(p.total(TotalKind::Allocated), unit),
            format_bytes(p.total(TotalKind::Reserved), unit),
            format_bytes(p.total(TotalKind::Device), unit),
            named.join(", "),
            if peak == Some(p.name) { "  ← peak" } else { "" }
        ));
    }
    out
}

/// What a bill's `parallel` object is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridKind {
    /// A Megatron-style training grid, with its pipeline schedule.
    Training,
    /// A serving engine's grid: its worst rank is the stage that binds the KV pool.
    Served,
    /// `generate()` over accelerate's `device_map="auto"`: one GPU works at a time.
    DeviceMap,
}

impl GridKind {
    pub fn of(bill: &Bill) -> GridKind {
        match (&bill.serving, &bill.timeline) {
            (Some(_), _) => GridKind::Served,
            (None, crate::ledger::bill::Timeline::Generate { .. }) => GridKind::DeviceMap,
            _ => GridKind::Training,
        }
    }
}

/// The `parallel` object of a training or served grid or a device map (its names are a public
/// contract: issue 28); only a training grid has a schedule; `allocated_sum` adds up every GPU's
/// `max_memory_allocated`.
pub fn parallel_json(p: &ParallelSummary, kind: GridKind) -> Value {
    let l = &p.layout;
    let served = kind != GridKind::Training;
    json!({
        "tp": l.tp, "pp": l.pp, "ep": l.ep, "etp": l.etp, "cp": l.cp, "dp": l.dp,
        "sp": l.sp, "dist_optim": l.dist_optim, "schedule": (!served).then(|| l.schedule.id()), "gpus": l.gpus(),
        "mtp_layers": (!served).then_some(l.mtp_layers),
        "billed_stage": p.billed_stage,
        "worst_rank": { "stage": p.worst_stage, "bytes": p.worst_bytes },
        "ranks": p.ranks.iter().map(|r| json!({
            "stage": r.stage,
            "layers": r.layers,
            "weights_bytes": r.weights_bytes,
            "activations_bytes": r.activations_bytes,
            "allocated_bytes": r.allocated_bytes,
            "device_bytes": r.device_bytes,
        })).collect::<Vec<_>>(),
        "allocated_sum": p.allocated_sum(),
    })
}

fn parallel_text(p: &ParallelSummary, unit: Unit, kind: GridKind) -> String {
    let l = &p.layout;
    let how = match kind {
        GridKind::Served => "served: the engine takes the fewest KV blocks of any stage".to_string(),
        GridKind::DeviceMap => format!(
            "generate() over device_map=\"auto\": one GPU at a time; the GPUs' peaks add up to {} allocated",
            format_bytes(p.allocated_sum(), unit)
        ),
        GridKind::Training => format!("schedule {}", l.schedule.id()),
    };
    let mut out = format!(
        "\ngrid tp {} · pp {} · ep {} · etp {} · cp {} · dp {} = {} GPUs{}{} ({how})\n{:<7} {:>6} {:>14} {:>14} {:>14} {:>14}\n",
        l.tp, l.pp, l.ep, l.etp, l.cp, l.dp, l.gpus(),
        if l.sp { ", sequence parallel" } else { "" },
        if l.dist_optim { ", distributed optimizer" } else { "" },
        "stage", "layers", "weights", "activations", "allocated", "device"
    );
    let worst = if kind == GridKind::Served { "binds the pool" } else { "worst" };
    for r in &p.ranks {
        out.push_str(&format!(
            "{:<7} {:>6} {:>14} {:>14} {:>14} {:>14}{}\n",
            r.stage,
            r.layers,
            format_bytes(r.weights_bytes, unit),
            format_bytes(r.activations_bytes, unit),
            format_bytes(r.allocated_bytes, unit),
            format_bytes(r.device_bytes, unit),
            match (r.stage == p.worst_stage, r.stage == p.billed_stage) {
                (true, true) => format!("  ← {worst}, billed above"),
                (true, false) => format!("  ← {worst}"),
                (false, true) => "  ← billed above".to_string(),
                _ => String::new(),
            }
        ));
    }
    out
}

/// Which routed experts a GPU of the grid holds (issue 28: "which GPU holds which experts"): whole
/// experts over the expert-parallel group, placed as vLLM's `determine_expert_map` and Megatron's
/// local expert indices place them (contiguous; with a remainder, the first ranks one more), and a
/// slice of each expert's matrices over expert tensor parallel, or, for an engine without expert
/// parallel, over its tp × dp GPUs. `None` for a dense model and for a device map (whole layers).
pub fn experts_text(s: &Scenario, kind: GridKind) -> Option<String> {
    experts_msg(s, kind).map(|m| format!("{}\n", crate::i18n::render(crate::i18n::Lang::En, &m)))
}

/// Which experts each GPU of a grid holds, as a message (the CLI's line, the page's grid view):
/// whole experts over the expert-parallel group, contiguous, the first ranks one more when they
/// do not divide; each expert's matrices sliced over what is left.
pub fn experts_msg(s: &Scenario, kind: GridKind) -> Option<crate::ledger::msg::Msg> {
    use crate::ledger::msg::{Arg, Msg, MsgId};
    let experts = s.architecture.moe.as_ref()?.experts;
    let l = &s.layout;
    let (group, slices) = match kind {
        GridKind::Training => (l.ep, l.etp),
        GridKind::Served => {
            let tp = s.inference_tp();
            match crate::ledger::serving::grid::expert_group(s.serving.engine, tp, l.dp, l.ep) {
                1 => (1, tp.saturating_mul(l.dp)),
                group => (group, 1),
            }
        }
        GridKind::DeviceMap => return None,
    };
    let group = group.clamp(1, experts.max(1));
    let (base, extra) = (experts / group, experts % group);
    // Rank r's first and last expert.
    let held = |r: u64| {
        let start = r * base + r.min(extra);
        (Arg::Int(start), Arg::Int(start + base + u64::from(r < extra) - 1))
    };
    let sliced =
        if slices > 1 { Msg::new(MsgId::GridExpertsSliced, vec![Arg::Int(slices)]) } else { Msg::plain(MsgId::Empty) };
    Some(if group > 1 {
        let ((a, b), (c, d)) = (held(0), held(group - 1));
        Msg::new(
            MsgId::GridExpertsWhole,
            vec![Arg::Int(experts), Arg::Int(group), a, b, Arg::Int(group - 1), c, d, sliced.arg()],
        )
    } else {
        Msg::new(MsgId::GridExpertsEach, vec![Arg::Int(experts), sliced.arg()])
    })
}

/// The `rl` object of a preference or RL step (its names are a public contract).
pub fn rl_json(r: &RlSummary) -> Value {
    json!({
        "objective": r.objective.id(),
        "rollout": r.rollout.map(|x| x.id()),
        "sequences_per_step": r.sequences_per_step,
        "rollout_weights_bytes": r.rollout_weights_bytes,
        "rollout_pool_bytes": r.rollout_pool_bytes,
        "rollout_kv_tokens": r.rollout_kv_tokens,
        "reference_bytes": r.reference_bytes,
        "critic_bytes": r.critic_bytes,
        "reward_bytes": r.reward_bytes,
        "peak_phase": r.peak_phase.id(),
        "engine_starts": !r.engine_fails,
    })
}

fn rl_text(r: &RlSummary, unit: Unit) -> String {
    let mut out = format!(
        "
{} ({} sequences per GPU per step): peak in {}",
        r.objective.id(),
        group(r.sequences_per_step),
        r.peak_phase.id()
    );
    if let Some(rollout) = r.rollout {
        out.push_str(&format!(
            "; rollout {}: weights {}, KV {} ({} tokens){}",
            rollout.id(),
            format_bytes(r.rollout_weights_bytes, unit),
            format_bytes(r.rollout_pool_bytes, unit),
            group(r.rollout_kv_tokens),
            if r.engine_fails { ", the engine does not start" } else { "" }
        ));
    }
    for (name, bytes) in [("reference", r.reference_bytes), ("critic", r.critic_bytes), ("reward", r.reward_bytes)] {
        if bytes > 0 {
            out.push_str(&format!("; {name} {}", format_bytes(bytes, unit)));
        }
    }
    out.push('\n');
    out
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
        "pools": s.pools().map(|p| json!({"kind": p.kind.id(), "bytes": p.bytes, "tokens": p.tokens})).collect::<Vec<_>>(),
        "effective_concurrency": (s.effective_concurrency * 100.0).round() / 100.0,
        "kv_cache_memory_bytes": s.kv_cache_memory_bytes,
        "draft_bytes": s.draft_bytes,
        "lora_bytes": s.lora_bytes,
    })
}

fn serving_text(s: &Serving, unit: Unit) -> String {
    let mut out = format!(
        "\n{} {}: budget {}, KV pool {}, {} KV tokens{}\nmax concurrency for {} tokens per request: {:.2}x; longest context for {} request(s): {} tokens\n",
        s.engine.name(),
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
    if s.pools().count() > 1 {
        let pools: Vec<String> = s
            .pools()
            .map(|p| {
                let what = if p.kind == PoolKind::State { "states" } else { "tokens" };
                format!("{} {} ({} {what})", p.kind.id(), format_bytes(p.bytes, unit), group(p.tokens))
            })
            .collect();
        out.push_str(&format!("pools: {}\n", pools.join(", ")));
    }
    if s.kv_cache_memory_bytes > 0 {
        out.push_str(&format!(
            "--kv-cache-memory that reproduces this plan: {} ({} bytes)\n",
            format_bytes(s.kv_cache_memory_bytes, unit),
            s.kv_cache_memory_bytes
        ));
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
    let amount = format_bytes(headroom.unsigned_abs(), unit);
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
            plain(&c.formula.to_string())
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
    if let Some(r) = &bill.rl {
        out.push_str(&rl_text(r, unit));
    }
    if let Some(p) = &bill.parallel {
        let kind = GridKind::of(bill);
        out.push_str(&parallel_text(p, unit, kind));
        out.push_str(&experts_text(s, kind).unwrap_or_default());
    }
    let phases = phases::of(bill);
    if let Some(peak) = phases::peak(&phases) {
        let names: Vec<&str> = phases.iter().map(|p| p.name.id()).collect();
        out.push_str(&format!("peak phase: {} (of {}; --phases shows each)\n", peak.name.id(), names.join(", ")));
    }
    for n in &bill.notes {
        out.push_str(&format!("note: {}\n", plain(&n.text.to_string())));
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
                e => format!(" on {}", e.name()),
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
            use crate::ledger::scenario::Objective;
            let step = match s.rl.objective {
                Objective::Sft => format!("seq {} × batch {}", group(s.sequence_tokens()), s.batch),
                Objective::Dpo => format!("dpo, seq {} × batch {} pairs", group(s.sequence_tokens()), s.batch),
                o => format!(
                    "{}, {} prompt + {} completion × batch {}, rollout {}",
                    o.id(),
                    group(s.rl.prompt_len),
                    group(s.rl.completion_len),
                    s.batch,
                    s.rl.rollout.id()
                ),
            };
            format!(
                "{method}, {}, {step}{}",
                s.optimizer.id(),
                if s.checkpointing.is_on() { ", checkpointing" } else { "" }
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

/// The diagnosis of a paste as JSON (`vram-ledger --diagnose FILE --json`; the names are a public
/// contract): `{"format", "formats", "numbers": {"tried_to_allocate_bytes", "total_bytes",
/// "free_bytes", "process_bytes", "other_processes_bytes", "allocated_bytes",
/// "reserved_unallocated_bytes", …}, "diagnosis", "node", "path", "levers": [{"kind", "id", "text",
/// "text_zh", "saves_bytes" | "max_concurrency", "max_context"}], "why", "why_zh"}`. Numbers not
/// in the paste are left out; the paste itself is never echoed.
pub fn paste_json(p: &crate::tree::paste::Pasted) -> Value {
    use crate::i18n::{render, Lang};
    use crate::tree::paste::Advice;
    let n = &p.reading.numbers;
    let mut numbers = serde_json::Map::new();
    let mut put = |name: &str, v: Option<f64>| {
        if let Some(v) = v.filter(|v| v.is_finite()) {
            // Bytes and tokens are whole; a utilization keeps its decimals.
            let value = if v.fract() == 0.0 && v.abs() < 9.0e15 { json!(v as i64) } else { json!(v) };
            numbers.insert(name.to_string(), value);
        }
    };
    put("tried_to_allocate_bytes", n.tried_to_allocate.map(f64::round));
    put("total_bytes", n.total.map(f64::round));
    put("free_bytes", n.free.map(f64::round));
    put("process_bytes", n.process.map(f64::round));
    put("other_processes_bytes", p.other_processes.map(f64::round));
    put("allocated_bytes", n.allocated.map(f64::round));
    put("reserved_bytes", n.reserved.map(f64::round));
    put("reserved_unallocated_bytes", n.reserved_unallocated.map(f64::round));
    put("private_pools_bytes", n.private_pools.map(f64::round));
    put("allowed_bytes", n.allowed.map(f64::round));
    put("smi_used_bytes", n.smi_used.map(f64::round));
    put("smi_total_bytes", n.smi_total.map(f64::round));
    put("peak_allocated_bytes", n.peak_allocated.map(f64::round));
    put("peak_reserved_bytes", n.peak_reserved.map(f64::round));
    put("mps_allocated_bytes", n.mps_allocated.map(f64::round));
    put("mps_other_bytes", n.mps_other.map(f64::round));
    put("mps_max_allowed_bytes", n.mps_max_allowed.map(f64::round));
    put("max_model_len", n.max_model_len);
    put("kv_tokens", n.kv_tokens);
    put("kv_needed_bytes", n.kv_needed.map(f64::round));
    put("kv_available_bytes", n.kv_available.map(f64::round));
    put("estimated_max_len", n.estimated_max_len);
    put("requested_bytes", n.requested.map(f64::round));
    put("utilization", n.utilization);
    put("weights_bytes", n.weights.map(f64::round));
    put("llama_alloc_bytes", n.llama_alloc.map(f64::round));
    put("steps_done", n.steps_done);
    // The contract's seven are always present (null when the paste does not say); the rest only when read.
    for name in [
        "tried_to_allocate_bytes",
        "total_bytes",
        "free_bytes",
        "process_bytes",
        "other_processes_bytes",
        "allocated_bytes",
        "reserved_unallocated_bytes",
    ] {
        numbers.entry(name).or_insert(Value::Null);
    }
    if !n.processes.is_empty() {
        let list: Vec<Value> =
            n.processes.iter().map(|(pid, b)| json!({"pid": pid, "bytes": b.round() as i64})).collect();
        numbers.insert("processes".into(), Value::Array(list));
    }
    if !n.smi_processes.is_empty() {
        let list: Vec<Value> = n
            .smi_processes
            .iter()
            .map(|(gpu, pid, b)| json!({"gpu": gpu, "pid": pid, "bytes": b.round() as i64}))
            .collect();
        numbers.insert("smi_processes".into(), Value::Array(list));
    }
    let levers: Vec<Value> = p
        .advice
        .iter()
        .map(|a| match a {
            Advice::Saves { lever, bytes } => json!({
                "kind": "saves", "id": lever.id(), "text": lever.label().en, "text_zh": lever.label().zh, "saves_bytes": bytes,
            }),
            Advice::Serves { lever, concurrency, max_context } => json!({
                "kind": "serves", "id": lever.id(), "text": lever.label().en, "text_zh": lever.label().zh,
                "max_concurrency": (concurrency * 100.0).round() / 100.0, "max_context": max_context,
            }),
            Advice::Do(m) => json!({"kind": "do", "id": null, "text": render(Lang::En, m), "text_zh": render(Lang::Zh, m)}),
        })
        .collect();
    json!({
        "format": p.reading.formats.first().map(|f| f.id()),
        "formats": p.reading.formats.iter().map(|f| f.id()).collect::<Vec<_>>(),
        "numbers": numbers,
        "gb_read_as_gib": p.reading.signals.gb_as_gib,
        "truncated": p.reading.signals.truncated,
        "diagnosis": p.cause.id(),
        "node": p.node.id(),
        "path": p.path.iter().map(|n| n.id()).collect::<Vec<_>>(),
        "levers": levers,
        "why": render(Lang::En, &p.why),
        "why_zh": render(Lang::Zh, &p.why),
        "startup": p.startup.as_ref().map(startup_json),
        "described": p.described,
    })
}

/// The `startup` object of `--diagnose FILE --json` for a serving engine's start-up log: `{"engine",
/// "query" (the configuration billed), "settings": [{"key", "value", "was", "applied"}], "rows":
/// [{"figure", "engine", "ledger", "configured", "difference", "moved_by"}]}` (bytes, tokens, or
/// requests at once; `difference` is ledger ÷ engine − 1).
pub fn startup_json(c: &crate::tree::startup::Check) -> Value {
    use crate::tree::startup::Figure;
    let settings: Vec<Value> = (c.settings.iter())
        .map(|t| json!({"key": t.key.name(), "value": t.value, "was": t.was, "changed": t.changed, "applied": !t.refused}))
        .collect();
    let rows: Vec<Value> = (c.rows.iter())
        .map(|r| {
            let moved: Vec<String> = r.moved_by.iter().map(|(k, v)| format!("{}={v}", k.name())).collect();
            // Bytes and tokens whole; requests at once to 4 decimals.
            let v = |x: f64| if r.figure == Figure::MaxConcurrency { (x * 1e4).round() / 1e4 } else { x.round() };
            json!({
                "figure": r.figure.id(),
                "engine": v(r.engine),
                "ledger": r.ledger.map(v),
                "configured": r.configured.map(v),
                "difference": r.difference().map(|d| (d * 10_000.0).round() / 10_000.0),
                "moved_by": moved,
            })
        })
        .collect();
    json!({"engine": c.engine.id(), "query": c.query, "settings": settings, "rows": rows})
}

/// Spaces that bring `s` to `width` terminal columns (a CJK character takes two).
fn pad(s: &str, width: usize) -> String {
    let columns: usize = s.chars().map(|c| if c >= '\u{2E80}' { 2 } else { 1 }).sum();
    " ".repeat(width.saturating_sub(columns))
}

/// A start-up log's figures as a table: the engine's, the ledger's, the difference.
fn startup_text(c: &crate::tree::startup::Check, lang: crate::i18n::Lang) -> String {
    use crate::i18n::{render, Lang};
    use crate::ledger::msg::Msg;
    use crate::tree::paste::{figure_text, signed_percent};
    let zh = lang == Lang::Zh;
    let mut out = String::from(if zh { "启动日志逐行对照:\n" } else { "the start-up log, line by line:\n" });
    let head = if zh { ["数字", "引擎", "账本", "差"] } else { ["figure", "engine", "ledger", "difference"] };
    let row = |cells: [&str; 4]| {
        format!(
            "  {}{} {}{} {}{} {}{}\n",
            cells[0],
            pad(cells[0], 22),
            pad(cells[1], 14),
            cells[1],
            pad(cells[2], 14),
            cells[2],
            pad(cells[3], 10),
            cells[3]
        )
    };
    out.push_str(&row(head));
    for r in &c.rows {
        let ledger = r.ledger.map_or("—".to_string(), |v| figure_text(r.figure, v));
        let d = r.difference().map_or("—".to_string(), signed_percent);
        let name = render(lang, &Msg::plain(r.figure.label())).replace('`', "");
        out.push_str(&row([&name, &figure_text(r.figure, r.engine), &ledger, &d]));
    }
    out.push_str(&format!("{}: {}\n", if zh { "所算配置" } else { "configuration billed" }, c.query));
    out
}

/// The diagnosis of a paste for people: what was read, the numbers, the node and its path, why,
/// and what to do, in `lang`; without a configuration (`configured`), how to give one.
pub fn paste_text(p: &crate::tree::paste::Pasted, lang: crate::i18n::Lang, configured: bool) -> String {
    use crate::i18n::{render, Lang};
    use crate::ledger::units::human_bytes;
    use crate::tree::paste::{Advice, Cause};
    let zh = lang == Lang::Zh;
    let mut out = String::new();
    let mut formats: Vec<&str> = p.reading.formats.iter().map(|f| f.id()).collect();
    if p.startup.is_some() {
        formats.push("startup_log");
    }
    let read = if formats.is_empty() { "-".to_string() } else { formats.join(", ") };
    out.push_str(&format!("{}: {read}\n", if zh { "读到" } else { "read" }));
    let figures: Vec<String> = crate::tree::paste::figures(p)
        .into_iter()
        .map(|((en, zh_label), v)| format!("{} {v}", if zh { zh_label } else { en }))
        .collect();
    if !figures.is_empty() {
        out.push_str(&format!("{}: {}\n", if zh { "数字" } else { "numbers" }, figures.join(" · ")));
    }
    if let Some(c) = &p.startup {
        out.push_str(&startup_text(c, lang));
    }
    if p.reading.signals.gb_as_gib {
        out.push_str(if zh {
            "注意:这里的 GB/MB 按 GiB/MiB 读(PyTorch 的 MPS、vLLM、SGLang、gpustat 这样印)\n"
        } else {
            "note: GB/MB read as GiB/MiB (as PyTorch's MPS, vLLM, SGLang and gpustat print them)\n"
        });
    }
    if p.reading.signals.truncated {
        out.push_str(if zh {
            "注意:粘贴太长,只读了最后 1 MiB\n"
        } else {
            "note: the paste was long; its last 1 MiB was read\n"
        });
    }
    let path: Vec<&str> = p.path.iter().map(|n| n.id()).collect();
    out.push_str(&format!(
        "{}: {} ({} {})\n",
        if zh { "诊断" } else { "diagnosis" },
        p.cause.id(),
        if zh { "决策树节点" } else { "tree node" },
        path.join(" → ")
    ));
    out.push_str(&format!("{}: {}\n", if zh { "依据" } else { "why" }, plain(&render(lang, &p.why))));
    for a in &p.advice {
        let line = match a {
            Advice::Do(m) => plain(&render(lang, m)),
            Advice::Saves { lever, bytes } => {
                let label = if zh { lever.label().zh } else { lever.label().en };
                format!("{label}: {} {}", if zh { "省" } else { "saves" }, human_bytes(*bytes as f64))
            }
            Advice::Serves { lever, concurrency, max_context } => {
                let label = if zh { lever.label().zh } else { lever.label().en };
                format!(
                    "{label}: {concurrency:.2}× {}, {} {max_context}",
                    if zh { "并发" } else { "requests at once" },
                    if zh { "最长上下文" } else { "longest context" }
                )
            }
        };
        out.push_str(&format!("  - {line}\n"));
    }
    // The tree's questions: what to add to the paste, a line `#answer key=value` each.
    let asked = crate::tree::paste::questions(p, configured);
    if !asked.is_empty() {
        out.push_str(if zh {
            "可以回答(每条一行加到粘贴末尾):\n"
        } else {
            "answer (append one line each to the paste):\n"
        });
        for q in asked {
            let values: Vec<&str> = q.values().iter().map(|v| v.0).collect();
            out.push_str(&format!("  #answer {}={}\n", q.key(), values.join("|")));
        }
    }
    let levers_apply = matches!(p.cause, Cause::Shortage | Cause::LongTail | Cause::KvBudget);
    if !configured && levers_apply {
        let example = if p.cause == Cause::KvBudget {
            "model=qwen2.5-7b&mode=infer&engine=vllm&seq=32768&gpu=rtx4090"
        } else {
            "model=qwen2.5-7b&method=lora&gpu=rtx4090"
        };
        out.push_str(&if zh {
            format!("  - 给出你的配置(QUERY,例如 '{example}'),即可按它排出每个杠杆的效果\n")
        } else {
            format!(
                "  - give your configuration (QUERY, e.g. '{example}') to rank the levers by what each does for it\n"
            )
        });
    }
    out
}

/// The `trace` object of `--trace FILE --json`: `{"format", "peak_bytes", "reserved_peak_bytes",
/// "categories": {category: bytes at the measured peak}, "predicted": {component: bytes at the
/// predicted peak}, "diverges_at"}` (the contract), and beside it `events`,
/// `preexisting_bytes`, `peak_time_us`, `predicted_categories`, `largest_gap` and `by_phase`
/// (`[{"name", "predicted_bytes", "measured_bytes"}]`). Without a bill the predicted parts are
/// empty and `diverges_at` is null.
pub fn trace_json(trace: &Trace, bill: Option<&Bill>) -> Value {
    use crate::validation::trace::Category;
    let by_category = |by: &[u64; 8]| -> serde_json::Map<String, Value> {
        Category::ALL.iter().map(|c| (c.id().to_string(), json!(by[c.index()]))).collect()
    };
    let phases = bill.map(phases::of).unwrap_or_default();
    let comparison = compare::compare(trace, &phases);
    let predicted: serde_json::Map<String, Value> = phases::peak(&phases)
        .map(|p| p.components.iter().map(|(id, b)| (id.id().to_string(), json!(b))).collect())
        .unwrap_or_default();
    let by_phase: Vec<Value> = comparison.iter().flat_map(|c| &c.measured_by_phase).map(|(name, predicted, measured)| {
        json!({"name": name.id(), "predicted_bytes": predicted, "measured_bytes": measured})
    }).collect();
    json!({
        "format": trace.format.id(),
        "peak_bytes": trace.peak_bytes,
        "reserved_peak_bytes": trace.reserved_peak_bytes,
        "categories": by_category(&trace.categories),
        "predicted": predicted,
        "diverges_at": comparison.as_ref().map(|c| c.diverges_at.id()),
        "events": trace.events,
        "preexisting_bytes": trace.preexisting_bytes,
        "peak_time_us": trace.peak_time_us,
        "predicted_categories": comparison.as_ref().map(|c| Value::Object(by_category(&c.predicted))),
        "largest_gap": comparison.as_ref().map(|c| c.largest_gap.id()),
        "by_phase": by_phase,
    })
}

/// `--trace FILE ['QUERY']` for people: the trace's peak, its categories beside the predicted
/// ones, the phases with both curves, and where they part.
pub fn trace_text(trace: &Trace, bill: Option<&Bill>, unit: Unit) -> String {
    use crate::validation::trace::Category;
    let b = |x: u64| if unit == Unit::GB { format_bytes(x, unit) } else { human_bytes(x as f64) };
    let mut out = format!(
        "trace: {} · {} {} · peak allocated {} at {:.1} ms",
        trace.format.id(),
        group(trace.events as u64),
        if trace.events == 1 { "event" } else { "events" },
        b(trace.peak_bytes),
        trace.peak_time_us as f64 / 1000.0
    );
    if let Some(r) = trace.reserved_peak_bytes {
        out.push_str(&format!(" · peak reserved {}", b(r)));
    }
    out.push('\n');
    if trace.preexisting_bytes > 0 {
        out.push_str(&format!("live before the first recorded event: {} (unknown)\n", b(trace.preexisting_bytes)));
    }
    let phases = bill.map(phases::of).unwrap_or_default();
    let comparison = compare::compare(trace, &phases);
    out.push_str(&format!("\n{:<16} {:>14} {:>14} {:>14}\n", "category", "measured", "predicted", "difference"));
    for c in Category::ALL {
        let m = trace.categories[c.index()];
        let p = comparison.as_ref().map(|x| x.predicted[c.index()]);
        if m == 0 && p.unwrap_or(0) == 0 {
            continue;
        }
        let diff = p.map_or(String::new(), |p| signed_bytes(m as i128 - p as i128, unit));
        out.push_str(&format!("{:<16} {:>14} {:>14} {:>14}\n", c.id(), b(m), p.map_or("—".into(), b), diff));
    }
    let Some(c) = comparison else {
        out.push_str("\n(give QUERY, the run's configuration, to lay the trace over the ledger's phases)\n");
        return out;
    };
    out.push_str(&format!("\n{:<16} {:>14} {:>14}\n", "phase", "predicted", "measured"));
    for (name, predicted, measured) in &c.measured_by_phase {
        let mark = if *name == c.peak_phase { "  ← predicted peak" } else { "" };
        out.push_str(&format!(
            "{:<16} {:>14} {:>14}{mark}\n",
            name.id(),
            b(*predicted),
            measured.map_or("—".into(), b)
        ));
    }
    out.push_str(&format!(
        "\nthey part most at: {} · the category furthest from the ledger at the peak: {}\n",
        c.diverges_at.id(),
        c.largest_gap.id()
    ));
    out
}

fn signed_bytes(d: i128, unit: Unit) -> String {
    let magnitude = u64::try_from(d.unsigned_abs()).unwrap_or(u64::MAX);
    let magnitude = if unit == Unit::GB { format_bytes(magnitude, unit) } else { human_bytes(magnitude as f64) };
    if d < 0 {
        format!("−{magnitude}")
    } else {
        format!("+{magnitude}")
    }
}
