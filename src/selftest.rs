//! The chapter's self-test (§5): seven questions, each answered by a demonstration the ledger
//! computes on the reader's own scenario — two bills that differ in one key, and a finding whose
//! every number is read from the bills (or from the fit solvers and the tree). Pure: the web view
//! (`view=selftest`) draws it, `vram-ledger --selftest` prints it, and `tests/selftest.rs` checks
//! that each finding says what its answer does. The page asks its reader worker for them
//! (`crate::readers::selftest`): this module and its texts are not in the first download.

use crate::i18n::{fill, Lang};
use crate::ledger::bill::{Bill, ComponentId};
use crate::ledger::msg::Arg;
use crate::ledger::scenario::{Mode, GIB};
use crate::ledger::{estimate, fit, Scenario};
use crate::query::{with_key, Key};
use crate::tree::paste::Cause;
use crate::tree::{self, Measured, NodeId};

/// The chapter's seven questions.
pub const QUESTIONS: u8 = 7;

/// One bar of a demonstration: the scenario, its bill, and the one `key=value` that differs from
/// the other bar (its label; `None`: the reader's scenario as it is).
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub label: Option<String>,
    pub scenario: Scenario,
    pub bill: Bill,
}

/// What the ledger shows for one question.
#[derive(Clone, Debug, PartialEq)]
pub struct Demo {
    pub before: Side,
    pub after: Side,
    /// What the two bills show, with their numbers.
    pub finding: Finding,
    /// Question 5: what the OOM tree reads in the finding's message, and the node it goes to.
    pub diagnosis: Option<(Cause, NodeId)>,
}

/// A question's texts, each (English, Chinese): the question in the chapter's words, a hint, the
/// answer, and the finding's template, whose `{n}` places take the demonstration's numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Texts {
    pub question: (&'static str, &'static str),
    pub hint: (&'static str, &'static str),
    pub answer: (&'static str, &'static str),
    pub finding: (&'static str, &'static str),
}

const TEXTS: [Texts; QUESTIONS as usize] = [
    Texts {
        question: ("In full fine-tuning with bf16 mixed precision, what makes up the 16 bytes per parameter?", "全参 bf16 混合精度每参数 16 字节怎么组成?"),
        hint: ("Count the copies of each parameter and their bytes: the one the forward uses, the one backward writes, the optimizer's, the one the update goes to.", "数一数每个参数有几份、每份几字节:前向用的、反向写的、优化器记的、更新落到的。"),
        answer: ("Weights 2 (bf16) + gradients 2 (bf16) + AdamW's two states m and v 8 (fp32) + fp32 master weights 4 = 16 B. Activations, logits and overheads come on top.", "权重 2(bf16)+ 梯度 2(bf16)+ AdamW 的两个状态 m、v 8(fp32)+ fp32 主权重 4 = 16 B。激活、logits 和框架开销另算。"),
        finding: ("{0}, full fine-tuning: weights {1} B + gradients {2} B + AdamW {3} B + master weights {4} B = {5} B per parameter; × {6} parameters = {7} before any activation.", "{0} 全参微调:权重 {1} B + 梯度 {2} B + AdamW {3} B + 主权重 {4} B = 每参数 {5} B;× {6} 个参数 = {7},还没算激活。"),
    },
    Texts {
        question: ("Why do LoRA's gradients and optimizer states cover only the added parameters?", "为什么 LoRA 的梯度/优化器状态只占增量参数?"),
        hint: ("Backward computes gradients only for parameters with `requires_grad=True`, and the optimizer keeps state only for those.", "反向只给 `requires_grad=True` 的参数算梯度,优化器也只为它们记状态。"),
        answer: ("The base is frozen (`requires_grad=False`): no gradient, so no moments. Only the low-rank matrices A and B train, usually under 1 % of the model; the base weights still sit in memory.", "底座被冻结(`requires_grad=False`):没有梯度,也就没有动量。只有低秩矩阵 A、B 在训练,通常不到模型的 1 %;底座权重照样占着显存。"),
        finding: ("LoRA r = {0}: {1} of {2} parameters train ({3} %). Gradients {4} → {5}, optimizer states {6} → {7}: {8} less.", "LoRA r = {0}:{2} 个参数里只有 {1} 个参与训练({3} %)。梯度 {4} → {5},优化器状态 {6} → {7}:省下 {8}。"),
    },
    Texts {
        question: ("What do activations grow linearly with? Name two ways to cut them.", "激活显存随什么线性增长?两个降它的手段?"),
        hint: ("Think of what each layer saves for backward: a copy for every token of every sample.", "想想每层为反向存了什么:每个样本的每个 token 各一份。"),
        answer: ("With seq × batch × hidden × layers (eager attention adds an s² term). To cut them: a smaller batch or sequence (gradient accumulation keeps the effective batch), or gradient checkpointing, which keeps each layer's input and recomputes the rest in backward.", "随 `seq × batch × hidden × layers` 线性增长(eager 注意力另有 s² 项)。降法:减小 batch 或序列长度(用梯度累积保持有效 batch),或开 `gradient checkpointing`,只存每层输入,反向时重算。"),
        finding: ("Without checkpointing, batch {0} → {1}: activations {2} → {3} (× {4}); twice the sequence: × {5}. Checkpointing on: {2} → {6} (−{7} %).", "不开梯度检查点,batch {0} → {1}:激活 {2} → {3}(× {4});序列翻倍:× {5}。开梯度检查点:{2} → {6}(−{7} %)。"),
    },
    Texts {
        question: ("Why does validating in the middle of training run out of memory?", "“训练中途验证就 OOM”的机理?"),
        hint: ("While it validates, is the model still recording for gradients?", "验证的时候,模型还在为求梯度做记录吗?"),
        answer: ("The validation loop is not wrapped in `torch.no_grad()` / `torch.inference_mode()`: its forward still builds the graph and keeps every activation (no checkpointing in eval mode), on top of the gradients and optimizer states training left in memory.", "验证循环没包 `torch.no_grad()` / `torch.inference_mode()`:前向照样建计算图、存下全部激活(eval 模式不做梯度检查点),叠在训练留在显存里的梯度和优化器状态之上。"),
        finding: ("The training step peaks at {0} allocated; an evaluation batch without `no_grad` keeps {1} of graph beside it: {2} (+{3} %).", "训练一步的分配峰值 {0};不包 `no_grad` 的验证 batch 在旁边再留 {1} 的计算图:{2}(+{3} %)。"),
    },
    Texts {
        question: ("The peak is far below the card's memory, yet it runs out: what is most likely?", "峰值远小于显存总量却 OOM,最可能是什么?"),
        hint: ("Compare `max_memory_allocated`, `max_memory_reserved` and nvidia-smi.", "对比 `max_memory_allocated`、`max_memory_reserved` 和 nvidia-smi。"),
        answer: ("Fragmentation: the caching allocator's reserved blocks are cut up and no free piece is large enough (`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`). Or another process holds the card (a zombie, a leftover job), as nvidia-smi shows.", "碎片化:缓存分配器预留的块被切碎,没有一块空闲的够大(`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`)。或者别的进程占着卡(僵尸进程、残留任务),nvidia-smi 里看得到。"),
        finding: ("A leftover process of the same run adds {5} in nvidia-smi (the right bar). The peak allocated is {0} of the {1} card ({2} %); an OOM message reporting {3} reserved, {4} of it not allocated, goes on the tree to:", "同一任务残留的进程在 nvidia-smi 里多占 {5}(右边的柱)。分配峰值是 {1} 卡里的 {0}({2} %);若报错说预留 {3}、其中 {4} 未分配,决策树把它归到:"),
    },
    Texts {
        question: ("How do you prevent out-of-memory errors from long-tail samples?", "长尾样本 OOM 的预防?"),
        hint: ("Memory is set by the longest sample in a batch, not by the average.", "显存由 batch 里最长的样本决定,不是平均长度。"),
        answer: ("Measure the distribution of sequence lengths or resolutions first (max, p99), then cut off or bucket by length so that the longest batch fits too.", "先统计序列长度 / 分辨率的分布(最大值、99 分位),再截断(`cutoff_len`)或按长度分桶,让最长的 batch 也放得下。"),
        finding: ("At {0} tokens the step needs {1}; one sample of {2} tokens needs {3}. The longest sequence that fits this card with the 20 % margin: {4} tokens — cap there (`cutoff_len`, `max_length`) or bucket by length.", "{0} token 时这一步要 {1};一条 {2} token 的样本要 {3}。留 20 % 余量时这张卡放得下的最长序列:{4} token——截断到这里(`cutoff_len`、`max_length`)或按长度分桶。"),
    },
    Texts {
        question: ("In serving, which runs out first: the weights or the KV cache?", "推理服务先爆的是权重还是 KV?"),
        hint: ("The weights are fixed; what does each further concurrent request add?", "权重是固定的;每多一个并发请求,多出来的是什么?"),
        answer: ("Under concurrency the KV cache runs out first: the weights are paid once, the KV grows with `max-model-len` × concurrent requests. Budget it first; vLLM's `gpu-memory-utilization` and `max-model-len` are the first levers.", "并发场景 KV 先爆:权重只占一次,KV 随 `max-model-len` × 并发数增长。先把这份预算算好;vLLM 的 `gpu-memory-utilization` 和 `max-model-len` 是第一组杠杆。"),
        finding: ("Weights {0}, paid once; each request of {1} tokens adds {2} of KV cache. With the 20 % margin this card holds {3} such requests at once; from {4} at once the KV cache ({5}) outweighs the weights.", "权重 {0},只占一次;每个 {1} token 的请求多占 {2} 的 KV cache。留 20 % 余量时这张卡同时放得下 {3} 个这样的请求;并发到 {4} 个时 KV cache({5})就超过了权重。"),
    },
];

/// The texts of question `n` (1–7).
pub fn texts(n: u8) -> Option<&'static Texts> {
    TEXTS.get(usize::from(n).checked_sub(1)?)
}

/// What a demonstration found: question `n`'s finding template and its numbers, in its order.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub n: u8,
    pub args: Vec<Arg>,
}

impl Finding {
    pub fn render(&self, lang: Lang) -> String {
        texts(self.n).map_or_else(String::new, |t| fill(lang, t.finding, &self.args))
    }
}

fn finding<const N: usize>(n: u8, args: [Arg; N]) -> Finding {
    Finding { n, args: Vec::from(args) }
}

/// `s` with each `key=value` set through the scenario vocabulary (as a link or the UI would set
/// it; a value the key refuses leaves the scenario as it was).
fn with(s: &Scenario, pairs: &[(Key, &str)]) -> Scenario {
    pairs.iter().fold(s.clone(), |t, (k, v)| with_key(&t, *k, v).0)
}

fn side(base: &Scenario, change: Option<(Key, String)>) -> Side {
    let (label, scenario) = match change {
        Some((k, v)) => (Some(format!("{}={v}", k.name())), with(base, &[(k, &v)])),
        None => (None, base.clone()),
    };
    let bill = estimate(&scenario);
    Side { label, scenario, bill }
}

fn pair(base: &Scenario, before: Option<(Key, String)>, after: (Key, String)) -> (Side, Side) {
    (side(base, before), side(base, Some(after)))
}

fn set(k: Key, v: impl ToString) -> (Key, String) {
    (k, v.to_string())
}

/// The reader's scenario as a training step (the questions 1–4 and 6 are about training).
fn training(user: &Scenario) -> Scenario {
    if user.mode == Mode::Train {
        user.clone()
    } else {
        with(user, &[(Key::Mode, "train")])
    }
}

fn percent(part: f64, whole: f64) -> Arg {
    Arg::Fixed(if whole > 0.0 { 100.0 * part / whole } else { 0.0 }, 1)
}

fn bytes(b: u64) -> Arg {
    Arg::Bytes(b as f64)
}

/// The demonstration of question `n` (1–7) on the reader's scenario.
pub fn demo(n: u8, user: &Scenario) -> Option<Demo> {
    let mut diagnosis = None;
    let (before, after, finding) = match n {
        1 => bytes_per_parameter(user),
        2 => lora_share(user),
        3 => activations_grow(user),
        4 => evaluation_graph(user),
        5 => {
            let (b, a, f, at) = fragmentation(user);
            diagnosis = Some(at);
            (b, a, f)
        }
        6 => long_tail(user),
        7 => serving_kv(user),
        _ => return None,
    };
    Some(Demo { before, after, finding, diagnosis })
}

/// A full mixed-precision AdamW fine-tune on one GPU, beside the same model's inference.
fn full_fine_tune(user: &Scenario) -> Scenario {
    with(
        &training(user),
        &[(Key::Method, "full"), (Key::Precision, "mixed"), (Key::Optim, "adamw"), (Key::Gpus, "1"), (Key::Zero, "0")],
    )
}

fn bytes_per_parameter(user: &Scenario) -> (Side, Side, Finding) {
    let full = full_fine_tune(user);
    let (before, after) = pair(&full, Some(set(Key::Mode, "infer")), set(Key::Mode, "train"));
    let b = &after.bill;
    let params = full.architecture.parameters();
    let per = |id| b.tensor_bytes(id) as f64 / params.max(1) as f64;
    let lines = [ComponentId::Weights, ComponentId::Gradients, ComponentId::Optimizer, ComponentId::MasterWeights];
    let total = lines.iter().fold(0u64, |sum, id| sum.saturating_add(b.tensor_bytes(*id)));
    let finding = finding(
        1,
        [
            Arg::Text(full.architecture.name.to_string()),
            Arg::Fixed(per(lines[0]), 1),
            Arg::Fixed(per(lines[1]), 1),
            Arg::Fixed(per(lines[2]), 1),
            Arg::Fixed(per(lines[3]), 1),
            Arg::Fixed(total as f64 / params.max(1) as f64, 1),
            Arg::Count(params),
            bytes(total),
        ],
    );
    (before, after, finding)
}

fn lora_share(user: &Scenario) -> (Side, Side, Finding) {
    let full = full_fine_tune(user);
    let (before, after) = pair(&full, Some(set(Key::Method, "full")), set(Key::Method, "lora"));
    let s = &after.scenario;
    let trainable = crate::ledger::plan::lora_parameters(&s.architecture, s.targets, s.rank);
    let params = s.architecture.parameters();
    let (g0, g1) = (before.bill.tensor_bytes(ComponentId::Gradients), after.bill.tensor_bytes(ComponentId::Gradients));
    let (o0, o1) = (before.bill.component(ComponentId::Optimizer), after.bill.component(ComponentId::Optimizer));
    let finding = finding(
        2,
        [
            Arg::Count(s.rank),
            Arg::Count(trainable),
            Arg::Count(params),
            Arg::Fixed(100.0 * trainable as f64 / params.max(1) as f64, 3),
            bytes(g0),
            bytes(g1),
            bytes(o0),
            bytes(o1),
            bytes(before.bill.device_bytes().saturating_sub(after.bill.device_bytes())),
        ],
    );
    (before, after, finding)
}

fn activations_grow(user: &Scenario) -> (Side, Side, Finding) {
    let base = with(&training(user), &[(Key::Gc, "0")]);
    let b = base.batch;
    let (before, after) = pair(&base, Some(set(Key::Batch, b)), set(Key::Batch, b.saturating_mul(2)));
    let acts = |bill: &Bill| bill.component(ComponentId::Activations);
    let a0 = acts(&before.bill);
    let ratio = |a: u64| Arg::Fixed(a as f64 / a0.max(1) as f64, 2);
    let longer = acts(&estimate(&with(&base, &[(Key::Seq, &base.seq.saturating_mul(2).to_string())])));
    let checkpointed = acts(&estimate(&with(&base, &[(Key::Gc, "1")])));
    let finding = finding(
        3,
        [
            Arg::Count(b),
            Arg::Count(b.saturating_mul(2)),
            bytes(a0),
            bytes(acts(&after.bill)),
            ratio(acts(&after.bill)),
            ratio(longer),
            bytes(checkpointed),
            percent(a0.saturating_sub(checkpointed) as f64, a0 as f64),
        ],
    );
    (before, after, finding)
}

fn evaluation_graph(user: &Scenario) -> (Side, Side, Finding) {
    let base = with(&training(user), &[(Key::Drill, "")]);
    let (before, after) = pair(&base, None, set(Key::Drill, "no_grad"));
    let (p0, p1) = (before.bill.allocated_bytes(), after.bill.allocated_bytes());
    let finding = finding(
        4,
        [
            bytes(p0),
            bytes(after.bill.component(ComponentId::EvalGraph)),
            bytes(p1),
            percent(p1.saturating_sub(p0) as f64, p0 as f64),
        ],
    );
    (before, after, finding)
}

/// The reader's scenario, and beside it a crashed run of it still holding the card; the tree's
/// reading of an OOM message whose reserved memory fills the card while the allocated peak is the
/// ledger's.
fn fragmentation(user: &Scenario) -> (Side, Side, Finding, (Cause, NodeId)) {
    let (before, after) = pair(user, None, set(Key::Drill, "zombie"));
    let b = &before.bill;
    let card = b.gpu_bytes as f64 / GIB;
    let allocated = b.allocated_bytes() as f64 / GIB;
    let context = user.overhead_mib.max(0.0) / 1024.0;
    // Everything the process can hold is reserved: the card less its CUDA context.
    let reserved = (card - context).max(allocated);
    let m = Measured { allocated, reserved, device_used: card, total: card };
    let diagnosis = tree::diagnose(&m, user).map_or((Cause::Unknown, NodeId::Oom), |p| (p.cause, p.node));
    let finding = finding(
        5,
        [
            Arg::Bytes(allocated * GIB),
            Arg::Bytes(card * GIB),
            percent(allocated, card),
            Arg::Bytes(reserved * GIB),
            Arg::Bytes((reserved - allocated) * GIB),
            bytes(after.bill.device_bytes().saturating_sub(b.device_bytes())),
        ],
    );
    (before, after, finding, diagnosis)
}

/// One sample four times as long as the reader's sequence (a long tail of the length
/// distribution), and the longest that fits.
fn long_tail(user: &Scenario) -> (Side, Side, Finding) {
    let base = training(user);
    let long = base.seq.saturating_mul(4).min(fit::MAX_SEQ);
    let (before, after) = pair(&base, Some(set(Key::Seq, base.seq)), set(Key::Seq, long));
    let finding = finding(
        6,
        [
            Arg::Count(base.seq),
            bytes(before.bill.device_bytes()),
            Arg::Count(long),
            bytes(after.bill.device_bytes()),
            Arg::Count(fit::max_seq(&base)),
        ],
    );
    (before, after, finding)
}

/// Serving with Hugging Face `generate()` (no engine pool): one request, and as many at once as it
/// takes for the KV cache to outweigh the weights.
fn serving_kv(user: &Scenario) -> (Side, Side, Finding) {
    let base = with(user, &[(Key::Mode, "infer"), (Key::Engine, "hf"), (Key::Batch, "1")]);
    let one = estimate(&base);
    let weights = one.component(ComponentId::Weights);
    let kv_one = one.component(ComponentId::KvCache).max(1);
    let crossing = (weights / kv_one).saturating_add(1).min(fit::MAX_BATCH);
    let (before, after) = pair(&base, Some(set(Key::Batch, 1)), set(Key::Batch, crossing));
    let finding = finding(
        7,
        [
            bytes(weights),
            Arg::Count(base.seq.saturating_add(base.generated)),
            bytes(kv_one),
            Arg::Count(fit::max_batch(&base)),
            Arg::Count(crossing),
            bytes(after.bill.component(ComponentId::KvCache)),
        ],
    );
    (before, after, finding)
}
