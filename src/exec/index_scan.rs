//! Index scan: the rows whose leading key columns equal one of a few key tuples.
//!
//! On its first call the operator evaluates the key expressions (literals, parameters,
//! or a correlated subplan's outer values — so a subplan rerun per outer row is an index
//! nested loop), encodes each tuple as the index encodes keys, sorts and deduplicates the
//! encodings (an IN list's rows come back in key order, as from PostgreSQL's B-tree),
//! and collects the row ids of every entry starting with each. Holding the table's
//! reorganization lock, it keeps the ids whose versions the snapshot sees and copies
//! the needed columns out; then it tests the residual conditions and hands out the rows
//! a batch at a time. A range lookup reads the keys between two bounds under each
//! prefix instead (key order; NULLs never in range).

use std::sync::Arc;

use super::Operator;
use super::context::ExecContext;
use super::expr::{eval, eval_filter, replay_filter};
use super::sort::normalize_value;
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use crate::catalog::TableEntry;
use crate::error::Result;
use crate::plan::physical::IndexLookup;
use crate::storage::index::RowId;

/// Encoded lower and upper bounds of a range lookup.
type KeyBounds = (std::ops::Bound<Vec<u8>>, std::ops::Bound<Vec<u8>>);

pub struct IndexScan {
    table: Arc<TableEntry>,
    lookup: IndexLookup,
    row_ids: bool,
    needed: Option<Vec<bool>>,
    /// The rows found, once looked up, and how many were handed out.
    found: Option<(Batch, Vec<u32>)>,
    offset: usize,
}

impl IndexScan {
    pub fn new(
        table: Arc<TableEntry>,
        lookup: IndexLookup,
        row_ids: bool,
        needed: Option<Vec<bool>>,
    ) -> IndexScan {
        IndexScan {
            table,
            lookup,
            row_ids,
            needed,
            found: None,
            offset: 0,
        }
    }

    /// The encoded key prefixes to look up, sorted and without duplicates; tuples with
    /// a NULL match nothing (`=` is never true for NULL).
    fn prefixes(&self, ctx: &ExecContext) -> Result<Vec<Vec<u8>>> {
        let none = Batch::new(Vec::new(), 1);
        let parts = &self.lookup.index.index.parts;
        let mut out = Vec::with_capacity(self.lookup.keys.len());
        'tuples: for tuple in &self.lookup.keys {
            let mut key = Vec::new();
            for (e, part) in tuple.iter().zip(parts) {
                let v: Vector = eval(e, &none, &[0], ctx)?;
                if v.is_null(0) {
                    continue 'tuples;
                }
                normalize_value(&v, 0, part.desc, part.nulls_first, &mut key);
            }
            out.push(key);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// The encoded bounds of the range lookup under `prefix`, as `Index::range` takes
    /// them; None when a bound is NULL (nothing matches).
    fn range_bounds(
        &self,
        prefix: &[u8],
        range: &crate::plan::physical::KeyRange,
        ctx: &ExecContext,
    ) -> Result<Option<KeyBounds>> {
        use std::ops::Bound;
        let part = self.lookup.index.index.parts[self.lookup.keys[0].len()];
        let none = Batch::new(Vec::new(), 1);
        let encode = |e: &crate::sql::expr::Expr| -> Result<Option<Vec<u8>>> {
            let v: Vector = eval(e, &none, &[0], ctx)?;
            if v.is_null(0) {
                return Ok(None);
            }
            let mut k = prefix.to_vec();
            normalize_value(&v, 0, part.desc, part.nulls_first, &mut k);
            Ok(Some(k))
        };
        // The non-NULL values under the prefix start with marker byte 1.
        let mut all_values = prefix.to_vec();
        all_values.push(1);
        let mut after_values = prefix.to_vec();
        after_values.push(2);
        let mut low: Bound<Vec<u8>> = Bound::Included(all_values);
        let mut high: Bound<Vec<u8>> = Bound::Excluded(after_values);
        // LIKE 'abc%': the keys whose text starts with the literal prefix, an encoded
        // text without its terminator (the index's bounds compare as prefixes).
        if let Some(pattern) = &range.prefix {
            let v: Vector = eval(pattern, &none, &[0], ctx)?;
            if v.is_null(0) {
                return Ok(None);
            }
            let literal = match v.value(0, crate::types::DataType::Text) {
                crate::types::Value::Text(p) => crate::plan::access::like_literal_prefix(&p),
                _ => String::new(),
            };
            if !literal.is_empty() {
                let text = Vector::repeat(
                    &crate::types::Value::Text(literal),
                    crate::types::DataType::Text,
                    1,
                );
                let mut k = prefix.to_vec();
                normalize_value(&text, 0, part.desc, part.nulls_first, &mut k);
                k.pop();
                low = Bound::Included(k.clone());
                high = Bound::Included(k);
            }
        }
        // In a descending key, the SQL lower bound is the byte order's upper one.
        for (b, is_lower) in [(&range.lower, true), (&range.upper, false)] {
            let Some((e, inclusive)) = b else { continue };
            let Some(k) = encode(e)? else {
                return Ok(None);
            };
            let bound = if *inclusive {
                Bound::Included(k)
            } else {
                Bound::Excluded(k)
            };
            if is_lower != part.desc {
                low = bound;
            } else {
                high = bound;
            }
        }
        Ok(Some((low, high)))
    }

    /// The ORDER BY … LIMIT walk: entries in key order (or backwards) a chunk at a
    /// time, each chunk's visible versions tested on the residual conditions, until
    /// `count` rows passed or the range ends.
    fn walk_in_order(
        &self,
        order: &crate::plan::physical::IndexOrder,
        ctx: &ExecContext,
    ) -> Result<Vec<RowId>> {
        use std::ops::Bound;
        let none = Batch::new(Vec::new(), 1);
        let count = eval(&order.count, &none, &[0], ctx)?;
        let need = if count.is_null(0) {
            usize::MAX
        } else {
            match count.value(0, order.count.ty().ty) {
                crate::types::Value::Int8(n) => n.max(0) as usize,
                crate::types::Value::Int4(n) => n.max(0) as usize,
                crate::types::Value::Int2(n) => n.max(0) as usize,
                _ => usize::MAX,
            }
        };
        let mut chosen: Vec<RowId> = Vec::new();
        if need == 0 {
            return Ok(chosen);
        }
        let prefixes = self.prefixes(ctx)?;
        let Some(prefix) = prefixes.first() else {
            return Ok(chosen);
        };
        let (low, high) = match &self.lookup.range {
            Some(range) => match self.range_bounds(prefix, range, ctx)? {
                Some(b) => b,
                None => return Ok(chosen),
            },
            None if prefix.is_empty() => (Bound::Unbounded, Bound::Unbounded),
            None => (
                Bound::Included(prefix.clone()),
                Bound::Included(prefix.clone()),
            ),
        };
        let storage = &self.table.storage;
        let index = &self.lookup.index.index;
        let _reorg = storage.reorg();
        let mut cursor = None;
        let mut chunk = need.saturating_mul(2).clamp(16, 4096);
        let mut ids: Vec<RowId> = Vec::with_capacity(chunk);
        loop {
            ctx.check_interrupt()?;
            ids.clear();
            let more = index.walk(
                bound_ref(&low),
                bound_ref(&high),
                order.reverse,
                &mut cursor,
                chunk,
                &mut ids,
            );
            storage.visible(&mut ids, &ctx.snapshot);
            match &self.lookup.residual {
                None => chosen.extend_from_slice(&ids),
                Some(f) if !ids.is_empty() => {
                    let batch = Batch::new(storage.fetch(&ids, self.needed.as_deref()), ids.len());
                    let all: Vec<u32> = (0..ids.len() as u32).collect();
                    match eval_filter(f, &batch, &all, ctx) {
                        Ok(kept) => chosen.extend(kept.iter().map(|&r| ids[r as usize])),
                        Err(e) => {
                            // Row by row, as PostgreSQL meets them: the error counts only
                            // if it comes before enough rows passed.
                            let replayed = replay_filter(f, &batch, &all, ctx, e)?;
                            for r in replayed.ok {
                                if chosen.len() >= need {
                                    break;
                                }
                                chosen.push(ids[r as usize]);
                            }
                            if chosen.len() >= need {
                                return Ok(chosen);
                            }
                            return Err(replayed.error);
                        }
                    }
                }
                Some(_) => {}
            }
            if !more || chosen.len() >= need {
                return Ok(chosen);
            }
            chunk = (chunk * 2).min(65536);
        }
    }

    fn look_up(&mut self, ctx: &ExecContext) -> Result<(Batch, Vec<u32>)> {
        if let Some(order) = self.lookup.order.clone() {
            let ids = self.walk_in_order(&order, ctx)?;
            let storage = &self.table.storage;
            let mut columns = {
                let _reorg = storage.reorg();
                storage.fetch(&ids, self.needed.as_deref())
            };
            if self.row_ids {
                columns.push(Vector::from_data(Data::I64(
                    ids.iter().map(|&id| id as i64).collect(),
                )));
            }
            let rows = ids.len();
            return Ok((Batch::new(columns, rows), (0..rows as u32).collect()));
        }
        let prefixes = self.prefixes(ctx)?;
        let storage = &self.table.storage;
        let mut ids: Vec<RowId> = Vec::new();
        let mut ranges = Vec::new();
        if let Some(range) = &self.lookup.range {
            for p in &prefixes {
                if let Some(r) = self.range_bounds(p, range, ctx)? {
                    ranges.push(r);
                }
            }
        }
        let columns = {
            let _reorg = storage.reorg();
            if self.lookup.range.is_some() {
                for (low, high) in &ranges {
                    self.lookup
                        .index
                        .index
                        .range(bound_ref(low), bound_ref(high), &mut ids);
                }
            } else {
                for p in &prefixes {
                    self.lookup.index.index.prefix(p, &mut ids);
                }
            }
            let found = ids.len();
            storage.visible(&mut ids, &ctx.snapshot);
            // Invisible versions met here may be garbage for everyone: drop their
            // entries so that the next lookup of a hot key stays short.
            if ids.len() < found && ctx.prune_below != 0 {
                for p in &prefixes {
                    self.lookup
                        .index
                        .index
                        .prune(p, |id| storage.is_dead(id, ctx.prune_below));
                }
            }
            storage.fetch(&ids, self.needed.as_deref())
        };
        let rows = ids.len();
        let mut columns = columns;
        if self.row_ids {
            columns.push(Vector::from_data(Data::I64(
                ids.iter().map(|&id| id as i64).collect(),
            )));
        }
        let batch = Batch::new(columns, rows);
        let all: Vec<u32> = (0..rows as u32).collect();
        let sel = match &self.lookup.residual {
            Some(f) => eval_filter(f, &batch, &all, ctx)?,
            None => all,
        };
        Ok((batch, sel))
    }
}

fn bound_ref(b: &std::ops::Bound<Vec<u8>>) -> std::ops::Bound<&[u8]> {
    match b {
        std::ops::Bound::Included(k) => std::ops::Bound::Included(k.as_slice()),
        std::ops::Bound::Excluded(k) => std::ops::Bound::Excluded(k.as_slice()),
        std::ops::Bound::Unbounded => std::ops::Bound::Unbounded,
    }
}

impl Operator for IndexScan {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.found.is_none() {
            let found = self.look_up(ctx)?;
            self.found = Some(found);
        }
        let Some((batch, sel)) = &mut self.found else {
            return Ok(None);
        };
        if self.offset >= sel.len() {
            return Ok(None);
        }
        let end = (self.offset + BATCH_ROWS_MAX).min(sel.len());
        let out = if self.offset == 0 && end == sel.len() && sel.len() == batch.rows {
            // Everything in one batch: hand it over rather than copy it.
            std::mem::replace(batch, Batch::new(Vec::new(), 0))
        } else {
            let rows = &sel[self.offset..end];
            Batch::new(
                batch.columns.iter().map(|c| c.gather(rows)).collect(),
                rows.len(),
            )
        };
        self.offset = end;
        Ok(Some(out))
    }
}
