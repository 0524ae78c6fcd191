//! A session: one client's transaction state, settings, prepared statements and portals.
//!
//! ## Transactions
//!
//! ```text
//!   Idle ──BEGIN──▶ InBlock ──error──▶ Failed ──ROLLBACK/COMMIT──▶ Idle
//!    │                 └──COMMIT/ROLLBACK──▶ Idle
//!    └─ any other statement: an implicit transaction that commits at the end of the
//!       simple-query string (or at Sync in the extended protocol), or rolls back on error
//! ```
//!
//! A transaction gets a transaction id at its first write and keeps an undo log of what it stamped (inserted row
//! ranges, deleted rows, created and dropped tables); ROLLBACK replays it backwards
//! before the id leaves the in-progress list. A statement that fails inside a block
//! rolls the block back at once (its row locks go), unless savepoints keep it. READ
//! COMMITTED reads each statement through a fresh snapshot; REPEATABLE READ and
//! SERIALIZABLE through the transaction's first (`TxnState`).
//!
//! ## Bound statements go stale
//!
//! A statement is bound against the catalog version one snapshot sees and may run under a
//! later one: a prepared statement runs many times, and any statement binds before it
//! waits for its table locks (`storage::locks`, taken here before the statement's
//! snapshot, held until the transaction ends; released after its commit is visible, so
//! a waiter's snapshot sees what the holder did). So before a statement runs, the
//! session checks that every table
//! it was bound to is still the version its snapshot sees, and binds it again if not —
//! the way PostgreSQL's plan cache revalidates. A prepared statement whose result
//! columns would change fails with `0A000` "cached plan must not change result type",
//! as in PostgreSQL, since the client may already hold its RowDescription.
//!
//! ## Where the parts live
//!
//! This file: the `Session`, binding, the statement dispatch (`execute`, `run`) and row
//! streams. `txn`: the transaction's life, savepoints, the undo log. `locking`: the
//! table locks a statement takes. `write`: INSERT/UPDATE/DELETE storing rows and
//! constraints; `foreign_keys`, `alter`, `ddl`: keys, ALTER TABLE, DROP and CREATE VIEW.
//! `copy`, `cursor`, `prepared`, `roles`, `discard`: COPY, cursors, SQL PREPARE/EXECUTE,
//! roles, DISCARD / RESET ALL / LISTEN-NOTIFY at commit. `settings`: SET/SHOW.

mod alter;
pub mod copy;
mod cursor;
mod databases;
mod ddl;
mod discard;
mod extensions;
mod foreign_keys;
mod locking;
mod merge;
mod prepared;
pub mod privileges;
mod renames;
mod roles;
mod schemas;
pub mod settings;
mod txn;
mod types;
mod views;
mod write;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use sqlparser::ast::Statement;

use crate::Database;
use crate::catalog::sequence::SessionSequences;
use crate::catalog::{RelKind, TableEntry};
use crate::error::{Error, Result};
use crate::exec::context::{CancelFlag, ExecContext, SequenceAccess};
use crate::exec::vector::Batch;
use crate::exec::{self, BoxedOperator};
use crate::plan::physical::Op;
use crate::plan::{
    BoundStatement, Isolation, OutputColumn, Plan, Returning, TransactionOp, TxnModes,
};
use crate::sql::binder::Binder;
use crate::sql::parse;
use crate::storage::index::RowId;
use crate::storage::locks::LockMode;
use crate::storage::mvcc::{TXN_NONE, TxnId, WaitLimits};
use crate::storage::table::RowRange;
use crate::storage::vacuum;
use crate::types::datetime::{UNIX_EPOCH_DAYS, USECS_PER_DAY};
use crate::types::text::TextFormat;
use crate::types::{DataType, SqlType, Value};
use settings::Settings;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnStatus {
    Idle,
    /// An implicit transaction around a statement or a multi-statement string.
    Implicit,
    InBlock,
    Failed,
}

impl TxnStatus {
    /// The ReadyForQuery indicator.
    pub fn indicator(self) -> u8 {
        match self {
            TxnStatus::Idle | TxnStatus::Implicit => b'I',
            TxnStatus::InBlock => b'T',
            TxnStatus::Failed => b'E',
        }
    }
}

enum Undo {
    Insert(Arc<TableEntry>, RowRange),
    Delete(Arc<TableEntry>, RowId),
    CreateTable(Arc<TableEntry>),
    DropTable(Arc<TableEntry>),
    /// A sequence as it was before ALTER SEQUENCE.
    Sequence(
        Arc<crate::catalog::sequence::Sequence>,
        crate::catalog::sequence::SequenceImage,
    ),
    /// A role as it was before CREATE / ALTER / DROP ROLE (None: it did not exist).
    Role(String, Option<crate::auth::Role>),
    /// A comment as it was before COMMENT ON: (object, column, text).
    Comment(u32, String, Option<String>),
    /// Role memberships as they were before GRANT / REVOKE role.
    Memberships(Vec<crate::auth::Membership>),
    /// ALTER ROLE … SET's entries as they were before it.
    RoleSettings(Vec<crate::auth::RoleSetting>),
    /// CREATE SCHEMA's new schema.
    CreateSchema(Arc<crate::catalog::namespace::Namespace>),
    /// A schema's old version and the new one replacing it (RENAME, OWNER TO, GRANT).
    ReplaceSchema(
        Arc<crate::catalog::namespace::Namespace>,
        Arc<crate::catalog::namespace::Namespace>,
    ),
    /// DROP SCHEMA's schema.
    DropSchema(Arc<crate::catalog::namespace::Namespace>),
    /// A new version of a user-defined type (CREATE TYPE, ALTER TYPE) and the one it
    /// replaced, if any.
    TypeVersion(
        Arc<crate::catalog::types::UserType>,
        Option<Arc<crate::catalog::types::UserType>>,
    ),
    /// DROP TYPE's type.
    DropType(Arc<crate::catalog::types::UserType>),
    /// CREATE EXTENSION's record.
    CreateExtension(Arc<crate::catalog::extension::Extension>),
    /// DROP EXTENSION's record.
    DropExtension(Arc<crate::catalog::extension::Extension>),
    /// A database's ACL before GRANT / REVOKE on it.
    DatabaseAcl(Arc<Database>, Option<crate::catalog::acl::Acl>),
    /// ALTER DEFAULT PRIVILEGES' entries before it ran.
    DefaultAcls(Vec<crate::catalog::acl::DefaultAcl>),
}

/// The table-lock key of the catalog itself: DDL takes it in ACCESS EXCLUSIVE mode, so
/// catalog changes (and the names they create) go one transaction at a time. No table
/// has oid 0.
pub const CATALOG_LOCK: u32 = 0;

/// A parsed and bound statement (the extended protocol's prepared statement).
#[derive(Clone)]
pub struct Prepared {
    pub sql: String,
    /// The parsed statement, kept to bind it again when a table it names changes.
    pub ast: Option<Arc<Statement>>,
    /// None for an empty query.
    pub statement: Option<BoundStatement>,
    pub param_types: Vec<SqlType>,
    pub columns: Option<Vec<OutputColumn>>,
    /// The table versions the statement was bound to.
    pub tables: Vec<Arc<TableEntry>>,
    /// The privileges it needs on them (checked each time it runs).
    pub access: Vec<crate::catalog::acl::Access>,
    /// A statement the client prepared (Parse): it may have described its result
    /// columns already, so binding again must not change them.
    pub cached: bool,
}

/// What executing a statement produced.
pub enum Outcome {
    Rows(Box<RowStream>),
    /// COPY FROM STDIN: the client sends the data next.
    CopyIn(Box<copy::CopyIn>),
    /// COPY TO STDOUT: rows to write in a COPY format.
    CopyOut(Box<copy::CopyOut>),
    Done {
        tag: String,
    },
    Empty,
}

/// A running query whose batches the wire layer pulls.
pub struct RowStream {
    op: BoxedOperator,
    pub ctx: ExecContext,
    pub columns: Vec<OutputColumn>,
    /// Rows of a batch that an Execute row limit left unsent.
    pub pending: Option<Batch>,
    pub rows_sent: u64,
    finished: bool,
    /// The command tag when it is not `SELECT n` (DML with RETURNING).
    tag: Option<String>,
    /// A BINARY cursor's FETCH: the simple query protocol sends its rows in binary.
    pub binary: bool,
}

impl RowStream {
    /// The CommandComplete tag once every row is sent.
    pub fn command_tag(&self) -> String {
        match &self.tag {
            Some(t) => t.clone(),
            None => format!("SELECT {}", self.rows_sent),
        }
    }

    pub fn next_batch(&mut self) -> Result<Option<Batch>> {
        if let Some(b) = self.pending.take() {
            return Ok(Some(b));
        }
        if self.finished {
            return Ok(None);
        }
        match self.op.next(&self.ctx)? {
            Some(b) => Ok(Some(b)),
            None => {
                self.finished = true;
                Ok(None)
            }
        }
    }

    fn from_rows(columns: Vec<OutputColumn>, rows: Vec<Vec<Value>>, ctx: ExecContext) -> RowStream {
        let types = columns.iter().map(|c| c.ty).collect::<Vec<_>>();
        let n = rows.len() as f64;
        let plan = Plan::new(
            Op::Values {
                rows: rows
                    .into_iter()
                    .map(|r| {
                        r.into_iter()
                            .zip(&types)
                            .map(|(v, t)| crate::sql::expr::Expr::literal(v, *t))
                            .collect()
                    })
                    .collect(),
                types,
            },
            n,
        );
        RowStream {
            op: exec::build(&plan),
            ctx,
            columns,
            pending: None,
            rows_sent: 0,
            finished: false,
            tag: None,
            binary: false,
        }
    }

    /// A DML statement's RETURNING rows, computed already, answered under `tag`.
    fn returned(
        columns: Vec<OutputColumn>,
        batches: Vec<Batch>,
        tag: String,
        ctx: ExecContext,
    ) -> RowStream {
        RowStream {
            op: Box::new(exec::ops::BatchesOp::new(batches)),
            ctx,
            columns,
            pending: None,
            rows_sent: 0,
            finished: false,
            tag: Some(tag),
            binary: false,
        }
    }
}

pub struct Session {
    pub db: Arc<Database>,
    /// The server the database belongs to (held, so it outlives the session).
    pub cluster: Arc<crate::Cluster>,
    pub settings: Settings,
    pub user: String,
    pub status: TxnStatus,
    writer: TxnId,
    undo: Vec<Undo>,
    /// Open savepoints: name and undo-log position.
    savepoints: Vec<(String, usize)>,
    /// What the transaction's SETs are undone to (see [`SettingsStack`]).
    settings_stack: SettingsStack,
    txn_start_micros: i64,
    /// The start time of the transaction a statement bound while idle will run in:
    /// fixed at bind, so `'now'` in the text and `now()` agree (PostgreSQL starts the
    /// transaction before it parses).
    pending_start: std::cell::Cell<Option<i64>>,
    /// When the running statement hits statement_timeout (lock waits included).
    statement_deadline: Option<Instant>,
    pub cancel: Arc<CancelFlag>,
    pub prepared: HashMap<String, Arc<Prepared>>,
    /// Notices queued for the client (warnings such as "no transaction in progress").
    pub notices: Vec<(String, String, String)>,
    /// NOTICEs raised while executing statements (`ExecContext::notice`).
    pub exec_notices: crate::exec::context::ExecNotices,
    /// Warnings of the last parse, with their positions (22P06 for backslashes in
    /// literals under standard_conforming_strings = off); sent before `notices`.
    pub parse_warnings: std::cell::RefCell<Vec<Error>>,
    /// NOTICEs of the last bind (a view made temporary); sent before `notices`.
    pub bind_notices: std::cell::RefCell<Vec<String>>,
    /// The session's temporary namespace (pg_temp_N), once it made one.
    temp_ns: Option<u32>,
    /// The temporary tables with an ON COMMIT action other than PRESERVE ROWS, by oid.
    on_commit: Vec<(u32, crate::plan::OnCommit)>,
    /// While CREATE SCHEMA runs its elements: the path they resolve names by (the new
    /// schema) and the role that owns what they make.
    path_override: Option<crate::catalog::namespace::SearchPath>,
    owner_override: Option<u32>,
    /// Reported settings changed by the last statement.
    pub changed_settings: Vec<String>,
    /// What this session's nextval calls returned (currval, lastval).
    sequences: Arc<parking_lot::Mutex<SessionSequences>>,
    /// A TRUNCATE is deleting: referencing tables were checked (or go too).
    truncating: bool,
    /// The running transaction's isolation, access mode and (REPEATABLE READ and
    /// SERIALIZABLE) snapshot.
    txn: TxnState,
    /// Who this session is to the advisory locks and the table locks.
    advisory_owner: u64,
    /// Whether this transaction holds table locks (released when it ends).
    holds_table_locks: bool,
    /// Tables this transaction created or truncated, with the savepoint depth then
    /// (COPY FREEZE's condition).
    fresh_tables: Vec<(u32, usize)>,
    /// The settings as the session began (startup parameters applied): what RESET ALL
    /// and DISCARD ALL return to.
    session_defaults: Option<Settings>,
    /// This session's process id (BackendKeyData; pg_backend_pid).
    pub pid: i32,
    /// LISTEN (true) / UNLISTEN (false; None: all) waiting for the commit.
    pending_listen: Vec<(bool, Option<String>)>,
    /// NOTIFY and pg_notify of this transaction, sent at its commit.
    pending_notify: crate::notify::PendingNotifies,
    /// set_config calls of the statement that ran last, applied before the next.
    pending_configs: crate::exec::context::PendingConfigs,
    /// Open cursors (DECLARE), by name.
    cursors: HashMap<String, cursor::Cursor>,
    /// The batch row of the last constraint error `store_rows` raised, and whether it
    /// was a row check (NOT NULL, CHECK) rather than a unique key.
    failed_row: Option<(usize, bool)>,
    /// Whether the session user logged in as a superuser (a name without a role,
    /// which trust lets in, is one unless the connection said otherwise).
    pub login_superuser: bool,
    /// The user that logged in (SET SESSION AUTHORIZATION changes `user`).
    login_user: String,
}

/// SET in a transaction, as PostgreSQL nests settings: ROLLBACK undoes the
/// transaction's SETs, COMMIT keeps them but drops its SET LOCALs, ROLLBACK TO SAVEPOINT
/// undoes those made after the savepoint.
#[derive(Default)]
struct SettingsStack {
    /// The settings as the transaction began (taken at its first SET).
    begin: Option<Settings>,
    /// The settings without the transaction's SET LOCALs (taken at its first one).
    session: Option<Settings>,
    /// Per open savepoint: the settings and the session-level ones when it was made.
    savepoints: Vec<(Settings, Option<Settings>)>,
}

/// What a transaction runs as.
pub(super) struct TxnState {
    isolation: Isolation,
    read_only: bool,
    /// Names a SERIALIZABLE transaction in `storage::ssi`.
    token: u64,
    /// A query has run (the isolation level is fixed from then on).
    queried: bool,
    /// SET CONSTRAINTS in this transaction, and the checks deferred to COMMIT.
    deferral: foreign_keys::Deferral,
    pending: Vec<foreign_keys::Pending>,
    /// The transaction's snapshot, taken by its first query (REPEATABLE READ and
    /// SERIALIZABLE), pinned until it ends.
    snapshot: Option<(
        crate::storage::mvcc::Snapshot,
        crate::storage::mvcc::SnapshotPin,
    )>,
}

impl Default for TxnState {
    fn default() -> TxnState {
        TxnState {
            isolation: Isolation::ReadCommitted,
            read_only: false,
            token: 0,
            queried: false,
            deferral: Default::default(),
            pending: Vec::new(),
            snapshot: None,
        }
    }
}

/// A fresh SERIALIZABLE transaction token.
fn next_txn_token() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// What a DML statement answers: its tag, or with RETURNING the rows under it.
fn dml_outcome(
    tag: String,
    returning: Option<&Returning>,
    out: Vec<Batch>,
    ctx: ExecContext,
) -> Outcome {
    match returning {
        None => Outcome::Done { tag },
        Some(r) => Outcome::Rows(Box::new(RowStream::returned(
            r.columns.clone(),
            out,
            tag,
            ctx,
        ))),
    }
}

/// Now, in microseconds since 2000-01-01 (a timestamptz value).
pub fn now_micros() -> i64 {
    let since_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0);
    since_unix - UNIX_EPOCH_DAYS * USECS_PER_DAY
}

impl Session {
    /// A session of role `user` connected to `db`.
    pub fn new(db: Arc<Database>, user: &str) -> Session {
        let cluster = db.cluster();
        let mut settings = Settings::new(user);
        settings.set_server_value(
            "max_connections",
            cluster.config.max_connections.to_string(),
        );
        settings.set_server_value(
            "superuser_reserved_connections",
            cluster.config.superuser_reserved.to_string(),
        );
        let ssl = if cluster.config.tls.is_some() {
            "on"
        } else {
            "off"
        };
        settings.set_server_value("ssl", ssl.into());
        Session {
            db,
            cluster,
            settings,
            user: user.to_string(),
            status: TxnStatus::Idle,
            writer: TXN_NONE,
            undo: Vec::new(),
            savepoints: Vec::new(),
            settings_stack: SettingsStack::default(),
            txn_start_micros: now_micros(),
            pending_start: std::cell::Cell::new(None),
            statement_deadline: None,
            cancel: Arc::new(CancelFlag::default()),
            prepared: HashMap::new(),
            notices: Vec::new(),
            exec_notices: Default::default(),
            parse_warnings: Default::default(),
            bind_notices: Default::default(),
            temp_ns: None,
            on_commit: Vec::new(),
            path_override: None,
            owner_override: None,
            changed_settings: Vec::new(),
            sequences: Default::default(),
            truncating: false,
            txn: TxnState::default(),
            advisory_owner: next_txn_token(),
            holds_table_locks: false,
            fresh_tables: Vec::new(),
            cursors: HashMap::new(),
            pid: 0,
            pending_listen: Vec::new(),
            pending_notify: Default::default(),
            pending_configs: Default::default(),
            session_defaults: None,
            failed_row: None,
            login_superuser: true,
            login_user: user.to_string(),
        }
    }

    pub fn text_format(&self) -> TextFormat {
        TextFormat {
            zone: self.settings.zone,
            extra_float_digits: self.settings.extra_float_digits,
            date_order: self.settings.date_order,
            now_micros: self.transaction_start(),
            bytea_escape: self.settings.bytea_escape,
        }
    }

    /// Parses `sql` (all of it, so a syntax error anywhere runs nothing). An empty query
    /// gives no statements.
    pub fn parse(&self, sql: &str) -> Result<Vec<Arc<Statement>>> {
        if parse::is_empty_query(sql) {
            return Ok(Vec::new());
        }
        let rewritten = if self.settings.standard_strings {
            None
        } else {
            crate::sql::nonstandard_strings::rewrite(sql, self.settings.escape_warning)
        };
        let text = match rewritten {
            Some(r) => {
                self.parse_warnings.borrow_mut().extend(r.warnings);
                std::borrow::Cow::Owned(r.text)
            }
            None => std::borrow::Cow::Borrowed(sql),
        };
        Ok(parse::parse(&text)?.into_iter().map(Arc::new).collect())
    }

    /// Binds one parsed statement against the catalog as this session sees it now.
    pub fn bind(
        &self,
        sql: &str,
        stmt: &Arc<Statement>,
        declared: &[Option<SqlType>],
    ) -> Result<Prepared> {
        let snapshot = self.db.txns.snapshot(self.writer);
        self.bind_in(sql, stmt, declared, snapshot)
    }

    fn bind_in(
        &self,
        sql: &str,
        stmt: &Arc<Statement>,
        declared: &[Option<SqlType>],
        snapshot: crate::storage::mvcc::Snapshot,
    ) -> Result<Prepared> {
        let search_path = self.search_path(&snapshot);
        let mut binder = Binder::new(
            &self.db.catalog,
            snapshot,
            self.text_format(),
            declared.to_vec(),
        )
        .with_text(sql);
        binder.search_path = search_path;
        binder.database = Some(self.db.name());
        let bound = binder.bind_statement(stmt);
        self.bind_notices
            .borrow_mut()
            .extend(std::mem::take(&mut binder.notices));
        let bound = bound?;
        let columns = match &bound {
            // A FETCH answers with its cursor's columns (Describe needs them).
            BoundStatement::Fetch {
                cursor,
                is_move: false,
                ..
            } => self.cursors.get(cursor).map(|c| c.columns.clone()),
            // EXECUTE answers with its statement's columns.
            BoundStatement::ExecuteSql { name, .. } => {
                self.prepared.get(name).and_then(|p| p.columns.clone())
            }
            _ => bound.output_columns(),
        };
        Ok(Prepared {
            sql: sql.to_string(),
            ast: Some(stmt.clone()),
            statement: Some(bound),
            param_types: binder.param_types(),
            columns,
            tables: std::mem::take(&mut binder.tables),
            access: std::mem::take(&mut binder.access),
            cached: false,
        })
    }

    /// Parses and binds a single statement (the extended protocol's Parse).
    pub fn prepare_one(&self, sql: &str, declared: &[Option<SqlType>]) -> Result<Prepared> {
        let statements = self.parse(sql)?;
        match statements.as_slice() {
            [] => Ok(Prepared {
                sql: sql.to_string(),
                ast: None,
                statement: None,
                param_types: vec![],
                columns: None,
                tables: Vec::new(),
                access: Vec::new(),
                cached: true,
            }),
            // An aborted transaction takes only its end (PostgreSQL refuses the
            // Parse of anything else).
            [stmt]
                if self.status == TxnStatus::Failed
                    && !matches!(
                        stmt.as_ref(),
                        Statement::Commit { .. } | Statement::Rollback { .. }
                    ) =>
            {
                Err(Error::in_failed_transaction())
            }
            [stmt] => Ok(Prepared {
                cached: true,
                ..self.bind(sql, stmt, declared)?
            }),
            _ => Err(Error::syntax(
                "cannot insert multiple commands into a prepared statement",
            )),
        }
    }

    fn exec_context(&mut self, snapshot_own: TxnId) -> ExecContext {
        self.txn.queried = true;
        let (snapshot, pin) =
            if self.txn.isolation == Isolation::ReadCommitted || self.status == TxnStatus::Idle {
                self.db.txns.pinned_snapshot(snapshot_own)
            } else {
                // REPEATABLE READ and SERIALIZABLE: one snapshot for the whole transaction.
                if self.txn.snapshot.is_none() {
                    let taken = self.db.txns.pinned_snapshot(snapshot_own);
                    if self.txn.isolation == Isolation::Serializable
                        && self.status == TxnStatus::InBlock
                    {
                        self.txn.token = next_txn_token();
                        self.db.serializable.begin(self.txn.token, taken.0.xmax);
                    }
                    self.txn.snapshot = Some(taken);
                }
                let Some((s, _)) = &self.txn.snapshot else {
                    unreachable!("stored above")
                };
                let mut s = s.clone();
                s.own = snapshot_own;
                self.db.txns.pinned_snapshot_at(s)
            };
        let search_path = Arc::new(self.search_path(&snapshot));
        ExecContext {
            snapshot,
            pin: Some(pin),
            settings: self.settings.shared(),
            params: Vec::new(),
            fmt: self.text_format(),
            now_micros: self.transaction_start(),
            cancel: self.cancel.clone(),
            deadline: self.statement_deadline,
            database: self.db.name().clone(),
            user: self.current_user().to_string(),
            session_user: self.user.clone(),
            role: self.identity().0,
            memory_used: std::sync::atomic::AtomicUsize::new(0),
            memory_max: self.settings.query_memory_max,
            outer: Default::default(),
            subplan_results: Default::default(),
            ctes: Default::default(),
            worktables: Default::default(),
            sequences: Some(SequenceAccess {
                catalog: self.db.catalog.clone(),
                session: self.sequences.clone(),
            }),
            prune_below: self.db.txns.gc_horizon(),
            locker: Some(crate::exec::context::Locker {
                txns: self.db.txns.clone(),
                lock_timeout: self.settings.lock_timeout,
                deadlock_timeout: self.settings.deadlock_timeout,
                repeatable: self.txn.isolation != Isolation::ReadCommitted,
            }),
            advisory: Some((self.db.advisory.clone(), self.advisory_owner)),
            notifies: Some(self.pending_notify.clone()),
            set_configs: Some(self.pending_configs.clone()),
            notices: Some(self.exec_notices.clone()),
            db: Some(self.db.clone()),
            cursors: self.cursor_infos(),
            search_path,
            backends: Some((
                self.pid,
                self.cluster.backends.clone(),
                self.settings
                    .get("is_superuser")
                    .is_none_or(|(_, v)| v == "on"),
            )),
        }
    }

    /// Who this session is to the lock table (`storage::locks`).
    pub fn lock_owner(&self) -> u64 {
        self.advisory_owner
    }

    /// Applies the set_config calls of the statements run so far, as SET would (the
    /// changed parameters are reported with this statement's results).
    pub fn apply_set_configs(&mut self) {
        let pending = std::mem::take(&mut *self.pending_configs.lock());
        for (name, value, local) in pending {
            if !self.before_set(local, false) {
                continue;
            }
            match self.settings.set(&name, Some(&value)) {
                Ok(Some(display)) => self.changed_settings.push(display),
                Ok(None) => {}
                Err(e) => tracing::warn!("set_config({name}, {value}): {}", e.message),
            }
            self.after_set(local, &[name.as_str()]);
        }
    }

    /// What a wait polls: a cancel request or the statement's timeout ends it.
    fn interrupt_check(&self) -> impl Fn() -> Result<()> + use<> {
        let cancel = self.cancel.clone();
        let deadline = self.statement_deadline;
        move || {
            if cancel.take() {
                return Err(Error::query_canceled());
            }
            match deadline {
                Some(d) if Instant::now() >= d => Err(Error::statement_timeout()),
                _ => Ok(()),
            }
        }
    }

    /// Executes one bound statement with parameter values.
    pub fn execute(&mut self, prepared: &Prepared, params: Vec<Value>) -> Result<Outcome> {
        let Some(stmt) = &prepared.statement else {
            return Ok(Outcome::Empty);
        };
        self.changed_settings.clear();
        self.apply_set_configs();
        self.statement_deadline = self.settings.statement_timeout.map(|t| Instant::now() + t);
        if self.status == TxnStatus::Failed {
            let allowed = matches!(
                stmt,
                BoundStatement::Transaction(
                    TransactionOp::Commit | TransactionOp::Rollback | TransactionOp::RollbackTo(_)
                )
            );
            if !allowed {
                return Err(Error::in_failed_transaction());
            }
        }
        if self.cancel.is_set() {
            // A cancel that arrived while idle is stale.
            self.cancel.take();
        }
        match stmt {
            BoundStatement::Transaction(op) => return self.transaction_control(op),
            BoundStatement::Set { name, value, .. } if name == "kiln.set_constraints" => {
                self.set_constraints(value.as_deref().unwrap_or(""))?;
                return Ok(Outcome::Done {
                    tag: "SET CONSTRAINTS".into(),
                });
            }
            BoundStatement::Set {
                name, value, local, ..
            } if name == "session_authorization" => {
                if !self.before_set(*local, true) {
                    return Ok(Outcome::Done { tag: "SET".into() });
                }
                self.set_session_authorization(value.as_deref())?;
                self.after_set(*local, &["session_authorization", "role", "is_superuser"]);
                return Ok(Outcome::Done {
                    tag: if value.is_some() { "SET" } else { "RESET" }.into(),
                });
            }
            BoundStatement::Set {
                name, value, local, ..
            } if name == "role" => {
                if !self.before_set(*local, true) {
                    return Ok(Outcome::Done { tag: "SET".into() });
                }
                self.set_role(value.as_deref())?;
                self.after_set(*local, &["role", "is_superuser"]);
                return Ok(Outcome::Done {
                    tag: if value.is_some() { "SET" } else { "RESET" }.into(),
                });
            }
            BoundStatement::Set { name, value, local } => {
                if !self.before_set(*local, true) {
                    return Ok(Outcome::Done {
                        tag: if value.is_some() { "SET" } else { "RESET" }.into(),
                    });
                }
                if let Some(display) = self.settings.set(name, value.as_deref())? {
                    self.changed_settings.push(display);
                }
                self.after_set(*local, &[name.as_str()]);
                return Ok(Outcome::Done {
                    tag: if value.is_some() {
                        "SET".into()
                    } else {
                        "RESET".into()
                    },
                });
            }
            BoundStatement::Show { name } => {
                if name == "all" {
                    return Err(Error::feature_not_supported("SHOW ALL"));
                }
                let lookup = match name.as_str() {
                    "time zone" => "timezone",
                    "transaction isolation level" => "transaction_isolation",
                    other => other,
                };
                let (display, value) = self
                    .settings
                    .get(lookup)
                    .map(|(d, v)| (d.to_string(), v.to_string()))
                    .ok_or_else(|| {
                        Error::undefined_object(format!(
                            "unrecognized configuration parameter \"{name}\""
                        ))
                    })?;
                let ctx = self.exec_context(self.writer);
                let columns = vec![OutputColumn {
                    name: display,
                    ty: SqlType::new(DataType::Text),
                    origin: None,
                }];
                return Ok(Outcome::Rows(Box::new(RowStream::from_rows(
                    columns,
                    vec![vec![Value::Text(value)]],
                    ctx,
                ))));
            }
            BoundStatement::NoOp { tag } => return Ok(Outcome::Done { tag: tag.clone() }),
            BoundStatement::Fetch {
                cursor,
                direction,
                is_move,
            } => return self.fetch_cursor(cursor, *direction, *is_move),
            BoundStatement::CloseCursor { name } => return self.close_cursor(name.as_deref()),
            BoundStatement::Discard(what) => return self.discard(*what),
            BoundStatement::PrepareSql {
                name,
                statement,
                types,
            } => return self.prepare_sql(name, statement, types),
            BoundStatement::ExecuteSql { name, args } => return self.execute_sql(name, args),
            BoundStatement::Database(change) => return self.change_database(change),
            BoundStatement::Checkpoint => {
                if self
                    .settings
                    .get("is_superuser")
                    .is_some_and(|(_, v)| v != "on")
                {
                    return Err(Error::new("42501", "must be superuser to do CHECKPOINT"));
                }
                if let Some(durable) = self.db.durable.get() {
                    durable.checkpoint(&self.db)?;
                }
                return Ok(Outcome::Done {
                    tag: "CHECKPOINT".into(),
                });
            }
            BoundStatement::DeclareCursor { hold: false, .. }
                if !matches!(self.status, TxnStatus::InBlock) =>
            {
                return Err(Error::new(
                    "25P01",
                    "DECLARE CURSOR can only be used in transaction blocks",
                ));
            }
            BoundStatement::Analyze { tables, vacuum } => {
                if *vacuum && matches!(self.status, TxnStatus::InBlock | TxnStatus::Failed) {
                    return Err(Error::new(
                        "25001",
                        "VACUUM cannot run inside a transaction block",
                    ));
                }
                let me = self.identity().0;
                for t in tables {
                    if !privileges::owns(&self.db, me, t.owner) {
                        let what = if *vacuum { "vacuum" } else { "analyze" };
                        self.notices.push((
                            "WARNING".into(),
                            "01000".into(),
                            format!(
                                "skipping \"{}\" --- only table or database owner can {what} it",
                                t.name
                            ),
                        ));
                        continue;
                    }
                    t.analyze();
                }
                if *vacuum {
                    self.db.request_vacuum();
                }
                return Ok(Outcome::Done {
                    tag: if *vacuum { "VACUUM" } else { "ANALYZE" }.into(),
                });
            }
            BoundStatement::Deallocate { name } => {
                match name {
                    None => self.prepared.clear(),
                    Some(n) => {
                        if self.prepared.remove(n).is_none() {
                            return Err(Error::new(
                                "26000",
                                format!("prepared statement \"{n}\" does not exist"),
                            ));
                        }
                    }
                }
                let tag = if name.is_some() {
                    "DEALLOCATE"
                } else {
                    "DEALLOCATE ALL"
                };
                return Ok(Outcome::Done { tag: tag.into() });
            }
            _ => {}
        }
        self.begin_implicit();
        if self.txn.read_only && stmt.takes_writer_lock() {
            return Err(Error::new(
                "25006",
                format!(
                    "cannot execute {} in a read-only transaction",
                    stmt.command_name()
                ),
            ));
        }
        if let BoundStatement::LockTable { .. } = stmt
            && !matches!(self.status, TxnStatus::InBlock)
        {
            return Err(Error::new(
                "25P01",
                "LOCK TABLE can only be used in transaction blocks",
            ));
        }
        if let BoundStatement::LockTable {
            tables,
            nowait,
            mode,
        } = stmt
        {
            for t in tables {
                if !self.lock_table(t.oid, *mode, *nowait)? {
                    return Err(Error::new(
                        "55P03",
                        format!("could not obtain lock on relation \"{}\"", t.name),
                    ));
                }
            }
        } else {
            for (oid, mode) in self.table_lock_requests(stmt, prepared) {
                self.lock_table(oid, mode, false)?;
            }
        }
        let own = if stmt.takes_writer_lock() {
            self.ensure_writer()?
        } else {
            self.writer
        };
        let mut ctx = self.exec_context(own);
        ctx.params = params;
        if self.txn.token != 0 {
            let target = match stmt {
                BoundStatement::Insert { table, .. } | BoundStatement::CopyFrom { table, .. } => {
                    Some(table.oid)
                }
                _ => None,
            };
            // An INSERT writes its target without reading it.
            let reads: Vec<u32> = prepared
                .tables
                .iter()
                .map(|t| t.oid)
                .filter(|&o| Some(o) != target)
                .collect();
            let write = match stmt {
                BoundStatement::Insert { table, .. }
                | BoundStatement::CopyFrom { table, .. }
                | BoundStatement::Update { table, .. }
                | BoundStatement::Merge { table, .. }
                | BoundStatement::Delete { table, .. } => Some(table.oid),
                _ => None,
            };
            self.db.serializable.record(self.txn.token, &reads, write);
        }
        let current = prepared
            .tables
            .iter()
            .all(|t| self.db.catalog.is_current(t, &ctx.snapshot));
        let outcome = if current {
            self.run(prepared, ctx)
        } else {
            let fresh = self.rebind(prepared, ctx.snapshot.clone())?;
            self.run(&fresh, ctx)
        }?;
        // DEFERRABLE keys not deferred are checked as the statement ends.
        self.check_statement_keys()?;
        Ok(outcome)
    }

    /// Binds `prepared` again against the catalog `snapshot` sees (a table it names was
    /// dropped or replaced since it was bound).
    fn rebind(
        &self,
        prepared: &Prepared,
        snapshot: crate::storage::mvcc::Snapshot,
    ) -> Result<Prepared> {
        let ast = prepared
            .ast
            .as_ref()
            .ok_or_else(|| Error::internal("bound statement without its parse tree"))?;
        let declared: Vec<Option<SqlType>> =
            prepared.param_types.iter().map(|t| Some(*t)).collect();
        let fresh = self.bind_in(&prepared.sql, ast, &declared, snapshot)?;
        // The result's shape: names and types (PostgreSQL's equalTupleDescs), not where
        // a column comes from — a table dropped and made again has a new oid.
        let shape = |c: &Option<Vec<OutputColumn>>| {
            c.as_ref()
                .map(|c| c.iter().map(|c| (c.name.clone(), c.ty)).collect::<Vec<_>>())
        };
        if prepared.cached && shape(&fresh.columns) != shape(&prepared.columns) {
            return Err(Error::new(
                "0A000",
                "cached plan must not change result type",
            ));
        }
        Ok(fresh)
    }

    /// Runs a statement that reads or writes tables, in `ctx`'s snapshot (for a write,
    /// the writer's).
    pub(super) fn run(&mut self, prepared: &Prepared, ctx: ExecContext) -> Result<Outcome> {
        let Some(stmt) = &prepared.statement else {
            return Ok(Outcome::Empty);
        };
        self.check_privileges(prepared, &ctx)?;
        let txn = ctx.snapshot.own;
        match stmt {
            BoundStatement::Query {
                plan,
                columns,
                locks: false,
            } => {
                let op = exec::build(plan);
                Ok(Outcome::Rows(Box::new(RowStream {
                    op,
                    ctx,
                    columns: columns.clone(),
                    pending: None,
                    rows_sent: 0,
                    finished: false,
                    tag: None,
                    binary: false,
                })))
            }
            BoundStatement::Query {
                plan,
                columns,
                locks: true,
            } => {
                // The rows are locked before any leaves; a row a committed transaction
                // changed meanwhile means running again on a new snapshot (READ
                // COMMITTED: see `exec::lock_rows`).
                let mut ctx = ctx;
                let mut tries = 0;
                loop {
                    let mut op = exec::build(plan);
                    match op.next(&ctx) {
                        Ok(first) => {
                            return Ok(Outcome::Rows(Box::new(RowStream {
                                op,
                                ctx,
                                columns: columns.clone(),
                                finished: first.is_none(),
                                pending: first,
                                rows_sent: 0,
                                tag: None,
                                binary: false,
                            })));
                        }
                        Err(e) if e.code == exec::lock_rows::RESTART && tries < 100 => {
                            tries += 1;
                            let params = std::mem::take(&mut ctx.params);
                            drop(ctx);
                            ctx = self.exec_context(txn);
                            ctx.params = params;
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
            BoundStatement::Role(change) => self.change_roles(change, &ctx),
            BoundStatement::Schema(change) => self.change_schema(change, &ctx, txn),
            BoundStatement::Extension(change) => self.change_extension(change, &ctx, txn),
            BoundStatement::UserType(change) => self.change_type(change, &ctx, txn),
            BoundStatement::SetSchema {
                name,
                kind,
                if_exists,
                to,
            } => self.set_schema(name, *kind, *if_exists, to, &ctx, txn),
            BoundStatement::Listen { channel, listen } => {
                self.pending_listen.push((*listen, channel.clone()));
                Ok(Outcome::Done {
                    tag: if *listen { "LISTEN" } else { "UNLISTEN" }.into(),
                })
            }
            BoundStatement::Notify { channel, payload } => {
                self.pending_notify
                    .lock()
                    .push((channel.clone(), payload.clone()));
                Ok(Outcome::Done {
                    tag: "NOTIFY".into(),
                })
            }
            BoundStatement::DeclareCursor {
                name,
                query,
                scroll,
                hold,
                binary,
            } => self.declare_cursor(prepared, ctx, name, query, (*scroll, *hold, *binary)),
            BoundStatement::CopyFrom {
                table,
                columns,
                options,
                force_not_null,
                force_null,
                filter,
                file,
            } => {
                if let Some(end) = file {
                    self.may_copy_files(end, true)?;
                }
                let started = self.start_copy_in(
                    table,
                    columns,
                    options,
                    force_not_null,
                    force_null,
                    filter.as_ref(),
                    ctx,
                )?;
                match (file, started) {
                    (Some(end), Outcome::CopyIn(mut copy)) => self.copy_from_file(&mut copy, end),
                    (_, started) => Ok(started),
                }
            }
            BoundStatement::CopyTo {
                plan,
                columns,
                options,
                force_quote,
                file,
            } => {
                if let Some(end) = file {
                    self.may_copy_files(end, false)?;
                }
                if let Some(crate::copy::ServerEnd::File(path)) = file
                    && !std::path::Path::new(path).is_absolute()
                {
                    return Err(Error::new(
                        "42602",
                        "relative path not allowed for COPY to file",
                    ));
                }
                let fmt = ctx.fmt;
                let stream = Box::new(RowStream {
                    op: exec::build(plan),
                    ctx,
                    columns: columns.clone(),
                    pending: None,
                    rows_sent: 0,
                    finished: false,
                    tag: None,
                    binary: false,
                });
                let types = columns.iter().map(|c| c.ty).collect();
                let writer = crate::copy::output::CopyWriter::new(
                    options.clone(),
                    types,
                    force_quote.clone(),
                    fmt,
                );
                let mut out = copy::CopyOut {
                    stream,
                    writer,
                    names: columns.iter().map(|c| c.name.clone()).collect(),
                };
                match file {
                    Some(end) => copy::copy_to_server(&mut out, end),
                    None => Ok(Outcome::CopyOut(Box::new(out))),
                }
            }
            BoundStatement::Explain {
                plan,
                analyze,
                options,
            } => {
                let actuals = if *analyze {
                    let measured: exec::instrument::Actuals = Default::default();
                    *measured.lock() = vec![Default::default(); exec::count_nodes(plan)];
                    let mut op = exec::build_instrumented(plan, &measured);
                    while op.next(&ctx)?.is_some() {}
                    Some(measured.lock().clone())
                } else {
                    None
                };
                let lines = crate::plan::explain::render(plan, actuals.as_deref(), *options);
                let rows = lines.into_iter().map(|l| vec![Value::Text(l)]).collect();
                let columns = stmt.output_columns().unwrap_or_default();
                Ok(Outcome::Rows(Box::new(RowStream::from_rows(
                    columns, rows, ctx,
                ))))
            }
            BoundStatement::Insert {
                table,
                source,
                returning,
                on_conflict,
            } => {
                let mut out = Vec::new();
                let n = match on_conflict {
                    None => self.run_insert(
                        table,
                        exec::build(source),
                        &ctx,
                        txn,
                        returning.as_ref(),
                        &mut out,
                    )?,
                    Some(oc) => {
                        self.run_upsert(table, source, oc, &ctx, txn, returning.as_ref(), &mut out)?
                    }
                };
                Ok(dml_outcome(
                    format!("INSERT 0 {n}"),
                    returning.as_ref(),
                    out,
                    ctx,
                ))
            }
            BoundStatement::Update {
                table,
                source,
                returning,
                recheck,
            } => {
                let mut out = Vec::new();
                let n = self.run_update(
                    table,
                    exec::build(source),
                    &ctx,
                    txn,
                    returning.as_ref(),
                    recheck.as_ref(),
                    &mut out,
                )?;
                Ok(dml_outcome(
                    format!("UPDATE {n}"),
                    returning.as_ref(),
                    out,
                    ctx,
                ))
            }
            BoundStatement::Merge {
                table,
                source,
                actions,
            } => {
                let n = self.run_merge(table, source, actions, &ctx, txn)?;
                Ok(Outcome::Done {
                    tag: format!("MERGE {n}"),
                })
            }
            BoundStatement::Delete {
                table,
                source,
                returning,
                recheck,
            } => {
                let mut out = Vec::new();
                let n = self.run_delete(
                    table,
                    exec::build(source),
                    &ctx,
                    txn,
                    returning.as_ref(),
                    recheck.as_ref(),
                    &mut out,
                )?;
                Ok(dml_outcome(
                    format!("DELETE {n}"),
                    returning.as_ref(),
                    out,
                    ctx,
                ))
            }
            BoundStatement::Truncate {
                tables,
                restart_identity,
                cascade,
            } => {
                let mut tables = tables.clone();
                if *cascade {
                    let mut at = 0;
                    while at < tables.len() {
                        let oid = tables[at].oid;
                        for (child, _) in self.db.catalog.referencing(oid, &ctx.snapshot) {
                            if !tables.iter().any(|x| x.oid == child.oid) {
                                self.notice(format!(
                                    "truncate cascades to table \"{}\"",
                                    child.name
                                ));
                                tables.push(child);
                            }
                        }
                        at += 1;
                    }
                }
                for t in &tables {
                    if let Some((child, _)) = self
                        .db
                        .catalog
                        .referencing(t.oid, &ctx.snapshot)
                        .into_iter()
                        .find(|(c, _)| !tables.iter().any(|x| x.oid == c.oid))
                    {
                        return Err(Error::new(
                            "0A000",
                            "cannot truncate a table referenced in a foreign key constraint",
                        )
                        .with_detail(format!(
                            "Table \"{}\" references \"{}\".",
                            child.name, t.name
                        ))
                        .with_hint(format!(
                            "Truncate table \"{}\" at the same time, or use TRUNCATE ... CASCADE.",
                            child.name
                        )));
                    }
                }
                if *restart_identity {
                    for t in &tables {
                        for seq in self.db.catalog.owned_sequences(t.oid, &ctx.snapshot) {
                            if let Some(sq) = &seq.sequence {
                                sq.setval(&seq.name, sq.options().start, false)?;
                            }
                        }
                    }
                }
                let tables = &tables;
                for t in tables {
                    let scan = Plan::new(
                        Op::Scan {
                            table: t.clone(),
                            alias: t.name.clone(),
                            filter: None,
                            row_ids: true,
                            needed: None,
                            index: None,
                        },
                        0.0,
                    );
                    self.truncating = true;
                    let done = self.run_delete(
                        t,
                        exec::build(&scan),
                        &ctx,
                        txn,
                        None,
                        None,
                        &mut Vec::new(),
                    );
                    self.truncating = false;
                    done?;
                    self.fresh_tables.push((t.oid, self.savepoints.len()));
                }
                Ok(Outcome::Done {
                    tag: "TRUNCATE TABLE".into(),
                })
            }
            BoundStatement::CreateTable {
                name,
                columns,
                indexes,
                checks,
                foreign_keys,
                sequences,
                if_not_exists,
                on_commit,
            } => {
                let name = &self.resolve_temp(name);
                if self.db.catalog.relation(name, &ctx.snapshot).is_some() && *if_not_exists {
                    self.notices.push((
                        "NOTICE".into(),
                        "42P07".into(),
                        format!("relation \"{}\" already exists, skipping", name.name),
                    ));
                    return Ok(Outcome::Done {
                        tag: "CREATE TABLE".into(),
                    });
                }
                let entry = self.db.catalog.create_table_with(
                    name,
                    columns.clone(),
                    None,
                    indexes,
                    checks.clone(),
                    foreign_keys.clone(),
                    self.new_owner(),
                    txn,
                    &ctx.snapshot,
                )?;
                if !foreign_keys.is_empty() {
                    self.db.catalog.foreign_key_created();
                }
                self.undo.push(Undo::CreateTable(entry.clone()));
                let entry = self.apply_default_acl(entry, txn);
                self.fresh_tables.push((entry.oid, self.savepoints.len()));
                self.note_on_commit(entry.oid, *on_commit);
                let mut columns = entry.columns.clone();
                for seq in sequences {
                    let made = self.db.catalog.create_sequence(
                        &crate::catalog::RelName::new(name.ns, seq.name.clone()),
                        seq.options.clone(),
                        Some((entry.oid, seq.column.clone())),
                        entry.owner,
                        txn,
                        &ctx.snapshot,
                    )?;
                    self.undo.push(Undo::CreateTable(made.clone()));
                    for c in columns.iter_mut() {
                        if let Some(d) = &mut c.default {
                            d.set_sequence_oid(&seq.placeholder, made.oid);
                        }
                    }
                    self.apply_default_acl(made, txn);
                }
                // The columns' defaults now name their sequences by oid.
                if !sequences.is_empty() {
                    let patched = self.db.catalog.replace_version(
                        &entry,
                        columns,
                        entry.indexes.clone(),
                        entry.checks.clone(),
                        txn,
                    );
                    self.undo.push(Undo::DropTable(entry.clone()));
                    self.undo.push(Undo::CreateTable(patched));
                }
                Ok(Outcome::Done {
                    tag: "CREATE TABLE".into(),
                })
            }
            BoundStatement::CreateIndex {
                table,
                spec,
                if_not_exists,
            } => self.create_index(table, spec, *if_not_exists, &ctx, txn),
            BoundStatement::AlterTable {
                name,
                if_exists,
                actions,
            } => self.alter_table(name, *if_exists, actions, &ctx, txn),
            BoundStatement::RenameRelation {
                name,
                to,
                if_exists,
                kind,
            } => self.rename_relation(name, to, *if_exists, *kind, &ctx, txn),
            BoundStatement::IndexOptions {
                name,
                if_exists,
                changes,
            } => self.index_options(name, *if_exists, changes, &ctx, txn),
            BoundStatement::AlterConstraint {
                table,
                if_exists,
                constraint,
                deferrable,
                deferred,
            } => self.alter_constraint(
                table,
                *if_exists,
                constraint,
                (*deferrable, *deferred),
                &ctx,
                txn,
            ),
            BoundStatement::LockTable { .. } => Ok(Outcome::Done {
                tag: "LOCK TABLE".into(),
            }),
            BoundStatement::CreateSequence {
                name,
                options,
                if_not_exists,
            } => {
                let done = Outcome::Done {
                    tag: "CREATE SEQUENCE".into(),
                };
                let name = &self.resolve_temp(name);
                if *if_not_exists
                    && self
                        .db
                        .catalog
                        .relation_exists(name.ns, &name.name, &ctx.snapshot)
                {
                    self.notices.push((
                        "NOTICE".into(),
                        "42P07".into(),
                        format!("relation \"{}\" already exists, skipping", name.name),
                    ));
                    return Ok(done);
                }
                let entry = self.db.catalog.create_sequence(
                    name,
                    options.clone(),
                    None,
                    self.new_owner(),
                    txn,
                    &ctx.snapshot,
                )?;
                self.undo.push(Undo::CreateTable(entry.clone()));
                self.apply_default_acl(entry, txn);
                Ok(done)
            }
            BoundStatement::AlterSequence {
                name,
                if_exists,
                changes,
                restart,
                owned_by,
            } => {
                let done = Outcome::Done {
                    tag: "ALTER SEQUENCE".into(),
                };
                let Some(entry) = self.db.catalog.relation(name, &ctx.snapshot) else {
                    let name = &name.name;
                    if *if_exists {
                        self.notice(format!("relation \"{name}\" does not exist, skipping"));
                        return Ok(done);
                    }
                    return Err(Error::new(
                        "42P01",
                        format!("relation \"{name}\" does not exist"),
                    ));
                };
                let name = &name.name;
                let Some(seq) = &entry.sequence else {
                    return Err(Error::new("42809", format!("\"{name}\" is not a sequence")));
                };
                let image = seq.alter(changes, *restart)?;
                self.undo.push(Undo::Sequence(seq.clone(), image));
                if let Some(owner) = owned_by {
                    let moved = self.db.catalog.reown(&entry, owner.clone(), txn);
                    self.undo.push(Undo::DropTable(entry.clone()));
                    self.undo.push(Undo::CreateTable(moved));
                }
                Ok(done)
            }
            BoundStatement::DropIndex { names, if_exists } => {
                self.drop_indexes(names, *if_exists, &ctx, txn)
            }
            BoundStatement::Comment { oid, column, text } => {
                let before = self.db.catalog.set_comment(*oid, column, text.clone());
                self.undo.push(Undo::Comment(*oid, column.clone(), before));
                Ok(Outcome::Done {
                    tag: "COMMENT".into(),
                })
            }
            BoundStatement::DropTable {
                names,
                if_exists,
                kind,
                cascade,
            } => self.drop_relations(names, *if_exists, *kind, *cascade, &ctx, txn),
            BoundStatement::CreateView {
                name,
                columns,
                view,
                or_replace,
            } => self.create_view(name, columns, view, *or_replace, &ctx, txn),
            BoundStatement::CreateTableAs {
                name,
                columns,
                source,
                if_not_exists,
                on_commit,
            } => {
                let name = &self.resolve_temp(name);
                if self.db.catalog.relation(name, &ctx.snapshot).is_some() && *if_not_exists {
                    self.notices.push((
                        "NOTICE".into(),
                        "42P07".into(),
                        format!("relation \"{}\" already exists, skipping", name.name),
                    ));
                    return Ok(Outcome::Done {
                        tag: "CREATE TABLE AS".into(),
                    });
                }
                let entry = self.db.catalog.create_relation(
                    name,
                    columns.clone(),
                    None,
                    self.new_owner(),
                    txn,
                    &ctx.snapshot,
                )?;
                self.undo.push(Undo::CreateTable(entry.clone()));
                let entry = self.apply_default_acl(entry, txn);
                self.note_on_commit(entry.oid, *on_commit);
                let tag = match source {
                    Some(plan) => {
                        let n = self.run_insert(
                            &entry,
                            exec::build(plan),
                            &ctx,
                            txn,
                            None,
                            &mut Vec::new(),
                        )?;
                        format!("SELECT {n}")
                    }
                    None => "CREATE TABLE AS".into(),
                };
                Ok(Outcome::Done { tag })
            }
            BoundStatement::Transaction(_)
            | BoundStatement::Set { .. }
            | BoundStatement::Show { .. }
            | BoundStatement::NoOp { .. }
            | BoundStatement::Analyze { .. }
            | BoundStatement::Deallocate { .. }
            | BoundStatement::Fetch { .. }
            | BoundStatement::Discard(_)
            | BoundStatement::Checkpoint
            | BoundStatement::Database(_)
            | BoundStatement::PrepareSql { .. }
            | BoundStatement::ExecuteSql { .. }
            | BoundStatement::CloseCursor { .. } => Err(Error::internal("statement handled above")),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A client that disconnects mid-transaction rolls it back.
        self.rollback();
        self.db.advisory.release(self.advisory_owner, true);
        self.drop_temp_objects();
    }
}
