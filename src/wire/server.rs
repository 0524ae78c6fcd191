//! The listener: accepts connections and gives each its own thread.
//!
//! Thread per connection (PostgreSQL's process-per-connection model, lighter): a
//! statement runs on the thread that read it, with no hand-off, and a long query or a
//! client that stops reading blocks only its own thread. See docs/architecture.md for
//! why this replaced an async runtime.

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use super::connection::Connection;
use crate::Cluster;

/// Stack per connection thread: the binder and evaluator recurse over expression depth,
/// which the parser bounds (`sql::parse::PARSER_DEPTH_MAX`).
const CONNECTION_STACK_BYTES: usize = 64 << 20;

pub struct Server {
    listener: TcpListener,
    cluster: Arc<Cluster>,
    stopping: Arc<AtomicBool>,
}

/// Stops a running server from another thread.
#[derive(Clone)]
pub struct ShutdownHandle {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
}

impl ShutdownHandle {
    pub fn shutdown(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Answers a client the server cannot serve (no thread for it) with PostgreSQL's FATAL
/// for a full server, instead of a silent close.
fn refuse(stream: &mut TcpStream) {
    use std::io::Write;
    let mut out = super::codec::OutBuf::new();
    out.error(&crate::error::Error::new("53300", "sorry, too many clients already").into_fatal());
    let _ = stream.set_write_timeout(Some(std::time::Duration::from_millis(100)));
    let _ = stream.write_all(&out.buf);
}

impl Server {
    pub fn bind(addr: &str, cluster: Arc<Cluster>) -> io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        Ok(Server {
            listener,
            cluster,
            stopping: Arc::new(AtomicBool::new(false)),
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub fn shutdown_handle(&self) -> io::Result<ShutdownHandle> {
        Ok(ShutdownHandle {
            addr: self.local_addr()?,
            stopping: self.stopping.clone(),
        })
    }

    /// Accepts connections until shut down.
    pub fn run(self) {
        for stream in self.listener.incoming() {
            if self.stopping.load(Ordering::SeqCst) {
                break;
            }
            let stream = match stream {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    // Out of file descriptors and the like: back off briefly.
                    thread::sleep(std::time::Duration::from_millis(10));
                    continue;
                }
            };
            let cluster = self.cluster.clone();
            // Kept to tell the client why, should no thread start for it.
            let spare = stream.try_clone();
            let spawned = thread::Builder::new()
                .name("kiln-conn".into())
                .stack_size(CONNECTION_STACK_BYTES)
                .spawn(move || match Connection::new(cluster, stream) {
                    Ok(c) => c.run(),
                    Err(e) => tracing::debug!("connection setup failed: {e}"),
                });
            if let Err(e) = spawned {
                tracing::warn!("could not start a connection thread: {e}");
                if let Ok(mut s) = spare {
                    refuse(&mut s);
                }
            }
        }
        tracing::info!("listener stopped");
    }
}
