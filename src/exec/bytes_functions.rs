//! Kernels for uuid and bytea functions: gen_random_uuid, and bytea's own
//! (`types::bytes` holds their text forms). Row at a time over `Value`s: none is on
//! a benchmark's hot path.

use base64::Engine;
use md5::Digest;

use super::context::ExecContext;
use super::vector::{Data, TextVec, Vector};
use crate::error::{Error, Result};
use crate::sql::expr::Func;
use crate::types::{DataType, Value};

/// Evaluates a uuid or bytea function over `n` rows of argument vectors `args`.
pub fn eval(func: Func, args: &[Vector], n: usize, ctx: &ExecContext) -> Result<Vector> {
    if func == Func::GenRandomUuid {
        return gen_random_uuids(n);
    }
    let types = arg_types(func, args.len());
    let result = result_type(func);
    let mut out = Vector::with_capacity(result, n);
    let mut row: Vec<Value> = Vec::with_capacity(args.len());
    for i in 0..n {
        row.clear();
        row.extend(args.iter().zip(&types).map(|(a, &t)| a.value(i, t)));
        // Every one of them is strict.
        if row.iter().any(Value::is_null) {
            out.push_null();
            continue;
        }
        let v = eval_row(func, &row, ctx)?;
        out.push_value(&v);
    }
    Ok(out)
}

/// The types the binder gave `func`'s arguments (`binder::functions`).
fn arg_types(func: Func, n: usize) -> Vec<DataType> {
    use DataType as D;
    let first = match func {
        Func::Decode | Func::ConvertTo | Func::Overlay(false) => D::Text,
        _ => D::Bytea,
    };
    let rest: &[DataType] = match func {
        Func::Overlay(false) => &[D::Text, D::Int4, D::Int4],
        Func::Overlay(true) => &[D::Bytea, D::Int4, D::Int4],
        Func::ByteaSubstr => &[D::Int4, D::Int4],
        Func::ByteaPosition | Func::ByteaTrim(_) | Func::BytesCmp => &[D::Bytea],
        Func::GetByte => &[D::Int4],
        Func::SetByte => &[D::Int4, D::Int4],
        Func::GetBit => &[D::Int8],
        Func::SetBit => &[D::Int8, D::Int4],
        _ => &[D::Text],
    };
    (0..n)
        .map(|k| {
            if k == 0 {
                first
            } else {
                rest.get(k - 1).copied().unwrap_or(D::Text)
            }
        })
        .collect()
}

fn result_type(func: Func) -> DataType {
    match func {
        Func::BytesCmp
        | Func::ByteaLength
        | Func::ByteaEncodedLength
        | Func::ByteaBitLength
        | Func::ByteaPosition
        | Func::GetByte
        | Func::GetBit => DataType::Int4,
        Func::Encode | Func::ConvertFrom | Func::ByteaMd5 | Func::Overlay(false) => DataType::Text,
        _ => DataType::Bytea,
    }
}

fn eval_row(func: Func, row: &[Value], _ctx: &ExecContext) -> Result<Value> {
    let bytes = |v: &Value| -> Result<Vec<u8>> {
        match v {
            Value::Bytes(b) => Ok(b.clone()),
            _ => Err(Error::internal("bytea function expected bytea")),
        }
    };
    let text = |v: &Value| -> Result<String> {
        match v {
            Value::Text(s) => Ok(s.clone()),
            _ => Err(Error::internal("bytea function expected text")),
        }
    };
    let int = |v: &Value| -> Result<i64> {
        v.as_i64()
            .ok_or_else(|| Error::internal("bytea function expected an integer"))
    };
    Ok(match (func, row) {
        (Func::ByteaLength, [b]) => Value::Int4(bytes(b)?.len() as i32),
        (Func::BytesCmp, [a, b]) => {
            let raw = |v: &Value| match v {
                Value::Bytes(b) => b.clone(),
                Value::Uuid(u) => u.to_vec(),
                _ => Vec::new(),
            };
            Value::Int4(match raw(a).cmp(&raw(b)) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            })
        }
        (Func::ByteaEncodedLength, [b, encoding]) => {
            Value::Int4(convert_from(&bytes(b)?, &text(encoding)?)?.chars().count() as i32)
        }
        (Func::ByteaBitLength, [b]) => Value::Int4((bytes(b)?.len() * 8) as i32),
        (Func::ByteaSubstr, [b, start, rest @ ..]) => {
            let b = bytes(b)?;
            let len = match rest.first() {
                Some(l) => Some(int(l)?),
                None => None,
            };
            Value::Bytes(substr(&b, int(start)?, len)?.to_vec())
        }
        (Func::ByteaPosition, [hay, needle]) => {
            let (hay, needle) = (bytes(hay)?, bytes(needle)?);
            let at = if needle.is_empty() {
                1
            } else {
                hay.windows(needle.len())
                    .position(|w| w == needle.as_slice())
                    .map_or(0, |p| p + 1)
            };
            Value::Int4(at as i32)
        }
        (Func::GetByte, [b, k]) => {
            let b = bytes(b)?;
            let k = int(k)?;
            let at = index_in(k, b.len() as i64)?;
            Value::Int4(b[at] as i32)
        }
        (Func::SetByte, [b, k, v]) => {
            let mut b = bytes(b)?;
            let at = index_in(int(k)?, b.len() as i64)?;
            b[at] = int(v)? as u8;
            Value::Bytes(b)
        }
        (Func::GetBit, [b, k]) => {
            let b = bytes(b)?;
            let at = index_in(int(k)?, b.len() as i64 * 8)?;
            Value::Int4(((b[at / 8] >> (at % 8)) & 1) as i32)
        }
        (Func::SetBit, [b, k, v]) => {
            let mut b = bytes(b)?;
            let at = index_in(int(k)?, b.len() as i64 * 8)?;
            match int(v)? {
                0 => b[at / 8] &= !(1 << (at % 8)),
                1 => b[at / 8] |= 1 << (at % 8),
                _ => return Err(Error::new("22023", "new bit must be 0 or 1")),
            }
            Value::Bytes(b)
        }
        (Func::Encode, [b, format]) => Value::Text(encode(&bytes(b)?, &text(format)?)?),
        (Func::Decode, [t, format]) => Value::Bytes(decode(&text(t)?, &text(format)?)?),
        (Func::ConvertTo, [t, encoding]) => Value::Bytes(convert_to(&text(t)?, &text(encoding)?)?),
        (Func::Convert, [b, from, to]) => {
            let t = convert_from(&bytes(b)?, &text(from)?)?;
            Value::Bytes(convert_to(&t, &text(to)?)?)
        }
        (Func::ConvertFrom, [b, encoding]) => {
            Value::Text(convert_from(&bytes(b)?, &text(encoding)?)?)
        }
        (Func::ByteaMd5, [b]) => {
            let digest = md5::Md5::digest(bytes(b)?);
            Value::Text(digest.iter().map(|x| format!("{x:02x}")).collect())
        }
        (Func::Sha224, [b]) => {
            Value::Bytes(<sha2::Sha224 as sha2::Digest>::digest(bytes(b)?).to_vec())
        }
        (Func::Sha256, [b]) => {
            Value::Bytes(<sha2::Sha256 as sha2::Digest>::digest(bytes(b)?).to_vec())
        }
        (Func::Sha384, [b]) => {
            Value::Bytes(<sha2::Sha384 as sha2::Digest>::digest(bytes(b)?).to_vec())
        }
        (Func::Sha512, [b]) => {
            Value::Bytes(<sha2::Sha512 as sha2::Digest>::digest(bytes(b)?).to_vec())
        }
        (Func::Overlay(true), [b, p, from, rest @ ..]) => {
            let (b, p) = (bytes(b)?, bytes(p)?);
            let len = match rest.first() {
                Some(l) => int(l)?,
                None => p.len() as i64,
            };
            let from = int(from)?;
            let mut out = substr(&b, 1, Some(from.saturating_sub(1)))?.to_vec();
            out.extend_from_slice(&p);
            out.extend_from_slice(substr(&b, from.saturating_add(len), None)?);
            Value::Bytes(out)
        }
        (Func::Overlay(false), [s, p, from, rest @ ..]) => {
            let s: Vec<char> = text(s)?.chars().collect();
            let p = text(p)?;
            let len = match rest.first() {
                Some(l) => int(l)?,
                None => p.chars().count() as i64,
            };
            let from = int(from)?;
            let mut out: String = substr(&s, 1, Some(from.saturating_sub(1)))?
                .iter()
                .collect();
            out.push_str(&p);
            out.extend(substr(&s, from.saturating_add(len), None)?);
            Value::Text(out)
        }
        (Func::ByteaTrim(side), [b, set]) => {
            let (b, set) = (bytes(b)?, bytes(set)?);
            let mut start = 0;
            let mut end = b.len();
            if side != 2 {
                while start < end && set.contains(&b[start]) {
                    start += 1;
                }
            }
            if side != 1 {
                while end > start && set.contains(&b[end - 1]) {
                    end -= 1;
                }
            }
            Value::Bytes(b[start..end].to_vec())
        }
        _ => {
            return Err(Error::internal(format!(
                "{func:?} called with unexpected arguments"
            )));
        }
    })
}

/// Position `k` (0-based) in `0..len`, or PostgreSQL's 2202E.
fn index_in(k: i64, len: i64) -> Result<usize> {
    if k < 0 || k >= len {
        return Err(Error::new(
            "2202E",
            format!("index {k} out of valid range, 0..{}", len - 1),
        ));
    }
    Ok(k as usize)
}

/// `substring(b from start for len)` over bytes, with PostgreSQL's clamping (a start
/// before 1 eats into the length).
fn substr<T>(b: &[T], start: i64, len: Option<i64>) -> Result<&[T]> {
    let end = match len {
        Some(l) if l < 0 => {
            return Err(Error::new("22011", "negative substring length not allowed"));
        }
        Some(l) => start.saturating_add(l),
        None => i64::MAX,
    };
    let from = start.max(1);
    let to = end.min(b.len() as i64 + 1);
    if to <= from {
        return Ok(&[]);
    }
    Ok(&b[(from - 1) as usize..(to - 1) as usize])
}

fn unknown_encoding(format: &str) -> Error {
    Error::new("22023", format!("unrecognized encoding: \"{format}\""))
}

/// `encode(bytes, format)`: hex, base64 (lines of 76 characters) or escape.
fn encode(b: &[u8], format: &str) -> Result<String> {
    Ok(match format.to_ascii_lowercase().as_str() {
        "hex" => b.iter().map(|x| format!("{x:02x}")).collect(),
        "base64" => {
            // A newline after every 76 characters of whole groups (so a trailing one
            // when the input is a multiple of 57 bytes), as PostgreSQL's pg_b64_encode.
            let all = base64::engine::general_purpose::STANDARD.encode(b);
            let whole = b.len() / 3;
            let mut out = String::with_capacity(all.len() + all.len() / 76 + 1);
            for (g, group) in all.as_bytes().chunks(4).enumerate() {
                out.push_str(std::str::from_utf8(group).unwrap_or(""));
                if g < whole && (g + 1) % 19 == 0 {
                    out.push('\n');
                }
            }
            out
        }
        "escape" => {
            let mut out = Vec::with_capacity(b.len());
            for &c in b {
                match c {
                    0 => out.extend_from_slice(b"\\000"),
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    0x80..=0xff => {
                        out.push(b'\\');
                        out.push(b'0' + (c >> 6));
                        out.push(b'0' + ((c >> 3) & 7));
                        out.push(b'0' + (c & 7));
                    }
                    _ => out.push(c),
                }
            }
            String::from_utf8(out).unwrap_or_default()
        }
        _ => return Err(unknown_encoding(format)),
    })
}

/// `decode(text, format)`.
fn decode(t: &str, format: &str) -> Result<Vec<u8>> {
    match format.to_ascii_lowercase().as_str() {
        "hex" => crate::types::bytes::decode_hex(t.as_bytes()),
        "base64" => base64_decode(t),
        "escape" => crate::types::bytes::parse_escape(t)
            .map_err(|_| Error::new("22P02", "invalid input syntax for type bytea")),
        _ => Err(unknown_encoding(format)),
    }
}

/// base64 as PostgreSQL decodes it: blanks skipped, `=` ends the data (and, once
/// seen, shortens every later group too), 22023 for a bad symbol or a short end.
fn base64_decode(t: &str) -> Result<Vec<u8>> {
    fn value(c: char) -> Option<u32> {
        Some(match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '+' => 62,
            '/' => 63,
            _ => return None,
        })
    }
    let mut out = Vec::with_capacity(t.len() * 3 / 4);
    let (mut buf, mut pos, mut end) = (0u32, 0, 0);
    for c in t.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        let b = if c == '=' {
            if end == 0 {
                end = match pos {
                    2 => 1,
                    3 => 2,
                    _ => {
                        return Err(Error::new(
                            "22023",
                            "unexpected \"=\" while decoding base64 sequence",
                        ));
                    }
                };
            }
            0
        } else {
            value(c).ok_or_else(|| {
                Error::new(
                    "22023",
                    format!("invalid symbol \"{c}\" found while decoding base64 sequence"),
                )
            })?
        };
        buf = (buf << 6) + b;
        pos += 1;
        if pos == 4 {
            out.push((buf >> 16) as u8);
            if end == 0 || end > 1 {
                out.push((buf >> 8) as u8);
            }
            if end == 0 || end > 2 {
                out.push(buf as u8);
            }
            buf = 0;
            pos = 0;
        }
    }
    if pos != 0 {
        return Err(Error::new("22023", "invalid base64 end sequence")
            .with_hint("Input data is missing padding, is truncated, or is otherwise corrupted."));
    }
    Ok(out)
}

/// The encodings kiln converts text to and from: UTF-8 (its own) and LATIN1.
fn encoding_of(name: &str, destination: bool) -> Result<&'static str> {
    let n: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_uppercase();
    match n.as_str() {
        "UTF8" | "UNICODE" => Ok("UTF8"),
        "LATIN1" | "ISO88591" => Ok("LATIN1"),
        "SQLASCII" => Ok("SQL_ASCII"),
        _ => Err(Error::new(
            "22023",
            format!(
                "invalid {} encoding name \"{name}\"",
                if destination { "destination" } else { "source" }
            ),
        )),
    }
}

fn convert_to(t: &str, encoding: &str) -> Result<Vec<u8>> {
    match encoding_of(encoding, true)? {
        "LATIN1" => t
            .chars()
            .map(|c| {
                u8::try_from(c as u32).map_err(|_| {
                    Error::new(
                        "22P05",
                        format!(
                            "character with byte sequence {} in encoding \"UTF8\" has no equivalent in encoding \"LATIN1\"",
                            c.to_string()
                                .bytes()
                                .map(|b| format!("0x{b:02x}"))
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                    )
                })
            })
            .collect(),
        _ => Ok(t.as_bytes().to_vec()),
    }
}

fn convert_from(b: &[u8], encoding: &str) -> Result<String> {
    match encoding_of(encoding, false)? {
        "LATIN1" => Ok(b.iter().map(|&c| c as char).collect()),
        _ => match std::str::from_utf8(b) {
            Ok(s) if !s.contains('\0') => Ok(s.to_string()),
            Ok(_) => Err(Error::new(
                "22021",
                "invalid byte sequence for encoding \"UTF8\": 0x00",
            )),
            Err(e) => {
                let at = e.valid_up_to();
                let bad: Vec<String> = b[at..]
                    .iter()
                    .take(e.error_len().unwrap_or(1).max(1))
                    .map(|x| format!("0x{x:02x}"))
                    .collect();
                Err(Error::new(
                    "22021",
                    format!(
                        "invalid byte sequence for encoding \"UTF8\": {}",
                        bad.join(" ")
                    ),
                ))
            }
        },
    }
}

/// `gen_random_uuid()`: version 4 (random) uuids, the random bytes from the operating
/// system as PostgreSQL takes them from its strong random source.
fn gen_random_uuids(n: usize) -> Result<Vector> {
    let mut bytes = vec![0u8; 16 * n];
    getrandom::fill(&mut bytes).map_err(|_| Error::internal("could not generate random values"))?;
    let mut t = TextVec::with_capacity(n);
    for u in bytes.chunks_exact_mut(16) {
        // The version (4) and the RFC 4122 variant bits.
        u[6] = (u[6] & 0x0f) | 0x40;
        u[8] = (u[8] & 0x3f) | 0x80;
        t.push(u);
    }
    Ok(Vector {
        data: Data::Text(t),
        nulls: None,
    })
}
