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

/// `bytes` in `unit` with two decimals, e.g. "14.96 GiB". Huge values use scientific notation.
pub fn format_bytes(bytes: u64, unit: Unit) -> String {
    let v = bytes as f64 / unit.divisor();
    if v >= 1e6 {
        format!("{v:.3e} {}", unit.label())
    } else {
        format!("{v:.2} {}", unit.label())
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
        format!("{v:.2} {}", units[i])
    }
}

/// An integer with thousands separators: 8,030,261,248.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A parameter count in billions / millions: "8.03 B", "124.4 M".
pub fn params_short(n: u64) -> String {
    let x = n as f64;
    if x >= 1e9 {
        format!("{:.2} B", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else {
        group(n)
    }
}

/// A bytes-per-element factor without noise: 2, 0.5, 0.5159.
pub fn factor(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
