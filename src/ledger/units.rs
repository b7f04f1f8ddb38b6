//! Units: bytes inside the ledger, GiB (2^30) or GB (10^9) for display. The sources this project
//! checks against mix the two; every figure says which it is.

/// Display unit for byte counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// 2^30 bytes (what nvidia-smi's MiB and PyTorch's memory_summary add up to).
    GiB,
    /// 10^9 bytes (what model cards and the chapter mostly write as "GB").
    GB,
}

impl Unit {
    pub fn divisor(self) -> f64 {
        match self {
            Unit::GiB => 1024.0 * 1024.0 * 1024.0,
            Unit::GB => 1e9,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Unit::GiB => "GiB",
            Unit::GB => "GB",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Unit::GiB => "gib",
            Unit::GB => "gb",
        }
    }

    pub fn from_id(id: &str) -> Option<Unit> {
        match id {
            "gib" => Some(Unit::GiB),
            "gb" => Some(Unit::GB),
            _ => None,
        }
    }
}

/// `x` limited to `lo..=hi` (NaN gives `lo`). Not `f64::clamp`: its panic message formats floats,
/// which links core's float formatting into the wasm (7.9 KB of the gzip download; clippy.toml
/// disallows it).
#[allow(clippy::manual_clamp)]
pub fn within(x: f64, lo: f64, hi: f64) -> f64 {
    x.max(lo).min(hi)
}

/// `bytes` in `unit` with two decimals, e.g. "14.96 GiB". Huge values use scientific notation.
pub fn format_bytes(bytes: u64, unit: Unit) -> String {
    let v = bytes as f64 / unit.divisor();
    if v >= 1e6 {
        let exp = v.log10().floor();
        format!("{}e{} {}", fixed(v / 10f64.powi(exp as i32), 3), exp as i64, unit.label())
    } else {
        format!("{} {}", fixed(v, 2), unit.label())
    }
}

/// `x` with exactly `decimals` decimals (x ≥ 0, decimals ≤ 4), without the float formatter's slow
/// exact path: formulas are written on every input.
pub fn fixed(x: f64, decimals: u32) -> String {
    let scale = 10u64.pow(decimals);
    let scaled = (x * scale as f64).round();
    if !scaled.is_finite() || scaled >= 1e18 {
        return format!("{}", x.round().max(0.0) as u64);
    }
    let scaled = scaled as u64;
    let (int, frac) = (scaled / scale, scaled % scale);
    if decimals == 0 {
        int.to_string()
    } else {
        format!("{int}.{frac:0width$}", width = decimals as usize)
    }
}

/// A byte count in the most readable binary unit (B, KiB, MiB, GiB, TiB), for formulas.
pub fn human_bytes(bytes: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = if bytes.is_finite() { bytes.max(0.0) } else { 0.0 };
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{} B", v.round() as u64)
    } else {
        format!("{} {}", fixed(v, 2), units[i])
    }
}

/// An integer with thousands separators: 8,030,261,248.
pub fn group(n: u64) -> String {
    // u64::MAX has 20 digits: 26 bytes with separators. Digits are written right to left.
    let mut buf = [0u8; 26];
    let mut i = buf.len();
    let mut rest = n;
    let mut in_group = 0;
    loop {
        if in_group == 3 {
            i -= 1;
            buf[i] = b',';
            in_group = 0;
        }
        i -= 1;
        buf[i] = b'0' + (rest % 10) as u8;
        rest /= 10;
        in_group += 1;
        if rest == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or_default().to_string()
}

/// A parameter count in billions / millions: "8.03 B", "124.4 M".
pub fn params_short(n: u64) -> String {
    let x = n as f64;
    if x >= 1e9 {
        format!("{} B", fixed(x / 1e9, 2))
    } else if x >= 1e6 {
        format!("{} M", fixed(x / 1e6, 1))
    } else {
        group(n)
    }
}

/// A bytes-per-element factor without noise: 2, 0.5, 0.5159.
pub fn factor(x: f64) -> String {
    if !(0.0..1e12).contains(&x) {
        return if x.is_finite() && x < 0.0 { format!("-{}", factor(-x)) } else { fixed(x, 0) };
    }
    let s = fixed(x, 4);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
