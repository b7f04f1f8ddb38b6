//! The calculator's whole state as one reducer. Every control speaks the scenario vocabulary: it
//! emits a `key=value` pair, and the reducer re-reads the current link with that pair appended —
//! so the UI, the share URL and the CLI cannot disagree about what a value means, and a typed
//! invalid value gets the same message a broken link would.

use std::rc::Rc;

use yew::Reducible;

use crate::i18n::Lang;
use crate::ledger::units::Unit;
use crate::ledger::Scenario;
use crate::query::{self, Key, Problem};
use crate::tree::{Lever, NodeId};
use crate::view;

/// A paste's reading, shared by the state and the tree and compared by identity (each paste is a
/// new one), so that re-renders neither copy nor compare its numbers.
pub type Shared = Same<PastedReading>;

/// A paste's reading as its `oom=` value, from the reader worker or the link: the page carries
/// it; the worker reads and encodes readings (`Reading::from_link`, `Reading::to_link`).
#[derive(Clone, Debug, PartialEq)]
pub struct PastedReading {
    pub link: String,
}

/// A value shared by `Rc` and compared by identity: the same `Rc` is the same value (a bill is
/// memoised on its scenario, a paste is read once), so a re-render compares a pointer, not every line.
#[derive(Clone, Debug)]
pub struct Same<T>(pub Rc<T>);

impl<T> PartialEq for Same<T> {
    fn eq(&self, other: &Same<T>) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct CalcState {
    pub scenario: Scenario,
    pub lang: Lang,
    pub unit: Unit,
    pub embed: bool,
    /// `view=selftest`: the chapter's self-test; `q=N`: its question N alone.
    pub selftest: bool,
    /// `view=timeline`: the step's memory over its phases alone.
    pub timeline: bool,
    pub question: Option<u8>,
    /// Problems found in the link the page was opened with, or in a typed value.
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
    /// The selected node of the OOM tree (`tree=` in the link).
    pub tree: Option<NodeId>,
    /// The scenario before the last applied lever (a what-if); shown as a "before" bar.
    pub before: Option<Scenario>,
    /// What the user pasted (or typed), as read: the numbers and signals, never the text
    /// (`oom=` in the link). The diagnosis follows the scenario.
    pub pasted: Option<Shared>,
    /// A mem_report.py JSON being compared with the bill, as typed (not in the link).
    pub report: Rc<str>,
    /// What was wrong with the numbers typed into the tree's form (cleared by the next reading).
    pub typed_error: Option<crate::tree::MeasureError>,
    /// A new paste was read: the tree selects the node of its diagnosis when the reader worker
    /// sends it (a link's `oom=` keeps the link's `tree=`).
    pub select_diagnosed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Set one key of the scenario vocabulary to a (typed or chosen) value.
    Set(Key, String),
    SetLang(Lang),
    SetUnit(Unit),
    DismissNotices,
    /// A model from a pasted or fetched config.json.
    SetCustomModel(Box<(crate::ledger::architecture::Architecture, String)>),
    SelectNode(NodeId),
    /// Apply one lever of the tree: the current scenario becomes the "before".
    ApplyLever(Lever),
    /// Drop the what-if: back to the "before" scenario.
    UndoLever,
    /// A paste read (or typed numbers): the tree selects the node its diagnosis finds.
    SetReading(Option<Box<PastedReading>>),
    /// The reader worker's diagnosis of the reading arrived, at this node.
    Diagnosed(NodeId),
    /// The reader worker could not read the link's `oom=` value (the page only checks its
    /// characters): a notice, and no paste.
    OomRefused(crate::ledger::msg::Msg),
    /// Replace the scenario by the one a query describes (a mem_report's configuration).
    LoadQuery(String),
    /// The text of the measured-report box.
    SetReport(String),
    /// The typed numbers could not be read.
    TypedError(crate::tree::MeasureError),
}

impl CalcState {
    /// The state a link describes; `browser_lang` when the link has no `lang=`.
    pub fn from_query(q: &str, browser_lang: Lang) -> CalcState {
        let parsed = query::parse(q);
        let v = view::read(&parsed.ui);
        let mut errors = parsed.errors;
        errors.extend(v.errors);
        CalcState {
            scenario: parsed.scenario,
            lang: v.lang.unwrap_or(browser_lang),
            unit: v.unit,
            embed: v.embed,
            selftest: v.selftest,
            timeline: v.timeline,
            question: v.question,
            errors,
            warnings: parsed.warnings,
            tree: v.tree,
            before: None,
            pasted: v.oom.map(|link| Same(Rc::new(PastedReading { link }))),
            report: Rc::from(""),
            typed_error: None,
            select_diagnosed: false,
        }
    }

    /// The query string that reproduces this state (scenario + UI keys that differ from defaults).
    pub fn share_query(&self, browser_lang: Lang) -> String {
        let mut ui: Vec<(&str, &str)> = Vec::new();
        if self.lang != browser_lang {
            ui.push(("lang", self.lang.id()));
        }
        if self.unit != Unit::GiB {
            ui.push(("unit", self.unit.id()));
        }
        if self.embed {
            ui.push(("embed", "1"));
        }
        if self.timeline {
            ui.push(("view", "timeline"));
        }
        if self.selftest {
            ui.push(("view", "selftest"));
        }
        let q = self.question.map(|n| n.to_string());
        if let Some(q) = &q {
            ui.push(("q", q));
        }
        if let Some(n) = self.tree {
            ui.push(("tree", n.id()));
        }
        if let Some(p) = &self.pasted {
            ui.push(("oom", &p.0.link));
        }
        query::to_query(&self.scenario, &ui)
    }
}

impl Reducible for CalcState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Set(key, value) => {
                let (scenario, problem) = query::with_key(&self.scenario, key, &value);
                next.scenario = scenario;
                next.errors.retain(|e| e.key != key.name());
                next.errors.extend(problem);
            }
            Action::SetLang(l) => next.lang = l,
            Action::SetUnit(u) => next.unit = u,
            Action::SetCustomModel(model) => {
                let (arch, kept) = *model;
                // A weight format left at the old model's default follows the new checkpoint's.
                let s = &self.scenario;
                let was_default = s.quant == crate::ledger::Scenario::default_quant(s.mode, s.method, &s.architecture);
                next.scenario.model_id = None;
                next.scenario.architecture = arch;
                // Every key the page keeps for the reader worker is a shape key: the new model's.
                next.scenario.for_worker = kept;
                if was_default {
                    let n = &next.scenario;
                    next.scenario.quant = crate::ledger::Scenario::default_quant(n.mode, n.method, &n.architecture);
                    next.scenario.quant_layers = None;
                }
            }
            Action::SelectNode(n) => next.tree = Some(n),
            Action::ApplyLever(lever) => {
                if let Some(after) = lever.apply(&self.scenario) {
                    next.before = Some(self.scenario.clone());
                    next.scenario = after;
                }
            }
            Action::UndoLever => {
                if let Some(b) = next.before.take() {
                    next.scenario = b;
                }
            }
            Action::SetReading(r) => {
                next.typed_error = None;
                next.select_diagnosed = r.is_some();
                next.pasted = r.map(|r| Same(Rc::new(*r)));
            }
            Action::Diagnosed(node) => {
                if self.select_diagnosed {
                    next.tree = Some(node);
                    next.select_diagnosed = false;
                }
            }
            Action::OomRefused(message) => {
                next.pasted = None;
                next.errors.push(query::Problem { key: "oom".into(), message });
            }
            Action::LoadQuery(q) => {
                let parsed = query::parse(&q);
                next.scenario = parsed.scenario;
                next.errors = parsed.errors;
                next.warnings = parsed.warnings;
                next.before = None;
            }
            Action::SetReport(text) => next.report = Rc::from(text),
            Action::TypedError(e) => next.typed_error = Some(e),
            Action::DismissNotices => {
                next.errors.clear();
                next.warnings.clear();
            }
        }
        Rc::new(next)
    }
}
