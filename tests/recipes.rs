//! The training recipes people run (issue 13): PEFT's k-bit recipe as QLoRA's default, LoRA
//! dropout, a fused loss that keeps its chunk, and the range every total carries. Expected figures
//! are hand arithmetic on the architecture (in the comments) or published measurements (with their
//! source).

mod common;
use common::scenario;
use vram_ledger::ledger::bill::{ComponentId as C, TotalKind, Verdict};
use vram_ledger::ledger::estimate;
use vram_ledger::ledger::scenario::Recipe;

fn component(q: &str, c: C) -> u64 {
    estimate(&scenario(q)).component(c)
}

/// Llama-3.1-8B's unquantized parameters: embedding and LM head 2 × 128,256 × 4,096 =
/// 1,050,673,152, norms 65 × 4,096 = 266,240: 1,050,939,392. PEFT's prepare_model_for_kbit_training
/// casts them to fp32: + 2 B each. Autocast computes the fp32 LM head from a bf16 copy kept for its
/// backward: 525,336,576 × 2 B, with the logits.
#[test]
fn the_peft_recipe_holds_the_unquantized_parameters_in_fp32() {
    let q = "model=llama-3.1-8b&method=qlora&seq=2048";
    assert_eq!(scenario(q).recipe(), Recipe::Peft, "QLoRA's default");
    let plain = format!("{q}&recipe=plain");
    let diff = component(q, C::Weights) as i64 - component(&plain, C::Weights) as i64;
    assert!((diff - 2 * 1_050_939_392).abs() <= 1, "{diff}");
    let head = component(q, C::Logits) as i64 - component(&plain, C::Logits) as i64;
    assert_eq!(head, 525_336_576 * 2);
    // Checkpointed layer inputs in the fp32 stream: 32 × 2,048 × 4,096 × (4 − 2) B more.
    let acts = component(q, C::Activations) as i64 - component(&plain, C::Activations) as i64;
    assert!(acts >= 32 * 2048 * 4096 * 2, "{acts}");
    // A 16-bit base (LoRA) and GPTQ (PEFT skips its cast) keep the plain recipe.
    assert_eq!(scenario("model=llama-3.1-8b&method=lora").recipe(), Recipe::Plain);
    assert_eq!(scenario("model=llama-3.1-8b&method=qlora&quant=gptq4").recipe(), Recipe::Plain);
    assert_eq!(scenario("model=llama-3.1-8b&method=lora&quant=nf4").recipe(), Recipe::Peft);
    // Sharded QLoRA (FSDP / ZeRO-3 over several GPUs): TRL skips the preparation.
    assert_eq!(scenario("model=llama-3.1-8b&method=qlora&gpus=2&zero=3").recipe(), Recipe::Plain);
    assert_eq!(scenario("model=llama-3.1-8b&method=qlora&gpus=2&zero=2").recipe(), Recipe::Peft);
    // …but DeepSpeed's engine casts the prepared model back to its 16-bit dtype (`module.bfloat16()`):
    // under ZeRO-1/2 the prepared weights are the plain ones.
    let ds = format!("{q}&gpus=2&zero=2");
    assert_eq!(component(&ds, C::Weights), component(&format!("{ds}&recipe=plain"), C::Weights));
    // The drill's "embedding and LM head left in fp32" is already the recipe's state: nothing more.
    let drilled = estimate(&scenario(&format!("{q}&drill=fp32_module")));
    assert_eq!(drilled.component(C::Fp32Module), 0);
    assert!(drilled.notes.iter().any(|n| n.key == "fp32_module_recipe"));
    assert!(component(&format!("{plain}&drill=fp32_module"), C::Fp32Module) > 0);
    // TRL's recipe casts the embedding and LM head back to bf16, so there the drill's fp32 module
    // costs its 2 B more per parameter: 2 × 128,256 × 4,096 (embedding and untied head) × 2 B.
    let trl = estimate(&scenario(&format!("{q}&recipe=trl&drill=fp32_module")));
    assert_eq!(trl.component(C::Fp32Module), 2 * 128_256 * 4096 * 2);
    assert!(!trl.notes.iter().any(|n| n.key == "fp32_module_recipe"));
}

/// The link carries `recipe` only where it differs from the default.
#[test]
fn recipe_and_dropout_round_trip_in_links() {
    for (q, written) in [
        ("model=llama-3.1-8b&method=qlora&recipe=plain", Some("recipe=plain")),
        ("model=llama-3.1-8b&method=qlora&recipe=peft", None),
        ("model=llama-3.1-8b&method=lora&recipe=peft", Some("recipe=peft")),
        ("model=llama-3.1-8b&method=lora&lora_dropout=0.05", Some("lora_dropout=0.05")),
    ] {
        let link = vram_ledger::query::to_query(&scenario(q), &[]);
        match written {
            Some(w) => assert!(link.contains(w), "{q} → {link}"),
            None => assert!(!link.contains("recipe"), "{q} → {link}"),
        }
        assert_eq!(estimate(&scenario(&link)).device_bytes(), estimate(&scenario(q)).device_bytes(), "{q}");
    }
    let bad = vram_ledger::query::parse("lora_dropout=1.5&recipe=tlr");
    assert_eq!(bad.errors.len(), 2, "{:?}", bad.errors.iter().map(|e| &e.key).collect::<Vec<_>>());
}

/// LoRA dropout: each adapter keeps its dropped input (2 B) and a 1-byte mask instead of sharing
/// the layer's input. Llama-3.1-8B, adapters on every linear layer, bf16, no checkpointing: inputs
/// q, k, v, o, gate, up 4,096 wide and down 14,336: Σ d_in = 38,912 × 3 B = 116,736 B per token and
/// layer, against the shared inputs it replaces (attention input, o_proj's SDPA input, MLP input: 3
/// × 4,096 × 2 B, down's 14,336 × 2 B = 53,248 B): + 63,488 B × 32 layers × 1,024 tokens.
#[test]
fn lora_dropout_keeps_a_copy_and_a_mask_per_adapter() {
    let q = "model=llama-3.1-8b&method=lora&precision=bf16&targets=all&gc=0&seq=1024";
    let diff = component(&format!("{q}&lora_dropout=0.1"), C::Activations) as i64 - component(q, C::Activations) as i64;
    assert_eq!(diff, 63_488 * 32 * 1024);
    assert_eq!(component(&format!("{q}&lora_dropout=0"), C::Activations), component(q, C::Activations));
}

/// Liger's fused linear cross-entropy benchmark (Liger-Kernel benchmark data CSV, H = 4,096,
/// V = 128,256, bf16, A100, liger 0.4.2): 4,245.5 MiB at 4,096 tokens, 5,794.6 MiB at 32,768 — a
/// slope of 0.0540 MiB per token, which includes the benchmark's own input and its gradient
/// (2 × 4,096 × 2 B per token). The ledger's fused line plus those is within 20 % of it.
#[test]
fn a_fused_loss_grows_as_liger_measures() {
    let logits =
        |seq: u64| component(&format!("model=llama-3.1-8b&method=lora&loss=fused&seq={seq}"), C::Logits) as f64;
    let per_token = (logits(32768) - logits(4096)) / 28_672.0 + 2.0 * 4096.0 * 2.0;
    let measured = (5794.6259765625 - 4245.5478515625) / 28_672.0 * 1_048_576.0;
    assert!((per_token / measured - 1.0).abs() < 0.2, "{per_token} vs {measured} B per token");
    // And far below the unfused loss: 12 B per logit.
    assert!(logits(32768) * 10.0 < (32768u64 * 128_256 * 12) as f64);
}

/// Every total has a range around it; the verdict never says "fits" when the high end of the device
/// range exceeds the card.
#[test]
fn totals_carry_ranges_and_the_verdict_respects_the_high_end() {
    for q in [
        "model=llama-3.1-8b&method=qlora&seq=4096&gpu=rtx4090",
        "model=qwen2.5-7b&method=full&gpu=h100-80g",
        "model=llama-3.1-8b&mode=infer&seq=8192",
        "model=llama-3.1-8b&mode=infer&engine=vllm&gpu=l40s",
    ] {
        let bill = estimate(&scenario(q));
        for (kind, point) in [
            (TotalKind::Allocated, bill.allocated_bytes()),
            (TotalKind::Reserved, bill.reserved_bytes()),
            (TotalKind::Device, bill.device_bytes()),
        ] {
            let (low, high) = bill.range(kind);
            assert!(low <= point && point <= high, "{q} {kind:?}: {low} {point} {high}");
        }
        if bill.verdict() == Verdict::Fits {
            assert!(bill.range(TotalKind::Device).1 <= bill.gpu_bytes, "{q}");
        }
    }
    // Weights and optimizer states are exact; activations open: full fine-tuning of a small model
    // at a short sequence has a narrow range, a long-context LoRA run a wide one.
    let width = |q: &str| {
        let b = estimate(&scenario(q));
        let (l, h) = b.range(TotalKind::Allocated);
        (h - l) as f64 / b.allocated_bytes() as f64
    };
    assert!(width("model=qwen2.5-0.5b&method=full&seq=256") < width("model=llama-3.1-8b&method=lora&seq=32768&gc=0"));
    // A point that keeps the margin but whose high end exceeds the card: not "fits". A custom card
    // sized between the point / 0.8 and the high end.
    let q = "model=llama-3.1-8b&method=lora&seq=16384&gc=0";
    let b = estimate(&scenario(q));
    let (point, high) = (b.device_bytes() as f64, b.range(TotalKind::Device).1 as f64);
    assert!(high > point / 0.8, "the range is wider than the margin here: {point} {high}");
    let gib = (point / 0.8 + (high - point / 0.8) / 2.0) / (1u64 << 30) as f64;
    let tight = estimate(&scenario(&format!("{q}&vram={gib:.3}")));
    assert!(tight.high_end_decides());
    assert_eq!(tight.verdict(), Verdict::FitsWithoutMargin);
}

/// Unsloth's published "Hugging Face + FA2" columns (README, "Llama 3.1 (8B) max. context length";
/// the Llama 3.3 blog post for 70B): the longest context a QLoRA run (r = 32, every linear layer,
/// batch 1, checkpointing) fits in 12–80 GB — 932 … 28,454 tokens, 6,916 for Llama-3.3-70B on 80 GB.
/// With the recipe's defaults (no hand-set keys) the ledger's longest sequence that fits the card
/// (its own `fits()`: the device total, CUDA context included) is within the 15 %.
#[test]
fn unsloth_s_hf_baseline_contexts_with_the_recipe_s_defaults() {
    let rows = [
        ("llama-3.1-8b", 12u64, 932u64),
        ("llama-3.1-8b", 16, 2551),
        ("llama-3.1-8b", 24, 5789),
        ("llama-3.1-8b", 40, 12264),
        ("llama-3.1-8b", 48, 15502),
        ("llama-3.1-8b", 80, 28454),
        ("llama-3.3-70b", 80, 6916),
    ];
    for (model, vram, published) in rows {
        let base = format!("model={model}&method=qlora&rank=32&targets=all&attn=flash&vram={vram}");
        let fits = |seq: u64| estimate(&scenario(&format!("{base}&seq={seq}"))).fits();
        let (mut lo, mut hi) = (1u64, 200_000u64);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let error = lo as f64 / published as f64 - 1.0;
        assert!(error.abs() < 0.15, "{model} on {vram} GB: {lo} vs {published} ({error:+.2})");
    }
}

/// A hand-written loop (`loop=script`) keeps the model's output through backward: one copy of the
/// logits in the dtype the model returns — Llama-3.1-8B LoRA, 1,024 tokens, bf16 logits: 1,024 ×
/// 128,256 × 2 B = 262,668,288 B (fp32 from older transformers, `loss=hf_shift`: twice that). With
/// bitsandbytes before 0.43.2 and no checkpointing the previous step's 4-bit layer inputs stay
/// too (LitGPT, Lightning-AI/litgpt finetune/lora.py; research note litgpt_qlora.md): per token and
/// layer (2 × 4,096 + 4,096 + 14,336) × 2 B = 53,248 B × 32 layers × 2 × 512 tokens.
#[test]
fn a_script_loop_keeps_the_output_and_legacy_inputs() {
    let q = "model=llama-3.1-8b&method=lora&seq=1024";
    let held = component(&format!("{q}&loop=script"), C::Logits) as i64 - component(q, C::Logits) as i64;
    assert_eq!(held, 1024 * 128_256 * 2);
    let shift = format!("{q}&loss=hf_shift");
    let held32 = component(&format!("{shift}&loop=script"), C::Logits) as i64 - component(&shift, C::Logits) as i64;
    assert_eq!(held32, 1024 * 128_256 * 4);
    let legacy = "model=llama-3.1-8b&method=qlora&recipe=plain&bnb=legacy&gc=0&seq=512&batch=2&rank=32&targets=qv&precision=bf16";
    let prev =
        component(&format!("{legacy}&loop=script"), C::Activations) as i64 - component(legacy, C::Activations) as i64;
    assert_eq!(prev, 53_248 * 32 * 1024);
    // Checkpointed: the 4-bit inputs belong to the recomputed graph and go with it.
    let gc = legacy.replace("gc=0", "gc=1");
    assert_eq!(component(&format!("{gc}&loop=script"), C::Activations), component(&gc, C::Activations));
}

/// torch.compile (`compile=1`): Inductor's min-cut partitioner recomputes pointwise results in
/// backward. Per layer and token of Llama-3.2-3B full fine-tuning (hidden 3,072, MLP 8,192, bf16):
/// the two RMSNorms keep their bf16 input (2 B) instead of an fp32 copy and the normalised value
/// (4 + 2 B): −4 B × 3,072 each, and the SiLU output (2 B × 8,192) is not kept: 24,576 + 16,384 =
/// 40,960 B × 28 layers × 8,192 tokens = 8.75 GiB. torchtune's "Optimization flags" table measures
/// compile saving 9.0 GiB on that run (60.0 → 51.0 GiB).
#[test]
fn compile_recomputes_pointwise_results() {
    let q = "model=llama-3.2-3b&method=full&precision=bf16&seq=4096&batch=2&gc=0";
    let saved = component(q, C::Activations) as i64 - component(&format!("{q}&compile=1"), C::Activations) as i64;
    // The final norm too: 4 B × 3,072 × 8,192.
    assert_eq!(saved, 40_960 * 28 * 8192 + 4 * 3072 * 8192);
    let gib = saved as f64 / (1u64 << 30) as f64;
    assert!((gib / 9.0 - 1.0).abs() < 0.05, "{gib} GiB vs 9.0");
}

/// Selective checkpointing (`gc=sac`, torchtitan's per-op policy: every second matmul recomputed).
/// Llama-3.1-8B full fine-tuning, bf16 activations, per token and layer: the layer input (4,096 × 2 B),
/// q and attention's output (2 × 4,096 × 2 B), v (1,024 × 2 B), the gate (14,336 × 2 B) and down
/// (4,096 × 2 B) outputs and the fp32 log-sum-exp (32 × 4 B) = 63,616 B; × 32 layers × 16,384 tokens,
/// plus the final norm (fp32 copy, normalised value and output: 8 × 4,096 B per token); the recomputed
/// rest of a layer stays below the logits' peak. torchtitan's table (8 H100, FSDP, SAC op) reads
/// 82.4 GiB reserved.
#[test]
fn selective_checkpointing_keeps_every_other_matmul() {
    let q = "model=llama-3.1-8b&method=full&precision=mixed&gpus=8&zero=3&seq=8192&batch=2&gc=sac&attn=flash";
    assert_eq!(component(q, C::Activations), 32 * 16_384 * 63_616 + 16_384 * 8 * 4096);
    let full = component(&q.replace("gc=sac", "gc=1"), C::Activations);
    let none = component(&q.replace("gc=sac", "gc=0"), C::Activations);
    assert!(full < component(q, C::Activations) && component(q, C::Activations) < none);
    // The link keeps it.
    assert!(vram_ledger::query::to_query(&scenario(q), &[]).contains("gc=sac"));
    // From 8 to 128 GPUs the peak, backward's start, loses the sharded fp32 weights and AdamW
    // states (12 B per parameter) and the LM head's fp32 gradient: 12 × 8,030,261,248 + 4 ×
    // 128,256 × 4,096, times (1/8 − 1/128) = 10.56 GiB; the two gathered layers grow by a little.
    // (The table's reserved figures fall by 15.4 GiB: the gradients, which appear later in the
    // step, are sharded too, and the allocator keeps what they took — docs/training.md.)
    let drop = estimate(&scenario(q)).allocated_bytes() as f64
        - estimate(&scenario(&q.replace("gpus=8", "gpus=128"))).allocated_bytes() as f64;
    let states = (12.0 * 8_030_261_248.0 + 4.0 * 128_256.0 * 4_096.0) * (1.0 / 8.0 - 1.0 / 128.0);
    assert!((drop / states - 1.0).abs() < 0.03, "{drop} vs {states}");
}

/// `compile=1` compiles the loss with the model: Inductor fuses the fp32 upcast and log-softmax,
/// and its backward keeps the 16-bit logits and writes their 16-bit gradient, 2 × 2 B per logit
/// against eager's 12 B. Llama-3.1-8B, 2,048 tokens × vocab 128,256 = 262,668,288 logits:
/// 8 B × that = 2,101,346,304 B less. A fused loss is not changed by it; a chunked one (torchtune's
/// `compile_loss` of CEWithChunkedOutputLoss, 8 chunks) keeps the 16-bit logits and one chunk's
/// 16-bit gradient: 2 + 2/8 = 2.25 B per logit against eager's 2 + 4 = 6 B.
#[test]
fn a_compiled_loss_keeps_only_the_logits_and_their_gradient() {
    let q = "model=llama-3.1-8b&method=full&seq=2048&gc=1";
    let eager = component(q, C::Logits);
    let compiled = component(&format!("{q}&compile=1"), C::Logits);
    assert_eq!(eager - compiled, 8 * 262_668_288);
    assert_eq!(compiled, 4 * 262_668_288);
    let fused = format!("{q}&loss=fused");
    assert_eq!(component(&fused, C::Logits), component(&format!("{fused}&compile=1"), C::Logits));
    let chunked = format!("{q}&loss=chunked");
    assert_eq!(component(&chunked, C::Logits), 6 * 262_668_288);
    assert_eq!(component(&format!("{chunked}&compile=1"), C::Logits), 262_668_288 * 9 / 4);
    // transformers before 4.46 returned fp32 logits: compiled, 2 × 4 B.
    assert_eq!(component(&format!("{q}&loss=hf_shift&compile=1"), C::Logits), 8 * 262_668_288);
}

/// `precision=fp8`: torchao's float8 linears save their bf16 inputs (activations as mixed), and
/// FSDP2's float8 all-gather gathers fp8 weights. Llama-3.1-8B's largest layer: 4,096 × (4,096 +
/// 1,024 + 1,024 + 4,096) + 3 × 4,096 × 14,336 + 2 × 4,096 = 218,112,000 parameters; two layers in
/// flight, each gathered whole into a buffer beside its shard: 2 × 218,112,000 × (2 − 1) B =
/// 436,224,000 B less (the root unit, embedding and LM head, is not a float8 linear: as mixed).
#[test]
fn fp8_training_gathers_fp8_weights_and_bills_the_rest_as_mixed() {
    let q = "model=llama-3.1-8b&method=full&gpus=8&zero=3&seq=8192&batch=2&gc=sac";
    let mixed = estimate(&scenario(q));
    let fp8 = estimate(&scenario(&format!("{q}&precision=fp8")));
    assert_eq!(mixed.component(C::GatheredLayer) - fp8.component(C::GatheredLayer), 436_224_000);
    for c in [C::Weights, C::MasterWeights, C::Gradients, C::Optimizer, C::Activations, C::Logits] {
        assert_eq!(mixed.component(c), fp8.component(c), "{c:?}");
    }
    // Without FSDP there is nothing gathered: the same bill as mixed.
    let single = "model=llama-3.1-8b&method=full&seq=2048";
    assert_eq!(
        estimate(&scenario(single)).device_bytes(),
        estimate(&scenario(&format!("{single}&precision=fp8"))).device_bytes()
    );
}

/// `quant_head=1` (Lightning's BitsandbytesPrecision, LitGPT's `--quantize`): the untied LM head is
/// quantized with the linears — Llama-3.1-8B's 128,256 × 4,096 = 525,336,576 head parameters at NF4
/// without double quantization (4 + 32/64 bits = 0.5625 B) instead of 2 B: 755,171,328 B less — and
/// its dequantization holds an fp16 and a bf16 copy: 4 B × 525,336,576 = 2,101,346,304 B, more than
/// the largest block matrix's 14,336 × 4,096 × 2 B. A tied head (Llama-3.2-1B) is the embedding,
/// not a linear layer: nothing changes.
#[test]
fn a_quantized_lm_head_is_smaller_and_dequantizes_through_fp16() {
    let q = "model=llama-3.1-8b&method=qlora&dq=0&recipe=plain";
    let plain = estimate(&scenario(q));
    let head = estimate(&scenario(&format!("{q}&quant_head=1")));
    assert_eq!(plain.component(C::Weights) - head.component(C::Weights), 755_171_328);
    assert_eq!(head.component(C::DequantBuffer), 2_101_346_304);
    assert_eq!(plain.component(C::DequantBuffer), 14_336 * 4_096 * 2);
    // Inference with NF4: the prefill dequantizes the head the same way.
    let infer = "model=llama-3.1-8b&mode=infer&quant=nf4&dq=0";
    assert_eq!(estimate(&scenario(&format!("{infer}&quant_head=1"))).component(C::DequantBuffer), 2_101_346_304);
    let tied = "model=llama-3.2-1b&method=qlora";
    assert_eq!(estimate(&scenario(tied)), estimate(&scenario(&format!("{tied}&quant_head=1"))));
}

/// A step peaks at one end of backward, not at the sum of its lines. fms-acceleration's A100
/// reference (scripts/benchmarks/refs/a100_80gb.csv; torch.cuda.max_memory_allocated, bf16 full
/// fine-tuning of Mistral-7B, 4,096-token packed sequences, checkpointing, AdamW): batch 4 →
/// 72,434,837,504 B and batch 8 → 72,435,230,720 B, the same — the optimizer step, where the
/// activations and logits are gone: 2 (weights) + 2 (gradients) + 4 (m, v) + 2 (foreach √v) B × 7,241,732,096
/// = 72,417,320,960 B. On two GPUs (FSDP) half of it at batch 2 and 4: 36,225,939,968 / 36,226,136,576 B.
/// At batch 16 backward's start is the peak: the activations and logits grow past the gradients and
/// √v, and the gradients line holds only the LM head's (32,000 × 4,096 × 2 B).
#[test]
fn a_training_step_peaks_at_backwards_start_or_at_the_optimizer_step() {
    let p = 7_241_732_096u64;
    let q = |batch: u64, gpus: u64| {
        let zero = if gpus > 1 { "&zero=3" } else { "" };
        format!("model=mistral-7b&method=full&precision=bf16&seq=4096&batch={batch}&gc=1&attn=flash&loss=hf_shift&gpus={gpus}{zero}")
    };
    for batch in [4, 8] {
        let bill = estimate(&scenario(&q(batch, 1)));
        assert_eq!(bill.allocated_bytes(), 10 * p, "batch {batch}: the step's peak");
        assert_eq!(bill.gradient_bytes, 2 * p);
        let measured = if batch == 4 { 72_434_837_504.0 } else { 72_435_230_720.0 };
        assert!((bill.allocated_bytes() as f64 / measured - 1.0).abs() < 0.01);
    }
    for (batch, measured) in [(2, 36_225_939_968.0), (4, 36_226_136_576.0)] {
        let allocated = estimate(&scenario(&q(batch, 2))).allocated_bytes() as f64;
        assert!((allocated / measured - 1.0).abs() < 0.02, "2 GPUs, batch {batch}: {allocated}");
    }
    let long = estimate(&scenario(&q(16, 1)));
    assert_eq!(long.component(C::Gradients), 32_000 * 4_096 * 2);
    assert!(long.allocated_bytes() > 10 * p);
    assert_eq!(long.component(C::OptimizerStep), 0);
    // With accumulation the earlier micro-batches' gradients are there when backward starts.
    let accumulating = estimate(&scenario(&format!("{}&accum=4", q(16, 1))));
    assert_eq!(accumulating.component(C::Gradients), 2 * p);
}

/// `compile=model` compiles the layers and leaves the loss eager (torchtune's recipes of late 2024
/// dropped `compile_loss`'s result; torchtitan's December 2024 benchmark): the logits line is the
/// uncompiled one, the activations the compiled ones. torchtune's "Optimization flags" table
/// (Llama-3.2-3B, batch 2 × 4,096, full bf16): 60.0 → 51.0 GiB with compile.
#[test]
fn compiling_the_model_alone_leaves_the_loss_eager() {
    let q = "model=llama-3.2-3b&method=full&precision=bf16&optim=adamw&seq=4096&batch=2&gc=0&attn=sdpa&loss=hf&gpu=a100-80g";
    let eager = estimate(&scenario(q));
    let model = estimate(&scenario(&format!("{q}&compile=model")));
    let both = estimate(&scenario(&format!("{q}&compile=1")));
    assert_eq!(model.component(C::Logits), eager.component(C::Logits));
    assert_eq!(model.component(C::Activations), both.component(C::Activations));
    assert!(both.component(C::Logits) < eager.component(C::Logits));
    let gib = |b: &vram_ledger::ledger::Bill| b.allocated_bytes() as f64 / (1u64 << 30) as f64;
    assert!((gib(&eager) - 60.0).abs() / 60.0 < 0.03, "{}", gib(&eager));
    assert!((gib(&model) - 51.0).abs() / 51.0 < 0.03, "{}", gib(&model));
    assert!(vram_ledger::query::to_query(&scenario(&format!("{q}&compile=model")), &[]).contains("compile=model"));
}

/// TRL's SFTTrainer (0.9–0.25, bf16) prepares a 4-bit model with PEFT and then casts the embedding
/// and LM head back to bf16 (trl/trainer/utils.py, peft_module_casting_to_bf16; the norms stay fp32).
/// fms-acceleration's A100 reference runs TRL 0.13 (baseline-peft-bnb) and, beside it, the same QLoRA
/// prepared without PEFT's casts (accelerated-peft-bnb): Mistral-7B at batch 4 × 4,096 tokens
/// 20,669,338,112 vs 16,373,838,336 B allocated, at batch 8 37,002,646,016 vs 28,412,178,944 B — a difference of
/// 4.0 and 8.0 GiB: 32 layer inputs × 4,096 × 2 B more per token (the fp32 residual stream: 262,144 B
/// × 16,384 tokens = 4.0 GiB at batch 4), nothing fixed: the embedding and head are not fp32.
#[test]
fn trl_casts_the_embedding_and_head_back_to_bf16() {
    let q = |recipe: &str, batch: u64| {
        format!("model=mistral-7b&method=qlora&recipe={recipe}&rank=16&targets=qkvo&lora_dropout=0.1&seq=4096&batch={batch}&gc=1&attn=flash&loss=hf_shift&gpu=a100-80g")
    };
    let (trl, plain, peft) =
        (estimate(&scenario(&q("trl", 4))), estimate(&scenario(&q("plain", 4))), estimate(&scenario(&q("peft", 4))));
    // Weights: the norms' 2 B more (Mistral: 65 norm vectors × 4,096 = 266,240 params).
    assert_eq!(trl.component(C::Weights) - plain.component(C::Weights), 266_240 * 2);
    // PEFT alone leaves the embedding and head (2 × 32,000 × 4,096) in fp32 too.
    assert_eq!(peft.component(C::Weights) - trl.component(C::Weights), 2 * 32_000 * 4_096 * 2);
    // The fp32 stream: 32 × 4,096 × 2 B more per token for the checkpointed layer inputs.
    let stream = trl.component(C::Activations) - plain.component(C::Activations);
    assert!(stream >= 32 * 4_096 * 2 * 16_384, "{stream}");
    let measured = 20_669_338_112.0 - 16_373_838_336.0;
    let predicted = trl.allocated_bytes() as f64 - plain.allocated_bytes() as f64;
    assert!((predicted / measured - 1.0).abs() < 0.1, "{predicted} vs {measured}");
    assert_eq!(vram_ledger::query::to_query(&scenario(&q("trl", 4)), &[]).matches("recipe=trl").count(), 1);
}

/// DeepSpeed ZeRO-1/2 allocates its gradient buckets whole, `reduce_bucket_size` 16-bit elements
/// each (two with `overlap_comm`), however few parameters train (deepspeed/runtime/zero/
/// stage_1_and_2.py, research note deepspeed_zero.md): LLaMA-Factory's ds_z2 config (5e8, overlap off
/// since March 2025) costs a LoRA run 1 GB, Qwen's (2e8, overlap on) 0.8 GB; over several GPUs a
/// bucket's reduction copies up to one bucket of gradients (here all 40,370,176 adapter parameters).
#[test]
fn deepspeed_buckets_cost_a_lora_run_a_fixed_gigabyte() {
    let q = "model=qwen2.5-7b&method=lora&seq=2048&zero=2";
    assert_eq!(component(q, C::ZeroBuckets), 1_000_000_000);
    assert_eq!(component(&format!("{q}&reduce_bucket_size=200000000&overlap_comm=1"), C::ZeroBuckets), 800_000_000);
    assert_eq!(component(&format!("{q}&gpus=2"), C::ZeroBuckets), 1_000_000_000 + 40_370_176 * 2);
    assert_eq!(component("model=qwen2.5-7b&method=lora&seq=2048&gpus=2&zero=3", C::ZeroBuckets), 0, "FSDP");
    assert_eq!(component("model=qwen2.5-7b&method=lora&seq=2048&gpus=2", C::ZeroBuckets), 0, "DDP");
    let link =
        vram_ledger::query::to_query(&scenario(&format!("{q}&reduce_bucket_size=200000000&overlap_comm=1")), &[]);
    assert!(link.contains("reduce_bucket_size=200000000") && link.contains("overlap_comm=1"), "{link}");
}

/// FSDP over a 4-bit base (research on fms-acceleration's 2-GPU rows; torch 2.4.1 FSDP1, bitsandbytes
/// 0.43.3): the packed 4-bit data is sharded, bitsandbytes' quant state (absmax with double
/// quantization: 8/64 + 32/16,384 bits per parameter, attributes, not parameters) is not —
/// Mistral-7B's 6,979,321,856 quantized parameters × 0.015869 B = 110,755,840 B whole on each GPU,
/// so half of it more than an even split; the root unit (embedding + LM head: 2 × 32,000 × 4,096
/// params × 2 B = 524,288,000 B) stays gathered, and adapters gather one decoder layer at a time.
#[test]
fn fsdp_keeps_the_quant_state_and_the_root_unit_whole() {
    let q = "model=mistral-7b&method=qlora&recipe=plain&seq=4096&batch=2";
    let one = estimate(&scenario(q));
    let two = estimate(&scenario(&format!("{q}&gpus=2&zero=3")));
    assert_eq!(two.component(C::Weights) - one.component(C::Weights) / 2, 110_755_840 / 2);
    let gathered = two.component(C::GatheredLayer);
    let layer = 218_112_000u64;
    assert!(gathered > 524_288_000 + layer / 2 && gathered < 524_288_000 + layer, "{gathered}: root + one 4-bit layer");
    // Full fine-tuning gathers two layers (current + prefetched), in bf16, beside the root.
    let full = estimate(&scenario("model=mistral-7b&method=full&precision=bf16&seq=4096&batch=2&gpus=2&zero=3"));
    let full_gathered = full.component(C::GatheredLayer);
    assert!(full_gathered >= 524_288_000 + 2 * layer * 2, "{full_gathered}");
}

/// FSDP1 with frozen units (PEFT's wrap policy) under transformers 4's reentrant checkpoint keeps
/// every recomputed layer's input and input gradient until backward ends (torch 2.4.1
/// `_register_post_backward_reshard_only_hook`: the hook on each layer's detached input holds it and
/// its gradient; reproduced with real FSDP1 on the CPU). fms-acceleration's Llama-2-70B QLoRA on two
/// A100s, batch 2 × 4,096: 44,522.56 MiB allocated, 31.8 GiB without the retention; 79 layers ×
/// 8,192 tokens × 8,192 × 2 B = 10.6 GB of it. With `gc=1` (the implementation unsaid) the
/// retention is the range's high end, never the point; full fine-tuning's units are trainable: none.
#[test]
fn reentrant_checkpoints_under_fsdp_keep_every_input_gradient() {
    let q = "model=llama-2-70b&method=qlora&recipe=plain&rank=16&targets=qkvo&lora_dropout=0.1&seq=4096&batch=2&attn=flash&loss=hf_shift&gpu=a100-80g&gpus=2&zero=3";
    let reentrant = estimate(&scenario(&format!("{q}&gc=reentrant")));
    let plain = estimate(&scenario(&format!("{q}&gc=1")));
    let measured = 44_522.56 * 1024.0 * 1024.0;
    assert!((reentrant.allocated_bytes() as f64 / measured - 1.0).abs() < 0.05, "{}", reentrant.allocated_bytes());
    let retained = 79.0 * 8_192.0 * 8_192.0 * 2.0;
    let grown = (reentrant.allocated_bytes() - plain.allocated_bytes()) as f64;
    assert!(grown > 0.6 * retained && grown <= retained * 1.01, "{grown} of {retained}");
    assert!(plain.range(TotalKind::Allocated).1 >= reentrant.allocated_bytes(), "gc=1's high end holds it");
    assert!(plain.notes.iter().any(|n| n.key == "reentrant"));
    // At layer 0's backward the recomputed layer also holds its backward's gradients — the MLP's
    // product, gate and up, (2 × 14,336 + 4,096) × 2 B per token for Mistral-7B (Mixtral: two experts'
    // worth): fms's two-GPU QLoRA rows at batch 2 read 8,987.99 and 20,151.12 MiB (transformers
    // 4.48.1: each expert an `nn.Linear` bitsandbytes quantizes, `fused_experts=0`).
    for (model, measured) in [("mistral-7b", 8_987.99), ("mixtral-8x7b", 20_151.12)] {
        let q = format!("{}&fused_experts=0", q.replace("llama-2-70b", model));
        let b = estimate(&scenario(&format!("{q}&gc=reentrant"))).allocated_bytes() as f64 / (1u64 << 20) as f64;
        assert!((b / measured - 1.0).abs() < 0.05, "{model}: {b} MiB vs {measured}");
    }
    // No FSDP, or trainable units: the implementation changes nothing.
    let single = "model=llama-2-7b&method=qlora&seq=4096";
    assert_eq!(
        estimate(&scenario(&format!("{single}&gc=reentrant"))).allocated_bytes(),
        estimate(&scenario(single)).allocated_bytes()
    );
    let full = "model=llama-2-7b&method=full&seq=4096&gpus=2&zero=3";
    assert_eq!(
        estimate(&scenario(&format!("{full}&gc=reentrant"))).allocated_bytes(),
        estimate(&scenario(full)).allocated_bytes()
    );
    assert_eq!(estimate(&scenario(full)).open_high_bytes, 0);
}

/// Published out-of-memory runs are never told they fit. fms-acceleration's A100-80GB reference
/// lists these as OOM (refs/a100_80gb.csv); the ledger must not say "fits" for any of them.
#[test]
fn published_out_of_memory_runs_are_never_told_they_fit() {
    let common = "seq=4096&attn=flash&loss=hf_shift&gpu=a100-80g&rank=16&targets=qkvo&lora_dropout=0.1";
    for q in [
        "model=llama-2-70b&method=qlora&recipe=plain&batch=4&gpus=2&zero=3&gc=reentrant",
        "model=llama-2-70b&method=qlora&quant=gptq4&recipe=plain&batch=4&gpus=2&zero=3&gc=reentrant",
        "model=llama-2-70b&method=qlora&recipe=trl&batch=4&gc=1",
        "model=llama-2-70b&method=qlora&recipe=plain&batch=8&gc=1",
        "model=llama-2-70b&method=lora&precision=bf16&batch=2&gpus=2&zero=3&gc=reentrant",
        "model=mixtral-8x7b&method=lora&precision=bf16&batch=4&gc=1",
        "model=mixtral-8x7b&method=full&precision=bf16&batch=2&gpus=2&zero=3&gc=1",
    ] {
        let bill = estimate(&scenario(&format!("{q}&{common}")));
        assert_ne!(bill.verdict(), Verdict::Fits, "{q}: OOM on the A100, the ledger says fits");
    }
}

/// `loss=half`: a remote-code model's own cross-entropy on its 16-bit logits (Qwen v1's
/// modeling_qwen.py: `shift_logits = lm_logits[..., :-1, :].contiguous()`, CrossEntropyLoss, no upcast):
/// logits, shifted copy and log-probabilities, 3 × 2 B per logit; autocast runs `cross_entropy` in
/// fp32 (PyTorch's autocast op list): the 16-bit logits and their shifted copy + the fp32 cast and
/// fp32 log-probabilities, 2 × 2 + 4 + 4 B. DeepSpeed runs no autocast (Accelerate's `native_amp`
/// is false under DeepSpeed, which casts the module to fp16): 3 × 2 B again.
/// Qwen-7B at 8,192 tokens: 8,192 × 151,936 logits. The Qwen (v1) README's Q-LoRA column reads 23.5 G
/// (DeepSpeed ZeRO-2, fp16) and its LoRA column 36.6 G (bf16 autocast, no DeepSpeed).
#[test]
fn a_sixteen_bit_loss_keeps_three_sixteen_bit_copies() {
    let q = "model=custom&layers=32&hidden=4096&heads=32&kv_heads=32&head_dim=128&ffn=11008&vocab=151936&tied=0&qkv_bias=1&seq=8192&loss=half";
    let logits = 8_192u64 * 151_936;
    assert_eq!(component(&format!("{q}&method=lora&precision=bf16"), C::Logits), logits * 6);
    assert_eq!(component(&format!("{q}&method=lora&precision=mixed"), C::Logits), logits * 12);
    let qlora = format!("{q}&method=qlora&quant=gptq4&recipe=plain&rank=64&lora_dropout=0.05&accum=8&zero=2&reduce_bucket_size=200000000&overlap_comm=1&attn=flash&gpu=a100-80g");
    assert_eq!(component(&qlora, C::Logits), logits * 6);
    let device = estimate(&scenario(&qlora)).device_bytes() as f64 / 1e9;
    assert!((device / 23.5 - 1.0).abs() < 0.1, "{device} GB");
    let lora = format!(
        "{q}&method=lora&precision=mixed&rank=64&targets=all&lora_dropout=0.05&accum=8&gc=1&attn=flash&gpu=a100-80g"
    );
    let device = estimate(&scenario(&lora)).device_bytes() as f64 / 1e9;
    assert!((device / 36.6 - 1.0).abs() < 0.1, "{device} GB");
    assert!(vram_ledger::query::to_query(&scenario(q), &[]).contains("loss=half"));
}

/// NCCL's buffers sit outside PyTorch's allocator on every GPU of a multi-GPU job: the constants
/// fitted to vLLM's start-up logs (docs/serving.md: 0.30 GiB of non-torch memory at TP 2 on L40S,
/// 2.04 GiB at TP 4 on H200, less the 0.08 GiB of workspaces): 0.25 GiB = 268,435,456 B over
/// PCIe / NVLink, 1.9 GiB = 2,040,109,465.6 B with NVLS on an NVSwitch Hopper. In the device total,
/// not in reserved; none on one GPU.
#[test]
fn several_gpus_add_nccl_buffers_to_the_device_total() {
    let one = estimate(&scenario("model=llama-3.1-8b&method=lora&gpu=a100-80g"));
    assert_eq!(one.component(C::NonTorch), 0);
    let two = estimate(&scenario("model=llama-3.1-8b&method=lora&gpu=a100-80g&gpus=2&zero=3"));
    assert_eq!(two.component(C::NonTorch), 268_435_456);
    assert_eq!(two.device_bytes() - two.reserved_bytes(), 268_435_456 + 500 * 1_048_576);
    let eight = estimate(&scenario("model=llama-2-70b&method=lora&gpu=h100-80g&gpus=8&zero=3"));
    assert_eq!(eight.component(C::NonTorch), 2_040_109_466);
    // HF inference split over several GPUs talks over NCCL too.
    let tp = estimate(&scenario("model=llama-3.1-70b&mode=infer&gpus=2&gpu=a100-80g"));
    assert_eq!(tp.component(C::NonTorch), 268_435_456);
    // DeepSpeed sets up its process group on one GPU too (`deepspeed.initialize` → `init_distributed`;
    // the first broadcast builds a one-rank communicator): the same buffers, and no NVLS without peers.
    for q in ["zero=2", "zero=1", "zero=3&zero3=deepspeed"] {
        let ds = estimate(&scenario(&format!("model=llama-3.1-8b&method=lora&gpu=h100-80g&{q}")));
        assert_eq!(ds.component(C::NonTorch), 268_435_456, "{q}");
    }
}

/// GPTQ in PyTorch (auto-gptq's `qlinear_cuda_old` from 128 rows on, GPTQModel's torch kernel):
/// `torch.matmul(x, weight)` saves the dequantized fp16 weight for the input's gradient, and the
/// unpacking holds an int32 shift and its int8 codes (4 + 1 B) of one matrix. Qwen-1.8B's layer
/// (hidden 2,048, FFN 5,504): q, k, v, o 4 × 2,048² = 16,777,216 + gate, up, down 3 × 2,048 × 5,504 =
/// 33,816,576 + its two norms' 4,096 (the layer as ZeRO-3 gathers it) → 50,597,888 × 2 B =
/// 101,195,776 B per layer; without checkpointing all 24 are kept: 2,428,698,624 B. fms-acceleration's triton kernel (`recipe=fms`) saves the packed weights and
/// dequantizes in registers: neither.
#[test]
fn gptq_in_pytorch_keeps_each_layers_dequantized_weights() {
    let q = "model=custom&layers=24&hidden=2048&heads=16&kv_heads=16&head_dim=128&ffn=5504&vocab=151936&tied=0&method=qlora&quant=gptq4&rank=64&targets=all&seq=1024&gc=0&attn=flash&gpu=a100-80g";
    let torch = estimate(&scenario(q));
    let fms = estimate(&scenario(&format!("{q}&recipe=fms")));
    assert_eq!(torch.component(C::Activations) - fms.component(C::Activations), 2_428_698_624);
    assert_eq!(torch.component(C::DequantBuffer), 11_272_192 * 5);
    assert_eq!(fms.component(C::DequantBuffer), 0);
    // With checkpointing only the recomputed layer's, where it outlasts the freed logits.
    let gc = estimate(&scenario(&format!("{q}&gc=1&seq=4096&loss=fused")));
    let gc_fms = estimate(&scenario(&format!("{q}&gc=1&seq=4096&loss=fused&recipe=fms")));
    assert_eq!(gc.component(C::Activations) - gc_fms.component(C::Activations), 101_195_776);
}

/// CPU offload (`offload`), hand arithmetic on Llama-3.1-8B (8,030,261,248 parameters; its
/// largest tensor, the embedding or LM head, 128,256 × 4,096 = 525,336,576).
/// DeepSpeed ZeRO-2 with `offload_optimizer` on one GPU (ZeRO-Offload): the bf16 weights stay
/// (2 B each), the master weights, AdamW states and the step go to host RAM, and the GPU holds
/// `temp_grad_buffer_for_gpu_offload` plus autograd's gradient of the largest tensor: 2 × 525,336,576
/// × 2 B. Host RAM: (8 states + 4 master + 4 fp32 gradients) × 8,030,261,248 = 128,484,179,968 B.
#[test]
fn offloading_the_optimizer_moves_states_master_and_gradients_to_host_ram() {
    let q = "model=llama-3.1-8b&method=full&precision=mixed&zero=2&gpu=a100-80g";
    let on_gpu = estimate(&scenario(q));
    let off = estimate(&scenario(&format!("{q}&offload=optimizer")));
    assert_eq!(off.component(C::Weights), 8_030_261_248 * 2);
    for c in [C::MasterWeights, C::Optimizer, C::OptimizerStep] {
        assert_eq!(off.component(c), 0, "{c:?}");
    }
    assert_eq!(off.component(C::Gradients), 2 * 525_336_576 * 2);
    assert!(on_gpu.component(C::Optimizer) > 0 && on_gpu.component(C::MasterWeights) > 0);
    // DeepSpeed 0.14.1–0.16.x copy the fp32 partition (4 B × 8,030,261,248) to the GPU at the
    // step, into the room backward freed (activations, logits, buckets): the range's high end.
    let freed = [C::Activations, C::Logits, C::ZeroBuckets].iter().map(|&c| off.component(c) as i64).sum::<i64>();
    assert!((off.open_high_bytes as i64 - (4 * 8_030_261_248 - freed)).abs() <= 2, "{}", off.open_high_bytes);
    assert!(off.notes.iter().any(|n| n.key == "deepspeed_offload_copy"));
    assert_eq!(estimate(&scenario(&format!("{q}&offload=optimizer&zero=3"))).open_high_bytes, 0);
    let host = off.notes.iter().find(|n| n.key == "offload_host").expect("the host RAM note");
    let text = vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &host.text);
    assert!(text.contains("119.66 GiB"), "{text}"); // 128,484,179,968 B
                                                    // Without ZeRO nothing is offloaded (a note says so); ZeRO-2 cannot offload parameters.
    let plain = "model=llama-3.1-8b&method=full&precision=mixed&gpu=a100-80g";
    let ignored = estimate(&scenario(&format!("{plain}&offload=all")));
    assert_eq!(ignored.device_bytes(), estimate(&scenario(plain)).device_bytes());
    assert!(ignored.notes.iter().any(|n| n.key == "offload_needs_zero"));
    let params = estimate(&scenario(&format!("{q}&offload=all")));
    assert_eq!(params.device_bytes(), off.device_bytes());
    assert!(params.notes.iter().any(|n| n.key == "offload_params_zero3"));
}

/// `offload=all` under ZeRO-3 / FSDP (CPUOffload(offload_params=True)): the parameter shards, the
/// adapters and the optimizer live in host RAM; bitsandbytes' quant state is not a parameter and
/// stays: Llama-2-70B's 68,451,041,280 quantized weights × (4.126953125 − 4) bits / 8 =
/// 1,086,259,200 B. The GPU holds one gradient of the largest adapter tensor at a time (down_proj's
/// lora_A, 64 × 28,672 = 1,835,008 × 2 B). Gathered units stay; on one GPU too.
#[test]
fn offloading_the_parameters_keeps_only_the_gathered_units_and_the_quant_state() {
    let q = "model=llama-2-70b&method=qlora&recipe=plain&rank=64&targets=all&zero=3&gpus=2&gpu=rtx3090";
    let off = estimate(&scenario(&format!("{q}&offload=all")));
    assert_eq!(off.component(C::Weights), 1_086_259_200);
    assert_eq!(off.component(C::AdapterWeights), 0);
    assert_eq!(off.component(C::Optimizer), 0);
    assert_eq!(off.component(C::Gradients), 1_835_008 * 2);
    assert_eq!(off.component(C::GatheredLayer), estimate(&scenario(q)).component(C::GatheredLayer));
    let one = estimate(&scenario("model=llama-3.1-8b&method=full&zero=3&offload=all&gpu=rtx4090"));
    assert!(one.component(C::GatheredLayer) > 0);
    assert_eq!(one.component(C::Weights), 0);
    // The key round-trips and a bad value is named.
    let link = vram_ledger::query::to_query(&scenario(&format!("{q}&offload=all")), &[]);
    assert!(link.contains("offload=all"), "{link}");
    assert_eq!(vram_ledger::query::parse("offload=gpu").errors.len(), 1);
}

/// DeepSpeed's ZeRO-3 (`zero3=deepspeed`), hand arithmetic on Llama-3.1-8B full fine-tuning in
/// mixed precision over 8 GPUs (8,030,261,248 ÷ 8 = 1,003,782,656 parameters per GPU): 16-bit
/// partitions (2 B) beside the fp32 master (4 B) and 16-bit gradient partitions (2 B, there from the
/// start), where FSDP keeps fp32 shards and fp32 gradients; at the step an fp32 copy of one
/// sub-group's gradients (4 B; stage3.py steps the partition `sub_group_size` = 10⁹ elements at a
/// time and frees each sub-group's copy before the next) beside foreach AdamW's √v (4 B). LLaMA-Factory's issue #5977 ran this
/// (ds_z3_config, 8 × RTX 3090, cutoff 1024) and ran out of memory; with ds_z3_offload_config it
/// trained (https://github.com/hiyouga/LLaMA-Factory/issues/5977): the ledger says the same, where
/// FSDP's layout would fit.
#[test]
fn deepspeed_zero3_keeps_16_bit_partitions_and_copies_the_gradients_to_fp32_for_the_step() {
    let q = "model=llama-3.1-8b&method=full&precision=mixed&zero=3&gpus=8&gpu=rtx3090&seq=1024&batch=1&gc=1";
    let ds = estimate(&scenario(&format!("{q}&zero3=deepspeed")));
    let per_gpu = 1_003_782_656u64;
    assert_eq!(ds.component(C::Weights), per_gpu * 2);
    assert_eq!(ds.component(C::MasterWeights), per_gpu * 4);
    assert_eq!(ds.component(C::Optimizer), per_gpu * 8);
    assert_eq!(ds.gradient_bytes, per_gpu * 2);
    let deepspeed = scenario(&format!("{q}&zero3=deepspeed"));
    let plan = vram_ledger::ledger::plan::resolve(&deepspeed);
    let t = plan.training().expect("training").clone();
    let (temporaries, _) = vram_ledger::ledger::optimizer::step_temporaries(&plan, &t);
    assert_eq!(temporaries, 1e9 * 8.0);
    assert_eq!(ds.verdict(), Verdict::DoesNotFit);
    let fsdp = estimate(&scenario(q));
    assert_eq!(fsdp.component(C::Weights), 0);
    assert_ne!(fsdp.verdict(), Verdict::DoesNotFit);
    // With the optimizer offloaded (ds_z3_offload_config) it fits.
    assert_eq!(estimate(&scenario(&format!("{q}&zero3=deepspeed&offload=optimizer"))).verdict(), Verdict::Fits);
    // LLaMA-Factory's issue #7282: DeepSeek-R1-Distill-Llama-70B full, ds_z3_config on 8 × H200,
    // cutoff 1,024: out of memory; ds_z3_offload_config (optimizer and parameters on the CPU)
    // trained (https://github.com/hiyouga/LLaMA-Factory/issues/7282).
    let big = "model=llama-3.1-70b&method=full&precision=mixed&zero=3&zero3=deepspeed&gpus=8&gpu=h200&seq=1024&gc=1";
    assert_eq!(estimate(&scenario(big)).verdict(), Verdict::DoesNotFit);
    assert_eq!(estimate(&scenario(&format!("{big}&offload=all"))).verdict(), Verdict::Fits);
    // No FSDP hooks: no reentrant retention in the range for LoRA.
    let lora = "model=llama-2-7b&method=lora&zero=3&gpus=2&gc=1&batch=8&seq=4096";
    assert!(estimate(&scenario(lora)).open_high_bytes > 0);
    assert_eq!(estimate(&scenario(&format!("{lora}&zero3=deepspeed"))).open_high_bytes, 0);
}

/// DeepSpeed ZeRO-3 gathers a module at a time and keeps what its trace uses again within
/// `stage3_max_reuse_distance` = 1e9 elements (partitioned_param_coordinator.py, research note
/// deepspeed_zero.md R17). Llama-2-70B: head 32,000 × 8,192 = 262,144,000; a layer 855,654,400. The
/// head is used again at once; the last layer's next use (its recompute) comes after the head
/// twice, 524,288,000 < 1e9: kept; the one before it also after three passes over the last layer:
/// not. (262,144,000 + 855,654,400) × 2 B = 2,235,596,800 + prefetch and IPG buckets 1.9 × 8,192² ×
/// 2 B = 255,013,683 → 2,490,610,483 B. Llama-3.1-8B full: the head alone is 2 × 525,336,576 > 1e9
/// elements: no layer kept; 1,050,673,152 + 1.9 × 4,096² × 2 = 63,753,421 + the head's gradient and
/// its reduce-scatter input 525,336,576 × (2 + 2) B = 2,101,346,304 → 3,215,772,877 B.
#[test]
fn deepspeed_zero3_keeps_the_parameters_its_trace_reuses_within_the_reuse_distance() {
    let lora = "model=llama-2-70b&method=lora&rank=8&seq=2048&gc=1&gpus=8&zero=3&zero3=deepspeed&gpu=h100-80g";
    assert!(component(lora, C::GatheredLayer).abs_diff(2_490_610_483) <= 1, "{}", component(lora, C::GatheredLayer));
    let full = "model=llama-3.1-8b&method=full&seq=2048&gc=1&gpus=8&zero=3&zero3=deepspeed&gpu=a800-80g";
    assert!(component(full, C::GatheredLayer).abs_diff(3_215_772_877) <= 1, "{}", component(full, C::GatheredLayer));
    // A layer larger than the head (Llama-3.1-405B: 3,187,703,808 vs 2,101,346,304): one layer in
    // backward decides, 6,375,407,616 + 1.9 × 16,384² × 2 = 1,020,054,733.
    let big = "model=llama-3.1-405b&method=lora&seq=2048&gc=1&gpus=8&zero=3&zero3=deepspeed&gpu=h100-80g";
    assert!(component(big, C::GatheredLayer).abs_diff(7_395_462_349) <= 1, "{}", component(big, C::GatheredLayer));
}

/// The allocator's slack in training: 14 % of what a step allocates and frees (the median of the
/// allocator replay under a cap, research note answerai_replay §6: 9–27 % over twelve traces) and
/// 2 % of what stays through the run (2 MiB segment rounding of large tensors). Inference keeps 3 %.
#[test]
fn the_slack_follows_what_a_step_allocates_and_frees() {
    let bill = estimate(&scenario("model=llama-3.1-8b&method=lora&seq=2048"));
    let transient = bill.component(C::Activations) + bill.component(C::Logits);
    let persistent = bill.component(C::Weights)
        + bill.component(C::AdapterWeights)
        + bill.component(C::Optimizer)
        + bill.component(C::Gradients)
        + bill.component(C::OptimizerStep);
    // The step's optimizer temporaries are transient too; LoRA's are small.
    let step = bill.component(C::OptimizerStep) as f64;
    let expected = 0.14 * (transient as f64 + step) + 0.02 * (persistent as f64 - step);
    assert!(
        (bill.component(C::AllocatorSlack) as f64 - expected).abs() <= 1.0,
        "{}",
        bill.component(C::AllocatorSlack)
    );
    assert_eq!(bill.allocated_bytes(), transient + persistent);
    // Full fine-tuning is mostly weights, gradients and states: its slack is a smaller share.
    let full = estimate(&scenario("model=llama-3.1-8b&method=full&seq=2048"));
    assert!((full.component(C::AllocatorSlack) as f64) < 0.05 * full.allocated_bytes() as f64);
    let infer = estimate(&scenario("model=llama-3.1-8b&mode=infer&seq=2048"));
    let share = infer.component(C::AllocatorSlack) as f64 / infer.allocated_bytes() as f64;
    assert!((share - 0.03).abs() < 1e-6, "{share}");
}

/// `alloc=expandable` (`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`, the chapter's fix for
/// fragmentation): one growing segment whose free pages go back before an OOM. The allocator
/// replay's bound (every live tensor on its own 2 MiB pages plus one it may straddle: 0.5–2.1 %
/// above allocated, research note answerai_replay §6) puts the transient share at 2 % instead of 14 %.
#[test]
fn expandable_segments_leave_a_step_s_freed_tensors_no_holes() {
    let q = "model=llama-3.1-8b&method=qlora&seq=8192";
    let default = estimate(&scenario(q));
    let expandable = estimate(&scenario(&format!("{q}&alloc=expandable")));
    let transient = (default.component(C::Activations) + default.component(C::Logits)) as f64
        + default.component(C::DequantBuffer) as f64;
    let saved = default.component(C::AllocatorSlack) as f64 - expandable.component(C::AllocatorSlack) as f64;
    assert!((saved - 0.12 * transient).abs() <= 2.0, "{saved} vs {}", 0.12 * transient);
    assert_eq!(default.allocated_bytes(), expandable.allocated_bytes());
    // Inference keeps its 3 %; the link carries the key.
    let infer = "model=llama-3.1-8b&mode=infer";
    let a = estimate(&scenario(infer)).component(C::AllocatorSlack);
    assert_eq!(a, estimate(&scenario(&format!("{infer}&alloc=expandable"))).component(C::AllocatorSlack));
    assert!(vram_ledger::query::to_query(&scenario(&format!("{q}&alloc=expandable")), &[]).contains("alloc=expandable"));
}

/// FSDP1's wrapping with `sync_module_states` leaves its copies cached on rank 0: 2 × the root unit
/// (moved, flattened) + the LM head's broadcast bucket (concatenated with the final norm) + 3 ×
/// a layer (docs/research/answerai_replay/LOAD_CACHE.md). Llama-2-7B: the root unit is 2 × 32,000 ×
/// 4,096 = 262,144,000 parameters × 2 B = 524,288,000 B, its head 262,144,000 B; a QLoRA layer is the
/// gathered line less the root (one layer in flight for adapters). The step's default-stream
/// tensors (activations, logits, the dequantization buffer) × 1.14 reuse it; the rest stays
/// reserved. Answer.AI's 512-token row reserved 4.98 GiB (the replay: 4.98; the bill without the
/// cache 3.58).
#[test]
fn fsdp_wrapping_leaves_its_copies_cached() {
    let q = "model=llama-2-7b&method=qlora&recipe=plain&bnb=legacy&zero=3&seq=512&batch=1&rank=64&targets=all&precision=bf16&gc=1&attn=sdpa&loss=hf_shift&lora_dropout=0.1&gpus=2&gpu=rtx3090&loop=script";
    let synced = estimate(&scenario(&format!("{q}&sync_module_states=1")));
    let plain = estimate(&scenario(q));
    let layer = synced.component(C::GatheredLayer) as f64 - 524_288_000.0;
    let cache = 2.0 * 524_288_000.0 + 262_144_000.0 + 3.0 * layer;
    let reused = [C::Activations, C::Logits, C::DequantBuffer].iter().map(|c| synced.component(*c) as f64).sum::<f64>();
    let unfilled = synced.component(C::AllocatorSlack) as f64 - plain.component(C::AllocatorSlack) as f64;
    assert!((unfilled - (cache - 1.14 * reused)).abs() <= 2.0, "{unfilled} vs {}", cache - 1.14 * reused);
    assert_eq!(synced.allocated_bytes(), plain.allocated_bytes(), "a reserved-only line");
    let gib = synced.reserved_bytes() as f64 / (1u64 << 30) as f64;
    assert!((gib / 4.98 - 1.0).abs() < 0.1, "{gib} GiB");
    // A step whose tensors fill the cache, DeepSpeed, expandable segments, one GPU: nothing.
    let slack = |q: &str| component(q, C::AllocatorSlack);
    let long = format!("{q}&seq=8192");
    assert_eq!(slack(&format!("{long}&sync_module_states=1")), slack(&long));
    for other in ["zero3=deepspeed", "alloc=expandable", "gpus=1"] {
        let q = format!("{q}&{other}");
        assert_eq!(slack(&format!("{q}&sync_module_states=1")), slack(&q), "{other}");
    }
    let link = vram_ledger::query::to_query(&scenario(&format!("{q}&sync_module_states=1")), &[]);
    assert!(link.contains("sync_module_states=1"), "{link}");
}

/// transformers' Llama-4 runs every routed expert over every token (`Llama4TextMoe`:
/// `hidden_states.repeat(num_experts, 1)` scaled by the router's scores, one batched matmul over all
/// 16 of Scout's experts), where top-1 routing would run one. With Unsloth's fused SwiGLU (the gate
/// and up outputs kept, 2 × 8,192 × 2 B per expert and token) the recomputed layer holds 15 experts ×
/// 32,768 B = 491,520 B more per token, and its backward the product's gradient, 15 × 8,192 × 2 B =
/// 245,760 B more: at 4,096 tokens (4,096 × 737,280 B) = 3,019,898,880 B (a bf16 stream: recipe=plain).
#[test]
fn llama4_runs_every_expert_over_every_token() {
    let q = "model=llama-4-scout&method=qlora&recipe=plain&rank=32&targets=qkvo&seq=4096&batch=1&gc=unsloth&kernels=unsloth&loss=fused&gpu=h100-80g";
    assert!(scenario(q).architecture.moe.is_some_and(|m| m.dense_experts), "the preset says so");
    let sparse = format!("{q}&dense_experts=0");
    let diff = component(q, C::Activations) as i64 - component(&sparse, C::Activations) as i64;
    assert!((diff - 3_019_898_880).abs() <= 4, "{diff}");
    // The link keeps the flag for a custom model and drops it where it is the preset's.
    assert!(vram_ledger::query::to_query(&scenario(&sparse), &[]).contains("dense_experts=0"));
    assert!(!vram_ledger::query::to_query(&scenario(q), &[]).contains("dense_experts"));
}

/// `optim=adamw_fused`: AdamW stepped in place (DeepSpeed's FusedAdam, torch's `fused=True`) holds
/// AdamW's states and no foreach temporary. Mistral-7B, full bf16 on one GPU (the test above):
/// PyTorch's AdamW peaks at its step, 10 B per parameter (weights 2 + gradients 2 + states 4 +
/// the foreach temporary 2); fused, the step line is gone and the states stay 2 × 2 B.
/// DeepSpeed's ZeRO-3 step keeps an fp32 copy of the gradients either way, one sub-group at a time:
/// the 6.86B decoder of DeepSpeedExamples on 4 GPUs (tests/data/measured.toml) steps 10⁹ of its
/// N ÷ 4 parameters per GPU at once, from 4 × 10⁹ B with the 16-bit flat copy beside it (6 × 10⁹);
/// PyTorch's AdamW adds a temporary of 4 × 10⁹ B to the fp32 copy (8 × 10⁹): 2 × 10⁹ B more.
#[test]
fn a_fused_adamw_steps_without_temporaries() {
    let p = 7_241_732_096u64;
    let q = "model=mistral-7b&method=full&precision=bf16&seq=4096&batch=4&gc=1&attn=flash&loss=hf_shift";
    let foreach = estimate(&scenario(q));
    let fused = estimate(&scenario(&format!("{q}&optim=adamw_fused")));
    assert_eq!(foreach.allocated_bytes(), 10 * p);
    assert!(foreach.component(C::OptimizerStep) > 0);
    assert_eq!(fused.component(C::OptimizerStep), 0);
    assert_eq!(fused.component(C::Optimizer), 4 * p);
    assert!(fused.allocated_bytes() < 10 * p);

    let n = 6_857_965_568u64;
    let ds = "model=custom&layers=32&hidden=4096&heads=32&kv_heads=32&head_dim=128&ffn=16384&vocab=50257&tied=0\
              &mlp=gelu&norm=layer&qkv_bias=1&out_mlp_bias=1&positions=512&method=full&zero=3&gpus=4&seq=512\
              &batch=1&gc=1&attn=eager&gpu=h100-80g&framework=deepspeed";
    let deepspeed = estimate(&scenario(ds));
    let torch_adamw = estimate(&scenario(&format!("{ds}&optim=adamw")));
    let step = |b: &vram_ledger::ledger::bill::Bill| b.component(C::OptimizerStep);
    // 6,857,965,568 ÷ 4 = 1.71 × 10⁹ parameters per GPU, stepped 10⁹ at a time: foreach AdamW's √v
    // of one sub-group (4 B) against the fused step's none, beside the fp32 gradient copy's 1.5 × 4 B.
    assert!(n / 4 > 1_000_000_000);
    assert_eq!(step(&torch_adamw) - step(&deepspeed), 2_000_000_000, "the framework sets adamw_fused");
}

/// `tiled_mlp=1` (Unsloth's `unsloth_tiled_mlp`, unsloth-zoo `tiled_mlp.py`): the MLP keeps only its
/// input. Llama-3.1-8B, LoRA on every linear with Unsloth's kernels, no checkpointing, 4,096 tokens:
/// untiled, each layer's MLP keeps the gate and up outputs (2 × 14,336 × 2 B; the fused SwiGLU
/// recomputes the product) and the MLP adapters' shared input (4,096 × 2 B); tiled, the MLP's input
/// (4,096 × 2 B) instead: 57,344 B per token and layer fewer, × 32 layers × 4,096 tokens.
/// With checkpointing, the recomputed layer's MLP is rebuilt a tile at a time: ⌊S / h⌋ tiles of
/// the flattened tokens (16,384 / 4,096 = 4 tiles of 4,096 tokens).
#[test]
fn a_tiled_mlp_keeps_only_its_input() {
    let q = "model=llama-3.1-8b&method=lora&rank=16&targets=all&kernels=unsloth&seq=4096&batch=1";
    let stored = |tiled: u8| component(&format!("{q}&gc=0&tiled_mlp={tiled}"), C::Activations);
    assert_eq!(stored(0) - stored(1), 57_344 * 32 * 4_096);
    let long = "model=llama-3.1-8b&method=lora&rank=16&targets=all&kernels=unsloth&seq=16384&batch=1&gc=1";
    let bill = estimate(&scenario(&format!("{long}&tiled_mlp=1")));
    let line = bill.components.iter().find(|c| c.id == C::Activations).expect("activations");
    let text = vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &line.formula);
    assert!(text.contains("tiles of 4,096 tokens"), "{text}");
    // Past a fused loss's chunk the recomputed layer sets the peak, and its MLP is a tile's.
    let fused = |tiled: u8| estimate(&scenario(&format!("{long}&loss=fused&tiled_mlp={tiled}"))).allocated_bytes();
    assert!(fused(1) < fused(0), "{} vs {}", fused(1), fused(0));
}
