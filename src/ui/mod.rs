//! The web app: Yew components over the ledger. Only this module (and `main.rs`) touches the
//! browser; everything it shows is computed by `crate::ledger`.

mod app;
pub mod components;
pub mod embed;
pub mod state;

pub use app::{App, AppProps};

use crate::i18n::Lang;

/// Mounts the app on `<body>`, with panics reported on the console (a panic would otherwise leave
/// a silent, dead page).
pub fn start() {
    console_error_panic_hook::set_once();
    let props = AppProps { query: location_query(), browser_lang: browser_lang() };
    // The frame index.html painted while the wasm loaded goes in the same task as the first render,
    // so the browser never paints a frame without either.
    if let Some(boot) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("boot")) {
        boot.remove();
    }
    yew::Renderer::<App>::with_props(props).render();
}

/// The page's query string (`?…`), or empty.
pub fn location_query() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// The browser's preferred language.
pub fn browser_lang() -> Lang {
    let tag = web_sys::window().and_then(|w| w.navigator().language()).unwrap_or_default();
    Lang::from_browser(&tag)
}
