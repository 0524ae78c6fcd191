//! PostgreSQL's frontend/backend protocol, version 3.
//!
//! - [`codec`]: reading client messages (bounded lengths, checked fields, UTF-8
//!   validation) and the output buffer that server messages are built in.
//! - [`encode`]: values and batches into RowDescription/DataRow, text and binary formats.
//! - [`connection`]: one client's message loop — startup, simple and extended query,
//!   cancel, errors — driving a [`Session`](crate::session::Session).
//! - [`server`]: the listener, one thread per connection.
//! - [`transport`]: the byte stream, plain TCP or TLS (rustls) after an SSLRequest.
//!
//! Output is batched: DataRows are encoded straight from column vectors into the
//! connection's buffer. A result's first write goes out at 2 KB, each later one at four
//! times the size of the one before up to [`codec::FLUSH_BYTES`] (64 KB), and the rest at
//! the end of the response: the client starts early, a long result leaves in 64 KB
//! writes, never one per row.

pub mod codec;
pub mod connection;
pub mod encode;
pub mod server;
pub mod transport;
