//! Charts as SVG strings: the stacked memory bars against the GPU's capacity with the chapter's
//! 80 % line. Pure: bills in, an SVG string out, so it is tested natively.
//!
//! Written directly rather than with plotters: the chart is rectangles, two lines, ticks and
//! labels, and plotters' drawing and text layout cost 19.5 KB of the 250 KB gzip download (measured
//! with the chart stubbed out: 248.5 → 228.9 KB). Every text that goes into the SVG is escaped here.

mod concurrency;
mod svg;

pub use concurrency::{concurrency_svg, tokens_label, CurveText};
pub use svg::{escape_xml, nice_ticks, Svg};

use crate::ledger::bill::{Bill, ComponentId, MARGIN};
use crate::ledger::msg::Msg;
use crate::ledger::units::fixed;

/// One bar: a label under it and its bill.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar<'a> {
    pub label: String,
    pub bill: &'a Bill,
}

/// Texts the chart needs, in the reader's language.
#[derive(Clone, Debug)]
pub struct ChartText {
    pub axis: String,
    pub capacity: String,
    pub margin_line: String,
    /// The name of a component (for the hover titles).
    pub component: fn(ComponentId) -> String,
    /// A formula in the reader's language (for the hover titles).
    pub formula: fn(&Msg) -> String,
}

/// The colour of a component (`#rrggbb`): the same in the chart, the legend and the table.
pub fn css_color(id: ComponentId) -> &'static str {
    match id {
        ComponentId::Weights => "#3b82f6",
        ComponentId::AdapterWeights => "#06b6d4",
        ComponentId::MasterWeights => "#6366f1",
        ComponentId::Gradients => "#a855f7",
        ComponentId::Optimizer => "#ec4899",
        ComponentId::Activations => "#f59e0b",
        ComponentId::VisionActivations => "#ea580c",
        ComponentId::Logits => "#ef4444",
        ComponentId::KvCache => "#10b981",
        ComponentId::DequantBuffer => "#84cc16",
        ComponentId::GatheredLayer => "#14b8a6",
        ComponentId::ZeroBuckets => "#0d9488",
        ComponentId::OptimizerStep => "#d946ef",
        ComponentId::EvalGraph => "#9f1239",
        ComponentId::KeptTensors => "#7c2d12",
        ComponentId::Fp32Module => "#1e3a8a",
        ComponentId::ZombieProcess => "#374151",
        ComponentId::AllocatorSlack => "#94a3b8",
        ComponentId::CudaContext => "#64748b",
        ComponentId::NonTorch => "#475569",
        ComponentId::CudaGraphs => "#0ea5e9",
    }
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
pub const AXIS_COLOR: &str = "#808088";
const CAPACITY_COLOR: &str = "#dc2626";
const MARGIN_COLOR: &str = "#d97706";

/// The plotting area inside the SVG: left, top, right, bottom in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Area {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

impl Area {
    pub fn new(width: u32, height: u32) -> Area {
        Area { left: 52.0, top: 8.0, right: width as f64 - 8.0, bottom: height as f64 - 28.0 }
    }

    /// The pixel row of `v` on an axis from 0 to `top`.
    pub fn y(&self, v: f64, top: f64) -> f64 {
        self.bottom - crate::ledger::units::within(v / top, 0.0, 1.0) * (self.bottom - self.top)
    }
}

/// A readable upper bound for the axis: a little above the tallest bar or the capacity.
fn axis_top(bars: &[Bar], capacity: f64) -> f64 {
    let tallest = bars.iter().map(|b| b.bill.device_bytes() as f64 / GIB).fold(0.0, f64::max);
    let top = tallest.max(capacity) * 1.08;
    if top.is_finite() && top > 0.0 {
        top
    } else {
        1.0
    }
}

/// The y axis: its line, ticks with labels, light grid lines, and its title.
pub fn y_axis(svg: &mut Svg, area: Area, top: f64, title: &str) {
    for tick in nice_ticks(top, 6) {
        let y = area.y(tick, top);
        svg.line(area.left, y, area.right, y, "rgba(128,128,136,0.2)", 1.0);
        svg.text(area.left - 6.0, y + 4.0, "end", AXIS_COLOR, &fixed(tick, 1));
    }
    svg.line(area.left, area.top, area.left, area.bottom, AXIS_COLOR, 1.0);
    svg.vertical_text(12.0, (area.top + area.bottom) / 2.0, AXIS_COLOR, title);
}

/// The SVG of `bars` stacked against a GPU of `gpu_bytes`; each segment carries a focusable,
/// titled overlay (`rect.segment`) for hover and keyboard.
pub fn stacked_bars_svg(bars: &[Bar], gpu_bytes: u64, text: &ChartText, width: u32, height: u32) -> String {
    let capacity = gpu_bytes as f64 / GIB;
    let top = axis_top(bars, capacity);
    let area = Area::new(width, height);
    let mut svg = Svg::new(width, height);
    y_axis(&mut svg, area, top, &text.axis);
    let slot = (area.right - area.left) / bars.len().max(1) as f64;
    let mut overlay = Svg::fragment();
    for (i, bar) in bars.iter().enumerate() {
        let x0 = area.left + slot * (i as f64 + 0.25);
        let w = slot * 0.5;
        let mut stacked = 0.0;
        for c in bar.bill.components.iter().filter(|c| c.bytes > 0) {
            let (y0, y1) = (area.y(stacked, top), area.y(stacked + c.bytes as f64 / GIB, top));
            stacked += c.bytes as f64 / GIB;
            svg.rect(x0, y1, w, y0 - y1, css_color(c.id));
            let title = format!(
                "{} · {}: {} GiB — {}",
                bar.label,
                (text.component)(c.id),
                fixed(c.bytes as f64 / GIB, 2),
                (text.formula)(&c.formula)
            );
            overlay.segment(c.id.id(), i, (x0, y1, w, (y0 - y1).max(1.0)), &title);
        }
        svg.text(x0 + w / 2.0, area.bottom + 18.0, "middle", AXIS_COLOR, &bar.label);
    }
    svg.line(area.left, area.bottom, area.right, area.bottom, AXIS_COLOR, 1.0);
    for (level, label, color) in [
        (capacity, text.capacity.as_str(), CAPACITY_COLOR),
        (capacity * (1.0 - MARGIN), text.margin_line.as_str(), MARGIN_COLOR),
    ] {
        let y = area.y(level, top);
        svg.line(area.left, y, area.right, y, color, 2.0);
        svg.text(area.left + 4.0, y - 4.0, "start", color, label);
    }
    svg.append(overlay);
    svg.finish()
}
