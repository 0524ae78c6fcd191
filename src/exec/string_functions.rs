//! Kernels for lpad, rpad, split_part, reverse, translate, starts_with, initcap, md5,
//! format() and random, with PostgreSQL 15's semantics and errors. Evaluated row by row
//! (none is on a benchmark's hot path); outputs that could be large are charged to the
//! statement's memory budget first.
//!
//! random() is PostgreSQL's own generator (xoroshiro128** seeded through splitmix64,
//! 52-bit doubles, `pg_prng.c`), one per session thread. setseed() is not offered: it
//! returns `void`, a type kiln does not have, so it answers 0A000.

use std::cell::RefCell;

use md5::{Digest, Md5};

use super::context::ExecContext;
use super::vector::{Data, Vector};
use crate::error::{Error, Result};
use crate::sql::expr::{Expr, Func};
use crate::types::{DataType, SqlType, Value};

/// PostgreSQL's largest allocation (MaxAllocSize): a value needing more fails.
const ALLOC_BYTES_MAX: i64 = (1 << 30) - 1;
/// Bytes per character PostgreSQL reserves for a padded UTF-8 string.
const UTF8_BYTES_MAX: i64 = 4;

pub fn eval(
    func: Func,
    args: &[Expr],
    vs: &[Vector],
    n: usize,
    ty: SqlType,
    ctx: &ExecContext,
) -> Result<Vector> {
    super::functions::eval_strict_rows(args, vs, n, ty, |row| eval_row(func, row, ctx))
}

/// Most compiled regular expressions a statement's pattern may take (regex's size
/// limit, so a hostile pattern fails instead of exhausting memory).
pub(crate) const REGEX_SIZE_MAX: usize = 10 << 20;

/// A PostgreSQL regular expression (an ARE, as `~` reads it) compiled for the regex
/// crate: `.` and `[^…]` match newlines, `^` and `$` only the ends (PostgreSQL's
/// defaults); the ARE escapes the crate spells differently are translated (`\m`,
/// `\M`, `[[:<:]]`, `[[:>:]]` word starts and ends, `\y` / `\Y` boundaries, `\Z`);
/// leading embedded options `(?…)` and the `***=` / `***:` directors are honoured.
/// Back-references are not supported (0A000).
fn are_source(pattern: &str, icase: bool) -> Result<AreSource> {
    let mut body = pattern;
    let mut literal = false;
    if let Some(rest) = body.strip_prefix("***=") {
        body = rest;
        literal = true;
    } else if let Some(rest) = body.strip_prefix("***:") {
        body = rest;
    }
    let (mut icase, mut multi_line, mut dot_newline, mut expanded) = (icase, false, true, false);
    if !literal
        && let Some(rest) = body.strip_prefix("(?")
        && let Some(end) = rest.find(')')
        && rest[..end].chars().all(|c| c.is_ascii_alphabetic())
    {
        for c in rest[..end].chars() {
            match c {
                'i' => icase = true,
                'c' => icase = false,
                'n' | 'm' => (multi_line, dot_newline) = (true, false),
                's' => (multi_line, dot_newline) = (false, true),
                'p' => (multi_line, dot_newline) = (false, false),
                'w' => (multi_line, dot_newline) = (true, true),
                'x' => expanded = true,
                't' => expanded = false,
                'q' => literal = true,
                'e' => {}
                'b' => {
                    return Err(Error::feature_not_supported(
                        "basic regular expressions (the (?b) option)",
                    ));
                }
                other => {
                    return Err(Error::new(
                        "2201B",
                        format!("invalid regular expression: invalid embedded option {other}"),
                    ));
                }
            }
        }
        body = &rest[end + 1..];
    }
    let source = if literal {
        regex::escape(body)
    } else {
        translate_are(body)?
    };
    Ok(AreSource {
        source,
        icase,
        multi_line,
        dot_newline,
        expanded,
        literal,
    })
}

/// An ARE rewritten for the regex crate, with the options its embedded options set.
pub(crate) struct AreSource {
    pub source: String,
    pub icase: bool,
    pub multi_line: bool,
    pub dot_newline: bool,
    pub expanded: bool,
    /// The pattern is literal text (`***=`, `(?q)`).
    pub literal: bool,
}

/// [`are_source`] for the regexp functions.
pub(crate) fn are_source_for(pattern: &str, icase: bool) -> Result<AreSource> {
    are_source(pattern, icase)
}

/// A PostgreSQL regular expression compiled for `&str` haystacks (see [`are_source`]).
pub fn compile_are(pattern: &str, icase: bool) -> Result<regex::Regex> {
    let a = are_source(pattern, icase)?;
    regex::RegexBuilder::new(&a.source)
        .case_insensitive(a.icase)
        .multi_line(a.multi_line)
        .dot_matches_new_line(a.dot_newline)
        .ignore_whitespace(a.expanded)
        .size_limit(REGEX_SIZE_MAX)
        .build()
        .map_err(|e| regex_error(&e))
}

/// The same for byte haystacks that are valid UTF-8 (a column's strings).
pub fn compile_are_bytes(pattern: &str, icase: bool) -> Result<regex::bytes::Regex> {
    let a = are_source(pattern, icase)?;
    regex::bytes::RegexBuilder::new(&a.source)
        .case_insensitive(a.icase)
        .multi_line(a.multi_line)
        .dot_matches_new_line(a.dot_newline)
        .ignore_whitespace(a.expanded)
        .size_limit(REGEX_SIZE_MAX)
        .build()
        .map_err(|e| regex_error(&e))
}

/// The ARE escapes the regex crate spells differently, rewritten.
fn translate_are(p: &str) -> Result<String> {
    check_are(p)?;
    let mut out = String::with_capacity(p.len() + 8);
    let mut chars = p.chars().peekable();
    let mut rest = p;
    while let Some(c) = chars.next() {
        if c == '[' && (rest.starts_with("[[:<:]]") || rest.starts_with("[[:>:]]")) {
            out.push_str(if rest.starts_with("[[:<:]]") {
                r"\b{start}"
            } else {
                r"\b{end}"
            });
            for _ in 0..6 {
                chars.next();
            }
            rest = &rest[7..];
            continue;
        }
        rest = &rest[c.len_utf8()..];
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            return Err(Error::new(
                "2201B",
                "invalid regular expression: invalid escape \\ sequence",
            ));
        };
        rest = &rest[e.len_utf8()..];
        match e {
            'm' => out.push_str(r"\b{start}"),
            'M' => out.push_str(r"\b{end}"),
            'y' => out.push_str(r"\b"),
            'Y' => out.push_str(r"\B"),
            'Z' => out.push_str(r"\z"),
            '1'..='9' => {
                return Err(Error::feature_not_supported(
                    "back-references in regular expressions",
                ));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

/// What PostgreSQL's engine refuses that the regex crate would take: a quantifier
/// right after another (`a**`, `a+*`; a lazy `?` is fine) and an unknown character
/// class name (`[[:foo:]]`).
fn check_are(p: &str) -> Result<()> {
    let invalid = |what: &str| Error::new("2201B", format!("invalid regular expression: {what}"));
    let b = p.as_bytes();
    let mut i = 0;
    // Whether the previous element was a quantifier (and whether its lazy `?` came).
    let mut quantified = false;
    let mut lazy_taken = false;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                quantified = false;
                continue;
            }
            b'[' => {
                i += 1;
                if i < b.len() && b[i] == b'^' {
                    i += 1;
                }
                if i < b.len() && b[i] == b']' {
                    i += 1;
                }
                while i < b.len() && b[i] != b']' {
                    if b[i] == b'[' && i + 1 < b.len() && b[i + 1] == b':' {
                        let start = i + 2;
                        let mut j = start;
                        while j + 1 < b.len() && !(b[j] == b':' && b[j + 1] == b']') {
                            j += 1;
                        }
                        let name = &p[start..j.min(p.len())];
                        const CLASSES: [&str; 13] = [
                            "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print",
                            "punct", "space", "upper", "xdigit", "word",
                        ];
                        if !CLASSES.contains(&name) && !matches!(name, "<" | ">") {
                            return Err(invalid("invalid character class"));
                        }
                        i = j + 2;
                        continue;
                    }
                    i += 1;
                }
                quantified = false;
            }
            b'*' | b'+' | b'?' | b'{' => {
                let bound = b[i] == b'{';
                if bound && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    quantified = false;
                    i += 1;
                    continue;
                }
                if quantified {
                    if b[i] == b'?' && !lazy_taken {
                        lazy_taken = true;
                        i += 1;
                        continue;
                    }
                    return Err(invalid("quantifier operand invalid"));
                }
                if bound {
                    while i < b.len() && b[i] != b'}' {
                        i += 1;
                    }
                }
                quantified = true;
                lazy_taken = false;
            }
            b'(' if b.get(i + 1) == Some(&b'?') => {
                // A group's options or kind: `(?:`, `(?i)`, `(?=`.
                i += 2;
                quantified = false;
                continue;
            }
            _ => quantified = false,
        }
        i += 1;
    }
    Ok(())
}

/// A pattern that does not compile: 2201B with PostgreSQL's words for the common
/// mistakes (its regex engine's messages), else the regex crate's.
pub fn regex_error(e: &regex::Error) -> Error {
    let text = e.to_string();
    let detail = text
        .lines()
        .last()
        .unwrap_or("")
        .trim_start_matches("error: ");
    let message = match detail {
        "unclosed group" | "unopened group" => "parentheses () not balanced",
        "unclosed character class" => "brackets [] not balanced",
        "unclosed counted repetition" => "braces {} not balanced",
        "repetition operator missing expression" => "quantifier operand invalid",
        "incomplete escape sequence, reached end of pattern prematurely"
        | "unrecognized escape sequence" => "invalid escape \\ sequence",
        "invalid character class range, the start must be <= the end" => "invalid character range",
        "invalid repetition count range, the start must be <= the end"
        | "decimal literal invalid" => "invalid repetition count(s)",
        other => other,
    };
    Error::new("2201B", format!("invalid regular expression: {message}"))
}

/// `string ~ pattern` (`~*` when `icase`), row by row; a pattern is compiled once for
/// the rows that share it.
pub fn regex_match(vs: &[Vector], n: usize, icase: bool) -> Result<Vector> {
    let (Data::Text(strings), Data::Text(patterns)) = (&vs[0].data, &vs[1].data) else {
        return Err(Error::internal("~ over non-text vectors"));
    };
    // Over the strings' bytes (valid UTF-8 already): no value per row, no second check.
    let mut values = Vec::with_capacity(n);
    let mut nulls: Option<Vec<bool>> = None;
    let mut compiled: Option<(&[u8], regex::bytes::Regex)> = None;
    for i in 0..n {
        if vs[0].is_null(i) || vs[1].is_null(i) {
            values.push(false);
            nulls.get_or_insert_with(|| vec![false; n])[i] = true;
            continue;
        }
        let p = patterns.get(i);
        let re = match &compiled {
            Some((q, re)) if *q == p => re,
            _ => {
                let text = std::str::from_utf8(p).map_err(|_| Error::invalid_utf8())?;
                &compiled.insert((p, compile_are_bytes(text, icase)?)).1
            }
        };
        values.push(re.is_match(strings.get(i)));
    }
    let mut out = Vector::from_data(Data::Bool(values));
    out.nulls = nulls;
    Ok(out)
}

fn eval_row(func: Func, row: &[Value], ctx: &ExecContext) -> Result<Value> {
    let text = |v: &Value| -> Result<String> {
        match v {
            Value::Text(s) => Ok(s.clone()),
            _ => Err(Error::internal("string function expected text")),
        }
    };
    let int = |v: &Value| -> Result<i32> {
        match v {
            Value::Int4(x) => Ok(*x),
            _ => Err(Error::internal("string function expected an integer")),
        }
    };
    Ok(match (func, row) {
        (Func::Lpad | Func::Rpad, [s, len, rest @ ..]) => {
            let fill = match rest.first() {
                Some(f) => text(f)?,
                None => " ".to_string(),
            };
            Value::Text(pad(&text(s)?, int(len)?, &fill, func == Func::Lpad, ctx)?)
        }
        (Func::SplitPart, [s, delim, field]) => {
            Value::Text(split_part(&text(s)?, &text(delim)?, int(field)?)?)
        }
        (Func::Reverse, [s]) => Value::Text(text(s)?.chars().rev().collect()),
        (Func::Translate, [s, from, to]) => {
            Value::Text(translate(&text(s)?, &text(from)?, &text(to)?))
        }
        (Func::StartsWith, [s, prefix]) => Value::Bool(text(s)?.starts_with(&text(prefix)?)),
        (Func::Initcap, [s]) => Value::Text(initcap(&text(s)?)),
        (Func::Md5, [s]) => {
            let digest = Md5::digest(text(s)?.as_bytes());
            let mut hex = String::with_capacity(32);
            for b in digest {
                hex.push_str(&format!("{b:02x}"));
            }
            Value::Text(hex)
        }
        (Func::Random, []) => Value::Float8(random()),
        _ => {
            return Err(Error::internal(format!(
                "{func:?} called with unexpected arguments"
            )));
        }
    })
}

/// lpad / rpad: `s` cut or padded with `fill` (cycled) to `len` characters.
fn pad(s: &str, len: i32, fill: &str, left: bool, ctx: &ExecContext) -> Result<String> {
    let len = len.max(0) as i64;
    let s_chars = s.chars().count() as i64;
    let keep = s_chars.min(len);
    let len = if fill.is_empty() { keep } else { len };
    let bytes = len * UTF8_BYTES_MAX;
    if bytes + 4 > ALLOC_BYTES_MAX {
        return Err(Error::new("54000", "requested length too large"));
    }
    ctx.charge_memory(bytes as usize)?;
    let kept: String = s.chars().take(keep as usize).collect();
    let padding: String = fill.chars().cycle().take((len - keep) as usize).collect();
    Ok(if left {
        padding + &kept
    } else {
        kept + &padding
    })
}

/// split_part: field `n` (1-based; negative counts from the end) of `s` split on `delim`.
fn split_part(s: &str, delim: &str, n: i32) -> Result<String> {
    if n == 0 {
        return Err(Error::new("22023", "field position must not be zero"));
    }
    if s.is_empty() {
        return Ok(String::new());
    }
    if delim.is_empty() {
        // The whole string is the only field.
        return Ok(if n == 1 || n == -1 {
            s.to_string()
        } else {
            String::new()
        });
    }
    let fields: Vec<&str> = s.split(delim).collect();
    let index = if n > 0 {
        (n - 1) as usize
    } else {
        let back = n.unsigned_abs() as usize;
        if back > fields.len() {
            return Ok(String::new());
        }
        fields.len() - back
    };
    Ok(fields.get(index).map_or(String::new(), |f| f.to_string()))
}

/// translate: each character of `s` found in `from` becomes the one at the same
/// position of `to`, or disappears when `to` is shorter.
fn translate(s: &str, from: &str, to: &str) -> String {
    let from: Vec<char> = from.chars().collect();
    let to: Vec<char> = to.chars().collect();
    s.chars()
        .filter_map(|c| match from.iter().position(|&f| f == c) {
            Some(i) => to.get(i).copied(),
            None => Some(c),
        })
        .collect()
}

/// initcap: the first letter of each run of letters and digits upper case, the rest
/// lower case.
fn initcap(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_word = false;
    for c in s.chars() {
        if in_word {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        in_word = c.is_alphanumeric();
    }
    out
}

/// PostgreSQL's pg_prng state (xoroshiro128**).
#[derive(Clone, Copy)]
struct Prng {
    s0: u64,
    s1: u64,
}

impl Prng {
    fn seeded(mut seed: u64) -> Prng {
        let mut splitmix = || {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut v = seed;
            v = (v ^ (v >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            v = (v ^ (v >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            v ^ (v >> 31)
        };
        let (s0, s1) = (splitmix(), splitmix());
        if s0 == 0 && s1 == 0 {
            Prng {
                s0: 0x5851_F42D_4C95_7F2D,
                s1: 0x1405_7B7E_F767_814F,
            }
        } else {
            Prng { s0, s1 }
        }
    }

    fn next(&mut self) -> u64 {
        let s0 = self.s0;
        let sx = self.s1 ^ s0;
        let val = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        self.s0 = s0.rotate_left(24) ^ sx ^ (sx << 16);
        self.s1 = sx.rotate_left(37);
        val
    }

    /// A double in [0, 1) from the top 52 bits (pg_prng_double).
    fn double(&mut self) -> f64 {
        (self.next() >> 12) as f64 * (2f64).powi(-52)
    }
}

thread_local! {
    // One generator per connection thread (= per session), as PostgreSQL keeps one per
    // backend.
    static PRNG: RefCell<Option<Prng>> = const { RefCell::new(None) };
}

fn random() -> f64 {
    PRNG.with(|p| {
        let mut p = p.borrow_mut();
        let prng = p.get_or_insert_with(|| {
            // Seeded from the clock and the thread, as PostgreSQL seeds from its
            // strong random source when it can.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            let thread = std::thread::current().id();
            let mut h = std::hash::DefaultHasher::new();
            std::hash::Hash::hash(&thread, &mut h);
            Prng::seeded(nanos ^ std::hash::Hasher::finish(&h))
        });
        prng.double()
    })
}

/// format(fmt, args…) row by row (PostgreSQL's text_format): `%[n$][-][width]type`
/// with type `s` (the value's text, NULL as nothing), `I` (quote_ident; NULL is an
/// error) or `L` (quote_literal; NULL as `NULL`), a width of digits, `*` or `*n$`
/// (from an argument; negative means left-justified), `%%` for a percent sign.
pub fn format(vs: &[Vector], types: &[DataType], n: usize, ctx: &ExecContext) -> Result<Vector> {
    let mut out = Vector::with_capacity(DataType::Text, n);
    let mut args: Vec<Option<String>> = Vec::with_capacity(vs.len());
    let mut buf = Vec::new();
    for i in 0..n {
        args.clear();
        for (v, &t) in vs.iter().zip(types) {
            if v.is_null(i) {
                args.push(None);
            } else {
                buf.clear();
                crate::wire::encode::text_value(&mut buf, v, i, t, &ctx.fmt);
                args.push(Some(String::from_utf8_lossy(&buf).into_owned()));
            }
        }
        match args.first() {
            Some(Some(f)) => {
                let s = format_row(f, &args[1..], ctx)?;
                out.push_value(&Value::Text(s));
            }
            _ => out.push_null(),
        }
    }
    Ok(out)
}

fn format_error(message: &str) -> Error {
    Error::new("22023", message.to_string())
}

fn unterminated() -> Error {
    format_error("unterminated format() type specifier").with_hint("For a single \"%\" use \"%%\".")
}

fn format_row(fmt: &str, args: &[Option<String>], ctx: &ExecContext) -> Result<String> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::with_capacity(fmt.len());
    // The next argument (1 is the first after the format).
    let mut next = 1usize;
    let nargs = args.len() + 1;
    let mut i = 0;
    // Digits at `i`: their value, None when there are none.
    let digits = |i: &mut usize| -> Result<Option<usize>> {
        let mut value: Option<usize> = None;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            let d = chars[*i] as usize - '0' as usize;
            let v = value
                .unwrap_or(0)
                .checked_mul(10)
                .and_then(|v| v.checked_add(d))
                .filter(|v| *v <= i32::MAX as usize)
                .ok_or_else(|| Error::new("22003", "number is out of range"))?;
            value = Some(v);
            *i += 1;
            if *i >= chars.len() {
                return Err(unterminated());
            }
        }
        Ok(value)
    };
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        if i >= chars.len() {
            return Err(unterminated());
        }
        if chars[i] == '%' {
            out.push('%');
            i += 1;
            continue;
        }
        let mut argpos = None;
        let mut widthpos: Option<usize> = None;
        let mut left = false;
        let mut width: i64 = 0;
        if let Some(v) = digits(&mut i)? {
            if chars[i] == '$' {
                if v == 0 {
                    return Err(format_error(
                        "format specifies argument 0, but arguments are numbered from 1",
                    ));
                }
                argpos = Some(v);
                i += 1;
                if i >= chars.len() {
                    return Err(unterminated());
                }
            } else {
                width = v as i64;
            }
        }
        if width == 0 {
            while chars[i] == '-' {
                left = true;
                i += 1;
                if i >= chars.len() {
                    return Err(unterminated());
                }
            }
            if chars[i] == '*' {
                i += 1;
                if i >= chars.len() {
                    return Err(unterminated());
                }
                match digits(&mut i)? {
                    Some(v) => {
                        if chars[i] != '$' {
                            return Err(format_error(
                                "width argument position must be ended by \"$\"",
                            ));
                        }
                        if v == 0 {
                            return Err(format_error(
                                "format specifies argument 0, but arguments are numbered from 1",
                            ));
                        }
                        widthpos = Some(v);
                        i += 1;
                        if i >= chars.len() {
                            return Err(unterminated());
                        }
                    }
                    None => widthpos = Some(0),
                }
            } else if let Some(v) = digits(&mut i)? {
                width = v as i64;
            }
        }
        let conversion = chars[i];
        i += 1;
        if !matches!(conversion, 's' | 'I' | 'L') {
            return Err(format_error(&format!(
                "unrecognized format() type specifier \"{conversion}\""
            ))
            .with_hint("For a single \"%\" use \"%%\"."));
        }
        let too_few = || format_error("too few arguments for format()");
        if let Some(wp) = widthpos {
            if wp > 0 {
                next = wp;
            }
            if next >= nargs {
                return Err(too_few());
            }
            width = match &args[next - 1] {
                None => 0,
                Some(t) => {
                    match super::super::types::text::parse_value(t, DataType::Int4, &ctx.fmt)? {
                        Value::Int4(w) => w as i64,
                        _ => 0,
                    }
                }
            };
            next += 1;
        }
        if let Some(p) = argpos {
            next = p;
        }
        if next >= nargs {
            return Err(too_few());
        }
        let value = &args[next - 1];
        next += 1;
        let text = match (conversion, value) {
            ('L', None) => "NULL".to_string(),
            ('I', None) => {
                return Err(Error::new(
                    "22004",
                    "null values cannot be formatted as an SQL identifier",
                ));
            }
            ('I', Some(v)) => crate::catalog::system::quote_ident(v),
            ('L', Some(v)) => super::functions::quote_literal(v),
            (_, Some(v)) => v.clone(),
            (_, None) => String::new(),
        };
        if width < 0 {
            if width <= i32::MIN as i64 {
                return Err(Error::new("22003", "number is out of range"));
            }
            left = true;
            width = -width;
        }
        let len = text.chars().count() as i64;
        let pad = (width - len).max(0);
        if pad > ALLOC_BYTES_MAX - out.len() as i64 {
            return Err(Error::new("54000", "requested length too large"));
        }
        ctx.charge_memory(pad as usize)?;
        let spaces = " ".repeat(pad as usize);
        if left {
            out.push_str(&text);
            out.push_str(&spaces);
        } else {
            out.push_str(&spaces);
            out.push_str(&text);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_part_and_translate_like_postgres() -> Result<()> {
        assert_eq!(split_part("a,b,c", ",", 2)?, "b");
        assert_eq!(split_part("a,b,c", ",", -1)?, "c");
        assert_eq!(split_part("a,b,c", ",", 4)?, "");
        assert_eq!(split_part("abc", "", 1)?, "abc");
        assert_eq!(split_part("", ",", 1)?, "");
        assert_eq!(split_part("a", ",", 0).unwrap_err().code, "22023");
        assert_eq!(translate("12345", "143", "ax"), "a2x5");
        assert_eq!(initcap("hello wORLD-foo_bar 3x"), "Hello World-Foo_Bar 3x");
        Ok(())
    }
}
