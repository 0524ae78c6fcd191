//! Bytes on disk: column batches as the redo log and checkpoints store them, a bounds-
//! checked reader for them, and exact row identity (hash and equality of a row's stored
//! representation) for replaying deletes.
//!
//! A batch is `rows: u32`, `columns: u16`, then each column: a NULL flag byte (1: one
//! byte per row follows, 1 = NULL) and its values by physical kind — fixed-width kinds
//! as little-endian arrays, numerics as `(mantissa i128, scale u16)` or their text when
//! past 38 digits, intervals as `(months, days, micros)`, and every variable-length kind
//! (text, arrays, records) as per-row `u32` lengths followed by the bytes. Decoding is
//! driven by the table's column types, so the bytes carry no type tags; every length is
//! checked against what is left, so a damaged file is an error, never a panic or a huge
//! allocation.

use crate::error::{Error, Result};
use crate::exec::vector::{ArrayVec, Data, TextVec, Vector};
use crate::types::datetime::Interval;
use crate::types::{DataType, Numeric};

/// Appends the first `rows` rows of `columns` (dense) to `out`.
pub fn encode_batch(columns: &[Vector], rows: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&(rows as u32).to_le_bytes());
    out.extend_from_slice(&(columns.len() as u16).to_le_bytes());
    for c in columns {
        encode_column(c, rows, out);
    }
}

fn encode_column(v: &Vector, rows: usize, out: &mut Vec<u8>) {
    match &v.nulls {
        Some(n) if n[..rows].iter().any(|&b| b) => {
            out.push(1);
            out.extend(n[..rows].iter().map(|&b| b as u8));
        }
        _ => out.push(0),
    }
    macro_rules! fixed {
        ($v:expr) => {
            for x in &$v[..rows] {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
    }
    match &v.data {
        Data::Bool(b) => out.extend(b[..rows].iter().map(|&x| x as u8)),
        Data::I16(x) => fixed!(x),
        Data::I32(x) => fixed!(x),
        Data::I64(x) => fixed!(x),
        Data::F32(x) => fixed!(x),
        Data::F64(x) => fixed!(x),
        Data::Num(x) => {
            for n in &x[..rows] {
                match n {
                    Numeric::Small { mantissa, scale } => {
                        out.push(0);
                        out.extend_from_slice(&mantissa.to_le_bytes());
                        out.extend_from_slice(&scale.to_le_bytes());
                    }
                    Numeric::Big(_) => {
                        let text = n.to_text();
                        out.push(1);
                        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
                        out.extend_from_slice(text.as_bytes());
                    }
                }
            }
        }
        Data::Interval(x) => {
            for i in &x[..rows] {
                out.extend_from_slice(&i.months.to_le_bytes());
                out.extend_from_slice(&i.days.to_le_bytes());
                out.extend_from_slice(&i.micros.to_le_bytes());
            }
        }
        Data::Text(t)
        | Data::Record(t)
        | Data::Jsonb(t)
        | Data::Array(ArrayVec { blobs: t, .. }) => encode_text(t, rows, out),
    }
}

fn encode_text(t: &TextVec, rows: usize, out: &mut Vec<u8>) {
    for i in 0..rows {
        out.extend_from_slice(&(t.get(i).len() as u32).to_le_bytes());
    }
    let end = if rows == 0 { 0 } else { t.offsets[rows] };
    out.extend_from_slice(&t.data[t.offsets.first().copied().unwrap_or(0)..end]);
}

/// A cursor over bytes read from disk; every read is bounds-checked.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// A damaged or unreadable file: recovery stops with this.
pub fn corrupt(what: &str) -> Error {
    Error::new("XX001", format!("durable data is damaged: {what}"))
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| corrupt("a value runs past the end of its record"))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    /// A `u32`-length-prefixed UTF-8 string.
    pub fn string(&mut self) -> Result<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| corrupt("a name is not UTF-8"))
    }

    /// A batch written by [`encode_batch`] for a table whose columns have `types`.
    pub fn batch(&mut self, types: &[DataType]) -> Result<(Vec<Vector>, usize)> {
        let rows = self.u32()? as usize;
        let ncols = self.u16()? as usize;
        if ncols != types.len() {
            return Err(corrupt("a batch's column count differs from its table's"));
        }
        // Each row takes at least one byte per column: a row count past what is left
        // is damage, not a reason to allocate.
        if ncols > 0 && rows > self.bytes.len() - self.pos {
            return Err(corrupt("a batch's row count exceeds its record"));
        }
        let columns = types
            .iter()
            .map(|&ty| self.column(ty, rows))
            .collect::<Result<Vec<_>>>()?;
        Ok((columns, rows))
    }

    fn column(&mut self, ty: DataType, rows: usize) -> Result<Vector> {
        let nulls = match self.u8()? {
            0 => None,
            1 => Some(self.take(rows)?.iter().map(|&b| b != 0).collect()),
            _ => return Err(corrupt("a column's NULL flag")),
        };
        let mut v = Vector::with_capacity(ty, 0);
        macro_rules! fixed {
            ($t:ty) => {{
                const W: usize = std::mem::size_of::<$t>();
                let bytes = self.take(rows.checked_mul(W).ok_or_else(|| corrupt("size"))?)?;
                bytes
                    .chunks_exact(W)
                    .map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or([0; W])))
                    .collect()
            }};
        }
        v.data = match v.data {
            Data::Bool(_) => Data::Bool(self.take(rows)?.iter().map(|&b| b != 0).collect()),
            Data::I16(_) => Data::I16(fixed!(i16)),
            Data::I32(_) => Data::I32(fixed!(i32)),
            Data::I64(_) => Data::I64(fixed!(i64)),
            Data::F32(_) => Data::F32(fixed!(f32)),
            Data::F64(_) => Data::F64(fixed!(f64)),
            Data::Num(_) => {
                let mut out = Vec::with_capacity(rows);
                for _ in 0..rows {
                    out.push(match self.u8()? {
                        0 => {
                            let m = i128::from_le_bytes(self.array()?);
                            let scale = self.u16()?;
                            Numeric::new(m, scale).map_err(|_| corrupt("a numeric"))?
                        }
                        1 => {
                            let text = self.string()?;
                            Numeric::parse(&text).map_err(|_| corrupt("a numeric"))?
                        }
                        _ => return Err(corrupt("a numeric's tag")),
                    });
                }
                Data::Num(out)
            }
            Data::Interval(_) => {
                let mut out = Vec::with_capacity(rows);
                for _ in 0..rows {
                    let months = i32::from_le_bytes(self.array()?);
                    let days = i32::from_le_bytes(self.array()?);
                    let micros = self.i64()?;
                    out.push(Interval {
                        months,
                        days,
                        micros,
                    });
                }
                Data::Interval(out)
            }
            Data::Text(_) => Data::Text(self.text(rows)?),
            Data::Record(_) => Data::Record(self.text(rows)?),
            Data::Jsonb(_) => Data::Jsonb(self.text(rows)?),
            Data::Array(a) => Data::Array(ArrayVec {
                elem: a.elem,
                blobs: self.text(rows)?,
            }),
        };
        v.nulls = nulls;
        Ok(v)
    }

    fn text(&mut self, rows: usize) -> Result<TextVec> {
        let lens = self.take(rows.checked_mul(4).ok_or_else(|| corrupt("size"))?)?;
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0usize);
        let mut total = 0usize;
        for c in lens.chunks_exact(4) {
            total = total
                .checked_add(u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
                .ok_or_else(|| corrupt("size"))?;
            offsets.push(total);
        }
        let data = self.take(total)?.to_vec();
        Ok(TextVec { offsets, data })
    }
}

/// A hash of row `row`'s stored representation (equal for rows [`rows_equal`] calls
/// equal).
pub fn row_hash(columns: &[Vector], row: usize) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = foldhash::fast::FixedState::with_seed(0x6b69_6c6e).build_hasher();
    for c in columns {
        if c.is_null(row) {
            h.write_u8(0xff);
            continue;
        }
        match &c.data {
            Data::Bool(v) => h.write_u8(v[row] as u8),
            Data::I16(v) => h.write_i16(v[row]),
            Data::I32(v) => h.write_i32(v[row]),
            Data::I64(v) => h.write_i64(v[row]),
            Data::F32(v) => h.write_u32(v[row].to_bits()),
            Data::F64(v) => h.write_u64(v[row].to_bits()),
            Data::Num(v) => match &v[row] {
                Numeric::Small { mantissa, scale } => {
                    h.write_i128(*mantissa);
                    h.write_u16(*scale);
                }
                big => h.write(big.to_text().as_bytes()),
            },
            Data::Interval(v) => {
                h.write_i32(v[row].months);
                h.write_i32(v[row].days);
                h.write_i64(v[row].micros);
            }
            Data::Text(t)
            | Data::Record(t)
            | Data::Jsonb(t)
            | Data::Array(ArrayVec { blobs: t, .. }) => {
                h.write(t.get(row));
                h.write_u8(0xfe);
            }
        }
    }
    h.finish()
}

/// Whether row `ar` of `a` and row `br` of `b` store exactly the same values (floats by
/// their bits, numerics with their scale): the same row as far as a replayed delete can
/// tell.
pub fn rows_equal(a: &[Vector], ar: usize, b: &[Vector], br: usize) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (xn, yn) = (x.is_null(ar), y.is_null(br));
            if xn || yn {
                return xn && yn;
            }
            match (&x.data, &y.data) {
                (Data::Bool(p), Data::Bool(q)) => p[ar] == q[br],
                (Data::I16(p), Data::I16(q)) => p[ar] == q[br],
                (Data::I32(p), Data::I32(q)) => p[ar] == q[br],
                (Data::I64(p), Data::I64(q)) => p[ar] == q[br],
                (Data::F32(p), Data::F32(q)) => p[ar].to_bits() == q[br].to_bits(),
                (Data::F64(p), Data::F64(q)) => p[ar].to_bits() == q[br].to_bits(),
                (Data::Num(p), Data::Num(q)) => match (&p[ar], &q[br]) {
                    (
                        Numeric::Small {
                            mantissa: m1,
                            scale: s1,
                        },
                        Numeric::Small {
                            mantissa: m2,
                            scale: s2,
                        },
                    ) => m1 == m2 && s1 == s2,
                    (n1, n2) => n1.to_text() == n2.to_text(),
                },
                (Data::Interval(p), Data::Interval(q)) => p[ar] == q[br],
                (Data::Text(p), Data::Text(q))
                | (Data::Record(p), Data::Record(q))
                | (Data::Jsonb(p), Data::Jsonb(q)) => p.get(ar) == q.get(br),
                (Data::Array(p), Data::Array(q)) => p.blobs.get(ar) == q.blobs.get(br),
                _ => false,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Value;

    fn column(ty: DataType, values: &[Value]) -> Vector {
        let mut v = Vector::with_capacity(ty, values.len());
        for x in values {
            v.push_value(x);
        }
        v
    }

    #[test]
    fn a_batch_comes_back_as_written() {
        let types = [
            DataType::Int4,
            DataType::Text,
            DataType::Numeric,
            DataType::Float8,
        ];
        let cols = vec![
            column(
                DataType::Int4,
                &[Value::Int4(1), Value::Null, Value::Int4(-3)],
            ),
            column(
                DataType::Text,
                &[Value::Text("a".into()), Value::Text("".into()), Value::Null],
            ),
            column(
                DataType::Numeric,
                &[
                    Value::Numeric(Numeric::parse("1.50").unwrap()),
                    Value::Numeric(
                        Numeric::parse("123456789012345678901234567890123456789012.5").unwrap(),
                    ),
                    Value::Null,
                ],
            ),
            column(
                DataType::Float8,
                &[Value::Float8(-0.0), Value::Float8(2.5), Value::Null],
            ),
        ];
        let mut bytes = Vec::new();
        encode_batch(&cols, 3, &mut bytes);
        let (back, rows) = Reader::new(&bytes).batch(&types).unwrap();
        assert_eq!(rows, 3);
        for r in 0..3 {
            assert!(rows_equal(&cols, r, &back, r), "row {r}");
            assert_eq!(row_hash(&cols, r), row_hash(&back, r));
        }
        let Value::Numeric(n) = back[2].value(0, DataType::Numeric) else {
            panic!("not a numeric")
        };
        assert_eq!(n.to_text(), "1.50");
        // -0.0 and 0.0 are different stored values.
        let zero = column(DataType::Float8, &[Value::Float8(0.0)]);
        assert!(!rows_equal(&cols[3..], 0, &[zero], 0));
        assert!(!rows_equal(&cols, 0, &back, 1));
    }

    #[test]
    fn a_jsonb_row_equals_itself_after_the_round_trip() {
        // A replayed delete finds its row by comparing values: jsonb must compare.
        let doc = crate::types::jsonb::parse(r#"{"a": [1, "x"], "b": null}"#).unwrap();
        let cols = vec![column(DataType::Jsonb, &[Value::Jsonb(doc), Value::Null])];
        let mut bytes = Vec::new();
        encode_batch(&cols, 2, &mut bytes);
        let (back, rows) = Reader::new(&bytes).batch(&[DataType::Jsonb]).unwrap();
        assert_eq!(rows, 2);
        for r in 0..2 {
            assert!(rows_equal(&cols, r, &back, r), "row {r}");
            assert_eq!(row_hash(&cols, r), row_hash(&back, r));
        }
        assert!(!rows_equal(&cols, 0, &back, 1));
    }

    #[test]
    fn a_damaged_batch_is_an_error() {
        let cols = vec![column(DataType::Text, &[Value::Text("hello".into())])];
        let mut bytes = Vec::new();
        encode_batch(&cols, 1, &mut bytes);
        for cut in 0..bytes.len() {
            assert!(Reader::new(&bytes[..cut]).batch(&[DataType::Text]).is_err());
        }
        // A row count far past the bytes is refused before anything is allocated.
        let mut huge = bytes.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Reader::new(&huge).batch(&[DataType::Text]).is_err());
    }
}
