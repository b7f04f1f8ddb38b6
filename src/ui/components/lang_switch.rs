use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::units::Unit;

#[derive(Properties, PartialEq)]
pub struct SwitchesProps {
    pub lang: Lang,
    pub unit: Unit,
    pub onlang: Callback<Lang>,
    pub onunit: Callback<Unit>,
}

fn toggle(pressed: bool, testid: String, label: &'static str, onclick: Callback<MouseEvent>) -> Html {
    html! {
        <button type="button" class={classes!("lang-option", pressed.then_some("active"))}
            aria-pressed={pressed.to_string()} data-testid={testid} {onclick}>{ label }</button>
    }
}

/// GiB / GB and 中文 / English, as toggle buttons (keyboard: Tab + Enter/Space).
#[function_component(Switches)]
pub fn switches(props: &SwitchesProps) -> Html {
    let unit =
        |u: Unit| toggle(props.unit == u, format!("unit-{}", u.id()), u.label(), props.onunit.reform(move |_| u));
    let lang =
        |l: Lang, label| toggle(props.lang == l, format!("lang-{}", l.id()), label, props.onlang.reform(move |_| l));
    html! {
        <div class="header-switches">
            <div class="lang-switch" role="group" aria-label={text(props.lang, Text::UnitLabel)}>
                { unit(Unit::GiB) }{ unit(Unit::GB) }
            </div>
            <div class="lang-switch" role="group" aria-label={text(props.lang, Text::Language)}>
                { lang(Lang::Zh, "中文") }{ lang(Lang::En, "English") }
            </div>
        </div>
    }
}
