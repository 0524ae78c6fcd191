//! The COPY statement's grammar, read by hand: sqlparser's COPY lacks PostgreSQL's
//! option forms (`FREEZE ON`, `FORCE_QUOTE *`, `HEADER MATCH`, `WHERE`, multi-byte
//! values that must fail with PostgreSQL's message). `parse` sees the statement text
//! after its COPY keyword (`sql::parse` hands it over as `SET "kiln.copy"`).
//!
//! ```text
//! COPY [BINARY] table [(col, …)] FROM {STDIN | 'file' | PROGRAM 'cmd'}
//!      [[USING] DELIMITERS 'c'] [[WITH] options] [WHERE condition]
//! COPY {table [(col, …)] | (query)} TO {STDOUT | 'file' | PROGRAM 'cmd'} [[WITH] options]
//! options: (name [value], …) | the pre-9.0 words: BINARY, FREEZE, DELIMITER [AS] 'c',
//!          NULL [AS] 's', CSV, HEADER, QUOTE [AS] 'q', ESCAPE [AS] 'e',
//!          FORCE QUOTE {cols | *}, FORCE NOT NULL cols, FORCE NULL cols, ENCODING 'e'
//! ```
//! The pre-9.0 words become the generic options they stand for, as PostgreSQL's
//! grammar does.

use sqlparser::ast as A;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::copy::options::{OptionArg, RawOption};
use crate::error::{Error, Result};

pub enum CopySource {
    Table {
        name: A::ObjectName,
        columns: Vec<A::Ident>,
    },
    /// `(query)`: the statement inside the parentheses.
    Query(Box<A::Statement>),
}

pub enum CopyTarget {
    /// STDIN or STDOUT (PostgreSQL takes either word in either direction).
    Client,
    File(String),
    Program(String),
}

pub struct CopyStatement {
    pub source: CopySource,
    pub from: bool,
    pub target: CopyTarget,
    pub options: Vec<RawOption>,
    pub where_clause: Option<A::Expr>,
}

struct Reader<'a> {
    text: &'a str,
    tokens: Vec<TokenWithSpan>,
    at: usize,
    /// The 1-based character position of `text` in the statement.
    base: u32,
}

impl Reader<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|t| &t.token)
    }
    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).map(|t| t.token.clone());
        self.at += 1;
        t
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    }
    fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        if yes {
            self.at += 1;
        }
        yes
    }
    fn eat(&mut self, t: &Token) -> bool {
        let yes = self.peek() == Some(t);
        if yes {
            self.at += 1;
        }
        yes
    }
    /// The statement position of the token at `i`.
    fn position(&self, i: usize) -> Option<u32> {
        let t = self.tokens.get(i)?;
        let loc = t.span.start;
        let p = super::parse::char_position(self.text, loc.line as usize, loc.column as usize)?;
        Some(self.base + p - 1)
    }
    fn byte_at(&self, i: usize) -> usize {
        match self.tokens.get(i) {
            Some(t) => {
                super::parse::byte_offset(self.text, t.span.start).unwrap_or(self.text.len())
            }
            None => self.text.len(),
        }
    }
    fn syntax_error(&self) -> Error {
        let e = match self.tokens.get(self.at) {
            Some(t) => Error::syntax(format!("syntax error at or near \"{}\"", t.token)),
            None => Error::syntax("syntax error at end of input"),
        };
        match self.position(self.at) {
            Some(p) => e.with_position(p),
            None => e,
        }
    }
    fn string(&mut self) -> Result<String> {
        match self.next() {
            Some(Token::SingleQuotedString(s))
            | Some(Token::EscapedStringLiteral(s))
            | Some(Token::DollarQuotedString(A::DollarQuotedString { value: s, .. })) => Ok(s),
            _ => {
                self.at -= 1;
                Err(self.syntax_error())
            }
        }
    }
    fn ident(&mut self) -> Result<A::Ident> {
        match self.next() {
            Some(Token::Word(w)) => Ok(w.into_ident(sqlparser::tokenizer::Span::empty())),
            _ => {
                self.at -= 1;
                Err(self.syntax_error())
            }
        }
    }
    /// A word as PostgreSQL reads a name: folded to lower case unless quoted.
    fn name(&mut self) -> Result<String> {
        let id = self.ident()?;
        Ok(match id.quote_style {
            Some(_) => id.value,
            None => id.value.to_lowercase(),
        })
    }
    fn name_list(&mut self) -> Result<Vec<String>> {
        let mut out = vec![self.name()?];
        while self.eat(&Token::Comma) {
            out.push(self.name()?);
        }
        Ok(out)
    }
}

/// Parses the COPY statement whose text after the COPY keyword is `text`, found at
/// character position `base` of the statement.
pub fn parse(text: &str, base: u32) -> Result<CopyStatement> {
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, text)
        .tokenize_with_location()
        .map_err(|e| Error::syntax(e.to_string()))?
        .into_iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
        .collect();
    let mut r = Reader {
        text,
        tokens,
        at: 0,
        base,
    };
    let mut options = Vec::new();
    let legacy_binary = r.eat_word("BINARY");
    let source = if r.peek() == Some(&Token::LParen) {
        let open = r.at;
        let mut depth = 0;
        let mut close = None;
        for (i, t) in r.tokens.iter().enumerate().skip(open) {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else {
            r.at = r.tokens.len();
            return Err(r.syntax_error());
        };
        let inner = &text[r.byte_at(open + 1)..r.byte_at(close)];
        let mut statements = super::parse::parse(inner).map_err(|mut e| {
            if let Some(p) = e.position.as_mut() {
                *p += r.position(open + 1).unwrap_or(1) - 1;
            }
            e
        })?;
        if statements.len() != 1 {
            r.at = open + 1;
            return Err(r.syntax_error());
        }
        r.at = close + 1;
        CopySource::Query(Box::new(statements.remove(0)))
    } else {
        let mut parts = vec![r.ident()?];
        while r.eat(&Token::Period) {
            parts.push(r.ident()?);
        }
        let name = A::ObjectName(
            parts
                .into_iter()
                .map(A::ObjectNamePart::Identifier)
                .collect(),
        );
        let mut columns = Vec::new();
        if r.eat(&Token::LParen) {
            columns.push(r.ident()?);
            while r.eat(&Token::Comma) {
                columns.push(r.ident()?);
            }
            if !r.eat(&Token::RParen) {
                return Err(r.syntax_error());
            }
        }
        CopySource::Table { name, columns }
    };
    let from = if r.eat_word("FROM") {
        true
    } else if r.eat_word("TO") {
        false
    } else {
        return Err(r.syntax_error());
    };
    if from && matches!(source, CopySource::Query(_)) {
        r.at -= 1;
        return Err(r.syntax_error());
    }
    let target = if r.eat_word("PROGRAM") {
        CopyTarget::Program(r.string()?)
    } else if r.eat_word("STDIN") || r.eat_word("STDOUT") {
        CopyTarget::Client
    } else {
        CopyTarget::File(r.string()?)
    };
    if legacy_binary {
        options.push(RawOption {
            name: "format".into(),
            arg: OptionArg::Text("binary".into()),
            position: None,
        });
    }
    // [USING] DELIMITERS 'c'
    let using = r.eat_word("USING");
    if r.eat_word("DELIMITERS") {
        let d = r.string()?;
        options.push(RawOption {
            name: "delimiter".into(),
            arg: OptionArg::Text(d),
            position: None,
        });
    } else if using {
        return Err(r.syntax_error());
    }
    let with = r.eat_word("WITH");
    if r.peek() == Some(&Token::LParen) {
        r.next();
        loop {
            let at = r.at;
            let position = r.position(at);
            let name = match r.next() {
                Some(Token::Word(w)) => match w.quote_style {
                    Some(_) => w.value,
                    None => w.value.to_lowercase(),
                },
                _ => {
                    r.at = at;
                    return Err(r.syntax_error());
                }
            };
            let arg = match r.peek() {
                Some(Token::Comma) | Some(Token::RParen) => OptionArg::None,
                Some(Token::Mul) => {
                    r.next();
                    OptionArg::Star
                }
                Some(Token::LParen) => {
                    r.next();
                    let list = r.name_list()?;
                    if !r.eat(&Token::RParen) {
                        return Err(r.syntax_error());
                    }
                    OptionArg::List(list)
                }
                Some(Token::Number(n, _)) => {
                    let n = n.clone();
                    r.next();
                    OptionArg::Number(n)
                }
                Some(Token::Minus) => {
                    r.next();
                    match r.next() {
                        Some(Token::Number(n, _)) => OptionArg::Number(format!("-{n}")),
                        _ => {
                            r.at -= 1;
                            return Err(r.syntax_error());
                        }
                    }
                }
                Some(Token::Word(_)) => OptionArg::Text(r.name()?),
                Some(
                    Token::SingleQuotedString(_)
                    | Token::EscapedStringLiteral(_)
                    | Token::DollarQuotedString(_),
                ) => OptionArg::Text(r.string()?),
                _ => return Err(r.syntax_error()),
            };
            options.push(RawOption {
                name,
                arg,
                position,
            });
            if r.eat(&Token::Comma) {
                continue;
            }
            if r.eat(&Token::RParen) {
                break;
            }
            return Err(r.syntax_error());
        }
    } else {
        legacy_options(&mut r, &mut options)?;
        let _ = with;
    }
    let where_clause = if r.eat_word("WHERE") {
        if !from {
            r.at -= 1;
            return Err(r.syntax_error());
        }
        let rest = &text[r.byte_at(r.at)..];
        let expr = sqlparser::parser::Parser::new(&dialect)
            .try_with_sql(rest)
            .and_then(|mut p| {
                let e = p.parse_expr()?;
                match p.peek_token().token {
                    Token::EOF | Token::SemiColon => Ok(e),
                    t => Err(sqlparser::parser::ParserError::ParserError(format!(
                        "syntax error at or near \"{t}\""
                    ))),
                }
            })
            .map_err(|e| {
                let mut e = super::parse::syntax_error(rest, e);
                if let Some(p) = e.position.as_mut() {
                    *p += r.position(r.at).unwrap_or(1) - 1;
                }
                e
            })?;
        r.at = r.tokens.len();
        Some(expr)
    } else {
        None
    };
    if r.at < r.tokens.len() && r.peek() != Some(&Token::SemiColon) {
        return Err(r.syntax_error());
    }
    Ok(CopyStatement {
        source,
        from,
        target,
        options,
        where_clause,
    })
}

/// The pre-9.0 option words, as generic options.
fn legacy_options(r: &mut Reader, options: &mut Vec<RawOption>) -> Result<()> {
    let text = |s: &str| OptionArg::Text(s.to_string());
    loop {
        let position = r.position(r.at);
        let (name, arg) = if r.eat_word("BINARY") {
            ("format", text("binary"))
        } else if r.eat_word("FREEZE") {
            ("freeze", OptionArg::None)
        } else if r.eat_word("CSV") {
            ("format", text("csv"))
        } else if r.eat_word("HEADER") {
            ("header", OptionArg::None)
        } else if r.eat_word("DELIMITER") {
            r.eat_word("AS");
            ("delimiter", OptionArg::Text(r.string()?))
        } else if r.eat_word("NULL") {
            r.eat_word("AS");
            ("null", OptionArg::Text(r.string()?))
        } else if r.eat_word("QUOTE") {
            r.eat_word("AS");
            ("quote", OptionArg::Text(r.string()?))
        } else if r.eat_word("ESCAPE") {
            r.eat_word("AS");
            ("escape", OptionArg::Text(r.string()?))
        } else if r.eat_word("ENCODING") {
            ("encoding", OptionArg::Text(r.string()?))
        } else if r.eat_word("FORCE") {
            if r.eat_word("QUOTE") {
                if r.eat(&Token::Mul) {
                    ("force_quote", OptionArg::Star)
                } else {
                    ("force_quote", OptionArg::List(r.name_list()?))
                }
            } else if r.eat_word("NOT") {
                if !r.eat_word("NULL") {
                    return Err(r.syntax_error());
                }
                ("force_not_null", OptionArg::List(r.name_list()?))
            } else if r.eat_word("NULL") {
                ("force_null", OptionArg::List(r.name_list()?))
            } else {
                return Err(r.syntax_error());
            }
        } else {
            return Ok(());
        };
        options.push(RawOption {
            name: name.into(),
            arg,
            position,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &CopyStatement) -> Vec<String> {
        s.options
            .iter()
            .map(|o| format!("{}={:?}", o.name, o.arg))
            .collect()
    }

    #[test]
    fn reads_generic_and_legacy_options() {
        let s = parse(
            "t (a, b) from stdin with (format csv, header match, force_null (a), freeze on)",
            6,
        )
        .unwrap();
        assert!(s.from);
        assert_eq!(
            names(&s),
            [
                "format=Text(\"csv\")",
                "header=Text(\"match\")",
                "force_null=List([\"a\"])",
                "freeze=Text(\"on\")"
            ]
        );
        let s = parse(
            "\"T\" TO stdout WITH DELIMITER AS '|' NULL AS 'x' CSV FORCE QUOTE *",
            6,
        )
        .unwrap();
        assert!(!s.from);
        assert_eq!(
            names(&s),
            [
                "delimiter=Text(\"|\")",
                "null=Text(\"x\")",
                "format=Text(\"csv\")",
                "force_quote=Star"
            ]
        );
        let s = parse("(select 1, ';') to stdout", 6).unwrap();
        assert!(matches!(s.source, CopySource::Query(_)));
        let s = parse("t from stdin where a > 1", 6).unwrap();
        assert!(s.where_clause.is_some());
    }

    #[test]
    fn rejects_what_postgres_rejects() {
        let Err(e) = parse("(select 1) from stdin", 6) else {
            panic!("parsed")
        };
        assert_eq!(e.message, "syntax error at or near \"from\"");
        assert_eq!(e.position, Some(17));
        assert!(parse("t to stdout with oids", 6).is_err());
        assert!(parse("t to stdout where a > 1", 6).is_err());
    }
}
