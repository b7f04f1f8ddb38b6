//! The link to this exact configuration and the embed code, each with a button that copies it and
//! then says so (the button's own state: a copy re-renders this section alone).

use yew::prelude::*;

use crate::i18n::{text, Lang, Text};

/// Copies `text` to the clipboard. The Clipboard API needs a secure context (https or localhost);
/// elsewhere the fields stay selectable.
pub fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    pub lang: Lang,
    pub url: AttrValue,
    pub embed_code: AttrValue,
}

#[derive(Properties, PartialEq)]
struct CopyButtonProps {
    testid: &'static str,
    label: AttrValue,
    content: AttrValue,
}

/// A button that copies `content`; once clicked it carries `data-copied` (the style sheet adds a
/// ✓) until what it copies changes.
#[function_component(CopyButton)]
fn copy_button(props: &CopyButtonProps) -> Html {
    let copied = use_state(|| None::<AttrValue>);
    let onclick = {
        let (copied, content) = (copied.clone(), props.content.clone());
        Callback::from(move |_: MouseEvent| {
            copy(&content);
            copied.set(Some(content.clone()));
        })
    };
    let mark = (copied.as_ref() == Some(&props.content)).then_some("");
    html! {
        <button type="button" data-testid={props.testid} data-copied={mark} {onclick}>{ props.label.clone() }</button>
    }
}

#[function_component(Share)]
pub fn share(props: &ShareProps) -> Html {
    let lang = props.lang;
    html! {
        <section class="share">
            <label class="field share-field" for="share-url">
                <span class="field-label">{ text(lang, Text::ShareLink) }</span>
                <input id="share-url" data-testid="share-url" readonly=true value={props.url.clone()} />
            </label>
            <div class="share-buttons">
                <CopyButton testid="copy-link" label={text(lang, Text::CopyLink)} content={props.url.clone()} />
                <CopyButton testid="copy-embed" label={text(lang, Text::CopyEmbed)} content={props.embed_code.clone()} />
            </div>
            <textarea class="embed-code" data-testid="embed-code" readonly=true rows="3" aria-label={text(lang, Text::CopyEmbed)} value={props.embed_code.clone()} />
        </section>
    }
}
