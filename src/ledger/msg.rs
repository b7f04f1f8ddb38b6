//! Text as data. Every formula, note and message the ledger (and the query parser, the config
//! importer and the decision tree) writes is a [`Msg`]: a template id and typed arguments. The i18n
//! layer owns the templates, one English and one Chinese text per id, and renders the arguments the
//! same way in both languages (`crate::i18n::render`), so no sentence is ever translated by
//! matching phrases, and the ledger does no string formatting while it computes a bill.

/// One argument of a template. Numbers keep their type until they are rendered.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A plain integer: `32`.
    Int(u64),
    /// A count with thousands separators: `8,030,261,248`.
    Count(u64),
    /// A byte count in the most readable binary unit: `1.23 GiB`.
    Bytes(f64),
    /// A factor without trailing zeros: `2`, `0.5159`.
    Factor(f64),
    /// A number with a fixed number of decimals.
    Fixed(f64, u32),
    /// An identifier that is the same in every language: `q_proj`, `bf16`, `loss=hf`.
    Code(&'static str),
    /// Text that is not translated: a name from a config, a user's value, a list of ids.
    Text(String),
    /// A nested message (rendered in the same language), or an empty one.
    Msg(Box<Msg>),
    /// Messages joined with " + " (the parts of a sum).
    List(Vec<Msg>),
}

/// A template and its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Msg {
    pub id: MsgId,
    pub args: Vec<Arg>,
}

impl Msg {
    pub fn new(id: MsgId, args: Vec<Arg>) -> Msg {
        Msg { id, args }
    }

    /// `msg!`'s constructor: one function per argument count, so that each of the many call
    /// sites only writes its arguments (the allocation is here, not inlined at every site).
    #[inline(never)]
    pub fn with<const N: usize>(id: MsgId, args: [Arg; N]) -> Msg {
        Msg { id, args: Vec::from(args) }
    }

    /// A template without arguments.
    pub const fn plain(id: MsgId) -> Msg {
        Msg { id, args: Vec::new() }
    }

    /// The empty text (an optional part that does not apply).
    pub const fn empty() -> Msg {
        Msg::plain(MsgId::Empty)
    }

    /// `self` as an argument of another message.
    pub fn arg(self) -> Arg {
        Arg::Msg(Box::new(self))
    }

    /// Every message nested in this one, depth first, itself included.
    pub fn walk(&self, out: &mut Vec<MsgId>) {
        out.push(self.id);
        for a in &self.args {
            if let Arg::Msg(m) = a {
                m.walk(out);
            }
        }
    }
}

/// `Msg::new(MsgId::X, vec![…])`.
#[macro_export]
macro_rules! msg {
    ($id:ident) => { $crate::ledger::msg::Msg::plain($crate::ledger::msg::MsgId::$id) };
    ($id:ident, $($arg:expr),+ $(,)?) => {
        $crate::ledger::msg::Msg::with($crate::ledger::msg::MsgId::$id, [$($arg),+])
    };
}

/// A nested message when `on`, else the empty text.
pub fn when(on: bool, m: impl FnOnce() -> Msg) -> Arg {
    if on {
        m().arg()
    } else {
        Msg::empty().arg()
    }
}

macro_rules! msg_ids {
    ($($(#[$doc:meta])* $id:ident),+ $(,)?) => {
        /// The id of a template. Its English and Chinese texts are in `crate::i18n::templates`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum MsgId { $($(#[$doc])* $id),+ }

        impl MsgId {
            pub const ALL: &'static [MsgId] = &[$(MsgId::$id),+];
        }
    };
}

msg_ids!(
    /// Nothing (an optional part that does not apply).
    Empty,
    NotUsed,
    /// Text rendered elsewhere (the reader worker) in both languages: English `{0}`, Chinese the
    /// second argument (`i18n::render` picks it).
    Bilingual,
    // Parts shared by several lines.
    ShardZero,
    TensorParallel,
    PerGpu,
    EagerScores,
    // Stored weights and their formats.
    WeightsDense,
    WeightsGguf,
    WeightsQuantized,
    VisionTowerPlus,
    VisionTowerListed,
    AudioEncoderToo,
    KeptLinearsListed,
    FormatDense,
    FormatInt8,
    FormatNf4,
    FormatNf4Dq,
    FormatGroup128,
    FormatGguf,
    FormatMxfp4,
    FormatNvfp4,
    FormatFp8Block,
    FormatFp8Channel,
    FormatW4a16,
    FormatW8a8,
    WeightsPartial,
    QuantMlp,
    QuantExperts,
    // Training lines.
    TrainedWeights,
    WorkingCopy,
    FrozenBase,
    FrozenBasePrepared,
    FrozenBaseTrl,
    QuantStateWhole,
    RopeTables,
    AdapterWeights,
    DequantTraining,
    DequantFusedExperts,
    DequantGptq,
    DequantPrefill,
    MasterWeights,
    Gradients,
    GradientsAtStart,
    FsdpWorkingCopy,
    GradientsInFreedRoom,
    DdpCopy,
    OptimizerLine,
    StatesAdamW,
    StatesAdamW8bit,
    StatesSgd,
    StatesMomentum,
    StatesAdafactor,
    ActivationsCheckpointed,
    RetainedInputGrads,
    OffloadedCheckpoints,
    ActivationsStored,
    ActivationsByClass,
    ActivationsSelective,
    ClassPart,
    ClassName,
    ClassMoe,
    ClassNoMlp,
    KindFull,
    KindSliding,
    KindChunked,
    KindLinear,
    KindMlpOnly,
    Logits,
    LossHf,
    LossHfShift,
    LossChunked,
    LossSelective,
    LossSelectiveFp32,
    LossHalf,
    LossHalfConverted,
    LossFused,
    LossChunkedCompiled,
    LossInplace,
    LossInplaceCast,
    LossCompiled,
    WeightsQuantizedHead,
    DequantHead,
    LogitsFused,
    LigerHeadGradient,
    Softcap,
    HeadCopy,
    LayerGradients,
    HeldOutput,
    PreviousInputs,
    DequantKept,
    WrapCache,
    /// At an optimizer-step peak: the reserve backward built, which the caching allocator keeps.
    SlackHeldFromBackward,
    VisionActivations,
    GatheredLayer,
    GatheredDeepspeed,
    ZeroBuckets,
    ZeroBucketCopy,
    OptimizerStep,
    StepAdamW,
    StepAdafactor,
    StepNone,
    // Inference lines.
    ServedWeights,
    KvCache,
    KvCacheByKind,
    KvPart,
    KvWindow,
    KvPerToken,
    KvLinearState,
    Prefill,
    InferenceLogits,
    // The drill.
    EvalGraph,
    KeptTensors,
    Fp32Module,
    ZombieProcess,
    // Overheads.
    AllocatorSlack,
    AllocatorSlackTraining,
    CudaContext,
    // Notes.
    NoteQuantIgnored,
    NoteGgufTraining,
    NoteUnifiedMemory,
    // The paste diagnosis's why and what-to-do, from `WhyGrowth` to `DoHostRam`: rendered in the
    // reader worker and the CLI, never in the page (`MsgId::loads_on_demand`, docs/size.md).
    WhyGrowth,
    DoNoGradItem,
    WhyEvalFrames,
    WhyAccumulation,
    WhyNoNumbers,
    DoMeasure,
    WhyFreeAboveTotal,
    DoCheckCapacity,
    WhyAbsurdRequest,
    DoCheckShapes,
    WhyAllowedCap,
    DoRaiseFraction,
    WhyFreeAboveRequest,
    DoCheckOtherDevice,
    WhyZombie,
    DoKill,
    WhyHugeRequest,
    DoSmallerInput,
    WhyFragmentation,
    DoExpandable,
    WhyLongTail,
    WhyShortage,
    WhyMpsOther,
    DoMpsOther,
    WhyMps,
    DoMpsWatermark,
    WhyVllmFreeHeld,
    WhyVllmFree,
    DoLowerUtil,
    WhyVllmKv,
    DoMaxModelLen,
    WhyVllmKvNeeded,
    WhyVllmNoBlocks,
    WhyRolloutNoBlocks,
    WhyRolloutFree,
    WhyRolloutWakeUp,
    WhyVllmSampler,
    DoRolloutShare,
    DoRolloutWakeUp,
    DoSampler,
    DoEngineLevers,
    WhySglang,
    WhyLlamaWeights,
    DoFewerLayers,
    WhyLlamaCompute,
    DoLlamaContext,
    WhyLlamaKv,
    WhySmiHeld,
    WhySmiNoProcess,
    DoFindHolder,
    WhyRequestAboveCard,
    WhyFirstAboveCard,
    WhyZombieInferred,
    WhyEngineHolds,
    DoEngineHeadroom,
    WhyAfterSteps,
    DoLongTail,
    WhyVllmNegativeKv,
    DoRaiseUtil,
    WhyEngineWeightsExceed,
    DoQuantizedOrTp,
    WhySglangAvail,
    WhySglangFraction,
    WhyFlatThenFail,
    WhyNothingRead,
    WhyHostKilled,
    WhyRolloutTrainer,
    WhyOllamaEstimate,
    DoOllamaLayers,
    DoHostRam,
    // The tree's questions and their answers' labels (`tree::paste::questions`).
    AskKilled,
    AskWhen,
    AskGrew,
    AskOthers,
    AskEngine,
    AskSetup,
    AnsGpu,
    AnsHost,
    AnsLoad,
    AnsFirst,
    AnsLater,
    AnsEval,
    AnsYes,
    AnsNo,
    WhySaidOthers,
    WhySaidGrows,
    WhySaidLong,
    WhySaidExpandable,
    WhySaidAfterSteps,
    WhyRanksShareGpu,
    WhyEngineNoNumbers,
    WhyEngineReserves,
    DoEngineReserves,
    WhyNoNumbersUsual,
    WhyEngineShareHigh,
    WhyDescribedShortage,
    WhyDescribedWeights,
    DoDescribedFits,
    WhyDescribedMargin,
    DoOpenDescribed,
    GridExpertsWhole,
    GridExpertsEach,
    GridExpertsSliced,
    // What the readers write (a config.json's notes and errors, a trace's errors): only the reader
    // worker makes them, and sends them rendered (`readers::bilingual`).
    ConfigFieldZero,
    ConfigFieldTooLarge,
    ConfigFieldNotUint,
    ConfigFieldNotBool,
    ConfigFieldNotPositive,
    ConfigFieldNotNumber,
    ConfigFieldNotString,
    ConfigFieldNotObject,
    ConfigModelTypeMissing,
    /// The JSON is another file of a model repository (its argument says which).
    ConfigOtherFile,
    FileTokenizer,
    FileWeightIndex,
    FileTokenizerConfig,
    FileGenerationConfig,
    ConfigTooLarge,
    ImportGeneric,
    ImportOmniThinker,
    ImportAudioUnread,
    ImportVisionInternVl,
    ImportVisionGlm4v,
    ImportParallelHybrid,
    ImportMtpLayers,
    ImportPerLayer,
    ImportFullMask,
    ConfigFieldNotPattern,
    ImportIgnored,
    ImportUnknownQuant,
    ImportKeep16,
    ImportKeep16Unknown,
    ConfigHeadDim,
    ConfigExpertsPerToken,
    ConfigNotDivisible,
    TraceEmpty,
    TraceGzipped,
    TraceNotUtf8,
    TraceChromeTrace,
    TraceBadRow,
    TraceRowsTimes,
    TraceBadEvent,
    TraceBadCategory,
    TraceBadTimeline,
    TraceNoEvents,
    TraceRefusedGlobal,
    TracePickleOpcode,
    TracePickleTruncated,
    TraceNotSnapshot,
    // mem_report.py's JSON (read by the worker for the page's measured box).
    ReportNotJson,
    ReportTool,
    ReportVersion,
    ReportBytes,
    ReportField,
    ReportFieldOrNull,
    VllmGridWeights,
    VllmGridWholeExperts,
    NcclGroups,
    SglangGridWeights,
    SglangGridWholeExperts,
    SglangDpAttention,
    NotePipelineCheck,
    HfMapWeights,
    HfMapEmbedding,
    HfMapHead,
    HfMapKv,
    NoteDeviceMap,
    NoteDeviceMapLogits,
    LoraSlotsStage,
    // A speculative drafter and served LoRA slots (`Scenario::served_by_engine`): billed by the reader
    // worker on the page.
    SpecDrafter,
    SpecNgram,
    SpecEagle,
    SpecEagle3,
    SpecMtp,
    SpecDraftModel,
    SpecDraftMissing,
    SpecSglangPool,
    LoraSlotsFormula,
    // A serving engine's start-up log beside the ledger (`tree::startup`): rendered in the reader
    // worker and the CLI.
    StartupWhy,
    StartupSettings,
    StartupNoSettings,
    StartupRefused,
    StartupMoved,
    StartupGap,
    StartupCard,
    StartupCardVram,
    StartupWeights,
    StartupPeak,
    StartupNonTorch,
    StartupGraphs,
    StartupPool,
    StartupTokens,
    StartupBlocks,
    StartupConcurrency,
    StartupCompute,
    StartupFree,
    StartupHintWeights,
    StartupHintPeak,
    StartupHintNonTorch,
    StartupHintGraphs,
    StartupHintPool,
    StartupHintTokens,
    StartupHintConcurrency,
    StartupHintCompute,
    StartupHintFree,
    // A Megatron-style training grid's lines and notes (`ledger::parallel`): billed and rendered in
    // the reader worker for the page, so on demand too.
    GridWeights,
    GridEmbedding,
    GridLmHead,
    GridMasterRemainders,
    GridMtp,
    GridGradients,
    GridStates,
    GridMaster,
    GridSharded,
    GridActivations,
    GridRecompute,
    GridDispatch,
    GridRing,
    GridLogits,
    GridMtpLogits,
    GridReference,
    GridNccl,
    GridFsdpWeights,
    GridFsdpShard,
    GridFsdpGathered,
    GridFsdpStage,
    GridLogitsLoss,
    NoteGrid,
    NoteGridRefused,
    NoteGridUneven,
    NoteGridQlora,
    // ChatGLM's remote code in `generate()`, billed by the worker (`Scenario::billed_on_demand`).
    AllocatorSlackReplayed,
    // A served VLM's encoder (`serving::encoder`), billed by the worker.
    VllmEncoderProfile,
    VllmEncoderMask,
    ModalityImage,
    ModalityVideo,
    VllmNoTower,
    SglangVlmFraction,
    SglangVlmCache,
    PrefillReplayed,
    NoteFullMask,
    // The served engines' texts the page's build never makes (vLLM's on several GPUs, SGLang's,
    // llama.cpp's, vLLM's add-ons and `max_model_len=auto`, down to `NoteGridOptimizer`: their bills
    // are the worker's; the page's vLLM is an RL rollout on one GPU, whose engine notes and status
    // an RL bill does not show, `Scenario::billed_on_demand`).
    VllmMlaReplicated,
    NcclBuffers,
    VllmSummary,
    StatusQueues,
    StatusNotEnoughFree,
    StatusNoKvVllm,
    StatusContextTooLongVllm,
    LlamacppHostKv,
    LlamacppNoFlash,
    LlamacppSwa,
    LlamacppStates,
    LlamacppUnified,
    NoteAddonsUnsupported,
    StatusNoKvSglang,
    StatusContextTooLongSglang,
    StatusGpuTooSmall,
    NoteAutoFit,
    NoteAutoFitRelease,
    NoteAutoNoContext,
    NoteKvCacheMemory,
    NotePrefixShare,
    SglangPool,
    SglangReserve,
    SglangSummary,
    LlamacppWeights,
    LlamacppKv,
    LlamacppCompute,
    LlamacppSummary,
    SglangMambaPool,
    NoteRlUnslothVllm,
    NoteServingGrid,
    GraphsOff,
    NoteRlGrid,
    NoteRlGridRollout,
    RlGridEngines,
    RlCriticGrid,
    NoteRlRolloutOffload,
    // A tied head stored apart in the checkpoint (`head_copy`, the reader worker's key).
    LoadHeadCopy,
    // A vLLM rollout's lines an RL bill does not show (its profile, graphs, memory outside
    // PyTorch, context: the RL workspace line gives their bytes), so the page's build never renders them.
    VllmProfile,
    VllmGraphsOutside,
    VllmGraphsInBudget,
    EngineNonTorch,
    EngineContext,
    VllmMoeWorkspace,
    VllmContextInBudget,
    TiledMlpPart,
    KvOwnShape,
    VllmGroupBlock,
    // transformers' kernels for AWQ, GPTQ and LLM.int8 checkpoints in `generate()`: the page's
    // build asks the reader worker for those bills (`Scenario::runs_quantized_kernels`).
    ExllamaDequant,
    Exllamav2Scratch,
    AwqDequantized,
    AwqSplitK,
    AwqGemv,
    GptqCudaOld,
    Int8Matmul,
    LoadInt8Quantize,
    Int8LmHead,
    Int8LargestLinear,
    // vLLM's load of Gemma-4's layer kinds (their links are the worker's: `Scenario::for_worker`).
    EngineRopeTwoWidths,
    VllmGemma4Load,
    VllmKvSharedProjections,
    VllmPerLayerInputs,
    // A vision tower that trains (`vision_train`: the reader worker's).
    VisionTrained,
    VisionTrainedCheckpointed,
    VisionTrainedStored,
    AdaptersWithTower,
    // transformers 5's fused experts under bitsandbytes (`fused_experts=16bit`: the reader worker's).
    KeptExpertsListed,
    ExpertsUpcast,
    NoteExperts16bit,
    // transformers' decompressed cache of latent attention (`Scenario::caches_latent_decompressed`).
    KvPerTokenMla,
    NoteGridOptimizer,
    BadOomLink,
    PrefillBeforeDecode,
    DecodeStepCopy,
    DecodeStepRepeatKv,
    PrefillOneLayer,
    AdapterUnmerged,
    InferenceLogitsAll,
    EngineWeights,
    VllmMxfp4Padding,
    VllmMxfp4Triton,
    EngineRopeTables,
    NcclPerGpu,
    NoteOffloadNeedsZero,
    NoteOffloadParamsZero3,
    NoteOffloadHost,
    NoteOffloadedCheckpoints,
    NoteFramework,
    NoteFrameworkNothing,
    StepDeepspeedZero3,
    NoteDeepspeedOffloadCopy,
    OnHost,
    GradientsOffloaded,
    VllmUniformBlock,
    VllmGroupPart,
    VllmHybridBlock,
    VllmKvPool,
    NoteEngineIgnored,
    NoteQloraBase,
    NoteFp32ModuleRecipe,
    NoteReentrant,
    NoteGridPending,
    NoteVisionTokens,
    NoteEffectiveBatch,
    // Preference and RL steps (`ledger::rl`).
    RlRollout,
    RlEngineWorkspace,
    RlLogprobActivations,
    RlLogprobLogits,
    RlLogprobLogitsFp32,
    RlReference,
    RlCritic,
    RlCriticJoint,
    RlReward,
    NoteRlSequences,
    NoteRlDivisible,
    NoteRlEngineFree,
    NoteRlEngineNoCache,
    NoteRlSleepHost,
    // The serving add-ons (a shared prefix, `kv_cache_memory`, SGLang's Mamba state pool; the
    // drafter's and LoRA slots' texts load on demand, above).
    // The query parser.
    BadUint,
    BadFloat,
    BadFlag,
    BadChoice,
    BadList,
    NotPreset,
    UnknownKey,
    BadText,
    HintLayerPattern,
    HintRopePositions,
    HintImageSize,
    HintEngineVersion,
    HintFrameworkVersion,
    KvHeadsOverHeads,
    // config.json import.
    ConfigNotJson,
    ConfigNotObject,
    ConfigFieldMissing,
    FetchGated,
    FetchNotFound,
    FetchHttp,
    FetchNetwork,
    FetchTooLarge,
    FetchReadFailed,
    FetchBadEndpoint,
    FetchBadId,
    // The interface's one-line description of a scenario.
    ScenarioInference,
    ScenarioFull,
    ScenarioAdapters,
    ScenarioCheckpointing,
    // A user's trace (src/validation/trace).
    TraceTooLarge,
    TraceUnknown,
    // Architecture checks.
    ArchAtLeastOne,
    ArchKvHeads,
    ArchActiveExperts,
);

impl MsgId {
    /// The texts that load on demand: the paste diagnosis's (`WhyGrowth` … `DoHostRam`), the
    /// readers' (`ConfigFieldZero` … `ReportFieldOrNull`, mem_report.py's JSON among them), a served grid's and device map's, a
    /// drafter's and LoRA slots', and a training grid's (`GridWeights` … `NoteGridOptimizer`):
    /// the reader worker renders them and
    /// sends the page text, so they are not in the page's table (`crate::i18n::templates`).
    pub const fn loads_on_demand(self) -> bool {
        let i = self as usize;
        i >= MsgId::WhyGrowth as usize && i <= MsgId::NoteGridOptimizer as usize
    }
}
