//! Array kernels: `ARRAY[…]`, subscripts and slices, `op ANY/ALL (array)`, the array
//! operators and functions (`array_length`, `array_to_string`, `array_cat`, `@>` …).
//!
//! Arrays are stored as one byte string per row (`types::array`); the kernels walk those
//! strings element by element. Rows are independent, so each kernel is a loop over the
//! rows that reads its arguments' vectors and appends to one output vector. A constant
//! array on the right of `ANY`/`ALL` (the common `id = ANY($1)`) is decoded once.

use std::cmp::Ordering;

use super::context::ExecContext;
use super::vector::{Data, Vector};
use crate::error::{Error, Result};
use crate::sql::expr::{BinaryOp, Expr, Func};
use crate::types::array::{self, Builder, Dim, View};
use crate::types::text;
use crate::types::{DataType, SqlType, Value};

/// Appends row `i` of `v` as an array element (tag and payload, as `array::Builder`).
fn push_element(out: &mut Vec<u8>, v: &Vector, i: usize) {
    if v.is_null(i) {
        out.push(0);
        return;
    }
    out.push(1);
    let str_payload = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b);
    };
    match &v.data {
        Data::Bool(x) => out.push(x[i] as u8),
        Data::I16(x) => out.extend_from_slice(&x[i].to_le_bytes()),
        Data::I32(x) => out.extend_from_slice(&x[i].to_le_bytes()),
        Data::I64(x) => out.extend_from_slice(&x[i].to_le_bytes()),
        Data::F32(x) => out.extend_from_slice(&x[i].to_bits().to_le_bytes()),
        Data::F64(x) => out.extend_from_slice(&x[i].to_bits().to_le_bytes()),
        Data::Num(x) => str_payload(out, x[i].to_text().as_bytes()),
        Data::Text(t) => str_payload(out, t.get(i)),
        Data::Interval(x) => {
            out.extend_from_slice(&x[i].months.to_le_bytes());
            out.extend_from_slice(&x[i].days.to_le_bytes());
            out.extend_from_slice(&x[i].micros.to_le_bytes());
        }
        Data::Array(a) => str_payload(out, a.blobs.get(i)),
        Data::Record(t) | Data::Jsonb(t) => str_payload(out, t.get(i)),
    }
}

/// The stored array of row `i` (an empty slice for NULL; callers check nulls).
fn blob(v: &Vector, i: usize) -> &[u8] {
    match &v.data {
        Data::Array(a) => a.blobs.get(i),
        _ => &[],
    }
}

fn elem_of(e: &Expr) -> DataType {
    e.ty().ty.elem().unwrap_or(DataType::Unknown)
}

/// Evaluates an array function over evaluated arguments `vs` (`n` rows).
pub fn eval(
    func: Func,
    args: &[Expr],
    vs: &[Vector],
    n: usize,
    ty: SqlType,
    ctx: &ExecContext,
) -> Result<Vector> {
    let mut out = Vector::with_capacity(ty.ty, n);
    let mut buf = Vec::new();
    let null_at = |k: usize, i: usize| vs.get(k).is_none_or(|v| v.is_null(i));
    match func {
        Func::ArrayBuild => {
            let elem = ty.ty.elem().unwrap_or(DataType::Unknown);
            let nested = args.first().is_some_and(|a| a.ty().ty.is_array());
            for i in 0..n {
                buf.clear();
                if nested {
                    build_nested(&mut buf, vs, i, elem)?;
                } else {
                    Builder::one_dim(&mut buf, vs.len());
                    for v in vs {
                        push_element(&mut buf, v, i);
                    }
                }
                out.push_blob(&buf);
            }
        }
        Func::ArrayAny(op) | Func::ArrayAll(op) => {
            let all = matches!(func, Func::ArrayAll(_));
            let elem = elem_of(&args[1]);
            let left_ty = args[0].ty().ty;
            // A constant array is decoded once.
            let constant = match &args[1] {
                Expr::Literal {
                    value: Value::Array(a),
                    ..
                } => Some(View::new(&a.bytes, a.elem).values()),
                _ => None,
            };
            let array_null = matches!(
                &args[1],
                Expr::Literal {
                    value: Value::Null,
                    ..
                }
            );
            let Data::Bool(_) = &out.data else {
                return Err(Error::internal("ANY/ALL result"));
            };
            for i in 0..n {
                if array_null || (constant.is_none() && null_at(1, i)) {
                    out.push_null();
                    continue;
                }
                let decoded;
                let elems: &[Value] = match &constant {
                    Some(c) => c,
                    None => {
                        decoded = View::new(blob(&vs[1], i), elem).values();
                        &decoded
                    }
                };
                let left = vs[0].value(i, left_ty);
                out.push_value(&match quantified(&left, elems, op, all) {
                    Some(b) => Value::Bool(b),
                    None => Value::Null,
                });
            }
        }
        Func::ArraySubscript => {
            let elem = elem_of(&args[0]);
            let mut subscripts = Vec::with_capacity(vs.len());
            for i in 0..n {
                if (0..vs.len()).any(|k| null_at(k, i)) {
                    out.push_null();
                    continue;
                }
                subscripts.clear();
                for (k, v) in vs.iter().enumerate().skip(1) {
                    subscripts.push(v.value(i, args[k].ty().ty).as_i64().unwrap_or(0));
                }
                let view = View::new(blob(&vs[0], i), elem);
                match element_at(&view, &subscripts) {
                    Some(Some(p)) => out.push_value(&array::decode(p, elem)),
                    _ => out.push_null(),
                }
            }
        }
        Func::ArraySlice { lower, upper } => {
            let elem = elem_of(&args[0]);
            for i in 0..n {
                if (0..vs.len()).any(|k| null_at(k, i)) {
                    out.push_null();
                    continue;
                }
                let bound = |k: usize| vs[k].value(i, args[k].ty().ty).as_i64();
                let lo = if lower { bound(1) } else { None };
                let hi = if upper {
                    bound(1 + lower as usize)
                } else {
                    None
                };
                let view = View::new(blob(&vs[0], i), elem);
                buf.clear();
                slice(&view, lo, hi, &mut buf)?;
                out.push_blob(&buf);
            }
        }
        Func::ArrayLength | Func::ArrayLower | Func::ArrayUpper => {
            let elem = elem_of(&args[0]);
            for i in 0..n {
                if null_at(0, i) || null_at(1, i) {
                    out.push_null();
                    continue;
                }
                let view = View::new(blob(&vs[0], i), elem);
                let d = vs[1].value(i, args[1].ty().ty).as_i64().unwrap_or(0);
                if d < 1 || d as usize > view.ndims() {
                    out.push_null();
                    continue;
                }
                let dim = view.dim(d as usize - 1);
                out.push_value(&Value::Int4(match func {
                    Func::ArrayLength => dim.len,
                    Func::ArrayLower => dim.lbound,
                    _ => dim.lbound.saturating_add(dim.len - 1),
                }));
            }
        }
        Func::ArrayNdims | Func::ArrayDims | Func::Cardinality => {
            let elem = elem_of(&args[0]);
            for i in 0..n {
                if null_at(0, i) {
                    out.push_null();
                    continue;
                }
                let view = View::new(blob(&vs[0], i), elem);
                match func {
                    Func::Cardinality => out.push_value(&Value::Int4(view.len() as i32)),
                    _ if view.ndims() == 0 => out.push_null(),
                    Func::ArrayNdims => out.push_value(&Value::Int4(view.ndims() as i32)),
                    _ => {
                        let mut s = String::new();
                        for d in view.dims() {
                            let ub = d.lbound as i64 + d.len as i64 - 1;
                            s.push_str(&format!("[{}:{}]", d.lbound, ub));
                        }
                        out.push_value(&Value::Text(s));
                    }
                }
            }
        }
        Func::ArrayToString => {
            let elem = elem_of(&args[0]);
            for i in 0..n {
                if null_at(0, i) || null_at(1, i) {
                    out.push_null();
                    continue;
                }
                let delim = text_at(&vs[1], i);
                let null_text = if vs.len() > 2 && !null_at(2, i) {
                    Some(text_at(&vs[2], i))
                } else {
                    None
                };
                buf.clear();
                let mut first = true;
                for e in View::new(blob(&vs[0], i), elem).elements() {
                    let value = match (e, null_text) {
                        (Some(p), _) => Some(array::decode(p, elem)),
                        (None, Some(_)) => None,
                        (None, None) => continue,
                    };
                    if !first {
                        buf.extend_from_slice(delim);
                    }
                    first = false;
                    match value {
                        Some(v) => text::write_value(&mut buf, &v, &ctx.fmt),
                        None => buf.extend_from_slice(null_text.unwrap_or(b"")),
                    }
                }
                out.push_blob(&buf);
            }
        }
        Func::StringToArray => {
            for i in 0..n {
                if null_at(0, i) {
                    out.push_null();
                    continue;
                }
                let s = std::str::from_utf8(text_at(&vs[0], i)).unwrap_or("");
                let null_text = if vs.len() > 2 && !null_at(2, i) {
                    Some(std::str::from_utf8(text_at(&vs[2], i)).unwrap_or(""))
                } else {
                    None
                };
                let parts: Vec<&str> = if s.is_empty() {
                    Vec::new()
                } else if null_at(1, i) {
                    // A NULL delimiter splits into characters.
                    s.char_indices()
                        .map(|(at, c)| &s[at..at + c.len_utf8()])
                        .collect()
                } else {
                    let d = std::str::from_utf8(text_at(&vs[1], i)).unwrap_or("");
                    if d.is_empty() {
                        vec![s]
                    } else {
                        s.split(d).collect()
                    }
                };
                buf.clear();
                let mut b = Builder::one_dim(&mut buf, parts.len());
                for p in parts {
                    if null_text == Some(p) {
                        b.push_null();
                    } else {
                        b.push(&Value::Text(p.to_string()));
                    }
                }
                out.push_blob(&buf);
            }
        }
        Func::ArrayAppend | Func::ArrayPrepend => {
            let (a, x) = if func == Func::ArrayAppend {
                (0, 1)
            } else {
                (1, 0)
            };
            let elem = elem_of(&args[a]);
            for i in 0..n {
                let view = if null_at(a, i) {
                    View::new(&[], elem)
                } else {
                    View::new(blob(&vs[a], i), elem)
                };
                if view.ndims() > 1 {
                    return Err(Error::new(
                        "22000",
                        "argument must be empty or one-dimensional array",
                    ));
                }
                let lbound = if view.ndims() == 1 {
                    view.dim(0).lbound
                } else {
                    1
                };
                buf.clear();
                let dim = Dim {
                    len: view.len() as i32 + 1,
                    lbound,
                };
                array::check_bounds(&[dim])?;
                Builder::new(&mut buf, &[dim]);
                if func == Func::ArrayPrepend {
                    push_element(&mut buf, &vs[x], i);
                }
                for e in view.elements() {
                    array::push_payload(&mut buf, e);
                }
                if func == Func::ArrayAppend {
                    push_element(&mut buf, &vs[x], i);
                }
                out.push_blob(&buf);
            }
        }
        Func::ArrayCat => {
            let elem = ty.ty.elem().unwrap_or(DataType::Unknown);
            for i in 0..n {
                match (null_at(0, i), null_at(1, i)) {
                    (true, true) => {
                        out.push_null();
                        continue;
                    }
                    (true, false) => {
                        out.push_from(&vs[1], i);
                        continue;
                    }
                    (false, true) => {
                        out.push_from(&vs[0], i);
                        continue;
                    }
                    _ => {}
                }
                let x = View::new(blob(&vs[0], i), elem);
                let y = View::new(blob(&vs[1], i), elem);
                buf.clear();
                concatenate(&x, &y, &mut buf)?;
                out.push_blob(&buf);
            }
        }
        Func::ArrayPosition | Func::ArrayRemove => {
            let elem = elem_of(&args[0]);
            for i in 0..n {
                if null_at(0, i) {
                    out.push_null();
                    continue;
                }
                let view = View::new(blob(&vs[0], i), elem);
                if view.ndims() > 1 {
                    return Err(Error::feature_not_supported(
                        if func == Func::ArrayPosition {
                            "searching for elements in multidimensional arrays is not supported"
                        } else {
                            "removing elements from multidimensional arrays is not supported"
                        },
                    ));
                }
                let target = vs[1].value(i, args[1].ty().ty);
                let same = |e: Option<&[u8]>| match (e, &target) {
                    (None, Value::Null) => true,
                    (None, _) | (Some(_), Value::Null) => false,
                    (Some(p), t) => array::compare_values(&array::decode(p, elem), t).is_eq(),
                };
                let lbound = if view.ndims() == 1 {
                    view.dim(0).lbound
                } else {
                    1
                };
                if func == Func::ArrayPosition {
                    // array_position(a, x, start): from subscript `start` on.
                    let skip = if vs.len() > 2 {
                        if null_at(2, i) {
                            return Err(Error::new("22004", "initial position must not be null"));
                        }
                        let start = vs[2].value(i, DataType::Int4).as_i64().unwrap_or(1);
                        (start - lbound as i64).max(0) as usize
                    } else {
                        0
                    };
                    match view.elements().skip(skip).position(same) {
                        Some(k) => out.push_value(&Value::Int4(lbound + (skip + k) as i32)),
                        None => out.push_null(),
                    }
                } else {
                    let kept: Vec<Option<&[u8]>> = view.elements().filter(|e| !same(*e)).collect();
                    if kept.len() == view.len() {
                        out.push_from(&vs[0], i);
                        continue;
                    }
                    // The result keeps the array's lower bound.
                    buf.clear();
                    let dims: Vec<Dim> = if kept.is_empty() {
                        Vec::new()
                    } else {
                        vec![Dim {
                            len: kept.len() as i32,
                            lbound,
                        }]
                    };
                    let mut b = Builder::new(&mut buf, &dims);
                    for e in kept {
                        b.push_payload(e);
                    }
                    out.push_blob(&buf);
                }
            }
        }
        Func::ArrayContains | Func::ArrayContained | Func::ArrayOverlap => {
            let elem = elem_of(&args[0]);
            for i in 0..n {
                if null_at(0, i) || null_at(1, i) {
                    out.push_null();
                    continue;
                }
                let (a, b) = if func == Func::ArrayContained {
                    (1, 0)
                } else {
                    (0, 1)
                };
                let x: Vec<Value> = View::new(blob(&vs[a], i), elem)
                    .elements()
                    .flatten()
                    .map(|p| array::decode(p, elem))
                    .collect();
                let y = View::new(blob(&vs[b], i), elem);
                let mut found = y.elements().map(|e| match e {
                    None => false,
                    Some(p) => {
                        let v = array::decode(p, elem);
                        x.iter().any(|w| array::compare_values(w, &v).is_eq())
                    }
                });
                let r = if func == Func::ArrayOverlap {
                    found.any(|f| f)
                } else {
                    found.all(|f| f)
                };
                out.push_value(&Value::Bool(r));
            }
        }
        Func::RowBuild => {
            let types: Vec<DataType> = args.iter().map(|a| a.ty().ty).collect();
            for i in 0..n {
                buf.clear();
                crate::types::record::begin(&mut buf, vs.len());
                for (v, &t) in vs.iter().zip(&types) {
                    crate::types::record::push_field_type(&mut buf, t);
                    push_element(&mut buf, v, i);
                }
                out.push_blob(&buf);
            }
        }
        Func::RecordField(k) => {
            for i in 0..n {
                match &vs[0].data {
                    Data::Record(t) if !vs[0].is_null(i) => {
                        out.push_value(&crate::types::record::field(t.get(i), k as usize));
                    }
                    _ => out.push_null(),
                }
            }
        }
        _ => return Err(Error::internal("not an array function")),
    }
    Ok(out)
}

fn integer_out_of_range() -> Error {
    Error::numeric_out_of_range("integer out of range")
}

fn text_at(v: &Vector, i: usize) -> &[u8] {
    match &v.data {
        Data::Text(t) => t.get(i),
        _ => b"",
    }
}

/// `x op ANY/ALL (elements)` with SQL's three-valued logic: None is NULL.
fn quantified(left: &Value, elems: &[Value], op: BinaryOp, all: bool) -> Option<bool> {
    if elems.is_empty() {
        return Some(all);
    }
    let mut unknown = false;
    for e in elems {
        if left.is_null() || e.is_null() {
            unknown = true;
            continue;
        }
        let o = array::compare_values(left, e);
        let holds = match op {
            BinaryOp::Eq => o == Ordering::Equal,
            BinaryOp::NotEq => o != Ordering::Equal,
            BinaryOp::Lt => o == Ordering::Less,
            BinaryOp::LtEq => o != Ordering::Greater,
            BinaryOp::Gt => o == Ordering::Greater,
            _ => o != Ordering::Less,
        };
        if holds != all {
            return Some(!all);
        }
    }
    if unknown { None } else { Some(all) }
}

/// The element at `subscripts` (one per dimension): None out of range, Some(None) NULL.
fn element_at<'a>(view: &View<'a>, subscripts: &[i64]) -> Option<Option<&'a [u8]>> {
    if subscripts.len() != view.ndims() || view.ndims() == 0 {
        return None;
    }
    let mut offset = 0usize;
    for (d, &s) in subscripts.iter().enumerate() {
        let dim = view.dim(d);
        let k = s - dim.lbound as i64;
        if k < 0 || k >= dim.len as i64 {
            return None;
        }
        offset = offset * dim.len as usize + k as usize;
    }
    view.elements().nth(offset)
}

/// `a[lo:hi]` of a one-dimensional array (the result starts at 1, as PostgreSQL's).
fn slice(view: &View, lo: Option<i64>, hi: Option<i64>, out: &mut Vec<u8>) -> Result<()> {
    match view.ndims() {
        0 => {
            Builder::new(out, &[]);
            return Ok(());
        }
        1 => {}
        _ => {
            return Err(Error::feature_not_supported(
                "slices of multidimensional arrays",
            ));
        }
    }
    let dim = view.dim(0);
    let first = dim.lbound as i64;
    let last = first + dim.len as i64 - 1;
    let lo = lo.unwrap_or(first).max(first);
    let hi = hi.unwrap_or(last).min(last);
    if lo > hi {
        Builder::new(out, &[]);
        return Ok(());
    }
    let mut b = Builder::one_dim(out, (hi - lo + 1) as usize);
    for e in view
        .elements()
        .skip((lo - first) as usize)
        .take((hi - lo + 1) as usize)
    {
        b.push_payload(e);
    }
    Ok(())
}

/// `a || b` for two arrays of one element type (PostgreSQL's array_cat).
fn concatenate(x: &View, y: &View, out: &mut Vec<u8>) -> Result<()> {
    if x.ndims() == 0 {
        copy(y, out);
        return Ok(());
    }
    if y.ndims() == 0 {
        copy(x, out);
        return Ok(());
    }
    let (dx, dy) = (x.dims(), y.dims());
    let mismatch = || {
        Error::new("2202E", "cannot concatenate incompatible arrays").with_detail(
            "Arrays with differing element dimensions are not compatible for concatenation.",
        )
    };
    let dims = if dx.len() == dy.len() {
        if dx[1..].iter().zip(&dy[1..]).any(|(a, b)| a.len != b.len) {
            return Err(mismatch());
        }
        let mut d = dx.clone();
        d[0].len = d[0]
            .len
            .checked_add(dy[0].len)
            .ok_or_else(integer_out_of_range)?;
        d
    } else if dx.len() == dy.len() + 1 {
        // Appending one sub-array.
        if dx[1..].iter().zip(&dy).any(|(a, b)| a.len != b.len) {
            return Err(mismatch());
        }
        let mut d = dx.clone();
        d[0].len += 1;
        d
    } else if dy.len() == dx.len() + 1 {
        if dy[1..].iter().zip(&dx).any(|(a, b)| a.len != b.len) {
            return Err(mismatch());
        }
        let mut d = dy.clone();
        d[0].len += 1;
        d
    } else {
        return Err(
            Error::new("2202E", "cannot concatenate incompatible arrays").with_detail(format!(
                "Arrays of {} and {} dimensions are not compatible for concatenation.",
                dx.len(),
                dy.len()
            )),
        );
    };
    array::check_bounds(&dims)?;
    let mut b = Builder::new(out, &dims);
    for e in x.elements().chain(y.elements()) {
        b.push_payload(e);
    }
    Ok(())
}

fn copy(v: &View, out: &mut Vec<u8>) {
    let mut b = Builder::new(out, &v.dims());
    for e in v.elements() {
        b.push_payload(e);
    }
}

/// `ARRAY[sub-array, …]`: one more dimension over sub-arrays of equal shape.
fn build_nested(out: &mut Vec<u8>, vs: &[Vector], i: usize, elem: DataType) -> Result<()> {
    let mut shape: Option<Vec<Dim>> = None;
    let mut count = 0;
    for v in vs {
        if v.is_null(i) {
            continue;
        }
        let sub = View::new(blob(v, i), elem);
        let dims = sub.dims();
        match &shape {
            None => shape = Some(dims),
            Some(s) if *s == dims => {}
            Some(_) => {
                return Err(Error::new(
                    "2202E",
                    "multidimensional arrays must have array expressions with matching dimensions",
                ));
            }
        }
        count += 1;
    }
    let sub_dims = shape.unwrap_or_default();
    if sub_dims.is_empty() {
        Builder::new(out, &[]);
        return Ok(());
    }
    if sub_dims.len() + 1 > array::MAX_DIMS {
        return Err(Error::new(
            "54000",
            format!(
                "number of array dimensions ({}) exceeds the maximum allowed ({})",
                sub_dims.len() + 1,
                array::MAX_DIMS
            ),
        ));
    }
    let mut dims = vec![Dim {
        len: count,
        lbound: 1,
    }];
    dims.extend(sub_dims);
    let mut b = Builder::new(out, &dims);
    for v in vs {
        if v.is_null(i) {
            continue;
        }
        for e in View::new(blob(v, i), elem).elements() {
            b.push_payload(e);
        }
    }
    Ok(())
}
