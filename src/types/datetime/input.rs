//! Date/time text input, read the way PostgreSQL 15 reads it.
//!
//! This follows the input half of PostgreSQL's `datetime.c` step by step, because users
//! feed dates in every shape (`01/02/2024`, `Jan 2 2024`, `2024-01-02T10:00:00Z`,
//! `yesterday`, `2024-01-02 10:00 America/New_York`, `J2451187`, `infinity`,
//! `P1Y2M`, `1-2`, `@ 3 days ago`) and the interpretation of each — which field is the
//! month, what a two-digit year means, which errors are raised — is PostgreSQL's
//! behaviour, not a format anyone wrote down:
//!
//! 1. [`tokenize`] (ParseDateTime) splits the text into fields — numbers, dates with
//!    delimiters, times with colons, words, signed words, signed numbers — lowercasing
//!    words. It works in a fixed buffer, so no input allocates.
//! 2. [`decode_datetime`] (DecodeDateTime) walks the fields with a bit mask of what has
//!    been seen, resolving each by what came before (the DateStyle field order for
//!    ambiguous numbers, text months, `t`/`j`/`y…m…d` prefixes, AM/PM, BC, time zone
//!    names, abbreviations and numeric offsets), then validates the date.
//! 3. [`interval`] (DecodeInterval, DecodeISO8601Interval, its own file) reads fields
//!    right to left so units come before their numbers; the ISO 8601 forms are tried
//!    when that fails.
//! 4. [`date_in`], [`timestamp_in`], [`timestamptz_in`] and [`interval_in`] turn the
//!    result into kiln's representations with PostgreSQL's range checks and messages.
//!
//! Time zone abbreviations are PostgreSQL's `Default` set ([`super::abbrevs`]); full
//! zone names come from the IANA database (chrono-tz).

use super::abbrevs::{self, Abbrev};
use super::{
    DATE_NOBEGIN, DATE_NOEND, Interval, POSTGRES_EPOCH_JDATE, TIMESTAMP_NOBEGIN, TIMESTAMP_NOEND,
    USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC, Zone, date2j, is_valid_date,
    is_valid_julian, is_valid_timestamp, j2date,
};
use crate::error::{Error, Result};

/// The field order of an ambiguous date like `01/02/03` (DateStyle's second part).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DateOrder {
    #[default]
    Mdy,
    Dmy,
    Ymd,
}

/// What date/time input needs from the session.
#[derive(Clone, Copy, Debug)]
pub struct InputContext {
    /// The session's TimeZone, for input without one.
    pub zone: Zone,
    pub order: DateOrder,
    /// The transaction's start (UTC microseconds since 2000-01-01): `now`, `today`.
    pub now_utc: i64,
}

/// Fields per input (PostgreSQL's MAXDATEFIELDS).
const FIELDS_MAX: usize = 25;
/// Work space for the fields of a date (MAXDATELEN + 1), a timestamp (MAXDATELEN +
/// MAXDATEFIELDS) and an interval: longer inputs are invalid syntax, as there.
const DATE_BUF: usize = 129;
const TIMESTAMP_BUF: usize = 153;
const INTERVAL_BUF: usize = 256;
/// Keywords are compared on their first 10 characters (PostgreSQL's TOKMAXLEN).
const TOKEN_LEN_MAX: usize = 10;
const HOURS_PER_DAY: i32 = 24;

/// Why input was rejected (PostgreSQL's DTERR codes).
#[derive(Clone, Debug, PartialEq, Eq)]
enum DtErr {
    BadFormat,
    FieldOverflow,
    /// A month or day out of range: maybe the other DateStyle field order was meant.
    MdFieldOverflow,
    IntervalOverflow,
    TzDispOverflow,
    /// A time zone name that is not one (raised as is, as PostgreSQL does).
    UnknownZone(String),
}

type Dt<T> = std::result::Result<T, DtErr>;

fn report(e: DtErr, text: &str, type_name: &str) -> Error {
    match e {
        DtErr::FieldOverflow => Error::new(
            "22008",
            format!("date/time field value out of range: \"{text}\""),
        ),
        DtErr::MdFieldOverflow => Error::new(
            "22008",
            format!("date/time field value out of range: \"{text}\""),
        )
        .with_hint("Perhaps you need a different \"datestyle\" setting."),
        DtErr::IntervalOverflow => Error::new(
            "22015",
            format!("interval field value out of range: \"{text}\""),
        ),
        DtErr::TzDispOverflow => Error::new(
            "22009",
            format!("time zone displacement out of range: \"{text}\""),
        ),
        DtErr::UnknownZone(name) => {
            Error::new("22023", format!("time zone \"{name}\" not recognized"))
        }
        DtErr::BadFormat => Error::new(
            "22007",
            format!("invalid input syntax for type {type_name}: \"{text}\""),
        ),
    }
}

// ----- fields -------------------------------------------------------------------------

/// A field's shape, as the tokenizer saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Digits, maybe with a decimal point (`2024`, `20240102`, `.5`, `1.5`).
    Number,
    /// Digits with `-`, `/` or `.` delimiters, or digits and a text month, or a zone
    /// name with punctuation (`2024-01-02`, `02-jan-2024`, `america/new_york`).
    Date,
    /// Digits with colons (`10:00:00.5`).
    Time,
    /// A word (`jan`, `today`, `est`, `bc`).
    Word,
    /// A sign and a word (`-infinity`).
    SignedWord,
    /// A sign and digits (`+05:30`, `-8`, `-1.5`).
    Signed,
}

/// The fields of one input, lowercased, in a fixed buffer.
struct Fields {
    buf: [u8; INTERVAL_BUF],
    used: usize,
    limit: usize,
    spans: [(Shape, u16, u16); FIELDS_MAX],
    count: usize,
}

impl Fields {
    fn get(&self, i: usize) -> &str {
        let (_, start, end) = self.spans[i];
        // The tokenizer only stores ASCII.
        std::str::from_utf8(&self.buf[start as usize..end as usize]).unwrap_or("")
    }
    fn shape(&self, i: usize) -> Shape {
        self.spans[i].0
    }
    fn push_byte(&mut self, b: u8) -> Dt<()> {
        // PostgreSQL's APPEND_CHAR keeps room for each field's terminator.
        if self.used + 1 >= self.limit {
            return Err(DtErr::BadFormat);
        }
        self.buf[self.used] = b;
        self.used += 1;
        Ok(())
    }
}

fn is_punct(b: u8) -> bool {
    b.is_ascii_punctuation()
}

/// Splits `text` into fields (PostgreSQL's ParseDateTime).
fn tokenize(text: &str, limit: usize) -> Dt<Fields> {
    let s = text.as_bytes();
    let mut f = Fields {
        buf: [0; INTERVAL_BUF],
        used: 0,
        limit: limit.min(INTERVAL_BUF),
        spans: [(Shape::Number, 0, 0); FIELDS_MAX],
        count: 0,
    };
    let mut i = 0;
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if f.count >= FIELDS_MAX {
            return Err(DtErr::BadFormat);
        }
        let start = f.used;
        let shape;
        if c.is_ascii_digit() {
            while at(i).is_ascii_digit() {
                f.push_byte(s[i])?;
                i += 1;
            }
            let next = at(i);
            if next == b':' {
                shape = Shape::Time;
                f.push_byte(b':')?;
                i += 1;
                while at(i).is_ascii_digit() || at(i) == b':' || at(i) == b'.' {
                    f.push_byte(s[i])?;
                    i += 1;
                }
            } else if matches!(next, b'-' | b'/' | b'.') {
                let delim = next;
                f.push_byte(delim)?;
                i += 1;
                if at(i).is_ascii_digit() {
                    let mut sh = if delim == b'.' {
                        Shape::Number
                    } else {
                        Shape::Date
                    };
                    while at(i).is_ascii_digit() {
                        f.push_byte(s[i])?;
                        i += 1;
                    }
                    // Matching delimiters make a three-field date.
                    if at(i) == delim {
                        sh = Shape::Date;
                        f.push_byte(delim)?;
                        i += 1;
                        while at(i).is_ascii_digit() || at(i) == delim {
                            f.push_byte(s[i])?;
                            i += 1;
                        }
                    }
                    shape = sh;
                } else {
                    shape = Shape::Date;
                    while at(i).is_ascii_alphanumeric() || at(i) == delim {
                        f.push_byte(s[i].to_ascii_lowercase())?;
                        i += 1;
                    }
                }
            } else {
                shape = Shape::Number;
            }
        } else if c == b'.' {
            f.push_byte(b'.')?;
            i += 1;
            while at(i).is_ascii_digit() {
                f.push_byte(s[i])?;
                i += 1;
            }
            shape = Shape::Number;
        } else if c.is_ascii_alphabetic() {
            let mut sh = Shape::Word;
            while at(i).is_ascii_alphabetic() {
                f.push_byte(s[i].to_ascii_lowercase())?;
                i += 1;
            }
            // A word followed by punctuation may be a date with a text month or a zone
            // name ("america/new_york", "gmt+8"), unless it is a keyword ("t10:00").
            let next = at(i);
            let is_date = if matches!(next, b'-' | b'/' | b'.') {
                true
            } else if next == b'+' || next.is_ascii_digit() {
                let word = std::str::from_utf8(&f.buf[start..f.used]).unwrap_or("");
                keyword(word).is_none()
            } else {
                false
            };
            if is_date {
                sh = Shape::Date;
                loop {
                    f.push_byte(s[i].to_ascii_lowercase())?;
                    i += 1;
                    let n = at(i);
                    if !(matches!(n, b'+' | b'-' | b'/' | b'_' | b'.' | b':')
                        || n.is_ascii_alphanumeric())
                    {
                        break;
                    }
                }
            }
            shape = sh;
        } else if c == b'+' || c == b'-' {
            f.push_byte(c)?;
            i += 1;
            while at(i).is_ascii_whitespace() {
                i += 1;
            }
            if at(i).is_ascii_digit() {
                shape = Shape::Signed;
                f.push_byte(s[i])?;
                i += 1;
                while at(i).is_ascii_digit() || matches!(at(i), b':' | b'.' | b'-') {
                    f.push_byte(s[i])?;
                    i += 1;
                }
            } else if at(i).is_ascii_alphabetic() {
                shape = Shape::SignedWord;
                while at(i).is_ascii_alphabetic() {
                    f.push_byte(s[i].to_ascii_lowercase())?;
                    i += 1;
                }
            } else {
                return Err(DtErr::BadFormat);
            }
        } else if is_punct(c) {
            // Other punctuation only separates fields.
            i += 1;
            continue;
        } else {
            return Err(DtErr::BadFormat);
        }
        let end = f.used;
        // The terminator PostgreSQL writes after each field (push_byte kept its room).
        f.used += 1;
        f.spans[f.count] = (shape, start as u16, end as u16);
        f.count += 1;
    }
    Ok(f)
}

// ----- keywords -----------------------------------------------------------------------

/// Field kinds; their bit positions are PostgreSQL's, which keeps the masks comparable.
mod bit {
    pub const RESERV: u32 = 0;
    pub const MONTH: u32 = 1;
    pub const YEAR: u32 = 2;
    pub const DAY: u32 = 3;
    pub const TZ: u32 = 5;
    pub const DTZ: u32 = 6;
    pub const DYNTZ: u32 = 7;
    pub const AMPM: u32 = 9;
    pub const HOUR: u32 = 10;
    pub const MINUTE: u32 = 11;
    pub const SECOND: u32 = 12;
    pub const MILLISECOND: u32 = 13;
    pub const MICROSECOND: u32 = 14;
    pub const DOY: u32 = 15;
    pub const DOW: u32 = 16;
    pub const ADBC: u32 = 18;
    pub const WEEK: u32 = 24;
    pub const DECADE: u32 = 25;
    pub const CENTURY: u32 = 26;
    pub const MILLENNIUM: u32 = 27;
    pub const DTZMOD: u32 = 28;
}

const fn m(b: u32) -> u32 {
    1 << b
}
const DATE_M: u32 = m(bit::YEAR) | m(bit::MONTH) | m(bit::DAY);
const TIME_M: u32 =
    m(bit::HOUR) | m(bit::MINUTE) | m(bit::SECOND) | m(bit::MILLISECOND) | m(bit::MICROSECOND);
const ALL_SECS_M: u32 = m(bit::SECOND) | m(bit::MILLISECOND) | m(bit::MICROSECOND);

/// Reserved words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reserved {
    Epoch,
    Late,
    Early,
    Now,
    Today,
    Tomorrow,
    Yesterday,
    Zulu,
}

/// Units, as labels inside a date (`j2451187`, `y2001m02d04`) or of interval numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Microsecond,
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    Decade,
    Century,
    Millennium,
    Julian,
    /// The `t` before an ISO time.
    IsoTime,
    Dow,
    Doy,
    IsoDow,
    IsoYear,
    Tz,
    TzHour,
    TzMinute,
}

/// What a keyword of date/time input means (PostgreSQL's datetktbl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keyword {
    Reserved(Reserved),
    Month(i32),
    DayOfWeek,
    AmPm(bool),
    /// `bc` (true) or `ad`.
    Era(bool),
    /// `dst` after a zone abbreviation: one hour more.
    DstModifier,
    /// Filler words (`at`, `on`).
    Ignore,
    Unit(Unit),
}

/// PostgreSQL 15's datetktbl, sorted.
const KEYWORDS: &[(&str, Keyword)] = {
    use Keyword::*;
    &[
        ("-infinity", Reserved(self::Reserved::Early)),
        ("ad", Era(false)),
        ("allballs", Reserved(self::Reserved::Zulu)),
        ("am", AmPm(false)),
        ("apr", Month(4)),
        ("april", Month(4)),
        ("at", Ignore),
        ("aug", Month(8)),
        ("august", Month(8)),
        ("bc", Era(true)),
        ("d", Unit(self::Unit::Day)),
        ("dec", Month(12)),
        ("december", Month(12)),
        ("dow", Unit(self::Unit::Dow)),
        ("doy", Unit(self::Unit::Doy)),
        ("dst", DstModifier),
        ("epoch", Reserved(self::Reserved::Epoch)),
        ("feb", Month(2)),
        ("february", Month(2)),
        ("fri", DayOfWeek),
        ("friday", DayOfWeek),
        ("h", Unit(self::Unit::Hour)),
        ("infinity", Reserved(self::Reserved::Late)),
        ("isodow", Unit(self::Unit::IsoDow)),
        ("isoyear", Unit(self::Unit::IsoYear)),
        ("j", Unit(self::Unit::Julian)),
        ("jan", Month(1)),
        ("january", Month(1)),
        ("jd", Unit(self::Unit::Julian)),
        ("jul", Month(7)),
        ("julian", Unit(self::Unit::Julian)),
        ("july", Month(7)),
        ("jun", Month(6)),
        ("june", Month(6)),
        ("m", Unit(self::Unit::Month)),
        ("mar", Month(3)),
        ("march", Month(3)),
        ("may", Month(5)),
        ("mm", Unit(self::Unit::Minute)),
        ("mon", DayOfWeek),
        ("monday", DayOfWeek),
        ("nov", Month(11)),
        ("november", Month(11)),
        ("now", Reserved(self::Reserved::Now)),
        ("oct", Month(10)),
        ("october", Month(10)),
        ("on", Ignore),
        ("pm", AmPm(true)),
        ("s", Unit(self::Unit::Second)),
        ("sat", DayOfWeek),
        ("saturday", DayOfWeek),
        ("sep", Month(9)),
        ("sept", Month(9)),
        ("september", Month(9)),
        ("sun", DayOfWeek),
        ("sunday", DayOfWeek),
        ("t", Unit(self::Unit::IsoTime)),
        ("thu", DayOfWeek),
        ("thur", DayOfWeek),
        ("thurs", DayOfWeek),
        ("thursday", DayOfWeek),
        ("today", Reserved(self::Reserved::Today)),
        ("tomorrow", Reserved(self::Reserved::Tomorrow)),
        ("tue", DayOfWeek),
        ("tues", DayOfWeek),
        ("tuesday", DayOfWeek),
        ("wed", DayOfWeek),
        ("wednesday", DayOfWeek),
        ("weds", DayOfWeek),
        ("y", Unit(self::Unit::Year)),
        ("yesterday", Reserved(self::Reserved::Yesterday)),
    ]
};

/// What an interval word means (PostgreSQL 15's deltatktbl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DeltaWord {
    Unit(Unit),
    Ago,
    Ignore,
}

const DELTA_WORDS: &[(&str, DeltaWord)] = {
    use self::Unit as U;
    use DeltaWord::*;
    &[
        ("@", Ignore),
        ("ago", Ago),
        ("c", Unit(U::Century)),
        ("cent", Unit(U::Century)),
        ("centuries", Unit(U::Century)),
        ("century", Unit(U::Century)),
        ("d", Unit(U::Day)),
        ("day", Unit(U::Day)),
        ("days", Unit(U::Day)),
        ("dec", Unit(U::Decade)),
        ("decade", Unit(U::Decade)),
        ("decades", Unit(U::Decade)),
        ("decs", Unit(U::Decade)),
        ("h", Unit(U::Hour)),
        ("hour", Unit(U::Hour)),
        ("hours", Unit(U::Hour)),
        ("hr", Unit(U::Hour)),
        ("hrs", Unit(U::Hour)),
        ("m", Unit(U::Minute)),
        ("microsecon", Unit(U::Microsecond)),
        ("mil", Unit(U::Millennium)),
        ("millennia", Unit(U::Millennium)),
        ("millennium", Unit(U::Millennium)),
        ("millisecon", Unit(U::Millisecond)),
        ("mils", Unit(U::Millennium)),
        ("min", Unit(U::Minute)),
        ("mins", Unit(U::Minute)),
        ("minute", Unit(U::Minute)),
        ("minutes", Unit(U::Minute)),
        ("mon", Unit(U::Month)),
        ("mons", Unit(U::Month)),
        ("month", Unit(U::Month)),
        ("months", Unit(U::Month)),
        ("ms", Unit(U::Millisecond)),
        ("msec", Unit(U::Millisecond)),
        ("msecond", Unit(U::Millisecond)),
        ("mseconds", Unit(U::Millisecond)),
        ("msecs", Unit(U::Millisecond)),
        ("qtr", Unit(U::Quarter)),
        ("quarter", Unit(U::Quarter)),
        ("s", Unit(U::Second)),
        ("sec", Unit(U::Second)),
        ("second", Unit(U::Second)),
        ("seconds", Unit(U::Second)),
        ("secs", Unit(U::Second)),
        ("timezone", Unit(U::Tz)),
        ("timezone_h", Unit(U::TzHour)),
        ("timezone_m", Unit(U::TzMinute)),
        ("us", Unit(U::Microsecond)),
        ("usec", Unit(U::Microsecond)),
        ("usecond", Unit(U::Microsecond)),
        ("useconds", Unit(U::Microsecond)),
        ("usecs", Unit(U::Microsecond)),
        ("w", Unit(U::Week)),
        ("week", Unit(U::Week)),
        ("weeks", Unit(U::Week)),
        ("y", Unit(U::Year)),
        ("year", Unit(U::Year)),
        ("years", Unit(U::Year)),
        ("yr", Unit(U::Year)),
        ("yrs", Unit(U::Year)),
    ]
};

/// Looks `word` up on its first [`TOKEN_LEN_MAX`] characters, as PostgreSQL does.
fn search<T: Copy>(table: &[(&str, T)], word: &str) -> Option<T> {
    let key = &word[..word.len().min(TOKEN_LEN_MAX)];
    table
        .binary_search_by(|(name, _)| (*name).cmp(key))
        .ok()
        .map(|i| table[i].1)
}

fn keyword(word: &str) -> Option<Keyword> {
    search(KEYWORDS, word)
}

/// What a unit name given to EXTRACT, date_part or date_trunc means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldName {
    Unit(Unit),
    /// `epoch`.
    Epoch,
    /// A reserved word other than `epoch` (`now`, `infinity`, …): known, unsupported.
    OtherReserved,
    /// A word that is not a unit (`ago`, `jan`, `nonsense`).
    Unknown,
}

/// Looks a unit name up as PostgreSQL's *_part functions do: the interval units table
/// first (DecodeUnits), then the date keywords (DecodeSpecial). `lower` is lower-case.
pub fn field_name(lower: &str) -> FieldName {
    match search(DELTA_WORDS, lower) {
        Some(DeltaWord::Unit(u)) => return FieldName::Unit(u),
        // "ago" and "@" are known to DecodeUnits but are no units.
        Some(DeltaWord::Ago | DeltaWord::Ignore) => return FieldName::Unknown,
        None => {}
    }
    match keyword(lower) {
        // "t" is the ISO time marker, not a unit.
        Some(Keyword::Unit(Unit::IsoTime)) => FieldName::Unknown,
        Some(Keyword::Unit(u)) => FieldName::Unit(u),
        Some(Keyword::Reserved(Reserved::Epoch)) => FieldName::Epoch,
        Some(Keyword::Reserved(_)) => FieldName::OtherReserved,
        _ => FieldName::Unknown,
    }
}

/// Looks a unit name up in the interval units table only (date_trunc's DecodeUnits).
pub fn trunc_unit(lower: &str) -> Option<Unit> {
    match search(DELTA_WORDS, lower) {
        Some(DeltaWord::Unit(u)) => Some(u),
        _ => None,
    }
}

/// A full zone name (PostgreSQL's pg_tzset): IANA, else a POSIX `TZ` string.
fn named_zone(name: &str) -> Option<Zone> {
    Zone::named(name)
}

// ----- numbers ------------------------------------------------------------------------

/// C's `strtol` on ASCII: an optional sign and digits. Returns the value (saturated),
/// the bytes consumed (0 when there are no digits) and whether it overflowed `i64`.
fn strtol(s: &str) -> (i64, usize, bool) {
    let b = s.as_bytes();
    let mut i = 0;
    let neg = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let digits_start = i;
    let mut v: i64 = 0;
    let mut overflow = false;
    while i < b.len() && b[i].is_ascii_digit() {
        let d = (b[i] - b'0') as i64;
        match v.checked_mul(10).and_then(|x| {
            if neg {
                x.checked_sub(d)
            } else {
                x.checked_add(d)
            }
        }) {
            Some(x) => v = x,
            None => {
                overflow = true;
                v = if neg { i64::MIN } else { i64::MAX };
            }
        }
        i += 1;
    }
    if i == digits_start {
        return (0, 0, false);
    }
    (v, i, overflow)
}

/// `strtol` into an `int`: `None` when it overflows `i32` (C's ERANGE).
fn strtoint(s: &str) -> (Option<i32>, usize) {
    let (v, used, overflow) = strtol(s);
    if overflow || v > i32::MAX as i64 || v < i32::MIN as i64 {
        (None, used)
    } else {
        (Some(v as i32), used)
    }
}

/// The longest prefix of `s` that C's `strtod` accepts, and its value.
fn strtod(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let rest = &s[i..];
    for word in ["infinity", "inf", "nan"] {
        if rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word) {
            let end = i + word.len();
            let v: f64 = if word == "nan" {
                f64::NAN
            } else if b.first() == Some(&b'-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            return Some((v, end));
        }
    }
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    s[..i].parse::<f64>().ok().map(|v| (v, i))
}

/// A fraction `.ddd` running to the end of the field (PostgreSQL's ParseFraction).
fn parse_fraction(s: &str) -> Dt<f64> {
    if s == "." {
        return Ok(0.0);
    }
    match strtod(s) {
        Some((v, used)) if used == s.len() => Ok(v),
        _ => Err(DtErr::BadFormat),
    }
}

/// Fractional seconds as whole microseconds (ParseFractionalSecond).
fn parse_fractional_second(s: &str) -> Dt<i32> {
    let frac = parse_fraction(s)?;
    Ok((frac * 1_000_000.0).round_ties_even() as i32)
}

// ----- dates and times ----------------------------------------------------------------

/// A broken-down date and time (PostgreSQL's struct pg_tm, the fields input uses).
#[derive(Clone, Copy, Debug, Default)]
struct Tm {
    year: i32,
    mon: i32,
    mday: i32,
    hour: i32,
    min: i32,
    sec: i32,
    yday: i32,
}

/// What a date/time input denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Date,
    Epoch,
    Late,
    Early,
}

/// The result of decoding: a date and time, and the zone offset in seconds *west* of
/// UTC (PostgreSQL's sign), which callers without time zones ignore.
struct Decoded {
    kind: Kind,
    tm: Tm,
    fsec: i32,
    tz_west: i32,
}

fn is_leap(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i32, mon: i32) -> i32 {
    const DAYS: [i32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if mon == 2 && is_leap(year) {
        29
    } else {
        DAYS[(mon - 1).clamp(0, 11) as usize]
    }
}

/// Whether a time of day is past 24:00:00 or has a field out of range.
fn time_overflows(hour: i32, min: i32, sec: i32, fsec: i32) -> bool {
    if !(0..=HOURS_PER_DAY).contains(&hour)
        || !(0..60).contains(&min)
        || !(0..=60).contains(&sec)
        || !(0..=USECS_PER_SEC as i32).contains(&fsec)
    {
        return true;
    }
    ((hour as i64 * 60 + min as i64) * 60 + sec as i64) * USECS_PER_SEC + fsec as i64
        > USECS_PER_DAY
}

/// A local time as microseconds since 2000-01-01, when its date is in range.
fn tm_local_micros(tm: &Tm) -> Option<i64> {
    if !is_valid_julian(tm.year, tm.mon, tm.mday) {
        return None;
    }
    let date = (date2j(tm.year, tm.mon, tm.mday) - POSTGRES_EPOCH_JDATE) as i64;
    let time = ((tm.hour as i64 * 60 + tm.min as i64) * 60 + tm.sec as i64) * USECS_PER_SEC;
    date.checked_mul(USECS_PER_DAY)?.checked_add(time)
}

/// The local time now, in the session's zone (GetCurrentDateTime), and the offset west.
fn now_tm(ctx: &InputContext) -> (Tm, i32, i32) {
    let east = ctx.zone.offset_at(ctx.now_utc);
    let local = ctx.now_utc + east as i64 * USECS_PER_SEC;
    let days = local.div_euclid(USECS_PER_DAY);
    let tod = local.rem_euclid(USECS_PER_DAY);
    let (year, mon, mday) = j2date(days as i32 + POSTGRES_EPOCH_JDATE);
    let secs = tod / USECS_PER_SEC;
    let tm = Tm {
        year,
        mon,
        mday,
        hour: (secs / 3600) as i32,
        min: (secs / 60 % 60) as i32,
        sec: (secs % 60) as i32,
        yday: 0,
    };
    (tm, (tod % USECS_PER_SEC) as i32, -east)
}

/// The offset west of UTC that `zone` has at local time `tm` (DetermineTimeZoneOffset);
/// UTC when the date is out of range.
fn zone_offset_west(tm: &Tm, zone: &Zone) -> i32 {
    match tm_local_micros(tm) {
        Some(local) => -zone.offset_for_local(local),
        None => 0,
    }
}

/// The offset of a dynamic abbreviation (`msk`) at local time `tm`
/// (DetermineTimeZoneAbbrevOffset): what the abbreviation meant in its zone around
/// then, else the zone's offset then.
fn abbrev_offset_west(tm: &Tm, abbrev: &str, zone: &Zone) -> i32 {
    let Some(local) = tm_local_micros(tm) else {
        return 0;
    };
    let utc = zone.local_to_utc(local);
    let meant = match zone {
        Zone::Named(tz) => abbrevs::dynamic_offset(*tz, abbrev, utc),
        Zone::Fixed(_) | Zone::Posix(_) => None,
    };
    -meant.unwrap_or_else(|| zone.offset_for_local(local))
}

/// A numeric zone offset `+hh`, `-hh:mm`, `+hhmm`, `-hh:mm:ss` (DecodeTimezone),
/// returned in seconds west.
fn decode_timezone(s: &str) -> Dt<i32> {
    let b = s.as_bytes();
    let neg = match b.first() {
        Some(b'+') => false,
        Some(b'-') => true,
        _ => return Err(DtErr::BadFormat),
    };
    let body = &s[1..];
    let (hr, used) = strtoint(body);
    let mut hr = hr.ok_or(DtErr::TzDispOverflow)?;
    let mut rest = &body[used..];
    let mut min = 0;
    let mut sec = 0;
    if let Some(after) = rest.strip_prefix(':') {
        let (v, used) = strtoint(after);
        min = v.ok_or(DtErr::TzDispOverflow)?;
        rest = &after[used..];
        if let Some(after) = rest.strip_prefix(':') {
            let (v, used) = strtoint(after);
            sec = v.ok_or(DtErr::TzDispOverflow)?;
            rest = &after[used..];
        }
    } else if rest.is_empty() && s.len() > 3 {
        min = hr % 100;
        hr /= 100;
    }
    if !(0..=15).contains(&hr) || !(0..60).contains(&min) || !(0..60).contains(&sec) {
        return Err(DtErr::TzDispOverflow);
    }
    let east = (hr * 60 + min) * 60 + sec;
    let east = if neg { -east } else { east };
    if !rest.is_empty() {
        return Err(DtErr::BadFormat);
    }
    Ok(-east)
}

/// `hh:mm[:ss[.fff]]` (DecodeTimeCommon): hours (unbounded), minutes, seconds, µs.
fn decode_time_common(s: &str, minute_to_second: bool) -> Dt<(i64, i32, i32, i32)> {
    let (hour, used, overflow) = strtol(s);
    if overflow {
        return Err(DtErr::FieldOverflow);
    }
    let rest = &s[used..];
    let Some(rest) = rest.strip_prefix(':') else {
        return Err(DtErr::BadFormat);
    };
    let (min, used) = strtoint(rest);
    let min = min.ok_or(DtErr::FieldOverflow)?;
    let rest = &rest[used..];
    let (mut hour, mut min, mut sec, mut fsec) = (hour, min, 0, 0);
    if rest.is_empty() {
        if minute_to_second {
            sec = min;
            min = i32::try_from(hour).map_err(|_| DtErr::FieldOverflow)?;
            hour = 0;
        }
    } else if rest.starts_with('.') {
        // mm:ss.fff is always minutes and seconds.
        fsec = parse_fractional_second(rest)?;
        sec = min;
        min = i32::try_from(hour).map_err(|_| DtErr::FieldOverflow)?;
        hour = 0;
    } else if let Some(after) = rest.strip_prefix(':') {
        let (s_val, used) = strtoint(after);
        sec = s_val.ok_or(DtErr::FieldOverflow)?;
        let tail = &after[used..];
        if tail.starts_with('.') {
            fsec = parse_fractional_second(tail)?;
        } else if !tail.is_empty() {
            return Err(DtErr::BadFormat);
        }
    } else {
        return Err(DtErr::BadFormat);
    }
    if hour < 0
        || !(0..60).contains(&min)
        || !(0..=60).contains(&sec)
        || !(0..=USECS_PER_SEC as i32).contains(&fsec)
    {
        return Err(DtErr::FieldOverflow);
    }
    Ok((hour, min, sec, fsec))
}

/// State shared by the date decoders.
struct DateState {
    fmask: u32,
    tm: Tm,
    fsec: i32,
    is2digits: bool,
    order: DateOrder,
}

/// A run-together date or time (`20240102`, `102030`, `102030.5`) (DecodeNumberField).
/// Returns the mask of what it set.
fn decode_number_field(st: &mut DateState, s: &str, fmask: u32) -> Dt<u32> {
    let mut digits = s;
    if let Some(dot) = s.find('.') {
        let frac = &s[dot..];
        st.fsec = if frac == "." {
            0
        } else {
            let v = strtod(frac).map(|(v, _)| v).ok_or(DtErr::BadFormat)?;
            (v * 1_000_000.0).round_ties_even() as i32
        };
        digits = &s[..dot];
    } else if fmask & DATE_M != DATE_M && digits.len() >= 6 {
        let len = digits.len();
        st.tm.mday = atoi(&digits[len - 2..]);
        st.tm.mon = atoi(&digits[len - 4..len - 2]);
        st.tm.year = atoi(&digits[..len - 4]);
        if len - 4 == 2 {
            st.is2digits = true;
        }
        return Ok(DATE_M);
    }
    if fmask & TIME_M != TIME_M {
        match digits.len() {
            6 => {
                st.tm.sec = atoi(&digits[4..]);
                st.tm.min = atoi(&digits[2..4]);
                st.tm.hour = atoi(&digits[..2]);
                return Ok(TIME_M);
            }
            4 => {
                st.tm.sec = 0;
                st.tm.min = atoi(&digits[2..]);
                st.tm.hour = atoi(&digits[..2]);
                return Ok(TIME_M);
            }
            _ => {}
        }
    }
    Err(DtErr::BadFormat)
}

/// C's `atoi` on a run of digits (wrapping like C on absurd lengths).
fn atoi(s: &str) -> i32 {
    let (v, _, _) = strtol(s);
    v as i32
}

/// A plain number in a date's context (DecodeNumber). Returns the mask it set.
fn decode_number(st: &mut DateState, s: &str, have_text_month: bool, fmask: u32) -> Dt<u32> {
    let flen = s.len();
    let (val, used) = strtoint(s);
    if used == 0 {
        return Err(DtErr::BadFormat);
    }
    let val = val.ok_or(DtErr::FieldOverflow)?;
    let rest = &s[used..];
    if rest.starts_with('.') {
        // More than two digits before the point: a date or run-together time.
        if used > 2 {
            return decode_number_field(st, s, fmask | DATE_M);
        }
        st.fsec = parse_fractional_second(rest)?;
    } else if !rest.is_empty() {
        return Err(DtErr::BadFormat);
    }
    // A day of the year right after a year.
    if flen == 3 && fmask & DATE_M == m(bit::YEAR) && (1..=366).contains(&val) {
        st.tm.yday = val;
        return Ok(m(bit::DOY) | m(bit::MONTH) | m(bit::DAY));
    }
    let tmask = match fmask & DATE_M {
        0 => {
            if flen >= 3 || st.order == DateOrder::Ymd {
                st.tm.year = val;
                m(bit::YEAR)
            } else if st.order == DateOrder::Dmy {
                st.tm.mday = val;
                m(bit::DAY)
            } else {
                st.tm.mon = val;
                m(bit::MONTH)
            }
        }
        x if x == m(bit::YEAR) => {
            st.tm.mon = val;
            m(bit::MONTH)
        }
        x if x == m(bit::MONTH) => {
            if have_text_month && (flen >= 3 || st.order == DateOrder::Ymd) {
                st.tm.year = val;
                m(bit::YEAR)
            } else {
                st.tm.mday = val;
                m(bit::DAY)
            }
        }
        x if x == m(bit::YEAR) | m(bit::MONTH) => {
            if have_text_month && flen >= 3 && st.is2digits {
                // DD-MON-YYYY: the first number was the day after all.
                st.tm.mday = st.tm.year;
                st.tm.year = val;
                st.is2digits = false;
            } else {
                st.tm.mday = val;
            }
            m(bit::DAY)
        }
        x if x == m(bit::DAY) => {
            st.tm.mon = val;
            m(bit::MONTH)
        }
        x if x == m(bit::MONTH) | m(bit::DAY) => {
            st.tm.year = val;
            m(bit::YEAR)
        }
        x if x == DATE_M => return decode_number_field(st, s, fmask),
        _ => return Err(DtErr::BadFormat),
    };
    if tmask == m(bit::YEAR) {
        st.is2digits = flen <= 2;
    }
    Ok(tmask)
}

/// A date with delimiters, maybe with a text month (`2024-01-02`, `jan-02-2024`)
/// (DecodeDate). Returns the mask it set.
fn decode_date(st: &mut DateState, s: &str, fmask: u32) -> Dt<u32> {
    let b = s.as_bytes();
    let mut parts: [(usize, usize); FIELDS_MAX] = [(0, 0); FIELDS_MAX];
    let mut n = 0;
    let mut i = 0;
    while i < b.len() && n < FIELDS_MAX {
        while i < b.len() && !b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if i >= b.len() {
            return Err(DtErr::BadFormat);
        }
        let start = i;
        if b[i].is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        } else {
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
        }
        parts[n] = (start, i);
        n += 1;
        // Whatever follows a part (a delimiter) is dropped.
        if i < b.len() {
            i += 1;
        }
    }
    let mut fmask = fmask;
    let mut tmask = 0;
    let mut have_text_month = false;
    let mut done = [false; FIELDS_MAX];
    for k in 0..n {
        let part = &s[parts[k].0..parts[k].1];
        if part.as_bytes()[0].is_ascii_alphabetic() {
            let dmask = match keyword(part) {
                Some(Keyword::Ignore) => continue,
                Some(Keyword::Month(mon)) => {
                    st.tm.mon = mon;
                    have_text_month = true;
                    m(bit::MONTH)
                }
                _ => return Err(DtErr::BadFormat),
            };
            if fmask & dmask != 0 {
                return Err(DtErr::BadFormat);
            }
            fmask |= dmask;
            tmask |= dmask;
            done[k] = true;
        }
    }
    for k in 0..n {
        if done[k] {
            continue;
        }
        let part = &s[parts[k].0..parts[k].1];
        if part.is_empty() {
            return Err(DtErr::BadFormat);
        }
        let dmask = decode_number(st, part, have_text_month, fmask)?;
        if fmask & dmask != 0 {
            return Err(DtErr::BadFormat);
        }
        fmask |= dmask;
        tmask |= dmask;
    }
    if fmask & !(m(bit::DOY) | m(bit::TZ)) != DATE_M {
        return Err(DtErr::BadFormat);
    }
    Ok(tmask)
}

/// Checks and completes the year, month and day (ValidateDate).
fn validate_date(fmask: u32, is_julian: bool, is2digits: bool, bc: bool, tm: &mut Tm) -> Dt<()> {
    if fmask & m(bit::YEAR) != 0 {
        if is_julian {
            // The Julian day gave the year already.
        } else if bc {
            if tm.year <= 0 {
                return Err(DtErr::FieldOverflow);
            }
            // 1 BC is year 0, 2 BC year -1, …
            tm.year = -(tm.year - 1);
        } else if is2digits {
            if tm.year < 0 {
                return Err(DtErr::FieldOverflow);
            }
            if tm.year < 70 {
                tm.year += 2000;
            } else if tm.year < 100 {
                tm.year += 1900;
            }
        } else if tm.year <= 0 {
            return Err(DtErr::FieldOverflow);
        }
    }
    if fmask & m(bit::DOY) != 0 {
        let (y, mo, d) = j2date(date2j(tm.year, 1, 1).wrapping_add(tm.yday - 1));
        tm.year = y;
        tm.mon = mo;
        tm.mday = d;
    }
    if fmask & m(bit::MONTH) != 0 && !(1..=12).contains(&tm.mon) {
        return Err(DtErr::MdFieldOverflow);
    }
    if fmask & m(bit::DAY) != 0 && !(1..=31).contains(&tm.mday) {
        return Err(DtErr::MdFieldOverflow);
    }
    if fmask & DATE_M == DATE_M && tm.mday > days_in_month(tm.year, tm.mon) {
        return Err(DtErr::FieldOverflow);
    }
    Ok(())
}

/// How a zone was given, to be resolved once the date is known.
enum PendingZone {
    None,
    Named(Zone),
    Dynamic(&'static str, Zone),
}

/// Decodes the fields of a date or timestamp (DecodeDateTime).
fn decode_datetime(f: &Fields, ctx: &InputContext) -> Dt<Decoded> {
    let mut st = DateState {
        fmask: 0,
        tm: Tm::default(),
        fsec: 0,
        is2digits: false,
        order: ctx.order,
    };
    let mut kind = Kind::Date;
    let mut tz_west = 0;
    // A label ("j", "t", "y", …) that says what the next number is.
    let mut prefix: Option<Unit> = None;
    let mut meridian: Option<bool> = None;
    let mut have_text_month = false;
    let mut is_julian = false;
    let mut bc = false;
    let mut zone = PendingZone::None;
    for i in 0..f.count {
        let field = f.get(i);
        let fmask = st.fmask;
        let tmask: u32 = match f.shape(i) {
            Shape::Date => {
                if prefix == Some(Unit::Julian) {
                    // An integral Julian day with an attached zone.
                    let (jday, used) = strtoint(field);
                    let jday = jday.filter(|&j| j >= 0).ok_or(DtErr::FieldOverflow)?;
                    let (y, mo, d) = j2date(jday);
                    (st.tm.year, st.tm.mon, st.tm.mday) = (y, mo, d);
                    is_julian = true;
                    tz_west = decode_timezone(&field[used..])?;
                    prefix = None;
                    DATE_M | TIME_M | m(bit::TZ)
                } else if prefix.is_some()
                    || fmask & (m(bit::MONTH) | m(bit::DAY)) == (m(bit::MONTH) | m(bit::DAY))
                {
                    // With a date already: a zone name with punctuation, or a
                    // run-together time with a zone ("hhmmss-zz").
                    if field.as_bytes()[0].is_ascii_digit() || prefix.is_some() {
                        if prefix.is_some() {
                            if prefix != Some(Unit::IsoTime) {
                                return Err(DtErr::BadFormat);
                            }
                            prefix = None;
                        }
                        if fmask & TIME_M == TIME_M {
                            return Err(DtErr::BadFormat);
                        }
                        let Some(dash) = field.find('-') else {
                            return Err(DtErr::BadFormat);
                        };
                        tz_west = decode_timezone(&field[dash..])?;
                        decode_number_field(&mut st, &field[..dash], fmask)? | m(bit::TZ)
                    } else {
                        let z = named_zone(field)
                            .ok_or_else(|| DtErr::UnknownZone(field.to_string()))?;
                        zone = PendingZone::Named(z);
                        m(bit::TZ)
                    }
                } else {
                    decode_date(&mut st, field, fmask)?
                }
            }
            Shape::Time => {
                if prefix.is_some() {
                    if prefix != Some(Unit::IsoTime) {
                        return Err(DtErr::BadFormat);
                    }
                    prefix = None;
                }
                let (hour, min, sec, fsec) = decode_time_common(field, false)?;
                st.tm.hour = i32::try_from(hour).map_err(|_| DtErr::FieldOverflow)?;
                st.tm.min = min;
                st.tm.sec = sec;
                st.fsec = fsec;
                if time_overflows(st.tm.hour, min, sec, fsec) {
                    return Err(DtErr::FieldOverflow);
                }
                TIME_M
            }
            Shape::Signed => {
                tz_west = decode_timezone(field)?;
                m(bit::TZ)
            }
            Shape::Number => {
                if let Some(label) = prefix.take() {
                    // PostgreSQL resets the result kind here: "infinity j2451187" is a date.
                    kind = Kind::Date;
                    decode_labelled_number(&mut st, field, label, &mut tz_west, &mut is_julian)?
                } else {
                    let dot = field.find('.');
                    let flen = field.len();
                    if dot.is_some() && fmask & DATE_M == 0 {
                        decode_date(&mut st, field, fmask)?
                    } else if let Some(d) = dot
                        && flen - (flen - d) > 2
                    {
                        decode_number_field(&mut st, field, fmask)?
                    } else if flen >= 6 && (fmask & DATE_M == 0 || fmask & TIME_M == 0) {
                        decode_number_field(&mut st, field, fmask)?
                    } else {
                        decode_number(&mut st, field, have_text_month, fmask)?
                    }
                }
            }
            Shape::Word | Shape::SignedWord => {
                // Zone abbreviations take precedence over keywords.
                if let Some(abbrev) = abbrevs::lookup(field) {
                    match abbrev {
                        Abbrev::Fixed(east) => {
                            tz_west = -east;
                            m(bit::TZ)
                        }
                        Abbrev::Dst(east) => {
                            tz_west = -east;
                            m(bit::DTZ) | m(bit::TZ)
                        }
                        Abbrev::Dynamic(name) => {
                            let z = named_zone(name).unwrap_or_default();
                            zone = PendingZone::Dynamic(name, z);
                            m(bit::DYNTZ) | m(bit::TZ)
                        }
                    }
                } else {
                    match keyword(field) {
                        Some(Keyword::Ignore) => continue,
                        Some(Keyword::Reserved(r)) => match r {
                            Reserved::Now => {
                                let (tm, fsec, west) = now_tm(ctx);
                                st.tm = Tm {
                                    yday: st.tm.yday,
                                    ..tm
                                };
                                st.fsec = fsec;
                                tz_west = west;
                                kind = Kind::Date;
                                DATE_M | TIME_M | m(bit::TZ)
                            }
                            Reserved::Today | Reserved::Tomorrow | Reserved::Yesterday => {
                                let (now, _, _) = now_tm(ctx);
                                let shift = match r {
                                    Reserved::Tomorrow => 1,
                                    Reserved::Yesterday => -1,
                                    _ => 0,
                                };
                                let (y, mo, d) =
                                    j2date(date2j(now.year, now.mon, now.mday) + shift);
                                (st.tm.year, st.tm.mon, st.tm.mday) = (y, mo, d);
                                kind = Kind::Date;
                                DATE_M
                            }
                            Reserved::Zulu => {
                                st.tm.hour = 0;
                                st.tm.min = 0;
                                st.tm.sec = 0;
                                tz_west = 0;
                                kind = Kind::Date;
                                TIME_M | m(bit::TZ)
                            }
                            Reserved::Epoch => {
                                kind = Kind::Epoch;
                                m(bit::RESERV)
                            }
                            Reserved::Late => {
                                kind = Kind::Late;
                                m(bit::RESERV)
                            }
                            Reserved::Early => {
                                kind = Kind::Early;
                                m(bit::RESERV)
                            }
                        },
                        Some(Keyword::Month(mon)) => {
                            let mut t = m(bit::MONTH);
                            // A numeric "month" seen before a text month was the day.
                            if fmask & m(bit::MONTH) != 0
                                && !have_text_month
                                && fmask & m(bit::DAY) == 0
                                && (1..=31).contains(&st.tm.mon)
                            {
                                st.tm.mday = st.tm.mon;
                                t = m(bit::DAY);
                            }
                            have_text_month = true;
                            st.tm.mon = mon;
                            t
                        }
                        Some(Keyword::DstModifier) => {
                            tz_west -= 3600;
                            m(bit::DTZMOD) | m(bit::DTZ)
                        }
                        Some(Keyword::AmPm(pm)) => {
                            meridian = Some(pm);
                            m(bit::AMPM)
                        }
                        Some(Keyword::Era(is_bc)) => {
                            bc = is_bc;
                            m(bit::ADBC)
                        }
                        Some(Keyword::DayOfWeek) => m(bit::DOW),
                        Some(Keyword::Unit(Unit::IsoTime)) => {
                            if fmask & DATE_M != DATE_M {
                                return Err(DtErr::BadFormat);
                            }
                            let next_ok = i + 1 < f.count
                                && matches!(
                                    f.shape(i + 1),
                                    Shape::Number | Shape::Time | Shape::Date
                                );
                            if !next_ok {
                                return Err(DtErr::BadFormat);
                            }
                            prefix = Some(Unit::IsoTime);
                            0
                        }
                        Some(Keyword::Unit(u)) => {
                            prefix = Some(u);
                            0
                        }
                        None => {
                            // Last chance: an all-letter zone name ("japan").
                            let z = named_zone(field).ok_or(DtErr::BadFormat)?;
                            zone = PendingZone::Named(z);
                            m(bit::TZ)
                        }
                    }
                }
            }
        };
        if tmask & st.fmask != 0 {
            return Err(DtErr::BadFormat);
        }
        st.fmask |= tmask;
    }
    let fmask = st.fmask;
    validate_date(fmask, is_julian, st.is2digits, bc, &mut st.tm)?;
    if let Some(pm) = meridian {
        if st.tm.hour > HOURS_PER_DAY / 2 {
            return Err(DtErr::FieldOverflow);
        }
        if !pm && st.tm.hour == 12 {
            st.tm.hour = 0;
        } else if pm && st.tm.hour != 12 {
            st.tm.hour += 12;
        }
    }
    if kind == Kind::Date {
        if fmask & DATE_M != DATE_M {
            // Time only (PostgreSQL returns 1, which every caller rejects).
            return Err(DtErr::BadFormat);
        }
        match zone {
            PendingZone::Named(z) => {
                if fmask & m(bit::DTZMOD) != 0 {
                    return Err(DtErr::BadFormat);
                }
                tz_west = zone_offset_west(&st.tm, &z);
            }
            PendingZone::Dynamic(name, z) => {
                if fmask & m(bit::DTZMOD) != 0 {
                    return Err(DtErr::BadFormat);
                }
                tz_west = abbrev_offset_west(&st.tm, name_abbrev(f, name), &z);
            }
            PendingZone::None => {}
        }
        if fmask & m(bit::TZ) == 0 {
            if fmask & m(bit::DTZMOD) != 0 {
                return Err(DtErr::BadFormat);
            }
            tz_west = zone_offset_west(&st.tm, &ctx.zone);
        }
    }
    Ok(Decoded {
        kind,
        tm: st.tm,
        fsec: st.fsec,
        tz_west,
    })
}

/// The abbreviation field that named dynamic zone `name` (for its lookup in the zone).
fn name_abbrev<'a>(f: &'a Fields, name: &'static str) -> &'a str {
    (0..f.count)
        .map(|i| f.get(i))
        .find(|w| abbrevs::lookup(w) == Some(Abbrev::Dynamic(name)))
        .unwrap_or("")
}

/// A number after a label: `j2451187`, `y2001`, `t102030`, … (the DTK_NUMBER case of
/// DecodeDateTime with a prefix). Returns the mask it set.
fn decode_labelled_number(
    st: &mut DateState,
    field: &str,
    label: Unit,
    tz_west: &mut i32,
    is_julian: &mut bool,
) -> Dt<u32> {
    let (val, used) = strtoint(field);
    let val = val.ok_or(DtErr::FieldOverflow)?;
    let rest = &field[used..];
    if rest.starts_with('.') {
        if !matches!(label, Unit::Julian | Unit::IsoTime | Unit::Second) {
            return Err(DtErr::BadFormat);
        }
    } else if !rest.is_empty() {
        return Err(DtErr::BadFormat);
    }
    let fmask = st.fmask;
    Ok(match label {
        Unit::Year => {
            st.tm.year = val;
            m(bit::YEAR)
        }
        Unit::Month => {
            // With a month and an hour already, "m" means minutes.
            if fmask & m(bit::MONTH) != 0 && fmask & m(bit::HOUR) != 0 {
                st.tm.min = val;
                m(bit::MINUTE)
            } else {
                st.tm.mon = val;
                m(bit::MONTH)
            }
        }
        Unit::Day => {
            st.tm.mday = val;
            m(bit::DAY)
        }
        Unit::Hour => {
            st.tm.hour = val;
            m(bit::HOUR)
        }
        Unit::Minute => {
            st.tm.min = val;
            m(bit::MINUTE)
        }
        Unit::Second => {
            st.tm.sec = val;
            if rest.starts_with('.') {
                st.fsec = parse_fractional_second(rest)?;
                ALL_SECS_M
            } else {
                m(bit::SECOND)
            }
        }
        Unit::Tz => {
            *tz_west = decode_timezone(field)?;
            m(bit::TZ)
        }
        Unit::Julian => {
            if val < 0 {
                return Err(DtErr::FieldOverflow);
            }
            let (y, mo, d) = j2date(val);
            (st.tm.year, st.tm.mon, st.tm.mday) = (y, mo, d);
            *is_julian = true;
            let mut mask = DATE_M;
            if rest.starts_with('.') {
                let frac = parse_fraction(rest)?;
                let time = frac * USECS_PER_DAY as f64;
                let (h, mi, s, fs) = split_time(time as i64);
                (st.tm.hour, st.tm.min, st.tm.sec, st.fsec) = (h, mi, s, fs);
                mask |= TIME_M;
            }
            mask
        }
        Unit::IsoTime => {
            let mask = decode_number_field(st, field, fmask | DATE_M)?;
            if mask != TIME_M {
                return Err(DtErr::BadFormat);
            }
            mask
        }
        Unit::Microsecond
        | Unit::Millisecond
        | Unit::Week
        | Unit::Quarter
        | Unit::Decade
        | Unit::Century
        | Unit::Millennium
        | Unit::Dow
        | Unit::Doy
        | Unit::IsoDow
        | Unit::IsoYear
        | Unit::TzHour
        | Unit::TzMinute => return Err(DtErr::BadFormat),
    })
}

/// Microseconds of a day into hours, minutes, seconds and microseconds (dt2time).
fn split_time(micros: i64) -> (i32, i32, i32, i32) {
    let hour = micros / USECS_PER_HOUR;
    let rest = micros - hour * USECS_PER_HOUR;
    let min = rest / USECS_PER_MINUTE;
    let rest = rest - min * USECS_PER_MINUTE;
    let sec = rest / USECS_PER_SEC;
    let fsec = rest - sec * USECS_PER_SEC;
    (hour as i32, min as i32, sec as i32, fsec as i32)
}

/// A local date and time as microseconds since 2000-01-01 (tm2timestamp); `None` out
/// of range.
fn tm_to_timestamp(tm: &Tm, fsec: i32, tz_west: Option<i32>) -> Option<i64> {
    let local = tm_local_micros(tm)?.checked_add(fsec as i64)?;
    let t = match tz_west {
        Some(w) => local.checked_add(w as i64 * USECS_PER_SEC)?,
        None => local,
    };
    is_valid_timestamp(t).then_some(t)
}

fn decode_for(text: &str, limit: usize, type_name: &str, ctx: &InputContext) -> Result<Decoded> {
    tokenize(text, limit)
        .and_then(|f| decode_datetime(&f, ctx))
        .map_err(|e| report(e, text, type_name))
}

/// Days since 2000-01-01 for `text`, as PostgreSQL's `date_in` reads it.
pub fn date_in(text: &str, ctx: &InputContext) -> Result<i32> {
    let d = decode_for(text, DATE_BUF, "date", ctx)?;
    let tm = match d.kind {
        Kind::Date => d.tm,
        Kind::Epoch => Tm {
            year: 1970,
            mon: 1,
            mday: 1,
            ..Tm::default()
        },
        Kind::Late => return Ok(DATE_NOEND),
        Kind::Early => return Ok(DATE_NOBEGIN),
    };
    let out_of_range = || Error::new("22008", format!("date out of range: \"{text}\""));
    if !is_valid_julian(tm.year, tm.mon, tm.mday) {
        return Err(out_of_range());
    }
    let date = date2j(tm.year, tm.mon, tm.mday) - POSTGRES_EPOCH_JDATE;
    if !is_valid_date(date) {
        return Err(out_of_range());
    }
    Ok(date)
}

/// Microseconds since 2000-01-01 (local) for `text`, as `timestamp_in` reads it: a
/// written time zone is ignored.
pub fn timestamp_in(text: &str, ctx: &InputContext) -> Result<i64> {
    timestamp_in_common(text, ctx, "timestamp", false)
}

/// Microseconds since 2000-01-01 UTC for `text`, as `timestamptz_in` reads it.
pub fn timestamptz_in(text: &str, ctx: &InputContext) -> Result<i64> {
    timestamp_in_common(text, ctx, "timestamp with time zone", true)
}

fn timestamp_in_common(
    text: &str,
    ctx: &InputContext,
    type_name: &str,
    with_zone: bool,
) -> Result<i64> {
    let d = decode_for(text, TIMESTAMP_BUF, type_name, ctx)?;
    match d.kind {
        Kind::Date => tm_to_timestamp(&d.tm, d.fsec, with_zone.then_some(d.tz_west))
            .ok_or_else(|| Error::new("22008", format!("timestamp out of range: \"{text}\""))),
        // 1970-01-01 00:00:00, UTC for timestamptz.
        Kind::Epoch => Ok(-super::UNIX_EPOCH_DAYS * USECS_PER_DAY),
        Kind::Late => Ok(TIMESTAMP_NOEND),
        Kind::Early => Ok(TIMESTAMP_NOBEGIN),
    }
}

/// Decodes the fields of a time of day (DecodeTimeOnly): a date may come first and
/// is checked but dropped, numbers are times (`040506`), `allballs` and `now` are
/// words, months and days of the week are not. Returns the time (microseconds, up to
/// 24:00:00) and the zone west of UTC (the session's when none is written).
fn decode_time_only(f: &Fields, ctx: &InputContext) -> Dt<(i64, i32)> {
    let mut st = DateState {
        fmask: 0,
        tm: Tm::default(),
        fsec: 0,
        is2digits: false,
        order: ctx.order,
    };
    let mut tz_west = 0;
    let mut prefix: Option<Unit> = None;
    let mut meridian: Option<bool> = None;
    let mut is_julian = false;
    let mut bc = false;
    let mut zone = PendingZone::None;
    let n = f.count;
    for i in 0..n {
        let field = f.get(i);
        let fmask = st.fmask;
        let tmask: u32 = match f.shape(i) {
            Shape::Date => {
                let date_first = i == 0
                    && n >= 2
                    && (f.shape(n - 1) == Shape::Date || f.shape(1) == Shape::Time);
                if date_first {
                    decode_date(&mut st, field, fmask)?
                } else if field.as_bytes()[0].is_ascii_digit() {
                    // "hhmmss-zz": a run-together time with its zone.
                    if fmask & TIME_M == TIME_M {
                        return Err(DtErr::BadFormat);
                    }
                    let Some(dash) = field.find('-') else {
                        return Err(DtErr::BadFormat);
                    };
                    tz_west = decode_timezone(&field[dash..])?;
                    decode_number_field(&mut st, &field[..dash], fmask | DATE_M)? | m(bit::TZ)
                } else {
                    let z =
                        named_zone(field).ok_or_else(|| DtErr::UnknownZone(field.to_string()))?;
                    zone = PendingZone::Named(z);
                    m(bit::TZ)
                }
            }
            Shape::Time => {
                if prefix.is_some() {
                    if prefix != Some(Unit::IsoTime) {
                        return Err(DtErr::BadFormat);
                    }
                    prefix = None;
                }
                let (hour, min, sec, fsec) = decode_time_common(field, false)?;
                st.tm.hour = i32::try_from(hour).map_err(|_| DtErr::FieldOverflow)?;
                st.tm.min = min;
                st.tm.sec = sec;
                st.fsec = fsec;
                TIME_M
            }
            Shape::Signed => {
                tz_west = decode_timezone(field)?;
                m(bit::TZ)
            }
            Shape::Number => {
                if let Some(label) = prefix.take() {
                    let t = decode_labelled_number(
                        &mut st,
                        field,
                        label,
                        &mut tz_west,
                        &mut is_julian,
                    )?;
                    if label == Unit::IsoTime && t != TIME_M {
                        return Err(DtErr::BadFormat);
                    }
                    t
                } else {
                    let flen = field.len();
                    match field.find('.') {
                        Some(_) if i == 0 && n >= 2 && f.shape(n - 1) == Shape::Date => {
                            decode_date(&mut st, field, fmask)?
                        }
                        Some(d) if d > 2 => decode_number_field(&mut st, field, fmask | DATE_M)?,
                        Some(_) => return Err(DtErr::BadFormat),
                        None if flen > 4 => decode_number_field(&mut st, field, fmask | DATE_M)?,
                        None => decode_number(&mut st, field, false, fmask | DATE_M)?,
                    }
                }
            }
            Shape::Word | Shape::SignedWord => {
                if let Some(abbrev) = abbrevs::lookup(field) {
                    match abbrev {
                        Abbrev::Fixed(east) => {
                            tz_west = -east;
                            m(bit::TZ)
                        }
                        Abbrev::Dst(east) => {
                            tz_west = -east;
                            m(bit::DTZ) | m(bit::TZ)
                        }
                        Abbrev::Dynamic(name) => {
                            let z = named_zone(name).unwrap_or_default();
                            zone = PendingZone::Dynamic(name, z);
                            m(bit::DYNTZ) | m(bit::TZ)
                        }
                    }
                } else {
                    match keyword(field) {
                        Some(Keyword::Ignore) => continue,
                        Some(Keyword::Reserved(Reserved::Now)) => {
                            let (tm, fsec, _) = now_tm(ctx);
                            (st.tm.hour, st.tm.min, st.tm.sec) = (tm.hour, tm.min, tm.sec);
                            st.fsec = fsec;
                            TIME_M
                        }
                        Some(Keyword::Reserved(Reserved::Zulu)) => {
                            (st.tm.hour, st.tm.min, st.tm.sec) = (0, 0, 0);
                            tz_west = 0;
                            TIME_M | m(bit::TZ)
                        }
                        Some(Keyword::DstModifier) => {
                            tz_west -= 3600;
                            m(bit::DTZMOD) | m(bit::DTZ)
                        }
                        Some(Keyword::AmPm(pm)) => {
                            meridian = Some(pm);
                            m(bit::AMPM)
                        }
                        Some(Keyword::Era(is_bc)) => {
                            bc = is_bc;
                            m(bit::ADBC)
                        }
                        Some(Keyword::Unit(u)) => {
                            if prefix.is_some() {
                                return Err(DtErr::BadFormat);
                            }
                            if u == Unit::IsoTime {
                                let next_ok = i + 1 < n
                                    && matches!(
                                        f.shape(i + 1),
                                        Shape::Number | Shape::Time | Shape::Date
                                    );
                                if !next_ok {
                                    return Err(DtErr::BadFormat);
                                }
                            }
                            prefix = Some(u);
                            0
                        }
                        None => {
                            let z = named_zone(field).ok_or(DtErr::BadFormat)?;
                            zone = PendingZone::Named(z);
                            m(bit::TZ)
                        }
                        _ => return Err(DtErr::BadFormat),
                    }
                }
            }
        };
        if tmask & st.fmask != 0 {
            return Err(DtErr::BadFormat);
        }
        st.fmask |= tmask;
    }
    let fmask = st.fmask;
    validate_date(fmask, is_julian, st.is2digits, bc, &mut st.tm)?;
    if let Some(pm) = meridian {
        if st.tm.hour > HOURS_PER_DAY / 2 {
            return Err(DtErr::FieldOverflow);
        }
        if !pm && st.tm.hour == 12 {
            st.tm.hour = 0;
        } else if pm && st.tm.hour != 12 {
            st.tm.hour += 12;
        }
    }
    let tm = &st.tm;
    let usecs = USECS_PER_SEC as i32;
    if tm.hour < 0
        || tm.min < 0
        || tm.min > 59
        || tm.sec < 0
        || tm.sec > 60
        || tm.hour > HOURS_PER_DAY
        || (tm.hour == HOURS_PER_DAY && (tm.min > 0 || tm.sec > 0 || st.fsec > 0))
        || st.fsec < 0
        || st.fsec > usecs
    {
        return Err(DtErr::FieldOverflow);
    }
    if fmask & TIME_M == 0 {
        return Err(DtErr::BadFormat);
    }
    let micros = ((tm.hour as i64 * 60 + tm.min as i64) * 60 + tm.sec as i64) * USECS_PER_SEC
        + st.fsec as i64;
    // The date a zone's offset is taken at: the written one, else today's.
    let on_date = |tm: &Tm| -> Tm {
        if fmask & DATE_M == DATE_M {
            *tm
        } else {
            let (now, _, _) = now_tm(ctx);
            Tm {
                hour: tm.hour,
                min: tm.min,
                sec: tm.sec,
                ..now
            }
        }
    };
    match zone {
        PendingZone::Named(z) => {
            if fmask & m(bit::DTZMOD) != 0 {
                return Err(DtErr::BadFormat);
            }
            // A zone without daylight saving needs no date; one with it does.
            let fixed = z.offset_at(0) == z.offset_at(182 * USECS_PER_DAY);
            if !fixed && fmask & DATE_M != DATE_M {
                return Err(DtErr::BadFormat);
            }
            tz_west = zone_offset_west(&on_date(tm), &z);
        }
        PendingZone::Dynamic(name, z) => {
            if fmask & m(bit::DTZMOD) != 0 {
                return Err(DtErr::BadFormat);
            }
            tz_west = abbrev_offset_west(&on_date(tm), name_abbrev(f, name), &z);
        }
        PendingZone::None => {
            if fmask & m(bit::TZ) == 0 {
                if fmask & m(bit::DTZMOD) != 0 {
                    return Err(DtErr::BadFormat);
                }
                tz_west = zone_offset_west(&on_date(tm), &ctx.zone);
            }
        }
    }
    Ok((micros, tz_west))
}

/// Microseconds since midnight for `text`, as PostgreSQL's `time_in` reads it (a
/// written date or zone is checked and dropped).
pub fn time_in(text: &str, ctx: &InputContext) -> Result<i64> {
    tokenize(text, TIMESTAMP_BUF)
        .and_then(|f| decode_time_only(&f, ctx))
        .map(|(t, _)| t)
        .map_err(|e| report(e, text, "time"))
}

/// A time of day and its zone (seconds west of UTC), as `timetz_in` reads them.
pub fn timetz_in(text: &str, ctx: &InputContext) -> Result<(i64, i32)> {
    tokenize(text, TIMESTAMP_BUF)
        .and_then(|f| decode_time_only(&f, ctx))
        .map_err(|e| report(e, text, "time with time zone"))
}

mod interval;

pub use interval::{interval_in, interval_in_range};

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(order: DateOrder) -> InputContext {
        InputContext {
            zone: Zone::Fixed(0),
            order,
            now_utc: 0,
        }
    }

    fn date(text: &str, order: DateOrder) -> String {
        match date_in(text, &ctx(order)) {
            Ok(d) => {
                let mut out = Vec::new();
                super::super::write_date(&mut out, d);
                String::from_utf8(out).unwrap_or_default()
            }
            Err(e) => format!("{} {}", e.code, e.message),
        }
    }

    #[test]
    fn dates_in_the_shapes_postgres_reads() {
        use DateOrder::*;
        let cases = [
            ("2024-01-02", Mdy, "2024-01-02"),
            ("01/02/2024", Mdy, "2024-01-02"),
            ("01/02/2024", Dmy, "2024-02-01"),
            ("24-01-02", Ymd, "2024-01-02"),
            ("Jan 2 2024", Mdy, "2024-01-02"),
            ("2 January 2024", Dmy, "2024-01-02"),
            ("2024-Jan-02", Mdy, "2024-01-02"),
            ("20240102", Mdy, "2024-01-02"),
            ("2024.002", Mdy, "2024-01-02"),
            ("J2451187", Mdy, "1999-01-08"),
            ("2024-01-02 BC", Mdy, "2024-01-02 BC"),
            ("epoch", Mdy, "1970-01-01"),
            ("infinity", Mdy, "infinity"),
            ("-infinity", Mdy, "-infinity"),
            ("1/2/69", Mdy, "2069-01-02"),
            ("1/2/70", Mdy, "1970-01-02"),
            (
                "2024-02-30",
                Mdy,
                "22008 date/time field value out of range: \"2024-02-30\"",
            ),
            (
                "13/01/2024",
                Mdy,
                "22008 date/time field value out of range: \"13/01/2024\"",
            ),
            (
                "garbage",
                Mdy,
                "22007 invalid input syntax for type date: \"garbage\"",
            ),
            (
                "10:00",
                Mdy,
                "22007 invalid input syntax for type date: \"10:00\"",
            ),
            (
                "5874898-01-01",
                Mdy,
                "22008 date out of range: \"5874898-01-01\"",
            ),
        ];
        for (text, order, want) in cases {
            assert_eq!(date(text, order), want, "{text} ({order:?})");
        }
    }

    #[test]
    fn timestamps_with_zones() {
        let c = ctx(DateOrder::Mdy);
        let ts = |t: &str| timestamptz_in(t, &c).map(|v| v / USECS_PER_SEC);
        let base = ts("2024-01-02 10:00:00+00").unwrap_or_default();
        assert_eq!(ts("2024-01-02 05:00:00 EST"), Ok(base));
        assert_eq!(ts("2024-01-02 05:00:00 America/New_York"), Ok(base));
        assert_eq!(ts("2024-01-02T10:00:00Z"), Ok(base));
        assert_eq!(ts("Jan 2 2024 3:00 pm -05"), Ok(base + 10 * 3600));
        assert_eq!(ts("2024-01-02 10:00 Mars/Base").unwrap_err().code, "22023");
        assert_eq!(ts("2024-01-02 10:00 +16").unwrap_err().code, "22009");
        // timestamp without time zone ignores the zone.
        let local = timestamp_in("2024-01-02 10:00:00 EST", &c).map(|v| v / USECS_PER_SEC);
        assert_eq!(local, Ok(base));
    }

    #[test]
    fn intervals_in_every_style() {
        let iv = |t: &str| interval_in(t).map(|i| (i.months, i.days, i.micros));
        assert_eq!(iv("1 day 2 hours"), Ok((0, 1, 2 * USECS_PER_HOUR)));
        assert_eq!(iv("@ 1 day ago"), Ok((0, -1, 0)));
        assert_eq!(iv("1-2"), Ok((14, 0, 0)));
        assert_eq!(
            iv("P1Y2M3DT4H5M6S"),
            Ok((
                14,
                3,
                4 * USECS_PER_HOUR + 5 * USECS_PER_MINUTE + 6 * USECS_PER_SEC
            ))
        );
        assert_eq!(
            iv("P0001-02-03T04:05:06"),
            Ok((
                14,
                3,
                4 * USECS_PER_HOUR + 5 * USECS_PER_MINUTE + 6 * USECS_PER_SEC
            ))
        );
        assert_eq!(iv("1.5 months"), Ok((1, 15, 0)));
        assert_eq!(
            iv("3 4:05"),
            Ok((0, 3, 4 * USECS_PER_HOUR + 5 * USECS_PER_MINUTE))
        );
        assert_eq!(iv("-1 +02:00"), Ok((0, -1, 2 * USECS_PER_HOUR)));
        assert_eq!(iv("1 day 1 day").unwrap_err().code, "22007");
        assert_eq!(iv("2147483648 days").unwrap_err().code, "22015");
    }
}
