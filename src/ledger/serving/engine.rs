//! What every engine's sizing shares: the bill it returns, the KV cache's bytes per element, the
//! context of one request, and the search for the largest count that fits.

use crate::ledger::architecture::{Architecture, LayerKind, RopeTables};
use crate::ledger::bill::{Component, Note, Serving};
use crate::ledger::msg::{when, Arg};
use crate::ledger::plan::{Inference, Plan};
use crate::ledger::scenario::Engine;
use crate::ledger::storage::KvDtype;
use crate::msg;

/// An engine's bill: the lines (summing to what the process holds on the GPU), the figures, notes.
pub struct EngineBill {
    pub lines: Vec<Component>,
    pub serving: Serving,
    pub notes: Vec<Note>,
    /// A served grid's stages (vLLM with `pp`, `dp` or `ep`).
    pub parallel: Option<crate::ledger::bill::ParallelSummary>,
}

/// KV bytes per element in vLLM and SGLang (an fp8 cache is one byte; int8 is taken as fp8; there
/// is no 4-bit cache, so int4 stays 16-bit).
pub fn kv_bytes(kv: KvDtype) -> f64 {
    match kv {
        KvDtype::Fp8 | KvDtype::Int8 => 1.0,
        KvDtype::Bf16 | KvDtype::Fp16 | KvDtype::Int4 => 2.0,
    }
}

/// KV bytes per token of one layer of attention kind `kind` on one GPU in vLLM and SGLang: its KV
/// heads split over tensor parallelism (replicated once the GPUs outnumber them), in the layer's own
/// shape (Gemma-4's full-attention layers).
/// DeepSeek-V3.2 adds its indexer's key, and an fp8 latent is FlashMLA's `fp8_ds_mla` layout
/// (vLLM's `MLAAttentionSpec`, SGLang's `NSATokenToKVPool`): the latent in fp8 with an fp32 scale
/// per 128 values, the rotary key in bf16 — 656 + 132 B a layer, 1,152 + 132 in bf16.
pub fn layer_token_bytes(arch: &Architecture, i: &Inference, kind: LayerKind) -> f64 {
    if let (Some(m), Some(ix)) = (&arch.mla, &arch.indexer) {
        let latent = if kv_bytes(i.kv) < 2.0 {
            m.kv_lora_rank + 4 * m.kv_lora_rank.div_ceil(128) + 2 * m.qk_rope_head_dim
        } else {
            2 * m.cached_per_token()
        };
        return (latent + ix.key_bytes()) as f64;
    }
    let kv_heads = (arch.heads_of(kind).0 / i.tp.max(1)).max(1);
    arch.kv_elements_of(kind, kv_heads) as f64 * kv_bytes(i.kv)
}

/// Prompt + generated tokens per request; with `max_model_len=auto`, the model's own context
/// (when it is known): SGLang's and llama.cpp's default, and where vLLM's auto-fit starts.
pub fn context_tokens(p: &Plan, i: &Inference) -> u64 {
    if i.engine.max_model_len_auto && p.arch.max_context > 0 {
        return p.arch.max_context;
    }
    p.tokens.saturating_add(i.generated).max(1)
}

/// The largest `x` in `1..=hi` for which `fits(x)` holds (`fits` false from some point on), or 0.
pub fn largest(hi: u64, fits: &dyn Fn(u64) -> bool) -> u64 {
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

/// The rotary embedding's cos/sin tables vLLM and SGLang keep on every GPU beside the weights
/// (`Architecture::rope_tables`): their bytes and the text that adds them to the weights line
/// (empty without tables). Read in vLLM 0.8.5 and 0.19.0, SGLang 0.4.10 and 0.5.9
/// (`layers/rotary_embedding`):
/// - vLLM stores them in the model's dtype (`torch.get_default_dtype()`), except gpt-oss, whose
///   `gpt_oss.py` asks for fp32; M-RoPE (the Qwen-VL language models) covers 4 × the positions
///   (`mrope.py`: `max_position_embeddings * 4`).
/// - SGLang keeps them in fp32 on CUDA (`if not _is_cuda: cache = cache.to(dtype)`; on ROCm and
///   Ascend, the model's dtype), M-RoPE without the × 4; its Gemma-3 builds none (HF-style
///   rotary computed per step).
pub fn rope_tables(p: &Plan, engine: Engine) -> (f64, Arg) {
    let arch = p.arch;
    let (positions, dim) = arch.rope_tables();
    let mrope = arch.vision.as_ref().is_some_and(|v| v.kind.is_qwen_vl());
    let cuda = !matches!(p.gpu.id, Some("mi300x" | "ascend-910b"));
    let (rows, element) = match engine {
        Engine::Sglang if matches!(arch.rope, RopeTables::LocalGlobal { .. }) => (0, 0.0),
        Engine::Sglang => (positions, if cuda { 4.0 } else { 2.0 }),
        _ => (if mrope { positions.saturating_mul(4) } else { positions }, if arch.sinks { 4.0 } else { 2.0 }),
    };
    // Gemma-4's full layers rotate their own, wider heads (vLLM's `Gemma4RotaryEmbedding` passes
    // `rotary_dim = head_size`): their table is as wide as they are.
    if let (RopeTables::LocalGlobal { local, global }, Some(full)) = (arch.rope, arch.own_full_attention()) {
        if engine == Engine::Vllm && full.head_dim != dim {
            let bytes = (local.saturating_mul(dim) as f64 + global.saturating_mul(full.head_dim) as f64) * element;
            let text = msg!(
                EngineRopeTwoWidths,
                Arg::Bytes(bytes),
                Arg::Count(local),
                Arg::Int(dim),
                Arg::Count(global),
                Arg::Int(full.head_dim),
                Arg::Factor(element)
            );
            return (bytes, text.arg());
        }
    }
    let bytes = rows.saturating_mul(dim) as f64 * element;
    let text = when(bytes > 0.0, || {
        msg!(EngineRopeTables, Arg::Bytes(bytes), Arg::Count(rows), Arg::Int(dim), Arg::Factor(element))
    });
    (bytes, text)
}

/// The prefix-caching note shared by the engines.
pub fn prefix_note(s: &Serving, share: f64) -> Note {
    let prefix = (s.context_tokens as f64 * share).floor();
    Note {
        key: "prefix_share",
        text: msg!(
            NotePrefixShare,
            Arg::Fixed(share * 100.0, 0),
            Arg::Count(prefix as u64),
            Arg::Fixed(s.effective_concurrency, 2),
            Arg::Count(s.context_tokens),
            Arg::Fixed(s.max_concurrency, 2),
            Arg::Int(s.requests),
            Arg::Count(s.max_context)
        ),
    }
}

/// The Hopper cards among the presets (FP8 tensor cores: vLLM's block-FP8 expert kernels; SGLang's
/// Qwen3-VL turns its embedding cache off on them).
const HOPPER: [&str; 5] = ["h100-80g", "h800", "h20", "h200", "h20-141g"];

/// Whether `p`'s card is a Hopper one ([`HOPPER`]).
pub fn is_hopper(p: &Plan) -> bool {
    p.gpu.id.is_some_and(|id| HOPPER.contains(&id))
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
