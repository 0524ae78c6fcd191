//! Fields of dates, timestamps and intervals: EXTRACT / date_part, date_trunc, age and
//! AT TIME ZONE, computed as PostgreSQL 15's timestamp.c and date.c compute them.
//!
//! A unit name is looked up as PostgreSQL does ([`input::field_name`]: the interval
//! units first, then the date keywords, on the first ten characters), so `years`,
//! `microsecond` and `mm` all work, and its errors are PostgreSQL's: `22023 unit "x" not
//! recognized for type …` for a word that is no unit, `0A000 unit "x" not supported for
//! type …` for a unit the type lacks. EXTRACT returns numeric (exact, with PostgreSQL's
//! scales: 3 for milliseconds, 6 for seconds and epoch); date_part returns double
//! precision through PostgreSQL's own float formulas, so both print alike.

use super::input::{FieldName, Unit, field_name, trunc_unit};
use super::{
    Interval, POSTGRES_EPOCH_JDATE, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC,
    Zone, abbrevs, date_is_infinite, date2j, days_in_month, is_valid_timestamp, j2date,
    timestamp_is_infinite,
};
use crate::error::{Error, Result};
use crate::types::Numeric;

/// 1970-01-01 00:00 in microseconds since 2000-01-01.
const EPOCH_MICROS: i64 = -946_684_800_000_000;
const UNIX_EPOCH_JDATE: i64 = 2_440_588;
/// PostgreSQL truncates identifiers (and so unit names) to NAMEDATALEN - 1 bytes.
const UNIT_NAME_MAX: usize = 63;

/// What EXTRACT or date_part reads a field from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    Date(i32),
    Timestamp(i64),
    /// A timestamptz and the zone its fields are read in.
    Timestamptz(i64, &'a Zone),
    Interval(Interval),
    /// A time of day (microseconds).
    Time(i64),
    /// A timetz, packed (`datetime::pack_timetz`).
    TimeTz(i64),
}

impl Source<'_> {
    fn type_name(&self) -> &'static str {
        match self {
            Source::Date(_) => "date",
            Source::Timestamp(_) => "timestamp without time zone",
            Source::Timestamptz(..) => "timestamp with time zone",
            Source::Interval(_) => "interval",
            Source::Time(_) => "time without time zone",
            Source::TimeTz(_) => "time with time zone",
        }
    }
}

/// A field's value, as numeric (EXTRACT) or double precision (date_part).
#[derive(Clone, Debug)]
pub enum Part {
    Numeric(Numeric),
    Float(f64),
    Null,
}

/// The unit name as PostgreSQL reads it: ASCII lower-cased, cut to 63 bytes.
pub fn unit_name(text: &str) -> String {
    let mut cut = text.len().min(UNIT_NAME_MAX);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text[..cut].to_ascii_lowercase()
}

fn not_recognized(unit: &str, ty: &str) -> Error {
    Error::new(
        "22023",
        format!("unit \"{unit}\" not recognized for type {ty}"),
    )
}

fn not_supported(unit: &str, ty: &str) -> Error {
    Error::new(
        "0A000",
        format!("unit \"{unit}\" not supported for type {ty}"),
    )
}

fn timestamp_range() -> Error {
    Error::datetime_overflow("timestamp out of range")
}

/// A broken-down timestamp.
#[derive(Clone, Copy, Debug)]
struct Tm {
    year: i32,
    mon: i32,
    mday: i32,
    hour: i32,
    min: i32,
    sec: i32,
    /// Microseconds past the second.
    usec: i32,
}

fn split(micros: i64) -> Tm {
    let days = micros.div_euclid(USECS_PER_DAY);
    let tod = micros.rem_euclid(USECS_PER_DAY);
    let (year, mon, mday) = j2date(days as i32 + POSTGRES_EPOCH_JDATE);
    let secs = tod / USECS_PER_SEC;
    Tm {
        year,
        mon,
        mday,
        hour: (secs / 3600) as i32,
        min: (secs / 60 % 60) as i32,
        sec: (secs % 60) as i32,
        usec: (tod % USECS_PER_SEC) as i32,
    }
}

/// `split` for any instant PostgreSQL's timestamp2tm accepts: its Julian day must be
/// a non-negative `int`.
fn split_wide(micros: i128) -> Option<Tm> {
    let day = USECS_PER_DAY as i128;
    let days = micros.div_euclid(day) + POSTGRES_EPOCH_JDATE as i128;
    let jd = i32::try_from(days).ok().filter(|&d| d >= 0)?;
    let tod = micros.rem_euclid(day) as i64;
    let (year, mon, mday) = j2date(jd);
    let secs = tod / USECS_PER_SEC;
    Some(Tm {
        year,
        mon,
        mday,
        hour: (secs / 3600) as i32,
        min: (secs / 60 % 60) as i32,
        sec: (secs % 60) as i32,
        usec: (tod % USECS_PER_SEC) as i32,
    })
}

/// The local timestamp of `tm` (tm2timestamp), if representable.
fn join(tm: &Tm) -> Result<i64> {
    if !super::is_valid_julian(tm.year, tm.mon, tm.mday) {
        return Err(timestamp_range());
    }
    let date = (date2j(tm.year, tm.mon, tm.mday) - POSTGRES_EPOCH_JDATE) as i64;
    let time = ((tm.hour as i64 * 60 + tm.min as i64) * 60 + tm.sec as i64) * USECS_PER_SEC
        + tm.usec as i64;
    let t = date
        .checked_mul(USECS_PER_DAY)
        .and_then(|d| d.checked_add(time))
        .ok_or_else(timestamp_range)?;
    if is_valid_timestamp(t) {
        Ok(t)
    } else {
        Err(timestamp_range())
    }
}

/// Day of the week of a Julian day, 0 = Sunday (j2day).
pub(super) fn j2day(jd: i32) -> i32 {
    (jd + 1).rem_euclid(7)
}

/// Julian day of Monday of ISO week `week` of ISO year `year` (isoweek2j).
pub(super) fn isoweek2j(year: i32, week: i32) -> i32 {
    let day4 = date2j(year, 1, 4);
    let day0 = j2day(day4 - 1);
    (week - 1) * 7 + (day4 - day0)
}

/// ISO week number (date2isoweek).
pub(super) fn date2isoweek(year: i32, mon: i32, mday: i32) -> i32 {
    let dayn = date2j(year, mon, mday);
    let mut day4 = date2j(year, 1, 4);
    let mut day0 = j2day(day4 - 1);
    if dayn < day4 - day0 {
        day4 = date2j(year - 1, 1, 4);
        day0 = j2day(day4 - 1);
    }
    let mut result = (dayn - (day4 - day0)) / 7 + 1;
    if result >= 52 {
        day4 = date2j(year + 1, 1, 4);
        day0 = j2day(day4 - 1);
        if dayn >= day4 - day0 {
            result = (dayn - (day4 - day0)) / 7 + 1;
        }
    }
    result
}

/// ISO year (date2isoyear; year 0 exists).
pub(super) fn date2isoyear(year: i32, mon: i32, mday: i32) -> i32 {
    let dayn = date2j(year, mon, mday);
    let mut year = year;
    let mut day4 = date2j(year, 1, 4);
    let mut day0 = j2day(day4 - 1);
    if dayn < day4 - day0 {
        day4 = date2j(year - 1, 1, 4);
        day0 = j2day(day4 - 1);
        year -= 1;
    }
    let result = (dayn - (day4 - day0)) / 7 + 1;
    if result >= 52 {
        day4 = date2j(year + 1, 1, 4);
        day0 = j2day(day4 - 1);
        if dayn >= day4 - day0 {
            year += 1;
        }
    }
    year
}

/// The year-based fields, with PostgreSQL's BC conventions (no year 0 for `year`).
fn year_field(unit: Unit, year: i32) -> i64 {
    let y = year as i64;
    match unit {
        Unit::Year if y > 0 => y,
        Unit::Year => y - 1,
        Unit::Decade if y >= 0 => y / 10,
        Unit::Decade => -((8 - (y - 1)) / 10),
        Unit::Century if y > 0 => (y + 99) / 100,
        Unit::Century => -((99 - (y - 1)) / 100),
        Unit::Millennium if y > 0 => (y + 999) / 1000,
        Unit::Millennium => -((999 - (y - 1)) / 1000),
        _ => 0,
    }
}

fn exact(value: i64, scale: u32) -> Result<Part> {
    Ok(Part::Numeric(Numeric::new(value as i128, scale as u16)?))
}

/// EXTRACT(`unit` FROM `source`) when `numeric`, else date_part(`unit`, `source`).
pub fn extract(unit: &str, source: Source, numeric: bool) -> Result<Part> {
    let lower = unit_name(unit);
    let ty = source.type_name();
    let field = field_name(&lower);
    match source {
        Source::Date(d) if numeric => extract_date(&lower, field, d),
        // date_part(text, date) reads the date as a timestamp.
        Source::Date(d) => {
            let ts = super::date_to_timestamp(d)?;
            extract(unit, Source::Timestamp(ts), false)
        }
        Source::Timestamp(t) | Source::Timestamptz(t, _) if timestamp_is_infinite(t) => {
            infinite_part(&lower, field, ty, t < 0, numeric)
        }
        Source::Timestamp(t) => timestamp_part(&lower, field, ty, t, None, numeric),
        Source::Timestamptz(t, zone) => {
            let east = zone.offset_at(t);
            let local = t + east as i64 * USECS_PER_SEC;
            timestamp_part(&lower, field, ty, local, Some((t, east)), numeric)
        }
        Source::Interval(iv) => interval_part(&lower, field, iv, numeric),
        Source::Time(t) => time_part(&lower, field, ty, t, None, numeric),
        Source::TimeTz(p) => {
            let (t, west) = super::unpack_timetz(p);
            time_part(&lower, field, ty, t, Some(west), numeric)
        }
    }
}

/// time_part_common / timetz_part_common: the clock fields, the zone's for timetz
/// (`west` is its offset west of UTC), and epoch (seconds since midnight, UTC for
/// timetz).
fn time_part(
    unit: &str,
    field: FieldName,
    ty: &str,
    t: i64,
    west: Option<i32>,
    numeric: bool,
) -> Result<Part> {
    let int = |v: i64| -> Result<Part> {
        if numeric {
            exact(v, 0)
        } else {
            Ok(Part::Float(v as f64))
        }
    };
    let micros_of_minute = t % (60 * USECS_PER_SEC);
    match field {
        FieldName::Unit(u) => match u {
            Unit::Microsecond => int(micros_of_minute),
            Unit::Millisecond if numeric => exact(micros_of_minute, 3),
            Unit::Millisecond => Ok(Part::Float(micros_of_minute as f64 / 1000.0)),
            Unit::Second if numeric => exact(micros_of_minute, 6),
            Unit::Second => Ok(Part::Float(micros_of_minute as f64 / 1_000_000.0)),
            Unit::Minute => int(t / (60 * USECS_PER_SEC) % 60),
            Unit::Hour => int(t / (3600 * USECS_PER_SEC)),
            Unit::Tz | Unit::TzMinute | Unit::TzHour => {
                let Some(west) = west else {
                    return Err(not_supported(unit, ty));
                };
                let east = -(west as i64);
                int(match u {
                    Unit::Tz => east,
                    Unit::TzMinute => (east / 60) % 60,
                    _ => east / 3600,
                })
            }
            Unit::IsoTime => Err(not_recognized(unit, ty)),
            _ => Err(not_supported(unit, ty)),
        },
        FieldName::Epoch => {
            let t = t + west.unwrap_or(0) as i64 * USECS_PER_SEC;
            if numeric {
                Ok(Part::Numeric(Numeric::new(t as i128, 6)?))
            } else {
                Ok(Part::Float(t as f64 / 1_000_000.0))
            }
        }
        FieldName::OtherReserved => Err(not_supported(unit, ty)),
        FieldName::Unknown => Err(not_recognized(unit, ty)),
    }
}

/// Fields of ±infinity: NULL for cyclic units, ±Infinity for growing ones
/// (NonFiniteTimestampTzPart). kiln's numeric has no infinity.
fn infinite_part(
    unit: &str,
    field: FieldName,
    ty: &str,
    negative: bool,
    numeric: bool,
) -> Result<Part> {
    let growing = match field {
        FieldName::Unit(
            Unit::Microsecond
            | Unit::Millisecond
            | Unit::Second
            | Unit::Minute
            | Unit::Hour
            | Unit::Day
            | Unit::Month
            | Unit::Quarter
            | Unit::Week
            | Unit::Dow
            | Unit::IsoDow
            | Unit::Doy
            | Unit::Tz
            | Unit::TzMinute
            | Unit::TzHour,
        ) => false,
        FieldName::Unit(
            Unit::Year
            | Unit::Decade
            | Unit::Century
            | Unit::Millennium
            | Unit::Julian
            | Unit::IsoYear,
        )
        | FieldName::Epoch => true,
        FieldName::Unit(Unit::IsoTime) | FieldName::Unknown => {
            return Err(not_recognized(unit, ty));
        }
        FieldName::OtherReserved => return Err(not_supported(unit, ty)),
    };
    if !growing {
        return Ok(Part::Null);
    }
    if numeric {
        return Err(Error::feature_not_supported(
            "NaN and Infinity for type numeric",
        ));
    }
    Ok(Part::Float(if negative {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    }))
}

/// timestamp_part_common / timestamptz_part_common. `local` is the wall-clock time;
/// `zoned` the UTC instant and offset east for timestamptz.
fn timestamp_part(
    unit: &str,
    field: FieldName,
    ty: &str,
    local: i64,
    zoned: Option<(i64, i32)>,
    numeric: bool,
) -> Result<Part> {
    let int = |v: i64| -> Result<Part> {
        if numeric {
            exact(v, 0)
        } else {
            Ok(Part::Float(v as f64))
        }
    };
    match field {
        FieldName::Unit(u) => {
            let tm = split(local);
            let micros_of_minute = tm.sec as i64 * USECS_PER_SEC + tm.usec as i64;
            match u {
                Unit::Tz | Unit::TzMinute | Unit::TzHour => {
                    let Some((_, east)) = zoned else {
                        return Err(not_supported(unit, ty));
                    };
                    let east = east as i64;
                    int(match u {
                        Unit::Tz => east,
                        Unit::TzMinute => (east / 60) % 60,
                        _ => east / 3600,
                    })
                }
                Unit::Microsecond => int(micros_of_minute),
                Unit::Millisecond if numeric => exact(micros_of_minute, 3),
                Unit::Millisecond => Ok(Part::Float(
                    tm.sec as f64 * 1000.0 + tm.usec as f64 / 1000.0,
                )),
                Unit::Second if numeric => exact(micros_of_minute, 6),
                Unit::Second => Ok(Part::Float(tm.sec as f64 + tm.usec as f64 / 1_000_000.0)),
                Unit::Minute => int(tm.min as i64),
                Unit::Hour => int(tm.hour as i64),
                Unit::Day => int(tm.mday as i64),
                Unit::Month => int(tm.mon as i64),
                Unit::Quarter => int(((tm.mon - 1) / 3 + 1) as i64),
                Unit::Week => int(date2isoweek(tm.year, tm.mon, tm.mday) as i64),
                Unit::Year | Unit::Decade | Unit::Century | Unit::Millennium => {
                    int(year_field(u, tm.year))
                }
                Unit::Julian => {
                    let jd = date2j(tm.year, tm.mon, tm.mday) as i64;
                    let secs = (tm.hour as i64 * 60 + tm.min as i64) * 60 + tm.sec as i64;
                    if numeric {
                        let usecs = secs * USECS_PER_SEC + tm.usec as i64;
                        let frac =
                            Numeric::from_i64(usecs).div(&Numeric::from_i64(USECS_PER_DAY))?;
                        Ok(Part::Numeric(Numeric::from_i64(jd).add(&frac)?))
                    } else {
                        Ok(Part::Float(
                            jd as f64 + (secs as f64 + tm.usec as f64 / 1_000_000.0) / 86_400.0,
                        ))
                    }
                }
                Unit::IsoYear => {
                    let y = date2isoyear(tm.year, tm.mon, tm.mday) as i64;
                    int(if y <= 0 { y - 1 } else { y })
                }
                Unit::Dow | Unit::IsoDow => {
                    let dow = j2day(date2j(tm.year, tm.mon, tm.mday)) as i64;
                    int(if u == Unit::IsoDow && dow == 0 {
                        7
                    } else {
                        dow
                    })
                }
                Unit::Doy => {
                    int((date2j(tm.year, tm.mon, tm.mday) - date2j(tm.year, 1, 1) + 1) as i64)
                }
                Unit::IsoTime => Err(not_recognized(unit, ty)),
            }
        }
        FieldName::Epoch => {
            // Seconds since 1970-01-01 00:00 UTC (for timestamp, of its wall clock).
            let t = zoned.map_or(local, |(utc, _)| utc);
            if numeric {
                let micros = t as i128 - EPOCH_MICROS as i128;
                Ok(Part::Numeric(Numeric::new(micros, 6)?))
            } else {
                Ok(Part::Float(match t.checked_sub(EPOCH_MICROS) {
                    Some(d) => d as f64 / 1_000_000.0,
                    None => (t as f64 - EPOCH_MICROS as f64) / 1_000_000.0,
                }))
            }
        }
        FieldName::OtherReserved => Err(not_supported(unit, ty)),
        FieldName::Unknown => Err(not_recognized(unit, ty)),
    }
}

/// extract_date: EXTRACT from a date (numeric, date units only).
fn extract_date(unit: &str, field: FieldName, d: i32) -> Result<Part> {
    let ty = "date";
    if date_is_infinite(d) && matches!(field, FieldName::Unit(_) | FieldName::Epoch) {
        return match field {
            FieldName::Unit(
                Unit::Day
                | Unit::Month
                | Unit::Quarter
                | Unit::Week
                | Unit::Dow
                | Unit::IsoDow
                | Unit::Doy,
            ) => Ok(Part::Null),
            FieldName::Unit(
                Unit::Year
                | Unit::Decade
                | Unit::Century
                | Unit::Millennium
                | Unit::Julian
                | Unit::IsoYear,
            )
            | FieldName::Epoch => Err(Error::feature_not_supported(
                "NaN and Infinity for type numeric",
            )),
            _ => Err(not_supported(unit, ty)),
        };
    }
    let jd = d as i64 + POSTGRES_EPOCH_JDATE as i64;
    let (year, mon, mday) = j2date(jd as i32);
    let value = match field {
        FieldName::Unit(u) => match u {
            Unit::Day => mday as i64,
            Unit::Month => mon as i64,
            Unit::Quarter => ((mon - 1) / 3 + 1) as i64,
            Unit::Week => date2isoweek(year, mon, mday) as i64,
            Unit::Year | Unit::Decade | Unit::Century | Unit::Millennium => year_field(u, year),
            Unit::Julian => jd,
            Unit::IsoYear => {
                let y = date2isoyear(year, mon, mday) as i64;
                if y <= 0 { y - 1 } else { y }
            }
            Unit::Dow | Unit::IsoDow => {
                let dow = j2day(jd as i32) as i64;
                if u == Unit::IsoDow && dow == 0 {
                    7
                } else {
                    dow
                }
            }
            Unit::Doy => (date2j(year, mon, mday) - date2j(year, 1, 1) + 1) as i64,
            Unit::IsoTime => return Err(not_recognized(unit, ty)),
            Unit::Microsecond
            | Unit::Millisecond
            | Unit::Second
            | Unit::Minute
            | Unit::Hour
            | Unit::Tz
            | Unit::TzHour
            | Unit::TzMinute => return Err(not_supported(unit, ty)),
        },
        FieldName::Epoch => (jd - UNIX_EPOCH_JDATE) * 86_400,
        FieldName::OtherReserved => return Err(not_supported(unit, ty)),
        FieldName::Unknown => return Err(not_recognized(unit, ty)),
    };
    exact(value, 0)
}

/// An interval broken into fields with C's truncating division (interval2itm).
struct Itm {
    year: i64,
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    usec: i64,
}

fn interval2itm(iv: &Interval) -> Itm {
    let mut time = iv.micros;
    let hour = time / USECS_PER_HOUR;
    time -= hour * USECS_PER_HOUR;
    let min = time / USECS_PER_MINUTE;
    time -= min * USECS_PER_MINUTE;
    let sec = time / USECS_PER_SEC;
    Itm {
        year: (iv.months / 12) as i64,
        mon: (iv.months % 12) as i64,
        mday: iv.days as i64,
        hour,
        min,
        sec,
        usec: time - sec * USECS_PER_SEC,
    }
}

fn itm2interval(tm: &Itm) -> Result<Interval> {
    let range = || Error::datetime_overflow("interval out of range");
    let months = tm
        .year
        .checked_mul(12)
        .and_then(|m| m.checked_add(tm.mon))
        .and_then(|m| i32::try_from(m).ok())
        .ok_or_else(range)?;
    let days = i32::try_from(tm.mday).map_err(|_| range())?;
    let micros = tm
        .hour
        .checked_mul(USECS_PER_HOUR)
        .and_then(|h| h.checked_add(tm.min.checked_mul(USECS_PER_MINUTE)?))
        .and_then(|t| t.checked_add(tm.sec.checked_mul(USECS_PER_SEC)?))
        .and_then(|t| t.checked_add(tm.usec))
        .ok_or_else(range)?;
    Ok(Interval {
        months,
        days,
        micros,
    })
}

/// interval_part_common.
fn interval_part(unit: &str, field: FieldName, iv: Interval, numeric: bool) -> Result<Part> {
    let ty = "interval";
    let int = |v: i64| -> Result<Part> {
        if numeric {
            exact(v, 0)
        } else {
            Ok(Part::Float(v as f64))
        }
    };
    match field {
        FieldName::Unit(u) => {
            let tm = interval2itm(&iv);
            let micros = tm.sec * USECS_PER_SEC + tm.usec;
            match u {
                Unit::Microsecond => int(micros),
                Unit::Millisecond if numeric => exact(micros, 3),
                Unit::Millisecond => Ok(Part::Float(
                    tm.sec as f64 * 1000.0 + tm.usec as f64 / 1000.0,
                )),
                Unit::Second if numeric => exact(micros, 6),
                Unit::Second => Ok(Part::Float(tm.sec as f64 + tm.usec as f64 / 1_000_000.0)),
                Unit::Minute => int(tm.min),
                Unit::Hour => int(tm.hour),
                Unit::Day => int(tm.mday),
                Unit::Month => int(tm.mon),
                Unit::Quarter => int(tm.mon / 3 + 1),
                Unit::Year => int(tm.year),
                Unit::Decade => int(tm.year / 10),
                Unit::Century => int(tm.year / 100),
                Unit::Millennium => int(tm.year / 1000),
                Unit::Week
                | Unit::Julian
                | Unit::IsoTime
                | Unit::Dow
                | Unit::Doy
                | Unit::IsoDow
                | Unit::IsoYear
                | Unit::Tz
                | Unit::TzHour
                | Unit::TzMinute => Err(not_supported(unit, ty)),
            }
        }
        FieldName::Epoch => {
            let months = iv.months as i64;
            if numeric {
                // Everything times 4, so 365.25 days a year stays integral.
                let secs = (1461 * (months / 12) + 120 * (months % 12) + 4 * iv.days as i64)
                    * (86_400 / 4);
                let total = (secs as i128) * USECS_PER_SEC as i128 + iv.micros as i128;
                Ok(Part::Numeric(Numeric::new(total, 6)?))
            } else {
                let mut r = iv.micros as f64 / 1_000_000.0;
                r += (365.25 * 86_400.0) * (months / 12) as f64;
                r += (30.0 * 86_400.0) * (months % 12) as f64;
                r += 86_400.0 * iv.days as f64;
                Ok(Part::Float(r))
            }
        }
        FieldName::OtherReserved | FieldName::Unknown => Err(not_recognized(unit, ty)),
    }
}

/// date_trunc(`unit`, timestamp): the local time cut down to the unit.
pub fn trunc_timestamp(unit: &str, t: i64) -> Result<i64> {
    if timestamp_is_infinite(t) {
        return Ok(t);
    }
    let lower = unit_name(unit);
    let ty = "timestamp without time zone";
    let u = trunc_unit(&lower).ok_or_else(|| not_recognized(&lower, ty))?;
    let mut tm = split(t);
    truncate_tm(&mut tm, u).map_err(|()| not_supported(&lower, ty))?;
    join(&tm)
}

/// date_trunc(`unit`, timestamptz[, zone]): cut in `zone`'s local time; from a day up
/// the offset is taken anew for the result (a daylight-saving change may lie between).
pub fn trunc_timestamptz(unit: &str, t: i64, zone: &Zone) -> Result<i64> {
    if timestamp_is_infinite(t) {
        return Ok(t);
    }
    let lower = unit_name(unit);
    let ty = "timestamp with time zone";
    let u = trunc_unit(&lower).ok_or_else(|| not_recognized(&lower, ty))?;
    let east = zone.offset_at(t);
    let mut tm = split(t + east as i64 * USECS_PER_SEC);
    truncate_tm(&mut tm, u).map_err(|()| not_supported(&lower, ty))?;
    let local = join(&tm)?;
    let redo = matches!(
        u,
        Unit::Week
            | Unit::Millennium
            | Unit::Century
            | Unit::Decade
            | Unit::Year
            | Unit::Quarter
            | Unit::Month
            | Unit::Day
    );
    let east = if redo {
        zone.offset_for_local(local)
    } else {
        east
    };
    let utc = local - east as i64 * USECS_PER_SEC;
    if is_valid_timestamp(utc) {
        Ok(utc)
    } else {
        Err(timestamp_range())
    }
}

/// The fall-through cascade of timestamp_trunc; Err for units it lacks.
fn truncate_tm(tm: &mut Tm, u: Unit) -> std::result::Result<(), ()> {
    if u == Unit::Week {
        let woy = date2isoweek(tm.year, tm.mon, tm.mday);
        if woy >= 52 && tm.mon == 1 {
            tm.year -= 1;
        }
        if woy <= 1 && tm.mon == 12 {
            tm.year += 1;
        }
        let (y, m, d) = j2date(isoweek2j(tm.year, woy));
        *tm = Tm {
            year: y,
            mon: m,
            mday: d,
            hour: 0,
            min: 0,
            sec: 0,
            usec: 0,
        };
        return Ok(());
    }
    let level = match u {
        Unit::Millisecond => {
            tm.usec = (tm.usec / 1000) * 1000;
            return Ok(());
        }
        Unit::Microsecond => return Ok(()),
        _ => trunc_level(u).ok_or(())?,
    };
    if u == Unit::Millennium {
        tm.year = if tm.year > 0 {
            ((tm.year + 999) / 1000) * 1000 - 999
        } else {
            -((999 - (tm.year - 1)) / 1000) * 1000 + 1
        };
    }
    if level >= 8 {
        tm.year = if tm.year > 0 {
            ((tm.year + 99) / 100) * 100 - 99
        } else {
            -((99 - (tm.year - 1)) / 100) * 100 + 1
        };
    }
    if level == 7 {
        tm.year = if tm.year > 0 {
            (tm.year / 10) * 10
        } else {
            -((8 - (tm.year - 1)) / 10) * 10
        };
    }
    if level >= 6 {
        tm.mon = 1;
    }
    if level >= 5 {
        tm.mon = 3 * ((tm.mon - 1) / 3) + 1;
    }
    if level >= 4 {
        tm.mday = 1;
    }
    if level >= 3 {
        tm.hour = 0;
    }
    if level >= 2 {
        tm.min = 0;
    }
    if level >= 1 {
        tm.sec = 0;
    }
    tm.usec = 0;
    Ok(())
}

/// How much of a broken-down time date_trunc clears for `u`, from the second (0) up to
/// the millennium (9), as the fall-through switch of PostgreSQL's timestamp_trunc and
/// interval_trunc orders the units; `None` for units those switches treat otherwise.
fn trunc_level(u: Unit) -> Option<i32> {
    Some(match u {
        Unit::Millennium => 9,
        Unit::Century => 8,
        Unit::Decade => 7,
        Unit::Year => 6,
        Unit::Quarter => 5,
        Unit::Month => 4,
        Unit::Day => 3,
        Unit::Hour => 2,
        Unit::Minute => 1,
        Unit::Second => 0,
        _ => return None,
    })
}

/// date_trunc(`unit`, interval) (interval_trunc).
pub fn trunc_interval(unit: &str, iv: &Interval) -> Result<Interval> {
    let lower = unit_name(unit);
    let ty = "interval";
    let u = trunc_unit(&lower).ok_or_else(|| not_recognized(&lower, ty))?;
    let mut tm = interval2itm(iv);
    let level = match u {
        Unit::Millisecond => -1,
        Unit::Microsecond => -2,
        Unit::Week => {
            return Err(
                not_supported(&lower, ty).with_detail("Months usually have fractional weeks.")
            );
        }
        Unit::Julian
        | Unit::IsoTime
        | Unit::Dow
        | Unit::Doy
        | Unit::IsoDow
        | Unit::IsoYear
        | Unit::Tz
        | Unit::TzHour
        | Unit::TzMinute => return Err(not_supported(&lower, ty)),
        _ => trunc_level(u).ok_or_else(|| not_supported(&lower, ty))?,
    };
    if level >= 9 {
        tm.year = (tm.year / 1000) * 1000;
    }
    if level >= 8 {
        tm.year = (tm.year / 100) * 100;
    }
    if level >= 7 {
        tm.year = (tm.year / 10) * 10;
    }
    if level >= 6 {
        tm.mon = 0;
    }
    if level >= 5 {
        tm.mon = 3 * (tm.mon / 3);
    }
    if level >= 4 {
        tm.mday = 0;
    }
    if level >= 3 {
        tm.hour = 0;
    }
    if level >= 2 {
        tm.min = 0;
    }
    if level >= 1 {
        tm.sec = 0;
    }
    match level {
        -1 => tm.usec = (tm.usec / 1000) * 1000,
        -2 => {}
        _ => tm.usec = 0,
    }
    itm2interval(&tm)
}

/// age(a, b): the symbolic difference in years, months, days and time, borrowing month
/// lengths as PostgreSQL's timestamp_age does. For timestamptz both are read in `zone`.
pub fn age(a: i64, b: i64, zone: Option<&Zone>) -> Result<Interval> {
    // PostgreSQL breaks `infinity` down like any value (to a date in 294277) and only
    // fails for values whose Julian day would be negative, such as `-infinity`.
    let local = |t: i64| -> Result<Tm> {
        let shifted = match zone {
            Some(z) => t as i128 + z.offset_at(t) as i128 * USECS_PER_SEC as i128,
            None => t as i128,
        };
        split_wide(shifted).ok_or_else(timestamp_range)
    };
    let (t1, t2) = (local(a)?, local(b)?);
    let mut tm = Itm {
        year: (t1.year - t2.year) as i64,
        mon: (t1.mon - t2.mon) as i64,
        mday: (t1.mday - t2.mday) as i64,
        hour: (t1.hour - t2.hour) as i64,
        min: (t1.min - t2.min) as i64,
        sec: (t1.sec - t2.sec) as i64,
        usec: (t1.usec - t2.usec) as i64,
    };
    let flip = a < b;
    let negate = |tm: &mut Itm| {
        for f in [
            &mut tm.year,
            &mut tm.mon,
            &mut tm.mday,
            &mut tm.hour,
            &mut tm.min,
            &mut tm.sec,
            &mut tm.usec,
        ] {
            *f = -*f;
        }
    };
    if flip {
        negate(&mut tm);
    }
    while tm.usec < 0 {
        tm.usec += USECS_PER_SEC;
        tm.sec -= 1;
    }
    while tm.sec < 0 {
        tm.sec += 60;
        tm.min -= 1;
    }
    while tm.min < 0 {
        tm.min += 60;
        tm.hour -= 1;
    }
    while tm.hour < 0 {
        tm.hour += 24;
        tm.mday -= 1;
    }
    // Borrow the length of the month of the earlier operand as PostgreSQL does.
    let borrow = if flip { &t1 } else { &t2 };
    while tm.mday < 0 {
        tm.mday += days_in_month(borrow.year, borrow.mon) as i64;
        tm.mon -= 1;
    }
    while tm.mon < 0 {
        tm.mon += 12;
        tm.year -= 1;
    }
    if flip {
        negate(&mut tm);
    }
    itm2interval(&tm)
}

/// How AT TIME ZONE reads a zone given as text.
enum NamedZone {
    /// Seconds east of UTC.
    Fixed(i32),
    /// A dynamic abbreviation: its meaning in that zone at the time in question.
    Dynamic(chrono_tz::Tz, String),
    Zone(Zone),
}

/// PostgreSQL's zone lookup for AT TIME ZONE and timezone(): abbreviations first
/// (`EST`), then zone names (`America/New_York`) and POSIX specs.
fn named_zone(name: &str) -> Result<NamedZone> {
    let lower = unit_name(name);
    match abbrevs::lookup(&lower) {
        Some(abbrevs::Abbrev::Fixed(east) | abbrevs::Abbrev::Dst(east)) => {
            return Ok(NamedZone::Fixed(east));
        }
        Some(abbrevs::Abbrev::Dynamic(zone)) => {
            if let Some(Zone::Named(tz)) = Zone::named(zone) {
                return Ok(NamedZone::Dynamic(tz, lower));
            }
        }
        None => {}
    }
    Zone::named(name)
        .map(NamedZone::Zone)
        .ok_or_else(|| Error::new("22023", format!("time zone \"{name}\" not recognized")))
}

/// `timetz AT TIME ZONE zone` (timetz_zone): the same instant on `zone`'s clock,
/// `zone`'s offset taken at `now` (the transaction's start) when it has several.
pub fn timetz_at_zone(packed: i64, zone: &str, now: i64) -> Result<i64> {
    let east = match named_zone(zone)? {
        NamedZone::Fixed(east) => east,
        NamedZone::Dynamic(tz, _) => Zone::Named(tz).offset_at(now),
        NamedZone::Zone(z) => z.offset_at(now),
    };
    Ok(timetz_shift(packed, -east))
}

/// `timetz AT TIME ZONE interval` (timetz_izone).
pub fn timetz_at_interval(packed: i64, iv: &Interval, text: impl Fn() -> String) -> Result<i64> {
    if iv.months != 0 || iv.days != 0 {
        return Err(Error::new(
            "22023",
            format!(
                "interval time zone \"{}\" must not include months or days",
                text()
            ),
        ));
    }
    Ok(timetz_shift(packed, -(iv.micros / USECS_PER_SEC) as i32))
}

/// A timetz moved to the zone `west` seconds west of UTC.
fn timetz_shift(packed: i64, west: i32) -> i64 {
    let (time, old_west) = super::unpack_timetz(packed);
    let t = (time + (old_west - west) as i64 * USECS_PER_SEC).rem_euclid(super::USECS_PER_DAY);
    super::pack_timetz(t, west)
}

/// A zone named in date_trunc's third argument (lookup_timezone): an abbreviation
/// reads as a fixed offset.
pub fn zone_by_name(name: &str) -> Result<Zone> {
    Ok(match named_zone(name)? {
        NamedZone::Fixed(east) => Zone::Fixed(east),
        NamedZone::Dynamic(tz, _) => Zone::Named(tz),
        NamedZone::Zone(z) => z,
    })
}

/// `timestamp AT TIME ZONE zone`: the instant at which `zone`'s clocks show `t`.
pub fn timestamp_at_zone(t: i64, zone: &str) -> Result<i64> {
    if timestamp_is_infinite(t) {
        return Ok(t);
    }
    let utc = match named_zone(zone)? {
        NamedZone::Fixed(east) => t - east as i64 * USECS_PER_SEC,
        NamedZone::Dynamic(tz, abbrev) => {
            let z = Zone::Named(tz);
            let probe = z.local_to_utc(t);
            let east = abbrevs::dynamic_offset(tz, &abbrev, probe)
                .unwrap_or_else(|| z.offset_for_local(t));
            t - east as i64 * USECS_PER_SEC
        }
        NamedZone::Zone(z) => t - z.offset_for_local(t) as i64 * USECS_PER_SEC,
    };
    checked(utc)
}

/// `timestamptz AT TIME ZONE zone`: what `zone`'s clocks show at instant `t`.
pub fn timestamptz_at_zone(t: i64, zone: &str) -> Result<i64> {
    if timestamp_is_infinite(t) {
        return Ok(t);
    }
    let local = match named_zone(zone)? {
        NamedZone::Fixed(east) => t + east as i64 * USECS_PER_SEC,
        NamedZone::Dynamic(tz, abbrev) => {
            let east = abbrevs::dynamic_offset(tz, &abbrev, t)
                .unwrap_or_else(|| Zone::Named(tz).offset_at(t));
            t + east as i64 * USECS_PER_SEC
        }
        NamedZone::Zone(z) => t + z.offset_at(t) as i64 * USECS_PER_SEC,
    };
    checked(local)
}

/// The seconds-east offset an interval names as a zone (`AT TIME ZONE INTERVAL '+02:00'`).
fn interval_zone(iv: &Interval, text: impl Fn() -> String) -> Result<i64> {
    if iv.months != 0 || iv.days != 0 {
        return Err(Error::new(
            "22023",
            format!(
                "interval time zone \"{}\" must not include months or days",
                text()
            ),
        ));
    }
    Ok(iv.micros / USECS_PER_SEC)
}

/// `timestamp AT TIME ZONE interval`.
pub fn timestamp_at_interval(t: i64, iv: &Interval, text: impl Fn() -> String) -> Result<i64> {
    if timestamp_is_infinite(t) {
        return Ok(t);
    }
    let east = interval_zone(iv, text)?;
    checked(t - east * USECS_PER_SEC)
}

/// `timestamptz AT TIME ZONE interval`.
pub fn timestamptz_at_interval(t: i64, iv: &Interval, text: impl Fn() -> String) -> Result<i64> {
    if timestamp_is_infinite(t) {
        return Ok(t);
    }
    let east = interval_zone(iv, text)?;
    checked(t + east * USECS_PER_SEC)
}

fn checked(t: i64) -> Result<i64> {
    if is_valid_timestamp(t) {
        Ok(t)
    } else {
        Err(timestamp_range())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::datetime::{DateOrder, InputContext, parse_timestamp};

    fn ts(text: &str) -> i64 {
        let ctx = InputContext {
            zone: Zone::Fixed(0),
            order: DateOrder::Mdy,
            now_utc: 0,
        };
        parse_timestamp(text, &ctx).unwrap_or_default()
    }

    fn num(p: Result<Part>) -> String {
        match p {
            Ok(Part::Numeric(n)) => n.to_text(),
            Ok(Part::Float(f)) => format!("{f}"),
            Ok(Part::Null) => "NULL".into(),
            Err(e) => format!("{} {}", e.code, e.message),
        }
    }

    #[test]
    fn extract_like_postgres() {
        let t = Source::Timestamp(ts("2024-02-29 12:34:56.789"));
        assert_eq!(num(extract("second", t, true)), "56.789000");
        assert_eq!(num(extract("milliseconds", t, true)), "56789.000");
        assert_eq!(num(extract("epoch", t, true)), "1709210096.789000");
        assert_eq!(num(extract("dow", t, true)), "4");
        assert_eq!(num(extract("week", t, true)), "9");
        assert_eq!(num(extract("century", t, true)), "21");
        assert_eq!(
            num(extract("timezone", t, true)),
            "0A000 unit \"timezone\" not supported for type timestamp without time zone"
        );
        assert_eq!(
            num(extract("fortnight", t, true)),
            "22023 unit \"fortnight\" not recognized for type timestamp without time zone"
        );
        let bc = Source::Timestamp(ts("0001-06-01 BC"));
        assert_eq!(num(extract("year", bc, true)), "-1");
        assert_eq!(num(extract("century", bc, true)), "-1");
    }

    #[test]
    fn trunc_and_age_like_postgres() {
        let t = ts("2024-02-29 12:34:56.789");
        assert_eq!(trunc_timestamp("week", t).ok(), Some(ts("2024-02-26")));
        assert_eq!(trunc_timestamp("quarter", t).ok(), Some(ts("2024-01-01")));
        assert_eq!(
            trunc_timestamp("millennium", t).ok(),
            Some(ts("2001-01-01"))
        );
        assert_eq!(
            trunc_timestamp("milliseconds", t).ok(),
            Some(ts("2024-02-29 12:34:56.789"))
        );
        let iv = age(ts("2024-03-01"), ts("2023-01-31"), None).ok();
        assert_eq!(iv.map(|i| (i.months, i.days)), Some((13, 1)));
    }
}
