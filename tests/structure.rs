//! The code's shape, checked on its source: the ledger's layers (the list in its module doc) hold
//! for every import, no ledger function is longer than 80 lines, the ledger imports no UI code, one
//! file turns strings into markup, and no file names this machine's paths.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, keep, out);
        } else if keep(&path) {
            out.push(path);
        }
    }
}

fn rust_files(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    files_under(&Path::new(ROOT).join(dir), &|p| p.extension().is_some_and(|e| e == "rs"), &mut out);
    out.sort();
    out
}

/// `src` with its comments and the contents of its string and char literals blanked (newlines
/// kept, so line numbers stay), and without its `#[cfg(test)]` module.
fn code(src: &str) -> String {
    let src = match src.find("#[cfg(test)]") {
        Some(i) => &src[..i],
        None => src,
    };
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars[..i].last().is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string r"…" or r#"…"#.
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            i += 2 + hashes;
            out.push_str("\"\"");
            while i < chars.len()
                && !(chars[i] == '"' && chars[i + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes)
            {
                if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 1 + hashes;
        } else if c == '"' {
            out.push_str("\"\"");
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if chars.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A char literal ('x', '\n', '\''); a lifetime ('a) is left as it is.
            i += if next == Some('\\') {
                chars[i + 2..].iter().position(|&x| x == '\'').map_or(2, |p| p + 3)
            } else {
                3
            };
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The module path of a file of src/ledger: `estimate`, `serving::vllm`; `serving` for its mod.rs.
fn ledger_module(path: &Path) -> String {
    let rel = path.strip_prefix(Path::new(ROOT).join("src/ledger")).expect("under src/ledger");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// The words that follow `prefix` in `code` (`prefix` then a name, or `prefix{a, b::c}`).
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().last();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let is_path = item.trim()[name.len()..].starts_with("::");
                if !name.is_empty() {
                    out.push(if is_path { name } else { format!("{name}=item") });
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let is_path = rest[name.len()..].starts_with("::");
            out.push(if is_path { name } else { format!("{name}=item") });
        }
    }
    out
}

/// The ledger modules a file of module `me` uses.
fn ledger_dependencies(me: &str, is_dir: bool, code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    let resolve = |base: &str, name: &str| -> Option<String> {
        let name = name.trim_end_matches("=item");
        let candidate = if base.is_empty() { name.to_string() } else { format!("{base}::{name}") };
        if modules.contains(&candidate) {
            Some(candidate)
        } else if !base.is_empty() {
            // An item of the parent module itself.
            Some(base.to_string())
        } else {
            None
        }
    };
    for name in names_after(code, "crate::ledger::") {
        // `crate::ledger::serving::engine` names the submodule, `crate::ledger::bill` the module.
        let module = name.trim_end_matches("=item");
        if let Some(d) = resolve("", module) {
            deps.insert(d);
        }
    }
    let parent =
        if is_dir { me.rsplit_once("::").map_or("", |(p, _)| p) } else { me.rsplit_once("::").map_or("", |(p, _)| p) };
    for name in names_after(code, "super::") {
        if let Some(d) = resolve(parent, &name) {
            deps.insert(d);
        }
    }
    if is_dir {
        for sub in modules.iter().filter(|m| m.rsplit_once("::").is_some_and(|(p, _)| p == me)) {
            let leaf = sub.rsplit_once("::").map_or(sub.as_str(), |(_, l)| l);
            if code.contains(&format!("{leaf}::")) {
                deps.insert(sub.clone());
            }
        }
    }
    deps.remove(me);
    deps
}

/// The layers as the ledger's module doc lists them: `N. `a`, `b` — what they are`.
fn documented_layers() -> BTreeMap<String, usize> {
    let doc = fs::read_to_string(Path::new(ROOT).join("src/ledger/mod.rs")).expect("mod.rs");
    let mut layers = BTreeMap::new();
    for line in doc.lines().filter_map(|l| l.strip_prefix("//! ")) {
        let Some((number, rest)) = line.split_once(". ") else { continue };
        let Ok(n) = number.parse::<usize>() else { continue };
        let names = rest.split(" — ").next().unwrap_or("");
        for name in names.split(", ") {
            let name = name.trim().trim_matches('`');
            assert!(layers.insert(name.to_string(), n).is_none(), "{name} is listed twice");
        }
    }
    layers
}

#[test]
fn the_ledger_s_files_use_only_lower_layers() {
    let layers = documented_layers();
    let files: Vec<PathBuf> =
        rust_files("src/ledger").into_iter().filter(|p| !p.ends_with("src/ledger/mod.rs")).collect();
    let modules: BTreeSet<String> = files.iter().map(|p| ledger_module(p)).collect();
    let listed: BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(listed, modules, "the module doc's layers list every file of src/ledger, and only those");
    let mut wrong = Vec::new();
    for path in &files {
        let me = ledger_module(path);
        let is_dir = path.ends_with("mod.rs");
        let src = code(&fs::read_to_string(path).expect("readable"));
        for dep in ledger_dependencies(&me, is_dir, &src, &modules) {
            if layers[&dep] >= layers[&me] {
                wrong.push(format!("{me} (layer {}) uses {dep} (layer {})", layers[&me], layers[&dep]));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The checker finds what it should: a use of a higher layer, a parent's item, a grouped import.
#[test]
fn the_layer_checker_reads_imports() {
    let modules: BTreeSet<String> = ["bill", "plan", "serving", "serving::engine", "serving::vllm", "estimate"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let src = code("use super::engine::{largest, EngineBill};\nuse crate::ledger::{bill::Bill, plan};\n// super::estimate in a comment\nlet s = \"crate::ledger::estimate\";\nsuper::status_note(x);");
    let deps = ledger_dependencies("serving::vllm", false, &src, &modules);
    assert_eq!(deps, ["bill", "plan", "serving", "serving::engine"].iter().map(|s| s.to_string()).collect());
    let dir = ledger_dependencies("serving", true, &code("mod vllm;\nfn f() { vllm::bill(); }"), &modules);
    assert!(dir.contains("serving::vllm") && !dir.contains("serving::engine"), "{dir:?}");
}

#[test]
fn the_ledger_imports_no_ui_chart_or_browser_code() {
    for path in rust_files("src/ledger") {
        let src = code(&fs::read_to_string(&path).expect("readable"));
        for crate_name in ["yew::", "web_sys::", "gloo::", "plotters::", "wasm_bindgen::", "js_sys::"] {
            assert!(!src.contains(crate_name), "{} uses {crate_name}", path.display());
        }
        for name in names_after(&src, "crate::") {
            let name = name.trim_end_matches("=item");
            assert!(name == "ledger" || name == "msg", "{} uses crate::{name}", path.display());
        }
    }
}

/// The functions of `code` longer than `max` lines: (name, first line, lines).
fn long_functions(code: &str, max: usize) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut search = 0;
    while let Some(at) = code[search..].find("fn ") {
        let start = search + at;
        search = start + 3;
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let name: String = code[start + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // The body: the first `{` before any `;` (a declaration without a body has none).
        let Some(open) = code[start..].find(['{', ';']).map(|i| start + i) else { break };
        if bytes[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut end = open;
        for (i, b) in bytes[open..].iter().enumerate() {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let first = code[..start].matches('\n').count() + 1;
        let lines = code[start..=end].matches('\n').count() + 1;
        if lines > max {
            out.push((name, first, lines));
        }
        search = end;
    }
    out
}

#[test]
fn no_ledger_function_is_longer_than_80_lines() {
    let mut long = Vec::new();
    for path in rust_files("src/ledger") {
        let src = code(&fs::read_to_string(&path).expect("readable"));
        for (name, line, lines) in long_functions(&src, 80) {
            long.push(format!("{}:{line} {name}: {lines} lines", path.display()));
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
    // The counter counts: a 3-line function is 3 lines, a nested block does not end it.
    let sample = "fn a() {\n    if x { y(); }\n}\nfn b();\nfn c() { 1 }";
    assert_eq!(long_functions(sample, 2), vec![("a".to_string(), 1, 3)]);
}

/// `Html::from_html_unchecked` only in src/markup.rs, which builds markup from escaped text,
/// `&'static str` and plotters' drawings.
#[test]
fn strings_become_markup_in_one_place() {
    let mut users = Vec::new();
    for path in rust_files("src") {
        if code(&fs::read_to_string(&path).expect("readable")).contains("from_html_unchecked") {
            users.push(path.strip_prefix(ROOT).expect("in the repository").display().to_string());
        }
    }
    assert_eq!(users, vec!["src/markup.rs".to_string()]);
}

/// No file of the repository names this machine's own paths (the checkout's, the cargo home's).
#[test]
fn no_file_names_this_machine_s_paths() {
    let mut machine: Vec<String> = vec![ROOT.to_string()];
    if let Some(home) = std::env::var_os("CARGO_HOME").or_else(|| std::env::var_os("HOME")) {
        machine.push(home.to_string_lossy().into_owned());
    }
    machine.retain(|p| p.len() > 1);
    let skip = ["target", "node_modules", "dist", ".git"];
    let mut files = Vec::new();
    for entry in fs::read_dir(ROOT).expect("the repository").flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if skip.contains(&name.as_str()) {
            continue;
        }
        if path.is_dir() {
            files_under(&path, &|_| true, &mut files);
        } else {
            files.push(path);
        }
    }
    let mut found = Vec::new();
    for path in files {
        let Ok(text) = fs::read(&path) else { continue };
        let text = String::from_utf8_lossy(&text);
        for m in &machine {
            if text.contains(m.as_str()) {
                found.push(format!("{} names {m}", path.display()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
