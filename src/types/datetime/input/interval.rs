//! Interval text input, as PostgreSQL's DecodeInterval and DecodeISO8601Interval read
//! it: the fields [`super::tokenize`] splits are walked right to left so that units come
//! before their numbers (`1 day 2 hours`, `1-2`, `@ 3 days ago`, `10:00`); when that
//! fails the ISO 8601 forms (`P1Y2M3DT4H`, `P0001-02-03`) are tried. The result is
//! checked against the interval's range and, with a field qualifier (`interval '1'
//! year`), truncated to it.

use super::*;

/// An interval being read (PostgreSQL's pg_itm_in).
#[derive(Clone, Copy, Debug, Default)]
struct ItmIn {
    usec: i64,
    mday: i32,
    mon: i32,
    year: i32,
}

impl ItmIn {
    fn add_fract_micros(&mut self, frac: f64, scale: i64) -> bool {
        if frac == 0.0 {
            return true;
        }
        let f = frac * scale as f64;
        let mut usec = f as i64;
        let rest = f - usec as f64;
        if rest > 0.5 {
            usec += 1;
        } else if rest < -0.5 {
            usec -= 1;
        }
        match self.usec.checked_add(usec) {
            Some(v) => {
                self.usec = v;
                true
            }
            None => false,
        }
    }
    fn add_fract_days(&mut self, frac: f64, scale: i32) -> bool {
        if frac == 0.0 {
            return true;
        }
        let f = frac * scale as f64;
        let extra = f as i32;
        let Some(d) = self.mday.checked_add(extra) else {
            return false;
        };
        self.mday = d;
        self.add_fract_micros(f - extra as f64, USECS_PER_DAY)
    }
    fn add_fract_years(&mut self, frac: f64, scale: i32) -> bool {
        let extra = (frac * scale as f64 * 12.0).round_ties_even() as i32;
        match self.mon.checked_add(extra) {
            Some(v) => {
                self.mon = v;
                true
            }
            None => false,
        }
    }
    fn add_micros(&mut self, val: i64, fval: f64, scale: i64) -> bool {
        match val
            .checked_mul(scale)
            .and_then(|p| self.usec.checked_add(p))
        {
            Some(v) => self.usec = v,
            None => return false,
        }
        self.add_fract_micros(fval, scale)
    }
    fn add_days(&mut self, val: i64, scale: i32) -> bool {
        let Ok(v) = i32::try_from(val) else {
            return false;
        };
        match v.checked_mul(scale).and_then(|d| self.mday.checked_add(d)) {
            Some(d) => {
                self.mday = d;
                true
            }
            None => false,
        }
    }
    fn add_months(&mut self, val: i64) -> bool {
        let Ok(v) = i32::try_from(val) else {
            return false;
        };
        match self.mon.checked_add(v) {
            Some(x) => {
                self.mon = x;
                true
            }
            None => false,
        }
    }
    fn add_years(&mut self, val: i64, scale: i32) -> bool {
        let Ok(v) = i32::try_from(val) else {
            return false;
        };
        match v.checked_mul(scale).and_then(|y| self.year.checked_add(y)) {
            Some(y) => {
                self.year = y;
                true
            }
            None => false,
        }
    }
    /// Adds `val` (+ fraction `fval`) of `unit`; false on overflow.
    fn add_unit(&mut self, unit: Unit, val: i64, fval: f64) -> Dt<bool> {
        Ok(match unit {
            Unit::Microsecond => self.add_micros(val, fval, 1),
            Unit::Millisecond => self.add_micros(val, fval, 1000),
            Unit::Second => self.add_micros(val, fval, USECS_PER_SEC),
            Unit::Minute => self.add_micros(val, fval, USECS_PER_MINUTE),
            Unit::Hour => self.add_micros(val, fval, USECS_PER_HOUR),
            Unit::Day => self.add_days(val, 1) && self.add_fract_micros(fval, USECS_PER_DAY),
            Unit::Week => self.add_days(val, 7) && self.add_fract_days(fval, 7),
            Unit::Month => self.add_months(val) && self.add_fract_days(fval, 30),
            Unit::Year => self.add_years(val, 1) && self.add_fract_years(fval, 1),
            Unit::Decade => self.add_years(val, 10) && self.add_fract_years(fval, 10),
            Unit::Century => self.add_years(val, 100) && self.add_fract_years(fval, 100),
            Unit::Millennium => self.add_years(val, 1000) && self.add_fract_years(fval, 1000),
            Unit::Quarter
            | Unit::Julian
            | Unit::IsoTime
            | Unit::Dow
            | Unit::Doy
            | Unit::IsoDow
            | Unit::IsoYear
            | Unit::Tz
            | Unit::TzHour
            | Unit::TzMinute => return Err(DtErr::BadFormat),
        })
    }
    fn mask_of(unit: Unit, fval: f64) -> u32 {
        match unit {
            Unit::Microsecond => m(bit::MICROSECOND),
            Unit::Millisecond => m(bit::MILLISECOND),
            Unit::Second if fval == 0.0 => m(bit::SECOND),
            Unit::Second => ALL_SECS_M,
            Unit::Minute => m(bit::MINUTE),
            Unit::Hour => m(bit::HOUR),
            Unit::Day => m(bit::DAY),
            Unit::Week => m(bit::WEEK),
            Unit::Month => m(bit::MONTH),
            Unit::Year => m(bit::YEAR),
            Unit::Decade => m(bit::DECADE),
            Unit::Century => m(bit::CENTURY),
            Unit::Millennium => m(bit::MILLENNIUM),
            Unit::Quarter
            | Unit::Julian
            | Unit::IsoTime
            | Unit::Dow
            | Unit::Doy
            | Unit::IsoDow
            | Unit::IsoYear
            | Unit::Tz
            | Unit::TzHour
            | Unit::TzMinute => 0,
        }
    }
}

/// The unit a number in an interval takes from what stands to its right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PendingUnit {
    /// Nothing yet: seconds.
    Default,
    Unit(Unit),
    /// Right after `ago`, where PostgreSQL has no unit: a number there is invalid.
    AfterAgo,
}

/// `hh:mm[:ss]` inside an interval, into microseconds (DecodeTimeForInterval).
fn interval_time(s: &str) -> Dt<i64> {
    let (hour, min, sec, fsec) = decode_time_common(s, false)?;
    let mut usec = fsec as i64;
    for (v, scale) in [
        (hour, USECS_PER_HOUR),
        (min as i64, USECS_PER_MINUTE),
        (sec as i64, USECS_PER_SEC),
    ] {
        usec = v
            .checked_mul(scale)
            .and_then(|p| usec.checked_add(p))
            .ok_or(DtErr::FieldOverflow)?;
    }
    Ok(usec)
}

/// Decodes the fields of an interval, right to left (DecodeInterval, IntervalStyle
/// postgres).
fn decode_interval(f: &Fields, range: Option<Unit>) -> Dt<ItmIn> {
    let mut itm = ItmIn::default();
    let mut fmask = 0u32;
    let mut is_before = false;
    // The unit of the number to the left (a field qualifier names the rightmost one).
    let mut unit = match range {
        Some(u) => PendingUnit::Unit(u),
        None => PendingUnit::Default,
    };
    for i in (0..f.count).rev() {
        let field = f.get(i);
        let tmask = match f.shape(i) {
            Shape::Time => {
                itm.usec = interval_time(field)?;
                unit = PendingUnit::Unit(Unit::Day);
                TIME_M
            }
            Shape::Signed if field[1..].contains(':') && interval_time(&field[1..]).is_ok() => {
                let usec = interval_time(&field[1..])?;
                itm.usec = if field.starts_with('-') {
                    usec.checked_neg().ok_or(DtErr::FieldOverflow)?
                } else {
                    usec
                };
                unit = PendingUnit::Unit(Unit::Day);
                TIME_M
            }
            Shape::Signed | Shape::Date | Shape::Number => {
                // Right after "ago" there is no unit, unless the number names its own.
                let mut u = match unit {
                    PendingUnit::Default => Some(Unit::Second),
                    PendingUnit::Unit(u) => Some(u),
                    PendingUnit::AfterAgo => None,
                };
                let (val, used, overflow) = strtol(field);
                if overflow {
                    return Err(DtErr::FieldOverflow);
                }
                let rest = &field[used..];
                let (val, fval) = if let Some(after) = rest.strip_prefix('-') {
                    // SQL year-month: "1-2".
                    let (months, used2) = strtoint(after);
                    let months = months
                        .filter(|v| (0..12).contains(v))
                        .ok_or(DtErr::FieldOverflow)?;
                    if used2 != after.len() {
                        return Err(DtErr::BadFormat);
                    }
                    u = Some(Unit::Month);
                    let months = if field.starts_with('-') {
                        -months
                    } else {
                        months
                    };
                    let total = val
                        .checked_mul(12)
                        .and_then(|v| v.checked_add(months as i64))
                        .ok_or(DtErr::FieldOverflow)?;
                    (total, 0.0)
                } else if rest.starts_with('.') {
                    let frac = parse_fraction(rest)?;
                    (val, if field.starts_with('-') { -frac } else { frac })
                } else if rest.is_empty() {
                    (val, 0.0)
                } else {
                    return Err(DtErr::BadFormat);
                };
                let u = u.ok_or(DtErr::BadFormat)?;
                if !itm.add_unit(u, val, fval)? {
                    return Err(DtErr::FieldOverflow);
                }
                // A number left of hours is days.
                unit = PendingUnit::Unit(if u == Unit::Hour { Unit::Day } else { u });
                ItmIn::mask_of(u, fval)
            }
            Shape::Word | Shape::SignedWord => match search(DELTA_WORDS, field) {
                Some(DeltaWord::Ignore) => continue,
                Some(DeltaWord::Unit(u)) => {
                    unit = PendingUnit::Unit(u);
                    0
                }
                Some(DeltaWord::Ago) => {
                    is_before = true;
                    unit = PendingUnit::AfterAgo;
                    0
                }
                None => return Err(DtErr::BadFormat),
            },
        };
        if tmask & fmask != 0 {
            return Err(DtErr::BadFormat);
        }
        fmask |= tmask;
    }
    if fmask == 0 {
        return Err(DtErr::BadFormat);
    }
    if is_before {
        itm.usec = itm.usec.checked_neg().ok_or(DtErr::FieldOverflow)?;
        itm.mday = itm.mday.checked_neg().ok_or(DtErr::FieldOverflow)?;
        itm.mon = itm.mon.checked_neg().ok_or(DtErr::FieldOverflow)?;
        itm.year = itm.year.checked_neg().ok_or(DtErr::FieldOverflow)?;
    }
    Ok(itm)
}

/// A number in an ISO 8601 interval: integer part and fraction (ParseISO8601Number).
fn iso_number(s: &str) -> Dt<(i64, f64, usize)> {
    let first = s.as_bytes().first().copied().unwrap_or(0);
    if !(first.is_ascii_digit() || first == b'-' || first == b'.') {
        return Err(DtErr::BadFormat);
    }
    let (v, used) = strtod(s).ok_or(DtErr::BadFormat)?;
    if v.is_nan() || !(-1.0e15..=1.0e15).contains(&v) {
        return Err(DtErr::FieldOverflow);
    }
    let ipart = v.trunc() as i64;
    Ok((ipart, v - ipart as f64, used))
}

/// Digits of an ISO 8601 number's integer part, sign excluded.
fn iso_integer_width(s: &str) -> usize {
    let s = s.strip_prefix('-').unwrap_or(s);
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// `P1Y2M3DT4H5M6S`, `P0001-02-03T04:05:06` (DecodeISO8601Interval).
fn decode_iso8601_interval(text: &str) -> Dt<ItmIn> {
    let mut itm = ItmIn::default();
    if text.len() < 2 || !text.starts_with('P') {
        return Err(DtErr::BadFormat);
    }
    let overflow = |ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(DtErr::FieldOverflow)
        }
    };
    let mut s = &text[1..];
    let mut date_part = true;
    let mut have_field = false;
    while !s.is_empty() {
        if let Some(rest) = s.strip_prefix('T') {
            date_part = false;
            have_field = false;
            s = rest;
            continue;
        }
        let field_start = s;
        let (val, fval, used) = iso_number(s)?;
        s = &s[used..];
        let unit = s.as_bytes().first().copied().unwrap_or(0);
        if unit != 0 {
            s = &s[1..];
        }
        if date_part {
            match unit {
                b'Y' => overflow(itm.add_years(val, 1) && itm.add_fract_years(fval, 1))?,
                b'M' => overflow(itm.add_months(val) && itm.add_fract_days(fval, 30))?,
                b'W' => overflow(itm.add_days(val, 7) && itm.add_fract_days(fval, 7))?,
                b'D' => {
                    overflow(itm.add_days(val, 1) && itm.add_fract_micros(fval, USECS_PER_DAY))?
                }
                b'T' | 0 if iso_integer_width(field_start) == 8 && !have_field => {
                    overflow(
                        itm.add_years(val / 10000, 1)
                            && itm.add_months((val / 100) % 100)
                            && itm.add_days(val % 100, 1)
                            && itm.add_fract_micros(fval, USECS_PER_DAY),
                    )?;
                    if unit == 0 {
                        return Ok(itm);
                    }
                    date_part = false;
                    have_field = false;
                    continue;
                }
                b'T' | 0 | b'-' => {
                    // Extended alternative format: years-months-days.
                    if have_field {
                        return Err(DtErr::BadFormat);
                    }
                    overflow(itm.add_years(val, 1) && itm.add_fract_years(fval, 1))?;
                    if unit == 0 {
                        return Ok(itm);
                    }
                    if unit == b'T' {
                        date_part = false;
                        have_field = false;
                        continue;
                    }
                    let (val, fval, used) = iso_number(s)?;
                    s = &s[used..];
                    overflow(itm.add_months(val) && itm.add_fract_days(fval, 30))?;
                    if s.is_empty() {
                        return Ok(itm);
                    }
                    if let Some(rest) = s.strip_prefix('T') {
                        s = rest;
                        date_part = false;
                        have_field = false;
                        continue;
                    }
                    let Some(rest) = s.strip_prefix('-') else {
                        return Err(DtErr::BadFormat);
                    };
                    let (val, fval, used) = iso_number(rest)?;
                    s = &rest[used..];
                    overflow(itm.add_days(val, 1) && itm.add_fract_micros(fval, USECS_PER_DAY))?;
                    if s.is_empty() {
                        return Ok(itm);
                    }
                    if let Some(rest) = s.strip_prefix('T') {
                        s = rest;
                        date_part = false;
                        have_field = false;
                        continue;
                    }
                    return Err(DtErr::BadFormat);
                }
                _ => return Err(DtErr::BadFormat),
            }
        } else {
            match unit {
                b'H' => overflow(itm.add_micros(val, fval, USECS_PER_HOUR))?,
                b'M' => overflow(itm.add_micros(val, fval, USECS_PER_MINUTE))?,
                b'S' => overflow(itm.add_micros(val, fval, USECS_PER_SEC))?,
                0 if iso_integer_width(field_start) == 6 && !have_field => {
                    overflow(
                        itm.add_micros(val / 10000, 0.0, USECS_PER_HOUR)
                            && itm.add_micros((val / 100) % 100, 0.0, USECS_PER_MINUTE)
                            && itm.add_micros(val % 100, 0.0, USECS_PER_SEC)
                            && itm.add_fract_micros(fval, 1),
                    )?;
                    return Ok(itm);
                }
                0 | b':' => {
                    if have_field {
                        return Err(DtErr::BadFormat);
                    }
                    overflow(itm.add_micros(val, fval, USECS_PER_HOUR))?;
                    if unit == 0 {
                        return Ok(itm);
                    }
                    let (val, fval, used) = iso_number(s)?;
                    s = &s[used..];
                    overflow(itm.add_micros(val, fval, USECS_PER_MINUTE))?;
                    if s.is_empty() {
                        return Ok(itm);
                    }
                    let Some(rest) = s.strip_prefix(':') else {
                        return Err(DtErr::BadFormat);
                    };
                    let (val, fval, used) = iso_number(rest)?;
                    s = &rest[used..];
                    overflow(itm.add_micros(val, fval, USECS_PER_SEC))?;
                    if s.is_empty() {
                        return Ok(itm);
                    }
                    return Err(DtErr::BadFormat);
                }
                _ => return Err(DtErr::BadFormat),
            }
        }
        have_field = true;
    }
    Ok(itm)
}

/// An interval from `text`, as PostgreSQL's `interval_in` reads it (IntervalStyle
/// postgres, no field restriction).
pub fn interval_in(text: &str) -> Result<Interval> {
    interval_in_range(text, None)
}

/// An interval whose field qualifier makes a bare number mean `unit` (`'90'` read as
/// `interval day` is 90 days).
pub fn interval_in_range(text: &str, unit: Option<Unit>) -> Result<Interval> {
    let decoded = tokenize(text, INTERVAL_BUF).and_then(|f| decode_interval(&f, unit));
    let decoded = match decoded {
        Err(DtErr::BadFormat) => decode_iso8601_interval(text),
        other => other,
    };
    let itm = decoded.map_err(|e| {
        let e = if e == DtErr::FieldOverflow {
            DtErr::IntervalOverflow
        } else {
            e
        };
        report(e, text, "interval")
    })?;
    let months = itm.year as i64 * 12 + itm.mon as i64;
    let months = i32::try_from(months).map_err(|_| Error::new("22008", "interval out of range"))?;
    Ok(Interval {
        months,
        days: itm.mday,
        micros: itm.usec,
    })
}
