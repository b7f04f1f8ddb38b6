//! The accuracy report: the ledger against published peak-memory measurements.
//!
//! The measured set (`tests/data/measured.toml`) holds one `[[case]]` per published figure: the
//! configuration in the query vocabulary, the figure and its unit, what kind of figure it is
//! (`allocated`, `reserved`, `device`, or one component of the bill), the tolerance the source's
//! precision allows, and where it comes from. [`evaluate`] computes every case's estimate and error;
//! [`markdown`] writes `docs/accuracy.md`; [`problems`] lists what breaks the bar (a median absolute
//! error above [`MEDIAN_BAR`], or a case outside its own tolerance).

use serde::Deserialize;

use crate::ledger::bill::{Bill, ComponentId};
use crate::ledger::scenario::{Method, Mode};
use crate::ledger::units::fixed;
use crate::ledger::{estimate, Scenario};
use crate::query;

/// The chapter's bar for homework 1: a median absolute error of at most 10 %.
pub const MEDIAN_BAR: f64 = 0.10;

/// The file: a list of `[[case]]` tables.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetFile {
    case: Vec<Case>,
}

/// One published figure and the configuration that produced it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique, stable: names the case in the report.
    pub id: String,
    /// The configuration in the query vocabulary (docs/query-keys.md).
    pub query: String,
    /// The figure as the source printed it, in `unit`.
    pub figure: f64,
    /// `GB` (10^9 B), `GiB`, `MB` (10^6 B) or `MiB`.
    pub unit: String,
    /// `allocated`, `reserved`, `device`, `saved_tensors`, `step_peak`, `generate_peak`, `decode_peak`,
    /// `allocated_sum`,
    /// a serving figure, or a component id (`weights`, …).
    pub kind: String,
    /// What the source leaves open: `["exact"]`, or any of `length`, `rounding`, `limit`,
    /// `framework`, `table` (see the file's header). The tolerance follows from it.
    pub unknowns: Vec<String>,
    /// The largest absolute relative error this case may show: [`tolerance_for`] its unknowns.
    pub tolerance: f64,
    /// Where the figure is printed (document, table, row).
    pub source: String,
    pub url: String,
    /// `measured-public` for the rows of `../shared/reference/measured-public.md`; empty otherwise.
    #[serde(default)]
    pub origin: String,
    /// What had to be assumed or is known to differ.
    #[serde(default)]
    pub note: String,
    /// A known miss: what the ledger does not model yet that this case needs. An open case outside
    /// its tolerance is listed in the report instead of failing the test; one inside it must lose
    /// the mark (the test fails), so no mark outlives its reason.
    #[serde(default)]
    pub open: String,
}

/// What a figure measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FigureKind {
    Allocated,
    Reserved,
    Device,
    /// What autograd saves for backward, as tools/mem_report.py's saved-tensor hooks count it: the
    /// activations line plus the loss's saved fp32 log-probabilities.
    SavedTensors,
    /// The peak of the tensors one forward + backward pass creates (tools/measure_saved.py --peak):
    /// the allocated total without what exists before the step (weights, adapters, master weights,
    /// optimizer states), without the optimizer step, and with the backward's overlap taken out
    /// (activations and logits are freed while the gradients appear).
    StepPeak,
    /// What Hugging Face `generate()` holds at its peak beyond the weights (tools/measure_generate.py):
    /// the allocated total less the weights line.
    GeneratePeak,
    /// What `generate()` holds once the prompt is in the cache: the `decode` phase's allocated total
    /// (weights, the cache grown to prompt + generated, the last position's logits, a step's
    /// transient), without the prefill's one-layer working set. For sources whose figures, by their
    /// own arithmetic, hold no prefill transient (a figure equal to weights + cache + a constant at
    /// every prompt length, where a true peak grows by the prompt's activations).
    DecodePeak,
    /// Every GPU's `max_memory_allocated()` added up, for sources that sum the GPUs of a device map
    /// or a grid (the `parallel` object's `allocated_sum`; one GPU's allocated total without one).
    AllocatedSum,
    /// A serving engine's figure at start-up (the `serving` object): `kv_pool` (vLLM's "Available
    /// KV cache memory", SGLang's K + V size, llama.cpp's KV buffers), `kv_tokens` ("GPU KV cache
    /// size", `#tokens`, cells), `max_concurrency` ("Maximum concurrency for L tokens per request"),
    /// `activation_peak`, `non_torch` and `cuda_graphs` (the profiler's lines, llama.cpp's compute buffer).
    Serving(ServingFigure),
    Component(ComponentId),
}

/// A figure of the `serving` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServingFigure {
    KvPool,
    KvTokens,
    MaxConcurrency,
    ActivationPeak,
    NonTorch,
    CudaGraphs,
    /// What the engine loaded: the model, a speculative drafter and LoRA slots (vLLM's "Model
    /// loading took").
    ModelLoading,
}

impl ServingFigure {
    pub const ALL: [ServingFigure; 7] = [
        ServingFigure::KvPool,
        ServingFigure::KvTokens,
        ServingFigure::MaxConcurrency,
        ServingFigure::ActivationPeak,
        ServingFigure::NonTorch,
        ServingFigure::CudaGraphs,
        ServingFigure::ModelLoading,
    ];

    pub fn id(self) -> &'static str {
        match self {
            ServingFigure::KvPool => "kv_pool",
            ServingFigure::KvTokens => "kv_tokens",
            ServingFigure::MaxConcurrency => "max_concurrency",
            ServingFigure::ActivationPeak => "activation_peak",
            ServingFigure::NonTorch => "non_torch",
            ServingFigure::CudaGraphs => "cuda_graphs",
            ServingFigure::ModelLoading => "model_loading",
        }
    }

    /// The unit its figures are given in: tokens, a multiple ("x"), or bytes.
    fn unit_kind(self) -> &'static str {
        match self {
            ServingFigure::KvTokens => "tokens",
            ServingFigure::MaxConcurrency => "x",
            _ => "bytes",
        }
    }
}

impl FigureKind {
    pub fn parse(text: &str) -> Option<FigureKind> {
        match text {
            "allocated" => Some(FigureKind::Allocated),
            "reserved" => Some(FigureKind::Reserved),
            "device" => Some(FigureKind::Device),
            "saved_tensors" => Some(FigureKind::SavedTensors),
            "step_peak" => Some(FigureKind::StepPeak),
            "generate_peak" => Some(FigureKind::GeneratePeak),
            "decode_peak" => Some(FigureKind::DecodePeak),
            "allocated_sum" => Some(FigureKind::AllocatedSum),
            other if ServingFigure::ALL.iter().any(|f| f.id() == other) => {
                ServingFigure::ALL.iter().find(|f| f.id() == other).map(|&f| FigureKind::Serving(f))
            }
            other => ComponentId::ALL.iter().find(|c| c.id() == other).map(|&c| FigureKind::Component(c)),
        }
    }

    /// The bill's figure of this kind (bytes, tokens, or a concurrency as vLLM rounds it).
    pub fn of(self, bill: &Bill) -> f64 {
        match self {
            FigureKind::Serving(f) => {
                let Some(s) = &bill.serving else { return 0.0 };
                match f {
                    ServingFigure::KvPool => s.kv_pool_bytes as f64,
                    ServingFigure::KvTokens => s.kv_tokens as f64,
                    ServingFigure::MaxConcurrency => (s.max_concurrency * 100.0).round() / 100.0,
                    ServingFigure::ActivationPeak => s.activation_peak_bytes as f64,
                    ServingFigure::NonTorch => s.non_torch_bytes as f64,
                    ServingFigure::CudaGraphs => s.cuda_graph_bytes as f64,
                    ServingFigure::ModelLoading => s.weights_bytes as f64,
                }
            }
            _ => self.bytes_of(bill) as f64,
        }
    }

    /// Whether `unit` is the kind of unit this figure is given in.
    /// The bill's total this kind reads, if it is one.
    pub fn total(self) -> Option<crate::ledger::bill::TotalKind> {
        use crate::ledger::bill::TotalKind;
        match self {
            FigureKind::Allocated => Some(TotalKind::Allocated),
            FigureKind::Reserved => Some(TotalKind::Reserved),
            FigureKind::Device => Some(TotalKind::Device),
            _ => None,
        }
    }

    pub fn accepts_unit(self, unit: &str) -> bool {
        let wanted = match self {
            FigureKind::Serving(f) => f.unit_kind(),
            _ => "bytes",
        };
        match unit {
            "tokens" | "x" => wanted == unit,
            _ => wanted == "bytes",
        }
    }

    fn bytes_of(self, bill: &Bill) -> u64 {
        match self {
            FigureKind::Serving(_) => 0,
            FigureKind::GeneratePeak => bill.allocated_bytes().saturating_sub(bill.component(ComponentId::Weights)),
            FigureKind::DecodePeak => crate::ledger::phases::of(bill)
                .iter()
                .find(|p| p.name == crate::ledger::phases::PhaseName::Decode)
                .map_or_else(|| bill.allocated_bytes(), |p| p.total(crate::ledger::bill::TotalKind::Allocated)),
            FigureKind::Allocated => bill.allocated_bytes(),
            FigureKind::AllocatedSum => {
                bill.parallel.as_ref().map_or_else(|| bill.allocated_bytes(), |p| p.allocated_sum())
            }
            FigureKind::Reserved => bill.reserved_bytes(),
            FigureKind::Device => bill.device_bytes(),
            FigureKind::SavedTensors => {
                bill.component(ComponentId::Activations).saturating_add(bill.saved_logits_bytes)
            }
            FigureKind::StepPeak => {
                use ComponentId::*;
                let before = [Weights, AdapterWeights, MasterWeights, Optimizer, OptimizerStep]
                    .iter()
                    .map(|&id| bill.component(id))
                    .fold(0, u64::saturating_add);
                bill.allocated_bytes().saturating_sub(before).saturating_sub(bill.backward_overlap_bytes)
            }
            FigureKind::Component(id) => bill.tensor_bytes(id),
        }
    }
}

/// Bytes per unit, for the units sources print.
pub fn unit_bytes(unit: &str) -> Option<f64> {
    match unit {
        "GB" => Some(1e9),
        "GiB" => Some(1024.0 * 1024.0 * 1024.0),
        "MB" => Some(1e6),
        "MiB" => Some(1024.0 * 1024.0),
        "tokens" | "x" => Some(1.0),
        _ => None,
    }
}

/// The kinds of workload the summary groups cases by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Workload {
    Inference,
    InferenceQuantized,
    Serving,
    TrainFull,
    TrainLora,
    TrainQlora,
}

impl Workload {
    pub const ALL: [Workload; 6] = [
        Workload::Inference,
        Workload::InferenceQuantized,
        Workload::Serving,
        Workload::TrainFull,
        Workload::TrainLora,
        Workload::TrainQlora,
    ];

    pub fn of(s: &Scenario) -> Workload {
        match (s.mode, s.method) {
            (Mode::Infer, _) if s.serving.engine != crate::ledger::scenario::Engine::Hf => Workload::Serving,
            (Mode::Infer, _) if !s.quant.is_dense() => Workload::InferenceQuantized,
            (Mode::Infer, _) => Workload::Inference,
            (Mode::Train, Method::Full) => Workload::TrainFull,
            (Mode::Train, Method::Lora) => Workload::TrainLora,
            (Mode::Train, Method::Qlora) => Workload::TrainQlora,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Workload::Inference => "inference, 16-bit weights",
            Workload::InferenceQuantized => "inference, quantized weights",
            Workload::Serving => "serving engines (vLLM, SGLang, llama.cpp)",
            Workload::TrainFull => "training: full fine-tuning",
            Workload::TrainLora => "training: LoRA",
            Workload::TrainQlora => "training: QLoRA",
        }
    }
}

/// Models released from this year on are the current generation (latent and sliding-window
/// attention, MoE with shared experts, MXFP4/FP8 checkpoints): the summary shows them apart.
pub const CURRENT_FROM_YEAR: u16 = 2025;

/// A case with its estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub case: Case,
    pub workload: Workload,
    /// The case's model is a preset released in [`CURRENT_FROM_YEAR`] or later.
    pub current_model: bool,
    /// A preference or RL step (`objective` other than `sft`).
    pub rl_objective: bool,
    /// Training billed as one GPU of a Megatron-style grid (`tp`, `pp`, `ep`, `cp`, `dp`, `dist_optim`).
    pub grid: bool,
    /// The training framework the case names (`framework`; `hf` when it names none).
    pub framework: crate::ledger::scenario::Framework,
    pub measured_bytes: f64,
    pub estimated_bytes: f64,
    /// The bill's (low, high) for a total (allocated, reserved, device); `None` for other kinds.
    pub range: Option<(f64, f64)>,
}

impl Outcome {
    /// (estimate − measurement) / measurement.
    pub fn error(&self) -> f64 {
        (self.estimated_bytes - self.measured_bytes) / self.measured_bytes
    }

    /// The measurement lies inside the bill's range (`None`: not a total).
    pub fn inside_range(&self) -> Option<bool> {
        self.range.map(|(low, high)| self.measured_bytes >= low && self.measured_bytes <= high)
    }

    pub fn within_tolerance(&self) -> bool {
        self.error().abs() <= self.case.tolerance
    }
}

/// What a source can leave open; each adds [`TOLERANCE_STEP`] to the tolerance.
pub const UNKNOWNS: [&str; 5] = ["length", "rounding", "limit", "framework", "table"];
/// Tolerance of a figure with nothing left open, and what each unknown adds.
pub const TOLERANCE_BASE: f64 = 0.10;
pub const TOLERANCE_STEP: f64 = 0.10;
/// Tolerance of exact arithmetic a loader or library prints.
pub const TOLERANCE_EXACT: f64 = 0.02;

/// The tolerance a list of unknowns allows; `None` for an unknown tag.
pub fn tolerance_for(unknowns: &[String]) -> Option<f64> {
    if unknowns.len() == 1 && unknowns[0] == "exact" {
        return Some(TOLERANCE_EXACT);
    }
    let mut seen = Vec::with_capacity(unknowns.len());
    for u in unknowns {
        if !UNKNOWNS.contains(&u.as_str()) || seen.contains(&u) {
            return None;
        }
        seen.push(u);
    }
    Some(TOLERANCE_BASE + TOLERANCE_STEP * unknowns.len() as f64)
}

/// Reads the measured set; errors name the case and the field.
pub fn parse_set(text: &str) -> Result<Vec<Case>, String> {
    let file: SetFile = toml::from_str(text).map_err(|e| format!("measured set: {e}"))?;
    let mut seen = std::collections::HashSet::new();
    for c in &file.case {
        if !seen.insert(c.id.as_str()) {
            return Err(format!("case `{}`: the id is used twice", c.id));
        }
        if unit_bytes(&c.unit).is_none() {
            return Err(format!("case `{}`: unit `{}` is not one of GB, GiB, MB, MiB, tokens, x", c.id, c.unit));
        }
        let Some(kind) = FigureKind::parse(&c.kind) else {
            return Err(format!(
                "case `{}`: kind `{}` is not allocated, reserved, device, saved_tensors, step_peak, a serving figure or a component id",
                c.id, c.kind
            ));
        };
        if !kind.accepts_unit(&c.unit) {
            return Err(format!("case `{}`: kind `{}` is not given in `{}`", c.id, c.kind, c.unit));
        }
        if !(c.figure.is_finite() && c.figure > 0.0) {
            return Err(format!("case `{}`: figure must be a positive number", c.id));
        }
        match tolerance_for(&c.unknowns) {
            None => {
                return Err(format!(
                    "case `{}`: unknowns must be [\"exact\"] or distinct tags from {}",
                    c.id,
                    UNKNOWNS.join(", ")
                ))
            }
            Some(t) if (t - c.tolerance).abs() > 1e-9 => {
                return Err(format!(
                    "case `{}`: tolerance {} does not follow from its unknowns ({})",
                    c.id, c.tolerance, t
                ))
            }
            Some(_) => {}
        }
        if c.source.trim().is_empty() || c.url.trim().is_empty() {
            return Err(format!("case `{}`: source and url are required", c.id));
        }
    }
    Ok(file.case)
}

/// Every case's estimate; a query the ledger does not accept is an error naming the case.
pub fn evaluate(cases: &[Case]) -> Result<Vec<Outcome>, String> {
    cases
        .iter()
        .map(|c| {
            let parsed = query::parse(&c.query);
            if let Some(p) = parsed.errors.first() {
                return Err(format!("case `{}`: `{}`: {}", c.id, p.key, p.message));
            }
            if let Some(p) = parsed.warnings.first() {
                return Err(format!("case `{}`: `{}`: {}", c.id, p.key, p.message));
            }
            let kind =
                FigureKind::parse(&c.kind).ok_or_else(|| format!("case `{}`: unknown kind `{}`", c.id, c.kind))?;
            let unit = unit_bytes(&c.unit).ok_or_else(|| format!("case `{}`: unknown unit `{}`", c.id, c.unit))?;
            let bill = estimate(&parsed.scenario);
            Ok(Outcome {
                case: c.clone(),
                workload: Workload::of(&parsed.scenario),
                current_model: parsed
                    .scenario
                    .model_id
                    .as_deref()
                    .and_then(crate::ledger::presets::model)
                    .is_some_and(|m| m.year >= CURRENT_FROM_YEAR),
                rl_objective: parsed.scenario.is_rl(),
                grid: parsed.scenario.bills_a_grid(),
                framework: parsed.scenario.framework,
                measured_bytes: c.figure * unit,
                estimated_bytes: kind.of(&bill),
                range: kind.total().map(|t| {
                    let (low, high) = bill.range(t);
                    (low as f64, high as f64)
                }),
            })
        })
        .collect()
}

/// Median and worst absolute error of a group of outcomes.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub cases: usize,
    pub median_abs: f64,
    pub worst_abs: f64,
    pub worst_id: String,
    /// Mean signed error: whether the ledger leans over or under.
    pub mean_signed: f64,
}

pub fn summarize<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Option<Summary> {
    let mut errors: Vec<(f64, f64, &str)> =
        outcomes.into_iter().map(|o| (o.error().abs(), o.error(), o.case.id.as_str())).collect();
    if errors.is_empty() {
        return None;
    }
    errors.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = errors.len();
    let median_abs = if n % 2 == 1 { errors[n / 2].0 } else { (errors[n / 2 - 1].0 + errors[n / 2].0) / 2.0 };
    let (worst_abs, _, worst_id) = errors[n - 1];
    let mean_signed = errors.iter().map(|e| e.1).sum::<f64>() / n as f64;
    Some(Summary { cases: n, median_abs, worst_abs, worst_id: worst_id.to_string(), mean_signed })
}

/// What breaks the bar: the median over [`MEDIAN_BAR`], cases outside their tolerance.
pub fn problems(outcomes: &[Outcome]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(s) = summarize(outcomes) {
        if s.median_abs > MEDIAN_BAR {
            out.push(format!(
                "median absolute error {} % is above the {} % bar",
                fixed(s.median_abs * 100.0, 1),
                fixed(MEDIAN_BAR * 100.0, 0)
            ));
        }
    }
    for o in outcomes.iter().filter(|o| !o.case.open.is_empty() && o.within_tolerance()) {
        out.push(format!("case `{}` is marked open but is within its tolerance: remove `open`", o.case.id));
    }
    for o in outcomes.iter().filter(|o| !o.within_tolerance() && o.case.open.is_empty()) {
        out.push(format!(
            "case `{}`: error {} % is outside its tolerance ±{} %",
            o.case.id,
            signed_percent(o.error()),
            fixed(o.case.tolerance * 100.0, 0)
        ));
    }
    out
}

/// `+4.2` / `−4.2` (the ledger's `fixed` formats magnitudes only).
fn signed_percent(x: f64) -> String {
    let p = fixed(x.abs() * 100.0, 1);
    if p.chars().all(|c| c == '0' || c == '.') {
        p
    } else if x >= 0.0 {
        format!("+{p}")
    } else {
        format!("−{p}")
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// `docs/accuracy.md`.
pub fn markdown(outcomes: &[Outcome]) -> String {
    let mut md = String::with_capacity(16 * 1024);
    md.push_str("# Accuracy against published measurements\n\n");
    md.push_str(
        "Generated by `make accuracy` (`vram-ledger --accuracy tests/data/measured.toml`); do not edit by hand.\n\
         Each case is a published figure with the configuration that produced it, written in the query\n\
         vocabulary (docs/query-keys.md), so every row can be opened in the app or the CLI. Error =\n\
         (estimate − measurement) / measurement, on the kind of figure the source printed: `allocated`\n\
         (`torch.cuda.max_memory_allocated()`), `reserved` (`max_memory_reserved()`), `device`\n\
         (nvidia-smi), `decode_peak` (the bill's decode phase, for tables whose figures hold no prefill\n\
         transient), `allocated_sum` (every GPU's `max_memory_allocated()` added up, for tables that sum\n\
         the GPUs of a `device_map`), or one component of the bill. `cargo test` fails when the median absolute error\n\
         passes 10 % or a case leaves its tolerance. A tolerance follows from what the source leaves\n\
         open (2 % for exact arithmetic, else 10 % + 10 % per unknown: data-dependent length, rounding,\n\
         a limit rather than a reading, a framework detail outside the vocabulary, an inconsistent\n\
         table; see tests/data/measured.toml), never from the error.\n\n",
    );
    md.push_str("## Summary\n\n| workload | cases | median abs. error | worst abs. error | mean signed error |\n|---|---|---|---|---|\n");
    let mut row = |label: &str, s: Option<Summary>| {
        if let Some(s) = s {
            md.push_str(&format!(
                "| {label} | {} | {} % | {} % (`{}`) | {} % |\n",
                s.cases,
                fixed(s.median_abs * 100.0, 1),
                fixed(s.worst_abs * 100.0, 1),
                s.worst_id,
                signed_percent(s.mean_signed)
            ));
        }
    };
    row("**all**", summarize(outcomes));
    for w in Workload::ALL {
        row(w.label(), summarize(outcomes.iter().filter(|o| o.workload == w)));
    }
    let current = || outcomes.iter().filter(|o| o.current_model);
    let label = format!("**models of {CURRENT_FROM_YEAR} on**");
    row(&label, summarize(current()));
    row("… inference weights as loaded", summarize(current().filter(|o| o.case.kind == "weights")));
    row("… KV cache", summarize(current().filter(|o| o.case.kind == "kv_cache")));
    row("**preference and RL** (`objective` ≠ sft)", summarize(outcomes.iter().filter(|o| o.rl_objective)));
    row("**training on a parallel grid** (`tp` `pp` `ep` `cp` `dp`)", summarize(outcomes.iter().filter(|o| o.grid)));
    for f in crate::ledger::scenario::Framework::ALL.iter().skip(1) {
        let label = format!("training with `framework={}` ({})", f.id(), f.name());
        row(&label, summarize(outcomes.iter().filter(|o| o.framework == *f)));
    }
    let serving = || outcomes.iter().filter(|o| o.workload == Workload::Serving);
    for f in ServingFigure::ALL {
        let label = format!("serving: `{}`", f.id());
        row(&label, summarize(serving().filter(|o| o.case.kind == f.id())));
    }
    row("serving: `weights` as loaded", summarize(serving().filter(|o| o.case.kind == "weights")));
    row("… everything else", summarize(current().filter(|o| o.case.kind != "weights" && o.case.kind != "kv_cache")));
    let problems = problems(outcomes);
    md.push('\n');
    if problems.is_empty() {
        md.push_str("Every case not marked open is within its tolerance and the median is within the 10 % bar.\n");
    } else {
        md.push_str("**Outside the bar:**\n\n");
        for p in &problems {
            md.push_str(&format!("- {p}\n"));
        }
    }
    let open: Vec<&Outcome> = outcomes.iter().filter(|o| !o.case.open.is_empty()).collect();
    if !open.is_empty() {
        md.push_str("\n**Open — known misses, outside their tolerance, with what the ledger does not model yet:**\n\n");
        for o in &open {
            md.push_str(&format!(
                "- `{}` ({} %): {}\n",
                o.case.id,
                signed_percent(o.error()),
                cell(o.case.open.trim())
            ));
        }
    }
    md.push_str(
        "\n## The ranges\n\nEach total has a range, low–high, from what the scenario leaves open (src/ledger/bill.rs:\n\
         activations and loss buffers −5 % … +20 %, the allocator's slack 0.3 … 2.2 times its share, the CUDA\n\
         context 0.6 … 2 times); the verdict never says \"fits\" when the high end exceeds the card. How many\n\
         measurements of a total fall inside, above or below it:\n\n\
         | workload | totals | inside | above the high end | below the low end |\n|---|---|---|---|---|\n",
    );
    for w in Workload::ALL {
        let of: Vec<&Outcome> = outcomes.iter().filter(|o| o.workload == w && o.range.is_some()).collect();
        if of.is_empty() {
            continue;
        }
        let inside = of.iter().filter(|o| o.inside_range() == Some(true)).count();
        let above = of.iter().filter(|o| o.range.is_some_and(|r| o.measured_bytes > r.1)).count();
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            w.label(),
            of.len(),
            inside,
            above,
            of.len() - inside - above
        ));
    }
    md.push_str("\n## Cases\n\n| case | workload | kind | measured | estimate | error | tolerance (unknowns) | source |\n|---|---|---|---|---|---|---|---|\n");
    for o in outcomes {
        let unit = unit_bytes(&o.case.unit).unwrap_or(1.0);
        let decimals = decimals_of(o.case.figure);
        md.push_str(&format!(
            "| `{}` | {} | {} | {} {} | {} {} | {} %{} | ±{} % ({}) | [{}]({}) |\n",
            o.case.id,
            o.workload.label(),
            o.case.kind,
            fixed(o.case.figure, decimals),
            o.case.unit,
            fixed(o.estimated_bytes / unit, decimals.max(2)),
            o.case.unit,
            signed_percent(o.error()),
            if o.within_tolerance() { "" } else { " ✗" },
            fixed(o.case.tolerance * 100.0, 0),
            if o.case.unknowns.is_empty() { "none".to_string() } else { o.case.unknowns.join(", ") },
            cell(&o.case.source),
            o.case.url
        ));
    }
    md.push_str("\n## Configurations and notes\n\n");
    for o in outcomes {
        md.push_str(&format!("- `{}`: `{}`", o.case.id, o.case.query));
        if !o.case.note.is_empty() {
            md.push_str(&format!(" — {}", cell(o.case.note.trim())));
        }
        md.push('\n');
    }
    md
}

/// Decimals the source printed (up to 4), so the estimate is shown at the same precision.
fn decimals_of(x: f64) -> u32 {
    (0..=4).find(|&d| ((x * 10f64.powi(d as i32)).round() - x * 10f64.powi(d as i32)).abs() < 1e-6).unwrap_or(4)
}
