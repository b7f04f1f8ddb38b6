//! Small labelled inputs, as view functions (they keep no state). Each names its query key — the
//! key is its id, its `data-testid` and the source of its label — and emits the *text* of its new
//! value; the reducer reads it through the query vocabulary, so a typed bad value gets the same
//! message as a bad link.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::i18n::{key_label, Lang};
use crate::query::Key;

/// (group label, [(value, label)]); an empty group label means no <optgroup>.
pub type Groups = Vec<(String, Vec<(String, String)>)>;

/// Rendering the page's first paint (index.html, before any wasm: `crate::ui::prerender`, whose
/// server renderer may run components on another thread), which nobody can use until the app takes
/// over: a select shows only its chosen option, so the model and GPU lists are not in the first
/// download twice (docs/size.md).
pub static FIRST_PAINT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A select of grouped options.
pub fn select(key: Key, lang: Lang, value: &str, groups: Groups, onchange: Callback<String>) -> Html {
    let onchange =
        Callback::from(move |e: Event| onchange.emit(e.target_unchecked_into::<HtmlSelectElement>().value()));
    let all = !FIRST_PAINT.load(std::sync::atomic::Ordering::Relaxed);
    let option = |(v, l): &(String, String)| {
        html! { if all || v == value { <option value={v.clone()} selected={v == value}>{ l }</option> } }
    };
    html! {
        <label class="field" for={key.name()}>
            <span class="field-label">{ key_label(lang, key) }</span>
            <select id={key.name()} data-testid={key.name()} {onchange}>
                { for groups.iter().map(|(group, options)| if group.is_empty() {
                    html! { for option in options.iter().map(option) { { option } } }
                } else {
                    html! { <optgroup label={group.clone()}>{ for options.iter().map(option) }</optgroup> }
                }) }
            </select>
        </label>
    }
}

/// A row of toggle buttons (a radio group): Tab reaches each, Enter or Space picks it.
pub fn segmented(
    key: Key,
    lang: Lang,
    value: &str,
    options: Vec<(String, String)>,
    onchange: Callback<String>,
) -> Html {
    let label_id = format!("{}-label", key.name());
    html! {
        <div class="field">
            <span class="field-label" id={label_id.clone()}>{ key_label(lang, key) }</span>
            <div class="segmented" role="radiogroup" aria-labelledby={label_id} data-testid={key.name()}>
                { for options.into_iter().map(|(v, l)| {
                    let checked = v == value;
                    let cb = onchange.clone();
                    let picked = v.clone();
                    html! {
                        <button type="button" role="radio" aria-checked={checked.to_string()}
                            class={classes!("segment-option", checked.then_some("active"))}
                            data-value={v} onclick={move |_| cb.emit(picked.clone())}>{ l }</button>
                    }
                }) }
            </div>
        </div>
    }
}

/// A typed field, committed on change (Enter or leaving the field): a number (`step` given) or a
/// text (`step` empty); an empty `placeholder` shows none.
fn typed(
    key: Key,
    lang: Lang,
    value: String,
    placeholder: String,
    min: &'static str,
    step: &'static str,
    onchange: Callback<String>,
) -> Html {
    let onchange = Callback::from(move |e: Event| onchange.emit(e.target_unchecked_into::<HtmlInputElement>().value()));
    let (kind, mode) = if step.is_empty() { ("text", "text") } else { ("number", "decimal") };
    html! {
        <label class="field" for={key.name()}>
            <span class="field-label">{ key_label(lang, key) }</span>
            <input id={key.name()} data-testid={key.name()} type={kind} inputmode={mode} {value} {placeholder} {min} {step} {onchange} />
        </label>
    }
}

/// A typed number.
pub fn number(
    key: Key,
    lang: Lang,
    value: String,
    min: &'static str,
    step: &'static str,
    onchange: Callback<String>,
) -> Html {
    typed(key, lang, value, String::new(), min, step, onchange)
}

/// A typed value that is not one number (`image_px`: `448` or `320x50`).
pub fn text_field(key: Key, lang: Lang, value: String, onchange: Callback<String>) -> Html {
    typed(key, lang, value, String::new(), "", "", onchange)
}

/// A typed number that may be left empty for the engine's own default, which the placeholder shows.
pub fn optional_number(
    key: Key,
    lang: Lang,
    value: Option<String>,
    default: String,
    step: &'static str,
    onchange: Callback<String>,
) -> Html {
    typed(key, lang, value.unwrap_or_default(), default, "0", step, onchange)
}

/// How a slider position maps to a value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// value = 2^position (position in quarter steps when `steps_per_octave` is 4).
    Log2 { min_exp: f64, max_exp: f64, steps_per_octave: f64 },
}

impl Scale {
    pub fn to_position(self, value: f64) -> f64 {
        match self {
            Scale::Log2 { min_exp, max_exp, steps_per_octave } => {
                (crate::ledger::units::within(value.max(1.0).log2(), min_exp, max_exp) * steps_per_octave).round()
            }
        }
    }

    pub fn value_at(self, position: f64) -> u64 {
        match self {
            Scale::Log2 { steps_per_octave, .. } => {
                // 2^(position / steps) for whole positions of 1 or 4 steps per octave: 2^octave
                // times the quarter-octave factor (not `powf`, which links libm's pow: 1 KB gzip).
                let steps = steps_per_octave.max(1.0) as i64;
                let p = position.round() as i64;
                let (octave, step) = (p.div_euclid(steps), p.rem_euclid(steps));
                const QUARTERS: [f64; 4] =
                    [1.0, 1.189_207_115_002_721, std::f64::consts::SQRT_2, 1.681_792_830_507_429];
                let fraction = if steps == 4 { QUARTERS[step as usize] } else { 1.0 };
                (2f64.powi(octave as i32) * fraction).round() as u64
            }
        }
    }

    fn range(self) -> (i64, i64) {
        match self {
            Scale::Log2 { min_exp, max_exp, steps_per_octave } => {
                ((min_exp * steps_per_octave) as i64, (max_exp * steps_per_octave) as i64)
            }
        }
    }
}

/// A slider (updates on every input) with a typed number beside it (committed on change).
pub fn slider(key: Key, lang: Lang, value: u64, scale: Scale, typed_max: u64, onchange: Callback<String>) -> Html {
    let (min, max) = scale.range();
    let oninput = {
        let cb = onchange.clone();
        Callback::from(move |e: InputEvent| {
            let pos: f64 = crate::ledger::units::parse_decimal(&e.target_unchecked_into::<HtmlInputElement>().value())
                .unwrap_or(0.0);
            cb.emit(scale.value_at(pos).to_string());
        })
    };
    let onchange_typed = Callback::from(move |e: Event| {
        onchange.emit(e.target_unchecked_into::<HtmlInputElement>().value().trim().to_string())
    });
    let label = key_label(lang, key);
    html! {
        <div class="field slider-field">
            <label class="field-label" for={key.name()}>{ label }</label>
            <div class="slider-row">
                <input type="range" id={key.name()} data-testid={key.name()} min={min.to_string()} max={max.to_string()}
                    step="1" value={(scale.to_position(value as f64) as i64).to_string()} aria-valuetext={value.to_string()} {oninput} />
                <input type="number" class="slider-typed" data-testid={format!("{}-typed", key.name())} aria-label={label}
                    min="1" max={typed_max.to_string()} step="1" value={value.to_string()} onchange={onchange_typed} />
            </div>
        </div>
    }
}

/// A checkbox whose value is `1` or `0`.
pub fn checkbox(key: Key, lang: Lang, checked: bool, onchange: Callback<String>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let on = e.target_unchecked_into::<HtmlInputElement>().checked();
        onchange.emit(if on { "1" } else { "0" }.to_string())
    });
    html! {
        <label class="field checkbox" for={key.name()}>
            <input type="checkbox" id={key.name()} data-testid={key.name()} {checked} {onchange} />
            <span class="field-label">{ key_label(lang, key) }</span>
        </label>
    }
}
