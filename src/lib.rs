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
pub mod cluster;
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
    /// The oid of the database it is connected to.
    pub database: u32,
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
    database: u32,
    /// The client's socket: pg_terminate_backend shuts its reading side to wake the
    /// session's thread out of a blocked read.
    socket: Option<std::net::TcpStream>,
    /// TLS in use: (protocol version, cipher suite) — pg_stat_ssl.
    ssl: Option<(String, String)>,
    /// The session's lock owner (`storage::locks`): pg_locks shows its pid.
    owner: u64,
    activity: SharedActivity,
}

/// The sessions of the cluster, by process id.
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

    /// Every session with what it is doing: (pid, user, database oid, activity), by pid.
    pub fn activities(&self) -> Vec<(i32, String, u32, Activity)> {
        let mut out: Vec<(i32, String, u32, Activity)> = self
            .sessions
            .lock()
            .iter()
            .map(|(pid, b)| (*pid, b.user.clone(), b.database, b.activity.lock().clone()))
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
/// PostgreSQL's default superuser_reserved_connections.
pub const DEFAULT_SUPERUSER_RESERVED: usize = 3;

/// The oids PostgreSQL 15's initdb gives its databases.
pub const TEMPLATE1_OID: u32 = 1;
pub const TEMPLATE0_OID: u32 = 4;
pub const POSTGRES_OID: u32 = 5;

/// How a server is set up (`main`'s flags); fixed once the cluster runs.
pub struct Config {
    /// Sessions at most (`--max-connections`, PostgreSQL's max_connections; 100).
    pub max_connections: usize,
    /// Of those, the last ones only superusers get (`--superuser-reserved-connections`,
    /// PostgreSQL's superuser_reserved_connections; 3; fewer when max_connections is
    /// too small to leave other roles a slot).
    pub superuser_reserved: usize,
    /// `--auth`: how clients authenticate.
    pub auth: auth::Method,
    /// TLS for clients that ask (`--tls-cert`, `--tls-key`).
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// SCRAM-SHA-256-PLUS's binding data for the TLS certificate (`tls-server-end-point`;
    /// None: channel binding is not offered).
    pub tls_end_point: Option<Vec<u8>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            superuser_reserved: DEFAULT_SUPERUSER_RESERVED,
            auth: auth::Method::Trust,
            tls: None,
            tls_end_point: None,
        }
    }
}

/// What CREATE DATABASE (or a first connection under trust) makes, and ALTER DATABASE
/// changes.
#[derive(Clone, Debug)]
pub struct DatabaseSpec {
    pub name: String,
    /// datdba.
    pub owner: u32,
    pub is_template: bool,
    pub allow_connections: bool,
    /// -1: no limit.
    pub connection_limit: i32,
    /// ALTER DATABASE … SET: (setting, value) defaults of its new sessions.
    pub settings: Vec<(String, String)>,
}

/// The server: what every database shares (roles, sessions, authentication, TLS) and
/// the databases by name (PostgreSQL's "database cluster"). `postgres`, `template1` and
/// `template0` exist from the start; each database is its own namespace ([`Database`]).
pub struct Cluster {
    pub config: Config,
    /// Roles (CREATE ROLE; `--superuser`), shared by every database.
    pub roles: auth::Roles,
    /// The sessions of every database, by process id (cancel, terminate,
    /// max_connections).
    pub backends: Arc<Backends>,
    databases: parking_lot::RwLock<std::collections::BTreeMap<String, Arc<Database>>>,
    next_oid: std::sync::atomic::AtomicU32,
    /// Held by CREATE and DROP DATABASE (`cluster`): one at a time.
    changing: Mutex<()>,
    /// The durable mode (`--data-dir`): set once recovery has finished.
    pub durable: std::sync::OnceLock<Arc<durable::cluster::DataDir>>,
    me: std::sync::Weak<Cluster>,
}

impl Cluster {
    /// A cluster holding the three databases initdb makes, all empty.
    pub fn new(config: Config) -> Arc<Cluster> {
        let cluster = Arc::new_cyclic(|me| Cluster {
            config,
            roles: Default::default(),
            backends: Arc::new(Backends {
                sessions: Mutex::new(HashMap::new()),
                next_pid: AtomicI32::new(1000),
            }),
            databases: Default::default(),
            next_oid: std::sync::atomic::AtomicU32::new(16384),
            changing: Mutex::new(()),
            durable: std::sync::OnceLock::new(),
            me: me.clone(),
        });
        for (oid, name, template, connections) in [
            (TEMPLATE1_OID, "template1", true, true),
            (TEMPLATE0_OID, "template0", true, false),
            (POSTGRES_OID, "postgres", false, true),
        ] {
            let spec = DatabaseSpec {
                name: name.into(),
                owner: auth::BOOTSTRAP_SUPERUSER_OID,
                is_template: template,
                allow_connections: connections,
                connection_limit: -1,
                settings: Vec::new(),
            };
            let db = cluster.insert(Database::new(&cluster, oid, spec));
            if template {
                // initdb's ACL for the templates: everyone may connect (where
                // connections are allowed), the owner may do everything.
                use catalog::acl::{Acl, AclItem, Privs};
                let owner = auth::BOOTSTRAP_SUPERUSER_OID;
                db.catalog.set_database_acl(Some(Acl(vec![
                    AclItem {
                        grantee: 0,
                        grantor: owner,
                        privs: Privs::CONNECT,
                        grant_options: Privs::NONE,
                    },
                    AclItem {
                        grantee: owner,
                        grantor: owner,
                        privs: Privs::CREATE | Privs::TEMPORARY | Privs::CONNECT,
                        grant_options: Privs::NONE,
                    },
                ])));
            }
        }
        cluster
    }

    /// A cluster with the default configuration (tests).
    pub fn default_arc() -> Arc<Cluster> {
        Cluster::new(Config::default())
    }

    /// The cluster as an Arc (it always is one).
    pub fn arc(&self) -> Arc<Cluster> {
        self.me.upgrade().expect("a cluster is always in an Arc")
    }

    /// The `postgres` database, made anew if it was dropped (a session needs one to
    /// start in; never a panic).
    pub fn postgres_database(self: &Arc<Self>) -> Arc<Database> {
        if let Some(db) = self.database("postgres") {
            return db;
        }
        let spec = DatabaseSpec {
            name: "postgres".into(),
            owner: auth::BOOTSTRAP_SUPERUSER_OID,
            is_template: false,
            allow_connections: true,
            connection_limit: -1,
            settings: Vec::new(),
        };
        let oid = if self.database_by_oid(POSTGRES_OID).is_none() {
            POSTGRES_OID
        } else {
            self.next_oid
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        };
        self.insert(Database::new(self, oid, spec))
    }

    /// The database named `name`.
    pub fn database(&self, name: &str) -> Option<Arc<Database>> {
        self.databases.read().get(name).cloned()
    }

    /// Every database, by name.
    pub fn databases(&self) -> Vec<Arc<Database>> {
        self.databases.read().values().cloned().collect()
    }

    /// The database with oid `oid`.
    pub fn database_by_oid(&self, oid: u32) -> Option<Arc<Database>> {
        self.databases
            .read()
            .values()
            .find(|d| d.oid == oid)
            .cloned()
    }

    /// A new oid for a database (after `oid` when recovery restores one).
    pub fn take_oid(&self) -> u32 {
        self.next_oid
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Makes sure oids handed out from now on are above `oid` (recovery).
    pub fn oid_seen(&self, oid: u32) {
        self.next_oid
            .fetch_max(oid + 1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Adds `db` (its name is free).
    pub fn insert(&self, db: Database) -> Arc<Database> {
        let db = Arc::new(db);
        self.databases.write().insert(db.name(), db.clone());
        db
    }

    /// Adds `db`, made by [`Database::new`] (its name is free).
    pub fn insert_arc(&self, db: Arc<Database>) {
        self.databases.write().insert(db.name(), db);
    }

    /// Takes database `name` out of the cluster; it goes away with its last session.
    pub fn remove(&self, name: &str) -> Option<Arc<Database>> {
        self.databases.write().remove(name)
    }

    /// The three databases a fresh cluster has, emptied (durable recovery rebuilds the
    /// list from the data directory).
    pub fn clear(&self) {
        self.databases.write().clear();
    }

    /// The sessions connected to database `oid`: (pid, user).
    pub fn sessions_of(&self, oid: u32) -> Vec<(i32, String)> {
        let mut out: Vec<(i32, String)> = self
            .backends
            .sessions
            .lock()
            .iter()
            .filter(|(_, b)| b.database == oid)
            .map(|(pid, b)| (*pid, b.user.clone()))
            .collect();
        out.sort_by_key(|b| b.0);
        out
    }

    /// Registers a session for CancelRequest; returns its (process id, secret key), or
    /// PostgreSQL's FATAL 53300 when `max_connections` sessions are open already, or
    /// when only the slots reserved for superusers are left and `s` is not one.
    pub fn register_session(&self, s: NewSession) -> error::Result<(i32, i32)> {
        let mut sessions = self.backends.sessions.lock();
        let max = self.config.max_connections;
        if sessions.len() >= max {
            return Err(error::Error::new(
                "53300",
                "sorry, too many clients already",
            ));
        }
        let reserved = self.config.superuser_reserved.min(max.saturating_sub(1));
        if !s.superuser && sessions.len() + reserved >= max {
            return Err(error::Error::new(
                "53300",
                "remaining connection slots are reserved for non-replication superuser \
                 connections",
            ));
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
                database: s.database,
                socket: s.socket,
                ssl: s.ssl,
                owner: s.owner,
                activity: s.activity,
            },
        );
        Ok((pid, secret))
    }

    pub fn unregister_session(&self, pid: i32) {
        self.backends.sessions.lock().remove(&pid);
        for db in self.databases() {
            db.notifier.forget(pid);
        }
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

/// One database: its catalog, data, transactions, vacuum, advisory locks and
/// LISTEN / NOTIFY channels. What databases share is in its [`Cluster`].
pub struct Database {
    pub oid: u32,
    /// Name, owner (pg_database_owner's members) and flags: ALTER DATABASE changes them.
    spec: parking_lot::RwLock<DatabaseSpec>,
    cluster: std::sync::Weak<Cluster>,
    pub catalog: Arc<Catalog>,
    pub txns: Arc<TxnManager>,
    /// What SERIALIZABLE transactions read and wrote (`storage::ssi`).
    pub serializable: storage::ssi::Serializable,
    /// pg_advisory_lock and kin.
    pub advisory: Arc<storage::advisory::AdvisoryLocks>,
    vacuum: VacuumWorker,
    /// LISTEN / NOTIFY.
    pub notifier: notify::Notifier,
    /// The durable mode (`--data-dir`): this database's log and checkpoints.
    pub durable: std::sync::OnceLock<Arc<durable::Durability>>,
}

impl Database {
    /// An empty database of `cluster` (not yet in its list: [`Cluster::insert`]).
    pub fn new(cluster: &Arc<Cluster>, oid: u32, spec: DatabaseSpec) -> Database {
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
            oid,
            spec: parking_lot::RwLock::new(spec),
            cluster: Arc::downgrade(cluster),
            catalog,
            txns,
            serializable: Default::default(),
            advisory: Default::default(),
            vacuum,
            notifier: Default::default(),
            durable: std::sync::OnceLock::new(),
        }
    }

    pub fn name(&self) -> String {
        self.spec.read().name.clone()
    }

    /// datdba.
    pub fn owner(&self) -> u32 {
        self.spec.read().owner
    }

    pub fn is_template(&self) -> bool {
        self.spec.read().is_template
    }

    pub fn allow_connections(&self) -> bool {
        self.spec.read().allow_connections
    }

    /// -1: no limit.
    pub fn connection_limit(&self) -> i32 {
        self.spec.read().connection_limit
    }

    /// Name, owner and flags as they are now.
    pub fn spec(&self) -> DatabaseSpec {
        self.spec.read().clone()
    }

    /// ALTER DATABASE: changes them (the name only through [`Cluster::rename`]).
    pub fn change(&self, f: impl FnOnce(&mut DatabaseSpec)) {
        f(&mut self.spec.write());
    }

    /// The cluster this database belongs to. Sessions hold their cluster, so it is
    /// there for as long as anything can reach a database.
    pub fn cluster(&self) -> Arc<Cluster> {
        self.cluster
            .upgrade()
            .expect("a database's cluster outlives its sessions")
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
}
