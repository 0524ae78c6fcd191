//! POSIX time zone specifications (`EST5EDT`, `GMT+2`, `<+03>-3`, `CET-1CEST,M3.5.0,M10.5.0/3`).
//!
//! PostgreSQL accepts any name its IANA database lacks as a POSIX `TZ` string
//! (`pg_tzset` → `tzparse`), both in `SET TIME ZONE` and inside date/time input, and
//! its parser is permissive: a zone "name" is any run of characters other than digits,
//! signs and commas, so `foo+3` is three hours *west* of UTC (POSIX counts west) and
//! even `feb/00/95` parses (name `FEB/`, offset 0, daylight name `/`, offset 95 h).
//! [`parse`] follows that grammar: `std offset [dst [offset] [,start[/time],end[/time]]]`;
//! a daylight zone without rules takes the US rules (`M3.2.0,M11.1.0`), as there.

use super::{USECS_PER_DAY, USECS_PER_SEC, date2j, j2date};

const SECS_PER_HOUR: i32 = 3600;
/// pg_tzset refuses longer names (TZ_STRLEN_MAX).
const NAME_LEN_MAX: usize = 255;
/// Room for both abbreviations in PostgreSQL's zone state.
const ABBREV_CHARS_MAX: usize = 512;

/// When daylight time starts or ends in a year.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RuleDay {
    /// `Jn`: day n of 1..=365, February 29 never counted.
    Julian(i32),
    /// `n`: day n of 0..=365, counting February 29.
    DayOfYear(i32),
    /// `Mm.w.d`: weekday d (0 = Sunday) of week w (5 = last) of month m.
    MonthWeekDay(i32, i32, i32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rule {
    day: RuleDay,
    /// Seconds after local midnight (may be negative or past 24 h).
    time: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Daylight {
    /// Seconds east of UTC in daylight time.
    east: i32,
    start: Rule,
    end: Rule,
}

/// A parsed POSIX zone. Abbreviations are kept as (start, len) into nothing — only
/// their presence matters to kiln — so the value stays `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PosixZone {
    /// Seconds east of UTC in standard time.
    std_east: i32,
    daylight: Option<Daylight>,
}

/// A zone name: characters other than digits, `,`, `-`, `+` (getzname).
fn zone_name(s: &[u8]) -> usize {
    s.iter()
        .take_while(|&&c| !(c.is_ascii_digit() || c == b',' || c == b'-' || c == b'+'))
        .count()
}

/// Digits in `min..=max` (getnum); returns (value, bytes used).
fn number(s: &[u8], min: i32, max: i32) -> Option<(i32, usize)> {
    if !s.first()?.is_ascii_digit() {
        return None;
    }
    let mut n: i32 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n = n * 10 + (s[i] - b'0') as i32;
        if n > max {
            return None;
        }
        i += 1;
    }
    (n >= min).then_some((n, i))
}

/// `hh[:mm[:ss]]` with hours up to a week (getsecs).
fn seconds(s: &[u8]) -> Option<(i32, usize)> {
    let (h, mut i) = number(s, 0, 24 * 7 - 1)?;
    let mut secs = h * SECS_PER_HOUR;
    if s.get(i) == Some(&b':') {
        let (m, used) = number(&s[i + 1..], 0, 59)?;
        secs += m * 60;
        i += 1 + used;
        if s.get(i) == Some(&b':') {
            let (sec, used) = number(&s[i + 1..], 0, 60)?;
            secs += sec;
            i += 1 + used;
        }
    }
    Some((secs, i))
}

/// `[+-]hh[:mm[:ss]]` (getoffset), POSIX sign: positive is west.
fn offset(s: &[u8]) -> Option<(i32, usize)> {
    let (neg, skip) = match s.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let (secs, used) = seconds(&s[skip..])?;
    Some((if neg { -secs } else { secs }, skip + used))
}

/// `Jn`, `n` or `Mm.w.d`, then `/time` (getrule).
fn rule(s: &[u8]) -> Option<(Rule, usize)> {
    let (day, mut i) = match s.first()? {
        b'J' => {
            let (n, used) = number(&s[1..], 1, 365)?;
            (RuleDay::Julian(n), 1 + used)
        }
        b'M' => {
            let (m, a) = number(&s[1..], 1, 12)?;
            let mut i = 1 + a;
            if s.get(i) != Some(&b'.') {
                return None;
            }
            let (w, b) = number(&s[i + 1..], 1, 5)?;
            i += 1 + b;
            if s.get(i) != Some(&b'.') {
                return None;
            }
            let (d, c) = number(&s[i + 1..], 0, 6)?;
            (RuleDay::MonthWeekDay(m, w, d), i + 1 + c)
        }
        c if c.is_ascii_digit() => {
            let (n, used) = number(s, 0, 365)?;
            (RuleDay::DayOfYear(n), used)
        }
        _ => return None,
    };
    let mut time = 2 * SECS_PER_HOUR;
    if s.get(i) == Some(&b'/') {
        let (t, used) = offset(&s[i + 1..])?;
        time = t;
        i += 1 + used;
    }
    Some((Rule { day, time }, i))
}

/// A name, quoted `<…>` or plain; returns (length, bytes used).
fn abbreviation(s: &[u8]) -> Option<(usize, usize)> {
    if s.first() == Some(&b'<') {
        let len = s[1..].iter().take_while(|&&c| c != b'>').count();
        if s.get(1 + len) != Some(&b'>') {
            return None;
        }
        Some((len, len + 2))
    } else {
        let len = zone_name(s);
        Some((len, len))
    }
}

/// Parses a POSIX zone spec as PostgreSQL's tzparse does (the name already uppercased
/// by the caller, as pg_tzset does).
pub fn parse(spec: &str) -> Option<PosixZone> {
    if spec.len() > NAME_LEN_MAX || spec.starts_with(':') {
        return None;
    }
    let s = spec.as_bytes();
    let (std_len, mut i) = abbreviation(s)?;
    if i >= s.len() {
        return None;
    }
    let (std_west, used) = offset(&s[i..])?;
    i += used;
    let zone = PosixZone {
        std_east: -std_west,
        daylight: None,
    };
    if i == s.len() {
        return Some(zone);
    }
    let (dst_len, used) = abbreviation(&s[i..])?;
    if dst_len == 0 || std_len + dst_len + 2 > ABBREV_CHARS_MAX {
        return None;
    }
    i += used;
    let mut dst_west = std_west - SECS_PER_HOUR;
    if i < s.len() && s[i] != b',' && s[i] != b';' {
        let (w, used) = offset(&s[i..])?;
        dst_west = w;
        i += used;
    }
    // Without rules: the US rules.
    const DEFAULT_RULES: &[u8] = b",M3.2.0,M11.1.0";
    let rules: &[u8] = if i == s.len() { DEFAULT_RULES } else { &s[i..] };
    if rules[0] != b',' && rules[0] != b';' {
        return None;
    }
    let (start, used) = rule(&rules[1..])?;
    let mut j = 1 + used;
    if rules.get(j) != Some(&b',') {
        return None;
    }
    let (end, used) = rule(&rules[j + 1..])?;
    j += 1 + used;
    if j != rules.len() {
        return None;
    }
    Some(PosixZone {
        daylight: Some(Daylight {
            east: -dst_west,
            start,
            end,
        }),
        ..zone
    })
}

fn is_leap(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days since 2000-01-01 of the rule's day in `year` (transtime).
fn rule_date(rule: &Rule, year: i32) -> i64 {
    let jan1 = date2j(year, 1, 1) as i64;
    let day = match rule.day {
        RuleDay::Julian(n) => {
            // February 29 is not counted.
            let mut d = n as i64 - 1;
            if is_leap(year) && n >= 60 {
                d += 1;
            }
            jan1 + d
        }
        RuleDay::DayOfYear(n) => jan1 + n as i64,
        RuleDay::MonthWeekDay(m, w, d) => {
            let first = date2j(year, m, 1) as i64;
            // Weekday of the 1st (0 = Sunday): Julian day 0 was a Monday.
            let first_dow = (first + 1).rem_euclid(7);
            let mut day = first + (d as i64 - first_dow).rem_euclid(7) + (w as i64 - 1) * 7;
            let month_days = match m {
                2 if is_leap(year) => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            while day >= first + month_days {
                day -= 7;
            }
            day
        }
    };
    day - super::POSTGRES_EPOCH_JDATE as i64
}

impl PosixZone {
    /// Seconds east of UTC at the instant `utc` (microseconds since 2000-01-01).
    pub fn offset_at(&self, utc: i64) -> i32 {
        let Some(dl) = self.daylight else {
            return self.std_east;
        };
        let local_days = (utc + self.std_east as i64 * USECS_PER_SEC).div_euclid(USECS_PER_DAY);
        let (year, _, _) = j2date((local_days + super::POSTGRES_EPOCH_JDATE as i64) as i32);
        // Transitions are written in the local time in force before them.
        let at = |rule: &Rule, east_before: i32| {
            (rule_date(rule, year) * 86_400 + rule.time as i64 - east_before as i64) * USECS_PER_SEC
        };
        let start = at(&dl.start, self.std_east);
        let end = at(&dl.end, dl.east);
        let daylight = if start < end {
            utc >= start && utc < end
        } else {
            utc < end || utc >= start
        };
        if daylight { dl.east } else { self.std_east }
    }

    /// The offset for local time `local` (microseconds): standard time where both or
    /// neither reading is consistent (PostgreSQL's rule for repeated and skipped times).
    pub fn offset_for_local(&self, local: i64) -> i32 {
        let Some(dl) = self.daylight else {
            return self.std_east;
        };
        let as_std = local - self.std_east as i64 * USECS_PER_SEC;
        let as_dst = local - dl.east as i64 * USECS_PER_SEC;
        let std_ok = self.offset_at(as_std) == self.std_east;
        let dst_ok = self.offset_at(as_dst) == dl.east;
        if dst_ok && !std_ok {
            dl.east
        } else {
            self.std_east
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(y: i32, m: i32, d: i32, h: i64) -> i64 {
        (date2j(y, m, d) - super::super::POSTGRES_EPOCH_JDATE) as i64 * USECS_PER_DAY
            + h * 3600 * USECS_PER_SEC
    }

    #[test]
    fn postgres_accepts_these() {
        assert_eq!(parse("GMT+2").map(|z| z.offset_at(0)), Some(-7200));
        assert_eq!(parse("<+03>-3").map(|z| z.offset_at(0)), Some(10800));
        assert!(parse("FEB/00/95").is_some());
        assert!(parse("SEP.60.60").is_some());
        assert!(parse("XYZ").is_none(), "an offset is required");
        assert!(parse("EST5EDT,M3.2.0").is_none(), "two rules or none");
    }

    #[test]
    fn us_rules_by_default() {
        let z = parse("EST5EDT").unwrap_or(PosixZone {
            std_east: 0,
            daylight: None,
        });
        assert_eq!(z.offset_at(micros(2024, 1, 15, 12)), -5 * 3600);
        assert_eq!(z.offset_at(micros(2024, 7, 1, 12)), -4 * 3600);
        // 2024-03-10 02:00 EST is 07:00 UTC; 2024-11-03 02:00 EDT is 06:00 UTC.
        assert_eq!(z.offset_at(micros(2024, 3, 10, 7)), -4 * 3600);
        assert_eq!(z.offset_at(micros(2024, 3, 10, 6)), -5 * 3600);
        assert_eq!(z.offset_at(micros(2024, 11, 3, 6)), -5 * 3600);
        assert_eq!(z.offset_at(micros(2024, 11, 3, 5)), -4 * 3600);
        // A skipped local time reads as standard time; a repeated one too.
        assert_eq!(z.offset_for_local(micros(2024, 3, 10, 2)), -5 * 3600);
        assert_eq!(z.offset_for_local(micros(2024, 11, 3, 1)), -5 * 3600);
        assert_eq!(z.offset_for_local(micros(2024, 7, 1, 1)), -4 * 3600);
    }
}
