use yew::prelude::*;

use crate::i18n::{text, Lang, Text};

#[derive(PartialEq)]
pub struct ShareProps {
    pub lang: Lang,
    /// The full link to this state.
    pub url: AttrValue,
    /// The iframe snippet for a course page.
    pub embed_code: AttrValue,
    /// What was copied last ("link" or "embed"), for the buttons' feedback.
    pub copied: Option<&'static str>,
    pub oncopied: Callback<&'static str>,
}

/// Copies `text` to the clipboard. The Clipboard API needs a secure context (https or localhost);
/// elsewhere the fields stay selectable.
pub fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// The link to this exact configuration, and a button that copies it.
pub fn share(props: ShareProps) -> Html {
    let onclick = {
        let url = props.url.to_string();
        let cb = props.oncopied.clone();
        Callback::from(move |_| {
            copy(&url);
            cb.emit("link");
        })
    };
    let on_embed = {
        let code = props.embed_code.to_string();
        let cb = props.oncopied.clone();
        Callback::from(move |_| {
            copy(&code);
            cb.emit("embed");
        })
    };
    let label = |what: &'static str, t: Text| if props.copied == Some(what) { text(props.lang, Text::Copied) } else { text(props.lang, t) };
    html! {
        <section class="share">
            <label class="field share-field" for="share-url">
                <span class="field-label">{ text(props.lang, Text::ShareLink) }</span>
                <input id="share-url" data-testid="share-url" readonly=true value={props.url.clone()} />
            </label>
            <div class="share-buttons">
                <button type="button" data-testid="copy-link" {onclick}>{ label("link", Text::CopyLink) }</button>
                <button type="button" data-testid="copy-embed" onclick={on_embed}>{ label("embed", Text::CopyEmbed) }</button>
            </div>
            <textarea class="embed-code" data-testid="embed-code" readonly=true rows="3" aria-label={text(props.lang, Text::CopyEmbed)} value={props.embed_code.clone()} />
        </section>
    }
}
