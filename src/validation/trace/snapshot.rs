//! `torch.cuda.memory._dump_snapshot()`'s pickle: `segments` (what the caching allocator reserved
//! at the end, with the blocks then live) and `device_traces` (per device, the allocator's events:
//! `alloc`, `free_requested`, `free_completed`, `segment_alloc`, `segment_free`, `segment_map`,
//! `segment_unmap`, `snapshot`, `oom`, each with `addr`, `size`, `time_us` and, when the history
//! was recorded with stacks, `frames`; torch/cuda/memory.py and c10/cuda/CUDACachingAllocator.h).
//!
//! Read by [`super::pickle`], which only builds data: a pickle whose opcodes name code (a `GLOBAL`
//! such as `os.system` with its `REDUCE`) is refused and nothing is called. The events are replayed once to find the peak of allocated memory (`free_completed` is when
//! `memory_allocated()` drops), once more to the peak to classify what was live by its frames.

use super::pickle::{self, Pickle};
use super::{Category, CurveBuilder, Sample, Trace, TraceFormat};
use crate::ledger::msg::Msg;
use crate::msg;
use std::collections::{HashMap, HashSet};

/// One allocator event, as far as memory goes.
struct Event {
    action: Action,
    addr: u64,
    size: u64,
    time_us: i64,
    /// The event's `frames` list (its id in the pickle), classified on demand.
    frames: Option<u32>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Alloc,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    Other,
}

impl Action {
    fn of(name: Option<&str>) -> Action {
        match name {
            Some("alloc") => Action::Alloc,
            Some("free_completed") => Action::FreeCompleted,
            Some("segment_alloc" | "segment_map") => Action::SegmentAlloc,
            Some("segment_free" | "segment_unmap") => Action::SegmentFree,
            _ => Action::Other,
        }
    }
}

/// The category of one frame, by the first rule that matches (innermost frame first): PyTorch's
/// optimizers → optimizer state; autograd's engine or a `backward` → gradient; loading or moving a
/// model → parameter; a module's `forward` → activation.
pub fn frame_category(filename: &str, name: &str) -> Option<Category> {
    let file = filename.replace('\\', "/");
    if file.contains("torch/optim/") || name.contains("optimizer_step") {
        return Some(Category::OptimizerState);
    }
    if name.contains("backward") || file.contains("torch/autograd/") || name.contains("autograd::Engine") {
        return Some(Category::Gradient);
    }
    const LOADING: [&str; 6] =
        ["load_state_dict", "_load_from_state_dict", "from_pretrained", "_apply", "load_file", "load_model"];
    if LOADING.contains(&name) || file.contains("safetensors") {
        return Some(Category::Parameter);
    }
    if name == "forward" || name == "_call_impl" || name == "_wrapped_call_impl" {
        return Some(Category::Activation);
    }
    None
}

/// Frames classified once per frame dict (a snapshot shares one dict among every event with it).
struct Classifier<'p, 'a> {
    p: &'p Pickle<'a>,
    frames: HashMap<u32, Option<Category>>,
}

impl Classifier<'_, '_> {
    /// The first frame (innermost first) that says what the block is.
    fn class(&mut self, frames: Option<u32>) -> Option<Category> {
        let p = self.p;
        frames.and_then(|list| {
            p.items(list).iter().find_map(|&f| {
                *self.frames.entry(f).or_insert_with(|| {
                    let field = |k| p.get(f, k).and_then(|id| p.text(id)).unwrap_or("");
                    frame_category(field("filename"), field("name"))
                })
            })
        })
    }
}

pub fn read(bytes: &[u8], progress: super::Progress) -> Result<Trace, Msg> {
    let p = pickle::read(bytes, progress)?;
    let traces = p.get(p.root, "device_traces").ok_or(msg!(TraceNotSnapshot))?;
    let device = (p.items(traces).iter().enumerate())
        .max_by_key(|(_, t)| p.items(**t).len())
        .filter(|(_, t)| !p.items(**t).is_empty())
        .map(|(d, _)| d)
        .ok_or(msg!(TraceNoEvents))?;
    let events: Vec<Event> = p.items(p.items(traces)[device]).iter().map(|&e| event(&p, e)).collect();
    let (mut live_at_end, mut reserved_at_end) = (0u64, 0u64);
    for &segment in p.get(p.root, "segments").map_or(&[][..], |s| p.items(s)) {
        let on_device = p.get(segment, "device").and_then(|d| p.int(d)).unwrap_or(0) == device as i64;
        if !on_device {
            continue;
        }
        reserved_at_end += uint(&p, segment, "total_size");
        for &block in p.get(segment, "blocks").map_or(&[][..], |b| p.items(b)) {
            if p.get(block, "state").and_then(|s| p.text(s)).is_some_and(|s| s.starts_with("active")) {
                live_at_end += uint(&p, block, "size");
            }
        }
    }
    let mut classifier = Classifier { p: &p, frames: HashMap::new() };
    Ok(replay(&events, live_at_end, reserved_at_end, &mut classifier))
}

fn uint(p: &Pickle, dict: u32, key: &str) -> u64 {
    p.get(dict, key).and_then(|v| p.int(v)).map_or(0, |v| v.max(0) as u64)
}

fn event(p: &Pickle, e: u32) -> Event {
    Event {
        action: Action::of(p.get(e, "action").and_then(|a| p.text(a))),
        addr: uint(p, e, "addr"),
        size: uint(p, e, "size"),
        time_us: p.get(e, "time_us").and_then(|t| p.int(t)).unwrap_or(0),
        frames: p.get(e, "frames"),
    }
}

/// Net change of (allocated, reserved) an event makes.
fn delta(e: &Event) -> (i128, i128) {
    let size = i128::from(e.size);
    match e.action {
        Action::Alloc => (size, 0),
        Action::FreeCompleted => (-size, 0),
        Action::SegmentAlloc => (0, size),
        Action::SegmentFree => (0, -size),
        Action::Other => (0, 0),
    }
}

/// The curve from the bytes live before the first event (the end's minus the events' net), the
/// peak of allocated memory, and what was live then by category.
fn replay(events: &[Event], live_at_end: u64, reserved_at_end: u64, classifier: &mut Classifier) -> Trace {
    let (net_alloc, net_reserved) = events.iter().map(delta).fold((0i128, 0i128), |a, d| (a.0 + d.0, a.1 + d.1));
    let clamp = |v: i128| u64::try_from(v.max(0)).unwrap_or(u64::MAX);
    let preexisting = clamp(i128::from(live_at_end) - net_alloc);
    let (mut allocated, mut reserved) = (i128::from(preexisting), i128::from(reserved_at_end) - net_reserved);
    let (mut peak, mut peak_at, mut reserved_peak) = (allocated, None, reserved);
    let mut curve = CurveBuilder::new(events.len());
    let t0 = events.first().map_or(0, |e| e.time_us);
    for (i, e) in events.iter().enumerate() {
        let (a, r) = delta(e);
        allocated += a;
        reserved += r;
        if allocated > peak || peak_at.is_none() {
            (peak, peak_at) = (allocated, Some(i));
        }
        reserved_peak = reserved_peak.max(reserved);
        curve.push(Sample { time_us: e.time_us - t0, allocated: clamp(allocated), reserved: Some(clamp(reserved)) });
    }
    let peak_at = peak_at.unwrap_or(0);
    let mut categories = live_by_category(events, peak_at, classifier);
    let classified: u64 = categories.iter().sum();
    let unknown = &mut categories[Category::Unknown.index()];
    *unknown = unknown.saturating_add(clamp(peak).saturating_sub(classified));
    Trace {
        format: TraceFormat::Snapshot,
        curve: curve.finish(),
        peak_bytes: clamp(peak),
        peak_time_us: events.get(peak_at).map_or(0, |e| e.time_us - t0),
        reserved_peak_bytes: Some(clamp(reserved_peak)),
        categories,
        events: events.len(),
        preexisting_bytes: preexisting,
    }
}

/// The blocks allocated in the trace and live after event `peak_at`, by their frames' category; a
/// block from an optimizer's frames that is freed before the trace ends was one of its
/// temporaries, not state. Bytes live before the trace are left to the caller (unknown).
fn live_by_category(events: &[Event], peak_at: usize, classifier: &mut Classifier) -> [u64; 8] {
    let mut live: HashMap<u64, (u64, Option<u32>)> = HashMap::new();
    for e in events.iter().take(peak_at + 1) {
        match e.action {
            Action::Alloc => {
                live.insert(e.addr, (e.size, e.frames));
            }
            Action::FreeCompleted => {
                live.remove(&e.addr);
            }
            _ => {}
        }
    }
    let freed_later: HashSet<u64> =
        events.iter().skip(peak_at + 1).filter(|e| e.action == Action::FreeCompleted).map(|e| e.addr).collect();
    let mut by = [0u64; 8];
    for (addr, (size, frames)) in live {
        let class = match classifier.class(frames) {
            Some(Category::OptimizerState) if freed_later.contains(&addr) => Category::Temporary,
            Some(c) => c,
            None => Category::Unknown,
        };
        by[class.index()] = by[class.index()].saturating_add(size);
    }
    by
}
