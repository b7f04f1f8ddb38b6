//! Markup that escapes by default. A [`Markup`] is HTML or SVG text built only from
//!
//! - [`Markup::text`]: any string, escaped (`<`, `>`, `&`, `"` and `'` become entities, control
//!   characters are dropped), so a model name from a pasted config.json stays text;
//! - [`Markup::raw`]: a `&'static str` — markup written in the source, never user text;
//! - [`Markup::svg`]: a drawing made with plotters' SVG backend, which escapes every text and
//!   attribute value it writes (`plotters_svg::SVGBackend::escape_and_push`);
//! - other `Markup`s.
//!
//! It is the only way a string reaches the page as markup: [`Markup::to_html`] is the one call of
//! `Html::from_html_unchecked` in the crate (a test checks that). Everything else the page shows is
//! Yew's `html!`, which escapes on its own.

use std::fmt;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};

/// A piece of markup; see the module doc for how one can be made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Markup(String);

/// Escapes text for XML content and attribute values.
fn escape_into(out: &mut String, s: &str) {
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
}

impl Markup {
    /// No markup.
    pub const fn new() -> Markup {
        Markup(String::new())
    }

    /// `s` as text: every character that means something in markup is escaped.
    pub fn text(s: &str) -> Markup {
        let mut m = Markup::new();
        m.push_text(s);
        m
    }

    /// Markup written in the source.
    pub fn raw(s: &'static str) -> Markup {
        Markup(s.to_string())
    }

    /// The SVG document `draw` makes on a `width` × `height` plotters drawing area (its SVG
    /// backend escapes what it writes). An error of the drawing is returned, never half a chart.
    pub fn svg<E>(
        (width, height): (u32, u32),
        draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), E>,
    ) -> Result<Markup, E> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
            draw(&root)?;
            // The backend writes the closing tag when it is dropped (or presented).
            let _ = root.present();
        }
        Ok(Markup(out))
    }

    pub fn push_text(&mut self, s: &str) {
        escape_into(&mut self.0, s);
    }

    pub fn push_raw(&mut self, s: &'static str) {
        self.0.push_str(s);
    }

    /// A number with one decimal (a coordinate): digits, a sign and a point, nothing to escape.
    pub fn push_number(&mut self, x: f64) {
        if x.is_finite() && x < 0.0 {
            self.0.push('-');
        }
        self.0.push_str(&crate::ledger::units::fixed(if x.is_finite() { x.abs() } else { 0.0 }, 1));
    }

    /// ` name="12.3"`: an attribute with a number's value (one decimal).
    pub fn push_number_attribute(&mut self, name: &'static str, x: f64) {
        self.0.push(' ');
        self.0.push_str(name);
        self.0.push_str("=\"");
        self.push_number(x);
        self.0.push('"');
    }

    pub fn push(&mut self, m: &Markup) {
        self.0.push_str(&m.0);
    }

    /// Keeps the first `len` bytes (at a boundary the caller found in this markup: an element's
    /// start, so what is kept is still whole markup).
    pub fn truncate_to(&mut self, len: usize) {
        if self.0.is_char_boundary(len) {
            self.0.truncate(len);
        }
    }

    /// The markup as text (to save it as a file, or to test it).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The markup as a Yew node.
    #[cfg(any(target_arch = "wasm32", feature = "prerender"))]
    pub fn to_html(&self) -> yew::Html {
        yew::Html::from_html_unchecked(yew::AttrValue::from(self.0.clone()))
    }
}

impl fmt::Display for Markup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Markup;

    #[test]
    fn text_is_escaped_and_raw_is_not() {
        let mut m = Markup::raw("<p>");
        m.push_text("<img src=x onerror=alert(1)> & \"'\u{1}");
        m.push_raw("</p>");
        assert_eq!(m.as_str(), "<p>&lt;img src=x onerror=alert(1)&gt; &amp; &quot;&apos;</p>");
    }

    #[test]
    fn plotters_escapes_what_it_draws() {
        use plotters::prelude::*;
        let svg = Markup::svg((100, 40), |root| {
            root.draw(&Text::new("<script>", (5, 5), ("sans-serif", 12).into_font())).map_err(|e| e.to_string())
        })
        .expect("drawn");
        assert!(svg.as_str().starts_with("<svg") && svg.as_str().trim_end().ends_with("</svg>"), "{svg}");
        assert!(svg.as_str().contains("&lt;script&gt;") && !svg.as_str().contains("<script>"), "{svg}");
    }
}
