//! Cursors: DECLARE, FETCH, MOVE and CLOSE (psycopg's named cursors, psql's FETCH_COUNT).
//!
//! A cursor is its query's row stream, opened at DECLARE (its snapshot is the
//! DECLARE's), read only as far as FETCH asks. Rows read are kept for moving back — all
//! of them for a scrollable cursor, none before the position for NO SCROLL (which
//! refuses to move back, 55000, as PostgreSQL does). PostgreSQL lets a cursor declared
//! without either word scroll when its plan can run backward; kiln keeps rows, so such
//! a cursor always scrolls. The position follows PostgreSQL's portal: 0 before the
//! first row, `n` on row `n`, one past the last after it; ABSOLUTE/RELATIVE/FIRST/LAST
//! reach a row as PostgreSQL's PortalRunFetch does, and MOVE counts what FETCH would
//! return.
//!
//! Cursors end with their transaction, except WITH HOLD ones: at COMMIT their rest is
//! read (PostgreSQL materializes them too) and they stay until CLOSE or the session
//! ends; a rollback of the transaction that declared one drops it.

use super::{Outcome, RowStream, Session};
use crate::error::{Error, Result};
use crate::exec::vector::{Batch, Vector};
use crate::plan::{FetchDirection, OutputColumn};
use crate::types::Value;

pub struct Cursor {
    pub columns: Vec<OutputColumn>,
    /// Rows not read yet; None once read to the end.
    source: Option<Box<RowStream>>,
    /// Rows read and kept: `rows[0]` is row number `base + 1`.
    rows: Vec<Vec<Value>>,
    base: i64,
    /// Rows in all, once the source is read to its end.
    total: Option<i64>,
    /// 0: before the first row; `n`: on row `n`; `total + 1`: after the last.
    pos: i64,
    scroll: bool,
    pub hold: bool,
    /// A WITH HOLD cursor whose transaction committed (a later rollback keeps it).
    pub committed: bool,
    /// DECLARE … BINARY.
    pub binary: bool,
    /// The query string that declared it and when (pg_cursors).
    statement: String,
    created: i64,
}

fn no_backward() -> Error {
    Error::new("55000", "cursor can only scan forward")
        .with_hint("Declare it with SCROLL option to enable backward scan.")
}

impl Cursor {
    pub fn new(
        columns: Vec<OutputColumn>,
        source: Box<RowStream>,
        scroll: bool,
        hold: bool,
    ) -> Cursor {
        Cursor {
            columns,
            source: Some(source),
            rows: Vec::new(),
            base: 0,
            total: None,
            pos: 0,
            scroll,
            hold,
            committed: false,
            binary: false,
            statement: String::new(),
            created: 0,
        }
    }

    /// Reads from the source until row `n` is read or the rows end.
    fn read_to(&mut self, n: i64) -> Result<()> {
        while self.total.is_none() && self.base + (self.rows.len() as i64) < n {
            let Some(source) = self.source.as_mut() else {
                break;
            };
            match source.next_batch()? {
                Some(batch) => {
                    for r in batch.selection() {
                        let r = r as usize;
                        self.rows.push(
                            batch
                                .columns
                                .iter()
                                .zip(&self.columns)
                                .map(|(v, c)| v.value(r, c.ty.ty))
                                .collect(),
                        );
                    }
                }
                None => {
                    self.total = Some(self.base + self.rows.len() as i64);
                    self.source = None;
                }
            }
        }
        Ok(())
    }

    /// Reads the rest (WITH HOLD at COMMIT: the snapshot goes with the transaction).
    pub fn read_all(&mut self) -> Result<()> {
        self.read_to(i64::MAX)
    }

    /// Row `n`, if it exists (read first).
    fn row(&mut self, n: i64) -> Result<Option<Vec<Value>>> {
        if n < 1 {
            return Ok(None);
        }
        self.read_to(n)?;
        let i = n - self.base - 1;
        Ok(usize::try_from(i)
            .ok()
            .and_then(|i| self.rows.get(i))
            .cloned())
    }

    fn after_end(&self) -> i64 {
        self.total.map_or(i64::MAX, |t| t + 1)
    }

    /// Moves as `dir` says; returns the rows passed over (when `keep`) and their count.
    pub fn fetch(&mut self, dir: FetchDirection, keep: bool) -> Result<(Vec<Vec<Value>>, i64)> {
        let mut out = Vec::new();
        let mut count = 0i64;
        let (forward, n) = match dir {
            FetchDirection::Forward(n) if n < 0 => (false, -n),
            FetchDirection::Forward(n) => (true, n),
            FetchDirection::Backward(n) if n < 0 => (true, -n),
            FetchDirection::Backward(n) => (false, n),
            FetchDirection::Absolute(k) => return self.absolute(k, keep),
            FetchDirection::Relative(k) => return self.relative(k, keep),
        };
        if forward && n == 0 {
            // FORWARD 0 re-reads the current row.
            return self.relative(0, keep);
        }
        if !forward {
            if !self.scroll {
                return Err(no_backward());
            }
            if n == 0 {
                return self.relative(0, keep);
            }
            while count < n {
                let k = self.pos.min(self.after_end()) - 1;
                if k < 1 {
                    self.pos = 0;
                    break;
                }
                if let Some(row) = self.row(k)?
                    && keep
                {
                    out.push(row);
                }
                self.pos = k;
                count += 1;
            }
            return Ok((out, count));
        }
        while count < n {
            let k = self.pos + 1;
            match self.row(k)? {
                Some(row) => {
                    if keep {
                        out.push(row);
                    }
                    self.pos = k;
                    count += 1;
                }
                None => {
                    self.pos = self.after_end();
                    break;
                }
            }
        }
        self.forget_passed();
        Ok((out, count))
    }

    fn absolute(&mut self, k: i64, keep: bool) -> Result<(Vec<Vec<Value>>, i64)> {
        let target = if k >= 0 {
            k
        } else {
            if !self.scroll {
                return Err(no_backward());
            }
            self.read_all()?;
            (self.after_end() + k).max(0)
        };
        if !self.scroll && target <= self.pos {
            return Err(no_backward());
        }
        self.land(target, keep)
    }

    fn relative(&mut self, k: i64, keep: bool) -> Result<(Vec<Vec<Value>>, i64)> {
        if k <= 0 && !self.scroll {
            return Err(no_backward());
        }
        let from = self.pos.min(self.after_end());
        self.land((from + k).max(0), keep)
    }

    /// Goes to row `target` (0: before the first): the row if it exists, else the end.
    fn land(&mut self, target: i64, keep: bool) -> Result<(Vec<Vec<Value>>, i64)> {
        if target == 0 {
            self.pos = 0;
            return Ok((Vec::new(), 0));
        }
        match self.row(target)? {
            Some(row) => {
                self.pos = target;
                self.forget_passed();
                Ok((if keep { vec![row] } else { Vec::new() }, 1))
            }
            None => {
                self.pos = self.after_end();
                Ok((Vec::new(), 0))
            }
        }
    }

    /// NO SCROLL keeps no row it has passed.
    fn forget_passed(&mut self) {
        if self.scroll {
            return;
        }
        let passed = (self.pos - self.base).clamp(0, self.rows.len() as i64) as usize;
        self.rows.drain(..passed);
        self.base += passed as i64;
    }
}

impl Session {
    /// The columns of cursor `name` (a protocol Describe of it as a portal).
    pub fn cursor_columns(&self, name: &str) -> Option<Vec<OutputColumn>> {
        self.cursors.get(name).map(|c| c.columns.clone())
    }

    /// The open cursors as pg_cursors shows them (empty, without allocating, when there
    /// are none).
    pub(super) fn cursor_infos(&self) -> std::sync::Arc<[crate::exec::context::CursorInfo]> {
        if self.cursors.is_empty() {
            return std::sync::Arc::from(Vec::new());
        }
        self.cursors
            .iter()
            .map(|(name, c)| crate::exec::context::CursorInfo {
                name: name.clone(),
                statement: c.statement.clone(),
                holdable: c.hold,
                binary: c.binary,
                scrollable: c.scroll,
                created: c.created,
            })
            .collect()
    }

    /// DECLARE: the query runs (its snapshot is this statement's) as far as the first
    /// FETCH asks.
    pub(super) fn declare_cursor(
        &mut self,
        prepared: &super::Prepared,
        ctx: crate::exec::context::ExecContext,
        name: &str,
        query: &crate::plan::BoundStatement,
        (scroll, hold, binary): (Option<bool>, bool, bool),
    ) -> Result<Outcome> {
        if self.cursors.contains_key(name) {
            return Err(Error::new(
                "42P03",
                format!("cursor \"{name}\" already exists"),
            ));
        }
        let inner = super::Prepared {
            statement: Some(query.clone()),
            ..prepared.clone()
        };
        let Outcome::Rows(stream) = self.run(&inner, ctx)? else {
            return Err(Error::internal("a cursor's query gave no rows"));
        };
        let columns = stream.columns.clone();
        let mut cursor = Cursor::new(columns, stream, scroll != Some(false), hold);
        cursor.binary = binary;
        cursor.statement = prepared.sql.clone();
        cursor.created = super::now_micros();
        self.cursors.insert(name.to_string(), cursor);
        Ok(Outcome::Done {
            tag: "DECLARE CURSOR".into(),
        })
    }

    /// FETCH / MOVE.
    pub(super) fn fetch_cursor(
        &mut self,
        name: &str,
        dir: FetchDirection,
        is_move: bool,
    ) -> Result<Outcome> {
        let cursor = self
            .cursors
            .get_mut(name)
            .ok_or_else(|| Error::new("34000", format!("cursor \"{name}\" does not exist")))?;
        let (rows, count) = cursor.fetch(dir, !is_move)?;
        if is_move {
            return Ok(Outcome::Done {
                tag: format!("MOVE {count}"),
            });
        }
        let columns = cursor.columns.clone();
        let mut vectors: Vec<Vector> = columns
            .iter()
            .map(|c| Vector::with_capacity(c.ty.ty, rows.len()))
            .collect();
        for row in &rows {
            for (v, value) in vectors.iter_mut().zip(row) {
                v.push_value(value);
            }
        }
        let binary = cursor.binary;
        let batch = Batch::new(vectors, rows.len());
        let ctx = self.exec_context(self.writer);
        let mut stream = RowStream::returned(columns, vec![batch], format!("FETCH {count}"), ctx);
        stream.binary = binary;
        Ok(Outcome::Rows(Box::new(stream)))
    }

    /// CLOSE name | ALL.
    pub(super) fn close_cursor(&mut self, name: Option<&str>) -> Result<Outcome> {
        match name {
            None => {
                self.cursors.clear();
                return Ok(Outcome::Done {
                    tag: "CLOSE CURSOR ALL".into(),
                });
            }
            Some(n) => {
                if self.cursors.remove(n).is_none() {
                    return Err(Error::new(
                        "34000",
                        format!("cursor \"{n}\" does not exist"),
                    ));
                }
            }
        }
        Ok(Outcome::Done {
            tag: "CLOSE CURSOR".into(),
        })
    }

    /// The transaction ends: cursors go, but WITH HOLD ones of a commit, read to their
    /// end now (and those of earlier commits, on a rollback).
    pub(super) fn end_cursors(&mut self, committed: bool) {
        if self.cursors.is_empty() {
            return;
        }
        self.cursors.retain(|_, c| {
            if !c.hold {
                return false;
            }
            if committed && !c.committed {
                // A failure to read it to the end leaves the cursor closed.
                if c.read_all().is_err() {
                    return false;
                }
                c.committed = true;
            }
            c.committed
        });
    }
}
