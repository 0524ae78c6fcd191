//! `jsonb`: JSON normalized as PostgreSQL normalizes it, in a binary form the operators
//! walk without parsing.
//!
//! Input is checked by `types::json::validate` (so the errors are json's), then built
//! bottom-up without recursion: each finished value becomes one encoded node, a
//! container's node is its children's, an object's members sorted as PostgreSQL keeps
//! them (shorter keys first, then bytewise) with the last of duplicate keys kept.
//! Numbers are kept as `numeric` prints them (`1e3` is `1000`, `1.0` stays `1.0`).
//!
//! A node is a tag byte and its payload; lengths and offsets are little-endian `u32`:
//!
//! ```text
//! null 0 | false 1 | true 2
//! number 3, len, numeric text          string 4, len, UTF-8 bytes
//! array  5, n, offsets[n + 1], elements          (offsets from the first element)
//! object 6, n, offsets[2n + 1], key, value, …    (keys are string nodes)
//! ```
//!
//! so a member or element is found in O(1) (an array index) or O(log n) (a key, by
//! binary search in PostgreSQL's key order), and every sub-node is itself a jsonb
//! value: `->` copies its bytes. Ordering is PostgreSQL's jsonb btree order (object >
//! array > boolean > number > string > null; more members or elements greater; then
//! member by member), and equality ignores a number's scale (`1.0 = 1`): the hash key
//! (`write_key`) writes numbers in `numeric`'s key form.

use std::cmp::Ordering;

use super::numeric::Numeric;
use crate::error::{Error, Result};

pub const NULL: u8 = 0;
pub const FALSE: u8 = 1;
pub const TRUE: u8 = 2;
pub const NUMBER: u8 = 3;
pub const STRING: u8 = 4;
pub const ARRAY: u8 = 5;
pub const OBJECT: u8 = 6;

fn put_u32(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u32).to_le_bytes());
}

fn get_u32(b: &[u8], at: usize) -> usize {
    b.get(at..at + 4)
        .and_then(|w| w.try_into().ok())
        .map_or(0, |w| u32::from_le_bytes(w) as usize)
}

/// Encoders of single nodes.
pub fn null() -> Vec<u8> {
    vec![NULL]
}

pub fn boolean(v: bool) -> Vec<u8> {
    vec![if v { TRUE } else { FALSE }]
}

pub fn number(n: &Numeric) -> Vec<u8> {
    let text = n.to_text();
    let mut out = Vec::with_capacity(5 + text.len());
    out.push(NUMBER);
    put_u32(&mut out, text.len());
    out.extend_from_slice(text.as_bytes());
    out
}

pub fn string(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + s.len());
    out.push(STRING);
    put_u32(&mut out, s.len());
    out.extend_from_slice(s.as_bytes());
    out
}

pub fn array(elements: &[Vec<u8>]) -> Vec<u8> {
    let body: usize = elements.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(5 + 4 * (elements.len() + 1) + body);
    out.push(ARRAY);
    put_u32(&mut out, elements.len());
    let mut at = 0;
    put_u32(&mut out, 0);
    for e in elements {
        at += e.len();
        put_u32(&mut out, at);
    }
    for e in elements {
        out.extend_from_slice(e);
    }
    out
}

/// PostgreSQL's order of object keys: shorter first, then bytewise.
pub fn key_order(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// An object of `members` (in any order; of duplicate keys the last one stays).
pub fn object(mut members: Vec<(String, Vec<u8>)>) -> Vec<u8> {
    // A stable sort keeps duplicates in input order: the last of each run wins.
    members.sort_by(|a, b| key_order(&a.0, &b.0));
    let mut kept: Vec<(String, Vec<u8>)> = Vec::with_capacity(members.len());
    for m in members {
        match kept.last_mut() {
            Some(last) if last.0 == m.0 => *last = m,
            _ => kept.push(m),
        }
    }
    let keys: Vec<Vec<u8>> = kept.iter().map(|(k, _)| string(k)).collect();
    let body: usize =
        keys.iter().map(Vec::len).sum::<usize>() + kept.iter().map(|(_, v)| v.len()).sum::<usize>();
    let mut out = Vec::with_capacity(5 + 4 * (2 * kept.len() + 1) + body);
    out.push(OBJECT);
    put_u32(&mut out, kept.len());
    let mut at = 0;
    put_u32(&mut out, 0);
    for (k, (_, v)) in keys.iter().zip(&kept) {
        at += k.len();
        put_u32(&mut out, at);
        at += v.len();
        put_u32(&mut out, at);
    }
    for (k, (_, v)) in keys.iter().zip(&kept) {
        out.extend_from_slice(k);
        out.extend_from_slice(v);
    }
    out
}

/// One jsonb value, looked at.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    /// The number as numeric prints it.
    Number(&'a str),
    String(&'a str),
    Array(Elements<'a>),
    Object(Members<'a>),
}

/// An array's elements.
#[derive(Clone, Copy, Debug)]
pub struct Elements<'a> {
    node: &'a [u8],
}

/// An object's members, in key order.
#[derive(Clone, Copy, Debug)]
pub struct Members<'a> {
    node: &'a [u8],
}

impl<'a> Elements<'a> {
    pub fn len(&self) -> usize {
        get_u32(self.node, 1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` (0-based) as a jsonb value.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let n = self.len();
        if i >= n {
            return None;
        }
        let base = 5 + 4 * (n + 1);
        let from = get_u32(self.node, 5 + 4 * i);
        let to = get_u32(self.node, 5 + 4 * (i + 1));
        self.node.get(base + from..base + to)
    }

    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        let this = *self;
        (0..self.len()).filter_map(move |i| this.get(i))
    }
}

impl<'a> Members<'a> {
    pub fn len(&self) -> usize {
        get_u32(self.node, 1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn slice(&self, k: usize) -> Option<&'a [u8]> {
        let n = self.len();
        let base = 5 + 4 * (2 * n + 1);
        let from = get_u32(self.node, 5 + 4 * k);
        let to = get_u32(self.node, 5 + 4 * (k + 1));
        self.node.get(base + from..base + to)
    }

    /// Member `i`'s key.
    pub fn key(&self, i: usize) -> &'a str {
        match self.slice(2 * i).map(view) {
            Some(Node::String(s)) => s,
            _ => "",
        }
    }

    /// Member `i`'s value as a jsonb value.
    pub fn value(&self, i: usize) -> Option<&'a [u8]> {
        if i >= self.len() {
            return None;
        }
        self.slice(2 * i + 1)
    }

    /// Member `i`'s key as bytes (not checked again as UTF-8: keys are checked when
    /// they enter).
    pub fn key_bytes(&self, i: usize) -> &'a [u8] {
        match self.slice(2 * i) {
            Some(k) if k.first() == Some(&STRING) => k.get(5..5 + get_u32(k, 1)).unwrap_or(b""),
            _ => b"",
        }
    }

    /// The value under `key` (binary search in key order).
    pub fn find(&self, key: &str) -> Option<&'a [u8]> {
        self.find_bytes(key.as_bytes())
    }

    /// The value under the key spelled by `key`'s bytes.
    pub fn find_bytes(&self, key: &[u8]) -> Option<&'a [u8]> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let k = self.key_bytes(mid);
            match k.len().cmp(&key.len()).then_with(|| k.cmp(key)) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return self.value(mid),
            }
        }
        None
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a [u8])> + '_ {
        let this = *self;
        (0..self.len()).filter_map(move |i| Some((this.key(i), this.value(i)?)))
    }
}

/// The value `b` encodes.
pub fn view(b: &[u8]) -> Node<'_> {
    fn text(b: &[u8]) -> &str {
        let n = get_u32(b, 1);
        b.get(5..5 + n)
            .and_then(|t| std::str::from_utf8(t).ok())
            .unwrap_or("")
    }
    match b.first() {
        Some(&FALSE) => Node::Bool(false),
        Some(&TRUE) => Node::Bool(true),
        Some(&NUMBER) => Node::Number(text(b)),
        Some(&STRING) => Node::String(text(b)),
        Some(&ARRAY) => Node::Array(Elements { node: b }),
        Some(&OBJECT) => Node::Object(Members { node: b }),
        _ => Node::Null,
    }
}

/// PostgreSQL's jsonb_typeof.
pub fn type_name(b: &[u8]) -> &'static str {
    match view(b) {
        Node::Null => "null",
        Node::Bool(_) => "boolean",
        Node::Number(_) => "number",
        Node::String(_) => "string",
        Node::Array(_) => "array",
        Node::Object(_) => "object",
    }
}

/// Nesting deeper than this is refused, as json's input refuses it.
const DEPTH_MAX: usize = 10_000;

fn unicode_error(detail: &str) -> Error {
    Error::new("22P02", "invalid input syntax for type json").with_detail(detail.to_string())
}

/// jsonb's input: the text checked as json, then normalized.
pub fn parse(text: &str) -> Result<Vec<u8>> {
    super::json::validate(text)?;
    let b = text.as_bytes();
    enum Frame {
        Array(Vec<Vec<u8>>),
        Object(Vec<(String, Vec<u8>)>, Option<String>),
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
            *i += 1;
        }
    };
    loop {
        ws(&mut i);
        // An object member's key first.
        if let Some(Frame::Object(_, key @ None)) = stack.last_mut() {
            let (s, next) = read_string(b, i)?;
            *key = Some(s);
            i = next;
            ws(&mut i);
            i += 1; // ':'
            ws(&mut i);
        }
        let value: Vec<u8> = match b.get(i) {
            Some(b'{') | Some(b'[') => {
                if stack.len() >= DEPTH_MAX {
                    return Err(Error::new("54001", "stack depth limit exceeded"));
                }
                let object = b[i] == b'{';
                i += 1;
                ws(&mut i);
                let close = if object { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    i += 1;
                    if object {
                        object_node(Vec::new())
                    } else {
                        array(&[])
                    }
                } else {
                    stack.push(if object {
                        Frame::Object(Vec::new(), None)
                    } else {
                        Frame::Array(Vec::new())
                    });
                    continue;
                }
            }
            Some(b'"') => {
                let (s, next) = read_string(b, i)?;
                i = next;
                string(&s)
            }
            Some(b't') => {
                i += 4;
                boolean(true)
            }
            Some(b'f') => {
                i += 5;
                boolean(false)
            }
            Some(b'n') => {
                i += 4;
                null()
            }
            _ => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let n = Numeric::parse(&text[start..i])?;
                number(&n)
            }
        };
        // Hand the value up, closing containers as their ends come.
        let mut value = value;
        loop {
            match stack.last_mut() {
                None => return Ok(value),
                Some(Frame::Array(items)) => items.push(value),
                Some(Frame::Object(members, key)) => {
                    members.push((key.take().unwrap_or_default(), value));
                }
            }
            ws(&mut i);
            match b.get(i) {
                Some(b',') => {
                    i += 1;
                    break;
                }
                _ => {
                    // ']' or '}' (json's check has seen to it).
                    i += 1;
                    value = match stack.pop() {
                        Some(Frame::Array(items)) => array(&items),
                        Some(Frame::Object(members, _)) => object_node(members),
                        None => return Err(Error::internal("jsonb parser lost its place")),
                    };
                }
            }
        }
    }
}

fn object_node(members: Vec<(String, Vec<u8>)>) -> Vec<u8> {
    object(members)
}

/// A JSON string at the quote at `i`, unescaped; and the index after it.
fn read_string(b: &[u8], mut i: usize) -> Result<(String, usize)> {
    i += 1;
    let mut out: Vec<u8> = Vec::new();
    let mut high: Option<u32> = None;
    while let Some(&c) = b.get(i) {
        if c != b'\\' && high.is_some() {
            return Err(unicode_error(
                "Unicode low surrogate must follow a high surrogate.",
            ));
        }
        match c {
            b'"' => {
                let s = String::from_utf8(out).map_err(|_| Error::invalid_utf8())?;
                return Ok((s, i + 1));
            }
            b'\\' => {
                let e = b.get(i + 1).copied().unwrap_or(b'\\');
                if e != b'u' && high.is_some() {
                    return Err(unicode_error(
                        "Unicode low surrogate must follow a high surrogate.",
                    ));
                }
                match e {
                    b'u' => {
                        let hex = std::str::from_utf8(b.get(i + 2..i + 6).unwrap_or(b"0000"))
                            .unwrap_or("0000");
                        let code = u32::from_str_radix(hex, 16).unwrap_or(0);
                        i += 6;
                        match (high.take(), code) {
                            (None, 0xD800..=0xDBFF) => {
                                high = Some(code);
                                continue;
                            }
                            (Some(_), 0xD800..=0xDBFF) => {
                                return Err(unicode_error(
                                    "Unicode high surrogate must not follow a high surrogate.",
                                ));
                            }
                            (Some(h), 0xDC00..=0xDFFF) => {
                                let c = 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00);
                                push_char(&mut out, c);
                            }
                            (None, 0xDC00..=0xDFFF) => {
                                return Err(unicode_error(
                                    "Unicode low surrogate must follow a high surrogate.",
                                ));
                            }
                            (Some(_), _) => {
                                return Err(unicode_error(
                                    "Unicode low surrogate must follow a high surrogate.",
                                ));
                            }
                            (None, 0) => {
                                return Err(Error::new(
                                    "22P05",
                                    "unsupported Unicode escape sequence",
                                )
                                .with_detail("\\u0000 cannot be converted to text."));
                            }
                            (None, c) => push_char(&mut out, c),
                        }
                        continue;
                    }
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    other => out.push(other),
                }
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(unicode_error("The input string ended unexpectedly."))
}

fn push_char(out: &mut Vec<u8>, c: u32) {
    let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
    let mut buf = [0u8; 4];
    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
}

/// A string as JSON text writes it (PostgreSQL's escape_json).
pub fn write_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for &c in s.as_bytes() {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            8 => out.extend_from_slice(b"\\b"),
            12 => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            _ => out.push(c),
        }
    }
    out.push(b'"');
}

/// jsonb's output: `{"a": 1, "b": [1, 2]}`.
pub fn write_text(b: &[u8], out: &mut Vec<u8>) {
    match view(b) {
        Node::Null => out.extend_from_slice(b"null"),
        Node::Bool(v) => out.extend_from_slice(if v { b"true" } else { b"false" }),
        Node::Number(n) => out.extend_from_slice(n.as_bytes()),
        Node::String(s) => write_string(out, s),
        Node::Array(a) => {
            out.push(b'[');
            for (k, e) in a.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(b", ");
                }
                write_text(e, out);
            }
            out.push(b']');
        }
        Node::Object(o) => {
            out.push(b'{');
            for (k, (key, v)) in o.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(b", ");
                }
                write_string(out, key);
                out.extend_from_slice(b": ");
                write_text(v, out);
            }
            out.push(b'}');
        }
    }
}

pub fn to_text(b: &[u8]) -> String {
    let mut out = Vec::new();
    write_text(b, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// jsonb_pretty: four spaces of indent per level, one member or element a line.
pub fn write_pretty(b: &[u8], level: usize, out: &mut Vec<u8>) {
    let indent = |out: &mut Vec<u8>, level: usize| {
        for _ in 0..level {
            out.extend_from_slice(b"    ");
        }
    };
    match view(b) {
        Node::Array(a) => {
            out.push(b'[');
            if a.is_empty() {
                // PostgreSQL opens and closes an empty container on two lines.
                out.push(b'\n');
                indent(out, level);
                out.push(b']');
                return;
            }
            for (k, e) in a.iter().enumerate() {
                out.extend_from_slice(if k > 0 { b",\n" } else { b"\n" });
                indent(out, level + 1);
                write_pretty(e, level + 1, out);
            }
            out.push(b'\n');
            indent(out, level);
            out.push(b']');
        }
        Node::Object(o) => {
            out.push(b'{');
            if o.is_empty() {
                out.push(b'\n');
                indent(out, level);
                out.push(b'}');
                return;
            }
            for (k, (key, v)) in o.iter().enumerate() {
                out.extend_from_slice(if k > 0 { b",\n" } else { b"\n" });
                indent(out, level + 1);
                write_string(out, key);
                out.extend_from_slice(b": ");
                write_pretty(v, level + 1, out);
            }
            out.push(b'\n');
            indent(out, level);
            out.push(b'}');
        }
        _ => write_text(b, out),
    }
}

fn rank(n: &Node) -> u8 {
    match n {
        Node::Null => 0,
        Node::String(_) => 1,
        Node::Number(_) => 2,
        Node::Bool(_) => 3,
        Node::Array(_) => 4,
        Node::Object(_) => 5,
    }
}

fn numeric_of(text: &str) -> Numeric {
    Numeric::parse(text).unwrap_or(Numeric::ZERO)
}

/// PostgreSQL's jsonb btree order.
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    // PostgreSQL stores a top-level scalar as a one-element array and compares element
    // counts first, so an empty top-level array sorts before every scalar.
    let scalar = |n: &Node| !matches!(n, Node::Array(_) | Node::Object(_));
    match (view(a), view(b)) {
        (Node::Array(p), ref y) if p.is_empty() && scalar(y) => return Ordering::Less,
        (ref x, Node::Array(q)) if q.is_empty() && scalar(x) => return Ordering::Greater,
        _ => {}
    }
    compare_nested(a, b)
}

fn compare_nested(a: &[u8], b: &[u8]) -> Ordering {
    let (x, y) = (view(a), view(b));
    let by_rank = rank(&x).cmp(&rank(&y));
    if by_rank != Ordering::Equal {
        return by_rank;
    }
    match (x, y) {
        (Node::Bool(p), Node::Bool(q)) => p.cmp(&q),
        (Node::Number(p), Node::Number(q)) => numeric_of(p).cmp_value(&numeric_of(q)),
        (Node::String(p), Node::String(q)) => p.as_bytes().cmp(q.as_bytes()),
        (Node::Array(p), Node::Array(q)) => p.len().cmp(&q.len()).then_with(|| {
            p.iter()
                .zip(q.iter())
                .map(|(e, f)| compare_nested(e, f))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        }),
        (Node::Object(p), Node::Object(q)) => p.len().cmp(&q.len()).then_with(|| {
            p.iter()
                .zip(q.iter())
                .map(|((k, v), (l, w))| {
                    // Keys iterate in storage order but compare as strings.
                    k.as_bytes()
                        .cmp(l.as_bytes())
                        .then_with(|| compare_nested(v, w))
                })
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        }),
        _ => Ordering::Equal,
    }
}

/// A key equal values share (for hashing: GROUP BY, DISTINCT, hash joins).
pub fn write_key(b: &[u8], out: &mut Vec<u8>) {
    match view(b) {
        Node::Number(n) => {
            out.push(NUMBER);
            numeric_of(n).write_key(out);
        }
        Node::Array(a) => {
            out.push(ARRAY);
            put_u32(out, a.len());
            for e in a.iter() {
                write_key(e, out);
            }
        }
        Node::Object(o) => {
            out.push(OBJECT);
            put_u32(out, o.len());
            for (k, v) in o.iter() {
                put_u32(out, k.len());
                out.extend_from_slice(k.as_bytes());
                write_key(v, out);
            }
        }
        _ => out.extend_from_slice(b),
    }
}

/// `a @> b`: PostgreSQL's containment (JsonbDeepContains). Works on the tags and
/// bytes: no value is decoded but numbers of different spelling.
pub fn contains(a: &[u8], b: &[u8]) -> bool {
    let is_container = |t: Option<&u8>| matches!(t, Some(&ARRAY | &OBJECT));
    match (view_container(a), view_container(b)) {
        (Some(Node::Object(x)), Some(Node::Object(y))) => (0..y.len()).all(|i| {
            let Some(w) = y.value(i) else { return false };
            x.find_bytes(y.key_bytes(i)).is_some_and(|v| {
                if is_container(v.first()) && v.first() == w.first() {
                    contains(v, w)
                } else {
                    scalar_equal(v, w)
                }
            })
        }),
        (Some(Node::Array(x)), Some(Node::Array(y))) => y.iter().all(|w| {
            if is_container(w.first()) {
                x.iter().any(|v| v.first() == w.first() && contains(v, w))
            } else {
                x.iter().any(|v| scalar_equal(v, w))
            }
        }),
        // A top-level array contains a top-level scalar it holds.
        (Some(Node::Array(x)), None) => x.iter().any(|v| scalar_equal(v, b)),
        (Some(_), _) => false,
        _ => scalar_equal(a, b),
    }
}

/// An array or object's view; None for a scalar.
fn view_container(b: &[u8]) -> Option<Node<'_>> {
    match b.first() {
        Some(&ARRAY) => Some(Node::Array(Elements { node: b })),
        Some(&OBJECT) => Some(Node::Object(Members { node: b })),
        _ => None,
    }
}

/// Two scalars equal (numbers by value); containers are never equal here.
fn scalar_equal(a: &[u8], b: &[u8]) -> bool {
    match (a.first(), b.first()) {
        (Some(&NUMBER), Some(&NUMBER)) => {
            a == b
                || match (view(a), view(b)) {
                    (Node::Number(p), Node::Number(q)) => {
                        numeric_of(p).cmp_value(&numeric_of(q)).is_eq()
                    }
                    _ => false,
                }
        }
        (Some(&ARRAY | &OBJECT), _) | (_, Some(&ARRAY | &OBJECT)) => false,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(text: &str) -> String {
        to_text(&parse(text).unwrap())
    }

    #[test]
    fn normalizes_as_postgres() {
        assert_eq!(
            round(r#"{"bb": 1, "a": [1e3, 1.0, -0], "a": "x", "c": {}}"#),
            r#"{"a": "x", "c": {}, "bb": 1}"#
        );
        assert_eq!(
            round(" [ 1 , \"\\u00e9\\n\" , null , true ] "),
            "[1, \"é\\n\", null, true]"
        );
        assert_eq!(round(r#""\ud83d\ude00""#), "\"😀\"");
        assert!(parse(r#""\u0000""#).is_err());
        assert!(parse(r#""\ud83d""#).is_err());
    }

    #[test]
    fn walks_and_compares() {
        let v = parse(r#"{"a": [10, {"b": true}], "ccc": null}"#).unwrap();
        let Node::Object(o) = view(&v) else { panic!() };
        let a = o.find("a").unwrap();
        let Node::Array(items) = view(a) else {
            panic!()
        };
        assert_eq!(to_text(items.get(1).unwrap()), r#"{"b": true}"#);
        assert!(o.find("b").is_none());
        let p = |t: &str| parse(t).unwrap();
        assert_eq!(compare(&p("1.0"), &p("1")), Ordering::Equal);
        assert_eq!(compare(&p("{}"), &p("[]")), Ordering::Greater);
        assert_eq!(compare(&p("[1, 2]"), &p("[3]")), Ordering::Greater);
        assert_eq!(compare(&p("\"a\""), &p("1")), Ordering::Less);
        let (mut k1, mut k2) = (Vec::new(), Vec::new());
        write_key(&p("[1.0, {\"a\": 2}]"), &mut k1);
        write_key(&p("[1, {\"a\": 2.00}]"), &mut k2);
        assert_eq!(k1, k2);
        assert!(contains(
            &p(r#"{"a": [1, 2, {"x": 1}], "b": 1}"#),
            &p(r#"{"a": [{"x": 1}, 2]}"#)
        ));
        assert!(contains(&p("[1, 2]"), &p("1")));
        assert!(!contains(&p("[1, 2]"), &p("[[1]]")));
    }
}
