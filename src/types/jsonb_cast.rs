//! Casts from jsonb: to json (its text), and a scalar to numeric, the integers, the
//! floats and boolean as PostgreSQL 11+ allows (`('1.5'::jsonb)::int` is 2); anything
//! else is 22023 "cannot cast jsonb string to type integer". (To text, every type goes
//! through its output function, in `cast::cast_value`.)

use super::jsonb::{self, Node};
use super::numeric::Numeric;
use super::{DataType, SqlType, Value};
use crate::error::{Error, Result};

pub fn from_jsonb(b: Vec<u8>, to: SqlType) -> Result<Value> {
    let node = jsonb::view(&b);
    let what = match node {
        Node::Null => "null",
        Node::Bool(_) => "boolean",
        Node::Number(_) => "numeric",
        Node::String(_) => "string",
        Node::Array(_) => "array",
        Node::Object(_) => "object",
    };
    let refuse = || {
        Error::new(
            "22023",
            format!("cannot cast jsonb {what} to type {}", to.ty.name()),
        )
    };
    match (to.ty, node) {
        (DataType::Jsonb, _) => Ok(Value::Jsonb(b)),
        (DataType::Json, _) => Ok(Value::Text(jsonb::to_text(&b))),
        (DataType::Bool, Node::Bool(v)) => Ok(Value::Bool(v)),
        (
            DataType::Numeric
            | DataType::Int2
            | DataType::Int4
            | DataType::Int8
            | DataType::Float4
            | DataType::Float8,
            Node::Number(n),
        ) => {
            let n = Numeric::parse(n)?;
            super::cast::cast_value(Value::Numeric(n), to, true, &Default::default())
        }
        _ => Err(refuse()),
    }
}
