//! One client connection: startup, then the message loop.
//!
//! ```text
//!   startup ─▶ [SSLRequest/GSSENCRequest → 'N'] ─▶ StartupMessage ─▶ AuthenticationOk,
//!              ParameterStatus…, BackendKeyData, ReadyForQuery
//!   loop: Q (simple query) | P B D E C H S (extended) | X (terminate)
//! ```
//!
//! Every statement runs inside `catch_unwind`: a panic becomes `XX000` for this client,
//! its transaction rolls back, and the server and its other sessions carry on. After an
//! error in the extended protocol, messages are skipped until Sync, as PostgreSQL does.
//!
//! Results stream: rows are encoded in 128-row slices into the output buffer, which is
//! written once 2 KB have collected, then at 8, 32 and 64 KB — the client starts on the
//! first rows early, a long result leaves in 64 KB writes, and a small one in a single
//! write together with CommandComplete and ReadyForQuery. Between messages the loop
//! polls the socket for up to 50 µs (only while the client's last answer came that fast)
//! before sleeping in `read`, because a thread's wake-up is a large part of a round trip.

use std::collections::HashMap;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::net::TcpStream;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use super::codec::{self, MessageReader, OutBuf};
use super::encode;
use super::transport::Shared;
use crate::Cluster;
use crate::error::{Error, Result};
use crate::session::TxnStatus;
use crate::session::copy::{CopyIn, CopyOut};
use crate::session::settings::REPORTED;
use crate::session::{Outcome, Prepared, RowStream, Session};
use crate::types::{DataType, SqlType, Value};

const SSL_REQUEST: i32 = 80_877_103;
const GSSENC_REQUEST: i32 = 80_877_104;
const CANCEL_REQUEST: i32 = 80_877_102;
/// Rows encoded between checks of the output buffer's flush threshold.
const STREAM_SLICE_ROWS: usize = 128;
/// How long a connection polls for the next message before sleeping in `read`.
const SPIN: Duration = Duration::from_micros(50);

/// Connection threads spinning right now: at most one per core spins, so that many
/// busy connections on few cores leave the cores to work (and to the clients).
static SPINNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Connection threads handling a message right now. When they fill the cores, a
/// connection waiting for its client sleeps at once: spinning would take a core from
/// them (and from the clients, on a machine they share).
static WORKING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Cores the machine has (read once).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
/// The first write of a result goes out once 2 KB are encoded; each later write waits
/// for this many times more bytes than the one before, up to the 64 KB of
/// `codec::FLUSH_BYTES`. The client gets its first rows early and is kept fed while it
/// parses them, a long result still leaves in 64 KB writes, and a small result is a
/// single write with its CommandComplete and ReadyForQuery (one client wake-up).
const FLUSH_GROWTH: usize = 4;
const FIRST_FLUSH_BYTES: usize = 2 * 1024;
/// A client that has not read any output for this long is disconnected.
const WRITE_TIMEOUT: Duration = Duration::from_secs(300);

struct Portal {
    prepared: Arc<Prepared>,
    params: Vec<Value>,
    formats: Vec<i16>,
    stream: Option<RowStream>,
    done: bool,
}

pub struct Connection {
    cluster: Arc<Cluster>,
    reader: BufReader<Shared>,
    writer: BufWriter<Shared>,
    /// The socket itself, for polling and timeouts (under TLS too).
    tcp: TcpStream,
    transport: Shared,
    out: OutBuf,
    body: Vec<u8>,
    session: Option<Session>,
    portals: HashMap<String, Portal>,
    pid: i32,
    /// What pg_stat_activity shows of this session.
    activity: crate::SharedActivity,
}

enum Flow {
    Continue,
    Close,
}

/// An I/O failure in the middle of a COPY: the connection is gone.
fn lost(e: io::Error) -> Error {
    Error::new("08006", format!("connection lost during COPY: {e}"))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

impl Connection {
    pub fn new(cluster: Arc<Cluster>, stream: TcpStream) -> io::Result<Connection> {
        stream.set_nodelay(true)?;
        stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
        let tcp = stream.try_clone()?;
        let transport = Shared::new(stream);
        Ok(Connection {
            cluster,
            reader: BufReader::with_capacity(64 * 1024, transport.clone()),
            writer: BufWriter::with_capacity(64 * 1024, transport.clone()),
            tcp,
            transport,
            out: OutBuf::new(),
            body: Vec::new(),
            session: None,
            portals: HashMap::new(),
            pid: 0,
            activity: Default::default(),
        })
    }

    /// A statement starts: pg_stat_activity shows it running (a transaction starts with
    /// it unless one is open).
    fn activity_start(&mut self, sql: &str) {
        let now = crate::session::now_micros();
        let app = self.application_name();
        let mut a = self.activity.lock();
        a.query.clear();
        a.query.push_str(sql);
        if a.state == "idle" || a.xact_start.is_none() {
            a.xact_start = Some(now);
        }
        a.state = "active";
        a.query_start = Some(now);
        a.state_change = Some(now);
        a.application_name = app;
    }

    fn application_name(&self) -> String {
        self.session
            .as_ref()
            .and_then(|s| s.settings.get("application_name"))
            .map(|(_, v)| v.to_string())
            .unwrap_or_default()
    }

    /// ReadyForQuery with transaction status `status`: the session waits.
    fn activity_idle(&mut self, status: u8) {
        let app = self.application_name();
        let mut a = self.activity.lock();
        a.application_name = app;
        a.state = match status {
            b'T' => "idle in transaction",
            b'E' => "idle in transaction (aborted)",
            _ => "idle",
        };
        if status == b'I' {
            a.xact_start = None;
        }
        a.state_change = Some(crate::session::now_micros());
    }

    /// Serves the client until it leaves or the connection fails.
    pub fn run(mut self) {
        match self.startup() {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                tracing::debug!("startup failed: {e}");
                return;
            }
        }
        if let Err(e) = self.message_loop() {
            tracing::debug!("connection {} ended: {e}", self.pid);
        }
    }

    fn fatal(&mut self, e: Error) -> io::Result<()> {
        self.out.error(&e.into_fatal());
        self.out.flush(&mut self.writer)
    }

    /// Returns Ok(false) when the connection should close without a session.
    fn startup(&mut self) -> io::Result<bool> {
        loop {
            let mut len_bytes = [0u8; 4];
            self.reader.read_exact(&mut len_bytes)?;
            let len = i32::from_be_bytes(len_bytes);
            if len < 8 || len as usize > codec::STARTUP_BYTES_MAX {
                self.fatal(Error::protocol_violation(
                    "invalid length of startup packet",
                ))?;
                return Ok(false);
            }
            let mut body = Vec::new();
            codec::read_body(&mut self.reader, &mut body, len as usize - 4)?;
            let mut r = MessageReader::new(&body);
            let code = r.i32().unwrap_or(0);
            match code {
                SSL_REQUEST if !self.transport.is_tls() && self.cluster.config.tls.is_some() => {
                    self.writer.write_all(b"S")?;
                    self.writer.flush()?;
                    // Bytes sent after the request, before the handshake, would be read
                    // as if they had been encrypted (CVE-2021-23214 in PostgreSQL).
                    if !self.reader.buffer().is_empty() {
                        self.fatal(Error::protocol_violation(
                            "received unencrypted data after SSL request",
                        ))?;
                        return Ok(false);
                    }
                    let (Some(config), Ok(tcp)) =
                        (self.cluster.config.tls.clone(), self.tcp.try_clone())
                    else {
                        return Ok(false);
                    };
                    self.transport.start_tls(config, tcp)?;
                    continue;
                }
                SSL_REQUEST | GSSENC_REQUEST => {
                    self.writer.write_all(b"N")?;
                    self.writer.flush()?;
                    continue;
                }
                CANCEL_REQUEST => {
                    if let (Ok(pid), Ok(secret)) = (r.i32(), r.i32()) {
                        self.cluster.cancel(pid, secret);
                    }
                    return Ok(false);
                }
                _ => {}
            }
            if code >> 16 != 3 {
                self.fatal(Error::new(
                    "0A000",
                    format!(
                        "unsupported frontend protocol {}.{}: server supports 3.0 to 3.0",
                        code >> 16,
                        code & 0xffff
                    ),
                ))?;
                return Ok(false);
            }
            let mut params: Vec<(String, String)> = Vec::new();
            loop {
                let key = match r.cstr() {
                    Ok(k) => k,
                    Err(e) => {
                        self.fatal(e)?;
                        return Ok(false);
                    }
                };
                if key.is_empty() {
                    break;
                }
                let value = match r.cstr() {
                    Ok(v) => v,
                    Err(e) => {
                        self.fatal(e)?;
                        return Ok(false);
                    }
                };
                params.push((key.to_string(), value.to_string()));
            }
            return self.finish_startup(code, params);
        }
    }

    fn finish_startup(&mut self, code: i32, params: Vec<(String, String)>) -> io::Result<bool> {
        let get = |k: &str| {
            params
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        let Some(user) = get("user") else {
            self.fatal(Error::new(
                "28000",
                "no PostgreSQL user name specified in startup packet",
            ))?;
            return Ok(false);
        };
        let database = get("database").unwrap_or_else(|| user.clone());
        let superuser = match self.authenticate(&user) {
            Ok(superuser) => superuser,
            Err(e) => {
                self.out.buf.clear();
                self.fatal(e)?;
                return Ok(false);
            }
        };
        let db = match self.cluster.connect_to(&database, &user, superuser) {
            Ok(db) => db,
            Err(e) => {
                self.out.buf.clear();
                self.fatal(e)?;
                return Ok(false);
            }
        };
        let role = self.cluster.roles.get(&user).map_or(0, |r| r.oid);
        let (global, of_role) = self.cluster.roles.session_settings(role, db.oid);
        let mut defaults = global;
        defaults.extend(db.spec().settings);
        defaults.extend(of_role);
        let mut session = Session::new(db, &user);
        // ALTER ROLE / DATABASE … SET: the defaults of the role and the database, under
        // what the client asks.
        for (name, value) in &defaults {
            if let Err(e) = session.settings.set(name, Some(value)) {
                tracing::warn!("role or database setting {name}: {}", e.message);
            }
        }
        let mut unrecognized = Vec::new();
        for (k, v) in &params {
            let result = match k.as_str() {
                "user" | "database" | "replication" => Ok(None),
                "options" => apply_options(&mut session, v),
                k if k.starts_with("_pq_.") => {
                    unrecognized.push(k.to_string());
                    Ok(None)
                }
                k => session.settings.set(k, Some(v)),
            };
            if let Err(e) = result {
                self.fatal(e)?;
                return Ok(false);
            }
        }
        if !superuser {
            session
                .settings
                .set_server_value("is_superuser", "off".into());
            session.login_superuser = false;
        }
        session.mark_session_defaults();
        let at = self.out.begin(b'R');
        self.out.i32(0);
        self.out.end(at);
        if code & 0xffff != 0 || !unrecognized.is_empty() {
            let at = self.out.begin(b'v');
            self.out.i32(0);
            self.out.i32(unrecognized.len() as i32);
            for u in &unrecognized {
                self.out.cstr(u);
            }
            self.out.end(at);
        }
        for name in REPORTED {
            if let Some((display, value)) = session.settings.get(name) {
                let (display, value) = (display.to_string(), value.to_string());
                self.out.parameter_status(&display, &value);
            }
        }
        {
            let mut a = self.activity.lock();
            a.state = "idle";
            a.backend_start = crate::session::now_micros();
            a.state_change = Some(a.backend_start);
            a.client = self.tcp.peer_addr().ok();
            a.application_name = session
                .settings
                .get("application_name")
                .map(|(_, v)| v.to_string())
                .unwrap_or_default();
        }
        let registered = self.cluster.register_session(crate::NewSession {
            cancel: session.cancel.clone(),
            user: user.clone(),
            superuser,
            database: session.db.oid,
            socket: self.tcp.try_clone().ok(),
            ssl: self.transport.tls_details(),
            owner: session.lock_owner(),
            activity: self.activity.clone(),
        });
        let (pid, secret) = match registered {
            Ok(ids) => ids,
            Err(e) => {
                // Nothing was sent yet but the authentication request: PostgreSQL
                // answers the client over the limit with this FATAL.
                self.out.buf.clear();
                self.fatal(e)?;
                return Ok(false);
            }
        };
        self.pid = pid;
        session.pid = pid;
        let at = self.out.begin(b'K');
        self.out.i32(pid);
        self.out.i32(secret);
        self.out.end(at);
        self.out.ready_for_query(b'I');
        self.out.flush(&mut self.writer)?;
        self.session = Some(session);
        tracing::debug!("connection {pid}: user {user}, database {database}");
        Ok(true)
    }

    /// NotificationResponses for what this session's channels heard, when it is not in
    /// a transaction block (`status` is ReadyForQuery's).
    fn send_notifications(&mut self, status: u8) {
        if status != b'I' || self.pid == 0 {
            return;
        }
        let Some(db) = self.session.as_ref().map(|s| s.db.clone()) else {
            return;
        };
        for n in db.notifier.take(self.pid) {
            let at = self.out.begin(b'A');
            self.out.i32(n.pid);
            self.out.cstr(&n.channel);
            self.out.cstr(&n.payload);
            self.out.end(at);
        }
    }

    /// While a listening session waits idle for its client (plain TCP), its
    /// notifications go out as they arrive: the socket is polled every
    /// `notify::IDLE_POLL` until the client sends something.
    fn wait_listening(&mut self) -> io::Result<()> {
        let idle = self
            .session
            .as_ref()
            .is_some_and(|s| s.status == TxnStatus::Idle);
        if !idle
            || !self.reader.buffer().is_empty()
            || self.transport.is_tls()
            || !self
                .session
                .as_ref()
                .is_some_and(|s| s.db.notifier.is_listening(self.pid))
        {
            return Ok(());
        }
        let _ = self.tcp.set_read_timeout(Some(crate::notify::IDLE_POLL));
        let mut probe = [0u8; 1];
        loop {
            match self.tcp.peek(&mut probe) {
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    self.send_notifications(b'I');
                    if !self.out.buf.is_empty() {
                        self.out.flush(&mut self.writer)?;
                    }
                    if self.terminated() {
                        break;
                    }
                }
                _ => break,
            }
        }
        let _ = self.tcp.set_read_timeout(None);
        Ok(())
    }

    /// log_min_duration_statement: a statement that took at least that long is logged
    /// (PostgreSQL's "duration: … ms  statement: …" line).
    fn log_duration(&self, started: std::time::Instant, sql: &str) {
        let Some(limit) = self
            .session
            .as_ref()
            .and_then(|s| s.settings.log_min_duration)
        else {
            return;
        };
        let took = started.elapsed();
        if took >= limit {
            tracing::info!(
                "connection {}: duration: {:.3} ms  statement: {sql}",
                self.pid,
                took.as_secs_f64() * 1000.0
            );
        }
    }

    /// Whether pg_terminate_backend ended this session.
    fn terminated(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|s| s.cancel.is_terminated())
    }

    /// Runs the `--auth` exchange for `user`; returns whether the user is a superuser.
    /// Trust lets every name in as a superuser.
    fn authenticate(&mut self, user: &str) -> Result<bool> {
        let method = self.cluster.config.auth;
        let role = self.cluster.roles.get(user);
        match method {
            crate::auth::Method::Trust => Ok(role.is_none_or(|r| r.superuser)),
            // Under md5 too: PostgreSQL 15 answers md5 with SCRAM for a role whose
            // password is stored as a SCRAM verifier, and kiln stores only those.
            crate::auth::Method::Scram | crate::auth::Method::Md5 => {
                // Over TLS with a certificate whose binding data is known, the channel
                // binding variant is offered first (as PostgreSQL does).
                let end_point = self
                    .cluster
                    .config
                    .tls_end_point
                    .clone()
                    .filter(|_| self.transport.is_tls());
                let at = self.out.begin(b'R');
                self.out.i32(10);
                if end_point.is_some() {
                    self.out.cstr("SCRAM-SHA-256-PLUS");
                }
                self.out.cstr("SCRAM-SHA-256");
                self.out.u8(0);
                self.out.end(at);
                self.send_auth()?;
                let body = self.password_message()?;
                let mut r = MessageReader::new(&body);
                let mechanism = r.cstr()?;
                let binding = match (mechanism, &end_point) {
                    ("SCRAM-SHA-256", None) => crate::auth::Binding::None,
                    ("SCRAM-SHA-256", Some(_)) => crate::auth::Binding::Declined,
                    ("SCRAM-SHA-256-PLUS", Some(data)) => crate::auth::Binding::Plus(data),
                    _ => {
                        return Err(Error::protocol_violation(
                            "client selected an invalid SASL authentication mechanism",
                        )
                        .into_fatal());
                    }
                };
                let len = r.i32()?;
                let first = r.bytes(len.max(0) as usize)?;
                let first = std::str::from_utf8(first).map_err(|_| crate::auth::failed(user))?;
                let exchange = crate::auth::ScramExchange::start(role.as_ref(), first, binding)?;
                let at = self.out.begin(b'R');
                self.out.i32(11);
                self.out
                    .buf
                    .extend_from_slice(exchange.server_first().as_bytes());
                self.out.end(at);
                self.send_auth()?;
                let body = self.password_message()?;
                let last = std::str::from_utf8(&body).map_err(|_| crate::auth::failed(user))?;
                let server_final = exchange.finish(last, user)?;
                let at = self.out.begin(b'R');
                self.out.i32(12);
                self.out.buf.extend_from_slice(server_final.as_bytes());
                self.out.end(at);
                Ok(role.is_some_and(|r| r.superuser))
            }
        }
    }

    fn send_auth(&mut self) -> Result<()> {
        self.out
            .flush(&mut self.writer)
            .map_err(|e| Error::new("08006", format!("could not send data to client: {e}")))
    }

    /// The client's next message during authentication: a PasswordMessage ('p').
    fn password_message(&mut self) -> Result<Vec<u8>> {
        let lost = |e: io::Error| Error::new("08006", format!("connection lost: {e}"));
        let mut header = [0u8; 5];
        self.reader.read_exact(&mut header).map_err(lost)?;
        if header[0] != b'p' {
            return Err(Error::protocol_violation(format!(
                "expected password response, got message type {}",
                header[0]
            ))
            .into_fatal());
        }
        let len = i32::from_be_bytes([header[1], header[2], header[3], header[4]]);
        if !(4..=10_000).contains(&len) {
            return Err(Error::protocol_violation("invalid password packet size").into_fatal());
        }
        let mut body = Vec::new();
        codec::read_body(&mut self.reader, &mut body, len as usize - 4).map_err(lost)?;
        Ok(body)
    }

    fn message_loop(&mut self) -> io::Result<()> {
        let mut skip_to_sync = false;
        // How long the client took to send its last message after our last response.
        let mut last_gap = Duration::ZERO;
        loop {
            let waited = std::time::Instant::now();
            if last_gap < SPIN {
                self.spin_for_next_message();
            }
            // idle_in_transaction_session_timeout: a block left idle too long ends the
            // connection (its transaction rolls back when the session drops).
            let idle_limit = self.session.as_ref().and_then(|s| {
                let in_block = matches!(s.status, TxnStatus::InBlock | TxnStatus::Failed);
                s.settings.idle_in_transaction_timeout.filter(|_| in_block)
            });
            if idle_limit.is_some() && self.reader.buffer().is_empty() {
                let _ = self.tcp.set_read_timeout(idle_limit);
            }
            self.wait_listening()?;
            let mut header = [0u8; 5];
            let read = self.reader.read_exact(&mut header);
            last_gap = waited.elapsed();
            if self.terminated() {
                return self.fatal(Error::new(
                    "57P01",
                    "terminating connection due to administrator command",
                ));
            }
            if idle_limit.is_some() {
                let _ = self.tcp.set_read_timeout(None);
            }
            if let Err(e) = read {
                if idle_limit.is_some()
                    && matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    )
                {
                    self.fatal(Error::new(
                        "25P03",
                        "terminating connection due to idle-in-transaction timeout",
                    ))?;
                    return Ok(());
                }
                return if e.kind() == io::ErrorKind::UnexpectedEof {
                    Ok(())
                } else {
                    Err(e)
                };
            }
            let tag = header[0];
            // An unknown type ends the connection before its length is trusted (a
            // second startup packet starts with a zero byte), as in PostgreSQL.
            if !b"QPBDECHSXdcfFp".contains(&tag) {
                self.fatal(Error::protocol_violation(format!(
                    "invalid frontend message type {tag}"
                )))?;
                return Ok(());
            }
            let len = i32::from_be_bytes([header[1], header[2], header[3], header[4]]);
            if len < 4 || len as usize - 4 > codec::MESSAGE_BYTES_MAX {
                self.fatal(Error::protocol_violation(format!(
                    "invalid message length {len}"
                )))?;
                return Ok(());
            }
            let mut body = std::mem::take(&mut self.body);
            codec::read_body(&mut self.reader, &mut body, len as usize - 4)?;
            WORKING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let flow = self.dispatch(tag, &body, &mut skip_to_sync);
            WORKING.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            // Keep a modest buffer for the next message; drop huge ones.
            if body.capacity() > 1 << 20 {
                body = Vec::new();
            }
            self.body = body;
            match flow? {
                Flow::Continue => {}
                Flow::Close => return Ok(()),
            }
        }
    }

    /// Waits briefly for the client's next message by polling the socket instead of
    /// sleeping in `read`: a client that answers within `SPIN` (psql running a script,
    /// a driver in a transaction) then finds the thread awake — on a virtual machine a
    /// sleeping thread's wake-up costs tens of microseconds per statement. Adaptive:
    /// the message loop spins only while the client's last answer came within `SPIN`,
    /// so a client that pauses (reading a large result, or idle) costs no spinning.
    fn spin_for_next_message(&mut self) {
        use std::sync::atomic::Ordering;
        if !self.reader.buffer().is_empty() {
            return;
        }
        if WORKING.load(Ordering::Relaxed) >= cores() {
            return;
        }
        if SPINNING.fetch_add(1, Ordering::AcqRel) >= cores().saturating_sub(1).max(1) {
            SPINNING.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        self.spin();
        SPINNING.fetch_sub(1, Ordering::AcqRel);
    }

    fn spin(&mut self) {
        let sock = &self.tcp;
        if sock.set_nonblocking(true).is_err() {
            return;
        }
        let start = std::time::Instant::now();
        let mut probe = [0u8; 1];
        loop {
            match sock.peek(&mut probe) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if start.elapsed() >= SPIN
                        || WORKING.load(std::sync::atomic::Ordering::Relaxed) >= cores()
                    {
                        break;
                    }
                    std::hint::spin_loop();
                }
                _ => break,
            }
        }
        let _ = sock.set_nonblocking(false);
    }

    fn session(&mut self) -> &mut Session {
        // The loop only runs after startup stored the session.
        self.session.get_or_insert_with(|| {
            let cluster = Cluster::default_arc();
            Session::new(cluster.postgres_database(), "kiln")
        })
    }

    fn dispatch(&mut self, tag: u8, body: &[u8], skip_to_sync: &mut bool) -> io::Result<Flow> {
        if *skip_to_sync && !matches!(tag, b'S' | b'X') {
            return Ok(Flow::Continue);
        }
        let result = match tag {
            b'Q' => {
                self.simple_query(body)?;
                return Ok(Flow::Continue);
            }
            b'P' => self.parse_message(body),
            b'B' => self.bind_message(body),
            b'D' => self.describe_message(body),
            b'E' => self.execute_message(body),
            b'C' => self.close_message(body),
            b'H' => {
                self.out.flush(&mut self.writer)?;
                return Ok(Flow::Continue);
            }
            b'S' => {
                *skip_to_sync = false;
                let session = self.session();
                session.end_implicit();
                let status = session.status.indicator();
                self.send_notifications(status);
                self.activity_idle(status);
                self.out.ready_for_query(status);
                self.out.flush(&mut self.writer)?;
                return Ok(Flow::Continue);
            }
            b'X' => return Ok(Flow::Close),
            b'd' | b'c' | b'f' => Ok(()),
            other => {
                self.fatal(Error::protocol_violation(format!(
                    "invalid frontend message type {other}"
                )))?;
                return Ok(Flow::Close);
            }
        };
        if let Err(e) = result {
            self.session().abort_on_error();
            if self.terminated() {
                self.fatal(Error::new(
                    "57P01",
                    "terminating connection due to administrator command",
                ))?;
                return Ok(Flow::Close);
            }
            self.out.error(&e);
            *skip_to_sync = true;
            // An error goes out at once, as PostgreSQL sends it: the client may be
            // waiting after a Flush that the skip to Sync would otherwise ignore.
            return self.out.flush(&mut self.writer).map(|()| Flow::Continue);
        }
        self.out.maybe_flush(&mut self.writer)?;
        Ok(Flow::Continue)
    }

    fn send_notices(&mut self) {
        let session = self.session.as_mut();
        let Some(session) = session else { return };
        for w in session.parse_warnings.get_mut().drain(..) {
            self.out.notice_or_error(
                b'N',
                "WARNING",
                w.code,
                &w.message,
                None,
                w.hint.as_deref(),
                w.position,
            );
        }
        let notices = std::mem::take(&mut session.notices);
        let changed = std::mem::take(&mut session.changed_settings);
        let statuses: Vec<(String, String)> = changed
            .iter()
            .filter_map(|name| {
                session
                    .settings
                    .get(name)
                    .map(|(d, v)| (d.to_string(), v.to_string()))
            })
            .collect();
        for (severity, code, message) in notices {
            self.out
                .notice_or_error(b'N', &severity, &code, &message, None, None, None);
        }
        let raised = std::mem::take(&mut *session.exec_notices.lock());
        for n in raised {
            self.out.notice_or_error(
                b'N',
                "NOTICE",
                n.code,
                &n.message,
                n.detail.as_deref(),
                n.hint.as_deref(),
                None,
            );
        }
        for (name, value) in statuses {
            self.out.parameter_status(&name, &value);
        }
    }

    /// Runs `f` with panics turned into `XX000`.
    fn guarded<T>(&mut self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        match catch_unwind(AssertUnwindSafe(|| f(self))) {
            Ok(r) => r,
            Err(p) => {
                let msg = panic_message(p);
                tracing::error!("statement panicked: {msg}");
                Err(Error::internal(format!("internal error: {msg}")))
            }
        }
    }

    fn simple_query(&mut self, body: &[u8]) -> io::Result<()> {
        let mut r = MessageReader::new(body);
        let sql = match r.cstr().and_then(|s| r.end().map(|()| s)) {
            Ok(s) => s.to_string(),
            Err(e) => {
                self.out.error(&e);
                let status = self.session().status.indicator();
                self.send_notifications(status);
                self.out.ready_for_query(status);
                return self.out.flush(&mut self.writer);
            }
        };
        self.portals.remove("");
        self.activity_start(&sql);
        let parsed = self.guarded(|c| c.session().parse(&sql));
        self.send_notices();
        match parsed {
            Err(e) => {
                let e = attach_position(e, &sql);
                self.session().abort_on_error();
                self.out.error(&e);
            }
            Ok(statements) if statements.is_empty() => self.out.empty(b'I'),
            Ok(statements) => {
                let multi = statements.len() > 1;
                for stmt in &statements {
                    if multi {
                        self.session().begin_implicit();
                    }
                    // Each statement is bound just before it runs, so it sees the tables
                    // the statements before it created.
                    let started = std::time::Instant::now();
                    let result = self.guarded(|c| {
                        let p = c.session().bind(&sql, stmt, &[])?;
                        c.run_statement_simple(&p)
                    });
                    self.log_duration(started, &stmt.to_string());
                    self.send_notices();
                    if let Err(e) = result {
                        let e = attach_position(e, &sql);
                        self.session().abort_on_error();
                        self.out.error(&e);
                        break;
                    }
                    if !multi {
                        self.session().end_implicit();
                    }
                }
                self.session().end_implicit();
            }
        }
        let status = self.session().status.indicator();
        self.send_notifications(status);
        self.activity_idle(status);
        self.out.ready_for_query(status);
        self.out.flush(&mut self.writer)
    }

    fn run_statement_simple(&mut self, p: &Prepared) -> Result<()> {
        let outcome = self.session().execute(p, vec![])?;
        match outcome {
            Outcome::Empty => self.out.empty(b'I'),
            Outcome::Done { tag } => {
                self.send_notices();
                self.out.command_complete(&tag);
            }
            Outcome::CopyIn(mut copy) => {
                let n = self.copy_in(&mut copy)?;
                self.out.command_complete(&format!("COPY {n}"));
            }
            Outcome::CopyOut(mut copy) => {
                let n = self.copy_out(&mut copy)?;
                self.out.command_complete(&format!("COPY {n}"));
            }
            Outcome::Rows(mut stream) => {
                // A BINARY cursor's rows go in binary; the extended protocol's Bind
                // chooses for itself.
                let formats: &[i16] = if stream.binary { &[1] } else { &[] };
                encode::row_description(&mut self.out, &stream.columns, formats);
                self.stream_rows(&mut stream, formats, usize::MAX)?;
                self.out.command_complete(&stream.command_tag());
            }
        }
        Ok(())
    }

    /// Sends up to `max_rows` rows; returns true if the stream is exhausted.
    fn stream_rows(
        &mut self,
        stream: &mut RowStream,
        formats: &[i16],
        max_rows: usize,
    ) -> Result<bool> {
        let types: Vec<SqlType> = stream.columns.iter().map(|c| c.ty).collect();
        let fmt = stream.ctx.fmt;
        let mut left = max_rows;
        // Bytes to collect before the next write.
        let mut flush_at = FIRST_FLUSH_BYTES;
        while left > 0 {
            let Some(batch) = stream.next_batch()? else {
                return Ok(true);
            };
            let live = batch.live_rows();
            // Encode in slices and flush as the buffer fills, so the client starts
            // parsing while later rows are still being encoded (a sort emits one large
            // batch; encoding it whole first would make the client wait for all of it).
            let mut sent = 0;
            while sent < live && left > 0 {
                let n = encode::data_rows(
                    &mut self.out,
                    &batch,
                    &types,
                    formats,
                    &fmt,
                    sent,
                    left.min(STREAM_SLICE_ROWS),
                );
                sent += n;
                left -= n;
                let flushed = if self.out.buf.len() >= flush_at {
                    flush_at = (flush_at * FLUSH_GROWTH).min(codec::FLUSH_BYTES);
                    self.out.flush(&mut self.writer)
                } else {
                    Ok(())
                };
                flushed.map_err(|e| {
                    Error::new("08006", format!("could not send data to client: {e}"))
                })?;
            }
            stream.rows_sent += sent as u64;
            if sent < live {
                let rest: Vec<u32> = batch.selection()[sent..].to_vec();
                stream.pending = Some(crate::exec::vector::Batch {
                    sel: Some(rest),
                    ..batch
                });
            }
        }
        match stream.next_batch()? {
            None => Ok(true),
            Some(b) => {
                stream.pending = Some(b);
                Ok(false)
            }
        }
    }

    fn parse_message(&mut self, body: &[u8]) -> Result<()> {
        let mut r = MessageReader::new(body);
        let name = r.cstr()?.to_string();
        let sql = r.cstr()?.to_string();
        let count = r.i16()?;
        if count < 0 {
            return Err(Error::protocol_violation("invalid parameter count"));
        }
        // Every declared type is read (and the message's end checked) before any is
        // looked at, as PostgreSQL reads a Parse.
        let mut oids = Vec::with_capacity((count as usize).min(r.remaining() / 4));
        for _ in 0..count {
            oids.push(r.i32()? as u32);
        }
        r.end()?;
        let mut declared = Vec::with_capacity(oids.len());
        for oid in oids {
            if oid == 0 {
                declared.push(None);
            } else {
                let ty = DataType::from_oid(oid).ok_or_else(|| {
                    Error::feature_not_supported(format!("parameter type with OID {oid}"))
                })?;
                declared.push(Some(SqlType::new(ty)));
            }
        }
        if !name.is_empty() && self.session().prepared.contains_key(&name) {
            return Err(Error::new(
                "42P05",
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        let p = self.guarded(|c| c.session().prepare_one(&sql, &declared));
        self.send_notices();
        let p = p.map_err(|e| attach_position(e, &sql))?;
        self.session().prepared.insert(name, Arc::new(p));
        self.out.empty(b'1');
        Ok(())
    }

    fn bind_message(&mut self, body: &[u8]) -> Result<()> {
        let mut r = MessageReader::new(body);
        let portal = r.cstr()?.to_string();
        let stmt_name = r.cstr()?.to_string();
        let prepared = self
            .session()
            .prepared
            .get(&stmt_name)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    "26000",
                    format!("prepared statement \"{stmt_name}\" does not exist"),
                )
            })?;
        let nformats = r.i16()?;
        if nformats < 0 {
            return Err(Error::protocol_violation("invalid format count"));
        }
        let mut param_formats = Vec::with_capacity(nformats as usize);
        for _ in 0..nformats {
            param_formats.push(r.i16()?);
        }
        let nparams = r.i16()? as i32;
        let expected = prepared.param_types.len();
        if nparams < 0 || nparams as usize != expected {
            return Err(Error::protocol_violation(format!(
                "bind message supplies {nparams} parameters, but prepared statement \"{stmt_name}\" requires {expected}"
            )));
        }
        if param_formats.len() > 1 && param_formats.len() != expected {
            return Err(Error::protocol_violation(format!(
                "bind message has {} parameter formats but {expected} parameters",
                param_formats.len()
            )));
        }
        let fmt = self.session().text_format();
        let mut params = Vec::with_capacity(expected);
        for i in 0..expected {
            let len = r.i32()?;
            let raw = if len < 0 {
                None
            } else {
                Some(r.bytes(len as usize)?)
            };
            let binary = encode::format_of(&param_formats, i) == 1;
            params.push(encode::decode_param(
                raw,
                prepared.param_types[i],
                binary,
                i,
                &fmt,
            )?);
        }
        let nres = r.i16()?;
        if nres < 0 {
            return Err(Error::protocol_violation("invalid format count"));
        }
        let mut formats = Vec::with_capacity(nres as usize);
        for _ in 0..nres {
            let f = r.i16()?;
            if f != 0 && f != 1 {
                return Err(Error::protocol_violation(format!(
                    "unsupported format code: {f}"
                )));
            }
            formats.push(f);
        }
        if self.session().status == crate::session::TxnStatus::Failed {
            let is_end = matches!(
                prepared.statement,
                Some(crate::plan::BoundStatement::Transaction(
                    crate::plan::TransactionOp::Commit | crate::plan::TransactionOp::Rollback
                ))
            );
            if !is_end {
                return Err(Error::in_failed_transaction());
            }
        }
        self.portals.insert(
            portal,
            Portal {
                prepared,
                params,
                formats,
                stream: None,
                done: false,
            },
        );
        self.out.empty(b'2');
        Ok(())
    }

    fn describe_message(&mut self, body: &[u8]) -> Result<()> {
        let mut r = MessageReader::new(body);
        let kind = r.u8()?;
        let name = r.cstr()?.to_string();
        match kind {
            b'S' => {
                let p = self.session().prepared.get(&name).cloned().ok_or_else(|| {
                    Error::new(
                        "26000",
                        format!("prepared statement \"{name}\" does not exist"),
                    )
                })?;
                let at = self.out.begin(b't');
                self.out.i16(p.param_types.len() as i16);
                for t in &p.param_types {
                    self.out.i32(t.ty.oid() as i32);
                }
                self.out.end(at);
                match &p.columns {
                    Some(cols) => encode::row_description(&mut self.out, cols, &[]),
                    None => self.out.empty(b'n'),
                }
            }
            b'P' => {
                // A cursor DECLAREd in SQL is a portal too (psycopg describes it so).
                if !self.portals.contains_key(&name)
                    && let Some(cols) = self.session().cursor_columns(&name)
                {
                    encode::row_description(&mut self.out, &cols, &[]);
                    return Ok(());
                }
                let portal = self.portals.get(&name).ok_or_else(|| {
                    Error::new("34000", format!("portal \"{name}\" does not exist"))
                })?;
                match &portal.prepared.columns {
                    Some(cols) => {
                        let (cols, formats) = (cols.clone(), portal.formats.clone());
                        encode::row_description(&mut self.out, &cols, &formats)
                    }
                    None => self.out.empty(b'n'),
                }
            }
            _ => {
                return Err(Error::protocol_violation(format!(
                    "invalid DESCRIBE message subtype {kind}"
                )));
            }
        }
        Ok(())
    }

    fn execute_message(&mut self, body: &[u8]) -> Result<()> {
        let mut r = MessageReader::new(body);
        let name = r.cstr()?.to_string();
        let max_rows = r.i32()?;
        let max_rows = if max_rows <= 0 {
            usize::MAX
        } else {
            max_rows as usize
        };
        let mut portal = self
            .portals
            .remove(&name)
            .ok_or_else(|| Error::new("34000", format!("portal \"{name}\" does not exist")))?;
        let started = std::time::Instant::now();
        self.activity_start(&portal.prepared.sql);
        let result = self
            .guarded(|c| c.run_portal(&mut portal, max_rows))
            // A statement bound again before it ran (a table it names changed) reports
            // name errors with a position, as at Parse.
            .map_err(|e| attach_position(e, &portal.prepared.sql));
        self.send_notices();
        self.log_duration(started, &portal.prepared.sql);
        // A named portal stays until closed; the unnamed one until the next Bind.
        self.portals.insert(name, portal);
        result
    }

    fn run_portal(&mut self, portal: &mut Portal, max_rows: usize) -> Result<()> {
        if portal.done {
            self.out.command_complete("SELECT 0");
            return Ok(());
        }
        if portal.stream.is_none() {
            if portal.prepared.statement.is_none() {
                self.out.empty(b'I');
                portal.done = true;
                return Ok(());
            }
            self.session().begin_implicit();
            let prepared = portal.prepared.clone();
            let params = std::mem::take(&mut portal.params);
            match self.session().execute(&prepared, params)? {
                Outcome::Empty => {
                    self.out.empty(b'I');
                    portal.done = true;
                    return Ok(());
                }
                Outcome::Done { tag } => {
                    self.send_notices();
                    self.out.command_complete(&tag);
                    portal.done = true;
                    return Ok(());
                }
                Outcome::Rows(stream) => portal.stream = Some(*stream),
                Outcome::CopyIn(mut copy) => {
                    let n = self.copy_in(&mut copy)?;
                    self.out.command_complete(&format!("COPY {n}"));
                    portal.done = true;
                    return Ok(());
                }
                Outcome::CopyOut(mut copy) => {
                    let n = self.copy_out(&mut copy)?;
                    self.out.command_complete(&format!("COPY {n}"));
                    portal.done = true;
                    return Ok(());
                }
            }
        }
        let mut stream = portal
            .stream
            .take()
            .ok_or_else(|| Error::internal("portal without stream"))?;
        let finished = self.stream_rows(&mut stream, &portal.formats, max_rows)?;
        if finished {
            self.out.command_complete(&stream.command_tag());
            portal.done = true;
        } else {
            self.out.empty(b's');
            portal.stream = Some(stream);
        }
        Ok(())
    }

    /// COPY FROM STDIN: CopyInResponse, then the client's CopyData until CopyDone (the
    /// rows stored) or CopyFail (57014). Flush and Sync are ignored meanwhile, as
    /// PostgreSQL does for clients that send them after every Execute.
    fn copy_in(&mut self, copy: &mut CopyIn) -> Result<u64> {
        let format = copy.format().wire_code();
        let columns = copy.column_count();
        let at = self.out.begin(b'G');
        self.out.u8(format as u8);
        self.out.i16(columns as i16);
        for _ in 0..columns {
            self.out.i16(format as i16);
        }
        self.out.end(at);
        self.out.flush(&mut self.writer).map_err(lost)?;
        let mut body = std::mem::take(&mut self.body);
        let result = loop {
            let mut header = [0u8; 5];
            if let Err(e) = self.reader.read_exact(&mut header) {
                break Err(lost(e));
            }
            let tag = header[0];
            let len = i32::from_be_bytes([header[1], header[2], header[3], header[4]]);
            if len < 4 || len as usize - 4 > codec::MESSAGE_BYTES_MAX {
                break Err(Error::protocol_violation(format!(
                    "invalid message length {len}"
                )));
            }
            if let Err(e) = codec::read_body(&mut self.reader, &mut body, len as usize - 4) {
                break Err(lost(e));
            }
            match tag {
                b'd' => {
                    if let Err(e) = self.session().copy_data(copy, &body) {
                        break Err(e);
                    }
                }
                b'c' => break self.session().copy_done(copy),
                b'f' => {
                    let why = MessageReader::new(&body).cstr().unwrap_or("").to_string();
                    break Err(
                        Error::new("57014", format!("COPY from stdin failed: {why}"))
                            .with_context(copy.line_context()),
                    );
                }
                b'H' | b'S' => {}
                other => {
                    break Err(Error::protocol_violation(format!(
                        "unexpected message type 0x{other:02X} during COPY from stdin"
                    ))
                    .with_context(copy.line_context()));
                }
            }
        };
        if body.capacity() > 1 << 20 {
            body = Vec::new();
        }
        self.body = body;
        result
    }

    /// COPY TO STDOUT: CopyOutResponse, a CopyData per row (the header line its own,
    /// the binary header with the first row, the binary trailer its own), CopyDone.
    fn copy_out(&mut self, copy: &mut CopyOut) -> Result<u64> {
        let format = copy.writer.format().wire_code();
        let columns = copy.names.len();
        let at = self.out.begin(b'H');
        self.out.u8(format as u8);
        self.out.i16(columns as i16);
        for _ in 0..columns {
            self.out.i16(format as i16);
        }
        self.out.end(at);
        let mut line = Vec::new();
        if copy.writer.header_line(&copy.names, &mut line) {
            self.copy_data(&line);
            line.clear();
        }
        copy.writer.binary_header(&mut line);
        let mut count = 0u64;
        let mut flush_at = FIRST_FLUSH_BYTES;
        while let Some(batch) = copy.stream.next_batch()? {
            for r in batch.selection() {
                copy.writer.row(&batch, r as usize, &mut line);
                self.copy_data(&line);
                line.clear();
                count += 1;
            }
            if self.out.buf.len() >= flush_at {
                flush_at = (flush_at * FLUSH_GROWTH).min(codec::FLUSH_BYTES);
                self.out.flush(&mut self.writer).map_err(lost)?;
            }
        }
        copy.writer.trailer(&mut line);
        if !line.is_empty() {
            self.copy_data(&line);
        }
        let at = self.out.begin(b'c');
        self.out.end(at);
        Ok(count)
    }

    fn copy_data(&mut self, bytes: &[u8]) {
        let at = self.out.begin(b'd');
        self.out.buf.extend_from_slice(bytes);
        self.out.end(at);
    }

    fn close_message(&mut self, body: &[u8]) -> Result<()> {
        let mut r = MessageReader::new(body);
        let kind = r.u8()?;
        let name = r.cstr()?.to_string();
        match kind {
            b'S' => {
                self.session().prepared.remove(&name);
            }
            b'P' => {
                self.portals.remove(&name);
            }
            _ => {
                return Err(Error::protocol_violation(format!(
                    "invalid CLOSE message subtype {kind}"
                )));
            }
        }
        self.out.empty(b'3');
        Ok(())
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if self.pid != 0 {
            self.cluster.unregister_session(self.pid);
        }
    }
}

/// Applies `-c name=value` / `--name=value` items of the startup `options` parameter.
fn apply_options(session: &mut Session, options: &str) -> Result<Option<String>> {
    let mut words = options.split_whitespace();
    while let Some(w) = words.next() {
        let item = if w == "-c" {
            words.next().unwrap_or("")
        } else if let Some(rest) = w.strip_prefix("-c") {
            rest
        } else if let Some(rest) = w.strip_prefix("--") {
            rest
        } else {
            continue;
        };
        if let Some((k, v)) = item.split_once('=') {
            session.settings.set(&k.replace('-', "_"), Some(v))?;
        }
    }
    Ok(None)
}

/// Gives errors about a named column or relation a cursor position, as PostgreSQL does.
fn attach_position(e: Error, sql: &str) -> Error {
    if e.position.is_some() {
        return e;
    }
    let quoted = match e.code {
        "42703" | "42P01" | "42702" | "42803" => e.message.split('"').nth(1).map(str::to_string),
        _ => None,
    };
    let Some(name) = quoted else { return e };
    let name = name.rsplit('.').next().unwrap_or(&name).to_string();
    // An empty name ("a." names nothing after its dot) is nowhere to point at.
    if name.is_empty() {
        return e;
    }
    let lower = sql.to_lowercase();
    let bytes = lower.as_bytes();
    let mut start = 0;
    while let Some(found) = lower[start..].find(&name) {
        let at = start + found;
        let before_ok =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        let end = at + name.len();
        let after_ok =
            end >= bytes.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
        if before_ok && after_ok {
            let mut at_char = at;
            // A name inside a string literal ('s', '"S"': a regclass argument) is
            // pointed at from the literal's opening quote.
            let mut q = at;
            if q >= 1 && bytes[q - 1] == b'"' {
                q -= 1;
            }
            if q >= 1 && bytes[q - 1] == b'\'' {
                at_char = q - 1;
            }
            // Point at a qualifier ("t.x") when there is one.
            if at >= 2 && bytes[at - 1] == b'.' {
                let q_start = lower[..at - 1]
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map_or(0, |i| i + 1);
                at_char = q_start;
            }
            let pos = sql[..at_char].chars().count() as u32 + 1;
            return e.with_position(pos);
        }
        start = at + name.len();
    }
    e
}
