//! Every control of the scenario vocabulary, each naming its query key. Controls that do not apply
//! to the current mode or method are not rendered (not merely disabled).

use crate::ledger::units::has;
use yew::prelude::*;

use super::inputs::{checkbox, number, optional_number, segmented, select, slider, text_field, Groups, Scale};
use crate::i18n::{text, Lang, Text};
use crate::ledger::architecture::VisionKind;
use crate::ledger::presets;
use crate::ledger::scenario::{
    Allocator, AttentionKernel, AttentionMask, Compile, Engine, Framework, Kernels, LoraTargets, LossKernel, Method,
    Mode, Objective, Offload, Optimizer, PpoUpdate, Precision, Recipe, Reference, Rollout, Scenario, TrainingLoop,
    Zero3Impl, GIB,
};
use crate::ledger::storage::{KvDtype, StorageFormat};
use crate::ledger::units::{fixed, trim_float};
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

fn one_group(options: Vec<(String, String)>) -> Groups {
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

/// Models grouped by family (with the year of each), filtered by the search box — an id, a name,
/// a family or a size such as "70b" (the current model always stays); a custom model (a pasted
/// config) is its own entry.
fn model_groups(s: &Scenario, filter: &str) -> Vec<(String, Vec<(String, String)>)> {
    let needle = filter.trim().to_ascii_lowercase();
    let mut families: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for m in presets::models() {
        let size = format!("{}B", fixed(m.architecture.parameters() as f64 / 1e9, 1));
        let hay = format!("{} {} {} {size} {}", m.id, m.architecture.name, m.family, m.year).to_ascii_lowercase();
        if !needle.is_empty() && !has(&hay, &needle) && s.model_id.as_deref() != Some(m.id) {
            continue;
        }
        let entry = (m.id.to_string(), format!("{} ({size}, {})", m.architecture.name, m.year));
        match families.iter_mut().find(|(f, _)| f == m.family) {
            Some((_, list)) => list.push(entry),
            None => families.push((m.family.to_string(), vec![entry])),
        }
    }
    if s.model_id.is_none() {
        families.insert(0, (String::new(), vec![("custom".into(), s.architecture.name.to_string())]));
    }
    families
}

/// The engines by name; `generate()` in the reader's language.
fn engine_options(lang: Lang) -> Vec<(String, String)> {
    Engine::ALL
        .iter()
        .map(|&e| {
            let label = if e == Engine::Hf { text(lang, Text::EngineHf) } else { e.name() };
            (e.id().to_string(), label.to_string())
        })
        .collect()
}

/// The releases offered for an engine (the empty value is the newest read).
fn releases(engine: Engine) -> &'static [(&'static str, &'static str)] {
    match engine {
        Engine::Vllm => &[
            ("", "0.33"),
            ("0.22", "0.22"),
            ("0.20", "0.20"),
            ("0.19", "0.19"),
            ("0.17", "0.17"),
            ("0.14", "0.14"),
            ("0.11", "0.11"),
            ("0.10", "0.10"),
            ("0.9", "0.9"),
            ("0.8.5", "0.8.5"),
            ("0.7", "0.7 (V0)"),
            ("0.6.4", "0.6.4 (V0)"),
        ],
        Engine::Sglang => &[
            ("", "0.5.23"),
            ("0.5.6", "0.5.6"),
            ("0.5.3", "0.5.3"),
            ("0.4.10", "0.4.10"),
            ("0.4.6", "0.4.6"),
            ("0.4.3", "0.4.3"),
        ],
        Engine::Llamacpp => &[("", "b7000+"), ("b6182", "b6182 (2025)"), ("b4500", "b4500 (early 2025)")],
        // transformers: where generate()'s memory rules changed (docs/research/transformers-inference-by-release.md).
        Engine::Hf => {
            &[("", "5.25"), ("4.53", "4.53"), ("4.48", "4.48"), ("4.45", "4.45"), ("4.44", "4.44"), ("4.41", "4.41")]
        }
    }
}

/// The settings of the engine that serves the model, with the engine's own defaults shown.
fn engine_controls(lang: Lang, s: &Scenario, set: &dyn Fn(Key) -> Callback<String>) -> Html {
    let e = &s.serving;
    let version = e.version.map(|v| v.to_string()).unwrap_or_default();
    if e.engine == Engine::Hf {
        let list = releases(e.engine).iter().map(|(v, l)| (v.to_string(), l.to_string())).collect();
        return select(Key::EngineVersion, lang, &version, one_group(list), set(Key::EngineVersion));
    }
    let served = crate::ledger::estimate(s).serving;
    let share = served.as_ref().map_or(String::new(), |sv| fixed(sv.share, 3));
    let release = select(
        Key::EngineVersion,
        lang,
        &version,
        one_group(releases(e.engine).iter().map(|(v, l)| (v.to_string(), l.to_string())).collect()),
        set(Key::EngineVersion),
    );
    let opt = |key: Key, v: Option<String>, default: String, step: &'static str| {
        optional_number(key, lang, v, default, step, set(key))
    };
    let text_of = |v: Option<u64>| v.map(|v| v.to_string());
    let float_of = |v: Option<f64>| v.map(crate::ledger::units::trim_float);
    match e.engine {
        Engine::Vllm => html! {
            <>
                { release }
                { opt(Key::GpuUtil, float_of(e.gpu_util), share, "0.01") }
                { opt(Key::MaxBatchedTokens, text_of(e.max_batched_tokens), text(lang, Text::EngineDefault).into(), "256") }
                { opt(Key::MaxNumSeqs, text_of(e.max_num_seqs), text(lang, Text::EngineDefault).into(), "1") }
                { opt(Key::BlockSize, text_of(e.block_size), if s.architecture.mla.is_some() { "64".into() } else { "16".into() }, "16") }
                { checkbox(Key::CudaGraphs, lang, e.cuda_graphs, set(Key::CudaGraphs)) }
                { addon_controls(lang, s, set) }
            </>
        },
        Engine::Sglang => html! {
            <>
                { release }
                { opt(Key::MemFraction, float_of(e.mem_fraction), share, "0.01") }
                { opt(Key::MaxBatchedTokens, text_of(e.max_batched_tokens), text(lang, Text::EngineDefault).into(), "256") }
                { checkbox(Key::CudaGraphs, lang, e.cuda_graphs, set(Key::CudaGraphs)) }
                { addon_controls(lang, s, set) }
            </>
        },
        _ => html! {
            <>
                { release }
                { opt(Key::GpuLayers, text_of(e.gpu_layers), (s.architecture.layers + 1).to_string(), "1") }
                { opt(Key::MaxBatchedTokens, text_of(e.max_batched_tokens), "512".into(), "64") }
            </>
        },
    }
}

/// What vLLM and SGLang add to a plain model: speculative decoding (its method, the draft model
/// of `spec=draft`, the tokens per step), served LoRA slots, a shared prefix and, for a VLM, the
/// images per prompt and their largest size (`mm_limit`, `max_pixels`; `mm_video` is a link key). The pool settings
/// of hybrid models (`swa_ratio`, `mamba_ratio`, `max_mamba_cache`) and `kv_cache_memory` are
/// link keys (docs/query-keys.md).
fn addon_controls(lang: Lang, s: &Scenario, set: &dyn Fn(Key) -> Callback<String>) -> Html {
    use crate::ledger::scenario::SpecMethod;
    let e = &s.serving;
    let methods = SpecMethod::ALL.iter().map(|m| (m.id().to_string(), m.id().to_string())).collect();
    // The presets as the model select lists them (a custom model, the unnamed group, cannot draft).
    let draft_models = || {
        let mut groups = one_group(vec![("none".to_string(), "—".to_string())]);
        groups.extend(model_groups(s, "").into_iter().filter(|(family, _)| !family.is_empty()));
        select(Key::SpecModel, lang, e.spec_model.unwrap_or("none"), groups, set(Key::SpecModel))
    };
    // Checked: `max_model_len=auto`; cleared: the key goes (the context is `seq` + `gen`).
    let auto = set(Key::MaxModelLen).reform(|on: String| if on == "1" { "auto".to_string() } else { String::new() });
    html! {
        <>
            { checkbox(Key::MaxModelLen, lang, e.max_model_len_auto, auto) }
            { select(Key::Spec, lang, e.spec.id(), one_group(methods), set(Key::Spec)) }
            if e.spec == SpecMethod::Draft { { draft_models() } }
            if e.spec != SpecMethod::None {
                { optional_number(Key::SpecTokens, lang, e.spec_tokens.map(|v| v.to_string()), crate::ledger::serving::default_spec_tokens(e.spec).to_string(), "1", set(Key::SpecTokens)) }
            }
            { number(Key::MaxLoras, lang, e.max_loras.to_string(), "0", "1", set(Key::MaxLoras)) }
            if e.max_loras > 0 {
                { optional_number(Key::MaxLoraRank, lang, e.max_lora_rank.map(|v| v.to_string()), crate::ledger::serving::DEFAULT_LORA_RANK.to_string(), "8", set(Key::MaxLoraRank)) }
            }
            { number(Key::PrefixShare, lang, crate::ledger::units::trim_float(e.prefix_share), "0", "0.05", set(Key::PrefixShare)) }
            if s.architecture.vision.is_some() {
                { optional_number(Key::MmLimit, lang, e.mm_limit.map(|v| v.to_string()), "999".to_string(), "1", set(Key::MmLimit)) }
            }
            if let Some(pixels) = s.architecture.vision.as_ref().and_then(crate::ledger::serving::max_pixels_of) {
                { optional_number(Key::MaxPixels, lang, e.max_pixels.map(|v| v.to_string()), pixels.to_string(), "1", set(Key::MaxPixels)) }
            }
        </>
    }
}

/// "I train with": the framework and its release, whose defaults fill the keys the link leaves out.
fn framework_controls(lang: Lang, s: &Scenario, set: &dyn Fn(Key) -> Callback<String>) -> Html {
    use crate::ledger::framework::releases;
    let frameworks = Framework::ALL.iter().map(|f| (f.id().to_string(), f.name().to_string())).collect();
    let framework = select(Key::Framework, lang, s.framework.id(), one_group(frameworks), set(Key::Framework));
    let read = releases(s.framework);
    let Some(newest) = read.last() else { return framework };
    // The newest release is the default: its option is the key's absence.
    let mut list = vec![(String::new(), newest.to_string())];
    list.extend(read.iter().rev().skip(1).map(|r| (r.to_string(), r.to_string())));
    let chosen = s.framework_version.map(|v| v.to_string()).unwrap_or_default();
    if !chosen.is_empty() && !list.iter().any(|(v, _)| *v == chosen) {
        list.push((chosen.clone(), chosen.clone()));
    }
    html! {
        <>
            { framework }
            { select(Key::FrameworkVersion, lang, &chosen, one_group(list), set(Key::FrameworkVersion)) }
        </>
    }
}

/// The preference / RL settings of a training step: the objective, and what it needs (DPO's
/// reference; GRPO's and PPO's completions, rollout engine, KL weight; PPO's critic and reward).
fn rl_controls(lang: Lang, s: &Scenario, set: &dyn Fn(Key) -> Callback<String>) -> Html {
    let rl = &s.rl;
    let pick = |key: Key, value: &str, list: Vec<(String, String)>| select(key, lang, value, one_group(list), set(key));
    let count = |key: Key, value: u64, min: &'static str| number(key, lang, value.to_string(), min, "1", set(key));
    let objective = pick(Key::Objective, rl.objective.id(), options(Objective::ALL, Objective::id));
    let generates = s.generates();
    let reference = match s.reference() {
        Some(r) => pick(Key::Ref, r.id(), options(Reference::ALL, Reference::id)),
        None => html! {},
    };
    let presets_list = || presets::models().iter().map(|m| (m.id.to_string(), m.id.to_string())).collect::<Vec<_>>();
    let mut rewards = vec![("none".to_string(), "none".to_string())];
    rewards.extend(presets_list());
    let engine_on_card = matches!(rl.rollout, Rollout::Colocate | Rollout::Shared);
    html! {
        <>
            { objective }
            if generates {
                { count(Key::Generations, rl.generations, "1") }
                { count(Key::PromptLen, rl.prompt_len, "1") }
                { count(Key::CompletionLen, rl.completion_len, "1") }
                { segmented(Key::Rollout, lang, rl.rollout.id(), options(Rollout::ALL, Rollout::id), set(Key::Rollout)) }
                if engine_on_card {
                    { number(Key::RolloutUtil, lang, trim_float(rl.rollout_util), "0.01", "0.05", set(Key::RolloutUtil)) }
                    { segmented(Key::Sleep, lang, &rl.sleep.to_string(), (0..=2).map(|l| (l.to_string(), l.to_string())).collect(), set(Key::Sleep)) }
                }
                { number(Key::Beta, lang, trim_float(rl.beta), "0", "0.01", set(Key::Beta)) }
            }
            { reference }
            if rl.objective != Objective::Sft {
                { optional_number(Key::LogprobBatch, lang, rl.logprob_batch.map(|v| v.to_string()), s.batch.to_string(), "1", set(Key::LogprobBatch)) }
            }
            if rl.objective == Objective::Ppo {
                { pick(Key::Critic, rl.critic.unwrap_or(s.model_id.as_deref().unwrap_or("")), presets_list()) }
                { pick(Key::Reward, rl.reward.unwrap_or("none"), rewards) }
                { pick(Key::PpoUpdate, rl.ppo_update.id(), options(PpoUpdate::ALL, PpoUpdate::id)) }
            }
        </>
    }
}

#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let (lang, s) = (props.lang, &props.scenario);
    let set = |key: Key| props.onset.reform(move |v: String| (key, v));
    let filter = use_state(String::new);

    let train = s.mode == Mode::Train;
    let adapters = train && s.method != Method::Full;
    let quants = quant_options(s);

    let log2 = |min_exp, max_exp, steps_per_octave| Scale::Log2 { min_exp, max_exp, steps_per_octave };
    let seq_slider = slider(Key::Seq, lang, s.seq, log2(7.0, 20.0, 4.0), 100_000_000, set(Key::Seq));
    let batch_slider = slider(Key::Batch, lang, s.batch, log2(0.0, 10.0, 1.0), 65_536, set(Key::Batch));
    let rank_slider = if adapters {
        slider(Key::Rank, lang, s.rank, log2(0.0, 10.0, 1.0), 65_536, set(Key::Rank))
    } else {
        html! {}
    };
    let quant_choice = if quants.is_empty() {
        html! {}
    } else {
        segmented(Key::Quant, lang, s.quant.id(), options(&quants, StorageFormat::id), set(Key::Quant))
    };

    if props.compact {
        return html! {
            <section class="controls compact" aria-label={text(lang, Text::Settings)}>
                <div class="control-grid">{ seq_slider }{ batch_slider }{ rank_slider }{ quant_choice }</div>
            </section>
        };
    }

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
    let pick = |key: Key, value: &str, list: Vec<(String, String)>| select(key, lang, value, one_group(list), set(key));
    let count = |key: Key, value: u64, min: &'static str| number(key, lang, value.to_string(), min, "1", set(key));
    // Checkpointing turned on takes the framework's implementation (Unsloth's offloaded one, say).
    let on_gc = {
        let framework_gc = crate::ledger::framework::defaults_for(s).checkpointing;
        let on = if framework_gc.is_on() { framework_gc.id() } else { "1" };
        set(Key::Gc).reform(move |v: String| if v == "1" { on.to_string() } else { v })
    };

    html! {
        <section class="controls" aria-label={text(lang, Text::Settings)}>
            <div class="control-grid">
                <div class="model-picker">
                    <input type="search" class="model-search" data-testid="model-search" placeholder={text(lang, Text::SearchModels)}
                        aria-label={text(lang, Text::SearchModels)} value={(*filter).clone()} oninput={on_filter} />
                    { select(Key::Model, lang, s.model_id.as_deref().unwrap_or("custom"), model_groups(s, &filter), set(Key::Model)) }
                </div>
                { select(Key::Gpu, lang, s.gpu.id.unwrap_or("custom"), gpu_groups, on_gpu) }
                { number(Key::Vram, lang, fixed(s.gpu.bytes as f64 / GIB, 2), "0.001", "any", set(Key::Vram)) }
                { segmented(Key::Mode, lang, s.mode.id(), mode_options, set(Key::Mode)) }
                if train {
                    { framework_controls(lang, s, &set) }
                    { segmented(Key::Method, lang, s.method.id(), method_options, set(Key::Method)) }
                    { rl_controls(lang, s, &set) }
                }
                if !s.generates() {
                    { seq_slider }
                }
                { batch_slider }
                { rank_slider }
                if adapters {
                    { segmented(Key::Targets, lang, s.targets.id(), options(LoraTargets::ALL, LoraTargets::id), set(Key::Targets)) }
                    { pick(Key::Recipe, s.recipe().id(), options(Recipe::ALL, Recipe::id)) }
                    { number(Key::LoraDropout, lang, trim_float(s.lora_dropout), "0", "0.05", set(Key::LoraDropout)) }
                }
                { quant_choice }
                if train {
                    { pick(Key::Precision, s.precision.id(), options(Precision::ALL, Precision::id)) }
                    { pick(Key::Optim, s.optimizer.id(), options(Optimizer::ALL, Optimizer::id)) }
                    { checkbox(Key::Gc, lang, s.checkpointing.is_on(), on_gc) }
                    { pick(Key::Compile, s.compile.id(), options(Compile::ALL, Compile::id)) }
                    { count(Key::Accum, s.accum, "1") }
                    { pick(Key::Loss, s.loss().id(), options(LossKernel::ALL, LossKernel::id)) }
                    { pick(Key::Kernels, s.kernels.id(), options(Kernels::ALL, Kernels::id)) }
                    { pick(Key::Loop, s.training_loop.id(), options(TrainingLoop::ALL, TrainingLoop::id)) }
                    { pick(Key::Alloc, s.alloc.id(), options(Allocator::ALL, Allocator::id)) }
                    { pick(Key::Zero, &s.zero.to_string(), zero_options) }
                    if matches!(s.zero, 1 | 2) {
                        { count(Key::ReduceBucketSize, s.reduce_bucket_size, "1") }
                        { checkbox(Key::OverlapComm, lang, s.overlap_comm, set(Key::OverlapComm)) }
                    }
                    if s.zero == 3 {
                        { pick(Key::Zero3, s.zero3.id(), options(Zero3Impl::ALL, Zero3Impl::id)) }
                        if s.zero3 == Zero3Impl::Fsdp {
                            { checkbox(Key::SyncModuleStates, lang, s.sync_module_states, set(Key::SyncModuleStates)) }
                        }
                    }
                    if s.zero > 0 {
                        { pick(Key::Offload, s.offload.id(), options(Offload::ALL, Offload::id)) }
                    }
                } else {
                    { pick(Key::Kv, s.kv.id(), options(&KvDtype::ALL, KvDtype::id)) }
                    { count(Key::Gen, s.generated, "0") }
                    { segmented(Key::Engine, lang, s.serving.engine.id(), engine_options(lang), set(Key::Engine)) }
                    if s.serving.engine == Engine::Hf {
                        { pick(Key::Mask, s.mask.id(), options(AttentionMask::ALL, AttentionMask::id)) }
                    }
                    { engine_controls(lang, s, &set) }
                }
                { pick(Key::Attn, s.attention.id(), options(AttentionKernel::ALL, AttentionKernel::id)) }
                { count(Key::Gpus, s.gpus, "1") }
                if s.architecture.vision.is_some() {
                    { count(Key::Images, s.images, "0") }
                    { text_field(Key::ImagePx, lang, s.image.text(), set(Key::ImagePx)) }
                    if let Some(v) = s.architecture.vision.filter(|v| v.kind == VisionKind::Gemma4) {
                        { number(Key::MaxSoftTokens, lang, v.max_tokens.to_string(), "70", "70", set(Key::MaxSoftTokens)) }
                    }
                }
            </div>
        </section>
    }
}
