//! From a pasted OOM to a place on the decision tree: what the numbers (and the traceback, the log,
//! the engine's message) say happened, the node that finds it, the numbers and the rule, and the
//! levers ranked for the user's configuration when there is one.

use super::reader::{read, Answer, Format, LlamaBuffer, Reading};
use super::startup::{check, Check, Figure, Row, Startup, WITHIN};
use super::{levers, parent, saving, serving_gain, Lever, NodeId};
use crate::ledger::msg::{Arg, Msg, MsgId};
use crate::ledger::scenario::{Engine, Mode, Scenario};

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
    /// The operating system killed the process for host RAM (not a GPU out-of-memory).
    HostRam,
    /// A rollout engine sharing the card with a trainer (GRPO, PPO): its share, its sleep, or the
    /// trainer's state beside it.
    Rollout,
    /// A serving engine's start-up log without an error: its figures set beside the ledger's.
    StartupLog,
}

impl Cause {
    pub const ALL: [Cause; 12] = [
        Cause::Zombie,
        Cause::Fragmentation,
        Cause::EvalNoGrad,
        Cause::TensorList,
        Cause::LongTail,
        Cause::Shortage,
        Cause::KvBudget,
        Cause::Other,
        Cause::Unknown,
        Cause::HostRam,
        Cause::Rollout,
        Cause::StartupLog,
    ];

    pub fn from_id(id: &str) -> Option<Cause> {
        Cause::ALL.into_iter().find(|c| c.id() == id)
    }

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
            Cause::HostRam => "host_ram",
            Cause::Rollout => "rollout",
            Cause::StartupLog => "startup_log",
        }
    }

    /// The tree node that finds it.
    pub fn node(self) -> NodeId {
        match self {
            Cause::Zombie => NodeId::Kill,
            Cause::Fragmentation => NodeId::Fragmentation,
            Cause::EvalNoGrad | Cause::TensorList => NodeId::DtypeNoGrad,
            Cause::LongTail | Cause::KvBudget | Cause::StartupLog => NodeId::SeqLen,
            Cause::Shortage | Cause::Rollout => NodeId::Batch,
            Cause::Other | Cause::Unknown | Cause::HostRam => NodeId::Measure,
        }
    }
}

/// A lever for the user's configuration, with what it does there.
#[derive(Clone, Debug, PartialEq)]
pub enum Advice {
    /// One change to the scenario and the device bytes it saves (from the ledger).
    Saves { lever: Lever, bytes: i64 },
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
    /// A start-up log's figures beside the ledger's, for the configuration with the log's settings.
    pub startup: Option<Check>,
    /// The configuration the report describes in words and flags, as a query (`super::described`);
    /// the first advice opens it.
    pub described: Option<String>,
}

/// Diagnoses a paste; `s` is the user's configuration, when one is set (it ranks the levers).
pub fn diagnose_paste(text: &str, s: Option<&Scenario>) -> Pasted {
    diagnose_reading(read(text), s)
}

/// Diagnoses what was read (a paste, or the numbers a link carries).
pub fn diagnose_reading(reading: Reading, s: Option<&Scenario>) -> Pasted {
    let log = Startup::from_items(&reading.startup);
    let startup = log.as_ref().map(|st| check(st, &s.cloned().unwrap_or_default()));
    // A start-up log's repeated figures read as a training log's series are not an error.
    let error = reading.formats.iter().any(|f| *f != Format::TrainingLog);
    let (cause, why, mut advice) = match &startup {
        Some(c) if !error && !reading.signals.oom => (Cause::StartupLog, startup_why(c), startup_advice(c)),
        _ => {
            let (cause, why, mut advice) = conclude(&reading);
            advice.extend(startup.as_ref().map(startup_advice).unwrap_or_default());
            (cause, why, advice)
        }
    };
    // The configuration the report describes decides what its words alone cannot (a start-up
    // log's own settings are checked figure by figure instead); the levers are the user's
    // configuration's when there is one, else the described one's.
    // The user answered that the calculator's configuration is the run's: it is the one described.
    let described = if log.is_some() {
        None
    } else {
        described(&reading).or_else(|| s.filter(|_| reading.signals.page_setup).map(described_page))
    };
    let (cause, why) = match &described {
        Some(d) => d.verdict(cause, why, &mut advice),
        None => (cause, why),
    };
    let mut node = node_of(cause, &reading);
    if let Some(s) = s.or(described.as_ref().filter(|_| cause == Cause::Shortage).map(|d| &d.scenario)) {
        advice.extend(ranked_levers(cause, s));
    }
    let described = described.map(|d| d.query);
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
        (Some(total), Some(free)) if n.tried_to_allocate.is_some() || reading.has(Format::Typed) => {
            Some(other_processes(&reading, total, free, n.reserved.unwrap_or(n.allocated.unwrap_or(0.0))).0)
        }
        _ if !n.smi_processes.is_empty() => Some(n.smi_processes.iter().map(|p| p.2).sum()),
        _ => None,
    };
    Pasted { reading, cause, node, path, why, advice, other_processes, startup, described }
}

/// The configuration a report describes (`super::described`), billed by the ledger on the card it
/// names (or the card PyTorch's message reports).
struct Described {
    query: String,
    /// The query as the texts show it: a model beyond the presets by its name first.
    shown: String,
    scenario: Scenario,
    /// The bill's device total (training), or its weights per GPU (serving).
    bytes: f64,
    card: f64,
    serving: bool,
    /// The bill's verdict: whether the run keeps the chapter's 20 % margin (and the high end of
    /// its range fits the card).
    verdict: crate::ledger::bill::Verdict,
}

fn described(reading: &Reading) -> Option<Described> {
    let mut query = super::described::query(&reading.startup);
    if query.is_empty() {
        return None;
    }
    if !super::described::names_card(&reading.startup) {
        let total = reading.numbers.total.or(reading.numbers.smi_total)?;
        query.push_str(&format!("&vram={}", crate::ledger::units::fixed(total / GIB, 2)));
    }
    let parsed = crate::query::parse(&query);
    if !parsed.errors.is_empty() {
        return None;
    }
    // A model beyond the presets is shown by its name before its shape's keys.
    let shown = match super::described::model_name(&reading.startup) {
        Some(name) => format!("{name}: {query}"),
        None => query.clone(),
    };
    Some(Described::billed(query, shown, parsed.scenario))
}

/// The user's configuration, billed, as the run a report describes (`#answer setup=page`).
fn described_page(s: &Scenario) -> Described {
    // The default configuration's link is empty: its card names it.
    let query = match crate::query::to_query(s, &[]) {
        q if q.is_empty() => format!("gpu={}", s.gpu.id.unwrap_or_default()),
        q => q,
    };
    Described::billed(query.clone(), query, s.clone())
}

/// What the tree asks when the paste leaves the cause open: the questions not yet answered (the
/// engine's when the paste does not name one; the configuration's when the page has one and the
/// paste describes none). The page writes each answer as a line `#answer key=value` of the paste.
pub fn questions(p: &Pasted, page_scenario: bool) -> Vec<Answer> {
    if p.cause != Cause::Unknown {
        return Vec::new();
    }
    let s = p.reading.signals;
    Answer::ALL
        .into_iter()
        .filter(|q| !s.answered[*q as usize])
        .filter(|q| match q {
            Answer::Engine => !s.engine,
            Answer::Setup => page_scenario && p.described.is_none(),
            _ => true,
        })
        .collect()
}

impl Described {
    /// `scenario` billed on its card: a run's device total, a served model's weights per GPU.
    fn billed(query: String, shown: String, scenario: Scenario) -> Described {
        let bill = crate::ledger::estimate(&scenario);
        let serving = scenario.mode == Mode::Infer;
        let bytes = if serving {
            bill.component(crate::ledger::bill::ComponentId::Weights) as f64
        } else {
            bill.device_bytes() as f64
        };
        Described { query, shown, scenario, bytes, card: bill.gpu_bytes as f64, serving, verdict: bill.verdict() }
    }

    /// The cause and why once the described configuration is billed: a shortage when it cannot fit
    /// (a served model's weights alone above the card outrank an engine's budget), otherwise the
    /// numbers' verdict, with the bill beside it when they had none.
    fn verdict(&self, cause: Cause, why: Msg, advice: &mut Vec<Advice>) -> (Cause, Msg) {
        let args = || vec![Arg::Text(self.shown.clone()), Arg::Bytes(self.bytes), Arg::Bytes(self.card)];
        let open = Advice::Do(Msg::new(MsgId::DoOpenDescribed, vec![Arg::Text(self.shown.clone())]));
        if self.serving {
            let budget = matches!(cause, Cause::Unknown | Cause::KvBudget | Cause::Zombie | Cause::Fragmentation);
            if self.bytes > MAX_SHARE * self.card && budget {
                advice.splice(0..0, [open, Advice::Do(m(MsgId::DoQuantizedOrTp, &[]))]);
                return (Cause::Shortage, Msg::new(MsgId::WhyDescribedWeights, args()));
            }
        } else if cause == Cause::Unknown {
            if self.bytes > self.card {
                advice.insert(0, open);
                return (Cause::Shortage, Msg::new(MsgId::WhyDescribedShortage, args()));
            }
            // A run that failed with its least bill inside the margin the chapter keeps for what a
            // bill does not see (the data's real lengths, kernels' workspaces, the allocator's
            // holes): the calculator's own verdict is that it does not fit with the margin.
            if self.verdict == crate::ledger::bill::Verdict::FitsWithoutMargin {
                advice.insert(0, open);
                return (Cause::Shortage, Msg::new(MsgId::WhyDescribedMargin, args()));
            }
            advice.insert(0, Advice::Do(Msg::new(MsgId::DoDescribedFits, args())));
            return (cause, why);
        }
        advice.insert(0, open);
        (cause, why)
    }
}

/// An engine and its release as a log names them ("vLLM 0.8.5").
fn engine_name(c: &Check) -> String {
    let name = c.engine.name();
    match c.settings.iter().find(|t| t.key == crate::query::Key::EngineVersion) {
        Some(v) => format!("{name} {}", v.value),
        None => name.to_string(),
    }
}

/// A figure as an argument: bytes, a count, a ratio.
fn figure_arg(f: Figure, v: f64) -> Arg {
    match f {
        Figure::MaxConcurrency => Arg::Fixed(v, 2),
        _ if f.is_bytes() => Arg::Bytes(v),
        _ => Arg::Count(v.max(0.0) as u64),
    }
}

/// A figure as text (the numbers' rows).
pub fn figure_text(f: Figure, v: f64) -> String {
    use crate::ledger::units::human_bytes;
    match f {
        Figure::MaxConcurrency => format!("{}×", crate::ledger::units::fixed(v, 2)),
        _ if f.is_bytes() => human_bytes(v),
        _ => count(v.round()),
    }
}

/// "+2.3 %", "−12.0 %".
pub fn signed_percent(d: f64) -> String {
    let p = crate::ledger::units::fixed((d * 100.0).abs(), 1);
    if d < 0.0 && p != "0.0" {
        format!("−{p} %")
    } else {
        format!("+{p} %")
    }
}

fn startup_why(c: &Check) -> Msg {
    let compared: Vec<f64> = c.rows.iter().filter_map(Row::difference).collect();
    let within = compared.iter().filter(|d| d.abs() <= WITHIN).count();
    Msg::new(
        MsgId::StartupWhy,
        vec![Arg::Text(engine_name(c)), Arg::Int(within as u64), Arg::Int(compared.len() as u64)],
    )
}

/// `key=value` items in code spans, with the configuration's own value when it differed.
fn settings_list(c: &Check, refused: bool) -> String {
    let items: Vec<String> = (c.settings.iter().filter(|t| t.refused == refused))
        .map(|t| match (&t.was, t.changed) {
            (Some(was), true) => format!("`{}={}` (← {was})", t.key.name(), t.value),
            (None, true) => format!("`{}={}` (←)", t.key.name(), t.value),
            _ => format!("`{}={}`", t.key.name(), t.value),
        })
        .collect();
    items.join(", ")
}

/// The settings applied, then each figure off by more than [`WITHIN`]: the settings that moved it,
/// and what else decides it.
fn startup_advice(c: &Check) -> Vec<Advice> {
    let mut out = Vec::new();
    let applied = settings_list(c, false);
    out.push(Advice::Do(if applied.is_empty() {
        Msg::new(MsgId::StartupNoSettings, vec![])
    } else {
        Msg::new(MsgId::StartupSettings, vec![Arg::Text(applied)])
    }));
    if let Some(card) = &c.card {
        let (name, total) = &card.configured;
        let args = vec![
            Arg::Bytes(card.torch_bytes),
            Arg::Text(name.clone()),
            Arg::Bytes(*total),
            Arg::Text(card.presets.iter().map(|id| format!("`gpu={id}`")).collect::<Vec<_>>().join(", ")),
        ];
        let id = if card.presets.is_empty() { MsgId::StartupCardVram } else { MsgId::StartupCard };
        out.push(Advice::Do(Msg::new(id, args)));
    }
    let refused = settings_list(c, true);
    if !refused.is_empty() {
        out.push(Advice::Do(Msg::new(MsgId::StartupRefused, vec![Arg::Text(refused)])));
    }
    for row in &c.rows {
        let f = row.figure;
        let (Some(ledger), Some(d)) = (row.ledger, row.difference()) else { continue };
        let label = || Msg::plain(f.label()).arg();
        let was_off = row.configured.is_some_and(|v| (v / row.engine - 1.0).abs() > WITHIN);
        if was_off && !row.moved_by.is_empty() {
            let by: Vec<String> = row.moved_by.iter().map(|(k, v)| format!("`{}={v}`", k.name())).collect();
            let args = vec![
                label(),
                figure_arg(f, row.configured.unwrap_or(0.0)),
                figure_arg(f, ledger),
                figure_arg(f, row.engine),
                Arg::Text(by.join(", ")),
            ];
            out.push(Advice::Do(Msg::new(MsgId::StartupMoved, args)));
        }
        // A card the pool points to explains the pool and what follows from it.
        let card_explains = c.card.is_some()
            && matches!(f, Figure::KvPool | Figure::KvTokens | Figure::KvBlocks | Figure::MaxConcurrency);
        if d.abs() > WITHIN && !card_explains {
            let args = vec![
                label(),
                figure_arg(f, row.engine),
                figure_arg(f, ledger),
                Arg::Text(signed_percent(d)),
                Msg::plain(f.hint()).arg(),
            ];
            out.push(Advice::Do(Msg::new(MsgId::StartupGap, args)));
        }
    }
    out
}

/// A start-up log's rows for the numbers: (English, Chinese) labels, "engine | ledger, difference".
pub fn startup_figures(c: &Check) -> Vec<((String, String), String)> {
    (c.rows.iter())
        .map(|r| {
            // The numbers' labels are plain text (no code spans there).
            let name = |lang| crate::i18n::render(lang, &Msg::plain(r.figure.label())).replace('`', "");
            let (en, zh) = (name(crate::i18n::Lang::En), name(crate::i18n::Lang::Zh));
            let ledger = r.ledger.map_or("—".to_string(), |v| figure_text(r.figure, v));
            let d = r.difference().map_or(String::new(), |d| format!(", {}", signed_percent(d)));
            let value = format!("{} | {ledger}{d}", figure_text(r.figure, r.engine));
            ((format!("{en}: engine | ledger"), format!("{zh}:引擎 | 账本")), value)
        })
        .collect()
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

/// How a figure is shown in a message: bytes, a count, a two-decimal ratio.
#[derive(Clone, Copy)]
enum K {
    B,
    C,
    F,
}

fn b(x: f64) -> (K, f64) {
    (K::B, x)
}

fn c(x: f64) -> (K, f64) {
    (K::C, x)
}

fn fx(x: f64) -> (K, f64) {
    (K::F, x)
}

/// A message of figures (one place builds them all: the rules above stay small).
#[inline(never)]
fn m(id: MsgId, args: &[(K, f64)]) -> Msg {
    let arg = |(k, v): &(K, f64)| match k {
        K::B => Arg::Bytes(*v),
        K::C => Arg::Count(v.max(0.0) as u64),
        K::F => Arg::Fixed(*v, 2),
    };
    Msg::new(id, args.iter().map(arg).collect())
}

#[inline(never)]
fn todo(m: Msg) -> Vec<Advice> {
    vec![Advice::Do(m)]
}

/// The cause, the why and the advice that follows from the numbers alone.
fn conclude(r: &Reading) -> (Cause, Msg, Vec<Advice>) {
    if let Some(c) = serving(r) {
        return c;
    }
    if r.has(Format::Mps) {
        return mps(r);
    }
    let torch =
        [Format::Torch22, Format::Torch21, Format::Torch15, Format::Torch14, Format::Typed].iter().any(|f| r.has(*f));
    if torch {
        return torch_numbers(r);
    }
    let s = r.signals;
    if s.host_killed && !r.has(Format::Bare) {
        return (Cause::HostRam, m(MsgId::WhyHostKilled, &[]), todo(m(MsgId::DoHostRam, &[])));
    }
    // Without a message that carries numbers: who ran out says what to do.
    let bare = r.formats.iter().all(|f| *f == Format::Bare);
    if bare && s.oom && s.trainer && s.engine {
        return (Cause::Rollout, m(MsgId::WhyRolloutTrainer, &[]), todo(m(MsgId::DoRolloutShare, &[])));
    }
    if bare && s.oom && s.ollama {
        return (Cause::Other, m(MsgId::WhyOllamaEstimate, &[]), todo(m(MsgId::DoOllamaLayers, &[])));
    }
    if let Some((first, last)) = growth(r) {
        let cause = if s.evaluation { Cause::EvalNoGrad } else { Cause::TensorList };
        let why = m(MsgId::WhyGrowth, &[b(first), b(last)]);
        return (cause, why, todo(m(MsgId::DoNoGradItem, &[])));
    }
    if s.evaluation {
        return (Cause::EvalNoGrad, m(MsgId::WhyEvalFrames, &[]), todo(m(MsgId::DoNoGradItem, &[])));
    }
    if s.accumulation {
        return (Cause::TensorList, m(MsgId::WhyAccumulation, &[]), todo(m(MsgId::DoNoGradItem, &[])));
    }
    if let Some(level) = flat_level(r) {
        return (Cause::LongTail, m(MsgId::WhyFlatThenFail, &[b(level)]), todo(m(MsgId::DoLongTail, &[])));
    }
    if r.has(Format::NvidiaSmi) {
        if let Some(c) = smi_only(r) {
            return c;
        }
    }
    // A serving engine that took the card's memory without failing: its budget, by design.
    if s.engine_reserves && !s.oom && bare {
        return (Cause::KvBudget, m(MsgId::WhyEngineReserves, &[]), todo(m(MsgId::DoEngineReserves, &[])));
    }
    if r.formats.is_empty() && !s.oom && !s.others_hold && !s.grows && !s.long_sample && !s.expandable_helped {
        return (Cause::Unknown, m(MsgId::WhyNothingRead, &[]), todo(m(MsgId::DoMeasure, &[])));
    }
    said_in_words(r)
}

/// An out-of-memory without numbers: what the reporter says, or the usual cause, each with what
/// to paste to be sure.
fn said_in_words(r: &Reading) -> (Cause, Msg, Vec<Advice>) {
    let s = r.signals;
    let measure = || Advice::Do(m(MsgId::DoMeasure, &[]));
    if s.others_hold {
        return (Cause::Zombie, m(MsgId::WhySaidOthers, &[]), vec![Advice::Do(m(MsgId::DoKill, &[])), measure()]);
    }
    if s.grows {
        let cause = if s.evaluation { Cause::EvalNoGrad } else { Cause::TensorList };
        return (cause, m(MsgId::WhySaidGrows, &[]), vec![Advice::Do(m(MsgId::DoNoGradItem, &[])), measure()]);
    }
    if s.expandable_helped {
        return (Cause::Fragmentation, m(MsgId::WhySaidExpandable, &[]), todo(m(MsgId::DoExpandable, &[])));
    }
    if s.long_sample {
        return (Cause::LongTail, m(MsgId::WhySaidLong, &[]), vec![Advice::Do(m(MsgId::DoLongTail, &[])), measure()]);
    }
    if let Some(steps) = r.numbers.steps_done.filter(|v| *v >= STEPS_BEFORE_LONG_TAIL) {
        let why = m(MsgId::WhySaidAfterSteps, &[c(steps)]);
        return (Cause::LongTail, why, vec![Advice::Do(m(MsgId::DoLongTail, &[])), measure()]);
    }
    if s.engine {
        return (
            Cause::KvBudget,
            m(MsgId::WhyEngineNoNumbers, &[]),
            vec![Advice::Do(m(MsgId::DoEngineLevers, &[])), measure()],
        );
    }
    (Cause::Unknown, m(MsgId::WhyNoNumbers, &[]), todo(m(MsgId::DoMeasure, &[])))
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
        return (Cause::Unknown, m(MsgId::WhyNoNumbers, &[]), todo(m(MsgId::DoMeasure, &[])));
    };
    let reserved = n.reserved.unwrap_or(n.allocated.unwrap_or(0.0));
    let unallocated = n.reserved_unallocated.unwrap_or(0.0);
    let allocated = n.allocated.unwrap_or(0.0);
    // Numbers that cannot be right, a cap, or plenty free: the tree's levers are not the answer.
    if free > total * 1.01 {
        return (Cause::Other, m(MsgId::WhyFreeAboveTotal, &[b(free), b(total)]), todo(m(MsgId::DoCheckCapacity, &[])));
    }
    if request > 8.0 * total {
        return (Cause::Other, m(MsgId::WhyAbsurdRequest, &[b(request), b(total)]), todo(m(MsgId::DoCheckShapes, &[])));
    }
    if let Some(cap) = n.allowed.filter(|c| *c < 0.9 * total) {
        return (Cause::Other, m(MsgId::WhyAllowedCap, &[b(cap), b(total)]), todo(m(MsgId::DoRaiseFraction, &[])));
    }
    // One tensor larger than the card: before anything is allocated the device or a shape is
    // wrong; in the middle of a run, that input is too large.
    if request > total {
        if reserved <= 0.0 {
            return (
                Cause::Other,
                m(MsgId::WhyFirstAboveCard, &[b(request), b(total)]),
                todo(m(MsgId::DoCheckCapacity, &[])),
            );
        }
        let cause = if s.long_sample || flat_log(r) { Cause::LongTail } else { Cause::Shortage };
        return (cause, m(MsgId::WhyRequestAboveCard, &[b(request), b(total)]), todo(m(MsgId::DoSmallerInput, &[])));
    }
    if request > 0.0 && free > request + 256.0 * MIB && reserved < 0.5 * total {
        return (
            Cause::Other,
            m(MsgId::WhyFreeAboveRequest, &[b(free), b(request)]),
            todo(m(MsgId::DoCheckOtherDevice, &[])),
        );
    }
    // The ranks of one launch listed on this GPU: they were all put on it.
    if s.ranks_share_gpu {
        let listed: f64 = n.processes.iter().map(|p| p.1).sum();
        return (
            Cause::Other,
            m(MsgId::WhyRanksShareGpu, &[c(n.processes.len() as f64), b(listed)]),
            todo(m(MsgId::DoCheckOtherDevice, &[])),
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
        return (Cause::Zombie, m(MsgId::WhyZombie, &[b(others), b(total), b(own)]), todo(m(MsgId::DoKill, &[])));
    }
    let long = s.long_sample || flat_log(r);
    // A single request the card could never hold (within a rounding margin of what is free).
    let margin = (0.01 * total).max(128.0 * MIB);
    if request > free + unallocated - margin && request > 0.5 * total {
        let cause = if long { Cause::LongTail } else { Cause::Shortage };
        return (
            cause,
            m(MsgId::WhyHugeRequest, &[b(request), b(free + unallocated), b(total)]),
            todo(m(MsgId::DoSmallerInput, &[])),
        );
    }
    // An engine told to take (almost) the whole card: its pool leaves PyTorch no room beside it.
    if let Some(share) = n.utilization.filter(|u| s.engine && *u >= MAX_SHARE) {
        return (
            Cause::KvBudget,
            m(MsgId::WhyEngineShareHigh, &[fx(share), b(request)]),
            todo(m(MsgId::DoLowerUtil, &[fx(0.9)])),
        );
    }
    // What the traceback and the log say outrank what is inferred from the numbers.
    if s.evaluation {
        return (Cause::EvalNoGrad, m(MsgId::WhyEvalFrames, &[]), todo(m(MsgId::DoNoGradItem, &[])));
    }
    if s.accumulation {
        return (Cause::TensorList, m(MsgId::WhyAccumulation, &[]), todo(m(MsgId::DoNoGradItem, &[])));
    }
    if long {
        return (Cause::LongTail, m(MsgId::WhyLongTail, &[b(request)]), todo(m(MsgId::DoLongTail, &[])));
    }
    if held {
        return (
            Cause::Zombie,
            m(MsgId::WhyZombieInferred, &[b(others), b(total), b(own)]),
            todo(m(MsgId::DoKill, &[])),
        );
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
            m(MsgId::WhyFragmentation, &[b(unallocated), b(request), b(free + unallocated)]),
            todo(m(MsgId::DoExpandable, &[])),
        );
    }
    if s.engine && n.process.unwrap_or(reserved) > 0.85 * total {
        let own = n.process.unwrap_or(reserved);
        return (
            Cause::KvBudget,
            m(MsgId::WhyEngineHolds, &[b(own), b(total), b(request)]),
            todo(m(MsgId::DoEngineHeadroom, &[])),
        );
    }
    if let Some((first, last)) = growth(r) {
        return (Cause::TensorList, m(MsgId::WhyGrowth, &[b(first), b(last)]), todo(m(MsgId::DoNoGradItem, &[])));
    }
    if let Some(steps) = n.steps_done.filter(|v| *v >= STEPS_BEFORE_LONG_TAIL) {
        return (Cause::LongTail, m(MsgId::WhyAfterSteps, &[c(steps), b(request)]), todo(m(MsgId::DoLongTail, &[])));
    }
    let advice = if frag { todo(m(MsgId::DoExpandable, &[])) } else { Vec::new() };
    (Cause::Shortage, m(MsgId::WhyShortage, &[b(allocated), b(total), b(request)]), advice)
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
        // (Inside a container, the one line is the whole of what is in use, unless the message
        // says this process has less.)
        let container = n.processes.len() == 1 && n.process.is_none_or(|p| near(p, in_use));
        if let Some(me) = n.processes.iter().find(|p| near(p.1, own) || container && near(p.1, in_use)) {
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
        return (Cause::Other, m(MsgId::WhyMpsOther, &[b(other), b(alloc), b(max)]), todo(m(MsgId::DoMpsOther, &[])));
    }
    let request = n.tried_to_allocate.unwrap_or(0.0);
    (Cause::Shortage, m(MsgId::WhyMps, &[b(alloc), b(request), b(max)]), todo(m(MsgId::DoMpsWatermark, &[])))
}

/// The utilization that asks for what is free at start-up, less half a GiB of headroom, rounded
/// down to the hundredth (what vLLM's "Free memory on device … is less than desired" allows).
fn fitting_util(free: f64, total: f64) -> f64 {
    ((free - 0.5 * GIB) / total.max(1.0) * 100.0).floor() / 100.0
}

/// A rollout engine beside a trainer: it could not wake up, start, or find room for its pool.
fn rollout(r: &Reading) -> Option<(Cause, Msg, Vec<Advice>)> {
    let n = &r.numbers;
    if r.has(Format::VllmWakeUp) {
        return Some((Cause::Rollout, m(MsgId::WhyRolloutWakeUp, &[]), todo(m(MsgId::DoRolloutWakeUp, &[]))));
    }
    if !r.signals.trainer {
        return None;
    }
    if r.has(Format::VllmFreeMemory) {
        let (free, total) = (n.free.unwrap_or(0.0), n.total.unwrap_or(0.0));
        let fit_util = fitting_util(free, total);
        let why = m(MsgId::WhyRolloutFree, &[b(free), b(total), b(n.requested.unwrap_or(0.0))]);
        return Some((Cause::Rollout, why, todo(m(MsgId::DoLowerUtil, &[fx(fit_util.max(0.05))]))));
    }
    if r.has(Format::VllmNoBlocks) {
        return Some((Cause::Rollout, m(MsgId::WhyRolloutNoBlocks, &[]), todo(m(MsgId::DoRolloutShare, &[]))));
    }
    if r.has(Format::VllmSampler) {
        return Some((Cause::Rollout, m(MsgId::WhyVllmSampler, &[]), todo(m(MsgId::DoRolloutShare, &[]))));
    }
    None
}

fn serving(r: &Reading) -> Option<(Cause, Msg, Vec<Advice>)> {
    if let Some(c) = rollout(r) {
        return Some(c);
    }
    let n = &r.numbers;
    if r.has(Format::VllmFreeMemory) {
        let (free, total) = (n.free.unwrap_or(0.0), n.total.unwrap_or(0.0));
        let requested = n.requested.unwrap_or(0.0);
        let held = (total - free).max(0.0);
        let fit_util = fitting_util(free, total);
        if held > 0.25 * total {
            return Some((
                Cause::Zombie,
                m(MsgId::WhyVllmFreeHeld, &[b(free), b(total), b(requested), b(held)]),
                todo(m(MsgId::DoKill, &[])),
            ));
        }
        let why = m(MsgId::WhyVllmFree, &[b(free), b(total), b(requested)]);
        return Some((Cause::KvBudget, why, todo(m(MsgId::DoLowerUtil, &[fx(fit_util.max(0.05))]))));
    }
    if r.has(Format::VllmKv) {
        let (len, kv) = (n.max_model_len.unwrap_or(0.0), n.kv_tokens.unwrap_or(0.0));
        let why = m(MsgId::WhyVllmKv, &[c(len), c(kv)]);
        return Some((Cause::KvBudget, why, todo(m(MsgId::DoMaxModelLen, &[c(kv)]))));
    }
    if r.has(Format::VllmKvV1) {
        let est = n.estimated_max_len.unwrap_or(0.0) as u64;
        let why = m(
            MsgId::WhyVllmKvNeeded,
            &[c(n.max_model_len.unwrap_or(0.0)), b(n.kv_needed.unwrap_or(0.0)), b(n.kv_available.unwrap_or(0.0))],
        );
        return Some((Cause::KvBudget, why, todo(m(MsgId::DoMaxModelLen, &[c(est as f64)]))));
    }
    if r.has(Format::VllmNoBlocks) {
        // A negative pool: would the engine's highest share cover the shortfall?
        if let (Some(kv), Some(total), Some(util)) = (n.kv_available.filter(|kv| *kv < 0.0), n.total, n.utilization) {
            let need = util + (-kv + 0.5 * GIB) / total.max(1.0);
            if need <= MAX_SHARE {
                let why = m(MsgId::WhyVllmNegativeKv, &[b(-kv)]);
                return Some((Cause::KvBudget, why, todo(m(MsgId::DoRaiseUtil, &[fx((need * 100.0).ceil() / 100.0)]))));
            }
            let why = m(MsgId::WhyEngineWeightsExceed, &[b(n.weights.unwrap_or(0.0)), b(total)]);
            return Some((Cause::Shortage, why, todo(m(MsgId::DoQuantizedOrTp, &[]))));
        }
        if let Some(kv) = n.kv_available.filter(|kv| *kv < 0.0) {
            return Some((
                Cause::KvBudget,
                m(MsgId::WhyVllmNegativeKv, &[b(-kv)]),
                todo(m(MsgId::DoEngineLevers, &[])),
            ));
        }
        return Some((Cause::KvBudget, m(MsgId::WhyVllmNoBlocks, &[]), todo(m(MsgId::DoEngineLevers, &[]))));
    }
    if r.has(Format::VllmSampler) {
        return Some((Cause::KvBudget, m(MsgId::WhyVllmSampler, &[]), todo(m(MsgId::DoSampler, &[]))));
    }
    if r.has(Format::Sglang) {
        if let Some(f) = n.utilization.filter(|f| *f < 0.5) {
            return Some((Cause::KvBudget, m(MsgId::WhySglangFraction, &[fx(f)]), todo(m(MsgId::DoEngineLevers, &[]))));
        }
        if let (Some(avail), Some(weights)) = (n.free, n.weights) {
            // Left after the weights, against the engine's highest share of the card.
            if avail < (1.0 - MAX_SHARE) * (avail + weights) {
                let why = m(MsgId::WhySglangAvail, &[b(avail), b(weights)]);
                return Some((Cause::Shortage, why, todo(m(MsgId::DoQuantizedOrTp, &[]))));
            }
            return Some((
                Cause::KvBudget,
                m(MsgId::WhySglangAvail, &[b(avail), b(weights)]),
                todo(m(MsgId::DoEngineLevers, &[])),
            ));
        }
        return Some((Cause::KvBudget, m(MsgId::WhySglang, &[]), todo(m(MsgId::DoEngineLevers, &[]))));
    }
    if r.has(Format::Llamacpp) && r.signals.ollama {
        // Ollama chose the layers and the context itself: its estimate is what missed.
        return Some((Cause::Other, m(MsgId::WhyOllamaEstimate, &[]), todo(m(MsgId::DoOllamaLayers, &[]))));
    }
    if r.has(Format::Llamacpp) {
        let alloc = n.llama_alloc.unwrap_or(0.0);
        return Some(match n.llama_buffer {
            Some(LlamaBuffer::Weights) => {
                (Cause::Shortage, m(MsgId::WhyLlamaWeights, &[b(alloc)]), todo(m(MsgId::DoFewerLayers, &[])))
            }
            Some(LlamaBuffer::Compute) if alloc > 100.0 * GIB => {
                (Cause::Other, m(MsgId::WhyLlamaCompute, &[b(alloc)]), todo(m(MsgId::DoLlamaContext, &[])))
            }
            Some(LlamaBuffer::Compute) => {
                (Cause::KvBudget, m(MsgId::WhyLlamaCompute, &[b(alloc)]), todo(m(MsgId::DoLlamaContext, &[])))
            }
            _ => (Cause::KvBudget, m(MsgId::WhyLlamaKv, &[b(alloc)]), todo(m(MsgId::DoLlamaContext, &[]))),
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
            m(MsgId::WhySmiHeld, &[b(procs), b(total.unwrap_or(0.0))]),
            todo(m(MsgId::DoKill, &[])),
        ));
    }
    let (used, total) = (n.smi_used?, total?);
    (used > (0.05 * total).max(GIB))
        .then(|| (Cause::Zombie, m(MsgId::WhySmiNoProcess, &[b(used), b(total)]), todo(m(MsgId::DoFindHolder, &[]))))
}

/// The ledger's levers for the user's configuration, one variable at a time, ranked.
fn ranked_levers(cause: Cause, s: &Scenario) -> Vec<Advice> {
    let served = s.mode == Mode::Infer && s.serving.engine != Engine::Hf;
    let mut out: Vec<(f64, Advice)> = Vec::new();
    if served && matches!(cause, Cause::KvBudget | Cause::Shortage) {
        for l in Lever::ALL {
            // Only what gains requests or context.
            if let Some((before, a)) = serving_gain(s, l) {
                if a.max_concurrency > before.max_concurrency || a.max_context > before.max_context {
                    let advice =
                        Advice::Serves { lever: l, concurrency: a.max_concurrency, max_context: a.max_context };
                    out.push((a.max_concurrency, advice));
                }
            }
        }
    } else {
        // Fragmentation: the fragmentation node's lever (the caching allocator's holes); a shortage:
        // every lever, by what it saves.
        let candidates: &[Lever] = match cause {
            Cause::Fragmentation => levers(NodeId::Fragmentation),
            Cause::Rollout => &[
                Lever::RolloutShare,
                Lever::RolloutSleep,
                Lever::FewerGenerations,
                Lever::LogprobBatch,
                Lever::NoKl,
                Lever::RolloutServer,
                Lever::Offload,
                Lever::Shard,
            ],
            Cause::Shortage | Cause::LongTail | Cause::KvBudget => &Lever::ALL,
            _ => &[],
        };
        for &l in candidates {
            if let Some(bytes) = saving(s, l).filter(|b| *b > 0) {
                out.push((bytes as f64, Advice::Saves { lever: l, bytes }));
            }
        }
    }
    // Largest first; ties keep the tree's order (an insertion sort: at most ten levers).
    for i in 1..out.len() {
        let mut j = i;
        while j > 0 && out[j - 1].0 < out[j].0 {
            out.swap(j - 1, j);
            j -= 1;
        }
    }
    out.into_iter().take(5).map(|x| x.1).collect()
}

/// A count or ratio for people: an integer with separators, or up to 3 decimals.
fn count(v: f64) -> String {
    use crate::ledger::units::{fixed, group, within};
    let v = within(v, -9e15, 9e15);
    if v.fract() == 0.0 {
        let g = group(v.abs() as u64);
        if v < 0.0 {
            format!("-{g}")
        } else {
            g
        }
    } else {
        fixed(v, 3)
    }
}

/// The numbers a diagnosis rests on, labelled (English, Chinese), for the CLI's text and the page.
pub fn figures(p: &Pasted) -> Vec<((&'static str, &'static str), String)> {
    use crate::ledger::units::human_bytes;
    let n = &p.reading.numbers;
    let bytes = |v: Option<f64>| v.map(human_bytes);
    let plain = |v: Option<f64>| v.map(count);
    // A start-up log's weights, pool and tokens are its own rows ([`startup_figures`]).
    let unless_startup = |v: Option<String>| v.filter(|_| p.startup.is_none());
    let rows = [
        (("tried to allocate", "申请"), bytes(n.tried_to_allocate)),
        (("total", "总量"), bytes(n.total.or(n.smi_total).or(n.mps_max_allowed))),
        (("free", "空闲"), bytes(n.free)),
        (("this process", "本进程"), bytes(n.process)),
        (("other processes", "其他进程"), bytes(p.other_processes)),
        (("allocated", "已分配"), bytes(n.allocated.or(n.mps_allocated))),
        (("reserved but unallocated", "保留未分配"), bytes(n.reserved_unallocated)),
        (("nvidia-smi used", "nvidia-smi 已用"), bytes(n.smi_used)),
        (("peak allocated", "分配峰值"), bytes(n.peak_allocated)),
        (("weights", "权重"), unless_startup(bytes(n.weights))),
        (("utilization", "占比"), plain(n.utilization)),
        (("KV cache available", "可用 KV cache"), unless_startup(bytes(n.kv_available))),
        (("KV cache needed", "所需 KV cache"), bytes(n.kv_needed)),
        (("KV tokens", "KV token 数"), unless_startup(plain(n.kv_tokens))),
        (("max seq len", "最大序列长度"), plain(n.max_model_len)),
        (("llama.cpp buffer", "llama.cpp 缓冲"), bytes(n.llama_alloc)),
        (("steps done", "已跑步数"), plain(n.steps_done)),
    ];
    rows.into_iter().filter_map(|(label, v)| v.map(|v| (label, v))).collect()
}
