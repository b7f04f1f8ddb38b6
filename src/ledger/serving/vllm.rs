//! vLLM's start-up: `gpu_memory_utilization` × the total PyTorch reports is the budget; the
//! weights as loaded, the profiling run's activation peak, non-torch memory and (from 0.20) the
//! CUDA graphs' estimate come out of it; the rest is the KV pool, in blocks of `block_size` tokens
//! per layer group. Read from vLLM 0.6.6, 0.8.5, 0.10.2, 0.11.0, 0.14.1, 0.19.1, 0.20.2, 0.22.0 and
//! 0.33.0 (`vllm/v1/worker/gpu_worker.py`, `v1/core/kv_cache_utils.py`, `engine/arg_utils.py`).

use super::engine::{context_tokens, is_hopper, kv_bytes, largest, layer_token_bytes, EngineBill};
use super::grid::{self, Stage};
use super::{encoder, lora, speculative};
use crate::ledger::activations::layer_class_name;
use crate::ledger::architecture::{Architecture, LayerKind, MoeSpec};
use crate::ledger::bill::{
    line, pool_list, Component, ComponentId, KvPool, Note, ParallelSummary, PoolKind, RankSummary, Serving,
    ServingStatus,
};
use crate::ledger::msg::{when, Arg, Msg};
use crate::ledger::plan::{Inference, Plan};
use crate::ledger::scenario::{Engine, Release, GIB, MAX_CONTEXT, MIB};
use crate::ledger::storage::{QuantLayers, StorageFormat};
use crate::ledger::units::has;
use crate::ledger::weights::stored_weights;
use crate::msg;

/// The newest release read.
pub const CURRENT: Release = Release(0, 33, 0);
/// `--max-model-len auto` (PR #29431: in 0.14.0's kv_cache_utils.py, not in 0.13.0's).
const AUTO_FIT_FROM: Release = Release(0, 14, 0);

/// Bytes per (dummy request × vocabulary entry) the sampler's warm-up holds beside the 16-bit
/// logits: the fp32 copy, sort values and int64 indices, softmax, masks. Fitted to the start-up
/// logs of the measured set (docs/serving.md): the V0 engine holds ~36 B; V1 through 0.16 36.5 B,
/// the median of its five logs whose profile is the sampler's (Qwen3-235B-FP8 0.9 and 0.10,
/// gpt-oss-120b 0.10.1 and 0.11, Gemma-3-4B 0.10: 35–37 B); from 0.17 (FlashInfer's sampler)
/// about a third of it.
pub const SAMPLER_BYTES_V0: f64 = 36.0;
pub const SAMPLER_BYTES_V1: f64 = 36.5;
pub const SAMPLER_BYTES_FLASHINFER: f64 = 14.0;

/// Non-torch memory one GPU gains while vLLM profiles (cuBLAS and attention workspaces), fitted.
pub const NON_TORCH_GIB: f64 = 0.08;
/// CUDA-graph memory, fitted to the "Graph capturing finished …, took X GiB" and "Estimated CUDA
/// graph memory" lines: the V0 engine's whole-model graphs cost per captured batch size about
/// 0.12 × √hidden MiB (3.8 MiB at hidden 1024 to 7.9 MiB at 5120, four models); V1's piecewise
/// graphs, split at every attention layer, cost per size and layer (0.26–0.36 MiB, four models).
pub const GRAPH_MIB_PER_SIZE_SQRT_HIDDEN_V0: f64 = 0.12;
pub const GRAPH_MIB_PER_SIZE_LAYER_V1: f64 = 0.28;

/// The rules of one release.
#[derive(Clone, Copy, Debug)]
struct Rules {
    version: Release,
    /// `max_model_len` as the profile sees it (before `auto` lowers it).
    context: u64,
    util: f64,
    max_batched_tokens: u64,
    max_num_seqs: u64,
    block_size: u64,
    /// The batch sizes CUDA graphs are captured for.
    graph_sizes: u64,
    /// 0.8–0.9 subtract everything the process holds (the CUDA context too) from the budget.
    context_in_budget: bool,
    /// The hybrid KV manager (0.10 on): sliding-window layers get their own block groups.
    hybrid: bool,
    /// 0.19.1 on: one group size for two layer types unless they differ by half or more.
    group_size_max: bool,
    /// The V0 engine: before 0.8, and through 0.9 on a card before Ampere, where V1's oracle
    /// falls back to it ("Compute Capability < 8.0", `engine/arg_utils.py`
    /// `_is_v1_supported_oracle`).
    v0: bool,
    /// From 0.20 the CUDA graphs are estimated and taken out of the budget.
    graphs_in_budget: bool,
    /// From 0.20 "GPU KV cache size" is concurrency × max_model_len.
    tokens_from_concurrency: bool,
    /// Batches in flight a sliding window must keep: 2 under async scheduling (on by default) from
    /// 0.26 (vllm#47728, merged after 0.25.1: `max_in_flight_tokens` = (pp + 1) × batched tokens),
    /// 1 before (a 0.22.1 log of Gemma-4 E4B keeps one batch beside its window).
    in_flight: u64,
    sampler_bytes: f64,
}

/// The page's build bills vLLM only for an RL step's rollout (`rl::engine_rollout`: one GPU, the
/// engine's default settings); a served model, a grid, a drafter or LoRA slots are the reader
/// worker's (`Scenario::billed_on_demand`), so their code stays out of the page.
const PAGE: bool = cfg!(feature = "page");

fn rules(p: &Plan, i: &Inference, context: u64) -> Rules {
    let version = i.engine.version.unwrap_or(CURRENT);
    let v = |a, b| version >= Release(0, a, b);
    let total_gib = p.gpu.torch_bytes as f64 / GIB;
    let big = total_gib >= 70.0 && !has(&p.gpu.name.to_ascii_lowercase(), "a100");
    let v0 = !v(8, 0) || (!v(10, 0) && p.gpu.pre_ampere());
    // `vllm serve`'s defaults (engine/arg_utils.py::get_batch_defaults).
    let (tokens, seqs) = if v0 {
        // The V0 engine: the whole context in one step, chunked prefill (512) past 32k.
        (if context > 32_768 { 512 } else { context.max(2048) }, 256)
    } else if !v(10, 0) {
        // From 0.9 smaller cards get 256 sequences (arg_utils.py's "TODO(woosuk): Tune the
        // default values for other hardware" branch): an L4 log of 0.9.0.1 starts where 1,024
        // would not, while an L40S log of 0.8.5 has 1,024 (docs/research/serving/
        // vlm-encoder-profile.md).
        if total_gib >= 70.0 {
            (8192, 1024)
        } else {
            (2048, if v(9, 0) { 256 } else { 1024 })
        }
    } else if v(33, 0) && total_gib >= 160.0 {
        (16_384, 1024)
    } else if big {
        (8192, 1024)
    } else {
        (2048, 256)
    };
    let latent = p.arch.mla.is_some();
    // V0 gives a multimodal model at least 5,120 (`_MULTIMODAL_MODEL_MAX_NUM_BATCHED_TOKENS`).
    let tokens = if v0 && !encoder::text_only(p.arch, &i.engine) { tokens.max(5120) } else { tokens };
    let max_batched_tokens = i.engine.max_batched_tokens.unwrap_or(tokens);
    let max_num_seqs = i.engine.max_num_seqs.unwrap_or(seqs).max(1);
    let blackwell = matches!(p.gpu.id, Some("b200"));
    Rules {
        version,
        context,
        util: i.engine.gpu_util.unwrap_or(if v(20, 0) { 0.92 } else { 0.90 }),
        max_batched_tokens,
        max_num_seqs,
        // From 0.11.1 a served LoRA's graphs are captured twice, with and without adapters
        // (`cudagraph_specialize_lora`, on by default: `lora_cases = [True, False]`).
        graph_sizes: capture_sizes(version, v0, max_num_seqs, max_batched_tokens, blackwell)
            * if v(11, 1) && i.engine.max_loras > 0 { 2 } else { 1 },
        // FlashMLA pages latent caches in 64-token blocks.
        block_size: i.engine.block_size.unwrap_or(if latent { 64 } else { 16 }).max(1),
        // Before 0.6.5 and in V1's first releases the budget paid for the CUDA context too.
        context_in_budget: !v(6, 5) || (!v0 && !v(10, 0)),
        v0,
        hybrid: v(10, 0),
        group_size_max: v(19, 1),
        graphs_in_budget: v(20, 0) && i.engine.cuda_graphs,
        tokens_from_concurrency: v(20, 0),
        in_flight: if v(26, 0) { 2 } else { 1 },
        sampler_bytes: if v0 {
            SAMPLER_BYTES_V0
        } else if v(17, 0) {
            SAMPLER_BYTES_FLASHINFER
        } else {
            SAMPLER_BYTES_V1
        },
    }
}

/// How many batch sizes CUDA graphs are captured for (`cudagraph_capture_sizes`' defaults).
fn capture_sizes(version: Release, v0: bool, seqs: u64, tokens: u64, blackwell: bool) -> u64 {
    let v = |a, b| version >= Release(0, a, b);
    let steps = |from: u64, to: u64, step: u64| if to < from { 0 } else { (to - from) / step + 1 };
    let small = |max: u64| (1..=3).filter(|i| (1u64 << (i - 1)) <= max).count() as u64;
    if v0 {
        // V0: 1, 2, 4, then every 8 up to max_num_seqs (at most 512).
        let max = seqs.min(512);
        return small(max) + steps(8, max, 8);
    }
    if !v(10, 0) {
        return 3 + steps(8, 512, 8);
    }
    let max = if v(14, 0) { (seqs * 2).min(if blackwell { 1024 } else { 512 }) } else { (seqs * 2).min(512) };
    let max = max.min(tokens.max(1));
    // From 0.11.1: every 8 up to 248, then every 16 (`vllm/config/vllm.py`).
    if v(11, 1) {
        small(max) + steps(8, max.min(248), 8) + steps(256, max, 16)
    } else {
        small(max) + steps(8, max, 8)
    }
}

/// A group of layers sharing a block table: `groups` groups of `group_size` layers of one kind.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GroupKind {
    kind: LayerKind,
    groups: u64,
    /// Tokens per block: the layout's, or more where this kind's layers cache fewer bytes per
    /// token than the largest kind's (vLLM's `unify_kv_cache_spec_page_size`: Gemma-4's
    /// full-attention layers hold 32 tokens per page against the sliding layers' 16).
    block_size: u64,
}

/// How vLLM lays the KV cache out: one block = `group_size` layers × a page of `block_size` tokens
/// (the fewest of any kind's).
#[derive(Clone, Debug, PartialEq)]
struct Layout {
    kinds: Vec<GroupKind>,
    group_size: u64,
    block_size: u64,
    page_bytes: f64,
    /// Per token and layer.
    token_bytes: f64,
    window: u64,
}

impl Layout {
    fn groups(&self) -> u64 {
        self.kinds.iter().map(|k| k.groups).sum()
    }

    fn bytes_per_block(&self) -> f64 {
        self.group_size as f64 * self.page_bytes
    }

    /// Blocks one request of `context` tokens takes (`get_max_concurrency_for_kv_cache_config`).
    #[inline(never)]
    fn blocks_per_request(&self, context: u64, r: &Rules) -> u64 {
        self.kinds.iter().map(|k| self.blocks_of(k, context, r)).fold(0, u64::saturating_add)
    }

    /// Blocks the groups of one kind take for one request of `context` tokens.
    fn blocks_of(&self, k: &GroupKind, context: u64, r: &Rules) -> u64 {
        let bs = k.block_size.max(1);
        let blocks = match k.kind {
            LayerKind::Sliding => {
                let keep = (self.window.saturating_sub(1))
                    .saturating_add(r.max_batched_tokens.saturating_mul(r.in_flight))
                    .min(context);
                keep.div_ceil(bs) + 1
            }
            LayerKind::Linear => 1,
            LayerKind::None => 0,
            LayerKind::Full | LayerKind::Chunked => context.div_ceil(bs),
        };
        blocks.saturating_mul(k.groups)
    }

    /// Blocks of a request that a common prefix of `share` of its `context` fills and prefix
    /// caching shares: the prefix's whole blocks in the full-attention groups (a sliding window
    /// and a recurrent state are each request's own).
    fn shared_blocks(&self, context: u64, share: f64) -> u64 {
        let prefix = (context as f64 * share).floor() as u64;
        self.kinds
            .iter()
            .filter(|k| matches!(k.kind, LayerKind::Full | LayerKind::Chunked))
            .map(|k| (prefix / k.block_size.max(1)).saturating_mul(k.groups))
            .fold(0, u64::saturating_add)
    }
}

/// `draft_layers`: a speculative drafter's attention layers, which join the full-attention ones;
/// `s`: the layers of one pipeline stage (the whole model without a pipeline).
fn layout(arch: &Architecture, i: &Inference, r: &Rules, draft_layers: u64, s: &Stage) -> Layout {
    let count = |k: LayerKind| s.cache_layers_of(arch, k);
    // Chunked local attention runs without the hybrid manager by default: every token is kept.
    // Before the hybrid manager, sliding-window layers were full-attention layers too.
    let full = count(LayerKind::Full)
        + count(LayerKind::Chunked)
        + if r.hybrid { 0 } else { count(LayerKind::Sliding) }
        + draft_layers;
    let mut present: Vec<(LayerKind, u64)> = vec![(LayerKind::Full, full)];
    if r.hybrid && count(LayerKind::Sliding) > 0 {
        present.push((LayerKind::Sliding, count(LayerKind::Sliding)));
    }
    if let (Some(_), n @ 1..) = (&arch.linear, count(LayerKind::Linear)) {
        present.push((LayerKind::Linear, n));
    }
    present.retain(|(_, n)| *n > 0);
    let min = present.iter().map(|(_, n)| *n).min().unwrap_or(1).max(1);
    let max = present.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
    let one_size = present.len() <= 1 || (r.group_size_max && (max as f64) < 1.5 * min as f64);
    let group_size = if one_size { max } else { min };
    // The page is the largest kind's block; a kind caching fewer bytes per token fills it with
    // more tokens (an integer multiple).
    // The page's build bills no model with a kind of its own shape (`Scenario::billed_on_demand`).
    let token_bytes = if PAGE {
        layer_token_bytes(arch, i, LayerKind::Sliding)
    } else {
        present
            .iter()
            .filter(|(k, _)| k.attends())
            .map(|(k, _)| layer_token_bytes(arch, i, *k))
            .fold(layer_token_bytes(arch, i, LayerKind::Sliding), f64::max)
    };
    let per_page = |kind: LayerKind| match kind {
        _ if PAGE || !kind.attends() => 1,
        _ => (token_bytes / layer_token_bytes(arch, i, kind).max(f64::MIN_POSITIVE)).floor().max(1.0) as u64,
    };
    let mut block_size = r.block_size;
    let mut page_bytes = block_size as f64 * token_bytes;
    if let (Some(lin), true) = (&arch.linear, present.iter().any(|(k, _)| *k == LayerKind::Linear)) {
        // A linear-attention layer's state per request (conv taps and recurrent state, model
        // dtype) is one page; attention blocks grow until their page is at least as large.
        let tp = i.tp.max(1) as f64;
        let state = ((lin.conv.saturating_sub(1) * lin.conv_dim()) as f64 + lin.state_elements() as f64) / tp * 2.0;
        if token_bytes > 0.0 {
            block_size = 16 * (state / (16.0 * token_bytes)).ceil().max(1.0) as u64;
        }
        page_bytes = (block_size as f64 * token_bytes).max(state);
    }
    let kinds = present
        .iter()
        .map(|&(kind, n)| GroupKind { kind, groups: n.div_ceil(group_size), block_size: block_size * per_page(kind) })
        .collect();
    Layout { kinds, group_size, block_size, page_bytes, token_bytes, window: arch.window }
}

/// vLLM pads MXFP4 expert matrices for its kernels: hidden to a multiple of 256, the expert's
/// intermediate size to 128 (gpt-oss: 2880 → 3072 and 2944).
fn mxfp4_padding(arch: &Architecture, i: &Inference) -> f64 {
    match mxfp4_experts(arch, i) {
        Some(m) => {
            let h = arch.hidden.div_ceil(256) * 256;
            let f = m.expert_ffn.div_ceil(128) * 128;
            (h as f64 / arch.hidden as f64) * (f as f64 / m.expert_ffn as f64)
        }
        None => 1.0,
    }
}

/// The experts, when the checkpoint stores them in MXFP4 (gpt-oss).
fn mxfp4_experts<'a>(arch: &'a Architecture, i: &Inference) -> Option<&'a MoeSpec> {
    let covers_experts = matches!(i.weights.layers, QuantLayers::Experts | QuantLayers::All);
    let m = arch.moe.as_ref()?;
    (i.weights.format == StorageFormat::Mxfp4 && covers_experts && arch.hidden > 0 && m.expert_ffn > 0).then_some(m)
}

/// From 0.12 the wheel bundles `triton_kernels`, and on Hopper MXFP4 experts load through Triton
/// (`mxfp4.py` "Using Triton backend"; before, a plain install loaded them through Marlin): the
/// experts keep the checkpoint's shapes, the original scales stay beside a swizzled copy whose
/// output rows are padded to 256 (`mxfp4_utils.py` `_swizzle_mxfp4`), and the biases become fp32.
/// gpt-oss-120b: 36 × 128 × (5,888 × 2,880 / 32 + 3,072 × 2,880 / 32) B = 3.46 GiB of scales and
/// 0.07 GiB of biases more than the checkpoint (0.14.1 on an H100 loaded 64.38 GiB). One GPU only.
fn triton_mxfp4_extra(p: &Plan, i: &Inference, r: &Rules) -> Option<f64> {
    let m = mxfp4_experts(p.arch, i)?;
    if r.version < Release(0, 12, 0) || !is_hopper(p) {
        return None;
    }
    let (h, f) = (p.arch.hidden, m.expert_ffn);
    let rows = |n: u64| n.div_ceil(256) * 256;
    let scales = (rows(2 * f) * h.div_ceil(32) + rows(h) * f.div_ceil(32)) as f64;
    let biases = if p.arch.out_and_mlp_bias { (2 * f + h) as f64 * 2.0 } else { 0.0 };
    Some((p.arch.moe_layers() * m.experts) as f64 * (scales + biases))
}

fn weights(p: &Plan, i: &Inference, r: &Rules, s: &Stage) -> Component {
    if !PAGE && grid::is_grid(i) {
        return grid_weights(p, i, s, mxfp4_padding(p.arch, i));
    }
    let triton = triton_mxfp4_extra(p, i, r);
    let pad = if triton.is_some() { 1.0 } else { mxfp4_padding(p.arch, i) };
    let w = stored_weights(p.arch, i.weights);
    let tower = skipped_tower(p, i);
    let mut bytes = w.bytes - tower;
    let mut padding = Msg::empty().arg();
    if let Some(extra) = triton {
        bytes += extra;
        padding = msg!(VllmMxfp4Triton, Arg::Bytes(extra)).arg();
    } else if pad > 1.0 {
        let m = p.arch.moe.as_ref().map_or(0, |m| m.expert_ffn);
        let experts: f64 = p
            .arch
            .linears()
            .iter()
            .filter(|l| l.group == crate::ledger::architecture::LinearGroup::Expert)
            .map(|l| l.total_parameters() as f64 * i.weights.format.bits_per_weight(false, l.d_in) / 8.0)
            .sum();
        bytes += experts * (pad - 1.0);
        padding = msg!(
            VllmMxfp4Padding,
            Arg::Int(p.arch.hidden.div_ceil(256) * 256),
            Arg::Int(m.div_ceil(128) * 128),
            Arg::Bytes(experts * (pad - 1.0))
        )
        .arg();
    }
    let tp = when(i.tp > 1, || msg!(TensorParallel, Arg::Int(i.tp)));
    // Latent attention's down-projections (q_a, kv_a) are replicated on every GPU, not split (the
    // page's rollout runs on one GPU).
    let replicated = match (&p.arch.mla, i.tp) {
        (Some(m), 2..) if !PAGE => {
            let per_layer = p.arch.hidden * (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim);
            let format = if i.weights.layers == QuantLayers::All { i.weights.format } else { StorageFormat::Bf16 };
            (per_layer * p.arch.layers) as f64 * format.bits_per_weight(i.weights.double_quant, p.arch.hidden) / 8.0
        }
        _ => 0.0,
    };
    let (rope, rope_text) = super::engine::rope_tables(p, Engine::Vllm);
    let (gemma4, rope_text) = gemma4_load(p, i, r, rope_text);
    let per_gpu = (bytes - replicated) / i.tp.max(1) as f64 + replicated + rope + gemma4;
    let formula = msg!(
        EngineWeights,
        w.formula.arg(),
        padding,
        tp,
        when(replicated > 0.0, || msg!(VllmMlaReplicated, Arg::Bytes(replicated))),
        when(tower > 0.0, || msg!(VllmNoTower, Arg::Bytes(tower))),
        rope_text
    );
    line(ComponentId::Weights, per_gpu, "§2", formula)
}

/// What vLLM loads for Gemma-4's E2B and E4B beyond the tensors they run with (vLLM 0.20–0.34
/// `gemma4.py` and `gemma4_mm.py`, read in the wheels; docs/research/serving/gemma-4-vllm-load.md): until 0.29 every layer builds its `QKVParallelLinear`, so the KV-shared
/// layers' k and v projections are loaded from the checkpoint though those layers read an earlier
/// layer's cache (PR #54917 skips them from 0.30); and the per-layer inputs get a 16-bit buffer of
/// `max_num_batched_tokens` × layers × width with the model, on every GPU. Returns one GPU's bytes
/// and the weights line's tail (the RoPE text first).
fn gemma4_load(p: &Plan, i: &Inference, r: &Rules, rope_text: Arg) -> (f64, Arg) {
    let arch = p.arch;
    if PAGE || (arch.kv_shared() == 0 && arch.per_layer_input == 0) {
        return (0.0, rope_text);
    }
    let bits = i.weights.format.bits_per_weight(i.weights.double_quant, arch.hidden) / 8.0;
    let kinds = [LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked];
    let (layers, projections) = if r.version < Release(0, 30, 0) {
        kinds.iter().fold((0, 0.0), |(n, bytes), &kind| {
            let shared = arch.shared_layers_of(kind);
            let k_is_v = kind == LayerKind::Full && arch.own_full_attention().is_some_and(|f| f.k_is_v);
            let elements = arch.kv_elements_of(kind, arch.heads_of(kind).0) / if k_is_v { 2 } else { 1 };
            (n + shared, bytes + (shared * arch.hidden) as f64 * elements as f64 * bits)
        })
    } else {
        (0, 0.0)
    };
    let buffer = (r.max_batched_tokens * arch.layers) as f64 * arch.per_layer_input as f64 * 2.0;
    let text = msg!(
        VllmGemma4Load,
        rope_text,
        when(projections > 0.0, || msg!(VllmKvSharedProjections, Arg::Int(layers), Arg::Bytes(projections))),
        when(buffer > 0.0, || msg!(
            VllmPerLayerInputs,
            Arg::Bytes(buffer),
            Arg::Count(r.max_batched_tokens),
            Arg::Int(arch.layers),
            Arg::Int(arch.per_layer_input)
        ))
    );
    (projections / i.tp.max(1) as f64 + buffer, text.arg())
}

/// The vision tower's 16-bit bytes when vLLM builds none (every multimodal limit 0, 0.10.1 on).
fn skipped_tower(p: &Plan, i: &Inference) -> f64 {
    let version = i.engine.version.unwrap_or(CURRENT);
    if !PAGE && encoder::vllm_skips_tower(p.arch, &i.engine, version) {
        p.arch.encoder_parameters() as f64 * 2.0
    } else {
        0.0
    }
}

/// One GPU's weights on a serving grid (serving::grid): its stage's layers, each part divided as
/// the grid divides it.
fn grid_weights(p: &Plan, i: &Inference, s: &Stage, pad: f64) -> Component {
    let split = grid::vllm_split(p.arch, i);
    let tower = if s.first { skipped_tower(p, i) / split.attention } else { 0.0 };
    let (rope, rope_text) = super::engine::rope_tables(p, Engine::Vllm);
    let bytes = grid::weight_bytes(p.arch, i, s, split, pad) - tower + rope;
    let formula = msg!(
        VllmGridWeights,
        Arg::Int(s.index),
        Arg::Int(i.pp),
        Arg::Int(s.layers.start),
        Arg::Int(s.layers.end.saturating_sub(1)),
        Arg::Int(i.tp),
        Arg::Factor(split.experts),
        when(i.ep > 1, || msg!(VllmGridWholeExperts)),
        Arg::Factor(split.shared),
        Arg::Code(i.weights.format.id()),
        rope_text
    );
    line(ComponentId::Weights, bytes, "§2", formula)
}

/// The bytes one token holds at the largest step of one layer when attention is skipped: the
/// residual, the normed hidden state and the MLP's output, beside its gate/up output and their
/// activation (routed and shared experts alike). With `dp` data-parallel ranks a MoE layer also
/// holds every rank's tokens, gathered in and out (`dp` − 1 more hidden states each way).
fn forward_token_bytes(arch: &Architecture, tp: u64, dp: u64) -> f64 {
    let tp = tp.max(1) as f64;
    let gathered = 2.0 * (dp.max(1) - 1) as f64 * arch.hidden as f64;
    let h = arch.hidden as f64;
    let act = 2.0;
    arch.layer_classes()
        .iter()
        .map(|c| {
            let mlp = match (&arch.moe, c.moe) {
                (Some(m), true) => {
                    3.0 * (m.active * m.expert_ffn) as f64 / tp
                        + 3.0 * (m.shared * m.shared_ffn) as f64 / tp
                        + 2.0 * m.experts as f64
                        + gathered
                }
                _ => 3.0 * arch.dense_ffn_of(c) as f64 / tp,
            };
            let mixer = match (c.attention, &arch.linear) {
                (LayerKind::Linear, Some(l)) => 2.0 * (l.conv_dim() + l.v_heads * l.head_dim) as f64 / tp,
                _ => (2.0 * arch.q_dim() as f64 + 2.0 * arch.kv_dim() as f64) / tp,
            };
            act * (3.0 * h + mlp.max(mixer))
        })
        .fold(0.0, f64::max)
}

/// `s`: the stage profiled; the sampler warms up on the last one only. A VLM's first stage
/// profiles its vision encoder first (`encoder::vllm_profile`): the peak is the larger of the
/// encoder's own moment and the language model's, with the encoder's outputs (and inputs) held.
fn profile_peak(p: &Plan, i: &Inference, r: &Rules, s: &Stage) -> Component {
    let tokens = r.max_batched_tokens;
    let reqs = if s.last { tokens.min(r.max_num_seqs) } else { 0 };
    let forward = tokens as f64 * forward_token_bytes(p.arch, i.tp, i.dp);
    let per_logit = 2.0 + r.sampler_bytes;
    let sampler = reqs as f64 * p.arch.vocab as f64 * per_logit + tokens as f64 * p.arch.hidden as f64 * 2.0;
    // The MoE kernel's kept workspace is still held when the sampler warms up.
    let workspace = moe_workspace(p, i, r);
    let language = forward.max(sampler + workspace);
    // The page bills no served VLM (`Scenario::billed_on_demand`): the profile is the worker's.
    let profile = (s.first && !PAGE)
        .then(|| encoder::vllm_profile(p.arch, &i.engine, (r.version, r.v0), (r.max_num_seqs, tokens, r.context)))
        .flatten();
    let peak = profile.map_or(language, |e| e.encoder_peak().max(e.held() + language));
    let formula = msg!(
        VllmProfile,
        Arg::Count(tokens),
        Arg::Bytes(forward),
        Arg::Count(reqs),
        Arg::Count(p.arch.vocab),
        Arg::Factor(per_logit),
        Arg::Bytes(sampler),
        when(workspace > 0.0, || msg!(VllmMoeWorkspace, Arg::Bytes(workspace))),
        profile.map_or_else(|| Msg::empty().arg(), |e| encoder_text(&e))
    );
    line(ComponentId::Activations, peak, "§2", formula)
}

/// The encoder profile's words: what it encoded, its moment, and what stays held.
fn encoder_text(e: &encoder::EncoderProfile) -> Arg {
    msg!(
        VllmEncoderProfile,
        Arg::Int(e.items),
        if e.item.video { msg!(ModalityVideo) } else { msg!(ModalityImage) }.arg(),
        Arg::Count(e.item.tokens),
        Arg::Count(e.items.saturating_mul(e.item.patches)),
        Arg::Bytes(e.encoder_peak()),
        Arg::Bytes(e.inputs),
        when(e.mask > 0.0, || msg!(VllmEncoderMask, Arg::Bytes(e.mask))),
        Arg::Count(e.output_rows),
        Arg::Bytes(e.outputs),
        Arg::Bytes(e.held())
    )
    .arg()
}

/// The fused-MoE workspace vLLM keeps between calls for block-FP8 experts (its `WorkspaceManager`,
/// 0.14 on), sized for `max_num_batched_tokens` tokens in the profile run; read in 0.14–0.34
/// (docs/research/serving/fp8-moe-vllm-0.14-0.34.md). On Hopper under tensor parallel: Triton's
/// two buffers, 2 B × M·k × (max(N/2, H) + max(N, H)) with N = 2·expert_ffn / tp, in 0.14 (pip;
/// the Docker image's DeepGEMM keeps slightly more) and from 0.18; FlashInfer's CUTLASS kernel in
/// 0.15–0.17, 2 B × M × H. Blackwell runs FlashInfer's TRTLLM kernel, which keeps none; other cards
/// run the experts through Marlin, not read.
fn moe_workspace(p: &Plan, i: &Inference, r: &Rules) -> f64 {
    let Some(moe) = &p.arch.moe else { return 0.0 };
    let hopper = is_hopper(p);
    if i.weights.format != StorageFormat::Fp8Block || r.version < Release(0, 14, 0) || !hopper {
        return 0.0;
    }
    // MoE chunking capped a call at 16,384 tokens up to 0.15.
    let cap = if r.version < Release(0, 16, 0) { 16_384 } else { u64::MAX };
    // Every data-parallel rank's tokens reach the MoE layer; its experts are whole under expert
    // parallel, split over tp × dp without it.
    let m = (r.max_batched_tokens * i.dp.max(1)).min(cap) as f64;
    let h = p.arch.hidden as f64;
    if r.version >= Release(0, 15, 0) && r.version < Release(0, 18, 0) {
        return 2.0 * m * h;
    }
    let moe_tp = if i.ep > 1 { 1 } else { (i.tp * i.dp).max(1) };
    let n = 2.0 * moe.expert_ffn as f64 / moe_tp as f64;
    2.0 * m * moe.active as f64 * ((n / 2.0).max(h) + n.max(h))
}

fn non_torch(p: &Plan, i: &Inference, r: &Rules) -> Component {
    let base = NON_TORCH_GIB * GIB;
    // On a grid, NCCL's buffers for each process group of more than one GPU (the first with NVLS).
    let groups = grid::is_grid(i).then(|| grid::process_groups(i));
    let nccl = match groups {
        None => p.nccl_bytes(i.tp),
        Some(0) => 0.0,
        Some(g) => p.nccl_bytes(2) + (g - 1) as f64 * crate::ledger::plan::NCCL_GIB * GIB,
    };
    let context = if r.context_in_budget { p.overhead_mib * MIB } else { 0.0 };
    let formula = msg!(
        EngineNonTorch,
        Arg::Bytes(base),
        when(nccl > 0.0, || match groups {
            Some(g) => msg!(NcclGroups, Arg::Bytes(nccl), Arg::Int(g)),
            None => msg!(NcclBuffers, Arg::Bytes(nccl), Arg::Int(i.tp)),
        }),
        when(context > 0.0, || msg!(VllmContextInBudget, Arg::Bytes(context)))
    );
    line(ComponentId::NonTorch, base + nccl + context, "§2", formula)
}

/// `draft_layers`: a speculative drafter's layers, captured with the model's; `layers`: the stage's.
fn graphs(p: &Plan, r: &Rules, i: &Inference, draft_layers: u64, layers: u64) -> Component {
    let (layers, per) = if !r.v0 {
        (layers + draft_layers, GRAPH_MIB_PER_SIZE_LAYER_V1)
    } else {
        (1, GRAPH_MIB_PER_SIZE_SQRT_HIDDEN_V0 * (p.arch.hidden as f64).sqrt())
    };
    let bytes = if i.engine.cuda_graphs { (r.graph_sizes * layers) as f64 * per * MIB } else { 0.0 };
    let formula = if !i.engine.cuda_graphs {
        msg!(GraphsOff)
    } else if r.graphs_in_budget {
        msg!(VllmGraphsInBudget, Arg::Int(r.graph_sizes), Arg::Int(layers), Arg::Factor(per), Arg::Bytes(bytes))
    } else {
        msg!(VllmGraphsOutside, Arg::Int(r.graph_sizes), Arg::Int(layers), Arg::Factor(per), Arg::Bytes(bytes))
    };
    line(ComponentId::CudaGraphs, bytes, "§2", formula)
}

fn layout_text(l: &Layout, arch: &Architecture) -> Arg {
    if l.groups() <= 1 {
        return msg!(VllmUniformBlock, Arg::Int(l.group_size), Arg::Int(l.block_size), Arg::Factor(l.token_bytes))
            .arg();
    }
    let parts = l
        .kinds
        .iter()
        .map(|k| {
            let class = crate::ledger::architecture::LayerClass {
                attention: k.kind,
                moe: false,
                mlp: true,
                kv_shared: false,
                count: 0,
            };
            let own = when(!PAGE && k.block_size != l.block_size, || msg!(VllmGroupBlock, Arg::Int(k.block_size)));
            msg!(VllmGroupPart, Arg::Int(k.groups), layer_class_name(class).arg(), own)
        })
        .collect();
    let _ = arch;
    msg!(VllmHybridBlock, Arg::List(parts), Arg::Int(l.group_size), Arg::Int(l.block_size), Arg::Bytes(l.page_bytes))
        .arg()
}

/// The KV pool as vLLM cuts it into blocks, and what a request needs of it.
struct Pool<'a> {
    layout: Layout,
    rules: &'a Rules,
    /// What the budget leaves for the pool (negative when nothing is left).
    available: f64,
    blocks: u64,
    per_block: f64,
}

impl Pool<'_> {
    /// Blocks one request of `tokens` takes.
    fn per_request(&self, tokens: u64) -> u64 {
        self.layout.blocks_per_request(tokens, self.rules).max(1)
    }

    /// Whether vLLM starts (`free` on the card against its `budget`), and whether `requests` of
    /// `context` tokens run at once.
    /// `concurrency`: requests of `context` that fit at once (with a shared prefix held once).
    fn status(&self, free: f64, budget: f64, context: u64, requests: u64, concurrency: f64) -> ServingStatus {
        let r = self.rules;
        if !r.context_in_budget && r.version >= Release(0, 10, 0) && free < budget {
            ServingStatus::NotEnoughFree { free_bytes: free as u64, requested_bytes: budget as u64 }
        } else if self.available <= 0.0 || self.blocks == 0 {
            ServingStatus::NoKvMemory { available: self.available as i64 }
        } else if self.per_request(context) > self.blocks {
            ServingStatus::ContextTooLong {
                needed_bytes: (self.per_request(context) as f64 * self.per_block) as u64,
                available_bytes: self.available as u64,
                longest: largest(MAX_CONTEXT, &|l| self.per_request(l) <= self.blocks),
            }
        } else if (concurrency.floor() as u64) < requests {
            ServingStatus::Queues { concurrent: concurrency.floor() as u64 }
        } else {
            ServingStatus::Serves
        }
    }

    /// The KV tokens vLLM reports for the pool.
    fn tokens(&self, context: u64) -> u64 {
        let concurrency = self.blocks as f64 / self.per_request(context) as f64;
        if self.rules.tokens_from_concurrency {
            (concurrency * context as f64).floor() as u64
        } else if self.layout.groups() > 1 && self.rules.hybrid {
            self.blocks / self.layout.groups() * self.layout.block_size
        } else {
            self.blocks.saturating_mul(self.layout.block_size)
        }
    }
}

/// The pools of the plan: one per kind of layer group, each its share of the blocks a request of
/// `context` tokens takes (vLLM's groups draw their blocks from one pool).
fn pools(pool: &Pool, context: u64, tokens: u64, concurrency: f64) -> Vec<KvPool> {
    let per_request = pool.per_request(context) as f64;
    let bytes = pool.blocks as f64 * pool.per_block;
    let r = pool.rules;
    let mut out: Vec<KvPool> = Vec::new();
    for k in &pool.layout.kinds {
        let kind = match k.kind {
            LayerKind::Sliding => PoolKind::Swa,
            LayerKind::Linear => PoolKind::State,
            LayerKind::None => continue,
            LayerKind::Full | LayerKind::Chunked => PoolKind::Full,
        };
        let share = pool.layout.blocks_of(k, context, r) as f64 / per_request;
        let held = match kind {
            PoolKind::Full => tokens,
            PoolKind::Swa => (share * pool.blocks as f64 * k.block_size as f64 / k.groups.max(1) as f64) as u64,
            PoolKind::State => concurrency.floor() as u64,
        };
        match out.iter_mut().find(|p| p.kind == kind) {
            Some(p) => p.bytes += (share * bytes) as u64,
            None => out.push(KvPool { kind, bytes: (share * bytes) as u64, tokens: held }),
        }
    }
    out
}

/// Requests of `context` that fit at once when `share` of each is one common prefix, and the
/// longest context `requests` can each have then.
fn with_prefix(pool: &Pool, context: u64, requests: u64, share: f64) -> (f64, u64) {
    let need = |l: u64, n: u64| {
        let shared = pool.layout.shared_blocks(l, share);
        shared.saturating_add(n.saturating_mul(pool.per_request(l).saturating_sub(shared).max(1)))
    };
    let shared = pool.layout.shared_blocks(context, share);
    let own = pool.per_request(context).saturating_sub(shared).max(1);
    let concurrency = pool.blocks.saturating_sub(shared) as f64 / own as f64;
    (concurrency, largest(MAX_CONTEXT, &|l| need(l, requests) <= pool.blocks))
}

/// What one pipeline stage's GPU (the whole model without a pipeline) holds before its KV pool,
/// and the blocks that leaves.
struct StagePlan {
    stage: Stage,
    w: Component,
    /// The drafter's and the LoRA slots' bytes beside the stage's weights.
    extra: f64,
    act: Component,
    nt: Component,
    g: Component,
    layout: Layout,
    /// What the budget leaves for the pool (`--kv-cache-memory` when given), and what the profile
    /// alone leaves.
    available: f64,
    profiled: f64,
    /// Bytes of one block of every layer group, and the blocks `available` holds.
    per_block: f64,
    blocks: u64,
}

/// The CUDA context the card holds beside the budget (before 0.6.5 and in 0.8–0.9 the budget
/// paid for it, so it is not on top).
fn context_bytes(p: &Plan, r: &Rules) -> f64 {
    if r.context_in_budget {
        0.0
    } else {
        p.overhead_mib * MIB
    }
}

/// `draft_layers`: a drafter's attention layers on this stage; `extra_weights`: its weights' and
/// the LoRA slots' bytes beside the stage's.
fn stage_plan(
    p: &Plan,
    i: &Inference,
    r: &Rules,
    s: Stage,
    budget: f64,
    draft_layers: u64,
    extra_weights: f64,
) -> StagePlan {
    let w = weights(p, i, r, &s);
    let act = profile_peak(p, i, r, &s);
    let nt = non_torch(p, i, r);
    let g = graphs(p, r, i, draft_layers, s.count());
    let in_budget_graphs = if r.graphs_in_budget { g.bytes as f64 } else { 0.0 };
    let profiled = budget - w.bytes as f64 - extra_weights - act.bytes as f64 - nt.bytes as f64 - in_budget_graphs;
    // `--kv-cache-memory` replaces what the profile leaves (gpu_worker.py::determine_available_memory).
    let available = i.engine.kv_cache_memory.map_or(profiled, |b| b as f64);
    let layout = layout(p.arch, i, r, draft_layers, &s);
    let per_block = layout.bytes_per_block().max(1.0);
    let blocks = if available > 0.0 { (available / per_block).floor() as u64 } else { 0 };
    StagePlan { stage: s, w, extra: extra_weights, act, nt, g, layout, available, profiled, per_block, blocks }
}

/// A served grid's stages: the one billed (`stage`, or the one with the fewest blocks, which the
/// engine takes for every stage: kv_cache_utils.py::unify_kv_cache_configs), those blocks, the
/// `parallel` summary of every stage's GPU, and the least memory any stage leaves for its pool.
/// A speculative drafter (`draft`: its KV layers and weights) is on the last stage only
/// (gpu_model_runner.py: `if self.speculative_config and get_pp_group().is_last_rank`, 0.10.1.1
/// :186 … 0.33.0 :598); each stage holds the LoRA slots of its own modules.
fn grid_stages(
    p: &Plan,
    i: &Inference,
    r: &Rules,
    budget: f64,
    draft: (u64, f64),
) -> (StagePlan, u64, Option<ParallelSummary>, f64) {
    let mut plans: Vec<StagePlan> = (0..i.pp.max(1))
        .map(|q| {
            let s = Stage::of(p.arch, i.pp, q);
            let (draft_layers, draft_bytes) = if s.last { draft } else { (0, 0.0) };
            let lora = stage_adapters(p, i, r, &s).map_or(0.0, |a| a.gpu_bytes);
            stage_plan(p, i, r, s, budget, draft_layers, draft_bytes + lora)
        })
        .collect();
    let blocks = plans.iter().map(|x| x.blocks).min().unwrap_or(0);
    let binding = plans.iter().position(|x| x.blocks == blocks).unwrap_or(0);
    let billed = grid::billed(i, binding, plans.len());
    let context = context_bytes(p, r);
    let ranks: Vec<RankSummary> = plans
        .iter()
        .map(|x| {
            let (kv, extra) = (blocks as f64 * x.per_block, x.extra);
            let lines: f64 = [&x.w, &x.act, &x.nt, &x.g].iter().map(|c| c.bytes as f64).sum();
            RankSummary {
                stage: x.stage.index,
                layers: x.stage.count(),
                weights_bytes: x.w.bytes,
                activations_bytes: x.act.bytes,
                allocated_bytes: (x.w.bytes as f64 + x.act.bytes as f64 + extra + kv) as u64,
                device_bytes: (lines + extra + kv + context) as u64,
            }
        })
        .collect();
    let summary = grid::summary(i, binding as u64, billed as u64, ranks);
    let least = plans.iter().map(|x| x.available).fold(f64::INFINITY, f64::min);
    (plans.swap_remove(billed), blocks, Some(summary), least)
}

/// 0.15–0.17 check a request of the context (and auto-fit it) against the whole model's layers in
/// the least memory any stage has (`get_kv_cache_configs`' merged groups, read in 0.15.0; 0.13 checks
/// each worker's own layers and 0.18 projects the groups on each worker again): with a pipeline the
/// engine refuses contexts its stages could hold (vLLM issue #32105).
fn whole_model_check<'a>(p: &Plan, i: &Inference, r: &'a Rules, draft_layers: u64, least: f64) -> Option<Pool<'a>> {
    if PAGE || !grid::is_grid(i) || i.pp <= 1 || r.version < Release(0, 15, 0) || r.version >= Release(0, 18, 0) {
        return None;
    }
    let layout = layout(p.arch, i, r, draft_layers, &Stage::whole(p.arch));
    let per_block = layout.bytes_per_block().max(1.0);
    let blocks = if least > 0.0 { (least / per_block).floor() as u64 } else { 0 };
    Some(Pool { layout, rules: r, available: least, blocks, per_block })
}

/// The stage the bill is of, and what it holds beside its weights.
struct Billed {
    plan: StagePlan,
    /// The pool's blocks (on a grid, the fewest of any stage), the grid's summary, and the least
    /// memory any stage leaves for its pool.
    blocks: u64,
    parallel: Option<ParallelSummary>,
    least: f64,
    /// The drafter (the last stage's) and the LoRA slots of the stage's modules.
    draft: Option<speculative::Drafter>,
    adapters: Option<lora::LoraSlots>,
}

/// The whole model on one stage, or a served grid's billed stage ([`grid_stages`]).
fn billed_stage(p: &Plan, i: &Inference, r: &Rules, budget: f64, draft: Option<speculative::Drafter>) -> Billed {
    let draft_layers = draft.as_ref().map_or(0, |d| d.kv_layers);
    let draft_bytes = draft.as_ref().map_or(0.0, |d| d.weights_bytes);
    if PAGE || !grid::is_grid(i) {
        let adapters = if PAGE { None } else { lora::slots(p.arch, i, Some(r.version)) };
        let lora = adapters.as_ref().map_or(0.0, |a| a.gpu_bytes);
        let plan = stage_plan(p, i, r, Stage::whole(p.arch), budget, draft_layers, draft_bytes + lora);
        let (blocks, least) = (plan.blocks, plan.available);
        return Billed { plan, blocks, parallel: None, least, draft, adapters };
    }
    let (plan, blocks, parallel, least) = grid_stages(p, i, r, budget, (draft_layers, draft_bytes));
    let adapters = stage_adapters(p, i, r, &plan.stage);
    let draft = draft.filter(|_| plan.stage.last);
    Billed { plan, blocks, parallel, least, draft, adapters }
}

/// The LoRA slots of a served grid's stage `s`: those of the modules it builds.
fn stage_adapters(p: &Plan, i: &Inference, r: &Rules, s: &Stage) -> Option<lora::LoraSlots> {
    lora::vllm_stage_slots(p.arch, i, r.version, s.layers.clone(), (s.first, s.last))
}

/// vLLM's bill of `p`: `model_context` is the context asked for (`max_model_len=auto`: the
/// model's own, which the pool may lower, [`auto_fit`]). A drafter is the last stage's (the whole
/// model's one without a grid).
pub fn bill(p: &Plan, i: &Inference) -> EngineBill {
    let model_context = context_tokens(p, i);
    let r = rules(p, i, model_context);
    let total = p.gpu.torch_bytes as f64;
    let budget = (total * r.util).ceil();
    let draft = if PAGE {
        None
    } else {
        speculative::drafter(p, i, layer_token_bytes(p.arch, i, LayerKind::Sliding), kv_bytes(i.kv))
    };
    let draft_layers = draft.as_ref().map_or(0, |d| d.kv_layers);
    let Billed { plan, blocks, parallel, least, draft, adapters } = billed_stage(p, i, &r, budget, draft);
    let context_bytes = context_bytes(p, &r);
    let draft_bytes = draft.as_ref().map_or(0.0, |d| d.weights_bytes);
    let lora_bytes = adapters.as_ref().map_or(0.0, |a| a.gpu_bytes);
    let StagePlan { w, act, nt, g, layout, available, profiled, per_block, .. } = plan;
    let pool = Pool { layout, rules: &r, available, blocks, per_block };
    let whole_check = whole_model_check(p, i, &r, draft_layers, least);
    let checked = whole_check.as_ref().unwrap_or(&pool);
    let context = auto_fit(checked, i, model_context).unwrap_or(model_context);
    let concurrency = blocks as f64 / pool.per_request(context) as f64;
    let tokens = pool.tokens(context);
    let requests = p.batch.max(1);
    let (effective, _) = with_prefix(&pool, context, requests, i.engine.prefix_share);
    // The longest context the engine accepts: what its check allows (`whole_model_check`).
    let (_, max_context) = with_prefix(checked, context, requests, i.engine.prefix_share);
    let free = (total - p.overhead_mib * MIB).max(0.0);
    let kv_formula = msg!(
        VllmKvPool,
        Arg::Fixed(r.util, 2),
        Arg::Bytes(total),
        Arg::Bytes(budget),
        Arg::Count(blocks),
        layout_text(&pool.layout, p.arch),
        Arg::Count(tokens)
    );
    let kv = line(ComponentId::KvCache, blocks as f64 * per_block, "§2", kv_formula);
    let context_line =
        line(ComponentId::CudaContext, context_bytes, "§3", msg!(EngineContext, Arg::Factor(p.overhead_mib)));
    let serving = Serving {
        engine: Engine::Vllm,
        version: r.version,
        budget_bytes: budget as u64,
        weights_bytes: (w.bytes as f64 + draft_bytes + lora_bytes) as u64,
        non_torch_bytes: nt.bytes,
        activation_peak_bytes: act.bytes,
        cuda_graph_bytes: g.bytes,
        kv_pool_bytes: if available > 0.0 { available as u64 } else { 0 },
        kv_tokens: tokens,
        kv_blocks: Some(blocks),
        max_concurrency: concurrency,
        max_context,
        host_bytes: adapters.as_ref().map_or(0, |a| a.host_bytes as u64),
        context_tokens: context,
        requests,
        share: r.util,
        status: checked.status(free, budget, context, requests, effective),
        pool_list: pool_list(&pools(&pool, context, tokens, concurrency)),
        effective_concurrency: effective,
        kv_cache_memory_bytes: if profiled > 0.0 { profiled as u64 } else { 0 },
        draft_bytes: draft_bytes as u64,
        lora_bytes: lora_bytes as u64,
    };
    let mut lines = vec![w];
    if let Some(d) = draft {
        lines.push(line(ComponentId::DraftModel, d.weights_bytes, "§2", d.formula));
    }
    if let Some(a) = adapters {
        lines.push(line(ComponentId::AdapterWeights, a.gpu_bytes, "§2", a.formula));
    }
    lines.extend([act, nt, g, kv, context_line]);
    let stage_tokens = whole_check.and((pool.per_request(context) <= blocks).then(|| pool.tokens(context)));
    let notes = notes(&serving, p, i, &r, model_context, stage_tokens);
    EngineBill { lines, serving, notes, parallel }
}

/// The engine's summary, then its add-ons' notes and `max_model_len=auto`'s.
/// `stage_tokens`: what each stage's own pool holds of a context that 0.15–0.17's whole-model
/// check refuses (`whole_model_check`).
fn notes(s: &Serving, p: &Plan, i: &Inference, r: &Rules, model_context: u64, stage_tokens: Option<u64>) -> Vec<Note> {
    // The page's vLLM is an RL rollout's, whose bill shows the trainer's notes, not the engine's.
    if PAGE {
        return Vec::new();
    }
    let mut notes = vec![Note { key: "engine", text: summary(s, r) }];
    notes.extend(addon_notes(s, i, p.gpu.torch_bytes as f64, r.util));
    notes.extend(auto_note(p, i, r, s.context_tokens, model_context));
    if let (Some(tokens), false) = (stage_tokens, s.status.starts()) {
        let text = msg!(NotePipelineCheck, Arg::Text(r.version.to_string()), Arg::Count(tokens));
        notes.push(Note { key: "pipeline_check", text });
    }
    notes
}

/// `--max-model-len auto` (0.14 on, kv_cache_utils.py::_auto_fit_max_model_len): the model's
/// context when one request of it fits the pool, else the longest that does; `None` when the key
/// is not set, the release has no auto-fit, or not one token fits.
fn auto_fit(pool: &Pool, i: &Inference, model_context: u64) -> Option<u64> {
    let applies = i.engine.max_model_len_auto && pool.rules.version >= AUTO_FIT_FROM;
    applies.then(|| largest(model_context, &|l| pool.per_request(l) <= pool.blocks)).filter(|&fit| fit > 0)
}

/// What `max_model_len=auto` did: the context it fitted, the model's own taken by a release
/// without auto-fit, or a model whose own context is not known.
fn auto_note(p: &Plan, i: &Inference, r: &Rules, context: u64, model_context: u64) -> Option<Note> {
    if !i.engine.max_model_len_auto {
        return None;
    }
    let text = if p.arch.max_context == 0 {
        msg!(NoteAutoNoContext, Arg::Count(model_context))
    } else if r.version >= AUTO_FIT_FROM {
        msg!(NoteAutoFit, Arg::Count(context), Arg::Count(model_context))
    } else {
        msg!(NoteAutoFitRelease, Arg::Text(r.version.to_string()), Arg::Count(context))
    };
    Some(Note { key: "max_model_len", text })
}

/// The notes of the engine's add-ons: a shared prefix, a KV pool given by size.
fn addon_notes(s: &Serving, i: &Inference, total: f64, util: f64) -> Vec<Note> {
    let mut notes = Vec::new();
    if i.engine.prefix_share > 0.0 {
        notes.push(super::engine::prefix_note(s, i.engine.prefix_share));
    }
    if let Some(b) = i.engine.kv_cache_memory {
        notes.push(Note {
            key: "kv_cache_memory",
            text: msg!(NoteKvCacheMemory, Arg::Bytes(b as f64), Arg::Fixed(util, 2), Arg::Bytes(total)),
        });
    }
    notes
}

fn summary(s: &Serving, r: &Rules) -> Msg {
    msg!(
        VllmSummary,
        Arg::Text(r.version.to_string()),
        Arg::Count(r.max_batched_tokens),
        Arg::Count(r.max_num_seqs),
        Arg::Count(s.kv_tokens),
        Arg::Count(s.context_tokens),
        Arg::Fixed(s.max_concurrency, 2),
        Arg::Int(s.requests),
        Arg::Count(s.max_context)
    )
}
