//! Preference and RL steps (issue 26): the phases, the `rl` object, the rollout engine on the card.
//! Expected numbers are hand arithmetic from the model's published shape (Llama-3.1-8B:
//! 8,030,261,248 parameters, 32 layers, 8 KV heads of 128, vocabulary 128,256) or relations between
//! bills the ledger already checks elsewhere (a DPO step is a supervised step over twice the batch).

use vram_ledger::ledger::phases::{self, PhaseName};
use vram_ledger::ledger::{estimate, ComponentId, Scenario, TotalKind, Verdict};
use vram_ledger::query::parse as parse_query;
use vram_ledger::report::to_json;

const PARAMS: u64 = 8_030_261_248;
/// K and V × 32 layers × 8 KV heads × 128 × 2 B.
const KV_PER_TOKEN: u64 = 2 * 32 * 8 * 128 * 2;

fn scenario(q: &str) -> Scenario {
    let parsed = parse_query(q);
    assert!(parsed.errors.is_empty(), "{q}: {:?}", parsed.errors);
    parsed.scenario
}

fn phase_bytes(s: &Scenario, name: PhaseName, id: ComponentId) -> u64 {
    let bill = estimate(s);
    phases::of(&bill).iter().find(|p| p.name == name).map_or(0, |p| p.bytes(id))
}

#[test]
fn grpo_phases_are_in_time_order_and_the_peak_is_the_largest() {
    let s = scenario("objective=grpo&gpu=h100-80g&batch=8&rollout=colocate");
    let bill = estimate(&s);
    let names: Vec<&str> = phases::of(&bill).iter().map(|p| p.name.id()).collect();
    assert_eq!(
        names,
        ["load", "rollout", "logprobs", "forward", "loss", "backward", "optimizer_step", "zero_grad"],
        "the issue's phases, in time order"
    );
    let all = phases::of(&bill);
    let peak = phases::peak(&all).expect("phases");
    for kind in [TotalKind::Allocated, TotalKind::Reserved, TotalKind::Device] {
        let bill_total = match kind {
            TotalKind::Allocated => bill.allocated_bytes(),
            TotalKind::Reserved => bill.reserved_bytes(),
            TotalKind::Device => bill.device_bytes(),
        };
        assert_eq!(peak.total(kind), bill_total, "{kind:?}: the peak phase's total is the bill's");
    }
    assert!(all.iter().all(|p| p.total(TotalKind::Allocated) <= peak.total(TotalKind::Allocated)));
    assert_eq!(bill.rl.as_ref().map(|r| r.peak_phase), Some(peak.name));
}

#[test]
fn the_peak_phase_holds_the_bills_totals_across_rl_configurations() {
    for q in [
        "objective=dpo",
        "objective=dpo&method=full&ref=model&gpu=h100-80g&gpus=8&zero=3",
        "objective=dpo&ref=precomputed",
        "objective=grpo&rollout=hf&batch=8&accum=2",
        "objective=grpo&rollout=shared&method=qlora&rollout_util=0.6&sleep=1",
        "objective=grpo&rollout=colocate&sleep=2&beta=0.04&gpu=h100-80g",
        "objective=grpo&rollout=server&completion_len=4096&batch=4",
        "objective=ppo&method=full&gpu=h200&gpus=8&zero=3&reward=llama-3.2-1b&critic=llama-3.2-1b",
        "objective=ppo&rollout=colocate&gpu=a800-80g&offload=all&zero=3&gpus=8&method=full&beta=0.01",
    ] {
        let s = scenario(q);
        let bill = estimate(&s);
        let all = phases::of(&bill);
        let peak = phases::peak(&all).expect("phases");
        assert_eq!(peak.total(TotalKind::Device), bill.device_bytes(), "{q}");
        assert_eq!(peak.total(TotalKind::Allocated), bill.allocated_bytes(), "{q}");
        assert!(bill.device_bytes() > 0, "{q}");
        let j = to_json(&s, &bill);
        assert_eq!(j["rl"]["peak_phase"], j["peak_phase"], "{q}");
    }
}

#[test]
fn a_dpo_step_with_the_adapters_as_reference_is_a_supervised_step_over_twice_the_batch() {
    // LoRA: PEFT disables the adapters for the reference, no copy; each pair is two sequences, and
    // the loss is TRL's selective_log_softmax over them.
    let dpo = estimate(&scenario("objective=dpo&batch=2&seq=1024"));
    let sft = estimate(&scenario("batch=4&seq=1024&loss=selective"));
    assert_eq!(dpo.allocated_bytes(), sft.allocated_bytes());
    let rl = dpo.rl.expect("rl");
    assert_eq!(rl.reference_bytes, 0);
    assert_eq!(rl.sequences_per_step, 4);
    assert_eq!(rl.rollout, None, "DPO has no rollout");
}

#[test]
fn a_frozen_reference_copy_is_the_weights_in_bf16_sharded_under_zero3() {
    let one = estimate(&scenario("objective=dpo&method=full&gpu=h200"));
    assert_eq!(one.rl.expect("rl").reference_bytes, PARAMS * 2, "8,030,261,248 × 2 B");
    let eight = estimate(&scenario("objective=dpo&method=full&gpu=h200&gpus=8&zero=3"));
    assert_eq!(eight.rl.expect("rl").reference_bytes, PARAMS * 2 / 8, "÷ 8 GPUs");
    // Precomputed reference log-probabilities: no copy and no reference pass.
    let pre = estimate(&scenario("objective=dpo&method=full&gpu=h200&ref=precomputed"));
    assert_eq!(pre.rl.as_ref().expect("rl").reference_bytes, 0);
    assert!(!phases::of(&pre).iter().any(|p| p.name == PhaseName::Logprobs));
}

#[test]
fn grpo_logits_cover_the_completion_only() {
    // TRL's selective_log_softmax (the RL objectives' default loss). Under the Trainer's mixed
    // precision Accelerate returns fp32 logits: 16 B per logit at backward; under DeepSpeed the
    // bf16 logits and each sequence's bf16 log-softmax, 2 + 2 B (tools/measure_loss.py counted
    // 16.00 and 4.00 B per logit on the CPU). 1 × 256 completion tokens × 128,256.
    let s = scenario("objective=grpo&rollout=server&prompt_len=512&completion_len=256");
    assert_eq!(phase_bytes(&s, PhaseName::Backward, ComponentId::Logits), 256 * 128_256 * 16);
    let ds = scenario("objective=grpo&rollout=server&prompt_len=512&completion_len=256&gpus=2&zero=2");
    assert_eq!(phase_bytes(&ds, PhaseName::Backward, ComponentId::Logits), 256 * 128_256 * 4);
    // An fp32 model (TRL before 0.19 loaded one without a torch_dtype) gives fp32 logits too: 16 B;
    // its frozen reference copy is fp32 as well, 8,030,261,248 × 4 B.
    let fp32 = scenario("objective=grpo&rollout=server&method=full&precision=fp32&beta=0.04&gpu=h200");
    assert_eq!(phase_bytes(&fp32, PhaseName::Backward, ComponentId::Logits), 256 * 128_256 * 16);
    assert_eq!(estimate(&fp32).rl.expect("rl").reference_bytes, PARAMS * 4);
    // loss=hf, when a link asks for it, keeps its 12 B per logit (3 × fp32 at log-softmax's
    // backward), and the link keeps saying so.
    let hf = scenario("objective=grpo&rollout=server&prompt_len=512&completion_len=256&loss=hf");
    assert_eq!(phase_bytes(&hf, PhaseName::Backward, ComponentId::Logits), 256 * 128_256 * 12);
    assert!(vram_ledger::query::to_query(&hf, &[]).contains("loss=hf"));
    assert!(!vram_ledger::query::to_query(&s, &[]).contains("loss="));
    // The trainer's sequence is prompt + completion: checkpointing keeps 32 layer inputs of
    // 768 tokens × 4,096 × 2 B = 192 MiB, as a supervised step of seq=768 does.
    let grpo = estimate(&s);
    let activations = grpo.components.iter().find(|c| c.id == ComponentId::Activations).expect("activations");
    let formula = vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &activations.formula);
    assert!(
        formula.starts_with("checkpointing: 32 layer inputs × 768 tokens × 1 seq × 4,096 × 2 B = 192.00 MiB"),
        "{formula}"
    );
    assert!(activations.bytes >= 32 * 768 * 4096 * 2);
}

#[test]
fn generate_rollout_holds_the_cache_of_every_sequence() {
    // 8 sequences × (512 + 256) tokens × 131,072 B per token.
    let s = scenario("objective=grpo&batch=8&rollout=hf");
    let rl = estimate(&s).rl.expect("rl");
    assert_eq!(rl.rollout_kv_tokens, 8 * 768);
    assert_eq!(rl.rollout_pool_bytes, 8 * 768 * KV_PER_TOKEN);
    assert_eq!(phase_bytes(&s, PhaseName::Rollout, ComponentId::RolloutKvCache), 8 * 768 * KV_PER_TOKEN);
    // Freed after the rollout.
    assert_eq!(phase_bytes(&s, PhaseName::Backward, ComponentId::RolloutKvCache), 0);
}

#[test]
fn a_colocated_engine_stays_awake_or_sleeps() {
    let awake = scenario("objective=grpo&rollout=colocate&gpu=h100-80g&rollout_util=0.3");
    let rl = estimate(&awake).rl.expect("rl");
    // vLLM's own bf16 copy and its RoPE table over Llama-3.1's 131,072 positions × 128 × 2 B.
    assert_eq!(rl.rollout_weights_bytes, PARAMS * 2 + 131_072 * 128 * 2, "vLLM's own bf16 copy");
    assert!(rl.rollout_pool_bytes > 0 && rl.rollout_kv_tokens > 0);
    // Its weights, pool and workspace fit its share of the card: 0.3 × what PyTorch sees.
    let share = 0.3 * vram_ledger::ledger::presets::gpu("h100-80g").expect("h100").torch_bytes() as f64;
    let rollout = |s: &Scenario, id| phase_bytes(s, PhaseName::Rollout, id);
    let engine = rollout(&awake, ComponentId::RolloutWeights)
        + rollout(&awake, ComponentId::RolloutKvCache)
        + rollout(&awake, ComponentId::RolloutWorkspace);
    assert!((engine as f64 - share).abs() < 0.01 * share, "{engine} vs {share}");
    // Awake: the weights and pool are resident through backward; asleep (level 1 or 2): gone.
    let in_backward = |s: &Scenario| {
        phase_bytes(s, PhaseName::Backward, ComponentId::RolloutWeights)
            + phase_bytes(s, PhaseName::Backward, ComponentId::RolloutKvCache)
    };
    assert_eq!(in_backward(&awake), rl.rollout_weights_bytes + rl.rollout_pool_bytes);
    let asleep = scenario("objective=grpo&rollout=colocate&gpu=h100-80g&rollout_util=0.3&sleep=2");
    assert_eq!(in_backward(&asleep), 0);
    // Asleep, the step's own phases shrink; the rollout, the same engine, does not.
    let device = |s: &Scenario, name| {
        phases::of(&estimate(s)).iter().find(|p| p.name == name).map_or(0, |p| p.total(TotalKind::Device))
    };
    assert!(device(&asleep, PhaseName::Backward) < device(&awake, PhaseName::Backward));
    assert_eq!(device(&asleep, PhaseName::Rollout), device(&awake, PhaseName::Rollout));
    // Unsloth's shared weights: the engine holds no copy of its own.
    let shared = estimate(&scenario("objective=grpo&rollout=shared&gpu=h100-80g&rollout_util=0.5"));
    assert_eq!(shared.rl.expect("rl").rollout_weights_bytes, 0);
}

#[test]
fn an_engine_that_cannot_start_fails_the_verdict_with_a_note() {
    // 0.1 × 79.2 GiB = 7.9 GiB cannot hold 15 GiB of bf16 weights: no room for the cache blocks.
    let small = estimate(&scenario("objective=grpo&rollout=colocate&gpu=h100-80g&rollout_util=0.1"));
    assert_eq!(small.verdict(), Verdict::DoesNotFit);
    assert!(small.notes.iter().any(|n| n.key == "rl_engine"));
    // 0.9 of the card asked for while the trainer's 15 GiB of weights are already there.
    let greedy = estimate(&scenario("objective=grpo&rollout=colocate&gpu=h100-80g&rollout_util=0.9"));
    assert_eq!(greedy.verdict(), Verdict::DoesNotFit);
    let j = to_json(&scenario("objective=grpo&rollout=colocate&gpu=h100-80g&rollout_util=0.9"), &greedy);
    assert_eq!(j["rl"]["engine_starts"], false);
}

#[test]
fn ppo_critic_is_a_second_trained_model() {
    // Full fine-tuning in mixed precision on one GPU: 2 (bf16) + 4 (fp32 master) + 8 (AdamW) B.
    let bill = estimate(&scenario("objective=ppo&method=full&gpu=h200&rollout=server"));
    let rl = bill.rl.expect("rl");
    assert_eq!(rl.critic_bytes, PARAMS * 14);
    assert_eq!(rl.reward_bytes, 0, "reward=none: a rule-based reward");
    let with_rm = estimate(&scenario("objective=ppo&method=full&gpu=h200&rollout=server&reward=llama-3.1-8b"));
    assert_eq!(with_rm.rl.expect("rl").reward_bytes, PARAMS * 2);
}

#[test]
fn the_rl_object_names_the_issue_fields() {
    let s = scenario("objective=grpo&rollout=colocate&gpu=h100-80g&batch=8");
    let j = to_json(&s, &estimate(&s));
    for field in [
        "objective",
        "rollout",
        "sequences_per_step",
        "rollout_weights_bytes",
        "rollout_pool_bytes",
        "rollout_kv_tokens",
        "reference_bytes",
        "critic_bytes",
        "reward_bytes",
        "peak_phase",
    ] {
        assert!(!j["rl"][field].is_null(), "rl.{field}");
    }
    assert_eq!(j["rl"]["objective"], "grpo");
    assert_eq!(j["rl"]["rollout"], "colocate");
    assert_eq!(j["rl"]["sequences_per_step"], 8);
    // A supervised step has none.
    let sft = scenario("");
    assert!(to_json(&sft, &estimate(&sft))["rl"].is_null());
}

#[test]
fn rl_keys_round_trip_and_refuse_bad_values() {
    let q = "objective=ppo&ref=model&generations=16&prompt_len=1024&completion_len=4096&rollout=colocate&rollout_util=0.4&sleep=1&beta=0.04&logprob_batch=4&critic=llama-3.2-1b&reward=llama-3.2-1b";
    let s = scenario(q);
    let written = vram_ledger::query::to_query(&s, &[]);
    assert_eq!(scenario(&written), s, "{written}");
    for bad in ["objective=rlhf", "sleep=3", "rollout_util=0", "rollout=ray", "critic=gpt-9", "generations=0"] {
        assert!(!parse_query(bad).errors.is_empty(), "{bad}");
    }
}

/// The OOM tree's RL levers (issue 26): each acts on the step it names, changes what it says, and
/// the saving is the difference of the two bills; a lever that does not apply says so.
#[test]
fn rl_levers_change_the_step_they_name() {
    use vram_ledger::tree::{self, Lever};
    let saving = |s: &Scenario, l: Lever| tree::saving(s, l).unwrap_or_else(|| panic!("{l:?} applies"));

    // A colocated engine, awake, at TRL's 0.3: its bf16 weights and pool stay through backward.
    // Asleep (level 2) they do not; the rollout phase, the same engine, stays.
    let awake = scenario(
        "model=qwen2.5-1.5b&objective=grpo&rollout=colocate&gpu=h100-80g&rollout_util=0.3&batch=8&method=full&gpus=8&zero=3",
    );
    let slept = Lever::RolloutSleep.apply(&awake).expect("applies");
    assert_eq!(slept.rl.sleep, 2);
    assert_eq!(Lever::RolloutSleep.apply(&slept), None, "already asleep");
    let rl = estimate(&awake).rl.expect("rl");
    assert!(saving(&awake, Lever::RolloutSleep) > 0);
    // Half the share: 0.15 of the card; its pool shrinks, its weights do not.
    let half = Lever::RolloutShare.apply(&awake).expect("applies");
    assert!((half.rl.rollout_util - 0.15).abs() < 1e-9);
    let after = estimate(&half).rl.expect("rl");
    assert_eq!(after.rollout_weights_bytes, rl.rollout_weights_bytes);
    assert!(after.rollout_pool_bytes < rl.rollout_pool_bytes);
    // Llama-3.1-8B at 0.3 of an 80 GB card: half (0.15 × 79.2 GiB = 11.9 GiB) cannot hold its
    // 2 × 8,030,261,248 B of weights: not offered.
    let tight =
        scenario("objective=grpo&rollout=colocate&gpu=h100-80g&rollout_util=0.3&batch=8&method=full&gpus=8&zero=3");
    assert!(estimate(&tight).rl.is_some_and(|r| !r.engine_fails));
    assert_eq!(Lever::RolloutShare.apply(&tight), None);
    // On other GPUs: no engine on these.
    let server = Lever::RolloutServer.apply(&awake).expect("applies");
    assert_eq!(estimate(&server).rl.expect("rl").rollout_weights_bytes, 0);
    assert!(saving(&awake, Lever::RolloutServer) > 0);

    // Fewer generations: half the completions per prompt and per micro-batch.
    let t = Lever::FewerGenerations.apply(&awake).expect("applies");
    assert_eq!((t.rl.generations, t.batch), (4, 4));
    assert!(saving(&awake, Lever::FewerGenerations) > 0);
    // The log-probability passes' batch: from the micro-batch (8) to 4.
    assert_eq!(Lever::LogprobBatch.apply(&awake).expect("applies").rl.logprob_batch, Some(4));

    // A KL term with full fine-tuning loads a frozen bf16 copy (÷ 8 under ZeRO-3): β = 0 drops it.
    let kl = scenario("objective=grpo&rollout=server&method=full&beta=0.04&gpu=h200&gpus=8&zero=3");
    assert_eq!(estimate(&kl).rl.expect("rl").reference_bytes, PARAMS * 2 / 8);
    assert_eq!(Lever::NoKl.apply(&kl).expect("applies").rl.beta, 0.0);
    assert!(saving(&kl, Lever::NoKl) >= (PARAMS * 2 / 8) as i64);
    // DPO precomputes its reference instead; GRPO cannot (its completions are new each step).
    let dpo = scenario("objective=dpo&method=full&gpu=h200");
    assert!(saving(&dpo, Lever::RefPrecomputed) >= (PARAMS * 2) as i64);
    assert_eq!(Lever::RefPrecomputed.apply(&kl), None);
    // None of them acts on a supervised step.
    let sft = scenario("batch=8");
    for l in [
        Lever::FewerGenerations,
        Lever::LogprobBatch,
        Lever::RolloutShare,
        Lever::RolloutSleep,
        Lever::RefPrecomputed,
        Lever::NoKl,
        Lever::RolloutServer,
    ] {
        assert_eq!(l.apply(&sft), None, "{l:?}");
    }
}

/// The fit solvers of an RL step: the longest completion and the most completions per prompt.
#[test]
fn rl_fit_solvers_answer_in_completions() {
    use vram_ledger::ledger::fit;
    let s = scenario("objective=grpo&rollout=hf&batch=4&gpu=rtx4090");
    let c = fit::max_completion_len(&s).expect("grpo");
    assert!(c > 0);
    let mut at = s.clone();
    at.rl.completion_len = c;
    assert_eq!(estimate(&at).verdict(), Verdict::Fits, "{c} fits with the margin");
    at.rl.completion_len = c + 1;
    assert_ne!(estimate(&at).verdict(), Verdict::Fits, "{} does not", c + 1);
    // Generations: 4 completions of 8 per prompt → half a prompt per step, rounded up to one;
    // the micro-batch is the completions of one prompt.
    let g = fit::max_generations(&s).expect("grpo");
    let mut at = s.clone();
    at.rl.generations = g;
    at.batch = g;
    assert_eq!(estimate(&at).verdict(), Verdict::Fits);
    at.rl.generations = g + 1;
    at.batch = g + 1;
    assert_ne!(estimate(&at).verdict(), Verdict::Fits);
    // Not for DPO or supervised steps.
    assert_eq!(fit::max_completion_len(&scenario("objective=dpo")), None);
    assert_eq!(fit::max_generations(&scenario("")), None);
}

/// `engine=vllm&engine_version=…` on an RL link is the rollout engine's release: no "training ignores
/// it" note, and the pool follows that release's rules (vLLM 0.7.1's V0 engine captures its CUDA
/// graphs after sizing the pool, so the pool is larger than the newest release's, which takes them
/// out of the budget first). Without `engine=vllm` the rollout is the newest release.
#[test]
fn an_rl_link_names_its_rollout_engine_s_release() {
    let q = "model=phi-4&method=qlora&objective=grpo&rollout=shared&rollout_util=0.6952&generations=6&batch=6&prompt_len=256&completion_len=200&vram=14.74";
    let pool = |q: &str| {
        let s = scenario(q);
        let j = to_json(&s, &estimate(&s));
        (j["rl"]["rollout_pool_bytes"].as_u64().unwrap_or(0), j["notes"].to_string().contains("engine_ignored"))
    };
    let (newest, ignored) = pool(q);
    assert!(!ignored);
    let (v0, ignored) = pool(&format!("{q}&engine=vllm&engine_version=0.7.1"));
    assert!(!ignored, "the rollout takes the release");
    assert!(v0 > newest, "{v0} ≤ {newest}");
    // A supervised step has no rollout: the engine is still ignored, with the note.
    let (_, ignored) = pool("model=phi-4&method=qlora&engine=vllm&engine_version=0.7.1");
    assert!(ignored);
}

/// Unsloth's `load_vllm` (unsloth-zoo 83f5318c `vllm_utils.py`), by hand for Phi-4 on a T4 at
/// Unsloth's actual utilization 0.6952 of 14.75 GiB (10.2542 GiB): its model reckoning is the 40
/// layers' projections, (2 × 5,120 + 2 × 1,280) × 5,120 + 3 × 5,120 × 17,920 = 340,787,200 per
/// layer, × 2 B × 5/16 = 8.5197 GB; embeddings, LM head and norms (2 × 5,120 + 2 × 100,352 × 5,120)
/// × 2 B = 2.0553 GB; a rank-16 LoRA slot 40 × 2 × 16 × (4 × 5,120 + 12,800 + 2 × 5,120 + 17,920 +
/// 2 × 17,920 + 5,120) = 131.07 MB — 10.7061 GB = 9.9709 GiB, leaving 0.2833 GiB: 128 sequences
/// (room ≤ 2 GiB) and the rollout's 456 tokens (prompt 256 + completion 200) per batch before
/// 2025.9.7; 2,048 tokens until 2025.11.6; then 8 sequences and 2,048 tokens. The log of Unsloth's
/// Phi-4 GRPO notebook (2025.2.4) prints "Num Sequences = 128" with its max_seq_length 512.
#[test]
fn unsloth_sizes_its_rollout_engine_from_its_own_estimate() {
    use vram_ledger::ledger::framework::unsloth_vllm_batch;
    let q = "model=phi-4&method=qlora&rank=16&objective=grpo&rollout=shared&rollout_util=0.6952&generations=6&batch=6&prompt_len=256&completion_len=200&gpu=t4&framework=unsloth";
    let at = |release: &str| {
        let s = scenario(&format!("{q}&framework_version={release}"));
        unsloth_vllm_batch(&s, 0.6952, s.gpu.torch_bytes as f64, 456).expect("Unsloth from 2025.2 sizes its engine")
    };
    let feb = at("2025.2.4");
    let room_gib = feb.kv_room / 1_073_741_824.0;
    assert!((room_gib - 0.2833).abs() < 0.002, "{room_gib}");
    assert_eq!((feb.max_num_seqs, feb.max_batched_tokens), (128, 456));
    let sep = at("2025.9.7");
    assert_eq!((sep.max_num_seqs, sep.max_batched_tokens), (128, 2048));
    let dec = at("2025.11.6");
    assert_eq!((dec.max_num_seqs, dec.max_batched_tokens), (8, 2048));
    // From 2026.2.1 its CUDA graphs come off the room too: 172 × 5,120 × 40 × 4 B = 134.5 MiB,
    // below the 0.15 GiB floor, so 0.15 GiB.
    let feb26 = at("2026.2.1");
    assert!((dec.kv_room - feb26.kv_room - 0.15 * 1_073_741_824.0).abs() < 1.0);
    // Before GRPO (2025.2) and for other frameworks: no sizing.
    let s = scenario(&format!("{q}&framework_version=2024.12"));
    assert!(unsloth_vllm_batch(&s, 0.6952, s.gpu.torch_bytes as f64, 456).is_none());
    let s = scenario("model=phi-4&method=qlora&objective=grpo&rollout=shared&framework=trl");
    assert!(unsloth_vllm_batch(&s, 0.6952, s.gpu.torch_bytes as f64, 456).is_none());
    // In the bill: the note, and the sampler warm-up of 128 sequences (128 × 100,352 × 38 B =
    // 0.455 GiB) instead of vLLM 0.7.1's 256 — a larger pool than vLLM's own defaults give.
    let s = scenario(&format!("{q}&framework_version=2025.2.4&engine=vllm&engine_version=0.7.1"));
    let j = to_json(&s, &estimate(&s));
    assert!(j["notes"].to_string().contains("rl_unsloth_vllm"), "{}", j["notes"]);
    let unsloth_pool = j["rl"]["rollout_pool_bytes"].as_u64().unwrap_or(0);
    let plain = q.replace("&framework=unsloth", "");
    let s = scenario(&format!("{plain}&engine=vllm&engine_version=0.7.1"));
    let plain_pool = to_json(&s, &estimate(&s))["rl"]["rollout_pool_bytes"].as_u64().unwrap_or(0);
    assert!(unsloth_pool > plain_pool, "{unsloth_pool} ≤ {plain_pool}");
}

/// `framework::unsloth_vllm_batch` against what Unsloth's `load_vllm` printed in published runs
/// ("Unsloth: vLLM's KV Cache can use up to X GB", "Chunked prefill tokens = …", "Num Sequences =
/// …", and the `max_num_batched_tokens` vLLM then reports), collected by a helper in the
/// twenty-first session (the URLs below). Each row: the link, Unsloth's printed "actual GPU
/// utilization", the VRAM it printed, the run's max_seq_length; then the printed room (GB, two
/// decimals), sequences and batched tokens.
#[test]
fn unsloth_s_rollout_sizing_matches_its_printed_figures() {
    use vram_ledger::ledger::framework::unsloth_vllm_batch;
    let rows: [(&str, f64, f64, u64, f64, u64, u64); 10] = [
        // unslothai/notebooks a2fa5510 nb/Llama3.1_(8B)-GRPO.ipynb (2025.2.4, T4)
        ("model=llama-3.1-8b&method=qlora&rank=32&framework_version=2025.2.4", 0.5959, 14.74, 512, 2.61, 160, 512),
        // a2fa5510 nb/Phi_4_(14B)-GRPO.ipynb
        ("model=phi-4&method=qlora&rank=16&framework_version=2025.2.4", 0.6952, 14.74, 512, 0.28, 128, 512),
        // a2fa5510 nb/Qwen2.5_(3B)-GRPO.ipynb
        ("model=qwen2.5-3b&method=qlora&rank=64&framework_version=2025.2.4", 0.4966, 14.74, 1024, 4.90, 192, 1024),
        // 3fcca28d nb/Advanced_Llama3_1_(3B)_GRPO_LoRA.ipynb (2025.3.17, A100-40GB, 16-bit)
        (
            "model=llama-3.2-3b&method=lora&quant=bf16&rank=64&framework_version=2025.3.17",
            0.7908,
            39.56,
            2048,
            25.12,
            320,
            2048,
        ),
        // bac83a28 nb/Qwen3_(4B)-GRPO.ipynb (2025.4.4, A100-40GB, 16-bit)
        (
            "model=qwen3-4b&method=lora&quant=bf16&rank=32&framework_version=2025.4.4",
            0.4948,
            39.56,
            2048,
            12.62,
            256,
            2048,
        ),
        // c7b12e0b nb/Qwen3_(4B)-GRPO.ipynb (2025.5.7, T4, fp16)
        (
            "model=qwen3-4b&method=lora&quant=fp16&rank=32&framework_version=2025.5.7",
            0.6934,
            14.74,
            2048,
            3.27,
            160,
            2048,
        ),
        // datawhalechina/self-llm 389f06cf models/phi4/06-Phi-4-GRPO…md (2025.6.12, A100-80GB): a
        // 16-bit checkpoint quantized on load, which Unsloth's estimate counts at 2 B
        ("model=phi-4&method=lora&quant=bf16&rank=16&framework_version=2025.6.12", 0.696, 79.15, 512, 27.66, 320, 512),
        // unslothai/notebooks 14ff1697 nb/Qwen3_8B_FP8_GRPO.ipynb (2025.11.3, L4, FP8 at 8/5)
        (
            "model=qwen3-8b&method=lora&quant=fp8&rank=32&framework_version=2025.11.3",
            0.8662,
            22.16,
            2048,
            8.63,
            224,
            2048,
        ),
        // b35307e0 nb/Llama_FP8_GRPO.ipynb (2025.11.3, L4)
        (
            "model=llama-3.2-1b&method=lora&quant=fp8&rank=32&framework_version=2025.11.3",
            0.8662,
            22.16,
            2048,
            17.53,
            288,
            2048,
        ),
        // 533626c9 nb/Openenv_wordle_grpo.ipynb (2026.3.4, B200; vLLM got max_lora_rank 64 and
        // max_num_batched_tokens 8192; its CUDA graphs' 0.15 GiB come off the room)
        (
            "model=qwen3-4b&method=lora&quant=bf16&rank=64&framework_version=2026.3.4",
            0.4976,
            178.35,
            4096,
            81.53,
            256,
            8192,
        ),
    ];
    for (q, util, vram, seq, room, seqs, tokens) in rows {
        let s = scenario(&format!("{q}&framework=unsloth&objective=grpo&rollout=shared&vram={vram}"));
        let b = unsloth_vllm_batch(&s, util, s.gpu.torch_bytes as f64, seq).expect("sized");
        let gb = b.kv_room / 1_073_741_824.0;
        assert!((gb - room).abs() <= 0.015, "{q}: room {gb:.3} GB, printed {room}");
        assert_eq!((b.max_num_seqs, b.max_batched_tokens), (seqs, tokens), "{q}");
    }
}

/// The page sends an RL link whose rollout its build does not bill (Unsloth's vLLM, a VLM's) to
/// the reader worker and draws the worker's answer: the phases (the timeline: rollout, log-probs,
/// the step) and the RL summary (the verdict when the engine cannot start) cross with the lines.
#[test]
fn the_worker_answers_an_rl_bill_the_page_reads_back() {
    use vram_ledger::readers::{decode, grid, Answer};
    for q in [
        "model=phi-4&method=qlora&rank=16&framework=unsloth&framework_version=2025.2.4&objective=grpo&rollout=shared&rollout_util=0.6952&generations=6&batch=6&prompt_len=256&completion_len=200&gpu=t4&engine=vllm&engine_version=0.7.1",
        // An engine that cannot start: the verdict comes from the summary.
        "model=phi-4&method=qlora&rank=16&framework=unsloth&objective=grpo&rollout=shared&rollout_util=0.5&gpu=t4",
    ] {
        let s = scenario(q);
        assert!(s.billed_on_demand(), "{q}");
        let local = estimate(&s);
        let Some(Answer::Grid(g)) = decode(&grid(q)) else { panic!("{q}: no answer") };
        let lines = |b: &vram_ledger::ledger::Bill| b.components.iter().map(|c| (c.id, c.bytes)).collect::<Vec<_>>();
        assert_eq!(lines(&g.bill), lines(&local), "{q}");
        assert_eq!(g.bill.timeline, local.timeline, "{q}");
        assert_eq!(g.bill.rl, local.rl, "{q}");
        assert_eq!(g.bill.verdict(), local.verdict(), "{q}");
        assert_eq!(g.bill.notes.len(), local.notes.len(), "{q}");
        if q.contains("rollout_util=0.5&") {
            assert!(g.bill.rl.as_ref().is_some_and(|r| r.engine_fails) && !g.bill.fits(), "{q}");
        }
    }
}

/// ms-swift's `offload_optimizer` / `offload_model` and verl's optimizer, parameter and gradient
/// offload (`rollout_offload`): while a colocated engine generates, the trainer's fp32 master
/// weights and Adam's two moments (4 + 8 B per parameter of Llama-3.1-8B) are in host RAM, and with
/// `all` its bf16 weights (2 B) and the reference model too; the steps' other phases keep them. An engine that reads the
/// trainer's weights (`shared`) keeps the weights on the card.
#[test]
fn the_trainer_offloaded_for_the_rollout_leaves_the_card_while_the_engine_generates() {
    let q = "model=llama-3.1-8b&method=full&objective=grpo&rollout=colocate&rollout_util=0.3&gpu=h200";
    let rollout = |q: &str, id| phase_bytes(&scenario(q), PhaseName::Rollout, id);
    let backward = |q: &str, id| phase_bytes(&scenario(q), PhaseName::Backward, id);
    assert_eq!(rollout(q, ComponentId::MasterWeights), PARAMS * 4);
    assert_eq!(rollout(q, ComponentId::Optimizer), PARAMS * 8);
    let optimizer = format!("{q}&rollout_offload=optimizer");
    assert_eq!(rollout(&optimizer, ComponentId::MasterWeights), 0);
    assert_eq!(rollout(&optimizer, ComponentId::Optimizer), 0);
    assert_eq!(rollout(&optimizer, ComponentId::Weights), PARAMS * 2);
    assert_eq!(backward(&optimizer, ComponentId::Optimizer), PARAMS * 8);
    let bill = estimate(&scenario(&optimizer));
    let note = bill.notes.iter().find(|n| n.key == "rl_rollout_offload").expect("the host RAM note");
    let text = vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &note.text);
    // 12 B × 8,030,261,248 = 96,363,134,976 B = 89.75 GiB.
    assert!(text.contains("89.75 GiB"), "{text}");
    let all = format!("{q}&rollout_offload=all");
    assert_eq!(rollout(&all, ComponentId::Weights), 0);
    assert_eq!(backward(&all, ComponentId::Weights), PARAMS * 2);
    // ms-swift's offload_model moves the reference model with the policy (a full fine-tune's, with
    // the KL term): 2 B per parameter more off the card.
    let kl = format!("{all}&beta=0.04");
    assert_eq!(
        phase_bytes(&scenario(&format!("{q}&beta=0.04")), PhaseName::Rollout, ComponentId::ReferenceModel),
        PARAMS * 2
    );
    assert_eq!(rollout(&kl, ComponentId::ReferenceModel), 0);
    assert_eq!(backward(&kl, ComponentId::ReferenceModel), PARAMS * 2);
    let shared = all.replace("rollout=colocate", "rollout=shared");
    assert_eq!(rollout(&shared, ComponentId::Weights), PARAMS * 2);
    assert_eq!(rollout(&shared, ComponentId::Optimizer), 0);
}
