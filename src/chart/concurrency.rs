//! The serving planner's picture: how many requests fit at once against the context per request,
//! both on log₂ axes, with the user's point (context, requests) on it.

use super::svg::Svg;
use super::{Area, AXIS_COLOR};

/// Texts the chart needs, in the reader's language.
#[derive(Clone, Debug)]
pub struct CurveText {
    pub x_axis: String,
    pub y_axis: String,
    /// The title of the user's point.
    pub you: String,
}

const CURVE_COLOR: &str = "#2563eb";
const FITS_COLOR: &str = "#16a34a";
const QUEUES_COLOR: &str = "#dc2626";

/// `1k`, `32k`, `1M`: a token count on the axis.
pub fn tokens_label(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{}M", n >> 20),
        n if n >= 1024 && n % 1024 == 0 => format!("{}k", n >> 10),
        n => n.to_string(),
    }
}

/// A log₂ axis from `lo` to `hi` over `from`..`to` pixels.
#[derive(Clone, Copy)]
struct Log2 {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
}

impl Log2 {
    fn at(&self, v: f64) -> f64 {
        let t = (v.max(f64::MIN_POSITIVE).log2() - self.lo) / (self.hi - self.lo).max(1e-9);
        self.from + crate::ledger::units::within(t, 0.0, 1.0) * (self.to - self.from)
    }
}

/// The SVG of `curve` ((context, requests at once) pairs) with the user's point `you` = (context,
/// requests asked for); green when the curve holds them at that context, red when they queue.
pub fn concurrency_svg(curve: &[(u64, f64)], you: (u64, u64), text: &CurveText, width: u32, height: u32) -> String {
    let area = Area::new(width, height);
    let mut svg = Svg::new(width, height);
    let (x_lo, x_hi) = match (curve.first(), curve.last()) {
        (Some(a), Some(b)) => ((a.0.min(you.0).max(1) as f64).log2(), (b.0.max(you.0).max(2) as f64).log2()),
        _ => (9.0, 17.0),
    };
    let top = curve.iter().map(|p| p.1).fold(you.1 as f64, f64::max).max(2.0);
    let y = Log2 { lo: -1.0, hi: (top * 1.5).log2().ceil(), from: area.bottom, to: area.top };
    let x = Log2 { lo: x_lo, hi: x_hi, from: area.left, to: area.right };
    // Grid: powers of two on both axes (every other one when there are many).
    let y_step = if y.hi > 10.0 { 2 } else { 1 };
    for e in (0..=y.hi as i32).step_by(y_step) {
        let py = y.at(2f64.powi(e));
        svg.line(area.left, py, area.right, py, "rgba(128,128,136,0.2)", 1.0);
        svg.text(area.left - 6.0, py + 4.0, "end", AXIS_COLOR, &(1u64 << e).to_string());
    }
    let x_step = if x_hi - x_lo > 8.0 { 2 } else { 1 };
    for e in (x_lo.ceil() as i32..=x_hi.floor() as i32).step_by(x_step) {
        let px = x.at(2f64.powi(e));
        svg.line(px, area.top, px, area.bottom, "rgba(128,128,136,0.2)", 1.0);
        svg.text(px, area.bottom + 16.0, "middle", AXIS_COLOR, &tokens_label(1u64 << e));
    }
    svg.line(area.left, area.top, area.left, area.bottom, AXIS_COLOR, 1.0);
    svg.line(area.left, area.bottom, area.right, area.bottom, AXIS_COLOR, 1.0);
    svg.vertical_text(12.0, (area.top + area.bottom) / 2.0, AXIS_COLOR, &text.y_axis);
    svg.text((area.left + area.right) / 2.0, height as f64 - 2.0, "middle", AXIS_COLOR, &text.x_axis);
    let points: Vec<(f64, f64)> = curve.iter().map(|&(c, n)| (x.at(c as f64), y.at(n.max(0.5)))).collect();
    if !points.is_empty() {
        svg.polyline(&points, CURVE_COLOR, 2.0, "concurrency-curve");
    }
    // The requests asked for, and whether the curve reaches them at the user's context.
    let reach = curve.iter().rev().find(|p| p.0 <= you.0).or(curve.first()).map_or(0.0, |p| p.1);
    let fits = reach >= you.1 as f64;
    let (px, py) = (x.at(you.0 as f64), y.at(you.1 as f64));
    svg.line(area.left, py, area.right, py, if fits { FITS_COLOR } else { QUEUES_COLOR }, 1.0);
    let mut dot = Svg::fragment();
    dot.circle(px, py, 6.0, if fits { FITS_COLOR } else { QUEUES_COLOR }, if fits { "you fits" } else { "you queues" });
    svg.append(dot);
    svg.text(px + 9.0, py - 8.0, "start", if fits { FITS_COLOR } else { QUEUES_COLOR }, &text.you);
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::{concurrency_svg, tokens_label, CurveText};

    fn text() -> CurveText {
        CurveText { x_axis: "context".into(), y_axis: "requests".into(), you: "<you>".into() }
    }

    #[test]
    fn labels_and_escaping() {
        assert_eq!(tokens_label(512), "512");
        assert_eq!(tokens_label(32_768), "32k");
        assert_eq!(tokens_label(1 << 20), "1M");
        let svg = concurrency_svg(&[(512, 100.0), (1024, 50.0), (2048, 25.0)], (1024, 8), &text(), 400, 240);
        assert!(svg.contains("concurrency-curve") && svg.contains("&lt;you&gt;") && !svg.contains("<you>"));
        assert!(svg.contains(r#"class="you fits""#), "50 requests of 1k fit 8: {svg}");
        let queued = concurrency_svg(&[(512, 4.0), (1024, 2.0)], (1024, 8), &text(), 400, 240);
        assert!(queued.contains(r#"class="you queues""#));
        // No curve (the engine does not start): still an SVG with the user's point.
        let empty = concurrency_svg(&[], (4096, 1), &text(), 400, 240);
        assert!(empty.starts_with("<svg") && empty.ends_with("</svg>") && empty.contains("you queues"));
    }
}
