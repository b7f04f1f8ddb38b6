//! The readers of what a user brings — a trace file, a `config.json`, a pasted OOM log — run in the
//! page's reader worker (`src/bin/vram-ledger-reader.rs`), started only when one is brought, so
//! none of them is in the first download (docs/size.md). This is what the page and the worker say
//! to each other, one JSON text per message.
//!
//! The page posts `[kind, payload]`: `"trace"` with a File or a string, `"config"` or `"paste"`
//! (`"paste-end"`: the end of a longer paste) with a string, `"typed"` with the tree form's numbers. The worker answers `{"ready": true}` first, then for a trace `{"progress": share}`
//! while reading and `{"trace": {...}, "memory_bytes": n}`; for a config
//! `{"config": {"query": the custom model's link, "name", "notes": [msg]}}`; for `"report"` (mem_report.py's
//! JSON, a string) `{"report": {"device", "query", "bytes": [weights, gradients, optimizer, activations,
//! peak allocated, peak reserved]}, "trace": {...}}`; for a paste
//! `{"paste": Reading::to_link}` (the `oom=` value, which the page keeps as sent); for `"diagnose"` with the calculator's query and `oom=` (a
//! reading's link), the paste diagnosis for that configuration, its texts rendered in both
//! languages (`{"diagnosis": {...}}`, see [`Diagnosis`]); for `"selftest"` with the calculator's query (and `q=N`), the
//! chapter's questions with the ledger's demonstrations on it (`{"selftest": [question…]}`, see
//! [`selftest`]); for `"grid"` with a query the page's build leaves to the worker
//! (`Scenario::billed_on_demand`: a training or served grid, a device map, a drafter or LoRA
//! slots), its bill, the grid's levers and a served bill's planner (`{"grid": {...}}`, see
//! [`grid`]); or `{"error": msg}`. A message is `{"id": its index in
//! `MsgId::ALL`, "args": [...]}`. The worker writes with serde_json; the page reads with the
//! ledger's JSON reader (already in its bundle), and every answer is used through the codecs the
//! page has anyway: a link's query for a model, `Reading::from_link` for a paste.

use crate::ledger::bill::{
    Bill, Component, ComponentId, KvPool, Live, Note, ParallelSummary, Phase, PhaseName, PoolKind, RankSummary,
    RlSummary, Serving, ServingStatus, SlackRule, StepAmounts, Timeline,
};
use crate::ledger::json::Json;
use crate::ledger::msg::{Arg, Msg, MsgId};
use crate::ledger::scenario::{Engine, Release};
use crate::tree::paste::Cause;
use crate::tree::reader::Reading;
use crate::tree::{Lever, NodeId};
use crate::validation::trace::{Sample, Trace, TraceFormat};
use crate::validation::MemReport;
use serde_json::{json, Value};

/// What the page hears from the worker.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Ready,
    Progress(f64),
    /// A trace, and the worker's memory after reading it (bytes).
    Trace(Box<Trace>, u64),
    /// A config.json as the custom model's query (everything the bill uses), its name (which a
    /// link does not carry) and the importer's notes.
    Config(String, String, Vec<Msg>),
    /// A reading as its `oom=` value (the page keeps the value as sent: it never reads or encodes
    /// a reading; the worker does, `Reading::from_link`).
    Paste(String),
    Diagnosis(Box<Diagnosis>),
    SelfTest(Vec<SelfTestItem>),
    /// A bill the page's build leaves to the worker (`Scenario::billed_on_demand`: a training or
    /// served grid, a device map, a drafter or LoRA slots), billed here so that its code is not in
    /// the first download, with the grid's levers and a served bill's planner.
    Grid(Box<GridAnswer>),
    /// mem_report.py's JSON as read, with the moment it draws on the timeline.
    Report(Box<(MemReport, Trace)>),
    Failed(Msg),
}

/// A grid's bill as the worker made it for the page's query.
#[derive(Clone, Debug, PartialEq)]
pub struct GridAnswer {
    pub query: String,
    pub bill: std::rc::Rc<Bill>,
    /// `key=value` changed, and what the grid then makes: the device bytes of the GPU that needs
    /// the most, or a served grid's requests at once × 100.
    pub levers: Vec<(String, String, u64)>,
    /// Which experts each GPU holds (a MoE model on a grid), in (English, Chinese).
    pub experts: Option<(String, String)>,
    /// For a data-parallel training link, the data-parallel size of the grid it implies (its GPUs):
    /// its levers start from that grid, and the page sets `dp` to it before a lever's key.
    pub base: Option<u64>,
    /// A served bill's planner: its curve (context, requests at once) and its levers with the
    /// engine's figures after each.
    pub curve: Vec<(u64, f64)>,
    pub planner_levers: Vec<(Lever, Serving)>,
    /// A served model's fit solvers (what fits): the most requests and the longest context; for an
    /// RL step (its vLLM rollout billed here), the largest micro-batch, no sequence, and the longest
    /// completion and most completions per prompt.
    pub fits: Option<[u64; 4]>,
}

/// A self-test question as the page draws it: its texts in both languages (English, Chinese) and
/// the two configurations of its demonstration as links, which the page bills itself.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfTestItem {
    pub n: u8,
    pub question: (String, String),
    pub hint: (String, String),
    pub answer: (String, String),
    pub finding: (String, String),
    /// Question 5: the OOM tree's reading of the finding and the node it goes to.
    pub diagnosis: Option<(crate::tree::paste::Cause, crate::tree::NodeId)>,
    /// That cause's name in (English, Chinese) (the labels load on demand too).
    pub cause_label: (String, String),
    /// Each bar: the `key=value` that differs (`None`: the reader's configuration) and its link.
    pub before: (Option<String>, String),
    pub after: (Option<String>, String),
}

/// A paste's diagnosis for one configuration, as the reader worker made it for the page: the
/// diagnosis runs there, and its texts are rendered there (`MsgId::loads_on_demand`), so
/// neither is in the first download.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnosis {
    pub cause: Cause,
    /// The cause's name in (English, Chinese).
    pub cause_label: (String, String),
    /// A start-up log's: the link (a query, the paste's `oom=` kept) of the configuration it was
    /// checked against, the user's with the log's settings; or the configuration a report
    /// describes in words (`tree::described`). The first advice links to it.
    pub apply: Option<String>,
    pub node: NodeId,
    /// From the root to `node`.
    pub path: Vec<NodeId>,
    /// Why, in (English, Chinese).
    pub why: (String, String),
    /// The numbers read: (English label, Chinese label, value).
    pub figures: Vec<(String, String, String)>,
    pub advice: Vec<Advised>,
    /// The reader read "GB" as GiB (PyTorch's MPS, vLLM, SGLang and gpustat print binary units so).
    pub gb_as_gib: bool,
    /// The paste was longer than the reader reads; its end was read.
    pub truncated: bool,
    /// What the tree asks when the cause is open: each question's key and text in (English,
    /// Chinese), and its answers' values and texts; the page appends `#answer key=value` to the
    /// paste for the one clicked.
    pub questions: Vec<Question>,
}

/// One of the tree's questions ([`crate::tree::paste::questions`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub key: String,
    pub text: (String, String),
    pub answers: Vec<(String, (String, String))>,
}

/// One line of a diagnosis's advice ([`crate::tree::paste::Advice`] with its text rendered).
#[derive(Clone, Debug, PartialEq)]
pub enum Advised {
    /// What to do, in (English, Chinese).
    Do(String, String),
    /// A lever and the device bytes it saves.
    Saves(Lever, i64),
    /// A serving lever, the requests at once and the longest context after it.
    Serves(Lever, f64, u64),
}

/// Nested messages deeper than this are not read back.
const MAX_DEPTH: usize = 4;

pub fn encode_msg(m: &Msg) -> Value {
    json!({ "id": m.id as usize, "args": m.args.iter().map(encode_arg).collect::<Vec<Value>>() })
}

fn encode_arg(a: &Arg) -> Value {
    match a {
        Arg::Int(n) => json!({ "int": n }),
        Arg::Count(n) => json!({ "count": n }),
        Arg::Bytes(b) => json!({ "bytes": b }),
        Arg::Factor(x) => json!({ "factor": x }),
        Arg::Fixed(x, d) => json!({ "fixed": x, "decimals": d }),
        Arg::Code(s) => json!({ "text": s }),
        Arg::Text(s) => json!({ "text": s }),
        Arg::Msg(m) => json!({ "msg": encode_msg(m) }),
        Arg::List(ms) => json!({ "list": ms.iter().map(encode_msg).collect::<Vec<Value>>() }),
    }
}

pub fn decode_msg(v: &Json, depth: usize) -> Option<Msg> {
    let id = *MsgId::ALL.get(v.get("id")?.as_u64()? as usize)?;
    let args = v.get("args")?.as_array()?.iter().map(|a| decode_arg(a, depth)).collect::<Option<Vec<Arg>>>()?;
    Some(Msg::new(id, args))
}

fn decode_arg(a: &Json, depth: usize) -> Option<Arg> {
    if depth >= MAX_DEPTH {
        return None;
    }
    let num = |k: &str| a.get(k).and_then(Json::as_f64);
    let uint = |k: &str| a.get(k).and_then(Json::as_u64);
    Some(if let Some(n) = uint("int") {
        Arg::Int(n)
    } else if let Some(n) = uint("count") {
        Arg::Count(n)
    } else if let Some(b) = num("bytes") {
        Arg::Bytes(b)
    } else if let Some(x) = num("factor") {
        Arg::Factor(x)
    } else if let Some(x) = num("fixed") {
        Arg::Fixed(x, uint("decimals")?.min(9) as u32)
    } else if let Some(m) = a.get("msg") {
        Arg::Msg(Box::new(decode_msg(m, depth + 1)?))
    } else if let Some(list) = a.get("list").and_then(Json::as_array) {
        Arg::List(list.iter().map(|m| decode_msg(m, depth + 1)).collect::<Option<Vec<Msg>>>()?)
    } else {
        Arg::Text(a.get("text")?.as_str()?.chars().take(2000).collect())
    })
}

/// Where a line's section can point (the grid's lines use these).
const SECTIONS: [&str; 4] = ["§1", "§2", "§3", "§3 ⑦"];
/// The keys of a grid bill's notes (a training grid's, a served grid's or a device map's).
const GRID_NOTES: [&str; 24] = [
    "grid",
    "grid_refused",
    "grid_uneven",
    "grid_qlora",
    "grid_optimizer",
    "framework",
    "unified_memory",
    "offload_host",
    "serving_grid",
    "engine",
    "engine_status",
    "engine_ignored",
    "engine_addons",
    "prefix_share",
    "pipeline_check",
    "max_model_len",
    "kv_cache_memory",
    "full_mask",
    "device_map",
    "vision_tokens",
    "unified_host",
    "quant_ignored",
    "effective_batch",
    "fused_experts",
];

/// The worker's side of `"grid"`: the bill of one GPU of the query's grid (a training grid, a
/// served grid or a device map), the levers of the grid with what each makes of it, and a served
/// grid's planner curve (requests at once against context).
pub fn grid(query: &str) -> String {
    use crate::query::{with_key, Key};
    let mut s = crate::query::parse(query).scenario;
    // A data-parallel training link (the OOM tree's sharding card asks for its levers): the grid
    // it implies, all its GPUs data parallel, so that a lever keeps them (`ep=2` alone would be a
    // grid of one data-parallel rank).
    let base = (s.mode == crate::ledger::scenario::Mode::Train && !s.layout.is_grid()).then_some(s.gpus);
    if let Some(dp) = base {
        s = with_key(&s, Key::Dp, &dp.to_string()).0;
    }
    let bill = crate::ledger::estimate(&s);
    // An engine takes its share of the card whatever the grid: a served grid's lever is judged by
    // the requests it holds at once (× 100), any other by the worst GPU's bytes. A lever that
    // changes neither is left out (experts over tensor parallel alone hold the same weights).
    let figure =
        |b: &Bill| b.serving.as_ref().map_or(b.device_bytes(), |sv| (sv.effective_concurrency * 100.0).round() as u64);
    let worst = bill.parallel.as_ref().map(|p| p.worst_stage);
    let levers: Vec<Value> = grid_levers(&s, worst)
        .into_iter()
        .filter_map(|(key, value)| {
            // The lever as the page applies it when clicked: the key set through the query codec.
            let value = value.to_string();
            let (mut after, problem) = with_key(&s, Key::from_name(key)?, &value);
            if problem.is_some() {
                return None;
            }
            after.layout.stage = None;
            let after = figure(&crate::ledger::estimate(&after));
            // A layer moved off the worst stage is offered only where the worst GPU gains.
            let moves_a_layer = key.ends_with("_stage_layers");
            (after != figure(&bill) && (!moves_a_layer || after < figure(&bill))).then(|| json!([key, value, after]))
        })
        .collect();
    let curve: Vec<Value> = crate::ledger::concurrency::concurrency_curve(&s)
        .iter()
        .map(|&(context, at_once)| json!([context, at_once.to_bits()]))
        .collect();
    // The planner's levers the page can apply: SGLang's share lever needs SGLang's default
    // fraction, which the page cannot bill for this link, unless the link sets it.
    let page_applies = |l: &Lever| {
        *l != Lever::EngineShare
            || s.serving.engine != crate::ledger::scenario::Engine::Sglang
            || s.serving.mem_fraction.is_some()
    };
    let planner_levers: Vec<Value> = (crate::tree::planner_levers(&s).iter())
        .filter(|(lever, _)| page_applies(lever))
        .map(|(lever, after)| {
            let mut n = Vec::new();
            encode_serving(after, &mut n);
            json!([lever.id(), n])
        })
        .collect();
    let experts =
        (bill.parallel.as_ref()).and_then(|_| crate::report::experts_msg(&s, crate::report::GridKind::of(&bill))).map(
            |m| json!([crate::i18n::render(crate::i18n::Lang::En, &m), crate::i18n::render(crate::i18n::Lang::Zh, &m)]),
        );
    // What fits, for a served model on one GPU or an RL step (off a grid, or with its rollout on
    // the grid: `rl_on_grid`; a grid's own solvers are not run), as the page's own solvers give it.
    let rl_fits = s.is_rl() && (!s.layout.is_grid() || s.rl_on_grid());
    let fits = (rl_fits || s.served_by_engine() && !s.serves_a_grid()).then(|| {
        let (max_batch, max_seq, rollout) = crate::ledger::fit::what_fits(&s);
        let (completion, generations) = rollout.unwrap_or_default();
        json!([max_batch, max_seq, completion, generations])
    });
    json!({ "grid": {
        "query": query, "bill": encode_bill(&bill), "levers": levers, "base": base, "experts": experts,
        "curve": curve, "plan": planner_levers, "fits": fits,
    } })
    .to_string()
}

/// A grid's levers, `key=value`: twice the tensor or pipeline parallel size; training's expert and
/// context parallel doubled, the distributed optimizer, sequence parallel, full recompute, and
/// fewer layers on a pipeline's worst stage when it is the first or the last.
fn grid_levers(s: &crate::ledger::Scenario, worst: Option<u64>) -> Vec<(&'static str, u64)> {
    use crate::ledger::scenario::{Checkpointing, Engine, Mode};
    let (l, arch) = (s.layout, &s.architecture);
    // Under a pipeline whose worst stage is an end one (the first with the embedding and the most
    // micro-batches in flight, a VLM's vision tower; the last with the LM head and the logits):
    // the most layers below what it holds that leave the stages between an even rest, as
    // Megatron's uneven pipeline asks.
    let last = l.pp.saturating_sub(1);
    let fewer = |p: u64, set: fn(&mut crate::ledger::scenario::Layout, u64)| -> Option<u64> {
        let held = l.stage_layers(arch.layers, p).count() as u64;
        (1..held).rev().find(|&n| {
            let mut moved = l;
            set(&mut moved, n);
            moved.uneven_rest(arch.layers).is_none()
        })
    };
    let first_fewer = (l.pp > 1 && worst == Some(0)).then(|| fewer(0, |l, n| l.first_stage_layers = Some(n))).flatten();
    let last_fewer =
        (l.pp > 1 && worst == Some(last)).then(|| fewer(last, |l, n| l.last_stage_layers = Some(n))).flatten();
    let experts = arch.moe.map_or(0, |m| m.experts);
    let candidates: Vec<(&str, u64, bool)> = if s.mode == Mode::Infer {
        let engine = s.serving.engine != Engine::Hf;
        let tp = s.inference_tp();
        let next_tp = tp.saturating_mul(2);
        let kv_heads = arch.kv_heads.max(1);
        // No ep lever: an engine already splits the experts over its tp × dp GPUs (whole experts
        // with `ep`, slices without), so the bytes are the same.
        vec![
            (
                "tp",
                next_tp,
                engine && arch.heads % next_tp == 0 && (kv_heads % next_tp == 0 || next_tp % kv_heads == 0),
            ),
            ("pp", l.pp.saturating_mul(2), l.pp.saturating_mul(2) <= arch.layers),
        ]
    } else {
        vec![
            ("tp", l.tp * 2, arch.heads % (l.tp * 2) == 0 && arch.kv_heads % (l.tp * 2) == 0),
            ("pp", l.pp * 2, l.pp * 2 <= arch.layers),
            // The expert group (ep × etp) within the GPUs of a stage (tp × dp × cp).
            ("ep", l.ep * 2, experts > 0 && experts % (l.ep * 2) == 0 && l.ep * 2 * l.etp <= l.tp * l.dp * l.cp),
            ("cp", l.cp * 2, s.seq >= 4 * l.cp),
            ("dist_optim", 1, !l.dist_optim),
            ("sp", 1, l.tp > 1 && !l.sp),
            ("gc", 1, s.checkpointing == Checkpointing::Off),
            ("first_stage_layers", first_fewer.unwrap_or(0), first_fewer.is_some()),
            ("last_stage_layers", last_fewer.unwrap_or(0), last_fewer.is_some()),
        ]
    };
    candidates.into_iter().filter(|c| c.2).map(|(key, value, _)| (key, value)).collect()
}

/// A message as the worker renders it, in both languages (the page has not every template).
fn bilingual(m: &Msg) -> Value {
    use crate::i18n::{render, Lang};
    encode_msg(&Msg::new(MsgId::Bilingual, vec![Arg::Text(render(Lang::En, m)), Arg::Text(render(Lang::Zh, m))]))
}

/// A grid's bill for the page: its numbers in one flat list, read back in the same order (a
/// fraction as its bits, which the page's JSON reader keeps exactly), its texts rendered.
fn encode_bill(b: &Bill) -> Value {
    let mut n: Vec<u64> = vec![b.gpu_bytes, b.parameters, b.gradient_bytes, b.components.len() as u64];
    for c in &b.components {
        n.extend([
            c.id as usize as u64,
            c.bytes,
            SECTIONS.iter().position(|s| *s == c.section).map_or(9, |i| i as u64),
        ]);
    }
    n.push(b.notes.len() as u64);
    n.extend(b.notes.iter().map(|x| GRID_NOTES.iter().position(|k| *k == x.key).unwrap_or(0) as u64));
    let slack = |r: &SlackRule| [r.transient, r.persistent, r.wrap_cache].map(f64::to_bits);
    match &b.timeline {
        Timeline::Training(t) => {
            n.extend([0, t.all_gradients, t.at_start_gradients, t.temporaries, t.buffer_gradients]);
            n.extend(slack(&t.slack));
        }
        Timeline::Generate { load, prefill, decode, slack: rule, fragmented } => {
            n.extend([1, u64::from(decode.is_some()), load.to_bits(), fragmented.to_bits()]);
            for l in std::iter::once(prefill).chain(decode) {
                n.extend([l.kv, l.activations, l.logits].map(f64::to_bits));
            }
            n.extend(slack(rule));
        }
        // A preference or RL step's phases (a VLM's or Unsloth's vLLM rollout): each one's lines.
        Timeline::Phases(phases) => {
            n.extend([3, phases.len() as u64]);
            for p in phases {
                n.extend([p.name as u64, p.components.len() as u64]);
                n.extend(p.components.iter().flat_map(|&(id, bytes)| [id as u64, bytes]));
            }
        }
        // Otherwise an engine's start-up.
        Timeline::Engine => n.push(2),
    }
    n.push(u64::from(b.serving.is_some()));
    if let Some(sv) = &b.serving {
        encode_serving(sv, &mut n);
    }
    n.push(u64::from(b.parallel.is_some()));
    if let Some(p) = &b.parallel {
        let l = &p.layout;
        n.extend([
            l.tp,
            l.pp,
            l.ep,
            l.etp,
            l.cp,
            l.dp,
            u64::from(l.sp),
            u64::from(l.dist_optim),
            l.vpp,
            l.microbatches,
        ]);
        n.extend([l.schedule as u64, l.stage.map_or(0, |x| x + 1), l.mtp_layers]);
        n.extend([p.worst_stage, p.worst_bytes, p.billed_stage]);
        n.push(p.ranks.len() as u64);
        for r in &p.ranks {
            n.extend([r.stage, r.layers, r.weights_bytes, r.activations_bytes, r.allocated_bytes, r.device_bytes]);
        }
    }
    // An RL step's summary: its verdict (the engine that cannot start) and the Markdown copy read it.
    n.push(u64::from(b.rl.is_some()));
    if let Some(r) = &b.rl {
        n.extend([
            r.objective as u64,
            r.rollout.map_or(0, |x| x as u64 + 1),
            r.sequences_per_step,
            r.rollout_weights_bytes,
            r.rollout_pool_bytes,
            r.rollout_kv_tokens,
            r.reference_bytes,
            r.critic_bytes,
            r.reward_bytes,
            r.peak_phase as u64,
            u64::from(r.engine_fails),
        ]);
    }
    let texts: Vec<Value> =
        b.components.iter().map(|c| &c.formula).chain(b.notes.iter().map(|x| &x.text)).map(bilingual).collect();
    json!({ "n": n, "texts": texts })
}

/// An engine's figures (`Serving`), read back by [`decode_serving`].
fn encode_serving(sv: &Serving, n: &mut Vec<u64>) {
    let (status, a, b, c) = match sv.status {
        ServingStatus::Serves => (0, 0, 0, 0),
        ServingStatus::Queues { concurrent } => (1, concurrent, 0, 0),
        ServingStatus::ContextTooLong { needed_bytes, available_bytes, longest } => {
            (2, needed_bytes, available_bytes, longest)
        }
        ServingStatus::NoKvMemory { available } => (3, available as u64, 0, 0),
        ServingStatus::NotEnoughFree { free_bytes, requested_bytes } => (4, free_bytes, requested_bytes, 0),
        ServingStatus::GpuTooSmall { needed_bytes } => (5, needed_bytes, 0, 0),
    };
    let Release(major, minor, patch) = sv.version;
    n.extend([sv.engine as u64, major.into(), minor.into(), patch.into(), status, a, b, c]);
    n.extend([
        sv.budget_bytes,
        sv.weights_bytes,
        sv.non_torch_bytes,
        sv.activation_peak_bytes,
        sv.cuda_graph_bytes,
        sv.kv_pool_bytes,
        sv.kv_tokens,
        sv.kv_blocks.map_or(0, |x| x.saturating_add(1)),
        sv.max_context,
        sv.host_bytes,
        sv.context_tokens,
        sv.requests,
        sv.kv_cache_memory_bytes,
        sv.draft_bytes,
        sv.lora_bytes,
    ]);
    for p in &sv.pool_list {
        n.extend(p.map_or([0, 0, 0], |p| [p.kind as u64 + 1, p.bytes, p.tokens]));
    }
    n.extend([sv.max_concurrency, sv.share, sv.effective_concurrency].map(f64::to_bits));
}

/// The next `N` numbers of a list.
fn take<const N: usize>(next: &mut impl FnMut() -> Option<u64>) -> Option<[u64; N]> {
    let mut out = [0; N];
    for slot in &mut out {
        *slot = next()?;
    }
    Some(out)
}

fn decode_serving(next: &mut impl FnMut() -> Option<u64>) -> Option<Serving> {
    let [engine, major, minor, patch, status, a, b, c, budget_bytes, weights_bytes, non_torch_bytes, activation_peak_bytes, cuda_graph_bytes, kv_pool_bytes, kv_tokens, kv_blocks, max_context, host_bytes, context_tokens, requests, kv_cache_memory_bytes, draft_bytes, lora_bytes, pools @ .., max_concurrency, share, effective_concurrency] =
        take::<35>(next)?;
    let status = match status {
        0 => ServingStatus::Serves,
        1 => ServingStatus::Queues { concurrent: a },
        2 => ServingStatus::ContextTooLong { needed_bytes: a, available_bytes: b, longest: c },
        3 => ServingStatus::NoKvMemory { available: a as i64 },
        4 => ServingStatus::NotEnoughFree { free_bytes: a, requested_bytes: b },
        _ => ServingStatus::GpuTooSmall { needed_bytes: a },
    };
    let pool = |i: usize| {
        let kind = PoolKind::ALL.get(pools[3 * i].checked_sub(1)? as usize)?;
        Some(KvPool { kind: *kind, bytes: pools[3 * i + 1], tokens: pools[3 * i + 2] })
    };
    Some(Serving {
        engine: *Engine::ALL.get(engine as usize)?,
        version: Release(major as u16, minor as u16, patch as u16),
        budget_bytes,
        weights_bytes,
        non_torch_bytes,
        activation_peak_bytes,
        cuda_graph_bytes,
        kv_pool_bytes,
        kv_tokens,
        kv_blocks: kv_blocks.checked_sub(1),
        max_concurrency: f64::from_bits(max_concurrency),
        max_context,
        host_bytes,
        context_tokens,
        requests,
        share: f64::from_bits(share),
        status,
        pool_list: [pool(0), pool(1), pool(2)],
        effective_concurrency: f64::from_bits(effective_concurrency),
        kv_cache_memory_bytes,
        draft_bytes,
        lora_bytes,
    })
}

fn decode_bill(v: &Json) -> Option<Bill> {
    let mut n = v.get("n")?.as_array()?.iter().map(Json::as_u64);
    let mut next = || n.next().flatten();
    let mut texts = v.get("texts")?.as_array()?.iter().map(|m| decode_msg(m, 0));
    let gpu_bytes = next()?;
    let parameters = next()?;
    let gradient_bytes = next()?;
    let mut components = Vec::new();
    for _ in 0..next()?.min(64) {
        let (id, bytes, section) = (next()?, next()?, next()?);
        components.push((
            *ComponentId::ALL.get(id as usize)?,
            bytes,
            SECTIONS.get(section as usize).copied().unwrap_or(""),
        ));
    }
    let mut notes = Vec::new();
    for _ in 0..next()?.min(64) {
        notes.push(*GRID_NOTES.get(next()? as usize)?);
    }
    let timeline = decode_timeline(&mut next)?;
    let serving = if next()? == 1 { Some(decode_serving(&mut next)?) } else { None };
    let parallel = if next()? == 1 { Some(decode_parallel(&mut next)?) } else { None };
    let rl = if next()? == 1 { Some(decode_rl(&mut next)?) } else { None };
    let components = components
        .into_iter()
        .map(|(id, bytes, section)| Some(Component { id, bytes, formula: texts.next()??, section }))
        .collect::<Option<Vec<_>>>()?;
    let notes = notes.into_iter().map(|key| Some(Note { key, text: texts.next()?? })).collect::<Option<Vec<_>>>()?;
    Some(Bill {
        components,
        gpu_bytes,
        parameters,
        notes,
        saved_logits_bytes: 0,
        backward_overlap_bytes: 0,
        gradient_bytes,
        open_high_bytes: 0,
        serving,
        timeline,
        rl,
        parallel,
    })
}

fn decode_timeline(next: &mut impl FnMut() -> Option<u64>) -> Option<Timeline> {
    let slack = |[transient, persistent, wrap_cache]: [u64; 3]| SlackRule {
        transient: f64::from_bits(transient),
        persistent: f64::from_bits(persistent),
        wrap_cache: f64::from_bits(wrap_cache),
    };
    let live = |[kv, activations, logits]: [u64; 3]| Live {
        kv: f64::from_bits(kv),
        activations: f64::from_bits(activations),
        logits: f64::from_bits(logits),
    };
    Some(match next()? {
        0 => {
            let [all_gradients, at_start_gradients, temporaries, buffer_gradients] = take(next)?;
            Timeline::Training(StepAmounts {
                all_gradients,
                at_start_gradients,
                temporaries,
                buffer_gradients,
                slack: slack(take(next)?),
            })
        }
        1 => {
            let decoding = next()? == 1;
            let load = f64::from_bits(next()?);
            let fragmented = f64::from_bits(next()?);
            let prefill = live(take(next)?);
            let decode = if decoding { Some(live(take(next)?)) } else { None };
            Timeline::Generate { load, prefill, decode, slack: slack(take(next)?), fragmented }
        }
        3 => {
            let mut phases = Vec::new();
            // A count past the list's end stops at its end (`next()?`).
            for _ in 0..next()? {
                let name = *PhaseName::ALL.get(next()? as usize)?;
                let mut components = Vec::new();
                for _ in 0..next()? {
                    components.push((*ComponentId::ALL.get(next()? as usize)?, next()?));
                }
                phases.push(Phase { name, components });
            }
            Timeline::Phases(phases)
        }
        _ => Timeline::Engine,
    })
}

fn decode_rl(next: &mut impl FnMut() -> Option<u64>) -> Option<RlSummary> {
    use crate::ledger::scenario::{Objective, Rollout};
    Some(RlSummary {
        objective: *Objective::ALL.get(next()? as usize)?,
        rollout: next()?.checked_sub(1).and_then(|r| Rollout::ALL.get(r as usize).copied()),
        sequences_per_step: next()?,
        rollout_weights_bytes: next()?,
        rollout_pool_bytes: next()?,
        rollout_kv_tokens: next()?,
        reference_bytes: next()?,
        critic_bytes: next()?,
        reward_bytes: next()?,
        peak_phase: *PhaseName::ALL.get(next()? as usize)?,
        engine_fails: next()? == 1,
    })
}

fn decode_parallel(next: &mut impl FnMut() -> Option<u64>) -> Option<ParallelSummary> {
    let [tp, pp, ep, etp, cp, dp, sp, dist_optim, vpp, microbatches, schedule, stage, mtp_layers, worst_stage, worst_bytes, billed_stage, count] =
        take(next)?;
    let layout = crate::ledger::scenario::Layout {
        tp: tp.max(1),
        pp: pp.max(1),
        ep: ep.max(1),
        etp: etp.max(1),
        cp: cp.max(1),
        dp: dp.max(1),
        sp: sp == 1,
        dist_optim: dist_optim == 1,
        vpp: vpp.max(1),
        microbatches,
        schedule: *crate::ledger::scenario::Schedule::ALL.get(schedule as usize)?,
        stage: stage.checked_sub(1),
        mtp_layers: mtp_layers.min(16),
        ..Default::default()
    };
    let mut ranks = Vec::new();
    for _ in 0..count.min(1024) {
        let [stage, layers, weights_bytes, activations_bytes, allocated_bytes, device_bytes] = take(next)?;
        ranks.push(RankSummary { stage, layers, weights_bytes, activations_bytes, allocated_bytes, device_bytes });
    }
    Some(ParallelSummary { layout, worst_stage, worst_bytes, billed_stage, ranks })
}

fn decode_grid(g: &Json) -> Option<GridAnswer> {
    let levers = g
        .get("levers")?
        .as_array()?
        .iter()
        .map(|l| {
            let l = l.as_array()?;
            Some((l.first()?.as_str()?.to_string(), l.get(1)?.as_str()?.to_string(), l.get(2)?.as_u64()?))
        })
        .collect::<Option<Vec<_>>>()?;
    let curve = (g.get("curve")?.as_array()?.iter())
        .map(|p| match p.as_array()? {
            [context, at_once] => Some((context.as_u64()?, f64::from_bits(at_once.as_u64()?))),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let planner_levers = (g.get("plan")?.as_array()?.iter())
        .map(|l| match l.as_array()? {
            [lever, n] => {
                let mut n = n.as_array()?.iter().map(Json::as_u64);
                let mut next = || n.next().flatten();
                Some((Lever::from_id(lever.as_str()?)?, decode_serving(&mut next)?))
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(GridAnswer {
        query: g.get("query")?.as_str()?.to_string(),
        bill: std::rc::Rc::new(decode_bill(g.get("bill")?)?),
        levers,
        experts: g.get("experts").and_then(read_both),
        base: g.get("base")?.as_u64(),
        curve,
        planner_levers,
        fits: g.get("fits").and_then(Json::as_array).and_then(|f| {
            let n = |i: usize| f.get(i).and_then(Json::as_u64);
            Some([n(0)?, n(1)?, n(2)?, n(3)?])
        }),
    })
}

pub fn ready() -> String {
    json!({ "ready": true }).to_string()
}

pub fn progress(share: f64) -> String {
    json!({ "progress": share }).to_string()
}

pub fn failed(m: &Msg) -> String {
    json!({ "error": bilingual(m) }).to_string()
}

/// A trace read (or why not), and the worker's memory then.
pub fn trace(result: &Result<Trace, Msg>, memory_bytes: u64) -> String {
    match result {
        Ok(t) => json!({ "trace": trace_value(t), "memory_bytes": memory_bytes }).to_string(),
        Err(m) => failed(m),
    }
}

fn trace_value(t: &Trace) -> Value {
    json!({
        "format": t.format.id(),
        "curve": t.curve.iter().map(|s| json!([s.time_us, s.allocated, s.reserved])).collect::<Vec<Value>>(),
        "peak_bytes": t.peak_bytes,
        "peak_time_us": t.peak_time_us,
        "reserved_peak_bytes": t.reserved_peak_bytes,
        "categories": t.categories.to_vec(),
        "events": t.events,
        "preexisting_bytes": t.preexisting_bytes,
    })
}

/// mem_report.py's JSON pasted in the page's measured box: its figures and the one moment it
/// draws on the timeline (or why it cannot be read, rendered: its texts load on demand).
pub fn report(text: &str) -> String {
    match crate::validation::parse_report(text) {
        Ok(r) => json!({
            "report": {
                "device": r.device,
                "query": r.query,
                "bytes": [r.weights, r.gradients, r.optimizer, r.activations, r.peak_allocated, r.peak_reserved],
            },
            "trace": trace_value(&crate::validation::trace::from_mem_report(&r)),
        })
        .to_string(),
        Err(m) => failed(&m),
    }
}

fn decode_report(r: &Json, t: &Json) -> Option<Answer> {
    let b = r.get("bytes")?.as_array()?;
    let at = |i: usize| b.get(i).and_then(Json::as_u64);
    let report = MemReport {
        device: r.get("device")?.as_str()?.chars().take(80).collect(),
        query: r.get("query").and_then(Json::as_str).map(|q| q.chars().take(2000).collect()),
        weights: at(0)?,
        gradients: at(1)?,
        optimizer: at(2)?,
        activations: at(3)?,
        peak_allocated: at(4),
        peak_reserved: at(5),
    };
    Some(Answer::Report(Box::new((report, decode_trace(t)?))))
}

/// A config.json read: the custom model's link (what the CLI's `--config` prints) and the notes.
pub fn config(text: &str) -> String {
    match crate::ledger::hf_config::parse_config(text) {
        Ok(imported) => {
            let notes: Vec<Value> = imported.notes.iter().map(bilingual).collect();
            let s = crate::ledger::Scenario::imported(imported);
            let query = crate::query::to_query(&s, &[]);
            json!({ "config": { "query": query, "name": s.architecture.name, "notes": notes } }).to_string()
        }
        Err(e) => failed(&e.0),
    }
}

/// A paste read, as its `oom=` value; `cut`: the page sent only the paste's end.
pub fn paste(text: &str, cut: bool) -> String {
    let mut r = crate::tree::reader::read(text);
    r.signals.truncated |= cut;
    json!({ "paste": r.to_link() }).to_string()
}

/// The four numbers typed into the tree's form (GiB: allocated, reserved, the device's used, its
/// total) and the configuration's CUDA context (MiB), comma-separated, as a reading's `oom=` value.
pub fn typed(numbers: &str) -> String {
    let v: Vec<f64> =
        numbers.split(',').map(|x| crate::ledger::units::parse_decimal(x.trim()).unwrap_or(f64::NAN)).collect();
    let [allocated, reserved, device_used, total, overhead_mib] = v[..] else {
        return failed(&crate::msg!(BadOomLink, crate::ledger::msg::Arg::Text(String::new())));
    };
    let m = crate::tree::Measured { allocated, reserved, device_used, total };
    let s = crate::ledger::Scenario { overhead_mib, ..crate::ledger::Scenario::default() };
    match crate::tree::measured_reading(&m, &s) {
        Ok(r) => json!({ "paste": r.to_link() }).to_string(),
        Err(_) => failed(&crate::msg!(BadOomLink, crate::ledger::msg::Arg::Text(String::new()))),
    }
}

/// The paste diagnosis for the calculator's `query`, whose `oom=` is the reading's link.
pub fn diagnosis(query: &str) -> String {
    use crate::i18n::{render, Lang};
    use crate::tree::paste::{diagnose_reading, figures, Advice};
    let parsed = crate::query::parse(query);
    let view = crate::view::read(&parsed.ui);
    let Some(link) = view.oom else {
        return failed(&crate::msg!(BadOomLink, crate::ledger::msg::Arg::Text(String::new())));
    };
    let Some(reading) = Reading::from_link(&link) else {
        return failed(&crate::msg!(BadOomLink, Arg::Text(crate::query::display_value(&link))));
    };
    let p = diagnose_reading(reading, Some(&parsed.scenario));
    let both = |m: &Msg| json!([render(Lang::En, m), render(Lang::Zh, m)]);
    let advice: Vec<Value> = (p.advice.iter())
        .map(|a| match a {
            Advice::Do(m) => json!({ "do": both(m) }),
            Advice::Saves { lever, bytes } => json!({ "lever": lever.id(), "saves": bytes }),
            Advice::Serves { lever, concurrency, max_context } => {
                json!({ "lever": lever.id(), "concurrency": concurrency, "max_context": max_context })
            }
        })
        .collect();
    let startup = p.startup.as_ref().map(crate::tree::paste::startup_figures).unwrap_or_default();
    let figures: Vec<Value> = (figures(&p).into_iter().map(|((en, zh), v)| json!([en, zh, v])))
        .chain(startup.into_iter().map(|((en, zh), v)| json!([en, zh, v])))
        .collect();
    json!({ "diagnosis": {
        "cause": p.cause.id(),
        "label": cause_label(p.cause),
        "apply": (p.startup.as_ref().map(|c| c.query.as_str()).or(p.described.as_deref()))
            .map(|q| format!("{q}&oom={}", crate::query::percent_encode(&link))),
        "node": p.node.id(),
        "path": p.path.iter().map(|n| n.id()).collect::<Vec<&str>>(),
        "why": both(&p.why),
        "figures": figures,
        "advice": advice,
        "gb_as_gib": p.reading.signals.gb_as_gib,
        "truncated": p.reading.signals.truncated,
        "questions": crate::tree::paste::questions(&p, true).into_iter().map(|q| question(q, &both)).collect::<Vec<Value>>(),
    } })
    .to_string()
}

/// A question of the tree as the page draws it: `[key, [en, zh], [[value, [en, zh]], …]]`.
fn question(q: crate::tree::reader::Answer, both: &dyn Fn(&Msg) -> Value) -> Value {
    let options: Vec<Value> =
        q.values().iter().map(|(value, label)| json!([value, both(&Msg::new(*label, Vec::new()))])).collect();
    json!([q.key(), both(&Msg::new(q.ask(), Vec::new())), options])
}

/// A cause's name in [English, Chinese]: rendered here, so the names are not in the page.
fn cause_label(c: Cause) -> Value {
    use crate::i18n::{cause, Lang};
    json!([cause(Lang::En, c), cause(Lang::Zh, c)])
}

/// A text the worker sent, at most 2,000 characters.
fn read_text(v: &Json) -> Option<String> {
    v.as_str().map(|s| s.chars().take(2000).collect())
}

/// A text the worker sent in both languages: `[English, Chinese]`.
fn read_both(v: &Json) -> Option<(String, String)> {
    let pair = v.as_array()?;
    Some((read_text(pair.first()?)?, read_text(pair.get(1)?)?))
}

fn decode_diagnosis(d: &Json) -> Option<Diagnosis> {
    let node = |v: &Json| NodeId::from_id(v.as_str()?);
    let lever = |v: &Json| v.get("lever").and_then(Json::as_str).and_then(Lever::from_id);
    let advice = (d.get("advice")?.as_array()?.iter().take(64))
        .map(|a| {
            if let Some(t) = a.get("do") {
                let (en, zh) = read_both(t)?;
                Some(Advised::Do(en, zh))
            } else if let Some(b) = a.get("saves") {
                Some(Advised::Saves(lever(a)?, b.as_f64()? as i64))
            } else {
                let max_context = a.get("max_context")?.as_u64()?;
                Some(Advised::Serves(lever(a)?, a.get("concurrency")?.as_f64()?, max_context))
            }
        })
        .collect::<Option<Vec<Advised>>>()?;
    let figures = (d.get("figures")?.as_array()?.iter().take(64))
        .map(|f| {
            let f = f.as_array()?;
            Some((read_text(f.first()?)?, read_text(f.get(1)?)?, read_text(f.get(2)?)?))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Diagnosis {
        cause: Cause::from_id(d.get("cause")?.as_str()?)?,
        cause_label: read_both(d.get("label")?)?,
        apply: d.get("apply").and_then(read_text),
        node: node(d.get("node")?)?,
        path: d.get("path")?.as_array()?.iter().take(32).map(node).collect::<Option<Vec<NodeId>>>()?,
        why: read_both(d.get("why")?)?,
        figures,
        advice,
        gb_as_gib: d.get("gb_as_gib")?.as_bool()?,
        truncated: d.get("truncated")?.as_bool()?,
        questions: (d.get("questions")?.as_array()?.iter().take(8))
            .map(|q| match q.as_array()? {
                [key, text, answers] => Some(Question {
                    key: read_text(key)?,
                    text: read_both(text)?,
                    answers: (answers.as_array()?.iter().take(8))
                        .map(|a| match a.as_array()? {
                            [value, text] => Some((read_text(value)?, read_both(text)?)),
                            _ => None,
                        })
                        .collect::<Option<Vec<_>>>()?,
                }),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
    })
}

/// The chapter's self-test on the calculator's `query`: every question (or `q=N`'s alone), its texts
/// in both languages, the finding's numbers rendered, and the two configurations as links. Read
/// in the worker: the demonstrations and their texts are not in the page's bundle.
pub fn selftest(query: &str) -> String {
    use crate::i18n::{pick, Lang};
    use crate::selftest::{demo, texts, QUESTIONS};
    let parsed = crate::query::parse(query);
    let only = crate::view::read(&parsed.ui).question;
    let s = parsed.scenario;
    let both = |t: (&'static str, &'static str)| json!([pick(Lang::En, t), pick(Lang::Zh, t)]);
    let side = |side: &crate::selftest::Side| json!({ "label": side.label, "query": crate::query::to_query(&side.scenario, &[]) });
    let items: Vec<Value> = only
        .map_or(1..=QUESTIONS, |n| n..=n)
        .filter_map(|n| {
            let (t, d) = (texts(n)?, demo(n, &s)?);
            Some(json!({
                "n": n,
                "question": both(t.question),
                "hint": both(t.hint),
                "answer": both(t.answer),
                "finding": [d.finding.render(Lang::En), d.finding.render(Lang::Zh)],
                "diagnosis": d.diagnosis.map(|(c, node)| json!([c.id(), node.id()])),
                "cause_label": d.diagnosis.map(|(c, _)| cause_label(c)),
                "before": side(&d.before),
                "after": side(&d.after),
            }))
        })
        .collect();
    json!({ "selftest": items }).to_string()
}

fn decode_selftest(items: &[Json]) -> Option<Vec<SelfTestItem>> {
    let side = |v: &Json| {
        let label = v.get("label").and_then(read_text);
        Some((label, read_text(v.get("query")?)?))
    };
    items
        .iter()
        .take(usize::from(crate::selftest::QUESTIONS))
        .map(|q| {
            let diagnosis = match q.get("diagnosis").and_then(Json::as_array) {
                Some(pair) => Some((
                    crate::tree::paste::Cause::from_id(pair.first()?.as_str()?)?,
                    crate::tree::NodeId::from_id(pair.get(1)?.as_str()?)?,
                )),
                None => None,
            };
            Some(SelfTestItem {
                n: u8::try_from(q.get("n")?.as_u64()?).ok()?,
                question: read_both(q.get("question")?)?,
                hint: read_both(q.get("hint")?)?,
                answer: read_both(q.get("answer")?)?,
                finding: read_both(q.get("finding")?)?,
                diagnosis,
                cause_label: q.get("cause_label").and_then(read_both).unwrap_or_default(),
                before: side(q.get("before")?)?,
                after: side(q.get("after")?)?,
            })
        })
        .collect()
}

/// The page's reading of a worker's message; `None` for anything else.
pub fn decode(text: &str) -> Option<Answer> {
    let v = Json::parse(text).ok()?;
    if v.get("ready").is_some() {
        return Some(Answer::Ready);
    }
    if let Some(p) = v.get("progress").and_then(Json::as_f64) {
        return Some(Answer::Progress(p));
    }
    if let Some(e) = v.get("error") {
        return decode_msg(e, 0).map(Answer::Failed);
    }
    if let Some(c) = v.get("config") {
        let notes = c.get("notes")?.as_array()?.iter().map(|m| decode_msg(m, 0)).collect::<Option<Vec<Msg>>>()?;
        let name = c.get("name")?.as_str()?.chars().take(200).collect();
        return Some(Answer::Config(c.get("query")?.as_str()?.to_string(), name, notes));
    }
    if let Some(p) = v.get("paste") {
        return Some(Answer::Paste(p.as_str()?.to_string()));
    }
    if let Some(d) = v.get("diagnosis") {
        return decode_diagnosis(d).map(|d| Answer::Diagnosis(Box::new(d)));
    }
    if let Some(items) = v.get("selftest") {
        return decode_selftest(items.as_array()?).map(Answer::SelfTest);
    }
    if let Some(g) = v.get("grid") {
        return decode_grid(g).map(|g| Answer::Grid(Box::new(g)));
    }
    let t = v.get("trace")?;
    if let Some(r) = v.get("report") {
        return decode_report(r, t);
    }
    decode_trace(t)
        .map(|trace| Answer::Trace(Box::new(trace), v.get("memory_bytes").and_then(Json::as_u64).unwrap_or(0)))
}

fn decode_trace(t: &Json) -> Option<Trace> {
    let uint = |k: &str| t.get(k).and_then(Json::as_u64);
    let mut categories = [0u64; 8];
    for (slot, c) in categories.iter_mut().zip(t.get("categories").and_then(Json::as_array)?) {
        *slot = c.as_u64()?;
    }
    let curve = (t.get("curve").and_then(Json::as_array)?.iter())
        .map(|p| {
            let p = p.as_array()?;
            Some(Sample {
                time_us: p.first()?.as_f64()? as i64,
                allocated: p.get(1)?.as_u64()?,
                reserved: p.get(2).and_then(Json::as_u64),
            })
        })
        .collect::<Option<Vec<Sample>>>()?;
    Some(Trace {
        format: TraceFormat::from_id(t.get("format").and_then(Json::as_str)?)?,
        curve,
        peak_bytes: uint("peak_bytes")?,
        peak_time_us: t.get("peak_time_us").and_then(Json::as_f64)? as i64,
        reserved_peak_bytes: uint("reserved_peak_bytes"),
        categories,
        events: uint("events")? as usize,
        preexisting_bytes: uint("preexisting_bytes")?,
    })
}
