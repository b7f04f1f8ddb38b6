//! Every user-visible text, in Chinese and English, by one mechanism: a key and its two texts.
//! The interface's fixed labels are [`Text`] keys; the formulas, notes and messages of the ledger,
//! the query parser, the config importer and the tree are [`Msg`]s (a template id with typed
//! arguments, `templates`), rendered here with their numbers formatted once, the same way in both
//! languages.

pub(crate) mod packed;
mod templates;

pub(crate) use packed::packed;
pub use templates::{load_on_demand_texts, template, template_in};

use std::fmt;

use crate::ledger::bill::{ComponentId, Verdict};
use crate::ledger::msg::{Arg, Msg, MsgId};
use crate::ledger::units::{factor, fixed, group, human_bytes};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    Zh,
    En,
}

impl Lang {
    pub fn id(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }

    pub fn from_id(id: &str) -> Option<Lang> {
        match id {
            "zh" => Some(Lang::Zh),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    /// The language for a browser language tag such as `zh-CN` or `en-US` (Chinese for any `zh`,
    /// English otherwise).
    pub fn from_browser(tag: &str) -> Lang {
        if tag.trim().to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// The `lang` attribute of the document.
    pub fn html_lang(self) -> &'static str {
        match self {
            Lang::Zh => "zh-CN",
            Lang::En => "en",
        }
    }
}

/// Declares [`Text`] and the list of its variants, in order (the packed table's index).
macro_rules! fixed_texts {
    ($($variant:ident),+ $(,)?) => {
        /// A fixed text of the interface.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Text { $($variant),+ }

        impl Text {
            pub const ALL: &'static [Text] = &[$(Text::$variant),+];
        }
    };
}

fixed_texts! {
    EngineHf,
    TimelineTitle,
    TimelineHint,
    TraceSummary,
    TraceHowTo,
    TraceFile,
    TracePaste,
    TraceRead,
    TraceReading,
    TraceMeasured,
    TraceCategory,
    TraceMeasuredColumn,
    TracePredictedColumn,
    TraceDifference,
    TracePartsAt,
    TraceLargestGap,
    TraceEvents,
    TracePeak,
    TraceReservedPeak,
    TracePreexisting,
    TraceRemove,
    TraceNoQuery,
    PeakPhase,
    PhaseTotal,
    EngineDefault,
    PlannerTitle,
    PlannerHint,
    PlannerX,
    PlannerY,
    PlannerYou,
    PlannerLevers,
    ServingServes,
    ServingQueues,
    ServingFails,
    ServingTokens,
    ServingConcurrency,
    ServingLongest,
    ServingHost,
    Title,
    Tagline,
    Language,
    Component,
    Size,
    Share,
    Formula,
    Section,
    Allocated,
    Reserved,
    Device,
    Gpu,
    Notices,
    VerdictUses,
    VerdictHighEnd,
    Headroom,
    Over,
    Footer,
    Train,
    Infer,
    Full,
    Settings,
    Chart,
    ChartAxis,
    Capacity,
    ThisConfig,
    SelfTest,
    SelfTestIntro,
    Hint,
    Answer,
    SelfTestLoading,
    SelfTestFailed,
    SeeInLedger,
    ToCalculator,
    GpuN,
    ShareLink,
    CopyLink,
    UnitLabel,
    Dismiss,
    WhatFits,
    MaxBatch,
    MaxSeq,
    MaxCompletion,
    MaxGenerations,
    NoneFits,
    OpenFull,
    CopyEmbed,
    CopyMarkdown,
    DownloadSvg,
    DownloadTimelineSvg,
    Total,
    BringModel,
    PasteConfig,
    UseConfig,
    HfId,
    HubSource,
    HubEndpoint,
    HubMirror,
    Fetch,
    Imported,
    TreeTitle,
    TreeHint,
    TreeWhat,
    TreeWhy,
    TreeCheck,
    TreeCost,
    ApplyLever,
    LeverNa,
    DiagnoseTitle,
    MeasuredAllocated,
    MeasuredReserved,
    MeasuredDevice,
    MeasuredTotal,
    DiagnoseRun,
    PasteTitle,
    PasteHint,
    PasteRun,
    TypedNumbers,
    ForYourConfig,
    GbAsGib,
    PasteTruncated,
    ErrNotNumbers,
    ErrNoTotal,
    ErrReserved,
    Before,
    After,
    Saving,
    Undo,
    DrillTitle,
    DrillNoGrad,
    DrillTensorList,
    DrillMaxBatch,
    DrillFp32,
    DrillZombie,
    SearchModels,
    CopySnippet,
    SpeedCard,
    SpeedCardNote,
    CardAssumptions,
    MeasuredTitle,
    MeasuredHint,
    MeasuredOn,
    Measured,
    Estimated,
    Error,
    LoadReportConfig,
    GridTitle,
    GridStage,
    GridLayers,
    GridWorst,
    GridPending,
    GridLevers,
}

/// The English and Chinese text of a fixed label.
pub fn label(t: Text) -> (&'static str, &'static str) {
    LABELS.pair(t as usize)
}

const fn label_at(i: usize) -> (&'static str, &'static str) {
    label_of(Text::ALL[i])
}

packed::packed!(LABELS, Text::ALL.len(), label_at);

const fn label_of(t: Text) -> (&'static str, &'static str) {
    use Text::*;
    match t {
        EngineHf => ("HF generate()", "HF generate()"),
        TimelineTitle => ("Memory through the step", "一步之中的显存"),
        TraceSummary => ("Lay your own trace over it", "把你自己的 trace 叠上来"),
        TraceHowTo => (
            "Record one step: `torch.cuda.memory._record_memory_history()` then `torch.cuda.memory._dump_snapshot(\"snap.pickle\")`; or torch.profiler with `profile_memory=True, record_shapes=True, with_stack=True` then `prof.export_memory_timeline(\"step.json\")` (.json.gz too); or `python tools/mem_report.py --timeline step.json`. The file is read here, in your browser, and never leaves it or goes into the link.",
            "记录一步:`torch.cuda.memory._record_memory_history()`,之后 `torch.cuda.memory._dump_snapshot(\"snap.pickle\")`;或用 torch.profiler(`profile_memory=True, record_shapes=True, with_stack=True`)之后 `prof.export_memory_timeline(\"step.json\")`(.json.gz 也可以);或 `python tools/mem_report.py --timeline step.json`。文件只在你的浏览器里读,不会上传,也不会进链接。",
        ),
        TraceFile => ("Choose or drop a trace file", "选择或拖入 trace 文件"),
        TracePaste => ("…or paste a timeline or mem_report JSON", "……或粘贴显存时间线或 mem_report 的 JSON"),
        TraceRead => ("Read", "读取"),
        TraceReading => ("Reading your trace", "正在读取你的 trace"),
        TraceMeasured => ("measured (your trace)", "实测(你的 trace)"),
        TraceCategory => ("category", "类别"),
        TraceMeasuredColumn => ("measured at its peak", "实测峰值时"),
        TracePredictedColumn => ("the ledger at its peak", "账本峰值时"),
        TraceDifference => ("difference", "差值"),
        TracePartsAt => ("They part most at", "两者相差最大的阶段:"),
        TraceLargestGap => ("the category furthest from the ledger at the peak:", "峰值时与账本相差最大的类别:"),
        TraceEvents => ("events", "个事件"),
        TracePeak => ("peak allocated", "已分配峰值"),
        TraceReservedPeak => ("peak reserved", "已预留峰值"),
        TracePreexisting => ("live before the first recorded event (unknown)", "记录开始前已存在(类别未知)"),
        TraceRemove => ("Remove the trace", "移除 trace"),
        TraceNoQuery => (
            "The measured curve is laid on the phases by its peak: record one step.",
            "实测曲线按峰值对齐到各阶段上:请只记录一步。",
        ),
        TimelineHint => (
            "What is live at each moment of the step, stacked as in the bars; the marked moment is the peak, whose totals are the bill's. Hover or focus a moment for what is live then.",
            "这一步里每个时刻还活着的张量,按堆叠图的顺序叠起来;标出的时刻就是峰值,账单的三个总数就是它的。悬停或聚焦某个时刻可看当时的组成。",
        ),
        PeakPhase => ("The peak is at", "峰值出现在"),
        PhaseTotal => ("on the device", "整卡"),
        EngineDefault => ("engine default", "引擎默认"),
        PlannerTitle => ("How many users, at what context", "多少个用户、多长的上下文"),
        PlannerHint => ("Requests that fit at once against the context per request, on this card with this engine. The dot is your batch at your context; each lever changes one setting and shows what it buys.", "在这张卡、这个引擎下,同时能容纳的请求数随每请求上下文长度的变化。圆点是你的并发数与上下文;每个杠杆只改一个设置,并给出它带来的变化。"),
        PlannerX => ("context per request (prompt + generated tokens)", "每请求上下文(提示 + 生成 token)"),
        PlannerY => ("requests at once", "同时容纳的请求数"),
        PlannerYou => ("you", "你"),
        PlannerLevers => ("Levers", "杠杆"),
        ServingServes => ("Serves", "可以服务"),
        ServingQueues => ("Starts, but requests queue", "能启动,但请求要排队"),
        ServingFails => ("Does not start", "无法启动"),
        ServingTokens => ("KV tokens", "KV token 数"),
        ServingConcurrency => ("Requests of this context at once", "此上下文下同时可容纳的请求"),
        ServingLongest => ("Longest context for your requests", "你的并发数下的最长上下文"),
        ServingHost => ("Host RAM", "主机内存"),
        Title => ("VRAM Ledger · 显存账本", "VRAM Ledger · 显存账本"),
        Tagline => ("The GPU-memory bill of any model × GPU × configuration, item by item, with formulas.", "任意“模型 × 显卡 × 配置”的显存账,逐项列出,附公式。"),
        Language => ("Language", "语言"),
        Component => ("Component", "组成"),
        Size => ("Size", "大小"),
        Share => ("Share", "占比"),
        Formula => ("Formula", "公式"),
        Section => ("Chapter", "章节"),
        Allocated => ("Tensors at peak (max_memory_allocated)", "张量峰值(max_memory_allocated)"),
        Reserved => ("Reserved by the allocator (max_memory_reserved)", "分配器保留(max_memory_reserved)"),
        Device => ("On the device (nvidia-smi)", "整卡占用(nvidia-smi)"),
        Gpu => ("GPU", "显卡"),
        Notices => ("Problems in the link", "链接中的问题"),
        VerdictUses => ("Verdict uses the device total (nvidia-smi) against the GPU, keeping a 20 % margin; the range's high end must fit too", "判定依据:整卡占用(nvidia-smi)对比显卡容量,留 20% 余量;区间上限也要放得下"),
        VerdictHighEnd => ("Not \"fits\": the range's high end exceeds the card", "不算\"放得下\":区间上限超过显卡容量"),
        Headroom => ("free", "剩余"),
        Over => ("over", "超出"),
        Footer => ("Based on course chapter 7.1, “Memory estimation and OOM troubleshooting”. Everything is computed in your browser.", "依据课程第 7.1 章《显存估算速查与 OOM 排查大全》。全部在浏览器内计算。"),
        Train => ("Training", "训练"),
        Infer => ("Inference", "推理"),
        Full => ("Full", "全参"),
        Settings => ("Configuration", "配置"),
        Chart => ("Memory, stacked", "显存堆叠图"),
        ChartAxis => ("Memory (GiB)", "显存 (GiB)"),
        Capacity => ("GPU capacity", "显卡容量"),
        ThisConfig => ("this config", "当前配置"),
        SelfTest => ("Self-test (§5)", "自测题(第 5 节)"),
        SelfTestIntro => ("The chapter's seven questions. Each answer is shown on your configuration: two bills that differ in one key.", "本章的七道自测题。每个答案都在你的配置上演示:两份只差一个键的账单。"),
        Hint => ("Hint", "提示"),
        SelfTestLoading => ("Working out the questions on your configuration…", "正在用你的配置演算这些题…"),
        SelfTestFailed => (
            "The self-test could not be worked out in this browser (it needs a Web Worker).",
            "这个浏览器里算不出自测题(需要 Web Worker)。",
        ),
        Answer => ("Answer", "答案"),
        SeeInLedger => ("See it in the ledger ↗", "在账本里看 ↗"),
        ToCalculator => ("← The calculator", "← 回到计算器"),
        GpuN => ("GPU", "GPU"),
        ShareLink => ("Share link", "分享链接"),
        CopyLink => ("Copy link", "复制链接"),
        UnitLabel => ("Unit", "单位"),
        Dismiss => ("Dismiss", "知道了"),
        WhatFits => ("What fits", "还能放下多少"),
        MaxBatch => ("Largest micro-batch (20 % margin)", "最大 micro-batch(留 20% 余量)"),
        MaxSeq => ("Longest sequence (20 % margin)", "最长序列(留 20% 余量)"),
        MaxCompletion => ("Longest completion, the prompt kept (20 % margin)", "最长生成长度,提示不变(留 20% 余量)"),
        MaxGenerations => (
            "Most completions per prompt, the same prompts per step (20 % margin)",
            "每个提示最多生成几条,每步提示数不变(留 20% 余量)",
        ),
        NoneFits => ("none fits", "放不下"),
        OpenFull => ("Open in full ↗", "在完整页面中打开 ↗"),
        CopyEmbed => ("Copy embed code", "复制嵌入代码"),
        CopyMarkdown => ("Copy as Markdown", "复制为 Markdown 表格"),
        DownloadSvg => ("Download chart (SVG)", "下载图表 SVG"),
        DownloadTimelineSvg => ("Download the step's timeline (SVG)", "下载一步之中的显存图 SVG"),
        Total => ("Total (device)", "合计(整卡占用)"),
        BringModel => ("Bring your own model (config.json)", "导入自己的模型(config.json)"),
        PasteConfig => ("Paste a config.json, or drop the file here", "粘贴 config.json,或把文件拖到这里"),
        UseConfig => ("Use this config", "使用此配置"),
        HubSource => ("Fetch from", "从哪里获取"),
        HubEndpoint => ("Mirror endpoint", "镜像地址"),
        HubMirror => ("a Hub mirror", "Hub 镜像"),
        HfId => ("Or a model id", "或输入模型 id"),
        Fetch => ("Fetch", "获取"),
        Imported => ("Imported; the share link carries every field the bill uses (all but the name):", "已导入;分享链接携带账单用到的全部字段(名称除外):"),
        TreeTitle => ("The OOM decision tree", "OOM 排查决策树"),
        TreeHint => ("Pick a step with the pointer or the keyboard (Tab, arrows, Enter); a step that is a lever can be applied to your configuration — one variable at a time.", "点选或用键盘(Tab、方向键、回车)选择一步;能作用于配置的步骤可一键“应用”,每次只改一个变量。"),
        TreeWhat => ("What to do", "做什么"),
        TreeWhy => ("Why it works", "为什么有效"),
        TreeCheck => ("How to check", "怎么验证"),
        TreeCost => ("Cost", "代价"),
        ApplyLever => ("Apply to my configuration", "应用到我的配置"),
        LeverNa => ("does not apply to this configuration (already on, or nothing left to cut)", "对当前配置不适用(已开启或无可再降)"),
        DiagnoseTitle => ("Or type what you measured (GiB)", "或者填入测量值(GiB)"),
        MeasuredAllocated => ("Peak allocated", "峰值 allocated"),
        MeasuredReserved => ("Peak reserved", "峰值 reserved"),
        MeasuredDevice => ("nvidia-smi used", "nvidia-smi 已用"),
        MeasuredTotal => ("GPU total", "显卡总量"),
        DiagnoseRun => ("Walk the tree", "走一遍决策树"),
        PasteTitle => ("Paste the error", "粘贴报错"),
        PasteHint => ("OOM errors, nvidia-smi, memory_summary(), training or engine logs (a start-up log is checked line by line), mixed. Only numbers are read; the text stays here.", "OOM 报错、nvidia-smi、memory_summary()、训练或引擎日志(启动日志逐行对照),混着贴也行。只读数字,原文不离开本页。"),
        PasteRun => ("Find it on the tree", "在决策树上定位"),
        TypedNumbers => ("Type the numbers instead", "改为手填数字"),
        ForYourConfig => ("ranked for your configuration", "按你的配置排序"),
        GbAsGib => ("GB and MB in this paste are read as GiB and MiB, as the tools that print them mean.", "这段粘贴里的 GB、MB 按 GiB、MiB 读(打印它们的工具就是这个意思)。"),
        PasteTruncated => ("The paste was long: its last 1 MiB was read.", "粘贴太长:只读了最后 1 MiB。"),
        ErrNotNumbers => ("Enter a number ≥ 0 (GiB) in every field.", "请在每一格填入 ≥ 0 的数字(GiB)。"),
        ErrNoTotal => ("The GPU total must be more than 0.", "显卡总量必须大于 0。"),
        ErrReserved => ("Reserved cannot be below allocated (PyTorch reserves everything it allocates).", "reserved 不可能小于 allocated(PyTorch 分配的都在 reserved 里)。"),
        Before => ("before", "之前"),
        After => ("after", "之后"),
        Saving => ("Saving", "节省"),
        Undo => ("Undo this step", "撤销这一步"),
        DrillTitle => ("The five-OOM drill (homework 2): inject a classic mistake and see its signature", "五种 OOM 演习(作业 2):注入一个经典错误,看它在账本里的样子"),
        DrillNoGrad => ("Evaluation loop without no_grad", "验证循环忘了 no_grad"),
        DrillTensorList => ("Logit/loss tensors kept in a list (10 steps)", "列表里存 logits/loss 张量(10 步)"),
        DrillMaxBatch => ("Batch pushed to the first OOM", "batch 拉满到第一个 OOM"),
        DrillFp32 => ("Embedding and LM head left in fp32", "embedding 和 LM head 偷偷 fp32"),
        DrillZombie => ("A crashed earlier run still holds the card", "上次崩掉的进程还占着卡"),
        SearchModels => ("Search models (e.g. qwen, 7b)", "搜索模型(如 qwen、7b)"),
        CopySnippet => ("copy", "复制"),
        SpeedCard => ("The speed card, recomputed by the ledger (§4)", "速查卡片(由账本重算,第 4 节)"),
        SpeedCardNote => ("Each cell: the largest built-in model that fits with the 20 % margin. Assumptions:", "每格:留 20% 余量时放得下的最大内置模型。假设:"),
        CardAssumptions => (crate::ledger::fit::CARD_ASSUMPTIONS, "训练:micro-batch 1、序列 2048、梯度检查点、SDPA 注意力、AdamW、bf16 混合精度(全参含 fp32 主权重与状态);LoRA r = 16 作用于全部线性层(fp32 适配器);QLoRA:NF4 + 双重量化;推理:batch 1、4096 token 上下文、bf16 KV cache,4bit = AWQ g128;CUDA 上下文 500 MiB;放得下 = nvidia-smi 总量 ≤ 显卡的 80%(本章的 20% 余量)"),
        MeasuredTitle => ("Measured vs estimated (mem_report.py, homework 1)", "实测 vs 估算(mem_report.py,作业 1)"),
        MeasuredHint => ("Paste the JSON that tools/mem_report.py prints; it is compared with the current configuration, item by item.", "把 tools/mem_report.py 打印的 JSON 粘贴到这里;与当前配置逐项比较。"),
        MeasuredOn => ("Measured on", "测量设备"),
        Measured => ("Measured", "实测"),
        Estimated => ("Estimated", "估算"),
        Error => ("Error", "误差"),
        LoadReportConfig => ("Load the report's configuration", "载入报告中的配置"),
        GridTitle => ("The GPU grid: one bar per pipeline stage", "GPU 网格:每个流水线阶段一条"),
        GridStage => ("stage", "阶段"),
        GridLayers => ("layers", "层"),
        GridWorst => (" ← needs the most", " ← 最吃显存"),
        GridPending => (" · computing the grid's bill (its code loads on demand)…", " · 正在计算网格的账单(代码按需加载)…"),
        GridLevers => ("After each lever (more GPUs for tp, pp, ep, cp): the worst GPU, or an engine's requests at once:", "每个杠杆之后(tp、pp、ep、cp 加倍即卡数加倍):最吃显存的那张卡,推理引擎则为同时服务的请求数:"),
    }
}

pub fn text(lang: Lang, t: Text) -> &'static str {
    pick(lang, label(t))
}

/// The text of a (English, Chinese) pair in `lang`.
pub fn pick(lang: Lang, (en, zh): (&'static str, &'static str)) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// The control label of a scenario key (every key has one, so a new key needs its two labels).
pub fn key_label(lang: Lang, k: crate::query::Key) -> &'static str {
    pick(lang, k.label())
}

/// A moment of the step, in words.
pub fn phase(lang: Lang, p: crate::ledger::phases::PhaseName) -> &'static str {
    use crate::ledger::phases::PhaseName::*;
    pick(
        lang,
        match p {
            Load => ("load", "加载"),
            Forward => ("forward", "前向"),
            Loss => ("loss", "损失"),
            Backward => ("backward's start", "反向开始"),
            OptimizerStep => ("optimizer step", "优化器步"),
            ZeroGrad => ("zero_grad", "梯度清零"),
            Prefill => ("prefill", "预填充"),
            Decode => ("decode", "解码"),
            Profile => ("profiling run", "预分析运行"),
            CudaGraphs => ("CUDA graphs", "CUDA graphs 捕获"),
            Serving => ("serving", "服务"),
            Rollout => ("rollout", "采样(rollout)"),
            Logprobs => ("log-probabilities (no grad)", "对数概率(无梯度)"),
        },
    )
}

/// A category of PyTorch's memory profiler (and of a snapshot's blocks by their frames).
pub fn trace_category(lang: Lang, c: crate::validation::trace::Category) -> &'static str {
    use crate::validation::trace::Category::*;
    pick(
        lang,
        match c {
            Parameter => ("parameters", "参数"),
            OptimizerState => ("optimizer state", "优化器状态"),
            Input => ("inputs", "输入"),
            Temporary => ("temporaries", "临时张量"),
            Activation => ("activations", "激活值"),
            Gradient => ("gradients", "梯度"),
            AutogradDetail => ("autograd's own", "autograd 内部"),
            Unknown => ("unknown", "未知"),
        },
    )
}

pub fn verdict(lang: Lang, v: Verdict) -> &'static str {
    pick(
        lang,
        match v {
            Verdict::Fits => ("Fits", "放得下"),
            Verdict::FitsWithoutMargin => ("Fits without the 20 % margin", "勉强放得下(不足 20% 余量)"),
            Verdict::DoesNotFit => ("Does not fit", "放不下"),
        },
    )
}

/// A diagnosis of a paste, in words.
pub fn cause(lang: Lang, c: crate::tree::paste::Cause) -> &'static str {
    use crate::tree::paste::Cause::*;
    let (en, zh) = match c {
        Zombie => ("Other processes hold the card", "其他进程占着卡"),
        Fragmentation => ("Fragmentation", "碎片化"),
        EvalNoGrad => ("Evaluation without no_grad", "验证没包 no_grad"),
        TensorList => ("Tensors kept across steps", "张量被一步步留下"),
        LongTail => ("A long-tail sample", "长尾样本"),
        Shortage => ("A real shortage", "真不够"),
        KvBudget => ("The serving engine's KV budget", "推理引擎的 KV 预算"),
        Other => ("None of the tree's levers applies", "决策树的杠杆都不对症"),
        Unknown => ("Not enough information", "信息不够"),
        HostRam => ("The host ran out of RAM", "主机内存不足"),
        Rollout => ("The rollout engine beside the trainer", "与训练器共卡的采样引擎"),
        StartupLog => ("A start-up log beside the ledger", "启动日志与账本对照"),
    };
    pick(lang, (en, zh))
}

pub fn component(lang: Lang, id: ComponentId) -> &'static str {
    use ComponentId::*;
    pick(
        lang,
        match id {
            Weights => ("Weights", "权重"),
            AdapterWeights => ("LoRA adapter weights", "LoRA 适配器权重"),
            MasterWeights => ("fp32 master weights", "fp32 主权重"),
            Gradients => ("Gradients", "梯度"),
            Optimizer => ("Optimizer states", "优化器状态"),
            Activations => ("Activations", "激活"),
            VisionActivations => ("Vision-tower activations", "视觉塔激活"),
            Logits => ("Logits", "logits"),
            KvCache => ("KV cache", "KV cache"),
            RolloutWeights => ("Rollout engine's weights", "采样引擎的权重"),
            RolloutKvCache => ("Rollout KV cache", "采样的 KV cache"),
            ReferenceModel => ("Reference model", "参考模型"),
            Critic => ("Critic (value model)", "价值模型(critic)"),
            RewardModel => ("Reward model", "奖励模型"),
            DraftModel => ("Draft model (speculative)", "草稿模型(投机解码)"),
            RolloutWorkspace => ("Rollout engine's workspace", "采样引擎的工作区"),
            DequantBuffer => ("Dequantization buffer", "反量化缓冲"),
            GatheredLayer => ("ZeRO-3 / FSDP gathered units", "ZeRO-3 / FSDP 聚合单元"),
            ZeroBuckets => ("DeepSpeed gradient buckets", "DeepSpeed 梯度桶"),
            OptimizerStep => ("Optimizer-step temporaries", "优化器步临时张量"),
            AllocatorSlack => ("Allocator slack (fragmentation)", "分配器余量(碎片)"),
            EvalGraph => ("Drill: evaluation without no_grad", "演习:验证循环忘了 no_grad"),
            KeptTensors => ("Drill: logits kept in a list", "演习:列表里攒着 logits"),
            Fp32Module => ("Drill: a module left in fp32", "演习:模块偷偷 fp32"),
            ZombieProcess => ("Drill: a zombie process", "演习:僵尸进程"),
            CudaContext => ("CUDA context and framework overhead", "CUDA 上下文与框架开销"),
            NonTorch => ("Non-torch memory (workspaces, NCCL)", "PyTorch 之外的显存(工作区、NCCL)"),
            CudaGraphs => ("CUDA graphs", "CUDA graphs"),
        },
    )
}

/// The one-line description of a scenario, in the reader's language, with the model's parameters
/// as its bill counts them (`Bill::parameters`).
pub fn scenario_line(lang: Lang, s: &crate::ledger::Scenario, parameters: u64) -> String {
    use crate::ledger::scenario::{Method, Mode};
    use crate::ledger::units::params_short;
    use crate::msg;
    let a = &s.architecture;
    // GRPO's and PPO's sequence is the prompt and its completion (`seq` is not theirs).
    let generates = s.generates();
    let tokens =
        Arg::Count(if generates { s.rl.prompt_len.saturating_add(s.rl.completion_len) } else { s.sequence_tokens() });
    let body = match (s.mode, s.method) {
        (Mode::Infer, _) => {
            msg!(ScenarioInference, Arg::Code(s.quant.id()), tokens, Arg::Count(s.generated), Arg::Int(s.batch))
        }
        (Mode::Train, Method::Full) => msg!(
            ScenarioFull,
            Arg::Code(s.precision.id()),
            Arg::Code(s.optimizer.id()),
            tokens,
            Arg::Int(s.batch),
            crate::ledger::msg::when(s.checkpointing.is_on(), || msg!(ScenarioCheckpointing))
        ),
        (Mode::Train, _) => msg!(
            ScenarioAdapters,
            Arg::Code(if s.method == Method::Lora { "LoRA" } else { "QLoRA" }),
            Arg::Int(s.rank),
            Arg::Code(s.targets.id()),
            Arg::Code(s.quant.id()),
            Arg::Code(s.optimizer.id()),
            tokens,
            Arg::Int(s.batch),
            crate::ledger::msg::when(s.checkpointing.is_on(), || msg!(ScenarioCheckpointing))
        ),
    };
    let objective = if s.is_rl() { format!(" · {}", s.rl.objective.id()) } else { String::new() };
    let rollout = if generates { format!(" ({})", s.rl.rollout.id()) } else { String::new() };
    format!("{} · {} · {}{objective}{rollout}", a.name, params_short(parameters), render(lang, &body))
}

/// A column of the speed card.
pub fn card_column(lang: Lang, c: crate::ledger::fit::CardColumn) -> &'static str {
    use crate::ledger::fit::CardColumn;
    let zh = match c {
        CardColumn::Full => "全参训",
        CardColumn::Lora => "LoRA 微调",
        CardColumn::Qlora => "4bit LoRA",
        CardColumn::InferBf16 => "推理 bf16",
        CardColumn::Infer4bit => "推理 4bit",
    };
    pick(lang, (c.label(), zh))
}

/// `m` in `lang`: its template with each `{n}` replaced by argument n.
pub fn render(lang: Lang, m: &Msg) -> String {
    let mut out = String::with_capacity(96);
    render_into(lang, m, &mut out);
    out
}

/// A template that is not a [`MsgId`]'s (the self-test's, which only the reader worker and the CLI
/// link) with `args` in its `{n}` places, in `lang`.
pub fn fill(lang: Lang, template: (&'static str, &'static str), args: &[Arg]) -> String {
    let mut out = String::with_capacity(96);
    fill_into(lang, pick(lang, template), args, &mut out);
    out
}

fn render_into(lang: Lang, m: &Msg, out: &mut String) {
    if m.id == MsgId::Bilingual {
        if let Some(a) = m.args.get(usize::from(lang == Lang::Zh)) {
            render_arg(lang, a, out);
        }
        return;
    }
    fill_into(lang, template_in(m.id, lang), &m.args, out);
}

fn fill_into(lang: Lang, template: &str, args: &[Arg], out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match (after[..digits].parse::<usize>(), after.as_bytes().get(digits)) {
            (Ok(n), Some(b'}')) => {
                if let Some(a) = args.get(n) {
                    render_arg(lang, a, out);
                }
                rest = &after[digits + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
}

fn render_arg(lang: Lang, a: &Arg, out: &mut String) {
    match a {
        Arg::Int(n) => out.push_str(&n.to_string()),
        Arg::Count(n) => out.push_str(&group(*n)),
        Arg::Bytes(x) => out.push_str(&human_bytes(*x)),
        Arg::Factor(x) => out.push_str(&factor(*x)),
        Arg::Fixed(x, d) => out.push_str(&fixed(*x, *d)),
        Arg::Code(s) => out.push_str(s),
        Arg::Text(s) => out.push_str(s),
        Arg::Msg(m) => render_into(lang, m, out),
        Arg::List(items) => {
            for (i, m) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(" + ");
                }
                render_into(lang, m, out);
            }
        }
    }
}

/// English, as the command line prints it.
/// The parts of `text` around its `` `code spans` ``, in order: (part, whether it is code). The
/// notes, levers and advice write settings such as `max_num_batched_tokens` that way; the page
/// shows them as code, the command line plainly ([`plain`]). A text with an unpaired backtick is
/// one plain part.
pub fn code_spans(text: &str) -> Vec<(&str, bool)> {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len() % 2 == 0 {
        return vec![(text, false)];
    }
    parts.into_iter().enumerate().filter(|(_, p)| !p.is_empty()).map(|(i, p)| (p, i % 2 == 1)).collect()
}

/// `text` without its code spans' backticks.
pub fn plain(text: &str) -> String {
    code_spans(text).into_iter().map(|(p, _)| p).collect()
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render(Lang::En, self))
    }
}

impl fmt::Display for crate::ledger::hf_config::ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::{render, Lang};
    use crate::ledger::msg::Arg;
    use crate::msg;

    /// Placeholders take their argument in either language; numbers are formatted once.
    #[test]
    fn placeholders_take_their_arguments() {
        let m = msg!(WeightsDense, Arg::Count(8_030_261_248), Arg::Factor(2.0), Arg::Code("bf16"));
        assert_eq!(render(Lang::En, &m), "8,030,261,248 params × 2 B (bf16)");
        assert_eq!(render(Lang::Zh, &m), "8,030,261,248 个参数 × 2 B(bf16)");
    }

    /// Hand-written cases: code spans split out, an unpaired backtick left alone.
    #[test]
    fn code_spans_split_and_plain_drops_the_backticks() {
        use super::{code_spans, plain};
        let t = "Lower `gpu_util`, or `kv=int8`.";
        assert_eq!(
            code_spans(t),
            vec![("Lower ", false), ("gpu_util", true), (", or ", false), ("kv=int8", true), (".", false)]
        );
        assert_eq!(plain(t), "Lower gpu_util, or kv=int8.");
        assert_eq!(code_spans("a ` b"), vec![("a ` b", false)]);
        assert_eq!(plain("no code"), "no code");
    }

    /// A brace that is not a placeholder stays; a missing argument renders as nothing.
    #[test]
    fn literal_braces_and_missing_arguments() {
        assert_eq!(render(Lang::En, &msg!(ConfigNotObject)), "config.json must be a JSON object ({ … })");
        assert_eq!(render(Lang::En, &msg!(ConfigFieldMissing)), "field `` is missing");
    }

    /// Nested messages render in the same language.
    #[test]
    fn nested_messages_follow_the_language() {
        let m = msg!(FrozenBase, msg!(FormatNf4Dq).arg(), msg!(Empty).arg());
        assert_eq!(render(Lang::Zh, &m), "冻结底座:NF4 + 双重量化:4 + 8/64 + 32/16384 bit");
    }
}
