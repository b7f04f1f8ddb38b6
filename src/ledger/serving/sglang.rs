//! SGLang's start-up: `mem_fraction_static` of the memory free before loading is for the weights
//! and the KV pool; the rest is left for activations and CUDA graphs. The pool is whatever that
//! fraction leaves after the weights, in tokens of one cell (every layer's K and V, or the latent).
//! Read from SGLang 0.3.6, 0.4.3.post4, 0.4.6.post5, 0.4.10.post2, 0.5.3, 0.5.6 and 0.5.23
//! (`server_args.py` / `arg_groups/memory_hook.py`, `model_executor/model_runner.py`).

use super::engine::{context_tokens, kv_bytes, layer_token_bytes, EngineBill};
use super::grid::Stage;
use crate::ledger::architecture::{Architecture, LayerKind};
use crate::ledger::bill::{line, pool_list, Component, ComponentId, KvPool, Note, PoolKind, Serving, ServingStatus};
use crate::ledger::msg::{when, Arg, Msg};
use crate::ledger::plan::{Inference, Plan};
use crate::ledger::scenario::{Engine, Release, SpecMethod, MIB};
use crate::ledger::weights::stored_weights;
use crate::msg;

/// The newest release read.
pub const CURRENT: Release = Release(0, 5, 23);

/// Share of a sliding-window layer's tokens kept beside the full layers' (`swa_full_tokens_ratio`).
const SWA_RATIO: f64 = 0.8;
/// The Mamba state pool's bytes as a share of the KV pool's (`mamba_full_memory_ratio`).
const MAMBA_RATIO: f64 = 0.9;

/// `chunked_prefill_size` and `cuda_graph_max_bs` by card (MiB as nvidia-smi reports it).
fn defaults(version: Release, gpu_mib: f64, tp: u64) -> (u64, u64) {
    let gib = gpu_mib / 1024.0;
    let small_tp = tp < 4;
    if version >= Release(0, 5, 0) {
        let newer = version >= Release(0, 5, 23);
        match gib {
            g if g < 20.0 => (2048, 8),
            g if g < 35.0 && newer => (4096, if small_tp { 48 } else { 160 }),
            g if g < 35.0 => (2048, if small_tp { 16 } else { 80 }),
            g if g < 60.0 => (4096, if small_tp { 32 } else { 160 }),
            g if g < 160.0 => (8192, if small_tp { 256 } else { 512 }),
            _ => (16_384, 512),
        }
    } else if version >= Release(0, 4, 10) {
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
/// `spec_mib`: what speculative decoding adds to the reserve (0.5 on: 2,048 MiB for EAGLE and
/// MTP, 6,144 for a separate draft model; `server_args.py::_handle_gpu_memory_settings`), and
/// data-parallel attention's (`dp_attention_mib`).
fn default_fraction(
    version: Release,
    gpu_mib: f64,
    tp: u64,
    (chunked, graph_bs): (u64, u64),
    latent: bool,
    spec_mib: f64,
) -> f64 {
    let tp_f = tp.max(1) as f64;
    if version >= Release(0, 5, 0) {
        let mut reserved = 512.0 + chunked.max(2048) as f64 * 1.5 + graph_bs as f64 * 2.0 + tp_f / 8.0 * 1024.0;
        if version >= Release(0, 5, 23) {
            reserved += if latent { 1536.0 } else { prefill_graphs(chunked) as f64 * 8.0 };
        }
        if gpu_mib > 60.0 * 1024.0 {
            reserved = reserved.max(10_240.0);
        }
        reserved += spec_mib;
        return ((gpu_mib - reserved) / gpu_mib * 1000.0).round() / 1000.0;
    }
    if version >= Release(0, 4, 10) {
        let gib = gpu_mib / 1024.0;
        let reserved = match gib {
            g if g < 35.0 => 2.8 + tp_f / 10.0,
            g if g < 90.0 => 9.5 + tp_f / 2.0,
            g if g < 160.0 => 12.0 + tp_f / 2.0,
            _ => 32.0,
        } + spec_mib / 1024.0;
        return (gib - reserved) / gib;
    }
    let by_tp = match tp {
        16.. => 0.79,
        8.. if version >= Release(0, 4, 0) => 0.81,
        8.. => 0.82,
        4.. => 0.85,
        2.. => 0.87,
        _ => 0.88,
    };
    if version >= Release(0, 4, 4) && gpu_mib > 81_920.0 {
        let gpu = gpu_mib * MIB;
        let f = 0.88;
        if gpu > 96.0 * 1024.0 * MIB {
            return (f + 48.0 * 1024.0 * MIB * (1.0 - f) / gpu).min((gpu - 18.0 * 1024.0 * MIB) / gpu);
        }
        return f;
    }
    by_tp
}

/// What SGLang sizes at start-up: the share it takes of the memory free before loading
/// (`mem_fraction_static`), the weights, and the pool of KV tokens the rest holds.
struct Pool {
    version: Release,
    chunked: u64,
    graph_bs: u64,
    fraction: f64,
    nccl: f64,
    context_bytes: f64,
    free_before: f64,
    weights_bytes: f64,
    weights_formula: Msg,
    /// SGLang's tensor-parallel group (`--tp`): tp × dp under data-parallel attention.
    group: u64,
    /// What is left for the pool after the weights (negative when they do not fit the share).
    rest: f64,
    /// Bytes per token of the pool: full layers, and the sliding-window layers at `SWA_RATIO`.
    token_bytes: f64,
    /// Bytes per token of one full-attention layer and of one sliding-window layer.
    cells: (f64, f64),
    full: u64,
    windowed: u64,
    swa_ratio: f64,
    tokens: u64,
    /// The Mamba / linear-attention state pool: request states and bytes per state.
    states: u64,
    state_bytes: f64,
    /// Served LoRA slots and the speculative drafter, on the GPU.
    lora: Option<super::lora::LoraSlots>,
    draft: Option<super::speculative::Drafter>,
    /// A multimodal model's factor on the share (1 for a text model) and the embedding cache
    /// taken from the pool (`serving::encoder`).
    vlm_factor: f64,
    vlm_cache: f64,
}

/// One GPU's weights and their line's text, and how they add up: ÷ tp, or as data-parallel
/// attention splits them (`grid::sglang_split`); the RoPE tables whole on every GPU.
fn weights(p: &Plan, i: &Inference, version: Release, group: u64, stage: &Stage) -> (f64, Msg) {
    let tp = i.tp.max(1);
    let empty = || Msg::empty().arg();
    let (rope, rope_text) = super::engine::rope_tables(p, Engine::Sglang);
    if super::grid::is_grid(i) {
        let split = super::grid::sglang_split(p.arch, i, version);
        let bytes = super::grid::weight_bytes(p.arch, i, stage, split, 1.0) + rope;
        let formula = msg!(
            SglangGridWeights,
            Arg::Code(i.weights.format.id()),
            Arg::Int(tp),
            Arg::Int(group),
            Arg::Factor(split.experts),
            when(i.ep > 1, || msg!(SglangGridWholeExperts)),
            Arg::Factor(split.embedding),
            Arg::Int(stage.index),
            Arg::Int(i.pp.max(1)),
            Arg::Int(stage.layers.start),
            Arg::Int(stage.layers.end.saturating_sub(1)),
            when(i.dp > 1, || msg!(SglangDpAttention, Arg::Int(i.dp), Arg::Int(group))),
            rope_text
        );
        (bytes, msg!(EngineWeights, formula.arg(), empty(), empty(), empty(), empty(), empty()))
    } else {
        let w = stored_weights(p.arch, i.weights);
        let tp_text = when(tp > 1, || msg!(TensorParallel, Arg::Int(tp)));
        let formula = msg!(EngineWeights, w.formula.arg(), empty(), tp_text, empty(), empty(), rope_text);
        (w.bytes / tp as f64 + rope, formula)
    }
}

/// The pool of one GPU of `stage` (the whole model without a pipeline).
fn pool(p: &Plan, i: &Inference, stage: &Stage) -> Pool {
    let version = i.engine.version.unwrap_or(CURRENT);
    let tp = i.tp.max(1);
    // Data-parallel attention (`dp` > 1) lives inside SGLang's tensor-parallel group of tp × dp
    // GPUs (`--tp`), which its defaults and NCCL see.
    let group = tp * i.dp.max(1);
    let gpu_mib = p.gpu.bytes as f64 / MIB;
    let (chunked_default, graph_bs) = defaults(version, gpu_mib, group);
    let chunked = i.engine.max_batched_tokens.unwrap_or(chunked_default);
    let graph_bs = if i.engine.cuda_graphs { graph_bs } else { 0 };
    let spec = Speculation::of(p, i);
    let dp_attention_mib = dp_attention_reserve_mib(version, i.dp, graph_bs);
    let (vlm_factor, vlm_cache) = vlm_terms(p, i, version);
    let fraction = vlm_factor
        * i.engine.mem_fraction.unwrap_or_else(|| {
            let extra = spec.reserve_mib + dp_attention_mib;
            // Its reserve counts every GPU of a pipeline's stages too (TP × PP from 0.4.7).
            let gpus = group * i.pp.max(1);
            // A reserve larger than the card (absurd groups) leaves nothing, not a negative share.
            crate::ledger::units::within(
                default_fraction(version, gpu_mib, gpus, (chunked, graph_bs), p.arch.mla.is_some(), extra),
                0.0,
                1.0,
            )
        });
    let nccl = p.nccl_bytes(group);
    let context_bytes = p.overhead_mib * MIB;
    let free_before = (p.gpu.torch_bytes as f64 - context_bytes - nccl).max(0.0);
    let (weights_bytes, weights_formula) = weights(p, i, version, group, stage);
    let per_layer = layer_token_bytes(p.arch, i, LayerKind::Sliding);
    let full_cell = layer_token_bytes(p.arch, i, LayerKind::Full);
    // LoRA's memory pool is allocated before the KV pool is sized (model_runner.py).
    let lora = super::lora::slots(p.arch, i, None);
    let draft = super::speculative::drafter(p, i, per_layer, kv_bytes(i.kv));
    let mut rest = free_before * fraction - weights_bytes - lora.as_ref().map_or(0.0, |l| l.gpu_bytes) - vlm_cache;
    let full = stage.cache_layers_of(p.arch, LayerKind::Full);
    let windowed =
        stage.cache_layers_of(p.arch, LayerKind::Sliding) + stage.cache_layers_of(p.arch, LayerKind::Chunked);
    let swa_ratio = i.engine.swa_ratio.unwrap_or(SWA_RATIO);
    let token_bytes = full_cell * full as f64 + per_layer * swa_ratio * windowed as f64;
    // Linear-attention layers: one state per request in a pool of its own
    // (`handle_max_mamba_cache`): `max_mamba_cache` states, or `mamba_ratio` of the KV pool.
    let state_bytes = state_bytes(p.arch, tp, stage) * (1 + spec.draft_tokens) as f64;
    let states = if state_bytes > 0.0 {
        let ratio = i.engine.mamba_ratio.unwrap_or(MAMBA_RATIO);
        i.engine.max_mamba_cache.unwrap_or_else(|| (rest.max(0.0) * ratio / (1.0 + ratio) / state_bytes).floor() as u64)
    } else {
        0
    };
    rest -= states as f64 * state_bytes;
    let profiled = profiled_tokens(p.arch, i, full, token_bytes, rest);
    // With a drafter the target's pool grows by what the drafts and the verification of the
    // running requests take at once (`draft_runner_cache_size`).
    let tokens = if profiled > 0 { profiled + spec.headroom } else { 0 };
    Pool {
        version,
        chunked,
        graph_bs,
        fraction,
        nccl,
        context_bytes,
        free_before,
        weights_bytes,
        weights_formula,
        group,
        rest,
        token_bytes,
        cells: (full_cell, per_layer),
        full,
        windowed,
        swa_ratio,
        tokens,
        states,
        state_bytes,
        lora,
        draft,
        vlm_factor,
        vlm_cache,
    }
}

/// A multimodal model's factor on the share and the embedding cache taken from the pool
/// (`serving::encoder`): the share is lowered only when defaulted from 0.4.9, a given one too
/// before (`model_runner.py` multiplied whatever it had).
fn vlm_terms(p: &Plan, i: &Inference, version: Release) -> (f64, f64) {
    let factor = super::encoder::sglang_fraction_factor(p.arch, version);
    let factor = if i.engine.mem_fraction.is_none() || version < Release(0, 4, 9) { factor } else { 1.0 };
    (factor, super::encoder::sglang_cache_bytes(p.arch, version, super::engine::is_hopper(p)))
}

/// What data-parallel attention adds to the default reserve (docs/research/serving/grid-rules.md,
/// B2): 4 GiB up to 0.5.2 (read as this ledger's 0.4 rules), from 0.5 three MiB per CUDA-graph
/// batch size and attention rank, half as much again above 300 sizes.
fn dp_attention_reserve_mib(version: Release, dp: u64, graph_bs: u64) -> f64 {
    if dp <= 1 {
        return 0.0;
    }
    if version < Release(0, 5, 0) {
        return 4096.0;
    }
    let per = if graph_bs > 300 { 4.5 } else { 3.0 };
    per * graph_bs as f64 * dp as f64
}

/// What speculative decoding changes in SGLang's sizing (0.5.4 `server_args.py`,
/// `model_runner.py::init_memory_pool`).
struct Speculation {
    /// MiB the default `mem_fraction_static` reserves for the draft worker.
    reserve_mib: f64,
    /// `speculative_num_draft_tokens` (each running request's Mamba state is kept that many more
    /// times).
    draft_tokens: u64,
    /// Tokens the target's pool gains: max_running_requests × (steps × topk + draft tokens) + 100.
    headroom: u64,
}

impl Speculation {
    fn of(p: &Plan, i: &Inference) -> Speculation {
        let reserve_mib = match i.engine.spec {
            SpecMethod::None | SpecMethod::Ngram => {
                return Speculation { reserve_mib: 0.0, draft_tokens: 0, headroom: 0 };
            }
            SpecMethod::Draft => 6144.0,
            SpecMethod::Eagle | SpecMethod::Eagle3 | SpecMethod::Mtp => 2048.0,
        };
        // `auto_choose_speculative_params`: (3 steps, top-1, 4 draft tokens) for DeepSeek-style
        // and gpt-oss models and a separate draft model, (5, 4, 8) otherwise; a given count of
        // steps with top-1 proposes steps + 1 tokens.
        let chain = p.arch.mla.is_some() || p.arch.sinks || i.engine.spec == SpecMethod::Draft;
        let (steps, topk, draft_tokens) = match i.engine.spec_tokens {
            Some(n) => (n, 1, n + 1),
            None if chain => (3, 1, 4),
            None => (5, 4, 8),
        };
        // max_running_requests is reset to 48 for speculative decoding unless given.
        let requests = i.engine.max_num_seqs.unwrap_or(48);
        Speculation { reserve_mib, draft_tokens, headroom: requests * (steps * topk + draft_tokens) + 100 }
    }
}

/// One request's recurrent state over the linear-attention layers on one GPU: the convolution's
/// last taps in 16 bits and the SSM / delta-rule state in fp32 (SGLang's `mamba_ssm_dtype`).
/// The tokens SGLang's pool is sized for in `rest` bytes: by what a token takes, but for
/// DeepSeek-V3.2, which it sizes by (latent + rotary key) × the element size + the indexer's key
/// (708 B a layer in fp8) and allocates in FlashMLA's 656-byte layout beside the key (788 B):
/// `profile_max_num_token`'s cell against `NSATokenToKVPool`'s buffers.
fn profiled_tokens(arch: &Architecture, i: &Inference, full: u64, token_bytes: f64, rest: f64) -> u64 {
    let sized = match (&arch.mla, &arch.indexer) {
        (Some(m), Some(ix)) => (m.cached_per_token() as f64 * kv_bytes(i.kv) + ix.key_bytes() as f64) * full as f64,
        _ => token_bytes,
    };
    if rest > 0.0 && sized > 0.0 {
        (rest / sized).floor() as u64
    } else {
        0
    }
}

fn state_bytes(arch: &Architecture, tp: u64, stage: &Stage) -> f64 {
    let (Some(l), n @ 1..) = (&arch.linear, stage.layers_of(arch, LayerKind::Linear)) else { return 0.0 };
    let tp = tp.max(1) as f64;
    let conv = (l.conv.saturating_sub(1) * l.conv_dim()) as f64 * 2.0;
    let ssm = l.state_elements() as f64 * 4.0;
    n as f64 * (conv + ssm) / tp
}

/// Whether SGLang starts, and whether `requests` of `context` tokens run at once (`concurrency`:
/// how many fit, a shared prefix held once).
fn status(s: &Pool, context: u64, requests: u64, concurrency: f64) -> ServingStatus {
    if s.tokens == 0 {
        ServingStatus::NoKvMemory { available: s.rest as i64 }
    } else if context > s.tokens {
        ServingStatus::ContextTooLong {
            needed_bytes: (context as f64 * s.token_bytes) as u64,
            available_bytes: (s.tokens as f64 * s.token_bytes) as u64,
            longest: s.tokens,
        }
    } else if (concurrency.floor() as u64) < requests {
        ServingStatus::Queues { concurrent: concurrency.floor() as u64 }
    } else {
        ServingStatus::Serves
    }
}

impl Pool {
    /// The draft worker's weights and KV pool of `tokens` (the same tokens as the model's pool):
    /// SGLang sizes them after the model's pool, out of what `mem_fraction_static` leaves.
    fn draft_bytes(&self, tokens: u64) -> (f64, f64) {
        self.draft.as_ref().map_or((0.0, 0.0), |d| (d.weights_bytes, tokens as f64 * d.kv_token_bytes))
    }

    /// What `mem_fraction_static` leaves out of the static pools (activations and graphs), less the
    /// draft worker's weights and pool of `tokens`.
    fn reserve(&self, tokens: u64) -> f64 {
        let (draft_weights, draft_kv) = self.draft_bytes(tokens);
        self.free_before * (1.0 - self.fraction) - draft_weights - draft_kv
    }
}

/// The process's lines on one GPU: weights, the pool, what the fraction leaves out (`reserve`:
/// activations and CUDA graphs), the CUDA context and NCCL's buffers.
fn lines(p: &Plan, s: &Pool, reserve: f64) -> Vec<Component> {
    let (_, draft_kv) = s.draft_bytes(s.tokens);
    let mamba = when(s.states > 0, || {
        let layers = p.arch.layers_of(LayerKind::Linear);
        msg!(
            SglangMambaPool,
            Arg::Count(s.states),
            Arg::Bytes(s.state_bytes),
            Arg::Int(layers),
            Arg::Bytes(s.states as f64 * s.state_bytes)
        )
    });
    let draft_pool = when(draft_kv > 0.0, || {
        let d = s.draft.as_ref().map_or(0, |d| d.kv_layers);
        msg!(
            SpecSglangPool,
            Arg::Bytes(draft_kv),
            Arg::Int(d),
            Arg::Factor(s.draft.as_ref().map_or(0.0, |d| d.kv_token_bytes))
        )
    });
    let pool_formula = msg!(
        SglangPool,
        Arg::Fixed(s.fraction, 3),
        Arg::Bytes(s.free_before),
        Arg::Bytes(s.weights_bytes),
        Arg::Count(s.tokens),
        Arg::Factor(s.token_bytes),
        Arg::Int(s.full),
        Arg::Int(s.windowed),
        Arg::Fixed(s.swa_ratio, 2),
        mamba,
        draft_pool,
        when(s.vlm_factor < 1.0, || msg!(SglangVlmFraction, Arg::Fixed(s.vlm_factor, 4))),
        when(s.vlm_cache > 0.0, || msg!(SglangVlmCache, Arg::Bytes(s.vlm_cache)))
    );
    let reserve_formula = msg!(
        SglangReserve,
        Arg::Fixed(s.fraction, 3),
        Arg::Bytes(s.free_before),
        Arg::Count(s.chunked),
        Arg::Int(s.graph_bs)
    );
    let pool_bytes = s.tokens as f64 * s.token_bytes + s.states as f64 * s.state_bytes + draft_kv;
    let mut lines: Vec<Component> = vec![line(ComponentId::Weights, s.weights_bytes, "§2", s.weights_formula.clone())];
    if let Some(d) = &s.draft {
        lines.push(line(ComponentId::DraftModel, d.weights_bytes, "§2", d.formula.clone()));
    }
    if let Some(l) = &s.lora {
        lines.push(line(ComponentId::AdapterWeights, l.gpu_bytes, "§2", l.formula.clone()));
    }
    lines.extend([
        line(ComponentId::KvCache, pool_bytes, "§2", pool_formula),
        line(ComponentId::Activations, reserve.max(0.0), "§2", reserve_formula),
        line(ComponentId::CudaContext, s.context_bytes, "§3", msg!(EngineContext, Arg::Factor(p.overhead_mib))),
    ]);
    if s.nccl > 0.0 {
        let buffers = msg!(NcclBuffers, Arg::Bytes(s.nccl), Arg::Int(s.group)).arg();
        let formula = msg!(EngineNonTorch, Arg::Bytes(0.0), buffers, Msg::empty().arg());
        lines.push(line(ComponentId::NonTorch, s.nccl, "§2", formula));
    }
    lines
}

/// SGLang's pools: the full-attention tokens, the sliding-window tokens and the Mamba states.
fn pools(s: &Pool, p: &Plan) -> Vec<KvPool> {
    let (full_cell, per_layer) = s.cells;
    let mut out = vec![KvPool {
        kind: PoolKind::Full,
        bytes: (s.tokens as f64 * full_cell * s.full as f64) as u64,
        tokens: s.tokens,
    }];
    if s.windowed > 0 {
        let swa_tokens = (s.tokens as f64 * s.swa_ratio).floor();
        out.push(KvPool {
            kind: PoolKind::Swa,
            bytes: (swa_tokens * per_layer * s.windowed as f64) as u64,
            tokens: swa_tokens as u64,
        });
    }
    if s.states > 0 {
        out.push(KvPool { kind: PoolKind::State, bytes: (s.states as f64 * s.state_bytes) as u64, tokens: s.states });
    }
    let _ = p;
    out
}

/// Requests of `context` that fit at once when `share` of each is one prefix held once (the radix
/// cache), and the longest context `requests` can each have then.
fn with_prefix(tokens: u64, context: u64, requests: u64, share: f64) -> (f64, u64) {
    let own = |l: u64| l - (l as f64 * share).floor() as u64;
    let prefix = context - own(context);
    let concurrency = tokens.saturating_sub(prefix) as f64 / own(context).max(1) as f64;
    let fits = |l: u64| (l - own(l)).saturating_add(requests.saturating_mul(own(l))) <= tokens;
    (concurrency, super::engine::largest(tokens, &fits))
}

/// The pool of the GPU billed: the whole model's, or on a pipeline the stage with the fewest
/// tokens (`stage` picks another), whose count every stage takes from 0.5.2 (SGLang all-reduces
/// the minimum: docs/research/serving/grid-rules.md, B3.5), with every stage's GPU listed.
fn stages(p: &Plan, i: &Inference) -> (Pool, Option<crate::ledger::bill::ParallelSummary>) {
    if !super::grid::is_grid(i) || i.pp <= 1 {
        let whole = pool(p, i, &Stage::whole(p.arch));
        let parallel = super::grid::is_grid(i).then(|| {
            let rank = rank_of(0, p.arch.layers, &whole, whole.tokens);
            super::grid::summary(i, 0, 0, vec![rank])
        });
        return (whole, parallel);
    }
    let version = i.engine.version.unwrap_or(CURRENT);
    let stages: Vec<Stage> = (0..i.pp).map(|q| Stage::sglang(p.arch, i.pp, q, version)).collect();
    let mut pools: Vec<Pool> = stages.iter().map(|st| pool(p, i, st)).collect();
    let fewest = pools.iter().map(|x| x.tokens).min().unwrap_or(0);
    let binding = pools.iter().position(|x| x.tokens == fewest).unwrap_or(0);
    let billed = super::grid::billed(i, binding, pools.len());
    let shared = version >= Release(0, 5, 2);
    let ranks = stages
        .iter()
        .zip(&pools)
        .map(|(st, x)| rank_of(st.index, st.count(), x, if shared { fewest } else { x.tokens }))
        .collect();
    let summary = super::grid::summary(i, binding as u64, billed as u64, ranks);
    let mut s = pools.swap_remove(billed);
    if shared {
        s.tokens = fewest;
    }
    (s, Some(summary))
}

/// One stage's GPU as `bill` bills it: the weights with the drafter's and the LoRA slots, the pool
/// of `tokens` (the draft worker's too), what the fraction leaves out less the draft worker's
/// weights and pool, then NCCL's buffers and the CUDA context.
fn rank_of(stage: u64, layers: u64, s: &Pool, tokens: u64) -> crate::ledger::bill::RankSummary {
    let (draft_weights, draft_kv) = s.draft_bytes(tokens);
    let weights = s.weights_bytes + draft_weights + s.lora.as_ref().map_or(0.0, |l| l.gpu_bytes);
    let pool = tokens as f64 * s.token_bytes + s.states as f64 * s.state_bytes + draft_kv;
    let reserve = s.reserve(tokens).max(0.0);
    let allocated = weights + pool + reserve;
    crate::ledger::bill::RankSummary {
        stage,
        layers,
        weights_bytes: weights as u64,
        activations_bytes: reserve as u64,
        allocated_bytes: allocated as u64,
        device_bytes: (allocated + s.nccl + s.context_bytes) as u64,
    }
}

pub fn bill(p: &Plan, i: &Inference) -> EngineBill {
    let (s, parallel) = stages(p, i);
    let context = context_tokens(p, i);
    let requests = p.batch.max(1);
    let concurrency = s.tokens as f64 / context as f64;
    let (mut effective, max_context) = with_prefix(s.tokens, context, requests, i.engine.prefix_share);
    if s.states > 0 {
        // Running requests are capped at a third of the Mamba states (the radix cache keeps the
        // rest for cached prefixes; `model_runner.py::init_memory_pool`).
        effective = effective.min((s.states / 3) as f64);
    }
    let (draft_weights, _) = s.draft_bytes(s.tokens);
    let reserve = s.reserve(s.tokens);
    let graphs = s.graph_bs as f64 * 2.0 * MIB;
    let lora_bytes = s.lora.as_ref().map_or(0.0, |l| l.gpu_bytes);
    let serving = Serving {
        engine: Engine::Sglang,
        version: s.version,
        budget_bytes: (s.free_before * s.fraction) as u64,
        weights_bytes: (s.weights_bytes + lora_bytes + draft_weights).round() as u64,
        non_torch_bytes: s.nccl as u64,
        activation_peak_bytes: (reserve - graphs).max(0.0) as u64,
        cuda_graph_bytes: graphs as u64,
        kv_pool_bytes: (s.tokens as f64 * s.token_bytes) as u64,
        kv_tokens: s.tokens,
        kv_blocks: None,
        max_concurrency: concurrency,
        max_context,
        host_bytes: s.lora.as_ref().map_or(0, |l| l.host_bytes as u64),
        context_tokens: context,
        requests,
        share: s.fraction,
        status: status(&s, context, requests, effective),
        pool_list: pool_list(&pools(&s, p)),
        effective_concurrency: effective,
        kv_cache_memory_bytes: 0,
        draft_bytes: draft_weights as u64,
        lora_bytes: lora_bytes as u64,
    };
    let note = msg!(
        SglangSummary,
        Arg::Text(s.version.to_string()),
        Arg::Fixed(s.fraction, 3),
        Arg::Count(s.tokens),
        Arg::Count(context),
        Arg::Fixed(concurrency, 2),
        Arg::Int(requests),
        Arg::Count(serving.max_context)
    );
    let mut notes = vec![Note { key: "engine", text: note }];
    if i.engine.prefix_share > 0.0 {
        notes.push(super::engine::prefix_note(&serving, i.engine.prefix_share));
    }
    EngineBill { lines: lines(p, &s, reserve), serving, notes, parallel }
}

#[cfg(test)]
mod tests {
    use super::{default_fraction, defaults, prefill_graphs};
    use crate::ledger::scenario::Release;

    /// The worked examples of SGLang's memory settings (read from its source, see docs/serving.md).
    #[test]
    fn default_fractions_follow_the_release() {
        let v = |a, b, c| Release(a, b, c);
        assert_eq!(prefill_graphs(8192), 58);
        let h100 = 81_559.0;
        let (chunked, bs) = defaults(v(0, 5, 23), h100, 1);
        assert_eq!((chunked, bs), (8192, 256));
        // 512 + 8192 × 1.5 + 256 × 2 + 1/8 × 1024 + 58 × 8 = 13,904 MiB → 0.830.
        assert_eq!(default_fraction(v(0, 5, 23), h100, 1, (chunked, bs), false, 0.0), 0.83);
        // 0.5.3: without the prefill graphs, 13,440 MiB → 0.835.
        assert_eq!(default_fraction(v(0, 5, 3), h100, 1, (chunked, bs), false, 0.0), 0.835);
        // H200 (143,771 MiB) on 0.5.23 → 0.903.
        assert_eq!(default_fraction(v(0, 5, 23), 143_771.0, 1, (8192, 256), false, 0.0), 0.903);
        // 0.4.3 by tensor parallelism: 0.88 on one GPU, 0.85 on four.
        assert_eq!(default_fraction(v(0, 4, 3), h100, 1, (8192, 160), false, 0.0), 0.88);
        assert_eq!(default_fraction(v(0, 4, 3), 23_034.0, 4, (2048, 80), false, 0.0), 0.85);
    }
}
