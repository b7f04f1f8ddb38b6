//! The configuration a report describes in words and flags ("Llama-3-8B, full SFT, batch size 1,
//! sequence length 128, on an 80 GB A100"; "用A100 单卡40G lora 微调4B…"): read as scenario keys,
//! so a paste without memory numbers can still be billed by the ledger. Only what is stated is
//! read; what is not is left at a value that bills less (the shortest length, batch 1,
//! checkpointing on), so a bill above the card is a shortage whatever the unstated settings were.
//!
//! The keys travel in the `oom=` link as `D<key>:<value>` items beside a start-up log's (the page
//! keeps them as text); [`query`] reads them back.

use crate::ledger::presets;
use crate::ledger::units::{has, occurrences};

/// What the link writes before each key of the described configuration.
pub const TAG: char = 'D';

/// The length billed when the report states none: short enough that a bill above the card is not
/// an artefact of a guessed length.
const UNSTATED_SEQ: u64 = 512;

/// Older names of models whose shape a preset has (the same layers, widths and vocabulary).
const ALIASES: [(&str, &str); 16] = [
    ("llama-3-8b", "llama-3.1-8b"),
    ("llama3-8b", "llama-3.1-8b"),
    ("meta-llama-3-8b", "llama-3.1-8b"),
    ("llama-3-70b", "llama-3.1-70b"),
    ("llama3-70b", "llama-3.1-70b"),
    ("meta-llama-3-70b", "llama-3.1-70b"),
    ("qwen2-7b", "qwen2.5-7b"),
    ("qwen2-72b", "qwen2.5-72b"),
    ("qwen2-1.5b", "qwen2.5-1.5b"),
    ("qwen2-0.5b", "qwen2.5-0.5b"),
    ("qwen1.5-7b", "qwen2.5-7b"),
    ("qwen1.5-14b", "qwen2.5-14b"),
    ("qwen1.5-32b", "qwen2.5-32b"),
    ("qwen1.5-72b", "qwen2.5-72b"),
    ("mistral-7b-v0.1", "mistral-7b"),
    ("mistral-7b-instruct", "mistral-7b"),
];

/// Models people name in reports that are not presets, with the shape their published config.json
/// gives (read as `model=custom` and these keys). Each shape's parameter count is checked against
/// the published one in tests/paste_words.rs.
const BEYOND_PRESETS: [(&[&str], &str); 12] = [
    // THUDM/chatglm-6b: GELU MLP, LayerNorm, biases on every linear.
    (&["chatglm-6b"], "layers=28&hidden=4096&heads=32&kv_heads=32&head_dim=128&ffn=16384&vocab=130528&tied=1&mlp=gelu&norm=layer&qkv_bias=1&out_mlp_bias=1"),
    // THUDM/chatglm2-6b and chatglm3-6b (-32k): multi_query_group_num 2, padded_vocab_size 65024.
    (&["chatglm2-6b", "chatglm3-6b"], "layers=28&hidden=4096&heads=32&kv_heads=2&head_dim=128&ffn=13696&vocab=65024&tied=0&mlp=glu&norm=rms&qkv_bias=1"),
    // THUDM/glm-4-9b(-chat): 40 layers, padded_vocab_size 151552.
    (&["glm-4-9b", "glm4-9b"], "layers=40&hidden=4096&heads=32&kv_heads=2&head_dim=128&ffn=13696&vocab=151552&tied=0&mlp=glu&norm=rms&qkv_bias=1"),
    (&["yi-6b", "yi-1.5-6b"], "layers=32&hidden=4096&heads=32&kv_heads=4&head_dim=128&ffn=11008&vocab=64000&tied=0&mlp=glu&norm=rms&qkv_bias=0"),
    (&["yi-34b", "yi-1.5-34b"], "layers=60&hidden=7168&heads=56&kv_heads=8&head_dim=128&ffn=20480&vocab=64000&tied=0&mlp=glu&norm=rms&qkv_bias=0"),
    (&["baichuan2-7b"], "layers=32&hidden=4096&heads=32&kv_heads=32&head_dim=128&ffn=11008&vocab=125696&tied=0&mlp=glu&norm=rms&qkv_bias=0"),
    (&["baichuan2-13b"], "layers=40&hidden=5120&heads=40&kv_heads=40&head_dim=128&ffn=13696&vocab=125696&tied=0&mlp=glu&norm=rms&qkv_bias=0"),
    (&["internlm2-7b", "internlm2-chat-7b", "internlm2_5-7b", "internlm2.5-7b"], "layers=32&hidden=4096&heads=32&kv_heads=8&head_dim=128&ffn=14336&vocab=92544&tied=0&mlp=glu&norm=rms&qkv_bias=0"),
    (&["internlm2-20b", "internlm2-chat-20b", "internlm2_5-20b", "internlm2.5-20b"], "layers=48&hidden=6144&heads=48&kv_heads=8&head_dim=128&ffn=16384&vocab=92544&tied=0&mlp=glu&norm=rms&qkv_bias=0"),
    // Qwen (the first generation, remote code): config.json's intermediate_size is twice the MLP's.
    (&["qwen-7b"], "layers=32&hidden=4096&heads=32&kv_heads=32&head_dim=128&ffn=11008&vocab=151936&tied=0&mlp=glu&norm=rms&qkv_bias=1"),
    (&["qwen-14b"], "layers=40&hidden=5120&heads=40&kv_heads=40&head_dim=128&ffn=13696&vocab=152064&tied=0&mlp=glu&norm=rms&qkv_bias=1"),
    (&["qwen-72b"], "layers=80&hidden=8192&heads=64&kv_heads=64&head_dim=128&ffn=24576&vocab=152064&tied=0&mlp=glu&norm=rms&qkv_bias=1"),
];

/// What may follow a model's name in a checkpoint's name without making it another model.
const OTHER_MODEL: [&str; 9] = ["mini", "moe", "vl", "coder", "math", "audio", "omni", "guard", "distill"];

/// Cards by the name people write, each with its memory sizes (GB as sold → preset id); the
/// largest size when the report names none (a bill above the largest is above every size).
const CARDS: [(&str, &[(u64, &str)]); 24] = [
    ("a100", &[(40, "a100-40g"), (80, "a100-80g")]),
    ("a800", &[(40, "a800-40g"), (80, "a800-80g")]),
    ("h100", &[(80, "h100-80g")]),
    ("h800", &[(80, "h800")]),
    ("h200", &[(141, "h200")]),
    ("h20", &[(96, "h20"), (141, "h20-141g")]),
    ("b200", &[(180, "b200")]),
    ("l40s", &[(48, "l40s")]),
    ("l40", &[(48, "l40")]),
    ("l20", &[(48, "l20")]),
    ("a6000", &[(48, "a6000")]),
    ("a10g", &[(24, "a10g")]),
    ("4090d", &[(24, "rtx4090d")]),
    ("4090", &[(24, "rtx4090")]),
    ("3090", &[(24, "rtx3090")]),
    ("5090", &[(32, "rtx5090")]),
    ("3060", &[(12, "rtx3060-12g")]),
    ("4060", &[(16, "rtx4060ti-16g")]),
    ("v100", &[(16, "v100-16g"), (32, "v100-32g")]),
    ("t4", &[(16, "t4")]),
    ("l4", &[(24, "l4")]),
    ("910b", &[(64, "ascend-910b")]),
    ("mi300x", &[(192, "mi300x")]),
    ("2080", &[]),
];

/// What says a report is about training (not "from_pretrained", which loads a model for anything).
const TRAINING: [&str; 8] = ["training", "trainer", "train.py", "fine-tun", "finetun", "微调", "训练", "sft"];

/// The described configuration's keys as link items (`Dmodel:llama-3.1-8b,Dmethod:full,…`);
/// empty when the report names no preset model, or names a sharded run without its GPU count.
pub fn read(low: &str) -> String {
    // An RL run's memory is not a described configuration's (checked before the names are looked up).
    if ["grpo", "ppo", "rollout", "dpo"].iter().any(|w| has(low, w)) {
        return String::new();
    }
    // Names are runs of ASCII letters, digits and `.-_+`; anything else (a space, a path's '/',
    // a Chinese character) ends one.
    let tokens: Vec<&str> = low
        .split(|c: char| !(c.is_ascii_alphanumeric() || ".-_+".contains(c)))
        .map(|t| t.trim_matches('.'))
        .filter(|t| !t.is_empty())
        .collect();
    let by_size = || model_by_size(low).or_else(|| model_by_name_size(&tokens)).map(|m| (m, String::new()));
    let Some((model, name)) = model_named(&tokens).or_else(by_size) else {
        return String::new();
    };
    let mut keys: Vec<(&str, String)> = if model.starts_with(SHAPE) {
        // A model beyond the presets: its shape's keys, and its name as written (for the texts).
        let written: String =
            name.chars().filter(|c| c.is_ascii_alphanumeric() || ".-_".contains(*c)).take(64).collect();
        std::iter::once(("model", "custom".to_string()))
            .chain(model.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k, v.to_string())))
            .chain(std::iter::once((NAME, written)))
            .collect()
    } else {
        vec![("model", model.to_string())]
    };
    let training = TRAINING.iter().any(|w| has(low, w));
    // Cards counted in Chinese words are a training run's GPUs; a server uses one unless its
    // flags shard it, whatever the machine has ("8张A800" with vLLM and no tensor parallel).
    let gpus = gpu_count(low).or_else(|| zh_cards(low).filter(|n| training && (2..=4096).contains(n)));
    if training {
        let sharded = ["zero", "fsdp", "deepspeed"].iter().any(|w| has(low, w));
        if sharded && gpus.is_none() {
            return String::new();
        }
        training_keys(low, &mut keys);
    } else if let Some(engine) = ["vllm", "sglang"].into_iter().find(|w| has(low, w)) {
        keys.push(("mode", "infer".to_string()));
        keys.push(("engine", engine.to_string()));
        // The served checkpoint's format: its name's ("…-AWQ"), or `--quantization`'s.
        if let Some(q) = quant(&name).or_else(|| after_word(low, "quantization").and_then(|q| quant(&q))) {
            keys.push(("quant", q.to_string()));
        }
    } else {
        return String::new();
    }
    let mut lengths = numbers_after(low, &SEQ_PHRASES);
    lengths.extend(numbers_before(low, &["context", "上下文", "-token sequence", " token sequence"]));
    let seq = lengths.into_iter().min();
    keys.push(("seq", seq.unwrap_or(UNSTATED_SEQ).max(1).to_string()));
    if let Some(n) = gpus {
        keys.push(("gpus", n.to_string()));
    }
    if let Some(card) = card(low, &tokens) {
        keys.push(card);
    }
    keys.iter().map(|(k, v)| format!("{TAG}{k}:{v}")).collect::<Vec<_>>().join(",")
}

/// The first preset a report names, and the name as written (a checkpoint's, with its suffixes).
/// A name written with spaces ("Llama 3 8B") is up to three tokens.
fn model_named(tokens: &[&str]) -> Option<(&'static str, String)> {
    let names = model_names();
    (0..tokens.len()).find_map(|i| {
        let mut window = String::new();
        (i..tokens.len().min(i + 3)).find_map(|j| {
            window.extend(tokens[j].chars().filter(|c| !"-_".contains(*c)));
            // No preset's name is longer.
            // Meta's checkpoints repeat the organisation ("Meta-Llama-3.1-8B-Instruct").
            let bare = window.strip_prefix("meta").unwrap_or(&window);
            let id =
                (window.len() <= 64).then(|| model_of(&window, &names).or_else(|| model_of(bare, &names))).flatten()?;
            Some((id, tokens[i..=j].concat()))
        })
    })
}

/// Dense presets that stand for a model named only by its size ("a 7B model", "4B的模型"): of the
/// presets of that size, the one that bills the least (the smaller vocabulary), as everything the
/// report leaves out does.
const BY_SIZE: [(u64, &str); 10] = [
    (3, "qwen2.5-3b"),
    (4, "qwen3-4b"),
    (7, "llama-2-7b"),
    (8, "llama-3.1-8b"),
    (13, "llama-2-13b"),
    (14, "qwen2.5-14b"),
    (32, "qwen2.5-32b"),
    (34, "qwen2.5-32b"),
    (70, "llama-2-70b"),
    (72, "qwen2.5-72b"),
];

/// The preset standing for a model the report names by its size alone (whole billions, not
/// "1.5B"): [`BY_SIZE`].
fn model_by_size(low: &str) -> Option<&'static str> {
    let said = ["b model", "b的模型", "b 的模型", "b模型", "b 模型", "b parameter", "b-parameter", "b llm", "b大模型"];
    let size = *numbers_before(low, &said).first()?;
    BY_SIZE.iter().find(|(b, _)| *b == size).map(|(_, id)| *id)
}

/// The preset standing for a model beyond the presets and their shapes whose name carries its size
/// ("Baichuan-13B", "internlm2_7b", "deepseekv2-prover7B"): as a model named by its size alone,
/// [`BY_SIZE`]. The size is a whole number of billions ending a part of the name (after letters or a
/// `-`, `_`), never the digits after a decimal point ("qwen2.5-1.5b" is not 5B).
fn model_by_name_size(tokens: &[&str]) -> Option<&'static str> {
    tokens.iter().filter(|t| t.len() <= 64 && t.chars().any(|c| c.is_ascii_alphabetic())).find_map(|t| {
        let b = t.as_bytes();
        (0..b.len()).find_map(|end| {
            // `end` is the `b` after the digits; what follows ends the part.
            let ends_part = b.get(end + 1).is_none_or(|c| b"-_.".contains(c));
            if b[end] != b'b' || !ends_part {
                return None;
            }
            let start = (0..end).rev().take_while(|&i| b[i].is_ascii_digit()).last()?;
            let before = start.checked_sub(1).map(|i| b[i]);
            if before.is_some_and(|c| c == b'.' || c.is_ascii_digit())
                || !t[..start].chars().any(|c| c.is_ascii_alphabetic())
            {
                return None;
            }
            let size: u64 = t[start..end].parse().ok()?;
            BY_SIZE.iter().find(|(s, _)| *s == size).map(|(_, id)| *id)
        })
    })
}

/// A training run's method, ZeRO stage, batch and checkpointing as the report states them.
fn training_keys(low: &str, keys: &mut Vec<(&str, String)>) {
    keys.push(("method", method(low).to_string()));
    if let Some(z) = zero_stage(low) {
        keys.push(("zero", z.to_string()));
    }
    let batch = numbers_after(low, &["batch_size", "batch size", "batch-size", "bs="]).into_iter().min();
    keys.push(("batch", batch.unwrap_or(1).max(1).to_string()));
    if has(low, "gradient_checkpointing") || has(low, "gradient checkpointing") {
        let off = ["gradient_checkpointing false", "gradient_checkpointing=false", "gradient_checkpointing: false"];
        keys.push(("gc", if off.iter().any(|p| has(low, p)) { "0" } else { "1" }.to_string()));
    }
}

/// The word after a setting's name (`--quantization awq`, `quantization="gptq"`).
fn after_word(low: &str, name: &str) -> Option<String> {
    let at = occurrences(low, name).take(OCCURRENCES).last()?;
    let rest = low[at + name.len()..].trim_start_matches([' ', '=', ':', '"', '\'']);
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    (!word.is_empty()).then_some(word)
}

const SEQ_PHRASES: [&str; 16] = [
    "max_length",
    "max_len",
    "cutoff_len",
    "max_seq_length",
    "max_seq_len",
    "seq_len",
    "sequence length",
    "seq length",
    "context length",
    "max-model-len",
    "max_model_len",
    "model_max_length",
    "max_source_length",
    "max_input_length",
    "上下文长度",
    "序列长度",
];

/// Every name a preset goes by (its id, its checkpoint's name, an older name of the same shape),
/// lowercase without `-` and `_`, with the preset's id.
fn model_names() -> Vec<(String, &'static str)> {
    let compact = |s: &str| s.to_ascii_lowercase().chars().filter(|c| !"-_ ".contains(*c)).collect::<String>();
    let presets =
        presets::models().iter().flat_map(|p| [(p.id, p.id), (p.repository().rsplit('/').next().unwrap_or(""), p.id)]);
    let beyond = BEYOND_PRESETS.iter().flat_map(|(names, shape)| names.iter().map(move |n| (*n, *shape)));
    let named = presets.chain(ALIASES).filter(|(name, _)| !name.is_empty()).map(|(name, id)| (compact(name), id));
    // A shape stands as "<SHAPE><keys>" where an id would.
    named.chain(beyond.map(|(name, shape)| (compact(name), shape))).collect()
}

/// What starts a shape's keys where [`model_names`] gives an id: no preset id has it.
const SHAPE: &str = "layers=";

/// The preset a name of the report (compacted as [`model_names`] are) starts with, the longest
/// name first; what follows it may be a suffix (`instruct`, `chat`) but not another model's.
fn model_of(token: &str, names: &[(String, &'static str)]) -> Option<&'static str> {
    let first = *token.as_bytes().first()?;
    names
        .iter()
        .filter(|(name, _)| name.as_bytes().first() == Some(&first))
        .filter(|(name, _)| {
            token.strip_prefix(name.as_str()).is_some_and(|rest| {
                let context = rest.trim_start_matches(|c: char| c.is_ascii_digit());
                rest.is_empty()
                    || rest.starts_with(|c: char| c.is_ascii_alphabetic())
                        && !OTHER_MODEL.iter().any(|o| rest.starts_with(o))
                    // A context length after the name ("Yi-34B-200K", "chatglm3-6b-32k").
                    || context.len() < rest.len() && context.starts_with('k')
            })
        })
        .max_by_key(|(name, _)| name.len())
        .map(|(_, id)| *id)
}

fn method(low: &str) -> &'static str {
    let four_bit = ["qlora", "4bit", "4-bit", "load_in_4bit", "nf4", "bnb"].iter().any(|w| has(low, w));
    if has(low, "lora") && four_bit {
        "qlora"
    } else if has(low, "lora") {
        "lora"
    } else {
        "full"
    }
}

/// The ZeRO stage said: `zero3`, `zero-2`, `zero_stage: 3`, "ZeRO stage 2" (the highest said).
fn zero_stage(low: &str) -> Option<u64> {
    let said = ["zero", "zero-", "zero_", "zero stage", "zero_stage", "zero-stage"];
    numbers_after(low, &said).into_iter().filter(|s| (1..=3).contains(s)).max()
}

/// Weights other than 16-bit, as a served checkpoint's name (or `--quantization`) says.
fn quant(name: &str) -> Option<&'static str> {
    [("awq", "awq4"), ("gptq", "gptq4"), ("fp8", "fp8"), ("int8", "int8"), ("int4", "gptq4"), ("4bit", "nf4")]
        .into_iter()
        .find(|(w, _)| has(name, w))
        .map(|(_, q)| q)
}

/// How many occurrences of a phrase are looked at (a hostile paste repeats it).
const OCCURRENCES: usize = 64;

/// Whole numbers stated right after any of `phrases` (`--max_length 2048`, `batch size of 4`,
/// `max_length: 8k`, `batch_size为1`).
fn numbers_after(low: &str, phrases: &[&str]) -> Vec<u64> {
    let mut out = Vec::new();
    for p in phrases {
        for i in occurrences(low, p).take(OCCURRENCES) {
            let rest = low[i + p.len()..].trim_start_matches([' ', '=', ':', '"', '\'', '\t']);
            let rest = rest
                .strip_prefix("of ")
                .or_else(|| rest.strip_prefix("为"))
                .or_else(|| rest.strip_prefix("设为"))
                .unwrap_or(rest);
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let Ok(v) = digits.parse::<u64>() else { continue };
            let k = rest[digits.len()..].starts_with('k');
            out.push(if k { v.saturating_mul(1024) } else { v });
        }
    }
    out
}

/// Whole numbers (or `8k`) stated right before any of `phrases` (`8k context`, `32768 上下文`,
/// `7B 模型`); the digits after a decimal point are not one.
fn numbers_before(low: &str, phrases: &[&str]) -> Vec<u64> {
    phrases.iter().flat_map(|p| numbers_before_if(low, p, |_| true)).collect()
}

/// [`numbers_before`] one phrase, where what follows the phrase passes `follows`.
fn numbers_before_if(low: &str, p: &str, follows: impl Fn(&str) -> bool) -> Vec<u64> {
    let at = occurrences(low, p).take(OCCURRENCES).filter(|i| follows(&low[i + p.len()..]));
    at.filter_map(|i| {
        let head = low[..i].trim_end();
        let (head, k) = match head.strip_suffix('k') {
            Some(h) => (h, true),
            None => (head, false),
        };
        let start = head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        // "1.5B model", "1.5k context": a fraction's digits are not a whole number.
        let whole = !head[..start].ends_with('.');
        let v = head[start..].parse::<u64>().ok().filter(|_| whole)?;
        Some(if k { v.saturating_mul(1024) } else { v })
    })
    .collect()
}

/// GPUs the report says the run uses: `--nproc_per_node 4`, `4 卡`, `8 GPUs`, `2*A100`, an
/// engine's `--tensor-parallel-size 2`.
fn gpu_count(low: &str) -> Option<u64> {
    let flags = ["nproc_per_node", "num_gpus", "tensor-parallel-size", "tensor_parallel_size", "--tp", "tp-size"];
    let said = numbers_after(low, &flags).into_iter().max();
    // "4 卡", "8 GPUs"; "8*A100", "2 x RTX 4090", "8×H100".
    let counted = ["卡", "张卡", "块卡", " gpus", " gpu "].iter().flat_map(|unit| numbers_before(low, &[unit])).max();
    let times = |at: usize| {
        let head =
            ["rtx", "nvidia", "geforce"].iter().fold(low[..at].trim_end(), |h, p| h.strip_suffix(p).unwrap_or(h));
        let head = head.trim_end().strip_suffix(['x', '*', '×'])?.trim_end();
        let start = head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        head[start..].parse::<u64>().ok()
    };
    let multiplied =
        CARDS.iter().flat_map(|(family, _)| occurrences(low, family).take(OCCURRENCES)).filter_map(times).max();
    // `CUDA_VISIBLE_DEVICES=0,1,2,3 deepspeed …`: the devices listed (the last such setting), when
    // a launcher that starts a rank on each visible device runs (a server or a plain `python`
    // sees them without sharding over them).
    let launchers =
        ["deepspeed ", "torchrun", "accelerate launch", "torch.distributed.launch", "llamafactory-cli train"];
    let launched = launchers.iter().any(|l| has(low, l));
    let visible =
        occurrences(low, "cuda_visible_devices=").take(OCCURRENCES).last().filter(|_| launched).and_then(|at| {
            let list = low[at + "cuda_visible_devices=".len()..].trim_start_matches(['"', '\'']);
            let list = &list[..list.find(|c: char| !(c.is_ascii_digit() || c == ',')).unwrap_or(list.len())];
            let n = list.split(',').filter(|d| !d.is_empty()).count() as u64;
            (n > 0).then_some(n)
        });
    said.or(counted).or(multiplied).or(visible).filter(|n| (1..=4096).contains(n))
}

/// Chinese numerals people count their cards with.
const ZH_COUNTS: [(&str, u64); 10] =
    [("单", 1), ("一", 1), ("双", 2), ("两", 2), ("二", 2), ("三", 3), ("四", 4), ("六", 6), ("八", 8), ("十六", 16)];

/// Cards counted in Chinese (a training run's): "双卡", "八卡", "两张4090", "四张3090显卡", "4张A100", "两块显卡" — a
/// count and its classifier (张, 块) count cards only when a card comes next (卡, 显卡, or a card's
/// name: "3张图片" is no card).
fn zh_cards(low: &str) -> Option<u64> {
    let names_a_card = |rest: &str| {
        let mut rest = rest.trim_start();
        for maker in ["nvidia", "geforce", "tesla", "rtx"] {
            rest = rest.strip_prefix(maker).unwrap_or(rest).trim_start();
        }
        ["卡", "显卡", "gpu"].iter().any(|w| rest.starts_with(w))
            || CARDS.iter().any(|(family, _)| rest.starts_with(family))
    };
    let mut counts = Vec::new();
    for (word, n) in ZH_COUNTS {
        for unit in ["卡", "张", "块"] {
            let phrase = format!("{word}{unit}");
            let card = |at: usize| unit == "卡" || names_a_card(&low[at + phrase.len()..]);
            if occurrences(low, &phrase).take(OCCURRENCES).any(card) {
                counts.push(n);
            }
        }
    }
    counts.extend(["张", "块"].iter().flat_map(|unit| numbers_before_if(low, unit, names_a_card)));
    counts.into_iter().max()
}

/// The card the report names, as a scenario key: its preset (the size it states, else the
/// largest), or `vram` for a card without one (a stock 11 GB RTX 2080 Ti).
fn card(low: &str, tokens: &[&str]) -> Option<(&'static str, String)> {
    let named = |family: &str| {
        tokens.iter().any(|t| {
            let t = ["nvidia-", "geforce", "rtx"].iter().fold(*t, |t, p| t.strip_prefix(p).unwrap_or(t));
            t.strip_prefix(family).is_some_and(|rest| {
                let size =
                    rest.starts_with(|c: char| c.is_ascii_digit()) && (rest.ends_with('g') || rest.ends_with("gb"));
                rest.is_empty()
                    || rest.starts_with(['-', '_'])
                    || size
                    || ["ti", "pcie", "sxm4", "sxm5", "nvl"].contains(&rest)
            })
        })
    };
    let Some((family, sizes)) = CARDS.iter().find(|(family, _)| named(family)) else {
        // No card named, a size said: "24G显存", "48GB VRAM".
        let said = ["g显存", "gb显存", "g 显存", "gb 显存", "gb vram", "gb of vram", "g vram"];
        let gib = numbers_before(low, &said).into_iter().max().filter(|g| (1..=4096).contains(g))?;
        return Some(("vram", gib.to_string()));
    };
    if sizes.is_empty() {
        // The RTX 2080 Ti as sold: 11 GB (10.75 GiB to the driver).
        return (*family == "2080").then(|| ("vram", "10.75".to_string()));
    }
    let stated = sizes
        .iter()
        .find(|(gb, _)| [format!("{gb}g"), format!("{gb} g"), format!("{gb}gb")].iter().any(|s| has(low, s)));
    let (_, id) = stated.or_else(|| sizes.last())?;
    Some(("gpu", id.to_string()))
}

/// The described configuration's keys as a query (`model=…&method=…`), for the diagnosis's text.
pub fn query(items: &str) -> String {
    described_items(items).filter(|(k, _)| *k != NAME).map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
}

/// The item that names a model beyond the presets as the report wrote it (`chatglm3-6b`): not a
/// query key, only for the texts.
const NAME: &str = "name";

/// Whether the items name the card (`gpu`) or its size (`vram`).
pub fn names_card(items: &str) -> bool {
    described_items(items).any(|(k, _)| k == "gpu" || k == "vram")
}

/// The name of a model beyond the presets as the report wrote it, when the items have one.
pub fn model_name(items: &str) -> Option<&str> {
    described_items(items).find(|(k, _)| *k == NAME).map(|(_, v)| v).filter(|v| !v.is_empty())
}

fn described_items(items: &str) -> impl Iterator<Item = (&str, &str)> {
    items.split(',').filter_map(|item| item.strip_prefix(TAG)).filter_map(|kv| kv.split_once(':'))
}
