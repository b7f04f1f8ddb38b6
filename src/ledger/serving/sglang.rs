//! SGLang's start-up: `mem_fraction_static` of the memory free before loading is for the weights
//! and the KV pool; the rest is left for activations and CUDA graphs. The pool is whatever that
//! fraction leaves after the weights, in tokens of one cell (every layer's K and V, or the latent).
//! Read from SGLang 0.3.6, 0.4.3.post4, 0.4.6.post5, 0.4.10.post2, 0.5.3, 0.5.6 and 0.5.23
//! (`server_args.py` / `arg_groups/memory_hook.py`, `model_executor/model_runner.py`).

use super::{context_tokens, kv_bytes, EngineBill, Serving, ServingStatus};
use crate::ledger::architecture::{Architecture, LayerKind};
use crate::ledger::bill::{line, Component, ComponentId, Note};
use crate::ledger::msg::{when, Arg, Msg};
use crate::ledger::plan::{Inference, Plan};
use crate::ledger::scenario::{Engine, EngineVersion, MIB};
use crate::ledger::weights::stored_weights;
use crate::msg;

/// The newest release read.
pub const CURRENT: EngineVersion = EngineVersion(0, 5, 23);

/// Share of a sliding-window layer's tokens kept beside the full layers' (`swa_full_tokens_ratio`).
const SWA_RATIO: f64 = 0.8;

/// `chunked_prefill_size` and `cuda_graph_max_bs` by card (MiB as nvidia-smi reports it).
fn defaults(version: EngineVersion, gpu_mib: f64, tp: u64) -> (u64, u64) {
    let gib = gpu_mib / 1024.0;
    let small_tp = tp < 4;
    if version >= EngineVersion(0, 5, 0) {
        let newer = version >= EngineVersion(0, 5, 23);
        match gib {
            g if g < 20.0 => (2048, 8),
            g if g < 35.0 && newer => (4096, if small_tp { 48 } else { 160 }),
            g if g < 35.0 => (2048, if small_tp { 16 } else { 80 }),
            g if g < 60.0 => (4096, if small_tp { 32 } else { 160 }),
            g if g < 160.0 => (8192, if small_tp { 256 } else { 512 }),
            _ => (16_384, 512),
        }
    } else if version >= EngineVersion(0, 4, 10) {
        match gib {
            g if g < 35.0 => (2048, if small_tp { 8 } else { 80 }),
            g if g < 90.0 => (8192, 160),
            g if g < 160.0 => (8192, 256),
            _ => (16_384, 512),
        }
    } else if gpu_mib < 25.0 * 1000.0 {
        (2048, if small_tp { 8 } else { 80 })
    } else {
        (8192, 160)
    }
}

/// Prefill CUDA-graph sizes up to `max` tokens (0.5.23's breakable prefill graphs).
fn prefill_graphs(max: u64) -> u64 {
    let runs: [(u64, u64, u64); 6] =
        [(4, 32, 4), (48, 256, 16), (288, 512, 32), (576, 1024, 64), (1280, 4096, 256), (4608, u64::MAX, 512)];
    runs.iter().map(|&(from, to, step)| if max < from { 0 } else { (to.min(max) - from) / step + 1 }).sum()
}

/// SGLang's default `mem_fraction_static`.
fn default_fraction(version: EngineVersion, gpu_mib: f64, tp: u64, chunked: u64, graph_bs: u64, latent: bool) -> f64 {
    let tp_f = tp.max(1) as f64;
    if version >= EngineVersion(0, 5, 0) {
        let mut reserved = 512.0 + chunked.max(2048) as f64 * 1.5 + graph_bs as f64 * 2.0 + tp_f / 8.0 * 1024.0;
        if version >= EngineVersion(0, 5, 23) {
            reserved += if latent { 1536.0 } else { prefill_graphs(chunked) as f64 * 8.0 };
        }
        if gpu_mib > 60.0 * 1024.0 {
            reserved = reserved.max(10_240.0);
        }
        return ((gpu_mib - reserved) / gpu_mib * 1000.0).round() / 1000.0;
    }
    if version >= EngineVersion(0, 4, 10) {
        let gib = gpu_mib / 1024.0;
        let reserved = match gib {
            g if g < 35.0 => 2.8 + tp_f / 10.0,
            g if g < 90.0 => 9.5 + tp_f / 2.0,
            g if g < 160.0 => 12.0 + tp_f / 2.0,
            _ => 32.0,
        };
        return (gib - reserved) / gib;
    }
    let by_tp = match tp {
        16.. => 0.79,
        8.. if version >= EngineVersion(0, 4, 0) => 0.81,
        8.. => 0.82,
        4.. => 0.85,
        2.. => 0.87,
        _ => 0.88,
    };
    if version >= EngineVersion(0, 4, 4) && gpu_mib > 81_920.0 {
        let gpu = gpu_mib * MIB;
        let f = 0.88;
        if gpu > 96.0 * 1024.0 * MIB {
            return (f + 48.0 * 1024.0 * MIB * (1.0 - f) / gpu).min((gpu - 18.0 * 1024.0 * MIB) / gpu);
        }
        return f;
    }
    by_tp
}

/// Bytes per token of the pool, and of a sliding layer's pool (per layer).
fn cell(arch: &Architecture, i: &Inference) -> f64 {
    let kv_heads = (arch.kv_heads / i.tp.max(1)).max(1);
    arch.kv_elements_per_layer(kv_heads) as f64 * kv_bytes(i.kv)
}

pub fn bill(p: &Plan, i: &Inference) -> EngineBill {
    let version = i.engine.version.unwrap_or(CURRENT);
    let context = context_tokens(p, i);
    let tp = i.tp.max(1);
    let gpu_mib = p.gpu.bytes as f64 / MIB;
    let (chunked_default, graph_bs) = defaults(version, gpu_mib, tp);
    let chunked = i.engine.max_batched_tokens.unwrap_or(chunked_default);
    let graph_bs = if i.engine.cuda_graphs { graph_bs } else { 0 };
    let fraction = i
        .engine
        .mem_fraction
        .unwrap_or_else(|| default_fraction(version, gpu_mib, tp, chunked, graph_bs, p.arch.mla.is_some()));
    let nccl = p.nccl_bytes(tp);
    let context_bytes = p.overhead_mib * MIB;
    let free_before = (p.gpu.torch_bytes as f64 - context_bytes - nccl).max(0.0);
    let w = stored_weights(p.arch, i.weights);
    let weights_bytes = w.bytes / tp as f64;
    let rest = free_before * fraction - weights_bytes;
    let per_layer = cell(p.arch, i);
    let full = p.arch.layers_of(LayerKind::Full);
    let windowed = p.arch.layers_of(LayerKind::Sliding) + p.arch.layers_of(LayerKind::Chunked);
    let token_bytes = per_layer * (full as f64 + SWA_RATIO * windowed as f64);
    let tokens = if rest > 0.0 && token_bytes > 0.0 { (rest / token_bytes).floor() as u64 } else { 0 };
    let pool = tokens as f64 * token_bytes;
    let requests = p.batch.max(1);
    let concurrency = tokens as f64 / context as f64;
    let status = if tokens == 0 {
        ServingStatus::NoKvMemory { available: rest as i64 }
    } else if context > tokens {
        ServingStatus::ContextTooLong {
            needed_bytes: (context as f64 * token_bytes) as u64,
            available_bytes: pool as u64,
            longest: tokens,
        }
    } else if (concurrency.floor() as u64) < requests {
        ServingStatus::Queues { concurrent: concurrency.floor() as u64 }
    } else {
        ServingStatus::Serves
    };
    let reserve = free_before * (1.0 - fraction);
    let graphs = graph_bs as f64 * 2.0 * MIB;
    let tp_arg = when(tp > 1, || msg!(TensorParallel, Arg::Int(tp)));
    let mut lines: Vec<Component> = vec![
        line(
            ComponentId::Weights,
            weights_bytes,
            "§2",
            msg!(EngineWeights, w.formula.arg(), Msg::empty().arg(), tp_arg, Msg::empty().arg()),
        ),
        line(
            ComponentId::KvCache,
            pool,
            "§2",
            msg!(
                SglangPool,
                Arg::Fixed(fraction, 3),
                Arg::Bytes(free_before),
                Arg::Bytes(weights_bytes),
                Arg::Count(tokens),
                Arg::Factor(token_bytes),
                Arg::Int(full),
                Arg::Int(windowed)
            ),
        ),
        line(
            ComponentId::Activations,
            reserve,
            "§2",
            msg!(
                SglangReserve,
                Arg::Fixed(fraction, 3),
                Arg::Bytes(free_before),
                Arg::Count(chunked),
                Arg::Int(graph_bs)
            ),
        ),
        line(ComponentId::CudaContext, context_bytes, "§3", msg!(EngineContext, Arg::Factor(p.overhead_mib))),
    ];
    if nccl > 0.0 {
        lines.push(line(
            ComponentId::NonTorch,
            nccl,
            "§2",
            msg!(
                EngineNonTorch,
                Arg::Bytes(0.0),
                msg!(NcclBuffers, Arg::Bytes(nccl), Arg::Int(tp)).arg(),
                Msg::empty().arg()
            ),
        ));
    }
    let serving = Serving {
        engine: Engine::Sglang,
        version,
        budget_bytes: (free_before * fraction) as u64,
        weights_bytes: weights_bytes.round() as u64,
        non_torch_bytes: nccl as u64,
        activation_peak_bytes: (reserve - graphs).max(0.0) as u64,
        cuda_graph_bytes: graphs as u64,
        kv_pool_bytes: pool as u64,
        kv_tokens: tokens,
        kv_blocks: None,
        max_concurrency: concurrency,
        max_context: tokens / requests,
        host_bytes: 0,
        context_tokens: context,
        requests,
        share: fraction,
        status,
    };
    let note = msg!(
        SglangSummary,
        Arg::Text(version.to_string()),
        Arg::Fixed(fraction, 3),
        Arg::Count(tokens),
        Arg::Count(context),
        Arg::Fixed(concurrency, 2),
        Arg::Int(requests),
        Arg::Count(serving.max_context)
    );
    EngineBill { lines, serving, notes: vec![Note { key: "engine", text: note }] }
}

#[cfg(test)]
mod tests {
    use super::{default_fraction, defaults, prefill_graphs};
    use crate::ledger::scenario::EngineVersion;

    /// The worked examples of SGLang's memory settings (read from its source, see docs/serving.md).
    #[test]
    fn default_fractions_follow_the_release() {
        let v = |a, b, c| EngineVersion(a, b, c);
        assert_eq!(prefill_graphs(8192), 58);
        let h100 = 81_559.0;
        let (chunked, bs) = defaults(v(0, 5, 23), h100, 1);
        assert_eq!((chunked, bs), (8192, 256));
        // 512 + 8192 × 1.5 + 256 × 2 + 1/8 × 1024 + 58 × 8 = 13,904 MiB → 0.830.
        assert_eq!(default_fraction(v(0, 5, 23), h100, 1, chunked, bs, false), 0.83);
        // 0.5.3: without the prefill graphs, 13,440 MiB → 0.835.
        assert_eq!(default_fraction(v(0, 5, 3), h100, 1, chunked, bs, false), 0.835);
        // H200 (143,771 MiB) on 0.5.23 → 0.903.
        assert_eq!(default_fraction(v(0, 5, 23), 143_771.0, 1, 8192, 256, false), 0.903);
        // 0.4.3 by tensor parallelism: 0.88 on one GPU, 0.85 on four.
        assert_eq!(default_fraction(v(0, 4, 3), h100, 1, 8192, 160, false), 0.88);
        assert_eq!(default_fraction(v(0, 4, 3), 23_034.0, 4, 2048, 80, false), 0.85);
    }
}
