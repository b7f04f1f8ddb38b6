//! The chapter's OOM decision tree (§3 and "图解 · OOM 排查决策树") as data: its nodes, its edges
//! (both decisions with their yes/no branches), and for each node the card a student reads.

/// A node of the tree; its id is what `tree=<id>` in a link selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeId {
    Oom,
    Measure,
    Zombie,
    Kill,
    Batch,
    Checkpointing,
    DtypeNoGrad,
    SeqLen,
    PeakVsTotal,
    Fragmentation,
    Sharding,
}

impl NodeId {
    pub const ALL: [NodeId; 11] = [
        NodeId::Oom,
        NodeId::Measure,
        NodeId::Zombie,
        NodeId::Kill,
        NodeId::Batch,
        NodeId::Checkpointing,
        NodeId::DtypeNoGrad,
        NodeId::SeqLen,
        NodeId::PeakVsTotal,
        NodeId::Fragmentation,
        NodeId::Sharding,
    ];

    /// The id in links (`tree=batch`); stable.
    pub fn id(self) -> &'static str {
        match self {
            NodeId::Oom => "oom",
            NodeId::Measure => "measure",
            NodeId::Zombie => "zombie",
            NodeId::Kill => "kill",
            NodeId::Batch => "batch",
            NodeId::Checkpointing => "checkpointing",
            NodeId::DtypeNoGrad => "dtype",
            NodeId::SeqLen => "seq",
            NodeId::PeakVsTotal => "peak",
            NodeId::Fragmentation => "fragmentation",
            NodeId::Sharding => "sharding",
        }
    }

    pub fn from_id(id: &str) -> Option<NodeId> {
        NodeId::ALL.into_iter().find(|n| n.id() == id)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The start (OOM!).
    Start,
    /// Something to do.
    Step,
    /// A question with yes/no branches.
    Decision,
}

/// Text in both languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bi {
    pub zh: &'static str,
    pub en: &'static str,
}

/// A copyable snippet: code or a shell line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snippet {
    pub caption: Bi,
    pub code: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Card {
    pub what: Bi,
    pub why: Bi,
    pub check: &'static [Snippet],
    pub cost: Bi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    pub id: NodeId,
    pub shape: Shape,
    /// The label in the diagram (the chapter's words).
    pub label: Bi,
    pub card: Card,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    /// The branch label of a decision ("是" / "否, 真不够" …).
    pub label: Option<Bi>,
}

const MAX_ALLOC: Snippet = Snippet {
    caption: Bi { zh: "训练循环里打印峰值(张量)", en: "Peak of tensors, printed in the training loop" },
    code: "print(torch.cuda.max_memory_allocated() / 2**30, 'GiB')",
};
const SUMMARY: Snippet = Snippet {
    caption: Bi { zh: "分配器的完整账本", en: "The allocator's full account" },
    code: "print(torch.cuda.memory_summary())",
};
const SMI: Snippet = Snippet {
    caption: Bi { zh: "谁在占卡(整卡视角)", en: "Who holds the card (device view)" },
    code: "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
};
const KILL: Snippet = Snippet {
    caption: Bi { zh: "结束残留进程(先确认 PID)", en: "End a leftover process (check the PID first)" },
    code: "kill <PID>    # then: nvidia-smi",
};
const ACCUM: Snippet = Snippet {
    caption: Bi {
        zh: "HF Trainer:batch 减半、累积加倍", en: "HF Trainer: halve the batch, double the accumulation"
    },
    code: "TrainingArguments(per_device_train_batch_size=2, gradient_accumulation_steps=8)",
};
const GC: Snippet = Snippet {
    caption: Bi { zh: "开启梯度检查点", en: "Turn on gradient checkpointing" },
    code: "model.gradient_checkpointing_enable()  # or TrainingArguments(gradient_checkpointing=True)",
};
const INFER_MODE: Snippet = Snippet {
    caption: Bi { zh: "验证循环不要建图", en: "Evaluate without building a graph" },
    code: "with torch.inference_mode():\n    val_loss = model(**batch).loss",
};
const ITEM: Snippet = Snippet {
    caption: Bi { zh: "日志里只存标量", en: "Log scalars, not tensors" },
    code: "losses.append(loss.item())  # not losses.append(loss)",
};
const DTYPES: Snippet = Snippet {
    caption: Bi { zh: "找出偷偷 fp32 的参数", en: "Find parameters that stayed fp32" },
    code: "print({p.dtype for p in model.parameters()})",
};
const LENGTHS: Snippet = Snippet {
    caption: Bi { zh: "先统计长度分布,找长尾", en: "Look at the length distribution first" },
    code: "lengths = [len(x['input_ids']) for x in ds]; print(max(lengths), sorted(lengths)[int(.99*len(lengths))])",
};
const EXPANDABLE: Snippet = Snippet {
    caption: Bi { zh: "减少碎片", en: "Reduce fragmentation" },
    code: "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python train.py",
};
const FSDP: Snippet = Snippet {
    caption: Bi { zh: "多卡分片(accelerate)", en: "Shard over GPUs (accelerate)" },
    code: "accelerate launch --num_processes 4 --use_fsdp --fsdp_sharding_strategy FULL_SHARD train.py",
};

/// Every node, in the chapter's order.
pub const NODES: [Node; 11] = [
    Node {
        id: NodeId::Oom,
        shape: Shape::Start,
        label: Bi { zh: "OOM!", en: "OOM!" },
        card: Card {
            what: Bi { zh: "从顶部往下走,每一步只改一个变量并重测。", en: "Walk down from the top; change one variable per step and measure again." },
            why: Bi { zh: "一次改三处再跑,你永远不知道是哪招起效的(所有调试的元规则)。", en: "Change three things at once and you never learn which one worked (the meta-rule of all debugging)." },
            check: &[],
            cost: Bi { zh: "—", en: "—" },
        },
    },
    Node {
        id: NodeId::Measure,
        shape: Shape::Step,
        label: Bi { zh: "第 0 步:先测量\nmax_memory_allocated + nvidia-smi", en: "Step 0: measure first\nmax_memory_allocated + nvidia-smi" },
        card: Card {
            what: Bi { zh: "先测量,别猜:训练循环里打印峰值,用 nvidia-smi 看谁在占卡。把数字填到下面的“按测量诊断”。", en: "Measure, don't guess: print the peak in the training loop and see who holds the card with nvidia-smi. Enter the numbers in “Diagnose from measurements” below." },
            why: Bi { zh: "max_memory_allocated 只算张量;nvidia-smi 还包括分配器缓存、CUDA 上下文和别的进程。两者之差就是线索。", en: "max_memory_allocated counts tensors only; nvidia-smi adds the allocator's cache, the CUDA context and other processes. The gaps between them are the clues." },
            check: &[MAX_ALLOC, SUMMARY, SMI],
            cost: Bi { zh: "几秒钟", en: "seconds" },
        },
    },
    Node {
        id: NodeId::Zombie,
        shape: Shape::Decision,
        label: Bi { zh: "僵尸进程 / 残留占用?", en: "Zombie process / leftover usage?" },
        card: Card {
            what: Bi { zh: "在 nvidia-smi 里找不属于你当前任务的进程:上次崩掉的 python、没关的 vLLM。", en: "Look in nvidia-smi for processes that are not your current job: the python that crashed last time, a vLLM server left running." },
            why: Bi { zh: "“明明没跑啥却 OOM”的第一嫌疑。nvidia-smi 占用远高于本进程的 reserved 就是信号。", en: "Suspect number one for “OOM with nothing running”. nvidia-smi far above this process's reserved memory is the sign." },
            check: &[SMI],
            cost: Bi { zh: "无", en: "none" },
        },
    },
    Node {
        id: NodeId::Kill,
        shape: Shape::Step,
        label: Bi { zh: "kill 干净,重跑", en: "Kill them, rerun" },
        card: Card {
            what: Bi { zh: "结束残留进程,确认 nvidia-smi 归零后重跑。", en: "End the leftover processes, check that nvidia-smi is back to zero, rerun." },
            why: Bi { zh: "显存按进程占用;别的进程占着的显存你的进程用不到。", en: "Memory belongs to processes; what another process holds, yours cannot use." },
            check: &[KILL, SMI],
            cost: Bi { zh: "无(先确认不是同事的任务)", en: "none (make sure it is not a colleague's job)" },
        },
    },
    Node {
        id: NodeId::Batch,
        shape: Shape::Step,
        label: Bi { zh: "① 降 batch + 梯度累积", en: "① Smaller batch + gradient accumulation" },
        card: Card {
            what: Bi { zh: "micro-batch 减半,梯度累积步数加倍。", en: "Halve the micro-batch, double the accumulation steps." },
            why: Bi { zh: "激活和 logits 随 batch 线性下降,等效 batch(batch × 累积)不变,更新不变。", en: "Activations and logits fall linearly with the batch; the effective batch (batch × accumulation) and so the update stay the same." },
            check: &[ACCUM, MAX_ALLOC],
            cost: Bi { zh: "成本最低,先动它;小 batch 的 GPU 利用率略低", en: "the cheapest lever, try it first; small batches use the GPU a little less well" },
        },
    },
    Node {
        id: NodeId::Checkpointing,
        shape: Shape::Step,
        label: Bi { zh: "② 开 gradient checkpointing", en: "② Gradient checkpointing on" },
        card: Card {
            what: Bi { zh: "开启梯度检查点:每层只存输入,反向时重算。", en: "Turn on gradient checkpointing: keep only each layer's input and recompute the layer in backward." },
            why: Bi { zh: "用计算换存储:激活从“每层全部中间张量”降到“每层一个输入 + 一层重算”。", en: "Compute for memory: activations drop from every intermediate of every layer to one input per layer plus one recomputed layer." },
            check: &[GC, MAX_ALLOC],
            cost: Bi { zh: "约慢 30%(多一次前向)", en: "about 30 % slower (one extra forward pass)" },
        },
    },
    Node {
        id: NodeId::DtypeNoGrad,
        shape: Shape::Step,
        label: Bi { zh: "③ 查 dtype 混用 / 忘 no_grad / tensor 收集器", en: "③ Mixed dtypes / forgotten no_grad / tensor collector" },
        card: Card {
            what: Bi { zh: "统一 bf16;验证循环包 inference_mode();日志里只存 .item()。", en: "One dtype (bf16); wrap evaluation in inference_mode(); log .item(), not tensors." },
            why: Bi { zh: "没被 autocast 包住的模块偷偷 fp32 会让权重和激活翻倍;忘 no_grad 的验证循环保存整张图,峰值翻倍(新手 OOM 榜第一);列表里的 loss/logits 张量跨步存活。", en: "A module outside autocast silently runs in fp32 and doubles its weights and activations; an evaluation loop without no_grad keeps the whole graph and doubles the peak (the top beginner OOM); loss/logit tensors kept in a list survive across steps." },
            check: &[DTYPES, INFER_MODE, ITEM],
            cost: Bi { zh: "无(是 bug 修复)", en: "none (it is a bug fix)" },
        },
    },
    Node {
        id: NodeId::SeqLen,
        shape: Shape::Step,
        label: Bi { zh: "④ 降 seq len / 分辨率 / 压视觉 token", en: "④ Shorter sequences / lower resolution / fewer visual tokens" },
        card: Card {
            what: Bi { zh: "cutoff_len 降档、图片分辨率降档、压缩视觉 token;先跑 max(len) 统计长尾样本。", en: "Lower cutoff_len, lower the image resolution, compress visual tokens; first find the long-tail sample with max(len)." },
            why: Bi { zh: "激活、logits 和 KV 都随序列长度线性增长(eager 注意力是平方);最长的那条样本决定峰值。", en: "Activations, logits and KV grow linearly with the sequence (quadratically with eager attention); the longest sample sets the peak." },
            check: &[LENGTHS],
            cost: Bi { zh: "截断会丢信息;可改用分桶", en: "truncation loses text; bucketing by length avoids that" },
        },
    },
    Node {
        id: NodeId::PeakVsTotal,
        shape: Shape::Decision,
        label: Bi { zh: "峰值 ≈ 总量仍 OOM?", en: "Peak ≈ total and still OOM?" },
        card: Card {
            what: Bi { zh: "比较 max_memory_allocated、max_memory_reserved 与显卡总量。", en: "Compare max_memory_allocated, max_memory_reserved and the card's total." },
            why: Bi { zh: "reserved 远大于 allocated,或峰值远小于总量却 OOM:是碎片。峰值真的接近总量:是真不够。", en: "Reserved far above allocated, or an OOM with the peak well under the total: fragmentation. A peak really at the total: a real shortage." },
            check: &[SUMMARY, MAX_ALLOC],
            cost: Bi { zh: "无", en: "none" },
        },
    },
    Node {
        id: NodeId::Fragmentation,
        shape: Shape::Step,
        label: Bi { zh: "PYTORCH_CUDA_ALLOC_CONF\n=expandable_segments:True", en: "PYTORCH_CUDA_ALLOC_CONF\n=expandable_segments:True" },
        card: Card {
            what: Bi { zh: "用可扩展段启动训练。", en: "Start training with expandable segments." },
            why: Bi { zh: "缓存分配器按块切分显存,形状多变时空洞拼不成大块;可扩展段让段按需增长,减少碎片。", en: "The caching allocator carves memory into blocks; with changing shapes the holes cannot form one large block. Expandable segments grow on demand and fragment less." },
            check: &[EXPANDABLE, SUMMARY],
            cost: Bi { zh: "几乎无", en: "almost none" },
        },
    },
    Node {
        id: NodeId::Sharding,
        shape: Shape::Step,
        label: Bi { zh: "FSDP / DeepSpeed ZeRO(7.3)", en: "FSDP / DeepSpeed ZeRO (7.3)" },
        card: Card {
            what: Bi { zh: "最后手段:把优化器状态、梯度、权重分片到多卡(ZeRO-1/2/3、FSDP);单卡可先试 8-bit 优化器或 QLoRA。", en: "The last resort: shard optimizer states, gradients and weights over GPUs (ZeRO-1/2/3, FSDP); on one card try an 8-bit optimizer or QLoRA first." },
            why: Bi { zh: "模型状态(2+2+8+4 B/参数)除以卡数;ZeRO-3 每卡只留 1/N 的权重和一层聚合。", en: "Model states (2+2+8+4 B per parameter) are divided by the GPU count; ZeRO-3 keeps 1/N of the weights per GPU plus one gathered layer." },
            check: &[FSDP],
            cost: Bi { zh: "需要多卡;通信开销(ZeRO-3 约 1.5× 通信量)", en: "needs more GPUs; communication (ZeRO-3 moves about 1.5× the data)" },
        },
    },
];

/// Every edge of the chapter's flowchart.
pub const EDGES: [Edge; 10] = [
    Edge { from: NodeId::Oom, to: NodeId::Measure, label: None },
    Edge { from: NodeId::Measure, to: NodeId::Zombie, label: None },
    Edge { from: NodeId::Zombie, to: NodeId::Kill, label: Some(Bi { zh: "是", en: "yes" }) },
    Edge { from: NodeId::Zombie, to: NodeId::Batch, label: Some(Bi { zh: "否", en: "no" }) },
    Edge { from: NodeId::Batch, to: NodeId::Checkpointing, label: None },
    Edge { from: NodeId::Checkpointing, to: NodeId::DtypeNoGrad, label: None },
    Edge { from: NodeId::DtypeNoGrad, to: NodeId::SeqLen, label: None },
    Edge { from: NodeId::SeqLen, to: NodeId::PeakVsTotal, label: None },
    Edge {
        from: NodeId::PeakVsTotal,
        to: NodeId::Fragmentation,
        label: Some(Bi { zh: "是,碎片", en: "yes, fragmentation" }),
    },
    Edge {
        from: NodeId::PeakVsTotal,
        to: NodeId::Sharding,
        label: Some(Bi { zh: "否,真不够", en: "no, a real shortage" }),
    },
];

pub fn node(id: NodeId) -> &'static Node {
    // NODES holds every id, in NodeId::ALL's order.
    let i = NodeId::ALL.iter().position(|&n| n == id).unwrap_or(0);
    &NODES[i]
}

pub fn children(id: NodeId) -> impl Iterator<Item = &'static Edge> {
    EDGES.iter().filter(move |e| e.from == id)
}

pub fn parent(id: NodeId) -> Option<NodeId> {
    EDGES.iter().find(|e| e.to == id).map(|e| e.from)
}
