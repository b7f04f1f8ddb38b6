use std::rc::Rc;

use yew::prelude::*;

use crate::chart::{stacked_bars_svg, Bar, ChartText};
use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::{Bill, ComponentId};
use crate::ledger::msg::Msg;

#[derive(Properties, PartialEq)]
pub struct ChartViewProps {
    pub lang: Lang,
    pub bill: Rc<Bill>,
    /// The bill before the last applied lever (a what-if), drawn beside this one.
    #[prop_or_default]
    pub before: Option<Rc<Bill>>,
    /// Data-parallel GPUs: one bar each (up to 8).
    #[prop_or(1)]
    pub gpus: u64,
}

fn name_zh(id: ComponentId) -> String {
    i18n::component(Lang::Zh, id).to_string()
}

fn name_en(id: ComponentId) -> String {
    i18n::component(Lang::En, id).to_string()
}

fn formula_zh(f: &Msg) -> String {
    render(Lang::Zh, f)
}

fn formula_en(f: &Msg) -> String {
    render(Lang::En, f)
}

/// The chart of a bill: one bar, or one per GPU (up to 8) when data-parallel; with a "before" bar
/// beside it when a what-if is applied.
pub fn render_chart(lang: Lang, bill: &Bill, gpus: u64, before: Option<&Bill>) -> String {
    let mut bars = Vec::new();
    if let Some(b) = before {
        bars.push(Bar { label: text(lang, Text::Before).to_string(), bill: b.clone() });
        bars.push(Bar { label: text(lang, Text::After).to_string(), bill: bill.clone() });
    } else if gpus > 1 {
        for i in 0..gpus.min(8) {
            bars.push(Bar { label: format!("{} {}", text(lang, Text::GpuN), i + 1), bill: bill.clone() });
        }
    } else {
        bars.push(Bar { label: text(lang, Text::ThisConfig).to_string(), bill: bill.clone() });
    }
    let chart_text = ChartText {
        axis: text(lang, Text::ChartAxis).to_string(),
        capacity: format!(
            "{} {} GiB",
            text(lang, Text::Capacity),
            crate::ledger::units::fixed(bill.gpu_bytes as f64 / (1u64 << 30) as f64, 1)
        ),
        margin_line: "80 %".to_string(),
        component: if lang == Lang::Zh { name_zh } else { name_en },
        formula: if lang == Lang::Zh { formula_zh } else { formula_en },
    };
    let width = if bars.len() > 2 { 640 } else { 420 };
    stacked_bars_svg(&bars, bill.gpu_bytes, &chart_text, width, 320)
}

/// The title (size and formula) of the segment an event happened on.
fn segment_title(target: Option<web_sys::EventTarget>) -> Option<String> {
    use wasm_bindgen::JsCast;
    let el: web_sys::Element = target?.dyn_into().ok()?;
    let seg = el.closest("rect.segment").ok()??;
    seg.first_element_child()?.text_content()
}

/// The stacked bars with the capacity and 80 % lines, and a legend in the table's colours. Hovering
/// or focusing (Tab) a segment shows its size and formula below the chart; that detail is this
/// component's own state, so a hover re-renders only the detail line, never the ledger.
#[function_component(ChartView)]
pub fn chart_view(props: &ChartViewProps) -> Html {
    let lang = props.lang;
    let detail = use_state(String::new);
    let svg = use_memo((lang, props.bill.clone(), props.before.clone(), props.gpus), |(lang, bill, before, gpus)| {
        AttrValue::from(render_chart(*lang, bill, *gpus, before.as_deref()))
    });
    let show = {
        let detail = detail.clone();
        move |target: Option<web_sys::EventTarget>| {
            if let Some(t) = segment_title(target) {
                if *detail != t {
                    detail.set(t);
                }
            }
        }
    };
    let onfocusin = {
        let show = show.clone();
        Callback::from(move |e: FocusEvent| show(e.target()))
    };
    let onmouseover = Callback::from(move |e: MouseEvent| show(e.target()));
    html! {
        <section class="chart-card">
            <h2>{ text(lang, Text::Chart) }</h2>
            <div class="chart" data-testid="chart" {onfocusin} {onmouseover}>{ Html::from_html_unchecked((*svg).clone()) }</div>
            <p class="segment-detail" data-testid="segment-detail" aria-live="polite">{ (*detail).clone() }</p>
            <ul class="legend">
                { for props.bill.components.iter().filter(|c| c.bytes > 0).map(|c| html! {
                    <li><span class="swatch" style={format!("background:{}", crate::chart::css_color(c.id))}></span>{ i18n::component(lang, c.id) }</li>
                }) }
            </ul>
        </section>
    }
}
