//! The user's own trace of a step, read and laid over the ledger's phases: what PyTorch recorded
//! (a memory snapshot pickle, the profiler's memory timeline, `tools/mem_report.py`'s report), the
//! measured curve, the bytes per category at the measured peak, and where it parts from the bill.
//!
//! Three formats, told apart by their first bytes (docs/trace.md):
//! - `snapshot`: `torch.cuda.memory._dump_snapshot()`'s pickle (`device_traces`, `segments`),
//!   read as data by [`pickle`] ([`snapshot`]); a pickle that names any code is refused.
//! - `memory_timeline` / `memory_timeline_raw`: `prof.export_memory_timeline("x.json")` (times and
//!   sizes per category) and its `.raw.json.gz` events ([`timeline`]); a gzipped file is
//!   decompressed first by the caller (the CLI with flate2, the page with the browser's own
//!   `DecompressionStream`).
//! - `mem_report`: `tools/mem_report.py`'s JSON (one measured moment, no curve).
//!
//! Nothing of a trace goes into a link; every reader is linear in the file and bounded
//! ([`MAX_TRACE_BYTES`]).

pub mod compare;
pub mod pickle;
pub mod snapshot;
pub mod timeline;

use crate::ledger::msg::{Arg, Msg};
use crate::msg;

/// The largest trace read (decompressed): a 500 MB snapshot is refused with this bound named.
pub const MAX_TRACE_BYTES: usize = 256 * 1024 * 1024;

/// The measured curve is kept at this many points at most (each the highest of its stretch).
pub const MAX_CURVE_POINTS: usize = 1200;

/// Which file it was (the ids are a public contract: `trace.format` in the JSON output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Snapshot,
    MemoryTimeline,
    MemoryTimelineRaw,
    MemReport,
}

impl TraceFormat {
    pub fn id(self) -> &'static str {
        match self {
            TraceFormat::Snapshot => "snapshot",
            TraceFormat::MemoryTimeline => "memory_timeline",
            TraceFormat::MemoryTimelineRaw => "memory_timeline_raw",
            TraceFormat::MemReport => "mem_report",
        }
    }

    pub fn from_id(id: &str) -> Option<TraceFormat> {
        [TraceFormat::Snapshot, TraceFormat::MemoryTimeline, TraceFormat::MemoryTimelineRaw, TraceFormat::MemReport]
            .into_iter()
            .find(|f| f.id() == id)
    }
}

/// The profiler's categories (`torch.profiler._memory_profiler.Category`, and `None` as unknown),
/// in the order of its `_CATEGORY_TO_INDEX`: the columns of `export_memory_timeline`'s sizes and
/// the category numbers of its raw events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Parameter,
    OptimizerState,
    Input,
    Temporary,
    Activation,
    Gradient,
    AutogradDetail,
    Unknown,
}

impl Category {
    pub const ALL: [Category; 8] = [
        Category::Parameter,
        Category::OptimizerState,
        Category::Input,
        Category::Temporary,
        Category::Activation,
        Category::Gradient,
        Category::AutogradDetail,
        Category::Unknown,
    ];

    /// The name in the JSON output (the profiler's, lower case).
    pub fn id(self) -> &'static str {
        match self {
            Category::Parameter => "parameter",
            Category::OptimizerState => "optimizer_state",
            Category::Input => "input",
            Category::Temporary => "temporary",
            Category::Activation => "activation",
            Category::Gradient => "gradient",
            Category::AutogradDetail => "autograd_detail",
            Category::Unknown => "unknown",
        }
    }

    pub fn index(self) -> usize {
        Category::ALL.iter().position(|&c| c == self).unwrap_or(7)
    }
}

/// Bytes per category, indexed by [`Category::index`].
pub type ByCategory = [u64; 8];

/// One point of the measured curve: microseconds from the trace's first event, bytes allocated
/// (live tensors) and, where the format records it, reserved by the caching allocator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub time_us: i64,
    pub allocated: u64,
    pub reserved: Option<u64>,
}

/// A trace as read: the curve (at most [`MAX_CURVE_POINTS`]) and what was live at its peak.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub format: TraceFormat,
    pub curve: Vec<Sample>,
    pub peak_bytes: u64,
    pub peak_time_us: i64,
    pub reserved_peak_bytes: Option<u64>,
    pub categories: ByCategory,
    /// Events (or rows) read.
    pub events: usize,
    /// Snapshot: the bytes live before its first recorded event (not classified).
    pub preexisting_bytes: u64,
}

/// A file as dropped: gunzipped when it is gzip (at most [`MAX_TRACE_BYTES`] out), then read.
pub fn read_file(bytes: &[u8], progress: Progress) -> Result<Trace, Msg> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut out = Vec::new();
        let mut gz = flate2::read::MultiGzDecoder::new(bytes).take(MAX_TRACE_BYTES as u64 + 1);
        if gz.read_to_end(&mut out).is_err() {
            return Err(msg!(TracePickleTruncated));
        }
        if out.len() > MAX_TRACE_BYTES {
            return Err(msg!(TraceTooLarge, Arg::Bytes(out.len() as f64), Arg::Bytes(MAX_TRACE_BYTES as f64)));
        }
        progress(0.05);
        return read_reporting(&out, progress);
    }
    read_reporting(bytes, progress)
}

/// Reads a trace from its bytes (already decompressed).
pub fn read(bytes: &[u8]) -> Result<Trace, Msg> {
    read_reporting(bytes, &mut |_| {})
}

/// Told how far the reading is: the share of the input read (0–1), every few MiB.
pub type Progress<'a> = &'a mut dyn FnMut(f64);

/// [`read`], saying how far it is as it goes (the page's worker posts it).
pub fn read_reporting(bytes: &[u8], progress: Progress) -> Result<Trace, Msg> {
    if bytes.len() > MAX_TRACE_BYTES {
        return Err(msg!(TraceTooLarge, Arg::Bytes(bytes.len() as f64), Arg::Bytes(MAX_TRACE_BYTES as f64)));
    }
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    match start.map(|i| bytes[i]) {
        None => Err(msg!(TraceEmpty)),
        Some(0x1f) if bytes.get(1) == Some(&0x8b) => Err(msg!(TraceGzipped)),
        Some(0x80) => snapshot::read(bytes, progress),
        Some(b'[') => timeline::read(bytes, progress),
        Some(b'{') => read_json_object(bytes),
        Some(_) => Err(msg!(TraceUnknown)),
    }
}

/// A JSON object: mem_report.py's report, or a file of the profiler that has no memory by category.
fn read_json_object(bytes: &[u8]) -> Result<Trace, Msg> {
    let text = std::str::from_utf8(bytes).map_err(|_| msg!(TraceNotUtf8))?;
    if text.contains("\"traceEvents\"") {
        return Err(msg!(TraceChromeTrace));
    }
    let report = super::parse_report(text)?;
    Ok(from_mem_report(&report))
}

/// mem_report.py's one moment: its components as the profiler's categories; its peak when CUDA
/// measured one, else their sum.
pub fn from_mem_report(r: &super::MemReport) -> Trace {
    let mut categories = [0; 8];
    categories[Category::Parameter.index()] = r.weights;
    categories[Category::Gradient.index()] = r.gradients;
    categories[Category::OptimizerState.index()] = r.optimizer;
    categories[Category::Activation.index()] = r.activations;
    let sum = categories.iter().fold(0u64, |a, &b| a.saturating_add(b));
    let peak = r.peak_allocated.unwrap_or(sum);
    if peak > sum {
        categories[Category::Unknown.index()] = peak - sum;
    }
    Trace {
        format: TraceFormat::MemReport,
        curve: vec![Sample { time_us: 0, allocated: peak, reserved: r.peak_reserved }],
        peak_bytes: peak,
        peak_time_us: 0,
        reserved_peak_bytes: r.peak_reserved,
        categories,
        events: 1,
        preexisting_bytes: 0,
    }
}

/// Keeps at most [`MAX_CURVE_POINTS`] of a curve given point by point: each kept point is the
/// highest of its stretch, so the peak survives.
#[derive(Debug, Default)]
pub struct CurveBuilder {
    points: Vec<Sample>,
    stride: usize,
    in_stretch: usize,
}

impl CurveBuilder {
    pub fn new(expected_points: usize) -> CurveBuilder {
        CurveBuilder { points: Vec::new(), stride: expected_points.div_ceil(MAX_CURVE_POINTS).max(1), in_stretch: 0 }
    }

    pub fn push(&mut self, s: Sample) {
        let start_new = self.in_stretch == 0 || self.points.is_empty();
        if start_new {
            self.points.push(s);
        } else if let Some(last) = self.points.last_mut() {
            if s.allocated > last.allocated {
                last.allocated = s.allocated;
                last.time_us = s.time_us;
            }
            last.reserved = match (last.reserved, s.reserved) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
        }
        self.in_stretch = (self.in_stretch + 1) % self.stride;
    }

    pub fn finish(self) -> Vec<Sample> {
        self.points
    }
}

/// The curve's times from its first point (the profiler's are absolute microseconds).
pub fn from_first(curve: &mut [Sample], peak_time_us: &mut i64) {
    if let Some(t0) = curve.first().map(|s| s.time_us) {
        for s in curve.iter_mut() {
            s.time_us -= t0;
        }
        *peak_time_us -= t0;
    }
}
