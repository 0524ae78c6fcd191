//! `jsonpath`: SQL/JSON path expressions — their parser, their checks and their
//! canonical text (what the type stores and prints).
//!
//! A path is parsed by hand, by recursive descent over PostgreSQL 15's grammar
//! (`jsonpath_gram.y`): an optional `strict` / `lax` mode, then an expression or a
//! predicate. Precedence from loose to tight: `||`, `&&`, `!`, comparisons (`== != <>
//! < <= > >=`, `starts with`, `like_regex`, not associative), `+ -`, `* / %`, unary
//! `+ -`, then an accessor chain — a primary (`$`, `@`, `last`, a `$variable`, a
//! literal, a parenthesized expression) followed by `.key`, `.*`, `.**{m to n}`,
//! `[subscripts]`, `[*]`, `?(filter)` and item methods (`.type()` …). Keywords are
//! case-insensitive and are keys after a dot (`$.last` is `$."last"`). The parser
//! keeps PostgreSQL's rules about where things may appear (predicates only as filters,
//! operands of `&&` / `||` / `!` or the whole path; `@` only in filters; `last` only in
//! subscripts) and its messages.
//!
//! The tree is PostgreSQL's shape: every item has an optional `next` item, so an
//! accessor chain is a list and an operator's operands are whole chains. Text is
//! PostgreSQL's `jsonPathToCstring`: keys and variables quoted, binary operators
//! parenthesized by priority (and at the top), numbers as `numeric` prints them.
//! The value is stored as that text; evaluation (`exec::jsonpath`) parses it again,
//! caching the last path a statement used.

use std::fmt::Write as _;

use super::numeric::Numeric;
use crate::error::{Error, Result};

/// Deepest nesting a path may have.
const DEPTH_MAX: usize = 1000;

/// A parsed path.
#[derive(Clone, Debug)]
pub struct JsonPath {
    pub strict: bool,
    pub root: Item,
}

/// One item and the item applied to its results, if any.
#[derive(Clone, Debug)]
pub struct Item {
    pub kind: Kind,
    pub next: Option<Box<Item>>,
}

/// Binary operators, arithmetic and boolean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    StartsWith,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::StartsWith => "starts with",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    fn is_arithmetic(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod
        )
    }
}

/// Item methods without arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Type,
    Size,
    Double,
    Ceiling,
    Floor,
    Abs,
    KeyValue,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Type => "type",
            Method::Size => "size",
            Method::Double => "double",
            Method::Ceiling => "ceiling",
            Method::Floor => "floor",
            Method::Abs => "abs",
            Method::KeyValue => "keyvalue",
        }
    }

    fn by_name(name: &str) -> Option<Method> {
        Some(match name {
            "type" => Method::Type,
            "size" => Method::Size,
            "double" => Method::Double,
            "ceiling" => Method::Ceiling,
            "floor" => Method::Floor,
            "abs" => Method::Abs,
            "keyvalue" => Method::KeyValue,
            _ => return None,
        })
    }
}

/// `like_regex` flags, as PostgreSQL numbers them.
pub const FLAG_I: u8 = 1;
pub const FLAG_S: u8 = 2;
pub const FLAG_M: u8 = 4;
pub const FLAG_X: u8 = 8;
pub const FLAG_Q: u8 = 16;

#[derive(Clone, Debug)]
pub enum Kind {
    Null,
    Bool(bool),
    Number(Numeric),
    String(String),
    Variable(String),
    Root,
    Current,
    Last,
    Key(String),
    AnyKey,
    AnyArray,
    /// `[a, b to c]`.
    Subscripts(Vec<(Item, Option<Item>)>),
    /// `.**{lo to hi}`; `u32::MAX` is `last`.
    Any {
        lo: u32,
        hi: u32,
    },
    Filter(Box<Item>),
    Method(Method),
    Datetime(Option<String>),
    Binary(BinOp, Box<Item>, Box<Item>),
    Plus(Box<Item>),
    Minus(Box<Item>),
    Not(Box<Item>),
    IsUnknown(Box<Item>),
    Exists(Box<Item>),
    LikeRegex {
        expr: Box<Item>,
        pattern: String,
        flags: u8,
        regex: regex::Regex,
    },
}

impl Item {
    fn new(kind: Kind) -> Item {
        Item { kind, next: None }
    }

    /// Whether this item yields a boolean (a predicate); a parenthesized predicate
    /// with accessors after it is an expression.
    fn is_predicate(&self) -> bool {
        if self.next.is_some() {
            return false;
        }
        match &self.kind {
            Kind::Binary(op, ..) => !op.is_arithmetic(),
            Kind::Not(_) | Kind::IsUnknown(_) | Kind::Exists(_) | Kind::LikeRegex { .. } => true,
            _ => false,
        }
    }

    /// Appends `step` to the end of this item's chain.
    fn append(&mut self, step: Item) {
        match &mut self.next {
            Some(next) => next.append(step),
            None => self.next = Some(Box::new(step)),
        }
    }
}

// ---------------------------------------------------------------------------
// Lexer

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    End,
    /// Punctuation and operators.
    Punct(&'static str),
    /// An unquoted identifier or keyword (as written).
    Ident(String),
    Str(String),
    Var(String),
    Num(String),
}

struct Token {
    tok: Tok,
    /// What an error at this token is "at or near" (PostgreSQL's `yytext` when the
    /// token ends): None is "at end of jsonpath input".
    near: Option<String>,
}

fn syntax_error(near: Option<&str>) -> Error {
    match near {
        None => Error::syntax("syntax error at end of jsonpath input"),
        Some(t) => Error::syntax(format!("syntax error at or near \"{t}\" of jsonpath input")),
    }
}

/// Characters that end an identifier.
fn is_special(c: char) -> bool {
    matches!(
        c,
        '?' | '%'
            | '$'
            | '.'
            | '['
            | ']'
            | '{'
            | '}'
            | '('
            | ')'
            | '|'
            | '&'
            | '!'
            | '='
            | '<'
            | '>'
            | '@'
            | '#'
            | ','
            | '*'
            | ':'
            | '-'
            | '+'
            | '/'
            | '"'
    ) || is_blank(c)
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c')
}

struct Lexer<'a> {
    text: &'a str,
    at: usize,
}

impl Lexer<'_> {
    fn peek_char(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn token(tok: Tok, near: &str) -> Token {
        Token {
            tok,
            near: Some(near.to_string()),
        }
    }

    /// Skips blanks and `/* comments */`.
    fn skip_blanks(&mut self) -> Result<()> {
        loop {
            while let Some(c) = self.peek_char() {
                if !is_blank(c) {
                    break;
                }
                self.at += c.len_utf8();
            }
            if !self.text[self.at..].starts_with("/*") {
                return Ok(());
            }
            match self.text[self.at + 2..].find("*/") {
                Some(end) => self.at += 2 + end + 2,
                None => {
                    return Err(Error::syntax(
                        "unexpected end of comment at end of jsonpath input",
                    ));
                }
            }
        }
    }

    fn next_token(&mut self) -> Result<Token> {
        self.skip_blanks()?;
        let start = self.at;
        let rest = &self.text[start..];
        let Some(c) = rest.chars().next() else {
            return Ok(Token {
                tok: Tok::End,
                near: None,
            });
        };
        const TWO: [&str; 8] = ["==", "!=", "<>", "<=", ">=", "&&", "||", "**"];
        if let Some(op) = TWO.iter().find(|op| rest.starts_with(**op)) {
            self.at += 2;
            let op = if *op == "<>" { "!=" } else { op };
            return Ok(Self::token(Tok::Punct(op), &rest[..2]));
        }
        let digit_after_dot =
            c == '.' && rest[1..].chars().next().is_some_and(|d| d.is_ascii_digit());
        if digit_after_dot {
            return self.number();
        }
        if c.is_ascii_digit() {
            // PostgreSQL's scanner takes the longest match: `12abc` is an identifier
            // (digits are identifier characters), `12a` a number with trailing junk.
            let ident_len = rest.chars().take_while(|c| !is_special(*c)).count();
            let number_len = number_prefix_len(rest.as_bytes());
            let junk_len = number_len + usize::from(number_len < ident_len);
            if ident_len <= junk_len {
                return self.number();
            }
        }
        const ONE: [&str; 19] = [
            "$", "@", ".", "[", "]", "{", "}", "(", ")", ",", "?", "*", "+", "-", "/", "%", "!",
            "<", ">",
        ];
        if c == '"' {
            self.at += 1;
            let s = self.string()?;
            return Ok(Self::token(Tok::Str(s), "\""));
        }
        if c == '$' {
            let after = &rest[1..];
            if after.starts_with('"') {
                self.at += 2;
                let s = self.string()?;
                return Ok(Self::token(Tok::Var(s), "\""));
            }
            if after.chars().next().is_some_and(|c| !is_special(c)) {
                self.at += 1;
                let name = self.identifier()?;
                return Ok(Token {
                    tok: Tok::Var(name),
                    near: Some(self.text[start..self.at].to_string()),
                });
            }
        }
        if let Some(op) = ONE.iter().find(|op| rest.starts_with(**op)) {
            self.at += 1;
            return Ok(Self::token(Tok::Punct(op), op));
        }
        if is_special(c) {
            // `=`, `|`, `&`, `#` and `:` alone.
            return Err(syntax_error(Some(&c.to_string())));
        }
        let name = self.identifier()?;
        // An identifier ends at a blank (what PostgreSQL's scanner reports after it)
        // or at a special character or the end (reported as the end).
        let blanks: usize = self.text[self.at..]
            .chars()
            .take_while(|c| is_blank(*c))
            .map(char::len_utf8)
            .sum();
        Ok(Token {
            tok: Tok::Ident(name),
            near: (blanks > 0).then(|| self.text[self.at..self.at + blanks].to_string()),
        })
    }

    /// An unquoted identifier (with backslash escapes, as in strings).
    fn identifier(&mut self) -> Result<String> {
        let mut out = String::new();
        while let Some(c) = self.peek_char() {
            if is_special(c) {
                break;
            }
            self.at += c.len_utf8();
            if c == '\\' {
                self.escape(&mut out)?;
            } else {
                out.push(c);
            }
        }
        Ok(out)
    }

    /// A numeric literal: digits (no leading zero), an optional fraction, an
    /// optional exponent; an identifier character right after it is trailing junk.
    fn number(&mut self) -> Result<Token> {
        let b = self.text.as_bytes();
        let start = self.at;
        let mut i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            if i == start + 1 && b[start] == b'0' {
                break;
            }
        }
        if i < b.len() && b[i] == b'.' {
            // `1.` is a number; `1.a` is junk; `1..` ends it.
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            let signed = j < b.len() && (b[j] == b'+' || b[j] == b'-');
            if signed {
                j += 1;
            }
            if j < b.len() && b[j].is_ascii_digit() {
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                i = j;
            } else if signed {
                return Err(Error::syntax(format!(
                    "invalid numeric literal at or near \"{}\" of jsonpath input",
                    &self.text[start..j]
                )));
            }
        }
        let text = &self.text[start..i];
        if let Some(c) = self.text[i..].chars().next()
            && !is_special(c)
        {
            let end = i + c.len_utf8();
            return Err(Error::syntax(format!(
                "trailing junk after numeric literal at or near \"{}\" of jsonpath input",
                &self.text[start..end]
            )));
        }
        self.at = i;
        Ok(Self::token(Tok::Num(text.to_string()), text))
    }

    /// The rest of a double-quoted string (the opening quote is consumed).
    fn string(&mut self) -> Result<String> {
        let mut out = String::new();
        loop {
            let Some(c) = self.peek_char() else {
                return Err(Error::syntax(
                    "unexpected end of quoted string at end of jsonpath input",
                ));
            };
            self.at += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => self.escape(&mut out)?,
                c => out.push(c),
            }
        }
    }

    /// The escape after a backslash (consumed), appended to `out`.
    fn escape(&mut self, out: &mut String) -> Result<()> {
        let Some(e) = self.peek_char() else {
            return Err(Error::syntax(
                "unexpected end after backslash at or near \"\\\" of jsonpath input",
            ));
        };
        let escape_at = self.at - 1;
        self.at += e.len_utf8();
        match e {
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            'x' => match self.hex_digits(2, 2) {
                Some(v) => out.push(code_point(v)?),
                None => {
                    let seen = self.text[self.at..]
                        .bytes()
                        .take(1)
                        .take_while(u8::is_ascii_hexdigit)
                        .count();
                    return Err(Error::syntax(format!(
                        "invalid hex character sequence at or near \"{}\" of jsonpath input",
                        &self.text[escape_at..self.at + seen]
                    )));
                }
            },
            'u' => out.push(self.unicode_escape(escape_at)?),
            other => out.push(other),
        }
        Ok(())
    }

    fn hex_digits(&mut self, min: usize, max: usize) -> Option<u32> {
        let rest = &self.text[self.at..];
        let n = rest
            .bytes()
            .take(max)
            .take_while(u8::is_ascii_hexdigit)
            .count();
        if n < min {
            return None;
        }
        self.at += n;
        u32::from_str_radix(&rest[..n], 16).ok()
    }

    /// `\uXXXX` (a surrogate pair as two) or `\u{X…}`; `escape_at` is the backslash.
    fn unicode_escape(&mut self, escape_at: usize) -> Result<char> {
        let bad = |lexer: &Lexer, upto: usize| {
            Error::syntax(format!(
                "invalid unicode sequence at or near \"{}\" of jsonpath input",
                &lexer.text[escape_at..upto]
            ))
        };
        if self.text[self.at..].starts_with('{') {
            self.at += 1;
            let Some(v) = self.hex_digits(1, 6) else {
                return Err(bad(self, self.at));
            };
            if !self.text[self.at..].starts_with('}') {
                return Err(bad(self, self.at));
            }
            self.at += 1;
            return code_point(v);
        }
        let Some(v) = self.hex_digits(4, 4) else {
            let seen = self.text[self.at..]
                .bytes()
                .take(3)
                .take_while(u8::is_ascii_hexdigit)
                .count();
            return Err(bad(self, self.at + seen));
        };
        let surrogate_error = || {
            Error::new("22P02", "invalid input syntax for type jsonpath")
                .with_detail("Unicode low surrogate must follow a high surrogate.")
        };
        if (0xD800..0xDC00).contains(&v) {
            if self.text[self.at..].starts_with("\\u") {
                let save = self.at;
                self.at += 2;
                if let Some(lo) = self.hex_digits(4, 4)
                    && (0xDC00..0xE000).contains(&lo)
                {
                    return code_point(0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00));
                }
                self.at = save;
            }
            return Err(surrogate_error());
        }
        if (0xDC00..0xE000).contains(&v) {
            return Err(surrogate_error());
        }
        code_point(v)
    }
}

/// The length of the numeric literal `b` starts with (digits, a fraction, a complete
/// exponent).
fn number_prefix_len(b: &[u8]) -> usize {
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        if i == 1 && b[0] == b'0' {
            break;
        }
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    i
}

fn code_point(v: u32) -> Result<char> {
    if v == 0 {
        return Err(Error::new("22P05", "unsupported Unicode escape sequence")
            .with_detail("\\u0000 cannot be converted to text."));
    }
    char::from_u32(v).ok_or_else(|| Error::syntax("invalid Unicode code point"))
}

// ---------------------------------------------------------------------------
// Parser

struct Parser<'a> {
    lexer: Lexer<'a>,
    tok: Token,
    depth: usize,
    /// Filters around the current position (`@` needs one).
    filters: usize,
    /// Subscripts around the current position (`last` needs one).
    subscripts: usize,
}

fn keyword(t: &Tok, word: &str) -> bool {
    matches!(t, Tok::Ident(s) if s.eq_ignore_ascii_case(word))
}

/// jsonpath_in: the text parsed and checked.
pub fn parse(text: &str) -> Result<JsonPath> {
    if text.chars().all(is_blank) {
        return Err(Error::new(
            "22P02",
            format!("invalid input syntax for type jsonpath: \"{text}\""),
        ));
    }
    let mut lexer = Lexer { text, at: 0 };
    let tok = lexer.next_token()?;
    let mut p = Parser {
        lexer,
        tok,
        depth: 0,
        filters: 0,
        subscripts: 0,
    };
    let mut strict = false;
    if keyword(&p.tok.tok, "strict") || keyword(&p.tok.tok, "lax") {
        strict = keyword(&p.tok.tok, "strict");
        p.advance()?;
    }
    let root = p.expr_or_predicate()?;
    if p.tok.tok != Tok::End {
        return Err(p.unexpected());
    }
    Ok(JsonPath { strict, root })
}

/// The canonical text of `text` (jsonpath's input then output).
pub fn normalize(text: &str) -> Result<String> {
    Ok(to_text(&parse(text)?))
}

impl Parser<'_> {
    fn advance(&mut self) -> Result<()> {
        self.tok = self.lexer.next_token()?;
        Ok(())
    }

    fn unexpected(&self) -> Error {
        match self.tok.tok {
            Tok::End => syntax_error(None),
            _ => syntax_error(self.tok.near.as_deref()),
        }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.tok.tok, Tok::Punct(q) if q == p)
    }

    fn expect(&mut self, p: &str) -> Result<()> {
        if self.is_punct(p) {
            self.advance()
        } else {
            Err(self.unexpected())
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > DEPTH_MAX {
            return Err(Error::new("54001", "stack depth limit exceeded"));
        }
        Ok(())
    }

    fn expr_or_predicate(&mut self) -> Result<Item> {
        self.enter()?;
        let r = self.or();
        self.depth -= 1;
        r
    }

    /// An expression that must not be a predicate.
    fn expr(&mut self) -> Result<Item> {
        let e = self.expr_or_predicate()?;
        if e.is_predicate() {
            return Err(self.unexpected());
        }
        Ok(e)
    }

    /// A predicate (a filter's, or an operand of `&&` / `||`).
    fn predicate(&mut self) -> Result<Item> {
        let e = self.expr_or_predicate()?;
        if !e.is_predicate() {
            return Err(self.unexpected());
        }
        Ok(e)
    }

    fn or(&mut self) -> Result<Item> {
        let mut left = self.and()?;
        while self.is_punct("||") {
            if !left.is_predicate() {
                return Err(self.unexpected());
            }
            self.advance()?;
            let right = self.and()?;
            if !right.is_predicate() {
                return Err(self.unexpected());
            }
            left = Item::new(Kind::Binary(BinOp::Or, Box::new(left), Box::new(right)));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Item> {
        let mut left = self.not()?;
        while self.is_punct("&&") {
            if !left.is_predicate() {
                return Err(self.unexpected());
            }
            self.advance()?;
            let right = self.not()?;
            if !right.is_predicate() {
                return Err(self.unexpected());
            }
            left = Item::new(Kind::Binary(BinOp::And, Box::new(left), Box::new(right)));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Item> {
        if self.is_punct("!") {
            self.advance()?;
            let inner = if keyword(&self.tok.tok, "exists") {
                self.exists()?
            } else {
                self.expect("(")?;
                let p = self.predicate()?;
                self.expect(")")?;
                p
            };
            return Ok(Item::new(Kind::Not(Box::new(inner))));
        }
        self.comparison()
    }

    fn exists(&mut self) -> Result<Item> {
        self.advance()?;
        self.expect("(")?;
        let e = self.expr()?;
        self.expect(")")?;
        Ok(Item::new(Kind::Exists(Box::new(e))))
    }

    fn comparison(&mut self) -> Result<Item> {
        let left = self.additive()?;
        let op = match self.tok.tok {
            Tok::Punct("==") => Some(BinOp::Eq),
            Tok::Punct("!=") => Some(BinOp::Ne),
            Tok::Punct("<") => Some(BinOp::Lt),
            Tok::Punct("<=") => Some(BinOp::Le),
            Tok::Punct(">") => Some(BinOp::Gt),
            Tok::Punct(">=") => Some(BinOp::Ge),
            _ => None,
        };
        if let Some(op) = op {
            if left.is_predicate() {
                return Err(self.unexpected());
            }
            self.advance()?;
            let right = self.additive()?;
            if right.is_predicate() {
                return Err(self.unexpected());
            }
            return Ok(Item::new(Kind::Binary(op, Box::new(left), Box::new(right))));
        }
        if keyword(&self.tok.tok, "starts") {
            if left.is_predicate() {
                return Err(self.unexpected());
            }
            self.advance()?;
            if !keyword(&self.tok.tok, "with") {
                return Err(self.unexpected());
            }
            self.advance()?;
            let initial = match &self.tok.tok {
                Tok::Str(s) => Kind::String(s.clone()),
                Tok::Var(v) => Kind::Variable(v.clone()),
                _ => return Err(self.unexpected()),
            };
            self.advance()?;
            return Ok(Item::new(Kind::Binary(
                BinOp::StartsWith,
                Box::new(left),
                Box::new(Item::new(initial)),
            )));
        }
        if keyword(&self.tok.tok, "like_regex") {
            if left.is_predicate() {
                return Err(self.unexpected());
            }
            self.advance()?;
            let Tok::Str(pattern) = self.tok.tok.clone() else {
                return Err(self.unexpected());
            };
            self.advance()?;
            let mut flags = 0;
            if keyword(&self.tok.tok, "flag") {
                self.advance()?;
                let Tok::Str(f) = self.tok.tok.clone() else {
                    return Err(self.unexpected());
                };
                self.advance()?;
                for c in f.chars() {
                    flags |= match c {
                        'i' => FLAG_I,
                        's' => FLAG_S,
                        'm' => FLAG_M,
                        'x' => FLAG_X,
                        'q' => FLAG_Q,
                        _ => {
                            return Err(Error::syntax("invalid input syntax for type jsonpath")
                                .with_detail(format!(
                                    "unrecognized flag character \"{c}\" in LIKE_REGEX predicate"
                                )));
                        }
                    };
                }
            }
            let regex = compile_regex(&pattern, flags)?;
            return Ok(Item::new(Kind::LikeRegex {
                expr: Box::new(left),
                pattern,
                flags,
                regex,
            }));
        }
        Ok(left)
    }

    fn additive(&mut self) -> Result<Item> {
        let mut left = self.multiplicative()?;
        loop {
            let op = match self.tok.tok {
                Tok::Punct("+") => BinOp::Add,
                Tok::Punct("-") => BinOp::Sub,
                _ => return Ok(left),
            };
            if left.is_predicate() {
                return Err(self.unexpected());
            }
            self.advance()?;
            let right = self.multiplicative()?;
            if right.is_predicate() {
                return Err(self.unexpected());
            }
            left = Item::new(Kind::Binary(op, Box::new(left), Box::new(right)));
        }
    }

    fn multiplicative(&mut self) -> Result<Item> {
        let mut left = self.unary()?;
        loop {
            let op = match self.tok.tok {
                Tok::Punct("*") => BinOp::Mul,
                Tok::Punct("/") => BinOp::Div,
                Tok::Punct("%") => BinOp::Mod,
                _ => return Ok(left),
            };
            if left.is_predicate() {
                return Err(self.unexpected());
            }
            self.advance()?;
            let right = self.unary()?;
            if right.is_predicate() {
                return Err(self.unexpected());
            }
            left = Item::new(Kind::Binary(op, Box::new(left), Box::new(right)));
        }
    }

    fn unary(&mut self) -> Result<Item> {
        let minus = match self.tok.tok {
            Tok::Punct("-") => true,
            Tok::Punct("+") => false,
            _ => return self.accessor_expr(),
        };
        self.enter()?;
        self.advance()?;
        let operand = self.unary();
        self.depth -= 1;
        let operand = operand?;
        if operand.is_predicate() {
            return Err(self.unexpected());
        }
        // A sign on a bare number folds into it, as PostgreSQL's grammar does.
        if operand.next.is_none()
            && let Kind::Number(n) = &operand.kind
        {
            return Ok(Item::new(Kind::Number(if minus {
                n.neg()
            } else {
                n.clone()
            })));
        }
        let boxed = Box::new(operand);
        Ok(Item::new(if minus {
            Kind::Minus(boxed)
        } else {
            Kind::Plus(boxed)
        }))
    }

    fn accessor_expr(&mut self) -> Result<Item> {
        let mut head = self.primary()?;
        // Each step of a chain counts as a level of nesting: evaluation recurses
        // along the chain.
        let depth = self.depth;
        let r = (|| -> Result<()> {
            loop {
                let step = match &self.tok.tok {
                    Tok::Punct(".") => self.dot_step()?,
                    Tok::Punct("[") => self.subscript_step()?,
                    Tok::Punct("?") => self.filter_step()?,
                    _ => return Ok(()),
                };
                self.enter()?;
                head.append(step);
            }
        })();
        self.depth = depth;
        r?;
        Ok(head)
    }

    fn primary(&mut self) -> Result<Item> {
        let kind = match &self.tok.tok {
            Tok::Punct("$") => Kind::Root,
            Tok::Punct("@") => {
                if self.filters == 0 {
                    return Err(Error::syntax("@ is not allowed in root expressions"));
                }
                Kind::Current
            }
            Tok::Var(v) => Kind::Variable(v.clone()),
            Tok::Str(s) => Kind::String(s.clone()),
            Tok::Num(n) => Kind::Number(Numeric::parse(n)?),
            Tok::Ident(w) if w.eq_ignore_ascii_case("null") => Kind::Null,
            Tok::Ident(w) if w.eq_ignore_ascii_case("true") => Kind::Bool(true),
            Tok::Ident(w) if w.eq_ignore_ascii_case("false") => Kind::Bool(false),
            Tok::Ident(w) if w.eq_ignore_ascii_case("last") => {
                if self.subscripts == 0 {
                    return Err(Error::syntax("LAST is allowed only in array subscripts"));
                }
                Kind::Last
            }
            Tok::Ident(w) if w.eq_ignore_ascii_case("exists") => return self.exists(),
            Tok::Punct("(") => {
                self.advance()?;
                let inner = self.expr_or_predicate()?;
                self.expect(")")?;
                if inner.is_predicate() && keyword(&self.tok.tok, "is") {
                    self.advance()?;
                    if !keyword(&self.tok.tok, "unknown") {
                        return Err(self.unexpected());
                    }
                    self.advance()?;
                    return Ok(Item::new(Kind::IsUnknown(Box::new(inner))));
                }
                return Ok(inner);
            }
            _ => return Err(self.unexpected()),
        };
        self.advance()?;
        Ok(Item::new(kind))
    }

    fn dot_step(&mut self) -> Result<Item> {
        self.advance()?;
        let kind = match self.tok.tok.clone() {
            Tok::Punct("*") => Kind::AnyKey,
            Tok::Punct("**") => {
                self.advance()?;
                let (mut lo, mut hi) = (0, u32::MAX);
                if self.is_punct("{") {
                    self.advance()?;
                    lo = self.any_level()?;
                    hi = lo;
                    if keyword(&self.tok.tok, "to") {
                        self.advance()?;
                        hi = self.any_level()?;
                    }
                    if !self.is_punct("}") {
                        return Err(self.unexpected());
                    }
                    self.advance()?;
                }
                return Ok(Item::new(Kind::Any { lo, hi }));
            }
            Tok::Str(s) => Kind::Key(s),
            Tok::Ident(w) => {
                self.advance()?;
                let lower = w.to_ascii_lowercase();
                if self.is_punct("(") {
                    if lower == "datetime" {
                        self.advance()?;
                        let template = match &self.tok.tok {
                            Tok::Str(s) => {
                                let s = s.clone();
                                self.advance()?;
                                Some(s)
                            }
                            _ => None,
                        };
                        self.expect(")")?;
                        return Ok(Item::new(Kind::Datetime(template)));
                    }
                    if let Some(m) = Method::by_name(&lower) {
                        self.advance()?;
                        self.expect(")")?;
                        return Ok(Item::new(Kind::Method(m)));
                    }
                }
                return Ok(Item::new(Kind::Key(w)));
            }
            _ => return Err(self.unexpected()),
        };
        self.advance()?;
        Ok(Item::new(kind))
    }

    fn any_level(&mut self) -> Result<u32> {
        let level = match &self.tok.tok {
            Tok::Ident(w) if w.eq_ignore_ascii_case("last") => u32::MAX,
            Tok::Num(n) if n.bytes().all(|b| b.is_ascii_digit()) => match n.parse::<u32>() {
                Ok(v) if v < u32::MAX => v,
                _ => return Err(self.unexpected()),
            },
            _ => return Err(self.unexpected()),
        };
        self.advance()?;
        Ok(level)
    }

    fn subscript_step(&mut self) -> Result<Item> {
        self.advance()?;
        if self.is_punct("*") {
            self.advance()?;
            self.expect("]")?;
            return Ok(Item::new(Kind::AnyArray));
        }
        self.subscripts += 1;
        let mut list = Vec::new();
        let r = (|| -> Result<()> {
            loop {
                let from = self.expr()?;
                let to = if keyword(&self.tok.tok, "to") {
                    self.advance()?;
                    Some(self.expr()?)
                } else {
                    None
                };
                list.push((from, to));
                if self.is_punct(",") {
                    self.advance()?;
                    continue;
                }
                return self.expect("]");
            }
        })();
        self.subscripts -= 1;
        r?;
        Ok(Item::new(Kind::Subscripts(list)))
    }

    fn filter_step(&mut self) -> Result<Item> {
        self.advance()?;
        self.expect("(")?;
        self.filters += 1;
        let r = self.predicate();
        self.filters -= 1;
        let p = r?;
        self.expect(")")?;
        Ok(Item::new(Kind::Filter(Box::new(p))))
    }
}

/// Most memory a compiled like_regex pattern may take.
const REGEX_SIZE_MAX: usize = 10 << 20;

/// like_regex's pattern with its flags, as PostgreSQL maps XQuery's flags: `.` stops
/// at newlines unless `s`, `^`/`$` match at them with `m`, `q` quotes the pattern,
/// `x` is not implemented.
pub fn compile_regex(pattern: &str, flags: u8) -> Result<regex::Regex> {
    let quoted;
    let source = if flags & FLAG_Q != 0 {
        quoted = regex::escape(pattern);
        &quoted
    } else {
        if flags & FLAG_X != 0 {
            return Err(Error::new(
                "0A000",
                "XQuery \"x\" flag (expanded regular expressions) is not implemented",
            ));
        }
        pattern
    };
    regex::RegexBuilder::new(source)
        .case_insensitive(flags & FLAG_I != 0)
        .dot_matches_new_line(flags & FLAG_S != 0 || flags & FLAG_Q != 0)
        .multi_line(flags & FLAG_M != 0)
        .size_limit(REGEX_SIZE_MAX)
        .build()
        .map_err(|e| crate::exec::string_functions::regex_error(&e))
}

// ---------------------------------------------------------------------------
// Output

/// PostgreSQL's operation priorities (parentheses go around an operand whose
/// priority is not above its operator's).
fn priority(kind: &Kind) -> u8 {
    match kind {
        Kind::Binary(BinOp::Or, ..) => 0,
        Kind::Binary(BinOp::And, ..) => 1,
        Kind::Binary(op, ..) if op.is_comparison() || *op == BinOp::StartsWith => 2,
        Kind::Binary(BinOp::Add | BinOp::Sub, ..) => 3,
        Kind::Binary(..) => 4,
        Kind::Plus(_) | Kind::Minus(_) => 5,
        _ => 6,
    }
}

/// jsonpath_out.
pub fn to_text(path: &JsonPath) -> String {
    let mut out = String::new();
    if path.strict {
        out.push_str("strict ");
    }
    write_item(&mut out, &path.root, false, true);
    out
}

fn write_json_string(out: &mut String, s: &str) {
    let mut buf = Vec::with_capacity(s.len() + 2);
    super::jsonb::write_string(&mut buf, s);
    out.push_str(&String::from_utf8_lossy(&buf));
}

fn write_item(out: &mut String, item: &Item, in_key: bool, brackets: bool) {
    let operand = |out: &mut String, child: &Item, parent: &Kind| {
        write_item(out, child, false, priority(&child.kind) <= priority(parent));
    };
    match &item.kind {
        Kind::Binary(op, l, r) => {
            if brackets {
                out.push('(');
            }
            operand(out, l, &item.kind);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            operand(out, r, &item.kind);
            if brackets {
                out.push(')');
            }
        }
        Kind::LikeRegex {
            expr,
            pattern,
            flags,
            ..
        } => {
            if brackets {
                out.push('(');
            }
            operand(out, expr, &item.kind);
            out.push_str(" like_regex ");
            write_json_string(out, pattern);
            if *flags != 0 {
                out.push_str(" flag \"");
                for (bit, c) in [
                    (FLAG_I, 'i'),
                    (FLAG_S, 's'),
                    (FLAG_M, 'm'),
                    (FLAG_X, 'x'),
                    (FLAG_Q, 'q'),
                ] {
                    if flags & bit != 0 {
                        out.push(c);
                    }
                }
                out.push('"');
            }
            if brackets {
                out.push(')');
            }
        }
        Kind::Plus(a) | Kind::Minus(a) => {
            if brackets {
                out.push('(');
            }
            out.push(if matches!(item.kind, Kind::Plus(_)) {
                '+'
            } else {
                '-'
            });
            operand(out, a, &item.kind);
            if brackets {
                out.push(')');
            }
        }
        Kind::Filter(p) => {
            out.push_str("?(");
            write_item(out, p, false, false);
            out.push(')');
        }
        Kind::Not(p) => {
            out.push_str("!(");
            write_item(out, p, false, false);
            out.push(')');
        }
        Kind::IsUnknown(p) => {
            out.push('(');
            write_item(out, p, false, false);
            out.push_str(") is unknown");
        }
        Kind::Exists(e) => {
            out.push_str("exists (");
            write_item(out, e, false, false);
            out.push(')');
        }
        Kind::Current => out.push('@'),
        Kind::Root => out.push('$'),
        Kind::Last => out.push_str("last"),
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Kind::String(s) => write_json_string(out, s),
        Kind::Number(n) => {
            if item.next.is_some() {
                let _ = write!(out, "({})", n.to_text());
            } else {
                out.push_str(&n.to_text());
            }
        }
        Kind::Variable(v) => {
            out.push('$');
            write_json_string(out, v);
        }
        Kind::Key(k) => {
            if in_key {
                out.push('.');
            }
            write_json_string(out, k);
        }
        Kind::AnyArray => out.push_str("[*]"),
        Kind::AnyKey => {
            if in_key {
                out.push('.');
            }
            out.push('*');
        }
        Kind::Subscripts(list) => {
            out.push('[');
            for (i, (from, to)) in list.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_item(out, from, false, false);
                if let Some(to) = to {
                    out.push_str(" to ");
                    write_item(out, to, false, false);
                }
            }
            out.push(']');
        }
        Kind::Any { lo, hi } => {
            if in_key {
                out.push('.');
            }
            out.push_str("**");
            let level = |v: u32| {
                if v == u32::MAX {
                    "last".to_string()
                } else {
                    v.to_string()
                }
            };
            if *lo == 0 && *hi == u32::MAX {
            } else if lo == hi {
                let _ = write!(out, "{{{}}}", level(*lo));
            } else {
                let _ = write!(out, "{{{} to {}}}", level(*lo), level(*hi));
            }
        }
        Kind::Method(m) => {
            out.push('.');
            out.push_str(m.name());
            out.push_str("()");
        }
        Kind::Datetime(t) => {
            out.push_str(".datetime(");
            if let Some(t) = t {
                write_json_string(out, t);
            }
            out.push(')');
        }
    }
    if let Some(next) = &item.next {
        write_item(out, next, true, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        normalize(s).unwrap_or_else(|e| format!("ERROR {}: {}", e.code, e.message))
    }

    #[test]
    fn canonical_text() {
        assert_eq!(norm("$.a ? (@ > 1)"), "$.\"a\"?(@ > 1)");
        assert_eq!(norm("1 + 2 + 3"), "((1 + 2) + 3)");
        assert_eq!(norm("1 - (2 - 3)"), "(1 - (2 - 3))");
        assert_eq!(norm("- -1"), "1");
        assert_eq!(norm("-$.a"), "(-$.\"a\")");
        assert_eq!(norm("1.2.a"), "(1.2).\"a\"");
        assert_eq!(norm("STRICT $.**{2 to last}"), "strict $.**{2 to last}");
        assert_eq!(norm("$ ? (!exists(@.a))"), "$?(!(exists (@.\"a\")))");
        assert_eq!(norm("$ ? (@ <> 1)"), "$?(@ != 1)");
        assert_eq!(norm("$.true.size"), "$.\"true\".\"size\"");
        assert_eq!(norm("$[1,2 to last]"), "$[1,2 to last]");
        assert_eq!(norm("$a"), "$\"a\"");
        assert_eq!(
            norm("$ ? (@ like_regex \"x\" flag \"mi\")"),
            "$?(@ like_regex \"x\" flag \"im\")"
        );
    }

    #[test]
    fn errors() {
        assert!(norm("1a").contains("trailing junk"));
        assert!(norm("@").contains("@ is not allowed"));
        assert!(norm("last").contains("LAST is allowed only"));
        assert!(norm("$ ? (@.b)").contains("at or near \")\""));
        assert!(norm("$ && $").contains("at or near \"&&\""));
        assert!(norm("$.a =").contains("42601"));
        assert!(norm("").starts_with("ERROR 22P02"));
        assert!(norm("$ ? (@ == 1 == 2)").contains("at or near \"==\""));
        assert!(norm("$.").contains("at end of jsonpath input"));
        let deep = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(|| {
                let parens = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
                let chain = format!("${}", ".a".repeat(5000));
                (norm(&parens), norm(&chain))
            })
            .expect("thread")
            .join()
            .expect("no panic");
        assert!(deep.0.starts_with("ERROR 54001"), "{}", deep.0);
        assert!(deep.1.starts_with("ERROR 54001"), "{}", deep.1);
    }
}
