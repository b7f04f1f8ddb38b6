//! The text of every template the ledger, the query parser, the config importer and the tree
//! write (`crate::ledger::msg::MsgId`), in English and Chinese. `{0}`, `{1}` … are the message's
//! arguments, rendered the same way in both languages. The match is exhaustive, so a new id does
//! not compile until it has both texts; a test checks that both use the same placeholders.
//!
//! Identifiers (q_proj, head_dim), dtypes (bf16, nf4), units and framework names stay as they are
//! in the Chinese texts, as in Chinese technical writing.

use super::Lang;
use crate::ledger::msg::MsgId;

/// (English, Chinese) of a template: a lookup in a table the compiler builds from `text_of` (the
/// wasm then carries the texts as packed data, not a 300-arm match as code: `super::packed`). The texts that load on
/// demand (the paste diagnosis's, a training grid's: `MsgId::loads_on_demand`) are in a table of
/// their own, which only the reader worker (after [`load_on_demand_texts`]), the CLI and native
/// tests reach: the page shows them as the worker rendered them, so they are not in the first
/// download (docs/size.md).
pub fn template(id: MsgId) -> (&'static str, &'static str) {
    if id.loads_on_demand() {
        return paste_diagnosis_text(id);
    }
    PAGE_TEXTS.pair(id as usize)
}

/// The text of id `i` in the page's table (empty for a text that loads on demand).
const fn page_text(i: usize) -> (&'static str, &'static str) {
    if MsgId::ALL[i].loads_on_demand() {
        ("", "")
    } else {
        text_of(MsgId::ALL[i])
    }
}

super::packed::packed!(PAGE_TEXTS, MsgId::ALL.len(), page_text);

const FIRST_DIAGNOSIS: usize = MsgId::WhyGrowth as usize;
const DIAGNOSIS_TEXTS: usize = MsgId::NoteGridOptimizer as usize + 1 - FIRST_DIAGNOSIS;

/// The text of the `i`-th template that loads on demand.
const fn diagnosis_text(i: usize) -> (&'static str, &'static str) {
    text_of(MsgId::ALL[FIRST_DIAGNOSIS + i])
}

super::packed::packed!(PASTE_DIAGNOSIS_TEXTS, DIAGNOSIS_TEXTS, diagnosis_text);

fn paste_diagnosis_table(id: MsgId) -> (&'static str, &'static str) {
    (id as usize).checked_sub(FIRST_DIAGNOSIS).map_or(("", ""), |i| PASTE_DIAGNOSIS_TEXTS.pair(i))
}

#[cfg(not(target_arch = "wasm32"))]
fn paste_diagnosis_text(id: MsgId) -> (&'static str, &'static str) {
    paste_diagnosis_table(id)
}

/// A lookup of (English, Chinese) texts by id.
#[cfg(target_arch = "wasm32")]
type Lookup = fn(MsgId) -> (&'static str, &'static str);

#[cfg(target_arch = "wasm32")]
thread_local! {
    static PASTE_DIAGNOSIS: std::cell::Cell<Option<Lookup>> = const { std::cell::Cell::new(None) };
}

/// In wasm the diagnosis's texts are empty until this is called: the reader worker calls it; the
/// page never does, so the linker leaves the table out of the page.
#[cfg(target_arch = "wasm32")]
fn paste_diagnosis_text(id: MsgId) -> (&'static str, &'static str) {
    PASTE_DIAGNOSIS.with(|t| t.get()).map_or(("", ""), |lookup| lookup(id))
}

/// Makes the texts that load on demand available in this wasm module (the reader worker's).
pub fn load_on_demand_texts() {
    #[cfg(target_arch = "wasm32")]
    PASTE_DIAGNOSIS.with(|t| t.set(Some(paste_diagnosis_table)));
}

/// (English, Chinese) of a template, evaluated at compile time.
const fn text_of(id: MsgId) -> (&'static str, &'static str) {
    use MsgId::*;
    match id {
        Empty => ("", ""),
        NotUsed => ("not used here", "此处不适用"),
        Bilingual => ("{0}", "{0}"),
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
        VisionTowerPlus => (" + vision tower{1} {0} params × 2 B", " + 视觉塔{1} {0} 个参数 × 2 B"),
        VisionTowerListed => (", vision tower{0}", "、视觉塔{0}"),
        AudioEncoderToo => (" and audio encoder", "和音频编码器"),
        KeptLinearsListed => ("{0}, {1} linear params kept 16-bit (`keep16`)", "{0}、{1} 个保持 16 位的线性层参数(`keep16`)"),
        FormatDense => ("{0} {1} B", "{0} {1} B"),
        FormatInt8 => ("LLM.int8: 1 B + fp32 row scale", "LLM.int8:1 B + 每行 fp32 缩放"),
        FormatNf4 => ("NF4: 4 + 32/64 bits", "NF4:4 + 32/64 bit"),
        FormatNf4Dq => ("NF4 + double quant: 4 + 8/64 + 32/16384 bits", "NF4 + 双重量化:4 + 8/64 + 32/16384 bit"),
        FormatGroup128 => ("{0} g128: 4 + 16/128 + 4/128 bits", "{0} g128:4 + 16/128 + 4/128 bit"),
        FormatGguf => ("GGUF {0}: {1} bits (file average)", "GGUF {0}:{1} bit(文件平均)"),
        FormatMxfp4 => ("MXFP4: 4 + 8/32 bits (E8M0 scale per 32)", "MXFP4:4 + 8/32 bit(每 32 个一个 E8M0 缩放)"),
        FormatNvfp4 => ("NVFP4: 4 + 8/16 bits (fp8 scale per 16)", "NVFP4:4 + 8/16 bit(每 16 个一个 fp8 缩放)"),
        FormatFp8Block => ("FP8 + fp32 scale per 128×128 block: 8 + 32/16384 bits", "FP8 + 每 128×128 块一个 fp32 缩放:8 + 32/16384 bit"),
        FormatFp8Channel => ("FP8 + fp32 scale per output channel", "FP8 + 每个输出通道一个 fp32 缩放"),
        FormatW4a16 => ("W4A16 g128: 4 + 16/128 bits", "W4A16 g128:4 + 16/128 bit"),
        FormatW8a8 => ("W8A8: 1 B + 16-bit channel scale", "W8A8:1 B + 每通道 16 位缩放"),
        WeightsPartial => (
            "{0} {1} params × {2} bits / 8 ({3}) + attention, embeddings, LM head, norms{4} {5} params × 2 B (16-bit)",
            "{0} {1} 个参数 × {2} bit / 8({3})+ 注意力、embedding、LM head、norm{4} {5} 个参数 × 2 B(16 位)",
        ),
        QuantMlp => ("MLP and expert linears", "MLP 与专家线性层"),
        QuantExperts => ("expert linears", "专家线性层"),

        TrainedWeights => ("{0} params × {1} B ({2}){3}", "{0} 个参数 × {1} B({2}){3}"),
        WorkingCopy => ("bf16 working copy", "bf16 工作副本"),
        FrozenBase => ("frozen base: {0}{1}{2}", "冻结底座:{0}{1}{2}"),
        QuantStateWhole => (" + quant state {0} unsharded", " + 未切分的量化状态 {0}"),
        RopeTables => (
            "{0} + RoPE cos/sin tables (`rope_cache`): {1} × 2 × {2} positions × {3} × {4} B = {5}",
            "{0} + `RoPE` 的 `cos`/`sin` 表(`rope_cache`):{1} × 2 × {2} 个位置 × {3} × {4} B = {5}",
        ),
        FrozenBaseTrl => (
            "frozen base: {0}; + {1} norm and bias params in fp32 (`recipe=trl`: TRL casts the embedding and LM head back to bf16) × 2 B{2}",
            "冻结底座:{0};+ {1} 个 norm 与偏置参数为 fp32(`recipe=trl`:`TRL` 把 embedding 与 LM head 转回 bf16)× 2 B{2}",
        ),
        FrozenBasePrepared => (
            "frozen base: {0}; + {1} unquantized params (embedding, LM head, norms) in fp32 (`recipe=peft`) × 2 B{2}",
            "冻结底座:{0};+ {1} 个未量化参数(embedding、LM head、norm)为 fp32(`recipe=peft`)× 2 B{2}",
        ),
        ServedWeights => ("{0}{1}", "{0}{1}"),
        AdapterWeights => (
            "{0} layers × Σ r·(d_in + d_out) over {1} with r = {2} = {3} params ({4} % of the model) × {5} B{6}",
            "{0} 层 × Σ r·(d_in + d_out) 作用于 {1},r = {2} = {3} 个参数(占模型 {4} %)× {5} B{6}",
        ),
        DequantGptq => (
            "largest weight matrix {0} × 5 B: GPTQ unpacked via int32 and int8",
            "最大权重矩阵 {0} × 5 B:GPTQ 经 int32 与 int8 解包",
        ),
        DequantTraining => (
            "largest weight matrix {0} × 2 B: dequantized to bf16 for each matmul",
            "最大权重矩阵 {0} × 2 B:每次矩阵乘前反量化为 bf16",
        ),
        DequantFusedExperts => (
            "{0} expert params × 2 B: {1} MoE layer(s) of fused experts dequantized whole, kept for backward (`fused_experts`)",
            "{0} 个专家参数 × 2 B:{1} 个 MoE 层的融合专家整体反量化并留到反向(`fused_experts`)",
        ),
        DequantHead => (
            "the quantized LM head {0} × (2 + 2) B: dequantized to fp16 (its quantization state), then cast to bf16",
            "量化的 LM head {0} × (2 + 2) B:先反量化为 fp16(其量化状态的类型),再转为 bf16",
        ),
        WeightsQuantizedHead => (
            "linear layers and the LM head {0} params × {1} bits / 8 ({2}) + embeddings, norms{3} {4} params × 2 B (16-bit)",
            "线性层与 LM head {0} 个参数 × {1} bit / 8({2})+ embedding、norm{3} {4} 个参数 × 2 B(16 位)",
        ),
        DequantPrefill => (
            "largest weight matrix {0} × 2 B: bitsandbytes dequantizes to bf16 for prefill",
            "最大权重矩阵 {0} × 2 B:bitsandbytes 在 prefill 时反量化为 bf16",
        ),
        ExllamaDequant => (
            "{0}: the exllama kernel's fp16 buffer for the largest layer's dequantized weight (in × out × 2 B), allocated on each GPU after loading",
            "{0}:`exllama` 内核为最大一层反量化权重准备的 `fp16` 缓冲(输入维 × 输出维 × 2 B),加载后在每张卡上分配",
        ),
        Exllamav2Scratch => (
            "{1}: the exllamav2 kernel's scratch, allocated on each GPU after loading for its largest layer: the dequantized weight (in × out × 2 B) and a forward buffer for 2,048 × 8 input rows (out {0} × 2,048 × 8 × 4 B), whatever the batch",
            "{1}:`exllamav2` 内核的暂存区,加载后按最大一层在每张卡上分配:反量化权重(输入维 × 输出维 × 2 B)与 2,048 × 8 行输入的前向缓冲(输出维 {0} × 2,048 × 8 × 4 B),与批大小无关",
        ),
        MasterWeights => ("{0} trainable × 4 B (fp32 master copy){1}", "{0} 个可训练参数 × 4 B(fp32 主权重副本){1}"),
        Gradients => ("{0} trainable ({1}) × {2} B{3}{4}{5}", "{0} 个可训练参数({1})× {2} B{3}{4}{5}"),
        GradientsAtStart => (
            "; at the peak, backward's start, {0} of the {1}: after `zero_grad()` only the LM head's gradient and DDP's buckets exist, the rest appear as activations are freed",
            ";峰值在反向传播开始时,{1} 中只有 {0}:`zero_grad()` 之后只有 LM head 的梯度与 DDP 的桶,其余随激活释放而产生",
        ),
        FsdpWorkingCopy => (
            "{0} params × {1} B only in the gathered layers: FSDP's mixed precision shards the fp32 parameters (master weights) and casts them in the all-gather",
            "{0} 个参数 × {1} B 只存在于聚合中的层:`FSDP` 的混合精度切分的是 fp32 参数(主权重),在 `all-gather` 时才转换",
        ),
        GradientsInFreedRoom => (
            "; {0} of the {1} on this line: at the peak, the optimizer step, the activations and logits above are freed and the other gradients sit in their room",
            ";本行计 {1} 中的 {0}:峰值在优化器步,上面的激活与 logits 已释放,其余梯度就占在它们腾出的空间里",
        ),
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
            "checkpointing: {0} layer inputs × {1} tokens × {2} seq × {3} × {4} B = {5} + final norm {6} + one layer recomputed ({7} B/token{8}{14}, with its backward's gradients {12}{13}: {9}){11} beyond the logits' peak, which is freed before it: {10}",
            "梯度检查点:{0} 个层输入 × {1} token × {2} 条序列 × {3} × {4} B = {5} + 最终 norm {6} + 重算一层({7} B/token{8}{14},连同其反向梯度 {12}{13}:{9}){11}中超出 logits 峰值的部分(logits 在重算之前已释放):{10}",
        ),
        KvOwnShape => (
            " × {0} (their own {1} KV heads × {2} head_dim)",
            " × {0}(这类层自己的 {1} 个 KV 头 × {2} head_dim)",
        ),
        TiledMlpPart => (
            "; its MLP keeps only its input and is recomputed in tiles of {0} tokens (`tiled_mlp`)",
            ";其 MLP 只保留输入,按每块 {0} 个 token 分块重算(`tiled_mlp`)",
        ),
        OffloadedCheckpoints => (
            "{0}; the other layers' inputs, {1}, wait in pinned host RAM (`gc=unsloth`: Unsloth's offloaded checkpoint keeps the last layer's input and one or two reload buffers on the GPU)",
            "{0};其余各层的输入共 {1} 放在锁页主机内存中(`gc=unsloth`:`Unsloth` 的卸载式检查点,GPU 上只留最后一层的输入和一到两个回载缓冲)",
        ),
        RetainedInputGrads => (
            " + {0} input gradients FSDP1 keeps (`gc=reentrant`) {1}",
            " + `FSDP1` 保留的 {0} 层输入梯度(`gc=reentrant`){1}",
        ),
        ActivationsStored => (
            "{0} layers × {1} tokens × {2} seq × {3} B/token/layer{4} = {5} + final norm {6}{7}",
            "{0} 层 × {1} token × {2} 条序列 × {3} B/token/层{4} = {5} + 最终 norm {6}{7}",
        ),
        ActivationsSelective => (
            "`gc=sac`: {0} layers × {1} tokens × {2} seq × {3} B/token (input, every other matmul, attention) = {4} + final norm {5} + recompute {6}",
            "`gc=sac`:{0} 层 × {1} token × {2} 条序列 × {3} B/token(输入、隔一个矩阵乘、注意力)= {4} + 最终 norm {5} + 重算 {6}",
        ),
        ActivationsByClass => (
            "({0}) × {1} tokens × {2} seq{3} = {4} + final norm {5}{6}",
            "({0})× {1} token × {2} 条序列{3} = {4} + 最终 norm {5}{6}",
        ),
        ClassPart => ("{0} {1} layers × {2} B/token", "{0} 个{1}层 × {2} B/token"),
        ClassName => ("{0}{1}", "{0}{1}"),
        ClassMoe => (" MoE", " MoE"),
        ClassNoMlp => (" (no MLP)", "(无 MLP)"),
        KindMlpOnly => ("MLP-only", "仅 MLP"),
        KindFull => ("full-attention", "全注意力"),
        KindSliding => ("sliding-window", "滑动窗口"),
        KindChunked => ("chunked-attention", "分块注意力"),
        KindLinear => ("linear-attention", "线性注意力"),
        Logits => (
            "{0} seq × {1} tokens × vocab {2} × {3} B (loss={4}: {5}{6}){7}{8}",
            "{0} 条序列 × {1} token × 词表 {2} × {3} B(loss={4}:{5}{6}){7}{8}",
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
        LossSelective => (
            "selective_log_softmax: the 16-bit logits + each sequence's 16-bit log-softmax, kept for backward; no fp32 upcast",
            "`selective_log_softmax`:16 位 logits + 逐条序列的 16 位 log-softmax(留给反向),不上转 fp32",
        ),
        LossSelectiveFp32 => (
            "selective_log_softmax on fp32 logits (Accelerate returns them in fp32 under mixed precision): the logits kept for backward + two fp32 gradients of them + their sum",
            "`selective_log_softmax` 处理 fp32 logits(混合精度下 `Accelerate` 把 logits 转成 fp32 返回)走 `logsumexp` 路径:logits 留给反向 + 两份 fp32 梯度 + 二者之和",
        ),
        LossHalf => ("loss=half: 16-bit logits, their shifted copy and 16-bit log-softmax, no upcast", "`loss=half`:16 位 logits、其移位副本与 16 位 log-softmax,无上转"),
        LossHalfConverted => (
            "loss=half under autocast: 16-bit logits + shifted copy, fp32 cast + log-softmax",
            "`autocast` 下 `loss=half`:16 位 logits + 移位副本,fp32 转换 + log-softmax",
        ),
        LossChunkedCompiled => (
            "compiled chunked loss: each chunk's fp32 upcast and log-softmax fused; the logits ({0} B) stay, with one chunk's gradient of eight",
            "已编译的分块损失:每块的 fp32 上转与 log-softmax 融合;保留 logits({0} B)和八块中一块的梯度",
        ),
        LossCompiled => (
            "compiled: the fp32 upcast and log-softmax fused, the backward keeps the logits ({0} B) and writes their gradient",
            "已编译:fp32 上转与 log-softmax 融合,反向保留 logits({0} B)并写出它的梯度",
        ),
        LossInplace => (
            "a cross-entropy kernel on the 16-bit logits that writes their gradient in place (Unsloth before 2024.11.7, and until 2025.10.4 on micro-batches of at most 1,024 tokens)",
            "在 16 位 logits 上计算、把梯度原地写回的交叉熵核(`Unsloth` 2024.11.7 之前;2025.10.4 之前不超过 1,024 个 `token` 的微批次也是)",
        ),
        LossInplaceCast => (
            "a cross-entropy kernel that writes the gradient into the 16-bit logits it keeps (Unsloth before 2024.11.7, and until 2025.10.4 on micro-batches of at most 1,024 tokens), and Accelerate's fp32 copy of the returned logits under the Trainer's mixed precision",
            "把梯度原地写回它保留的 16 位 logits 的交叉熵核(`Unsloth` 2024.11.7 之前;2025.10.4 之前不超过 1,024 个 `token` 的微批次也是),以及混合精度下 `Accelerate` 把返回的 logits 转成 `fp32` 的副本",
        ),
        LossFused => ("fused linear cross-entropy: logits never materialised", "线性层与交叉熵融合:logits 从不完整生成"),
        LogitsFused => (
            "loss=fused (fused linear cross-entropy: Liger, Cut Cross-Entropy, Unsloth, TRL's chunked_nll): a chunk of {0} tokens × vocab {1} × {2} B + the input gradient {3} tokens × {4} × {5} B + fp32 loss = {6}{7}{8}",
            "loss=fused(线性层与交叉熵融合:`Liger`、`Cut Cross-Entropy`、`Unsloth`、`TRL` 的 `chunked_nll`):一个分块 {0} token × 词表 {1} × {2} B + 输入梯度 {3} token × {4} × {5} B + fp32 损失 = {6}{7}{8}",
        ),
        LigerHeadGradient => (" + Liger's LM-head weight gradient, made in the forward: {0} params × {1} B", " + `Liger` 在前向中算出的 LM head 权重梯度:{0} 个参数 × {1} B"),
        Softcap => (" + soft-capping's tanh output {0} B", " + 软截断(tanh)的输出 {0} B"),
        LayerGradients => (
            " + the unsharded gradients ({1} B) and the reduce-scatter input ({2} B): {0} × ({1} + {2}) B",
            " + 未切分的梯度({1} B)与 `reduce-scatter` 输入({2} B):{0} × ({1} + {2}) B",
        ),
        HeldOutput => (" + the output the loop keeps through backward: {0}", " + 循环在反向时仍持有的输出:{0}"),
        SlackHeldFromBackward => (
            "; the step peaks at the optimizer step, but the caching allocator keeps the segments backward reserved: + {0} to reach backward's reserved memory",
            ";峰值在优化器步,但缓存分配器保留着反向传播时预留的段:+ {0},达到反向传播时的保留显存",
        ),
        WrapCache => (
            " + FSDP's wrap cache unfilled (rank 0, `sync_module_states`): {0}",
            " + `FSDP` 包装缓存未用满(0 号进程,`sync_module_states`):{0}",
        ),
        DequantKept => (
            " + dequantized GPTQ weights saved for backward: {0}",
            " + 为反向保存的反量化 GPTQ 权重:{0}",
        ),
        PreviousInputs => (
            " + the previous step's 4-bit layer inputs (`loop=script`, `bnb=legacy`): {0}",
            " + 上一步的 4 位量化层输入(`loop=script`、`bnb=legacy`):{0}",
        ),
        HeadCopy => (
            " + autocast's bf16 copy of the fp32 LM head: {0} × 2 B = {1}",
            " + 自动混合精度(`autocast`)的 fp32 LM head bf16 副本:{0} × 2 B = {1}",
        ),
        VisionActivations => (
            "frozen vision tower, one block at a time over {0} patches ({1} per image): {2}",
            "冻结的视觉塔,每次一个 block,处理 {0} 个 patch(每张图 {1} 个):{2}",
        ),
        ZeroBuckets => (
            "DeepSpeed ZeRO-1/2: {0} gradient bucket(s) × `reduce_bucket_size` {1} × 2 B, whatever trains (two with `overlap_comm`){2}",
            "`DeepSpeed` ZeRO-1/2:{0} 个梯度桶 × `reduce_bucket_size` {1} × 2 B,与可训练参数多少无关(`overlap_comm` 时为两个){2}",
        ),
        ZeroBucketCopy => (" + a bucket's reduction copy: {0} × 2 B", " + 归约时一个桶的拷贝:{0} × 2 B"),
        GatheredLayer => (
            "{2} layer(s) gathered × {0} params × {1} B + the root unit (embedding, LM head) {3} params × {4} B{5}",
            "聚合 {2} 层 × {0} 个参数 × {1} B + 根单元(embedding、LM head){3} 个参数 × {4} B{5}",
        ),
        GatheredDeepspeed => (
            "DeepSpeed ZeRO-3, reuse distance 1e9: max(LM head {0} params × {1} B + the last {2} layer(s), one layer) at {3} params × {4} B a layer + prefetch and IPG buckets 1.9 × {5}² × 2 B{6}",
            "`DeepSpeed ZeRO-3`,复用距离 `1e9`:max(LM head {0} 个参数 × {1} B + 最后 {2} 层, 一层),每层 {3} 个参数 × {4} B + 预取桶与梯度桶 1.9 × {5}² × 2 B{6}",
        ),
        OptimizerStep => (
            "max(0, step temporaries {0} − the room backward leaves {1}, the activations, logits and gathered layers it freed less the gradients not billed above): {2}",
            "max(0, 优化器步临时张量 {0} − 反向传播留出的空间 {1},即其释放的激活、logits 与聚合层减去上面未计入的梯度):{2}",
        ),
        StepAdamW => ("foreach AdamW: √v for all {0} trainable × {1} B{2}", "foreach AdamW:为全部 {0} 个可训练参数计算 √v × {1} B{2}"),
        StepAdafactor => (
            "Adafactor, per tensor: 2 fp32 buffers of the largest matrix {0}",
            "Adafactor 逐张量:最大矩阵的 2 个 fp32 缓冲,元素数 {0}",
        ),
        StepNone => ("no step temporaries", "无优化器步临时张量"),

        KvCache => (
            "2 × {0} layers × {1} KV heads{2} × {3} head_dim × ({4} prompt + {5} generated) tokens × {6} seq × {7} B ({8})",
            "2 × {0} 层 × {1} 个 KV 头{2} × {3} head_dim × ({4} 提示词 + {5} 生成) token × {6} 条序列 × {7} B({8})",
        ),
        KvCacheByKind => (
            "({0}) × {1} B per token and layer ({2}) × {3} seq{4}",
            "({0})× 每 token 每层 {1} B({2})× {3} 条序列{4}",
        ),
        KvPart => ("{0} {1} layers × {2} tokens{3}", "{0} 个{1}层 × {2} token{3}"),
        KvWindow => (" (the window)", "(窗口)"),
        KvPerToken => ("2 × {0} KV heads{1} × {2} head_dim × {3} B, {4}", "2 × {0} 个 KV 头{1} × {2} head_dim × {3} B,{4}"),
        KvPerTokenMla => (
            "{0} heads × (K {1} + rotary {2} + V {3}) × {4} B, {5}: transformers caches latent attention decompressed, every head's K and V, not the latent",
            "{0} 个头 × (K {1} + 旋转位置 {2} + V {3}) × {4} B,{5}:`transformers` 缓存的是解压后的潜在注意力,即每个头的 K 和 V,而不是潜向量",
        ),
        KvLinearState => (
            " + {0} linear-attention layers × a fixed state per sequence ({1} × {2} × {3} × 4 B + convolution {4} × {5} × {6} B) = {7}",
            " + {0} 个线性注意力层 × 每条序列固定的状态({1} × {2} × {3} × 4 B + 卷积 {4} × {5} × {6} B)= {7}",
        ),
        Prefill => ("prefill, {0}: {1}", "prefill,{0}:{1}"),
        InferenceLogitsAll => (
            "{0} seq × {1} prompt positions × vocab {2} × {3} B (transformers before 4.45 projects every position in the prefill: LM head output {4} B + its fp32 upcast 4 B)",
            "{0} 条序列 × {1} 个提示位置 × 词表 {2} × {3} B(4.45 之前的 `transformers` 在 prefill 时投影每个位置:LM head 输出 {4} B + 其 fp32 上转 4 B)",
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
        AllocatorSlackTraining => (
            "{0} a step allocates and frees × {1} % + {2} kept through the run × {3} % (caching allocator: holes in segments in use, 2 MiB rounding){4}",
            "每步分配又释放的 {0} × {1} % + 全程保留的 {2} × {3} %(缓存分配器:在用段里的空洞、2 MiB 取整){4}",
        ),
        AllocatorSlack => (
            "{0} allocated × {1} % (caching allocator: rounding and fragmentation)",
            "已分配 {0} × {1} %(缓存分配器:取整与碎片)",
        ),
        VllmEncoderProfile => (
            "; before it, the vision encoder's profile over {0} × the largest {1} ({2} tokens, {3} patches): {4} at its largest block (fp32 pixels {5}{6}), then its outputs ({7} rows, {8}) and pixels held through the language model's run ({9})",
            ";在此之前,视觉编码器剖析 {0} 个最大{1}({2} 个 token,{3} 个 patch):最大的块时 {4}(fp32 像素 {5}{6}),之后其输出({7} 行,{8})与像素在语言模型运行期间保留({9})",
        ),
        VllmEncoderMask => (
            ", Pixtral's dense attention mask over every patch {0}",
            ",`Pixtral` 覆盖全部 patch 的稠密注意力掩码 {0}",
        ),
        ModalityImage => ("image", "图片"),
        ModalityVideo => ("video", "视频"),
        VllmNoTower => (
            " − the vision tower {0} (every multimodal limit 0: vLLM builds no tower)",
            " − 视觉塔 {0}(多模态上限全为 0:vLLM 不构建视觉塔)",
        ),
        SglangVlmFraction => (
            " × {0} for the vision encoder (a multimodal model's default share is lowered: `adjust_mem_fraction_for_vlm`)",
            " × {0} 留给视觉编码器(多模态模型的默认比例会降低:`adjust_mem_fraction_for_vlm`)",
        ),
        SglangVlmCache => (
            " − the multimodal embedding cache {0} (`SGLANG_VLM_CACHE_SIZE_MB`)",
            " − 多模态嵌入缓存 {0}(`SGLANG_VLM_CACHE_SIZE_MB`)",
        ),
        AllocatorSlackReplayed => (
            "more than {0} allocated × {1} %: what the prefill left reserved beyond its live tensors, replayed through PyTorch's caching allocator (ChatGLM's remote code grows the prompt's cache by `torch.cat` layer after layer; each larger block leaves the last one to be cut up by the next layer's temporaries)",
            "多于已分配 {0} × {1} %:prefill 在活跃张量之外留下的预留显存,按 PyTorch 缓存分配器逐步重放得出(`ChatGLM` 的远程代码逐层用 `torch.cat` 拼接提示的缓存;每个更大的块都让上一块被下一层的临时张量切碎)",
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
        EngineWeights => (
            "as loaded: {0}{1}{2}{3}{4}{5}",
            "加载后:{0}{1}{2}{3}{4}{5}",
        ),
        EngineRopeTables => (
            " + the RoPE cos/sin tables {0} on every GPU ({1} positions × {2} × {3} B, built over the model's whole context whatever the request length)",
            " + 每张卡上的 `RoPE` `cos/sin` 表 {0}({1} 个位置 × {2} × {3} B,按模型的完整上下文构建,与请求长度无关)",
        ),
        VllmMxfp4Triton => (
            " + {0} (vLLM's Triton MXFP4 kernels on Hopper keep a swizzled copy of the experts' scales, rows padded to 256, and their biases in fp32)",
            " + {0}(vLLM 在 Hopper 上的 `Triton` MXFP4 kernel 另存一份重排的专家缩放因子,行数补齐到 256,偏置转为 fp32)",
        ),
        VllmMxfp4Padding => (
            " + {2} (vLLM pads the MXFP4 experts to {0} × {1} for its kernels)",
            " + {2}(vLLM 为其 kernel 把 MXFP4 专家补齐到 {0} × {1})",
        ),
        VllmProfile => (
            "profiling run, the larger of: {0} dummy tokens through one layer without attention ({1}), and the sampler's warm-up over {2} dummy requests × vocab {3} × {4} B ({5}){6}{7}",
            "性能剖析运行,取两者较大者:{0} 个虚拟 token 过一层(跳过注意力,{1}),以及采样器预热 {2} 个虚拟请求 × 词表 {3} × {4} B({5}){6}{7}",
        ),
        VllmMoeWorkspace => (
            " + the fused-MoE kernel's workspace that vLLM keeps between calls, still held then ({0}: block-FP8 experts, 0.14 on)",
            " + vLLM 在两次调用之间保留的融合 MoE 内核工作区,此时仍在({0}:块 FP8 专家,0.14 起)",
        ),
        EngineNonTorch => (
            "outside PyTorch's allocator: cuBLAS and attention workspaces {0}{1}{2}",
            "PyTorch 分配器之外:cuBLAS 与注意力工作区 {0}{1}{2}",
        ),
        NcclBuffers => (
            " + NCCL and all-reduce buffers {0} (tensor parallel over {1} GPUs)",
            " + NCCL 与 all-reduce 缓冲 {0}(张量并行 {1} 卡)",
        ),
        NcclPerGpu => (
            "{0}: NCCL's buffers on each of {1} GPU(s), outside PyTorch's allocator (1.9 GiB with NVLS on NVSwitch Hopper and later, else 0.25 GiB)", "{0}:{1} 卡时每卡 NCCL 缓冲,在 PyTorch 分配器之外(Hopper 及之后的 NVSwitch 机器上有 NVLS:1.9 GiB,否则 0.25 GiB)"),
        NoteOffloadNeedsZero => (
            "`offload={0}` ignored: offload needs `zero` 1–3",
            "已忽略 `offload={0}`:卸载需要 `zero` 为 1–3",
        ),
        NoteOffloadParamsZero3 => (
            "ZeRO-{0} offloads only the optimizer (parameters need ZeRO-3)",
            "ZeRO-{0} 只卸载优化器(卸载参数需要 ZeRO-3)",
        ),
        NoteOffloadedCheckpoints => (
            "offloaded checkpoint (`gc=unsloth`): {0} of layer inputs per process in pinned host RAM, copied back one layer at a time in backward",
            "卸载式检查点(`gc=unsloth`):每个进程有 {0} 的层输入放在锁页主机内存中,反向时逐层拷回",
        ),
        NoteFullMask => (
            "ChatGLM's remote code (`mask=full`): its prefill replayed tensor by tensor through PyTorch's caching allocator peaks at {0} live beyond the weights and reserves {1}: the prompt's cache is concatenated layer after layer (`presents`), and only the last position's logits are made; a (batch, 1, s, s) mask is built only by eager attention or a padded batch",
            "`ChatGLM` 的远程代码(`mask=full`):按 PyTorch 缓存分配器逐个张量重放其 prefill,权重之外活跃峰值 {0},预留 {1}:提示的缓存逐层拼接(`presents`),只算最后一个位置的 logits;只有 eager 注意力或带填充的批次才构造 (batch, 1, s, s) 掩码",
        ),
        NoteFramework => (
            "{0} sets {1} (its defaults for the keys this link leaves out; a key the link sets wins)",
            "{0} 设定了 {1}(链接没有给出的键取它的默认值;链接给出的键优先)",
        ),
        NoteFrameworkNothing => (
            "{0}: none of its defaults changes this configuration (the link sets them, or they do not apply)",
            "{0}:它的默认值都没有改变这个配置(链接已给出,或不适用)",
        ),
        NoteOffloadHost => (
            "CPU offload: {0} per process in host RAM (pinned); the optimizer step runs on the CPU", "CPU 卸载:每个进程占主机内存 {0}(锁页);优化器更新在 CPU 上进行"),
        NoteDeepspeedOffloadCopy => (
            "DeepSpeed 0.14.1–0.16.x copy the fp32 partition to the GPU at each offloaded step: +{0}, in the range's high end (0.17 fixed it)",
            "`DeepSpeed` 0.14.1–0.16.x 每次卸载的优化器更新都把 fp32 分区拷回 GPU:+{0},计入区间上限(0.17 已修复)",
        ),
        StepDeepspeedZero3 => (
            "`DeepSpeed` ZeRO-3 steps a sub-group at a time from an fp32 copy of its 16-bit gradients ({0} × 4 B = {1}) + {2}",
            "`DeepSpeed` ZeRO-3 逐个子组更新,用其 16 位梯度的 fp32 副本({0} × 4 B = {1})+ {2}",
        ),
        OnHost => ("{0} — in host RAM; on the GPU {1}", "{0}——在主机内存;GPU 上 {1}"),
        GradientsOffloaded => (
            "to host RAM once reduced; on the GPU {0} × the largest trainable tensor's ({1} × {2} B)", "归约后移到主机内存;GPU 上只有 {0} × 最大可训练张量的梯度({1} × {2} B)"),
        VllmContextInBudget => (
            " + the CUDA context {0} (vLLM 0.8–0.9 count it in the budget)",
            " + CUDA 上下文 {0}(vLLM 0.8–0.9 把它算进预算)",
        ),
        GraphsOff => (
            "none: CUDA graphs off (`cuda_graphs=0`, `--enforce-eager`)",
            "无:CUDA graphs 已关闭(`cuda_graphs=0`,`--enforce-eager`)",
        ),
        VllmGraphsInBudget => (
            "{0} batch sizes × {1} layers × {2} MiB = {3}, estimated before the KV cache is sized and taken out of the budget (vLLM 0.20 on; MiB per size and layer fitted to published logs)",
            "{0} 个批大小 × {1} 层 × {2} MiB = {3},在确定 KV cache 之前估算并从预算中扣除(vLLM 0.20 起;每个批大小每层的 MiB 按公开日志拟合)",
        ),
        VllmGraphsOutside => (
            "{0} batch sizes × {1} layers × {2} MiB = {3}, captured after the KV cache is sized: outside the budget, on top of it (before vLLM 0.20; MiB per size and layer fitted to published logs)",
            "{0} 个批大小 × {1} 层 × {2} MiB = {3},在 KV cache 分配之后捕获:不在预算内,叠加在预算之上(vLLM 0.20 之前;每个批大小每层的 MiB 按公开日志拟合)",
        ),
        VllmMlaReplicated => (
            "; the latent attention's down-projections ({0}) are whole on every GPU",
            ";潜向量注意力的下投影({0})在每张卡上都是完整一份",
        ),
        VllmUniformBlock => (
            "{0} layers × {1} tokens × {2} B per token and layer",
            "{0} 层 × {1} token × 每 token 每层 {2} B",
        ),
        VllmGroupPart => (
            "{0} × {1}{2}",
            "{0} × {1}{2}",
        ),
        VllmGroupBlock => (" of {0} tokens per block", "(每块 {0} token)"),
        VllmHybridBlock => (
            "block tables for {0} groups, each of {1} layers × {2} tokens ({3} per page)",
            "块表:{0} 组,每组 {1} 层 × {2} token(每页 {3})",
        ),
        VllmKvPool => (
            "the rest of {0} × {1} = {2}: {3} blocks of {4}; {5} tokens",
            "{0} × {1} = {2} 的剩余部分:{3} 个块,每块 {4};共 {5} token",
        ),
        EngineContext => (
            "{0} MiB CUDA context, created before the engine measures its budget (`overhead_mib`)",
            "{0} MiB CUDA 上下文,在引擎测量预算之前就已创建(`overhead_mib`)",
        ),
        VllmSummary => (
            "vLLM {0} (`max_num_batched_tokens` {1}, `max_num_seqs` {2}): GPU KV cache size {3} tokens; maximum concurrency for {4} tokens per request: {5}x; the longest context {6} requests can each have: {7} tokens",
            "vLLM {0}(`max_num_batched_tokens` {1},`max_num_seqs` {2}):KV cache 容量 {3} token;每请求 {4} token 时最大并发 {5}x;{6} 个请求各自最长上下文:{7} token",
        ),
        SglangPool => (
            "{0} × {1} free before loading − the weights {2}: {3} tokens × {4} B ({5} full-attention layers + {7} × {6} sliding-window layers){8}{9}{10}{11}",
            "加载前空闲 {1} × {0} − 权重 {2}:{3} token × {4} B({5} 个全注意力层 + {7} × {6} 个滑窗层){8}{9}{10}{11}",
        ),
        SglangReserve => (
            "left outside `mem_fraction_static` for activations and CUDA graphs: (1 − {0}) × {1} (chunked prefill {2} tokens, graphs up to batch {3})",
            "`mem_fraction_static` 之外留给激活与 CUDA graphs:(1 − {0}) × {1}(分块预填充 {2} token,graphs 最大批 {3})",
        ),
        SpecDrafter => (
            "{0}, {1} tokens per step: {2} params × {3} B ÷ {4} GPUs = {5}, loaded with the model; its {6} attention layer(s) join the KV cache's blocks",
            "{0},每步 {1} 个 `token`:{2} 参数 × {3} `B` ÷ {4} 卡 = {5},随模型一起加载;它的 {6} 个注意力层加入 `KV cache` 的块",
        ),
        SpecNgram => ("n-gram prompt lookup (on the CPU: no weights, no KV)", "`n-gram` 提示查找(在 CPU 上:无权重、无 KV)"),
        SpecEagle => (
            "an EAGLE head (one decoder layer and `fc` 2h → h; the model's embedding and LM head shared)",
            "`EAGLE` 头(一个解码层和 `fc 2h → h`;与模型共用 `embedding` 和 `LM head`)",
        ),
        SpecEagle3 => (
            "an EAGLE-3 head (one decoder layer reading 2h, `fc` 3h → h, its own LM head over {0} draft tokens)",
            "`EAGLE-3` 头(一个输入 `2h` 的解码层,`fc 3h → h`,自带 {0} 个草稿词的 `LM head`)",
        ),
        SpecMtp => (
            "the checkpoint's MTP layer (a layer like the model's largest, `eh_proj` 2h → h, in the served format; embedding and head shared)",
            "检查点自带的 `MTP` 层(与模型最大的层相同的一层加 `eh_proj 2h → h`,按服务格式存储;共用 `embedding` 和 `head`)",
        ),
        SpecDraftModel => ("the draft model {0} ({1} layers, 16-bit)", "草稿模型 {0}({1} 层,16 位)"),
        SpecDraftMissing => (
            "`spec=draft` without `spec_model`: no draft model is billed",
            "`spec=draft` 但未给 `spec_model`:未计入草稿模型",
        ),
        SpecSglangPool => (
            "; the draft worker's own KV pool of the same tokens: {0} ({1} layers × {2} B per token)",
            ";草稿 `worker` 自己的 `KV` 池,`token` 数相同:{0}({1} 层 × 每 `token` {2} `B`)",
        ),
        LoraSlotsFormula => (
            "{0} LoRA slots of rank {1} in every LoRA-capable linear layer (16-bit A and B, split like their layers): {2} each, {3} on this GPU, allocated with the weights; {4} adapters cached in host RAM: {5}",
            "每个支持 `LoRA` 的线性层 {0} 个秩 {1} 的 `LoRA` 槽位(16 位 `A`、`B`,按所在层切分):每个 {2},本卡共 {3},随权重分配;主机内存缓存 {4} 个适配器:{5}",
        ),
        NotePrefixShare => (
            "prefix caching: {0} % of each request's context ({1} tokens) is one shared prefix held once, so {2} requests of {3} tokens fit at once (the engine's start-up figure, {4}x, counts every request whole); the longest context {5} requests can each have: {6} tokens",
            "前缀缓存:每个请求上下文的 {0} %({1} `token`)是同一个共享前缀,只存一份,所以 {3} `token` 的请求可同时容纳 {2} 个(引擎启动时打印的 {4}`x` 按每个请求完整计算);{5} 个请求各自最长上下文:{6} `token`",
        ),
        NoteKvCacheMemory => (
            "`--kv-cache-memory` {0}: the KV pool as given; the budget ({1} of {2}) is not used to size it",
            "`--kv-cache-memory` {0}:`KV` 池按给定大小分配,不再用预算({2} 的 {1})确定",
        ),
        NoteAutoFit => (
            "`max_model_len=auto`: vLLM serves {0} tokens per request — the model's own {1} when one request of it fits the KV pool, else the longest that does (`--max-model-len auto`, 0.14 on)",
            "`max_model_len=auto`:vLLM 每个请求 {0} 个 token——一个请求能放进 KV 池时就用模型自己的 {1},否则取放得下的最长值(`--max-model-len auto`,0.14 起)",
        ),
        NoteAutoFitRelease => (
            "`max_model_len=auto`: vLLM {0} has no auto-fit (it came in 0.14): billed at the model's own context, {1} tokens, which vLLM takes when `--max-model-len` is not given",
            "`max_model_len=auto`:vLLM {0} 还没有自动适配(0.14 才有):按模型自己的上下文 {1} 个 token 计算,即不给 `--max-model-len` 时 vLLM 所取的值",
        ),
        NoteAutoNoContext => (
            "`max_model_len=auto`: the model's own context is not known (set `model_context`, config.json's `max_position_embeddings`): the fit starts from `seq` + `gen`, {0} tokens",
            "`max_model_len=auto`:模型自己的上下文未知(请设 `model_context`,即 `config.json` 的 `max_position_embeddings`):从 `seq` + `gen` 即 {0} 个 token 开始适配",
        ),
        NoteAddonsUnsupported => (
            "{0}: speculative decoding, served LoRA and a shared prefix (`spec`, `max_loras`, `prefix_share`) are not billed for this engine yet",
            "{0}:投机解码、服务 LoRA 与共享前缀(`spec`、`max_loras`、`prefix_share`)暂未计入此引擎",
        ),
        SglangMambaPool => (
            "; the Mamba state pool: {0} request states × {1} ({2} linear-attention layers: conv state 16-bit, SSM state fp32) = {3}",
            ";`Mamba` 状态池:{0} 个请求状态 × {1}({2} 个线性注意力层:`conv` 状态 16 位,`SSM` 状态 `fp32`)= {3}",
        ),
        SglangSummary => (
            "SGLang {0} (`mem_fraction_static` {1}): `max_total_num_tokens` {2}; {4} requests of {3} tokens fit at once; the longest context {5} requests can each have: {6} tokens",
            "SGLang {0}(`mem_fraction_static` {1}):`max_total_num_tokens` {2};{3} token 的请求可同时容纳 {4} 个;{5} 个请求各自最长上下文:{6} token",
        ),
        LlamacppWeights => (
            "{0} of {1} layers on the GPU (`gpu_layers`; the output layer counts as one): {2}; the token embedding and the rest in host RAM: {3}",
            "{1} 层中 {0} 层在 GPU 上(`gpu_layers`;输出层算一层):{2};token embedding 与其余部分在主机内存:{3}",
        ),
        LlamacppKv => (
            "{0} slot(s) × {1} cells × {2} full-attention layers, K and V in {3}{4}{5}{6}",
            "{0} 个槽位 × {1} 单元 × {2} 个全注意力层,K 与 V 为 {3}{4}{5}{6}",
        ),
        LlamacppSwa => (
            " + {0} sliding-window layers × {1} cells per slot (window + micro-batch)",
            " + {0} 个滑窗层 × 每槽 {1} 单元(窗口 + 微批)",
        ),
        LlamacppStates => (
            " + {0} recurrent layers' states for {1} slot(s): {2} (the RS buffer: convolution taps and state in f32)",
            " + {0} 个循环层为 {1} 个槽保存的状态:{2}(`RS` 缓冲区:卷积窗口与状态,`f32`)",
        ),
        LlamacppHostKv => (
            "; {0} of it in host RAM (layers not on the GPU)",
            ";其中 {0} 在主机内存(不在 GPU 上的层)",
        ),
        LlamacppCompute => (
            "compute buffer for {0}-token micro-batches: fp32 logits of vocab {1} and the MLP's intermediates{2}",
            "计算缓冲({0} token 微批):词表 {1} 的 fp32 logits 与 MLP 中间结果{2}",
        ),
        LlamacppNoFlash => (
            ", and fp32 attention scores (flash attention off: `attn=eager`)",
            ",以及 fp32 注意力分数(未开 `flash_attn`:`attn=eager`)",
        ),
        LlamacppSummary => (
            "llama.cpp: {0} slot(s) of {1} tokens ({2} cells); host RAM {3}; on this card at most {4} slots of this length, or {5} tokens per slot for {0} slot(s)",
            "llama.cpp:{0} 个槽位,每个 {1} token(共 {2} 单元);主机内存 {3};这张卡上此长度最多 {4} 个槽位,或 {0} 个槽位时每槽最多 {5} token",
        ),
        LlamacppUnified => (
            "unified memory: the GPU and host parts together need {0} of the Mac's {1} GB",
            "统一内存:GPU 与主机部分合计需要 {0},这台 Mac 共 {1} GB",
        ),
        StatusNotEnoughFree => (
            "vLLM refuses to start: free memory on the device ({0}) is less than the desired GPU memory utilization ({2}, {1}). Lower `gpu_util`, or free the card",
            "vLLM 拒绝启动:设备空闲显存({0})小于期望的 GPU 显存占用({2},{1})。调低 `gpu_util`,或清空这张卡",
        ),
        StatusNoKvVllm => (
            "vLLM stops at start-up: `No available memory for the cache blocks` ({0} left for the KV cache). Raise `gpu_util`, use fewer `max_batched_tokens`, a quantized checkpoint or more GPUs",
            "vLLM 启动失败:`No available memory for the cache blocks`(留给 KV cache 的只有 {0})。调高 `gpu_util`、减少 `max_batched_tokens`、换量化权重或加卡",
        ),
        StatusNoKvSglang => (
            "SGLang stops at start-up: `Not enough memory` ({0} left for the KV pool). Raise `mem_fraction`, use a quantized checkpoint or more GPUs",
            "SGLang 启动失败:`Not enough memory`(留给 KV 池的只有 {0})。调高 `mem_fraction`、换量化权重或加卡",
        ),
        StatusContextTooLongVllm => (
            "vLLM stops at start-up: to serve at least one request with the model's max seq len ({0}), {1} KV cache is needed, which is larger than the available KV cache memory ({2}); the estimated maximum model length is {3}. Lower the context (`max_model_len`) or raise `gpu_util`",
            "vLLM 启动失败:要以 `max seq len`({0})服务哪怕一个请求,也需要 {1} 的 KV cache,超过可用的 {2};估计最大模型长度为 {3}。调低上下文(`max_model_len`)或调高 `gpu_util`",
        ),
        StatusContextTooLongSglang => (
            "a {0}-token request is longer than the pool's {1} tokens; lower the context or raise `mem_fraction`",
            "{0} token 的请求超过 KV 池的 {1} token;调低上下文或调高 `mem_fraction`",
        ),
        StatusQueues => (
            "{0} of {1} requests of {2} tokens run at once; the rest wait in the queue",
            "{2} token 的请求中同时只能跑 {0} 个(共 {1} 个),其余排队等待",
        ),
        StatusGpuTooSmall => (
            "llama.cpp fails to allocate (`cudaMalloc failed: out of memory`): it needs {0} on a card of {1}. Lower `gpu_layers`, the context or the slots, or quantize the KV cache (`kv=int8`)",
            "llama.cpp 分配失败(`cudaMalloc failed: out of memory`):需要 {0},这张卡只有 {1}。减少 `gpu_layers`、上下文或槽位,或量化 KV cache(`kv=int8`)",
        ),
        NoteEngineIgnored => (
            "`engine={0}` is for inference; training ignores it",
            "`engine={0}` 只用于推理;训练时忽略",
        ),
        PrefillBeforeDecode => (
            "prefill, {0}: {1}, before the generated tokens' KV ({2}) and the last logits ({3}) exist; beyond them it needs {5} (at least {4})",
            "prefill,{0}:{1},此时生成 token 的 KV({2})与最后的 logits({3})尚未出现;在它们之外还需 {5}(至少为{4})",
        ),
        DecodeStepCopy => ("a decoding step's copy of one layer's grown cache, {0}", "解码一步时复制一层增长后缓存的 {0}"),
        DecodeStepRepeatKv => (
            "a decoding step's K and V of one layer repeated to its {0} query heads, {1}: `repeat_kv` in SDPA before transformers 4.54 and in eager attention",
            "解码一步时一层的 K 与 V 复制到全部 {0} 个查询头的 {1}:`transformers` 4.54 之前的 `SDPA` 与 `eager` 注意力中的 `repeat_kv`",
        ),
        AdapterUnmerged => (
            "PEFT's LoRA adapter over the base, unmerged: {0} parameters × 4 B (fp32, as PEFT makes and loads them){1}",
            "`PEFT` 的 `LoRA` 适配器挂在底座上、未合并:{0} 个参数 × 4 B(fp32,`PEFT` 创建并加载时的精度){1}",
        ),
        LoadInt8Quantize => (
            "the larger of `generate()`'s moments and loading, where bitsandbytes' LLM.int8 quantizes each linear as it reaches the GPU: {0}'s fp16 copy and `double_quant`'s column-major int8 beside the int8 weights, {1} × 3 B = {2}; beyond the cache and the logits the peak needs {3}",
            "取 `generate()` 各时刻与加载时中的较大者:bitsandbytes 的 `LLM.int8` 在每个线性层放上显卡时量化它:{0}的 fp16 副本与 `double_quant` 的列主序 int8 与已有的 int8 权重同在,{1} × 3 B = {2};在缓存与 logits 之外峰值还需 {3}",
        ),
        Int8LmHead => ("the quantized LM head", "量化的 LM head"),
        Int8LargestLinear => ("the largest quantized matrix", "最大的量化矩阵"),
        PrefillOneLayer => (
            "one layer at a time: {0} tokens × {1} seq through the larger of attention and MLP (ffn {2}){3}{4}",
            "逐层:{0} token × {1} 条序列,取注意力与 MLP 中较大者(ffn {2}){3}{4}",
        ),
        AwqSplitK => (
            ", with the split-k partial sums of AutoAWQ's GEMM kernel, {0} (8 × rows × out in fp16, below 1,024 rows)",
            ",另加 `AutoAWQ` `GEMM` kernel 的 `split-k` 部分和 {0}(不足 1,024 行时为 8 × 行数 × 输出维度,fp16)",
        ),
        AwqGemv => (
            ", with the split-k partial sums of AutoAWQ's GEMV kernel, {0} (8 × rows × out in fp16, above 8 rows)",
            ",另加 `AutoAWQ` `GEMV` kernel 的 `split-k` 部分和 {0}(超过 8 行时为 8 × 行数 × 输出维度,fp16)",
        ),
        GptqCudaOld => (
            ", with AutoGPTQ's cuda-old buffers, {0} (from 128 rows the largest layer unpacked to fp16; below, fp32 copies of its input and output)",
            ",另加 `AutoGPTQ` `cuda-old` 的缓冲 {0}(128 行及以上时把最大一层解包为 fp16;不足时为其输入与输出的 fp32 副本)",
        ),
        Int8Matmul => (
            ", with LLM.int8's buffers at its largest layer, {0} (bitsandbytes quantizes the input to int8 and returns an int32 product it dequantizes)",
            ",另加 `LLM.int8` 在最大一层的缓冲 {0}(`bitsandbytes` 先把输入量化为 int8,再把 int32 乘积反量化)",
        ),
        AwqDequantized => (
            ", with AutoAWQ's fp16 copy of the largest layer, {0} (its GEMM kernel dequantizes for 1,024 rows or more)",
            ",另加 `AutoAWQ` 最大一层的 fp16 副本 {0}(其 `GEMM` kernel 在 1,024 行及以上时先反量化)",
        ),
        PrefillReplayed => (
            "ChatGLM's remote code replayed tensor by tensor: {0} tokens × {1} seq, beyond the prompt's cache, the concatenation that grows it (`presents`) included",
            "`ChatGLM` 远程代码逐个张量重放:{0} token × {1} 条序列,提示缓存之外,含逐层拼接缓存(`presents`)的那一步",
        ),
        LoadHeadCopy => (
            "the larger of `generate()`'s moments and loading, whose checkpoint stores the tied LM head apart (`head_copy=1`): the loader puts it on the GPU as a second matrix until `from_pretrained` ties it to the embedding, {0} × {1} × 2 B = {2}; beyond the cache and the logits the peak needs {3}",
            "取 `generate()` 各时刻与加载时中的较大者:这份权重文件把共享的 LM head 单独存了一份(`head_copy=1`),加载时它作为第二个矩阵放上显卡,直到 `from_pretrained` 把它与 embedding 重新绑定,{0} × {1} × 2 B = {2};在缓存与 logits 之外峰值还需 {3}",
        ),
        WhyGrowth => ("memory grows from {0} to {1} over the logged steps: something is kept from one step to the next", "显存随步数从 {0} 涨到 {1}:有东西被一步步留了下来"),
        DoNoGradItem => ("wrap evaluation in `torch.no_grad()`; log `loss.item()`, not the tensor; do not append outputs that keep their graph", "验证放进 `torch.no_grad()`;记录 `loss.item()` 而非张量;不要把带计算图的输出追加到列表"),
        WhyEvalFrames => ("the traceback is in an evaluation loop: without `torch.no_grad()` it builds a graph it never frees", "报错发生在验证循环里:没有 `torch.no_grad()` 就会建立永不释放的计算图"),
        WhyAccumulation => ("the code keeps results across iterations (a loss appended, predictions concatenated): their graphs stay alive", "代码跨迭代保留结果(追加 loss、拼接预测):它们的计算图一直存活"),
        WhyNoNumbers => ("this message carries no memory numbers", "这条报错没有任何显存数字"),
        DoMeasure => ("run `nvidia-smi` and print `torch.cuda.memory_summary()` where it fails (or upgrade PyTorch, whose message prints the numbers), then paste them", "运行 `nvidia-smi`,并在出错处打印 `torch.cuda.memory_summary()`(或升级 PyTorch,新版报错会带数字),再粘贴进来"),
        WhyFreeAboveTotal => ("the message says {0} free of a {1} card: the reported capacity cannot be right", "报错说 {1} 的卡上空闲 {0}:报告的容量不可能正确"),
        DoCheckCapacity => ("check the driver and the device (`nvidia-smi`, `torch.cuda.mem_get_info()`): unified or shared memory, a virtual GPU, a driver bug", "检查驱动与设备(`nvidia-smi`、`torch.cuda.mem_get_info()`):统一/共享内存、虚拟 GPU 或驱动问题"),
        WhyAbsurdRequest => ("one request of {0} on a {1} card is not a memory problem but a size bug", "在 {1} 的卡上一次申请 {0},不是显存问题而是尺寸算错了"),
        DoCheckShapes => ("print the shapes of the tensors at the failing line: a wrong dimension or dtype", "打印出错行张量的形状:维度或 `dtype` 错了"),
        WhyAllowedCap => ("this process may use only {0} of the {1} card (a per-process limit)", "这个进程只被允许使用 {1} 中的 {0}(单进程上限)"),
        DoRaiseFraction => ("raise or remove `torch.cuda.set_per_process_memory_fraction` (or the launcher's limit)", "调高或去掉 `torch.cuda.set_per_process_memory_fraction`(或启动器的限制)"),
        WhyFreeAboveRequest => ("{0} is free, more than the {1} asked for: the shortage is not on this device", "空闲 {0},比申请的 {1} 还多:缺的不是这张卡上的显存"),
        DoCheckOtherDevice => ("check which device failed (`CUDA_VISIBLE_DEVICES`, another rank), and `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`", "检查是哪张卡出错(`CUDA_VISIBLE_DEVICES`、其他卡上的进程),并试 `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`"),
        WhyZombie => ("{0} of the {1} card is held by other processes; this process has {2}", "{1} 的卡上有 {0} 被其他进程占用;本进程占 {2}"),
        DoKill => ("find them with `nvidia-smi` and stop the leftover run (`kill <PID>`), or use another card", "用 `nvidia-smi` 找到它们并结束残留进程(`kill <PID>`),或换一张卡"),
        WhyHugeRequest => ("one request of {0} is more than free + unallocated ({1}) on a {2} card: it can never fit", "一次申请 {0},超过空闲 + 未分配({1}),卡共 {2}:永远放不下"),
        DoSmallerInput => ("make that input smaller: a shorter sequence, a lower resolution, fewer frames, or memory-efficient attention", "把这个输入变小:更短的序列、更低的分辨率、更少的帧,或用省显存的注意力"),
        WhyFragmentation => ("{0} is reserved by PyTorch but unallocated: more than the {1} asked for, which fits in free + unallocated ({2}): the cache is fragmented", "{0} 被 PyTorch 保留却未分配:比申请的 {1} 还多,空闲 + 未分配({2})放得下:缓存碎片化了"),
        DoExpandable => ("set `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` and run again", "设置 `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` 再运行"),
        WhyLongTail => ("memory was flat, then one step asked for {0}: a longer sample than the rest", "显存一直平稳,某一步突然申请 {0}:这个样本比其他的长"),
        WhyShortage => ("PyTorch holds {0} of the {1} card and asks for {2} more: the step needs more than the card", "PyTorch 已占 {1} 中的 {0},还要再申请 {2}:这一步需要的比卡大"),
        WhyMpsOther => ("other allocations ({0}) exceed this process's MPS memory ({1}) under the {2} limit: the Mac's memory is in use elsewhere", "其他分配({0})超过本进程的 MPS 显存({1}),上限 {2}:Mac 的内存被别处占用"),
        DoMpsOther => ("close other programs using memory, or lower the load; `PYTORCH_MPS_HIGH_WATERMARK_RATIO` only moves the limit", "关闭占内存的其他程序或降低负载;`PYTORCH_MPS_HIGH_WATERMARK_RATIO` 只是挪动上限"),
        WhyMps => ("MPS holds {0} and asks for {1} more under the {2} limit", "MPS 已占 {0},再申请 {1},上限 {2}"),
        DoMpsWatermark => ("a smaller batch or model; `PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0` lifts the limit at the risk of swapping", "更小的 batch 或模型;`PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0` 能取消上限,但可能大量换页"),
        WhyVllmFreeHeld => ("only {0} of {1} was free at start-up, below the {2} asked for: {3} is held by something else", "启动时 {1} 中只有 {0} 空闲,低于申请的 {2}:有 {3} 被别的东西占着"),
        WhyVllmFree => ("{0} of {1} was free at start-up, below the {2} the utilization asks for", "启动时 {1} 中空闲 {0},低于显存占比要求的 {2}"),
        DoLowerUtil => ("lower `--gpu-memory-utilization` to about {0}, or free the card", "把 `--gpu-memory-utilization` 降到 {0} 左右,或清空这张卡"),
        WhyVllmKv => ("the context ({0} tokens) is longer than the {1} tokens the KV cache holds", "上下文({0} token)超过 KV cache 能容纳的 {1} token"),
        DoMaxModelLen => ("`--max-model-len {0}` fits; or raise `--gpu-memory-utilization`, use `--kv-cache-dtype fp8`, more tensor-parallel GPUs or a quantized checkpoint", "`--max-model-len {0}` 放得下;或调高 `--gpu-memory-utilization`、用 `--kv-cache-dtype fp8`、加张量并行卡数或换量化权重"),
        WhyVllmKvNeeded => ("one request of {0} tokens needs {1} of KV cache, more than the {2} available", "一个 {0} token 的请求需要 {1} 的 KV cache,超过可用的 {2}"),
        WhyVllmNoBlocks => ("the weights and the profiling run leave nothing of the budget for the KV cache", "权重和剖析运行占满了预算,KV cache 一点不剩"),
        WhyRolloutNoBlocks => (
            "vLLM inside the trainer found no room for its KV cache: its share of the card (`vllm_gpu_memory_utilization`) holds its weights and warm-up and nothing more — before vLLM 0.9.1 that share also had to cover the trainer's own weights and states",
            "训练进程里的 vLLM 放不下 KV cache:它的显存份额(`vllm_gpu_memory_utilization`)装下权重和预热就没有余量了;vLLM 0.9.1 之前,这份额还要算上训练器自己的权重和状态",
        ),
        WhyRolloutFree => (
            "{0} of {1} was free when vLLM started inside the trainer, below the {2} its utilization asks for: the trainer's weights (and states) were on the card first",
            "训练进程里的 vLLM 启动时 {1} 中只空闲 {0},低于它要的 {2}:训练器的权重(和状态)先占了这张卡",
        ),
        WhyRolloutTrainer => (
            "the out-of-memory comes from a trainer that keeps a rollout engine on the same card (its colocate or sleep-mode settings, its rollout workers): the engine's share and the training step compete for the memory; the paste has no numbers to say which one ran out",
            "显存不足出在一个与采样引擎共用同一张卡的训练器里(它的 `colocate`、休眠设置或采样进程):引擎的份额与训练步在争同一块显存;粘贴里没有数字能说明是哪一方用完了",
        ),
        WhyOllamaEstimate => (
            "Ollama chose how many layers to put on the GPU from its own estimate, and the allocation after it failed: the estimate missed (releases have shipped estimates that were off), or something else holds part of the card",
            "`Ollama` 按自己的估算决定把多少层放到显卡上,之后的分配失败了:估算偏小(有些版本的估算就有偏差),或者有别的程序占着一部分显存",
        ),
        DoOllamaLayers => (
            "put fewer layers on the GPU (`num_gpu` in the request or the Modelfile), or reserve headroom with `OLLAMA_GPU_OVERHEAD`; close what else uses the card (`nvidia-smi`); try the current release, or the one before if this started with an upgrade",
            "少放几层到显卡(请求或 `Modelfile` 里的 `num_gpu`),或用 `OLLAMA_GPU_OVERHEAD` 预留余量;关掉占着显卡的其他程序(`nvidia-smi` 查看);换用最新版本,若是升级后才出现,就退回上一个版本",
        ),
        WhyRolloutWakeUp => (
            "the rollout engine could not map its memory back when it woke up: what the trainer left on the card (the caching allocator's reserved memory, gradients, optimizer states) and the engine's weights and pool do not fit at once",
            "采样引擎唤醒时拿不回显存:训练器留在卡上的东西(缓存分配器保留的显存、梯度、优化器状态)和引擎的权重、KV 池同时放不下",
        ),
        WhyVllmSampler => (
            "vLLM ran out of memory warming its sampler up: `max_num_seqs` requests' logits at once, beside its weights and pool",
            "vLLM 预热采样器时显存不足:一次放 `max_num_seqs` 个请求的 logits,再加上权重和 KV 池",
        ),
        DoRolloutShare => (
            "size the engine's share (`rollout_util`, `vllm_gpu_memory_utilization`) for its weights plus a pool of at least one sequence; put it to sleep between rollouts (`vllm_enable_sleep_mode`), or move it to its own GPUs (`vllm_mode=server`); set your configuration (`objective=grpo&rollout=colocate…`) for the numbers",
            "按引擎的权重加至少一条序列的 KV 池来定它的份额(`rollout_util`、`vllm_gpu_memory_utilization`);采样之间让它休眠(`vllm_enable_sleep_mode`),或把它放到单独的卡上(`vllm_mode=server`);在配置里设好(`objective=grpo&rollout=colocate…`)可得到具体数字",
        ),
        DoRolloutWakeUp => (
            "free the trainer's cache before the rollout (`torch.cuda.empty_cache()`), offload its optimizer or parameters while the engine runs, lower the engine's share (`rollout_util`), or sleep at level 2",
            "采样前释放训练器的缓存(`torch.cuda.empty_cache()`),引擎运行时把优化器或参数卸载到 CPU,调低引擎份额(`rollout_util`),或用 2 级休眠",
        ),
        DoSampler => (
            "lower `--max-num-seqs` (or `--gpu-memory-utilization`)",
            "调低 `--max-num-seqs`(或 `--gpu-memory-utilization`)",
        ),
        DoEngineLevers => ("raise the share (`--gpu-memory-utilization`, `--mem-fraction-static`), use a quantized checkpoint or more GPUs; set your configuration with `engine=` to get the numbers", "调高占比(`--gpu-memory-utilization`、`--mem-fraction-static`)、换量化权重或加卡;在配置里设 `engine=` 可得到具体数字"),
        WhySglang => ("SGLang's `--mem-fraction-static` leaves no room for the KV pool after the weights", "SGLang 的 `--mem-fraction-static` 在放下权重后没有给 KV 池留空间"),
        WhyLlamaWeights => ("llama.cpp could not allocate {0} for the offloaded layers", "llama.cpp 无法为卸载到 GPU 的层分配 {0}"),
        DoFewerLayers => ("offload fewer layers (`-ngl`), split over more GPUs, or a smaller quantization", "减少卸载层数(`-ngl`)、分到更多卡,或用更小的量化"),
        WhyLlamaCompute => ("llama.cpp could not allocate a {0} compute buffer", "llama.cpp 无法分配 {0} 的计算缓冲"),
        DoLlamaContext => ("lower the context (`-c`) or the micro-batch (`-ub`), quantize the KV cache (`-ctk q8_0 -ctv q8_0`), or offload fewer layers", "降低上下文(`-c`)或微批(`-ub`),量化 KV cache(`-ctk q8_0 -ctv q8_0`),或少卸载几层"),
        WhyLlamaKv => ("llama.cpp could not allocate a {0} KV cache", "llama.cpp 无法分配 {0} 的 KV cache"),
        WhySmiNoProcess => ("nvidia-smi shows {0} of the {1} card in use with no process listed: a process in another container, or a dead one whose memory was not freed", "nvidia-smi 显示 {1} 的卡上已用 {0},却没有列出任何进程:是别的容器里的进程,或已死进程没有释放显存"),
        DoFindHolder => ("find the holder from the host (`nvidia-smi --query-compute-apps=pid,used_memory --format=csv`, `fuser -v /dev/nvidia*`) and stop it; if nothing holds it, restart the container or reset the card (`nvidia-smi -r`)", "在宿主机上找到占用者(`nvidia-smi --query-compute-apps=pid,used_memory --format=csv`、`fuser -v /dev/nvidia*`)并结束它;若找不到,重启容器或重置显卡(`nvidia-smi -r`)"),
        WhyRequestAboveCard => ("one request of {0} is larger than the whole {1} card: no batch size or sharding of the model fixes it, that input (a sequence, an image, a video) is too large", "一次申请 {0},比整张 {1} 的卡还大:调 batch、切分模型都没用,是这个输入(序列、图片、视频)太大"),
        WhyFirstAboveCard => ("nothing is allocated yet and the first request ({0}) is larger than the {1} the device reports: a shape is wrong, or the device is not the one you think (an APU's shared memory, a MIG slice, `CUDA_VISIBLE_DEVICES`)", "还没分配任何显存,第一次申请({0})就比设备报告的 {1} 还大:要么形状算错了,要么设备不是你以为的那张(APU 的共享内存、MIG 切片、`CUDA_VISIBLE_DEVICES`)"),
        WhyZombieInferred => ("{0} of the {1} card is in use but not by this process ({2} with its CUDA context); the message lists no processes", "{1} 的卡上有 {0} 在用,却不属于本进程(本进程连 CUDA 上下文共 {2});报错没有列出进程"),
        WhyEngineHolds => ("this process, a serving engine, holds {0} of the {1} card (it reserves its KV pool up front) and has no room for {2} more of activations", "这个进程是推理引擎,占了 {1} 中的 {0}(KV 池在启动时就预留了),再也放不下 {2} 的激活"),
        DoEngineHeadroom => ("leave room for activations: lower `--mem-fraction-static` (SGLang) or `--gpu-memory-utilization` (vLLM), or the prefill chunk (`--chunked-prefill-size`, `--max-num-batched-tokens`)", "给激活留空间:调低 `--mem-fraction-static`(SGLang)或 `--gpu-memory-utilization`(vLLM),或调低预填充块(`--chunked-prefill-size`、`--max-num-batched-tokens`)"),
        WhyAfterSteps => ("the run had done {0} steps before this request of {1}, and memory was not reported growing: one batch was larger than the others (the longest text, the biggest image)", "在这次申请 {1} 之前已经跑了 {0} 步,且显存没有持续上涨:是某个 batch 比其他的大(最长的文本、最大的图)"),
        DoLongTail => ("measure the lengths first (`max(len)` over the dataset), then cap them (`cutoff_len`, `max_length`, a lower resolution) or bucket by length", "先统计长度(数据集上的 `max(len)`),再截断(`cutoff_len`、`max_length`、降分辨率)或按长度分桶"),
        WhyVllmNegativeKv => ("the weights and the profiling peak exceed the budget by {0}: no KV cache is left", "权重和剖析峰值超出预算 {0}:KV cache 一点不剩"),
        DoRaiseUtil => ("raise `--gpu-memory-utilization` to {0} (or lower `--max-num-batched-tokens`), or use a quantized checkpoint or more tensor-parallel GPUs", "把 `--gpu-memory-utilization` 提到 {0}(或调低 `--max-num-batched-tokens`),或换量化权重、加张量并行卡数"),
        WhyEngineWeightsExceed => ("the weights ({0}) and the profiling peak do not fit the {1} card even at the engine's highest share", "即使引擎占比调到最高,权重({0})加剖析峰值也放不进 {1} 的卡"),
        DoQuantizedOrTp => ("use a quantized checkpoint (FP8, AWQ/GPTQ int4) or split the model over more GPUs (`--tensor-parallel-size`)", "换量化权重(FP8、AWQ/GPTQ int4)或把模型切到更多卡上(`--tensor-parallel-size`)"),
        WhySglangAvail => ("after the weights ({1}) only {0} is left per GPU: SGLang's static fraction leaves no KV pool", "放下权重({1})后每张卡只剩 {0}:SGLang 的静态占比没给 KV 池留空间"),
        WhySglangFraction => ("`--mem-fraction-static` is {0}, far below SGLang's defaults (0.8–0.9 by card): the weights alone fill it", "`--mem-fraction-static` 是 {0},远低于 SGLang 的默认值(按卡 0.8–0.9):光权重就填满了"),
        WhyFlatThenFail => ("the logged memory stayed at {0} up to the failure: not a creep, one batch was larger than the others", "日志里的显存一直停在 {0},直到出错:不是慢慢涨上去的,是某个 batch 比其他的大"),
        WhyHostKilled => (
            "the operating system killed the process (SIGKILL, exit code −9), not CUDA: the host's RAM ran out — CPU offload, model loading and dataloader workers live there",
            "进程是被操作系统杀掉的(`SIGKILL`,退出码 −9),不是 CUDA 报错:主机内存用完了——CPU 卸载、模型加载和数据加载进程都占主机内存",
        ),
        DoHostRam => (
            "check `dmesg | grep -i oom` and `free -g`; offload less (`offload=optimizer` or `none`: with your configuration set, the bill's note gives the host RAM offload needs per process), load on one rank or with `low_cpu_mem_usage`, use fewer dataloader workers, or add swap",
            "用 `dmesg | grep -i oom`、`free -g` 确认;少卸载一些(`offload=optimizer` 或 `none`:设好配置后,账单的备注给出每个进程卸载所需的主机内存),只让一个进程加载或用 `low_cpu_mem_usage`,减少数据加载进程(`num_workers`),或加 `swap`",
        ),
        AskKilled => ("What failed?", "报错的是什么?"),
        AskWhen => ("When did it run out?", "什么时候爆的?"),
        AskGrew => ("Did memory grow from step to step (the log, `nvidia-smi`)?", "显存是否随步数一路上涨(看日志或 `nvidia-smi`)?"),
        AskOthers => ("Does `nvidia-smi` show other processes on this GPU?", "`nvidia-smi` 里这张卡上还有别的进程吗?"),
        AskEngine => ("Is it a serving engine (`vLLM`, `SGLang`, `llama.cpp`, `Ollama`)?", "是推理服务引擎(`vLLM`、`SGLang`、`llama.cpp`、`Ollama`)吗?"),
        AskSetup => (
            "Is the calculator above set to this run (model, card, method, batch, length)?",
            "上面的计算器是否已设成这次运行的配置(模型、显卡、方法、批大小、长度)?",
        ),
        AnsGpu => ("`CUDA out of memory` (the GPU)", "`CUDA out of memory`(显卡)"),
        AnsHost => ("the process was killed (`Killed`, exit 137: host RAM)", "进程被杀(`Killed`、退出码 137:主机内存)"),
        AnsLoad => ("while loading the model or starting the server", "加载模型或启动服务时"),
        AnsFirst => ("at the first step or request", "第一步或第一个请求"),
        AnsLater => ("after it had run for a while", "跑了一段时间之后"),
        AnsEval => ("during evaluation or generation", "评估或生成时"),
        AnsYes => ("yes", "是"),
        AnsNo => ("no", "否"),
        WhySaidOthers => (
            "the report says another process holds the card; the paste has no numbers to say how much",
            "报告里说有别的进程占着这张卡;粘贴里没有数字说明占了多少",
        ),
        WhySaidGrows => (
            "the report says memory grows from step to step: something is kept from one step to the next (a loss or metric kept as a tensor, outputs appended with their graph)",
            "报告里说显存随步数增长:有东西被一步步留了下来(`loss` 或指标以张量保存、输出连同计算图被追加)",
        ),
        WhySaidLong => (
            "the report says some samples are longer than the rest: the usual step fits and the longest one does not",
            "报告里说部分样本比其他的长:平常的一步放得下,最长的那条放不下",
        ),
        WhySaidExpandable => (
            "the report says the run works once the allocator's expandable segments are on: the memory was there, in pieces",
            "报告里说打开分配器的 `expandable_segments` 后就能跑:显存是够的,只是碎成了小块",
        ),
        WhySaidAfterSteps => (
            "the run failed after {0} steps and nothing says memory grew: the usual step fits, one batch was larger than the others",
            "跑了 {0} 步才失败,且没有显存持续上涨的迹象:平常的一步放得下,是某个 `batch` 比其他的大",
        ),
        WhyRanksShareGpu => (
            "the message lists {0} processes of one launch (their PIDs follow one another) on this GPU, holding {1}: the ranks were all put on the same card",
            "报错列出同一次启动的 {0} 个进程(`PID` 相连)都在这张卡上,共占 {1}:各个 `rank` 被放到了同一张卡上",
        ),
        WhyEngineReserves => (
            "a serving engine takes its share of the card at start-up by design, whatever the model needs: vLLM's `--gpu-memory-utilization` (0.9 by default), SGLang's `--mem-fraction-static`, TGI's `--cuda-memory-fraction` (1.0) reserve that share for the KV cache; the memory it shows is that pool, not a leak",
            "推理引擎在启动时按设计占下它的那份显存,与模型需要多少无关:vLLM 的 `--gpu-memory-utilization`(默认 0.9)、SGLang 的 `--mem-fraction-static`、`TGI` 的 `--cuda-memory-fraction`(1.0)把这份显存留给 KV 缓存;看到的占用就是这个池子,不是泄漏",
        ),
        DoEngineReserves => (
            "if something else must share the card, lower the engine's share (`--gpu-memory-utilization`, `--mem-fraction-static`, `--cuda-memory-fraction`) or its context (`--max-model-len`); set your configuration with `engine=` to see the pool",
            "如果还有别的程序要用这张卡,调低引擎的占比(`--gpu-memory-utilization`、`--mem-fraction-static`、`--cuda-memory-fraction`)或上下文(`--max-model-len`);在配置里设 `engine=` 可看到池子的大小",
        ),
        WhyEngineNoNumbers => (
            "a serving engine ran out of memory and the paste has no numbers: most often its budget (its share of the card, the context length, the sequences at once) asks for more than the card holds beside the weights",
            "推理引擎显存不足,而粘贴里没有数字:最常见的原因是它的预算(显存占比、上下文长度、同时处理的序列数)在权重之外要的比卡能给的多",
        ),
        WhyNoNumbersUsual => (
            "the paste says out of memory but has no numbers: most such reports are a step that needs more than the card (the model, its states and the activations of this batch and length); the numbers rule out the other causes",
            "粘贴里说显存不足却没有数字:这类报告多数是这一步需要的比卡大(模型、优化器状态,以及这个 `batch` 和长度的激活);有了数字才能排除其他原因",
        ),
        WhyEngineShareHigh => (
            "the engine was told to take {0} of the card for its weights and KV pool: PyTorch's own work beside them (the profiling run, the sampler, CUDA graphs) has no room for {1} more",
            "引擎被设为占用整张卡的 {0} 来放权重和 KV 池:PyTorch 在它们之外的工作(剖析运行、采样器、CUDA graphs)再也放不下 {1}",
        ),
        WhyDescribedMargin => (
            "the configuration the report describes ({0}; what it does not state is set to bill the least) needs {1} of the {2} card by the ledger: inside the 20 % the chapter keeps free for what a bill does not see (the data's real lengths, kernels' workspaces, the allocator's holes), so a run that fails there is short of memory",
            "报告描述的配置({0};没说明的设置都按最省的算)按账本需要 {2} 卡中的 {1}:落在第七章要求留出的 20 % 余量之内(账单看不到的部分:数据的实际长度、算子的工作区、分配器的空洞),所以在这里失败就是显存不够",
        ),
        WhyDescribedShortage => (
            "the configuration the report describes ({0}; what it does not state is set to bill the least) needs {1} by the ledger, more than the {2} card",
            "报告描述的配置({0};没说明的设置都按最省的算)按账本需要 {1},超过 {2} 的卡",
        ),
        WhyDescribedWeights => (
            "the model the report serves ({0}) has {1} of weights per GPU, more than the {2} card: no engine setting makes room for them",
            "报告里部署的模型({0})每卡权重就有 {1},超过 {2} 的卡:调引擎的任何设置都放不下",
        ),
        DoDescribedFits => (
            "the configuration the report describes ({0}; what it does not state is set to bill the least) needs {1} of the {2} card by the ledger: as stated it fits, so paste the numbers (PyTorch's whole message, `nvidia-smi`) to find what else holds memory, or set the configuration in full",
            "报告描述的配置({0};没说明的设置都按最省的算)按账本需要 {1},卡有 {2}:照所述是放得下的;请粘贴数字(PyTorch 的完整报错、`nvidia-smi`)找出还有什么占着显存,或把配置完整设好",
        ),
        DoOpenDescribed => (
            "open the configuration the report describes ({0}) for its whole bill and levers",
            "打开报告描述的配置({0}),看完整的账单与可调的杠杆",
        ),
        GridExpertsWhole => (
            "experts: {0} routed per MoE layer, whole over {1} GPUs of the expert-parallel group: rank 0 holds experts {2} … {3}, rank {4} experts {5} … {6}{7}",
            "专家:每个 `MoE` 层 {0} 个路由专家,整块分给专家并行组的 {1} 张卡:`rank` 0 存专家 {2} … {3},`rank` {4} 存专家 {5} … {6}{7}",
        ),
        GridExpertsEach => (
            "experts: {0} routed per MoE layer, every one on each GPU{1}",
            "专家:每个 `MoE` 层 {0} 个路由专家,每张卡都存全部专家{1}",
        ),
        GridExpertsSliced => (", each expert's matrices ÷ {0}", ",每个专家的矩阵 ÷ {0}"),
        WhyNothingRead => ("nothing here looks like an out-of-memory error, nvidia-smi or a memory log", "这里没有认出显存不足的报错、nvidia-smi 输出或显存日志"),
        BadOomLink => ("`oom={0}` is not a paste's numbers; ignored", "`oom={0}` 不是粘贴报错的数字,已忽略"),
        WhySmiHeld => ("nvidia-smi shows {0} of the {1} card in use by processes", "nvidia-smi 显示 {1} 的卡上有 {0} 被进程占用"),
        NoteUnifiedMemory => (
            "Apple silicon with {0} GB of unified memory: the verdict uses {1}, the working set Metal recommends for one process (`recommendedMaxWorkingSetSize`), not the whole RAM. PyTorch's MPS allocator goes on to 1.7× that (`PYTORCH_MPS_HIGH_WATERMARK_RATIO`) while the system swaps, then stops with `MPS backend out of memory`",
            "Apple 芯片,统一内存 {0} GB:判定按 {1} 计,即 Metal 建议单个进程使用的工作集(`recommendedMaxWorkingSetSize`),不是整块内存。PyTorch 的 MPS 分配器会继续用到它的 1.7 倍(`PYTORCH_MPS_HIGH_WATERMARK_RATIO`),期间系统开始换页,最后报 `MPS backend out of memory`",
        ),
        GridWeights => (
            "{0} parameters on this GPU × {1} B — stage {2} of {3}: {4} layers, attention, dense MLPs and shared experts ÷ tp {5}, routed experts ÷ ep × etp {6}, norms and routers whole{7}{8}{9}",
            "本卡 {0} 个参数 × {1} B——第 {2} 段(共 {3} 段):{4} 层,注意力、稠密 `MLP` 与共享专家 ÷ `tp` {5},路由专家 ÷ `ep` × `etp` {6},`norm` 与路由器每卡完整{7}{8}{9}",
        ),
        GridEmbedding => (
            " + the embedding ÷ tp (first stage)",
            " + 嵌入层 ÷ `tp`(第一段)",
        ),
        GridLmHead => (
            " + the LM head ÷ tp and the final norm (last stage)",
            " + `LM head` ÷ `tp` 与最后的 `norm`(最后一段)",
        ),
        GridMtp => (
            " + {0} multi-token-prediction layers (each like the last layer, with eh_proj 2h → h ÷ tp and its norms; an untied model's embedding ÷ tp beside them on a later stage), counted among the stage's layers for activations",
            " + {0} 个多 `token` 预测(`MTP`)层(每层同最后一层,另有 `eh_proj`(`2h → h`)÷ `tp` 及其 `norm`;不共享嵌入的模型在后面的段上另存一份嵌入 ÷ `tp`),激活按本段的层计",
        ),
        GridGradients => (
            "{0} trained parameters × {1} B (Megatron's gradient buffer, main_grad: never sharded; 2 B with `main_grads=bf16`)",
            "{0} 个训练参数 × {1} B(`Megatron` 的梯度缓冲 `main_grad`:不分片;`main_grads=bf16` 时 2 B)",
        ),
        GridStates => (
            "{0} trained parameters × {1} B (the optimizer's moments, {3} B each: 4 in fp32, fewer with the precision-aware optimizer's `moments`){2}",
            "{0} 个训练参数 × {1} B(优化器动量,每个 {3} B:`fp32` 为 4,精度感知优化器的 `moments` 更少){2}",
        ),
        GridMaster => (
            "{0} trained parameters × 4 B (fp32 master weights){1}{2}",
            "{0} 个训练参数 × 4 B(`fp32` 主权重){1}{2}",
        ),
        GridMasterRemainders => (
            "; with the precision-aware optimizer 2 B, not 4: TransformerEngine's FusedAdam keeps only the 16 bits each fp32 master weight adds to its bf16 weight (store_param_remainders, on by default since TE 2.1)",
            ";精度感知优化器下是 2 B 而不是 4 B:`TransformerEngine` 的 `FusedAdam` 只存每个 `fp32` 主权重比其 `bf16` 权重多出的 16 位(`store_param_remainders`,`TE` 2.1 起默认开启)",
        ),
        GridSharded => (
            " ÷ {0} (distributed optimizer over dp × cp; routed experts over their data-parallel group of {1})",
            " ÷ {0}(分布式优化器按 `dp` × `cp` 分片;路由专家按其数据并行组 {1} 分片)",
        ),
        GridActivations => (
            "{0} micro-batches in flight ({1}) × {2} layers × {3} tokens on this GPU × {4} per token and layer (each norm's input and output, q, k, v, attention output and its fp32 log-sum-exp, the MLP's gate, up and product; a MoE layer's routed tokens and their experts' tensors){5}{6}{7}",
            "在途 {0} 个微批次({1})× {2} 层 × 本卡 {3} 个 `token` × 每 `token` 每层 {4}(每个 `norm` 的输入与输出、`q`、`k`、`v`、注意力输出及其 `fp32 log-sum-exp`、`MLP` 的 `gate`、`up` 与乘积;`MoE` 层的路由 `token` 及其专家张量){5}{6}{7}",
        ),
        GridRecompute => (
            "; full recompute (gc=1): each layer keeps only its input ({0} per token) and one layer's activations live again in backward",
            ";完全重计算(`gc=1`):每层只保留输入(每 `token` {0}),反向时一层的激活重新存在",
        ),
        GridDispatch => (
            " + one MoE layer's all-to-all buffers {0} (routed tokens × hidden × 2 B: sent, received and the permuted copy)",
            " + 一个 `MoE` 层的 `all-to-all` 缓冲 {0}(路由 `token` × `hidden` × 2 B:发送、接收与重排副本)",
        ),
        GridRing => (
            " + ring attention's key/value send and receive buffers {0} (cp)",
            " + 环形注意力的 `K`/`V` 收发缓冲 {0}(`cp`)",
        ),
        GridLogits => (
            "{0} tokens × vocab {1} ÷ tp {2} × 6 B (last stage, one micro-batch: bf16 logits 2 B + the vocab-parallel cross-entropy's fp32 copy 4 B, made its softmax in place and kept for backward, where it becomes the gradient in place){3}",
            "{0} 个 `token` × 词表 {1} ÷ `tp` {2} × 6 B(最后一段、一个微批次:`bf16 logits` 2 B + 词表并行交叉熵的 `fp32` 副本 4 B,原地变成 `softmax` 并留给反向,反向时原地变成梯度){3}",
        ),
        GridReference => (
            "the reference (DPO's, or GRPO's KL term): a frozen copy of this GPU's {0} parameters × {1} B, laid out as the policy's{2} (Megatron-SWIFT's ref_models: built without DDP, so no gradient buffer; its no-grad forward runs before the policy's and keeps only per-token log-probabilities)",
            "参考模型(`DPO` 的,或 `GRPO` 的 `KL` 项):本卡 {0} 个参数的冻结副本 × {1} B,切分同策略模型{2}(`Megatron-SWIFT` 的 `ref_models`:不经 `DDP` 构建,没有梯度缓冲;它的无梯度前向在策略模型之前运行,只留下每个 `token` 的对数概率)",
        ),
        GridMtpLogits => (
            "; {0} multi-token-prediction depths each compute their logits through the LM head and keep their loss's fp32 softmax for backward: + 4 B per logit and depth, {1}",
            ";{0} 层多 `token` 预测各自经 `LM head` 算 `logits`,其损失的 `fp32 softmax` 留给反向:每个 `logit` 每层再 + 4 B,共 {1}",
        ),
        GridNccl => (
            "{0}: NCCL's buffers for the {1} process groups of more than one GPU a step uses, as Megatron-Core makes them (the world's; tp, the pipeline's, cp, dp with cp, model parallel tp × pp; with experts ep, etp, tp × ep, etp × ep × pp and the experts' dp: a communicator each, even where two have the same GPUs), outside PyTorch's allocator: on NVLink cards 0.51 GiB for two GPUs and 0.64 GiB for more (a step's large collectives connect every protocol on many channels), over PCIe 0.25 GiB, the first 1.9 GiB with NVLS on NVSwitch Hopper and later; of them the experts' all-to-all's buffers for each peer of ep on the same node: {2} (0.44 GiB a peer, seven at most; peers on other nodes share the network transport's small pool)",
            "{0}:一步用到的 {1} 个多卡进程组的 `NCCL` 缓冲,按 `Megatron-Core` 建组的方式计(全局组;`tp`、流水线、`cp`、含 `cp` 的 `dp`、模型并行 `tp × pp`;有专家时 `ep`、`etp`、`tp × ep`、`etp × ep × pp` 与专家的 `dp`:每组一个通信器,即使两组的卡相同),在 `PyTorch` 分配器之外:`NVLink` 卡上两卡的组 0.51 GiB、更大的组 0.64 GiB(训练的大张量集合通信会在许多通道上连通每种协议),`PCIe` 上每组 0.25 GiB,`Hopper` 及之后的 `NVSwitch` 机器上第一组有 `NVLS`:1.9 GiB;其中专家 `all-to-all` 为 `ep` 中同一节点上每个对端准备的缓冲:{2}(每个对端 0.44 GiB,最多 7 个;其他节点上的对端共用网络传输的一小块缓冲池)",
        ),
        NoteGrid => (
            "Megatron-style grid {0}: {1} GPUs; this bill is one GPU of stage {2} (the stage that needs the most: {3}); the `parallel` object lists every stage",
            "`Megatron` 式并行网格 {0}:共 {1} 卡;本账单是第 {2} 段的一张卡(最吃显存的是第 {3} 段);`parallel` 对象列出每一段",
        ),
        NoteGridRefused => (
            "{0} = {1} does not divide {2} ({3}): Megatron refuses this grid; the bill assumes an even split",
            "{0} = {1} 不整除 {2}({3}):`Megatron` 会拒绝这个网格;账单按均分计算",
        ),
        NoteGridUneven => (
            "the layers do not split evenly over the stages, which Megatron refuses unless `first_stage_layers` or `last_stage_layers` (--decoder-first/last-pipeline-num-layers) leave an even rest: the bill gives the first {0} of the shared stages {1} layers, one more than the others",
            "层数不能在各段间均分,`Megatron` 会拒绝,除非 `first_stage_layers` 或 `last_stage_layers`(`--decoder-first/last-pipeline-num-layers`)让其余层能均分:账单让均分的段中前 {0} 段各 {1} 层,比其余多一层",
        ),
        NoteGridQlora => (
            "Megatron has no 4-bit base: method=qlora on the grid is billed as LoRA over a 16-bit base",
            "`Megatron` 没有 4 `bit` 基座:网格上的 `method=qlora` 按 16 位基座上的 `LoRA` 计算",
        ),
        EngineRopeTwoWidths => (
            " + the RoPE cos/sin tables {0} on every GPU ({1} positions × {2} for the sliding layers + {3} × {4} for the full layers' wider heads, × {5} B, built over the model's whole context whatever the request length)",
            " + 每张卡上的 `RoPE` `cos/sin` 表 {0}(滑动窗口层 {1} 个位置 × {2} + 全注意力层的宽头 {3} × {4},× {5} B,按模型的完整上下文构建,与请求长度无关)",
        ),
        VllmGemma4Load => ("{0}{1}{2}", "{0}{1}{2}"),
        VllmKvSharedProjections => (
            " + the {0} KV-shared layers' k/v projections {1}, which vLLM builds and loads until 0.29 though those layers read an earlier layer's cache (PR #54917 skips them from 0.30)",
            " + {0} 个共享 `KV` 层的 `k/v` 投影 {1}:这些层读取前面层的缓存,`vLLM` 到 0.29 仍然构建并加载它们(`PR #54917` 起,0.30 不再构建)",
        ),
        VllmPerLayerInputs => (
            " + the per-layer inputs' buffer {0} ({1} batched tokens × {2} layers × {3} × 2 B, allocated with the model)",
            " + 逐层输入的缓冲区 {0}({1} 个批处理 `token` × {2} 层 × {3} × 2 B,随模型一起分配)",
        ),
        VisionTrained => (
            "the vision tower trains (`vision_train`: {0} of the trainable parameters are its adapters or weights) over {1} patches ({2} image(s) × {3}): {4} = {5}",
            "视觉塔也参与训练(`vision_train`:可训练参数中有 {0} 个是它的适配器或权重),共 {1} 个 `patch`({2} 张图 × {3}):{4} = {5}",
        ),
        VisionTrainedCheckpointed => (
            "checkpointing: {0} block inputs × {1} × {2} B per patch = {3} + one block recomputed ({4} B per patch: {5})",
            "检查点:{0} 个块的输入,每个 `patch` × {1} × {2} B = {3},加上重算的一个块(每个 `patch` {4} B:{5})",
        ),
        VisionTrainedStored => (
            "{0} blocks × {1} B per patch kept for backward",
            "{0} 个块,每个 `patch` 为反向保留 {1} B",
        ),
        AdaptersWithTower => (
            "{0} + the vision tower's {1} blocks' {2} = {3}",
            "{0} + 视觉塔 {1} 个块的 {2} = {3}",
        ),
        KeptExpertsListed => (
            "{0}, {1} routed expert params kept 16-bit (transformers 5's fused 3-D experts, which bitsandbytes does not quantize: `fused_experts=16bit`)",
            "{0}、{1} 个保持 16 位的路由专家参数(`transformers` 5 的融合三维专家张量,`bitsandbytes` 不量化它们:`fused_experts=16bit`)",
        ),
        ExpertsUpcast => (
            " + {0} routed expert params cast to fp32 by PEFT's k-bit preparation and not cast back (2 B more each)",
            " + {0} 个路由专家参数被 `PEFT` 的低比特训练准备转成 `fp32`,之后没有转回(每个多 2 B)",
        ),
        NoteExperts16bit => (
            "transformers 5 keeps this MoE's fused experts ({0} params) 16-bit under bitsandbytes; `fused_experts=1` if they are quantized on load (Axolotl's `quantize_moe_experts`, Unsloth from 2026.6.2), `fused_experts=0` for transformers 4's per-expert linears",
            "`transformers` 5 在 `bitsandbytes` 下让这个 `MoE` 的融合专家({0} 个参数)保持 16 位;若加载时已量化它们(`Axolotl` 的 `quantize_moe_experts`,`Unsloth` 自 2026.6.2 起)请设 `fused_experts=1`,`transformers` 4 的逐专家线性层请设 `fused_experts=0`",
        ),
        NoteGridOptimizer => (
            "Megatron's optimizers are Adam and SGD: optim={0} is billed as Adam (two fp32 moments)",
            "`Megatron` 的优化器只有 `Adam` 与 `SGD`:`optim={0}` 按 `Adam`(两个 `fp32` 动量)计算",
        ),
        NoteGridPending => (
            "this bill is being computed (its code loads on demand)",
            "正在计算这份账单(其代码按需加载)",
        ),
        NoteServingGrid => (
            "inference is billed for one GPU of {0}-way tensor parallel: pipeline, data and expert parallel (`pp`, `dp`, `ep`) are billed for `engine=vllm` and `sglang`, `pp` for `engine=hf` (a `device_map`); context and expert-tensor parallel (`cp`, `etp`) and llama.cpp's grids not yet",
            "推理按 {0} 路张量并行中的一张卡计算:流水线、数据与专家并行(`pp`、`dp`、`ep`)对 `engine=vllm` 与 `sglang` 计入,`engine=hf` 计入 `pp`(`device_map`);上下文与专家张量并行(`cp`、`etp`)及 `llama.cpp` 的并行尚未计入",
        ),
        GridFsdpWeights => (
            "{0} parameters of this stage on this GPU's tensor / expert slice ÷ {1} (FSDP over dp × cp) × {2} B (the sharded weights; each layer is gathered in bf16 when it runs)",
            "本段落在本卡张量 / 专家切片上的 {0} 个参数 ÷ {1}(`FSDP` 按 `dp` × `cp` 分片)× {2} B(分片权重;每层运行时以 `bf16` 聚合)",
        ),
        GridFsdpShard => (
            "{0} trained parameters ÷ {1} (FSDP over dp × cp) × {2} B",
            "{0} 个训练参数 ÷ {1}(`FSDP` 按 `dp` × `cp` 分片)× {2} B",
        ),
        GridFsdpGathered => (
            "the largest layer gathered in bf16 and the next one prefetched: 2 × {0} parameters × 2 B, + that layer's fp32 gradient before its reduce-scatter {1}",
            "聚合成 `bf16` 的最大一层与预取的下一层:2 × {0} 个参数 × 2 B,+ 该层 `reduce-scatter` 之前的 `fp32` 梯度 {1}",
        ),
        GridFsdpStage => (
            "under a pipeline the stage stays gathered (torchtitan does not reshard after forward when pp > 1): {0} parameters × 2 B (bf16), + the unsharded gradients of {1} trained parameters × {2} B (accumulated in the reduce dtype), synced at the last micro-batch",
            "有流水线时整段保持聚合(`pp` > 1 时 `torchtitan` 前向后不重新分片):{0} 个参数 × 2 B(`bf16`),+ {1} 个训练参数未分片的梯度 × {2} B(以归约精度累加),最后一个微批次才同步",
        ),
        GridLogitsLoss => (
            "{0} tokens × vocab {1} ÷ tp {2} × {3} B (last stage, one micro-batch; the loss as `loss` and `compile` say: {4}){5}",
            "{0} 个 `token` × 词表 {1} ÷ `tp` {2} × {3} B(最后一段、一个微批次;损失按 `loss` 与 `compile`:{4}){5}",
        ),
        NoteRlGrid => (
            "a GRPO or PPO step whose rollout is `generate()` (`rollout=hf`) or an engine reading the trainer's own weights (`rollout=shared`) is billed over `gpus` and `zero`: a Megatron grid has neither, so its keys (`tp`, `pp`, `ep`, `cp`, `dp`, `dist_optim`) are not billed here (`rollout=colocate` or `server` bills the grid)",
            "采样用 `generate()`(`rollout=hf`)或读训练权重的引擎(`rollout=shared`)的 `GRPO` / `PPO` 一步,按 `gpus` 与 `zero` 计算:`Megatron` 网格没有这两种方式,所以这里不计网格键(`tp`、`pp`、`ep`、`cp`、`dp`、`dist_optim`)(`rollout=colocate` 或 `server` 按网格计算)",
        ),
        NoteRlGridRollout => (
            "the policy's step is the grid's: {0} sequence(s) per data-parallel rank per step ({1} over the grid){2}",
            "策略模型的一步按网格计算:每个数据并行组每步 {0} 条序列(整个网格 {1} 条){2}",
        ),
        RlGridEngines => (
            "; the rollout: {0} vLLM engine(s) of tensor parallel {1} (`rollout_tp`) on the grid's GPUs, {2} sequence(s) each; what of the trainer leaves the card while they generate follows `rollout_offload` (Megatron-SWIFT's `offload_model` / `offload_optimizer`, verl's parameter, gradient and optimizer offload; none by default)",
            ";采样:{0} 个张量并行为 {1}(`rollout_tp`)的 `vLLM` 引擎在网格的卡上,各 {2} 条序列;生成期间训练状态有哪些离开显卡由 `rollout_offload` 决定(`Megatron-SWIFT` 的 `offload_model` / `offload_optimizer`,`verl` 的参数、梯度、优化器卸载;默认不卸载)",
        ),
        RlCriticGrid => (
            "critic {0} laid out on the grid as the policy (its value head counted as the LM head): weights, Megatron's gradient buffer, master copy and optimizer states {1}; its update runs apart from the policy's",
            "价值模型 {0},在网格上的切分同策略模型(价值头按 `LM head` 计):权重、`Megatron` 的梯度缓冲、主权重与优化器状态 {1};它的更新与策略模型的更新分开进行",
        ),
        NoteRlRolloutOffload => (
            "`rollout_offload`: while the engine generates, {0} of the trainer's weights, gradients, optimizer states and reference model leave the card per process, to host RAM (ms-swift frees the gradient buffer instead), and come back before the log-probability pass",
            "`rollout_offload`:引擎生成期间,训练的权重、梯度、优化器状态与参考模型中有 {0} 离开显卡(每个进程),放到主机内存(`ms-swift` 直接释放梯度缓冲),在算对数概率之前回到卡上",
        ),
        NoteReentrant => (
            "with reentrant checkpoints (`gc=reentrant`) FSDP1 keeps every input gradient to backward's end: +{0}, in the range's high end",
            "若为 `reentrant` 检查点(`gc=reentrant`),`FSDP1` 会保留每层输入梯度到反向结束:+{0},已计入区间上限",
        ),
        NoteFp32ModuleRecipe => (
            "drill fp32_module: PEFT's recipe already holds the embedding and LM head in fp32 (in the weights)",
            "演练 `fp32_module`:`PEFT` 的配方已经把 embedding 和 LM head 放在 fp32(已计入权重)",
        ),
        NoteQloraBase => (
            "QLoRA trains adapters on a 4-bit base; quant={0} is replaced by nf4",
            "QLoRA 在 4 位底座上训练适配器;quant={0} 改为 nf4",
        ),
        NoteVisionTokens => (
            "{0} image(s) of {1} px, {2} tokens each → {3} vision tokens per sequence (sequence {4} → {5} tokens)",
            "{0} 张图,每张 {1} px、{2} 个 token → 每条序列 {3} 个视觉 token(序列 {4} → {5} token)",
        ),
        NoteEffectiveBatch => (
            "effective batch = micro-batch {0} × accumulation {1} × {2} GPU(s) = {3} sequences per optimizer step; accumulation adds no memory",
            "等效 batch = micro-batch {0} × 累积步数 {1} × {2} 张卡 = {3} 条序列/每次优化器更新;梯度累积不增加显存",
        ),

        RlRollout => ("rollout, {0}: {1}", "采样,{0}:{1}"),
        RlEngineWorkspace => (
            "activation peak {0} + CUDA graphs {1} + memory outside PyTorch {2}",
            "激活峰值 {0} + CUDA graphs {1} + PyTorch 之外的显存 {2}",
        ),
        RlLogprobActivations => (
            "no-grad log-probability pass over {0} sequence(s) of {1} tokens: one layer's working set, {2}",
            "无梯度的对数概率前向,{0} 条 × {1} token:一层的工作集 {2}",
        ),
        RlLogprobLogits => (
            "{0} sequence(s) × {1} tokens × {2} vocabulary × {3} B (the 16-bit logits, divided by the temperature in place) + one sequence's 16-bit log-softmax",
            "{0} 条 × {1} token × 词表 {2} × {3} B(16 位 logits,原地除以温度)+ 一条序列的 16 位 `log_softmax`",
        ),
        RlLogprobLogitsFp32 => (
            "{0} sequence(s) × {1} tokens × {2} vocabulary × {3} B (the 16-bit logits and the fp32 copy Accelerate returns under mixed precision) + one sequence's fp32 logsumexp",
            "{0} 条 × {1} token × 词表 {2} × {3} B(16 位 logits 及混合精度下 `Accelerate` 返回的 fp32 副本)+ 一条序列的 fp32 `logsumexp`",
        ),
        RlReference => (
            "a frozen copy of the model for the reference log-probabilities: {0}{1}",
            "计算参考对数概率的冻结模型副本:{0}{1}",
        ),
        RlCriticJoint => (
            "{0} + {1} of its own step beside the policy's (`ppo_update=joint`: TRL's PolicyAndValueWrapper runs one backward through both — activations, gradients)",
            "{0} + 它自己这一步的 {1},与策略模型的同时在卡上(`ppo_update=joint`:`TRL` 的 `PolicyAndValueWrapper` 对两者做一次反向——激活、梯度)",
        ),
        RlCritic => (
            "critic {0} (its value head counted as the LM head): weights, adapters, master copy and optimizer states {1}; its update runs apart from the policy's",
            "价值模型 {0}(价值头按 LM head 计):权重、适配器、主权重与优化器状态 {1};它的更新与策略模型的更新分开进行",
        ),
        RlReward => ("reward model {0} in bf16: {1}", "奖励模型 {0},bf16:{1}"),
        NoteRlSequences => (
            "{0} sequence(s) per GPU per step (micro-batch × accumulation), each {1} prompt + {2} completion tokens; the loss's logits cover the completion",
            "每卡每步 {0} 条序列(micro-batch × 累积步数),每条提示 {1} + 生成 {2} token;损失的 logits 只算生成部分",
        ),
        NoteRlDivisible => (
            "TRL refuses this: the generation batch (micro-batch × accumulation × GPUs = {0}) must be a multiple of generations = {1}",
            "`TRL` 会拒绝:生成批量(micro-batch × 累积步数 × 卡数 = {0})必须是 `generations` = {1} 的整数倍",
        ),
        NoteRlEngineFree => (
            "the rollout engine does not start: {0} is free when it starts, gpu_memory_utilization {1} asks for {2} (vLLM: \"Free memory on device … is less than desired GPU memory utilization\")",
            "采样引擎起不来:启动时只剩 {0},`gpu_memory_utilization` {1} 要 {2}(vLLM:`Free memory on device … is less than desired GPU memory utilization`)",
        ),
        NoteRlEngineNoCache => (
            "the rollout engine does not start: gpu_memory_utilization {0} leaves its KV cache no room for one sequence (vLLM: \"No available memory for the cache blocks\")",
            "采样引擎起不来:`gpu_memory_utilization` {0} 留给 KV cache 的空间放不下一条序列(vLLM:`No available memory for the cache blocks`)",
        ),
        NoteRlUnslothVllm => (
            "Unsloth's load_vllm sizes its engine from its own estimate of the KV cache's room, {0}: max_num_seqs {1}, max_num_batched_tokens {2}, and a LoRA slot of the adapter's rank",
            "`Unsloth` 的 `load_vllm` 按它自己估的 KV cache 空间 {0} 设引擎:`max_num_seqs` {1},`max_num_batched_tokens` {2},外加一个与适配器同秩的 `LoRA` 槽位",
        ),
        NoteRlSleepHost => (
            "sleep level 1 keeps the engine's weights in host RAM between rollouts: {0}",
            "休眠级别 1 在两次采样之间把引擎权重放在内存里:{0}",
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
        BadText => ("`{0}={1}` is not accepted: {2}", "`{0}={1}` 无效:{2}"),
        HintImageSize => (
            "448 (a square) or 320x50 (width x height), 1–100000 px a side",
            "`448`(正方形)或 `320x50`(宽x高),每边 1–100000 px",
        ),
        HintRopePositions => (
            "a number of positions (0: none), or local,global for Gemma-3's two tables",
            "位置数(0 表示没有),或 `Gemma-3` 两张表的 `local,global`",
        ),
        HintLayerPattern => (
            "1 to 128 letters of F (full), S (sliding window), C (chunked), L (linear), A / M (an attention / Mamba block without MLP), P (an MLP block)",
            "1 到 128 个字母,取自 F(全注意力)、S(滑动窗口)、C(分块)、L(线性)、`A` / `M`(不带 MLP 的注意力 / `Mamba` 块)、`P`(仅 MLP 的块)",
        ),
        HintFrameworkVersion => ("a release such as 5.25, 1.9 or 2026.8.19", "形如 5.25、1.9 或 2026.8.19 的版本号"),
        HintEngineVersion => ("a release such as 0.11 or 0.5.23", "形如 0.11 或 0.5.23 的版本号"),
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
        ConfigOtherFile => (
            "this is {0}, not the model's `config.json`: use the `config.json` beside it in the model's repository",
            "这是{0},不是模型的 `config.json`:请用模型仓库里与它同目录的 `config.json`",
        ),
        FileTokenizer => ("a tokenizer (`tokenizer.json`)", "分词器文件(`tokenizer.json`)"),
        FileWeightIndex => ("the weights' index (`model.safetensors.index.json`)", "权重索引(`model.safetensors.index.json`)"),
        FileTokenizerConfig => ("a tokenizer's settings (`tokenizer_config.json`)", "分词器设置(`tokenizer_config.json`)"),
        FileGenerationConfig => ("the generation settings (`generation_config.json`)", "生成设置(`generation_config.json`)"),
        ConfigTooLarge => (
            "the text is {0}, more than the 16 MiB a config.json could be: it is not one",
            "文本有 {0},超过 config.json 可能的 16 MiB:这不是 config.json",
        ),
        ConfigModelTypeMissing => (
            "field `model_type` is missing (supported: {0})",
            "缺少字段 `model_type`(支持:{0})",
        ),
        ImportIgnored => (
            "fields that look like the model's shape and were not read: {0} — the bill does not follow what they describe, so its size may be far off",
            "看似描述模型结构但未被读取的字段:{0}——账单没有按它们描述的结构计算,规模可能相差很大",
        ),
        ConfigFieldNotPattern => (
            "`{0}` must give each of the {1} layers one of `M`, `*`, `-` or `E`",
            "`{0}` 必须为 {1} 层中的每一层给出 `M`、`*`、`-` 或 `E` 之一",
        ),
        ImportKeep16 => (
            "its `llm_int8_skip_modules` keeps {1} layers' linears 16-bit, {0} params (a dynamic quant's, as Unsloth's): the link sets `keep16`",
            "它的 `llm_int8_skip_modules` 让 {1} 处逐层的线性层保持 16 位,共 {0} 个参数(动态量化,如 `Unsloth` 的):链接设置了 `keep16`",
        ),
        ImportKeep16Unknown => (
            "`llm_int8_skip_modules` names modules the ledger does not itemise ({0}): billed as quantized",
            "`llm_int8_skip_modules` 列出了账本未单列的模块({0}):按已量化计",
        ),
        ImportFullMask => (
            "its `auto_map` names ChatGLM's remote code, which grows the prompt's cache by concatenation layer after layer and returns only the last position's logits: the link sets `mask=full`",
            "它的 `auto_map` 指向 `ChatGLM` 的远程代码,会逐层拼接提示的缓存、只返回最后一个位置的 logits:链接设置了 `mask=full`",
        ),
        ImportPerLayer => (
            "`{0}` differs by layer ({1} … {2}): every layer is billed with the largest",
            "`{0}` 各层不同({1} … {2}):每一层都按最大值计算",
        ),
        ImportOmniThinker => (
            "a Qwen-Omni config: its thinker is billed (the language model, the vision tower, the audio encoder), which transformers' thinker class and vLLM load; the talker and code2wav that speak (`enable_audio_output`) are not",
            "`Qwen-Omni` 配置:计入它的 `thinker`(语言模型、视觉塔、音频编码器),即 `transformers` 的 `thinker` 类与 `vLLM` 加载的部分;负责说话的 `talker` 与 `code2wav`(`enable_audio_output`)不计",
        ),
        ImportVisionInternVl => (
            "its InternViT tower is read as InternVL's (`vision=internvl`): an image is tiled into 448 px squares by the aspect ratio nearest its own, up to {0} and a thumbnail, each 1,024 patches and a class token through the tower and 256 tokens after the 2 × 2 pixel shuffle; InternViT-6B's RMSNorm and q/k norms (the 26B and larger models) are counted as the 300M tower's LayerNorms, the same count, and its q/k/v without biases with them (3 × the width a block more)",
            "它的 `InternViT` 视觉塔按 `InternVL` 的方式读取(`vision=internvl`):一张图按最接近其宽高比的网格切成 448 px 的方块,最多 {0} 块外加一张缩略图,每块 1,024 个 `patch` 加一个类别 `token` 过视觉塔,2 × 2 像素重排后成为 256 个 `token`;`InternViT-6B`(`26B` 及更大的模型)的 `RMSNorm` 与 `q`/`k` 归一化按 `300M` 视觉塔的 `LayerNorm` 计(参数量相同),其不带偏置的 `q`/`k`/`v` 按带偏置计(每块多 3 × 宽度)",
        ),
        ImportVisionGlm4v => (
            "its vision tower is read in Qwen2.5-VL's shape (`vision=qwen25vl`: blocks, width, heads, a SwiGLU MLP `out_hidden_size` wide, 14 px patches, a 2 × 2 merge); GLM-4V's merger, a SwiGLU `intermediate_size` wide, is not counted: {0} parameters",
            "它的视觉塔按 `Qwen2.5-VL` 的形状读取(`vision=qwen25vl`:层数、宽度、头数、`out_hidden_size` 宽的 `SwiGLU MLP`、14 px patch、2 × 2 合并);`GLM-4V` 的合并层(`intermediate_size` 宽的 `SwiGLU`)未计入:{0} 个参数",
        ),
        ImportParallelHybrid => (
            "each of its {0} layers runs attention and a Mamba-2 mixer side by side (Falcon-H1): read as {1} blocks, the mixer's and then attention's with the MLP, a pair one decoder layer (`side_by_side=1`); weights, KV cache and state are the model's, and a checkpointed training step keeps one input per layer and recomputes both blocks, as transformers' checkpoint of the whole layer does",
            "它的 {0} 层每层并排运行注意力和 `Mamba-2` 混合器(`Falcon-H1`):按 {1} 个块读取,先是混合器块,再是带 `MLP` 的注意力块,两块为一个解码层(`side_by_side=1`);权重、`KV` 缓存和状态与模型一致,梯度检查点下每层保存一份输入、反向时重算两块,与 `transformers` 对整层做检查点一致",
        ),
        ImportAudioUnread => (
            "its `audio_config` describes an audio encoder the importer does not read: not billed",
            "它的 `audio_config` 描述的音频编码器导入器不认识:未计入",
        ),
        ImportMtpLayers => (
            "`num_nextn_predict_layers` = {0}: the checkpoint's multi-token-prediction layers are not billed — transformers does not load them; a serving engine loads them as a draft (`spec=mtp`), Megatron trains them (`mtp_layers`)",
            "`num_nextn_predict_layers` = {0}:检查点里的多 `token` 预测(`MTP`)层不计入——`transformers` 不加载它们;推理引擎把它们作为草稿模型加载(`spec=mtp`),`Megatron` 会训练它们(`mtp_layers`)",
        ),
        ImportGeneric => (
            "model_type `{0}` is not one the importer knows: read as a Llama-style decoder (gated MLP, RMSNorm, full attention, no biases) from its standard fields",
            "不认识的 model_type `{0}`:按 Llama 式解码器(门控 MLP、RMSNorm、全注意力、无偏置)读取其标准字段",
        ),
        FetchGated => (
            "{0} says this model is gated (login or licence needed), so the browser cannot read it. Open its config.json there and paste it above instead.",
            "{0} 表示该模型需要登录或授权(gated),浏览器无法直接读取。请在该站打开它的 config.json,复制后粘贴到上面。",
        ),
        FetchNotFound => (
            "No such model or config.json on {0} (404): check the spelling and case of {1}.",
            "{0} 上找不到这个模型或它的 config.json(404):请检查 {1} 的拼写和大小写。",
        ),
        FetchHttp => ("Could not read the config.json from {0} (HTTP {1}). Paste it instead.", "无法从 {0} 读取 config.json(HTTP {1})。请改为粘贴。"),
        FetchNetwork => (
            "Could not reach {0} (network or CORS). Paste the config.json instead; from mainland China, ModelScope or a Hub mirror usually answers.",
            "无法访问 {0}(网络或跨域限制)。请粘贴 config.json;在中国大陆,ModelScope 或 Hub 镜像通常可以访问。",
        ),
        FetchTooLarge => (
            "The file is {0}, more than the 16 MiB a config.json could be; choose the model's `config.json`.",
            "文件有 {0},超过 config.json 可能的 16 MiB;请选择模型的 `config.json`。",
        ),
        FetchReadFailed => ("The file could not be read: {0}", "无法读取该文件:{0}"),
        FetchBadEndpoint => (
            "A mirror endpoint looks like https://hf-mirror.com (https, a host, an optional path).",
            "镜像地址应形如 https://hf-mirror.com(https、主机名,可带路径)。",
        ),
        FetchBadId => ("A model id looks like owner/name, e.g. Qwen/Qwen3-8B.", "模型 id 的格式应为 组织/名称,例如 Qwen/Qwen3-8B。"),
        ImportUnknownQuant => (
            "quantization method `{0}` is not known: the weights are counted in bf16",
            "未知的量化方法 `{0}`:权重按 bf16 计",
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
        ReportNotJson => ("not valid JSON: {0}", "不是合法的 JSON:{0}"),
        ReportTool => (
            "field `tool` must be \"vram-ledger/mem_report\" (the JSON that tools/mem_report.py prints)",
            "字段 `tool` 应为 \"vram-ledger/mem_report\"(即 tools/mem_report.py 打印的 JSON)",
        ),
        ReportVersion => ("field `version` must be 1", "字段 `version` 应为 1"),
        ReportBytes => ("field `bytes` is missing or not an object", "缺少字段 `bytes`,或它不是对象"),
        ReportField => ("field `bytes.{0}` must be a whole number of bytes", "字段 `bytes.{0}` 应为整数字节数"),
        ReportFieldOrNull => ("field `bytes.{0}` must be a whole number of bytes or null", "字段 `bytes.{0}` 应为整数字节数或 null"),
        TraceTooLarge => (
            "the trace is {0}; traces above {1} are refused (record fewer events: `_record_memory_history(max_entries=100000)`, or one step)",
            "这份 trace 有 {0};超过 {1} 的不读(少记一些事件:`_record_memory_history(max_entries=100000)`,或只记一步)",
        ),
        TraceEmpty => ("the trace is empty", "trace 是空的"),
        TraceGzipped => ("the trace is gzipped: decompress it first (`gunzip x.json.gz`)", "trace 是 gzip 压缩的:请先解压(`gunzip x.json.gz`)"),
        TraceUnknown => (
            "not a trace this reads: a memory snapshot pickle (`torch.cuda.memory._dump_snapshot`), the profiler's `export_memory_timeline` JSON, or tools/mem_report.py's JSON",
            "不是能读的 trace:应为显存快照 pickle(`torch.cuda.memory._dump_snapshot`)、profiler 的 `export_memory_timeline` JSON,或 tools/mem_report.py 的 JSON",
        ),
        TraceNotUtf8 => ("the JSON is not UTF-8 text", "这份 JSON 不是 UTF-8 文本"),
        TraceChromeTrace => (
            "a Chrome trace (`export_chrome_trace`) has no memory by category: export the memory timeline instead (`prof.export_memory_timeline(\"x.json\")` with `profile_memory=True, record_shapes=True, with_stack=True`)",
            "Chrome trace(`export_chrome_trace`)没有按类别的显存:请改导出显存时间线(`prof.export_memory_timeline(\"x.json\")`,并开 `profile_memory=True, record_shapes=True, with_stack=True`)",
        ),
        TraceBadRow => ("row {0} of the memory timeline has {1} sizes; torch writes 9 (a 0, then 8 categories)", "显存时间线第 {0} 行有 {1} 个数;torch 写的是 9 个(一个 0,再 8 个类别)"),
        TraceRowsTimes => ("the memory timeline has not one row of sizes per time", "显存时间线的数值行数与时间点个数不一致"),
        TraceBadEvent => ("raw event {0} has {1} numbers; torch writes 4 (time, action, bytes, category)", "原始事件 {0} 有 {1} 个数;torch 写的是 4 个(时间、动作、字节、类别)"),
        TraceBadCategory => ("raw event {0} has a category outside 0–7", "原始事件 {0} 的类别不在 0–7 之内"),
        TraceBadTimeline => ("not a memory timeline: expected `{0}` at byte {1}", "不是显存时间线:第 {1} 字节处应为 `{0}`"),
        TraceNoEvents => (
            "the trace records no memory events (was `_record_memory_history()` called before the step?)",
            "trace 里没有显存事件(是否在这一步之前调用了 `_record_memory_history()`?)",
        ),
        TraceRefusedGlobal => (
            "refused: this pickle names code to run (a GLOBAL opcode); a memory snapshot holds only lists, dicts, strings and numbers",
            "已拒绝:这个 pickle 要调用代码(GLOBAL 操作码);显存快照里只有列表、字典、字符串和数字",
        ),
        TracePickleOpcode => ("not a pickle this reads: opcode {0} out of place at byte {1}", "不是能读的 pickle:第 {1} 字节处的操作码 {0} 不合规则"),
        TracePickleTruncated => ("the pickle ends too early (a partial download?)", "pickle 提前结束了(是否没有下载完整?)"),
        TraceNotSnapshot => (
            "a pickle, but not a memory snapshot: it has no `device_traces` (record with `torch.cuda.memory._record_memory_history()` and save with `_dump_snapshot`)",
            "是 pickle,但不是显存快照:没有 `device_traces`(请用 `torch.cuda.memory._record_memory_history()` 记录、`_dump_snapshot` 保存)",
        ),
        VllmGridWeights => (
            "{8} as loaded, on one GPU of pipeline stage {0} of {1} (layers {2}–{3}): attention, dense MLPs, norms, the embedding and the LM head ÷ tp {4}; routed experts ÷ {5}{6}; shared experts ÷ {7}; latent attention's down-projections whole{9}",
            "按加载的 `{8}` 计,流水线第 {0} 段(共 {1} 段,第 {2}–{3} 层)中的一张卡:注意力、稠密 `MLP`、归一化、嵌入与 `LM head` ÷ `tp` {4};路由专家 ÷ {5}{6};共享专家 ÷ {7};潜向量注意力的下投影完整一份{9}",
        ),
        VllmGridWholeExperts => (
            " (whole experts: expert parallel over tp × dp; the first ranks take one more when they do not divide evenly)",
            "(整个专家:专家并行覆盖 `tp × dp`;除不尽时前几张卡各多一个)",
        ),
        SglangGridWeights => (
            "{0}, on one GPU of pipeline stage {6} of {7} (layers {8}–{9}){10}: attention ÷ {1}; dense MLPs, shared experts and the LM head ÷ {2}; routed experts ÷ {3}{4}; the embedding ÷ {5}{11}",
            "`{0}`,流水线第 {6} 段(共 {7} 段,第 {8}–{9} 层)中的一张卡{10}:注意力 ÷ {1};稠密 `MLP`、共享专家与 `LM head` ÷ {2};路由专家 ÷ {3}{4};嵌入 ÷ {5}{11}",
        ),
        SglangDpAttention => (
            ", data-parallel attention (SGLang's `--tp {1} --dp {0} --enable-dp-attention`)",
            ",数据并行注意力(`SGLang` 的 `--tp {1} --dp {0} --enable-dp-attention`)",
        ),
        SglangGridWholeExperts => (
            " (whole experts: `--ep-size`)",
            "(整个专家:`--ep-size`)",
        ),
        HfMapWeights => (
            "{0} of the model's {1} on GPU {2} (from 0) of {3} (`device_map=\"auto\"`: layers {4}–{5}{6}{7})",
            "模型 {1} 中的 {0},在 {3} 张卡中编号 {2} 的卡上(从 0 起;`device_map=\"auto\"`:第 {4}–{5} 层{6}{7})",
        ),
        HfMapEmbedding => (", the embedding", ",嵌入"),
        HfMapHead => (", the final norm and the LM head", ",最终归一化与 `LM head`"),
        HfMapKv => (
            "this GPU's {0} of {1} layers' share of the cache ({2} in all): {3}",
            "本卡 {0} 层(共 {1} 层)所占的缓存份额(全部 {2}):{3}",
        ),
        NoteDeviceMap => (
            "`device_map=\"auto\"` over {0} GPUs: accelerate puts whole layers on each GPU in order and one GPU works at a time; each holds its layers' weights and cache and runs its own layer's working set{1}. The bill is GPU {2}'s; the GPUs' peaks add up to {3} allocated (what a benchmark that sums `max_memory_allocated` over the GPUs prints)",
            "`device_map=\"auto\"` 分到 {0} 张卡:`accelerate` 按顺序把整层放到各卡上,同一时刻只有一张卡在算;每张卡持有自己各层的权重与缓存,并各自运行一层的工作集{1}。这里是第 {2} 张卡的账单;各卡峰值之和为已分配 {3}(把各卡 `max_memory_allocated` 相加的基准测试印出的数)",
        ),
        LoraSlotsStage => (
            "{0} on this GPU: the slots of the modules its pipeline stage builds (the others are `PPMissingLayer`s) — of the whole model's {1}",
            "本卡 {0}:所在流水线段自己构建的模块的槽位(其余为 `PPMissingLayer`)——整个模型的 {1}",
        ),
        NoteDeviceMapLogits => (
            "; before transformers 4.45 the first GPU also receives the prompt's fp32 logits ({0}): accelerate returns the model's output to the input's GPU",
            ";`transformers` 4.45 之前,第一张卡还会收到提示词的 `fp32` logits({0}):`accelerate` 把模型输出送回输入所在的卡",
        ),
        NotePipelineCheck => (
            "vLLM {0} checks one request of the context against every layer of the model in one stage's memory (vLLM issue #32105); each stage's own pool holds {1} tokens, and vLLM 0.18 and later check each stage's own layers: a newer release starts with this context",
            "`vLLM` {0} 在一段流水线的显存里按整个模型的所有层检查一个请求的上下文(`vLLM #32105`);每段自己的池可放 {1} 个 token,`vLLM` 0.18 起按每段自己的层检查:换新版本即可以这个上下文启动",
        ),
        NcclGroups => (
            " + NCCL's buffers {0} ({1} process groups of more than one GPU: tp, pp, dp)",
            " + NCCL 缓冲 {0}({1} 个多于一卡的进程组:`tp`、`pp`、`dp`)",
        ),
        StartupWhy => (
            "a {0} start-up log without an error, set beside the ledger billed with the settings it prints: {1} of the {2} figures both give are within 5 % (each figure, the engine's | the ledger's, is under the numbers)",
            "一份没有报错的 {0} 启动日志,与按日志所印设置计算的账本逐行对照:双方都给出的 {2} 个数字中有 {1} 个相差不到 5 %(各数字,引擎 | 账本,见下方数字)",
        ),
        StartupSettings => (
            "the settings the log prints, applied to your configuration (← marks a change, with its own value when it set one): {0}",
            "日志所印的设置已套用到你的配置(← 表示有改动,后附你原来设的值):{0}",
        ),
        StartupNoSettings => (
            "the log prints no setting the ledger reads (model, tensor parallel, context, share of the card, KV dtype): billed with your configuration as it is",
            "日志里没有账本能读的设置(模型、张量并行、上下文、显存占比、KV 精度):按你当前的配置计算",
        ),
        StartupRefused => (
            "settings in the log outside what the ledger takes, not applied: {0}",
            "日志中超出账本取值范围的设置,未套用:{0}",
        ),
        StartupMoved => (
            "{0}: {1} with your configuration's own settings, {2} with the log's (the engine: {3}); what moved it: {4}",
            "{0}:按你原来的设置是 {1},套用日志的设置后是 {2}(引擎:{3});起作用的设置:{4}",
        ),
        StartupGap => (
            "{0}: the engine {1}, the ledger {2} ({3}). {4}",
            "{0}:引擎 {1},账本 {2}({3})。{4}",
        ),
        StartupCard => (
            "the engine's figures (its KV pool, or what was free before loading) fit a card of {0} as PyTorch sees it, not the configuration's {1} ({2}): the log does not print the card; if yours is one of {3}, set it",
            "引擎的数字(它的 KV 池,或加载前的空闲显存)对应一张(PyTorch 看到的){0} 的卡,而不是配置里的 {1}({2}):日志没有印出显卡;如果你的卡是 {3} 之一,请设上",
        ),
        StartupCardVram => (
            "the engine's figures (its KV pool, or what was free before loading) fit a card of {0} as PyTorch sees it, not the configuration's {1} ({2}); no preset is within 3 %: set `gpu` to your card or `vram` to its total{3}",
            "引擎的数字(它的 KV 池,或加载前的空闲显存)对应一张(PyTorch 看到的){0} 的卡,而不是配置里的 {1}({2});没有相差 3 % 以内的预设:请把 `gpu` 设为你的卡,或把 `vram` 设为它的总量{3}",
        ),
        StartupWeights => ("weights loaded", "加载的权重"),
        StartupPeak => ("profile run's peak", "剖析运行的峰值"),
        StartupNonTorch => ("non-torch memory", "非 `torch` 显存"),
        StartupGraphs => ("CUDA graphs", "`CUDA graph`"),
        StartupPool => ("KV pool", "KV 池"),
        StartupTokens => ("KV tokens", "KV token 数"),
        StartupBlocks => ("KV blocks", "KV 块数"),
        StartupConcurrency => ("requests at once", "同时请求数"),
        StartupCompute => ("compute buffer", "计算缓冲"),
        StartupFree => ("free before loading", "加载前空闲"),
        StartupHintWeights => (
            "The ledger bills the checkpoint's format: check `quant` (fp8_block, gptq4, awq4 …) and, for a model that is not a preset, import its config.json; engines also pad some tensors for their kernels (MXFP4 experts)",
            "账本按检查点的格式计算:检查 `quant`(`fp8_block`、`gptq4`、`awq4` …);不在预设里的模型请导入它的 `config.json`;引擎还会为内核对齐填充部分张量(如 `MXFP4` 专家)",
        ),
        StartupHintPeak => (
            "The profile run's peak follows `max_batched_tokens`, `max_num_seqs` (the sampler's warm-up over the vocabulary) and the release (`engine_version`); fused-MoE and FP8 kernels keep workspaces of their own (DeepGEMM in vLLM's Docker images)",
            "剖析运行的峰值取决于 `max_batched_tokens`、`max_num_seqs`(采样器按词表预热)和版本(`engine_version`);融合 MoE 与 FP8 内核另有自己的工作区(vLLM 官方镜像里的 `DeepGEMM`)",
        ),
        StartupHintNonTorch => (
            "Non-torch memory is NCCL, custom all-reduce and cuBLAS workspaces: it grows with tensor parallel and with the interconnect (NVLink, NVLS), which the ledger fits rather than reads",
            "非 torch 显存是 `NCCL`、自定义 `all-reduce` 与 `cuBLAS` 工作区:随张量并行和互联(`NVLink`、`NVLS`)增长,账本对它是拟合而不是读取",
        ),
        StartupHintGraphs => (
            "CUDA-graph memory follows the capture sizes (`max_num_seqs`, the engine's capture list) and the release; `cuda_graphs=0` is `--enforce-eager`",
            "`CUDA graph` 显存取决于捕获的批大小(`max_num_seqs`、引擎的捕获列表)和版本;`cuda_graphs=0` 即 `--enforce-eager`",
        ),
        StartupHintPool => (
            "The pool is what the budget leaves: the lines above and the budget (`gpu_util` or `mem_fraction` × the card's total, `vram`) decide it",
            "KV 池是预算剩下的部分:由上面几行和预算(`gpu_util` 或 `mem_fraction` × 显卡总量 `vram`)决定",
        ),
        StartupHintTokens => (
            "Tokens are the pool ÷ one token's KV bytes: the KV dtype (`kv`), the model's layers and KV heads, and its sliding-window layers decide it; the block size rounds it",
            "token 数 = KV 池 ÷ 每个 token 的 KV 字节:由 KV 精度(`kv`)、模型的层数与 KV 头数、滑动窗口层决定;块大小会取整",
        ),
        StartupHintCompute => (
            "llama.cpp sizes its compute buffer for one micro-batch (`max_batched_tokens`: its n_ubatch, 512) over the context and the vocabulary; flash attention shrinks it, and a build keeps it on the GPU even with no layer offloaded",
            "`llama.cpp` 的计算缓冲按一个微批(`max_batched_tokens`:即 `n_ubatch`,512)乘上下文与词表来定;`flash attention` 会缩小它;即使一层都没卸到显卡上,它也留在显卡上",
        ),
        StartupHintFree => (
            "SGLang's budget is `mem_fraction` of what is free before loading: the card's total as PyTorch sees it (`gpu`, `vram`) less the CUDA context and NCCL's buffers",
            "`SGLang` 的预算是加载前空闲显存的 `mem_fraction`:即 PyTorch 看到的显卡总量(`gpu`、`vram`)减去 CUDA 上下文和 `NCCL` 缓冲",
        ),
        StartupHintConcurrency => (
            "Requests at once are the tokens ÷ the context (`seq`: vLLM's max_model_len)",
            "同时请求数 = token 数 ÷ 上下文(`seq`:vLLM 的 `max_model_len`)",
        ),
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
