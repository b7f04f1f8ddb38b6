//! The published measurements of `../shared/reference/measured-public.md`, rows B–D, checked
//! against the ledger. Each test names its row, its source and the reason for its tolerance.

mod common;
use common::scenario;
use vram_ledger::ledger::architecture::{Architecture, MlpKind, NormKind};
use vram_ledger::ledger::bill::ComponentId as C;
use vram_ledger::ledger::scenario::{AttentionKernel, Checkpointing, Method, Mode, Optimizer, Precision};
use vram_ledger::ledger::{estimate, Scenario};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

/// B1: vLLM's start-up log for Llama-2-7B in bf16: "Loading model weights took 12.5523 GB" (GiB).
/// The ledger: 6,738,415,616 × 2 B = 12.5517 GiB. vLLM also holds small buffers (rotary tables);
/// tolerance 0.1 %.
#[test]
fn b1_llama_2_7b_weights_as_vllm_loads_them() {
    let w = estimate(&scenario("model=llama-2-7b&mode=infer")).component(C::Weights) as f64 / GIB;
    assert!((w - 12.5523).abs() / 12.5523 < 0.001, "{w}");
}

/// B2: vLLM logs for Llama-3(.1)-8B in bf16: 14.96–14.99 GiB. The ledger: 14.958 GiB.
#[test]
fn b2_llama_3_8b_weights_as_vllm_loads_them() {
    let w = estimate(&scenario("model=llama-3.1-8b&mode=infer")).component(C::Weights) as f64 / GIB;
    assert!((14.95..=14.99).contains(&w), "{w}");
}

// B3 (bert-base-cased, fp32, 413.68 MB measured): not checked — BERT is an encoder (token-type
// embeddings, an embedding LayerNorm, a pooler) and the ledger models decoder-only LMs and VLMs.

/// C1: the HF Llama 3.1 blog's KV-cache table, fp16, one sequence: 0.125 / 1.95 / 15.62 "GB" for
/// 1k / 16k / 128k tokens. The figures are GiB (128 KiB per token) and the blog's "1k" is 1,024
/// tokens while its "16k" and "128k" are 16,000 and 128,000 (16,384 would give 2.00). Exact up to the
/// blog's rounding.
#[test]
fn c1_llama_3_1_8b_kv_cache() {
    for (tokens, published) in [(1024u64, 0.125), (16_000, 1.95), (128_000, 15.62)] {
        let kv = estimate(&scenario(&format!("model=llama-3.1-8b&mode=infer&seq={tokens}&kv=fp16")))
            .component(C::KvCache) as f64
            / GIB;
        assert!((kv - published).abs() <= 0.005 + 1e-9, "{tokens}: {kv} vs {published}");
    }
}

/// C2: ollama PR #6276, Llama-3.1-8B at 32k tokens: f16 KV 4 GB → q4_0 KV 1.1 GB. The ledger's int4
/// KV is llama.cpp's q4_0 block (32 values + an fp16 scale = 4.5 bits): 4 GiB × 4.5/16 = 1.125 GiB.
#[test]
fn c2_kv_cache_quantized_to_q4_0() {
    let f16 = estimate(&scenario("model=llama-3.1-8b&mode=infer&seq=32768&kv=fp16")).component(C::KvCache) as f64;
    let q4 = estimate(&scenario("model=llama-3.1-8b&mode=infer&seq=32768&kv=int4")).component(C::KvCache) as f64;
    assert_eq!(f16 / GIB, 4.0);
    assert!((q4 / GIB - 1.1).abs() < 0.03, "{}", q4 / GIB);
}

/// microsoft/phi-1_5 as D1 measured it: 24 layers, hidden 2048, 32 heads, MLP 8192 (GELU),
/// vocab 51,200, LayerNorm, biases, untied head; one norm per block (attention and MLP in parallel).
fn phi_1_5() -> Architecture {
    Architecture {
        mlp: MlpKind::Gelu,
        norm: NormKind::LayerNorm,
        norms_per_layer: 1,
        qkv_bias: true,
        out_and_mlp_bias: true,
        ..Architecture::decoder("phi-1_5", 24, 2048, 32, 32, 64, 8192, 51_200, false)
    }
}

fn d1_training() -> Scenario {
    Scenario {
        model_id: None,
        architecture: phi_1_5(),
        mode: Mode::Train,
        method: Method::Full,
        precision: Precision::Fp32,
        optimizer: Optimizer::SgdMomentum,
        seq: 512,
        batch: 4,
        checkpointing: Checkpointing::Off,
        attention: AttentionKernel::Sdpa,
        ..Scenario::default()
    }
}

/// D1 (furiousteabag/vram, A100-40GB): phi-1_5 has 1.418 B parameters; fp32 weights 5,412 MiB
/// measured (1,418,219,520 × 4 B = 5,410 MiB, + the head's 51,200 biases we do not model).
#[test]
fn d1_phi_weights() {
    let s = d1_training();
    assert!((s.architecture.parameters() as f64 - 1.418e9).abs() / 1.418e9 < 0.001);
    let w = estimate(&s).component(C::Weights) as f64 / MIB;
    assert!((w - 5412.0).abs() / 5412.0 < 0.005, "{w} MiB");
}

/// D1: SGD with momentum keeps one fp32 buffer per parameter: 5,410 MiB by the formula, 5,850 MiB
/// measured (the measurement includes the step's temporaries). Tolerance 10 %.
#[test]
fn d1_phi_momentum_buffer() {
    let opt = estimate(&d1_training()).component(C::Optimizer) as f64 / MIB;
    assert!((opt - 5850.0).abs() / 5850.0 < 0.10, "{opt} MiB");
}

/// D1: activations ≈ 3,403 MiB measured for batch 4 × 512 tokens, where the textbook
/// sbhL(34 + 5as/h) gives 7,104 MiB. The run kept fp32 weights under bf16 autocast, so the
/// residual stream and LayerNorms are fp32 while matmul outputs are bf16; the ledger's `fp32`
/// precision (4 B everywhere) and `mixed` (2 B) bracket it. Its phi block has one norm where the
/// ledger's blocks have two. We require the measured figure to lie between the two ledger figures,
/// and the textbook formula to over-count (the point of the row).
#[test]
fn d1_phi_activations_bracket_the_measurement() {
    let fp32 = estimate(&d1_training()).component(C::Activations) as f64 / MIB;
    let bf16 =
        estimate(&Scenario { precision: Precision::Mixed, ..d1_training() }).component(C::Activations) as f64 / MIB;
    assert!(bf16 < 3403.0 && 3403.0 < fp32, "bf16 {bf16} MiB, fp32 {fp32} MiB");
    let (s, b, h, l, a) = (512.0, 4.0, 2048.0, 24.0, 32.0);
    let textbook = s * b * h * l * (34.0 + 5.0 * a * s / h) / MIB;
    assert!((textbook - 7104.0).abs() < 1.0, "{textbook}");
    assert!(fp32 < textbook);
}

/// D1: the inference forward pass materialised 400 MiB of fp32 logits = 4 × 512 × 51,200 × 4 B.
/// The ledger's training logits for the same shape include exactly that fp32 copy (4 B of its
/// per-element bytes).
#[test]
fn d1_phi_fp32_logits() {
    let s = d1_training();
    let logits = estimate(&s).component(C::Logits) as f64;
    let fp32_copy = 4.0 * 512.0 * 51_200.0 * 4.0;
    assert_eq!(fp32_copy / MIB, 400.0);
    assert!(logits >= fp32_copy);
}

/// D2 (torchtune LoRA tutorial, Llama-2-7B, batch 2, checkpointing, bf16, AdamW): peak reserved
/// 15.57 GB (q,v r=8) … 17.04 GB (all layers r=64), QLoRA 9.29 GB. The tutorial does not print its
/// sequence lengths (alpaca, padded per batch), so the absolute figures cannot be reproduced; we
/// check its lesson with torchtune's bf16 adapters at 512 tokens: rank and targets move the total by
/// a few percent (measured: +9.4 % from q,v r=8 to all r=64) and the frozen base dominates.
/// QLoRA: the measured total is 60 % of LoRA's; the ledger's is 34 % (NF4 base 3.6 GiB where the
/// bf16 base is 12.55 GiB). D2 is not in the accuracy report (tests/data/measured.toml) because its
/// sequence lengths are not printed; the QLoRA paper's 5,048 MB 4-bit 7B base is (qlora-paper-guanaco-7b-4bit,
/// with the fp32 embedding and head PEFT leaves: −4 %). Until D2's lengths are known (or the run is
/// measured, we only require QLoRA to save at least a quarter.
#[test]
fn d2_rank_and_targets_move_the_total_by_a_few_percent() {
    let total = |q: &str| {
        estimate(&scenario(&format!("model=llama-2-7b&precision=bf16&batch=2&seq=512&gc=1&{q}"))).reserved_bytes()
            as f64
    };
    let qv8 = total("method=lora&targets=qv&rank=8");
    let all64 = total("method=lora&targets=all&rank=64");
    let qlora = total("method=qlora&targets=qv&rank=8");
    let spread = all64 / qv8 - 1.0;
    assert!(spread > 0.0 && spread < 0.15, "measured 9.4 %, ledger {:.1} %", spread * 100.0);
    let ratio = qlora / qv8;
    assert!(ratio < 0.75, "measured 0.60, ledger {ratio:.2}");
}

const LLAMA1_33B: &str =
    "model=custom&layers=60&hidden=6656&heads=52&kv_heads=52&head_dim=128&ffn=17920&vocab=32000&tied=0";
const LLAMA1_65B: &str =
    "model=custom&layers=80&hidden=8192&heads=64&kv_heads=64&head_dim=128&ffn=22016&vocab=32000&tied=0";

/// QLoRA paper (arXiv 2305.14314) Table 6, "Memory" of the evaluated models (formulas.md §1.4 [V]).
/// LLaMA-1 7B/13B have Llama-2-7B/13B's shapes; 33B/65B are written out (32.5 B / 65.3 B parameters, the
/// published sizes). The paper does not say which total it printed; its figures sit on the tensors
/// (allocated) of a 512-token forward pass, so that is what we compare.
/// 16-bit rows (Vicuna 13B 26 GB, Open Assistant 33B 66 GB): within 3 %.
#[test]
fn qlora_table_6_sixteen_bit_rows() {
    for (model, published_gb) in [("model=llama-2-13b", 26.0), (LLAMA1_33B, 66.0)] {
        let b = estimate(&scenario(&format!("{model}&mode=infer&quant=fp16&seq=512")));
        let gb = b.allocated_bytes() as f64 / 1e9;
        assert!((gb / published_gb - 1.0).abs() < 0.03, "{model}: {gb} GB vs {published_gb}");
    }
}

/// 4-bit rows (Guanaco 7B 5 GB, 13B 10 GB, 33B 21 GB, 65B 41 GB) with the paper's own QLoRA setup:
/// NF4 with double quantization, and the modules PEFT's `prepare_model_for_kbit_training` leaves
/// unquantized (embedding, LM head) in fp32 — the ledger's `drill=fp32_module`. The ledger is 4–15 %
/// under (13B is the largest gap: 8.5 GB vs 10 GB); the table's integer GB hide ±0.5 GB. Tolerance 16 %,
/// and the ledger must not be above the measurement by more than the rounding.
#[test]
fn qlora_table_6_four_bit_rows() {
    for (model, published_gb) in
        [("model=llama-2-7b", 5.0), ("model=llama-2-13b", 10.0), (LLAMA1_33B, 21.0), (LLAMA1_65B, 41.0)]
    {
        let b = estimate(&scenario(&format!("{model}&mode=infer&quant=nf4&dq=1&drill=fp32_module&seq=512")));
        let gb = b.allocated_bytes() as f64 / 1e9;
        let error = gb / published_gb - 1.0;
        assert!(
            error.abs() < 0.16 && gb < published_gb + 0.5,
            "{model}: {gb:.2} GB vs {published_gb} ({:.1} %)",
            error * 100.0
        );
    }
    // Without the fp32 embedding and head the 7B would be 4.28 GB — the paper's 5 GB needs them.
    let plain =
        estimate(&scenario("model=llama-2-7b&mode=infer&quant=nf4&dq=1&seq=512")).allocated_bytes() as f64 / 1e9;
    assert!(plain < 4.5, "{plain}");
}
