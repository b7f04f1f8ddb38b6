//! The text of every template the ledger, the query parser, the config importer and the tree
//! write (`crate::ledger::msg::MsgId`), in English and Chinese. `{0}`, `{1}` … are the message's
//! arguments, rendered the same way in both languages. The match is exhaustive, so a new id does
//! not compile until it has both texts; a test checks that both use the same placeholders.
//!
//! Identifiers (q_proj, head_dim), dtypes (bf16, nf4), units and framework names stay as they are
//! in the Chinese texts, as in Chinese technical writing.

use super::Lang;
use crate::ledger::msg::MsgId;

/// (English, Chinese) of a template.
pub fn template(id: MsgId) -> (&'static str, &'static str) {
    use MsgId::*;
    match id {
        Empty => ("", ""),
        NotUsed => ("not used here", "此处不适用"),
        ShardZero => (" ÷ {0} GPUs (ZeRO-{1})", " ÷ {0} 卡(ZeRO-{1})"),
        TensorParallel => (" ÷ {0} GPUs (tensor parallel)", " ÷ {0} 卡(张量并行)"),
        PerGpu => (" per GPU", "(每卡)"),
        EagerScores => (" + {0} B·s² per sequence (eager scores)", " + 每条序列 {0} B·s²(eager 注意力分数)"),

        WeightsDense => ("{0} params × {1} B ({2})", "{0} 个参数 × {1} B({2})"),
        WeightsGguf => ("{0} params × {1} bits / 8 ({2}){3}", "{0} 个参数 × {1} bit / 8({2}){3}"),
        WeightsQuantized => (
            "linear {0} params × {1} bits / 8 ({2}) + embeddings, LM head, norms{3} {4} params × 2 B (16-bit)",
            "线性层 {0} 个参数 × {1} bit / 8({2})+ embedding、LM head、norm{3} {4} 个参数 × 2 B(16 位)",
        ),
        VisionTowerPlus => (" + vision tower {0} params × 2 B", " + 视觉塔 {0} 个参数 × 2 B"),
        VisionTowerListed => (", vision tower", "、视觉塔"),
        FormatDense => ("{0} {1} B", "{0} {1} B"),
        FormatInt8 => ("LLM.int8: 1 B + fp32 row scale", "LLM.int8:1 B + 每行 fp32 缩放"),
        FormatNf4 => ("NF4: 4 + 32/64 bits", "NF4:4 + 32/64 bit"),
        FormatNf4Dq => ("NF4 + double quant: 4 + 8/64 + 32/16384 bits", "NF4 + 双重量化:4 + 8/64 + 32/16384 bit"),
        FormatGroup128 => ("{0} g128: 4 + 16/128 + 4/128 bits", "{0} g128:4 + 16/128 + 4/128 bit"),
        FormatGguf => ("GGUF {0}: {1} bits (file average)", "GGUF {0}:{1} bit(文件平均)"),

        TrainedWeights => ("{0} params × {1} B ({2}){3}", "{0} 个参数 × {1} B({2}){3}"),
        WorkingCopy => ("bf16 working copy", "bf16 工作副本"),
        FrozenBase => ("frozen base: {0}{1}", "冻结底座:{0}{1}"),
        ServedWeights => ("{0}{1}", "{0}{1}"),
        AdapterWeights => (
            "{0} layers × Σ r·(d_in + d_out) over {1} with r = {2} = {3} params ({4} % of the model) × {5} B{6}",
            "{0} 层 × Σ r·(d_in + d_out) 作用于 {1},r = {2} = {3} 个参数(占模型 {4} %)× {5} B{6}",
        ),
        DequantTraining => (
            "largest weight matrix {0} × 2 B: dequantized to bf16 for each matmul",
            "最大权重矩阵 {0} × 2 B:每次矩阵乘前反量化为 bf16",
        ),
        DequantPrefill => (
            "largest weight matrix {0} × 2 B: bitsandbytes dequantizes to bf16 for prefill",
            "最大权重矩阵 {0} × 2 B:bitsandbytes 在 prefill 时反量化为 bf16",
        ),
        MasterWeights => ("{0} trainable × 4 B (fp32 master copy){1}", "{0} 个可训练参数 × 4 B(fp32 主权重副本){1}"),
        Gradients => ("{0} trainable ({1}) × {2} B{3}{4}", "{0} 个可训练参数({1})× {2} B{3}{4}"),
        DdpCopy => (" × 2 (DDP keeps a bucket copy)", " × 2(DDP 保留一份桶副本)"),
        OptimizerLine => ("{0}{1}", "{0}{1}"),
        StatesAdamW => ("{0} trainable × 2 states (m, v) × {1} B", "{0} 个可训练参数 × 2 个状态 (m, v) × {1} B"),
        StatesAdamW8bit => (
            "{0} trainable × 2 states × (1 B + fp32 absmax per 256) = {1} B",
            "{0} 个可训练参数 × 2 个状态 × (1 B + 每 256 个一个 fp32 absmax) = {1} B",
        ),
        StatesSgd => ("plain SGD keeps no state", "普通 SGD 不保存状态"),
        StatesMomentum => ("{0} trainable × 1 momentum × {1} B", "{0} 个可训练参数 × 1 个动量 × {1} B"),
        StatesAdafactor => (
            "factored 2nd moment: Σ(rows + cols) {0} + unfactored vectors {1} = {2} values × {3} B (no 1st moment)",
            "分解的二阶矩:Σ(行 + 列) {0} + 未分解的向量 {1} = {2} 个值 × {3} B(无一阶矩)",
        ),
        ActivationsCheckpointed => (
            "checkpointing: {0} layer inputs × {1} tokens × {2} seq × {3} × {4} B = {5} + final norm {6} + one layer recomputed ({7} B/token{8} = {9}) beyond the logits' peak, which is freed before it: {10}",
            "梯度检查点:{0} 个层输入 × {1} token × {2} 条序列 × {3} × {4} B = {5} + 最终 norm {6} + 重算一层({7} B/token{8} = {9})中超出 logits 峰值的部分(logits 在重算之前已释放):{10}",
        ),
        ActivationsStored => (
            "{0} layers × {1} tokens × {2} seq × {3} B/token/layer{4} = {5} + final norm {6}",
            "{0} 层 × {1} token × {2} 条序列 × {3} B/token/层{4} = {5} + 最终 norm {6}",
        ),
        Logits => (
            "{0} seq × {1} tokens × vocab {2} × {3} B (loss={4}: {5}{6})",
            "{0} 条序列 × {1} token × 词表 {2} × {3} B(loss={4}:{5}{6})",
        ),
        LossHf => (
            "backward of the fp32 log-softmax: saved output + incoming gradient + input gradient, 3 × 4 B",
            "fp32 log-softmax 的反向:保存的输出 + 传入梯度 + 输入梯度,3 × 4 B",
        ),
        LossHfShift => (
            "LM head output + fp32 upcast + shifted fp32 copy + fp32 log-softmax",
            "LM head 输出 + fp32 上转 + 错位的 fp32 副本 + fp32 log-softmax",
        ),
        LossChunked => ("LM head output + fp32 log-softmax of each chunk", "LM head 输出 + 每个分块的 fp32 log-softmax"),
        LossFused => ("fused linear cross-entropy: logits never materialised", "线性层与交叉熵融合:logits 从不完整生成"),
        Softcap => (" + soft-capping's tanh output {0} B", " + 软截断(tanh)的输出 {0} B"),
        VisionActivations => (
            "frozen vision tower, one block at a time over {0} patches ({1} per image = {2} tokens × {3}): {4}",
            "冻结的视觉塔,每次一个 block,处理 {0} 个 patch(每张图 {1} 个 = {2} token × {3}):{4}",
        ),
        GatheredLayer => (
            "one layer gathered from the other GPUs: {0} params × {1} B × (1 − 1/{2})",
            "从其他 GPU 聚合的一层:{0} 个参数 × {1} B × (1 − 1/{2})",
        ),
        OptimizerStep => (
            "max(0, step temporaries {0} − activations and logits freed by then {1}): {2}",
            "max(0, 优化器步临时张量 {0} − 届时已释放的激活与 logits {1}):{2}",
        ),
        StepAdamW => ("foreach AdamW: √v for all {0} trainable × {1} B", "foreach AdamW:为全部 {0} 个可训练参数计算 √v × {1} B"),
        StepAdafactor => (
            "Adafactor, per tensor: 2 fp32 buffers of the largest matrix {0}",
            "Adafactor 逐张量:最大矩阵的 2 个 fp32 缓冲,元素数 {0}",
        ),
        StepNone => ("no step temporaries", "无优化器步临时张量"),

        KvCache => (
            "2 × {0} layers × {1} KV heads{2} × {3} head_dim × ({4} prompt + {5} generated) tokens × {6} seq × {7} B ({8})",
            "2 × {0} 层 × {1} 个 KV 头{2} × {3} head_dim × ({4} 提示词 + {5} 生成) token × {6} 条序列 × {7} B({8})",
        ),
        Prefill => (
            "prefill, one layer at a time: {0} tokens × {1} seq through the larger of attention and MLP (ffn {2}){3}: {4}",
            "prefill,逐层:{0} token × {1} 条序列,取注意力与 MLP 中较大者(ffn {2}){3}:{4}",
        ),
        InferenceLogits => (
            "{0} seq × vocab {1} × {2} B (last position: LM head output {3} B + fp32 copy 4 B + fp32 probabilities 4 B)",
            "{0} 条序列 × 词表 {1} × {2} B(仅最后一个位置:LM head 输出 {3} B + fp32 副本 4 B + fp32 概率 4 B)",
        ),

        EvalGraph => (
            "evaluation without no_grad: {0} layers × {1} tokens × {2} seq × {3} B/token/layer (no checkpointing in eval mode) + logits {4}",
            "验证未包 no_grad:{0} 层 × {1} token × {2} 条序列 × {3} B/token/层(eval 模式下不做检查点)+ logits {4}",
        ),
        KeptTensors => (
            "logits appended to a list: {0} steps × {1} seq × {2} tokens × vocab {3} × {4} B (grows every step; log loss.item())",
            "logits 被追加进列表:{0} 步 × {1} 条序列 × {2} token × 词表 {3} × {4} B(每步增长;应记录 loss.item())",
        ),
        Fp32Module => (
            "embedding + LM head {0} params left in fp32: + {1} B each over bf16",
            "embedding + LM head 共 {0} 个参数留在 fp32:每个比 bf16 多 {1} B",
        ),
        ZombieProcess => (
            "a crashed earlier run still holds its weights {0} + its CUDA context {1} (nvidia-smi shows it; torch does not)",
            "上次崩掉的进程仍占着权重 {0} + 它的 CUDA 上下文 {1}(nvidia-smi 看得到,torch 看不到)",
        ),
        AllocatorSlack => (
            "{0} allocated × {1} % (caching allocator: rounding and fragmentation)",
            "已分配 {0} × {1} %(缓存分配器:取整与碎片)",
        ),
        CudaContext => (
            "{0} MiB per process and GPU (CUDA context, kernels, cuBLAS/NCCL workspaces; overhead_mib)",
            "{0} MiB/进程/卡(CUDA 上下文、kernel、cuBLAS/NCCL 工作区;overhead_mib)",
        ),

        NoteQuantIgnored => (
            "full fine-tuning trains the weights themselves in `{0}` precision; quant={1} is ignored",
            "全参微调直接训练权重本身,精度为 `{0}`;quant={1} 被忽略",
        ),
        NoteGgufTraining => (
            "{0} is a llama.cpp inference format and cannot be trained on; the base is counted in bf16",
            "{0} 是 llama.cpp 的推理格式,不能用于训练;底座按 bf16 计",
        ),
        NoteQloraBase => (
            "QLoRA trains adapters on a 4-bit base; quant={0} is replaced by nf4",
            "QLoRA 在 4 位底座上训练适配器;quant={0} 改为 nf4",
        ),
        NoteVisionTokens => (
            "{0} image(s) of {1} px → {2} × ({3}/28)² = {4} vision tokens per sequence (sequence {5} → {6} tokens)",
            "{0} 张图,每张 {1} px → {2} × ({3}/28)² = 每条序列 {4} 个视觉 token(序列 {5} → {6} token)",
        ),
        NoteBackwardOverlap => (
            "backward frees activations and logits while the gradients appear, so they never all coexist: the step's real peak can be {0} below this sum",
            "反向传播一边释放激活与 logits、一边产生梯度,三者不会同时全部存在:这一步的真实峰值可比此总和低 {0}",
        ),
        NoteEffectiveBatch => (
            "effective batch = micro-batch {0} × accumulation {1} × {2} GPU(s) = {3} sequences per optimizer step; accumulation adds no memory",
            "等效 batch = micro-batch {0} × 累积步数 {1} × {2} 张卡 = {3} 条序列/每次优化器更新;梯度累积不增加显存",
        ),

        BadUint => (
            "`{0}={1}` is not accepted: a whole number from {2} to {3}",
            "`{0}={1}` 无效:应为 {2} 至 {3} 的整数",
        ),
        BadFloat => ("`{0}={1}` is not accepted: a number from {2} to {3}", "`{0}={1}` 无效:应为 {2} 至 {3} 的数字"),
        BadFlag => ("`{0}={1}` is not accepted: use 0 or 1", "`{0}={1}` 无效:应为 0 或 1"),
        BadChoice => ("`{0}={1}` is not accepted; accepted values: {2}", "`{0}={1}` 无效;可选值:{2}"),
        BadList => (
            "`{0}={1}` is not accepted; a comma-separated list of: {2}",
            "`{0}={1}` 无效;应为以逗号分隔的列表,可选:{2}",
        ),
        NotPreset => (
            "`model={0}` is not a preset; accepted values: custom, {1}",
            "`model={0}` 不是内置模型;可选值:custom、{1}",
        ),
        UnknownKey => ("unknown key `{0}` ignored", "未知参数 `{0}`,已忽略"),
        KvHeadsOverHeads => (
            "`kv_heads={0}` cannot exceed heads ({1}); using {1}",
            "`kv_heads={0}` 不能超过 heads({1});改用 {1}",
        ),

        ConfigNotJson => ("config.json is not valid JSON: {0}", "config.json 不是合法的 JSON:{0}"),
        ConfigNotObject => ("config.json must be a JSON object ({ … })", "config.json 必须是一个 JSON 对象({ … })"),
        ConfigFieldZero => ("field `{0}` must be at least 1, got 0", "字段 `{0}` 至少为 1,实际为 0"),
        ConfigFieldTooLarge => (
            "field `{0}` is {1}, more than the largest supported value {2}",
            "字段 `{0}` 为 {1},超过支持的最大值 {2}",
        ),
        ConfigFieldNotUint => ("field `{0}` must be a positive whole number, got {1}", "字段 `{0}` 应为正整数,实际为 {1}"),
        ConfigFieldMissing => ("field `{0}` is missing", "缺少字段 `{0}`"),
        ConfigFieldNotBool => ("field `{0}` must be true or false, got {1}", "字段 `{0}` 应为 true 或 false,实际为 {1}"),
        ConfigFieldNotPositive => ("field `{0}` must be a positive number", "字段 `{0}` 应为正数"),
        ConfigFieldNotNumber => ("field `{0}` must be a number, got {1}", "字段 `{0}` 应为数字,实际为 {1}"),
        ConfigFieldNotString => ("field `{0}` must be a string, got {1}", "字段 `{0}` 应为字符串,实际为 {1}"),
        ConfigFieldNotObject => ("field `{0}` must be an object", "字段 `{0}` 应为对象"),
        ConfigModelTypeMissing => (
            "field `model_type` is missing (supported: {0})",
            "缺少字段 `model_type`(支持:{0})",
        ),
        ConfigUnsupported => (
            "model_type `{0}` is not supported (supported: {1}); enter its fields by hand instead",
            "不支持 model_type `{0}`(支持:{1});请改为手动填写各字段",
        ),
        ConfigHeadDim => (
            "field `head_dim` is missing and hidden_size {0} is not divisible by num_attention_heads {1}",
            "缺少字段 `head_dim`,且 hidden_size {0} 不能被 num_attention_heads {1} 整除",
        ),
        ConfigExpertsPerToken => (
            "field `num_experts_per_tok` ({0}) exceeds `num_local_experts` ({1})",
            "字段 `num_experts_per_tok`({0})超过了 `num_local_experts`({1})",
        ),
        ConfigNotDivisible => ("field `{0}` ({1}) must be divisible by `{2}` ({3})", "字段 `{0}`({1})必须能被 `{2}`({3})整除"),

        ScenarioInference => ("inference · {0} weights · {1} + {2} tokens × {3}", "推理 · {0} 权重 · {1} + {2} token × {3} 条"),
        ScenarioFull => ("full fine-tune ({0}) · {1} · seq {2} × batch {3}{4}", "全参微调({0})· {1} · 序列 {2} × batch {3}{4}"),
        ScenarioAdapters => (
            "{0} r={1} {2} · base {3} · {4} · seq {5} × batch {6}{7}",
            "{0} r={1} {2} · 底座 {3} · {4} · 序列 {5} × batch {6}{7}",
        ),
        ScenarioCheckpointing => (" · checkpointing", " · 梯度检查点"),
        ArchAtLeastOne => ("`{0}` must be at least 1", "`{0}` 至少为 1"),
        ArchKvHeads => ("`kv_heads` ({0}) cannot exceed `heads` ({1})", "`kv_heads`({0})不能超过 `heads`({1})"),
        ArchActiveExperts => (
            "`active_experts` ({0}) must be between 1 and `experts` ({1})",
            "`active_experts`({0})必须在 1 到 `experts`({1})之间",
        ),
    }
}

/// The template of `id` in `lang`.
pub fn template_in(id: MsgId, lang: Lang) -> &'static str {
    let (en, zh) = template(id);
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}
