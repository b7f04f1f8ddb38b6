//! The stacked memory bars: one bar per bill (per GPU, or before / after a lever), each component a
//! segment in the bill's order from the bottom, against the card's capacity and the 80 % line.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{css_color, font, house_style, px, rgb, Chart, Shape, Target, AXIS, CAPACITY, MARGIN};
use crate::ledger::bill::{Bill, ComponentId, MARGIN as MARGIN_SHARE};
use crate::ledger::msg::Msg;
use crate::ledger::units::fixed;
use crate::markup::Markup;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

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

/// `bars` stacked against a GPU of `gpu_bytes`, `width` × `height` pixels; each non-zero segment
/// is a target whose title gives the bar, the component, its size and its formula.
pub fn stacked_bars(bars: &[Bar], gpu_bytes: u64, text: &ChartText, width: u32, height: u32) -> Chart {
    let mut targets = Vec::new();
    let drawn = Markup::svg((width, height), |root| draw(root, bars, gpu_bytes, text, &mut targets));
    match drawn {
        Ok(svg) => Chart { svg, width, height, targets },
        Err(_) => Chart::blank(width, height),
    }
}

type Drawn = Result<(), DrawingAreaErrorKind<std::io::Error>>;

fn draw(
    root: &DrawingArea<SVGBackend, Shift>,
    bars: &[Bar],
    gpu_bytes: u64,
    text: &ChartText,
    targets: &mut Vec<Target>,
) -> Drawn {
    let capacity = gpu_bytes as f64 / GIB;
    let top = axis_top(bars, capacity);
    let slots = bars.len().max(1) as f64;
    let mut chart = ChartBuilder::on(root)
        .margin_top(8)
        .margin_right(8)
        .x_label_area_size(28)
        .y_label_area_size(52)
        .build_cartesian_2d(0.0..slots, 0.0..top)?;
    house_style(
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_labels(6)
            .y_label_formatter(&|v| fixed(*v, 1))
            .y_desc(text.axis.as_str()),
    )
    .draw()?;
    for (i, bar) in bars.iter().enumerate() {
        let (x0, x1) = (i as f64 + 0.25, i as f64 + 0.75);
        let mut stacked = 0.0;
        for c in bar.bill.components.iter().filter(|c| c.bytes > 0) {
            let (y0, y1) = (stacked, stacked + c.bytes as f64 / GIB);
            stacked = y1;
            chart.draw_series(std::iter::once(Rectangle::new([(x0, y0), (x1, y1)], rgb(css_color(c.id)).filled())))?;
            let ((left, bottom), (right, upper)) =
                (px(chart.backend_coord(&(x0, y0))), px(chart.backend_coord(&(x1, y1))));
            targets.push(Target {
                shape: Shape::Rect { x: left, y: upper, w: right - left, h: (bottom - upper).max(1.0) },
                class: "segment",
                component: Some(c.id),
                bar: Some(i),
                title: format!(
                    "{} · {}: {} GiB — {}",
                    bar.label,
                    (text.component)(c.id),
                    fixed(c.bytes as f64 / GIB, 2),
                    (text.formula)(&c.formula)
                ),
            });
        }
        let label = font(12.0).color(&AXIS).pos(Pos::new(HPos::Center, VPos::Top));
        chart.draw_series(std::iter::once(
            EmptyElement::at((i as f64 + 0.5, 0.0)) + plotters::element::Text::new(bar.label.clone(), (0, 8), label),
        ))?;
    }
    for (level, label, color) in [
        (capacity, text.capacity.as_str(), CAPACITY),
        (capacity * (1.0 - MARGIN_SHARE), text.margin_line.as_str(), MARGIN),
    ] {
        let level = level.min(top);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(0.0, level), (slots, level)],
            color.stroke_width(2),
        )))?;
        let style = font(12.0).color(&color).pos(Pos::new(HPos::Left, VPos::Bottom));
        chart.draw_series(std::iter::once(
            EmptyElement::at((0.0, level)) + plotters::element::Text::new(label.to_string(), (4, -4), style),
        ))?;
    }
    Ok(())
}
