//! The optimizer's lines: its states (sharded from ZeRO-1 on) and the temporaries of its step.

use super::bill::{in_host_ram, line, Component, ComponentId};
use super::msg::{Arg, Msg};
use super::plan::{Plan, Training};
use super::scenario::Optimizer;
use super::training::{largest_trainable_tensor, trainable_matrices};
use crate::msg;

/// Adafactor's factored second moment: rows + columns per matrix, the full size of every vector.
fn adafactor_values(trainable: u64, matrices: &[(u64, u64, u64)]) -> (f64, f64) {
    let mut in_matrices = 0u64;
    let mut factored = 0f64;
    for &(rows, cols, count) in matrices {
        factored += ((rows + cols) * count) as f64;
        in_matrices = in_matrices.saturating_add(rows.saturating_mul(cols).saturating_mul(count));
    }
    (factored, trainable.saturating_sub(in_matrices) as f64)
}

/// Optimizer state bytes (unsharded) and how they add up.
fn state_bytes(p: &Plan, t: &Training) -> (f64, Msg) {
    let sb = t.states.bytes();
    let n = t.trainable;
    let params = n as f64;
    match t.optimizer {
        Optimizer::AdamW | Optimizer::AdamWFused => {
            (params * 2.0 * sb, msg!(StatesAdamW, Arg::Count(n), Arg::Factor(sb)))
        }
        Optimizer::AdamW8bit => {
            let per = 2.0 * (1.0 + 4.0 / 256.0);
            (params * per, msg!(StatesAdamW8bit, Arg::Count(n), Arg::Factor(per)))
        }
        Optimizer::Sgd => (0.0, msg!(StatesSgd)),
        Optimizer::SgdMomentum => (params * sb, msg!(StatesMomentum, Arg::Count(n), Arg::Factor(sb))),
        Optimizer::Adafactor => {
            let (factored, vectors) = adafactor_values(n, &trainable_matrices(p, t));
            let formula = msg!(
                StatesAdafactor,
                Arg::Count(factored as u64),
                Arg::Count(vectors as u64),
                Arg::Count((factored + vectors) as u64),
                Arg::Factor(sb)
            );
            ((factored + vectors) * sb, formula)
        }
    }
}

/// The optimizer states line, and what an offloaded optimizer keeps in host RAM instead: its
/// states and the fp32 gradient partitions it steps from.
pub fn states(p: &Plan, t: &Training) -> (Component, f64) {
    let (bytes, formula) = state_bytes(p, t);
    let formula = msg!(OptimizerLine, formula.arg(), t.shard.suffix(1));
    let c = line(ComponentId::Optimizer, bytes / t.shard.divisor(1), "§1", formula);
    if t.optimizer_offloaded() {
        let (c, states) = in_host_ram(c, 0.0);
        return (c, states + t.fp32_partition_bytes());
    }
    (c, 0.0)
}

/// DeepSpeed 0.14.1–0.16.x (PR #5301 to #7309) copy each fp32 partition to the GPU at an
/// offloaded ZeRO-1/2 step; the release is not said, so what the copy adds beyond the room
/// backward freed (`freed`) is for the range's high end.
pub fn offload_step_copy_excess(t: &Training, freed: f64) -> f64 {
    if !t.optimizer_offloaded() || t.zero_stage >= 3 {
        return 0.0;
    }
    (t.fp32_partition_bytes() - freed).max(0.0)
}

/// The optimizer step's temporaries beyond the states (per GPU), with what they are: PyTorch's
/// foreach AdamW holds a full-size temporary per state; a fused AdamW (`adamw_fused`) steps in
/// place, so only DeepSpeed ZeRO-3's fp32 gradient partition remains.
pub fn step_temporaries(p: &Plan, t: &Training) -> (f64, Msg) {
    let (bytes, what) = match t.optimizer {
        _ if t.optimizer_offloaded() => (0.0, msg!(StepNone)),
        Optimizer::AdamW => {
            let sb = t.states.bytes();
            (t.trainable as f64 * sb, msg!(StepAdamW, Arg::Count(t.trainable), Arg::Factor(sb), t.shard.suffix(1)))
        }
        Optimizer::Adafactor => {
            let largest = largest_trainable_tensor(p, t);
            (largest as f64 * 4.0 * 2.0, msg!(StepAdafactor, Arg::Count(largest)))
        }
        _ => (0.0, msg!(StepNone)),
    };
    let bytes = bytes / t.shard.divisor(1);
    if t.deepspeed_zero3 && !t.optimizer_offloaded() {
        // stage3.py steps its partition one sub-group at a time (`_create_fp16_sub_groups`: at
        // most `sub_group_size` elements, 10⁹ by default, beyond one parameter's partition):
        // `_prepare_fp32_grad_for_sub_group` makes a 16-bit flat copy of the sub-group's gradients
        // and its fp32 conversion (6 B), the fp32 one alone goes through the step (the optimizer's
        // temporaries are the sub-group's too), and `_release_sub_group` frees it before the next.
        let partition = t.trainable as f64 / t.shard.divisor(1);
        let sub_group = partition.min(DEEPSPEED_SUB_GROUP_SIZE);
        let fp32 = sub_group * 4.0;
        let with = (fp32 * 1.5).max(fp32 + bytes * sub_group / partition.max(1.0));
        return (with, msg!(StepDeepspeedZero3, Arg::Count(sub_group as u64), Arg::Bytes(fp32), what.arg()));
    }
    (bytes, what)
}

/// DeepSpeed ZeRO-3's `sub_group_size` default (`zero/config.py`): the elements of the partition
/// the optimizer steps at once.
pub const DEEPSPEED_SUB_GROUP_SIZE: f64 = 1e9;

/// The step's temporaries beyond the room backward leaves: `room` is the activations and logits
/// it freed, less the gradients that appeared in their place and are not billed on their line.
pub fn step(p: &Plan, t: &Training, room: f64) -> Component {
    let (bytes, what) = step_temporaries(p, t);
    let formula = msg!(OptimizerStep, Arg::Bytes(bytes), Arg::Bytes(room), what.arg());
    line(ComponentId::OptimizerStep, (bytes - room).max(0.0), "§1", formula)
}

#[cfg(test)]
mod tests {
    use super::adafactor_values;

    /// Hand arithmetic: a 4 × 3 matrix (twice) keeps 2 × (4 + 3) = 14 factored values; of 30
    /// trainable parameters, 30 − 24 = 6 are in vectors.
    #[test]
    fn adafactor_factors_matrices_and_keeps_vectors() {
        assert_eq!(adafactor_values(30, &[(4, 3, 2)]), (14.0, 6.0));
    }
}
