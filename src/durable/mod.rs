//! The durable mode (`--data-dir DIR`): a redo log of committed changes, checkpoints,
//! and recovery at start. Without a data directory kiln keeps nothing, as before.
//!
//! ## Design
//!
//! Like PostgreSQL's, the log is written ahead: a transaction's changes are in the log,
//! and the log is on disk (fsync), before its commit is visible or acknowledged. Unlike
//! PostgreSQL's physical WAL (page images and tuple offsets), kiln's log is *logical*
//! and redo-only, because nothing on disk is a page that could be half written: the
//! checkpoint files and the log are the only state, and memory is rebuilt from them.
//!
//! - **What a commit writes** ([`wal`]): for each table it changed, the rows it inserted
//!   and the rows it deleted (an UPDATE is both), as column batches ([`codec`]), then a
//!   `Commit` record; all contiguous, checksummed frame by frame. The rows come from the
//!   transaction's undo log (`session`), so no write path logs anything itself. A
//!   deleted row is named by its *values*, not its row id: row ids change when the vacuum
//!   relocates versions, when ALTER TABLE rewrites a table and when recovery packs rows
//!   anew, while equal values are the same row for every purpose SQL has (replay deletes
//!   one of the rows storing exactly those values — bit for bit, numerics with their
//!   scale). Versions a transaction both inserted and deleted are left out.
//! - **Group commit**: commits append under a short mutex; the first one to need the log
//!   on disk writes and fsyncs everything appended so far, and the others that arrived
//!   meanwhile find their records already durable. `synchronous_commit = off` skips the
//!   wait (a background flush follows within 200 ms), as in PostgreSQL.
//! - **Order**: a commit appends and becomes visible inside the shared side of one
//!   read-write lock (the *barrier*); a checkpoint takes its exclusive side for the
//!   instant of its cut. So every commit is either in the cut's snapshot and before the
//!   cut's log position, or in neither — the snapshot and the log split cleanly. A
//!   transaction that changed the catalog (DDL, roles, ALTER SEQUENCE, TRUNCATE, COMMENT) is not
//!   logged at all: it commits inside the exclusive side and checkpoints before it is
//!   acknowledged, so the log only ever holds row changes against the catalog of the
//!   checkpoint before it, and tables can be named in it by name.
//! - **Checkpoints** ([`checkpoint`]): at the cut the log moves to a new segment; the
//!   catalog is written as SQL ([`dump`], as pg_dump would), with sequences' states and
//!   roles; each table whose rows changed since the last checkpoint gets a new file of
//!   its rows at the cut's snapshot (an unchanged table keeps its file); a manifest
//!   naming all of it replaces the old one by an atomic rename; then older segments and
//!   files no manifest names are deleted. Checkpoints run when the log has grown by
//!   [`CHECKPOINT_BYTES`], on CHECKPOINT, after DDL and at shutdown; apart from the DDL
//!   case, commits go on while the files are written.
//! - **Recovery** ([`recover`]): run the manifest's catalog statements, load the table
//!   files, replay every committed transaction in the segments from the checkpoint's on
//!   (a frame that is short or fails its checksum ends a segment: the torn tail of a
//!   crash; a transaction without its `Commit` is dropped), set sequences, then build
//!   primary keys, indexes and foreign keys over the rows. Indexes are never logged.
//!
//! Errors writing or syncing the log leave no safe way on (a commit may have been
//! acknowledged by the disk and not be there), so they stop the server, as PostgreSQL's
//! PANIC does.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::{Condvar, Mutex, RwLock};

pub mod checkpoint;
pub mod cluster;
pub mod codec;
pub mod dump;
pub mod recover;
pub mod wal;

use crate::Database;
use crate::catalog::TableEntry;
use crate::error::{Error, Result};
use crate::storage::index::RowId;
use crate::storage::mvcc::{TxnId, deleter};
use crate::storage::table::{RowRange, Table, range_ids};

/// Log growth that starts a checkpoint.
pub const CHECKPOINT_BYTES: u64 = 256 << 20;
/// Appended bytes held in memory before they are written to the segment file.
const BUFFER_BYTES: usize = 1 << 20;
/// Rows per batch in the log and in checkpoint files.
const BATCH_ROWS: usize = 8192;

/// A change a committing transaction made, from its undo log.
pub enum Change<'a> {
    Insert(&'a Arc<TableEntry>, RowRange),
    Delete(&'a Arc<TableEntry>, RowId),
}

/// The open log segment.
struct LogFile {
    file: File,
    /// A second handle on the same file, synced outside the append mutex.
    sync: Arc<File>,
    segment: u64,
    /// Appended, not yet written to the file.
    buf: Vec<u8>,
    /// Log position after the last appended byte (bytes ever appended).
    end: u64,
}

impl LogFile {
    fn write_out(&mut self) {
        if !self.buf.is_empty() {
            if let Err(e) = self.file.write_all(&self.buf) {
                panic_io("write the redo log", &e);
            }
            self.buf.clear();
        }
    }

    fn append(&mut self, frames: &[u8]) -> u64 {
        if frames.len() >= BUFFER_BYTES {
            self.write_out();
            if let Err(e) = self.file.write_all(frames) {
                panic_io("write the redo log", &e);
            }
        } else {
            self.buf.extend_from_slice(frames);
            if self.buf.len() >= BUFFER_BYTES {
                self.write_out();
            }
        }
        self.end += frames.len() as u64;
        self.end
    }
}

/// A write or sync of the log failed: what was acknowledged may not be on disk, and
/// nothing later can be promised. PostgreSQL PANICs here too.
fn panic_io(what: &str, e: &std::io::Error) -> ! {
    tracing::error!("PANIC: could not {what}: {e}");
    eprintln!("kiln: PANIC: could not {what}: {e}");
    std::process::abort();
}

/// What the last checkpoint wrote for a table: its file, and the table's count of
/// logged commits then (the file is reused while the count stays).
struct TableFile {
    table: Weak<Table>,
    file: String,
    logged: u64,
}

/// The checkpointer's state; its mutex also keeps checkpoints one at a time.
#[derive(Default)]
struct Files {
    /// By the table storage's address.
    tables: HashMap<usize, TableFile>,
    next_file: u64,
}

pub struct Durability {
    dir: PathBuf,
    /// Held (locked) while the server runs: a second server on the same directory is
    /// refused.
    _lock: File,
    log: Mutex<LogFile>,
    /// Log position known to be on disk.
    durable: AtomicU64,
    flushing: Mutex<()>,
    barrier: RwLock<()>,
    files: Mutex<Files>,
    /// Log bytes appended since the last checkpoint's cut.
    since_checkpoint: AtomicU64,
    /// Wakes the background worker (flush, checkpoint).
    wake: (Mutex<bool>, Condvar),
    stopping: AtomicBool,
}

impl Durability {
    /// Opens (creating it if need be) data directory `dir`, recovers what it holds into
    /// `db`, and starts a new log segment. `db` must be empty and serve no client yet.
    pub fn open(db: &Arc<Database>, dir: &Path) -> Result<Arc<Durability>> {
        let io = |what: &str, e: std::io::Error| {
            Error::new(
                "58030",
                format!("could not {what} \"{}\": {e}", dir.display()),
            )
        };
        std::fs::create_dir_all(dir).map_err(|e| io("create data directory", e))?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("kiln.lock"))
            .map_err(|e| io("open the lock file in", e))?;
        if lock.try_lock().is_err() {
            return Err(Error::new(
                "55006",
                format!(
                    "data directory \"{}\" is in use by another kiln server",
                    dir.display()
                ),
            ));
        }
        let recovered = recover::recover(db, dir)?;
        let segment = recovered.next_segment;
        let file = create_segment(dir, segment).map_err(|e| io("create a log segment in", e))?;
        let sync = Arc::new(
            file.try_clone()
                .map_err(|e| io("open a log segment in", e))?,
        );
        let files = Files {
            tables: recovered
                .clean_files
                .into_iter()
                .map(|(table, file)| {
                    let logged = table.logged();
                    (
                        Arc::as_ptr(&table) as usize,
                        TableFile {
                            table: Arc::downgrade(&table),
                            file,
                            logged,
                        },
                    )
                })
                .collect(),
            next_file: recovered.next_file,
        };
        let d = Arc::new(Durability {
            dir: dir.to_path_buf(),
            _lock: lock,
            log: Mutex::new(LogFile {
                file,
                sync,
                segment,
                buf: Vec::new(),
                end: 0,
            }),
            durable: AtomicU64::new(0),
            flushing: Mutex::new(()),
            barrier: RwLock::new(()),
            files: Mutex::new(files),
            since_checkpoint: AtomicU64::new(recovered.replayed_bytes),
            wake: (Mutex::new(false), Condvar::new()),
            stopping: AtomicBool::new(false),
        });
        tracing::info!(
            "recovered {} from {}: {} tables loaded, {} transactions replayed",
            if recovered.had_checkpoint {
                "a checkpoint"
            } else {
                "no checkpoint"
            },
            dir.display(),
            recovered.tables_loaded,
            recovered.transactions_replayed,
        );
        Ok(d)
    }

    /// Starts the background worker: flushes asynchronous commits, checkpoints when
    /// the log has grown. It ends when `db` goes away or [`Durability::stop`] is called.
    pub fn start_worker(self: &Arc<Self>, db: &Arc<Database>) {
        let (me, db) = (Arc::downgrade(self), Arc::downgrade(db));
        let spawned = std::thread::Builder::new()
            .name("kiln-checkpointer".into())
            .spawn(move || {
                loop {
                    let Some(d) = me.upgrade() else { return };
                    if d.stopping.load(Ordering::Acquire) {
                        return;
                    }
                    {
                        let (lock, cv) = &d.wake;
                        let mut woken = lock.lock();
                        if !*woken {
                            cv.wait_for(&mut woken, Duration::from_millis(200));
                        }
                        *woken = false;
                    }
                    let end = d.log.lock().end;
                    d.flush(end);
                    if d.since_checkpoint.load(Ordering::Relaxed) >= CHECKPOINT_BYTES {
                        let Some(db) = db.upgrade() else { return };
                        if let Err(e) = d.checkpoint(&db) {
                            tracing::error!("checkpoint failed: {}", e.message);
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::error!("could not start the checkpointer: {e}");
        }
    }

    /// Stops the background worker (at shutdown, before the last checkpoint).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.wake_worker();
    }

    fn wake_worker(&self) {
        let (lock, cv) = &self.wake;
        *lock.lock() = true;
        cv.notify_one();
    }

    /// Makes everything logged so far durable (asynchronous commits included).
    pub fn sync(&self) {
        let end = self.log.lock().end;
        self.flush(end);
    }

    /// Makes log position `lsn` durable (group commit: one fsync covers every commit
    /// appended before it).
    fn flush(&self, lsn: u64) {
        if self.durable.load(Ordering::Acquire) >= lsn {
            return;
        }
        let _one = self.flushing.lock();
        if self.durable.load(Ordering::Acquire) >= lsn {
            return;
        }
        let (file, end) = {
            let mut log = self.log.lock();
            log.write_out();
            (log.sync.clone(), log.end)
        };
        if let Err(e) = file.sync_data() {
            panic_io("fsync the redo log", &e);
        }
        self.durable.fetch_max(end, Ordering::AcqRel);
    }

    /// Commits a transaction durably: logs `changes` (or, for a transaction that changed
    /// the catalog, checkpoints), waiting for the disk unless `synchronous` is off, and
    /// calls `make_visible` at the point where the commit is ordered against checkpoints.
    pub fn commit(
        &self,
        db: &Database,
        txn: TxnId,
        catalog_changed: bool,
        changes: &[Change],
        synchronous: bool,
        make_visible: impl FnOnce(),
    ) {
        if catalog_changed {
            let mut files = self.files.lock();
            let cut = self.barrier.write();
            make_visible();
            for c in changes {
                let (Change::Insert(t, _) | Change::Delete(t, _)) = c;
                t.storage.note_logged();
            }
            if let Err(e) = self.checkpoint_locked(db, &mut files, cut, true, false) {
                // The catalog change is visible and not on disk: as a failed log write.
                tracing::error!(
                    "PANIC: checkpoint after a catalog change failed: {}",
                    e.message
                );
                std::process::abort();
            }
            return;
        }
        // Temporary tables are never logged: they go with their session.
        let only_temp = changes.iter().all(|c| {
            let (Change::Insert(t, _) | Change::Delete(t, _)) = c;
            t.temp
        });
        if only_temp {
            make_visible();
            return;
        }
        // Appended a piece at a time (a large transaction is never encoded whole in
        // memory), each piece under the log's mutex; frames carry the transaction's id,
        // so other commits' frames may come between them. All inside the barrier's shared
        // side: a transaction's frames are all in one segment, on one side of any cut.
        let _shared = self.barrier.read();
        let mut lsn = 0;
        let mut bytes = 0u64;
        encode_changes(db, txn, changes, |frames| {
            lsn = self.log.lock().append(frames);
            bytes += frames.len() as u64;
        });
        for c in changes {
            let (Change::Insert(t, _) | Change::Delete(t, _)) = c;
            t.storage.note_logged();
        }
        if synchronous {
            self.flush(lsn);
        }
        make_visible();
        drop(_shared);
        let grown = self.since_checkpoint.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if grown >= CHECKPOINT_BYTES {
            self.wake_worker();
        }
    }

    /// Logs sequence `name`'s state after a nextval (or, `exact`, a setval) when the
    /// log must know it ([`Sequence::log_point`]: 1 nextval in 32). The state is read
    /// under the log's mutex, so records of racing calls are in the order of the states
    /// they saw. The record is written to the file at once (surviving a crash of the
    /// process) and synced with the next commit, as in PostgreSQL.
    ///
    /// [`Sequence::log_point`]: crate::catalog::sequence::Sequence::log_point
    pub fn sequence(&self, name: &str, seq: &crate::catalog::sequence::Sequence, exact: bool) {
        let _shared = self.barrier.read();
        let mut log = self.log.lock();
        let Some((last, called)) = seq.log_point(exact) else {
            return;
        };
        let mut p = Vec::with_capacity(name.len() + 24);
        wal::sequence_payload(name, &mut p);
        p.extend_from_slice(&last.to_le_bytes());
        p.push(called as u8);
        let mut frame = Vec::with_capacity(p.len() + 8);
        wal::frame(&p, &mut frame);
        log.append(&frame);
        log.write_out();
        self.since_checkpoint
            .fetch_add(frame.len() as u64, Ordering::Relaxed);
    }

    /// CHECKPOINT: writes a checkpoint now.
    pub fn checkpoint(&self, db: &Database) -> Result<()> {
        let mut files = self.files.lock();
        let cut = self.barrier.write();
        self.checkpoint_locked(db, &mut files, cut, false, false)
    }

    /// The checkpoint at shutdown, when no session runs any more: sequences are kept
    /// exactly (no values skipped after a clean restart).
    pub fn shutdown_checkpoint(&self, db: &Database) -> Result<()> {
        let mut files = self.files.lock();
        let cut = self.barrier.write();
        self.checkpoint_locked(db, &mut files, cut, false, true)
    }

    /// Moves the log to a new segment after syncing the old one; returns the new
    /// segment's number. The caller holds the barrier exclusively.
    fn switch_segment(&self) -> Result<u64> {
        let _one = self.flushing.lock();
        let mut log = self.log.lock();
        log.write_out();
        if let Err(e) = log.file.sync_data() {
            panic_io("fsync the redo log", &e);
        }
        self.durable.fetch_max(log.end, Ordering::AcqRel);
        let next = log.segment + 1;
        let file = create_segment(&self.dir, next).map_err(|e| {
            Error::new("58030", format!("could not create log segment {next}: {e}"))
        })?;
        let sync =
            Arc::new(file.try_clone().map_err(|e| {
                Error::new("58030", format!("could not open log segment {next}: {e}"))
            })?);
        log.file = file;
        log.sync = sync;
        log.segment = next;
        Ok(next)
    }
}

/// What the durable state of `db` amounts to, as comparable lines: the catalog's
/// statements and, per table, the multiset of its visible rows (as sorted row hashes).
/// Two databases with equal contents give equal lines (tests compare a live database
/// with one recovered from its directory).
pub fn contents(db: &Database) -> Vec<String> {
    let (snapshot, _pin) = db.txns.pinned_snapshot(crate::storage::mvcc::TXN_NONE);
    let d = dump::dump(&db.catalog, &snapshot, true);
    let mut out: Vec<String> = d.before_data.iter().chain(&d.after_data).cloned().collect();
    let p = checkpoint::Privileges::of(db, &snapshot);
    let mut relations: Vec<String> = p
        .relations
        .iter()
        .map(|(name, owner, acl)| format!("privileges of {name}: owner {owner}, {acl:?}"))
        .collect();
    relations.sort();
    out.extend(relations);
    out.push(format!(
        "privileges: schemas {:?}, database {:?}, defaults {:?}",
        p.schemas, p.database, p.defaults
    ));
    let mut sel = Vec::new();
    for t in &d.tables {
        let mut hashes = Vec::new();
        for g in t.storage.groups() {
            sel.clear();
            g.visible_rows(&snapshot, 0, g.rows(), &mut sel);
            hashes.extend(sel.iter().map(|&r| codec::row_hash(&g.columns, r as usize)));
        }
        hashes.sort_unstable();
        out.push(format!(
            "{}: {} rows {:?}",
            db.catalog.durable_name(t),
            hashes.len(),
            hashes
        ));
    }
    out
}

/// Creates segment `n` and makes its directory entry durable.
fn create_segment(dir: &Path, n: u64) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(wal::segment_path(dir, n))?;
    sync_dir(dir)?;
    Ok(file)
}

pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The log frames of one committing transaction `txn` — its inserted rows and its
/// deleted rows per table, then `Commit` — handed to `emit` in pieces of about
/// [`BUFFER_BYTES`].
fn encode_changes(db: &Database, txn: TxnId, changes: &[Change], mut emit: impl FnMut(&[u8])) {
    // Per table (by storage), in first-change order: inserted and deleted row ids.
    type PerTable<'a> = (&'a Arc<TableEntry>, Vec<RowId>, Vec<RowId>);
    fn slot<'a>(tables: &mut Vec<PerTable<'a>>, t: &'a Arc<TableEntry>) -> usize {
        match tables
            .iter()
            .position(|(seen, _, _)| Arc::ptr_eq(&seen.storage, &t.storage))
        {
            Some(i) => i,
            None => {
                tables.push((t, Vec::new(), Vec::new()));
                tables.len() - 1
            }
        }
    }
    let mut tables: Vec<PerTable> = Vec::new();
    for c in changes {
        match c {
            Change::Insert(t, range) => {
                let i = slot(&mut tables, t);
                for (_, id) in range_ids(std::slice::from_ref(range)) {
                    // A version this transaction also deleted never existed for others.
                    let deleted_by_us = t
                        .storage
                        .stamps(id)
                        .is_some_and(|(_, xmax)| deleter(xmax) == txn);
                    if !deleted_by_us {
                        tables[i].1.push(id);
                    }
                }
            }
            Change::Delete(t, id) => {
                let i = slot(&mut tables, t);
                let ours = t
                    .storage
                    .stamps(*id)
                    .is_some_and(|(xmin, xmax)| xmin != txn && deleter(xmax) == txn);
                if ours {
                    tables[i].2.push(*id);
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut payload = Vec::new();
    for (_, _, deleted) in &mut tables {
        deleted.sort_unstable();
        deleted.dedup();
    }
    for (t, inserted, deleted) in &tables {
        if t.temp {
            continue;
        }
        let name = db.catalog.durable_name(t);
        for (kind, ids) in [(wal::INSERT, inserted), (wal::DELETE, deleted)] {
            for chunk in ids.chunks(BATCH_ROWS) {
                let columns = t.storage.fetch(chunk, None);
                payload.clear();
                wal::payload_start(kind, txn, &name, &mut payload);
                codec::encode_batch(&columns, chunk.len(), &mut payload);
                wal::frame(&payload, &mut out);
                if out.len() >= BUFFER_BYTES {
                    emit(&out);
                    out.clear();
                }
            }
        }
    }
    payload.clear();
    wal::commit_payload(txn, &mut payload);
    wal::frame(&payload, &mut out);
    emit(&out);
}
