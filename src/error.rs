//! The one error type of kiln, shaped like PostgreSQL's ErrorResponse.
//!
//! Every failure that reaches a client carries a SQLSTATE, a message and, where known, a
//! detail, a hint and a cursor position (1-based, in characters, into the statement text).
//! Errors are built by small constructors named after the SQLSTATE class
//! (`Error::syntax`, `Error::undefined_table`, …) so call sites read like the condition.
//! `XX000` (`Error::internal`) is reserved for bugs: a panic caught at the session boundary
//! ends up there too.

use std::fmt;

/// A PostgreSQL error: SQLSTATE code plus human-readable parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: &'static str,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
    /// 1-based character offset into the statement text.
    pub position: Option<u32>,
    /// `FATAL` errors end the connection after being sent.
    pub fatal: bool,
    /// The object an integrity error is about (schema, table, column, constraint), the
    /// fields drivers read to tell which constraint failed.
    pub object: Option<Box<ErrorObject>>,
    /// Where the error happened (the `W` field: `COPY t, line 2, column b: "x"`).
    pub context: Option<Box<String>>,
}

/// The `s`, `t`, `c` and `n` fields of an ErrorResponse.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorObject {
    pub schema: Option<String>,
    pub table: Option<String>,
    pub column: Option<String>,
    pub constraint: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: &'static str, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
            fatal: false,
            object: None,
            context: None,
        }
    }
    /// Names the table (in schema `public`) and, if given, the column and constraint
    /// an integrity error is about.
    pub fn on_table(
        mut self,
        table: &str,
        column: Option<&str>,
        constraint: Option<&str>,
    ) -> Error {
        self.object = Some(Box::new(ErrorObject {
            schema: Some("public".into()),
            table: Some(table.into()),
            column: column.map(Into::into),
            constraint: constraint.map(Into::into),
        }));
        self
    }
    pub fn with_detail(mut self, detail: impl Into<String>) -> Error {
        self.detail = Some(detail.into());
        self
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Error {
        self.hint = Some(hint.into());
        self
    }
    pub fn with_context(mut self, context: impl Into<String>) -> Error {
        self.context = Some(Box::new(context.into()));
        self
    }
    /// Marks the error as one PostgreSQL reports without a position (none is guessed
    /// for it later).
    pub fn without_position(mut self) -> Error {
        self.position = Some(Error::NO_POSITION);
        self
    }
    /// The `position` of an error that has none on purpose.
    pub const NO_POSITION: u32 = u32::MAX;
    pub fn with_position(mut self, position: u32) -> Error {
        self.position = Some(position);
        self
    }
    pub fn into_fatal(mut self) -> Error {
        self.fatal = true;
        self
    }

    pub fn syntax(message: impl Into<String>) -> Error {
        Error::new("42601", message)
    }
    pub fn feature_not_supported(what: impl fmt::Display) -> Error {
        Error::new("0A000", format!("{what} is not supported"))
    }
    pub fn undefined_table(name: &str) -> Error {
        Error::new("42P01", format!("relation \"{name}\" does not exist"))
    }
    pub fn undefined_column(name: &str) -> Error {
        Error::new("42703", format!("column \"{name}\" does not exist"))
    }
    /// `42883` for a missing function or operator, with PostgreSQL's hint for each
    /// (a prefix operator's message starts with the operator: `- text`).
    pub fn undefined_function(message: impl Into<String>) -> Error {
        let message = message.into();
        let hint = match message.strip_prefix("operator does not exist: ") {
            Some(rest) if rest.starts_with(|c: char| !c.is_alphanumeric()) => {
                "No operator matches the given name and argument type. You might need to add an explicit type cast."
            }
            Some(_) => {
                "No operator matches the given name and argument types. You might need to add explicit type casts."
            }
            None => {
                "No function matches the given name and argument types. You might need to add explicit type casts."
            }
        };
        Error::new("42883", message).with_hint(hint)
    }
    pub fn undefined_object(message: impl Into<String>) -> Error {
        Error::new("42704", message)
    }
    pub fn duplicate_table(name: &str) -> Error {
        Error::new("42P07", format!("relation \"{name}\" already exists"))
    }
    pub fn ambiguous_column(name: &str) -> Error {
        Error::new("42702", format!("column reference \"{name}\" is ambiguous"))
    }
    pub fn datatype_mismatch(message: impl Into<String>) -> Error {
        Error::new("42804", message)
    }
    pub fn grouping(message: impl Into<String>) -> Error {
        Error::new("42803", message)
    }
    pub fn invalid_parameter(message: impl Into<String>) -> Error {
        Error::new("22023", message)
    }
    pub fn invalid_text(type_name: &str, input: &str) -> Error {
        Error::new(
            "22P02",
            format!("invalid input syntax for type {type_name}: \"{input}\""),
        )
    }
    pub fn invalid_datetime(type_name: &str, input: &str) -> Error {
        Error::new(
            "22007",
            format!("invalid input syntax for type {type_name}: \"{input}\""),
        )
    }
    pub fn datetime_overflow(message: impl Into<String>) -> Error {
        Error::new("22008", message)
    }
    pub fn numeric_out_of_range(message: impl Into<String>) -> Error {
        Error::new("22003", message)
    }
    pub fn division_by_zero() -> Error {
        Error::new("22012", "division by zero")
    }
    pub fn string_too_long(message: impl Into<String>) -> Error {
        Error::new("22001", message)
    }
    pub fn not_null_violation(column: &str, table: &str) -> Error {
        Error::new(
            "23502",
            format!(
                "null value in column \"{column}\" of relation \"{table}\" violates not-null constraint"
            ),
        )
        .on_table(table, Some(column), None)
    }
    /// `23505`; the detail names the key (`Key (id)=(1) already exists.`).
    pub fn unique_violation(constraint: &str, table: &str, key: &str) -> Error {
        Error::new(
            "23505",
            format!("duplicate key value violates unique constraint \"{constraint}\""),
        )
        .with_detail(format!("Key {key} already exists."))
        .on_table(table, None, Some(constraint))
    }
    /// `23514` for a row that fails CHECK constraint `constraint`.
    pub fn check_violation(constraint: &str, table: &str, row: &str) -> Error {
        Error::new(
            "23514",
            format!("new row for relation \"{table}\" violates check constraint \"{constraint}\""),
        )
        .with_detail(format!("Failing row contains {row}."))
        .on_table(table, None, Some(constraint))
    }
    pub fn invalid_utf8() -> Error {
        Error::new("22021", "invalid byte sequence for encoding \"UTF8\"")
    }
    pub fn program_limit(message: impl Into<String>) -> Error {
        Error::new("54000", message)
    }
    pub fn protocol_violation(message: impl Into<String>) -> Error {
        Error::new("08P01", message)
    }
    pub fn in_failed_transaction() -> Error {
        Error::new(
            "25P02",
            "current transaction is aborted, commands ignored until end of transaction block",
        )
    }
    pub fn query_canceled() -> Error {
        Error::new("57014", "canceling statement due to user request")
    }
    pub fn statement_timeout() -> Error {
        Error::new("57014", "canceling statement due to statement timeout")
    }
    pub fn lock_timeout() -> Error {
        Error::new("55P03", "canceling statement due to lock timeout")
    }
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new("XX000", message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}
