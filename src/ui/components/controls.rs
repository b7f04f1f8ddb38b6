//! Every control of the scenario vocabulary. Controls that do not apply to the current mode or
//! method are not rendered (not merely disabled).

use yew::prelude::*;

use super::inputs::{Checkbox, NumberInput, Scale, Segmented, Select, Slider};
use crate::i18n::{text, Lang, Text};
use crate::ledger::presets;
use crate::ledger::scenario::{AttentionKernel, LoraTargets, Method, Mode, Optimizer, Precision, Scenario, GIB};
use crate::ledger::storage::{KvDtype, StorageFormat};

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
    let needle = filter.trim().to_lowercase();
    let mut families: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for m in presets::models() {
        let hay = format!("{} {} {}", m.id, m.architecture.name, m.family).to_lowercase();
        if !needle.is_empty() && !hay.contains(&needle) && s.model_id.as_deref() != Some(m.id) {
            continue;
        }
        let entry = (m.id.to_string(), format!("{} ({:.1}B)", m.architecture.name, m.architecture.parameters() as f64 / 1e9));
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
        <Slider id="seq" label={t(Text::SeqLen)} value={s.seq}
            scale={Scale::Log2 { min_exp: 7.0, max_exp: 20.0, steps_per_octave: 4.0 }} typed_max={100_000_000} onchange={set("seq")} />
    };
    let batch_slider = html! {
        <Slider id="batch" label={t(Text::Batch)} value={s.batch}
            scale={Scale::Log2 { min_exp: 0.0, max_exp: 10.0, steps_per_octave: 1.0 }} typed_max={65_536} onchange={set("batch")} />
    };
    let rank_slider = html! {
        if adapters {
            <Slider id="rank" label={t(Text::Rank)} value={s.rank}
                scale={Scale::Log2 { min_exp: 0.0, max_exp: 10.0, steps_per_octave: 1.0 }} typed_max={65_536} onchange={set("rank")} />
        }
    };
    let quant_choice = html! {
        if !quant_options.is_empty() {
            <Segmented id="quant" label={t(Text::Quant)} value={s.quant.id()} options={ids(&quant_options, StorageFormat::id)} onchange={set("quant")} />
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
                    <Select id="model" label={t(Text::Model)} value={model_value} groups={families} onchange={set("model")} />
                </div>
                <Select id="gpu" label={t(Text::Gpu2)} value={gpu_value} groups={gpu_groups} onchange={on_gpu} />
                <NumberInput id="vram" label={t(Text::CustomGib)} value={format!("{:.2}", s.gpu.bytes as f64 / GIB)} min={Some(AttrValue::from("0.001"))} onchange={set("vram")} />
                <Segmented id="mode" label={t(Text::Mode)} value={s.mode.id()}
                    options={vec![("train".into(), text(lang, Text::Train).into()), ("infer".into(), text(lang, Text::Infer).into())]} onchange={set("mode")} />
                if train {
                    <Segmented id="method" label={t(Text::Method)} value={s.method.id()}
                        options={vec![("full".into(), text(lang, Text::Full).into()), ("lora".into(), "LoRA".into()), ("qlora".into(), "QLoRA".into())]}
                        onchange={set("method")} />
                }
                { seq_slider }
                { batch_slider }
                { rank_slider }
                if adapters {
                    <Segmented id="targets" label={t(Text::Targets)} value={s.targets.id()} options={ids(LoraTargets::ALL, LoraTargets::id)} onchange={set("targets")} />
                }
                { quant_choice }
                if train {
                    <Select id="precision" label={t(Text::Precision)} value={s.precision.id()} groups={vec![(String::new(), ids(Precision::ALL, Precision::id))]} onchange={set("precision")} />
                    <Select id="optim" label={t(Text::Optimizer)} value={s.optimizer.id()} groups={vec![(String::new(), ids(Optimizer::ALL, Optimizer::id))]} onchange={set("optim")} />
                    <Checkbox id="gc" label={t(Text::Checkpointing)} checked={s.gradient_checkpointing} onchange={set("gc")} />
                    <NumberInput id="accum" label={t(Text::Accum)} value={s.accum.to_string()} min={Some(AttrValue::from("1"))} step="1" onchange={set("accum")} />
                    <Select id="zero" label={t(Text::Zero)} value={s.zero.to_string()}
                        groups={vec![(String::new(), (0..=3).map(|z| (z.to_string(), format!("ZeRO-{z}{}", if z == 3 { " / FSDP" } else { "" }))).collect())]} onchange={set("zero")} />
                } else {
                    <Select id="kv" label={t(Text::KvDtype)} value={s.kv.id()} groups={vec![(String::new(), ids(&KvDtype::ALL, KvDtype::id))]} onchange={set("kv")} />
                    <NumberInput id="gen" label={t(Text::Generated)} value={s.generated.to_string()} min={Some(AttrValue::from("0"))} step="1" onchange={set("gen")} />
                }
                <Select id="attn" label={t(Text::Attention)} value={s.attention.id()} groups={vec![(String::new(), ids(AttentionKernel::ALL, AttentionKernel::id))]} onchange={set("attn")} />
                <NumberInput id="gpus" label={t(Text::Gpus)} value={s.gpus.to_string()} min={Some(AttrValue::from("1"))} step="1" onchange={set("gpus")} />
                if s.architecture.vision.is_some() {
                    <NumberInput id="images" label={t(Text::Images)} value={s.images.to_string()} min={Some(AttrValue::from("0"))} step="1" onchange={set("images")} />
                    <NumberInput id="image_px" label={t(Text::ImagePx)} value={s.image_px.to_string()} min={Some(AttrValue::from("28"))} step="28" onchange={set("image_px")} />
                }
            </div>
        </section>
    }
}
