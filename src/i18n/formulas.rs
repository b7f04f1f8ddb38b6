//! The ledger's formulas in Chinese. The ledger writes them in English (the CLI prints them as they
//! are); for the Chinese page each known phrase is replaced, longest first. Identifiers (q_proj,
//! head_dim), dtypes (bf16, nf4), units and framework names stay as they are, as in Chinese technical
//! writing. A test renders the formulas of many scenarios and fails on any English word left over.

use super::Lang;

/// (English phrase, Chinese). Order does not matter: longer phrases are applied first.
const PHRASES: &[(&str, &str)] = &[
    ("not used here", "此处不适用"),
    ("effective batch = micro-batch", "等效 batch = micro-batch"),
    ("× accumulation", "× 累积步数"),
    ("GPU(s) =", "张卡 ="),
    ("sequences per optimizer step; accumulation adds no memory", "条序列/每次优化器更新;梯度累积不增加显存"),
    ("full fine-tuning trains the weights themselves in", "全参微调直接训练权重本身,精度为"),
    ("precision; quant=", ";quant="),
    ("is ignored", "被忽略"),
    ("is a llama.cpp inference format and cannot be trained on; the base is counted in bf16", "是 llama.cpp 的推理格式,不能用于训练;底座按 bf16 计"),
    ("QLoRA trains adapters on a 4-bit base; quant=", "QLoRA 在 4 位底座上训练适配器;quant="),
    ("is replaced by nf4", "改为 nf4"),
    ("image(s) of", "张图,每张"),
    ("vision tokens per sequence", "个视觉 token/每条序列"),
    ("(sequence", "(序列"),
    ("trainable × 2 states (m, v) ×", "可训练参数 × 2 个状态 (m, v) ×"),
    ("trainable × 2 states × (1 B + fp32 absmax per 256)", "可训练参数 × 2 个状态 × (1 B + 每 256 个一个 fp32 absmax)"),
    ("plain SGD keeps no state", "普通 SGD 不保存状态"),
    ("trainable × 1 momentum ×", "可训练参数 × 1 个动量 ×"),
    ("factored 2nd moment:", "分解的二阶矩:"),
    ("Σ(rows + cols)", "Σ(行 + 列)"),
    ("unfactored vectors", "未分解的向量"),
    ("values ×", "个值 ×"),
    ("(no 1st moment)", "(无一阶矩)"),
    ("(tensor parallel)", "(张量并行)"),
    ("bf16 working copy", "bf16 工作副本"),
    ("frozen base:", "冻结底座:"),
    ("% of the model", "% 的模型参数"),
    ("with r =", ",r ="),
    (" over ", " 作用于 "),
    ("largest weight matrix", "最大权重矩阵"),
    ("dequantized to bf16 for each matmul", "每次矩阵乘前反量化为 bf16"),
    ("bitsandbytes dequantizes to bf16 for prefill", "bitsandbytes 在 prefill 时反量化为 bf16"),
    ("(fp32 master copy)", "(fp32 主权重副本)"),
    ("(DDP keeps a bucket copy)", "(DDP 保留一份桶副本)"),
    ("per sequence (eager scores)", "每条序列(eager 注意力分数)"),
    ("checkpointing:", "梯度检查点:"),
    ("layer inputs", "层输入"),
    ("one layer recomputed", "重算一层"),
    ("final norm", "最终 norm"),
    ("B/token/layer", "B/token/层"),
    ("B/token", "B/token"),
    ("LM head output", "LM head 输出"),
    ("backward of the fp32 log-softmax: saved output + incoming gradient + input gradient, 3 × 4 B", "fp32 log-softmax 的反向:保存的输出 + 传入梯度 + 输入梯度,3 × 4 B"),
    ("shifted fp32 copy", "错位的 fp32 副本"),
    ("beyond the logits' peak, which is freed before it:", "中超出 logits 峰值的部分(logits 在重算之前已释放):"),
    ("backward frees activations and logits while the gradients appear, so they never all coexist: the step's real peak can be", "反向传播一边释放激活与 logits、一边产生梯度,三者不会同时全部存在:这一步的真实峰值可比此总和低"),
    ("below this sum", ""),
    ("soft-capping's tanh output", "软截断(tanh)的输出"),
    ("fp32 log-softmax of each chunk", "每个分块的 fp32 log-softmax"),
    ("fused linear cross-entropy: logits never materialised", "线性层与交叉熵融合:logits 从不完整生成"),
    ("fp32 log-softmax", "fp32 log-softmax"),
    ("fp32 upcast", "fp32 上转"),
    ("one layer gathered from the other GPUs:", "从其他 GPU 聚合的一层:"),
    ("foreach AdamW: √v for all", "foreach AdamW:为全部"),
    ("trainable ×", "可训练参数 ×"),
    ("trainable", "可训练参数"),
    ("Adafactor, per tensor: 2 fp32 buffers of the largest matrix", "Adafactor 逐张量:最大矩阵的 2 个 fp32 缓冲,元素数"),
    ("no step temporaries", "无优化器步临时张量"),
    ("step temporaries", "优化器步临时张量"),
    ("activations and logits freed by then", "届时已释放的激活与 logits"),
    ("frozen vision tower, one block at a time over", "冻结的视觉塔,每次一个 block,处理"),
    ("per image", "每张图"),
    ("patches", "个 patch"),
    ("KV heads", "个 KV 头"),
    ("per GPU", "每卡"),
    ("prompt", "提示词"),
    ("generated", "生成"),
    ("last position:", "仅最后一个位置:"),
    ("fp32 copy", "fp32 副本"),
    ("fp32 probabilities", "fp32 概率"),
    ("prefill, one layer at a time:", "prefill,逐层:"),
    ("through the larger of attention and MLP", "取注意力与 MLP 中较大者"),
    ("evaluation without no_grad:", "验证未包 no_grad:"),
    ("(no checkpointing in eval mode)", "(eval 模式下不做检查点)"),
    ("logits appended to a list:", "logits 被追加进列表:"),
    ("(grows every step; log loss.item())", "(每步增长;应记录 loss.item())"),
    ("embedding + LM head", "embedding + LM head"),
    ("params left in fp32:", "个参数留在 fp32:"),
    ("B each over bf16", "B/参数(相对 bf16)"),
    ("a crashed earlier run still holds its weights", "上次崩掉的进程仍占着权重"),
    ("+ its CUDA context", "+ 它的 CUDA 上下文"),
    ("(nvidia-smi shows it; torch does not)", "(nvidia-smi 看得到,torch 看不到)"),
    ("allocated ×", "已分配 ×"),
    ("(caching allocator: rounding and fragmentation)", "(缓存分配器:取整与碎片)"),
    ("MiB per process and GPU (CUDA context, kernels, cuBLAS/NCCL workspaces; overhead_mib)", "MiB/进程/卡(CUDA 上下文、kernel、cuBLAS/NCCL 工作区;overhead_mib)"),
    ("params ×", "个参数 ×"),
    ("params", "个参数"),
    ("bits / 8", "bit / 8"),
    ("bits", "bit"),
    ("linear", "线性层"),
    ("embeddings, LM head, norms", "embedding、LM head、norm"),
    (", vision tower", "、视觉塔"),
    ("+ vision tower", "+ 视觉塔"),
    ("(16-bit)", "(16 位)"),
    ("(file average)", "(文件平均)"),
    ("double quant:", "双重量化:"),
    ("LLM.int8: 1 B + fp32 row scale", "LLM.int8:1 B + 每行 fp32 缩放"),
    ("layers ×", "层 ×"),
    ("tokens ×", "token ×"),
    ("tokens", "token"),
    ("seq ×", "条序列 ×"),
    ("seq", "条序列"),
    ("vocab", "词表"),
    ("steps ×", "步 ×"),
    ("per 256", "每 256"),
    ("GPUs", "卡"),
    ("logits", "logits"),
];

/// The query parser's messages (notices about a link or a typed value).
const NOTICE_PHRASES: &[(&str, &str)] = &[
    ("is not accepted: a whole number from", "无效:应为整数,范围"),
    ("is not accepted: a number from", "无效:应为数字,范围"),
    ("is not accepted: use 0 or 1", "无效:应为 0 或 1"),
    ("is not accepted; accepted values:", "无效;可选值:"),
    ("is not accepted; a comma-separated list of:", "无效;应为以逗号分隔的列表,可选:"),
    ("is not a preset; accepted values:", "不是内置模型;可选值:"),
    ("unknown key", "未知参数"),
    ("ignored", "已忽略"),
    ("cannot exceed heads", "不能超过 heads"),
    ("; using", ";改用"),
    (" to ", " 至 "),
];

/// `formula` in `lang`: unchanged for English.
pub fn localize_formula(lang: Lang, formula: &str) -> String {
    localize(lang, formula, &[PHRASES])
}

/// A notice of the query parser in `lang`. The quoted value (between backticks) is the user's own
/// text and stays as it is.
pub fn localize_notice(lang: Lang, message: &str) -> String {
    // Translate only outside backticks.
    let mut out = String::with_capacity(message.len());
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
        } else {
            out.push_str(&localize(lang, part, &[NOTICE_PHRASES, PHRASES]));
        }
    }
    out
}

fn localize(lang: Lang, formula: &str, tables: &[&[(&str, &str)]]) -> String {
    if lang == Lang::En {
        return formula.to_string();
    }
    let mut phrases: Vec<&(&str, &str)> = tables.iter().flat_map(|t| t.iter()).collect();
    phrases.sort_by_key(|(en, _)| std::cmp::Reverse(en.len()));
    // Replace longest phrases first, never re-translating already translated text.
    let mut pieces: Vec<(String, bool)> = vec![(formula.to_string(), false)];
    for (en, zh) in phrases {
        let mut next = Vec::with_capacity(pieces.len());
        for (text, done) in pieces {
            if done || !text.contains(en) {
                next.push((text, done));
                continue;
            }
            let mut rest = text.as_str();
            while let Some(i) = rest.find(en) {
                next.push((rest[..i].to_string(), false));
                next.push((zh.to_string(), true));
                rest = &rest[i + en.len()..];
            }
            next.push((rest.to_string(), false));
        }
        pieces = next;
    }
    pieces.into_iter().map(|(t, _)| t).collect()
}
