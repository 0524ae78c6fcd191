//! PostgreSQL's frontend/backend protocol, version 3.
//!
//! - [`codec`]: reading client messages (bounded lengths, checked fields, UTF-8
//!   validation) and the output buffer that server messages are built in.
//! - [`encode`]: values and batches into RowDescription/DataRow, text and binary formats.
//! - [`connection`]: one client's message loop — startup, simple and extended query,
//!   cancel, errors — driving a [`Session`](crate::session::Session).
//! - [`server`]: the listener, one thread per connection.
//!
//! Output is batched: DataRows are encoded straight from column vectors into the
//! connection's buffer, which is written when it passes [`codec::FLUSH_BYTES`] and at the
//! end of each response — one syscall per ~64 KB, never one per row.

pub mod codec;
pub mod connection;
pub mod encode;
pub mod server;
