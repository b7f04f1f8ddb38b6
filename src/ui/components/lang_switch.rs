use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::units::Unit;

fn toggle(pressed: bool, testid: String, label: &'static str, onclick: Callback<MouseEvent>) -> Html {
    html! {
        <button type="button" class={classes!("lang-option", pressed.then_some("active"))}
            aria-pressed={pressed.to_string()} data-testid={testid} {onclick}>{ label }</button>
    }
}

/// GiB / GB and 中文 / English, as toggle buttons (keyboard: Tab + Enter/Space).
pub fn switches(lang: Lang, unit: Unit, onlang: Callback<Lang>, onunit: Callback<Unit>) -> Html {
    let unit_button = |u: Unit| toggle(unit == u, format!("unit-{}", u.id()), u.label(), onunit.reform(move |_| u));
    let lang_button = |l: Lang, label| toggle(lang == l, format!("lang-{}", l.id()), label, onlang.reform(move |_| l));
    html! {
        <div class="header-switches">
            <div class="lang-switch" role="group" aria-label={text(lang, Text::UnitLabel)}>
                { unit_button(Unit::GiB) }{ unit_button(Unit::GB) }
            </div>
            <div class="lang-switch" role="group" aria-label={text(lang, Text::Language)}>
                { lang_button(Lang::Zh, "中文") }{ lang_button(Lang::En, "English") }
            </div>
        </div>
    }
}
