//! A pickle read as data, never run: Python's binary pickle protocols 2–5 as a stack machine over
//! an arena of values, in one pass (each opcode does constant work, or moves items it pops).
//!
//! Why not serde-pickle: it resolves a memo reference by cloning, and counts references so that a
//! value shared inside another shared value is gone by its second use ("recursive structure
//! found"). PyTorch's snapshots share exactly that way — `_snapshot()` symbolizes stack frames, so
//! one frame dict serves every event with that frame — and serde-pickle refused the fixture. Here
//! a memo entry is an arena index: sharing costs nothing.
//!
//! Only the opcodes that build lists, dicts, tuples, sets, strings, bytes and numbers are read.
//! Any opcode that names or calls code (`GLOBAL`, `STACK_GLOBAL`, `REDUCE`, `BUILD`, `INST`,
//! `OBJ`, `NEWOBJ`, `NEWOBJ_EX`, `PERSID`, `BINPERSID`, `EXT1/2/4`) refuses the whole file.

use crate::ledger::msg::{Arg, Msg};
use crate::msg;

/// A value: scalars, a byte range of the input for text, and arena ids for containers' items.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A `str` (UTF-8) or `bytes`, as the byte range of the pickle that holds it.
    Text(usize, usize),
    List(Vec<u32>),
    Tuple(Vec<u32>),
    Dict(Vec<(u32, u32)>),
}

/// A read pickle: its values and the root's id.
pub struct Pickle<'a> {
    pub input: &'a [u8],
    pub nodes: Vec<Node>,
    pub root: u32,
}

impl<'a> Pickle<'a> {
    pub fn node(&self, id: u32) -> &Node {
        self.nodes.get(id as usize).unwrap_or(&Node::None)
    }

    pub fn text(&self, id: u32) -> Option<&'a str> {
        match self.node(id) {
            Node::Text(at, len) => self.input.get(*at..at + len).and_then(|b| std::str::from_utf8(b).ok()),
            _ => None,
        }
    }

    pub fn int(&self, id: u32) -> Option<i64> {
        match self.node(id) {
            Node::Int(v) => Some(*v),
            Node::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// The items of a list or tuple (empty for anything else).
    pub fn items(&self, id: u32) -> &[u32] {
        match self.node(id) {
            Node::List(v) | Node::Tuple(v) => v,
            _ => &[],
        }
    }

    /// The member `key` of a dict whose keys are strings.
    pub fn get(&self, id: u32, key: &str) -> Option<u32> {
        match self.node(id) {
            Node::Dict(members) => members.iter().rev().find(|(k, _)| self.text(*k) == Some(key)).map(|(_, v)| *v),
            _ => None,
        }
    }
}

const NONE: u32 = u32::MAX;
const REPORT_EVERY: usize = 4 << 20;

enum Item {
    Mark,
    Value(u32),
}

struct Machine<'a> {
    s: &'a [u8],
    i: usize,
    nodes: Vec<Node>,
    stack: Vec<Item>,
    /// Memo key → arena id (`NONE` where unset). A key above the input's length cannot be
    /// honest (each memo entry costs an opcode), so the table stays linear in the input.
    memo: Vec<u32>,
    memoized: u32,
}

/// Reads `input` as a pickle; errors name the opcode and its byte. `progress` hears the share
/// read every 4 MiB.
pub fn read<'a>(input: &'a [u8], progress: super::Progress) -> Result<Pickle<'a>, Msg> {
    let mut m = Machine { s: input, i: 0, nodes: Vec::new(), stack: Vec::new(), memo: Vec::new(), memoized: 0 };
    let mut next_report = REPORT_EVERY;
    loop {
        let at = m.i;
        if at >= next_report {
            progress(at as f64 / input.len() as f64);
            next_report = at + REPORT_EVERY;
        }
        let op = m.take(1)?[0];
        if op == b'.' {
            break;
        }
        m.step(op).map_err(|e| {
            e.unwrap_or_else(|| msg!(TracePickleOpcode, Arg::Text(format!("0x{op:02x}")), Arg::Count(at as u64)))
        })?;
    }
    let root = match m.stack.pop() {
        Some(Item::Value(id)) => id,
        _ => return Err(msg!(TracePickleOpcode, Arg::Text("STOP".into()), Arg::Count(m.i as u64))),
    };
    Ok(Pickle { input, nodes: m.nodes, root })
}

/// `Err(None)`: an opcode out of place (the caller names it); `Err(Some(msg))`: a message already.
type Step = Result<(), Option<Msg>>;

impl Machine<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Msg> {
        let end = self.i.checked_add(n).filter(|&e| e <= self.s.len()).ok_or(msg!(TracePickleTruncated))?;
        let bytes = &self.s[self.i..end];
        self.i = end;
        Ok(bytes)
    }

    fn uint(&mut self, n: usize) -> Result<u64, Msg> {
        Ok(self.take(n)?.iter().rev().fold(0u64, |a, &b| (a << 8) | u64::from(b)))
    }

    fn push(&mut self, node: Node) {
        self.nodes.push(node);
        self.stack.push(Item::Value(self.nodes.len() as u32 - 1));
    }

    fn pop(&mut self) -> Result<u32, Option<Msg>> {
        match self.stack.pop() {
            Some(Item::Value(id)) => Ok(id),
            _ => Err(None),
        }
    }

    fn top(&self) -> Result<u32, Option<Msg>> {
        match self.stack.last() {
            Some(Item::Value(id)) => Ok(*id),
            _ => Err(None),
        }
    }

    /// The values above the topmost mark, the mark removed.
    fn pop_to_mark(&mut self) -> Result<Vec<u32>, Option<Msg>> {
        let mark = self.stack.iter().rposition(|i| matches!(i, Item::Mark)).ok_or(None)?;
        let items = self.stack.split_off(mark + 1);
        self.stack.pop();
        Ok(items.into_iter().filter_map(|i| if let Item::Value(v) = i { Some(v) } else { None }).collect())
    }

    fn text(&mut self, len_bytes: usize) -> Step {
        let len = usize::try_from(self.uint(len_bytes)?).map_err(|_| msg!(TracePickleTruncated))?;
        let at = self.i;
        self.take(len)?;
        self.push(Node::Text(at, len));
        Ok(())
    }

    fn long(&mut self, len_bytes: usize) -> Step {
        let len = usize::try_from(self.uint(len_bytes)?).map_err(|_| msg!(TracePickleTruncated))?;
        let bytes = self.take(len)?;
        let negative = bytes.last().is_some_and(|b| b & 0x80 != 0);
        let v = if len == 0 {
            0
        } else if len <= 8 {
            // Little-endian two's complement: shifted up to bit 63 and back, the sign extends.
            let raw = bytes.iter().rev().fold(0u64, |a, &b| (a << 8) | u64::from(b));
            let shift = 64 - 8 * len as u32;
            ((raw << shift) as i64) >> shift
        } else if negative {
            i64::MIN
        } else {
            i64::MAX
        };
        self.push(Node::Int(v));
        Ok(())
    }

    fn memo_put(&mut self, key: u32) -> Step {
        let id = self.top()?;
        let k = key as usize;
        if k > self.s.len() {
            return Err(None);
        }
        if k >= self.memo.len() {
            self.memo.resize(k + 1, NONE);
        }
        self.memo[k] = id;
        self.memoized += 1;
        Ok(())
    }

    fn memo_get(&mut self, key: u32) -> Step {
        let id = *self.memo.get(key as usize).filter(|&&id| id != NONE).ok_or(None)?;
        self.stack.push(Item::Value(id));
        Ok(())
    }

    /// Appends `items` to the list (or set) under them.
    fn append(&mut self, items: Vec<u32>) -> Step {
        let target = self.top()?;
        match self.nodes.get_mut(target as usize) {
            Some(Node::List(v)) => v.extend(items),
            _ => return Err(None),
        }
        Ok(())
    }

    fn set_items(&mut self, items: Vec<u32>) -> Step {
        if items.len() % 2 != 0 {
            return Err(None);
        }
        let target = self.top()?;
        match self.nodes.get_mut(target as usize) {
            Some(Node::Dict(v)) => v.extend(items.chunks(2).map(|kv| (kv[0], kv[1]))),
            _ => return Err(None),
        }
        Ok(())
    }

    fn step(&mut self, op: u8) -> Step {
        match op {
            0x80 => {
                self.take(1)?; // PROTO
            }
            0x95 => {
                self.take(8)?; // FRAME
            }
            b'(' => self.stack.push(Item::Mark), // MARK
            b'}' => self.push(Node::Dict(Vec::new())),
            b']' | 0x8f => self.push(Node::List(Vec::new())), // EMPTY_LIST, EMPTY_SET
            b')' => self.push(Node::Tuple(Vec::new())),
            0x85..=0x87 => {
                let n = usize::from(op - 0x84);
                let at = self.stack.len().checked_sub(n).ok_or(None)?;
                let items = self.stack.split_off(at);
                let ids: Option<Vec<u32>> =
                    items.into_iter().map(|i| if let Item::Value(v) = i { Some(v) } else { None }).collect();
                self.push(Node::Tuple(ids.ok_or(None)?));
            }
            b't' => {
                let items = self.pop_to_mark()?;
                self.push(Node::Tuple(items));
            }
            0x91 | b'l' => {
                let items = self.pop_to_mark()?; // FROZENSET, LIST
                self.push(Node::List(items));
            }
            b'd' => {
                let items = self.pop_to_mark()?;
                self.push(Node::Dict(Vec::new()));
                self.set_items(items)?;
            }
            b's' => {
                let (v, k) = (self.pop()?, self.pop()?);
                self.set_items(vec![k, v])?;
            }
            b'u' => {
                let items = self.pop_to_mark()?;
                self.set_items(items)?;
            }
            b'a' => {
                let v = self.pop()?;
                self.append(vec![v])?;
            }
            b'e' | 0x90 => {
                let items = self.pop_to_mark()?; // APPENDS, ADDITEMS
                self.append(items)?;
            }
            b'X' | b'B' | b'T' => self.text(4)?, // BINUNICODE, BINBYTES, BINSTRING
            0x8c | b'C' | b'U' => self.text(1)?, // SHORT_BINUNICODE, SHORT_BINBYTES, SHORT_BINSTRING
            0x8d | 0x8e | 0x96 => self.text(8)?, // BINUNICODE8, BINBYTES8, BYTEARRAY8
            b'J' => {
                let v = self.uint(4)? as u32 as i32;
                self.push(Node::Int(i64::from(v)));
            }
            b'K' => {
                let v = self.uint(1)?;
                self.push(Node::Int(v as i64));
            }
            b'M' => {
                let v = self.uint(2)?;
                self.push(Node::Int(v as i64));
            }
            0x8a => self.long(1)?,
            0x8b => self.long(4)?,
            b'G' => {
                let b = self.take(8)?;
                let v = f64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                self.push(Node::Float(v));
            }
            b'N' => self.push(Node::None),
            0x88 => self.push(Node::Bool(true)),
            0x89 => self.push(Node::Bool(false)),
            b'q' => {
                let k = self.uint(1)? as u32;
                self.memo_put(k)?;
            }
            b'r' => {
                let k = self.uint(4)? as u32;
                self.memo_put(k)?;
            }
            0x94 => {
                let k = self.memoized; // MEMOIZE: the next key
                self.memo_put(k)?;
            }
            b'h' => {
                let k = self.uint(1)? as u32;
                self.memo_get(k)?;
            }
            b'j' => {
                let k = self.uint(4)? as u32;
                self.memo_get(k)?;
            }
            b'0' => {
                self.stack.pop().ok_or(None)?;
            }
            b'1' => {
                self.pop_to_mark()?;
            }
            b'2' => {
                let v = self.top()?;
                self.stack.push(Item::Value(v));
            }
            b'c' | 0x93 | b'R' | b'b' | b'i' | b'o' | 0x81 | 0x92 | b'P' | b'Q' | 0x82..=0x84 => {
                return Err(Some(msg!(TraceRefusedGlobal)));
            }
            _ => return Err(None),
        }
        Ok(())
    }
}
