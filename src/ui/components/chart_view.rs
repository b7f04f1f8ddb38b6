//! A drawn chart on the page: plotters' picture, its hover targets as focusable SVG elements over
//! it, and a detail line for the target under the pointer or the keyboard focus. The hovered target
//! is this component's own state, so a hover re-renders the chart card alone, never the app.

use std::rc::Rc;

use yew::prelude::*;

use crate::chart::{stacked_bars, Bar, Chart, ChartText, Shape, Target};
use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::{Bill, ComponentId};
use crate::ledger::msg::Msg;
use crate::ledger::units::fixed;

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
pub fn render_chart(lang: Lang, bill: &Bill, gpus: u64, before: Option<&Bill>) -> Chart {
    let mut bars = Vec::new();
    if let Some(b) = before {
        bars.push(Bar { label: text(lang, Text::Before).to_string(), bill: b });
        bars.push(Bar { label: text(lang, Text::After).to_string(), bill });
    } else if gpus > 1 {
        for i in 0..gpus.min(8) {
            bars.push(Bar { label: format!("{} {}", text(lang, Text::GpuN), i + 1), bill });
        }
    } else {
        bars.push(Bar { label: text(lang, Text::ThisConfig).to_string(), bill });
    }
    render_bars(lang, &bars, bill.gpu_bytes)
}

/// Labelled bars against a GPU of `gpu_bytes`, with the reader's texts.
pub fn render_bars(lang: Lang, bars: &[Bar], gpu_bytes: u64) -> Chart {
    let chart_text = ChartText {
        axis: text(lang, Text::ChartAxis).to_string(),
        capacity: format!("{} {} GiB", text(lang, Text::Capacity), fixed(gpu_bytes as f64 / (1u64 << 30) as f64, 1)),
        margin_line: "80 %".to_string(),
        component: if lang == Lang::Zh { name_zh } else { name_en },
        formula: if lang == Lang::Zh { formula_zh } else { formula_en },
    };
    let width = if bars.len() > 2 { 640 } else { 420 };
    stacked_bars(bars, gpu_bytes, &chart_text, width, 320)
}

#[derive(Properties, PartialEq)]
pub struct ChartPictureProps {
    pub chart: Rc<Chart>,
    /// `data-testid` of the picture's box and of its detail line.
    pub testid: AttrValue,
    pub detail_testid: AttrValue,
    /// Extra attributes the tests read: the number of curve points (`data-points`).
    #[prop_or_default]
    pub points: Option<usize>,
}

/// One target as an SVG element (Yew escapes its title).
fn target(i: usize, t: &Target, hovered: &UseStateHandle<Option<usize>>) -> Html {
    let onmouseenter = {
        let hovered = hovered.clone();
        Callback::from(move |_: MouseEvent| hovered.set(Some(i)))
    };
    let onfocus = {
        let hovered = hovered.clone();
        Callback::from(move |_: FocusEvent| hovered.set(Some(i)))
    };
    let component = t.component.map(|c| c.id());
    let bar = t.bar.map(|b| b.to_string());
    let title = html! { <title>{ &t.title }</title> };
    match t.shape {
        Shape::Rect { x, y, w, h } => html! {
            <rect class={t.class} tabindex="0" data-component={component} data-bar={bar}
                x={fixed(x, 1)} y={fixed(y, 1)} width={fixed(w, 1)} height={fixed(h, 1)} fill="transparent"
                {onmouseenter} {onfocus}>{ title }</rect>
        },
        Shape::Circle { x, y, r } => html! {
            <circle class={t.class} tabindex="0" cx={fixed(x, 1)} cy={fixed(y, 1)} r={fixed(r, 1)} fill="transparent"
                {onmouseenter} {onfocus}>{ title }</circle>
        },
    }
}

/// The picture with its targets over it, and the line that shows the hovered or focused one.
#[function_component(ChartPicture)]
pub fn chart_picture(props: &ChartPictureProps) -> Html {
    let hovered = use_state(|| None::<usize>);
    let chart = &props.chart;
    let detail = (*hovered).and_then(|i| chart.targets.get(i)).map(|t| t.title.clone()).unwrap_or_default();
    let view_box = format!("0 0 {} {}", chart.width, chart.height);
    html! {
        <>
            <div class="chart" data-testid={props.testid.clone()} data-points={props.points.map(|n| n.to_string())}>
                { chart.svg.to_html() }
                <svg class="chart-targets" viewBox={view_box} preserveAspectRatio="xMinYMin meet">
                    { for chart.targets.iter().enumerate().map(|(i, t)| target(i, t, &hovered)) }
                </svg>
            </div>
            <p class="segment-detail" data-testid={props.detail_testid.clone()} aria-live="polite">{ detail }</p>
        </>
    }
}

/// The stacked bars (`chart`, from [`render_chart`]) with the capacity and 80 % lines, the detail
/// line, and a legend in the table's colours.
pub fn chart_view(lang: Lang, chart: &Rc<Chart>, bill: &Bill) -> Html {
    html! {
        <section class="chart-card">
            <h2>{ text(lang, Text::Chart) }</h2>
            <ChartPicture chart={chart.clone()} testid="chart" detail_testid="segment-detail" />
            <ul class="legend">
                { for bill.components.iter().filter(|c| c.bytes > 0).map(|c| html! {
                    <li><span class="swatch" style={format!("background:{}", crate::chart::css_color(c.id))}></span>{ i18n::component(lang, c.id) }</li>
                }) }
            </ul>
        </section>
    }
}
