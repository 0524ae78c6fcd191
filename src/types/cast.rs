//! Casts between SQL types, with PostgreSQL's rounding, range checks and errors.
//!
//! `cast_value` is the scalar definition; the executor's vector casts either call it per
//! element or use a specialised loop with identical results.

use super::array;
use super::datetime::{self, USECS_PER_DAY};
use super::numeric::Numeric;
use super::text::{self, TextFormat};
use super::{DataType, SqlType, Value, datetime_precision, numeric_typmod_parts};
use crate::error::{Error, Result};

/// Whether a cast from `from` to `to` exists at all (explicitly).
pub fn can_cast(from: DataType, to: DataType) -> bool {
    use DataType::*;
    if from == to || from == Unknown || to.is_string() || from.is_string() {
        return true;
    }
    match (from, to) {
        (Array(a), Array(b)) => can_cast(*a, *b),
        (a, b) if a.numeric_rank().is_some() && b.numeric_rank().is_some() => true,
        (Int4, Bool) | (Bool, Int4) => true,
        (a, b) if a.is_oid() && (b.is_oid() || b.is_integer()) => true,
        (a, b) if b.is_oid() && a.is_integer() => true,
        (Date, Timestamp | Timestamptz)
        | (Timestamp, Date | Timestamptz)
        | (Timestamptz, Date | Timestamp) => true,
        (Inet, Cidr) | (Cidr, Inet) | (MacAddr, MacAddr8) | (MacAddr8, MacAddr) => true,
        (Time, Interval | TimeTz)
        | (Timestamp, Time)
        | (Timestamptz, Time | TimeTz)
        | (Interval, Time)
        | (TimeTz, Time) => true,
        (Json, Jsonb) | (Jsonb, Json) => true,
        (Jsonb, b) if b == Bool || b.numeric_rank().is_some() => true,
        _ => false,
    }
}

/// Whether PostgreSQL applies this cast implicitly (in expressions and comparisons).
pub fn is_implicit(from: DataType, to: DataType) -> bool {
    use DataType::*;
    if from == to || from == Unknown {
        return true;
    }
    if let (Some(a), Some(b)) = (from.numeric_rank(), to.numeric_rank()) {
        return a < b;
    }
    if let (Array(a), Array(b)) = (from, to) {
        return is_implicit(*a, *b);
    }
    // An integer is an oid implicitly, and the oid aliases are one another.
    if to.is_oid() && (from.is_oid() || matches!(from, Int2 | Int4 | Int8)) {
        return true;
    }
    matches!(
        (from, to),
        (Varchar | Bpchar | Name | Char, Text)
            | (Text | Bpchar | Varchar, Name)
            | (Text | Bpchar | Name, Varchar)
            | (Date, Timestamp | Timestamptz)
            | (Timestamp, Timestamptz)
            | (Time, Interval | TimeTz)
            | (Cidr, Inet)
            | (MacAddr, MacAddr8)
    )
}

/// Whether an INSERT/UPDATE may assign a value of `from` to a column of `to`.
pub fn is_assignable(from: DataType, to: DataType) -> bool {
    use DataType::*;
    if is_implicit(from, to) {
        return true;
    }
    if from.numeric_rank().is_some() && to.numeric_rank().is_some() {
        return true;
    }
    // Every type converts to a string type by its output function in assignment
    // (PostgreSQL's automatic I/O conversion casts).
    if to.is_string() && from != Unknown {
        return true;
    }
    if let (Array(a), Array(b)) = (from, to) {
        return is_assignable(*a, *b);
    }
    if from.is_oid() && matches!(to, Int4 | Int8) {
        return true;
    }
    matches!(
        (from, to),
        (Timestamp | Timestamptz, Date)
            | (Timestamptz, Timestamp)
            | (Json, Jsonb)
            | (Jsonb, Json)
            | (Timestamp | Timestamptz | Interval | TimeTz, Time)
            | (Timestamptz, TimeTz)
            | (Inet, Cidr)
            | (MacAddr8, MacAddr)
    )
}

fn range_error(ty: DataType) -> Error {
    Error::numeric_out_of_range(format!("{} out of range", ty.name()))
}

fn int_to(v: i64, to: DataType) -> Result<Value> {
    Ok(match to {
        DataType::Int2 => Value::Int2(i16::try_from(v).map_err(|_| range_error(DataType::Int2))?),
        DataType::Int4 => Value::Int4(i32::try_from(v).map_err(|_| range_error(DataType::Int4))?),
        DataType::Int8 => Value::Int8(v),
        DataType::Float4 => Value::Float4(v as f32),
        DataType::Float8 => Value::Float8(v as f64),
        DataType::Numeric => Value::Numeric(Numeric::from_i64(v)),
        DataType::Bool => Value::Bool(v != 0),
        t if t.is_oid() => {
            if !(0..=u32::MAX as i64).contains(&v) {
                return Err(Error::numeric_out_of_range("OID out of range"));
            }
            Value::Int8(v)
        }
        _ => return Err(Error::internal("bad integer cast target")),
    })
}

fn float_to(v: f64, to: DataType) -> Result<Value> {
    let to_int = |min: f64, max: f64| -> Result<i64> {
        // PostgreSQL rounds half to even (rint) when casting floats to integers.
        let r = v.round_ties_even();
        if v.is_nan() || r < min || r > max {
            return Err(range_error(to));
        }
        Ok(r as i64)
    };
    Ok(match to {
        DataType::Int2 => Value::Int2(to_int(i16::MIN as f64, i16::MAX as f64)? as i16),
        DataType::Int4 => Value::Int4(to_int(i32::MIN as f64, i32::MAX as f64)? as i32),
        DataType::Int8 => Value::Int8(to_int(-9.223_372_036_854_776e18, 9.223372036854775e18)?),
        DataType::Float4 => {
            let f = v as f32;
            if f.is_infinite() && v.is_finite() {
                return Err(Error::numeric_out_of_range("value out of range: overflow"));
            }
            if f == 0.0 && v != 0.0 {
                return Err(Error::numeric_out_of_range("value out of range: underflow"));
            }
            Value::Float4(f)
        }
        DataType::Float8 => Value::Float8(v),
        DataType::Numeric => Value::Numeric(Numeric::from_f64(v)?),
        _ => return Err(Error::internal("bad float cast target")),
    })
}

fn numeric_to(v: &Numeric, to: DataType) -> Result<Value> {
    match to {
        DataType::Int2 | DataType::Int4 | DataType::Int8 => {
            let r = v.to_i128_rounded().ok_or_else(|| range_error(to))?;
            let r = i64::try_from(r).map_err(|_| range_error(to))?;
            int_to(r, to)
        }
        DataType::Float4 => Ok(Value::Float4(v.to_f32()?)),
        DataType::Float8 => Ok(Value::Float8(v.to_f64()?)),
        DataType::Numeric => Ok(Value::Numeric(v.clone())),
        _ => Err(Error::internal("bad numeric cast target")),
    }
}

fn cast_error(from: DataType, to: SqlType) -> Error {
    Error::new(
        "42846",
        format!("cannot cast type {} to {}", from.name(), to.display_name()),
    )
}

/// Casts `value` to `to`. `explicit` distinguishes `CAST`/`::` (truncating strings) from
/// assignment (raising `22001`).
pub fn cast_value(value: Value, to: SqlType, explicit: bool, fmt: &TextFormat) -> Result<Value> {
    let from = value.data_type();
    let converted = match value {
        Value::Null => return Ok(Value::Null),
        Value::Text(s) => {
            if to.ty.is_string() {
                return Ok(Value::Text(string_to(s, to, explicit)?));
            }
            if to.ty == DataType::Record {
                return Err(Error::feature_not_supported("input of anonymous records"));
            }
            if let DataType::Array(elem) = to.ty {
                let elem = SqlType::with_typmod(*elem, to.typmod);
                return Ok(Value::Array(Box::new(array::parse(&s, elem, fmt)?)));
            }
            match crate::types::interval_range_of(to) {
                Some(range) => Value::Interval(datetime::parse_interval_range(&s, range)?),
                None => text::parse_value(&s, to.ty, fmt)?,
            }
        }
        other if to.ty.is_string() => {
            let s = match &other {
                Value::Bool(b) => (if *b { "true" } else { "false" }).to_string(),
                // inet's text cast shows the length even when it is the whole address.
                Value::Raw(DataType::Inet, b) => {
                    super::net::to_text(&super::net::Inet::decode(b), true)
                }
                v => text::value_to_string(v, fmt),
            };
            return Ok(Value::Text(string_to(s, to, explicit)?));
        }
        Value::Bool(b) => match to.ty {
            DataType::Bool => Value::Bool(b),
            DataType::Int4 => Value::Int4(b as i32),
            _ => return Err(cast_error(from, to)),
        },
        Value::Int2(v) => int_to(v as i64, to.ty).map_err(|e| {
            if to.ty == DataType::Bool {
                cast_error(from, to)
            } else {
                e
            }
        })?,
        // int4 → oid reinterprets the bits (negative numbers wrap), as PostgreSQL.
        Value::Int4(v) if to.ty.is_oid() => Value::Int8(v as u32 as i64),
        Value::Int4(v) => int_to(v as i64, to.ty)?,
        Value::Int8(v) => {
            if to.ty == DataType::Bool {
                return Err(cast_error(from, to));
            }
            int_to(v, to.ty)?
        }
        Value::Float4(v) => {
            if to.ty == DataType::Numeric {
                Value::Numeric(Numeric::from_f32(v)?)
            } else {
                float_to(v as f64, to.ty)?
            }
        }
        Value::Float8(v) => float_to(v, to.ty)?,
        Value::Numeric(n) => numeric_to(&n, to.ty)?,
        Value::Date(d) => match to.ty {
            DataType::Date => Value::Date(d),
            DataType::Timestamp => Value::Timestamp(datetime::date_to_timestamp(d)?),
            DataType::Timestamptz => {
                let local = datetime::date_to_timestamp(d)?;
                Value::Timestamptz(if datetime::timestamp_is_infinite(local) {
                    local
                } else {
                    fmt.zone.local_to_utc(local)
                })
            }
            _ => return Err(cast_error(from, to)),
        },
        // timestamp_time and timestamptz_time(tz) answer NULL for the infinities.
        Value::Timestamp(t) | Value::Timestamptz(t)
            if datetime::timestamp_is_infinite(t)
                && matches!(to.ty, DataType::Time | DataType::TimeTz) =>
        {
            return Ok(Value::Null);
        }
        Value::Timestamp(t) if datetime::timestamp_is_infinite(t) => match to.ty {
            DataType::Timestamp => Value::Timestamp(t),
            DataType::Timestamptz => Value::Timestamptz(t),
            DataType::Date => Value::Date(datetime::infinite_date_of(t)),
            _ => return Err(cast_error(from, to)),
        },
        Value::Timestamptz(t) if datetime::timestamp_is_infinite(t) => match to.ty {
            DataType::Timestamp => Value::Timestamp(t),
            DataType::Timestamptz => Value::Timestamptz(t),
            DataType::Date => Value::Date(datetime::infinite_date_of(t)),
            _ => return Err(cast_error(from, to)),
        },
        Value::Timestamp(t) => match to.ty {
            DataType::Timestamp => Value::Timestamp(t),
            DataType::Date => Value::Date(t.div_euclid(USECS_PER_DAY) as i32),
            DataType::Timestamptz => Value::Timestamptz(fmt.zone.local_to_utc(t)),
            DataType::Time => Value::Time(t.rem_euclid(USECS_PER_DAY)),
            _ => return Err(cast_error(from, to)),
        },
        Value::Timestamptz(t) => {
            let local = fmt.zone.utc_to_local(t);
            match to.ty {
                DataType::Timestamptz => Value::Timestamptz(t),
                DataType::Timestamp => Value::Timestamp(local),
                DataType::Date => Value::Date(local.div_euclid(USECS_PER_DAY) as i32),
                DataType::Time => Value::Time(local.rem_euclid(USECS_PER_DAY)),
                DataType::TimeTz => Value::TimeTz(datetime::pack_timetz(
                    local.rem_euclid(USECS_PER_DAY),
                    -fmt.zone.offset_at(t),
                )),
                _ => return Err(cast_error(from, to)),
            }
        }
        Value::Interval(iv) => match to.ty {
            DataType::Interval => Value::Interval(iv),
            // interval_time: the time part alone, wrapped into one day.
            DataType::Time => Value::Time(iv.micros.rem_euclid(USECS_PER_DAY)),
            _ => return Err(cast_error(from, to)),
        },
        Value::Time(t) => match to.ty {
            DataType::Time => Value::Time(t),
            DataType::Interval => Value::Interval(datetime::Interval {
                months: 0,
                days: 0,
                micros: t,
            }),
            // time_timetz: the session zone's offset on today's date at that time.
            DataType::TimeTz => {
                let west = datetime::zone_west_today(&fmt.zone, fmt.date_input().now_utc, t);
                Value::TimeTz(datetime::pack_timetz(t, west))
            }
            _ => return Err(cast_error(from, to)),
        },
        Value::TimeTz(p) => match to.ty {
            DataType::TimeTz => Value::TimeTz(p),
            DataType::Time => Value::Time(datetime::unpack_timetz(p).0),
            _ => return Err(cast_error(from, to)),
        },
        Value::Record(r) => match to.ty {
            DataType::Record => Value::Record(r),
            _ => return Err(cast_error(from, to)),
        },
        Value::Uuid(u) => match to.ty {
            DataType::Uuid => Value::Uuid(u),
            _ => return Err(cast_error(from, to)),
        },
        Value::Bytes(b) => match to.ty {
            DataType::Bytea => Value::Bytes(b),
            _ => return Err(cast_error(from, to)),
        },
        Value::Jsonb(b) => super::jsonb_cast::from_jsonb(b, to)?,
        Value::Raw(t, b) => net_to(t, b, to.ty, from, to)?,
        Value::Array(a) => {
            let DataType::Array(elem_to) = to.ty else {
                return Err(cast_error(from, to));
            };
            let elem = SqlType::with_typmod(*elem_to, to.typmod);
            if a.elem == *elem_to && to.typmod < 0 {
                return Ok(Value::Array(a));
            }
            let mapped = array::map_elements(&a.bytes, a.elem, *elem_to, |v| {
                cast_value(v, elem, explicit, fmt)
            })?;
            return Ok(Value::Array(Box::new(mapped)));
        }
    };
    apply_typmod(converted, to)
}

/// Casts between the network types: inet ↔ cidr (the host bits cleared), macaddr
/// ↔ macaddr8 (ff:fe in the middle).
fn net_to(t: DataType, b: Vec<u8>, to_ty: DataType, from: DataType, to: SqlType) -> Result<Value> {
    use super::net::{Inet, network};
    Ok(match (t, to_ty) {
        (a, b2) if a == b2 => Value::Raw(a, b),
        (DataType::Cidr, DataType::Inet) => Value::Raw(to_ty, b),
        (DataType::Inet, DataType::Cidr) => Value::Raw(to_ty, network(&Inet::decode(&b)).encode()),
        (DataType::MacAddr, DataType::MacAddr8) if b.len() == 6 => {
            Value::Raw(to_ty, vec![b[0], b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]])
        }
        (DataType::MacAddr8, DataType::MacAddr) if b.len() == 8 => {
            if b[3] != 0xff || b[4] != 0xfe {
                return Err(Error::new(
                    "22003",
                    "macaddr8 data out of range to convert to macaddr",
                )
                .with_hint(
                    "Only addresses that have FF and FE as values in the 4th and 5th bytes from the left, for example xx:xx:xx:ff:fe:xx:xx:xx, are eligible to be converted from macaddr8 to macaddr.",
                ));
            }
            Value::Raw(to_ty, vec![b[0], b[1], b[2], b[5], b[6], b[7]])
        }
        _ => return Err(cast_error(from, to)),
    })
}

/// A string as a value of the string type `to`: `name` cut to 63 bytes, `"char"` to
/// its first character, varchar(n)/char(n) by their typmods.
fn string_to(s: String, to: SqlType, explicit: bool) -> Result<String> {
    match to.ty {
        DataType::Name => Ok(text::truncate_name(&s).to_string()),
        DataType::Char => Ok(s.chars().next().map(String::from).unwrap_or_default()),
        _ => text::apply_char_typmod(s, to, explicit),
    }
}

/// Applies a numeric typmod after conversion (strings are handled above).
fn apply_typmod(value: Value, to: SqlType) -> Result<Value> {
    match (&value, to.ty) {
        (Value::Numeric(n), DataType::Numeric) if to.typmod >= 4 => {
            let (p, s) = numeric_typmod_parts(to.typmod);
            Ok(Value::Numeric(n.apply_typmod(p, s)?))
        }
        (Value::Timestamp(t), DataType::Timestamp) => match datetime_precision(to) {
            Some(p) => Ok(Value::Timestamp(datetime::round_timestamp(*t, p)?)),
            None => Ok(value),
        },
        (Value::Timestamptz(t), DataType::Timestamptz) => match datetime_precision(to) {
            Some(p) => Ok(Value::Timestamptz(datetime::round_timestamp(*t, p)?)),
            None => Ok(value),
        },
        (Value::Time(t), DataType::Time) => match datetime_precision(to) {
            Some(p) => Ok(Value::Time(datetime::round_micros(*t, p))),
            None => Ok(value),
        },
        (Value::TimeTz(packed), DataType::TimeTz) => match datetime_precision(to) {
            Some(p) => {
                let (t, west) = datetime::unpack_timetz(*packed);
                Ok(Value::TimeTz(datetime::pack_timetz(
                    datetime::round_micros(t, p),
                    west,
                )))
            }
            None => Ok(value),
        },
        (Value::Interval(iv), DataType::Interval) => {
            let iv = match crate::types::interval_range_of(to) {
                Some(range) => datetime::truncate_interval(*iv, range),
                None => *iv,
            };
            match datetime_precision(to) {
                Some(p) => Ok(Value::Interval(datetime::Interval {
                    micros: datetime::round_micros(iv.micros, p),
                    ..iv
                })),
                None => Ok(Value::Interval(iv)),
            }
        }
        _ => Ok(value),
    }
}

pub use datetime::parse_interval;
