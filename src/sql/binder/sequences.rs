//! CREATE SEQUENCE, and the sequences SERIAL and identity columns make.
//!
//! A `serial` column is an integer column whose DEFAULT draws from a sequence named
//! `table_column_seq` that the column owns (dropped with the table); `GENERATED {ALWAYS
//! | BY DEFAULT} AS IDENTITY` is the same with the sequence's options written in the
//! column, and ALWAYS refuses explicit values (428C9). The default is an ordinary
//! bound expression, `nextval('name')` cast to the column's type.

use super::*;
use crate::catalog::sequence::{SequenceOptions, SequenceSpec};
use crate::sql::expr::Func;

/// A sequence CREATE TABLE makes for one of its columns.
#[derive(Clone, Debug)]
pub struct NewSequence {
    pub name: String,
    pub options: SequenceOptions,
    pub column: String,
}

/// The integer type behind a SERIAL type name.
pub(super) fn serial_type(ty: &A::DataType) -> Option<DataType> {
    let A::DataType::Custom(name, mods) = ty else {
        return None;
    };
    if !mods.is_empty() {
        return None;
    }
    let [A::ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
        return None;
    };
    match id.value.to_lowercase().as_str() {
        "serial" | "serial4" => Some(DataType::Int4),
        "bigserial" | "serial8" => Some(DataType::Int8),
        "smallserial" | "serial2" => Some(DataType::Int2),
        _ => None,
    }
}

/// An integer option's value (a number, possibly negative).
fn option_int(e: &A::Expr) -> Result<i64> {
    let (negative, inner) = match e {
        A::Expr::UnaryOp {
            op: A::UnaryOperator::Minus,
            expr,
        } => (true, expr.as_ref()),
        A::Expr::UnaryOp {
            op: A::UnaryOperator::Plus,
            expr,
        } => (false, expr.as_ref()),
        other => (false, other),
    };
    let A::Expr::Value(v) = inner else {
        return Err(Error::syntax(format!("syntax error at or near \"{e}\"")));
    };
    let A::Value::Number(n, _) = &v.value else {
        return Err(Error::syntax(format!("syntax error at or near \"{e}\"")));
    };
    let text = if negative { format!("-{n}") } else { n.clone() };
    text.parse::<i64>().map_err(|_| {
        Error::new(
            "22003",
            format!("value \"{text}\" is out of range for type bigint"),
        )
    })
}

/// Sequence options as written.
pub(super) fn sequence_spec(
    ty: Option<DataType>,
    options: &[A::SequenceOptions],
) -> Result<SequenceSpec> {
    let mut spec = SequenceSpec {
        ty,
        ..Default::default()
    };
    for o in options {
        match o {
            A::SequenceOptions::IncrementBy(e, _) => spec.increment = Some(option_int(e)?),
            A::SequenceOptions::MinValue(e) => {
                spec.min = Some(e.as_ref().map(option_int).transpose()?)
            }
            A::SequenceOptions::MaxValue(e) => {
                spec.max = Some(e.as_ref().map(option_int).transpose()?)
            }
            A::SequenceOptions::StartWith(e, _) => spec.start = Some(option_int(e)?),
            A::SequenceOptions::Cache(e) => spec.cache = Some(option_int(e)?),
            A::SequenceOptions::Cycle(no) => spec.cycle = Some(!no),
        }
    }
    Ok(spec)
}

impl Binder<'_> {
    /// `nextval('name')` cast to `column`'s type: a SERIAL or identity column's default.
    pub(super) fn nextval_default(&mut self, sequence: &str, column: &ColumnDef) -> Result<Expr> {
        let call = Expr::Func {
            func: Func::NextVal,
            args: vec![Expr::Literal {
                value: Value::Text(sequence.to_string()),
                ty: TEXT,
            }],
            ty: INT8,
        };
        self.coerce_column(call, column)
    }

    /// A free name for the sequence of `table.column`, not among `taken`.
    pub(super) fn serial_sequence_name(
        &self,
        table: &str,
        column: &str,
        taken: &[NewSequence],
    ) -> String {
        let catalog = self.catalog;
        let snapshot = &self.snapshot;
        super::constraints::first_free(table, column, "seq", &|n| {
            taken.iter().any(|s| s.name == n) || catalog.relation_exists(n, snapshot)
        })
    }

    pub(super) fn bind_create_sequence(
        &mut self,
        name: &A::ObjectName,
        data_type: Option<&A::DataType>,
        options: &[A::SequenceOptions],
        if_not_exists: bool,
        temporary: bool,
        owned_by: Option<&A::ObjectName>,
    ) -> Result<BoundStatement> {
        if temporary {
            return Err(Error::feature_not_supported("temporary sequences"));
        }
        if owned_by.is_some() {
            return Err(Error::feature_not_supported("OWNED BY"));
        }
        let name = object_name(name)?;
        let ty = match data_type {
            None => None,
            Some(t) => Some(type_from_ast(t)?.ty),
        };
        let options = sequence_spec(ty, options)?.resolve()?;
        Ok(BoundStatement::CreateSequence {
            name,
            options,
            if_not_exists,
        })
    }
}
