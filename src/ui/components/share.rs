use yew::prelude::*;

use crate::i18n::{text, Lang, Text};

/// Copies `text` to the clipboard. The Clipboard API needs a secure context (https or localhost);
/// elsewhere the fields stay selectable.
pub fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// Copies `content` and marks the clicked button `data-copied` (the style sheet adds a ✓); the
/// mark is the DOM's, not yew's, so a click re-renders nothing.
fn copier(content: AttrValue) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        copy(&content);
        let _ = e.target_unchecked_into::<web_sys::Element>().set_attribute("data-copied", "");
    })
}

/// The link to this exact configuration, and buttons that copy it or the embed code.
pub fn share(lang: Lang, url: AttrValue, embed_code: AttrValue) -> Html {
    html! {
        <section class="share">
            <label class="field share-field" for="share-url">
                <span class="field-label">{ text(lang, Text::ShareLink) }</span>
                <input id="share-url" data-testid="share-url" readonly=true value={url.clone()} />
            </label>
            <div class="share-buttons">
                <button type="button" data-testid="copy-link" onclick={copier(url)}>{ text(lang, Text::CopyLink) }</button>
                <button type="button" data-testid="copy-embed" onclick={copier(embed_code.clone())}>{ text(lang, Text::CopyEmbed) }</button>
            </div>
            <textarea class="embed-code" data-testid="embed-code" readonly=true rows="3" aria-label={text(lang, Text::CopyEmbed)} value={embed_code} />
        </section>
    }
}
