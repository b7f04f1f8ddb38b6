//! `prof.export_memory_timeline(path, device)` of torch.profiler, read in one pass without a JSON
//! tree (a 50 MB file is ten million numbers):
//! - `x.json` (and `x.json.gz`): `[times, sizes]` — the times in µs and, per time, the live bytes
//!   per category: `[0, PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT,
//!   AUTOGRAD_DETAIL, unknown]` (torch/profiler/_memory_profiler.py, `_coalesce_timeline`: a
//!   leading 0 column, then `_CATEGORY_TO_INDEX` + 1).
//! - `x.raw.json.gz`: `[[time_ns, action, bytes, category], ...]` (`export_memory_timeline_raw`:
//!   the bytes negative for a destroy, the category a `_CATEGORY_TO_INDEX` number, the time −1 for
//!   tensors that existed before profiling).

use super::{from_first, ByCategory, Category, CurveBuilder, Sample, Trace, TraceFormat};
use crate::ledger::msg::{Arg, Msg};
use crate::msg;

/// The columns of a row of sizes: the leading 0 and the eight categories.
const SIZE_COLUMNS: usize = 9;

/// Rows between two reports of progress.
const REPORT_EVERY: usize = 1 << 16;

pub fn read(bytes: &[u8], progress: super::Progress) -> Result<Trace, Msg> {
    let mut r = Reader { s: bytes, i: 0 };
    r.open()?;
    r.open()?;
    let first = r.ints_to_close()?;
    if first.is_empty() {
        return Err(msg!(TraceNoEvents));
    }
    if !r.comma_or_close()? {
        r.end()?;
        let mut state = RawState::default();
        state.apply(&first)?;
        return Ok(state.finish());
    }
    let len = bytes.len() as f64;
    let mut report = |at: usize| progress(at as f64 / len);
    r.open()?;
    if r.peek() == Some(b'[') {
        coalesced(first, r, &mut report)
    } else {
        let second = r.ints_to_close()?;
        raw(vec![first, second], r, &mut report)
    }
}

/// `[times, sizes]`: `r` stands inside `sizes`, before its first row.
fn coalesced(times: Vec<i64>, mut r: Reader, report: &mut dyn FnMut(usize)) -> Result<Trace, Msg> {
    let mut curve = CurveBuilder::new(times.len());
    let (mut peak, mut peak_time, mut at_peak) = (0u64, 0i64, [0u64; 8]);
    let mut rows = 0usize;
    loop {
        r.open()?;
        let row = r.ints_to_close()?;
        if row.len() != SIZE_COLUMNS {
            return Err(msg!(TraceBadRow, Arg::Int(rows as u64 + 1), Arg::Int(row.len() as u64)));
        }
        let time = *times.get(rows).ok_or(msg!(TraceRowsTimes))?;
        let mut by: ByCategory = [0; 8];
        for (slot, &v) in by.iter_mut().zip(&row[1..]) {
            *slot = v.max(0) as u64;
        }
        let total = by.iter().fold(0u64, |a, &b| a.saturating_add(b));
        if total > peak || rows == 0 {
            (peak, peak_time, at_peak) = (total, time, by);
        }
        curve.push(Sample { time_us: time, allocated: total, reserved: None });
        rows += 1;
        if rows % REPORT_EVERY == 0 {
            report(r.i);
        }
        if !r.comma_or_close()? {
            break;
        }
    }
    r.close_top()?;
    if rows != times.len() {
        return Err(msg!(TraceRowsTimes));
    }
    let mut curve = curve.finish();
    from_first(&mut curve, &mut peak_time);
    Ok(Trace {
        format: TraceFormat::MemoryTimeline,
        curve,
        peak_bytes: peak,
        peak_time_us: peak_time,
        reserved_peak_bytes: None,
        categories: at_peak,
        events: rows,
        preexisting_bytes: 0,
    })
}

/// Raw events: `r` stands after the first two, before a comma or the list's end.
fn raw(first: Vec<Vec<i64>>, mut r: Reader, report: &mut dyn FnMut(usize)) -> Result<Trace, Msg> {
    let mut state = RawState::default();
    for event in &first {
        state.apply(event)?;
    }
    while r.comma_or_close()? {
        r.open()?;
        let event = r.ints_to_close()?;
        state.apply(&event)?;
        if state.samples.len() % REPORT_EVERY == 0 {
            report(r.i);
        }
    }
    r.end()?;
    Ok(state.finish())
}

#[derive(Default)]
struct RawState {
    live: ByCategory,
    peak: u64,
    peak_time: i64,
    at_peak: ByCategory,
    /// The curve before thinning (raw files are the smaller ones: one sample per event).
    samples: Vec<Sample>,
    first_time: Option<i64>,
}

impl RawState {
    fn apply(&mut self, event: &[i64]) -> Result<(), Msg> {
        let n = self.samples.len() as u64 + 1;
        let [time_ns, _action, bytes, category] = event else {
            return Err(msg!(TraceBadEvent, Arg::Int(n), Arg::Int(event.len() as u64)));
        };
        let c = usize::try_from(*category).ok().filter(|&c| c < 8).ok_or(msg!(TraceBadCategory, Arg::Int(n)))?;
        self.live[c] = self.live[c].saturating_add_signed(*bytes);
        let time = if *time_ns < 0 { self.first_time.unwrap_or(0) } else { time_ns / 1000 };
        self.first_time.get_or_insert(time);
        let total = self.live.iter().fold(0u64, |a, &b| a.saturating_add(b));
        if total > self.peak {
            (self.peak, self.peak_time, self.at_peak) = (total, time, self.live);
        }
        self.samples.push(Sample { time_us: time, allocated: total, reserved: None });
        Ok(())
    }

    fn finish(self) -> Trace {
        let events = self.samples.len();
        let mut curve = CurveBuilder::new(events);
        for s in self.samples {
            curve.push(s);
        }
        let mut curve = curve.finish();
        let mut peak_time = self.peak_time;
        from_first(&mut curve, &mut peak_time);
        Trace {
            format: TraceFormat::MemoryTimelineRaw,
            curve,
            peak_bytes: self.peak,
            peak_time_us: peak_time,
            reserved_peak_bytes: None,
            categories: self.at_peak,
            events,
            preexisting_bytes: 0,
        }
    }
}

/// A cursor over arrays of integers: brackets, commas, whitespace and whole numbers only.
struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn fail(&self, what: &'static str) -> Msg {
        msg!(TraceBadTimeline, Arg::Code(what), Arg::Count(self.i as u64))
    }

    fn open(&mut self) -> Result<(), Msg> {
        match self.peek() {
            Some(b'[') => {
                self.i += 1;
                Ok(())
            }
            _ => Err(self.fail("[")),
        }
    }

    /// After a value: `true` at a comma (another follows), `false` at the closing bracket.
    fn comma_or_close(&mut self) -> Result<bool, Msg> {
        let more = match self.peek() {
            Some(b',') => true,
            Some(b']') => false,
            _ => return Err(self.fail(", ]")),
        };
        self.i += 1;
        Ok(more)
    }

    /// The whole numbers of an array just opened, through its closing bracket.
    fn ints_to_close(&mut self) -> Result<Vec<i64>, Msg> {
        let mut out = Vec::new();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(out);
        }
        loop {
            out.push(self.int()?);
            if !self.comma_or_close()? {
                return Ok(out);
            }
        }
    }

    fn int(&mut self) -> Result<i64, Msg> {
        self.ws();
        let negative = self.s.get(self.i) == Some(&b'-');
        self.i += usize::from(negative);
        let start = self.i;
        let mut v: i64 = 0;
        while let Some(d) = self.s.get(self.i).filter(|b| b.is_ascii_digit()) {
            v = v.checked_mul(10).and_then(|v| v.checked_add(i64::from(d - b'0'))).ok_or(self.fail("integer"))?;
            self.i += 1;
        }
        if self.i == start || matches!(self.s.get(self.i), Some(b'.' | b'e' | b'E')) {
            return Err(self.fail("integer"));
        }
        Ok(if negative { -v } else { v })
    }

    /// The outer list's closing bracket and nothing after it.
    fn close_top(&mut self) -> Result<(), Msg> {
        if self.peek() != Some(b']') {
            return Err(self.fail("]"));
        }
        self.i += 1;
        self.end()
    }

    /// Nothing but whitespace left.
    fn end(&mut self) -> Result<(), Msg> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.fail("end")),
        }
    }
}

/// The category of the profiler's sizes column `c` (1–8).
pub fn column_category(c: usize) -> Option<Category> {
    c.checked_sub(1).and_then(|i| Category::ALL.get(i).copied())
}
