//! COPY: rows between a table (or a query) and the client, in PostgreSQL's text, csv
//! and binary formats.
//!
//! The statement is read by `sql::copy_syntax` (sqlparser's COPY misses PostgreSQL's
//! option forms) and bound by `sql::binder::copy`: COPY FROM becomes a target table,
//! its columns in data order and [`CopyOptions`]; COPY TO becomes a query plan (a
//! table's columns, or the statement's query). The formats live here:
//!
//! - [`input::CopyReader`] takes CopyData bytes as they come, finds record ends (text:
//!   backslash escapes; csv: quoted fields spanning lines; binary: length-prefixed
//!   tuples), and parses each field straight into its column vector. The session
//!   (`session::copy`) stores the rows a batch at a time through the INSERT path —
//!   defaults for omitted columns, generated columns, constraints, unique and foreign
//!   keys — so nothing of a COPY that fails stays: the statement's undo takes back every
//!   batch, as PostgreSQL's transaction does.
//! - [`output::CopyWriter`] writes one row per CopyData message (PostgreSQL's framing,
//!   which drivers rely on), the binary header with the first row.
//!
//! Design, after PostgreSQL's copyfromparse.c / copyto.c: the same grammar of options
//! and checks in the same order (so the same error comes first), the same escapes and
//! quoting rules, and the same CONTEXT lines. Unlike PostgreSQL, the input is parsed
//! into column vectors, not tuples, and stored 8,192 rows at a time.

pub mod input;
pub mod options;
pub mod output;

pub use options::{CopyOptions, Format};

/// Where a server-side COPY reads or writes (superusers only, as in PostgreSQL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerEnd {
    /// `'file'`: a file on the server.
    File(String),
    /// `PROGRAM 'command'`: a shell command's standard output (FROM) or input (TO).
    Program(String),
}
