//! `ts_headline` (`ts_rewrite` is in `rewrite`).
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

use super::dict::Config;
use super::matching;
use super::parser::{self, TokenKind};
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
        matching::matches(&TsVector { lexemes }, q)
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
    let order = root.postorder();
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
    let order = root.postorder();
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

#[cfg(test)]
mod tests {
    use super::super::dict::ConfigLexizer;
    use super::super::query;
    use super::*;

    fn q(text: &str) -> TsQuery {
        query::parse_tsquery(text).unwrap()
    }

    fn english(text: &str) -> TsQuery {
        query::to_tsquery(&ConfigLexizer::new(Config::English), text, &mut Vec::new()).unwrap()
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
    fn deep_and_large_inputs_stay_bounded() {
        // A long document with a query that never matches: no panic, bounded time.
        let doc = "fox ".repeat(50_000);
        let out = ts_headline(Config::English, &doc, &q("dog <-> !fox"), None).unwrap();
        assert!(out.starts_with("<b>fox</b> <b>fox</b>"));
    }
}
