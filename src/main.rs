//! The web app's entry point (built for wasm32 by Trunk; see index.html).

// The allocator: talc instead of std's dlmalloc (smaller and faster in wasm; docs/size.md).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    vram_ledger::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("vram-ledger-web is the browser app: run `make serve`. The native CLI is `vram-ledger`.");
}
