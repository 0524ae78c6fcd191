//! Parsing SQL text into sqlparser statements, with PostgreSQL's syntax error shape.

use sqlparser::ast::Statement;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::{Parser, ParserError};

use crate::error::{Error, Result};

/// Nesting depth the parser accepts before answering `54001`.
pub const PARSER_DEPTH_MAX: usize = 200;
/// Longest run of operators (or deepest parentheses) a statement may hold. sqlparser
/// builds `1+1+…+1` as a left-deep tree without counting depth, so this pre-scan is what
/// keeps binding, evaluation and even dropping the tree within a thread's stack.
pub const EXPRESSION_DEPTH_MAX: usize = 10_000;

fn too_deep() -> Error {
    Error::new("54001", "stack depth limit exceeded")
        .with_hint("kiln limits expressions to 10000 chained operators or nesting levels.")
}

/// Scans the text once, outside literals and comments, measuring the longest operator
/// chain at any parenthesis level and the deepest nesting.
pub fn check_expression_depth(sql: &str) -> Result<()> {
    let b = sql.as_bytes();
    let mut chains: Vec<usize> = vec![0];
    let mut i = 0;
    let mut prev_word_end = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' => {
                // '…' with '' escapes (E'…' escapes with backslashes too).
                let escaped = i > 0 && (b[i - 1] == b'E' || b[i - 1] == b'e');
                i += 1;
                while i < b.len() {
                    if escaped && b[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if b[i] == b'\'' {
                        if i + 1 < b.len() && b[i + 1] == b'\'' {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += 1;
                }
            }
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
                        continue;
                    }
                    if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                        continue;
                    }
                    i += 1;
                }
                continue;
            }
            b'$' => {
                // $tag$ … $tag$
                let start = i;
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if j < b.len()
                    && b[j] == b'$'
                    && !(start > 0 && b[start - 1].is_ascii_alphanumeric())
                {
                    let tag = &b[start..=j];
                    let body = j + 1;
                    match sql[body..].find(std::str::from_utf8(tag).unwrap_or("$$")) {
                        Some(end) => i = body + end + tag.len() - 1,
                        None => i = b.len(),
                    }
                }
            }
            b'(' | b'[' => {
                chains.push(0);
                if chains.len() > EXPRESSION_DEPTH_MAX {
                    return Err(too_deep());
                }
            }
            b')' | b']' if chains.len() > 1 => {
                chains.pop();
            }
            b',' | b';' => {
                if let Some(top) = chains.last_mut() {
                    *top = 0;
                }
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'<' | b'>' | b'=' | b'|' | b'!' | b'~'
            | b'&' | b'#' => {
                if let Some(top) = chains.last_mut() {
                    *top += 1;
                    if *top > EXPRESSION_DEPTH_MAX {
                        return Err(too_deep());
                    }
                }
            }
            c if c.is_ascii_alphabetic() => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let _ = prev_word_end;
                prev_word_end = i;
                let word = &b[start..i];
                let counts = word.eq_ignore_ascii_case(b"and")
                    || word.eq_ignore_ascii_case(b"or")
                    || word.eq_ignore_ascii_case(b"not")
                    || word.eq_ignore_ascii_case(b"case")
                    || word.eq_ignore_ascii_case(b"is");
                if counts && let Some(top) = chains.last_mut() {
                    *top += 1;
                    if *top > EXPRESSION_DEPTH_MAX {
                        return Err(too_deep());
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

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

/// The words whose presence makes [`parse`] look again at a statement's text (what
/// sqlparser cannot read is rewritten or blanked before it parses). Found anywhere,
/// in any case — a cheap filter, one pass over the text ([`Mentions::of`]).
#[derive(Clone, Copy)]
#[repr(u8)]
enum Word {
    Constraints,
    Sequence,
    Copy,
    Fetch,
    Move,
    Checkpoint,
    Grant,
    Revoke,
    Reassign,
    Owned,
    Database,
    Default,
    Owner,
    Schema,
    Role,
    User,
    Identity,
    Create,
    /// `" as"`: CREATE TABLE … AS.
    SpaceAs,
    Vacuum,
    Analyze,
    Search,
    Cycle,
    Key,
    For,
    Exclude,
    Symmetric,
    Conflict,
    Alter,
    Then,
}

const WORDS: [&str; 30] = [
    "constraints",
    "sequence",
    "copy",
    "fetch",
    "move",
    "checkpoint",
    "grant",
    "revoke",
    "reassign",
    "owned",
    "database",
    "default",
    "owner",
    "schema",
    "role",
    "user",
    "identity",
    "create",
    " as",
    "vacuum",
    "analyze",
    "search",
    "cycle",
    "key",
    "for",
    "exclude",
    "symmetric",
    "conflict",
    "alter",
    "then",
];

/// Which [`WORDS`] a text holds, one bit each.
#[derive(Clone, Copy)]
struct Mentions(u32);

impl Mentions {
    /// One pass over `text`: at each byte, only the words starting with that letter
    /// are compared.
    fn of(text: &str) -> Mentions {
        const BY_FIRST: [u32; 256] = {
            let mut table = [0u32; 256];
            let mut w = 0;
            while w < WORDS.len() {
                let first = WORDS[w].as_bytes()[0];
                table[first as usize] |= 1 << w;
                table[first.to_ascii_uppercase() as usize] |= 1 << w;
                w += 1;
            }
            table
        };
        let b = text.as_bytes();
        let mut found = 0u32;
        for i in 0..b.len() {
            let mut candidates = BY_FIRST[b[i] as usize] & !found;
            while candidates != 0 {
                let w = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                let word = WORDS[w].as_bytes();
                if b.len() - i >= word.len() && b[i..i + word.len()].eq_ignore_ascii_case(word) {
                    found |= 1 << w;
                }
            }
        }
        Mentions(found)
    }

    fn has(self, w: Word) -> bool {
        self.0 & (1 << w as u32) != 0
    }

    fn any(self, ws: &[Word]) -> bool {
        ws.iter().any(|&w| self.has(w))
    }
}

/// One expression, as a catalog object's definition prints it (re-bound when the
/// columns it reads change type).
pub fn expression(sql: &str) -> Result<sqlparser::ast::Expr> {
    let dialect = PostgreSqlDialect {};
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(PARSER_DEPTH_MAX)
        .try_with_sql(sql)
        .map_err(|e| syntax_error(sql, e))?;
    let e = parser.parse_expr().map_err(|e| syntax_error(sql, e))?;
    if parser.peek_token().token != sqlparser::tokenizer::Token::EOF {
        return Err(Error::syntax(format!(
            "syntax error in expression \"{sql}\""
        )));
    }
    Ok(e)
}

pub fn parse(sql: &str) -> Result<Vec<Statement>> {
    check_expression_depth(sql)?;
    let dialect = PostgreSqlDialect {};
    let parser = Parser::new(&dialect).with_recursion_limit(PARSER_DEPTH_MAX);
    let m = Mentions::of(sql);
    let mut text = blank_frame_exclusions(sql, m);
    use Word as W;
    if m.has(W::Then)
        && let Some((start, end)) = merge_default_values(&text)
    {
        // MERGE's `THEN INSERT DEFAULT VALUES`, which sqlparser does not read: `*` in
        // its place (the binder reads the text to tell them apart).
        let blank = format!("*{}", " ".repeat(end - start - 1));
        text.to_mut().replace_range(start..end, &blank);
    }
    if m.has(W::Conflict) {
        // Replaced from the end, so earlier ranges keep their offsets.
        for (start, end) in conflict_expressions(&text).into_iter().rev() {
            let blank: String = text[start..end]
                .chars()
                .enumerate()
                .map(|(k, c)| match (k, c) {
                    (0, _) => '_',
                    (_, '\n') => '\n',
                    _ => ' ',
                })
                .collect();
            text.to_mut().replace_range(start..end, &blank);
        }
    }
    if m.any(&[
        W::Constraints,
        W::Sequence,
        W::Copy,
        W::Fetch,
        W::Move,
        W::Checkpoint,
        W::Grant,
        W::Revoke,
        W::Reassign,
        W::Owned,
        W::Database,
        W::Default,
        W::Owner,
        W::Schema,
        W::Role,
        W::User,
        W::Alter,
    ]) && let Some(rewritten) = unparsed_statements(&text)
    {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if m.has(W::User)
        && let Some(rewritten) = create_user_as_role(&text)
    {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if m.any(&[W::Sequence, W::Identity])
        && let Some(reordered) = super::sequence_syntax::reorder_sequence_options(&text)
    {
        text = std::borrow::Cow::Owned(reordered);
    }
    if text
        .as_bytes()
        .windows(7)
        .any(|w| w.eq_ignore_ascii_case(b"similar"))
        && let Some(rewritten) = substring_similar(&text)
    {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if text.len() >= 4
        && text
            .as_bytes()
            .windows(4)
            .any(|w| w.eq_ignore_ascii_case(b"top."))
        && let Some(rewritten) = top_qualifier(&text)
    {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if mentions(&text, "deferrable")
        && let Some(rewritten) = transaction_deferrable(&text)
    {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if text.contains('[')
        && mentions(&text, "update")
        && let Some(rewritten) = subscript_assignments(&text)
    {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if let Some(rewritten) = domain_nullability(&text)? {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if let Some(rewritten) = extension_schema_with(&text) {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if may_have_typed_literal(&text)
        && let Some(rewritten) = typed_literals(&text)
    {
        text = std::borrow::Cow::Owned(rewritten);
    }
    if (text.contains("+") || text.contains("-"))
        && let Some(split) = split_trailing_signs(&text)
    {
        text = std::borrow::Cow::Owned(split);
    }
    // `EXPLAIN (SELECT …)`: sqlparser reads the parenthesis as an options list. The
    // keyword is blanked (positions stay), the query parsed, and EXPLAIN put back.
    let explain = explain_of_parenthesized_query(&text);
    if let Some(range) = explain.clone() {
        text.to_mut()
            .replace_range(range.clone(), &" ".repeat(range.len()));
    }
    let mut statements = parser
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| syntax_error(sql, e))?;
    if explain.is_some()
        && let Some(first) = statements.first_mut()
    {
        let statement = std::mem::replace(
            first,
            Statement::Commit {
                chain: false,
                end: false,
                modifier: None,
            },
        );
        *first = Statement::Explain {
            describe_alias: sqlparser::ast::DescribeAlias::Explain,
            analyze: false,
            verbose: false,
            query_plan: false,
            estimate: false,
            statement: Box::new(statement),
            format: None,
            options: None,
        };
    }
    Ok(statements)
}

/// `substring(x SIMILAR pattern ESCAPE esc)`, which sqlparser does not read: the two
/// words become commas (same length, positions kept), making it substring(x,
/// pattern, esc) — the binder's SQL-regex substring of three text arguments.
fn substring_similar(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let word = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut edits: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i + 1 < tokens.len() {
        if word(&tokens[i].token, "substring") && matches!(tokens[i + 1].token, Token::LParen) {
            let mut depth = 0;
            let mut found = Vec::new();
            for t in &tokens[i + 1..] {
                match &t.token {
                    Token::LParen => depth += 1,
                    Token::RParen => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    tok if depth == 1 && (word(tok, "similar") || word(tok, "escape")) => {
                        found.push(t);
                    }
                    _ => {}
                }
            }
            if found.first().is_some_and(|t| word(&t.token, "similar")) {
                for t in found {
                    let start = byte_offset(sql, t.span.start)?;
                    let end = byte_offset(sql, t.span.end)?;
                    edits.push((start, end));
                }
            }
        }
        i += 1;
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = sql.to_string();
    for (start, end) in edits {
        let blank = format!(",{}", " ".repeat(end - start - 1));
        out.replace_range(start..end, &blank);
    }
    Some(out)
}

/// PostgreSQL's lexer ends an operator before trailing `+` / `-` signs unless it
/// holds one of `~ ! @ # % ^ & | \` ?` (so `doc->-1` is `doc -> -1`); sqlparser reads
/// `->-` as one operator. A space goes in after the operator proper (positions after
/// it move by one).
fn split_trailing_signs(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let mut cuts = Vec::new();
    for t in &tokens {
        let Token::CustomBinaryOperator(op) = &t.token else {
            continue;
        };
        if op.len() < 2
            || !(op.ends_with('+') || op.ends_with('-'))
            || op.contains(['~', '!', '@', '#', '%', '^', '&', '|', '`', '?'])
        {
            continue;
        }
        let keep = op.trim_end_matches(['+', '-']).len().max(1);
        if let Some(at) = byte_offset(sql, t.span.start) {
            cuts.push(at + keep);
        }
    }
    if cuts.is_empty() {
        return None;
    }
    let mut out = sql.to_string();
    for at in cuts.into_iter().rev() {
        out.insert(at, ' ');
    }
    Some(out)
}

/// The byte range of the EXPLAIN keyword when the text starts `EXPLAIN (SELECT`,
/// `EXPLAIN (WITH`, `EXPLAIN (VALUES`, `EXPLAIN (TABLE` or `EXPLAIN ((`: a
/// parenthesized query, not an options list.
fn explain_of_parenthesized_query(sql: &str) -> Option<std::ops::Range<usize>> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let start = sql.len() - sql.trim_start().len();
    let head = sql.get(start..start + 7)?;
    if !head.eq_ignore_ascii_case("explain") {
        return None;
    }
    let dialect = PostgreSqlDialect {};
    // Only the first few tokens matter.
    let prefix_end = sql
        .char_indices()
        .map(|(i, _)| i)
        .find(|&i| i >= start + 200)
        .unwrap_or(sql.len());
    let tokens = Tokenizer::new(&dialect, &sql[..prefix_end])
        .tokenize()
        .ok()?;
    let mut significant = tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_)));
    let _explain = significant.next()?;
    if !matches!(significant.next()?, Token::LParen) {
        return None;
    }
    let query = match significant.next()? {
        Token::LParen => true,
        Token::Word(w) if w.quote_style.is_none() => matches!(
            w.value.to_ascii_uppercase().as_str(),
            "SELECT" | "WITH" | "VALUES" | "TABLE"
        ),
        _ => false,
    };
    query.then_some(start..start + 7)
}

/// A window frame's `EXCLUDE CURRENT ROW | GROUP | TIES | NO OTHERS`, found in the
/// tokens of a window definition: sqlparser does not parse it, so [`parse`] blanks it
/// out (spaces, so every position stays) and the binder reads it back from the text.
pub fn frame_exclusions(sql: &str) -> Vec<(usize, usize, &'static str)> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Vec::new();
    };
    let word = |i: usize| match tokens.get(i).map(|t| &t.token) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let mut out = Vec::new();
    for (n, &i) in significant.iter().enumerate() {
        if word(i).as_deref() != Some("EXCLUDE") {
            continue;
        }
        let next = |k: usize| significant.get(n + k).and_then(|&j| word(j));
        let (kind, len) = match (next(1).as_deref(), next(2).as_deref()) {
            (Some("CURRENT"), Some("ROW")) => ("current row", 3),
            (Some("GROUP"), _) => ("group", 2),
            (Some("TIES"), _) => ("ties", 2),
            (Some("NO"), Some("OTHERS")) => ("no others", 3),
            _ => continue,
        };
        let closes = significant
            .get(n + len)
            .is_some_and(|&j| tokens[j].token == Token::RParen);
        let last = significant[n + len - 1];
        if let (true, Some(start), Some(end)) = (
            closes,
            byte_offset(sql, tokens[i].span.start),
            byte_offset(sql, tokens[last].span.end),
        ) {
            out.push((start, end, kind));
        }
    }
    out
}

/// The byte offsets of every (unquoted) keyword `word` in `sql`.
pub fn keyword_offsets(sql: &str, word: &str) -> Vec<usize> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Vec::new();
    };
    tokens
        .iter()
        .filter(|t| {
            matches!(&t.token, Token::Word(w)
                if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
        })
        .filter_map(|t| byte_offset(sql, t.span.start))
        .collect()
}

/// `BETWEEN SYMMETRIC` / `BETWEEN ASYMMETRIC`: sqlparser reads neither word, so
/// [`parse`] blanks it out and the binder finds it in the text between BETWEEN's
/// operands. Returns the byte ranges of the words and whether each is SYMMETRIC.
pub fn between_modifiers(sql: &str) -> Vec<(usize, usize, bool)> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Vec::new();
    };
    let significant: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let is_word = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut out = Vec::new();
    for pair in significant.windows(2) {
        let symmetric = is_word(&pair[1].token, "SYMMETRIC");
        if is_word(&pair[0].token, "BETWEEN")
            && (symmetric || is_word(&pair[1].token, "ASYMMETRIC"))
            && let (Some(start), Some(end)) = (
                byte_offset(sql, pair[1].span.start),
                byte_offset(sql, pair[1].span.end),
            )
        {
            out.push((start, end, symmetric));
        }
    }
    out
}

/// The options of a statement-initial `VACUUM` (`(…)`, FULL, FREEZE, VERBOSE,
/// ANALYZE) or `ANALYZE` (`(…)`, VERBOSE): sqlparser reads few of them, and kiln
/// treats every VACUUM and ANALYZE alike (statistics now; the vacuum runs by itself),
/// so [`parse`] blanks them out. Returns their byte ranges.
pub fn maintenance_options(sql: &str) -> Vec<(usize, usize)> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Vec::new();
    };
    let sig: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let word = |i: usize| match sig.get(i).map(|t| &t.token) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let mut out = Vec::new();
    let mut blank = |from: usize, to: usize| {
        if let (Some(a), Some(b)) = (
            byte_offset(sql, sig[from].span.start),
            byte_offset(sql, sig[to].span.end),
        ) {
            out.push((a, b));
        }
    };
    for i in 0..sig.len() {
        let starts = i == 0 || sig[i - 1].token == Token::SemiColon;
        let vacuum = match word(i).as_deref() {
            Some("VACUUM") if starts => true,
            Some("ANALYZE") if starts => false,
            _ => continue,
        };
        let mut j = i + 1;
        if sig.get(j).is_some_and(|t| t.token == Token::LParen) {
            let mut depth = 0;
            let mut k = j;
            while k < sig.len() {
                match sig[k].token {
                    Token::LParen => depth += 1,
                    Token::RParen => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Token::SemiColon => break,
                    _ => {}
                }
                k += 1;
            }
            if k < sig.len() && sig[k].token == Token::RParen {
                blank(j, k);
                j = k + 1;
            }
        }
        while let Some(w) = word(j) {
            let option = match w.as_str() {
                "VERBOSE" => true,
                "FULL" | "FREEZE" | "ANALYZE" | "ANALYSE" => vacuum,
                _ => false,
            };
            if !option {
                break;
            }
            blank(j, j);
            j += 1;
        }
    }
    out
}

/// `FOR NO KEY UPDATE` and `FOR KEY SHARE`, which sqlparser does not read: [`parse`]
/// blanks `NO KEY` and `KEY`, leaving FOR UPDATE and FOR SHARE. kiln's row locks are
/// exclusive in every strength (`storage::mvcc`), so the weaker ones lock as much as
/// the stronger: more waiting than PostgreSQL, never less. Returns the byte ranges.
pub fn key_lock_strengths(sql: &str) -> Vec<(usize, usize)> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Vec::new();
    };
    let sig: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let is = |i: usize, w: &str| matches!(sig.get(i).map(|t| &t.token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut out = Vec::new();
    for i in 0..sig.len() {
        if !is(i, "FOR") {
            continue;
        }
        let (first, last) = if is(i + 1, "NO") && is(i + 2, "KEY") && is(i + 3, "UPDATE") {
            (i + 1, i + 2)
        } else if is(i + 1, "KEY") && is(i + 2, "SHARE") {
            (i + 1, i + 1)
        } else {
            continue;
        };
        if let (Some(a), Some(b)) = (
            byte_offset(sql, sig[first].span.start),
            byte_offset(sql, sig[last].span.end),
        ) {
            out.push((a, b));
        }
    }
    out
}

/// The byte range of `DEFAULT VALUES` in a MERGE's `THEN INSERT DEFAULT VALUES`.
pub fn merge_default_values(sql: &str) -> Option<(usize, usize)> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let sig: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let is = |i: usize, w: &str| matches!(sig.get(i).map(|t| &t.token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let i = (0..sig.len()).find(|&i| {
        is(i, "THEN") && is(i + 1, "INSERT") && is(i + 2, "DEFAULT") && is(i + 3, "VALUES")
    })?;
    Some((
        byte_offset(sql, sig[i + 2].span.start)?,
        byte_offset(sql, sig[i + 3].span.end)?,
    ))
}

/// The byte ranges inside `ON CONFLICT ( … )` when the target holds more than
/// column names (`ON CONFLICT (lower(email))`), which sqlparser does not read:
/// [`parse`] leaves `_` in place of the list, one character for each, so positions
/// stay, and the binder reads the elements back from the text there.
pub fn conflict_expressions(sql: &str) -> Vec<(usize, usize)> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Vec::new();
    };
    let sig: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let is = |i: usize, w: &str| matches!(sig.get(i).map(|t| &t.token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut out = Vec::new();
    for i in 0..sig.len() {
        if !(is(i, "ON")
            && is(i + 1, "CONFLICT")
            && matches!(sig.get(i + 2).map(|t| &t.token), Some(Token::LParen)))
        {
            continue;
        }
        let open = i + 2;
        let mut depth = 0usize;
        let mut close = None;
        // Plain: names alone between commas (two words in a row: a name and its
        // operator class).
        let mut plain = true;
        let mut after_word = false;
        for (j, t) in sig.iter().enumerate().skip(open) {
            match &t.token {
                Token::LParen => {
                    depth += 1;
                    if j > open {
                        plain = false;
                    }
                }
                Token::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(j);
                        break;
                    }
                }
                Token::Word(_) => {
                    plain &= !after_word;
                    after_word = true;
                    continue;
                }
                Token::Comma => {}
                _ => plain = false,
            }
            after_word = false;
        }
        let Some(close) = close else { continue };
        if plain || close == open + 1 {
            continue;
        }
        if let (Some(a), Some(b)) = (
            byte_offset(sql, sig[open].span.end),
            byte_offset(sql, sig[close].span.start),
        ) {
            out.push((a, b));
        }
    }
    out
}

/// Statements sqlparser does not read become a SET of a kiln setting whose value is the
/// rest of the statement: `SET CONSTRAINTS { ALL | name, … } { DEFERRED | IMMEDIATE }`
/// becomes `SET "kiln.set_constraints" TO '…'` (carried out by
/// `session::foreign_keys`), `ALTER SEQUENCE …` becomes `SET "kiln.alter_sequence" TO
/// '…'` (bound by `binder::sequences`).
fn unparsed_statements(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let word = |n: usize, w: &str| matches!(sig.get(n).map(|&i| &tokens[i].token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut out = String::new();
    let mut copied = 0;
    let mut n = 0;
    let mut changed = false;
    while n < sig.len() {
        let at_start = n == 0 || matches!(tokens[sig[n - 1]].token, Token::SemiColon);
        let setting = if !at_start {
            None
        } else if word(n, "SET") && word(n + 1, "CONSTRAINTS") {
            Some("kiln.set_constraints")
        } else if word(n, "ALTER")
            && (word(n + 1, "TABLE") || word(n + 1, "VIEW") || word(n + 1, "SEQUENCE"))
            && (n + 2..sig.len())
                .take_while(|&k| !matches!(tokens[sig[k]].token, Token::SemiColon))
                .any(|k| word(k, "SET") && word(k + 1, "SCHEMA"))
        {
            Some("kiln.set_schema")
        } else if word(n, "ALTER") && word(n + 1, "SEQUENCE") {
            Some("kiln.alter_sequence")
        } else if word(n, "ALTER") && word(n + 1, "DOMAIN") {
            Some("kiln.alter_domain")
        } else if word(n, "ALTER") && word(n + 1, "INDEX") {
            Some("kiln.alter_index")
        } else if word(n, "ALTER")
            && word(n + 1, "TABLE")
            && (n + 2..sig.len())
                .take_while(|&k| !matches!(tokens[sig[k]].token, Token::SemiColon))
                .any(|k| word(k, "ALTER") && word(k + 1, "CONSTRAINT"))
        {
            Some("kiln.alter_constraint")
        } else if word(n, "ALTER")
            && word(n + 1, "VIEW")
            && (n + 2..sig.len())
                .take_while(|&k| !matches!(tokens[sig[k]].token, Token::SemiColon))
                .any(|k| word(k, "RENAME"))
        {
            Some("kiln.alter_view_rename")
        } else if word(n, "COPY") {
            Some("kiln.copy")
        } else if word(n, "FETCH") {
            Some("kiln.fetch")
        } else if word(n, "MOVE") {
            Some("kiln.move")
        } else if word(n, "CREATE") && word(n + 1, "DATABASE") {
            Some("kiln.create_database")
        } else if word(n, "DROP") && word(n + 1, "DATABASE") {
            Some("kiln.drop_database")
        } else if word(n, "ALTER") && word(n + 1, "DATABASE") {
            Some("kiln.alter_database")
        } else if word(n, "CREATE")
            && word(n + 1, "SCHEMA")
            && (n + 3..sig.len())
                .take_while(|&k| !matches!(tokens[sig[k]].token, Token::SemiColon))
                .any(|k| word(k, "CREATE") || word(k, "GRANT"))
        {
            // CREATE SCHEMA with schema elements (sqlparser reads none).
            Some("kiln.create_schema")
        } else if word(n, "ALTER")
            && (word(n + 1, "ROLE") || word(n + 1, "USER"))
            && (word(n + 3, "SET")
                || word(n + 3, "RESET")
                || (word(n + 3, "IN")
                    && word(n + 4, "DATABASE")
                    && (word(n + 6, "SET") || word(n + 6, "RESET"))))
        {
            // ALTER ROLE … SET / RESET (sqlparser reads one value, no list).
            Some("kiln.alter_role_set")
        } else if word(n, "CHECKPOINT") {
            Some("kiln.checkpoint")
        } else if word(n, "GRANT") {
            Some("kiln.grant")
        } else if word(n, "REVOKE") {
            Some("kiln.revoke")
        } else if word(n, "REASSIGN") {
            Some("kiln.reassign")
        } else if word(n, "DROP") && word(n + 1, "OWNED") {
            Some("kiln.drop_owned")
        } else if word(n, "ALTER") && word(n + 1, "DEFAULT") {
            Some("kiln.default_privileges")
        } else if word(n, "ALTER")
            && word(n + 1, "VIEW")
            && (n + 2..sig.len())
                .take_while(|&k| !matches!(tokens[sig[k]].token, Token::SemiColon))
                .any(|k| word(k, "OWNER") && word(k + 1, "TO"))
        {
            Some("kiln.alter_view_owner")
        } else {
            None
        };
        if let Some(setting) = setting {
            let start = byte_offset(sql, tokens[sig[n]].span.start)?;
            let one_word = matches!(
                setting,
                "kiln.set_schema"
                    | "kiln.copy"
                    | "kiln.fetch"
                    | "kiln.move"
                    | "kiln.checkpoint"
                    | "kiln.grant"
                    | "kiln.revoke"
                    | "kiln.reassign"
            );
            let mut end_tok = if one_word { n + 1 } else { n + 2 };
            while end_tok < sig.len() && !matches!(tokens[sig[end_tok]].token, Token::SemiColon) {
                end_tok += 1;
            }
            let rest_start = if one_word {
                byte_offset(sql, tokens[sig[n]].span.end)?
            } else {
                byte_offset(sql, tokens[sig[n + 1]].span.end)?
            };
            let end = match sig.get(end_tok) {
                Some(&i) => byte_offset(sql, tokens[i].span.start)?,
                None => sql.len(),
            };
            let mut rest = sql[rest_start..end].replace('\'', "''");
            if setting == "kiln.copy" {
                // COPY keeps its text as written, with its character position, for
                // error positions (`sql::copy_syntax`).
                let position = sql[..rest_start].chars().count() + 1;
                rest = format!("{position} {rest}");
            } else {
                rest = rest.trim().to_string();
            }
            if rest.is_empty() && one_word && setting != "kiln.checkpoint" {
                // `FETCH;` is a syntax error PostgreSQL reports at the end.
                return None;
            }
            out.push_str(&sql[copied..start]);
            out.push_str(&format!("SET \"{setting}\" TO '{rest}'"));
            copied = end;
            changed = true;
            n = end_tok;
        } else {
            n += 1;
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&sql[copied..]);
    Some(out)
}

/// `CREATE USER name …` (which sqlparser does not read) becomes `CREATE ROLE name LOGIN
/// …`: PostgreSQL's CREATE USER is CREATE ROLE with LOGIN unless NOLOGIN is given.
fn create_user_as_role(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let tokens = Tokenizer::new(&PostgreSqlDialect {}, sql)
        .tokenize_with_location()
        .ok()?;
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let word = |n: usize, w: &str| matches!(sig.get(n).map(|&i| &tokens[i].token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut out = sql.to_string();
    let mut changed = false;
    // Edits from the end, so earlier byte offsets stay valid.
    let mut edits: Vec<(usize, usize, &str)> = Vec::new();
    for n in 0..sig.len() {
        let at_start = n == 0 || matches!(tokens[sig[n - 1]].token, Token::SemiColon);
        if !(at_start && word(n, "CREATE") && word(n + 1, "USER")) {
            continue;
        }
        let user = byte_offset(sql, tokens[sig[n + 1]].span.start)?;
        edits.push((user, user + 4, "ROLE"));
        let mut end = n + 2;
        let mut login_given = false;
        while end < sig.len() && !matches!(tokens[sig[end]].token, Token::SemiColon) {
            login_given |= word(end, "LOGIN") || word(end, "NOLOGIN");
            end += 1;
        }
        if !login_given && sig.get(n + 2).is_some() {
            // After the name, or after its optional WITH.
            let last = if word(n + 3, "WITH") { n + 3 } else { n + 2 };
            let after_name = byte_offset(sql, tokens[sig[last]].span.end)?;
            edits.push((after_name, after_name, " LOGIN"));
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (a, b, text) in edits {
        out.replace_range(a..b, text);
        changed = true;
    }
    changed.then_some(out)
}

/// Whether `word` (ASCII) occurs in `text`, in any case: a cheap test before
/// tokenizing a statement again.
pub fn mentions(text: &str, word: &str) -> bool {
    let w = word.as_bytes();
    text.as_bytes()
        .windows(w.len())
        .any(|win| win.eq_ignore_ascii_case(w))
}

/// `CREATE TABLE name (a, b) AS …`: the column names of a CREATE TABLE AS, which
/// sqlparser cannot read (it wants types). Returns the byte range of the parenthesized
/// list and the names; [`parse`] blanks the list out and the binder reads it back.
pub fn ctas_column_names(sql: &str) -> Option<(usize, usize, Vec<String>)> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let sig: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let word = |i: usize, w: &str| {
        matches!(sig.get(i).map(|t| &t.token), Some(Token::Word(x))
            if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    };
    if !word(0, "CREATE") {
        return None;
    }
    // CREATE [TEMP | TEMPORARY | UNLOGGED] TABLE [IF NOT EXISTS] name [. name] (
    let mut i = 1;
    while word(i, "TEMP") || word(i, "TEMPORARY") || word(i, "UNLOGGED") {
        i += 1;
    }
    if !word(i, "TABLE") {
        return None;
    }
    i += 1;
    if word(i, "IF") && word(i + 1, "NOT") && word(i + 2, "EXISTS") {
        i += 3;
    }
    i += 1;
    while sig.get(i).map(|t| &t.token) == Some(&Token::Period) {
        i += 2;
    }
    if sig.get(i).map(|t| &t.token) != Some(&Token::LParen) {
        return None;
    }
    let open = i;
    let mut names = Vec::new();
    i += 1;
    loop {
        match sig.get(i).map(|t| &t.token) {
            Some(Token::Word(w)) => names.push(match w.quote_style {
                Some(_) => w.value.clone(),
                None => w.value.to_lowercase(),
            }),
            _ => return None,
        }
        i += 1;
        match sig.get(i).map(|t| &t.token) {
            Some(Token::Comma) => i += 1,
            Some(Token::RParen) => break,
            _ => return None,
        }
    }
    if !word(i + 1, "AS") {
        return None;
    }
    let start = byte_offset(sql, sig[open].span.start)?;
    let end = byte_offset(sql, sig[i].span.end)?;
    Some((start, end, names))
}

fn blank_frame_exclusions(sql: &str, m: Mentions) -> std::borrow::Cow<'_, str> {
    use Word as W;
    let ctas = m.has(W::Create) && m.has(W::SpaceAs);
    let maintenance = m.any(&[W::Vacuum, W::Analyze]);
    let search_cycle = m.any(&[W::Search, W::Cycle]);
    let key_locks = m.has(W::Key) && m.has(W::For);
    if !m.has(W::Exclude)
        && !key_locks
        && !m.has(W::Symmetric)
        && !ctas
        && !maintenance
        && !search_cycle
    {
        return std::borrow::Cow::Borrowed(sql);
    }
    let mut ranges: Vec<(usize, usize)> = frame_exclusions(sql)
        .into_iter()
        .map(|(s, e, _)| (s, e))
        .collect();
    ranges.extend(between_modifiers(sql).into_iter().map(|(s, e, _)| (s, e)));
    if ctas && let Some((s, e, _)) = ctas_column_names(sql) {
        ranges.push((s, e));
    }
    if maintenance {
        ranges.extend(maintenance_options(sql));
    }
    if search_cycle {
        ranges.extend(search_cycle_clauses(sql).into_iter().map(|c| c.range));
    }
    if key_locks {
        ranges.extend(key_lock_strengths(sql));
    }
    if ranges.is_empty() {
        return std::borrow::Cow::Borrowed(sql);
    }
    let mut text = sql.to_string();
    for (start, end) in ranges {
        text.replace_range(start..end, &" ".repeat(end - start));
    }
    std::borrow::Cow::Owned(text)
}

/// WITH RECURSIVE's `SEARCH { DEPTH | BREADTH } FIRST BY col, … SET col`.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchClause {
    pub breadth: bool,
    pub by: Vec<String>,
    pub set: String,
}

/// WITH RECURSIVE's `CYCLE col, … SET col [TO value DEFAULT value] USING col`.
#[derive(Clone, Debug, PartialEq)]
pub struct CycleClause {
    pub columns: Vec<String>,
    pub set: String,
    /// The TO and DEFAULT values (true and false when not given).
    pub mark: Option<(sqlparser::ast::Value, sqlparser::ast::Value)>,
    pub using: String,
}

/// The SEARCH and CYCLE clauses after a WITH query's closing parenthesis (at byte
/// `paren`), and the byte range they occupy.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchCycle {
    pub paren: usize,
    pub range: (usize, usize),
    pub search: Option<SearchClause>,
    pub cycle: Option<CycleClause>,
}

/// Finds the SEARCH and CYCLE clauses of WITH queries: sqlparser does not parse them,
/// so [`parse`] blanks them out and the binder reads them back from here, matching
/// them to a WITH query by its closing parenthesis.
pub fn search_cycle_clauses(sql: &str) -> Vec<SearchCycle> {
    use sqlparser::ast::Value as V;
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Vec::new();
    };
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let tok = |n: usize| sig.get(n).map(|&i| &tokens[i].token);
    let keyword = |n: usize, k: &str| matches!(tok(n), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(k));
    let ident = |n: usize| match tok(n) {
        Some(Token::Word(w)) if w.quote_style.is_some() => Some(w.value.clone()),
        Some(Token::Word(w)) => Some(w.value.to_lowercase()),
        _ => None,
    };
    // An identifier list from `n`: the names and the position after them.
    let ident_list = |mut n: usize| -> Option<(Vec<String>, usize)> {
        let mut names = vec![ident(n)?];
        n += 1;
        while matches!(tok(n), Some(Token::Comma)) {
            names.push(ident(n + 1)?);
            n += 2;
        }
        Some((names, n))
    };
    let value = |n: usize| -> Option<V> {
        match tok(n)? {
            Token::SingleQuotedString(s) => Some(V::SingleQuotedString(s.clone())),
            Token::Number(s, l) => Some(V::Number(s.clone(), *l)),
            Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("true") => {
                Some(V::Boolean(true))
            }
            Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("false") => {
                Some(V::Boolean(false))
            }
            _ => None,
        }
    };
    let mut out = Vec::new();
    for (n, &i) in sig.iter().enumerate() {
        if tokens[i].token != Token::RParen {
            continue;
        }
        let mut at = n + 1;
        let mut search = None;
        if keyword(at, "SEARCH") {
            let breadth = keyword(at + 1, "BREADTH");
            if !(breadth || keyword(at + 1, "DEPTH"))
                || !keyword(at + 2, "FIRST")
                || !keyword(at + 3, "BY")
            {
                continue;
            }
            let Some((by, next)) = ident_list(at + 4) else {
                continue;
            };
            if !keyword(next, "SET") {
                continue;
            }
            let Some(set) = ident(next + 1) else { continue };
            search = Some(SearchClause { breadth, by, set });
            at = next + 2;
        }
        let mut cycle = None;
        if keyword(at, "CYCLE") {
            let Some((columns, next)) = ident_list(at + 1) else {
                continue;
            };
            if !keyword(next, "SET") {
                continue;
            }
            let Some(set) = ident(next + 1) else { continue };
            let mut next = next + 2;
            let mut mark = None;
            if keyword(next, "TO") {
                let (Some(to), true, Some(default)) = (
                    value(next + 1),
                    keyword(next + 2, "DEFAULT"),
                    value(next + 3),
                ) else {
                    continue;
                };
                mark = Some((to, default));
                next += 4;
            }
            if !keyword(next, "USING") {
                continue;
            }
            let Some(using) = ident(next + 1) else {
                continue;
            };
            cycle = Some(CycleClause {
                columns,
                set,
                mark,
                using,
            });
            at = next + 2;
        }
        if search.is_none() && cycle.is_none() {
            continue;
        }
        let (Some(paren), Some(start), Some(end)) = (
            byte_offset(sql, tokens[i].span.start),
            sig.get(n + 1)
                .and_then(|&j| byte_offset(sql, tokens[j].span.start)),
            sig.get(at - 1)
                .map(|&j| byte_offset(sql, tokens[j].span.end).unwrap_or(sql.len())),
        ) else {
            continue;
        };
        out.push(SearchCycle {
            paren,
            range: (start, end),
            search,
            cycle,
        });
    }
    out
}

/// The byte offset of a tokenizer location (1-based line and column in characters).
pub fn byte_offset(sql: &str, at: sqlparser::tokenizer::Location) -> Option<usize> {
    let mut line = 1u64;
    let mut col = 1u64;
    for (i, c) in sql.char_indices() {
        if line == at.line && col == at.column {
            return Some(i);
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    (line == at.line && col == at.column).then_some(sql.len())
}

/// Turns sqlparser's "Expected: X, found: Y at Line: L, Column: C" into PostgreSQL's
/// `syntax error at or near "Y"` with a character position.
pub(crate) fn syntax_error(sql: &str, err: ParserError) -> Error {
    if let ParserError::TokenizerError(t) = &err
        && t.contains("Unterminated encoded string literal")
        && let Some(e) = invalid_escape_string(sql)
    {
        return e;
    }
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
    // sqlparser does not know WITH RECURSIVE's SEARCH and CYCLE clauses, which
    // PostgreSQL accepts right after a WITH query's parenthesis.
    let after_paren = position.is_some_and(|p| {
        let before: String = sql.chars().take(p.saturating_sub(1) as usize).collect();
        before.trim_end().ends_with(')')
    });
    let mut error = match found {
        Some(tok)
            if after_paren
                && (tok.eq_ignore_ascii_case("SEARCH") || tok.eq_ignore_ascii_case("CYCLE")) =>
        {
            Error::feature_not_supported("SEARCH or CYCLE in WITH RECURSIVE")
        }
        Some("EOF") => Error::syntax("syntax error at end of input"),
        // A constraint characteristic where the constraint takes none (CHECK, NOT NULL).
        Some(tok) if tok.eq_ignore_ascii_case("DEFERRABLE") => {
            let before: String = sql
                .chars()
                .take(position.unwrap_or(1).saturating_sub(1) as usize)
                .collect();
            let not = before
                .trim_end()
                .rsplit(char::is_whitespace)
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case("NOT"));
            Error::syntax(if not {
                "misplaced NOT DEFERRABLE clause"
            } else {
                "misplaced DEFERRABLE clause"
            })
        }
        Some(tok) if tok.eq_ignore_ascii_case("INITIALLY") => {
            let rest = tail_from(sql, position);
            let deferred = rest
                .split_whitespace()
                .nth(1)
                .is_some_and(|w| w.to_ascii_uppercase().starts_with("DEFERRED"));
            Error::syntax(if deferred {
                "misplaced INITIALLY DEFERRED clause"
            } else {
                "misplaced INITIALLY IMMEDIATE clause"
            })
        }
        Some(tok) => Error::syntax(format!(
            "syntax error at or near \"{}\"",
            tok.trim_matches('"')
        )),
        None if text.contains("Unterminated string literal") => Error::syntax(format!(
            "unterminated quoted string at or near \"{}\"",
            tail_from(sql, position)
        )),
        None => Error::syntax(format!("syntax error: {text}")),
    };
    if found == Some("EOF") {
        error = error.with_position(sql.chars().count() as u32 + 1);
    } else if let Some(p) = position {
        error = error.with_position(p);
    }
    error
}

/// The error PostgreSQL gives an `E'…'` literal whose byte escapes (`\xDE`, `\336`)
/// make invalid UTF-8 (sqlparser's tokenizer reports those as unterminated): 22021.
fn invalid_escape_string(sql: &str) -> Option<Error> {
    let b = sql.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        let starts = (b[i] == b'E' || b[i] == b'e')
            && b[i + 1] == b'\''
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        i += 2;
        let mut bytes = Vec::new();
        while i < b.len() {
            match b[i] {
                b'\'' if b.get(i + 1) == Some(&b'\'') => {
                    bytes.push(b'\'');
                    i += 2;
                }
                b'\'' => {
                    i += 1;
                    break;
                }
                b'\\' => {
                    let hex = |k: usize| b.get(i + k).filter(|c| c.is_ascii_hexdigit());
                    let oct = |k: usize| b.get(i + k).filter(|c| (b'0'..=b'7').contains(c));
                    if matches!(b.get(i + 1), Some(b'x')) && hex(2).is_some() {
                        let n = if hex(3).is_some() { 2 } else { 1 };
                        let digits = std::str::from_utf8(&b[i + 2..i + 2 + n]).ok()?;
                        bytes.push(u8::from_str_radix(digits, 16).ok()?);
                        i += 2 + n;
                    } else if oct(1).is_some() {
                        let n = (1..=3).take_while(|&k| oct(k).is_some()).count();
                        let digits = std::str::from_utf8(&b[i + 1..i + 1 + n]).ok()?;
                        bytes.push(u16::from_str_radix(digits, 8).ok()? as u8);
                        i += 1 + n;
                    } else {
                        bytes.extend_from_slice(b.get(i..i + 2)?);
                        i += 2;
                    }
                }
                c => {
                    bytes.push(c);
                    i += 1;
                }
            }
        }
        if let Err(e) = std::str::from_utf8(&bytes) {
            let at = e.valid_up_to();
            let bad: Vec<String> = bytes[at..]
                .iter()
                .take(e.error_len().unwrap_or(1).max(1))
                .map(|x| format!("0x{x:02x}"))
                .collect();
            return Some(Error::new(
                "22021",
                format!(
                    "invalid byte sequence for encoding \"UTF8\": {}",
                    bad.join(" ")
                ),
            ));
        }
    }
    None
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

/// `top.column`: sqlparser reads TOP after SELECT as T-SQL's row limit; `top` is no
/// keyword of PostgreSQL's, so a qualifier named so is quoted (same name).
fn top_qualifier(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let mut edits = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if let Token::Word(w) = &t.token
            && w.quote_style.is_none()
            && w.value.eq_ignore_ascii_case("top")
            && matches!(tokens.get(i + 1).map(|n| &n.token), Some(Token::Period))
        {
            let start = byte_offset(sql, t.span.start)?;
            let end = byte_offset(sql, t.span.end)?;
            edits.push((start, end, format!("\"{}\"", w.value.to_lowercase())));
        }
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = sql.to_string();
    for (s, e, with) in edits.into_iter().rev() {
        out.replace_range(s..e, &with);
    }
    Some(out)
}

/// The transaction modes' `[NOT] DEFERRABLE`, which sqlparser does not read: left out
/// of BEGIN / START TRANSACTION (with a comma before it, if any); SET TRANSACTION and
/// SET SESSION CHARACTERISTICS AS TRANSACTION of that mode alone become SETs of
/// transaction_deferrable / default_transaction_deferrable.
fn transaction_deferrable(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let sig: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let is = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut start = 0;
    while start < sig.len() {
        let end = (start..sig.len())
            .find(|&k| matches!(sig[k].token, Token::SemiColon))
            .unwrap_or(sig.len());
        let w = |k: usize, word: &str| k < end && is(&sig[k].token, word);
        let modes_at = if w(start, "begin") {
            Some(start + 1)
        } else if (w(start, "start") || w(start, "set")) && w(start + 1, "transaction") {
            Some(start + 2)
        } else if w(start, "set")
            && w(start + 1, "session")
            && w(start + 2, "characteristics")
            && w(start + 3, "as")
            && w(start + 4, "transaction")
        {
            Some(start + 5)
        } else {
            None
        };
        if let Some(first) = modes_at {
            let mut k = first;
            let mut found: Option<(usize, usize, bool)> = None;
            while k < end {
                if w(k, "not") && w(k + 1, "deferrable") {
                    found = Some((k, k + 1, false));
                    break;
                }
                if w(k, "deferrable") {
                    found = Some((k, k, true));
                    break;
                }
                k += 1;
            }
            if let Some((a, b, on)) = found {
                let only = a == first && b + 1 == end;
                let is_set = w(start, "set");
                if only && is_set {
                    let name = if w(start + 1, "session") {
                        "default_transaction_deferrable"
                    } else {
                        "transaction_deferrable"
                    };
                    let s = byte_offset(sql, sig[start].span.start)?;
                    let e = byte_offset(sql, sig[end - 1].span.end)?;
                    let value = if on { "on" } else { "off" };
                    edits.push((s, e, format!("SET {name} TO {value}")));
                } else {
                    // With the comma before it (or after it, when it comes first).
                    let (from, to) = if a > first && matches!(sig[a - 1].token, Token::Comma) {
                        (a - 1, b)
                    } else if b + 1 < end && matches!(sig[b + 1].token, Token::Comma) {
                        (a, b + 1)
                    } else {
                        (a, b)
                    };
                    let s = byte_offset(sql, sig[from].span.start)?;
                    let e = byte_offset(sql, sig[to].span.end)?;
                    edits.push((s, e, " ".into()));
                }
            }
        }
        start = end + 1;
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = sql.to_string();
    for (s, e, with) in edits.into_iter().rev() {
        out.replace_range(s..e, &with);
    }
    Some(out)
}

/// The function UPDATE's subscripted targets become (`sql::binder::functions`).
pub const SUBSCRIPT_ASSIGN: &str = "kiln subscript assign";

/// `UPDATE … SET col[i] = v` and `col[lo:hi] = array` (which sqlparser does not read)
/// become `col = "kiln subscript assign"(col, (v), 'spec', subscripts …)`: the spec has
/// one letter per subscript, `e` (an element: one argument) or `s` (a slice: its
/// bounds, NULL where omitted).
fn subscript_assignments(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let sig: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let is = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let text_of = |a: usize, b: usize| -> Option<&str> {
        // The source text of significant tokens a..b (b exclusive).
        let start = byte_offset(sql, sig.get(a)?.span.start)?;
        let end = byte_offset(sql, sig.get(b - 1)?.span.end)?;
        sql.get(start..end)
    };
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut i = 0;
    while i < sig.len() {
        // SET of an UPDATE (also ON CONFLICT DO UPDATE SET).
        if !(is(&sig[i].token, "set") && i > 0) {
            i += 1;
            continue;
        }
        let mut k = i + 1;
        // Each assignment: name [subscripts] = value.
        while let Some(Token::Word(_)) = sig.get(k).map(|t| &t.token) {
            let name_at = k;
            let mut j = k + 1;
            let mut groups: Vec<(bool, Vec<(usize, usize)>)> = Vec::new();
            while matches!(sig.get(j).map(|t| &t.token), Some(Token::LBracket)) {
                let open = j;
                let mut depth = 0;
                let mut parts: Vec<(usize, usize)> = Vec::new();
                let mut part_start = open + 1;
                let mut slice = false;
                j = open;
                loop {
                    let t = &sig.get(j)?.token;
                    match t {
                        Token::LBracket | Token::LParen => depth += 1,
                        Token::RBracket | Token::RParen => {
                            depth -= 1;
                            if depth == 0 {
                                parts.push((part_start, j));
                                break;
                            }
                        }
                        Token::Colon if depth == 1 => {
                            parts.push((part_start, j));
                            part_start = j + 1;
                            slice = true;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                groups.push((slice, parts));
                j += 1;
            }
            if groups.is_empty() {
                // A plain target: skip its value.
                j = k + 1;
            }
            if !matches!(sig.get(j).map(|t| &t.token), Some(Token::Eq)) {
                return None;
            }
            let value_start = j + 1;
            let mut depth = 0;
            let mut end = value_start;
            while let Some(t) = sig.get(end) {
                match &t.token {
                    Token::LParen | Token::LBracket => depth += 1,
                    Token::RParen | Token::RBracket => {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    Token::Comma | Token::SemiColon if depth == 0 => break,
                    _ if depth == 0
                        && ["from", "where", "returning"]
                            .iter()
                            .any(|w| is(&t.token, w)) =>
                    {
                        break;
                    }
                    _ => {}
                }
                end += 1;
            }
            if !groups.is_empty() && end > value_start {
                let name = text_of(name_at, name_at + 1)?;
                let value = text_of(value_start, end)?;
                let mut spec = String::new();
                let mut args = Vec::new();
                for (slice, parts) in &groups {
                    spec.push(if *slice { 's' } else { 'e' });
                    for &(a, b) in parts {
                        args.push(if b > a {
                            text_of(a, b)?.to_string()
                        } else {
                            "NULL".to_string()
                        });
                    }
                }
                let start = byte_offset(sql, sig[name_at].span.start)?;
                let stop = byte_offset(sql, sig[end - 1].span.end)?;
                edits.push((
                    start,
                    stop,
                    format!(
                        "{name} = \"{SUBSCRIPT_ASSIGN}\"({name}, ({value}), '{spec}', {})",
                        args.join(", ")
                    ),
                ));
            }
            if matches!(sig.get(end).map(|t| &t.token), Some(Token::Comma)) {
                k = end + 1;
            } else {
                i = end;
                break;
            }
        }
        i += 1;
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = sql.to_string();
    for (start, end, with) in edits.into_iter().rev() {
        out.replace_range(start..end, &with);
    }
    Some(out)
}

/// The name CREATE DOMAIN's NOT NULL travels under (as a CHECK constraint, which
/// sqlparser reads where it does not read NOT NULL); no SQL writes it by accident.
pub const DOMAIN_NOT_NULL: &str = "kiln: domain not null";

/// CREATE DOMAIN's `NOT NULL` (sqlparser reads neither it nor `NULL`): `NOT NULL` becomes
/// a CHECK constraint named [`DOMAIN_NOT_NULL`], a bare `NULL` goes. ALTER DOMAIN, which
/// sqlparser does not read, is 0A000.
fn domain_nullability(sql: &str) -> Result<Option<String>> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let head = sql.trim_start();
    let starts = |w: &str| {
        head.get(..w.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(w))
    };
    if !(starts("create") || starts("alter")) || !mentions(sql, "domain") {
        return Ok(None);
    }
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return Ok(None);
    };
    let significant: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let is = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    if significant.len() < 2 || !is(&significant[1].token, "domain") {
        return Ok(None);
    }
    if is(&significant[0].token, "alter") {
        return Err(Error::feature_not_supported("ALTER DOMAIN"));
    }
    if !is(&significant[0].token, "create") {
        return Ok(None);
    }
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // AS is optional (CREATE DOMAIN d integer): after the (maybe qualified) name.
    let mut after_name = 3;
    while significant
        .get(after_name)
        .is_some_and(|t| matches!(t.token, Token::Period))
    {
        after_name += 2;
    }
    if let Some(t) = significant.get(after_name)
        && !is(&t.token, "as")
        && let Some(at) = byte_offset(sql, t.span.start)
    {
        edits.push((at, at, "AS ".into()));
    }
    let mut depth = 0i32;
    let mut i = 2;
    // Where the statement ends: NOT NULL's stand-in goes there, after any DEFAULT (which
    // sqlparser reads only before the constraints).
    let statement_end = significant
        .iter()
        .find(|t| matches!(t.token, Token::SemiColon))
        .and_then(|t| byte_offset(sql, t.span.start))
        .unwrap_or(sql.len());
    while i < significant.len() {
        let t = &significant[i].token;
        match t {
            Token::SemiColon => break,
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ if depth == 0
                && is(t, "not")
                && significant.get(i + 1).is_some_and(|n| is(&n.token, "null")) =>
            {
                let start = byte_offset(sql, significant[i].span.start).unwrap_or(0);
                let end = byte_offset(sql, significant[i + 1].span.end).unwrap_or(start);
                edits.push((start, end, " ".into()));
                edits.push((
                    statement_end,
                    statement_end,
                    format!(" CONSTRAINT \"{DOMAIN_NOT_NULL}\" CHECK (true)"),
                ));
                i += 2;
                continue;
            }
            _ if depth == 0 && is(t, "null") && !is(&significant[i - 1].token, "default") => {
                let start = byte_offset(sql, significant[i].span.start).unwrap_or(0);
                let end = byte_offset(sql, significant[i].span.end).unwrap_or(start);
                edits.push((start, end, String::new()));
            }
            _ => {}
        }
        i += 1;
    }
    if edits.is_empty() {
        return Ok(None);
    }
    let not_null = edits.iter().any(|e| e.2.starts_with(" CONSTRAINT"));
    if not_null && edits.iter().any(|e| e.2.is_empty()) {
        return Err(Error::syntax("conflicting NULL/NOT NULL constraints"));
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = sql.to_string();
    for (start, end, with) in edits.into_iter().rev() {
        out.replace_range(start..end, &with);
    }
    Ok(Some(out))
}

/// `CREATE EXTENSION name SCHEMA s`: sqlparser reads the clause only after WITH
/// (optional in PostgreSQL), which goes in.
fn extension_schema_with(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let head = sql.trim_start();
    if head.len() < 16
        || !head
            .get(..6)
            .is_some_and(|h| h.eq_ignore_ascii_case("create"))
    {
        return None;
    }
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let words: Vec<&sqlparser::tokenizer::TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let is = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    if words.len() < 4 || !is(&words[0].token, "create") || !is(&words[1].token, "extension") {
        return None;
    }
    let at = words.iter().enumerate().skip(3).find_map(|(i, t)| {
        (is(&t.token, "schema") && !is(&words[i - 1].token, "with")).then_some(t)
    })?;
    let offset = byte_offset(sql, at.span.start)?;
    let mut out = sql.to_string();
    out.insert_str(offset, "WITH ");
    Some(out)
}

/// The type names kiln knows that sqlparser reads as plain identifiers, so that
/// `inet '10.0.0.1'` (PostgreSQL's `type 'string'` constant) parses as a column
/// named inet followed by garbage.
const IDENTIFIER_TYPE_NAMES: &[&str] = &[
    "inet",
    "cidr",
    "macaddr",
    "macaddr8",
    "jsonpath",
    "name",
    "oid",
    "regtype",
    "regproc",
    "regprocedure",
    "regnamespace",
    "regrole",
    "regconfig",
    "bpchar",
];

/// Words that, in an operand's place and before a string, are not type names: SQL's
/// own words there (`NOT 'x'`, `DISTINCT 'x'`, `INTERVAL '1' DAY` which sqlparser reads)
/// and COPY's options (`DELIMITER ';'`).
const NOT_TYPE_NAMES: &[&str] = &[
    "all",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "at",
    "between",
    "both",
    "by",
    "case",
    "cast",
    "check",
    "collate",
    "constraint",
    "content",
    "default",
    "delimiter",
    "desc",
    "distinct",
    "document",
    "else",
    "encoding",
    "end",
    "escape",
    "except",
    "exists",
    "false",
    "fetch",
    "filter",
    "for",
    "force_not_null",
    "force_null",
    "force_quote",
    "format",
    "freeze",
    "from",
    "group",
    "having",
    "header",
    "ilike",
    "in",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "lateral",
    "leading",
    "like",
    "limit",
    "not",
    "notnull",
    "null",
    "nulls",
    "offset",
    "on",
    "only",
    "operator",
    "or",
    "order",
    "ordinality",
    "over",
    "overlaps",
    "partition",
    "placing",
    "primary",
    "quote",
    "references",
    "returning",
    "row",
    "select",
    "set",
    "similar",
    "some",
    "table",
    "then",
    "to",
    "trailing",
    "treat",
    "true",
    "uescape",
    "union",
    "unique",
    "using",
    "values",
    "variadic",
    "when",
    "where",
    "window",
    "with",
    "within",
];

/// Whether some `'` follows a word and blanks only (not one of [`NOT_TYPE_NAMES`]):
/// a cheap test before tokenizing for [`typed_literals`].
fn may_have_typed_literal(sql: &str) -> bool {
    let bytes = sql.as_bytes();
    bytes.iter().enumerate().any(|(at, &b)| {
        if b != b'\'' {
            return false;
        }
        let head = sql[..at]
            .trim_end_matches([' ', '\t', '\n', '\r'])
            .as_bytes();
        let word_start = head
            .iter()
            .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .map_or(0, |p| p + 1);
        let word = &head[word_start..];
        !word.is_empty()
            && !word[0].is_ascii_digit()
            && !NOT_TYPE_NAMES
                .iter()
                .any(|n| n.as_bytes().eq_ignore_ascii_case(word))
    })
}

/// `inet '10.0.0.1'` → `CAST('10.0.0.1' AS inet)`: PostgreSQL's `type 'string'`
/// constants, for the built-in type names sqlparser does not read as types and, where
/// an operand starts (after `(`, `,`, an operator, SELECT, WHERE, AND, OR, NOT, WHEN,
/// THEN, ELSE), for any other word — a user-defined type's name, or PostgreSQL's
/// "type does not exist" for what is none (positions after each rewrite move).
fn typed_literals(sql: &str) -> Option<String> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let Token::Word(w) = &t.token else { continue };
        let known = IDENTIFIER_TYPE_NAMES
            .iter()
            .any(|n| n.eq_ignore_ascii_case(&w.value));
        let prev = tokens[..i]
            .iter()
            .rev()
            .find(|p| !matches!(p.token, Token::Whitespace(_)));
        let operand_starts = prev.is_some_and(|p| match &p.token {
            Token::Comma
            | Token::LParen
            | Token::Eq
            | Token::Neq
            | Token::Lt
            | Token::Gt
            | Token::LtEq
            | Token::GtEq
            | Token::Plus
            | Token::Minus
            | Token::Mul
            | Token::Div
            | Token::StringConcat => true,
            Token::Word(k) => {
                k.quote_style.is_none()
                    && [
                        "select", "where", "and", "or", "not", "when", "then", "else",
                    ]
                    .iter()
                    .any(|s| k.value.eq_ignore_ascii_case(s))
            }
            _ => false,
        });
        let generic = operand_starts
            && !NOT_TYPE_NAMES
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&w.value));
        if w.quote_style.is_some()
            || !(known || generic)
            || i > 0 && matches!(tokens[i - 1].token, Token::Period)
        {
            continue;
        }
        let Some(next) = tokens[i + 1..]
            .iter()
            .find(|n| !matches!(n.token, Token::Whitespace(_)))
        else {
            continue;
        };
        if !matches!(next.token, Token::SingleQuotedString(_)) {
            continue;
        }
        let start = byte_offset(sql, t.span.start)?;
        let literal_start = byte_offset(sql, next.span.start)?;
        let end = byte_offset(sql, next.span.end)?;
        let literal = sql.get(literal_start..end)?;
        edits.push((
            start,
            end,
            format!("CAST({literal} AS {})", w.value.to_ascii_lowercase()),
        ));
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = sql.to_string();
    for (start, end, with) in edits.into_iter().rev() {
        out.replace_range(start..end, &with);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_finds_the_words_in_any_case_anywhere() {
        let m = Mentions::of("SELECT current_USER, x FROM t AS a");
        assert!(m.has(Word::User));
        assert!(m.has(Word::SpaceAs));
        assert!(!m.has(Word::Schema));
        assert!(!m.has(Word::Create));
        let m = Mentions::of("create SCHEMA s");
        assert!(m.has(Word::Create) && m.has(Word::Schema));
        for (i, w) in WORDS.iter().enumerate() {
            assert!(Mentions::of(&w.to_uppercase()).0 & (1 << i) != 0, "{w}");
        }
    }

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
    fn operator_chains_are_bounded() {
        assert!(check_expression_depth(&format!("SELECT 1{}", "+1".repeat(10_001))).is_err());
        assert!(check_expression_depth(&format!("SELECT 1{}", "+1".repeat(9_000))).is_ok());
        // Separate rows of a bulk insert do not add up.
        let rows = vec!["(-1, 'a-b')"; 50_000].join(",");
        assert!(check_expression_depth(&format!("INSERT INTO t VALUES {rows}")).is_ok());
        // Operators inside literals and comments do not count.
        assert!(
            check_expression_depth(&format!(
                "SELECT '{}' /* {} */",
                "+".repeat(50_000),
                "-".repeat(50_000)
            ))
            .is_ok()
        );
    }

    #[test]
    fn empty_queries_are_recognised() {
        assert!(is_empty_query(" ; ;-- hi\n"));
        assert!(!is_empty_query("select 1"));
    }
}
