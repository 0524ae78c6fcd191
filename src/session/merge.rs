//! MERGE, run: the joined rows' actions read once, then stored.
//!
//! The plan (`sql::binder::merge`) yields `[action, target row id, UPDATE's row,
//! INSERT's row]` for every source row joined to the target. All of it is read first,
//! under the statement's snapshot, so what MERGE stores never feeds its own join. A
//! target row that two source rows would both UPDATE or DELETE is 21000, before
//! anything is stored. Then the deletes, the updates and the inserts go through the
//! same paths as DELETE, UPDATE and INSERT (claims and waits, constraints, unique
//! checks, foreign keys): each kind in the join's order, deletes before updates before
//! inserts — where PostgreSQL acts row by row in the join's order, an INSERT of a key
//! that a later source row DELETEs fails there and succeeds here. A row another
//! transaction changed meanwhile (READ COMMITTED) is left alone, not re-joined.

use std::collections::HashSet;

use super::Session;
use crate::catalog::TableEntry;
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::exec::ops::BatchesOp;
use crate::exec::vector::{Batch, Data, Vector};
use crate::exec::{self};
use crate::plan::MergeAction;
use crate::plan::physical::Plan;
use crate::storage::mvcc::TxnId;

impl Session {
    pub(super) fn run_merge(
        &mut self,
        table: &std::sync::Arc<TableEntry>,
        source: &Plan,
        actions: &[MergeAction],
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<u64> {
        let n = table.columns.len();
        let mut op = exec::build(source);
        let mut deletes: Vec<i64> = Vec::new();
        let mut updates: Vec<Batch> = Vec::new();
        let mut inserts: Vec<Batch> = Vec::new();
        let mut touched: HashSet<i64> = HashSet::new();
        while let Some(b) = op.next(ctx)? {
            let b = b.compact();
            let (Data::I32(action), Data::I64(ids)) = (&b.columns[0].data, &b.columns[1].data)
            else {
                return Err(Error::internal("MERGE plan lost its action columns"));
            };
            let mut update_rows: Vec<u32> = Vec::new();
            let mut insert_rows: Vec<u32> = Vec::new();
            for r in 0..b.rows {
                if b.columns[0].is_null(r) {
                    continue;
                }
                let what = usize::try_from(action[r] - 1)
                    .ok()
                    .and_then(|k| actions.get(k).copied());
                match what {
                    Some(MergeAction::Update | MergeAction::Delete) => {
                        if !touched.insert(ids[r]) {
                            return Err(Error::new(
                                "21000",
                                "MERGE command cannot affect row a second time",
                            )
                            .with_hint(
                                "Ensure that not more than one source row matches any one target row.",
                            ));
                        }
                        if what == Some(MergeAction::Delete) {
                            deletes.push(ids[r]);
                        } else {
                            update_rows.push(r as u32);
                        }
                    }
                    Some(MergeAction::Insert) => insert_rows.push(r as u32),
                    Some(MergeAction::Nothing) | None => {}
                }
            }
            if !update_rows.is_empty() {
                // The new row, then the row id: what UPDATE's plan yields.
                let mut columns: Vec<Vector> = b.columns[2..2 + n]
                    .iter()
                    .map(|c| c.gather(&update_rows))
                    .collect();
                columns.push(b.columns[1].gather(&update_rows));
                updates.push(Batch::new(columns, update_rows.len()));
            }
            if !insert_rows.is_empty() {
                let columns: Vec<Vector> = b.columns[2 + n..2 + 2 * n]
                    .iter()
                    .map(|c| c.gather(&insert_rows))
                    .collect();
                inserts.push(Batch::new(columns, insert_rows.len()));
            }
        }
        let mut count = 0;
        if !deletes.is_empty() {
            let rows = deletes.len();
            let ids = Batch::new(vec![Vector::from_data(Data::I64(deletes))], rows);
            let op = Box::new(BatchesOp::new(vec![ids]));
            count += self.run_delete(table, op, ctx, txn, None, None, &mut Vec::new())?;
        }
        if !updates.is_empty() {
            let op = Box::new(BatchesOp::new(updates));
            count += self.run_update(table, op, ctx, txn, None, None, &mut Vec::new())?;
        }
        if !inserts.is_empty() {
            let op = Box::new(BatchesOp::new(inserts));
            count += self.run_insert(table, op, ctx, txn, None, &mut Vec::new())?;
        }
        Ok(count)
    }
}
