use std::fmt::Write;

use yew::prelude::*;

use crate::chart::escape_xml;
use crate::i18n::{self, render, text, Lang, Text};
use crate::ledger::bill::Bill;
use crate::ledger::units::{fixed, format_bytes, Unit};

/// Each component of the bill: its size, its share of the device total, its formula with the
/// scenario's numbers, and the chapter section it comes from. Zero lines are left out.
///
/// Static markup, written as one string (yew's element builders for the table cost ~1 KB of the
/// gzip download more); every text is escaped.
pub fn ledger_table(lang: Lang, unit: Unit, bill: &Bill) -> Html {
    let device = bill.device_bytes().max(1) as f64;
    let mut out = String::from(r#"<div class="ledger-wrap"><table class="ledger" data-testid="ledger"><thead><tr>"#);
    for (t, class) in [
        (Text::Component, ""),
        (Text::Size, " class=\"num\""),
        (Text::Share, " class=\"num\""),
        (Text::Formula, ""),
        (Text::Section, ""),
    ] {
        let _ = write!(out, r#"<th scope="col"{class}>{}</th>"#, escape_xml(text(lang, t)));
    }
    out.push_str("</tr></thead><tbody>");
    for c in bill.components.iter().filter(|c| c.bytes > 0) {
        let _ = write!(
            out,
            r#"<tr data-testid="component-{}" data-bytes="{}"><th scope="row"><span class="swatch" style="background:{}"></span>{}</th><td class="num">{}</td><td class="num">{} %</td><td class="formula"><code>{}</code></td><td>{}</td></tr>"#,
            c.id.id(),
            c.bytes,
            crate::chart::css_color(c.id),
            escape_xml(i18n::component(lang, c.id)),
            escape_xml(&format_bytes(c.bytes, unit)),
            fixed(100.0 * c.bytes as f64 / device, 1),
            // The formula is set as code already: the templates' code-span backticks go.
            escape_xml(&render(lang, &c.formula).replace('`', "")),
            escape_xml(c.section),
        );
    }
    out.push_str("</tbody></table></div>");
    super::markup(out)
}
