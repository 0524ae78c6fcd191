//! CREATE SEQUENCE, and the sequences SERIAL and identity columns make.
//!
//! A `serial` column is an integer column whose DEFAULT draws from a sequence named
//! `table_column_seq` that the column owns (dropped with the table); `GENERATED {ALWAYS
//! | BY DEFAULT} AS IDENTITY` is the same with the sequence's options written in the
//! column, and ALWAYS refuses explicit values (428C9). The default is an ordinary
//! bound expression, `nextval('name')` cast to the column's type.
//!
//! ALTER SEQUENCE, which sqlparser does not read, arrives as the rest of its text
//! (`sql::parse` turns it into a kiln setting); its options are CREATE SEQUENCE's but
//! RESTART, so RESTART is taken out and the rest parsed as a CREATE SEQUENCE would be.

use super::*;
use crate::catalog::sequence::{SequenceOptions, SequenceSpec};
use crate::sql::expr::Func;

/// A sequence CREATE TABLE makes for one of its columns.
#[derive(Clone, Debug)]
pub struct NewSequence {
    pub name: String,
    pub options: SequenceOptions,
    pub column: String,
    /// What the column's default names it by until it exists
    /// ([`crate::sql::expr::Expr::set_sequence_oid`]).
    pub placeholder: String,
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
    /// An identity column's call carries a second argument, `true`: it draws without
    /// the USAGE privilege on the sequence (PostgreSQL checks none for identity).
    pub(super) fn nextval_default(
        &mut self,
        ns: u32,
        sequence: &str,
        column: &ColumnDef,
    ) -> Result<(Expr, String)> {
        // The name qualified by its schema, as a placeholder: when the statement runs
        // and the sequence exists, its oid takes the placeholder's place.
        let schema = match ns {
            super::schemas::TEMP_NAMESPACE => "pg_temp".to_string(),
            _ => self
                .catalog
                .namespace_by_oid(ns, &self.snapshot)
                .map_or_else(|| "public".to_string(), |n| n.name.clone()),
        };
        let placeholder = format!(
            "{}.{}",
            crate::catalog::system::quote_ident(&schema),
            crate::catalog::system::quote_ident(sequence)
        );
        let mut args = vec![Expr::Literal {
            value: Value::Text(placeholder.clone()),
            ty: TEXT,
        }];
        if column.identity.is_some() {
            args.push(Expr::Literal {
                value: Value::Bool(true),
                ty: SqlType::new(DataType::Bool),
            });
        }
        let call = Expr::Func {
            func: Func::NextVal,
            args,
            ty: INT8,
        };
        Ok((self.coerce_column(call, column)?, placeholder))
    }

    /// A free name for the sequence of `table.column`, not among `taken`.
    pub(super) fn serial_sequence_name(
        &self,
        table: &crate::catalog::RelName,
        column: &str,
        taken: &[NewSequence],
    ) -> String {
        let catalog = self.catalog;
        let snapshot = &self.snapshot;
        super::constraints::first_free(&table.name, column, "seq", &|n| {
            taken.iter().any(|s| s.name == n) || catalog.relation_exists(table.ns, n, snapshot)
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
        if owned_by.is_some() {
            return Err(Error::feature_not_supported("OWNED BY"));
        }
        let name = self.creation_name(name, temporary)?;
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

/// Whether token `t` is the unquoted keyword `w`.
fn is_word(t: &sqlparser::tokenizer::Token, w: &str) -> bool {
    matches!(t, sqlparser::tokenizer::Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

impl Binder<'_> {
    /// `ALTER SEQUENCE [IF EXISTS] name option…`, given what follows `SEQUENCE`.
    pub(super) fn bind_alter_sequence(&mut self, rest: &str) -> Result<BoundStatement> {
        use sqlparser::tokenizer::{Token, Tokenizer};
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        let tokens = Tokenizer::new(&dialect, rest)
            .tokenize()
            .map_err(|e| Error::syntax(e.to_string()))?;
        let sig: Vec<&Token> = tokens
            .iter()
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect();
        if let Some(owner) = self.sequence_owner_to(rest)? {
            return Ok(owner);
        }
        if let Some(rename) = self.sequence_rename(rest)? {
            return Ok(rename);
        }
        let mut n = 0;
        let if_exists = sig.len() >= 2 && is_word(sig[0], "IF") && is_word(sig[1], "EXISTS");
        if if_exists {
            n = 2;
        }
        for t in &sig[n..] {
            for w in ["RENAME", "OWNER", "SET", "SEQUENCE", "LOGGED", "UNLOGGED"] {
                if is_word(t, w) {
                    return Err(Error::feature_not_supported(format!(
                        "ALTER SEQUENCE … {w}"
                    )));
                }
            }
        }
        // The text again without IF EXISTS and RESTART [[WITH] n].
        let mut kept = String::new();
        let mut restart: Option<Option<i64>> = None;
        let mut options = 0;
        let mut i = n;
        while i < sig.len() {
            if is_word(sig[i], "RESTART") {
                i += 1;
                if sig.get(i).is_some_and(|t| is_word(t, "WITH")) {
                    i += 1;
                }
                let mut text = String::new();
                if let Some(Token::Minus | Token::Plus) = sig.get(i) {
                    text.push_str(&sig[i].to_string());
                    i += 1;
                }
                let value = match sig.get(i) {
                    Some(Token::Number(digits, _)) => {
                        text.push_str(digits);
                        i += 1;
                        Some(text.parse::<i64>().map_err(|_| {
                            Error::new(
                                "22003",
                                format!("value \"{text}\" is out of range for type bigint"),
                            )
                        })?)
                    }
                    _ if !text.is_empty() => {
                        return Err(Error::syntax(format!("syntax error at or near \"{text}\"")));
                    }
                    _ => None,
                };
                restart = Some(value);
                options += 1;
                continue;
            }
            if i > n && matches!(sig[i], Token::Word(_)) {
                options += 1;
            }
            kept.push_str(&sig[i].to_string());
            kept.push(' ');
            i += 1;
        }
        if options == 0 {
            return Err(Error::syntax("syntax error at end of input"));
        }
        let statements = crate::sql::parse::parse(&format!("CREATE SEQUENCE {kept}"))?;
        let [
            A::Statement::CreateSequence {
                name,
                data_type,
                sequence_options,
                owned_by,
                ..
            },
        ] = statements.as_slice()
        else {
            return Err(Error::syntax("syntax error in ALTER SEQUENCE"));
        };
        let owned_by = match owned_by {
            None => None,
            Some(o) => Some(self.sequence_owner(o)?),
        };
        let ty = match data_type {
            None => None,
            Some(t) => Some(type_from_ast(t)?.ty),
        };
        Ok(BoundStatement::AlterSequence {
            name: self.rel_name(name)?,
            if_exists,
            changes: sequence_spec(ty, sequence_options)?,
            restart,
            owned_by,
        })
    }

    /// OWNED BY's `table.column` (its table's oid and the column), or None for NONE.
    fn sequence_owner(&mut self, o: &A::ObjectName) -> Result<Option<(u32, String)>> {
        let parts: Vec<String> =
            o.0.iter()
                .map(|p| match p {
                    A::ObjectNamePart::Identifier(i) => Ok(ident_name(i)),
                    _ => Err(Error::syntax("syntax error in OWNED BY")),
                })
                .collect::<Result<_>>()?;
        if let [only] = parts.as_slice() {
            if only == "none" {
                return Ok(None);
            }
            return Err(Error::new("42601", "invalid OWNED BY option")
                .with_hint("Specify OWNED BY table.column or OWNED BY NONE."));
        }
        let (column, table) = parts.split_last().expect("two or more parts");
        let table = A::ObjectName(
            table
                .iter()
                .map(|t| A::ObjectNamePart::Identifier(A::Ident::with_quote('"', t.clone())))
                .collect(),
        );
        let table = self.table(&table)?;
        if table.column_index(column).is_none() {
            return Err(Error::new(
                "42703",
                format!(
                    "column \"{column}\" of relation \"{}\" does not exist",
                    table.name
                ),
            ));
        }
        Ok(Some((table.oid, column.clone())))
    }
}
