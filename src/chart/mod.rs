//! Charts, drawn with plotters' SVG backend: the stacked memory bars against the GPU's capacity
//! with the chapter's 80 % line ([`stacked_bars`]), the serving planner's requests-at-once
//! curve ([`concurrency`]) and the step's memory over its phases ([`timeline`]). Each is a function from data to a [`Chart`]: the picture as
//! [`Markup`] (plotters escapes every text it writes) and its hover targets as data — a rectangle
//! or a point in the picture's pixels with the text it shows — which the page draws as focusable
//! elements over the picture. Pure, so it is tested natively and the page's server-side render
//! draws exactly what the wasm draws.
//!
//! Text sizes are never measured (no font feature): every label is placed by its anchor, so the
//! browser lays out the text and the SVG is the same natively and in wasm.

mod bars;
mod concurrency;
mod timeline;

pub use bars::{stacked_bars, Bar, ChartText};
pub use concurrency::{concurrency, tokens_label, CurveText};
pub use timeline::{timeline, Measured, TimelineText};

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::Ranged;
use plotters::prelude::DrawingBackend;
use plotters::style::{Color, FontDesc, FontFamily, FontStyle, RGBColor, TRANSPARENT};

use crate::ledger::bill::ComponentId;
use crate::markup::Markup;

/// A drawn chart: the picture and what hover and keyboard focus find on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub svg: Markup,
    pub width: u32,
    pub height: u32,
    pub targets: Vec<Target>,
}

impl Chart {
    /// The chart as a file of its own: the picture with each target as a transparent titled shape
    /// over it, so that the saved SVG shows a segment's size and formula on hover as the page does.
    pub fn standalone_svg(&self) -> Markup {
        let picture = self.svg.as_str();
        let Some(end) = picture.rfind("</svg>") else { return self.svg.clone() };
        let mut out = self.svg.clone();
        out.truncate_to(end);
        for t in &self.targets {
            let (element, attributes) = match t.shape {
                Shape::Rect { x, y, w, h } => ("<rect", [("x", x), ("y", y), ("width", w), ("height", h)].to_vec()),
                Shape::Circle { x, y, r } => ("<circle", [("cx", x), ("cy", y), ("r", r)].to_vec()),
            };
            out.push_raw(element);
            out.push_raw(r#" fill="transparent""#);
            for (name, value) in attributes {
                out.push_number_attribute(name, value);
            }
            if let Some(c) = t.component {
                out.push_raw(r#" data-component=""#);
                out.push_raw(c.id());
                out.push_raw(r#"""#);
            }
            out.push_raw("><title>");
            out.push_text(&t.title);
            out.push_raw(if matches!(t.shape, Shape::Rect { .. }) { "</title></rect>" } else { "</title></circle>" });
        }
        out.push_raw("</svg>\n");
        out
    }

    /// A chart that could not be drawn (plotters reported an error): an empty picture of the size.
    fn blank(width: u32, height: u32) -> Chart {
        Chart { svg: Markup::new(), width, height, targets: Vec::new() }
    }
}

/// Where a target sits, in the SVG's pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Rect { x: f64, y: f64, w: f64, h: f64 },
    Circle { x: f64, y: f64, r: f64 },
}

/// Something on the chart that hover or Tab finds: a bar's segment or the planner's point.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub shape: Shape,
    /// Its CSS class (`segment`, `you fits`, `you queues`): what the tests and the style sheet name.
    pub class: &'static str,
    /// The component of a bar's segment (`data-component`).
    pub component: Option<ComponentId>,
    /// The bar it belongs to (`data-bar`).
    pub bar: Option<usize>,
    /// What it says: its size and formula, or the planner's point.
    pub title: String,
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
        ComponentId::RolloutWeights => "#1d4ed8",
        ComponentId::RolloutKvCache => "#059669",
        ComponentId::ReferenceModel => "#7dd3fc",
        ComponentId::Critic => "#be185d",
        ComponentId::RewardModel => "#a16207",
        ComponentId::DraftModel => "#0e7490",
        ComponentId::RolloutWorkspace => "#0369a1",
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

/// `#rrggbb` as plotters' colour (black for anything else).
fn rgb(hex: &str) -> RGBColor {
    let channel = |i: usize| hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(0);
    RGBColor(channel(1), channel(3), channel(5))
}

/// Axes, ticks and their labels: a grey readable on light and dark backgrounds (the style sheet
/// gives the text the page's own colour).
const AXIS: RGBColor = RGBColor(0x80, 0x80, 0x88);
/// The grid: the axis colour, faint.
const GRID_ALPHA: f64 = 0.2;
const CAPACITY: RGBColor = RGBColor(0xdc, 0x26, 0x26);
const MARGIN: RGBColor = RGBColor(0xd9, 0x77, 0x06);
const FITS: RGBColor = RGBColor(0x16, 0xa3, 0x4a);

/// The charts' font at `px` pixels (plotters' SVG backend writes the size ÷ 1.24).
fn font(px: f64) -> FontDesc<'static> {
    FontDesc::new(FontFamily::SansSerif, px * 1.24, FontStyle::Normal)
}

/// The charts' house style on a mesh: axis, labels and their titles in the axis grey, the grid
/// faint, no light lines.
fn house_style<'m, 'a, 'b, X, Y, DB>(mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged,
    Y: Ranged,
    DB: DrawingBackend,
{
    mesh.axis_desc_style(font(12.0).color(&AXIS))
        .label_style(font(12.0).color(&AXIS))
        .axis_style(AXIS)
        .bold_line_style(AXIS.mix(GRID_ALPHA))
        .light_line_style(TRANSPARENT)
}

/// A pixel coordinate of plotters' backend as the targets' f64.
fn px((x, y): (i32, i32)) -> (f64, f64) {
    (x as f64, y as f64)
}

#[cfg(test)]
mod tests {
    use super::rgb;

    #[test]
    fn hex_colours_read_as_plotters_colours() {
        assert_eq!(rgb("#3b82f6"), plotters::style::RGBColor(0x3b, 0x82, 0xf6));
        assert_eq!(rgb("nonsense"), plotters::style::RGBColor(0, 0, 0));
    }
}
