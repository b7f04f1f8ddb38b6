//! Served LoRA (`max_loras`, `max_lora_rank`, `max_cpu_loras`): the adapter slots an engine
//! allocates with the model. vLLM replaces every LoRA-capable linear layer with one that holds
//! `max_loras` slots of A (`max_lora_rank` × input) and B (output × `max_lora_rank`) in the
//! model's 16-bit dtype (`vllm/lora/layers/base_linear.py::create_lora_weights`); under tensor
//! parallelism a column-parallel layer keeps its whole input and its share of the output, a
//! row-parallel one (o_proj, down_proj, out_proj) its share of the input and the whole output.
//! Fused layers (qkv, gate_up) hold one slot per slice, which is the same count of elements. The
//! slots are allocated while the model loads, so they are part of "Model loading took". SGLang's
//! LoRA memory pool (`lora/mem_pool.py`) has the same shapes for `max_loras_per_batch` slots and
//! is allocated before the KV pool is sized. vLLM wraps the LM head and the embedding too, and the
//! routed experts from 0.12 (`lora/layers/fused_moe.py`); SGLang only the adapters' targets.

use crate::ledger::architecture::{Architecture, LinearGroup, LinearShape};
use crate::ledger::msg::{Arg, Msg};
use crate::ledger::plan::Inference;
use crate::ledger::scenario::Release;
use crate::msg;

/// vLLM's default `max_lora_rank`.
pub const DEFAULT_RANK: u64 = 16;

/// The adapter slots of one GPU and the adapters cached in host RAM.
pub struct LoraSlots {
    pub gpu_bytes: f64,
    pub host_bytes: f64,
    pub formula: Msg,
}

/// Whether a linear layer (by its module name) is row-parallel under tensor parallelism.
fn row_parallel(name: &str) -> bool {
    matches!(name, "o_proj" | "down_proj" | "fc2" | "out_proj" | "shared_expert.down_proj")
}

/// Elements of one adapter of rank 1 on one GPU: Σ over the LoRA-capable linears of
/// (input + output), each side divided by `tp` where the layer splits it; with `vocab`, vLLM's
/// LM head (hidden + the vocabulary padded to 256, whole on every GPU) and embedding (vocabulary
/// + hidden); with `experts`, the routed experts (vLLM 0.12 on: `FusedMoEWithLoRA`).
fn elements_per_rank(a: &Architecture, tp: u64, vocab: bool, experts: bool) -> f64 {
    let h = a.hidden as f64;
    let head_and_embedding = if vocab { (a.vocab.div_ceil(256) * 256) as f64 + a.vocab as f64 + 2.0 * h } else { 0.0 };
    head_and_embedding + layer_elements(a, tp, experts, |l| l.count() as f64)
}

/// The layers' part of [`elements_per_rank`], `copies` of each linear (all of them, or a pipeline
/// stage's).
fn layer_elements(a: &Architecture, tp: u64, experts: bool, copies: impl Fn(&LinearShape) -> f64) -> f64 {
    let tp = tp.max(1) as f64;
    a.linears()
        .iter()
        .filter(|l| experts || l.group != LinearGroup::Expert)
        .map(|l| {
            let (d_in, d_out) = (l.d_in as f64, l.d_out as f64);
            let per_layer = if row_parallel(l.name) { d_in / tp + d_out } else { d_in + d_out / tp };
            per_layer * copies(l)
        })
        .sum::<f64>()
}

/// The served adapters' memory, or `None` when LoRA is not enabled. `vllm`: vLLM's wrapping
/// (every linear layer, the LM head and the embedding, whatever the adapters target; the experts
/// from 0.12); else SGLang's pool for the adapters' targets (taken as every linear but the
/// experts).
pub fn slots(a: &Architecture, i: &Inference, vllm: Option<Release>) -> Option<LoraSlots> {
    let n = i.engine.max_loras;
    // The page's build asks the reader worker for LoRA slots' bill (`Scenario::served_by_engine`).
    if n == 0 || cfg!(feature = "page") {
        return None;
    }
    let experts = vllm.is_some_and(|v| v >= Release(0, 12, 0));
    let rank = i.engine.max_lora_rank.unwrap_or(DEFAULT_RANK);
    let per_adapter = elements_per_rank(a, i.tp, vllm.is_some(), experts) * rank as f64 * 2.0;
    let gpu_bytes = per_adapter * n as f64;
    let cpu = i.engine.max_cpu_loras.unwrap_or(n).max(n);
    // Host RAM holds each cached adapter whole (not split over the GPUs).
    let host_bytes = elements_per_rank(a, 1, vllm.is_some(), experts) * rank as f64 * 2.0 * cpu as f64;
    let formula = msg!(
        LoraSlotsFormula,
        Arg::Int(n),
        Arg::Int(rank),
        Arg::Bytes(per_adapter),
        Arg::Bytes(gpu_bytes),
        Arg::Int(cpu),
        Arg::Bytes(host_bytes)
    );
    Some(LoraSlots { gpu_bytes, host_bytes, formula })
}

/// vLLM's adapter slots on one GPU of a pipeline stage (`layers`, with the embedding on the first
/// stage and the LM head on the last): a stage wraps only the modules it builds (the others are
/// `PPMissingLayer`s), so it holds their share of [`slots`]' `gpu_bytes`; host RAM still caches
/// each adapter whole.
pub fn vllm_stage_slots(
    a: &Architecture,
    i: &Inference,
    version: Release,
    layers: std::ops::Range<u64>,
    (first, last): (bool, bool),
) -> Option<LoraSlots> {
    let whole = slots(a, i, Some(version))?;
    let experts = version >= Release(0, 12, 0);
    let h = a.hidden as f64;
    let embedding = if first { a.vocab as f64 + h } else { 0.0 };
    let head = if last { (a.vocab.div_ceil(256) * 256) as f64 + h } else { 0.0 };
    let copies =
        |l: &LinearShape| layers.clone().filter(|&x| a.layer_class(x).has(l)).count() as f64 * l.per_layer as f64;
    let here = embedding + head + layer_elements(a, i.tp, experts, copies);
    let share = here / elements_per_rank(a, i.tp, true, experts).max(1.0);
    let gpu_bytes = whole.gpu_bytes * share;
    let formula = msg!(LoraSlotsStage, Arg::Bytes(gpu_bytes), whole.formula.arg());
    Some(LoraSlots { gpu_bytes, host_bytes: whole.host_bytes, formula })
}
