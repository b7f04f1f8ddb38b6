//! A scenario resolved into what the bill needs, once: what trains, the dtype of every group of
//! tensors, the stored format of the weights, what is sharded over how many GPUs, and the sizes
//! the activations see. Every bill line is then a small function of the plan (`training`,
//! `optimizer`, `activations`, `inference`, `drill`), none depending on another line having run.
//!
//! The rules of the scenario vocabulary that are not plain values live here: full fine-tuning
//! ignores `quant`, QLoRA always has a 4-bit base, GGUF cannot be trained on, ZeRO needs more
//! than one GPU, and which dtype each precision gives each tensor.

use super::architecture::Architecture;
use super::bill::Note;
use super::dtype::Dtype;
use super::msg::{Arg, Msg};
use super::scenario::{
    AttentionKernel, Bitsandbytes, Checkpointing, Drill, EngineSettings, Gpu, Kernels, LoraTargets, LossKernel, Method,
    Mode, Offload, Optimizer, Precision, Recipe, RopeCache, Scenario, TrainingLoop, Zero3Impl,
};
use super::storage::{KvDtype, QuantLayers, StorageFormat};
use super::weights::WeightFormat;
use crate::msg;

/// The web page's build, which bills a training vision tower in its reader worker.
const PAGE: bool = cfg!(feature = "page");

/// How the weights that train are split over data-parallel GPUs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sharding {
    pub gpus: u64,
    /// ZeRO stage 0–3 in effect (0 on one GPU).
    pub zero: u8,
}

impl Sharding {
    /// What a component sharded from ZeRO stage `stage` on is divided by.
    pub fn divisor(self, stage: u8) -> f64 {
        if self.zero >= stage {
            self.gpus.max(1) as f64
        } else {
            1.0
        }
    }

    /// " ÷ 8 GPUs (ZeRO-3)" when sharded from `stage` on, else nothing.
    pub fn suffix(self, stage: u8) -> Arg {
        super::msg::when(self.zero >= stage, || msg!(ShardZero, Arg::Int(self.gpus), Arg::Int(self.zero as u64)))
    }

    /// Plain data parallelism keeps a second copy of the gradients in its all-reduce buckets.
    pub fn ddp_bucket_copy(self) -> bool {
        self.gpus > 1 && self.zero == 0
    }
}

/// What trains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Trains {
    /// Every weight of the language model (the vision tower stays frozen).
    Full,
    /// LoRA adapters of rank `rank` on `targets`.
    Adapters { targets: LoraTargets, rank: u64 },
}

/// Which weights train, as far as activations care.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Trainable {
    /// Every weight (full fine-tuning).
    All,
    /// Only LoRA adapters on `targets`; `input_copies` when the adapters' dtype differs from the
    /// activations' (fp32 adapters under bf16 autocast), so each adapter keeps its own input copy.
    /// `frozen_keeps_inputs` when the frozen base's matmuls keep their input although no base weight
    /// trains: bitsandbytes before 0.43.2 (`MatMul4Bit` saved `ctx.tensors = (A, B)`; since then
    /// `(None, B)`), where a frozen 16-bit `F.linear` keeps only its weight.
    /// `fp32_stream` when the residual stream and the MLP compute in fp32 (PEFT's k-bit
    /// preparation casts the norms to fp32, and bitsandbytes' 4-bit layers return their input's
    /// dtype); attention still runs in 16 bits under autocast. `dropout` when each adapter drops
    /// its input: its own dropped copy and a 1-byte mask per element.
    Lora {
        targets: LoraTargets,
        rank: u64,
        input_copies: bool,
        frozen_keeps_inputs: bool,
        fp32_stream: bool,
        dropout: bool,
    },
}

impl Trainable {
    pub fn is_full(self) -> bool {
        matches!(self, Trainable::All)
    }

    /// Every linear layer keeps its input: trainable weights need it for their gradient, quantized
    /// frozen ones (legacy bitsandbytes) keep it anyway.
    pub fn inputs_kept(self) -> bool {
        self.is_full() || matches!(self, Trainable::Lora { frozen_keeps_inputs: true, .. })
    }

    /// Bytes per element of the residual stream and the MLP's tensors.
    pub fn stream_bytes(self, act: Dtype) -> f64 {
        match self {
            Trainable::Lora { fp32_stream: true, .. } => 4.0,
            _ => act.bytes(),
        }
    }
}

/// Where the language model's weights come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Base {
    /// The weights themselves train, held in this dtype.
    Trained(Dtype),
    /// A frozen base in a storage format (LoRA, QLoRA).
    Frozen(WeightFormat),
}

/// A training step.
#[derive(Clone, Debug, PartialEq)]
pub struct Training {
    pub method: Method,
    pub precision: Precision,
    pub trains: Trains,
    /// Parameters that receive gradients.
    pub trainable: u64,
    pub base: Base,
    pub double_quant: bool,
    pub adapters: Dtype,
    pub gradients: Dtype,
    pub states: Dtype,
    /// fp32 master weights beside the 16-bit working copy (mixed-precision full fine-tuning).
    pub master_weights: bool,
    pub optimizer: Optimizer,
    /// What trains, as the saved activations see it.
    pub saved: Trainable,
    pub loss: LossKernel,
    pub checkpointing: bool,
    pub accum: u64,
    pub shard: Sharding,
    /// PEFT's k-bit preparation: the base's non-quantized parameters in fp32, an fp32 residual
    /// stream, and autocast's bf16 copy of the fp32 LM head (`recipe=peft`; `trl` too, less the head).
    pub kbit_prepared: bool,
    /// Routed experts a framework's own k-bit preparation leaves in fp32 (parameters): transformers
    /// 5's fused experts, 16-bit under bitsandbytes, which PEFT's `prepare_model_for_kbit_training`
    /// casts to fp32 and Axolotl does not cast back ([`super::framework::upcasts_kept_experts`]; not
    /// in the page's build, which sends such a bill to the reader worker).
    #[cfg(not(feature = "page"))]
    pub experts_fp32: u64,
    /// Autocast runs the forward (`precision=mixed|fp8`), except under DeepSpeed, which casts the
    /// module to its 16-bit dtype instead (Accelerate's `native_amp` is false for DeepSpeed).
    pub autocast: bool,
    /// FSDP1's wrapping broadcast rank 0's weights and left its copies cached (`sync_module_states`,
    /// under FSDP).
    pub sync_module_states: bool,
    /// GPTQ weights dequantized in PyTorch (auto-gptq's `qlinear_cuda_old` from 128 rows on,
    /// GPTQModel's torch kernel): each matmul saves its dequantized fp16 weight for backward.
    pub keeps_dequantized: bool,
    /// The routed experts are transformers 5's fused 3-D parameters, quantized by bitsandbytes'
    /// parametrization (`fused_experts`): a MoE layer's are dequantized whole for its forward and kept
    /// for its backward.
    pub fused_experts: bool,
    /// DeepSpeed ZeRO-1/2 (`zero=1|2`, on one GPU too): its gradient buckets, `reduce_bucket_size`
    /// elements each, two with `overlap_comm`.
    pub deepspeed_buckets: Option<(u64, bool)>,
    /// The embedding and LM head left in fp32 by the preparation (`recipe=peft`; TRL casts them
    /// back to bf16).
    pub fp32_head: bool,
    /// The loop keeps the model's output through backward and until the next forward (`loop=script`).
    pub keeps_output: bool,
    /// torch.compile'd layers (`compile=model` or `1`): pointwise results recomputed in backward,
    /// not saved.
    pub compiled: bool,
    /// The layer's kernels (`kernels`): fused norms and SwiGLU, Unsloth's fused LoRA.
    pub kernels: Kernels,
    /// The MLP in sequence tiles (`tiled_mlp`).
    pub tiled_mlp: bool,
    /// The VLM's vision tower trains too (`vision_train`; the reader worker's).
    pub vision_trains: bool,
    /// FSDP1 keeps each recomputed layer's input and input gradient until backward ends (frozen
    /// units under `gc=reentrant`).
    pub retains_input_grads: bool,
    /// As `retains_input_grads`, but the checkpoint's implementation is not said (`gc=1`): the range's
    /// high end holds it.
    pub unknown_reentrant: bool,
    /// The loss compiled with them (`compile=1`): the fp32 upcast and log-softmax fused.
    pub loss_compiled: bool,
    /// How a fused loss (`loss=fused`) chunks the tokens: Liger's fixed chunk, or Unsloth's
    /// `unsloth_fused_ce_loss`, sized by the memory free at its first call.
    pub fused_chunks: super::framework::FusedChunks,
    /// Selective checkpointing (torchtitan's per-op policy), with `checkpointing`.
    pub selective: bool,
    /// Unsloth's offloaded checkpointing, with `checkpointing`: the layers' inputs in host RAM.
    pub offloaded_inputs: bool,
    /// CPU offload in effect (`offload`, under ZeRO 1–3; the parameters only under ZeRO-3).
    pub offload: Offload,
    /// The ZeRO stage asked for (`zero`), on one GPU too: DeepSpeed's offload and buckets run there.
    pub zero_stage: u8,
    /// DeepSpeed's ZeRO-3 (`zero=3&zero3=deepspeed`), on one GPU too: 16-bit partitions and
    /// gradient partitions, and an fp32 copy of the gradients at the step.
    pub deepspeed_zero3: bool,
    /// A frozen base's stored weights, counted once (the weights, gathered-layer and quant-state
    /// lines read them).
    pub base_weights: Option<super::weights::StoredWeights>,
}

/// RoPE's cos/sin tables resident on the GPU (`rope_cache`): a cos and a sin table of
/// `positions` × `dim` elements, `tables` times (once for the model, or in every attention layer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RopeTables {
    pub tables: u64,
    pub positions: u64,
    pub dim: u64,
    pub element_bytes: f64,
}

impl RopeTables {
    /// Unsloth's dynamic tables start at `max(seq, context)` positions up to 4 × 8192 and grow to
    /// whole 8,192-token steps for a longer sequence; before 2024.8 they cover `max(seq, context)`.
    pub fn of(arch: &Architecture, seq: u64, cache: RopeCache) -> Option<RopeTables> {
        if arch.learned_positions > 0 {
            return None;
        }
        let wanted = seq.max(arch.max_context);
        const FIRST: u64 = 4 * 8192;
        const STEP: u64 = 8192;
        let grown = |first: u64| if seq > first { seq.div_ceil(STEP).saturating_mul(STEP) } else { first };
        let (tables, positions) = match cache {
            RopeCache::None => return None,
            RopeCache::Model => (1, grown(wanted.min(FIRST))),
            RopeCache::Layer => (arch.attention_layers(), grown(wanted.min(FIRST))),
            RopeCache::LayerFull => (arch.attention_layers(), wanted),
        };
        let dim = arch.mla.as_ref().map_or(arch.head_dim, |m| m.qk_rope_head_dim);
        // Unsloth's GemmaFixedRotaryEmbedding keeps fp32 tables (Gemma's four norms per layer).
        let element_bytes = if arch.norms_per_layer == 4 { 4.0 } else { 2.0 };
        Some(RopeTables { tables, positions, dim, element_bytes })
    }

    pub fn bytes(&self) -> f64 {
        self.tables as f64 * 2.0 * self.positions as f64 * self.dim as f64 * self.element_bytes
    }
}

impl Training {
    /// DeepSpeed runs the step (`zero=1|2`, or `zero=3&zero3=deepspeed`), on one GPU too: its
    /// `initialize` sets up an NCCL process group whatever the world size.
    pub fn deepspeed(&self) -> bool {
        self.deepspeed_buckets.is_some() || self.deepspeed_zero3
    }

    /// The optimizer (master weights, states, the step) lives in host RAM.
    pub fn optimizer_offloaded(&self) -> bool {
        self.offload != Offload::None
    }

    /// The parameter shards live in host RAM too (ZeRO-3's offload_param, FSDP's CPUOffload).
    pub fn params_offloaded(&self) -> bool {
        self.offload == Offload::All
    }

    /// One fp32 copy of the trainable parameters this GPU steps (sharded from ZeRO-1 on): the
    /// master weights, an offloaded optimizer's fp32 gradients, DeepSpeed's fp32 partition copies.
    pub fn fp32_partition_bytes(&self) -> f64 {
        self.trainable as f64 * 4.0 / self.shard.divisor(1)
    }

    /// Gradients leave the GPU as they are reduced (offload from ZeRO-2 on; ZeRO-1 reduces only at
    /// the accumulation boundary, so its 16-bit gradients stay until then).
    pub fn gradients_offloaded(&self) -> bool {
        self.optimizer_offloaded() && self.zero_stage >= 2
    }
}

/// An inference forward pass (prefill, then decoding).
#[derive(Clone, Debug, PartialEq)]
pub struct Inference {
    /// The served weights' format and the layers it covers.
    pub weights: WeightFormat,
    /// Tensor-parallel GPUs.
    pub tp: u64,
    /// A serving grid (vLLM, SGLang: serving::grid): pipeline stages, data-parallel ranks, expert
    /// parallel (`ep` > 1), and the stage billed (`None`: the one that binds the pool); with
    /// `engine=hf`, `pp` is the GPUs of a device map (super::device_map) and `stage` the one billed.
    pub pp: u64,
    pub dp: u64,
    pub ep: u64,
    pub stage: Option<u64>,
    pub kv: KvDtype,
    pub generated: u64,
    /// What serves it (resolved against the card by `ledger::serving`).
    pub engine: EngineSettings,
    /// The checkpoint stores a tied model's LM head apart (`head_copy`).
    pub head_copy: bool,
    /// AutoGPTQ's exllama kernel version (`exllama`; 0 = none billed).
    pub exllama: u8,
    /// AutoAWQ's GEMV kernel instead of GEMM (`awq_version=gemv`).
    pub awq_gemv: bool,
    /// A PEFT LoRA adapter's parameters loaded over the base, unmerged (`adapter`; 0 = none).
    pub adapter_parameters: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Work {
    Train(Training),
    Infer(Inference),
}

/// Images fed to a vision tower.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VisionInput {
    pub images: u64,
    pub image: super::architecture::ImageSize,
}

/// The resolved scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan<'a> {
    pub arch: &'a Architecture,
    /// The card (a serving engine budgets from what PyTorch reports of it).
    pub gpu: &'a Gpu,
    /// Text tokens per sequence (the prompt, for inference).
    pub text_tokens: u64,
    /// Tokens the language model sees per sequence: text + vision.
    pub tokens: u64,
    /// Tokens per sequence whose logits a training loss computes: all of them, or GRPO's and PPO's
    /// completion (TRL's `logits_to_keep`, verl's response slice).
    pub logit_tokens: u64,
    pub batch: u64,
    pub gpus: u64,
    /// The model's parameters (`Architecture::parameters`, counted once).
    pub parameters: u64,
    pub acts: Dtype,
    pub kernel: AttentionKernel,
    /// The attention mask the model's forward builds (inference: `mask`).
    pub mask: super::scenario::AttentionMask,
    pub vision: Option<VisionInput>,
    /// CUDA context and libraries per process, in MiB (never negative or NaN).
    pub overhead_mib: f64,
    /// `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` (`alloc=expandable`).
    pub expandable_segments: bool,
    /// RoPE's cos/sin tables as the link (or the framework) says (`rope_cache`); in inference
    /// `generate()`'s release decides where the link says nothing (`inference::rope_tables`).
    pub rope_cache: RopeCache,
    pub drill: Drill,
    pub work: Work,
    /// What resolving assumed or replaced, for the bill's notes.
    pub notes: Vec<Note>,
}

/// NCCL's communicator buffers per GPU when `gpus` > 1 (its channels' send/receive buffers, the
/// custom all-reduce's), outside PyTorch's allocator: 0.25 GiB over PCIe / NVLink, 1.9 GiB on the
/// NVSwitch systems of Hopper and later, where NCCL also sets up NVLS buffers. Fitted to vLLM's
/// start-up logs (docs/serving.md: Qwen2.5-32B TP 2 on L40S 0.30 GiB, Qwen3-235B TP 4 on H200
/// 2.04 GiB of non-torch memory); a training job's data-parallel communicator is one such.
pub const NCCL_GIB: f64 = 0.25;
pub const NCCL_NVLS_GIB: f64 = 1.9;

impl Plan<'_> {
    /// The card is on an NVSwitch system of Hopper or later (NCCL's NVLS).
    pub fn nvls(&self) -> bool {
        matches!(self.gpu.id, Some("h100-80g" | "h800" | "h200" | "h20" | "h20-141g" | "b200"))
    }

    /// The card is a data-centre module whose GPUs talk over NVLink (or AMD's Infinity Fabric):
    /// NCCL opens many channels between them (`parallel::nccl`).
    pub fn nvlink(&self) -> bool {
        self.nvls()
            || matches!(
                self.gpu.id,
                Some("v100-16g" | "v100-32g" | "a100-40g" | "a800-40g" | "a100-80g" | "a800-80g" | "mi300x")
            )
    }

    /// NCCL's buffers on each of `gpus` GPUs (0 on one, unless DeepSpeed runs the step: its
    /// process group has a communicator of one rank).
    pub fn nccl_bytes(&self, gpus: u64) -> f64 {
        let communicator = gpus > 1 || self.training().is_some_and(Training::deepspeed);
        let gib = match gpus {
            _ if !communicator => 0.0,
            // NVLS needs peers.
            _ if self.nvls() && gpus > 1 => NCCL_NVLS_GIB,
            _ => NCCL_GIB,
        };
        gib * super::scenario::GIB
    }

    pub fn training(&self) -> Option<&Training> {
        match &self.work {
            Work::Train(t) => Some(t),
            Work::Infer(_) => None,
        }
    }
}

/// The plan of `s`.
pub fn resolve(s: &Scenario) -> Plan<'_> {
    let mut notes = Vec::new();
    let parameters = s.architecture.parameters();
    // Served or generated: `tp` is the tensor-parallel size as `gpus` is.
    let inference_tp = s.inference_tp();
    // vLLM and SGLang bill `pp`, `dp` and `ep` (serving::grid; on the page, the reader worker:
    // `Scenario::serves_a_grid`); the rest of a grid is said, not billed.
    let vllm = s.serving.engine == super::scenario::Engine::Vllm;
    // SGLang: its pipeline, data-parallel attention and expert parallel.
    let sglang = s.serving.engine == super::scenario::Engine::Sglang;
    // transformers' generate() over accelerate's device_map="auto": `pp` GPUs (super::device_map).
    let hf_map = s.serving.engine == super::scenario::Engine::Hf;
    let l = &s.layout;
    let unbilled: &[u64] = match () {
        _ if vllm || sglang => &[l.etp, l.cp],
        _ if hf_map => &[l.ep, l.etp, l.cp, l.dp],
        _ => &[l.pp, l.ep, l.etp, l.cp, l.dp],
    };
    if s.mode == Mode::Infer && unbilled.iter().any(|&x| x > 1) {
        notes.push(Note { key: "serving_grid", text: msg!(NoteServingGrid, Arg::Int(inference_tp)) });
    }
    // A rollout by `generate()` or by an engine on the trainer's weights has no Megatron form: billed
    // on `gpus` and `zero`, said, not hidden.
    // (The page's build leaves an RL step on a grid to the reader worker, `Scenario::billed_on_demand`.)
    if !cfg!(feature = "page") && s.is_rl() && s.layout.is_grid() && !s.bills_a_grid() && !s.rl_on_grid() {
        notes.push(Note { key: "rl_grid", text: msg!(NoteRlGrid) });
    }
    // The page's build never bills a served grid itself (`estimate` asks the reader worker), so
    // its code for one is left out there.
    let (vllm, sglang, hf_map) = if cfg!(feature = "page") { (false, false, false) } else { (vllm, sglang, hf_map) };
    let work = match s.mode {
        Mode::Train => Work::Train(resolve_training(s, parameters, &mut notes)),
        Mode::Infer => Work::Infer(Inference {
            weights: weight_format(s, s.quant),
            tp: inference_tp,
            pp: if vllm || sglang || hf_map { s.layout.pp.max(1) } else { 1 },
            dp: if vllm || sglang { s.layout.dp.max(1) } else { 1 },
            ep: if vllm || sglang { s.layout.ep.max(1) } else { 1 },
            stage: s.layout.stage.filter(|_| vllm || sglang || hf_map),
            kv: s.kv,
            generated: s.generated,
            engine: s.serving,
            head_copy: s.head_copy,
            exllama: s.exllama_version(),
            awq_gemv: s.awq_gemv,
            adapter_parameters: if s.adapter && s.serving.engine == super::scenario::Engine::Hf {
                lora_parameters(&s.architecture, s.targets, s.rank)
            } else {
                0
            },
        }),
    };
    if let Some(ram_gb) = s.gpu.unified_ram_gb {
        let text = msg!(NoteUnifiedMemory, Arg::Int(ram_gb), Arg::Bytes(s.gpu.bytes as f64));
        notes.push(Note { key: "unified_memory", text });
    }
    let vision =
        (s.architecture.vision.is_some() && s.images > 0).then_some(VisionInput { images: s.images, image: s.image });
    Plan {
        arch: &s.architecture,
        gpu: &s.gpu,
        text_tokens: s.seq,
        tokens: s.sequence_tokens(),
        logit_tokens: if s.generates() { s.rl.completion_len.min(s.sequence_tokens()) } else { s.sequence_tokens() },
        batch: s.batch,
        gpus: if s.mode == Mode::Infer { inference_tp } else { s.gpus },
        parameters,
        acts: activation_dtype(s),
        kernel: s.attention,
        mask: s.mask,
        vision,
        overhead_mib: if s.overhead_mib.is_finite() { s.overhead_mib.max(0.0) } else { 0.0 },
        expandable_segments: s.alloc == super::scenario::Allocator::Expandable,
        rope_cache: s.rope_cache,
        drill: s.drill,
        work,
        notes,
    }
}

/// Activations are 16-bit unless the scenario computes in fp32 (fp32 full or LoRA training; fp32
/// served weights). QLoRA computes in bf16 whatever its precision says.
fn activation_dtype(s: &Scenario) -> Dtype {
    match (s.mode, s.method, s.precision) {
        (Mode::Train, Method::Full | Method::Lora, Precision::Fp32) => Dtype::Fp32,
        (Mode::Infer, _, _) if s.quant == StorageFormat::Fp32 => Dtype::Fp32,
        _ => Dtype::Bf16,
    }
}

/// The routed experts a framework's preparation leaves in fp32 (`Training::experts_fp32`): those
/// the base keeps 16-bit.
#[cfg(not(feature = "page"))]
fn experts_fp32(s: &Scenario, base: Base) -> u64 {
    match base {
        Base::Frozen(f) if super::framework::upcasts_kept_experts(s) => f.kept_experts,
        _ => 0,
    }
}

/// Whether PEFT's k-bit preparation ran, and whether it left the embedding and LM head in fp32.
/// PEFT prepares only a frozen bitsandbytes base (NF4, int8) for k-bit training; DeepSpeed's
/// engine casts the module back to its 16-bit dtype (`module.half()` / `bfloat16()`); TRL's recipe
/// casts the embedding and LM head back to bf16, PEFT's keeps them in fp32.
fn kbit_preparation(s: &Scenario, base: Base, deepspeed: bool, notes: &mut Vec<Note>) -> (bool, bool) {
    let kbit_prepared = matches!(s.recipe(), Recipe::Peft | Recipe::Trl)
        && !deepspeed
        && matches!(base, Base::Frozen(f) if f.format.is_bitsandbytes());
    let fp32_head = kbit_prepared && s.recipe() == Recipe::Peft;
    if fp32_head && s.drill.fp32_module {
        notes.push(Note { key: "fp32_module_recipe", text: msg!(NoteFp32ModuleRecipe) });
    }
    (kbit_prepared, fp32_head)
}

/// The gradients' dtype; `fsdp_master` when FSDP shards fp32 master weights.
fn gradient_dtype(s: &Scenario, fsdp_master: bool) -> Dtype {
    match (s.method, s.precision) {
        (_, Precision::Fp32) => Dtype::Fp32,
        // FSDP's mixed precision keeps the sharded parameters in fp32 and reduces the gradients
        // into them (torchtitan's reduce dtype, FSDP1's upcast after backward).
        (Method::Full, _) if fsdp_master => Dtype::Fp32,
        (Method::Full, _) => Dtype::Bf16,
        // fp32 adapters have fp32 gradients.
        (_, Precision::Mixed | Precision::Fp8) => Dtype::Fp32,
        (_, Precision::Bf16) => Dtype::Bf16,
    }
}

fn resolve_training(s: &Scenario, parameters: u64, notes: &mut Vec<Note>) -> Training {
    if let Some(text) = super::framework::note(s) {
        notes.push(Note { key: "framework", text });
    }
    // An RL step's vLLM rollout takes `engine=vllm`'s release (`rl::engine_rollout`).
    let rollout = s.serving.engine == super::scenario::Engine::Vllm && s.rolls_out_on_vllm();
    if s.serving.engine != super::scenario::Engine::Hf && !rollout {
        notes.push(Note { key: "engine_ignored", text: msg!(NoteEngineIgnored, Arg::Code(s.serving.engine.id())) });
    }
    let arch = &s.architecture;
    let trains = match s.method {
        Method::Full => Trains::Full,
        Method::Lora | Method::Qlora => Trains::Adapters { targets: s.targets, rank: s.rank },
    };
    let vision_trains = !PAGE && s.trains_vision();
    let trainable = trainable_parameters(arch, trains, parameters, vision_trains);
    let base = training_base(s, notes);
    let deepspeed_zero3 = s.zero == 3 && s.zero3 == Zero3Impl::DeepSpeed;
    let deepspeed = s.runs_deepspeed();
    let (kbit_prepared, fp32_head) = kbit_preparation(s, base, deepspeed, notes);
    let adapters = if s.precision == Precision::Bf16 { Dtype::Bf16 } else { Dtype::Fp32 };
    let offload = effective_offload(s, notes);
    let shard = Sharding { gpus: s.gpus, zero: if s.gpus > 1 { s.zero.min(3) } else { 0 } };
    // ZeRO-3 by FSDP (over several GPUs); its hooks (FSDP1's reentrant retention) hold frozen units.
    let fsdp = shard.zero == 3 && !deepspeed_zero3;
    let frozen_fsdp = fsdp && s.method != Method::Full;
    let autocast = s.trainer_autocast();
    let master_weights = s.method == Method::Full && matches!(s.precision, Precision::Mixed | Precision::Fp8);
    let gradients = gradient_dtype(s, master_weights && fsdp);
    Training {
        method: s.method,
        precision: s.precision,
        trains,
        trainable,
        base,
        double_quant: s.double_quant,
        adapters,
        gradients,
        // States follow the master copy: fp32 for mixed and fp32 training, bf16 for pure bf16.
        states: adapters,
        master_weights,
        optimizer: s.optimizer,
        saved: saved_view(s, trains, base, kbit_prepared, autocast, fsdp),
        loss: s.loss(),
        checkpointing: s.checkpointing.is_on(),
        accum: s.accum,
        shard,
        kbit_prepared,
        autocast,
        sync_module_states: s.sync_module_states && fsdp,
        fused_experts: !PAGE && s.fused_experts == super::scenario::ExpertStorage::Quantized,
        #[cfg(not(feature = "page"))]
        experts_fp32: experts_fp32(s, base),
        keeps_dequantized: s.recipe() != Recipe::Fms
            && matches!(base, Base::Frozen(f) if f.format == StorageFormat::Gptq4),
        deepspeed_buckets: matches!(s.zero, 1 | 2).then_some((s.reduce_bucket_size, s.overlap_comm)),
        fp32_head,
        keeps_output: s.training_loop == TrainingLoop::Script,
        compiled: s.compile.layers(),
        kernels: s.kernels,
        tiled_mlp: s.tiled_mlp,
        vision_trains,
        loss_compiled: s.compile.loss(),
        fused_chunks: super::framework::fused_chunks(s),
        selective: s.checkpointing == Checkpointing::Selective,
        offloaded_inputs: s.checkpointing == Checkpointing::Offloaded,
        // FSDP1 with frozen units (PEFT's wrap policy puts the adapters in their own) and a
        // reentrant checkpoint around each layer: its post-backward hook on the recomputed input
        // keeps every layer's input and input gradient until backward ends.
        retains_input_grads: frozen_fsdp && s.checkpointing == Checkpointing::Reentrant,
        unknown_reentrant: frozen_fsdp && s.checkpointing == Checkpointing::Full,
        offload,
        zero_stage: s.zero.min(3),
        deepspeed_zero3,
        base_weights: match base {
            Base::Frozen(f) => Some(super::weights::stored_weights_of(arch, f, parameters)),
            Base::Trained(_) => None,
        },
    }
}

/// Parameters that receive gradients: every parameter but the encoders' in full fine-tuning, the
/// adapters with LoRA; a training vision tower (`vision_train`) adds its share ([`tower_trainable`]).
fn trainable_parameters(arch: &Architecture, trains: Trains, parameters: u64, vision_trains: bool) -> u64 {
    let tower = if !PAGE && vision_trains { tower_trainable(arch, trains) } else { 0 };
    tower
        + match trains {
            Trains::Full => parameters - arch.encoder_parameters(),
            Trains::Adapters { targets, rank } => lora_parameters(arch, targets, rank),
        }
}

/// A VLM's vision tower's share of the trainable parameters when it trains (`vision_train`): its
/// weights in full fine-tuning, its blocks' adapters with LoRA (0 without a tower).
pub fn tower_trainable(arch: &Architecture, trains: Trains) -> u64 {
    arch.vision.as_ref().map_or(0, |v| match trains {
        Trains::Full => v.parameters(arch.hidden),
        Trains::Adapters { targets, rank } => lora_parameters(&v.as_encoder(), targets, rank),
    })
}

/// The offload a scenario gets: none without ZeRO (DeepSpeed and FSDP offload only what they
/// partition), the optimizer only under ZeRO-1/2 (they do not partition the parameters).
fn effective_offload(s: &Scenario, notes: &mut Vec<Note>) -> Offload {
    match (s.offload, s.zero) {
        (Offload::None, _) => Offload::None,
        (_, 0) => {
            notes.push(Note { key: "offload_needs_zero", text: msg!(NoteOffloadNeedsZero, Arg::Code(s.offload.id())) });
            Offload::None
        }
        (Offload::All, 1 | 2) => {
            notes.push(Note {
                key: "offload_params_zero3",
                text: msg!(NoteOffloadParamsZero3, Arg::Int(s.zero as u64)),
            });
            Offload::Optimizer
        }
        (o, _) => o,
    }
}

/// The weights of a training run: trained in the precision's dtype (full fine-tuning), or a
/// frozen base in the scenario's format — except that GGUF cannot be trained on and QLoRA's
/// base is always 4-bit.
fn training_base(s: &Scenario, notes: &mut Vec<Note>) -> Base {
    #[cfg(not(feature = "page"))]
    let first = notes.len();
    let mut note = |key, text| notes.push(Note { key, text });
    let base = match s.method {
        Method::Full => {
            if s.quant != Scenario::default_quant(s.mode, s.method, &s.architecture) {
                note("quant_ignored", msg!(NoteQuantIgnored, Arg::Code(s.precision.id()), Arg::Code(s.quant.id())));
            }
            Base::Trained(if s.precision == Precision::Fp32 { Dtype::Fp32 } else { Dtype::Bf16 })
        }
        _ if s.quant.is_gguf() => {
            note("gguf_training", msg!(NoteGgufTraining, Arg::Code(s.quant.id())));
            Base::Frozen(weight_format(s, StorageFormat::Bf16))
        }
        Method::Qlora if !s.quant.is_four_bit() => {
            note("qlora_base", msg!(NoteQloraBase, Arg::Code(s.quant.id())));
            Base::Frozen(weight_format(s, StorageFormat::Nf4))
        }
        _ => Base::Frozen(weight_format(s, s.quant)),
    };
    // The fused experts the base keeps 16-bit, said before the base's other notes.
    #[cfg(not(feature = "page"))]
    if let Base::Frozen(f) = base {
        if f.kept_experts > 0 {
            let text = msg!(NoteExperts16bit, Arg::Count(f.kept_experts));
            notes.insert(first, Note { key: "fused_experts", text });
        }
    }
    base
}

/// `format` over the layers the scenario says it covers (all, unless `quant` is the checkpoint's).
fn weight_format(s: &Scenario, format: StorageFormat) -> WeightFormat {
    let (layers, keep16) = if format == s.quant { (s.quant_layers(), s.keep16) } else { (QuantLayers::All, 0) };
    WeightFormat {
        format,
        double_quant: s.double_quant,
        layers,
        head: s.quant_head,
        keep16,
        // transformers 5's fused experts, which bitsandbytes leaves 16-bit (the page's build sends
        // such a bill to the reader worker: `Scenario::loads_moe_with_bnb`).
        #[cfg(not(feature = "page"))]
        kept_experts: if format.is_bitsandbytes() && s.keeps_experts_16bit() {
            s.architecture.routed_expert_parameters()
        } else {
            0
        },
    }
}

/// What the saved activations need to know about what trains.
fn saved_view(s: &Scenario, trains: Trains, base: Base, kbit_prepared: bool, autocast: bool, fsdp: bool) -> Trainable {
    match trains {
        Trains::Full => Trainable::All,
        Trains::Adapters { targets, rank } => Trainable::Lora {
            targets,
            rank,
            // fp32 adapters under bf16 autocast cast their input: one copy per adapter; so does
            // autocast for any adapter reading the prepared model's fp32 stream. FSDP's mixed
            // precision computes with 16-bit copies of the adapters, as DeepSpeed's 16-bit module.
            input_copies: autocast && !fsdp || kbit_prepared,
            fp32_stream: kbit_prepared,
            dropout: s.lora_dropout > 0.0,
            // bitsandbytes before 0.43.2 kept each quantized layer's input (QLoRA always has a
            // 4-bit base; LoRA's base is quantized unless 16/32-bit, and GGUF is counted as bf16);
            // GPTQ has its own kernels.
            frozen_keeps_inputs: s.bnb == Bitsandbytes::Legacy
                && matches!(base, Base::Frozen(f) if (s.method == Method::Qlora || !f.format.is_dense()) && f.format != StorageFormat::Gptq4),
        },
    }
}

/// Trainable adapter parameters: Σ r·(d_in + d_out) over adapted linears, all layers.
pub fn lora_parameters(arch: &Architecture, targets: LoraTargets, rank: u64) -> u64 {
    arch.linears()
        .iter()
        .filter(|l| targets.includes(l.name))
        .map(|l| rank.saturating_mul(l.d_in + l.d_out).saturating_mul(l.count()))
        .fold(0, u64::saturating_add)
}

/// The plan's message for a trained base's dtype label: the chapter's "bf16 working copy" beside
/// fp32 master weights.
pub fn trained_weights_label(t: &Training) -> Arg {
    match t.precision {
        Precision::Mixed | Precision::Fp8 => Msg::plain(super::msg::MsgId::WorkingCopy).arg(),
        Precision::Bf16 => Arg::Code("bf16"),
        Precision::Fp32 => Arg::Code("fp32"),
    }
}

#[cfg(test)]
mod tests {
    use super::{resolve, Base, Dtype, Training, Work};
    use crate::ledger::scenario::{Method, Precision, Scenario};
    use crate::ledger::storage::StorageFormat;

    fn scenario(method: Method, f: impl FnOnce(&mut Scenario)) -> Scenario {
        let mut s = Scenario { method, ..Scenario::default() };
        s.quant = Scenario::default_quant(s.mode, method, &s.architecture);
        f(&mut s);
        s
    }

    fn training(s: &Scenario) -> Training {
        match resolve(s).work {
            Work::Train(t) => t,
            Work::Infer(_) => panic!("not training"),
        }
    }

    /// The chapter's mixed precision (§1): bf16 weights and gradients, fp32 master weights and
    /// AdamW states; LoRA keeps fp32 adapters with fp32 gradients; pure bf16 keeps everything bf16.
    #[test]
    fn precision_gives_each_tensor_its_dtype() {
        let full = training(&scenario(Method::Full, |_| {}));
        assert_eq!(
            (full.base, full.gradients, full.states, full.master_weights),
            (Base::Trained(Dtype::Bf16), Dtype::Bf16, Dtype::Fp32, true)
        );
        let lora = training(&scenario(Method::Lora, |_| {}));
        assert_eq!(
            (lora.adapters, lora.gradients, lora.states, lora.master_weights),
            (Dtype::Fp32, Dtype::Fp32, Dtype::Fp32, false)
        );
        let bf16 = training(&scenario(Method::Lora, |s| s.precision = Precision::Bf16));
        assert_eq!((bf16.adapters, bf16.gradients, bf16.states), (Dtype::Bf16, Dtype::Bf16, Dtype::Bf16));
        let fp32 = training(&scenario(Method::Full, |s| s.precision = Precision::Fp32));
        assert_eq!((fp32.base, fp32.gradients, fp32.master_weights), (Base::Trained(Dtype::Fp32), Dtype::Fp32, false));
    }

    /// QLoRA's base is always 4-bit, GGUF is never trained on, full fine-tuning ignores `quant`;
    /// each replacement leaves a note.
    #[test]
    fn base_format_rules_leave_notes() {
        for (method, quant, base, note) in [
            (Method::Qlora, StorageFormat::Int8, StorageFormat::Nf4, "qlora_base"),
            (Method::Lora, StorageFormat::Q4KM, StorageFormat::Bf16, "gguf_training"),
            (Method::Qlora, StorageFormat::Gptq4, StorageFormat::Gptq4, ""),
        ] {
            let s = scenario(method, |s| s.quant = quant);
            let plan = resolve(&s);
            assert_eq!(
                plan.training().map(|t| match t.base {
                    Base::Frozen(w) => w.format,
                    Base::Trained(_) => StorageFormat::Fp32,
                }),
                Some(base),
                "{quant:?}"
            );
            assert_eq!(plan.notes.first().map_or("", |n| n.key), note, "{quant:?}");
        }
        let s = scenario(Method::Full, |s| s.quant = StorageFormat::Nf4);
        assert_eq!(resolve(&s).notes[0].key, "quant_ignored");
    }

    /// ZeRO shards only over more than one GPU.
    #[test]
    fn zero_needs_several_gpus() {
        assert_eq!(training(&scenario(Method::Full, |s| s.zero = 3)).shard.zero, 0);
        let t = training(&scenario(Method::Full, |s| (s.zero, s.gpus) = (3, 4)));
        assert_eq!((t.shard.zero, t.shard.divisor(3), t.shard.divisor(1)), (3, 4.0, 4.0));
        assert_eq!(training(&scenario(Method::Full, |s| (s.zero, s.gpus) = (1, 4))).shard.divisor(2), 1.0);
    }
}
