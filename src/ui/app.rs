//! The page: header (title, language switch), the verdict and the ledger table of the scenario the
//! link describes.

use yew::prelude::*;

use super::components::{LangSwitch, LedgerTable, Notices, VerdictCard};
use crate::i18n::{text, Lang, Text};
use crate::ledger::estimate;
use crate::query;

#[derive(Properties, PartialEq, Clone)]
pub struct AppProps {
    /// The link's query string (the whole scenario).
    pub query: String,
    /// The language the browser prefers, used when the link has no `lang=`.
    pub browser_lang: Lang,
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let parsed = use_memo(props.query.clone(), |q| query::parse(q));
    let link_lang = parsed.ui.iter().rev().find(|(k, _)| k == "lang").and_then(|(_, v)| Lang::from_id(v));
    let lang = use_state(|| link_lang.unwrap_or(props.browser_lang));
    let lang_value = *lang;

    {
        let html_lang = lang_value.html_lang();
        use_effect_with(lang_value, move |_| {
            if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
                let _ = el.set_attribute("lang", html_lang);
            }
        });
    }

    let scenario = &parsed.scenario;
    let bill = estimate(scenario);
    let on_lang = {
        let lang = lang.clone();
        Callback::from(move |l: Lang| lang.set(l))
    };

    html! {
        <div class="app">
            <header class="app-header">
                <div>
                    <h1 data-testid="title">{ text(lang_value, Text::Title) }</h1>
                    <p class="tagline">{ text(lang_value, Text::Tagline) }</p>
                </div>
                <LangSwitch lang={lang_value} onchange={on_lang} />
            </header>
            <main>
                <Notices lang={lang_value} errors={parsed.errors.clone()} warnings={parsed.warnings.clone()} />
                <VerdictCard lang={lang_value} scenario={scenario.clone()} bill={bill.clone()} />
                <LedgerTable lang={lang_value} bill={bill} />
            </main>
            <footer class="app-footer">{ text(lang_value, Text::Footer) }</footer>
        </div>
    }
}
