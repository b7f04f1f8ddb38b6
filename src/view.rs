//! The web app's own keys — `lang`, `unit`, `embed`, `tree`, `oom`, `view`, `q` — read from a link. They are not part
//! of the scenario (the ledger and the CLI ignore them), but they are read here, natively, so that
//! a bad value gets the same kind of message as a bad scenario key and is tested like one.

use crate::i18n::Lang;
use crate::ledger::msg::Arg;
use crate::ledger::units::Unit;
use crate::msg;
use crate::query::{display_value, Problem};
use crate::tree::NodeId;

/// What the view keys of a link ask for.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// `None`: the browser's language.
    pub lang: Option<Lang>,
    pub unit: Unit,
    pub embed: bool,
    pub tree: Option<NodeId>,
    /// A pasted OOM's numbers as the link has them (`oom=`, `Reading::to_link`): the page carries
    /// the value; the reader worker reads it (`Reading::from_link`), so the page's build has no
    /// code for readings.
    pub oom: Option<String>,
    /// `view=selftest`: the chapter's self-test instead of the calculator.
    pub selftest: bool,
    /// `view=timeline`: the step's memory over its phases alone (a chapter page's picture).
    pub timeline: bool,
    /// `q=1…7`: one question of the self-test alone (a chapter embeds it beside its paragraph).
    pub question: Option<u8>,
    pub errors: Vec<Problem>,
}

fn problem(key: &'static str, raw: &str, accepted: &[&str]) -> Problem {
    Problem {
        key: key.into(),
        message: msg!(BadChoice, Arg::Code(key), Arg::Text(display_value(raw)), Arg::Text(accepted.join(", "))),
    }
}

/// Reads the view keys of a parsed link (`crate::query::Parsed::ui`); the last occurrence wins.
pub fn read(ui: &[(String, String)]) -> View {
    let get = |key: &str| ui.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    let mut errors = Vec::new();
    let lang = get("lang").and_then(|v| {
        Lang::from_id(v).or_else(|| {
            errors.push(problem("lang", v, &["zh", "en"]));
            None
        })
    });
    let unit = get("unit").map_or(Unit::GiB, |v| {
        Unit::from_id(v).unwrap_or_else(|| {
            errors.push(problem("unit", v, &["gib", "gb"]));
            Unit::GiB
        })
    });
    let tree = get("tree").and_then(|v| {
        NodeId::from_id(v).or_else(|| {
            let accepted: Vec<&str> = NodeId::ALL.iter().map(|n| n.id()).collect();
            errors.push(problem("tree", v, &accepted));
            None
        })
    });
    let oom = get("oom").and_then(|v| {
        is_oom_link(v).then(|| v.to_string()).or_else(|| {
            errors.push(Problem { key: "oom".into(), message: msg!(BadOomLink, Arg::Text(display_value(v))) });
            None
        })
    });
    let (selftest, timeline) = match get("view") {
        None | Some("calculator") => (false, false),
        Some("selftest") => (true, false),
        Some("timeline") => (false, true),
        Some(v) => {
            errors.push(problem("view", v, &["calculator", "selftest", "timeline"]));
            (false, false)
        }
    };
    let question = get("q").and_then(|v| match v.parse::<u8>() {
        Ok(n) if (1..=crate::selftest::QUESTIONS).contains(&n) => Some(n),
        _ => {
            errors.push(problem("q", v, &["1", "2", "3", "4", "5", "6", "7"]));
            None
        }
    });
    View { lang, unit, embed: get("embed") == Some("1"), tree, oom, selftest, timeline, question, errors }
}

/// Whether `v` can be an `oom=` value: the characters `Reading::to_link` writes (letters, digits,
/// `-.,:_`), at most 16 KiB (a reading's items are capped at 400).
fn is_oom_link(v: &str) -> bool {
    !v.is_empty() && v.len() <= 16 * 1024 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.,:_".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::read;
    use crate::i18n::{render, Lang};

    fn ui(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// `?lang=zh&tree=b`: the notice lists the node ids untranslated (it once showed `sequence`'s
    /// id `seq` as 条序列).
    #[test]
    fn a_bad_tree_node_lists_the_ids_as_they_are() {
        let v = read(&ui(&[("lang", "zh"), ("tree", "b")]));
        assert_eq!(v.lang, Some(Lang::Zh));
        let zh = render(Lang::Zh, &v.errors[0].message);
        assert!(zh.contains("seq, peak") && !zh.contains("条序列"), "{zh}");
    }

    /// `oom=` is kept as the link has it; a value that cannot be one (other characters, too long)
    /// is a notice, never a panic. What the value says is the reader worker's to read.
    #[test]
    fn a_pasted_error_s_numbers_come_back_from_the_link() {
        let v = read(&ui(&[("oom", "a572522496,b16932908564,c539167293,F1,X256")]));
        assert_eq!(v.oom.as_deref(), Some("a572522496,b16932908564,c539167293,F1,X256"));
        assert!(v.errors.is_empty());
        for bad in ["<script>", "", &"a1,".repeat(20_000)] {
            let v = read(&ui(&[("oom", bad)]));
            assert!(v.oom.is_none(), "{bad:?}");
            let en = render(Lang::En, &v.errors[0].message);
            assert!(en.contains("oom=") && !en.contains("<script>x"), "{en}");
        }
    }

    #[test]
    fn defaults_and_last_occurrence() {
        assert!(read(&ui(&[("view", "timeline")])).timeline);
        let v = read(&ui(&[("unit", "gb"), ("unit", "gib"), ("embed", "1")]));
        assert_eq!((v.unit, v.embed, v.lang, v.tree), (crate::ledger::units::Unit::GiB, true, None, None));
        assert!(v.errors.is_empty());
        assert_eq!(read(&ui(&[("lang", "fr")])).errors.len(), 1);
    }
}
