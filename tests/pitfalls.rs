//! The mistakes today's web calculators make (issue #3), each with a test that the ledger does not
//! make it. Expected figures are worked out by hand in the comments.

mod common;
use common::scenario;
use vram_ledger::ledger::bill::ComponentId as C;
use vram_ledger::ledger::estimate;
use vram_ledger::ledger::units::{format_bytes, Unit};

fn component(q: &str, c: C) -> u64 {
    estimate(&scenario(q)).component(c)
}

/// GQA ignored: Llama-3.1-70B caches 8 KV heads, not 64. Per token: 2 × 80 × 8 × 128 × 2 B =
/// 327,680 B = 320 KiB (formulas.md §1.6), not 2.5 MiB.
#[test]
fn kv_cache_uses_kv_heads_not_query_heads() {
    assert_eq!(component("model=llama-3.1-70b&mode=infer&seq=1", C::KvCache), 320 * 1024);
}

/// K and V counted once: the factor 2 is there. Mistral-7B, 1,000 tokens, fp16:
/// 2 × 32 × 8 × 128 × 1000 × 2 B = 131,072,000 B.
#[test]
fn kv_cache_counts_both_keys_and_values() {
    assert_eq!(component("model=mistral-7b&mode=infer&seq=1000&kv=fp16", C::KvCache), 131_072_000);
}

/// Activations over-counted with flash attention: with flash/SDPA there is no s² term, so
/// doubling the sequence doubles the activations exactly, and at 8k tokens eager attention (which
/// keeps fp32 scores and a bf16 copy: 32 heads × 8192² × 6 B = 12 GiB per layer) is far larger.
#[test]
fn flash_attention_has_no_quadratic_term() {
    let q = |attn: &str, seq: u32| component(&format!("method=full&gc=0&attn={attn}&seq={seq}"), C::Activations);
    let (f4, f8) = (q("flash", 4096), q("flash", 8192));
    assert!((f8 as i64 - 2 * f4 as i64).abs() <= 2);
    let e8 = q("eager", 8192);
    let scores_per_layer = 32u64 * 8192 * 8192 * 6;
    assert!(e8 >= f8 + 32 * scores_per_layer / 2, "eager {e8} vs flash {f8}");
}

/// The textbook sbhL(34 + 5as/h) assumes eager attention with dropout; applying it to a flash
/// run over-counts (D1 measured 3,403 MiB vs the formula's 7,104 MiB). For a GPT-3-like shape at
/// 2k tokens the ledger's flash figure must be well under the textbook figure.
#[test]
fn flash_activations_are_below_the_textbook_formula() {
    let q = "model=custom&layers=24&hidden=2048&heads=16&kv_heads=16&head_dim=128&ffn=8192&mlp=gelu&vocab=50257&method=full&gc=0&seq=2048&attn=flash";
    let s = scenario(q);
    let ledger = estimate(&s).component(C::Activations) as f64;
    let (sq, h, l, a) = (2048.0, 2048.0, 24.0, 16.0);
    let textbook = sq * h * l * (34.0 + 5.0 * a * sq / h);
    assert!(ledger < 0.6 * textbook, "ledger {ledger} vs textbook {textbook}");
}

/// fp32 logits forgotten: with Hugging Face's loss (`loss=hf`, transformers ≥ 4.48) the forward keeps
/// the LM head output (2 B), its fp32 upcast (4 B) and the fp32 log-probabilities (4 B); the backward of
/// log-softmax then holds its saved fp32 output, the incoming fp32 gradient and the fp32 gradient it
/// returns (3 × 4 = 12 B) while the 16-bit logits are gone: the peak is 12 B per batch × seq × vocab
/// element. Gemma-2 also soft-caps its logits (tanh), whose 2-byte output stays for backward: 14 B.
/// Gemma-2-2B (vocab 256,000) at 2,048 tokens: 2048 × 256000 × 14 B = 7,340,032,000 B — more than its
/// activations with checkpointing and more than its bf16 weights (5.23 GB). Older transformers
/// (`hf_shift`) add a shifted fp32 copy in the forward: 2 + 4 + 4 + 4 = 14 B (+ 2); chunked
/// cross-entropy keeps 2 + 4 = 6 B (+ 2); a fused kernel one chunk.
#[test]
fn fp32_logits_are_counted_and_dominate_large_vocabularies() {
    let s = scenario("model=gemma-2-2b&method=lora&seq=2048&batch=1&gc=1");
    let bill = estimate(&s);
    assert_eq!(bill.component(C::Logits), 2048 * 256_000 * 14);
    assert!(bill.component(C::Logits) > bill.component(C::Activations));
    assert!(bill.component(C::Logits) > bill.component(C::Weights));
    for (loss, bytes) in [("hf_shift", 16), ("chunked", 8)] {
        let logits =
            estimate(&scenario(&format!("model=gemma-2-2b&method=lora&seq=2048&loss={loss}"))).component(C::Logits);
        assert_eq!(logits, 2048 * 256_000 * bytes, "{loss}");
    }
    // Fused (Liger): never all the logits, but one chunk and the input gradient. Chunk: the next
    // power of 2 of ⌈2048 / ⌈256,000 / 2,304⌉ = 112⌉ = 19 → 32 tokens × 256,000 × (2 + 4) B =
    // 49,152,000 B; input gradient 2048 × 2,304 × 2 B + an fp32 loss per token: 9,445,376 B.
    let fused = estimate(&scenario("model=gemma-2-2b&method=lora&seq=2048&loss=fused")).component(C::Logits);
    assert_eq!(fused, 49_152_000 + 9_445_376);
    // Without soft-capping (Llama): 12 B; fp32 training has no upcast and 4-byte tanh: 12 + 4 = 16 B.
    let llama = estimate(&scenario("model=llama-3.1-8b&method=lora&seq=2048")).component(C::Logits);
    assert_eq!(llama, 2048 * 128_256 * 12);
    let fp32 = estimate(&scenario("model=gemma-2-2b&method=full&precision=fp32&seq=2048")).component(C::Logits);
    assert_eq!(fp32, 2048 * 256_000 * 16);
}

/// GB confused with GiB: the same byte count shows as 16.06 GB and 14.96 GiB (Llama-3.1-8B in
/// bf16: 16,060,522,496 B), and GPU presets are the driver's MiB (RTX 4090: 24,564 MiB = 23.99 GiB,
/// 25.76 GB).
#[test]
fn gb_and_gib_are_kept_apart() {
    let w = component("model=llama-3.1-8b&mode=infer", C::Weights);
    assert_eq!(w, 16_060_522_496);
    assert_eq!(format_bytes(w, Unit::GB), "16.06 GB");
    assert_eq!(format_bytes(w, Unit::GiB), "14.96 GiB");
    let gpu = estimate(&scenario("gpu=rtx4090")).gpu_bytes;
    assert_eq!(format_bytes(gpu, Unit::GiB), "23.99 GiB");
    assert_eq!(format_bytes(gpu, Unit::GB), "25.76 GB");
}

/// LoRA rank ignored: adapters are r·(d_in + d_out) per adapted matrix, so rank 64 holds exactly
/// 8× the adapter parameters of rank 8; with GQA, k_proj and v_proj are 4096 → 1024 on Llama-3.1-8B:
/// per layer at r = 8: 8 × [(4096+4096) + (4096+1024)·2 + (4096+4096)] = 212,992 → × 32 = 6,815,744.
#[test]
fn lora_rank_and_gqa_shapes_change_the_adapter_count() {
    let r8 = component("model=llama-3.1-8b&method=lora&rank=8&targets=qkvo", C::AdapterWeights);
    let r64 = component("model=llama-3.1-8b&method=lora&rank=64&targets=qkvo", C::AdapterWeights);
    assert_eq!(r64, 8 * r8);
    assert_eq!(r8, 6_815_744 * 4, "fp32 adapters");
    // PEFT prints 3,686,400 trainable for Qwen2.5-3B with r=16 on q_proj, v_proj (peft README):
    // 36 × 16 × [(2048+2048) + (2048+256)].
    let qwen = component("model=qwen2.5-3b&method=lora&rank=16&targets=qv", C::AdapterWeights);
    assert_eq!(qwen, 3_686_400 * 4);
    // …and 524,288 for Llama-3.2-1B with r=8 on q_proj alone is 16 × 8 × (2048+2048); q,v adds
    // v_proj 16 × 8 × (2048+512) = 327,680.
    let llama = component("model=llama-3.2-1b&method=lora&rank=8&targets=qv", C::AdapterWeights);
    assert_eq!(llama, (524_288 + 327_680) * 4);
}

/// Gradients and optimizer states only for trainable parameters (chapter self-test 2): LoRA's
/// are proportional to the adapters, never to the base.
#[test]
fn lora_gradients_follow_the_adapters() {
    let bill = estimate(&scenario("model=llama-3.1-8b&method=lora&rank=8&targets=qkvo"));
    assert_eq!(bill.gradient_bytes, 6_815_744 * 4, "every gradient of the step");
    assert_eq!(bill.component(C::Gradients), 0, "none exists yet when backward starts, the peak");
    assert_eq!(bill.component(C::Optimizer), 6_815_744 * 8);
    assert_eq!(bill.component(C::MasterWeights), 0);
}

/// Quantized checkpoints keep the embeddings and LM head in 16-bit: Qwen2.5-0.5B in NF4 is not
/// 0.5 B × 0.5 B. Its tied 151,936 × 896 embedding (136 M parameters, 27 %) stays at 2 B.
#[test]
fn quantized_weights_keep_embeddings_in_16_bit() {
    let s = scenario("model=qwen2.5-0.5b&mode=infer&quant=nf4&dq=0");
    let a = &s.architecture;
    let w = estimate(&s).component(C::Weights) as f64;
    let linear = a.linear_parameters() as f64;
    let rest = (a.parameters() - a.linear_parameters()) as f64;
    assert_eq!(w, (linear * 4.5 / 8.0 + rest * 2.0).round());
    assert!(rest >= 151_936.0 * 896.0);
    assert!(w > 1.5 * a.parameters() as f64 * 4.5 / 8.0, "naive 4-bit would be far smaller");
}

/// Storage formats, bits per weight (formulas.md §1.2): NF4 4.5 (4.127 with double quant),
/// GPTQ/AWQ g128 4.156, GGUF averages from llama.cpp's own table. Llama-3.1-8B Q4_K_M: 8.03 B ×
/// 4.8944 / 8 = 4.58 GiB, the size llama.cpp's quantize README lists.
#[test]
fn gguf_sizes_match_llama_cpp() {
    for (quant, gib) in [("q4_k_m", 4.58), ("q5_k_m", 5.33), ("q6_k", 6.14), ("q8_0", 7.95)] {
        let w =
            component(&format!("model=llama-3.1-8b&mode=infer&quant={quant}"), C::Weights) as f64 / (1u64 << 30) as f64;
        assert!((w - gib).abs() < 0.01, "{quant}: {w} vs {gib}");
    }
}

/// The fast fixed-point formatting agrees with Rust's own rounding on the figures people read.
#[test]
fn number_formatting() {
    use vram_ledger::ledger::units::{factor, human_bytes};
    assert_eq!(format_bytes(0, Unit::GiB), "0.00 GiB");
    assert_eq!(format_bytes(1 << 30, Unit::GiB), "1.00 GiB");
    assert_eq!(format_bytes(16_060_522_496, Unit::GiB), "14.96 GiB");
    assert_eq!(format_bytes(5_000_000, Unit::GB), "0.01 GB");
    assert_eq!(human_bytes(1536.0), "1.50 KiB");
    assert_eq!(human_bytes(512.0), "512 B");
    assert_eq!(human_bytes(f64::NAN), "0 B");
    assert_eq!(factor(2.0), "2");
    assert_eq!(factor(0.515869140625), "0.5159");
    assert_eq!(factor(4.8944), "4.8944");
    assert_eq!(factor(10.0), "10");
}

#[test]
fn thousands_separators() {
    use vram_ledger::ledger::units::group;
    assert_eq!(group(0), "0");
    assert_eq!(group(999), "999");
    assert_eq!(group(1000), "1,000");
    assert_eq!(group(8_030_261_248), "8,030,261,248");
    assert_eq!(group(u64::MAX), "18,446,744,073,709,551,615");
}
