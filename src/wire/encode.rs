//! Values on the wire: RowDescription, DataRow from column batches, binary formats.
//!
//! DataRows are written straight from the batch's vectors into the output buffer: one
//! length patch per row and per cell, no intermediate row objects. Binary formats are
//! PostgreSQL's send/recv formats (big-endian integers, IEEE floats, microsecond
//! timestamps since 2000-01-01, base-10000 NUMERIC digits).

use super::codec::OutBuf;
use crate::error::{Error, Result};
use crate::exec::vector::{Batch, Data, TextVec, Vector};
use crate::plan::OutputColumn;
use crate::types::datetime::{self, Interval};
use crate::types::text::{self, TextFormat};
use crate::types::{DataType, Numeric, SqlType, Value, array};

/// The format of result column `i` given Bind's result format codes.
pub fn format_of(formats: &[i16], i: usize) -> i16 {
    match formats.len() {
        0 => 0,
        1 => formats[0],
        _ => formats.get(i).copied().unwrap_or(0),
    }
}

pub fn row_description(out: &mut OutBuf, columns: &[OutputColumn], formats: &[i16]) {
    let at = out.begin(b'T');
    out.i16(columns.len() as i16);
    for (i, c) in columns.iter().enumerate() {
        out.cstr(&c.name);
        let (table, column) = c.origin.unwrap_or((0, 0));
        out.i32(table as i32);
        out.i16(column);
        let vector = crate::types::vector_oid(c.ty);
        out.i32(vector.unwrap_or(c.ty.ty.oid()) as i32);
        out.i16(c.ty.ty.type_len());
        // The vector marker is no typmod a client should see (nor its elements').
        out.i32(if c.ty.typmod == crate::types::VECTOR_TYPMOD {
            -1
        } else {
            c.ty.typmod
        });
        out.i16(format_of(formats, i));
    }
    out.end(at);
}

/// Two ASCII digits for every value 0..100.
const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends a whole cell — 4-byte length, then the decimal text of `v` — with one
/// fixed-size copy: the digits are built backwards in a stack array and the copy's
/// surplus is cut off. (Variable-length copies of a few bytes were a quarter of the
/// encoder's time as `memcpy` calls; fixed-size ones compile to two vector stores.)
#[inline]
fn int_cell(out: &mut Vec<u8>, v: i64) {
    let mut tmp = [0u8; 24];
    let mut pos = 24;
    let mut n = v.unsigned_abs();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        pos -= 2;
        tmp[pos] = DIGIT_PAIRS[pair];
        tmp[pos + 1] = DIGIT_PAIRS[pair + 1];
    }
    if n >= 10 {
        let pair = n as usize * 2;
        pos -= 2;
        tmp[pos] = DIGIT_PAIRS[pair];
        tmp[pos + 1] = DIGIT_PAIRS[pair + 1];
    } else {
        pos -= 1;
        tmp[pos] = b'0' + n as u8;
    }
    if v < 0 {
        pos -= 1;
        tmp[pos] = b'-';
    }
    let len = 24 - pos;
    // Shift the digits to follow a length prefix at the start of the array.
    let mut cell = [0u8; 24];
    cell[..4].copy_from_slice(&(len as i32).to_be_bytes());
    for k in 0..20 {
        cell[4 + k] = if pos + k < 24 { tmp[pos + k] } else { 0 };
    }
    let at = out.len();
    out.extend_from_slice(&cell);
    out.truncate(at + 4 + len);
}

/// Appends a text cell; short strings avoid a `memcpy` call the same way.
#[inline]
fn text_bytes_cell(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() <= 28 {
        let mut cell = [0u8; 32];
        cell[..4].copy_from_slice(&(bytes.len() as i32).to_be_bytes());
        for (d, s) in cell[4..].iter_mut().zip(bytes) {
            *d = *s;
        }
        let at = out.len();
        out.extend_from_slice(&cell);
        out.truncate(at + 4 + bytes.len());
    } else {
        out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
        out.extend_from_slice(bytes);
    }
}

/// An int2vector's or oidvector's text cell: its elements separated by spaces.
fn vector_cell(buf: &mut Vec<u8>, v: &Vector, i: usize) {
    let len_at = buf.len();
    buf.extend_from_slice(&[0, 0, 0, 0]);
    if let Data::Array(a) = &v.data {
        let view = crate::types::array::View::new(a.blobs.get(i), a.elem);
        for (k, e) in view.values().iter().enumerate() {
            if k > 0 {
                buf.push(b' ');
            }
            text::write_value(buf, e, &TextFormat::default());
        }
    }
    let len = (buf.len() - len_at - 4) as i32;
    buf[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
}

/// Appends a text-format cell (length prefix included).
#[inline]
fn text_cell(buf: &mut Vec<u8>, v: &Vector, i: usize, ty: DataType, fmt: &TextFormat) {
    match &v.data {
        Data::I16(x) => return int_cell(buf, x[i] as i64),
        Data::I32(x) if ty != DataType::Date => return int_cell(buf, x[i] as i64),
        Data::I64(x)
            if !matches!(
                ty,
                DataType::Timestamp | DataType::Timestamptz | DataType::Time | DataType::TimeTz
            ) =>
        {
            return int_cell(buf, x[i]);
        }
        Data::Text(t) if !ty.is_raw_bytes() => {
            return text_bytes_cell(buf, t.get(i));
        }
        _ => {}
    }
    let len_at = buf.len();
    buf.extend_from_slice(&[0, 0, 0, 0]);
    text_value(buf, v, i, ty, fmt);
    let len = (buf.len() - len_at - 4) as i32;
    buf[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
}

/// Appends the text form of row `i` of `v` (no length prefix).
pub fn text_value(buf: &mut Vec<u8>, v: &Vector, i: usize, ty: DataType, fmt: &TextFormat) {
    match &v.data {
        Data::Bool(x) => text::write_bool(buf, x[i]),
        Data::I16(x) => text::write_int(buf, x[i] as i64),
        Data::I32(x) => {
            if ty == DataType::Date {
                datetime::write_date(buf, x[i])
            } else {
                text::write_int(buf, x[i] as i64)
            }
        }
        Data::I64(x) => match ty {
            DataType::Timestamp => datetime::write_timestamp(buf, x[i]),
            DataType::Timestamptz => {
                datetime::write_timestamptz(buf, x[i], fmt.zone.offset_at(x[i]))
            }
            DataType::Time => datetime::write_time(buf, x[i]),
            DataType::TimeTz => datetime::write_timetz(buf, x[i]),
            _ => text::write_int(buf, x[i]),
        },
        Data::F32(x) => text::write_f32(buf, x[i], fmt.extra_float_digits),
        Data::F64(x) => text::write_f64(buf, x[i], fmt.extra_float_digits),
        Data::Num(x) => x[i].write_text(buf),
        Data::Text(t) => match ty {
            DataType::Uuid => crate::types::bytes::write_uuid(buf, t.get(i)),
            DataType::Bytea => crate::types::bytes::write_bytea(buf, t.get(i), fmt.bytea_escape),
            DataType::Inet | DataType::Cidr | DataType::MacAddr | DataType::MacAddr8 => {
                text::write_net(buf, ty, t.get(i))
            }
            DataType::Range(k) => crate::types::range::write_text(buf, k, t.get(i), fmt),
            DataType::TsVector | DataType::TsQuery => {
                crate::types::tsearch::write_text(buf, ty, t.get(i))
            }
            _ => buf.extend_from_slice(t.get(i)),
        },
        Data::Interval(x) => datetime::write_interval(buf, &x[i]),
        Data::Array(a) => array::write_text(a.blobs.get(i), a.elem, fmt, buf),
        Data::Record(t) => crate::types::record::write_text(t.get(i), fmt, buf),
        Data::Jsonb(t) => crate::types::jsonb::write_text(t.get(i), buf),
    }
}

/// Appends the binary (send) form of row `i` of `v` (no length prefix).
pub fn binary_value(buf: &mut Vec<u8>, v: &Vector, i: usize, ty: DataType) {
    match &v.data {
        // jsonpath's binary form: a version byte, then the text.
        Data::Text(t) if ty == DataType::JsonPath => {
            buf.push(1);
            buf.extend_from_slice(t.get(i));
        }
        Data::I64(x) if ty.is_oid() => buf.extend_from_slice(&(x[i] as u32).to_be_bytes()),
        Data::I64(x) if ty == DataType::TimeTz => timetz_send(buf, x[i]),
        Data::Text(t) if matches!(ty, DataType::Inet | DataType::Cidr) => {
            let n = crate::types::net::Inet::decode(t.get(i));
            crate::types::net::send(&n, ty == DataType::Cidr, buf);
        }
        Data::Text(t) if matches!(ty, DataType::Range(_)) => {
            value_send(buf, &Value::Raw(ty, t.get(i).to_vec()));
        }
        Data::Text(t) if matches!(ty, DataType::TsVector | DataType::TsQuery) => {
            crate::types::tsearch::send(buf, ty, t.get(i));
        }
        Data::Bool(x) => buf.push(x[i] as u8),
        Data::I16(x) => buf.extend_from_slice(&x[i].to_be_bytes()),
        Data::I32(x) => buf.extend_from_slice(&x[i].to_be_bytes()),
        Data::I64(x) => buf.extend_from_slice(&x[i].to_be_bytes()),
        Data::F32(x) => buf.extend_from_slice(&x[i].to_bits().to_be_bytes()),
        Data::F64(x) => buf.extend_from_slice(&x[i].to_bits().to_be_bytes()),
        Data::Num(x) => numeric_send(buf, &x[i]),
        Data::Text(t) => buf.extend_from_slice(t.get(i)),
        Data::Interval(x) => interval_send(buf, &x[i]),
        Data::Array(a) => array_send(buf, a.blobs.get(i), a.elem),
        Data::Record(t) => record_send(buf, t.get(i)),
        // jsonb's binary form: a version byte, then the text.
        Data::Jsonb(t) => {
            buf.push(1);
            crate::types::jsonb::write_text(t.get(i), buf);
        }
    }
}

/// timetz_send: the time of day (int8 microseconds), then the zone (int4 seconds
/// west of UTC).
fn timetz_send(buf: &mut Vec<u8>, packed: i64) {
    let (time, west) = crate::types::datetime::unpack_timetz(packed);
    buf.extend_from_slice(&time.to_be_bytes());
    buf.extend_from_slice(&west.to_be_bytes());
}

fn interval_send(buf: &mut Vec<u8>, iv: &Interval) {
    buf.extend_from_slice(&iv.micros.to_be_bytes());
    buf.extend_from_slice(&iv.days.to_be_bytes());
    buf.extend_from_slice(&iv.months.to_be_bytes());
}

/// PostgreSQL's `array_send`: dimensions, a has-NULLs flag, the element type, the
/// dimensions' lengths and lower bounds, then each element length-prefixed (-1 for NULL).
fn array_send(buf: &mut Vec<u8>, bytes: &[u8], elem: DataType) {
    let v = array::View::new(bytes, elem);
    let dims = v.dims();
    buf.extend_from_slice(&(dims.len() as i32).to_be_bytes());
    buf.extend_from_slice(&(v.has_nulls() as i32).to_be_bytes());
    buf.extend_from_slice(&elem.oid().to_be_bytes());
    for d in &dims {
        buf.extend_from_slice(&d.len.to_be_bytes());
        buf.extend_from_slice(&d.lbound.to_be_bytes());
    }
    for e in v.elements() {
        let Some(p) = e else {
            buf.extend_from_slice(&(-1i32).to_be_bytes());
            continue;
        };
        let len_at = buf.len();
        buf.extend_from_slice(&[0; 4]);
        if elem == DataType::JsonPath {
            buf.push(1);
        }
        value_send(buf, &array::decode(p, elem));
        let len = (buf.len() - len_at - 4) as i32;
        buf[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
    }
}

/// PostgreSQL's `record_send`: the field count, then each field's type OID and its
/// length-prefixed binary form (-1 for NULL).
fn record_send(buf: &mut Vec<u8>, bytes: &[u8]) {
    let fields = crate::types::record::values(bytes);
    buf.extend_from_slice(&(fields.len() as i32).to_be_bytes());
    for (t, v) in fields {
        buf.extend_from_slice(&t.oid().to_be_bytes());
        if v.is_null() {
            buf.extend_from_slice(&(-1i32).to_be_bytes());
            continue;
        }
        let len_at = buf.len();
        buf.extend_from_slice(&[0; 4]);
        value_send(buf, &v);
        let len = (buf.len() - len_at - 4) as i32;
        buf[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
    }
}

/// The binary form of one non-NULL value.
fn value_send(buf: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => {}
        Value::Bool(x) => buf.push(*x as u8),
        Value::Int2(x) => buf.extend_from_slice(&x.to_be_bytes()),
        Value::Int4(x) | Value::Date(x) => buf.extend_from_slice(&x.to_be_bytes()),
        Value::Int8(x) | Value::Timestamp(x) | Value::Timestamptz(x) | Value::Time(x) => {
            buf.extend_from_slice(&x.to_be_bytes())
        }
        Value::TimeTz(x) => timetz_send(buf, *x),
        Value::Raw(t, b) if matches!(t, DataType::Inet | DataType::Cidr) => {
            let n = crate::types::net::Inet::decode(b);
            crate::types::net::send(&n, *t == DataType::Cidr, buf);
        }
        Value::Raw(t @ (DataType::TsVector | DataType::TsQuery), b) => {
            crate::types::tsearch::send(buf, *t, b);
        }
        Value::Raw(DataType::Range(k), b) => {
            let r = crate::types::range::decode(*k, b);
            buf.push(crate::types::range::flags(&r));
            for bound in [&r.lower, &r.upper] {
                if let Some(v) = &bound.value {
                    let len_at = buf.len();
                    buf.extend_from_slice(&[0; 4]);
                    value_send(buf, v);
                    let len = (buf.len() - len_at - 4) as i32;
                    buf[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
                }
            }
        }
        Value::Raw(_, b) => buf.extend_from_slice(b),
        Value::Float4(x) => buf.extend_from_slice(&x.to_bits().to_be_bytes()),
        Value::Float8(x) => buf.extend_from_slice(&x.to_bits().to_be_bytes()),
        Value::Numeric(n) => numeric_send(buf, n),
        Value::Text(s) => buf.extend_from_slice(s.as_bytes()),
        Value::Interval(iv) => interval_send(buf, iv),
        Value::Array(a) => array_send(buf, &a.bytes, a.elem),
        Value::Record(r) => record_send(buf, r),
        Value::Uuid(u) => buf.extend_from_slice(u),
        Value::Bytes(b) => buf.extend_from_slice(b),
        Value::Jsonb(b) => {
            buf.push(1);
            crate::types::jsonb::write_text(b, buf);
        }
    }
}

/// PostgreSQL's `array_recv` for a parameter of array type `ty`.
fn array_recv(b: &[u8], ty: SqlType, index: usize, fmt: &TextFormat) -> Result<Value> {
    let Some(elem) = ty.ty.elem() else {
        return Err(bad_binary(index));
    };
    let mut at = 0usize;
    let word = |at: &mut usize| -> Result<i32> {
        let w = b
            .get(*at..*at + 4)
            .and_then(|w| w.try_into().ok())
            .map(i32::from_be_bytes)
            .ok_or_else(|| bad_binary(index))?;
        *at += 4;
        Ok(w)
    };
    let ndims = word(&mut at)?;
    let _has_nulls = word(&mut at)?;
    let elem_oid = word(&mut at)? as u32;
    if !(0..=array::MAX_DIMS as i32).contains(&ndims) {
        return Err(Error::new(
            "22P03",
            format!("invalid number of dimensions: {ndims}"),
        ));
    }
    if elem_oid != elem.oid() {
        return Err(Error::new(
            "42804",
            format!(
                "binary data has array element type {elem_oid} ({}) instead of expected {} ({})",
                DataType::from_oid(elem_oid).map_or("unknown", |t| t.name()),
                elem.oid(),
                elem.name()
            ),
        ));
    }
    let mut dims = Vec::with_capacity(ndims as usize);
    let mut total: u64 = 1;
    for _ in 0..ndims {
        let len = word(&mut at)?;
        let lbound = word(&mut at)?;
        if len < 0 || lbound.checked_add(len).is_none() {
            return Err(bad_binary(index));
        }
        total = total.saturating_mul(len as u64);
        dims.push(array::Dim { len, lbound });
    }
    if ndims == 0 || total == 0 {
        dims.clear();
        total = 0;
    }
    array::check_bounds(&dims)?;
    if total > array::MAX_ELEMENTS as u64 {
        return Err(Error::new(
            "54000",
            format!(
                "array size exceeds the maximum allowed ({})",
                array::MAX_ELEMENTS
            ),
        ));
    }
    let elem_ty = SqlType::with_typmod(elem, ty.typmod);
    let mut out = Vec::new();
    let mut builder = array::Builder::new(&mut out, &dims);
    for _ in 0..total {
        let len = word(&mut at)?;
        if len < 0 {
            builder.push_null();
            continue;
        }
        let raw = b
            .get(at..at + len as usize)
            .ok_or_else(|| bad_binary(index))?;
        at += len as usize;
        builder.push(&decode_param(Some(raw), elem_ty, true, index, fmt)?);
    }
    if at != b.len() {
        return Err(bad_binary(index));
    }
    Ok(Value::Array(Box::new(array::Array { elem, bytes: out })))
}

/// A column the columnar text encoder handles: integers and strings, the common case.
enum TextColumn<'a> {
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    Text(&'a TextVec),
    /// Dates (ISO output, the only DateStyle kiln writes).
    Date(&'a [i32]),
}

/// A string shorter than this is copied as one fixed-size word (see `data_rows_columnar`);
/// it must not exceed a DataRow header (7 bytes) plus one.
const SPILL: usize = 8;

/// Characters in the decimal form of `v`, sign included.
#[inline]
fn int_text_len(v: i64) -> usize {
    (v.unsigned_abs() | 1).ilog10() as usize + 1 + (v < 0) as usize
}

/// Writes the decimal form of `v` into `dst`, which is exactly `int_text_len(v)` long.
#[inline]
fn write_int_into(dst: &mut [u8], v: i64) {
    let mut n = v.unsigned_abs();
    let mut end = dst.len();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        dst[end - 2..end].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        end -= 2;
    }
    if n >= 10 {
        let pair = n as usize * 2;
        dst[end - 2..end].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        dst[end - 1] = b'0' + n as u8;
    }
    if v < 0 {
        dst[0] = b'-';
    }
}

/// The columnar text encoder's view of `v`, if its type is one it handles.
fn text_column(v: &Vector, ty: DataType) -> Option<TextColumn<'_>> {
    match (&v.data, ty) {
        (Data::I16(x), _) => Some(TextColumn::I16(x)),
        (Data::I32(x), DataType::Int4) => Some(TextColumn::I32(x)),
        (Data::I64(x), DataType::Int8) => Some(TextColumn::I64(x)),
        (Data::Text(_), t) if t.is_raw_bytes() => None,
        (Data::Text(t), _) => Some(TextColumn::Text(t)),
        (Data::I32(x), DataType::Date) => Some(TextColumn::Date(x)),
        _ => None,
    }
}

/// The text of a date: `YYYY-MM-DD` for years 1000 to 9999, else as `write_date` spells
/// it (fewer or more year digits, BC, infinities).
fn date_text_len(days: i32) -> usize {
    if datetime::date_is_four_digit_year(days) {
        10
    } else {
        let mut tmp = Vec::with_capacity(16);
        datetime::write_date(&mut tmp, days);
        tmp.len()
    }
}

/// Text lengths of rows `rows` of one column (NULLs get 0), one specialized loop per
/// column kind.
fn text_lengths(col: &TextColumn, rows: &[u32], out: &mut [u32]) {
    match col {
        TextColumn::I16(x) => {
            for (o, &r) in out.iter_mut().zip(rows) {
                *o = int_text_len(x[r as usize] as i64) as u32;
            }
        }
        TextColumn::I32(x) => {
            for (o, &r) in out.iter_mut().zip(rows) {
                *o = int_text_len(x[r as usize] as i64) as u32;
            }
        }
        TextColumn::I64(x) => {
            for (o, &r) in out.iter_mut().zip(rows) {
                *o = int_text_len(x[r as usize]) as u32;
            }
        }
        TextColumn::Text(t) => {
            for (o, &r) in out.iter_mut().zip(rows) {
                let r = r as usize;
                *o = (t.offsets[r + 1] - t.offsets[r]) as u32;
            }
        }
        TextColumn::Date(x) => {
            for (o, &r) in out.iter_mut().zip(rows) {
                *o = date_text_len(x[r as usize]) as u32;
            }
        }
    }
}

/// DataRows for rows `rows` when every column is an integer or a string in text format:
/// column at a time. A first pass measures every cell, the buffer grows once, then each
/// column writes its cells at every row's cursor — no per-cell type dispatch, no
/// capacity checks, no length patching.
fn data_rows_columnar(out: &mut OutBuf, columns: &[(TextColumn, Option<&[bool]>)], rows: &[u32]) {
    let m = rows.len();
    let header = 1 + 4 + 2 + 4 * columns.len();
    // Cell lengths, column after column; -1 marks NULL.
    let mut lens: Vec<u32> = vec![0; m * columns.len()];
    let mut sizes: Vec<usize> = vec![header; m];
    for ((col, nulls), lens) in columns.iter().zip(lens.chunks_mut(m.max(1))) {
        text_lengths(col, rows, lens);
        if let Some(n) = nulls {
            for (l, &r) in lens.iter_mut().zip(rows) {
                if n[r as usize] {
                    *l = u32::MAX;
                }
            }
        }
        for (size, &l) in sizes.iter_mut().zip(lens.iter()) {
            *size += if l == u32::MAX { 0 } else { l as usize };
        }
    }
    let base = out.buf.len();
    let total: usize = sizes.iter().sum();
    // SPILL bytes of slack at the end: a short string is copied as one 8-byte word.
    out.buf.resize(base + total + SPILL, 0);
    let buf = &mut out.buf[base..];
    let mut cursors: Vec<usize> = Vec::with_capacity(m);
    let mut pos = 0;
    for &size in &sizes {
        cursors.push(pos + 7);
        pos += size;
    }
    // Columns are written in order and row headers last: a cell's copy may run up to
    // SPILL - 1 bytes past its end, into a later column of its row or the next row's
    // 7-byte header, both written afterwards.
    for ((col, _), lens) in columns.iter().zip(lens.chunks(m.max(1))) {
        macro_rules! cells {
            (|$at:ident, $len:ident, $r:ident| $write:expr) => {
                for ((cursor, &r), &l) in cursors.iter_mut().zip(rows).zip(lens) {
                    let p = *cursor;
                    if l == u32::MAX {
                        buf[p..p + 4].copy_from_slice(&(-1i32).to_be_bytes());
                        *cursor = p + 4;
                        continue;
                    }
                    let $len = l as usize;
                    buf[p..p + 4].copy_from_slice(&(l as i32).to_be_bytes());
                    let $at = p + 4;
                    let $r = r as usize;
                    $write;
                    *cursor = p + 4 + $len;
                }
            };
        }
        match col {
            TextColumn::I16(x) => {
                cells!(|at, len, r| write_int_into(&mut buf[at..at + len], x[r] as i64))
            }
            TextColumn::I32(x) => {
                cells!(|at, len, r| write_int_into(&mut buf[at..at + len], x[r] as i64))
            }
            TextColumn::I64(x) => {
                cells!(|at, len, r| write_int_into(&mut buf[at..at + len], x[r]))
            }
            TextColumn::Date(x) => cells!(|at, len, r| {
                let d = x[r];
                if len == 10 && datetime::date_is_four_digit_year(d) {
                    datetime::write_iso_date_into(&mut buf[at..at + 10], d);
                } else {
                    let mut tmp = Vec::with_capacity(16);
                    datetime::write_date(&mut tmp, d);
                    buf[at..at + len].copy_from_slice(&tmp);
                }
            }),
            TextColumn::Text(t) => cells!(|at, len, r| {
                let start = t.offsets[r];
                if len > 0 && len < SPILL && start + SPILL <= t.data.len() {
                    buf[at..at + SPILL].copy_from_slice(&t.data[start..start + SPILL]);
                } else {
                    buf[at..at + len].copy_from_slice(&t.data[start..start + len]);
                }
            }),
        }
    }
    let ncols = (columns.len() as i16).to_be_bytes();
    let mut pos = 0;
    for &size in &sizes {
        buf[pos] = b'D';
        buf[pos + 1..pos + 5].copy_from_slice(&((size - 1) as u32).to_be_bytes());
        buf[pos + 5..pos + 7].copy_from_slice(&ncols);
        pos += size;
    }
    out.buf.truncate(base + total);
}

/// Appends one DataRow per live row of `batch`, starting at live row `from`, at most
/// `limit` rows. Returns how many rows were written.
pub fn data_rows(
    out: &mut OutBuf,
    batch: &Batch,
    types: &[SqlType],
    formats: &[i16],
    fmt: &TextFormat,
    from: usize,
    limit: usize,
) -> usize {
    let ncols = batch.columns.len().min(types.len());
    let binary: Vec<bool> = (0..ncols).map(|c| format_of(formats, c) == 1).collect();
    let live = batch.live_rows();
    let end = live.min(from.saturating_add(limit));
    if from >= end {
        return 0;
    }
    let columnar: Option<Vec<_>> = (0..ncols)
        .map(|c| {
            let v = &batch.columns[c];
            if binary[c] || crate::types::vector_oid(types[c]).is_some() {
                return None;
            }
            text_column(v, types[c].ty).map(|col| (col, v.nulls.as_deref()))
        })
        .collect();
    if let Some(columns) = columnar {
        let rows: Vec<u32> = match &batch.sel {
            Some(s) => s[from..end].to_vec(),
            None => (from as u32..end as u32).collect(),
        };
        data_rows_columnar(out, &columns, &rows);
        return end - from;
    }
    data_rows_rowwise(out, batch, types, &binary, fmt, from, end);
    end - from
}

/// DataRows one row at a time: every type, text or binary.
fn data_rows_rowwise(
    out: &mut OutBuf,
    batch: &Batch,
    types: &[SqlType],
    binary: &[bool],
    fmt: &TextFormat,
    from: usize,
    end: usize,
) {
    let ncols = binary.len();
    out.buf.reserve((end - from) * (7 + ncols * 12));
    for k in from..end {
        let row = match &batch.sel {
            Some(s) => s[k] as usize,
            None => k,
        };
        let at = out.begin(b'D');
        out.i16(ncols as i16);
        for c in 0..ncols {
            let v = &batch.columns[c];
            if v.is_null(row) {
                out.i32(-1);
                continue;
            }
            if binary[c] {
                let len_at = out.buf.len();
                out.buf.extend_from_slice(&[0, 0, 0, 0]);
                binary_value(&mut out.buf, v, row, types[c].ty);
                let len = (out.buf.len() - len_at - 4) as i32;
                out.buf[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
            } else if crate::types::vector_oid(types[c]).is_some() {
                vector_cell(&mut out.buf, v, row);
            } else {
                text_cell(&mut out.buf, v, row, types[c].ty, fmt);
            }
        }
        out.end(at);
    }
}

/// PostgreSQL's numeric_send.
pub fn numeric_send(buf: &mut Vec<u8>, n: &Numeric) {
    let scale = n.scale() as usize;
    if n.is_zero() {
        buf.extend_from_slice(&0i16.to_be_bytes());
        buf.extend_from_slice(&0i16.to_be_bytes());
        buf.extend_from_slice(&0u16.to_be_bytes());
        buf.extend_from_slice(&(scale as i16).to_be_bytes());
        return;
    }
    let mut dec = Vec::new();
    n.digit_values(&mut dec);
    // Make the integer part and the fraction multiples of four decimal digits.
    if dec.len() < scale + 1 {
        let mut padded = vec![0; scale + 1 - dec.len()];
        padded.extend_from_slice(&dec);
        dec = padded;
    }
    let int_len = dec.len() - scale;
    let frac_pad = (4 - scale % 4) % 4;
    dec.extend(std::iter::repeat_n(0, frac_pad));
    let int_pad = (4 - int_len % 4) % 4;
    let mut all = vec![0u8; int_pad];
    all.extend_from_slice(&dec);
    let int_groups = (int_len + int_pad) / 4;
    let groups: Vec<i16> = all
        .chunks(4)
        .map(|c| c.iter().fold(0i16, |a, &d| a * 10 + d as i16))
        .collect();
    // Leading and trailing zero groups are not sent.
    let first = groups.iter().position(|&g| g != 0).unwrap_or(0);
    let last = groups.iter().rposition(|&g| g != 0).map_or(0, |p| p + 1);
    let groups = &groups[first..last.max(first)];
    let weight = int_groups as i32 - 1 - first as i32;
    buf.extend_from_slice(&(groups.len() as i16).to_be_bytes());
    buf.extend_from_slice(&(weight as i16).to_be_bytes());
    let sign: u16 = if n.signum() < 0 { 0x4000 } else { 0 };
    buf.extend_from_slice(&sign.to_be_bytes());
    buf.extend_from_slice(&(scale as i16).to_be_bytes());
    for g in groups {
        buf.extend_from_slice(&g.to_be_bytes());
    }
}

fn bad_binary(index: usize) -> Error {
    Error::new(
        "22P03",
        format!(
            "incorrect binary data format in bind parameter {}",
            index + 1
        ),
    )
}

/// PostgreSQL's numeric_recv.
fn numeric_recv(b: &[u8], index: usize) -> Result<Numeric> {
    if b.len() < 8 {
        return Err(bad_binary(index));
    }
    let ndigits = i16::from_be_bytes([b[0], b[1]]);
    let weight = i16::from_be_bytes([b[2], b[3]]) as i32;
    let sign = u16::from_be_bytes([b[4], b[5]]);
    let dscale = i16::from_be_bytes([b[6], b[7]]);
    if ndigits < 0
        || dscale < 0
        || dscale as u16 > crate::types::numeric::DSCALE_MAX
        || b.len() != 8 + ndigits as usize * 2
    {
        return Err(bad_binary(index));
    }
    if sign == 0xC000 || sign == 0xD000 || sign == 0xF000 {
        return Err(Error::feature_not_supported(
            "NaN and Infinity for type numeric",
        ));
    }
    if sign != 0 && sign != 0x4000 {
        return Err(bad_binary(index));
    }
    // The digits as decimal text, then PostgreSQL's trunc_var to the given dscale.
    let mut digits = Vec::with_capacity(ndigits as usize * 4);
    for k in 0..ndigits as usize {
        let d = i16::from_be_bytes([b[8 + 2 * k], b[9 + 2 * k]]);
        if !(0..10000).contains(&d) {
            return Err(bad_binary(index));
        }
        digits.extend_from_slice(&[
            b'0' + (d / 1000) as u8,
            b'0' + (d / 100 % 10) as u8,
            b'0' + (d / 10 % 10) as u8,
            b'0' + (d % 10) as u8,
        ]);
    }
    let digits_scale = 4 * (ndigits as i64 - 1 - weight as i64);
    let value = Numeric::from_ascii_digits(sign == 0x4000, &digits, digits_scale)?;
    value.trunc(dscale as i32)
}

/// Decodes a Bind parameter.
pub fn decode_param(
    raw: Option<&[u8]>,
    ty: SqlType,
    binary: bool,
    index: usize,
    fmt: &TextFormat,
) -> Result<Value> {
    let Some(b) = raw else { return Ok(Value::Null) };
    if !binary {
        let s = std::str::from_utf8(b).map_err(|_| Error::invalid_utf8())?;
        let v = text::parse_value(s, ty.ty, fmt)?;
        return crate::types::cast::cast_value(v, ty, false, fmt);
    }
    let fixed = |n: usize| -> Result<&[u8]> {
        if b.len() == n {
            Ok(b)
        } else {
            Err(bad_binary(index))
        }
    };
    Ok(match ty.ty {
        DataType::Bool => Value::Bool(fixed(1)?[0] != 0),
        DataType::Int2 => Value::Int2(i16::from_be_bytes(
            fixed(2)?.try_into().map_err(|_| bad_binary(index))?,
        )),
        DataType::Int4 => Value::Int4(i32::from_be_bytes(
            fixed(4)?.try_into().map_err(|_| bad_binary(index))?,
        )),
        DataType::Int8 => Value::Int8(i64::from_be_bytes(
            fixed(8)?.try_into().map_err(|_| bad_binary(index))?,
        )),
        DataType::Float4 => Value::Float4(f32::from_bits(u32::from_be_bytes(
            fixed(4)?.try_into().map_err(|_| bad_binary(index))?,
        ))),
        DataType::Float8 => Value::Float8(f64::from_bits(u64::from_be_bytes(
            fixed(8)?.try_into().map_err(|_| bad_binary(index))?,
        ))),
        DataType::Numeric => Value::Numeric(numeric_recv(b, index)?),
        DataType::Oid
        | DataType::RegClass
        | DataType::RegType
        | DataType::RegProc
        | DataType::RegProcedure
        | DataType::RegNamespace
        | DataType::RegRole
        | DataType::RegConfig
        | DataType::RegDictionary => Value::Int8(u32::from_be_bytes(
            fixed(4)?.try_into().map_err(|_| bad_binary(index))?,
        ) as i64),
        DataType::Text
        | DataType::Varchar
        | DataType::Bpchar
        | DataType::Unknown
        | DataType::Name
        | DataType::Enum(_)
        | DataType::Char
        | DataType::Json => {
            let s = std::str::from_utf8(b).map_err(|_| Error::invalid_utf8())?;
            crate::types::cast::cast_value(Value::Text(s.to_string()), ty, false, fmt)?
        }
        DataType::Date => Value::Date(i32::from_be_bytes(
            fixed(4)?.try_into().map_err(|_| bad_binary(index))?,
        )),
        DataType::Timestamp => Value::Timestamp(i64::from_be_bytes(
            fixed(8)?.try_into().map_err(|_| bad_binary(index))?,
        )),
        DataType::Timestamptz => Value::Timestamptz(i64::from_be_bytes(
            fixed(8)?.try_into().map_err(|_| bad_binary(index))?,
        )),
        DataType::Array(_) => array_recv(b, ty, index, fmt)?,
        DataType::Uuid => Value::Uuid(fixed(16)?.try_into().map_err(|_| bad_binary(index))?),
        DataType::Time | DataType::TimeTz => {
            let b = fixed(if ty.ty == DataType::Time { 8 } else { 12 })?;
            let time = i64::from_be_bytes(b[0..8].try_into().map_err(|_| bad_binary(index))?);
            if !(0..=crate::types::datetime::USECS_PER_DAY).contains(&time) {
                return Err(Error::new("22008", "time out of range"));
            }
            if ty.ty == DataType::Time {
                Value::Time(time)
            } else {
                let west = i32::from_be_bytes(b[8..12].try_into().map_err(|_| bad_binary(index))?);
                if west <= -57600 || west >= 57600 {
                    return Err(Error::new("22009", "time zone displacement out of range"));
                }
                Value::TimeTz(crate::types::datetime::pack_timetz(time, west))
            }
        }
        DataType::Bytea => Value::Bytes(b.to_vec()),
        DataType::Inet | DataType::Cidr => Value::Raw(
            ty.ty,
            crate::types::net::recv(b, ty.ty == DataType::Cidr)?.encode(),
        ),
        DataType::MacAddr => Value::Raw(ty.ty, fixed(6)?.to_vec()),
        DataType::Range(k) => {
            let r = crate::types::range::recv(k, b, |data| {
                decode_param(Some(data), SqlType::new(k.subtype()), true, index, fmt)
            })?;
            Value::Raw(ty.ty, crate::types::range::encode(&r))
        }
        DataType::MacAddr8 => Value::Raw(ty.ty, fixed(8)?.to_vec()),
        DataType::TsVector | DataType::TsQuery => crate::types::tsearch::recv(ty.ty, b)?,
        DataType::Jsonb => {
            if b.first() != Some(&1) {
                return Err(Error::new("22P03", "unsupported jsonb version number"));
            }
            let s = std::str::from_utf8(&b[1..]).map_err(|_| Error::invalid_utf8())?;
            Value::Jsonb(crate::types::jsonb::parse(s)?)
        }
        DataType::JsonPath => {
            if b.first() != Some(&1) {
                return Err(Error::new("22P03", "unsupported jsonpath version number"));
            }
            let s = std::str::from_utf8(&b[1..]).map_err(|_| Error::invalid_utf8())?;
            Value::Text(crate::types::jsonpath::normalize(s)?)
        }
        DataType::Record => {
            return Err(Error::feature_not_supported(
                "binary input of anonymous records",
            ));
        }
        DataType::Interval => {
            let b = fixed(16)?;
            let micros = i64::from_be_bytes(b[0..8].try_into().map_err(|_| bad_binary(index))?);
            let days = i32::from_be_bytes(b[8..12].try_into().map_err(|_| bad_binary(index))?);
            let months = i32::from_be_bytes(b[12..16].try_into().map_err(|_| bad_binary(index))?);
            Value::Interval(Interval {
                months,
                days,
                micros,
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(s: &str) -> Result<String> {
        let n = Numeric::parse(s)?;
        let mut buf = Vec::new();
        numeric_send(&mut buf, &n);
        Ok(numeric_recv(&buf, 0)?.to_text())
    }

    #[test]
    fn integer_and_text_cells_carry_their_length() {
        for v in [
            0i64,
            7,
            -7,
            10,
            99,
            100,
            12345,
            -2147483648,
            i64::MIN,
            i64::MAX,
        ] {
            let mut out = Vec::new();
            int_cell(&mut out, v);
            let text = v.to_string();
            assert_eq!(&out[..4], &(text.len() as i32).to_be_bytes());
            assert_eq!(&out[4..], text.as_bytes());
        }
        for s in [
            "",
            "a",
            "North",
            &"x".repeat(28),
            &"y".repeat(29),
            &"z".repeat(300),
        ] {
            let mut out = vec![9u8];
            text_bytes_cell(&mut out, s.as_bytes());
            assert_eq!(out[0], 9);
            assert_eq!(&out[1..5], &(s.len() as i32).to_be_bytes());
            assert_eq!(&out[5..], s.as_bytes());
        }
    }

    #[test]
    fn columnar_encoder_matches_the_row_encoder() {
        let mut text = TextVec::with_capacity(6);
        for t in ["", "a", "héllo", "", "x\ty", "long string of some length"] {
            text.push(t.as_bytes());
        }
        let batch = Batch {
            columns: vec![
                Vector {
                    data: Data::I32(vec![0, -1, i32::MIN, i32::MAX, 9, 10]),
                    nulls: Some(vec![false, false, true, false, false, false]),
                },
                Vector::from_data(Data::I64(vec![i64::MIN, i64::MAX, -10, 99, 100, 0])),
                Vector::from_data(Data::I16(vec![i16::MIN, -9, 0, 1, 999, i16::MAX])),
                Vector {
                    data: Data::Text(text),
                    nulls: Some(vec![false, true, false, false, false, false]),
                },
            ],
            rows: 6,
            sel: Some(vec![0, 1, 2, 3, 5]),
        };
        let int4 = SqlType::new(DataType::Int4);
        let types = [
            int4,
            SqlType::new(DataType::Int8),
            SqlType::new(DataType::Int2),
            SqlType::new(DataType::Text),
        ];
        let fmt = TextFormat::default();
        for from in 0..3 {
            let mut columnar = OutBuf::default();
            let n = data_rows(&mut columnar, &batch, &types, &[], &fmt, from, 10);
            assert_eq!(n, 5 - from);
            let mut rowwise = OutBuf::default();
            data_rows_rowwise(&mut rowwise, &batch, &types, &[false; 4], &fmt, from, 5);
            assert_eq!(columnar.buf, rowwise.buf);
        }
        // The first row, by hand: D, length, 4 cells.
        let mut out = OutBuf::default();
        data_rows(&mut out, &batch, &types, &[], &fmt, 0, 1);
        let mut want = vec![b'D', 0, 0, 0, 49, 0, 4];
        want.extend_from_slice(&[0, 0, 0, 1, b'0']);
        want.extend_from_slice(&[0, 0, 0, 20]);
        want.extend_from_slice(b"-9223372036854775808");
        want.extend_from_slice(&[0, 0, 0, 6]);
        want.extend_from_slice(b"-32768");
        want.extend_from_slice(&[0, 0, 0, 0]);
        assert_eq!(out.buf, want);
    }

    #[test]
    fn numeric_binary_round_trips() -> Result<()> {
        for s in [
            "0",
            "1",
            "-1",
            "10000",
            "12345.678",
            "0.0001",
            "-0.5",
            "99999999.99",
            "123456789012345678901234",
            // Past 38 digits: the BigInt representation.
            "-123456789012345678901234567890123456789012345.6789",
            "0.000000000000000000000000000000000000000000000000001",
        ] {
            assert_eq!(round_trip(s)?, s);
        }
        // 12345.678 is digits [1, 2345, 6780], weight 1, dscale 3.
        let mut buf = Vec::new();
        numeric_send(&mut buf, &Numeric::parse("12345.678")?);
        assert_eq!(buf, [0, 3, 0, 1, 0, 0, 0, 3, 0, 1, 0x09, 0x29, 0x1a, 0x7c]);
        // 1e100: one digit group, weight 25; a huge value survives both ways.
        buf.clear();
        numeric_send(&mut buf, &Numeric::parse("1e100")?);
        assert_eq!(buf, [0, 1, 0, 25, 0, 0, 0, 0, 0, 1]);
        let big = format!("{}.5", "9".repeat(5000));
        assert_eq!(round_trip(&big)?, big);
        // A dscale that hides digits truncates them, as PostgreSQL's numeric_recv does.
        let hidden = [0, 2, 0, 0, 0, 0, 0, 1, 0, 1, 0x17, 0x70]; // digits [1, 6000], dscale 1
        assert_eq!(numeric_recv(&hidden, 0)?.to_text(), "1.6");
        Ok(())
    }
}
