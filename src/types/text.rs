//! PostgreSQL's text representation of every type: output (into a byte buffer, without
//! allocating) and input (with PostgreSQL's error codes and messages).

use super::datetime::{self, Interval};
use super::numeric::Numeric;
use super::{DataType, SqlType, Value};
use crate::error::{Error, Result};

/// Session settings that change how values are written and read.
#[derive(Clone, Copy, Debug)]
pub struct TextFormat {
    /// Session `TimeZone`.
    pub zone: datetime::Zone,
    pub extra_float_digits: i32,
    /// DateStyle's field order, for reading ambiguous dates.
    pub date_order: datetime::DateOrder,
    /// The transaction's start (UTC microseconds since 2000-01-01), for `now`/`today`.
    pub now_micros: i64,
    /// bytea_output = 'escape'.
    pub bytea_escape: bool,
}

impl TextFormat {
    /// What date/time input needs from this format.
    pub fn date_input(&self) -> datetime::InputContext {
        datetime::InputContext {
            zone: self.zone,
            order: self.date_order,
            now_utc: self.now_micros,
        }
    }
}

impl Default for TextFormat {
    fn default() -> TextFormat {
        TextFormat {
            zone: datetime::Zone::Fixed(0),
            extra_float_digits: 1,
            date_order: datetime::DateOrder::Mdy,
            now_micros: 0,
            bytea_escape: false,
        }
    }
}

pub fn write_bool(out: &mut Vec<u8>, v: bool) {
    out.push(if v { b't' } else { b'f' });
}

pub fn write_int(out: &mut Vec<u8>, v: i64) {
    let mut buf = itoa::Buffer::new();
    out.extend_from_slice(buf.format(v).as_bytes());
}

/// Splits a finite, non-zero float into its shortest decimal digits and the exponent of the
/// first digit (`123.4` → `"1234"`, 2).
fn shortest_digits(text: &str) -> ([u8; 24], usize, i32) {
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let mantissa = mantissa.trim_start_matches('-');
    let point = mantissa.find('.').unwrap_or(mantissa.len());
    let mut digits = [0u8; 24];
    let mut n = 0;
    let mut first_exp = exp + point as i32 - 1;
    let mut leading = true;
    for c in mantissa.bytes() {
        if c == b'.' {
            continue;
        }
        if leading && c == b'0' {
            first_exp -= 1;
            continue;
        }
        leading = false;
        if n < digits.len() {
            digits[n] = c;
            n += 1;
        }
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    (digits, n, first_exp)
}

fn write_float_digits(out: &mut Vec<u8>, negative: bool, digits: &[u8], exp: i32, fixed_max: i32) {
    if negative {
        out.push(b'-');
    }
    if exp < -4 || exp >= fixed_max {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exp < 0 { b'-' } else { b'+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push(b'0');
        }
        let mut buf = itoa::Buffer::new();
        out.extend_from_slice(buf.format(e).as_bytes());
    } else if exp < 0 {
        out.extend_from_slice(b"0.");
        for _ in 0..(-exp - 1) {
            out.push(b'0');
        }
        out.extend_from_slice(digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.extend_from_slice(digits);
            for _ in digits.len()..int_len {
                out.push(b'0');
            }
        } else {
            out.extend_from_slice(&digits[..int_len]);
            out.push(b'.');
            out.extend_from_slice(&digits[int_len..]);
        }
    }
}

fn write_special(out: &mut Vec<u8>, is_nan: bool, negative: bool) {
    if is_nan {
        out.extend_from_slice(b"NaN");
    } else if negative {
        out.extend_from_slice(b"-Infinity");
    } else {
        out.extend_from_slice(b"Infinity");
    }
}

/// The midpoints between a float and its neighbours, as `(odd, power of two)` pairs:
/// `(mantissa, exponent)` is the float's exact value `mantissa × 2^exponent`, `mantissa_bits`
/// its precision, and a power-of-two value has a closer lower neighbour.
fn midpoints(
    mantissa: u64,
    exponent: i32,
    mantissa_bits: u32,
    min_exponent: i32,
) -> [(u64, i32); 2] {
    let upper = (2 * mantissa + 1, exponent - 1);
    let lower = if mantissa == 1 << mantissa_bits && exponent > min_exponent {
        (4 * mantissa - 1, exponent - 2)
    } else {
        (2 * mantissa - 1, exponent - 1)
    };
    [upper, lower]
}

/// Whether the decimal `digits × 10^(exp10 - len + 1)` is exactly one of `mids`.
fn is_midpoint(digits: &[u8], exp10: i32, mids: &[(u64, i32); 2]) -> bool {
    let d = digits.iter().fold(0u64, |v, b| v * 10 + (b - b'0') as u64);
    let k = exp10 - (digits.len() as i32 - 1);
    mids.iter().any(|&(m, g)| {
        if g < 0 {
            // m / 2^-g has exactly -g decimals (m is odd): d × 10^k must have as many,
            // and then d = m × 5^-g.
            k == g
                && 5u128
                    .checked_pow((-g) as u32)
                    .and_then(|p| p.checked_mul(m as u128))
                    .is_some_and(|x| x == d as u128)
        } else {
            // An integer: d × 10^k = m × 2^g.
            // m is odd, so the powers of two must agree first (cheap).
            k >= 0 && d.trailing_zeros() as i32 + k == g && {
                use num_bigint::BigUint;
                BigUint::from(d) * BigUint::from(10u8).pow(k as u32)
                    == BigUint::from(m) << g as usize
            }
        }
    })
}

/// PostgreSQL's shortest output (its Ryu build sets `acceptBounds = false`): a shortest
/// decimal lying exactly halfway to a neighbouring float is not accepted, and the output
/// takes the first longer, correctly rounded form strictly inside the interval
/// (`-4611686016279904256::float8` prints `-4.6116860162799043e+18`).
fn pg_shortest(
    shortest: ([u8; 24], usize, i32),
    mids: &[(u64, i32); 2],
    exact: impl Fn(usize) -> String,
    digits_max: usize,
) -> ([u8; 24], usize, i32) {
    let (digits, n, exp) = shortest;
    if !is_midpoint(&digits[..n], exp, mids) {
        return shortest;
    }
    for len in n + 1..=digits_max {
        let candidate = shortest_digits(&exact(len));
        if !is_midpoint(&candidate.0[..candidate.1], candidate.2, mids) {
            return candidate;
        }
    }
    shortest
}

fn f64_midpoints(v: f64) -> [(u64, i32); 2] {
    let bits = v.abs().to_bits();
    let (biased, fraction) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
    let (mantissa, exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, biased - 1075)
    };
    midpoints(mantissa, exponent, 52, -1074)
}

fn f32_midpoints(v: f32) -> [(u64, i32); 2] {
    let bits = v.abs().to_bits();
    let (biased, fraction) = ((bits >> 23) as i32, (bits & ((1 << 23) - 1)) as u64);
    let (mantissa, exponent) = if biased == 0 {
        (fraction, -149)
    } else {
        (fraction | 1 << 23, biased - 150)
    };
    midpoints(mantissa, exponent, 23, -149)
}

pub fn write_f64(out: &mut Vec<u8>, v: f64, extra_float_digits: i32) {
    if !v.is_finite() {
        return write_special(out, v.is_nan(), v < 0.0);
    }
    if v == 0.0 {
        out.extend_from_slice(if v.is_sign_negative() { b"-0" } else { b"0" });
        return;
    }
    if extra_float_digits > 0 {
        let mut buf = ryu::Buffer::new();
        let (digits, n, exp) = pg_shortest(
            shortest_digits(buf.format_finite(v)),
            &f64_midpoints(v),
            |len| format!("{:.*e}", len - 1, v),
            17,
        );
        write_float_digits(out, v < 0.0, &digits[..n], exp, 15);
    } else {
        let precision = (15 + extra_float_digits).max(1) as usize;
        let text = format!("{:.*e}", precision - 1, v);
        let (digits, n, exp) = shortest_digits(&text);
        write_float_digits(out, v < 0.0, &digits[..n], exp, precision as i32);
    }
}

pub fn write_f32(out: &mut Vec<u8>, v: f32, extra_float_digits: i32) {
    if !v.is_finite() {
        return write_special(out, v.is_nan(), v < 0.0);
    }
    if v == 0.0 {
        out.extend_from_slice(if v.is_sign_negative() { b"-0" } else { b"0" });
        return;
    }
    if extra_float_digits > 0 {
        let mut buf = ryu::Buffer::new();
        let (digits, n, exp) = pg_shortest(
            shortest_digits(buf.format_finite(v)),
            &f32_midpoints(v),
            |len| format!("{:.*e}", len - 1, v),
            9,
        );
        write_float_digits(out, v < 0.0, &digits[..n], exp, 6);
    } else {
        let precision = (6 + extra_float_digits).max(1) as usize;
        let text = format!("{:.*e}", precision - 1, v);
        let (digits, n, exp) = shortest_digits(&text);
        write_float_digits(out, v < 0.0, &digits[..n], exp, precision as i32);
    }
}

/// The text of a stored network value of type `t`.
pub fn write_net(out: &mut Vec<u8>, t: DataType, b: &[u8]) {
    let text = match t {
        DataType::Inet | DataType::Cidr => {
            super::net::to_text(&super::net::Inet::decode(b), t == DataType::Cidr)
        }
        _ => super::net::mac_text(b),
    };
    out.extend_from_slice(text.as_bytes());
}

/// Appends the text form of `value` (which must not be NULL).
pub fn write_value(out: &mut Vec<u8>, value: &Value, fmt: &TextFormat) {
    match value {
        Value::Null => {}
        Value::Bool(v) => write_bool(out, *v),
        Value::Int2(v) => write_int(out, *v as i64),
        Value::Int4(v) => write_int(out, *v as i64),
        Value::Int8(v) => write_int(out, *v),
        Value::Float4(v) => write_f32(out, *v, fmt.extra_float_digits),
        Value::Float8(v) => write_f64(out, *v, fmt.extra_float_digits),
        Value::Numeric(v) => v.write_text(out),
        Value::Text(v) => out.extend_from_slice(v.as_bytes()),
        Value::Date(v) => datetime::write_date(out, *v),
        Value::Timestamp(v) => datetime::write_timestamp(out, *v),
        Value::Timestamptz(v) => datetime::write_timestamptz(out, *v, fmt.zone.offset_at(*v)),
        Value::Time(v) => datetime::write_time(out, *v),
        Value::TimeTz(v) => datetime::write_timetz(out, *v),
        Value::Interval(v) => datetime::write_interval(out, v),
        Value::Array(a) => super::array::write_text(&a.bytes, a.elem, fmt, out),
        Value::Record(r) => super::record::write_text(r, fmt, out),
        Value::Uuid(u) => super::bytes::write_uuid(out, u),
        Value::Bytes(b) => super::bytes::write_bytea(out, b, fmt.bytea_escape),
        Value::Jsonb(b) => super::jsonb::write_text(b, out),
        Value::Raw(DataType::Range(k), b) => super::range::write_text(out, *k, b, fmt),
        Value::Raw(t @ (DataType::TsVector | DataType::TsQuery), b) => {
            super::tsearch::write_text(out, *t, b)
        }
        Value::Raw(t, b) => write_net(out, *t, b),
    }
}

pub fn value_to_string(value: &Value, fmt: &TextFormat) -> String {
    let mut out = Vec::new();
    write_value(&mut out, value, fmt);
    String::from_utf8(out).unwrap_or_default()
}

pub fn parse_bool(text: &str) -> Result<bool> {
    let t = text.trim().to_ascii_lowercase();
    let v = match t.as_str() {
        "t" | "tr" | "tru" | "true" | "y" | "ye" | "yes" | "on" | "1" => true,
        "f" | "fa" | "fal" | "fals" | "false" | "n" | "no" | "of" | "off" | "0" => false,
        _ => return Err(Error::invalid_text("boolean", text)),
    };
    Ok(v)
}

pub fn parse_int(text: &str, ty: DataType) -> Result<i64> {
    let name = ty.name();
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid_text(name, text));
    }
    let out_of_range =
        || Error::numeric_out_of_range(format!("value \"{text}\" is out of range for type {name}"));
    let mut v: i64 = 0;
    for b in digits.bytes() {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_sub((b - b'0') as i64))
            .ok_or_else(out_of_range)?;
    }
    let v = if neg {
        v
    } else {
        v.checked_neg().ok_or_else(out_of_range)?
    };
    let (min, max) = match ty {
        DataType::Int2 => (i16::MIN as i64, i16::MAX as i64),
        DataType::Int4 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    };
    if v < min || v > max {
        return Err(out_of_range());
    }
    Ok(v)
}

pub fn parse_float(text: &str, ty: DataType) -> Result<f64> {
    let name = ty.name();
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let special = match lower.as_str() {
        "nan" => Some(f64::NAN),
        "infinity" | "+infinity" | "inf" | "+inf" => Some(f64::INFINITY),
        "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    };
    if let Some(v) = special {
        return Ok(v);
    }
    if t.is_empty()
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return Err(Error::invalid_text(name, text));
    }
    let v: f64 = t.parse().map_err(|_| Error::invalid_text(name, text))?;
    let out_of_range =
        || Error::numeric_out_of_range(format!("\"{t}\" is out of range for type {name}"));
    if v.is_infinite() {
        return Err(out_of_range());
    }
    if ty == DataType::Float4 {
        let f = v as f32;
        if f.is_infinite() || (f == 0.0 && v != 0.0) {
            return Err(out_of_range());
        }
    } else if v == 0.0 && t.bytes().any(|b| (b'1'..=b'9').contains(&b)) && lower.contains('e') {
        return Err(out_of_range());
    }
    Ok(v)
}

/// Parses text into a value of `ty` (typmods are applied by the caller through casts).
pub fn parse_value(text: &str, ty: DataType, fmt: &TextFormat) -> Result<Value> {
    Ok(match ty {
        DataType::Bool => Value::Bool(parse_bool(text)?),
        DataType::Int2 => Value::Int2(parse_int(text, ty)? as i16),
        DataType::Int4 => Value::Int4(parse_int(text, ty)? as i32),
        DataType::Int8 => Value::Int8(parse_int(text, ty)?),
        DataType::Float4 => Value::Float4(parse_float(text, ty)? as f32),
        DataType::Float8 => Value::Float8(parse_float(text, ty)?),
        DataType::Numeric => Value::Numeric(Numeric::parse(text)?),
        DataType::Text | DataType::Varchar | DataType::Bpchar | DataType::Unknown => {
            Value::Text(text.to_string())
        }
        DataType::Name => Value::Text(truncate_name(text).to_string()),
        // The label is checked against its type where the catalog is at hand.
        DataType::Enum(_) => Value::Text(text.to_string()),
        DataType::TsVector | DataType::TsQuery => super::tsearch::parse_text(ty, text)?,
        DataType::Range(k) => Value::Raw(
            ty,
            super::range::encode(&super::range::parse(k, text, fmt)?),
        ),
        DataType::Json => {
            super::json::validate(text)?;
            Value::Text(text.to_string())
        }
        DataType::Char => Value::Text(text.chars().next().map(String::from).unwrap_or_default()),
        DataType::Uuid => Value::Uuid(super::bytes::parse_uuid(text)?),
        DataType::Bytea => Value::Bytes(super::bytes::parse_bytea(text)?),
        DataType::Jsonb => Value::Jsonb(super::jsonb::parse(text)?),
        DataType::JsonPath => Value::Text(super::jsonpath::normalize(text)?),
        DataType::Oid => Value::Int8(parse_oid(text)?),
        DataType::RegClass
        | DataType::RegType
        | DataType::RegProc
        | DataType::RegProcedure
        | DataType::RegNamespace
        | DataType::RegRole
        | DataType::RegConfig
        | DataType::RegDictionary => match parse_oid(text) {
            Ok(oid) => Value::Int8(oid),
            // A name needs the catalog: the binder and the executor resolve those
            // (`catalog::system::reg_in`) before text reaches here.
            Err(_) => {
                return Err(Error::feature_not_supported(format!(
                    "{} input by name here",
                    ty.name()
                )));
            }
        },
        DataType::Date => Value::Date(datetime::parse_date(text, &fmt.date_input())?),
        DataType::Time => Value::Time(datetime::parse_time(text, &fmt.date_input())?),
        DataType::Inet | DataType::Cidr => {
            Value::Raw(ty, super::net::parse(text, ty == DataType::Cidr)?.encode())
        }
        DataType::MacAddr => Value::Raw(ty, super::net::parse_mac(text)?.to_vec()),
        DataType::MacAddr8 => Value::Raw(ty, super::net::parse_mac8(text)?.to_vec()),
        DataType::TimeTz => Value::TimeTz(datetime::parse_timetz(text, &fmt.date_input())?),
        DataType::Timestamp => {
            Value::Timestamp(datetime::parse_timestamp(text, &fmt.date_input())?)
        }
        DataType::Timestamptz => {
            Value::Timestamptz(datetime::parse_timestamptz(text, &fmt.date_input())?)
        }
        DataType::Interval => Value::Interval(datetime::parse_interval(text)?),
        DataType::Record => {
            return Err(Error::feature_not_supported("input of anonymous records"));
        }
        DataType::Array(elem) => Value::Array(Box::new(super::array::parse(
            text,
            SqlType::new(*elem),
            fmt,
        )?)),
    })
}

/// Longest identifier PostgreSQL keeps, in bytes (NAMEDATALEN - 1).
pub const NAME_MAX_BYTES: usize = 63;

/// `name` input: the text cut to 63 bytes on a character boundary.
pub fn truncate_name(text: &str) -> &str {
    if text.len() <= NAME_MAX_BYTES {
        return text;
    }
    let mut cut = NAME_MAX_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

/// `oid` input (PostgreSQL's oidin): a decimal number that fits 32 bits, unsigned, or
/// signed as a negative int4 (which wraps).
pub fn parse_oid(text: &str) -> Result<i64> {
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid_text("oid", text));
    }
    let out_of_range =
        || Error::numeric_out_of_range(format!("value \"{text}\" is out of range for type oid"));
    let v: u64 = digits.parse().map_err(|_| out_of_range())?;
    if neg {
        if v > 2_147_483_648 {
            return Err(out_of_range());
        }
        Ok(((v as i64).wrapping_neg()).rem_euclid(1 << 32))
    } else if v > u32::MAX as u64 {
        Err(out_of_range())
    } else {
        Ok(v as i64)
    }
}

/// Length of a string in characters, as char_length counts.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Applies a varchar(n)/char(n) length modifier. `explicit` casts truncate; assignments
/// raise `22001` unless only trailing spaces are cut.
pub fn apply_char_typmod(s: String, ty: SqlType, explicit: bool) -> Result<String> {
    if ty.typmod < 4 {
        return Ok(s);
    }
    let max = (ty.typmod - 4) as usize;
    let len = char_len(&s);
    let fitted = if len > max {
        let cut = s.char_indices().nth(max).map_or(s.len(), |(i, _)| i);
        if !explicit && !s[cut..].bytes().all(|b| b == b' ') {
            let name = if ty.ty == DataType::Bpchar {
                "character"
            } else {
                "character varying"
            };
            return Err(Error::string_too_long(format!(
                "value too long for type {name}({max})"
            )));
        }
        s[..cut].to_string()
    } else {
        s
    };
    if ty.ty == DataType::Bpchar {
        let len = char_len(&fitted);
        if len < max {
            let mut padded = fitted;
            padded.extend(std::iter::repeat_n(' ', max - len));
            return Ok(padded);
        }
    }
    Ok(fitted)
}

pub fn interval_value(iv: Interval) -> Value {
    Value::Interval(iv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f8(v: f64) -> String {
        let mut out = Vec::new();
        write_f64(&mut out, v, 1);
        String::from_utf8(out).unwrap()
    }
    fn f4(v: f32) -> String {
        let mut out = Vec::new();
        write_f32(&mut out, v, 1);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_print_like_postgres() {
        assert_eq!(f8(1e20), "1e+20");
        assert_eq!(f8(1e15), "1e+15");
        assert_eq!(f8(1e14), "100000000000000");
        assert_eq!(f8(0.1), "0.1");
        assert_eq!(f8(0.0001), "0.0001");
        assert_eq!(f8(0.00001), "1e-05");
        assert_eq!(f8(-2.5), "-2.5");
        assert_eq!(f8(123456789012345678.0), "1.2345678901234568e+17");
        assert_eq!(f8(100.0), "100");
        assert_eq!(f4(1e6), "1e+06");
        assert_eq!(f4(100000.0), "100000");
        assert_eq!(f4(0.1), "0.1");
        assert_eq!(f8(f64::NAN), "NaN");
    }

    #[test]
    fn integers_reject_garbage_and_overflow() {
        assert_eq!(parse_int(" 42 ", DataType::Int4).unwrap(), 42);
        assert_eq!(
            parse_int("2147483648", DataType::Int4).unwrap_err().code,
            "22003"
        );
        assert_eq!(parse_int("12a", DataType::Int4).unwrap_err().code, "22P02");
        assert_eq!(
            parse_int("-9223372036854775808", DataType::Int8).unwrap(),
            i64::MIN
        );
    }
}
