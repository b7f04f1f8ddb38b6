//! Serving engines: how vLLM, SGLang and llama.cpp size GPU memory at start-up, and what that
//! leaves for requests. Each engine takes a budget from the card (vLLM: a share of the total
//! PyTorch sees; SGLang: a share of the memory free before loading; llama.cpp: what it is asked
//! for), subtracts the weights as it loads them and what its profiling or reservation holds, and
//! gives the rest to a KV pool; the pool decides how many requests of what length run at once.
//!
//! The rules were read from the engines' source (releases named in `docs/serving.md`); the few
//! figures no source states (the sampler's warm-up bytes, non-torch memory, CUDA-graph memory)
//! are fitted to published start-up logs, which the measured set checks.

mod encoder;
mod engine;
pub mod grid;
mod llamacpp;
mod lora;
mod sglang;
mod speculative;
mod vllm;

pub use encoder::max_pixels_of;
pub use engine::EngineBill;
pub use lora::DEFAULT_RANK as DEFAULT_LORA_RANK;
pub use speculative::default_tokens as default_spec_tokens;

use super::bill::{Note, Serving, ServingStatus};
use super::plan::{Inference, Plan};
use super::scenario::{Engine, Release};

/// The bill of `p` served by its engine; `None` for Hugging Face `generate()`.
pub fn engine_bill(p: &Plan, i: &Inference) -> Option<EngineBill> {
    match i.engine.engine {
        Engine::Hf => None,
        Engine::Vllm => Some(vllm::bill(p, i)),
        // The page's build never bills a served model (the reader worker does:
        // `Scenario::billed_on_demand`) but vLLM's rollout inside an RL step (`super::rl`).
        Engine::Sglang | Engine::Llamacpp if cfg!(feature = "page") => None,
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
pub fn default_version(engine: Engine) -> Release {
    match engine {
        Engine::Vllm => vllm::CURRENT,
        Engine::Sglang => sglang::CURRENT,
        Engine::Hf | Engine::Llamacpp => Release(0, 0, 0),
    }
}
