//! The memory bill: components, each with the formula that produced it, and the three totals.

use serde::Serialize;

use super::msg::{Arg, Msg};
use super::scenario::{Engine, Release};

/// What a component is. The ids are a public contract (JSON output, `data-testid`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ComponentId {
    Weights,
    AdapterWeights,
    /// Serving: a speculative-decoding drafter's weights (EAGLE head, MTP layer, draft model).
    DraftModel,
    MasterWeights,
    Gradients,
    Optimizer,
    Activations,
    VisionActivations,
    Logits,
    KvCache,
    /// RL: the rollout engine's copy of the policy's weights on the trainer's card.
    RolloutWeights,
    /// RL: the rollout engine's KV pool (vLLM's blocks), or `generate()`'s cache in a rollout.
    RolloutKvCache,
    /// DPO / KL: a frozen copy of the model for the reference log-probabilities.
    ReferenceModel,
    /// PPO: the critic (value model), its weights and optimizer states.
    Critic,
    /// PPO: a reward model's weights.
    RewardModel,
    DequantBuffer,
    GatheredLayer,
    /// DeepSpeed ZeRO-1/2's gradient buckets (and the copy a bucket's reduction makes).
    ZeroBuckets,
    OptimizerStep,
    /// Drill: an evaluation loop without no_grad keeps a second, un-checkpointed graph.
    EvalGraph,
    /// Drill: logits appended to a Python list survive across steps.
    KeptTensors,
    /// Drill: a module (embedding and LM head) left in fp32.
    Fp32Module,
    AllocatorSlack,
    /// Serving engines: memory outside PyTorch's allocator (cuBLAS, attention workspaces, NCCL).
    NonTorch,
    /// Serving engines: the memory CUDA graphs hold.
    CudaGraphs,
    /// RL: the rollout engine's activation peak, CUDA graphs and non-torch memory.
    RolloutWorkspace,
    CudaContext,
    /// Drill: a leftover process of an earlier run holds memory on the card (not this process's).
    ZombieProcess,
}

impl ComponentId {
    /// In bill order (stable: the chart stacks them in this order, bottom to top).
    pub const ALL: [ComponentId; 28] = [
        ComponentId::Weights,
        ComponentId::AdapterWeights,
        ComponentId::DraftModel,
        ComponentId::MasterWeights,
        ComponentId::Gradients,
        ComponentId::Optimizer,
        ComponentId::Activations,
        ComponentId::VisionActivations,
        ComponentId::Logits,
        ComponentId::KvCache,
        ComponentId::RolloutWeights,
        ComponentId::RolloutKvCache,
        ComponentId::ReferenceModel,
        ComponentId::Critic,
        ComponentId::RewardModel,
        ComponentId::DequantBuffer,
        ComponentId::GatheredLayer,
        ComponentId::ZeroBuckets,
        ComponentId::OptimizerStep,
        ComponentId::EvalGraph,
        ComponentId::KeptTensors,
        ComponentId::Fp32Module,
        ComponentId::AllocatorSlack,
        ComponentId::NonTorch,
        ComponentId::CudaGraphs,
        ComponentId::RolloutWorkspace,
        ComponentId::CudaContext,
        ComponentId::ZombieProcess,
    ];

    pub fn id(self) -> &'static str {
        match self {
            ComponentId::Weights => "weights",
            ComponentId::AdapterWeights => "adapter_weights",
            ComponentId::MasterWeights => "master_weights",
            ComponentId::Gradients => "gradients",
            ComponentId::Optimizer => "optimizer",
            ComponentId::Activations => "activations",
            ComponentId::VisionActivations => "vision_activations",
            ComponentId::Logits => "logits",
            ComponentId::KvCache => "kv_cache",
            ComponentId::DraftModel => "draft_model",
            ComponentId::RolloutWeights => "rollout_weights",
            ComponentId::RolloutKvCache => "rollout_kv_cache",
            ComponentId::ReferenceModel => "reference_model",
            ComponentId::Critic => "critic",
            ComponentId::RewardModel => "reward_model",
            ComponentId::RolloutWorkspace => "rollout_workspace",
            ComponentId::DequantBuffer => "dequant_buffer",
            ComponentId::GatheredLayer => "gathered_layer",
            ComponentId::ZeroBuckets => "zero_buckets",
            ComponentId::OptimizerStep => "optimizer_step",
            ComponentId::EvalGraph => "eval_graph",
            ComponentId::KeptTensors => "kept_tensors",
            ComponentId::Fp32Module => "fp32_module",
            ComponentId::ZombieProcess => "zombie_process",
            ComponentId::AllocatorSlack => "allocator_slack",
            ComponentId::CudaContext => "cuda_context",
            ComponentId::NonTorch => "non_torch",
            ComponentId::CudaGraphs => "cuda_graphs",
        }
    }

    /// (low, high) as multiples of the billed bytes: what the scenario leaves open about this line.
    pub fn range_factors(self) -> (f64, f64) {
        match self {
            ComponentId::Activations
            | ComponentId::Logits
            | ComponentId::VisionActivations
            | ComponentId::EvalGraph
            | ComponentId::KeptTensors => ACTIVATION_RANGE,
            ComponentId::CudaContext => CONTEXT_RANGE,
            _ => (1.0, 1.0),
        }
    }

    /// Allocated and freed again within a step (the allocator's holes come from these), as against
    /// what stays through the run.
    pub fn is_transient(self) -> bool {
        use ComponentId::*;
        matches!(
            self,
            Activations
                | VisionActivations
                | Logits
                | DequantBuffer
                | GatheredLayer
                | ZeroBuckets
                | OptimizerStep
                | EvalGraph
                | KeptTensors
        )
    }

    /// Which of the three totals first includes this component.
    pub fn layer(self) -> TotalKind {
        match self {
            ComponentId::AllocatorSlack | ComponentId::CudaGraphs | ComponentId::RolloutWorkspace => {
                TotalKind::Reserved
            }
            ComponentId::CudaContext | ComponentId::ZombieProcess | ComponentId::NonTorch => TotalKind::Device,
            _ => TotalKind::Allocated,
        }
    }
}

/// The three figures people call "peak memory".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TotalKind {
    /// `torch.cuda.max_memory_allocated()`: tensors only.
    Allocated,
    /// `torch.cuda.max_memory_reserved()`: + the caching allocator's slack.
    Reserved,
    /// nvidia-smi: + CUDA context and library workspaces.
    Device,
}

impl TotalKind {
    /// Whether this total counts the lines a total of `layer` first includes (device ⊇ reserved ⊇
    /// allocated).
    pub fn includes(self, layer: TotalKind) -> bool {
        let rank = |k: TotalKind| match k {
            TotalKind::Allocated => 0,
            TotalKind::Reserved => 1,
            TotalKind::Device => 2,
        };
        rank(layer) <= rank(self)
    }
}

/// One line of the bill.
#[derive(Clone, Debug, PartialEq)]
pub struct Component {
    pub id: ComponentId,
    pub bytes: u64,
    /// The formula with the scenario's numbers in it (rendered by `crate::i18n::render`).
    pub formula: Msg,
    /// Where in the course chapter this component is explained.
    pub section: &'static str,
}

/// A line an offload keeps in host RAM: its formula, `kept` bytes of it still on the GPU, and the
/// bytes host RAM holds instead.
pub fn in_host_ram(c: Component, kept: f64) -> (Component, f64) {
    let host = (c.bytes as f64 - kept).max(0.0);
    (line(c.id, kept, c.section, crate::msg!(OnHost, c.formula.arg(), Arg::Bytes(kept))), host)
}

/// A line of `bytes` (rounded, never negative).
pub fn line(id: ComponentId, bytes: f64, section: &'static str, formula: Msg) -> Component {
    Component { id, bytes: to_bytes(bytes), formula, section }
}

/// The fit verdict, with the chapter's 20 % margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Device total at most 80 % of the GPU.
    Fits,
    /// Fits, but inside the 20 % margin the chapter asks to keep.
    FitsWithoutMargin,
    DoesNotFit,
}

/// Saved activations and the loss's buffers, against their count: CPU counts of transformers'
/// own models land within ±4 % (docs/accuracy.md), CUDA kernels' workspaces and the data's real
/// (padded) lengths only add.
pub const ACTIVATION_RANGE: (f64, f64) = (0.95, 1.2);
/// The allocator's slack share, against the share billed (formulas.md §1.7: 5–15 % reported).
pub const SLACK_RANGE: (f64, f64) = (0.3, 2.2);
/// The CUDA context and libraries: 300 MiB with lazy loading … 1 GiB and more before CUDA 11.7.
pub const CONTEXT_RANGE: (f64, f64) = (0.6, 2.0);

/// The chapter's rule of thumb: keep 20 % of the card free (§4).
pub const MARGIN: f64 = 0.20;

/// A message attached to a bill: an assumption made, a derived figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub key: &'static str,
    pub text: Msg,
}

/// The allocator's slack on a set of live tensors: a share of what a step allocates and frees
/// (`ComponentId::is_transient`), a share of what stays, and what FSDP's wrap cache leaves unfilled
/// by the step's default-stream tensors (all but the gathered layers, buckets and step temporaries).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlackRule {
    pub transient: f64,
    pub persistent: f64,
    pub wrap_cache: f64,
}

/// (transient, persistent, reusable) bytes of a live set, for the slack rule.
pub fn slack_basis(live: impl Iterator<Item = (ComponentId, f64)>) -> (f64, f64, f64) {
    let (mut transient, mut persistent, mut reusable) = (0.0, 0.0, 0.0);
    for (id, b) in live.filter(|(id, _)| id.layer() == TotalKind::Allocated) {
        if !id.is_transient() {
            persistent += b;
            continue;
        }
        transient += b;
        if !matches!(id, ComponentId::GatheredLayer | ComponentId::ZeroBuckets | ComponentId::OptimizerStep) {
            reusable += b;
        }
    }
    (transient, persistent, reusable)
}

impl SlackRule {
    /// The slack on a live set given as its (transient, persistent, reusable) bytes.
    pub fn bytes(&self, (transient, persistent, reusable): (f64, f64, f64)) -> f64 {
        let unfilled = (self.wrap_cache - reusable * (1.0 + self.transient)).max(0.0);
        transient * self.transient + persistent * self.persistent + unfilled
    }
}

/// A moment of the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseName {
    Load,
    Forward,
    Loss,
    Backward,
    OptimizerStep,
    ZeroGrad,
    Prefill,
    Decode,
    Profile,
    CudaGraphs,
    Serving,
    /// RL: the completions generated.
    Rollout,
    /// RL / DPO: the no-grad passes for the old policy's and the reference's log-probabilities.
    Logprobs,
}

impl PhaseName {
    pub const ALL: [PhaseName; 13] = [
        PhaseName::Load,
        PhaseName::Forward,
        PhaseName::Loss,
        PhaseName::Backward,
        PhaseName::OptimizerStep,
        PhaseName::ZeroGrad,
        PhaseName::Prefill,
        PhaseName::Decode,
        PhaseName::Profile,
        PhaseName::CudaGraphs,
        PhaseName::Serving,
        PhaseName::Rollout,
        PhaseName::Logprobs,
    ];

    /// The name in the JSON output and the CLI (a public contract).
    pub fn id(self) -> &'static str {
        match self {
            PhaseName::Load => "load",
            PhaseName::Forward => "forward",
            PhaseName::Loss => "loss",
            PhaseName::Backward => "backward",
            PhaseName::OptimizerStep => "optimizer_step",
            PhaseName::ZeroGrad => "zero_grad",
            PhaseName::Prefill => "prefill",
            PhaseName::Decode => "decode",
            PhaseName::Profile => "profile",
            PhaseName::CudaGraphs => "cuda_graphs",
            PhaseName::Serving => "serving",
            PhaseName::Rollout => "rollout",
            PhaseName::Logprobs => "logprobs",
        }
    }
}

/// What is live in one phase: bytes per component (those with none left out), in bill order.
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub name: PhaseName,
    pub components: Vec<(ComponentId, u64)>,
}

impl Phase {
    pub fn bytes(&self, id: ComponentId) -> u64 {
        self.components.iter().filter(|(c, _)| *c == id).map(|(_, b)| *b).sum()
    }

    /// What `torch.cuda.memory_allocated()`, `memory_reserved()` and nvidia-smi would read then.
    pub fn total(&self, kind: TotalKind) -> u64 {
        self.components.iter().filter(|(c, _)| kind.includes(c.layer())).map(|(_, b)| *b).fold(0, u64::saturating_add)
    }
}

/// What one GPU holds beyond its weights (and the lines that stay through `generate()`: a
/// dequantization buffer, a vision tower's working set) at one moment: the cache, the working set
/// of what runs, the logits alive.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Live {
    pub kv: f64,
    pub activations: f64,
    pub logits: f64,
}

impl Live {
    pub fn total(&self) -> f64 {
        self.kv + self.activations + self.logits
    }

    /// The larger moment (the first of equals).
    pub fn max(self, other: Live) -> Live {
        if other.total() > self.total() {
            other
        } else {
            self
        }
    }
}

/// What a bill's phases are made of besides its lines (`super::phases::of`).
#[derive(Clone, Debug, PartialEq)]
pub enum Timeline {
    /// A training step.
    Training(StepAmounts),
    /// `generate()`: what the prefill's and a decoding step's larger moments hold beyond the
    /// weights (`super::inference::moments`; no decoding step when nothing is generated), and what
    /// loading holds beyond them until the weights are tied (`super::inference::Amounts::load_copy`).
    /// `fragmented`: what the prefill leaves reserved beyond its live tensors where a replay of
    /// the caching allocator shows more than the slack rule's share (ChatGLM's remote code).
    Generate { load: f64, prefill: Live, decode: Option<Live>, slack: SlackRule, fragmented: f64 },
    /// A serving engine at start-up.
    Engine,
    /// Phases worked out where the bill was (a preference or RL step: `super::rl`).
    Phases(Vec<Phase>),
}

/// A training step's amounts that no single line holds.
#[derive(Clone, Debug, PartialEq)]
pub struct StepAmounts {
    /// Every gradient of the step (the optimizer step holds them all).
    pub all_gradients: u64,
    /// The gradients that exist at backward's start.
    pub at_start_gradients: u64,
    /// The optimizer step's temporaries.
    pub temporaries: u64,
    /// Gradients in a buffer allocated with the model and live in every phase (Megatron's
    /// contiguous `main_grad`); 0 where they exist from backward only.
    pub buffer_gradients: u64,
    pub slack: SlackRule,
}

/// The `kind` total of `lines` (allocated ⊆ reserved ⊆ device), as a bill adds its own up.
pub fn total(lines: &[Component], kind: TotalKind) -> u64 {
    lines.iter().filter(|c| kind.includes(c.id.layer())).map(|c| c.bytes).fold(0, u64::saturating_add)
}

/// The whole bill for one GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Bill {
    pub components: Vec<Component>,
    pub gpu_bytes: u64,
    /// The model's parameters as the bill counts them (what the scenario line says; for a bill
    /// the reader worker makes, its count, which the page's build may not make itself).
    pub parameters: u64,
    pub notes: Vec<Note>,
    /// The part of the logits line that autograd keeps for backward (the fp32 log-probabilities),
    /// as a saved-tensor hook (tools/mem_report.py) sees it; the line itself is the loss's peak.
    pub saved_logits_bytes: u64,
    /// How much of the activations, logits and gradients lines never coexist within forward +
    /// backward (their sum minus that pass's peak; 0 for inference).
    pub backward_overlap_bytes: u64,
    /// Every gradient of the step, whatever part of them the gradients line holds at the peak.
    pub gradient_bytes: u64,
    /// Allocated bytes a framework detail the scenario leaves open would add (FSDP1's reentrant
    /// checkpoint retention under `gc=1`): in every total's high end, not in its point.
    pub open_high_bytes: u64,
    /// What a serving engine makes of the card (inference with `engine` other than `hf`).
    pub serving: Option<Serving>,
    /// What the step's phases are made of (`super::phases::of`).
    pub timeline: Timeline,
    /// A preference or RL step (`objective` other than `sft`): the `rl` object of the JSON output.
    pub rl: Option<RlSummary>,
    /// Training on a Megatron-style grid: the `parallel` object of the JSON output.
    pub parallel: Option<ParallelSummary>,
}

impl Bill {
    pub fn component(&self, id: ComponentId) -> u64 {
        self.components.iter().filter(|c| c.id == id).map(|c| c.bytes).fold(0, u64::saturating_add)
    }

    fn sum_up_to(&self, kind: TotalKind) -> u64 {
        total(&self.components, kind)
    }

    /// The bytes of one class of tensors whenever they exist: the line's, except for the gradients,
    /// whose line holds only those that coexist with the peak (`gradient_bytes` is all of them).
    pub fn tensor_bytes(&self, id: ComponentId) -> u64 {
        match id {
            ComponentId::Gradients => self.gradient_bytes,
            _ => self.component(id),
        }
    }

    /// A grid's bill the page's build has not computed yet (the reader worker bills grids there).
    pub fn is_pending(&self) -> bool {
        self.parallel.as_ref().is_some_and(|p| p.ranks.is_empty())
    }

    /// What `torch.cuda.max_memory_allocated()` would report.
    pub fn allocated_bytes(&self) -> u64 {
        self.sum_up_to(TotalKind::Allocated)
    }

    /// What `torch.cuda.max_memory_reserved()` would report.
    pub fn reserved_bytes(&self) -> u64 {
        self.sum_up_to(TotalKind::Reserved)
    }

    /// What nvidia-smi would show; the fit verdict uses this one.
    pub fn device_bytes(&self) -> u64 {
        self.sum_up_to(TotalKind::Device)
    }

    /// What the total of `kind` could be, low and high, from what the scenario leaves open: the
    /// saved activations and loss buffers (kernels, the data's real lengths, framework versions:
    /// −5 % … +20 %), the allocator's slack (a third of the share it is billed at … 2.2 times it;
    /// the share: in training 14 % of a step's transient tensors and 2 % of the rest, 3 % in
    /// inference) and the CUDA context (0.6 … 2 times: lazy loading and the CUDA release).
    /// Weights, gradients and optimizer states are exact. A serving engine sizes its pool from a
    /// fixed budget: its range is its point.
    pub fn range(&self, kind: TotalKind) -> (u64, u64) {
        if self.serving.is_some() {
            let point = self.sum_up_to(kind);
            return (point, point);
        }
        // (low, high) of the lines a total first includes, each at its factors.
        let layer = |total: TotalKind| {
            self.components.iter().filter(|c| c.id.layer() == total).fold((0.0, 0.0), |(lo, hi), c| {
                let (l, h) = c.id.range_factors();
                (lo + c.bytes as f64 * l, hi + c.bytes as f64 * h)
            })
        };
        let (mut low, mut high) = layer(TotalKind::Allocated);
        high += self.open_high_bytes as f64;
        if kind == TotalKind::Allocated {
            return (to_bytes(low), to_bytes(high));
        }
        let allocated = self.allocated_bytes().max(1) as f64;
        let share = self.component(ComponentId::AllocatorSlack) as f64 / allocated;
        let reserved_only: f64 = self
            .components
            .iter()
            .filter(|c| c.id.layer() == TotalKind::Reserved && c.id != ComponentId::AllocatorSlack)
            .map(|c| c.bytes as f64)
            .sum();
        low += low * share * SLACK_RANGE.0 + reserved_only;
        high += high * share * SLACK_RANGE.1 + reserved_only;
        if kind == TotalKind::Reserved {
            return (to_bytes(low), to_bytes(high));
        }
        let (device_low, device_high) = layer(TotalKind::Device);
        (to_bytes(low + device_low), to_bytes(high + device_high))
    }

    /// The chapter's verdict on the device total; for a serving engine, whether it starts and
    /// serves the requests at once (`FitsWithoutMargin`: it starts, but requests queue). Never
    /// `Fits` when the high end of the device range does not fit the card.
    pub fn verdict(&self) -> Verdict {
        let mut on_device = verdict_for(self.device_bytes(), self.gpu_bytes);
        if on_device == Verdict::Fits && self.high_end_decides() {
            on_device = Verdict::FitsWithoutMargin;
        }
        if self.rl.as_ref().is_some_and(|r| r.engine_fails) {
            return Verdict::DoesNotFit;
        }
        match &self.serving {
            None => on_device,
            Some(_) if on_device == Verdict::DoesNotFit => Verdict::DoesNotFit,
            Some(s) => match s.status {
                ServingStatus::Serves => Verdict::Fits,
                ServingStatus::Queues { .. } => Verdict::FitsWithoutMargin,
                _ => Verdict::DoesNotFit,
            },
        }
    }

    /// The point fits with the margin but the high end of the device range exceeds the card.
    pub fn high_end_decides(&self) -> bool {
        self.serving.is_none()
            && verdict_for(self.device_bytes(), self.gpu_bytes) == Verdict::Fits
            && self.range(TotalKind::Device).1 > self.gpu_bytes
    }

    pub fn fits(&self) -> bool {
        self.verdict() != Verdict::DoesNotFit
    }

    /// GPU memory minus the device total (negative when it does not fit).
    pub fn headroom_bytes(&self) -> i64 {
        signed_difference(self.gpu_bytes, self.device_bytes())
    }
}

pub fn verdict_for(device_bytes: u64, gpu_bytes: u64) -> Verdict {
    let d = device_bytes as f64;
    let g = gpu_bytes as f64;
    if d <= g * (1.0 - MARGIN) {
        Verdict::Fits
    } else if d <= g {
        Verdict::FitsWithoutMargin
    } else {
        Verdict::DoesNotFit
    }
}

/// Bytes from a floating-point estimate: rounded, never negative, never NaN, saturating at u64::MAX.
pub fn to_bytes(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else {
        // `as` saturates for values above u64::MAX (and for +inf).
        x.round() as u64
    }
}

/// `a − b` as a signed byte count, saturating (a bill's totals saturate at `u64::MAX` for absurd
/// sizes).
pub fn signed_difference(a: u64, b: u64) -> i64 {
    if a >= b {
        (a - b).min(i64::MAX as u64) as i64
    } else {
        -((b - a).min(i64::MAX as u64) as i64)
    }
}

/// What an engine makes of the card at start-up: the `serving` object of the JSON output (its
/// field names are a public contract).
#[derive(Clone, Debug, PartialEq)]
pub struct Serving {
    pub engine: Engine,
    /// The release whose rules were applied.
    pub version: Release,
    /// What the engine budgets for weights, workspaces and the KV pool on one GPU.
    pub budget_bytes: u64,
    pub weights_bytes: u64,
    pub non_torch_bytes: u64,
    pub activation_peak_bytes: u64,
    pub cuda_graph_bytes: u64,
    pub kv_pool_bytes: u64,
    /// Tokens the pool holds, as the engine reports them.
    pub kv_tokens: u64,
    /// vLLM's blocks (`None` for engines without blocks).
    pub kv_blocks: Option<u64>,
    /// Requests of `context_tokens` that fit at once, as vLLM prints it ("4.84x").
    pub max_concurrency: f64,
    /// The longest context (prompt + generated) that `batch` requests can each have.
    pub max_context: u64,
    /// llama.cpp: what stays in host RAM (weights and KV of the layers not on the GPU).
    pub host_bytes: u64,
    /// Prompt + generated tokens per request (vLLM's `max_model_len`).
    pub context_tokens: u64,
    /// Concurrent requests asked for (`batch`).
    pub requests: u64,
    /// The share of the card the engine took: vLLM's `gpu_memory_utilization`, SGLang's
    /// `mem_fraction_static` (1 for llama.cpp).
    pub share: f64,
    pub status: ServingStatus,
    /// The pools the KV memory is cut into: one `full` pool for most models; sliding-window
    /// (`swa`) and recurrent-state (`state`) pools for hybrid ones.
    /// (At most three, in a fixed array: `Serving` stays free of heap data, which the page's
    /// bundle pays for in every copy; [`Serving::pools`] lists them.)
    pub pool_list: [Option<KvPool>; 3],
    /// Requests of `context_tokens` that fit at once when `prefix_share` of each is one common
    /// prefix held once (prefix caching); `max_concurrency` without it.
    pub effective_concurrency: f64,
    /// vLLM: the `--kv-cache-memory` that reproduces this plan (the pool's bytes before blocks).
    pub kv_cache_memory_bytes: u64,
    /// The speculative drafter's weights and the served LoRA slots on one GPU (part of
    /// `weights_bytes`, as vLLM's "Model loading took" counts them).
    pub draft_bytes: u64,
    pub lora_bytes: u64,
}

impl Serving {
    /// The pools the KV memory is cut into.
    pub fn pools(&self) -> impl Iterator<Item = &KvPool> {
        self.pool_list.iter().flatten()
    }
}

/// The pools as the fixed array `Serving` keeps.
pub fn pool_list(pools: &[KvPool]) -> [Option<KvPool>; 3] {
    let mut out = [None; 3];
    for (slot, p) in out.iter_mut().zip(pools) {
        *slot = Some(*p);
    }
    out
}

/// One KV pool of a serving engine: what it holds, its bytes and its capacity (tokens for `full`
/// and `swa`; request states for `state`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KvPool {
    pub kind: PoolKind,
    pub bytes: u64,
    pub tokens: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKind {
    Full,
    Swa,
    State,
}

impl PoolKind {
    pub const ALL: [PoolKind; 3] = [PoolKind::Full, PoolKind::Swa, PoolKind::State];

    pub fn id(self) -> &'static str {
        match self {
            PoolKind::Full => "full",
            PoolKind::Swa => "swa",
            PoolKind::State => "state",
        }
    }
}

/// Whether the engine starts, and whether the requests asked for run at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServingStatus {
    /// `requests` requests of `context_tokens` run at once.
    Serves,
    /// The engine starts, but only `concurrent` requests of that length run at once; the rest wait.
    Queues { concurrent: u64 },
    /// One request of `context_tokens` does not fit the pool (the engine refuses to start).
    ContextTooLong { needed_bytes: u64, available_bytes: u64, longest: u64 },
    /// Nothing is left for the KV cache (`available` may be negative).
    NoKvMemory { available: i64 },
    /// The card's free memory is less than what the engine asks for.
    NotEnoughFree { free_bytes: u64, requested_bytes: u64 },
    /// llama.cpp: what it must allocate on the GPU is more than the card has.
    GpuTooSmall { needed_bytes: u64 },
}

impl ServingStatus {
    /// The engine starts (requests may still queue).
    pub fn starts(self) -> bool {
        matches!(self, ServingStatus::Serves | ServingStatus::Queues { .. })
    }
}

/// One pipeline stage's GPU, as the `parallel` JSON object lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct RankSummary {
    pub stage: u64,
    pub layers: u64,
    pub weights_bytes: u64,
    pub activations_bytes: u64,
    /// What `torch.cuda.max_memory_allocated()` reads on it.
    pub allocated_bytes: u64,
    pub device_bytes: u64,
}

/// The `parallel` object of the JSON output (its field names are a public contract).
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelSummary {
    pub layout: super::scenario::Layout,
    /// The stage whose GPU needs the most, and that GPU's device total.
    pub worst_stage: u64,
    pub worst_bytes: u64,
    /// The stage the bill is of (`stage`, or the worst).
    pub billed_stage: u64,
    pub ranks: Vec<RankSummary>,
}

impl ParallelSummary {
    /// Every GPU's `max_memory_allocated()` added up (what benchmarks that sum the GPUs print).
    pub fn allocated_sum(&self) -> u64 {
        self.ranks.iter().map(|r| r.allocated_bytes).fold(0, u64::saturating_add)
    }
}

/// The `rl` object of the JSON output (its field names are a public contract).
#[derive(Clone, Debug, PartialEq)]
pub struct RlSummary {
    pub objective: super::scenario::Objective,
    /// What generates the completions (`None` for DPO, which has no rollout).
    pub rollout: Option<super::scenario::Rollout>,
    /// Sequences one GPU runs per optimizer step: GRPO's and PPO's completions (micro-batch ×
    /// accumulation: TRL's generation batch), DPO's chosen and rejected sequences.
    pub sequences_per_step: u64,
    pub rollout_weights_bytes: u64,
    pub rollout_pool_bytes: u64,
    /// Tokens the rollout's cache holds: the vLLM pool's capacity, or `generate()`'s sequences ×
    /// (prompt + completion).
    pub rollout_kv_tokens: u64,
    pub reference_bytes: u64,
    pub critic_bytes: u64,
    pub reward_bytes: u64,
    pub peak_phase: PhaseName,
    /// The rollout engine cannot start (too little free memory, or no room for its KV cache).
    pub engine_fails: bool,
}
