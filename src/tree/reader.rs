//! Reading what a user pastes after an OOM: PyTorch's out-of-memory messages of every layout since
//! 1.x (and HIP's, and MPS's on Apple), nvidia-smi (table, CSV, gpustat), `torch.cuda.memory_summary()`,
//! training logs, tracebacks, and the serving engines' start-up errors. Only numbers and a few
//! signals come out; the text itself is never kept, rendered or executed. Bounded: at most
//! [`MAX_TEXT`] bytes are read, in one pass per phrase (no regular expressions).

use crate::ledger::msg::MsgId;
use crate::ledger::units::{find, has, occurrences};

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
    /// Numbers typed into the form (peak allocated, peak reserved, nvidia-smi's used, the total).
    Typed,
    /// vLLM's sleep mode could not map its memory back at `wake_up` ("CUDA Error: out of memory at
    /// …/cumem_allocator.cpp"): a rollout engine beside a trainer.
    VllmWakeUp,
    /// vLLM ran out of memory warming its sampler up ("… when warming up sampler with N dummy
    /// requests").
    VllmSampler,
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
            Format::Typed => "typed",
            Format::VllmWakeUp => "vllm_wake_up",
            Format::VllmSampler => "vllm_sampler",
        }
    }

    pub fn from_id(id: &str) -> Option<Format> {
        FORMATS.iter().copied().find(|f| f.id() == id)
    }
}

pub const FORMATS: [Format; 18] = [
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
    Format::Typed,
    Format::VllmWakeUp,
    Format::VllmSampler,
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
    /// The operating system killed the process (SIGKILL, exit code −9, the kernel's OOM killer):
    /// host RAM, not the GPU.
    pub host_killed: bool,
    /// The engine runs inside a trainer (TRL's GRPO, verl, OpenRLHF, Unsloth, ms-swift's RLHF): a
    /// rollout engine sharing the card with the training step.
    pub trainer: bool,
    /// The paste comes from Ollama, which chooses the layers it offloads itself.
    pub ollama: bool,
    /// The reporter says memory grows from step to step (a leak, "keeps increasing", 越来越多).
    pub grows: bool,
    /// The reporter says another process holds the card (another job, a leftover run, 进程占用).
    pub others_hold: bool,
    /// The message lists processes on this GPU whose PIDs follow one another: the ranks of one
    /// launch (torchrun, accelerate) all on the same device.
    pub ranks_share_gpu: bool,
    /// The reporter says the allocator's expandable segments made it run (beyond the hint PyTorch's
    /// own message prints).
    pub expandable_helped: bool,
    /// The reporter says a serving engine took (nearly) all of the card's memory: what its
    /// budget does by design ([`ENGINE_RESERVES`]).
    pub engine_reserves: bool,
    /// The user's answers to the tree's questions (`#answer key=value` lines, [`Answer`]): which
    /// were answered, and what they say beyond the signals above: the calculator's configuration
    /// is the run's.
    pub answered: [bool; Answer::COUNT],
    pub page_setup: bool,
}

/// What the tree asks when a paste does not say enough (`super::paste::questions`), each answered
/// on a line `#answer key=value` that the page appends to the paste (the reader reads them as it
/// reads the reporter's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `killed=gpu|host`: a GPU out-of-memory, or the process killed (host RAM).
    Killed,
    /// `when=load|first|later|eval`.
    When,
    /// `grew=yes|no`: memory grew from step to step.
    Grew,
    /// `others=yes|no`: other processes on the GPU.
    Others,
    /// `engine=yes|no`: a serving engine.
    Engine,
    /// `setup=page|no`: the calculator's configuration is the run's.
    Setup,
}

impl Answer {
    pub const COUNT: usize = 6;
    pub const ALL: [Answer; Answer::COUNT] =
        [Answer::Killed, Answer::When, Answer::Grew, Answer::Others, Answer::Engine, Answer::Setup];

    pub fn key(self) -> &'static str {
        match self {
            Answer::Killed => "killed",
            Answer::When => "when",
            Answer::Grew => "grew",
            Answer::Others => "others",
            Answer::Engine => "engine",
            Answer::Setup => "setup",
        }
    }

    /// The question's text.
    pub fn ask(self) -> MsgId {
        match self {
            Answer::Killed => MsgId::AskKilled,
            Answer::When => MsgId::AskWhen,
            Answer::Grew => MsgId::AskGrew,
            Answer::Others => MsgId::AskOthers,
            Answer::Engine => MsgId::AskEngine,
            Answer::Setup => MsgId::AskSetup,
        }
    }

    /// The values it takes, as the page's buttons write them, with each button's text.
    pub fn values(self) -> &'static [(&'static str, MsgId)] {
        const YES_NO: &[(&str, MsgId)] = &[("yes", MsgId::AnsYes), ("no", MsgId::AnsNo)];
        match self {
            Answer::Killed => &[("gpu", MsgId::AnsGpu), ("host", MsgId::AnsHost)],
            Answer::When => &[
                ("load", MsgId::AnsLoad),
                ("first", MsgId::AnsFirst),
                ("later", MsgId::AnsLater),
                ("eval", MsgId::AnsEval),
            ],
            Answer::Setup => &[("page", MsgId::AnsYes), ("no", MsgId::AnsNo)],
            _ => YES_NO,
        }
    }
}

/// The user's answers, one a line `#answer key=value` (a value the question does not take is not
/// an answer), into the signals they stand for.
fn read_answers(low: &str, s: &mut Signals) {
    for line in low.lines() {
        let Some((key, value)) = line.trim().strip_prefix("#answer ").and_then(|a| a.trim().split_once('=')) else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        let Some(q) = Answer::ALL.into_iter().find(|q| q.key() == key && q.values().iter().any(|v| v.0 == value))
        else {
            continue;
        };
        s.answered[q as usize] = true;
        let yes = value == "yes";
        match (q, value) {
            (Answer::Killed, v) => {
                s.host_killed |= v == "host";
                s.oom |= v == "gpu";
            }
            // Loading and the first step say no more than that they were answered.
            (Answer::When, "load" | "first") => {}
            // The run was going: the usual step fit (as "partway" in words).
            (Answer::When, "later") => s.long_sample = true,
            (Answer::When, _) => s.evaluation = true,
            (Answer::Grew, _) => s.grows |= yes,
            (Answer::Others, _) => s.others_hold |= yes,
            (Answer::Engine, _) => s.engine |= yes,
            (Answer::Setup, v) => s.page_setup = v == "page",
        }
    }
}

/// Everything read from a paste.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    pub formats: Vec<Format>,
    pub numbers: Numbers,
    pub signals: Signals,
    /// A serving engine's start-up figures and settings, then the configuration the report
    /// describes (`super::described`), as the link writes them (empty: none):
    /// [`super::startup::Startup::from_items`] and [`super::described::query`] read them where
    /// they are checked, so the page, which only carries a reading from the worker into its link,
    /// has no code for them.
    pub startup: String,
}

impl Reading {
    pub fn has(&self, f: Format) -> bool {
        self.formats.contains(&f)
    }
}

const KIB: f64 = 1024.0;

/// A number at the start of `s` (after spaces): digits, one point, digits; with its length.
pub(crate) fn number_at(s: &str) -> Option<(f64, usize)> {
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
    let v = crate::ledger::units::parse_decimal(&text)?;
    (v.is_finite() && i > start_digits).then_some((v, skipped + i))
}

/// A size ("12.34 GiB", "5371MiB", "0 bytes") at the start of `s`, in bytes; "GB"/"MB" are read
/// as binary units (`gb` is set), as the tools that print them mean.
pub(crate) fn size_at(s: &str, gb: &mut bool) -> Option<f64> {
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

/// Where the last `phrase` starts: forward searches from one match to the next (`str::rfind` would
/// link a second, reverse string searcher into the wasm).
pub(crate) fn last(low: &str, phrase: &str) -> Option<usize> {
    let mut found = None;
    let mut from = 0;
    while let Some(i) = find(&low[from..], phrase) {
        found = Some(from + i);
        from += i + phrase.len().max(1);
        if from > low.len() {
            break;
        }
    }
    found
}

/// The text after the last `phrase` in `low` (the lowercased text), as a slice of `low`.
pub(crate) fn after_last<'a>(low: &'a str, phrase: &str) -> Option<&'a str> {
    last(low, phrase).map(|i| &low[i + phrase.len()..])
}

/// A size right after the last `phrase`.
fn size_after(low: &str, phrase: &str, gb: &mut bool) -> Option<f64> {
    size_at(after_last(low, phrase)?, gb)
}

/// A size right before `phrase` (the last occurrence): "… 13.29 GiB already allocated".
pub(crate) fn size_before(low: &str, phrase: &str, gb: &mut bool) -> Option<f64> {
    let i = last(low, phrase)?;
    let head = low[..i].trim_end();
    // Back over the unit and the number.
    let unit = head.trim_end_matches(|c: char| c.is_ascii_alphabetic()).trim_end();
    let start = unit.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',').len();
    let start = start + unit[start..].find(|c: char| c.is_ascii_digit())?;
    size_at(&head[start..], gb)
}

/// The last `(a/b GiB)`-style pair after `phrase`: "Free memory on device (0.49/79.32 GiB)".
pub(crate) fn pair_after(low: &str, phrase: &str, gb: &mut bool) -> Option<(f64, f64)> {
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
            if let Some(close) = find(rest, "]:") {
                l = rest[close + 2..].trim_start();
            }
        }
        if l.starts_with('(') {
            if let Some(close) = find(l, ") ").filter(|&i| has(&l[..i], "pid=")) {
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
pub(crate) fn window(s: &str, from: usize, to: usize) -> &str {
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
    // What the reporter says in words is looked for where words are: around the log.
    let words = prose(&low);
    let mut r = Reading { signals: Signals { truncated, ..Signals::default() }, ..Reading::default() };
    let mut gb = false;
    read_torch(&low, &mut r, &mut gb);
    read_mps(&low, &mut r, &mut gb);
    read_serving(&low, &mut r, &mut gb);
    read_smi(&low, &mut r, &mut gb);
    read_summary(&low, &mut r, &mut gb);
    read_log_series(&low, &mut r);
    read_signals(&low, &words, &mut r);
    // A trainer's traceback through the engine's wake-up (its error line cut off), or vLLM's sleep
    // mode telling what it kept: the rollout engine and the trainer share the card.
    let waking = has(&low, ".wake_up(") || has(&low, "in wake_up") || has(&low, "sleep mode freed");
    if r.signals.trainer && waking && !r.has(Format::VllmWakeUp) {
        r.formats.push(Format::VllmWakeUp);
    }
    r.startup = super::startup::read(&low, &mut gb).map(|st| st.to_items()).unwrap_or_default();
    // A start-up log's repeated memory lines ("… memory: …" per rank) are not a training run's
    // series of steps.
    if !r.startup.is_empty() && r.has(Format::TrainingLog) {
        r.formats.retain(|f| *f != Format::TrainingLog);
        r.numbers.log_series.clear();
    }
    // A start-up log is an engine's, whatever prefixes the reader removed.
    r.signals.engine |= !r.startup.is_empty();
    let described = super::described::read(&words);
    if !described.is_empty() {
        if !r.startup.is_empty() {
            r.startup.push(',');
        }
        r.startup.push_str(&described);
    }
    r.signals.gb_as_gib = gb;
    // An out-of-memory error without any message that carries numbers (nvidia-smi, a summary or a
    // log may be beside it).
    let with_numbers =
        r.formats.iter().any(|f| !matches!(f, Format::NvidiaSmi | Format::MemorySummary | Format::TrainingLog));
    // Ray's `ray.exceptions.OutOfMemoryError` is the node's RAM, not the GPU's.
    let cuda = has(&low, "cuda out of memory")
        || has(&low, "cuda error: out of memory")
        || has(&low, "outofmemoryerror") && !has(&low, "ray.exceptions.outofmemoryerror");
    let gpu_said = cuda || GPU_OOM_ZH.iter().any(|p| has(&low, p));
    // torchrun's "exitcode  : -9" / "Signal 9 (SIGKILL)", the kernel's "Out of memory: Killed process".
    // RAM that grows while a loss keeps its graph is the loop's (the tree's `.item()` lever), not
    // the host's size.
    let leak = r.signals.accumulation;
    r.signals.host_killed = host_ram(&low, &words, gpu_said, leak);
    let gpu_oom = has(&low, "out of memory") && (!r.signals.host_killed || cuda);
    // cuBLAS failing to create its handle for want of memory (`cublasCreate` returns
    // CUBLAS_STATUS_ALLOC_FAILED when "the resources could not be allocated"; PyTorch and
    // llama.cpp's ggml-cuda print NOT_INITIALIZED for the same failure at a full card).
    let cublas = has(&low, "cublas_status_alloc_failed")
        || has(&low, "cublas_status_not_initialized") && has(&low, "cublascreate");
    if !with_numbers && gpu_oom || r.formats.is_empty() && (has(&low, "cudaerrormemoryallocation") || cublas) {
        r.formats.push(Format::Bare);
    }
    r.signals.oom = has(&low, "out of memory")
        || has(&low, "outofmemoryerror")
        || has(&low, " oom")
        || OOM_ZH.iter().any(|p| has(&words, p))
        || gpu_said
        || !r.formats.is_empty();
    // The user's answers to the tree's questions, last: they say what the paste did not.
    read_answers(&low, &mut r.signals);
    r
}

/// What names a trainer that runs a rollout engine beside its step: its modules, classes and
/// settings as tracebacks and logs print them.
const ROLLOUT_TRAINERS: [&str; 17] = [
    "grpotrainer",
    "grpo_trainer",
    "rloo_trainer",
    "trl/generation",
    "vllm_mode",
    "vllm_gpu_memory_utilization",
    "verl/",
    "verl.",
    "fsdp_vllm",
    "sharding_manager",
    "openrlhf",
    "unsloth",
    "rollout",
    "rlhf_trainer",
    "swift rlhf",
    "colocate",
    // vLLM's sleep mode, which exists for a trainer sharing the card: "Sleep mode freed X GiB".
    "sleep mode freed",
];

/// What the operating system prints when it kills a process for host RAM.
const HOST_KILLED: [&str; 23] = [
    "sigkill",
    "exitcode  : -9",
    "exitcode: -9",
    "exitcode -9",
    "exit code -9",
    "error code -9",
    "killed process",
    "oom-kill",
    "oom_kill",
    // A container's kill (128 + 9) as Docker and Kubernetes report it.
    "exit code 137",
    "oomkilled",
    // Ray's memory monitor kills a worker when the node's RAM runs low.
    "killed due to the node running low on memory",
    "killed due to memory pressure",
    // The C library's ENOMEM through PyTorch's CPU allocator; ggml's CPU buffers.
    "defaultcpuallocator: can't allocate memory",
    "cannot allocate memory",
    "cpu_buffer_type_alloc_buffer: failed to allocate",
    // Said in words.
    "cpu memory oom",
    "host memory oom",
    "cpu oom",
    // Ray's memory monitor's report: "Memory on the node (IP: …) where the task … was running was
    // X / Y GB (0.95)".
    "memory on the node (ip:",
    "memory on the node ( id:",
    "ray killed this worker",
    // Colab's message when the host RAM runs out.
    "after using all available ram",
];

/// The host's RAM running out or growing, in words (内存 is RAM; 显存 is the GPU's).
const HOST_RAM_WORDS: [&str; 24] = [
    "内存爆",
    "内存不足",
    "内存溢出",
    "内存泄漏",
    "内存会一直增长",
    "cpu 内存",
    "cpu内存",
    "主机内存",
    "系统内存",
    "服务器死机",
    "ram usage",
    " rss",
    "cpu ram",
    "system ram",
    "host ram",
    "out of ram",
    "cpu mem",
    "内存不够",
    "爆内存",
    "被kill",
    "被杀",
    // Ray's OOM is the node's RAM (its memory monitor).
    "ray oom",
    "ray::oom",
    // "Main memory": the host's.
    "主内存",
];

/// "OOM" in Chinese prose, where no space sets it off ("报OOM", "OOM了").
const OOM_ZH: [&str; 5] = ["报oom", "oom了", "出现oom", "会oom", "就oom"];

/// Chinese for the GPU's memory running out, as people write it beside (or instead of) the error.
/// "显存还不够" / "显存都不够" ("still" / "even then not enough") state it; a bare "显存不够" is as
/// often the question "是因为显存不够吗" about a run killed for another reason.
const GPU_OOM_ZH: [&str; 8] =
    ["显存不足", "爆显存", "显存爆", "显存溢出", "超过显存", "超出显存", "显存还不够", "显存都不够"];

/// The host's RAM ran out: a message or phrase of [`HOST_KILLED`], the shell's "Killed" at the end of
/// a line (after a progress bar), DeepSpeed's "CPU Virtual Memory: … percent = 95%" at 90 % or more,
/// or a RAM phrase in `words` (the paste's [`prose`]) when no GPU message is in the paste and
/// nothing shows a loss kept with its graph (`leak`).
fn host_ram(low: &str, words: &str, gpu: bool, leak: bool) -> bool {
    let said = HOST_KILLED.iter().any(|p| has(low, p));
    let shell = low.lines().take(20_000).any(|l| {
        let l = l.trim();
        l == "killed" || l.ends_with("]killed")
    });
    let deepspeed = after_last(low, "cpu virtual memory:")
        .and_then(|rest| after_last(window(rest, 0, 80), "percent ="))
        .and_then(number_at)
        .is_some_and(|(p, _)| p >= 90.0);
    let in_words = !gpu && !leak && HOST_RAM_WORDS.iter().any(|p| has(words, p));
    said || shell || deepspeed || in_words
}

/// A figure of [`Numbers`] that a phrase of a message gives.
#[derive(Clone, Copy)]
enum F {
    Tried,
    Total,
    Free,
    Process,
    Allocated,
    Reserved,
    Unallocated,
    Pools,
    Allowed,
    MpsAllocated,
    MpsOther,
    MpsMax,
    MaxLen,
    KvTokens,
    KvNeeded,
    KvAvailable,
    EstimatedLen,
    Utilization,
    Weights,
    SmiUsed,
    SmiTotal,
    PeakAllocated,
    PeakReserved,
    Requested,
    LlamaAlloc,
    StepsDone,
}

impl F {
    /// Every figure, in the order a link writes them (its index is its letter there, from `a`).
    const ALL: [F; 26] = [
        F::Tried,
        F::Total,
        F::Free,
        F::Process,
        F::Allocated,
        F::Reserved,
        F::Unallocated,
        F::Pools,
        F::Allowed,
        F::MpsAllocated,
        F::MpsOther,
        F::MpsMax,
        F::MaxLen,
        F::KvTokens,
        F::KvNeeded,
        F::KvAvailable,
        F::EstimatedLen,
        F::Utilization,
        F::Weights,
        F::SmiUsed,
        F::SmiTotal,
        F::PeakAllocated,
        F::PeakReserved,
        F::Requested,
        F::LlamaAlloc,
        F::StepsDone,
    ];
}

/// Where the figure sits: a size after the phrase, a size before it, a plain number after it.
#[derive(Clone, Copy, PartialEq)]
enum At {
    Size,
    SizeBefore,
    Number,
}

type Rule = (F, At, &'static str);

impl Numbers {
    fn slot(&mut self, f: F) -> &mut Option<f64> {
        match f {
            F::Tried => &mut self.tried_to_allocate,
            F::Total => &mut self.total,
            F::Free => &mut self.free,
            F::Process => &mut self.process,
            F::Allocated => &mut self.allocated,
            F::Reserved => &mut self.reserved,
            F::Unallocated => &mut self.reserved_unallocated,
            F::Pools => &mut self.private_pools,
            F::Allowed => &mut self.allowed,
            F::MpsAllocated => &mut self.mps_allocated,
            F::MpsOther => &mut self.mps_other,
            F::MpsMax => &mut self.mps_max_allowed,
            F::MaxLen => &mut self.max_model_len,
            F::KvTokens => &mut self.kv_tokens,
            F::KvNeeded => &mut self.kv_needed,
            F::KvAvailable => &mut self.kv_available,
            F::EstimatedLen => &mut self.estimated_max_len,
            F::Utilization => &mut self.utilization,
            F::Weights => &mut self.weights,
            F::SmiUsed => &mut self.smi_used,
            F::SmiTotal => &mut self.smi_total,
            F::PeakAllocated => &mut self.peak_allocated,
            F::PeakReserved => &mut self.peak_reserved,
            F::Requested => &mut self.requested,
            F::LlamaAlloc => &mut self.llama_alloc,
            F::StepsDone => &mut self.steps_done,
        }
    }
}

/// Applies a layout's rules to its text; a figure already read (by an earlier rule: the
/// alternatives of one figure are listed in order) is kept.
#[inline(never)]
fn apply(text: &str, rules: &[Rule], n: &mut Numbers, gb: &mut bool) {
    for &(f, at, phrase) in rules {
        let slot = n.slot(f);
        if slot.is_none() {
            *slot = match at {
                At::Size => size_after(text, phrase, gb),
                At::SizeBefore => size_before(text, phrase, gb),
                At::Number => after_last(text, phrase).and_then(number_at).map(|v| v.0),
            };
        }
    }
}

const TORCH22: &[Rule] = &[
    (F::Tried, At::Size, "tried to allocate"),
    (F::Total, At::Size, "total capacity of"),
    (F::Total, At::Size, "total capacty of"),
    (F::Free, At::Size, "of which"),
    (F::Process, At::Size, "this process has"),
    (F::Allocated, At::Size, "of the allocated memory"),
    (F::Pools, At::Size, "allocated by pytorch, with"),
    (F::Unallocated, At::SizeBefore, "is reserved by pytorch but unallocated"),
    (F::Unallocated, At::Size, "allocated by pytorch, and"),
    (F::Allowed, At::SizeBefore, "allowed;"),
];
const TORCH15: &[Rule] = &[
    (F::Tried, At::Size, "tried to allocate"),
    (F::Total, At::SizeBefore, "total capacity;"),
    (F::Allocated, At::SizeBefore, "already allocated"),
    (F::Free, At::SizeBefore, "free;"),
    (F::Free, At::SizeBefore, "free)"),
    (F::Allowed, At::SizeBefore, "allowed;"),
    (F::Reserved, At::SizeBefore, "reserved in total by"),
    // Before 1.5: "cached", which excludes what is allocated.
    (F::Unallocated, At::SizeBefore, "cached)"),
];
const MPS: &[Rule] = &[
    (F::MpsAllocated, At::Size, "mps allocated:"),
    (F::MpsOther, At::Size, "other allocations:"),
    (F::MpsMax, At::Size, "max allowed:"),
    (F::Tried, At::Size, "tried to allocate"),
];
const VLLM_KV: &[Rule] = &[
    (F::MaxLen, At::Number, "max seq len ("),
    (F::KvTokens, At::Number, "stored in kv cache ("),
    (F::KvNeeded, At::Size, "), ("),
    (F::KvAvailable, At::Size, "available kv cache memory ("),
    (F::EstimatedLen, At::Number, "estimated maximum model length is"),
];
const VLLM_POOL: &[Rule] = &[
    (F::KvAvailable, At::Size, "available kv cache memory:"),
    (F::KvAvailable, At::Size, "reserved for kv cache is"),
    (F::Total, At::Size, "total_gpu_memory ("),
    (F::Utilization, At::Number, "x gpu_memory_utilization ("),
    (F::Weights, At::Size, "model weights take"),
    (F::Weights, At::Size, "model loading took"),
];
const SGLANG: &[Rule] = &[
    (F::KvTokens, At::Number, "is larger than the profiled value"),
    (F::Utilization, At::Number, "mem_fraction_static="),
    (F::Free, At::Size, "avail mem="),
    (F::Weights, At::Size, "mem usage="),
];

fn read_torch(low: &str, r: &mut Reading, gb: &mut bool) {
    let Some(at) = last(low, "tried to allocate") else { return };
    // A message wrapped by the terminal or the issue tracker: "18.33\nGiB reserved".
    let joined = window(low, at, at + 4000).replace('\n', " ");
    let msg = joined.as_str();
    let n = &mut r.numbers;
    if has(msg, "has a total capacity of") || has(msg, "has a total capacty of") {
        r.formats.push(if has(msg, "capacty") { Format::Torch21 } else { Format::Torch22 });
        apply(msg, TORCH22, n, gb);
        let mut rest = msg;
        while let Some(i) = find(rest, "process ") {
            rest = &rest[i + 8..];
            let Some((pid, used)) = number_at(rest) else { continue };
            let Some(bytes) = rest[used..].trim_start().strip_prefix("has").and_then(|h| size_at(h, gb)) else {
                continue;
            };
            if n.processes.len() < 64 {
                n.processes.push((pid.max(0.0) as u64, bytes));
            }
        }
        if let (Some(a), Some(u)) = (n.allocated, n.reserved_unallocated) {
            n.reserved = Some(a + u);
        }
    } else if has(msg, "total capacity;") {
        apply(msg, TORCH15, n, gb);
        let allocated = n.allocated.unwrap_or(0.0);
        if let Some(reserved) = n.reserved {
            r.formats.push(Format::Torch15);
            n.reserved_unallocated = Some((reserved - allocated).max(0.0));
        } else if let Some(cached) = n.reserved_unallocated {
            r.formats.push(Format::Torch14);
            n.reserved = Some(allocated + cached);
        }
    }
}

fn read_mps(low: &str, r: &mut Reading, gb: &mut bool) {
    let Some(at) = last(low, "mps backend out of memory") else { return };
    r.formats.push(Format::Mps);
    apply(window(low, at, at + 1000), MPS, &mut r.numbers, gb);
}

fn read_serving(low: &str, r: &mut Reading, gb: &mut bool) {
    let n = &mut r.numbers;
    if let Some(at) = last(low, "max seq len (") {
        let msg = window(low, at, at + 1000);
        let format = if has(msg, "stored in kv cache (") {
            Some(Format::VllmKv)
        } else {
            has(msg, "kv cache is needed").then_some(Format::VllmKvV1)
        };
        if let Some(f) = format {
            r.formats.push(f);
            apply(msg, VLLM_KV, n, gb);
        }
    }
    // The pool came out empty or negative: the error itself, "# GPU blocks: 0", a negative figure.
    apply(low, &VLLM_POOL[..2], n, gb);
    let no_blocks = ["no available memory for the cache blocks", "# gpu blocks: 0,", "# cuda blocks: 0,"];
    if no_blocks.iter().any(|p| has(low, p)) || n.kv_available.is_some_and(|kv| kv <= 0.0) {
        r.formats.push(Format::VllmNoBlocks);
        apply(low, VLLM_POOL, n, gb);
    }
    // Sleep mode's allocator could not map memory back (verl, OpenRLHF, Unsloth: at `wake_up`).
    if has(low, "cumem_allocator") && has(low, "out of memory") || has(low, "wake_up") && has(low, "out of memory") {
        r.formats.push(Format::VllmWakeUp);
    }
    if has(low, "when warming up sampler") {
        r.formats.push(Format::VllmSampler);
    }
    // The error ("… on startup is less than desired GPU memory utilization …"), not the line that
    // newer releases print at every start ("… on startup. Desired GPU memory utilization is …").
    let short = has(low, "less than desired gpu memory") || has(low, "on startup is less");
    if let Some((free, total)) = pair_after(low, "free memory on device", gb).filter(|_| short) {
        r.formats.push(Format::VllmFreeMemory);
        n.free = Some(free);
        n.total = Some(total);
        if let Some(rest) = after_last(low, "desired gpu memory utilization (") {
            n.utilization = number_at(rest).map(|v| v.0);
            n.requested = rest.find(',').and_then(|i| size_at(&rest[i + 1..], gb));
        }
    }
    let sglang = has(low, "mem-fraction-static") && (has(low, "not enough memory") || has(low, "leave no gpu memory"));
    if sglang || has(low, "is larger than the profiled value") {
        r.formats.push(Format::Sglang);
        apply(low, SGLANG, n, gb);
    }
    if let Some(at) = last(low, "cudamalloc failed: out of memory") {
        r.formats.push(Format::Llamacpp);
        let line_start = low[..at].rfind('\n').map_or(0, |i| i + 1);
        n.llama_alloc = size_after(&low[line_start..at], "allocating", gb);
        let around = window(low, line_start.saturating_sub(2000), at + 600);
        n.llama_buffer = if has(around, "kv cache")
            && !has(window(around, around.len().saturating_sub(600), around.len()), "compute buffer")
        {
            Some(LlamaBuffer::Kv)
        } else if has(around, "compute buffer") || has(around, "graph_reserve") || has(around, "gallocr") {
            Some(LlamaBuffer::Compute)
        } else if has(around, "load_tensors") || has(around, "model buffer") {
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
        if let Some(slash) = find(line, "mib / ").or_else(|| find(line, " / ").filter(|_| has(line, "mb |"))) {
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
                    if has(line, " mb |") {
                        *gb = true;
                    }
                }
            }
        } else if let Some(p) = smi_process_row(line) {
            seen = true;
            if n.smi_processes.len() < 64 {
                n.smi_processes.push(p);
            }
        } else if has(line, "memory.used") && has(line, "memory.total") {
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
    let last = fields.last()?;
    let mem = last.strip_suffix("mib").unwrap_or(last);
    Some((fields[0].parse().ok()?, pid.parse().ok()?, crate::ledger::units::parse_decimal(mem)? * KIB * KIB))
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
    if !has(low, "memory summary") && !has(low, "| allocated memory") {
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
        while let Some(i) = find(rest, key) {
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
            if has(key, "free") {
                series.iter_mut().for_each(|v| *v = -*v);
            }
            r.numbers.log_series = series;
            r.formats.push(Format::TrainingLog);
            return;
        }
    }
}

/// Tracebacks and code: where the OOM happened, what the loop keeps.
/// `words`: the paste's [`prose`], where what the reporter says is looked for.
fn read_signals(low: &str, words: &str, r: &mut Reading) {
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
    let said = [
        "when evaluat",
        "during evaluat",
        "during eval ",
        "evaluation phase",
        "eval_accumulation_steps",
        "评估时",
        "评估阶段",
        "验证时",
        "验证阶段",
        "验证过程",
        "验证的过程",
        "eval阶段",
        "进入eval",
        // The Trainer's evaluation loop gathering every batch's logits (`compute_metrics`).
        "torch_pad_and_concatenate",
        "nested_concat",
        "compute_metrics",
        ".evaluate()",
    ];
    s.evaluation = eval.iter().any(|p| has(low, p)) || said.iter().any(|p| has(words, p));
    s.generation = has(low, "in generate") || has(low, ".generate(") || has(low, "in sample");
    s.backward = has(low, "backward");
    s.engine = ["sglang", "vllm", "sgl-workspace"].iter().any(|p| has(low, p))
        || ENGINES.iter().chain(&ENGINE_SHARE).any(|p| has(words, p));
    s.trainer = ROLLOUT_TRAINERS.iter().any(|p| has(low, p));
    s.ollama = has(low, "ollama");
    let keep = [
        ".append(loss",
        "losses.update(loss",
        "+= loss\n",
        "torch.cat((y_pred",
        "torch.cat((pred",
        "torch.cat((outputs",
        "new cycle",
    ];
    s.accumulation = keep.iter().any(|p| has(low, p))
        || has(low, "accumulate") && has(low, "torch.cat")
        || loss_summed_with_its_graph(low)
        || GRAPH_KEPT.iter().any(|p| has(words, p));
    // The reporter says the evaluation or inference ran without `torch.no_grad()`.
    s.evaluation |= no_grad_missing(words);
    let low = words;
    s.long_sample = LONG_SAMPLE.iter().any(|p| has(low, p));
    let per_step = ["each iteration", "every iteration", "each step", "every step", "every round"];
    s.grows = GROWS.iter().any(|p| has(low, p)) || has(low, "increas") && per_step.iter().any(|p| has(low, p));
    // PyTorch's message suggests the setting itself ("… try setting
    // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True …"): only a mention beyond those counts.
    let count = |phrase: &str| occurrences(low, phrase).count();
    let said = count("expandable segments") + count("expandable_segments");
    let hints = count("try setting pytorch_cuda_alloc_conf=expandable_segments");
    s.expandable_helped = said > hints
        && ["runs fine", "works", "worked", "fixed", "solved", "解决", "可以了"].iter().any(|p| has(low, p));
    s.others_hold = OTHERS_HOLD.iter().any(|p| has(low, p));
    s.engine_reserves = s.engine && ENGINE_RESERVES.iter().any(|p| has(words, p));
    s.ranks_share_gpu = ranks_of_one_launch(&r.numbers.processes);
    r.numbers.steps_done = steps_done(low);
    // An engine's share of the card as its command line sets it, when no message printed it.
    if s.engine && r.numbers.utilization.is_none() {
        r.numbers.utilization = ENGINE_SHARE.iter().find_map(|name| setting(low, name));
    }
}

/// How reporters and answers say that each step's autograd graph is kept (a loss summed without
/// `.item()`).
const GRAPH_KEPT: [&str; 7] = [
    "computational graph",
    "computation graph",
    "compution graph",
    "holding on to the graph",
    "non-detached",
    "计算图",
    "without .item()",
];

/// A line of code that adds a loss to a running total with its graph: `train_loss += output.loss`,
/// `running_loss += loss` (not `+= loss.item()`, `.detach()`, `float(…)`; not the Trainer's own
/// `tr_loss`, nor a model's `loss += aux_loss` inside a frame of its code). The first 20,000 lines.
fn loss_summed_with_its_graph(low: &str) -> bool {
    low.lines().take(20_000).any(|line| {
        let Some((left, right)) = line.split_once("+=") else { return false };
        let total = left.trim();
        let name_like = !total.is_empty() && total.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        let freed = [".item()", ".detach()", "float(", ".cpu()", ".numpy()", ".tolist()"];
        name_like
            && has(total, "loss")
            && !has(total, "tr_loss")
            && total != "loss"
            && has(right, "loss")
            && !freed.iter().any(|f| has(right, f))
    })
}

/// The reporter says `torch.no_grad()` / `inference_mode()` was missing or made the difference
/// ("there is not no_grad decorator", "whether with torch.inference_mode() is set or not",
/// 没有加 no_grad): one of the first 64 mentions with such a word just before it.
fn no_grad_missing(words: &str) -> bool {
    let missing = [
        "without", "not ", "no ", "missing", "forgot", "forget", "add ", "adding", "whether", "没有", "没加", "未加",
        "忘",
    ];
    ["no_grad", "inference_mode", "inference mode"].iter().any(|name| {
        occurrences(words, name).take(64).any(|at| {
            let before = window(words, at.saturating_sub(40), at);
            missing.iter().any(|w| has(before, w))
        })
    })
}

/// The bytes at each end of a long paste where its words are looked for (a reporter writes around
/// the log they paste; a 1 MiB log's middle is its lines).
const PROSE: usize = 64 * 1024;

/// The paste, or its first and last [`PROSE`] bytes when it is longer.
fn prose(low: &str) -> std::borrow::Cow<'_, str> {
    if low.len() <= 2 * PROSE {
        return std::borrow::Cow::Borrowed(low);
    }
    std::borrow::Cow::Owned(format!("{}\n{}", window(low, 0, PROSE), window(low, low.len() - PROSE, low.len())))
}

/// A long or unusual sample, as code names it and reporters say it.
const LONG_SAMPLE: [&str; 34] = [
    "longest",
    "max_duration",
    "single_longest_cut",
    "long sample",
    "longer sequence",
    "long text",
    "longer text",
    "some samples",
    "a few samples",
    "超长",
    "长文本",
    "过长",
    "太长",
    "较长",
    "长度不一",
    "个别样本",
    "很长",
    "某些样本",
    "某条数据",
    "if i remove that",
    "one huge",
    "高分辨率",
    // The run was going: the usual step fit.
    "halfway",
    "half way",
    "midway",
    "partway",
    "in the middle of training",
    "after a few epochs",
    "after several epochs",
    "到一半",
    "训着训着",
    "跑着跑着",
    "训练到第",
    // "运行到16%的时候": a progress bar's share when it failed.
    "%的时候",
];

/// Engines that reserve their KV cache from the card's memory at start-up, as pastes name them
/// (beyond vLLM and SGLang, whose names are looked for in the whole paste); an engine's share
/// setting ([`ENGINE_SHARE`]) names its engine too.
const ENGINES: [&str; 6] =
    ["lmdeploy", "text-generation-inference", "text-generation-launcher", "llama-cli", "llama-server", "llama.cpp"];

/// How reporters say a serving engine took the card's memory: vLLM's `--gpu-memory-utilization`
/// (0.9 by default), SGLang's `--mem-fraction-static` and TGI's `--cuda-memory-fraction` (1.0)
/// reserve that share at start-up for the KV cache, whatever the model needs.
const ENGINE_RESERVES: [&str; 24] = [
    "filled up",
    "fills up",
    "fill up the",
    "gets filled",
    "all the gpu memory",
    "all gpu memory",
    "all of the gpu memory",
    "all the vram",
    "all of the vram",
    "all available memory",
    "all available gpu memory",
    "entire gpu memory",
    "whole gpu memory",
    "90% of the gpu",
    "90% of gpu",
    "90% of the memory",
    "90% of vram",
    "so much vram",
    "so much gpu memory",
    "占满",
    "全部显存",
    "显存全占",
    "占用90%",
    "占了90%",
];

/// Two or more processes listed on the GPU whose PIDs are consecutive or nearly so (a launcher
/// starts its ranks one after another).
fn ranks_of_one_launch(processes: &[(u64, f64)]) -> bool {
    let pids: Vec<u64> = processes.iter().map(|p| p.0).filter(|pid| *pid > 0).collect();
    let (Some(lo), Some(hi)) = (pids.iter().min(), pids.iter().max()) else {
        return false;
    };
    pids.len() >= 2 && hi - lo <= 2 * pids.len() as u64
}

/// How reporters say that memory grows from step to step.
const GROWS: [&str; 26] = [
    "memory leak",
    "leaking memory",
    "memory keeps",
    "memory increases",
    "memory grows",
    "memory growth",
    "gradually increas",
    "keeps increasing",
    "keeps growing",
    "increases every",
    "increases with each",
    "detach()",
    "显存泄漏",
    "显存泄露",
    "显存一直增",
    "显存不断增",
    "显存逐渐增",
    "显存持续增",
    "越来越大",
    "越来越多",
    "一直增加",
    "不断增加",
    "逐步增加",
    "一直累积",
    "显存累积",
    "往上涨",
];

/// How reporters say that another process holds the card.
const OTHERS_HOLD: [&str; 16] = [
    "another process",
    "other process",
    "another program",
    "other program",
    "another user",
    "other users",
    "zombie",
    "leftover process",
    "kill -9",
    "pkill",
    "其他进程",
    "别的进程",
    "另一个进程",
    "僵尸进程",
    "进程占用",
    "杀掉",
];

/// The engines' settings for their share of the card (vLLM's, SGLang's, TGI's), as command lines and
/// Python calls write them.
const ENGINE_SHARE: [&str; 6] = [
    "gpu-memory-utilization",
    "gpu_memory_utilization",
    "mem-fraction-static",
    "mem_fraction_static",
    "cuda-memory-fraction",
    "cuda_memory_fraction",
];

/// The number a setting is given on a command line or in a call: `--name 0.9`, `--name=0.9`,
/// `name=0.9`, `name: 0.9` (the last occurrence; a share of the card, so at most 1).
fn setting(low: &str, name: &str) -> Option<f64> {
    let rest = after_last(low, name)?;
    let rest = rest.trim_start_matches([' ', '=', ':', '"', '\'']);
    number_at(rest).map(|v| v.0).filter(|v| *v > 0.0 && *v <= 1.0)
}

/// The most steps a log shows done: tqdm's "| 80/2010 [", fairseq's "epoch 001:  16634 / 210883",
/// `'global_step': 79`, "step 600" (the last few hundred occurrences of each are looked at).
fn steps_done(low: &str) -> Option<f64> {
    let mut most: Option<f64> = None;
    let mut note = |v: f64| most = Some(most.map_or(v, |m: f64| m.max(v)));
    for key in ["global_step': ", "global_step=", "step ", "step: ", "iteration "] {
        let mut rest = low;
        for _ in 0..256 {
            let Some(i) = find(rest, key) else { break };
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
        let (Ok(done), Some((of, used))) = (digits[start..].parse::<u64>().map(|d| d as f64), number_at(tail)) else {
            continue;
        };
        let after = tail[used..].trim_start();
        let progress = after.starts_with('[')
            || digits[..start].trim_end().ends_with(':') && after.starts_with(|c: char| c.is_ascii_alphabetic());
        if progress && done <= of && of > 1.0 {
            note(done);
        }
    }
    most
}

// ---------------------------------------------------------------------------------------------
// The `oom=` key of a link: what was read, never the text. Items joined by ',': a lowercase
// letter for a figure of [`F::ALL`] and its value (bytes rounded; tokens, steps; a utilization to
// 3 decimals), `F` the layouts and `X` the signals as bit sets, `B` llama.cpp's buffer, `P` a
// "Process N has" size, `G<gpu>:<bytes>` an nvidia-smi process, `L` / `S` a log's / nvidia-smi's
// series point.

const SIGNALS: usize = 24;

impl Signals {
    fn bits(&mut self) -> [&mut bool; SIGNALS] {
        let [a0, a1, a2, a3, a4, a5] = &mut self.answered;
        [
            &mut self.evaluation,
            &mut self.generation,
            &mut self.backward,
            &mut self.accumulation,
            &mut self.long_sample,
            &mut self.engine,
            &mut self.gb_as_gib,
            &mut self.truncated,
            &mut self.oom,
            &mut self.host_killed,
            &mut self.trainer,
            &mut self.ollama,
            &mut self.grows,
            &mut self.others_hold,
            &mut self.ranks_share_gpu,
            &mut self.expandable_helped,
            a0,
            a1,
            a2,
            a3,
            a4,
            a5,
            &mut self.page_setup,
            &mut self.engine_reserves,
        ]
    }
}

/// A value for a link: an integer, or 3 decimals when it has a fraction (a byte count of a million
/// or more is a whole number).
pub(crate) fn link_value(v: f64) -> String {
    let v = crate::ledger::units::within(v, -1e18, 1e18);
    let r = v.round();
    if (v - r).abs() < 1e-9 || r.abs() >= 1e6 {
        format!("{}", r as i64)
    } else {
        format!("{}{}", if v < 0.0 { "-" } else { "" }, crate::ledger::units::fixed(v.abs(), 3))
    }
}

impl Reading {
    /// The `oom=` value that gives this reading back (lists and series cut to 64 entries). The
    /// reader worker sends it to the page, which keeps it as sent.
    pub fn to_link(&self) -> String {
        let cap = 64;
        let mut items: Vec<String> = Vec::new();
        let mut n = self.numbers.clone();
        for (i, f) in F::ALL.iter().enumerate() {
            if let Some(v) = *n.slot(*f) {
                items.push(format!("{}{}", (b'a' + i as u8) as char, link_value(v)));
            }
        }
        let bits = |flags: &mut dyn Iterator<Item = bool>| {
            flags.enumerate().fold(0u64, |acc, (i, on)| acc | (u64::from(on) << i))
        };
        items.push(format!("F{}", bits(&mut FORMATS.iter().map(|f| self.has(*f)))));
        let mut sig = self.signals;
        items.push(format!("X{}", bits(&mut sig.bits().into_iter().map(|b| *b))));
        if let Some(b) = n.llama_buffer {
            items.push(format!("B{}", b as u8));
        }
        items.extend(n.processes.iter().take(cap).map(|p| format!("P{}", link_value(p.1))));
        items.extend(n.smi_processes.iter().take(cap).map(|p| format!("G{}:{}", p.0, link_value(p.2))));
        items.extend(n.log_series.iter().take(cap).map(|v| format!("L{}", link_value(*v))));
        items.extend(n.smi_series.iter().take(cap).map(|v| format!("S{}", link_value(*v))));
        if !self.startup.is_empty() {
            items.push(self.startup.clone());
        }
        items.join(",")
    }

    /// The reading an `oom=` value describes; `None` when it is not one (at most 400 items, every
    /// number finite).
    pub fn from_link(text: &str) -> Option<Reading> {
        if text.split(',').nth(400).is_some() {
            return None;
        }
        Reading::from_items(text)
    }

    /// The link's items, any number of them.
    fn from_items(text: &str) -> Option<Reading> {
        let mut r = Reading::default();
        let n = &mut r.numbers;
        for item in text.split(',') {
            let mut chars = item.chars();
            let tag = chars.next()?;
            let rest = chars.as_str();
            let value = || crate::ledger::units::parse_decimal(rest).filter(|v| v.is_finite());
            match tag {
                'a'..='z' => *n.slot(*F::ALL.get(tag as usize - 'a' as usize)?) = Some(value()?),
                'F' | 'X' => {
                    let bits: u64 = rest.parse().ok()?;
                    if tag == 'F' {
                        r.formats =
                            FORMATS.iter().enumerate().filter(|(i, _)| bits >> i & 1 == 1).map(|(_, f)| *f).collect();
                    } else {
                        for (i, b) in r.signals.bits().into_iter().enumerate() {
                            *b = bits >> i & 1 == 1;
                        }
                    }
                }
                'B' => {
                    n.llama_buffer = [LlamaBuffer::Kv, LlamaBuffer::Compute, LlamaBuffer::Weights]
                        .get(rest.parse::<usize>().ok()?)
                        .copied()
                }
                'P' => n.processes.push((0, value()?)),
                'G' => {
                    let (gpu, bytes) = rest.split_once(':')?;
                    n.smi_processes.push((
                        gpu.parse().ok()?,
                        0,
                        crate::ledger::units::parse_decimal(bytes).filter(|v| v.is_finite())?,
                    ));
                }
                'L' => n.log_series.push(value()?),
                'S' => n.smi_series.push(value()?),
                'Y' | 'V' | 'K' | 'D' => {
                    if !r.startup.is_empty() {
                        r.startup.push(',');
                    }
                    r.startup.push_str(item);
                }
                _ => return None,
            }
        }
        Some(r)
    }
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
