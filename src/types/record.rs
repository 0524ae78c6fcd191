//! Anonymous records (`ROW(a, b)`, PostgreSQL's `record`): what WITH RECURSIVE's SEARCH
//! and CYCLE clauses build their ordering and path columns from, and what `ROW(…)`
//! gives outside a comparison.
//!
//! # Stored form
//! A record is one byte string that describes itself, so a column of records needs no
//! registry of row types (PostgreSQL keeps one, keyed by typmod):
//!
//! ```text
//! nfields: u16
//! per field: type code (u8, see `type_code`), then as an array element:
//!            0x00 (NULL) | 0x01 payload
//! ```
//!
//! Payloads are those of `types::array` (fixed width, or a `u32` length and bytes for
//! strings, numerics, arrays and nested records). Comparison is PostgreSQL's
//! `record_cmp`: field by field, NULLs equal to each other and greater than any value.

use std::cmp::Ordering;

use super::array;
use super::text::{self, TextFormat};
use super::{DataType, Value};

/// A compact code for a field's type: a scalar's (`types::scalar_code`, which places
/// `record` too), or an array's (its element's with the high bit set).
fn type_code(t: DataType) -> u8 {
    match t {
        DataType::Array(e) => 0x80 | super::scalar_code(*e).unwrap_or(TEXT_CODE),
        other => super::scalar_code(other).unwrap_or(TEXT_CODE),
    }
}

/// Unknown-typed fields (untyped literals) are text.
const TEXT_CODE: u8 = 7;

fn type_of_code(c: u8) -> DataType {
    if c & 0x80 != 0 {
        let elem = super::scalar_of_code(c & 0x7f).unwrap_or(DataType::Text);
        return DataType::array_of(elem).unwrap_or(DataType::Text);
    }
    super::scalar_of_code(c).unwrap_or(DataType::Text)
}

/// Record types with named fields (PostgreSQL's "blessed" record types): a record column
/// whose typmod is at least 0 has the fields registered under it, so `(r).name` finds
/// its field at bind time. Shapes are few and fixed (the functions that return them),
/// registered once and never removed.
static SHAPES: std::sync::RwLock<Vec<&'static [(&'static str, DataType)]>> =
    std::sync::RwLock::new(Vec::new());

/// The typmod of records with fields `fields` (name, type), registered on first use
/// (kept for the life of the process: there are as many shapes as functions returning
/// records times their argument types, a few dozen at most).
pub fn bless(fields: &[(&'static str, DataType)]) -> i32 {
    if let Ok(shapes) = SHAPES.read()
        && let Some(i) = shapes.iter().position(|s| *s == fields)
    {
        return i as i32;
    }
    let Ok(mut shapes) = SHAPES.write() else {
        return -1;
    };
    if let Some(i) = shapes.iter().position(|s| *s == fields) {
        return i as i32;
    }
    shapes.push(Box::leak(fields.to_vec().into_boxed_slice()));
    shapes.len() as i32 - 1
}

/// Most shapes [`bless_owned`] registers: beyond it, records built from queries' own
/// column names go anonymous (fields f1, f2 …) rather than grow the registry without
/// bound.
const OWNED_SHAPES_MAX: usize = 4096;

/// [`bless`] for field names a query chose (a whole-row reference's columns): the
/// names are kept for the life of the process, so once the registry holds
/// `OWNED_SHAPES_MAX` shapes a new one gets typmod -1 (anonymous).
pub fn bless_owned(fields: &[(String, DataType)]) -> i32 {
    let same = |s: &[(&'static str, DataType)]| {
        s.len() == fields.len() && s.iter().zip(fields).all(|(a, b)| a.0 == b.0 && a.1 == b.1)
    };
    if let Ok(shapes) = SHAPES.read()
        && let Some(i) = shapes.iter().position(|s| same(s))
    {
        return i as i32;
    }
    let Ok(mut shapes) = SHAPES.write() else {
        return -1;
    };
    if let Some(i) = shapes.iter().position(|s| same(s)) {
        return i as i32;
    }
    if shapes.len() >= OWNED_SHAPES_MAX {
        return -1;
    }
    let leaked: Vec<(&'static str, DataType)> = fields
        .iter()
        .map(|(n, t)| (&*Box::leak(n.clone().into_boxed_str()), *t))
        .collect();
    shapes.push(Box::leak(leaked.into_boxed_slice()));
    shapes.len() as i32 - 1
}

/// The fields of records of typmod `typmod`, if it names a registered shape.
pub fn shape(typmod: i32) -> Option<&'static [(&'static str, DataType)]> {
    let i = usize::try_from(typmod).ok()?;
    SHAPES.read().ok()?.get(i).copied()
}

/// Builds a record from field values and their types.
pub fn build(fields: &[(DataType, Value)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(fields.len() as u16).to_le_bytes());
    for (t, v) in fields {
        out.push(type_code(*t));
        array::push_value(&mut out, v);
    }
    out
}

/// Starts a record of `n` fields; [`push_field`] appends each.
pub fn begin(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u16).to_le_bytes());
}

/// Appends a field's type code; its value follows as an array element (tag, payload).
pub fn push_field_type(out: &mut Vec<u8>, t: DataType) {
    out.push(type_code(t));
}

/// The fields: type and payload (None: NULL).
pub fn fields(bytes: &[u8]) -> Vec<(DataType, Option<&[u8]>)> {
    let n = bytes
        .get(..2)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u16::from_le_bytes) as usize;
    let mut out = Vec::with_capacity(n);
    let mut rest = bytes.get(2..).unwrap_or(&[]);
    for _ in 0..n {
        let Some((&code, after)) = rest.split_first() else {
            break;
        };
        let t = type_of_code(code);
        let Some((&tag, after)) = after.split_first() else {
            break;
        };
        if tag == 0 {
            out.push((t, None));
            rest = after;
            continue;
        }
        let len = match array::fixed_width(t) {
            Some(w) => w,
            None => {
                4 + after
                    .get(..4)
                    .and_then(|b| b.try_into().ok())
                    .map_or(0, u32::from_le_bytes) as usize
            }
        };
        let Some(payload) = after.get(..len) else {
            break;
        };
        out.push((t, Some(payload)));
        rest = &after[len..];
    }
    out
}

/// The value of field `i` (NULL when absent).
pub fn field(bytes: &[u8], i: usize) -> Value {
    match fields(bytes).get(i) {
        Some((t, Some(p))) => array::decode(p, *t),
        _ => Value::Null,
    }
}

/// PostgreSQL's `record_cmp`.
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let (x, y) = (fields(a), fields(b));
    for ((tx, px), (_, py)) in x.iter().zip(&y) {
        let o = match (px, py) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(p), Some(q)) => {
                array::compare_values(&array::decode(p, *tx), &array::decode(q, *tx))
            }
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    x.len().cmp(&y.len())
}

/// Appends a hashing key: records `record_eq` calls equal write equal bytes.
pub fn write_key(bytes: &[u8], out: &mut Vec<u8>) {
    let f = fields(bytes);
    out.extend_from_slice(&(f.len() as u16).to_le_bytes());
    for (t, p) in f {
        match p {
            None => out.push(0),
            Some(p) => {
                out.push(1);
                // One field as a one-element array: the array key's canonical forms.
                let mut one = Vec::new();
                let mut b = array::Builder::one_dim(&mut one, 1);
                b.push_payload(Some(p));
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                array::write_key(&one, t, out);
                let len = (out.len() - at - 4) as u32;
                out[at..at + 4].copy_from_slice(&len.to_le_bytes());
            }
        }
    }
}

/// PostgreSQL's `record_out`: `(1,"a b",)`, a field quoted when its text is empty or
/// holds a quote, backslash, parenthesis, comma or space (quotes and backslashes
/// doubled inside), nothing for NULL.
pub fn write_text(bytes: &[u8], fmt: &TextFormat, out: &mut Vec<u8>) {
    out.push(b'(');
    let mut scratch = Vec::new();
    for (k, (t, p)) in fields(bytes).into_iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        let Some(p) = p else { continue };
        scratch.clear();
        text::write_value(&mut scratch, &array::decode(p, t), fmt);
        let quote = scratch.is_empty()
            || scratch.iter().any(|&c| {
                matches!(c, b'"' | b'\\' | b'(' | b')' | b',') || c.is_ascii_whitespace()
            });
        if quote {
            out.push(b'"');
            for &c in &scratch {
                if c == b'"' || c == b'\\' {
                    out.push(c);
                }
                out.push(c);
            }
            out.push(b'"');
        } else {
            out.extend_from_slice(&scratch);
        }
    }
    out.push(b')');
}

/// The fields' types and values, for the binary format.
pub fn values(bytes: &[u8]) -> Vec<(DataType, Value)> {
    fields(bytes)
        .into_iter()
        .map(|(t, p)| (t, p.map_or(Value::Null, |p| array::decode(p, t))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(fields: &[(DataType, Value)]) -> Vec<u8> {
        build(fields)
    }

    #[test]
    fn prints_compares_and_keys_as_postgresql() {
        let fmt = TextFormat::default();
        let r = rec(&[
            (DataType::Int4, Value::Int4(1)),
            (DataType::Text, Value::Text("a b".into())),
            (DataType::Text, Value::Null),
            (DataType::Text, Value::Text(String::new())),
            (DataType::Text, Value::Text("q\"(".into())),
        ]);
        let mut out = Vec::new();
        write_text(&r, &fmt, &mut out);
        assert_eq!(String::from_utf8_lossy(&out), r#"(1,"a b",,"","q""(")"#);
        let one = |v: i32| rec(&[(DataType::Int4, Value::Int4(v))]);
        assert_eq!(compare(&one(9), &one(10)), Ordering::Less);
        let null = rec(&[(DataType::Int4, Value::Null)]);
        assert_eq!(compare(&null, &one(10)), Ordering::Greater);
        assert_eq!(compare(&null, &null), Ordering::Equal);
        let n = |s: &str| {
            rec(&[(
                DataType::Numeric,
                Value::Numeric(
                    crate::types::Numeric::parse(s).unwrap_or(crate::types::Numeric::ZERO),
                ),
            )])
        };
        assert_eq!(compare(&n("1.0"), &n("1.00")), Ordering::Equal);
        let (mut k1, mut k2) = (Vec::new(), Vec::new());
        write_key(&n("1.0"), &mut k1);
        write_key(&n("1.00"), &mut k2);
        assert_eq!(k1, k2);
        assert_eq!(field(&r, 1), Value::Text("a b".into()));
        assert_eq!(field(&r, 7), Value::Null);
    }
}
