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

/// A decimal number: `-12`, `0.9`, `1e-5`, `5.0E+5` (no spaces, no `inf`/`nan`); `None` otherwise.
/// Not `str::parse::<f64>`: its exact algorithm links 6 KB of tables and code into the wasm. Up
/// to 19 significant digits and a power of ten within ±22 the result is correctly rounded (one
/// IEEE operation on exact operands, as in Clinger's fast path), so it equals `str::parse` for
/// every value a link, a config.json or a log prints; beyond, it is within a few ulps.
pub fn parse_decimal(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let negative = b.first() == Some(&b'-');
    let (mut mantissa, mut digits, mut exp, mut any) = (0u64, 0u32, 0i32, false);
    let mut fraction = false;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            any = true;
            if digits < 19 {
                mantissa = mantissa * 10 + u64::from(c - b'0');
                if mantissa > 0 {
                    digits += 1;
                }
                exp -= i32::from(fraction);
            } else {
                exp += i32::from(!fraction);
            }
        } else if c == b'.' && !fraction {
            fraction = true;
        } else {
            break;
        }
        i += 1;
    }
    if !any {
        return None;
    }
    if i < b.len() && (b[i] | 0x20) == b'e' {
        i += 1;
        let sign = match b.get(i) {
            Some(b'-') => -1,
            Some(b'+') => 1,
            _ => 0,
        };
        i += usize::from(sign != 0);
        let start = i;
        let mut e = 0i32;
        while i < b.len() && b[i].is_ascii_digit() {
            e = (e * 10 + i32::from(b[i] - b'0')).min(10_000);
            i += 1;
        }
        if i == start {
            return None;
        }
        exp += if sign < 0 { -e } else { e };
    }
    if i != b.len() {
        return None;
    }
    let m = mantissa as f64;
    let v = if mantissa == 0 {
        0.0
    } else if exp >= 0 {
        if exp > 308 + 19 {
            f64::INFINITY
        } else if exp <= 22 {
            m * 10f64.powi(exp)
        } else {
            m * 1e22 * 10f64.powi(exp - 22)
        }
    } else if exp >= -22 {
        m / 10f64.powi(-exp)
    } else if exp < -343 {
        0.0
    } else {
        m / 1e22 / 10f64.powi(-exp - 22)
    };
    Some(if negative { -v } else { v })
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

/// The first byte offset of `needle` in `hay`. core's `str::find(&str)` links its two-way
/// searcher and slicing panics into the wasm (~2 KB gzip, `make bench`); the texts searched here
/// (links, config.json fields, a pasted log's lines and phrases) are short or searched for short
/// phrases, where a plain scan is as fast. Offsets are char boundaries: `needle` is valid UTF-8.
pub fn find(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.is_empty() {
        return Some(0);
    }
    let first = n[0];
    (0..(h.len() + 1).saturating_sub(n.len())).find(|&i| h[i] == first && h[i..].starts_with(n))
}

/// Where `needle` starts in `hay`, one occurrence after another, not overlapping (see [`find`]).
pub fn occurrences<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + find(hay.get(from..)?, needle)?;
        from = at + needle.len().max(1);
        Some(at)
    })
}

/// Whether `hay` contains `needle` (see [`find`]).
pub fn has(hay: &str, needle: &str) -> bool {
    find(hay, needle).is_some()
}
/// `24` rather than `24.0`, `22.5` as is.
pub fn trim_float(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let s = if x >= 0.0 { fixed(x, 6) } else { format!("-{}", fixed(-x, 6)) };
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}
