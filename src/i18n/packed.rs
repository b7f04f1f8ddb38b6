//! Texts packed for the wasm: every text of a table one after the other in one byte string, and
//! where each ends. A `static` table of `(&str, &str)` costs 16 bytes of pointers and lengths per
//! entry, which gzip hardly shrinks, and a `match` returning the pairs costs code per arm; an end
//! offset costs 4 bytes (docs/size.md). The texts themselves stay where they are written, in the
//! exhaustive `const fn` matches of `templates.rs` and `mod.rs`: the compiler packs them.

/// `BYTES` bytes of text, and the end of each of the `ENDS` texts (the English of entry `i` is
/// text `2i`, its Chinese `2i + 1`).
pub struct Packed<const BYTES: usize, const ENDS: usize> {
    pub bytes: [u8; BYTES],
    pub ends: [u32; ENDS],
}

impl<const BYTES: usize, const ENDS: usize> Packed<BYTES, ENDS> {
    fn text(&'static self, k: usize) -> &'static str {
        let start = k.checked_sub(1).and_then(|j| self.ends.get(j)).map_or(0, |&e| e as usize);
        let end = self.ends.get(k).map_or(start, |&e| e as usize);
        self.bytes.get(start..end).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or("")
    }

    /// (English, Chinese) of entry `i`; empty past the end.
    pub fn pair(&'static self, i: usize) -> (&'static str, &'static str) {
        (self.text(2 * i), self.text(2 * i + 1))
    }
}

/// `packed!(NAME, COUNT, pair)`: a `static NAME` holding the `COUNT` pairs `pair(i)` (a `const fn`
/// of the index) packed. Const functions cannot call through a pointer, hence a macro.
macro_rules! packed {
    ($name:ident, $count:expr, $pair:path) => {
        static $name: $crate::i18n::packed::Packed<
            {
                let (mut n, mut i) = (0, 0);
                while i < $count {
                    let (en, zh) = $pair(i);
                    n += en.len() + zh.len();
                    i += 1;
                }
                n
            },
            { 2 * $count },
        > = {
            let mut packed = $crate::i18n::packed::Packed { bytes: [0; _], ends: [0; 2 * $count] };
            let (mut at, mut i) = (0, 0);
            while i < $count {
                let (en, zh) = $pair(i);
                let texts = [en.as_bytes(), zh.as_bytes()];
                let mut j = 0;
                while j < 2 {
                    let mut b = 0;
                    while b < texts[j].len() {
                        packed.bytes[at] = texts[j][b];
                        at += 1;
                        b += 1;
                    }
                    packed.ends[2 * i + j] = at as u32;
                    j += 1;
                }
                i += 1;
            }
            packed
        };
    };
}
pub(crate) use packed;

#[cfg(test)]
mod tests {
    const fn pair(i: usize) -> (&'static str, &'static str) {
        [("one", "一"), ("", ""), ("three", "三个")][i]
    }
    packed!(SAMPLE, 3, pair);

    #[test]
    fn every_pair_reads_back_as_written() {
        for i in 0..3 {
            assert_eq!(SAMPLE.pair(i), pair(i));
        }
        assert_eq!(SAMPLE.pair(3), ("", ""), "past the end: empty");
        // 3 + 3 + 0 + 0 + 5 + 6 bytes (一 is 3 bytes in UTF-8, 三个 6).
        assert_eq!(SAMPLE.bytes.len(), 17);
    }
}
