//! The lines of a training step that hold parameters: the weights (trained, or a frozen base with
//! its LoRA adapters and dequantization buffer), fp32 master weights, gradients, the layer ZeRO-3
//! gathers; and how much of activations, logits and gradients never coexist.

use super::architecture::Architecture;
use super::bill::{in_host_ram, line, Component, ComponentId};
use super::msg::{when, Arg};
use super::plan::{trained_weights_label, Base, Plan, RopeTables, Training, Trains};
use super::scenario::{Precision, RopeCache};
use super::storage::StorageFormat;
use super::weights::{dequantized_matrix, stored_weights, StoredWeights, WeightFormat};
use crate::msg;

/// The language model's weights on this GPU: the trained weights in their dtype, or the frozen
/// base in its storage format; sharded from ZeRO-3 on.
/// With `offload=all` the line keeps what stays on the GPU (bitsandbytes' quant state, which is
/// not a parameter) and returns the bytes host RAM holds instead.
pub fn weights(p: &Plan, t: &Training) -> (Component, f64) {
    let resident = with_rope_tables(weights_resident(p, t), p.arch, p.tokens, p.rope_cache);
    if !t.params_offloaded() {
        return (resident, 0.0);
    }
    // bitsandbytes' quant state stays on the GPU (on one GPU too).
    let kept = match t.base {
        Base::Frozen(format) => quant_state_bytes(p.parameters, format, &base_weights(p, t, format)),
        Base::Trained(_) => 0.0,
    };
    in_host_ram(resident, kept)
}

/// RoPE's cos/sin tables a framework keeps beside the weights (`rope_cache`): buffers of the
/// model, loaded with it and never sharded.
pub fn with_rope_tables(c: Component, arch: &Architecture, seq: u64, cache: RopeCache) -> Component {
    let Some(rope) = RopeTables::of(arch, seq, cache) else { return c };
    let bytes = rope.bytes();
    let formula = msg!(
        RopeTables,
        c.formula.arg(),
        Arg::Int(rope.tables),
        Arg::Count(rope.positions),
        Arg::Int(rope.dim),
        Arg::Factor(rope.element_bytes),
        Arg::Bytes(bytes)
    );
    line(c.id, c.bytes as f64 + bytes, c.section, formula)
}

/// The frozen base's stored weights: the plan's count, or counted now.
fn base_weights<'a>(p: &Plan, t: &'a Training, format: WeightFormat) -> std::borrow::Cow<'a, StoredWeights> {
    match &t.base_weights {
        Some(w) => std::borrow::Cow::Borrowed(w),
        None => std::borrow::Cow::Owned(stored_weights(p.arch, format)),
    }
}

fn weights_resident(p: &Plan, t: &Training) -> Component {
    let arch = p.arch;
    let divisor = t.shard.divisor(3);
    match t.base {
        // FSDP's mixed precision shards the fp32 parameters (the master weights line) and casts
        // them in the all-gather: the 16-bit copy exists only in the gathered layers. (With the
        // optimizer offloaded, DeepSpeed keeps 16-bit partitions on the GPU and the master on the CPU.)
        Base::Trained(dtype)
            if t.master_weights && t.shard.zero == 3 && !t.optimizer_offloaded() && !t.deepspeed_zero3 =>
        {
            line(
                ComponentId::Weights,
                0.0,
                "§1",
                msg!(FsdpWorkingCopy, Arg::Count(p.parameters), Arg::Factor(dtype.bytes())),
            )
        }
        Base::Trained(dtype) => {
            let total = p.parameters;
            let formula = msg!(
                TrainedWeights,
                Arg::Count(total),
                Arg::Factor(dtype.bytes()),
                trained_weights_label(t),
                t.shard.suffix(3)
            );
            line(ComponentId::Weights, total as f64 * dtype.bytes() / divisor, "§1", formula)
        }
        Base::Frozen(format) if t.kbit_prepared => {
            let w = base_weights(p, t, format).into_owned();
            // TRL casts the embedding and LM head back to bf16; the norms (and biases) stay fp32.
            let recast = arch.embedding_parameters() + if format.head { 0 } else { arch.lm_head_parameters() };
            let fp32 = if t.fp32_head { w.unquantized } else { w.unquantized.saturating_sub(recast) };
            let formula = if t.fp32_head {
                msg!(FrozenBasePrepared, w.formula.arg(), Arg::Count(fp32), t.shard.suffix(3))
            } else {
                msg!(FrozenBaseTrl, w.formula.arg(), Arg::Count(fp32), t.shard.suffix(3))
            };
            line(ComponentId::Weights, (w.bytes + fp32 as f64 * 2.0) / divisor, "§1", formula)
        }
        Base::Frozen(format) => {
            let w = base_weights(p, t, format).into_owned();
            // FSDP shards a 4-bit layer's packed data, not bitsandbytes' quant state beside it
            // (absmax and its constants are attributes, not parameters): whole on every GPU.
            let state = if t.shard.zero == 3 { quant_state_bytes(p.parameters, format, &w) } else { 0.0 };
            // Kept 16-bit experts the framework's preparation cast to fp32: 2 B more each.
            #[cfg(not(feature = "page"))]
            let experts_fp32 = t.experts_fp32;
            #[cfg(feature = "page")]
            let experts_fp32 = 0;
            let upcast = experts_fp32 as f64 * 2.0;
            let bytes = (w.bytes + upcast - state) / divisor + state;
            let formula = msg!(
                FrozenBase,
                w.formula.arg(),
                t.shard.suffix(3),
                if experts_fp32 > 0 {
                    msg!(ExpertsUpcast, Arg::Count(experts_fp32)).arg()
                } else {
                    when(state > 0.0, || msg!(QuantStateWhole, Arg::Bytes(state)))
                }
            );
            line(ComponentId::Weights, bytes, "§1", formula)
        }
    }
}

/// LoRA adapters (in their own dtype, fp32 unless the run is pure bf16), and the bytes host RAM
/// holds instead when the parameters are offloaded.
pub fn adapter_weights(p: &Plan, t: &Training) -> Option<(Component, f64)> {
    let Trains::Adapters { targets, rank } = t.trains else { return None };
    let arch = p.arch;
    let mut names: Vec<&str> = Vec::new();
    // Each name once (Gemma-4's full-attention layers have their own q, k and o).
    for l in arch.linears().iter().filter(|l| targets.includes(l.name)) {
        if !names.contains(&l.name) {
            names.push(l.name);
        }
    }
    // A training vision tower's adapters (`vision_train`) are counted apart.
    let count = match arch.vision.as_ref().filter(|_| t.vision_trains && !cfg!(feature = "page")) {
        Some(v) => {
            let tower = super::plan::tower_trainable(arch, t.trains);
            msg!(
                AdaptersWithTower,
                Arg::Count(t.trainable.saturating_sub(tower)),
                Arg::Int(v.blocks),
                Arg::Count(tower),
                Arg::Count(t.trainable)
            )
            .arg()
        }
        None => Arg::Count(t.trainable),
    };
    let formula = msg!(
        AdapterWeights,
        Arg::Int(arch.layers),
        Arg::Text(names.join(", ")),
        Arg::Int(rank),
        count,
        Arg::Fixed(100.0 * t.trainable as f64 / p.parameters.max(1) as f64, 3),
        Arg::Factor(t.adapters.bytes()),
        t.shard.suffix(3)
    );
    let c =
        line(ComponentId::AdapterWeights, t.trainable as f64 * t.adapters.bytes() / t.shard.divisor(3), "§1", formula);
    Some(if t.params_offloaded() { in_host_ram(c, 0.0) } else { (c, 0.0) })
}

/// A quantized frozen base is dequantized to bf16 one matrix at a time for each matmul; GPTQ in
/// PyTorch unpacks it through an int32 shift and its int8 codes (4 + 1 B; the fp16 result is what
/// the matmul saves, in the activations); fms-acceleration's triton kernel dequantizes in registers.
pub fn dequant_buffer(p: &Plan, t: &Training) -> Option<Component> {
    let Base::Frozen(format) = t.base else { return None };
    if format.format.is_dense() {
        return None;
    }
    if format.format == StorageFormat::Gptq4 {
        let matrix = p.arch.largest_linear();
        let c = || line(ComponentId::DequantBuffer, matrix as f64 * 5.0, "§1", msg!(DequantGptq, Arg::Count(matrix)));
        return t.keeps_dequantized.then(c);
    }
    let (matrix, bytes) = dequantized_matrix(p.arch, format);
    // bitsandbytes' parametrization dequantizes a fused expert parameter whole on access (cached for
    // the module's forward: `bitsandbytes/nn/parametrize.py`), and the grouped matmul keeps it for
    // the layer's backward: one MoE layer's experts under checkpointing, every MoE layer's without.
    let expert = |l: &&super::architecture::LinearShape| l.group == super::architecture::LinearGroup::Expert;
    let experts: u64 =
        if t.fused_experts { p.arch.linears().iter().filter(expert).map(|l| l.parameters()).sum() } else { 0 };
    if experts > matrix {
        let layers = if t.checkpointing { 1 } else { p.arch.moe_layers().max(1) };
        let params = experts.saturating_mul(layers);
        let formula = msg!(DequantFusedExperts, Arg::Count(params), Arg::Int(layers));
        return Some(line(ComponentId::DequantBuffer, params as f64 * 2.0, "§1", formula));
    }
    let formula =
        if bytes > 2.0 { msg!(DequantHead, Arg::Count(matrix)) } else { msg!(DequantTraining, Arg::Count(matrix)) };
    Some(line(ComponentId::DequantBuffer, matrix as f64 * bytes, "§1", formula))
}

/// fp32 master weights of mixed-precision full fine-tuning (sharded from ZeRO-1 on), and the
/// bytes host RAM holds instead when the optimizer is offloaded.
pub fn master_weights(t: &Training) -> Option<(Component, f64)> {
    if !t.master_weights {
        return None;
    }
    let formula = msg!(MasterWeights, Arg::Count(t.trainable), t.shard.suffix(1));
    let c = line(ComponentId::MasterWeights, t.fp32_partition_bytes(), "§1", formula);
    Some(if t.optimizer_offloaded() { in_host_ram(c, 0.0) } else { (c, 0.0) })
}

/// Gradients of one tensor that an offloading ZeRO keeps on the GPU at a time: ZeRO-2's
/// `temp_grad_buffer_for_gpu_offload` (16-bit, the largest trainable tensor, kept) beside autograd's
/// gradient of that tensor before it is copied out; ZeRO-3 / FSDP only the latter (a unit's
/// unsharded gradients are the gathered line's).
/// `None` unless the gradients are offloaded; else (copies, parameters of the largest tensor).
fn offloaded_gradients(p: &Plan, t: &Training) -> Option<(u64, u64)> {
    let copies = if t.zero_stage == 2 { 2 } else { 1 };
    t.gradients_offloaded().then(|| (copies, largest_trainable_tensor(p, t)))
}

/// Bytes of the gradients, before rounding: one per trainable parameter in the gradients' dtype;
/// plain DDP keeps a second copy in its buckets; sharded from ZeRO-2 on.
pub fn gradient_bytes(p: &Plan, t: &Training) -> f64 {
    if let Some((copies, largest)) = offloaded_gradients(p, t) {
        return copies as f64 * largest as f64 * 2.0;
    }
    let ddp_copy = if t.shard.ddp_bucket_copy() { 2.0 } else { 1.0 };
    t.trainable as f64 * t.gradients.bytes() * ddp_copy / t.shard.divisor(2)
}

/// The gradients line: all of them (`gradient_bytes`), or `on_line` of them when the peak is
/// backward's start (`at_start`: only those exist yet) or the optimizer step, where the rest sit
/// in the room the freed activations and logits left.
pub fn gradients(p: &Plan, t: &Training, on_line: f64, at_start: bool) -> Component {
    if let Some((copies, largest)) = offloaded_gradients(p, t) {
        let formula = msg!(GradientsOffloaded, Arg::Int(copies), Arg::Count(largest), Arg::Factor(2.0));
        return line(ComponentId::Gradients, copies as f64 * largest as f64 * 2.0, "§1", formula);
    }
    let all = gradient_bytes(p, t);
    let formula = msg!(
        Gradients,
        Arg::Count(t.trainable),
        Arg::Code(t.method.id()),
        Arg::Factor(t.gradients.bytes()),
        when(t.shard.ddp_bucket_copy(), || msg!(DdpCopy)),
        t.shard.suffix(2),
        when(on_line < all, || if at_start {
            msg!(GradientsAtStart, Arg::Bytes(on_line), Arg::Bytes(all))
        } else {
            msg!(GradientsInFreedRoom, Arg::Bytes(on_line), Arg::Bytes(all))
        })
    );
    line(ComponentId::Gradients, on_line.min(all), "§1", formula)
}

/// Layers FSDP holds gathered at its peak: in backward (`BACKWARD_PRE`, FSDP1's default and FSDP2's
/// only mode) the current layer and the prefetched next one; FSDP1's `limit_all_gathers` caps the
/// forward at two in flight as well.
pub const LAYERS_IN_FLIGHT: u64 = 2;

/// ZeRO-3 / FSDP gathers whole layers to compute them into a buffer beside their local shard: the
/// current and the prefetched next — one for adapters, whose prefetch lands on the LoRA units PEFT's
/// wrap policy makes — and the root unit (embedding, LM head, final norm), which stays gathered
/// from its forward until backward ends (FSDP1 does not reshard the root after forward; FSDP2
/// gathers it again for the LM head's backward, the logits' peak). A trained layer's backward
/// also holds its unsharded gradients and the reduce-scatter's input buffer.
pub fn gathered_layer(p: &Plan, t: &Training) -> Option<Component> {
    // Offloaded parameters are gathered to the GPU a unit at a time on one GPU too.
    if t.shard.zero != 3 && !t.params_offloaded() {
        return None;
    }
    let (layer_params, bytes_each, root_params, root_bytes) = units(p, t);
    // Autograd writes the unsharded gradients in the gathered parameters' dtype; the reduce-scatter
    // input is in the gradients' (reduce) dtype.
    let unsharded = bytes_each.max(p.acts.bytes());
    let grads_of = |params: u64| match t.trains {
        Trains::Full => params as f64 * (unsharded + t.gradients.bytes()),
        Trains::Adapters { .. } => 0.0,
    };
    if t.deepspeed_zero3 && t.shard.zero == 3 {
        return Some(deepspeed_working_set(p, t, layer_params, bytes_each, root_bytes, unsharded, grads_of));
    }
    let in_flight = match t.trains {
        Trains::Full => LAYERS_IN_FLIGHT,
        Trains::Adapters { .. } => 1,
    };
    let gathered = in_flight as f64 * layer_params as f64 * bytes_each;
    let root = root_params as f64 * root_bytes;
    let grads = grads_of(layer_params);
    let formula = msg!(
        GatheredLayer,
        Arg::Count(layer_params),
        Arg::Factor(bytes_each),
        Arg::Int(in_flight),
        Arg::Count(root_params),
        Arg::Factor(root_bytes),
        when(grads > 0.0, || {
            msg!(LayerGradients, Arg::Count(layer_params), Arg::Factor(unsharded), Arg::Factor(t.gradients.bytes()))
        })
    );
    Some(line(ComponentId::GatheredLayer, gathered + root + grads, "§3", formula))
}

/// ZeRO-3 / FSDP's units unsharded: the largest layer's parameters and their bytes each as
/// gathered, the root unit's (embedding, LM head) and theirs.
fn units(p: &Plan, t: &Training) -> (u64, f64, u64, f64) {
    let arch = p.arch;
    let layer_params = arch.largest_layer_parameters();
    let bytes_each = match t.base {
        // torchao's float8 training with FSDP2's float8 all-gather (`enable_fsdp_float8_all_gather`)
        // gathers each linear weight as fp8 and keeps it so for backward: 1 B per parameter.
        Base::Trained(_) if t.precision == Precision::Fp8 => 1.0,
        Base::Trained(dtype) => dtype.bytes(),
        // The frozen base's stored weights are counted once, in the plan.
        Base::Frozen(_) => t.base_weights.as_ref().map_or(0.0, |w| w.bytes) / p.parameters.max(1) as f64,
    };
    let root_bytes = match t.base {
        Base::Trained(dtype) if t.precision != Precision::Fp8 => dtype.bytes(),
        _ => p.acts.bytes(),
    };
    let root_params = arch.embedding_parameters().saturating_add(arch.lm_head_parameters());
    (layer_params, bytes_each, root_params, root_bytes)
}

/// What FSDP1's initialisation with `sync_module_states` (`sync_module_states=1`: rank 0 holds the
/// loaded weights, as Answer.AI's train.py and Accelerate's `fsdp_cpu_ram_efficient_loading`) leaves
/// cached on rank 0. Unit by unit it moves the unit to the GPU, broadcasts it in 250 MiB buckets — a
/// bucket of several tensors is concatenated first, as a layer's tensors and the final norm with
/// the LM head are — and flattens it before keeping its shard; NCCL records each broadcast buffer
/// on its stream, so the next layer cannot take it at once. Freed, the copies stay cached: the root
/// unit moved and flattened and the head's bucket (2 × the root + the head) and three layers' worth
/// (docs/research/answerai_replay/LOAD_CACHE.md: a replay of train.py's wrapping through the
/// caching allocator, 3.74 GiB reserved after wrapping where it printed 3.72). None without it,
/// under DeepSpeed or with expandable segments.
pub fn fsdp_wrap_cache(p: &Plan, t: &Training) -> f64 {
    if !t.sync_module_states || p.expandable_segments {
        return 0.0;
    }
    let (layer_params, bytes_each, root_params, root_bytes) = units(p, t);
    let head = p.arch.lm_head_parameters() as f64 * root_bytes;
    2.0 * root_params as f64 * root_bytes + head + 3.0 * layer_params as f64 * bytes_each
}

/// DeepSpeed's `stage3_max_reuse_distance` and `stage3_max_live_parameters` as LLaMA-Factory,
/// ms-swift and DeepSpeed itself set them (elements).
const DEEPSPEED_REUSE_DISTANCE: f64 = 1e9;
/// Hugging Face's `auto` for ZeRO-3: `stage3_prefetch_bucket_size` 0.9 × hidden² and
/// `reduce_bucket_size` hidden² elements of 2 B, 1.9 × hidden² together.
const DEEPSPEED_AUTO_BUCKETS: f64 = 0.9 + 1.0;

/// DeepSpeed ZeRO-3's gathered parameters at the forward-to-backward turn (partitioned_param_
/// coordinator.py, research note `deepspeed_zero.md` R16-R19): it gathers one module at a time and
/// releases a module's parameters unless the trace uses them again within 1e9 elements. The LM
/// head is used again at once; the last decoder layers are kept while the elements between their
/// forward and their next use — the layers after them (three passes with checkpointing: forward,
/// recompute, backward; else two) and the head twice — stay under the distance; later in backward
/// one layer at a time (a recomputed module is used again by its backward). The embedding is
/// released after the forward. Beside them the prefetch bucket and the gradient (IPG) bucket, as
/// Hugging Face's `auto` sizes them (0.9 × hidden² and hidden² elements of 2 B), and with full
/// fine-tuning the head's gradient and its reduce-scatter copy.
fn deepspeed_working_set(
    p: &Plan,
    t: &Training,
    layer_params: u64,
    bytes_each: f64,
    head_bytes: f64,
    unsharded: f64,
    grads_of: impl Fn(u64) -> f64,
) -> Component {
    let arch = p.arch;
    let head = if arch.tied_embeddings { arch.embedding_parameters() } else { arch.lm_head_parameters() };
    // Elements of the 16-bit storage DeepSpeed partitions (a 4-bit base in bf16 storage: 4 per element).
    let layer_elements = layer_params as f64 * bytes_each / 2.0;
    let passes = if t.checkpointing { 3.0 } else { 2.0 };
    // Layer j from the end (0, 1, …) is kept while passes × j × its elements + 2 × head < the distance.
    let room = DEEPSPEED_REUSE_DISTANCE - 2.0 * head as f64;
    let kept = match passes * layer_elements {
        _ if room <= 0.0 => 0,
        per_layer if per_layer > 0.0 => ((room / per_layer).ceil() as u64).min(arch.layers),
        _ => arch.layers,
    };
    let hidden = arch.hidden as f64;
    let buckets = DEEPSPEED_AUTO_BUCKETS * hidden * hidden * 2.0;
    // In backward each recomputed layer keeps its own parameters to its backward: one layer.
    let layer = layer_params as f64 * bytes_each;
    let turn = head as f64 * head_bytes + kept as f64 * layer;
    let head_grads = grads_of(head);
    let bytes = turn.max(layer) + buckets + head_grads;
    let formula = msg!(
        GatheredDeepspeed,
        Arg::Count(head),
        Arg::Factor(head_bytes),
        Arg::Int(kept),
        Arg::Count(layer_params),
        Arg::Factor(bytes_each),
        Arg::Count(arch.hidden),
        when(head_grads > 0.0, || {
            msg!(LayerGradients, Arg::Count(head), Arg::Factor(unsharded), Arg::Factor(t.gradients.bytes()))
        })
    );
    line(ComponentId::GatheredLayer, bytes, "§3", formula)
}

/// bitsandbytes' NF4 quant state of the layers it covers: the bits beyond the 4-bit codes (absmax
/// per block of 64, with double quantization 8 bits + an fp32 per 256 blocks).
fn quant_state_bytes(parameters: u64, format: WeightFormat, w: &StoredWeights) -> f64 {
    if format.format != StorageFormat::Nf4 {
        return 0.0;
    }
    let quantized = parameters.saturating_sub(w.unquantized) as f64;
    quantized * (format.format.bits_per_weight(format.double_quant, 1) - 4.0) / 8.0
}

/// DeepSpeed ZeRO-1/2's gradient buckets (stage_1_and_2.py): `reduce_bucket_size` 16-bit
/// elements each, two with `overlap_comm`, allocated at backward's first gradient hook whatever
/// the number of trainable parameters, freed when backward ends; over several GPUs a bucket's
/// reduction also copies up to one bucket of gradients (at most all of them).
pub fn zero_buckets(t: &Training) -> Option<Component> {
    let (elements, overlap) = t.deepspeed_buckets?;
    let count = if overlap { 2 } else { 1 };
    let buckets = count as f64 * elements as f64 * 2.0;
    let copy = if t.shard.gpus > 1 { elements.min(t.trainable) as f64 * 2.0 } else { 0.0 };
    let formula = msg!(
        ZeroBuckets,
        Arg::Int(count),
        Arg::Count(elements),
        when(copy > 0.0, || msg!(ZeroBucketCopy, Arg::Count(elements.min(t.trainable))))
    );
    Some(line(ComponentId::ZeroBuckets, buckets + copy, "§3", formula))
}

/// The gradients that exist when backward starts, at the logits' peak: `zero_grad()` (set to
/// None, PyTorch's default since 2.0, called after each step by the Trainer, LitGPT, torchtune and
/// torchtitan) leaves none but the LM head's, the first one computed (full fine-tuning), and plain
/// DDP's buckets; with accumulation the earlier micro-batches' gradients are all there.
pub fn gradients_at_backward_start(p: &Plan, t: &Training) -> f64 {
    let gradients = gradient_bytes(p, t);
    // DeepSpeed's ZeRO-3 allocates its gradient partitions when it is initialised.
    if t.accum > 1 || t.gradients_offloaded() || t.deepspeed_zero3 {
        return gradients;
    }
    // DDP's buckets are allocated when the model is wrapped and stay: one copy of the gradients.
    let buckets = if t.shard.ddp_bucket_copy() { gradients / 2.0 } else { 0.0 };
    let head = match t.trains {
        Trains::Full => p.arch.vocab as f64 * p.arch.hidden as f64 * t.gradients.bytes() / t.shard.divisor(2),
        Trains::Adapters { .. } => 0.0,
    };
    (buckets + head).min(gradients)
}

/// Weight matrices (rows, cols, count) of the trainable parameters (Adafactor factors its states
/// by them).
pub fn trainable_matrices(p: &Plan, t: &Training) -> Vec<(u64, u64, u64)> {
    let arch = p.arch;
    match t.trains {
        Trains::Full => {
            let mut m: Vec<(u64, u64, u64)> = arch.linears().iter().map(|l| (l.d_out, l.d_in, l.count())).collect();
            m.push((arch.vocab, arch.hidden, 1));
            if !arch.tied_embeddings {
                m.push((arch.vocab, arch.hidden, 1));
            }
            m
        }
        Trains::Adapters { targets, rank } => arch
            .linears()
            .iter()
            .filter(|l| targets.includes(l.name))
            .flat_map(|l| [(rank, l.d_in, l.count()), (l.d_out, rank, l.count())])
            .collect(),
    }
}

/// Parameters of the largest trainable tensor (a weight matrix, the embedding or LM head, an
/// adapter's A or B).
pub fn largest_trainable_tensor(p: &Plan, t: &Training) -> u64 {
    trainable_matrices(p, t).iter().map(|&(r, c, _)| r.saturating_mul(c)).max().unwrap_or(0)
}
