//! The serving planner's curve: for a scenario served by an engine, how many requests of each
//! context length fit at once — an estimate per context (so this sits above `estimate`).

use super::scenario::{Engine, Mode, Scenario};

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
/// fit at once — the effective concurrency: a shared prefix (`prefix_share`) held once, SGLang's
/// cap of a third of the Mamba states) from 512 tokens to four times `s`'s context (at least 32k, at most 1M); empty for
/// training or `generate()`.
pub fn concurrency_curve(s: &Scenario) -> Vec<(u64, f64)> {
    if s.mode != Mode::Infer || s.serving.engine == Engine::Hf {
        return Vec::new();
    }
    let context = s.sequence_tokens().saturating_add(s.generated);
    let max = context.saturating_mul(4).clamp(32_768, 1 << 20);
    chart_contexts(max)
        .into_iter()
        .map(|c| {
            let mut t = s.clone();
            (t.seq, t.generated, t.images) = (c, 0, 0);
            let n = super::estimate(&t).serving.map_or(0.0, |sv| {
                if sv.status.starts() {
                    sv.effective_concurrency
                } else {
                    0.0
                }
            });
            (c, n)
        })
        .collect()
}
