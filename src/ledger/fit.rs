//! Fit solvers (the largest micro-batch, the longest sequence, the largest model that fit a GPU with
//! the chapter's 20 % margin) and the chapter's speed card (§4) regenerated from the ledger.

use super::architecture::Architecture;
use super::bill::Verdict;
use super::estimate::estimate;
use super::presets::{self, ModelPreset};
use super::scenario::{Gpu, Method, Mode, Scenario};
use super::storage::StorageFormat;

/// Upper bounds of the searches: beyond them the answer is "at least this".
pub const MAX_BATCH: u64 = 1 << 16;
pub const MAX_SEQ: u64 = 1 << 24;

fn fits_with_margin(s: &Scenario) -> bool {
    estimate(s).verdict() == Verdict::Fits
}

/// The largest value in `1..=max` for which `fits(value)` holds, assuming memory grows with it;
/// 0 when even 1 does not fit.
fn largest_fitting(max: u64, mut fits: impl FnMut(u64) -> bool) -> u64 {
    if !fits(1) {
        return 0;
    }
    // Exponential probe, then bisection between the last fit and the first miss.
    let mut lo = 1u64;
    let mut hi = 2u64;
    while hi <= max && fits(hi) {
        lo = hi;
        hi = hi.saturating_mul(2);
    }
    if hi > max {
        if fits(max) {
            return max;
        }
        hi = max;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The largest micro-batch that fits with the 20 % margin (0: not even one sequence).
pub fn max_batch(s: &Scenario) -> u64 {
    let mut probe = s.clone();
    largest_fitting(MAX_BATCH, |b| {
        probe.batch = b;
        fits_with_margin(&probe)
    })
}

/// The smallest micro-batch that does not fit the card at all (the drill's "batch at the maximum");
/// `None` when even the search's largest batch fits.
pub fn first_oom_batch(s: &Scenario) -> Option<u64> {
    let mut probe = s.clone();
    let largest = largest_fitting(MAX_BATCH, |b| {
        probe.batch = b;
        estimate(&probe).fits()
    });
    (largest < MAX_BATCH).then_some(largest + 1)
}

/// The longest sequence (prompt, for inference) that fits with the 20 % margin.
pub fn max_seq(s: &Scenario) -> u64 {
    let mut probe = s.clone();
    largest_fitting(MAX_SEQ, |q| {
        probe.seq = q;
        fits_with_margin(&probe)
    })
}

/// The most completion tokens per sequence (`completion_len`) a GRPO / PPO step fits with the
/// 20 % margin, the prompt kept: the trainer's sequence, its logits and the rollout's cache grow
/// with it; a rollout engine sized by `rollout_util` keeps its pool and must hold one whole
/// sequence. `None` for other objectives.
pub fn max_completion_len(s: &Scenario) -> Option<u64> {
    if !s.generates() {
        return None;
    }
    let mut probe = s.clone();
    Some(largest_fitting(MAX_SEQ, |c| {
        probe.rl.completion_len = c;
        fits_with_margin(&probe)
    }))
}

/// The most completions per prompt (`generations`) a GRPO / PPO step fits with the 20 % margin,
/// with the same prompts per optimizer step and the same accumulation: the micro-batch, which
/// counts completions (TRL's `per_device_train_batch_size`), grows with them. `None` for other
/// objectives.
pub fn max_generations(s: &Scenario) -> Option<u64> {
    if !s.generates() {
        return None;
    }
    let per_step = s.batch.saturating_mul(s.accum).saturating_mul(s.gpus).max(1);
    let prompts = (per_step / s.rl.generations.max(1)).max(1);
    let per_micro_step = s.accum.saturating_mul(s.gpus).max(1);
    let mut probe = s.clone();
    Some(largest_fitting(super::scenario::MAX_GENERATIONS, |g| {
        probe.rl.generations = g;
        probe.batch = prompts.saturating_mul(g).div_ceil(per_micro_step);
        fits_with_margin(&probe)
    }))
}

/// What fits, as the page shows it: the largest micro-batch, and the longest sequence — or, for a
/// GRPO / PPO step, whose sequence is prompt + completion, no sequence (0) but the longest
/// completion and the most completions per prompt.
pub fn what_fits(s: &Scenario) -> (u64, u64, Option<(u64, u64)>) {
    let rollout = max_completion_len(s).zip(max_generations(s));
    let max_seq = if rollout.is_some() { 0 } else { max_seq(s) };
    (max_batch(s), max_seq, rollout)
}

/// The most GPUs [`fewest_device_map_gpus`] tries.
pub const MAX_DEVICE_MAP_GPUS: u64 = 64;

/// Whether `s` is generated with transformers, so a device map applies (native builds).
pub fn device_map_applies(s: &Scenario) -> bool {
    s.mode == Mode::Infer && s.serving.engine == super::scenario::Engine::Hf && cfg!(not(feature = "page"))
}

/// The most GPUs a device map of `s` is tried on: [`MAX_DEVICE_MAP_GPUS`], or one per layer.
pub fn most_device_map_gpus(s: &Scenario) -> u64 {
    MAX_DEVICE_MAP_GPUS.min(s.architecture.layers.max(1))
}

/// The fewest GPUs of the card over which transformers' `device_map="auto"` (`engine=hf` with
/// `pp`, `super::device_map`) serves `s` with every GPU inside the 20 % margin; `None` for other
/// scenarios, or when even [`most_device_map_gpus`] do not: a GPU's share shrinks with more GPUs,
/// but the one with the LM head keeps the prompt's logits and every GPU one layer's working set.
pub fn fewest_device_map_gpus(s: &Scenario) -> Option<u64> {
    if !device_map_applies(s) {
        return None;
    }
    let mut probe = s.clone();
    probe.layout.stage = None;
    (1..=most_device_map_gpus(s)).find(|&n| {
        probe.layout.pp = n;
        fits_with_margin(&probe)
    })
}

/// Text-only dense presets, the candidates for "the largest model that fits"; a preset with the
/// same shape as an earlier one (a fine-tune: Llama-3.3-70B, the R1 distills) is left out.
pub fn dense_text_models() -> Vec<ModelPreset> {
    let mut m: Vec<ModelPreset> = Vec::new();
    for p in presets::models() {
        let a = &p.architecture;
        // The same shapes under another name (a distilled model, a longer context): one entry.
        let same =
            |q: &Architecture| Architecture { name: a.name.clone(), max_context: a.max_context, ..q.clone() } == *a;
        let duplicate = m.iter().any(|q| same(&q.architecture));
        if a.moe.is_none() && a.vision.is_none() && p.id != "gpt2" && !duplicate {
            m.push(p.clone());
        }
    }
    by_parameters(m)
}

/// Presets from the smallest to the largest, ties in their order. An insertion sort of their
/// parameter counts (a few dozen presets; `sort_by_key` would add 3 KB of merge sort to the wasm).
fn by_parameters(mut v: Vec<ModelPreset>) -> Vec<ModelPreset> {
    let mut keyed: Vec<(u64, ModelPreset)> = v.drain(..).map(|p| (p.architecture.parameters(), p)).collect();
    for i in 1..keyed.len() {
        let mut j = i;
        while j > 0 && keyed[j - 1].0 > keyed[j].0 {
            keyed.swap(j - 1, j);
            j -= 1;
        }
    }
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// The preset with the most parameters among `candidates` that fits with the margin.
pub fn largest_model<'a>(s: &Scenario, candidates: &'a [ModelPreset]) -> Option<&'a ModelPreset> {
    let mut probe = s.clone();
    candidates.iter().rev().find(|m| {
        probe.architecture = m.architecture.clone();
        probe.model_id = Some(m.id.to_string());
        fits_with_margin(&probe)
    })
}

/// The largest model of the scenario's own family (e.g. Qwen2.5 0.5B … 72B) that fits with the
/// margin, all other settings kept. `None` for a custom model or when none fits.
pub fn largest_in_family(s: &Scenario) -> Option<ModelPreset> {
    let family = s.model_id.as_deref().and_then(presets::model)?.family;
    let members = by_parameters(presets::models().iter().filter(|m| m.family == family).cloned().collect());
    largest_model(s, &members).cloned()
}

/// A column of the speed card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardColumn {
    Full,
    Lora,
    Qlora,
    InferBf16,
    Infer4bit,
}

impl CardColumn {
    pub const ALL: [CardColumn; 5] =
        [CardColumn::Full, CardColumn::Lora, CardColumn::Qlora, CardColumn::InferBf16, CardColumn::Infer4bit];

    pub fn label(self) -> &'static str {
        match self {
            CardColumn::Full => "full fine-tune",
            CardColumn::Lora => "LoRA",
            CardColumn::Qlora => "4-bit LoRA (QLoRA)",
            CardColumn::InferBf16 => "inference bf16",
            CardColumn::Infer4bit => "inference 4-bit",
        }
    }

    /// The scenario of this column; the assumptions are printed with the card.
    pub fn scenario(self, gpu: &Gpu) -> Scenario {
        let mut s = Scenario { gpu: gpu.clone(), ..Scenario::default() };
        match self {
            CardColumn::Full => s.method = Method::Full,
            CardColumn::Lora => s.method = Method::Lora,
            CardColumn::Qlora => {
                s.method = Method::Qlora;
                s.quant = StorageFormat::Nf4;
            }
            CardColumn::InferBf16 | CardColumn::Infer4bit => {
                s.mode = Mode::Infer;
                s.seq = 4096;
                s.quant = if self == CardColumn::Infer4bit { StorageFormat::Awq4 } else { StorageFormat::Bf16 };
            }
        }
        s
    }
}

/// The cards of the chapter's speed card: 24 GB (4090), 48 GB (A6000), 80 GB (A100).
pub const CARD_GPUS: [&str; 3] = ["rtx4090", "a6000", "a100-80g"];

pub const CARD_ASSUMPTIONS: &str = "training: micro-batch 1, seq 2048, gradient checkpointing, SDPA attention, \
AdamW, bf16 mixed precision (fp32 master + states for full); LoRA r = 16 on all linear layers (fp32 adapters); \
QLoRA: NF4 with double quantization; inference: batch 1, 4096-token context, bf16 KV cache, 4-bit = AWQ g128; \
CUDA context 500 MiB; fit = nvidia-smi total ≤ 80 % of the card (the chapter's 20 % margin)";

/// One cell: the largest dense text preset that fits, with its device total.
#[derive(Clone, Debug, PartialEq)]
pub struct CardCell {
    pub column: CardColumn,
    pub model: Option<(String, u64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CardRow {
    pub gpu: Gpu,
    pub cells: Vec<CardCell>,
}

/// The speed card as `make card` last generated it from [`speed_card`] (src/ledger/speed_card.rs;
/// tests/cli.rs fails when it is stale). The page shows this one: computing the card takes a few
/// hundred estimates and the search code, which the download need not carry.
pub fn speed_card_stored() -> Vec<CardRow> {
    super::speed_card::SPEED_CARD
        .iter()
        .filter_map(|(gpu, cells)| {
            let gpu = Gpu::preset(gpu)?;
            let cells = CardColumn::ALL
                .iter()
                .zip(cells.iter())
                .map(|(&column, m)| CardCell { column, model: m.map(|(id, p)| (id.to_string(), p)) })
                .collect();
            Some(CardRow { gpu, cells })
        })
        .collect()
}

/// The Rust source of src/ledger/speed_card.rs for `rows` (`vram-ledger --card-table`).
pub fn speed_card_source(rows: &[CardRow]) -> String {
    let mut out = String::from(
        "//! The chapter's speed card as the ledger computes it (`fit::speed_card`), stored for the page.\n\
//! Generated by `make card`; tests/cli.rs fails when it is stale.\n\n\
/// A GPU preset and, for each column of `fit::CardColumn::ALL`, the largest model that fits.\n\
pub type Row = (&'static str, [Option<(&'static str, u64)>; 5]);\n\n\
#[rustfmt::skip]\n\
pub const SPEED_CARD: &[Row] = &[\n",
    );
    for r in rows {
        let cells: Vec<String> = r
            .cells
            .iter()
            .map(|c| match &c.model {
                Some((id, p)) => format!("Some((\"{id}\", {p}))"),
                None => "None".to_string(),
            })
            .collect();
        out.push_str(&format!("    (\"{}\", [{}]),\n", r.gpu.id.unwrap_or("custom"), cells.join(", ")));
    }
    out.push_str("];\n");
    out
}

/// The speed card, regenerated from the ledger.
pub fn speed_card() -> Vec<CardRow> {
    let candidates = dense_text_models();
    CARD_GPUS
        .iter()
        .filter_map(|id| Gpu::preset(id))
        .map(|gpu| CardRow {
            cells: CardColumn::ALL
                .iter()
                .map(|&column| CardCell {
                    column,
                    model: largest_model(&column.scenario(&gpu), &candidates)
                        .map(|m| (m.id.to_string(), m.architecture.parameters())),
                })
                .collect(),
            gpu,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::largest_fitting;

    /// The search finds the exact boundary of a monotone predicate, at the ends too, and asks few
    /// questions (an exponential probe then bisection: about 2·log2 of the answer).
    #[test]
    fn bisection_finds_the_boundary() {
        for limit in [1u64, 2, 3, 7, 8, 9, 1000, 65_535, 65_536] {
            let mut asked = 0;
            let found = largest_fitting(65_536, |v| {
                asked += 1;
                v <= limit
            });
            assert_eq!(found, limit);
            assert!(asked <= 2 * 17 + 2, "{limit}: {asked} questions");
        }
        assert_eq!(largest_fitting(100, |_| false), 0, "nothing fits");
        assert_eq!(largest_fitting(100, |_| true), 100, "everything up to the bound fits");
        assert_eq!(largest_fitting(100, |v| v <= 99), 99);
    }
}
