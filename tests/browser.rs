//! Component tests in headless Chromium (wasm-bindgen-test). All browser tests live in this one
//! file: each test file starts its own browser.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

use vram_ledger::i18n::Lang;
use vram_ledger::ui::{App, AppProps};

wasm_bindgen_test_configure!(run_in_browser);

fn mount(query: &str, lang: Lang) -> web_sys::Element {
    let document = web_sys::window().and_then(|w| w.document()).expect("a document");
    let root = document.create_element("div").expect("a div");
    document.body().expect("a body").append_child(&root).expect("appended");
    yew::Renderer::<App>::with_root_and_props(root.clone(), AppProps { query: query.into(), browser_lang: lang })
        .render();
    root
}

fn attr(root: &web_sys::Element, selector: &str, name: &str) -> String {
    root.query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.get_attribute(name))
        .unwrap_or_else(|| panic!("{selector} has no {name}"))
}

fn text(root: &web_sys::Element, selector: &str) -> String {
    root.query_selector(selector).ok().flatten().and_then(|e| e.text_content()).unwrap_or_default()
}

#[wasm_bindgen_test]
async fn renders_title_and_weights_of_the_linked_model() {
    let root = mount("?model=llama-2-7b&mode=infer", Lang::En);
    yew::scheduler::flush().await;
    assert_eq!(text(&root, "[data-testid=title]"), "VRAM Ledger · 显存账本");
    // Llama-2-7B: 6,738,415,616 parameters (model card) × 2 B in bf16.
    assert_eq!(attr(&root, "[data-testid=component-weights]", "data-bytes"), (6_738_415_616u64 * 2).to_string());
    // 12.55 GiB: vLLM's load log reports "Loading model weights took 12.5523 GB" (GiB), measured-public B1.
    assert!(text(&root, "[data-testid=component-weights]").contains("12.55 GiB"));
}

#[wasm_bindgen_test]
async fn language_switch_changes_every_label() {
    let root = mount("", Lang::Zh);
    yew::scheduler::flush().await;
    assert!(text(&root, "[data-testid=component-weights] th").contains("权重"));
    let en: HtmlElement = root
        .query_selector("[data-testid=lang-en]")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into().ok())
        .expect("the English button");
    en.click();
    yew::scheduler::flush().await;
    assert!(text(&root, "[data-testid=component-weights] th").contains("Weights"));
    assert_eq!(attr(&root, "[data-testid=lang-en]", "aria-pressed"), "true");
}

#[wasm_bindgen_test]
async fn invalid_values_become_notices_not_panics() {
    let root = mount("?seq=0&quant=int3&zzz=1", Lang::En);
    yew::scheduler::flush().await;
    let notices = text(&root, "[data-testid=notices]");
    assert!(notices.contains("seq=0"), "{notices}");
    assert!(notices.contains("int3") && notices.contains("nf4"), "lists accepted values: {notices}");
    assert!(notices.contains("zzz"), "{notices}");
    assert!(!attr(&root, "[data-testid=total]", "data-bytes").is_empty());
}
