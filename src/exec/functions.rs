//! Scalar function kernels (`upper`, `round`, `substr`, `coalesce`, …).

use super::context::ExecContext;
use super::expr::{compare_rows, eval};
use super::vector::{Batch, Data, TextVec, Vector};
use crate::error::{Error, Result};
use crate::sql::expr::{Expr, Func};
use crate::types::datetime::USECS_PER_DAY;
use crate::types::{DataType, Numeric, SqlType, Value};

fn text_map(v: &Vector, mut f: impl FnMut(&str, &mut Vec<u8>)) -> Vector {
    let Data::Text(t) = &v.data else {
        return v.clone();
    };
    let mut out = TextVec::with_capacity(t.len());
    let mut buf = Vec::new();
    for i in 0..t.len() {
        buf.clear();
        if !v.is_null(i) {
            f(t.get_str(i), &mut buf);
        }
        out.push(&buf);
    }
    Vector {
        data: Data::Text(out),
        nulls: v.nulls.clone(),
    }
}

/// `sqrt`, `ln`, `exp` and `log10` over NUMERIC or double precision, with PostgreSQL's
/// errors (2201F for a negative square root, 2201E for the logarithm of zero or a negative
/// number, 22003 when `exp` overflows or underflows a double).
fn unary_math(func: Func, v: &Vector, nulls: Option<Vec<bool>>) -> Result<Vector> {
    if let Data::Num(a) = &v.data {
        let ten = Numeric::from_i64(10);
        let mut out = Vec::with_capacity(a.len());
        for (i, x) in a.iter().enumerate() {
            out.push(if v.is_null(i) {
                Numeric::ZERO
            } else {
                match func {
                    Func::Sqrt => x.sqrt()?,
                    Func::Ln => x.ln()?,
                    Func::Exp => x.exp()?,
                    _ => Numeric::log(&ten, x)?,
                }
            });
        }
        return Ok(Vector {
            data: Data::Num(out),
            nulls,
        });
    }
    let Data::F64(a) = &v.data else {
        return Err(Error::internal("math function argument"));
    };
    let range = |what: &str| Error::numeric_out_of_range(format!("value out of range: {what}"));
    let mut out = Vec::with_capacity(a.len());
    for (i, &x) in a.iter().enumerate() {
        if v.is_null(i) {
            out.push(0.0);
            continue;
        }
        out.push(match func {
            Func::Sqrt if x < 0.0 => {
                return Err(Error::new(
                    "2201F",
                    "cannot take square root of a negative number",
                ));
            }
            Func::Sqrt => x.sqrt(),
            Func::Ln | Func::Log10 if x == 0.0 => {
                return Err(Error::new("2201E", "cannot take logarithm of zero"));
            }
            Func::Ln | Func::Log10 if x < 0.0 => {
                return Err(Error::new(
                    "2201E",
                    "cannot take logarithm of a negative number",
                ));
            }
            Func::Ln => x.ln(),
            Func::Log10 => x.log10(),
            _ => {
                let y = x.exp();
                if x.is_finite() && y.is_infinite() {
                    return Err(range("overflow"));
                }
                if x.is_finite() && y == 0.0 {
                    return Err(range("underflow"));
                }
                y
            }
        });
    }
    Ok(Vector {
        data: Data::F64(out),
        nulls,
    })
}

fn int_map(v: &Vector, f: impl Fn(&str) -> i32) -> Vector {
    let Data::Text(t) = &v.data else {
        return v.clone();
    };
    let out = (0..t.len())
        .map(|i| if v.is_null(i) { 0 } else { f(t.get_str(i)) })
        .collect();
    Vector {
        data: Data::I32(out),
        nulls: v.nulls.clone(),
    }
}

fn merged_nulls(vs: &[Vector], n: usize) -> Option<Vec<bool>> {
    if vs.iter().all(|v| v.nulls.is_none()) {
        return None;
    }
    Some((0..n).map(|i| vs.iter().any(|v| v.is_null(i))).collect())
}

fn substr(s: &str, start: i64, len: Option<i64>) -> Result<&str> {
    if let Some(l) = len
        && l < 0
    {
        return Err(Error::new("22011", "negative substring length not allowed"));
    }
    let end = len.map(|l| start.saturating_add(l));
    let from = start.max(1) as usize - 1;
    let count = match end {
        Some(e) if e <= 1 => return Ok(""),
        Some(e) => Some(e as usize - 1 - from),
        None => None,
    };
    let mut chars = s.char_indices().skip(from);
    let Some((b0, _)) = chars.next() else {
        return Ok("");
    };
    let b1 = match count {
        Some(c) => s[b0..]
            .char_indices()
            .nth(c)
            .map_or(s.len(), |(i, _)| b0 + i),
        None => s.len(),
    };
    Ok(&s[b0..b1])
}

fn trim_chars<'s>(s: &'s str, set: &str, left: bool, right: bool) -> &'s str {
    let is_trim = |c: char| set.contains(c);
    let mut out = s;
    if left {
        out = out.trim_start_matches(is_trim);
    }
    if right {
        out = out.trim_end_matches(is_trim);
    }
    out
}

/// `&`, `|`, `#`, `<<`, `>>`, `~` over integer vectors (shifts by an int4 count, which
/// wraps as PostgreSQL's C shifts do on this hardware: smallints shift as 32-bit ints).
fn bitwise(op: crate::sql::expr::BitOp, vs: &[Vector]) -> Result<Data> {
    use crate::sql::expr::BitOp as B;
    let count = |k: usize| -> &[i32] {
        match vs.get(1).map(|v| &v.data) {
            Some(Data::I32(c)) => &c[k..k + 1],
            _ => &[0],
        }
    };
    macro_rules! apply {
        ($a:expr, $variant:ident, $t:ty, $wide:ty) => {{
            let other = match vs.get(1).map(|v| &v.data) {
                Some(Data::$variant(b)) => Some(b),
                _ => None,
            };
            $a.iter()
                .enumerate()
                .map(|(k, &x)| {
                    let y = other.map_or(0, |b| b[k]);
                    match op {
                        B::And => x & y,
                        B::Or => x | y,
                        B::Xor => x ^ y,
                        B::Not => !x,
                        B::ShiftLeft => (x as $wide).wrapping_shl(count(k)[0] as u32) as $t,
                        B::ShiftRight => (x as $wide).wrapping_shr(count(k)[0] as u32) as $t,
                    }
                })
                .collect()
        }};
    }
    Ok(match vs.first().map(|v| &v.data) {
        Some(Data::I16(a)) => Data::I16(apply!(a, I16, i16, i32)),
        Some(Data::I32(a)) => Data::I32(apply!(a, I32, i32, i32)),
        Some(Data::I64(a)) => Data::I64(apply!(a, I64, i64, i64)),
        _ => return Err(Error::internal("bitwise operator on a non-integer")),
    })
}

/// PostgreSQL's quote_literal: quotes doubled; with a backslash, an E'' string with the
/// backslashes doubled too.
/// One row of a network operator or function (`types::net`).
fn net_row(kind: crate::sql::expr::NetFn, row: &[Value], result: DataType) -> Result<Value> {
    use crate::sql::expr::NetFn as N;
    use crate::types::net::{self, Inet};
    let inet = |v: &Value| match v {
        Value::Raw(_, b) => Ok(Inet::decode(b)),
        _ => Err(Error::internal("network function expected inet")),
    };
    let bytes = |v: &Value| match v {
        Value::Raw(_, b) => Ok(b.clone()),
        _ => Err(Error::internal("network function expected a MAC address")),
    };
    let int = |v: &Value| {
        v.as_i64()
            .ok_or_else(|| Error::internal("network function expected an integer"))
    };
    let net_value = |n: Inet, t: DataType| Value::Raw(t, n.encode());
    Ok(match kind {
        N::Within { or_equal } => {
            Value::Bool(net::within(&inet(&row[0])?, &inet(&row[1])?, or_equal))
        }
        N::Overlaps => Value::Bool(net::overlaps(&inet(&row[0])?, &inet(&row[1])?)),
        N::Not if result == DataType::Inet => net_value(net::not(&inet(&row[0])?), result),
        N::Not => Value::Raw(result, bytes(&row[0])?.iter().map(|b| !b).collect()),
        N::And | N::Or if result == DataType::Inet => net_value(
            net::bitwise(&inet(&row[0])?, &inet(&row[1])?, kind == N::And)?,
            result,
        ),
        N::And | N::Or => {
            let (a, b) = (bytes(&row[0])?, bytes(&row[1])?);
            Value::Raw(
                result,
                a.iter()
                    .zip(&b)
                    .map(|(x, y)| if kind == N::And { x & y } else { x | y })
                    .collect(),
            )
        }
        N::Add => net_value(net::add(&inet(&row[0])?, int(&row[1])?)?, result),
        N::SubInt => {
            let d = int(&row[1])?;
            let d = d
                .checked_neg()
                .ok_or_else(|| Error::new("22003", "result is out of range"))?;
            net_value(net::add(&inet(&row[0])?, d)?, result)
        }
        N::Diff => Value::Int8(net::subtract(&inet(&row[0])?, &inet(&row[1])?)?),
        N::Abbrev => {
            let n = inet(&row[0])?;
            let cidr = matches!(&row[0], Value::Raw(DataType::Cidr, _));
            Value::Text(if cidr {
                net::cidr_abbrev(&n)
            } else {
                net::to_text(&n, false)
            })
        }
        N::Broadcast => net_value(net::broadcast(&inet(&row[0])?), result),
        N::Family => Value::Int4(if inet(&row[0])?.v6 { 6 } else { 4 }),
        N::Host => Value::Text(net::host_text(&inet(&row[0])?)),
        N::HostMask => net_value(net::mask(&inet(&row[0])?, true), result),
        N::NetMask => net_value(net::mask(&inet(&row[0])?, false), result),
        N::MaskLen => Value::Int4(inet(&row[0])?.bits as i32),
        N::Network => net_value(net::network(&inet(&row[0])?), result),
        N::Text => Value::Text(net::to_text(&inet(&row[0])?, true)),
        N::Merge => net_value(net::merge(&inet(&row[0])?, &inet(&row[1])?)?, result),
        N::SameFamily => Value::Bool(inet(&row[0])?.v6 == inet(&row[1])?.v6),
        N::SetMaskLen => net_value(
            net::set_masklen(
                &inet(&row[0])?,
                int(&row[1])? as i32,
                result == DataType::Cidr,
            )?,
            result,
        ),
        N::Trunc => {
            let mut b = bytes(&row[0])?;
            for x in b.iter_mut().skip(3) {
                *x = 0;
            }
            Value::Raw(result, b)
        }
        N::Set7Bit => {
            let mut b = bytes(&row[0])?;
            if let Some(x) = b.first_mut() {
                *x |= 0x02;
            }
            Value::Raw(result, b)
        }
    })
}

pub(super) fn quote_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    if s.contains('\\') {
        out.push('E');
    }
    out.push('\'');
    for c in s.chars() {
        if c == '\'' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

fn float_round(v: f64) -> f64 {
    // PostgreSQL's round(float8) is rint(): half to even.
    v.round_ties_even()
}

pub fn eval_function(
    func: Func,
    args: &[Expr],
    ty: SqlType,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let n = sel.len();
    // Functions that must not evaluate all arguments eagerly.
    if func == Func::Coalesce {
        return coalesce(args, ty, batch, sel, ctx);
    }
    if func.info().kernel == crate::sql::functions::Kernel::Json
        && let Some(v) = super::json_functions::fast_path(func, args, batch, sel, ctx)?
    {
        return Ok(v);
    }
    let vs = args
        .iter()
        .map(|a| eval(a, batch, sel, ctx))
        .collect::<Result<Vec<_>>>()?;
    if func.info().kernel == crate::sql::functions::Kernel::Array {
        return super::array_functions::eval(func, args, &vs, n, ty, ctx);
    }
    if func.info().kernel == crate::sql::functions::Kernel::Catalog {
        let types: Vec<SqlType> = args.iter().map(|a| a.ty()).collect();
        return crate::catalog::system::eval_function(func, &vs, &types, n, ty, ctx);
    }
    let nulls = merged_nulls(&vs, n);
    let text = |i: usize| match vs.get(i).map(|v| &v.data) {
        Some(Data::Text(t)) => Some(t),
        _ => None,
    };
    Ok(match func {
        // ASCII strings map byte by byte without allocating; others use Unicode rules.
        Func::Upper => text_map(&vs[0], |s, out| {
            if s.is_ascii() {
                out.extend(s.bytes().map(|b| b.to_ascii_uppercase()));
            } else {
                out.extend_from_slice(s.to_uppercase().as_bytes());
            }
        }),
        Func::QuoteIdent => text_map(&vs[0], |s, out| {
            out.extend_from_slice(crate::catalog::system::quote_ident(s).as_bytes())
        }),
        Func::QuoteLiteral | Func::QuoteNullable => {
            let mut v = text_map(&vs[0], |s, out| {
                out.extend_from_slice(quote_literal(s).as_bytes())
            });
            if func == Func::QuoteNullable {
                // NULL in, the word NULL out.
                if let (Some(n), Data::Text(t)) = (v.nulls.take(), &v.data) {
                    let mut out = TextVec::with_capacity(t.len());
                    for (i, null) in n.iter().enumerate() {
                        out.push(if *null { b"NULL" } else { t.get(i) });
                    }
                    v.data = Data::Text(out);
                }
                return Ok(v);
            }
            v
        }
        Func::Lower => text_map(&vs[0], |s, out| {
            if s.is_ascii() {
                out.extend(s.bytes().map(|b| b.to_ascii_lowercase()));
            } else {
                out.extend_from_slice(s.to_lowercase().as_bytes());
            }
        }),
        Func::Length => int_map(&vs[0], |s| {
            if s.is_ascii() {
                s.len() as i32
            } else {
                s.chars().count() as i32
            }
        }),
        Func::OctetLength => int_map(&vs[0], |s| s.len() as i32),
        Func::Bitwise(op) => Vector {
            data: bitwise(op, &vs)?,
            nulls,
        },
        Func::Abs => {
            let v = &vs[0];
            let range = |t: &str| Error::numeric_out_of_range(format!("{t} out of range"));
            let data = match &v.data {
                Data::I16(a) => Data::I16(
                    a.iter()
                        .map(|x| x.checked_abs().ok_or_else(|| range("smallint")))
                        .collect::<Result<_>>()?,
                ),
                Data::I32(a) => Data::I32(
                    a.iter()
                        .map(|x| x.checked_abs().ok_or_else(|| range("integer")))
                        .collect::<Result<_>>()?,
                ),
                Data::I64(a) => Data::I64(
                    a.iter()
                        .map(|x| x.checked_abs().ok_or_else(|| range("bigint")))
                        .collect::<Result<_>>()?,
                ),
                Data::F32(a) => Data::F32(a.iter().map(|x| x.abs()).collect()),
                Data::F64(a) => Data::F64(a.iter().map(|x| x.abs()).collect()),
                Data::Num(a) => Data::Num(a.iter().map(|x| x.abs()).collect()),
                other => other.clone(),
            };
            Vector { data, nulls }
        }
        Func::Sign => {
            let v = &vs[0];
            let data = match &v.data {
                Data::F64(a) => Data::F64(
                    a.iter()
                        .map(|&x| {
                            if x > 0.0 {
                                1.0
                            } else if x < 0.0 {
                                -1.0
                            } else {
                                0.0
                            }
                        })
                        .collect(),
                ),
                Data::Num(a) => Data::Num(
                    a.iter()
                        .map(|x| {
                            Numeric::from_i64(match x.cmp_value(&Numeric::ZERO) {
                                std::cmp::Ordering::Less => -1,
                                std::cmp::Ordering::Equal => 0,
                                std::cmp::Ordering::Greater => 1,
                            })
                        })
                        .collect(),
                ),
                other => other.clone(),
            };
            Vector { data, nulls }
        }
        Func::Round | Func::Trunc | Func::Ceil | Func::Floor => {
            let v = &vs[0];
            let data = match &v.data {
                Data::F64(a) => Data::F64(
                    a.iter()
                        .map(|&x| match func {
                            Func::Round => float_round(x),
                            Func::Trunc => x.trunc(),
                            Func::Ceil => x.ceil(),
                            _ => x.floor(),
                        })
                        .collect(),
                ),
                Data::Num(a) => {
                    let scales: Option<&Vec<i32>> = match vs.get(1).map(|s| &s.data) {
                        Some(Data::I32(s)) => Some(s),
                        _ => None,
                    };
                    let mut out = Vec::with_capacity(n);
                    for i in 0..n {
                        if nulls.as_ref().is_some_and(|m| m[i]) {
                            out.push(Numeric::ZERO);
                            continue;
                        }
                        let s = scales.map_or(0, |s| s[i]);
                        out.push(match func {
                            Func::Round => a[i].round(s)?,
                            Func::Trunc => a[i].trunc(s)?,
                            Func::Ceil => a[i].ceil()?,
                            _ => a[i].floor()?,
                        });
                    }
                    Data::Num(out)
                }
                other => other.clone(),
            };
            Vector { data, nulls }
        }
        Func::Sqrt | Func::Ln | Func::Exp | Func::Log10 => unary_math(func, &vs[0], nulls)?,
        Func::Log => {
            let (Data::Num(b), Data::Num(x)) = (&vs[0].data, &vs[1].data) else {
                return Err(Error::internal("log arguments"));
            };
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(if nulls.as_ref().is_some_and(|m| m[i]) {
                    Numeric::ZERO
                } else {
                    Numeric::log(&b[i], &x[i])?
                });
            }
            Vector {
                data: Data::Num(out),
                nulls,
            }
        }
        Func::Mod => apply_operator(crate::sql::expr::BinaryOp::Mod, &vs, ty, ctx)?,
        Func::Power => apply_operator(crate::sql::expr::BinaryOp::Pow, &vs, ty, ctx)?,
        Func::Substr => {
            let t = text(0).ok_or_else(|| Error::internal("substr argument"))?;
            let Data::I32(starts) = &vs[1].data else {
                return Err(Error::internal("substr start"));
            };
            let lens = match vs.get(2).map(|v| &v.data) {
                Some(Data::I32(l)) => Some(l),
                _ => None,
            };
            let mut out = TextVec::with_capacity(n);
            for i in 0..n {
                if nulls.as_ref().is_some_and(|m| m[i]) {
                    out.push(b"");
                    continue;
                }
                let s = substr(t.get_str(i), starts[i] as i64, lens.map(|l| l[i] as i64))?;
                out.push(s.as_bytes());
            }
            Vector {
                data: Data::Text(out),
                nulls,
            }
        }
        Func::Chr => {
            let Data::I32(codes) = &vs[0].data else {
                return Err(Error::internal("chr argument"));
            };
            let mut out = TextVec::with_capacity(n);
            let mut buf = [0u8; 4];
            for i in 0..n {
                if nulls.as_ref().is_some_and(|m| m[i]) {
                    out.push(b"");
                    continue;
                }
                out.push(chr(codes[i], &mut buf)?);
            }
            Vector {
                data: Data::Text(out),
                nulls,
            }
        }
        Func::Ascii => {
            let s = text(0).ok_or_else(|| Error::internal("ascii"))?;
            let out = (0..n)
                .map(|i| s.get_str(i).chars().next().map_or(0, |c| c as i32))
                .collect();
            Vector {
                data: Data::I32(out),
                nulls,
            }
        }
        Func::Position => {
            let (h, nd) = (
                text(0).ok_or_else(|| Error::internal("strpos"))?,
                text(1).ok_or_else(|| Error::internal("strpos"))?,
            );
            let out = (0..n)
                .map(|i| {
                    let hay = h.get_str(i);
                    match hay.find(nd.get_str(i)) {
                        Some(b) => hay[..b].chars().count() as i32 + 1,
                        None => 0,
                    }
                })
                .collect();
            Vector {
                data: Data::I32(out),
                nulls,
            }
        }
        Func::Replace => {
            let (s, from, to) = (text(0), text(1), text(2));
            let (Some(s), Some(from), Some(to)) = (s, from, to) else {
                return Err(Error::internal("replace"));
            };
            let mut out = TextVec::with_capacity(n);
            for i in 0..n {
                let f = from.get_str(i);
                if f.is_empty() {
                    out.push(s.get(i));
                } else {
                    out.push(s.get_str(i).replace(f, to.get_str(i)).as_bytes());
                }
            }
            Vector {
                data: Data::Text(out),
                nulls,
            }
        }
        Func::Btrim | Func::Ltrim | Func::Rtrim => {
            let s = text(0).ok_or_else(|| Error::internal("trim"))?;
            let set = text(1);
            let (l, r) = match func {
                Func::Ltrim => (true, false),
                Func::Rtrim => (false, true),
                _ => (true, true),
            };
            let mut out = TextVec::with_capacity(n);
            for i in 0..n {
                let chars = set.map_or(" ", |t| t.get_str(i));
                out.push(trim_chars(s.get_str(i), chars, l, r).as_bytes());
            }
            Vector {
                data: Data::Text(out),
                nulls,
            }
        }
        Func::Repeat => {
            let s = text(0).ok_or_else(|| Error::internal("repeat"))?;
            let Data::I32(k) = &vs[1].data else {
                return Err(Error::internal("repeat count"));
            };
            // PostgreSQL's limit is one value under 1 GB; the batch's output is charged
            // against the statement's memory while it is built, so a batch of huge values
            // fails with 53200 instead of exhausting the machine.
            const MAX_VALUE_BYTES: i64 = (1 << 30) - 1 - 4;
            let mut out = TextVec::with_capacity(n);
            let mut charged = 0usize;
            let mut result = Ok(());
            for i in 0..n {
                let piece = s.get(i);
                let count = if nulls.as_ref().is_some_and(|m| m[i]) {
                    0
                } else {
                    k[i].max(0) as i64
                };
                let bytes = count * piece.len() as i64;
                if bytes > MAX_VALUE_BYTES {
                    result = Err(Error::new("54000", "requested length too large"));
                    break;
                }
                if let Err(e) = ctx.charge_memory(bytes as usize) {
                    result = Err(e);
                    break;
                }
                charged += bytes as usize;
                out.data.reserve(bytes as usize);
                for _ in 0..count {
                    out.data.extend_from_slice(piece);
                }
                out.offsets.push(out.data.len());
            }
            ctx.release_memory(charged);
            result?;
            Vector {
                data: Data::Text(out),
                nulls,
            }
        }
        Func::Left | Func::Right => {
            let s = text(0).ok_or_else(|| Error::internal("left"))?;
            let Data::I32(k) = &vs[1].data else {
                return Err(Error::internal("left count"));
            };
            let mut out = TextVec::with_capacity(n);
            for i in 0..n {
                let st = s.get_str(i);
                let len = st.chars().count() as i64;
                let k = k[i] as i64;
                let keep = if k >= 0 { k.min(len) } else { (len + k).max(0) };
                let piece = if func == Func::Left {
                    let end = st
                        .char_indices()
                        .nth(keep as usize)
                        .map_or(st.len(), |(b, _)| b);
                    &st[..end]
                } else {
                    let skip = (len - keep) as usize;
                    let start = st.char_indices().nth(skip).map_or(st.len(), |(b, _)| b);
                    &st[start..]
                };
                out.push(piece.as_bytes());
            }
            Vector {
                data: Data::Text(out),
                nulls,
            }
        }
        Func::Concat => {
            let mut out = TextVec::with_capacity(n);
            let mut buf = Vec::new();
            for i in 0..n {
                buf.clear();
                for (v, a) in vs.iter().zip(args) {
                    if v.is_null(i) {
                        continue;
                    }
                    match &v.data {
                        Data::Text(t) => buf.extend_from_slice(t.get(i)),
                        _ => crate::types::text::write_value(
                            &mut buf,
                            &v.value(i, a.ty().ty),
                            &ctx.fmt,
                        ),
                    }
                }
                out.push(&buf);
            }
            Vector::from_data(Data::Text(out))
        }
        Func::Greatest | Func::Least => {
            let mut out = Vector::with_capacity(ty.ty, n);
            for i in 0..n {
                let mut best: Option<usize> = None;
                for (k, v) in vs.iter().enumerate() {
                    if v.is_null(i) {
                        continue;
                    }
                    best = match best {
                        None => Some(k),
                        Some(b) => {
                            let o = compare_rows(&v.data, i, &vs[b].data, i);
                            let better = if func == Func::Greatest {
                                o.is_gt()
                            } else {
                                o.is_lt()
                            };
                            Some(if better { k } else { b })
                        }
                    };
                }
                match best {
                    Some(b) => out.push_from(&vs[b], i),
                    None => out.push_null(),
                }
            }
            out
        }
        Func::Nullif => {
            let mut out = vs[0].clone();
            for i in 0..n {
                if !vs[0].is_null(i)
                    && !vs[1].is_null(i)
                    && compare_rows(&vs[0].data, i, &vs[1].data, i).is_eq()
                {
                    out.set_null(i);
                }
            }
            out
        }
        Func::Now => Vector::repeat(
            &Value::Timestamptz(ctx.now_micros),
            DataType::Timestamptz,
            n,
        ),
        Func::CurrentDate => {
            let local = ctx.fmt.zone.utc_to_local(ctx.now_micros);
            Vector::repeat(
                &Value::Date(local.div_euclid(USECS_PER_DAY) as i32),
                DataType::Date,
                n,
            )
        }
        Func::Version => Vector::repeat(
            &Value::Text(crate::VERSION_STRING.to_string()),
            DataType::Text,
            n,
        ),
        Func::CurrentDatabase => {
            Vector::repeat(&Value::Text(ctx.database.clone()), DataType::Text, n)
        }
        Func::CurrentUser => Vector::repeat(&Value::Text(ctx.user.clone()), DataType::Text, n),
        Func::SessionUser => {
            Vector::repeat(&Value::Text(ctx.session_user.clone()), DataType::Text, n)
        }
        Func::CurrentSetting => current_setting(&vs, n, ctx)?,
        Func::SetConfig => set_config(&vs, n, ctx)?,
        Func::JsonBuildObject | Func::JsonBuildArray => {
            let types: Vec<SqlType> = args.iter().map(|a| a.ty()).collect();
            json_build(func == Func::JsonBuildObject, &vs, &types, n, &ctx.fmt)?
        }
        Func::NextVal | Func::CurrVal | Func::SetVal | Func::LastVal => {
            let by_oid = args
                .first()
                .is_some_and(|a| a.ty().ty == DataType::RegClass);
            sequence_call(func, &vs, by_oid, n, ctx)?
        }
        Func::SequenceLastValue | Func::SequenceIsCalled => sequence_state(func, &vs, n, ctx)?,
        Func::JsonField { .. }
        | Func::JsonIndex { .. }
        | Func::JsonPath { .. }
        | Func::JsonbContains
        | Func::JsonbContained
        | Func::JsonbExists
        | Func::JsonbExistsAny
        | Func::JsonbExistsAll
        | Func::JsonbConcat
        | Func::JsonbDelete
        | Func::JsonbDeleteIndex
        | Func::JsonbDeleteKeys
        | Func::JsonbDeletePath
        | Func::JsonTypeof { .. }
        | Func::JsonArrayLength { .. }
        | Func::JsonbBuild { .. }
        | Func::ToJson { .. }
        | Func::JsonStripNulls { .. }
        | Func::JsonbPretty
        | Func::RowToJson
        | Func::JsonbSet { .. }
        | Func::JsonbInsert
        | Func::JsonbPathFn { .. }
        | Func::JsonbObject { .. } => {
            let types: Vec<DataType> = args.iter().map(|a| a.ty().ty).collect();
            super::json_functions::eval(func, &vs, &types, n, ctx)?
        }
        Func::GenRandomUuid
        | Func::ByteaLength
        | Func::ByteaEncodedLength
        | Func::ByteaBitLength
        | Func::ByteaSubstr
        | Func::ByteaPosition
        | Func::GetByte
        | Func::SetByte
        | Func::GetBit
        | Func::SetBit
        | Func::Encode
        | Func::Decode
        | Func::ConvertTo
        | Func::ConvertFrom
        | Func::Convert
        | Func::BytesCmp
        | Func::ByteaMd5
        | Func::Sha224
        | Func::Sha256
        | Func::Sha384
        | Func::Sha512
        | Func::ByteaTrim(_)
        | Func::Overlay(_) => super::bytes_functions::eval(func, &vs, n, ctx)?,
        Func::PgGetSerialSequence => serial_sequence(&vs, n, ctx)?,
        Func::AdvisoryLock
        | Func::AdvisoryLockShared
        | Func::AdvisoryXactLock
        | Func::AdvisoryXactLockShared
        | Func::TryAdvisoryLock
        | Func::TryAdvisoryLockShared
        | Func::TryAdvisoryXactLock
        | Func::TryAdvisoryXactLockShared
        | Func::AdvisoryUnlock
        | Func::AdvisoryUnlockShared
        | Func::AdvisoryUnlockAll => advisory_call(func, &vs, n, ctx)?,
        Func::BackendPid | Func::CancelBackend | Func::TerminateBackend => {
            backend_call(func, &vs, n, ctx)?
        }
        Func::PgNotify => {
            let Some(queue) = &ctx.notifies else {
                return Err(Error::feature_not_supported("pg_notify here"));
            };
            for i in 0..n {
                let channel = match vs.first().map(|v| v.value(i, DataType::Text)) {
                    Some(Value::Text(c)) if !c.is_empty() => c,
                    _ => return Err(Error::new("22023", "channel name cannot be empty")),
                };
                let payload = match vs.get(1).map(|v| v.value(i, DataType::Text)) {
                    Some(Value::Text(p)) => p,
                    _ => String::new(),
                };
                if payload.len() > crate::notify::PAYLOAD_MAX {
                    return Err(Error::new("22023", "payload string too long"));
                }
                if channel.len() >= 64 {
                    return Err(Error::new("22023", "channel name too long"));
                }
                queue.lock().push((channel, payload));
            }
            Vector::repeat(&Value::Text(String::new()), DataType::Text, n)
        }
        Func::Extract | Func::DatePart | Func::DateTrunc | Func::Age | Func::Timezone => {
            super::date_functions::eval(func, args, &vs, n, ty, ctx)?
        }
        Func::Lpad
        | Func::Rpad
        | Func::SplitPart
        | Func::Reverse
        | Func::Translate
        | Func::StartsWith
        | Func::Initcap
        | Func::Md5
        | Func::Random => super::string_functions::eval(func, args, &vs, n, ty, ctx)?,
        Func::RegexMatch(icase) => super::string_functions::regex_match(&vs, n, icase)?,
        Func::ToChar => eval_strict_rows(args, &vs, n, ty, |row| {
            use crate::types::datetime::{self as dt, to_char};
            use crate::types::numeric::to_char::{NumValue, to_char as num_to_char};
            let number = match row {
                [Value::Int4(v), Value::Text(f)] => Some((NumValue::Int4(*v), f)),
                [Value::Int8(v), Value::Text(f)] => Some((NumValue::Int8(*v), f)),
                [Value::Float4(v), Value::Text(f)] => Some((NumValue::Float4(*v), f)),
                [Value::Float8(v), Value::Text(f)] => Some((NumValue::Float8(*v), f)),
                [Value::Numeric(v), Value::Text(f)] => Some((NumValue::Numeric(v), f)),
                _ => None,
            };
            if let Some((v, f)) = number {
                return num_to_char(v, f).map(Value::Text);
            }
            let (parts, format) = match row {
                [_, Value::Text(f)] if f.is_empty() => return Ok(Value::Null),
                [Value::Timestamp(t) | Value::Timestamptz(t), _]
                    if dt::timestamp_is_infinite(*t) =>
                {
                    return Ok(Value::Null);
                }
                [Value::Timestamp(t), Value::Text(f)] => (to_char::timestamp_parts(*t, 0, None), f),
                [Value::Timestamptz(t), Value::Text(f)] => {
                    let zone = &ctx.fmt.zone;
                    let east = zone.offset_at(*t);
                    let local = *t + east as i64 * dt::USECS_PER_SEC;
                    let name = zone.abbreviation_at(*t).or_else(|| match zone {
                        dt::Zone::Fixed(0) => Some("UTC".to_string()),
                        _ => None,
                    });
                    (to_char::timestamp_parts(local, east, name), f)
                }
                [Value::Interval(iv), Value::Text(f)] => (to_char::interval_parts(iv), f),
                _ => return Err(Error::internal("to_char arguments")),
            };
            to_char::to_char(&parts, format).map(Value::Text)
        })?,
        Func::Regexp(kind) => {
            eval_strict_rows(args, &vs, n, ty, |row| super::regexp::eval_row(kind, row))?
        }
        Func::ToDate | Func::ToTimestamp => eval_strict_rows(args, &vs, n, ty, |row| {
            use crate::types::datetime::{self as dt, to_char};
            let [Value::Text(input), Value::Text(format)] = row else {
                return Err(Error::internal("to_date arguments"));
            };
            let type_name = if func == Func::ToDate {
                "date"
            } else {
                "timestamp"
            };
            let p = to_char::from_char(input, format, type_name)?;
            if func == Func::ToDate {
                let out = || Error::new("22008", format!("date out of range: \"{input}\""));
                if !dt::is_valid_julian(p.year, p.mon, p.mday) {
                    return Err(out());
                }
                let d = dt::date2j(p.year, p.mon, p.mday) - dt::POSTGRES_EPOCH_JDATE;
                if !dt::is_valid_date(d) {
                    return Err(out());
                }
                return Ok(Value::Date(d));
            }
            let range = || Error::new("22008", "timestamp out of range");
            if !dt::is_valid_julian(p.year, p.mon, p.mday) {
                return Err(range());
            }
            let day = (dt::date2j(p.year, p.mon, p.mday) - dt::POSTGRES_EPOCH_JDATE) as i64;
            let local = day * dt::USECS_PER_DAY
                + ((p.hour as i64 * 60 + p.min as i64) * 60 + p.sec as i64) * dt::USECS_PER_SEC
                + p.usec;
            let utc = match p.gmtoff {
                Some(east) => local - east as i64 * dt::USECS_PER_SEC,
                None => ctx.fmt.zone.local_to_utc(local),
            };
            if !dt::is_valid_timestamp(utc) {
                return Err(range());
            }
            let utc = match p.precision {
                Some(digits) => dt::round_timestamp(utc, digits)?,
                None => utc,
            };
            Ok(Value::Timestamptz(utc))
        })?,
        Func::ToNumber => eval_strict_rows(args, &vs, n, ty, |row| {
            let [Value::Text(input), Value::Text(format)] = row else {
                return Err(Error::internal("to_number arguments"));
            };
            Ok(crate::types::numeric::to_char::to_number(input, format)?
                .map_or(Value::Null, Value::Numeric))
        })?,
        Func::ToTimestampEpoch => eval_strict_rows(args, &vs, n, ty, |row| {
            use crate::types::datetime as dt;
            let [Value::Float8(secs)] = row else {
                return Err(Error::internal("to_timestamp argument"));
            };
            dt::timestamptz_from_epoch(*secs).map(Value::Timestamptz)
        })?,
        Func::Net(kind) => eval_strict_rows(args, &vs, n, ty, |row| net_row(kind, row, ty.ty))?,
        Func::Ts(f) => super::tsearch_functions::eval(f, args, &vs, n, ty, ctx)?,
        Func::EnumIn(oid) | Func::EnumPosition(oid) => {
            let t = enum_type(ctx, oid)?;
            let position = matches!(func, Func::EnumPosition(_));
            eval_strict_rows(args, &vs, n, ty, |row| {
                // An array of labels: each checked, the array retyped.
                if let Value::Array(a) = &row[0] {
                    for v in crate::types::array::View::new(&a.bytes, a.elem).values() {
                        if let Value::Text(s) = &v {
                            if t.position(s).is_none() {
                                return Err(t.bad_label(s));
                            }
                            crate::catalog::types::check_committed(&t, s, ctx.snapshot.own)?;
                        }
                    }
                    return Ok(Value::Array(Box::new(crate::types::array::Array {
                        elem: DataType::Enum(oid),
                        bytes: a.bytes.clone(),
                    })));
                }
                let Value::Text(s) = &row[0] else {
                    return Err(Error::internal("an enum that is not text"));
                };
                match t.position(s) {
                    Some(p) if position => Ok(Value::Float4(p)),
                    Some(_) => {
                        crate::catalog::types::check_committed(&t, s, ctx.snapshot.own)?;
                        Ok(Value::Text(s.clone()))
                    }
                    None => Err(t.bad_label(s)),
                }
            })?
        }
        Func::EnumOut => eval_strict_rows(args, &vs, n, ty, |row| Ok(row[0].clone()))?,
        Func::DomainCheck(oid) => {
            let t = enum_type(ctx, oid)?;
            let v = vs
                .into_iter()
                .next()
                .ok_or_else(|| Error::internal("a domain check without its value"))?;
            let chain = ctx
                .db
                .as_ref()
                .map(|db| db.catalog.domain_chain(oid, &ctx.snapshot))
                .unwrap_or_default();
            check_domain(&shown_type_name(ctx, &t), &chain, &v, n, ctx)?;
            v
        }
        Func::ArrayAssign { slice } => {
            let types: Vec<DataType> = args.iter().map(|a| a.ty().ty).collect();
            let mut out = Vector::with_capacity(ty.ty, n);
            let mut row = Vec::with_capacity(vs.len());
            for i in 0..n {
                row.clear();
                for (v, t) in vs.iter().zip(&types) {
                    row.push(v.value(i, *t));
                }
                out.push_value(&array_assign(ty.ty, &row, slice)?);
            }
            out
        }
        Func::Range(crate::sql::expr::RangeFn::Construct, kind) => {
            let types: Vec<DataType> = args.iter().map(|a| a.ty().ty).collect();
            let mut out = Vector::with_capacity(ty.ty, n);
            let mut row = Vec::with_capacity(vs.len());
            for i in 0..n {
                row.clear();
                for (v, t) in vs.iter().zip(&types) {
                    row.push(v.value(i, *t));
                }
                out.push_value(&range_construct(kind, &row)?);
            }
            out
        }
        Func::Range(f, kind) => eval_strict_rows(args, &vs, n, ty, |row| range_row(f, kind, row))?,
        Func::EnumLabelAt(oid) => {
            let t = enum_type(ctx, oid)?;
            eval_strict_rows(args, &vs, n, ty, |row| {
                let Value::Float4(p) = row[0] else {
                    return Err(Error::internal("an enum place that is not a real"));
                };
                t.labels
                    .iter()
                    .find(|l| l.sortorder == p)
                    .map(|l| Value::Text(l.label.clone()))
                    .ok_or_else(|| Error::internal("no enum label at that place"))
            })?
        }
        Func::Ext(kind) => eval_strict_rows(args, &vs, n, ty, |row| {
            super::extension_functions::ext_row(kind, row, ctx)
        })?,
        Func::MakeDate => eval_strict_rows(args, &vs, n, ty, |row| match row {
            [Value::Int4(y), Value::Int4(m), Value::Int4(d)] => {
                crate::types::datetime::make_date(*y, *m, *d).map(Value::Date)
            }
            _ => Err(Error::internal("make_date arguments")),
        })?,
        Func::LikeEscape => eval_strict_rows(args, &vs, n, ty, |row| match row {
            [Value::Text(p), Value::Text(e)] => like_escape(p, e).map(Value::Text),
            _ => Err(Error::internal("like_escape arguments")),
        })?,
        Func::MakeInterval => eval_strict_rows(args, &vs, n, ty, |row| match row {
            [
                Value::Int4(y),
                Value::Int4(mo),
                Value::Int4(w),
                Value::Int4(d),
                Value::Int4(h),
                Value::Int4(mi),
                Value::Float8(s),
            ] => make_interval([*y, *mo, *w, *d, *h, *mi], *s),
            _ => Err(Error::internal("make_interval arguments")),
        })?,
        Func::MakeTime => eval_strict_rows(args, &vs, n, ty, |row| match row {
            [Value::Int4(h), Value::Int4(m), Value::Float8(s)] => {
                crate::types::datetime::make_time(*h, *m, *s).map(Value::Time)
            }
            _ => Err(Error::internal("make_time arguments")),
        })?,
        Func::Format => {
            let types: Vec<DataType> = args.iter().map(|a| a.ty().ty).collect();
            super::string_functions::format(&vs, &types, n, ctx)?
        }
        Func::Coalesce => return Err(Error::internal("coalesce handled above")),
        _ => return Err(Error::internal("array function handled above")),
    })
}

/// Evaluates a strict function row by row: a row with any NULL argument is NULL, others
/// get `f` of their argument values. For the kernels off every benchmark's hot path
/// (date/time fields, the rarer string functions), where a `Value` per row is fine.
pub fn eval_strict_rows(
    args: &[Expr],
    vs: &[Vector],
    n: usize,
    ty: SqlType,
    mut f: impl FnMut(&[Value]) -> Result<Value>,
) -> Result<Vector> {
    let types: Vec<DataType> = args.iter().map(|a| a.ty().ty).collect();
    let mut out = Vector::with_capacity(ty.ty, n);
    let mut row = Vec::with_capacity(vs.len());
    for i in 0..n {
        row.clear();
        for (v, t) in vs.iter().zip(&types) {
            row.push(v.value(i, *t));
        }
        if row.iter().any(Value::is_null) {
            out.push_null();
            continue;
        }
        out.push_value(&f(&row)?);
    }
    Ok(out)
}

/// `mod(a, b)` and `power(a, b)` are their operators applied to the evaluated arguments.
fn apply_operator(
    op: crate::sql::expr::BinaryOp,
    vs: &[Vector],
    ty: SqlType,
    ctx: &ExecContext,
) -> Result<Vector> {
    let n = vs.first().map_or(0, Vector::len);
    let column = |index| {
        Box::new(Expr::Column {
            index,
            ty,
            name: String::new(),
        })
    };
    let e = Expr::Binary {
        op,
        left: column(0),
        right: column(1),
        ty,
    };
    let b = Batch::new(vs.to_vec(), n);
    let all: Vec<u32> = (0..n as u32).collect();
    eval(&e, &b, &all, ctx)
}

/// COALESCE evaluates each argument only on rows still NULL.
fn coalesce(
    args: &[Expr],
    ty: SqlType,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let n = sel.len();
    let mut source: Vec<Option<(usize, usize)>> = vec![None; n];
    let mut results = Vec::new();
    let mut pending: Vec<usize> = (0..n).collect();
    for a in args {
        if pending.is_empty() {
            break;
        }
        let sub: Vec<u32> = pending.iter().map(|&i| sel[i]).collect();
        let v = eval(a, batch, &sub, ctx)?;
        let mut still = Vec::new();
        for (k, &i) in pending.iter().enumerate() {
            if v.is_null(k) {
                still.push(i);
            } else {
                source[i] = Some((results.len(), k));
            }
        }
        results.push(v);
        pending = still;
    }
    let mut out = Vector::with_capacity(ty.ty, n);
    for s in source {
        match s {
            Some((b, k)) => out.push_from(&results[b], k),
            None => out.push_null(),
        }
    }
    Ok(out)
}

/// current_setting(name [, missing_ok]): the session's value, as SHOW prints it.
fn current_setting(args: &[Vector], n: usize, ctx: &ExecContext) -> Result<Vector> {
    let mut out = Vector::with_capacity(DataType::Text, n);
    for i in 0..n {
        if args.iter().any(|a| a.is_null(i)) {
            out.push_null();
            continue;
        }
        let Value::Text(name) = args[0].value(i, DataType::Text) else {
            return Err(Error::internal("current_setting name is not text"));
        };
        let missing_ok = args
            .get(1)
            .is_some_and(|a| matches!(a.value(i, DataType::Bool), Value::Bool(true)));
        // A set_config earlier in this statement (the session applies it afterwards).
        let pending = ctx.set_configs.as_ref().and_then(|p| {
            p.lock()
                .iter()
                .rev()
                .find(|(n, _, _)| n.eq_ignore_ascii_case(&name))
                .map(|(_, v, _)| v.clone())
        });
        if let Some(value) = pending {
            out.push_value(&Value::Text(value));
            continue;
        }
        match ctx.settings.get(&name.to_lowercase()) {
            Some((_, value)) => out.push_value(&Value::Text(value.clone())),
            None if missing_ok => out.push_null(),
            None => {
                return Err(Error::undefined_object(format!(
                    "unrecognized configuration parameter \"{name}\""
                )));
            }
        }
    }
    Ok(out)
}

/// json_build_object / json_build_array, row by row: values as PostgreSQL's
/// datum_to_json writes them.
fn json_build(
    object: bool,
    vs: &[Vector],
    types: &[SqlType],
    n: usize,
    fmt: &crate::types::text::TextFormat,
) -> Result<Vector> {
    let mut out = Vector::with_capacity(DataType::Json, n);
    let mut s = String::new();
    for i in 0..n {
        s.clear();
        s.push(if object { '{' } else { '[' });
        for (k, (v, t)) in vs.iter().zip(types).enumerate() {
            if k > 0 {
                s.push_str(if object && k % 2 == 1 { " : " } else { ", " });
            }
            let value = v.value(i, t.ty);
            if object && k % 2 == 0 {
                if value.is_null() {
                    return Err(
                        Error::new("22023", format!("argument {} cannot be null", k + 1))
                            .with_hint("Object keys should be text."),
                    );
                }
                let mut key = Vec::new();
                crate::types::text::write_value(&mut key, &value, fmt);
                crate::types::json::quote(&String::from_utf8_lossy(&key), &mut s);
            } else {
                json_value(&value, t.ty, fmt, &mut s);
            }
        }
        s.push(if object { '}' } else { ']' });
        out.push_value(&Value::Text(s.clone()));
    }
    Ok(out)
}

/// One value as JSON (PostgreSQL's datum_to_json): numbers and booleans bare, json as
/// it is, arrays as JSON arrays, dates and timestamps in ISO 8601, the rest as strings.
pub(crate) fn json_value(
    value: &Value,
    ty: DataType,
    fmt: &crate::types::text::TextFormat,
    s: &mut String,
) {
    let text = |v: &Value| {
        let mut b = Vec::new();
        crate::types::text::write_value(&mut b, v, fmt);
        String::from_utf8_lossy(&b).into_owned()
    };
    match (value, ty) {
        (Value::Null, _) => s.push_str("null"),
        (Value::Bool(b), _) => s.push_str(if *b { "true" } else { "false" }),
        (Value::Text(t), DataType::Json) => s.push_str(t),
        (Value::Jsonb(b), _) => s.push_str(&crate::types::jsonb::to_text(b)),
        (Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Numeric(_), _) => {
            s.push_str(&text(value))
        }
        (Value::Float4(_) | Value::Float8(_), _) => {
            let t = text(value);
            if t.parse::<f64>().is_ok_and(f64::is_finite) {
                s.push_str(&t);
            } else {
                crate::types::json::quote(&t, s);
            }
        }
        (Value::Array(a), DataType::Array(elem)) => {
            let view = crate::types::array::View::new(&a.bytes, *elem);
            let dims: Vec<usize> = view.dims().iter().map(|d| d.len.max(0) as usize).collect();
            let values = view.values();
            json_array_dims(&values, &dims, *elem, fmt, s);
        }
        (Value::Record(r), _) => json_record(r, None, fmt, s),
        (Value::Timestamp(_), _) => {
            crate::types::json::quote(&text(value).replacen(' ', "T", 1), s);
        }
        (Value::Timestamptz(_), _) => {
            let mut t = text(value).replacen(' ', "T", 1);
            // The offset as ISO 8601 writes it: +00 becomes +00:00.
            let sign = t.rfind(['+', '-']).filter(|&p| p > 10);
            if let Some(p) = sign
                && t.len() - p == 3
            {
                t.push_str(":00");
            }
            crate::types::json::quote(&t, s);
        }
        _ => crate::types::json::quote(&text(value), s),
    }
}

/// An array's elements as nested json arrays, one level per dimension (PostgreSQL's
/// array_to_json).
fn json_array_dims(
    values: &[Value],
    dims: &[usize],
    elem: DataType,
    fmt: &crate::types::text::TextFormat,
    s: &mut String,
) {
    let Some((&outer, inner)) = dims.split_first() else {
        s.push_str("[]");
        return;
    };
    let step: usize = inner.iter().product();
    s.push('[');
    for k in 0..outer {
        if k > 0 {
            s.push(',');
        }
        if inner.is_empty() {
            json_value(values.get(k).unwrap_or(&Value::Null), elem, fmt, s);
        } else {
            let part = values.get(k * step..(k + 1) * step).unwrap_or(&[]);
            json_array_dims(part, inner, elem, fmt, s);
        }
    }
    s.push(']');
}

/// A record as a json object: fields named by `names` (a blessed record type's), else
/// f1, f2 … as PostgreSQL names an anonymous record's.
pub(crate) fn json_record(
    bytes: &[u8],
    names: Option<&[(&str, DataType)]>,
    fmt: &crate::types::text::TextFormat,
    s: &mut String,
) {
    s.push('{');
    for (k, (t, v)) in crate::types::record::values(bytes).into_iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        match names.and_then(|n| n.get(k)) {
            Some((name, _)) => crate::types::json::quote(name, s),
            None => crate::types::json::quote(&format!("f{}", k + 1), s),
        }
        s.push(':');
        json_value(&v, t, fmt, s);
    }
    s.push('}');
}

/// set_config(name, value, is_local): the parameter must exist; the session applies
/// the change when the statement has run (as SET; `is_local` as SET LOCAL). Returns the
/// value.
fn set_config(args: &[Vector], n: usize, ctx: &ExecContext) -> Result<Vector> {
    let mut out = Vector::with_capacity(DataType::Text, n);
    for i in 0..n {
        let Value::Text(name) = args[0].value(i, DataType::Text) else {
            return Err(Error::new("22023", "SET requires parameter name"));
        };
        let value = match args[1].value(i, DataType::Text) {
            Value::Text(v) => v,
            _ => String::new(),
        };
        // A custom (dotted) parameter comes into being when it is first set.
        if !name.contains('.') && !ctx.settings.contains_key(&name.to_lowercase()) {
            return Err(Error::undefined_object(format!(
                "unrecognized configuration parameter \"{name}\""
            )));
        }
        // The value is checked now, as SET would check it (the session applies it when
        // the statement has run).
        crate::session::settings::Settings::new(&ctx.user).set(&name, Some(&value))?;
        let local = args
            .get(2)
            .is_some_and(|a| matches!(a.value(i, DataType::Bool), Value::Bool(true)));
        if let Some(pending) = &ctx.set_configs {
            pending.lock().push((name, value.clone(), local));
        }
        out.push_value(&Value::Text(value));
    }
    Ok(out)
}

/// In the durable mode, a sequence's new state goes to the redo log.
fn log_sequence(
    ctx: &ExecContext,
    entry: &crate::catalog::TableEntry,
    seq: &crate::catalog::sequence::Sequence,
    exact: bool,
) {
    if let Some(db) = ctx.db.as_ref()
        && let Some(durable) = db.durable.get()
        && !entry.is_temp()
    {
        durable.sequence(&db.catalog.durable_name(entry), seq, exact);
    }
}

/// The sequence named by `name` (regclass input rules) in the statement's snapshot.
fn find_sequence(
    access: &super::context::SequenceAccess,
    name: &str,
    ctx: &ExecContext,
) -> Result<(
    std::sync::Arc<crate::catalog::TableEntry>,
    std::sync::Arc<crate::catalog::sequence::Sequence>,
)> {
    let (schema, rel) = crate::catalog::sequence::parse_relation_name(name)?;
    let entry = access
        .catalog
        .resolve_name(schema.as_deref(), &rel, &ctx.search_path, &ctx.snapshot)?
        .ok_or_else(|| Error::undefined_table(name))?;
    match entry.sequence.clone() {
        Some(seq) => Ok((entry, seq)),
        None => Err(Error::new("42809", format!("\"{rel}\" is not a sequence"))),
    }
}

/// The sequence functions' privilege check: one of `any` on sequence `entry`
/// (`checked` remembers the last sequence that passed, so a batch checks once).
fn may_use_sequence(
    ctx: &ExecContext,
    entry: &crate::catalog::TableEntry,
    any: crate::catalog::acl::Privs,
    checked: &mut Option<u32>,
) -> Result<()> {
    use crate::session::privileges::{denied, relation_privs};
    if *checked == Some(entry.oid) {
        return Ok(());
    }
    if let Some(db) = &ctx.db
        && relation_privs(db, ctx.role, entry, any).is_empty()
    {
        return Err(denied(entry));
    }
    *checked = Some(entry.oid);
    Ok(())
}

/// nextval, currval, setval and lastval, row by row (each nextval call is one step).
/// `by_oid`: the first argument is a regclass constant (a SERIAL or identity column's
/// default), not a name.
/// `last_value` or `is_called` of the sequence whose oid `args[0]` holds: a row of
/// `SELECT … FROM seq`, read as the statement runs.
fn sequence_state(func: Func, args: &[Vector], n: usize, ctx: &ExecContext) -> Result<Vector> {
    let Some(access) = &ctx.sequences else {
        return Err(Error::internal("sequence read outside a session"));
    };
    let called = func == Func::SequenceIsCalled;
    let mut out = Vector::with_capacity(
        if called {
            DataType::Bool
        } else {
            DataType::Int8
        },
        n,
    );
    for i in 0..n {
        let Value::Int8(oid) = args[0].value(i, DataType::Int8) else {
            out.push_null();
            continue;
        };
        let entry = access
            .catalog
            .by_oid(oid as u32, &ctx.snapshot)
            .ok_or_else(|| Error::undefined_table(&oid.to_string()))?;
        let Some(seq) = &entry.sequence else {
            return Err(Error::internal("not a sequence"));
        };
        let (last, is_called) = seq.state();
        out.push_value(&if called {
            Value::Bool(is_called)
        } else {
            Value::Int8(last)
        });
    }
    Ok(out)
}

fn sequence_call(
    func: Func,
    args: &[Vector],
    by_oid: bool,
    n: usize,
    ctx: &ExecContext,
) -> Result<Vector> {
    use crate::catalog::acl::Privs;
    let Some(access) = &ctx.sequences else {
        return Err(Error::internal("sequence function outside a session"));
    };
    let mut checked = None;
    type Found = (
        i64,
        std::sync::Arc<crate::catalog::TableEntry>,
        std::sync::Arc<crate::catalog::sequence::Sequence>,
    );
    let mut found: Option<Found> = None;
    let mut out = Vector::with_capacity(DataType::Int8, n);
    for i in 0..n {
        if func != Func::LastVal && args.iter().any(|a| a.is_null(i)) {
            out.push_null();
            continue;
        }
        let name = || match args[0].value(i, DataType::Text) {
            Value::Text(t) => Ok(t),
            _ => Err(Error::internal("sequence name is not text")),
        };
        let value = match func {
            Func::NextVal if by_oid => {
                let Value::Int8(oid) = args[0].value(i, DataType::Int8) else {
                    return Err(Error::internal("sequence oid is not bigint"));
                };
                // Looked up once per batch (a column default's oid is one constant).
                let (entry, seq) = match &found {
                    Some((o, e, s)) if *o == oid => (e.clone(), s.clone()),
                    _ => {
                        let entry = access
                            .catalog
                            .by_oid(oid as u32, &ctx.snapshot)
                            .ok_or_else(|| Error::undefined_table(&oid.to_string()))?;
                        let Some(seq) = entry.sequence.clone() else {
                            return Err(Error::new(
                                "42809",
                                format!("\"{}\" is not a sequence", entry.name),
                            ));
                        };
                        found = Some((oid, entry.clone(), seq.clone()));
                        (entry, seq)
                    }
                };
                if args.len() == 1 {
                    may_use_sequence(ctx, &entry, Privs::USAGE | Privs::UPDATE, &mut checked)?;
                }
                let v = seq.nextval(&entry.name)?;
                log_sequence(ctx, &entry, &seq, false);
                let mut session = access.session.lock();
                session.current.insert(entry.oid, v);
                session.last = Some((entry.oid, entry.name.clone(), v));
                v
            }
            Func::NextVal => {
                let (entry, seq) = find_sequence(access, &name()?, ctx)?;
                // An identity column's default (a second argument) needs no privilege.
                if args.len() == 1 {
                    may_use_sequence(ctx, &entry, Privs::USAGE | Privs::UPDATE, &mut checked)?;
                }
                let v = seq.nextval(&entry.name)?;
                log_sequence(ctx, &entry, &seq, false);
                let mut session = access.session.lock();
                session.current.insert(entry.oid, v);
                session.last = Some((entry.oid, entry.name.clone(), v));
                v
            }
            Func::CurrVal => {
                let (entry, _) = find_sequence(access, &name()?, ctx)?;
                may_use_sequence(ctx, &entry, Privs::SELECT | Privs::USAGE, &mut checked)?;
                let current = access.session.lock().current.get(&entry.oid).copied();
                current.ok_or_else(|| {
                    Error::new(
                        "55000",
                        format!(
                            "currval of sequence \"{}\" is not yet defined in this session",
                            entry.name
                        ),
                    )
                })?
            }
            Func::SetVal => {
                let (entry, seq) = find_sequence(access, &name()?, ctx)?;
                may_use_sequence(ctx, &entry, Privs::UPDATE, &mut checked)?;
                let Value::Int8(v) = args[1].value(i, DataType::Int8) else {
                    return Err(Error::internal("setval value is not bigint"));
                };
                let called = args
                    .get(2)
                    .is_none_or(|a| matches!(a.value(i, DataType::Bool), Value::Bool(true)));
                let v = seq.setval(&entry.name, v, called)?;
                log_sequence(ctx, &entry, &seq, true);
                if called {
                    access.session.lock().current.insert(entry.oid, v);
                }
                v
            }
            _ => {
                let last = access.session.lock().last.clone();
                let Some((oid, name, v)) = last else {
                    return Err(Error::new(
                        "55000",
                        "lastval is not yet defined in this session",
                    ));
                };
                // The sequence must still exist (PostgreSQL: 55000 if it was dropped).
                let _ = name;
                let entry = access.catalog.by_oid(oid, &ctx.snapshot);
                let Some(entry) = entry else {
                    return Err(Error::new(
                        "55000",
                        "lastval is not yet defined in this session",
                    ));
                };
                may_use_sequence(ctx, &entry, Privs::SELECT | Privs::USAGE, &mut checked)?;
                v
            }
        };
        out.push_value(&Value::Int8(value));
    }
    Ok(out)
}

/// pg_get_serial_sequence(table, column): the sequence a SERIAL or identity column
/// draws from, schema-qualified, or NULL.
fn serial_sequence(args: &[Vector], n: usize, ctx: &ExecContext) -> Result<Vector> {
    let Some(access) = &ctx.sequences else {
        return Err(Error::internal("sequence function outside a session"));
    };
    let mut out = Vector::with_capacity(DataType::Text, n);
    for i in 0..n {
        if args.iter().any(|a| a.is_null(i)) {
            out.push_null();
            continue;
        }
        let (Value::Text(table), Value::Text(column)) = (
            args[0].value(i, DataType::Text),
            args[1].value(i, DataType::Text),
        ) else {
            return Err(Error::internal(
                "pg_get_serial_sequence arguments are not text",
            ));
        };
        let (schema, name) = crate::catalog::sequence::parse_relation_name(&table)?;
        let entry = access
            .catalog
            .resolve_name(schema.as_deref(), &name, &ctx.search_path, &ctx.snapshot)?
            .ok_or_else(|| Error::undefined_table(&table))?;
        // The column name is taken as written (PostgreSQL does not fold it).
        if entry.column_index(&column).is_none() {
            return Err(Error::new(
                "42703",
                format!("column \"{column}\" of relation \"{table}\" does not exist"),
            ));
        }
        let owned = access
            .catalog
            .owned_sequences(entry.oid, &ctx.snapshot)
            .into_iter()
            .find(|s| s.owned_by.as_ref().is_some_and(|(_, c)| *c == column));
        match owned {
            Some(s) => out.push_value(&Value::Text(access.catalog.qualified_name(
                &s,
                &ctx.snapshot,
                ctx.search_path.temp,
            ))),
            None => out.push_null(),
        }
    }
    Ok(out)
}

/// The advisory lock functions, row by row. `void` results are empty text.
/// pg_backend_pid, and signalling other sessions (`Backends::signal`); a process id
/// that is no session gets false.
fn backend_call(func: Func, args: &[Vector], n: usize, ctx: &ExecContext) -> Result<Vector> {
    let Some((pid, backends, superuser)) = &ctx.backends else {
        return Err(Error::feature_not_supported("this function here"));
    };
    if func == Func::BackendPid {
        return Ok(Vector::repeat(&Value::Int4(*pid), DataType::Int4, n));
    }
    let mut out = Vector::with_capacity(DataType::Bool, n);
    for i in 0..n {
        let Some(Value::Int4(target)) = args.first().map(|a| a.value(i, DataType::Int4)) else {
            out.push_null();
            continue;
        };
        // (PostgreSQL also warns "PID n is not a PostgreSQL server process".)
        let signalled = backends.signal(
            target,
            &ctx.user,
            *superuser,
            func == Func::TerminateBackend,
        )?;
        out.push_value(&Value::Bool(signalled));
    }
    Ok(out)
}

fn advisory_call(func: Func, args: &[Vector], n: usize, ctx: &ExecContext) -> Result<Vector> {
    use crate::storage::advisory::Request;
    let Some((locks, owner)) = &ctx.advisory else {
        return Err(Error::internal("advisory lock outside a session"));
    };
    let owner = *owner;
    let returns_bool = !matches!(
        func,
        Func::AdvisoryLock
            | Func::AdvisoryLockShared
            | Func::AdvisoryXactLock
            | Func::AdvisoryXactLockShared
            | Func::AdvisoryUnlockAll
    );
    let mut out = Vector::with_capacity(
        if returns_bool {
            DataType::Bool
        } else {
            DataType::Text
        },
        n,
    );
    for i in 0..n {
        if func == Func::AdvisoryUnlockAll {
            locks.release(owner, true);
            out.push_value(&Value::Text(String::new()));
            continue;
        }
        if args.iter().any(|a| a.is_null(i)) {
            out.push_null();
            continue;
        }
        let key = match (args.first(), args.get(1)) {
            (Some(a), None) => match a.value(i, DataType::Int8) {
                Value::Int8(k) => k,
                _ => return Err(Error::internal("advisory key is not bigint")),
            },
            (Some(a), Some(b)) => match (a.value(i, DataType::Int8), b.value(i, DataType::Int4)) {
                (Value::Int8(hi), Value::Int4(lo)) => (hi << 32) | (lo as u32 as i64),
                _ => return Err(Error::internal("advisory keys are not integers")),
            },
            _ => return Err(Error::internal("advisory lock without a key")),
        };
        let shared = matches!(
            func,
            Func::AdvisoryLockShared
                | Func::AdvisoryXactLockShared
                | Func::TryAdvisoryLockShared
                | Func::TryAdvisoryXactLockShared
                | Func::AdvisoryUnlockShared
        );
        let xact = matches!(
            func,
            Func::AdvisoryXactLock
                | Func::AdvisoryXactLockShared
                | Func::TryAdvisoryXactLock
                | Func::TryAdvisoryXactLockShared
        );
        let r = Request {
            key,
            owner,
            shared,
            xact,
        };
        match func {
            Func::AdvisoryLock
            | Func::AdvisoryLockShared
            | Func::AdvisoryXactLock
            | Func::AdvisoryXactLockShared => {
                let lock_timeout = ctx.locker.as_ref().and_then(|l| l.lock_timeout);
                locks.lock(r, lock_timeout, &|| ctx.check_interrupt())?;
                out.push_value(&Value::Text(String::new()));
            }
            Func::AdvisoryUnlock | Func::AdvisoryUnlockShared => {
                out.push_value(&Value::Bool(locks.unlock(key, owner, shared)));
            }
            _ => out.push_value(&Value::Bool(locks.try_lock(r))),
        }
    }
    Ok(out)
}

/// PostgreSQL's chr() in a UTF-8 database: the code point as UTF-8, refusing negative
/// numbers, 0, surrogates and values past U+10FFFF.
fn chr(code: i32, buf: &mut [u8; 4]) -> Result<&[u8]> {
    if code < 0 {
        return Err(Error::new("22023", "character number must be positive"));
    }
    let value = code as u32;
    if value == 0 {
        return Err(Error::new("54000", "null character not permitted"));
    }
    if value > 0x10_ffff {
        return Err(Error::new(
            "54000",
            format!("requested character too large for encoding: {value}"),
        ));
    }
    let c = char::from_u32(value).ok_or_else(|| {
        Error::new(
            "54000",
            format!("requested character not valid for encoding: {value}"),
        )
    })?;
    Ok(c.encode_utf8(buf).as_bytes())
}

/// UPDATE's `a[i] = v` / `a[lo:hi] = src` on one row (row: [a, v, i] or [a, src, lo,
/// hi]), as PostgreSQL's array_set_element / array_set_slice do for one dimension: a
/// NULL or empty array becomes one starting at the subscript; past either end the
/// array grows, NULLs filling the gap.
fn array_assign(ty: DataType, row: &[Value], slice: bool) -> Result<Value> {
    use crate::types::array::{self, Builder, Dim, View};
    let Some(elem) = ty.elem() else {
        return Err(Error::internal("an array assignment to a non-array"));
    };
    let subscript = |v: &Value| -> Result<Option<i64>> {
        match v {
            Value::Null => Ok(None),
            other => Ok(other.as_i64()),
        }
    };
    // The current elements and their first subscript.
    let (mut values, mut lbound) = match &row[0] {
        Value::Array(a) => {
            let view = View::new(&a.bytes, a.elem);
            let dims = view.dims();
            match dims.as_slice() {
                [] => (Vec::new(), None),
                [d] => (view.values(), Some(d.lbound as i64)),
                _ => {
                    return Err(Error::feature_not_supported(
                        "assigning to a subscript of a multidimensional array",
                    ));
                }
            }
        }
        _ => (Vec::new(), None),
    };
    let too_small = || Error::new("2202E", "source array too small");
    let (lo, hi, source): (i64, i64, Vec<Value>) = if slice {
        let src = match &row[1] {
            Value::Array(a) => View::new(&a.bytes, a.elem).values(),
            Value::Null => return Ok(row[0].clone()),
            _ => Vec::new(),
        };
        let current_hi = lbound.map(|l| l + values.len() as i64 - 1);
        let lo = match subscript(&row[2])? {
            Some(x) => x,
            None => lbound.ok_or_else(|| {
                Error::new(
                    "2202E",
                    "array slice subscript must provide both boundaries",
                )
            })?,
        };
        let hi = match subscript(&row[3])? {
            Some(x) => x,
            None => current_hi.ok_or_else(|| {
                Error::new(
                    "2202E",
                    "array slice subscript must provide both boundaries",
                )
            })?,
        };
        if hi < lo {
            return Err(Error::new(
                "2202E",
                "upper bound cannot be less than lower bound",
            ));
        }
        let need = (hi - lo + 1) as usize;
        if src.len() < need {
            return Err(too_small());
        }
        (lo, hi, src.into_iter().take(need).collect())
    } else {
        let Some(i) = subscript(&row[2])? else {
            return Err(Error::new(
                "22004",
                "array subscript in assignment must not be null",
            ));
        };
        (i, i, vec![row[1].clone()])
    };
    let limit = |x: i64| {
        i32::try_from(x).map_err(|_| {
            Error::new(
                "54000",
                "array size exceeds the maximum allowed (134217727)",
            )
        })
    };
    limit(lo)?;
    limit(hi)?;
    let l = match lbound {
        Some(l) => l,
        None => {
            lbound = Some(lo);
            lo
        }
    };
    // Grow toward the new subscripts with NULLs.
    if lo < l {
        let grow = (l - lo) as usize;
        if grow > 134_217_727 {
            return Err(Error::new(
                "54000",
                "array size exceeds the maximum allowed (134217727)",
            ));
        }
        let mut grown = vec![Value::Null; grow];
        grown.extend(values);
        values = grown;
        lbound = Some(lo);
    }
    let first = lbound.unwrap_or(lo);
    let end = (hi - first + 1) as usize;
    if end > 134_217_727 {
        return Err(Error::new(
            "54000",
            "array size exceeds the maximum allowed (134217727)",
        ));
    }
    if values.len() < end {
        values.resize(end, Value::Null);
    }
    for (k, v) in source.into_iter().enumerate() {
        values[(lo - first) as usize + k] = v;
    }
    let mut bytes = Vec::new();
    let mut b = Builder::new(
        &mut bytes,
        &[Dim {
            len: values.len() as i32,
            lbound: limit(first)?,
        }],
    );
    for v in &values {
        b.push(v);
    }
    Ok(Value::Array(Box::new(array::Array { elem, bytes })))
}

/// make_interval as PostgreSQL 15's does it: months from years and months, days from
/// weeks and days (32-bit arithmetic that wraps, as its does), microseconds from hours
/// and minutes plus the seconds' microseconds truncated; 22008 for NaN / infinite
/// seconds.
fn make_interval(f: [i32; 6], secs: f64) -> Result<Value> {
    let [years, months, weeks, days, hours, mins] = f;
    if !secs.is_finite() {
        return Err(Error::new("22008", "interval out of range"));
    }
    let micros = (hours as i64)
        .wrapping_mul(3_600_000_000)
        .wrapping_add((mins as i64).wrapping_mul(60_000_000))
        .wrapping_add((secs * 1e6) as i64);
    Ok(Value::Interval(crate::types::datetime::Interval {
        months: years.wrapping_mul(12).wrapping_add(months),
        days: weeks.wrapping_mul(7).wrapping_add(days),
        micros,
    }))
}

/// like_escape: `pattern` with `escape` as its escape character (empty: none) as a
/// pattern escaped by backslashes; 22025 for a longer escape or a pattern ending in it.
fn like_escape(pattern: &str, escape: &str) -> Result<String> {
    let mut chars = escape.chars();
    let esc = match (chars.next(), chars.next()) {
        (None, _) => None,
        (Some(c), None) => Some(c),
        _ => {
            return Err(Error::new("22025", "invalid escape string")
                .with_hint("Escape string must be empty or one character."));
        }
    };
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut it = pattern.chars();
    while let Some(c) = it.next() {
        if Some(c) == esc {
            // A trailing escape stays a trailing backslash, as PostgreSQL's does.
            out.push('\\');
            if let Some(next) = it.next() {
                out.push(next);
            }
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// int4range(lower, upper [, bounds]) and its kin: a NULL bound is infinite.
fn range_construct(kind: crate::types::range::RangeKind, row: &[Value]) -> Result<Value> {
    use crate::types::range::{self, Bound};
    let (lower_inc, upper_inc) = match row.get(2) {
        None => (true, false),
        Some(Value::Text(s)) => range::bounds_spec(s)?,
        Some(_) => {
            return Err(Error::new(
                "22000",
                "range constructor flags argument must not be null",
            ));
        }
    };
    let bound = |v: &Value, inclusive: bool, lower: bool| Bound {
        value: (!v.is_null()).then(|| v.clone()),
        inclusive,
        lower,
    };
    let r = range::make(
        kind,
        bound(&row[0], lower_inc, true),
        bound(&row[1], upper_inc, false),
        false,
    )?;
    Ok(Value::Raw(DataType::Range(kind), range::encode(&r)))
}

/// One row of a range operator or function over non-NULL arguments.
fn range_row(
    f: crate::sql::expr::RangeFn,
    kind: crate::types::range::RangeKind,
    row: &[Value],
) -> Result<Value> {
    use crate::sql::expr::RangeFn as F;
    use crate::types::range;
    let get = |v: &Value| match v {
        Value::Raw(DataType::Range(_), b) => range::decode(kind, b),
        _ => range::Range::empty(),
    };
    let out = |r: range::Range| Value::Raw(DataType::Range(kind), range::encode(&r));
    let r = get(&row[0]);
    Ok(match f {
        F::Construct => return Err(Error::internal("range constructor as a row function")),
        F::Lower | F::Upper => {
            let b = if f == F::Lower { &r.lower } else { &r.upper };
            match (&b.value, r.empty) {
                (Some(v), false) => v.clone(),
                _ => Value::Null,
            }
        }
        F::IsEmpty => Value::Bool(r.empty),
        F::LowerInc => Value::Bool(!r.empty && r.lower.inclusive),
        F::UpperInc => Value::Bool(!r.empty && r.upper.inclusive),
        F::LowerInf => Value::Bool(!r.empty && r.lower.value.is_none()),
        F::UpperInf => Value::Bool(!r.empty && r.upper.value.is_none()),
        F::ContainsElem => Value::Bool(range::contains_elem(&r, &row[1])),
        _ => {
            let r2 = get(&row[1]);
            match f {
                F::Merge => out(range::union(kind, &r, &r2, false)?),
                F::Contains => Value::Bool(range::contains(&r, &r2)),
                F::Overlaps => Value::Bool(range::overlaps(&r, &r2)),
                F::Before => Value::Bool(range::before(&r, &r2)),
                F::OverLeft => Value::Bool(range::over_left(&r, &r2)),
                F::OverRight => Value::Bool(range::over_right(&r, &r2)),
                F::Adjacent => Value::Bool(range::adjacent(kind, &r, &r2)),
                F::Union => out(range::union(kind, &r, &r2, true)?),
                F::Intersection => out(range::intersection(kind, &r, &r2)?),
                F::Equal => Value::Bool(
                    r.empty == r2.empty
                        && (r.empty
                            || range::cmp_bounds(&r.lower, &r2.lower).is_eq()
                                && range::cmp_bounds(&r.upper, &r2.upper).is_eq()),
                ),
                _ => out(range::difference(kind, &r, &r2)?),
            }
        }
    })
}

/// A user-defined type's name as messages show it: qualified with its schema when
/// the search path would not find it.
pub fn shown_type_name(ctx: &ExecContext, t: &crate::catalog::types::UserType) -> String {
    let Some(db) = ctx.db.as_ref() else {
        return t.name.clone();
    };
    let found = ctx
        .search_path
        .search
        .iter()
        .find_map(|&ns| db.catalog.user_type_named(ns, &t.name, &ctx.snapshot));
    match found {
        Some(f) if f.oid == t.oid => t.name.clone(),
        _ => match db.catalog.namespace_by_oid(t.namespace, &ctx.snapshot) {
            Some(ns) => format!("{}.{}", ns.name, t.name),
            None => t.name.clone(),
        },
    }
}

/// A domain's NOT NULL (23502) and CHECK constraints (23514) over `n` values: `chain`
/// is the domain and those it is over, outermost first (the innermost's constraints
/// are checked first; errors name the outermost, `name`).
pub fn check_domain(
    name: &str,
    chain: &[std::sync::Arc<crate::catalog::types::DomainDef>],
    v: &Vector,
    n: usize,
    ctx: &ExecContext,
) -> Result<()> {
    if chain.iter().any(|d| d.not_null) && (0..n).any(|i| v.is_null(i)) {
        return Err(Error::new(
            "23502",
            format!("domain {name} does not allow null values"),
        ));
    }
    if chain.iter().all(|d| d.checks.is_empty()) || n == 0 {
        return Ok(());
    }
    let batch = Batch::new(vec![v.clone()], n);
    let sel: Vec<u32> = (0..n as u32).collect();
    for check in chain.iter().rev().flat_map(|d| &d.checks) {
        let ok = super::expr::eval(&check.expr, &batch, &sel, ctx)?;
        let failed = match &ok.data {
            crate::exec::vector::Data::Bool(values) => {
                (0..n).any(|i| values.get(i) == Some(&false) && !ok.is_null(i))
            }
            _ => false,
        };
        if failed {
            return Err(Error::new(
                "23514",
                format!(
                    "value for domain {name} violates check constraint \"{}\"",
                    check.name
                ),
            ));
        }
    }
    Ok(())
}

/// The enum type `oid` as the statement's snapshot sees it.
fn enum_type(
    ctx: &ExecContext,
    oid: u32,
) -> Result<std::sync::Arc<crate::catalog::types::UserType>> {
    ctx.db
        .as_ref()
        .and_then(|db| db.catalog.user_type(oid, &ctx.snapshot))
        .ok_or_else(|| Error::new("42704", format!("type with OID {oid} does not exist")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substr_follows_postgres_bounds() {
        assert_eq!(substr("hello", 2, Some(3)).unwrap(), "ell");
        assert_eq!(substr("hello", 0, Some(3)).unwrap(), "he");
        assert_eq!(substr("hello", -1, Some(3)).unwrap(), "h");
        assert_eq!(substr("hello", 4, None).unwrap(), "lo");
        assert_eq!(substr("hello", 9, None).unwrap(), "");
        assert!(substr("hello", 1, Some(-1)).is_err());
    }
}
