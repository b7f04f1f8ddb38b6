use yew::prelude::*;

use crate::i18n::{render, text, Lang, Text};
use crate::query::Problem;

#[derive(Properties, PartialEq)]
pub struct NoticesProps {
    pub lang: Lang,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
    pub ondismiss: Callback<()>,
}

/// What in the link could not be used. Messages quote the link's text, which Yew escapes.
#[function_component(Notices)]
pub fn notices(props: &NoticesProps) -> Html {
    if props.errors.is_empty() && props.warnings.is_empty() {
        return html! {};
    }
    let item = |class: &'static str| move |p: &Problem| html! { <li class={class} data-key={p.key.clone()}>{ render(props.lang, &p.message) }</li> };
    html! {
        <section class="notices" role="status" data-testid="notices">
            <h2>{ text(props.lang, Text::Notices) }</h2>
            <ul>
                { for props.errors.iter().map(item("notice-error")) }
                { for props.warnings.iter().map(item("notice-warning")) }
            </ul>
            <button type="button" data-testid="dismiss-notices" onclick={props.ondismiss.reform(|_| ())}>{ text(props.lang, Text::Dismiss) }</button>
        </section>
    }
}
