//! Every control of the scenario vocabulary, each naming its query key. Controls that do not apply
//! to the current mode or method are not rendered (not merely disabled).

use yew::prelude::*;

use super::inputs::{Checkbox, NumberInput, Scale, Segmented, Select, Slider};
use crate::i18n::{key_label, text, Lang, Text};
use crate::ledger::presets;
use crate::ledger::scenario::{AttentionKernel, LossKernel, Method, Mode, Optimizer, Precision, Scenario, GIB};
use crate::ledger::storage::{KvDtype, StorageFormat};
use crate::ledger::units::fixed;
use crate::query::Key;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub lang: Lang,
    pub scenario: Scenario,
    /// (key, value) in the query vocabulary.
    pub onset: Callback<(Key, String)>,
    /// Embed mode: only the main sliders (sequence, batch, rank, weight format).
    #[prop_or_default]
    pub compact: bool,
}

fn options<T: Copy>(all: &[T], id: impl Fn(T) -> &'static str) -> Vec<(String, String)> {
    all.iter().map(|&v| (id(v).to_string(), id(v).to_string())).collect()
}

fn one_group(options: Vec<(String, String)>) -> Vec<(String, Vec<(String, String)>)> {
    vec![(String::new(), options)]
}

/// The weight formats a mode and method can use.
fn quant_options(s: &Scenario) -> Vec<StorageFormat> {
    match (s.mode, s.method) {
        (Mode::Infer, _) => StorageFormat::ALL.to_vec(),
        (Mode::Train, Method::Lora) => {
            vec![StorageFormat::Bf16, StorageFormat::Fp16, StorageFormat::Fp8, StorageFormat::Int8, StorageFormat::Fp32]
        }
        (Mode::Train, Method::Qlora) => vec![StorageFormat::Nf4, StorageFormat::Gptq4, StorageFormat::Awq4],
        (Mode::Train, Method::Full) => Vec::new(),
    }
}

/// Models grouped by family, filtered by the search box (the current model always stays); a custom
/// model (a pasted config) is its own entry.
fn model_groups(s: &Scenario, filter: &str) -> Vec<(String, Vec<(String, String)>)> {
    let needle = filter.trim().to_ascii_lowercase();
    let mut families: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for m in presets::models() {
        let hay = format!("{} {} {}", m.id, m.architecture.name, m.family).to_ascii_lowercase();
        if !needle.is_empty() && !hay.contains(&needle) && s.model_id.as_deref() != Some(m.id) {
            continue;
        }
        let entry = (
            m.id.to_string(),
            format!("{} ({}B)", m.architecture.name, fixed(m.architecture.parameters() as f64 / 1e9, 1)),
        );
        match families.iter_mut().find(|(f, _)| f == m.family) {
            Some((_, list)) => list.push(entry),
            None => families.push((m.family.to_string(), vec![entry])),
        }
    }
    if s.model_id.is_none() {
        families.insert(0, (String::new(), vec![("custom".into(), s.architecture.name.clone())]));
    }
    families
}

#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let (lang, s) = (props.lang, &props.scenario);
    let set = |key: Key| props.onset.reform(move |v: String| (key, v));
    let label = |key: Key| AttrValue::from(key_label(lang, key));
    let id = |key: Key| AttrValue::from(key.name());
    let filter = use_state(String::new);

    let train = s.mode == Mode::Train;
    let adapters = train && s.method != Method::Full;
    let quants = quant_options(s);

    let log2 = |min_exp, max_exp, steps_per_octave| Scale::Log2 { min_exp, max_exp, steps_per_octave };
    let seq_slider = html! {
        <Slider id={id(Key::Seq)} label={label(Key::Seq)} value={s.seq} scale={log2(7.0, 20.0, 4.0)} typed_max={100_000_000} onchange={set(Key::Seq)} />
    };
    let batch_slider = html! {
        <Slider id={id(Key::Batch)} label={label(Key::Batch)} value={s.batch} scale={log2(0.0, 10.0, 1.0)} typed_max={65_536} onchange={set(Key::Batch)} />
    };
    let rank_slider = html! {
        if adapters {
            <Slider id={id(Key::Rank)} label={label(Key::Rank)} value={s.rank} scale={log2(0.0, 10.0, 1.0)} typed_max={65_536} onchange={set(Key::Rank)} />
        }
    };
    let quant_choice = html! {
        if !quants.is_empty() {
            <Segmented id={id(Key::Quant)} label={label(Key::Quant)} value={s.quant.id()} options={options(&quants, StorageFormat::id)} onchange={set(Key::Quant)} />
        }
    };

    if props.compact {
        return html! {
            <section class="controls compact" aria-label={text(lang, Text::Settings)}>
                <div class="control-grid">{ seq_slider }{ batch_slider }{ rank_slider }{ quant_choice }</div>
            </section>
        };
    }

    let gpu_value = s.gpu.id.unwrap_or("custom");
    let mut gpu_groups = one_group(presets::GPUS.iter().map(|g| (g.id.to_string(), g.name.to_string())).collect());
    if s.gpu.id.is_none() {
        gpu_groups.insert(0, (String::new(), vec![("custom".into(), s.gpu.name.clone())]));
    }
    let on_gpu = {
        let cb = props.onset.clone();
        Callback::from(move |v: String| {
            if v != "custom" {
                cb.emit((Key::Gpu, v));
            }
        })
    };
    let on_filter = {
        let f = filter.clone();
        Callback::from(move |e: InputEvent| f.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value()))
    };
    let mode_options =
        vec![("train".into(), text(lang, Text::Train).into()), ("infer".into(), text(lang, Text::Infer).into())];
    let method_options = vec![
        ("full".into(), text(lang, Text::Full).into()),
        ("lora".into(), "LoRA".into()),
        ("qlora".into(), "QLoRA".into()),
    ];
    let zero_options =
        (0..=3).map(|z| (z.to_string(), format!("ZeRO-{z}{}", if z == 3 { " / FSDP" } else { "" }))).collect();
    let count = |key: Key, value: u64, min: &'static str| {
        html! {
            <NumberInput id={id(key)} label={label(key)} value={value.to_string()} min={Some(AttrValue::Static(min))} onchange={set(key)} />
        }
    };

    html! {
        <section class="controls" aria-label={text(lang, Text::Settings)}>
            <div class="control-grid">
                <div class="model-picker">
                    <input type="search" class="model-search" data-testid="model-search" placeholder={text(lang, Text::SearchModels)}
                        aria-label={text(lang, Text::SearchModels)} value={(*filter).clone()} oninput={on_filter} />
                    <Select id={id(Key::Model)} label={label(Key::Model)} value={s.model_id.clone().unwrap_or_else(|| "custom".into())}
                        groups={model_groups(s, &filter)} onchange={set(Key::Model)} />
                </div>
                <Select id={id(Key::Gpu)} label={label(Key::Gpu)} value={gpu_value} groups={gpu_groups} onchange={on_gpu} />
                <NumberInput id={id(Key::Vram)} label={label(Key::Vram)} value={fixed(s.gpu.bytes as f64 / GIB, 2)}
                    min={Some(AttrValue::Static("0.001"))} step={AttrValue::Static("any")} onchange={set(Key::Vram)} />
                <Segmented id={id(Key::Mode)} label={label(Key::Mode)} value={s.mode.id()} options={mode_options} onchange={set(Key::Mode)} />
                if train {
                    <Segmented id={id(Key::Method)} label={label(Key::Method)} value={s.method.id()} options={method_options} onchange={set(Key::Method)} />
                }
                { seq_slider }
                { batch_slider }
                { rank_slider }
                if adapters {
                    <Segmented id={id(Key::Targets)} label={label(Key::Targets)} value={s.targets.id()}
                        options={options(crate::ledger::scenario::LoraTargets::ALL, crate::ledger::scenario::LoraTargets::id)} onchange={set(Key::Targets)} />
                }
                { quant_choice }
                if train {
                    <Select id={id(Key::Precision)} label={label(Key::Precision)} value={s.precision.id()} groups={one_group(options(Precision::ALL, Precision::id))} onchange={set(Key::Precision)} />
                    <Select id={id(Key::Optim)} label={label(Key::Optim)} value={s.optimizer.id()} groups={one_group(options(Optimizer::ALL, Optimizer::id))} onchange={set(Key::Optim)} />
                    <Checkbox id={id(Key::Gc)} label={label(Key::Gc)} checked={s.gradient_checkpointing} onchange={set(Key::Gc)} />
                    { count(Key::Accum, s.accum, "1") }
                    <Select id={id(Key::Loss)} label={label(Key::Loss)} value={s.loss.id()} groups={one_group(options(LossKernel::ALL, LossKernel::id))} onchange={set(Key::Loss)} />
                    <Select id={id(Key::Zero)} label={label(Key::Zero)} value={s.zero.to_string()} groups={one_group(zero_options)} onchange={set(Key::Zero)} />
                } else {
                    <Select id={id(Key::Kv)} label={label(Key::Kv)} value={s.kv.id()} groups={one_group(options(&KvDtype::ALL, KvDtype::id))} onchange={set(Key::Kv)} />
                    { count(Key::Gen, s.generated, "0") }
                }
                <Select id={id(Key::Attn)} label={label(Key::Attn)} value={s.attention.id()} groups={one_group(options(AttentionKernel::ALL, AttentionKernel::id))} onchange={set(Key::Attn)} />
                { count(Key::Gpus, s.gpus, "1") }
                if s.architecture.vision.is_some() {
                    { count(Key::Images, s.images, "0") }
                    <NumberInput id={id(Key::ImagePx)} label={label(Key::ImagePx)} value={s.image_px.to_string()}
                        min={Some(AttrValue::Static("28"))} step={AttrValue::Static("28")} onchange={set(Key::ImagePx)} />
                }
            </div>
        </section>
    }
}
