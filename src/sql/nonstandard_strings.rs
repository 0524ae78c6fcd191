//! `standard_conforming_strings = off`: backslashes in ordinary `'…'` literals are
//! escapes, as in `E'…'` (PostgreSQL's lexer switches its string state on the setting).
//!
//! sqlparser reads `'…'` the standard way only, so the text is rewritten before parsing:
//! every ordinary literal that holds a backslash becomes an `E'…'` literal. Where a
//! blank stands before the literal (and no word before the blank, which the `E` would
//! join), the blank becomes the `E`, so every later character keeps its position and
//! error positions stay PostgreSQL's; otherwise the `E` is inserted, and positions later
//! on that line are one character further than PostgreSQL's.
//!
//! With `escape_string_warning` on, each such literal warns once, at its first escape,
//! with PostgreSQL's 22P06 message and hint (`\\`, `\'` or any other escape).

use crate::error::Error;

/// What [`rewrite`] made of a statement text: the text to parse and the warnings to
/// send.
pub struct Rewritten {
    pub text: String,
    pub warnings: Vec<Error>,
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The warning for a literal at character position `position` whose first escape is
/// a backslash followed by `next`.
fn warning(next: u8, position: u32) -> Error {
    let (message, hint) = match next {
        b'\\' => (
            "nonstandard use of \\\\ in a string literal",
            "Use the escape string syntax for backslashes, e.g., E'\\\\'.",
        ),
        b'\'' => (
            "nonstandard use of \\' in a string literal",
            "Use '' to write quotes in strings, or use the escape string syntax (E'...').",
        ),
        _ => (
            "nonstandard use of escape in a string literal",
            "Use the escape string syntax for escapes, e.g., E'\\r\\n'.",
        ),
    };
    Error::new("22P06", message)
        .with_hint(hint)
        .with_position(position)
}

/// Finds the end of the quoted run starting at `b[start]` (a `'`), reading backslashes
/// as escapes when `escapes`; returns the index past the closing quote (or the text's
/// end) and the byte after the first backslash, if any.
fn quoted(b: &[u8], start: usize, escapes: bool) -> (usize, Option<u8>) {
    let mut i = start + 1;
    let mut first = None;
    while i < b.len() {
        match b[i] {
            b'\\' if escapes => {
                if first.is_none() {
                    first = Some(b.get(i + 1).copied().unwrap_or(b'\\'));
                }
                i += 2;
            }
            b'\'' if b.get(i + 1) == Some(&b'\'') => i += 2,
            b'\'' => return (i + 1, first),
            _ => i += 1,
        }
    }
    (b.len(), first)
}

/// The rewritten text, or None when no ordinary literal holds a backslash.
pub fn rewrite(sql: &str, warn: bool) -> Option<Rewritten> {
    let b = sql.as_bytes();
    // (byte offset of the literal's quote, its first escape's next byte)
    let mut literals: Vec<(usize, u8)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0usize;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'"' {
                        if b.get(i + 1) == Some(&b'"') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'$' if i == 0 || !is_ident(b[i - 1]) => {
                // $tag$ … $tag$ (a `$n` parameter has a digit first).
                let tag_end = b[i + 1..]
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80))
                    .map(|n| i + 1 + n);
                match tag_end {
                    Some(e) if b[e] == b'$' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                        let tag = &b[i..=e];
                        let body = e + 1;
                        i = b[body..]
                            .windows(tag.len())
                            .position(|w| w == tag)
                            .map_or(b.len(), |n| body + n + tag.len());
                    }
                    _ => i += 1,
                }
            }
            b'\'' => {
                // What stands right before the quote decides the literal's kind: E'…'
                // escapes anyway, U&'…', B'…' and X'…' know no backslashes.
                let word_start = (0..i).rev().take_while(|&k| is_ident(b[k])).last();
                let prefix = word_start.map_or(&b[i..i], |s| &b[s..i]);
                let (escaped, standard) = match prefix {
                    [p] if p.eq_ignore_ascii_case(&b'e') => (true, false),
                    [p] if matches!(p.to_ascii_lowercase(), b'b' | b'x') => (false, true),
                    _ if i >= 2 && b[i - 2..i].eq_ignore_ascii_case(b"u&") => (false, true),
                    // N'…' (national) is left as written.
                    [p] if p.eq_ignore_ascii_case(&b'n') => (false, true),
                    _ => (false, false),
                };
                let (end, first) = quoted(b, i, !standard);
                if !escaped
                    && !standard
                    && let Some(next) = first
                {
                    literals.push((i, next));
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    if literals.is_empty() {
        return None;
    }
    let mut text = String::with_capacity(sql.len() + literals.len());
    let mut warnings = Vec::new();
    let mut copied = 0;
    for &(at, next) in &literals {
        if warn {
            let position = sql[..at].chars().count() as u32 + 1;
            warnings.push(warning(next, position));
        }
        let blank_before =
            at >= 1 && matches!(b[at - 1], b' ' | b'\t') && (at < 2 || !is_ident(b[at - 2]));
        if blank_before {
            text.push_str(&sql[copied..at - 1]);
            text.push('E');
        } else {
            text.push_str(&sql[copied..at]);
            text.push('E');
        }
        copied = at;
    }
    text.push_str(&sql[copied..]);
    Some(Rewritten { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_literals_with_backslashes_become_escape_strings() {
        let r = rewrite("SELECT 'a\\nb', 'x', E'\\t', (' \\\\')", true).expect("rewritten");
        assert_eq!(r.text, "SELECT E'a\\nb', 'x', E'\\t', (E' \\\\')");
        assert_eq!(r.warnings.len(), 2);
        assert_eq!(r.warnings[0].position, Some(8));
        assert_eq!(
            r.warnings[0].message,
            "nonstandard use of escape in a string literal"
        );
        assert_eq!(
            r.warnings[1].message,
            "nonstandard use of \\\\ in a string literal"
        );
    }

    #[test]
    fn comments_identifiers_dollar_quotes_and_bit_strings_are_left_alone() {
        for sql in [
            "SELECT 1 -- '\\n'",
            "SELECT /* '\\n' /* nested */ '\\' */ 1",
            "SELECT \"a\\'b\"",
            "SELECT $$\\n$$, $tag$ '\\' $tag$",
            "SELECT X'0\\', B'1'",
            "SELECT 'plain', 'it''s'",
        ] {
            assert!(rewrite(sql, true).is_none(), "{sql}");
        }
    }

    #[test]
    fn a_backslash_quote_does_not_end_the_literal() {
        let r = rewrite("SELECT 'it\\'s', 'b'", false).expect("rewritten");
        assert_eq!(r.text, "SELECT E'it\\'s', 'b'");
        // After a comma or an operator the blank becomes the E (positions stay).
        let r = rewrite("SELECT 1, 'a\\b' = '\\'", false).expect("rewritten");
        assert_eq!(r.text, "SELECT 1,E'a\\b' =E'\\'");
        assert!(r.warnings.is_empty());
        // After a word the E is inserted (a blank would join it to the word).
        let r = rewrite("SELECT text '\\x'", false).expect("rewritten");
        assert_eq!(r.text, "SELECT text E'\\x'");
    }
}
