//! DATE, TIMESTAMP, TIMESTAMPTZ and INTERVAL: representation, text I/O and arithmetic.
//!
//! Representations are PostgreSQL's own, so binary I/O is a byte copy:
//! - `date`: `i32` days since 2000-01-01;
//! - `timestamp`/`timestamptz`: `i64` microseconds since 2000-01-01 00:00:00 (UTC for tz);
//! - `interval`: months, days and microseconds kept apart, as PostgreSQL does, because a
//!   month and a day have no fixed length.
//!
//! Text output follows `DateStyle = ISO` and `IntervalStyle = postgres`. Time zones: the
//! session's `TimeZone` ([`Zone`]) is a fixed offset (`UTC`, `+05:30`) or an IANA zone
//! (`America/New_York`) whose offset depends on the instant. A local time that a
//! daylight-saving change repeats or skips resolves as PostgreSQL does: a repeated time
//! takes the later instant, a skipped one the offset in effect before the change.

use chrono::{Datelike, NaiveDate, Offset, TimeZone};

use crate::error::{Error, Result};

/// Days from 0001-01-01 (CE day 1) to 2000-01-01.
const PG_EPOCH_CE_DAYS: i32 = 730_120;
pub const USECS_PER_SEC: i64 = 1_000_000;
pub const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
pub const USECS_PER_HOUR: i64 = 60 * USECS_PER_MINUTE;
pub const USECS_PER_DAY: i64 = 24 * USECS_PER_HOUR;
/// Days between 1970-01-01 and 2000-01-01.
pub const UNIX_EPOCH_DAYS: i64 = 10_957;
/// PostgreSQL's limits: 4713 BC to 5874897 AD for dates; kiln accepts years 1..=294276.
const YEAR_MAX: i32 = 294_276;

/// A session time zone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Zone {
    /// Seconds east of UTC.
    Fixed(i32),
    Named(chrono_tz::Tz),
}

impl Default for Zone {
    fn default() -> Zone {
        Zone::Fixed(0)
    }
}

fn naive_from_micros(micros: i64) -> Option<chrono::NaiveDateTime> {
    let unix_secs = micros.div_euclid(USECS_PER_SEC) + UNIX_EPOCH_DAYS * 86_400;
    chrono::DateTime::from_timestamp(unix_secs, 0).map(|d| d.naive_utc())
}

impl Zone {
    /// Offset east of UTC, in seconds, at the instant `utc_micros`.
    pub fn offset_at(&self, utc_micros: i64) -> i32 {
        match self {
            Zone::Fixed(o) => *o,
            Zone::Named(tz) => match naive_from_micros(utc_micros) {
                Some(n) => tz.offset_from_utc_datetime(&n).fix().local_minus_utc(),
                None => 0,
            },
        }
    }

    /// The offset that applies to the local wall-clock time `local_micros`.
    fn offset_for_local(&self, local_micros: i64) -> i32 {
        match self {
            Zone::Fixed(o) => *o,
            Zone::Named(tz) => {
                let Some(n) = naive_from_micros(local_micros) else {
                    return 0;
                };
                match tz.offset_from_local_datetime(&n) {
                    chrono::LocalResult::Single(o) => o.fix().local_minus_utc(),
                    // Repeated local time: the later instant (the smaller offset).
                    chrono::LocalResult::Ambiguous(a, b) => {
                        a.fix().local_minus_utc().min(b.fix().local_minus_utc())
                    }
                    // Skipped local time: the offset in effect before the change.
                    chrono::LocalResult::None => self.offset_at(local_micros - USECS_PER_DAY),
                }
            }
        }
    }

    pub fn utc_to_local(&self, utc_micros: i64) -> i64 {
        utc_micros + self.offset_at(utc_micros) as i64 * USECS_PER_SEC
    }

    pub fn local_to_utc(&self, local_micros: i64) -> i64 {
        local_micros - self.offset_for_local(local_micros) as i64 * USECS_PER_SEC
    }

    /// Parses a TimeZone setting: an IANA name or a fixed offset (seconds east).
    pub fn parse(name: &str) -> Option<Zone> {
        if let Some(o) = parse_offset_name(name) {
            return Some(Zone::Fixed(o));
        }
        chrono_tz::Tz::from_str_insensitive(name)
            .ok()
            .map(Zone::Named)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Interval {
    pub months: i32,
    pub days: i32,
    pub micros: i64,
}

impl Interval {
    /// A single comparable magnitude, as PostgreSQL's interval_cmp uses (30-day months).
    pub fn sort_key(&self) -> i128 {
        (self.months as i128 * 30 + self.days as i128) * USECS_PER_DAY as i128 + self.micros as i128
    }
}

impl PartialOrd for Interval {
    fn partial_cmp(&self, other: &Interval) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Interval {
    fn cmp(&self, other: &Interval) -> std::cmp::Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

pub fn date_from_ymd(year: i32, month: u32, day: u32) -> Option<i32> {
    let d = NaiveDate::from_ymd_opt(year, month, day)?;
    Some(d.num_days_from_ce() - PG_EPOCH_CE_DAYS)
}

pub fn date_to_naive(days: i32) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(days.checked_add(PG_EPOCH_CE_DAYS)?)
}

fn two_digits(out: &mut Vec<u8>, v: u32) {
    out.push(b'0' + (v / 10 % 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

pub fn write_date(out: &mut Vec<u8>, days: i32) {
    match date_to_naive(days) {
        Some(d) => {
            let year = d.year();
            if year <= 0 {
                write_year(out, 1 - year);
                write_md(out, d.month(), d.day());
                out.extend_from_slice(b" BC");
            } else {
                write_year(out, year);
                write_md(out, d.month(), d.day());
            }
        }
        None => out.extend_from_slice(b"infinity"),
    }
}

fn write_year(out: &mut Vec<u8>, year: i32) {
    let mut buf = itoa::Buffer::new();
    let s = buf.format(year);
    for _ in s.len()..4 {
        out.push(b'0');
    }
    out.extend_from_slice(s.as_bytes());
}

fn write_md(out: &mut Vec<u8>, month: u32, day: u32) {
    out.push(b'-');
    two_digits(out, month);
    out.push(b'-');
    two_digits(out, day);
}

/// Writes `HH:MM:SS[.ffffff]` with trailing fractional zeros removed.
fn write_time_of_day(out: &mut Vec<u8>, micros_of_day: i64) {
    let secs = micros_of_day / USECS_PER_SEC;
    let frac = (micros_of_day % USECS_PER_SEC) as u32;
    two_digits(out, (secs / 3600) as u32);
    out.push(b':');
    two_digits(out, (secs / 60 % 60) as u32);
    out.push(b':');
    two_digits(out, (secs % 60) as u32);
    write_fraction(out, frac);
}

fn write_fraction(out: &mut Vec<u8>, mut frac: u32) {
    if frac == 0 {
        return;
    }
    let mut digits = 6;
    while frac.is_multiple_of(10) {
        frac /= 10;
        digits -= 1;
    }
    out.push(b'.');
    let mut buf = [b'0'; 6];
    let mut f = frac;
    for i in (0..digits).rev() {
        buf[i] = b'0' + (f % 10) as u8;
        f /= 10;
    }
    out.extend_from_slice(&buf[..digits]);
}

pub fn write_timestamp(out: &mut Vec<u8>, micros: i64) {
    let days = micros.div_euclid(USECS_PER_DAY);
    let tod = micros.rem_euclid(USECS_PER_DAY);
    let Some(d) = i32::try_from(days).ok().and_then(date_to_naive) else {
        out.extend_from_slice(b"infinity");
        return;
    };
    let year = d.year();
    write_year(out, if year <= 0 { 1 - year } else { year });
    write_md(out, d.month(), d.day());
    out.push(b' ');
    write_time_of_day(out, tod);
    if year <= 0 {
        out.extend_from_slice(b" BC");
    }
}

/// `offset_secs` is the zone's offset east of UTC.
pub fn write_timestamptz(out: &mut Vec<u8>, micros: i64, offset_secs: i32) {
    write_timestamp(out, micros + offset_secs as i64 * USECS_PER_SEC);
    let sign = if offset_secs < 0 { b'-' } else { b'+' };
    let abs = offset_secs.unsigned_abs();
    out.push(sign);
    two_digits(out, abs / 3600);
    if !abs.is_multiple_of(3600) {
        out.push(b':');
        two_digits(out, abs / 60 % 60);
        if !abs.is_multiple_of(60) {
            out.push(b':');
            two_digits(out, abs % 60);
        }
    }
}

pub fn write_interval(out: &mut Vec<u8>, iv: &Interval) {
    let years = iv.months / 12;
    let months = iv.months % 12;
    let mut is_zero = true;
    let mut is_before = false;
    let mut part = |out: &mut Vec<u8>, value: i64, unit: &str| {
        if value == 0 {
            return;
        }
        if !is_zero {
            out.push(b' ');
        }
        if is_before && value > 0 {
            out.push(b'+');
        }
        let mut buf = itoa::Buffer::new();
        out.extend_from_slice(buf.format(value).as_bytes());
        out.push(b' ');
        out.extend_from_slice(unit.as_bytes());
        if value != 1 {
            out.push(b's');
        }
        is_before = value < 0;
        is_zero = false;
    };
    part(out, years as i64, "year");
    part(out, months as i64, "mon");
    part(out, iv.days as i64, "day");
    let micros = iv.micros;
    if is_zero || micros != 0 {
        if !is_zero {
            out.push(b' ');
        }
        if micros < 0 {
            out.push(b'-');
        } else if is_before {
            out.push(b'+');
        }
        let abs = micros.unsigned_abs();
        let hours = abs / USECS_PER_HOUR as u64;
        let mut buf = itoa::Buffer::new();
        let h = buf.format(hours);
        if h.len() < 2 {
            out.push(b'0');
        }
        out.extend_from_slice(h.as_bytes());
        out.push(b':');
        two_digits(out, (abs / USECS_PER_MINUTE as u64 % 60) as u32);
        out.push(b':');
        two_digits(out, (abs / USECS_PER_SEC as u64 % 60) as u32);
        write_fraction(out, (abs % USECS_PER_SEC as u64) as u32);
    }
}

/// A small cursor over date/time text.
struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn number(&mut self) -> Option<(i64, usize)> {
        let start = self.i;
        let mut v: i64 = 0;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            v = v
                .checked_mul(10)?
                .checked_add((self.s[self.i] - b'0') as i64)?;
            self.i += 1;
        }
        (self.i > start).then_some((v, self.i - start))
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn skip_spaces(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn rest(&self) -> &'a [u8] {
        &self.s[self.i..]
    }
}

/// Parses `YYYY-MM-DD` (also `YYYYMMDD`), returning days since 2000-01-01.
fn parse_date_part(sc: &mut Scanner) -> Option<Result<i32>> {
    let (y, ylen) = sc.number()?;
    let (year, month, day) = if ylen == 8 && !sc.rest().starts_with(b"-") {
        (y / 10000, (y / 100 % 100) as u32, (y % 100) as u32)
    } else {
        if !sc.eat(b'-') {
            return None;
        }
        let (m, _) = sc.number()?;
        if !sc.eat(b'-') {
            return None;
        }
        let (d, _) = sc.number()?;
        (y, m as u32, d as u32)
    };
    if year < 1 {
        return Some(Err(Error::datetime_overflow(
            "date/time field value out of range",
        )));
    }
    if year > YEAR_MAX as i64 {
        return Some(Err(Error::datetime_overflow("date out of range")));
    }
    match date_from_ymd(year as i32, month, day) {
        Some(days) => Some(Ok(days)),
        // A month or day that no month has might be the other field under another
        // DateStyle: PostgreSQL's DTERR_MD_FIELD_OVERFLOW adds a hint.
        None if !(1..=12).contains(&month) || !(1..=31).contains(&day) => Some(Err(
            Error::datetime_overflow("date/time field value out of range")
                .with_hint("Perhaps you need a different \"datestyle\" setting."),
        )),
        None => Some(Err(Error::datetime_overflow(
            "date/time field value out of range".to_string(),
        ))),
    }
}

/// Parses `HH:MM[:SS[.ffffff]]` into microseconds of day.
fn parse_time_part(sc: &mut Scanner) -> Option<Result<i64>> {
    let (h, _) = sc.number()?;
    if !sc.eat(b':') {
        return None;
    }
    let (m, _) = sc.number()?;
    let mut s = 0;
    let mut frac: i64 = 0;
    if sc.eat(b':') {
        s = sc.number()?.0;
        if sc.eat(b'.') {
            let start = sc.i;
            let (f, len) = sc.number().unwrap_or((0, 0));
            let _ = start;
            frac = if len <= 6 {
                f * 10i64.pow(6 - len as u32)
            } else {
                // Round to microseconds, as PostgreSQL does.
                let digits = &sc.s[sc.i - len..sc.i];
                let mut v: i64 = 0;
                for d in &digits[..6] {
                    v = v * 10 + (d - b'0') as i64;
                }
                if digits[6] >= b'5' { v + 1 } else { v }
            };
        }
    }
    if h > 24 || m > 59 || s > 60 || (h == 24 && (m > 0 || s > 0 || frac > 0)) {
        return Some(Err(Error::datetime_overflow(
            "date/time field value out of range",
        )));
    }
    Some(Ok(h * USECS_PER_HOUR
        + m * USECS_PER_MINUTE
        + s * USECS_PER_SEC
        + frac))
}

/// Parses a zone suffix: `Z`, `UTC`, `+HH`, `+HH:MM`, `-HHMM`. Returns seconds east of UTC.
fn parse_zone(text: &[u8]) -> Option<i32> {
    let t = std::str::from_utf8(text).ok()?.trim();
    parse_offset_name(t)
}

/// Resolves a TimeZone setting or zone suffix to a fixed offset (seconds east of UTC).
pub fn parse_offset_name(t: &str) -> Option<i32> {
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "z" | "utc" | "gmt" | "etc/utc" | "etc/gmt" | "universal" | "zulu" | "etc/universal"
        | "ut" => {
            return Some(0);
        }
        _ => {}
    }
    if let Some(rest) = lower.strip_prefix("etc/gmt") {
        // POSIX sign convention: Etc/GMT-3 is three hours east.
        let h: i32 = rest.parse().ok()?;
        return (h.abs() <= 14).then_some(-h * 3600);
    }
    let bytes = t.as_bytes();
    let sign = match bytes.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body = &t[1..];
    let (h, m, s) = if let Some((h, rest)) = body.split_once(':') {
        let (m, s) = rest.split_once(':').unwrap_or((rest, "0"));
        (
            h.parse::<i32>().ok()?,
            m.parse::<i32>().ok()?,
            s.parse::<i32>().ok()?,
        )
    } else if body.len() == 4 && body.bytes().all(|b| b.is_ascii_digit()) {
        (body[..2].parse().ok()?, body[2..].parse().ok()?, 0)
    } else {
        (body.parse().ok()?, 0, 0)
    };
    if h > 15 || m > 59 || s > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60 + s))
}

/// PostgreSQL's DateTimeParseError names the input in a field-range error.
fn name_input(mut e: Error, text: &str) -> Error {
    if e.code == "22008"
        && matches!(
            e.message.as_str(),
            "date/time field value out of range" | "date out of range"
        )
    {
        e.message = format!("{}: \"{text}\"", e.message);
    }
    e
}

pub fn parse_date(text: &str) -> Result<i32> {
    parse_date_inner(text).map_err(|e| name_input(e, text))
}

fn parse_date_inner(text: &str) -> Result<i32> {
    let bad = || Error::invalid_datetime("date", text);
    let t = text.trim();
    match t.to_ascii_lowercase().as_str() {
        "epoch" => return Ok(0 - UNIX_EPOCH_DAYS as i32),
        "infinity" | "-infinity" | "today" | "tomorrow" | "yesterday" | "now" => {
            return Err(Error::feature_not_supported(format!("date input \"{t}\"")));
        }
        _ => {}
    }
    let mut sc = Scanner {
        s: t.as_bytes(),
        i: 0,
    };
    let days = parse_date_part(&mut sc).ok_or_else(bad)??;
    sc.skip_spaces();
    if sc.i < sc.s.len() {
        // A time part is accepted and ignored, as PostgreSQL does.
        if sc.s[sc.i] == b'T' || sc.s[sc.i] == b't' {
            sc.i += 1;
        }
        parse_time_part(&mut sc).ok_or_else(bad)??;
        let rest = sc.rest();
        if !rest.is_empty() && parse_zone(rest).is_none() {
            return Err(bad());
        }
    }
    Ok(days)
}

/// Parses a timestamp; returns (local micros, explicit zone offset if one was written).
pub fn parse_timestamp_parts(text: &str, type_name: &str) -> Result<(i64, Option<i32>)> {
    parse_timestamp_inner(text, type_name).map_err(|e| name_input(e, text))
}

fn parse_timestamp_inner(text: &str, type_name: &str) -> Result<(i64, Option<i32>)> {
    let bad = || Error::invalid_datetime(type_name, text);
    let t = text.trim();
    if t.eq_ignore_ascii_case("epoch") {
        return Ok((-UNIX_EPOCH_DAYS * USECS_PER_DAY, Some(0)));
    }
    let mut sc = Scanner {
        s: t.as_bytes(),
        i: 0,
    };
    let days = parse_date_part(&mut sc).ok_or_else(bad)??;
    let mut micros = days as i64 * USECS_PER_DAY;
    let save = sc.i;
    sc.skip_spaces();
    if sc.i < sc.s.len() && (sc.s[sc.i] == b'T' || sc.s[sc.i] == b't') {
        sc.i += 1;
    }
    if sc.i < sc.s.len() && sc.s[sc.i].is_ascii_digit() {
        micros += parse_time_part(&mut sc).ok_or_else(bad)??;
    } else {
        sc.i = save;
    }
    let rest = sc.rest();
    let zone = if rest.iter().all(|b| b.is_ascii_whitespace()) {
        None
    } else {
        Some(parse_zone(rest).ok_or_else(bad)?)
    };
    Ok((micros, zone))
}

pub fn parse_timestamp(text: &str) -> Result<i64> {
    Ok(parse_timestamp_parts(text, "timestamp")?.0)
}

pub fn parse_timestamptz(text: &str, session: &Zone) -> Result<i64> {
    let (local, zone) = parse_timestamp_parts(text, "timestamp with time zone")?;
    Ok(match zone {
        Some(offset) => local - offset as i64 * USECS_PER_SEC,
        None => session.local_to_utc(local),
    })
}

pub fn parse_interval(text: &str) -> Result<Interval> {
    let bad = || Error::invalid_datetime("interval", text);
    let lower = text.trim().to_ascii_lowercase();
    let mut months: f64 = 0.0;
    let mut days: f64 = 0.0;
    let mut micros: f64 = 0.0;
    let mut tokens = lower.split_whitespace().peekable();
    let mut any = false;
    let mut ago = false;
    while let Some(tok) = tokens.next() {
        any = true;
        if tok == "ago" {
            ago = true;
            continue;
        }
        if tok.contains(':') {
            let (neg, body) = match tok.strip_prefix('-') {
                Some(b) => (true, b),
                None => (false, tok.strip_prefix('+').unwrap_or(tok)),
            };
            let mut sc = Scanner {
                s: body.as_bytes(),
                i: 0,
            };
            let v = parse_time_part_loose(&mut sc).ok_or_else(bad)?;
            if sc.i != body.len() {
                return Err(bad());
            }
            micros += if neg { -(v as f64) } else { v as f64 };
            continue;
        }
        // A number, possibly glued to its unit ("1day" is not accepted by PostgreSQL either).
        let number: f64 = tok.parse().map_err(|_| bad())?;
        let unit = match tokens.peek() {
            Some(u) if u.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && *u != "ago" => {
                tokens.next().unwrap_or_default()
            }
            _ => "second",
        };
        match unit.trim_end_matches('s') {
            "microsecond" | "usec" | "u" | "us" => micros += number,
            "millisecond" | "msec" | "m" if unit.starts_with("ms") || unit.starts_with("milli") => {
                micros += number * 1000.0
            }
            "second" | "sec" | "" => micros += number * USECS_PER_SEC as f64,
            "minute" | "min" | "m" => micros += number * USECS_PER_MINUTE as f64,
            "hour" | "hr" | "h" => micros += number * USECS_PER_HOUR as f64,
            "day" | "d" => days += number,
            "week" | "w" => days += number * 7.0,
            "month" | "mon" => months += number,
            "year" | "yr" | "y" => months += number * 12.0,
            "decade" => months += number * 120.0,
            "century" | "centurie" => months += number * 1200.0,
            _ => return Err(bad()),
        }
    }
    if !any {
        return Err(bad());
    }
    // Fractions cascade down: a fraction of a month becomes days, of a day becomes time.
    let whole_months = months.trunc();
    days += (months - whole_months) * 30.0;
    let whole_days = days.trunc();
    micros += (days - whole_days) * USECS_PER_DAY as f64;
    let sign = if ago { -1.0 } else { 1.0 };
    let iv = Interval {
        months: checked_i32(whole_months * sign)
            .ok_or_else(|| Error::datetime_overflow("interval out of range"))?,
        days: checked_i32(whole_days * sign)
            .ok_or_else(|| Error::datetime_overflow("interval out of range"))?,
        micros: (micros * sign).round() as i64,
    };
    Ok(iv)
}

fn checked_i32(v: f64) -> Option<i32> {
    (v >= i32::MIN as f64 && v <= i32::MAX as f64).then_some(v as i32)
}

/// `H:MM[:SS[.f]]` where the hour may exceed 24 (interval syntax).
fn parse_time_part_loose(sc: &mut Scanner) -> Option<i64> {
    let (h, _) = sc.number()?;
    if !sc.eat(b':') {
        return None;
    }
    let (m, _) = sc.number()?;
    let mut total = h.checked_mul(USECS_PER_HOUR)? + m * USECS_PER_MINUTE;
    if sc.eat(b':') {
        let (s, _) = sc.number()?;
        total += s * USECS_PER_SEC;
        if sc.eat(b'.') {
            let (f, len) = sc.number()?;
            let f = if len <= 6 {
                f * 10i64.pow(6 - len as u32)
            } else {
                f / 10i64.pow(len as u32 - 6)
            };
            total += f;
        }
    }
    Some(total)
}

/// `timestamp + interval`: months first (clamping the day), then days, then time.
pub fn timestamp_add_interval(micros: i64, iv: &Interval) -> Result<i64> {
    let range = || Error::datetime_overflow("timestamp out of range");
    let mut ts = micros;
    if iv.months != 0 {
        let days = ts.div_euclid(USECS_PER_DAY);
        let tod = ts.rem_euclid(USECS_PER_DAY);
        let d = i32::try_from(days)
            .ok()
            .and_then(date_to_naive)
            .ok_or_else(range)?;
        let total = d.year() as i64 * 12 + d.month0() as i64 + iv.months as i64;
        let year = i32::try_from(total.div_euclid(12)).map_err(|_| range())?;
        let month = total.rem_euclid(12) as u32 + 1;
        let mut day = d.day();
        let new_date = loop {
            if let Some(nd) = date_from_ymd(year, month, day) {
                break nd;
            }
            if day <= 28 {
                return Err(range());
            }
            day -= 1;
        };
        ts = new_date as i64 * USECS_PER_DAY + tod;
    }
    ts = ts
        .checked_add(iv.days as i64 * USECS_PER_DAY)
        .ok_or_else(range)?;
    ts = ts.checked_add(iv.micros).ok_or_else(range)?;
    Ok(ts)
}

/// `timestamptz + interval`, as PostgreSQL's timestamptz_pl_interval: months, then days,
/// are added to the local wall-clock time (re-determining the zone offset after each),
/// and the time part to the instant — so `+ '1 day'` across a daylight-saving change
/// keeps the clock time.
pub fn timestamptz_add_interval(utc: i64, iv: &Interval, zone: &Zone) -> Result<i64> {
    let mut t = utc;
    if iv.months != 0 {
        let local = timestamp_add_interval(
            zone.utc_to_local(t),
            &Interval {
                months: iv.months,
                days: 0,
                micros: 0,
            },
        )?;
        t = zone.local_to_utc(local);
    }
    if iv.days != 0 {
        let local = timestamp_add_interval(
            zone.utc_to_local(t),
            &Interval {
                months: 0,
                days: iv.days,
                micros: 0,
            },
        )?;
        t = zone.local_to_utc(local);
    }
    t.checked_add(iv.micros)
        .ok_or_else(|| Error::datetime_overflow("timestamp out of range"))
}

/// `timestamp - timestamp`: an interval of days and time (PostgreSQL's justify_hours).
pub fn timestamp_diff(a: i64, b: i64) -> Interval {
    let diff = a.wrapping_sub(b);
    let days = diff / USECS_PER_DAY;
    let micros = diff % USECS_PER_DAY;
    Interval {
        months: 0,
        days: days as i32,
        micros,
    }
}

pub fn interval_neg(iv: &Interval) -> Interval {
    Interval {
        months: -iv.months,
        days: -iv.days,
        micros: -iv.micros,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date_text(d: i32) -> String {
        let mut out = Vec::new();
        write_date(&mut out, d);
        String::from_utf8(out).unwrap()
    }
    fn iv_text(text: &str) -> String {
        let mut out = Vec::new();
        write_interval(&mut out, &parse_interval(text).unwrap());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn dates_round_trip() {
        assert_eq!(parse_date("2000-01-01").unwrap(), 0);
        assert_eq!(date_text(parse_date("2024-02-29").unwrap()), "2024-02-29");
        assert!(parse_date("2023-02-29").is_err());
        assert_eq!(parse_date("2024-13-01").unwrap_err().code, "22008");
        assert_eq!(parse_date("garbage").unwrap_err().code, "22007");
    }

    #[test]
    fn timestamps_print_like_postgres() {
        let mut out = Vec::new();
        write_timestamp(
            &mut out,
            parse_timestamp("2024-01-31 12:00:00.500").unwrap(),
        );
        assert_eq!(String::from_utf8(out).unwrap(), "2024-01-31 12:00:00.5");
        let mut out = Vec::new();
        write_timestamptz(
            &mut out,
            parse_timestamptz("2024-01-31 12:00:00+02", &Zone::Fixed(0)).unwrap(),
            0,
        );
        assert_eq!(String::from_utf8(out).unwrap(), "2024-01-31 10:00:00+00");
    }

    #[test]
    fn named_zones_follow_daylight_saving_like_postgres() {
        let ny = Zone::parse("america/new_york").unwrap();
        let show = |text: &str| {
            let utc = parse_timestamptz(text, &ny).unwrap();
            let mut out = Vec::new();
            write_timestamptz(&mut out, utc, ny.offset_at(utc));
            String::from_utf8(out).unwrap()
        };
        // Values PostgreSQL 15 prints with TimeZone = 'America/New_York'.
        assert_eq!(show("2024-11-03 01:30"), "2024-11-03 01:30:00-05");
        assert_eq!(show("2024-03-10 02:30"), "2024-03-10 03:30:00-04");
        assert_eq!(show("2024-07-01 12:00"), "2024-07-01 12:00:00-04");
        assert_eq!(show("2024-01-01 12:00+00"), "2024-01-01 07:00:00-05");
        assert!(Zone::parse("Not/AZone").is_none());
    }

    #[test]
    fn intervals_print_like_postgres() {
        assert_eq!(iv_text("1 day"), "1 day");
        assert_eq!(iv_text("2 days 03:04:05"), "2 days 03:04:05");
        assert_eq!(iv_text("14 months"), "1 year 2 mons");
        assert_eq!(iv_text("-1 days 2 hours"), "-1 days +02:00:00");
        assert_eq!(iv_text("0 seconds"), "00:00:00");
        assert_eq!(iv_text("1.5 days"), "1 day 12:00:00");
    }
}
