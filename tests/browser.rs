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
    yew::Renderer::<App>::with_root_and_props(
        root.clone(),
        AppProps { query: query.into(), browser_lang: lang, base: String::new(), above_the_fold: false },
    )
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

fn element<T: JsCast>(root: &web_sys::Element, selector: &str) -> T {
    root.query_selector(selector).ok().flatten().and_then(|e| e.dyn_into().ok()).unwrap_or_else(|| panic!("{selector}"))
}

/// Focusing a segment shows its size and formula in the chart's detail line (the chart card's own
/// state), and another segment replaces it.
#[wasm_bindgen_test]
async fn a_focused_segment_shows_its_size_and_formula() {
    let root = mount("?model=llama-2-7b&mode=infer&seq=4096", Lang::En);
    yew::scheduler::flush().await;
    assert_eq!(text(&root, "[data-testid=segment-detail]"), "");
    let kv: web_sys::SvgElement = element(&root, "[data-testid=chart] .segment[data-component=kv_cache]");
    kv.focus().expect("focusable");
    yew::scheduler::flush().await;
    // 2 × 32 layers × 32 heads × 128 × 4,096 tokens × 2 B = 2.00 GiB.
    let detail = text(&root, "[data-testid=segment-detail]");
    assert!(detail.contains("KV cache: 2.00 GiB — 2 × 32 layers"), "{detail}");
    let weights: web_sys::SvgElement = element(&root, "[data-testid=chart] .segment[data-component=weights]");
    weights.focus().expect("focusable");
    yew::scheduler::flush().await;
    assert!(text(&root, "[data-testid=segment-detail]").contains("Weights: 12.55 GiB"));
}

/// A copy button says it copied (its own state) until what it copies changes.
#[wasm_bindgen_test]
async fn a_copy_button_marks_itself_copied() {
    let root = mount("?model=llama-2-7b", Lang::En);
    yew::scheduler::flush().await;
    assert!(root.query_selector("[data-testid=copy-link][data-copied]").ok().flatten().is_none());
    let button: HtmlElement = element(&root, "[data-testid=copy-link]");
    button.click();
    yew::scheduler::flush().await;
    assert!(root.query_selector("[data-testid=copy-link][data-copied]").ok().flatten().is_some());
    assert!(root.query_selector("[data-testid=copy-embed][data-copied]").ok().flatten().is_none());
}
