//! Joins: a hash join for conditions with equalities, a nested loop for the rest.
//!
//! Both are one operator. The right input (the *build* side) is read first and kept as
//! the dense batches it arrived in; a build row is named by a ref `(batch << 32) | row`,
//! as in the sort. With equality keys, a hash table maps each key to a chain of build
//! rows — specialized for one integer key (`i64`) and for two (`(i64, i64)`), encoded
//! bytes otherwise ([`super::keys`]: equal SQL values, equal bytes). A build row with a
//! NULL key is never inserted: NULL never equals anything. Without keys every build row
//! is a candidate for every left row (a nested loop).
//!
//! The left input is probed a batch at a time. Each left row's candidates are paired
//! with it, a chunk of pairs at a time (at most [`PAIRS_CHUNK_MAX`]); the residual
//! condition (whatever is not an equality key) is evaluated over the pairs as one
//! batch — left columns gathered by row, right columns by ref — and what survives is
//! emitted according to the kind:
//!
//! | kind | output |
//! |---|---|
//! | inner | matched pairs |
//! | left / full | matched pairs, then each left row without a match with NULLs on the right |
//! | right / full | … and at the end each build row never matched, NULLs on the left |
//! | single | as left, but `21000` when a left row matches twice (a scalar subquery) |
//! | semi / anti | each left row with / without a match, once, left columns only |
//! | anti (null-aware) | NOT IN: no row passes if the build side has a NULL key; a left row with a NULL key passes only when the build side is empty |
//!
//! The build side is charged to the statement's memory (`53200` past
//! `kiln.max_query_memory`).

use std::collections::VecDeque;
use std::sync::Arc;

use hashbrown::HashMap;

use super::context::ExecContext;
use super::expr::{eval, eval_filter};
use super::keyfilter::KeyFilter;
use super::keys;
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use super::{BoxedOperator, Operator};
use crate::error::{Error, Result};
use crate::plan::logical::JoinKind;
use crate::sql::expr::Expr;
use crate::types::{DataType, Value};

/// Candidate pairs evaluated (and gathered) at once.
const PAIRS_CHUNK_MAX: usize = BATCH_ROWS_MAX * 4;
/// End of a hash chain.
const NONE: u32 = u32::MAX;

type Hasher = foldhash::fast::FixedState;

/// What the physical plan says about a join.
pub struct JoinSpec {
    pub kind: JoinKind,
    /// Hand the build keys to the probe side's scan (see [`super::keyfilter`]).
    pub key_filter: bool,
    /// Equality keys: `left_keys[i] = right_keys[i]` (empty: a nested loop).
    pub left_keys: Vec<Expr>,
    pub right_keys: Vec<Expr>,
    /// The rest of the condition, over left columns then right columns.
    pub residual: Option<Expr>,
    /// Types of the left and right positions (None: a position no parent reads).
    pub left_types: Vec<Option<DataType>>,
    pub right_types: Vec<Option<DataType>>,
}

enum Table {
    /// Every build row is a candidate.
    All,
    Int(HashMap<i64, u32, Hasher>),
    Int2(HashMap<(i64, i64), u32, Hasher>),
    Bytes(HashMap<Vec<u8>, u32, Hasher>),
}

/// The build side, read.
struct Build {
    batches: Vec<Batch>,
    /// Refs of the build rows in the order they arrived (index = global row number).
    refs: Vec<u64>,
    /// Chains: `next[row]` is the next build row with the same key.
    next: Vec<u32>,
    table: Table,
    has_null_key: bool,
    /// Right/full joins: which build rows matched some left row.
    matched: Vec<bool>,
}

pub struct JoinOp {
    left: BoxedOperator,
    right: Option<BoxedOperator>,
    spec: JoinSpec,
    build: Option<Build>,
    /// The left batch being probed (dense), its keys, and how far the probe got.
    probe: Option<Probe>,
    out: VecDeque<Batch>,
    left_done: bool,
    finished: bool,
    /// The build keys, published for the probe side's scan.
    key_filter: Option<Arc<KeyFilter>>,
}

/// Build rows a hash table is sized for up front (see `read_build`).
const BUILD_RESERVE_ROWS_MAX: usize = 1 << 16;

struct Probe {
    batch: Batch,
    /// Per left row: its first candidate build row (`NONE`: none).
    heads: Vec<u32>,
    /// Per left row: matches found so far.
    matches: Vec<u32>,
    row: usize,
    /// Position in the current row's chain (the next candidate).
    cursor: u32,
}

impl JoinOp {
    pub fn new(mut left: BoxedOperator, right: BoxedOperator, spec: JoinSpec) -> JoinOp {
        let mut key_filter = None;
        // Probe rows without a partner are dropped by these kinds only.
        let drops = matches!(
            spec.kind,
            JoinKind::Inner
                | JoinKind::Semi
                | JoinKind::Right
                | JoinKind::RightSemi
                | JoinKind::RightAnti
        );
        if spec.key_filter
            && drops
            && matches!(table_for(&spec.right_keys), Table::Int(_) | Table::Int2(_))
            && let Some(Expr::Column { index, ty, .. }) = spec.left_keys.first()
            && ty.ty.is_integer()
        {
            let f = Arc::new(KeyFilter::default());
            if left.push_key_filter(*index, &f) {
                key_filter = Some(f);
            }
        }
        JoinOp {
            left,
            right: Some(right),
            spec,
            build: None,
            probe: None,
            out: VecDeque::new(),
            left_done: false,
            finished: false,
            key_filter,
        }
    }

    /// Publishes the first key of every build row for the probe side's scan.
    fn publish_keys(&self, table: &Table) {
        let Some(f) = &self.key_filter else { return };
        match table {
            Table::Int(m) => f.publish(m.keys().copied(), m.len()),
            Table::Int2(m) => {
                let firsts: hashbrown::HashSet<i64, Hasher> = m.keys().map(|k| k.0).collect();
                f.publish(firsts.iter().copied(), firsts.len());
            }
            _ => {}
        }
    }

    fn read_build(&mut self, ctx: &ExecContext) -> Result<Build> {
        let mut right = self
            .right
            .take()
            .ok_or_else(|| Error::internal("join build side read twice"))?;
        let mut batches = Vec::new();
        let mut refs = Vec::new();
        let mut key_vectors: Vec<Vec<Vector>> = Vec::new();
        while let Some(b) = right.next(ctx)? {
            let b = b.compact();
            if b.rows == 0 {
                continue;
            }
            ctx.charge_memory(
                b.columns.iter().map(|c| c.heap_bytes()).sum::<usize>() + b.rows * 12,
            )?;
            let sel: Vec<u32> = (0..b.rows as u32).collect();
            let keys = self
                .spec
                .right_keys
                .iter()
                .map(|k| eval(k, &b, &sel, ctx))
                .collect::<Result<Vec<_>>>()?;
            let index = batches.len() as u64;
            refs.extend((0..b.rows as u64).map(|r| (index << 32) | r));
            key_vectors.push(keys);
            batches.push(b);
        }
        let rows = refs.len();
        let mut next = vec![
            NONE;
            if self.spec.right_keys.is_empty() {
                0
            } else {
                rows
            }
        ];
        let mut has_null_key = false;
        let mut table = table_for(&self.spec.right_keys);
        // At most one entry per build row: a small build is sized once, never rehashed.
        // A large one grows as it fills: its keys may repeat, and a table sized for
        // every row would spread the distinct ones over far more memory.
        let room = rows.min(BUILD_RESERVE_ROWS_MAX);
        match &mut table {
            Table::All => {}
            Table::Int(m) => m.reserve(room),
            Table::Int2(m) => m.reserve(room),
            Table::Bytes(m) => m.reserve(room),
        }
        let mut global = 0u32;
        let mut scratch = Vec::new();
        for keys in &key_vectors {
            let n = keys.first().map_or(0, |k| k.len());
            for i in 0..n {
                let row = global + i as u32;
                if keys.iter().any(|k| k.is_null(i)) {
                    has_null_key = true;
                    continue;
                }
                let head = match &mut table {
                    Table::All => continue,
                    Table::Int(m) => m.entry(int_key(&keys[0], i)).or_insert(NONE),
                    Table::Int2(m) => m
                        .entry((int_key(&keys[0], i), int_key(&keys[1], i)))
                        .or_insert(NONE),
                    Table::Bytes(m) => {
                        scratch.clear();
                        for k in keys {
                            encode_key(k, i, &mut scratch);
                        }
                        match m.get_mut(scratch.as_slice()) {
                            Some(h) => h,
                            None => m.entry(scratch.clone()).or_insert(NONE),
                        }
                    }
                };
                next[row as usize] = *head;
                *head = row;
            }
            global += n as u32;
        }
        self.publish_keys(&table);
        let matched = if matches!(
            self.spec.kind,
            JoinKind::Right | JoinKind::Full | JoinKind::RightSemi | JoinKind::RightAnti
        ) {
            vec![false; rows]
        } else {
            Vec::new()
        };
        Ok(Build {
            batches,
            refs,
            next,
            table,
            has_null_key,
            matched,
        })
    }

    /// Starts probing a left batch: finds each row's first candidate.
    fn start_probe(&self, batch: Batch, ctx: &ExecContext) -> Result<Probe> {
        let Some(build) = &self.build else {
            return Err(Error::internal("probe before build"));
        };
        let n = batch.rows;
        let empty_build = build.refs.is_empty();
        let heads = match &build.table {
            Table::All => vec![if empty_build { NONE } else { 0 }; n],
            table => {
                let sel: Vec<u32> = (0..n as u32).collect();
                let keys = self
                    .spec
                    .left_keys
                    .iter()
                    .map(|k| eval(k, &batch, &sel, ctx))
                    .collect::<Result<Vec<_>>>()?;
                let mut heads = vec![NONE; n];
                let mut scratch = Vec::new();
                for (i, h) in heads.iter_mut().enumerate() {
                    if keys.iter().any(|k| k.is_null(i)) {
                        continue;
                    }
                    *h = match table {
                        Table::All => NONE,
                        Table::Int(m) => m.get(&int_key(&keys[0], i)).copied().unwrap_or(NONE),
                        Table::Int2(m) => m
                            .get(&(int_key(&keys[0], i), int_key(&keys[1], i)))
                            .copied()
                            .unwrap_or(NONE),
                        Table::Bytes(m) => {
                            scratch.clear();
                            for k in &keys {
                                encode_key(k, i, &mut scratch);
                            }
                            m.get(scratch.as_slice()).copied().unwrap_or(NONE)
                        }
                    };
                }
                heads
            }
        };
        Ok(Probe {
            matches: vec![0; n],
            cursor: heads.first().copied().unwrap_or(NONE),
            heads,
            batch,
            row: 0,
        })
    }

    /// Advances the probe by one chunk of candidate pairs; returns false when the left
    /// batch is done.
    fn probe_chunk(&mut self, ctx: &ExecContext) -> Result<bool> {
        let (Some(build), Some(probe)) = (&mut self.build, &mut self.probe) else {
            return Ok(false);
        };
        let all = matches!(build.table, Table::All);
        let total = build.refs.len() as u32;
        let mut left_rows: Vec<u32> = Vec::new();
        let mut right_rows: Vec<u32> = Vec::new();
        // Semi/anti joins without a residual only need to know whether a chain exists.
        let existence_only = self.spec.residual.is_none()
            && matches!(
                self.spec.kind,
                JoinKind::Semi | JoinKind::Anti | JoinKind::AntiNullAware
            );
        // Right semi/anti joins without a residual mark every build row of a matching
        // chain; a chain whose head is marked was marked whole before.
        let mark_only = self.spec.residual.is_none()
            && matches!(self.spec.kind, JoinKind::RightSemi | JoinKind::RightAnti);
        while probe.row < probe.batch.rows && left_rows.len() < PAIRS_CHUNK_MAX {
            let r = probe.row;
            if mark_only {
                let mut cursor = probe.heads[r];
                if cursor != NONE && !build.matched[cursor as usize] {
                    while cursor != NONE {
                        build.matched[cursor as usize] = true;
                        cursor = if all {
                            if cursor + 1 < total { cursor + 1 } else { NONE }
                        } else {
                            build.next[cursor as usize]
                        };
                    }
                }
                probe.row += 1;
                probe.cursor = probe.heads.get(probe.row).copied().unwrap_or(NONE);
                continue;
            }
            if existence_only {
                if probe.heads[r] != NONE {
                    probe.matches[r] = 1;
                }
                probe.row += 1;
                probe.cursor = probe.heads.get(probe.row).copied().unwrap_or(NONE);
                continue;
            }
            while probe.cursor != NONE && left_rows.len() < PAIRS_CHUNK_MAX {
                left_rows.push(r as u32);
                right_rows.push(probe.cursor);
                probe.cursor = if all {
                    if probe.cursor + 1 < total {
                        probe.cursor + 1
                    } else {
                        NONE
                    }
                } else {
                    build.next[probe.cursor as usize]
                };
            }
            if probe.cursor == NONE {
                probe.row += 1;
                probe.cursor = probe.heads.get(probe.row).copied().unwrap_or(NONE);
            }
        }
        if !left_rows.is_empty() {
            let pairs = pair_batch(&self.spec, &probe.batch, build, &left_rows, &right_rows);
            let keep: Vec<u32> = match &self.spec.residual {
                Some(cond) => {
                    let sel: Vec<u32> = (0..left_rows.len() as u32).collect();
                    eval_filter(cond, &pairs, &sel, ctx)?
                }
                None => (0..left_rows.len() as u32).collect(),
            };
            for &k in &keep {
                let l = left_rows[k as usize] as usize;
                probe.matches[l] += 1;
                if !build.matched.is_empty() {
                    build.matched[right_rows[k as usize] as usize] = true;
                }
            }
            match self.spec.kind {
                JoinKind::Single => {
                    if probe.matches.iter().any(|&m| m > 1) {
                        return Err(Error::new(
                            "21000",
                            "more than one row returned by a subquery used as an expression",
                        ));
                    }
                    self.out.push_back(select_rows(pairs, keep));
                }
                JoinKind::Inner | JoinKind::Left | JoinKind::Right | JoinKind::Full => {
                    if !keep.is_empty() {
                        self.out.push_back(select_rows(pairs, keep));
                    }
                }
                JoinKind::Semi
                | JoinKind::Anti
                | JoinKind::AntiNullAware
                | JoinKind::Mark
                | JoinKind::RightSemi
                | JoinKind::RightAnti => {}
            }
        }
        if probe.row < probe.batch.rows {
            return Ok(true);
        }
        // The left batch is done: emit what depends on whole-row match counts.
        let Some(probe) = self.probe.take() else {
            return Ok(false);
        };
        let Some(build) = &self.build else {
            return Ok(false);
        };
        let unmatched = |m: &u32| *m == 0;
        let rows: Vec<u32> = match self.spec.kind {
            JoinKind::Left | JoinKind::Full | JoinKind::Single => {
                positions(&probe.matches, unmatched)
            }
            JoinKind::Semi => positions(&probe.matches, |m| *m > 0),
            JoinKind::Anti => positions(&probe.matches, unmatched),
            JoinKind::AntiNullAware => {
                if build.refs.is_empty() {
                    (0..probe.batch.rows as u32).collect()
                } else if build.has_null_key {
                    Vec::new()
                } else {
                    let sel: Vec<u32> = (0..probe.batch.rows as u32).collect();
                    let keys = self
                        .spec
                        .left_keys
                        .iter()
                        .map(|k| eval(k, &probe.batch, &sel, ctx))
                        .collect::<Result<Vec<_>>>()?;
                    (0..probe.batch.rows)
                        .filter(|&i| probe.matches[i] == 0 && !keys.iter().any(|k| k.is_null(i)))
                        .map(|i| i as u32)
                        .collect()
                }
            }
            JoinKind::Inner
            | JoinKind::Right
            | JoinKind::Mark
            | JoinKind::RightSemi
            | JoinKind::RightAnti => Vec::new(),
        };
        if !rows.is_empty() {
            let out = match self.spec.kind {
                JoinKind::Semi | JoinKind::Anti | JoinKind::AntiNullAware => {
                    select_rows(probe.batch, rows)
                }
                _ => left_with_nulls(&self.spec, &probe.batch, &rows),
            };
            self.out.push_back(out);
        }
        Ok(false)
    }

    /// Right/full joins: the build rows no left row matched, with NULLs on the left;
    /// right semi/anti joins: the build rows some left row matched / none did, alone.
    fn unmatched_build(&mut self) {
        let Some(build) = &self.build else { return };
        let want_matched = match self.spec.kind {
            JoinKind::Right | JoinKind::Full | JoinKind::RightAnti => false,
            JoinKind::RightSemi => true,
            _ => return,
        };
        let pad_left = self.spec.kind.emits_left();
        let rows: Vec<u32> = positions(&build.matched, |m| *m == want_matched);
        for chunk in rows.chunks(BATCH_ROWS_MAX) {
            let mut columns: Vec<Vector> = if pad_left {
                self.spec
                    .left_types
                    .iter()
                    .map(|t| null_column(*t, chunk.len()))
                    .collect()
            } else {
                Vec::new()
            };
            let refs: Vec<u64> = chunk.iter().map(|&r| build.refs[r as usize]).collect();
            columns.extend(gather_build(build, &refs, &self.spec.right_types));
            self.out.push_back(Batch::new(columns, chunk.len()));
        }
    }
}

impl Operator for JoinOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        loop {
            if let Some(b) = self.out.pop_front() {
                if b.live_rows() == 0 {
                    continue;
                }
                return Ok(Some(b));
            }
            if self.finished {
                return Ok(None);
            }
            ctx.check_interrupt()?;
            if self.build.is_none() {
                let build = self.read_build(ctx)?;
                self.build = Some(build);
            }
            if self.probe.is_some() {
                self.probe_chunk(ctx)?;
                continue;
            }
            if self.left_done {
                self.unmatched_build();
                self.finished = true;
                continue;
            }
            match self.left.next(ctx)? {
                Some(b) => {
                    let b = b.compact();
                    if b.rows > 0 {
                        self.probe = Some(self.start_probe(b, ctx)?);
                    }
                }
                None => self.left_done = true,
            }
        }
    }

    fn push_key_filter(&mut self, col: usize, filter: &Arc<KeyFilter>) -> bool {
        // An output row carries its left row's values (NULL-padded rows carry NULL,
        // which the filter's join drops anyway), so dropping by a left column here is
        // dropping left rows. Right columns come from the build side, read on this
        // join's first batch: after the filter's own join has published its keys.
        let left_width = self.spec.left_types.len();
        if matches!(
            self.spec.kind,
            // Single: its 21000 for a row with two partners must not depend on the
            // filter. Right semi/anti: the output columns are the build side's.
            JoinKind::Single | JoinKind::RightSemi | JoinKind::RightAnti
        ) {
            return false;
        }
        if col < left_width {
            return self.left.push_key_filter(col, filter);
        }
        match (&mut self.right, self.spec.kind) {
            (Some(right), JoinKind::Inner | JoinKind::Left) => {
                right.push_key_filter(col - left_width, filter)
            }
            _ => false,
        }
    }
}

fn table_for(keys: &[Expr]) -> Table {
    let hasher = Hasher::default;
    let int = |e: &Expr| e.ty().ty.is_integer();
    match keys {
        [] => Table::All,
        [k] if int(k) => Table::Int(HashMap::with_hasher(hasher())),
        [a, b] if int(a) && int(b) => Table::Int2(HashMap::with_hasher(hasher())),
        _ => Table::Bytes(HashMap::with_hasher(hasher())),
    }
}

#[inline]
fn int_key(v: &Vector, i: usize) -> i64 {
    match &v.data {
        Data::I16(x) => x[i] as i64,
        Data::I32(x) => x[i] as i64,
        Data::I64(x) => x[i],
        _ => 0,
    }
}

/// A key's bytes (`char(n)` keys arrive cast to text, their trailing blanks gone).
fn encode_key(v: &Vector, i: usize, out: &mut Vec<u8>) {
    keys::encode(v, i, out);
}

/// Left columns gathered by row, right columns by build ref.
///
/// A position no parent reads (its type is `None`) is left empty in every batch the
/// join emits, whatever its input held: a sort or a hash build above gathers across
/// batches and needs each position either always filled or always empty.
fn pair_batch(
    spec: &JoinSpec,
    left: &Batch,
    build: &Build,
    left_rows: &[u32],
    right_rows: &[u32],
) -> Batch {
    let mut columns = gather_left(spec, left, left_rows);
    let refs: Vec<u64> = right_rows.iter().map(|&r| build.refs[r as usize]).collect();
    columns.extend(gather_build(build, &refs, &spec.right_types));
    Batch::new(columns, left_rows.len())
}

fn gather_left(spec: &JoinSpec, left: &Batch, rows: &[u32]) -> Vec<Vector> {
    left.columns
        .iter()
        .enumerate()
        .map(|(i, c)| match spec.left_types.get(i) {
            Some(None) => null_column(None, 0),
            _ => c.gather(rows),
        })
        .collect()
}

fn gather_build(build: &Build, refs: &[u64], types: &[Option<DataType>]) -> Vec<Vector> {
    let width = build.batches.first().map_or(0, |b| b.columns.len());
    (0..width)
        .map(|c| {
            if let Some(None) = types.get(c) {
                return null_column(None, 0);
            }
            let sources: Vec<&Vector> = build.batches.iter().map(|b| &b.columns[c]).collect();
            Vector::gather_refs(&sources, refs)
        })
        .collect()
}

/// Left rows `rows` with NULLs for every right column.
fn left_with_nulls(spec: &JoinSpec, left: &Batch, rows: &[u32]) -> Batch {
    let mut columns = gather_left(spec, left, rows);
    columns.extend(spec.right_types.iter().map(|t| null_column(*t, rows.len())));
    Batch::new(columns, rows.len())
}

fn null_column(ty: Option<DataType>, rows: usize) -> Vector {
    match ty {
        Some(t) => Vector::repeat(&Value::Null, t, rows),
        // A position no parent reads stays empty, as a scan leaves unread columns.
        None => Vector::with_capacity(DataType::Bool, 0),
    }
}

/// The batch restricted to `rows` (as a selection).
fn select_rows(mut batch: Batch, rows: Vec<u32>) -> Batch {
    if rows.len() != batch.rows {
        batch.sel = Some(rows);
    }
    batch
}

fn positions<T>(v: &[T], pred: impl Fn(&T) -> bool) -> Vec<u32> {
    v.iter()
        .enumerate()
        .filter(|(_, x)| pred(x))
        .map(|(i, _)| i as u32)
        .collect()
}
