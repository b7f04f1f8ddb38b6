use yew::prelude::*;

use crate::i18n::{text, Lang, Text};

#[derive(PartialEq)]
pub struct LangSwitchProps {
    pub lang: Lang,
    pub onchange: Callback<Lang>,
}

/// 中文 / English, as two toggle buttons (keyboard: Tab + Enter/Space).
pub fn lang_switch(props: LangSwitchProps) -> Html {
    let button = |l: Lang, label: &'static str| {
        let onchange = props.onchange.clone();
        let pressed = props.lang == l;
        html! {
            <button type="button" class={classes!("lang-option", pressed.then_some("active"))}
                aria-pressed={pressed.to_string()} data-testid={format!("lang-{}", l.id())}
                onclick={move |_| onchange.emit(l)}>{ label }</button>
        }
    };
    html! {
        <div class="lang-switch" role="group" aria-label={text(props.lang, Text::Language)}>
            { button(Lang::Zh, "中文") }
            { button(Lang::En, "English") }
        </div>
    }
}
