//! Every user-visible string of the web app, in Chinese and English, from one table; the ledger's
//! formulas (written in English by the ledger, as the CLI prints them) are translated phrase by
//! phrase in `formulas`.

mod formulas;

pub use formulas::localize_formula;

use crate::ledger::bill::{ComponentId, Verdict};

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

/// A fixed text of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Text {
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
    Headroom,
    Over,
    Footer,
    Model,
    Gpu2,
    CustomGib,
    Mode,
    Train,
    Infer,
    Method,
    Full,
    Lora,
    Qlora,
    Precision,
    Quant,
    Optimizer,
    SeqLen,
    Batch,
    Accum,
    Rank,
    Targets,
    Checkpointing,
    Attention,
    Gpus,
    Zero,
    KvDtype,
    Generated,
    Images,
    ImagePx,
    Settings,
    Chart,
    ChartAxis,
    Capacity,
    MarginLine,
    ThisConfig,
    GpuN,
    ShareLink,
    CopyLink,
    Copied,
    UnitLabel,
    Dismiss,
    WhatFits,
    MaxBatch,
    MaxSeq,
    NoneFits,
    OpenFull,
    CopyEmbed,
    CopyMarkdown,
    DownloadSvg,
    Total,
    BringModel,
    PasteConfig,
    UseConfig,
    HfId,
    Fetch,
    Imported,
    Gated,
    NotFound,
    NetworkError,
    BadModelId,
    TooLarge,
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
    FoundLeftover,
    FoundFragmentation,
    FoundShortage,
    BestLever,
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
}

pub fn text(lang: Lang, t: Text) -> &'static str {
    use Lang::*;
    use Text::*;
    match (t, lang) {
        (Title, _) => "VRAM Ledger · 显存账本",
        (Tagline, Zh) => "任意“模型 × 显卡 × 配置”的显存账,逐项列出,附公式。",
        (Tagline, En) => "The GPU-memory bill of any model × GPU × configuration, item by item, with formulas.",
        (Language, Zh) => "语言",
        (Language, En) => "Language",
        (Component, Zh) => "组成",
        (Component, En) => "Component",
        (Size, Zh) => "大小",
        (Size, En) => "Size",
        (Share, Zh) => "占比",
        (Share, En) => "Share",
        (Formula, Zh) => "公式",
        (Formula, En) => "Formula",
        (Section, Zh) => "章节",
        (Section, En) => "Chapter",
        (Allocated, Zh) => "张量峰值(max_memory_allocated)",
        (Allocated, En) => "Tensors at peak (max_memory_allocated)",
        (Reserved, Zh) => "分配器保留(max_memory_reserved)",
        (Reserved, En) => "Reserved by the allocator (max_memory_reserved)",
        (Device, Zh) => "整卡占用(nvidia-smi)",
        (Device, En) => "On the device (nvidia-smi)",
        (Gpu, Zh) => "显卡",
        (Gpu, En) => "GPU",
        (Notices, Zh) => "链接中的问题",
        (Notices, En) => "Problems in the link",
        (VerdictUses, Zh) => "判定依据:整卡占用(nvidia-smi)对比显卡容量,留 20% 余量",
        (VerdictUses, En) => "Verdict uses the device total (nvidia-smi) against the GPU, keeping a 20 % margin",
        (Headroom, Zh) => "剩余",
        (Headroom, En) => "free",
        (Over, Zh) => "超出",
        (Over, En) => "over",
        (Footer, Zh) => "依据课程第 7.1 章《显存估算速查与 OOM 排查大全》。全部在浏览器内计算。",
        (Footer, En) => "Based on course chapter 7.1, “Memory estimation and OOM troubleshooting”. Everything is computed in your browser.",
        (Model, Zh) => "模型",
        (Model, En) => "Model",
        (Gpu2, Zh) => "显卡",
        (Gpu2, En) => "GPU",
        (CustomGib, Zh) => "自定义容量 (GiB)",
        (CustomGib, En) => "Custom size (GiB)",
        (Mode, Zh) => "场景",
        (Mode, En) => "Mode",
        (Train, Zh) => "训练",
        (Train, En) => "Training",
        (Infer, Zh) => "推理",
        (Infer, En) => "Inference",
        (Method, Zh) => "方法",
        (Method, En) => "Method",
        (Full, Zh) => "全参",
        (Full, En) => "Full",
        (Lora, _) => "LoRA",
        (Qlora, _) => "QLoRA",
        (Precision, Zh) => "精度",
        (Precision, En) => "Precision",
        (Quant, Zh) => "权重存储格式",
        (Quant, En) => "Weight format",
        (Optimizer, Zh) => "优化器",
        (Optimizer, En) => "Optimizer",
        (SeqLen, Zh) => "序列长度 (tokens)",
        (SeqLen, En) => "Sequence length (tokens)",
        (Batch, Zh) => "micro-batch(每卡)",
        (Batch, En) => "Micro-batch (per GPU)",
        (Accum, Zh) => "梯度累积步数",
        (Accum, En) => "Gradient accumulation",
        (Rank, Zh) => "LoRA 秩 r",
        (Rank, En) => "LoRA rank r",
        (Targets, Zh) => "LoRA 目标层",
        (Targets, En) => "LoRA targets",
        (Checkpointing, Zh) => "gradient checkpointing",
        (Checkpointing, En) => "Gradient checkpointing",
        (Attention, Zh) => "注意力实现",
        (Attention, En) => "Attention kernel",
        (Gpus, Zh) => "GPU 数",
        (Gpus, En) => "GPUs",
        (Zero, Zh) => "ZeRO 阶段",
        (Zero, En) => "ZeRO stage",
        (KvDtype, Zh) => "KV cache 精度",
        (KvDtype, En) => "KV-cache dtype",
        (Generated, Zh) => "生成 token 数",
        (Generated, En) => "Generated tokens",
        (Images, Zh) => "每条样本图片数",
        (Images, En) => "Images per sequence",
        (ImagePx, Zh) => "图片边长 (px)",
        (ImagePx, En) => "Image side (px)",
        (Settings, Zh) => "配置",
        (Settings, En) => "Configuration",
        (Chart, Zh) => "显存堆叠图",
        (Chart, En) => "Memory, stacked",
        (ChartAxis, Zh) => "显存 (GiB)",
        (ChartAxis, En) => "Memory (GiB)",
        (Capacity, Zh) => "显卡容量",
        (Capacity, En) => "GPU capacity",
        (MarginLine, Zh) => "80% 线(留 20% 余量)",
        (MarginLine, En) => "80 % line (20 % margin)",
        (ThisConfig, Zh) => "当前配置",
        (ThisConfig, En) => "this config",
        (GpuN, Zh) => "GPU",
        (GpuN, En) => "GPU",
        (ShareLink, Zh) => "分享链接",
        (ShareLink, En) => "Share link",
        (CopyLink, Zh) => "复制链接",
        (CopyLink, En) => "Copy link",
        (Copied, Zh) => "已复制",
        (Copied, En) => "Copied",
        (UnitLabel, Zh) => "单位",
        (UnitLabel, En) => "Unit",
        (Dismiss, Zh) => "知道了",
        (Dismiss, En) => "Dismiss",
        (WhatFits, Zh) => "还能放下多少",
        (WhatFits, En) => "What fits",
        (MaxBatch, Zh) => "最大 micro-batch(留 20% 余量)",
        (MaxBatch, En) => "Largest micro-batch (20 % margin)",
        (MaxSeq, Zh) => "最长序列(留 20% 余量)",
        (MaxSeq, En) => "Longest sequence (20 % margin)",
        (NoneFits, Zh) => "放不下",
        (NoneFits, En) => "none fits",
        (OpenFull, Zh) => "在完整页面中打开 ↗",
        (OpenFull, En) => "Open in full ↗",
        (CopyEmbed, Zh) => "复制嵌入代码",
        (CopyEmbed, En) => "Copy embed code",
        (CopyMarkdown, Zh) => "复制为 Markdown 表格",
        (CopyMarkdown, En) => "Copy as Markdown",
        (DownloadSvg, Zh) => "下载图表 SVG",
        (DownloadSvg, En) => "Download chart (SVG)",
        (Total, Zh) => "合计(整卡占用)",
        (Total, En) => "Total (device)",
        (BringModel, Zh) => "导入自己的模型(config.json)",
        (BringModel, En) => "Bring your own model (config.json)",
        (PasteConfig, Zh) => "粘贴 config.json,或把文件拖到这里",
        (PasteConfig, En) => "Paste a config.json, or drop the file here",
        (UseConfig, Zh) => "使用此配置",
        (UseConfig, En) => "Use this config",
        (HfId, Zh) => "或输入 Hugging Face 模型 id",
        (HfId, En) => "Or a Hugging Face model id",
        (Fetch, Zh) => "获取",
        (Fetch, En) => "Fetch",
        (Imported, Zh) => "已导入(分享链接只携带层数、宽度等尺寸字段,偏置与视觉塔等细节不在链接里):",
        (Imported, En) => "Imported (the share link carries the sizes — layers, hidden, …; details such as biases or a vision tower are not in the link):",
        (Gated, Zh) => "该模型需要登录或授权(gated),浏览器无法直接读取。请在 Hub 上打开它的 config.json,复制后粘贴到上面。",
        (Gated, En) => "This model is gated (login or licence needed), so the browser cannot read it. Open its config.json on the Hub and paste it above instead.",
        (NotFound, Zh) => "Hub 上找不到这个模型或它的 config.json(404),请检查 id 的拼写和大小写。",
        (NotFound, En) => "No such model or config.json on the Hub (404). Check the id's spelling and case.",
        (NetworkError, Zh) => "无法访问 huggingface.co(网络或跨域限制)。请粘贴 config.json。",
        (NetworkError, En) => "Could not reach huggingface.co (network or CORS). Paste the config.json instead.",
        (BadModelId, Zh) => "模型 id 的格式应为 组织/名称,例如 Qwen/Qwen2.5-7B。",
        (BadModelId, En) => "A model id looks like owner/name, e.g. Qwen/Qwen2.5-7B.",
        (TooLarge, Zh) => "文件超过 1 MB,不像是 config.json。",
        (TooLarge, En) => "The file is over 1 MB; that is not a config.json.",
        (TreeTitle, Zh) => "OOM 排查决策树",
        (TreeTitle, En) => "The OOM decision tree",
        (TreeHint, Zh) => "点选或用键盘(Tab、方向键、回车)选择一步;能作用于配置的步骤可一键“应用”,每次只改一个变量。",
        (TreeHint, En) => "Pick a step with the pointer or the keyboard (Tab, arrows, Enter); a step that is a lever can be applied to your configuration — one variable at a time.",
        (TreeWhat, Zh) => "做什么",
        (TreeWhat, En) => "What to do",
        (TreeWhy, Zh) => "为什么有效",
        (TreeWhy, En) => "Why it works",
        (TreeCheck, Zh) => "怎么验证",
        (TreeCheck, En) => "How to check",
        (TreeCost, Zh) => "代价",
        (TreeCost, En) => "Cost",
        (ApplyLever, Zh) => "应用到我的配置",
        (ApplyLever, En) => "Apply to my configuration",
        (LeverNa, Zh) => "对当前配置不适用(已开启或无可再降)",
        (LeverNa, En) => "does not apply to this configuration (already on, or nothing left to cut)",
        (DiagnoseTitle, Zh) => "按测量诊断(GiB)",
        (DiagnoseTitle, En) => "Diagnose from measurements (GiB)",
        (MeasuredAllocated, Zh) => "峰值 allocated",
        (MeasuredAllocated, En) => "Peak allocated",
        (MeasuredReserved, Zh) => "峰值 reserved",
        (MeasuredReserved, En) => "Peak reserved",
        (MeasuredDevice, Zh) => "nvidia-smi 已用",
        (MeasuredDevice, En) => "nvidia-smi used",
        (MeasuredTotal, Zh) => "显卡总量",
        (MeasuredTotal, En) => "GPU total",
        (DiagnoseRun, Zh) => "走一遍决策树",
        (DiagnoseRun, En) => "Walk the tree",
        (FoundLeftover, Zh) => "nvidia-smi 远高于本进程的 reserved + CUDA 上下文:有残留进程占卡,kill 干净后重跑",
        (FoundLeftover, En) => "nvidia-smi is far above this process's reserved memory + CUDA context: leftover processes hold the card; kill them and rerun",
        (FoundFragmentation, Zh) => "reserved 远高于 allocated,或峰值远小于总量:碎片化,试 expandable_segments",
        (FoundFragmentation, En) => "reserved far above allocated, or the peak well under the total: fragmentation; try expandable_segments",
        (FoundShortage, Zh) => "峰值接近总量:真不够。账本里最大的一项是",
        (FoundShortage, En) => "The peak is at the total: a real shortage. The ledger's largest component is",
        (BestLever, Zh) => "省得最多的一招:",
        (BestLever, En) => "the lever that saves most:",
        (ErrNotNumbers, Zh) => "请在每一格填入 ≥ 0 的数字(GiB)。",
        (ErrNotNumbers, En) => "Enter a number ≥ 0 (GiB) in every field.",
        (ErrNoTotal, Zh) => "显卡总量必须大于 0。",
        (ErrNoTotal, En) => "The GPU total must be more than 0.",
        (ErrReserved, Zh) => "reserved 不可能小于 allocated(PyTorch 分配的都在 reserved 里)。",
        (ErrReserved, En) => "Reserved cannot be below allocated (PyTorch reserves everything it allocates).",
        (Before, Zh) => "之前",
        (Before, En) => "before",
        (After, Zh) => "之后",
        (After, En) => "after",
        (Saving, Zh) => "节省",
        (Saving, En) => "Saving",
        (Undo, Zh) => "撤销这一步",
        (Undo, En) => "Undo this step",
        (DrillTitle, Zh) => "五种 OOM 演习(作业 2):注入一个经典错误,看它在账本里的样子",
        (DrillTitle, En) => "The five-OOM drill (homework 2): inject a classic mistake and see its signature",
        (DrillNoGrad, Zh) => "验证循环忘了 no_grad",
        (DrillNoGrad, En) => "Evaluation loop without no_grad",
        (DrillTensorList, Zh) => "列表里存 logits/loss 张量(10 步)",
        (DrillTensorList, En) => "Logit/loss tensors kept in a list (10 steps)",
        (DrillMaxBatch, Zh) => "batch 拉满到第一个 OOM",
        (DrillMaxBatch, En) => "Batch pushed to the first OOM",
        (DrillFp32, Zh) => "embedding 和 LM head 偷偷 fp32",
        (DrillFp32, En) => "Embedding and LM head left in fp32",
        (DrillZombie, Zh) => "上次崩掉的进程还占着卡",
        (DrillZombie, En) => "A crashed earlier run still holds the card",
        (SearchModels, Zh) => "搜索模型(如 qwen、7b)",
        (SearchModels, En) => "Search models (e.g. qwen, 7b)",
    }
}

pub fn verdict(lang: Lang, v: Verdict) -> &'static str {
    match (v, lang) {
        (Verdict::Fits, Lang::Zh) => "放得下",
        (Verdict::Fits, Lang::En) => "Fits",
        (Verdict::FitsWithoutMargin, Lang::Zh) => "勉强放得下(不足 20% 余量)",
        (Verdict::FitsWithoutMargin, Lang::En) => "Fits without the 20 % margin",
        (Verdict::DoesNotFit, Lang::Zh) => "放不下",
        (Verdict::DoesNotFit, Lang::En) => "Does not fit",
    }
}

pub fn component(lang: Lang, id: ComponentId) -> &'static str {
    use ComponentId::*;
    match (id, lang) {
        (Weights, Lang::Zh) => "权重",
        (Weights, Lang::En) => "Weights",
        (AdapterWeights, Lang::Zh) => "LoRA 适配器权重",
        (AdapterWeights, Lang::En) => "LoRA adapter weights",
        (MasterWeights, Lang::Zh) => "fp32 主权重",
        (MasterWeights, Lang::En) => "fp32 master weights",
        (Gradients, Lang::Zh) => "梯度",
        (Gradients, Lang::En) => "Gradients",
        (Optimizer, Lang::Zh) => "优化器状态",
        (Optimizer, Lang::En) => "Optimizer states",
        (Activations, Lang::Zh) => "激活",
        (Activations, Lang::En) => "Activations",
        (VisionActivations, Lang::Zh) => "视觉塔激活",
        (VisionActivations, Lang::En) => "Vision-tower activations",
        (Logits, Lang::Zh) => "logits",
        (Logits, Lang::En) => "Logits",
        (KvCache, Lang::Zh) => "KV cache",
        (KvCache, Lang::En) => "KV cache",
        (DequantBuffer, Lang::Zh) => "反量化缓冲",
        (DequantBuffer, Lang::En) => "Dequantization buffer",
        (GatheredLayer, Lang::Zh) => "ZeRO-3 聚合层",
        (GatheredLayer, Lang::En) => "ZeRO-3 gathered layer",
        (OptimizerStep, Lang::Zh) => "优化器步临时张量",
        (OptimizerStep, Lang::En) => "Optimizer-step temporaries",
        (AllocatorSlack, Lang::Zh) => "分配器余量(碎片)",
        (AllocatorSlack, Lang::En) => "Allocator slack (fragmentation)",
        (EvalGraph, Lang::Zh) => "演习:验证循环忘了 no_grad",
        (EvalGraph, Lang::En) => "Drill: evaluation without no_grad",
        (KeptTensors, Lang::Zh) => "演习:列表里攒着 logits",
        (KeptTensors, Lang::En) => "Drill: logits kept in a list",
        (Fp32Module, Lang::Zh) => "演习:模块偷偷 fp32",
        (Fp32Module, Lang::En) => "Drill: a module left in fp32",
        (ZombieProcess, Lang::Zh) => "演习:僵尸进程",
        (ZombieProcess, Lang::En) => "Drill: a zombie process",
        (CudaContext, Lang::Zh) => "CUDA 上下文与框架开销",
        (CudaContext, Lang::En) => "CUDA context and framework overhead",
    }
}

/// The one-line description of a scenario, in the reader's language.
pub fn scenario_line(lang: Lang, s: &crate::ledger::Scenario) -> String {
    use crate::ledger::scenario::{Method, Mode};
    use crate::ledger::units::{group, params_short};
    let a = &s.architecture;
    let zh = lang == Lang::Zh;
    let head = format!("{} · {}", a.name, params_short(a.parameters()));
    let body = match s.mode {
        Mode::Infer => {
            if zh {
                format!("推理 · {} 权重 · {} + {} token × {} 条", s.quant.id(), group(s.sequence_tokens()), group(s.generated), s.batch)
            } else {
                format!("inference · {} weights · {} + {} tokens × {}", s.quant.id(), group(s.sequence_tokens()), group(s.generated), s.batch)
            }
        }
        Mode::Train => {
            let method = match s.method {
                Method::Full => if zh { format!("全参微调({})", s.precision.id()) } else { format!("full fine-tune ({})", s.precision.id()) },
                Method::Lora | Method::Qlora => format!(
                    "{} r={} {} · {} {}",
                    if s.method == Method::Lora { "LoRA" } else { "QLoRA" },
                    s.rank,
                    s.targets.id(),
                    if zh { "底座" } else { "base" },
                    s.quant.id()
                ),
            };
            let gc = if s.gradient_checkpointing { if zh { " · 梯度检查点" } else { " · checkpointing" } } else { "" };
            if zh {
                format!("{method} · {} · 序列 {} × batch {}{gc}", s.optimizer.id(), group(s.sequence_tokens()), s.batch)
            } else {
                format!("{method} · {} · seq {} × batch {}{gc}", s.optimizer.id(), group(s.sequence_tokens()), s.batch)
            }
        }
    };
    format!("{head} · {body}")
}
