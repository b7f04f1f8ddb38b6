//! A bill as the moments of a step: what is live in each phase, component by component, in time
//! order. Training: `load` (what stays through the run, with a gradient buffer allocated with the
//! model: Megatron's `main_grad`), `forward` (the saved activations grown to
//! their full size, the vision tower's working set, the layers ZeRO-3 gathered), `loss` (+ the
//! logits and their copies), `backward` (its start: + DeepSpeed's buckets and the gradients that
//! exist yet — the LM head's and DDP's buckets), `optimizer_step` (the activations and logits
//! freed, every gradient and the step's temporaries), `zero_grad` (the gradients gone).
//! `generate()`: `load`, `prefill` (the prompt's cache and one layer's working set), `decode` (the
//! cache grown to prompt + generated, the last position's logits, a step's transient). A serving
//! engine: `load`, `profile` (its profiling run's peak), `cuda_graphs`, `serving` (the KV pool).
//!
//! The peak is the phase with the most allocated (`peak`): which end of backward holds
//! a training step's peak is what these phases give. Each phase's reserved memory adds the
//! allocator's slack on what is live then, by the bill's rule (`SlackRule`); the bill's totals are
//! its peak phase's.

use super::bill::{slack_basis, to_bytes, Bill, Component, ComponentId, SlackRule, StepAmounts, Timeline, TotalKind};
pub use super::bill::{Phase, PhaseName};

/// A phase's slack when an earlier phase reserved `reserved_before`: its own `slack` on what is live,
/// or, when that reaches less, what keeps the reserved memory where it was.
pub fn slack_kept(reserved_before: f64, allocated: f64, slack: f64) -> f64 {
    if allocated + slack >= reserved_before {
        slack
    } else {
        reserved_before - allocated
    }
}

/// Lines that stay through a training step (weights, adapters, master copy, states, a frozen
/// reference model, what the drill keeps) and the device-level ones (outside the allocator).
fn stays(id: ComponentId) -> bool {
    use ComponentId::*;
    matches!(
        id,
        Weights | AdapterWeights | MasterWeights | Optimizer | Fp32Module | EvalGraph | KeptTensors | ReferenceModel
    ) || matches!(id.layer(), TotalKind::Device)
        || id == CudaGraphs
}

/// The allocated tensors live in a training phase, from the bill's lines and the step's amounts.
pub fn training_live(name: PhaseName, lines: &[Component], step: &StepAmounts) -> Vec<(ComponentId, f64)> {
    use ComponentId::*;
    let in_forward = |id: ComponentId| matches!(id, Activations | VisionActivations | GatheredLayer | DequantBuffer);
    let mut live: Vec<(ComponentId, f64)> = lines
        .iter()
        .filter(|c| c.id.layer() == TotalKind::Allocated && c.bytes > 0)
        .filter(|c| match name {
            PhaseName::Forward => stays(c.id) || in_forward(c.id),
            PhaseName::Loss => stays(c.id) || in_forward(c.id) || c.id == Logits,
            PhaseName::Backward => stays(c.id) || in_forward(c.id) || matches!(c.id, Logits | ZeroBuckets),
            PhaseName::OptimizerStep => stays(c.id) || c.id == DequantBuffer,
            _ => stays(c.id),
        })
        .map(|c| (c.id, c.bytes as f64))
        .collect();
    match name {
        PhaseName::Backward => live.push((Gradients, step.at_start_gradients as f64)),
        PhaseName::OptimizerStep => {
            live.push((Gradients, step.all_gradients as f64));
            live.push((OptimizerStep, step.temporaries as f64));
        }
        _ => live.push((Gradients, step.buffer_gradients as f64)),
    }
    live
}

/// The phases of `bill`, in time order.
pub fn of(bill: &Bill) -> Vec<Phase> {
    let lines = &bill.components;
    let outside: Vec<(ComponentId, u64)> = lines
        .iter()
        .filter(|c| matches!(c.id.layer(), TotalKind::Device) || c.id == ComponentId::CudaGraphs)
        .filter(|c| c.bytes > 0)
        .map(|c| (c.id, c.bytes))
        .collect();
    // Each phase's reserved memory: its live tensors and the slack on them, but never less than
    // what an earlier phase reserved (the caching allocator keeps its segments).
    // `least`: a phase's slack where a replay of the allocator shows more than the rule's share.
    let with_slack = |steps: Vec<(PhaseName, Vec<(ComponentId, f64)>)>,
                      rule: &SlackRule,
                      least: &dyn Fn(PhaseName) -> f64|
     -> Vec<Phase> {
        let mut reserved_so_far = 0.0f64;
        steps
            .into_iter()
            .map(|(name, live)| {
                let allocated: f64 = live.iter().map(|(_, b)| b).sum();
                let share = rule.bytes(slack_basis(live.iter().copied())).max(least(name));
                let slack = slack_kept(reserved_so_far, allocated, share);
                reserved_so_far = reserved_so_far.max(allocated + slack);
                // In bill order: the live tensors, the slack, what is outside the allocator.
                let bytes = |id: ComponentId| -> u64 {
                    match id {
                        ComponentId::AllocatorSlack => to_bytes(slack),
                        ComponentId::CudaGraphs if name == PhaseName::Load => 0,
                        _ if id.layer() == TotalKind::Allocated => {
                            to_bytes(live.iter().filter(|(c, _)| *c == id).map(|(_, b)| b).sum())
                        }
                        _ => outside.iter().filter(|(c, _)| *c == id).map(|(_, b)| *b).sum(),
                    }
                };
                let components = ComponentId::ALL.iter().map(|&id| (id, bytes(id))).filter(|(_, b)| *b > 0).collect();
                Phase { name, components }
            })
            .collect()
    };
    match &bill.timeline {
        Timeline::Training(step) => with_slack(
            [
                PhaseName::Load,
                PhaseName::Forward,
                PhaseName::Loss,
                PhaseName::Backward,
                PhaseName::OptimizerStep,
                PhaseName::ZeroGrad,
            ]
            .into_iter()
            .map(|name| (name, training_live(name, lines, step)))
            .collect(),
            &step.slack,
            &|_| 0.0,
        ),
        Timeline::Generate { load, prefill, decode, slack, fragmented } => {
            let least = |name| if name == PhaseName::Prefill { *fragmented } else { 0.0 };
            with_slack(generate_steps(lines, *load, *prefill, *decode), slack, &least)
        }
        Timeline::Engine => engine_phases(lines),
        Timeline::Phases(phases) => phases.clone(),
    }
}

/// The phase whose allocated total is the largest — of equals, the one that reserves more, then the
/// last (the loss and backward's start hold the same when nothing has a gradient yet): the bill's
/// peak (a serving engine's pool adds to what its profiling run allocated).
pub fn peak(phases: &[Phase]) -> Option<&Phase> {
    let key = |p: &Phase| (p.total(TotalKind::Allocated), p.total(TotalKind::Device));
    phases.iter().fold(None, |best: Option<&Phase>, p| match best {
        Some(b) if key(b) > key(p) => Some(b),
        _ => Some(p),
    })
}

/// `generate()`'s moments and what is live in each: the load, the prefill's larger moment (the
/// prompt's cache with one layer's working set, or the prompt's logits) and, when tokens are
/// generated, a decoding step's (the whole cache, the step's copy, the last position's logits).
pub fn generate_steps(
    lines: &[Component],
    loading: f64,
    prefill: super::bill::Live,
    decode: Option<super::bill::Live>,
) -> Vec<(PhaseName, Vec<(ComponentId, f64)>)> {
    let load: Vec<(ComponentId, f64)> = lines
        .iter()
        .filter(|c| c.id.layer() == TotalKind::Allocated && stays(c.id))
        .map(|c| (c.id, c.bytes as f64))
        .collect();
    // Loading's own tensor (a second LM head until the weights are tied) is the activations line's.
    let mut loaded = load.clone();
    if loading > 0.0 {
        loaded.push((ComponentId::Activations, loading));
    }
    let allocated = |id: ComponentId| lines.iter().find(|c| c.id == id).map_or(0.0, |c| c.bytes as f64);
    let at = |live: super::bill::Live| -> Vec<(ComponentId, f64)> {
        let mut held = load.clone();
        held.push((ComponentId::DequantBuffer, allocated(ComponentId::DequantBuffer)));
        held.push((ComponentId::VisionActivations, allocated(ComponentId::VisionActivations)));
        held.push((ComponentId::KvCache, live.kv));
        held.push((ComponentId::Activations, live.activations));
        held.push((ComponentId::Logits, live.logits));
        held
    };
    let mut steps = vec![(PhaseName::Load, loaded), (PhaseName::Prefill, at(prefill))];
    steps.extend(decode.map(|d| (PhaseName::Decode, at(d))));
    steps
}

/// A serving engine's start-up: loading, its profiling run, capturing CUDA graphs, then serving
/// with the pool (every line of its bill).
fn engine_phases(lines: &[Component]) -> Vec<Phase> {
    let keep = |ids: &[ComponentId]| -> Vec<(ComponentId, u64)> {
        lines.iter().filter(|c| ids.contains(&c.id) && c.bytes > 0).map(|c| (c.id, c.bytes)).collect()
    };
    use ComponentId::*;
    let load = [Weights, NonTorch, CudaContext, ZombieProcess];
    let phase = |name, ids: &[ComponentId]| Phase { name, components: keep(ids) };
    vec![
        phase(PhaseName::Load, &load),
        phase(PhaseName::Profile, &[Weights, Activations, NonTorch, CudaContext, ZombieProcess]),
        phase(PhaseName::CudaGraphs, &[Weights, CudaGraphs, NonTorch, CudaContext, ZombieProcess]),
        Phase {
            name: PhaseName::Serving,
            components: lines.iter().filter(|c| c.bytes > 0).map(|c| (c.id, c.bytes)).collect(),
        },
    ]
}
