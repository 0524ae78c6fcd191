//! Binding DECLARE, FETCH / MOVE and CLOSE. FETCH and MOVE are read here from their
//! text (`sql::parse` hands them over as `SET "kiln.fetch"` / `"kiln.move"`; sqlparser
//! lacks MOVE, negative counts and a bare cursor name):
//!
//! ```text
//! { FETCH | MOVE } [ direction ] [ FROM | IN ] cursor
//! direction: NEXT | PRIOR | FIRST | LAST | ABSOLUTE n | RELATIVE n | n | ALL
//!          | FORWARD [ n | ALL ] | BACKWARD [ n | ALL ]
//! ```

use super::*;
use crate::plan::FetchDirection;
use sqlparser::tokenizer::{Token, Tokenizer};

impl Binder<'_> {
    pub(super) fn bind_declare(&mut self, decls: &[A::Declare]) -> Result<BoundStatement> {
        let [decl] = decls else {
            return Err(Error::syntax("syntax error at or near \",\""));
        };
        let [name] = decl.names.as_slice() else {
            return Err(Error::syntax("syntax error at or near \",\""));
        };
        let Some(query) = &decl.for_query else {
            return Err(Error::syntax("syntax error at end of input"));
        };
        let bound = self.bind_statement_inner(&A::Statement::Query(query.clone()))?;
        if !matches!(bound, BoundStatement::Query { .. }) {
            return Err(Error::feature_not_supported("this query in a cursor"));
        }
        Ok(BoundStatement::DeclareCursor {
            name: ident_name(name),
            query: Box::new(bound),
            scroll: decl.scroll,
            hold: decl.hold == Some(true),
            binary: decl.binary == Some(true),
        })
    }

    pub(super) fn bind_fetch(&mut self, text: &str, is_move: bool) -> Result<BoundStatement> {
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        let tokens: Vec<Token> = Tokenizer::new(&dialect, text)
            .tokenize()
            .map_err(|e| Error::syntax(e.to_string()))?
            .into_iter()
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect();
        let word = |t: Option<&Token>, w: &str| matches!(t, Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
        let syntax = |t: Option<&Token>| match t {
            Some(t) => Error::syntax(format!("syntax error at or near \"{t}\"")),
            None => Error::syntax("syntax error at end of input"),
        };
        let mut i = 0;
        // A signed integer constant at `i`.
        let number = |i: &mut usize| -> Option<i64> {
            let neg = matches!(tokens.get(*i), Some(Token::Minus));
            let at = *i + neg as usize;
            match tokens.get(at) {
                Some(Token::Number(n, _)) => {
                    let v: i64 = n.parse().ok()?;
                    *i = at + 1;
                    Some(if neg { -v } else { v })
                }
                _ => None,
            }
        };
        let all = i64::MAX;
        let t = tokens.get(i);
        let direction = if word(t, "NEXT") {
            i += 1;
            FetchDirection::Forward(1)
        } else if word(t, "PRIOR") {
            i += 1;
            FetchDirection::Backward(1)
        } else if word(t, "FIRST") {
            i += 1;
            FetchDirection::Absolute(1)
        } else if word(t, "LAST") {
            i += 1;
            FetchDirection::Absolute(-1)
        } else if word(t, "ALL") {
            i += 1;
            FetchDirection::Forward(all)
        } else if word(t, "ABSOLUTE") || word(t, "RELATIVE") {
            let absolute = word(t, "ABSOLUTE");
            i += 1;
            let n = number(&mut i).ok_or_else(|| syntax(tokens.get(i)))?;
            if absolute {
                FetchDirection::Absolute(n)
            } else {
                FetchDirection::Relative(n)
            }
        } else if word(t, "FORWARD") || word(t, "BACKWARD") {
            let forward = word(t, "FORWARD");
            i += 1;
            let n = if word(tokens.get(i), "ALL") {
                i += 1;
                all
            } else {
                number(&mut i).unwrap_or(1)
            };
            if forward {
                FetchDirection::Forward(n)
            } else {
                FetchDirection::Backward(n)
            }
        } else if let Some(n) = number(&mut i) {
            FetchDirection::Forward(n)
        } else {
            FetchDirection::Forward(1)
        };
        if word(tokens.get(i), "FROM") || word(tokens.get(i), "IN") {
            i += 1;
        }
        let cursor = match tokens.get(i) {
            Some(Token::Word(w)) => match w.quote_style {
                Some(_) => w.value.clone(),
                None => w.value.to_lowercase(),
            },
            other => return Err(syntax(other)),
        };
        i += 1;
        if let Some(t) = tokens
            .get(i)
            .filter(|t| !matches!(t, Token::SemiColon | Token::EOF))
        {
            return Err(syntax(Some(t)));
        }
        Ok(BoundStatement::Fetch {
            cursor,
            direction,
            is_move,
        })
    }
}
