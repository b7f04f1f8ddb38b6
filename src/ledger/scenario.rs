//! The scenario: everything the memory bill depends on, as typed values.
//!
//! This is the one vocabulary shared by the share URL, the CLI and the UI (the text form lives in
//! `crate::query`). Defaults are part of the public contract: a link that omits a key means the
//! default, so a default never changes once published.

use super::architecture::{Architecture, ImageSize, VisionKind};
use super::presets;
use super::storage::{KvDtype, QuantLayers, StorageFormat};

macro_rules! keyword_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $id:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The id used in links and on the command line.
            pub fn id(self) -> &'static str {
                match self { $($name::$variant => $id),+ }
            }

            pub fn from_id(id: &str) -> Option<$name> {
                match id { $($id => Some($name::$variant),)+ _ => None }
            }
        }
    };
}

keyword_enum!(
    /// A pipeline's schedule (`schedule`): how many micro-batches a stage holds in flight.
    /// `1f1b` = one forward, one backward (Megatron's default: stage p of P holds P − p);
    /// `interleaved` = 1F1B over `vpp` virtual stages per GPU (Megatron's penalty 1 + (P − 1) / (P·vpp));
    /// `gpipe` = every micro-batch's forward before any backward; `zb` = zero-bubble ZB-H1 (1F1B's count).
    Schedule { OneFOneB => "1f1b", Interleaved => "interleaved", Gpipe => "gpipe", ZeroBubble => "zb" }
);

/// A Megatron-style grid of GPUs for training (`tp`, `pp`, `ep`, `etp`, `cp`, `dp`): the bill is one
/// GPU's, of the worst pipeline stage unless `stage` picks one. Every size 1 with `given` false is
/// no grid: `gpus` alone keeps its meaning (data parallel in training).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub tp: u64,
    pub pp: u64,
    pub ep: u64,
    pub etp: u64,
    pub cp: u64,
    pub dp: u64,
    /// Sequence parallel over `tp`: the norms' and residual's activations split too.
    pub sp: bool,
    /// Megatron's distributed optimizer: fp32 master weights and states sharded over `dp` × `cp`.
    pub dist_optim: bool,
    pub schedule: Schedule,
    /// Virtual pipeline stages per GPU (`interleaved`).
    pub vpp: u64,
    /// Micro-batches per step (0: the scenario's `accum`).
    pub microbatches: u64,
    /// The pipeline stage billed (0-based); `None`: the worst.
    pub stage: Option<u64>,
    /// Megatron's precision-aware optimizer (`--use-precision-aware-optimizer`): the bytes of each
    /// Adam moment (`--exp-avg-dtype`, `--exp-avg-sq-dtype`: `moments`) and of `main_grad`
    /// (`--main-grads-dtype`: `main_grads`); 4 and 4 without it.
    pub moment_bytes: u8,
    pub main_grad_bytes: u8,
    /// Megatron's uneven pipeline: the decoder layers of the first and of the last stage
    /// (`--decoder-first-pipeline-num-layers`, `--decoder-last-pipeline-num-layers`); the stages
    /// between share the rest.
    pub first_stage_layers: Option<u64>,
    pub last_stage_layers: Option<u64>,
    /// Multi-token-prediction layers trained beside the model (`--mtp-num-layers`), on the last
    /// stage as Megatron-Core places them without a custom layout.
    pub mtp_layers: u64,
}

/// The layers of a pipeline's end stages (when given) and of the stages between them.
struct PipelineSplit {
    first: Option<u64>,
    last: Option<u64>,
    /// The stages between, which share `rest` layers.
    middle: u64,
    rest: u64,
}

/// The dtypes the precision-aware optimizer stores Adam's moments in (`moments`), with their bytes.
pub const MOMENT_DTYPES: [(&str, u8); 4] = [("fp32", 4), ("bf16", 2), ("fp16", 2), ("fp8", 1)];

impl Default for Layout {
    fn default() -> Self {
        Layout {
            tp: 1,
            pp: 1,
            ep: 1,
            etp: 1,
            cp: 1,
            dp: 1,
            sp: false,
            dist_optim: false,
            schedule: Schedule::OneFOneB,
            vpp: 1,
            microbatches: 0,
            stage: None,
            moment_bytes: 4,
            main_grad_bytes: 4,
            first_stage_layers: None,
            last_stage_layers: None,
            mtp_layers: 0,
        }
    }
}

impl Layout {
    /// Whether the scenario is a grid at all: any size above 1, sequence parallel, the
    /// distributed optimizer or a stage picked.
    pub fn is_grid(&self) -> bool {
        [self.tp, self.pp, self.ep, self.etp, self.cp, self.dp].iter().any(|&x| x > 1)
            || self.sp
            || self.dist_optim
            || self.stage.is_some()
    }

    /// GPUs in the grid: tp × pp × cp × dp (the experts' grid ep × etp lies inside it).
    pub fn gpus(&self) -> u64 {
        self.tp.saturating_mul(self.pp).saturating_mul(self.cp).saturating_mul(self.dp)
    }

    /// The decoder layers of stage `p` (0-based) of a model of `layers` layers, as Megatron-Core's
    /// `get_num_layers_to_build` splits them: the first and last stages hold what
    /// `first_stage_layers` and `last_stage_layers` say, the stages between share the rest evenly.
    /// Where Megatron would refuse an uneven rest (it asserts that the stages divide it), the
    /// first of those stages take one more each ([`Layout::uneven_rest`] says how many).
    pub fn stage_layers(&self, layers: u64, p: u64) -> std::ops::Range<u64> {
        let split = self.split(layers);
        if let (0, Some(n)) = (p, split.first) {
            return 0..n;
        }
        if let (true, Some(n)) = (self.is_last_stage(p), split.last) {
            return layers - n..layers;
        }
        let (lead, tail) = (split.first.unwrap_or(0), split.last.unwrap_or(0));
        let middle = split.middle.max(1);
        let m = p - u64::from(split.first.is_some());
        let (base, extra) = (split.rest / middle, split.rest % middle);
        let start = (lead + m * base + m.min(extra)).min(layers - tail);
        start..(start + base + u64::from(m < extra)).min(layers - tail)
    }

    /// Whether stage `p` is the pipeline's last (the LM head's, the logits', the MTP layers').
    pub fn is_last_stage(&self, p: u64) -> bool {
        p + 1 == self.pp.max(1)
    }

    /// How the layers split over the stages: `first_stage_layers` and `last_stage_layers` as they
    /// apply (only under a pipeline, never more than the model's layers), and how many stages
    /// share the rest.
    fn split(&self, layers: u64) -> PipelineSplit {
        let piped = self.pp > 1;
        let first = self.first_stage_layers.filter(|_| piped).map(|n| n.min(layers));
        let after_first = layers - first.unwrap_or(0);
        // Two stages, both given: the last holds what the first leaves, so no layer is lost.
        let last = match (self.pp, first) {
            (2, Some(_)) => self.last_stage_layers.map(|_| after_first),
            _ => self.last_stage_layers.filter(|_| piped).map(|n| n.min(after_first)),
        };
        let middle = self.pp.max(1) - u64::from(first.is_some()) - u64::from(last.is_some());
        PipelineSplit { first, last, middle, rest: after_first - last.unwrap_or(0) }
    }

    /// Where the stages between the first and last do not share their layers evenly: how many of
    /// them take one layer more, and that count of layers. `None` when the split is even.
    pub fn uneven_rest(&self, layers: u64) -> Option<(u64, u64)> {
        let PipelineSplit { middle, rest, .. } = self.split(layers);
        (middle > 0 && rest % middle != 0).then(|| (rest % middle, rest / middle + 1))
    }

    /// Whether Megatron's precision-aware optimizer runs (`--use-precision-aware-optimizer`): a
    /// moment or `main_grad` in a dtype other than fp32 needs it.
    pub fn precision_aware(&self) -> bool {
        self.moment_bytes != 4 || self.main_grad_bytes != 4
    }

    /// The data-parallel size of the experts' weights (Megatron's expert data parallel):
    /// tp × cp × dp ÷ (ep × etp).
    pub fn expert_dp(&self) -> u64 {
        (self.tp.saturating_mul(self.cp).saturating_mul(self.dp) / self.ep.saturating_mul(self.etp).max(1)).max(1)
    }
}

keyword_enum!(
    /// Training step or inference (prefill + decode).
    Mode { Train => "train", Infer => "infer" }
);
keyword_enum!(
    /// Which parameters are trained.
    Method { Full => "full", Lora => "lora", Qlora => "qlora" }
);
keyword_enum!(
    /// Numerics of full fine-tuning: `mixed` = bf16 weights + fp32 master weights and optimizer
    /// states (the chapter's 2 + 2 + 8 + 4 = 16 B per parameter with AdamW); `bf16` = everything in
    /// bf16; `fp32` = everything in fp32; `fp8` = mixed with torchao's float8 linears, whose FSDP
    /// all-gather moves fp8 weights.
    Precision { Mixed => "mixed", Bf16 => "bf16", Fp32 => "fp32", Fp8 => "fp8" }
);
keyword_enum!(
    /// `adamw` = PyTorch's AdamW with its default foreach step (a full-size temporary per state);
    /// `adamw_fused` = AdamW stepped by a fused kernel, in place: DeepSpeed's FusedAdam, which a
    /// ds_config's `optimizer` of type Adam or AdamW builds (`runtime/engine.py`
    /// `_configure_basic_optimizer`), torch's `fused=True`, the Trainer's `adamw_torch_fused`.
    Optimizer {
        AdamW => "adamw",
        AdamWFused => "adamw_fused",
        AdamW8bit => "adamw8bit",
        Sgd => "sgd",
        SgdMomentum => "sgdm",
        Adafactor => "adafactor"
    }
);
keyword_enum!(
    /// Which linear layers get LoRA adapters.
    LoraTargets { Qv => "qv", Qkvo => "qkvo", All => "all" }
);
keyword_enum!(
    /// Attention kernel: `eager` materialises the s² score and probability tensors, `sdpa`/`flash` do not.
    AttentionKernel { Eager => "eager", Sdpa => "sdpa", Flash => "flash" }
);

keyword_enum!(
    /// How the training loss is computed from the LM head, which decides the logits' memory:
    /// `hf` = Hugging Face transformers ≥ 4.49 (bf16 logits, an fp32 upcast, fp32 log-probabilities;
    /// the backward peak holds three fp32 copies); `hf_shift` = transformers ≤ 4.48, which also made
    /// a shifted fp32 copy; `chunked` = chunked cross-entropy (LitGPT, torchtune): bf16 logits and
    /// fp32 log-probabilities one chunk at a time; `fused` = a fused linear-cross-entropy kernel
    /// (Liger, Apple's Cut Cross-Entropy, Unsloth) that never materialises the logits; `half` = a
    /// model's own cross-entropy on its 16-bit logits, without upcast (remote-code models such as
    /// Qwen v1, Baichuan 2, InternLM: a shifted 16-bit copy and 16-bit log-probabilities);
    /// `selective` = TRL's `selective_log_softmax` (DPO, GRPO, PPO; ms-swift's and verl's own copy):
    /// the 16-bit logits and, one sequence at a time, their 16-bit log-softmax, which autograd keeps;
    /// `inplace` = a cross-entropy kernel that keeps the model's 16-bit logits with an fp32
    /// log-sum-exp per token and writes their gradient into them (Unsloth before 2024.11.7,
    /// `fast_cross_entropy_loss`).
    LossKernel {
        Hf => "hf",
        HfShift => "hf_shift",
        Chunked => "chunked",
        Fused => "fused",
        Half => "half",
        Selective => "selective",
        Inplace => "inplace",
    }
);

keyword_enum!(
    /// The layer's kernels in training (`kernels`): transformers' modules (`hf`); Liger's fused
    /// RMSNorm, SwiGLU and RoPE (`liger`: the norm keeps its input and per-row statistics instead of
    /// an fp32 copy, SwiGLU keeps its two inputs and computes its backward in place); or Unsloth's
    /// (`unsloth`: the same, and its fused LoRA autograd functions, `fast_lora.py`, which keep only
    /// each projection's input and recompute the rank-r intermediates and the MLP's product in backward).
    Kernels { Hf => "hf", Liger => "liger", Unsloth => "unsloth" }
);

impl Kernels {
    /// Whether the norm and the gated MLP's pointwise work are fused kernels.
    pub fn fused(self) -> bool {
        self != Kernels::Hf
    }
}

keyword_enum!(
    /// The model code `generate()` runs (`mask`): `causal` = transformers' own classes (no
    /// materialized mask without padding); `full` = ChatGLM's remote code (ChatGLM2/3, GLM-4-9B),
    /// which returns only the last position's logits (`return_last_logit`) and grows the prompt's
    /// cache by `torch.cat` after each layer, its prefill replayed by `super::chatglm`; it builds a
    /// (batch, 1, s, s) mask only under eager attention or for a padded batch.
    AttentionMask { Causal => "causal", Full => "full" }
);

keyword_enum!(
    /// bitsandbytes' 4-bit matmul for a frozen base: `legacy` (before 0.43.2) kept each layer's input
    /// for backward, so QLoRA saved the inputs of every linear layer as full fine-tuning does;
    /// `fixed` (0.43.2 on, its changelog's "QLoRA bug fix") keeps only the quantized weight.
    Bitsandbytes { Fixed => "fixed", Legacy => "legacy" }
);

keyword_enum!(
    /// How a LoRA run over a bitsandbytes-quantized base is prepared: `peft` = PEFT's
    /// `prepare_model_for_kbit_training` under the Trainer's bf16 autocast (TRL's SFTTrainer before
    /// 0.26, most QLoRA tutorials): every non-quantized parameter (embedding, LM head, norms) cast to
    /// fp32, so the residual stream and the MLP's saved tensors are fp32 and autocast keeps a bf16
    /// copy of the LM head; `trl` = TRL's SFTTrainer 0.9–0.25 with `bf16`, which then casts the
    /// embedding and LM head back to bf16 and leaves the norms in fp32 (`peft_module_casting_to_bf16`):
    /// the fp32 stream stays, the fp32 head and its copy go; `plain` = the model as loaded (LitGPT,
    /// torchtune, TRL ≥ 0.26); `fms` = the model as loaded under fms-acceleration's accelerated PEFT,
    /// whose triton GPTQ kernel saves the packed weights for backward (`QuantLinearFunction`), where
    /// the PyTorch dequantization of auto-gptq / GPTQModel saves the dequantized fp16 weight.
    Recipe { Peft => "peft", Trl => "trl", Plain => "plain", Fms => "fms" }
);

keyword_enum!(
    /// Activation checkpointing per decoder layer (`gc`): off, every layer's input kept and the
    /// rest recomputed (`1`, non-reentrant: transformers 5's default, TRL ≥ 0.28), the same with
    /// torch's reentrant implementation (`reentrant`: transformers 4's `gradient_checkpointing_enable()`
    /// without kwargs), torchtitan's selective per-op policy (`sac`), or Unsloth's offloaded
    /// checkpoint (`unsloth`: `use_gradient_checkpointing="unsloth"`, each layer's input copied to
    /// pinned host RAM, the last layer's kept and one or two reload buffers on the GPU).
    Checkpointing { Off => "0", Full => "1", Reentrant => "reentrant", Selective => "sac", Offloaded => "unsloth" }
);

impl Checkpointing {
    /// Whether anything is recomputed in backward.
    pub fn is_on(self) -> bool {
        self != Checkpointing::Off
    }
}

keyword_enum!(
    /// torch.compile in training (`compile`): off, the model only (`model`: its loss runs eager —
    /// torchtitan's December 2024 benchmark, torchtune's recipes of late 2024, which dropped
    /// `compile_loss`'s result), or the model with its loss (`1`: transformers computes the loss
    /// inside the model; torchtune's chunked loss, torchtitan's `components/loss.py`).
    Compile { Off => "0", Model => "model", Full => "1" }
);

impl Compile {
    /// Whether the model's layers are compiled.
    pub fn layers(self) -> bool {
        self != Compile::Off
    }

    /// Whether the loss is compiled with them.
    pub fn loss(self) -> bool {
        self == Compile::Full
    }
}

keyword_enum!(
    /// The training loop around the step: `trainer` = Hugging Face's Trainer, TRL, Accelerate-style
    /// loops that drop the model's output before backward; `script` = a hand-written loop
    /// (`out = model(**batch); out.loss.backward()`, LitGPT, Answer.AI's train.py) that keeps the
    /// output — with its logits — through backward and until the next forward returns.
    TrainingLoop { Trainer => "trainer", Script => "script" }
);

keyword_enum!(
    /// PyTorch's caching allocator (`alloc`): its default segments, or `expandable` =
    /// `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`, which maps pages into one growing segment
    /// and gives back free pages before an OOM, so a step's freed tensors leave no holes.
    Allocator { Default => "default", Expandable => "expandable" }
);

keyword_enum!(
    /// RoPE's cos/sin tables kept on the GPU (`rope_cache`): `none` = computed from the positions at
    /// each forward (transformers' own classes from 4.41, Qwen2's from 4.45; before, `generate()`'s
    /// model keeps `layer_full`, which the inference plan applies by `engine_version`); `model` = one pair of tables
    /// for the model (Unsloth from 2025.1.1); `layer` = a pair in every attention layer (Unsloth
    /// 2024.8 – 2024.12: `max(seq, context)` positions up to 32,768, grown in 8,192-token steps for a
    /// longer sequence); `layer_full` = a pair per layer for the whole `max(seq, context)` (Unsloth
    /// before 2024.8).
    RopeCache { None => "none", Model => "model", Layer => "layer", LayerFull => "layer_full" }
);

keyword_enum!(
    /// Whose ZeRO-3 (`zero3`, with `zero=3`): PyTorch's FSDP full shard (fp32 shards under mixed
    /// precision, the 16-bit copy only where gathered) or DeepSpeed's stage 3 (16-bit partitions
    /// beside the fp32 master, 16-bit gradient partitions from the start, and an fp32 copy of them
    /// for the step; no FSDP hooks).
    Zero3Impl { Fsdp => "fsdp", DeepSpeed => "deepspeed" }
);

keyword_enum!(
    /// CPU offload under ZeRO / FSDP (`offload`): `optimizer` = DeepSpeed's `offload_optimizer`
    /// (ZeRO-Offload: the fp32 master, optimizer states and gradients in host RAM, the step on the
    /// CPU); `all` = the parameters' shards too (ZeRO-3's `offload_param`, FSDP's
    /// `CPUOffload(offload_params=True)`), gathered to the GPU a unit at a time.
    Offload { None => "none", Optimizer => "optimizer", All => "all" }
);

keyword_enum!(
    /// What runs the inference: `hf` = Hugging Face `generate()` (one call, the cache it grows); the
    /// serving engines size a KV pool from a memory budget at start-up and fill it with requests.
    Engine { Hf => "hf", Vllm => "vllm", Sglang => "sglang", Llamacpp => "llamacpp" }
);

keyword_enum!(
    /// Speculative decoding (`spec`): what proposes the tokens the served model verifies. `draft` =
    /// a separate small model (`spec_model`); `eagle` / `eagle3` = an EAGLE head (one decoder layer
    /// beside the model's own embedding and head; EAGLE-3 reads three hidden states and has its own
    /// head over a draft vocabulary); `mtp` = the checkpoint's multi-token-prediction layer
    /// (DeepSeek-V3, GLM-4.5, Qwen3-Next, MiMo); `ngram` = prompt lookup (no weights).
    SpecMethod { None => "none", Draft => "draft", Eagle => "eagle", Eagle3 => "eagle3", Mtp => "mtp", Ngram => "ngram" }
);

impl Engine {
    /// The engine's name as its project writes it, wherever the engine is shown.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Hf => "transformers",
            Engine::Vllm => "vLLM",
            Engine::Sglang => "SGLang",
            Engine::Llamacpp => "llama.cpp",
        }
    }
}

keyword_enum!(
    /// The framework a run trains with (`framework`): its release's defaults fill the keys a link
    /// leaves out (`super::framework`). `hf` is the Trainer as the other keys' defaults describe it.
    Framework {
        Hf => "hf",
        Trl => "trl",
        Unsloth => "unsloth",
        Llamafactory => "llamafactory",
        MsSwift => "ms-swift",
        Axolotl => "axolotl",
        Torchtune => "torchtune",
        Torchtitan => "torchtitan",
        Litgpt => "litgpt",
        Deepspeed => "deepspeed",
        Megatron => "megatron",
        Answerai => "answerai",
    }
);

impl Framework {
    /// The framework's name as its project writes it.
    pub fn name(self) -> &'static str {
        match self {
            Framework::Hf => "transformers Trainer",
            Framework::Trl => "TRL",
            Framework::Unsloth => "Unsloth",
            Framework::Llamafactory => "LLaMA-Factory",
            Framework::MsSwift => "ms-swift",
            Framework::Axolotl => "Axolotl",
            Framework::Torchtune => "torchtune",
            Framework::Torchtitan => "torchtitan",
            Framework::Litgpt => "LitGPT",
            Framework::Deepspeed => "DeepSpeed",
            Framework::Megatron => "Megatron-Core / Megatron-SWIFT",
            Framework::Answerai => "Answer.AI fsdp_qlora",
        }
    }
}

keyword_enum!(
    /// What the step optimises (`objective`): supervised fine-tuning, or a preference / RL objective
    /// whose step has more moments than forward and backward (`super::rl`).
    Objective { Sft => "sft", Dpo => "dpo", Grpo => "grpo", Ppo => "ppo" }
);

keyword_enum!(
    /// Where DPO's and the KL term's reference log-probabilities come from (`ref`): the policy with
    /// its adapters disabled (PEFT: no copy), a frozen copy of the model, or computed before training.
    Reference { Adapter => "adapter", Model => "model", Precomputed => "precomputed" }
);

keyword_enum!(
    /// What generates GRPO's and PPO's completions (`rollout`): `generate()` in the trainer, a vLLM
    /// engine in the trainer's process sharing the card (TRL's `vllm_mode="colocate"`, verl,
    /// OpenRLHF's `--colocate_all_models`), an engine that reads the trainer's own weights (Unsloth's
    /// `fast_inference`), or an engine on other GPUs.
    Rollout { Hf => "hf", Colocate => "colocate", Shared => "shared", Server => "server" }
);

keyword_enum!(
    /// What of the trainer leaves the card while a colocated engine generates (`rollout_offload`):
    /// `none`; `optimizer` = the fp32 master weights and the optimizer's states (ms-swift's
    /// `offload_optimizer`, verl's `optimizer_offload`); `all` = those and the trainer's weights and
    /// gradient buffer (ms-swift's `offload_model`, verl's `param_offload` and `grad_offload`).
    TrainerOffload { None => "none", Optimizer => "optimizer", All => "all" }
);

keyword_enum!(
    /// How PPO updates the critic (`ppo_update`): `apart` = its own forward, backward and step after
    /// the policy's (verl's and OpenRLHF's critic workers); `joint` = one forward and backward through
    /// the policy and the value model together (TRL's `PolicyAndValueWrapper`, which ms-swift's PPO
    /// runs): the critic's activations and gradients coexist with the policy's.
    PpoUpdate { Apart => "apart", Joint => "joint" }
);

/// The preference / RL part of a training scenario (`objective` other than `sft`).
#[derive(Clone, Debug, PartialEq)]
pub struct RlSettings {
    pub objective: Objective,
    /// `None`: `adapter` for LoRA / QLoRA, `model` for full fine-tuning.
    pub reference: Option<Reference>,
    /// Completions per prompt (TRL's `num_generations`, verl's `rollout.n`).
    pub generations: u64,
    pub prompt_len: u64,
    pub completion_len: u64,
    pub rollout: Rollout,
    /// The engine's `gpu_memory_utilization` on a shared card.
    pub rollout_util: f64,
    /// The engine's tensor-parallel size (`rollout_tp`: TRL's and ms-swift's
    /// `vllm_tensor_parallel_size`, verl's `rollout.tensor_model_parallel_size`).
    pub rollout_tp: u64,
    /// What of the trainer is in host RAM during the rollout.
    pub rollout_offload: TrainerOffload,
    /// vLLM's sleep level between rollouts: 0 = awake, 1 = weights to host RAM and the pool dropped,
    /// 2 = both dropped.
    pub sleep: u8,
    /// The KL term's weight: above 0 the step needs reference log-probabilities.
    pub beta: f64,
    /// Sequences per no-grad log-probability pass; `None`: the micro-batch.
    pub logprob_batch: Option<u64>,
    /// PPO's critic: a preset id, `None` = the policy's architecture.
    pub critic: Option<&'static str>,
    /// PPO's reward model: a preset id, `None` = a rule-based reward.
    pub reward: Option<&'static str>,
    /// PPO: the critic's update apart from the policy's, or joint with it.
    pub ppo_update: PpoUpdate,
}

impl Default for RlSettings {
    fn default() -> Self {
        RlSettings {
            objective: Objective::Sft,
            reference: None,
            generations: 8,
            prompt_len: 512,
            completion_len: 256,
            rollout: Rollout::Hf,
            rollout_util: 0.3,
            rollout_tp: 1,
            rollout_offload: TrainerOffload::None,
            sleep: 0,
            beta: 0.0,
            logprob_batch: None,
            critic: None,
            reward: None,
            ppo_update: PpoUpdate::Apart,
        }
    }
}

/// A release of a serving engine (`0.11`, `0.5.23`, llama.cpp's `b6182`) or of a training
/// framework (`5.25`, Unsloth's `2026.8.19`): the rules that changed between releases (defaults,
/// what the budget counts) follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release(pub u16, pub u16, pub u16);

impl Release {
    /// `0.11`, `0.19.1`, `v0.8.5`, or a llama.cpp build `b6182`; numbers below 10,000 (builds
    /// below 60,000).
    pub fn parse(text: &str) -> Option<Release> {
        let t = text.trim();
        if let Some(build) = t.strip_prefix('b') {
            let ok = !build.is_empty() && build.len() <= 5 && build.bytes().all(|b| b.is_ascii_digit());
            return ok.then(|| build.parse::<u16>().ok()).flatten().filter(|&n| n > 0).map(|n| Release(0, 0, n));
        }
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = [0u16; 3];
        let mut n = 0;
        for piece in t.split('.') {
            if n == 3 || piece.is_empty() || piece.len() > 4 || !piece.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            parts[n] = piece.parse().ok()?;
            n += 1;
        }
        (n >= 2).then_some(Release(parts[0], parts[1], parts[2]))
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.0, self.1, self.2) {
            (0, 0, build) => write!(f, "b{build}"),
            (a, b, 0) => write!(f, "{a}.{b}"),
            (a, b, p) => write!(f, "{a}.{b}.{p}"),
        }
    }
}

/// How a serving engine is configured; `None` is the engine's own default, which depends on its
/// release, the card and the model (resolved in `ledger::serving`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineSettings {
    pub engine: Engine,
    pub version: Option<Release>,
    /// vLLM's `gpu_memory_utilization`.
    pub gpu_util: Option<f64>,
    /// vLLM's `max_num_batched_tokens` (the profiling run's dummy batch), SGLang's `chunked_prefill_size`.
    pub max_batched_tokens: Option<u64>,
    /// CUDA graphs captured (vLLM's `enforce_eager` and SGLang's `disable_cuda_graph` turn them off).
    pub cuda_graphs: bool,
    /// vLLM's KV block size in tokens.
    pub block_size: Option<u64>,
    /// vLLM's `max_num_seqs`: requests scheduled at once (its sampler warm-up and CUDA graphs
    /// are sized by it too).
    pub max_num_seqs: Option<u64>,
    /// SGLang's `mem_fraction_static`.
    pub mem_fraction: Option<f64>,
    /// llama.cpp's `n_gpu_layers` (the output layer counts as one).
    pub gpu_layers: Option<u64>,
    /// Speculative decoding, its draft model (a preset id, for `spec=draft`) and the tokens it
    /// proposes per step (`num_speculative_tokens`; `None`: the method's usual count).
    pub spec: SpecMethod,
    pub spec_model: Option<&'static str>,
    pub spec_tokens: Option<u64>,
    /// Served LoRA: adapters on the GPU at once (vLLM's `max_loras`, SGLang's
    /// `max_loras_per_batch`; 0 = LoRA not enabled), their largest rank and the adapters cached
    /// in host RAM (vLLM's `max_cpu_loras`).
    pub max_loras: u64,
    pub max_lora_rank: Option<u64>,
    pub max_cpu_loras: Option<u64>,
    /// The share of each request's context that is a prefix common to all of them (a system
    /// prompt, few-shot examples): with prefix caching it is held once.
    pub prefix_share: f64,
    /// SGLang's hybrid pools: `swa_full_tokens_ratio`, `mamba_full_memory_ratio`,
    /// `max_mamba_cache_size`.
    pub swa_ratio: Option<f64>,
    pub mamba_ratio: Option<f64>,
    pub max_mamba_cache: Option<u64>,
    /// vLLM's `--kv-cache-memory` in bytes: the pool as given, the utilization ignored.
    pub kv_cache_memory: Option<u64>,
    /// `--max-model-len auto`: the context is the model's own (`Architecture::max_context`), and
    /// vLLM (0.14 on) lowers it to the longest one request that fits the pool.
    pub max_model_len_auto: bool,
    /// A VLM served: images and videos one prompt may carry (vLLM's `--limit-mm-per-prompt`;
    /// `None`: the engine's default, 999 in V1 and 1 in V0) and the image processor's
    /// `max_pixels` (`--mm-processor-kwargs`; `None`: the model's own). They size vLLM's
    /// profile of the vision encoder (`serving::encoder`).
    pub mm_limit: Option<u16>,
    pub mm_video: Option<u16>,
    pub max_pixels: Option<u32>,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            engine: Engine::Hf,
            version: None,
            gpu_util: None,
            max_batched_tokens: None,
            cuda_graphs: true,
            block_size: None,
            max_num_seqs: None,
            mem_fraction: None,
            gpu_layers: None,
            spec: SpecMethod::None,
            spec_model: None,
            spec_tokens: None,
            max_loras: 0,
            max_lora_rank: None,
            max_cpu_loras: None,
            prefix_share: 0.0,
            swa_ratio: None,
            mamba_ratio: None,
            max_mamba_cache: None,
            kv_cache_memory: None,
            max_model_len_auto: false,
            mm_limit: None,
            mm_video: None,
            max_pixels: None,
        }
    }
}

impl LoraTargets {
    /// Whether a linear layer (by its PEFT module name) gets an adapter. Latent attention's q and
    /// kv projections count as q and v; linear attention's input and output projections as qkvo.
    pub fn includes(self, module: &str) -> bool {
        match self {
            LoraTargets::Qv => matches!(module, "q_proj" | "v_proj" | "q_a_proj" | "q_b_proj" | "kv_b_proj"),
            LoraTargets::Qkvo => matches!(
                module,
                "q_proj"
                    | "k_proj"
                    | "v_proj"
                    | "o_proj"
                    | "q_a_proj"
                    | "q_b_proj"
                    | "kv_a_proj_with_mqa"
                    | "kv_b_proj"
                    | "in_proj_qkvz"
                    | "in_proj"
                    | "out_proj"
            ),
            LoraTargets::All => true,
        }
    }
}

/// The GPU the bill is compared against.
#[derive(Clone, Debug, PartialEq)]
pub struct Gpu {
    /// Preset id, or `None` for a custom size (`vram=` in GiB).
    pub id: Option<&'static str>,
    pub name: String,
    /// The memory the verdict is measured against: nvidia-smi's total, Metal's working-set limit.
    pub bytes: u64,
    /// What PyTorch reports as the total (`torch.cuda.mem_get_info`): where an engine's budget starts.
    pub torch_bytes: u64,
    /// Apple silicon: the machine's unified RAM in GB (`bytes` is the part Metal lends one process).
    pub unified_ram_gb: Option<u64>,
}

impl Gpu {
    pub fn preset(id: &str) -> Option<Gpu> {
        presets::gpu(id).map(|g| Gpu {
            id: Some(g.id),
            name: g.name.to_string(),
            bytes: g.bytes(),
            torch_bytes: g.torch_bytes(),
            unified_ram_gb: match g.memory {
                presets::Memory::Unified { ram_gb } => Some(ram_gb),
                presets::Memory::Dedicated => None,
            },
        })
    }

    /// A card before Ampere (compute capability below 8.0: Turing, Volta), as the presets name them.
    pub fn pre_ampere(&self) -> bool {
        matches!(self.id, Some("t4" | "v100-16g" | "v100-32g" | "rtx2080ti-22g"))
    }

    /// A card of `gib` GiB as the user states it: that is also what PyTorch would see.
    pub fn custom_gib(gib: f64) -> Gpu {
        let bytes = (gib * GIB).round().max(0.0) as u64;
        Gpu {
            id: None,
            name: format!("{} GiB", super::units::trim_float(gib)),
            bytes,
            torch_bytes: bytes,
            unified_ram_gb: None,
        }
    }
}

pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
/// The longest context any solver considers (the query keys' limit on `seq`).
pub const MAX_CONTEXT: u64 = 100_000_000;
/// The most completions per prompt (`generations`).
pub const MAX_GENERATIONS: u64 = 4096;
pub const MIB: f64 = 1024.0 * 1024.0;

/// The default CUDA context + library footprint per process, in MiB: between PyTorch's measured
/// 274 MiB (lazy module loading, #86509) and the 911 MiB measured on an A100 (furiousteabag/vram);
/// ~400–500 MiB is what current PyTorch + CUDA 12 stacks show (pytorch#109888, unsloth-zoo #1053).
pub const DEFAULT_OVERHEAD_MIB: f64 = 500.0;

/// The classic mistakes of the chapter's "five-OOM drill" (homework 2), injected into the bill so
/// that each one's signature shows. (The fifth, a batch at the maximum, is a plain `batch` value.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drill {
    /// An evaluation loop run without `torch.no_grad()` / `inference_mode()`.
    pub no_grad: bool,
    /// Loss/logit tensors kept in a list (10 steps' logits).
    pub tensor_list: bool,
    /// The embedding and LM head left in fp32.
    pub fp32_module: bool,
    /// A crashed earlier run of the same model still holds its weights and context.
    pub zombie: bool,
}

impl Drill {
    pub const IDS: [&'static str; 4] = ["no_grad", "tensor_list", "fp32_module", "zombie"];

    pub fn is_empty(&self) -> bool {
        *self == Drill::default()
    }

    /// The `drill=` value: the set flags, comma-separated, in a fixed order.
    pub fn to_id_list(&self) -> String {
        let flags = [self.no_grad, self.tensor_list, self.fp32_module, self.zombie];
        Drill::IDS.iter().zip(flags).filter(|(_, on)| *on).map(|(id, _)| *id).collect::<Vec<_>>().join(",")
    }

    /// Reads `no_grad,zombie`; `None` names the first unknown entry.
    pub fn from_id_list(list: &str) -> Result<Drill, String> {
        let mut d = Drill::default();
        for id in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match id {
                "no_grad" => d.no_grad = true,
                "tensor_list" => d.tensor_list = true,
                "fp32_module" => d.fp32_module = true,
                "zombie" => d.zombie = true,
                other => return Err(other.chars().take(40).collect()),
            }
        }
        Ok(d)
    }
}

/// Steps whose logits the drill's tensor list keeps.
pub const DRILL_KEPT_STEPS: u64 = 10;

/// How a MoE's routed experts are held when bitsandbytes loads the model (`fused_experts`):
/// transformers 5 made them fused 3-D parameters (v5.0.0, "dynamic weight loading"), which
/// bitsandbytes does not quantize. docs/research/frameworks/transformers5-fused-experts.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpertStorage {
    /// One `nn.Linear` per expert (transformers 4; Unsloth's gpt-oss patch): quantized with the
    /// other linears (`0`).
    Linear,
    /// Fused parameters quantized on load by a parametrization (Axolotl's `quantize_moe_experts`,
    /// unsloth-zoo ≥ 2026.6.2): a layer's experts dequantized whole for its forward (`1`).
    Quantized,
    /// Fused parameters left in 16 bits by the stock load (`16bit`, transformers ≥ 5.0).
    Kept16,
}

impl ExpertStorage {
    pub const ALL: [ExpertStorage; 3] = [ExpertStorage::Linear, ExpertStorage::Quantized, ExpertStorage::Kept16];

    pub fn id(self) -> &'static str {
        match self {
            ExpertStorage::Linear => "0",
            ExpertStorage::Quantized => "1",
            ExpertStorage::Kept16 => "16bit",
        }
    }

    pub fn from_id(id: &str) -> Option<ExpertStorage> {
        ExpertStorage::ALL.into_iter().find(|e| e.id() == id)
    }
}

/// One complete configuration. The page's build compares two by their links
/// (`query::to_query`), not field by field.
#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "page"), derive(PartialEq))]
pub struct Scenario {
    /// Preset the architecture came from, if any (overrides may have changed it since).
    pub model_id: Option<String>,
    pub architecture: Architecture,
    /// The page's build only: the keys it keeps as the link wrote them for the reader worker,
    /// which sets and bills what they describe (`query::keys::set_for_worker`; the Gemma-4
    /// shapes), as `name=value` pairs each followed by `&`. Empty in every other build, where the
    /// keys set their fields.
    pub for_worker: String,
    pub mode: Mode,
    pub method: Method,
    pub precision: Precision,
    /// How the weights are stored: the frozen base for LoRA/QLoRA, the served weights for
    /// inference. Full fine-tuning ignores it (its weights follow `precision`).
    pub quant: StorageFormat,
    /// Which linear layers `quant` covers; `None`: as the model's checkpoint when `quant` is its
    /// format (gpt-oss: the experts), else every linear layer.
    pub quant_layers: Option<QuantLayers>,
    /// Parameters of the linears `quant` covers that stay 16-bit all the same: a checkpoint's
    /// `llm_int8_skip_modules` naming single layers (Unsloth's dynamic 4-bit). 0 = none.
    pub keep16: u64,
    /// How a MoE's routed experts are held under a bitsandbytes load (`fused_experts`).
    pub fused_experts: ExpertStorage,
    /// NF4 double quantization (QLoRA's default).
    pub double_quant: bool,
    /// The LM head quantized with the linear layers (Lightning's BitsandbytesPrecision).
    pub quant_head: bool,
    pub optimizer: Optimizer,
    /// Tokens per sequence (the prompt, for inference).
    pub seq: u64,
    /// Micro-batch per GPU (concurrent sequences, for inference).
    pub batch: u64,
    /// Gradient accumulation steps: no memory, only the effective batch.
    pub accum: u64,
    pub rank: u64,
    pub targets: LoraTargets,
    pub checkpointing: Checkpointing,
    pub attention: AttentionKernel,
    /// The attention mask the model's forward builds (inference).
    pub mask: AttentionMask,
    /// The loss implementation; `None`: `selective` for a preference or RL objective, else `hf`.
    pub loss: Option<LossKernel>,
    pub bnb: Bitsandbytes,
    /// The training recipe; `None`: `peft` for LoRA over a bitsandbytes base (QLoRA), else `plain`.
    pub recipe: Option<Recipe>,
    /// LoRA dropout probability (0 = none: PEFT uses an identity).
    pub lora_dropout: f64,
    pub training_loop: TrainingLoop,
    /// torch.compile in training: Inductor recomputes pointwise results in backward.
    pub compile: Compile,
    pub gpus: u64,
    /// ZeRO stage 0–3 (3 = FSDP full shard).
    pub zero: u8,
    /// DeepSpeed ZeRO-1/2's `reduce_bucket_size` (elements of one gradient bucket).
    pub reduce_bucket_size: u64,
    /// DeepSpeed ZeRO-1/2's `overlap_comm` (two buckets instead of one).
    pub overlap_comm: bool,
    /// CPU offload of the optimizer (and the parameters) under ZeRO / FSDP.
    pub offload: Offload,
    /// The caching allocator's segments (`PYTORCH_CUDA_ALLOC_CONF`).
    pub alloc: Allocator,
    /// Whose ZeRO-3 `zero=3` is.
    pub zero3: Zero3Impl,
    /// RoPE's cos/sin tables resident on the GPU (training; in `engine=hf` inference where the
    /// transformers release does not decide it).
    pub rope_cache: RopeCache,
    /// The checkpoint stores a tied model's LM head apart (`head_copy`; `engine=hf` inference).
    pub head_copy: bool,
    /// A PEFT LoRA adapter of `rank` over `targets` loaded over the base, unmerged (`adapter`;
    /// `engine=hf` inference).
    pub adapter: bool,
    /// AutoGPTQ's exllama kernel version for GPTQ inference (`exllama`; 0 = none billed; `None`:
    /// the transformers release's default, [`Scenario::exllama_version`]).
    pub exllama: Option<u8>,
    /// AutoAWQ's GEMV kernel for AWQ inference (`awq_version=gemv`; transformers' `AwqConfig`
    /// default is GEMM).
    pub awq_gemv: bool,
    /// FSDP1's initialisation broadcasts rank 0's weights (`sync_module_states`).
    pub sync_module_states: bool,
    pub kv: KvDtype,
    /// Generated tokens (inference); the KV cache holds prompt + generated.
    pub generated: u64,
    pub images: u64,
    /// Each image's size (`image_px`).
    pub image: ImageSize,
    pub gpu: Gpu,
    pub overhead_mib: f64,
    pub drill: Drill,
    /// What serves the model in inference (ignored in training).
    pub serving: EngineSettings,
    /// Preference and RL training (`objective`, training only).
    pub rl: RlSettings,
    /// The training framework whose defaults fill the keys a link leaves out.
    pub framework: Framework,
    /// A Megatron-style parallel grid (training).
    pub layout: Layout,
    /// The layer's kernels in training.
    pub kernels: Kernels,
    /// The MLP run in sequence tiles (`tiled_mlp`: Unsloth's `unsloth_tiled_mlp`, Arctic Long
    /// Sequence Training's TiledMLP): it keeps only its input and recomputes a tile at a time.
    pub tiled_mlp: bool,
    /// A VLM's vision tower trains too (`vision_train`: Unsloth's `finetune_vision_layers`,
    /// LLaMA-Factory's `freeze_vision_tower: false`, ms-swift's `freeze_vit false`): adapters on its
    /// blocks (the tower's weights in full fine-tuning), and its blocks keep activations.
    pub vision_train: bool,
    /// Its release; `None`: the newest whose rules were read.
    pub framework_version: Option<Release>,
}

impl Scenario {
    /// The custom model of an imported config.json, the rest at the defaults: its remote code's
    /// mask when the config names ChatGLM's (`Imported::full_mask`).
    pub fn imported(imported: super::hf_config::Imported) -> Scenario {
        Scenario {
            model_id: None,
            architecture: imported.architecture,
            mask: if imported.full_mask { AttentionMask::Full } else { AttentionMask::Causal },
            keep16: imported.keep16,
            ..Scenario::default()
        }
    }
}

impl Default for Scenario {
    fn default() -> Self {
        let model = presets::model(DEFAULT_MODEL).map(|m| m.architecture.clone());
        Scenario {
            model_id: Some(DEFAULT_MODEL.to_string()),
            // The preset table always holds the default model; the fallback keeps this total.
            architecture: model.unwrap_or_else(fallback_architecture),
            for_worker: String::new(),
            mode: Mode::Train,
            method: Method::Lora,
            precision: Precision::Mixed,
            quant: StorageFormat::Bf16,
            quant_layers: None,
            keep16: 0,
            fused_experts: ExpertStorage::Kept16,
            double_quant: true,
            quant_head: false,
            optimizer: Optimizer::AdamW,
            seq: 2048,
            batch: 1,
            accum: 1,
            rank: 16,
            targets: LoraTargets::All,
            checkpointing: Checkpointing::Full,
            attention: AttentionKernel::Sdpa,
            mask: AttentionMask::Causal,
            loss: None,
            bnb: Bitsandbytes::Fixed,
            recipe: None,
            lora_dropout: 0.0,
            training_loop: TrainingLoop::Trainer,
            compile: Compile::Off,
            gpus: 1,
            zero: 0,
            reduce_bucket_size: 500_000_000,
            overlap_comm: false,
            offload: Offload::None,
            alloc: Allocator::Default,
            sync_module_states: false,
            zero3: Zero3Impl::Fsdp,
            rope_cache: RopeCache::None,
            head_copy: false,
            adapter: false,
            exllama: None,
            awq_gemv: false,
            kv: KvDtype::Bf16,
            generated: 0,
            images: 0,
            image: ImageSize::square(448),
            gpu: Gpu::preset(DEFAULT_GPU).unwrap_or_else(|| Gpu::custom_gib(24.0)),
            overhead_mib: DEFAULT_OVERHEAD_MIB,
            drill: Drill::default(),
            serving: EngineSettings::default(),
            rl: RlSettings::default(),
            framework: Framework::Hf,
            layout: Layout::default(),
            framework_version: None,
            kernels: Kernels::Hf,
            tiled_mlp: false,
            vision_train: false,
        }
    }
}

pub const DEFAULT_MODEL: &str = "llama-3.1-8b";
pub const DEFAULT_GPU: &str = "rtx4090";

fn fallback_architecture() -> Architecture {
    Architecture {
        name: "custom".into(),
        ..Architecture::decoder("custom", 32, 4096, 32, 8, 128, 14336, 128256, false)
    }
}

impl Scenario {
    /// The stored-weight format when the link does not say: the checkpoint's own for inference
    /// (bf16 for most models, MXFP4 experts for gpt-oss, block FP8 for DeepSeek-V3), 16-bit for full
    /// and LoRA training, NF4 for QLoRA.
    pub fn default_quant(mode: Mode, method: Method, arch: &Architecture) -> StorageFormat {
        match (mode, method) {
            (Mode::Train, Method::Qlora) => StorageFormat::Nf4,
            (Mode::Train, _) => StorageFormat::Bf16,
            (Mode::Infer, _) => arch.checkpoint.0,
        }
    }

    /// The loss in effect: as set, else [`Scenario::default_loss`].
    pub fn loss(&self) -> LossKernel {
        self.loss.unwrap_or(self.default_loss())
    }

    /// The loss a link that omits `loss` means: TRL's `selective_log_softmax` for DPO, GRPO and
    /// PPO (their trainers compute per-token log-probabilities, not a cross-entropy), else Hugging
    /// Face's cross-entropy.
    pub fn default_loss(&self) -> LossKernel {
        if self.rl.objective == Objective::Sft {
            LossKernel::Hf
        } else {
            LossKernel::Selective
        }
    }

    /// The recipe in effect: as set, else PEFT's k-bit preparation for adapters trained over a
    /// bitsandbytes base (NF4, int8 — QLoRA always has one), else the model as loaded.
    pub fn recipe(&self) -> Recipe {
        self.recipe.unwrap_or(self.default_recipe())
    }

    /// Adapters over a frozen bitsandbytes base (NF4, int8; QLoRA always has one): what PEFT's k-bit
    /// preparation and the frameworks' k-bit recipes act on.
    pub fn trains_on_bnb_base(&self) -> bool {
        self.method == Method::Qlora || self.quant.is_bitsandbytes() && self.method == Method::Lora
    }

    /// The recipe a link that omits `recipe` means.
    pub fn default_recipe(&self) -> Recipe {
        let bnb_base = self.trains_on_bnb_base();
        // Sharded QLoRA (FSDP / ZeRO-3) skips the k-bit preparation in TRL: the base stays in its
        // storage dtype so it can be sharded (trl's prepare_peft_model, `is_sharded_qlora`).
        let sharded = self.gpus > 1 && self.zero == 3;
        if self.mode == Mode::Train
            && bnb_base
            && !sharded
            && !self.quant.is_gguf()
            && !matches!(self.quant, StorageFormat::Gptq4 | StorageFormat::Awq4)
        {
            Recipe::Peft
        } else {
            Recipe::Plain
        }
    }

    /// The linear layers `quant` covers.
    pub fn quant_layers(&self) -> QuantLayers {
        self.quant_layers.unwrap_or(if self.quant == self.architecture.checkpoint.0 {
            self.architecture.checkpoint.1
        } else {
            QuantLayers::All
        })
    }

    /// Vision tokens added to the sequence by the images (0 for text-only models).
    pub fn vision_tokens(&self) -> u64 {
        match &self.architecture.vision {
            Some(v) if self.images > 0 => self.images.saturating_mul(v.tokens_per_image(self.image)),
            _ => 0,
        }
    }

    /// Tokens the language model sees per sequence: text + vision tokens.
    pub fn sequence_tokens(&self) -> u64 {
        self.seq.saturating_add(self.vision_tokens())
    }

    /// A preference or RL training step (`objective` other than `sft`).
    pub fn is_rl(&self) -> bool {
        self.mode == Mode::Train && self.rl.objective != Objective::Sft
    }

    /// A supervised or DPO training step on a Megatron-style grid (`tp`, `pp`, `ep`, `etp`, `cp`,
    /// `dp`, `dist_optim`), or GRPO's with its rollout on other GPUs (`rollout=server`): billed as
    /// one GPU of the grid (`ledger::parallel`), as Megatron-SWIFT runs them there. PPO, or GRPO
    /// with an engine on the same GPUs, on a grid is billed as an RL step, with a note.
    pub fn bills_a_grid(&self) -> bool {
        self.mode == Mode::Train
            && self.layout.is_grid()
            && match self.rl.objective {
                Objective::Sft | Objective::Dpo => true,
                Objective::Grpo => self.rl.rollout == Rollout::Server,
                Objective::Ppo => false,
            }
    }

    /// GRPO with a vLLM engine on the grid's own GPUs, or PPO with a vLLM rollout (on these GPUs or
    /// others): the grid's step with the rollout's phases, a critic laid out as the policy
    /// (`rl::estimate`). `generate()` and an engine reading the trainer's weights (`shared`) have no
    /// Megatron form: said (`rl_grid`), billed over `gpus` and `zero`.
    pub fn rl_on_grid(&self) -> bool {
        self.mode == Mode::Train
            && self.layout.is_grid()
            && self.is_rl()
            && !self.bills_a_grid()
            && matches!(self.rl.rollout, Rollout::Colocate | Rollout::Server)
    }

    /// The tensor-parallel size of inference: `tp`, or `gpus` alone (a link without grid keys).
    pub fn inference_tp(&self) -> u64 {
        if self.layout.tp > 1 {
            self.layout.tp
        } else {
            self.gpus.max(1)
        }
    }

    /// What the page's build leaves to the reader worker, whose code loads on demand (docs/size.md):
    /// a training grid, a device map, every serving engine's bill (vLLM, SGLang, llama.cpp: their
    /// grids, drafters, LoRA slots and VLM encoders too), ChatGLM's remote code in `generate()`,
    /// whose prefill is replayed through the caching allocator, inference or an RL step on any grid
    /// (the notes on the dimensions not billed are the worker's), and a VLM's or Unsloth's vLLM
    /// rollout, a training step with a tiled MLP (`tiled_mlp`), and any bill of a model whose
    /// full-attention layers have their own shape (Gemma-4's, `full_kv_heads`) or with Gemma-4's
    /// or InternVL's vision tower (`vision=gemma4`, `vision=internvl`), and transformers'
    /// AWQ, GPTQ and LLM.int8 kernels (`runs_quantized_kernels`). The page bills training and the
    /// rest of `generate()` itself, and a text model's vLLM rollout inside a preference or RL step.
    pub fn billed_on_demand(&self) -> bool {
        self.bills_a_grid()
            || self.serves_a_grid()
            || self.served_by_engine()
            || self.runs_chatglm_remote_code()
            || self.rolls_out_a_vlm_on_vllm()
            || self.rolls_out_on_unsloth_vllm()
            || self.layout.is_grid() && (self.mode == Mode::Infer || self.is_rl())
            || self.tiled_mlp && self.mode == Mode::Train
            || self.trains_vision()
            || self.architecture.full_attention.is_some()
            || self.architecture.vision.is_some_and(|v| matches!(v.kind, VisionKind::Gemma4 | VisionKind::InternVl))
            || !self.for_worker.is_empty()
            || self.runs_quantized_kernels()
            || self.loads_moe_with_bnb()
            || self.caches_latent_decompressed()
    }

    /// `generate()` of a model with latent attention, which transformers caches decompressed
    /// (every head's K and V: `inference::kv_cache`): billed in the reader worker.
    pub fn caches_latent_decompressed(&self) -> bool {
        self.mode == Mode::Infer && self.serving.engine == Engine::Hf && self.architecture.mla.is_some()
    }

    /// A MoE's routed experts loaded by bitsandbytes (training on a k-bit base, or `generate()` of
    /// an NF4 or LLM.int8 checkpoint): how they are held (`fused_experts`) is billed in the reader
    /// worker.
    pub fn loads_moe_with_bnb(&self) -> bool {
        let generates = self.mode == Mode::Infer && self.serving.engine == Engine::Hf;
        let trains = self.mode == Mode::Train && self.trains_on_bnb_base();
        let bnb = trains || generates && self.quant.is_bitsandbytes();
        bnb && self.architecture.moe.is_some_and(|m| m.experts > 0)
    }

    /// Whether bitsandbytes leaves the routed experts 16-bit: transformers 5's fused 3-D expert
    /// parameters, which `replace_with_bnb_linear` does not swap (it takes `nn.Linear` and `Conv1D`
    /// only: 5.0.0 `integrations/bitsandbytes.py:L184`, 5.25.0 `:L189`), unless something quantizes
    /// them on load (`fused_experts=1`) or the experts are `nn.Linear` modules (`fused_experts=0`:
    /// transformers 4, Unsloth's gpt-oss). `generate()` follows `engine_version` (4.x: linear).
    pub fn keeps_experts_16bit(&self) -> bool {
        let on_v5 = self.mode == Mode::Train || self.serving.version.is_none_or(|v| v >= Release(5, 0, 0));
        self.fused_experts == ExpertStorage::Kept16 && on_v5 && self.loads_moe_with_bnb()
    }

    /// A training step whose VLM's vision tower trains too (`vision_train`; a model without a tower
    /// has nothing to train): billed in the reader worker.
    pub fn trains_vision(&self) -> bool {
        self.vision_train && self.mode == Mode::Train
    }

    /// transformers running a checkpoint stored in AWQ, GPTQ or LLM.int8 (`generate()`, or a
    /// preference or RL step, whose rollout and reference may): their kernels' transients, the
    /// int8 quantization copy and AutoGPTQ's exllama buffers are billed in the reader worker.
    pub fn runs_quantized_kernels(&self) -> bool {
        matches!(self.quant, StorageFormat::Awq4 | StorageFormat::Gptq4 | StorageFormat::Int8)
            && (self.mode == Mode::Infer && self.serving.engine == Engine::Hf || self.is_rl())
    }

    /// The exllama kernel GPTQ inference runs on: the link's, else transformers' default for a
    /// 4-bit GPTQ checkpoint through AutoGPTQ — exllama v1 from 4.32 (`disable_exllama=False`; from
    /// 4.35 `use_exllama=True` with `exllama_config={"version": 1}`) until 4.49, from which
    /// transformers loads GPTQ through GPTQModel when it is installed, whose kernel choice is not
    /// modelled (0: none billed). Checked by the Qwen2 and Qwen2.5 speed benchmarks (4.38.2, 4.46.0):
    /// each GPTQ-Int4 row holds the largest layer's fp16 buffer more than its AWQ sibling.
    pub fn exllama_version(&self) -> u8 {
        let hf_gptq =
            self.mode == Mode::Infer && self.serving.engine == Engine::Hf && self.quant == StorageFormat::Gptq4;
        let autogptq = self.serving.version.is_some_and(|v| v >= Release(4, 32, 0) && v < Release(4, 49, 0));
        self.exllama.unwrap_or(u8::from(hf_gptq && autogptq))
    }

    /// A preference or RL step whose rollout is a vLLM engine on the trainer's card (`colocate`,
    /// `shared`: `rl::engine_rollout`).
    pub fn rolls_out_on_vllm(&self) -> bool {
        self.is_rl() && matches!(self.rl.rollout, Rollout::Colocate | Rollout::Shared)
    }

    /// An RL step with `framework=unsloth` whose vLLM shares the trainer's weights (Unsloth's
    /// `fast_inference`): Unsloth sizes the engine's batch (`framework::unsloth_vllm_batch`).
    pub fn rolls_out_on_unsloth_vllm(&self) -> bool {
        self.is_rl() && self.framework == Framework::Unsloth && self.rl.rollout == Rollout::Shared
    }

    /// A preference or RL step whose vLLM rollout serves a VLM: the engine profiles its vision
    /// encoder (`serving::encoder`, the worker's).
    pub fn rolls_out_a_vlm_on_vllm(&self) -> bool {
        self.rolls_out_on_vllm() && self.architecture.vision.is_some()
    }

    /// `generate()` on ChatGLM's remote code (`mask=full`, `super::chatglm`).
    pub fn runs_chatglm_remote_code(&self) -> bool {
        self.mode == Mode::Infer && self.serving.engine == Engine::Hf && self.mask == AttentionMask::Full
    }

    /// Inference served by vLLM, SGLang or llama.cpp (`engine`).
    pub fn served_by_engine(&self) -> bool {
        self.mode == Mode::Infer && self.serving.engine != Engine::Hf
    }

    /// Inference over a grid of GPUs: vLLM's or SGLang's pipeline, data-parallel attention or
    /// expert parallel (`serving::grid`), or transformers' `device_map="auto"` over `pp` GPUs
    /// (`device_map`). The page asks the reader worker for its bill, as for a training grid.
    pub fn serves_a_grid(&self) -> bool {
        let l = &self.layout;
        self.mode == Mode::Infer
            && match self.serving.engine {
                Engine::Vllm | Engine::Sglang => l.pp > 1 || l.dp > 1 || l.ep > 1,
                Engine::Hf => l.pp > 1,
                Engine::Llamacpp => false,
            }
    }

    /// A training step that generates its own completions (GRPO, PPO): its sequence is
    /// `prompt_len` + `completion_len`, not `seq`, and a rollout comes before it.
    pub fn generates(&self) -> bool {
        self.mode == Mode::Train && matches!(self.rl.objective, Objective::Grpo | Objective::Ppo)
    }

    /// DeepSpeed runs the step (ZeRO-1/2, or ZeRO-3 by DeepSpeed): its engine casts the model to
    /// 16 bits and runs no autocast.
    pub fn runs_deepspeed(&self) -> bool {
        matches!(self.zero, 1 | 2) || self.zero == 3 && self.zero3 == Zero3Impl::DeepSpeed
    }

    /// The Trainer's mixed precision through Accelerate: the model's forward under autocast, its
    /// outputs (the logits) converted to fp32. Not under DeepSpeed.
    pub fn trainer_autocast(&self) -> bool {
        matches!(self.precision, Precision::Mixed | Precision::Fp8) && !self.runs_deepspeed()
    }

    /// Where the reference log-probabilities come from, when the step needs them: DPO always, GRPO
    /// and PPO with a KL term (`beta` > 0); as set, else the adapters disabled for LoRA / QLoRA and
    /// a frozen copy for full fine-tuning.
    pub fn reference(&self) -> Option<Reference> {
        let needed = match self.rl.objective {
            Objective::Sft => false,
            Objective::Dpo => true,
            Objective::Grpo | Objective::Ppo => self.rl.beta > 0.0,
        };
        let default = if self.method == Method::Full { Reference::Model } else { Reference::Adapter };
        (needed && self.mode == Mode::Train).then(|| self.rl.reference.unwrap_or(default))
    }

    /// What the trainer's step runs through the model, as (tokens of a sequence, sequences of a
    /// micro-batch): DPO's pairs are a chosen and a rejected sequence each; GRPO's and PPO's
    /// completions are their prompt and completion tokens; SFT's `seq` × `batch`.
    pub fn trainer_sequences(&self) -> (u64, u64) {
        match self.rl.objective {
            Objective::Sft => (self.seq, self.batch),
            Objective::Dpo => (self.seq, self.batch.saturating_mul(2)),
            Objective::Grpo | Objective::Ppo => {
                (self.rl.prompt_len.saturating_add(self.rl.completion_len).clamp(1, MAX_CONTEXT), self.batch)
            }
        }
    }

    pub fn effective_batch(&self) -> u64 {
        self.batch.saturating_mul(self.accum).saturating_mul(self.gpus)
    }
}
