//! The `kiln` command: parse flags, open an in-memory database, serve it.

use clap::Parser;
use mimalloc::MiMalloc;

use kiln::Cluster;
use kiln::wire::server::Server;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its index in `mi_option_e`, v2 and v3 alike).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// How long freed memory stays mapped before mimalloc returns it to the OS.
const PURGE_DELAY_MS: i64 = 1_000;

/// mimalloc returns freed memory to the OS 10 ms after it is freed by default. A client
/// like psql spends longer than that reading one large result, so every query's sort and
/// output buffers were faulted in afresh (measured: ~1.4 ms per `large_sort` query). A
/// one-second delay keeps memory mapped across a burst of queries and still gives it
/// back when the server goes quiet. `MIMALLOC_PURGE_DELAY` in the environment wins.
fn tune_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: mi_option_set only stores an integer in mimalloc's option table; it is not
    // thread safe, so it runs first thing in main, before any thread is spawned.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS as _) };
}

/// An in-memory SQL database that speaks PostgreSQL's wire protocol.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "KILN_LISTEN", default_value = "127.0.0.1")]
    listen: String,
    /// TCP port.
    #[arg(long, short = 'p', env = "KILN_PORT", default_value_t = 5433)]
    port: u16,
    /// Sessions at most; one more is refused with FATAL 53300 (PostgreSQL's
    /// max_connections).
    #[arg(long, env = "KILN_MAX_CONNECTIONS", default_value_t = kiln::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// Of max_connections, the slots only superusers get (PostgreSQL's
    /// superuser_reserved_connections).
    #[arg(long, env = "KILN_SUPERUSER_RESERVED_CONNECTIONS", default_value_t = kiln::DEFAULT_SUPERUSER_RESERVED)]
    superuser_reserved_connections: usize,
    /// How clients authenticate: trust (any user name is a superuser; loopback only),
    /// scram-sha-256 or md5 (a role's password).
    #[arg(long, env = "KILN_AUTH", default_value = "trust")]
    auth: String,
    /// The superuser role created at start (its password from --password-file).
    #[arg(long, env = "KILN_SUPERUSER", default_value = "kiln")]
    superuser: String,
    /// A file whose first line is the superuser's password (needed unless --auth trust).
    #[arg(long, env = "KILN_PASSWORD_FILE")]
    password_file: Option<std::path::PathBuf>,
    /// PEM certificate chain for TLS (with --tls-key): clients that ask get TLS.
    #[arg(long, env = "KILN_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,
    /// Keep the database in this directory (a redo log and checkpoints; created if
    /// missing). Without it, kiln keeps everything in memory only.
    #[arg(long, env = "KILN_DATA_DIR")]
    data_dir: Option<std::path::PathBuf>,
    /// PEM private key for TLS (with --tls-cert).
    #[arg(long, env = "KILN_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
}

/// Whether `listen` (a --listen value) is a loopback address only.
fn loopback_only(listen: &str) -> bool {
    if listen == "localhost" {
        return true;
    }
    listen
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

fn main() {
    use std::io::IsTerminal;
    tune_allocator();
    tracing_subscriber::fmt()
        .with_ansi(std::io::stdout().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("KILN_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let args = Args::parse();
    let addr = if args.listen.contains(':') && !args.listen.starts_with('[') {
        format!("[{}]:{}", args.listen, args.port)
    } else {
        format!("{}:{}", args.listen, args.port)
    };
    let Some(auth) = kiln::auth::Method::parse(&args.auth) else {
        eprintln!(
            "kiln: --auth must be trust, scram-sha-256 or md5, not \"{}\"",
            args.auth
        );
        std::process::exit(2);
    };
    if auth == kiln::auth::Method::Trust && !loopback_only(&args.listen) {
        eprintln!(
            "kiln: refusing to listen on {} with --auth trust: anyone who can reach the port \
             would be a superuser. Use --auth scram-sha-256 --password-file FILE, or listen \
             on 127.0.0.1.",
            args.listen
        );
        std::process::exit(2);
    }
    if args.superuser_reserved_connections >= args.max_connections {
        eprintln!(
            "kiln: --superuser-reserved-connections ({}) must be less than --max-connections \
             ({})",
            args.superuser_reserved_connections, args.max_connections
        );
        std::process::exit(2);
    }
    let mut config = kiln::Config {
        max_connections: args.max_connections,
        superuser_reserved: args.superuser_reserved_connections,
        auth,
        ..Default::default()
    };
    if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
        match kiln::wire::transport::server_config(cert, key) {
            Ok(tls) => {
                config.tls = Some(tls);
                config.tls_end_point = kiln::wire::transport::end_point_binding(cert);
            }
            Err(e) => {
                eprintln!("kiln: {e}");
                std::process::exit(2);
            }
        }
    }
    let password = match &args.password_file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => Some(text.lines().next().unwrap_or("").to_string()),
            Err(e) => {
                eprintln!(
                    "kiln: could not read --password-file {}: {e}",
                    path.display()
                );
                std::process::exit(2);
            }
        },
        None => None,
    };
    if auth != kiln::auth::Method::Trust && password.as_deref().is_none_or(str::is_empty) {
        eprintln!(
            "kiln: --auth {} needs --password-file FILE with the password of superuser \"{}\"",
            args.auth, args.superuser
        );
        std::process::exit(2);
    }
    let cluster = Cluster::new(config);
    cluster.roles.put(
        &args.superuser,
        Some(kiln::auth::Role {
            oid: kiln::auth::BOOTSTRAP_SUPERUSER_OID,
            name: args.superuser.clone(),
            superuser: true,
            login: true,
            createdb: true,
            secret: password.map(|p| kiln::auth::Secret::new(&p)),
        }),
    );
    if let Some(dir) = &args.data_dir {
        match kiln::durable::cluster::DataDir::open(&cluster, dir) {
            Ok(data) => {
                let _ = cluster.durable.set(data);
            }
            Err(e) => {
                eprintln!("kiln: {}", e.message);
                std::process::exit(1);
            }
        }
    }
    let server = match Server::bind(&addr, cluster.clone()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kiln: could not listen on {addr}: {e}");
            std::process::exit(1);
        }
    };
    let handle = match server.shutdown_handle() {
        Ok(h) => h,
        Err(e) => {
            eprintln!("kiln: {e}");
            std::process::exit(1);
        }
    };
    let mut signals = match signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
    ]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kiln: could not install signal handlers: {e}");
            std::process::exit(1);
        }
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            tracing::info!("received signal {sig}, shutting down");
            handle.shutdown();
        }
    });
    let bound = server.local_addr().map(|a| a.to_string()).unwrap_or(addr);
    match &args.data_dir {
        Some(dir) => tracing::info!("kiln listening on {bound} (data in {})", dir.display()),
        None => tracing::info!("kiln listening on {bound} (in memory)"),
    }
    server.run();
    if let Some(data) = cluster.durable.get() {
        data.shutdown(&cluster);
    }
    tracing::info!("kiln stopped");
}
