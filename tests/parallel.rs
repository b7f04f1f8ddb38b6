//! Issue 28: one GPU of a Megatron-style training grid. Every expected figure is hand arithmetic
//! from the model's shape (Llama-3.1-8B: 32 layers, hidden 4,096, 32 heads, 8 KV heads of 128,
//! ffn 14,336, vocab 128,256, untied; Qwen3-30B-A3B: 48 layers of 128 experts of 768, 8 active).

use serde_json::Value;
use vram_ledger::ledger::bill::ComponentId;
use vram_ledger::ledger::parallel::in_flight;
use vram_ledger::ledger::scenario::{Layout, Schedule};
use vram_ledger::ledger::{estimate, Bill};
use vram_ledger::query;

fn bill(q: &str) -> Bill {
    estimate(&query::parse(q).scenario)
}

const LLAMA: &str = "model=llama-3.1-8b&method=full&seq=4096&batch=1&gc=0&gpu=h100-80g";

#[test]
fn layers_split_over_stages_first_ones_take_the_remainder() {
    let split = |layers: u64, pp: u64, p: u64| Layout { pp, ..Layout::default() }.stage_layers(layers, p);
    // 61 = 16 × 3 + 13: the first 13 stages hold 4 layers, the last 3 hold 3.
    assert_eq!(split(61, 16, 0), 0..4);
    assert_eq!(split(61, 16, 12), 48..52);
    assert_eq!(split(61, 16, 13), 52..55);
    assert_eq!(split(61, 16, 15), 58..61);
    assert_eq!((0..16).map(|p| split(61, 16, p).count()).sum::<usize>(), 61);
    assert_eq!(split(32, 1, 0), 0..32);
}

/// Megatron-Core's `get_num_layers_to_build` with `--decoder-first-pipeline-num-layers` and
/// `--decoder-last-pipeline-num-layers`: the end stages hold what they say, the stages between
/// share the rest. Qwen3-235B's 94 layers as ms-swift's qwen3_235b.sh splits them over PP 4
/// (23 first, 23 last: 48 left for 2 stages, 24 each); Qwen1.5-MoE's 24 over PP 2 with 11 last.
#[test]
fn megatron_s_uneven_pipeline_puts_the_named_layers_on_the_end_stages() {
    let l = Layout { pp: 4, first_stage_layers: Some(23), last_stage_layers: Some(23), ..Layout::default() };
    let stages: Vec<_> = (0..4).map(|p| l.stage_layers(94, p)).collect();
    assert_eq!(stages, vec![0..23, 23..47, 47..71, 71..94]);
    assert_eq!(l.uneven_rest(94), None);
    let two = Layout { pp: 2, last_stage_layers: Some(11), ..Layout::default() };
    assert_eq!((two.stage_layers(24, 0), two.stage_layers(24, 1)), (0..13, 13..24));
    // 61 layers over 8 stages, 5 first and 2 last: 54 left, 9 on each of the 6 between.
    let v3 = Layout { pp: 8, first_stage_layers: Some(5), last_stage_layers: Some(2), ..Layout::default() };
    assert_eq!(v3.stage_layers(61, 1), 5..14);
    assert_eq!(v3.stage_layers(61, 6), 50..59);
    assert_eq!(v3.stage_layers(61, 7), 59..61);
    // 10 layers over 3 stages: 2 first leaves 8 for 2 stages (even); 3 first leaves 7, which
    // Megatron refuses: the bill gives the first of the two 4 layers, and says so.
    let l = |first| Layout { pp: 3, first_stage_layers: Some(first), ..Layout::default() };
    assert_eq!(l(2).uneven_rest(10), None);
    assert_eq!(l(3).uneven_rest(10), Some((1, 4)));
    assert_eq!((l(3).stage_layers(10, 1), l(3).stage_layers(10, 2)), (3..7, 7..10));
    // Without the keys, 24 layers over 5 stages leave 4: the first four stages take 5.
    assert_eq!(Layout { pp: 5, ..Layout::default() }.uneven_rest(24), Some((4, 5)));
    // Absurd values never lose or invent a layer: more than the model clamps, two stages given
    // both ends give the last what the first leaves.
    let over = Layout { pp: 3, first_stage_layers: Some(500), ..Layout::default() };
    assert_eq!((0..3).map(|p| over.stage_layers(32, p).count()).sum::<usize>(), 32);
    let both = Layout { pp: 2, first_stage_layers: Some(10), last_stage_layers: Some(3), ..Layout::default() };
    assert_eq!((both.stage_layers(32, 0), both.stage_layers(32, 1)), (0..10, 10..32));
    // The link carries them, and the bill's stages follow.
    let b = bill(&format!("{LLAMA}&pp=4&first_stage_layers=5&last_stage_layers=11&microbatches=8"));
    let layers: Vec<u64> = b.parallel.as_ref().map_or(vec![], |p| p.ranks.iter().map(|r| r.layers).collect());
    assert_eq!(layers, vec![5, 8, 8, 11]);
    let keys: Vec<&str> = b.notes.iter().map(|n| n.key).collect();
    assert!(!keys.contains(&"grid_uneven"), "{keys:?}");
    let uneven = bill(&format!("{LLAMA}&pp=3"));
    assert!(uneven.notes.iter().any(|n| n.key == "grid_uneven"));
    // The worker's levers move layers off a worst end stage, to a count Megatron accepts: Llama's
    // first stage of four (8 layers, 4 micro-batches in flight) is the worst; 5 leaves 27 for
    // the three others, 9 each (7 or 6 would leave 25 or 26).
    let q = format!("{LLAMA}&pp=4&microbatches=8&dist_optim=1");
    let answer: Value = serde_json::from_str(&vram_ledger::readers::grid(&q)).expect("the worker answers JSON");
    let levers = answer["grid"]["levers"].as_array().cloned().unwrap_or_default();
    let before = bill(&q).device_bytes();
    let moved = levers.iter().find(|l| l[0] == "first_stage_layers").expect("a first_stage_layers lever");
    assert_eq!(moved[1], "5");
    assert!(moved[2].as_u64().is_some_and(|after| after < before), "{moved}");
    assert!(!levers.iter().any(|l| l[0] == "last_stage_layers"));
}

/// `mtp_layers=1` on Llama-3.1-8B over PP 2 (tp 1, full fine-tuning): the last stage adds a layer
/// like its last (218,103,808 linear parameters + 8,192 of norms), `eh_proj` 2 × 4,096² =
/// 33,554,432, the enorm, hnorm and final norm 3 × 4,096 = 12,288, and, the model being untied,
/// its own embedding 128,256 × 4,096 = 525,336,576: 777,015,296 parameters. Its activations: one
/// in flight × 4,096 tokens × (139,392 B of a layer + 4 × 8,192 B of the norms' inputs and their
/// concatenation); its logits' fp32 softmax 4,096 × 128,256 × 4 B. The first stage is unchanged.
#[test]
fn multi_token_prediction_layers_sit_on_the_last_stage() {
    let q = format!("{LLAMA}&pp=2&microbatches=4&stage=1");
    let (without, with) = (bill(&q), bill(&format!("{q}&mtp_layers=1")));
    let added = |id| with.component(id) - without.component(id);
    assert_eq!(added(ComponentId::Weights), 777_015_296 * 2);
    assert_eq!(added(ComponentId::Gradients), 777_015_296 * 4);
    assert_eq!(added(ComponentId::Activations), 4096 * (139_392 + 4 * 8192));
    assert_eq!(added(ComponentId::Logits), 4096 * 128_256 * 4);
    let first = |b: &Bill| b.parallel.as_ref().map(|p| p.ranks[0].device_bytes);
    assert_eq!(first(&with), first(&without));
    // The link round-trips it; the weights line names it.
    let s = query::parse(&format!("{q}&mtp_layers=1")).scenario;
    assert_eq!(query::parse(&query::to_query(&s, &[])).scenario.layout.mtp_layers, 1);
    assert!(with.components.iter().any(|c| c.formula.to_string().contains("multi-token-prediction")));
    // The JSON's `parallel` object says them.
    let j = vram_ledger::report::to_json(&s, &estimate(&s));
    assert_eq!(j["parallel"]["mtp_layers"], 1);
}

#[test]
fn micro_batches_in_flight_by_schedule() {
    let l = |schedule, vpp| Layout { pp: 4, schedule, vpp, ..Layout::default() };
    // 1F1B: stage p of 4 holds 4 − p, never more than the step has.
    assert_eq!(in_flight(&l(Schedule::OneFOneB, 1), 8, 0), 4.0);
    assert_eq!(in_flight(&l(Schedule::OneFOneB, 1), 8, 3), 1.0);
    assert_eq!(in_flight(&l(Schedule::OneFOneB, 1), 2, 0), 2.0);
    assert_eq!(in_flight(&l(Schedule::ZeroBubble, 1), 8, 1), 3.0);
    // Interleaved over 2 virtual stages: 4 × (1 + 3 / 8) = 5.5 on the first stage. Megatron-Core
    // counts model-chunk passes: warm-up 2 × (4 − 0 − 1) + (2 − 1) × 4 = 10, plus one, ÷ 2 = 5.5;
    // on the last stage 0 + 4 + 1 = 5 passes, 2.5 micro-batches (1F1B's last stage holds one).
    assert_eq!(in_flight(&l(Schedule::Interleaved, 2), 8, 0), 5.5);
    assert_eq!(in_flight(&l(Schedule::Interleaved, 2), 8, 3), 2.5);
    // Few micro-batches: every pass of the step is warm-up (2 × 2 = 4 passes on any stage: 2.0).
    assert_eq!(in_flight(&l(Schedule::Interleaved, 2), 2, 0), 2.0);
    assert_eq!(in_flight(&l(Schedule::Interleaved, 2), 2, 3), 2.0);
    // GPipe: every micro-batch.
    assert_eq!(in_flight(&l(Schedule::Gpipe, 1), 8, 2), 8.0);
    // No pipeline: accumulation runs the micro-batches one after the other.
    assert_eq!(in_flight(&Layout::default(), 8, 0), 1.0);
}

/// tp = 2, one stage: the linear layers 6,979,321,856 ÷ 2, the norms whole (32 × 2 × 4,096 =
/// 262,144), embedding and LM head 525,336,576 ÷ 2 each, the final norm 4,096 = 4,015,263,744.
#[test]
fn tensor_parallel_weights_gradients_and_states_by_hand() {
    let b = bill(&format!("{LLAMA}&tp=2&dp=4&dist_optim=1"));
    let params = 4_015_263_744u64;
    assert_eq!(b.component(ComponentId::Weights), params * 2);
    assert_eq!(b.component(ComponentId::Gradients), params * 4);
    // The distributed optimizer over dp × cp = 4: fp32 master 4 B and Adam's 8 B ÷ 4.
    assert_eq!(b.component(ComponentId::MasterWeights), params);
    assert_eq!(b.component(ComponentId::Optimizer), params * 2);
    // Without it the states are whole.
    let whole = bill(&format!("{LLAMA}&tp=2&dp=4"));
    assert_eq!(whole.component(ComponentId::Optimizer), params * 8);
}

/// Per token and layer on one of tp = 2: each of the two norms' input and output 4 × 4,096 × 2 B =
/// 32,768 (whole without sp), q + k + v + the attention output (4,096 + 1,024 + 1,024 + 4,096) × 2 B
/// ÷ 2 = 10,240, the log-sum-exp 32 heads × 4 B ÷ 2 = 64, the MLP's gate, up and product 3 × 14,336
/// × 2 B ÷ 2 = 43,008: 86,080 B. With sp the norms' tensors split too: 69,696 B.
#[test]
fn activations_and_logits_by_hand_with_and_without_sequence_parallel() {
    let tokens = 4096u64;
    let b = bill(&format!("{LLAMA}&tp=2"));
    assert_eq!(b.component(ComponentId::Activations), 32 * tokens * 86_080);
    let sp = bill(&format!("{LLAMA}&tp=2&sp=1"));
    assert_eq!(sp.component(ComponentId::Activations), 32 * tokens * 69_696);
    // The last stage's logits: 4,096 tokens × 128,256 ÷ 2 × 6 B (bf16 + the fp32 copy).
    assert_eq!(b.component(ComponentId::Logits), tokens * 64_128 * 6);
    // Context parallel 2 halves the tokens and adds ring attention's buffers: 2 × 2 × 2,048 tokens
    // × 1,024 (K or V) × 2 B ÷ tp 2 = 8 MiB.
    let cp = bill(&format!("{LLAMA}&tp=2&sp=1&cp=2"));
    assert_eq!(cp.component(ComponentId::Activations), 32 * 2048 * 69_696 + 8 * 1024 * 1024);
    // Full recompute keeps each layer's input (4,096 × 2 B ÷ 2 with sp) and one layer again.
    let gc = bill(&format!("{LLAMA}&tp=2&sp=1").replace("gc=0", "gc=1"));
    assert_eq!(gc.component(ComponentId::Activations), 32 * tokens * 4096 + tokens * 69_696);
}

/// Four stages of 8 layers, 1F1B, 8 micro-batches: the first stage holds 4 micro-batches and the
/// embedding, the last one micro-batch, the LM head and the logits.
#[test]
fn pipeline_stages_differ_and_the_worst_is_billed() {
    let b = bill(&format!("{LLAMA}&pp=4&microbatches=8"));
    let p = b.parallel.as_ref().expect("a grid has a parallel summary");
    assert_eq!(p.ranks.len(), 4);
    assert!(p.ranks.iter().all(|r| r.layers == 8));
    // Per token and layer without tp: 32,768 + 20,480 + 128 + 86,016 = 139,392 B.
    assert_eq!(p.ranks[0].activations_bytes, 4 * 8 * 4096 * 139_392);
    assert_eq!(p.ranks[3].activations_bytes, 8 * 4096 * 139_392);
    // Stage 0 holds 4 micro-batches (15.0 GiB of activations): the worst, and the one billed.
    assert_eq!(p.worst_stage, 0);
    assert_eq!(b.device_bytes(), p.ranks[0].device_bytes);
    // `stage` picks another.
    let last = bill(&format!("{LLAMA}&pp=4&microbatches=8&stage=3"));
    assert_eq!(last.parallel.as_ref().map(|p| p.billed_stage), Some(3));
    assert!(last.component(ComponentId::Logits) > 0);
    assert_eq!(b.component(ComponentId::Logits), 0);
}

/// Qwen3-30B-A3B's routed experts: 48 layers × 128 × 3 × 2,048 × 768 = 28,991,029,248 parameters;
/// over ep = 8 each GPU holds an eighth.
#[test]
fn expert_parallel_splits_the_routed_experts_only() {
    let q = "model=qwen3-30b-a3b&method=full&seq=4096&gpu=h100-80g&sp=1&tp=1";
    let one = bill(&format!("{q}&ep=1&dp=8"));
    let eight = bill(&format!("{q}&ep=8&dp=8"));
    let experts = 28_991_029_248u64;
    assert_eq!(one.component(ComponentId::Weights) - eight.component(ComponentId::Weights), experts / 8 * 7 * 2);
    // The all-to-all buffers: 4,096 tokens × 8 routed × 2,048 × 2 B × 3 = 384 MiB.
    let acts = eight.component(ComponentId::Activations) as f64;
    assert!(
        eight
            .components
            .iter()
            .any(|c| c.id == ComponentId::Activations && c.formula.to_string().contains("384.00 MiB")),
        "{acts}"
    );
}

#[test]
fn json_parallel_object_has_the_contract_fields() {
    let s = query::parse(&format!("{LLAMA}&tp=2&pp=2&dp=2&microbatches=4")).scenario;
    let b = estimate(&s);
    let j = vram_ledger::report::to_json(&s, &b);
    let p = &j["parallel"];
    for k in ["tp", "pp", "ep", "etp", "cp", "dp"] {
        assert!(p[k].is_u64(), "{k}");
    }
    assert_eq!(p["tp"], 2);
    assert_eq!(p["worst_rank"]["stage"], 0);
    assert_eq!(p["worst_rank"]["bytes"].as_u64(), Some(b.device_bytes()));
    let ranks = p["ranks"].as_array().expect("ranks");
    assert_eq!(ranks.len(), 2);
    for r in ranks {
        for k in ["stage", "layers", "weights_bytes", "activations_bytes", "device_bytes"] {
            assert!(r[k].is_u64(), "{k}");
        }
    }
    // Without grid keys there is no parallel object, and the bill is the Trainer's as before.
    let plain = query::parse(LLAMA).scenario;
    assert_eq!(vram_ledger::report::to_json(&plain, &estimate(&plain))["parallel"], Value::Null);
}

#[test]
fn grid_links_round_trip_and_bad_grids_get_notes_not_panics() {
    let q = "model=deepseek-v3&method=full&tp=8&pp=16&ep=64&dp=8&sp=1&dist_optim=1&schedule=interleaved&vpp=2&microbatches=64&stage=3";
    let s = query::parse(q).scenario;
    let again = query::parse(&query::to_query(&s, &[])).scenario;
    assert_eq!(s.layout, again.layout);
    // tp = 3 divides neither 32 heads nor 8 KV heads; pp = 40 is more stages than layers.
    let b = bill(&format!("{LLAMA}&tp=3&pp=40"));
    let keys: Vec<&str> = b.notes.iter().map(|n| n.key).collect();
    assert!(keys.iter().filter(|k| **k == "grid_refused").count() >= 2, "{keys:?}");
    assert!(b.device_bytes() > 0);
    // Absurd sizes are refused by the codec with a message.
    let bad = query::parse("model=llama-3.1-8b&tp=0&pp=99999");
    assert!(!bad.errors.is_empty());
}

/// The page's build bills a grid in the reader worker: what the worker answers reads back as the
/// same bill (every line's bytes, the stages), its texts rendered in both languages, and each
/// lever's worst GPU as the ledger bills that grid.
#[test]
fn the_worker_answers_a_grid_bill_the_page_reads_back() {
    use vram_ledger::i18n::{render, Lang};
    use vram_ledger::readers::{decode, grid, Answer};
    let q = "model=qwen3-30b-a3b&method=full&tp=2&pp=2&ep=4&dp=2&sp=1&dist_optim=1&mtp_layers=1&seq=4096&microbatches=4&gc=0&gpu=h100-80g";
    let local = bill(q);
    let Some(Answer::Grid(g)) = decode(&grid(q)) else { panic!("no grid answer") };
    assert_eq!(g.query, q);
    for (a, b) in local.components.iter().zip(&g.bill.components) {
        assert_eq!((a.id, a.bytes), (b.id, b.bytes));
        assert_eq!(render(Lang::En, &a.formula), render(Lang::En, &b.formula));
        assert_eq!(render(Lang::Zh, &a.formula), render(Lang::Zh, &b.formula));
    }
    assert_eq!(g.bill.device_bytes(), local.device_bytes());
    assert_eq!(g.bill.parallel, local.parallel);
    assert_eq!(g.bill.notes.len(), local.notes.len());
    // The levers: doubling tp splits attention and the MLPs further, so the worst GPU needs less.
    let tp = g.levers.iter().find(|(k, _, _)| k == "tp").expect("a tp lever");
    assert_eq!(tp.1, "4");
    assert_eq!(tp.2, bill(&q.replace("tp=2", "tp=4")).device_bytes());
    assert!(tp.2 < local.device_bytes());
    // A hostile answer is not read as a grid.
    assert_eq!(decode("{\"grid\": {\"query\": 1}}"), None);
}

/// In inference `tp` is the tensor-parallel size, as `gpus` is; vLLM bills `pp`, `dp` and `ep`
/// and SGLang theirs (tests/serving_grid.rs); llama.cpp and `cp` get a note rather than a silent
/// one-GPU bill.
#[test]
fn tp_in_inference_is_gpus_and_the_rest_of_a_grid_is_a_note() {
    let q = "model=qwen3-32b&mode=infer&engine=vllm&gpu=h100-80g";
    let by_gpus = bill(&format!("{q}&gpus=2"));
    let by_tp = bill(&format!("{q}&tp=2"));
    assert_eq!(by_gpus.device_bytes(), by_tp.device_bytes());
    assert_eq!(by_gpus.serving.map(|s| s.kv_tokens), by_tp.serving.map(|s| s.kv_tokens));
    assert!(by_tp.parallel.is_none() && !by_tp.notes.iter().any(|n| n.key == "serving_grid"));
    let with_ep = bill(&format!("{q}&tp=2&ep=2"));
    assert!(with_ep.parallel.is_some() && !with_ep.notes.iter().any(|n| n.key == "serving_grid"));
    let on_llamacpp = bill(&format!("{q}&tp=2&pp=2").replace("engine=vllm", "engine=llamacpp"));
    assert!(on_llamacpp.notes.iter().any(|n| n.key == "serving_grid"));
    let with_cp = bill(&format!("{q}&tp=2&cp=2"));
    assert!(with_cp.notes.iter().any(|n| n.key == "serving_grid"));
}

/// Megatron's optimizer CPU offload: the fp32 master weights and moments (here 4,015,263,744
/// parameters × 12 B ÷ dp 4 = 12,045,791,232 B) go to host RAM; the bf16 weights and the fp32
/// main_grad stay on the GPU.
#[test]
fn an_offloaded_optimizer_leaves_the_weights_and_main_grad_on_the_gpu() {
    let b = bill(&format!("{LLAMA}&tp=2&dp=4&dist_optim=1&offload=optimizer"));
    assert_eq!(b.component(ComponentId::MasterWeights), 0);
    assert_eq!(b.component(ComponentId::Optimizer), 0);
    assert_eq!(b.component(ComponentId::Gradients), 4_015_263_744 * 4);
    assert_eq!(b.component(ComponentId::Weights), 4_015_263_744 * 2);
    let host = b.notes.iter().find(|n| n.key == "offload_host").expect("a host-RAM note");
    assert!(vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &host.text).contains("11.22 GiB"));
}

/// `zero=3` on a grid is FSDP (torchtitan's FSDP2) over dp × cp. Llama-3.1-8B on tp = 2, dp = 4:
/// the fp32 shards of 4,015,263,744 parameters ÷ 4 × 4 B; its largest layer (attention 41,943,040,
/// MLP 176,160,768 and its two norms 8,192: 218,112,000 parameters, ÷ tp 2 = 109,056,000) gathered
/// in bf16 with the next one prefetched (2 × 2 B) and its fp32 gradient before the reduce-scatter
/// (4 B): 872,448,000 B. Under a pipeline (pp = 2) the whole stage stays gathered in bf16 with its
/// unsharded fp32 gradients (torchtitan's default; FSDP2 accumulates them in the reduce dtype).
#[test]
fn fsdp_on_a_grid_shards_everything_and_a_pipeline_keeps_its_stage_gathered() {
    let b = bill(&format!("{LLAMA}&tp=2&dp=4&zero=3"));
    assert_eq!(b.component(ComponentId::Weights), 4_015_263_744);
    assert_eq!(b.component(ComponentId::Gradients), 4_015_263_744);
    assert_eq!(b.component(ComponentId::Optimizer), 4_015_263_744 * 2);
    assert_eq!(b.component(ComponentId::MasterWeights), 0);
    assert_eq!(b.component(ComponentId::GatheredLayer), 872_448_000);
    // Its loss is PyTorch's cross-entropy as `loss` says (torchtitan's), not Megatron's in-place one:
    // eager `loss=hf` holds 12 B per logit at backward (the fp32 log-softmax output, the incoming
    // gradient and the returned one), 4,096 tokens × 128,256 ÷ tp 2.
    assert_eq!(b.component(ComponentId::Logits), 4096 * 64_128 * 12);
    let pp = bill(&format!("{LLAMA}&tp=2&pp=2&dp=4&zero=3&microbatches=4"));
    let p = pp.parallel.as_ref().expect("a grid");
    let stage_params = pp.component(ComponentId::Weights) as f64 * 4.0 / 4.0;
    // bf16 weights (2 B) and fp32 gradients (4 B) of the whole stage: 6 B per parameter.
    let gathered = pp.component(ComponentId::GatheredLayer) as f64;
    assert!((gathered - 6.0 * stage_params).abs() <= 8.0, "{gathered} vs 6 × {stage_params}");
    assert_eq!(p.ranks.len(), 2);
}

/// A rollout by `generate()` or by an engine reading the trainer's weights has no Megatron form: such
/// a step on a grid is billed over `gpus` and `zero`, and its bill says so rather than ignoring
/// the grid keys silently.
#[test]
fn a_generate_or_shared_rollout_on_a_grid_says_the_grid_is_not_billed() {
    for q in [
        "model=qwen3-8b&method=full&objective=grpo&tp=4&gpu=h100-80g",
        "model=qwen3-8b&method=full&objective=grpo&rollout=shared&tp=4&gpu=h100-80g",
        "model=qwen3-8b&method=full&objective=ppo&tp=4&gpu=h100-80g",
    ] {
        let b = bill(q);
        assert!(b.rl.is_some() && b.parallel.is_none(), "{q}");
        assert!(
            b.notes.iter().any(|n| n.key == "rl_grid"),
            "{q}: {:?}",
            b.notes.iter().map(|n| n.key).collect::<Vec<_>>()
        );
    }
    assert!(!bill("model=qwen3-8b&method=full&objective=grpo&gpu=h100-80g").notes.iter().any(|n| n.key == "rl_grid"));
}

/// GRPO with a vLLM engine on the grid's own GPUs (Megatron-SWIFT's `vllm_mode colocate`, verl's
/// hybrid engine): the grid's step — the very lines of the same step with its rollout elsewhere
/// (`rollout=server`) — beside an engine of `rollout_tp` GPUs: its weights 8,030,261,248 × 2 B ÷ 2
/// and vLLM's RoPE cos/sin tables on every GPU (131,072 positions × 128 × 2 B = 32 MiB), its pool
/// within 0.4 of the card. Megatron's gradient
/// buffer and the optimizer's states are on the card through the rollout (the defaults: no offload),
/// and tp 2 × dp 4 = 8 GPUs make 4 engines, each generating for its two GPUs' share of the 4 × 4
/// sequences of the step: 4.
#[test]
fn colocated_grpo_on_a_grid_is_the_grid_s_step_beside_its_engine() {
    let grid = "model=llama-3.1-8b&method=full&tp=2&dp=4&dist_optim=1&objective=grpo&batch=4&prompt_len=512&completion_len=1024&beta=0.04&gpu=h100-80g";
    let server = bill(&format!("{grid}&rollout=server"));
    let b = bill(&format!("{grid}&rollout=colocate&rollout_util=0.4&rollout_tp=2"));
    let keys: Vec<_> = b.notes.iter().map(|n| n.key).collect();
    assert!(b.rl.is_some() && b.parallel.is_some(), "{keys:?}");
    assert!(!keys.contains(&"rl_grid") && keys.contains(&"rl_grid_rollout"), "{keys:?}");
    let text = b
        .notes
        .iter()
        .find(|n| n.key == "rl_grid_rollout")
        .map(|n| vram_ledger::i18n::render(vram_ledger::i18n::Lang::En, &n.text));
    assert!(
        text.as_deref()
            .is_some_and(|t| t.contains("4 vLLM engine(s) of tensor parallel 2") && t.contains("4 sequence(s) each")),
        "{text:?}"
    );
    let ph = match &b.timeline {
        vram_ledger::ledger::bill::Timeline::Phases(p) => p.clone(),
        other => panic!("{other:?}"),
    };
    let rollout =
        ph.iter().find(|p| p.name == vram_ledger::ledger::phases::PhaseName::Rollout).expect("a rollout phase");
    for id in [
        ComponentId::Weights,
        ComponentId::MasterWeights,
        ComponentId::Gradients,
        ComponentId::Optimizer,
        ComponentId::ReferenceModel,
    ] {
        assert!(server.component(id) > 0, "{id:?}");
        assert_eq!(rollout.bytes(id), server.component(id), "{id:?} in the rollout");
    }
    // The `rl` object names the grid's reference as the bill's line.
    assert_eq!(b.rl.as_ref().map(|r| r.reference_bytes), Some(server.component(ComponentId::ReferenceModel)));
    let engine = rollout.bytes(ComponentId::RolloutWeights);
    let half = 8_030_261_248u64;
    assert_eq!(engine, half + 131_072 * 128 * 2, "{engine}");
    assert!(rollout.bytes(ComponentId::RolloutKvCache) > 0);
    // The engine's share: 0.4 of the card holds its weights, pool and workspace.
    let share = 0.4 * b.gpu_bytes as f64;
    let engine_total = (engine + rollout.bytes(ComponentId::RolloutKvCache)) as f64;
    assert!(engine_total <= share, "{engine_total} of {share}");
    // The page's build asks the reader worker for this bill: it reads back whole.
    let q = format!("{grid}&rollout=colocate&rollout_util=0.4&rollout_tp=2");
    let Some(vram_ledger::readers::Answer::Grid(g)) = vram_ledger::readers::decode(&vram_ledger::readers::grid(&q))
    else {
        panic!("no grid answer")
    };
    assert_eq!(g.bill.device_bytes(), b.device_bytes());
    assert_eq!(g.bill.parallel, b.parallel);
    assert_eq!(g.bill.rl, b.rl);
    // And what fits, as the CLI's solvers give it (a smaller engine, asleep after each rollout, and
    // the optimizer's states in host RAM while it runs, which these cards need): the longest
    // completion and the largest micro-batch.
    let q = format!("{grid}&rollout=colocate&rollout_util=0.3&rollout_tp=2&rollout_offload=optimizer&sleep=2");
    let Some(vram_ledger::readers::Answer::Grid(g)) = vram_ledger::readers::decode(&vram_ledger::readers::grid(&q))
    else {
        panic!("no grid answer")
    };
    let fits = vram_ledger::ledger::fit::what_fits(&query::parse(&q).scenario);
    let [max_batch, _, completion, _] = g.fits.expect("an RL step's fits");
    assert_eq!((max_batch, completion), (fits.0, fits.2.map_or(0, |r| r.0)));
    assert!(max_batch >= 1 && completion > 1024, "{max_batch} {completion}");
}

/// PPO on a grid (verl's Megatron workers, Megatron-SWIFT): the critic laid out as the policy,
/// whose lines stay on the card — for a critic of the policy's own shape its bf16 weights (2 B),
/// Megatron's fp32 gradient buffer (4 B), and the fp32 master copy and two moments (12 B) sharded by
/// the distributed optimizer over dp 2: 12 B per parameter of this GPU; a reward model split as the
/// policy's dense layers (÷ tp 4).
#[test]
fn ppo_on_a_grid_lays_its_critic_out_as_the_policy() {
    let q = "model=llama-3.1-8b&method=full&tp=4&dp=2&dist_optim=1&objective=ppo&rollout=server&batch=2&prompt_len=512&completion_len=512&gpu=h100-80g";
    let b = bill(q);
    assert!(b.parallel.is_some(), "{:?}", b.notes.iter().map(|n| n.key).collect::<Vec<_>>());
    let params = b.component(ComponentId::Weights) / 2;
    assert_eq!(b.component(ComponentId::Critic), params * 12);
    let reward = bill(&format!("{q}&reward=qwen3-0.6b"));
    let alone = bill("model=qwen3-0.6b&mode=infer&seq=1&gen=0&gpu=h100-80g").component(ComponentId::Weights);
    assert_eq!(reward.component(ComponentId::RewardModel), alone / 4);
}

/// GRPO with its rollout on other GPUs (Megatron-SWIFT's `vllm_mode server`) is the grid's step
/// over the completions: 4 of 512 + 1,536 tokens a micro-batch, 8,192 tokens, the activations and
/// logits of the DPO test's 8,192 tokens on Llama-3.1-8B at tp 2 with sp; the reference only with
/// the KL term (`beta` > 0).
#[test]
fn grpo_with_a_server_rollout_is_the_grid_s_step_over_its_completions() {
    let base = format!("{LLAMA}&tp=2&sp=1&objective=grpo&rollout=server&batch=4&prompt_len=512&completion_len=1536")
        .replace("&batch=1", "");
    let b = bill(&base);
    assert!(b.parallel.is_some() && b.rl.is_none());
    assert_eq!(b.component(ComponentId::Activations), 32 * 8192 * 69_696);
    assert_eq!(b.component(ComponentId::Logits), 8192 * 64_128 * 6);
    assert_eq!(b.component(ComponentId::ReferenceModel), 0);
    let kl = bill(&format!("{base}&beta=0.04"));
    assert_eq!(kl.component(ComponentId::ReferenceModel), 4_015_263_744 * 2);
}

/// DPO on a grid, as Megatron-SWIFT's MegatronDPOTrainer runs it (padding-free: each micro-batch
/// carries its pairs' chosen and rejected sequences): the SFT step's lines over twice the tokens,
/// and for a full fine-tune a reference model laid out as the policy (ms-swift #6027 builds it
/// without DDP: no gradient buffer), which the LoRA run does not have (the adapters disabled).
/// Hand arithmetic on Llama-3.1-8B, tp 2: 4,015,263,744 parameters per GPU (the test above).
#[test]
fn dpo_on_a_grid_doubles_the_tokens_and_adds_the_reference_as_the_policy_is_laid_out() {
    let params = 4_015_263_744u64;
    let sft = bill(&format!("{LLAMA}&tp=2&sp=1"));
    let dpo = bill(&format!("{LLAMA}&tp=2&sp=1&objective=dpo"));
    assert!(dpo.parallel.is_some() && dpo.rl.is_none());
    assert!(!dpo.notes.iter().any(|n| n.key == "rl_grid"));
    assert_eq!(dpo.component(ComponentId::ReferenceModel), params * 2);
    assert_eq!(dpo.component(ComponentId::Weights), sft.component(ComponentId::Weights));
    // 2 × 4,096 tokens: 69,696 B per token and layer with sp (the test above), and their logits
    // 8,192 × 128,256 ÷ 2 × 6 B.
    assert_eq!(dpo.component(ComponentId::Activations), 32 * 8192 * 69_696);
    assert_eq!(dpo.component(ComponentId::Logits), 8192 * 64_128 * 6);
    // LoRA's reference is the policy with its adapters disabled; precomputed needs none.
    let lora = bill(&format!("{LLAMA}&tp=2&sp=1&objective=dpo").replace("method=full", "method=lora"));
    assert_eq!(lora.component(ComponentId::ReferenceModel), 0);
    let pre = bill(&format!("{LLAMA}&tp=2&sp=1&objective=dpo&ref=precomputed"));
    assert_eq!(pre.component(ComponentId::ReferenceModel), 0);
    // Under FSDP on the grid (zero=3) the reference is sharded over dp × cp as the weights are.
    let fsdp = bill(&format!("{LLAMA}&tp=2&dp=4&zero=3&objective=dpo"));
    assert_eq!(fsdp.component(ComponentId::ReferenceModel), params * 2 / 4);
}

/// NCCL's communicators, one per process group a step uses as Megatron-Core makes them: on NVLink
/// cards 0.51 GiB for two GPUs and 0.64 GiB for more (nccl#964: 544 and 688 MB measured on NVLink
/// A100s), 0.44 GiB per peer of the experts' all-to-all (nccl#1685: 3.28 GB for 7 peers on H100s),
/// 0.25 GiB each over PCIe, the first 1.9 GiB with NVLS (no NVLS on an A800). Counted by hand:
/// - Qwen3-30B-A3B, tp 2 × ep 8 × etp 2 × dp 8 (16 GPUs): the world's (16), tp (2), dp with cp (8),
///   model parallel tp × pp (2), ep (8), etp (2), tp × ep (16), etp × ep × pp (16) = 8 groups; the
///   experts' data parallel 16 ÷ (2 × 8) = 1 has none. 3 pairs × 0.51 + 5 × 0.64 = 4.73 GiB, and
///   the all-to-all 7 × 0.44 = 3.08 GiB: 7.81 GiB.
/// - Llama-3.1-8B, tp 2 × dp 2: the world's (4) 0.64, tp, dp with cp, model parallel (2 each)
///   3 × 0.51 = 2.17 GiB; on RTX 4090s (PCIe) 4 × 0.25 = 1 GiB; on H100s the world's is the NVLS
///   one, 1.9 + 1.53 = 3.43 GiB.
/// - The same on 4 GPUs of data parallel only: the world's and dp with cp (two group objects of the
///   same GPUs) = 2 × 0.64 = 1.28 GiB.
#[test]
fn a_communicator_per_process_group_a_step_uses() {
    let nccl = |q: &str| {
        let b = bill(q);
        b.components.iter().filter(|c| c.id == ComponentId::NonTorch).map(|c| c.bytes as f64).sum::<f64>()
            / 1073741824.0
    };
    let close = |q: &str, gib: f64| assert!((nccl(q) - gib).abs() < 1e-6, "{q}: {} GiB, not {gib}", nccl(q));
    close(
        "model=qwen3-30b-a3b&method=full&framework=megatron&tp=2&ep=8&etp=2&dp=8&sp=1&seq=8192&gc=1&gpu=a800-80g",
        7.81,
    );
    let dense = "model=llama-3.1-8b&method=full&framework=megatron&tp=2&dp=2&seq=4096&gc=1";
    close(&format!("{dense}&gpu=a800-80g"), 2.17);
    close(&format!("{dense}&gpu=rtx4090"), 1.0);
    close(&format!("{dense}&gpu=h100-80g"), 3.43);
    close("model=llama-3.1-8b&method=full&framework=megatron&dp=4&seq=4096&gc=1&gpu=a800-80g", 1.28);
    // DeepSeek-V3 at tp 8 × pp 16 × dp 8, ep 64 on H800s: eight groups (1,024; tp 8; pp 16; dp 8;
    // tp × pp 128; ep 64; tp × ep 512; ep × pp 1,024) at 0.64 GiB, the first with NVLS 1.9 GiB:
    // 6.38 GiB; the all-to-all's NVLink peers are the seven others of a node at most (not 63): 3.08.
    close(
        "model=deepseek-v3&method=full&framework=megatron&tp=8&pp=16&ep=64&dp=8&sp=1&seq=4096&gc=1&gpu=h800&stage=3",
        9.46,
    );
}

/// Megatron's precision-aware optimizer (`--use-precision-aware-optimizer`, megatron/training/
/// arguments.py): `--exp-avg-dtype` / `--exp-avg-sq-dtype` store Adam's moments in 2 B (bf16,
/// fp16) or 1 B (fp8) instead of 4, still sharded by the distributed optimizer; `--main-grads-dtype
/// bf16` halves the unsharded `main_grad`; the fp32 master weights are kept by TransformerEngine's
/// FusedAdam as 16-bit remainders (`store_param_remainders`, megatron/core/optimizer/__init__.py,
/// default True in optimizer_config.py). On Llama-3.1-8B at tp 2 × dp 2 the GPU trains W
/// parameters (its weights line ÷ 2 B): gradients 4·W → 2·W, moments 8·W ÷ 2 → 4·W ÷ 2 (bf16) →
/// 2·W ÷ 2 (fp8), master weights 4·W ÷ 2 → 2·W ÷ 2.
#[test]
fn the_precision_aware_optimizer_keeps_its_states_in_their_dtypes() {
    let line =
        |q: &str, id: ComponentId| bill(q).components.iter().filter(|c| c.id == id).map(|c| c.bytes).sum::<u64>();
    let q = "model=llama-3.1-8b&method=full&framework=megatron&tp=2&dp=2&seq=4096&gc=1&gpu=a800-80g";
    let w = line(q, ComponentId::Weights) / 2;
    assert_eq!(line(q, ComponentId::Gradients), 4 * w);
    assert_eq!(line(q, ComponentId::Optimizer), 8 * w / 2);
    let bf16 = format!("{q}&moments=bf16&main_grads=bf16");
    assert_eq!(line(&bf16, ComponentId::Gradients), 2 * w);
    assert_eq!(line(&bf16, ComponentId::Optimizer), 4 * w / 2);
    // The master weights: fp32 (4 B ÷ dp 2) without it; with it TransformerEngine's FusedAdam
    // keeps their 16-bit remainders beside the bf16 weights (store_param_remainders): 2 B ÷ 2.
    assert_eq!(line(q, ComponentId::MasterWeights), 4 * w / 2);
    assert_eq!(line(&bf16, ComponentId::MasterWeights), 2 * w / 2);
    assert_eq!(line(&format!("{q}&moments=fp8"), ComponentId::Optimizer), 2 * w / 2);
    // The link keeps them; a value the optimizer does not take is refused.
    assert!(vram_ledger::query::to_query(&vram_ledger::query::parse(&bf16).scenario, &[])
        .contains("moments=bf16&main_grads=bf16"));
    assert!(!vram_ledger::query::parse(&format!("{q}&main_grads=fp8")).errors.is_empty());
}

/// A fused linear cross-entropy on an FSDP grid (Accelerate's context parallelism, as TRL's 2026
/// benchmark runs it): one chunk of logits, the input gradient and, under Liger's kernel in a full
/// fine-tune, the LM head's weight gradient made in the forward pass. By hand for Qwen3-4B at
/// 32,768 tokens over cp = 2: 16,384 tokens a GPU; ⌈151,936 / 2,560⌉ = 60, so a chunk is the next
/// power of two of ⌈16,384 / 60⌉ = 274: 512 tokens × 151,936 × (2 + 4) B = 466,747,392; the input
/// gradient 16,384 × (2,560 × 2 + 4) B = 83,951,616; Liger's head gradient 151,936 × 2,560 × 2 B
/// (the gathered bf16 head) = 777,912,320.
#[test]
fn a_fused_loss_on_an_fsdp_grid_keeps_its_chunk_and_liger_s_head_gradient() {
    let logits = |q: &str| bill(q).component(ComponentId::Logits);
    let q = "model=qwen3-4b&method=full&dp=4&cp=2&zero=3&seq=32768&batch=1&gc=1&loss=fused&gpu=h100-80g";
    assert_eq!(logits(q), 466_747_392 + 83_951_616);
    assert_eq!(logits(&format!("{q}&kernels=liger")), 466_747_392 + 83_951_616 + 777_912_320);
    // Over tp = 2 each GPU has half the vocabulary: ⌈75,968 / 2,560⌉ = 30, a chunk of 1,024 tokens
    // (the same bytes), and half the head's gradient, 75,968 × 2,560 × 2 B.
    let tp = q.replace("dp=4", "dp=2&tp=2");
    assert_eq!(logits(&format!("{tp}&kernels=liger")), 1_024 * 75_968 * 6 + 83_951_616 + 75_968 * 2_560 * 2);
    // On one GPU the loss is given the trained weight: the bf16 working copy under mixed precision
    // (2 B a parameter), the weight itself in fp32 training (4 B).
    let one = "model=qwen3-4b&method=full&seq=4096&gc=1&loss=fused";
    assert_eq!(logits(&format!("{one}&kernels=liger")) - logits(one), 151_936 * 2_560 * 2);
    let fp32 = format!("{one}&precision=fp32");
    assert_eq!(logits(&format!("{fp32}&kernels=liger")) - logits(&fp32), 151_936 * 2_560 * 4);
    // A frozen head (LoRA) gets no gradient.
    let lora = "model=qwen3-4b&method=lora&seq=4096&gc=1&loss=fused";
    assert_eq!(logits(&format!("{lora}&kernels=liger")), logits(lora));
}

/// Megatron's residual dropout (`hidden_dropout`, 0.1 by default) keeps each block's mask, 1 B per
/// element, where the norms' tensors are: replicated over tensor parallel, ÷ tp with sequence
/// parallel. By hand for Megatron-LM's 7B test model (32 layers, hidden 4,096) at 8,192 tokens ×
/// micro-batch 2, TP 4: 2 masks × 4,096 B × 32 layers × 16,384 tokens = 4 GiB more, 1 GiB with SP;
/// Llama-3.2-1B on one GPU (16 layers, hidden 2,048, 2,048 tokens): 2 × 2,048 × 16 × 2,048 B. A
/// generate() bill runs in eval mode: no change.
#[test]
fn hidden_dropout_keeps_its_masks_in_training_only() {
    let activations = |q: &str| bill(q).component(ComponentId::Activations);
    let gpt = "model=custom&layers=32&hidden=4096&heads=32&kv_heads=8&head_dim=128&ffn=16384&vocab=131200&tied=0&mlp=gelu&norm=layer&method=full&framework=megatron&seq=8192&batch=2&tp=4&dp=2&microbatches=2&gpu=h100-80g";
    let with = |q: &str| format!("{q}&hidden_dropout=0.1");
    assert_eq!(activations(&with(gpt)) - activations(gpt), 2 * 4096 * 32 * 16384);
    let sp = format!("{gpt}&sp=1");
    assert_eq!(activations(&with(&sp)) - activations(&sp), 2 * 4096 * 32 * 16384 / 4);
    let one = "model=llama-3.2-1b&method=full&seq=2048&gc=0";
    assert_eq!(activations(&with(one)) - activations(one), 2 * 2048 * 16 * 2048);
    let infer = "model=llama-3.2-1b&mode=infer&seq=2048";
    assert_eq!(
        estimate(&query::parse(&with(infer)).scenario).device_bytes(),
        estimate(&query::parse(infer).scenario).device_bytes()
    );
    // The link keeps it, and names the preset modified.
    let s = query::parse(&with(one)).scenario;
    assert!(query::to_query(&s, &[]).contains("hidden_dropout=0.1"));
    assert!(query::parse("model=llama-3.2-1b&hidden_dropout=1.5").errors.len() == 1);
}

/// verl's Megatron GRPO with vLLM on the same GPUs, as ISEEKYAN/verl_megatron_practice ran it on
/// 8 H100s (grpo_qwen2.5_7b.csv @ dfd811a, script GRPO_7B/qwen2.5_7b_megatron_vllm_benchmark.sh:
/// Qwen2.5-7B, prompts of 2k and responses of 8k, micro-batch 2, KL loss 0.001 with its reference,
/// vLLM at tp 1, `free_cache_engine`, Megatron's distributed optimizer; "Offload" = verl's
/// param, grad and optimizer offload). The rows that ran out of memory did so in the rollout,
/// whatever the responses' lengths: the trainer's states beside the engine's share of the card
/// (rows 4, 5, 10, 11). The rows that ran fit at the length cap (rows 3, 6, 7, 12). Row 9 (tp 2,
/// offload, no recompute) ran too, where the bill at the cap does not fit: its backward holds 2 ×
/// 10,240 tokens of every layer, and the run's responses (MATH) were shorter than the cap.
#[test]
fn verl_s_megatron_grpo_runs_out_of_memory_where_its_rollout_does_not_fit() {
    use vram_ledger::ledger::bill::{Timeline, TotalKind};
    use vram_ledger::ledger::phases::PhaseName;
    let base = "model=qwen2.5-7b&method=full&framework=megatron&objective=grpo&rollout=colocate&sleep=1&dist_optim=1&batch=2&logprob_batch=4&prompt_len=2048&completion_len=8192&beta=0.001&gpu=h100-80g";
    let rollout_device = |b: &Bill| match &b.timeline {
        Timeline::Phases(p) => p.iter().find(|p| p.name == PhaseName::Rollout).map(|p| p.total(TotalKind::Device)),
        _ => None,
    };
    for (row, grid) in [
        (4, "tp=2&cp=2&dp=2&gc=0&rollout_util=0.8"),
        (5, "tp=2&cp=2&dp=2&gc=0&rollout_util=0.5"),
        (10, "tp=2&dp=4&gc=0&rollout_util=0.6"),
        (11, "tp=2&dp=4&gc=1&rollout_util=0.6"),
    ] {
        let b = bill(&format!("{base}&{grid}"));
        let rollout = rollout_device(&b).expect("a rollout phase");
        assert!(rollout > b.gpu_bytes, "row {row}: the rollout needs {rollout} of {}", b.gpu_bytes);
    }
    for (row, grid) in [
        (3, "tp=4&cp=2&gc=0&rollout_util=0.6"),
        (6, "tp=2&cp=2&dp=2&gc=0&rollout_util=0.5&rollout_offload=all"),
        (7, "tp=4&dp=2&gc=0&rollout_util=0.6"),
        (12, "tp=2&dp=4&gc=1&rollout_util=0.6&rollout_offload=all"),
    ] {
        let b = bill(&format!("{base}&{grid}"));
        assert!(b.device_bytes() <= b.gpu_bytes, "row {row}: {} of {}", b.device_bytes(), b.gpu_bytes);
    }
    let row9 = bill(&format!("{base}&tp=2&dp=4&gc=0&rollout_util=0.6&rollout_offload=all"));
    assert!(rollout_device(&row9).is_some_and(|r| r <= row9.gpu_bytes) && row9.device_bytes() > row9.gpu_bytes);
}
