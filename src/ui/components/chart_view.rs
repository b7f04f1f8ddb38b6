use yew::prelude::*;

use crate::chart::{stacked_bars_svg, Bar, ChartText};
use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::{Bill, ComponentId};
use crate::ledger::msg::Msg;

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
pub fn render_bars(lang: Lang, bars: &[Bar], gpu_bytes: u64) -> String {
    let chart_text = ChartText {
        axis: text(lang, Text::ChartAxis).to_string(),
        capacity: format!(
            "{} {} GiB",
            text(lang, Text::Capacity),
            crate::ledger::units::fixed(gpu_bytes as f64 / (1u64 << 30) as f64, 1)
        ),
        margin_line: "80 %".to_string(),
        component: if lang == Lang::Zh { name_zh } else { name_en },
        formula: if lang == Lang::Zh { formula_zh } else { formula_en },
    };
    let width = if bars.len() > 2 { 640 } else { 420 };
    stacked_bars_svg(bars, gpu_bytes, &chart_text, width, 320)
}

/// The title (size and formula) of the segment an event happened on.
fn segment_title(target: Option<web_sys::EventTarget>) -> Option<String> {
    use wasm_bindgen::JsCast;
    let el: web_sys::Element = target?.dyn_into().ok()?;
    let seg = el.closest("rect.segment").ok()??;
    seg.first_element_child()?.text_content()
}

/// Shows the title of the segment under the pointer or the focus (Tab) in the chart's detail line,
/// written into the DOM directly (yew renders that line empty and never touches its text), so a
/// hover re-renders nothing.
fn show_detail(target: Option<web_sys::EventTarget>) {
    use wasm_bindgen::JsCast;
    let Some(title) = segment_title(target.clone()) else { return };
    let line = target
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|el| el.closest(".chart-card").ok().flatten())
        .and_then(|card| card.query_selector(".segment-detail").ok().flatten());
    if let Some(line) = line {
        if line.text_content().as_deref() != Some(title.as_str()) {
            line.set_text_content(Some(&title));
        }
    }
}

/// The stacked bars (`svg`, from [`render_chart`]) with the capacity and 80 % lines, a detail line
/// for the hovered or focused segment, and a legend in the table's colours.
pub fn chart_view(lang: Lang, svg: &AttrValue, bill: &Bill) -> Html {
    let onfocusin = Callback::from(|e: FocusEvent| show_detail(e.target()));
    let onmouseover = Callback::from(|e: MouseEvent| show_detail(e.target()));
    html! {
        <section class="chart-card">
            <h2>{ text(lang, Text::Chart) }</h2>
            <div class="chart" data-testid="chart" {onfocusin} {onmouseover}>{ super::markup(svg.clone()) }</div>
            <p class="segment-detail" data-testid="segment-detail" aria-live="polite"></p>
            <ul class="legend">
                { for bill.components.iter().filter(|c| c.bytes > 0).map(|c| html! {
                    <li><span class="swatch" style={format!("background:{}", crate::chart::css_color(c.id))}></span>{ i18n::component(lang, c.id) }</li>
                }) }
            </ul>
        </section>
    }
}
