//! A preference or RL step (`objective` = `dpo`, `grpo`, `ppo`) as its phases, each per GPU:
//! `load`; GRPO's and PPO's `rollout` (the completions generated: `generate()`'s cache in the
//! trainer, or a vLLM engine's weights and KV pool on the same card); `logprobs` (the no-grad
//! passes for the old policy's and the reference's log-probabilities, `logprob_batch` sequences at
//! a time); then the policy's `forward`, `loss`, `backward`, `optimizer_step`, `zero_grad` — the
//! supervised step's phases over the RL step's sequences, the loss's logits over the completion.
//!
//! Everything here is made of bills the ledger already writes: the trainer's step
//! (`step::step` over `prompt_len + completion_len` tokens, DPO's chosen and rejected
//! sequences as twice the batch), a `generate()` or vLLM bill for the rollout (the engine sized by
//! `rollout_util` as `gpu_util`, tensor parallel 1 on each GPU), inference bills for the reference
//! copy and the reward model, a training bill for PPO's critic. What stays between phases follows
//! the engine's `sleep` level: awake, its weights and pool are resident in every phase; asleep
//! (vLLM's sleep mode, Unsloth's standby) they exist in the rollout only, its CUDA graphs and
//! memory outside PyTorch stay. The phases are never summed: the bill is the largest.

pub use super::bill::RlSummary;
use super::bill::{
    line, slack_basis, to_bytes, Bill, Component, ComponentId, Note, ParallelSummary, SlackRule, Timeline,
};
use super::framework;
use super::msg::{Arg, Msg, MsgId};
use super::phases::{self, Phase, PhaseName};
use super::presets;
use super::scenario::{
    Drill, Engine, EngineSettings, Layout, Method, Mode, Objective, Reference, RlSettings, Rollout, Scenario,
    MAX_CONTEXT,
};
use super::step::{in_bill_order, step};
use super::storage::StorageFormat;
use crate::msg;

/// The most sequences a rollout or a log-probability pass runs at once (the `batch` key's limit).
const MAX_SEQUENCES: u64 = 65_536;
/// The page's build sends Unsloth's vLLM rollout to the reader worker (`Scenario::billed_on_demand`).
const PAGE: bool = cfg!(feature = "page");

/// The share of the allocator's slack on what stays (as `step::SLACK_PERSISTENT`).
const SLACK_PERSISTENT: f64 = super::step::SLACK_PERSISTENT;

/// The trainer's step: the RL step's sequences (GRPO / PPO: prompt + completion tokens each; DPO:
/// the chosen and the rejected sequence of each pair).
fn trainer_scenario(s: &Scenario) -> Scenario {
    let mut t = s.clone();
    (t.seq, t.batch) = s.trainer_sequences();
    t
}

/// An inference scenario on one GPU over the policy's model: `batch` sequences of `prompt` tokens,
/// `generated` more, weights in `quant`, served by `engine`.
fn inference_scenario(s: &Scenario, batch: u64, prompt: u64, generated: u64, quant: StorageFormat) -> Scenario {
    let mut i = s.clone();
    i.mode = Mode::Infer;
    i.batch = batch.clamp(1, MAX_SEQUENCES);
    i.seq = prompt.clamp(1, MAX_CONTEXT);
    i.generated = generated.min(MAX_CONTEXT);
    i.quant = quant;
    i.quant_layers = None;
    i.gpus = 1;
    i.layout = Layout::default();
    i.zero = 0;
    i.drill = Drill::default();
    i.rl = RlSettings::default();
    i.serving = EngineSettings::default();
    i
}

/// The weights a second copy of the policy's model holds (the reference, the rollout engine's):
/// for full fine-tuning the dtype the trainer loads (fp32 with `precision=fp32`, as TRL before 0.19
/// loaded a model without a `torch_dtype`; else bf16), the frozen base's format for adapters.
fn copy_format(s: &Scenario) -> StorageFormat {
    match s.method {
        Method::Full if s.precision == super::scenario::Precision::Fp32 => StorageFormat::Fp32,
        Method::Full => StorageFormat::Bf16,
        Method::Lora | Method::Qlora => s.quant,
    }
}

/// Bytes of `lines` of `id`, and its line.
fn find(lines: &[Component], id: ComponentId) -> Option<&Component> {
    lines.iter().find(|c| c.id == id && c.bytes > 0)
}

/// A line of `id` whose formula wraps another's (`RlRollout`: "rollout (vLLM): …").
fn rollout_line(id: ComponentId, bytes: u64, who: &'static str, formula: &Msg) -> Component {
    Component { id, bytes, formula: msg!(RlRollout, Arg::Code(who), formula.clone().arg()), section: "§3" }
}

/// The rollout: its lines in the rollout phase, what of them stays in the phases after it, the
/// pool's tokens, and whether the engine fails to start.
struct RolloutLines {
    during: Vec<Component>,
    after: Vec<Component>,
    weights: u64,
    pool: u64,
    kv_tokens: u64,
    fails: bool,
}

fn rollout_lines(s: &Scenario, trainer: &Bill, sequences: u64, notes: &mut Vec<Note>) -> RolloutLines {
    let rl = &s.rl;
    let mut out = RolloutLines { during: vec![], after: vec![], weights: 0, pool: 0, kv_tokens: 0, fails: false };
    match rl.rollout {
        Rollout::Server => {}
        Rollout::Hf => {
            // generate() with the trainer's own model: its cache, a step's working set, the logits.
            let i = inference_scenario(s, sequences, rl.prompt_len, rl.completion_len, copy_format(s));
            let b = step(&i);
            for id in [ComponentId::KvCache, ComponentId::Activations, ComponentId::Logits, ComponentId::DequantBuffer]
            {
                if let Some(c) = find(&b.components, id) {
                    let as_id = if id == ComponentId::KvCache { ComponentId::RolloutKvCache } else { id };
                    out.during.push(rollout_line(as_id, c.bytes, "generate()", &c.formula));
                }
            }
            out.pool = b.component(ComponentId::KvCache);
            out.kv_tokens = sequences.saturating_mul(rl.prompt_len.saturating_add(rl.completion_len));
        }
        Rollout::Colocate | Rollout::Shared => engine_rollout(s, trainer, sequences, notes, &mut out),
    }
    out
}

/// A vLLM engine on the trainer's card (`colocate`: its own weights; `shared`: the trainer's):
/// its lines from the engine's own bill at `rollout_util`, what stays after the rollout by the
/// sleep level, and whether it starts.
fn engine_rollout(s: &Scenario, trainer: &Bill, sequences: u64, notes: &mut Vec<Note>, out: &mut RolloutLines) {
    let rl = &s.rl;
    let shared = rl.rollout == Rollout::Shared;
    let quant = if shared { copy_format(s) } else { StorageFormat::Bf16 };
    let mut i = inference_scenario(s, engine_sequences(s, sequences), rl.prompt_len, rl.completion_len, quant);
    // The page's build bills an engine on one GPU (`rollout_tp` is the reader worker's key).
    i.gpus = if PAGE { 1 } else { rl.rollout_tp.max(1) };
    i.serving.engine = Engine::Vllm;
    i.serving.gpu_util = Some(rl.rollout_util);
    // `engine=vllm&engine_version=…` on an RL link names the rollout engine's release (how it sizes
    // its pool: the V0 engine before 0.8 captured its CUDA graphs after, `serving::vllm`).
    if s.serving.engine == Engine::Vllm {
        i.serving.version = s.serving.version;
    }
    unsloth_engine(s, &mut i, notes);
    let b = step(&i);
    let Some(engine) = &b.serving else { return };
    let formula = |id: ComponentId| b.components.iter().find(|c| c.id == id).map(|c| c.formula.clone());
    if !shared {
        if let Some(f) = formula(ComponentId::Weights) {
            out.during.push(rollout_line(ComponentId::RolloutWeights, engine.weights_bytes, "vLLM", &f));
        }
        out.weights = engine.weights_bytes;
    }
    if let Some(f) = formula(ComponentId::KvCache) {
        out.during.push(rollout_line(ComponentId::RolloutKvCache, engine.kv_pool_bytes, "vLLM", &f));
    }
    out.pool = engine.kv_pool_bytes;
    out.kv_tokens = engine.kv_tokens;
    let resident = engine.cuda_graph_bytes.saturating_add(engine.non_torch_bytes);
    let workspace = |activations: u64| {
        let bytes = resident.saturating_add(activations);
        let f = msg!(
            RlEngineWorkspace,
            Arg::Bytes(activations as f64),
            Arg::Bytes(engine.cuda_graph_bytes as f64),
            Arg::Bytes(engine.non_torch_bytes as f64)
        );
        rollout_line(ComponentId::RolloutWorkspace, bytes, "vLLM", &f)
    };
    out.during.push(workspace(engine.activation_peak_bytes));
    // Outside the rollout the engine's activation memory is the caching allocator's, free
    // for the trainer; awake, its weights and pool stay; asleep, its graphs and the memory
    // outside PyTorch do.
    out.after.push(workspace(0));
    if rl.sleep == 0 {
        out.after.extend(out.during.iter().filter(|c| c.id != ComponentId::RolloutWorkspace).cloned());
    } else if rl.sleep == 1 && !shared {
        notes.push(Note { key: "rl_sleep_host", text: msg!(NoteRlSleepHost, Arg::Bytes(out.weights as f64)) });
    }
    // vLLM checks at start-up that what it asks for is free: the trainer's weights are on
    // the card by then (TRL builds the engine after the model is placed).
    let requested = rl.rollout_util * s.gpu.torch_bytes as f64;
    let held: u64 = [ComponentId::Weights, ComponentId::AdapterWeights, ComponentId::CudaContext]
        .iter()
        .map(|&id| trainer.component(id))
        .fold(0, u64::saturating_add);
    let free = s.gpu.torch_bytes.saturating_sub(held) as f64;
    if !engine.status.starts() {
        out.fails = true;
        notes.push(Note { key: "rl_engine", text: msg!(NoteRlEngineNoCache, Arg::Factor(rl.rollout_util)) });
    } else if !shared && free < requested {
        out.fails = true;
        notes.push(Note {
            key: "rl_engine",
            text: msg!(NoteRlEngineFree, Arg::Bytes(free), Arg::Factor(rl.rollout_util), Arg::Bytes(requested)),
        });
    }
}

/// The sequences one engine generates: its tensor-parallel group's prompts (TRL gathers them
/// within the group); on a grid, whose tensor- and pipeline-parallel GPUs share their data, the
/// step's `sequences × dp` over the grid's engines (`gpus ÷ rollout_tp`).
fn engine_sequences(s: &Scenario, sequences: u64) -> u64 {
    let tp = s.rl.rollout_tp.max(1);
    if PAGE {
        sequences
    } else if s.rl_on_grid() {
        let l = &s.layout;
        sequences.saturating_mul(l.dp.max(1)).saturating_mul(tp).div_ceil(l.gpus().max(1)).max(1)
    } else {
        sequences.saturating_mul(tp)
    }
}

/// Unsloth's `fast_inference` sizes its engine's batch and gives it a LoRA slot of the adapter's
/// rank (`load_vllm`: `framework::unsloth_vllm_batch`); the page sends such a link to the reader
/// worker (`Scenario::rolls_out_on_unsloth_vllm`), whose build bills it.
fn unsloth_engine(s: &Scenario, i: &mut Scenario, notes: &mut Vec<Note>) {
    if PAGE || !s.rolls_out_on_unsloth_vllm() {
        return;
    }
    let rl = &s.rl;
    let context = rl.prompt_len.saturating_add(rl.completion_len);
    let Some(b) = framework::unsloth_vllm_batch(s, rl.rollout_util, s.gpu.torch_bytes as f64, context) else {
        return;
    };
    i.serving.max_num_seqs = Some(b.max_num_seqs);
    i.serving.max_batched_tokens = Some(b.max_batched_tokens);
    if s.method != Method::Full {
        i.serving.max_loras = 1;
        i.serving.max_lora_rank = Some(s.rank);
    }
    notes.push(Note {
        key: "rl_unsloth_vllm",
        text: msg!(
            NoteRlUnslothVllm,
            Arg::Bytes(b.kv_room),
            Arg::Count(b.max_num_seqs),
            Arg::Count(b.max_batched_tokens)
        ),
    });
}

/// The trainer's lines off the card while a colocated engine generates (`rollout_offload`), as
/// ms-swift's `offload_context` moves them (swift/megatron/trainers/rollout_mixin.py and utils.py @
/// 3602360): `optimizer` the fp32 master copy and the states; `all` also the weights (the trained
/// ones' buffer and a frozen base), the gradient buffer (freed; verl's `grad_offload` copies it) and
/// the reference model. An engine that reads the trainer's weights (`shared`) keeps them.
fn offloaded_for_rollout(s: &Scenario) -> &'static [ComponentId] {
    use super::scenario::TrainerOffload;
    use ComponentId::{AdapterWeights, Gradients, MasterWeights, Optimizer, ReferenceModel, Weights};
    match s.rl.rollout_offload {
        _ if PAGE || !s.generates() || !matches!(s.rl.rollout, Rollout::Colocate | Rollout::Shared) => &[],
        TrainerOffload::None => &[],
        TrainerOffload::All if s.rl.rollout == Rollout::Colocate => {
            &[Weights, AdapterWeights, Gradients, MasterWeights, Optimizer, ReferenceModel]
        }
        TrainerOffload::Optimizer | TrainerOffload::All => &[MasterWeights, Optimizer],
    }
}

/// The no-grad log-probability pass: one layer's working set over `batch` sequences of `tokens`,
/// and the logits of `logit_tokens` each, scaled by the temperature in place (TRL ≥ 1.0; before,
/// `logits / temperature` made a copy), with one sequence's log-softmax at a time (TRL's
/// `selective_log_softmax` loops over the sequences). `autocast`: the trainer's model runs under
/// Accelerate's mixed precision, which returns its 16-bit logits converted to fp32 — both exist at
/// the conversion, 2 + 4 B, and each row's logsumexp works in fp32; else the 16-bit logits alone.
/// A fused loss (`loss=fused`: Unsloth's GRPO) computes them from the hidden states one sequence's
/// completion at a time, in 16 bits with an fp32 log-softmax: no batch × tokens × vocab tensor.
fn logprob_lines(s: &Scenario, batch: u64, tokens: u64, logit_tokens: u64, autocast: bool) -> [Component; 2] {
    let i = inference_scenario(s, batch, tokens, 0, copy_format(s));
    let working = step(&i).component(ComponentId::Activations);
    let vocab = s.architecture.vocab;
    let (per_logit, per_row_logit) = if autocast { (2.0 + 4.0, 4.0) } else { (2.0, 2.0) };
    let logits = if s.loss() == super::scenario::LossKernel::Fused {
        logit_tokens as f64 * vocab as f64 * (2.0 + 4.0)
    } else {
        batch as f64 * logit_tokens as f64 * vocab as f64 * per_logit
            + logit_tokens as f64 * vocab as f64 * per_row_logit
    };
    let args = [Arg::Int(batch), Arg::Count(logit_tokens), Arg::Count(vocab), Arg::Factor(per_logit)];
    let formula = Msg::with(if autocast { MsgId::RlLogprobLogitsFp32 } else { MsgId::RlLogprobLogits }, args);
    [
        line(
            ComponentId::Activations,
            working as f64,
            "§3",
            msg!(RlLogprobActivations, Arg::Int(batch), Arg::Count(tokens), Arg::Bytes(working as f64)),
        ),
        line(ComponentId::Logits, logits, "§1", formula),
    ]
}

/// PPO's critic as a training step of its own (the policy's method and optimizer; on a grid laid
/// out as the policy, verl's and Megatron-SWIFT's critic), and its name.
fn critic_bill(s: &Scenario, trainer_s: &Scenario, grid: bool) -> (String, Bill) {
    let mut c = trainer_scenario(trainer_s);
    c.rl = RlSettings::default();
    let name = match s.rl.critic.and_then(presets::model) {
        Some(p) => {
            c.model_id = Some(p.id.to_string());
            c.architecture = p.architecture.clone();
            p.id.to_string()
        }
        None => s.architecture.name.to_string(),
    };
    (name, if !PAGE && grid { super::parallel::estimate(&c) } else { step(&c) })
}

/// What of the critic's own step is on the card beside the policy's when one backward runs through
/// both (`ppo_update=joint`, TRL's `PolicyAndValueWrapper`): its activations, gradients, gathered
/// layers, buckets and step, by phase (its weights and states are the resident line; its value head
/// scores one number per token, so it has no logits to speak of).
const JOINT_CRITIC: [ComponentId; 7] = [
    ComponentId::Gradients,
    ComponentId::Activations,
    ComponentId::VisionActivations,
    ComponentId::DequantBuffer,
    ComponentId::GatheredLayer,
    ComponentId::ZeroBuckets,
    ComponentId::OptimizerStep,
];

/// The critic's phases when its update is joint with the policy's (`None` otherwise).
fn joint_critic(s: &Scenario, critic: Option<&(String, Bill)>) -> Option<Vec<Phase>> {
    let joint = s.rl.ppo_update == super::scenario::PpoUpdate::Joint;
    critic.filter(|_| joint).map(|(_, b)| phases::of(b))
}

/// Lines that stay in every phase: the reference copy, PPO's critic (its own step, `critic`) and
/// reward model. On a grid the reference is the grid step's own line (`parallel::stage_reference`),
/// the critic keeps its gradient buffer (Megatron's `main_grad`) and the reward model is split as
/// the policy's dense layers are (÷ tp × pp).
fn resident_lines(s: &Scenario, critic: Option<&(String, Bill)>, grid: bool) -> Vec<Component> {
    let grid = !PAGE && grid;
    let mut lines = Vec::new();
    let sharded = match () {
        _ if grid => (s.layout.tp.max(1) * s.layout.pp.max(1)) as f64,
        _ if s.gpus > 1 && s.zero == 3 => s.gpus as f64,
        _ => 1.0,
    };
    if s.reference() == Some(Reference::Model) && !grid {
        let b = step(&inference_scenario(s, 1, 1, 0, copy_format(s)));
        if let Some(w) = find(&b.components, ComponentId::Weights) {
            let suffix = super::msg::when(sharded > 1.0, || msg!(ShardZero, Arg::Int(s.gpus), Arg::Int(3)));
            let formula = msg!(RlReference, w.formula.clone().arg(), suffix);
            lines.push(line(ComponentId::ReferenceModel, w.bytes as f64 / sharded, "§1", formula));
        }
    }
    if let Some((name, b)) = critic {
        let ids =
            [ComponentId::Weights, ComponentId::AdapterWeights, ComponentId::MasterWeights, ComponentId::Optimizer];
        let buffer = if grid { b.component(ComponentId::Gradients) } else { 0 };
        let bytes = ids.iter().map(|&id| b.component(id)).fold(buffer, u64::saturating_add);
        lines.push(line(
            ComponentId::Critic,
            bytes as f64,
            "§1",
            if grid {
                msg!(RlCriticGrid, Arg::Text(name.clone()), Arg::Bytes(bytes as f64))
            } else {
                msg!(RlCritic, Arg::Text(name.clone()), Arg::Bytes(bytes as f64))
            },
        ));
        if let Some(p) = s.rl.reward.and_then(presets::model) {
            let mut r = inference_scenario(s, 1, 1, 0, StorageFormat::Bf16);
            r.model_id = Some(p.id.to_string());
            r.architecture = p.architecture.clone();
            let w = step(&r).component(ComponentId::Weights);
            lines.push(line(
                ComponentId::RewardModel,
                w as f64 / sharded,
                "§1",
                msg!(RlReward, Arg::Code(p.id), Arg::Bytes(w as f64 / sharded)),
            ));
        }
    }
    lines
}

/// The allocator's slack of a phase the trainer's step does not have: the step's rule on what is
/// live, the rollout engine's lines left out (its pool is one allocation of its own budget).
fn slack_line(rule: &SlackRule, live: &[Component]) -> Component {
    let basis = slack_basis(
        live.iter()
            .filter(|c| !matches!(c.id, ComponentId::RolloutWeights | ComponentId::RolloutKvCache))
            .map(|c| (c.id, c.bytes as f64)),
    );
    let bytes = rule.bytes(basis);
    let allocated = basis.0 + basis.1;
    let share = if allocated > 0.0 { 100.0 * bytes / allocated } else { 0.0 };
    line(ComponentId::AllocatorSlack, bytes, "§3 ⑦", msg!(AllocatorSlack, Arg::Bytes(allocated), Arg::Fixed(share, 1)))
}

fn as_phase(name: PhaseName, lines: &[Component]) -> Phase {
    let components = ComponentId::ALL
        .iter()
        .map(|&id| (id, lines.iter().filter(|c| c.id == id).map(|c| c.bytes).fold(0, u64::saturating_add)))
        .filter(|(_, b)| *b > 0)
        .collect();
    Phase { name, components }
}

/// What an RL step's phases are made of: the trainer's step, the rollout's lines, the lines that
/// stay in every phase, the allocator's rule.
struct Parts<'a> {
    s: &'a Scenario,
    trainer_s: Scenario,
    trainer: Bill,
    rollout: RolloutLines,
    /// The reference copy, the critic, the reward model.
    resident: Vec<Component>,
    /// Those of them on the GPU outside the log-probability pass (an offloaded reference is not).
    stays: Vec<Component>,
    rule: SlackRule,
    offloaded: bool,
    /// The trainer's model runs under Accelerate's mixed precision (its logits come back in fp32).
    autocast: bool,
    /// PPO with one backward through the policy and the critic: the critic's phases.
    joint: Option<Vec<Phase>>,
    /// The policy's step is a Megatron grid's (`Scenario::rl_on_grid`).
    grid: bool,
}

/// Sequences per GPU per step, and the notes on them (TRL refuses a generation batch that is not
/// a multiple of `generations`).
fn sequences(s: &Scenario, trainer_s: &Scenario, notes: &mut Vec<Note>) -> u64 {
    let rl = &s.rl;
    if rl.objective == Objective::Dpo {
        return trainer_s.batch.saturating_mul(s.accum);
    }
    let sequences = s.batch.saturating_mul(s.accum);
    if !PAGE && s.rl_on_grid() {
        let l = &s.layout;
        let engines = (l.gpus() / rl.rollout_tp.max(1)).max(1);
        let on_grid = rl.rollout != Rollout::Server;
        let rollout = super::msg::when(on_grid, || {
            msg!(
                RlGridEngines,
                Arg::Int(engines),
                Arg::Int(rl.rollout_tp.max(1)),
                Arg::Int(engine_sequences(s, sequences))
            )
        });
        let global = sequences.saturating_mul(l.dp.max(1));
        let text = msg!(NoteRlGridRollout, Arg::Int(sequences), Arg::Int(global), rollout);
        notes.push(Note { key: "rl_grid_rollout", text });
        return sequences;
    }
    notes.push(Note {
        key: "rl_sequences",
        text: msg!(NoteRlSequences, Arg::Int(sequences), Arg::Count(rl.prompt_len), Arg::Count(rl.completion_len)),
    });
    let global = sequences.saturating_mul(s.gpus.max(1));
    if rl.generations > 0 && global % rl.generations != 0 {
        notes.push(Note {
            key: "rl_generations",
            text: msg!(NoteRlDivisible, Arg::Int(global), Arg::Int(rl.generations)),
        });
    }
    sequences
}

impl Parts<'_> {
    fn has_rollout(&self) -> bool {
        self.s.generates()
    }

    /// The phases the trainer's step does not have, each as lines with their formulas: the
    /// rollout, the log-probability pass — the trainer's resident lines, what stays, their own
    /// lines and the slack on them.
    fn own_phases(&self, trainer_load: Option<&Phase>) -> Vec<(PhaseName, Vec<Component>)> {
        let (s, rl) = (self.s, &self.s.rl);
        let load_lines: Vec<Component> = trainer_load
            .map(|load| {
                let kept = self.trainer.components.iter().filter(|c| c.id != ComponentId::AllocatorSlack);
                kept.filter(|c| load.bytes(c.id) > 0)
                    .map(|c| Component { bytes: load.bytes(c.id), ..c.clone() })
                    .collect()
            })
            .unwrap_or_default();
        let own_phase = |extra: &[Component], away: &[ComponentId]| -> Vec<Component> {
            let mut lines = if PAGE || away.is_empty() {
                let mut lines = load_lines.clone();
                lines.extend(self.stays.iter().cloned());
                lines
            } else {
                load_lines.iter().chain(&self.stays).filter(|c| !away.contains(&c.id)).cloned().collect()
            };
            lines.extend(extra.iter().cloned());
            let slack = slack_line(&self.rule, &lines);
            lines.push(slack);
            lines
        };
        let mut own = Vec::new();
        if self.has_rollout() && rl.rollout != Rollout::Server {
            own.push((PhaseName::Rollout, own_phase(&self.rollout.during, offloaded_for_rollout(s))));
        }
        if self.has_rollout() || matches!(s.reference(), Some(Reference::Adapter | Reference::Model)) {
            let tokens = self.trainer_s.sequence_tokens();
            let batch = rl.logprob_batch.unwrap_or(self.trainer_s.batch).max(1);
            let logit_tokens = if self.has_rollout() { rl.completion_len } else { tokens };
            let mut extra: Vec<Component> = if !PAGE && self.grid {
                // A no-grad forward of a micro-batch on the grid: its logits as the step's (the
                // last stage's, ÷ tp), each layer's working set freed as the next runs.
                self.trainer.components.iter().filter(|c| c.id == ComponentId::Logits).cloned().collect()
            } else {
                logprob_lines(s, batch, tokens, logit_tokens, self.autocast).into()
            };
            if self.offloaded {
                extra.extend(self.resident.iter().filter(|c| c.id == ComponentId::ReferenceModel).cloned());
            }
            extra.extend(self.rollout.after.iter().cloned());
            own.push((PhaseName::Logprobs, own_phase(&extra, &[])));
        }
        own
    }

    /// A phase of the trainer's step with what stays and what the engine keeps added, and the
    /// slack on what stays.
    fn with_stays(&self, phase: &Phase, extra_slack: u64) -> Phase {
        let plain = |id, bytes| Component { id, bytes, formula: Msg::empty(), section: "" };
        let mut lines: Vec<Component> = phase.components.iter().map(|&(id, bytes)| plain(id, bytes)).collect();
        lines.extend(self.stays.iter().cloned());
        lines.push(plain(ComponentId::Critic, self.joint_bytes(phase.name)));
        lines.extend(self.rollout.after.iter().cloned());
        lines.push(plain(ComponentId::AllocatorSlack, extra_slack));
        as_phase(phase.name, &lines)
    }

    /// The critic's own step at this phase of the policy's, when the two run as one.
    fn joint_bytes(&self, name: PhaseName) -> u64 {
        let Some(critic) = self.joint.as_ref().and_then(|p| p.iter().find(|p| p.name == name)) else { return 0 };
        JOINT_CRITIC.iter().map(|&id| critic.bytes(id)).fold(0, u64::saturating_add)
    }

    /// Bytes of the resident lines of `id` (the reference copy, the critic, the reward model).
    fn resident_bytes(&self, id: ComponentId) -> u64 {
        self.resident.iter().filter(|c| c.id == id).map(|c| c.bytes).fold(0, u64::saturating_add)
    }

    fn summary(&self, sequences_per_step: u64, peak_phase: PhaseName) -> RlSummary {
        let bytes = |id: ComponentId| self.resident_bytes(id);
        RlSummary {
            objective: self.s.rl.objective,
            rollout: self.has_rollout().then_some(self.s.rl.rollout),
            sequences_per_step,
            rollout_weights_bytes: self.rollout.weights,
            rollout_pool_bytes: self.rollout.pool,
            rollout_kv_tokens: self.rollout.kv_tokens,
            // On a grid the reference is the grid step's own line.
            reference_bytes: bytes(ComponentId::ReferenceModel)
                .saturating_add(self.trainer.component(ComponentId::ReferenceModel)),
            critic_bytes: bytes(ComponentId::Critic),
            reward_bytes: bytes(ComponentId::RewardModel),
            peak_phase,
            engine_fails: self.rollout.fails,
        }
    }
}

/// The bill of a preference or RL step (`s.is_rl()`): its phases in time order, its lines those
/// of the largest.
pub fn estimate(s: &Scenario) -> Bill {
    let trainer_s = trainer_scenario(s);
    // On a grid the policy's step is the grid's (over the same sequences: `trainer_sequences`).
    let grid = !PAGE && s.rl_on_grid();
    let trainer = if grid { super::parallel::estimate(s) } else { step(&trainer_s) };
    let mut notes = trainer.notes.clone();
    let sequences = sequences(s, &trainer_s, &mut notes);
    let rule = match &trainer.timeline {
        Timeline::Training(step) => step.slack,
        _ => SlackRule { transient: 0.14, persistent: SLACK_PERSISTENT, wrap_cache: 0.0 },
    };
    let rollout = match s.rl.objective {
        Objective::Grpo | Objective::Ppo => rollout_lines(s, &trainer, sequences, &mut notes),
        _ => RolloutLines { during: vec![], after: vec![], weights: 0, pool: 0, kv_tokens: 0, fails: false },
    };
    // PPO's critic as a step of its own: its resident line, and its phases when the update is joint.
    let critic = (s.rl.objective == Objective::Ppo).then(|| critic_bill(s, &trainer_s, grid));
    let resident = resident_lines(s, critic.as_ref(), grid);
    // The reference copy is offloaded with the parameters (verl's `ref.fsdp_config.param_offload`).
    let offloaded = s.offload == super::scenario::Offload::All && s.zero == 3 && s.gpus > 1;
    let stays = resident.iter().filter(|c| !(offloaded && c.id == ComponentId::ReferenceModel)).cloned().collect();
    let autocast = trainer_s.trainer_autocast();
    let joint = joint_critic(s, critic.as_ref());
    let parts = Parts { s, trainer_s, trainer, rollout, resident, stays, rule, offloaded, autocast, joint, grid };
    let stays_bytes: u64 = parts.stays.iter().map(|c| c.bytes).fold(0, u64::saturating_add);
    let away = offloaded_for_rollout(s);
    if !away.is_empty() {
        let host = away.iter().map(|&id| parts.trainer.component(id) + parts.resident_bytes(id));
        let host = host.fold(0, u64::saturating_add);
        notes.push(Note { key: "rl_rollout_offload", text: msg!(NoteRlRolloutOffload, Arg::Bytes(host as f64)) });
    }
    let extra_slack = to_bytes(stays_bytes as f64 * rule.persistent);

    let trainer_phases = phases::of(&parts.trainer);
    let own = parts.own_phases(trainer_phases.first());
    let mut all: Vec<Phase> = trainer_phases.iter().take(1).map(|p| parts.with_stays(p, extra_slack)).collect();
    all.extend(own.iter().map(|(name, lines)| as_phase(*name, lines)));
    all.extend(trainer_phases.iter().skip(1).map(|p| parts.with_stays(p, extra_slack)));
    let peak_name = phases::peak(&all).map_or(PhaseName::Load, |p| p.name);
    // The bill's lines: the peak phase's, each with its formula.
    let components = match own.iter().find(|(name, _)| *name == peak_name) {
        Some((_, lines)) => in_bill_order(lines.clone()),
        None => {
            let mut lines = parts.trainer.components.clone();
            let joint = parts.joint_bytes(peak_name);
            lines.extend(parts.stays.iter().cloned().map(|c| match joint {
                0 => c,
                joint if c.id == ComponentId::Critic => Component {
                    bytes: c.bytes.saturating_add(joint),
                    formula: msg!(RlCriticJoint, c.formula.arg(), Arg::Bytes(joint as f64)),
                    ..c
                },
                _ => c,
            }));
            lines.extend(parts.rollout.after.iter().cloned());
            merge(lines, extra_slack)
        }
    };
    let summary = parts.summary(sequences, peak_name);
    let t = &parts.trainer;
    let parallel = if PAGE { None } else { t.parallel.clone().map(|p| with_rl_lines(p, &components)) };
    Bill {
        components,
        gpu_bytes: s.gpu.bytes,
        parameters: s.architecture.parameters(),
        notes,
        saved_logits_bytes: t.saved_logits_bytes,
        backward_overlap_bytes: t.backward_overlap_bytes,
        gradient_bytes: t.gradient_bytes,
        open_high_bytes: t.open_high_bytes,
        serving: None,
        timeline: Timeline::Phases(all),
        rl: Some(summary),
        parallel,
    }
}

/// A grid's stages with what the RL step adds to each GPU (the rollout engine, the critic, the
/// reward model and their slack: the same on every GPU), as the billed stage's difference.
fn with_rl_lines(mut p: ParallelSummary, components: &[Component]) -> ParallelSummary {
    use super::bill::{total, TotalKind};
    let Some(billed) = p.ranks.iter().find(|r| r.stage == p.billed_stage).cloned() else { return p };
    let more = |kind, trainer: u64| total(components, kind).saturating_sub(trainer);
    let (allocated, device) =
        (more(TotalKind::Allocated, billed.allocated_bytes), more(TotalKind::Device, billed.device_bytes));
    for r in &mut p.ranks {
        r.allocated_bytes = r.allocated_bytes.saturating_add(allocated);
        r.device_bytes = r.device_bytes.saturating_add(device);
    }
    p.worst_bytes = p.worst_bytes.saturating_add(device);
    p
}

/// The trainer's lines with the RL lines added: one line per id (bytes summed, the first formula),
/// the slack of what stays added to the trainer's, in bill order.
fn merge(lines: Vec<Component>, extra_slack: u64) -> Vec<Component> {
    let mut merged: Vec<Component> = Vec::with_capacity(lines.len());
    for c in lines {
        match merged.iter_mut().find(|m| m.id == c.id) {
            Some(m) if m.bytes == 0 => *m = c,
            Some(m) => m.bytes = m.bytes.saturating_add(c.bytes),
            None => merged.push(c),
        }
    }
    if let Some(slack) = merged.iter_mut().find(|m| m.id == ComponentId::AllocatorSlack) {
        slack.bytes = slack.bytes.saturating_add(extra_slack);
    }
    in_bill_order(merged)
}
