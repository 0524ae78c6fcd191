//! Arrays: their stored form, PostgreSQL's text and binary representations, and the
//! comparisons and keys that let them be sorted, grouped and joined on.
//!
//! # Stored form
//! An array value is one byte string (a row of a column's [`TextVec`]-like buffer, or
//! [`Array::bytes`] for a single value), shaped like PostgreSQL's own `ArrayType`:
//!
//! ```text
//! ndims: u8                      0 for the empty array, at most MAX_DIMS
//! ndims × (len: i32, lbound: i32)   little-endian
//! elements, row-major:  0x00            NULL
//!                       0x01 payload    a value of the element type
//! ```
//!
//! The payload is the element's natural width (bool 1, int2 2, int4 and date 4, int8,
//! float8, timestamps 8, interval 16 bytes, little-endian) or, for strings and numerics,
//! a `u32` length and the text. One buffer per batch holds every row's array, as strings
//! are held: no allocation per row or per element. The element type travels with the
//! column ([`DataType::Array`]), not in each value.
//!
//! Byte equality is not SQL equality (`'{1.0}' = '{1.00}'` for numeric[], `-0 = 0` for
//! float8[]), so comparisons decode and compare element by element with each element
//! type's own rules ([`compare`], PostgreSQL's `array_cmp`), and hash keys write each
//! element's canonical key ([`write_key`]).
//!
//! Issue "Every query" brings arrays of every scalar type kiln has, one or more
//! dimensions, lower bounds other than 1 in literals; the array functions beyond the
//! first ones, slices in UPDATE, and arrays of arrays' own types belong to issue "Types".

use std::cmp::Ordering;

use super::datetime::Interval;
use super::text::{self, TextFormat};
use super::{DataType, Numeric, SqlType, Value};
use crate::error::{Error, Result};

/// PostgreSQL's MAXDIM.
pub const MAX_DIMS: usize = 6;
/// PostgreSQL's MaxArraySize: elements an array may hold at most.
pub const MAX_ELEMENTS: usize = 134_217_727;

/// One array value of a known element type.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub elem: DataType,
    pub bytes: Vec<u8>,
}

/// One dimension: its length and lower bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim {
    pub len: i32,
    pub lbound: i32,
}

/// An array's shape and its elements' bytes, read from the stored form.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    dims: &'a [u8],
    elems: &'a [u8],
    elem: DataType,
}

impl<'a> View<'a> {
    /// Reads the stored form (built by kiln; a malformed one reads as empty).
    pub fn new(bytes: &'a [u8], elem: DataType) -> View<'a> {
        let ndims = bytes.first().copied().unwrap_or(0) as usize;
        let end = 1 + ndims * 8;
        if ndims > MAX_DIMS || bytes.len() < end {
            return View {
                dims: &[],
                elems: &[],
                elem,
            };
        }
        View {
            dims: &bytes[1..end],
            elems: &bytes[end..],
            elem,
        }
    }

    pub fn ndims(&self) -> usize {
        self.dims.len() / 8
    }

    pub fn dim(&self, d: usize) -> Dim {
        let at = d * 8;
        let word = |o: usize| {
            self.dims
                .get(o..o + 4)
                .and_then(|b| b.try_into().ok())
                .map_or(0, i32::from_le_bytes)
        };
        Dim {
            len: word(at),
            lbound: word(at + 4),
        }
    }

    pub fn dims(&self) -> Vec<Dim> {
        (0..self.ndims()).map(|d| self.dim(d)).collect()
    }

    /// Number of elements (the product of the dimensions).
    pub fn len(&self) -> usize {
        if self.ndims() == 0 {
            return 0;
        }
        (0..self.ndims())
            .map(|d| self.dim(d).len.max(0) as usize)
            .product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements' payloads in order (`None` for NULL).
    pub fn elements(&self) -> Elements<'a> {
        Elements {
            rest: self.elems,
            elem: self.elem,
        }
    }

    /// The elements as values.
    pub fn values(&self) -> Vec<Value> {
        self.elements()
            .map(|e| e.map_or(Value::Null, |p| decode(p, self.elem)))
            .collect()
    }

    pub fn has_nulls(&self) -> bool {
        self.elements().any(|e| e.is_none())
    }
}

/// Iterates over the payloads of a stored array's elements.
pub struct Elements<'a> {
    rest: &'a [u8],
    elem: DataType,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Option<&'a [u8]>;

    fn next(&mut self) -> Option<Option<&'a [u8]>> {
        let (&tag, after) = self.rest.split_first()?;
        if tag == 0 {
            self.rest = after;
            return Some(None);
        }
        let len = match fixed_width(self.elem) {
            Some(w) => w,
            None => {
                let n = after
                    .get(..4)
                    .and_then(|b| b.try_into().ok())
                    .map_or(0, u32::from_le_bytes) as usize;
                4 + n
            }
        };
        let Some(payload) = after.get(..len) else {
            self.rest = &[];
            return None;
        };
        self.rest = &after[len..];
        Some(Some(payload))
    }
}

/// Payload width of a fixed-width element type.
pub(crate) fn fixed_width(elem: DataType) -> Option<usize> {
    Some(match elem {
        DataType::Bool => 1,
        DataType::Int2 => 2,
        DataType::Int4 | DataType::Date | DataType::Float4 => 4,
        DataType::Int8
        | DataType::Float8
        | DataType::Timestamp
        | DataType::Timestamptz
        | DataType::Time
        | DataType::TimeTz
        | DataType::Oid => 8,
        DataType::Interval => 16,
        _ => return None,
    })
}

/// Writes arrays in the stored form: the shape first, then the elements.
pub struct Builder<'o> {
    out: &'o mut Vec<u8>,
}

impl<'o> Builder<'o> {
    /// Starts an array of the given shape (no dimensions: the empty array).
    pub fn new(out: &'o mut Vec<u8>, dims: &[Dim]) -> Builder<'o> {
        out.push(dims.len() as u8);
        for d in dims {
            out.extend_from_slice(&d.len.to_le_bytes());
            out.extend_from_slice(&d.lbound.to_le_bytes());
        }
        Builder { out }
    }

    /// A one-dimensional array of `n` elements from 1 (the empty array when `n` is 0).
    pub fn one_dim(out: &'o mut Vec<u8>, n: usize) -> Builder<'o> {
        if n == 0 {
            return Builder::new(out, &[]);
        }
        Builder::new(
            out,
            &[Dim {
                len: n as i32,
                lbound: 1,
            }],
        )
    }

    pub fn push_null(&mut self) {
        self.out.push(0);
    }

    /// Appends a stored element payload as it is.
    pub fn push_payload(&mut self, payload: Option<&[u8]>) {
        push_payload(self.out, payload);
    }

    /// Appends a value (of the element type; text for strings, numerics as numerics).
    pub fn push(&mut self, v: &Value) {
        push_value(self.out, v);
    }
}

/// Appends one element (None: NULL) after a shape written by [`Builder`].
pub fn push_value(out: &mut Vec<u8>, v: &Value) {
    {
        if v.is_null() {
            out.push(0);
            return;
        }
        out.push(1);
        match v {
            Value::Null => {}
            Value::Bool(x) => out.push(*x as u8),
            Value::Int2(x) => out.extend_from_slice(&x.to_le_bytes()),
            Value::Int4(x) | Value::Date(x) => out.extend_from_slice(&x.to_le_bytes()),
            Value::Int8(x)
            | Value::Timestamp(x)
            | Value::Timestamptz(x)
            | Value::Time(x)
            | Value::TimeTz(x) => out.extend_from_slice(&x.to_le_bytes()),
            Value::Float4(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
            Value::Float8(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
            Value::Interval(x) => {
                out.extend_from_slice(&x.months.to_le_bytes());
                out.extend_from_slice(&x.days.to_le_bytes());
                out.extend_from_slice(&x.micros.to_le_bytes());
            }
            Value::Numeric(n) => push_str(out, n.to_text().as_bytes()),
            Value::Text(s) => push_str(out, s.as_bytes()),
            Value::Array(a) => push_str(out, &a.bytes),
            Value::Record(r) => push_str(out, r),
            Value::Uuid(u) => push_str(out, u),
            Value::Bytes(b) => push_str(out, b),
            Value::Jsonb(b) => push_str(out, b),
            Value::Raw(_, b) => push_str(out, b),
        }
    }
}

/// Appends a stored element payload (None: NULL) after a shape written by [`Builder`].
pub fn push_payload(out: &mut Vec<u8>, payload: Option<&[u8]>) {
    match payload {
        None => out.push(0),
        Some(p) => {
            out.push(1);
            out.extend_from_slice(p);
        }
    }
}

fn push_str(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// The value of one element payload.
pub fn decode(p: &[u8], elem: DataType) -> Value {
    let word4 = || p.get(..4).and_then(|b| b.try_into().ok()).unwrap_or([0; 4]);
    let word8 = || p.get(..8).and_then(|b| b.try_into().ok()).unwrap_or([0; 8]);
    let str_at = || std::str::from_utf8(p.get(4..).unwrap_or(&[])).unwrap_or("");
    match elem {
        DataType::Bool => Value::Bool(p.first().is_some_and(|&b| b != 0)),
        DataType::Int2 => Value::Int2(i16::from_le_bytes(
            p.get(..2).and_then(|b| b.try_into().ok()).unwrap_or([0; 2]),
        )),
        DataType::Int4 => Value::Int4(i32::from_le_bytes(word4())),
        DataType::Date => Value::Date(i32::from_le_bytes(word4())),
        DataType::Int8 | DataType::Oid => Value::Int8(i64::from_le_bytes(word8())),
        DataType::Timestamp => Value::Timestamp(i64::from_le_bytes(word8())),
        DataType::Timestamptz => Value::Timestamptz(i64::from_le_bytes(word8())),
        DataType::Time => Value::Time(i64::from_le_bytes(word8())),
        DataType::TimeTz => Value::TimeTz(i64::from_le_bytes(word8())),
        DataType::Float4 => Value::Float4(f32::from_bits(u32::from_le_bytes(word4()))),
        DataType::Float8 => Value::Float8(f64::from_bits(u64::from_le_bytes(word8()))),
        DataType::Interval => {
            let at = |r: std::ops::Range<usize>| p.get(r).unwrap_or(&[0; 8]);
            Value::Interval(Interval {
                months: i32::from_le_bytes(at(0..4).try_into().unwrap_or([0; 4])),
                days: i32::from_le_bytes(at(4..8).try_into().unwrap_or([0; 4])),
                micros: i64::from_le_bytes(at(8..16).try_into().unwrap_or([0; 8])),
            })
        }
        DataType::Numeric => Value::Numeric(Numeric::parse(str_at()).unwrap_or(Numeric::ZERO)),
        DataType::Record => Value::Record(p.get(4..).unwrap_or(&[]).to_vec()),
        DataType::Uuid => Value::Uuid(
            p.get(4..20)
                .and_then(|b| b.try_into().ok())
                .unwrap_or([0; 16]),
        ),
        DataType::Bytea => Value::Bytes(p.get(4..).unwrap_or(&[]).to_vec()),
        DataType::Inet
        | DataType::Cidr
        | DataType::MacAddr
        | DataType::MacAddr8
        | DataType::Range(_)
        | DataType::TsVector
        | DataType::TsQuery => Value::Raw(elem, p.get(4..).unwrap_or(&[]).to_vec()),
        DataType::Jsonb => Value::Jsonb(p.get(4..).unwrap_or(&[]).to_vec()),
        // An array inside a record (arrays of arrays do not exist).
        DataType::Array(e) => Value::Array(Box::new(Array {
            elem: *e,
            bytes: p.get(4..).unwrap_or(&[]).to_vec(),
        })),
        _ => Value::Text(str_at().to_string()),
    }
}

/// Compares two elements of one type by that type's ordering (NULLs excluded).
pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int2(x), Value::Int2(y)) => x.cmp(y),
        (Value::Int4(x), Value::Int4(y)) | (Value::Date(x), Value::Date(y)) => x.cmp(y),
        (Value::Int8(x), Value::Int8(y))
        | (Value::Timestamp(x), Value::Timestamp(y))
        | (Value::Timestamptz(x), Value::Timestamptz(y))
        | (Value::Time(x), Value::Time(y))
        | (Value::TimeTz(x), Value::TimeTz(y)) => x.cmp(y),
        (Value::Float4(x), Value::Float4(y)) => cmp_f64(*x as f64, *y as f64),
        (Value::Float8(x), Value::Float8(y)) => cmp_f64(*x, *y),
        (Value::Numeric(x), Value::Numeric(y)) => x.cmp_value(y),
        (Value::Interval(x), Value::Interval(y)) => x.cmp(y),
        (Value::Text(x), Value::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Array(x), Value::Array(y)) => compare(&x.bytes, &y.bytes, x.elem),
        (Value::Record(x), Value::Record(y)) => super::record::compare(x, y),
        (Value::Uuid(x), Value::Uuid(y)) => x.cmp(y),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::Jsonb(x), Value::Jsonb(y)) => super::jsonb::compare(x, y),
        // Network addresses and ranges: their stored bytes' order is PostgreSQL's.
        (Value::Raw(_, x), Value::Raw(_, y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

fn cmp_f64(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b)
        .unwrap_or_else(|| a.is_nan().cmp(&b.is_nan()))
}

/// Compares two stored payloads of one element type.
fn compare_payloads(a: &[u8], b: &[u8], elem: DataType) -> Ordering {
    match elem {
        DataType::Text | DataType::Varchar | DataType::Unknown => {
            a.get(4..).unwrap_or(&[]).cmp(b.get(4..).unwrap_or(&[]))
        }
        DataType::Bpchar => {
            let trim =
                |s: &'_ [u8]| -> usize { s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1) };
            let (x, y) = (a.get(4..).unwrap_or(&[]), b.get(4..).unwrap_or(&[]));
            x[..trim(x)].cmp(&y[..trim(y)])
        }
        _ => compare_values(&decode(a, elem), &decode(b, elem)),
    }
}

/// PostgreSQL's `array_cmp`: element by element (a NULL element is greater than any
/// value), then the element count, the number of dimensions, the dimensions' lengths
/// and their lower bounds.
pub fn compare(a: &[u8], b: &[u8], elem: DataType) -> Ordering {
    let (x, y) = (View::new(a, elem), View::new(b, elem));
    for (p, q) in x.elements().zip(y.elements()) {
        let o = match (p, q) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(p), Some(q)) => compare_payloads(p, q, elem),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    x.len()
        .cmp(&y.len())
        .then(x.ndims().cmp(&y.ndims()))
        .then_with(|| {
            let (dx, dy) = (x.dims(), y.dims());
            let lens = dx.iter().map(|d| d.len).cmp(dy.iter().map(|d| d.len));
            lens.then_with(|| dx.iter().map(|d| d.lbound).cmp(dy.iter().map(|d| d.lbound)))
        })
}

/// Appends a key for hashing: arrays SQL calls equal write equal bytes.
pub fn write_key(bytes: &[u8], elem: DataType, out: &mut Vec<u8>) {
    let v = View::new(bytes, elem);
    out.push(v.ndims() as u8);
    out.extend_from_slice(v.dims);
    for e in v.elements() {
        let Some(p) = e else {
            out.push(0);
            continue;
        };
        out.push(1);
        match elem {
            DataType::Float4 | DataType::Float8 => {
                let f = match decode(p, elem) {
                    Value::Float4(x) => x as f64,
                    Value::Float8(x) => x,
                    _ => 0.0,
                };
                let bits = if f == 0.0 {
                    0
                } else if f.is_nan() {
                    f64::NAN.to_bits()
                } else {
                    f.to_bits()
                };
                out.extend_from_slice(&bits.to_le_bytes());
            }
            DataType::Numeric => {
                if let Value::Numeric(n) = decode(p, elem) {
                    let at = out.len();
                    out.extend_from_slice(&[0; 4]);
                    n.write_key(out);
                    let len = (out.len() - at - 4) as u32;
                    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
                }
            }
            DataType::Interval => {
                if let Value::Interval(iv) = decode(p, elem) {
                    out.extend_from_slice(&iv.sort_key().to_le_bytes());
                }
            }
            DataType::Record => {
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                super::record::write_key(p.get(4..).unwrap_or(&[]), out);
                let len = (out.len() - at - 4) as u32;
                out[at..at + 4].copy_from_slice(&len.to_le_bytes());
            }
            DataType::Int2 | DataType::Int4 | DataType::Int8 => {
                let n = decode(p, elem).as_i64().unwrap_or(0);
                out.extend_from_slice(&n.to_le_bytes());
            }
            DataType::Bpchar => {
                let s = p.get(4..).unwrap_or(&[]);
                let end = s.iter().rposition(|&c| c != b' ').map_or(0, |q| q + 1);
                push_str(out, &s[..end]);
            }
            _ => out.extend_from_slice(p),
        }
    }
}

fn malformed(input: &str, detail: &str) -> Error {
    Error::new("22P02", format!("malformed array literal: \"{input}\"")).with_detail(detail)
}

/// An element as read from an array literal: its text, or NULL.
type RawElement = Option<String>;

struct Parser<'s> {
    input: &'s str,
    bytes: &'s [u8],
    at: usize,
}

fn is_array_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.bytes.get(self.at).is_some_and(|&b| is_array_space(b)) {
            self.at += 1;
        }
    }

    fn err(&self, detail: &str) -> Error {
        malformed(self.input, detail)
    }

    fn unexpected(&self) -> Error {
        match self.bytes.get(self.at) {
            None => self.err("Unexpected end of input."),
            Some(_) => {
                let c = self.input[self.at..].chars().next().unwrap_or('?');
                self.err(&format!("Unexpected \"{c}\" character."))
            }
        }
    }

    /// `[lb:ub][lb:ub]…=` before the braces.
    fn dimension_decoration(&mut self) -> Result<Option<Vec<Dim>>> {
        if self.bytes.get(self.at) != Some(&b'[') {
            return Ok(None);
        }
        let mut dims = Vec::new();
        while self.bytes.get(self.at) == Some(&b'[') {
            self.at += 1;
            self.skip_space();
            let first = self.integer()?;
            self.skip_space();
            let (lb, ub) = if self.bytes.get(self.at) == Some(&b':') {
                self.at += 1;
                self.skip_space();
                let ub = self.integer()?;
                self.skip_space();
                (first, ub)
            } else {
                (1, first)
            };
            if self.bytes.get(self.at) != Some(&b']') {
                return Err(self.err("Missing \"]\" after array dimensions."));
            }
            self.at += 1;
            if ub < lb {
                return Err(Error::new(
                    "2202E",
                    "upper bound cannot be less than lower bound",
                ));
            }
            if dims.len() == MAX_DIMS {
                return Err(too_many_dims(MAX_DIMS + 1));
            }
            let len = (ub as i64 - lb as i64 + 1) as i32;
            dims.push(Dim { len, lbound: lb });
            self.skip_space();
        }
        if self.bytes.get(self.at) != Some(&b'=') {
            return Err(self.err("Missing \"=\" after array dimensions."));
        }
        self.at += 1;
        self.skip_space();
        Ok(Some(dims))
    }

    fn integer(&mut self) -> Result<i32> {
        let start = self.at;
        if matches!(self.bytes.get(self.at), Some(b'-' | b'+')) {
            self.at += 1;
        }
        let digits = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        if self.at == digits {
            return Err(self.err("\"[\" must introduce explicitly-specified array dimensions."));
        }
        self.input[start..self.at].parse::<i32>().map_err(|_| {
            Error::numeric_out_of_range(format!(
                "value \"{}\" is out of range for type integer",
                &self.input[start..self.at]
            ))
        })
    }

    /// One `{…}` level: its elements (or sub-arrays) into `out`, its shape into `dims`.
    fn level(
        &mut self,
        depth: usize,
        dims: &mut Vec<Option<i32>>,
        out: &mut Vec<RawElement>,
    ) -> Result<()> {
        // At '{'.
        self.at += 1;
        if depth + 1 > MAX_DIMS {
            return Err(too_many_dims(depth + 1));
        }
        if dims.len() <= depth {
            dims.push(None);
        }
        let mut count = 0i32;
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
            // `{}` is allowed only as the whole (empty) array.
            if depth > 0 || dims.len() > 1 {
                return Err(self.err("Unexpected \"}\" character."));
            }
            dims[depth] = Some(0);
            return Ok(());
        }
        loop {
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b'{') => {
                    if dims.len() > depth + 1 && dims[depth + 1].is_none() && count > 0 {
                        return Err(self.unexpected());
                    }
                    if !out.is_empty() && dims.len() == depth + 1 {
                        return Err(self.unexpected());
                    }
                    self.level(depth + 1, dims, out)?;
                }
                Some(b'}' | b',') | None => return Err(self.unexpected()),
                Some(_) => {
                    if dims.len() > depth + 1 {
                        return Err(self.err("Unexpected array element."));
                    }
                    out.push(self.element()?);
                    if out.len() > MAX_ELEMENTS {
                        return Err(Error::new(
                            "54000",
                            format!("array size exceeds the maximum allowed ({MAX_ELEMENTS})"),
                        ));
                    }
                }
            }
            count += 1;
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    break;
                }
                _ => return Err(self.unexpected()),
            }
        }
        match dims[depth] {
            None => dims[depth] = Some(count),
            Some(n) if n == count => {}
            Some(_) => {
                return Err(self.err(
                    "Multidimensional arrays must have sub-arrays with matching dimensions.",
                ));
            }
        }
        Ok(())
    }

    /// One element: quoted, or unquoted up to a delimiter or brace (outer whitespace
    /// dropped); backslash escapes the next character either way.
    fn element(&mut self) -> Result<RawElement> {
        let mut s = Vec::new();
        if self.bytes.get(self.at) == Some(&b'"') {
            self.at += 1;
            loop {
                match self.bytes.get(self.at) {
                    None => return Err(self.err("Unexpected end of input.")),
                    Some(b'"') => {
                        self.at += 1;
                        break;
                    }
                    Some(b'\\') => {
                        self.at += 1;
                        let Some(&c) = self.bytes.get(self.at) else {
                            return Err(self.err("Unexpected end of input."));
                        };
                        s.push(c);
                        self.at += 1;
                    }
                    Some(&c) => {
                        s.push(c);
                        self.at += 1;
                    }
                }
            }
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',' | b'}') => {}
                None => return Err(self.unexpected()),
                Some(_) => return Err(self.err("Unexpected array element.")),
            }
            return Ok(Some(
                String::from_utf8(s).map_err(|_| Error::invalid_utf8())?,
            ));
        }
        // Unquoted: trailing whitespace that was not escaped is dropped.
        let mut keep = 0;
        let mut escaped_any = false;
        loop {
            match self.bytes.get(self.at) {
                None => return Err(self.err("Unexpected end of input.")),
                Some(b',' | b'}') => break,
                Some(b'{') => return Err(self.unexpected()),
                Some(b'"') => return Err(self.err("Unexpected array element.")),
                Some(b'\\') => {
                    self.at += 1;
                    let Some(&c) = self.bytes.get(self.at) else {
                        return Err(self.err("Unexpected end of input."));
                    };
                    s.push(c);
                    keep = s.len();
                    escaped_any = true;
                    self.at += 1;
                }
                Some(&c) => {
                    s.push(c);
                    if !is_array_space(c) {
                        keep = s.len();
                    }
                    self.at += 1;
                }
            }
        }
        s.truncate(keep);
        if !escaped_any && s.eq_ignore_ascii_case(b"NULL") {
            return Ok(None);
        }
        Ok(Some(
            String::from_utf8(s).map_err(|_| Error::invalid_utf8())?,
        ))
    }
}

/// PostgreSQL's ArrayCheckBounds: a dimension's lower bound plus its length must fit
/// an int4.
pub fn check_bounds(dims: &[Dim]) -> Result<()> {
    for d in dims {
        if d.lbound as i64 + d.len as i64 > i32::MAX as i64 {
            return Err(Error::new(
                "54000",
                format!("array lower bound is too large: {}", d.lbound),
            ));
        }
    }
    Ok(())
}

fn too_many_dims(n: usize) -> Error {
    Error::new(
        "54000",
        format!("number of array dimensions ({n}) exceeds the maximum allowed ({MAX_DIMS})"),
    )
}

/// PostgreSQL's `array_in`: parses an array literal of element type `elem` (whose typmod,
/// as in `varchar(3)[]`, applies to each element).
pub fn parse(input: &str, elem: SqlType, fmt: &TextFormat) -> Result<Array> {
    let mut p = Parser {
        input,
        bytes: input.as_bytes(),
        at: 0,
    };
    p.skip_space();
    let declared = p.dimension_decoration()?;
    if p.bytes.get(p.at) != Some(&b'{') {
        return Err(p.err("Array value must start with \"{\" or dimension information."));
    }
    let mut dims = Vec::new();
    let mut raw = Vec::new();
    p.level(0, &mut dims, &mut raw)?;
    p.skip_space();
    if p.at < p.bytes.len() {
        return Err(p.err("Junk after closing right brace."));
    }
    let mut shape: Vec<Dim> = dims
        .iter()
        .map(|d| Dim {
            len: d.unwrap_or(0),
            lbound: 1,
        })
        .collect();
    if raw.is_empty() {
        shape.clear();
    }
    if let Some(declared) = declared {
        let lens_match = declared.len() == shape.len()
            && declared.iter().zip(&shape).all(|(d, s)| d.len == s.len);
        if !(lens_match || raw.is_empty() && declared.is_empty()) {
            return Err(p.err("Specified array dimensions do not match array contents."));
        }
        shape = declared;
    }
    check_bounds(&shape)?;
    let mut bytes = Vec::new();
    let mut b = Builder::new(&mut bytes, &shape);
    for e in raw {
        match e {
            None => b.push_null(),
            Some(s) => {
                let v = text::parse_value(&s, elem.ty, fmt)?;
                let v = if elem.typmod >= 0 || elem.ty == DataType::Bpchar {
                    super::cast::cast_value(v, elem, true, fmt)?
                } else {
                    v
                };
                b.push(&v);
            }
        }
    }
    Ok(Array {
        elem: elem.ty,
        bytes,
    })
}

/// Whether an element's text needs double quotes in an array's text form.
fn needs_quotes(s: &[u8]) -> bool {
    s.is_empty()
        || s.eq_ignore_ascii_case(b"NULL")
        || s.iter()
            .any(|&c| matches!(c, b'"' | b'\\' | b'{' | b'}' | b',') || is_array_space(c))
}

/// PostgreSQL's `array_out`: `{1,2,NULL}`, `{{1,2},{3,4}}`, `[0:1]={a,b}`, elements
/// quoted when their text would not read back as itself.
pub fn write_text(bytes: &[u8], elem: DataType, fmt: &TextFormat, out: &mut Vec<u8>) {
    let v = View::new(bytes, elem);
    let dims = v.dims();
    if dims.is_empty() || v.is_empty() {
        out.extend_from_slice(b"{}");
        return;
    }
    if dims.iter().any(|d| d.lbound != 1) {
        for d in &dims {
            out.push(b'[');
            text::write_int(out, d.lbound as i64);
            out.push(b':');
            text::write_int(out, d.lbound as i64 + d.len as i64 - 1);
            out.push(b']');
        }
        out.push(b'=');
    }
    let mut counters = vec![0i32; dims.len()];
    let mut scratch = Vec::new();
    out.extend(std::iter::repeat_n(b'{', dims.len()));
    let mut elements = v.elements();
    loop {
        match elements.next() {
            None => break,
            Some(None) => out.extend_from_slice(b"NULL"),
            Some(Some(p)) => {
                scratch.clear();
                text::write_value(&mut scratch, &decode(p, elem), fmt);
                if needs_quotes(&scratch) {
                    out.push(b'"');
                    for &c in &scratch {
                        if c == b'"' || c == b'\\' {
                            out.push(b'\\');
                        }
                        out.push(c);
                    }
                    out.push(b'"');
                } else {
                    out.extend_from_slice(&scratch);
                }
            }
        }
        // Close the levels this element completes, then open the next ones.
        let mut d = dims.len();
        let mut closed = 0;
        while d > 0 {
            d -= 1;
            counters[d] += 1;
            if counters[d] < dims[d].len {
                break;
            }
            counters[d] = 0;
            closed += 1;
        }
        out.extend(std::iter::repeat_n(b'}', closed));
        if closed == dims.len() {
            break;
        }
        out.push(b',');
        out.extend(std::iter::repeat_n(b'{', closed));
    }
}

/// The text form as a string.
pub fn to_text(a: &Array, fmt: &TextFormat) -> String {
    let mut out = Vec::new();
    write_text(&a.bytes, a.elem, fmt, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// A one-dimensional array (from 1) of `values`.
pub fn from_values(elem: DataType, values: &[Value]) -> Array {
    let mut bytes = Vec::new();
    let mut b = Builder::one_dim(&mut bytes, values.len());
    for v in values {
        b.push(v);
    }
    Array { elem, bytes }
}

/// Rebuilds an array of the same shape with each element mapped (element casts).
pub fn map_elements(
    bytes: &[u8],
    from: DataType,
    to: DataType,
    mut f: impl FnMut(Value) -> Result<Value>,
) -> Result<Array> {
    let v = View::new(bytes, from);
    let mut out = Vec::new();
    let mut b = Builder::new(&mut out, &v.dims());
    for e in v.elements() {
        match e {
            None => b.push_null(),
            Some(p) => b.push(&f(decode(p, from))?),
        }
    }
    Ok(Array {
        elem: to,
        bytes: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int4() -> SqlType {
        SqlType::new(DataType::Int4)
    }

    fn round_trip(input: &str, elem: SqlType) -> Result<String> {
        let fmt = TextFormat::default();
        Ok(to_text(&parse(input, elem, &fmt)?, &fmt))
    }

    fn detail(r: Result<String>) -> String {
        match r {
            Err(e) => format!("{} {}", e.code, e.detail.unwrap_or_default()),
            Ok(s) => format!("ok {s}"),
        }
    }

    #[test]
    fn literals_read_and_print_as_postgresql_does() -> Result<()> {
        let text = SqlType::new(DataType::Text);
        assert_eq!(round_trip("{1,2,3}", int4())?, "{1,2,3}");
        assert_eq!(round_trip("  { 1 , NULL,3 } ", int4())?, "{1,NULL,3}");
        assert_eq!(round_trip("{}", int4())?, "{}");
        assert_eq!(round_trip("{{1,2},{3,4}}", int4())?, "{{1,2},{3,4}}");
        assert_eq!(round_trip("[0:1]={5,6}", int4())?, "[0:1]={5,6}");
        assert_eq!(round_trip("[1:2]={5,6}", int4())?, "{5,6}");
        assert_eq!(
            round_trip(r#"{a b," c ","",null,"NULL",\N\ULL,"x\"y\\z"}"#, text)?,
            r#"{"a b"," c ","",NULL,"NULL","NULL","x\"y\\z"}"#
        );
        assert!(round_trip("{a,{b}}", text).is_err());
        assert!(round_trip("{{a},b}", text).is_err());
        assert!(round_trip("{{},{}}", text).is_err());
        Ok(())
    }

    #[test]
    fn malformed_literals_name_the_problem() {
        let t = int4();
        for (input, want) in [
            (
                "1,2",
                "Array value must start with \"{\" or dimension information.",
            ),
            ("{1,2", "Unexpected end of input."),
            ("{1,,2}", "Unexpected \",\" character."),
            ("{1,2}x", "Junk after closing right brace."),
            (
                "{{1,2},{3}}",
                "Multidimensional arrays must have sub-arrays with matching dimensions.",
            ),
            (
                "[1:3]={1,2}",
                "Specified array dimensions do not match array contents.",
            ),
        ] {
            assert_eq!(
                detail(round_trip(input, t)),
                format!("22P02 {want}"),
                "{input}"
            );
        }
        assert!(detail(round_trip("{a}", t)).starts_with("22P02"));
        assert!(detail(round_trip("{{{{{{{1}}}}}}}", t)).starts_with("54000"));
    }

    #[test]
    fn comparison_follows_array_cmp() {
        let fmt = TextFormat::default();
        let a = |s: &str| parse(s, int4(), &fmt).map(|a| a.bytes).unwrap_or_default();
        let cmp = |x: &str, y: &str| compare(&a(x), &a(y), DataType::Int4);
        assert_eq!(cmp("{1,2}", "{1,3}"), Ordering::Less);
        assert_eq!(cmp("{1,2}", "{1,2,0}"), Ordering::Less);
        assert_eq!(cmp("{}", "{1}"), Ordering::Less);
        assert_eq!(cmp("{1,NULL}", "{1,5}"), Ordering::Greater);
        assert_eq!(cmp("{NULL}", "{NULL}"), Ordering::Equal);
        assert_eq!(cmp("{1,2,3,4}", "{{1,2},{3,4}}"), Ordering::Less);
        assert_eq!(cmp("[0:1]={1,2}", "{1,2}"), Ordering::Less);
        // numeric elements compare by value; their keys agree.
        let num = SqlType::new(DataType::Numeric);
        let (x, y) = (
            parse("{1.0,2}", num, &fmt)
                .map(|a| a.bytes)
                .unwrap_or_default(),
            parse("{1.00,2}", num, &fmt)
                .map(|a| a.bytes)
                .unwrap_or_default(),
        );
        assert_eq!(compare(&x, &y, DataType::Numeric), Ordering::Equal);
        let (mut kx, mut ky) = (Vec::new(), Vec::new());
        write_key(&x, DataType::Numeric, &mut kx);
        write_key(&y, DataType::Numeric, &mut ky);
        assert_eq!(kx, ky);
    }
}
