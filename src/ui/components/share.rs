use yew::prelude::*;

use crate::i18n::{text, Lang, Text};

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    pub lang: Lang,
    /// The full link to this state.
    pub url: AttrValue,
}

/// The link to this exact configuration, and a button that copies it.
#[function_component(Share)]
pub fn share(props: &ShareProps) -> Html {
    let copied = use_state(|| false);
    let onclick = {
        let url = props.url.to_string();
        let copied = copied.clone();
        Callback::from(move |_| {
            if let Some(w) = web_sys::window() {
                // The Clipboard API needs a secure context (https or localhost); elsewhere the link
                // stays selectable in the field.
                let _ = w.navigator().clipboard().write_text(&url);
                copied.set(true);
            }
        })
    };
    html! {
        <section class="share">
            <label class="field share-field" for="share-url">
                <span class="field-label">{ text(props.lang, Text::ShareLink) }</span>
                <input id="share-url" data-testid="share-url" readonly=true value={props.url.clone()} />
            </label>
            <button type="button" data-testid="copy-link" {onclick}>
                { if *copied { text(props.lang, Text::Copied) } else { text(props.lang, Text::CopyLink) } }
            </button>
        </section>
    }
}
