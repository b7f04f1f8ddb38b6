//! A trace against the bill's phases: the profiler's categories as the ledger's components, the
//! bytes at the measured peak beside the predicted peak's, and the phase where the two curves part
//! most.
//!
//! The measured curve is laid on the phases' axis by one anchor: its peak sits on the predicted
//! peak phase, and the times before and after are stretched evenly over the phases before and
//! after it (so record one step, as `tools/mem_report.py --timeline` does). A phase's measured
//! bytes are the highest of the curve over its half of the axis on either side.

use super::{ByCategory, Category, Sample, Trace};
use crate::ledger::bill::ComponentId;
use crate::ledger::phases::{Phase, PhaseName};

/// The profiler's category of a ledger component; `None` for memory that is not a tensor (the
/// allocator's slack, CUDA's context, an engine's graphs and workspaces, another process).
pub fn category_of(id: ComponentId) -> Option<Category> {
    use ComponentId::*;
    match id {
        Weights | AdapterWeights | DraftModel | Fp32Module | GatheredLayer | RolloutWeights | ReferenceModel
        | RewardModel => Some(Category::Parameter),
        Critic => Some(Category::OptimizerState),
        MasterWeights | Optimizer => Some(Category::OptimizerState),
        Gradients | ZeroBuckets => Some(Category::Gradient),
        Activations | VisionActivations | EvalGraph | KeptTensors => Some(Category::Activation),
        Logits | OptimizerStep | DequantBuffer | KvCache | RolloutKvCache => Some(Category::Temporary),
        AllocatorSlack | NonTorch | CudaGraphs | RolloutWorkspace | CudaContext | ZombieProcess => None,
    }
}

/// A phase's tensors by category.
pub fn phase_categories(phase: &Phase) -> ByCategory {
    let mut by = [0u64; 8];
    for &(id, bytes) in &phase.components {
        if let Some(c) = category_of(id) {
            by[c.index()] = by[c.index()].saturating_add(bytes);
        }
    }
    by
}

/// The measured trace beside the predicted phases.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub peak_phase: PhaseName,
    /// The predicted peak phase's tensors by category.
    pub predicted: ByCategory,
    /// Per phase in time order: the measured bytes laid on it (`None` where no point fell).
    pub measured_by_phase: Vec<(PhaseName, u64, Option<u64>)>,
    /// The phase where |measured − predicted| is largest.
    pub diverges_at: PhaseName,
    /// The category whose measured and predicted bytes at the peak differ most (unknown aside).
    pub largest_gap: Category,
}

/// Where a measured point falls on the phases' axis (0 = the first phase, n − 1 = the last).
pub fn axis_position(s: &Sample, trace: &Trace, peak_index: usize, phases: usize) -> f64 {
    let (t0, tp) = (0i64, trace.peak_time_us);
    let t_end = trace.curve.last().map_or(tp, |s| s.time_us).max(tp);
    let last = phases.saturating_sub(1) as f64;
    let p = peak_index as f64;
    if s.time_us <= tp {
        if tp == t0 {
            p
        } else {
            p * (s.time_us - t0) as f64 / (tp - t0) as f64
        }
    } else if t_end == tp {
        p
    } else {
        p + (last - p) * (s.time_us - tp) as f64 / (t_end - tp) as f64
    }
}

pub fn compare(trace: &Trace, phases: &[Phase]) -> Option<Comparison> {
    let peak = crate::ledger::phases::peak(phases)?;
    let peak_index = phases.iter().position(|p| std::ptr::eq(p, peak))?;
    let predicted = phase_categories(peak);
    let mut measured_by_phase: Vec<(PhaseName, u64, Option<u64>)> =
        phases.iter().map(|p| (p.name, p.total(crate::ledger::bill::TotalKind::Allocated), None)).collect();
    for s in &trace.curve {
        let x = axis_position(s, trace, peak_index, phases.len());
        let i = (x.round().max(0.0) as usize).min(phases.len().saturating_sub(1));
        let slot = &mut measured_by_phase[i].2;
        *slot = Some(slot.map_or(s.allocated, |m| m.max(s.allocated)));
    }
    // The measured peak is on the peak phase by construction (a curve thinned to its maxima).
    measured_by_phase[peak_index].2 = Some(trace.peak_bytes);
    let gap = |(_, predicted, measured): &(PhaseName, u64, Option<u64>)| measured.map(|m| m.abs_diff(*predicted));
    let diverges_at = (measured_by_phase.iter())
        .filter_map(|row| gap(row).map(|g| (row.0, g)))
        .fold(None, |best: Option<(PhaseName, u64)>, (name, g)| match best {
            Some((_, b)) if b >= g => best,
            _ => Some((name, g)),
        })
        .map_or(peak.name, |(name, _)| name);
    let largest_gap = (Category::ALL.iter().copied())
        .filter(|&c| c != Category::Unknown)
        .max_by_key(|c| trace.categories[c.index()].abs_diff(predicted[c.index()]))
        .unwrap_or(Category::Unknown);
    Some(Comparison { peak_phase: peak.name, predicted, measured_by_phase, diverges_at, largest_gap })
}
