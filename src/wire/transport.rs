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

/// SCRAM-SHA-256-PLUS's `tls-server-end-point` binding data (RFC 5929) for the
/// certificate in `cert` (its first, the server's own): the certificate hashed with its
/// signature's hash function, SHA-256 in place of MD5 or SHA-1. None when the
/// certificate cannot be read or its signature algorithm is not one of RSA (PKCS #1)
/// or ECDSA with SHA-1/2 — then kiln offers no channel binding, as PostgreSQL does.
pub fn end_point_binding(cert: &Path) -> Option<Vec<u8>> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    use sha2::Digest;
    let der = CertificateDer::pem_file_iter(cert).ok()?.next()?.ok()?;
    let oid = signature_algorithm(&der)?;
    // The signature algorithms' OIDs, as DER content bytes.
    const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01];
    const ECDSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04];
    let bits = match oid.as_slice() {
        [p @ .., 4] | [p @ .., 5] if p == RSA => 256, // md5, sha1 with RSA
        [p @ .., 11] if p == RSA => 256,
        [p @ .., 12] if p == RSA => 384,
        [p @ .., 13] if p == RSA => 512,
        [p @ .., 14] if p == RSA => 256, // sha224: PostgreSQL's OpenSSL hashes with it; rare
        [p @ .., 1] if p == ECDSA => 256, // ecdsa-with-SHA1
        [p @ .., 3, 2] if p == ECDSA => 256,
        [p @ .., 3, 3] if p == ECDSA => 384,
        [p @ .., 3, 4] if p == ECDSA => 512,
        _ => return None,
    };
    Some(match bits {
        384 => sha2::Sha384::digest(der.as_ref()).to_vec(),
        512 => sha2::Sha512::digest(der.as_ref()).to_vec(),
        _ => sha2::Sha256::digest(der.as_ref()).to_vec(),
    })
}

/// The OID (content bytes) of a DER certificate's signatureAlgorithm: `Certificate ::=
/// SEQUENCE { tbsCertificate, signatureAlgorithm SEQUENCE { OID, … }, signature }`.
fn signature_algorithm(der: &[u8]) -> Option<Vec<u8>> {
    let (tag, cert, _) = der_item(der)?;
    if tag != 0x30 {
        return None;
    }
    let (_, _, rest) = der_item(cert)?; // tbsCertificate
    let (tag, alg, _) = der_item(rest)?;
    if tag != 0x30 {
        return None;
    }
    let (tag, oid, _) = der_item(alg)?;
    (tag == 0x06).then(|| oid.to_vec())
}

/// One DER item: (tag, content, what follows it).
fn der_item(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, b) = b.split_first()?;
    let (&first, mut b) = b.split_first()?;
    let len = if first < 0x80 {
        first as usize
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 || b.len() < n {
            return None;
        }
        let (bytes, rest) = b.split_at(n);
        b = rest;
        bytes.iter().fold(0usize, |a, &x| (a << 8) | x as usize)
    };
    if b.len() < len {
        return None;
    }
    let (content, rest) = b.split_at(len);
    Some((tag, content, rest))
}
