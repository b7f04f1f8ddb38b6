//! Embed mode (`embed=1`): the page lives in an iframe of a course chapter. It tells the parent its
//! height (`{type: "vram-ledger:height", height}`) whenever that changes, and listens to nothing
//! from the parent.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::JsValue;

use crate::markup::Markup;

/// The content's own height (no 100vh anywhere in embed mode, so the two cannot grow each other).
fn document_height() -> Option<i32> {
    let root = web_sys::window()?.document()?.document_element()?;
    Some(root.scroll_height().max(root.get_bounding_client_rect().height().ceil() as i32))
}

/// Posts the document's height to the parent window (an opened `<details>` changes it without a
/// render of the app).
pub fn post_height() {
    if let Some(height) = document_height() {
        post(height);
    }
}

/// Posts the document's height to the parent window if it changed since the last post.
pub fn post_height_if_changed(last: &Rc<Cell<i32>>) {
    let Some(height) = document_height() else { return };
    if height != last.get() {
        last.set(height);
        post(height);
    }
}

fn post(height: i32) {
    let Some(window) = web_sys::window() else { return };
    let Ok(Some(parent)) = window.parent() else { return };
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &JsValue::from_str("type"), &JsValue::from_str("vram-ledger:height"));
    let _ = js_sys::Reflect::set(&message, &JsValue::from_str("height"), &JsValue::from_f64(height as f64));
    let _ = parent.post_message(&message, "*");
}

/// The iframe snippet a course page pastes, with the listener that sizes the iframe: markup for
/// the course page, so the link in it is escaped as an attribute value.
pub fn embed_code(src: &str) -> String {
    let mut code = Markup::raw(r#"<iframe src=""#);
    code.push_text(src);
    code.push_raw(
        r#"" title="VRAM Ledger · 显存账本" style="width:100%;border:0" height="560" loading="lazy"></iframe>
<script>addEventListener("message",function(e){if(!e.data||e.data.type!=="vram-ledger:height")return;document.querySelectorAll("iframe").forEach(function(f){if(f.contentWindow===e.source)f.style.height=e.data.height+"px"})})</script>"#,
    );
    code.as_str().to_string()
}
