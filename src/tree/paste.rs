//! From a pasted OOM to a place on the decision tree: what the numbers (and the traceback, the log,
//! the engine's message) say happened, the node that finds it, the numbers and the rule, and the
//! levers ranked for the user's configuration when there is one.

use super::reader::{read, Format, LlamaBuffer, Reading};
use super::{levers, parent, saving, serving_gain, Lever, NodeId};
use crate::ledger::msg::{Arg, Msg};
use crate::ledger::scenario::{Engine, Mode, Scenario};
use crate::msg;

const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * MIB;
/// Memory a process holds beyond PyTorch's: the CUDA context and libraries (ledger's default).
const CONTEXT: f64 = 500.0 * MIB;
/// Without a process list or "this process has", memory in use beyond PyTorch's reserved memory is
/// someone else's only above (share of the card, bytes): before CUDA 11.7's lazy loading a
/// process's context, cuDNN and cuBLAS took 1–2.5 GiB outside PyTorch's allocator, and a desktop
/// takes a share of a display card.
const INFERRED_OTHERS: (f64, f64) = (0.2, 2.5 * GIB);
/// A run this many steps in before its OOM did not lack memory for the usual step.
const STEPS_BEFORE_LONG_TAIL: f64 = 50.0;
/// Live tensors above this share of the card: not fragmentation but a shortage.
const LIVE_SHORTAGE: f64 = 0.9;
/// The highest share of the card an engine is run at (`--gpu-memory-utilization 0.95`).
const MAX_SHARE: f64 = 0.95;

/// What the paste shows; the ids are a public contract (`diagnosis` in the JSON output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// Other processes hold the card.
    Zombie,
    Fragmentation,
    EvalNoGrad,
    TensorList,
    /// A few long samples (or one huge allocation) rather than the usual step.
    LongTail,
    /// The step really needs more than the card.
    Shortage,
    /// A serving engine's KV budget.
    KvBudget,
    /// None of the tree's levers applies (free memory far above the request, a per-process cap, a
    /// reported capacity that cannot be right, an absurd request).
    Other,
    /// Not enough information.
    Unknown,
}

impl Cause {
    pub fn id(self) -> &'static str {
        match self {
            Cause::Zombie => "zombie",
            Cause::Fragmentation => "fragmentation",
            Cause::EvalNoGrad => "eval_no_grad",
            Cause::TensorList => "tensor_list",
            Cause::LongTail => "long_tail",
            Cause::Shortage => "shortage",
            Cause::KvBudget => "kv_budget",
            Cause::Other => "other",
            Cause::Unknown => "unknown",
        }
    }

    /// The tree node that finds it.
    pub fn node(self) -> NodeId {
        match self {
            Cause::Zombie => NodeId::Kill,
            Cause::Fragmentation => NodeId::Fragmentation,
            Cause::EvalNoGrad | Cause::TensorList => NodeId::DtypeNoGrad,
            Cause::LongTail | Cause::KvBudget => NodeId::SeqLen,
            Cause::Shortage => NodeId::Batch,
            Cause::Other | Cause::Unknown => NodeId::Measure,
        }
    }
}

/// A lever for the user's configuration, with what it does there.
#[derive(Clone, Debug, PartialEq)]
pub enum Advice {
    /// One change to the scenario and the device bytes it saves (from the ledger).
    Saves { lever: Lever, bytes: i128 },
    /// One change to the served scenario and the requests at once after it.
    Serves { lever: Lever, concurrency: f64, max_context: u64 },
    /// What to do that is not a scenario change (a setting, a command), with its numbers.
    Do(Msg),
}

/// The diagnosis of a paste.
#[derive(Clone, Debug, PartialEq)]
pub struct Pasted {
    pub reading: Reading,
    pub cause: Cause,
    pub node: NodeId,
    /// From the root to `node`, for the highlighted path.
    pub path: Vec<NodeId>,
    /// The numbers and the rule, in the reader's language when rendered.
    pub why: Msg,
    pub advice: Vec<Advice>,
    /// Memory in use by other processes (a PyTorch message's numbers; nvidia-smi's process list).
    pub other_processes: Option<f64>,
}

/// Diagnoses a paste; `s` is the user's configuration, when one is set (it ranks the levers).
pub fn diagnose_paste(text: &str, s: Option<&Scenario>) -> Pasted {
    diagnose_reading(read(text), s)
}

/// Diagnoses what was read (a paste, or the numbers a link carries).
pub fn diagnose_reading(reading: Reading, s: Option<&Scenario>) -> Pasted {
    let (cause, why, mut advice) = conclude(&reading);
    let mut node = node_of(cause, &reading);
    if let Some(s) = s {
        advice.extend(ranked_levers(cause, s));
    }
    // A shortage with the user's configuration: the node of the lever that saves the most.
    if cause == Cause::Shortage && node == NodeId::Batch {
        let best = advice.iter().find_map(|a| match a {
            Advice::Saves { lever, .. } | Advice::Serves { lever, .. } => Some(*lever),
            Advice::Do(_) => None,
        });
        if let Some(at) = best.and_then(|l| NodeId::ALL.into_iter().find(|n| levers(*n).contains(&l))) {
            node = at;
        }
    }
    let mut path = vec![node];
    while let Some(p) = parent(*path.last().unwrap_or(&NodeId::Oom)) {
        path.push(p);
        if path.len() > 16 {
            break;
        }
    }
    path.reverse();
    let n = &reading.numbers;
    let other_processes = match (n.total, n.free) {
        (Some(total), Some(free)) if n.tried_to_allocate.is_some() => {
            Some(other_processes(&reading, total, free, n.reserved.unwrap_or(n.allocated.unwrap_or(0.0))).0)
        }
        _ if !n.smi_processes.is_empty() => Some(n.smi_processes.iter().map(|p| p.2).sum()),
        _ => None,
    };
    Pasted { reading, cause, node, path, why, advice, other_processes }
}

/// The node a cause is found at: a shortage is the batch's (the chapter's first lever) unless one
/// input is too large (the sequence's) or the engine's weights do not fit (sharding's).
fn node_of(cause: Cause, r: &Reading) -> NodeId {
    if cause != Cause::Shortage {
        return cause.node();
    }
    let n = &r.numbers;
    let huge = match (n.tried_to_allocate, n.total) {
        (Some(q), Some(t)) => q > 0.5 * t,
        _ => false,
    };
    let engine = [Format::VllmNoBlocks, Format::Sglang, Format::Llamacpp].iter().any(|f| r.has(*f));
    if huge {
        NodeId::SeqLen
    } else if engine {
        NodeId::Sharding
    } else {
        NodeId::Batch
    }
}

fn b(x: f64) -> Arg {
    Arg::Bytes(x)
}

/// The cause, the why and the advice that follows from the numbers alone.
fn conclude(r: &Reading) -> (Cause, Msg, Vec<Advice>) {
    if let Some(c) = serving(r) {
        return c;
    }
    if r.has(Format::Mps) {
        return mps(r);
    }
    let torch = [Format::Torch22, Format::Torch21, Format::Torch15, Format::Torch14].iter().any(|f| r.has(*f));
    if torch {
        return torch_numbers(r);
    }
    let s = r.signals;
    if let Some((first, last)) = growth(r) {
        let cause = if s.evaluation { Cause::EvalNoGrad } else { Cause::TensorList };
        let why = msg!(WhyGrowth, b(first), b(last));
        return (cause, why, vec![Advice::Do(msg!(DoNoGradItem))]);
    }
    if s.evaluation {
        return (Cause::EvalNoGrad, msg!(WhyEvalFrames), vec![Advice::Do(msg!(DoNoGradItem))]);
    }
    if s.accumulation {
        return (Cause::TensorList, msg!(WhyAccumulation), vec![Advice::Do(msg!(DoNoGradItem))]);
    }
    if let Some(level) = flat_level(r) {
        return (Cause::LongTail, msg!(WhyFlatThenFail, b(level)), vec![Advice::Do(msg!(DoLongTail))]);
    }
    if r.has(Format::NvidiaSmi) {
        if let Some(c) = smi_only(r) {
            return c;
        }
    }
    if r.formats.is_empty() && !s.oom {
        return (Cause::Unknown, msg!(WhyNothingRead), vec![Advice::Do(msg!(DoMeasure))]);
    }
    (Cause::Unknown, msg!(WhyNoNumbers), vec![Advice::Do(msg!(DoMeasure))])
}

/// A memory figure that grows over the log (or nvidia-smi snapshots): (first, last).
fn growth(r: &Reading) -> Option<(f64, f64)> {
    let series = if r.numbers.log_series.len() >= 3 { &r.numbers.log_series } else { &r.numbers.smi_series };
    if series.len() < 3 {
        return None;
    }
    let (first, last) = (*series.first()?, *series.last()?);
    let rising = series.windows(2).filter(|w| w[1] >= w[0]).count() + 1 >= series.len();
    let grew = last - first > 0.1 * first.abs().max(1.0);
    // Log series are in the log's own unit; nvidia-smi's in bytes.
    let bytes = |v: f64| if r.numbers.log_series.len() >= 3 { log_bytes(v.abs()) } else { v.abs() };
    (rising && grew).then(|| (bytes(first), bytes(last)))
}

/// A flat log, then the OOM: the step that failed was unusual.
fn flat_log(r: &Reading) -> bool {
    flat_level(r).is_some()
}

/// The level of a log whose memory figure stays within 5 % over two or more steps, in bytes.
fn flat_level(r: &Reading) -> Option<f64> {
    let s = &r.numbers.log_series;
    let (lo, hi) = s.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    (s.len() >= 2 && hi - lo <= 0.05 * hi.abs().max(1e-9)).then(|| log_bytes(hi.abs()))
}

/// A log's memory figure in bytes: GiB when small, MiB when in the thousands.
fn log_bytes(v: f64) -> f64 {
    if v < 1024.0 {
        v * GIB
    } else {
        v * MIB
    }
}

fn torch_numbers(r: &Reading) -> (Cause, Msg, Vec<Advice>) {
    let n = &r.numbers;
    let s = r.signals;
    let request = n.tried_to_allocate.unwrap_or(0.0);
    let (Some(total), Some(free)) = (n.total, n.free) else {
        return (Cause::Unknown, msg!(WhyNoNumbers), vec![Advice::Do(msg!(DoMeasure))]);
    };
    let reserved = n.reserved.unwrap_or(n.allocated.unwrap_or(0.0));
    let unallocated = n.reserved_unallocated.unwrap_or(0.0);
    let allocated = n.allocated.unwrap_or(0.0);
    // Numbers that cannot be right, a cap, or plenty free: the tree's levers are not the answer.
    if free > total * 1.01 {
        return (Cause::Other, msg!(WhyFreeAboveTotal, b(free), b(total)), vec![Advice::Do(msg!(DoCheckCapacity))]);
    }
    if request > 8.0 * total {
        return (Cause::Other, msg!(WhyAbsurdRequest, b(request), b(total)), vec![Advice::Do(msg!(DoCheckShapes))]);
    }
    if let Some(cap) = n.allowed.filter(|c| *c < 0.9 * total) {
        return (Cause::Other, msg!(WhyAllowedCap, b(cap), b(total)), vec![Advice::Do(msg!(DoRaiseFraction))]);
    }
    // One tensor larger than the card: before anything is allocated the device or a shape is
    // wrong; in the middle of a run, that input is too large.
    if request > total {
        if reserved <= 0.0 {
            return (
                Cause::Other,
                msg!(WhyFirstAboveCard, b(request), b(total)),
                vec![Advice::Do(msg!(DoCheckCapacity))],
            );
        }
        let cause = if s.long_sample || flat_log(r) { Cause::LongTail } else { Cause::Shortage };
        return (cause, msg!(WhyRequestAboveCard, b(request), b(total)), vec![Advice::Do(msg!(DoSmallerInput))]);
    }
    if request > 0.0 && free > request + 256.0 * MIB && reserved < 0.5 * total {
        return (
            Cause::Other,
            msg!(WhyFreeAboveRequest, b(free), b(request)),
            vec![Advice::Do(msg!(DoCheckOtherDevice))],
        );
    }
    // Memory in use that is not this process's, when freeing it would make room.
    // Listed by the message, they come first; inferred (what is in use beyond this process), only
    // when nothing else in the paste explains the OOM.
    let (others, listed) = other_processes(r, total, free, reserved);
    let floor = if listed { (0.1 * total).max(GIB) } else { (INFERRED_OTHERS.0 * total).max(INFERRED_OTHERS.1) };
    let held = others > floor && request <= free + unallocated + others;
    let own = (total - free - others).max(0.0);
    if held && listed {
        return (Cause::Zombie, msg!(WhyZombie, b(others), b(total), b(own)), vec![Advice::Do(msg!(DoKill))]);
    }
    let long = s.long_sample || flat_log(r);
    // A single request the card could never hold (within a rounding margin of what is free).
    let margin = (0.01 * total).max(128.0 * MIB);
    if request > free + unallocated - margin && request > 0.5 * total {
        let cause = if long { Cause::LongTail } else { Cause::Shortage };
        return (
            cause,
            msg!(WhyHugeRequest, b(request), b(free + unallocated), b(total)),
            vec![Advice::Do(msg!(DoSmallerInput))],
        );
    }
    // What the traceback and the log say outrank what is inferred from the numbers.
    if s.evaluation {
        return (Cause::EvalNoGrad, msg!(WhyEvalFrames), vec![Advice::Do(msg!(DoNoGradItem))]);
    }
    if s.accumulation {
        return (Cause::TensorList, msg!(WhyAccumulation), vec![Advice::Do(msg!(DoNoGradItem))]);
    }
    if long {
        return (Cause::LongTail, msg!(WhyLongTail, b(request)), vec![Advice::Do(msg!(DoLongTail))]);
    }
    if held {
        return (Cause::Zombie, msg!(WhyZombieInferred, b(others), b(total), b(own)), vec![Advice::Do(msg!(DoKill))]);
    }
    // Fragmentation: live tensors well below the card (the chapter: 峰值远小于总量却 OOM), the
    // request fitting in free + unallocated, and the cache at least as large as the request or a
    // large share of the card. Above 90 % live, defragmenting buys less than a tenth: a shortage.
    let frag = request <= free + unallocated
        && unallocated >= 256.0 * MIB
        && (unallocated >= request || unallocated >= 0.05 * total);
    if frag && allocated <= LIVE_SHORTAGE * total {
        return (
            Cause::Fragmentation,
            msg!(WhyFragmentation, b(unallocated), b(request), b(free + unallocated)),
            vec![Advice::Do(msg!(DoExpandable))],
        );
    }
    if s.engine && n.process.unwrap_or(reserved) > 0.85 * total {
        let own = n.process.unwrap_or(reserved);
        return (
            Cause::KvBudget,
            msg!(WhyEngineHolds, b(own), b(total), b(request)),
            vec![Advice::Do(msg!(DoEngineHeadroom))],
        );
    }
    if let Some((first, last)) = growth(r) {
        return (Cause::TensorList, msg!(WhyGrowth, b(first), b(last)), vec![Advice::Do(msg!(DoNoGradItem))]);
    }
    if let Some(steps) = n.steps_done.filter(|v| *v >= STEPS_BEFORE_LONG_TAIL) {
        return (
            Cause::LongTail,
            msg!(WhyAfterSteps, Arg::Count(steps as u64), b(request)),
            vec![Advice::Do(msg!(DoLongTail))],
        );
    }
    let advice = if frag { vec![Advice::Do(msg!(DoExpandable))] } else { Vec::new() };
    (Cause::Shortage, msg!(WhyShortage, b(allocated), b(total), b(request)), advice)
}

/// Bytes in use by other processes, and whether the message listed them: the "Process N has X"
/// lines that are not this process (inside a container the process sees itself under another PID,
/// with its own usage), or — without those lines — what is in use beyond this process's reserved
/// memory and its CUDA context.
fn other_processes(r: &Reading, total: f64, free: f64, reserved: f64) -> (f64, bool) {
    let n = &r.numbers;
    let in_use = (total - free).max(0.0);
    if !n.processes.is_empty() {
        let own = n.process.unwrap_or(reserved + CONTEXT);
        let near = |x: f64, y: f64| (x - y).abs() <= (0.05 * y).max(512.0 * MIB);
        let mut others: f64 = n.processes.iter().map(|p| p.1).sum();
        // The line that is this process: its size is this process's, or the whole of what is in use.
        if let Some(me) = n.processes.iter().find(|p| near(p.1, own) || near(p.1, in_use) && n.processes.len() == 1) {
            others -= me.1;
        } else if n.process.is_none() {
            // No "this process" line: the largest line near PyTorch's reserved memory is this one.
            if let Some(me) = n.processes.iter().filter(|p| near(p.1, reserved + CONTEXT)).map(|p| p.1).reduce(f64::max)
            {
                others -= me;
            }
        }
        return (others.max(0.0), true);
    }
    let own = n.process.unwrap_or(reserved + CONTEXT);
    ((in_use - own).max(0.0), n.process.is_some())
}

fn mps(r: &Reading) -> (Cause, Msg, Vec<Advice>) {
    let n = &r.numbers;
    let (alloc, other, max) =
        (n.mps_allocated.unwrap_or(0.0), n.mps_other.unwrap_or(0.0), n.mps_max_allowed.unwrap_or(0.0));
    if other > alloc && other > 0.3 * max {
        return (Cause::Other, msg!(WhyMpsOther, b(other), b(alloc), b(max)), vec![Advice::Do(msg!(DoMpsOther))]);
    }
    let request = n.tried_to_allocate.unwrap_or(0.0);
    (Cause::Shortage, msg!(WhyMps, b(alloc), b(request), b(max)), vec![Advice::Do(msg!(DoMpsWatermark))])
}

fn serving(r: &Reading) -> Option<(Cause, Msg, Vec<Advice>)> {
    let n = &r.numbers;
    if r.has(Format::VllmFreeMemory) {
        let (free, total) = (n.free.unwrap_or(0.0), n.total.unwrap_or(0.0));
        let requested = n.requested.unwrap_or(0.0);
        let held = (total - free).max(0.0);
        let fit_util = ((free - 0.5 * GIB) / total.max(1.0) * 100.0).floor() / 100.0;
        if held > 0.25 * total {
            return Some((
                Cause::Zombie,
                msg!(WhyVllmFreeHeld, b(free), b(total), b(requested), b(held)),
                vec![Advice::Do(msg!(DoKill))],
            ));
        }
        let why = msg!(WhyVllmFree, b(free), b(total), b(requested));
        return Some((Cause::KvBudget, why, vec![Advice::Do(msg!(DoLowerUtil, Arg::Fixed(fit_util.max(0.05), 2)))]));
    }
    if r.has(Format::VllmKv) {
        let (len, kv) = (n.max_model_len.unwrap_or(0.0), n.kv_tokens.unwrap_or(0.0));
        let why = msg!(WhyVllmKv, Arg::Count(len as u64), Arg::Count(kv as u64));
        return Some((Cause::KvBudget, why, vec![Advice::Do(msg!(DoMaxModelLen, Arg::Count(kv as u64)))]));
    }
    if r.has(Format::VllmKvV1) {
        let est = n.estimated_max_len.unwrap_or(0.0) as u64;
        let why = msg!(
            WhyVllmKvNeeded,
            Arg::Count(n.max_model_len.unwrap_or(0.0) as u64),
            b(n.kv_needed.unwrap_or(0.0)),
            b(n.kv_available.unwrap_or(0.0))
        );
        return Some((Cause::KvBudget, why, vec![Advice::Do(msg!(DoMaxModelLen, Arg::Count(est)))]));
    }
    if r.has(Format::VllmNoBlocks) {
        // A negative pool: would the engine's highest share cover the shortfall?
        if let (Some(kv), Some(total), Some(util)) = (n.kv_available.filter(|kv| *kv < 0.0), n.total, n.utilization) {
            let need = util + (-kv + 0.5 * GIB) / total.max(1.0);
            if need <= MAX_SHARE {
                let why = msg!(WhyVllmNegativeKv, b(-kv));
                return Some((
                    Cause::KvBudget,
                    why,
                    vec![Advice::Do(msg!(DoRaiseUtil, Arg::Fixed((need * 100.0).ceil() / 100.0, 2)))],
                ));
            }
            let why = msg!(WhyEngineWeightsExceed, b(n.weights.unwrap_or(0.0)), b(total));
            return Some((Cause::Shortage, why, vec![Advice::Do(msg!(DoQuantizedOrTp))]));
        }
        if let Some(kv) = n.kv_available.filter(|kv| *kv < 0.0) {
            return Some((Cause::KvBudget, msg!(WhyVllmNegativeKv, b(-kv)), vec![Advice::Do(msg!(DoEngineLevers))]));
        }
        return Some((Cause::KvBudget, msg!(WhyVllmNoBlocks), vec![Advice::Do(msg!(DoEngineLevers))]));
    }
    if r.has(Format::Sglang) {
        if let Some(f) = n.utilization.filter(|f| *f < 0.5) {
            return Some((
                Cause::KvBudget,
                msg!(WhySglangFraction, Arg::Fixed(f, 2)),
                vec![Advice::Do(msg!(DoEngineLevers))],
            ));
        }
        if let (Some(avail), Some(weights)) = (n.free, n.weights) {
            // Left after the weights, against the engine's highest share of the card.
            if avail < (1.0 - MAX_SHARE) * (avail + weights) {
                let why = msg!(WhySglangAvail, b(avail), b(weights));
                return Some((Cause::Shortage, why, vec![Advice::Do(msg!(DoQuantizedOrTp))]));
            }
            return Some((
                Cause::KvBudget,
                msg!(WhySglangAvail, b(avail), b(weights)),
                vec![Advice::Do(msg!(DoEngineLevers))],
            ));
        }
        return Some((Cause::KvBudget, msg!(WhySglang), vec![Advice::Do(msg!(DoEngineLevers))]));
    }
    if r.has(Format::Llamacpp) {
        let alloc = n.llama_alloc.unwrap_or(0.0);
        return Some(match n.llama_buffer {
            Some(LlamaBuffer::Weights) => {
                (Cause::Shortage, msg!(WhyLlamaWeights, b(alloc)), vec![Advice::Do(msg!(DoFewerLayers))])
            }
            Some(LlamaBuffer::Compute) if alloc > 100.0 * GIB => {
                (Cause::Other, msg!(WhyLlamaCompute, b(alloc)), vec![Advice::Do(msg!(DoLlamaContext))])
            }
            Some(LlamaBuffer::Compute) => {
                (Cause::KvBudget, msg!(WhyLlamaCompute, b(alloc)), vec![Advice::Do(msg!(DoLlamaContext))])
            }
            _ => (Cause::KvBudget, msg!(WhyLlamaKv, b(alloc)), vec![Advice::Do(msg!(DoLlamaContext))]),
        });
    }
    None
}

/// nvidia-smi without a PyTorch message: memory held by processes (several on one GPU, or any at
/// all once the failed run is gone), or held with no process listed.
fn smi_only(r: &Reading) -> Option<(Cause, Msg, Vec<Advice>)> {
    let n = &r.numbers;
    let procs: f64 = n.smi_processes.iter().map(|p| p.2).sum();
    let shared = n.smi_processes.iter().any(|p| n.smi_processes.iter().filter(|q| q.0 == p.0).count() > 1);
    let total = n.smi_total;
    if shared || procs > GIB {
        return Some((
            Cause::Zombie,
            msg!(WhySmiHeld, b(procs), b(total.unwrap_or(0.0))),
            vec![Advice::Do(msg!(DoKill))],
        ));
    }
    let (used, total) = (n.smi_used?, total?);
    (used > (0.05 * total).max(GIB))
        .then(|| (Cause::Zombie, msg!(WhySmiNoProcess, b(used), b(total)), vec![Advice::Do(msg!(DoFindHolder))]))
}

/// The ledger's levers for the user's configuration, one variable at a time, ranked.
fn ranked_levers(cause: Cause, s: &Scenario) -> Vec<Advice> {
    let served = s.mode == Mode::Infer && s.serving.engine != Engine::Hf;
    if served && matches!(cause, Cause::KvBudget | Cause::Shortage) {
        let mut out: Vec<(f64, Advice)> = Lever::ALL
            .iter()
            .filter_map(|&l| serving_gain(s, l).map(|(before, a)| (l, before, a)))
            // Only what gains requests or context.
            .filter(|(_, before, a)| a.max_concurrency > before.max_concurrency || a.max_context > before.max_context)
            .map(|(l, _, a)| (l, a))
            .map(|(l, a)| {
                (
                    a.max_concurrency,
                    Advice::Serves { lever: l, concurrency: a.max_concurrency, max_context: a.max_context },
                )
            })
            .collect();
        out.sort_by(|x, y| y.0.total_cmp(&x.0));
        return out.into_iter().map(|x| x.1).take(5).collect();
    }
    if !matches!(cause, Cause::Shortage | Cause::LongTail | Cause::KvBudget) {
        return Vec::new();
    }
    let mut out: Vec<(i128, Lever)> =
        Lever::ALL.iter().filter_map(|&l| saving(s, l).filter(|b| *b > 0).map(|b| (b, l))).collect();
    out.sort_by_key(|x| std::cmp::Reverse(x.0));
    out.into_iter().take(5).map(|(bytes, lever)| Advice::Saves { lever, bytes }).collect()
}
