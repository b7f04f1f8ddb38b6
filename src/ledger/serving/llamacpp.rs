//! llama.cpp (and Ollama, which runs llama-server): it allocates exactly what it is asked for —
//! the layers it offloads, a KV cache of `n_ctx` cells for the slots, a compute buffer — and fails
//! when the card cannot hold it. `gpu_layers` (`-ngl`) puts the last layers and the output layer
//! on the GPU; the token embedding, the other layers and their KV stay in host RAM. Read from
//! llama.cpp 0c1e57098 (`src/llama-context.cpp`, `llama-kv-cache.cpp`, `llama-kv-cache-iswa.cpp`,
//! `llama-model.cpp`).

use super::engine::{context_tokens, largest, EngineBill};
use crate::ledger::architecture::{Architecture, LayerKind};
use crate::ledger::bill::{line, Component, ComponentId, KvPool, Note, PoolKind, Serving, ServingStatus};
use crate::ledger::msg::{when, Arg};
use crate::ledger::plan::{Inference, Plan};
use crate::ledger::scenario::{AttentionKernel, Engine, Release, SpecMethod, MAX_CONTEXT, MIB};
use crate::ledger::storage::KvDtype;
use crate::ledger::weights::stored_weights;
use crate::msg;

/// `n_ubatch`'s default.
const UBATCH: u64 = 512;

/// The build from which contexts and sliding-window caches pad to 256 cells (PR #17046; 32 before).
pub const PAD_256_FROM: Release = Release(0, 0, 7000);

/// The build from which latent attention caches the latent only (PR #12801, April 2025); before,
/// DeepSeek's K (heads × (nope + rope)) and V (heads × v_head_dim) were cached in full.
pub const MLA_CACHE_FROM: Release = Release(0, 0, 5140);

/// Cells padded up to a multiple of `pad`.
fn padded(x: u64, pad: u64) -> u64 {
    x.div_ceil(pad).saturating_mul(pad)
}

/// Bytes per cached element: f16, or q8_0 / q4_0 blocks (llama.cpp has no fp8 cache: f16).
fn kv_bytes(kv: KvDtype) -> f64 {
    match kv {
        KvDtype::Int8 | KvDtype::Int4 => kv.bits() / 8.0,
        KvDtype::Bf16 | KvDtype::Fp16 | KvDtype::Fp8 => 2.0,
    }
}

/// Where the memory of one configuration goes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Split {
    gpu_weights: f64,
    host_weights: f64,
    gpu_kv: f64,
    host_kv: f64,
    compute: f64,
    /// Cells of the full-attention cache.
    cells: u64,
    /// Cells per slot of a sliding-window cache.
    swa_cells: u64,
    /// The caches' bytes by buffer, on the GPU and the host together: the full-attention cache
    /// (`llama_kv_cache`), the sliding-window one (iSWA's second cache) and the recurrent states
    /// (`llama_memory_recurrent`'s RS buffer).
    pools: [f64; 3],
    gpu_layers: u64,
}

impl Split {
    fn gpu_total(&self, context: f64) -> f64 {
        self.gpu_weights + self.gpu_kv + self.compute + context
    }
}

/// The weights' part of every configuration, computed once: the token embedding (host RAM), the
/// output layer, and one repeating layer (the stored bytes spread over the layers).
struct Stored {
    embedding: f64,
    /// The output layer (tied or not: llama.cpp duplicates a tied embedding for it).
    output: f64,
    /// The output layer as stored in the file (0 when tied to the embedding).
    head_stored: f64,
    layer: f64,
}

impl Stored {
    fn of(arch: &Architecture, i: &Inference) -> Stored {
        let stored = stored_weights(arch, i.weights).bytes - arch.encoder_parameters() as f64 * 2.0;
        let params = (arch.parameters() - arch.encoder_parameters()).max(1) as f64;
        let per_param = stored / params;
        let embedding = arch.embedding_parameters() as f64 * per_param;
        let output = (arch.vocab * arch.hidden) as f64 * per_param;
        let head_stored = if arch.tied_embeddings { 0.0 } else { output };
        let layer = (stored - embedding - head_stored).max(0.0) / arch.layers.max(1) as f64;
        Stored { embedding, output, head_stored, layer }
    }
}

/// One cell's bytes in a layer of attention kind `kind`: its K row and V row (latent attention's
/// latent, or before April 2025 its full K and V). Without flash attention llama.cpp keeps V
/// transposed and every layer's V row as wide as the widest layer's (`n_embd_v_gqa_max`: Gemma-4's
/// sliding layers then hold the full-attention layers' width, or these the sliding layers').
fn cell_bytes(arch: &Architecture, i: &Inference, kernel: AttentionKernel, kind: LayerKind) -> f64 {
    let b = kv_bytes(i.kv);
    let row = |kind: LayerKind| {
        let (heads, dim) = arch.heads_of(kind);
        heads.saturating_mul(dim)
    };
    let v_row =
        if kernel == AttentionKernel::Flash { row(kind) } else { row(LayerKind::Full).max(row(LayerKind::Sliding)) };
    match &arch.mla {
        Some(m) if i.engine.version.is_some_and(|v| v < MLA_CACHE_FROM) => {
            m.decompressed_per_token(arch.heads) as f64 * b
        }
        Some(_) => arch.kv_elements_per_layer(arch.kv_heads) as f64 * b,
        None => row(kind).saturating_add(v_row) as f64 * b,
    }
}

/// The configuration of `slots` slots of `per_slot` tokens.
fn split(arch: &Architecture, i: &Inference, w: &Stored, slots: u64, per_slot: u64, kernel: AttentionKernel) -> Split {
    let pad = if i.engine.version.is_none_or(|v| v >= PAD_256_FROM) { 256 } else { 32 };
    let pad256 = |x| padded(x, pad);
    let n = arch.layers;
    let ngl = i.engine.gpu_layers.unwrap_or(n + 1).min(n + 1);
    let output_on_gpu = ngl >= 1;
    let layers_on_gpu = ngl.saturating_sub(1).min(n);
    let first_on_gpu = n - layers_on_gpu;
    let (embedding, output, head_stored, layer_bytes) = (w.embedding, w.output, w.head_stored, w.layer);
    let ubatch = i.engine.max_batched_tokens.unwrap_or(UBATCH).min(pad256(per_slot)).max(1);
    let ctx_seq = pad256(per_slot);
    let cell_of = |kind: LayerKind| cell_bytes(arch, i, kernel, kind);
    let (mut gpu_kv, mut host_kv, mut swa_cells, mut pools) = (0.0, 0.0, 0, [0.0; 3]);
    for kind in [LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked, LayerKind::Linear] {
        // Layers of this kind with a cache of their own, and how many of them are among the last
        // `layers_on_gpu` (Gemma-4 E2B's and E4B's KV-shared last layers keep none).
        let total = arch.cache_layers_of(kind);
        if total == 0 {
            continue;
        }
        let own = n - arch.kv_shared();
        let on_gpu = (first_on_gpu..own).filter(|&l| arch.layer_pattern.kind_of(l) == kind).count() as u64;
        let per_layer = match (kind, &arch.linear) {
            (LayerKind::Linear, Some(l)) => {
                ((l.state_elements() + l.conv_dim() * l.conv.saturating_sub(1)) as f64 * 4.0) * slots as f64
            }
            (LayerKind::Linear | LayerKind::None, _) => 0.0,
            // Gemma-4's full-attention layers cache their own heads (`n_embd_k_gqa` per layer).
            (LayerKind::Full, _) => ctx_seq as f64 * cell_of(kind) * slots as f64,
            (LayerKind::Sliding | LayerKind::Chunked, _) => {
                let window = if kind == LayerKind::Sliding { arch.window } else { arch.chunk };
                swa_cells = pad256(ctx_seq.min(window.saturating_add(ubatch)));
                swa_cells as f64 * cell_of(kind) * slots as f64
            }
        };
        gpu_kv += per_layer * on_gpu as f64;
        host_kv += per_layer * (total - on_gpu) as f64;
        pools[match kind {
            LayerKind::Sliding | LayerKind::Chunked => 1,
            LayerKind::Linear => 2,
            _ => 0,
        }] += per_layer * total as f64;
    }
    let compute = if ngl == 0 {
        0.0
    } else {
        let ub = ubatch as f64;
        let logits = if output_on_gpu { ub * arch.vocab as f64 * 4.0 } else { 0.0 };
        let scores = if kernel == AttentionKernel::Eager { ctx_seq as f64 * ub * arch.heads as f64 * 4.0 } else { 0.0 };
        let ffn = match &arch.moe {
            Some(m) => (m.active * m.expert_ffn + m.shared * m.shared_ffn) as f64,
            None => arch.ffn as f64,
        };
        logits + scores + ub * 4.0 * (arch.hidden as f64 + 2.0 * ffn)
    };
    Split {
        gpu_weights: layers_on_gpu as f64 * layer_bytes + if output_on_gpu { output } else { 0.0 },
        host_weights: embedding
            + (n - layers_on_gpu) as f64 * layer_bytes
            + if output_on_gpu { 0.0 } else { head_stored },
        gpu_kv,
        host_kv,
        compute,
        cells: ctx_seq.saturating_mul(slots),
        swa_cells,
        pools,
        gpu_layers: ngl,
    }
}

/// The caches as the `serving` JSON's pools: the full-attention cells, the sliding-window cells of
/// every slot, one recurrent state per slot.
fn pool_list(sp: &Split, slots: u64) -> [Option<KvPool>; 3] {
    let tokens = [sp.cells, sp.swa_cells.saturating_mul(slots), slots];
    let mut out = [None; 3];
    for (i, kind) in [PoolKind::Full, PoolKind::Swa, PoolKind::State].into_iter().enumerate() {
        out[i] = (sp.pools[i] > 0.0).then_some(KvPool { kind, bytes: sp.pools[i] as u64, tokens: tokens[i] });
    }
    out
}

/// The process's lines on the GPU: the layers and the KV cells there, the compute buffer, the
/// CUDA context (`padded` = the context rounded up to llama.cpp's padding).
fn lines(p: &Plan, i: &Inference, sp: &Split, slots: u64, padded: u64) -> Vec<Component> {
    let windowed = p.arch.cache_layers_of(LayerKind::Sliding) + p.arch.cache_layers_of(LayerKind::Chunked);
    let weights_line = msg!(
        LlamacppWeights,
        Arg::Int(sp.gpu_layers),
        Arg::Int(p.arch.layers + 1),
        Arg::Bytes(sp.gpu_weights),
        Arg::Bytes(sp.host_weights)
    );
    let cache_type = match i.kv {
        KvDtype::Int8 => "q8_0",
        KvDtype::Int4 => "q4_0",
        _ => "f16",
    };
    let kv_line = msg!(
        LlamacppKv,
        Arg::Int(slots),
        Arg::Count(padded),
        Arg::Int(p.arch.cache_layers_of(LayerKind::Full)),
        Arg::Code(cache_type),
        when(windowed > 0, || msg!(LlamacppSwa, Arg::Int(windowed), Arg::Count(sp.swa_cells))),
        when(sp.pools[2] > 0.0, || msg!(
            LlamacppStates,
            Arg::Int(p.arch.cache_layers_of(LayerKind::Linear)),
            Arg::Int(slots),
            Arg::Bytes(sp.pools[2])
        )),
        when(sp.host_kv > 0.0, || msg!(LlamacppHostKv, Arg::Bytes(sp.host_kv)))
    );
    let compute_line = msg!(
        LlamacppCompute,
        Arg::Count(i.engine.max_batched_tokens.unwrap_or(UBATCH).min(padded)),
        Arg::Count(p.arch.vocab),
        when(p.kernel == AttentionKernel::Eager, || msg!(LlamacppNoFlash))
    );
    vec![
        line(ComponentId::Weights, sp.gpu_weights, "§2", weights_line),
        line(ComponentId::KvCache, sp.gpu_kv, "§2", kv_line),
        line(ComponentId::Activations, sp.compute, "§2", compute_line),
        line(ComponentId::CudaContext, p.overhead_mib * MIB, "§3", msg!(EngineContext, Arg::Factor(p.overhead_mib))),
    ]
}

pub fn bill(p: &Plan, i: &Inference) -> EngineBill {
    let pad = if i.engine.version.is_none_or(|v| v >= PAD_256_FROM) { 256 } else { 32 };
    let pad256 = |x| padded(x, pad);
    let context = context_tokens(p, i);
    let slots = p.batch.max(1);
    let ctx_bytes = p.overhead_mib * MIB;
    // What the process may allocate: the card as the driver reports it; a Mac's Metal limit.
    let limit = if p.gpu.unified_ram_gb.is_some() { p.gpu.bytes as f64 } else { p.gpu.torch_bytes as f64 };
    let w = Stored::of(p.arch, i);
    let sp = split(p.arch, i, &w, slots, context, p.kernel);
    let fits = |s: &Split| s.gpu_total(ctx_bytes) <= limit;
    let status = if fits(&sp) {
        ServingStatus::Serves
    } else {
        ServingStatus::GpuTooSmall { needed_bytes: sp.gpu_total(ctx_bytes) as u64 }
    };
    let max_context = largest(MAX_CONTEXT / pad, &|k| fits(&split(p.arch, i, &w, slots, k * pad, p.kernel))) * pad;
    let max_slots = largest(65_536, &|s| fits(&split(p.arch, i, &w, s, context, p.kernel)));
    let lines = lines(p, i, &sp, slots, pad256(context));
    let host = sp.host_weights + sp.host_kv + p.arch.vocab as f64 * slots as f64 * 4.0;
    let serving = Serving {
        engine: Engine::Llamacpp,
        version: i.engine.version.unwrap_or(Release(0, 0, 0)),
        budget_bytes: limit as u64,
        weights_bytes: sp.gpu_weights as u64,
        non_torch_bytes: 0,
        activation_peak_bytes: sp.compute as u64,
        cuda_graph_bytes: 0,
        kv_pool_bytes: (sp.gpu_kv + sp.host_kv) as u64,
        kv_tokens: sp.cells,
        kv_blocks: None,
        max_concurrency: max_slots as f64,
        max_context,
        host_bytes: host as u64,
        context_tokens: context,
        requests: slots,
        share: 1.0,
        status,
        pool_list: pool_list(&sp, slots),
        effective_concurrency: max_slots as f64,
        kv_cache_memory_bytes: 0,
        draft_bytes: 0,
        lora_bytes: 0,
    };
    let mut notes = vec![Note {
        key: "engine",
        text: msg!(
            LlamacppSummary,
            Arg::Int(slots),
            Arg::Count(pad256(context)),
            Arg::Count(sp.cells),
            Arg::Bytes(host),
            Arg::Int(max_slots),
            Arg::Count(max_context)
        ),
    }];
    let e = &i.engine;
    if e.spec != SpecMethod::None || e.max_loras > 0 || e.prefix_share > 0.0 {
        notes.push(Note {
            key: "engine_addons",
            text: msg!(NoteAddonsUnsupported, Arg::Text(Engine::Llamacpp.name().into())),
        });
    }
    if let Some(ram) = p.gpu.unified_ram_gb {
        let total = sp.gpu_total(ctx_bytes) + host;
        notes.push(Note { key: "unified_host", text: msg!(LlamacppUnified, Arg::Bytes(total), Arg::Int(ram)) });
    }
    EngineBill { lines, serving, notes, parallel: None }
}

#[cfg(test)]
mod tests {
    use super::padded;

    #[test]
    fn contexts_pad_to_the_builds_multiple() {
        assert_eq!(padded(2000, 256), 2048);
        assert_eq!(padded(4096, 256), 4096);
        // Older builds: n_ctx 2000 → "2016 cells"; gpt-oss's window 128 + ubatch 512 → "640 cells"
        // (intel/AI-Playground issue 325, llama.cpp b6182 logs).
        assert_eq!(padded(2000, 32), 2016);
        assert_eq!(padded(128 + 512, 32), 640);
    }
}
