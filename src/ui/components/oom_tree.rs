//! The OOM decision tree as an interactive diagram wired to the ledger: select a node (pointer or
//! keyboard; arrows walk the edges), read its card, apply its lever to the configuration, or let
//! the tree walk itself from measured numbers.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

use super::code_spans;
use super::grid_view::grid_lever;
use crate::i18n::{self, text, Lang, Text};
use crate::ledger::units::{fixed, format_bytes, trim_float, Unit};
use crate::ledger::Scenario;
use crate::query::Key;
use crate::readers::{Advised, Diagnosis};
use crate::tree::{
    self, children, coordinate, node, parent, Bi, Diagram, Lever, MeasureError, Measured, NodeId, Shape,
};
use crate::ui::state::PastedReading;

/// What the tree shows and the callbacks it calls. `found` (the paste's diagnosis for the
/// scenario) and `diagram` (the laid-out tree in the language) are memoised by the app.
pub struct OomTreeProps {
    pub lang: Lang,
    pub scenario: Scenario,
    /// The model's parameters as the scenario's bill counts them (`Bill::parameters`).
    pub parameters: u64,
    pub selected: Option<NodeId>,
    /// A pasted (or typed) OOM, as read.
    pub pasted: Option<crate::ui::state::Shared>,
    pub onselect: Callback<NodeId>,
    pub onapply: Callback<Lever>,
    pub onpaste: Callback<Option<Box<PastedReading>>>,
    /// (key, value) in the query vocabulary, for the drill's toggles.
    pub onset: Callback<(Key, String)>,
    /// What was wrong with the typed numbers, until the next reading.
    pub typed_error: Option<MeasureError>,
    pub onerror: Callback<MeasureError>,
    /// The paste's diagnosis for the scenario (the reader worker's).
    pub found: Option<std::rc::Rc<Diagnosis>>,
    pub diagram: std::rc::Rc<Diagram>,
    /// Training's grid levers for the sharding card (`tp`, `pp`, `ep`, `cp` doubled, the
    /// distributed optimizer …), as the reader worker billed them: the worst GPU's bytes before, and
    /// each lever with the bytes after it.
    pub grid_levers: Option<std::rc::Rc<crate::readers::GridAnswer>>,
}

/// A served model's engine figures before and after a lever, as the reader worker billed them
/// (the planner's levers; the page bills no served model itself).
fn served_gain(props: &OomTreeProps, l: Lever) -> Option<(crate::ledger::bill::Serving, crate::ledger::bill::Serving)> {
    let g = props.grid_levers.as_ref()?;
    let after = g.planner_levers.iter().find(|(x, _)| *x == l)?;
    Some((g.bill.serving.clone()?, after.1.clone()))
}

fn bi(lang: Lang, b: Bi) -> &'static str {
    if lang == Lang::Zh {
        b.zh
    } else {
        b.en
    }
}

/// The node id under an event's target, if any.
fn node_of(target: Option<web_sys::EventTarget>) -> Option<NodeId> {
    let el: Element = target?.dyn_into().ok()?;
    let g = el.closest("[data-node]").ok()??;
    NodeId::from_id(&g.get_attribute("data-node")?)
}

fn focus_node(id: NodeId) {
    let sel = format!("[data-testid=oom-tree] [data-node=\"{}\"]", id.id());
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(&sel).ok().flatten()) {
        if let Ok(el) = el.dyn_into::<web_sys::SvgElement>() {
            let _ = el.focus();
        }
    }
}

/// The tree: a view of its props (no state of its own; the selection is the app's).
pub fn oom_tree(props: &OomTreeProps) -> Html {
    let lang = props.lang;
    let (found, diagram) = (&props.found, &props.diagram);
    let path: Vec<NodeId> = found.as_ref().map(|p| p.path.clone()).unwrap_or_default();

    let onclick = {
        let cb = props.onselect.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(n) = node_of(e.target()) {
                cb.emit(n);
            }
        })
    };
    let onkeydown = {
        let cb = props.onselect.clone();
        Callback::from(move |e: KeyboardEvent| {
            let Some(n) = node_of(e.target()) else { return };
            let kids: Vec<NodeId> = children(n).map(|e| e.to).collect();
            let siblings: Vec<NodeId> = parent(n).map(|p| children(p).map(|e| e.to).collect()).unwrap_or_default();
            let pos = siblings.iter().position(|&s| s == n).unwrap_or(0);
            let target = match e.key().as_str() {
                "Enter" | " " => Some(n),
                "ArrowDown" => kids.last().copied().filter(|_| kids.len() == 1).or(kids.first().copied()),
                "ArrowUp" => parent(n),
                "ArrowRight" => siblings.get(pos + 1).copied(),
                "ArrowLeft" => pos.checked_sub(1).and_then(|i| siblings.get(i).copied()),
                _ => None,
            };
            if let Some(t) = target {
                e.prevent_default();
                cb.emit(t);
                focus_node(t);
            }
        })
    };

    let card = props.selected.map(|id| {
        let n = node(id);
        let levers = tree::levers(id);
        let snippet = |c: &tree::data::Snippet| {
            let code = c.code;
            html! {
                <figure class="snippet">
                    <figcaption>
                        { bi(lang, c.caption) }{ " " }
                        <button type="button" class="link-button copy-snippet" data-testid="copy-snippet"
                            onclick={move |_: MouseEvent| super::share::copy(code)}>{ text(lang, Text::CopySnippet) }</button>
                    </figcaption>
                    <pre><code>{ code }</code></pre>
                </figure>
            }
        };
        let card_text = html! {
            <>
                <h3>{ bi(lang, n.label).replace('\n', " ") }</h3>
                <dl>
                    <dt>{ text(lang, Text::TreeWhat) }</dt><dd>{ code_spans(bi(lang, n.card.what)) }</dd>
                    <dt>{ text(lang, Text::TreeWhy) }</dt><dd>{ code_spans(bi(lang, n.card.why)) }</dd>
                    if !n.card.check.is_empty() {
                        <dt>{ text(lang, Text::TreeCheck) }</dt>
                        <dd>{ for n.card.check.iter().map(snippet) }</dd>
                    }
                    <dt>{ text(lang, Text::TreeCost) }</dt><dd>{ code_spans(bi(lang, n.card.cost)) }</dd>
                </dl>
            </>
        };
        // The sharding card's grid levers (issue 28): bytes before → after, from the worker.
        let grid = props.grid_levers.as_ref().filter(|_| id == NodeId::Sharding && !props.scenario.served_by_engine()).map(|g| {
            let gib = |b: u64| format_bytes(b, Unit::GiB);
            // A data-parallel link's levers start from the grid of all its GPUs data parallel.
            let onset = props.onset.clone();
            let base = g.base;
            let apply = Callback::from(move |set: (Key, String)| {
                if let Some(dp) = base {
                    onset.emit((Key::Dp, dp.to_string()));
                }
                onset.emit(set);
            });
            let before = g.bill.device_bytes();
            html! {
                <>
                    <p class="tree-hint">{ text(lang, Text::GridLevers) }</p>
                    <ul class="grid-levers" data-testid="tree-grid-levers">
                        { for g.levers.iter().map(|(k, v, after)| grid_lever(k, v, *after, format!(" {} → {}", gib(before), gib(*after)), apply.clone())) }
                    </ul>
                </>
            }
        });
        html! {
            <div class="tree-card" data-testid="tree-card" data-node={id.id()}>
                { card_text }
                { grid.unwrap_or_default() }
                if !levers.is_empty() {
                    <div class="levers">
                        { for levers.iter().map(|&l| {
                            let label = bi(lang, l.label());
                            let gain = match (served_gain(props, l), tree::saving(&props.scenario, l)) {
                                (Some((b, a)), _) => format!("{}× → {}×", fixed(b.max_concurrency, 2), fixed(a.max_concurrency, 2)),
                                (None, Some(saved)) => format!("{}{} GiB", if saved >= 0 { "−" } else { "+" }, fixed(tree::gib(saved.abs()), 2)),
                                (None, None) => return html! {
                                    <p class="lever-na">{ format!("{label}: {}", text(lang, Text::LeverNa)) }</p>
                                },
                            };
                            let cb = props.onapply.clone();
                            html! {
                                <button type="button" class="lever" data-testid={format!("lever-{}", l.id())}
                                    onclick={move |_| cb.emit(l)}>
                                    { format!("{} — {}: {gain}", text(lang, Text::ApplyLever), label) }
                                </button>
                            }
                        }) }
                    </div>
                }
            </div>
        }
    });

    html! {
        <section class="oom-tree" aria-label={text(lang, Text::TreeTitle)}>
            <h2>{ text(lang, Text::TreeTitle) }</h2>
            <p class="tree-hint">{ text(lang, Text::TreeHint) }</p>
            <div class="tree-layout">
                <div class="tree-diagram" data-testid="oom-tree" {onclick} {onkeydown}>
                    { tree_diagram(diagram, props.selected, &path) }
                </div>
                <div class="tree-side">
                    { card.unwrap_or_default() }
                    { paste_form(props) }
                    { found.as_ref().filter(|_| props.pasted.is_some()).map(|p| paste_result(lang, p, (&props.scenario, props.parameters), props.onapply.clone(), props.onpaste.clone())).unwrap_or_default() }
                    { drill_panel(DrillProps { lang, scenario: props.scenario.clone(), onset: props.onset.clone(), onselect: props.onselect.clone() }) }
                </div>
            </div>
        </section>
    }
}

/// The diagram as SVG elements. Each node is keyed by its id, so Yew keeps the same element between
/// renders and the keyboard focus stays where it was.
fn tree_diagram(d: &Diagram, selected: Option<NodeId>, path: &[NodeId]) -> Html {
    let (w, h) = (fixed(d.width, 0), fixed(d.height, 0));
    let on_path = |from: NodeId, to: NodeId| path.windows(2).any(|p| p[0] == from && p[1] == to);
    html! {
        <svg xmlns="http://www.w3.org/2000/svg" class="tree-svg" viewBox={format!("0 0 {w} {h}")} width={w.clone()} height={h} role="group">
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
                </marker>
            </defs>
            { for d.edges.iter().map(|e| html! {
                <g key={format!("{}-{}", e.from.id(), e.to.id())}>
                    <path class={classes!("edge", on_path(e.from, e.to).then_some("on-path"))} data-from={e.from.id()} data-to={e.to.id()}
                        d={e.path.clone()} marker-end="url(#arrow)" />
                    if let Some((text, x, y, anchor)) = &e.label {
                        <text class="edge-label" x={coordinate(*x)} y={coordinate(*y)} text-anchor={*anchor}>{ text }</text>
                    }
                </g>
            }) }
            { for d.nodes.iter().map(|n| {
                let shape = match n.shape {
                    Shape::Start => "start",
                    Shape::Step => "step",
                    Shape::Decision => "decision",
                };
                let class = classes!("node", shape, (selected == Some(n.id)).then_some("selected"), path.contains(&n.id).then_some("on-path"));
                let x = coordinate(n.text_x);
                html! {
                    <g key={n.id.id()} class={class} data-node={n.id.id()} tabindex="0" role="button"
                        aria-pressed={(selected == Some(n.id)).to_string()} aria-label={n.aria.clone()}>
                        <rect x={coordinate(n.x)} y={coordinate(n.y)} width={fixed(d.node_width, 0)} height={fixed(d.node_height, 0)} rx={fixed(n.rx, 0)} />
                        <text x={x.clone()} y={coordinate(n.text_y)} text-anchor="middle">
                            { for n.lines.iter().enumerate().map(|(i, l)| html! {
                                <tspan x={x.clone()} dy={if i == 0 { "0" } else { "15" }} class={if l.main { "l1" } else { "l2" }}>{ &l.text }</tspan>
                            }) }
                        </text>
                    </g>
                }
            }) }
        </svg>
    }
}

/// The end of the paste box's text: at most a mebi-unit of UTF-16, sliced in JavaScript, so that a
/// paste of any size crosses into wasm bounded (the reader keeps the last 1 MiB of that).
fn pasted_text() -> (String, bool) {
    use js_sys::JsString;
    let el = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("oom-paste"));
    let value =
        el.and_then(|el| js_sys::Reflect::get(&el, &"value".into()).ok()).and_then(|v| v.dyn_into::<JsString>().ok());
    let Some(v) = value else { return (String::new(), false) };
    let len = v.length();
    let cut = 1 << 20;
    (String::from(if len > cut { v.slice(len - cut, len) } else { v }), len > cut)
}

/// Reads the paste box in the reader worker: the answer before goes meanwhile (an empty box leaves
/// none).
fn read_paste_box(cb: &Callback<Option<Box<PastedReading>>>) {
    let (text, cut) = pasted_text();
    cb.emit(None);
    if !text.trim().is_empty() {
        read_in_worker(if cut { "paste-end" } else { "paste" }, text, cb.clone());
    }
}

/// Asks the reader worker to read `payload` (`kind`: "paste", "paste-end" or "typed") and sends
/// the reading with its `oom=` value to `cb`.
fn read_in_worker(kind: &'static str, payload: String, cb: Callback<Option<Box<PastedReading>>>) {
    crate::ui::reader_worker::ask(kind, payload.into(), move |answer| {
        if let Some(crate::readers::Answer::Paste(link)) = answer {
            cb.emit(Some(Box::new(PastedReading { link })));
        }
        true
    });
}

/// One paste box for whatever the user has (read, never rendered or run), and the four numbers a
/// student measured for typed values. Both go to the tree as a reading.
fn paste_form(props: &OomTreeProps) -> Html {
    let lang = props.lang;
    let error = props.typed_error;
    let onsubmit = {
        let cb = props.onpaste.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            // Read in the reader worker (`crate::readers::paste`), which sends the reading back.
            read_paste_box(&cb);
        })
    };
    let ontyped = {
        let cb = props.onpaste.clone();
        let scenario = props.scenario.clone();
        let onerror = props.onerror.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let read = |id: &str| -> f64 {
                web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.get_element_by_id(id))
                    .and_then(|el| el.dyn_into::<HtmlInputElement>().ok())
                    .and_then(|i| crate::ledger::units::parse_decimal(i.value().trim()))
                    .unwrap_or(f64::NAN)
            };
            let m = Measured {
                allocated: read("m-allocated"),
                reserved: read("m-reserved"),
                device_used: read("m-device"),
                total: read("m-total"),
            };
            // Checked here (its message is the form's); read in the worker like a paste.
            match tree::check_measured(&m) {
                Ok(()) => {
                    let numbers = [m.allocated, m.reserved, m.device_used, m.total, scenario.overhead_mib];
                    let numbers: Vec<String> = numbers.iter().map(|&x| trim_float(x)).collect();
                    read_in_worker("typed", numbers.join(","), cb.clone());
                }
                Err(e) => {
                    cb.emit(None);
                    onerror.emit(e);
                }
            }
        })
    };
    let field = |id: &'static str, label: Text, value: String| {
        html! {
            <label class="field" for={id}>
                <span class="field-label">{ text(lang, label) }</span>
                <input id={id} data-testid={id} type="number" step="any" min="0" inputmode="decimal" value={value} />
            </label>
        }
    };
    let total_default = fixed(props.scenario.gpu.bytes as f64 / (1u64 << 30) as f64, 2);
    html! {
        <div class="diagnose">
            <form data-testid="paste-form" {onsubmit}>
                <h3><label for="oom-paste">{ text(lang, Text::PasteTitle) }</label></h3>
                <p class="tree-hint">{ text(lang, Text::PasteHint) }</p>
                <textarea id="oom-paste" data-testid="oom-paste" rows="5" spellcheck="false" autocomplete="off"
                    placeholder="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate …" />
                <button type="submit" data-testid="paste-run">{ text(lang, Text::PasteRun) }</button>
            </form>
            <details data-testid="typed-numbers">
                <summary>{ text(lang, Text::TypedNumbers) }</summary>
                <form data-testid="diagnose" onsubmit={ontyped}>
                    <p class="tree-hint">{ text(lang, Text::DiagnoseTitle) }</p>
                    <div class="diagnose-grid">
                        { field("m-allocated", Text::MeasuredAllocated, String::new()) }
                        { field("m-reserved", Text::MeasuredReserved, String::new()) }
                        { field("m-device", Text::MeasuredDevice, String::new()) }
                        { field("m-total", Text::MeasuredTotal, total_default) }
                    </div>
                    <button type="submit" data-testid="diagnose-run">{ text(lang, Text::DiagnoseRun) }</button>
                    if let Some(e) = error {
                        <p class="notice-error" role="alert" data-testid="diagnose-error">{ text(lang, match e {
                            MeasureError::NotNumbers => Text::ErrNotNumbers,
                            MeasureError::NoTotal => Text::ErrNoTotal,
                            MeasureError::ReservedBelowAllocated => Text::ErrReserved,
                        }) }</p>
                    }
                </form>
            </details>
        </div>
    }
}

/// The diagnosis of a paste: the cause and its node, why (the numbers and the rule), the numbers
/// read, and what to do — the levers ranked for the configuration, each one click away.
/// The tree's questions when the cause is open: a click appends its answer to the paste, as a line
/// `#answer key=value` the reader reads, and reads the paste again.
fn questions(lang: Lang, p: &Diagnosis, onpaste: Callback<Option<Box<PastedReading>>>) -> Html {
    let said = |t: &(String, String)| code_spans(if lang == Lang::Zh { &t.1 } else { &t.0 });
    html! {
        <div class="questions" data-testid="questions">
            { for p.questions.iter().map(|q| html! {
                <p data-question={q.key.clone()}>
                    { said(&q.text) }{ " " }
                    { for q.answers.iter().map(|(value, t)| {
                        let line = format!("\n#answer {}={value}", q.key);
                        let onpaste = onpaste.clone();
                        html! {
                            <button type="button" class="link-button" data-testid={format!("answer-{}-{value}", q.key)}
                                onclick={move |_| {
                                    let Some(box_) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("oom-paste"))
                                        .and_then(|el| el.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) else { return };
                                    box_.set_value(&format!("{}{line}", box_.value()));
                                    read_paste_box(&onpaste);
                                }}>{ said(t) }</button>
                        }
                    }) }
                </p>
            }) }
        </div>
    }
}

fn paste_result(
    lang: Lang,
    p: &Diagnosis,
    (s, parameters): (&Scenario, u64),
    onapply: Callback<Lever>,
    onpaste: Callback<Option<Box<PastedReading>>>,
) -> Html {
    let ranked = p.advice.iter().any(|a| !matches!(a, Advised::Do(..)));
    let hints = [(p.gb_as_gib, Text::GbAsGib), (p.truncated, Text::PasteTruncated)];
    let said = |en: &str, zh: &str| code_spans(if lang == Lang::Zh { zh } else { en });
    let head = html! {
        <>
            <p class="diagnosis" data-testid="diagnosis"><strong>{ if lang == Lang::Zh { &p.cause_label.1 } else { &p.cause_label.0 } }</strong>{ " → " }{ bi(lang, node(p.node).label).replace('\n', " ") }</p>
            <p data-testid="paste-why">{ said(&p.why.0, &p.why.1) }</p>
            <dl class="totals paste-numbers" data-testid="paste-numbers">
                { for p.figures.iter().map(|(en, zh, v)| html! { <><dt>{ if lang == Lang::Zh { zh } else { en } }</dt><dd>{ v }</dd></> }) }
            </dl>
            { for hints.into_iter().filter(|(on, _)| *on).map(|(_, t)| html! { <p class="tree-hint">{ text(lang, t) }</p> }) }
        </>
    };
    html! {
        <div class="paste-result" data-testid="paste-result" data-diagnosis={p.cause.id()} data-node={p.node.id()} role="status">
            { head }
            <ul class="paste-advice" data-testid="paste-advice">
                { for p.advice.iter().enumerate().map(|(i, a)| match (a, &p.apply) {
                    // A start-up log's first line lists the settings applied: a link to that configuration.
                    (Advised::Do(en, zh), Some(q)) if i == 0 => html! {
                        <li><a data-testid="startup-apply" href={format!("?{q}&lang={}", lang.id())}>{ said(en, zh) }</a></li>
                    },
                    (Advised::Do(en, zh), _) => html! { <li>{ said(en, zh) }</li> },
                    (Advised::Saves(lever, bytes), _) => lever_button(lang, *lever, format!("−{} GiB", fixed(tree::gib(*bytes), 2)), onapply.clone()),
                    (Advised::Serves(lever, concurrency, max_context), _) => lever_button(lang, *lever,
                        format!("{}×, {}: {max_context}", fixed(*concurrency, 2), text(lang, Text::ServingLongest)), onapply.clone()),
                }) }
            </ul>
            if ranked { <p class="tree-hint">{ format!("{}: {}", text(lang, Text::ForYourConfig), i18n::scenario_line(lang, s, parameters)) }</p> }
            if !p.questions.is_empty() { { questions(lang, p, onpaste) } }
        </div>
    }
}

fn lever_button(lang: Lang, l: Lever, gain: String, onapply: Callback<Lever>) -> Html {
    html! {
        <li>
            <button type="button" class="lever" data-testid={format!("paste-lever-{}", l.id())} onclick={move |_| onapply.emit(l)}>
                { format!("{} — {}: {gain}", text(lang, Text::ApplyLever), bi(lang, l.label())) }
            </button>
        </li>
    }
}

struct DrillProps {
    lang: Lang,
    scenario: Scenario,
    onset: Callback<(Key, String)>,
    onselect: Callback<NodeId>,
}

/// The five-OOM drill (homework 2): each toggle injects one classic mistake into the ledger, and
/// links to the tree node that finds it.
fn drill_panel(props: DrillProps) -> Html {
    use crate::ledger::fit;
    use crate::ledger::scenario::{Drill, Mode};
    let lang = props.lang;
    let s = &props.scenario;
    let drill = s.drill;
    let first_oom = fit::first_oom_batch(s);
    let at_max = first_oom.is_some_and(|b| s.batch >= b);
    let toggle = |id: &'static str, on: bool, label: Text, node_id: NodeId, applies: bool| {
        let onset = props.onset.clone();
        let onselect = props.onselect.clone();
        let onchange = Callback::from(move |e: Event| {
            let checked = e.target_unchecked_into::<HtmlInputElement>().checked();
            let mut d: Drill = drill;
            match id {
                "no_grad" => d.no_grad = checked,
                "tensor_list" => d.tensor_list = checked,
                "fp32_module" => d.fp32_module = checked,
                "zombie" => d.zombie = checked,
                _ => {}
            }
            onset.emit((Key::Drill, d.to_id_list()));
        });
        let node_label = bi(lang, node(node_id).label).replace('\n', " ");
        html! {
            <li>
                <label class="field checkbox" for={format!("drill-{id}")}>
                    <input type="checkbox" id={format!("drill-{id}")} data-testid={format!("drill-{id}")} checked={on} disabled={!applies} {onchange} />
                    <span>{ text(lang, label) }</span>
                </label>
                <button type="button" class="link-button" onclick={move |_| onselect.emit(node_id)}>{ format!("→ {node_label}") }</button>
            </li>
        }
    };
    let batch_toggle = {
        let onset = props.onset.clone();
        let onselect = props.onselect.clone();
        let onchange = Callback::from(move |e: Event| {
            let checked = e.target_unchecked_into::<HtmlInputElement>().checked();
            let b = if checked { first_oom.unwrap_or(1) } else { 1 };
            onset.emit((Key::Batch, b.to_string()));
        });
        html! {
            <li>
                <label class="field checkbox" for="drill-max_batch">
                    <input type="checkbox" id="drill-max_batch" data-testid="drill-max_batch" checked={at_max} disabled={first_oom.is_none()} {onchange} />
                    <span>{ format!("{}{}", text(lang, Text::DrillMaxBatch), first_oom.map(|b| format!(" ({b})")).unwrap_or_default()) }</span>
                </label>
                <button type="button" class="link-button" onclick={move |_| onselect.emit(NodeId::Batch)}>
                    { format!("→ {}", bi(lang, node(NodeId::Batch).label)) }
                </button>
            </li>
        }
    };
    let train = s.mode == Mode::Train;
    html! {
        <div class="drill" data-testid="drill">
            <h3>{ text(lang, Text::DrillTitle) }</h3>
            <ul>
                { toggle("no_grad", drill.no_grad, Text::DrillNoGrad, NodeId::DtypeNoGrad, train) }
                { toggle("tensor_list", drill.tensor_list, Text::DrillTensorList, NodeId::DtypeNoGrad, train) }
                { batch_toggle }
                { toggle("fp32_module", drill.fp32_module, Text::DrillFp32, NodeId::DtypeNoGrad, true) }
                { toggle("zombie", drill.zombie, Text::DrillZombie, NodeId::Zombie, true) }
            </ul>
        </div>
    }
}
