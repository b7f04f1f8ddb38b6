//! A Megatron-style training grid (issue 28): its pipeline stages as one bar each — a run of
//! stages that need the same is one bar — with the GPUs that hold each stage, the worst named; and
//! what each grid lever would make of the worst GPU. The bill comes from the reader worker
//! (`readers::grid`); `pending` while it has not answered for the current query.

use yew::prelude::*;

use crate::i18n::{text, Lang, Text};
use crate::ledger::bill::{Bill, Timeline};
use crate::ledger::units::{fixed, format_bytes, Unit};
use crate::query::Key;

/// `onset` applies a lever (its key and value), as the planner's levers do.
pub fn grid_view(
    lang: Lang,
    unit: Unit,
    bill: &Bill,
    levers: &[(String, String, u64)],
    experts: Option<&(String, String)>,
    pending: bool,
    onset: &Callback<(Key, String)>,
) -> Html {
    let Some(p) = &bill.parallel else { return html! {} };
    let l = &p.layout;
    // Stages that need the same bytes with as many layers, merged: (first, last, layers, device).
    let mut runs: Vec<(u64, u64, u64, u64)> = Vec::new();
    for r in &p.ranks {
        match runs.last_mut() {
            Some(last) if last.2 == r.layers && last.3 == r.device_bytes => last.1 = r.stage,
            _ => runs.push((r.stage, r.stage, r.layers, r.device_bytes)),
        }
    }
    let per_stage = l.tp * l.cp * l.dp;
    let bar = |&(first, last, layers, device): &(u64, u64, u64, u64)| {
        let worst = (first..=last).contains(&p.worst_stage);
        let stages = if first == last { first.to_string() } else { format!("{first}–{last}") };
        html! {
            <li class={classes!("grid-stage", worst.then_some("worst"))} data-testid={format!("grid-stage-{first}")} data-bytes={device.to_string()}
                style={format!("--w:{}%", fixed((100.0 * device as f64 / bill.gpu_bytes.max(1) as f64).min(100.0), 1))}>
                { format!("{} {stages} · {layers} {} · {per_stage} GPU · {}{}", text(lang, Text::GridStage), text(lang, Text::GridLayers), format_bytes(device, unit), if worst { text(lang, Text::GridWorst) } else { "" }) }
            </li>
        }
    };
    // A served grid's levers say the requests it holds at once (the engine fills its share of each
    // card whatever the grid); a training grid's and a device map's, the worst GPU's bytes.
    let effect = |after: u64| match &bill.serving {
        Some(sv) => format!(" {}× → {}×", fixed(sv.effective_concurrency, 2), fixed(after as f64 / 100.0, 2)),
        None => format!(" {} → {}", format_bytes(p.worst_bytes, unit), format_bytes(after, unit)),
    };
    let schedule = match bill.timeline {
        Timeline::Training(_) => format!(" · {}", l.schedule.id()),
        _ => String::new(),
    };
    html! {
        <section class="grid" data-testid="grid" data-pending={u8::from(pending).to_string()}>
            <h2>{ text(lang, Text::GridTitle) }</h2>
            <p class="tree-hint">{ format!("tp {} · pp {} · ep {} · etp {} · cp {} · dp {} = {} GPU{schedule}{}", l.tp, l.pp, l.ep, l.etp, l.cp, l.dp, l.gpus(), if pending { text(lang, Text::GridPending) } else { "" }) }</p>
            <ol class="grid-stages">{ for runs.iter().map(bar) }</ol>
            if let Some((en, zh)) = experts {
                <p class="tree-hint" data-testid="grid-experts">{ super::code_spans(if lang == Lang::Zh { zh } else { en }) }</p>
            }
            <p class="tree-hint">{ text(lang, Text::GridLevers) }</p>
            <ul class="grid-levers">{ for levers.iter().map(|(key, value, after)| grid_lever(key, value, *after, effect(*after), onset.clone())) }</ul>
        </section>
    }
}

/// One grid lever (`key=value`, as the reader worker listed it with the bill after it) as a
/// button that applies it, and `effect`, what it makes of the bill. The grid view and the OOM
/// tree's sharding card show them.
pub fn grid_lever(key: &str, value: &str, after: u64, effect: String, onset: Callback<(Key, String)>) -> Html {
    let set = Key::from_name(key).map(|k| (k, value.to_string()));
    let onclick = Callback::from(move |_: MouseEvent| {
        if let Some(set) = set.clone() {
            onset.emit(set);
        }
    });
    html! {
        <li data-testid={format!("grid-lever-{key}")} data-after={after.to_string()}>
            <button type="button" class="lever" {onclick}>{ format!("{key}={value}") }</button>
            { effect }
        </li>
    }
}
