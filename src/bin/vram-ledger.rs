//! `vram-ledger [--json] [--card] [--gb] [--config FILE] 'QUERY'`: the memory bill of a scenario, from
//! a query string or a whole share URL (the same text the web app keeps in its address bar), for a
//! preset or for a model's config.json.

use std::process::ExitCode;

use vram_ledger::i18n::plain;
use vram_ledger::ledger::{estimate, fit, presets, units::Unit};
#[cfg(not(target_arch = "wasm32"))]
use vram_ledger::validation::accuracy;
use vram_ledger::{query, report};

/// `print!` to stdout that ends the program quietly when the reader has gone (`vram-ledger … | head`
/// closes the pipe; std's `print!` would panic there).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write;
        if write!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

/// `println!` the same way.
macro_rules! outln {
    () => { out!("\n") };
    ($($arg:tt)*) => {{
        out!($($arg)*);
        out!("\n");
    }};
}

const USAGE: &str =
    "usage: vram-ledger [--json] [--card] [--fit] [--phases] [--gb] [--keys] [--frameworks] [--presets] [--config FILE] 'QUERY'
       vram-ledger --diagnose FILE [--json] [--lang zh] ['QUERY']
       vram-ledger --trace FILE [--json] [--gb] ['QUERY']
       vram-ledger --selftest [--lang zh] ['QUERY']

QUERY is a share URL or its query string, e.g. 'model=qwen2.5-7b&method=qlora&seq=4096&gpu=rtx4090'.
  --config FILE  the model is this Hugging Face config.json ('-' reads it from stdin); the bill's
             custom-model link is printed to stderr, and QUERY adds the rest (mode, seq, gpu …)
  --json     print the bill as JSON (schema 1)
  --card     print the chapter's speed card regenerated from the ledger (Markdown)
  --fit      also print the largest micro-batch, sequence and model of the family that fit (20 % margin),
             for engine=hf inference the fewest GPUs of the card a device_map needs;
             for GRPO / PPO the longest completion and the most completions per prompt too
  --phases   also print the step's phases (load, forward, loss, backward, optimizer_step, zero_grad; prefill,
             decode; an engine's load, profile, cuda_graphs, serving) with their totals, the peak marked
  --gb       show 10^9-byte GB instead of GiB
  --keys     print the documented query keys (Markdown)
  --frameworks  print what each training framework's release sets (`framework=`), with sources (Markdown)
  --presets  list model and GPU preset ids
  --accuracy FILE  the accuracy report of a measured set (Markdown; exit 1 when it misses the bar)
  --diagnose FILE  read a pasted OOM error, nvidia-smi, memory_summary or engine log ('-' reads stdin)
             and place it on the decision tree; with QUERY (your configuration) the levers are
             ranked by what each saves for it
  --trace FILE  read your run's memory trace — a snapshot pickle (torch.cuda.memory._dump_snapshot),
             the profiler's export_memory_timeline JSON (.json, .json.gz, .raw.json.gz) or
             tools/mem_report.py's JSON — and lay it over QUERY's phases: bytes per category at
             the peak, measured beside predicted, and the phase where they part most
  --selftest the chapter's seven self-test questions, each answered with a demonstration on QUERY's
             scenario (two bills that differ in one key); q=N in QUERY prints question N alone
  --lang zh  the diagnosis or the self-test in Chinese (default English; --json carries both)
Exit codes: 0 ok, 2 bad input.";

/// The scenario of a query, its warnings printed; its errors printed and exit code 2 instead.
fn scenario_or_report(text: &str) -> Result<vram_ledger::ledger::Scenario, ExitCode> {
    parsed_or_report(query::parse(text))
}

/// As [`scenario_or_report`] for a QUERY that may be left out (`None` when it is empty).
fn optional_scenario(text: &str) -> Result<Option<vram_ledger::ledger::Scenario>, ExitCode> {
    if text.is_empty() {
        Ok(None)
    } else {
        scenario_or_report(text).map(Some)
    }
}

/// As [`scenario_or_report`], for a query already parsed.
fn parsed_or_report(parsed: query::Parsed) -> Result<vram_ledger::ledger::Scenario, ExitCode> {
    for w in &parsed.warnings {
        eprintln!("warning: {}", plain(&w.message.to_string()));
    }
    if !parsed.errors.is_empty() {
        for e in &parsed.errors {
            eprintln!("error: {}", plain(&e.message.to_string()));
        }
        return Err(ExitCode::from(2));
    }
    Ok(parsed.scenario)
}

fn main() -> ExitCode {
    let mut json = false;
    let mut card = false;
    let mut show_fit = false;
    let mut show_phases = false;
    let mut unit = Unit::GiB;
    let mut queries = Vec::new();
    let mut config = None;
    let mut diagnose = None;
    let mut trace = None;
    let mut selftest = false;
    let mut lang = vram_ledger::i18n::Lang::En;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--config" => match args.next() {
                Some(path) => config = Some(path),
                None => {
                    eprintln!("error: --config needs a file (or - for stdin)\n\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--diagnose" => match args.next() {
                Some(path) => diagnose = Some(path),
                None => {
                    eprintln!("error: --diagnose needs a file (or - for stdin)\n\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--trace" => match args.next() {
                Some(path) => trace = Some(path),
                None => {
                    eprintln!("error: --trace needs a file (or - for stdin)\n\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--lang" => match args.next().as_deref() {
                Some("zh") => lang = vram_ledger::i18n::Lang::Zh,
                Some("en") => lang = vram_ledger::i18n::Lang::En,
                other => {
                    eprintln!("error: --lang takes zh or en, not {}\n\n{USAGE}", other.unwrap_or("nothing"));
                    return ExitCode::from(2);
                }
            },
            "--json" => json = true,
            "--selftest" => selftest = true,
            "--card" => card = true,
            "--fit" => show_fit = true,
            "--phases" => show_phases = true,
            "--gb" => unit = Unit::GB,
            "--keys" => {
                out!("{}", keys_markdown());
                return ExitCode::SUCCESS;
            }
            "--frameworks" => {
                out!("{}", frameworks_markdown());
                return ExitCode::SUCCESS;
            }
            "--presets" => {
                for m in presets::models() {
                    outln!("model {:<14} {:<28} {}", m.id, m.architecture.name, m.family);
                }
                for g in presets::GPUS {
                    outln!("gpu   {:<14} {:<28} {} MiB", g.id, g.name, g.mib);
                }
                return ExitCode::SUCCESS;
            }
            "--accuracy" => {
                return accuracy_report();
            }
            "--card-table" => {
                // Hidden helper for `make card`: src/ledger/speed_card.rs.
                out!("{}", fit::speed_card_source(&fit::speed_card()));
                return ExitCode::SUCCESS;
            }
            "--links" => {
                // Hidden helper for `make links`: the pinned totals of the fixed links.
                return links_table();
            }
            "-h" | "--help" => {
                outln!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            flag if flag.starts_with("--") => {
                eprintln!("error: unknown option {flag}\n\n{USAGE}");
                return ExitCode::from(2);
            }
            _ => queries.push(arg),
        }
    }
    if card {
        out!("{}", report::card_markdown(&fit::speed_card()));
        if queries.is_empty() {
            return ExitCode::SUCCESS;
        }
    }
    if queries.len() > 1 {
        eprintln!("error: give one QUERY (quote it: '&' is special in the shell)\n\n{USAGE}");
        return ExitCode::from(2);
    }
    let given = queries.first().map_or("", String::as_str);
    if let Some(path) = diagnose {
        return diagnose_paste(&path, given, json, lang);
    }
    if let Some(path) = trace {
        return read_trace(&path, given, json, unit);
    }
    if selftest {
        return print_selftest(given, lang);
    }
    let text = match &config {
        Some(path) => match custom_model_query(path, given) {
            Ok(q) => q,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => given.to_string(),
    };
    let s = match scenario_or_report(&text) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let bill = estimate(&s);
    if json {
        let mut v = report::to_json(&s, &bill);
        if show_fit {
            v["max_batch"] = fit::max_batch(&s).into();
            // GRPO / PPO do not read `seq` (their sequence is prompt + completion): the longest
            // completion instead, and the most completions per prompt.
            match fit::max_completion_len(&s) {
                Some(c) => {
                    v["max_seq"] = serde_json::Value::Null;
                    v["max_completion_len"] = c.into();
                }
                None => v["max_seq"] = fit::max_seq(&s).into(),
            }
            v["largest_in_family"] = fit::largest_in_family(&s).map(|m| m.id).into();
            if let Some(g) = fit::max_generations(&s) {
                v["max_generations"] = g.into();
            }
            if fit::device_map_applies(&s) {
                v["device_map_gpus"] = fit::fewest_device_map_gpus(&s).into();
            }
        }
        outln!("{v}");
    } else {
        out!("{}", report::to_table(&s, &bill, unit));
        if show_phases {
            out!("\n{}", report::phases_table(&bill, unit));
        }
        if show_fit {
            outln!("largest micro-batch with the 20 % margin: {}", fit::max_batch(&s));
            let completion = fit::max_completion_len(&s);
            if completion.is_none() {
                outln!("longest sequence with the 20 % margin: {} tokens", fit::max_seq(&s));
            }
            match fit::largest_in_family(&s) {
                Some(m) => outln!("largest model of its family with the 20 % margin: {}", m.id),
                None => outln!("largest model of its family with the 20 % margin: none"),
            }
            if let Some(c) = completion {
                outln!("longest completion with the 20 % margin: {c} tokens (prompt {} kept)", s.rl.prompt_len);
            }
            if let Some(g) = fit::max_generations(&s) {
                outln!(
                    "most completions per prompt with the 20 % margin: {g} (the same prompts per step; the micro-batch \
                     grows with them)"
                );
            }
            if fit::device_map_applies(&s) {
                match fit::fewest_device_map_gpus(&s) {
                    Some(n) => outln!(
                        "fewest GPUs of this card for device_map=\"auto\" with the 20 % margin: {n} (pp={n}; every GPU's bill inside it)"
                    ),
                    None => outln!(
                        "fewest GPUs of this card for device_map=\"auto\" with the 20 % margin: none up to {} (the GPU with the LM head \
                         or one layer's working set does not fit)",
                        fit::most_device_map_gpus(&s)
                    ),
                }
            }
        }
    }
    ExitCode::SUCCESS
}

/// `--selftest ['QUERY']`: each question, its hint, its answer and the ledger's demonstration on
/// the query's scenario; `q=N` prints question N alone. Exit 2 when QUERY is bad.
fn print_selftest(given: &str, lang: vram_ledger::i18n::Lang) -> ExitCode {
    use vram_ledger::selftest;
    let parsed = query::parse(given);
    let view = vram_ledger::view::read(&parsed.ui);
    if let Some(e) = view.errors.first() {
        eprintln!("error: {}", plain(&e.message.to_string()));
        return ExitCode::from(2);
    }
    let s = match parsed_or_report(parsed) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    for n in view.question.map_or(1..=selftest::QUESTIONS, |q| q..=q) {
        let (Some(texts), Some(d)) = (selftest::texts(n), selftest::demo(n, &s)) else { continue };
        let t = |pair| plain(vram_ledger::i18n::pick(lang, pair));
        outln!(
            "{n}. {}\n   hint: {}\n   answer: {}\n   ledger: {}",
            t(texts.question),
            t(texts.hint),
            t(texts.answer),
            plain(&d.finding.render(lang))
        );
        if let Some((cause, node)) = d.diagnosis {
            outln!("   tree: {} (tree={})", vram_ledger::i18n::cause(lang, cause), node.id());
        }
        for side in [&d.before, &d.after] {
            let label = side.label.as_deref().unwrap_or("this configuration");
            outln!(
                "   {label:<22} allocated {:>8.2} GiB  device {:>8.2} GiB  ?{}",
                gib(side.bill.allocated_bytes()),
                gib(side.bill.device_bytes()),
                query::to_query(&side.scenario, &[])
            );
        }
        outln!();
    }
    ExitCode::SUCCESS
}

/// `--diagnose FILE ['QUERY']`: the paste's place on the decision tree; QUERY, when given, is the
/// user's configuration and ranks the levers. Exit 2 when the file cannot be read or QUERY is bad.
fn diagnose_paste(path: &str, given: &str, json: bool, lang: vram_ledger::i18n::Lang) -> ExitCode {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes))
    };
    if let Err(e) = read {
        eprintln!("error: cannot read {path}: {e}");
        return ExitCode::from(2);
    }
    // A log is not always UTF-8 (a Windows console's code page): read what is.
    let text = String::from_utf8_lossy(&bytes);
    let scenario = match optional_scenario(given) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let p = vram_ledger::tree::paste::diagnose_paste(&text, scenario.as_ref());
    if json {
        outln!("{}", report::paste_json(&p));
    } else {
        out!("{}", report::paste_text(&p, lang, scenario.is_some()));
    }
    ExitCode::SUCCESS
}

/// `--trace FILE ['QUERY']`: the trace read (gunzipped when it is gzip) and laid over QUERY's
/// phases; without QUERY, a mem_report's own query is used when it has one. Exit 2 when the file
/// cannot be read or is not a trace, or QUERY is bad.
fn read_trace(path: &str, given: &str, json: bool, unit: Unit) -> ExitCode {
    use vram_ledger::validation::trace;
    let bytes = match read_bounded(path, trace::MAX_TRACE_BYTES) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let t = match trace::read_file(&bytes, &mut |_| {}) {
        Ok(t) => t,
        Err(m) => {
            eprintln!("error: {}", plain(&m.to_string()));
            return ExitCode::from(2);
        }
    };
    let own_query = if given.is_empty() && t.format == trace::TraceFormat::MemReport {
        std::str::from_utf8(&bytes)
            .ok()
            .and_then(|text| vram_ledger::validation::parse_report(text).ok())
            .and_then(|r| r.query)
    } else {
        None
    };
    let q = own_query.as_deref().unwrap_or(given);
    let scenario = match optional_scenario(q) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let bill = scenario.as_ref().map(estimate);
    if json {
        let mut v = match (&scenario, &bill) {
            (Some(s), Some(b)) => report::to_json(s, b),
            _ => serde_json::json!({"schema": 1}),
        };
        v["trace"] = report::trace_json(&t, bill.as_ref());
        outln!("{v}");
    } else {
        out!("{}", report::trace_text(&t, bill.as_ref(), unit));
    }
    ExitCode::SUCCESS
}

/// A file's bytes (stdin for `-`); more than `limit` is refused without reading further.
fn read_bounded(path: &str, limit: usize) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let source: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?)
    };
    let mut bytes = Vec::new();
    source.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {path}: {e}"))?;
    if bytes.len() > limit {
        return Err(format!(
            "{path} is larger than {} MiB: record fewer events (one step; _record_memory_history(max_entries=100000))",
            limit >> 20
        ));
    }
    Ok(bytes)
}

/// `--config FILE 'QUERY'`: the link of the imported model (its notes and the link on stderr),
/// then QUERY's keys, which win over the config's where both set one.
fn custom_model_query(path: &str, given: &str) -> Result<String, String> {
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| format!("cannot read stdin: {e}"))?
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?
    };
    let imported = vram_ledger::ledger::hf_config::parse_config(&text)
        .map_err(|e| format!("{path}: {}", plain(&e.0.to_string())))?;
    let pairs = query::split_query(given);
    if let Some((_, id)) = pairs.iter().find(|(k, v)| k == "model" && v != "custom") {
        return Err(format!("--config names the model; drop model={id} from the query"));
    }
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    let s = vram_ledger::ledger::Scenario::imported(imported);
    let link = query::to_query(&s, &[]);
    eprintln!("model link: {link}");
    let rest: Vec<String> =
        pairs.iter().map(|(k, v)| format!("{}={}", query::percent_encode(k), query::percent_encode(v))).collect();
    Ok(if rest.is_empty() { link } else { format!("{link}&{}", rest.join("&")) })
}

/// The frameworks' rules with their sources (docs/frameworks.md); the sources are not in wasm builds.
fn frameworks_markdown() -> String {
    #[cfg(not(target_arch = "wasm32"))]
    return vram_ledger::ledger::framework::rules_markdown();
    #[cfg(target_arch = "wasm32")]
    String::new()
}

/// The vocabulary as a Markdown table (docs/query-keys.md). The documentation is not in wasm builds.
#[cfg(target_arch = "wasm32")]
fn keys_markdown() -> String {
    String::new()
}

/// The vocabulary as a Markdown table (docs/query-keys.md).
#[cfg(not(target_arch = "wasm32"))]
fn keys_markdown() -> String {
    let mut out = String::from(
        "# Query keys\n\nThe scenario vocabulary: the web app's share URL, the CLI's argument and the UI's state.\n\
Keys and values never change meaning and defaults never change; a new meaning gets a new key.\n\
Unknown keys are ignored with a warning; an invalid value is an error that lists the accepted values\n\
(the CLI exits with code 2; the web app keeps the default and shows a notice).\n\
Generated by `vram-ledger --keys`.\n\n| key | values | default | meaning |\n|---|---|---|---|\n",
    );
    for k in query::KEYS.iter() {
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", k.name, query::values_doc(k), k.doc.default, k.doc.meaning));
    }
    out.push_str("\nKeys the web app reads (the CLI ignores them): `lang` (zh, en), `embed` (1), `tree` (a decision-tree node), `unit` (gib, gb), `oom` (the numbers read from a pasted OOM error, never its text), `view` (calculator, selftest: the chapter's seven self-test questions, timeline: the step's memory over its phases alone), `q` (1–7: one question of the self-test; `--selftest` reads it too).\n");
    out
}

/// The CLI is a native program; `cargo test --target wasm32-unknown-unknown` still compiles it.
#[cfg(target_arch = "wasm32")]
fn accuracy_report() -> ExitCode {
    eprintln!("error: --accuracy is not available in a wasm build");
    ExitCode::from(2)
}

/// `--accuracy FILE`: docs/accuracy.md for the measured set in FILE. Exit 1 (after printing the
/// report) when the median passes 10 % or a case leaves its tolerance; 2 when the file is unreadable.
#[cfg(not(target_arch = "wasm32"))]
fn accuracy_report() -> ExitCode {
    let Some(path) = std::env::args().skip_while(|a| a != "--accuracy").nth(1) else {
        eprintln!("error: --accuracy needs a file (tests/data/measured.toml)");
        return ExitCode::from(2);
    };
    let outcomes = match std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {path}: {e}"))
        .and_then(|text| accuracy::parse_set(&text))
        .and_then(|cases| accuracy::evaluate(&cases))
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    out!("{}", accuracy::markdown(&outcomes));
    let problems = accuracy::problems(&outcomes);
    for p in &problems {
        eprintln!("accuracy: {p}");
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// For each link of the file named after `--links`: the link, its canonical query and its totals.
fn links_table() -> ExitCode {
    let Some(path) = std::env::args().skip_while(|a| a != "--links").nth(1) else {
        eprintln!("error: --links needs a file");
        return ExitCode::from(2);
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("error: cannot read {path}");
        return ExitCode::from(2);
    };
    outln!("# link\tcanonical query\tallocated_bytes\treserved_bytes\tdevice_bytes\tSNAPSHOT of the ledger's own output (a change detector), generated by `make links`");
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let parsed = query::parse(line);
        let bill = estimate(&parsed.scenario);
        outln!(
            "{line}\t{}\t{}\t{}\t{}",
            query::to_query(&parsed.scenario, &[]),
            bill.allocated_bytes(),
            bill.reserved_bytes(),
            bill.device_bytes()
        );
    }
    ExitCode::SUCCESS
}
