//! The five-OOM drill (homework 2): each injected mistake as its own line, so that its signature
//! shows in the bars. (The fifth, a batch at the maximum, is a plain `batch` value.)

use super::activations::SavedLayers;
use super::bill::{line, Component, ComponentId};
use super::msg::Arg;
use super::plan::{Plan, Work};
use super::scenario::{DRILL_KEPT_STEPS, MIB};
use super::storage::StorageFormat;
use super::weights::{stored_weights, WeightFormat};
use crate::msg;

/// Every drill line that applies to the plan.
pub fn lines(p: &Plan) -> impl Iterator<Item = Component> {
    [eval_graph(p), kept_tensors(p), fp32_module(p)].into_iter().flatten()
}

/// `model.eval()` turns checkpointing off, and without no_grad every layer keeps its tensors
/// again, next to what training holds: a second, full graph plus its logits.
fn eval_graph(p: &Plan) -> Option<Component> {
    let t = p.training().filter(|_| p.drill.no_grad)?;
    let arch = p.arch;
    let layers = SavedLayers::of(arch, t.saved, p.kernel, p.acts, p.tokens, super::activations::LayerRun::NONE);
    let graph = layers.bytes(p.tokens, p.batch);
    let per_token =
        layers.classes.iter().map(|(c, l)| c.count as f64 * l.per_token).sum::<f64>() / arch.layers.max(1) as f64;
    let logits = p.batch as f64 * p.tokens as f64 * arch.vocab as f64 * (p.acts.bytes() + 4.0);
    let formula = msg!(
        EvalGraph,
        Arg::Int(arch.layers),
        Arg::Count(p.tokens),
        Arg::Int(p.batch),
        Arg::Count(per_token as u64),
        Arg::Bytes(logits)
    );
    Some(line(ComponentId::EvalGraph, graph + logits, "§3 ③", formula))
}

/// Logits appended to a Python list survive every step.
fn kept_tensors(p: &Plan) -> Option<Component> {
    p.training().filter(|_| p.drill.tensor_list)?;
    let per_step = p.batch as f64 * p.tokens as f64 * p.arch.vocab as f64 * p.acts.bytes();
    let formula = msg!(
        KeptTensors,
        Arg::Int(DRILL_KEPT_STEPS),
        Arg::Int(p.batch),
        Arg::Count(p.tokens),
        Arg::Count(p.arch.vocab),
        Arg::Factor(p.acts.bytes())
    );
    Some(line(ComponentId::KeptTensors, per_step * DRILL_KEPT_STEPS as f64, "§3 ③", formula))
}

/// The embedding and LM head left in fp32: 2 B more per parameter than bf16 (sharded under tensor
/// parallelism and ZeRO-3).
fn fp32_module(p: &Plan) -> Option<Component> {
    if !p.drill.fp32_module {
        return None;
    }
    let params = p.arch.embedding_parameters() + p.arch.lm_head_parameters();
    // PEFT's k-bit recipe already holds them in fp32 (counted in the weights); TRL's casts them
    // back to bf16, so the drill's fp32 module costs its 2 B there too.
    let prepared = p.training().is_some_and(|t| t.fp32_head);
    let extra = if p.acts.is_half() && !prepared { 2.0 } else { 0.0 };
    let sharded = match &p.work {
        Work::Infer(_) => true,
        Work::Train(t) => t.shard.zero >= 3,
    };
    let divisor = if p.gpus > 1 && sharded { p.gpus as f64 } else { 1.0 };
    let formula = msg!(Fp32Module, Arg::Count(params), Arg::Factor(extra));
    Some(line(ComponentId::Fp32Module, params as f64 * extra / divisor, "§3 ③", formula))
}

/// A leftover process of an earlier run of the same model: its bf16 weights and its own CUDA
/// context, on the card but not in this process's allocator.
pub fn zombie(p: &Plan) -> Option<Component> {
    if !p.drill.zombie {
        return None;
    }
    let w = stored_weights(p.arch, WeightFormat::all(StorageFormat::Bf16)).bytes;
    let ctx = p.overhead_mib * MIB;
    let formula = msg!(ZombieProcess, Arg::Bytes(w), Arg::Bytes(ctx));
    Some(line(ComponentId::ZombieProcess, w + ctx, "§3 第 0 步", formula))
}
