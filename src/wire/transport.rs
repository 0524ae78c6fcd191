//! A connection's byte stream: the TCP socket, or TLS over it once the client asked
//! (SSLRequest) and the server has a certificate (`--tls-cert`, `--tls-key`; rustls).
//!
//! The connection reads through a `BufReader` and writes through a `BufWriter`; both
//! hold a [`Shared`] handle to the one transport, which the connection's thread (the
//! only one that touches it) switches from plain to TLS after answering `S`.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use rustls::{ServerConfig, ServerConnection, StreamOwned};

pub enum Transport {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ServerConnection, TcpStream>>),
}

/// One handle to the connection's transport, for its reader and its writer.
#[derive(Clone)]
pub struct Shared(Rc<RefCell<Transport>>);

impl Shared {
    pub fn new(stream: TcpStream) -> Shared {
        Shared(Rc::new(RefCell::new(Transport::Plain(stream))))
    }

    /// From now on, TLS over `tcp` (the handshake runs with the first read).
    pub fn start_tls(&self, config: Arc<ServerConfig>, tcp: TcpStream) -> io::Result<()> {
        let conn = ServerConnection::new(config).map_err(io::Error::other)?;
        *self.0.borrow_mut() = Transport::Tls(Box::new(StreamOwned::new(conn, tcp)));
        Ok(())
    }

    pub fn is_tls(&self) -> bool {
        matches!(*self.0.borrow(), Transport::Tls(_))
    }

    /// The TLS version and cipher suite in use, once negotiated.
    pub fn tls_details(&self) -> Option<(String, String)> {
        match &*self.0.borrow() {
            Transport::Tls(s) => {
                let version = s.conn.protocol_version().map(|v| match v {
                    rustls::ProtocolVersion::TLSv1_3 => "TLSv1.3".to_string(),
                    rustls::ProtocolVersion::TLSv1_2 => "TLSv1.2".to_string(),
                    other => format!("{other:?}"),
                })?;
                let suite = s
                    .conn
                    .negotiated_cipher_suite()
                    .map(|c| format!("{:?}", c.suite()))?;
                Some((version, suite))
            }
            Transport::Plain(_) => None,
        }
    }
}

impl Read for Shared {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut *self.0.borrow_mut() {
            Transport::Plain(s) => s.read(buf),
            Transport::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut *self.0.borrow_mut() {
            Transport::Plain(s) => s.write(buf),
            Transport::Tls(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut *self.0.borrow_mut() {
            Transport::Plain(s) => s.flush(),
            Transport::Tls(s) => s.flush(),
        }
    }
}

/// The server's TLS configuration from a PEM certificate chain and private key.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let certs = CertificateDer::pem_file_iter(cert)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("could not read certificate file {}: {e}", cert.display()))?;
    if certs.is_empty() {
        return Err(format!("no certificate in {}", cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("could not read private key file {}: {e}", key.display()))?;
    let config =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| format!("certificate and key do not make a TLS configuration: {e}"))?;
    Ok(Arc::new(config))
}
