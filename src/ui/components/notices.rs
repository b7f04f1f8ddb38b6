use yew::prelude::*;

use crate::i18n::{render, text, Lang, Text};
use crate::query::Problem;

/// What in the link could not be used. Messages quote the link's text, which Yew escapes.
pub fn notices(lang: Lang, errors: &[Problem], warnings: &[Problem], ondismiss: Callback<()>) -> Html {
    if errors.is_empty() && warnings.is_empty() {
        return html! {};
    }
    let item = |class: &'static str| move |p: &Problem| html! { <li class={class} data-key={p.key.clone()}>{ render(lang, &p.message) }</li> };
    html! {
        <section class="notices" role="status" data-testid="notices">
            <h2>{ text(lang, Text::Notices) }</h2>
            <ul>
                { for errors.iter().map(item("notice-error")) }
                { for warnings.iter().map(item("notice-warning")) }
            </ul>
            <button type="button" data-testid="dismiss-notices" onclick={ondismiss.reform(|_| ())}>{ text(lang, Text::Dismiss) }</button>
        </section>
    }
}
