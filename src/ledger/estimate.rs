//! From a scenario to its bill: training (full, LoRA, QLoRA; checkpointing; ZeRO/FSDP sharding) and
//! inference (weights, KV cache, prefill peak, logits), then the allocator's slack and the CUDA
//! context. Every component carries its formula with the scenario's numbers in it.

use super::activations::{
    final_norm_bytes_per_token, inference_layer_peak, training_layer, vision_block_peak, Trainable,
};
use super::architecture::Architecture;
use super::bill::{to_bytes, Bill, Component, ComponentId, Note};
use super::scenario::{Bitsandbytes, Method, Mode, Optimizer, Precision, Scenario, DRILL_KEPT_STEPS, MIB};
use super::storage::StorageFormat;
use super::units::{factor, fixed, group, human_bytes};
use super::weights::stored_weights;

/// The caching allocator's slack as a share of the tensors at peak (reserved − allocated): block
/// rounding and fragmentation. Sources report 5–15 % (formulas.md §1.7); training, with its many
/// short-lived tensors of changing size, sits higher than inference.
pub const SLACK_TRAINING: f64 = 0.07;
pub const SLACK_INFERENCE: f64 = 0.03;

struct Builder {
    components: Vec<Component>,
    notes: Vec<Note>,
    saved_logits: f64,
    backward_overlap: f64,
}

impl Builder {
    fn add(&mut self, id: ComponentId, bytes: f64, section: &'static str, formula: String) {
        self.components.push(Component { id, bytes: to_bytes(bytes), formula: formula.into(), section });
    }

    fn note(&mut self, key: &'static str, text: String) {
        self.notes.push(Note { key, text });
    }
}

/// The memory bill of one GPU for `s`.
pub fn estimate(s: &Scenario) -> Bill {
    let mut b = Builder { components: Vec::with_capacity(ComponentId::ALL.len()), notes: Vec::new(), saved_logits: 0.0, backward_overlap: 0.0 };
    match s.mode {
        Mode::Train => training(s, &mut b),
        Mode::Infer => inference(s, &mut b),
    }
    drill(s, &mut b);
    overheads(s, &mut b);
    zombie(s, &mut b);
    // Every id appears exactly once, in bill order, 0 where it does not apply.
    let mut components = Vec::with_capacity(ComponentId::ALL.len());
    for id in ComponentId::ALL {
        match b.components.iter().position(|c| c.id == id) {
            Some(i) => components.push(b.components.swap_remove(i)),
            None => components.push(Component { id, bytes: 0, formula: std::borrow::Cow::Borrowed("not used here"), section: "" }),
        }
    }
    Bill {
        components,
        gpu_bytes: s.gpu.bytes,
        notes: b.notes,
        saved_logits_bytes: to_bytes(b.saved_logits),
        backward_overlap_bytes: to_bytes(b.backward_overlap),
    }
}

/// Bytes of activations: 2 for bf16/fp16 compute, 4 for fp32.
fn activation_bytes(s: &Scenario) -> f64 {
    match (s.mode, s.method, s.precision) {
        (Mode::Train, Method::Full, Precision::Fp32) => 4.0,
        (Mode::Train, Method::Lora, Precision::Fp32) => 4.0,
        (Mode::Infer, _, _) if s.quant == StorageFormat::Fp32 => 4.0,
        _ => 2.0,
    }
}

/// Trainable adapter parameters: Σ r·(d_in + d_out) over adapted linears, all layers.
pub fn lora_parameters(arch: &Architecture, s: &Scenario) -> u64 {
    let per_layer: u64 = arch
        .layer_linears()
        .iter()
        .filter(|l| s.targets.includes(l.name))
        .map(|l| s.rank.saturating_mul(l.d_in + l.d_out).saturating_mul(l.per_layer))
        .fold(0, u64::saturating_add);
    per_layer.saturating_mul(arch.layers)
}

/// Optimizer state bytes per trainable parameter and a description; Adafactor is computed from the
/// shapes (factored second moment: rows + columns per matrix).
fn optimizer_state_bytes(s: &Scenario, trainable: u64, matrices: &[(u64, u64, u64)]) -> (f64, String) {
    // States follow the master copy: fp32 for mixed and fp32 training, bf16 for pure bf16.
    let sb = if s.precision == Precision::Bf16 { 2.0 } else { 4.0 };
    let p = trainable as f64;
    match s.optimizer {
        Optimizer::AdamW => (p * 2.0 * sb, format!("{} trainable × 2 states (m, v) × {} B", group(trainable), factor(sb))),
        Optimizer::AdamW8bit => {
            let per = 2.0 * (1.0 + 4.0 / 256.0);
            (p * per, format!("{} trainable × 2 states × (1 B + fp32 absmax per 256) = {} B", group(trainable), factor(per)))
        }
        Optimizer::Sgd => (0.0, "plain SGD keeps no state".into()),
        Optimizer::SgdMomentum => (p * sb, format!("{} trainable × 1 momentum × {} B", group(trainable), factor(sb))),
        Optimizer::Adafactor => {
            let mut in_matrices = 0u64;
            let mut factored = 0f64;
            for &(rows, cols, count) in matrices {
                factored += ((rows + cols) * count) as f64;
                in_matrices = in_matrices.saturating_add(rows.saturating_mul(cols).saturating_mul(count));
            }
            let vectors = trainable.saturating_sub(in_matrices) as f64;
            (
                (factored + vectors) * sb,
                format!(
                    "factored 2nd moment: Σ(rows + cols) {} + unfactored vectors {} = {} values × {} B (no 1st moment)",
                    group(factored as u64),
                    group(vectors as u64),
                    group((factored + vectors) as u64),
                    factor(sb)
                ),
            )
        }
    }
}

/// Weight matrices (rows, cols, count) of the trainable parameters, for Adafactor.
fn trainable_matrices(arch: &Architecture, s: &Scenario) -> Vec<(u64, u64, u64)> {
    match s.method {
        Method::Full => {
            let mut m: Vec<(u64, u64, u64)> = arch
                .layer_linears()
                .iter()
                .map(|l| (l.d_out, l.d_in, l.per_layer * arch.layers))
                .collect();
            m.push((arch.vocab, arch.hidden, 1));
            if !arch.tied_embeddings {
                m.push((arch.vocab, arch.hidden, 1));
            }
            m
        }
        Method::Lora | Method::Qlora => arch
            .layer_linears()
            .iter()
            .filter(|l| s.targets.includes(l.name))
            .flat_map(|l| [(s.rank, l.d_in, l.per_layer * arch.layers), (l.d_out, s.rank, l.per_layer * arch.layers)])
            .collect(),
    }
}

/// What trains, as the activations see it.
fn trainable_kind(s: &Scenario) -> Trainable {
    match s.method {
        Method::Full => Trainable::All,
        Method::Lora | Method::Qlora => Trainable::Lora {
            targets: s.targets,
            rank: s.rank,
            // fp32 adapters under bf16 autocast cast their input: one copy per adapter.
            input_copies: s.precision == Precision::Mixed,
            // bitsandbytes before 0.43.2 kept each quantized layer's input (QLoRA always has a 4-bit
            // base; LoRA's base is quantized unless 16/32-bit, and GGUF is counted as bf16).
            frozen_keeps_inputs: s.bnb == Bitsandbytes::Legacy
                && (s.method == Method::Qlora || !(s.quant.is_dense() || s.quant.is_gguf())),
        },
    }
}

fn training(s: &Scenario, b: &mut Builder) {
    let arch = &s.architecture;
    let n = s.gpus.max(1) as f64;
    let zero = if s.gpus > 1 { s.zero.min(3) } else { 0 };
    let shard = |stage: u8| if zero >= stage { n } else { 1.0 };
    let shard_text = |stage: u8| if zero >= stage { format!(" ÷ {} GPUs (ZeRO-{zero})", s.gpus) } else { String::new() };
    let act = activation_bytes(s);
    let total_params = arch.parameters();
    let vision_params = arch.vision_parameters();

    // What trains, and in which dtype.
    let (trainable, weight_bytes_each, method_label) = match s.method {
        Method::Full => {
            if s.quant != Scenario::default_quant(s.mode, s.method) {
                b.note("quant_ignored", format!(
                    "full fine-tuning trains the weights themselves in `{}` precision; quant={} is ignored",
                    s.precision.id(), s.quant.id()
                ));
            }
            let wb = if s.precision == Precision::Fp32 { 4.0 } else { 2.0 };
            (total_params - vision_params, wb, "full")
        }
        Method::Lora | Method::Qlora => (lora_parameters(arch, s), 0.0, s.method.id()),
    };
    // The frozen base of LoRA / QLoRA.
    let base_format = match s.method {
        Method::Full => None,
        Method::Lora | Method::Qlora if s.quant.is_gguf() => {
            b.note("gguf_training", format!(
                "{} is a llama.cpp inference format and cannot be trained on; the base is counted in bf16",
                s.quant.id()
            ));
            Some(StorageFormat::Bf16)
        }
        Method::Qlora if !s.quant.is_four_bit() => {
            b.note("qlora_base", format!(
                "QLoRA trains adapters on a 4-bit base; quant={} is replaced by nf4",
                s.quant.id()
            ));
            Some(StorageFormat::Nf4)
        }
        _ => Some(s.quant),
    };

    // Weights.
    match base_format {
        None => {
            let label = match s.precision {
                Precision::Mixed => "bf16 working copy",
                Precision::Bf16 => "bf16",
                Precision::Fp32 => "fp32",
            };
            b.add(
                ComponentId::Weights,
                total_params as f64 * weight_bytes_each / shard(3),
                "§1",
                format!("{} params × {} B ({label}){}", group(total_params), factor(weight_bytes_each), shard_text(3)),
            );
        }
        Some(format) => {
            let w = stored_weights(arch, format, s.double_quant);
            b.add(
                ComponentId::Weights,
                w.bytes / shard(3),
                "§1",
                format!("frozen base: {}{}", w.formula, shard_text(3)),
            );
            let adapter_bytes = if s.precision == Precision::Bf16 { 2.0 } else { 4.0 };
            b.add(
                ComponentId::AdapterWeights,
                trainable as f64 * adapter_bytes / shard(3),
                "§1",
                format!(
                    "{} layers × Σ r·(d_in + d_out) over {} with r = {} = {} params ({} % of the model) × {} B{}",
                    arch.layers,
                    targets_text(arch, s),
                    s.rank,
                    group(trainable),
                    fixed(100.0 * trainable as f64 / total_params.max(1) as f64, 3),
                    factor(adapter_bytes),
                    shard_text(3)
                ),
            );
            if !format.is_dense() {
                let largest = arch.largest_linear();
                b.add(
                    ComponentId::DequantBuffer,
                    largest as f64 * 2.0,
                    "§1",
                    format!("largest weight matrix {} × 2 B: dequantized to bf16 for each matmul", group(largest)),
                );
            }
        }
    }

    // fp32 master weights (mixed precision full fine-tuning).
    if s.method == Method::Full && s.precision == Precision::Mixed {
        b.add(
            ComponentId::MasterWeights,
            trainable as f64 * 4.0 / shard(1),
            "§1",
            format!("{} trainable × 4 B (fp32 master copy){}", group(trainable), shard_text(1)),
        );
    }

    // Gradients.
    let grad_bytes = match (s.method, s.precision) {
        (_, Precision::Fp32) => 4.0,
        (Method::Full, _) => 2.0,
        (_, Precision::Mixed) => 4.0, // fp32 adapters have fp32 gradients
        (_, Precision::Bf16) => 2.0,
    };
    let ddp_copy = if s.gpus > 1 && zero == 0 { 2.0 } else { 1.0 };
    let gradients = trainable as f64 * grad_bytes * ddp_copy / shard(2);
    let gradients_text = format!(
        "{} trainable ({method_label}) × {} B{}{}",
        group(trainable),
        factor(grad_bytes),
        if ddp_copy > 1.0 { " × 2 (DDP keeps a bucket copy)" } else { "" },
        shard_text(2)
    );

    // Optimizer states.
    // Only Adafactor needs the shapes.
    let matrices = if s.optimizer == Optimizer::Adafactor { trainable_matrices(arch, s) } else { Vec::new() };
    let (opt, opt_formula) = optimizer_state_bytes(s, trainable, &matrices);
    b.add(ComponentId::Optimizer, opt / shard(1), "§1", format!("{opt_formula}{}", shard_text(1)));

    // Activations.
    let tokens = s.sequence_tokens();
    let trainable_kind = trainable_kind(s);
    let layer = training_layer(arch, trainable_kind, s.attention, act, tokens);
    let layer_bytes = layer.bytes(tokens, s.batch);
    let final_norm = final_norm_bytes_per_token(arch, trainable_kind, act) * tokens as f64 * s.batch as f64;
    let quadratic = if layer.per_sequence_quadratic > 0.0 {
        format!(" + {} B·s² per sequence (eager scores)", factor(layer.per_sequence_quadratic / (tokens as f64).powi(2)))
    } else {
        String::new()
    };
    // Logits: what the loss implementation holds at its peak.
    let (loss_bytes, what) = s.loss.bytes_per_logit(act);
    let softcap = if arch.softcapping { s.loss.softcap_bytes_per_logit(act) } else { 0.0 };
    let per_logit = loss_bytes + softcap;
    let logits_count = s.batch as f64 * tokens as f64 * arch.vocab as f64;
    b.saved_logits = logits_count * (s.loss.saved_bytes_per_logit() + softcap);
    let logits_bytes = logits_count * per_logit;
    let logits_formula = format!(
            "{} seq × {} tokens × vocab {} × {} B (loss={}: {what}{})",
            s.batch,
            group(tokens),
            group(arch.vocab),
            factor(per_logit),
            s.loss.id(),
            if softcap > 0.0 { format!(" + soft-capping's tanh output {} B", factor(softcap)) } else { String::new() }
        );

    let (activations, formula) = if s.gradient_checkpointing {
        let inputs = arch.layers as f64 * tokens as f64 * s.batch as f64 * act * arch.hidden as f64;
        // The loss's backward ends (and frees the logits) before the last layer is recomputed, so
        // the recomputed layer and the logits' peak never coexist: only the larger counts.
        let recompute_excess = (layer_bytes - logits_bytes).max(0.0);
        (
            inputs + recompute_excess + final_norm,
            format!(
                "checkpointing: {} layer inputs × {} tokens × {} seq × {} × {} B = {} + final norm {} + one layer recomputed ({} B/token{} = {}) beyond the logits' peak, which is freed before it: {}",
                arch.layers,
                group(tokens),
                s.batch,
                group(arch.hidden),
                factor(act),
                human_bytes(inputs),
                human_bytes(final_norm),
                group(layer.per_token as u64),
                quadratic,
                human_bytes(layer_bytes),
                human_bytes(recompute_excess)
            ),
        )
    } else {
        (
            arch.layers as f64 * layer_bytes + final_norm,
            format!(
                "{} layers × {} tokens × {} seq × {} B/token/layer{} = {} + final norm {}",
                arch.layers,
                group(tokens),
                s.batch,
                group(layer.per_token as u64),
                quadratic,
                human_bytes(arch.layers as f64 * layer_bytes),
                human_bytes(final_norm)
            ),
        )
    };
    b.add(ComponentId::Activations, activations, "§1", formula);
    b.add(ComponentId::Logits, logits_bytes, "§1", logits_formula);

    vision(s, b, act);

    // ZeRO-3 / FSDP gathers one layer's full weights to compute it.
    if zero == 3 {
        let layer_params = arch.layer_parameters();
        let wb = match base_format {
            None => weight_bytes_each,
            Some(f) => stored_weights(arch, f, s.double_quant).bytes / total_params.max(1) as f64,
        };
        // The local shard of that layer is already counted in the weights.
        let remote = 1.0 - 1.0 / n;
        b.add(
            ComponentId::GatheredLayer,
            layer_params as f64 * wb * remote,
            "§3",
            format!(
                "one layer gathered from the other GPUs: {} params × {} B × (1 − 1/{})",
                group(layer_params),
                factor(wb),
                s.gpus
            ),
        );
    }

    b.add(ComponentId::Gradients, gradients, "§1", gradients_text);
    // The bill sums its lines, as the chapter does. In time, backward frees activations and logits
    // layer by layer while the gradients appear, so the forward + backward pass peaks at one end:
    // max(activations + logits + the LM head's gradient, all gradients). With accumulation the
    // gradients outlive the micro-batch and everything coexists.
    let freed = activations
        + b.components
            .iter()
            .filter(|c| matches!(c.id, ComponentId::Logits | ComponentId::VisionActivations))
            .map(|c| c.bytes as f64)
            .sum::<f64>();
    // The gradient that exists when backward starts: the LM head's (full fine-tuning only).
    let head_gradient = if s.method == Method::Full {
        (arch.vocab as f64 * arch.hidden as f64 * grad_bytes * ddp_copy / shard(2)).min(gradients)
    } else {
        0.0
    };
    let summed = freed + gradients;
    let backward_peak = if s.accum > 1 { summed } else { (freed + head_gradient).max(gradients) };
    b.backward_overlap = summed - backward_peak;
    if b.backward_overlap > 0.03 * summed.max(1.0) && s.method == Method::Full {
        b.note(
            "backward_overlap",
            format!(
                "backward frees activations and logits while the gradients appear, so they never all coexist: the step's real peak can be {} below this sum",
                human_bytes(b.backward_overlap)
            ),
        );
    }

    // The optimizer step's temporaries. Activations and logits are freed by then, so only what
    // exceeds them raises the peak.
    let (step, step_text) = match s.optimizer {
        Optimizer::AdamW => {
            let sb = if s.precision == Precision::Bf16 { 2.0 } else { 4.0 };
            (trainable as f64 * sb, format!("foreach AdamW: √v for all {} trainable × {} B", group(trainable), factor(sb)))
        }
        Optimizer::Adafactor => {
            let largest = matrices.iter().map(|&(r, c, _)| r.saturating_mul(c)).max().unwrap_or(0);
            (largest as f64 * 4.0 * 2.0, format!("Adafactor, per tensor: 2 fp32 buffers of the largest matrix {}", group(largest)))
        }
        _ => (0.0, "no step temporaries".to_string()),
    };
    let step = step / shard(1);
    b.add(
        ComponentId::OptimizerStep,
        (step - freed).max(0.0),
        "§1",
        format!("max(0, step temporaries {} − activations and logits freed by then {}): {step_text}", human_bytes(step), human_bytes(freed)),
    );

    b.note(
        "effective_batch",
        format!(
            "effective batch = micro-batch {} × accumulation {} × {} GPU(s) = {} sequences per optimizer step; accumulation adds no memory",
            s.batch,
            s.accum,
            s.gpus,
            group(s.effective_batch())
        ),
    );
}

fn targets_text(arch: &Architecture, s: &Scenario) -> String {
    let mut out = String::with_capacity(80);
    for l in arch.layer_linears().iter().filter(|l| s.targets.includes(l.name)) {
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(l.name);
    }
    out
}

fn vision(s: &Scenario, b: &mut Builder, act: f64) {
    let Some(v) = &s.architecture.vision else { return };
    if s.images == 0 {
        return;
    }
    let per_image = v.tokens_per_image(s.image_px);
    let patches = s.images.saturating_mul(v.patches_per_image(s.image_px)).saturating_mul(s.batch);
    b.note(
        "vision_tokens",
        format!(
            "{} image(s) of {} px → {} × ({}/28)² = {} vision tokens per sequence (sequence {} → {} tokens)",
            s.images,
            s.image_px,
            s.images,
            s.image_px,
            group(s.vision_tokens()),
            group(s.seq),
            group(s.sequence_tokens())
        ),
    );
    let bytes = vision_block_peak(&s.architecture, s.attention, act, patches);
    b.add(
        ComponentId::VisionActivations,
        bytes,
        "§3 ④",
        format!(
            "frozen vision tower, one block at a time over {} patches ({} per image = {} tokens × {}): {}",
            group(patches),
            group(per_image * v.merge * v.merge),
            group(per_image),
            v.merge * v.merge,
            human_bytes(bytes)
        ),
    );
}

fn inference(s: &Scenario, b: &mut Builder) {
    let arch = &s.architecture;
    let n = s.gpus.max(1);
    let act = activation_bytes(s);
    let tp = if n > 1 { format!(" ÷ {n} GPUs (tensor parallel)") } else { String::new() };

    let w = stored_weights(arch, s.quant, s.double_quant);
    b.add(ComponentId::Weights, w.bytes / n as f64, "§2", format!("{}{tp}", w.formula));

    // KV cache: 2 (K and V) · layers · kv_heads · head_dim · tokens · batch · bytes. With tensor
    // parallelism each GPU holds its share of the KV heads (replicated when GPUs > KV heads).
    let prompt = s.sequence_tokens();
    let tokens = prompt.saturating_add(s.generated);
    let kv_heads_here = arch.kv_heads.div_ceil(n).max(1);
    let bytes_per = s.kv.bits() / 8.0;
    let kv = 2.0
        * arch.layers as f64
        * kv_heads_here as f64
        * arch.head_dim as f64
        * tokens as f64
        * s.batch as f64
        * bytes_per;
    b.add(
        ComponentId::KvCache,
        kv,
        "§2",
        format!(
            "2 × {} layers × {} KV heads{} × {} head_dim × ({} prompt + {} generated) tokens × {} seq × {} B ({})",
            arch.layers,
            kv_heads_here,
            if n > 1 { " per GPU" } else { "" },
            arch.head_dim,
            group(prompt),
            group(s.generated),
            s.batch,
            factor(bytes_per),
            s.kv.id()
        ),
    );

    let peak = inference_layer_peak(arch, s.attention, act, prompt, s.batch) / n as f64;
    b.add(
        ComponentId::Activations,
        peak,
        "§2",
        format!(
            "prefill, one layer at a time: {} tokens × {} seq through the larger of attention and MLP (ffn {}){}: {}",
            group(prompt),
            s.batch,
            group(arch.moe.as_ref().map_or(arch.ffn, |m| m.expert_ffn)),
            tp,
            human_bytes(peak)
        ),
    );

    // Logits: only the last position is projected when generating (transformers ≥ 4.45, vLLM).
    let per_logit = act + 4.0 + 4.0;
    b.add(
        ComponentId::Logits,
        s.batch as f64 * arch.vocab as f64 * per_logit,
        "§2",
        format!(
            "{} seq × vocab {} × {} B (last position: LM head output {} B + fp32 copy 4 B + fp32 probabilities 4 B)",
            s.batch,
            group(arch.vocab),
            factor(per_logit),
            factor(act)
        ),
    );

    vision(s, b, act);

    if s.quant == StorageFormat::Nf4 {
        let largest = arch.largest_linear();
        b.add(
            ComponentId::DequantBuffer,
            largest as f64 * 2.0,
            "§2",
            format!("largest weight matrix {} × 2 B: bitsandbytes dequantizes to bf16 for prefill", group(largest)),
        );
    }
}

/// The five-OOM drill: each injected mistake as its own line, so its signature shows in the bars.
fn drill(s: &Scenario, b: &mut Builder) {
    let arch = &s.architecture;
    let act = activation_bytes(s);
    let tokens = s.sequence_tokens();
    let train = s.mode == Mode::Train;
    if s.drill.no_grad && train {
        // model.eval() turns checkpointing off, and without no_grad every layer keeps its tensors
        // again, next to what training holds: a second, full graph plus its logits.
        let layer = training_layer(arch, trainable_kind(s), s.attention, act, tokens);
        let graph = arch.layers as f64 * layer.bytes(tokens, s.batch);
        let logits = s.batch as f64 * tokens as f64 * arch.vocab as f64 * (act + 4.0);
        b.add(
            ComponentId::EvalGraph,
            graph + logits,
            "§3 ③",
            format!(
                "evaluation without no_grad: {} layers × {} tokens × {} seq × {} B/token/layer (no checkpointing in eval mode) + logits {}",
                arch.layers,
                group(tokens),
                s.batch,
                group(layer.per_token as u64),
                human_bytes(logits)
            ),
        );
    }
    if s.drill.tensor_list && train {
        let per_step = s.batch as f64 * tokens as f64 * arch.vocab as f64 * act;
        b.add(
            ComponentId::KeptTensors,
            per_step * DRILL_KEPT_STEPS as f64,
            "§3 ③",
            format!(
                "logits appended to a list: {DRILL_KEPT_STEPS} steps × {} seq × {} tokens × vocab {} × {} B (grows every step; log loss.item())",
                s.batch,
                group(tokens),
                group(arch.vocab),
                factor(act)
            ),
        );
    }
    if s.drill.fp32_module {
        let params = arch.embedding_parameters() + arch.lm_head_parameters();
        let extra = if act < 4.0 { 2.0 } else { 0.0 };
        b.add(
            ComponentId::Fp32Module,
            params as f64 * extra / if s.gpus > 1 && (!train || s.zero >= 3) { s.gpus as f64 } else { 1.0 },
            "§3 ③",
            format!("embedding + LM head {} params left in fp32: + {} B each over bf16", group(params), factor(extra)),
        );
    }
}

/// A leftover process of an earlier run of the same model: its bf16 weights and its own CUDA
/// context, on the card but not in this process's allocator.
fn zombie(s: &Scenario, b: &mut Builder) {
    if !s.drill.zombie {
        return;
    }
    let w = stored_weights(&s.architecture, StorageFormat::Bf16, true).bytes;
    let ctx = if s.overhead_mib.is_finite() { s.overhead_mib.max(0.0) * MIB } else { 0.0 };
    b.add(
        ComponentId::ZombieProcess,
        w + ctx,
        "§3 第 0 步",
        format!("a crashed earlier run still holds its weights {} + its CUDA context {} (nvidia-smi shows it; torch does not)", human_bytes(w), human_bytes(ctx)),
    );
}

fn overheads(s: &Scenario, b: &mut Builder) {
    let allocated: f64 = b.components.iter().map(|c| c.bytes as f64).sum();
    let share = match s.mode {
        Mode::Train => SLACK_TRAINING,
        Mode::Infer => SLACK_INFERENCE,
    };
    b.add(
        ComponentId::AllocatorSlack,
        allocated * share,
        "§3 ⑦",
        format!("{} allocated × {} % (caching allocator: rounding and fragmentation)", human_bytes(allocated), fixed(share * 100.0, 0)),
    );
    let overhead = if s.overhead_mib.is_finite() { s.overhead_mib.max(0.0) } else { 0.0 };
    b.add(
        ComponentId::CudaContext,
        overhead * MIB,
        "§3",
        format!("{} MiB per process and GPU (CUDA context, kernels, cuBLAS/NCCL workspaces; overhead_mib)", factor(overhead)),
    );
}
