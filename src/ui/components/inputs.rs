//! Small labelled inputs. Each emits the *text* of its new value; the reducer reads it through the
//! query vocabulary, so a typed bad value gets the same message as a bad link. Each input's id and
//! `data-testid` is its query key.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SelectProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub value: AttrValue,
    /// (group label, [(value, label)]); an empty group label means no <optgroup>.
    pub groups: Vec<(String, Vec<(String, String)>)>,
    pub onchange: Callback<String>,
}

#[function_component(Select)]
pub fn select(props: &SelectProps) -> Html {
    let onchange = {
        let cb = props.onchange.clone();
        Callback::from(move |e: Event| cb.emit(e.target_unchecked_into::<HtmlSelectElement>().value()))
    };
    let option = |(v, l): &(String, String)| {
        html! { <option value={v.clone()} selected={*v == *props.value}>{ l }</option> }
    };
    html! {
        <label class="field" for={props.id.clone()}>
            <span class="field-label">{ &props.label }</span>
            <select id={props.id.clone()} data-testid={props.id.clone()} {onchange}>
                { for props.groups.iter().map(|(group, options)| if group.is_empty() {
                    html! { for option in options.iter().map(option) { { option } } }
                } else {
                    html! { <optgroup label={group.clone()}>{ for options.iter().map(option) }</optgroup> }
                }) }
            </select>
        </label>
    }
}

#[derive(Properties, PartialEq)]
pub struct SegmentedProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub value: AttrValue,
    pub options: Vec<(String, String)>,
    pub onchange: Callback<String>,
}

/// A row of toggle buttons (a radio group): Tab reaches each, Enter or Space picks it.
#[function_component(Segmented)]
pub fn segmented(props: &SegmentedProps) -> Html {
    html! {
        <div class="field">
            <span class="field-label" id={format!("{}-label", props.id)}>{ &props.label }</span>
            <div class="segmented" role="radiogroup" aria-labelledby={format!("{}-label", props.id)} data-testid={props.id.clone()}>
                { for props.options.iter().map(|(v, l)| {
                    let checked = *v == *props.value;
                    let cb = props.onchange.clone();
                    let value = v.clone();
                    html! {
                        <button type="button" role="radio" aria-checked={checked.to_string()}
                            class={classes!("segment-option", checked.then_some("active"))}
                            data-value={v.clone()} onclick={move |_| cb.emit(value.clone())}>{ l }</button>
                    }
                }) }
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct NumberProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub value: AttrValue,
    #[prop_or_default]
    pub min: Option<AttrValue>,
    #[prop_or_default]
    pub max: Option<AttrValue>,
    #[prop_or(AttrValue::Static("1"))]
    pub step: AttrValue,
    pub onchange: Callback<String>,
}

/// A typed number; committed on change (Enter or leaving the field).
#[function_component(NumberInput)]
pub fn number_input(props: &NumberProps) -> Html {
    let onchange = {
        let cb = props.onchange.clone();
        Callback::from(move |e: Event| cb.emit(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    html! {
        <label class="field" for={props.id.clone()}>
            <span class="field-label">{ &props.label }</span>
            <input id={props.id.clone()} data-testid={props.id.clone()} type="number" inputmode="decimal"
                value={props.value.clone()} min={props.min.clone()} max={props.max.clone()} step={props.step.clone()} {onchange} />
        </label>
    }
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
                (value.max(1.0).log2().clamp(min_exp, max_exp) * steps_per_octave).round()
            }
        }
    }

    pub fn value_at(self, position: f64) -> u64 {
        match self {
            Scale::Log2 { steps_per_octave, .. } => 2f64.powf(position / steps_per_octave).round() as u64,
        }
    }

    fn range(self) -> (f64, f64, f64) {
        match self {
            Scale::Log2 { min_exp, max_exp, steps_per_octave } => {
                (min_exp * steps_per_octave, max_exp * steps_per_octave, 1.0)
            }
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct SliderProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub value: u64,
    pub scale: Scale,
    /// Bounds of the typed value (may exceed the slider's).
    pub typed_max: u64,
    pub onchange: Callback<String>,
}

/// A slider (updates on every input) with a typed number beside it.
#[function_component(Slider)]
pub fn slider(props: &SliderProps) -> Html {
    let (min, max, step) = props.scale.range();
    let oninput = {
        let cb = props.onchange.clone();
        let scale = props.scale;
        Callback::from(move |e: InputEvent| {
            let pos: f64 = e.target_unchecked_into::<HtmlInputElement>().value().parse().unwrap_or(0.0);
            cb.emit(scale.value_at(pos).to_string());
        })
    };
    let onchange_typed = {
        let cb = props.onchange.clone();
        Callback::from(move |e: Event| {
            cb.emit(e.target_unchecked_into::<HtmlInputElement>().value().trim().to_string())
        })
    };
    let position = props.scale.to_position(props.value as f64);
    html! {
        <div class="field slider-field">
            <label class="field-label" for={props.id.clone()}>{ &props.label }</label>
            <div class="slider-row">
                <input type="range" id={props.id.clone()} data-testid={props.id.clone()} min={min.to_string()} max={max.to_string()}
                    step={step.to_string()} value={position.to_string()} aria-valuetext={props.value.to_string()} {oninput} />
                <input type="number" class="slider-typed" data-testid={format!("{}-typed", props.id)} aria-label={props.label.clone()}
                    min="1" max={props.typed_max.to_string()} step="1" value={props.value.to_string()} onchange={onchange_typed} />
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct CheckboxProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub checked: bool,
    pub onchange: Callback<String>,
}

#[function_component(Checkbox)]
pub fn checkbox(props: &CheckboxProps) -> Html {
    let onchange = {
        let cb = props.onchange.clone();
        Callback::from(move |e: Event| {
            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
            cb.emit(if on { "1" } else { "0" }.to_string())
        })
    };
    html! {
        <label class="field checkbox" for={props.id.clone()}>
            <input type="checkbox" id={props.id.clone()} data-testid={props.id.clone()} checked={props.checked} {onchange} />
            <span class="field-label">{ &props.label }</span>
        </label>
    }
}
