//! The web app's entry point (built for wasm32 by Trunk; see index.html).

// The allocator: talc instead of std's dlmalloc (smaller and faster in wasm; docs/size.md).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    vram_ledger::ui::start();
}

/// Natively, with the `prerender` feature: `vram-ledger-web --prerender FILE` prints the default
/// page as the app renders it in `--lang` (zh or en), for Trunk's post-build hook
/// (`tools/prerender.mjs`) to place in index.html.
#[cfg(all(not(target_arch = "wasm32"), feature = "prerender"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lang = match args.as_slice() {
        [flag, lang] if flag == "--prerender" => vram_ledger::i18n::Lang::from_id(lang),
        _ => None,
    };
    match lang {
        Some(lang) => print!("{}", vram_ledger::ui::prerender(lang)),
        None => {
            eprintln!("usage: vram-ledger-web --prerender zh|en");
            std::process::exit(2);
        }
    }
}

#[cfg(all(not(target_arch = "wasm32"), not(feature = "prerender")))]
fn main() {
    eprintln!("vram-ledger-web is the browser app: run `make serve`. The native CLI is `vram-ledger`.");
}
