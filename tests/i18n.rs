//! No mixed-language screens: every template has an English and a Chinese text with the same
//! placeholders, and no Chinese text leaves an English word except identifiers, dtypes, units and
//! framework names — checked on the templates themselves and on the rendered formulas, notes and
//! notices of many scenarios.

use vram_ledger::i18n::{render, template, Lang};
use vram_ledger::ledger::estimate;
use vram_ledger::ledger::msg::{Msg, MsgId};
use vram_ledger::query;

/// Words that stay as they are in Chinese technical writing.
const ALLOWED: &[&str] = &[
    "B",
    "bit",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
    "PiB",
    "EiB",
    "bf",
    "fp",
    "nf",
    "int",
    "NF",
    "GGUF",
    "Q4_K_M",
    "Q5_K_M",
    "Q6_K",
    "Q8_0",
    "GPTQ",
    "AWQ",
    "g128",
    "LLM",
    "int8",
    "LM",
    "head",
    "embedding",
    "norm",
    "logits",
    "log-softmax",
    "KV",
    "MLP",
    "CUDA",
    "cuBLAS",
    "NCCL",
    // NVIDIA product names without a Chinese one: the NVSwitch fabric, its NVLS (NVLink SHARP), the
    // Hopper architecture.
    "NVSwitch",
    "NVLS",
    "Hopper",
    "kernel",
    "overhead_mib",
    "AdamW",
    "SGD",
    "Adafactor",
    "foreach",
    "DDP",
    "ZeRO-",
    "ZeRO",
    "GPU",
    "CPU",
    "APU",
    "MIG",
    "torch",
    // A user's trace: PyTorch's file and tool names that Chinese writers keep in English.
    "trace",
    "pickle",
    "profiler",
    "gzip",
    "Chrome",
    "UTF-8",
    "GLOBAL",
    "nvidia-smi",
    "no_grad",
    "loss",
    "item",
    "eval",
    "eager",
    "prefill",
    "bitsandbytes",
    "absmax",
    "patch",
    "block",
    "token",
    "quant",
    "QLoRA",
    "LoRA",
    "q4_k_m",
    "q5_k_m",
    "q6_k",
    "q8_0",
    "llama",
    "cpp",
    "px",
    "batch",
    "micro-batch",
    "micro",
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
    "fc",
    "shared_expert",
    "d_in",
    "d_out",
    "head_dim",
    "ffn",
    "r",
    "m",
    "v",
    "s",
    "max",
    "lora",
    "qlora",
    "full",
    "mixed",
    "fp32",
    "bf16",
    "nf4",
    "gptq4",
    "awq4",
    "int4",
    "fp8",
    "fp16",
    "hf",
    "hf_shift",
    "chunked",
    "fused",
    "config",
    "json",
    "JSON",
    "true",
    "false",
    "model_type",
    "custom",
    "model",
    "kv_heads",
    "heads",
    "active_experts",
    "experts",
    "hidden_size",
    "num_attention_heads",
    "num_experts_per_tok",
    "num_local_experts",
    "tanh",
    "HTTP",
    "MB",
    "id",
    "gated",
    "ModelScope",
    "Hub",
    "https",
    "hf-mirror",
    "com",
    "Qwen",
    "Qwen3-8B",
    "tool",
    "vram-ledger",
    "mem_report",
    "tools",
    "mem_report.py",
    "py",
    "version",
    "bytes",
    "null",
    "JSON",
    "K",
    "V",
    "B/token",
    "MXFP4",
    "E8M0",
    "NVFP4",
    "FP8",
    "W4A16",
    "W8A8",
    "MoE",
    "Llama",
    "RMSNorm",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "F",
    "S",
    "C",
    "L",
    "head_dim",
    "conv",
    "fp8_block",
    "mxfp4",
    "nvfp4",
    "Apple",
    "Metal",
    "PyTorch",
    "MPS",
    "GB",
    "vLLM",
    "SGLang",
    "Mac",
    "Ollama",
    "x",
    "cache",
    "graphs",
    "all-reduce",
    // LoRA's two low-rank matrices, A and B.
    "A",
    // The chapter's own word for it (§3, §5).
    "OOM",
];

/// The English words of `text` (outside `{n}` placeholders and `code spans`, which quote
/// identifiers and error messages as the program prints them) that are not allowed.
fn english_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let prose: String = text.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    for word in prose.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')) {
        let w = word.trim_matches('-');
        if w.is_empty() || !w.chars().any(|ch| ch.is_ascii_alphabetic()) {
            continue;
        }
        let base = w.trim_end_matches(|ch: char| ch.is_ascii_digit());
        if !(ALLOWED.contains(&w) || ALLOWED.contains(&base)) {
            out.push(w.to_string());
        }
    }
    out
}

fn placeholders(t: &str) -> Vec<usize> {
    let mut found: Vec<usize> =
        t.split('{').skip(1).filter_map(|rest| rest.split_once('}').and_then(|(n, _)| n.parse().ok())).collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// Every template renders in both languages with the same arguments.
#[test]
fn every_template_has_both_texts_with_the_same_placeholders() {
    for &id in MsgId::ALL {
        let (en, zh) = template(id);
        assert_eq!(placeholders(en), placeholders(zh), "{id:?}: {en} | {zh}");
        if id != MsgId::Empty {
            assert!(!en.is_empty() && !zh.is_empty(), "{id:?} has an empty text");
        }
        // Placeholders are numbered from 0 without gaps.
        let p = placeholders(en);
        assert!(p.iter().enumerate().all(|(i, n)| i == *n), "{id:?}: {p:?}");
    }
}

/// The self-test's texts (its own table: only the reader worker and the CLI link it) follow the
/// templates' rules: both languages, the finding's placeholders alike, no English word in Chinese.
#[test]
fn the_self_test_texts_follow_the_template_rules() {
    for n in 1..=vram_ledger::selftest::QUESTIONS {
        let t = vram_ledger::selftest::texts(n).expect("seven questions");
        for (en, zh) in [t.question, t.hint, t.answer, t.finding] {
            assert!(!en.is_empty() && !zh.is_empty(), "q{n}");
            assert_eq!(placeholders(en), placeholders(zh), "q{n}: {en} | {zh}");
            let bad = english_words(zh);
            assert!(bad.is_empty(), "q{n} leaves {bad:?} in: {zh}");
        }
        let p = placeholders(t.finding.0);
        assert!(p.iter().enumerate().all(|(i, k)| i == *k), "q{n}: {p:?}");
    }
}

/// No Chinese template leaves an English word (the user's own values come in as arguments).
#[test]
fn chinese_templates_have_no_english_words() {
    for &id in MsgId::ALL {
        let (_, zh) = template(id);
        let bad = english_words(zh);
        assert!(bad.is_empty(), "{id:?} leaves {bad:?} in: {zh}");
    }
}

fn all_texts(q: &str) -> Vec<(String, Msg)> {
    let bill = estimate(&query::parse(q).scenario);
    bill.components
        .iter()
        .map(|c| (c.id.id().to_string(), c.formula.clone()))
        .chain(bill.notes.iter().map(|n| (n.key.to_string(), n.text.clone())))
        .collect()
}

#[test]
fn chinese_formulas_have_no_english_words_left() {
    let queries = [
        "",
        "method=full",
        "method=qlora",
        "mode=infer",
        "mode=infer&quant=nf4&gpus=2",
        "method=full&gpus=4&zero=3&optim=adafactor",
        "method=full&precision=fp32&optim=sgdm&gpus=2",
        "model=qwen2-vl-7b&images=2",
        "drill=no_grad,tensor_list,fp32_module,zombie",
        "attn=eager&gc=0",
        "mode=infer&quant=q4_k_m",
        "mode=infer&quant=int8",
        "mode=infer&quant=gptq4&kv=int4&gen=100",
        "optim=adamw8bit",
        "optim=sgd",
        "method=full&precision=bf16",
        "method=qlora&dq=0",
        "model=mixtral-8x7b&method=lora",
        "model=gpt2&method=full",
        "method=full&quant=nf4",
        "method=lora&quant=q4_k_m",
        "method=qlora&quant=bf16",
        "accum=8&gpus=2",
        "loss=hf_shift",
        "loss=chunked",
        "loss=fused&method=full",
    ];
    for q in queries {
        for (id, m) in all_texts(q) {
            let zh = render(Lang::Zh, &m);
            let bad = english_words(&zh);
            assert!(bad.is_empty(), "{q}: {id} leaves {bad:?} in: {zh}");
            assert!(!render(Lang::En, &m).is_empty() || m.id == MsgId::Empty);
        }
    }
}

/// The query parser's notices in Chinese: no English left outside the user's own quoted text and
/// the lists of accepted ids.
#[test]
fn chinese_notices_have_no_english_words_left() {
    let p = query::parse("seq=0&vram=-1&gc=yes&quant=int3&model=llama-9&drill=oops&heads=8&kv_heads=16&colour=red");
    let messages: Vec<&Msg> = p.errors.iter().chain(p.warnings.iter()).map(|e| &e.message).collect();
    assert!(messages.len() >= 8, "{messages:?}");
    for m in messages {
        let zh = render(Lang::Zh, m);
        let outside: String =
            zh.split('`').enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, s)| s).collect::<Vec<_>>().join(" ");
        let prose = outside.split("可选").next().unwrap_or("");
        assert!(english_words(prose).is_empty(), "{m:?} → {zh}");
    }
    let seq = &query::parse("seq=0").errors[0].message;
    assert_eq!(render(Lang::Zh, seq), "`seq=0` 无效:应为 1 至 100000000 的整数");
    assert_eq!(render(Lang::En, seq), "`seq=0` is not accepted: a whole number from 1 to 100000000");
}
