//! The lines of an inference forward pass (Hugging Face `generate()`): the served weights, the KV
//! cache, the prefill's transient peak, the last position's logits, and bitsandbytes' dequantization
//! buffer. Tensor parallelism divides weights, KV heads and the prefill peak over the GPUs.

use super::activations::{inference_layer_peak, layer_class_name};
use super::architecture::{LayerClass, LayerKind};
use super::bill::{line, Component, ComponentId, Live};
use super::msg::{when, Arg, Msg};
use super::plan::{Inference, Plan};
use super::scenario::{AttentionMask, RopeCache};
use super::storage::StorageFormat;
use super::weights::stored_weights;
use crate::msg;

/// The page's build leaves the kernels of AWQ, GPTQ and LLM.int8 checkpoints to the reader worker
/// (`Scenario::runs_quantized_kernels`).
const PAGE: bool = cfg!(feature = "page");

fn tensor_parallel(i: &Inference) -> Arg {
    when(i.tp > 1, || msg!(TensorParallel, Arg::Int(i.tp)))
}

/// The served weights, with RoPE's tables where `generate()`'s model keeps them ([`rope_tables`]):
/// grown to the longest sequence it runs.
pub fn weights(p: &Plan, i: &Inference) -> Component {
    let w = stored_weights(p.arch, i.weights);
    let served = line(
        ComponentId::Weights,
        w.bytes / i.tp as f64,
        "§2",
        msg!(ServedWeights, w.formula.arg(), tensor_parallel(i)),
    );
    super::training::with_rope_tables(served, p.arch, p.tokens.saturating_add(i.generated), rope_tables(p, i))
}

/// A PEFT LoRA adapter loaded over the base and left unmerged (`adapter`): its A and B matrices
/// in fp32 (PEFT's `LoraLayer` makes them in torch's default dtype and `load_state_dict` copies the
/// checkpoint into them), on the GPU that runs their layers.
pub fn adapter(i: &Inference, part: GpuPart) -> Option<Component> {
    (i.adapter_parameters > 0).then(|| {
        let bytes = i.adapter_parameters as f64 * 4.0 * part.kv_share / i.tp as f64;
        let formula = msg!(AdapterUnmerged, Arg::Count(i.adapter_parameters), tensor_parallel(i));
        line(ComponentId::AdapterWeights, bytes, "§2", formula)
    })
}

/// The bytes of the RoPE tables [`weights`] holds (a device map puts each layer's with the layer).
pub fn rope_table_bytes(p: &Plan, i: &Inference) -> f64 {
    let seq = p.tokens.saturating_add(i.generated);
    super::plan::RopeTables::of(p.arch, seq, rope_tables(p, i)).map_or(0.0, |t| t.bytes())
}

/// The RoPE tables transformers' own classes keep in `generate()`: the link's `rope_cache`, else a
/// pair in every attention layer over the model's context (`_set_cos_sin_cache(seq_len=
/// max_position_embeddings, dtype=torch.get_default_dtype())`, the load dtype inside
/// `from_pretrained`) before 4.45 for Qwen2's classes (q/k/v biases) and before 4.41 for the rest
/// (Llama's, Mistral's); none after, for remote code (`mask=full`) or another engine
/// (docs/research/transformers-inference-by-release.md §9 has each release read).
fn rope_tables(p: &Plan, i: &Inference) -> RopeCache {
    let until = if p.arch.qkv_bias { 45 } else { 41 };
    match p.rope_cache {
        _ if !on_transformers(i) => RopeCache::None,
        RopeCache::None if transformers_before(i, 4, until) && p.mask != AttentionMask::Full => RopeCache::LayerFull,
        r => r,
    }
}

/// KV cache: 2 (K and V) · layers · kv_heads · head_dim · tokens · batch · bytes. With tensor
/// parallelism each GPU holds its share of the KV heads (replicated when GPUs > KV heads).
/// Sliding-window and chunked layers keep only their window or chunk (as Hugging Face's cache
/// does), latent attention every head's K and V decompressed (not its latent, which the engines
/// keep), linear-attention layers a fixed state.
pub fn kv_cache(p: &Plan, i: &Inference) -> Component {
    let arch = p.arch;
    let kv_heads_here = arch.kv_heads.div_ceil(i.tp).max(1);
    if arch.layer_pattern.is_full()
        && arch.mla.is_none()
        && arch.linear.is_none()
        && arch.own_full_attention().is_none()
        && arch.kv_shared() == 0
    {
        return uniform_kv_cache(p, i, kv_heads_here);
    }
    let tokens = p.tokens.saturating_add(i.generated);
    let bytes_per = i.kv.bits() / 8.0;
    let per_token_layer = layer_token_bytes(p, i, LayerKind::Sliding);
    let mut token_layers = 0.0;
    let mut parts = Vec::new();
    for kind in [LayerKind::Full, LayerKind::Sliding, LayerKind::Chunked] {
        let n = arch.cache_layers_of(kind);
        if n == 0 {
            continue;
        }
        let held = held_tokens(p, kind, tokens);
        // A kind with its own head shape (Gemma-4's full-attention layers) caches its share of the
        // other layers' bytes per token.
        let (share, note) = match arch.heads_of(kind) {
            own if !PAGE && own != (arch.kv_heads, arch.head_dim) => {
                let share = layer_token_bytes(p, i, kind) / per_token_layer.max(f64::MIN_POSITIVE);
                (share, msg!(KvOwnShape, Arg::Factor(share), Arg::Int(own.0), Arg::Int(own.1)).arg())
            }
            _ => (1.0, when(held < tokens, || msg!(KvWindow))),
        };
        token_layers += n as f64 * held as f64 * share;
        let class = LayerClass { attention: kind, moe: false, mlp: true, kv_shared: false, count: n };
        parts.push(msg!(KvPart, Arg::Int(n), layer_class_name(class).arg(), Arg::Count(held), note));
    }
    let per_token = match &arch.mla {
        #[cfg(not(feature = "page"))]
        Some(m) => msg!(
            KvPerTokenMla,
            Arg::Int(kv_heads_here),
            Arg::Int(m.qk_nope_head_dim),
            Arg::Int(m.qk_rope_head_dim),
            Arg::Int(m.v_head_dim),
            Arg::Factor(bytes_per),
            Arg::Code(i.kv.id())
        ),
        _ => msg!(
            KvPerToken,
            Arg::Int(kv_heads_here),
            when(i.tp > 1, || msg!(PerGpu)),
            Arg::Int(arch.head_dim),
            Arg::Factor(bytes_per),
            Arg::Code(i.kv.id())
        ),
    };
    let (state_bytes, state) = linear_state(p, i);
    let kv = token_layers * per_token_layer * p.batch as f64 + state_bytes;
    let formula =
        msg!(KvCacheByKind, Arg::List(parts), Arg::Factor(per_token_layer), per_token.arg(), Arg::Int(p.batch), state);
    line(ComponentId::KvCache, kv, "§2", formula)
}

/// The tokens a layer of attention kind `kind` keeps of `tokens`: its window or chunk (as Hugging
/// Face's cache keeps them), or every one.
fn held_tokens(p: &Plan, kind: LayerKind, tokens: u64) -> u64 {
    let limit = match kind {
        LayerKind::Sliding => p.arch.window,
        LayerKind::Chunked => p.arch.chunk,
        _ => 0,
    };
    if limit > 0 {
        tokens.min(limit)
    } else {
        tokens
    }
}

/// What one layer of attention kind `kind` caches for the whole sequence (prompt + generated):
/// a window or a chunk of tokens, every token, or a linear-attention layer's fixed state.
pub fn kv_layer_bytes(p: &Plan, i: &Inference, kind: LayerKind) -> f64 {
    let arch = p.arch;
    if kind == LayerKind::Linear {
        let n = arch.layers_of(LayerKind::Linear).max(1) as f64;
        return linear_state(p, i).0 / n;
    }
    let held = held_tokens(p, kind, p.tokens.saturating_add(i.generated));
    layer_token_bytes(p, i, kind) * held as f64 * p.batch as f64
}

/// KV bytes per token of one layer of attention kind `kind` on one GPU, in its own shape
/// (Gemma-4's full-attention layers): each GPU of a tensor-parallel group holds its share of the
/// KV heads, rounded up.
fn layer_token_bytes(p: &Plan, i: &Inference, kind: LayerKind) -> f64 {
    let kv_heads = p.arch.heads_of(kind).0.div_ceil(i.tp).max(1);
    let elements = match &p.arch.mla {
        // In the page's build a model with latent attention is billed by the reader worker
        // (`Scenario::caches_latent_decompressed`).
        #[cfg(not(feature = "page"))]
        // transformers caches latent attention decompressed: every head's key (the nope and rotary
        // parts) and value (`DeepseekV3Attention.forward` updates the cache with `key_states`,
        // `value_states` after `kv_b_proj`; GLM-4.7-Flash and Kimi-K2 run the same code).
        Some(m) => m.decompressed_per_token(kv_heads),
        _ => p.arch.kv_elements_of(kind, kv_heads),
    };
    elements as f64 * (i.kv.bits() / 8.0)
}

/// The fixed state of linear-attention layers: the recurrent state (fp32) and the convolution's
/// last taps, per sequence, split over tensor-parallel GPUs by head.
fn linear_state(p: &Plan, i: &Inference) -> (f64, Arg) {
    let (Some(lin), n) = (&p.arch.linear, p.arch.layers_of(LayerKind::Linear)) else {
        return (0.0, Msg::empty().arg());
    };
    if n == 0 {
        return (0.0, Msg::empty().arg());
    }
    let act = p.acts.bytes();
    let per_seq = lin.state_elements() as f64 * 4.0 + (lin.conv_dim() * lin.conv) as f64 * act;
    let bytes = n as f64 * per_seq * p.batch as f64 / i.tp as f64;
    let formula = msg!(
        KvLinearState,
        Arg::Int(n),
        // A short convolution keeps no state but its taps: 0 × ….
        Arg::Int(if lin.short_conv { 0 } else { lin.v_heads }),
        Arg::Int(lin.head_dim),
        // Mamba-2's state is N wide per head channel; Gated DeltaNet's a head_dim square.
        Arg::Int(if lin.is_mamba() { lin.ssm_state } else { lin.head_dim }),
        Arg::Count(lin.conv_dim()),
        Arg::Int(lin.conv),
        Arg::Factor(act),
        Arg::Bytes(bytes)
    );
    (bytes, formula.arg())
}

fn uniform_kv_cache(p: &Plan, i: &Inference, kv_heads_here: u64) -> Component {
    let arch = p.arch;
    let tokens = p.tokens.saturating_add(i.generated);
    let bytes_per = i.kv.bits() / 8.0;
    let kv = 2.0
        * arch.layers as f64
        * kv_heads_here as f64
        * arch.head_dim as f64
        * tokens as f64
        * p.batch as f64
        * bytes_per;
    let formula = msg!(
        KvCache,
        Arg::Int(arch.layers),
        Arg::Int(kv_heads_here),
        when(i.tp > 1, || msg!(PerGpu)),
        Arg::Int(arch.head_dim),
        Arg::Count(p.tokens),
        Arg::Count(i.generated),
        Arg::Int(p.batch),
        Arg::Factor(bytes_per),
        Arg::Code(i.kv.id())
    );
    line(ComponentId::KvCache, kv, "§2", formula)
}

/// The transformers release `generate()` follows (`engine_version` with `engine=hf`); `None`: the
/// newest read. docs/research/transformers-inference-by-release.md has each rule's source line.
/// Whether transformers' `generate()` runs the model (not a serving engine).
fn on_transformers(i: &Inference) -> bool {
    i.engine.engine == super::scenario::Engine::Hf
}

fn transformers_before(i: &Inference, major: u16, minor: u16) -> bool {
    on_transformers(i) && i.engine.version.is_some_and(|v| v < super::scenario::Release(major, minor, 0))
}

/// Whether transformers' attention repeats a grouped-query layer's K and V to every query head
/// (`repeat_kv`, an expanded copy of batch × heads × tokens × head_dim) at each call: eager
/// attention always; SDPA before 4.54, which from then passes `enable_gqa=True` when no 4D mask
/// is built (`use_gqa_in_sdpa`: torch ≥ 2.5, batch-1 or unpadded `generate()`). Read in 4.38.2–5.0.0
/// (`LlamaSdpaAttention` / `Qwen2SdpaAttention` before 4.48, `integrations/sdpa_attention.py`).
fn repeats_kv(p: &Plan, i: &Inference) -> bool {
    use super::scenario::AttentionKernel;
    let grouped = p.arch.mla.is_none() && p.arch.heads > p.arch.kv_heads;
    let repeats = match p.kernel {
        AttentionKernel::Eager => on_transformers(i),
        AttentionKernel::Sdpa => transformers_before(i, 4, 54),
        AttentionKernel::Flash => false,
    };
    grouped && repeats
}

/// A decoding step's K and V of one full-attention layer repeated to every query head over the
/// whole cache, in the activations' dtype ([`repeats_kv`]; 0 where they are not).
fn repeated_kv_bytes(p: &Plan, i: &Inference) -> f64 {
    if !repeats_kv(p, i) {
        return 0.0;
    }
    let held = held_tokens(p, LayerKind::Full, p.tokens.saturating_add(i.generated));
    let heads_here = p.arch.heads.div_ceil(i.tp).max(1);
    let head_dim = p.arch.heads_of(LayerKind::Full).1;
    2.0 * (heads_here * head_dim) as f64 * held as f64 * p.batch as f64 * p.acts.bytes()
}

/// What a quantized linear's kernel allocates per call beyond its 16-bit output, at the prefill's
/// largest layer (rows: the prompt's tokens × sequences, a routed expert's share of them), and the
/// text that says so; `None` for 16-bit weights and the kernels that allocate nothing. Read in the
/// releases (docs/research/transformers-inference-by-release.md §11–§13):
/// - AutoAWQ's GEMM (`WQLinear_GEMM`, transformers' `AwqConfig` default): from 1,024 rows
///   (`FP16_MATMUL_HEURISTIC_CONDITION = x.shape[0] * x.shape[1] >= 1024`) the whole weight
///   dequantized to fp16 for `torch.matmul`, in × out × 2 B; below, its kernel's split-k partial
///   sums, 8 × rows × out in fp16;
/// - AutoAWQ's GEMV (`awq_version=gemv`): above 8 rows the same split-k partial sums, whatever the
///   rows (no dequantized path); up to 8 rows only the output;
/// - AutoGPTQ's cuda-old (GPTQ before transformers 4.49 with exllama off): from 128 rows
///   (`kernel_switch_threshold`) the weight unpacked through int32 and int8 to fp16, 5 B per weight;
///   below, fp32 copies of the input and the output (`use_cuda_fp16=False`, optimum's default);
/// - bitsandbytes' LLM.int8 (0.45 on, `MatMul8bitLt`): the larger of quantizing the input (6 B per
///   input element) and the matmul (1 B per input, 6 B per output element).
fn kernel_transient(p: &Plan, i: &Inference) -> Option<(f64, Msg)> {
    use super::architecture::{LinearGroup, LinearShape};
    if PAGE || !on_transformers(i) {
        return None;
    }
    let rows = p.tokens.saturating_mul(p.batch) as f64;
    let routed = p.arch.moe.as_ref().map_or(1.0, |m| m.active as f64 / m.experts.max(1) as f64);
    let largest = |per: &dyn Fn(f64, f64, f64) -> f64| {
        let each = |l: &LinearShape| {
            let m = if l.group == LinearGroup::Expert { rows * routed } else { rows };
            per(m, l.d_in as f64, l.d_out as f64)
        };
        p.arch.linears().iter().map(each).fold(0.0, f64::max)
    };
    let (bytes, text) = match i.weights.format {
        StorageFormat::Awq4 if i.awq_gemv && rows > 8.0 => {
            let b = largest(&|m, _, n| 16.0 * m * n);
            (b, msg!(AwqGemv, Arg::Bytes(b / i.tp as f64)))
        }
        StorageFormat::Awq4 if i.awq_gemv => return None,
        StorageFormat::Awq4 if rows >= 1024.0 => {
            let b = largest(&|_, k, n| 2.0 * k * n);
            (b, msg!(AwqDequantized, Arg::Bytes(b / i.tp as f64)))
        }
        StorageFormat::Awq4 => {
            let b = largest(&|m, _, n| 16.0 * m * n);
            (b, msg!(AwqSplitK, Arg::Bytes(b / i.tp as f64)))
        }
        StorageFormat::Gptq4 if i.exllama == 0 && transformers_before(i, 4, 49) => {
            let b = if rows >= 128.0 { largest(&|_, k, n| 5.0 * k * n) } else { largest(&|m, k, n| 4.0 * m * (k + n)) };
            (b, msg!(GptqCudaOld, Arg::Bytes(b / i.tp as f64)))
        }
        StorageFormat::Int8 => {
            let b = largest(&|m, k, n| m * (6.0 * k).max(k + 6.0 * n));
            (b, msg!(Int8Matmul, Arg::Bytes(b / i.tp as f64)))
        }
        _ => return None,
    };
    (bytes > 0.0).then_some((bytes, text))
}

/// Whether the prefill projects every prompt position: transformers' own classes before 4.45 —
/// not remote code that returns the last position's logit itself (`mask=full`).
fn projects_every_position(p: &Plan, i: &Inference) -> bool {
    transformers_before(i, 4, 45) && p.mask != super::scenario::AttentionMask::Full
}

/// ChatGLM's remote code (`mask=full`) replayed through the caching allocator
/// (`super::chatglm`), where the model runs whole on one GPU: the prefill's live peak and what it
/// leaves reserved beyond the weights. The page's build leaves it to the reader worker
/// (`Scenario::billed_on_demand`). A model of more than [`super::chatglm::REPLAYED_LAYERS`]
/// layers (no ChatGLM has a tenth of them) keeps the layer rule: a replay's steps grow with them.
pub fn remote_prefill(p: &Plan, i: &Inference) -> Option<super::chatglm::Prefill> {
    let whole = i.tp == 1 && i.pp == 1 && p.arch.layers <= super::chatglm::REPLAYED_LAYERS;
    let remote = p.mask == AttentionMask::Full && on_transformers(i);
    (cfg!(not(feature = "page")) && remote && whole).then(|| super::chatglm::prefill(p, weights(p, i).bytes as f64))
}

/// The part of the model one GPU runs: its share of the cache (by its layers), whether it runs
/// decoder layers, holds the LM head (the logits are made there), and whether the model's output
/// ends there (accelerate's `device_map` returns it to the input's GPU, `super::device_map`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuPart {
    pub kv_share: f64,
    pub layers: bool,
    pub head: bool,
    pub output: bool,
}

impl GpuPart {
    /// The whole model on one GPU (or its tensor-parallel slice).
    pub const WHOLE: GpuPart = GpuPart { kv_share: 1.0, layers: true, head: true, output: true };
}

/// The whole model's amounts `generate()` moves between moments, on one GPU of `tp`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Amounts {
    /// The prompt's cache and the whole cache (prompt + generated).
    pub kv_prompt: f64,
    pub kv_total: f64,
    /// One prefill layer's working set (ChatGLM's remote code: its replayed peak beyond the
    /// prompt's cache, the concatenated `presents` included).
    pub layer_peak: f64,
    /// The replay of ChatGLM's remote-code prefill, where it runs ([`remote_prefill`]).
    pub remote: Option<super::chatglm::Prefill>,
    /// A decoding step's copy of one layer's grown cache (from transformers 4.42), or where
    /// attention repeats the cache's K and V to every query head ([`repeats_kv`]) that copy.
    pub layer_copy: f64,
    /// The prefill's logits when every prompt position is projected (before 4.45), 16-bit + fp32;
    /// their fp32 part, which the model returns; the last position's (from 4.45).
    pub prompt_logits: f64,
    pub returned_logits: f64,
    pub last_logits: f64,
    /// What loading holds beyond the weights until `from_pretrained` ties them: a tied model's AWQ
    /// checkpoint written by AutoAWQ before 0.2.8 stores its LM head as a tensor of its own (the
    /// embedding's fp16 copy), which the loader puts on the GPU as a second matrix.
    pub load_copy: f64,
    /// What loading holds beyond the weights while bitsandbytes' LLM.int8 quantizes a linear as it
    /// reaches the GPU ([`int8_quantize_copy`]).
    pub quantize_copy: f64,
}

impl Amounts {
    /// What the prefill leaves reserved beyond its live peak where a replay shows it (ChatGLM's
    /// concatenated `presents`); 0 where the allocator's share rule stands.
    pub fn prefill_fragmented(&self) -> f64 {
        self.remote.map_or(0.0, |r| (r.reserved - r.allocated).max(0.0))
    }
}

/// The amounts of `p` and `i`, given the whole cache's bytes (the KV cache line's).
pub fn amounts(p: &Plan, i: &Inference, kv_total: f64) -> Amounts {
    let arch = p.arch;
    let kv_prompt = kv_cache(p, &Inference { generated: 0, ..i.clone() }).bytes as f64;
    // A full-attention layer's whole cache, which a decoding step's `torch.cat` copies; or its K
    // and V repeated to every query head, alive together after the copy is freed.
    let layer_copy = kv_layer_bytes(p, i, LayerKind::Full).max(repeated_kv_bytes(p, i));
    let every = projects_every_position(p, i);
    let logits = logits_bytes(p, i);
    let positions = p.batch as f64 * p.tokens as f64 * arch.vocab as f64;
    let remote = remote_prefill(p, i);
    Amounts {
        kv_prompt,
        kv_total,
        layer_peak: remote.map_or_else(
            || {
                let layer = inference_layer_peak(arch, p.kernel, p.acts, (p.tokens, p.batch), repeats_kv(p, i));
                (layer + kernel_transient(p, i).map_or(0.0, |k| k.0)) / i.tp as f64
            },
            |r| (r.allocated - kv_prompt).max(0.0),
        ),
        remote,
        layer_copy,
        prompt_logits: if every { logits } else { 0.0 },
        returned_logits: if every { positions * 4.0 } else { 0.0 },
        last_logits: if every { 0.0 } else { logits },
        load_copy: if head_stored_apart(p, i) { (arch.vocab * arch.hidden) as f64 * 2.0 } else { 0.0 },
        quantize_copy: int8_quantize_copy(p, i).map_or(0.0, |(matrix, _)| matrix as f64 * 3.0),
    }
}

/// bitsandbytes' LLM.int8 quantizes each linear as it reaches the GPU (`Int8Params.cuda` under
/// transformers' `load_in_8bit`, Lightning's `_Linear8bitLt.quantize_` under LitGPT, bnb 0.41–0.42):
/// the weight's fp16 copy, then `double_quant`'s row-major int8 (the weight kept) and column-major
/// int8 (`CBt`, deleted after): 3 B per element beyond the weight it leaves, at the largest
/// quantized matrix (the LM head where it is quantized, `quant_head=1`). The matrix's elements,
/// where the model is quantized so in `generate()`.
pub fn int8_quantize_copy(p: &Plan, i: &Inference) -> Option<(u64, bool)> {
    let int8 = !PAGE && i.weights.format == StorageFormat::Int8 && on_transformers(i);
    let head = if i.weights.head { p.arch.lm_head_parameters() } else { 0 };
    let largest = p.arch.largest_linear();
    int8.then_some(if head > largest { (head, true) } else { (largest, false) })
}

/// What loading holds beyond the weights on a GPU (`part`): a second LM head where it is stored
/// apart, or LLM.int8's quantization copy where layers are, whichever is larger.
pub fn load_moment(a: &Amounts, part: GpuPart) -> f64 {
    let head = if part.head { a.load_copy } else { 0.0 };
    let quantizing = if part.layers || part.head { a.quantize_copy } else { 0.0 };
    head.max(quantizing)
}

/// A tied model's checkpoint that stores `lm_head.weight` as well as the embedding (`head_copy`:
/// AutoAWQ's `save_quantized` before 0.2.8 cloned every state-dict entry; Qwen2.5's official AWQ
/// files keep both). transformers lists the tied name among the keys it expects, and its loader
/// with a device map (4.38 to 4.57: `_load_state_dict_into_meta_model`, accelerate's
/// `set_module_tensor_to_device`; 5.x: `convert_and_load_state_dict_in_model`) gives the head a
/// GPU tensor of its own until `from_pretrained` ties the two again and frees it
/// (docs/research/transformers-inference-by-release.md §10).
/// The page's build leaves such a link to the reader worker (`head_copy` is its key).
fn head_stored_apart(p: &Plan, i: &Inference) -> bool {
    !PAGE && i.head_copy && on_transformers(i) && p.arch.tied_embeddings
}

/// `generate()`'s two kinds of moment on one GPU, each the larger of its candidates, beyond the
/// weights (docs/research/transformers-inference-by-release.md, §4 and §6):
/// - the prefill: the prompt's cache with one layer's working set; before 4.45 the GPU with the
///   LM head projects every prompt position (16-bit + fp32 upcast), and the GPU the output returns
///   to holds its fp32 copy; with nothing generated the last position's logits close it;
/// - a decoding step: the whole cache with its step's copy (one layer's grown cache from 4.42;
///   before, the old tuple and the new are alive whole) and the last position's logits; before
///   4.42 `generate()` did not delete the previous step's outputs, so the first decoding step also
///   holds the prompt's cache twice and the prefill's fp32 logits where the output is.
pub fn moments(i: &Inference, part: GpuPart, a: &Amounts) -> (Live, Option<Live>) {
    let f = part.kv_share;
    let (kv_s, kv_t) = (f * a.kv_prompt, f * a.kv_total);
    let working = if part.layers { a.layer_peak } else { 0.0 };
    let closing = if part.head && i.generated == 0 { a.last_logits } else { 0.0 };
    let mut prefill = Live { kv: kv_s, activations: working, logits: closing };
    if part.head {
        prefill = prefill.max(Live { kv: kv_s, activations: 0.0, logits: a.prompt_logits });
    }
    if part.output {
        prefill = prefill.max(Live { kv: kv_s, activations: 0.0, logits: a.returned_logits });
    }
    if i.generated == 0 {
        return (prefill, None);
    }
    let tuples = transformers_before(i, 4, 42);
    let copy = match () {
        _ if tuples => kv_t,
        _ if part.layers => a.layer_copy,
        _ => 0.0,
    };
    let mut decode = Live { kv: kv_t, activations: copy, logits: if part.head { a.last_logits } else { 0.0 } };
    if tuples && part.output {
        decode = decode.max(Live { kv: kv_s, activations: kv_s, logits: a.returned_logits });
    }
    (prefill, Some(decode))
}

/// The bill's cache, logits and activations lines from a GPU's moments: the whole cache and the
/// peak's logits as lines (as much of them as the peak has room for), the activations what the
/// peak needs beyond them. `load`: what loading holds beyond the weights and the lines that stay
/// beside the moments, where it is the larger moment.
pub fn peak_lines(part: GpuPart, a: &Amounts, (prefill, decode): (Live, Option<Live>), load: f64) -> (f64, f64, f64) {
    let peak = decode.map_or(prefill, |d| prefill.max(d)).max(Live { kv: 0.0, activations: load, logits: 0.0 });
    let kv = part.kv_share * a.kv_total;
    let room = (peak.total() - kv).max(0.0);
    // The logits of the peak's kind of moment: at a prefill peak the prompt's (what the GPU
    // projects or receives; from 4.45 the last position's, which come after it and are a line all
    // the same), at a decoding peak the step's.
    let at_prefill = decode.is_none_or(|d| prefill.total() >= d.total());
    let made = if part.head { a.last_logits } else { 0.0 };
    let prompt = match () {
        _ if !at_prefill => peak.logits,
        _ if part.head => a.prompt_logits.max(if part.output { a.returned_logits } else { 0.0 }),
        _ if part.output => a.returned_logits,
        _ => 0.0,
    };
    let logits = prompt.max(made).min(room);
    (kv, logits, room - logits)
}

/// The prefill line's text on one GPU: the layer's working set, the generated tokens' KV and the
/// last logits that come after it, the step's copy, and what the peak needs beyond them; on the GPU
/// loading holds a second LM head on (`load` > 0), that moment beside them.
pub fn prefill_formula(p: &Plan, i: &Inference, a: &Amounts, activations: f64, load: f64) -> Msg {
    let ffn = p.arch.moe.as_ref().map_or(p.arch.ffn, |m| m.expert_ffn);
    let tp = tensor_parallel(i);
    if !PAGE && load > a.load_copy {
        let (matrix, head) = int8_quantize_copy(p, i).unwrap_or((0, false));
        let which = if head { msg!(Int8LmHead) } else { msg!(Int8LargestLinear) };
        return msg!(LoadInt8Quantize, which.arg(), Arg::Count(matrix), Arg::Bytes(load), Arg::Bytes(activations));
    }
    if !PAGE && load > 0.0 {
        return msg!(
            LoadHeadCopy,
            Arg::Count(p.arch.vocab),
            Arg::Count(p.arch.hidden),
            Arg::Bytes(a.load_copy),
            Arg::Bytes(activations)
        );
    }
    let working = if a.remote.is_some() {
        msg!(PrefillReplayed, Arg::Count(p.tokens), Arg::Int(p.batch))
    } else {
        let kernel = kernel_transient(p, i).map_or_else(|| Msg::empty().arg(), |k| k.1.arg());
        msg!(PrefillOneLayer, Arg::Count(p.tokens), Arg::Int(p.batch), Arg::Count(ffn), tp, kernel)
    };
    if i.generated == 0 {
        return msg!(Prefill, working.arg(), Arg::Bytes(a.layer_peak));
    }
    let step = match () {
        _ if transformers_before(i, 4, 42) => msg!(DecodeStepCopy, Arg::Bytes(a.kv_total)),
        _ if a.layer_copy > kv_layer_bytes(p, i, LayerKind::Full) => {
            msg!(DecodeStepRepeatKv, Arg::Int(p.arch.heads.div_ceil(i.tp)), Arg::Bytes(a.layer_copy))
        }
        _ => msg!(DecodeStepCopy, Arg::Bytes(a.layer_copy)),
    };
    msg!(
        PrefillBeforeDecode,
        working.arg(),
        Arg::Bytes(a.layer_peak),
        Arg::Bytes(a.kv_total - a.kv_prompt),
        Arg::Bytes(a.last_logits.max(a.prompt_logits)),
        step.arg(),
        Arg::Bytes(activations)
    )
}

/// The logits' bytes (`logits`' line).
fn logits_bytes(p: &Plan, i: &Inference) -> f64 {
    let act = p.acts.bytes();
    let (positions, per_logit) =
        if projects_every_position(p, i) { (p.tokens as f64, act + 4.0) } else { (1.0, act + 4.0 + 4.0) };
    p.batch as f64 * positions * p.arch.vocab as f64 * per_logit
}

/// Only the last position is projected when generating (transformers ≥ 4.45, vLLM): its 16-bit
/// logits, an fp32 copy and the fp32 probabilities. Before 4.45 `generate()` passed no
/// `num_logits_to_keep`: the prefill projects every prompt position, and the causal LM's forward
/// upcast them all (`logits = logits.float()`, modeling_llama.py until 4.46).
/// The line holds `bytes` of them (what the peak has).
pub fn logits(p: &Plan, i: &Inference, bytes: f64) -> Component {
    let act = p.acts.bytes();
    if projects_every_position(p, i) {
        let per_logit = act + 4.0;
        let formula = msg!(
            InferenceLogitsAll,
            Arg::Int(p.batch),
            Arg::Count(p.tokens),
            Arg::Count(p.arch.vocab),
            Arg::Factor(per_logit),
            Arg::Factor(act)
        );
        return line(ComponentId::Logits, bytes, "§2", formula);
    }
    let per_logit = act + 4.0 + 4.0;
    let formula =
        msg!(InferenceLogits, Arg::Int(p.batch), Arg::Count(p.arch.vocab), Arg::Factor(per_logit), Arg::Factor(act));
    line(ComponentId::Logits, bytes, "§2", formula)
}

/// bitsandbytes dequantizes an NF4 matrix to bf16 for the prefill's matmuls; AutoGPTQ's exllama
/// kernels keep their buffers on each GPU from loading on (`exllama_buffers`).
pub fn dequant_buffer(p: &Plan, i: &Inference) -> Option<Component> {
    if !PAGE && i.weights.format == StorageFormat::Gptq4 && i.exllama > 0 {
        return Some(exllama_buffers(p, i.exllama));
    }
    if i.weights.format != StorageFormat::Nf4 {
        return None;
    }
    let (matrix, bytes) = super::weights::dequantized_matrix(p.arch, i.weights);
    let formula =
        if bytes > 2.0 { msg!(DequantHead, Arg::Count(matrix)) } else { msg!(DequantPrefill, Arg::Count(matrix)) };
    Some(line(ComponentId::DequantBuffer, matrix as f64 * bytes, "§2", formula))
}

/// AutoGPTQ's `autogptq_post_init` (v0.5–0.7.1 `modeling/_utils.py`) allocates its exllama kernels'
/// buffers on each GPU once the weights are in: exllama's `temp_dq`, fp16 of the largest layer's
/// `qweight.numel() × 8` = in × out elements (act-order off: `temp_state` is one row); exllamav2's
/// scratch, the largest layer's `scratch_space_fixed()` (`qlinear_exllamav2.py`: its dequantized
/// weight in × out × 2 B + 128 and a forward buffer out × 2,048 × 8 × 4 B + 128, the defaults
/// max_input_len 2,048 and max_batch_size 8), whatever the batch.
fn exllama_buffers(p: &Plan, version: u8) -> Component {
    let linears = p.arch.linears();
    let dequantized = |l: &super::architecture::LinearShape| (l.d_in * l.d_out) as f64 * 2.0;
    if version == 1 {
        let largest = linears.iter().map(dequantized).fold(0.0, f64::max);
        return line(ComponentId::DequantBuffer, largest, "§2", msg!(ExllamaDequant, Arg::Bytes(largest)));
    }
    let scratch = |l: &super::architecture::LinearShape| dequantized(l) + 128.0 + l.d_out as f64 * 65_536.0 + 128.0;
    let (largest, out) =
        linears.iter().map(|l| (scratch(l), l.d_out)).fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
    line(ComponentId::DequantBuffer, largest, "§2", msg!(Exllamav2Scratch, Arg::Count(out), Arg::Bytes(largest)))
}
