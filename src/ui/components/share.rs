use yew::prelude::*;

use crate::i18n::{text, Lang, Text};

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    pub lang: Lang,
    /// The full link to this state.
    pub url: AttrValue,
    /// The iframe snippet for a course page.
    pub embed_code: AttrValue,
}

/// Copies `text` to the clipboard. The Clipboard API needs a secure context (https or localhost);
/// elsewhere the fields stay selectable.
pub fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// The link to this exact configuration, and buttons that copy it or the embed code (each says
/// "copied" after its click: this component's own state).
#[function_component(Share)]
pub fn share(props: &ShareProps) -> Html {
    let copied = use_state(|| None::<&'static str>);
    let copier = |what: &'static str, content: &AttrValue| {
        let (content, copied) = (content.to_string(), copied.clone());
        Callback::from(move |_| {
            copy(&content);
            copied.set(Some(what));
        })
    };
    let label = |what: &'static str, t: Text| text(props.lang, if *copied == Some(what) { Text::Copied } else { t });
    html! {
        <section class="share">
            <label class="field share-field" for="share-url">
                <span class="field-label">{ text(props.lang, Text::ShareLink) }</span>
                <input id="share-url" data-testid="share-url" readonly=true value={props.url.clone()} />
            </label>
            <div class="share-buttons">
                <button type="button" data-testid="copy-link" onclick={copier("link", &props.url)}>{ label("link", Text::CopyLink) }</button>
                <button type="button" data-testid="copy-embed" onclick={copier("embed", &props.embed_code)}>{ label("embed", Text::CopyEmbed) }</button>
            </div>
            <textarea class="embed-code" data-testid="embed-code" readonly=true rows="3" aria-label={text(props.lang, Text::CopyEmbed)} value={props.embed_code.clone()} />
        </section>
    }
}
