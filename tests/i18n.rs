//! No mixed-language screens: every formula and note of many scenarios, localized to Chinese,
//! leaves no English word except identifiers, dtypes, units and framework names.

use vram_ledger::i18n::{localize_formula, Lang};
use vram_ledger::ledger::estimate;
use vram_ledger::query;

/// Words that stay as they are in Chinese technical writing.
const ALLOWED: &[&str] = &[
    "B", "bit", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "bf", "fp", "nf", "int", "NF", "GGUF", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0",
    "GPTQ", "AWQ", "g128", "LLM", "int8", "LM", "head", "embedding", "norm", "logits", "log-softmax", "KV", "MLP", "CUDA",
    "cuBLAS", "NCCL", "kernel", "overhead_mib", "AdamW", "SGD", "Adafactor", "foreach", "DDP", "ZeRO-", "ZeRO", "GPU", "torch",
    "nvidia-smi", "no_grad", "loss", "item", "eval", "eager", "prefill", "bitsandbytes", "absmax", "patch", "block", "token",
    "quant", "QLoRA", "LoRA", "q4_k_m", "q5_k_m", "q6_k", "q8_0", "llama", "cpp", "px", "batch", "micro-batch", "micro", "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "fc", "shared_expert", "d_in", "d_out", "head_dim",
    "ffn", "r", "m", "v", "s", "max", "lora", "qlora", "full", "mixed", "fp32", "bf16", "nf4", "gptq4", "awq4", "int4", "fp8", "fp16",
    "hf", "hf_shift", "chunked", "fused",
];

#[test]
fn chinese_formulas_have_no_english_words_left() {
    let queries = [
        "", "method=full", "method=qlora", "mode=infer", "mode=infer&quant=nf4&gpus=2", "method=full&gpus=4&zero=3&optim=adafactor",
        "method=full&precision=fp32&optim=sgdm&gpus=2", "model=qwen2-vl-7b&images=2", "drill=no_grad,tensor_list,fp32_module,zombie",
        "attn=eager&gc=0", "mode=infer&quant=q4_k_m", "mode=infer&quant=int8", "mode=infer&quant=gptq4&kv=int4&gen=100", "optim=adamw8bit",
        "optim=sgd", "method=full&precision=bf16", "method=qlora&dq=0", "model=mixtral-8x7b&method=lora", "model=gpt2&method=full",
        "method=full&quant=nf4", "method=lora&quant=q4_k_m", "method=qlora&quant=bf16", "accum=8&gpus=2",
        "loss=hf_shift", "loss=chunked", "loss=fused&method=full",
    ];
    for q in queries {
        let bill = estimate(&query::parse(q).scenario);
        let texts: Vec<(String, String)> = bill
            .components
            .iter()
            .map(|c| (c.id.id().to_string(), c.formula.to_string()))
            .chain(bill.notes.iter().map(|n| (n.key.to_string(), n.text.clone())))
            .collect();
        for (id, text) in &texts {
            let zh = localize_formula(Lang::Zh, text);
            for word in zh.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')) {
                let w = word.trim_matches('-');
                if w.is_empty() || w.chars().all(|ch| ch.is_ascii_digit()) || !w.chars().any(|ch| ch.is_ascii_alphabetic()) {
                    continue;
                }
                let base = w.trim_end_matches(|ch: char| ch.is_ascii_digit());
                assert!(
                    ALLOWED.contains(&w) || ALLOWED.contains(&base),
                    "{q}: {id} leaves {w:?} in: {zh}"
                );
            }
        }
    }
    assert_eq!(localize_formula(Lang::En, "12 params × 2 B"), "12 params × 2 B");
    assert_eq!(localize_formula(Lang::Zh, "12 params × 2 B"), "12 个参数 × 2 B");
}

/// The query parser's notices in Chinese: no English left outside the user's own quoted text.
#[test]
fn chinese_notices_have_no_english_words_left() {
    use vram_ledger::i18n::localize_notice;
    let p = query::parse("seq=0&vram=-1&gc=yes&quant=int3&model=llama-9&drill=oops&heads=8&kv_heads=16&colour=red");
    let messages: Vec<String> = p.errors.iter().chain(p.warnings.iter()).map(|e| e.message.clone()).collect();
    assert!(messages.len() >= 8, "{messages:?}");
    for m in messages {
        let zh = localize_notice(Lang::Zh, &m);
        let outside: String = zh.split('`').enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, s)| s).collect::<Vec<_>>().join(" ");
        // The lists of accepted values are ids (bf16, rtx4090, qwen2.5-7b …): drop them ("可选值:" / "可选:").
        let prose = outside.split("可选").next().unwrap_or("");
        for word in prose.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            assert!(
                word.is_empty() || word.chars().all(|c| c.is_ascii_digit()) || ["heads", "kv_heads"].contains(&word),
                "{m} → {zh}: {word:?}"
            );
        }
        assert_eq!(localize_notice(Lang::En, &m), m);
    }
    assert!(localize_notice(Lang::Zh, "`seq=0` is not accepted: a whole number from 1 to 100000000").contains("`seq=0`"));
}
