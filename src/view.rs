//! The web app's own keys — `lang`, `unit`, `embed`, `tree`, `oom`, `view`, `q` — read from a link. They are not part
//! of the scenario (the ledger and the CLI ignore them), but they are read here, natively, so that
//! a bad value gets the same kind of message as a bad scenario key and is tested like one.

use crate::i18n::Lang;
use crate::ledger::msg::Arg;
use crate::ledger::units::Unit;
use crate::msg;
use crate::query::{display_value, Problem};
use crate::tree::reader::Reading;
use crate::tree::NodeId;

/// What the view keys of a link ask for.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// `None`: the browser's language.
    pub lang: Option<Lang>,
    pub unit: Unit,
    pub embed: bool,
    pub tree: Option<NodeId>,
    /// A pasted OOM's numbers (`oom=`, [`Reading::to_link`]) and the value as the link has it.
    pub oom: Option<(Reading, String)>,
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
        Reading::from_link(v).map(|r| (r, v.to_string())).or_else(|| {
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

    /// `oom=` gives the reading back; a value that is not one is a notice, never a panic.
    #[test]
    fn a_pasted_error_s_numbers_come_back_from_the_link() {
        let v = read(&ui(&[("oom", "a572522496,b16932908564,c539167293,F1,X256")]));
        let (r, link) = v.oom.expect("read");
        assert_eq!(r.numbers.tried_to_allocate, Some(572_522_496.0));
        assert_eq!(link, "a572522496,b16932908564,c539167293,F1,X256", "the value as the link has it");
        assert!(v.errors.is_empty());
        let bad = read(&ui(&[("oom", "<script>")]));
        assert!(bad.oom.is_none());
        let en = render(Lang::En, &bad.errors[0].message);
        assert!(en.contains("oom=") && !en.contains("<script>x"), "{en}");
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
