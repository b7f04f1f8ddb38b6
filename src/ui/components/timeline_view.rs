//! The step's memory over its phases, under the bars: what is live at each moment, the peak marked.

use std::rc::Rc;

use yew::prelude::*;

use super::chart_view::ChartPicture;
use crate::chart::{timeline, Chart, Measured, TimelineText};
use crate::i18n::{self, text, Lang, Text};
use crate::ledger::bill::{Bill, ComponentId};
use crate::ledger::phases::{self, PhaseName};
use crate::ledger::units::fixed;
use crate::validation::trace::{compare, Trace};

fn name_zh(id: ComponentId) -> String {
    i18n::component(Lang::Zh, id).to_string()
}

fn name_en(id: ComponentId) -> String {
    i18n::component(Lang::En, id).to_string()
}

/// The timeline of `bill` in the reader's language (with the user's trace over it when there is
/// one), and the name of its peak phase.
pub fn render_timeline(lang: Lang, bill: &Bill, trace: Option<&Trace>) -> (Chart, Option<PhaseName>) {
    let phases = phases::of(bill);
    let peak = phases::peak(&phases).map(|p| p.name);
    let peak_index = phases.iter().position(|p| Some(p.name) == peak);
    let chart_text = TimelineText {
        axis: text(lang, Text::ChartAxis).to_string(),
        capacity: format!(
            "{} {} GiB",
            text(lang, Text::Capacity),
            fixed(bill.gpu_bytes as f64 / (1u64 << 30) as f64, 1)
        ),
        margin_line: "80 %".to_string(),
        phases: phases.iter().map(|p| i18n::phase(lang, p.name).to_string()).collect(),
        peak: peak.map(|p| format!("{} {}", text(lang, Text::PeakPhase), i18n::phase(lang, p))).unwrap_or_default(),
        component: if lang == Lang::Zh { name_zh } else { name_en },
        total: text(lang, Text::PhaseTotal).to_string(),
    };
    let measured = trace.zip(peak_index).map(|(t, i)| Measured {
        points: t.curve.iter().map(|s| (compare::axis_position(s, t, i, phases.len()), s.allocated)).collect(),
        label: text(lang, Text::TraceMeasured).to_string(),
    });
    (timeline(&phases, peak_index, bill.gpu_bytes, measured.as_ref(), &chart_text, (640, 300)), peak)
}

/// The timeline section; `trace_link`: a link to the measured panel, where a trace is read.
/// `drawn`: false in the build's prerendered page, which keeps the picture's place (it is below the
/// first screen, and its SVG in both languages was 6 KB of index.html's gzip) for the app to fill.
pub fn timeline_view(lang: Lang, chart: &Rc<Chart>, peak: Option<PhaseName>, trace_link: bool, drawn: bool) -> Html {
    html! {
        <section class="chart-card timeline" data-testid="timeline-card" data-peak={peak.map(|p| p.id())}>
            <h2>{ text(lang, Text::TimelineTitle) }</h2>
            <p class="hint">{ text(lang, Text::TimelineHint) }</p>
            if drawn {
                <ChartPicture chart={chart.clone()} testid="timeline" detail_testid="timeline-detail" />
            } else {
                <div class="chart timeline-later" data-testid="timeline-later"></div>
                <p class="segment-detail"></p>
            }
            if trace_link {
                <p class="hint"><a href="#measured" data-testid="trace-link" onclick={open_measured()}>{ text(lang, Text::TraceSummary) }</a></p>
            }
        </section>
    }
}

/// Opens the measured panel the link scrolls to.
fn open_measured() -> Callback<MouseEvent> {
    Callback::from(|_| {
        #[cfg(target_arch = "wasm32")]
        {
            use wasm_bindgen::JsCast;
            let details = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("measured"))
                .and_then(|e| e.dyn_into::<web_sys::HtmlDetailsElement>().ok());
            if let Some(d) = details {
                d.set_open(true);
            }
        }
    })
}

/// "The peak is at backward's start": which phase the bill's totals are.
pub fn peak_line(lang: Lang, peak: Option<PhaseName>) -> Html {
    match peak {
        Some(p) => html! {
            <p class="peak-phase" data-testid="peak-phase" data-phase={p.id()}>
                { format!("{} {}", text(lang, Text::PeakPhase), i18n::phase(lang, p)) }
            </p>
        },
        None => html! {},
    }
}
