//! Reading what a user pastes after an OOM: PyTorch's out-of-memory messages of every layout since
//! 1.x (and HIP's, and MPS's on Apple), nvidia-smi (table, CSV, gpustat), `torch.cuda.memory_summary()`,
//! training logs, tracebacks, and the serving engines' start-up errors. Only numbers and a few
//! signals come out; the text itself is never kept, rendered or executed. Bounded: at most
//! [`MAX_TEXT`] bytes are read, in one pass per phrase (no regular expressions).

/// The most text read (the end of a longer paste, where the error is).
pub const MAX_TEXT: usize = 1 << 20;

/// The layouts recognised; their ids are a public contract (`format` in the JSON output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PyTorch ≥ 2.2: "GPU 0 has a total capacity of … of which … is free. …"
    Torch22,
    /// PyTorch 2.1: the same with "total capacty".
    Torch21,
    /// PyTorch 1.5–2.0: "(GPU 0; T total capacity; A already allocated; F free; R reserved in total by PyTorch)".
    Torch15,
    /// PyTorch before 1.5: "…; C cached)", where cached excludes what is allocated.
    Torch14,
    /// Apple's MPS backend.
    Mps,
    /// "CUDA error: out of memory", "cuda runtime error (2)": no numbers.
    Bare,
    NvidiaSmi,
    MemorySummary,
    /// vLLM: "max seq len (L) is larger than the maximum number of tokens that can be stored in KV cache (K)".
    VllmKv,
    /// vLLM V1: "(X GiB KV cache is needed, which is larger than the available KV cache memory (Y GiB)".
    VllmKvV1,
    VllmNoBlocks,
    VllmFreeMemory,
    Sglang,
    Llamacpp,
    /// A training log whose memory figures are printed step by step.
    TrainingLog,
}

impl Format {
    pub fn id(self) -> &'static str {
        match self {
            Format::Torch22 => "torch22",
            Format::Torch21 => "torch21",
            Format::Torch15 => "torch15",
            Format::Torch14 => "torch14",
            Format::Mps => "mps",
            Format::Bare => "bare",
            Format::NvidiaSmi => "nvidia_smi",
            Format::MemorySummary => "memory_summary",
            Format::VllmKv => "vllm_kv",
            Format::VllmKvV1 => "vllm_kv_v1",
            Format::VllmNoBlocks => "vllm_no_blocks",
            Format::VllmFreeMemory => "vllm_free_memory",
            Format::Sglang => "sglang",
            Format::Llamacpp => "llamacpp",
            Format::TrainingLog => "training_log",
        }
    }

    pub fn from_id(id: &str) -> Option<Format> {
        FORMATS.iter().copied().find(|f| f.id() == id)
    }
}

pub const FORMATS: [Format; 15] = [
    Format::Torch22,
    Format::Torch21,
    Format::Torch15,
    Format::Torch14,
    Format::Mps,
    Format::Bare,
    Format::NvidiaSmi,
    Format::MemorySummary,
    Format::VllmKv,
    Format::VllmKvV1,
    Format::VllmNoBlocks,
    Format::VllmFreeMemory,
    Format::Sglang,
    Format::Llamacpp,
    Format::TrainingLog,
];

/// Which buffer llama.cpp failed to allocate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlamaBuffer {
    Kv,
    Compute,
    Weights,
}

/// The numbers read, in bytes (tokens and ratios where said). `None`: not in the paste.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Numbers {
    pub tried_to_allocate: Option<f64>,
    pub total: Option<f64>,
    pub free: Option<f64>,
    /// "this process has P memory in use" (non-PyTorch memory included).
    pub process: Option<f64>,
    /// The "Process N has X memory in use" lines: (pid, bytes).
    pub processes: Vec<(u64, f64)>,
    pub allocated: Option<f64>,
    /// Reserved by PyTorch in total (allocated + unallocated).
    pub reserved: Option<f64>,
    pub reserved_unallocated: Option<f64>,
    pub private_pools: Option<f64>,
    /// A per-process cap ("X allowed;", `set_per_process_memory_fraction`).
    pub allowed: Option<f64>,
    /// nvidia-smi: used and total of the GPU (the fullest one when several are listed).
    pub smi_used: Option<f64>,
    pub smi_total: Option<f64>,
    /// nvidia-smi's process list: (GPU index, pid, bytes).
    pub smi_processes: Vec<(u32, u64, f64)>,
    /// nvidia-smi's used memory over successive snapshots.
    pub smi_series: Vec<f64>,
    /// memory_summary's peaks.
    pub peak_allocated: Option<f64>,
    pub peak_reserved: Option<f64>,
    pub mps_allocated: Option<f64>,
    pub mps_other: Option<f64>,
    pub mps_max_allowed: Option<f64>,
    /// vLLM: the context asked for, the tokens the pool holds, the KV a request needs and what is
    /// available, vLLM's estimated maximum length.
    pub max_model_len: Option<f64>,
    pub kv_tokens: Option<f64>,
    pub kv_needed: Option<f64>,
    pub kv_available: Option<f64>,
    pub estimated_max_len: Option<f64>,
    /// vLLM: free memory at start-up and what the utilization asked for.
    pub requested: Option<f64>,
    pub utilization: Option<f64>,
    /// vLLM and SGLang: the weights as loaded.
    pub weights: Option<f64>,
    /// The most steps the log shows done before the error (progress bars, `global_step`).
    pub steps_done: Option<f64>,
    /// llama.cpp: the buffer that failed.
    pub llama_alloc: Option<f64>,
    pub llama_buffer: Option<LlamaBuffer>,
    /// A memory figure a training log printed step by step (first, last, how many).
    pub log_series: Vec<f64>,
}

/// What the traceback and the log say, beyond the numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signals {
    /// A frame of an evaluation or validation loop (`validate`, `evaluate`, `validation_step` …).
    pub evaluation: bool,
    /// A frame of `generate()` / sampling.
    pub generation: bool,
    pub backward: bool,
    /// Results accumulated across iterations (`losses.append(loss)`, `torch.cat((preds, …))`).
    pub accumulation: bool,
    /// A long or unusual sample named (`longest`, `max_duration`, `single_longest_cut`).
    pub long_sample: bool,
    /// The paste comes from a serving engine (vLLM, SGLang) that reserves its KV pool up front.
    pub engine: bool,
    /// "GB" read as GiB (PyTorch's MPS message, vLLM, SGLang and gpustat print binary units as GB).
    pub gb_as_gib: bool,
    /// The paste was longer than [`MAX_TEXT`]; its end was read.
    pub truncated: bool,
    /// An out-of-memory error is in the paste.
    pub oom: bool,
}

/// Everything read from a paste.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    pub formats: Vec<Format>,
    pub numbers: Numbers,
    pub signals: Signals,
}

impl Reading {
    pub fn has(&self, f: Format) -> bool {
        self.formats.contains(&f)
    }
}

const KIB: f64 = 1024.0;

/// A number at the start of `s` (after spaces): digits, one point, digits; with its length.
fn number_at(s: &str) -> Option<(f64, usize)> {
    let t = s.trim_start();
    let skipped = s.len() - t.len();
    let b = t.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let start_digits = i;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b',' && i > start_digits) {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    let text: String = t[..i].chars().filter(|c| *c != ',').collect();
    let v: f64 = text.parse().ok()?;
    (v.is_finite() && i > start_digits).then_some((v, skipped + i))
}

/// A size ("12.34 GiB", "5371MiB", "0 bytes") at the start of `s`, in bytes; "GB"/"MB" are read
/// as binary units (`gb` is set), as the tools that print them mean.
fn size_at(s: &str, gb: &mut bool) -> Option<f64> {
    let (v, used) = number_at(s)?;
    let rest = s[used..].trim_start();
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect::<String>().to_ascii_lowercase();
    let scale = match word.as_str() {
        "b" | "bytes" | "byte" => 1.0,
        "kib" | "kb" => KIB,
        "mib" => KIB * KIB,
        "mb" => {
            *gb = true;
            KIB * KIB
        }
        "gib" => KIB * KIB * KIB,
        "gb" | "g" => {
            *gb = true;
            KIB * KIB * KIB
        }
        "tib" | "tb" => KIB * KIB * KIB * KIB,
        _ => return None,
    };
    Some(v * scale)
}

/// The text after the last `phrase` in `low` (the lowercased text), as a slice of `low`.
fn after_last<'a>(low: &'a str, phrase: &str) -> Option<&'a str> {
    low.rfind(phrase).map(|i| &low[i + phrase.len()..])
}

/// A size right after the last `phrase`.
fn size_after(low: &str, phrase: &str, gb: &mut bool) -> Option<f64> {
    size_at(after_last(low, phrase)?, gb)
}

/// A size right before `phrase` (the last occurrence): "… 13.29 GiB already allocated".
fn size_before(low: &str, phrase: &str, gb: &mut bool) -> Option<f64> {
    let i = low.rfind(phrase)?;
    let head = low[..i].trim_end();
    // Back over the unit and the number.
    let unit = head.trim_end_matches(|c: char| c.is_ascii_alphabetic()).trim_end();
    let start = unit.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',').len();
    let start = start + unit[start..].find(|c: char| c.is_ascii_digit())?;
    size_at(&head[start..], gb)
}

/// The last `(a/b GiB)`-style pair after `phrase`: "Free memory on device (0.49/79.32 GiB)".
fn pair_after(low: &str, phrase: &str, gb: &mut bool) -> Option<(f64, f64)> {
    let rest = after_last(low, phrase)?;
    // "Free memory on device cuda:1 (19.77/22.05 GiB)": past the device's name.
    let rest = &rest[rest.find('(').filter(|&i| i <= 24)? + 1..];
    let (a, used) = number_at(rest)?;
    let rest = rest[used..].trim_start().strip_prefix('/')?;
    let b = size_at(rest, gb)?;
    let scale = b / number_at(rest)?.0.max(f64::MIN_POSITIVE);
    Some((a * scale, b))
}

/// The text with the "[rank3]: " and "(EngineCore pid=316) " prefixes of distributed logs removed,
/// lines a terminal hard-wrapped at a fixed width joined again (the widest lines, when two or more
/// share that width), lowercased (ASCII) for matching.
fn normalise(text: &str) -> String {
    let width = text.lines().map(str::len).max().unwrap_or(0);
    let wrapped = width >= 60 && text.lines().filter(|l| l.len() == width).take(2).count() == 2;
    // A wrapped line ends inside a word or number and its continuation is not indented (a table's
    // rows, all as wide, end with '|').
    let ends_mid =
        |l: &str| l.len() == width && l.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '(');
    let mut lines = text.lines().peekable();
    let mut out = String::with_capacity(text.len());
    while let Some(line) = lines.next() {
        let joins = wrapped
            && ends_mid(line)
            && lines.peek().is_some_and(|next| next.starts_with(|c: char| !c.is_whitespace()));
        let mut l = line.trim_start();
        if let Some(rest) = l.strip_prefix("[rank") {
            if let Some(close) = rest.find("]:") {
                l = rest[close + 2..].trim_start();
            }
        }
        if l.starts_with('(') {
            if let Some(close) = l.find(") ").filter(|&i| l[..i].contains("pid=")) {
                l = l[close + 2..].trim_start();
            }
        }
        out.push_str(l);
        if !joins {
            out.push('\n');
        }
    }
    out.make_ascii_lowercase();
    out
}

/// `s[from..to]` with both ends moved inside `s` and onto character boundaries.
fn window(s: &str, from: usize, to: usize) -> &str {
    let floor = |mut i: usize| {
        i = i.min(s.len());
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (a, b) = (floor(from), floor(to));
    &s[a.min(b)..b]
}

/// The end of `text` within [`MAX_TEXT`] bytes, at a character boundary.
fn bounded(text: &str) -> (&str, bool) {
    if text.len() <= MAX_TEXT {
        return (text, false);
    }
    let mut start = text.len() - MAX_TEXT;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    (&text[start..], true)
}

/// Reads a paste.
pub fn read(text: &str) -> Reading {
    let (text, truncated) = bounded(text);
    let low = normalise(text);
    let mut r = Reading { signals: Signals { truncated, ..Signals::default() }, ..Reading::default() };
    let mut gb = false;
    read_torch(&low, &mut r, &mut gb);
    read_mps(&low, &mut r, &mut gb);
    read_serving(&low, &mut r, &mut gb);
    read_smi(&low, &mut r, &mut gb);
    read_summary(&low, &mut r, &mut gb);
    read_log_series(&low, &mut r);
    read_signals(&low, &mut r);
    r.signals.gb_as_gib = gb;
    // An out-of-memory error without any message that carries numbers (nvidia-smi, a summary or a
    // log may be beside it).
    let with_numbers =
        r.formats.iter().any(|f| !matches!(f, Format::NvidiaSmi | Format::MemorySummary | Format::TrainingLog));
    if !with_numbers && low.contains("out of memory")
        || r.formats.is_empty() && low.contains("cudaerrormemoryallocation")
    {
        r.formats.push(Format::Bare);
    }
    r.signals.oom = low.contains("out of memory")
        || low.contains("outofmemoryerror")
        || low.contains(" oom")
        || !r.formats.is_empty();
    r
}

fn read_torch(low: &str, r: &mut Reading, gb: &mut bool) {
    let n = &mut r.numbers;
    let Some(at) = low.rfind("tried to allocate") else { return };
    // A message wrapped by the terminal or the issue tracker: "18.33\nGiB reserved".
    let joined = window(low, at, at + 4000).replace('\n', " ");
    let msg = joined.as_str();
    n.tried_to_allocate = size_after(msg, "tried to allocate", gb);
    if msg.contains("has a total capacity of") || msg.contains("has a total capacty of") {
        r.formats.push(if msg.contains("capacty") { Format::Torch21 } else { Format::Torch22 });
        n.total = size_after(msg, "total capacity of", gb).or_else(|| size_after(msg, "total capacty of", gb));
        n.free = size_after(msg, "of which", gb);
        n.process = size_after(msg, "this process has", gb);
        n.allocated = size_after(msg, "of the allocated memory", gb);
        n.private_pools = size_after(msg, "with ", gb).filter(|_| msg.contains("private pools"));
        n.reserved_unallocated = size_before(msg, "is reserved by pytorch but unallocated", gb)
            .or_else(|| size_after(msg, "allocated by pytorch, and", gb));
        n.allowed = size_before(msg, "allowed;", gb);
        let mut rest = msg;
        while let Some(i) = rest.find("process ") {
            rest = &rest[i + 8..];
            if let Some((pid, used)) = number_at(rest) {
                if let Some(has) = rest[used..].trim_start().strip_prefix("has") {
                    if let Some(bytes) = size_at(has, gb) {
                        if n.processes.len() < 64 {
                            n.processes.push((pid.max(0.0) as u64, bytes));
                        }
                    }
                }
            }
        }
        if let (Some(a), Some(u)) = (n.allocated, n.reserved_unallocated) {
            n.reserved = Some(a + u);
        }
    } else if msg.contains("total capacity;") {
        n.total = size_before(msg, "total capacity;", gb);
        n.allocated = size_before(msg, "already allocated", gb);
        n.free = size_before(msg, "free;", gb).or_else(|| size_before(msg, "free)", gb));
        n.allowed = size_before(msg, "allowed;", gb);
        if let Some(reserved) = size_before(msg, "reserved in total by", gb) {
            r.formats.push(Format::Torch15);
            n.reserved = Some(reserved);
            n.reserved_unallocated = n.allocated.map(|a| (reserved - a).max(0.0));
        } else if let Some(cached) = size_before(msg, "cached)", gb) {
            r.formats.push(Format::Torch14);
            n.reserved_unallocated = Some(cached);
            n.reserved = n.allocated.map(|a| a + cached);
        }
    }
}

fn read_mps(low: &str, r: &mut Reading, gb: &mut bool) {
    let Some(at) = low.rfind("mps backend out of memory") else { return };
    let msg = window(low, at, at + 1000);
    r.formats.push(Format::Mps);
    let n = &mut r.numbers;
    n.mps_allocated = size_after(msg, "mps allocated:", gb);
    n.mps_other = size_after(msg, "other allocations:", gb);
    n.mps_max_allowed = size_after(msg, "max allowed:", gb);
    n.tried_to_allocate = size_after(msg, "tried to allocate", gb);
}

fn read_serving(low: &str, r: &mut Reading, gb: &mut bool) {
    let n = &mut r.numbers;
    if let Some(rest) = after_last(low, "max seq len (") {
        let len = number_at(rest).map(|v| v.0);
        if let Some(kv) = after_last(low, "stored in kv cache (") {
            r.formats.push(Format::VllmKv);
            n.max_model_len = len;
            n.kv_tokens = number_at(kv).map(|v| v.0);
        } else if low.contains("kv cache is needed") {
            r.formats.push(Format::VllmKvV1);
            n.max_model_len = len;
            n.kv_needed = after_last(low, "max seq len (")
                .and_then(|s| s.find("), (").map(|i| &s[i + 4..]))
                .and_then(|s| size_at(s, gb));
            n.kv_available = size_after(low, "available kv cache memory (", gb);
            n.estimated_max_len = after_last(low, "estimated maximum model length is").and_then(number_at).map(|v| v.0);
        }
    }
    // The pool came out empty or negative: the error itself, "# GPU blocks: 0", a negative figure.
    n.kv_available = size_after(low, "available kv cache memory:", gb)
        .or_else(|| size_after(low, "reserved for kv cache is", gb))
        .or(n.kv_available);
    let no_blocks = ["no available memory for the cache blocks", "# gpu blocks: 0,", "# cuda blocks: 0,"];
    if no_blocks.iter().any(|p| low.contains(p)) || n.kv_available.is_some_and(|kv| kv <= 0.0) {
        r.formats.push(Format::VllmNoBlocks);
        if let Some(rest) = after_last(low, "total_gpu_memory (") {
            n.total = size_at(rest, gb);
            n.utilization = after_last(rest, "gpu_memory_utilization (").and_then(number_at).map(|v| v.0);
        }
        n.weights = size_after(low, "model weights take", gb).or_else(|| size_after(low, "model loading took", gb));
    }
    if let Some((free, total)) = pair_after(low, "free memory on device", gb) {
        r.formats.push(Format::VllmFreeMemory);
        n.free = Some(free);
        n.total = Some(total);
        if let Some(rest) = after_last(low, "desired gpu memory utilization (") {
            n.utilization = number_at(rest).map(|v| v.0);
            n.requested = rest.find(',').and_then(|i| size_at(&rest[i + 1..], gb));
        }
    }
    let profiled = after_last(low, "is larger than the profiled value").and_then(number_at).map(|v| v.0);
    if low.contains("mem-fraction-static") && (low.contains("not enough memory") || low.contains("leave no gpu memory"))
        || profiled.is_some()
    {
        r.formats.push(Format::Sglang);
        n.kv_tokens = profiled;
        n.utilization = after_last(low, "mem_fraction_static=").and_then(number_at).map(|v| v.0);
        n.free = size_after(low, "avail mem=", gb);
        n.weights = size_after(low, "mem usage=", gb);
    }
    if let Some(at) = low.rfind("cudamalloc failed: out of memory") {
        r.formats.push(Format::Llamacpp);
        let line_start = low[..at].rfind('\n').map_or(0, |i| i + 1);
        n.llama_alloc = size_after(&low[line_start..at], "allocating", gb);
        let around = window(low, line_start.saturating_sub(2000), at + 600);
        n.llama_buffer = if around.contains("kv cache")
            && !window(around, around.len().saturating_sub(600), around.len()).contains("compute buffer")
        {
            Some(LlamaBuffer::Kv)
        } else if around.contains("compute buffer") || around.contains("graph_reserve") || around.contains("gallocr") {
            Some(LlamaBuffer::Compute)
        } else if around.contains("load_tensors") || around.contains("model buffer") {
            Some(LlamaBuffer::Weights)
        } else {
            None
        };
    }
}

/// nvidia-smi's table ("12799MiB / 16280MiB"), its process rows, `--query-gpu` CSV and gpustat.
fn read_smi(low: &str, r: &mut Reading, gb: &mut bool) {
    let n = &mut r.numbers;
    let mut seen = false;
    for line in low.lines().take(20_000) {
        if let Some(slash) = line.find("mib / ").or_else(|| line.find(" / ").filter(|_| line.contains("mb |"))) {
            // "| 12799MiB / 16280MiB |" or gpustat's "| 10151 / 81920 MB |".
            let head = &line[..slash];
            let start = head.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').len();
            let used = number_at(&head[start..]).map(|v| v.0 * KIB * KIB);
            let tail = line[slash..].trim_start_matches(|c: char| !c.is_ascii_digit());
            let total = number_at(tail).map(|v| v.0 * KIB * KIB);
            if let (Some(u), Some(t)) = (used, total) {
                if t > 0.0 && u <= t * 1.01 {
                    seen = true;
                    if n.smi_series.len() < 256 {
                        n.smi_series.push(u);
                    }
                    if n.smi_used.is_none_or(|old| u / t > old / n.smi_total.unwrap_or(t)) {
                        n.smi_used = Some(u);
                        n.smi_total = Some(t);
                    }
                    if line.contains(" mb |") {
                        *gb = true;
                    }
                }
            }
        } else if let Some(p) = smi_process_row(line) {
            seen = true;
            if n.smi_processes.len() < 64 {
                n.smi_processes.push(p);
            }
        } else if line.contains("memory.used") && line.contains("memory.total") {
            seen = true;
        } else if let Some((u, t)) = csv_pair(line) {
            if seen && n.smi_used.is_none() {
                n.smi_used = Some(u);
                n.smi_total = Some(t);
            }
        }
    }
    if seen {
        r.formats.push(Format::NvidiaSmi);
    }
}

/// "|    0   N/A  N/A    12345      C   python     5371MiB |": (GPU, pid, bytes).
fn smi_process_row(line: &str) -> Option<(u32, u64, f64)> {
    let t = line.trim();
    let inner = t.strip_prefix('|')?.strip_suffix('|')?.trim();
    if !inner.ends_with("mib") {
        return None;
    }
    let fields: Vec<&str> = inner.split_whitespace().collect();
    if fields.len() < 4 || !fields[0].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let pid = fields.iter().skip(1).find(|f| f.len() >= 2 && f.bytes().all(|b| b.is_ascii_digit()))?;
    let mem = fields.last()?.trim_end_matches("mib");
    Some((fields[0].parse().ok()?, pid.parse().ok()?, mem.parse::<f64>().ok()? * KIB * KIB))
}

/// `--query-gpu=memory.used,memory.total --format=csv`'s "12799 MiB, 16280 MiB".
fn csv_pair(line: &str) -> Option<(f64, f64)> {
    let (a, b) = line.split_once(',')?;
    let mut gb = false;
    let (u, t) = (size_at(a, &mut gb)?, size_at(b, &mut gb)?);
    (t > 0.0 && u <= t).then_some((u, t))
}

/// memory_summary's "| Allocated memory | 1062 MB | 4877 MB | …" rows.
fn read_summary(low: &str, r: &mut Reading, gb: &mut bool) {
    if !low.contains("memory summary") && !low.contains("| allocated memory") {
        return;
    }
    let mut found = false;
    for line in low.lines().take(20_000) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 {
            continue;
        }
        let peak = size_at(cells[3], gb);
        match cells[1] {
            "allocated memory" => {
                r.numbers.peak_allocated = peak;
                found = true;
            }
            "gpu reserved memory" | "reserved memory" => {
                r.numbers.peak_reserved = peak;
                found = true;
            }
            _ => {}
        }
    }
    if found {
        r.formats.push(Format::MemorySummary);
    }
}

/// A memory figure a training log prints on its step lines: `'memory(GiB)': 38.62`, `mem: 12.3G`,
/// `max_memory_allocated 12 GB`, `Free GPU ram: 13722.5`, `gb_free=20.3`.
fn read_log_series(low: &str, r: &mut Reading) {
    let keys = [
        "'memory(gib)':",
        "max_memory_allocated",
        "memory_allocated",
        "mem_alloc",
        "gpu_mem",
        "memory:",
        "mem:",
        "mem=",
        "free gpu ram:",
        "gb_free=",
    ];
    for key in keys {
        let mut series = Vec::new();
        let mut rest = low;
        while let Some(i) = rest.find(key) {
            rest = &rest[i + key.len()..];
            let s = rest.trim_start_matches([' ', '=', ':', '"', '\'']);
            if let Some((v, _)) = number_at(s) {
                if series.len() < 10_000 {
                    series.push(v);
                }
            }
        }
        if series.len() >= 2 {
            // Free memory falling is memory in use growing.
            if key.contains("free") {
                series.iter_mut().for_each(|v| *v = -*v);
            }
            r.numbers.log_series = series;
            r.formats.push(Format::TrainingLog);
            return;
        }
    }
}

/// Tracebacks and code: where the OOM happened, what the loop keeps.
fn read_signals(low: &str, r: &mut Reading) {
    let s = &mut r.signals;
    let eval = [
        "in validate",
        "in validation",
        "in evaluate",
        "in evaluation",
        "in eval_",
        "in _eval",
        "in valid",
        "validation_step",
        "prediction_step",
        "evaluation_loop",
        "in test_step",
        "in _run_eval",
        "valid (loss",
        "validating",
    ];
    s.evaluation = eval.iter().any(|p| low.contains(p));
    s.generation = low.contains("in generate") || low.contains(".generate(") || low.contains("in sample");
    s.backward = low.contains("backward");
    s.engine = ["sglang", "vllm", "sgl-workspace"].iter().any(|p| low.contains(p));
    let keep = [
        ".append(loss",
        "losses.update(loss",
        "+= loss\n",
        "torch.cat((y_pred",
        "torch.cat((pred",
        "torch.cat((outputs",
        "new cycle",
    ];
    s.accumulation = keep.iter().any(|p| low.contains(p)) || low.contains("accumulate") && low.contains("torch.cat");
    let long = ["longest", "max_duration", "single_longest_cut", "long sample", "longer sequence"];
    s.long_sample = long.iter().any(|p| low.contains(p));
    r.numbers.steps_done = steps_done(low);
}

/// The most steps a log shows done: tqdm's "| 80/2010 [", fairseq's "epoch 001:  16634 / 210883",
/// `'global_step': 79`, "step 600" (the last few hundred occurrences of each are looked at).
fn steps_done(low: &str) -> Option<f64> {
    let mut most: Option<f64> = None;
    let mut note = |v: f64| most = Some(most.map_or(v, |m: f64| m.max(v)));
    for key in ["global_step': ", "global_step=", "step ", "step: ", "iteration "] {
        let mut rest = low;
        for _ in 0..256 {
            let Some(i) = rest.find(key) else { break };
            rest = &rest[i + key.len()..];
            if let Some((v, used)) = number_at(rest) {
                // "step 3/100" counts; "step 0.5 s" and "step 12 of a recipe" do too (harmless).
                if used <= 12 && v.fract() == 0.0 && v >= 0.0 {
                    note(v);
                }
            }
        }
    }
    // "N/M [" (tqdm) and "epoch …: N / M".
    let mut rest = low;
    for _ in 0..4096 {
        let Some(i) = rest.find('/') else { break };
        let head = &rest[..i];
        let tail = &rest[i + 1..];
        rest = tail;
        let digits = head.trim_end();
        let start = digits.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (Ok(done), Some((of, used))) = (digits[start..].parse::<f64>(), number_at(tail)) else { continue };
        let after = tail[used..].trim_start();
        let progress = after.starts_with('[')
            || digits[..start].trim_end().ends_with(':') && after.starts_with(|c: char| c.is_ascii_alphabetic());
        if progress && done <= of && of > 1.0 {
            note(done);
        }
    }
    most
}

#[cfg(test)]
mod tests {
    use super::{number_at, read, size_at, Format};

    #[test]
    fn sizes_in_every_unit() {
        let mut gb = false;
        assert_eq!(size_at("20.00 MiB.", &mut gb), Some(20.0 * 1024.0 * 1024.0));
        assert_eq!(size_at("0 bytes is", &mut gb), Some(0.0));
        assert_eq!(size_at("5371MiB |", &mut gb), Some(5371.0 * 1048576.0));
        assert!(!gb);
        assert_eq!(size_at("1.45 GB,", &mut gb), Some(1.45 * 1073741824.0));
        assert!(gb, "GB is read as GiB and said");
        assert_eq!(number_at("130,674.91"), Some((130674.91, 10)));
        assert_eq!(size_at("GiB", &mut gb), None);
    }

    #[test]
    fn a_torch_22_message_with_a_container_process_line() {
        let r = read("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 546.00 MiB. GPU 0 has a total capacity of 15.77 GiB of which 514.19 MiB is free. Process 562167 has 15.25 GiB memory in use. Of the allocated memory 13.73 GiB is allocated by PyTorch, with 46.00 MiB allocated in private pools (e.g., CUDA Graphs), and 736.86 MiB is reserved by PyTorch but unallocated.");
        assert_eq!(r.formats, vec![Format::Torch22]);
        let n = &r.numbers;
        let mib = 1048576.0;
        assert_eq!(n.tried_to_allocate, Some(546.0 * mib));
        assert_eq!(n.free, Some(514.19 * mib));
        assert_eq!(n.processes, vec![(562167, 15.25 * 1024.0 * mib)]);
        assert_eq!(n.private_pools, Some(46.0 * mib));
        assert_eq!(n.reserved_unallocated, Some(736.86 * mib));
    }
}
