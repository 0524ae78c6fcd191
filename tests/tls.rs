//! TLS: a client's SSLRequest gets `S` when kiln has a certificate (`N` otherwise), the
//! handshake verifies against that certificate for "localhost" (what sslmode=verify-full
//! checks), and the session runs over it. The test certificate (tests/tls/, self-signed,
//! for localhost and 127.0.0.1) is test data only.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use common::TestServer;

const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

fn dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tls")
}

fn tls_server() -> TestServer {
    TestServer::start_with(kiln::Cluster::new(kiln::Config {
        tls: Some(
            kiln::wire::transport::server_config(
                &dir().join("server.crt"),
                &dir().join("server.key"),
            )
            .expect("test certificate"),
        ),
        ..Default::default()
    }))
}

fn startup_packet() -> Vec<u8> {
    let mut body = 196608i32.to_be_bytes().to_vec();
    body.extend_from_slice(b"user\0tester\0database\0test\0\0");
    let mut msg = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    msg.extend_from_slice(&body);
    msg
}

/// Reads until ReadyForQuery (`Z`) or the end; returns what came.
fn until_ready(s: &mut impl Read) -> Vec<u8> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(5).any(|w| w == [b'Z', 0, 0, 0, 5]) {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    seen
}

#[test]
fn a_session_runs_over_tls_verified_for_localhost() {
    let server = tls_server();
    let mut tcp = TcpStream::connect(server.addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    tcp.write_all(&SSL_REQUEST).unwrap();
    let mut answer = [0u8; 1];
    tcp.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"S");
    let cert = std::fs::read(dir().join("server.crt")).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    use rustls_pki_types::pem::PemObject;
    roots
        .add(rustls_pki_types::CertificateDer::from_pem_slice(&cert).unwrap())
        .unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = rustls_pki_types::ServerName::try_from("localhost").unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    tls.write_all(&startup_packet()).unwrap();
    let reply = until_ready(&mut tls);
    assert!(
        reply.starts_with(&[b'R', 0, 0, 0, 8, 0, 0, 0, 0]),
        "AuthenticationOk: {reply:?}"
    );
    // `ssl` reports on, and a query answers through the tunnel.
    let mut q = vec![b'Q'];
    let sql = b"SELECT 'over tls', current_setting('ssl')\0";
    q.extend_from_slice(&((sql.len() + 4) as i32).to_be_bytes());
    q.extend_from_slice(sql);
    tls.write_all(&q).unwrap();
    let reply = until_ready(&mut tls);
    let text = String::from_utf8_lossy(&reply);
    assert!(text.contains("over tls") && text.contains("on"), "{text}");
    assert_eq!(
        tls.conn.protocol_version(),
        Some(rustls::ProtocolVersion::TLSv1_3)
    );
    // pg_stat_ssl reports this session's TLS as PostgreSQL (OpenSSL) names it.
    let mut q = vec![b'Q'];
    let sql = b"SELECT ssl, version, cipher, bits FROM pg_stat_ssl WHERE pid = pg_backend_pid()\0";
    q.extend_from_slice(&((sql.len() + 4) as i32).to_be_bytes());
    q.extend_from_slice(sql);
    tls.write_all(&q).unwrap();
    let reply = until_ready(&mut tls);
    let text = String::from_utf8_lossy(&reply);
    assert!(
        text.contains("TLSv1.3") && text.contains("TLS_AES_"),
        "{text}"
    );
}

#[test]
fn plaintext_after_the_ssl_request_is_refused_and_no_certificate_means_n() {
    let server = tls_server();
    let mut tcp = TcpStream::connect(server.addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut both = SSL_REQUEST.to_vec();
    both.extend_from_slice(&startup_packet());
    tcp.write_all(&both).unwrap();
    let mut reply = Vec::new();
    let _ = tcp.read_to_end(&mut reply);
    let text = String::from_utf8_lossy(&reply);
    assert!(text.starts_with('S'), "{text}");
    assert!(
        text.contains("received unencrypted data after SSL request"),
        "{text}"
    );

    let plain = TestServer::start();
    let mut tcp = TcpStream::connect(plain.addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    tcp.write_all(&SSL_REQUEST).unwrap();
    let mut answer = [0u8; 1];
    tcp.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"N");
}
