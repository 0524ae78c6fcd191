//! Sorting, with a top-N path for `ORDER BY … LIMIT`.
//!
//! Input is gathered into dense columns, then a permutation of row indices is sorted.
//! A single non-NULL integer key sorts `(key, row)` pairs — flat, cache-friendly, and
//! stable by construction. Other keys use a comparator that walks the key columns in
//! order with direction and NULL placement. With a limit, `select_nth_unstable_by`
//! partitions off the first N rows before sorting only those.

use std::cmp::Ordering;

use super::context::ExecContext;
use super::expr::compare_rows;
use super::ops::eval_count;
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use super::{BoxedOperator, Operator};
use crate::error::Result;
use crate::plan::SortKey;
use crate::sql::expr::Expr;

pub struct SortOp {
    input: BoxedOperator,
    keys: Vec<SortKey>,
    limit: Option<Expr>,
    sorted: Option<(Vec<Vector>, Vec<u32>)>,
    emitted: usize,
}

impl SortOp {
    pub fn new(input: BoxedOperator, keys: Vec<SortKey>, limit: Option<Expr>) -> SortOp {
        SortOp {
            input,
            keys,
            limit,
            sorted: None,
            emitted: 0,
        }
    }

    fn consume(&mut self, ctx: &ExecContext) -> Result<()> {
        let mut columns: Option<Vec<Vector>> = None;
        let mut rows = 0usize;
        while let Some(b) = self.input.next(ctx)? {
            let b = b.compact();
            rows += b.rows;
            match &mut columns {
                None => columns = Some(b.columns),
                Some(cols) => {
                    for (c, src) in cols.iter_mut().zip(&b.columns) {
                        c.extend_from(src);
                    }
                }
            }
        }
        let columns = columns.unwrap_or_default();
        if rows == 0 {
            self.sorted = Some((columns, Vec::new()));
            return Ok(());
        }
        let limit = eval_count(&self.limit, ctx, "LIMIT")?.map(|l| l.min(rows as u64) as usize);
        let mut perm: Vec<u32> = (0..rows as u32).collect();
        let keys = &self.keys;
        let single_int = match keys.as_slice() {
            [k] => match &columns[k.column].data {
                Data::I32(v) if columns[k.column].nulls.is_none() => {
                    Some((v.iter().map(|&x| x as i64).collect::<Vec<_>>(), k.desc))
                }
                Data::I64(v) if columns[k.column].nulls.is_none() => Some((v.clone(), k.desc)),
                _ => None,
            },
            _ => None,
        };
        if let Some((vals, desc)) = single_int {
            let mut pairs: Vec<(i64, u32)> = vals
                .iter()
                .enumerate()
                .map(|(i, &v)| (if desc { !v } else { v }, i as u32))
                .collect();
            match limit {
                Some(n) if n < rows => {
                    if n > 0 {
                        pairs.select_nth_unstable(n - 1);
                    }
                    pairs.truncate(n);
                    pairs.sort_unstable();
                }
                _ => pairs.sort_unstable(),
            }
            perm = pairs.into_iter().map(|(_, i)| i).collect();
        } else {
            let cmp = |a: &u32, b: &u32| -> Ordering {
                for k in keys {
                    let c = &columns[k.column];
                    let (i, j) = (*a as usize, *b as usize);
                    let o = match (c.is_null(i), c.is_null(j)) {
                        (true, true) => Ordering::Equal,
                        (true, false) => {
                            if k.nulls_first {
                                Ordering::Less
                            } else {
                                Ordering::Greater
                            }
                        }
                        (false, true) => {
                            if k.nulls_first {
                                Ordering::Greater
                            } else {
                                Ordering::Less
                            }
                        }
                        (false, false) => {
                            let o = compare_rows(&c.data, i, &c.data, j);
                            if k.desc { o.reverse() } else { o }
                        }
                    };
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.cmp(b)
            };
            match limit {
                Some(n) if n < rows => {
                    if n > 0 {
                        perm.select_nth_unstable_by(n - 1, cmp);
                    }
                    perm.truncate(n);
                    perm.sort_unstable_by(cmp);
                }
                _ => perm.sort_unstable_by(cmp),
            }
        }
        self.sorted = Some((columns, perm));
        Ok(())
    }
}

impl Operator for SortOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.sorted.is_none() {
            self.consume(ctx)?;
        }
        let Some((columns, perm)) = &self.sorted else {
            return Ok(None);
        };
        if self.emitted >= perm.len() {
            return Ok(None);
        }
        ctx.check_interrupt()?;
        let end = (self.emitted + BATCH_ROWS_MAX).min(perm.len());
        let idx = &perm[self.emitted..end];
        let out = columns.iter().map(|c| c.gather(idx)).collect();
        self.emitted = end;
        Ok(Some(Batch::new(out, idx.len())))
    }
}
