//! The `tsquery` type: input and output (`tsqueryin` / `tsqueryout`, the binary
//! `tsquerysend` / `tsqueryrecv`), `to_tsquery`, `plainto_tsquery`, `phraseto_tsquery` and
//! `websearch_to_tsquery` over a configuration's [`Lexizer`], stop-word removal, the
//! `@@` match of a `tsvector` against a query (phrase operators included), the query
//! operators (`&&`, `||`, `!!`, `<->`, `tsquery_phrase`), `numnode`, `querytree`,
//! `@>`, and a storage encoding whose byte order is PostgreSQL's `tsquery_cmp` order.
//!
//! Design. Every algorithm here runs without recursion: a query is worked on either as
//! a flat list of items in postfix order (operands first, then the operator; what the
//! parser produces and what stop-word cleanup, `querytree`'s NOT removal, depth checks
//! and the matcher consume) or walked with an explicit stack (output, encoding). Only
//! building the final [`QueryNode`] tree makes nesting, and the parser, `recv` and the
//! `to_tsquery` family refuse a tree deeper than [`MAX_DEPTH`] (or more parentheses
//! than that) with `54001 stack depth limit exceeded`, as PostgreSQL does at a similar
//! depth, so that dropping a tree stays within a thread's stack.
//!
//! The parser follows PostgreSQL 15's state machine: operands are read with the
//! tsvector lexer rules (quotes, backslash escapes, operator characters as delimiters),
//! then `:*ABCD` modifiers; operators go through a per-parenthesis operator stack of
//! at most 32 entries with priorities `!` 4, `<N>` 3, `&` 2, `|` 1 (`!` is right
//! associative). `websearch_to_tsquery` uses PostgreSQL's web tokenizer (`"…"`, `or`,
//! `-`, implicit AND, other operator characters ignored). Operands of the `to_tsquery`
//! family go through the configuration's `parsetext`, as PostgreSQL's `pushval_morph`:
//! words of one token (same position) are ANDed per variant and variants ORed, tokens
//! are joined with `<->` (AND for `plainto_tsquery`), and stop-word gaps become
//! placeholders that cleanup removes while lengthening the surrounding phrase
//! distances.
//!
//! Matching is PostgreSQL's `TS_execute`: plain boolean evaluation above the first
//! phrase operator, and below it `TS_phrase_execute`'s position lists (with negation,
//! match width and the "maybe" answer for lexemes without positions, which a phrase
//! turns into no match).
//!
//! Storage encoding (`encode`): a key that compares bytewise as `tsquery_cmp`
//! (number of items, size of PostgreSQL's on-disk form, then the tree: operators before
//! operands, operators by descending code, children right then left, phrase distance
//! descending; operands by descending signed legacy CRC-32 of the word, then by bytes),
//! followed by one byte per operand with its weight mask and prefix flag. PostgreSQL's
//! comparison ignores weights and prefix flags (`'a:A' = 'a'` is true there); here such
//! queries order as PostgreSQL orders them but are not equal: ties are broken by that
//! trailing byte.

use super::{Lexizer, MAX_POS, ParsedWord, QueryNode, TsError, TsQuery};

/// Most operator levels in a tree (and most nested parentheses) the parser, `recv` and
/// the `to_tsquery` family accept.
pub const MAX_DEPTH: usize = 10_000;

/// Largest phrase distance (MAXENTRYPOS).
const MAX_ENTRY_POS: i64 = 1 << 14;
/// Operand length limit (MAXSTRLEN).
const MAX_STR_LEN: usize = (1 << 11) - 1;
/// Limit of the operand area (MAXSTRPOS).
const MAX_STR_POS: usize = (1 << 20) - 1;
/// Operator stack of one parenthesis level (STACKDEPTH).
const OP_STACK_DEPTH: usize = 32;
/// MaxAllocSize.
const MAX_ALLOC_SIZE: usize = 0x3fff_ffff;
/// sizeof(QueryItem) and the header of PostgreSQL's on-disk form.
const QUERY_ITEM_SIZE: usize = 12;
const HDR_SIZE: usize = 8;

pub(super) const OP_NOT: u8 = 1;
pub(super) const OP_AND: u8 = 2;
pub(super) const OP_OR: u8 = 3;
pub(super) const OP_PHRASE: u8 = 4;

const QI_VAL: u8 = 1;
const QI_OPR: u8 = 2;

fn priority(op: u8) -> i32 {
    match op {
        OP_NOT => 4,
        OP_AND => 2,
        OP_OR => 1,
        _ => 3,
    }
}

/// One item of a query in postfix order (or prefix order where said).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Val {
        word: String,
        weight: u8,
        prefix: bool,
    },
    /// A stop-word placeholder, removed by cleanup.
    Stop,
    /// Operator code and phrase distance (an `int16` in PostgreSQL, kept as its bits).
    Op(u8, u16),
}

fn arity(it: &Item) -> usize {
    match it {
        Item::Op(OP_NOT, _) => 1,
        Item::Op(..) => 2,
        _ => 0,
    }
}

// ---------------------------------------------------------------------------------
// Errors

fn syntax_error(buf: &str) -> TsError {
    TsError::new("42601", format!("syntax error in tsquery: \"{buf}\""))
}

fn distance_error() -> TsError {
    TsError::new(
        "22023",
        format!(
            "distance in phrase operator must be an integer value between zero and {MAX_ENTRY_POS} inclusive"
        ),
    )
}

fn depth_error() -> TsError {
    let mut e = TsError::new("54001", "stack depth limit exceeded");
    e.hint = Some(
        "Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate."
            .to_string(),
    );
    e
}

fn internal(msg: impl Into<String>) -> TsError {
    TsError::new("XX000", msg)
}

// ---------------------------------------------------------------------------------
// Character classes (PostgreSQL's t_isspace / t_isalnum under a UTF-8 C locale)

fn is_space(c: char) -> bool {
    if c.is_ascii() {
        matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
    } else {
        c.is_whitespace() && !matches!(c, '\u{85}' | '\u{a0}' | '\u{2007}' | '\u{202f}')
    }
}

fn is_operator_char(c: char) -> bool {
    matches!(c, '!' | '&' | '|' | '(' | ')' | '<')
}

// ---------------------------------------------------------------------------------
// The parser

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Standard,
    Plain,
    Web,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Operand,
    Operator,
    FirstOperand,
}

enum Token {
    End,
    Err,
    Val {
        text: String,
        weight: u8,
        prefix: bool,
    },
    Opr(u8, u16),
    Open,
    Close,
}

/// How operand text becomes items: as written (`tsqueryin`) or through a
/// configuration with the operator joining a token's successive words.
enum Push<'l> {
    AsIs,
    Morph(&'l dyn Lexizer, u8),
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    state: State,
    count: i32,
    mode: Mode,
    items: Vec<Item>,
    sumlen: usize,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str, mode: Mode) -> Parser<'a> {
        Parser {
            input,
            pos: 0,
            state: State::FirstOperand,
            count: 0,
            mode,
            items: Vec::new(),
            sumlen: 0,
        }
    }

    fn cur(&self) -> Option<char> {
        self.input.get(self.pos..).and_then(|s| s.chars().next())
    }

    fn char_at(&self, p: usize) -> Option<char> {
        self.input.get(p..).and_then(|s| s.chars().next())
    }

    fn advance(&mut self) {
        if let Some(c) = self.cur() {
            self.pos += c.len_utf8();
        }
    }

    fn gettoken(&mut self) -> Result<Token, TsError> {
        match self.mode {
            Mode::Standard => self.gettoken_standard(),
            Mode::Plain => Ok(self.gettoken_plain()),
            Mode::Web => self.gettoken_web(),
        }
    }

    fn gettoken_plain(&mut self) -> Token {
        if self.pos >= self.input.len() {
            return Token::End;
        }
        let text = self.input[self.pos..].to_string();
        self.pos = self.input.len();
        self.count += 1;
        Token::Val {
            text,
            weight: 0,
            prefix: false,
        }
    }

    fn gettoken_standard(&mut self) -> Result<Token, TsError> {
        loop {
            let c = self.cur();
            match self.state {
                State::FirstOperand | State::Operand => match c {
                    Some('!') => {
                        self.pos += 1;
                        self.state = State::Operand;
                        return Ok(Token::Opr(OP_NOT, 0));
                    }
                    Some('(') => {
                        self.pos += 1;
                        self.state = State::Operand;
                        self.count += 1;
                        return Ok(Token::Open);
                    }
                    Some(':') => return Ok(Token::Err),
                    Some(ch) if is_space(ch) => {}
                    _ => {
                        return match self.get_word(false)? {
                            Some(text) => {
                                let (weight, prefix) = self.get_modifiers();
                                self.state = State::Operator;
                                Ok(Token::Val {
                                    text,
                                    weight,
                                    prefix,
                                })
                            }
                            None if self.state == State::FirstOperand => Ok(Token::End),
                            None => Err(TsError::new(
                                "42601",
                                format!("no operand in tsquery: \"{}\"", self.input),
                            )),
                        };
                    }
                },
                State::Operator => match c {
                    Some('&') => {
                        self.pos += 1;
                        self.state = State::Operand;
                        return Ok(Token::Opr(OP_AND, 0));
                    }
                    Some('|') => {
                        self.pos += 1;
                        self.state = State::Operand;
                        return Ok(Token::Opr(OP_OR, 0));
                    }
                    _ => {
                        if let Some(d) = self.parse_phrase_operator()? {
                            self.state = State::Operand;
                            return Ok(Token::Opr(OP_PHRASE, d));
                        }
                        match c {
                            Some(')') => {
                                self.pos += 1;
                                self.count -= 1;
                                return Ok(if self.count < 0 {
                                    Token::Err
                                } else {
                                    Token::Close
                                });
                            }
                            None => {
                                return Ok(if self.count != 0 {
                                    Token::Err
                                } else {
                                    Token::End
                                });
                            }
                            Some(ch) if !is_space(ch) => return Ok(Token::Err),
                            _ => {}
                        }
                    }
                },
            }
            self.advance();
        }
    }

    fn gettoken_web(&mut self) -> Result<Token, TsError> {
        loop {
            let c = self.cur();
            match self.state {
                State::FirstOperand | State::Operand => match c {
                    Some('-') => {
                        self.pos += 1;
                        self.state = State::Operand;
                        return Ok(Token::Opr(OP_NOT, 0));
                    }
                    Some('"') => {
                        self.pos += 1;
                        let start = self.pos;
                        let end = self.input[start..]
                            .find('"')
                            .map_or(self.input.len(), |i| start + i);
                        let text = self.input[start..end].to_string();
                        self.pos = if end < self.input.len() { end + 1 } else { end };
                        self.state = State::Operator;
                        self.count += 1;
                        return Ok(Token::Val {
                            text,
                            weight: 0,
                            prefix: false,
                        });
                    }
                    Some(ch) if is_operator_char(ch) => {
                        self.pos += 1;
                        self.state = State::Operand;
                        continue;
                    }
                    Some(ch) if is_space(ch) => {}
                    _ => {
                        return match self.get_word(true)? {
                            Some(text) => {
                                self.state = State::Operator;
                                Ok(Token::Val {
                                    text,
                                    weight: 0,
                                    prefix: false,
                                })
                            }
                            None if self.state == State::FirstOperand => Ok(Token::End),
                            None => {
                                // An operator still wants its operand.
                                self.items.push(Item::Stop);
                                Ok(Token::End)
                            }
                        };
                    }
                },
                State::Operator => match c {
                    Some('"') => {
                        self.state = State::Operand;
                        return Ok(Token::Opr(OP_AND, 0));
                    }
                    _ if self.parse_or_operator() => {
                        self.state = State::Operand;
                        return Ok(Token::Opr(OP_OR, 0));
                    }
                    None => return Ok(Token::End),
                    // Operator characters between operands are ignored.
                    Some(ch) if is_operator_char(ch) => {}
                    Some(ch) if !is_space(ch) => {
                        self.state = State::Operand;
                        return Ok(Token::Opr(OP_AND, 0));
                    }
                    _ => {}
                },
            }
            self.advance();
        }
    }

    /// `or` (any case) not glued to a word and followed by something.
    fn parse_or_operator(&mut self) -> bool {
        let b = self.input.as_bytes();
        let p = self.pos;
        if b.len() < p + 2 || !b[p..p + 2].eq_ignore_ascii_case(b"or") {
            return false;
        }
        let mut q = p + 2;
        let Some(c) = self.char_at(q) else {
            return false;
        };
        if c == '-' || c == '_' || c.is_alphanumeric() {
            return false;
        }
        loop {
            match self.char_at(q) {
                Some(ch) => q += ch.len_utf8(),
                None => return false,
            }
            match self.char_at(q) {
                None => return false,
                Some(ch) if !is_space(ch) => break,
                _ => {}
            }
        }
        self.pos += 2;
        true
    }

    /// `<->` or `<N>` at the current position; `None` (position unchanged) if there is
    /// none. Like PostgreSQL, the operator must be followed by something.
    fn parse_phrase_operator(&mut self) -> Result<Option<u16>, TsError> {
        let b = self.input.as_bytes();
        let mut p = self.pos;
        let mut st = 0;
        let mut dist: i64 = 1;
        while p < b.len() {
            match st {
                0 => {
                    if b[p] != b'<' {
                        return Ok(None);
                    }
                    st = 1;
                    p += 1;
                }
                1 => {
                    if b[p] == b'-' {
                        st = 2;
                        p += 1;
                        continue;
                    }
                    if !b[p].is_ascii_digit() {
                        return Ok(None);
                    }
                    let mut v: i64 = 0;
                    while p < b.len() && b[p].is_ascii_digit() {
                        v = v.saturating_mul(10).saturating_add((b[p] - b'0') as i64);
                        p += 1;
                    }
                    if v > MAX_ENTRY_POS {
                        return Err(distance_error());
                    }
                    dist = v;
                    st = 2;
                }
                2 => {
                    if b[p] != b'>' {
                        return Ok(None);
                    }
                    st = 3;
                    p += 1;
                }
                _ => {
                    self.pos = p;
                    return Ok(Some(dist as u16));
                }
            }
        }
        Ok(None)
    }

    /// `:ABCD*` after an operand.
    fn get_modifiers(&mut self) -> (u8, bool) {
        let mut weight = 0u8;
        let mut prefix = false;
        if self.cur() != Some(':') {
            return (0, false);
        }
        self.pos += 1;
        while let Some(c) = self.cur() {
            match c {
                'a' | 'A' => weight |= 1 << 3,
                'b' | 'B' => weight |= 1 << 2,
                'c' | 'C' => weight |= 1 << 1,
                'd' | 'D' => weight |= 1,
                '*' => prefix = true,
                _ => break,
            }
            self.pos += 1;
        }
        (weight, prefix)
    }

    /// One operand by the tsvector lexer's rules (PostgreSQL's gettoken_tsvector in
    /// tsquery mode); `None` at the end of the input.
    fn get_word(&mut self, web: bool) -> Result<Option<String>, TsError> {
        #[derive(Clone, Copy, PartialEq)]
        enum S {
            Word,
            NextChar,
            EndWord,
            EndCmplx,
            CharCmplx,
        }
        let mut st = S::Word;
        let mut old = S::EndWord;
        let mut word = String::new();
        loop {
            let c = self.cur();
            match st {
                S::Word => match c {
                    None => return Ok(None),
                    Some('\'') if !web => st = S::EndCmplx,
                    Some('\\') if !web => {
                        st = S::NextChar;
                        old = S::EndWord;
                    }
                    Some(ch) if is_operator_char(ch) || (web && ch == '"') => {
                        return Err(syntax_error(self.input));
                    }
                    Some(ch) if !is_space(ch) => {
                        word.push(ch);
                        st = S::EndWord;
                    }
                    Some(_) => {}
                },
                S::NextChar => match c {
                    None => {
                        return Err(TsError::new(
                            "42601",
                            format!("there is no escaped character: \"{}\"", self.input),
                        ));
                    }
                    Some(ch) => {
                        word.push(ch);
                        st = old;
                    }
                },
                S::EndWord => match c {
                    Some('\\') if !web => {
                        st = S::NextChar;
                        old = S::EndWord;
                    }
                    None => return Ok(Some(word)),
                    Some(ch) if is_space(ch) || is_operator_char(ch) || (web && ch == '"') => {
                        return Ok(Some(word));
                    }
                    Some(':') => return Ok(Some(word)),
                    Some(ch) => word.push(ch),
                },
                S::EndCmplx => match c {
                    Some('\'') if !web => st = S::CharCmplx,
                    Some('\\') if !web => {
                        st = S::NextChar;
                        old = S::EndCmplx;
                    }
                    None => return Err(syntax_error(self.input)),
                    Some(ch) => word.push(ch),
                },
                S::CharCmplx => match c {
                    Some('\'') if !web => {
                        word.push('\'');
                        st = S::EndCmplx;
                    }
                    _ => {
                        if word.is_empty() {
                            return Err(syntax_error(self.input));
                        }
                        return Ok(Some(word));
                    }
                },
            }
            self.advance();
        }
    }

    fn push_value(&mut self, word: &str, weight: u8, prefix: bool) -> Result<(), TsError> {
        if word.len() >= MAX_STR_LEN {
            return Err(TsError::new(
                "54000",
                format!("word is too long in tsquery: \"{}\"", self.input),
            ));
        }
        if self.sumlen >= MAX_STR_POS {
            return Err(TsError::new(
                "54000",
                format!("value is too big in tsquery: \"{}\"", self.input),
            ));
        }
        self.sumlen += word.len() + 1;
        self.items.push(Item::Val {
            word: word.to_string(),
            weight,
            prefix,
        });
        Ok(())
    }

    fn pushval(
        &mut self,
        push: &Push,
        text: &str,
        weight: u8,
        prefix: bool,
    ) -> Result<(), TsError> {
        match push {
            Push::AsIs => self.push_value(text, weight, prefix),
            Push::Morph(lex, qop) => {
                let words = lex.parsetext(text);
                self.push_morph(&words, *qop, weight, prefix)
            }
        }
    }

    /// PostgreSQL's pushval_morph over the words of one operand.
    fn push_morph(
        &mut self,
        words: &[ParsedWord],
        qop: u8,
        weight: u8,
        prefix: bool,
    ) -> Result<(), TsError> {
        if words.is_empty() {
            self.items.push(Item::Stop);
            return Ok(());
        }
        let wpos = |w: &ParsedWord| w.pos.min(MAX_POS as u32);
        let mut count = 0;
        let mut pos: u32 = 0;
        let mut cntpos = 0;
        while count < words.len() {
            if pos > 0 && pos + 1 < wpos(&words[count]) {
                while pos + 1 < wpos(&words[count]) {
                    self.items.push(Item::Stop);
                    if cntpos > 0 {
                        self.items.push(Item::Op(qop, 1));
                    }
                    cntpos += 1;
                    pos += 1;
                }
            }
            pos = wpos(&words[count]);
            let mut cntvar = 0;
            while count < words.len() && pos == wpos(&words[count]) {
                let variant = words[count].nvariant;
                let mut cnt = 0;
                while count < words.len()
                    && pos == wpos(&words[count])
                    && variant == words[count].nvariant
                {
                    self.push_value(&words[count].word, weight, prefix)?;
                    if cnt > 0 {
                        self.items.push(Item::Op(OP_AND, 0));
                    }
                    cnt += 1;
                    count += 1;
                }
                if cntvar > 0 {
                    self.items.push(Item::Op(OP_OR, 0));
                }
                cntvar += 1;
            }
            if cntpos > 0 {
                self.items.push(Item::Op(qop, 1));
            }
            cntpos += 1;
        }
        Ok(())
    }

    /// Infix to postfix with one operator stack per parenthesis level.
    fn makepol(&mut self, push: &Push) -> Result<(), TsError> {
        let mut frames: Vec<Vec<(u8, u16)>> = vec![Vec::new()];
        loop {
            match self.gettoken()? {
                Token::End => break,
                Token::Val {
                    text,
                    weight,
                    prefix,
                } => self.pushval(push, &text, weight, prefix)?,
                Token::Opr(op, d) => {
                    let Some(top) = frames.last_mut() else {
                        return Err(syntax_error(self.input));
                    };
                    clean_op_stack(&mut self.items, top, op);
                    if top.len() == OP_STACK_DEPTH {
                        return Err(internal("tsquery stack too small"));
                    }
                    top.push((op, d));
                }
                Token::Open => {
                    if frames.len() >= MAX_DEPTH {
                        return Err(depth_error());
                    }
                    frames.push(Vec::new());
                }
                Token::Close => {
                    if let Some(mut top) = frames.pop() {
                        clean_op_stack(&mut self.items, &mut top, OP_OR);
                    }
                    if frames.is_empty() {
                        frames.push(Vec::new());
                    }
                }
                Token::Err => return Err(syntax_error(self.input)),
            }
        }
        while let Some(mut top) = frames.pop() {
            clean_op_stack(&mut self.items, &mut top, OP_OR);
        }
        Ok(())
    }
}

fn clean_op_stack(out: &mut Vec<Item>, stack: &mut Vec<(u8, u16)>, op: u8) {
    let p = priority(op);
    while let Some(&(top, d)) = stack.last() {
        let tp = priority(top);
        if (op != OP_NOT && p > tp) || (op == OP_NOT && p >= tp) {
            break;
        }
        stack.pop();
        out.push(Item::Op(top, if top == OP_PHRASE { d } else { 0 }));
    }
}

/// PostgreSQL's parse_tsquery: parse, then remove stop-word placeholders.
fn parse_impl(
    input: &str,
    mode: Mode,
    push: Push,
    notices: &mut Vec<String>,
) -> Result<TsQuery, TsError> {
    // C strings end at the first NUL.
    let input = input.split('\0').next().unwrap_or("");
    let mut p = Parser::new(input, mode);
    p.makepol(&push)?;
    let items = std::mem::take(&mut p.items);
    if items.is_empty() {
        notices.push(format!(
            "text-search query doesn't contain lexemes: \"{input}\""
        ));
        return Ok(TsQuery { root: None });
    }
    if items.len() > (MAX_ALLOC_SIZE - HDR_SIZE).saturating_sub(p.sumlen) / QUERY_ITEM_SIZE {
        return Err(TsError::new("54000", "tsquery is too large"));
    }
    check_postfix(&items, true)?;
    let items = if items.iter().any(|i| matches!(i, Item::Stop)) {
        match cleanup_stopwords(items) {
            Some(v) => v,
            None => {
                notices.push(
                    "text-search query contains only stop words or doesn't contain lexemes, ignored"
                        .to_string(),
                );
                return Ok(TsQuery { root: None });
            }
        }
    } else {
        items
    };
    Ok(TsQuery {
        root: build_tree(items),
    })
}

// ---------------------------------------------------------------------------------
// Postfix lists and trees

/// Checks that a postfix list is one well-formed tree, optionally no deeper than
/// [`MAX_DEPTH`].
fn check_postfix(items: &[Item], limit_depth: bool) -> Result<(), TsError> {
    let mut depths: Vec<usize> = Vec::new();
    for it in items {
        let d = match arity(it) {
            0 => 0,
            1 => {
                depths
                    .pop()
                    .ok_or_else(|| internal("malformed tsquery: operand not found"))?
                    + 1
            }
            _ => {
                let r = depths.pop();
                let l = depths.pop();
                match (l, r) {
                    (Some(l), Some(r)) => l.max(r) + 1,
                    _ => return Err(internal("malformed tsquery: operand not found")),
                }
            }
        };
        if limit_depth && d > MAX_DEPTH {
            return Err(depth_error());
        }
        depths.push(d);
    }
    match depths.len() {
        1 => Ok(()),
        0 => Err(internal("malformed tsquery: operand not found")),
        _ => Err(internal("malformed tsquery: extra nodes")),
    }
}

/// A tree from a well-formed postfix list without placeholders (see `check_postfix`).
fn build_tree(items: Vec<Item>) -> Option<QueryNode> {
    let mut st: Vec<QueryNode> = Vec::new();
    for it in items {
        let node = match it {
            Item::Val {
                word,
                weight,
                prefix,
            } => QueryNode::Operand {
                word,
                weight,
                prefix,
            },
            Item::Stop => return None,
            Item::Op(OP_NOT, _) => QueryNode::Not(Box::new(st.pop()?)),
            Item::Op(op, d) => {
                let r = Box::new(st.pop()?);
                let l = Box::new(st.pop()?);
                match op {
                    OP_AND => QueryNode::And(l, r),
                    OP_OR => QueryNode::Or(l, r),
                    _ => QueryNode::Phrase(l, r, d),
                }
            }
        };
        st.push(node);
    }
    if st.len() == 1 { st.pop() } else { None }
}

/// The nodes of a tree in PostgreSQL's item order (operator, right, left).
fn pg_order(root: &QueryNode) -> Vec<&QueryNode> {
    let mut out = Vec::new();
    let mut st: Vec<&QueryNode> = vec![root];
    while let Some(n) = st.pop() {
        out.push(n);
        match n {
            QueryNode::Operand { .. } => {}
            QueryNode::Not(c) => st.push(c),
            QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                st.push(l);
                st.push(r);
            }
        }
    }
    out
}

fn to_item(n: &QueryNode) -> Item {
    match n {
        QueryNode::Operand {
            word,
            weight,
            prefix,
        } => Item::Val {
            word: word.clone(),
            weight: *weight,
            prefix: *prefix,
        },
        QueryNode::Not(_) => Item::Op(OP_NOT, 0),
        QueryNode::And(..) => Item::Op(OP_AND, 0),
        QueryNode::Or(..) => Item::Op(OP_OR, 0),
        QueryNode::Phrase(_, _, d) => Item::Op(OP_PHRASE, *d),
    }
}

fn to_postfix(root: &QueryNode) -> Vec<Item> {
    root.postorder().into_iter().map(to_item).collect()
}

/// Builds a tree from items in PostgreSQL's order (operator, right, left), checking
/// what PostgreSQL's findoprnd checks.
fn tree_from_pg_order(
    mut items: Vec<Item>,
    limit_depth: bool,
) -> Result<Option<QueryNode>, TsError> {
    let mut need = 1usize;
    for it in &items {
        if need == 0 {
            return Err(internal("malformed tsquery: extra nodes"));
        }
        need = need - 1 + arity(it);
    }
    if need > 0 {
        return Err(internal("malformed tsquery: operand not found"));
    }
    items.reverse();
    check_postfix(&items, limit_depth)?;
    Ok(build_tree(items))
}

// ---------------------------------------------------------------------------------
// Stop-word removal and NOT removal (tsquery_cleanup.c)

/// Removes placeholders, lengthening phrase distances over them; `None` when nothing
/// is left.
fn cleanup_stopwords(items: Vec<Item>) -> Option<Vec<Item>> {
    struct C {
        null: bool,
        ladd: i32,
        radd: i32,
    }
    let mut out = Vec::with_capacity(items.len());
    let mut st: Vec<C> = Vec::new();
    for it in items {
        match it {
            Item::Stop => st.push(C {
                null: true,
                ladd: 0,
                radd: 0,
            }),
            Item::Val { .. } => {
                out.push(it);
                st.push(C {
                    null: false,
                    ladd: 0,
                    radd: 0,
                });
            }
            Item::Op(OP_NOT, d) => {
                let c = st.pop()?;
                if !c.null {
                    out.push(Item::Op(OP_NOT, d));
                }
                st.push(c);
            }
            Item::Op(op, d) => {
                let r = st.pop()?;
                let l = st.pop()?;
                let phrase = op == OP_PHRASE;
                let nd = if phrase { d as i16 as i32 } else { 0 };
                let c = match (l.null, r.null) {
                    (true, true) => {
                        let add = if phrase {
                            l.ladd.wrapping_add(nd).wrapping_add(r.ladd)
                        } else {
                            l.ladd.max(r.ladd)
                        };
                        C {
                            null: true,
                            ladd: add,
                            radd: add,
                        }
                    }
                    (true, false) => C {
                        null: false,
                        ladd: if phrase {
                            l.ladd.wrapping_add(nd).wrapping_add(r.ladd)
                        } else {
                            r.ladd
                        },
                        radd: r.radd,
                    },
                    (false, true) => C {
                        null: false,
                        ladd: l.ladd,
                        radd: if phrase {
                            l.radd.wrapping_add(nd).wrapping_add(r.radd)
                        } else {
                            l.radd
                        },
                    },
                    (false, false) => {
                        if phrase {
                            let nd = nd.wrapping_add(l.radd).wrapping_add(r.ladd);
                            out.push(Item::Op(op, nd as u16));
                            C {
                                null: false,
                                ladd: l.ladd,
                                radd: r.radd,
                            }
                        } else {
                            out.push(Item::Op(op, d));
                            C {
                                null: false,
                                ladd: 0,
                                radd: 0,
                            }
                        }
                    }
                };
                st.push(c);
            }
        }
    }
    let top = st.pop()?;
    if top.null { None } else { Some(out) }
}

/// Removes NOT subtrees (an OR with one removed side goes entirely); `None` when
/// nothing is left.
fn clean_not(items: Vec<Item>) -> Option<Vec<Item>> {
    struct C {
        null: bool,
        start: usize,
    }
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    let mut st: Vec<C> = Vec::new();
    for it in items {
        match it {
            Item::Op(OP_NOT, _) => {
                let c = st.pop()?;
                out.truncate(c.start);
                st.push(C {
                    null: true,
                    start: c.start,
                });
            }
            Item::Op(op, d) => {
                let r = st.pop()?;
                let l = st.pop()?;
                let c = if op == OP_OR {
                    if l.null || r.null {
                        out.truncate(l.start);
                        C {
                            null: true,
                            start: l.start,
                        }
                    } else {
                        out.push(Item::Op(op, d));
                        C {
                            null: false,
                            start: l.start,
                        }
                    }
                } else if l.null && r.null {
                    C {
                        null: true,
                        start: l.start,
                    }
                } else {
                    if !l.null && !r.null {
                        out.push(Item::Op(op, d));
                    }
                    C {
                        null: false,
                        start: l.start,
                    }
                };
                st.push(c);
            }
            _ => {
                st.push(C {
                    null: false,
                    start: out.len(),
                });
                out.push(it);
            }
        }
    }
    let top = st.pop()?;
    if top.null { None } else { Some(out) }
}

// ---------------------------------------------------------------------------------
// Input and output

/// `tsqueryin`. The NOTICE PostgreSQL raises for an empty query is dropped; see
/// [`parse_tsquery_notices`].
pub fn parse_tsquery(s: &str) -> Result<TsQuery, TsError> {
    parse_tsquery_notices(s, &mut Vec::new())
}

/// `tsqueryin`, with the NOTICE of a query without operands pushed to `notices`.
pub fn parse_tsquery_notices(s: &str, notices: &mut Vec<String>) -> Result<TsQuery, TsError> {
    parse_impl(s, Mode::Standard, Push::AsIs, notices)
}

fn write_operand(word: &str, weight: u8, prefix: bool, out: &mut String) {
    out.push('\'');
    for c in word.chars() {
        if c == '\'' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    if weight != 0 || prefix {
        out.push(':');
        if prefix {
            out.push('*');
        }
        for (bit, ch) in [(8u8, 'A'), (4, 'B'), (2, 'C'), (1, 'D')] {
            if weight & bit != 0 {
                out.push(ch);
            }
        }
    }
}

/// `tsqueryout`: the empty query is the empty string.
pub fn format_tsquery(q: &TsQuery, out: &mut String) {
    enum Task<'a> {
        Node(&'a QueryNode, i32, bool),
        Lit(&'static str),
        Dist(u16),
    }
    let Some(root) = &q.root else {
        return;
    };
    let mut st = vec![Task::Node(root, -1, false)];
    while let Some(t) = st.pop() {
        match t {
            Task::Lit(s) => out.push_str(s),
            Task::Dist(d) => {
                let d = d as i16;
                if d == 1 {
                    out.push_str(" <-> ");
                } else {
                    out.push_str(&format!(" <{d}> "));
                }
            }
            Task::Node(n, parent, right_phrase) => match n {
                QueryNode::Operand {
                    word,
                    weight,
                    prefix,
                } => write_operand(word, *weight, *prefix, out),
                QueryNode::Not(c) => {
                    let p = priority(OP_NOT);
                    let paren = p < parent;
                    if paren {
                        out.push_str("( ");
                        st.push(Task::Lit(" )"));
                    }
                    out.push('!');
                    st.push(Task::Node(c, p, false));
                }
                QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                    let (op, sep) = match n {
                        QueryNode::And(..) => (OP_AND, Task::Lit(" & ")),
                        QueryNode::Or(..) => (OP_OR, Task::Lit(" | ")),
                        QueryNode::Phrase(_, _, d) => (OP_PHRASE, Task::Dist(*d)),
                        _ => unreachable!(),
                    };
                    let p = priority(op);
                    let paren = p < parent || (op == OP_PHRASE && right_phrase);
                    if paren {
                        out.push_str("( ");
                        st.push(Task::Lit(" )"));
                    }
                    st.push(Task::Node(r, p, op == OP_PHRASE));
                    st.push(sep);
                    st.push(Task::Node(l, p, false));
                }
            },
        }
    }
}

/// `tsqueryout` into a new string.
pub fn to_text(q: &TsQuery) -> String {
    let mut s = String::new();
    format_tsquery(q, &mut s);
    s
}

// ---------------------------------------------------------------------------------
// The legacy CRC-32 PostgreSQL keeps per operand (`valcrc`)

const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// PostgreSQL's legacy CRC-32 of an operand, as the signed `valcrc`.
pub(super) fn valcrc(word: &str) -> i32 {
    let mut crc: u32 = 0xFFFF_FFFF;
    for &b in word.as_bytes() {
        let idx = (((crc >> 24) ^ b as u32) & 0xFF) as usize;
        crc = CRC_TABLE[idx] ^ (crc << 8);
    }
    (crc ^ 0xFFFF_FFFF) as i32
}

// ---------------------------------------------------------------------------------
// Storage encoding

const TAG_VAL: u8 = 5;

/// Storage bytes; see the module documentation for the order they sort in.
pub fn encode(q: &TsQuery) -> Vec<u8> {
    let mut out = Vec::new();
    let Some(root) = &q.root else {
        out.extend_from_slice(&[0u8; 8]);
        return out;
    };
    let nodes = pg_order(root);
    let sumlen: usize = nodes
        .iter()
        .map(|n| match n {
            QueryNode::Operand { word, .. } => word.len() + 1,
            _ => 0,
        })
        .sum();
    out.extend_from_slice(&(nodes.len() as u32).to_be_bytes());
    out.extend_from_slice(&(sumlen as u32).to_be_bytes());
    let mut tail = Vec::new();
    // The distance of a phrase operator follows its children.
    enum Task<'a> {
        Node(&'a QueryNode),
        Dist(u16),
    }
    let mut st = vec![Task::Node(root)];
    while let Some(t) = st.pop() {
        match t {
            Task::Dist(d) => {
                let key = !((d as i16 as u16) ^ 0x8000);
                out.extend_from_slice(&key.to_be_bytes());
            }
            Task::Node(n) => match n {
                QueryNode::Operand {
                    word,
                    weight,
                    prefix,
                } => {
                    out.push(TAG_VAL);
                    let key = !((valcrc(word) as u32) ^ 0x8000_0000);
                    out.extend_from_slice(&key.to_be_bytes());
                    for &b in word.as_bytes() {
                        out.push(b);
                        if b == 0 {
                            out.push(0xFF);
                        }
                    }
                    out.extend_from_slice(&[0, 0]);
                    tail.push((weight & 0x0F) | if *prefix { 0x10 } else { 0 });
                }
                QueryNode::Not(c) => {
                    out.push(5 - OP_NOT);
                    st.push(Task::Node(c));
                }
                QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                    let op = match n {
                        QueryNode::And(..) => OP_AND,
                        QueryNode::Or(..) => OP_OR,
                        _ => OP_PHRASE,
                    };
                    out.push(5 - op);
                    if let QueryNode::Phrase(_, _, d) = n {
                        st.push(Task::Dist(*d));
                    }
                    st.push(Task::Node(l));
                    st.push(Task::Node(r));
                }
            },
        }
    }
    out.extend_from_slice(&tail);
    out
}

/// Reads [`encode`]'s bytes back; `None` if they are not such bytes.
pub fn decode(b: &[u8]) -> Option<TsQuery> {
    let count = u32::from_be_bytes(b.get(0..4)?.try_into().ok()?) as usize;
    let sumlen = u32::from_be_bytes(b.get(4..8)?.try_into().ok()?) as usize;
    let mut p = 8;
    if count == 0 {
        return (sumlen == 0 && b.len() == 8).then_some(TsQuery { root: None });
    }
    // Items in PostgreSQL's order; a frame per open operator: (item index, children
    // still to read).
    let mut items: Vec<Item> = Vec::new();
    let mut frames: Vec<(usize, usize)> = Vec::new();
    let mut nval = 0usize;
    let mut seen_len = 0usize;
    loop {
        let tag = *b.get(p)?;
        p += 1;
        if tag == TAG_VAL {
            let key = u32::from_be_bytes(b.get(p..p + 4)?.try_into().ok()?);
            p += 4;
            let mut word = Vec::new();
            loop {
                let c = *b.get(p)?;
                p += 1;
                if c == 0 {
                    let n = *b.get(p)?;
                    p += 1;
                    match n {
                        0 => break,
                        0xFF => word.push(0),
                        _ => return None,
                    }
                } else {
                    word.push(c);
                }
            }
            let word = String::from_utf8(word).ok()?;
            if !((valcrc(&word) as u32) ^ 0x8000_0000) != key {
                return None;
            }
            seen_len += word.len() + 1;
            nval += 1;
            items.push(Item::Val {
                word,
                weight: 0,
                prefix: false,
            });
            // Close every operator this operand completes.
            while let Some(top) = frames.last_mut() {
                top.1 -= 1;
                if top.1 > 0 {
                    break;
                }
                let (idx, _) = frames.pop()?;
                if let Item::Op(OP_PHRASE, d) = &mut items[idx] {
                    let key = u16::from_be_bytes(b.get(p..p + 2)?.try_into().ok()?);
                    p += 2;
                    *d = !key ^ 0x8000;
                }
            }
            if frames.is_empty() {
                break;
            }
        } else if (1..=4).contains(&tag) {
            let op = 5 - tag;
            frames.push((items.len(), if op == OP_NOT { 1 } else { 2 }));
            items.push(Item::Op(op, 0));
        } else {
            return None;
        }
        if items.len() > count {
            return None;
        }
    }
    if items.len() != count || seen_len != sumlen || b.len() != p + nval {
        return None;
    }
    let mut tail = b[p..].iter();
    for it in items.iter_mut() {
        if let Item::Val { weight, prefix, .. } = it {
            let t = *tail.next()?;
            if t & 0xE0 != 0 {
                return None;
            }
            *weight = t & 0x0F;
            *prefix = t & 0x10 != 0;
        }
    }
    let root = tree_from_pg_order(items, false).ok()??;
    Some(TsQuery { root: Some(root) })
}

// ---------------------------------------------------------------------------------
// Binary wire format

/// `tsquerysend`.
pub fn send(q: &TsQuery, out: &mut Vec<u8>) {
    let Some(root) = &q.root else {
        out.extend_from_slice(&0i32.to_be_bytes());
        return;
    };
    let nodes = pg_order(root);
    out.extend_from_slice(&(nodes.len() as i32).to_be_bytes());
    for n in nodes {
        match n {
            QueryNode::Operand {
                word,
                weight,
                prefix,
            } => {
                out.push(QI_VAL);
                out.push(*weight);
                out.push(*prefix as u8);
                out.extend_from_slice(word.as_bytes());
                out.push(0);
            }
            QueryNode::Not(_) => out.extend_from_slice(&[QI_OPR, OP_NOT]),
            QueryNode::And(..) => out.extend_from_slice(&[QI_OPR, OP_AND]),
            QueryNode::Or(..) => out.extend_from_slice(&[QI_OPR, OP_OR]),
            QueryNode::Phrase(_, _, d) => {
                out.extend_from_slice(&[QI_OPR, OP_PHRASE]);
                out.extend_from_slice(&d.to_be_bytes());
            }
        }
    }
}

fn insufficient() -> TsError {
    TsError::new("08P01", "insufficient data left in message")
}

fn invalid_utf8(bytes: &[u8]) -> TsError {
    let bad = match std::str::from_utf8(bytes) {
        Ok(_) => &[][..],
        Err(e) => {
            let start = e.valid_up_to();
            let first = bytes[start];
            let want = match first {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            &bytes[start..(start + want).min(bytes.len())]
        }
    };
    let shown: Vec<String> = bad.iter().map(|x| format!("0x{x:02x}")).collect();
    TsError::new(
        "22021",
        format!(
            "invalid byte sequence for encoding \"UTF8\": {}",
            shown.join(" ")
        ),
    )
}

/// `tsqueryrecv`, with its checks. Like PostgreSQL, a query of no items (what `send`
/// gives for the empty query) is refused. Bytes left over after the query are an error
/// (`22P03 incorrect binary data format`).
pub fn recv(b: &[u8]) -> Result<TsQuery, TsError> {
    let mut p = 0usize;
    let take = |p: &mut usize, n: usize| -> Result<&[u8], TsError> {
        let s = b.get(*p..*p + n).ok_or_else(insufficient)?;
        *p += n;
        Ok(s)
    };
    let size =
        u32::from_be_bytes(take(&mut p, 4)?.try_into().map_err(|_| insufficient())?) as usize;
    if size > MAX_ALLOC_SIZE / QUERY_ITEM_SIZE {
        return Err(internal("invalid size of tsquery"));
    }
    let mut items: Vec<Item> = Vec::new();
    let mut datalen = 0usize;
    for i in 0..size {
        let ty = take(&mut p, 1)?[0];
        if ty == QI_VAL {
            let weight = take(&mut p, 1)?[0];
            let prefix = take(&mut p, 1)?[0];
            let rest = &b[p..];
            let Some(nul) = rest.iter().position(|&c| c == 0) else {
                return Err(TsError::new("08P01", "invalid string in message"));
            };
            let raw = &rest[..nul];
            p += nul + 1;
            let word = std::str::from_utf8(raw).map_err(|_| invalid_utf8(raw))?;
            if weight > 0x0F {
                return Err(internal("invalid tsquery: invalid weight bitmap"));
            }
            if word.len() > MAX_STR_LEN {
                return Err(internal("invalid tsquery: operand too long"));
            }
            if datalen > MAX_STR_POS {
                return Err(internal("invalid tsquery: total operand length exceeded"));
            }
            datalen += word.len() + 1;
            items.push(Item::Val {
                word: word.to_string(),
                weight,
                prefix: prefix != 0,
            });
        } else if ty == QI_OPR {
            let oper = take(&mut p, 1)?[0];
            if !(OP_NOT..=OP_PHRASE).contains(&oper) {
                return Err(internal(format!(
                    "invalid tsquery: unrecognized operator type {}",
                    oper as i8
                )));
            }
            if i == size - 1 {
                return Err(internal("invalid pointer to right operand"));
            }
            let mut d = 0u16;
            if oper == OP_PHRASE {
                d = u16::from_be_bytes(take(&mut p, 2)?.try_into().map_err(|_| insufficient())?);
            }
            items.push(Item::Op(oper, d));
        } else {
            return Err(internal(format!(
                "unrecognized tsquery node type: {}",
                ty as i8
            )));
        }
    }
    let root = tree_from_pg_order(items, true)?;
    if p != b.len() {
        return Err(TsError::new("22P03", "incorrect binary data format"));
    }
    Ok(TsQuery { root })
}

// ---------------------------------------------------------------------------------
// to_tsquery and friends (to_tsany.c)

/// `to_tsquery(config, text)`: tsquery syntax, each operand through the configuration,
/// a token's words joined by `<->`.
pub fn to_tsquery(
    lex: &dyn Lexizer,
    s: &str,
    notices: &mut Vec<String>,
) -> Result<TsQuery, TsError> {
    parse_impl(s, Mode::Standard, Push::Morph(lex, OP_PHRASE), notices)
}

/// `plainto_tsquery(config, text)`: the words ANDed.
pub fn plainto_tsquery(
    lex: &dyn Lexizer,
    s: &str,
    notices: &mut Vec<String>,
) -> Result<TsQuery, TsError> {
    parse_impl(s, Mode::Plain, Push::Morph(lex, OP_AND), notices)
}

/// `phraseto_tsquery(config, text)`: the words as a phrase.
pub fn phraseto_tsquery(
    lex: &dyn Lexizer,
    s: &str,
    notices: &mut Vec<String>,
) -> Result<TsQuery, TsError> {
    parse_impl(s, Mode::Plain, Push::Morph(lex, OP_PHRASE), notices)
}

/// `websearch_to_tsquery(config, text)`: `"phrase"`, `or`, `-word`, words ANDed.
pub fn websearch_to_tsquery(
    lex: &dyn Lexizer,
    s: &str,
    notices: &mut Vec<String>,
) -> Result<TsQuery, TsError> {
    parse_impl(s, Mode::Web, Push::Morph(lex, OP_PHRASE), notices)
}

// ---------------------------------------------------------------------------------
// Operators and functions (tsquery_op.c, tsquery.c)

/// `tsquery && tsquery`.
pub fn and(a: &TsQuery, b: &TsQuery) -> TsQuery {
    join(a, b, QueryNode::And)
}

/// `tsquery || tsquery`.
pub fn or(a: &TsQuery, b: &TsQuery) -> TsQuery {
    join(a, b, QueryNode::Or)
}

fn join(
    a: &TsQuery,
    b: &TsQuery,
    f: impl FnOnce(Box<QueryNode>, Box<QueryNode>) -> QueryNode,
) -> TsQuery {
    match (&a.root, &b.root) {
        (None, _) => b.clone(),
        (_, None) => a.clone(),
        (Some(l), Some(r)) => TsQuery {
            root: Some(f(Box::new(l.clone()), Box::new(r.clone()))),
        },
    }
}

/// `!! tsquery`.
pub fn not(a: &TsQuery) -> TsQuery {
    match &a.root {
        None => a.clone(),
        Some(n) => TsQuery {
            root: Some(QueryNode::Not(Box::new(n.clone()))),
        },
    }
}

/// `tsquery <-> tsquery` (distance 1) and `tsquery_phrase(a, b, distance)`.
pub fn phrase(a: &TsQuery, b: &TsQuery, distance: i32) -> Result<TsQuery, TsError> {
    if !(0..=MAX_ENTRY_POS as i32).contains(&distance) {
        return Err(distance_error());
    }
    Ok(join(a, b, |l, r| QueryNode::Phrase(l, r, distance as u16)))
}

/// `numnode(tsquery)`: operands and operators.
pub fn numnode(q: &TsQuery) -> i32 {
    q.root.as_ref().map_or(0, |r| pg_order(r).len() as i32)
}

/// `querytree(tsquery)`: the query without its NOT parts, `T` when nothing is left,
/// the empty string for the empty query.
pub fn querytree(q: &TsQuery) -> String {
    let Some(root) = &q.root else {
        return String::new();
    };
    match clean_not(to_postfix(root)) {
        None => "T".to_string(),
        Some(items) => to_text(&TsQuery {
            root: build_tree(items),
        }),
    }
}

/// `tsquery @> tsquery` (tsq_mcontains): every operand of `b` is in `a`, compared as
/// PostgreSQL does, by the operands' CRCs only (operators, weights and prefix flags
/// play no part).
pub fn contains(a: &TsQuery, b: &TsQuery) -> bool {
    let crcs = |q: &TsQuery| -> Vec<i32> {
        q.root.as_ref().map_or(Vec::new(), |r| {
            pg_order(r)
                .into_iter()
                .filter_map(|n| match n {
                    QueryNode::Operand { word, .. } => Some(valcrc(word)),
                    _ => None,
                })
                .collect()
        })
    };
    let mut have = crcs(a);
    have.sort_unstable();
    crcs(b).iter().all(|c| have.binary_search(c).is_ok())
}

/// `tsquery <@ tsquery`.
pub fn contained(a: &TsQuery, b: &TsQuery) -> bool {
    contains(b, a)
}

/// PostgreSQL's `tsquery_cmp` (ignores weights and prefix flags).
pub fn compare(a: &TsQuery, b: &TsQuery) -> std::cmp::Ordering {
    let ea = encode(a);
    let eb = encode(b);
    let key = |e: &[u8], q: &TsQuery| {
        let n = q.root.as_ref().map_or(0, |r| {
            pg_order(r)
                .iter()
                .filter(|n| matches!(n, QueryNode::Operand { .. }))
                .count()
        });
        e.len() - n
    };
    ea[..key(&ea, a)].cmp(&eb[..key(&eb, b)])
}

#[cfg(test)]
mod tests {
    //! Expected values come from PostgreSQL 15.
    use super::super::matching::matches;
    use super::super::{Lexeme, TsVector, make_pos};
    use super::*;

    /// Output, numnode and querytree (as `text || ' #' || numnode || ' #' || querytree`),
    /// or the error.
    fn describe(s: &str) -> String {
        match parse_tsquery(s) {
            Ok(q) => format!("{} #{} #{}", to_text(&q), numnode(&q), querytree(&q)),
            Err(e) => format!("ERROR {} {}", e.code, e.message),
        }
    }

    fn q(s: &str) -> TsQuery {
        parse_tsquery(s).unwrap()
    }

    /// A tsvector literal of the simple forms the tables use: `'w':1A,2 'x'`.
    fn vector(s: &str) -> TsVector {
        let mut lexemes: Vec<Lexeme> = s
            .split_whitespace()
            .map(|tok| {
                let (w, ps) = tok.split_once("':").unwrap_or((tok, ""));
                let word = w.trim_matches('\'').to_string();
                let positions = ps
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        let digits: String = p.chars().take_while(|c| c.is_ascii_digit()).collect();
                        let weight = match p.chars().last() {
                            Some('A') => 3,
                            Some('B') => 2,
                            Some('C') => 1,
                            _ => 0,
                        };
                        make_pos(digits.parse().unwrap(), weight)
                    })
                    .collect();
                Lexeme { word, positions }
            })
            .collect();
        lexemes.sort_by(|a, b| a.word.as_bytes().cmp(b.word.as_bytes()));
        TsVector { lexemes }
    }

    const PARSE: &[(&str, &str)] = &[
        ("a & b", "'a' & 'b' #3 #'a' & 'b'"),
        ("a | b & c", "'a' | 'b' & 'c' #5 #'a' | 'b' & 'c'"),
        ("(a | b) & c", "( 'a' | 'b' ) & 'c' #5 #( 'a' | 'b' ) & 'c'"),
        ("!a & !(b | c)", "!'a' & !( 'b' | 'c' ) #7 #T"),
        (
            "a <-> b <-> c",
            "'a' <-> 'b' <-> 'c' #5 #'a' <-> 'b' <-> 'c'",
        ),
        (
            "a <-> (b <-> c)",
            "'a' <-> ( 'b' <-> 'c' ) #5 #'a' <-> ( 'b' <-> 'c' )",
        ),
        (
            "(a <-> b) <-> c",
            "'a' <-> 'b' <-> 'c' #5 #'a' <-> 'b' <-> 'c'",
        ),
        ("a <2> b", "'a' <2> 'b' #3 #'a' <2> 'b'"),
        ("a <0> b", "'a' <0> 'b' #3 #'a' <0> 'b'"),
        ("a<1>b", "'a' <-> 'b' #3 #'a' <-> 'b'"),
        ("!a <-> !b", "!'a' <-> !'b' #5 #T"),
        (
            "a & b <-> c | d",
            "'a' & 'b' <-> 'c' | 'd' #7 #'a' & 'b' <-> 'c' | 'd'",
        ),
        (
            "(a | b) <-> c",
            "( 'a' | 'b' ) <-> 'c' #5 #( 'a' | 'b' ) <-> 'c'",
        ),
        ("!!a", "!!'a' #3 #T"),
        ("!( a <-> b )", "!( 'a' <-> 'b' ) #4 #T"),
        ("a & !b | c", "'a' & !'b' | 'c' #6 #'a' | 'c'"),
        ("a <-> !b", "'a' <-> !'b' #4 #'a'"),
        ("'a b' & c", "'a b' & 'c' #3 #'a b' & 'c'"),
        ("'it''s'", "'it''s' #1 #'it''s'"),
        ("a\\ b", "'a b' #1 #'a b'"),
        ("'back\\\\slash'", "'back\\\\slash' #1 #'back\\\\slash'"),
        ("sup:*", "'sup':* #1 #'sup':*"),
        ("x:ab*cD", "'x':*ABCD #1 #'x':*ABCD"),
        ("x:*A", "'x':*A #1 #'x':*A"),
        ("a:", "'a' #1 #'a'"),
        ("'a':A | b:*", "'a':A | 'b':* #3 #'a':A | 'b':*"),
        ("é & ü", "'é' & 'ü' #3 #'é' & 'ü'"),
        (
            "a\u{3000}b",
            "ERROR 42601 syntax error in tsquery: \"a\u{3000}b\"",
        ),
        ("a\u{a0}b", "'a\u{a0}b' #1 #'a\u{a0}b'"),
        ("a>b", "'a>b' #1 #'a>b'"),
        ("a-b", "'a-b' #1 #'a-b'"),
        ("a <16384> b", "'a' <16384> 'b' #3 #'a' <16384> 'b'"),
        (
            "!(a & b) | !(c <2> d)",
            "!( 'a' & 'b' ) | !( 'c' <2> 'd' ) #9 #T",
        ),
        (
            "a <16385> b",
            "ERROR 22023 distance in phrase operator must be an integer value between zero and 16384 inclusive",
        ),
        (
            "a <99999999999999999999> b",
            "ERROR 22023 distance in phrase operator must be an integer value between zero and 16384 inclusive",
        ),
        ("a & ", "ERROR 42601 no operand in tsquery: \"a & \""),
        ("!", "ERROR 42601 no operand in tsquery: \"!\""),
        ("()", "ERROR 42601 syntax error in tsquery: \"()\""),
        ("(a", "ERROR 42601 syntax error in tsquery: \"(a\""),
        ("a)", "ERROR 42601 syntax error in tsquery: \"a)\""),
        ("a b", "ERROR 42601 syntax error in tsquery: \"a b\""),
        ("a:1", "ERROR 42601 syntax error in tsquery: \"a:1\""),
        (":a", "ERROR 42601 syntax error in tsquery: \":a\""),
        ("''", "ERROR 42601 syntax error in tsquery: \"''\""),
        ("'a", "ERROR 42601 syntax error in tsquery: \"'a\""),
        ("a\\", "ERROR 42601 there is no escaped character: \"a\\\""),
        ("a <->", "ERROR 42601 syntax error in tsquery: \"a <->\""),
        (
            "a & & b",
            "ERROR 42601 syntax error in tsquery: \"a & & b\"",
        ),
        (
            "a <-1> b",
            "ERROR 42601 syntax error in tsquery: \"a <-1> b\"",
        ),
        ("'a'b", "ERROR 42601 syntax error in tsquery: \"'a'b\""),
    ];

    #[test]
    fn parse_and_format() {
        for (input, want) in PARSE {
            assert_eq!(describe(input), *want, "{input:?}");
            if let Ok(query) = parse_tsquery(input) {
                assert_eq!(decode(&encode(&query)), Some(query.clone()), "{input:?}");
                let mut b = Vec::new();
                send(&query, &mut b);
                assert_eq!(recv(&b), Ok(query), "{input:?}");
            }
        }
    }

    #[test]
    fn empty_query() {
        let mut notices = Vec::new();
        let e = parse_tsquery_notices("  ", &mut notices).unwrap();
        assert_eq!(e, TsQuery { root: None });
        assert_eq!(
            notices,
            ["text-search query doesn't contain lexemes: \"  \""]
        );
        assert_eq!(to_text(&e), "");
        assert_eq!(querytree(&e), "");
        assert_eq!(numnode(&e), 0);
        assert_eq!(decode(&encode(&e)), Some(e.clone()));
        let mut b = Vec::new();
        send(&e, &mut b);
        assert_eq!(b, [0, 0, 0, 0]);
        // PostgreSQL cannot read back its own empty query.
        assert_eq!(
            recv(&b).unwrap_err().message,
            "malformed tsquery: operand not found"
        );
        assert!(!matches(&vector("'a':1"), &e));
    }

    #[test]
    fn limits() {
        let long = "x".repeat(2047);
        let e = parse_tsquery(&long).unwrap_err();
        assert_eq!(
            (e.code, e.message),
            ("54000", format!("word is too long in tsquery: \"{long}\""))
        );
        assert!(parse_tsquery(&"x".repeat(2046)).is_ok());
        let big = vec!["y".repeat(2000); 600].join(" & ");
        let e = parse_tsquery(&big).unwrap_err();
        assert_eq!(
            (e.code, e.message),
            ("54000", format!("value is too big in tsquery: \"{big}\""))
        );
        assert!(parse_tsquery(&format!("{}a", "!".repeat(32))).is_ok());
        let e = parse_tsquery(&format!("{}a", "!".repeat(33))).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("XX000", "tsquery stack too small")
        );
        // PostgreSQL takes 5000 nested parentheses and 10000 chained operators, and
        // refuses 10000 nested parentheses and 100000 chained operators (54001).
        let nested = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(to_text(&q(&nested(5000))), "'a'");
        assert_eq!(parse_tsquery(&nested(10_000)).unwrap_err().code, "54001");
        let chain = q(&format!("a{}", " & a".repeat(10_000)));
        assert_eq!(numnode(&chain), 20_001);
        assert_eq!(to_text(&chain).len(), 60_003);
        assert!(matches(&vector("'a':1"), &chain));
        assert_eq!(decode(&encode(&chain)).map(|d| numnode(&d)), Some(20_001));
        let e = parse_tsquery(&format!("a{}", " & a".repeat(100_000))).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("54001", "stack depth limit exceeded")
        );
        let deep = format!("{}a{}", "a & (".repeat(100_000), ")".repeat(100_000));
        assert_eq!(parse_tsquery(&deep).unwrap_err().code, "54001");
    }

    const MATCH: &[(&str, &str, bool)] = &[
        ("'a':1 'b':2 'c':3", "a & b", true),
        ("'a':1 'b':2 'c':3", "a <-> b", true),
        ("'a':1 'b':2 'c':3", "b <-> a", false),
        ("'a':1 'b':2 'c':3", "a <2> c", true),
        ("'a':1 'b':2 'c':3", "a <-> !c", true),
        ("'a':1 'b':2 'c':3", "!a <-> b", false),
        ("'a':1 'b':2 'c':3", "a <-> (b | c)", true),
        ("'a':1 'b':2 'c':3", "(a <-> b) & !c", false),
        ("'a':1 'b':2 'c':3", "a:A <-> b", false),
        ("'a':1 'b':2 'c':3", "a:*", true),
        ("'a':1 'b':2 'c':3", "!(a <-> b)", false),
        ("'a':1 'b':2 'c':3", "a <0> a", true),
        ("'a':1 'b':2 'c':3", "(a | c) <-> (b | d)", true),
        ("'a':1 'b':2 'c':3", "a <-> b <-> c", true),
        ("'a':1 'b':2 'c':3", "a <-> (b <-> c)", true),
        ("'a':1 'b':2 'c':3", "x | !y", true),
        ("'a':1A 'b':2B 'c':3", "a:A <-> b", true),
        ("'a':1A 'b':2B 'c':3", "a:B", false),
        ("'a':1A 'b':2B 'c':3", "a:AB <-> b:C", false),
        ("'a' 'b' 'c'", "a & b", true),
        ("'a' 'b' 'c'", "a <-> b", false),
        ("'a' 'b' 'c'", "a:B", true),
        ("'a' 'b' 'c'", "!(a <-> b)", true),
        ("'a' 'b' 'c'", "a:*", true),
        ("'a':1 'b':3", "a <-> b", false),
        ("'a':1 'b':3", "a <2> b", true),
        ("'a':1 'b':3", "a <-> !b", true),
        ("'a':1 'b':3", "!a <-> b", true),
        ("'fat':2 'rat':3 'cat':5", "fat <-> rat", true),
        ("'fat':2 'rat':3 'cat':5", "fat <2> cat", false),
        ("'fat':2 'rat':3 'cat':5", "!fat <-> cat", true),
        ("'fat':2 'rat':3 'cat':5", "(fat <-> rat) <2> cat", true),
        ("'supernova':1 'super':4 'sup':7B", "su:*B", true),
        ("'supernova':1 'super':4 'sup':7B", "su:*D <-> super", false),
        ("'supernova':1 'super':4 'sup':7B", "sup:* <3> sup", true),
        ("'supernova':1 'super':4 'sup':7B", "super:*", true),
        ("'supernova':1 'super':4 'sup':7B", "supe:* <-> sup", false),
        (
            "'supernova':1 'super':4 'sup':7B",
            "!supernova:* <-> sup",
            true,
        ),
    ];

    #[test]
    fn matching() {
        for (v, query, want) in MATCH {
            assert_eq!(matches(&vector(v), &q(query)), *want, "{v} @@ {query}");
        }
    }

    /// Stop words the, a, or and; plural s and -ning dropped; hyphenated words whole,
    /// then by parts (enough of the english configuration for the table below).
    struct Mini;

    impl Lexizer for Mini {
        fn parsetext(&self, text: &str) -> Vec<ParsedWord> {
            let mut groups: Vec<Vec<String>> = Vec::new();
            let mut joinable = false;
            let mut cur = String::new();
            let chars: Vec<char> = text.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                if c.is_ascii_alphanumeric() {
                    cur.push(c.to_ascii_lowercase());
                    continue;
                }
                if !cur.is_empty() {
                    let run = std::mem::take(&mut cur);
                    match groups.last_mut() {
                        Some(g) if joinable => g.push(run),
                        _ => groups.push(vec![run]),
                    }
                }
                joinable = c == '-'
                    && i > 0
                    && chars[i - 1].is_ascii_alphanumeric()
                    && chars.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric());
            }
            if !cur.is_empty() {
                match groups.last_mut() {
                    Some(g) if joinable => g.push(cur),
                    _ => groups.push(vec![cur]),
                }
            }
            let stem = |w: &str| {
                if let Some(s) = w.strip_suffix("ning") {
                    s.to_string()
                } else {
                    w.strip_suffix('s').unwrap_or(w).to_string()
                }
            };
            let mut out = Vec::new();
            let mut pos = 0;
            for g in groups {
                let mut words = g.clone();
                if g.len() > 1 {
                    words.insert(0, g.join("-"));
                }
                for w in words {
                    pos += 1;
                    if !["the", "a", "or", "and"].contains(&w.as_str()) {
                        out.push(ParsedWord {
                            word: stem(&w),
                            pos,
                            nvariant: 0,
                        });
                    }
                }
            }
            out
        }
    }

    const FAMILY: &[(&str, &str, &str)] = &[
        ("to_tsquery", "fat & rats", "'fat' & 'rat'"),
        ("to_tsquery", "'fat rats' & cats", "'fat' <-> 'rat' & 'cat'"),
        ("to_tsquery", "the & fat", "'fat'"),
        ("to_tsquery", "'the fat' <-> rats", "'fat' <-> 'rat'"),
        ("to_tsquery", "fat <-> the <-> rats", "'fat' <2> 'rat'"),
        ("to_tsquery", "(the <-> a) <-> rats", "'rat'"),
        ("to_tsquery", "the", ""),
        ("to_tsquery", "", ""),
        ("to_tsquery", "rats:*B", "'rat':*B"),
        ("to_tsquery", "'fat the the rats':A", "'fat':A <3> 'rat':A"),
        ("to_tsquery", "!the & cats", "'cat'"),
        ("to_tsquery", "fat | (the & a)", "'fat'"),
        ("to_tsquery", "fat-rats", "'fat-rat' <-> 'fat' <-> 'rat'"),
        ("plainto_tsquery", "The fat rats", "'fat' & 'rat'"),
        ("plainto_tsquery", "the a", ""),
        ("plainto_tsquery", "", ""),
        (
            "plainto_tsquery",
            "fat & rats | cats",
            "'fat' & 'rat' & 'cat'",
        ),
        ("phraseto_tsquery", "the fat rats", "'fat' <-> 'rat'"),
        ("phraseto_tsquery", "fat the the rats", "'fat' <3> 'rat'"),
        ("phraseto_tsquery", "fat rats the", "'fat' <-> 'rat'"),
        ("phraseto_tsquery", "cats running", "'cat' <-> 'run'"),
        (
            "websearch_to_tsquery",
            "\"fat rats\" or cats -dog",
            "'fat' <-> 'rat' | 'cat' & !'dog'",
        ),
        ("websearch_to_tsquery", "fat or", "'fat'"),
        ("websearch_to_tsquery", "or fat", "'fat'"),
        ("websearch_to_tsquery", "-fat", "!'fat'"),
        (
            "websearch_to_tsquery",
            "\"the fat\" the rats",
            "'fat' & 'rat'",
        ),
        ("websearch_to_tsquery", "the", ""),
        ("websearch_to_tsquery", "", ""),
        ("websearch_to_tsquery", "-", ""),
        ("websearch_to_tsquery", "fat !or rats", "'fat' | 'rat'"),
        (
            "websearch_to_tsquery",
            "fat (rats) & cats",
            "'fat' & 'rat' & 'cat'",
        ),
        ("websearch_to_tsquery", "fat \"rats", "'fat' & 'rat'"),
        ("websearch_to_tsquery", "fat or -rats", "'fat' | !'rat'"),
        ("websearch_to_tsquery", "fat orrats", "'fat' & 'orrat'"),
        (
            "websearch_to_tsquery",
            "fat or-rats",
            "'fat' & 'or-rat' <2> 'rat'",
        ),
        ("websearch_to_tsquery", "'fat' rats:*", "'fat' & 'rat'"),
        (
            "to_tsquery",
            "fat &",
            "ERROR 42601 no operand in tsquery: \"fat &\"",
        ),
        (
            "to_tsquery",
            "fat rats",
            "ERROR 42601 syntax error in tsquery: \"fat rats\"",
        ),
    ];

    fn run_family(f: &str, text: &str, notices: &mut Vec<String>) -> String {
        let res = match f {
            "to_tsquery" => to_tsquery(&Mini, text, notices),
            "plainto_tsquery" => plainto_tsquery(&Mini, text, notices),
            "phraseto_tsquery" => phraseto_tsquery(&Mini, text, notices),
            _ => websearch_to_tsquery(&Mini, text, notices),
        };
        match res {
            Ok(q) => to_text(&q),
            Err(e) => format!("ERROR {} {}", e.code, e.message),
        }
    }

    #[test]
    fn to_tsquery_family() {
        for (f, text, want) in FAMILY {
            assert_eq!(run_family(f, text, &mut Vec::new()), *want, "{f}({text:?})");
        }
        let stop_only =
            "text-search query contains only stop words or doesn't contain lexemes, ignored";
        for (f, text, notice) in [
            ("to_tsquery", "the", stop_only.to_string()),
            ("plainto_tsquery", "the a", stop_only.to_string()),
            ("websearch_to_tsquery", "-", stop_only.to_string()),
            ("websearch_to_tsquery", "the", stop_only.to_string()),
            (
                "to_tsquery",
                "",
                "text-search query doesn't contain lexemes: \"\"".to_string(),
            ),
            (
                "websearch_to_tsquery",
                "",
                "text-search query doesn't contain lexemes: \"\"".to_string(),
            ),
        ] {
            let mut notices = Vec::new();
            run_family(f, text, &mut notices);
            assert_eq!(notices, [notice], "{f}({text:?})");
        }
    }

    #[test]
    fn morph_variants() {
        // Words of one token are ANDed per variant, variants ORed, tokens phrased.
        struct Variants;
        impl Lexizer for Variants {
            fn parsetext(&self, _: &str) -> Vec<ParsedWord> {
                let w = |word: &str, pos, nvariant| ParsedWord {
                    word: word.into(),
                    pos,
                    nvariant,
                };
                vec![w("a", 1, 1), w("b", 1, 1), w("c", 1, 2), w("d", 4, 1)]
            }
        }
        let q = to_tsquery(&Variants, "x", &mut Vec::new()).unwrap();
        assert_eq!(to_text(&q), "( 'a' & 'b' | 'c' ) <3> 'd'");
        let q = plainto_tsquery(&Variants, "x", &mut Vec::new()).unwrap();
        assert_eq!(to_text(&q), "( 'a' & 'b' | 'c' ) & 'd'");
    }

    #[test]
    fn operators() {
        let (a, b, e) = (q("a"), q("b <-> c"), TsQuery::default());
        assert_eq!(to_text(&and(&a, &b)), "'a' & 'b' <-> 'c'");
        assert_eq!(to_text(&or(&b, &a)), "'b' <-> 'c' | 'a'");
        assert_eq!(to_text(&not(&b)), "!( 'b' <-> 'c' )");
        assert_eq!(to_text(&phrase(&b, &a, 1).unwrap()), "'b' <-> 'c' <-> 'a'");
        assert_eq!(
            to_text(&phrase(&a, &b, 3).unwrap()),
            "'a' <3> ( 'b' <-> 'c' )"
        );
        assert_eq!(and(&e, &a), a);
        assert_eq!(or(&a, &e), a);
        assert_eq!(not(&e), e);
        assert_eq!(phrase(&e, &a, 2).unwrap(), a);
        let err = phrase(&e, &a, -1).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            (
                "22023",
                "distance in phrase operator must be an integer value between zero and 16384 inclusive"
            )
        );
        assert!(phrase(&a, &a, 16385).is_err());
        // @> compares operand sets only.
        assert!(!contains(&q("a"), &q("a & b")));
        assert!(contains(&q("a & b"), &q("!b")));
        assert!(contains(&q("ab"), &q("!!ab")));
        assert!(!contains(&e, &q("a")));
        assert!(contains(&q("a"), &e));
    }

    #[test]
    fn ordering() {
        // PostgreSQL: order by of these single words.
        let mut words =
            ["a", "b", "c", "d", "ab", "ba", "xy", "yx", "zz", "qq"].map(|w| (encode(&q(w)), w));
        words.sort();
        assert_eq!(
            words.map(|(_, w)| w),
            ["d", "a", "c", "b", "xy", "qq", "zz", "ab", "yx", "ba"]
        );
        use std::cmp::Ordering::*;
        for (x, y, want) in [
            ("a:A", "a", Equal),
            ("a:*", "a", Equal),
            ("a <-> b", "a & b", Less),
            ("a & b", "a | b", Greater),
            ("aa", "b", Greater),
            ("", "a", Less),
            ("a <2> b", "a <-> b", Less),
        ] {
            assert_eq!(compare(&q(x), &q(y)), want, "{x} vs {y}");
            if want != Equal {
                assert_eq!(encode(&q(x)).cmp(&encode(&q(y))), want, "{x} vs {y}");
            }
        }
        assert!(decode(b"\0\0\0\x01").is_none());
        assert!(decode(&[]).is_none());
    }

    #[test]
    fn wire() {
        let hex = |q: &TsQuery| {
            let mut b = Vec::new();
            send(q, &mut b);
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        };
        assert_eq!(hex(&q("a & b:*A")), "00000003020201080162000100006100");
        assert_eq!(
            hex(&q("!a <2> b")),
            "0000000402040002010000620002010100006100"
        );
        let val = |w: &[u8], weight: u8, prefix: u8| [&[1, weight, prefix][..], w, &[0]].concat();
        let op = |o: u8| vec![2, o];
        let msg = |items: &[Vec<u8>], n: i32| {
            let mut b = n.to_be_bytes().to_vec();
            for i in items {
                b.extend_from_slice(i);
            }
            b
        };
        let phrase_neg = msg(
            &[
                [op(4), vec![0xff, 0xfd]].concat(),
                val(b"b", 0, 0),
                val(b"a", 0, 0),
            ],
            3,
        );
        assert_eq!(to_text(&recv(&phrase_neg).unwrap()), "'a' <-3> 'b'");
        assert_eq!(to_text(&recv(&msg(&[val(b"", 0, 0)], 1)).unwrap()), "''");
        assert_eq!(
            to_text(&recv(&msg(&[val(b"a", 3, 7)], 1)).unwrap()),
            "'a':*CD"
        );
        let long = "x".repeat(2047);
        assert_eq!(
            to_text(&recv(&msg(&[val(long.as_bytes(), 0, 0)], 1)).unwrap()),
            format!("'{long}'")
        );
        for (bytes, code, message) in [
            (
                msg(&[val(b"a", 16, 0)], 1),
                "XX000",
                "invalid tsquery: invalid weight bitmap",
            ),
            (
                msg(&[op(5), val(b"b", 0, 0), val(b"a", 0, 0)], 3),
                "XX000",
                "invalid tsquery: unrecognized operator type 5",
            ),
            (
                msg(&[val(b"a", 0, 0), op(1)], 2),
                "XX000",
                "invalid pointer to right operand",
            ),
            (
                msg(&[op(2), val(b"a", 0, 0)], 2),
                "XX000",
                "malformed tsquery: operand not found",
            ),
            (
                msg(&[val(b"a", 0, 0), val(b"b", 0, 0)], 2),
                "XX000",
                "malformed tsquery: extra nodes",
            ),
            (
                msg(&[vec![3]], 1),
                "XX000",
                "unrecognized tsquery node type: 3",
            ),
            (
                msg(&[val(b"a", 0, 0)], 2),
                "08P01",
                "insufficient data left in message",
            ),
            (
                msg(&[b"\x01\0\0abc".to_vec()], 1),
                "08P01",
                "invalid string in message",
            ),
            (
                msg(&[val(b"\xc3\x28", 0, 0)], 1),
                "22021",
                "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28",
            ),
            (
                msg(&[val(&[b'x'; 2048], 0, 0)], 1),
                "XX000",
                "invalid tsquery: operand too long",
            ),
            (msg(&[], 0x7fff_ffff), "XX000", "invalid size of tsquery"),
            (
                msg(&[val(b"a", 0, 0), b"zz".to_vec()], 1),
                "22P03",
                "incorrect binary data format",
            ),
        ] {
            let e = recv(&bytes).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (code, message));
        }
    }

    #[test]
    fn never_panics() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let pieces = [
            "a", "b", " ", "&", "|", "!", "(", ")", "<", "->", ">", "<2>", "1", ":", "*", "A", "'",
            "\\", "é", "\"", "-", "or ", "\u{3000}",
        ];
        let v = vector("'a':1A,3 'ab':2 'b' 'ba':4");
        for _ in 0..3000 {
            let n = (next() % 12) as usize;
            let text: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            for res in [
                parse_tsquery(&text),
                to_tsquery(&Mini, &text, &mut Vec::new()),
                websearch_to_tsquery(&Mini, &text, &mut Vec::new()),
                phraseto_tsquery(&Mini, &text, &mut Vec::new()),
            ] {
                let Ok(query) = res else { continue };
                let _ = matches(&v, &query);
                let _ = querytree(&query);
                let mut wire = Vec::new();
                send(&query, &mut wire);
                let stored = encode(&query);
                // Damaged bytes are refused, never a panic.
                for bytes in [&wire, &stored] {
                    for cut in 0..bytes.len() {
                        let _ = recv(&bytes[..cut]);
                        let _ = decode(&bytes[..cut]);
                        let mut flipped = bytes.clone();
                        flipped[cut] ^= (next() % 255 + 1) as u8;
                        let _ = recv(&flipped);
                        let _ = decode(&flipped);
                    }
                }
            }
        }
    }
}
