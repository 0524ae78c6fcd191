//! DATE, TIMESTAMP, TIMESTAMPTZ and INTERVAL: representation, text I/O and arithmetic.
//!
//! Representations are PostgreSQL's own, so binary I/O is a byte copy:
//! - `date`: `i32` days since 2000-01-01;
//! - `timestamp`/`timestamptz`: `i64` microseconds since 2000-01-01 00:00:00 (UTC for tz);
//! - `interval`: months, days and microseconds kept apart, as PostgreSQL does, because a
//!   month and a day have no fixed length.
//!
//! `date` and `timestamp[tz]` also hold PostgreSQL's `infinity` and `-infinity`: the
//! largest and smallest values of their integer (so they sort last and first), which
//! arithmetic leaves unchanged and subtraction rejects, as PostgreSQL does. Calendar
//! arithmetic uses PostgreSQL's Julian-day routines ([`date2j`], [`j2date`]), so dates
//! run from 4713 BC to 5874897 AD and timestamps to 294276 AD, as there.
//!
//! Text input is [`input`], PostgreSQL's own parser step by step (every date style,
//! keywords, zone names and abbreviations, ISO 8601 and SQL intervals).
//!
//! Text output follows `DateStyle = ISO` and `IntervalStyle = postgres`. Time zones: the
//! session's `TimeZone` ([`Zone`]) is a fixed offset (`UTC`, `+05:30`) or an IANA zone
//! (`America/New_York`) whose offset depends on the instant. A local time that a
//! daylight-saving change repeats or skips resolves as PostgreSQL does: a repeated time
//! takes the later instant, a skipped one the offset in effect before the change.

pub mod abbrevs;
pub mod fields;
pub mod input;
pub mod posix;
pub mod to_char;

use chrono::{Offset, TimeZone};
use chrono_tz::OffsetName;

use crate::error::{Error, Result};
pub use input::{DateOrder, InputContext};

/// Julian day of 2000-01-01, kiln's (and PostgreSQL's) epoch for dates and timestamps.
pub const POSTGRES_EPOCH_JDATE: i32 = 2_451_545;
/// `-infinity` and `infinity` for dates and timestamps (PostgreSQL's NOBEGIN/NOEND).
pub const DATE_NOBEGIN: i32 = i32::MIN;
pub const DATE_NOEND: i32 = i32::MAX;
pub const TIMESTAMP_NOBEGIN: i64 = i64::MIN;
pub const TIMESTAMP_NOEND: i64 = i64::MAX;
/// First Julian day of a date, and the first day past the last date / timestamp.
const DATETIME_MIN_JULIAN: i32 = 0;
const DATE_END_JULIAN: i32 = 2_147_483_494;
const TIMESTAMP_END_JULIAN: i32 = 109_203_528;
/// 4714-11-24 BC 00:00 and 294277-01-01 00:00, in microseconds since 2000-01-01.
const MIN_TIMESTAMP: i64 = -211_813_488_000_000_000;
const END_TIMESTAMP: i64 = 9_223_371_331_200_000_000;
pub const USECS_PER_SEC: i64 = 1_000_000;
pub const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
pub const USECS_PER_HOUR: i64 = 60 * USECS_PER_MINUTE;
pub const USECS_PER_DAY: i64 = 24 * USECS_PER_HOUR;
/// Days between 1970-01-01 and 2000-01-01.
pub const UNIX_EPOCH_DAYS: i64 = 10_957;

/// Julian day of a calendar date (PostgreSQL's date2j; proleptic Gregorian, year 0 is
/// 1 BC).
pub fn date2j(year: i32, month: i32, day: i32) -> i32 {
    let (mut y, mut m) = (year as i64, month as i64);
    if m > 2 {
        m += 1;
        y += 4800;
    } else {
        m += 13;
        y += 4799;
    }
    let century = y / 100;
    let mut julian = y * 365 - 32167;
    julian += y / 4 - century + century / 4;
    julian += 7834 * m / 256 + day as i64;
    julian as i32
}

/// Calendar date of a Julian day (PostgreSQL's j2date): (year, month, day).
pub fn j2date(jd: i32) -> (i32, i32, i32) {
    // Unsigned and wrapping, as PostgreSQL's C computes it (garbage in, garbage out,
    // never a panic).
    let mut julian = (jd as u32).wrapping_add(32044);
    let mut quad = julian / 146_097;
    let extra = (julian.wrapping_sub(quad.wrapping_mul(146_097)))
        .wrapping_mul(4)
        .wrapping_add(3);
    julian = julian
        .wrapping_add(60)
        .wrapping_add(quad.wrapping_mul(3))
        .wrapping_add(extra / 146_097);
    quad = julian / 1461;
    julian = julian.wrapping_sub(quad.wrapping_mul(1461));
    let mut y = (julian.wrapping_mul(4) / 1461) as i32;
    julian = if y != 0 {
        julian.wrapping_add(305) % 365
    } else {
        julian.wrapping_add(306) % 366
    }
    .wrapping_add(123);
    y = y.wrapping_add(quad.wrapping_mul(4) as i32);
    let year = y.wrapping_sub(4800);
    let quad = julian.wrapping_mul(2141) / 65536;
    let day = julian.wrapping_sub(7834u32.wrapping_mul(quad) / 256) as i32;
    let month = ((quad.wrapping_add(10)) % 12 + 1) as i32;
    (year, month, day)
}

/// Whether a date is inside the Julian-day routines' range (IS_VALID_JULIAN).
pub fn is_valid_julian(year: i32, month: i32, _day: i32) -> bool {
    (year > -4713 || (year == -4713 && month >= 11))
        && (year < 5_874_898 || (year == 5_874_898 && month < 6))
}

/// Whether days-since-2000 `date` is a representable date (IS_VALID_DATE).
pub fn is_valid_date(date: i32) -> bool {
    let d = date as i64;
    (DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE) as i64 <= d
        && d < (DATE_END_JULIAN - POSTGRES_EPOCH_JDATE) as i64
}

/// Whether a timestamp is a representable finite one (IS_VALID_TIMESTAMP).
pub fn is_valid_timestamp(t: i64) -> bool {
    (MIN_TIMESTAMP..END_TIMESTAMP).contains(&t)
}

/// Microseconds rounded to `digits` fractional-second digits, halves away from zero
/// (AdjustTimestampForTypmod / AdjustIntervalForTypmod).
pub fn round_micros(micros: i64, digits: i32) -> i64 {
    if !(0..6).contains(&digits) {
        return micros;
    }
    let scale = 10i64.pow(6 - digits as u32);
    let half = scale / 2;
    if micros >= 0 {
        (micros.saturating_add(half) / scale) * scale
    } else {
        -((micros.saturating_neg().saturating_add(half) / scale) * scale)
    }
}

/// A timestamp rounded to `digits` fractional-second digits (timestamp(p)).
pub fn round_timestamp(t: i64, digits: i32) -> Result<i64> {
    if timestamp_is_infinite(t) {
        return Ok(t);
    }
    let r = round_micros(t, digits);
    if is_valid_timestamp(r) {
        Ok(r)
    } else {
        Err(Error::datetime_overflow("timestamp out of range"))
    }
}

/// A date as the timestamp of its midnight (PostgreSQL's date2timestamp): infinities
/// map to infinities; dates past 294276 AD do not fit.
pub fn date_to_timestamp(d: i32) -> Result<i64> {
    match d {
        DATE_NOBEGIN => Ok(TIMESTAMP_NOBEGIN),
        DATE_NOEND => Ok(TIMESTAMP_NOEND),
        _ if d >= TIMESTAMP_END_JULIAN - POSTGRES_EPOCH_JDATE => {
            Err(Error::new("22008", "date out of range for timestamp"))
        }
        _ => Ok(d as i64 * USECS_PER_DAY),
    }
}

/// The infinite date of an infinite timestamp.
pub fn infinite_date_of(t: i64) -> i32 {
    if t == TIMESTAMP_NOBEGIN {
        DATE_NOBEGIN
    } else {
        DATE_NOEND
    }
}

/// Whether a date is `infinity` or `-infinity`.
pub fn date_is_infinite(d: i32) -> bool {
    d == DATE_NOBEGIN || d == DATE_NOEND
}

/// Whether a timestamp is `infinity` or `-infinity`.
pub fn timestamp_is_infinite(t: i64) -> bool {
    t == TIMESTAMP_NOBEGIN || t == TIMESTAMP_NOEND
}

/// A session time zone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Zone {
    /// Seconds east of UTC.
    Fixed(i32),
    Named(chrono_tz::Tz),
    /// A POSIX `TZ` specification the IANA database does not name (`GMT+2`).
    Posix(posix::PosixZone),
}

impl Default for Zone {
    fn default() -> Zone {
        Zone::Fixed(0)
    }
}

/// chrono-tz lists a zone's transitions up to 2099; PostgreSQL keeps applying the
/// zone's current rules forever. A later instant is moved to the same day of an
/// equivalent year (same weekday on January 1st, same leap-ness) in the listed range,
/// where the same rules give the same transitions.
const ZONE_RULES_LAST_YEAR: i32 = 2099;
const EQUIVALENT_YEARS: std::ops::RangeInclusive<i32> = 2070..=2097;

fn naive_from_micros(micros: i64) -> Option<chrono::NaiveDateTime> {
    let days = micros.div_euclid(USECS_PER_DAY);
    // Only days whose Julian number the calendar routines handle (0 ..= i32::MAX).
    let julian = i32::try_from(days + POSTGRES_EPOCH_JDATE as i64)
        .ok()
        .filter(|&j| j >= 0)?;
    let (year, _, _) = j2date(julian);
    let micros = if year > ZONE_RULES_LAST_YEAR {
        let jan1 = date2j(year, 1, 1) as i64;
        let weekday = (jan1 + 1).rem_euclid(7);
        let same = EQUIVALENT_YEARS.clone().find(|&y| {
            is_leap(y) == is_leap(year) && (date2j(y, 1, 1) as i64 + 1).rem_euclid(7) == weekday
        })?;
        micros - (jan1 - date2j(same, 1, 1) as i64) * USECS_PER_DAY
    } else {
        micros
    };
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
            Zone::Posix(p) => p.offset_at(utc_micros),
        }
    }

    /// The zone's abbreviation at the instant `utc_micros` (`EST`), for named zones.
    pub fn abbreviation_at(&self, utc_micros: i64) -> Option<String> {
        match self {
            Zone::Fixed(_) | Zone::Posix(_) => None,
            Zone::Named(tz) => {
                let n = naive_from_micros(utc_micros)?;
                let offset = tz.offset_from_utc_datetime(&n);
                offset.abbreviation().map(str::to_string)
            }
        }
    }

    /// The offset that applies to the local wall-clock time `local_micros`.
    pub fn offset_for_local(&self, local_micros: i64) -> i32 {
        match self {
            Zone::Fixed(o) => *o,
            Zone::Posix(p) => p.offset_for_local(local_micros),
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
        Zone::named(name)
    }

    /// A zone by name as PostgreSQL's pg_tzset finds it: the IANA database
    /// (case-insensitively), else a POSIX `TZ` specification.
    pub fn named(name: &str) -> Option<Zone> {
        if let Ok(tz) = chrono_tz::Tz::from_str_insensitive(name) {
            return Some(Zone::Named(tz));
        }
        posix::parse(&name.to_ascii_uppercase()).map(Zone::Posix)
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

/// Days since 2000-01-01 of a valid calendar date (year 0 is 1 BC).
pub fn date_from_ymd(year: i32, month: u32, day: u32) -> Option<i32> {
    let (m, d) = (month as i32, day as i32);
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(year, m) {
        return None;
    }
    if !is_valid_julian(year, m, d) {
        return None;
    }
    Some(date2j(year, m, d) - POSTGRES_EPOCH_JDATE)
}

/// to_timestamp(double precision): Unix seconds as a timestamptz (the infinities
/// map to theirs).
pub fn timestamptz_from_epoch(secs: f64) -> Result<i64> {
    if secs.is_nan() {
        return Err(crate::error::Error::new("22008", "timestamp cannot be NaN"));
    }
    if secs.is_infinite() {
        return Ok(if secs > 0.0 {
            TIMESTAMP_NOEND
        } else {
            TIMESTAMP_NOBEGIN
        });
    }
    let out = || {
        crate::error::Error::new(
            "22008",
            format!("timestamp out of range: \"{}\"", c_g(secs)),
        )
    };
    let shifted = secs - (UNIX_EPOCH_DAYS * 86_400) as f64;
    let micros = (shifted * USECS_PER_SEC as f64).round_ties_even();
    if !micros.is_finite() || micros.abs() > 9.3e18 {
        return Err(out());
    }
    let t = micros as i64;
    if !is_valid_timestamp(t) {
        return Err(out());
    }
    Ok(t)
}

/// make_date(year, month, day): a negative year is BC, year 0 does not exist.
pub fn make_date(year: i32, month: i32, day: i32) -> Result<i32> {
    let shown = year.unsigned_abs();
    let overflow = |what: &str| {
        crate::error::Error::new("22008", format!("{what}: {shown}-{month:02}-{day:02}"))
    };
    if year == 0 || !(1..=12).contains(&month) || day < 1 {
        return Err(overflow("date field value out of range"));
    }
    // Year 1 BC is year 0 of the proleptic calendar.
    let y = if year < 0 { year + 1 } else { year };
    if day > days_in_month(y, month) {
        return Err(overflow("date field value out of range"));
    }
    // Past validation PostgreSQL reports the calendar year (1 BC is 0).
    let range = || {
        crate::error::Error::new(
            "22008",
            format!("date out of range: {y}-{month:02}-{day:02}"),
        )
    };
    if !is_valid_julian(y, month, day) {
        return Err(range());
    }
    let d = date2j(y, month, day) - POSTGRES_EPOCH_JDATE;
    if !is_valid_date(d) {
        return Err(range());
    }
    Ok(d)
}

/// (year, month, day) of days-since-2000 `days` (year 0 is 1 BC).
pub fn date_to_ymd(days: i32) -> (i32, i32, i32) {
    j2date(days.wrapping_add(POSTGRES_EPOCH_JDATE))
}

pub(crate) fn is_leap(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

pub(crate) fn days_in_month(year: i32, month: i32) -> i32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn two_digits(out: &mut Vec<u8>, v: u32) {
    out.push(b'0' + (v / 10 % 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

/// Days of 1000-01-01 and 9999-12-31 (from 2000-01-01): dates whose ISO text is
/// exactly `YYYY-MM-DD`.
const DATE_FOUR_DIGITS_FIRST: i32 = -365_242;
const DATE_FOUR_DIGITS_LAST: i32 = 2_921_939;

/// Whether a date's year has four digits (AD), so its ISO text is 10 bytes.
#[inline]
pub fn date_is_four_digit_year(days: i32) -> bool {
    (DATE_FOUR_DIGITS_FIRST..=DATE_FOUR_DIGITS_LAST).contains(&days)
}

/// Year, month and day of a date with a four-digit year, by Neri and Schneider's
/// calendar algorithm ("Euclidean affine functions and their application to calendar
/// algorithms", 2022): a handful of multiplications and shifts, no divisions by
/// variables. Agrees with [`date_to_ymd`] on the whole four-digit range (tested).
#[inline]
fn four_digit_ymd(days: i32) -> (u32, u32, u32) {
    // Shift so that every date of interest is a positive count of days from a March 1st
    // 400·SHIFT years before the Unix epoch.
    const SHIFT: u32 = 82;
    const K: u32 = 719_468 + 146_097 * SHIFT;
    const L: u32 = 400 * SHIFT;
    const UNIX_FROM_2000: i32 = 10_957;
    // Positive for every date from 1000 on: no wrapping.
    let n = (days + UNIX_FROM_2000 + K as i32) as u32;
    let n1 = 4 * n + 3;
    let century = n1 / 146_097;
    let nc = n1 % 146_097 / 4;
    let n2 = 4 * nc + 3;
    let p2 = 2_939_745u64 * n2 as u64;
    let year_of_century = (p2 >> 32) as u32;
    let day_of_year = (p2 as u32) / 2_939_745 / 4;
    let n3 = 2141 * day_of_year + 197_913;
    let month = n3 >> 16;
    let day = (n3 & 0xffff) / 2141 + 1;
    let january_or_february = day_of_year >= 306;
    let year = 100 * century + year_of_century - L + january_or_february as u32;
    let month = if january_or_february {
        month - 12
    } else {
        month
    };
    (year, month, day)
}

/// Writes `YYYY-MM-DD` into `out` (10 bytes) for a date with a four-digit year.
#[inline]
pub fn write_iso_date_into(out: &mut [u8], days: i32) {
    let (y, m, d) = four_digit_ymd(days);
    let text = [
        b'0' + (y / 1000) as u8,
        b'0' + (y / 100 % 10) as u8,
        b'0' + (y / 10 % 10) as u8,
        b'0' + (y % 10) as u8,
        b'-',
        b'0' + (m / 10) as u8,
        b'0' + (m % 10) as u8,
        b'-',
        b'0' + (d / 10) as u8,
        b'0' + (d % 10) as u8,
    ];
    out[..10].copy_from_slice(&text);
}

pub fn write_date(out: &mut Vec<u8>, days: i32) {
    match days {
        DATE_NOEND => out.extend_from_slice(b"infinity"),
        DATE_NOBEGIN => out.extend_from_slice(b"-infinity"),
        _ if date_is_four_digit_year(days) => {
            let mut text = [0u8; 10];
            write_iso_date_into(&mut text, days);
            out.extend_from_slice(&text);
        }
        _ => {
            let (year, month, day) = date_to_ymd(days);
            write_year(out, if year <= 0 { 1 - year } else { year });
            write_md(out, month as u32, day as u32);
            if year <= 0 {
                out.extend_from_slice(b" BC");
            }
        }
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

/// `time`'s output: `HH:MM:SS` and the fraction without trailing zeros.
pub fn write_time(out: &mut Vec<u8>, micros: i64) {
    write_time_of_day(out, micros.clamp(0, USECS_PER_DAY));
}

/// timetz packed into one i64 whose order is PostgreSQL's (timetz_cmp: the UTC
/// instant, then the zone): the instant in the high bits, the zone (seconds west of
/// UTC, within ±15:59:59) biased into the low 17.
pub fn pack_timetz(time: i64, zone_west: i32) -> i64 {
    let utc = time + zone_west as i64 * USECS_PER_SEC;
    (utc << 17) | (zone_west as i64 + (1 << 16))
}

/// The time of day and zone (seconds west) of a packed timetz.
pub fn unpack_timetz(packed: i64) -> (i64, i32) {
    let zone_west = (packed & ((1 << 17) - 1)) as i32 - (1 << 16);
    let utc = packed >> 17;
    (utc - zone_west as i64 * USECS_PER_SEC, zone_west)
}

/// The offset west of UTC `zone` has today (the day of `now_utc` in that zone) at
/// time of day `time` (PostgreSQL's time_timetz and timetz input without a zone).
pub fn zone_west_today(zone: &Zone, now_utc: i64, time: i64) -> i32 {
    let today =
        (now_utc + zone.offset_at(now_utc) as i64 * USECS_PER_SEC).div_euclid(USECS_PER_DAY);
    -zone.offset_for_local(today * USECS_PER_DAY + time)
}

/// C's `%g`: six significant digits, zeros trimmed, an exponent past 1e6 or below
/// 1e-4.
fn c_g(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor() as i32;
    if !(-4..6).contains(&exp) {
        let s = format!("{v:.5e}");
        let (mant, e) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = if mant.contains('.') {
            mant.trim_end_matches('0').trim_end_matches('.')
        } else {
            mant
        };
        let e: i32 = e.parse().unwrap_or(0);
        return format!(
            "{mant}e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.unsigned_abs()
        );
    }
    let decimals = (5 - exp).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Seconds as C's `%02g` prints them (six significant digits, zeros trimmed).
fn seconds_g(v: f64) -> String {
    let int_digits = (v.abs().max(1.0).log10().floor() as usize + 1).min(6);
    let s = format!("{:.*}", 6 - int_digits, v);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s.len() < 2 { format!("0{s}") } else { s }
}

/// make_time(hour, min, sec): 24:00:00 at most, seconds up to 60 (PostgreSQL's
/// float_time_overflows), the fraction rounded to microseconds.
pub fn make_time(hour: i32, min: i32, sec: f64) -> Result<i64> {
    let overflow = || {
        crate::error::Error::new(
            "22008",
            format!(
                "time field value out of range: {hour}:{min:02}:{}",
                seconds_g(sec)
            ),
        )
    };
    if !(0..=24).contains(&hour)
        || !(0..=59).contains(&min)
        || !(0.0..=60.0).contains(&sec)
        || (hour == 24 && (min > 0 || sec > 0.0))
    {
        return Err(overflow());
    }
    let time = ((hour as i64 * 60 + min as i64) * 60) * USECS_PER_SEC
        + (sec * USECS_PER_SEC as f64).round_ties_even() as i64;
    if !(0..=USECS_PER_DAY).contains(&time) {
        return Err(overflow());
    }
    Ok(time)
}

/// timetz's output: the time and the zone's offset east (`04:05:06+02`, `-08:30`).
pub fn write_timetz(out: &mut Vec<u8>, packed: i64) {
    let (time, west) = unpack_timetz(packed);
    write_time(out, time);
    write_offset(out, -west);
}

/// A zone offset east of UTC as PostgreSQL prints it: `+02`, `-08:30`, `+05:30:15`.
fn write_offset(out: &mut Vec<u8>, offset_secs: i32) {
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

pub fn write_timestamp(out: &mut Vec<u8>, micros: i64) {
    if write_timestamp_fields(out, micros) {
        out.extend_from_slice(b" BC");
    }
}

/// Writes date and time (or an infinity); returns whether the year is BC, whose
/// marker goes last (after a zone offset).
fn write_timestamp_fields(out: &mut Vec<u8>, micros: i64) -> bool {
    match micros {
        TIMESTAMP_NOEND => {
            out.extend_from_slice(b"infinity");
            return false;
        }
        TIMESTAMP_NOBEGIN => {
            out.extend_from_slice(b"-infinity");
            return false;
        }
        _ => {}
    }
    let days = micros.div_euclid(USECS_PER_DAY);
    let tod = micros.rem_euclid(USECS_PER_DAY);
    let (year, month, day) = date_to_ymd(days as i32);
    write_year(out, if year <= 0 { 1 - year } else { year });
    write_md(out, month as u32, day as u32);
    out.push(b' ');
    write_time_of_day(out, tod);
    year <= 0
}

/// `offset_secs` is the zone's offset east of UTC.
pub fn write_timestamptz(out: &mut Vec<u8>, micros: i64, offset_secs: i32) {
    if timestamp_is_infinite(micros) {
        return write_timestamp(out, micros);
    }
    let bc = write_timestamp_fields(out, micros + offset_secs as i64 * USECS_PER_SEC);
    write_offset(out, offset_secs);
    if bc {
        out.extend_from_slice(b" BC");
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

/// Days since 2000-01-01 for date input `text` ([`input::date_in`]).
pub fn parse_date(text: &str, ctx: &InputContext) -> Result<i32> {
    // ISO 8601 `YYYY-MM-DD` (what COPY and drivers send) means the same under every
    // DateStyle: read it directly; anything else, or an invalid date, goes the whole way.
    let b = text.as_bytes();
    if b.len() == 10 && b[4] == b'-' && b[7] == b'-' {
        let num = |r: std::ops::Range<usize>| {
            b[r].iter().try_fold(0u32, |acc, &c| {
                c.is_ascii_digit().then_some(acc * 10 + (c - b'0') as u32)
            })
        };
        if let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10))
            && y > 0
            && let Some(days) = date_from_ymd(y as i32, m, d)
        {
            return Ok(days);
        }
    }
    input::date_in(text, ctx)
}

/// Local microseconds since 2000-01-01 for timestamp input `text`.
pub fn parse_time(text: &str, ctx: &InputContext) -> Result<i64> {
    input::time_in(text, ctx)
}

/// A timetz, packed.
pub fn parse_timetz(text: &str, ctx: &InputContext) -> Result<i64> {
    let (time, west) = input::timetz_in(text, ctx)?;
    Ok(pack_timetz(time, west))
}

pub fn parse_timestamp(text: &str, ctx: &InputContext) -> Result<i64> {
    input::timestamp_in(text, ctx)
}

/// UTC microseconds since 2000-01-01 for timestamptz input `text`.
pub fn parse_timestamptz(text: &str, ctx: &InputContext) -> Result<i64> {
    input::timestamptz_in(text, ctx)
}

/// An interval from its text ([`input::interval_in`]).
pub fn parse_interval(text: &str) -> Result<Interval> {
    input::interval_in(text)
}

/// The field bits of an interval typmod's range (PostgreSQL's INTERVAL_MASK).
pub mod interval_range {
    pub const MONTH: i32 = 1 << 1;
    pub const YEAR: i32 = 1 << 2;
    pub const DAY: i32 = 1 << 3;
    pub const HOUR: i32 = 1 << 10;
    pub const MINUTE: i32 = 1 << 11;
    pub const SECOND: i32 = 1 << 12;
    pub const FULL: i32 = 0x7FFF;
}

/// An interval read under a field qualifier's `range` (typmod bits): a bare number is
/// the qualifier's last field, and the result is truncated to it.
pub fn parse_interval_range(text: &str, range: i32) -> Result<Interval> {
    use input::Unit;
    use interval_range as R;
    let unit = match range {
        R::YEAR => Some(Unit::Year),
        x if x == R::MONTH || x == R::YEAR | R::MONTH => Some(Unit::Month),
        R::DAY => Some(Unit::Day),
        x if x == R::HOUR || x == R::DAY | R::HOUR => Some(Unit::Hour),
        x if x == R::MINUTE || x == R::HOUR | R::MINUTE || x == R::DAY | R::HOUR | R::MINUTE => {
            Some(Unit::Minute)
        }
        _ => None,
    };
    let iv = input::interval_in_range(text, unit)?;
    Ok(truncate_interval(iv, range))
}

/// AdjustIntervalForTypmod's field truncation: what lies below the qualifier's last
/// field is dropped.
pub fn truncate_interval(iv: Interval, range: i32) -> Interval {
    use interval_range as R;
    match range {
        R::YEAR => Interval {
            months: (iv.months / 12) * 12,
            days: 0,
            micros: 0,
        },
        x if x == R::MONTH || x == R::YEAR | R::MONTH => Interval {
            days: 0,
            micros: 0,
            ..iv
        },
        R::DAY => Interval { micros: 0, ..iv },
        x if x == R::HOUR || x == R::DAY | R::HOUR => Interval {
            micros: (iv.micros / USECS_PER_HOUR) * USECS_PER_HOUR,
            ..iv
        },
        x if x == R::MINUTE || x == R::HOUR | R::MINUTE || x == R::DAY | R::HOUR | R::MINUTE => {
            Interval {
                micros: (iv.micros / USECS_PER_MINUTE) * USECS_PER_MINUTE,
                ..iv
            }
        }
        _ => iv,
    }
}

/// `timestamp + interval` (PostgreSQL's timestamp_pl_interval): months first (the day
/// clamped to the new month's length), then days, then time; an infinite timestamp
/// stays as it is.
pub fn timestamp_add_interval(micros: i64, iv: &Interval) -> Result<i64> {
    if timestamp_is_infinite(micros) {
        return Ok(micros);
    }
    let range = || Error::datetime_overflow("timestamp out of range");
    let mut ts = micros;
    let split = |ts: i64| -> (i32, i32, i32, i64) {
        let days = ts.div_euclid(USECS_PER_DAY);
        let (y, m, d) = date_to_ymd(days as i32);
        (y, m, d, ts.rem_euclid(USECS_PER_DAY))
    };
    let join = |y: i32, m: i32, d: i32, tod: i64| -> Result<i64> {
        if !is_valid_julian(y, m, d) {
            return Err(range());
        }
        let date = (date2j(y, m, d) - POSTGRES_EPOCH_JDATE) as i64;
        let t = date * USECS_PER_DAY + tod;
        if is_valid_timestamp(t) {
            Ok(t)
        } else {
            Err(range())
        }
    };
    if iv.months != 0 {
        let (y, m, d, tod) = split(ts);
        let total = y as i64 * 12 + (m as i64 - 1) + iv.months as i64;
        let year = i32::try_from(total.div_euclid(12)).map_err(|_| range())?;
        let month = (total.rem_euclid(12) + 1) as i32;
        ts = join(year, month, d.min(days_in_month(year, month)), tod)?;
    }
    if iv.days != 0 {
        let (y, m, d, tod) = split(ts);
        let julian = date2j(y, m, d) as i64 + iv.days as i64;
        let julian = i32::try_from(julian).map_err(|_| range())?;
        let (y, m, d) = j2date(julian);
        ts = join(y, m, d, tod)?;
    }
    ts = ts.checked_add(iv.micros).ok_or_else(range)?;
    if !is_valid_timestamp(ts) {
        return Err(range());
    }
    Ok(ts)
}

/// `timestamptz + interval`, as PostgreSQL's timestamptz_pl_interval: months, then days,
/// are added to the local wall-clock time (re-determining the zone offset after each),
/// and the time part to the instant — so `+ '1 day'` across a daylight-saving change
/// keeps the clock time.
pub fn timestamptz_add_interval(utc: i64, iv: &Interval, zone: &Zone) -> Result<i64> {
    if timestamp_is_infinite(utc) {
        return Ok(utc);
    }
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

/// `timestamp - timestamp`: an interval of days and time (PostgreSQL's timestamp_mi,
/// which applies justify_hours); infinite operands are an error, as there.
pub fn timestamp_diff(a: i64, b: i64) -> Result<Interval> {
    if timestamp_is_infinite(a) || timestamp_is_infinite(b) {
        return Err(Error::new("22008", "cannot subtract infinite timestamps"));
    }
    let diff = a
        .checked_sub(b)
        .ok_or_else(|| Error::new("22008", "interval out of range"))?;
    let days = diff / USECS_PER_DAY;
    let micros = diff % USECS_PER_DAY;
    Ok(Interval {
        months: 0,
        days: days as i32,
        micros,
    })
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

    fn in_zone(zone: Zone) -> InputContext {
        InputContext {
            zone,
            order: DateOrder::Mdy,
            now_utc: 0,
        }
    }

    #[test]
    fn dates_round_trip() {
        let c = in_zone(Zone::Fixed(0));
        assert_eq!(parse_date("2000-01-01", &c).unwrap(), 0);
        assert_eq!(
            date_text(parse_date("2024-02-29", &c).unwrap()),
            "2024-02-29"
        );
        assert!(parse_date("2023-02-29", &c).is_err());
        assert_eq!(parse_date("2024-13-01", &c).unwrap_err().code, "22008");
        assert_eq!(parse_date("garbage", &c).unwrap_err().code, "22007");
        // The whole of PostgreSQL's range, both ends.
        assert_eq!(
            date_text(parse_date("4713-11-24 BC", &c).unwrap()),
            "4713-11-24 BC"
        );
        assert_eq!(
            date_text(parse_date("5874897-12-31", &c).unwrap()),
            "5874897-12-31"
        );
    }

    #[test]
    fn julian_days_match_postgres() {
        assert_eq!(date2j(2000, 1, 1), POSTGRES_EPOCH_JDATE);
        assert_eq!(j2date(POSTGRES_EPOCH_JDATE), (2000, 1, 1));
        assert_eq!(j2date(0), (-4713, 11, 24));
        for jd in (0..3_000_000).step_by(997) {
            let (y, m, d) = j2date(jd);
            assert_eq!(date2j(y, m, d), jd);
        }
    }

    #[test]
    fn timestamps_print_like_postgres() {
        let c = in_zone(Zone::Fixed(0));
        let mut out = Vec::new();
        write_timestamp(
            &mut out,
            parse_timestamp("2024-01-31 12:00:00.500", &c).unwrap(),
        );
        assert_eq!(String::from_utf8(out).unwrap(), "2024-01-31 12:00:00.5");
        let mut out = Vec::new();
        write_timestamptz(
            &mut out,
            parse_timestamptz("2024-01-31 12:00:00+02", &c).unwrap(),
            0,
        );
        assert_eq!(String::from_utf8(out).unwrap(), "2024-01-31 10:00:00+00");
        let mut out = Vec::new();
        write_timestamptz(&mut out, TIMESTAMP_NOBEGIN, 3600);
        assert_eq!(String::from_utf8(out).unwrap(), "-infinity");
    }

    #[test]
    fn named_zones_follow_daylight_saving_like_postgres() {
        let ny = Zone::parse("america/new_york").unwrap();
        let c = in_zone(ny);
        let show = |text: &str| {
            let utc = parse_timestamptz(text, &c).unwrap();
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

#[cfg(test)]
mod four_digit_year_tests {
    use super::*;

    #[test]
    fn the_four_digit_year_range_matches_the_calendar() {
        assert_eq!(date_from_ymd(1000, 1, 1), Some(DATE_FOUR_DIGITS_FIRST));
        assert_eq!(date_from_ymd(9999, 12, 31), Some(DATE_FOUR_DIGITS_LAST));
        for days in DATE_FOUR_DIGITS_FIRST..=DATE_FOUR_DIGITS_LAST {
            let (y, m, d) = date_to_ymd(days);
            assert_eq!(
                four_digit_ymd(days),
                (y as u32, m as u32, d as u32),
                "day {days}"
            );
        }
        for days in [
            DATE_FOUR_DIGITS_FIRST - 1,
            DATE_FOUR_DIGITS_FIRST,
            0,
            DATE_FOUR_DIGITS_LAST,
            DATE_FOUR_DIGITS_LAST + 1,
        ] {
            let mut fast = Vec::new();
            write_date(&mut fast, days);
            let (y, m, d) = date_to_ymd(days);
            let slow = if y <= 0 {
                format!("{:04}-{:02}-{:02} BC", 1 - y, m, d)
            } else {
                format!("{:04}-{:02}-{:02}", y, m, d)
            };
            assert_eq!(String::from_utf8(fast).unwrap(), slow, "day {days}");
        }
    }
}
