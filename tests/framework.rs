//! `framework` / `framework_version` (issue 27): a release's rules fill the keys a link leaves out,
//! a key the link sets wins, links round-trip, and Unsloth's offloaded checkpoint is billed as its
//! source describes. Expected values come from the frameworks' source lines
//! (docs/research/frameworks/defaults.md, docs/frameworks.md) and hand arithmetic.

use vram_ledger::ledger::architecture::ImageSize;
use vram_ledger::ledger::framework::{self, releases};
use vram_ledger::ledger::scenario::{
    Allocator, Checkpointing, Framework, LossKernel, Optimizer, Precision, Recipe, TrainingLoop, Zero3Impl,
};
use vram_ledger::ledger::{estimate, ComponentId, Scenario};
use vram_ledger::query::{self, parse, to_query, with_key, Key};

fn scenario(q: &str) -> Scenario {
    let parsed = parse(q);
    assert!(parsed.errors.is_empty(), "{q}: {:?}", parsed.errors);
    assert!(parsed.warnings.is_empty(), "{q}: {:?}", parsed.warnings);
    parsed.scenario
}

fn bytes(s: &Scenario, id: ComponentId) -> u64 {
    estimate(s).components.iter().find(|c| c.id == id).map_or(0, |c| c.bytes)
}

/// Every framework, at every release read (and the newest by default), on LoRA, QLoRA and full
/// fine-tuning, on one GPU and sharded, SFT and GRPO: the link it writes reads back the same.
#[test]
fn every_framework_and_release_round_trips() {
    let configurations = [
        "method=lora",
        "method=qlora",
        "method=full",
        "method=full&gpus=8&zero=3",
        "method=qlora&gpus=4",
        "method=lora&gpus=2&zero=2",
        "method=lora&objective=grpo",
        "method=full&objective=ppo&gpus=8&zero=3",
        "method=qlora&seq=256",
    ];
    for f in Framework::ALL {
        let mut versions: Vec<String> = vec![String::new()];
        versions.extend(releases(*f).iter().map(|r| format!("&framework_version={r}")));
        for v in &versions {
            for c in configurations {
                let q = format!("framework={}{v}&{c}", f.id());
                let s = scenario(&q);
                assert_eq!(s.framework, *f, "{q}");
                let written = to_query(&s, &[]);
                assert_eq!(scenario(&written), s, "{q} → {written}");
                // The framework's own defaults are not written out: only the link's own keys are.
                for kv in written.split('&').filter(|kv| !kv.is_empty()) {
                    let key = kv.split('=').next().unwrap_or("");
                    let own = key.starts_with("framework") || c.split('&').any(|p| p.starts_with(&format!("{key}=")));
                    assert!(own, "{q} writes {kv}: {written}");
                }
            }
        }
    }
}

/// Unsloth (2026.8.19): its loader's and trainer's defaults, each from its source line.
#[test]
fn unsloth_sets_its_defaults() {
    let s = scenario("model=llama-3.1-8b&method=qlora&framework=unsloth");
    // models/loader.py:L423 use_gradient_checkpointing="unsloth" (seq 2048 ≥ 512, one GPU).
    assert_eq!(s.checkpointing, Checkpointing::Offloaded);
    // models/llama.py:L1497 unsloth_fused_ce_loss.
    assert_eq!(s.loss, Some(LossKernel::Fused));
    // models/rl.py:L3276 optim="adamw_8bit".
    assert_eq!(s.optimizer, Optimizer::AdamW8bit);
    // _utils.py:L2482-2496: the embedding, head and norms stay bf16.
    assert_eq!(s.recipe, Some(Recipe::Plain));
    // unsloth-zoo __init__.py:L277-291.
    assert_eq!(s.alloc, Allocator::Expandable);
    // Below 512 tokens and under DDP the offloader is not applied: torch's checkpoint (gc=1).
    assert_eq!(scenario("method=qlora&framework=unsloth&seq=256").checkpointing, Checkpointing::Full);
    assert_eq!(scenario("method=qlora&framework=unsloth&gpus=2").checkpointing, Checkpointing::Full);
    // GRPO's log-probabilities come from the hidden states a chunk at a time (rl.py L495-497):
    // fused too; without the framework, TRL's selective_log_softmax (the objectives' default).
    assert_eq!(scenario("method=lora&framework=unsloth&objective=grpo").loss, Some(LossKernel::Fused));
    assert_eq!(scenario("method=lora&objective=grpo").loss, None);
    // Full fine-tuning in bf16 is pure bf16 (models/vision.py:L2176-2183).
    assert_eq!(scenario("method=full&framework=unsloth").precision, Precision::Bf16);
}

/// A key the link sets wins over the framework's default, and stays in the link.
#[test]
fn a_key_the_link_sets_wins() {
    let s = scenario("method=qlora&framework=unsloth&gc=1&optim=adamw&loss=hf&alloc=default&recipe=peft");
    assert_eq!(s.checkpointing, Checkpointing::Full);
    assert_eq!(s.optimizer, Optimizer::AdamW);
    assert_eq!(s.loss, Some(LossKernel::Hf));
    assert_eq!(s.alloc, Allocator::Default);
    assert_eq!(s.recipe, Some(Recipe::Peft));
    let written = to_query(&s, &[]);
    for kv in ["gc=1", "optim=adamw", "loss=hf", "alloc=default", "recipe=peft"] {
        assert!(written.split('&').any(|p| p == kv), "{kv} missing from {written}");
    }
    // The note lists only what the framework still sets.
    let notes: Vec<String> = estimate(&scenario("method=qlora&framework=unsloth&gc=1"))
        .notes
        .iter()
        .filter(|n| n.key == "framework")
        .map(|n| vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &n.text))
        .collect();
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("loss=fused") && !notes[0].contains("gc=unsloth"), "{}", notes[0]);
    // hf at its newest release sets nothing and says nothing.
    assert!(estimate(&Scenario::default()).notes.iter().all(|n| n.key != "framework"));
}

/// Releases: the rules follow the release asked for (TRL's and transformers' changes of 2024–26).
#[test]
fn rules_follow_the_release() {
    // TRL v0.9–v0.25: peft_module_casting_to_bf16 (recipe=trl) and transformers 4's reentrant checkpoint.
    let old = scenario("method=qlora&framework=trl&framework_version=0.25");
    assert_eq!((old.recipe, old.checkpointing), (Some(Recipe::Trl), Checkpointing::Reentrant));
    // v0.26 drops the k-bit preparation; v0.27 sets use_reentrant=False (sft_config.py:L287).
    assert_eq!(scenario("method=qlora&framework=trl&framework_version=0.26").recipe, Some(Recipe::Plain));
    assert_eq!(scenario("method=qlora&framework=trl&framework_version=0.27").checkpointing, Checkpointing::Full);
    // Full fine-tuning of a model TRL loads from its path: before v0.19 transformers' fp32 without the
    // bf16 flag (pure fp32); v0.26's dtype "auto" is the checkpoint's bf16; v0.27 fp32 under bf16
    // autocast again, which precision=mixed bills (16 B per parameter either way).
    assert_eq!(scenario("method=full&framework=trl&framework_version=0.17").precision, Precision::Fp32);
    assert_eq!(scenario("method=full&framework=trl&framework_version=0.26").precision, Precision::Bf16);
    assert_eq!(scenario("method=full&framework=trl&framework_version=0.27").precision, Precision::Mixed);
    assert_eq!(scenario("method=lora&framework=trl&framework_version=0.17").precision, Precision::Mixed);
    // LoRA over an int8 bitsandbytes base is prepared as QLoRA is (PEFT's prepare_model_for_kbit_training
    // runs for 8-bit and 4-bit loads alike), so the frameworks' k-bit recipes apply to it too.
    assert_eq!(scenario("method=lora&quant=int8&framework=trl&framework_version=0.25").recipe, Some(Recipe::Trl));
    assert_eq!(scenario("method=lora&quant=int8&framework=axolotl").recipe, Some(Recipe::Plain));
    assert_eq!(scenario("method=lora&framework=axolotl").recipe, None);
    // v1.7 makes chunked_nll the SFT loss (billed as fused); v1.6 was nll (hf).
    assert_eq!(scenario("method=lora&framework=trl&framework_version=1.6").loss, None);
    assert_eq!(scenario("method=lora&framework=trl").loss, Some(LossKernel::Fused));
    // transformers ≤ 4.48: the shifted fp32 copy; 4.x: reentrant; 5.x: neither.
    let hf = scenario("framework=hf&framework_version=4.48");
    assert_eq!((hf.loss, hf.checkpointing), (Some(LossKernel::HfShift), Checkpointing::Reentrant));
    assert_eq!(scenario("framework_version=5.25"), Scenario { framework_version: hf_newest(), ..Scenario::default() });
    // LLaMA-Factory exports expandable segments only through torchrun, from v0.9.3.
    assert_eq!(scenario("framework=llamafactory&gpus=2").alloc, Allocator::Expandable);
    assert_eq!(scenario("framework=llamafactory&gpus=1").alloc, Allocator::Default);
    assert_eq!(scenario("framework=llamafactory&framework_version=0.9.2&gpus=2").alloc, Allocator::Default);
    // Answer.AI's train.py: always FSDP (full shard) with sync_module_states, bf16, its own loop.
    let a = scenario("framework=answerai&method=qlora&gpus=2");
    assert_eq!((a.zero, a.zero3, a.sync_module_states), (3, Zero3Impl::Fsdp, true));
    assert_eq!((a.precision, a.training_loop), (Precision::Bf16, TrainingLoop::Script));
    // Megatron-SWIFT's distributed optimizer (megatron_args.py: use_distributed_optimizer=True): the
    // run is billed as one GPU of the Megatron grid, `gpus` alone its data parallel (issue 28).
    let m = scenario("framework=megatron&method=full&gpus=8");
    assert!(m.layout.dist_optim && m.layout.is_grid());
    assert_eq!(m.zero, 0);
    let bill = vram_ledger::ledger::estimate(&m);
    assert_eq!(bill.parallel.map(|p| p.layout.dp), Some(8));
}

fn hf_newest() -> Option<vram_ledger::ledger::scenario::Release> {
    releases(Framework::Hf).last().copied()
}

/// Choosing a release in the page and going back to the newest: the old release's implied keys
/// go with it.
#[test]
fn the_release_select_goes_back_to_the_newest() {
    let newest = scenario("method=qlora&framework=trl");
    let (old, problem) = with_key(&newest, Key::FrameworkVersion, "0.25");
    assert!(problem.is_none());
    assert_eq!(old.recipe, Some(Recipe::Trl));
    let (back, problem) = with_key(&old, Key::FrameworkVersion, "");
    assert!(problem.is_none());
    assert_eq!(back, newest);
    // Changing the framework drops the old one's implied keys too.
    let (trl, _) = with_key(&scenario("method=qlora&framework=unsloth"), Key::Framework, "trl");
    assert_eq!(trl, newest);
}

/// Unsloth's offloaded checkpoint against hand arithmetic: Llama-3.1-8B (32 layers, hidden 4,096),
/// 4,096 tokens, bf16 stream (recipe=plain): one layer input = 4,096 × 4,096 × 2 B = 32 MiB. The
/// GPU keeps 3 (the last layer's and two reload buffers) instead of 32: 29 × 32 MiB = 928 MiB less;
/// host RAM holds 31 × 32 MiB = 992 MiB.
#[test]
fn offloaded_checkpoint_keeps_three_layer_inputs_on_the_gpu() {
    let base = "model=llama-3.1-8b&method=qlora&recipe=plain&seq=4096&batch=1";
    let offloaded = scenario(&format!("{base}&gc=unsloth"));
    let on_gpu = scenario(&format!("{base}&gc=1"));
    let mib = 1024.0 * 1024.0;
    let saved = bytes(&on_gpu, ComponentId::Activations) as f64 - bytes(&offloaded, ComponentId::Activations) as f64;
    assert!((saved - 928.0 * mib).abs() < 1.0, "{}", saved / mib);
    let bill = estimate(&offloaded);
    let note = bill.notes.iter().find(|n| n.key == "offloaded_checkpoints").expect("the host-RAM note");
    let text = vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &note.text);
    assert!(text.contains("992.00 MiB"), "{text}");
}

/// The measured LitGPT and Answer.AI cases are written with `framework=…` in place of the keys the
/// frameworks imply; written out with those keys by hand, every bill is the same.
#[test]
fn framework_cases_equal_their_hand_set_keys() {
    let text = std::fs::read_to_string("tests/data/measured.toml").expect("measured set");
    let mut checked = 0;
    for line in text.lines().filter_map(|l| l.strip_prefix("query = \"")) {
        let q = line.trim_end_matches('"');
        let hand = if let Some(rest) = q.strip_prefix("framework=litgpt&") {
            let recipe = if rest.contains("method=qlora") { "&recipe=plain" } else { "" };
            format!("{rest}&precision=bf16&gc=0&loss=chunked&loop=script{recipe}")
        } else if let Some(rest) = q.strip_prefix("framework=answerai&") {
            let zero = if rest.contains("zero=") { "" } else { "&zero=3" };
            let recipe = if rest.contains("method=qlora") { "&recipe=plain" } else { "" };
            let sync = if rest.contains("zero=0") { "" } else { "&sync_module_states=1" };
            format!("{rest}&precision=bf16&gc=1&loop=script{zero}{sync}{recipe}")
        } else {
            continue;
        };
        let (a, b) = (estimate(&scenario(q)), estimate(&scenario(&hand)));
        assert_eq!(a.components, b.components, "{q} vs {hand}");
        checked += 1;
    }
    assert_eq!(checked, 50);
}

/// docs/frameworks.md is what `vram-ledger --frameworks` prints.
#[test]
fn docs_frameworks_md_is_current() {
    let doc = std::fs::read_to_string("docs/frameworks.md").expect("docs/frameworks.md");
    assert_eq!(
        doc,
        framework::rules_markdown(),
        "run: cargo run --bin vram-ledger -- --frameworks > docs/frameworks.md"
    );
}

/// Hostile values are errors with the accepted values, never a panic; the rest of the link stands.
#[test]
fn bad_framework_values_are_errors() {
    for q in [
        "framework=<script>",
        "framework=UNSLOTH",
        "framework_version=abc",
        "framework_version=1.2.3.4",
        "framework_version=99999",
    ] {
        let parsed = parse(&format!("method=qlora&{q}&seq=4096"));
        assert_eq!(parsed.errors.len(), 1, "{q}");
        assert_eq!(parsed.scenario.seq, 4096);
        assert_eq!(parsed.scenario.framework, Framework::Hf);
    }
    let (_, problem) = query::with_key(&Scenario::default(), Key::Framework, "nope");
    assert!(problem.is_some());
}

fn activations_formula(q: &str) -> String {
    let bill = estimate(&scenario(q));
    let c = bill.components.iter().find(|c| c.id == ComponentId::Activations).expect("activations");
    vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &c.formula)
}

/// The layer's kernels, per token of one recomputed layer, by hand from the kernels' sources.
/// Llama-3.1-8B: h = 4,096, kv = 1,024 (8 heads × 128), ffn = 14,336, 32 heads, bf16 (2 B).
#[test]
fn fused_kernels_keep_what_their_sources_save() {
    // Full fine-tuning, flash attention:
    // hf: each RMSNorm an fp32 copy 4h + its normalised value 2h + its output 2h = 32,768, twice;
    //     q, k, v 2(h + 2kv) = 12,288; output + fp32 LSE 2h + 4·32 = 8,320; SwiGLU's gate, SiLU,
    //     up and product 4 × 2 × ffn = 114,688 → 200,832.
    assert!(activations_formula("model=llama-3.1-8b&method=full&precision=bf16&attn=flash&seq=4096")
        .contains("(200,832 B/token"));
    // liger: LigerRMSNorm keeps X (and fp32 r per row: not per token) 2h + the output 2h = 16,384,
    //     twice; LigerSiLUMulFunction keeps gate and up, the product for down_proj: 3 × 2 × ffn =
    //     86,016; attention as hf → 139,392.
    assert!(activations_formula("model=llama-3.1-8b&method=full&precision=bf16&attn=flash&kernels=liger&seq=4096")
        .contains("(139,392 B/token"));
    // unsloth, QLoRA on every linear (fast_lora.py): the norms keep X 2h = 8,192 each; attention as
    //     above 20,608; LoRA_MLP keeps e and g 2 × 2 × ffn = 57,344; LoRA_QKV's and LoRA_MLP's inputs
    //     2h each = 16,384 (LoRA_W's input is flash's output, a view) → 110,720.
    assert!(activations_formula("model=llama-3.1-8b&method=qlora&recipe=plain&attn=flash&kernels=unsloth&seq=4096")
        .contains("(110,720 B/token"));
    // framework=unsloth sets kernels=unsloth.
    assert_eq!(scenario("method=qlora&framework=unsloth").kernels, vram_ledger::ledger::scenario::Kernels::Unsloth);
}

/// TRL's PPOTrainer (and ms-swift's, its subclass) runs one backward through the policy and the
/// value model (`PolicyAndValueWrapper`): `ppo_update=joint`, set by those frameworks for PPO only.
/// The critic's own step then sits beside the policy's: its line at the peak is its resident weights
/// and states plus that step's activations and gradients, and the bill grows by exactly that.
#[test]
fn trl_s_ppo_backpropagates_policy_and_critic_together() {
    use vram_ledger::ledger::scenario::PpoUpdate;
    let q = "model=qwen2.5-1.5b&objective=ppo&method=lora&rank=8&batch=2&prompt_len=512&completion_len=256&rollout=hf&gpu=a100-80g";
    assert_eq!(scenario(&format!("{q}&framework=trl")).rl.ppo_update, PpoUpdate::Joint);
    assert_eq!(scenario(&format!("{q}&framework=ms-swift")).rl.ppo_update, PpoUpdate::Joint);
    assert_eq!(scenario(q).rl.ppo_update, PpoUpdate::Apart);
    assert_eq!(scenario("method=lora&objective=grpo&framework=trl").rl.ppo_update, PpoUpdate::Apart);
    let apart = estimate(&scenario(q));
    let joint = estimate(&scenario(&format!("{q}&ppo_update=joint")));
    let critic = |b: &vram_ledger::ledger::Bill| {
        b.components.iter().find(|c| c.id == ComponentId::Critic).map_or(0, |c| c.bytes)
    };
    let extra = critic(&joint) - critic(&apart);
    assert!(extra > 0, "the critic's step joins the policy's");
    // Everything else at the peak is the policy's, as before (the same peak phase here).
    assert_eq!(joint.rl.as_ref().map(|r| r.peak_phase), apart.rl.as_ref().map(|r| r.peak_phase));
    assert_eq!(joint.allocated_bytes() - apart.allocated_bytes(), extra);
}

fn component_bytes(q: &str, id: ComponentId) -> u64 {
    bytes(&scenario(q), id)
}

/// `engine_version` with `engine=hf` is the transformers release (issue 30; the rules' source lines in
/// docs/research/transformers-inference-by-release.md). Llama-2-7B: 32 layers, 32 KV heads × 128,
/// bf16 cache: 2 × 4,096 × 2 B × 32 = 512 KiB per token.
#[test]
fn generate_follows_the_transformers_release() {
    let base = "model=llama-2-7b&mode=infer&quant=bf16&attn=eager&gpu=a100-80g";
    // 512 + 512 tokens × 16 sequences: the cache is 1,024 × 16 × 512 KiB = 8 GiB.
    let q = format!("{base}&seq=512&gen=512&batch=16");
    let gib = 1u64 << 30;
    assert_eq!(component_bytes(&q, ComponentId::KvCache), 8 * gib);
    // Before 4.42 (tuple caches grown by torch.cat, outputs not deleted) a decoding step holds the
    // old cache and the new one whole: 8 GiB more; from 4.42 one layer's grown copy, 8 GiB / 32.
    assert_eq!(component_bytes(&format!("{q}&engine_version=4.41"), ComponentId::Activations), 8 * gib);
    assert_eq!(component_bytes(&format!("{q}&engine_version=4.42"), ComponentId::Activations), gib / 4);
    assert_eq!(component_bytes(&q, ComponentId::Activations), gib / 4);
    // Before 4.45 the prefill projects every prompt position and upcasts it: a 4,096-token prompt
    // alone holds 4,096 × vocab 32,000 × (2 + 4) B = 786,432,000 B of logits at its end.
    let prompt = format!("{base}&seq=4096&gen=0&batch=1");
    assert_eq!(component_bytes(&format!("{prompt}&engine_version=4.44"), ComponentId::Logits), 786_432_000);
    // From 4.45 only the last position: vocab × (2 + 4 + 4) B.
    assert_eq!(component_bytes(&format!("{prompt}&engine_version=4.45"), ComponentId::Logits), 320_000);
    // With 2,048 generated tokens (SDPA: the prefill's layer peak, under 0.4 GiB, is below the
    // logits) the decoding steps' cache, 6,144 × 512 KiB = 3 GiB and one layer's copy beside it,
    // outgrows the prefill's moment, the prompt's 2 GiB + 750 MiB of logits: at the peak they are gone.
    let sdpa = base.replace("attn=eager", "attn=sdpa");
    let long = format!("{sdpa}&seq=4096&gen=2048&batch=1&engine_version=4.44");
    assert_eq!(component_bytes(&long, ComponentId::Logits), 0);
    // With 256 the prefill's moment is the peak: the lines add up to it — the cache line holds the
    // generated tokens' 256 × 512 KiB too, which that moment has not, so the logits line is less by
    // as much: 786,432,000 − 134,217,728.
    let short = format!("{sdpa}&seq=4096&gen=256&batch=1&engine_version=4.44");
    assert_eq!(component_bytes(&short, ComponentId::Logits), 786_432_000 - 134_217_728);
}

/// transformers' SDPA before 4.54 repeats a grouped-query layer's K and V to every query head on
/// each call (`repeat_kv` in `integrations/sdpa_attention.py` 4.48–4.53, the `*SdpaAttention`
/// classes before; from 4.54 `enable_gqa=True` when no 4D mask is built), read in the releases'
/// wheels in the nineteenth session. Qwen3-8B: 36 layers, 32 query heads and 8 KV heads × 128, bf16.
/// Checked by the Qwen3 speed benchmark's AWQ rows (transformers 4.51.3, SDPA): the decoding peak
/// grows by 9/8 of the cache per token there, against the cache alone in its FA2 rows.
#[test]
fn sdpa_before_4_54_repeats_grouped_keys_and_values() {
    let base = "model=qwen3-8b&mode=infer&quant=bf16&gpu=h20&seq=30720&gen=2048&batch=1";
    let old = format!("{base}&engine=hf&engine_version=4.51.3&attn=sdpa");
    let new = format!("{base}&engine=hf&engine_version=4.54&attn=sdpa");
    // A decoding step at 32,768 tokens: from 4.54 the grown layer's copy, 2 × 8 × 128 × 2 B ×
    // 32,768 = 128 MiB; before, its K and V repeated to 32 heads, 2 × 32 × 128 × 2 B × 32,768 =
    // 512 MiB (the cat's copy is freed by then).
    let phase = |q: &str| {
        let s = scenario(q);
        let b = vram_ledger::ledger::estimate(&s);
        let phases = vram_ledger::ledger::phases::of(&b);
        let d = phases.iter().find(|p| p.name == vram_ledger::ledger::phases::PhaseName::Decode).expect("decode");
        d.bytes(ComponentId::Activations)
    };
    assert_eq!(phase(&new), 128 << 20);
    assert_eq!(phase(&old), 512 << 20);
    // FlashAttention-2 never repeats.
    assert_eq!(phase(&old.replace("attn=sdpa", "attn=flash")), 128 << 20);
    // A model whose query heads are its KV heads (Llama-2-7B) has nothing to repeat.
    let mha = "model=llama-2-7b&mode=infer&quant=bf16&gpu=a100-80g&seq=2048&gen=2048&batch=1&engine=hf&attn=sdpa";
    assert_eq!(phase(&format!("{mha}&engine_version=4.51.3")), phase(&format!("{mha}&engine_version=4.54")));
}

/// Quantized kernels at batch (issue 30; docs/research/transformers-inference-by-release.md §11–§13).
/// Qwen2.5-7B's largest layers are the MLP's, 3,584 × 18,944 = 67,895,296 weights (in + out =
/// 22,528). Beyond a 16-bit layer's output, per call at the prefill's largest layer:
/// - AutoAWQ's GEMM: from 1,024 rows the weight dequantized to fp16 (2 B per weight); below, its
///   split-k partial sums, 8 × rows × 18,944 × 2 B; its GEMV those sums above 8 rows;
/// - AutoGPTQ's cuda-old (exllama off, transformers before 4.49): from 128 rows the weight unpacked
///   through int32 and int8 to fp16, 5 B per weight; below, fp32 copies of input and output,
///   4 × rows × 22,528 B.
///
/// transformers before 4.49 runs a 4-bit GPTQ checkpoint on exllama v1 by default, whose fp16 buffer
/// of the largest layer (2 B per weight) stays on each GPU from loading on.
#[test]
fn awq_and_gptq_kernels_hold_the_largest_layer_in_fp16() {
    let weights = 67_895_296u64;
    let prefill = |q: &str| {
        let b = vram_ledger::ledger::estimate(&scenario(q));
        let phases = vram_ledger::ledger::phases::of(&b);
        let p = phases.iter().find(|p| p.name == vram_ledger::ledger::phases::PhaseName::Prefill).expect("prefill");
        p.bytes(ComponentId::Activations) + p.bytes(ComponentId::DequantBuffer)
    };
    let q = |v: &str, quant: &str, rows: (u32, u32)| {
        format!("model=qwen2.5-7b&mode=infer&engine=hf&engine_version={v}&attn=flash&gen=0&gpu=a100-80g&exllama=0&quant={quant}&seq={}&batch={}", rows.0, rows.1)
    };
    let beyond = |v: &str, quant: &str, rows| prefill(&q(v, quant, rows)) - prefill(&q(v, "bf16", rows));
    assert_eq!(beyond("4.46.0", "awq4", (1000, 1)), 8 * 1000 * 18_944 * 2);
    // AutoAWQ's GEMV (`awq_version=gemv`) keeps the partial sums whatever the rows above 8.
    let gemv = |rows| beyond("4.46.0&awq_version=gemv", "awq4", rows);
    assert_eq!(gemv((4096, 1)), 8 * 4096 * 18_944 * 2);
    assert_eq!(gemv((8, 1)), 0);
    assert_eq!(beyond("4.46.0", "awq4", (1024, 1)), weights * 2);
    // Rows are tokens × sequences.
    assert_eq!(beyond("4.46.0", "awq4", (256, 4)), weights * 2);
    assert_eq!(beyond("4.46.0", "gptq4", (1024, 1)), weights * 5);
    assert_eq!(beyond("4.46.0", "gptq4", (100, 1)), 4 * 100 * 22_528);
    // From 4.49 transformers loads GPTQ through GPTQModel, whose kernels are not billed.
    assert_eq!(beyond("4.49.0", "gptq4", (1024, 1)), 0);
    // GPTQ's default kernel on 4.46 is exllama v1: its buffer from loading on; none on 4.49.
    let gptq = |v: &str| {
        vram_ledger::ledger::estimate(&scenario(&format!(
            "model=qwen2.5-7b&mode=infer&engine=hf&engine_version={v}&quant=gptq4&seq=512&gen=16&gpu=a100-80g"
        )))
    };
    assert_eq!(gptq("4.46.0").component(ComponentId::DequantBuffer), weights * 2);
    assert_eq!(gptq("4.49.0").component(ComponentId::DequantBuffer), 0);
}

/// bitsandbytes' LLM.int8 at a long prefill (0.45 on, `MatMul8bitLt`; docs/research/
/// transformers-inference-by-release.md §12): beyond a 16-bit linear's output, the larger of the
/// input's quantization (6 B per input element) and the matmul (1 B per input, 6 B per output
/// element). Llama-3.1-8B's largest is the up projection, 4,096 → 14,336: 4,096 + 6 × 14,336 =
/// 90,112 B per row (the down projection's 6 × 14,336 = 86,016 is less); 4,096 rows.
#[test]
fn llm_int8_holds_its_matmul_buffers_at_the_prefill() {
    let prefill = |quant: &str, seq: u32| {
        let q =
            format!("model=llama-3.1-8b&mode=infer&engine=hf&attn=flash&quant={quant}&seq={seq}&gen=0&gpu=a100-80g");
        let b = vram_ledger::ledger::estimate(&scenario(&q));
        let phases = vram_ledger::ledger::phases::of(&b);
        let p = phases.iter().find(|p| p.name == vram_ledger::ledger::phases::PhaseName::Prefill).expect("prefill");
        p.bytes(ComponentId::Activations)
    };
    assert_eq!(prefill("int8", 4096) - prefill("bf16", 4096), 4096 * 90_112);
    // A short prompt's buffers are small: 8 rows.
    assert_eq!(prefill("int8", 8) - prefill("bf16", 8), 8 * 90_112);
}

/// `mask=full`: ChatGLM's remote code (GLM-4-9B's `modeling_chatglm.py`), read in the seventeenth
/// session. With SDPA and no padding it builds no mask (is_causal), returns only the last position's
/// logits, and grows the prompt's cache by `torch.cat` after each layer; its prefill is replayed
/// through the caching allocator. By hand, the live peak is the last layer's MLP: the residual
/// stream's three 16-bit tensors (the layer's input, the attention's residual sum, the second norm's
/// output: 3 × 4,096 × 2 B), `dense_h_to_4h`'s output (2 × 13,696 × 2 B), SiLU of its half and the
/// product (2 × 13,696 × 2 B), and the cache: `presents` of 39 layers, the previous layer's
/// `kv_cache` (alive until the loop rebinds it) and this layer's, 41 × 2 × 2 KV heads × 128 × 2 B =
/// 176,128 B per position; beyond the prompt's cache (40 layers' 1,024 B) 135,168 B × 128,000 =
/// 17,301,504,000 B, and at most 1 MiB more per live block where the allocator does not split one.
/// The logits stay the last position's on 4.40: vocab 151,552 × (2 + 4 + 4) B.
#[test]
fn chatglm_remote_code_replays_its_prefill() {
    let glm = "model=custom&layers=40&hidden=4096&heads=32&kv_heads=2&head_dim=128&ffn=13696&vocab=151552&tied=0&qkv_bias=1&mode=infer&quant=bf16&attn=sdpa&batch=1&seq=128000&gen=0&gpu=a100-80g";
    let full = format!("{glm}&mask=full");
    let activations = component_bytes(&full, ComponentId::Activations);
    assert!((17_301_504_000..17_301_504_000 + 16 * (1 << 20)).contains(&activations), "{activations}");
    assert_eq!(component_bytes(&format!("{full}&engine_version=4.40"), ComponentId::Logits), 1_515_520);
    // transformers' own class on 4.40 projects all 128,000 positions: 128,000 × 151,552 × 6 B.
    assert_eq!(component_bytes(&format!("{glm}&engine_version=4.40"), ComponentId::Logits), 116_391_936_000);
    // The concatenation leaves reserved far more than the allocator's 3 % share: each layer's larger
    // `presents` cannot use the block the last one freed. The replay reserves at least the live peak.
    let allocated = estimate(&query::parse(&full).scenario).allocated_bytes();
    let slack = component_bytes(&full, ComponentId::AllocatorSlack);
    assert!(slack as f64 > 0.2 * allocated as f64, "slack {slack} of {allocated}");
    // Not replayed over two GPUs, nor for a model of more layers than a replay runs (its steps grow
    // with them; no ChatGLM has a tenth of 256): the layer rule and the 3 % share stand.
    for other in [format!("{full}&tp=2"), full.replace("layers=40", "layers=300")] {
        let allocated = estimate(&query::parse(&other).scenario).allocated_bytes() as f64;
        let slack = component_bytes(&other, ComponentId::AllocatorSlack) as f64;
        assert!((slack / allocated - 0.03).abs() < 0.001, "{other}: {slack} of {allocated}");
    }
}

/// Unsloth's 2024 cross-entropy kernel (before 2024.11.7) keeps the 16-bit logits and writes their
/// gradient into them; the model returns them, and under the Trainer's mixed precision Accelerate
/// converts the returned outputs to fp32 at the forward's end (`convert_outputs_to_fp32`, accelerate
/// 0.30 operations.py:768-789, read with unsloth 2024.5: docs/research/frameworks/unsloth-2024-step.md),
/// so the loss holds 2 + 4 B per logit on any card. Without mixed precision (`precision=bf16`) only
/// the 16-bit logits. Its Triton cross-entropy caps Gemma-2's logits inside the kernel
/// (`DO_SOFTCAPPING`), so no tanh output is kept. Hand arithmetic: 2 sequences × 2,048 tokens × vocab.
#[test]
fn unsloth_2024_keeps_its_16_bit_logits_beside_accelerate_s_fp32_copy() {
    let base = "framework=unsloth&framework_version=2024.8&method=qlora&rank=16&targets=all&seq=2048&batch=2";
    let logits = |q: &str| bytes(&scenario(q), ComponentId::Logits);
    let tokens = 2 * 2048u64;
    assert_eq!(logits(&format!("{base}&model=llama-3.1-8b&gpu=t4")), tokens * 128_256 * 6);
    assert_eq!(logits(&format!("{base}&model=llama-3.1-8b&gpu=a100-80g")), tokens * 128_256 * 6);
    assert_eq!(logits(&format!("{base}&model=gemma-2-9b&gpu=t4")), tokens * 256_000 * 6);
    assert_eq!(logits(&format!("{base}&model=llama-3.1-8b&gpu=a100-80g&precision=bf16")), tokens * 128_256 * 2);
    // From 2024.11.7 the loss is fused (Cut Cross-Entropy): no logits are returned.
    let fused = "framework=unsloth&framework_version=2025.1.5&method=qlora&rank=16&seq=2048&batch=2&model=llama-3.1-8b";
    assert!(logits(&format!("{fused}&gpu=t4")) < tokens * 128_256);
}

/// From unsloth 2025.8.10 (which requires unsloth-zoo 2025.8.9, commit 9821e897 "Flex attention")
/// gpt-oss trains through `flex_attention_with_sink` (unsloth-zoo `temporary_patches/gpt_oss.py`),
/// which keeps no s² scores: the framework sets `attn=flash` on models with attention sinks, from
/// that release, and a link's own `attn` wins.
#[test]
fn unsloth_trains_gpt_oss_with_flex_attention_from_2025_8_10() {
    use vram_ledger::ledger::scenario::AttentionKernel;
    let q = |v: &str, extra: &str| {
        scenario(&format!("framework=unsloth&framework_version={v}&model=gpt-oss-20b&method=qlora{extra}"))
    };
    assert_eq!(q("2025.8.10", "").attention, AttentionKernel::Flash);
    assert_eq!(q("2025.9.1", "").attention, AttentionKernel::Flash);
    assert_eq!(q("2025.8.2", "").attention, AttentionKernel::Sdpa);
    assert_eq!(q("2025.9.1", "&attn=eager").attention, AttentionKernel::Eager);
    // Models without sinks keep the default.
    let llama = scenario("framework=unsloth&framework_version=2025.9.1&model=llama-3.1-8b&method=qlora");
    assert_eq!(llama.attention, AttentionKernel::Sdpa);
}

/// Unsloth's RoPE tables (`rope_cache`), from its source: before 2025.1.1 every attention layer
/// builds its own `LlamaRotaryEmbedding` (`_utils.py` `patch_llama_rope_scaling`), whose cos and
/// sin tables cover `max(max_seq_length, max_position_embeddings)` (2024.7 and before), or that
/// capped at 4 × 8192 and grown in 8,192-token steps past it (dynamic RoPE, 2024.8 – 2024.12);
/// Gemma's `GemmaFixedRotaryEmbedding` keeps fp32; from 2025.1.1 the layers share the model's one
/// pair. Expected bytes are hand arithmetic: layers × 2 tables × positions × head_dim × bytes.
#[test]
fn unsloth_keeps_rope_tables_by_release() {
    use vram_ledger::ledger::scenario::RopeCache;
    let rope = |q: &str| {
        let with = bytes(&scenario(q), ComponentId::Weights);
        let without = bytes(&scenario(&format!("{q}&rope_cache=none")), ComponentId::Weights);
        with - without
    };
    let qlora = "method=qlora&rank=16&seq=2048&batch=2&gpu=t4";
    assert_eq!(scenario("framework=unsloth&framework_version=2024.6&method=qlora").rope_cache, RopeCache::LayerFull);
    assert_eq!(scenario("framework=unsloth&framework_version=2024.8&method=qlora").rope_cache, RopeCache::Layer);
    assert_eq!(scenario("framework=unsloth&framework_version=2024.12.12&method=qlora").rope_cache, RopeCache::Layer);
    assert_eq!(scenario("framework=unsloth&framework_version=2025.1.1&method=qlora").rope_cache, RopeCache::Model);
    assert_eq!(scenario("framework=unsloth&method=qlora").rope_cache, RopeCache::Model);
    assert_eq!(scenario("method=qlora").rope_cache, RopeCache::None);
    // Qwen2-7B (131,072 positions in its config) under 2024.6: 28 layers × 2 × 131,072 × 128 × 2 B.
    let q = format!("framework=unsloth&framework_version=2024.6&model=qwen2.5-7b&model_context=131072&{qlora}");
    assert_eq!(rope(&q), 28 * 2 * 131_072 * 128 * 2);
    // The same model under 2024.9: capped at 32,768 positions.
    let q = format!("framework=unsloth&framework_version=2024.9&model=qwen2.5-7b&model_context=131072&{qlora}");
    assert_eq!(rope(&q), 28 * 2 * 32_768 * 128 * 2);
    // Llama-3.1-8B at 100,000 tokens under 2024.12: grown to 13 × 8,192 = 106,496 positions.
    let q = "framework=unsloth&framework_version=2024.12&model=llama-3.1-8b&method=qlora&seq=100000&gpu=h100-80g";
    assert_eq!(rope(q), 32 * 2 * 106_496 * 128 * 2);
    // Gemma-2-9B under 2024.7: 8,192 positions in fp32.
    let q = format!("framework=unsloth&framework_version=2024.7&model=gemma-2-9b&{qlora}");
    assert_eq!(rope(&q), 42 * 2 * 8_192 * 256 * 4);
    // From 2025.1.1 one pair for the model.
    let q = format!("framework=unsloth&model=llama-3.1-8b&{qlora}");
    assert_eq!(rope(&q), 2 * 32_768 * 128 * 2);
    // A link's own value wins, and a learned-position model has no tables.
    assert_eq!(rope(&format!("model=llama-3.1-8b&rope_cache=layer&{qlora}")), 32 * 2 * 32_768 * 128 * 2);
    assert_eq!(rope(&format!("model=gpt2&rope_cache=layer&{qlora}")), 0);
}

/// The 2024 notebooks print what is reserved after loading, before training (measurements: the
/// notebooks' saved outputs, docs/research/frameworks/unsloth-notebook-loads.md). With the RoPE
/// tables, the bill's weights and adapters are each within 0.035 GiB below that figure; without
/// them all but Phi-3.5 (whose LongRoPE tables cover 4,096 positions) were 0.13–1.76 GiB below.
/// Not listed: Gemma-2-2B, a 16-bit checkpoint quantized on load, 0.14 GiB above the bill with the
/// tables (the research note's ≈ 0.1 GiB of a 16-bit load's transients).
#[test]
fn unsloth_2024_loads_match_their_notebooks_with_the_rope_tables() {
    let text = std::fs::read_to_string("tests/data/measured.toml").expect("measured set");
    let loads = [
        ("unsloth-nb-llama-3.1-8b-alpaca-t4", 5.984),
        ("unsloth-nb-qwen2.5-7b-alpaca-t4", 5.764),
        ("unsloth-nb-mistral-7b-v0.3-alpaca-t4", 4.520),
        ("unsloth-nb-gemma-2-9b-alpaca-t4", 6.576),
        ("unsloth-nb-llama-3.2-3b-conversational-t4", 2.635),
        ("unsloth-nb-llama-3-8b-conversational-t4", 5.594),
        ("unsloth-nb-llama-3-8b-ollama-t4", 5.613),
        ("unsloth-nb-mistral-7b-v0.3-conversational-t4", 4.520),
        ("unsloth-nb-phi-3.5-mini-conversational-t4", 2.285),
        ("unsloth-nb-qwen2.5-coder-14b-conversational-t4", 10.287),
        ("unsloth-nb-qwen2-7b-alpaca-t4", 7.072),
    ];
    for (id, printed) in loads {
        let block = text.split("[[case]]").find(|b| b.contains(&format!("id = \"{id}\""))).expect(id);
        let q = block.lines().find_map(|l| l.strip_prefix("query = \"")).expect("query").trim_end_matches('"');
        let s = scenario(q);
        let gib = |s: &Scenario| {
            (bytes(s, ComponentId::Weights) + bytes(s, ComponentId::AdapterWeights)) as f64 / (1u64 << 30) as f64
        };
        let billed = gib(&s);
        assert!((0.0..0.035).contains(&(printed - billed)), "{id}: printed {printed}, billed {billed:.3}");
    }
}

/// transformers' own classes build a rotary embedding in every attention layer whose cos and sin
/// tables cover `max_position_embeddings` in the load dtype — Qwen2's through 4.44, Llama's and
/// Mistral's through 4.40 (read release by release: docs/research/transformers-inference-by-release.md
/// §9; the Qwen2 speed benchmark's 4.38.2 rows had the near-constant gap it makes); after, none, nor
/// for remote code (`mask=full`) or another engine. Expected bytes: layers × 2 × positions ×
/// head_dim × 2 B, by hand.
#[test]
fn generate_keeps_rope_tables_per_layer_in_old_releases() {
    let weights = |q: &str| component_bytes(q, ComponentId::Weights);
    let base = "model=qwen2.5-0.5b&mode=infer&engine=hf&quant=bf16&attn=flash&seq=1&gen=2048&gpu=a100-80g";
    let tables = weights(&format!("{base}&engine_version=4.44")) - weights(&format!("{base}&engine_version=4.45"));
    // Qwen2-0.5B: 24 layers, head_dim 64, 32,768 positions (the preset's context).
    assert_eq!(tables, 24 * 2 * 32_768 * 64 * 2);
    assert_eq!(weights(&format!("{base}&engine_version=4.45")), weights(base));
    // Llama-2-7B (no q/k/v biases): through 4.40, 32 layers × 2 × 4,096 positions × 128 × 2 B.
    let llama = "model=llama-2-7b&mode=infer&engine=hf&quant=bf16&attn=sdpa&seq=512&gen=512&gpu=a100-80g";
    let llama_tables =
        weights(&format!("{llama}&engine_version=4.40")) - weights(&format!("{llama}&engine_version=4.41"));
    assert_eq!(llama_tables, 32 * 2 * 4_096 * 128 * 2);
    // A prompt longer than the tables grows them to it: 40,000 + 2,048 positions.
    let long = "model=qwen2.5-0.5b&mode=infer&engine=hf&quant=bf16&attn=flash&seq=40000&gen=2048&gpu=a100-80g";
    let grown = weights(&format!("{long}&engine_version=4.38.2")) - weights(long);
    assert_eq!(grown, 24 * 2 * 42_048 * 64 * 2);
    // Remote code keeps its own: none billed; vLLM neither.
    assert_eq!(weights(&format!("{base}&engine_version=4.38.2&mask=full")), weights(base));
    let vllm = "model=qwen2.5-0.5b&mode=infer&engine=vllm&engine_version=0.6.5&seq=2048&gpu=a100-80g";
    assert_eq!(weights(&format!("{vllm}&rope_cache=layer")), weights(vllm));
    // A link's own value wins over the release's: one pair for the model.
    assert_eq!(weights(&format!("{base}&rope_cache=model")) - weights(base), 2 * 32_768 * 64 * 2);
}

/// Unsloth's fused loss from 2025.8.5 (`unsloth_fused_ce_loss`, unsloth-zoo
/// `fused_losses/cross_entropy_loss.py`) sizes its chunks by the memory free at its first call:
/// fp32 logits of half of it per chunk, the count rounded to a multiple of 4 (one when that rounds to
/// none); from 2026.7.1 (unsloth-zoo #857) a chunk holds at most 4 GiB and the count rounds up.
/// Qwen3-32B QLoRA on an 80 GB card, 2 × 4,096 tokens: its fp32 logits are 8,192 × 151,936 × 4 B =
/// 4.64 GiB, against half the ~62 GiB left after the 4-bit weights. Each chunk holds its logits in
/// bf16 and fp32 (6 B each), plus the input gradient 8,192 × 5,120 × 2 B and an fp32 loss per token
/// (83,886,080 + 32,768 B):
/// - 2025.9.1: one chunk, 8,192 × 151,936 × 6 B + 83,918,848 B = 7,551,877,120 B;
/// - 2026.8.19: 4.64 / 4 GiB = 1.16 chunks, rounded up to 4: 2,048 tokens each, 1,950,908,416 B;
/// - 2025.6.1 (Cut Cross-Entropy before, billed as Liger's chunk): 8,192 ÷ ⌈151,936 / 5,120⌉ = 274 →
///   512 tokens, 550,666,240 B.
#[test]
fn unsloth_sizes_its_fused_loss_by_the_free_memory() {
    let q = "framework=unsloth&model=qwen3-32b&method=qlora&seq=4096&batch=2&gpu=a100-80g";
    let logits = |v: &str| {
        vram_ledger::ledger::estimate(&scenario(&format!("{q}&framework_version={v}")))
            .component(vram_ledger::ledger::bill::ComponentId::Logits)
    };
    assert_eq!(logits("2025.9.1"), 7_551_877_120);
    assert_eq!(logits("2026.8.19"), 1_950_908_416);
    assert_eq!(logits("2025.6.1"), 550_666_240);
}

/// `adapter=1`: a PEFT LoRA adapter loaded over the base and left unmerged in `generate()`. By
/// hand for Llama-2-13B at rank 64 over every linear layer: 40 layers × 64 × (q, k, v, o:
/// 4 × (5,120 + 5,120) + gate, up, down: 3 × (5,120 + 13,824)) = 250,347,520 parameters, fp32 as
/// PEFT makes them: 1,001,390,080 B. Nothing without the key, nor for another engine (the key is
/// transformers').
#[test]
fn a_peft_adapter_is_billed_unmerged_in_fp32() {
    let base = "model=llama-2-13b&mode=infer&quant=nf4&seq=512&rank=64&targets=all&gpu=a100-80g";
    assert_eq!(component_bytes(&format!("{base}&adapter=1"), ComponentId::AdapterWeights), 1_001_390_080);
    assert_eq!(component_bytes(base, ComponentId::AdapterWeights), 0);
    assert_eq!(component_bytes(&format!("{base}&adapter=1&engine=vllm"), ComponentId::AdapterWeights), 0);
    // Rank 8 over q and v only: 40 × 8 × 2 × 10,240 = 6,553,600 parameters × 4 B.
    let qv = "model=llama-2-13b&mode=infer&seq=512&rank=8&targets=qv&adapter=1&gpu=a100-80g";
    assert_eq!(component_bytes(qv, ComponentId::AdapterWeights), 26_214_400);
}

/// bitsandbytes' LLM.int8 quantizes each linear as it reaches the GPU (`Int8Params.cuda`; LitGPT's
/// `_Linear8bitLt.quantize_`): the weight's fp16 copy and `double_quant`'s column-major int8 beside
/// the int8 weights, 3 B per element of the largest quantized matrix — loading's moment. By hand:
/// OctoCoder's MLP 6,144 × 24,576 = 150,994,944 × 3 B = 452,984,832 B (its tied head stays fp16);
/// Falcon-7B with its head quantized (`quant_head=1`) 65,024 × 4,544 = 295,469,056 × 3 B =
/// 886,407,168 B. Measured (tests/data/measured.toml): hf-octocoder-int8 15.22 GiB, the bill −3.4 %
/// → −0.7 %; litgpt-falcon-7b-int8 8.71 GB, −13.7 % → −3.5 %.
#[test]
fn llm_int8_loading_holds_a_matrix_s_fp16_copy_and_its_transpose() {
    use vram_ledger::ledger::phases::{self, PhaseName};
    let load = |q: &str| {
        let bill = estimate(&query::parse(q).scenario);
        let all = phases::of(&bill);
        let load = all.iter().find(|p| p.name == PhaseName::Load).expect("a load phase");
        load.components.iter().filter(|(id, _)| *id == ComponentId::Activations).map(|(_, b)| *b).sum::<u64>()
    };
    let octocoder = "model=custom&layers=40&hidden=6144&heads=48&kv_heads=1&head_dim=128&ffn=24576&vocab=49152&tied=1&mlp=gelu&mode=infer&seq=20&gen=60&gpu=a100-40g&quant=int8";
    assert_eq!(load(octocoder), 452_984_832);
    let falcon = "model=custom&layers=32&hidden=4544&heads=71&kv_heads=1&head_dim=64&ffn=18176&vocab=65024&tied=0&mlp=gelu&mode=infer&seq=8&gen=256&gpu=a100-40g&quant=int8&quant_head=1";
    assert_eq!(load(falcon), 886_407_168);
    // Not for NF4, which bitsandbytes quantizes without the transposed copy (and bills its
    // dequantization buffer instead).
    assert_eq!(load(&octocoder.replace("quant=int8", "quant=nf4")), 0);
}

/// The page leaves ChatGLM's remote code to the reader worker (`billed_on_demand`): the decoded
/// bill is the CLI's, its lines, its moments and what the prefill leaves reserved (the page draws
/// the phases from them), and the note is sent with it.
#[test]
fn the_worker_answers_chatglm_s_remote_code_the_page_reads_back() {
    use vram_ledger::readers::{decode, grid, Answer};
    let q = "model=custom&layers=40&hidden=4096&heads=32&kv_heads=2&head_dim=128&ffn=13696&vocab=151552&tied=0&qkv_bias=1&mode=infer&engine=hf&engine_version=4.40.0&quant=bf16&attn=sdpa&seq=32000&gen=512&gpu=a100-80g&mask=full";
    let s = query::parse(q).scenario;
    assert!(s.billed_on_demand());
    let local = estimate(&s);
    let Some(Answer::Grid(g)) = decode(&grid(q)) else { panic!("no answer") };
    let lines = |b: &vram_ledger::ledger::Bill| b.components.iter().map(|c| (c.id, c.bytes)).collect::<Vec<_>>();
    assert_eq!(lines(&g.bill), lines(&local));
    assert_eq!(g.bill.timeline, local.timeline);
    assert_eq!(g.bill.device_bytes(), local.device_bytes());
    assert!(g.bill.notes.iter().any(|n| n.key == "full_mask"));
    // The phases the page draws keep the prefill's reserved memory through decoding.
    let phases = vram_ledger::ledger::phases::of(&g.bill);
    let reserved = |name| {
        let p = phases.iter().find(|p| p.name == name).expect("the phase");
        p.total(vram_ledger::ledger::TotalKind::Reserved)
    };
    use vram_ledger::ledger::phases::PhaseName;
    assert!(reserved(PhaseName::Decode) >= reserved(PhaseName::Prefill));
}

/// Unsloth's dynamic 4-bit checkpoints keep whole layers 16-bit (`keep16`). phi-4's config.json
/// (`unsloth/phi-4-unsloth-bnb-4bit`, tests/data/configs/phi-4-unsloth-bnb-4bit.json) lists
/// `model.layers.1.mlp` … `3.mlp` and the `o_proj` of layers 37 and 39: by hand, 3 × 3 × 5,120 ×
/// 17,920 + 2 × 5,120² = 878,182,400 parameters, each 2 B instead of NF4's 4.127 bits — as the Hub's
/// files say (10.39 GB dynamic against 9.09 GB for `phi-4-bnb-4bit`: 1.30 GB).
#[test]
fn unsloth_s_dynamic_quant_keeps_its_layers_16_bit() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/configs/phi-4-unsloth-bnb-4bit.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    let imported = vram_ledger::ledger::hf_config::parse_config(&text).expect("imports");
    assert_eq!(imported.keep16, 878_182_400);
    assert_eq!(imported.architecture.parameters(), 14_659_507_200, "phi-4's published 14.7 B");
    // The link the import writes carries the count, and reads back the same bill.
    let s = Scenario { method: vram_ledger::ledger::scenario::Method::Qlora, ..Scenario::imported(imported) };
    let s = Scenario { quant: vram_ledger::ledger::storage::StorageFormat::Nf4, ..s };
    let link = to_query(&s, &[]);
    assert!(link.contains("keep16=878182400"), "{link}");
    assert_eq!(bytes(&scenario(&link), ComponentId::Weights), bytes(&s, ComponentId::Weights));
    // Each kept parameter costs 2 B − 4.127 bits / 8 more (NF4 with double quantization:
    // 4 + 8/64 + 32/16384 bits).
    let nf4 = (4.0 + 8.0 / 64.0 + 32.0 / 16384.0) / 8.0;
    let plain = bytes(&scenario("model=phi-4&method=qlora&recipe=plain&rope_cache=none"), ComponentId::Weights) as f64;
    let dynamic = bytes(
        &scenario("model=phi-4&method=qlora&recipe=plain&rope_cache=none&keep16=878182400"),
        ComponentId::Weights,
    ) as f64;
    assert!((dynamic - plain - 878_182_400.0 * (2.0 - nf4)).abs() < 2.0, "{dynamic} − {plain}");
    // PEFT's `prepare_model_for_kbit_training` (recipe=peft) upcasts every parameter that is not
    // 4-bit to fp32: the kept linears too, 4 B each.
    let plain = bytes(&scenario("model=phi-4&method=qlora&recipe=peft&rope_cache=none"), ComponentId::Weights) as f64;
    let dynamic =
        bytes(&scenario("model=phi-4&method=qlora&recipe=peft&rope_cache=none&keep16=878182400"), ComponentId::Weights)
            as f64;
    assert!((dynamic - plain - 878_182_400.0 * (4.0 - nf4)).abs() < 2.0, "{dynamic} − {plain}");
    // Unsloth from 2025.1.2 loads the dynamic repository for `unsloth/Phi-4` (its mapper), for SFT;
    // 2025.1.1 the 16-bit one quantized on load; a link's own keep16 wins; RL (fast_inference) not.
    let q = "framework=unsloth&framework_version=2025.1.5&model=phi-4&method=qlora";
    assert_eq!(scenario(q).keep16, 878_182_400);
    assert!(!to_query(&scenario(q), &[]).contains("keep16"), "a framework default is not written");
    assert_eq!(scenario("framework=unsloth&framework_version=2025.1.1&model=phi-4&method=qlora").keep16, 0);
    assert_eq!(scenario(&format!("{q}&keep16=0")).keep16, 0);
    assert!(to_query(&scenario(&format!("{q}&keep16=0")), &[]).contains("keep16=0"));
    assert_eq!(scenario(&format!("{q}&objective=grpo")).keep16, 0);
    assert_eq!(scenario("framework=unsloth&framework_version=2025.1.5&model=qwen3-14b&method=qlora").keep16, 0);
    assert_eq!(scenario("framework=unsloth&framework_version=2025.1.5&model=phi-4&method=lora").keep16, 0);
    let note = framework::note(&scenario(q)).map(|m| vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &m));
    assert!(note.is_some_and(|n| n.contains("keep16=878182400")));
    // A dense format ignores it.
    assert_eq!(
        bytes(&scenario("model=phi-4&method=lora&keep16=878182400"), ComponentId::Weights),
        bytes(&scenario("model=phi-4&method=lora"), ComponentId::Weights)
    );
}

/// `fused_experts`: transformers 5's fused 3-D experts quantized by bitsandbytes' parametrization
/// (Axolotl's `quantize_moe_experts`) are dequantized whole on access and kept for the layer's
/// backward. By hand for GLM-4.5-Air: 128 experts × 3 × 4,096 × 1,408 = 2,214,592,512 parameters a
/// layer, × 2 B; under checkpointing one layer, without it each of the 45 MoE layers (the first of 46
/// is dense). A dense model and a 16-bit base have none.
#[test]
fn fused_quantized_experts_are_dequantized_a_layer_at_a_time() {
    let q = "model=glm-4.5-air&method=qlora&targets=qkvo&seq=2048&gc=1";
    assert_eq!(bytes(&scenario(&format!("{q}&fused_experts=1")), ComponentId::DequantBuffer), 2_214_592_512 * 2);
    let all = "model=glm-4.5-air&method=qlora&targets=qkvo&seq=256&gc=0&fused_experts=1";
    assert_eq!(bytes(&scenario(all), ComponentId::DequantBuffer), 2_214_592_512 * 45 * 2);
    // Without the key, one matrix at a time (the largest, q_proj's 4,096 × 12,288).
    assert!(bytes(&scenario(q), ComponentId::DequantBuffer) < 2_214_592_512);
    let dense = "model=llama-3.1-8b&method=qlora&seq=2048";
    assert_eq!(
        bytes(&scenario(&format!("{dense}&fused_experts=1")), ComponentId::DequantBuffer),
        bytes(&scenario(dense), ComponentId::DequantBuffer)
    );
    assert_eq!(bytes(&scenario("model=glm-4.5-air&method=lora&fused_experts=1"), ComponentId::DequantBuffer), 0);
    assert!(to_query(&scenario(&format!("{q}&fused_experts=1")), &[]).contains("fused_experts=1"));
}

/// `vision_train` (a VLM's tower trains too), which `framework=unsloth` sets for LoRA and QLoRA
/// (`FastVisionModel.get_peft_model(finetune_vision_layers = True)`, unsloth `models/vision.py`).
/// Gemma-3-4B QLoRA r 16 on every linear with one 896-px image: the language model's adapters,
/// 34 layers × 16 × (q 2,560 + 2,048, k and v 2,560 + 1,024 each, o 2,048 + 2,560, gate and up
/// 2,560 + 10,240 each, down 10,240 + 2,560) = 29,802,496, and the SigLIP tower's, 27 blocks × 16 ×
/// (4 × (1,152 + 1,152) + 2 × (1,152 + 4,304)) = 8,695,296: 38,497,792, the count Unsloth's banner
/// printed for its Gemma-3 vision notebook (tests/data/measured.toml). Under checkpointing the
/// tower keeps each of its 27 blocks' inputs over the image's 4,096 patches.
#[test]
fn unsloth_trains_a_vlms_vision_tower_with_its_adapters() {
    let q = "framework=unsloth&model=gemma-3-4b&method=qlora&rank=16&targets=all&seq=2048&images=1&gpu=rtx4090";
    let s = scenario(q);
    assert!(s.vision_train && s.billed_on_demand(), "the worker bills it");
    let plan = vram_ledger::ledger::plan::resolve(&s);
    assert_eq!(plan.training().expect("training").trainable, 29_802_496 + 8_695_296);
    let frozen = scenario(&format!("{q}&vision_train=0"));
    assert_eq!(vram_ledger::ledger::plan::resolve(&frozen).training().expect("training").trainable, 29_802_496);
    let inputs = 27 * 4_096 * 1_152 * 2;
    let (trained, kept) = (bytes(&s, ComponentId::VisionActivations), bytes(&frozen, ComponentId::VisionActivations));
    assert!(trained > inputs && trained > kept, "{trained} vs {kept}");
    // The link leaves the framework's default out and reads back the same.
    assert!(!to_query(&s, &[]).contains("vision_train"));
    assert!(to_query(&frozen, &[]).contains("vision_train=0"));
    // Not for full fine-tuning, a text model, or the Trainer.
    assert!(!scenario("framework=unsloth&model=gemma-3-4b&method=full").vision_train);
    assert!(!scenario("framework=unsloth&model=llama-3.1-8b&method=qlora").vision_train);
    assert!(!scenario("model=gemma-3-4b&method=qlora").vision_train);
    // Full fine-tuning with the tower: its weights train (their gradients and states).
    let full = |v: u8| {
        let s = scenario(&format!("model=gemma-3-4b&method=full&vision_train={v}"));
        vram_ledger::ledger::plan::resolve(&s).training().expect("training").trainable
    };
    let tower = vram_ledger::ledger::presets::model("gemma-3-4b").expect("preset").architecture.encoder_parameters();
    assert_eq!(full(1) - full(0), tower);
}

/// Gemma-4 31B's importer link (tests/data/configs/gemma-4-31b.json).
const GEMMA4_31B: &str = "model=custom&layers=60&hidden=5376&heads=32&kv_heads=16&head_dim=256&ffn=21504&vocab=262144&tied=1&mlp=glu&norms=4&model_context=262144&rope_positions=262144,262144&softcap=1&qk_norm=1&layer_pattern=SSSSSF&window=1024&full_kv_heads=4&full_head_dim=512&full_k_eq_v=1&vision=gemma4&vision_blocks=27&vision_dim=1152&vision_heads=16&vision_ffn=4304";

/// `image_px` takes an image's width and height (`320x50`): each tower counts the shape as its
/// processor does, by hand. Qwen2-VL's `smart_resize` rounds each side to 28 px: a 320 × 50 strip is
/// 11 × 2 = 22 tokens (88 patches) where the 320 px square is 11² = 121, and 2000 × 60 is 71 × 2 =
/// 142. Llama-4 covers each side with 336 px tiles and takes tiles off the longer side until 16
/// are left, plus a global view: 1344 × 336 is 4 × 1 + 1 = 5 tiles of 144 tokens, 3000 × 3000 is
/// 16 + 1. Pixtral: one token per 28 px square and a break per row, the longer side within 1,540 px:
/// 896 × 448 is 32 × 16 + 16 = 528; 3080 × 1540 is brought to 1540 × 770, 55 × 28 + 28 = 1,568.
/// Gemma-3's SigLIP makes 256 of any image. The square's count is the same by either spelling.
#[test]
fn images_of_any_shape_become_their_processors_tokens() {
    use vram_ledger::ledger::presets;
    let tower = |id: &str| presets::model(id).and_then(|m| m.architecture.vision).expect("a tower");
    let size = |w: u64, h: u64| ImageSize { width: w, height: h };
    let qwen = tower("qwen2-vl-7b");
    assert_eq!(qwen.tokens_per_image(size(320, 50)), 22);
    assert_eq!(qwen.patches_per_image(size(320, 50)), 88);
    assert_eq!(qwen.tokens_per_image(ImageSize::square(320)), 121);
    assert_eq!(qwen.tokens_per_image(size(2000, 60)), 142);
    let llama = tower("llama-4-scout");
    assert_eq!(llama.tokens_per_image(size(1344, 336)), 5 * 144);
    assert_eq!(llama.tokens_per_image(ImageSize::square(3000)), 17 * 144);
    assert_eq!(llama.tokens_per_image(ImageSize::square(336)), 144);
    let pixtral = tower("mistral-small-3.1-24b");
    assert_eq!(pixtral.tokens_per_image(size(896, 448)), 32 * 16 + 16);
    assert_eq!(pixtral.tokens_per_image(size(3080, 1540)), 55 * 28 + 28);
    assert_eq!(tower("gemma-3-4b").tokens_per_image(size(320, 50)), 256);
    // The link: `N` for a square, `WxH` otherwise; anything else is refused with the accepted forms.
    let s = scenario("model=qwen2-vl-7b&images=2&image_px=320x50");
    assert_eq!((s.image, s.vision_tokens()), (size(320, 50), 44));
    assert!(to_query(&s, &[]).contains("image_px=320x50"));
    assert!(!to_query(&scenario("model=qwen2-vl-7b&images=2&image_px=448x448"), &[]).contains("image_px"));
    for bad in ["320x", "x50", "0x50", "320x50x2", "320*50", "100001"] {
        let p = query::parse(&format!("model=qwen2-vl-7b&image_px={bad}"));
        assert!(p.errors.iter().any(|e| e.message.to_string().contains("320x50")), "{bad}: {:?}", p.errors);
    }
}

/// Gemma-4's images (transformers 5.25 `image_processing_gemma4.py`, a helper's reading:
/// docs/research/serving/gemma-4-vision-tokens.md): an image keeps its aspect and is resized to
/// the most 48 px cells within 9 × the soft-token budget patches, so a square becomes ⌊√budget⌋²
/// tokens whatever its pixels (the processor's code run on 896² and 100²: 256 at the default 280;
/// 8², 11², 23², 33² at 70, 140, 560, 1,120), and the tower runs its patches padded to 9 × the
/// budget. Unsloth's 31B vision notebook (unslothai/notebooks @ bdda2efc, Unsloth 2026.4.4, r 32,
/// finetune_vision_layers on) printed "Trainable parameters = 266,963,456".
#[test]
fn gemma4_images_are_sized_to_their_soft_token_budget() {
    use vram_ledger::ledger::plan::resolve;
    let q = format!(
        "{GEMMA4_31B}&framework=unsloth&framework_version=2026.4.4&method=qlora&rank=32&targets=all&seq=1792&images=1&batch=1&accum=4&gpu=a100-40g"
    );
    let s = scenario(&q);
    assert!(s.vision_train);
    assert_eq!(resolve(&s).training().expect("training").trainable, 266_963_456);
    // The processor's other budgets (`max_soft_tokens`; the importer reads the config's
    // `default_output_length`): a square is ⌊√budget⌋² tokens whatever its size.
    let with_budget = |budget: u64| scenario(&format!("{q}&max_soft_tokens={budget}"));
    let square = ImageSize::square;
    for (budget, tokens) in [(70u64, 64u64), (140, 121), (280, 256), (560, 529), (1_120, 1_089)] {
        let s = with_budget(budget);
        assert_eq!(resolve(&s).tokens, 1_792 + tokens, "budget {budget}");
        let tower = s.architecture.vision.expect("a tower");
        assert_eq!((tower.tokens_per_image(square(100)), tower.tokens_per_image(square(896))), (tokens, tokens));
        assert_eq!(tower.patches_per_image(square(896)), 9 * budget);
        // The link writes the budget unless it is the config's.
        assert_eq!(to_query(&s, &[]).contains("max_soft_tokens="), budget != 280, "{budget}");
    }
    // Another shape keeps its aspect: the token counts transformers 5.25's
    // `get_aspect_ratio_preserving_size` gives (run on its source, docs/research/serving/
    // gemma-4-vision-tokens.md §2): 320×50 → 63, 116, 252, 531, 1,092; 160×40 → 64, 115, 264,
    // 517, 1,056; 640×480 → 266, 1024×128 → 235 at 280. The tower still runs 9 × the budget.
    for (w, h, budget, tokens) in [
        (320u64, 50u64, 70u64, 63u64),
        (320, 50, 140, 116),
        (320, 50, 280, 252),
        (320, 50, 560, 531),
        (320, 50, 1_120, 1_092),
        (160, 40, 70, 64),
        (160, 40, 140, 115),
        (160, 40, 280, 264),
        (160, 40, 560, 517),
        (160, 40, 1_120, 1_056),
        (640, 480, 280, 266),
        (1024, 128, 280, 235),
        (512, 64, 280, 235),
    ] {
        let s = scenario(&format!("{q}&max_soft_tokens={budget}&image_px={w}x{h}"));
        assert_eq!(resolve(&s).tokens, 1_792 + tokens, "{w}x{h} at {budget}");
        let tower = s.architecture.vision.expect("a tower");
        assert_eq!(tower.patches_per_image(ImageSize { width: w, height: h }), 9 * budget);
    }
    // Only the processor's five budgets are accepted, and a tower of another kind ignores the key.
    assert!(!query::parse(&format!("{q}&max_soft_tokens=300")).errors.is_empty());
    let qwen = scenario("model=qwen2-vl-7b&images=1&max_soft_tokens=560");
    assert_eq!(qwen.architecture.vision.map(|v| v.max_tokens), Some(16_384));
    // More patches, more of the trained tower's activations.
    let small = bytes(&with_budget(70), ComponentId::VisionActivations);
    let large = bytes(&with_budget(1_120), ComponentId::VisionActivations);
    assert!(large > 10 * small, "{large} vs {small}");
    // The link names the tower; a hand-written one starts from E2B's and E4B's.
    assert!(to_query(&s, &[]).contains("vision=gemma4&vision_blocks=27"));
    let small_tower =
        scenario("model=custom&layers=4&hidden=256&heads=4&kv_heads=2&head_dim=64&ffn=512&vocab=1000&vision=gemma4");
    assert_eq!(small_tower.architecture.vision, Some(vram_ledger::ledger::presets::GEMMA4_TOWER));
    assert!(small_tower.billed_on_demand(), "the reader worker bills a Gemma-4 tower");
}

/// transformers 5 fused a MoE's routed experts into 3-D parameters (v5.0.0, PR #41580), which
/// bitsandbytes does not quantize (`replace_with_bnb_linear` swaps `nn.Linear` and `Conv1D` only:
/// 5.0.0 `integrations/bitsandbytes.py:L184`, 5.25.0 `:L189`); Axolotl's docs put GLM-4.7-Flash's
/// QLoRA at ~127 GiB reserved without `quantize_moe_experts` and ~23 GiB with it
/// (docs/research/frameworks/transformers5-fused-experts.md). Qwen3-30B-A3B's routed experts:
/// 48 layers × 128 experts × 3 × 2,048 × 768 = 28,991,029,248 parameters.
#[test]
fn transformers_5_leaves_fused_experts_16bit_under_bitsandbytes() {
    const EXPERTS: f64 = 28_991_029_248.0;
    const NF4_DQ: f64 = (4.0 + 8.0 / 64.0 + 32.0 / 16_384.0) / 8.0;
    let q = "model=qwen3-30b-a3b&method=qlora&recipe=plain&rope_cache=none&seq=2048";
    let weights = |extra: &str| bytes(&scenario(&format!("{q}{extra}")), ComponentId::Weights) as f64;
    let (kept, linear) = (weights(""), weights("&fused_experts=0"));
    // The default (the newest transformers): the experts at 2 B instead of NF4's 0.516 B.
    assert!((kept - linear - EXPERTS * (2.0 - NF4_DQ)).abs() < 1e3, "{kept} − {linear}");
    assert!(estimate(&scenario(q)).components[0].formula.to_string().contains("28,991,029,248"));
    // The bill says so, and what to set otherwise.
    let noted =
        |extra: &str| estimate(&scenario(&format!("{q}{extra}"))).notes.iter().any(|n| n.key == "fused_experts");
    assert!(noted("") && !noted("&fused_experts=0") && !noted("&fused_experts=1"));
    // transformers 4 (the Trainer's rule below 5.0) quantizes them as linears.
    assert_eq!(weights("&framework=hf&framework_version=4.57"), linear);
    assert_eq!(weights("&framework=hf&framework_version=5.0"), kept);
    // Quantized on load (Axolotl's quantize_moe_experts): NF4, dequantized a layer at a time.
    assert_eq!(weights("&fused_experts=1"), linear);
    // PEFT's preparation casts every 16-bit parameter that is not `Params4bit` to fp32: the experts too.
    let peft = |extra: &str| bytes(&scenario(&format!("{}{extra}", q.replace("plain", "peft"))), ComponentId::Weights);
    assert!(((peft("") - peft("&fused_experts=0")) as f64 - EXPERTS * (4.0 - NF4_DQ)).abs() < 1e3);
    // Adapters over an int8 base alike; 16-bit LoRA and a dense model are untouched.
    let int8 = |extra: &str| bytes(&scenario(&format!("{q}&method=lora&quant=int8{extra}")), ComponentId::Weights);
    assert!(int8("") > int8("&fused_experts=0"));
    let lora = "model=qwen3-30b-a3b&method=lora&seq=2048";
    assert_eq!(
        bytes(&scenario(lora), ComponentId::Weights),
        bytes(&scenario(&format!("{lora}&fused_experts=0")), ComponentId::Weights)
    );
    let dense = "model=qwen3-8b&method=qlora&seq=2048";
    assert_eq!(
        bytes(&scenario(dense), ComponentId::Weights),
        bytes(&scenario(&format!("{dense}&fused_experts=0")), ComponentId::Weights)
    );
    // `generate()` follows its transformers release.
    let infer = "model=qwen3-30b-a3b&mode=infer&quant=nf4&seq=1024";
    let served = |extra: &str| bytes(&scenario(&format!("{infer}{extra}")), ComponentId::Weights) as f64;
    assert!((served("") - served("&engine_version=4.57") - EXPERTS * (2.0 - NF4_DQ)).abs() < 1e3);
    // Axolotl runs PEFT's preparation (every bf16 parameter not `Params4bit` to fp32) and casts back
    // only the norms, embedding and head: its kept experts are fp32 — not under ZeRO-3 / FSDP,
    // where it skips the preparation (loaders/model.py v0.15.0 L858-878).
    let axolotl = |extra: &str| bytes(&scenario(&format!("{q}&framework=axolotl{extra}")), ComponentId::Weights) as f64;
    assert!((axolotl("") - axolotl("&fused_experts=0") - EXPERTS * (4.0 - NF4_DQ)).abs() < 1e3);
    let sharded = "&gpus=2&zero=3";
    let per_gpu = axolotl(sharded) - axolotl(&format!("{sharded}&fused_experts=0"));
    assert!(per_gpu < EXPERTS * 2.0 / 2.0 + 1e3, "{per_gpu}");
    // A serving engine loads the checkpoint its own way.
    let vllm = "model=qwen3-30b-a3b&mode=infer&engine=vllm&quant=nf4&gpu=h100-80g";
    let engine = |extra: &str| bytes(&scenario(&format!("{vllm}{extra}")), ComponentId::Weights);
    assert_eq!(engine(""), engine("&fused_experts=0"));
}

/// What each framework's release sets for a MoE's experts under bitsandbytes (docs/frameworks.md).
#[test]
fn frameworks_set_how_bitsandbytes_holds_fused_experts() {
    use vram_ledger::ledger::scenario::ExpertStorage::{Kept16, Linear, Quantized};
    let held = |q: &str| scenario(q).fused_experts;
    let moe = "model=qwen3-30b-a3b&method=qlora";
    // Unsloth: ≤ 2026.2 on transformers 4; 2026.4.x on 5 without quantizing them (moe_bnb.py is
    // never imported); unsloth-zoo 2026.6.2 quantizes them to 4 bits on load (PR #659).
    assert_eq!(held(&format!("{moe}&framework=unsloth&framework_version=2026.2.1")), Linear);
    assert_eq!(held(&format!("{moe}&framework=unsloth&framework_version=2026.4.4")), Kept16);
    assert_eq!(held(&format!("{moe}&framework=unsloth&framework_version=2026.6.2")), Quantized);
    assert_eq!(held(&format!("{moe}&framework=unsloth&framework_version=2026.6.2&method=lora&quant=int8")), Kept16);
    // Unsloth's gpt-oss patch makes every expert an nn.Linear, at any release.
    assert_eq!(held("model=gpt-oss-20b&method=qlora&framework=unsloth&framework_version=2026.6.2"), Linear);
    // Axolotl moved to transformers 5 in 0.15.0; LitGPT and fsdp_qlora have per-expert linears.
    assert_eq!(held(&format!("{moe}&framework=axolotl&framework_version=0.14")), Linear);
    assert_eq!(held(&format!("{moe}&framework=axolotl")), Kept16);
    assert_eq!(held(&format!("{moe}&framework=litgpt")), Linear);
    assert_eq!(held(&format!("{moe}&framework=answerai")), Linear);
    // A link's own value wins, and each framework's link reads back the same.
    assert_eq!(held(&format!("{moe}&framework=unsloth&framework_version=2026.4.4&fused_experts=1")), Quantized);
    for link in [
        format!("{moe}&framework=unsloth&framework_version=2026.2.1"),
        format!("{moe}&framework=unsloth&framework_version=2026.6.2"),
        format!("{moe}&framework=axolotl&framework_version=0.14&fused_experts=16bit"),
        format!("{moe}&framework=hf&framework_version=4.57"),
    ] {
        let s = scenario(&link);
        let back = scenario(&to_query(&s, &[]));
        assert_eq!(back.fused_experts, s.fused_experts, "{link} → {}", to_query(&s, &[]));
        assert_eq!(estimate(&back).device_bytes(), estimate(&s).device_bytes(), "{link}");
    }
    // The bill's note names what the framework set.
    let s = scenario(&format!("{moe}&framework=unsloth&framework_version=2026.2.1"));
    let note = estimate(&s).notes.iter().find(|n| n.key == "framework").map(|n| n.text.to_string());
    assert!(note.is_some_and(|t| t.contains("fused_experts=0")));
}

/// Unsloth 2024.12.4 (b9fe2588e5) to 2025.10.3 returned the logits and ran its in-place
/// cross-entropy on them when a micro-batch held at most 1,024 tokens (`CausalLM_fast_forward`:
/// `if bsz*q_len <= 1024: RETURN_LOGITS = True`; 0ede099ef0, 2025.10.4, dropped it). By hand for
/// Qwen3-8B (vocab 151,936) at batch 2 × 512 on an A100 (bf16 under the Trainer's mixed precision):
/// the 16-bit logits and Accelerate's fp32 copy of them, 2 × 512 × 151,936 × 6 B = 933,494,784 B.
/// At 2 × 1,024 tokens, in 2025.10.4, or through the compiler's forward (a VLM) the loss is fused.
#[test]
fn unsloth_returns_the_logits_of_a_micro_batch_of_at_most_1024_tokens() {
    let q = "framework=unsloth&model=qwen3-8b&method=qlora&batch=2&gpu=a100-80g";
    let loss = |extra: &str| scenario(&format!("{q}&{extra}")).loss;
    let logits = |extra: &str| {
        vram_ledger::ledger::estimate(&scenario(&format!("{q}&{extra}")))
            .component(vram_ledger::ledger::bill::ComponentId::Logits)
    };
    assert_eq!(loss("seq=512&framework_version=2025.4.4"), Some(LossKernel::Inplace));
    assert_eq!(logits("seq=512&framework_version=2025.4.4"), 933_494_784);
    assert_eq!(loss("seq=1024&framework_version=2025.4.4"), Some(LossKernel::Fused));
    assert_eq!(loss("seq=512&framework_version=2025.10.4"), Some(LossKernel::Fused));
    assert_eq!(loss("seq=512&framework_version=2024.12.3"), Some(LossKernel::Fused));
    let vlm = scenario("framework=unsloth&framework_version=2025.4.4&model=qwen2.5-vl-7b&method=qlora&batch=2&seq=512");
    assert_eq!(vlm.loss, Some(LossKernel::Fused));
    // A link's own loss wins.
    assert_eq!(loss("seq=512&framework_version=2025.4.4&loss=fused"), Some(LossKernel::Fused));
}
