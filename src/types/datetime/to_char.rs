//! `to_char` for dates, timestamps and intervals: PostgreSQL's template patterns
//! (`formatting.c`, the DCH half).
//!
//! A format is read left to right into nodes, as `parse_format` reads it: an optional
//! `FM` / `TM` prefix, then the longest keyword that matches at that point (keywords
//! are case-sensitive; `Month`, `MONTH` and `month` are three keywords, `Yyyy` is `Y`
//! then `yyy`), then an optional `TH` / `th` suffix; anything else is literal text,
//! `"…"` quotes literal text (a backslash escapes the next character inside it) and
//! `\"` is a quote outside it. Each keyword then prints a field of the broken-down
//! value with PostgreSQL's widths (names padded to nine characters unless `FM`,
//! numbers zero-padded unless `FM`), `TH` adds an ordinal suffix. `TM` (translation)
//! prints C-locale names, unpadded.

use super::fields::{date2isoweek, date2isoyear, j2day};
use super::{Interval, USECS_PER_DAY, USECS_PER_SEC, date2j, j2date};
use crate::error::{Error, Result};

/// What `to_char` formats: a broken-down value.
#[derive(Clone, Debug, Default)]
pub struct Parts {
    /// The year as PostgreSQL's tm keeps it: 0 is 1 BC (for an interval, years).
    pub year: i32,
    pub mon: i32,
    pub mday: i32,
    pub hour: i64,
    pub min: i32,
    pub sec: i32,
    pub usec: i32,
    /// Day of the week, 0 = Sunday.
    pub wday: i32,
    /// Day of the year (1-based).
    pub yday: i32,
    /// The zone's offset east of UTC in seconds, and its abbreviation.
    pub gmtoff: i32,
    pub zone: Option<String>,
    pub interval: bool,
}

/// A timestamp's parts (`local` is wall-clock microseconds since 2000-01-01).
pub fn timestamp_parts(local: i64, gmtoff: i32, zone: Option<String>) -> Parts {
    let days = local.div_euclid(USECS_PER_DAY);
    let tod = local.rem_euclid(USECS_PER_DAY);
    let jd = days as i32 + super::POSTGRES_EPOCH_JDATE;
    let (year, mon, mday) = j2date(jd);
    let secs = tod / USECS_PER_SEC;
    Parts {
        year,
        mon,
        mday,
        hour: secs / 3600,
        min: (secs / 60 % 60) as i32,
        sec: (secs % 60) as i32,
        usec: (tod % USECS_PER_SEC) as i32,
        wday: j2day(jd),
        yday: jd - date2j(year, 1, 1) + 1,
        gmtoff,
        zone,
        interval: false,
    }
}

/// An interval's parts (interval2tm, with interval_to_char's day of the year).
pub fn interval_parts(iv: &Interval) -> Parts {
    let year = iv.months / 12;
    let mon = iv.months % 12;
    let hour = iv.micros / (3600 * USECS_PER_SEC);
    let rest = iv.micros % (3600 * USECS_PER_SEC);
    let min = (rest / (60 * USECS_PER_SEC)) as i32;
    let rest = rest % (60 * USECS_PER_SEC);
    Parts {
        year,
        mon,
        mday: iv.days,
        hour,
        min,
        sec: (rest / USECS_PER_SEC) as i32,
        usec: (rest % USECS_PER_SEC) as i32,
        wday: 0,
        yday: (year * 12 + mon) * 30 + iv.days,
        gmtoff: 0,
        zone: None,
        interval: true,
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const ROMAN_MONTHS: [&str; 12] = [
    "XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I",
];

/// The keywords, longest first where one is a prefix of another.
const KEYWORDS: &[&str] = &[
    "A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
    "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW",
    "IYYY", "IYY", "IY", "I", "J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF", "P.M.",
    "PM", "Q", "RM", "SSSSS", "SSSS", "SS", "TZH", "TZM", "TZ", "US", "WW", "W", "Y,YYY", "YYYY",
    "YYY", "YY", "Y", "a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy",
    "d", "ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw",
    "iyyy", "iyy", "iy", "i", "j", "mi", "mm", "month", "mon", "ms", "of", "p.m.", "pm", "q", "rm",
    "sssss", "ssss", "ss", "tz", "tzh", "tzm", "us", "ww", "w", "y,yyy", "yyyy", "yyy", "yy", "y",
];

enum Node {
    Key {
        key: &'static str,
        fm: bool,
        tm: bool,
        th: Option<bool>,
    },
    Char(char),
}

fn parse(format: &str) -> Vec<Node> {
    let mut nodes = Vec::new();
    let mut rest = format;
    while !rest.is_empty() {
        let (mut fm, mut tm) = (false, false);
        for (p, is_fm) in [("FM", true), ("fm", true), ("TM", false), ("tm", false)] {
            if let Some(r) = rest.strip_prefix(p) {
                if is_fm {
                    fm = true;
                } else {
                    tm = true;
                }
                rest = r;
                break;
            }
        }
        if rest.is_empty() {
            break;
        }
        // `tz` and `tzh` / `tzm`: the longest keyword wins.
        let key = KEYWORDS
            .iter()
            .filter(|k| rest.starts_with(**k))
            .max_by_key(|k| k.len());
        if let Some(key) = key {
            rest = &rest[key.len()..];
            let th = if let Some(r) = rest.strip_prefix("TH") {
                rest = r;
                Some(true)
            } else if let Some(r) = rest.strip_prefix("th") {
                rest = r;
                Some(false)
            } else {
                None
            };
            nodes.push(Node::Key { key, fm, tm, th });
            continue;
        }
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        if c == '"' {
            rest = chars.as_str();
            let mut quoted = rest.chars();
            loop {
                match quoted.next() {
                    None => break,
                    Some('"') => break,
                    Some('\\') => {
                        let save = quoted.clone();
                        match quoted.next() {
                            Some(n) => nodes.push(Node::Char(n)),
                            None => {
                                quoted = save;
                                nodes.push(Node::Char('\\'));
                            }
                        }
                    }
                    Some(ch) => nodes.push(Node::Char(ch)),
                }
            }
            rest = quoted.as_str();
            continue;
        }
        if c == '\\' && rest[1..].starts_with('"') {
            nodes.push(Node::Char('"'));
            rest = &rest[2..];
            continue;
        }
        nodes.push(Node::Char(c));
        rest = chars.as_str();
    }
    nodes
}

/// The ordinal suffix of a number's text (str_numth); `upper` for `TH`.
fn ordinal(num: &str, upper: bool) -> Result<&'static str> {
    let b = num.as_bytes();
    let Some(&last) = b.last().filter(|c| c.is_ascii_digit()) else {
        return Err(Error::new("22023", format!("\"{num}\" is not a number")));
    };
    let last = if b.len() > 1 && b[b.len() - 2] == b'1' {
        b'0'
    } else {
        last
    };
    Ok(match (last, upper) {
        (b'1', true) => "ST",
        (b'1', false) => "st",
        (b'2', true) => "ND",
        (b'2', false) => "nd",
        (b'3', true) => "RD",
        (b'3', false) => "rd",
        (_, true) => "TH",
        (_, false) => "th",
    })
}

/// C's `%0*d`: at least `width` characters, zero-padded after the sign.
fn zero_pad(v: i64, width: usize) -> String {
    if v < 0 {
        format!("-{:0>w$}", v.unsigned_abs(), w = width.saturating_sub(1))
    } else {
        format!("{v:0>width$}")
    }
}

fn invalid_for_interval() -> Error {
    Error::new(
        "22007",
        "invalid format specification for an interval value",
    )
    .with_hint("Intervals are not tied to specific calendar dates.")
}

/// to_char(value, format).
pub fn to_char(p: &Parts, format: &str) -> Result<String> {
    let mut out = String::with_capacity(format.len() * 2);
    // ADJUST_YEAR: BC years count from 1 (not for intervals).
    let adjust = |year: i32| -> i64 {
        if p.interval || year > 0 {
            year as i64
        } else {
            -(year as i64 - 1)
        }
    };
    for node in parse(format) {
        let (key, fm, tm, th) = match node {
            Node::Char(c) => {
                out.push(c);
                continue;
            }
            Node::Key { key, fm, tm, th } => (key, fm, tm, th),
        };
        let width = |w: usize| if fm { 0 } else { w };
        let lower_key = key.to_ascii_lowercase();
        let name_case = |name: &str| -> String {
            if key.chars().all(|c| !c.is_ascii_lowercase()) {
                name.to_ascii_uppercase()
            } else if key.chars().all(|c| !c.is_ascii_uppercase()) {
                name.to_ascii_lowercase()
            } else {
                name.to_string()
            }
        };
        // A number, with its TH suffix when asked.
        let num = |s: String, out: &mut String| -> Result<()> {
            out.push_str(&s);
            if let Some(upper) = th {
                out.push_str(ordinal(&s, upper)?);
            }
            Ok(())
        };
        match lower_key.as_str() {
            "fx" => {}
            "a.m." | "p.m." | "am" | "pm" => {
                let pm = p.hour % 24 >= 12;
                let s = match (lower_key.len(), pm) {
                    (4, true) => "p.m.",
                    (4, false) => "a.m.",
                    (_, true) => "pm",
                    (_, false) => "am",
                };
                out.push_str(&name_case(s));
            }
            "hh" | "hh12" => {
                let h = p.hour % 12;
                let h = if h == 0 { 12 } else { h };
                num(
                    zero_pad(h, width(if p.hour >= 0 { 2 } else { 3 })),
                    &mut out,
                )?;
            }
            "hh24" => num(
                zero_pad(p.hour, width(if p.hour >= 0 { 2 } else { 3 })),
                &mut out,
            )?,
            "mi" => num(
                zero_pad(p.min as i64, width(if p.min >= 0 { 2 } else { 3 })),
                &mut out,
            )?,
            "ss" => num(
                zero_pad(p.sec as i64, width(if p.sec >= 0 { 2 } else { 3 })),
                &mut out,
            )?,
            "ff1" | "ff2" | "ff3" | "ff4" | "ff5" | "ff6" | "ms" | "us" => {
                let digits = match lower_key.as_str() {
                    "ms" => 3,
                    "us" => 6,
                    k => (k.as_bytes()[2] - b'0') as u32,
                };
                let v = p.usec as i64 / 10i64.pow(6 - digits);
                num(zero_pad(v, digits as usize), &mut out)?;
            }
            "ssss" | "sssss" => num(
                (p.hour * 3600 + p.min as i64 * 60 + p.sec as i64).to_string(),
                &mut out,
            )?,
            "tz" => {
                if p.interval {
                    return Err(invalid_for_interval());
                }
                if let Some(z) = &p.zone {
                    out.push_str(&if key == "tz" {
                        z.to_ascii_lowercase()
                    } else {
                        z.clone()
                    });
                }
            }
            "tzh" | "tzm" | "of" => {
                if p.interval {
                    return Err(invalid_for_interval());
                }
                let abs = p.gmtoff.unsigned_abs() as i64;
                let sign = if p.gmtoff >= 0 { '+' } else { '-' };
                match lower_key.as_str() {
                    "tzh" => out.push_str(&format!("{sign}{:02}", abs / 3600)),
                    "tzm" => out.push_str(&format!("{:02}", abs % 3600 / 60)),
                    _ => {
                        out.push(sign);
                        out.push_str(&zero_pad(abs / 3600, width(2)));
                        if abs % 3600 != 0 {
                            out.push_str(&format!(":{:02}", abs % 3600 / 60));
                        }
                    }
                }
            }
            "a.d." | "b.c." | "ad" | "bc" => {
                if p.interval {
                    return Err(invalid_for_interval());
                }
                let bc = p.year <= 0;
                let s = match (lower_key.len(), bc) {
                    (4, true) => "b.c.",
                    (4, false) => "a.d.",
                    (_, true) => "bc",
                    (_, false) => "ad",
                };
                out.push_str(&name_case(s));
            }
            "month" | "mon" => {
                if p.interval {
                    return Err(invalid_for_interval());
                }
                if p.mon == 0 {
                    continue;
                }
                let full = MONTHS[(p.mon - 1) as usize];
                let name = if lower_key == "mon" { &full[..3] } else { full };
                let name = name_case(name);
                if lower_key == "month" && !fm && !tm {
                    out.push_str(&format!("{name:<9}"));
                } else {
                    out.push_str(&name);
                }
            }
            "day" | "dy" => {
                if p.interval {
                    return Err(invalid_for_interval());
                }
                let full = DAYS[p.wday.rem_euclid(7) as usize];
                let name = if lower_key == "dy" { &full[..3] } else { full };
                let name = name_case(name);
                if lower_key == "day" && !fm && !tm {
                    out.push_str(&format!("{name:<9}"));
                } else {
                    out.push_str(&name);
                }
            }
            "mm" => num(
                zero_pad(p.mon as i64, width(if p.mon >= 0 { 2 } else { 3 })),
                &mut out,
            )?,
            "ddd" => num(zero_pad(p.yday as i64, width(3)), &mut out)?,
            "iddd" => {
                let iso_year = date2isoyear(p.year, p.mon, p.mday);
                let monday = date2j(iso_year, 1, 4) - j2day(date2j(iso_year, 1, 4) - 1);
                let v = date2j(p.year, p.mon, p.mday) - monday + 1;
                num(zero_pad(v as i64, width(3)), &mut out)?;
            }
            "dd" => num(zero_pad(p.mday as i64, width(2)), &mut out)?,
            "d" => {
                if p.interval {
                    return Err(invalid_for_interval());
                }
                num((p.wday + 1).to_string(), &mut out)?;
            }
            "id" => {
                if p.interval {
                    return Err(invalid_for_interval());
                }
                num((if p.wday == 0 { 7 } else { p.wday }).to_string(), &mut out)?;
            }
            "ww" => num(zero_pad(((p.yday - 1) / 7 + 1) as i64, width(2)), &mut out)?,
            "iw" => {
                num(
                    zero_pad(date2isoweek(p.year, p.mon, p.mday) as i64, width(2)),
                    &mut out,
                )?;
            }
            "q" => {
                if p.mon == 0 {
                    continue;
                }
                num(((p.mon - 1) / 3 + 1).to_string(), &mut out)?;
            }
            "cc" => {
                let c = if p.interval {
                    p.year / 100
                } else if p.year > 0 {
                    (p.year - 1) / 100 + 1
                } else {
                    p.year / 100 - 1
                };
                let s = if (-99..=99).contains(&c) {
                    zero_pad(c as i64, width(if c >= 0 { 2 } else { 3 }))
                } else {
                    c.to_string()
                };
                num(s, &mut out)?;
            }
            "y,yyy" => {
                let y = adjust(p.year);
                let thousands = y / 1000;
                num(format!("{thousands},{:03}", y - thousands * 1000), &mut out)?;
            }
            "yyyy" | "iyyy" | "yyy" | "iyy" | "yy" | "iy" | "y" | "i" => {
                let iso = lower_key.starts_with('i');
                let y = if iso {
                    adjust(date2isoyear(p.year, p.mon, p.mday))
                } else {
                    adjust(p.year)
                };
                let digits = lower_key.len();
                let s = match digits {
                    4 => zero_pad(y, width(if y >= 0 { 4 } else { 5 })),
                    3 => zero_pad(y % 1000, width(if y >= 0 { 3 } else { 4 })),
                    2 => zero_pad(y % 100, width(if y >= 0 { 2 } else { 3 })),
                    _ => (y % 10).to_string(),
                };
                num(s, &mut out)?;
            }
            "rm" => {
                if p.mon == 0 {
                    continue;
                }
                let r = ROMAN_MONTHS[(12 - p.mon) as usize];
                let r = if key == "rm" {
                    r.to_ascii_lowercase()
                } else {
                    r.to_string()
                };
                if fm {
                    out.push_str(&r);
                } else {
                    out.push_str(&format!("{r:<4}"));
                }
            }
            "w" => num(((p.mday - 1) / 7 + 1).to_string(), &mut out)?,
            "j" => num(date2j(p.year, p.mon, p.mday).to_string(), &mut out)?,
            _ => return Err(Error::internal(format!("to_char keyword {key}"))),
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// to_date / to_timestamp: the same patterns read back (DCH_from_char, then
// do_to_timestamp's assembly of the fields).

/// Whether a keyword reads digits (is_digit in PostgreSQL's table).
fn is_digit_key(key: &str) -> bool {
    !matches!(
        key.to_ascii_lowercase().as_str(),
        "a.d."
            | "a.m."
            | "ad"
            | "am"
            | "b.c."
            | "bc"
            | "day"
            | "dy"
            | "mon"
            | "month"
            | "p.m."
            | "pm"
            | "rm"
            | "tz"
            | "of"
            | "fx"
    )
}

/// The fields read (TmFromChar); 0 is unset, as in PostgreSQL.
#[derive(Default)]
struct FromChar {
    iso: Option<bool>,
    hh: i32,
    pm: i32,
    twelve: bool,
    mi: i32,
    ss: i32,
    ssss: i32,
    d: i32,
    dd: i32,
    ddd: i32,
    mm: i32,
    ms: i32,
    year: i32,
    bc: i32,
    ww: i32,
    w: i32,
    cc: i32,
    j: i32,
    us: i32,
    yysz: i32,
    ff: i32,
    tzsign: i32,
    tzh: i32,
    tzm: i32,
}

fn format_error(msg: String) -> Error {
    Error::new("22007", msg)
}

fn set_int(dest: &mut i32, value: i32, key: &str) -> Result<()> {
    if *dest != 0 && *dest != value {
        return Err(format_error(format!(
            "conflicting values for \"{key}\" field in formatting string"
        ))
        .with_detail("This value contradicts a previous setting for the same field type."));
    }
    *dest = value;
    Ok(())
}

/// PostgreSQL's 2-digit (and 3-digit) year rule: toward 2020.
fn adjust_partial_year(year: i32) -> i32 {
    if year < 70 {
        year + 2000
    } else if year < 100 {
        year + 1900
    } else if year < 520 {
        year + 2000
    } else if year < 1000 {
        year + 1000
    } else {
        year
    }
}

/// C's strtol over the start of `s`: (value, bytes used); leading blanks skipped.
fn strtol(s: &[u8]) -> (i64, usize, bool) {
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let digits_start = i;
    let mut v: i64 = 0;
    let mut overflow = false;
    while i < s.len() && s[i].is_ascii_digit() {
        v = match v
            .checked_mul(10)
            .and_then(|v| v.checked_add((s[i] - b'0') as i64))
        {
            Some(v) => v,
            None => {
                overflow = true;
                i64::MAX
            }
        };
        i += 1;
    }
    if i == digits_start {
        return (0, 0, false);
    }
    (if neg { -v } else { v }, i, overflow)
}

struct Reader<'a> {
    s: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &[u8] {
        &self.s[self.at.min(self.s.len())..]
    }

    fn skip_spaces(&mut self) -> usize {
        let n = self
            .rest()
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        self.at += n;
        n
    }
}

/// from_char_parse_int_len: an integer of `len` characters (or as many as there are
/// when `slurp`: fill mode, or a separator next).
fn parse_int(r: &mut Reader, len: usize, slurp: bool, key: &str) -> Result<(i32, usize)> {
    let init = r.at;
    r.skip_spaces();
    let rest = r.rest();
    let copy_len = rest.len().min(len);
    let copy = String::from_utf8_lossy(&rest[..copy_len]).into_owned();
    let (value, used, overflow) =
        if slurp {
            let (v, used, o) = strtol(&r.s[init..]);
            r.at = init + used;
            (v, used, o)
        } else {
            if copy_len < len {
                return Err(format_error(format!(
                    "source string too short for \"{key}\" formatting field"
                ))
                .with_detail(format!(
                    "Field requires {len} characters, but only {copy_len} remain."
                ))
                .with_hint(
                    "If your source string is not fixed-width, try using the \"FM\" modifier.",
                ));
            }
            let (v, used, o) = strtol(copy.as_bytes());
            if used > 0 && used < len {
                return Err(format_error(format!("invalid value \"{copy}\" for \"{key}\""))
                .with_detail(format!(
                    "Field requires {len} characters, but only {used} could be parsed."
                ))
                .with_hint(
                    "If your source string is not fixed-width, try using the \"FM\" modifier.",
                ));
            }
            r.at += used;
            (v, used, o)
        };
    if used == 0 || r.at == init {
        return Err(
            format_error(format!("invalid value \"{copy}\" for \"{key}\""))
                .with_detail("Value must be an integer."),
        );
    }
    if overflow || value < i32::MIN as i64 || value > i32::MAX as i64 {
        return Err(Error::new(
            "22008",
            format!("value for \"{key}\" in source string is out of range"),
        )
        .with_detail("Value must be in the range -2147483648 to 2147483647."));
    }
    Ok((value as i32, r.at - init))
}

/// from_char_seq_search: which of `words` the input starts with (case-insensitive).
fn seq_search(r: &mut Reader, words: &[&str], key: &str) -> Result<usize> {
    let rest = r.rest();
    for (i, w) in words.iter().enumerate() {
        if rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w.as_bytes()) {
            r.at += w.len();
            return Ok(i);
        }
    }
    // PostgreSQL shows the rest of the input up to its next blank.
    let shown: String = String::from_utf8_lossy(rest)
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    Err(
        format_error(format!("invalid value \"{shown}\" for \"{key}\""))
            .with_detail("The given value did not match any of the allowed values for this field."),
    )
}

/// A broken-down result of to_date / to_timestamp.
pub struct Parsed {
    pub year: i32,
    pub mon: i32,
    pub mday: i32,
    pub hour: i32,
    pub min: i32,
    pub sec: i32,
    pub usec: i64,
    /// A written zone offset (seconds east), if any.
    pub gmtoff: Option<i32>,
    /// FF1…FF6's precision, if given.
    pub precision: Option<i32>,
}

/// DCH_from_char and do_to_timestamp: `input` read against `format`.
pub fn from_char(input: &str, format: &str, type_name: &str) -> Result<Parsed> {
    let nodes = parse(format);
    let mut f = FromChar::default();
    let mut r = Reader {
        s: input.as_bytes(),
        at: 0,
    };
    let mut fx = false;
    let mut extra_skip: i64 = 0;
    for (idx, node) in nodes.iter().enumerate() {
        if r.at >= r.s.len() {
            break;
        }
        let is_action = matches!(node, Node::Key { .. });
        let is_fx = matches!(node, Node::Key { key, .. } if key.eq_ignore_ascii_case("fx"));
        if !fx && !is_fx && (is_action || idx == 0) {
            extra_skip += r.skip_spaces() as i64;
        }
        let (key, fm, th) = match node {
            Node::Char(c) => {
                let separator = c.is_ascii_punctuation() && !matches!(c, '"');
                if c.is_whitespace() || separator {
                    if !fx {
                        extra_skip -= 1;
                        if let Some(&b) = r.rest().first()
                            && (b.is_ascii_whitespace() || (b.is_ascii_punctuation()))
                        {
                            r.at += 1;
                            extra_skip += 1;
                        }
                    } else {
                        r.at += char_len(r.rest());
                    }
                } else if !fx {
                    if extra_skip > 0 {
                        extra_skip -= 1;
                    } else {
                        r.at += char_len(r.rest());
                    }
                } else {
                    r.at += char_len(r.rest());
                }
                continue;
            }
            Node::Key { key, fm, th, .. } => (*key, *fm, th.is_some()),
        };
        let lower = key.to_ascii_lowercase();
        // Gregorian and ISO week fields may not mix.
        let iso = match lower.as_str() {
            "iyyy" | "iyy" | "iy" | "i" | "iw" | "id" | "iddd" => Some(true),
            "yyyy" | "yyy" | "yy" | "y" | "y,yyy" | "mm" | "month" | "mon" | "ww" | "w" | "dd"
            | "ddd" | "d" | "day" | "dy" | "rm" => Some(false),
            _ => None,
        };
        if let Some(mode) = iso {
            match f.iso {
                Some(m) if m != mode => {
                    return Err(format_error("invalid combination of date conventions".into())
                        .with_hint("Do not mix Gregorian and ISO week date conventions in a formatting template."));
                }
                _ => f.iso = Some(mode),
            }
        }
        let slurp = fm || {
            // is_next_separator
            if th {
                true
            } else {
                match nodes.get(idx + 1) {
                    None => true,
                    Some(Node::Key { key, .. }) => !is_digit_key(key),
                    Some(Node::Char(c)) => !c.is_ascii_digit(),
                }
            }
        };
        let int = |r: &mut Reader, len: usize| parse_int(r, len, slurp, key);
        match lower.as_str() {
            "fx" => fx = true,
            "a.m." | "p.m." => {
                let v = seq_search(&mut r, &["a.m.", "p.m."], key)?;
                set_int(&mut f.pm, v as i32 % 2, key)?;
                f.twelve = true;
            }
            "am" | "pm" => {
                let v = seq_search(&mut r, &["am", "pm"], key)?;
                set_int(&mut f.pm, v as i32 % 2, key)?;
                f.twelve = true;
            }
            "hh" | "hh12" => {
                let (v, _) = int(&mut r, 2)?;
                set_int(&mut f.hh, v, key)?;
                f.twelve = true;
            }
            "hh24" => set_int(&mut f.hh, int(&mut r, 2)?.0, key)?,
            "mi" => set_int(&mut f.mi, int(&mut r, 2)?.0, key)?,
            "ss" => set_int(&mut f.ss, int(&mut r, 2)?.0, key)?,
            "ms" => {
                let (v, len) = int(&mut r, 3)?;
                let scale = match len {
                    1 => 100,
                    2 => 10,
                    _ => 1,
                };
                set_int(&mut f.ms, v * scale, key)?;
            }
            "ff1" | "ff2" | "ff3" | "ff4" | "ff5" | "ff6" | "us" => {
                let digits = if lower == "us" {
                    6
                } else {
                    f.ff = (lower.as_bytes()[2] - b'0') as i32;
                    f.ff as usize
                };
                let (v, len) = int(&mut r, digits)?;
                let scale = 10i32.pow(6u32.saturating_sub(len.min(6) as u32));
                set_int(&mut f.us, v * scale, key)?;
            }
            "ssss" | "sssss" => set_int(&mut f.ssss, int(&mut r, key.len())?.0, key)?,
            "tz" | "of" => {
                return Err(Error::new(
                    "0A000",
                    format!("formatting field \"{key}\" is only supported in to_char"),
                ));
            }
            "tzh" => {
                match r.rest().first() {
                    Some(b'+') | Some(b'-') | Some(b' ') => {
                        f.tzsign = if r.rest()[0] == b'-' { -1 } else { 1 };
                        r.at += 1;
                    }
                    _ => {
                        f.tzsign = if extra_skip > 0 && r.at > 0 && r.s[r.at - 1] == b'-' {
                            -1
                        } else {
                            1
                        };
                    }
                }
                let (v, _) = int(&mut r, 2)?;
                set_int(&mut f.tzh, v, key)?;
            }
            "tzm" => {
                if f.tzsign == 0 {
                    f.tzsign = 1;
                }
                set_int(&mut f.tzm, int(&mut r, 2)?.0, key)?;
            }
            "a.d." | "b.c." => {
                let v = seq_search(&mut r, &["a.d.", "b.c."], key)?;
                set_int(&mut f.bc, v as i32 % 2, key)?;
            }
            "ad" | "bc" => {
                let v = seq_search(&mut r, &["ad", "bc"], key)?;
                set_int(&mut f.bc, v as i32 % 2, key)?;
            }
            "month" => {
                let v = seq_search(&mut r, &MONTHS, key)?;
                set_int(&mut f.mm, v as i32 + 1, key)?;
            }
            "mon" => {
                let short: Vec<&str> = MONTHS.iter().map(|m| &m[..3]).collect();
                let v = seq_search(&mut r, &short, key)?;
                set_int(&mut f.mm, v as i32 + 1, key)?;
            }
            "mm" => set_int(&mut f.mm, int(&mut r, 2)?.0, key)?,
            "day" => {
                let v = seq_search(&mut r, &DAYS, key)?;
                set_int(&mut f.d, v as i32, key)?;
                f.d += 1;
            }
            "dy" => {
                let short: Vec<&str> = DAYS.iter().map(|d| &d[..3]).collect();
                let v = seq_search(&mut r, &short, key)?;
                set_int(&mut f.d, v as i32, key)?;
                f.d += 1;
            }
            "ddd" => set_int(&mut f.ddd, int(&mut r, 3)?.0, key)?,
            "iddd" => set_int(&mut f.ddd, int(&mut r, 3)?.0, key)?,
            "dd" => set_int(&mut f.dd, int(&mut r, 2)?.0, key)?,
            "d" => set_int(&mut f.d, int(&mut r, 1)?.0, key)?,
            "id" => {
                let (v, _) = int(&mut r, 1)?;
                set_int(&mut f.d, v, key)?;
                f.d += 1;
                if f.d > 7 {
                    f.d = 1;
                }
            }
            "ww" | "iw" => set_int(&mut f.ww, int(&mut r, 2)?.0, key)?,
            "q" => {
                int(&mut r, 1)?;
            }
            "cc" => set_int(&mut f.cc, int(&mut r, 2)?.0, key)?,
            "y,yyy" => {
                let rest = r.rest();
                let (mill, used1, _) = strtol(rest);
                let ok = used1 > 0 && rest.get(used1) == Some(&b',');
                // `%03d`: at most three digits after the comma.
                let after = if ok { &rest[used1 + 1..] } else { &rest[..0] };
                let used2 = after
                    .iter()
                    .take(3)
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                let years: i64 = std::str::from_utf8(&after[..used2])
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                if !ok || used2 == 0 {
                    return Err(format_error("invalid input string for \"Y,YYY\"".into()));
                }
                set_int(&mut f.year, (mill * 1000 + years) as i32, key)?;
                f.yysz = 4;
                r.at += used1 + 1 + used2;
            }
            "yyyy" | "iyyy" => {
                set_int(&mut f.year, int(&mut r, 4)?.0, key)?;
                f.yysz = 4;
            }
            "yyy" | "iyy" | "yy" | "iy" | "y" | "i" => {
                let digits = if lower.starts_with('i') {
                    lower.len() - 1
                } else {
                    lower.len()
                };
                let (v, len) = int(&mut r, digits)?;
                let v = if len < 4 { adjust_partial_year(v) } else { v };
                set_int(&mut f.year, v, key)?;
                f.yysz = digits as i32;
            }
            "rm" => {
                let upper: Vec<&str> = ROMAN_MONTHS.to_vec();
                let v = seq_search(&mut r, &upper, key)?;
                set_int(&mut f.mm, 12 - v as i32, key)?;
            }
            "w" => set_int(&mut f.w, int(&mut r, 1)?.0, key)?,
            "j" => set_int(&mut f.j, int(&mut r, 1)?.0, key)?,
            _ => {}
        }
        if th {
            // SKIP_THth: the ordinal suffix's two characters.
            for _ in 0..2 {
                r.at += char_len(r.rest());
            }
        }
        if !fx {
            extra_skip = r.skip_spaces() as i64;
        }
    }
    assemble(f, input, type_name)
}

fn char_len(rest: &[u8]) -> usize {
    match rest.first() {
        None => 0,
        Some(&b) if b < 0x80 => 1,
        Some(&b) if b >= 0xF0 => 4.min(rest.len()),
        Some(&b) if b >= 0xE0 => 3.min(rest.len()),
        Some(_) => 2.min(rest.len()),
    }
}

/// do_to_timestamp: the fields read, made into a date and time.
fn assemble(f: FromChar, input: &str, type_name: &str) -> Result<Parsed> {
    let overflow = || {
        Error::new(
            "22008",
            format!("date/time field value out of range: \"{input}\""),
        )
    };
    let _ = type_name;
    let mut p = Parsed {
        year: 0,
        mon: 1,
        mday: 1,
        hour: 0,
        min: 0,
        sec: 0,
        usec: 0,
        gmtoff: None,
        precision: None,
    };
    let mut year_set = false;
    let mut mon_set = false;
    let mut day_set = false;
    if f.ssss != 0 {
        p.hour = f.ssss / 3600;
        p.min = f.ssss % 3600 / 60;
        p.sec = f.ssss % 60;
    }
    if f.ss != 0 {
        p.sec = f.ss;
    }
    if f.mi != 0 {
        p.min = f.mi;
    }
    if f.hh != 0 {
        p.hour = f.hh;
    }
    if f.twelve {
        if p.hour < 1 || p.hour > 12 {
            return Err(format_error(format!(
                "hour \"{}\" is invalid for the 12-hour clock",
                p.hour
            ))
            .with_hint("Use the 24-hour clock, or give an hour between 1 and 12."));
        }
        if f.pm != 0 && p.hour < 12 {
            p.hour += 12;
        } else if f.pm == 0 && p.hour == 12 {
            p.hour = 0;
        }
    }
    let mut cc = f.cc;
    if f.year != 0 {
        if cc != 0 && f.yysz <= 2 {
            if f.bc != 0 {
                cc = -cc;
            }
            p.year = f.year % 100;
            if p.year != 0 {
                if cc >= 0 {
                    p.year += (cc - 1) * 100;
                } else {
                    p.year = (cc + 1) * 100 - p.year + 1;
                }
            } else {
                p.year = cc * 100 + if cc >= 0 { 0 } else { 1 };
            }
        } else {
            p.year = f.year;
            if f.bc != 0 {
                p.year = -p.year;
            }
            if p.year < 0 {
                p.year += 1;
            }
        }
        year_set = true;
    } else if cc != 0 {
        if f.bc != 0 {
            cc = -cc;
        }
        p.year = if cc >= 0 {
            (cc - 1) * 100 + 1
        } else {
            cc * 100 + 1
        };
        year_set = true;
    }
    if f.j != 0 {
        let (y, m, d) = j2date(f.j);
        (p.year, p.mon, p.mday) = (y, m, d);
        year_set = true;
        mon_set = true;
        day_set = true;
    }
    let mut ddd = f.ddd;
    let mut dd = f.dd;
    if f.ww != 0 {
        if f.iso == Some(true) {
            let monday = super::fields::isoweek2j(p.year, f.ww);
            let jd = if f.d != 0 {
                // isoweekdate2date: d is 1 (Sunday) … 7 in PostgreSQL's shifted numbering.
                let wday = if f.d == 1 { 7 } else { f.d - 1 };
                monday + wday - 1
            } else {
                monday
            };
            let (y, m, d) = j2date(jd);
            (p.year, p.mon, p.mday) = (y, m, d);
            year_set = true;
            mon_set = true;
            day_set = true;
        } else {
            ddd = (f.ww - 1) * 7 + 1;
        }
    }
    if f.w != 0 {
        dd = (f.w - 1) * 7 + 1;
    }
    if dd != 0 {
        p.mday = dd;
        day_set = true;
    }
    if f.mm != 0 {
        p.mon = f.mm;
        mon_set = true;
    }
    if ddd != 0 && (p.mon <= 1 || p.mday <= 1) {
        if p.year == 0 && f.bc == 0 {
            return Err(format_error(
                "cannot calculate day of year without year information".into(),
            ));
        }
        if f.iso == Some(true) {
            let j0 = super::fields::isoweek2j(p.year, 1) - 1;
            let (y, m, d) = j2date(j0 + ddd);
            (p.year, p.mon, p.mday) = (y, m, d);
            year_set = true;
            mon_set = true;
            day_set = true;
        } else {
            let leap = super::days_in_month(p.year, 2) == 29;
            let ysum: [i32; 13] = if leap {
                [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366]
            } else {
                [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365]
            };
            let mut i = 1;
            while i <= 12 && ddd > ysum[i] {
                i += 1;
            }
            let i = i.min(12);
            if p.mon <= 1 {
                p.mon = i as i32;
            }
            if p.mday <= 1 {
                p.mday = ddd - ysum[i - 1];
            }
            mon_set = true;
            day_set = true;
        }
    }
    p.usec = f.ms as i64 * 1000 + f.us as i64;
    if f.ff != 0 {
        p.precision = Some(f.ff);
    }
    // ValidateDate with the fields given.
    if mon_set && !(1..=12).contains(&p.mon) {
        return Err(overflow());
    }
    if day_set && !(1..=31).contains(&p.mday) {
        return Err(overflow());
    }
    if year_set && mon_set && day_set && p.mday > super::days_in_month(p.year, p.mon) {
        return Err(overflow());
    }
    if !(0..24).contains(&p.hour)
        || !(0..60).contains(&p.min)
        || !(0..60).contains(&p.sec)
        || !(0..USECS_PER_SEC).contains(&p.usec)
    {
        return Err(overflow());
    }
    if f.tzsign != 0 {
        if !(0..=15).contains(&f.tzh) || !(0..60).contains(&f.tzm) {
            return Err(Error::new(
                "22009",
                format!("time zone displacement out of range: \"{input}\""),
            ));
        }
        p.gmtoff = Some(f.tzsign * (f.tzh * 3600 + f.tzm * 60));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        // 2024-03-05 07:08:09.123456, a Tuesday.
        let t = (date2j(2024, 3, 5) - super::super::POSTGRES_EPOCH_JDATE) as i64 * USECS_PER_DAY
            + ((7 * 60 + 8) * 60 + 9) * USECS_PER_SEC
            + 123_456;
        let p = timestamp_parts(t, 0, None);
        let f = |fmt: &str| to_char(&p, fmt).unwrap_or_else(|e| e.message);
        assert_eq!(f("YYYY-MM-DD HH24:MI:SS.US"), "2024-03-05 07:08:09.123456");
        assert_eq!(f("Day, DDth Month YYYY"), "Tuesday  , 05th March     2024");
        assert_eq!(f("FMDay, FMDDth FMMonth"), "Tuesday, 5th March");
        assert_eq!(
            f("HH12 AM a.m. Q RM \"text\" J"),
            "07 AM a.m. 1 III  text 2460375"
        );
        assert_eq!(f("Yyyy"), "4024");
    }
}
