use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::chart_view::render_chart;
use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::Bill;
use crate::ledger::units::Unit;
use crate::ledger::Scenario;
use crate::validation::trace::Trace;

/// Saves `svg` as a file through a `data:` URL on a temporary link.
fn download_svg(svg: &str) -> Option<()> {
    let document = web_sys::window()?.document()?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").ok()?.dyn_into().ok()?;
    let encoded = String::from(js_sys::encode_uri_component(svg));
    a.set_href(&format!("data:image/svg+xml;charset=utf-8,{encoded}"));
    a.set_download("vram-ledger.svg");
    a.click();
    Some(())
}

/// The ledger as a Markdown table (for a project proposal's compute section).
fn markdown(lang: Lang, unit: Unit, s: &Scenario, bill: &Bill) -> String {
    let headers =
        [text(lang, Text::Component), text(lang, Text::Size), text(lang, Text::Share), text(lang, Text::Formula)];
    crate::report::bill_markdown(
        &i18n::scenario_line(lang, s, bill.parameters),
        bill,
        unit,
        |id| i18n::component(lang, id).to_string(),
        |f| render(lang, f),
        headers,
        text(lang, Text::Total),
    )
}

/// Copy the ledger as Markdown and download the chart as SVG; both are made when clicked.
/// `trace`: the user's trace, drawn over the exported timeline as on the page.
pub fn export(
    lang: Lang,
    unit: Unit,
    scenario: &Scenario,
    bill: &Rc<Bill>,
    gpus: u64,
    trace: Option<Rc<Trace>>,
) -> Html {
    let on_copy = {
        let (s, bill) = (scenario.clone(), bill.clone());
        Callback::from(move |_| super::share::copy(&markdown(lang, unit, &s, &bill)))
    };
    let on_svg = {
        let bill = bill.clone();
        Callback::from(move |_| {
            let _ = download_svg(render_chart(lang, &bill, gpus, None).standalone_svg().as_str());
        })
    };
    let on_timeline = {
        let bill = bill.clone();
        Callback::from(move |_| {
            let _ = download_svg(super::render_timeline(lang, &bill, trace.as_deref()).0.standalone_svg().as_str());
        })
    };
    html! {
        <div class="export">
            <button type="button" data-testid="copy-markdown" onclick={on_copy}>{ text(lang, Text::CopyMarkdown) }</button>
            <button type="button" data-testid="download-svg" onclick={on_svg}>{ text(lang, Text::DownloadSvg) }</button>
            <button type="button" data-testid="download-timeline-svg" onclick={on_timeline}>{ text(lang, Text::DownloadTimelineSvg) }</button>
        </div>
    }
}
