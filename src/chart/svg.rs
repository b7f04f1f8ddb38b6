//! A small SVG writer: the few elements the charts draw, with coordinates to one decimal and every
//! text escaped.

use crate::ledger::units::fixed;

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

/// A coordinate: one decimal, negative values allowed.
fn c(x: f64) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    if x < 0.0 {
        format!("-{}", fixed(-x, 1))
    } else {
        fixed(x, 1)
    }
}

/// Tick values from 0 to at most `top`, about `count` of them, at a step of 1, 2 or 5 × 10^k.
pub fn nice_ticks(top: f64, count: u32) -> Vec<f64> {
    if !(top.is_finite() && top > 0.0) || count == 0 {
        return vec![0.0];
    }
    let raw = top / count as f64;
    let magnitude = 10f64.powi(raw.log10().floor() as i32);
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(10.0 * magnitude);
    (0..=count * 2 + 2).map(|i| i as f64 * step).take_while(|v| *v <= top * (1.0 + 1e-9)).collect()
}

/// An SVG document (or a fragment of one) being written.
pub struct Svg {
    out: String,
    close: bool,
}

impl Svg {
    pub fn new(width: u32, height: u32) -> Svg {
        let out = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
        );
        Svg { out, close: true }
    }

    /// Elements to append to a document later (drawn on top of it).
    pub fn fragment() -> Svg {
        Svg { out: String::new(), close: false }
    }

    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        self.out.push_str(&format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{fill}"/>"#,
            c(x),
            c(y),
            c(w.max(0.0)),
            c(h.max(0.0))
        ));
    }

    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        self.out.push_str(&format!(
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}" stroke-width="{}"/>"#,
            c(x1),
            c(y1),
            c(x2),
            c(y2),
            c(width)
        ));
    }

    /// A polyline through `points` (pixels).
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, width: f64, class: &str) {
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{},{}", c(*x), c(*y))).collect();
        self.out.push_str(&format!(
            r#"<polyline class="{class}" points="{}" fill="none" stroke="{stroke}" stroke-width="{}"/>"#,
            pts.join(" "),
            c(width)
        ));
    }

    pub fn circle(&mut self, x: f64, y: f64, r: f64, fill: &str, class: &str) {
        self.out.push_str(&format!(
            r#"<circle class="{class}" cx="{}" cy="{}" r="{}" fill="{fill}"/>"#,
            c(x),
            c(y),
            c(r)
        ));
    }

    pub fn text(&mut self, x: f64, y: f64, anchor: &str, fill: &str, text: &str) {
        self.out.push_str(&format!(
            r#"<text x="{}" y="{}" text-anchor="{anchor}" fill="{fill}">{}</text>"#,
            c(x),
            c(y),
            escape_xml(text)
        ));
    }

    /// Text rotated to run upwards (an axis title).
    pub fn vertical_text(&mut self, x: f64, y: f64, fill: &str, text: &str) {
        self.out.push_str(&format!(
            r#"<text transform="translate({},{}) rotate(-90)" text-anchor="middle" fill="{fill}">{}</text>"#,
            c(x),
            c(y),
            escape_xml(text)
        ));
    }

    /// A transparent, focusable rectangle with a title: what hover and Tab find on a segment.
    pub fn segment(&mut self, component: &str, bar: usize, (x, y, w, h): (f64, f64, f64, f64), title: &str) {
        self.out.push_str(&format!(
            r#"<rect class="segment" tabindex="0" data-component="{component}" data-bar="{bar}" x="{}" y="{}" width="{}" height="{}" fill="transparent"><title>{}</title></rect>"#,
            c(x),
            c(y),
            c(w),
            c(h),
            escape_xml(title)
        ));
    }

    pub fn append(&mut self, other: Svg) {
        self.out.push_str(&other.out);
    }

    pub fn finish(mut self) -> String {
        if self.close {
            self.out.push_str("</svg>");
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::{c, nice_ticks};

    /// Hand arithmetic: 0–26.4 GiB in about 6 steps → a step of 5; 0–0.9 → 0.2.
    #[test]
    fn ticks_use_round_steps() {
        assert_eq!(nice_ticks(26.4, 6), vec![0.0, 5.0, 10.0, 15.0, 20.0, 25.0]);
        let small = nice_ticks(0.9, 6);
        assert_eq!(small.len(), 5);
        assert!((small[4] - 0.8).abs() < 1e-9);
        assert_eq!(nice_ticks(f64::NAN, 6), vec![0.0]);
    }

    #[test]
    fn coordinates_have_one_decimal_and_never_nan() {
        assert_eq!(c(12.345), "12.3");
        assert_eq!(c(-3.0), "-3.0");
        assert_eq!(c(f64::INFINITY), "0");
    }
}
