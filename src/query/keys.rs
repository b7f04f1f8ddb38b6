//! Every key of the scenario vocabulary, with its values and default. `docs/query-keys.md` is
//! generated from this table (`vram-ledger --keys`) and a test keeps the two identical.

/// One documented key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyDoc {
    pub key: &'static str,
    pub values: &'static str,
    pub default: &'static str,
    pub meaning: &'static str,
}

pub const KEYS: [KeyDoc; 37] = [
    KeyDoc { key: "model", values: "a preset id (see `vram-ledger --presets`) or `custom`", default: "llama-3.1-8b", meaning: "the model; `custom` starts from a Llama-style template that the fields below describe" },
    KeyDoc { key: "layers", values: "1–10000", default: "the preset's", meaning: "decoder layers" },
    KeyDoc { key: "hidden", values: "1–16777216", default: "the preset's", meaning: "hidden size" },
    KeyDoc { key: "heads", values: "1–16777216", default: "the preset's", meaning: "attention (query) heads" },
    KeyDoc { key: "kv_heads", values: "1–heads", default: "the preset's", meaning: "key/value heads (GQA/MQA when fewer than heads)" },
    KeyDoc { key: "head_dim", values: "1–16777216", default: "the preset's", meaning: "dimension of one head" },
    KeyDoc { key: "ffn", values: "1–16777216", default: "the preset's", meaning: "MLP intermediate size (per expert for MoE)" },
    KeyDoc { key: "vocab", values: "1–134217728", default: "the preset's", meaning: "vocabulary size" },
    KeyDoc { key: "tied", values: "0, 1", default: "the preset's", meaning: "input embeddings shared with the LM head" },
    KeyDoc { key: "mlp", values: "glu, gelu", default: "the preset's", meaning: "gated (SwiGLU: gate, up, down) or plain (GELU: fc1, fc2) MLP" },
    KeyDoc { key: "experts", values: "1–65536", default: "the preset's (1 = dense)", meaning: "mixture-of-experts: experts per layer" },
    KeyDoc { key: "active_experts", values: "1–experts", default: "the preset's", meaning: "experts each token runs through" },
    KeyDoc { key: "mode", values: "train, infer", default: "train", meaning: "a training step or inference" },
    KeyDoc { key: "method", values: "full, lora, qlora", default: "lora", meaning: "what trains: every weight, LoRA adapters on a 16-bit/8-bit base, or adapters on a 4-bit base" },
    KeyDoc { key: "precision", values: "mixed, bf16, fp32", default: "mixed", meaning: "mixed = bf16 weights + fp32 master weights and optimizer states (2+2+8+4 B/param with AdamW); bf16 = all bf16; fp32 = all fp32" },
    KeyDoc { key: "quant", values: "fp32, bf16, fp16, fp8, int8, nf4, gptq4, awq4, q4_k_m, q5_k_m, q6_k, q8_0", default: "bf16 (nf4 for method=qlora)", meaning: "how stored weights are kept: the frozen base for LoRA/QLoRA, the served weights for inference (ignored by full fine-tuning)" },
    KeyDoc { key: "dq", values: "0, 1", default: "1", meaning: "NF4 double quantization (QLoRA's default)" },
    KeyDoc { key: "optim", values: "adamw, adamw8bit, sgd, sgdm, adafactor", default: "adamw", meaning: "optimizer" },
    KeyDoc { key: "seq", values: "1–100000000", default: "2048", meaning: "tokens per sequence (the prompt, for inference); vision tokens are added to it" },
    KeyDoc { key: "batch", values: "1–65536", default: "1", meaning: "micro-batch per GPU (concurrent sequences, for inference)" },
    KeyDoc { key: "accum", values: "1–1000000", default: "1", meaning: "gradient accumulation steps (no memory; shown as the effective batch)" },
    KeyDoc { key: "rank", values: "1–65536", default: "16", meaning: "LoRA rank r" },
    KeyDoc { key: "targets", values: "qv, qkvo, all", default: "all", meaning: "linear layers with LoRA adapters" },
    KeyDoc { key: "gc", values: "0, 1", default: "1", meaning: "gradient checkpointing (per decoder layer)" },
    KeyDoc { key: "attn", values: "eager, sdpa, flash", default: "sdpa", meaning: "attention kernel; eager stores the s² scores" },
    KeyDoc { key: "bnb", values: "fixed, legacy", default: "fixed", meaning: "bitsandbytes behind a 4-bit base (QLoRA): legacy = before 0.43.2, whose 4-bit layers kept their input for backward; fixed = 0.43.2 on" },
    KeyDoc { key: "loss", values: "hf, hf_shift, chunked, fused", default: "hf", meaning: "how the loss meets the logits (training): hf = transformers ≥ 4.48 (fp32 upcast + log-softmax, 12 B per logit at its backward), hf_shift = older transformers (+ a shifted fp32 copy), chunked = chunked cross-entropy (LitGPT, torchtune), fused = fused linear cross-entropy (Liger, Cut Cross-Entropy, Unsloth)" },
    KeyDoc { key: "gpus", values: "1–100000", default: "1", meaning: "data-parallel GPUs (training) or tensor-parallel GPUs (inference); the bill is per GPU" },
    KeyDoc { key: "zero", values: "0, 1, 2, 3", default: "0", meaning: "ZeRO stage over `gpus` (3 = FSDP full shard)" },
    KeyDoc { key: "kv", values: "bf16, fp16, fp8, int8, int4", default: "bf16", meaning: "KV-cache dtype (int8/int4 = llama.cpp q8_0/q4_0 blocks)" },
    KeyDoc { key: "gen", values: "0–100000000", default: "0", meaning: "generated tokens; the KV cache holds prompt + generated" },
    KeyDoc { key: "images", values: "0–1024", default: "0", meaning: "images per sequence (vision-language presets)" },
    KeyDoc { key: "image_px", values: "1–100000", default: "448", meaning: "side of a square image in pixels; Qwen2-VL makes (px/28)² tokens of it" },
    KeyDoc { key: "gpu", values: "a GPU preset id (see `vram-ledger --presets`)", default: "rtx4090", meaning: "the GPU" },
    KeyDoc { key: "vram", values: "0.001–1000000", default: "—", meaning: "a custom GPU size in GiB (wins over `gpu`)" },
    KeyDoc { key: "overhead_mib", values: "0–1000000", default: "500", meaning: "CUDA context + library workspaces per GPU, in MiB" },
    KeyDoc { key: "drill", values: "comma-separated: no_grad, tensor_list, fp32_module, zombie", default: "— (no mistakes)", meaning: "the five-OOM drill: inject classic mistakes (evaluation without no_grad, logits kept in a list for 10 steps, embedding and LM head left in fp32, a leftover process)" },
];

/// The keys alone, in the table's order: what the parser checks against. The web bundle needs only
/// these names, so the documentation strings above stay out of it (a test keeps the two in step).
pub const KEY_NAMES: [&str; 37] = ["model", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "tied", "mlp", "experts", "active_experts", "mode", "method", "precision", "quant", "dq", "optim", "seq", "batch", "accum", "rank", "targets", "gc", "attn", "bnb", "loss", "gpus", "zero", "kv", "gen", "images", "image_px", "gpu", "vram", "overhead_mib", "drill"];

/// Keys the web app reads; the ledger ignores them without a warning.
pub const UI_KEYS: [&str; 4] = ["lang", "embed", "tree", "unit"];
