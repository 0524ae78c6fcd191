//! Full-text search: the `tsvector` and `tsquery` types and the functions over them
//! (PostgreSQL's tsearch, `src/backend/tsearch` and `utils/adt/ts*.c`).
//!
//! Shapes (shared by every file of this module):
//! - [`TsVector`]: sorted, distinct lexemes (bytewise order, as PostgreSQL's
//!   `tsCompareString`), each with sorted, distinct positions. A position is a `u16`
//!   `WordEntryPos`: weight in the top two bits (3 = A, 2 = B, 1 = C, 0 = D), position
//!   1..=16383 in the low 14 bits. A lexeme without positions is a stripped one.
//! - [`TsQuery`]: a tree of operands and operators; `None` is the empty query (a query
//!   of stop words only). Operands carry a weight mask (bit 0 = D … bit 3 = A; 0 = any)
//!   and a prefix flag (`'sup':*`).
//!
//! Files: `parser` is PostgreSQL's default parser (`wparser_def.c`: token kinds, urls,
//! emails, hyphenated words); `dict` the configurations and dictionaries, `languages`
//! the snowball languages besides english (stemmers, stop words, oids); `vector`
//! tsvector input / output and functions; `query` tsquery input / output, `to_tsquery`
//! and friends, tsquery operators; `matching` `@@`, also over stored bytes; `rank`
//! `ts_rank` and `ts_rank_cd`; `headline` `ts_headline`; `rewrite` `ts_rewrite`;
//! `jsondoc` json / jsonb documents; `pgsort` PostgreSQL's quicksort.

pub mod dict;
pub mod headline;
pub mod jsondoc;
pub mod languages;
pub mod matching;
pub mod parser;
mod pgsort;
pub mod query;
pub mod rank;
pub mod rewrite;
pub mod vector;

/// Weight bits of a `WordEntryPos`.
pub const WEIGHT_SHIFT: u16 = 14;
/// Largest position a lexeme can have (PostgreSQL's MAXENTRYPOS - 1).
pub const MAX_POS: u16 = (1 << 14) - 1;
/// At most this many positions are kept per lexeme (MAXNUMPOS).
pub const MAX_NUM_POS: usize = 256;
/// Longest lexeme, in bytes (2046: PostgreSQL refuses 2047).
pub const MAX_LEXEME_LEN: usize = (1 << 11) - 2;

/// Position part of a `WordEntryPos`.
pub fn pos_of(p: u16) -> u16 {
    p & MAX_POS
}

/// Weight part (0 = D .. 3 = A) of a `WordEntryPos`.
pub fn weight_of(p: u16) -> u8 {
    (p >> WEIGHT_SHIFT) as u8
}

/// A `WordEntryPos` of `pos` (clamped to [`MAX_POS`]) and weight (0 = D .. 3 = A).
pub fn make_pos(pos: u32, weight: u8) -> u16 {
    (pos.min(MAX_POS as u32) as u16) | ((weight as u16 & 3) << WEIGHT_SHIFT)
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lexeme {
    pub word: String,
    /// Sorted by position, distinct positions; empty when stripped.
    pub positions: Vec<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TsVector {
    /// Sorted bytewise by word, distinct words.
    pub lexemes: Vec<Lexeme>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryNode {
    Operand {
        word: String,
        /// Weight mask: bit 0 = D, 1 = C, 2 = B, 3 = A; 0 means every weight.
        weight: u8,
        prefix: bool,
    },
    Not(Box<QueryNode>),
    And(Box<QueryNode>, Box<QueryNode>),
    Or(Box<QueryNode>, Box<QueryNode>),
    /// `a <N> b` (`<->` is distance 1).
    Phrase(Box<QueryNode>, Box<QueryNode>, u16),
}

impl QueryNode {
    /// The nodes of the tree in postfix order (left, right, operator), walked without
    /// recursion (trees can be thousands of levels deep).
    pub fn postorder(&self) -> Vec<&QueryNode> {
        let mut out = Vec::new();
        let mut st: Vec<(&QueryNode, bool)> = vec![(self, false)];
        while let Some((n, done)) = st.pop() {
            if done {
                out.push(n);
                continue;
            }
            st.push((n, true));
            match n {
                QueryNode::Operand { .. } => {}
                QueryNode::Not(c) => st.push((c, false)),
                QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                    st.push((r, false));
                    st.push((l, false));
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TsQuery {
    pub root: Option<QueryNode>,
}

/// One word as the text-search parser and a configuration's dictionaries see it (PostgreSQL's
/// `ParsedWord`): `pos` counts every token a dictionary was asked about, stop words
/// included, starting at 1; several lexemes from one token share `pos` (`nvariant`
/// tells a dictionary's alternatives apart; the snowball stemmer gives one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedWord {
    pub word: String,
    pub pos: u32,
    pub nvariant: u16,
}

/// The parse-and-lexize step of a text-search configuration (PostgreSQL's `parsetext`):
/// the words of `text` after the parser and the dictionaries, stop words dropped but
/// counted in positions.
pub trait Lexizer {
    fn parsetext(&self, text: &str) -> Vec<ParsedWord>;
}

/// An error of this module: SQLSTATE, message and optional detail / hint, as
/// PostgreSQL words them. The caller turns it into kiln's error type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TsError {
    pub code: &'static str,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

impl TsError {
    pub fn new(code: &'static str, message: impl Into<String>) -> TsError {
        TsError {
            code,
            message: message.into(),
            detail: None,
            hint: None,
        }
    }
}

impl From<TsError> for crate::error::Error {
    fn from(e: TsError) -> crate::error::Error {
        let mut out = crate::error::Error::new(e.code, e.message);
        if let Some(d) = e.detail {
            out = out.with_detail(d);
        }
        if let Some(h) = e.hint {
            out = out.with_hint(h);
        }
        out
    }
}

use super::{DataType, Value};

/// The text form of a stored tsvector or tsquery (`ty`), appended to `out`.
pub fn write_text(out: &mut Vec<u8>, ty: DataType, stored: &[u8]) {
    let mut s = String::new();
    match ty {
        DataType::TsVector => {
            vector::format_tsvector(&vector::decode(stored).unwrap_or_default(), &mut s)
        }
        _ => query::format_tsquery(&query::decode(stored).unwrap_or_default(), &mut s),
    }
    out.extend_from_slice(s.as_bytes());
}

/// A tsvector or tsquery (`ty`) read from its text form.
pub fn parse_text(ty: DataType, text: &str) -> crate::error::Result<Value> {
    Ok(match ty {
        DataType::TsVector => Value::Raw(ty, vector::encode(&vector::parse_tsvector(text)?)),
        _ => Value::Raw(ty, query::encode(&query::parse_tsquery(text)?)),
    })
}

/// The binary (send) form of a stored tsvector or tsquery.
pub fn send(buf: &mut Vec<u8>, ty: DataType, stored: &[u8]) {
    match ty {
        DataType::TsVector => vector::send(&vector::decode(stored).unwrap_or_default(), buf),
        _ => query::send(&query::decode(stored).unwrap_or_default(), buf),
    }
}

/// A tsvector or tsquery read from its binary (receive) form.
pub fn recv(ty: DataType, b: &[u8]) -> crate::error::Result<Value> {
    Ok(match ty {
        DataType::TsVector => Value::Raw(ty, vector::encode(&vector::recv(b)?)),
        _ => Value::Raw(ty, query::encode(&query::recv(b)?)),
    })
}

/// The tsvector a stored value holds (empty for bytes that are none).
pub fn vector_of(stored: &[u8]) -> TsVector {
    vector::decode(stored).unwrap_or_default()
}

/// The tsquery a stored value holds (empty for bytes that are none).
pub fn query_of(stored: &[u8]) -> TsQuery {
    query::decode(stored).unwrap_or_default()
}
