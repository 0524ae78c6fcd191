//! `ts_rewrite(query, target, substitute)`: PostgreSQL's `tsquery_rewrite`. The query and
//! the target are flattened (nested `&` / `|` of one kind become one n-ary node) and
//! their children sorted in `QTNodeCompare` order (with PostgreSQL's own unstable
//! quicksort, `pgsort`); each occurrence of the target (a whole node, or a subset of an
//! n-ary node's children) is replaced by a copy of the substitute, emptied nodes are
//! removed, and the tree is made binary again. Everything runs on an index arena with
//! explicit stacks: no recursion.
//!
//! Differences from PostgreSQL: a result nested deeper than [`MAX_DEPTH`] (a balanced
//! `&` / `|` tree of more than 10000 operands, made one chain) is refused with `54001`,
//! where PostgreSQL's limit is its stack size; rewrites building more than 4 000 000
//! nodes are refused with `54000 tsquery is too large`.

use std::cmp::Ordering;

use super::query::{self, MAX_DEPTH};
use super::{QueryNode, TsError, TsQuery};

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
        // Postfix order: children built before parents.
        let mut built: Vec<usize> = Vec::new();
        for n in root.postorder() {
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
                super::pgsort::pg_qsort(&mut ch, &|a: &usize, b: &usize| self.compare(*a, *b));
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
    use super::*;

    fn q(text: &str) -> TsQuery {
        query::parse_tsquery(text).unwrap()
    }

    fn rewrite(a: &str, b: &str, c: &str) -> String {
        query::to_text(&ts_rewrite(&q(a), &q(b), &q(c)).unwrap())
    }

    // Expected values are PostgreSQL 15's answers.
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
    fn deep_results_are_refused() {
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
