//! Stacked memory bars (plotters, SVG backend) against the GPU's capacity, with the chapter's 80 %
//! line. Pure: bills in, an SVG string out, so it is tested natively.
//!
//! plotters escapes the text and attributes it writes; the focusable overlay we add for hover and
//! keyboard (one transparent `<rect>` with a `<title>` per segment) is escaped here.

use plotters::prelude::*;

use crate::ledger::bill::{Bill, ComponentId, MARGIN};
use crate::ledger::units::fixed;

/// One bar: a label under it and its bill.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub label: String,
    pub bill: Bill,
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
    pub formula: fn(&str) -> String,
}

/// The colour of a component: the same in the chart, the legend and the table.
pub fn color(id: ComponentId) -> RGBColor {
    match id {
        ComponentId::Weights => RGBColor(0x3b, 0x82, 0xf6),
        ComponentId::AdapterWeights => RGBColor(0x06, 0xb6, 0xd4),
        ComponentId::MasterWeights => RGBColor(0x63, 0x66, 0xf1),
        ComponentId::Gradients => RGBColor(0xa8, 0x55, 0xf7),
        ComponentId::Optimizer => RGBColor(0xec, 0x48, 0x99),
        ComponentId::Activations => RGBColor(0xf5, 0x9e, 0x0b),
        ComponentId::VisionActivations => RGBColor(0xea, 0x58, 0x0c),
        ComponentId::Logits => RGBColor(0xef, 0x44, 0x44),
        ComponentId::KvCache => RGBColor(0x10, 0xb9, 0x81),
        ComponentId::DequantBuffer => RGBColor(0x84, 0xcc, 0x16),
        ComponentId::GatheredLayer => RGBColor(0x14, 0xb8, 0xa6),
        ComponentId::OptimizerStep => RGBColor(0xd9, 0x46, 0xef),
        ComponentId::EvalGraph => RGBColor(0x9f, 0x12, 0x39),
        ComponentId::KeptTensors => RGBColor(0x7c, 0x2d, 0x12),
        ComponentId::Fp32Module => RGBColor(0x1e, 0x3a, 0x8a),
        ComponentId::ZombieProcess => RGBColor(0x37, 0x41, 0x51),
        ComponentId::AllocatorSlack => RGBColor(0x94, 0xa3, 0xb8),
        ComponentId::CudaContext => RGBColor(0x64, 0x74, 0x8b),
    }
}

/// `#rrggbb` for CSS.
pub fn css_color(id: ComponentId) -> String {
    let RGBColor(r, g, b) = color(id);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Escapes text for XML content and attribute values.
pub fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const AXIS_COLOR: RGBColor = RGBColor(0x80, 0x80, 0x88);
const CAPACITY_COLOR: RGBColor = RGBColor(0xdc, 0x26, 0x26);
const MARGIN_COLOR: RGBColor = RGBColor(0xd9, 0x77, 0x06);

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

/// The SVG of `bars` stacked against a GPU of `gpu_bytes`. Never fails: on a drawing error it returns
/// an empty SVG of the same size.
pub fn stacked_bars_svg(bars: &[Bar], gpu_bytes: u64, text: &ChartText, width: u32, height: u32) -> String {
    let mut svg = String::new();
    let mut overlay = String::new();
    let drawn = draw(&mut svg, &mut overlay, bars, gpu_bytes, text, width, height);
    if drawn.is_err() {
        return format!(r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"></svg>"#);
    }
    // Add the focusable overlay just before the closing tag.
    match svg.rfind("</svg>") {
        Some(i) => {
            svg.insert_str(i, &overlay);
            svg
        }
        None => svg,
    }
}

fn draw(
    svg: &mut String,
    overlay: &mut String,
    bars: &[Bar],
    gpu_bytes: u64,
    text: &ChartText,
    width: u32,
    height: u32,
) -> Result<(), Box<dyn std::error::Error>> {
    let capacity = gpu_bytes as f64 / GIB;
    let top = axis_top(bars, capacity);
    let n = bars.len().max(1) as f64;
    {
        let root = SVGBackend::with_string(svg, (width, height)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(44)
            .build_cartesian_2d(0.0..n, 0.0..top)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .y_desc(text.axis.as_str())
            .y_labels(6)
            .y_label_formatter(&|v| fixed(*v, 1))
            .light_line_style(RGBAColor(0x80, 0x80, 0x88, 0.15))
            .bold_line_style(RGBAColor(0x80, 0x80, 0x88, 0.3))
            .axis_style(AXIS_COLOR)
            .label_style(("sans-serif", 12).into_font().color(&AXIS_COLOR))
            .axis_desc_style(("sans-serif", 12).into_font().color(&AXIS_COLOR))
            .draw()?;

        for (i, bar) in bars.iter().enumerate() {
            let x0 = i as f64 + 0.25;
            let x1 = i as f64 + 0.75;
            let mut y = 0.0;
            for c in bar.bill.components.iter().filter(|c| c.bytes > 0) {
                let h = c.bytes as f64 / GIB;
                let (y0, y1) = (y, (y + h).min(top));
                y += h;
                if y0 >= top {
                    break;
                }
                chart.draw_series(std::iter::once(Rectangle::new([(x0, y0), (x1, y1)], color(c.id).filled())))?;
                let (px0, py1) = chart.backend_coord(&(x0, y1));
                let (px1, py0) = chart.backend_coord(&(x1, y0));
                let title = format!(
                    "{} · {}: {} GiB — {}",
                    bar.label,
                    (text.component)(c.id),
                    fixed(c.bytes as f64 / GIB, 2),
                    (text.formula)(&c.formula)
                );
                overlay.push_str(&format!(
                    r#"<rect class="segment" tabindex="0" data-component="{}" data-bar="{i}" x="{px0}" y="{py1}" width="{}" height="{}" fill="transparent"><title>{}</title></rect>"#,
                    c.id.id(),
                    (px1 - px0).max(1),
                    (py0 - py1).max(1),
                    escape_xml(&title)
                ));
            }
            let (lx, ly) = chart.backend_coord(&((x0 + x1) / 2.0, 0.0));
            root.draw(&Text::new(
                bar.label.clone(),
                (lx, ly + 6),
                ("sans-serif", 12).into_font().color(&AXIS_COLOR).pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Center,
                    plotters::style::text_anchor::VPos::Top,
                )),
            ))?;
        }

        for (level, label, style) in [
            (capacity, text.capacity.as_str(), CAPACITY_COLOR),
            (capacity * (1.0 - MARGIN), text.margin_line.as_str(), MARGIN_COLOR),
        ] {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, level), (n, level)],
                style.stroke_width(2),
            )))?;
            let (px, py) = chart.backend_coord(&(0.0, level));
            root.draw(&Text::new(
                label.to_string(),
                (px + 4, py - 3),
                ("sans-serif", 12).into_font().color(&style).pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Bottom,
                )),
            ))?;
        }
        root.present()?;
    }
    Ok(())
}
