//! The web app: Yew components over the ledger. Only this module (and `main.rs`) touches the
//! browser; everything it shows is computed by `crate::ledger`.

mod app;
pub mod components;
pub mod embed;
pub mod reader_worker;
pub mod state;

pub use app::{App, AppProps};

use crate::i18n::Lang;

/// Mounts the app on `<body>`, with panics reported on the console (a panic would otherwise leave
/// a silent, dead page).
#[cfg(target_arch = "wasm32")]
pub fn start() {
    use wasm_bindgen::JsCast;
    console_error_panic_hook::set_once();
    let Some(window) = web_sys::window() else { return };
    // When index.html shows the prerendered page, the browser paints it before the app's first
    // render (which draws the same): the app mounts after the next frame. Else at once.
    let prerendered = window
        .document()
        .and_then(|d| d.query_selector("#boot-zh:not([hidden]), #boot-en:not([hidden])").ok().flatten());
    if prerendered.is_none() {
        return mount();
    }
    let after_paint = wasm_bindgen::closure::Closure::once_into_js(|| {
        let mount = wasm_bindgen::closure::Closure::once_into_js(mount);
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback(mount.unchecked_ref());
        }
    });
    if window.request_animation_frame(after_paint.unchecked_ref()).is_err() {
        mount();
    }
}

/// The app's first render, in the same task as the removal of what index.html painted while the
/// wasm loaded (#boot), so the browser never paints a frame without either.
#[cfg(target_arch = "wasm32")]
fn mount() {
    let props =
        AppProps { query: location_query(), browser_lang: browser_lang(), base: page_base(), above_the_fold: false };
    if let Some(boot) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("boot")) {
        boot.remove();
    }
    yew::Renderer::<App>::with_props(props).render();
}

/// The default page's first screen as the app renders it with no query and `lang`, before any wasm
/// runs: yew's server renderer on the host (`vram-ledger-web --prerender`). Links in it are
/// relative (`?view=…`), as the page's own address is not known yet.
#[cfg(feature = "prerender")]
pub fn prerender(lang: Lang) -> String {
    let props = AppProps { query: String::new(), browser_lang: lang, base: String::new(), above_the_fold: true };
    components::FIRST_PAINT.store(true, std::sync::atomic::Ordering::Relaxed);
    futures::executor::block_on(yew::ServerRenderer::<App>::with_props(move || props).hydratable(false).render())
}

/// The page's address without its query.
#[cfg(target_arch = "wasm32")]
fn page_base() -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let end = href.find(['?', '#']).unwrap_or(href.len());
    href[..end].to_string()
}

/// The page's query string (`?…`), or empty.
#[cfg(target_arch = "wasm32")]
pub fn location_query() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// The browser's preferred language.
#[cfg(target_arch = "wasm32")]
pub fn browser_lang() -> Lang {
    let tag = web_sys::window().and_then(|w| w.navigator().language()).unwrap_or_default();
    Lang::from_browser(&tag)
}
