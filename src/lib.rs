//! kiln: an in-memory SQL database that speaks PostgreSQL's wire protocol.
//!
//! The life of a statement, layer by layer (see `docs/architecture.md` for the map):
//!
//! 1. [`wire::connection`] reads a message from the client's socket, on the
//!    connection's own thread, and hands the SQL text to the connection's [`session`].
//! 2. The session parses it with [`sql::parse`] (sqlparser's PostgreSQL dialect).
//! 3. [`sql::binder`] resolves names against the [`catalog`], types every expression by
//!    PostgreSQL's rules and builds a logical plan ([`plan::logical`]).
//! 4. Still in the binder, the optimizer rules ([`plan::rules`]) rewrite the logical plan
//!    and [`plan::lower`] turns it into a physical plan ([`plan::physical`]); the result
//!    is a [`plan::BoundStatement`].
//! 5. [`session`] runs it inside the session's transaction: it takes a snapshot (after
//!    a transaction id, for writes) from [`storage::mvcc`], binds again if a table the
//!    statement names has changed, and builds operators with [`exec::build`].
//! 6. For a query, the connection pulls batches of column vectors from those operators
//!    (which read [`storage`] tables) through a [`session::RowStream`], and
//!    [`wire::encode`] writes each batch's rows straight into the output buffer. The
//!    buffer goes to the socket once it holds 2 KB, then 8, 32 and 64 KB (64 KB from then
//!    on), and at the end of the response.

#![forbid(unsafe_code)]

pub mod auth;
pub mod catalog;
pub mod copy;
pub mod durable;
pub mod error;
pub mod exec;
pub mod notify;
pub mod plan;
pub mod session;
pub mod sql;
pub mod storage;
pub mod types;
pub mod wire;

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use parking_lot::Mutex;

use catalog::Catalog;
use exec::context::CancelFlag;
use storage::mvcc::TxnManager;
use storage::vacuum::VacuumWorker;

/// What `SELECT version()` answers: tools parse the leading "PostgreSQL 15.".
pub const VERSION_STRING: &str = concat!(
    "PostgreSQL 15.0 (kiln ",
    env!("CARGO_PKG_VERSION"),
    ") on x86_64-pc-linux-gnu, compiled by rustc, 64-bit"
);

/// What pg_stat_activity says of a session, kept current by its connection.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    /// The text of the statement running, or of the last one.
    pub query: String,
    /// `active`, `idle`, `idle in transaction`, `idle in transaction (aborted)`.
    pub state: &'static str,
    pub application_name: String,
    /// Microseconds since 2000-01-01 (timestamptz values).
    pub backend_start: i64,
    pub xact_start: Option<i64>,
    pub query_start: Option<i64>,
    pub state_change: Option<i64>,
    pub client: Option<std::net::SocketAddr>,
}

/// A session's [`Activity`], shared between its connection and pg_stat_activity.
pub type SharedActivity = Arc<Mutex<Activity>>;

/// What a connection registers of its session ([`Database::register_session`]).
pub struct NewSession {
    pub cancel: Arc<CancelFlag>,
    pub user: String,
    pub superuser: bool,
    /// The client's socket (pg_terminate_backend shuts it).
    pub socket: Option<std::net::TcpStream>,
    /// TLS in use: (protocol version, cipher suite).
    pub ssl: Option<(String, String)>,
    /// The session's lock owner.
    pub owner: u64,
    pub activity: SharedActivity,
}

/// One session as the others see it.
pub struct Backend {
    secret: i32,
    cancel: Arc<CancelFlag>,
    user: String,
    superuser: bool,
    /// The client's socket: pg_terminate_backend shuts its reading side to wake the
    /// session's thread out of a blocked read.
    socket: Option<std::net::TcpStream>,
    /// TLS in use: (protocol version, cipher suite) — pg_stat_ssl.
    ssl: Option<(String, String)>,
    /// The session's lock owner (`storage::locks`): pg_locks shows its pid.
    owner: u64,
    activity: SharedActivity,
}

/// The sessions of a database, by process id.
pub struct Backends {
    sessions: Mutex<HashMap<i32, Backend>>,
    next_pid: AtomicI32,
}

impl Backends {
    /// The process id of the session that is lock owner `owner`.
    /// The lock owner of session `pid`.
    pub fn owner_of_pid(&self, pid: i32) -> Option<u64> {
        self.sessions.lock().get(&pid).map(|b| b.owner)
    }

    pub fn pid_of_owner(&self, owner: u64) -> Option<i32> {
        self.sessions
            .lock()
            .iter()
            .find(|(_, b)| b.owner == owner)
            .map(|(pid, _)| *pid)
    }

    /// Every session's TLS: (process id, (version, cipher) when TLS is in use).
    pub fn ssl(&self) -> Vec<(i32, Option<(String, String)>)> {
        let mut out: Vec<_> = self
            .sessions
            .lock()
            .iter()
            .map(|(pid, b)| (*pid, b.ssl.clone()))
            .collect();
        out.sort_by_key(|(pid, _)| *pid);
        out
    }

    /// Every session: (process id, user), by process id.
    pub fn list(&self) -> Vec<(i32, String)> {
        let mut out: Vec<(i32, String)> = self
            .sessions
            .lock()
            .iter()
            .map(|(pid, b)| (*pid, b.user.clone()))
            .collect();
        out.sort_by_key(|b| b.0);
        out
    }

    /// Every session with what it is doing: (pid, user, activity), by pid.
    pub fn activities(&self) -> Vec<(i32, String, Activity)> {
        let mut out: Vec<(i32, String, Activity)> = self
            .sessions
            .lock()
            .iter()
            .map(|(pid, b)| (*pid, b.user.clone(), b.activity.lock().clone()))
            .collect();
        out.sort_by_key(|b| b.0);
        out
    }

    /// pg_cancel_backend / pg_terminate_backend from session `by` (`superuser`, `user`):
    /// Ok(false) with no such session (PostgreSQL warns and answers false), 42501 for
    /// a superuser's session signalled by a non-superuser or another role's by a
    /// non-superuser.
    pub fn signal(
        &self,
        pid: i32,
        user: &str,
        superuser: bool,
        terminate: bool,
    ) -> error::Result<bool> {
        let sessions = self.sessions.lock();
        let Some(b) = sessions.get(&pid) else {
            return Ok(false);
        };
        let what = if terminate { "terminate" } else { "cancel" };
        if b.superuser && !superuser {
            return Err(error::Error::new(
                "42501",
                format!("must be a superuser to {what} superuser query"),
            ));
        }
        if !superuser && b.user != user {
            return Err(error::Error::new(
                "42501",
                "must be a member of the role whose query is being canceled or member of pg_signal_backend",
            ));
        }
        if terminate {
            b.cancel.terminate();
            if let Some(s) = &b.socket {
                let _ = s.shutdown(std::net::Shutdown::Read);
            }
        } else {
            b.cancel.cancel();
        }
        Ok(true)
    }
}

/// PostgreSQL's default max_connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 100;

/// One in-memory database: catalog, data, transactions, the vacuum, and the sessions'
/// cancel keys.
pub struct Database {
    pub catalog: Arc<Catalog>,
    pub txns: Arc<TxnManager>,
    /// What SERIALIZABLE transactions read and wrote (`storage::ssi`).
    pub serializable: storage::ssi::Serializable,
    /// pg_advisory_lock and kin.
    pub advisory: Arc<storage::advisory::AdvisoryLocks>,
    vacuum: VacuumWorker,
    /// The sessions, by process id (cancel, terminate, max_connections).
    pub backends: Arc<Backends>,
    /// Sessions at most (`--max-connections`, PostgreSQL's max_connections; 100).
    pub max_connections: usize,
    /// `--auth`: how clients authenticate.
    pub auth: auth::Method,
    /// Roles (CREATE ROLE; `--superuser`).
    pub roles: auth::Roles,
    /// TLS for clients that ask (`--tls-cert`, `--tls-key`).
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// SCRAM-SHA-256-PLUS's binding data for the TLS certificate (`tls-server-end-point`;
    /// None: channel binding is not offered).
    pub tls_end_point: Option<Vec<u8>>,
    /// LISTEN / NOTIFY.
    pub notifier: notify::Notifier,
    /// The durable mode (`--data-dir`): set once recovery has finished.
    pub durable: std::sync::OnceLock<Arc<durable::Durability>>,
}

impl Default for Database {
    fn default() -> Self {
        Database::new()
    }
}

impl Database {
    pub fn new() -> Database {
        let catalog = Arc::new(Catalog::new());
        let txns = Arc::new(TxnManager::new());
        let (weak_catalog, weak_txns) = (Arc::downgrade(&catalog), Arc::downgrade(&txns));
        let vacuum = VacuumWorker::start(move || {
            let (Some(catalog), Some(txns)) = (weak_catalog.upgrade(), weak_txns.upgrade()) else {
                return false;
            };
            catalog.vacuum(&txns);
            true
        });
        Database {
            catalog,
            txns,
            serializable: Default::default(),
            advisory: Default::default(),
            vacuum,
            backends: Arc::new(Backends {
                sessions: Mutex::new(HashMap::new()),
                next_pid: AtomicI32::new(1000),
            }),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            auth: auth::Method::Trust,
            roles: Default::default(),
            tls: None,
            tls_end_point: None,
            notifier: Default::default(),
            durable: std::sync::OnceLock::new(),
        }
    }

    /// A transaction ended leaving dead versions or a dropped table: the vacuum runs soon.
    pub fn request_vacuum(&self) {
        self.vacuum.request();
    }

    /// Runs one vacuum pass now, on this thread (tests; the vacuum thread does this on
    /// its own). Returns the row versions removed.
    pub fn vacuum_now(&self) -> usize {
        self.catalog.vacuum(&self.txns)
    }

    /// Registers a session for CancelRequest; returns its (process id, secret key), or
    /// None when `max_connections` sessions are open already.
    pub fn register_session(&self, s: NewSession) -> Option<(i32, i32)> {
        let mut sessions = self.backends.sessions.lock();
        if sessions.len() >= self.max_connections {
            return None;
        }
        let pid = self.backends.next_pid.fetch_add(1, Ordering::Relaxed);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_i32(pid);
        let secret = h.finish() as i32;
        sessions.insert(
            pid,
            Backend {
                secret,
                cancel: s.cancel,
                user: s.user,
                superuser: s.superuser,
                socket: s.socket,
                ssl: s.ssl,
                owner: s.owner,
                activity: s.activity,
            },
        );
        Some((pid, secret))
    }

    pub fn unregister_session(&self, pid: i32) {
        self.backends.sessions.lock().remove(&pid);
        self.notifier.forget(pid);
    }

    /// Handles a CancelRequest: cancels the session's running statement if the key matches.
    pub fn cancel(&self, pid: i32, secret: i32) {
        if let Some(b) = self.backends.sessions.lock().get(&pid)
            && b.secret == secret
        {
            b.cancel.cancel();
        }
    }
}
