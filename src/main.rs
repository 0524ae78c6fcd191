//! The `kiln` command: parse flags, open an in-memory database, serve it.

use std::sync::Arc;

use clap::Parser;
use mimalloc::MiMalloc;

use kiln::Database;
use kiln::wire::server::Server;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

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
}

fn main() {
    use std::io::IsTerminal;
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
    let db = Arc::new(Database::new());
    let server = match Server::bind(&addr, db) {
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
    tracing::info!("kiln listening on {bound} (in memory)");
    server.run();
    tracing::info!("kiln stopped");
}
