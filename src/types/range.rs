//! The built-in range types — int4range, int8range, numrange, daterange, tsrange,
//! tstzrange — as PostgreSQL's `rangetypes.c` has them: input and output, canonical
//! forms of the discrete ones, bounds compared as `range_cmp_bounds` does, and the
//! operators and functions over them.
//!
//! A range is stored as bytes in a text vector whose byte order is `range_cmp`'s
//! order, so sorting, equality, hashing, keys and indexes need nothing new:
//!
//! ```text
//! empty:     00
//! otherwise: 01, lower, upper, [numrange: each finite bound's display scale]
//! lower:     00 (-infinity) | 01 key(value) (00 inclusive | 01 exclusive)
//! upper:     02 (+infinity) | 01 key(value) (01 inclusive | 00 exclusive)
//! ```
//!
//! `key` is order-preserving and self-delimiting: integers, dates and timestamps big
//! endian with the sign bit flipped; a numeric as sign, exponent (32 bits) and digits (each
//! complemented for negatives) with a terminator. A numeric bound's display scale
//! (`1.50` prints as such) follows at the end, where it cannot change the order; two
//! numranges equal but for their bounds' scales are the one case that compare unequal
//! here while PostgreSQL calls them equal.

use std::cmp::Ordering;

use super::numeric::Numeric;
use super::{DataType, Value};
use crate::error::{Error, Result};

/// Which range type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RangeKind {
    Int4,
    Int8,
    Num,
    Date,
    Ts,
    Tstz,
}

impl RangeKind {
    pub const ALL: [RangeKind; 6] = [
        RangeKind::Int4,
        RangeKind::Int8,
        RangeKind::Num,
        RangeKind::Date,
        RangeKind::Ts,
        RangeKind::Tstz,
    ];

    /// The element type.
    pub fn subtype(self) -> DataType {
        match self {
            RangeKind::Int4 => DataType::Int4,
            RangeKind::Int8 => DataType::Int8,
            RangeKind::Num => DataType::Numeric,
            RangeKind::Date => DataType::Date,
            RangeKind::Ts => DataType::Timestamp,
            RangeKind::Tstz => DataType::Timestamptz,
        }
    }

    /// The range type of an element type.
    pub fn of_subtype(t: DataType) -> Option<RangeKind> {
        RangeKind::ALL.into_iter().find(|k| k.subtype() == t)
    }

    pub fn oid(self) -> u32 {
        match self {
            RangeKind::Int4 => 3904,
            RangeKind::Num => 3906,
            RangeKind::Ts => 3908,
            RangeKind::Tstz => 3910,
            RangeKind::Date => 3912,
            RangeKind::Int8 => 3926,
        }
    }

    pub fn array_oid(self) -> u32 {
        self.oid() + 1
    }

    /// Its multirange type's oid (pg_range's rngmultitypid; kiln has no multiranges).
    pub fn multirange_oid(self) -> u32 {
        match self {
            RangeKind::Int4 => 4451,
            RangeKind::Num => 4532,
            RangeKind::Ts => 4533,
            RangeKind::Tstz => 4534,
            RangeKind::Date => 4535,
            RangeKind::Int8 => 4536,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RangeKind::Int4 => "int4range",
            RangeKind::Int8 => "int8range",
            RangeKind::Num => "numrange",
            RangeKind::Date => "daterange",
            RangeKind::Ts => "tsrange",
            RangeKind::Tstz => "tstzrange",
        }
    }

    pub fn named(name: &str) -> Option<RangeKind> {
        RangeKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether it has a canonical form (`[)` bounds): the discrete subtypes.
    pub fn discrete(self) -> bool {
        matches!(self, RangeKind::Int4 | RangeKind::Int8 | RangeKind::Date)
    }
}

/// One bound: its value (None: infinite), whether it is inclusive, and which side.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub value: Option<Value>,
    pub inclusive: bool,
    pub lower: bool,
}

impl Bound {
    pub fn infinite(lower: bool) -> Bound {
        Bound {
            value: None,
            inclusive: false,
            lower,
        }
    }
}

/// A decoded range.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub empty: bool,
    pub lower: Bound,
    pub upper: Bound,
}

impl Range {
    pub fn empty() -> Range {
        Range {
            empty: true,
            lower: Bound::infinite(true),
            upper: Bound::infinite(false),
        }
    }
}

/// Two element values of one subtype.
pub fn cmp_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int4(x), Value::Int4(y)) | (Value::Date(x), Value::Date(y)) => x.cmp(y),
        (Value::Int8(x), Value::Int8(y))
        | (Value::Timestamp(x), Value::Timestamp(y))
        | (Value::Timestamptz(x), Value::Timestamptz(y)) => x.cmp(y),
        (Value::Numeric(x), Value::Numeric(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

/// `range_cmp_bounds`: two bounds, lower or upper, in the order ranges use.
pub fn cmp_bounds(b1: &Bound, b2: &Bound) -> Ordering {
    use Ordering::*;
    match (&b1.value, &b2.value) {
        (None, None) => {
            if b1.lower == b2.lower {
                Equal
            } else if b1.lower {
                Less
            } else {
                Greater
            }
        }
        (None, Some(_)) => {
            if b1.lower {
                Less
            } else {
                Greater
            }
        }
        (Some(_), None) => {
            if b2.lower {
                Greater
            } else {
                Less
            }
        }
        (Some(v1), Some(v2)) => {
            let c = cmp_values(v1, v2);
            if c != Equal {
                return c;
            }
            if !b1.inclusive && !b2.inclusive {
                if b1.lower == b2.lower {
                    Equal
                } else if b1.lower {
                    Greater
                } else {
                    Less
                }
            } else if !b1.inclusive {
                if b1.lower { Greater } else { Less }
            } else if !b2.inclusive {
                if b2.lower { Less } else { Greater }
            } else {
                Equal
            }
        }
    }
}

/// `range_cmp_bound_values`: the bounds' values only (infinities below / above).
fn cmp_bound_values(b1: &Bound, b2: &Bound) -> Ordering {
    match (&b1.value, &b2.value) {
        (Some(v1), Some(v2)) => cmp_values(v1, v2),
        _ => {
            let rank = |b: &Bound| match (&b.value, b.lower) {
                (None, true) => 0,
                (None, false) => 2,
                (Some(_), _) => 1,
            };
            rank(b1).cmp(&rank(b2))
        }
    }
}

fn out_of_order() -> Error {
    Error::new(
        "22000",
        "range lower bound must be less than or equal to range upper bound",
    )
}

/// `make_range`: a range of two bounds, checked and, for a discrete subtype, made
/// canonical (`[)`); empty when they meet without both being inclusive.
pub fn make(kind: RangeKind, lower: Bound, upper: Bound, empty: bool) -> Result<Range> {
    let mut r = Range {
        empty,
        lower: Bound {
            lower: true,
            ..lower
        },
        upper: Bound {
            lower: false,
            ..upper
        },
    };
    if r.empty {
        return Ok(Range::empty());
    }
    if r.lower.value.is_none() {
        r.lower.inclusive = false;
    }
    if r.upper.value.is_none() {
        r.upper.inclusive = false;
    }
    if let (Some(l), Some(u)) = (&r.lower.value, &r.upper.value) {
        match cmp_values(l, u) {
            Ordering::Greater => return Err(out_of_order()),
            Ordering::Equal if !(r.lower.inclusive && r.upper.inclusive) => {
                return Ok(Range::empty());
            }
            _ => {}
        }
    }
    if kind.discrete() {
        if let Some(v) = &r.lower.value
            && !r.lower.inclusive
            && let Some(next) = successor(v)?
        {
            r.lower.value = Some(next);
            r.lower.inclusive = true;
        }
        if let Some(v) = &r.upper.value
            && r.upper.inclusive
            && let Some(next) = successor(v)?
        {
            r.upper.value = Some(next);
            r.upper.inclusive = false;
        }
        if let (Some(l), Some(u)) = (&r.lower.value, &r.upper.value)
            && cmp_values(l, u) != Ordering::Less
            && !(r.lower.inclusive && r.upper.inclusive)
        {
            return Ok(Range::empty());
        }
    }
    Ok(r)
}

/// The next value of a discrete subtype (None for a date infinity, which stays).
fn successor(v: &Value) -> Result<Option<Value>> {
    Ok(Some(match v {
        Value::Int4(x) => Value::Int4(
            x.checked_add(1)
                .ok_or_else(|| Error::numeric_out_of_range("integer out of range"))?,
        ),
        Value::Int8(x) => Value::Int8(
            x.checked_add(1)
                .ok_or_else(|| Error::numeric_out_of_range("bigint out of range"))?,
        ),
        Value::Date(x)
            if *x != super::datetime::DATE_NOBEGIN && *x != super::datetime::DATE_NOEND =>
        {
            Value::Date(
                x.checked_add(1)
                    .ok_or_else(|| Error::new("22008", "date out of range"))?,
            )
        }
        _ => return Ok(None),
    }))
}

// ---------------------------------------------------------------------------------
// The stored form.

fn push_key(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Int4(x) | Value::Date(x) => {
            out.extend_from_slice(&((*x as u32) ^ 0x8000_0000).to_be_bytes())
        }
        Value::Int8(x) | Value::Timestamp(x) | Value::Timestamptz(x) => {
            out.extend_from_slice(&((*x as u64) ^ (1 << 63)).to_be_bytes())
        }
        Value::Numeric(n) => numeric_key(out, n),
        _ => {}
    }
}

/// A numeric's digits and decimal exponent: value = 0.d1d2… × 10^exp, no leading or
/// trailing zeros (empty for zero).
fn digits_of(n: &Numeric) -> (bool, i32, Vec<u8>) {
    let mut text = Vec::new();
    n.write_text(&mut text);
    let negative = text.first() == Some(&b'-');
    let body: Vec<u8> = text.iter().copied().filter(|c| *c != b'-').collect();
    let point = body.iter().position(|c| *c == b'.').unwrap_or(body.len());
    let all: Vec<u8> = body
        .iter()
        .filter(|c| c.is_ascii_digit())
        .map(|c| c - b'0')
        .collect();
    let lead = all.iter().position(|d| *d != 0).unwrap_or(all.len());
    let mut digits = all[lead..].to_vec();
    while digits.last() == Some(&0) {
        digits.pop();
    }
    let exp = point as i32 - lead as i32;
    (negative && !digits.is_empty(), exp, digits)
}

fn numeric_key(out: &mut Vec<u8>, n: &Numeric) {
    let (negative, exp, digits) = digits_of(n);
    if digits.is_empty() {
        out.push(0x80);
        return;
    }
    let e = (exp as u32) ^ 0x8000_0000;
    if negative {
        out.push(0x7f);
        out.extend_from_slice(&(!e).to_be_bytes());
        out.extend(digits.iter().map(|d| 10 - d));
        out.push(0xff);
    } else {
        out.push(0x81);
        out.extend_from_slice(&e.to_be_bytes());
        out.extend(digits.iter().map(|d| d + 1));
        out.push(0x00);
    }
}

fn numeric_scale(n: &Numeric) -> u16 {
    let mut text = Vec::new();
    n.write_text(&mut text);
    text.iter()
        .position(|c| *c == b'.')
        .map_or(0, |p| (text.len() - p - 1) as u16)
}

/// The stored bytes of `r`.
pub fn encode(r: &Range) -> Vec<u8> {
    let mut out = Vec::with_capacity(24);
    if r.empty {
        out.push(0);
        return out;
    }
    out.push(1);
    match &r.lower.value {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            push_key(&mut out, v);
            out.push(if r.lower.inclusive { 0 } else { 1 });
        }
    }
    match &r.upper.value {
        None => out.push(2),
        Some(v) => {
            out.push(1);
            push_key(&mut out, v);
            out.push(if r.upper.inclusive { 1 } else { 0 });
        }
    }
    for b in [&r.lower, &r.upper] {
        if let Some(Value::Numeric(n)) = &b.value {
            out.extend_from_slice(&numeric_scale(n).to_be_bytes());
        }
    }
    out
}

fn read_key(kind: RangeKind, b: &[u8], at: &mut usize) -> Option<Value> {
    let fixed = |at: &mut usize, n: usize| -> Option<&[u8]> {
        let s = b.get(*at..*at + n)?;
        *at += n;
        Some(s)
    };
    Some(match kind {
        RangeKind::Int4 | RangeKind::Date => {
            let x = u32::from_be_bytes(fixed(at, 4)?.try_into().ok()?) ^ 0x8000_0000;
            if kind == RangeKind::Int4 {
                Value::Int4(x as i32)
            } else {
                Value::Date(x as i32)
            }
        }
        RangeKind::Int8 | RangeKind::Ts | RangeKind::Tstz => {
            let x = (u64::from_be_bytes(fixed(at, 8)?.try_into().ok()?) ^ (1 << 63)) as i64;
            match kind {
                RangeKind::Int8 => Value::Int8(x),
                RangeKind::Ts => Value::Timestamp(x),
                _ => Value::Timestamptz(x),
            }
        }
        RangeKind::Num => {
            let sign = *b.get(*at)?;
            *at += 1;
            if sign == 0x80 {
                return Some(Value::Numeric(Numeric::from_i64(0)));
            }
            let negative = sign == 0x7f;
            let mut e = u32::from_be_bytes(fixed(at, 4)?.try_into().ok()?);
            if negative {
                e = !e;
            }
            let exp = (e ^ 0x8000_0000) as i32;
            let mut digits = Vec::new();
            loop {
                let d = *b.get(*at)?;
                *at += 1;
                if (negative && d == 0xff) || (!negative && d == 0) {
                    break;
                }
                digits.push(if negative { 10 - d } else { d - 1 });
            }
            // 0.digits × 10^exp, as plain decimal text.
            let ds: String = digits.iter().map(|d| (b'0' + d) as char).collect();
            let k = ds.len() as i32;
            let mut text = String::new();
            if negative {
                text.push('-');
            }
            if exp >= k {
                text.push_str(&ds);
                text.extend(std::iter::repeat_n('0', (exp - k) as usize));
            } else if exp <= 0 {
                text.push_str("0.");
                text.extend(std::iter::repeat_n('0', (-exp) as usize));
                text.push_str(&ds);
            } else {
                text.push_str(&ds[..exp as usize]);
                text.push('.');
                text.push_str(&ds[exp as usize..]);
            }
            Value::Numeric(Numeric::parse(&text).ok()?)
        }
    })
}

/// The range stored as `b`.
pub fn decode(kind: RangeKind, b: &[u8]) -> Range {
    decode_checked(kind, b).unwrap_or_else(Range::empty)
}

fn decode_checked(kind: RangeKind, b: &[u8]) -> Option<Range> {
    if *b.first()? == 0 {
        return Some(Range::empty());
    }
    let mut at = 1;
    let lower = match *b.get(at)? {
        0 => {
            at += 1;
            Bound::infinite(true)
        }
        _ => {
            at += 1;
            let v = read_key(kind, b, &mut at)?;
            let inclusive = *b.get(at)? == 0;
            at += 1;
            Bound {
                value: Some(v),
                inclusive,
                lower: true,
            }
        }
    };
    let upper = match *b.get(at)? {
        2 => {
            at += 1;
            Bound::infinite(false)
        }
        _ => {
            at += 1;
            let v = read_key(kind, b, &mut at)?;
            let inclusive = *b.get(at)? == 1;
            at += 1;
            Bound {
                value: Some(v),
                inclusive,
                lower: false,
            }
        }
    };
    let mut r = Range {
        empty: false,
        lower,
        upper,
    };
    if kind == RangeKind::Num {
        for bound in [&mut r.lower, &mut r.upper] {
            if let Some(Value::Numeric(n)) = &bound.value {
                let scale = u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?);
                at += 2;
                bound.value = Some(Value::Numeric(n.round(scale as i32).ok()?));
            }
        }
    }
    Some(r)
}

// ---------------------------------------------------------------------------------
// Text.

/// `range_in`'s parse: the bound texts (None: infinite) and their inclusivity, or
/// an empty range.
#[allow(clippy::type_complexity)]
fn parse_text(s: &str) -> Result<Option<(Option<String>, bool, Option<String>, bool)>> {
    let malformed = |detail: &str| {
        Error::new("22P02", format!("malformed range literal: \"{s}\"")).with_detail(detail)
    };
    let b = s.as_bytes();
    let mut at = 0;
    let skip_blanks = |at: &mut usize| {
        while *at < b.len() && b[*at].is_ascii_whitespace() {
            *at += 1;
        }
    };
    skip_blanks(&mut at);
    if b.len() >= at + 5 && b[at..at + 5].eq_ignore_ascii_case(b"empty") {
        let mut end = at + 5;
        skip_blanks(&mut end);
        if end == b.len() {
            return Ok(None);
        }
    }
    let lower_inc = match b.get(at) {
        Some(b'[') => true,
        Some(b'(') => false,
        _ => return Err(malformed("Missing left parenthesis or bracket.")),
    };
    at += 1;
    let lower = read_bound(s, &mut at, true).map_err(&malformed)?;
    if b.get(at) != Some(&b',') {
        return Err(malformed("Missing comma after lower bound."));
    }
    at += 1;
    let upper = read_bound(s, &mut at, false).map_err(&malformed)?;
    let upper_inc = match b.get(at) {
        Some(b']') => true,
        Some(b')') => false,
        _ => return Err(malformed("Too many commas.")),
    };
    at += 1;
    skip_blanks(&mut at);
    if at != b.len() {
        return Err(malformed("Junk after right parenthesis or bracket."));
    }
    Ok(Some((lower, lower_inc, upper, upper_inc)))
}

/// `range_parse_bound`: the text up to the next unquoted `,` (lower) or `)` / `]`
/// (upper); None when it is empty (an infinite bound).
fn read_bound(
    s: &str,
    at: &mut usize,
    lower: bool,
) -> std::result::Result<Option<String>, &'static str> {
    let b = s.as_bytes();
    let ends = |c: u8| {
        if lower {
            c == b','
        } else {
            c == b')' || c == b']'
        }
    };
    if b.get(*at).is_some_and(|c| ends(*c)) {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut in_quote = false;
    loop {
        let Some(&c) = b.get(*at) else {
            return Err("Unexpected end of input.");
        };
        if !in_quote && (ends(c) || (lower && (c == b')' || c == b']'))) {
            break;
        }
        if !in_quote && !lower && c == b',' {
            return Err("Too many commas.");
        }
        *at += 1;
        match c {
            b'\\' => {
                let Some(&next) = b.get(*at) else {
                    return Err("Unexpected end of input.");
                };
                out.push(next);
                *at += 1;
            }
            b'"' if in_quote && b.get(*at) == Some(&b'"') => {
                out.push(b'"');
                *at += 1;
            }
            b'"' => in_quote = !in_quote,
            _ => out.push(c),
        }
    }
    if lower && b.get(*at) != Some(&b',') {
        return Err("Missing comma after lower bound.");
    }
    Ok(Some(String::from_utf8_lossy(&out).into_owned()))
}

/// `range_in`.
pub fn parse(kind: RangeKind, s: &str, fmt: &super::text::TextFormat) -> Result<Range> {
    let Some((lower, lower_inc, upper, upper_inc)) = parse_text(s)? else {
        return Ok(Range::empty());
    };
    let value = |t: Option<String>| -> Result<Option<Value>> {
        t.map(|t| super::text::parse_value(&t, kind.subtype(), fmt))
            .transpose()
    };
    make(
        kind,
        Bound {
            value: value(lower)?,
            inclusive: lower_inc,
            lower: true,
        },
        Bound {
            value: value(upper)?,
            inclusive: upper_inc,
            lower: false,
        },
        false,
    )
}

/// `range_out`.
pub fn write_text(out: &mut Vec<u8>, kind: RangeKind, b: &[u8], fmt: &super::text::TextFormat) {
    let r = decode(kind, b);
    if r.empty {
        out.extend_from_slice(b"empty");
        return;
    }
    out.push(if r.lower.inclusive { b'[' } else { b'(' });
    if let Some(v) = &r.lower.value {
        write_bound(out, v, fmt);
    }
    out.push(b',');
    if let Some(v) = &r.upper.value {
        write_bound(out, v, fmt);
    }
    out.push(if r.upper.inclusive { b']' } else { b')' });
}

/// A bound's text, quoted as `range_bound_escape` quotes it.
fn write_bound(out: &mut Vec<u8>, v: &Value, fmt: &super::text::TextFormat) {
    let mut text = Vec::new();
    super::text::write_value(&mut text, v, fmt);
    let quote = text.is_empty()
        || text.iter().any(|c| {
            matches!(c, b'"' | b'\\' | b'(' | b')' | b'[' | b']' | b',') || c.is_ascii_whitespace()
        });
    if !quote {
        out.extend_from_slice(&text);
        return;
    }
    out.push(b'"');
    for c in text {
        if c == b'"' || c == b'\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push(b'"');
}

// ---------------------------------------------------------------------------------
// Operators and functions.

/// `range_contains_elem`.
pub fn contains_elem(r: &Range, v: &Value) -> bool {
    if r.empty {
        return false;
    }
    if let Some(l) = &r.lower.value {
        match cmp_values(l, v) {
            Ordering::Greater => return false,
            Ordering::Equal if !r.lower.inclusive => return false,
            _ => {}
        }
    }
    if let Some(u) = &r.upper.value {
        match cmp_values(u, v) {
            Ordering::Less => return false,
            Ordering::Equal if !r.upper.inclusive => return false,
            _ => {}
        }
    }
    true
}

/// `range_contains`: r1 holds all of r2.
pub fn contains(r1: &Range, r2: &Range) -> bool {
    if r2.empty {
        return true;
    }
    if r1.empty {
        return false;
    }
    cmp_bounds(&r1.lower, &r2.lower) != Ordering::Greater
        && cmp_bounds(&r1.upper, &r2.upper) != Ordering::Less
}

/// `&&`.
pub fn overlaps(r1: &Range, r2: &Range) -> bool {
    if r1.empty || r2.empty {
        return false;
    }
    (cmp_bounds(&r1.lower, &r2.lower) != Ordering::Less
        && cmp_bounds(&r1.lower, &r2.upper) != Ordering::Greater)
        || (cmp_bounds(&r2.lower, &r1.lower) != Ordering::Less
            && cmp_bounds(&r2.lower, &r1.upper) != Ordering::Greater)
}

/// `<<`: r1 ends before r2 starts.
pub fn before(r1: &Range, r2: &Range) -> bool {
    !r1.empty && !r2.empty && cmp_bounds(&r1.upper, &r2.lower) == Ordering::Less
}

/// `&<`: r1 does not extend to the right of r2.
pub fn over_left(r1: &Range, r2: &Range) -> bool {
    !r1.empty && !r2.empty && cmp_bounds(&r1.upper, &r2.upper) != Ordering::Greater
}

/// `&>`: r1 does not extend to the left of r2.
pub fn over_right(r1: &Range, r2: &Range) -> bool {
    !r1.empty && !r2.empty && cmp_bounds(&r1.lower, &r2.lower) != Ordering::Less
}

/// `bounds_adjacent`: an upper bound and a lower bound with nothing between them.
fn bounds_adjacent(kind: RangeKind, a: &Bound, b: &Bound) -> bool {
    match cmp_bound_values(a, b) {
        Ordering::Less => {
            if !kind.discrete() {
                return false;
            }
            // [A, B) with the bounds' inclusivity flipped is empty when canonical.
            let lower = Bound {
                value: a.value.clone(),
                inclusive: !a.inclusive,
                lower: true,
            };
            let upper = Bound {
                value: b.value.clone(),
                inclusive: !b.inclusive,
                lower: false,
            };
            make(kind, lower, upper, false).is_ok_and(|r| r.empty)
        }
        Ordering::Equal => a.inclusive != b.inclusive,
        Ordering::Greater => false,
    }
}

/// `-|-`.
pub fn adjacent(kind: RangeKind, r1: &Range, r2: &Range) -> bool {
    !r1.empty
        && !r2.empty
        && (bounds_adjacent(kind, &r1.upper, &r2.lower)
            || bounds_adjacent(kind, &r2.upper, &r1.lower))
}

/// `+` (`strict`: 22000 unless they overlap or touch) and range_merge.
pub fn union(kind: RangeKind, r1: &Range, r2: &Range, strict: bool) -> Result<Range> {
    if r1.empty {
        return Ok(r2.clone());
    }
    if r2.empty {
        return Ok(r1.clone());
    }
    if strict && !overlaps(r1, r2) && !adjacent(kind, r1, r2) {
        return Err(Error::new(
            "22000",
            "result of range union would not be contiguous",
        ));
    }
    let lower = if cmp_bounds(&r1.lower, &r2.lower) == Ordering::Less {
        r1.lower.clone()
    } else {
        r2.lower.clone()
    };
    let upper = if cmp_bounds(&r1.upper, &r2.upper) == Ordering::Greater {
        r1.upper.clone()
    } else {
        r2.upper.clone()
    };
    make(kind, lower, upper, false)
}

/// `*`.
pub fn intersection(kind: RangeKind, r1: &Range, r2: &Range) -> Result<Range> {
    if r1.empty || r2.empty || !overlaps(r1, r2) {
        return Ok(Range::empty());
    }
    let lower = if cmp_bounds(&r1.lower, &r2.lower) == Ordering::Less {
        r2.lower.clone()
    } else {
        r1.lower.clone()
    };
    let upper = if cmp_bounds(&r1.upper, &r2.upper) == Ordering::Greater {
        r2.upper.clone()
    } else {
        r1.upper.clone()
    };
    make(kind, lower, upper, false)
}

/// `-` (`range_minus_internal`).
pub fn difference(kind: RangeKind, r1: &Range, r2: &Range) -> Result<Range> {
    use Ordering::*;
    if r1.empty || r2.empty {
        return Ok(r1.clone());
    }
    let l1l2 = cmp_bounds(&r1.lower, &r2.lower);
    let l1u2 = cmp_bounds(&r1.lower, &r2.upper);
    let u1l2 = cmp_bounds(&r1.upper, &r2.lower);
    let u1u2 = cmp_bounds(&r1.upper, &r2.upper);
    if l1l2 == Less && u1u2 == Greater {
        return Err(Error::new(
            "22000",
            "result of range difference would not be contiguous",
        ));
    }
    if l1u2 == Greater || u1l2 == Less {
        return Ok(r1.clone());
    }
    if l1l2 != Less && u1u2 != Greater {
        return Ok(Range::empty());
    }
    if l1l2 != Greater && u1l2 != Less && u1u2 != Greater {
        let upper = Bound {
            value: r2.lower.value.clone(),
            inclusive: !r2.lower.inclusive,
            lower: false,
        };
        return make(kind, r1.lower.clone(), upper, false);
    }
    if l1l2 != Less && u1u2 != Less && l1u2 != Greater {
        let lower = Bound {
            value: r2.upper.value.clone(),
            inclusive: !r2.upper.inclusive,
            lower: true,
        };
        return make(kind, lower, r1.upper.clone(), false);
    }
    Err(Error::internal("unexpected case in range_minus"))
}

/// A constructor's bounds argument (`'[)'`, `'[]'`, `'(]'`, `'()'`).
pub fn bounds_spec(s: &str) -> Result<(bool, bool)> {
    match s {
        "[)" => Ok((true, false)),
        "[]" => Ok((true, true)),
        "(]" => Ok((false, true)),
        "()" => Ok((false, false)),
        _ => Err(Error::new("42601", "invalid range bound flags")
            .with_hint("Valid values are \"[]\", \"[)\", \"(]\", and \"()\".")),
    }
}

// ---------------------------------------------------------------------------------
// Binary.

const RANGE_EMPTY: u8 = 0x01;
const RANGE_LB_INC: u8 = 0x02;
const RANGE_UB_INC: u8 = 0x04;
const RANGE_LB_INF: u8 = 0x08;
const RANGE_UB_INF: u8 = 0x10;

/// `range_send`'s flags byte.
pub fn flags(r: &Range) -> u8 {
    if r.empty {
        return RANGE_EMPTY;
    }
    let mut f = 0;
    if r.lower.inclusive {
        f |= RANGE_LB_INC;
    }
    if r.upper.inclusive {
        f |= RANGE_UB_INC;
    }
    if r.lower.value.is_none() {
        f |= RANGE_LB_INF;
    }
    if r.upper.value.is_none() {
        f |= RANGE_UB_INF;
    }
    f
}

/// `range_recv`: the flags and the bounds' binary forms, each read by `elem`.
pub fn recv(
    kind: RangeKind,
    b: &[u8],
    mut elem: impl FnMut(&[u8]) -> Result<Value>,
) -> Result<Range> {
    let bad = || Error::new("22P03", "incorrect binary data format");
    let (&f, mut rest) = b.split_first().ok_or_else(bad)?;
    if f & RANGE_EMPTY != 0 {
        return Ok(Range::empty());
    }
    let mut bound = |inf: bool, inclusive: bool, lower: bool| -> Result<Bound> {
        if inf {
            return Ok(Bound::infinite(lower));
        }
        let len = i32::from_be_bytes(
            rest.get(..4)
                .ok_or_else(bad)?
                .try_into()
                .map_err(|_| bad())?,
        );
        let len = usize::try_from(len).map_err(|_| bad())?;
        let data = rest.get(4..4 + len).ok_or_else(bad)?;
        rest = &rest[4 + len..];
        Ok(Bound {
            value: Some(elem(data)?),
            inclusive,
            lower,
        })
    };
    let lower = bound(f & RANGE_LB_INF != 0, f & RANGE_LB_INC != 0, true)?;
    let upper = bound(f & RANGE_UB_INF != 0, f & RANGE_UB_INC != 0, false)?;
    make(kind, lower, upper, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(kind: RangeKind, s: &str) -> Range {
        parse(kind, s, &Default::default()).unwrap()
    }

    fn text(kind: RangeKind, x: &Range) -> String {
        let mut out = Vec::new();
        write_text(&mut out, kind, &encode(x), &Default::default());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn discrete_ranges_are_canonical() {
        use RangeKind::Int4;
        assert_eq!(text(Int4, &r(Int4, "[1,5]")), "[1,6)");
        assert_eq!(text(Int4, &r(Int4, "(1,5)")), "[2,5)");
        assert_eq!(text(Int4, &r(Int4, "(1,2)")), "empty");
        assert_eq!(text(Int4, &r(Int4, "(,5]")), "(,6)");
        assert!(parse(Int4, "[3,1)", &Default::default()).is_err());
    }

    #[test]
    fn byte_order_is_range_order() {
        use RangeKind::Num;
        let ranges = [
            "empty",
            "(,0)",
            "(,1]",
            "[-2.5,3)",
            "[-2.5,3]",
            "(-2.5,3)",
            "[-1,)",
            "[0,1)",
            "[0.001,1)",
            "[0.01,1)",
            "[1,1]",
            "[1,2)",
            "[10,11)",
            "[100,)",
        ];
        let encoded: Vec<Vec<u8>> = ranges.iter().map(|s| encode(&r(Num, s))).collect();
        for w in encoded.windows(2) {
            assert!(w[0] < w[1], "{:?}", w);
        }
        for s in ranges {
            assert_eq!(text(Num, &r(Num, s)), s);
        }
        assert_eq!(text(Num, &r(Num, "[1.50,2.500)")), "[1.50,2.500)");
        // Exponents far past 16 bits survive the stored form.
        let big = r(Num, "[1e100,1e1000)");
        let back = decode(Num, &encode(&big));
        let n = |s: &str| Value::Numeric(Numeric::parse(s).unwrap());
        assert!(contains_elem(&back, &n("1e500")));
        assert!(!contains_elem(&back, &n("1e1000")));
        assert!(encode(&r(Num, "[1e-100,1)")) < encode(&r(Num, "[1e-99,1)")));
    }

    #[test]
    fn operators_follow_rangetypes() {
        use RangeKind::Int4;
        let a = r(Int4, "[1,5)");
        let b = r(Int4, "[5,9)");
        assert!(adjacent(Int4, &a, &b));
        assert!(!overlaps(&a, &b));
        assert_eq!(text(Int4, &union(Int4, &a, &b, true).unwrap()), "[1,9)");
        assert!(union(Int4, &a, &r(Int4, "[7,9)"), true).is_err());
        assert_eq!(
            text(Int4, &difference(Int4, &r(Int4, "[1,9)"), &b).unwrap()),
            "[1,5)"
        );
        assert!(difference(Int4, &r(Int4, "[1,9)"), &r(Int4, "[3,4)")).is_err());
        assert_eq!(
            text(Int4, &intersection(Int4, &r(Int4, "[1,9)"), &b).unwrap()),
            "[5,9)"
        );
    }
}
