//! The serving planner's picture: how many requests fit at once against the context per request,
//! both on log₂ axes, with the user's point (context, requests) on it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{font, house_style, px, Chart, Shape, Target, CAPACITY, FITS};
use crate::markup::Markup;

/// Texts the chart needs, in the reader's language.
#[derive(Clone, Debug)]
pub struct CurveText {
    pub x_axis: String,
    pub y_axis: String,
    /// The title of the user's point.
    pub you: String,
}

const CURVE: RGBColor = RGBColor(0x25, 0x63, 0xeb);

/// `1k`, `32k`, `1M`: a token count on the axis.
pub fn tokens_label(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{}M", n >> 20),
        n if n >= 1024 && n % 1024 == 0 => format!("{}k", n >> 10),
        n => n.to_string(),
    }
}

/// `curve` ((context, requests at once) pairs) with the user's point `you` = (context, requests
/// asked for): green when the curve holds them at that context, red when they queue. The point is
/// the chart's one target (class `you fits` or `you queues`).
pub fn concurrency(curve: &[(u64, f64)], you: (u64, u64), text: &CurveText, width: u32, height: u32) -> Chart {
    let mut targets = Vec::new();
    match Markup::svg((width, height), |root| draw(root, curve, you, text, &mut targets)) {
        Ok(svg) => Chart { svg, width, height, targets },
        Err(_) => Chart::blank(width, height),
    }
}

/// How many labels to ask plotters for on an axis of exponents: at most nine, and never more than
/// the whole exponents the range spans, so that plotters' steps (1, 2, 5 × 10ⁿ) are whole and every
/// label is a whole power of two.
fn whole_power_labels(range: &std::ops::Range<f64>) -> usize {
    ((range.end - range.start).floor() as usize + 1).clamp(2, 9)
}

/// 2^`exponent` when the exponent is whole (a label), else `None`.
fn whole_power(exponent: f64) -> Option<f64> {
    let whole = exponent.round();
    ((exponent - whole).abs() < 1e-9).then(|| 2f64.powi(whole as i32))
}

/// Whether the curve reaches `you`'s requests at `you`'s context.
fn holds(curve: &[(u64, f64)], you: (u64, u64)) -> bool {
    let reach = curve.iter().rev().find(|p| p.0 <= you.0).or(curve.first()).map_or(0.0, |p| p.1);
    reach >= you.1 as f64
}

fn draw(
    root: &DrawingArea<SVGBackend, Shift>,
    curve: &[(u64, f64)],
    you: (u64, u64),
    text: &CurveText,
    targets: &mut Vec<Target>,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let (x_lo, x_hi) = match (curve.first(), curve.last()) {
        (Some(a), Some(b)) => (a.0.min(you.0).max(1) as f64, b.0.max(you.0).max(2) as f64),
        _ => (512.0, 131_072.0),
    };
    let x_hi = x_hi.max(2.0 * x_lo);
    let top = curve.iter().map(|p| p.1).fold(you.1 as f64, f64::max).max(2.0);
    let y_hi = 2f64.powi((top * 1.5).log2().ceil() as i32);
    // Both axes are log₂, drawn as linear axes of the exponent: the same coordinate types as the
    // bars and the timeline, so plotters' drawing code is linked once (a log-scaled pair of axes
    // was 7.3 KB of the page's gzip; docs/size.md).
    let (x_range, y_range) = (x_lo.log2()..x_hi.log2(), (-1.0)..y_hi.log2());
    let mut chart = ChartBuilder::on(root)
        .margin_top(8)
        .margin_right(8)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(x_range.clone(), y_range.clone())?;
    house_style(
        chart
            .configure_mesh()
            .x_labels(whole_power_labels(&x_range))
            .y_labels(whole_power_labels(&y_range))
            .x_label_formatter(&|v| whole_power(*v).map(|p| tokens_label(p.round() as u64)).unwrap_or_default())
            .y_label_formatter(&|v| {
                whole_power(*v).filter(|p| *p >= 1.0).map(|p| format!("{}", p.round() as u64)).unwrap_or_default()
            })
            .x_desc(text.x_axis.as_str())
            .y_desc(text.y_axis.as_str()),
    )
    .draw()?;
    let at = |(x, y): (f64, f64)| (x.log2(), y.log2());
    let points: Vec<(f64, f64)> = curve.iter().map(|&(c, n)| at((c as f64, n.max(0.5)))).collect();
    if !points.is_empty() {
        chart.draw_series(std::iter::once(PathElement::new(points, CURVE.stroke_width(2))))?;
    }
    let fits = holds(curve, you);
    let color = if fits { FITS } else { CAPACITY };
    // The point stays on the picture.
    let point = ((you.0 as f64).max(x_lo).min(x_hi), (you.1 as f64).max(0.5).min(y_hi));
    let point = at(point);
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(x_range.start, point.1), (x_range.end, point.1)],
        color.stroke_width(1),
    )))?;
    let label = font(12.0).color(&color).pos(Pos::new(HPos::Left, VPos::Bottom));
    chart.draw_series(std::iter::once(
        EmptyElement::at(point)
            + Circle::new((0, 0), 6, color.filled())
            + plotters::element::Text::new(text.you.clone(), (9, -8), label),
    ))?;
    let (x, y) = px(chart.backend_coord(&point));
    targets.push(Target {
        shape: Shape::Circle { x, y, r: 6.0 },
        class: if fits { "you fits" } else { "you queues" },
        component: None,
        bar: None,
        title: text.you.clone(),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{concurrency, holds, tokens_label, CurveText};

    fn text() -> CurveText {
        CurveText { x_axis: "context".into(), y_axis: "requests".into(), you: "<you>".into() }
    }

    #[test]
    fn labels_and_escaping() {
        assert_eq!(tokens_label(512), "512");
        assert_eq!(tokens_label(32_768), "32k");
        assert_eq!(tokens_label(1 << 20), "1M");
        let chart = concurrency(&[(512, 100.0), (1024, 50.0), (2048, 25.0)], (1024, 8), &text(), 400, 240);
        let svg = chart.svg.as_str();
        assert!(svg.contains("&lt;you&gt;") && !svg.contains("<you>"), "{svg}");
        assert_eq!(chart.targets.len(), 1);
        assert_eq!(chart.targets[0].class, "you fits", "50 requests of 1k hold 8");
        let queued = concurrency(&[(512, 4.0), (1024, 2.0)], (1024, 8), &text(), 400, 240);
        assert_eq!(queued.targets[0].class, "you queues");
        // No curve (the engine does not start): still a picture with the user's point.
        let empty = concurrency(&[], (4096, 1), &text(), 400, 240);
        assert!(empty.svg.as_str().starts_with("<svg") && empty.targets[0].class == "you queues");
    }

    /// The labels of an axis, read from the picture's `<text>` elements.
    fn labels(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim().to_string()))
            .collect()
    }

    #[test]
    fn every_label_is_a_whole_power_of_two() {
        // 512 … 128k tokens is 2⁹ … 2¹⁷: nine whole exponents, each labelled once (by hand: 512,
        // 1k, 2k, 4k, 8k, 16k, 32k, 64k, 128k); requests 2⁻¹ … 2⁸ (1.5 × 100 → 256): ten exponents,
        // so plotters steps by two (1, 4, 16, 64, 256).
        let curve = [(512, 100.0), (8192, 12.0), (131_072, 0.5)];
        let picture = concurrency(&curve, (4096, 8), &text(), 520, 280);
        let shown = labels(picture.svg.as_str());
        for x in ["512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k"] {
            assert_eq!(shown.iter().filter(|l| *l == x).count(), 1, "{x} in {shown:?}");
        }
        for y in ["1", "4", "16", "64", "256"] {
            assert!(shown.iter().any(|l| l == y), "{y} in {shown:?}");
        }
        assert!(shown.iter().all(|l| !l.contains('.')), "no fractional label: {shown:?}");
        // A narrow range (1k … 4k, three exponents) still gets whole powers only.
        let narrow = concurrency(&[(1024, 3.0), (4096, 1.0)], (2048, 1), &text(), 520, 280);
        let narrow = labels(narrow.svg.as_str());
        assert!(narrow.iter().any(|l| l == "2k") && narrow.iter().all(|l| !l.contains('.')), "{narrow:?}");
        assert!(!narrow.iter().any(|l| l == "1448" || l == "2896"), "no half powers: {narrow:?}");
    }

    #[test]
    fn the_point_is_held_when_the_curve_reaches_it() {
        assert!(holds(&[(512, 10.0), (4096, 2.0)], (1024, 10)), "the 512 point holds 10 at 1k");
        assert!(!holds(&[(512, 10.0), (4096, 2.0)], (8192, 3)));
    }
}
