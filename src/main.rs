//! The web app's entry point (built for wasm32 by Trunk; see index.html).

#[cfg(target_arch = "wasm32")]
fn main() {
    vram_ledger::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("vram-ledger-web is the browser app: run `make serve`. The native CLI is `vram-ledger`.");
}
