//! Every control of the scenario vocabulary. Controls that do not apply to the current mode or
//! method are not rendered (not merely disabled).

use yew::prelude::*;

use super::inputs::{checkbox, number_input, segmented, select, slider, CheckboxProps, NumberProps, Scale, SegmentedProps, SelectProps, SliderProps};
use crate::i18n::{text, Lang, Text};
use crate::ledger::presets;
use crate::ledger::scenario::{AttentionKernel, LoraTargets, LossKernel, Method, Mode, Optimizer, Precision, Scenario, GIB};
use crate::ledger::storage::{KvDtype, StorageFormat};
use crate::ledger::units::fixed;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub lang: Lang,
    pub scenario: Scenario,
    /// (key, value) in the query vocabulary.
    pub onset: Callback<(&'static str, String)>,
    /// Embed mode: only the main sliders (sequence, batch, rank, weight format).
    #[prop_or_default]
    pub compact: bool,
}

fn ids<T: Copy>(all: &[T], id: impl Fn(T) -> &'static str) -> Vec<(String, String)> {
    all.iter().map(|&v| (id(v).to_string(), id(v).to_string())).collect()
}

#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let (lang, s) = (props.lang, &props.scenario);
    let set = |key: &'static str| {
        let cb = props.onset.clone();
        Callback::from(move |v: String| cb.emit((key, v)))
    };
    let t = |x: Text| AttrValue::from(text(lang, x));

    // Models grouped by family, filtered by the search box (the current model always stays); a
    // custom model (pasted config) is shown as its own entry.
    let filter = use_state(String::new);
    let needle = filter.trim().to_ascii_lowercase();
    let mut families: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for m in presets::models() {
        let hay = format!("{} {} {}", m.id, m.architecture.name, m.family).to_ascii_lowercase();
        if !needle.is_empty() && !hay.contains(&needle) && s.model_id.as_deref() != Some(m.id) {
            continue;
        }
        let entry = (m.id.to_string(), format!("{} ({}B)", m.architecture.name, fixed(m.architecture.parameters() as f64 / 1e9, 1)));
        match families.iter_mut().find(|(f, _)| f == m.family) {
            Some((_, list)) => list.push(entry),
            None => families.push((m.family.to_string(), vec![entry])),
        }
    }
    let model_value = s.model_id.clone().unwrap_or_else(|| "custom".into());
    if s.model_id.is_none() {
        families.insert(0, (String::new(), vec![("custom".into(), s.architecture.name.clone())]));
    }
    let gpus: Vec<(String, String)> = presets::GPUS.iter().map(|g| (g.id.to_string(), g.name.to_string())).collect();
    let mut gpu_groups = vec![(String::new(), gpus)];
    let gpu_value = match s.gpu.id {
        Some(id) => id.to_string(),
        None => {
            gpu_groups.insert(0, (String::new(), vec![("custom".into(), s.gpu.name.clone())]));
            "custom".into()
        }
    };
    let on_gpu = {
        let cb = props.onset.clone();
        Callback::from(move |v: String| if v != "custom" { cb.emit(("gpu", v)) })
    };

    let train = s.mode == Mode::Train;
    let adapters = train && s.method != Method::Full;
    let quant_options: Vec<StorageFormat> = match (s.mode, s.method) {
        (Mode::Infer, _) => StorageFormat::ALL.to_vec(),
        (Mode::Train, Method::Lora) => vec![StorageFormat::Bf16, StorageFormat::Fp16, StorageFormat::Fp8, StorageFormat::Int8, StorageFormat::Fp32],
        (Mode::Train, Method::Qlora) => vec![StorageFormat::Nf4, StorageFormat::Gptq4, StorageFormat::Awq4],
        (Mode::Train, Method::Full) => Vec::new(),
    };

    // The main sliders: the whole of the embed mode's controls, and part of the full page's.
    let seq_slider = html! {
        { slider(SliderProps { id: (AttrValue::from("seq")).into(), label: (t(Text::SeqLen)).into(), value: (s.seq).into(), scale: (Scale::Log2 { min_exp: 7.0, max_exp: 20.0, steps_per_octave: 4.0 }).into(), typed_max: 100_000_000, onchange: (set("seq")).into() }) }
    };
    let batch_slider = html! {
        { slider(SliderProps { id: (AttrValue::from("batch")).into(), label: (t(Text::Batch)).into(), value: (s.batch).into(), scale: (Scale::Log2 { min_exp: 0.0, max_exp: 10.0, steps_per_octave: 1.0 }).into(), typed_max: 65_536, onchange: (set("batch")).into() }) }
    };
    let rank_slider = html! {
        if adapters {
            { slider(SliderProps { id: (AttrValue::from("rank")).into(), label: (t(Text::Rank)).into(), value: (s.rank).into(), scale: (Scale::Log2 { min_exp: 0.0, max_exp: 10.0, steps_per_octave: 1.0 }).into(), typed_max: 65_536, onchange: (set("rank")).into() }) }
        }
    };
    let quant_choice = html! {
        if !quant_options.is_empty() {
            { segmented(SegmentedProps { id: (AttrValue::from("quant")).into(), label: (t(Text::Quant)).into(), value: (s.quant.id()).into(), options: (ids(&quant_options, StorageFormat::id)).into(), onchange: (set("quant")).into() }) }
        }
    };

    if props.compact {
        return html! {
            <section class="controls compact" aria-label={text(lang, Text::Settings)}>
                <div class="control-grid">{ seq_slider }{ batch_slider }{ rank_slider }{ quant_choice }</div>
            </section>
        };
    }

    html! {
        <section class="controls" aria-label={text(lang, Text::Settings)}>
            <div class="control-grid">
                <div class="model-picker">
                    <input type="search" class="model-search" data-testid="model-search" placeholder={text(lang, Text::SearchModels)}
                        aria-label={text(lang, Text::SearchModels)} value={(*filter).clone()}
                        oninput={{ let f = filter.clone(); Callback::from(move |e: InputEvent| f.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())) }} />
                    { select(SelectProps { id: (AttrValue::from("model")).into(), label: (t(Text::Model)).into(), value: (model_value).into(), groups: (families).into(), onchange: (set("model")).into() }) }
                </div>
                { select(SelectProps { id: (AttrValue::from("gpu")).into(), label: (t(Text::Gpu2)).into(), value: (gpu_value).into(), groups: (gpu_groups).into(), onchange: (on_gpu).into() }) }
                { number_input(NumberProps { id: (AttrValue::from("vram")).into(), label: (t(Text::CustomGib)).into(), value: (fixed(s.gpu.bytes as f64 / GIB, 2)).into(), min: (Some(AttrValue::from("0.001"))).into(), onchange: (set("vram")).into(), max: None, step: AttrValue::Static("any") }) }
                { segmented(SegmentedProps { id: (AttrValue::from("mode")).into(), label: (t(Text::Mode)).into(), value: (s.mode.id()).into(), options: (vec![("train".into(), text(lang, Text::Train).into()), ("infer".into(), text(lang, Text::Infer).into())]).into(), onchange: (set("mode")).into() }) }
                if train {
                    { segmented(SegmentedProps { id: (AttrValue::from("method")).into(), label: (t(Text::Method)).into(), value: (s.method.id()).into(), options: (vec![("full".into(), text(lang, Text::Full).into()), ("lora".into(), "LoRA".into()), ("qlora".into(), "QLoRA".into())]).into(), onchange: (set("method")).into() }) }
                }
                { seq_slider }
                { batch_slider }
                { rank_slider }
                if adapters {
                    { segmented(SegmentedProps { id: (AttrValue::from("targets")).into(), label: (t(Text::Targets)).into(), value: (s.targets.id()).into(), options: (ids(LoraTargets::ALL, LoraTargets::id)).into(), onchange: (set("targets")).into() }) }
                }
                { quant_choice }
                if train {
                    { select(SelectProps { id: (AttrValue::from("precision")).into(), label: (t(Text::Precision)).into(), value: (s.precision.id()).into(), groups: (vec![(String::new(), ids(Precision::ALL, Precision::id))]).into(), onchange: (set("precision")).into() }) }
                    { select(SelectProps { id: (AttrValue::from("optim")).into(), label: (t(Text::Optimizer)).into(), value: (s.optimizer.id()).into(), groups: (vec![(String::new(), ids(Optimizer::ALL, Optimizer::id))]).into(), onchange: (set("optim")).into() }) }
                    { checkbox(CheckboxProps { id: (AttrValue::from("gc")).into(), label: (t(Text::Checkpointing)).into(), checked: (s.gradient_checkpointing).into(), onchange: (set("gc")).into() }) }
                    { number_input(NumberProps { id: (AttrValue::from("accum")).into(), label: (t(Text::Accum)).into(), value: (s.accum.to_string()).into(), min: (Some(AttrValue::from("1"))).into(), step: (AttrValue::from("1")).into(), onchange: (set("accum")).into(), max: None }) }
                    { select(SelectProps { id: (AttrValue::from("loss")).into(), label: (t(Text::Loss)).into(), value: (s.loss.id()).into(), groups: (vec![(String::new(), ids(LossKernel::ALL, LossKernel::id))]).into(), onchange: (set("loss")).into() }) }
                    { select(SelectProps { id: (AttrValue::from("zero")).into(), label: (t(Text::Zero)).into(), value: (s.zero.to_string()).into(), groups: (vec![(String::new(), (0..=3).map(|z| (z.to_string(), format!("ZeRO-{z}{}", if z == 3 { " / FSDP" } else { "" }))).collect())]).into(), onchange: (set("zero")).into() }) }
                } else {
                    { select(SelectProps { id: (AttrValue::from("kv")).into(), label: (t(Text::KvDtype)).into(), value: (s.kv.id()).into(), groups: (vec![(String::new(), ids(&KvDtype::ALL, KvDtype::id))]).into(), onchange: (set("kv")).into() }) }
                    { number_input(NumberProps { id: (AttrValue::from("gen")).into(), label: (t(Text::Generated)).into(), value: (s.generated.to_string()).into(), min: (Some(AttrValue::from("0"))).into(), step: (AttrValue::from("1")).into(), onchange: (set("gen")).into(), max: None }) }
                }
                { select(SelectProps { id: (AttrValue::from("attn")).into(), label: (t(Text::Attention)).into(), value: (s.attention.id()).into(), groups: (vec![(String::new(), ids(AttentionKernel::ALL, AttentionKernel::id))]).into(), onchange: (set("attn")).into() }) }
                { number_input(NumberProps { id: (AttrValue::from("gpus")).into(), label: (t(Text::Gpus)).into(), value: (s.gpus.to_string()).into(), min: (Some(AttrValue::from("1"))).into(), step: (AttrValue::from("1")).into(), onchange: (set("gpus")).into(), max: None }) }
                if s.architecture.vision.is_some() {
                    { number_input(NumberProps { id: (AttrValue::from("images")).into(), label: (t(Text::Images)).into(), value: (s.images.to_string()).into(), min: (Some(AttrValue::from("0"))).into(), step: (AttrValue::from("1")).into(), onchange: (set("images")).into(), max: None }) }
                    { number_input(NumberProps { id: (AttrValue::from("image_px")).into(), label: (t(Text::ImagePx)).into(), value: (s.image_px.to_string()).into(), min: (Some(AttrValue::from("28"))).into(), step: (AttrValue::from("28")).into(), onchange: (set("image_px")).into(), max: None }) }
                }
            </div>
        </section>
    }
}
