//! A serving grid (issue 28): `tp` × `pp` × `dp` GPUs as vLLM lays them out. Read in vLLM
//! 0.10.1.1–0.33 (docs/research/serving/grid-rules.md):
//! - pipeline stages hold `layers / pp` layers each, the remainder one each to the stages before
//!   the last (`get_pp_indices`); the embedding is on the first stage, the final norm and LM head on
//!   the last (a tied model's last stage keeps its own copy of the table);
//! - attention, dense MLPs and shared experts split over `tp` inside each data-parallel rank; a
//!   mixture of experts' routed experts over all `tp × dp` GPUs of the stage: whole experts with
//!   `--enable-expert-parallel` (the expert-parallel group is `tp × dp`; the first
//!   `experts mod ep` ranks take one more), each expert split without it;
//! - with expert parallel over several data-parallel ranks and `tp` > 1, the shared experts are
//!   whole on every GPU (0.11 on);
//! - each stage sizes its blocks from its own free memory and its own layers; the engine takes the
//!   fewest blocks of any stage; the sampler's warm-up runs on the last stage only;
//! - each data-parallel rank profiles and sizes its own pool; its MoE layers see the tokens of
//!   every rank (`dp × max_num_batched_tokens`).

use std::ops::Range;

use crate::ledger::architecture::{Architecture, LayerKind, LinearGroup};
use crate::ledger::bill::{ParallelSummary, RankSummary};
use crate::ledger::plan::Inference;

/// The part of the model one GPU of the grid serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// Its pipeline stage (0-based) and its layers.
    pub index: u64,
    pub layers: Range<u64>,
    pub first: bool,
    pub last: bool,
}

impl Stage {
    /// The whole model on one stage.
    pub fn whole(arch: &Architecture) -> Stage {
        Stage { index: 0, layers: 0..arch.layers, first: true, last: true }
    }

    /// Stage `p` of `pp` (vLLM's `get_pp_indices`: `layers / pp` each, the remainder one each to
    /// stages pp − 2, pp − 3, …, never to the last).
    pub fn of(arch: &Architecture, pp: u64, p: u64) -> Stage {
        // Stage q takes one more when it is among the `extra` stages just before the last.
        Stage::split(arch.layers, pp, p, |q, pp, base, extra| base + u64::from(q + 1 < pp && q + 1 + extra >= pp))
    }

    /// Stage `p` of `pp` as SGLang splits the layers (`get_pp_indices`): `layers / pp` each, the
    /// remainder to the last stage up to 0.5.4, one each to the last stages from 0.5.6.
    pub fn sglang(arch: &Architecture, pp: u64, p: u64, version: crate::ledger::scenario::Release) -> Stage {
        let to_last = version < crate::ledger::scenario::Release(0, 5, 6);
        Stage::split(arch.layers, pp, p, |q, pp, base, extra| match q {
            _ if to_last => base + if q + 1 == pp { extra } else { 0 },
            _ => base + u64::from(q + extra >= pp),
        })
    }

    /// Stage `p` of `pp` over `layers`, stage q holding `size(q, pp, layers / pp, layers % pp)`.
    fn split(layers: u64, pp: u64, p: u64, size: impl Fn(u64, u64, u64, u64) -> u64) -> Stage {
        let pp = pp.max(1);
        let (base, extra) = (layers / pp, layers % pp);
        let start: u64 = (0..p).map(|q| size(q, pp, base, extra)).sum();
        let end = (start + size(p, pp, base, extra)).min(layers);
        Stage { index: p, layers: start.min(end)..end, first: p == 0, last: p + 1 == pp }
    }

    pub fn count(&self) -> u64 {
        self.layers.end - self.layers.start
    }

    /// Its layers of attention kind `kind`.
    pub fn layers_of(&self, arch: &Architecture, kind: LayerKind) -> u64 {
        if self.layers == (0..arch.layers) {
            return arch.layers_of(kind);
        }
        self.layers.clone().filter(|&l| arch.layer_pattern.kind_of(l) == kind).count() as u64
    }

    /// Its layers of attention kind `kind` that keep a KV cache of their own (not Gemma-4 E2B's
    /// and E4B's KV-shared last layers).
    pub fn cache_layers_of(&self, arch: &Architecture, kind: LayerKind) -> u64 {
        if self.layers == (0..arch.layers) {
            return arch.cache_layers_of(kind);
        }
        self.layers.clone().filter(|&l| arch.layer_pattern.kind_of(l) == kind && !arch.is_kv_shared(l)).count() as u64
    }
}

/// How one GPU divides each part of the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Split {
    /// Attention (and the layers' norms, biases and routers).
    pub attention: f64,
    /// Dense MLPs.
    pub mlp: f64,
    /// Routed experts.
    pub experts: f64,
    /// Shared experts (1: whole on every GPU).
    pub shared: f64,
    pub embedding: f64,
    pub head: f64,
}

/// The grid of `i`, when it is one: `pp`, `dp` or `ep` above 1. The page bills one GPU of `tp` (its
/// note says so): a served grid is billed natively (the CLI, the JSON, the accuracy report).
pub fn is_grid(i: &Inference) -> bool {
    cfg!(not(feature = "page")) && (i.pp > 1 || i.dp > 1 || i.ep > 1)
}

/// Whole experts over `ep` GPUs: the rank with one more when they do not divide evenly.
fn whole_experts(arch: &Architecture, ep: u64) -> f64 {
    arch.moe.as_ref().map_or(1.0, |m| m.experts as f64 / m.experts.div_ceil(ep.max(1)).max(1) as f64)
}

/// The GPUs an engine spreads whole routed experts over, or 1 when each of its tp × dp GPUs holds
/// a slice of every expert: `ep` above 1 is vLLM's `--enable-expert-parallel`, over tp × dp, and
/// SGLang's `--ep-size`.
pub fn expert_group(engine: crate::ledger::scenario::Engine, tp: u64, dp: u64, ep: u64) -> u64 {
    match engine {
        _ if ep <= 1 => 1,
        crate::ledger::scenario::Engine::Vllm => tp.saturating_mul(dp),
        _ => ep,
    }
}

/// What one GPU of vLLM's grid divides by (see the module's rules).
pub fn vllm_split(arch: &Architecture, i: &Inference) -> Split {
    let (tp, dp) = (i.tp.max(1) as f64, i.dp.max(1) as f64);
    let group = expert_group(crate::ledger::scenario::Engine::Vllm, i.tp, i.dp, i.ep);
    let experts = if group > 1 { whole_experts(arch, group) } else { tp * dp };
    let shared = if i.ep > 1 && i.tp > 1 && i.dp > 1 { 1.0 } else { tp };
    Split { attention: tp, mlp: tp, experts, shared, embedding: tp, head: tp }
}

/// What one GPU of SGLang's data-parallel attention divides by (docs/research/serving/grid-rules.md,
/// B1): its tensor-parallel group is `tp × dp` GPUs (`--tp`), attention splits over `tp` inside
/// it (`attn_tp_size = tp_size / dp_size`); dense MLPs, shared experts and the LM head over the
/// whole group; routed experts over the group, or `experts / ep` whole with `--ep-size` (a
/// sub-split of the group); the embedding whole on every GPU up to 0.5.6, over `tp` from 0.5.10.
pub fn sglang_split(arch: &Architecture, i: &Inference, version: crate::ledger::scenario::Release) -> Split {
    let (tp, group) = (i.tp.max(1) as f64, (i.tp * i.dp).max(1) as f64);
    let experts = match expert_group(crate::ledger::scenario::Engine::Sglang, i.tp, i.dp, i.ep) {
        1 => group,
        ep => whole_experts(arch, ep),
    };
    let embedding = if i.dp > 1 && version < crate::ledger::scenario::Release(0, 5, 10) { 1.0 } else { tp };
    Split { attention: tp, mlp: group, experts, shared: group, embedding, head: group }
}

/// Bytes of the weights one GPU of stage `s` holds, as loaded in `i.weights`' format: its layers'
/// linears divided as `split` says (latent attention's down-projections whole on every GPU), their
/// norms, biases and routers, the embedding (and a vision tower) on the first stage, the LM head on
/// the last; `mxfp4_pad` scales the experts as vLLM pads them.
pub fn weight_bytes(arch: &Architecture, i: &Inference, s: &Stage, split: Split, mxfp4_pad: f64) -> f64 {
    let w = i.weights;
    let linears = arch.linears();
    let bits = |group: LinearGroup, d_in: u64| {
        if w.format.is_dense() || !group.quantized_under(w.layers) {
            16.0
        } else {
            w.format.bits_per_weight(w.double_quant, d_in)
        }
    };
    let small = arch.small_parameters() as f64 / arch.layers.max(1) as f64 * 2.0 / split.attention;
    let mut bytes = 0.0;
    for layer in s.layers.clone() {
        let class = arch.layer_class(layer);
        bytes += small;
        for l in linears.iter().filter(|l| class.has(l)) {
            let divide = match l.group {
                LinearGroup::Expert => split.experts / mxfp4_pad,
                LinearGroup::SharedExpert => split.shared,
                LinearGroup::Mlp => split.mlp,
                _ if matches!(l.name, "q_a_proj" | "kv_a_proj_with_mqa") => 1.0,
                _ => split.attention,
            };
            bytes += l.parameters() as f64 * bits(l.group, l.d_in) / 8.0 / divide;
        }
    }
    if s.first {
        bytes += arch.embedding_parameters() as f64 * 2.0 / split.embedding;
        bytes += arch.encoder_parameters() as f64 * 2.0 / split.attention;
    }
    if s.last {
        // A tied model's last stage holds the table again when it is not also the first.
        let head = if arch.tied_embeddings && !s.first {
            arch.vocab.saturating_mul(arch.hidden)
        } else {
            arch.lm_head_parameters()
        };
        bytes += head as f64 * 2.0 / split.head + arch.norm_size() as f64 * 2.0;
    }
    bytes
}

/// The GPU of `count` stages the bill is of: the one `stage` picks (the last when it is past the
/// end), or `default` (the one that binds the pool, or needs the most).
pub fn billed(i: &Inference, default: usize, count: usize) -> usize {
    i.stage.map_or(default, |k| (k as usize).min(count.saturating_sub(1)))
}

/// NCCL's process groups of more than one GPU a GPU of the grid belongs to: tensor, pipeline, and
/// the data- or expert-parallel group.
pub fn process_groups(i: &Inference) -> u64 {
    [i.tp, i.pp, i.dp].iter().filter(|&&g| g > 1).count() as u64
}

/// The `parallel` object of a served grid: every stage's GPU, the one that binds the pool (the
/// fewest blocks) as the worst, and the one billed.
pub fn summary(i: &Inference, binding: u64, billed: u64, ranks: Vec<RankSummary>) -> ParallelSummary {
    let layout = crate::ledger::scenario::Layout { tp: i.tp, pp: i.pp, dp: i.dp, ep: i.ep, ..Default::default() };
    let worst_bytes = ranks.iter().find(|r| r.stage == binding).map_or(0, |r| r.device_bytes);
    ParallelSummary { layout, worst_stage: binding, worst_bytes, billed_stage: billed, ranks }
}
