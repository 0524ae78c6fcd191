//! SQL types: their identities (PostgreSQL OIDs and typmods), scalar values, and the
//! text and binary representations clients see.
//!
//! A [`SqlType`] is a [`DataType`] plus PostgreSQL's typmod (`numeric(10,2)`, `varchar(20)`,
//! `-1` for none). Values travel in two shapes: [`Value`] for single scalars (literals,
//! parameters, aggregate states at the edges) and column vectors (`exec::vector`) for
//! everything that runs per row. The text output of every type follows PostgreSQL 15 with
//! `DateStyle = ISO, MDY`, `IntervalStyle = postgres` and `extra_float_digits = 1`.

pub mod array;
pub mod bytes;
pub mod cast;
pub mod datetime;
pub mod json;
pub mod jsonb;
pub mod jsonb_cast;
pub mod jsonpath;
pub mod net;
pub mod numeric;
pub mod range;
pub mod record;
pub mod text;
pub mod tsearch;
pub mod value;

pub use numeric::Numeric;
pub use value::Value;

use crate::error::{Error, Result};

/// Logical SQL types that kiln stores and computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    Bool,
    Int2,
    Int4,
    Int8,
    Float4,
    Float8,
    Numeric,
    Text,
    Varchar,
    Bpchar,
    Date,
    Timestamp,
    Timestamptz,
    Interval,
    /// The type of an untyped literal or NULL before context gives it one.
    Unknown,
    /// An array of the element type (any number of dimensions, as in PostgreSQL, where
    /// `int[][]` is `int[]`); built by [`DataType::array_of`], never of an array.
    Array(ArrayElem),
    /// An anonymous record (`ROW(…)`), self-describing (`types::record`).
    Record,
    /// `oid`: an unsigned 32-bit object identifier (stored as a bigint).
    Oid,
    /// The object-identifier aliases: an oid that reads and prints as a name
    /// (`regclass` a relation's, `regtype` a type's, …). Their text forms need the
    /// catalog, so the executor converts them (`catalog::system::reg_out`).
    RegClass,
    RegType,
    RegProc,
    /// A function with its argument types (`array_in(cstring,oid,integer)`).
    RegProcedure,
    RegNamespace,
    RegRole,
    /// `name`: an identifier of at most 63 bytes (stored as text).
    Name,
    /// `"char"`: one byte (stored as text of at most one byte).
    Char,
    /// `json`: JSON text kept exactly as given (checked on input; stored as text).
    Json,
    /// `uuid`: 16 bytes, stored raw in a text vector (so byte order is its order).
    Uuid,
    /// `bytea`: bytes, stored raw in a text vector.
    Bytea,
    /// `jsonb`: normalized JSON in a binary form (`types::jsonb`).
    Jsonb,
    /// `jsonpath`: an SQL/JSON path, stored as its canonical text (`types::jsonpath`).
    JsonPath,
    /// `time`: microseconds since midnight (0 to 24:00:00), in an i64 vector.
    Time,
    /// `timetz`: a time of day and its zone, packed in one i64 that orders as
    /// PostgreSQL orders them (`types::datetime::pack_timetz`).
    TimeTz,
    /// `inet` and `cidr`: bytes in a text vector whose byte order is PostgreSQL's
    /// (`types::net`).
    Inet,
    Cidr,
    /// `macaddr` (6 bytes) and `macaddr8` (8 bytes), raw in a text vector.
    MacAddr,
    MacAddr8,
    /// A user-defined enum (`catalog::types`), by its type oid: the label, in a text
    /// vector.
    Enum(u32),
    /// A range (`types::range`): bytes in a text vector whose order is range_cmp's.
    Range(range::RangeKind),
    /// `tsvector` and `tsquery` (`types::tsearch`): bytes in a text vector; a
    /// tsvector's byte order is tsvector_cmp's, a tsquery's bytes compare for equality.
    TsVector,
    TsQuery,
    /// `regconfig`: a text-search configuration's oid (`types::tsearch::dict`).
    RegConfig,
    /// `regdictionary`: a text-search dictionary's oid.
    RegDictionary,
}

/// The element types arrays can have.
const ARRAY_ELEMS: [DataType; 37] = [
    DataType::Bool,
    DataType::Int2,
    DataType::Int4,
    DataType::Int8,
    DataType::Float4,
    DataType::Float8,
    DataType::Numeric,
    DataType::Text,
    DataType::Varchar,
    DataType::Bpchar,
    DataType::Date,
    DataType::Timestamp,
    DataType::Timestamptz,
    DataType::Interval,
    DataType::Record,
    DataType::Oid,
    DataType::Name,
    DataType::Char,
    DataType::Uuid,
    DataType::Bytea,
    DataType::Json,
    DataType::Jsonb,
    DataType::JsonPath,
    DataType::Time,
    DataType::TimeTz,
    DataType::Inet,
    DataType::Cidr,
    DataType::MacAddr,
    DataType::MacAddr8,
    DataType::Range(range::RangeKind::Int4),
    DataType::Range(range::RangeKind::Int8),
    DataType::Range(range::RangeKind::Num),
    DataType::Range(range::RangeKind::Date),
    DataType::Range(range::RangeKind::Ts),
    DataType::Range(range::RangeKind::Tstz),
    DataType::TsVector,
    DataType::TsQuery,
];

/// The scalar types that have array types.
pub fn array_elements() -> &'static [DataType] {
    &ARRAY_ELEMS
}

/// `name[]` (current_schemas' result).
pub const NAME_ARRAY: ArrayElem = ArrayElem(16);

/// `integer[]` (pg_blocking_pids' result).
pub const INT4_ARRAY: ArrayElem = ArrayElem(2);

/// `text[]` (json paths).
pub const TEXT_ARRAY: ArrayElem = ArrayElem(7);

/// A one-byte code for a scalar type (its place among the element types), for
/// self-describing encodings (`types::record`).
pub(crate) fn scalar_code(t: DataType) -> Option<u8> {
    ARRAY_ELEMS.iter().position(|e| *e == t).map(|p| p as u8)
}

/// The scalar type of a [`scalar_code`].
pub(crate) fn scalar_of_code(code: u8) -> Option<DataType> {
    ARRAY_ELEMS.get(code as usize).copied()
}

/// An array's element type: an index into the built-in element types, or an enum's
/// type oid (enum oids are far above the indexes). Dereferences to the element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArrayElem(u32);

impl std::ops::Deref for ArrayElem {
    type Target = DataType;
    fn deref(&self) -> &DataType {
        match ARRAY_ELEMS.get(self.0 as usize) {
            Some(t) => t,
            None => enum_elem(self.0).unwrap_or(&DataType::Unknown),
        }
    }
}

/// Most enum types whose arrays exist (each keeps one interned `DataType` for the life
/// of the process); past it, arrays of a new enum type are 0A000.
const ENUM_ARRAYS_MAX: usize = 65_536;

fn enum_elems() -> &'static parking_lot::RwLock<std::collections::HashMap<u32, &'static DataType>> {
    static ELEMS: std::sync::OnceLock<
        parking_lot::RwLock<std::collections::HashMap<u32, &'static DataType>>,
    > = std::sync::OnceLock::new();
    ELEMS.get_or_init(Default::default)
}

/// The interned element type `Enum(oid)`, made on first use (None past the limit).
fn enum_elem(oid: u32) -> Option<&'static DataType> {
    if let Some(t) = enum_elems().read().get(&oid) {
        return Some(t);
    }
    let mut elems = enum_elems().write();
    if let Some(t) = elems.get(&oid) {
        return Some(t);
    }
    if elems.len() >= ENUM_ARRAYS_MAX {
        return None;
    }
    let t: &'static DataType = Box::leak(Box::new(DataType::Enum(oid)));
    elems.insert(oid, t);
    Some(t)
}

/// A type with its modifier, as in a column definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SqlType {
    pub ty: DataType,
    pub typmod: i32,
    /// A domain over `ty` (`catalog::types`), by its type oid; 0 for none. Values are
    /// the base type's: operators and functions see `ty`; a column of the domain and
    /// a cast to it carry it (pg_typeof shows it; RowDescription, like PostgreSQL's,
    /// the base type).
    pub domain: u32,
}

impl SqlType {
    pub const fn new(ty: DataType) -> SqlType {
        SqlType {
            ty,
            typmod: -1,
            domain: 0,
        }
    }
    pub const fn with_typmod(ty: DataType, typmod: i32) -> SqlType {
        SqlType {
            ty,
            typmod,
            domain: 0,
        }
    }

    /// The type with its domain, if any, taken away (what operators see).
    pub const fn base(self) -> SqlType {
        SqlType { domain: 0, ..self }
    }

    /// The type's oid: the domain's, if it is one (RowDescription sends the base
    /// type's, as PostgreSQL does).
    pub fn oid(&self) -> u32 {
        if self.domain != 0 {
            self.domain
        } else {
            self.ty.oid()
        }
    }
    /// PostgreSQL's `format_type` spelling, used in messages and pg_typeof.
    pub fn display_name(&self) -> String {
        if self.domain != 0 {
            return DataType::Enum(self.domain).name().to_string();
        }
        match self.ty {
            DataType::Array(elem) => {
                format!(
                    "{}[]",
                    SqlType::with_typmod(*elem, self.typmod).display_name()
                )
            }
            DataType::Numeric if self.typmod >= 4 => {
                let (p, s) = numeric_typmod_parts(self.typmod);
                format!("numeric({p},{s})")
            }
            DataType::Varchar if self.typmod >= 4 => {
                format!("character varying({})", self.typmod - 4)
            }
            DataType::Bpchar if self.typmod >= 4 => format!("character({})", self.typmod - 4),
            DataType::Timestamp if self.typmod >= 0 => {
                format!("timestamp({}) without time zone", self.typmod)
            }
            DataType::Timestamptz if self.typmod >= 0 => {
                format!("timestamp({}) with time zone", self.typmod)
            }
            DataType::Time if self.typmod >= 0 => {
                format!("time({}) without time zone", self.typmod)
            }
            DataType::TimeTz if self.typmod >= 0 => {
                format!("time({}) with time zone", self.typmod)
            }
            DataType::Interval => {
                let fields = interval_range_of(*self).map(|r| {
                    use datetime::interval_range as R;
                    let name = |b: i32| match b {
                        R::YEAR => "year",
                        R::MONTH => "month",
                        R::DAY => "day",
                        R::HOUR => "hour",
                        R::MINUTE => "minute",
                        _ => "second",
                    };
                    let bits: Vec<i32> = [R::YEAR, R::MONTH, R::DAY, R::HOUR, R::MINUTE, R::SECOND]
                        .into_iter()
                        .filter(|b| r & b != 0)
                        .collect();
                    match bits.as_slice() {
                        [one] => format!(" {}", name(*one)),
                        [first, .., last] => format!(" {} to {}", name(*first), name(*last)),
                        [] => String::new(),
                    }
                });
                let fields = fields.unwrap_or_default();
                match datetime_precision(*self) {
                    Some(p) => format!("interval{fields}({p})"),
                    None => format!("interval{fields}"),
                }
            }
            _ => self.ty.name().to_string(),
        }
    }
}

/// Fractional-second digits a timestamp or interval keeps at most.
pub const MAX_SECONDS_PRECISION: i32 = 6;
/// An interval typmod's "all fields" range (PostgreSQL's INTERVAL_FULL_RANGE).
const INTERVAL_FULL_RANGE: i32 = 0x7FFF;

/// The typmod of `timestamp(p)`: p, capped at 6 as PostgreSQL caps it (with a
/// warning there); -1 without one.
fn seconds_precision(p: Option<u64>) -> i32 {
    match p {
        Some(p) => p.min(MAX_SECONDS_PRECISION as u64) as i32,
        None => -1,
    }
}

/// The typmod of `interval(p)` (INTERVAL_TYPMOD with every field); -1 without one.
fn interval_typmod(p: Option<u64>) -> i32 {
    match p {
        Some(p) => (INTERVAL_FULL_RANGE << 16) | seconds_precision(Some(p)),
        None => -1,
    }
}

/// The field range of an interval typmod with a field qualifier (None: all fields).
pub fn interval_range_of(ty: SqlType) -> Option<i32> {
    if ty.ty != DataType::Interval || ty.typmod < 0 {
        return None;
    }
    let range = (ty.typmod >> 16) & 0x7FFF;
    (range != INTERVAL_FULL_RANGE).then_some(range)
}

/// An interval typmod for a field qualifier and a seconds precision.
pub fn interval_qualified_typmod(range: i32, precision: Option<u64>) -> i32 {
    (range << 16) | precision.map_or(0xFFFF, |p| p.min(MAX_SECONDS_PRECISION as u64) as i32)
}

/// The typmod range bits of an interval field qualifier.
pub fn interval_fields_range(f: &sqlparser::ast::IntervalFields) -> i32 {
    use datetime::interval_range as R;
    use sqlparser::ast::IntervalFields as F;
    match f {
        F::Year => R::YEAR,
        F::Month => R::MONTH,
        F::Day => R::DAY,
        F::Hour => R::HOUR,
        F::Minute => R::MINUTE,
        F::Second => R::SECOND,
        F::YearToMonth => R::YEAR | R::MONTH,
        F::DayToHour => R::DAY | R::HOUR,
        F::DayToMinute => R::DAY | R::HOUR | R::MINUTE,
        F::DayToSecond => R::DAY | R::HOUR | R::MINUTE | R::SECOND,
        F::HourToMinute => R::HOUR | R::MINUTE,
        F::HourToSecond => R::HOUR | R::MINUTE | R::SECOND,
        F::MinuteToSecond => R::MINUTE | R::SECOND,
    }
}

/// The fractional-second digits a datetime typmod keeps (None: all).
pub fn datetime_precision(ty: SqlType) -> Option<i32> {
    match ty.ty {
        DataType::Timestamp | DataType::Timestamptz | DataType::Time | DataType::TimeTz
            if ty.typmod >= 0 =>
        {
            Some(ty.typmod)
        }
        DataType::Interval if ty.typmod >= 0 => Some(ty.typmod & 0xFFFF).filter(|&p| p != 0xFFFF),
        _ => None,
    }
}

/// Splits a numeric typmod into (precision, scale).
pub fn numeric_typmod_parts(typmod: i32) -> (i32, i32) {
    let t = typmod - 4;
    ((t >> 16) & 0xffff, t & 0xffff)
}

/// The typmod that marks an `int2[]` or `oid[]` column as PostgreSQL's int2vector or
/// oidvector (the system catalogs' index key columns): same storage and subscripts
/// (from 0), but their own type oid and a text form of space-separated numbers.
pub const VECTOR_TYPMOD: i32 = -22;

/// int2vector's or oidvector's type oid, if `t` is one.
pub fn vector_oid(t: SqlType) -> Option<u32> {
    match (t.ty, t.typmod) {
        (DataType::Array(e), VECTOR_TYPMOD) if *e == DataType::Int2 => Some(22),
        (DataType::Array(e), VECTOR_TYPMOD) if *e == DataType::Oid => Some(30),
        _ => None,
    }
}

pub fn numeric_typmod(precision: i32, scale: i32) -> i32 {
    ((precision << 16) | (scale & 0xffff)) + 4
}

impl DataType {
    /// PostgreSQL's type OID.
    pub fn oid(self) -> u32 {
        match self {
            DataType::Bool => 16,
            DataType::Int2 => 21,
            DataType::Int4 => 23,
            DataType::Int8 => 20,
            DataType::Float4 => 700,
            DataType::Float8 => 701,
            DataType::Numeric => 1700,
            DataType::Text => 25,
            DataType::Varchar => 1043,
            DataType::Bpchar => 1042,
            DataType::Date => 1082,
            DataType::Timestamp => 1114,
            DataType::Timestamptz => 1184,
            DataType::Interval => 1186,
            DataType::Unknown => 705,
            DataType::Oid => 26,
            DataType::RegClass => 2205,
            DataType::RegType => 2206,
            DataType::RegProc => 24,
            DataType::RegProcedure => 2202,
            DataType::RegNamespace => 4089,
            DataType::RegRole => 4096,
            DataType::Name => 19,
            DataType::Char => 18,
            DataType::Json => 114,
            DataType::Uuid => 2950,
            DataType::Bytea => 17,
            DataType::Jsonb => 3802,
            DataType::JsonPath => 4072,
            DataType::Time => 1083,
            DataType::TimeTz => 1266,
            DataType::Inet => 869,
            DataType::Cidr => 650,
            DataType::MacAddr => 829,
            DataType::MacAddr8 => 774,
            DataType::Array(elem) => match *elem {
                DataType::Bool => 1000,
                DataType::Int2 => 1005,
                DataType::Int4 => 1007,
                DataType::Int8 => 1016,
                DataType::Float4 => 1021,
                DataType::Float8 => 1022,
                DataType::Numeric => 1231,
                DataType::Text => 1009,
                DataType::Varchar => 1015,
                DataType::Bpchar => 1014,
                DataType::Date => 1182,
                DataType::Timestamp => 1115,
                DataType::Timestamptz => 1185,
                DataType::Interval => 1187,
                DataType::Record => 2287,
                DataType::Oid => 1028,
                DataType::Name => 1003,
                DataType::Char => 1002,
                DataType::Uuid => 2951,
                DataType::Bytea => 1001,
                DataType::Json => 199,
                DataType::Jsonb => 3807,
                DataType::JsonPath => 4073,
                DataType::Time => 1183,
                DataType::TimeTz => 1270,
                DataType::Inet => 1041,
                DataType::Cidr => 651,
                DataType::MacAddr => 1040,
                DataType::MacAddr8 => 775,
                DataType::Range(k) => k.array_oid(),
                DataType::TsVector => 3643,
                DataType::TsQuery => 3645,
                // A user-defined type's array type is the oid after its own.
                DataType::Enum(oid) => oid + 1,
                _ => 2277,
            },
            DataType::Record => 2249,
            DataType::Enum(oid) => oid,
            DataType::Range(k) => k.oid(),
            DataType::TsVector => 3614,
            DataType::TsQuery => 3615,
            DataType::RegConfig => 3734,
            DataType::RegDictionary => 3769,
        }
    }

    pub fn from_oid(oid: u32) -> Option<DataType> {
        Some(match oid {
            16 => DataType::Bool,
            21 => DataType::Int2,
            23 => DataType::Int4,
            20 => DataType::Int8,
            700 => DataType::Float4,
            701 => DataType::Float8,
            1700 => DataType::Numeric,
            25 => DataType::Text,
            1043 => DataType::Varchar,
            1042 => DataType::Bpchar,
            1082 => DataType::Date,
            1114 => DataType::Timestamp,
            1184 => DataType::Timestamptz,
            1186 => DataType::Interval,
            705 => DataType::Unknown,
            2249 => DataType::Record,
            26 => DataType::Oid,
            2205 => DataType::RegClass,
            2206 => DataType::RegType,
            24 => DataType::RegProc,
            2202 => DataType::RegProcedure,
            4089 => DataType::RegNamespace,
            4096 => DataType::RegRole,
            19 => DataType::Name,
            18 => DataType::Char,
            114 => DataType::Json,
            2950 => DataType::Uuid,
            17 => DataType::Bytea,
            3802 => DataType::Jsonb,
            4072 => DataType::JsonPath,
            1083 => DataType::Time,
            1266 => DataType::TimeTz,
            869 => DataType::Inet,
            650 => DataType::Cidr,
            829 => DataType::MacAddr,
            774 => DataType::MacAddr8,
            3904 => DataType::Range(range::RangeKind::Int4),
            3926 => DataType::Range(range::RangeKind::Int8),
            3906 => DataType::Range(range::RangeKind::Num),
            3912 => DataType::Range(range::RangeKind::Date),
            3908 => DataType::Range(range::RangeKind::Ts),
            3910 => DataType::Range(range::RangeKind::Tstz),
            3614 => DataType::TsVector,
            3615 => DataType::TsQuery,
            3734 => DataType::RegConfig,
            3769 => DataType::RegDictionary,
            _ => {
                let elem = ARRAY_ELEMS
                    .into_iter()
                    .find(|e| DataType::array_of(*e).is_some_and(|a| a.oid() == oid))?;
                return DataType::array_of(elem);
            }
        })
    }

    /// `typlen` as RowDescription reports it.
    pub fn type_len(self) -> i16 {
        match self {
            DataType::Bool => 1,
            DataType::Int2 => 2,
            DataType::Int4 | DataType::Float4 | DataType::Date => 4,
            DataType::Oid
            | DataType::RegClass
            | DataType::RegType
            | DataType::RegProc
            | DataType::RegProcedure
            | DataType::RegNamespace
            | DataType::RegRole
            | DataType::RegConfig
            | DataType::RegDictionary => 4,
            DataType::Name => 64,
            DataType::Char => 1,
            DataType::Json | DataType::Bytea | DataType::Jsonb | DataType::JsonPath => -1,
            DataType::Uuid => 16,
            DataType::Time => 8,
            DataType::TimeTz => 12,
            DataType::Inet | DataType::Cidr => -1,
            DataType::MacAddr => 6,
            DataType::MacAddr8 => 8,
            DataType::Enum(_) => 4,
            DataType::Range(_) | DataType::TsVector | DataType::TsQuery => -1,
            DataType::Int8 | DataType::Float8 | DataType::Timestamp | DataType::Timestamptz => 8,
            DataType::Interval => 16,
            DataType::Numeric
            | DataType::Text
            | DataType::Varchar
            | DataType::Bpchar
            | DataType::Array(_)
            | DataType::Record => -1,
            DataType::Unknown => -2,
        }
    }

    /// The name `pg_typeof` prints.
    pub fn name(self) -> &'static str {
        match self {
            DataType::Bool => "boolean",
            DataType::Int2 => "smallint",
            DataType::Int4 => "integer",
            DataType::Int8 => "bigint",
            DataType::Float4 => "real",
            DataType::Float8 => "double precision",
            DataType::Numeric => "numeric",
            DataType::Text => "text",
            DataType::Varchar => "character varying",
            DataType::Bpchar => "character",
            DataType::Date => "date",
            DataType::Timestamp => "timestamp without time zone",
            DataType::Timestamptz => "timestamp with time zone",
            DataType::Interval => "interval",
            DataType::Unknown => "unknown",
            DataType::Oid => "oid",
            DataType::RegClass => "regclass",
            DataType::RegType => "regtype",
            DataType::RegProc => "regproc",
            DataType::RegProcedure => "regprocedure",
            DataType::RegNamespace => "regnamespace",
            DataType::RegRole => "regrole",
            DataType::RegConfig => "regconfig",
            DataType::RegDictionary => "regdictionary",
            DataType::TsVector => "tsvector",
            DataType::TsQuery => "tsquery",
            DataType::Name => "name",
            DataType::Char => "\"char\"",
            DataType::Json => "json",
            DataType::Uuid => "uuid",
            DataType::Bytea => "bytea",
            DataType::Jsonb => "jsonb",
            DataType::JsonPath => "jsonpath",
            DataType::Time => "time without time zone",
            DataType::TimeTz => "time with time zone",
            DataType::Inet => "inet",
            DataType::Cidr => "cidr",
            DataType::MacAddr => "macaddr",
            DataType::MacAddr8 => "macaddr8",
            DataType::Array(elem) => match *elem {
                DataType::Bool => "boolean[]",
                DataType::Int2 => "smallint[]",
                DataType::Int4 => "integer[]",
                DataType::Int8 => "bigint[]",
                DataType::Float4 => "real[]",
                DataType::Float8 => "double precision[]",
                DataType::Numeric => "numeric[]",
                DataType::Text => "text[]",
                DataType::Varchar => "character varying[]",
                DataType::Bpchar => "character[]",
                DataType::Date => "date[]",
                DataType::Timestamp => "timestamp without time zone[]",
                DataType::Timestamptz => "timestamp with time zone[]",
                DataType::Interval => "interval[]",
                DataType::Record => "record[]",
                DataType::Oid => "oid[]",
                DataType::Name => "name[]",
                DataType::Char => "\"char\"[]",
                DataType::Uuid => "uuid[]",
                DataType::Bytea => "bytea[]",
                DataType::Json => "json[]",
                DataType::Jsonb => "jsonb[]",
                DataType::JsonPath => "jsonpath[]",
                DataType::Time => "time without time zone[]",
                DataType::TimeTz => "time with time zone[]",
                DataType::Inet => "inet[]",
                DataType::Cidr => "cidr[]",
                DataType::MacAddr => "macaddr[]",
                DataType::MacAddr8 => "macaddr8[]",
                DataType::Range(range::RangeKind::Int4) => "int4range[]",
                DataType::Range(range::RangeKind::Int8) => "int8range[]",
                DataType::Range(range::RangeKind::Num) => "numrange[]",
                DataType::Range(range::RangeKind::Date) => "daterange[]",
                DataType::Range(range::RangeKind::Ts) => "tsrange[]",
                DataType::Range(range::RangeKind::Tstz) => "tstzrange[]",
                DataType::TsVector => "tsvector[]",
                DataType::TsQuery => "tsquery[]",
                _ => "anyarray",
            },
            DataType::Record => "record",
            DataType::Enum(oid) => crate::catalog::types::enum_static_name(oid),
            DataType::Range(k) => k.name(),
        }
    }

    /// Types kept as raw bytes in a text vector whose text form is not those bytes
    /// (uuid, bytea, the network types): output and text casts must convert them.
    pub fn is_raw_bytes(self) -> bool {
        matches!(
            self,
            DataType::Uuid
                | DataType::Bytea
                | DataType::Inet
                | DataType::Cidr
                | DataType::MacAddr
                | DataType::MacAddr8
                | DataType::Range(_)
                | DataType::TsVector
                | DataType::TsQuery
        )
    }

    /// The array type of an element type (None for arrays and `unknown`: PostgreSQL has
    /// no arrays of arrays, and an untyped array must take a type from context).
    pub fn array_of(elem: DataType) -> Option<DataType> {
        if let DataType::Enum(oid) = elem {
            enum_elem(oid)?;
            return Some(DataType::Array(ArrayElem(oid)));
        }
        let at = ARRAY_ELEMS.iter().position(|e| *e == elem)?;
        Some(DataType::Array(ArrayElem(at as u32)))
    }

    /// The element type of an array type.
    pub fn elem(self) -> Option<DataType> {
        match self {
            DataType::Array(e) => Some(*e),
            _ => None,
        }
    }

    pub fn is_array(self) -> bool {
        matches!(self, DataType::Array(_))
    }

    pub fn is_string(self) -> bool {
        matches!(
            self,
            DataType::Text
                | DataType::Varchar
                | DataType::Bpchar
                | DataType::Unknown
                | DataType::Name
                | DataType::Char
        )
    }

    /// `oid` and its aliases (regclass, regtype, …): object identifiers.
    pub fn is_oid(self) -> bool {
        matches!(
            self,
            DataType::Oid
                | DataType::RegClass
                | DataType::RegType
                | DataType::RegProc
                | DataType::RegProcedure
                | DataType::RegNamespace
                | DataType::RegRole
                | DataType::RegConfig
                | DataType::RegDictionary
        )
    }

    /// An oid alias whose text form is a catalog object's name.
    pub fn is_reg(self) -> bool {
        self.is_oid() && self != DataType::Oid
    }

    pub fn is_integer(self) -> bool {
        matches!(self, DataType::Int2 | DataType::Int4 | DataType::Int8)
    }

    /// Rank within PostgreSQL's numeric category, for picking the common type of an
    /// arithmetic or comparison between two numbers.
    pub fn numeric_rank(self) -> Option<u8> {
        match self {
            DataType::Int2 => Some(1),
            DataType::Int4 => Some(2),
            DataType::Int8 => Some(3),
            DataType::Numeric => Some(4),
            DataType::Float4 => Some(5),
            DataType::Float8 => Some(6),
            _ => None,
        }
    }
}

/// Resolves a type name as written in SQL (`int`, `varchar(10)`, `numeric(10,2)`).
pub fn type_from_ast(dt: &sqlparser::ast::DataType) -> Result<SqlType> {
    use sqlparser::ast::DataType as A;
    use sqlparser::ast::{CharacterLength, ExactNumberInfo, TimezoneInfo};
    let char_len = |len: &Option<CharacterLength>, default: i32| -> Result<i32> {
        match len {
            None => Ok(default),
            Some(CharacterLength::IntegerLength { length, .. }) => {
                if *length == 0 || *length > 10_485_760 {
                    return Err(Error::syntax(
                        "length for type varchar cannot exceed 10485760".to_string(),
                    ));
                }
                Ok(*length as i32 + 4)
            }
            Some(CharacterLength::Max) => Err(Error::syntax("syntax error at or near \"max\"")),
        }
    };
    let numeric = |info: &ExactNumberInfo| -> Result<SqlType> {
        match info {
            ExactNumberInfo::None => Ok(SqlType::new(DataType::Numeric)),
            ExactNumberInfo::Precision(p) => numeric_with(*p as i64, 0),
            ExactNumberInfo::PrecisionAndScale(p, s) => numeric_with(*p as i64, *s),
        }
    };
    Ok(match dt {
        A::Bool | A::Boolean => SqlType::new(DataType::Bool),
        A::SmallInt(_) | A::Int2(_) => SqlType::new(DataType::Int2),
        A::Int(_) | A::Integer(_) | A::Int4(_) => SqlType::new(DataType::Int4),
        A::BigInt(_) | A::Int8(_) => SqlType::new(DataType::Int8),
        A::Real | A::Float4 => SqlType::new(DataType::Float4),
        A::DoublePrecision | A::Float8 | A::Double(ExactNumberInfo::None) => {
            SqlType::new(DataType::Float8)
        }
        A::Float(info) => match info {
            ExactNumberInfo::Precision(p) if *p >= 1 && *p <= 24 => SqlType::new(DataType::Float4),
            ExactNumberInfo::Precision(p) if *p >= 25 && *p <= 53 => SqlType::new(DataType::Float8),
            ExactNumberInfo::None => SqlType::new(DataType::Float8),
            _ => {
                return Err(Error::invalid_parameter(
                    "precision for type float must be between 1 and 53 bits",
                ));
            }
        },
        A::Numeric(info) | A::Decimal(info) | A::Dec(info) => numeric(info)?,
        A::Text => SqlType::new(DataType::Text),
        A::JSON => SqlType::new(DataType::Json),
        A::Uuid => SqlType::new(DataType::Uuid),
        A::TsVector => SqlType::new(DataType::TsVector),
        A::TsQuery => SqlType::new(DataType::TsQuery),
        A::Bytea => SqlType::new(DataType::Bytea),
        A::JSONB => SqlType::new(DataType::Jsonb),
        A::Regclass => SqlType::new(DataType::RegClass),
        A::Varchar(len) | A::CharacterVarying(len) | A::CharVarying(len) => {
            SqlType::with_typmod(DataType::Varchar, char_len(len, -1)?)
        }
        A::Char(len) | A::Character(len) => {
            SqlType::with_typmod(DataType::Bpchar, char_len(len, 5)?)
        }
        A::Date => SqlType::new(DataType::Date),
        A::Timestamp(p, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            SqlType::with_typmod(DataType::Timestamp, seconds_precision(*p))
        }
        A::Timestamp(p, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            SqlType::with_typmod(DataType::Timestamptz, seconds_precision(*p))
        }
        A::Time(p, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            SqlType::with_typmod(DataType::Time, seconds_precision(*p))
        }
        A::Time(p, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            SqlType::with_typmod(DataType::TimeTz, seconds_precision(*p))
        }
        A::Interval {
            fields: Some(f),
            precision,
        } => SqlType::with_typmod(
            DataType::Interval,
            interval_qualified_typmod(interval_fields_range(f), *precision),
        ),
        A::Interval {
            fields: None,
            precision,
        } => SqlType::with_typmod(DataType::Interval, interval_typmod(*precision)),
        A::Custom(name, mods) => {
            let n = name.to_string().to_ascii_lowercase();
            let n = n.trim_start_matches("pg_catalog.").trim_matches('"');
            match (n, mods.len()) {
                ("int2", 0) => SqlType::new(DataType::Int2),
                ("int4", 0) => SqlType::new(DataType::Int4),
                ("int8", 0) => SqlType::new(DataType::Int8),
                ("float4", 0) => SqlType::new(DataType::Float4),
                ("float8", 0) => SqlType::new(DataType::Float8),
                ("bool", 0) => SqlType::new(DataType::Bool),
                ("text", 0) => SqlType::new(DataType::Text),
                ("bpchar", 0) => SqlType::new(DataType::Bpchar),
                ("varchar", 0) => SqlType::new(DataType::Varchar),
                ("timestamptz", 0) => SqlType::new(DataType::Timestamptz),
                ("oid", 0) => SqlType::new(DataType::Oid),
                ("regclass", 0) => SqlType::new(DataType::RegClass),
                ("regtype", 0) => SqlType::new(DataType::RegType),
                ("regproc", 0) => SqlType::new(DataType::RegProc),
                ("regprocedure", 0) => SqlType::new(DataType::RegProcedure),
                ("regnamespace", 0) => SqlType::new(DataType::RegNamespace),
                ("regconfig", 0) => SqlType::new(DataType::RegConfig),
                ("regdictionary", 0) => SqlType::new(DataType::RegDictionary),
                ("tsvector", 0) => SqlType::new(DataType::TsVector),
                ("tsquery", 0) => SqlType::new(DataType::TsQuery),
                ("regrole", 0) => SqlType::new(DataType::RegRole),
                ("name", 0) => SqlType::new(DataType::Name),
                ("char", 0) => SqlType::new(DataType::Char),
                ("json", 0) => SqlType::new(DataType::Json),
                ("uuid", 0) => SqlType::new(DataType::Uuid),
                ("bytea", 0) => SqlType::new(DataType::Bytea),
                ("jsonb", 0) => SqlType::new(DataType::Jsonb),
                ("jsonpath", 0) => SqlType::new(DataType::JsonPath),
                ("time", 0) => SqlType::new(DataType::Time),
                ("timetz", 0) => SqlType::new(DataType::TimeTz),
                ("inet", 0) => SqlType::new(DataType::Inet),
                ("cidr", 0) => SqlType::new(DataType::Cidr),
                ("macaddr", 0) => SqlType::new(DataType::MacAddr),
                ("macaddr8", 0) => SqlType::new(DataType::MacAddr8),
                (name, 0) if range::RangeKind::named(name).is_some() => {
                    SqlType::new(DataType::Range(
                        range::RangeKind::named(name).unwrap_or(range::RangeKind::Int4),
                    ))
                }
                // The array types' own names: _int4, _text, …
                (array, 0) if array.starts_with('_') => {
                    let elem = match &array[1..] {
                        "bool" => DataType::Bool,
                        "int2" => DataType::Int2,
                        "int4" => DataType::Int4,
                        "int8" => DataType::Int8,
                        "float4" => DataType::Float4,
                        "float8" => DataType::Float8,
                        "numeric" => DataType::Numeric,
                        "text" => DataType::Text,
                        "varchar" => DataType::Varchar,
                        "bpchar" => DataType::Bpchar,
                        "date" => DataType::Date,
                        "timestamp" => DataType::Timestamp,
                        "timestamptz" => DataType::Timestamptz,
                        "interval" => DataType::Interval,
                        "oid" => DataType::Oid,
                        "name" => DataType::Name,
                        "char" => DataType::Char,
                        "uuid" => DataType::Uuid,
                        "bytea" => DataType::Bytea,
                        "json" => DataType::Json,
                        "jsonb" => DataType::Jsonb,
                        "jsonpath" => DataType::JsonPath,
                        "time" => DataType::Time,
                        "timetz" => DataType::TimeTz,
                        "inet" => DataType::Inet,
                        "tsvector" => DataType::TsVector,
                        "tsquery" => DataType::TsQuery,
                        "cidr" => DataType::Cidr,
                        "macaddr" => DataType::MacAddr,
                        "macaddr8" => DataType::MacAddr8,
                        r if range::RangeKind::named(r).is_some() => DataType::Range(
                            range::RangeKind::named(r).unwrap_or(range::RangeKind::Int4),
                        ),
                        _ => {
                            return Err(Error::undefined_object(format!(
                                "type \"{n}\" does not exist"
                            )));
                        }
                    };
                    SqlType::new(DataType::array_of(elem).unwrap_or(DataType::Unknown))
                }
                ("timestamptz" | "timestamp" | "time" | "timetz", 1) => {
                    let ty = match n {
                        "timestamp" => DataType::Timestamp,
                        "time" => DataType::Time,
                        "timetz" => DataType::TimeTz,
                        _ => DataType::Timestamptz,
                    };
                    let p: u64 = mods[0].trim().parse().map_err(|_| {
                        Error::syntax(format!("invalid type modifier \"{}\"", mods[0]))
                    })?;
                    SqlType::with_typmod(ty, seconds_precision(Some(p)))
                }
                (
                    "int4multirange" | "int8multirange" | "nummultirange" | "datemultirange"
                    | "tsmultirange" | "tstzmultirange",
                    _,
                ) => {
                    return Err(Error::feature_not_supported("multirange types"));
                }
                ("serial" | "bigserial" | "smallserial", _) => {
                    return Err(Error::feature_not_supported(format!("type {n}")));
                }
                _ => {
                    return Err(Error::undefined_object(format!(
                        "type \"{n}\" does not exist"
                    )));
                }
            }
        }
        A::Array(def) => {
            use sqlparser::ast::ArrayElemTypeDef as D;
            let inner = match def {
                D::SquareBracket(inner, _) | D::Qualified(inner, _) => inner,
                _ => return Err(Error::syntax("syntax error at or near \"ARRAY\"")),
            };
            let elem = type_from_ast(inner)?;
            // int[][] is int[]: PostgreSQL does not enforce dimensions.
            if elem.ty.is_array() {
                return Ok(elem);
            }
            let Some(ty) = DataType::array_of(elem.ty) else {
                return Err(Error::feature_not_supported(format!(
                    "arrays of type {}",
                    elem.display_name()
                )));
            };
            SqlType::with_typmod(ty, elem.typmod)
        }
        other => {
            return Err(Error::undefined_object(format!(
                "type \"{}\" does not exist",
                other.to_string().to_lowercase()
            )));
        }
    })
}

fn numeric_with(precision: i64, scale: i64) -> Result<SqlType> {
    if !(1..=1000).contains(&precision) {
        return Err(Error::invalid_parameter(format!(
            "NUMERIC precision {precision} must be between 1 and 1000"
        )));
    }
    if !(-1000..=1000).contains(&scale) {
        return Err(Error::invalid_parameter(format!(
            "NUMERIC scale {scale} must be between -1000 and 1000"
        )));
    }
    if scale < 0 {
        return Err(Error::feature_not_supported("negative NUMERIC scale"));
    }
    Ok(SqlType::with_typmod(
        DataType::Numeric,
        numeric_typmod(precision as i32, scale as i32),
    ))
}
