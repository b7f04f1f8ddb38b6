//! The chapter's self-test (§5): seven questions, each answered by a demonstration the ledger
//! computes on the reader's own scenario — two bills that differ in one key, and a finding whose
//! every number is read from the bills (or from the fit solvers and the tree). Pure: the web view
//! (`view=selftest`) draws it, `vram-ledger --selftest` prints it, and `tests/selftest.rs` checks
//! that each finding says what its answer does.

use crate::ledger::bill::{Bill, ComponentId};
use crate::ledger::msg::{Arg, Msg, MsgId};
use crate::ledger::scenario::{Mode, GIB};
use crate::ledger::{estimate, fit, Scenario};
use crate::msg;
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
    /// What the two bills show, with their numbers (the question's `Q<n>Finding`).
    pub finding: Msg,
    /// Question 5: what the OOM tree reads in the finding's message, and the node it goes to.
    pub diagnosis: Option<(Cause, NodeId)>,
}

/// The question, its hint and its answer (templates in `crate::i18n::templates`).
pub fn texts(n: u8) -> Option<(MsgId, MsgId, MsgId)> {
    use MsgId::*;
    Some(match n {
        1 => (Q1, Q1Hint, Q1Answer),
        2 => (Q2, Q2Hint, Q2Answer),
        3 => (Q3, Q3Hint, Q3Answer),
        4 => (Q4, Q4Hint, Q4Answer),
        5 => (Q5, Q5Hint, Q5Answer),
        6 => (Q6, Q6Hint, Q6Answer),
        7 => (Q7, Q7Hint, Q7Answer),
        _ => return None,
    })
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

fn bytes_per_parameter(user: &Scenario) -> (Side, Side, Msg) {
    let full = full_fine_tune(user);
    let (before, after) = pair(&full, Some(set(Key::Mode, "infer")), set(Key::Mode, "train"));
    let b = &after.bill;
    let params = full.architecture.parameters();
    let per = |id| b.tensor_bytes(id) as f64 / params.max(1) as f64;
    let lines = [ComponentId::Weights, ComponentId::Gradients, ComponentId::Optimizer, ComponentId::MasterWeights];
    let total = lines.iter().fold(0u64, |sum, id| sum.saturating_add(b.tensor_bytes(*id)));
    let finding = msg!(
        Q1Finding,
        Arg::Text(full.architecture.name.to_string()),
        Arg::Fixed(per(lines[0]), 1),
        Arg::Fixed(per(lines[1]), 1),
        Arg::Fixed(per(lines[2]), 1),
        Arg::Fixed(per(lines[3]), 1),
        Arg::Fixed(total as f64 / params.max(1) as f64, 1),
        Arg::Count(params),
        bytes(total),
    );
    (before, after, finding)
}

fn lora_share(user: &Scenario) -> (Side, Side, Msg) {
    let full = full_fine_tune(user);
    let (before, after) = pair(&full, Some(set(Key::Method, "full")), set(Key::Method, "lora"));
    let s = &after.scenario;
    let trainable = crate::ledger::plan::lora_parameters(&s.architecture, s.targets, s.rank);
    let params = s.architecture.parameters();
    let (g0, g1) = (before.bill.tensor_bytes(ComponentId::Gradients), after.bill.tensor_bytes(ComponentId::Gradients));
    let (o0, o1) = (before.bill.component(ComponentId::Optimizer), after.bill.component(ComponentId::Optimizer));
    let finding = msg!(
        Q2Finding,
        Arg::Count(s.rank),
        Arg::Count(trainable),
        Arg::Count(params),
        Arg::Fixed(100.0 * trainable as f64 / params.max(1) as f64, 3),
        bytes(g0),
        bytes(g1),
        bytes(o0),
        bytes(o1),
        bytes(before.bill.device_bytes().saturating_sub(after.bill.device_bytes())),
    );
    (before, after, finding)
}

fn activations_grow(user: &Scenario) -> (Side, Side, Msg) {
    let base = with(&training(user), &[(Key::Gc, "0")]);
    let b = base.batch;
    let (before, after) = pair(&base, Some(set(Key::Batch, b)), set(Key::Batch, b.saturating_mul(2)));
    let acts = |bill: &Bill| bill.component(ComponentId::Activations);
    let a0 = acts(&before.bill);
    let ratio = |a: u64| Arg::Fixed(a as f64 / a0.max(1) as f64, 2);
    let longer = acts(&estimate(&with(&base, &[(Key::Seq, &base.seq.saturating_mul(2).to_string())])));
    let checkpointed = acts(&estimate(&with(&base, &[(Key::Gc, "1")])));
    let finding = msg!(
        Q3Finding,
        Arg::Count(b),
        Arg::Count(b.saturating_mul(2)),
        bytes(a0),
        bytes(acts(&after.bill)),
        ratio(acts(&after.bill)),
        ratio(longer),
        bytes(checkpointed),
        percent(a0.saturating_sub(checkpointed) as f64, a0 as f64),
    );
    (before, after, finding)
}

fn evaluation_graph(user: &Scenario) -> (Side, Side, Msg) {
    let base = with(&training(user), &[(Key::Drill, "")]);
    let (before, after) = pair(&base, None, set(Key::Drill, "no_grad"));
    let (p0, p1) = (before.bill.allocated_bytes(), after.bill.allocated_bytes());
    let finding = msg!(
        Q4Finding,
        bytes(p0),
        bytes(after.bill.component(ComponentId::EvalGraph)),
        bytes(p1),
        percent(p1.saturating_sub(p0) as f64, p0 as f64),
    );
    (before, after, finding)
}

/// The reader's scenario, and beside it a crashed run of it still holding the card; the tree's
/// reading of an OOM message whose reserved memory fills the card while the allocated peak is the
/// ledger's.
fn fragmentation(user: &Scenario) -> (Side, Side, Msg, (Cause, NodeId)) {
    let (before, after) = pair(user, None, set(Key::Drill, "zombie"));
    let b = &before.bill;
    let card = b.gpu_bytes as f64 / GIB;
    let allocated = b.allocated_bytes() as f64 / GIB;
    let context = user.overhead_mib.max(0.0) / 1024.0;
    // Everything the process can hold is reserved: the card less its CUDA context.
    let reserved = (card - context).max(allocated);
    let m = Measured { allocated, reserved, device_used: card, total: card };
    let diagnosis = tree::diagnose(&m, user).map_or((Cause::Unknown, NodeId::Oom), |p| (p.cause, p.node));
    let finding = msg!(
        Q5Finding,
        Arg::Bytes(allocated * GIB),
        Arg::Bytes(card * GIB),
        percent(allocated, card),
        Arg::Bytes(reserved * GIB),
        Arg::Bytes((reserved - allocated) * GIB),
        bytes(after.bill.device_bytes().saturating_sub(b.device_bytes())),
    );
    (before, after, finding, diagnosis)
}

/// One sample four times as long as the reader's sequence (a long tail of the length
/// distribution), and the longest that fits.
fn long_tail(user: &Scenario) -> (Side, Side, Msg) {
    let base = training(user);
    let long = base.seq.saturating_mul(4).min(fit::MAX_SEQ);
    let (before, after) = pair(&base, Some(set(Key::Seq, base.seq)), set(Key::Seq, long));
    let finding = msg!(
        Q6Finding,
        Arg::Count(base.seq),
        bytes(before.bill.device_bytes()),
        Arg::Count(long),
        bytes(after.bill.device_bytes()),
        Arg::Count(fit::max_seq(&base)),
    );
    (before, after, finding)
}

/// Serving with Hugging Face `generate()` (no engine pool): one request, and as many at once as it
/// takes for the KV cache to outweigh the weights.
fn serving_kv(user: &Scenario) -> (Side, Side, Msg) {
    let base = with(user, &[(Key::Mode, "infer"), (Key::Engine, "hf"), (Key::Batch, "1")]);
    let one = estimate(&base);
    let weights = one.component(ComponentId::Weights);
    let kv_one = one.component(ComponentId::KvCache).max(1);
    let crossing = (weights / kv_one).saturating_add(1).min(fit::MAX_BATCH);
    let (before, after) = pair(&base, Some(set(Key::Batch, 1)), set(Key::Batch, crossing));
    let finding = msg!(
        Q7Finding,
        bytes(weights),
        Arg::Count(base.seq.saturating_add(base.generated)),
        bytes(kv_one),
        Arg::Count(fit::max_batch(&base)),
        Arg::Count(crossing),
        bytes(after.bill.component(ComponentId::KvCache)),
    );
    (before, after, finding)
}
