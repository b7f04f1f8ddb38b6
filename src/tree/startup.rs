//! A serving engine's start-up log set beside the ledger, line by line. vLLM, SGLang and llama.cpp
//! print how they sized memory as they start (the weights loaded, the profile run's peak, non-torch
//! memory, CUDA graphs, the KV pool, its tokens or blocks, the requests at once) and the settings
//! they started with (the model, tensor parallel, the context, the share of the card, the KV dtype).
//! [`read`] takes both out of a paste; [`check`] bills the user's configuration with the log's
//! settings and puts each engine figure beside the ledger's, with the settings that move it.
//!
//! Only numbers and a few setting values come out (no text is kept), read in one pass per phrase,
//! as the rest of the paste reader reads ([`super::reader`]).

use super::reader::{after_last, last, number_at, pair_after, size_at, size_before, window};
use crate::ledger::bill::Serving;
use crate::ledger::msg::MsgId;
use crate::ledger::presets;
use crate::ledger::scenario::{Engine, Scenario};
use crate::ledger::units::{find, has};
use crate::query::{self, Key, KEYS};

/// A figure an engine prints at start-up; the ids are a public contract (`startup.rows[].figure`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// vLLM's "Model loading took", SGLang's "Load weight end … mem usage", llama.cpp's model buffer.
    Weights,
    /// vLLM's profile run: "torch peak memory increase" (V1), "PyTorch activation peak memory" (V0),
    /// "… for peak activation" (0.20 on).
    ActivationPeak,
    NonTorch,
    CudaGraphs,
    /// vLLM's "Available KV cache memory", SGLang's K + V sizes, llama.cpp's KV buffer.
    KvPool,
    KvTokens,
    /// vLLM V0's "# GPU blocks".
    KvBlocks,
    /// vLLM's "Maximum concurrency for N tokens per request".
    MaxConcurrency,
    /// llama.cpp's "CUDA0 compute buffer size" (its counterpart of a profile run's peak).
    ComputeBuffer,
    /// SGLang's "Load weight begin. avail mem=…": the memory free before loading, from which its
    /// budget (`mem_fraction_static` of it) is taken.
    FreeBeforeLoad,
}

impl Figure {
    /// In the order a link numbers them (`V0:` … `V9:`): new figures go at the end.
    pub const ALL: [Figure; FIGURES] = [
        Figure::Weights,
        Figure::ActivationPeak,
        Figure::NonTorch,
        Figure::CudaGraphs,
        Figure::KvPool,
        Figure::KvTokens,
        Figure::KvBlocks,
        Figure::MaxConcurrency,
        Figure::ComputeBuffer,
        Figure::FreeBeforeLoad,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Figure::Weights => "weights",
            Figure::ActivationPeak => "activation_peak",
            Figure::NonTorch => "non_torch",
            Figure::CudaGraphs => "cuda_graphs",
            Figure::KvPool => "kv_pool",
            Figure::KvTokens => "kv_tokens",
            Figure::KvBlocks => "kv_blocks",
            Figure::MaxConcurrency => "max_concurrency",
            Figure::ComputeBuffer => "compute_buffer",
            Figure::FreeBeforeLoad => "free_before_load",
        }
    }

    /// Its name, a text of its own (rendered in either language).
    pub fn label(self) -> MsgId {
        match self {
            Figure::Weights => MsgId::StartupWeights,
            Figure::ActivationPeak => MsgId::StartupPeak,
            Figure::NonTorch => MsgId::StartupNonTorch,
            Figure::CudaGraphs => MsgId::StartupGraphs,
            Figure::KvPool => MsgId::StartupPool,
            Figure::KvTokens => MsgId::StartupTokens,
            Figure::KvBlocks => MsgId::StartupBlocks,
            Figure::MaxConcurrency => MsgId::StartupConcurrency,
            Figure::ComputeBuffer => MsgId::StartupCompute,
            Figure::FreeBeforeLoad => MsgId::StartupFree,
        }
    }

    /// What decides it beyond the settings a log prints.
    pub fn hint(self) -> MsgId {
        match self {
            Figure::Weights => MsgId::StartupHintWeights,
            Figure::ActivationPeak => MsgId::StartupHintPeak,
            Figure::NonTorch => MsgId::StartupHintNonTorch,
            Figure::CudaGraphs => MsgId::StartupHintGraphs,
            Figure::KvPool => MsgId::StartupHintPool,
            Figure::KvTokens | Figure::KvBlocks => MsgId::StartupHintTokens,
            Figure::MaxConcurrency => MsgId::StartupHintConcurrency,
            Figure::ComputeBuffer => MsgId::StartupHintCompute,
            Figure::FreeBeforeLoad => MsgId::StartupHintFree,
        }
    }

    /// A size in bytes (the others are counts).
    pub fn is_bytes(self) -> bool {
        !matches!(self, Figure::KvTokens | Figure::KvBlocks | Figure::MaxConcurrency)
    }

    /// The ledger's value of this figure in a serving bill.
    pub fn of(self, s: &Serving) -> Option<f64> {
        let v = match self {
            Figure::Weights => s.weights_bytes as f64,
            Figure::ActivationPeak | Figure::ComputeBuffer => s.activation_peak_bytes as f64,
            Figure::NonTorch => s.non_torch_bytes as f64,
            Figure::CudaGraphs => s.cuda_graph_bytes as f64,
            Figure::KvPool => s.kv_pool_bytes as f64,
            Figure::KvTokens => s.kv_tokens as f64,
            Figure::KvBlocks => s.kv_blocks? as f64,
            Figure::MaxConcurrency => s.max_concurrency,
            // SGLang's budget is its fraction of the memory free before loading.
            Figure::FreeBeforeLoad if s.engine == Engine::Sglang && s.share > 0.0 => s.budget_bytes as f64 / s.share,
            Figure::FreeBeforeLoad => return None,
        };
        Some(v)
    }
}

/// How many figures a log can give.
const FIGURES: usize = 10;

/// What a start-up log says: its engine, the figures it printed (indexed as [`Figure::ALL`]) and the
/// settings it printed, as query keys and values (the links' vocabulary).
#[derive(Clone, Debug, PartialEq)]
pub struct Startup {
    pub engine: Engine,
    pub figures: [Option<f64>; FIGURES],
    pub settings: Vec<(Key, String)>,
}

impl Startup {
    pub fn figure(&self, f: Figure) -> Option<f64> {
        self.figures[f as usize]
    }

    /// The link's items: `Y` and the engine's index in [`ENGINES`], `V` and a figure's index with
    /// its value, `K` and a setting's key with its value ("Y0,V0:16094208826,Kgpus:4").
    pub fn to_items(&self) -> String {
        let engine = ENGINES.iter().position(|e| *e == self.engine).unwrap_or(0);
        let mut items = vec![format!("Y{engine}")];
        for (i, v) in self.figures.iter().enumerate() {
            if let Some(v) = v {
                items.push(format!("V{i}:{}", super::reader::link_value(*v)));
            }
        }
        items.extend(self.settings.iter().map(|(k, v)| format!("K{}:{v}", k.name())));
        items.join(",")
    }

    /// The start-up reading a link's items give; `None` when they are not one (no engine first, an
    /// unknown figure or key, a value that is not a plain word or number, more than 32 settings).
    pub fn from_items(items: &str) -> Option<Startup> {
        let mut parts = items.split(',');
        let engine = *ENGINES.get(parts.next()?.strip_prefix('Y')?.parse::<usize>().ok()?)?;
        let mut st = Startup { engine, figures: [None; FIGURES], settings: Vec::new() };
        // A described configuration's items (`super::described`) follow a log's.
        for item in parts.filter(|i| !i.starts_with(super::described::TAG)) {
            let (head, value) = item.split_once(':')?;
            if let Some(i) = head.strip_prefix('V') {
                let v = crate::ledger::units::parse_decimal(value).filter(|v| v.is_finite())?;
                *st.figures.get_mut(i.parse::<usize>().ok()?)? = Some(v);
            } else {
                let key = Key::from_name(head.strip_prefix('K')?)?;
                let plain =
                    value.len() <= 64 && value.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
                if !plain || st.settings.len() >= 32 {
                    return None;
                }
                st.settings.push((key, value.to_string()));
            }
        }
        Some(st)
    }
}

/// The engines a log can come from, in the order a link numbers them.
pub const ENGINES: [Engine; 3] = [Engine::Vllm, Engine::Sglang, Engine::Llamacpp];

/// Reads the start-up lines of `low` (the paste normalised and lowercased by the reader); `None`
/// when it has none. vLLM first, then SGLang, then llama.cpp: a paste is one engine's.
pub fn read(low: &str, gb: &mut bool) -> Option<Startup> {
    [read_vllm, read_sglang, read_llamacpp].into_iter().find_map(|engine| engine(low, gb))
}

/// A size after the first of `phrases` found (the last occurrence of it).
fn size_of(low: &str, phrases: &[&str], gb: &mut bool) -> Option<f64> {
    phrases.iter().find_map(|p| size_at(after_last(low, p)?, gb))
}

/// The number in llama.cpp's aligned "name     = value" (the first `name` followed by spaces and
/// '=', so that `n_ctx` does not read `n_ctx_train`).
fn assigned(low: &str, name: &str) -> Option<f64> {
    let mut from = 0;
    while let Some(i) = find(&low[from..], name) {
        let rest = &low[from + i + name.len()..];
        if let Some(value) = rest.trim_start_matches(' ').strip_prefix('=') {
            return number_at(value).map(|v| v.0);
        }
        from += i + name.len();
    }
    None
}

/// The smallest value `value` reads after `phrase` on the lines that have it.
fn least(low: &str, phrase: &str, value: &mut dyn FnMut(&str) -> Option<f64>) -> Option<f64> {
    (low.lines().take(20_000)).filter_map(|l| value(&l[find(l, phrase)? + phrase.len()..])).reduce(f64::min)
}

/// The sizes after `phrase` on every line that has it, added up.
fn sum_of_lines(low: &str, phrase: &str, gb: &mut bool) -> Option<f64> {
    (low.lines().take(20_000)).filter_map(|l| size_at(&l[find(l, phrase)? + phrase.len()..], gb)).reduce(|a, b| a + b)
}

/// A plain number after the first of `phrases` found.
fn number_of(low: &str, phrases: &[&str]) -> Option<f64> {
    phrases.iter().find_map(|p| after_last(low, p).and_then(number_at).map(|v| v.0))
}

/// A size after `then`, within the line after the last `phrase`: "graph capturing finished in 8
/// secs, took 0.49 gib".
fn size_in_line(low: &str, phrase: &str, then: &str, gb: &mut bool) -> Option<f64> {
    let line = line_after(low, phrase)?;
    size_at(&line[find(line, then)? + then.len()..], gb)
}

/// The rest of the line after the last `phrase`.
fn line_after<'a>(low: &'a str, phrase: &str) -> Option<&'a str> {
    let rest = after_last(low, phrase)?;
    Some(&rest[..find(rest, "\n").unwrap_or(rest.len())])
}

/// A setting's value as a config line or an argument dict prints it: the first `, name=value`,
/// `(name=value` or `'name': value` (past quotes, up to a comma, a bracket, a quote or a space; at
/// most 120 characters). The boundary keeps `tp_size=` from matching `moe_dense_tp_size=`.
fn arg<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    // "config: model=" is V0's "with config: model='…'" (the offline `LLM` class prints no
    // arguments line).
    let forms = [format!(", {name}="), format!("({name}="), format!("'{name}': "), format!("config: {name}=")];
    let at = forms.iter().filter_map(|f| find(text, f).map(|i| i + f.len())).min()?;
    let rest = text[at..].trim_start_matches(['\'', '"', ' ']);
    let end = rest.find([',', ')', '\'', '"', ' ', '}', '\n']).unwrap_or(rest.len());
    Some(window(rest, 0, end.min(120))).filter(|v| !v.is_empty())
}

/// A setting's value as a number.
fn arg_number(text: &str, name: &str) -> Option<f64> {
    arg(text, name).and_then(number_at).map(|v| v.0)
}

/// A value after the first `phrase` (a free-text line: "vllm api server version 0.8.5").
fn word_after<'a>(text: &'a str, phrase: &str) -> Option<&'a str> {
    let rest = &text[find(text, phrase)? + phrase.len()..];
    let end = rest.find([',', ')', ' ', '\n']).unwrap_or(rest.len());
    Some(window(rest, 0, end.min(120))).filter(|v| !v.is_empty())
}

/// A whole number as a setting's value.
fn whole(v: f64) -> String {
    format!("{}", v.max(0.0).round() as u64)
}

/// A release as printed ("0.10.1.1", "0.8.5.post1", "0.10.1.dev101+gbda9d0535"): its first three
/// numbers.
fn release(text: &str) -> Option<String> {
    let digits: String = text.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let parts: Vec<&str> = digits.split('.').filter(|p| !p.is_empty()).take(3).collect();
    let r = crate::ledger::scenario::Release::parse(&parts.join("."))?;
    Some(r.to_string())
}

/// The settings a log printed, as they are read (a setting not found is left out).
#[derive(Default)]
struct Settings(Vec<(Key, String)>);

impl Settings {
    fn set(&mut self, key: Key, value: Option<String>) {
        if let Some(v) = value {
            self.0.push((key, v));
        }
    }
}

fn figures_found(figures: &[Option<f64>; FIGURES]) -> bool {
    figures.iter().any(Option::is_some)
}

fn read_vllm(low: &str, gb: &mut bool) -> Option<Startup> {
    let mut f = [None; FIGURES];
    f[Figure::Weights as usize] =
        size_of(low, &["model loading took", "loading model weights took", "model weights take"], gb);
    // 0.20 on, at every start: "Free memory on device (46.99/47.37 GiB) on startup. Desired GPU memory
    // utilization is (0.75, 35.53 GiB). Actual usage is 15.38 GiB for consumed memory (weights +
    // non-torch), 0.41 GiB for peak activation, and 0.0 GiB for CUDAGraph memory."
    let usage = line_after(low, "actual usage is").map(|l| format!("actual usage is{l}")).unwrap_or_default();
    let consumed = size_before(&usage, "for consumed memory", gb);
    f[Figure::ActivationPeak as usize] = size_before(&usage, "for peak activation", gb)
        .or_else(|| size_of(low, &["torch peak memory increase:", "pytorch activation peak memory takes"], gb))
        .or_else(|| {
            // 0.6.4's "Memory profiling results: … peak_torch_memory=8.70GiB" counts the weights.
            Some(size_of(low, &["peak_torch_memory="], gb)? - f[Figure::Weights as usize]?)
        });
    f[Figure::NonTorch as usize] =
        size_of(low, &["non-torch forward increase memory:", "non_torch_memory takes", "non_torch_memory="], gb)
            .or_else(|| Some(consumed? - f[Figure::Weights as usize]?).filter(|b| *b >= 0.0));
    f[Figure::CudaGraphs as usize] = size_in_line(low, "graph capturing finished in", "took", gb)
        .or_else(|| size_before(&usage, "for cudagraph memory", gb).filter(|b| *b > 0.0));
    // Each rank prints its pool (and V1 each worker's tokens); the engine plans for the smallest.
    f[Figure::KvPool as usize] = ["available kv cache memory:", "reserved for kv cache is", "kv_cache_size="]
        .iter()
        .find_map(|p| least(low, p, &mut |rest| size_at(rest, gb)));
    f[Figure::KvTokens as usize] = least(low, "gpu kv cache size:", &mut |rest| number_at(rest).map(|v| v.0));
    f[Figure::KvBlocks as usize] = number_of(low, &["# gpu blocks:", "# cuda blocks:"]);
    let concurrency = line_after(low, "maximum concurrency for");
    f[Figure::MaxConcurrency as usize] = least(low, "maximum concurrency for", &mut |line| {
        number_at(&line[find(line, "per request:")? + "per request:".len()..]).map(|v| v.0)
    });
    if !figures_found(&f) {
        return None;
    }
    let mut settings = Settings::default();
    let version =
        ["llm engine (v", "vllm api server version ", "vllm version "].iter().find_map(|p| word_after(low, p));
    // A release that prints none is dated by its lines: "# GPU blocks" and "Memory profiling
    // takes/results" are the V0 engine's (0.6–0.7, before V1 became the default in 0.8).
    let v0 = has(low, "# gpu blocks:") || has(low, "# cuda blocks:");
    settings.set(Key::EngineVersion, version.and_then(release).or_else(|| v0.then(|| "0.7".to_string())));
    let model = arg(low, "model").or_else(|| arg(low, "model_tag"));
    settings.set(Key::Model, model.and_then(preset_of).map(str::to_string));
    let tp = arg_number(low, "tensor_parallel_size").filter(|&n| n >= 1.0);
    settings.set(Key::Gpus, tp.map(whole));
    // A served grid: pipeline stages, data-parallel ranks, expert parallel over tp × dp.
    let pp = arg_number(low, "pipeline_parallel_size").filter(|&n| n > 1.0);
    let dp = arg_number(low, "data_parallel_size").filter(|&n| n > 1.0);
    settings.set(Key::Pp, pp.map(whole));
    settings.set(Key::Dp, dp.map(whole));
    let ep = (arg(low, "enable_expert_parallel") == Some("true")).then(|| tp.unwrap_or(1.0) * dp.unwrap_or(1.0));
    settings.set(Key::Ep, ep.filter(|&n| n > 1.0).map(whole));
    // `--max-model-len auto` (0.14 on) prints "Auto-fit max_model_len: …": the context is the engine's.
    if has(low, "auto-fit max_model_len") {
        settings.set(Key::MaxModelLen, Some("auto".into()));
    } else {
        let context = arg_number(low, "max_seq_len")
            .or_else(|| arg_number(low, "max_model_len"))
            .or_else(|| concurrency.and_then(number_at).map(|v| v.0));
        settings.set(Key::Seq, context.map(whole));
    }
    // Unsloth's `fast_inference` (`load_vllm`) prints the engine's share to two decimals of a
    // percent, where vLLM V0 rounds it to two digits, and the batch it gave vLLM.
    let unsloth_share = number_of(low, &["with actual gpu utilization = "]).map(|p| p / 100.0);
    let share = unsloth_share
        .or_else(|| {
            number_of(low, &["gpu_memory_utilization was", "x gpu_memory_utilization (", "gpu_memory_utilization="])
        })
        .or_else(|| arg_number(low, "gpu_memory_utilization"))
        .or_else(|| number_of(low, &["desired gpu memory utilization is ("]));
    settings.set(Key::GpuUtil, share.map(|v| format!("{v}")));
    let total = size_of(low, &["total gpu memory was", "total_gpu_memory (", "total_gpu_memory="], gb)
        .or_else(|| pair_after(low, "free memory on device", gb).map(|(_, total)| total))
        .or_else(|| size_of(low, &["with vram = "], gb));
    settings.set(Key::Vram, total.map(|b| format!("{:.2}", b / f64::from(1u32 << 30))));
    let quantization = arg(low, "quantization");
    settings.set(Key::Quant, quantization.and_then(|q| vllm_quant(q, model.unwrap_or(""))).map(str::to_string));
    let kv = arg(low, "kv_cache_dtype").filter(|k| k.starts_with("fp8"));
    settings.set(Key::Kv, kv.map(|_| "fp8".to_string()));
    if arg(low, "enforce_eager") == Some("true") {
        settings.set(Key::CudaGraphs, Some("0".into()));
    }
    let batched = number_of(low, &["chunked prefill is enabled with max_num_batched_tokens="])
        .or_else(|| arg_number(low, "max_num_batched_tokens"))
        .or_else(|| number_of(low, &["chunked prefill tokens = "]));
    settings.set(Key::MaxBatchedTokens, batched.map(whole));
    let seqs = arg_number(low, "max_num_seqs").or_else(|| number_of(low, &["num sequences = "]));
    settings.set(Key::MaxNumSeqs, seqs.map(whole));
    settings.set(Key::BlockSize, arg_number(low, "block_size").map(whole));
    // `speculative_config`: {'method': 'ngram', 'num_speculative_tokens': 4} as passed, or
    // SpeculativeConfig(method='ngram', model=None, num_spec_tokens=4) as the engine prints it.
    let method = arg(low, "method").filter(|_| has(low, "speculative_config"));
    settings.set(Key::Spec, method.and_then(spec_method).map(str::to_string));
    let spec_tokens = arg_number(low, "num_speculative_tokens").or_else(|| arg_number(low, "num_spec_tokens"));
    settings.set(Key::SpecTokens, spec_tokens.filter(|_| method.is_some()).map(whole));
    Some(Startup { engine: Engine::Vllm, figures: f, settings: settings.0 })
}

/// vLLM's speculative method as a `spec` value (the MTP methods are named after their models).
fn spec_method(m: &str) -> Option<&'static str> {
    Some(match m {
        "ngram" | "ngram_gpu" => "ngram",
        "eagle" => "eagle",
        "eagle3" => "eagle3",
        "draft_model" => "draft",
        _ if m.ends_with("mtp") => "mtp",
        _ => return None,
    })
}

/// vLLM's `quantization` as a `quant` value; the model's name tells a block-FP8 checkpoint
/// ("…-FP8") from per-channel ones ("…-FP8-dynamic") and a compressed-tensors scheme.
fn vllm_quant(q: &str, model: &str) -> Option<&'static str> {
    Some(match q {
        "fp8" if has(model, "fp8-dynamic") => "fp8_channel",
        "fp8" if has(model, "fp8") => "fp8_block",
        "fp8" => "fp8",
        "gptq" | "gptq_marlin" => "gptq4",
        "awq" | "awq_marlin" => "awq4",
        "bitsandbytes" => "nf4",
        "mxfp4" => "mxfp4",
        "modelopt_fp4" => "nvfp4",
        "compressed-tensors" | "compressed_tensors" if has(model, "w8a8") => "w8a8",
        "compressed-tensors" | "compressed_tensors" if has(model, "w4a16") => "w4a16",
        _ => return None,
    })
}

fn read_sglang(low: &str, gb: &mut bool) -> Option<Startup> {
    let mut f = [None; FIGURES];
    f[Figure::Weights as usize] = size_in_line(low, "load weight end", "mem usage=", gb);
    f[Figure::FreeBeforeLoad as usize] = size_in_line(low, "load weight begin", "avail mem=", gb);
    let pool = line_after(low, "kv cache is allocated");
    let sizes = pool.map(|l| {
        let k = size_of(l, &["k size:"], gb);
        let v = size_of(l, &["v size:"], gb);
        let kv = if has(l, " kv size:") { size_of(l, &[" kv size:"], gb) } else { None };
        (k, v, kv)
    });
    f[Figure::KvPool as usize] = match sizes {
        Some((Some(k), Some(v), _)) => Some(k + v),
        Some((_, _, kv)) => kv,
        None => None,
    };
    f[Figure::KvTokens as usize] = pool
        .and_then(|l| after_last(l, "#tokens:"))
        .and_then(number_at)
        .map(|v| v.0)
        .or_else(|| number_of(low, &["max_total_num_tokens="]));
    f[Figure::CudaGraphs as usize] = size_in_line(low, "capture cuda graph end", "mem usage=", gb);
    if !figures_found(&f) {
        return None;
    }
    // The server's arguments, one line: "server_args=ServerArgs(model_path='…', tp_size=2, …)".
    let args = last(low, "serverargs(").map_or("", |i| {
        let line = &low[i + "serverargs".len()..];
        &line[..find(line, "\n").unwrap_or(line.len())]
    });
    let mut settings = Settings::default();
    let model = arg(args, "model_path");
    settings.set(Key::Model, model.and_then(preset_of).map(str::to_string));
    // SGLang's `--tp` is the whole tensor-parallel group; with data-parallel attention `dp_size`
    // ranks share it (attention over tp_size / dp_size: the ledger's tp and dp).
    let group = arg_number(args, "tp_size").filter(|&n| n >= 1.0);
    let dp = arg_number(args, "dp_size").filter(|&n| n > 1.0 && arg(args, "enable_dp_attention") == Some("true"));
    settings.set(Key::Gpus, group.map(|g| whole(dp.map_or(g, |d| (g / d).max(1.0).floor()))));
    settings.set(Key::Dp, dp.map(whole));
    settings.set(Key::Pp, arg_number(args, "pp_size").filter(|&n| n > 1.0).map(whole));
    settings.set(Key::Ep, arg_number(args, "ep_size").filter(|&n| n > 1.0).map(whole));
    settings.set(Key::MemFraction, arg_number(args, "mem_fraction_static").map(|v| format!("{v}")));
    settings.set(Key::Seq, arg_number(args, "context_length").map(whole));
    let kv = arg(args, "kv_cache_dtype").filter(|k| k.starts_with("fp8"));
    settings.set(Key::Kv, kv.map(|_| "fp8".to_string()));
    let quantization = arg(args, "quantization");
    settings.set(Key::Quant, quantization.and_then(|q| vllm_quant(q, model.unwrap_or(""))).map(str::to_string));
    settings.set(Key::MaxNumSeqs, arg_number(args, "max_running_requests").map(whole));
    settings.set(Key::MaxBatchedTokens, arg_number(args, "chunked_prefill_size").filter(|&n| n > 0.0).map(whole));
    if arg(args, "disable_cuda_graph") == Some("true") {
        settings.set(Key::CudaGraphs, Some("0".into()));
    }
    Some(Startup { engine: Engine::Sglang, figures: f, settings: settings.0 })
}

fn read_llamacpp(low: &str, gb: &mut bool) -> Option<Startup> {
    let mut f = [None; FIGURES];
    f[Figure::Weights as usize] = size_of(low, &["cuda0 model buffer size =", "cuda0 buffer size ="], gb);
    // A model with sliding-window layers has two caches (llama_kv_cache_iswa), each its buffer.
    f[Figure::KvPool as usize] = sum_of_lines(low, "cuda0 kv buffer size =", gb);
    f[Figure::ComputeBuffer as usize] = size_of(low, &["cuda0 compute buffer size ="], gb);
    // "llama_kv_cache: size = 640.00 MiB ( 16384 cells, 5 layers, 2/2 seqs)": the largest cache's
    // cells (a recurrent state's "cells" are sequences, not tokens).
    f[Figure::KvTokens as usize] = (low.lines().take(20_000))
        .filter(|l| has(l, "llama_kv_cache"))
        .filter_map(|l| {
            let head = &l[..find(l, " cells,")?];
            number_at(&head[head.rfind('(')? + 1..]).map(|v| v.0)
        })
        .reduce(f64::max);
    if !figures_found(&f) {
        return None;
    }
    let mut settings = Settings::default();
    // "general.name str = Llama 3.1 8B Instruct".
    let name = line_after(low, "general.name").and_then(|l| Some(l[find(l, "= ")? + 2..].trim()));
    settings.set(Key::Model, name.and_then(preset_of).map(str::to_string));
    let ftype = line_after(low, "file type").or_else(|| line_after(low, "model ftype"));
    settings.set(Key::Quant, ftype.and_then(gguf_quant).map(str::to_string));
    let n_ctx = assigned(low, "n_ctx");
    let slots = assigned(low, "n_seq_max").filter(|&n| n >= 1.0);
    let per_slot = (assigned(low, "n_ctx_per_seq").or_else(|| assigned(low, "n_ctx_seq")))
        .or_else(|| Some(n_ctx? / slots.unwrap_or(1.0)));
    settings.set(Key::Seq, per_slot.map(whole));
    settings.set(Key::Batch, slots.filter(|&n| n > 1.0).map(whole));
    // "offloaded 20/33 layers to GPU": fewer than all.
    let offloaded = line_after(low, "offloaded ").and_then(|l| {
        let (on, used) = number_at(l)?;
        let of = number_at(l[used..].strip_prefix('/')?)?.0;
        (on < of).then_some(on)
    });
    settings.set(Key::GpuLayers, offloaded.map(whole));
    let k_type =
        ["type_k = '", " k ("].iter().find_map(|p| word_after(low, p)).map(|k| k.trim_end_matches(['\'', ')', ':']));
    let kv = k_type.and_then(|k| match k {
        "q8_0" => Some("int8"),
        "q4_0" | "q4_1" => Some("int4"),
        _ => None,
    });
    settings.set(Key::Kv, kv.map(str::to_string));
    Some(Startup { engine: Engine::Llamacpp, figures: f, settings: settings.0 })
}

/// A GGUF file type as printed ("Q4_K - Medium") as a `quant` value.
fn gguf_quant(line: &str) -> Option<&'static str> {
    let t = line.trim_start_matches([' ', '=']).trim();
    Some(match t {
        _ if t.starts_with("q4_k - m") => "q4_k_m",
        _ if t.starts_with("q5_k - m") => "q5_k_m",
        _ if t.starts_with("q6_k") => "q6_k",
        _ if t.starts_with("q8_0") => "q8_0",
        _ if t.starts_with("bf16") => "bf16",
        _ if t.starts_with("f16") => "fp16",
        _ => return None,
    })
}

/// The suffixes a checkpoint's name adds to its model's (instruction tuning, a quantized copy).
const SUFFIXES: [&str; 22] = [
    "-instruct",
    "-it",
    "-chat",
    "-hf",
    "-fp8",
    "-fp8-dynamic",
    "-dynamic",
    "-awq",
    "-gptq-int4",
    "-gptq-int8",
    "-int4",
    "-int8",
    "-gguf",
    "-base",
    "-2507",
    "-thinking",
    "-bnb-4bit",
    "-w8a8",
    "-quantized.w8a8",
    "-quantized.w4a16",
    "-w4a16",
    "-mlx",
];

/// Checkpoints whose shapes are a preset's: DeepSeek-R1's distilled models are Qwen2.5 and Llama
/// 3.1 / 3.3 models fine-tuned, and Llama 3's 8B and 70B have Llama 3.1's shapes (only the RoPE
/// scaling and the context differ, which the weights and the KV per token do not see).
const SAME_SHAPES: [(&str, &str); 8] = [
    ("deepseek-r1-distill-qwen-1.5b", "qwen2.5-1.5b"),
    ("deepseek-r1-distill-qwen-7b", "qwen2.5-7b"),
    ("deepseek-r1-distill-qwen-14b", "qwen2.5-14b"),
    ("deepseek-r1-distill-qwen-32b", "qwen2.5-32b"),
    ("deepseek-r1-distill-llama-8b", "llama-3.1-8b"),
    ("deepseek-r1-distill-llama-70b", "llama-3.3-70b"),
    ("llama-3-8b", "llama-3.1-8b"),
    ("llama-3-70b", "llama-3.1-70b"),
];

/// A name reduced to compare: the last path part, lowercased, spaces and underscores as dashes,
/// "meta-" and the checkpoint's suffixes removed.
fn model_stem(name: &str) -> String {
    let last = name.rsplit('/').next().unwrap_or(name).trim();
    let mut s: String = last.chars().map(|c| if c == ' ' || c == '_' { '-' } else { c.to_ascii_lowercase() }).collect();
    if let Some(rest) = s.strip_prefix("meta-") {
        s = rest.to_string();
    }
    while let Some(cut) = SUFFIXES.iter().find_map(|x| s.strip_suffix(x)) {
        s = cut.to_string();
    }
    s
}

/// The preset a printed model name (a Hugging Face repository, a GGUF's `general.name`) is.
pub fn preset_of(name: &str) -> Option<&'static str> {
    let stem = model_stem(name);
    if stem.is_empty() {
        return None;
    }
    let stem = SAME_SHAPES.iter().find(|(name, _)| *name == stem).map_or(stem.as_str(), |(_, preset)| preset);
    let names = |p: &presets::ModelPreset| [p.id.to_string(), model_stem(p.repository())];
    let exact = presets::models().iter().find(|p| names(p).iter().any(|n| n == stem));
    // A community fine-tune keeps its base's name first ("Qwen3-4B-abliterated"): the longest
    // preset name the stem starts with, followed by a dash.
    let base = || {
        (presets::models().iter())
            .filter_map(|p| {
                let n = names(p)
                    .into_iter()
                    .filter(|n| !n.is_empty() && stem.starts_with(&format!("{n}-")))
                    .max_by_key(String::len)?;
                Some((n.len(), p))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, p)| p)
    };
    exact.or_else(base).map(|p| p.id)
}

/// A setting the log printed, as the check applied it.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub key: Key,
    pub value: String,
    /// The configuration's own value, when it set one (`None`: its default).
    pub was: Option<String>,
    /// The log's value differs from the configuration's.
    pub changed: bool,
    /// The codec refused the value (out of range): not applied.
    pub refused: bool,
}

/// One figure: the engine's, the ledger's with the log's settings, the ledger's with the
/// configuration's own settings, and the settings that move the ledger's figure toward the engine's.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub figure: Figure,
    pub engine: f64,
    pub ledger: Option<f64>,
    pub configured: Option<f64>,
    /// The settings that, each applied alone, bring the configuration's figure closest to the
    /// engine's (at most three, the strongest first).
    pub moved_by: Vec<(Key, String)>,
}

impl Row {
    /// The ledger's figure over the engine's, less one (`None` when either is missing or zero).
    pub fn difference(&self) -> Option<f64> {
        let l = self.ledger?;
        (self.engine > 0.0).then(|| l / self.engine - 1.0)
    }
}

/// A start-up log checked against the ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub engine: Engine,
    pub settings: Vec<Setting>,
    /// The configuration billed: the user's with the log's settings (the link's query).
    pub query: String,
    pub rows: Vec<Row>,
    /// The card the engine's pool points to, when the log does not print the card's total and
    /// the pool is off by more than [`WITHIN`].
    pub card: Option<Card>,
}

/// A card's total as PyTorch sees it that gives the engine's pool, and the presets near it.
#[derive(Clone, Debug, PartialEq)]
pub struct Card {
    pub torch_bytes: f64,
    /// The configuration's card (its name) and total.
    pub configured: (String, f64),
    /// GPU presets within 3 % of `torch_bytes` that reproduce the engine's pool with the log's
    /// settings, the closest first; the nearest by size when none does (at most three).
    pub presets: Vec<&'static str>,
}

/// vLLM and SGLang take a share of the card: the pool moves by the share of any change to the
/// total, so the engine's pool gives the total back. `None` for llama.cpp (it sizes from what it
/// is asked), when the log prints the total, or when the pool agrees.
fn implied_card(log: &Startup, applied: &Scenario, ledger: &Serving) -> Option<Card> {
    if log.engine == Engine::Llamacpp || log.settings.iter().any(|(k, _)| *k == Key::Vram) || ledger.share <= 0.0 {
        return None;
    }
    let now = applied.gpu.torch_bytes as f64;
    // SGLang prints what was free before loading: the card less what the ledger holds back.
    let free = (log.figure(Figure::FreeBeforeLoad)).zip(Figure::FreeBeforeLoad.of(ledger));
    if let Some((engine_free, free)) = free {
        if (free / engine_free - 1.0).abs() <= WITHIN {
            return None;
        }
        return card_near(now + engine_free - free, applied);
    }
    let pool = ledger.kv_pool_bytes as f64;
    // Without the pool's line, its size from the tokens the engine counted.
    let engine_pool = log.figure(Figure::KvPool).or_else(|| {
        let tokens = ledger.kv_tokens as f64;
        let engine_tokens = log.figure(Figure::KvTokens)?;
        (tokens > 0.0).then(|| pool * engine_tokens / tokens)
    })?;
    if engine_pool <= 0.0 || (pool / engine_pool - 1.0).abs() <= WITHIN {
        return None;
    }
    card_near(now + (engine_pool - pool) / ledger.share, applied)
}

/// A card of `torch_bytes` (as PyTorch sees it) and the presets within 3 % of it.
fn card_near(torch_bytes: f64, applied: &Scenario) -> Option<Card> {
    if torch_bytes <= 0.0 || !torch_bytes.is_finite() {
        return None;
    }
    let now = applied.gpu.torch_bytes as f64;
    let mut near: Vec<(f64, &'static str)> = (presets::GPUS.iter())
        .filter(|g| g.memory == presets::Memory::Dedicated)
        .map(|g| ((g.torch_bytes() as f64 / torch_bytes - 1.0).abs(), g.id))
        .filter(|(d, _)| *d <= 0.03)
        .collect();
    near.sort_by(|a, b| a.0.total_cmp(&b.0));
    let presets = near.into_iter().take(6).map(|(_, id)| id).collect();
    Some(Card { torch_bytes, configured: (applied.gpu.name.clone(), now), presets })
}

/// The presets of `card` that reproduce the engine's pool (or its tokens) within [`WITHIN`] when
/// billed with the log's settings, the closest first: cards of one size can differ in the
/// engine's defaults (vLLM's batch defaults on ≥ 70 GiB cards other than the A100). The nearest
/// by size when none does; at most three.
fn reproducing(card: &mut Card, log: &Startup, base: &[(String, String)], applied: &[(Key, String)]) {
    let figure = [Figure::KvPool, Figure::KvTokens].into_iter().find(|f| log.figure(*f).is_some());
    let Some((figure, engine)) = figure.and_then(|f| Some((f, log.figure(f)?))) else { return };
    let mut fits: Vec<(f64, &'static str)> = (card.presets.iter())
        .filter_map(|&id| {
            let mut settings = applied.to_vec();
            settings.push((Key::Gpu, id.to_string()));
            let d = figure.of(&serving_of(&joined(base, &settings))?)? / engine - 1.0;
            (d.abs() <= WITHIN).then_some((d.abs(), id))
        })
        .collect();
    fits.sort_by(|a, b| a.0.total_cmp(&b.0));
    if !fits.is_empty() {
        card.presets = fits.into_iter().map(|(_, id)| id).collect();
    }
    card.presets.truncate(3);
}

/// A difference within this share is agreement (the engines' own figures round to 0.01 GiB and
/// 1 %).
pub const WITHIN: f64 = 0.05;

/// The configuration's query and the log's settings as one query, in order (the last key wins).
fn joined(base: &[(String, String)], extra: &[(Key, String)]) -> String {
    let mut parts: Vec<String> = base.iter().map(|(k, v)| format!("{k}={}", query::percent_encode(v))).collect();
    parts.extend(extra.iter().map(|(k, v)| format!("{}={}", k.name(), query::percent_encode(v))));
    parts.join("&")
}

/// `value` is what `s` has for `key` already (a default the configuration's query leaves out).
fn is_default(s: &Scenario, key: Key, value: &str) -> bool {
    query::with_key(s, key, value).0 == *s
}

fn serving_of(q: &str) -> Option<Serving> {
    crate::ledger::estimate(&query::parse(q).scenario).serving
}

/// Checks `log` against `s` (the user's configuration; the defaults when none is set): `s` served
/// by the log's engine, then with each setting the log printed.
pub fn check(log: &Startup, s: &Scenario) -> Check {
    let base_query = query::to_query(s, &[]);
    let own = query::split_query(&base_query);
    let mut base = own.clone();
    let names_model = log.settings.iter().any(|(k, _)| *k == Key::Model);
    // A model named by the log replaces the configuration's, shape and all.
    let is_shape = |k: &str| k == "model" || KEYS.iter().any(|d| d.architecture && d.name == k);
    base.retain(|(k, _)| !(names_model && is_shape(k)) && k != "mode" && k != "engine");
    // A key the log sets is the log's (written once, after the configuration's others): the
    // release printed, for one, goes with the engine.
    base.retain(|(k, _)| !log.settings.iter().any(|(l, _)| l.name() == k));
    base.push(("mode".into(), "infer".into()));
    base.push(("engine".into(), log.engine.id().into()));
    let mut settings: Vec<Setting> = Vec::new();
    for (key, value) in &log.settings {
        let was = own.iter().rev().find(|(k, _)| k == key.name()).map(|(_, v)| v.clone());
        let refused = query::parse(&joined(&base, &[(*key, value.clone())])).errors.iter().any(|e| e.key == key.name());
        let changed = was.as_deref() != Some(value.as_str()) && !is_default(s, *key, value);
        settings.push(Setting { key: *key, value: value.clone(), was, changed, refused });
    }
    let applied: Vec<(Key, String)> =
        settings.iter().filter(|t| !t.refused).map(|t| (t.key, t.value.clone())).collect();
    let full = joined(&base, &applied);
    let applied_scenario = query::parse(&full).scenario;
    let ledger = crate::ledger::estimate(&applied_scenario).serving;
    let configured = serving_of(&joined(&base, &[]));
    let alone: Vec<(Key, String, Option<Serving>)> =
        applied.iter().map(|(k, v)| (*k, v.clone(), serving_of(&joined(&base, &[(*k, v.clone())])))).collect();
    let rows = Figure::ALL
        .into_iter()
        .filter_map(|figure| {
            let engine = log.figure(figure)?;
            let of = |s: &Option<Serving>| s.as_ref().and_then(|s| figure.of(s));
            let before = of(&configured);
            let mut moved: Vec<(f64, Key, String)> = before
                .map(|b| {
                    alone
                        .iter()
                        .filter_map(|(k, v, s)| {
                            let gain = (b - engine).abs() - (of(s)? - engine).abs();
                            (gain > 0.01 * engine.abs().max(f64::MIN_POSITIVE)).then(|| (gain, *k, v.clone()))
                        })
                        .collect()
                })
                .unwrap_or_default();
            moved.sort_by(|a, b| b.0.total_cmp(&a.0));
            let moved_by = moved.into_iter().take(3).map(|(_, k, v)| (k, v)).collect();
            Some(Row { figure, engine, ledger: of(&ledger), configured: before, moved_by })
        })
        .collect();
    let mut card = ledger.as_ref().and_then(|l| implied_card(log, &applied_scenario, l));
    if let Some(c) = card.as_mut() {
        reproducing(c, log, &base, &applied);
    }
    Check { engine: log.engine, settings, query: full, rows, card }
}
