//! Hugging Face inference over several GPUs as people run it (`engine=hf` with `pp`, issue 30):
//! `from_pretrained(device_map="auto")` places whole decoder layers on the GPUs in order, and
//! accelerate's hooks move the hidden states from one GPU to the next — one GPU works at a time.
//! Read in accelerate (`utils/modeling.py`, `hooks.py`) and transformers' `from_pretrained`:
//! - `get_balanced_memory` gives every GPU but the last the model's size ÷ GPUs + 1.25 × the first
//!   decoder layer's, or its free memory when that is less; the last keeps its free memory;
//! - `infer_auto_device_map` fills the GPUs in module order (the embedding, the layers, the final
//!   norm, the LM head), the first GPU keeping room for the largest module (an embedding, an LM head
//!   or a layer); a tied LM head stays with its embedding;
//! - the root module's hook (`io_same_device`) returns the output to the input's GPU: before 4.45
//!   the prompt's fp32 logits are copied to the first GPU (the cache is not moved: transformers
//!   skips `past_key_values`);
//! - each GPU holds its layers' weights and cache and runs its own layer's working set, so the
//!   sum of every GPU's `max_memory_allocated` (what benchmarks that sum the GPUs print) adds one
//!   working set per GPU.
//!
//! docs/research/transformers-inference-by-release.md, "device_map over several GPUs", has the
//! source lines and the measured rows.

use super::architecture::LayerKind;
use super::bill::{Live, ParallelSummary, RankSummary};
use super::inference::{self, Amounts, GpuPart};
use super::plan::{Inference, Plan};
use super::serving::grid::{self, weight_bytes, Split, Stage};

/// Whether `i` is generated over a device map (`engine=hf`, `pp` above 1; native builds only: the
/// page bills one GPU and says so).
pub fn is_layer_split(i: &Inference) -> bool {
    cfg!(not(feature = "page")) && i.engine.engine == super::scenario::Engine::Hf && i.pp > 1
}

/// One GPU of the map: its stage (`first`: the embedding, `last`: the LM head), its weights'
/// bytes, what it runs, and its moments.
#[derive(Clone, Debug, PartialEq)]
pub struct MappedGpu {
    pub stage: Stage,
    pub weights: f64,
    /// What stays beside the moments: bitsandbytes' dequantization buffer where layers run, the
    /// vision tower's working set on the first GPU.
    pub running: f64,
    pub part: GpuPart,
    pub prefill: Live,
    pub decode: Option<Live>,
    /// What loading holds beyond its weights (`inference::Amounts::load_copy`, on the head's GPU).
    pub load: f64,
}

impl MappedGpu {
    /// Its `max_memory_allocated`: the weights, and the larger of loading's tensor and a moment
    /// with what stays beside it.
    pub fn allocated(&self) -> f64 {
        let decode = self.decode.map_or(0.0, |d| d.total());
        self.weights + (self.running + self.prefill.total().max(decode)).max(self.load)
    }
}

/// The model's parts as loaded on one GPU of `tp`: each decoder layer (by its class: attention
/// kind, MoE or dense, with or without an MLP), the embedding (and a vision tower), and the final
/// norm with an untied LM head.
struct Parts {
    layers: Vec<f64>,
    embedding: f64,
    head: f64,
}

impl Parts {
    fn of(p: &Plan, i: &Inference) -> Parts {
        let arch = p.arch;
        let split = whole_split(i);
        let piece = |layers: std::ops::Range<u64>, first: bool, last: bool| {
            weight_bytes(arch, i, &Stage { index: 0, layers, first, last }, split, 1.0)
        };
        // One weight count per class of layer (a model has a few).
        let mut by_class: Vec<(super::architecture::LayerClass, f64)> = Vec::new();
        let layers = (0..arch.layers)
            .map(|l| {
                let class = arch.layer_class(l);
                match by_class.iter().find(|(c, _)| *c == class) {
                    Some((_, b)) => *b,
                    None => {
                        let b = piece(l..l + 1, false, false);
                        by_class.push((class, b));
                        b
                    }
                }
            })
            .collect();
        let embedding = piece(0..0, true, false);
        let head = if arch.tied_embeddings { 0.0 } else { piece(arch.layers..arch.layers, false, true) };
        Parts { layers, embedding, head }
    }

    fn total(&self) -> f64 {
        self.embedding + self.layers.iter().sum::<f64>() + self.head
    }
}

/// The stages accelerate gives `pp` GPUs (see the module's rules), as layer ranges; a GPU past the
/// model's end gets none.
fn stages(p: &Plan, i: &Inference, parts: &Parts) -> Vec<Stage> {
    let arch = p.arch;
    let pp = i.pp.max(1);
    // The no-split block's size: the first decoder layer's.
    let first_layer = parts.layers.first().copied().unwrap_or(0.0);
    // What each GPU may take: the balanced share, or the card's free memory when that is less
    // (`get_max_memory`: what the CUDA context leaves).
    let free = (p.gpu.torch_bytes as f64 - p.overhead_mib * super::scenario::MIB).max(0.0);
    let budget = (parts.total() / pp as f64 + 1.25 * first_layer).min(free);
    let largest = parts.layers.iter().fold(parts.embedding.max(parts.head), |a, &b| a.max(b));
    // The last GPU takes what is left (accelerate would offload the rest to the CPU, which is not
    // billed: the bill then shows that GPU over its card).
    let room = |gpu: u64| match gpu {
        _ if gpu + 1 == pp => f64::INFINITY,
        0 => budget - largest,
        _ => budget,
    };
    // The GPU each layer lands on, filling in order.
    let (mut gpu, mut used) = (0u64, parts.embedding);
    let mut starts = vec![0u64; pp as usize + 1];
    for (l, &layer) in (0..arch.layers).zip(&parts.layers) {
        if used + layer > room(gpu) && gpu + 1 < pp {
            gpu += 1;
            used = 0.0;
            starts[gpu as usize] = l;
        }
        used += layer;
    }
    let last_used = gpu;
    for g in gpu + 1..=pp {
        starts[g as usize] = arch.layers;
    }
    // The final norm and an untied LM head go where they fit: the last GPU with layers, or the next.
    let head_gpu = if arch.tied_embeddings {
        0
    } else if used + parts.head > room(last_used) && last_used + 1 < pp {
        last_used + 1
    } else {
        last_used
    };
    (0..pp)
        .map(|g| Stage {
            index: g,
            layers: starts[g as usize]..starts[g as usize + 1].max(starts[g as usize]),
            first: g == 0,
            last: g == head_gpu,
        })
        .collect()
}

/// Tensor parallelism inside a device map divides everything alike (transformers runs one or the
/// other; `tp` is kept as it is billed on one GPU).
fn whole_split(i: &Inference) -> Split {
    let tp = i.tp.max(1) as f64;
    Split { attention: tp, mlp: tp, experts: tp, shared: tp, embedding: tp, head: tp }
}

const KINDS: [LayerKind; 4] = [LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked, LayerKind::Linear];

/// A stage's share of the cache: its layers' KV, each kind holding what it keeps (`per_layer`: a
/// window, a chunk, the whole sequence, a linear-attention layer's fixed state).
fn kv_share(p: &Plan, s: &Stage, per_layer: &[f64; 4]) -> f64 {
    let whole: f64 = KINDS.iter().zip(per_layer).map(|(&k, b)| p.arch.cache_layers_of(k) as f64 * b).sum();
    let here: f64 = KINDS.iter().zip(per_layer).map(|(&k, b)| s.cache_layers_of(p.arch, k) as f64 * b).sum();
    if whole > 0.0 {
        here / whole
    } else {
        0.0
    }
}

/// Every GPU of the map with its weights (the model's stored bytes shared as the stages' loaded
/// bytes are, so they add up to the one-GPU bill's) and its moments.
fn gpus(p: &Plan, i: &Inference, a: &Amounts) -> Vec<MappedGpu> {
    let parts = Parts::of(p, i);
    let stages = stages(p, i, &parts);
    let per_layer = KINDS.map(|k| inference::kv_layer_bytes(p, i, k));
    let loaded: Vec<f64> = stages
        .iter()
        .map(|s| {
            let layers: f64 = parts.layers[s.layers.start as usize..s.layers.end as usize].iter().sum();
            let embedding = if s.first { parts.embedding } else { 0.0 };
            // A tied head is the embedding itself, on the first GPU.
            let head = if s.last { parts.head } else { 0.0 };
            layers + embedding + head
        })
        .collect();
    let sum: f64 = loaded.iter().sum();
    // RoPE's tables, where transformers keeps them, are in every layer: each GPU holds its layers'.
    let tables = inference::rope_table_bytes(p, i);
    let stored = inference::weights(p, i).bytes as f64 - tables;
    let table_per_layer = tables / p.arch.layers.max(1) as f64;
    let dequant = inference::dequant_buffer(p, i).map_or(0.0, |c| c.bytes as f64);
    let vision = super::vision::vision_activations(p).map_or(0.0, |(c, _)| c.bytes as f64);
    stages
        .into_iter()
        .zip(loaded)
        .map(|(stage, bytes)| {
            let part = GpuPart {
                kv_share: kv_share(p, &stage, &per_layer),
                layers: stage.count() > 0,
                head: stage.last,
                // The output returns to the input's GPU, the first; where the head is on it, it
                // never left.
                output: stage.first,
            };
            let (prefill, decode) = inference::moments(i, part, a);
            let weights = if sum > 0.0 { stored * bytes / sum } else { 0.0 } + table_per_layer * stage.count() as f64;
            let running = if part.layers { dequant } else { 0.0 } + if stage.first { vision } else { 0.0 };
            let load = inference::load_moment(a, part);
            MappedGpu { stage, weights, running, part, prefill, decode, load }
        })
        .collect()
}

/// The GPU the bill is of (`stage`, or the one that needs the most) and the map's `parallel`
/// object: every GPU, the one that needs the most as the worst. `device` gives a GPU's device
/// total from its allocated bytes.
pub fn billed(p: &Plan, i: &Inference, a: &Amounts, device: impl Fn(f64) -> f64) -> (MappedGpu, ParallelSummary) {
    let mut gpus = gpus(p, i, a);
    let ranks: Vec<RankSummary> = gpus
        .iter()
        .map(|g| {
            let allocated = g.allocated();
            RankSummary {
                stage: g.stage.index,
                layers: g.stage.count(),
                weights_bytes: g.weights as u64,
                activations_bytes: g.prefill.activations.max(g.decode.map_or(0.0, |d| d.activations)) as u64,
                allocated_bytes: allocated as u64,
                device_bytes: device(allocated) as u64,
            }
        })
        .collect();
    let worst = ranks.iter().max_by_key(|r| r.device_bytes).map_or(0, |r| r.stage as usize);
    // A map has `pp` GPUs, at least one.
    let billed = grid::billed(i, worst, gpus.len());
    let summary = grid::summary(i, worst as u64, billed as u64, ranks);
    (gpus.swap_remove(billed), summary)
}
