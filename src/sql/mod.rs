//! SQL front end: parsing (sqlparser, PostgreSQL dialect) and binding.
//!
//! The binder ([`binder`]) resolves names against the catalog, types every expression
//! with PostgreSQL's rules (operator resolution, implicit casts, unknown literals taking
//! the type their context asks for, parameter type inference) and produces a
//! [`plan::BoundStatement`](crate::plan::BoundStatement) whose expressions are
//! [`expr::Expr`]s.

pub mod binder;
pub mod copy_syntax;
pub mod expr;
pub mod functions;
pub mod nonstandard_strings;
pub mod parse;
pub mod pg_functions;
pub mod sequence_syntax;
