//! The `vram-ledger` binary: its JSON contract, its table, its errors.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vram-ledger")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn json_has_the_documented_shape_and_components_sum_to_the_device_total() {
    let (code, out, err) = run(&["--json", "model=llama-3.1-8b&method=qlora&seq=4096"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["schema"], 1);
    for key in ["allocated_bytes", "reserved_bytes", "device_bytes"] {
        assert!(v[key].as_u64().is_some(), "{key}");
    }
    assert_eq!(v["gpu"]["id"], "rtx4090");
    assert_eq!(v["gpu"]["bytes"], 24_564u64 * 1024 * 1024);
    assert!(v["fits"].is_boolean());
    let components = v["components"].as_array().expect("components");
    let ids: Vec<&str> = components.iter().filter_map(|c| c["id"].as_str()).collect();
    for id in
        ["weights", "gradients", "optimizer", "master_weights", "activations", "logits", "kv_cache", "cuda_context"]
    {
        assert!(ids.contains(&id), "{id} present (0 where it does not apply)");
    }
    let sum: u64 = components.iter().filter_map(|c| c["bytes"].as_u64()).sum();
    assert_eq!(sum, v["device_bytes"].as_u64().expect("device"));
    assert!(components.iter().all(|c| c["formula"].as_str().is_some_and(|f| !f.is_empty())));
    // QLoRA's base is NF4, so the weights are far below 2 B/param.
    let weights = components.iter().find(|c| c["id"] == "weights").and_then(|c| c["bytes"].as_u64()).expect("weights");
    assert!(weights < 8_030_261_248);
}

#[test]
fn accepts_a_whole_share_url() {
    let (code, out, _) = run(&["--json", "https://example.org/calc/?model=llama-2-7b&mode=infer&seq=4096#x"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let kv =
        v["components"].as_array().expect("c").iter().find(|c| c["id"] == "kv_cache").expect("kv")["bytes"].clone();
    assert_eq!(kv, 2u64 * 32 * 32 * 128 * 4096 * 2);
}

#[test]
fn table_shows_totals_and_verdict() {
    let (code, out, _) = run(&["model=llama-2-7b&method=full"]);
    assert_eq!(code, 0);
    assert!(out.contains("master_weights"), "{out}");
    assert!(out.contains("nvidia-smi"));
    assert!(out.contains("DOES NOT FIT"), "a 7B full fine-tune does not fit a 24 GB card: {out}");
    let (_, gb, _) = run(&["--gb", "model=llama-3.1-8b&mode=infer"]);
    assert!(gb.contains("16.06"), "weights in GB: {gb}");
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let (code, out, err) = run(&["quant=int3"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("quant=int3") && err.contains("nf4"), "{err}");
    let (code, _, err) = run(&["--frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("usage"));
    let (code, _, err) = run(&["a=1", "b=2"]);
    assert_eq!(code, 2);
    assert!(err.contains("one QUERY"));
    // Unknown keys are only a warning.
    let (code, _, err) = run(&["colour=red"]);
    assert_eq!(code, 0);
    assert!(err.contains("warning") && err.contains("colour"));
}

#[test]
fn fit_and_card() {
    let (code, out, _) = run(&["--json", "--fit", "model=llama-3.1-8b&method=qlora"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(v["max_batch"].as_u64().expect("max_batch") >= 1);
    assert!(v["max_seq"].as_u64().expect("max_seq") >= 2048);
    // QLoRA on a 24 GB card: the 8B fits, the 70B (35 GiB of NF4 weights) cannot.
    assert_eq!(v["largest_in_family"], "llama-3.1-8b");
    let (code, card, _) = run(&["--card"]);
    assert_eq!(code, 0);
    assert!(card.contains("QLoRA") && card.contains("Assumptions"), "{card}");
}

/// docs/query-keys.md is generated from the key table; regenerate with
/// `cargo run --bin vram-ledger -- --keys > docs/query-keys.md`.
#[test]
fn query_key_docs_are_current() {
    let (_, out, _) = run(&["--keys"]);
    let doc = std::fs::read_to_string(format!("{}/docs/query-keys.md", env!("CARGO_MANIFEST_DIR"))).expect("doc");
    assert_eq!(doc, out);
}

/// docs/speed-card.md embeds the generated card between markers; it must be the current one.
#[test]
fn speed_card_doc_is_current() {
    let (_, card, _) = run(&["--card"]);
    let doc = std::fs::read_to_string(format!("{}/docs/speed-card.md", env!("CARGO_MANIFEST_DIR"))).expect("doc");
    let start = doc.find("-->\n").expect("start marker") + 4;
    let end = doc.find("<!-- end generated -->").expect("end marker");
    assert_eq!(&doc[start..end], card);
}

/// The page's stored speed card is the ledger's (`make card` regenerates it).
#[test]
fn stored_speed_card_is_current() {
    let (_, table, _) = run(&["--card-table"]);
    let stored =
        std::fs::read_to_string(format!("{}/src/ledger/speed_card.rs", env!("CARGO_MANIFEST_DIR"))).expect("table");
    assert_eq!(stored, table, "run `make card`");
    assert_eq!(vram_ledger::ledger::fit::speed_card_stored(), vram_ledger::ledger::fit::speed_card());
}

/// The Markdown export (homework 3): one row per non-zero component plus the total; pipes in
/// names or formulas cannot break the table.
#[test]
fn markdown_export_is_a_valid_table() {
    use vram_ledger::ledger::{estimate, units::Unit};
    use vram_ledger::report::bill_markdown;
    let s = vram_ledger::query::parse("model=llama-2-7b&mode=infer&seq=4096").scenario;
    let bill = estimate(&s);
    let md = bill_markdown(
        "a | b",
        &bill,
        Unit::GiB,
        |id| format!("{}|x", id.id()),
        |f| f.to_string(),
        ["c", "s", "%", "f"],
        "total",
    );
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    let nonzero = bill.components.iter().filter(|c| c.bytes > 0).count();
    assert_eq!(rows.len(), 2 + nonzero + 1, "{md}");
    for r in &rows {
        let unescaped = r.replace("\\|", "");
        assert_eq!(unescaped.matches('|').count(), 5, "{r}");
    }
    assert!(md.contains("| kv_cache\\|x | 2.00 GiB |"), "{md}");
}

/// `--config FILE`: a model's config.json gives the same bill as its preset (each preset equals
/// the publisher's parameter count, tests/presets.rs), for a file and for stdin.
#[test]
fn a_config_file_gives_the_bill_of_its_model() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/configs");
    for (file, preset) in [("gpt-oss-20b.json", "gpt-oss-20b"), ("qwen3-8b.json", "qwen3-8b")] {
        let path = format!("{dir}/{file}");
        let (code, out, err) = run(&["--json", "--config", &path, "mode=infer&seq=8192&gpu=h100-80g"]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("model link: model=custom&layers="), "{err}");
        let from_config: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        let (_, out, _) = run(&["--json", &format!("model={preset}&mode=infer&seq=8192&gpu=h100-80g")]);
        let from_preset: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(from_config["device_bytes"], from_preset["device_bytes"], "{file}");
    }
    let file = std::fs::read(format!("{dir}/qwen3-8b.json")).expect("fixture");
    let mut child = Command::new(env!("CARGO_BIN_EXE_vram-ledger"))
        .args(["--json", "--config", "-", "mode=infer"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &file).expect("writes");
    let out = child.wait_with_output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_bad_config_exits_2_and_says_why() {
    let (code, out, err) = run(&["--config", "/nonexistent/config.json"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("cannot read /nonexistent/config.json"), "{err}");
    let bad = std::env::temp_dir().join(format!("vram-ledger-bad-{}.json", std::process::id()));
    std::fs::write(&bad, "{\"hidden_size\": 4096, \"num_hidden_layers\": ").expect("writes");
    let (code, _, err) = run(&["--config", bad.to_str().expect("utf-8"), "mode=infer"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: ") && err.lines().count() == 1, "{err}");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/configs/qwen3-8b.json");
    let (code, _, err) = run(&["--config", dir, "model=llama-2-7b"]);
    assert_eq!(code, 2);
    assert!(err.contains("drop model=llama-2-7b"), "{err}");
    let (code, _, err) = run(&["--config"]);
    assert_eq!(code, 2);
    assert!(err.contains("--config needs a file"), "{err}");
    let _ = std::fs::remove_file(bad);
}

/// `--json` adds the `serving` object for an engine; its field names are a public contract.
#[test]
fn json_serving_object_has_the_contract_names() {
    let (code, out, err) = run(&["--json", "model=qwen3-8b&mode=infer&engine=vllm&seq=8192&batch=8&gpu=h100-80g"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let s = &v["serving"];
    assert_eq!(s["engine"], "vllm");
    for key in [
        "budget_bytes",
        "weights_bytes",
        "non_torch_bytes",
        "activation_peak_bytes",
        "cuda_graph_bytes",
        "kv_pool_bytes",
        "kv_tokens",
        "kv_blocks",
        "max_context",
        "host_bytes",
    ] {
        assert!(s[key].as_u64().is_some(), "{key}: {}", s[key]);
    }
    let c = s["max_concurrency"].as_f64().expect("max_concurrency");
    // A decimal with two places, as vLLM prints it ("4.84x").
    assert!((c * 100.0 - (c * 100.0).round()).abs() < 1e-9 && c > 8.0, "{c}");
    let (_, out, _) = run(&["--json", "model=qwen3-8b&mode=infer"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(v["serving"].is_null(), "generate() has no serving object");
    let (_, table, _) = run(&["model=qwen3-8b&mode=infer&engine=sglang&seq=8192&gpu=h100-80g"]);
    // The engine named as its project writes it (Engine::name).
    assert!(
        table.contains("SGLang 0.5.23: budget") && table.contains("on SGLang") && table.contains("KV tokens"),
        "{table}"
    );
}

/// `--diagnose FILE ['QUERY']`: the contract's JSON names, the text in both languages, stdin, errors.
#[test]
fn diagnose_reads_a_pasted_error() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("vram-ledger-diagnose-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("oom.txt");
    // A second process holds 14.30 GiB of the 23.65 GiB card (hand-written, torch ≥ 2.2 layout).
    std::fs::write(&file, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 180.00 MiB is free. Process 4411 has 14.30 GiB memory in use. Including non-PyTorch memory, this process has 9.10 GiB memory in use. Of the allocated memory 8.20 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.").expect("write");
    let path = file.to_string_lossy().into_owned();
    let (code, out, err) = run(&["--diagnose", &path, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["format"], "torch22");
    assert_eq!(v["diagnosis"], "zombie");
    assert_eq!(v["node"], "kill");
    let n = &v["numbers"];
    assert_eq!(n["tried_to_allocate_bytes"], 2u64 << 30);
    // 23.65 GiB = 25,393,994,137.6 B, rounded; 14.30 GiB = 15,354,508,083.2 B.
    assert_eq!(n["total_bytes"], 25_393_994_138u64);
    assert_eq!(n["free_bytes"], 180u64 << 20);
    assert_eq!(n["allocated_bytes"], 8_804_682_957u64);
    assert_eq!(n["reserved_unallocated_bytes"], 300u64 << 20);
    assert_eq!(n["other_processes_bytes"], 15_354_508_083u64);
    assert!(n["process_bytes"].as_u64().is_some());
    assert!(v["levers"].as_array().is_some_and(|l| !l.is_empty()));
    assert!(v["why"].as_str().is_some_and(|w| w.contains("14.30 GiB")), "{}", v["why"]);
    assert!(v["why_zh"].as_str().is_some_and(|w| w.contains("其他进程")));
    // The text, in Chinese.
    let (code, out, _) = run(&["--diagnose", &path, "--lang", "zh"]);
    assert_eq!(code, 0);
    assert!(out.contains("诊断: zombie") && out.contains("kill"), "{out}");
    // With a configuration, a shortage's levers are ranked by what they save.
    std::fs::write(&file, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. GPU 0 has a total capacity of 23.65 GiB of which 90.00 MiB is free. Including non-PyTorch memory, this process has 23.55 GiB memory in use. Of the allocated memory 22.90 GiB is allocated by PyTorch, and 190.00 MiB is reserved by PyTorch but unallocated.").expect("write");
    let (code, out, err) =
        run(&["--diagnose", &path, "--json", "model=qwen2.5-7b&method=lora&gpu=rtx4090&batch=8&seq=4096"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["diagnosis"], "shortage");
    let saves: Vec<i64> =
        v["levers"].as_array().into_iter().flatten().filter_map(|l| l["saves_bytes"].as_i64()).collect();
    assert!(saves.len() >= 2 && saves.windows(2).all(|w| w[0] >= w[1]), "{saves:?}");
    // Standard input, and bytes that are not UTF-8.
    let mut child = Command::new(env!("CARGO_BIN_EXE_vram-ledger"))
        .args(["--diagnose", "-", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    child.stdin.take().expect("stdin").write_all(b"\xff\xfe<script>alert(1)</script>\x00").expect("write");
    let out = child.wait_with_output().expect("output");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["diagnosis"], "unknown");
    // The contract's seven numbers are there, null, when the paste has none of them.
    for name in [
        "tried_to_allocate_bytes",
        "total_bytes",
        "free_bytes",
        "process_bytes",
        "other_processes_bytes",
        "allocated_bytes",
        "reserved_unallocated_bytes",
    ] {
        assert!(v["numbers"].get(name).is_some_and(|x| x.is_null()), "{name}: {}", v["numbers"]);
    }
    assert!(!String::from_utf8_lossy(&out.stdout).contains("script"), "the paste is never echoed");
    // Errors: a missing file, a bad query, a bad language.
    assert_eq!(run(&["--diagnose", "/nonexistent/oom.txt"]).0, 2);
    assert_eq!(run(&["--diagnose", &path, "gpu=nonsense"]).0, 2);
    assert_eq!(run(&["--diagnose", &path, "--lang", "fr"]).0, 2);
    assert_eq!(run(&["--diagnose"]).0, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--selftest`: the chapter's questions with the ledger's demonstrations; `q=N` alone; a bad `q`
/// is an input error (exit 2) that names the accepted values. Each question's finding is checked
/// against hand arithmetic on the default Llama-3.1-8B (8,030,261,248 parameters, 32 layers,
/// 8 KV heads of 128, hidden 4,096, MLP 14,336) at 2,048 tokens on an RTX 4090.
#[test]
fn selftest_prints_the_questions_with_the_ledgers_numbers() {
    let (code, out, _) = run(&["--selftest", ""]);
    assert_eq!(code, 0);
    // The seven questions, in order, each with its hint, answer and the ledger's finding.
    let headings: Vec<&str> = out.lines().filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit())).collect();
    let numbers: Vec<String> = headings.iter().map(|l| l.split('.').next().unwrap_or("").to_string()).collect();
    assert_eq!(numbers, ["1", "2", "3", "4", "5", "6", "7"], "{out}");
    for part in ["   hint: ", "   answer: ", "   ledger: "] {
        assert_eq!(out.matches(part).count(), 7, "{part}");
    }
    let finding = |n: usize| -> &str {
        let start = out.find(&format!("\n{n}. ")).map_or(0, |i| i + 1);
        let rest = &out[start..];
        let ledger = rest.find("   ledger: ").map_or("", |i| &rest[i..]);
        ledger.lines().next().unwrap_or("")
    };
    // 1. The chapter's 16 B per parameter: 2 + 2 + 8 + 4.
    assert!(finding(1).contains("= 16.0 B per parameter; × 8,030,261,248 parameters"), "{}", finding(1));
    // 2. LoRA r = 16 on all seven projections: 32 × 16 × (8,192 + 5,120 + 5,120 + 8,192 + 3 × 18,432)
    //    = 41,943,040 trainable, 0.522 % of the model.
    assert!(finding(2).contains("41,943,040 of 8,030,261,248 parameters train (0.522 %)"), "{}", finding(2));
    // 3. Activations are linear in batch and sequence: twice either is × 2.
    assert!(finding(3).contains("(× 2.00); twice the sequence: × 2.00"), "{}", finding(3));
    // 4. An evaluation batch without no_grad keeps its graph beside the training step's peak.
    assert!(finding(4).contains("without no_grad keeps"), "{}", finding(4));
    // 5. A reserved-but-unallocated share of the card goes to the fragmentation node.
    assert!(out.contains("   tree: Fragmentation (tree=fragmentation)"));
    // 6. Four times the sequence: one sample of 4 × 2,048 = 8,192 tokens.
    assert!(finding(6).contains("one sample of 8,192 tokens"), "{}", finding(6));
    // 7. 2 × 32 × 8 × 128 × 2,048 × 2 B = 256 MiB of KV per request; 14.96 GiB of weights ÷ 256 MiB
    //    = 59.8, so from 60 requests the KV cache outweighs the weights.
    assert!(
        finding(7).contains("adds 256.00 MiB of KV cache") && finding(7).contains("from 60 at once"),
        "{}",
        finding(7)
    );
    // The CLI prints code spans plainly.
    assert!(!out.contains('`'), "{out}");
    let (code, out, _) = run(&["--selftest", "--lang", "zh", "q=7&seq=4096"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("7. 推理服务先爆的是权重还是 KV?"), "{out}");
    // 2 × 32 × 8 × 128 × 4,096 × 2 B = 512 MiB of KV per request.
    assert!(out.contains("512.00 MiB"), "{out}");
    assert!(!out.contains("\n1. "));
    let (code, _, err) = run(&["--selftest", "q=9"]);
    assert_eq!(code, 2);
    assert!(err.contains("accepted values: 1, 2, 3, 4, 5, 6, 7"), "{err}");
}
