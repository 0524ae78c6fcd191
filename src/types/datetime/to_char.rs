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
