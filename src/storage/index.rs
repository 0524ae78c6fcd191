//! Ordered indexes over a table's row versions.
//!
//! An [`Index`] maps a key — one or more of the table's columns, or immutable
//! expressions over them (`lower(email)`) — to the [`RowId`]s of the versions holding
//! it. An expression is computed once per batch of rows being stored ([`Keys`]), for
//! the rows a partial index takes; the versions already in compute the same value
//! again when the vacuum needs their key, the expression being immutable. As in PostgreSQL, it holds an entry for *every* version, live or
//! dead, committed or not: the table's stamps decide visibility, never the index. An
//! UPDATE's new version gets its own entry; the vacuum removes the entries of versions
//! it frees (and moves those of versions it relocates) before their slots can be
//! reused, under the table's reorganization lock that index readers share.
//!
//! Keys are stored *normalized*: each column's value encoded so that `memcmp` order is
//! the SQL order with the column's direction and NULL placement folded in (the same
//! encoding the sort uses, `exec::sort::normalize`). So one ordered map serves equality,
//! prefix (the leading columns of a multi-column key), range and ordered scans, and a
//! key of several columns is one byte string. Entries are `(key, row id)` pairs in a
//! B-tree; duplicates of a key are adjacent and ordered by row id.
//!
//! Uniqueness is checked by the writer after its versions and their entries are in
//! ([`Index::conflicts`]): another entry with an equal key whose version is live is a
//! violation. NULLs make a key distinct from every other unless the index was created
//! NULLS NOT DISTINCT.

use std::collections::BTreeSet;
use std::ops::Bound;

use parking_lot::RwLock;

use crate::exec::sort::normalize_value;
use crate::exec::vector::Vector;
use crate::types::DataType;

/// A row version's stable address: `(group id << 32) | slot`.
pub type RowId = u64;

pub fn row_id(group: usize, slot: usize) -> RowId {
    ((group as u64) << 32) | slot as u64
}

pub fn split_row_id(id: RowId) -> (usize, usize) {
    ((id >> 32) as usize, (id & 0xffff_ffff) as usize)
}

/// Where expression key parts start in [`KeyPart::column`]: part `column ==
/// EXPR_BASE + k` is the index's expression `k`.
pub const EXPR_BASE: usize = 1 << 30;

/// One column of an index key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyPart {
    /// The table column, or `EXPR_BASE + k` for the index's expression `k`.
    pub column: usize,
    pub desc: bool,
    pub nulls_first: bool,
    /// A B-tree operator class other than the column type's default (pg_opclass oid;
    /// 0: the default). The pattern classes order text as bytes, as kiln's default
    /// (C collation) does, so only the catalogs show them.
    pub opclass: u32,
}

impl KeyPart {
    /// The table column this part is, unless it is an expression.
    pub fn table_column(&self) -> Option<usize> {
        (self.column < EXPR_BASE).then_some(self.column)
    }

    /// The index expression this part is, by position in [`Index::exprs`].
    pub fn expression(&self) -> Option<usize> {
        self.column.checked_sub(EXPR_BASE)
    }
}

/// The values an index's key parts read for a batch of a table's rows: the table's
/// columns themselves, and each key expression evaluated once over the batch (over
/// the rows a partial index takes, so that an expression is never computed for a row
/// it need not be, as PostgreSQL never does).
pub struct Keys<'a> {
    columns: &'a [Vector],
    /// One vector per index expression; the last slot of each is NULL when `at` is
    /// set (the value of the rows the index does not take).
    exprs: Vec<Vector>,
    /// Batch row → position in `exprs`' vectors (None: the same).
    at: Option<Vec<u32>>,
}

impl<'a> Keys<'a> {
    /// The keys of an index without expressions: the columns themselves.
    pub fn plain(columns: &'a [Vector]) -> Keys<'a> {
        Keys {
            columns,
            exprs: Vec::new(),
            at: None,
        }
    }

    /// The vector holding part `p`'s value for batch row `row`, and its position there.
    pub fn value(&self, p: &KeyPart, row: usize) -> (&Vector, usize) {
        match p.expression() {
            None => (&self.columns[p.column], row),
            Some(k) => {
                let at = self.at.as_ref().map_or(row, |a| a[row] as usize);
                (&self.exprs[k], at)
            }
        }
    }
}

/// Whether values of `ty` have a normalized (memcmp-ordered) form an index can store.
pub fn indexable(ty: DataType) -> bool {
    !matches!(
        ty,
        DataType::Numeric
            | DataType::Jsonb
            | DataType::Interval
            | DataType::Array(_)
            | DataType::Record
            | DataType::Unknown
    )
}

pub struct Index {
    /// The catalog's id for it (its oid).
    pub id: u32,
    pub parts: Vec<KeyPart>,
    pub unique: bool,
    pub nulls_not_distinct: bool,
    /// A partial index's WHERE (over the table's columns by position): only versions
    /// it holds for get entries.
    pub predicate: Option<crate::sql::expr::Expr>,
    /// The key expressions (immutable, over the table's columns by position) that
    /// expression parts name.
    pub exprs: Vec<crate::sql::expr::Expr>,
    entries: RwLock<BTreeSet<(Box<[u8]>, RowId)>>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Index({})", self.id)
    }
}

impl Index {
    pub fn new(id: u32, parts: Vec<KeyPart>, unique: bool, nulls_not_distinct: bool) -> Index {
        Index {
            id,
            parts,
            unique,
            nulls_not_distinct,
            predicate: None,
            exprs: Vec::new(),
            entries: RwLock::new(BTreeSet::new()),
        }
    }

    /// An index with key expressions (that parts from `EXPR_BASE` name).
    pub fn with_exprs(mut self, exprs: Vec<crate::sql::expr::Expr>) -> Index {
        self.exprs = exprs;
        self
    }

    /// The type of part `p`'s values, given the table's column types.
    pub fn part_type(&self, p: &KeyPart, types: &[DataType]) -> Option<DataType> {
        match p.expression() {
            Some(k) => self.exprs.get(k).map(|e| e.ty().ty),
            None => types.get(p.column).copied(),
        }
    }

    /// The key values of the first `rows` rows of `columns` (all the table's columns),
    /// of those `admitted` says the index takes (a partial index). Evaluating a key
    /// expression can fail (`10 / a` for a zero): the writer's statement fails with it.
    pub fn keys<'a>(
        &self,
        columns: &'a [Vector],
        rows: usize,
        admitted: Option<&[bool]>,
    ) -> crate::error::Result<Keys<'a>> {
        self.evaluate(columns, rows, admitted, false)
    }

    fn evaluate<'a>(
        &self,
        columns: &'a [Vector],
        rows: usize,
        admitted: Option<&[bool]>,
        lossy: bool,
    ) -> crate::error::Result<Keys<'a>> {
        if self.exprs.is_empty() {
            return Ok(Keys::plain(columns));
        }
        let mut read = vec![false; columns.len()];
        for e in &self.exprs {
            crate::plan::physical::mark_columns(e, &mut read);
        }
        // Only the columns the expressions read are copied into the batch.
        let sparse: Vec<Vector> = columns
            .iter()
            .zip(&read)
            .map(|(c, &r)| {
                if r {
                    c.clone()
                } else {
                    Vector::nulls(DataType::Bool, 0)
                }
            })
            .collect();
        let batch = crate::exec::vector::Batch::new(sparse, rows);
        let sel: Vec<u32> = match admitted {
            Some(a) => (0..rows as u32).filter(|&r| a[r as usize]).collect(),
            None => (0..rows as u32).collect(),
        };
        let ctx = crate::plan::rules::fold::context(crate::types::text::TextFormat::default());
        let mut exprs = Vec::with_capacity(self.exprs.len());
        for e in &self.exprs {
            let mut v = match crate::exec::expr::eval(e, &batch, &sel, &ctx) {
                Ok(v) => v,
                Err(err) if !lossy => return Err(err),
                // Row by row: only the rows that fail (which never got an entry)
                // count as NULL.
                Err(_) => {
                    let mut v = Vector::with_capacity(e.ty().ty, sel.len());
                    for &r in &sel {
                        match crate::exec::expr::eval(e, &batch, &[r], &ctx) {
                            Ok(one) => v.extend_from(&one),
                            Err(_) => v.push_null(),
                        }
                    }
                    v
                }
            };
            if admitted.is_some() {
                v.push_null();
            }
            exprs.push(v);
        }
        let at = admitted.map(|a| {
            let mut next = 0u32;
            let none = sel.len() as u32;
            a[..rows]
                .iter()
                .map(|&taken| {
                    if taken {
                        next += 1;
                        next - 1
                    } else {
                        none
                    }
                })
                .collect()
        });
        Ok(Keys { columns, exprs, at })
    }

    /// [`Index::keys`] of the rows the index takes, for work that cannot fail: the
    /// entries of versions already in (whose expressions were computed once without
    /// error, and being immutable compute the same again). A row whose expression
    /// fails never got an entry (its insert failed, or it was dead when the index was
    /// built): its values count as NULL.
    pub fn keys_of_taken<'a>(&self, columns: &'a [Vector], rows: usize) -> Keys<'a> {
        let admitted = self.admits(columns, rows);
        self.evaluate(columns, rows, admitted.as_deref(), true)
            .unwrap_or_else(|_| Keys {
                columns,
                exprs: self
                    .exprs
                    .iter()
                    .map(|e| Vector::nulls(e.ty().ty, rows))
                    .collect(),
                at: None,
            })
    }

    /// A partial index over the rows `predicate` holds for.
    pub fn with_predicate(mut self, predicate: Option<crate::sql::expr::Expr>) -> Index {
        self.predicate = predicate;
        self
    }

    /// For a partial index, which of the first `rows` rows of `columns` it takes (None:
    /// every row). The predicate is immutable, so it needs no session to evaluate.
    pub fn admits(&self, columns: &[Vector], rows: usize) -> Option<Vec<bool>> {
        let predicate = self.predicate.as_ref()?;
        let batch = crate::exec::vector::Batch::new(columns.to_vec(), rows);
        let ctx = crate::plan::rules::fold::context(crate::types::text::TextFormat::default());
        let sel: Vec<u32> = (0..rows as u32).collect();
        let mut keep = vec![false; rows];
        // A predicate that fails on a row leaves the row out (PostgreSQL would refuse
        // the row; immutable predicates rarely fail).
        if let Ok(kept) = crate::exec::expr::eval_filter(predicate, &batch, &sel, &ctx) {
            for r in kept {
                keep[r as usize] = true;
            }
        }
        Some(keep)
    }

    /// Encodes row `row` of `keys` into `out`; returns whether some key part is NULL.
    pub fn encode(&self, keys: &Keys, row: usize, out: &mut Vec<u8>) -> bool {
        out.clear();
        let mut null = false;
        for p in &self.parts {
            let (v, at) = keys.value(p, row);
            null |= v.is_null(at);
            normalize_value(v, at, p.desc, p.nulls_first, out);
        }
        null
    }

    /// Adds an entry for each `(row of keys, row id)`.
    pub fn insert(&self, keys: &Keys, rows: impl Iterator<Item = (usize, RowId)>) {
        let mut key = Vec::new();
        let mut entries = self.entries.write();
        for (row, id) in rows {
            self.encode(keys, row, &mut key);
            entries.insert((key.as_slice().into(), id));
        }
    }

    /// Adds entries like [`Index::insert`], and appends to `probes` `(row, other)` for
    /// every entry with an equal key already present when the row's goes in: the
    /// candidates a unique check looks at. Checking under the insertion's lock means of
    /// two transactions inserting one key, only the second sees the first.
    pub fn insert_probing(
        &self,
        keys: &Keys,
        rows: impl Iterator<Item = (usize, RowId)>,
        probes: &mut Vec<(usize, RowId)>,
    ) {
        let mut key = Vec::new();
        let mut entries = self.entries.write();
        for (row, id) in rows {
            let null = self.encode(keys, row, &mut key);
            if !null || self.nulls_not_distinct {
                let start: Box<[u8]> = key.as_slice().into();
                for (k, other) in entries.range((Bound::Included((start, 0)), Bound::Unbounded)) {
                    if k.as_ref() != key.as_slice() {
                        break;
                    }
                    probes.push((row, *other));
                }
            }
            entries.insert((key.as_slice().into(), id));
        }
    }

    /// Removes the entry of `(row of keys, row id)`.
    pub fn remove(&self, keys: &Keys, rows: impl Iterator<Item = (usize, RowId)>) {
        let mut key = Vec::new();
        let mut entries = self.entries.write();
        for (row, id) in rows {
            self.encode(keys, row, &mut key);
            entries.remove(&(key.as_slice().into(), id));
        }
    }

    /// Replaces the row id of an entry (the vacuum moved its version); versions a
    /// partial index never took stay without one.
    pub fn relocate(&self, keys: &Keys, moves: impl Iterator<Item = (usize, RowId, RowId)>) {
        let mut key = Vec::new();
        let mut entries = self.entries.write();
        for (row, from, to) in moves {
            self.encode(keys, row, &mut key);
            let k: Box<[u8]> = key.as_slice().into();
            if entries.remove(&(k.clone(), from)) {
                entries.insert((k, to));
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.read().len()
    }

    /// Bytes of memory the entries take, roughly: each key, its row id, and the
    /// tree's per-entry overhead.
    pub fn bytes(&self) -> u64 {
        self.entries
            .read()
            .iter()
            .map(|(k, _)| k.len() as u64 + 8 + 32)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the row ids of entries whose key starts with `prefix` (an encoded key of
    /// the leading columns), in key order.
    pub fn prefix(&self, prefix: &[u8], out: &mut Vec<RowId>) {
        let entries = self.entries.read();
        let start: Box<[u8]> = prefix.into();
        for (k, id) in entries.range((Bound::Included((start, 0)), Bound::Unbounded)) {
            if !k.starts_with(prefix) {
                break;
            }
            out.push(*id);
        }
    }

    /// Appends the row ids of entries with keys between `lower` and `upper` (encoded
    /// keys of the leading columns; a bound compares as a prefix), in key order.
    pub fn range(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>, out: &mut Vec<RowId>) {
        let entries = self.entries.read();
        let start = match lower {
            Bound::Included(k) | Bound::Excluded(k) => Bound::Included((Box::<[u8]>::from(k), 0)),
            Bound::Unbounded => Bound::Unbounded,
        };
        for (k, id) in entries.range((start, Bound::Unbounded)) {
            if let Bound::Excluded(l) = lower
                && k.starts_with(l)
            {
                continue;
            }
            match upper {
                Bound::Included(u) if k.as_ref() > u && !k.starts_with(u) => break,
                Bound::Excluded(u) if k.as_ref() >= u => break,
                _ => {}
            }
            out.push(*id);
        }
    }

    /// Walks the entries between `lower` and `upper` (bounds as [`Index::range`] takes
    /// them) in key order, or backwards, starting just past `cursor` (the last entry an
    /// earlier call handed out, which this call moves on), appending at most `max` row
    /// ids. Returns whether entries may remain.
    pub fn walk(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
        cursor: &mut Option<(Box<[u8]>, RowId)>,
        max: usize,
        out: &mut Vec<RowId>,
    ) -> bool {
        let below_lower = |k: &[u8]| match lower {
            Bound::Included(l) => k < l,
            Bound::Excluded(l) => k < l || k.starts_with(l),
            Bound::Unbounded => false,
        };
        let above_upper = |k: &[u8]| match upper {
            Bound::Included(u) => k > u && !k.starts_with(u),
            Bound::Excluded(u) => k >= u,
            Bound::Unbounded => false,
        };
        let entries = self.entries.read();
        let mut taken = 0;
        let mut take = |k: &[u8], id: RowId, cursor: &mut Option<(Box<[u8]>, RowId)>| {
            if taken == max {
                return false;
            }
            out.push(id);
            taken += 1;
            *cursor = Some((k.into(), id));
            true
        };
        if !reverse {
            let start = match cursor.clone() {
                Some(c) => Bound::Excluded(c),
                None => match lower {
                    Bound::Included(k) | Bound::Excluded(k) => Bound::Included((k.into(), 0)),
                    Bound::Unbounded => Bound::Unbounded,
                },
            };
            for (k, id) in entries.range((start, Bound::Unbounded)) {
                if below_lower(k) {
                    // Keys an excluded lower bound is a prefix of.
                    continue;
                }
                if above_upper(k) || !take(k, *id, cursor) {
                    return !above_upper(k);
                }
            }
        } else {
            let end = match cursor.clone() {
                Some(c) => Bound::Excluded(c),
                None => match upper {
                    Bound::Excluded(u) => Bound::Excluded((u.into(), 0)),
                    Bound::Included(u) => match prefix_successor(u) {
                        Some(next) => Bound::Excluded((next, 0)),
                        None => Bound::Unbounded,
                    },
                    Bound::Unbounded => Bound::Unbounded,
                },
            };
            for (k, id) in entries.range((Bound::Unbounded, end)).rev() {
                if above_upper(k) {
                    continue;
                }
                if below_lower(k) {
                    // Past the bound, or (an excluded bound) among the keys it prefixes.
                    let prefixed = matches!(lower, Bound::Excluded(l) if k.starts_with(l));
                    if prefixed {
                        continue;
                    }
                    return false;
                }
                if !take(k, *id, cursor) {
                    return true;
                }
            }
        }
        false
    }

    /// Removes the entries whose key starts with `prefix` and whose version `dead` says
    /// no snapshot can see any more (PostgreSQL's killed index tuples): lookups of a
    /// key that is updated again and again stay short between vacuums. Returns how
    /// many went.
    pub fn prune(&self, prefix: &[u8], dead: impl Fn(RowId) -> bool) -> usize {
        let mut entries = self.entries.write();
        let start: Box<[u8]> = prefix.into();
        let gone: Vec<(Box<[u8]>, RowId)> = entries
            .range((Bound::Included((start, 0)), Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(prefix))
            .filter(|(_, id)| dead(*id))
            .cloned()
            .collect();
        for e in &gone {
            entries.remove(e);
        }
        gone.len()
    }

    /// The encoded key of row `row` of `keys`.
    pub fn key_of(&self, keys: &Keys, row: usize) -> Vec<u8> {
        let mut key = Vec::new();
        self.encode(keys, row, &mut key);
        key
    }

    /// Every entry in key order (an ordered scan).
    pub fn all(&self, out: &mut Vec<RowId>) {
        out.extend(self.entries.read().iter().map(|(_, id)| *id));
    }

    /// The row ids of other entries whose key equals that of `(row of keys)` — the
    /// candidates a unique check must look at. Empty when the key has a NULL and NULLs
    /// are distinct.
    pub fn same_key(&self, keys: &Keys, row: usize, own: RowId, out: &mut Vec<RowId>) {
        let mut key = Vec::new();
        if self.encode(keys, row, &mut key) && !self.nulls_not_distinct {
            return;
        }
        let entries = self.entries.read();
        let start: Box<[u8]> = key.as_slice().into();
        for (k, id) in entries.range((Bound::Included((start, 0)), Bound::Unbounded)) {
            if k.as_ref() != key.as_slice() {
                break;
            }
            if *id != own {
                out.push(*id);
            }
        }
    }
}

/// Whether every type in `types` at `parts` (the table columns among them) can be
/// indexed.
pub fn parts_indexable(parts: &[KeyPart], types: &[DataType]) -> Option<DataType> {
    parts
        .iter()
        .filter_map(|p| types.get(p.table_column()?).copied())
        .find(|&t| !indexable(t))
}

/// The smallest byte string greater than every string starting with `prefix` (None:
/// there is none, the prefix is all 0xFF).
fn prefix_successor(prefix: &[u8]) -> Option<Box<[u8]>> {
    let mut next = prefix.to_vec();
    while let Some(last) = next.pop() {
        if last < 0xFF {
            next.push(last + 1);
            return Some(next.into());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::vector::Data;

    fn int_column(values: &[i32]) -> Vector {
        Vector::from_data(Data::I32(values.to_vec()))
    }

    fn index(unique: bool) -> Index {
        Index::new(
            1,
            vec![KeyPart {
                column: 0,
                desc: false,
                nulls_first: false,
                opclass: 0,
            }],
            unique,
            false,
        )
    }

    #[test]
    fn prefix_and_range_follow_sql_order() {
        let ix = index(false);
        let col = [int_column(&[5, -3, 7, 5, 100])];
        ix.insert(&Keys::plain(&col), (0..5).map(|r| (r, r as RowId)));
        let key = |v: i32| {
            let mut k = Vec::new();
            ix.encode(&Keys::plain(&[int_column(&[v])]), 0, &mut k);
            k
        };
        let mut out = Vec::new();
        ix.prefix(&key(5), &mut out);
        assert_eq!(out, vec![0, 3]);
        out.clear();
        ix.range(
            Bound::Excluded(&key(-3)),
            Bound::Included(&key(7)),
            &mut out,
        );
        assert_eq!(out, vec![0, 3, 2]);
        out.clear();
        ix.all(&mut out);
        assert_eq!(out, vec![1, 0, 3, 2, 4], "negative keys sort first");
        ix.remove(&Keys::plain(&col), [(3, 3)].into_iter());
        out.clear();
        ix.prefix(&key(5), &mut out);
        assert_eq!(out, vec![0]);
    }

    #[test]
    fn nulls_are_distinct_unless_asked() {
        let mut nulls = Vector::with_capacity(DataType::Int4, 2);
        nulls.push_value(&crate::types::Value::Null);
        nulls.push_value(&crate::types::Value::Null);
        let col = [nulls];
        let keys = Keys::plain(&col);
        let ix = index(true);
        ix.insert(&keys, (0..2).map(|r| (r, r as RowId)));
        let mut out = Vec::new();
        ix.same_key(&keys, 0, 0, &mut out);
        assert!(out.is_empty());
        let strict = Index::new(2, ix.parts.clone(), true, true);
        strict.insert(&keys, (0..2).map(|r| (r, r as RowId)));
        strict.same_key(&keys, 0, 0, &mut out);
        assert_eq!(out, vec![1]);
    }

    #[test]
    fn walks_in_chunks_both_ways() {
        let ix = index(false);
        let col = [int_column(&[5, -3, 7, 5, 100, 6])];
        ix.insert(&Keys::plain(&col), (0..6).map(|r| (r, r as RowId)));
        let key = |v: i32| {
            let mut k = Vec::new();
            ix.encode(&Keys::plain(&[int_column(&[v])]), 0, &mut k);
            k
        };
        let walk_all = |lower: Bound<&[u8]>, upper: Bound<&[u8]>, reverse: bool| {
            let mut cursor = None;
            let mut out = Vec::new();
            let mut calls = 0;
            while ix.walk(lower, upper, reverse, &mut cursor, 2, &mut out) {
                calls += 1;
                assert!(calls < 10, "the walk ends");
            }
            out
        };
        use Bound::*;
        assert_eq!(
            walk_all(Unbounded, Unbounded, false),
            vec![1, 0, 3, 5, 2, 4]
        );
        assert_eq!(walk_all(Unbounded, Unbounded, true), vec![4, 2, 5, 3, 0, 1]);
        let (k5, k7) = (key(5), key(7));
        assert_eq!(walk_all(Excluded(&k5), Included(&k7), false), vec![5, 2]);
        assert_eq!(walk_all(Excluded(&k5), Included(&k7), true), vec![2, 5]);
        assert_eq!(walk_all(Included(&k5), Excluded(&k7), true), vec![5, 3, 0]);
        assert_eq!(walk_all(Included(&k5), Excluded(&k7), false), vec![0, 3, 5]);
    }
}
