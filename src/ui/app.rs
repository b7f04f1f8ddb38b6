//! The page: header (title, language), the controls, the verdict, the chart, the ledger table and
//! the share link. The state is one reducer (`state.rs`); the URL follows it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo::events::EventListener;

use gloo::timers::callback::Timeout;
use yew::prelude::*;

use super::components::{
    lang_switch, ledger_table, notices, render_chart, verdict_card, export, chart_view, ChartViewProps, Controls, ExportProps, LangSwitchProps, LedgerTableProps,
    MeasuredCompare, ModelImport, NoticesProps, OomTree, share, ShareProps, SpeedCardProps, VerdictCardProps, speed_card,
};
use super::embed;
use super::state::{Action, CalcState};
use crate::i18n::{text, Lang, Text};
use crate::ledger::units::Unit;
use crate::ledger::{estimate, fit};

#[derive(Properties, PartialEq, Clone)]
pub struct AppProps {
    /// The link's query string (the whole scenario).
    pub query: String,
    /// The language the browser prefers, used when the link has no `lang=`.
    pub browser_lang: Lang,
}

/// The page's address without its query.
fn page_base() -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let end = href.find(['?', '#']).unwrap_or(href.len());
    href[..end].to_string()
}

/// Writes the state into the address bar with `replaceState` (never `pushState`: inside a course
/// page's iframe that would fill the page's Back button). Browsers throttle history calls; a
/// refused call is ignored.
fn replace_query(query: &str) {
    let Some(w) = web_sys::window() else { return };
    let Ok(history) = w.history() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let url = if query.is_empty() { path } else { format!("?{query}") };
    let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let state = use_reducer(|| CalcState::from_query(&props.query, props.browser_lang));
    let lang = state.lang;
    let query = state.share_query(props.browser_lang);

    {
        let html_lang = lang.html_lang();
        use_effect_with(lang, move |_| {
            if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
                let _ = el.set_attribute("lang", html_lang);
            }
        });
    }

    // The URL follows the state, debounced so that dragging a slider does not flood the history API.
    let pending: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);
    {
        let pending = pending.clone();
        use_effect_with(query.clone(), move |q| {
            let q = q.clone();
            *pending.borrow_mut() = Some(Timeout::new(250, move || replace_query(&q)));
        });
    }

    // Embed mode: tell the parent our height after every render and on resize.
    let last_height: Rc<Cell<i32>> = use_memo((), |_| Rc::new(Cell::new(-1))).as_ref().clone();
    {
        let embed_on = state.embed;
        let last = last_height.clone();
        use_effect(move || {
            if embed_on {
                embed::post_height_if_changed(&last);
            }
        });
    }
    {
        let embed_on = state.embed;
        let last = last_height.clone();
        use_effect_with(embed_on, move |on| {
            let listener = on.then(|| {
                web_sys::window().map(|w| EventListener::new(&w, "resize", move |_| embed::post_height_if_changed(&last)))
            });
            move || drop(listener)
        });
    }

    let segment_detail = use_state(String::new);
    let card_open = use_state(|| false);
    let copied = use_state(|| None::<&'static str>);
    let on_detail = {
        let d = segment_detail.clone();
        Callback::from(move |t: String| d.set(t))
    };

    let scenario = &state.scenario;
    let bill = estimate(scenario);
    let max_batch = fit::max_batch(scenario);
    let max_seq = fit::max_seq(scenario);

    let onset = {
        let state = state.clone();
        Callback::from(move |(key, value): (&'static str, String)| state.dispatch(Action::Set(key, value)))
    };
    let onset_tree = onset.clone();
    let on_lang = {
        let state = state.clone();
        Callback::from(move |l: Lang| state.dispatch(Action::SetLang(l)))
    };
    let on_import = {
        let state = state.clone();
        Callback::from(move |a| state.dispatch(Action::SetCustomModel(a)))
    };
    let on_dismiss = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::DismissNotices))
    };
    let unit_button = |u: Unit| {
        let state = state.clone();
        let pressed = state.unit == u;
        html! {
            <button type="button" class={classes!("lang-option", pressed.then_some("active"))} aria-pressed={pressed.to_string()}
                data-testid={format!("unit-{}", u.id())} onclick={move |_| state.dispatch(Action::SetUnit(u))}>{ u.label() }</button>
        }
    };
    let with_base = |q: &str| if q.is_empty() { page_base() } else { format!("{}?{q}", page_base()) };
    let share_url = with_base(&query);
    let full_query = CalcState { embed: false, ..(*state).clone() }.share_query(props.browser_lang);
    let full_url = with_base(&full_query);
    let embed_src = with_base(&if full_query.is_empty() { "embed=1".to_string() } else { format!("{full_query}&embed=1") });
    let gpus_drawn = if scenario.mode == crate::ledger::scenario::Mode::Train { scenario.gpus } else { 1 };
    let before_bill = state.before.as_ref().map(estimate);
    let svg = AttrValue::from(render_chart(lang, &bill, gpus_drawn, before_bill.as_ref()));
    let what_if = before_bill.as_ref().map(|b| {
        let saved = b.device_bytes() as i128 - bill.device_bytes() as i128;
        let pct = 100.0 * saved as f64 / b.device_bytes().max(1) as f64;
        let state = state.clone();
        html! {
            <p class="what-if" data-testid="what-if" data-saved={saved.to_string()}>
                { format!("{}: {}{} GiB ({}{} %) ", text(lang, Text::Saving), if saved >= 0 { "−" } else { "+" },
                    crate::ledger::units::fixed(saved.unsigned_abs() as f64 / (1u64 << 30) as f64, 2),
                    if pct < 0.0 { "-" } else { "" }, crate::ledger::units::fixed(pct.abs(), 1)) }
                <button type="button" data-testid="undo-lever" onclick={move |_| state.dispatch(Action::UndoLever)}>{ text(lang, Text::Undo) }</button>
            </p>
        }
    });

    let markdown = {
        let name = move |id| crate::i18n::component(lang, id).to_string();
        let headers = [text(lang, Text::Component), text(lang, Text::Size), text(lang, Text::Share), text(lang, Text::Formula)];
        AttrValue::from(crate::report::bill_markdown(
            &crate::i18n::scenario_line(lang, scenario),
            &bill,
            state.unit,
            name,
            move |f: &str| crate::i18n::localize_formula(lang, f),
            headers,
            text(lang, Text::Total),
        ))
    };

    if state.embed {
        return html! {
            <div class="app embed" data-testid="embed">
                { notices(NoticesProps { lang: lang, errors: state.errors.clone(), warnings: state.warnings.clone(), ondismiss: on_dismiss }) }
                { verdict_card(VerdictCardProps { lang: lang, unit: state.unit, scenario: scenario.clone(), bill: bill.clone() }) }
                { chart_view(ChartViewProps { lang, bill, svg, detail: AttrValue::from((*segment_detail).clone()), ondetail: on_detail }) }
                <Controls lang={lang} scenario={scenario.clone()} {onset} compact=true />
                <p class="open-full"><a href={full_url} target="_blank" rel="noopener" data-testid="open-full">{ text(lang, Text::OpenFull) }</a></p>
            </div>
        };
    }
    let fits_text = |n: u64, suffix: &str| if n == 0 { text(lang, Text::NoneFits).to_string() } else { format!("{n}{suffix}") };

    html! {
        <div class="app">
                <header class="app-header">
                    <div>
                        <h1 data-testid="title">{ text(lang, Text::Title) }</h1>
                        <p class="tagline">{ text(lang, Text::Tagline) }</p>
                    </div>
                    <div class="header-switches">
                        <div class="lang-switch" role="group" aria-label={text(lang, Text::UnitLabel)}>
                            { unit_button(Unit::GiB) }{ unit_button(Unit::GB) }
                        </div>
                        { lang_switch(LangSwitchProps { lang: lang, onchange: on_lang }) }
                    </div>
                </header>
            <main>
                { notices(NoticesProps { lang: lang, errors: state.errors.clone(), warnings: state.warnings.clone(), ondismiss: on_dismiss }) }
                <div class="layout">
                    <div class="side">
                        <Controls lang={lang} scenario={scenario.clone()} {onset} />
                        <ModelImport lang={lang} onimport={on_import} />
                    </div>
                    <div class="results">
                        { verdict_card(VerdictCardProps { lang: lang, unit: state.unit, scenario: scenario.clone(), bill: bill.clone() }) }
                        { chart_view(ChartViewProps { lang, bill: bill.clone(), svg: svg.clone(), detail: AttrValue::from((*segment_detail).clone()), ondetail: on_detail.clone() }) }
                        { what_if.unwrap_or_default() }
                        <section class="fits" data-testid="what-fits">
                            <h2>{ text(lang, Text::WhatFits) }</h2>
                            <dl class="totals">
                                <dt>{ text(lang, Text::MaxBatch) }</dt>
                                <dd data-testid="max-batch" data-value={max_batch.to_string()}>{ fits_text(max_batch, "") }</dd>
                                <dt>{ text(lang, Text::MaxSeq) }</dt>
                                <dd data-testid="max-seq" data-value={max_seq.to_string()}>{ fits_text(max_seq, if lang == Lang::Zh { " token" } else { " tokens" }) }</dd>
                            </dl>
                            { speed_card(SpeedCardProps { lang, open: *card_open, ontoggle: {
                                let c = card_open.clone();
                                Callback::from(move |o: bool| if *c != o { c.set(o) })
                            } }) }
                        </section>
                    </div>
                </div>
                { ledger_table(LedgerTableProps { lang: lang, unit: state.unit, bill: bill.clone() }) }
                <MeasuredCompare lang={lang} unit={state.unit} bill={bill.clone()}
                    onload={{ let s = state.clone(); Callback::from(move |q| s.dispatch(Action::LoadQuery(q))) }} />
                <OomTree lang={lang} scenario={scenario.clone()} selected={state.tree} diagnosis={state.diagnosis.clone()}
                    onselect={{ let s = state.clone(); Callback::from(move |n| s.dispatch(Action::SelectNode(n))) }}
                    onapply={{ let s = state.clone(); Callback::from(move |l| s.dispatch(Action::ApplyLever(l))) }}
                    ondiagnose={{ let s = state.clone(); Callback::from(move |d| s.dispatch(Action::SetDiagnosis(d))) }}
                    onset={onset_tree} />
                { export(ExportProps { lang, markdown, svg }) }
                { share(ShareProps { lang, url: AttrValue::from(share_url), embed_code: AttrValue::from(embed::embed_code(&embed_src)),
                    copied: *copied, oncopied: { let c = copied.clone(); Callback::from(move |w| c.set(Some(w))) } }) }
            </main>
            <footer class="app-footer">{ text(lang, Text::Footer) }</footer>
        </div>
    }
}
