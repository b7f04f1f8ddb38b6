//! Serving engines: how vLLM, SGLang and llama.cpp size GPU memory at start-up, and what that
//! leaves for requests. Each engine takes a budget from the card (vLLM: a share of the total
//! PyTorch sees; SGLang: a share of the memory free before loading; llama.cpp: what it is asked
//! for), subtracts the weights as it loads them and what its profiling or reservation holds, and
//! gives the rest to a KV pool; the pool decides how many requests of what length run at once.
//!
//! The rules were read from the engines' source (releases named in `docs/serving.md`); the few
//! figures no source states (the sampler's warm-up bytes, non-torch memory, CUDA-graph memory)
//! are fitted to published start-up logs, which the measured set checks.

mod llamacpp;
mod sglang;
mod vllm;

use super::bill::{Component, Note, Serving, ServingStatus};
use super::plan::{Inference, Plan};
use super::scenario::{Engine, EngineVersion};
use super::storage::KvDtype;

/// An engine's bill: the lines (summing to what the process holds on the GPU), the figures, notes.
pub struct EngineBill {
    pub lines: Vec<Component>,
    pub serving: Serving,
    pub notes: Vec<Note>,
}

/// The bill of `p` served by its engine; `None` for Hugging Face `generate()`.
pub fn engine_bill(p: &Plan, i: &Inference) -> Option<EngineBill> {
    match i.engine.engine {
        Engine::Hf => None,
        Engine::Vllm => Some(vllm::bill(p, i)),
        Engine::Sglang => Some(sglang::bill(p, i)),
        Engine::Llamacpp => Some(llamacpp::bill(p, i)),
    }
}

/// The engine's own words when it does not serve the requests at once.
pub fn status_note(s: &Serving) -> Option<Note> {
    use super::msg::Arg;
    use crate::msg;
    let text = match (s.status, s.engine) {
        (ServingStatus::Serves, _) => return None,
        (ServingStatus::Queues { concurrent }, _) => {
            msg!(StatusQueues, Arg::Int(concurrent), Arg::Int(s.requests), Arg::Count(s.context_tokens))
        }
        (ServingStatus::NotEnoughFree { free_bytes, requested_bytes }, _) => msg!(
            StatusNotEnoughFree,
            Arg::Bytes(free_bytes as f64),
            Arg::Bytes(requested_bytes as f64),
            Arg::Fixed(s.budget_bytes as f64 / requested_bytes.max(1) as f64, 2)
        ),
        (ServingStatus::NoKvMemory { available }, Engine::Sglang) => msg!(StatusNoKvSglang, signed_bytes(available)),
        (ServingStatus::NoKvMemory { available }, _) => msg!(StatusNoKvVllm, signed_bytes(available)),
        (ServingStatus::ContextTooLong { longest, .. }, Engine::Sglang) => {
            msg!(StatusContextTooLongSglang, Arg::Count(s.context_tokens), Arg::Count(longest))
        }
        (ServingStatus::ContextTooLong { needed_bytes, available_bytes, longest }, _) => msg!(
            StatusContextTooLongVllm,
            Arg::Count(s.context_tokens),
            Arg::Bytes(needed_bytes as f64),
            Arg::Bytes(available_bytes as f64),
            Arg::Count(longest)
        ),
        (ServingStatus::GpuTooSmall { needed_bytes }, _) => {
            msg!(StatusGpuTooSmall, Arg::Bytes(needed_bytes as f64), Arg::Bytes(s.budget_bytes as f64))
        }
    };
    Some(Note { key: "engine_status", text })
}

/// A byte count that may be negative ("−2.14 GiB"), as text.
fn signed_bytes(b: i64) -> super::msg::Arg {
    let magnitude = super::units::human_bytes(b.unsigned_abs() as f64);
    super::msg::Arg::Text(if b < 0 { format!("−{magnitude}") } else { magnitude })
}

/// The release applied when none is given: the newest whose source the rules were read from.
pub fn default_version(engine: Engine) -> EngineVersion {
    match engine {
        Engine::Vllm => vllm::CURRENT,
        Engine::Sglang => sglang::CURRENT,
        Engine::Hf | Engine::Llamacpp => EngineVersion(0, 0, 0),
    }
}

/// KV bytes per element in vLLM and SGLang (an fp8 cache is one byte; int8 is taken as fp8; there
/// is no 4-bit cache, so int4 stays 16-bit).
fn kv_bytes(kv: KvDtype) -> f64 {
    match kv {
        KvDtype::Fp8 | KvDtype::Int8 => 1.0,
        KvDtype::Bf16 | KvDtype::Fp16 | KvDtype::Int4 => 2.0,
    }
}

/// Prompt + generated tokens per request.
fn context_tokens(p: &Plan, i: &Inference) -> u64 {
    p.tokens.saturating_add(i.generated).max(1)
}

/// The largest `x` in `1..=hi` for which `fits(x)` holds (`fits` false from some point on), or 0.
fn largest(hi: u64, fits: &dyn Fn(u64) -> bool) -> u64 {
    if hi == 0 || !fits(1) {
        return 0;
    }
    let (mut lo, mut hi) = (1u64, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Context lengths the concurrency chart samples: powers of two and their halves from 512 up.
pub fn chart_contexts(max: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut x = 512u64;
    while x <= max.max(512) && out.len() < 64 {
        out.push(x);
        let half = x + x / 2;
        if half <= max {
            out.push(half);
        }
        x *= 2;
    }
    out
}

/// The planner's curve for `s` served by its engine: (context per request, requests of it that
/// fit at once) from 512 tokens to four times `s`'s context (at least 32k, at most 1M); empty for
/// training or `generate()`.
pub fn concurrency_curve(s: &super::Scenario) -> Vec<(u64, f64)> {
    if s.mode != super::scenario::Mode::Infer || s.serving.engine == Engine::Hf {
        return Vec::new();
    }
    let context = s.sequence_tokens().saturating_add(s.generated);
    let max = context.saturating_mul(4).clamp(32_768, 1 << 20);
    chart_contexts(max)
        .into_iter()
        .map(|c| {
            let mut t = s.clone();
            (t.seq, t.generated, t.images) = (c, 0, 0);
            let n =
                super::estimate(&t).serving.map_or(0.0, |sv| if sv.status.starts() { sv.max_concurrency } else { 0.0 });
            (c, n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::largest;

    #[test]
    fn largest_finds_the_boundary() {
        assert_eq!(largest(1000, &|x| x <= 137), 137);
        assert_eq!(largest(1000, &|x| x <= 5000), 1000);
        assert_eq!(largest(1000, &|_| false), 0);
        assert_eq!(largest(u64::MAX, &|x| x <= 1 << 40), 1 << 40);
    }
}
