use std::fmt::Write;

use yew::prelude::*;

use crate::chart::escape_xml;
use crate::i18n::{text, Lang, Text};
use crate::ledger::fit::{self, CardColumn};
use crate::ledger::units::params_short;

/// The chapter's speed card (§4) as the ledger computed it (`make card`; the stored table), in a
/// closed `<details>`. Static markup, written as one string (a component with its own open state
/// and yew's element builders cost ~1 KB of the gzip download more); every text is escaped.
pub fn speed_card(lang: Lang) -> Html {
    let mut out = format!(
        r#"<details class="speed-card-box" data-testid="speed-card-box"><summary>{}</summary><p class="tree-hint">{} <span>{}</span></p><div class="ledger-wrap"><table class="ledger speed-card" data-testid="speed-card"><thead><tr><th scope="col">{}</th>"#,
        escape_xml(text(lang, Text::SpeedCard)),
        escape_xml(text(lang, Text::SpeedCardNote)),
        escape_xml(text(lang, Text::CardAssumptions)),
        escape_xml(text(lang, Text::Gpu)),
    );
    for &c in CardColumn::ALL.iter() {
        let _ = write!(out, r#"<th scope="col">{}</th>"#, escape_xml(crate::i18n::card_column(lang, c)));
    }
    out.push_str("</tr></thead><tbody>");
    for r in fit::speed_card_stored() {
        let _ = write!(out, r#"<tr><th scope="row">{}</th>"#, escape_xml(&r.gpu.name));
        for c in &r.cells {
            match &c.model {
                Some((id, p)) => {
                    let _ = write!(out, "<td>{} ({})</td>", escape_xml(id), params_short(*p));
                }
                None => out.push_str("<td>—</td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div></details>");
    super::markup(out)
}
