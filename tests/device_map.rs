//! `generate()` over several GPUs as transformers runs it (issue 30): `engine=hf` with `pp` is
//! `from_pretrained(device_map="auto")`. Expected figures are hand arithmetic from the rules read
//! in accelerate and transformers (src/ledger/device_map.rs, docs/research/transformers-inference-by-release.md
//! "device_map over several GPUs"): accelerate's balanced split, one layer's working set on every
//! GPU, and before transformers 4.45 the prompt's fp32 logits returned to the first GPU.

use vram_ledger::ledger::bill::{Bill, ComponentId, PhaseName, TotalKind};
use vram_ledger::ledger::{estimate, phases};
use vram_ledger::query;

fn bill(q: &str) -> Bill {
    let parsed = query::parse(q);
    assert!(parsed.errors.is_empty(), "{q}: {:?}", parsed.errors);
    estimate(&parsed.scenario)
}

fn phase(b: &Bill, name: PhaseName) -> (u64, u64) {
    let phases = phases::of(b);
    let p = phases.iter().find(|p| p.name == name).expect("the phase exists");
    (p.total(TotalKind::Allocated), p.bytes(ComponentId::Logits))
}

const QWEN_72B: &str =
    "model=qwen2.5-72b&mode=infer&engine=hf&quant=bf16&attn=flash&batch=1&seq=30720&gen=2048&gpu=a100-80g";

// Qwen2.5-72B's parts in bf16, by hand from its shape (80 layers, hidden 8192, 64 heads, 8 KV
// heads of 128, q/k/v biases, ffn 29,568, vocab 152,064, untied):
/// One decoder layer: q and o 8192² each, k and v 8192 × 1024 each, their biases 8192 + 2 × 1024,
/// the MLP 3 × 8192 × 29,568, two norms of 8192 — 877,684,736 parameters.
const LAYER: u64 = 877_684_736 * 2;
/// The embedding, 152,064 × 8192.
const EMBEDDING: u64 = 1_245_708_288 * 2;
/// The LM head and the final norm.
const HEAD: u64 = (1_245_708_288 + 8192) * 2;
/// One layer's RoPE tables in transformers before 4.45 (cos and sin over 32,768 positions × 128, bf16).
const TABLES_PER_LAYER: u64 = 2 * 32_768 * 128 * 2;
/// The prompt's cache: 2 × 80 layers × 8 heads × 128 × 30,720 tokens × 2 B.
const KV_PROMPT: u64 = 2 * 80 * 8 * 128 * 30_720 * 2;

#[test]
fn accelerate_balances_the_layers_over_the_gpus() {
    // get_balanced_memory: every GPU but the last gets total / 3 + 1.25 × a layer
    // (48,470,802,432 + 2,194,211,840 B); the first keeps room for the largest module, the LM head
    // (2,491,432,960 B): after the embedding, (48,173,581,312 − 2,491,416,576) / LAYER = 26.02 →
    // 26 layers; the second 50,665,014,272 / LAYER = 28.86 → 28; the last the 26 left and the head.
    assert_eq!(EMBEDDING + 80 * LAYER + HEAD, 72_706_203_648 * 2, "the parts add up to the model");
    let b = bill(&format!("{QWEN_72B}&pp=3"));
    let p = b.parallel.as_ref().expect("a device map lists its GPUs");
    let layers: Vec<u64> = p.ranks.iter().map(|r| r.layers).collect();
    assert_eq!(layers, [26, 28, 26]);
    let weights: Vec<u64> = p.ranks.iter().map(|r| r.weights_bytes).collect();
    assert_eq!(weights, [EMBEDDING + 26 * LAYER, 28 * LAYER, 26 * LAYER + HEAD]);
}

#[test]
fn every_gpu_of_the_map_runs_its_own_layer_working_set() {
    // transformers 4.46 projects only the last position: each GPU peaks at its prefill, with its
    // share of the prompt's cache and one layer's working set. Σ over the GPUs = the one-GPU peak
    // (weights + the whole prompt cache + one working set) + two more working sets.
    let whole = bill(&format!("{QWEN_72B}&engine_version=4.46.0"));
    let (one_gpu, _) = phase(&whole, PhaseName::Prefill);
    let working_set = whole.component(ComponentId::Activations) as f64
        + whole.component(ComponentId::KvCache) as f64
        + whole.component(ComponentId::Logits) as f64
        - KV_PROMPT as f64;
    let map = bill(&format!("{QWEN_72B}&engine_version=4.46.0&pp=3"));
    let sum = map.parallel.as_ref().map_or(0, |p| p.allocated_sum()) as f64;
    let expected = one_gpu as f64 + 2.0 * working_set;
    assert!((sum - expected).abs() < 4096.0, "{sum} vs {expected}");
    assert!(map.notes.iter().any(|n| n.key == "device_map"));
}

#[test]
fn before_4_45_the_first_gpu_receives_the_prompt_logits() {
    // transformers 4.38: the last GPU projects every prompt position (2 B + the fp32 upcast 4 B);
    // accelerate's root hook (io_same_device) returns the fp32 logits to the first GPU, where the
    // previous step's outputs keep them through the first decoding step beside the prompt's cache
    // twice (the old tuple and the new one; no `del outputs` before 4.42).
    let b = bill(&format!("{QWEN_72B}&engine_version=4.38.2&pp=3"));
    let p = b.parallel.as_ref().expect("a device map lists its GPUs");
    let logits = 30_720u64 * 152_064;
    let first_share = KV_PROMPT * 26 / 80;
    // transformers 4.38's Qwen2 keeps RoPE tables in every layer: 2 × 32,768 positions × 128 × 2 B.
    let tables = 26 * TABLES_PER_LAYER;
    let first = EMBEDDING + 26 * LAYER + tables + 2 * first_share + 4 * logits;
    let last = 26 * LAYER + HEAD + tables + first_share + 6 * logits;
    let near = |got: u64, want: u64| (got as f64 - want as f64).abs() < 4096.0;
    assert!(near(p.ranks[0].allocated_bytes, first), "{} vs {first}", p.ranks[0].allocated_bytes);
    assert!(near(p.ranks[2].allocated_bytes, last), "{} vs {last}", p.ranks[2].allocated_bytes);
    // The bill is the GPU that needs the most: the last.
    assert_eq!((p.worst_stage, p.billed_stage), (2, 2));
    assert!(near(b.allocated_bytes(), last));
    // `stage` picks another.
    let b = bill(&format!("{QWEN_72B}&engine_version=4.38.2&pp=3&stage=0"));
    assert!(near(b.allocated_bytes(), first));
}

#[test]
fn before_4_45_the_prefill_phase_holds_the_prompt_logits_and_the_decode_does_not() {
    // Qwen2.5-0.5B on transformers 4.38: the prefill's end holds every prompt position's logits
    // (6 B each: 6,144 × 151,936 × 6 = 5,601,042,432 B, the prompt's cache beside them); a decoding
    // step holds the fp32 part (4 B each) the previous outputs keep, not the 16-bit output.
    let b = bill("model=qwen2.5-0.5b&mode=infer&engine=hf&engine_version=4.38.2&quant=bf16&attn=flash&seq=6144&gen=2048&gpu=a100-80g");
    let (prefill, prefill_logits) = phase(&b, PhaseName::Prefill);
    let (decode, decode_logits) = phase(&b, PhaseName::Decode);
    assert_eq!(prefill_logits, 6_144 * 151_936 * 6);
    assert_eq!(decode_logits, 6_144 * 151_936 * 4);
    assert!(prefill > decode);
    assert_eq!(b.allocated_bytes(), prefill, "the bill is its peak phase");
}

#[test]
fn hostile_maps_do_not_break() {
    for q in [
        "model=qwen2.5-0.5b&mode=infer&engine=hf&seq=1024&gen=16&pp=1024",
        "model=qwen2.5-0.5b&mode=infer&engine=hf&seq=1024&gen=16&pp=1024&stage=1023",
        "model=qwen2.5-72b&mode=infer&engine=hf&seq=1&gen=0&pp=7&stage=6",
        "model=gemma-3-27b&mode=infer&engine=hf&engine_version=4.40&seq=100000&gen=8&pp=5",
    ] {
        let b = bill(q);
        let p = b.parallel.as_ref().expect("a device map");
        assert!(p.ranks.len() as u64 <= 1024);
        let sum = p.allocated_sum();
        assert!(sum >= b.allocated_bytes(), "{q}: the sum holds the billed GPU");
        assert!(b.device_bytes() > 0 && (b.device_bytes() as f64).is_finite(), "{q}");
        // Every layer is on exactly one GPU.
        let layers: u64 = p.ranks.iter().map(|r| r.layers).sum();
        let parsed = query::parse(q);
        assert_eq!(layers, parsed.scenario.architecture.layers, "{q}");
    }
}

#[test]
fn every_layer_s_cache_is_on_one_gpu_of_the_map() {
    // Each GPU caches its own layers: the map's cache lines add up to the one-GPU cache, for
    // sliding-window layers (Gemma 3: a window of 1,024 tokens on five layers of six) and
    // linear-attention layers (Qwen3-Next: a fixed state on three layers of four) too.
    for model in ["gemma-3-27b", "qwen3-next-80b-a3b", "llama-3.1-8b"] {
        let q = format!("model={model}&mode=infer&engine=hf&quant=bf16&attn=flash&seq=32768&gen=1024&gpu=h100-80g");
        let whole = bill(&q).component(ComponentId::KvCache) as f64;
        let pp = 3;
        let mut sum = 0.0;
        for stage in 0..pp {
            let b = bill(&format!("{q}&pp={pp}&stage={stage}"));
            assert_eq!(b.parallel.as_ref().map(|p| p.billed_stage), Some(stage));
            sum += b.component(ComponentId::KvCache) as f64;
        }
        assert!((sum - whole).abs() <= 4.0, "{model}: {sum} vs {whole}");
    }
}

#[test]
fn a_gpu_caches_what_its_own_layers_keep() {
    // Qwen3-Next-80B-A3B, one token: every fourth layer (3, 7, …, 47) is full attention, 2 × 2 KV
    // heads × 256 × 2 B = 2,048 B per token; the other 36 keep a fixed linear-attention state,
    // 32 × 128 × 128 × 4 B (fp32) + the convolution's 8,192 channels × 4 taps × 2 B = 2,162,688 B.
    // Over 5 GPUs the stages hold unequal mixes, so a GPU's cache is its own layers', not its share
    // of the layer count.
    let q = "model=qwen3-next-80b-a3b&mode=infer&engine=hf&quant=bf16&seq=1&gen=0&gpu=h100-80g&pp=5";
    let layers: Vec<u64> =
        bill(q).parallel.as_ref().map(|p| p.ranks.iter().map(|r| r.layers).collect()).unwrap_or_default();
    assert_eq!(layers.iter().sum::<u64>(), 48);
    let mut start = 0;
    let mut shares_differ = false;
    for (stage, n) in layers.iter().enumerate() {
        let full = (start..start + n).filter(|l| l % 4 == 3).count() as u64;
        let expected = full * 2_048 + (n - full) * 2_162_688;
        let got = bill(&format!("{q}&stage={stage}")).component(ComponentId::KvCache);
        assert!(got.abs_diff(expected) <= 2, "stage {stage}: {got} vs {expected}");
        shares_differ |= full * 4 != *n;
        start += n;
    }
    assert!(shares_differ, "the split puts an uneven mix on some GPU (else this test shows nothing)");
}

#[test]
fn the_json_lists_every_gpu_and_their_sum() {
    // The `parallel` object of a device map: no pipeline schedule, each GPU's allocated and device
    // bytes, and `allocated_sum` = Σ allocated_bytes (what benchmarks that sum the GPUs print).
    let q = format!("{QWEN_72B}&engine_version=4.46.0&pp=3");
    let s = query::parse(&q).scenario;
    let b = estimate(&s);
    let j = vram_ledger::report::to_json(&s, &b);
    let p = &j["parallel"];
    assert_eq!(p["pp"], 3);
    assert!(p["schedule"].is_null(), "a device map has no pipeline schedule");
    let ranks = p["ranks"].as_array().expect("ranks");
    assert_eq!(ranks.len(), 3);
    let mut sum = 0;
    for r in ranks {
        let (allocated, device) = (r["allocated_bytes"].as_u64().unwrap_or(0), r["device_bytes"].as_u64().unwrap_or(0));
        // Each GPU's device total is its allocated bytes, the 3 % slack and the CUDA context.
        assert!(device > allocated && allocated > 0);
        sum += allocated;
    }
    assert_eq!(p["allocated_sum"].as_u64(), Some(sum));
    // The worst GPU is the one billed (its total in floating point; the bill's lines are each
    // rounded to whole bytes).
    let worst = p["worst_rank"]["bytes"].as_u64().unwrap_or(0);
    assert!(worst.abs_diff(b.device_bytes()) <= 8, "{worst} vs {}", b.device_bytes());
    // One GPU: no parallel object.
    let one = query::parse(QWEN_72B).scenario;
    assert!(vram_ledger::report::to_json(&one, &estimate(&one))["parallel"].is_null());
}

#[test]
fn fit_finds_the_fewest_gpus_a_device_map_needs() {
    use vram_ledger::ledger::bill::Verdict;
    use vram_ledger::ledger::fit;
    // Qwen2.5-72B in bf16 (145.4 GB of weights) on 24 GB cards: the fewest GPUs whose every bill is
    // inside the 20 % margin — one fewer leaves some GPU outside it.
    let q = "model=qwen2.5-72b&mode=infer&engine=hf&seq=8192&gen=1024&gpu=rtx4090";
    let s = query::parse(q).scenario;
    let n = fit::fewest_device_map_gpus(&s).expect("a few 24 GB cards serve it");
    assert!(n > 145_412_407_296 / (24 << 30), "at least the weights' share of the cards");
    assert_eq!(bill(&format!("{q}&pp={n}")).verdict(), Verdict::Fits);
    assert_ne!(bill(&format!("{q}&pp={}", n - 1)).verdict(), Verdict::Fits);
    // Before transformers 4.45 the GPU with the LM head holds every prompt position's logits:
    // 30,000 × 152,064 × (2 + 4) B = 27.4 GB, more than a 24 GB card, however many GPUs share the rest.
    let long = query::parse("model=qwen2.5-72b&mode=infer&engine=hf&engine_version=4.40&seq=30000&gen=16&gpu=rtx4090")
        .scenario;
    assert_eq!(fit::fewest_device_map_gpus(&long), None);
    // Training and the serving engines have no device map.
    assert_eq!(fit::fewest_device_map_gpus(&query::parse("model=qwen2.5-72b&method=lora").scenario), None);
    assert_eq!(fit::fewest_device_map_gpus(&query::parse("model=qwen2.5-72b&mode=infer&engine=vllm").scenario), None);
}

#[test]
fn a_card_smaller_than_the_balanced_share_is_filled_and_the_last_takes_the_rest() {
    // get_balanced_memory caps each GPU but the last at its free memory: Qwen2.5-72B's balanced
    // share over 4 GPUs (36.4 GB + 1.25 layers) is more than a 24 GB card, so the first three take
    // what their cards hold (the first less the room kept for the LM head) and the last the rest —
    // over its card, where accelerate would offload to the CPU.
    let b = bill("model=qwen2.5-72b&mode=infer&engine=hf&seq=8192&gen=64&gpu=rtx4090&pp=4");
    let p = b.parallel.as_ref().expect("a device map");
    let card = 24_564u64 << 20;
    for r in &p.ranks[..3] {
        assert!(r.weights_bytes < card, "stage {} holds {} B", r.stage, r.weights_bytes);
        assert!(r.weights_bytes + LAYER > card - (1 << 30) - HEAD, "stage {} is filled", r.stage);
    }
    let weights: u64 = p.ranks.iter().map(|r| r.weights_bytes).sum();
    assert!(weights.abs_diff(EMBEDDING + 80 * LAYER + HEAD) < 16);
    assert!(p.ranks[3].weights_bytes > card, "the rest does not fit the last card");
    assert_eq!(p.worst_stage, 3);
}

#[test]
fn each_gpu_in_the_summary_is_the_bill_of_that_gpu() {
    // The `parallel` object's allocated bytes of GPU k are what the bill of `stage=k` adds up to —
    // with what stays beside the moments: bitsandbytes' NF4 dequantization buffer on every GPU that
    // runs layers, a vision tower's working set on the first.
    for q in [
        "model=llama-3.1-70b&mode=infer&engine=hf&quant=nf4&seq=4096&gen=256&gpu=rtx4090&pp=3",
        "model=qwen2.5-vl-7b&mode=infer&engine=hf&images=4&seq=2048&gen=128&gpu=rtx4090&pp=2",
        "model=qwen2.5-72b&mode=infer&engine=hf&engine_version=4.38.2&seq=16384&gen=512&gpu=a100-80g&pp=3",
    ] {
        let ranks = bill(q).parallel.map(|p| p.ranks).unwrap_or_default();
        assert!(ranks.len() > 1, "{q}");
        for r in &ranks {
            let b = bill(&format!("{q}&stage={}", r.stage));
            let got = b.allocated_bytes();
            assert!(got.abs_diff(r.allocated_bytes) <= 8, "{q} stage {}: {got} vs {}", r.stage, r.allocated_bytes);
        }
    }
}

/// The page bills a device map through the reader worker, as a served grid: the decoded bill is
/// the CLI's, `generate()`'s moments included (the page draws its phases from them), and the pp
/// lever's figure is the worst GPU's device bytes over twice the GPUs.
#[test]
fn the_worker_answers_a_device_map_the_page_reads_back() {
    use vram_ledger::readers::{decode, grid, Answer};
    for q in [format!("{QWEN_72B}&pp=2"), format!("{QWEN_72B}&engine_version=4.38.2&pp=3")] {
        let q = q.as_str();
        let local = bill(q);
        let Some(Answer::Grid(g)) = decode(&grid(q)) else { panic!("{q}: no grid answer") };
        let lines = |b: &Bill| b.components.iter().map(|c| (c.id, c.bytes)).collect::<Vec<_>>();
        assert_eq!(lines(&g.bill), lines(&local), "{q}");
        assert_eq!(g.bill.timeline, local.timeline, "{q}: the prefill's and decoding step's moments");
        assert_eq!(g.bill.parallel, local.parallel, "{q}");
        assert_eq!(g.bill.serving, None);
        assert!(g.curve.is_empty(), "generate() has no planner");
        assert_eq!(g.bill.device_bytes(), local.device_bytes());
        let pp = g.levers.iter().find(|(k, _, _)| k == "pp").expect("a pp lever");
        let pp_after = local.parallel.as_ref().map_or(0, |p| p.layout.pp) * 2;
        assert_eq!(pp.1, pp_after.to_string());
        let doubled = format!("{q}&pp={pp_after}").replace(&format!("pp={}&", pp_after / 2), "");
        assert_eq!(pp.2, bill(&doubled).device_bytes(), "{q}");
        assert!(g.levers.iter().all(|(k, _, _)| k == "pp"), "{q}: a device map has no tp or ep lever");
    }
}
