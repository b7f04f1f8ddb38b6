//! The OOM decision tree of chapter 7.1 §3: the data (`data`), a computed layout and its SVG, the
//! levers that change one variable of a scenario (the chapter's rule: one change at a time), and a
//! diagnosis from what the user measured. Pure: it depends on the ledger, never on the UI.

pub mod data;
pub mod described;
pub mod paste;
pub mod reader;
pub mod startup;

pub use data::{children, node, parent, Bi, Edge, Node, NodeId, Shape, EDGES, NODES};

use crate::ledger::architecture::ImageSize;
use crate::ledger::bill::ComponentId;
use crate::ledger::scenario::{
    Allocator, Checkpointing, Engine, Method, Mode, Objective, Offload, Optimizer, Precision, Reference, Rollout,
    Scenario, GIB,
};
use crate::ledger::storage::{KvDtype, StorageFormat};
use crate::ledger::units::fixed;
use crate::ledger::{estimate, Bill};

/// A coordinate with one decimal (coordinates are never negative here).
fn c1(x: f64) -> String {
    fixed(x.max(0.0), 1)
}

// ---------------------------------------------------------------------------------------------
// Layout

/// A node's place in the diagram, in grid units (column may be fractional), before scaling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Place {
    pub id: NodeId,
    pub rank: usize,
    pub column: f64,
}

/// Ranks by longest path from the root; each child centred under its parent, siblings side by side.
pub fn layout() -> Vec<Place> {
    let mut places: Vec<Place> = Vec::new();
    let mut queue = vec![(NodeId::Oom, 0usize, 0.0f64)];
    while let Some((id, rank, column)) = queue.first().copied() {
        queue.remove(0);
        if places.iter().any(|p| p.id == id) {
            continue;
        }
        places.push(Place { id, rank, column });
        let kids: Vec<&Edge> = children(id).collect();
        let k = kids.len() as f64;
        for (i, e) in kids.iter().enumerate() {
            queue.push((e.to, rank + 1, column + (i as f64 - (k - 1.0) / 2.0) * 1.1));
        }
    }
    places
}

const NODE_W: f64 = 230.0;
const NODE_H: f64 = 54.0;
const COL_W: f64 = 250.0;
const ROW_H: f64 = 84.0;
const PAD: f64 = 12.0;

/// Width of a text in em, roughly: CJK and full-width characters 1 em, the rest about 0.56 em.
fn em_width(s: &str) -> f64 {
    s.chars().map(|c| if (c as u32) >= 0x2E80 { 1.0 } else { 0.56 }).sum()
}

/// Breaks a label into lines of at most `max_em`, at spaces (or anywhere in CJK runs).
pub fn wrap(text: &str, max_em: f64) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in paragraph.split_inclusive(' ') {
            if em_width(&line) + em_width(word.trim_end()) > max_em && !line.trim().is_empty() {
                lines.push(line.trim_end().to_string());
                line.clear();
            }
            if em_width(word) > max_em {
                // A long CJK run: break it by characters.
                for c in word.chars() {
                    if em_width(&line) + em_width(&c.to_string()) > max_em && !line.trim().is_empty() {
                        lines.push(line.trim_end().to_string());
                        line.clear();
                    }
                    line.push(c);
                }
            } else {
                line.push_str(word);
            }
        }
        if !line.trim().is_empty() {
            lines.push(line.trim_end().to_string());
        }
    }
    lines
}

fn label_text(b: &Bi, zh: bool) -> &'static str {
    if zh {
        b.zh
    } else {
        b.en
    }
}

/// One line of a node's label: the main label, or a smaller detail line.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelLine {
    pub text: String,
    pub main: bool,
}

/// A node as drawn: its box (top-left corner, size, corner radius) and label lines.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeShape {
    pub id: NodeId,
    pub shape: Shape,
    pub x: f64,
    pub y: f64,
    pub rx: f64,
    /// Centre of the label and the baseline of its first line.
    pub text_x: f64,
    pub text_y: f64,
    pub lines: Vec<LabelLine>,
    /// The whole label on one line (for screen readers).
    pub aria: String,
}

/// An edge as drawn: a cubic Bézier path, and its branch label with its anchor.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeShape {
    pub from: NodeId,
    pub to: NodeId,
    pub path: String,
    pub label: Option<(String, f64, f64, &'static str)>,
}

/// The whole diagram in one language. The UI draws it with `html!`, so the node elements persist
/// between renders and keep the keyboard focus.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagram {
    pub width: f64,
    pub height: f64,
    pub node_width: f64,
    pub node_height: f64,
    pub nodes: Vec<NodeShape>,
    pub edges: Vec<EdgeShape>,
}

/// The layout of the tree in Chinese (`zh`) or English.
pub fn diagram(zh: bool) -> Diagram {
    let places = layout();
    let min_col = places.iter().map(|p| p.column).fold(f64::INFINITY, f64::min);
    let max_col = places.iter().map(|p| p.column).fold(f64::NEG_INFINITY, f64::max);
    let ranks = places.iter().map(|p| p.rank).max().unwrap_or(0) + 1;
    let center =
        |p: &Place| (PAD + (p.column - min_col) * COL_W + NODE_W / 2.0, PAD + p.rank as f64 * ROW_H + NODE_H / 2.0);
    let place = |id: NodeId| places.iter().find(|p| p.id == id);
    let edges = EDGES
        .iter()
        .filter_map(|e| {
            let ((x1, y1), (x2, y2)) = (center(place(e.from)?), center(place(e.to)?));
            let (top, bottom) = (y1 + NODE_H / 2.0, y2 - NODE_H / 2.0);
            let path = format!(
                "M {} {} C {} {}, {} {}, {} {}",
                c1(x1),
                c1(top),
                c1(x1),
                c1(top + 16.0),
                c1(x2),
                c1(bottom - 16.0),
                c1(x2),
                c1(bottom - 2.0)
            );
            let label = e.label.as_ref().map(|l| {
                let right = x2 >= x1;
                let x = (x1 + x2) / 2.0 + if right { 6.0 } else { -6.0 };
                (label_text(l, zh).to_string(), x, (y1 + y2) / 2.0 + 4.0, if right { "start" } else { "end" })
            });
            Some(EdgeShape { from: e.from, to: e.to, path, label })
        })
        .collect();
    let nodes = places.iter().map(|p| node_shape(p, center(p), zh)).collect();
    Diagram {
        width: (max_col - min_col) * COL_W + NODE_W + 2.0 * PAD,
        height: ranks as f64 * ROW_H - (ROW_H - NODE_H) + 2.0 * PAD,
        node_width: NODE_W,
        node_height: NODE_H,
        nodes,
        edges,
    }
}

fn node_shape(p: &Place, (cx, cy): (f64, f64), zh: bool) -> NodeShape {
    let n = node(p.id);
    let text = label_text(&n.label, zh);
    let first_para = text.split('\n').next().unwrap_or("");
    let mut lines: Vec<LabelLine> =
        wrap(first_para, (NODE_W - 14.0) / 13.0).into_iter().map(|text| LabelLine { text, main: true }).collect();
    lines.extend(
        text.split('\n')
            .skip(1)
            .flat_map(|d| wrap(d, (NODE_W - 14.0) / 11.0))
            .map(|text| LabelLine { text, main: false }),
    );
    let rx = match n.shape {
        Shape::Decision => 26.0,
        Shape::Start => 27.0,
        Shape::Step => 8.0,
    };
    NodeShape {
        id: p.id,
        shape: n.shape,
        x: cx - NODE_W / 2.0,
        y: cy - NODE_H / 2.0,
        rx,
        text_x: cx,
        text_y: cy - (lines.len() as f64 - 1.0) * 7.5 + 4.0,
        aria: text.replace('\n', " "),
        lines,
    }
}

/// A coordinate for SVG attributes (one decimal).
pub fn coordinate(x: f64) -> String {
    c1(x)
}

// ---------------------------------------------------------------------------------------------
// Levers: one variable at a time.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lever {
    /// ① micro-batch halved, accumulation doubled: the same effective batch.
    HalveBatch,
    /// ② gradient checkpointing on.
    Checkpointing,
    /// ③ one dtype: fp32 training → bf16 mixed precision; fp32 served weights → bf16.
    OneDtype,
    /// ④ half the sequence, or half the visual tokens.
    ShorterSequence,
    /// ⑦ `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` (training).
    Expandable,
    /// ZeRO-3 / FSDP over twice the GPUs (tensor parallel for inference).
    Shard,
    /// 8-bit AdamW.
    Adam8bit,
    /// QLoRA: adapters on an NF4 base.
    Qlora,
    /// The optimizer offloaded to host RAM (DeepSpeed ZeRO-Offload: ZeRO-2 with `offload_optimizer`,
    /// on one GPU too).
    Offload,
    /// Serving: a larger share of the card for the engine (vLLM `gpu_memory_utilization` 0.95,
    /// SGLang `mem_fraction_static` + 0.05).
    EngineShare,
    /// An 8-bit KV cache (fp8; llama.cpp's q8_0).
    KvEightBit,
    /// A quantized checkpoint for 16-bit served weights (FP8 with 128×128 blocks; llama.cpp's Q4_K_M).
    QuantizedWeights,
    /// GRPO / PPO: half the completions per prompt, and per micro-batch (the prompts per step kept).
    FewerGenerations,
    /// Preference / RL: half the sequences per no-grad log-probability pass (`logprob_batch`).
    LogprobBatch,
    /// A rollout engine on the card: half its `gpu_memory_utilization` (`rollout_util`).
    RolloutShare,
    /// A rollout engine on the card put to sleep between rollouts (vLLM's level 2, TRL's
    /// `vllm_enable_sleep_mode`; Unsloth's standby for shared weights).
    RolloutSleep,
    /// DPO: the reference's log-probabilities computed before training (`ref=precomputed`).
    RefPrecomputed,
    /// GRPO / PPO: no KL term (`beta=0`, TRL's default since 0.19): no reference pass.
    NoKl,
    /// GRPO / PPO: the rollout engine on other GPUs (`rollout=server`).
    RolloutServer,
}

impl Lever {
    pub const ALL: [Lever; 19] = [
        Lever::HalveBatch,
        Lever::Checkpointing,
        Lever::OneDtype,
        Lever::ShorterSequence,
        Lever::Expandable,
        Lever::Shard,
        Lever::Adam8bit,
        Lever::Qlora,
        Lever::Offload,
        Lever::EngineShare,
        Lever::KvEightBit,
        Lever::QuantizedWeights,
        Lever::FewerGenerations,
        Lever::LogprobBatch,
        Lever::RolloutShare,
        Lever::RolloutSleep,
        Lever::RefPrecomputed,
        Lever::NoKl,
        Lever::RolloutServer,
    ];

    pub fn from_id(id: &str) -> Option<Lever> {
        Lever::ALL.into_iter().find(|l| l.id() == id)
    }

    /// The lever's id in `data-testid`s (`lever-kveightbit`).
    pub fn id(self) -> &'static str {
        match self {
            Lever::HalveBatch => "halvebatch",
            Lever::Checkpointing => "checkpointing",
            Lever::OneDtype => "onedtype",
            Lever::ShorterSequence => "shortersequence",
            Lever::Expandable => "expandable",
            Lever::Shard => "shard",
            Lever::Adam8bit => "adam8bit",
            Lever::Qlora => "qlora",
            Lever::Offload => "offload",
            Lever::EngineShare => "engineshare",
            Lever::KvEightBit => "kveightbit",
            Lever::QuantizedWeights => "quantizedweights",
            Lever::FewerGenerations => "fewergenerations",
            Lever::LogprobBatch => "logprobbatch",
            Lever::RolloutShare => "rolloutshare",
            Lever::RolloutSleep => "rolloutsleep",
            Lever::RefPrecomputed => "refprecomputed",
            Lever::NoKl => "nokl",
            Lever::RolloutServer => "rolloutserver",
        }
    }

    pub fn label(self) -> Bi {
        match self {
            Lever::HalveBatch => {
                Bi { zh: "batch 减半、梯度累积加倍", en: "Halve the batch, double the accumulation" }
            }
            Lever::Checkpointing => Bi { zh: "开启 gradient checkpointing", en: "Turn on gradient checkpointing" },
            Lever::OneDtype => Bi { zh: "统一为 bf16", en: "One dtype: bf16" },
            Lever::ShorterSequence => {
                Bi { zh: "序列 / 视觉 token 减半", en: "Halve the sequence / visual tokens" }
            }
            Lever::Expandable => Bi { zh: "可扩展段(expandable_segments)", en: "Expandable segments" },
            Lever::Shard => Bi {
                zh: "GPU 数加倍(训练用 ZeRO-3 / FSDP,推理用张量并行)",
                en: "Twice the GPUs (ZeRO-3 / FSDP in training, tensor parallel in inference)",
            },
            Lever::Adam8bit => Bi { zh: "8-bit AdamW", en: "8-bit AdamW" },
            Lever::Qlora => Bi { zh: "改用 QLoRA(NF4 底座)", en: "Switch to QLoRA (NF4 base)" },
            Lever::Offload => Bi {
                zh: "优化器卸载到 CPU(DeepSpeed ZeRO-Offload)",
                en: "Offload the optimizer to the CPU (DeepSpeed ZeRO-Offload)",
            },
            Lever::EngineShare => Bi {
                zh: "给引擎更多显存(gpu_memory_utilization 0.95 / mem_fraction_static +0.05)",
                en: "Give the engine more of the card (gpu_memory_utilization 0.95 / mem_fraction_static +0.05)",
            },
            Lever::KvEightBit => {
                Bi { zh: "8 位 KV cache(fp8;llama.cpp 为 q8_0)", en: "An 8-bit KV cache (fp8; q8_0 in llama.cpp)" }
            }
            Lever::QuantizedWeights => Bi {
                zh: "换量化权重(FP8 分块;llama.cpp 为 Q4_K_M)",
                en: "A quantized checkpoint (block FP8; Q4_K_M in llama.cpp)",
            },
            Lever::FewerGenerations => Bi {
                zh: "每个提示的生成数减半(micro-batch 随之减半,每步提示数不变)",
                en: "Half the completions per prompt (and per micro-batch; the same prompts per step)",
            },
            Lever::LogprobBatch => Bi {
                zh: "对数概率前向的批量减半(logprob_batch)",
                en: "Halve the log-probability passes' batch (logprob_batch)",
            },
            Lever::RolloutShare => Bi {
                zh: "采样引擎的显存份额减半(rollout_util,即 gpu_memory_utilization)",
                en: "Halve the rollout engine's share of the card (rollout_util: its gpu_memory_utilization)",
            },
            Lever::RolloutSleep => Bi {
                zh: "采样之间让引擎休眠(vLLM sleep 级别 2;Unsloth standby)",
                en: "Put the engine to sleep between rollouts (vLLM sleep level 2; Unsloth's standby)",
            },
            Lever::RefPrecomputed => Bi {
                zh: "训练前预先算好参考模型的对数概率(precompute_ref_log_probs)",
                en: "Compute the reference log-probabilities before training (precompute_ref_log_probs)",
            },
            Lever::NoKl => Bi {
                zh: "去掉 KL 项(beta=0):不加载、不前向参考模型",
                en: "Drop the KL term (beta=0): no reference model, no reference pass",
            },
            Lever::RolloutServer => Bi {
                zh: "把采样引擎放到其他 GPU(vllm_mode=server)",
                en: "Move the rollout engine to other GPUs (vllm_mode=server)",
            },
        }
    }

    /// The scenario with this one change, or `None` when the lever does not apply (already on,
    /// nothing to halve, not a training run…).
    pub fn apply(self, s: &Scenario) -> Option<Scenario> {
        let mut t = s.clone();
        let train = s.mode == Mode::Train;
        match self {
            Lever::HalveBatch => {
                if s.batch < 2 {
                    return None;
                }
                t.batch = s.batch / 2;
                if train {
                    t.accum = s.accum.saturating_mul(2);
                }
            }
            Lever::Checkpointing => {
                if !train || s.checkpointing.is_on() {
                    return None;
                }
                t.checkpointing = Checkpointing::Full;
            }
            Lever::OneDtype => match s.mode {
                Mode::Train if s.precision == Precision::Fp32 => t.precision = Precision::Mixed,
                Mode::Train if s.method != Method::Full && s.quant == StorageFormat::Fp32 => {
                    t.quant = StorageFormat::Bf16
                }
                Mode::Infer if s.quant == StorageFormat::Fp32 => t.quant = StorageFormat::Bf16,
                _ => return None,
            },
            Lever::ShorterSequence => {
                if s.images > 0 && s.vision_tokens() > s.seq {
                    // Half the visual tokens: each side of the image ÷ √2.
                    let side = |px: u64| ((px as f64) / std::f64::consts::SQRT_2).round().max(28.0) as u64;
                    t.image = ImageSize { width: side(s.image.width), height: side(s.image.height) };
                } else if s.seq >= 2 {
                    t.seq = s.seq / 2;
                } else {
                    return None;
                }
            }
            Lever::Expandable => {
                if !train || s.alloc == Allocator::Expandable {
                    return None;
                }
                t.alloc = Allocator::Expandable;
            }
            Lever::Shard => {
                t.gpus = s.gpus.saturating_mul(2).max(2);
                if train {
                    t.zero = 3;
                }
            }
            Lever::Adam8bit => {
                if !train || matches!(s.optimizer, Optimizer::AdamW8bit | Optimizer::Sgd) {
                    return None;
                }
                t.optimizer = Optimizer::AdamW8bit;
            }
            Lever::Qlora => {
                if !train || s.method == Method::Qlora {
                    return None;
                }
                t.method = Method::Qlora;
                t.quant = StorageFormat::Nf4;
            }
            Lever::Offload => {
                // Only full fine-tuning has an optimizer worth moving (adapters' states are small
                // beside ZeRO-2's gradient buckets).
                if !train || s.offload != Offload::None || s.method != Method::Full {
                    return None;
                }
                t.offload = Offload::Optimizer;
                if s.zero == 0 {
                    t.zero = 2;
                }
            }
            Lever::EngineShare => {
                if train {
                    return None;
                }
                // vLLM's default share is below 0.95 in every release (0.90, 0.92 from 0.20), so
                // its lever needs no bill (the page has none for a bill the reader worker makes);
                // SGLang's default comes from the card, so its lever needs its share.
                match s.serving.engine {
                    Engine::Vllm if s.serving.gpu_util.unwrap_or(0.9) < 0.95 => t.serving.gpu_util = Some(0.95),
                    Engine::Sglang => {
                        let share = s.serving.mem_fraction.or_else(|| estimate(s).serving.map(|sv| sv.share))?;
                        if share >= 0.95 {
                            return None;
                        }
                        t.serving.mem_fraction = Some(((share + 0.05).min(0.95) * 1000.0).round() / 1000.0)
                    }
                    _ => return None,
                }
            }
            Lever::KvEightBit => {
                if train || !matches!(s.kv, KvDtype::Bf16 | KvDtype::Fp16) {
                    return None;
                }
                t.kv = if s.serving.engine == Engine::Llamacpp { KvDtype::Int8 } else { KvDtype::Fp8 };
            }
            Lever::QuantizedWeights => {
                if train || !matches!(s.quant, StorageFormat::Bf16 | StorageFormat::Fp16 | StorageFormat::Fp32) {
                    return None;
                }
                t.quant =
                    if s.serving.engine == Engine::Llamacpp { StorageFormat::Q4KM } else { StorageFormat::Fp8Block };
                t.quant_layers = None;
            }
            Lever::FewerGenerations
            | Lever::LogprobBatch
            | Lever::RolloutShare
            | Lever::RolloutSleep
            | Lever::RefPrecomputed
            | Lever::NoKl
            | Lever::RolloutServer => return rl_lever(self, s),
        }
        (t != *s).then_some(t)
    }
}

/// The preference / RL levers: `None` when the step is not one they act on.
fn rl_lever(lever: Lever, s: &Scenario) -> Option<Scenario> {
    let rl = &s.rl;
    let generates = s.generates();
    let engine_on_card = generates && matches!(rl.rollout, Rollout::Colocate | Rollout::Shared);
    let mut t = s.clone();
    match lever {
        Lever::FewerGenerations => {
            if !generates || rl.generations < 2 {
                return None;
            }
            t.rl.generations = rl.generations / 2;
            if s.batch >= 2 {
                t.batch = s.batch / 2;
            } else if s.accum >= 2 {
                t.accum = s.accum / 2;
            } else {
                return None;
            }
        }
        Lever::LogprobBatch => {
            let has_pass = generates || s.reference().is_some_and(|r| r != Reference::Precomputed);
            let now = rl.logprob_batch.unwrap_or(if rl.objective == Objective::Dpo { 2 * s.batch } else { s.batch });
            if !s.is_rl() || !has_pass || now < 2 {
                return None;
            }
            t.rl.logprob_batch = Some(now / 2);
        }
        Lever::RolloutShare => {
            if !engine_on_card || rl.sleep > 0 {
                return None;
            }
            // Half, to a 0.05 step; the engine must still start.
            t.rl.rollout_util = ((rl.rollout_util / 2.0 * 20.0).round() / 20.0).max(0.05);
            if estimate(&t).rl.is_none_or(|r| r.engine_fails) {
                return None;
            }
        }
        Lever::RolloutSleep => {
            if !engine_on_card || rl.sleep > 0 {
                return None;
            }
            t.rl.sleep = if rl.rollout == Rollout::Shared { 1 } else { 2 };
        }
        Lever::RefPrecomputed => {
            if !s.is_rl() || rl.objective != Objective::Dpo || s.reference() == Some(Reference::Precomputed) {
                return None;
            }
            t.rl.reference = Some(Reference::Precomputed);
        }
        Lever::NoKl => {
            if !generates || rl.beta <= 0.0 {
                return None;
            }
            t.rl.beta = 0.0;
        }
        Lever::RolloutServer => {
            if !generates || rl.rollout == Rollout::Server {
                return None;
            }
            t.rl.rollout = Rollout::Server;
        }
        _ => return None,
    }
    (t != *s).then_some(t)
}

/// The levers a node offers.
pub fn levers(id: NodeId) -> &'static [Lever] {
    match id {
        NodeId::Batch => &[
            Lever::HalveBatch,
            Lever::FewerGenerations,
            Lever::LogprobBatch,
            Lever::RolloutShare,
            Lever::RolloutSleep,
            Lever::EngineShare,
            Lever::KvEightBit,
        ],
        NodeId::Checkpointing => &[Lever::Checkpointing],
        NodeId::DtypeNoGrad => &[Lever::OneDtype, Lever::QuantizedWeights],
        NodeId::SeqLen => &[Lever::ShorterSequence],
        NodeId::Fragmentation => &[Lever::Expandable],
        NodeId::Sharding => &[
            Lever::Shard,
            Lever::Adam8bit,
            Lever::Qlora,
            Lever::Offload,
            Lever::RefPrecomputed,
            Lever::NoKl,
            Lever::RolloutServer,
        ],
        _ => &[],
    }
}

/// For a served model: the engine's figures before and after a lever (an engine fills its budget
/// whatever it serves, so what a lever changes is how many requests of what length fit).
pub fn serving_gain(
    s: &Scenario,
    lever: Lever,
) -> Option<(crate::ledger::bill::Serving, crate::ledger::bill::Serving)> {
    let after = lever.apply(s)?;
    Some((estimate(s).serving?, estimate(&after).serving?))
}

/// The serving planner's levers that apply to `s`, with the engine's figures after each.
pub fn planner_levers(s: &Scenario) -> Vec<(Lever, crate::ledger::bill::Serving)> {
    [Lever::EngineShare, Lever::KvEightBit, Lever::QuantizedWeights, Lever::Shard, Lever::ShorterSequence]
        .into_iter()
        .filter_map(|l| serving_gain(s, l).map(|(_, after)| (l, after)))
        .collect()
}

/// Bytes saved on the device total by a lever (negative if it costs memory); `None` where either
/// bill is a grid's the page has not computed (the grid's own levers are the grid view's).
pub fn saving(s: &Scenario, lever: Lever) -> Option<i64> {
    let after = lever.apply(s)?;
    let (before, after) = (estimate(s), estimate(&after));
    if before.is_pending() || after.is_pending() {
        return None;
    }
    Some(crate::ledger::bill::signed_difference(before.device_bytes(), after.device_bytes()))
}

// ---------------------------------------------------------------------------------------------
// Diagnosis from measurements

/// What the user measured, in GiB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// `torch.cuda.max_memory_allocated()`.
    pub allocated: f64,
    /// `torch.cuda.max_memory_reserved()`.
    pub reserved: f64,
    /// nvidia-smi's "used" for the card.
    pub device_used: f64,
    /// The card's total.
    pub total: f64,
}

/// Problems with the measured numbers themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureError {
    /// A field is empty, negative or not a number.
    NotNumbers,
    /// The GPU total is 0.
    NoTotal,
    /// Reserved below allocated: PyTorch reserves everything it allocates.
    ReservedBelowAllocated,
}

pub fn check_measured(m: &Measured) -> Result<(), MeasureError> {
    let all = [m.allocated, m.reserved, m.device_used, m.total];
    if all.iter().any(|v| !v.is_finite() || *v < 0.0) {
        return Err(MeasureError::NotNumbers);
    }
    if m.total <= 0.0 {
        return Err(MeasureError::NoTotal);
    }
    if m.reserved + 1e-9 < m.allocated {
        return Err(MeasureError::ReservedBelowAllocated);
    }
    Ok(())
}

/// Walks the tree with the measured numbers, as a paste's: they are read as a PyTorch message's
/// (free = total − nvidia-smi's used; this process = reserved + `s`'s CUDA context, so what is
/// used beyond it is other processes'; no request), and the levers are ranked for `s`.
pub fn diagnose(m: &Measured, s: &Scenario) -> Result<paste::Pasted, MeasureError> {
    Ok(paste::diagnose_reading(measured_reading(m, s)?, Some(s)))
}

/// The typed numbers as a reading (see [`diagnose`]).
pub fn measured_reading(m: &Measured, s: &Scenario) -> Result<reader::Reading, MeasureError> {
    check_measured(m)?;
    let gib = |x: f64| x * GIB;
    let mut r = reader::Reading { formats: vec![reader::Format::Typed], ..reader::Reading::default() };
    let n = &mut r.numbers;
    n.total = Some(gib(m.total));
    n.free = Some(gib((m.total - m.device_used).max(0.0)));
    n.allocated = Some(gib(m.allocated));
    n.reserved = Some(gib(m.reserved));
    n.reserved_unallocated = Some(gib(m.reserved - m.allocated));
    n.process = Some(gib(m.reserved) + s.overhead_mib.max(0.0) * 1024.0 * 1024.0);
    Ok(r)
}

/// The largest tensor component of a bill.
pub fn dominant(bill: &Bill) -> ComponentId {
    bill.components
        .iter()
        .filter(|c| !matches!(c.id, ComponentId::AllocatorSlack | ComponentId::CudaContext))
        .max_by_key(|c| c.bytes)
        .map_or(ComponentId::Weights, |c| c.id)
}

/// The lever with the largest saving on `s` (ties: the one earlier in the tree).
pub fn best_lever(s: &Scenario) -> Option<(Lever, i64)> {
    let mut best: Option<(Lever, i64)> = None;
    for l in Lever::ALL {
        if let Some(saved) = saving(s, l) {
            if saved > 0 && best.is_none_or(|(_, b)| saved > b) {
                best = Some((l, saved));
            }
        }
    }
    best
}

/// GiB of a byte count, for messages.
pub fn gib(bytes: i64) -> f64 {
    bytes as f64 / GIB
}
