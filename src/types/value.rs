//! A single SQL value: literals, parameters, and the edges of the executor.

use super::DataType;
use super::datetime::Interval;
use super::numeric::Numeric;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int2(i16),
    Int4(i32),
    Int8(i64),
    Float4(f32),
    Float8(f64),
    Numeric(Numeric),
    /// text, varchar and char(n) alike; char(n) values are stored padded.
    Text(String),
    Date(i32),
    Timestamp(i64),
    Timestamptz(i64),
    /// time: microseconds since midnight.
    Time(i64),
    /// timetz, packed (`datetime::pack_timetz`).
    TimeTz(i64),
    Interval(Interval),
    /// An array in its stored form (`types::array`).
    Array(Box<super::array::Array>),
    /// A record in its stored form (`types::record`).
    Record(Vec<u8>),
    /// A uuid's 16 bytes.
    Uuid([u8; 16]),
    /// A bytea's bytes.
    Bytes(Vec<u8>),
    /// A jsonb value in its binary form (`types::jsonb`).
    Jsonb(Vec<u8>),
    /// An inet, cidr, macaddr or macaddr8 in its stored form (`types::net`).

    /// A value kept as bytes in a text vector whose text form is not those bytes:
    /// the network types (`types::net`) and ranges (`types::range`), by their type.
    Raw(super::DataType, Vec<u8>),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The natural type of a value (strings report `text`).
    pub fn data_type(&self) -> DataType {
        match self {
            Value::Null => DataType::Unknown,
            Value::Bool(_) => DataType::Bool,
            Value::Int2(_) => DataType::Int2,
            Value::Int4(_) => DataType::Int4,
            Value::Int8(_) => DataType::Int8,
            Value::Float4(_) => DataType::Float4,
            Value::Float8(_) => DataType::Float8,
            Value::Numeric(_) => DataType::Numeric,
            Value::Text(_) => DataType::Text,
            Value::Date(_) => DataType::Date,
            Value::Timestamp(_) => DataType::Timestamp,
            Value::Timestamptz(_) => DataType::Timestamptz,
            Value::Time(_) => DataType::Time,
            Value::TimeTz(_) => DataType::TimeTz,
            Value::Interval(_) => DataType::Interval,
            Value::Array(a) => DataType::array_of(a.elem).unwrap_or(DataType::Unknown),
            Value::Record(_) => DataType::Record,
            Value::Uuid(_) => DataType::Uuid,
            Value::Bytes(_) => DataType::Bytea,
            Value::Jsonb(_) => DataType::Jsonb,
            Value::Raw(t, _) => *t,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int2(v) => Some(*v as i64),
            Value::Int4(v) => Some(*v as i64),
            Value::Int8(v) => Some(*v),
            _ => None,
        }
    }
}
