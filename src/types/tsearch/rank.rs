//! Relevance ranking: `ts_rank` and `ts_rank_cd` (PostgreSQL 15's `tsrank.c`), plus the
//! validation of their optional weights array.
//!
//! Both functions return `float4` values that match PostgreSQL bit for bit: the
//! arithmetic mirrors the C code's mix of `float` and `double` steps and its order of
//! operations. `ts_rank` ignores operand weight restrictions and treats every query
//! whose top operator is not `&` / `<->` as an OR of its distinct operands; `ts_rank_cd`
//! ranks by cover density, honours weight restrictions, evaluates `!` and phrase
//! operators over the lexeme positions inside each cover, and gives 0 for lexemes
//! without positions (stripped vectors). Query evaluation here is iterative, so deep
//! queries cannot overflow the stack.

use std::cmp::Ordering;

use super::{MAX_POS, QueryNode, TsError, TsQuery, TsVector, pos_of, weight_of};

/// Default weights, indexed by weight class: D, C, B, A.
pub const DEFAULT_WEIGHTS: [f32; 4] = [0.1, 0.2, 0.4, 1.0];

const NORM_LOGLENGTH: i32 = 0x01;
const NORM_LENGTH: i32 = 0x02;
const NORM_EXTDIST: i32 = 0x04;
const NORM_UNIQ: i32 = 0x08;
const NORM_LOGUNIQ: i32 = 0x10;
const NORM_RDIVRPLUS1: i32 = 0x20;

/// PostgreSQL's `MAXENTRYPOS`: one past the largest storable position.
const MAX_ENTRY_POS: i32 = MAX_POS as i32 + 1;

/// Checks the elements of a (one-dimensional) `float4[]` weights argument, in
/// PostgreSQL's order: too short, then NULLs anywhere, then the first four values.
/// A negative (or NaN) element selects the default weight of its class; the result
/// is indexed D, C, B, A, as the array is. A multi-dimensional array is the caller's
/// error: 2202E `array of weight must be one-dimensional`.
pub fn weights_from(values: &[Option<f32>]) -> Result<[f32; 4], TsError> {
    if values.len() < DEFAULT_WEIGHTS.len() {
        return Err(TsError::new("2202E", "array of weight is too short"));
    }
    if values.iter().any(Option::is_none) {
        return Err(TsError::new(
            "22004",
            "array of weight must not contain nulls",
        ));
    }
    let mut ws = DEFAULT_WEIGHTS;
    for (slot, value) in ws.iter_mut().zip(values) {
        if let Some(v) = *value
            && v >= 0.0
        {
            *slot = v;
        }
        if *slot > 1.0 {
            return Err(weight_out_of_range());
        }
    }
    Ok(ws)
}

fn weight_out_of_range() -> TsError {
    TsError::new("22023", "weight out of range")
}

/// `ts_rank([weights,] vector, query [, normalization])`. `weights` come from
/// [`weights_from`] or are [`DEFAULT_WEIGHTS`]. Normalization bits PostgreSQL does not
/// know (or that do not apply, like 4 here) are ignored, negative values included;
/// nothing is ever raised or noticed.
pub fn ts_rank(
    weights: &[f32; 4],
    v: &TsVector,
    q: &TsQuery,
    normalization: i32,
) -> Result<f32, TsError> {
    let Some(root) = &q.root else {
        return Ok(0.0);
    };
    if v.lexemes.is_empty() {
        return Ok(0.0);
    }
    let items = flatten(root);
    let operands = sorted_unique_operands(&items);
    let and_like = matches!(items.first(), Some(Item::And { .. } | Item::Phrase { .. }));
    let mut res = if and_like && operands.len() >= 2 {
        rank_and(weights, v, &operands)
    } else {
        rank_or(weights, v, &operands)
    };
    if res < 0.0 {
        res = 1e-20;
    }
    let nlex = v.lexemes.len();
    if normalization & NORM_LOGLENGTH != 0 {
        let l = ((doc_length(v) + 1) as f64).ln() / std::f64::consts::LN_2;
        res = (f64::from(res) / l) as f32;
    }
    if normalization & NORM_LENGTH != 0 {
        let len = doc_length(v);
        if len > 0 {
            res /= len as f32;
        }
    }
    // NORM_EXTDIST does not apply to ts_rank.
    if normalization & NORM_UNIQ != 0 {
        res /= nlex as f32;
    }
    if normalization & NORM_LOGUNIQ != 0 {
        let l = ((nlex + 1) as f64).ln() / std::f64::consts::LN_2;
        res = (f64::from(res) / l) as f32;
    }
    if normalization & NORM_RDIVRPLUS1 != 0 {
        res /= res + 1.0;
    }
    Ok(res)
}

/// `ts_rank_cd([weights,] vector, query [, normalization])`. Lexemes without positions
/// never match (a stripped vector ranks 0, silently). The only error is PostgreSQL's
/// own re-check of the weights (22023 `weight out of range`).
pub fn ts_rank_cd(
    weights: &[f32; 4],
    v: &TsVector,
    q: &TsQuery,
    normalization: i32,
) -> Result<f32, TsError> {
    let mut inv_weights = [0f64; 4];
    for (i, slot) in inv_weights.iter_mut().enumerate() {
        let w = if weights[i] >= 0.0 {
            weights[i]
        } else {
            DEFAULT_WEIGHTS[i]
        };
        let w = f64::from(w);
        if w > 1.0 {
            return Err(weight_out_of_range());
        }
        *slot = 1.0 / w;
    }
    let Some(root) = &q.root else {
        return Ok(0.0);
    };
    let items = flatten(root);
    let doc = doc_representation(v, &items);
    if doc.is_empty() {
        return Ok(0.0);
    }
    let plan = Plan::new(&items);
    let mut state = CoverState {
        operands: vec![OperandSeen::default(); items.len()],
        descending: false,
        pos: 0,
        p: 0,
        q: 0,
        begin: 0,
        end: 0,
    };

    let mut wdoc = 0.0f64;
    let mut sum_dist = 0.0f64;
    let mut prev_ext_pos = 0.0f64;
    let mut n_extent: i32 = 0;
    while next_cover(&doc, &plan, &mut state) {
        let Some(cover) = doc.get(state.begin..=state.end) else {
            break;
        };
        let mut inv_sum = 0.0f64;
        for entry in cover {
            inv_sum += inv_weights[usize::from(weight_of(entry.pos))];
        }
        let span = (state.end - state.begin) as i32;
        let cpos = f64::from(span.wrapping_add(1)) / inv_sum;
        let mut noise = state.q.wrapping_sub(state.p).wrapping_sub(span);
        if noise < 0 {
            noise = span / 2;
        }
        wdoc += cpos / f64::from(noise.wrapping_add(1));
        let cur_ext_pos = f64::from(state.q.wrapping_add(state.p)) / 2.0;
        if n_extent > 0 && cur_ext_pos > prev_ext_pos {
            sum_dist += 1.0 / (cur_ext_pos - prev_ext_pos);
        }
        prev_ext_pos = cur_ext_pos;
        n_extent = n_extent.wrapping_add(1);
    }

    let nlex = v.lexemes.len();
    if normalization & NORM_LOGLENGTH != 0 && nlex > 0 {
        wdoc /= ((doc_length(v) + 1) as f64).ln();
    }
    if normalization & NORM_LENGTH != 0 {
        let len = doc_length(v);
        if len > 0 {
            wdoc /= len as f64;
        }
    }
    if normalization & NORM_EXTDIST != 0 && n_extent > 0 && sum_dist > 0.0 {
        wdoc /= f64::from(n_extent) / sum_dist;
    }
    if normalization & NORM_UNIQ != 0 && nlex > 0 {
        wdoc /= nlex as f64;
    }
    if normalization & NORM_LOGUNIQ != 0 && nlex > 0 {
        wdoc /= ((nlex + 1) as f64).ln() / std::f64::consts::LN_2;
    }
    if normalization & NORM_RDIVRPLUS1 != 0 {
        wdoc /= wdoc + 1.0;
    }
    Ok(wdoc as f32)
}

// ---------------------------------------------------------------------------------
// The query as PostgreSQL lays it out: a prefix-order array where an operator is
// followed by its right operand, then its left one.

#[derive(Debug, Clone, Copy)]
enum Item<'a> {
    Val {
        word: &'a [u8],
        weight: u8,
        prefix: bool,
    },
    /// Operand at the next index.
    Not,
    /// Right operand at the next index, left one at `left`.
    And {
        left: usize,
    },
    Or {
        left: usize,
    },
    Phrase {
        left: usize,
        distance: u16,
    },
}

fn flatten(root: &QueryNode) -> Vec<Item<'_>> {
    let mut items: Vec<Item<'_>> = Vec::new();
    // (node, index of the operator whose left operand it is)
    let mut stack: Vec<(&QueryNode, Option<usize>)> = vec![(root, None)];
    while let Some((node, left_of)) = stack.pop() {
        let idx = items.len();
        if let Some(parent) = left_of
            && let Some(Item::And { left } | Item::Or { left } | Item::Phrase { left, .. }) =
                items.get_mut(parent)
        {
            *left = idx;
        }
        match node {
            QueryNode::Operand {
                word,
                weight,
                prefix,
            } => items.push(Item::Val {
                word: word.as_bytes(),
                weight: *weight,
                prefix: *prefix,
            }),
            QueryNode::Not(child) => {
                items.push(Item::Not);
                stack.push((child, None));
            }
            QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                items.push(match node {
                    QueryNode::And(..) => Item::And { left: 0 },
                    QueryNode::Or(..) => Item::Or { left: 0 },
                    QueryNode::Phrase(_, _, d) => Item::Phrase {
                        left: 0,
                        distance: *d,
                    },
                    _ => Item::Not,
                });
                stack.push((l, Some(idx)));
                stack.push((r, None));
            }
        }
    }
    items
}

/// Lexemes of `v` an operand matches: the exact word, or every word it prefixes.
fn matching_entries(v: &TsVector, word: &[u8], prefix: bool) -> std::ops::Range<usize> {
    let lex = &v.lexemes;
    let start = lex.partition_point(|l| l.word.as_bytes() < word);
    let mut end = start;
    if prefix {
        while end < lex.len() && lex[end].word.as_bytes().starts_with(word) {
            end += 1;
        }
    } else if end < lex.len() && lex[end].word.as_bytes() == word {
        end += 1;
    }
    start..end
}

/// Number of positions in the vector, a stripped lexeme counting as one.
fn doc_length(v: &TsVector) -> usize {
    v.lexemes.iter().map(|l| l.positions.len().max(1)).sum()
}

// ---------------------------------------------------------------------------------
// ts_rank

/// The query's operands (word, prefix flag) sorted by word, one per distinct word:
/// which duplicate survives depends on PostgreSQL's quicksort, reproduced here.
fn sorted_unique_operands<'a>(items: &[Item<'a>]) -> Vec<(&'a [u8], bool)> {
    let mut ops: Vec<(&'a [u8], bool)> = items
        .iter()
        .filter_map(|it| match it {
            Item::Val { word, prefix, .. } => Some((*word, *prefix)),
            _ => None,
        })
        .collect();
    if ops.len() < 2 {
        return ops;
    }
    super::pgsort::pg_qsort(&mut ops, &|a: &(&[u8], bool), b: &(&[u8], bool)| {
        a.0.cmp(b.0)
    });
    ops.dedup_by(|cur, kept| cur.0 == kept.0);
    ops
}

fn word_weight(w: &[f32; 4], p: u16) -> f32 {
    w[usize::from(weight_of(p))]
}

/// Weight of two occurrences `w` positions apart.
fn word_distance(w: i32) -> f32 {
    if w > 100 {
        return 1e-30;
    }
    (1.0 / (1.005 + 0.05 * (f64::from(w as f32) / 1.5 - 2.0).exp())) as f32
}

fn rank_and(w: &[f32; 4], v: &TsVector, ops: &[(&[u8], bool)]) -> f32 {
    // Stand-in positions of a stripped lexeme: the last position, weight D.
    let no_pos: [u16; 1] = [MAX_POS];
    let mut seen: Vec<Option<(&[u16], bool)>> = vec![None; ops.len()];
    let mut res: f32 = -1.0;
    for (i, &(word, prefix)) in ops.iter().enumerate() {
        for e in matching_entries(v, word, prefix) {
            let lex = &v.lexemes[e];
            let cur: (&[u16], bool) = if lex.positions.is_empty() {
                (&no_pos, true)
            } else {
                (&lex.positions, false)
            };
            seen[i] = Some(cur);
            for other in seen[..i].iter().flatten() {
                for &pl in cur.0 {
                    for &pp in other.0 {
                        let mut dist = (i32::from(pos_of(pl)) - i32::from(pos_of(pp))).abs();
                        if dist != 0 || cur.1 || other.1 {
                            if dist == 0 {
                                dist = MAX_ENTRY_POS;
                            }
                            let prod =
                                word_weight(w, pl) * word_weight(w, pp) * word_distance(dist);
                            let curw = f64::from(prod).sqrt() as f32;
                            res = if res < 0.0 {
                                curw
                            } else {
                                (1.0 - (1.0 - f64::from(res)) * (1.0 - f64::from(curw))) as f32
                            };
                        }
                    }
                }
            }
        }
    }
    res
}

fn rank_or(w: &[f32; 4], v: &TsVector, ops: &[(&[u8], bool)]) -> f32 {
    // Stand-in positions of a stripped lexeme: position 0, weight D.
    let no_pos: [u16; 1] = [0];
    let mut res: f32 = 0.0;
    for &(word, prefix) in ops {
        for e in matching_entries(v, word, prefix) {
            let lex = &v.lexemes[e];
            let post: &[u16] = if lex.positions.is_empty() {
                &no_pos
            } else {
                &lex.positions
            };
            let mut resj: f32 = 0.0;
            let mut wjm: f32 = -1.0;
            let mut jm: i32 = 0;
            for (j, &p) in post.iter().enumerate() {
                let j = j as i32;
                let sq = j.wrapping_add(1).wrapping_mul(j.wrapping_add(1));
                resj += word_weight(w, p) / sq as f32;
                if word_weight(w, p) > wjm {
                    wjm = word_weight(w, p);
                    jm = j;
                }
            }
            let sq = jm.wrapping_add(1).wrapping_mul(jm.wrapping_add(1));
            let term = wjm + resj - wjm / sq as f32;
            res = (f64::from(res) + f64::from(term) / 1.64493406685) as f32;
        }
    }
    if !ops.is_empty() {
        res /= ops.len() as f32;
    }
    res
}

// ---------------------------------------------------------------------------------
// ts_rank_cd

/// One position of the document that some query operands match.
struct DocEntry {
    /// The `WordEntryPos` (weight and position).
    pos: u16,
    /// Indexes (into the flattened query) of the operands matching it.
    operands: Vec<usize>,
}

/// The matched positions of the vector in position order, one entry per
/// (lexeme, position), positions of lexemes without positions left out.
fn doc_representation(v: &TsVector, items: &[Item<'_>]) -> Vec<DocEntry> {
    // (position, lexeme index, operand index)
    let mut raw: Vec<(u16, usize, usize)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Item::Val {
            word,
            weight,
            prefix,
        } = *item
        else {
            continue;
        };
        for e in matching_entries(v, word, prefix) {
            for &p in &v.lexemes[e].positions {
                if weight == 0 || weight & (1 << weight_of(p)) != 0 {
                    raw.push((p, e, i));
                }
            }
        }
    }
    raw.sort_by_key(|&(p, e, _)| (pos_of(p), weight_of(p), e));
    let mut doc: Vec<DocEntry> = Vec::new();
    let mut prev: Option<(u16, usize)> = None;
    for (p, e, i) in raw {
        match doc.last_mut() {
            Some(last) if prev == Some((p, e)) => last.operands.push(i),
            _ => doc.push(DocEntry {
                pos: p,
                operands: vec![i],
            }),
        }
        prev = Some((p, e));
    }
    doc
}

/// What a cover scan has seen of one operand: its positions, in scan order.
#[derive(Debug, Clone, Default)]
struct OperandSeen {
    exists: bool,
    positions: Vec<u16>,
}

struct CoverState {
    operands: Vec<OperandSeen>,
    /// The scan runs right to left (positions collected in descending order).
    descending: bool,
    /// Doc index where the next search starts.
    pos: usize,
    /// First and last position of the cover found.
    p: i32,
    q: i32,
    /// Doc indexes of the cover's first and last entries.
    begin: usize,
    end: usize,
}

impl CoverState {
    fn reset(&mut self, descending: bool) {
        self.descending = descending;
        for o in &mut self.operands {
            o.exists = false;
            o.positions.clear();
        }
    }

    fn add(&mut self, entry: &DocEntry) {
        for &i in &entry.operands {
            if let Some(o) = self.operands.get_mut(i) {
                o.exists = true;
                match o.positions.last() {
                    Some(&last) if pos_of(last) == pos_of(entry.pos) => {}
                    _ => o.positions.push(entry.pos),
                }
            }
        }
    }

    /// Ascending positions seen of operand `i`.
    fn positions(&self, i: usize) -> Vec<u16> {
        match self.operands.get(i) {
            Some(o) if self.descending => o.positions.iter().rev().copied().collect(),
            Some(o) => o.positions.clone(),
            None => Vec::new(),
        }
    }
}

/// Finds the next cover from `state.pos`; PostgreSQL's `Cover`, as a loop.
fn next_cover(doc: &[DocEntry], plan: &Plan<'_>, state: &mut CoverState) -> bool {
    loop {
        state.reset(false);
        state.p = i32::MAX;
        state.q = 0;
        let mut last = state.pos;
        let mut found = false;
        let mut i = state.pos;
        while i < doc.len() {
            state.add(&doc[i]);
            if plan.execute(state) {
                let p = i32::from(pos_of(doc[i].pos));
                if p > state.q {
                    state.q = p;
                    state.end = i;
                    last = i;
                    found = true;
                }
                break;
            }
            i += 1;
        }
        if !found {
            return false;
        }

        state.reset(true);
        let mut i = last as isize;
        while i >= state.pos as isize {
            let entry = &doc[i as usize];
            state.add(entry);
            if plan.execute(state) {
                let p = i32::from(pos_of(entry.pos));
                if p < state.p {
                    state.begin = i as usize;
                    state.p = p;
                }
                break;
            }
            i -= 1;
        }

        if state.p <= state.q {
            state.pos = (i + 1) as usize;
            return true;
        }
        state.pos += 1;
    }
}

// Query evaluation over what a cover scan has seen (PostgreSQL's TS_execute with NOT
// evaluated, phrase operators checked against positions).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tern {
    No,
    Yes,
    Maybe,
}

/// A phrase-level match: positions (the ends of the matches), whether they are the
/// positions where the match fails instead, and the match width less one.
#[derive(Debug, Default)]
struct PhraseMatch {
    positions: Vec<u16>,
    negate: bool,
    width: i32,
}

enum Value {
    Bool(Tern),
    Phrase(Tern, PhraseMatch),
}

const EMIT_L_ONLY: u8 = 1;
const EMIT_R_ONLY: u8 = 2;
const EMIT_BOTH: u8 = 4;

struct Plan<'a> {
    items: &'a [Item<'a>],
    /// The item is a phrase operator or lies below one.
    phrase_level: Vec<bool>,
}

impl<'a> Plan<'a> {
    fn new(items: &'a [Item<'a>]) -> Plan<'a> {
        let mut phrase_level = vec![false; items.len()];
        for (i, item) in items.iter().enumerate() {
            if matches!(item, Item::Phrase { .. }) {
                phrase_level[i] = true;
            }
            if !phrase_level[i] {
                continue;
            }
            let children = match *item {
                Item::Val { .. } => [None, None],
                Item::Not => [Some(i + 1), None],
                Item::And { left } | Item::Or { left } | Item::Phrase { left, .. } => {
                    [Some(i + 1), Some(left)]
                }
            };
            for c in children.into_iter().flatten() {
                if let Some(flag) = phrase_level.get_mut(c) {
                    *flag = true;
                }
            }
        }
        Plan {
            items,
            phrase_level,
        }
    }

    /// Whether the query matches what `state` has seen. Children always have larger
    /// indexes than their operator, so a backwards sweep evaluates bottom-up.
    fn execute(&self, state: &CoverState) -> bool {
        let n = self.items.len();
        let mut values: Vec<Option<Value>> = Vec::with_capacity(n);
        values.resize_with(n, || None);
        for i in (0..n).rev() {
            let v = if self.phrase_level[i] {
                let (t, m) = self.phrase_value(i, state, &mut values);
                Value::Phrase(t, m)
            } else {
                Value::Bool(self.bool_value(i, state, &mut values))
            };
            values[i] = Some(v);
        }
        match values.first_mut().and_then(Option::take) {
            Some(Value::Bool(t)) => t != Tern::No,
            Some(Value::Phrase(t, _)) => t == Tern::Yes,
            None => false,
        }
    }

    fn bool_value(&self, i: usize, state: &CoverState, values: &mut [Option<Value>]) -> Tern {
        let mut child = |c: usize| match values.get_mut(c).and_then(Option::take) {
            Some(Value::Bool(t)) => t,
            // A phrase operator under plain boolean ones: uncertain means no.
            Some(Value::Phrase(t, _)) => {
                if t == Tern::Yes {
                    Tern::Yes
                } else {
                    Tern::No
                }
            }
            None => Tern::No,
        };
        match self.items[i] {
            Item::Val { .. } => {
                if state.operands.get(i).is_some_and(|o| o.exists) {
                    Tern::Yes
                } else {
                    Tern::No
                }
            }
            Item::Not => match child(i + 1) {
                Tern::No => Tern::Yes,
                Tern::Yes => Tern::No,
                Tern::Maybe => Tern::Maybe,
            },
            Item::And { left } => {
                let l = child(left);
                let r = child(i + 1);
                if l == Tern::No {
                    return Tern::No;
                }
                match r {
                    Tern::No => Tern::No,
                    Tern::Yes => l,
                    Tern::Maybe => Tern::Maybe,
                }
            }
            Item::Or { left } => {
                let l = child(left);
                let r = child(i + 1);
                if l == Tern::Yes {
                    return Tern::Yes;
                }
                match r {
                    Tern::No => l,
                    Tern::Yes => Tern::Yes,
                    Tern::Maybe => Tern::Maybe,
                }
            }
            // Phrase operators are always evaluated at phrase level.
            Item::Phrase { .. } => Tern::No,
        }
    }

    fn phrase_value(
        &self,
        i: usize,
        state: &CoverState,
        values: &mut [Option<Value>],
    ) -> (Tern, PhraseMatch) {
        let mut child = |c: usize| match values.get_mut(c).and_then(Option::take) {
            Some(Value::Phrase(t, m)) => (t, m),
            Some(Value::Bool(t)) => (t, PhraseMatch::default()),
            None => (Tern::No, PhraseMatch::default()),
        };
        match self.items[i] {
            Item::Val { .. } => {
                if state.operands.get(i).is_some_and(|o| o.exists) {
                    let m = PhraseMatch {
                        positions: state.positions(i),
                        ..PhraseMatch::default()
                    };
                    (Tern::Yes, m)
                } else {
                    (Tern::No, PhraseMatch::default())
                }
            }
            Item::Not => {
                let (t, mut m) = child(i + 1);
                match t {
                    Tern::No => {
                        m.negate = true;
                        (Tern::Yes, m)
                    }
                    Tern::Yes if !m.positions.is_empty() => {
                        m.negate = !m.negate;
                        (Tern::Yes, m)
                    }
                    Tern::Yes => {
                        m.negate = false;
                        (Tern::No, m)
                    }
                    Tern::Maybe => (Tern::Maybe, m),
                }
            }
            Item::And { left } | Item::Phrase { left, .. } => {
                let (lt, l) = child(left);
                let (rt, r) = child(i + 1);
                if lt == Tern::No || rt == Tern::No {
                    return (Tern::No, PhraseMatch::default());
                }
                if lt == Tern::Maybe || rt == Tern::Maybe {
                    return (Tern::Maybe, PhraseMatch::default());
                }
                let (loff, roff, width) = if let Item::Phrase { distance, .. } = self.items[i] {
                    let d = i32::from(distance);
                    (
                        d.wrapping_add(r.width),
                        0,
                        d.wrapping_add(l.width).wrapping_add(r.width),
                    )
                } else {
                    let maxw = l.width.max(r.width);
                    (maxw.wrapping_sub(l.width), maxw.wrapping_sub(r.width), maxw)
                };
                let mut out = PhraseMatch {
                    width,
                    ..PhraseMatch::default()
                };
                let t = if l.negate && r.negate {
                    let emit = EMIT_BOTH | EMIT_L_ONLY | EMIT_R_ONLY;
                    phrase_output(&mut out.positions, &l, &r, emit, loff, roff);
                    out.negate = true;
                    Tern::Yes
                } else if l.negate {
                    phrase_output(&mut out.positions, &l, &r, EMIT_R_ONLY, loff, roff)
                } else if r.negate {
                    phrase_output(&mut out.positions, &l, &r, EMIT_L_ONLY, loff, roff)
                } else {
                    phrase_output(&mut out.positions, &l, &r, EMIT_BOTH, loff, roff)
                };
                (t, out)
            }
            Item::Or { left } => {
                let (lt, mut l) = child(left);
                let (rt, mut r) = child(i + 1);
                if lt == Tern::No && rt == Tern::No {
                    return (Tern::No, PhraseMatch::default());
                }
                if lt == Tern::Maybe || rt == Tern::Maybe {
                    return (Tern::Maybe, PhraseMatch::default());
                }
                if lt == Tern::No {
                    l.width = 0;
                }
                if rt == Tern::No {
                    r.width = 0;
                }
                let maxw = l.width.max(r.width);
                let loff = maxw.wrapping_sub(l.width);
                let roff = maxw.wrapping_sub(r.width);
                let mut out = PhraseMatch {
                    width: maxw,
                    ..PhraseMatch::default()
                };
                let negated = if l.negate && r.negate {
                    Some(EMIT_BOTH)
                } else if l.negate {
                    Some(EMIT_L_ONLY)
                } else if r.negate {
                    Some(EMIT_R_ONLY)
                } else {
                    None
                };
                let t = match negated {
                    Some(emit) => {
                        phrase_output(&mut out.positions, &l, &r, emit, loff, roff);
                        out.negate = true;
                        Tern::Yes
                    }
                    None => {
                        let emit = EMIT_BOTH | EMIT_L_ONLY | EMIT_R_ONLY;
                        phrase_output(&mut out.positions, &l, &r, emit, loff, roff)
                    }
                };
                (t, out)
            }
        }
    }
}

/// Merges two ascending position lists (offsets added) keeping the positions `emit`
/// selects; positions are stored as PostgreSQL stores them, in a `WordEntryPos`.
fn phrase_output(
    out: &mut Vec<u16>,
    l: &PhraseMatch,
    r: &PhraseMatch,
    emit: u8,
    loff: i32,
    roff: i32,
) -> Tern {
    let (mut li, mut ri) = (0usize, 0usize);
    while li < l.positions.len() || ri < r.positions.len() {
        let lpos = match l.positions.get(li) {
            Some(&p) => i32::from(pos_of(p)).wrapping_add(loff),
            None if emit & EMIT_R_ONLY == 0 => break,
            None => i32::MAX,
        };
        let rpos = match r.positions.get(ri) {
            Some(&p) => i32::from(pos_of(p)).wrapping_add(roff),
            None if emit & EMIT_L_ONLY == 0 => break,
            None => i32::MAX,
        };
        let mut output = 0;
        match lpos.cmp(&rpos) {
            Ordering::Less => {
                if emit & EMIT_L_ONLY != 0 {
                    output = lpos;
                }
                li += 1;
            }
            Ordering::Equal => {
                if emit & EMIT_BOTH != 0 {
                    output = rpos;
                }
                li += 1;
                ri += 1;
            }
            Ordering::Greater => {
                if emit & EMIT_R_ONLY != 0 {
                    output = rpos;
                }
                ri += 1;
            }
        }
        if output > 0 {
            out.push(output as u16);
        }
    }
    if out.is_empty() { Tern::No } else { Tern::Yes }
}

#[cfg(test)]
mod tests {
    use super::super::query::parse_tsquery;
    use super::super::vector::parse_tsvector;
    use super::*;

    fn weights(text: &str) -> [f32; 4] {
        let values: Vec<Option<f32>> = text
            .trim_matches(|c| c == '{' || c == '}')
            .split(',')
            .map(|s| Some(s.parse::<f32>().expect("weight")))
            .collect();
        weights_from(&values).expect("weights")
    }

    fn check(v: &str, q: &str, w: &str, norm: i32, rank: &str, rank_cd: &str) {
        let vector = parse_tsvector(v).expect("tsvector");
        let query = parse_tsquery(q).expect("tsquery");
        let w = weights(w);
        let want: f32 = rank.parse().expect("expected rank");
        let want_cd: f32 = rank_cd.parse().expect("expected rank_cd");
        let got = ts_rank(&w, &vector, &query, norm).expect("ts_rank");
        let got_cd = ts_rank_cd(&w, &vector, &query, norm).expect("ts_rank_cd");
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "ts_rank({v}, {q}, {norm}) = {got}, want {rank}"
        );
        assert_eq!(
            got_cd.to_bits(),
            want_cd.to_bits(),
            "ts_rank_cd({v}, {q}, {norm}) = {got_cd}, want {rank_cd}"
        );
    }

    /// (vector, query, weights, normalization, ts_rank, ts_rank_cd), as PostgreSQL 15.18
    /// printed them with extra_float_digits = 3.
    #[rustfmt::skip]
    const PG_CASES: &[(&str, &str, &str, i32, &str, &str)] = &[
    ("'ab':1 'abc':3 'b':2", "'ab':* & 'ab'", "{0.1,0.2,0.4,1.0}", 0, "0.06079271", "0.1"),
    ("'ab':1 'abc':3 'b':2", "'ab' & 'ab':*", "{0.1,0.2,0.4,1.0}", 0, "0.12158542", "0.1"),
    ("'ab':1 'abc':3 'b':2 'c':4", "'ab' & 'b' & 'ab':* & 'c' & 'b' & 'c' & 'ab' & 'b':*", "{0.1,0.2,0.4,1.0}", 0, "0.26691276", "0.1"),
    ("'ab':1 'abc':3 'b':2 'c':4", "'ab':* & 'b' & 'ab' & 'c' & 'b' & 'c' & 'ab':* & 'b'", "{0.1,0.2,0.4,1.0}", 0, "0.26832977", "0.1"),
    ("'a':1A,3 'b':2B,4C 'c':5", "'a':A <-> 'b'", "{0.1,0.2,0.4,1.0}", 0, "0.854727", "0.5714286"),
    ("'a':1A,3 'b':2B,4C 'c':5", "!'a' <-> 'c'", "{0.1,0.2,0.4,1.0}", 0, "0.37001866", "0.1"),
    ("'a':1A,3 'b':2B,4C 'c':5", "'b' <-> !'c'", "{0.1,0.2,0.4,1.0}", 0, "0.3075799", "0.6"),
    ("'a' 'b' 'c'", "'a' & 'b'", "{0.1,0.2,0.4,1.0}", 0, "1e-16", "0"),
    ("'a' 'b' 'c'", "'a' | 'b' | 'x'", "{0.1,0.2,0.4,1.0}", 0, "0.040528473", "0"),
    ("'a':16383 'b':16383", "'a' <-> 'b'", "{0.1,0.2,0.4,1.0}", 0, "1e-20", "0"),
    ("'a':16383 'b':16383 'c':3", "'a' <-> 'b' | 'c'", "{0.1,0.2,0.4,1.0}", 4, "0.06079271", "0.1"),
    ("'a':1,5,9 'b':3,7 'c':12", "'a' & 'b' & 'c'", "{0.1,0.2,0.4,1.0}", 4, "0.6147747", "0.025"),
    ("'a':1,5,9 'b':3,7 'c':12", "'a' & 'b'", "{0.1,0.2,0.4,1.0}", 4, "0.44738686", "0.075"),
    ("'a':1,5,9 'b':3,7 'c':12", "'a' & 'b'", "{0.1,0.2,0.4,1.0}", 5, "0.15936242", "0.038542375"),
    ("'abc':1A,4A,9C,10B 'b' 'ba':3A,7B", "!!'ba'", "{-1,0.3,-1,0.9}", -2147483648, "0.6079271", "1.3"),
    ("'a':3A,4A,5B,6B,7B 'ab':3A,4C,5,7B", "!( 'x':C <-> 'x' ) <-> ( !'x':* <0> !'a' )", "{0.999,0.0001,0.123,1}", -2147483648, "1e-20", "2.369"),
    ("'a':2C,4C,5 'ab':5C,6,8A 'b':8C", "'ab' <-> !( ( 'x' <0> 'ab':B & 'x' <-> 'b' ) <-> ( 'b' <100> 'b':* <2> ( 'a' <-> 'ab' ) ) <2> ( !'x' <2> 'b' ) )", "{-0,0.1,1,0.5}", -2147483648, "0.61309695", "0.6"),
    ("'ab':2 'b':3C", "!'b':*", "{-0,0.1,1,0.5}", -2147483648, "0.06079271", "0"),
    ("'a':2,3,4B,5A,7,8B 'ab':1C,3B,6,7C 'b':4C,6,7C", "'ab':B | 'ab':AC | 'x':*D | 'b':*C | 'a' | 'a' | 'ab' | 'a' | 'ab':* | 'a':* | 'ab'", "{-1,0.3,-1,0.9}", -1, "0.0014832616", "0.010376363"),
    ("'abc':23C,67A,86,125A,165B 'ba':2B,3B,10,17C,25A 'd':1,4,5C,6C,8B,9 'e':1,2,3,4C", "'d'", "{0.05,0.1,0.7,0.33}", -1, "0.0005817767", "0.0011847913"),
    ("'a':11A 'ab':3,10,12 'abc':6C,9A 'ba':3C,6,8A,11C,12 'c':4A,9", "'c':A | 'b':*AC | 'c' | 'c':AD | 'a' | 'a' | 'ab':*", "{0.1,0.2,0.4,1.0}", -1, "0.0010922705", "0.0061129266"),
    ("'abc':22C,25C 'bad':1C,3C,8A,10C 'f':6C,8C,10A", "'ba' & 'c':*AB <0> 'd'", "{0.05,0.1,0.7,0.33}", -1, "5.5746295e-23", "0"),
    ("'a' 'ab':2,5B,6A,11C 'abc':5,6B,7,9 'c':7C,10", "'c':*B | 'c' | 'x' | 'ab':*ABC | 'abc':* | 'ba':* | 'ba'", "{0,0.5,0.25,1}", 0, "0.25456947", "2.5"),
    ("'ab':8,14B,18B,22C 'abc':9A 'c':3A,4B,6B,7C,9", "'c':* | 'cd'", "{0.1,0.2,0.4,1.0}", 0, "0.3528848", "2.1"),
    ("'a':1,2A,4,9C,11B 'ab' 'b':9C 'ba':2,5B,6A,8C,9 'c':8,10", "!( 'ba' <-> 'ab':* ) & !( 'ba':BD <5> 'x' )", "{0.1,0.2,0.4,1.0}", 0, "8.881784e-16", "1.8"),
    ("'a':3,7A,8C 'ab':5C 'b':1A,2,4C,6,7C", "'x' & 'a' & 'a' & 'b' & 'x':* & 'a':CD & 'ab':D & 'b' & 'a':C & 'a':AC & 'b' & 'b':*", "{0.1,0.2,0.4,1.0}", 0, "0.99941903", "0"),
    ("'ab':1C,4C,5C,7,8C 'b':1A,2C,4C,5A,6", "!( 'b':D | 'x':* <5> 'x':B <5> 'a' <-> ( 'b':D <5> 'ab' <100> 'b':D ) )", "{0.1,0.2,0.4,1.0}", 1, "0.062612474", "0.25021943"),
    ("'a':1,3B,4B,5A,7A,8C 'b':8B", "'x':*D | 'ab' | 'b':* | 'a':* | 'a' | 'ab':B", "{0.05,0.1,0.7,0.33}", 1, "0.079252444", "1.3994142"),
    ("'a':1B,2C,3,5C,6C 'ab':2C,3A,6C,7B,8A 'b':4B,5A", "'x' | 'x':* | 'b' | 'x':*BD | 'a':*AD | 'x' | 'b' | 'ab' | 'x' | 'b':AC | 'ab':* | 'x':* | 'ab' | 'x'", "{0.3,0.3,0,1,7,8}", 1, "0.16883376", "1.5204979"),
    ("'ab':10 'abc':11C 'b':2A,6,7A,8B 'ba':2C,5,7B,11B 'c':2B,3A,8A,9A", "!'c':*AD", "{-0,0.1,1,0.5}", 1, "0.18856157", "0"),
    ("'a':1,2A,5C,7B,8B 'ab':1A,2,5C,7 'b':4A,7C,8", "'a'", "{0.999,0.0001,0.123,1}", 2, "0.10190979", "0.18709166"),
    ("'ba':3B,4B,6A 'c':2A", "'x':B | 'b':* | 'b':* | 'b' | 'c' | 'ba' | 'b' | 'x' | 'a':BD | 'abc':*C", "{0.3,0.3,0,1,7,8}", 2, "0.075990885", "0.5"),
    ("'ab':5A,10C 'abd':1C,2A,3A,4,5 'b':1A,2A,3C 'cd':3C,6A,11A,19,28B,29A 'd':1B,2B,3B,4,5 'e':1,9,11B 'f':1A,2A,5,6A,7A", "'a':*", "{0,0.5,0.25,1}", 2, "0.05735711", "0.13793103"),
    ("'b':1A,2B,4A,7,8", "'ab':*D <2> 'b':*BD <-> ( 'a' | 'a':D )", "{0.05,0.1,0.7,0.33}", 2, "2e-21", "0"),
    ("'a':1,2B,3A,5B,7A 'b':1,2C,3A,4A,7B,8C", "'a':* | 'ab':*", "{0.1,0.2,0.4,1.0}", 3, "0.009750675", "0.106095076"),
    ("'ab':4A,5B 'b':1B", "'ab'", "{-1,0.3,-1,0.9}", 3, "0.10132118", "0.31258392"),
    ("'abc':1,2B,3A,4B,5 'b':3C,28C 'bad':1B,4B,6C,22,28C 'cd':1B,2A,3A,4,5A 'd':19A,43A 'f':147B,164A", "'ba':*AC", "{0,0.5,0.25,1}", 3, "0.0054042684", "0.0154054975"),
    ("'a' 'ab' 'abc' 'b' 'ba' 'c'", "!( 'a':AB <0> 'a' <-> 'ab' ) <2> !( 'c':* <100> 'ab' | 'ba' & 'b':B )", "{-1,0.3,-1,0.9}", 3, "6.591157e-17", "0"),
    ("'a' 'ab':2C,3C,5C 'b':8", "'x':*C | 'b':BCD | 'x' | 'ab':*", "{0.1,0.2,0.4,1.0}", 4, "0.075427994", "0.32083333"),
    ("'ab':1,2,3,5B,7,8A 'b':1A,2A,5,6C,7C", "'a' | 'b' | 'b':CD", "{-1,0.3,-1,0.9}", 4, "0.35468328", "1.6666666"),
    ("'abc':6A 'b':1A,4B,5,9", "'c' | !( 'x':* <100> 'ba':* <-> 'abc' )", "{-1,0.3,-1,0.9}", 4, "0.1367836", "0.9"),
    ("'ab':2 'abc':2A,3B,4C,9C,11 'b':1C,2A,6A,12B 'ba':4,7C,9C,10,12C 'c':2A,3B,12B", "'abc' & 'ba' & 'a':C & 'a'", "{-0,0.1,1,0.5}", 4, "0.8397806", "0"),
    ("'ab':4 'b':1A,3B,4,5B,8C", "!( ( 'x' & 'b' ) <0> !'a' <2> ( 'ab':* <0> ( 'x' <-> 'x' ) ) ) <-> 'ab'", "{-1,0.3,-1,0.9}", 5, "0.22083822", "0.051389836"),
    ("'abc':2C,4B,6B,10C 'b':2A 'ba':7B 'c':3,8C", "'b' & 'b'", "{1,1,1,1}", 5, "0.19177964", "0.4551196"),
    ("'abc':1C,2A,4,5A 'b':13,29 'f':1,5B,8A,12A,20C,28A", "'abc'", "{0.3,0.3,0,1}", 5, "0.22931463", "0.63354075"),
    ("'ab':1,2C,4A,5B,8A", "'x' <-> 'ab' <-> 'b' <-> 'b':AD <-> 'ab':*D <-> 'x':AB <-> 'a' <-> 'b':*BC <-> 'x':C <-> 'b':CD <-> 'ab'", "{0,0.5,0.25,1}", 5, "3.868528e-21", "0"),
    ("'a':2A 'ab':5,6,7,8C,12B 'abc':4A,5,6A,8B,12C 'b':1,2C,10A 'ba':11B 'c':7,9B,11A", "!( 'a' <-> 'ba':* <-> ( 'a':* | 'ab' ) )", "{1,1,1,1}", 8, "0.21584226", "2"),
    ("'a':1,2C,3C,5C,7C 'ab':1C,2B,4A,6A 'b':1C,3,4A", "'b':C | 'x' | 'ab' | 'a':A | 'b':BC | 'ab' | 'x':*B | 'x' | 'ab':CD", "{0.999,0.0001,0.123,1}", 8, "0.16932017", "0.70773333"),
    ("'a':6C 'b':2,4,5B,7B,8A", "'a'", "{0.999,0.0001,0.123,1}", 8, "3.0396355e-05", "5e-05"),
    ("'a':2B,3C,4C,6 'ab':1A,5B,8B", "!( 'x':AB <-> 'a' <-> ( 'ab' | 'b' ) | 'ab':*BC & !'b' ) <-> 'x'", "{-1,0.3,-1,0.9}", 8, "0.49818093", "0"),
    ("'a':1,2,4C,5,7A,8A 'ab':2C", "!( ( 'ab':* <100> 'b':BD <-> ( 'ab' <-> 'a':* ) & !( 'a':* <-> 'b' ) ) <0> 'ab' )", "{0.999,0.0001,0.123,1}", 12, "0.23700811", "1.4277714"),
    ("'a':1,5,6B 'b':3C,5C", "'a':* | 'b':*B | 'b':B | 'a' | 'ab':BD | 'b':BD | 'a' | 'b':D", "{0.05,0.1,0.7,0.33}", 12, "0.089922555", "0.16666667"),
    ("'a':16315,16363A 'ab':16332A,16342B,16347,16353A,16375,16378C 'b':16314,16316A,16323C,16328B,16332C,16368B,16379A", "'b':*", "{-0,0.1,1,0.5}", 12, "0.23873155", "0.18461624"),
    ("'a':1C,2C,3,5A,7A,8 'ab':1C,6B,7,8A 'b':3C,4A,6C,8B", "'ab':*C & 'a' & 'x':* & 'b' & 'b':* & 'ab' & 'a':D & 'a' & 'x' & 'ab' & 'b':BD", "{0.999,0.0001,0.123,1}", 12, "0.33333334", "0"),
    ("'a':2,7A 'ab':3B", "'a':* | 'b':* | 'b' | 'a':*ACD | 'b' | 'ab':* | 'x' | 'a'", "{0,0.5,0.25,1}", 16, "0.14383473", "0.7886622"),
    ("'abc':188C,10743A,11954B,12439,12859B 'abd':1089,12793A 'cd':2490C,3411A,3504C,11151A,12838,13027B 'e':7717A,11301A,13331B", "'abc'", "{0.3,0.3,0,1}", 16, "0.34527507", "0.6890825"),
    ("'ab':1B,2,7A,9B,10B 'abc':2C,3A,5C,7B,10A 'b':5C,6A,10,12A", "'a':*", "{0.3,0.3,0,1,7,8}", 16, "0.7442041", "1.95"),
    ("'a':1,2,3B,6C,7A,8C 'ab':2,4C,5,6,7A,8 'b':4A", "'a':A <-> 'x':* <-> 'ab' <-> 'b' <-> 'b' <-> 'b':AC <-> 'ab' <-> 'ab' <-> 'b' <-> 'b':*ABC <-> 'b':*", "{0.05,0.1,0.7,0.33}", 16, "0.49943715", "0"),
    ("'a':2,5B,6C,7C,8 'ab':3C,7C,8A 'b':2,3,4C,7B,8A", "'a':C", "{0.3,0.3,0,1,7,8}", 17, "0.029066917", "0.11367696"),
    ("'a':6A,7A 'b':2B,3,7C", "'b':BC | 'a' | 'x':* | 'x' | 'ab':AD | 'a'", "{-0,0.1,1,0.5}", 17, "0.060691953", "0.73947006"),
    ("'bad':1,2A,3A,5A 'cd':2A,4C,6C,7A 'd':1C,30C,106A,132B,144A,171C 'e':4 'f'", "'e'", "{0.3,0.3,0,1}", 17, "0.017260952", "0.04096262"),
    ("'a':1A,3C 'b':1B,5,7A", "'x':* | 'x' <-> 'ab' & 'a':*", "{-0,0.1,1,0.5}", 17, "0.02596667", "0"),
    ("'a':2,3 'ab':2,3B,5B,6A,8A 'b':1A,4B,6B,7A,8A", "'a'", "{0.05,0.1,0.7,0.33}", 24, "0.006332574", "0.016666668"),
    ("'a':3C 'ab':2C,3A,7A,8B 'b':1A,2C,8C", "'a':C & 'ab' & 'a'", "{0.1,0.2,0.4,1.0}", 24, "0.10980492", "0.08888889"),
    ("'a':6,7A,8B 'ab':2B,3B,5,6A,7 'b':2A,3B,5A,7C", "'b':* | 'b':*ACD | 'b' | 'b':* | 'b':* | 'ab' | 'b'", "{-0,0.1,1,0.5}", 24, "0.14403088", "0.76666665"),
    ("'a':8C,9B,12C 'abc':2A,4B,5,9C,10A 'b':3A,5C,8B 'ba':3B,8B", "'c':*B <0> 'ba' <100> ( 'ab' <100> ( 'ab':BC <100> 'b':*BCD <-> 'b':B ) )", "{0.1,0.2,0.4,1.0}", 24, "0.09263226", "0"),
    ("'a':1A,5B,7B,9A 'ab':2A,5,7C,9C,12C 'abc':3C,4,7B,8C 'b':3B,6C,7A,9,12B 'ba':3,12C", "'c' | 'c':* | 'c':C | 'a' | 'ab':D | 'c' | 'ba':CD | 'x'", "{0.05,0.1,0.7,0.33}", 32, "0.16644114", "0.69325155"),
    ("'ab':2A 'b':6", "'a':CD | 'ab':A | 'b' | 'a' | 'b' | 'x' | 'x' | 'x':*ACD | 'a':*BD", "{1,1,1,1}", 32, "0.31316102", "0.6666667"),
    ("'a':9B 'ab':1B,3B,9B 'abc':2B,7B,9B,10A,12A 'b':11", "'b':*BCD | 'c':* | 'abc':* | 'ba':ACD | 'ab' | 'x':AC", "{0.05,0.1,0.7,0.33}", 32, "0.16775303", "0.8307953"),
    ("'ba':1,5,6C,8B,10B", "'a' & 'a':*CD & 'ba' & 'c':* & 'ba':B & 'abc':*A & 'x'", "{-1,0.3,-1,0.9}", 32, "1e-20", "0"),
    ("'a':1,3,7B,9C,12C 'ab':3A,5C,7A,9B,11 'abc':7A,8,10C 'b':1A,2,3C,5,6C 'ba':3C,6C,11A 'c':1C,2B,5C,6A", "'b':* & 'c':AD & 'ab'", "{-1,0.3,-1,0.9}", 33, "0.17542507", "0.15724163"),
    ("'a' 'ab':8A 'abc':1,9,11C,12 'b':7C,9A 'ba':1B,10A 'c':4C", "'ab'", "{0.1,0.2,0.4,1.0}", 33, "0.14499", "0.28695172"),
    ("'a':1B,4A,6,8C 'ab':1B 'b'", "'a':C", "{0.1,0.2,0.4,1.0}", 33, "0.23563772", "0.09320055"),
    ("'ba' 'c'", "'ba':* <100> 'x'", "{-1,0.3,-1,0.9}", 33, "6.3092975e-21", "0"),
    ("'a':5C,8 'ab':1,2B,3C,4,7B,8 'b':1A,4C,6B,7,8B", "'ab' & 'a':*", "{1,1,1,1}", 36, "0.5", "0.8125"),
    ("'a':3B,6C,9,10 'ab':2C,5,9,10A 'b':5B", "'a':ACD", "{-1,0.3,-1,0.9}", 36, "0.23036645", "0.18181819"),
    ("'ab':8B 'b':3,4B,5B,6,8B", "'a' | 'ab':*BD | 'x':* | 'a' | 'x' | 'a' | 'x' | 'b':D | 'a'", "{-1,0.3,-1,0.9}", 36, "0.12809956", "0.14285715"),
    ("'a':7A,8", "'ab':* <-> 'a' <-> 'ab':B <-> 'x':D <-> 'x':BC <-> 'a' <-> 'x':AD <-> 'x':* <-> 'a':BC <-> 'x' <-> 'a' <-> 'x' <-> 'b'", "{-1,0.3,-1,0.9}", 36, "1e-20", "0"),
    ("'a':1C,8B 'b'", "( !( 'a' <-> 'x':* <-> ( 'x' <0> 'ab':BD ) ) | !'b':* ) <5> !( 'ab':D <100> 'a':* <-> ( 'ab':* <-> 'x':* ) <5> 'a':* )", "{0.3,0.3,0,1,7,8}", 40, "1.6653345e-16", "0.13043478"),
    ("'b':8C", "'x' | 'ab':*A | 'b':* | 'ab' | 'ab' | 'x':A | 'x':BC", "{0.05,0.1,0.7,0.33}", 40, "0.019861752", "0.09090909"),
    ("'a':1B,3,5 'ab':3A,4A,6C 'b':2C,4,5,6B,8B", "'ab'", "{0,0.5,0.25,1}", 40, "0.20921165", "0.45454547"),
    ("'abc':2A,7B,19,22C,26B,30 'ba':15C,30B 'c':4 'd':98B,169 'f':3C", "'ba':*B <0> 'ba'", "{0.3,0.3,0,1}", 40, "0.03519198", "0"),
    ("'a':148C 'ab' 'ba':1C,2B,3A,4C,5C 'bad':66B,131C,183A,197A 'cd':1,2C,3B,4A,5", "!( 'ba' <3> ( 'b':*B <-> 'c' ) )", "{0,0.5,0.25,1}", 63, "0.0011171163", "0.0034158337"),
    ("'abc':16357A,16364", "'abc':CD", "{1,1,1,1}", 63, "0.19336921", "0.31277126"),
    ("'abc':3B,4B,8A,19,26C,29C 'b':139B,145A,169,175B,192B 'ba':24A,26C 'bad':40C,106A,130A,159B,166B 'e':1A,6A", "'abc'", "{1,1,1,1}", 63, "0.0007978986", "0.0023035822"),
    ("'abc':1,2,4B 'abd':3B,4A,6,7B 'c' 'd':16C,28B 'e'", "'cd':AC & 'f':* <0> ( 'f':AB & 'f':* ) & 'c' <2> 'a':AD & 'e':* & 'e':B", "{0.1,0.2,0.4,1.0}", 63, "1.9619973e-19", "0"),
    ("'abc':7,8C,9B,11B 'ba':3C,4C,7B,12B 'c':1C,3B,4C,7,10A", "'b' | 'b' | 'x':* | 'b' | 'a' | 'ba':* | 'abc' | 'b':*B | 'x':B | 'c':*", "{0,0.5,0.25,1}", 2147483647, "0.000964558", "0.011984044"),
    ("'a':1B,8A 'b':2A,4B,6,7C,8A", "'a' <5> 'b' <2> 'a':*", "{-1,0.3,-1,0.9}", 2147483647, "0.014761427", "0.0021042253"),
    ("'a':1C,2C,4A,5B,6B,7A 'b':1A", "'ab' | 'a' | 'ab' | 'ab':* | 'x':D | 'a':*C | 'x':D | 'ab' | 'x' | 'x':*AB | 'x':*ABC | 'a':BCD | 'b'", "{0.05,0.1,0.7,0.33}", 2147483647, "0.0027976893", "0.034827743"),
    ("'abc':6A", "'ba':*A & 'x':AC & 'a' & 'ba'", "{0,0.5,0.25,1}", 2147483647, "1e-20", "0"),
    ("'a':1C,8C 'b':7B,9A,11", "'a':ACD", "{-0,0.1,1,0.5}", 36, "0.0706241", "0.014084508"),
    ("'a':6C 'ab'", "'a':*", "{-0,0.1,1,0.5}", 1, "0.03835593", "0.09102392"),
    ("'a':7B 'ab' 'b':3A,4A,5C,7A,8A", "'b' <0> 'a'", "{-0,0.1,1,0.5}", 63, "0.0077102426", "0.007575481"),
    ("'cd':11A 'd':3B,11A,14,20B,23A,25A 'e':3A,4B,7", "'d' | 'e'", "{-1,0.3,-1,0.9}", 12, "0.24400394", "0.54012346"),
    ("'ab':2A,3B,6A,8B", "!( 'a' <5> 'a':BC | 'ab':* <-> 'x' )", "{-1,0.3,-1,0.9}", 24, "0.22797269", "2.6"),
    ("'ab':1B,2A,4C,5B,7A,8C", "'ab' | 'b':*", "{-1,0.3,-1,0.9}", 0, "0.42635953", "3.2"),
    ("'a':8B,9,10C 'ba':5C,11C 'c':10", "'c':C | 'b' | 'a':*A | 'ab':* | 'ba' | 'ba' | 'b' | 'x'", "{0,0.5,0.25,1}", 32, "0.122280866", "0.5"),
    ("'a':1B 'ab':9A 'c':2,7C", "'a':*CD | 'b':*B | 'a' | 'x':*BD | 'c' | 'ba' | 'abc' | 'x' | 'abc':* | 'b':A | 'abc'", "{0,0.5,0.25,1}", 3, "0.008181874", "0.1165003"),
    ("'abd':119C,161B 'b':3A,5A,6C,9,10B 'ba':1B,2C,3B,4B,5C,7A 'bad':4B 'c' 'f':1C,3C,4,5C,9C,10C", "!( ( 'd' | 'ba':* | 'abc' ) <2> 'x' )", "{0,0.5,0.25,1}", 8, "0.042767745", "0.5"),
    ("'abc':3C,10C,12C 'c':4A,7B,8,9", "'x':* | 'abc' | 'ba' | 'abc' | 'a':* | 'x':*B | 'ab' | 'b':C | 'abc' | 'abc':AD | 'ba':*CD | 'ba' | 'x':BD", "{0.05,0.1,0.7,0.33}", -1, "0.00041416715", "0.001391285"),
    ("'abd':28B,30A 'b':6,7,10 'cd':7,13", "'cd':* <3> 'ab' <0> 'ba':BC & ( 'abc':C & 'c' ) <0> ( 'e' <-> 'e':D ) | 'abd'", "{0.05,0.1,0.7,0.33}", 5, "0.024461828", "0.123831324"),
    ("'ba':4 'cd':1A,39,95B,122B", "'c':*", "{0.05,0.1,0.7,0.33}", 5, "0.2554624", "0.020169245"),
    ("'a':2B,11A 'abc':1C,7 'b':10 'c':4", "'a':* | 'a':* | 'c':BD | 'c' | 'abc':CD | 'a' | 'ab' | 'ab':* | 'c':* | 'abc' | 'abc' | 'ab':AD", "{0.1,0.2,0.4,1.0}", 4, "0.29636446", "0.75"),
    ("'b':16374", "'a':A | 'ab' | 'b':*D | 'b' | 'x':A | 'b':* | 'b':D | 'x':CD", "{0.1,0.2,0.4,1.0}", 4, "0.015198178", "0.1"),
    ("'a':10A,11B 'abc':3C 'b':1A,4B,9A,12 'ba':3A,5A,8A,11 'c':1B,2B,5A,8B", "!( 'a' <5> 'ab':* ) | 'c':ACD <-> 'b':A <-> 'abc':C", "{0.1,0.2,0.4,1.0}", 40, "0.0935147", "0.47916666"),
    ("'a':2B,3,4C,6,7A 'ab':2,3,4B,5C,7B,8A 'b':1C,2C,3B,4A,7A,8A", "!'a' <5> ( 'a' <0> 'b':* ) <100> !'x':A", "{0.3,0.3,0,1,7,8}", 0, "1", "1.4615384"),
    ("'a':2,5A,6,7A 'ab':1,2B,3,4C,5A,7 'b':8A", "'ab'", "{0.3,0.3,0,1,7,8}", 5, "0.23069535", "0.66400886"),
    ("'a':6A,7C,8 'ab':1A,2B,5 'b'", "!( 'ab':* <-> 'ab':* )", "{0.3,0.3,0,1,7,8}", 4, "0.6281913", "0.5777778"),
    ("'a':1C,3A 'abc':70A,92A,174C,187B 'b':4A,7A,22,26B,29C,30C 'c':1A,2A,3C,4B,5 'cd':5B,9A,23C", "'a'", "{0.3,0.3,0,1}", 33, "0.15249136", "0.29922736"),
    ("'b':7983B,8242C,14332,14795B 'c':10903A,14001C 'd':3904A,4855,7304C,10612B,16375C 'f':3542,3661B,6957B,15823B", "'b'", "{0.3,0.3,0,1}", 16, "0.08727333", "0.25840595"),
    ("'abc':118B,138C,166B,174A,187B,196C 'd':42,126C,146 'e':22B,90C,104A 'f'", "'d':BC", "{0.3,0.3,0,1}", 17, "0.028079813", "0.048958"),
    ("'a':9B 'ab':2A,10B 'c':5B,7B,9,11,12A", "'ab' | 'ba':ACD | 'ba' | 'c' | 'b':*", "{0.999,0.0001,0.123,1}", 3, "0.014131389", "0.24843842"),
    ("'b':1C,3B,4B,5B,6B,8C", "'ab' | 'x':CD | 'ab':AD | 'x':A | 'b' | 'b' | 'a':AC | 'ab' | 'a' | 'ab' | 'a':*CD", "{0.999,0.0001,0.123,1}", 2147483647, "0.0013459891", "0.027336257"),
    ("'a':1,3,4B,6A,7", "!( 'b' <100> 'a':A )", "{0.999,0.0001,0.123,1}", 2147483647, "0.05136562", "0.10041373"),
    ("'a':1,3,4B,5C 'b':2B,4A,5,6B", "!( 'x' <100> 'x' <100> ( 'a':AB | 'ab' ) <-> !( 'ab':BC | 'a':AC ) & !!'b' <-> 'a' )", "{1,1,1,1}", 0, "0.4327259", "8"),
    ("'a':2 'ab' 'b':2A,4", "'x':*D | 'b' | 'x' | 'b' | 'ab' | 'x':D | 'a':* | 'x'", "{1,1,1,1}", 16, "0.32296127", "1.5"),
    ("'a':1B,2,3C,4B,5A,7C 'ab':1C,3A,4A,6,8A 'b':6A", "!'a':* <2> !'ab' | 'ab'", "{1,1,1,1}", -1, "0.005015771", "0.036519893"),
    ("'a':1A,5,6B,7C 'ab':1C,2C,3,8 'b':1A,2B,4C,6,7C", "!( ( 'x' & 'x' ) <5> !'b':* ) | !( 'a' <-> 'ab':* <5> ( 'a' <-> 'x':*C ) )", "{0.999,0.0001,0.123,1}", 16, "0.25975114", "3.12125"),
    ("'a':2,3,5C,6B,7A,8B 'ab':1C 'b':4A", "!( 'b':BC <2> ( 'a' <-> 'x' ) )", "{0.999,0.0001,0.123,1}", 17, "0.10419596", "0.7382268"),
    ("'ab':2B,3A,5,7B,8A", "!( 'b':CD <5> 'ab':*CD <0> ( 'x' <100> 'ab':*AC ) )", "{0,0.5,0.25,1}", 2147483647, "0.020059682", "0.058391314"),
    ("'ab':1B,2A 'abc' 'b':2 'ba':1A,3B,7B 'c':2C,4B,11C", "!( 'ab' <-> 'x':*BCD ) | 'b' <-> 'ab':* <5> ( 'b':* <0> 'c':BCD <2> ( 'x':* <2> 'ba':* ) )", "{-0,0.1,1,0.5}", 33, "0.16096047", "0.6844001"),
    ("'a':1,3B,4,5A,7 'ab':1A,2B,4C,5B,6B,7B", "!( 'b' <-> 'b' <-> ( 'ab':*AB <-> 'x' ) <-> ( !'a' <100> ( 'ab' <-> 'ab':*AD ) ) ) <100> 'ab'", "{1,1,1,1}", 16, "0.63092977", "3.7855785"),
    ("'a':1B,3B,4C,5A,6B,8A", "!( !( !( 'ab':* & 'a' ) & ( 'b' & 'x' ) <100> ( 'x':* <-> 'a' ) ) <100> 'b':* )", "{1,1,1,1}", 2147483647, "0.013277878", "0.25517592"),
    ("'ab':1C,4,5A,6,8 'b':1C,2,3C,4C,5,7B", "!( ( 'ab' <-> 'ab' & 'ab':*AD <5> 'ab' ) <100> !( 'x':*C <100> 'a' ) )", "{0.999,0.0001,0.123,1}", 5, "0.07643668", "0.91151243"),
    ("'a':1B,6C,9C,11A,12C 'abc':1C,2C,8C,10,12 'b':5A 'c':11A", "'a' <5> !( !!'ab':* | 'ba':* <-> 'b':BC )", "{-1,0.3,-1,0.9}", 16, "0.43067563", "0.9474884"),
    ("'ab':3B,5C 'b':3C,5", "!'ab':* <2> !'b'", "{0.999,0.0001,0.123,1}", 63, "0.011594019", "0.006826876"),
    ("'a':1B,5A,7C,12A 'b':4A,5C,9C 'ba':1C,4B,5C,10B", "!( 'a':CD <5> 'ab':ACD <-> ( 'abc':*AD & 'x':*BD ) <100> ( 'abc' <0> 'a':*ABC | !'c':* ) )", "{0.1,0.2,0.4,1.0}", 40, "0.056758184", "0.4642857"),
    ("'ab':16312B,16332B,16333C,16337,16344,16350A,16358,16372", "( 'ab':C | !( 'ab':*AB <5> 'ab':* ) ) & !( 'b':* <-> 'a' )", "{1,1,1,1}", 2147483647, "3.943311e-22", "0.09316838"),
    ("'a':16315A,16316C,16330A,16332A,16333B,16360C 'ab':16321B 'abc':16363C 'b':16309B,16382C,16383B 'ba':16303C,16358B,16362A", "!'x' | 'abc':*CD <-> 'a':*", "{-0,0.1,1,0.5}", 4, "0.5703538", "1.5112036"),
    ("'a':1B,2A,3A,6C 'ab':1A,2A,3,4B 'b':1C,2,3A,6C,7B,8C", "'x':C | 'x' | 'x' | 'b':* | 'b' | 'b' | 'a':* | 'ab' | 'x'", "{0,0.5,0.25,1}", 5, "0.2131286", "1.1242933"),
    ("'a':10C,17C,24C,26C 'b':2B,3A 'cd':34C,52A,58C,158B,177,184C", "'c':*", "{-1,0.3,-1,0.9}", 8, "0.2574909", "0.76666665"),
    ("'abc':14A,36A,84C,98C 'abd':7A,44B,108 'b':32,45A,52A,64B,113A 'ba':16B 'c' 'cd':24C,48C,184,199C 'f':24C,54A", "'abd':*", "{1,1,1,1}", 17, "0.062795736", "0.32845873"),
    ("'a':4C,6B,7B 'ab':3B,4B,7,8B 'b':2A", "'a':* | 'b' | 'ab':*AB | 'x':* | 'ab':*AB | 'b':* | 'ab' | 'a':C | 'x' | 'ab':* | 'x' | 'x' | 'b':D | 'a'", "{-1,0.3,-1,0.9}", 2, "0.041425586", "0.4125"),
    ("'a':4B,15A,25A,29B 'ab':9B,26 'abd':1,3C,4,7A,9A,10 'c':8A,9B,12B,19,21A 'cd':4C,6,10,13,24C,29A 'd':28A 'f':90", "'c':*", "{0.05,0.1,0.7,0.33}", 0, "0.96008915", "2.79"),
    ("'a':1A,2C,4C,5A,7C,8C 'ab':1,2B,4A,7C,8B", "!!( !( !'x' <-> ( 'b':AD <2> 'x':* ) ) <-> 'a' )", "{0.999,0.0001,0.123,1}", 33, "0.056658007", "0.44598958"),
    ("'a':1B,3C,4C,5C,7B,8", "'a' <5> !( 'ab' <2> 'a':BC <-> ( 'ab' <-> 'b':D ) )", "{-1,0.3,-1,0.9}", 17, "3.562072e-21", "0.92501706"),
    ("'a':3C,4B,5C,7B,8", "'x' | 'x' | 'b' | 'ab' | 'a' | 'b' | 'ab':A | 'ab' | 'a':* | 'x':* | 'a' | 'ab' | 'x':* | 'b':*", "{0.999,0.0001,0.123,1}", 63, "0.01205339", "0.08866747"),
    ("'a':1A,3C,4C,5C 'ab':1A,5B,6A,8", "'a' <-> 'a':BC | 'a' | 'ab':*", "{0.05,0.1,0.7,0.33}", 40, "0.17977722", "0.5049505"),
    ("'ab':5C 'b':8B", "'x' | 'b' | 'b' | 'a' | 'a':CD | 'a':*AD", "{-1,0.3,-1,0.9}", 1, "0.08949718", "0.3640957"),
    ("'a':9C,12B 'ab':4C,6B,10 'abc':1B,4C,6B,8A,12B 'b':6 'ba':3 'c':2B", "'ba' <-> ( !'ab':C | 'x' )", "{0.3,0.3,0,1,7,8}", 1, "0.12024995", "0.11367696"),
    ("'a':1A,2C 'ab':1C,2,3B,4A,6C,7A 'b'", "'ab' <-> 'a':* <-> 'ab':ABD <-> 'ab'", "{-1,0.3,-1,0.9}", 4, "1", "0.09350649"),
    ("'a':1C,7,8 'ab':1B,2A,4C,5B", "!( 'b':* <0> ( 'x' <5> 'b':*BD ) ) <-> 'a'", "{-0,0.1,1,0.5}", 24, "3.1546488e-21", "0.03154649"),
    ("'ba':2,6,11B", "'ab':* | 'x' | 'c' | 'abc' | 'c':CD | 'c':* | 'c':* | 'c':BC | 'ba' | 'b' | 'abc'", "{0.3,0.3,0,1,7,8}", 17, "0.018997721", "0.43280852"),
    ("'ab' 'b'", "!'x':AD & 'x' <-> 'x':*AB", "{0.999,0.0001,0.123,1}", 4, "0", "0"),
    ("'abc'", "'a':* <2> 'a'", "{-1,0.3,-1,0.9}", 24, "0", "0"),
    ("'a' 'ab' 'b'", "'ab':* & 'ab':C & 'ab':* & 'x' & 'x':*AB & 'b':ACD", "{-1,0.3,-1,0.9}", 36, "1e-16", "0"),
    ("'b' 'cd'", "( 'e' & 'bad':*BD ) <3> ( ( 'd' | 'b' ) <-> ( 'f':AC <-> 'b':B ) ) <0> 'bad':AD", "{-1,0.3,-1,0.9}", 4, "1e-20", "0"),
    ("'ab' 'abc' 'b' 'bad'", "'cd' <3> 'b':*", "{0,0,0,0}", 0, "1e-20", "0"),
    ("'a' 'ab' 'b' 'c' 'e'", "'abc':CD", "{-1,0.3,-1,0.9}", 2, "0", "0"),
    ("'ab':16306B,16314B,16323A,16357A,16364,16372A,16374C 'abc' 'b':16349A,16360,16364A,16383 'c':16305A,16379B", "!( !'a':ABD <5> ( 'c' <2> 'b' ) )", "{0.999,0.0001,0.123,1}", 3, "0.00909189", "0.13507347"),
    ("'ab':16302B,16311A,16336A,16347C,16353A,16358A,16380B 'b':16359B", "'ab':*", "{-0,0.1,1,0.5}", 1, "0.23801824", "1.8659904"),
    ("'b':16301,16350A,16360A 'ba':16320,16321B,16367 'c':16316,16325C,16341,16364B,16370A,16381C", "'x':BCD | 'a' | 'abc' | 'a' | 'ba':ABD | 'c'", "{0.999,0.0001,0.123,1}", 3, "0.008921954", "0.17031525"),
    ("'a':16308A,16318A,16338A,16340C 'ab':16314,16315C,16319A,16343B,16349A,16356B,16363B,16366A 'b':16383C", "'ab':*", "{0.1,0.2,0.4,1.0}", 2147483647, "0.0025521067", "0.005644648"),
    ("'a':3,5A,6B,7B,8B 'ab' 'b':4B,8", "'b' & 'x':*D & 'ab':*BD & 'b':C & 'a' & 'a':BC & 'x':AC & 'b' & 'a':B & 'a'", "{0.999,0.0001,0.123,1}", -2147483648, "0.9997125", "0"),
    ("'a':1,2B 'abc' 'ba':3C,7B 'c':1,5C,7A,9A", "'b' | 'a' | 'ba':* | 'ba':AC | 'ab' | 'a':AD | 'ba':* | 'x' | 'x':ACD | 'b'", "{-1,0.3,-1,0.9}", 40, "0.035191976", "0.23076923"),
    ("'a':1C,3A,5,6,8", "( 'x':A <-> 'b' | !'x':D ) <-> ( 'x' <-> 'ab':*B <2> ( 'b' <5> 'x' ) ) <-> ( 'ab':* <5> 'a':AD )", "{-1,0.3,-1,0.9}", 16, "1e-20", "0"),
    ("'c'", "'a':* & 'abc':*ACD & 'b':* & 'ab' & 'x':* & 'c' & 'b':*ABD & 'ba':* & 'x':*B & 'ab':* & 'x':B & 'a':* & 'a' & 'ba':*C & 'abc':* & 'x':* & 'x':CD", "{0.3,0.3,0,1,7,8}", 12, "1e-20", "0"),
    ];

    #[test]
    fn matches_postgres() {
        for &(v, q, w, norm, rank, rank_cd) in PG_CASES {
            check(v, q, w, norm, rank, rank_cd);
        }
    }

    #[test]
    fn every_normalization_bit() {
        // select ts_rank(v, q, n), ts_rank_cd(v, q, n) for v = 'a:1A,5,9C b:3B,7 c:12 d',
        // q = 'a & b'.
        let cases = [
            (0, "0.8698397", "0.48238096"),
            (1, "0.2899466", "0.23197621"),
            (2, "0.12426282", "0.06891157"),
            (4, "0.8698397", "0.18089285"),
            (8, "0.21745993", "0.12059524"),
            (16, "0.37461957", "0.20775017"),
            (32, "0.46519482", "0.32540956"),
            (3, "0.04142094", "0.033139456"),
            (5, "0.2899466", "0.08699108"),
            (6, "0.12426282", "0.025841838"),
            (9, "0.07248665", "0.057994053"),
            (12, "0.21745993", "0.045223214"),
            (17, "0.1248732", "0.09990671"),
            (24, "0.09365489", "0.051937543"),
            (33, "0.2247741", "0.188296"),
            (36, "0.46519482", "0.15318313"),
            (40, "0.17861773", "0.107617125"),
            (48, "0.272526", "0.17201419"),
            (63, "0.004439956", "0.0013362484"),
            (-1, "0.004439956", "0.0013362484"),
            (64, "0.8698397", "0.48238096"),
            (128, "0.8698397", "0.48238096"),
            (-64, "0.8698397", "0.48238096"),
        ];
        for (norm, rank, rank_cd) in cases {
            check(
                "'a':1A,5,9C 'b':3B,7 'c':12 'd'",
                "'a' & 'b'",
                "{0.1,0.2,0.4,1.0}",
                norm,
                rank,
                rank_cd,
            );
        }
    }

    #[test]
    fn weights_validation() {
        let err = weights_from(&[Some(1.0); 3]).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            ("2202E", "array of weight is too short")
        );
        let err = weights_from(&[Some(1.0), Some(1.0), Some(1.0), Some(1.0), None]).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            ("22004", "array of weight must not contain nulls")
        );
        let err = weights_from(&[Some(1.0), Some(1.0), Some(1.0), Some(1.5)]).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            ("22023", "weight out of range")
        );
        // Negative and NaN elements select the default; elements past the fourth are
        // ignored.
        let w = weights_from(&[Some(-1.0), Some(0.5), Some(f32::NAN), Some(0.0), Some(9.0)]);
        assert_eq!(w.unwrap(), [0.1, 0.5, 0.4, 0.0]);
        let err = ts_rank_cd(
            &[2.0, 1.0, 1.0, 1.0],
            &TsVector::default(),
            &TsQuery::default(),
            0,
        );
        assert_eq!(err.unwrap_err().code, "22023");
    }

    #[test]
    fn special_weights() {
        // '{1,1,1,NaN}' and '{1,1,1,-Infinity}': the default weight for A.
        check("'a':1 'b':2", "'a'", "{1,1,1,NaN}", 0, "0.6079271", "1");
        check(
            "'a':1 'b':2",
            "'a' & 'b'",
            "{1,1,1,-inf}",
            0,
            "0.9910322",
            "1",
        );
    }

    #[test]
    fn empty_inputs() {
        let v = parse_tsvector("'a':1 'b':2").unwrap();
        let empty_q = TsQuery::default();
        assert_eq!(ts_rank(&DEFAULT_WEIGHTS, &v, &empty_q, 0).unwrap(), 0.0);
        assert_eq!(ts_rank_cd(&DEFAULT_WEIGHTS, &v, &empty_q, 32).unwrap(), 0.0);
        let q = parse_tsquery("'a'").unwrap();
        let empty_v = TsVector::default();
        assert_eq!(ts_rank(&DEFAULT_WEIGHTS, &empty_v, &q, 0).unwrap(), 0.0);
        assert_eq!(ts_rank_cd(&DEFAULT_WEIGHTS, &empty_v, &q, 32).unwrap(), 0.0);
    }

    fn operand(word: &str) -> QueryNode {
        QueryNode::Operand {
            word: word.to_string(),
            weight: 0,
            prefix: false,
        }
    }

    /// Drops a (possibly very deep) tree without recursing.
    fn dismantle(node: QueryNode) {
        let mut stack = vec![node];
        while let Some(node) = stack.pop() {
            match node {
                QueryNode::Operand { .. } => {}
                QueryNode::Not(c) => stack.push(*c),
                QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                    stack.push(*l);
                    stack.push(*r);
                }
            }
        }
    }

    fn rank_both(v: &str, root: QueryNode) -> (f32, f32) {
        let v = parse_tsvector(v).unwrap();
        let q = TsQuery { root: Some(root) };
        let r = ts_rank(&DEFAULT_WEIGHTS, &v, &q, 0).unwrap();
        let rc = ts_rank_cd(&DEFAULT_WEIGHTS, &v, &q, 0).unwrap();
        if let Some(root) = q.root {
            dismantle(root);
        }
        (r, rc)
    }

    #[test]
    fn deep_queries() {
        // repeat('!(', 3000) || 'a' || repeat(')', 3000) on 'a:1 b:2': 0.06079271, 0.1;
        // with 2999 negations ts_rank_cd is 0.
        for (depth, want_cd) in [(3000, 0.1f32), (2999, 0.0)] {
            let mut node = operand("a");
            for _ in 0..depth {
                node = QueryNode::Not(Box::new(node));
            }
            let (r, rc) = rank_both("'a':1 'b':2", node);
            assert_eq!(r.to_bits(), 0.06079271f32.to_bits());
            assert_eq!(rc.to_bits(), want_cd.to_bits());
        }
        // repeat('a <-> (', 500) || 'b' || repeat(')', 500) on 'a:1 b:2': 0.09910322, 0.
        let mut node = operand("b");
        for _ in 0..500 {
            node = QueryNode::Phrase(Box::new(operand("a")), Box::new(node), 1);
        }
        let (r, rc) = rank_both("'a':1 'b':2", node);
        assert_eq!((r.to_bits(), rc), (0.09910322f32.to_bits(), 0.0));
        // repeat('(', 2000) || 'a' || repeat(' & b)', 2000) on 'a:1 b:2 c:3'.
        let mut node = operand("a");
        for _ in 0..2000 {
            node = QueryNode::And(Box::new(node), Box::new(operand("b")));
        }
        let (r, rc) = rank_both("'a':1 'b':2 'c':3", node);
        assert_eq!(
            (r.to_bits(), rc.to_bits()),
            (0.09910322f32.to_bits(), 0.1f32.to_bits())
        );
        // Far deeper than any stack would allow if evaluation recursed.
        let mut node = operand("a");
        for i in 0..200_000 {
            node = match i % 3 {
                0 => QueryNode::Not(Box::new(node)),
                1 => QueryNode::Phrase(Box::new(node), Box::new(operand("b")), 1),
                _ => QueryNode::Or(Box::new(operand("a")), Box::new(node)),
            };
        }
        let (r, rc) = rank_both("'a':1 'b':2", node);
        assert!(r.is_finite() && rc.is_finite());
    }
}
