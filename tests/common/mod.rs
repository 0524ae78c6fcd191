//! Shared test support: a real kiln server in-process on a free port, and clients.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use kiln::Cluster;
use kiln::wire::server::{Server, ShutdownHandle};

pub struct TestServer {
    pub addr: SocketAddr,
    handle: ShutdownHandle,
}

impl TestServer {
    pub fn start() -> TestServer {
        TestServer::start_with(Cluster::default_arc())
    }

    /// A server over a cluster the test keeps a handle to.
    pub fn start_with(cluster: Arc<Cluster>) -> TestServer {
        let server = Server::bind("127.0.0.1:0", cluster).expect("bind a free port");
        let addr = server.local_addr().expect("local address");
        let handle = server.shutdown_handle().expect("shutdown handle");
        std::thread::spawn(move || server.run());
        TestServer { addr, handle }
    }

    pub fn url(&self) -> String {
        format!(
            "host={} port={} user=tester dbname=test",
            self.addr.ip(),
            self.addr.port()
        )
    }

    pub async fn connect(&self) -> tokio_postgres::Client {
        connect_url(&self.url()).await
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.handle.shutdown();
    }
}

pub async fn connect_url(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

/// Where a test's sessions connect: a kiln started for the test, or — with
/// `KILN_PG_URL` set (scripts/slt-postgres.sh) — a real PostgreSQL, proving the
/// test's expectations are PostgreSQL's.
pub struct Target {
    _server: Option<TestServer>,
    pub url: String,
}

impl Target {
    pub fn new() -> Target {
        match std::env::var("KILN_PG_URL") {
            Ok(url) => Target { _server: None, url },
            Err(_) => {
                let server = TestServer::start();
                let url = server.url();
                Target {
                    _server: Some(server),
                    url,
                }
            }
        }
    }

    pub async fn connect(&self) -> tokio_postgres::Client {
        connect_url(&self.url).await
    }
}

/// An error's SQLSTATE.
pub fn code(e: &tokio_postgres::Error) -> Option<&str> {
    e.code().map(|c| c.code())
}
