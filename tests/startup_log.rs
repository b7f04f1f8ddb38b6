//! A serving engine's start-up log set beside the ledger (`tree::startup`): the figures and settings
//! read from fifteen published logs (tests/data/startup_logs/, each file's header gives its URL; the
//! lines are verbatim), the check's arithmetic, the link, and hostile input. Expected figures are the
//! numbers the logs print; the ledger's agreement is asserted only where the log states everything
//! the bill needs (the card's total among them), with the bound the measured set uses for engines.

use vram_ledger::query::Key;
use vram_ledger::tree::paste::{diagnose_paste, diagnose_reading, Cause};
use vram_ledger::tree::reader::{read, Reading};
use vram_ledger::tree::startup::{check, Figure, Startup};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

fn log(name: &str) -> String {
    let path = format!("{}/tests/data/startup_logs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn startup(name: &str) -> Startup {
    let r = read(&log(name));
    Startup::from_items(&r.startup).unwrap_or_else(|| panic!("{name}: no start-up lines read"))
}

fn setting(st: &Startup, key: Key) -> Option<&str> {
    st.settings.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
}

/// Within `share` (1e-6: the link keeps whole bytes).
fn close(a: f64, b: f64, share: f64) -> bool {
    (a / b - 1.0).abs() <= share
}

/// vLLM 0.6.4.post1 (V0), Llama-3.1-8B-Instruct, TP2: the log prints the card's total, the share,
/// the weights, the profile's peak, non-torch memory, the pool and its blocks.
const V064: &str = "vllm-0.6.4.post1-llama-3.1-8b-instruct-tp2.log";

#[test]
fn a_v0_log_gives_its_figures_and_settings() {
    let st = startup(V064);
    // "Loading model weights took 7.5122 GB" (GiB printed as GB).
    assert!(close(st.figure(Figure::Weights).unwrap_or(0.0), 7.5122 * GIB, 1e-6));
    // "Memory profiling results: total_gpu_memory=44.42GiB … peak_torch_memory=8.70GiB …
    // non_torch_memory=0.73GiB kv_cache_size=30.55GiB": the peak counts the weights, 8.70 − 7.5122.
    assert!(close(st.figure(Figure::ActivationPeak).unwrap_or(0.0), (8.70 - 7.5122) * GIB, 1e-6));
    assert!(close(st.figure(Figure::NonTorch).unwrap_or(0.0), 0.73 * GIB, 1e-6));
    assert!(close(st.figure(Figure::KvPool).unwrap_or(0.0), 30.55 * GIB, 1e-6));
    // "# GPU blocks: 31284", "Maximum concurrency for 131072 tokens per request: 3.82x",
    // "Graph capturing finished in 9 secs, took 0.23 GiB".
    assert_eq!(st.figure(Figure::KvBlocks), Some(31284.0));
    assert_eq!(st.figure(Figure::MaxConcurrency), Some(3.82));
    assert!(close(st.figure(Figure::CudaGraphs).unwrap_or(0.0), 0.23 * GIB, 1e-6));
    assert_eq!(setting(&st, Key::EngineVersion), Some("0.6.4"));
    assert_eq!(setting(&st, Key::Model), Some("llama-3.1-8b"));
    assert_eq!(setting(&st, Key::Gpus), Some("2"));
    assert_eq!(setting(&st, Key::Seq), Some("131072"));
    assert_eq!(setting(&st, Key::GpuUtil), Some("0.9"));
    assert_eq!(setting(&st, Key::Vram), Some("44.42"));
    // "Chunked prefill is enabled with max_num_batched_tokens=512."
    assert_eq!(setting(&st, Key::MaxBatchedTokens), Some("512"));
    // The log's hint "set 'enforce_eager=True'" is advice, not the setting (`enforce_eager=False`).
    assert_eq!(setting(&st, Key::CudaGraphs), None);
}

#[test]
fn a_log_that_states_everything_is_reproduced() {
    // Held out (not in the measured set): with the card's total and every setting printed, the
    // pool, its blocks and the concurrency within the serving target's 2 % (docs/serving.md).
    let c = check(&startup(V064), &vram_ledger::ledger::Scenario::default());
    for f in [Figure::Weights, Figure::KvPool, Figure::KvBlocks, Figure::MaxConcurrency] {
        let row = c.rows.iter().find(|r| r.figure == f).unwrap_or_else(|| panic!("{f:?} row"));
        let d = row.difference().unwrap_or(f64::NAN);
        assert!(d.abs() <= 0.02, "{f:?}: engine {} ledger {:?}", row.engine, row.ledger);
    }
    assert!(c.query.contains("gpus=2") && c.query.contains("vram=44.42"), "{}", c.query);
    assert!(c.card.is_none(), "the log prints the total: no card to infer");
}

#[test]
fn the_settings_that_explain_a_gap_are_named() {
    // The configuration: one GPU of the default card; the log: two GPUs of 44.42 GiB. Alone, the
    // log's `gpus=2` halves the weights (7.51 GiB per GPU against 14.96 for one), so it is what
    // moves the weights' row; the pool moves with the card and the split.
    let c = check(&startup(V064), &vram_ledger::ledger::Scenario::default());
    let row = |f: Figure| c.rows.iter().find(|r| r.figure == f).cloned().unwrap_or_else(|| panic!("{f:?}"));
    let weights = row(Figure::Weights);
    assert_eq!(weights.moved_by.first().map(|(k, v)| (*k, v.as_str())), Some((Key::Gpus, "2")));
    assert!(weights.configured.unwrap_or(0.0) > 1.9 * weights.engine);
    let pool = row(Figure::KvPool);
    let movers: Vec<Key> = pool.moved_by.iter().map(|(k, _)| *k).collect();
    assert!(movers.contains(&Key::Vram) && movers.contains(&Key::Gpus), "{movers:?}");
    // The settings list says what the configuration had: `gpus` was not set (its default).
    let gpus = c.settings.iter().find(|t| t.key == Key::Gpus).unwrap_or_else(|| panic!("gpus"));
    assert!(gpus.changed && gpus.was.is_none() && !gpus.refused);
}

#[test]
fn a_v1_log_without_the_card_points_to_one() {
    // vLLM 0.15 (V1), Llama-3-8B-Instruct on one GPU: "Model loading took 14.96 GiB", "Available KV
    // cache memory: 55.09 GiB", no card, the default share 0.9. By hand: 0.9 × T ≈ 55.09 + 14.96 +
    // ~1.3 GiB (profile peak, graphs) → T ≈ 79.3 GiB, an 80 GB card as PyTorch sees it.
    let st = startup("vllm-0.15.0rc2-llama-3-8b-instruct.log");
    assert!(close(st.figure(Figure::Weights).unwrap_or(0.0), 14.96 * GIB, 1e-6));
    assert!(close(st.figure(Figure::KvPool).unwrap_or(0.0), 55.09 * GIB, 1e-6));
    // "GPU KV cache size: 451,312 tokens"; Llama 3 has Llama 3.1's shapes.
    assert_eq!(st.figure(Figure::KvTokens), Some(451_312.0));
    assert_eq!(setting(&st, Key::Model), Some("llama-3.1-8b"));
    let c = check(&st, &vram_ledger::ledger::Scenario::default());
    let card = c.card.unwrap_or_else(|| panic!("a card is inferred"));
    assert!((78.5..80.5).contains(&(card.torch_bytes / GIB)), "{} GiB", card.torch_bytes / GIB);
    // Of the 80 GB cards, the A100's reproduces the pool: vLLM gives cards of ≥ 70 GiB other than
    // the A100 1,024 sequences by default (arg_utils.py), whose sampler warm-up is 4 × the 256
    // here, so an H100 billed with this log's settings leaves a smaller pool.
    assert_eq!(card.presets.first(), Some(&"a100-80g"), "{:?}", card.presets);
    assert!(!card.presets.contains(&"h100-80g"), "{:?}", card.presets);
}

#[test]
fn sglang_args_are_read_at_their_boundaries() {
    // server_args=ServerArgs(model_path='…/Qwen2.5-3B-Instruct', …, mem_fraction_static=0.836, …,
    // chunked_prefill_size=8192, …, disable_cuda_graph=True, …); "Load weight end. … mem usage=5.88
    // GB."; "KV Cache is allocated. #tokens: 1743556, K size: 29.93 GB, V size: 29.93 GB".
    let st = startup("sglang-qwen2.5-3b-instruct-nocudagraph.log");
    assert_eq!(st.engine, vram_ledger::ledger::scenario::Engine::Sglang);
    assert!(close(st.figure(Figure::Weights).unwrap_or(0.0), 5.88 * GIB, 1e-6));
    assert!(close(st.figure(Figure::KvPool).unwrap_or(0.0), 2.0 * 29.93 * GIB, 1e-6));
    assert_eq!(st.figure(Figure::KvTokens), Some(1_743_556.0));
    assert_eq!(setting(&st, Key::Model), Some("qwen2.5-3b"));
    assert_eq!(setting(&st, Key::MemFraction), Some("0.836"));
    assert_eq!(setting(&st, Key::MaxBatchedTokens), Some("8192"));
    assert_eq!(setting(&st, Key::CudaGraphs), Some("0"));
    // tp_size=1 is read as tp_size, not as another `…_tp_size=None`.
    assert_eq!(setting(&st, Key::Gpus), Some("1"));
    // "Load weight begin. avail mem=78.64 GB": an 80 GB card, which the pool points back to.
    let c = check(&st, &vram_ledger::ledger::Scenario::default());
    let card = c.card.unwrap_or_else(|| panic!("a card is inferred"));
    assert!(card.presets.contains(&"h100-80g"), "{:?}", card.presets);
    let p = diagnose_paste(&log("sglang-qwen2.5-3b-instruct-nocudagraph.log"), None);
    assert_eq!(p.cause, Cause::StartupLog, "a start-up log without an error");
}

#[test]
fn llama_cpp_caches_are_added_and_counted_in_cells() {
    // Gemma-4 on a T4: "llama_kv_cache: CUDA0 KV buffer size = 640.00 MiB" (16384 cells, full
    // attention) and "= 600.00 MiB" (1536 cells, sliding window); n_ctx = 32768, n_seq_max = 2,
    // n_ctx_seq = 16384.
    let st = startup("llamacpp-gemma-4-26b-a4b-iq4nl-t4.log");
    assert_eq!(st.figure(Figure::KvPool), Some(1240.0 * MIB));
    assert_eq!(st.figure(Figure::KvTokens), Some(16384.0));
    assert_eq!(setting(&st, Key::Seq), Some("16384"));
    assert_eq!(setting(&st, Key::Batch), Some("2"));
    // Qwen3.5 (hybrid): the KV cache's 6912 cells, not the recurrent state's "( 4 cells".
    let st = startup("llamacpp-qwen3.5-35b-a3b-iq2m-rtx4060ti.log");
    assert_eq!(st.figure(Figure::KvTokens), Some(6912.0));
    assert_eq!(st.figure(Figure::KvPool), Some(135.0 * MIB));
    // "offloaded 0/37 layers to GPU" (-ngl -1 on this build) and the file type Q6_K.
    let st = startup("llamacpp-b5285-qwen3-4b-q6k-gtx1660ti-ngl-minus1.log");
    assert_eq!(setting(&st, Key::GpuLayers), Some("0"));
    assert_eq!(setting(&st, Key::Quant), Some("q6_k"));
}

#[test]
fn every_published_log_is_read_and_checked() {
    let dir = format!("{}/tests/data/startup_logs", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".log"))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    for name in &names {
        let text = log(name);
        assert!(text.starts_with("# url: https://github.com/"), "{name}: the header names its source");
        let p = diagnose_paste(&text, None);
        let c = p.startup.as_ref().unwrap_or_else(|| panic!("{name}: no check"));
        assert!(!c.rows.is_empty(), "{name}");
        for r in &c.rows {
            assert!(r.engine.is_finite() && r.ledger.is_none_or(f64::is_finite), "{name}: {r:?}");
        }
        // The link carries the figures and settings, and gives the same check back.
        let link = p.reading.to_link();
        let back = Reading::from_link(&link).unwrap_or_else(|| panic!("{name}: {link}"));
        let again = diagnose_reading(back, None);
        assert_eq!(again.cause, p.cause, "{name}");
        assert_eq!(again.startup.map(|c| c.rows.len()), Some(c.rows.len()), "{name}");
    }
}

#[test]
fn an_error_keeps_its_diagnosis_and_gains_the_rows() {
    // Oracle's A10 note: the start-up lines, then "max seq len (131072) is larger than the maximum
    // number of tokens that can be stored in KV cache (37696)".
    let p = diagnose_paste(&log("vllm-v0-llama-3.1-8b-a10-kv-too-small.log"), None);
    assert_eq!(p.cause, Cause::KvBudget);
    let c = p.startup.unwrap_or_else(|| panic!("the start-up lines are read too"));
    // "# CUDA blocks: 2356": no release printed, so the V0 lines date it.
    assert!(c.rows.iter().any(|r| r.figure == Figure::KvBlocks && r.engine == 2356.0));
    assert!(c.query.contains("engine_version=0.7"), "{}", c.query);
}

#[test]
fn hostile_start_up_items_are_refused() {
    for items in [
        "",
        "Y9",
        "V0:1",
        "Y0,V99:1",
        "Y0,V0:nan",
        "Y0,Kgpus:<b>",
        "Y0,Kmodel:../../etc",
        "Y0,Knot_a_key:1",
        "Y0,Kgpus",
    ] {
        assert_eq!(Startup::from_items(items), None, "{items}");
    }
    // Out-of-range values pass the reader (plain numbers) and are refused by the codec, listed.
    let st = Startup::from_items("Y0,V4:1000,Kgpus:0,Kgpu_util:7").unwrap_or_else(|| panic!("plain items"));
    let c = check(&st, &vram_ledger::ledger::Scenario::default());
    assert!(c.settings.iter().all(|t| t.refused), "{:?}", c.settings);
    assert!(!c.query.contains("gpus=0") && !c.query.contains("gpu_util=7"), "{}", c.query);
    // A link of many settings is cut, not read.
    let many: Vec<String> = (0..40).map(|i| format!("Kseq:{}", 1000 + i)).collect();
    assert_eq!(Startup::from_items(&format!("Y0,{}", many.join(","))), None);
}

#[test]
fn the_smallest_rank_is_the_engines_plan() {
    // vLLM 0.10.0, Qwen3-235B-A22B-FP8 on 8 GPUs with expert parallel: the ranks print "Available
    // KV cache memory: 35.74 / 35.65 (six) / 36.12 GiB" and the workers "GPU KV cache size:
    // 1,594,928 / 1,590,736 (six) / 1,611,664 tokens"; the engine plans for the smallest.
    let st = startup("vllm-0.10.0-qwen3-235b-a22b-fp8-tp8-ep.log");
    assert!(close(st.figure(Figure::KvPool).unwrap_or(0.0), 35.65 * GIB, 1e-6));
    assert_eq!(st.figure(Figure::KvTokens), Some(1_590_736.0));
    assert_eq!(st.figure(Figure::MaxConcurrency), Some(48.55));
    // "Model loading took 27.6656 GiB" on every rank.
    assert!(close(st.figure(Figure::Weights).unwrap_or(0.0), 27.6656 * GIB, 1e-6));
    // The local path's last part names the preset; quantization=fp8 on a "-FP8" checkpoint is
    // block FP8 (Qwen's FP8 checkpoints carry weight_block_size [128, 128]).
    assert_eq!(setting(&st, Key::Model), Some("qwen3-235b-a22b"));
    assert_eq!(setting(&st, Key::Quant), Some("fp8_block"));
    assert_eq!(setting(&st, Key::Kv), Some("fp8"));
    assert_eq!(setting(&st, Key::Gpus), Some("8"));
    assert_eq!(setting(&st, Key::Seq), Some("32768"));
    // `enable_expert_parallel=True` with tensor_parallel_size=8 and no data parallel: the
    // expert-parallel group is tp × dp = 8 (docs/serving.md, "Served grids"); the log prints no
    // pipeline or data-parallel size above 1.
    assert_eq!(setting(&st, Key::Ep), Some("8"));
    assert_eq!(setting(&st, Key::Pp), None);
    assert_eq!(setting(&st, Key::Dp), None);
}

#[test]
fn the_worker_sends_the_rows_and_the_configuration_to_open() {
    use vram_ledger::readers::{decode, diagnosis, Answer};
    let reading = read(&log(V064));
    let q = format!(
        "model=qwen2.5-7b&mode=infer&engine=vllm&oom={}",
        vram_ledger::query::percent_encode(&reading.to_link())
    );
    let Some(Answer::Diagnosis(d)) = decode(&diagnosis(&q)) else { panic!("no diagnosis for {q}") };
    assert_eq!(d.cause, Cause::StartupLog);
    assert_eq!(d.cause_label.0, vram_ledger::i18n::cause(vram_ledger::i18n::Lang::En, Cause::StartupLog));
    // "# GPU blocks: 31284" is a row of the numbers, in both languages.
    assert!(d
        .figures
        .iter()
        .any(|(en, zh, v)| en.starts_with("KV blocks") && zh.starts_with("KV 块数") && v.starts_with("31,284 |")));
    // The link to open: the log's settings on the page's configuration, the paste kept.
    let apply = d.apply.unwrap_or_default();
    let parsed = vram_ledger::query::parse(&apply);
    assert!(parsed.errors.is_empty(), "{apply}");
    assert_eq!(parsed.scenario.model_id.as_deref(), Some("llama-3.1-8b"));
    assert!(apply.contains("gpus=2") && apply.contains("oom="), "{apply}");
}

#[test]
fn printed_model_names_map_to_presets() {
    use vram_ledger::tree::startup::preset_of;
    // Repositories, local paths and GGUF names as the logs above print them; the expected presets
    // are the ones whose Hugging Face names these are (presets.rs).
    for (printed, preset) in [
        ("Qwen/Qwen2.5-3B-Instruct", Some("qwen2.5-3b")),
        ("/models/Qwen3-235B-A22B-FP8", Some("qwen3-235b-a22b")),
        ("meta-llama/Meta-Llama-3-8B-Instruct", Some("llama-3.1-8b")),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", Some("qwen2.5-14b")),
        ("Llama 3.1 8B Instruct", Some("llama-3.1-8b")),
        // A community fine-tune keeps its base's name first.
        ("Qwen3-4B-abliterated", Some("qwen3-4b")),
        ("Qwen3-30B-A3B-Instruct-2507", Some("qwen3-30b-a3b")),
        // Not a preset: nothing is guessed (Qwen3.5 is not Qwen3; a path without a model name).
        ("Qwen3.5-35B-A3B-Uncensored", None),
        ("/opt/llm/deepseek-r1-14b", None),
        ("", None),
    ] {
        assert_eq!(preset_of(printed), preset, "{printed}");
    }
}

#[test]
fn an_auto_fitted_context_is_read_as_max_model_len_auto() {
    // vLLM 0.14's kv_cache_utils.py::_auto_fit_max_model_len prints "Auto-fit max_model_len: reduced
    // from %d to %d to fit in available GPU memory (%s GiB available for KV cache)"; the lines below
    // are written in that format (no published log with it was found), with figures of a 24 GB card.
    let log = "INFO [api_server.py:1] vLLM API server version 0.14.0\n\
               INFO [gpu_worker.py:1] Available KV cache memory: 5.76 GiB\n\
               INFO [kv_cache_utils.py:1] Auto-fit max_model_len: reduced from 131072 to 47184 to fit in available GPU memory (5.76 GiB available for KV cache)\n\
               INFO [kv_cache_utils.py:1] GPU KV cache size: 47,184 tokens\n";
    let st = Startup::from_items(&read(log).startup).unwrap_or_else(|| panic!("read"));
    assert_eq!(setting(&st, Key::MaxModelLen), Some("auto"));
    assert_eq!(setting(&st, Key::Seq), None);
}

#[test]
fn sglangs_free_memory_names_the_card_and_the_pool_follows() {
    // "Load weight begin. avail mem=78.64 GB": what SGLang takes its budget from. The default card
    // (24 GB) is far from it, and the card it points to is an 80 GB one.
    let st = startup("sglang-qwen2.5-3b-instruct-nocudagraph.log");
    assert!(close(st.figure(Figure::FreeBeforeLoad).unwrap_or(0.0), 78.64 * GIB, 1e-6));
    let c = check(&st, &vram_ledger::ledger::Scenario::default());
    let card = c.card.unwrap_or_else(|| panic!("a card is inferred"));
    assert!(card.presets.contains(&"h100-80g"), "{:?}", card.presets);
    // Held out (this log fitted nothing), on that card: the free memory, the pool and its tokens
    // within 2 % ("KV Cache is allocated. #tokens: 1743556, K size: 29.93 GB, V size: 29.93 GB").
    let on_card = check(&st, &vram_ledger::query::parse("gpu=h100-80g").scenario);
    for f in [Figure::FreeBeforeLoad, Figure::KvPool, Figure::KvTokens] {
        let row = on_card.rows.iter().find(|r| r.figure == f).unwrap_or_else(|| panic!("{f:?}"));
        let d = row.difference().unwrap_or(f64::NAN);
        assert!(d.abs() <= 0.02, "{f:?}: engine {} ledger {:?}", row.engine, row.ledger);
    }
    assert!(on_card.card.is_none(), "the card agrees: nothing to point to");
}

#[test]
fn the_start_up_line_of_newer_releases_is_no_error_and_names_the_card() {
    // vLLM 0.20 on prints at every start "Free memory on device (46.99/47.37 GiB) on startup.
    // Desired GPU memory utilization is (0.75, 35.53 GiB). Actual usage is 15.38 GiB for consumed
    // memory (weights + non-torch), 0.41 GiB for peak activation, and 0.0 GiB for CUDAGraph memory."
    // Only "… on startup is less than desired …" is the error.
    let text = log("vllm-0.29-qwen3-8b-4090-48g.log");
    let p = diagnose_paste(&text, None);
    assert_eq!(p.cause, Cause::StartupLog, "{:?}", p.reading.formats);
    let st = startup("vllm-0.29-qwen3-8b-4090-48g.log");
    assert_eq!(setting(&st, Key::Vram), Some("47.37"));
    assert_eq!(setting(&st, Key::GpuUtil), Some("0.75"));
    assert!(close(st.figure(Figure::ActivationPeak).unwrap_or(0.0), 0.41 * GIB, 1e-6));
    assert!(close(st.figure(Figure::NonTorch).unwrap_or(0.0), (15.38 - 15.27) * GIB, 1e-6));
    assert_eq!(st.figure(Figure::CudaGraphs), None, "0.0 GiB with enforce-eager: not a figure");
    // The ngram run: its speculative_config is read as the link's keys.
    let ngram = startup("vllm-0.29-qwen3-8b-4090-48g-ngram.log");
    assert_eq!(setting(&ngram, Key::Spec), Some("ngram"));
    assert_eq!(setting(&ngram, Key::SpecTokens), Some("4"));
}

/// SGLang's `--tp` is the whole tensor-parallel group; with `--enable-dp-attention` its `dp_size`
/// ranks share it, attention over tp_size / dp_size (docs/serving.md, "Served grids"). The lines
/// below are written by hand in SGLang's formats (the ServerArgs fields and the two memory lines
/// of 0.5.x), not copied from a log: a DeepSeek-V3 run over 8 GPUs with DP attention and EP 8 is
/// the ledger's tp 1 × dp 8 with ep 8.
#[test]
fn sglang_data_parallel_attention_settings_are_the_ledger_s_grid() {
    let text = "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, pp_size=1, mem_fraction_static=0.8, dp_size=8, enable_dp_attention=True, ep_size=8, moe_dense_tp_size=None)\n\
[2026-01-01 00:00:10 DP0 TP0 EP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=51.20 GB, mem usage=87.40 GB.\n\
[2026-01-01 00:00:11 DP0 TP0 EP0] KV Cache is allocated. #tokens: 500000, KV size: 32.72 GB\n";
    let r = read(text);
    let st = Startup::from_items(&r.startup).expect("SGLang start-up lines read");
    assert_eq!(setting(&st, Key::Gpus), Some("1"));
    assert_eq!(setting(&st, Key::Dp), Some("8"));
    assert_eq!(setting(&st, Key::Ep), Some("8"));
    assert_eq!(setting(&st, Key::Pp), None);
    // Without data-parallel attention `--tp` is the tensor-parallel size and `dp_size` replicas are
    // separate engines: the grid is tp alone.
    let plain = text.replace("enable_dp_attention=True", "enable_dp_attention=False");
    let st = Startup::from_items(&read(&plain).startup).expect("read");
    assert_eq!(setting(&st, Key::Gpus), Some("8"));
    assert_eq!(setting(&st, Key::Dp), None);
}

/// Unsloth's `fast_inference` starts vLLM itself and prints what it gave it: the engine's share
/// to two decimals of a percent ("with actual GPU utilization = 59.59%", where vLLM V0 prints
/// 0.60), the card ("VRAM = 14.74 GB"), and the batch ("Chunked prefill tokens = 512. Num Sequences
/// = 160."), which no vLLM V0 line names. Read, they reproduce the engine's plan: the pool the log
/// prints (2.64 GiB) within the serving target's 2 %, where vLLM's defaults (256 sequences, 2,048
/// batched tokens) would bill a sampler warm-up 60 % larger and a pool 16 % smaller.
#[test]
fn unsloth_s_vllm_lines_are_the_engine_s_settings() {
    let st = startup("vllm-0.7.1-unsloth-2025.2.4-llama-3.1-8b-grpo-t4.log");
    assert_eq!(setting(&st, Key::MaxNumSeqs), Some("160"));
    assert_eq!(setting(&st, Key::MaxBatchedTokens), Some("512"));
    assert_eq!(setting(&st, Key::GpuUtil), Some("0.5959"));
    assert_eq!(setting(&st, Key::Vram), Some("14.74"));
    assert_eq!(setting(&st, Key::EngineVersion), Some("0.7.1"));
    assert_eq!(setting(&st, Key::Seq), Some("512"));
    assert_eq!(setting(&st, Key::Quant), Some("nf4"));
    // V0's "with config: model='unsloth/meta-llama-3.1-8b-instruct-bnb-4bit'".
    assert_eq!(setting(&st, Key::Model), Some("llama-3.1-8b"));
    let c = check(&st, &vram_ledger::ledger::Scenario::default());
    let pool = c.rows.iter().find(|r| r.figure == Figure::KvPool).unwrap_or_else(|| panic!("pool row"));
    assert!(close(pool.engine, 2.64 * GIB, 1e-6));
    let d = pool.difference().unwrap_or(f64::NAN);
    assert!(d.abs() <= 0.02, "pool: engine {} ledger {:?} ({})", pool.engine, pool.ledger, c.query);
}
