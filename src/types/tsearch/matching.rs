//! `tsvector @@ tsquery`: PostgreSQL 15's TS_execute with its phrase semantics
//! ([`matches`], over a decoded tsvector), and [`Prepared`], a query prepared once to
//! match many stored tsvectors (a column) from their bytes: presence-only queries by one
//! merge pass over the stored words, the others after a presence pre-check by decoding
//! only the lexemes an operand can read.

use super::query::{OP_AND, OP_PHRASE};
use super::{MAX_POS, QueryNode, TsQuery, TsVector, pos_of, weight_of};

// ---------------------------------------------------------------------------------
// Matching (tsvector @@ tsquery)

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tern {
    No,
    Yes,
    Maybe,
}

/// Match positions below a phrase operator (PostgreSQL's ExecPhraseData): positions
/// are match ends; `negate` means "everywhere except"; `width` is the match width
/// less one.
#[derive(Clone, Default, Debug)]
struct PData {
    pos: Vec<i32>,
    negate: bool,
    width: i32,
}

fn lower_bound(v: &TsVector, word: &str) -> usize {
    v.lexemes
        .partition_point(|l| l.word.as_bytes() < word.as_bytes())
}

fn weight_ok(weight: u8, p: u16) -> bool {
    weight & (1 << weight_of(p)) != 0
}

/// An operand where no positions are needed.
fn check_bool(v: &TsVector, word: &str, weight: u8, prefix: bool) -> bool {
    let class = |lx: &super::Lexeme| {
        lx.positions.is_empty() || weight == 0 || lx.positions.iter().any(|&p| weight_ok(weight, p))
    };
    let i = lower_bound(v, word);
    if let Some(lx) = v.lexemes.get(i)
        && lx.word == word
        && class(lx)
    {
        return true;
    }
    if !prefix {
        return false;
    }
    v.lexemes[i.min(v.lexemes.len())..]
        .iter()
        .take_while(|lx| lx.word.as_bytes().starts_with(word.as_bytes()))
        .any(class)
}

fn class_data(lx: &super::Lexeme, weight: u8) -> (Tern, Vec<i32>) {
    if lx.positions.is_empty() {
        return (Tern::Maybe, Vec::new());
    }
    let ps: Vec<i32> = lx
        .positions
        .iter()
        .filter(|&&p| weight == 0 || weight_ok(weight, p))
        .map(|&p| pos_of(p) as i32)
        .collect();
    if ps.is_empty() {
        (Tern::No, ps)
    } else {
        (Tern::Yes, ps)
    }
}

/// An operand below a phrase operator.
fn check_data(v: &TsVector, word: &str, weight: u8, prefix: bool) -> (Tern, PData) {
    let i = lower_bound(v, word);
    let mut data = PData::default();
    let mut res = Tern::No;
    if let Some(lx) = v.lexemes.get(i)
        && lx.word == word
    {
        let (t, ps) = class_data(lx, weight);
        res = t;
        data.pos = ps;
    }
    if prefix {
        data = PData::default();
        res = Tern::No;
        let mut all: Vec<i32> = Vec::new();
        let mut maybe = false;
        for lx in v.lexemes[i.min(v.lexemes.len())..]
            .iter()
            .take_while(|lx| lx.word.as_bytes().starts_with(word.as_bytes()))
        {
            let (t, ps) = class_data(lx, weight);
            match t {
                Tern::Maybe => {
                    maybe = true;
                    break;
                }
                Tern::Yes => all.extend(ps),
                Tern::No => {}
            }
        }
        if maybe {
            res = Tern::Maybe;
        } else if !all.is_empty() {
            all.sort_unstable();
            all.dedup();
            data.pos = all;
            res = Tern::Yes;
        }
    }
    (res, data)
}

const EMIT_L_ONLY: u8 = 1;
const EMIT_R_ONLY: u8 = 2;
const EMIT_BOTH: u8 = 4;

/// Merge of two position lists (PostgreSQL's TS_phrase_output); positions are kept
/// as PostgreSQL keeps them, in a 14-bit field.
fn phrase_output(l: &[i32], r: &[i32], emit: u8, loff: i32, roff: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let (mut li, mut ri) = (0, 0);
    while li < l.len() || ri < r.len() {
        let lpos = if li < l.len() {
            l[li].wrapping_add(loff)
        } else {
            if emit & EMIT_R_ONLY == 0 {
                break;
            }
            i32::MAX
        };
        let rpos = if ri < r.len() {
            r[ri].wrapping_add(roff)
        } else {
            if emit & EMIT_L_ONLY == 0 {
                break;
            }
            i32::MAX
        };
        let mut o = 0;
        if lpos < rpos {
            if emit & EMIT_L_ONLY != 0 {
                o = lpos;
            }
            li += 1;
        } else if lpos == rpos {
            if emit & EMIT_BOTH != 0 {
                o = rpos;
            }
            li += 1;
            ri += 1;
        } else {
            if emit & EMIT_R_ONLY != 0 {
                o = rpos;
            }
            ri += 1;
        }
        if o > 0 {
            out.push(((o as u16) & MAX_POS) as i32);
        }
    }
    out
}

fn yes_if_any(pos: Vec<i32>, width: i32) -> (Tern, PData) {
    let t = if pos.is_empty() { Tern::No } else { Tern::Yes };
    (
        t,
        PData {
            pos,
            negate: false,
            width,
        },
    )
}

/// AND or phrase below (or at) a phrase operator.
fn exec_and_phrase(op: u8, dist: u16, l: (Tern, PData), r: (Tern, PData)) -> (Tern, PData) {
    let (lt, ld) = l;
    let (rt, rd) = r;
    if lt == Tern::No || rt == Tern::No {
        return (Tern::No, PData::default());
    }
    if lt == Tern::Maybe || rt == Tern::Maybe {
        return (Tern::Maybe, PData::default());
    }
    let (loff, roff, width);
    if op == OP_PHRASE {
        let d = dist as i16 as i32;
        loff = d.wrapping_add(rd.width);
        roff = 0;
        width = d.wrapping_add(ld.width).wrapping_add(rd.width);
    } else {
        let maxw = ld.width.max(rd.width);
        loff = maxw.wrapping_sub(ld.width);
        roff = maxw.wrapping_sub(rd.width);
        width = maxw;
    }
    if ld.negate && rd.negate {
        let pos = phrase_output(
            &ld.pos,
            &rd.pos,
            EMIT_BOTH | EMIT_L_ONLY | EMIT_R_ONLY,
            loff,
            roff,
        );
        (
            Tern::Yes,
            PData {
                pos,
                negate: true,
                width,
            },
        )
    } else if ld.negate {
        yes_if_any(
            phrase_output(&ld.pos, &rd.pos, EMIT_R_ONLY, loff, roff),
            width,
        )
    } else if rd.negate {
        yes_if_any(
            phrase_output(&ld.pos, &rd.pos, EMIT_L_ONLY, loff, roff),
            width,
        )
    } else {
        yes_if_any(
            phrase_output(&ld.pos, &rd.pos, EMIT_BOTH, loff, roff),
            width,
        )
    }
}

fn exec_or(l: (Tern, PData), r: (Tern, PData)) -> (Tern, PData) {
    let (lt, mut ld) = l;
    let (rt, mut rd) = r;
    if lt == Tern::No && rt == Tern::No {
        return (Tern::No, PData::default());
    }
    if lt == Tern::Maybe || rt == Tern::Maybe {
        return (Tern::Maybe, PData::default());
    }
    if lt == Tern::No {
        ld.width = 0;
    }
    if rt == Tern::No {
        rd.width = 0;
    }
    let maxw = ld.width.max(rd.width);
    let loff = maxw.wrapping_sub(ld.width);
    let roff = maxw.wrapping_sub(rd.width);
    let negated = |pos| {
        (
            Tern::Yes,
            PData {
                pos,
                negate: true,
                width: maxw,
            },
        )
    };
    if ld.negate && rd.negate {
        negated(phrase_output(&ld.pos, &rd.pos, EMIT_BOTH, loff, roff))
    } else if ld.negate {
        negated(phrase_output(&ld.pos, &rd.pos, EMIT_L_ONLY, loff, roff))
    } else if rd.negate {
        negated(phrase_output(&ld.pos, &rd.pos, EMIT_R_ONLY, loff, roff))
    } else {
        yes_if_any(
            phrase_output(
                &ld.pos,
                &rd.pos,
                EMIT_BOTH | EMIT_L_ONLY | EMIT_R_ONLY,
                loff,
                roff,
            ),
            maxw,
        )
    }
}

fn exec_not(c: (Tern, PData)) -> (Tern, PData) {
    let (t, mut d) = c;
    match t {
        Tern::No => {
            d.negate = true;
            (Tern::Yes, d)
        }
        Tern::Yes => {
            if !d.pos.is_empty() {
                d.negate = !d.negate;
                (Tern::Yes, d)
            } else {
                d.negate = false;
                (Tern::No, d)
            }
        }
        Tern::Maybe => (Tern::Maybe, d),
    }
}

/// `tsvector @@ tsquery` (ts_match_vq): the empty query matches nothing.
pub fn matches(v: &TsVector, q: &TsQuery) -> bool {
    enum V {
        B(bool),
        P(Tern, PData),
    }
    let Some(root) = &q.root else {
        return false;
    };
    // Postfix order, each node with whether a phrase operator is above it.
    let mut order: Vec<(&QueryNode, bool)> = Vec::new();
    let mut st: Vec<(&QueryNode, bool, bool)> = vec![(root, false, false)];
    while let Some((n, inph, done)) = st.pop() {
        if done {
            order.push((n, inph));
            continue;
        }
        st.push((n, inph, true));
        let child_inph = inph || matches!(n, QueryNode::Phrase(..));
        match n {
            QueryNode::Operand { .. } => {}
            QueryNode::Not(c) => st.push((c, child_inph, false)),
            QueryNode::And(l, r) | QueryNode::Or(l, r) | QueryNode::Phrase(l, r, _) => {
                st.push((r, child_inph, false));
                st.push((l, child_inph, false));
            }
        }
    }
    let as_p = |v: V| match v {
        V::P(t, d) => (t, d),
        V::B(b) => (if b { Tern::Yes } else { Tern::No }, PData::default()),
    };
    let as_b = |v: V| match v {
        V::B(b) => b,
        V::P(t, _) => t != Tern::No,
    };
    let mut vals: Vec<V> = Vec::new();
    for (n, inph) in order {
        let val = match n {
            QueryNode::Operand {
                word,
                weight,
                prefix,
            } => {
                if inph {
                    let (t, d) = check_data(v, word, *weight, *prefix);
                    V::P(t, d)
                } else {
                    V::B(check_bool(v, word, *weight, *prefix))
                }
            }
            QueryNode::Not(_) => {
                let Some(c) = vals.pop() else { return false };
                if inph {
                    let (t, d) = exec_not(as_p(c));
                    V::P(t, d)
                } else {
                    V::B(!as_b(c))
                }
            }
            _ => {
                let (Some(r), Some(l)) = (vals.pop(), vals.pop()) else {
                    return false;
                };
                match n {
                    QueryNode::Phrase(_, _, d) if !inph => {
                        let (t, _) = exec_and_phrase(OP_PHRASE, *d, as_p(l), as_p(r));
                        V::B(t == Tern::Yes)
                    }
                    QueryNode::Phrase(_, _, d) => {
                        let (t, data) = exec_and_phrase(OP_PHRASE, *d, as_p(l), as_p(r));
                        V::P(t, data)
                    }
                    QueryNode::And(..) if inph => {
                        let (t, data) = exec_and_phrase(OP_AND, 0, as_p(l), as_p(r));
                        V::P(t, data)
                    }
                    QueryNode::Or(..) if inph => {
                        let (t, data) = exec_or(as_p(l), as_p(r));
                        V::P(t, data)
                    }
                    QueryNode::And(..) => V::B(as_b(l) && as_b(r)),
                    _ => V::B(as_b(l) || as_b(r)),
                }
            }
        };
        vals.push(val);
    }
    vals.pop().is_some_and(as_b)
}

// ---------------------------------------------------------------------------------
// Matching many stored tsvectors against one query (`@@` over a column)

/// A query prepared once for matching many stored tsvectors (their [`super::vector`]
/// bytes). A query of plain operands under `& | !` (no phrase operator, no weight
/// restriction) only asks whether words are present: that is answered from the stored
/// bytes, the words' places collected into reusable scratch space and binary-searched,
/// with no tsvector decoded and nothing allocated per row. Any other query decodes
/// each tsvector and runs [`matches`].
pub struct Prepared {
    query: TsQuery,
    /// Indexes into `words`, in word order.
    sorted: Vec<usize>,
    /// Postfix program over `words`: the answer for a presence-only query (`simple`),
    /// else a necessary condition (a phrase needs both sides present; NOT and weights
    /// are left to the full match).
    program: Vec<Step>,
    simple: bool,
    words: Vec<(Vec<u8>, bool)>,
}

#[derive(Clone, Copy)]
enum Step {
    Word(usize),
    Not,
    /// A phrase operator: its sides must both be present.
    Phrase,
    And,
    Or,
}

/// Reusable space for [`Prepared::matches_stored`].
#[derive(Default)]
pub struct Scratch {
    vector: TsVector,
    spans: Vec<(usize, usize)>,
    found_at: Vec<usize>,
    found: Vec<bool>,
    stack: Vec<bool>,
}

impl Prepared {
    pub fn new(q: &TsQuery) -> Prepared {
        let mut words = Vec::new();
        let mut program = Vec::new();
        let mut simple = true;
        if let Some(root) = &q.root {
            for n in root.postorder() {
                program.push(match n {
                    QueryNode::Operand {
                        word,
                        prefix,
                        weight,
                    } => {
                        // A weight restriction needs positions: not presence-only.
                        simple &= *weight == 0;
                        words.push((word.as_bytes().to_vec(), *prefix));
                        Step::Word(words.len() - 1)
                    }
                    QueryNode::Not(_) => Step::Not,
                    QueryNode::And(..) => Step::And,
                    QueryNode::Phrase(..) => {
                        simple = false;
                        Step::Phrase
                    }
                    QueryNode::Or(..) => Step::Or,
                });
            }
        }
        let mut sorted: Vec<usize> = (0..words.len()).collect();
        sorted.sort_by(|&a, &b| words[a].0.cmp(&words[b].0));
        Prepared {
            query: q.clone(),
            sorted,
            program,
            simple,
            words,
        }
    }

    /// `stored @@ query` for a stored tsvector.
    pub fn matches_stored(&self, stored: &[u8], scratch: &mut Scratch) -> bool {
        if self.query.root.is_none() {
            return false;
        }
        scratch.found.clear();
        scratch.found.resize(self.words.len(), false);
        if self.presence_scan(stored, &mut scratch.found).is_none() {
            return super::vector::decode_into(stored, &mut scratch.vector)
                && matches(&scratch.vector, &self.query);
        }
        let answer = run_program(
            &self.program,
            self.simple,
            &scratch.found,
            &mut scratch.stack,
        );
        if self.simple || !answer {
            return answer;
        }
        if !word_spans(stored, &mut scratch.spans) {
            return super::vector::decode_into(stored, &mut scratch.vector)
                && matches(&scratch.vector, &self.query);
        }
        // Matching reads only the lexemes equal to an operand or, for a prefix operand,
        // starting with it: those alone, with their positions, give the same answer as
        // the whole tsvector.
        self.relevant_lexemes(stored, scratch) && matches(&scratch.vector, &self.query)
    }

    /// The lexemes of `stored` that the query's operands can read (equal to one, or
    /// starting with a prefix operand), with their positions: what matching, ts_rank and
    /// ts_rank_cd without normalization read of a tsvector. None for bytes this reader
    /// does not take.
    pub fn relevant_vector<'s>(
        &self,
        stored: &[u8],
        scratch: &'s mut Scratch,
    ) -> Option<&'s TsVector> {
        if !word_spans(stored, &mut scratch.spans) || !self.relevant_lexemes(stored, scratch) {
            return None;
        }
        // An empty tsvector ranks 0 early, where one without the operands' words may
        // not: a tsvector with words but none relevant keeps one that no operand reads
        // (the empty word, which no operand is and every word starts after).
        if scratch.vector.lexemes.is_empty() && !scratch.spans.is_empty() {
            scratch.vector.lexemes.push(super::Lexeme::default());
        }
        Some(&scratch.vector)
    }

    /// Which operands are present in `stored`, by one pass over its words merged with
    /// the operands in word order (a word's first lexeme at or after an operand is the
    /// only one that can equal it or start with it); None for bytes this reader does
    /// not take (an escaped NUL, malformed bytes).
    fn presence_scan(&self, b: &[u8], found: &mut [bool]) -> Option<()> {
        let count = u32::from_be_bytes(b.get(4..8)?.try_into().ok()?);
        let mut at = 8;
        let mut j = 0;
        let k = self.sorted.len();
        for _ in 0..count {
            if j == k {
                return Some(());
            }
            let flag = *b.get(at)?;
            let start = at + 1;
            let mut end = start;
            while *b.get(end)? != 0 {
                end += 1;
            }
            if *b.get(end + 1)? != 0 {
                return None;
            }
            let w = &b[start..end];
            while j < k {
                let i = self.sorted[j];
                let (op, prefix) = &self.words[i];
                match cmp_words(op, w) {
                    std::cmp::Ordering::Equal => found[i] = true,
                    std::cmp::Ordering::Less => found[i] = *prefix && w.starts_with(op),
                    std::cmp::Ordering::Greater => break,
                }
                j += 1;
            }
            at = end + 2;
            if flag == 0 {
                let n = b.get(at..at + 2)?;
                at += 2 + 2 * (u16::MAX - u16::from_be_bytes([n[0], n[1]])) as usize;
            }
        }
        Some(())
    }
}

/// Runs a presence-only query's postfix program over its operands' presence.
/// Not `exact` (a query with phrase operators or weights), NOT reads as "maybe"
/// (true): it is about positions or weights there, not presence.
fn run_program(program: &[Step], exact: bool, found: &[bool], stack: &mut Vec<bool>) -> bool {
    stack.clear();
    for step in program {
        let v = match *step {
            Step::Word(i) => found[i],
            Step::Not => {
                let v = stack.pop().unwrap_or(false);
                !exact || !v
            }
            Step::And | Step::Phrase => {
                let r = stack.pop().unwrap_or(false);
                let l = stack.pop().unwrap_or(false);
                l && r
            }
            Step::Or => {
                let r = stack.pop().unwrap_or(false);
                let l = stack.pop().unwrap_or(false);
                l || r
            }
        };
        stack.push(v);
    }
    stack.pop().unwrap_or(false)
}

impl Prepared {
    /// Fills `scratch.vector` with the lexemes of `stored` (whose word spans are in
    /// `scratch.spans`) that an operand can read; false for malformed bytes.
    fn relevant_lexemes(&self, stored: &[u8], scratch: &mut Scratch) -> bool {
        let spans = &scratch.spans;
        let word_at = |i: usize| &stored[spans[i].0..spans[i].1];
        let picked = &mut scratch.found_at;
        picked.clear();
        for (w, prefix) in &self.words {
            let mut at = spans.partition_point(|&(a, b)| cmp_words(&stored[a..b], w).is_lt());
            while at < spans.len()
                && (word_at(at) == w.as_slice() || (*prefix && word_at(at).starts_with(w)))
            {
                picked.push(at);
                at += 1;
                if !*prefix {
                    break;
                }
            }
        }
        picked.sort_unstable();
        picked.dedup();
        let v = &mut scratch.vector;
        v.lexemes.truncate(picked.len());
        v.lexemes.resize_with(picked.len(), Default::default);
        for (lx, &i) in v.lexemes.iter_mut().zip(picked.iter()) {
            let (start, end) = spans[i];
            let Ok(word) = std::str::from_utf8(&stored[start..end]) else {
                return false;
            };
            lx.word.clear();
            lx.word.push_str(word);
            lx.positions.clear();
            if stored[start - 1] == 0 {
                let Some(n) = stored.get(end + 2..end + 4) else {
                    return false;
                };
                let n = (u16::MAX - u16::from_be_bytes([n[0], n[1]])) as usize;
                let Some(keys) = stored.get(end + 4..end + 4 + 2 * n) else {
                    return false;
                };
                for k in keys.chunks_exact(2) {
                    let key = u16::from_be_bytes([k[0], k[1]]);
                    let Some(pos) = super::MAX_POS.checked_sub(key >> 2) else {
                        return false;
                    };
                    lx.positions.push(pos | ((3 - (key & 3)) << 14));
                }
            }
        }
        true
    }
}

/// Bytewise order of two words, inline: lexemes are short, and a call to memcmp per
/// comparison cost more than the comparison.
#[inline]
fn cmp_words(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// The byte spans of a stored tsvector's words, in order (false for bytes this reader
/// does not take: an escaped NUL, or bytes `encode` cannot have produced).
fn word_spans(b: &[u8], spans: &mut Vec<(usize, usize)>) -> bool {
    spans.clear();
    let Some(count) = b
        .get(4..8)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
    else {
        return false;
    };
    let mut at = 8;
    for _ in 0..count {
        let Some(&flag) = b.get(at) else {
            return false;
        };
        let start = at + 1;
        // Words are short: a plain scan beats memchr's setup.
        let Some(len) = b
            .get(start..)
            .and_then(|rest| rest.iter().position(|&c| c == 0))
        else {
            return false;
        };
        let end = start + len;
        if b.get(end + 1) != Some(&0) {
            return false;
        }
        spans.push((start, end));
        at = end + 2;
        if flag == 0 {
            let Some(n) = b.get(at..at + 2) else {
                return false;
            };
            let n = (u16::MAX - u16::from_be_bytes([n[0], n[1]])) as usize;
            at += 2 + 2 * n;
        }
    }
    at == b.len()
}

#[cfg(test)]
mod tests {
    use super::super::query::parse_tsquery;
    use super::super::vector;
    use super::*;

    /// The prepared matcher over stored bytes answers exactly as `matches` over the
    /// decoded tsvector, for presence-only queries (its fast path) and the others.
    #[test]
    fn prepared_matches_agree_with_matches() {
        let words = ["a", "ab", "abc", "b", "ba", "c", "cat", "dog", "z"];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        let mut scratch = Scratch::default();
        let mut reused = TsVector::default();
        for round in 0..5000 {
            let mut text = String::new();
            for _ in 0..next(6) {
                let w = words[next(words.len())];
                text.push_str(w);
                if next(3) > 0 {
                    text.push_str(&format!(":{}", 1 + next(8)));
                    if next(2) == 0 {
                        text.push(['A', 'B', 'C'][next(3)]);
                    }
                }
                text.push(' ');
            }
            let v = vector::parse_tsvector(&text).expect("tsvector");
            let stored = vector::encode(&v);
            // Decoding into reused space (the previous row's) gives the same tsvector.
            assert!(vector::decode_into(&stored, &mut reused), "{text}");
            assert_eq!(reused, v, "{text}");
            let mut q = String::new();
            for k in 0..1 + next(4) {
                if k > 0 {
                    q.push_str([" & ", " | ", " <-> ", " & !", " <2> !", " | !"][next(6)]);
                }
                q.push_str(words[next(words.len())]);
                match next(5) {
                    0 => q.push_str(":*"),
                    1 if round % 2 == 0 => q.push_str(":A"),
                    _ => {}
                }
            }
            let query = parse_tsquery(&q).expect("tsquery");
            let p = Prepared::new(&query);
            // Ranking without normalization reads only the operands' lexemes too.
            let w = super::super::rank::DEFAULT_WEIGHTS;
            let full = (
                super::super::rank::ts_rank(&w, &v, &query, 0),
                super::super::rank::ts_rank_cd(&w, &v, &query, 0),
            );
            let reduced = p
                .relevant_vector(&stored, &mut scratch)
                .cloned()
                .unwrap_or_else(|| v.clone());
            let part = (
                super::super::rank::ts_rank(&w, &reduced, &query, 0),
                super::super::rank::ts_rank_cd(&w, &reduced, &query, 0),
            );
            assert_eq!(full, part, "ranks of {text} for {q}");
            assert_eq!(
                p.matches_stored(&stored, &mut scratch),
                matches(&v, &query),
                "{text} @@ {q}"
            );
        }
    }
}
