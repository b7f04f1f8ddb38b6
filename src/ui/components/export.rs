use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::i18n::{text, Lang, Text};

#[derive(PartialEq)]
pub struct ExportProps {
    pub lang: Lang,
    /// The ledger as a Markdown table.
    pub markdown: AttrValue,
    /// The chart as a standalone SVG document.
    pub svg: AttrValue,
}

/// Saves `svg` as a file through a Blob URL and a temporary link.
fn download_svg(svg: &str) -> Option<()> {
    let window = web_sys::window()?;
    let document = window.document()?;
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(svg));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("image/svg+xml");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").ok()?.dyn_into().ok()?;
    a.set_href(&url);
    a.set_download("vram-ledger.svg");
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Some(())
}

/// Copy the ledger as Markdown (for a project proposal) and download the chart as SVG.
pub fn export(props: ExportProps) -> Html {
    let on_copy = {
        let md = props.markdown.to_string();
        Callback::from(move |_| super::share::copy(&md))
    };
    let on_svg = {
        let svg = props.svg.to_string();
        Callback::from(move |_| {
            let _ = download_svg(&svg);
        })
    };
    html! {
        <div class="export">
            <button type="button" data-testid="copy-markdown" onclick={on_copy}>{ text(props.lang, Text::CopyMarkdown) }</button>
            <button type="button" data-testid="download-svg" onclick={on_svg}>{ text(props.lang, Text::DownloadSvg) }</button>
        </div>
    }
}
