use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::query::Problem;

#[derive(PartialEq)]
pub struct NoticesProps {
    pub lang: Lang,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
    pub ondismiss: Callback<()>,
}

/// What in the link could not be used. Messages quote the link's text, which Yew escapes.
pub fn notices(props: NoticesProps) -> Html {
    if props.errors.is_empty() && props.warnings.is_empty() {
        return html! {};
    }
    html! {
        <section class="notices" role="status" data-testid="notices">
            <h2>{ text(props.lang, Text::Notices) }</h2>
            <ul>
                { for props.errors.iter().map(|p| html! {
                    <li class="notice-error" data-key={p.key.clone()}>{ crate::i18n::localize_notice(props.lang, &p.message) }</li>
                }) }
                { for props.warnings.iter().map(|p| html! {
                    <li class="notice-warning" data-key={p.key.clone()}>{ crate::i18n::localize_notice(props.lang, &p.message) }</li>
                }) }
            </ul>
            <button type="button" data-testid="dismiss-notices" onclick={props.ondismiss.reform(|_| ())}>{ text(props.lang, Text::Dismiss) }</button>
        </section>
    }
}
