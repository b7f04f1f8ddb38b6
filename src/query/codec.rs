//! Splitting and percent-coding of query strings (application/x-www-form-urlencoded).

use crate::ledger::units::has;

/// The `key=value` pairs of a query string or of a whole URL (everything after the first `?`,
/// up to a `#`), decoded. Empty keys are dropped; a key without `=` has an empty value.
pub fn split_query(input: &str) -> Vec<(String, String)> {
    let after = match input.split_once('?') {
        Some((_, query)) => query,
        // A bare URL without a query carries no settings.
        None if has(input, "://") => "",
        None => input,
    };
    let query = after.split('#').next().unwrap_or("");
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let key = percent_decode(k);
            (!key.trim().is_empty()).then(|| (key.trim().to_string(), percent_decode(v)))
        })
        .collect()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes `%XX` escapes and `+` (space). Malformed escapes are kept as they are; invalid UTF-8
/// becomes U+FFFD. Never fails.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Encodes everything but unreserved characters (A–Z a–z 0–9 - . _ ~) and the comma, which lists use.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b',' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
