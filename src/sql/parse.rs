//! Parsing SQL text into sqlparser statements, with PostgreSQL's syntax error shape.

use sqlparser::ast::Statement;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::{Parser, ParserError};

use crate::error::{Error, Result};

/// Nesting depth the parser accepts before answering `54001`.
pub const PARSER_DEPTH_MAX: usize = 200;

/// Whether the text holds no statement at all (only spaces, semicolons and comments).
pub fn is_empty_query(sql: &str) -> bool {
    let mut rest = sql;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ';');
        if let Some(r) = rest.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, after)| after);
        } else {
            return rest.is_empty();
        }
    }
}

pub fn parse(sql: &str) -> Result<Vec<Statement>> {
    let dialect = PostgreSqlDialect {};
    let parser = Parser::new(&dialect).with_recursion_limit(PARSER_DEPTH_MAX);
    let statements = parser
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| syntax_error(sql, e))?;
    Ok(statements)
}

/// Turns sqlparser's "Expected: X, found: Y at Line: L, Column: C" into PostgreSQL's
/// `syntax error at or near "Y"` with a character position.
fn syntax_error(sql: &str, err: ParserError) -> Error {
    let text = match err {
        ParserError::RecursionLimitExceeded => {
            return Error::new("54001", "stack depth limit exceeded")
                .with_hint("Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.");
        }
        ParserError::TokenizerError(t) | ParserError::ParserError(t) => t,
    };
    let position = text.rfind(" at Line: ").and_then(|at| {
        let loc = &text[at + " at Line: ".len()..];
        let (line, col) = loc.split_once(", Column: ")?;
        let line: usize = line.trim().parse().ok()?;
        let col: usize = col.trim().parse().ok()?;
        char_position(sql, line, col)
    });
    let found = text
        .find("found: ")
        .map(|i| &text[i + "found: ".len()..])
        .map(|f| f.rsplit_once(" at Line: ").map_or(f, |(tok, _)| tok));
    let mut error = match found {
        Some("EOF") => Error::syntax("syntax error at end of input"),
        Some(tok) => Error::syntax(format!("syntax error at or near \"{}\"", tok.trim_matches('"'))),
        None if text.contains("Unterminated string literal") => {
            Error::syntax(format!("unterminated quoted string at or near \"{}\"", tail_from(sql, position)))
        }
        None => Error::syntax(format!("syntax error: {text}")),
    };
    if found == Some("EOF") {
        error = error.with_position(sql.chars().count() as u32 + 1);
    } else if let Some(p) = position {
        error = error.with_position(p);
    }
    error
}

fn tail_from(sql: &str, position: Option<u32>) -> String {
    let start = position.unwrap_or(1).saturating_sub(1) as usize;
    sql.chars().skip(start).collect()
}

/// 1-based character offset of (line, column), both 1-based.
pub fn char_position(sql: &str, line: usize, col: usize) -> Option<u32> {
    if line == 0 || col == 0 {
        return None;
    }
    let mut offset = 0usize;
    for (i, l) in sql.split('\n').enumerate() {
        if i + 1 == line {
            return Some((offset + col) as u32);
        }
        offset += l.chars().count() + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_look_like_postgres() {
        let e = parse("SELEC 1").unwrap_err();
        assert_eq!(e.code, "42601");
        assert_eq!(e.message, "syntax error at or near \"SELEC\"");
        assert_eq!(e.position, Some(1));
        let e = parse("SELECT 1 +").unwrap_err();
        assert_eq!(e.message, "syntax error at end of input");
    }

    #[test]
    fn empty_queries_are_recognised() {
        assert!(is_empty_query(" ; ;-- hi\n"));
        assert!(!is_empty_query("select 1"));
    }
}
