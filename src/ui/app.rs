//! The page: header (title, language), the controls, the verdict, the chart, the ledger table and
//! the share link. The state is one reducer (`state.rs`); the URL follows it. The bill and the fit
//! solvers are memoised on the scenario, and hover, copy and open states live in the components
//! that show them, so only a change of the scenario recomputes the ledger.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use yew::prelude::*;

use super::components::{
    chart_view, export, grid_view, ledger_table, measured_compare, notices, oom_tree, peak_line, planner, render_chart,
    render_timeline, self_test, self_test_chart, speed_card, switches, timeline_view, trace_comparison, verdict_card,
    Controls, ModelImport, OomTreeProps, PlannerData, SelfTestAnswer, Share, TraceDrop,
};
use super::embed;
use super::state::{Action, CalcState, Same};
use crate::i18n::{text, Lang, Text};
use crate::ledger::bill::Bill;
use crate::ledger::scenario::{Mode, Scenario};
use crate::ledger::units::fixed;
use crate::ledger::{estimate, fit, phases};
use crate::query::Key;
use crate::validation::trace::Trace;

#[derive(Properties, PartialEq, Clone)]
pub struct AppProps {
    /// The link's query string (the whole scenario).
    pub query: String,
    /// The language the browser prefers, used when the link has no `lang=`.
    pub browser_lang: Lang,
    /// The page's address without its query: links are `{base}?{query}` (relative when empty).
    pub base: String,
    /// Only what the first screen shows (the header, the controls, the verdict, the charts, what
    /// fits): the build's prerendered page, which the app then completes.
    #[prop_or_default]
    pub above_the_fold: bool,
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

/// `html lang` follows the language; the URL follows the state (debounced, so that dragging a
/// slider does not flood the history API); in embed mode the parent hears our height.
#[hook]
fn use_page_effects(lang: Lang, query: String, embed_on: bool) {
    use_effect_with(lang, move |lang| {
        if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
            let _ = el.set_attribute("lang", lang.html_lang());
        }
    });
    let pending: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);
    use_effect_with(query, move |q| {
        let q = q.clone();
        *pending.borrow_mut() = Some(Timeout::new(250, move || replace_query(&q)));
    });
    let last_height: Rc<Cell<i32>> = use_memo((), |_| Rc::new(Cell::new(-1))).as_ref().clone();
    {
        let last = last_height.clone();
        use_effect(move || {
            if embed_on {
                embed::post_height_if_changed(&last);
            }
        });
    }
    use_effect_with(embed_on, move |on| {
        let listener = on.then(|| {
            web_sys::window()
                .map(|w| EventListener::new(&w, "resize", move |_| embed::post_height_if_changed(&last_height)))
        });
        move || drop(listener)
    });
}

fn what_if(lang: Lang, before: &Bill, after: &Bill, onundo: Callback<MouseEvent>) -> Html {
    let (line, concurrency, saved) = if let (Some(b), Some(a)) = (&before.serving, &after.serving) {
        let line = format!(
            "{}: {}× → {}× ",
            text(lang, Text::ServingConcurrency),
            fixed(b.max_concurrency, 2),
            fixed(a.max_concurrency, 2)
        );
        (line, Some(fixed(a.max_concurrency, 2)), None)
    } else {
        let saved = crate::ledger::bill::signed_difference(before.device_bytes(), after.device_bytes());
        let pct = 100.0 * saved as f64 / before.device_bytes().max(1) as f64;
        let line = format!(
            "{}: {}{} GiB ({}{} %) ",
            text(lang, Text::Saving),
            if saved >= 0 { "−" } else { "+" },
            fixed(saved.unsigned_abs() as f64 / (1u64 << 30) as f64, 2),
            if pct < 0.0 { "-" } else { "" },
            fixed(pct.abs(), 1)
        );
        (line, None, Some(saved.to_string()))
    };
    html! {
        <p class="what-if" data-testid="what-if" data-concurrency={concurrency} data-saved={saved}>
            { line }
            <button type="button" data-testid="undo-lever" onclick={onundo}>{ text(lang, Text::Undo) }</button>
        </p>
    }
}

/// What the fit solvers found: the largest micro-batch and the longest sequence; for GRPO / PPO,
/// whose sequence is prompt + completion, the longest completion and the most completions per
/// prompt instead of the sequence.
#[derive(Clone, Copy, PartialEq, Default)]
struct Fits {
    max_batch: u64,
    max_seq: u64,
    rollout: Option<(u64, u64)>,
}

impl Fits {
    fn of(s: &Scenario) -> Fits {
        let (max_batch, max_seq, rollout) = fit::what_fits(s);
        Fits { max_batch, max_seq, rollout }
    }
}

/// The fit solvers' answers (none for a bill the reader worker makes: the solvers would bill
/// on the page), then the speed card.
fn what_fits(lang: Lang, fits: Option<Fits>, speed_card: Html) -> Html {
    let fits_text =
        |n: u64, suffix: &str| if n == 0 { text(lang, Text::NoneFits).to_string() } else { format!("{n}{suffix}") };
    let tokens = if lang == Lang::Zh { " token" } else { " tokens" };
    let row = |label: Text, testid: &'static str, n: u64, suffix: &str| {
        html! {
            <>
                <dt>{ text(lang, label) }</dt>
                <dd data-testid={testid} data-value={n.to_string()}>{ fits_text(n, suffix) }</dd>
            </>
        }
    };
    html! {
        <section class="fits" data-testid="what-fits">
            <h2>{ text(lang, Text::WhatFits) }</h2>
            if let Some(fits) = fits {
                <dl class="totals">
                    { row(Text::MaxBatch, "max-batch", fits.max_batch, "") }
                    if let Some((completion, generations)) = fits.rollout {
                        { row(Text::MaxCompletion, "max-completion", completion, tokens) }
                        { row(Text::MaxGenerations, "max-generations", generations, "") }
                    } else {
                        { row(Text::MaxSeq, "max-seq", fits.max_seq, tokens) }
                    }
                </dl>
            }
            { speed_card }
        </section>
    }
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let state = use_reducer(|| CalcState::from_query(&props.query, props.browser_lang));
    let lang = state.lang;
    let query = state.share_query(props.browser_lang);
    use_page_effects(lang, query.clone(), state.embed);

    let scenario = &state.scenario;
    // A grid's bill (a training grid, a served grid, a device map) or a served model's drafter and
    // LoRA slots come from the reader worker (their code loads on demand): asked whenever the
    // query changes; the last answer is shown until the next.
    let grid = use_state(|| None::<Rc<crate::readers::GridAnswer>>);
    // The worker's last few answers: a lever's "before" is the one for the configuration before it.
    let answers = use_mut_ref(Vec::<Rc<crate::readers::GridAnswer>>::new);
    // The OOM tree's sharding card, open on a training link, shows the grid's levers too: the
    // worker bills them (issue 28).
    let sharding_card = state.tree == Some(crate::tree::NodeId::Sharding) && scenario.mode == Mode::Train;
    let on_demand = scenario.billed_on_demand();
    let grid_query = (on_demand || sharding_card).then(|| crate::query::to_query(scenario, &[]));
    {
        let (grid, answers) = (grid.clone(), answers.clone());
        use_effect_with(grid_query.clone(), move |q| {
            if let Some(q) = q {
                super::reader_worker::ask("grid", q.as_str().into(), move |a| {
                    if let Some(crate::readers::Answer::Grid(g)) = a {
                        let g = Rc::new(*g);
                        let mut kept = answers.borrow_mut();
                        kept.retain(|k| k.query != g.query);
                        kept.push(g.clone());
                        if kept.len() > 4 {
                            kept.remove(0);
                        }
                        grid.set(Some(g));
                    }
                    true
                });
            }
        });
    }
    let local_bill: Rc<Bill> = use_memo(scenario.clone(), estimate);
    let grid_answer = grid_query.as_ref().and((*grid).clone());
    let grid_pending = grid_answer.as_ref().is_none_or(|g| Some(&g.query) != grid_query.as_ref());
    // The tree's cards use the worker's levers: the sharding card's grid levers, a served model's
    // engine figures after each lever.
    let tree_grid_levers =
        grid_answer.clone().filter(|_| (sharding_card || scenario.served_by_engine()) && !grid_pending);
    let bill: Rc<Bill> = grid_answer.as_ref().filter(|_| on_demand).map_or(local_bill, |g| g.bill.clone());
    // A lever's "before": the page's bill, or for one the reader worker makes, its answer then.
    let before: Option<Rc<Bill>> =
        (*use_memo(state.before.clone(), |b| b.as_ref().map(|s| Rc::new(estimate(s))).filter(|b| !b.is_pending())))
            .clone()
            .or_else(|| {
                let q = crate::query::to_query(state.before.as_ref()?, &[]);
                answers.borrow().iter().find(|a| a.query == q).map(|a| a.bill.clone())
            });
    // The embed mode shows no fit solvers; a bill the reader worker makes has them from the worker
    // (a served model's, an RL step's) or none (a grid's).
    let fits = use_memo((scenario.clone(), state.embed || state.selftest || on_demand), |(s, skip)| {
        (!*skip).then(|| Fits::of(s))
    });
    let fits = (*fits).or_else(|| {
        let [max_batch, max_seq, completion, generations] =
            grid_answer.as_ref().filter(|_| !state.embed && !grid_pending)?.fits?;
        Some(Fits { max_batch, max_seq, rollout: scenario.generates().then_some((completion, generations)) })
    });
    // A bill the reader worker made: its planner too.
    let plan = use_memo((scenario.clone(), lang, grid_answer.clone().map(Same)), |(s, lang, grid)| {
        PlannerData::of(s, *lang, grid.as_ref().map(|g| &*g.0))
    });
    let speed_card_html = use_memo(lang, |lang| speed_card(*lang));
    // The paste's diagnosis for the scenario, from the reader worker (the diagnosis and its texts
    // load on demand): asked again when either changes; the last answer stays until the next.
    let diagnosis = use_state(|| None::<Rc<crate::readers::Diagnosis>>);
    {
        let (diagnosis, state) = (diagnosis.clone(), state.clone());
        let asked = state.pasted.as_ref().map(|p| crate::query::to_query(scenario, &[("oom", &p.0.link)]));
        use_effect_with(asked, move |asked| match asked {
            Some(q) => {
                super::reader_worker::ask("diagnose", q.as_str().into(), move |a| {
                    match a {
                        Some(crate::readers::Answer::Diagnosis(d)) => {
                            state.dispatch(Action::Diagnosed(d.node));
                            diagnosis.set(Some(Rc::new(*d)));
                        }
                        Some(crate::readers::Answer::Failed(m)) => state.dispatch(Action::OomRefused(m)),
                        _ => {}
                    }
                    true
                });
            }
            None => diagnosis.set(None),
        });
    }
    let tree_found = (*diagnosis).clone().filter(|_| state.pasted.is_some());
    let tree_diagram = use_memo(lang == Lang::Zh, |zh| crate::tree::diagram(*zh));
    let on_lever = {
        let s = state.clone();
        Callback::from(move |l| s.dispatch(Action::ApplyLever(l)))
    };
    let planner_view = match plan.as_ref() {
        Some(p) => planner(lang, p, on_lever),
        None => html! {},
    };
    let onset = {
        let state = state.clone();
        Callback::from(move |(key, value): (Key, String)| state.dispatch(Action::Set(key, value)))
    };
    let grid_part = (scenario.bills_a_grid() || scenario.rl_on_grid() || scenario.serves_a_grid()).then(|| {
        let levers = grid_answer.as_ref().map(|g| g.levers.clone()).unwrap_or_default();
        let experts = grid_answer.as_ref().and_then(|g| g.experts.as_ref());
        grid_view(lang, state.unit, &bill, &levers, experts, grid_pending, &onset)
    });
    let on_dismiss = {
        let s = state.clone();
        Callback::from(move |_| s.dispatch(Action::DismissNotices))
    };
    let notices = html! {
        { notices(lang, &state.errors, &state.warnings, on_dismiss) }
    };
    let gpus_drawn = if scenario.mode == Mode::Train { scenario.gpus } else { 1 };
    // The embed mode draws one bar, without a "before".
    let drawn = if state.embed { (1, None) } else { (gpus_drawn, before.clone().map(Same)) };
    let chart = use_memo((lang, Same(bill.clone()), drawn), |(lang, bill, (gpus, before))| {
        render_chart(*lang, &bill.0, *gpus, before.as_ref().map(|b| &*b.0))
    });
    // The user's trace, read by the trace worker (never in the link); else a pasted mem_report's
    // one measured moment.
    let trace = use_state(|| None::<Rc<Trace>>);
    // The self-test, from the reader worker (its demonstrations and texts load on demand): asked on
    // the scenario and the question (`q=N`) alone; the last answer stays until the next comes.
    let selftest_answer = use_state(|| None as SelfTestAnswer);
    {
        let answer = selftest_answer.clone();
        let question = state.question.map(|n| n.to_string());
        let ui: Vec<(&str, &str)> = question.iter().map(|q| ("q", q.as_str())).collect();
        let asked = state.selftest.then(|| crate::query::to_query(scenario, &ui));
        use_effect_with(asked, move |asked| {
            if let Some(q) = asked {
                let answered = answer.clone();
                let started = super::reader_worker::ask("selftest", q.as_str().into(), move |a| {
                    answered.set(Some(match a {
                        Some(crate::readers::Answer::SelfTest(items)) => Ok(Rc::new(items)),
                        _ => Err(()),
                    }));
                    true
                });
                if !started {
                    answer.set(Some(Err(())));
                }
            }
        });
    }
    let selftest_charts = use_memo(((*selftest_answer).clone(), lang), |(answer, lang)| match answer {
        Some(Ok(items)) => items.iter().map(|i| self_test_chart(*lang, i)).collect::<Vec<_>>(),
        _ => Vec::new(),
    });
    // The measured box's mem_report.py JSON, read by the reader worker (its reader and texts load
    // on demand): its figures for the table, its one moment for the timeline.
    let report_read =
        use_state(|| None::<Rc<Result<(crate::validation::MemReport, Rc<Trace>), crate::ledger::msg::Msg>>>);
    {
        let report_read = report_read.clone();
        use_effect_with(state.report.clone(), move |text| {
            if text.trim().is_empty() {
                report_read.set(None);
            } else {
                super::reader_worker::ask("report", text.as_ref().into(), move |a| {
                    match a {
                        Some(crate::readers::Answer::Report(r)) => {
                            let (report, moment) = *r;
                            report_read.set(Some(Rc::new(Ok((report, Rc::new(moment))))));
                        }
                        Some(crate::readers::Answer::Failed(m)) => report_read.set(Some(Rc::new(Err(m)))),
                        _ => {}
                    }
                    true
                });
            }
        });
    }
    let pasted_trace = report_read.as_ref().and_then(|r| Result::as_ref(r).ok().map(|(_, moment)| moment.clone()));
    let drawn_trace = (*trace).clone().or(pasted_trace);
    let timeline = use_memo((lang, Same(bill.clone()), drawn_trace.map(Same)), |(lang, bill, trace)| {
        let (chart, peak) = render_timeline(*lang, &bill.0, trace.as_ref().map(|t| &*t.0));
        (Rc::new(chart), peak)
    });
    let (timeline_chart, peak) = (&timeline.0, timeline.1);
    let trace_part = {
        let on_trace = {
            let trace = trace.clone();
            Callback::from(move |t: Option<Rc<Trace>>| trace.set(t))
        };
        let comparison = (*trace).as_ref().map(|t| trace_comparison(lang, state.unit, t, &phases::of(&bill)));
        html! {
            <>
                <TraceDrop lang={lang} {on_trace} />
                { comparison.unwrap_or_default() }
            </>
        }
    };
    let header = |title: Text, tagline: Text| {
        let s = state.clone();
        let on_lang = Callback::from(move |l| s.dispatch(Action::SetLang(l)));
        let s = state.clone();
        let on_unit = Callback::from(move |u| s.dispatch(Action::SetUnit(u)));
        html! {
            <header class="app-header">
                <div>
                    <h1 data-testid="title">{ text(lang, title) }</h1>
                    <p class="tagline">{ text(lang, tagline) }</p>
                </div>
                { switches(lang, state.unit, on_lang, on_unit) }
            </header>
        }
    };

    let base = props.base.clone();
    let with_base = |q: &str| if q.is_empty() { base.clone() } else { format!("{base}?{q}") };
    if state.selftest {
        let page = self_test(lang, &selftest_answer, &selftest_charts, &base, state.embed);
        if state.embed {
            return html! { <div class="app embed" data-testid="embed">{ notices }{ page }</div> };
        }
        let calculator =
            CalcState { selftest: false, question: None, ..(*state).clone() }.share_query(props.browser_lang);
        return html! {
            <div class="app">
                { header(Text::SelfTest, Text::SelfTestIntro) }
                <main>
                    { notices }
                    <p><a href={with_base(&calculator)} data-testid="to-calculator">{ text(lang, Text::ToCalculator) }</a></p>
                    <Controls lang={lang} scenario={scenario.clone()} {onset} compact=true />
                    { page }
                </main>
            </div>
        };
    }
    let full_query = CalcState { embed: false, timeline: false, ..(*state).clone() }.share_query(props.browser_lang);
    if state.timeline {
        // The picture alone, for a chapter page (embedded, it posts its height as the calculator does).
        return html! {
            <div class={classes!("app", state.embed.then_some("embed"))} data-testid="timeline-page">
                { notices }
                <p class="scenario-line" data-testid="scenario">{ crate::i18n::scenario_line(lang, scenario, bill.parameters) }</p>
                { timeline_view(lang, timeline_chart, peak, !state.timeline, true) }
                <p class="open-full"><a href={with_base(&full_query)} data-testid="open-full" target="_blank" rel="noopener">{ text(lang, Text::OpenFull) }</a></p>
            </div>
        };
    }
    if state.embed {
        return html! {
            <div class="app embed" data-testid="embed">
                { notices }
                { verdict_card(lang, state.unit, scenario, &bill, on_demand && grid_pending) }
                { chart_view(lang, &chart, &bill) }
                { planner_view }
                <Controls lang={lang} scenario={scenario.clone()} {onset} compact=true />
                <p class="open-full"><a href={with_base(&full_query)} data-testid="open-full" target="_blank" rel="noopener">{ text(lang, Text::OpenFull) }</a></p>
            </div>
        };
    }
    let embed_src =
        with_base(&if full_query.is_empty() { "embed=1".to_string() } else { format!("{full_query}&embed=1") });
    let on_import = {
        let s = state.clone();
        Callback::from(move |(a, full_mask): (_, bool)| {
            s.dispatch(Action::SetCustomModel(a));
            if full_mask {
                s.dispatch(Action::Set(Key::Mask, "full".into()));
            }
        })
    };
    let on_undo = {
        let s = state.clone();
        Callback::from(move |_| s.dispatch(Action::UndoLever))
    };

    html! {
        <div class="app">
            { header(Text::Title, Text::Tagline) }
            <main>
                { notices }
                <div class="layout">
                    <div class="side">
                        <Controls lang={lang} scenario={scenario.clone()} onset={onset.clone()} />
                        <ModelImport lang={lang} onimport={on_import} />
                    </div>
                    <div class="results">
                        { verdict_card(lang, state.unit, scenario, &bill, on_demand && grid_pending) }
                        { chart_view(lang, &chart, &bill) }
                        if let Some(b) = &before { { what_if(lang, b, &bill, on_undo) } }
                        { grid_part.unwrap_or_default() }
                        { timeline_view(lang, timeline_chart, peak, !state.timeline, !props.above_the_fold) }
                        { planner_view }
                        // Below the first screen: not prerendered (docs/size.md).
                        if !props.above_the_fold { { what_fits(lang, fits, (*speed_card_html).clone()) } }
                    </div>
                </div>
                // What index.html prerenders stops here (`above_the_fold`): the rest comes with the app.
                if !props.above_the_fold {
                    { ledger_table(lang, state.unit, &bill, peak_line(lang, peak)) }
                    { measured_compare(lang, state.unit, &bill, &state.report, report_read.as_ref().map(|r| Result::as_ref(r).map(|(report, _)| report)),
                        { let s = state.clone(); Callback::from(move |t| s.dispatch(Action::SetReport(t))) },
                        { let s = state.clone(); Callback::from(move |q| s.dispatch(Action::LoadQuery(q))) }, trace_part) }
                    { oom_tree(&OomTreeProps {
                        lang, scenario: scenario.clone(), parameters: bill.parameters, selected: state.tree, pasted: state.pasted.clone(),
                        onselect: { let s = state.clone(); Callback::from(move |n| s.dispatch(Action::SelectNode(n))) },
                        onapply: { let s = state.clone(); Callback::from(move |l| s.dispatch(Action::ApplyLever(l))) },
                        onpaste: { let s = state.clone(); Callback::from(move |r| s.dispatch(Action::SetReading(r))) },
                        typed_error: state.typed_error,
                        onerror: { let s = state.clone(); Callback::from(move |e| s.dispatch(Action::TypedError(e))) },
                        onset, found: tree_found, diagram: tree_diagram, grid_levers: tree_grid_levers,
                    }) }
                    { export(lang, state.unit, scenario, &bill, gpus_drawn, (*trace).clone()) }
                    <Share lang={lang} url={with_base(&query)} embed_code={embed::embed_code(&embed_src)} />
                }
            </main>
            if !props.above_the_fold {
                <footer class="app-footer">
                    { text(lang, Text::Footer) }{ " · " }
                    <a href={with_base(&CalcState { selftest: true, ..(*state).clone() }.share_query(props.browser_lang))} data-testid="to-selftest">{ text(lang, Text::SelfTest) }</a>
                </footer>
            }
        </div>
    }
}
