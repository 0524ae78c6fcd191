//! Sequence options in any order.
//!
//! PostgreSQL accepts CREATE SEQUENCE's options (and an identity column's, in
//! parentheses) in any order; sqlparser reads them only in the order its grammar lists
//! them (INCREMENT, MINVALUE, MAXVALUE, START, CACHE, CYCLE, OWNED BY). Before parsing,
//! the option clauses are put in that order within the same stretch of text (padded
//! with spaces, so positions after it do not move).

use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::parse::byte_offset;

/// The place of a clause starting with `word` (and `next`, after NO) in sqlparser's
/// order; None if `word` starts no clause.
fn rank(word: &str, next: &str) -> Option<u8> {
    Some(match (word, next) {
        ("AS", _) => 0,
        ("INCREMENT", _) => 1,
        ("MINVALUE", _) | ("NO", "MINVALUE") => 2,
        ("MAXVALUE", _) | ("NO", "MAXVALUE") => 3,
        ("START", _) => 4,
        ("CACHE", _) => 5,
        ("CYCLE", _) | ("NO", "CYCLE") => 6,
        ("OWNED", _) => 7,
        _ => return None,
    })
}

/// The text with every sequence option list reordered, or None when nothing moves.
pub fn reorder_sequence_options(sql: &str) -> Option<String> {
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let word = |n: usize| match sig.get(n).map(|&i| &tokens[i].token) {
        Some(Token::Word(w)) if w.quote_style.is_none() => w.value.to_uppercase(),
        _ => String::new(),
    };
    let is = |n: usize, t: &Token| sig.get(n).map(|&i| &tokens[i].token) == Some(t);
    // (first token, one past the last token) of each option list.
    let mut lists: Vec<(usize, usize)> = Vec::new();
    let mut n = 0;
    while n < sig.len() {
        if word(n) == "SEQUENCE"
            && (word(n.wrapping_sub(1)) == "CREATE" || word(n.wrapping_sub(2)) == "CREATE")
        {
            // CREATE [TEMP] SEQUENCE [IF NOT EXISTS] name: options run to the end of
            // the statement.
            let mut start = n + 1;
            if word(start) == "IF" {
                start += 3;
            }
            start += 1;
            while is(start, &Token::Period) {
                start += 2;
            }
            let mut end = start;
            while end < sig.len() && !is(end, &Token::SemiColon) {
                end += 1;
            }
            lists.push((start, end));
            n = end;
        } else if word(n) == "IDENTITY" && is(n + 1, &Token::LParen) {
            let start = n + 2;
            let mut end = start;
            while end < sig.len() && !is(end, &Token::RParen) {
                end += 1;
            }
            lists.push((start, end));
            n = end;
        } else {
            n += 1;
        }
    }
    let mut text = sql.to_string();
    let mut changed = false;
    for (start, end) in lists {
        // Clause boundaries, as token positions, with their ranks.
        let mut clauses: Vec<(u8, usize)> = Vec::new();
        let mut k = start;
        while k < end {
            let r = rank(&word(k), &word(k + 1));
            match r {
                // After AS comes a type name, which may itself be a keyword-like word.
                Some(r)
                    if clauses
                        .last()
                        .is_none_or(|&(p, at)| !(p == 0 && at + 1 == k)) =>
                {
                    clauses.push((r, k));
                    if word(k) == "NO" {
                        k += 1;
                    }
                }
                None if clauses.is_empty() => return None,
                _ => {}
            }
            k += 1;
        }
        if clauses.windows(2).all(|w| w[0].0 <= w[1].0) {
            continue;
        }
        let offset = |t: usize| byte_offset(sql, tokens[sig[t]].span.start);
        let from = offset(start)?;
        let to = match sig.get(end) {
            Some(_) => offset(end)?,
            None => sql.len(),
        };
        let mut pieces: Vec<(u8, &str)> = Vec::with_capacity(clauses.len());
        for (c, &(r, at)) in clauses.iter().enumerate() {
            let a = offset(at)?;
            let b = match clauses.get(c + 1) {
                Some(&(_, next)) => offset(next)?,
                None => to,
            };
            pieces.push((r, sql[a..b].trim_end()));
        }
        pieces.sort_by_key(|&(r, _)| r);
        let mut joined = pieces.iter().map(|(_, p)| *p).collect::<Vec<_>>().join(" ");
        if joined.len() > to - from {
            return None;
        }
        while joined.len() < to - from {
            joined.push(' ');
        }
        text.replace_range(from..to, &joined);
        changed = true;
    }
    changed.then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_take_sqlparsers_order_in_place() {
        let sql = "CREATE SEQUENCE s INCREMENT BY -2 MAXVALUE 10 MINVALUE 5 CYCLE;";
        let out = reorder_sequence_options(sql).unwrap_or_default();
        assert_eq!(out.len(), sql.len());
        assert!(out.starts_with("CREATE SEQUENCE s INCREMENT BY -2 MINVALUE 5 MAXVALUE 10 CYCLE"));
        let ident =
            "CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (START WITH 5 INCREMENT BY 2))";
        let out = reorder_sequence_options(ident).unwrap_or_default();
        assert!(out.contains("(INCREMENT BY 2 START WITH 5)"), "{out}");
        assert_eq!(reorder_sequence_options("CREATE SEQUENCE s START 3"), None);
    }
}
