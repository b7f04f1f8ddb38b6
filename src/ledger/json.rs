//! A small JSON reader for what users paste (config.json, mem_report.py's output): values, objects
//! in their order, a depth limit, errors with the byte offset. The web bundle carries it instead
//! of serde_json's deserializer and `Value`, which cost 15 KB of the gzip download (measured when
//! they replaced it, docs/size.md); the command line still writes its JSON with serde_json, and a
//! property test checks this reader against serde_json on arbitrary documents.
//!
//! Python's `json.dump` writes non-finite floats as the bare tokens `Infinity`, `-Infinity` and
//! `NaN`, and real config.json files carry them (Nemotron-H's `time_step_limit`): they are read as
//! `null`, a value no reader uses as a number.
//!
//! It reads in one pass, and an object's repeated keys are resolved once, at its end, by sorting
//! the keys (n log n): any text up to the readers' 16 MiB bound is read or refused in well under a
//! second (an 80,000-member object once took 18 s, each member searched against the ones before).

use std::fmt;

/// A JSON value. Numbers keep whether they were written as a whole number.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A number written without a fraction or exponent that fits u64.
    Uint(u64),
    /// Any other number.
    Num(f64),
    Str(String),
    Array(Vec<Json>),
    /// Members in the order written; a repeated key keeps its last value (as serde_json does).
    Object(Vec<(String, Json)>),
}

/// Why a text is not JSON: what, and at which byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    pub what: &'static str,
    pub at: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

/// Nesting deeper than this is refused (a hostile paste cannot exhaust the stack).
const MAX_DEPTH: usize = 128;

impl Json {
    pub fn parse(text: &str) -> Result<Json, JsonError> {
        let mut p = Parser { s: text.as_bytes(), i: 0 };
        let v = p.value(0)?;
        p.ws();
        if p.i < p.s.len() {
            return Err(p.err("trailing characters"));
        }
        Ok(v)
    }

    /// The member `key` of an object (`None` for other values and missing keys).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        *self == Json::Null
    }

    pub fn as_str(&self) -> Option<&str> {
        if let Json::Str(s) = self {
            Some(s)
        } else {
            None
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        if let Json::Bool(b) = self {
            Some(*b)
        } else {
            None
        }
    }

    /// A whole, non-negative number (also one written as `4.0`).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Uint(n) => Some(*n),
            Json::Num(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19 => Some(*f as u64),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Uint(n) => Some(*n as f64),
            Json::Num(f) => Some(*f),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[(String, Json)]> {
        if let Json::Object(m) = self {
            Some(m)
        } else {
            None
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        if let Json::Array(a) = self {
            Some(a)
        } else {
            None
        }
    }

    /// A short rendering for messages: at most `max` characters.
    pub fn short(&self, max: usize) -> String {
        let s = match self {
            Json::Null => "null".to_string(),
            Json::Bool(b) => b.to_string(),
            Json::Uint(n) => n.to_string(),
            Json::Num(f) if f.is_finite() => super::units::trim_float(*f),
            Json::Num(_) => "a number".to_string(),
            Json::Str(s) => format!("\"{s}\""),
            Json::Array(_) => "[…]".to_string(),
            Json::Object(_) => "{…}".to_string(),
        };
        if s.chars().count() > max {
            format!("{}…", s.chars().take(max).collect::<String>())
        } else {
            s
        }
    }
}

/// Drops every member whose key comes again later (the last value wins, as in serde_json), keeping
/// the order of the rest: the keys sorted once, then each run of equal keys but its last dropped.
/// The page's build skips it: there the parser reads only its reader worker's messages, which
/// serde_json writes without a repeated key (what a user brings, the worker reads).
fn keep_last_of_repeated_keys(members: &mut Vec<(String, Json)>) {
    if members.len() < 2 || cfg!(feature = "page") {
        return;
    }
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_unstable_by(|&a, &b| members[a].0.cmp(&members[b].0).then(a.cmp(&b)));
    let mut keep = vec![true; members.len()];
    for pair in order.windows(2) {
        if members[pair[0]].0 == members[pair[1]].0 {
            keep[pair[0]] = false;
        }
    }
    let mut index = 0;
    members.retain(|_| {
        index += 1;
        keep[index - 1]
    });
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, what: &'static str) -> JsonError {
        JsonError { what, at: self.i }
    }

    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        if self.s[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') if self.eat(b"true") => Ok(Json::Bool(true)),
            Some(b'f') if self.eat(b"false") => Ok(Json::Bool(false)),
            Some(b'n') if self.eat(b"null") => Ok(Json::Null),
            Some(b'N') if self.eat(b"NaN") => Ok(Json::Null),
            Some(b'I') if self.eat(b"Infinity") => Ok(Json::Null),
            Some(b'-') if self.eat(b"-Infinity") => Ok(Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("expected a value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, JsonError> {
        self.i += 1;
        let mut members: Vec<(String, Json)> = Vec::new();
        self.ws();
        if self.eat(b"}") {
            return Ok(Json::Object(members));
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected a key"));
            }
            let key = self.string()?;
            self.ws();
            if !self.eat(b":") {
                return Err(self.err("expected ':'"));
            }
            let v = self.value(depth + 1)?;
            members.push((key, v));
            self.ws();
            if self.eat(b"}") {
                keep_last_of_repeated_keys(&mut members);
                return Ok(Json::Object(members));
            }
            if !self.eat(b",") {
                return Err(self.err("expected ',' or '}'"));
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, JsonError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.eat(b"]") {
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.ws();
            if self.eat(b"]") {
                return Ok(Json::Array(items));
            }
            if !self.eat(b",") {
                return Err(self.err("expected ',' or ']'"));
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self.s.get(self.i..self.i + 4).ok_or(self.err("bad \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.err("bad \\u escape"))?;
        let v = u32::from_str_radix(text, 16).map_err(|_| self.err("bad \\u escape"))?;
        self.i += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&b) = self.s.get(self.i) else { return Err(self.err("unterminated string")) };
            self.i += 1;
            match b {
                b'"' => return String::from_utf8(out).map_err(|_| self.err("invalid UTF-8")),
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else { return Err(self.err("unterminated string")) };
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode()?,
                        _ => return Err(self.err("bad escape")),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return Err(self.err("control character in string")),
                _ => out.push(b),
            }
        }
    }

    /// A `\uXXXX` escape (with its low surrogate when it is a high one).
    fn unicode(&mut self) -> Result<char, JsonError> {
        let hi = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&hi) {
            if !self.eat(b"\\u") {
                return Err(self.err("lone surrogate"));
            }
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(self.err("lone surrogate"));
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else {
            hi
        };
        char::from_u32(code).ok_or(self.err("lone surrogate"))
    }

    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let from = p.i;
            while p.s.get(p.i).is_some_and(u8::is_ascii_digit) {
                p.i += 1;
            }
            p.i > from
        };
        self.eat(b"-");
        let int_start = self.i;
        if !digits(self) || (self.s[int_start] == b'0' && self.i - int_start > 1) {
            return Err(JsonError { what: "bad number", at: start });
        }
        let mut whole = true;
        if self.eat(b".") {
            whole = false;
            if !digits(self) {
                return Err(JsonError { what: "bad number", at: start });
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            whole = false;
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !digits(self) {
                return Err(JsonError { what: "bad number", at: start });
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("bad number"))?;
        if whole && !text.starts_with('-') {
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Json::Uint(n));
            }
        }
        match super::units::parse_decimal(text) {
            Some(f) if f.is_finite() => Ok(Json::Num(f)),
            _ => Err(JsonError { what: "number out of range", at: start }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Json;

    #[test]
    fn reads_values_in_order() {
        let v =
            Json::parse(r#" {"a": 1, "b": [true, null, -2.5e1], "c": "x\u00e9\ud83d\ude00", "a": 7} "#).expect("json");
        assert_eq!(v.get("a"), Some(&Json::Uint(7)), "the last of a repeated key");
        let keys: Vec<&str> = v.as_object().map(|m| m.iter().map(|(k, _)| k.as_str()).collect()).unwrap_or_default();
        assert_eq!(keys, ["b", "c", "a"], "the others in their order, the repeated key where it was last");
        assert_eq!(v.get("b").and_then(Json::as_array).map(|a| a[2].clone()), Some(Json::Num(-25.0)));
        assert_eq!(v.get("c").and_then(Json::as_str), Some("xé😀"));
        assert_eq!(Json::parse("4.0").ok().and_then(|j| j.as_u64()), Some(4));
    }

    #[test]
    fn refuses_what_is_not_json() {
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"\\x\"", "\"\\ud800\"", "nul", "1 2", "\"a\u{1}\""]
        {
            assert!(Json::parse(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(10_000);
        assert!(Json::parse(&deep).is_err(), "nesting is limited");
        for bad in ["Inf", "-Inf", "NaNa", "infinity", "-NaN"] {
            assert!(Json::parse(bad).is_err(), "{bad:?}");
        }
    }

    /// Python's non-finite tokens (`json.dumps(float("inf"))`) read as null, never as a number.
    #[test]
    fn reads_python_s_non_finite_tokens_as_null() {
        let v = Json::parse(r#"{"time_step_limit": [0.0, Infinity], "a": -Infinity, "b": NaN}"#).expect("json");
        assert_eq!(v.get("time_step_limit").and_then(Json::as_array).map(|a| a[1].clone()), Some(Json::Null));
        assert!(v.get("a").is_some_and(Json::is_null) && v.get("b").is_some_and(Json::is_null));
    }
}
