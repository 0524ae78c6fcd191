//! `ts_headline` and `ts_rewrite`.
//!
//! `ts_headline` is PostgreSQL 15's default-parser headline: the document is split by
//! the default parser and every token that a configuration's dictionary turns into a
//! lexeme is tied to the query operands it matches (`hlparsetext`: bytewise equality,
//! or prefix for `:*` operands; weights are ignored; a token matching several operands
//! gets one extra "repeated" entry per further operand). The options string is read as
//! `deserialize_deflist` reads it (`key = value` pairs, commas or blanks between them,
//! `'…'`, `E'…'` and `"…"` quoting) and checked as `prsd_headline` checks it. Then
//! either one headline is chosen around the best cover of the query (`mark_hl_words`)
//! or up to `MaxFragments` fragments (`mark_hl_fragments`), and the chosen tokens are
//! written out with `StartSel` / `StopSel` around matched words, tags replaced by a
//! blank, compound tokens (hyphenated words, URLs) dropped in favour of their parts, and
//! `FragmentDelimiter` between fragments (`generateHeadline`).
//!
//! A cover is the earliest, shortest run of tokens, starting and ending at matched
//! tokens and at most `max(10 * MaxWords, 100)` (times `MaxFragments` when positive)
//! tokens long, over which the query holds, operand positions being the positions
//! `to_tsvector` would give (phrase operators count). The query is evaluated by
//! [`query::matches`] over a vector of the run's matches. PostgreSQL tries every end
//! in turn; here the same first end is found with fewer evaluations: by bisection for
//! a query without `!` (a longer run never stops matching), at the points where an
//! operand or a `!`-free phrase first matches when `!` appears only outside phrase
//! operators, and otherwise in turn but not before every operand the query needs is
//! in the run. MB-sized documents stay fast.
//!
//! Differences from PostgreSQL: a `ts_rewrite` result nested deeper than
//! [`MAX_DEPTH`] (a balanced `&` / `|` tree of more than 10000 operands, made one
//! chain) is refused with `54001`, where PostgreSQL's limit is its stack size; rewrites
//! building more than 4 000 000 nodes are refused with `54000 tsquery is too large`.
//!
//! `ts_rewrite` is `tsquery_rewrite`: the query and the target are flattened (nested
//! `&` / `|` of one kind become one n-ary node) and their children sorted in
//! `QTNodeCompare` order; each occurrence of the target (a whole node, or a subset of
//! an n-ary node's children) is replaced by a copy of the substitute, emptied nodes are
//! removed, and the tree is made binary again. Everything runs on an index arena with
//! explicit stacks: no recursion.

use std::cmp::Ordering;

use super::dict::Config;
use super::parser::{self, TokenKind};
use super::query::{self, MAX_DEPTH};
use super::{Lexeme, MAX_LEXEME_LEN, MAX_POS, QueryNode, TsError, TsQuery, TsVector};

const INVALID_PARAMETER_VALUE: &str = "22023";

// ---------------------------------------------------------------------------------
// Options

/// The headline options after parsing and validation.
struct Options {
    start_sel: String,
    stop_sel: String,
    frag_delim: String,
    min_words: i32,
    max_words: i32,
    short_word: i32,
    max_fragments: i32,
    highlight_all: bool,
    max_cover: i32,
}

/// C `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The `key = value` list of an options string, as `deserialize_deflist` reads it.
fn parse_deflist(text: &str) -> Result<Vec<(String, String)>, TsError> {
    #[derive(PartialEq, Eq, Clone, Copy)]
    enum S {
        WaitKey,
        InKey,
        InQuotedKey,
        WaitEq,
        WaitValue,
        InSingleQuoted,
        InDoubleQuoted,
        InWord,
    }
    let bad = || {
        TsError::new(
            "42601",
            format!("invalid parameter list format: \"{text}\""),
        )
    };
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut key: Vec<u8> = Vec::new();
    let mut val: Vec<u8> = Vec::new();
    let mut st = S::WaitKey;
    let mut emit = |key: &[u8], val: &[u8]| {
        out.push((
            String::from_utf8_lossy(key).into_owned(),
            String::from_utf8_lossy(val).into_owned(),
        ));
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match st {
            S::WaitKey => {
                if !(is_c_space(c) || c == b',') {
                    key.clear();
                    if c == b'"' {
                        st = S::InQuotedKey;
                    } else {
                        key.push(c);
                        st = S::InKey;
                    }
                }
            }
            S::InKey => {
                if is_c_space(c) {
                    st = S::WaitEq;
                } else if c == b'=' {
                    st = S::WaitValue;
                } else {
                    key.push(c);
                }
            }
            S::InQuotedKey => {
                if c == b'"' {
                    if next == Some(b'"') {
                        key.push(c);
                        i += 1;
                    } else {
                        st = S::WaitEq;
                    }
                } else {
                    key.push(c);
                }
            }
            S::WaitEq => {
                if c == b'=' {
                    st = S::WaitValue;
                } else if !is_c_space(c) {
                    return Err(bad());
                }
            }
            S::WaitValue => {
                val.clear();
                if c == b'\'' {
                    st = S::InSingleQuoted;
                } else if c == b'E' && next == Some(b'\'') {
                    i += 1;
                    st = S::InSingleQuoted;
                } else if c == b'"' {
                    st = S::InDoubleQuoted;
                } else if !is_c_space(c) {
                    val.push(c);
                    st = S::InWord;
                }
            }
            S::InSingleQuoted => {
                if c == b'\'' {
                    if next == Some(b'\'') {
                        val.push(c);
                        i += 1;
                    } else {
                        emit(&key, &val);
                        st = S::WaitKey;
                    }
                } else if c == b'\\' {
                    if next == Some(b'\\') {
                        i += 1;
                    }
                    val.push(c);
                } else {
                    val.push(c);
                }
            }
            S::InDoubleQuoted => {
                if c == b'"' {
                    if next == Some(b'"') {
                        val.push(c);
                        i += 1;
                    } else {
                        emit(&key, &val);
                        st = S::WaitKey;
                    }
                } else {
                    val.push(c);
                }
            }
            S::InWord => {
                if c == b',' || is_c_space(c) {
                    emit(&key, &val);
                    st = S::WaitKey;
                } else {
                    val.push(c);
                }
            }
        }
        i += 1;
    }
    match st {
        S::InWord => emit(&key, &val),
        S::WaitKey => {}
        _ => return Err(bad()),
    }
    Ok(out)
}

/// PostgreSQL 15's `pg_strtoint32`: blanks around, an optional sign, decimal digits.
fn strtoint32(s: &str) -> Result<i32, TsError> {
    let invalid = || {
        TsError::new(
            "22P02",
            format!("invalid input syntax for type integer: \"{s}\""),
        )
    };
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        neg = b[i] == b'-';
        i += 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return Err(invalid());
    }
    // Accumulated negatively, as the C code does, so that -2147483648 fits.
    let mut acc: i32 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        let digit = (b[i] - b'0') as i32;
        acc = match acc.checked_mul(10).and_then(|v| v.checked_sub(digit)) {
            Some(v) => v,
            None => {
                return Err(TsError::new(
                    "22003",
                    format!("value \"{s}\" is out of range for type integer"),
                ));
            }
        };
        i += 1;
    }
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    if i < b.len() {
        return Err(invalid());
    }
    if neg {
        Ok(acc)
    } else {
        acc.checked_neg().ok_or_else(|| {
            TsError::new(
                "22003",
                format!("value \"{s}\" is out of range for type integer"),
            )
        })
    }
}

fn parse_options(text: Option<&str>) -> Result<Options, TsError> {
    let mut o = Options {
        start_sel: "<b>".to_string(),
        stop_sel: "</b>".to_string(),
        frag_delim: " ... ".to_string(),
        min_words: 15,
        max_words: 35,
        short_word: 3,
        max_fragments: 0,
        highlight_all: false,
        max_cover: 0,
    };
    let list = match text {
        Some(t) => parse_deflist(t)?,
        None => Vec::new(),
    };
    for (key, val) in list {
        let k = |name: &str| key.eq_ignore_ascii_case(name);
        if k("MaxWords") {
            o.max_words = strtoint32(&val)?;
        } else if k("MinWords") {
            o.min_words = strtoint32(&val)?;
        } else if k("ShortWord") {
            o.short_word = strtoint32(&val)?;
        } else if k("MaxFragments") {
            o.max_fragments = strtoint32(&val)?;
        } else if k("StartSel") {
            o.start_sel = val;
        } else if k("StopSel") {
            o.stop_sel = val;
        } else if k("FragmentDelimiter") {
            o.frag_delim = val;
        } else if k("HighlightAll") {
            o.highlight_all = ["1", "on", "true", "t", "y", "yes"]
                .iter()
                .any(|t| val.eq_ignore_ascii_case(t));
        } else {
            return Err(TsError::new(
                INVALID_PARAMETER_VALUE,
                format!("unrecognized headline parameter: \"{key}\""),
            ));
        }
    }
    // The C code's int arithmetic wraps (PostgreSQL is built with -fwrapv).
    o.max_cover = o.max_words.wrapping_mul(10).max(100);
    if o.max_fragments > 0 {
        o.max_cover = o.max_cover.wrapping_mul(o.max_fragments);
    }
    if !o.highlight_all {
        let check = |bad: bool, msg: &str| {
            if bad {
                Err(TsError::new(INVALID_PARAMETER_VALUE, msg))
            } else {
                Ok(())
            }
        };
        check(
            o.min_words >= o.max_words,
            "MinWords should be less than MaxWords",
        )?;
        check(o.min_words <= 0, "MinWords should be positive")?;
        check(o.short_word < 0, "ShortWord should be >= 0")?;
        check(o.max_fragments < 0, "MaxFragments should be >= 0")?;
    }
    Ok(o)
}

// ---------------------------------------------------------------------------------
// The parsed document

/// One token of the document (PostgreSQL's `HeadlineWordEntry`).
#[derive(Clone)]
struct Word<'a> {
    text: &'a str,
    kind: TokenKind,
    /// The query operand (index in PostgreSQL's item order) this entry matches.
    item: Option<usize>,
    /// The `to_tsvector` position of the token (clamped to [`MAX_POS`]).
    pos: u16,
    /// An extra entry for a further operand the same token matches.
    repeated: bool,
    selected: bool,
    inside: bool,
    replace: bool,
    skip: bool,
}

fn is_skipped_compound(k: TokenKind) -> bool {
    matches!(
        k,
        TokenKind::Url | TokenKind::NumHWord | TokenKind::AsciiHWord | TokenKind::HWord
    )
}

/// NONWORDTOKEN: blanks, tags and compound tokens are not counted as words.
fn non_word(k: TokenKind) -> bool {
    k == TokenKind::Blank || k == TokenKind::Tag || is_skipped_compound(k)
}

/// NOENDTOKEN: tokens a headline should not end at.
fn no_end(k: TokenKind) -> bool {
    non_word(k)
        || matches!(
            k,
            TokenKind::SFloat
                | TokenKind::Version
                | TokenKind::Float
                | TokenKind::Int
                | TokenKind::UInt
                | TokenKind::Protocol
                | TokenKind::Entity
        )
}

/// The operands of a query in PostgreSQL's item order (operator, right, left).
fn operands_in_item_order(q: &TsQuery) -> Vec<&QueryNode> {
    let mut out = Vec::new();
    let Some(root) = &q.root else {
        return out;
    };
    let mut st = vec![root];
    while let Some(n) = st.pop() {
        match n {
            QueryNode::Operand { .. } => out.push(n),
            QueryNode::Not(c) => st.push(c),
            QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                st.push(l);
                st.push(r);
            }
        }
    }
    out
}

/// `hlparsetext`: the tokens of `document`, each tied to the operands it matches.
fn parse_document<'a>(config: Config, document: &'a str, q: &TsQuery) -> Vec<Word<'a>> {
    let operands: Vec<(&str, bool)> = operands_in_item_order(q)
        .into_iter()
        .map(|n| match n {
            QueryNode::Operand { word, prefix, .. } => (word.as_str(), *prefix),
            _ => ("", false),
        })
        .collect();
    let mut words: Vec<Word<'a>> = Vec::new();
    let mut vectorpos: u32 = 0;
    for token in parser::parse(document) {
        // Words too long to be indexed are dropped altogether (with a NOTICE).
        if token.text.len() > MAX_LEXEME_LEN {
            continue;
        }
        let word = Word {
            text: token.text,
            kind: token.kind,
            item: None,
            pos: 0,
            repeated: false,
            selected: false,
            inside: false,
            replace: false,
            skip: false,
        };
        words.push(word);
        let Some(dict) = config.dictionary(token.kind) else {
            continue;
        };
        let Some(lexemes) = dict.lexize(token.text) else {
            continue;
        };
        vectorpos = vectorpos.saturating_add(1);
        for lexeme in lexemes {
            let base = words.len() - 1;
            words[base].pos = vectorpos.min(MAX_POS as u32) as u16;
            for (idx, &(op, prefix)) in operands.iter().enumerate() {
                let hit = if prefix {
                    lexeme.as_bytes().starts_with(op.as_bytes())
                } else {
                    lexeme == op
                };
                if !hit {
                    continue;
                }
                if words[base].item.is_some() {
                    let mut copy = words[base].clone();
                    copy.item = Some(idx);
                    copy.repeated = true;
                    words.push(copy);
                } else {
                    words[base].item = Some(idx);
                }
            }
        }
    }
    words
}

// ---------------------------------------------------------------------------------
// Covers

/// How the shortest matching run from a start is searched for.
enum Search {
    /// No `!`: matching only grows with the run, so bisection finds it.
    Monotone,
    /// `!` only outside phrase operators: the query is a boolean function of
    /// "leaves" (operands and phrase subqueries), each of which only grows with the
    /// run; the query can only change where a leaf starts to match.
    Leaves(Vec<Leaf>),
    /// Every end is tried, as PostgreSQL does, but not before every operand the query
    /// cannot hold without (these indexes) is in the run.
    Linear(Vec<usize>),
}

/// A leaf of [`Search::Leaves`]: an operand (by index) or a phrase subquery.
enum Leaf {
    Operand(usize),
    Phrase(TsQuery),
}

/// Finds covers: runs of tokens over which the query holds (`hlCover`).
struct CoverFinder {
    /// The query with operand `i` renamed to `names[i]`, weights and prefixes dropped.
    renamed: TsQuery,
    names: Vec<String>,
    search: Search,
    /// Per operand, the indexes of the entries matching it.
    occurrences: Vec<Vec<usize>>,
    /// Indexes of the entries matching any operand.
    matched: Vec<usize>,
    max_cover: i64,
}

impl CoverFinder {
    fn new(q: &TsQuery, words: &[Word], max_cover: i32) -> CoverFinder {
        let operands = operands_in_item_order(q);
        let names: Vec<String> = (0..operands.len()).map(|i| format!("{i:010}")).collect();
        let ids: std::collections::HashMap<*const QueryNode, usize> = operands
            .iter()
            .enumerate()
            .map(|(i, n)| (*n as *const QueryNode, i))
            .collect();
        let renamed = TsQuery {
            root: q.root.as_ref().and_then(|root| {
                map_operands(root, &mut |n| {
                    let i = ids.get(&(n as *const QueryNode)).copied().unwrap_or(0);
                    QueryNode::Operand {
                        word: names.get(i).cloned().unwrap_or_default(),
                        weight: 0,
                        prefix: false,
                    }
                })
            }),
        };
        let search = if !has_not(q) {
            Search::Monotone
        } else {
            boolean_leaves(&renamed).map_or_else(
                || Search::Linear(required_operands(&renamed)),
                Search::Leaves,
            )
        };
        let mut occurrences = vec![Vec::new(); operands.len()];
        let mut matched = Vec::new();
        for (j, w) in words.iter().enumerate() {
            if let Some(i) = w.item {
                if let Some(list) = occurrences.get_mut(i) {
                    list.push(j);
                }
                matched.push(j);
            }
        }
        CoverFinder {
            renamed,
            names,
            search,
            occurrences,
            matched,
            max_cover: max_cover as i64,
        }
    }

    /// Whether `q` (a renamed query) holds over entries `lo..=hi`.
    fn holds(&self, q: &TsQuery, words: &[Word], lo: usize, hi: usize) -> bool {
        let mut lexemes = Vec::new();
        for (i, list) in self.occurrences.iter().enumerate() {
            let a = list.partition_point(|&j| j < lo);
            let b = list.partition_point(|&j| j <= hi);
            if a >= b {
                continue;
            }
            let mut positions: Vec<u16> = list[a..b].iter().map(|&j| words[j].pos).collect();
            positions.dedup();
            lexemes.push(Lexeme {
                word: self.names[i].clone(),
                positions,
            });
        }
        query::matches(&TsVector { lexemes }, q)
    }

    /// The first `m` in `lo..hi` for which `q` holds over `pmin..=matched[m]`, `q`
    /// growing with the run.
    fn bisect(
        &self,
        q: &TsQuery,
        words: &[Word],
        pmin: usize,
        lo: usize,
        hi: usize,
    ) -> Option<usize> {
        if lo >= hi || !self.holds(q, words, pmin, self.matched[hi - 1]) {
            return None;
        }
        let (mut lo, mut hi) = (lo, hi - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.holds(q, words, pmin, self.matched[mid]) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }

    /// The first cover starting at entry `p` or later: its first and last entries.
    fn cover(&self, words: &[Word], p: usize) -> Option<(usize, usize)> {
        let mut k = self.matched.partition_point(|&j| j < p);
        while k < self.matched.len() {
            let pmin = self.matched[k];
            // Ends tried: pmin itself, then later matched entries less than max_cover away.
            let end = k
                + 1
                + self.matched[k + 1..].partition_point(|&j| ((j - pmin) as i64) < self.max_cover);
            let found = match &self.search {
                Search::Monotone => self.bisect(&self.renamed, words, pmin, k, end),
                Search::Leaves(leaves) => {
                    let mut points = vec![k];
                    for leaf in leaves {
                        let first = match leaf {
                            Leaf::Operand(i) => self.occurrences.get(*i).and_then(|list| {
                                let j = *list.get(list.partition_point(|&j| j < pmin))?;
                                let m = self.matched.partition_point(|&x| x < j);
                                (m < end).then_some(m)
                            }),
                            Leaf::Phrase(q) => self.bisect(q, words, pmin, k, end),
                        };
                        points.extend(first);
                    }
                    points.sort_unstable();
                    points.dedup();
                    points
                        .into_iter()
                        .find(|&m| self.holds(&self.renamed, words, pmin, self.matched[m]))
                }
                Search::Linear(required) => {
                    let mut from = Some(k);
                    for &i in required {
                        from = from.and_then(|from| {
                            let list = self.occurrences.get(i)?;
                            let j = *list.get(list.partition_point(|&j| j < pmin))?;
                            Some(from.max(self.matched.partition_point(|&x| x < j)))
                        });
                    }
                    from.and_then(|from| {
                        (from..end)
                            .find(|&m| self.holds(&self.renamed, words, pmin, self.matched[m]))
                    })
                }
            };
            if let Some(m) = found {
                return Some((pmin, self.matched[m]));
            }
            k += 1;
        }
        None
    }
}

/// Operands (by index) without which a renamed query cannot hold: both sides of `&`
/// and phrase operators need a match, `|` needs one side, `!` nothing. Not worked out
/// for queries of more than 1000 operands.
fn required_operands(q: &TsQuery) -> Vec<usize> {
    use std::collections::BTreeSet;
    let Some(root) = &q.root else {
        return Vec::new();
    };
    let mut order: Vec<&QueryNode> = Vec::new();
    let mut st: Vec<(&QueryNode, bool)> = vec![(root, false)];
    while let Some((n, done)) = st.pop() {
        if done {
            order.push(n);
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
    if order.len() > 2000 {
        return Vec::new();
    }
    let mut sets: Vec<BTreeSet<usize>> = Vec::new();
    for n in order {
        let set = match n {
            QueryNode::Operand { word, .. } => word.parse().ok().into_iter().collect(),
            QueryNode::Not(_) => {
                sets.pop();
                BTreeSet::new()
            }
            QueryNode::Or(..) => {
                let r = sets.pop().unwrap_or_default();
                let l = sets.pop().unwrap_or_default();
                l.intersection(&r).copied().collect()
            }
            QueryNode::And(..) | QueryNode::Phrase(..) => {
                let r = sets.pop().unwrap_or_default();
                let mut l = sets.pop().unwrap_or_default();
                l.extend(r);
                l
            }
        };
        sets.push(set);
    }
    sets.pop()
        .map(|s| s.into_iter().collect())
        .unwrap_or_default()
}

/// The operands and phrase subqueries a query is a boolean function of (as distinct
/// queries); None when a phrase subquery has a `!` (it need not grow with the run).
fn boolean_leaves(q: &TsQuery) -> Option<Vec<Leaf>> {
    let mut out = Vec::new();
    let mut st: Vec<&QueryNode> = q.root.iter().collect();
    while let Some(n) = st.pop() {
        match n {
            QueryNode::Operand { word, .. } => out.push(Leaf::Operand(word.parse().ok()?)),
            QueryNode::Phrase(..) => {
                let leaf = TsQuery {
                    root: map_operands(n, &mut |op| op.clone()),
                };
                if has_not(&leaf) {
                    return None;
                }
                out.push(Leaf::Phrase(leaf));
            }
            QueryNode::Not(c) => st.push(c),
            QueryNode::And(l, r) | QueryNode::Or(l, r) => {
                st.push(l);
                st.push(r);
            }
        }
    }
    Some(out)
}

/// Whether a query has a `!` anywhere.
fn has_not(q: &TsQuery) -> bool {
    let mut st: Vec<&QueryNode> = q.root.iter().collect();
    while let Some(n) = st.pop() {
        match n {
            QueryNode::Operand { .. } => {}
            QueryNode::Not(_) => return true,
            QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                st.push(l);
                st.push(r);
            }
        }
    }
    false
}

/// A copy of `root` with every operand replaced by `f` of it. Iterative.
fn map_operands(root: &QueryNode, f: &mut dyn FnMut(&QueryNode) -> QueryNode) -> Option<QueryNode> {
    let mut order: Vec<&QueryNode> = Vec::new();
    let mut st: Vec<(&QueryNode, bool)> = vec![(root, false)];
    while let Some((n, done)) = st.pop() {
        if done {
            order.push(n);
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
    let mut built: Vec<QueryNode> = Vec::new();
    for n in order {
        let node = match n {
            QueryNode::Operand { .. } => f(n),
            QueryNode::Not(_) => QueryNode::Not(Box::new(built.pop()?)),
            QueryNode::And(..) | QueryNode::Or(..) | QueryNode::Phrase(..) => {
                let r = Box::new(built.pop()?);
                let l = Box::new(built.pop()?);
                match n {
                    QueryNode::And(..) => QueryNode::And(l, r),
                    QueryNode::Or(..) => QueryNode::Or(l, r),
                    QueryNode::Phrase(_, _, d) => QueryNode::Phrase(l, r, *d),
                    _ => return None,
                }
            }
        };
        built.push(node);
    }
    built.pop()
}

// ---------------------------------------------------------------------------------
// Choosing what to show

struct Doc<'a, 'w> {
    w: &'a mut Vec<Word<'w>>,
    short_word: i64,
}

impl Doc<'_, '_> {
    fn len(&self) -> i64 {
        self.w.len() as i64
    }

    fn get(&self, i: i64) -> Option<&Word<'_>> {
        usize::try_from(i).ok().and_then(|i| self.w.get(i))
    }

    fn non_word(&self, i: i64) -> bool {
        self.get(i).is_some_and(|w| non_word(w.kind))
    }

    fn interesting(&self, i: i64) -> bool {
        self.get(i).is_some_and(|w| w.item.is_some() && !w.repeated)
    }

    fn bad_end(&self, i: i64) -> bool {
        self.get(i).is_some_and(|w| {
            (no_end(w.kind) || (w.text.len() as i64) <= self.short_word) && !self.interesting(i)
        })
    }

    fn inside(&self, i: i64) -> bool {
        self.get(i).is_some_and(|w| w.inside)
    }

    /// `mark_fragment`: marks entries `start..=end` as shown.
    fn mark(&mut self, highlight_all: bool, start: i64, end: i64) {
        let lo = start.max(0);
        let hi = end.min(self.len() - 1);
        let mut i = lo;
        while i <= hi {
            let w = &mut self.w[i as usize];
            if w.item.is_some() {
                w.selected = true;
            }
            if !highlight_all && w.kind == TokenKind::Tag {
                w.replace = true;
            } else if is_skipped_compound(w.kind) {
                w.skip = true;
            }
            w.inside = !w.repeated;
            i += 1;
        }
    }
}

/// `mark_hl_words`: one headline around the best cover (or the whole document).
fn mark_words(d: &mut Doc, f: &CoverFinder, o: &Options) {
    let (min_words, max_words) = (o.min_words as i64, o.max_words as i64);
    let n = d.len();
    let (bestb, beste);
    if !o.highlight_all {
        let mut bb: i64 = -1;
        let mut be: i64 = -1;
        let mut bestlen: i64 = -1;
        let mut bestcover = false;
        let mut start = 0usize;
        while let Some((cp, cq)) = f.cover(d.w, start) {
            let (p, q) = (cp as i64, cq as i64);
            let mut curlen = 0i64;
            let mut poslen = 0i64;
            let mut posb = p;
            let mut pose = p;
            let mut i = p;
            while i <= q && curlen < max_words {
                if !d.non_word(i) {
                    curlen += 1;
                }
                if d.interesting(i) {
                    poslen += 1;
                }
                pose = i;
                i += 1;
            }
            if curlen < max_words {
                i -= 1;
                while i < n && curlen < max_words {
                    if i > q {
                        if !d.non_word(i) {
                            curlen += 1;
                        }
                        if d.interesting(i) {
                            poslen += 1;
                        }
                    }
                    pose = i;
                    if !d.bad_end(i) && curlen >= min_words {
                        break;
                    }
                    i += 1;
                }
                if curlen < min_words {
                    i = p - 1;
                    while i >= 0 {
                        if !d.non_word(i) {
                            curlen += 1;
                        }
                        if d.interesting(i) {
                            poslen += 1;
                        }
                        if curlen >= max_words {
                            break;
                        }
                        if !d.bad_end(i) && curlen >= min_words {
                            break;
                        }
                        i -= 1;
                    }
                    posb = i.max(0);
                }
            } else {
                if i > q {
                    i = q;
                }
                while curlen > min_words {
                    if !d.bad_end(i) {
                        break;
                    }
                    if !d.non_word(i) {
                        curlen -= 1;
                    }
                    if d.interesting(i) {
                        poslen -= 1;
                    }
                    pose = i - 1;
                    i -= 1;
                }
            }
            let poscover = posb <= p && pose >= q;
            if (poscover && !bestcover)
                || (poscover == bestcover && poslen > bestlen)
                || (poscover == bestcover && poslen == bestlen && !d.bad_end(pose) && d.bad_end(be))
            {
                bb = posb;
                be = pose;
                bestlen = poslen;
                bestcover = poscover;
            }
            start = cp + 1;
        }
        if bestlen < 0 {
            let mut curlen = 0i64;
            let mut pose = 0i64;
            let mut i = 0i64;
            while i < n && curlen < min_words {
                if !d.non_word(i) {
                    curlen += 1;
                }
                pose = i;
                i += 1;
            }
            bb = 0;
            be = pose;
        }
        bestb = bb;
        beste = be;
    } else {
        bestb = 0;
        beste = n - 1;
    }
    d.mark(o.highlight_all, bestb, beste);
}

#[derive(Clone, Copy)]
struct Fragment {
    start: i64,
    end: i64,
    poslen: i64,
    curlen: i64,
    chosen: bool,
    excluded: bool,
}

/// `get_next_fragment`: the next piece (at most `max_words` words, ending at
/// matched entries) of the cover remainder `start..=end`.
fn next_fragment(d: &Doc, start: &mut i64, end: &mut i64, max_words: i64) -> (i64, i64) {
    let mut i = *start;
    while i <= *end {
        *start = i;
        if d.interesting(i) {
            break;
        }
        i += 1;
    }
    let mut curlen = 0i64;
    let mut poslen = 0i64;
    i = *start;
    while i <= *end && curlen < max_words {
        if !d.non_word(i) {
            curlen += 1;
        }
        if d.interesting(i) {
            poslen += 1;
        }
        i += 1;
    }
    if *end > i {
        // The cover was cut: end at the last matched entry before the cut.
        *end = i;
        while i >= *start {
            *end = i;
            if d.interesting(i) {
                break;
            }
            if !d.non_word(i) {
                curlen -= 1;
            }
            i -= 1;
        }
    }
    (curlen, poslen)
}

/// `mark_hl_fragments`: up to `MaxFragments` fragments, best covers first.
fn mark_fragments(d: &mut Doc, f: &CoverFinder, o: &Options) {
    let (min_words, max_words) = (o.min_words as i64, o.max_words as i64);
    let n = d.len();
    let mut covers: Vec<Fragment> = Vec::new();
    let mut start_at = 0usize;
    while let Some((cp, cq)) = f.cover(d.w, start_at) {
        let q = cq as i64;
        let mut startpos = cp as i64;
        let mut endpos = q;
        while startpos <= endpos {
            let (curlen, poslen) = next_fragment(d, &mut startpos, &mut endpos, max_words);
            covers.push(Fragment {
                start: startpos,
                end: endpos,
                poslen,
                curlen,
                chosen: false,
                excluded: false,
            });
            startpos = endpos + 1;
            endpos = q;
        }
        start_at = cp + 1;
    }

    let mut num_f = 0;
    let mut f_count = 0i64;
    while f_count < o.max_fragments as i64 {
        f_count += 1;
        let mut maxitems = 0i64;
        let mut minwords = i64::from(i32::MAX);
        let mut best: Option<usize> = None;
        for (i, c) in covers.iter().enumerate() {
            if !c.chosen
                && !c.excluded
                && (maxitems < c.poslen || (maxitems == c.poslen && minwords > c.curlen))
            {
                maxitems = c.poslen;
                minwords = c.curlen;
                best = Some(i);
            }
        }
        let Some(bi) = best else {
            break;
        };
        covers[bi].chosen = true;
        let mut startpos = covers[bi].start;
        let mut endpos = covers[bi].end;
        let mut curlen = covers[bi].curlen;
        if curlen < max_words {
            let maxstretch = (max_words - curlen) / 2;
            let mut stretch = 0i64;
            let mut posmarker = startpos;
            let mut i = startpos - 1;
            while i >= 0 && stretch < maxstretch && !d.inside(i) {
                if !d.non_word(i) {
                    curlen += 1;
                    stretch += 1;
                }
                posmarker = i;
                i -= 1;
            }
            i = posmarker;
            while i < startpos && d.bad_end(i) {
                if !d.non_word(i) {
                    curlen -= 1;
                }
                i += 1;
            }
            startpos = i;
            posmarker = endpos;
            i = endpos + 1;
            while i < n && curlen < max_words && !d.inside(i) {
                if !d.non_word(i) {
                    curlen += 1;
                }
                posmarker = i;
                i += 1;
            }
            i = posmarker;
            while i > endpos && d.bad_end(i) {
                if !d.non_word(i) {
                    curlen -= 1;
                }
                i -= 1;
            }
            endpos = i;
        }
        covers[bi].start = startpos;
        covers[bi].end = endpos;
        covers[bi].curlen = curlen;
        d.mark(o.highlight_all, startpos, endpos);
        num_f += 1;
        for (i, c) in covers.iter_mut().enumerate() {
            if i != bi
                && ((c.start >= startpos && c.start <= endpos)
                    || (c.end >= startpos && c.end <= endpos)
                    || (c.start < startpos && c.end > endpos))
            {
                c.excluded = true;
            }
        }
    }

    if num_f == 0 {
        // Nothing is shown when MinWords <= 0 (possible with HighlightAll).
        let mut curlen = 0i64;
        let mut endpos = -1i64;
        let mut i = 0i64;
        while i < n && curlen < min_words {
            if !d.non_word(i) {
                curlen += 1;
            }
            endpos = i;
            i += 1;
        }
        d.mark(o.highlight_all, 0, endpos);
    }
}

/// `generateHeadline`: the shown entries, with selection markers and delimiters.
fn generate(words: &[Word], o: &Options) -> String {
    let mut out = String::new();
    let mut in_fragment = false;
    let mut fragments = 0usize;
    for w in words {
        if w.inside && !w.repeated {
            if !in_fragment {
                in_fragment = true;
                fragments += 1;
                if fragments > 1 {
                    out.push_str(&o.frag_delim);
                }
            }
            if w.replace {
                out.push(' ');
            } else if !w.skip {
                if w.selected {
                    out.push_str(&o.start_sel);
                }
                out.push_str(w.text);
                if w.selected {
                    out.push_str(&o.stop_sel);
                }
            }
        } else if !w.repeated {
            in_fragment = false;
        }
    }
    out
}

/// ts_headline([config,] document text, query tsquery [, options text]) — PostgreSQL 15's
/// `prsd_headline` (wparser_def.c: the default parser's headline function, with its
/// options StartSel, StopSel, MaxWords, MinWords, ShortWord, HighlightAll, MaxFragments,
/// FragmentDelimiter and their validation errors) over `hlparsetext` (ts_parse.c: which
/// words match which query operands, through the configuration's dictionaries) and
/// `generateHeadline` (the output text assembly).
pub fn ts_headline(
    config: Config,
    document: &str,
    query: &TsQuery,
    options: Option<&str>,
) -> Result<String, TsError> {
    let mut words = parse_document(config, document, query);
    let o = parse_options(options)?;
    let finder = CoverFinder::new(query, &words, o.max_cover);
    let mut d = Doc {
        w: &mut words,
        short_word: o.short_word as i64,
    };
    if o.max_fragments == 0 {
        mark_words(&mut d, &finder, &o);
    } else {
        mark_fragments(&mut d, &finder, &o);
    }
    Ok(generate(&words, &o))
}

// ---------------------------------------------------------------------------------
// ts_rewrite

const OP_NOT: u8 = 1;
const OP_AND: u8 = 2;
const OP_OR: u8 = 3;
const OP_PHRASE: u8 = 4;

/// Largest item count and operand area of a query (PostgreSQL's TSQUERY_TOO_BIG with
/// MaxAllocSize); kiln also refuses results of more than [`MAX_REWRITE_NODES`] nodes.
const MAX_ALLOC_SIZE: i64 = 0x3fff_ffff;
const MAX_REWRITE_NODES: usize = 4_000_000;

#[derive(Clone)]
enum Kind {
    Val {
        word: String,
        weight: u8,
        prefix: bool,
        crc: i32,
    },
    Op(u8, u16),
}

/// A node of PostgreSQL's `QTNode` tree: for a binary operator `children[0]` is the
/// right operand and `children[1]` the left one (item order).
#[derive(Clone)]
struct TNode {
    kind: Kind,
    children: Vec<usize>,
    no_change: bool,
}

struct Arena {
    nodes: Vec<TNode>,
    /// Nodes and operand bytes added by substitution, for the size limit.
    added_nodes: i64,
    added_len: i64,
}

fn too_large() -> TsError {
    TsError::new("54000", "tsquery is too large")
}

impl Arena {
    /// Adds the tree of `root` (QT2QTN); returns its index.
    fn add_query(&mut self, root: &QueryNode) -> usize {
        // Postfix walk; children built before parents.
        let mut st: Vec<(&QueryNode, bool)> = vec![(root, false)];
        let mut built: Vec<usize> = Vec::new();
        while let Some((n, done)) = st.pop() {
            if !done {
                st.push((n, true));
                match n {
                    QueryNode::Operand { .. } => {}
                    QueryNode::Not(c) => st.push((c, false)),
                    QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                        st.push((r, false));
                        st.push((l, false));
                    }
                }
                continue;
            }
            let node = match n {
                QueryNode::Operand {
                    word,
                    weight,
                    prefix,
                } => TNode {
                    kind: Kind::Val {
                        word: word.clone(),
                        weight: *weight,
                        prefix: *prefix,
                        crc: query::valcrc(word),
                    },
                    children: Vec::new(),
                    no_change: false,
                },
                QueryNode::Not(_) => TNode {
                    kind: Kind::Op(OP_NOT, 0),
                    children: vec![built.pop().unwrap_or(0)],
                    no_change: false,
                },
                QueryNode::And(..) | QueryNode::Or(..) | QueryNode::Phrase(..) => {
                    let r = built.pop().unwrap_or(0);
                    let l = built.pop().unwrap_or(0);
                    let kind = match n {
                        QueryNode::And(..) => Kind::Op(OP_AND, 0),
                        QueryNode::Or(..) => Kind::Op(OP_OR, 0),
                        QueryNode::Phrase(_, _, d) => Kind::Op(OP_PHRASE, *d),
                        _ => Kind::Op(OP_AND, 0),
                    };
                    TNode {
                        kind,
                        children: vec![r, l],
                        no_change: false,
                    }
                }
            };
            self.nodes.push(node);
            built.push(self.nodes.len() - 1);
        }
        built.pop().unwrap_or(0)
    }

    /// The nodes under `root` (itself included), parents before children.
    fn preorder(&self, root: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut st = vec![root];
        while let Some(n) = st.pop() {
            out.push(n);
            st.extend(self.nodes[n].children.iter().rev());
        }
        out
    }

    /// QTNTernary: nested AND / OR nodes of one operator merged into one.
    fn flatten(&mut self, root: usize) {
        for n in self.preorder(root).into_iter().rev() {
            let Kind::Op(op, _) = self.nodes[n].kind else {
                continue;
            };
            if op != OP_AND && op != OP_OR {
                continue;
            }
            let old = std::mem::take(&mut self.nodes[n].children);
            let mut merged = Vec::with_capacity(old.len());
            for c in old {
                if matches!(self.nodes[c].kind, Kind::Op(cop, _) if cop == op) {
                    merged.extend(std::mem::take(&mut self.nodes[c].children));
                } else {
                    merged.push(c);
                }
            }
            self.nodes[n].children = merged;
        }
    }

    /// QTNSort: children of AND / OR nodes sorted, bottom-up.
    fn sort(&mut self, root: usize) {
        for n in self.preorder(root).into_iter().rev() {
            if !matches!(self.nodes[n].kind, Kind::Op(op, _) if op != OP_PHRASE) {
                continue;
            }
            if self.nodes[n].children.len() > 1 {
                let mut ch = std::mem::take(&mut self.nodes[n].children);
                pg_sort(&mut ch, &|a, b| self.compare(a, b));
                self.nodes[n].children = ch;
            }
        }
    }

    /// QTNodeCompare (iterative): operators before operands, operators by descending
    /// code, then more children first, then children in order, then (phrase) larger
    /// distance first; operands by descending signed CRC, then bytewise.
    fn compare(&self, a: usize, b: usize) -> Ordering {
        enum Step {
            Enter(usize, usize),
            Distance(u16, u16),
        }
        let mut st = vec![Step::Enter(a, b)];
        while let Some(step) = st.pop() {
            match step {
                Step::Distance(da, db) => {
                    let (da, db) = (da as i16, db as i16);
                    if da != db {
                        return if da > db {
                            Ordering::Less
                        } else {
                            Ordering::Greater
                        };
                    }
                }
                Step::Enter(a, b) => {
                    let (na, nb) = (&self.nodes[a], &self.nodes[b]);
                    match (&na.kind, &nb.kind) {
                        (Kind::Op(..), Kind::Val { .. }) => return Ordering::Less,
                        (Kind::Val { .. }, Kind::Op(..)) => return Ordering::Greater,
                        (
                            Kind::Val {
                                word: wa, crc: ca, ..
                            },
                            Kind::Val {
                                word: wb, crc: cb, ..
                            },
                        ) => {
                            if ca != cb {
                                return if ca > cb {
                                    Ordering::Less
                                } else {
                                    Ordering::Greater
                                };
                            }
                            let c = wa.as_bytes().cmp(wb.as_bytes());
                            if c != Ordering::Equal {
                                return c;
                            }
                        }
                        (Kind::Op(oa, da), Kind::Op(ob, db)) => {
                            if oa != ob {
                                return if oa > ob {
                                    Ordering::Less
                                } else {
                                    Ordering::Greater
                                };
                            }
                            if na.children.len() != nb.children.len() {
                                return if na.children.len() > nb.children.len() {
                                    Ordering::Less
                                } else {
                                    Ordering::Greater
                                };
                            }
                            if *oa == OP_PHRASE {
                                st.push(Step::Distance(*da, *db));
                            }
                            for (&ca, &cb) in na.children.iter().zip(&nb.children).rev() {
                                st.push(Step::Enter(ca, cb));
                            }
                        }
                    }
                }
            }
        }
        Ordering::Equal
    }

    /// QTNCopy of `root`, the copy's root marked unchangeable.
    fn copy(&mut self, root: usize) -> Result<usize, TsError> {
        let order = self.preorder(root);
        let mut len = 0i64;
        for &n in &order {
            if let Kind::Val { word, .. } = &self.nodes[n].kind {
                len += word.len() as i64 + 1;
            }
        }
        self.added_nodes += order.len() as i64;
        self.added_len += len;
        if self.added_nodes > (MAX_ALLOC_SIZE - 8 - self.added_len) / 12
            || self.nodes.len() + order.len() > MAX_REWRITE_NODES
        {
            return Err(too_large());
        }
        let base = self.nodes.len();
        // Index map through a table: order[k] is copied to base + k.
        let mut table = std::collections::HashMap::with_capacity(order.len());
        for (k, &n) in order.iter().enumerate() {
            table.insert(n, base + k);
        }
        for &n in &order {
            let mut node = self.nodes[n].clone();
            node.children = node
                .children
                .iter()
                .map(|c| table.get(c).copied().unwrap_or(base))
                .collect();
            self.nodes.push(node);
        }
        self.nodes[base].no_change = true;
        Ok(base)
    }

    /// findeq: `node` with `ex` replaced by a copy of `subs` (None: removed).
    fn find_eq(
        &mut self,
        node: usize,
        ex: usize,
        subs: Option<usize>,
    ) -> Result<Option<usize>, TsError> {
        if self.nodes[node].no_change {
            return Ok(Some(node));
        }
        let replace = |arena: &mut Arena| -> Result<Option<usize>, TsError> {
            match subs {
                Some(s) => Ok(Some(arena.copy(s)?)),
                None => Ok(None),
            }
        };
        match (&self.nodes[node].kind, &self.nodes[ex].kind) {
            (Kind::Val { crc: a, .. }, Kind::Val { crc: b, .. }) => {
                if a == b && self.compare(node, ex) == Ordering::Equal {
                    return replace(self);
                }
                Ok(Some(node))
            }
            (Kind::Op(a, _), Kind::Op(b, _)) => {
                if a != b {
                    return Ok(Some(node));
                }
                let nn = self.nodes[node].children.len();
                let ne = self.nodes[ex].children.len();
                if nn == ne {
                    if self.compare(node, ex) == Ordering::Equal {
                        return replace(self);
                    }
                } else if nn > ne && ne > 0 {
                    let nch = self.nodes[node].children.clone();
                    let ech = self.nodes[ex].children.clone();
                    let mut matched = vec![false; nn];
                    let (mut i, mut j, mut count) = (0, 0, 0);
                    while i < nn && j < ne {
                        match self.compare(nch[i], ech[j]) {
                            Ordering::Equal => {
                                matched[i] = true;
                                count += 1;
                                i += 1;
                                j += 1;
                            }
                            Ordering::Less => i += 1,
                            Ordering::Greater => break,
                        }
                    }
                    if count == ne {
                        let mut kept: Vec<usize> = nch
                            .iter()
                            .zip(&matched)
                            .filter(|(_, m)| !**m)
                            .map(|(c, _)| *c)
                            .collect();
                        if let Some(s) = subs {
                            kept.push(self.copy(s)?);
                        }
                        self.nodes[node].children = kept;
                        self.sort(node);
                    }
                }
                Ok(Some(node))
            }
            _ => Ok(Some(node)),
        }
    }

    /// dofindsubquery over the whole tree (iterative): every occurrence replaced, void
    /// subtrees dropped, operators left with one child (other than NOT) collapsed.
    fn find_subquery(
        &mut self,
        root: usize,
        ex: usize,
        subs: Option<usize>,
    ) -> Result<Option<usize>, TsError> {
        struct Frame {
            node: usize,
            next: usize,
            kept: Vec<usize>,
        }
        let mut st: Vec<Frame> = Vec::new();
        let mut pending = Some(root);
        loop {
            let finished: Option<usize>;
            if let Some(n) = pending.take() {
                match self.find_eq(n, ex, subs)? {
                    Some(m)
                        if !self.nodes[m].no_change
                            && matches!(self.nodes[m].kind, Kind::Op(..)) =>
                    {
                        st.push(Frame {
                            node: m,
                            next: 0,
                            kept: Vec::new(),
                        });
                        continue;
                    }
                    other => finished = other,
                }
            } else {
                let Some(f) = st.last_mut() else {
                    return Ok(None);
                };
                if let Some(&c) = self.nodes[f.node].children.get(f.next) {
                    f.next += 1;
                    pending = Some(c);
                    continue;
                }
                let Some(f) = st.pop() else {
                    return Ok(None);
                };
                let node = f.node;
                self.nodes[node].children = f.kept;
                finished = match self.nodes[node].children.len() {
                    0 => None,
                    1 if !matches!(self.nodes[node].kind, Kind::Op(OP_NOT, _)) => {
                        Some(self.nodes[node].children[0])
                    }
                    _ => Some(node),
                };
            }
            match st.last_mut() {
                Some(p) => p.kept.extend(finished),
                None => return Ok(finished),
            }
        }
    }

    /// QTNBinary: n-ary nodes made binary again, as PostgreSQL pairs them.
    fn binarize(&mut self, root: usize) {
        for n in self.preorder(root).into_iter().rev() {
            while self.nodes[n].children.len() > 2 {
                let c0 = self.nodes[n].children[0];
                let c1 = self.nodes[n].children[1];
                let kind = self.nodes[n].kind.clone();
                self.nodes.push(TNode {
                    kind,
                    children: vec![c0, c1],
                    no_change: false,
                });
                let nn = self.nodes.len() - 1;
                let ch = &mut self.nodes[n].children;
                let last = ch.len() - 1;
                ch[0] = nn;
                ch[1] = ch[last];
                ch.truncate(last);
            }
        }
    }

    /// The query of the (binary) tree at `root`; refuses trees deeper than
    /// [`MAX_DEPTH`] and results over PostgreSQL's size limit.
    fn to_query(&self, root: usize) -> Result<TsQuery, TsError> {
        // Depth and size first, without building anything.
        let mut count = 0i64;
        let mut len = 0i64;
        let mut st = vec![(root, 1usize)];
        while let Some((n, depth)) = st.pop() {
            if depth > MAX_DEPTH + 1 {
                let mut e = TsError::new("54001", "stack depth limit exceeded");
                e.hint = Some(
                    "Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate."
                        .to_string(),
                );
                return Err(e);
            }
            count += 1;
            if let Kind::Val { word, .. } = &self.nodes[n].kind {
                len += word.len() as i64 + 1;
            }
            for &c in &self.nodes[n].children {
                st.push((c, depth + 1));
            }
        }
        if count > (MAX_ALLOC_SIZE - 8 - len) / 12 {
            return Err(too_large());
        }
        let mut built: Vec<QueryNode> = Vec::new();
        let mut st = vec![(root, false)];
        while let Some((n, done)) = st.pop() {
            let node = &self.nodes[n];
            if !done {
                st.push((n, true));
                for &c in &node.children {
                    st.push((c, false));
                }
                continue;
            }
            // Children were pushed in order, so they are built in reverse order.
            let q = match &node.kind {
                Kind::Val {
                    word,
                    weight,
                    prefix,
                    ..
                } => QueryNode::Operand {
                    word: word.clone(),
                    weight: *weight,
                    prefix: *prefix,
                },
                Kind::Op(op, d) => {
                    let k = node.children.len();
                    if k == 0 || built.len() < k {
                        return Err(TsError::new("XX000", "malformed tsquery"));
                    }
                    let mut ch: Vec<QueryNode> = built.split_off(built.len() - k);
                    // `ch` is in build order: children[k-1] first … children[0] last.
                    if *op == OP_NOT || k == 1 {
                        QueryNode::Not(Box::new(ch.remove(0)))
                    } else {
                        let right = ch.pop().map(Box::new);
                        let left = ch.pop().map(Box::new);
                        let (Some(l), Some(r)) = (left, right) else {
                            return Err(TsError::new("XX000", "malformed tsquery"));
                        };
                        match *op {
                            OP_AND => QueryNode::And(l, r),
                            OP_OR => QueryNode::Or(l, r),
                            _ => QueryNode::Phrase(l, r, *d),
                        }
                    }
                }
            };
            built.push(q);
        }
        Ok(TsQuery { root: built.pop() })
    }
}

/// PostgreSQL's `pg_qsort` (Bentley-McIlroy quicksort; insertion sort below 7
/// elements, an already sorted check, median of three or of nine pivots). It is not
/// stable, and children that compare equal but differ in weights or prefix flags end
/// up in its order, so it is reproduced step by step. Pending ranges are kept on a
/// list instead of recursing.
fn pg_sort(v: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    let med3 = |v: &[usize], a: usize, b: usize, c: usize| -> usize {
        if cmp(v[a], v[b]) == Ordering::Less {
            if cmp(v[b], v[c]) == Ordering::Less {
                b
            } else if cmp(v[a], v[c]) == Ordering::Less {
                c
            } else {
                a
            }
        } else if cmp(v[b], v[c]) == Ordering::Greater {
            b
        } else if cmp(v[a], v[c]) == Ordering::Less {
            a
        } else {
            c
        }
    };
    let swap_n = |v: &mut [usize], a: usize, b: usize, n: usize| {
        for i in 0..n {
            v.swap(a + i, b + i);
        }
    };
    let mut ranges = vec![(0usize, v.len())];
    while let Some((a, n)) = ranges.pop() {
        if n < 7 {
            for m in a + 1..a + n {
                let mut l = m;
                while l > a && cmp(v[l - 1], v[l]) == Ordering::Greater {
                    v.swap(l, l - 1);
                    l -= 1;
                }
            }
            continue;
        }
        if (a + 1..a + n).all(|m| cmp(v[m - 1], v[m]) != Ordering::Greater) {
            continue;
        }
        let mut m = a + n / 2;
        if n > 7 {
            let mut l = a;
            let mut h = a + n - 1;
            if n > 40 {
                let d = n / 8;
                l = med3(v, l, l + d, l + 2 * d);
                m = med3(v, m - d, m, m + d);
                h = med3(v, h - 2 * d, h - d, h);
            }
            m = med3(v, l, m, h);
        }
        v.swap(a, m);
        let (mut pa, mut pb) = (a + 1, a + 1);
        let (mut pc, mut pd) = (a + n - 1, a + n - 1);
        loop {
            while pb <= pc {
                let r = cmp(v[pb], v[a]);
                if r == Ordering::Greater {
                    break;
                }
                if r == Ordering::Equal {
                    v.swap(pa, pb);
                    pa += 1;
                }
                pb += 1;
            }
            while pb <= pc {
                let r = cmp(v[pc], v[a]);
                if r == Ordering::Less {
                    break;
                }
                if r == Ordering::Equal {
                    v.swap(pc, pd);
                    pd -= 1;
                }
                pc -= 1;
            }
            if pb > pc {
                break;
            }
            v.swap(pb, pc);
            pb += 1;
            pc -= 1;
        }
        let end = a + n;
        let d1 = (pa - a).min(pb - pa);
        swap_n(v, a, pb - d1, d1);
        let d1 = (pd - pc).min(end - pd - 1);
        swap_n(v, pb, end - d1, d1);
        let (d1, d2) = (pb - pa, pd - pc);
        if d1 > 1 {
            ranges.push((a, d1));
        }
        if d2 > 1 {
            ranges.push((end - d2, d2));
        }
    }
}

/// ts_rewrite(query, target, substitute): tsquery_rewrite's replacement of every
/// occurrence of `target` (a subtree) in `query` by `substitute`, with the cleanup
/// PostgreSQL does after.
pub fn ts_rewrite(
    query: &TsQuery,
    target: &TsQuery,
    substitute: &TsQuery,
) -> Result<TsQuery, TsError> {
    let (Some(q), Some(ex)) = (&query.root, &target.root) else {
        return Ok(query.clone());
    };
    let mut arena = Arena {
        nodes: Vec::new(),
        added_nodes: 0,
        added_len: 0,
    };
    let root = arena.add_query(q);
    arena.flatten(root);
    arena.sort(root);
    let exr = arena.add_query(ex);
    arena.flatten(exr);
    arena.sort(exr);
    let subs = substitute.root.as_ref().map(|s| arena.add_query(s));
    match arena.find_subquery(root, exr, subs)? {
        None => Ok(TsQuery { root: None }),
        Some(r) => {
            arena.binarize(r);
            arena.to_query(r)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::dict::ConfigLexizer;
    use super::*;

    fn q(text: &str) -> TsQuery {
        query::parse_tsquery(text).unwrap()
    }

    fn english(text: &str) -> TsQuery {
        query::to_tsquery(&ConfigLexizer::new(Config::English), text, &mut Vec::new()).unwrap()
    }

    fn rewrite(a: &str, b: &str, c: &str) -> String {
        query::to_text(&ts_rewrite(&q(a), &q(b), &q(c)).unwrap())
    }

    // Expected values are PostgreSQL 15's answers.
    #[test]
    fn headlines() {
        let doc = "The quick brown fox jumps over the lazy dog";
        let hl =
            |cfg, doc: &str, query: &TsQuery, opts| ts_headline(cfg, doc, query, opts).unwrap();
        assert_eq!(
            hl(Config::English, doc, &english("fox"), None),
            "The quick brown <b>fox</b> jumps over the lazy dog"
        );
        assert_eq!(
            hl(
                Config::English,
                doc,
                &english("jumping & dogs"),
                Some("StartSel=<em>, StopSel=</em>")
            ),
            "The quick brown fox <em>jumps</em> over the lazy <em>dog</em>"
        );
        assert_eq!(
            hl(
                Config::Simple,
                "a b c d e f g h i j",
                &q("c & h"),
                Some("MaxWords=4, MinWords=2")
            ),
            "<b>c</b> d "
        );
        let html = "<p>Search <b>engines</b> index text</p> and more text";
        assert_eq!(
            hl(
                Config::English,
                html,
                &english("search"),
                Some("HighlightAll=true")
            ),
            "<p><b>Search</b> <b>engines</b> index text</p> and more text"
        );
        assert_eq!(
            hl(Config::English, html, &english("search"), None),
            " <b>Search</b>  engines  index text  and more text"
        );
        assert_eq!(
            hl(
                Config::English,
                "one two fox three four five six seven eight nine ten fox eleven twelve",
                &english("fox"),
                Some("MaxFragments=2, MaxWords=3, MinWords=1, FragmentDelimiter=\" | \"")
            ),
            "<b>fox</b> three four | <b>fox</b> eleven twelve"
        );
        let fat_rats = query::to_tsquery(
            &ConfigLexizer::new(Config::Simple),
            "fat-rats",
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(
            hl(Config::Simple, "x fat-rats y", &fat_rats, None),
            "x <b>fat</b>-<b>rats</b> y"
        );
        assert_eq!(
            hl(
                Config::English,
                "quick fox and slow fox jumped",
                &english("slow <-> fox"),
                None
            ),
            "quick <b>fox</b> and <b>slow</b> <b>fox</b> jumped"
        );
        assert_eq!(
            hl(
                Config::English,
                "The quick brown fox",
                &TsQuery::default(),
                None
            ),
            "The quick brown fox"
        );
        assert_eq!(
            hl(
                Config::English,
                "a quick fox",
                &english("fox"),
                Some("StartSel='a''b', StopSel=E'\\\\\\\\', MinWords=1, MaxWords=3")
            ),
            "a'bfox\\\\"
        );
        // Nothing is shown for MinWords <= 0 when no fragment matches.
        assert_eq!(
            hl(
                Config::Simple,
                "The quick brown fox",
                &q("zzz"),
                Some("HighlightAll=1, MaxFragments=2, MinWords=0")
            ),
            ""
        );
        assert_eq!(hl(Config::Simple, "", &q("a"), None), "");
    }

    #[test]
    fn option_errors() {
        for (opts, code, msg) in [
            (
                "MinWords=40",
                "22023",
                "MinWords should be less than MaxWords",
            ),
            ("Foo=1", "22023", "unrecognized headline parameter: \"Foo\""),
            (
                "MaxWords=x",
                "22P02",
                "invalid input syntax for type integer: \"x\"",
            ),
            (
                "MaxWords",
                "42601",
                "invalid parameter list format: \"MaxWords\"",
            ),
            (
                "MaxWords=99999999999",
                "22003",
                "value \"99999999999\" is out of range for type integer",
            ),
            (
                "MinWords=0, MaxWords=5",
                "22023",
                "MinWords should be positive",
            ),
            ("ShortWord=-1", "22023", "ShortWord should be >= 0"),
            ("MaxFragments=-1", "22023", "MaxFragments should be >= 0"),
        ] {
            let e = ts_headline(Config::English, "a quick fox", &q("fox"), Some(opts)).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (code, msg), "{opts}");
        }
    }

    #[test]
    fn rewrites() {
        assert_eq!(rewrite("a & b", "a", "c"), "'b' & 'c'");
        assert_eq!(
            rewrite("a & b & c", "c & a", "x | y"),
            "'b' & ( 'y' | 'x' )"
        );
        assert_eq!(rewrite("a | b", "a", ""), "'b'");
        assert_eq!(rewrite("a & !b", "b", ""), "'a'");
        assert_eq!(rewrite("b & a", "z", "y"), "'b' & 'a'");
        assert_eq!(rewrite("a <-> b", "a <-> b", "c"), "'c'");
        assert_eq!(rewrite("a", "a", ""), "");
        // PostgreSQL's unstable quicksort order for children equal but for flags.
        assert_eq!(
            rewrite("a:A & a:* & a & a:B & a & a:C & a & a:D", "z", "y"),
            "'a':C & 'a' & 'a':B & 'a' & 'a':* & 'a':A & 'a' & 'a':D"
        );
    }

    #[test]
    fn deep_and_large_inputs_stay_bounded() {
        // A long document with a query that never matches: no panic, bounded time.
        let doc = "fox ".repeat(50_000);
        let out = ts_headline(Config::English, &doc, &q("dog <-> !fox"), None).unwrap();
        assert!(out.starts_with("<b>fox</b> <b>fox</b>"));
        // A wide balanced AND flattens into one chain, which must not be too deep.
        let mut text = String::from("a");
        for _ in 0..14 {
            text = format!("({text}) & ({text})");
        }
        let wide = q(&text);
        let e = ts_rewrite(&wide, &q("b"), &q("c")).unwrap_err();
        assert_eq!(e.code, "54001");
    }
}
