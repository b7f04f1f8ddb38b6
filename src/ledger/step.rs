//! From a scenario to its bill: resolve the scenario into a plan (`plan`), write each line from the
//! plan (training, optimizer, activations, inference, drill), then the allocator's slack on what
//! is allocated and the CUDA context. Every line carries its formula with the scenario's numbers.

use super::activations::{trained_vision_tower, training_activations};
use super::bill::{
    line, slack_basis, to_bytes, Bill, Component, ComponentId, Note, ParallelSummary, SlackRule, StepAmounts, Timeline,
    TotalKind,
};
use super::logits::{held_output_bytes, training_logits};
use super::msg::{when, Arg, Msg};
use super::phases::{self, PhaseName};
use super::plan::{resolve, Inference, Plan, Training, Work};
use super::scenario::MIB;
use super::vision::vision_activations;
use super::{device_map, drill, inference, optimizer, serving, training};
use crate::msg;

/// The caching allocator's slack (reserved − allocated) in training, as shares of two kinds of
/// tensors ([`ComponentId::is_transient`]). What a step allocates and frees again leaves holes in
/// segments still in use: an allocator replay of real training steps under a cap, where it gives
/// back every whole free segment before it fails, needs 9–27 % more than those tensors, median
/// 14 % (research note `answerai_replay` §6, twelve traces). What stays through the run (weights,
/// adapters, states, gradients of recurring sizes) loses the rounding of each large tensor's
/// segment to 2 MiB: about 2 % of tensors of tens of MB.
pub const SLACK_TRANSIENT: f64 = 0.14;
pub const SLACK_PERSISTENT: f64 = 0.02;
/// The transient share with expandable segments (`alloc=expandable`): one growing segment whose
/// free pages go back before an OOM; the replay's bound, every live tensor on its own 2 MiB
/// pages plus one it may straddle, is 0.5–2.1 % above allocated (research note §6).
pub const SLACK_TRANSIENT_EXPANDABLE: f64 = 0.02;
/// In inference, as a share of every tensor: sources report 5–15 % for training (formulas.md
/// §1.7); inference, with few tensors of changing size, sits lower.
pub const SLACK_INFERENCE: f64 = 0.03;

/// What a set of lines produces besides the lines.
struct Extras {
    saved_logits: f64,
    backward_overlap: f64,
    gradients: f64,
    open_high: f64,
    timeline: Timeline,
    /// A training step that peaks at the optimizer step, not at backward's start.
    peaks_at_step: bool,
}

impl Extras {
    fn of(timeline: Timeline) -> Extras {
        Extras {
            saved_logits: 0.0,
            backward_overlap: 0.0,
            gradients: 0.0,
            open_high: 0.0,
            timeline,
            peaks_at_step: false,
        }
    }
}

/// The bill of one step of supervised training or of inference on one GPU (a preference or RL
/// step is made of these: `super::rl`).
pub fn step(s: &super::Scenario) -> Bill {
    let mut plan = resolve(s);
    let mut notes = std::mem::take(&mut plan.notes);
    let mut lines = Vec::with_capacity(ComponentId::ALL.len());
    let mut serving = None;
    let mut parallel = None;
    let extras = match &plan.work {
        Work::Train(t) => training_lines(&plan, t, &mut lines, &mut notes),
        Work::Infer(i) => match serving::engine_bill(&plan, i) {
            Some(engine) => {
                lines.extend(engine.lines);
                notes.extend(engine.notes);
                notes.extend(serving::status_note(&engine.serving));
                serving = Some(engine.serving);
                parallel = engine.parallel;
                Extras::of(Timeline::Engine)
            }
            None => {
                let (timeline, map) = inference_lines(&plan, i, &mut lines, &mut notes);
                parallel = map;
                Extras::of(timeline)
            }
        },
    };
    lines.extend(drill::lines(&plan));
    if serving.is_none() {
        // The allocator's slack on what is live at the peak: the lines, or — when a training step
        // peaks at the optimizer step — what is live then (the activations and logits freed, every
        // gradient and the step's temporaries).
        // The caching allocator keeps what it reserved: at an optimizer-step peak the reserved
        // memory is at least what backward's start reserved.
        let (basis, kept) = match &extras.timeline {
            Timeline::Training(step) if extras.peaks_at_step => {
                let rule = &step.slack;
                let measure = |name| {
                    let live = phases::training_live(name, &lines, step);
                    let allocated: f64 = live.iter().map(|(_, b)| b).sum();
                    let basis = slack_basis(live.into_iter());
                    (allocated, rule.bytes(basis), basis)
                };
                let (backward, backward_slack, _) = measure(PhaseName::Backward);
                let (allocated, slack, basis) = measure(PhaseName::OptimizerStep);
                (basis, Some(phases::slack_kept(backward + backward_slack, allocated, slack)))
            }
            // What the prefill left reserved (a replay's fragmentation) stays through decoding:
            // the prefill's moment as the phases hold it, its slack at least that.
            Timeline::Generate { load, prefill, decode, slack: rule, fragmented } if *fragmented > 0.0 => {
                let basis = slack_basis(lines.iter().map(|c| (c.id, c.bytes as f64)));
                let steps = phases::generate_steps(&lines, *load, *prefill, *decode);
                let live = steps.iter().find(|(name, _)| *name == PhaseName::Prefill).map_or(&[][..], |(_, l)| l);
                let at_prefill: f64 = live.iter().map(|(_, b)| b).sum();
                let reserved = at_prefill + rule.bytes(slack_basis(live.iter().copied())).max(*fragmented);
                (basis, Some(phases::slack_kept(reserved, basis.0 + basis.1, rule.bytes(basis))))
            }
            _ => (slack_basis(lines.iter().map(|c| (c.id, c.bytes as f64))), None),
        };
        lines.extend(overheads(&plan, basis, kept));
    }
    lines.extend(drill::zombie(&plan));
    Bill {
        components: in_bill_order(lines),
        gpu_bytes: s.gpu.bytes,
        parameters: s.architecture.parameters(),
        notes,
        saved_logits_bytes: super::bill::to_bytes(extras.saved_logits),
        backward_overlap_bytes: super::bill::to_bytes(extras.backward_overlap),
        gradient_bytes: super::bill::to_bytes(extras.gradients),
        open_high_bytes: super::bill::to_bytes(extras.open_high),
        serving,
        timeline: extras.timeline,
        rl: None,
        parallel,
    }
}

/// Every id exactly once, in bill order, 0 where it does not apply.
pub fn in_bill_order(mut lines: Vec<Component>) -> Vec<Component> {
    let mut components = Vec::with_capacity(ComponentId::ALL.len());
    for id in ComponentId::ALL {
        match lines.iter().position(|c| c.id == id) {
            Some(i) => components.push(lines.swap_remove(i)),
            None => components.push(Component { id, bytes: 0, formula: msg!(NotUsed), section: "" }),
        }
    }
    components
}

fn training_lines(p: &Plan, t: &Training, lines: &mut Vec<Component>, notes: &mut Vec<Note>) -> Extras {
    let (logits, saved_logits) = training_logits(p, t);
    // Output a loop keeps is not freed before the last layer is recomputed.
    let freed_logits = logits.bytes as f64 - held_output_bytes(p, t);
    // FSDP over frozen units with the checkpoint's implementation unsaid: the reentrant one's
    // retention is the range's high end.
    let (activations, open_high, offloaded_inputs) = training_activations(p, t, freed_logits);
    if open_high > 0.0 {
        notes.push(Note { key: "reentrant", text: msg!(NoteReentrant, Arg::Bytes(open_high)) });
    }
    if offloaded_inputs > 0.0 {
        notes.push(Note {
            key: "offloaded_checkpoints",
            text: msg!(NoteOffloadedCheckpoints, Arg::Bytes(offloaded_inputs)),
        });
    }
    // A training tower is the reader worker's (`Scenario::trains_vision`).
    let vision = vision_activations(p).map(|(frozen, note)| {
        if t.vision_trains && !cfg!(feature = "page") {
            (trained_vision_tower(p, t).unwrap_or(frozen), note)
        } else {
            (frozen, note)
        }
    });
    let gathered = training::gathered_layer(p, t);
    let buckets = training::zero_buckets(t);
    // Activations, logits, the vision tower's working set, the layers ZeRO-3 gathered and
    // DeepSpeed's gradient buckets are freed before the optimizer step.
    let freed =
        [Some(&activations), Some(&logits), vision.as_ref().map(|(c, _)| c), gathered.as_ref(), buckets.as_ref()]
            .into_iter()
            .flatten()
            .map(|c| c.bytes as f64)
            .sum::<f64>();
    let peak = step_peak(p, t, freed);
    let copy = optimizer::offload_step_copy_excess(t, freed);
    if copy > 0.0 {
        notes.push(Note { key: "deepspeed_offload_copy", text: msg!(NoteDeepspeedOffloadCopy, Arg::Bytes(copy)) });
    }
    // Lines an offload moves to host RAM, with the bytes it holds there.
    let mut host = 0.0;
    let mut keep = |(c, in_host): (Component, f64)| {
        host += in_host;
        c
    };
    lines.push(keep(training::weights(p, t)));
    lines.extend(training::adapter_weights(p, t).map(&mut keep));
    lines.extend(training::dequant_buffer(p, t));
    lines.extend(training::master_weights(t).map(&mut keep));
    lines.push(keep(optimizer::states(p, t)));
    lines.push(activations);
    lines.push(logits);
    if let Some((c, note)) = vision {
        lines.push(c);
        notes.push(Note { key: "vision_tokens", text: note });
    }
    lines.extend(gathered);
    lines.extend(buckets);
    lines.push(training::gradients(p, t, peak.gradients, peak.at_backward_start));
    lines.push(optimizer::step(p, t, peak.step_room));
    notes.push(Note { key: "effective_batch", text: effective_batch(p, t) });
    if host > 0.0 {
        notes.push(Note { key: "offload_host", text: msg!(NoteOffloadHost, Arg::Bytes(host)) });
    }
    let step = StepAmounts {
        all_gradients: to_bytes(peak.all_gradients),
        at_start_gradients: to_bytes(peak.at_start),
        temporaries: to_bytes(peak.temporaries),
        buffer_gradients: 0,
        slack: slack_rule(p),
    };
    Extras {
        saved_logits,
        backward_overlap: peak.backward_overlap,
        gradients: peak.all_gradients,
        open_high: open_high + copy,
        timeline: Timeline::Training(step),
        peaks_at_step: !peak.at_backward_start,
    }
}

/// Where a training step peaks, and what of its gradients coexists with that peak.
struct StepPeak {
    /// Every gradient of the step.
    all_gradients: f64,
    /// The gradients line: those that exist at the peak.
    gradients: f64,
    /// The peak is backward's start, not the optimizer step.
    at_backward_start: bool,
    /// The room backward leaves the optimizer step: what it freed, less the gradients not billed.
    step_room: f64,
    /// What of activations + logits + the gradients line never coexists within forward + backward.
    backward_overlap: f64,
    /// The gradients that exist at backward's start, and the optimizer step's temporaries.
    at_start: f64,
    temporaries: f64,
}

/// A step peaks at one end of backward: its start (weights, states, activations, logits and the
/// gradients already there) or the optimizer step (all gradients + the step's temporaries, with
/// `freed` — activations, logits, gathered layers, buckets — gone).
fn step_peak(p: &Plan, t: &Training, freed: f64) -> StepPeak {
    let all = training::gradient_bytes(p, t);
    let at_start = training::gradients_at_backward_start(p, t);
    let (temporaries, _) = optimizer::step_temporaries(p, t);
    let beyond_backward = all + temporaries - freed;
    let gradients = all.min(at_start.max(beyond_backward));
    StepPeak {
        all_gradients: all,
        gradients,
        at_backward_start: beyond_backward <= at_start,
        step_room: freed - (all - gradients),
        backward_overlap: (freed + gradients - (freed + at_start).max(all)).max(0.0),
        at_start,
        temporaries,
    }
}

fn effective_batch(p: &Plan, t: &Training) -> Msg {
    let effective = p.batch.saturating_mul(t.accum).saturating_mul(p.gpus);
    msg!(NoteEffectiveBatch, Arg::Int(p.batch), Arg::Int(t.accum), Arg::Int(p.gpus), Arg::Count(effective))
}

/// `generate()`'s lines on one GPU: the whole model's, or over a device map (`pp` GPUs,
/// `super::device_map`) the billed GPU's, with the map's `parallel` summary.
fn inference_lines(
    p: &Plan,
    i: &Inference,
    lines: &mut Vec<Component>,
    notes: &mut Vec<Note>,
) -> (Timeline, Option<ParallelSummary>) {
    let mut kv_line = inference::kv_cache(p, i);
    let a = inference::amounts(p, i, kv_line.bytes as f64);
    let (gpu, map) = if device_map::is_layer_split(i) {
        let (gpu, summary, note) = mapped_gpu(p, i, &a);
        notes.push(note);
        (Some(gpu), Some(summary))
    } else {
        (None, None)
    };
    let part = gpu.as_ref().map_or(inference::GpuPart::WHOLE, |g| g.part);
    let (prefill, decode) = gpu.as_ref().map_or_else(|| inference::moments(i, part, &a), |g| (g.prefill, g.decode));
    // What stays beside the moments (not while loading): the vision tower's working set on the
    // first GPU, bitsandbytes' dequantization buffer where layers run.
    let vision = if gpu.as_ref().is_none_or(|g| g.stage.first) { vision_activations(p) } else { None };
    let dequant = if part.layers { inference::dequant_buffer(p, i) } else { None };
    let running =
        vision.as_ref().map_or(0.0, |(c, _)| c.bytes as f64) + dequant.as_ref().map_or(0.0, |c| c.bytes as f64);
    let load = inference::load_moment(&a, part);
    let (kv, logits, activations) = inference::peak_lines(part, &a, (prefill, decode), load - running);
    let weights = inference::weights(p, i);
    match &gpu {
        Some(g) => {
            lines.push(map_weights_line(i, g, &weights));
            let count = Arg::Int(g.stage.count());
            let formula = msg!(HfMapKv, count, Arg::Int(p.arch.layers), Arg::Bytes(a.kv_total), kv_line.formula.arg());
            kv_line = line(ComponentId::KvCache, kv, "§2", formula);
        }
        None => lines.push(weights),
    }
    lines.extend(inference::adapter(i, part));
    lines.push(line(
        ComponentId::Activations,
        activations,
        "§2",
        inference::prefill_formula(p, i, &a, activations, load),
    ));
    lines.push(kv_line);
    lines.push(inference::logits(p, i, logits));
    if let Some(r) = a.remote {
        let live = Arg::Bytes(r.allocated);
        notes.push(Note { key: "full_mask", text: msg!(NoteFullMask, live, Arg::Bytes(r.reserved)) });
    }
    if let Some((c, note)) = vision {
        lines.push(c);
        notes.push(Note { key: "vision_tokens", text: note });
    }
    lines.extend(dequant);
    let fragmented = a.prefill_fragmented();
    (Timeline::Generate { load, prefill, decode, slack: slack_rule(p), fragmented }, map)
}

/// The GPU of a device map the bill is of (`stage`, or the one that needs the most), the map's
/// summary and its note.
fn mapped_gpu(p: &Plan, i: &Inference, a: &inference::Amounts) -> (device_map::MappedGpu, ParallelSummary, Note) {
    let context = p.overhead_mib * MIB;
    let (gpu, summary) = device_map::billed(p, i, a, |allocated| allocated * (1.0 + SLACK_INFERENCE) + context);
    let logits = when(a.returned_logits > 0.0, || msg!(NoteDeviceMapLogits, Arg::Bytes(a.returned_logits)));
    let text = msg!(
        NoteDeviceMap,
        Arg::Int(i.pp),
        logits,
        Arg::Int(summary.billed_stage),
        Arg::Bytes(summary.allocated_sum() as f64)
    );
    (gpu, summary, Note { key: "device_map", text })
}

/// A device map's GPU's weights: its share of the model's, with its layers, embedding and head.
fn map_weights_line(i: &Inference, g: &device_map::MappedGpu, whole: &Component) -> Component {
    let last_layer = g.stage.layers.end.max(g.stage.layers.start + 1);
    let formula = msg!(
        HfMapWeights,
        Arg::Bytes(g.weights),
        Arg::Bytes(whole.bytes as f64),
        Arg::Int(g.stage.index),
        Arg::Int(i.pp),
        Arg::Int(g.stage.layers.start),
        Arg::Int(last_layer - 1),
        when(g.stage.first, || msg!(HfMapEmbedding)),
        when(g.stage.last, || msg!(HfMapHead))
    );
    line(ComponentId::Weights, g.weights, "§2", formula)
}

/// The allocator's slack rule of `p`: in training a share of what a step allocates and frees and a
/// share of what stays, plus what FSDP's wrap cache leaves unfilled; in inference one share of all.
fn slack_rule(p: &Plan) -> SlackRule {
    match &p.work {
        Work::Train(t) => SlackRule {
            transient: if p.expandable_segments { SLACK_TRANSIENT_EXPANDABLE } else { SLACK_TRANSIENT },
            persistent: SLACK_PERSISTENT,
            // The cache FSDP's wrapping left: the step's default-stream tensors reuse it; what they
            // leave unfilled stays reserved.
            wrap_cache: training::fsdp_wrap_cache(p, t),
        },
        Work::Infer(_) => SlackRule { transient: SLACK_INFERENCE, persistent: SLACK_INFERENCE, wrap_cache: 0.0 },
    }
}

/// The allocator's slack on what is live at the peak (`basis`: its transient, persistent and
/// reusable bytes) — or `kept`, when the allocator keeps more reserved from earlier in the step —
/// the CUDA context and, over several GPUs, NCCL's buffers.
fn overheads(p: &Plan, basis: (f64, f64, f64), kept: Option<f64>) -> impl Iterator<Item = Component> {
    let (transient, persistent, reusable) = basis;
    let allocated = transient + persistent;
    let rule = slack_rule(p);
    let (bytes, formula) = match &p.work {
        Work::Train(_) => {
            let share = rule.transient;
            let held = kept.map_or(0.0, |k| k - rule.bytes(basis));
            let unfilled = (rule.wrap_cache - reusable * (1.0 + share)).max(0.0);
            (
                kept.unwrap_or(rule.bytes(basis)),
                msg!(
                    AllocatorSlackTraining,
                    Arg::Bytes(transient),
                    Arg::Fixed(share * 100.0, 0),
                    Arg::Bytes(persistent),
                    Arg::Fixed(SLACK_PERSISTENT * 100.0, 0),
                    msg!(
                        OptimizerLine,
                        when(unfilled > 0.0, || msg!(WrapCache, Arg::Bytes(unfilled))),
                        when(held > 0.0, || msg!(SlackHeldFromBackward, Arg::Bytes(held)))
                    )
                    .arg()
                ),
            )
        }
        Work::Infer(_) => match kept {
            Some(k) if k > allocated * SLACK_INFERENCE => {
                (k, msg!(AllocatorSlackReplayed, Arg::Bytes(allocated), Arg::Fixed(SLACK_INFERENCE * 100.0, 0)))
            }
            _ => (
                allocated * SLACK_INFERENCE,
                msg!(AllocatorSlack, Arg::Bytes(allocated), Arg::Fixed(SLACK_INFERENCE * 100.0, 0)),
            ),
        },
    };
    debug_assert_eq!(ComponentId::AllocatorSlack.layer(), TotalKind::Reserved);
    [
        line(ComponentId::AllocatorSlack, bytes, "§3 ⑦", formula),
        line(ComponentId::CudaContext, p.overhead_mib * MIB, "§3", msg!(CudaContext, Arg::Factor(p.overhead_mib))),
    ]
    .into_iter()
    .chain(
        Some(p.nccl_bytes(p.gpus))
            .filter(|b| *b > 0.0)
            .map(|nccl| line(ComponentId::NonTorch, nccl, "§3", msg!(NcclPerGpu, Arg::Bytes(nccl), Arg::Int(p.gpus)))),
    )
}
