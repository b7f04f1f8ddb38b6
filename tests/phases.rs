//! A bill as the moments of its step (`ledger::phases`): the phases' live sets by hand arithmetic,
//! the peak phase's totals equal to the bill's on every preset and on generated scenarios, and the
//! JSON and CLI forms.

use proptest::prelude::*;
use vram_ledger::ledger::bill::{ComponentId as C, TotalKind};
use vram_ledger::ledger::phases::{self, PhaseName};
use vram_ledger::ledger::{estimate, presets, Bill};
use vram_ledger::query;

fn bill(q: &str) -> Bill {
    let p = query::parse(q);
    assert!(p.errors.is_empty(), "{q}: {:?}", p.errors);
    estimate(&p.scenario)
}

fn totals(b: &Bill) -> (u64, u64, u64) {
    (b.allocated_bytes(), b.reserved_bytes(), b.device_bytes())
}

fn phase_totals(p: &phases::Phase) -> (u64, u64, u64) {
    (p.total(TotalKind::Allocated), p.total(TotalKind::Reserved), p.total(TotalKind::Device))
}

/// Llama-3.1-8B (8,030,261,248 parameters) fully fine-tuned in mixed precision with AdamW on one
/// H100: what stays is 2 + 4 + 8 = 14 B per parameter (bf16 weights, fp32 master copy, two fp32
/// moments); the optimizer step adds every bf16 gradient (2 B) and foreach AdamW's fp32
/// temporaries (4 B): 20 B per parameter, more than backward's start with its activations and
/// logits, so the step is the peak. After `zero_grad` the tensors are back to 14 B per parameter,
/// but the allocator keeps what it reserved.
#[test]
fn full_fine_tuning_peaks_at_the_optimizer_step() {
    let n = 8_030_261_248u64;
    let b = bill("model=llama-3.1-8b&method=full&precision=mixed&optim=adamw&gpu=h100-80g");
    let ph = phases::of(&b);
    let names: Vec<&str> = ph.iter().map(|p| p.name.id()).collect();
    assert_eq!(names, ["load", "forward", "loss", "backward", "optimizer_step", "zero_grad"]);
    assert_eq!(ph[0].total(TotalKind::Allocated), 14 * n);
    assert_eq!(ph[4].total(TotalKind::Allocated), 20 * n);
    assert_eq!((ph[4].bytes(C::Gradients), ph[4].bytes(C::OptimizerStep)), (2 * n, 4 * n));
    assert_eq!(ph[4].bytes(C::Activations), 0, "freed before the step");
    assert!(ph[3].bytes(C::Activations) > 0 && ph[3].bytes(C::Logits) > 0);
    assert_eq!(phases::peak(&ph).map(|p| p.name), Some(PhaseName::OptimizerStep));
    assert_eq!(phase_totals(&ph[4]), totals(&b));
    assert_eq!(ph[5].total(TotalKind::Allocated), 14 * n);
    assert_eq!(ph[5].total(TotalKind::Reserved), ph[4].total(TotalKind::Reserved));
    // The phases grow through forward and the loss to backward's start.
    let allocated: Vec<u64> = ph.iter().map(|p| p.total(TotalKind::Allocated)).collect();
    assert!(allocated[0] < allocated[1] && allocated[1] < allocated[2] && allocated[2] <= allocated[3]);
}

/// QLoRA on a small card peaks at backward's start: the saved activations and the logits
/// outweigh the adapters' few gradients and the step's temporaries.
#[test]
fn qlora_peaks_at_backward_s_start() {
    let b = bill("model=llama-3.1-8b&method=qlora&seq=4096");
    let ph = phases::of(&b);
    let peak = phases::peak(&ph).expect("a peak");
    assert_eq!(peak.name, PhaseName::Backward);
    assert_eq!(phase_totals(peak), totals(&b));
    // The peak holds exactly the bill's lines.
    for c in b.components.iter().filter(|c| c.id.layer() == TotalKind::Allocated) {
        assert_eq!(peak.bytes(c.id), c.bytes, "{:?}", c.id);
    }
}

/// generate() on Llama-3.1-8B, 4 prompts of 8,192 tokens + 512 generated: the prefill holds the
/// prompts' cache, 2 × 32 × 8 × 128 × 8,192 × 4 × 2 B = 4 GiB; the decode the whole cache,
/// (8,192 + 512) tokens: 4.25 GiB, and the last position's logits.
#[test]
fn generate_prefills_then_decodes() {
    let b = bill("model=llama-3.1-8b&mode=infer&seq=8192&gen=512&batch=4");
    let ph = phases::of(&b);
    let names: Vec<&str> = ph.iter().map(|p| p.name.id()).collect();
    assert_eq!(names, ["load", "prefill", "decode"]);
    assert_eq!(ph[1].bytes(C::KvCache), 4 << 30);
    assert_eq!(ph[2].bytes(C::KvCache), (4 << 30) + (1 << 28));
    assert_eq!(ph[1].bytes(C::Logits), 0);
    assert!(ph[2].bytes(C::Logits) > 0);
    assert_eq!(phase_totals(phases::peak(&ph).expect("a peak")), totals(&b));
    // With nothing generated there is no decode; the prompt's logits close the prefill.
    let b = bill("model=llama-3.1-8b&mode=infer&seq=8192");
    let ph = phases::of(&b);
    assert_eq!(ph.iter().map(|p| p.name).collect::<Vec<_>>(), [PhaseName::Load, PhaseName::Prefill]);
    assert_eq!(phase_totals(&ph[1]), totals(&b));
}

/// A tied model whose checkpoint stores its LM head apart (`head_copy=1`, Qwen2.5's official AWQ
/// files): loading holds a second vocab × hidden × 2 B matrix until `from_pretrained` ties the
/// weights, and with a one-token prompt that moment is the peak. Qwen2.5-0.5B: 151,936 × 896 × 2 B =
/// 272,269,312 B (config.json's vocab_size and hidden_size; hand arithmetic).
#[test]
fn loading_holds_a_tied_head_stored_apart() {
    let q = "model=qwen2.5-0.5b&mode=infer&quant=awq4&seq=1&gen=2048&gpu=a100-80g";
    let copied = bill(&format!("{q}&head_copy=1"));
    let ph = phases::of(&copied);
    let weights = copied.components.iter().find(|c| c.id == C::Weights).map_or(0, |c| c.bytes);
    assert_eq!(ph[0].name, PhaseName::Load);
    assert_eq!(ph[0].bytes(C::Weights), weights);
    assert_eq!(ph[0].bytes(C::Activations), 272_269_312);
    assert_eq!(phases::peak(&ph).map(|p| p.name), Some(PhaseName::Load));
    assert_eq!(phase_totals(&ph[0]), totals(&copied));
    assert_eq!(totals(&copied).0, weights + 272_269_312);
    // Without it loading holds the weights alone and the decoding step is the peak.
    let plain = bill(q);
    let ph = phases::of(&plain);
    assert_eq!(ph[0].bytes(C::Activations), 0);
    assert_eq!(phases::peak(&ph).map(|p| p.name), Some(PhaseName::Decode));
    assert!(totals(&plain).0 < totals(&copied).0);
    // A long prompt's moments are larger than the copy: the peak is generate()'s, as without it.
    let long = "model=qwen2.5-0.5b&mode=infer&quant=awq4&seq=30720&gen=2048&gpu=a100-80g";
    assert_eq!(totals(&bill(&format!("{long}&head_copy=1"))), totals(&bill(long)));
    // An untied model's head is a weight of its own: nothing is stored apart.
    let untied = "model=qwen2.5-7b&mode=infer&quant=awq4&seq=1&gen=16&gpu=a100-80g";
    assert_eq!(totals(&bill(&format!("{untied}&head_copy=1"))), totals(&bill(untied)));
}

/// AutoGPTQ's exllama kernels keep buffers on each GPU from the end of loading on (AutoGPTQ 0.5–0.7.1
/// `autogptq_post_init`). Llama-2-13B's largest layer is gate_proj / up_proj, 5,120 → 13,824 (hand
/// arithmetic): exllama's fp16 dequantization buffer 5,120 × 13,824 × 2 B = 141,557,760 B;
/// exllamav2's scratch that + 128 + a forward buffer 13,824 × 2,048 × 8 × 4 B + 128 = 1,047,527,680 B
/// (down_proj's would be 141,557,760 + 5,120 × 65,536 + 256 = 477,102,336 B), at any batch.
#[test]
fn exllama_buffers_stay_from_the_end_of_loading() {
    let q = "model=llama-2-13b&mode=infer&engine_version=4.35&quant=gptq4&attn=eager&seq=512&gen=512&gpu=a100-80g";
    let buffer = |b: &Bill| b.components.iter().filter(|c| c.id == C::DequantBuffer).map(|c| c.bytes).sum::<u64>();
    for batch in [1, 16] {
        let v2 = bill(&format!("{q}&batch={batch}&exllama=2"));
        assert_eq!(buffer(&v2), 1_047_527_680, "batch {batch}");
        let ph = phases::of(&v2);
        assert_eq!(ph[0].bytes(C::DequantBuffer), 0, "not while loading");
        assert_eq!(ph[1].bytes(C::DequantBuffer), 1_047_527_680);
        assert_eq!(phase_totals(phases::peak(&ph).expect("a peak")), totals(&v2));
        let plain = bill(&format!("{q}&batch={batch}&exllama=0"));
        assert_eq!(buffer(&plain), 0);
        assert_eq!(totals(&v2).0, totals(&plain).0 + 1_047_527_680);
    }
    assert_eq!(buffer(&bill(&format!("{q}&exllama=1"))), 141_557_760);
    // transformers 4.35's default (`exllama_config={"version": 1}`): exllama's buffer.
    assert_eq!(buffer(&bill(q)), 141_557_760);
    // Only GPTQ weights run on it.
    assert_eq!(buffer(&bill("model=llama-2-13b&mode=infer&seq=512&exllama=2")), 0);
}

/// A serving engine: loading, profiling, capturing graphs, then the pool; serving is the peak.
#[test]
fn an_engine_starts_up_then_serves() {
    for engine in ["vllm", "sglang", "llamacpp"] {
        let b = bill(&format!("model=qwen3-8b&mode=infer&engine={engine}&seq=8192&gpu=h100-80g"));
        let ph = phases::of(&b);
        let names: Vec<&str> = ph.iter().map(|p| p.name.id()).collect();
        assert_eq!(names, ["load", "profile", "cuda_graphs", "serving"], "{engine}");
        assert_eq!(phases::peak(&ph).map(|p| p.name), Some(PhaseName::Serving), "{engine}");
        assert_eq!(phase_totals(&ph[3]), totals(&b), "{engine}");
        assert!(ph[0].total(TotalKind::Device) <= ph[1].total(TotalKind::Device));
    }
}

/// The peak phase's totals are the bill's, on every preset in nine configurations: on a Megatron
/// grid too, whose gradient buffer is allocated with the model and whose DPO reference stays.
#[test]
fn every_preset_s_peak_phase_is_its_bill() {
    let configs = [
        "method=qlora",
        "method=lora&seq=4096",
        "method=full&gpus=8&zero=3",
        "method=full&gpus=2",
        "mode=infer&seq=8192&batch=4&gen=256",
        "mode=infer&engine=vllm",
        "mode=infer&engine=sglang&gpu=h100-80g",
        "method=full&tp=2&pp=2&dp=2&dist_optim=1&objective=dpo&gpu=h100-80g",
        "method=lora&tp=2&ep=2&gpu=h100-80g",
    ];
    for m in presets::models() {
        for c in configs {
            let b = bill(&format!("model={}&{c}", m.id));
            let ph = phases::of(&b);
            let peak = phases::peak(&ph).expect("a peak");
            assert_eq!(phase_totals(peak), totals(&b), "{} {c}: {}", m.id, peak.name.id());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// On arbitrary links the peak phase's totals are the bill's, and no phase allocates more.
    #[test]
    fn the_peak_phase_is_the_bill(keys in prop::collection::vec((0..7usize, 0..6usize), 1..8)) {
        let choices: [(&str, &[&str]); 7] = [
            ("method", &["full", "lora", "qlora", "full", "lora", "qlora"]),
            ("seq", &["128", "2048", "8192", "32768", "512", "100000"]),
            ("batch", &["1", "2", "8", "32", "4", "1"]),
            ("gc", &["0", "1", "reentrant", "sac", "0", "1"]),
            ("gpus", &["1", "2", "8", "8", "4", "1"]),
            ("zero", &["0", "1", "2", "3", "3", "0"]),
            ("optim", &["adamw", "adamw8bit", "sgd", "adafactor", "sgdm", "adamw"]),
        ];
        let q: Vec<String> = keys.iter().map(|&(k, v)| format!("{}={}", choices[k].0, choices[k].1[v])).collect();
        let b = bill(&format!("model=qwen3-8b&{}", q.join("&")));
        let ph = phases::of(&b);
        let peak = phases::peak(&ph).expect("a peak");
        prop_assert_eq!(phase_totals(peak), totals(&b), "{:?} peak {}", q, peak.name.id());
        prop_assert!(ph.iter().all(|p| p.total(TotalKind::Allocated) <= b.allocated_bytes()));
    }
}

/// `--json` carries `phases` in time order and `peak_phase`; `--phases` prints them with the peak.
#[test]
fn json_and_cli_show_the_phases() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vram-ledger"))
        .args(["--json", "model=llama-3.1-8b&method=qlora"])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let phases = v["phases"].as_array().expect("phases");
    let names: Vec<&str> = phases.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["load", "forward", "loss", "backward", "optimizer_step", "zero_grad"]);
    let peak = v["peak_phase"].as_str().expect("peak_phase");
    let at_peak = phases.iter().find(|p| p["name"] == peak).expect("the peak is a phase");
    for key in ["allocated_bytes", "reserved_bytes", "device_bytes"] {
        assert_eq!(at_peak[key], v[key], "{key}");
    }
    let sum: u64 = at_peak["components"].as_object().expect("components").values().filter_map(|b| b.as_u64()).sum();
    assert_eq!(sum, v["device_bytes"].as_u64().expect("device"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vram-ledger"))
        .args(["--phases", "model=llama-3.1-8b&method=qlora"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("peak phase: backward"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("backward") && l.ends_with("← peak")), "{text}");
}
