//! Column vectors and batches: the unit of work of the executor.
//!
//! A [`Vector`] is one column of up to [`BATCH_ROWS_MAX`] values (or a whole stored row
//! group): a typed array ([`Data`]) plus an optional NULL mask (`nulls[i] == true` means row
//! `i` is NULL; the data slot then holds a default). Strings live in one byte buffer with
//! offsets ([`TextVec`]) so a batch of strings is two allocations, not one per row.
//!
//! A [`Batch`] is a set of equally long vectors plus an optional selection vector: the row
//! indices still alive after a filter. Filters shrink the selection instead of copying
//! columns; operators that need dense input gather through it once.

use super::super::types::datetime::Interval;
use crate::types::{DataType, Numeric, Value};

/// Rows per batch (DESIGN.md: up to 2,048).
pub const BATCH_ROWS_MAX: usize = 2048;

/// Strings of a column: bytes of row `i` are `data[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct TextVec {
    pub offsets: Vec<usize>,
    pub data: Vec<u8>,
}

impl TextVec {
    pub fn with_capacity(rows: usize) -> TextVec {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        TextVec {
            offsets,
            data: Vec::with_capacity(rows * 8),
        }
    }
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    #[inline]
    pub fn get(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }
    /// The string of row `i`; strings are validated UTF-8 when they enter kiln.
    #[inline]
    pub fn get_str(&self, i: usize) -> &str {
        std::str::from_utf8(self.get(i)).unwrap_or("")
    }
    #[inline]
    pub fn push(&mut self, bytes: &[u8]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.data.extend_from_slice(bytes);
        self.offsets.push(self.data.len());
    }
    /// Appends `bytes` followed by `pad` spaces as one string (char(n) padding).
    pub fn push_padded(&mut self, bytes: &[u8], pad: usize) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.data.extend_from_slice(bytes);
        self.data.resize(self.data.len() + pad, b' ');
        self.offsets.push(self.data.len());
    }
    pub fn clear(&mut self) {
        self.offsets.clear();
        self.offsets.push(0);
        self.data.clear();
    }
}

/// Arrays of a column: row `i`'s stored form (see `types::array`) is `blobs.get(i)`.
#[derive(Clone, Debug)]
pub struct ArrayVec {
    pub elem: DataType,
    pub blobs: TextVec,
}

#[derive(Clone, Debug)]
pub enum Data {
    Bool(Vec<bool>),
    I16(Vec<i16>),
    /// integer and date
    I32(Vec<i32>),
    /// bigint, timestamp and timestamptz
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Num(Vec<Numeric>),
    /// text, varchar, char(n) and unknown
    Text(TextVec),
    Interval(Vec<Interval>),
    /// arrays of any element type
    Array(ArrayVec),
    /// records (`types::record`), one byte string per row
    Record(TextVec),
    /// jsonb (`types::jsonb`), one byte string per row
    Jsonb(TextVec),
}

#[derive(Clone, Debug)]
pub struct Vector {
    pub data: Data,
    pub nulls: Option<Vec<bool>>,
}

macro_rules! each_data {
    ($data:expr, $v:ident => $body:expr, $t:ident => $tbody:expr) => {
        match $data {
            Data::Bool($v) => $body,
            Data::I16($v) => $body,
            Data::I32($v) => $body,
            Data::I64($v) => $body,
            Data::F32($v) => $body,
            Data::F64($v) => $body,
            Data::Num($v) => $body,
            Data::Interval($v) => $body,
            Data::Text($t) => $tbody,
            Data::Array(a) => {
                let $t = &a.blobs;
                $tbody
            }
            Data::Record($t) => $tbody,
            Data::Jsonb($t) => $tbody,
        }
    };
}

impl Vector {
    pub fn with_capacity(ty: DataType, rows: usize) -> Vector {
        let data = match ty {
            DataType::Bool => Data::Bool(Vec::with_capacity(rows)),
            DataType::Int2 => Data::I16(Vec::with_capacity(rows)),
            DataType::Int4 | DataType::Date => Data::I32(Vec::with_capacity(rows)),
            DataType::Time | DataType::TimeTz => Data::I64(Vec::with_capacity(rows)),
            DataType::Int8
            | DataType::Timestamp
            | DataType::Timestamptz
            | DataType::Oid
            | DataType::RegClass
            | DataType::RegType
            | DataType::RegProc
            | DataType::RegProcedure
            | DataType::RegNamespace
            | DataType::RegRole
            | DataType::RegConfig
            | DataType::RegDictionary => Data::I64(Vec::with_capacity(rows)),
            DataType::Float4 => Data::F32(Vec::with_capacity(rows)),
            DataType::Float8 => Data::F64(Vec::with_capacity(rows)),
            DataType::Numeric => Data::Num(Vec::with_capacity(rows)),
            DataType::Text
            | DataType::Varchar
            | DataType::Bpchar
            | DataType::Unknown
            | DataType::Name
            | DataType::Enum(_)
            | DataType::Range(_)
            | DataType::TsVector
            | DataType::TsQuery
            | DataType::Char
            | DataType::Json
            | DataType::JsonPath
            | DataType::Uuid
            | DataType::Inet
            | DataType::Cidr
            | DataType::MacAddr
            | DataType::MacAddr8
            | DataType::Bytea => Data::Text(TextVec::with_capacity(rows)),
            DataType::Interval => Data::Interval(Vec::with_capacity(rows)),
            DataType::Array(elem) => Data::Array(ArrayVec {
                elem: *elem,
                blobs: TextVec::with_capacity(rows),
            }),
            DataType::Record => Data::Record(TextVec::with_capacity(rows)),
            DataType::Jsonb => Data::Jsonb(TextVec::with_capacity(rows)),
        };
        Vector { data, nulls: None }
    }

    pub fn from_data(data: Data) -> Vector {
        Vector { data, nulls: None }
    }

    pub fn len(&self) -> usize {
        each_data!(&self.data, v => v.len(), t => t.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        match &self.nulls {
            Some(n) => n[i],
            None => false,
        }
    }

    pub fn has_nulls(&self) -> bool {
        self.nulls.as_ref().is_some_and(|n| n.iter().any(|&b| b))
    }

    /// Marks row `i` NULL (the mask is created on first use).
    pub fn set_null(&mut self, i: usize) {
        let len = self.len();
        let nulls = self.nulls.get_or_insert_with(|| vec![false; len]);
        nulls[i] = true;
    }

    /// Records whether the value just pushed into the data is NULL.
    #[inline]
    pub fn push_valid_flag(&mut self, is_null: bool) {
        match &mut self.nulls {
            Some(n) => n.push(is_null),
            None if is_null => {
                let len_before = self.len() - 1;
                let mut n = vec![false; len_before];
                n.push(true);
                self.nulls = Some(n);
            }
            None => {}
        }
    }

    /// Appends a NULL.
    pub fn push_null(&mut self) {
        match &mut self.data {
            Data::Bool(v) => v.push(false),
            Data::I16(v) => v.push(0),
            Data::I32(v) => v.push(0),
            Data::I64(v) => v.push(0),
            Data::F32(v) => v.push(0.0),
            Data::F64(v) => v.push(0.0),
            Data::Num(v) => v.push(Numeric::ZERO),
            Data::Text(t) => t.push(b""),
            Data::Interval(v) => v.push(Interval::default()),
            Data::Array(a) => a.blobs.push(b""),
            Data::Record(t) => t.push(b""),
            Data::Jsonb(t) => t.push(&[crate::types::jsonb::NULL]),
        }
        self.push_valid_flag(true);
    }

    /// Appends the bytes of a string or a stored array.
    pub fn push_blob(&mut self, bytes: &[u8]) {
        match &mut self.data {
            Data::Text(t) => t.push(bytes),
            Data::Array(a) => a.blobs.push(bytes),
            Data::Record(t) => t.push(bytes),
            Data::Jsonb(t) => t.push(bytes),
            _ => {
                debug_assert!(false, "push_blob on a fixed-width vector");
                return self.push_null();
            }
        }
        self.push_valid_flag(false);
    }

    /// Appends a value whose physical kind matches this vector (the binder guarantees it).
    pub fn push_value(&mut self, value: &Value) {
        match (&mut self.data, value) {
            (_, Value::Null) => return self.push_null(),
            (Data::Bool(v), Value::Bool(x)) => v.push(*x),
            (Data::I16(v), Value::Int2(x)) => v.push(*x),
            (Data::I32(v), Value::Int4(x)) => v.push(*x),
            (Data::I32(v), Value::Date(x)) => v.push(*x),
            (Data::I64(v), Value::Int8(x)) => v.push(*x),
            (Data::I64(v), Value::Timestamp(x)) => v.push(*x),
            (Data::I64(v), Value::Timestamptz(x)) => v.push(*x),
            (Data::I64(v), Value::Time(x) | Value::TimeTz(x)) => v.push(*x),
            (Data::F32(v), Value::Float4(x)) => v.push(*x),
            (Data::F64(v), Value::Float8(x)) => v.push(*x),
            (Data::Num(v), Value::Numeric(x)) => v.push(x.clone()),
            (Data::Text(t), Value::Text(x)) => t.push(x.as_bytes()),
            (Data::Interval(v), Value::Interval(x)) => v.push(*x),
            (Data::Array(a), Value::Array(x)) => a.blobs.push(&x.bytes),
            (Data::Record(t), Value::Record(x)) => t.push(x),
            (Data::Jsonb(t), Value::Jsonb(x)) => t.push(x),
            (Data::Text(t), Value::Uuid(x)) => t.push(x),
            (Data::Text(t), Value::Bytes(x)) => t.push(x),
            (Data::Text(t), Value::Raw(_, x)) => t.push(x),
            // A kind mismatch is a binder bug; store NULL rather than corrupt the column.
            _ => {
                debug_assert!(false, "vector kind mismatch: {:?}", value);
                return self.push_null();
            }
        }
        self.push_valid_flag(false);
    }

    /// The value of row `i`, typed as `ty`.
    pub fn value(&self, i: usize, ty: DataType) -> Value {
        if self.is_null(i) {
            return Value::Null;
        }
        match &self.data {
            Data::Bool(v) => Value::Bool(v[i]),
            Data::I16(v) => Value::Int2(v[i]),
            Data::I32(v) => {
                if ty == DataType::Date {
                    Value::Date(v[i])
                } else {
                    Value::Int4(v[i])
                }
            }
            Data::I64(v) => match ty {
                DataType::Timestamp => Value::Timestamp(v[i]),
                DataType::Timestamptz => Value::Timestamptz(v[i]),
                DataType::Time => Value::Time(v[i]),
                DataType::TimeTz => Value::TimeTz(v[i]),
                _ => Value::Int8(v[i]),
            },
            Data::F32(v) => Value::Float4(v[i]),
            Data::F64(v) => Value::Float8(v[i]),
            Data::Num(v) => Value::Numeric(v[i].clone()),
            Data::Text(t) => match ty {
                DataType::Uuid => Value::Uuid(t.get(i).try_into().unwrap_or([0; 16])),
                DataType::Bytea => Value::Bytes(t.get(i).to_vec()),
                DataType::Inet
                | DataType::Cidr
                | DataType::MacAddr
                | DataType::MacAddr8
                | DataType::Range(_)
                | DataType::TsVector
                | DataType::TsQuery => Value::Raw(ty, t.get(i).to_vec()),
                _ => Value::Text(t.get_str(i).to_string()),
            },
            Data::Interval(v) => Value::Interval(v[i]),
            Data::Array(a) => Value::Array(Box::new(crate::types::array::Array {
                elem: a.elem,
                bytes: a.blobs.get(i).to_vec(),
            })),
            Data::Record(t) => Value::Record(t.get(i).to_vec()),
            Data::Jsonb(t) => Value::Jsonb(t.get(i).to_vec()),
        }
    }

    /// A vector of `rows` NULLs (the physical kind from [`Vector::with_capacity`], each
    /// slot its kind's default).
    pub fn nulls(ty: DataType, rows: usize) -> Vector {
        let empty_strings = || TextVec {
            offsets: vec![0; rows + 1],
            data: Vec::new(),
        };
        let data = match Vector::with_capacity(ty, 0).data {
            Data::Bool(_) => Data::Bool(vec![false; rows]),
            Data::I16(_) => Data::I16(vec![0; rows]),
            Data::I32(_) => Data::I32(vec![0; rows]),
            Data::I64(_) => Data::I64(vec![0; rows]),
            Data::F32(_) => Data::F32(vec![0.0; rows]),
            Data::F64(_) => Data::F64(vec![0.0; rows]),
            Data::Num(_) => Data::Num(vec![Numeric::ZERO; rows]),
            Data::Text(_) => Data::Text(empty_strings()),
            Data::Interval(_) => Data::Interval(vec![Interval::default(); rows]),
            Data::Array(a) => Data::Array(ArrayVec {
                elem: a.elem,
                blobs: empty_strings(),
            }),
            Data::Record(_) => Data::Record(empty_strings()),
            Data::Jsonb(_) => Data::Jsonb(empty_strings()),
        };
        Vector {
            data,
            nulls: Some(vec![true; rows]),
        }
    }

    /// A vector of `rows` copies of `value`.
    pub fn repeat(value: &Value, ty: DataType, rows: usize) -> Vector {
        if value.is_null() {
            return Vector::nulls(ty, rows);
        }
        let mut v = Vector::with_capacity(ty, rows);
        match (&mut v.data, value) {
            (Data::Bool(d), Value::Bool(x)) => d.resize(rows, *x),
            (Data::I16(d), Value::Int2(x)) => d.resize(rows, *x),
            (Data::I32(d), Value::Int4(x) | Value::Date(x)) => d.resize(rows, *x),
            (Data::I64(d), Value::Int8(x) | Value::Timestamp(x) | Value::Timestamptz(x)) => {
                d.resize(rows, *x)
            }
            (Data::F32(d), Value::Float4(x)) => d.resize(rows, *x),
            (Data::F64(d), Value::Float8(x)) => d.resize(rows, *x),
            (Data::Num(d), Value::Numeric(x)) => d.resize(rows, x.clone()),
            (Data::Interval(d), Value::Interval(x)) => d.resize(rows, *x),
            _ => {
                for _ in 0..rows {
                    v.push_value(value);
                }
            }
        }
        v
    }

    /// Rows `sel[0], sel[1], …` as a new dense vector.
    pub fn gather(&self, sel: &[u32]) -> Vector {
        if self.is_empty() {
            // A column the scan did not read (see plan::prune) stays empty.
            return self.clone();
        }
        let data = match &self.data {
            Data::Bool(v) => Data::Bool(sel.iter().map(|&i| v[i as usize]).collect()),
            Data::I16(v) => Data::I16(sel.iter().map(|&i| v[i as usize]).collect()),
            Data::I32(v) => Data::I32(sel.iter().map(|&i| v[i as usize]).collect()),
            Data::I64(v) => Data::I64(sel.iter().map(|&i| v[i as usize]).collect()),
            Data::F32(v) => Data::F32(sel.iter().map(|&i| v[i as usize]).collect()),
            Data::F64(v) => Data::F64(sel.iter().map(|&i| v[i as usize]).collect()),
            Data::Num(v) => Data::Num(sel.iter().map(|&i| v[i as usize].clone()).collect()),
            Data::Interval(v) => Data::Interval(sel.iter().map(|&i| v[i as usize]).collect()),
            Data::Text(t) => Data::Text(gather_text(t, sel)),
            Data::Array(a) => Data::Array(ArrayVec {
                elem: a.elem,
                blobs: gather_text(&a.blobs, sel),
            }),
            Data::Record(t) => Data::Record(gather_text(t, sel)),
            Data::Jsonb(t) => Data::Jsonb(gather_text(t, sel)),
        };
        let nulls = self
            .nulls
            .as_ref()
            .map(|n| sel.iter().map(|&i| n[i as usize]).collect());
        Vector { data, nulls }
    }

    /// Rows named by `refs` across several vectors of one kind, as a new dense vector:
    /// a ref is `(source << 32) | row`. The sort keeps its input batches as they came
    /// and gathers its output through refs like these, copying each value once.
    pub fn gather_refs(sources: &[&Vector], refs: &[u64]) -> Vector {
        let Some(first) = sources.first() else {
            return Vector::from_data(Data::Bool(Vec::new()));
        };
        if sources.iter().all(|s| s.is_empty()) {
            // A column the scan did not read (see plan::prune) stays empty.
            return (*first).clone();
        }
        let split = |r: u64| ((r >> 32) as usize, (r & 0xffff_ffff) as usize);
        macro_rules! typed {
            ($variant:ident, $get:expr) => {{
                let parts: Vec<&[_]> = sources
                    .iter()
                    .map(|s| match &s.data {
                        Data::$variant(v) => v.as_slice(),
                        _ => &[],
                    })
                    .collect();
                Data::$variant(
                    refs.iter()
                        .map(|&r| {
                            let (s, i) = split(r);
                            $get(&parts[s][i])
                        })
                        .collect(),
                )
            }};
        }
        let data = match &first.data {
            Data::Bool(_) => typed!(Bool, |x: &bool| *x),
            Data::I16(_) => typed!(I16, |x: &i16| *x),
            Data::I32(_) => typed!(I32, |x: &i32| *x),
            Data::I64(_) => typed!(I64, |x: &i64| *x),
            Data::F32(_) => typed!(F32, |x: &f32| *x),
            Data::F64(_) => typed!(F64, |x: &f64| *x),
            Data::Num(_) => typed!(Num, |x: &Numeric| x.clone()),
            Data::Interval(_) => typed!(Interval, |x: &Interval| *x),
            Data::Array(_) | Data::Record(_) | Data::Jsonb(_) => {
                let empty = TextVec::default();
                let parts: Vec<&TextVec> = sources
                    .iter()
                    .map(|s| match &s.data {
                        Data::Array(t) => &t.blobs,
                        Data::Record(t) | Data::Jsonb(t) => t,
                        _ => &empty,
                    })
                    .collect();
                let mut out = TextVec::with_capacity(refs.len());
                for &r in refs {
                    let (s, i) = split(r);
                    out.push(parts[s].get(i));
                }
                match &first.data {
                    Data::Array(a) => Data::Array(ArrayVec {
                        elem: a.elem,
                        blobs: out,
                    }),
                    Data::Jsonb(_) => Data::Jsonb(out),
                    _ => Data::Record(out),
                }
            }
            Data::Text(_) => {
                let empty = TextVec::default();
                let parts: Vec<&TextVec> = sources
                    .iter()
                    .map(|s| match &s.data {
                        Data::Text(t) => t,
                        _ => &empty,
                    })
                    .collect();
                let bytes: usize = refs
                    .iter()
                    .map(|&r| {
                        let (s, i) = split(r);
                        let t = parts[s];
                        t.offsets[i + 1] - t.offsets[i]
                    })
                    .sum();
                // Strings are written in order into a buffer sized up front; a short
                // one is copied as one 8-byte word whose surplus the next string
                // overwrites (a call to memcpy per string was the gather's main cost).
                const WORD: usize = 8;
                let mut data = vec![0u8; bytes + WORD];
                let mut offsets = Vec::with_capacity(refs.len() + 1);
                offsets.push(0);
                let mut at = 0;
                for &r in refs {
                    let (s, i) = split(r);
                    let t = parts[s];
                    let (start, end) = (t.offsets[i], t.offsets[i + 1]);
                    let len = end - start;
                    if len <= WORD && start + WORD <= t.data.len() {
                        data[at..at + WORD].copy_from_slice(&t.data[start..start + WORD]);
                    } else {
                        data[at..at + len].copy_from_slice(&t.data[start..end]);
                    }
                    at += len;
                    offsets.push(at);
                }
                data.truncate(at);
                Data::Text(TextVec { offsets, data })
            }
        };
        let nulls = sources.iter().any(|s| s.nulls.is_some()).then(|| {
            refs.iter()
                .map(|&r| {
                    let (s, i) = split(r);
                    sources[s].is_null(i)
                })
                .collect()
        });
        Vector { data, nulls }
    }

    /// Rows `start..end` as a new dense vector.
    pub fn slice(&self, start: usize, end: usize) -> Vector {
        if self.is_empty() {
            return self.clone();
        }
        let data = match &self.data {
            Data::Bool(v) => Data::Bool(v[start..end].to_vec()),
            Data::I16(v) => Data::I16(v[start..end].to_vec()),
            Data::I32(v) => Data::I32(v[start..end].to_vec()),
            Data::I64(v) => Data::I64(v[start..end].to_vec()),
            Data::F32(v) => Data::F32(v[start..end].to_vec()),
            Data::F64(v) => Data::F64(v[start..end].to_vec()),
            Data::Num(v) => Data::Num(v[start..end].to_vec()),
            Data::Interval(v) => Data::Interval(v[start..end].to_vec()),
            Data::Text(t) => Data::Text(slice_text(t, start, end)),
            Data::Array(a) => Data::Array(ArrayVec {
                elem: a.elem,
                blobs: slice_text(&a.blobs, start, end),
            }),
            Data::Record(t) => Data::Record(slice_text(t, start, end)),
            Data::Jsonb(t) => Data::Jsonb(slice_text(t, start, end)),
        };
        let nulls = self.nulls.as_ref().and_then(|n| {
            let part = &n[start..end];
            part.iter().any(|&b| b).then(|| part.to_vec())
        });
        Vector { data, nulls }
    }

    /// Appends row `i` of `other` (same kind).
    pub fn push_from(&mut self, other: &Vector, i: usize) {
        if other.is_null(i) {
            return self.push_null();
        }
        match (&mut self.data, &other.data) {
            (Data::Bool(a), Data::Bool(b)) => a.push(b[i]),
            (Data::I16(a), Data::I16(b)) => a.push(b[i]),
            (Data::I32(a), Data::I32(b)) => a.push(b[i]),
            (Data::I64(a), Data::I64(b)) => a.push(b[i]),
            (Data::F32(a), Data::F32(b)) => a.push(b[i]),
            (Data::F64(a), Data::F64(b)) => a.push(b[i]),
            (Data::Num(a), Data::Num(b)) => a.push(b[i].clone()),
            (Data::Interval(a), Data::Interval(b)) => a.push(b[i]),
            (Data::Text(a), Data::Text(b)) => a.push(b.get(i)),
            (Data::Array(a), Data::Array(b)) => a.blobs.push(b.blobs.get(i)),
            (Data::Record(a), Data::Record(b)) => a.push(b.get(i)),
            (Data::Jsonb(a), Data::Jsonb(b)) => a.push(b.get(i)),
            _ => {
                debug_assert!(false, "push_from kind mismatch");
                return self.push_null();
            }
        }
        self.push_valid_flag(false);
    }

    /// Appends all rows of `other` (same kind).
    pub fn extend_from(&mut self, other: &Vector) {
        let before = self.len();
        match (&mut self.data, &other.data) {
            (Data::Bool(a), Data::Bool(b)) => a.extend_from_slice(b),
            (Data::I16(a), Data::I16(b)) => a.extend_from_slice(b),
            (Data::I32(a), Data::I32(b)) => a.extend_from_slice(b),
            (Data::I64(a), Data::I64(b)) => a.extend_from_slice(b),
            (Data::F32(a), Data::F32(b)) => a.extend_from_slice(b),
            (Data::F64(a), Data::F64(b)) => a.extend_from_slice(b),
            (Data::Num(a), Data::Num(b)) => a.extend_from_slice(b),
            (Data::Interval(a), Data::Interval(b)) => a.extend_from_slice(b),
            (Data::Text(a), Data::Text(b)) => extend_text(a, b),
            (Data::Array(a), Data::Array(b)) => extend_text(&mut a.blobs, &b.blobs),
            (Data::Record(a), Data::Record(b)) => extend_text(a, b),
            (Data::Jsonb(a), Data::Jsonb(b)) => extend_text(a, b),
            _ => {
                debug_assert!(false, "extend_from kind mismatch");
                for _ in 0..other.len() {
                    self.push_null();
                }
                return;
            }
        }
        match (&mut self.nulls, &other.nulls) {
            (Some(a), Some(b)) => a.extend_from_slice(b),
            (Some(a), None) => a.resize(before + other.len(), false),
            (None, Some(b)) if b.iter().any(|&x| x) => {
                let mut n = vec![false; before];
                n.extend_from_slice(b);
                self.nulls = Some(n);
            }
            _ => {}
        }
    }

    /// Approximate heap bytes held, for memory limits.
    pub fn heap_bytes(&self) -> usize {
        let data = each_data!(&self.data, v => std::mem::size_of_val(v.as_slice()), t => t.data.len() + t.offsets.len() * 8);
        data + self.nulls.as_ref().map_or(0, |n| n.len())
    }
}

fn gather_text(t: &TextVec, sel: &[u32]) -> TextVec {
    let mut out = TextVec::with_capacity(sel.len());
    for &i in sel {
        out.push(t.get(i as usize));
    }
    out
}

fn slice_text(t: &TextVec, start: usize, end: usize) -> TextVec {
    let base = t.offsets[start];
    let offsets = t.offsets[start..=end].iter().map(|o| o - base).collect();
    let data = t.data[base..t.offsets[end]].to_vec();
    TextVec { offsets, data }
}

fn extend_text(a: &mut TextVec, b: &TextVec) {
    let base = a.data.len();
    a.data.extend_from_slice(&b.data);
    a.offsets.extend(b.offsets[1..].iter().map(|o| o + base));
}

/// A set of columns with the same number of physical rows, and the live ones among them.
#[derive(Clone, Debug)]
pub struct Batch {
    pub columns: Vec<Vector>,
    /// Physical row count of every column.
    pub rows: usize,
    /// Live rows, ascending; `None` means all of `0..rows`.
    pub sel: Option<Vec<u32>>,
}

impl Batch {
    pub fn new(columns: Vec<Vector>, rows: usize) -> Batch {
        Batch {
            columns,
            rows,
            sel: None,
        }
    }

    /// Number of live rows.
    pub fn live_rows(&self) -> usize {
        self.sel.as_ref().map_or(self.rows, |s| s.len())
    }

    /// The selection as an explicit index list.
    pub fn selection(&self) -> Vec<u32> {
        match &self.sel {
            Some(s) => s.clone(),
            None => (0..self.rows as u32).collect(),
        }
    }

    /// Applies the selection, so that every column is dense.
    pub fn compact(self) -> Batch {
        match self.sel {
            None => self,
            Some(sel) => {
                let columns = self.columns.iter().map(|c| c.gather(&sel)).collect();
                Batch {
                    columns,
                    rows: sel.len(),
                    sel: None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(strings: &[&str]) -> Vector {
        let mut t = TextVec::with_capacity(strings.len());
        for s in strings {
            t.push(s.as_bytes());
        }
        Vector::from_data(Data::Text(t))
    }

    #[test]
    fn gather_refs_reads_across_sources() {
        // Short strings at the very end of a source's buffer, long ones, empty ones.
        let a = text(&["alpha", "", "a string longer than one word", "z"]);
        let b = text(&["b0", "beta-one", "x"]);
        let refs = [(1u64 << 32) | 2, 3, 1, (1 << 32), 2, 0, (1 << 32) | 1];
        let out = Vector::gather_refs(&[&a, &b], &refs);
        let Data::Text(t) = &out.data else {
            panic!("text expected");
        };
        let got: Vec<&str> = (0..t.len()).map(|i| t.get_str(i)).collect();
        assert_eq!(
            got,
            [
                "x",
                "z",
                "",
                "b0",
                "a string longer than one word",
                "alpha",
                "beta-one"
            ]
        );
        let ints = Vector {
            data: Data::I32(vec![1, 2]),
            nulls: Some(vec![false, true]),
        };
        let more = Vector::from_data(Data::I32(vec![30]));
        let out = Vector::gather_refs(&[&ints, &more], &[1 << 32, 1, 0]);
        assert!(matches!(&out.data, Data::I32(v) if v == &[30, 2, 1]));
        assert_eq!(out.nulls, Some(vec![false, true, false]));
    }
}
