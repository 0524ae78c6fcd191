//! Message framing: bounded reads of client messages and the server's output buffer.

use std::io::{self, Read, Write};

use crate::error::{Error, Result};

/// Largest startup packet accepted (PostgreSQL's MAX_STARTUP_PACKET_LENGTH).
pub const STARTUP_BYTES_MAX: usize = 10_000;
/// Largest regular message accepted: a statement text of up to 256 MiB.
pub const MESSAGE_BYTES_MAX: usize = 256 << 20;
/// The output buffer is written to the socket when it grows past this.
pub const FLUSH_BYTES: usize = 64 * 1024;

/// Reads exactly `n` bytes into `buf` (resized), growing it in steps so that a length
/// header alone cannot make kiln allocate memory the client never sends.
pub fn read_body(r: &mut impl Read, buf: &mut Vec<u8>, n: usize) -> io::Result<()> {
    buf.clear();
    const STEP: usize = 1 << 20;
    while buf.len() < n {
        let start = buf.len();
        let chunk = (n - start).min(STEP);
        buf.resize(start + chunk, 0);
        r.read_exact(&mut buf[start..])?;
    }
    Ok(())
}

/// A cursor over a message body; every read is bounds-checked.
pub struct MessageReader<'a> {
    data: &'a [u8],
    pos: usize,
}

/// PostgreSQL's messages for a malformed message body (its pqformat.c).
fn truncated() -> Error {
    Error::protocol_violation("insufficient data left in message")
}

impl<'a> MessageReader<'a> {
    pub fn new(data: &'a [u8]) -> MessageReader<'a> {
        MessageReader { data, pos: 0 }
    }
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    pub fn u8(&mut self) -> Result<u8> {
        let b = *self.data.get(self.pos).ok_or_else(truncated)?;
        self.pos += 1;
        Ok(b)
    }
    pub fn i16(&mut self) -> Result<i16> {
        let b = self.bytes(2)?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    }
    pub fn i32(&mut self) -> Result<i32> {
        let b = self.bytes(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or_else(truncated)?;
        let s = self.data.get(self.pos..end).ok_or_else(truncated)?;
        self.pos = end;
        Ok(s)
    }
    /// The end of the message: nothing may be left (a query string with a NUL inside
    /// leaves the rest).
    pub fn end(&self) -> Result<()> {
        if self.remaining() > 0 {
            return Err(Error::protocol_violation("invalid message format"));
        }
        Ok(())
    }
    /// A NUL-terminated string, validated as UTF-8.
    pub fn cstr(&mut self) -> Result<&'a str> {
        let rest = &self.data[self.pos..];
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| Error::protocol_violation("invalid string in message"))?;
        let s = std::str::from_utf8(&rest[..nul]).map_err(|_| Error::invalid_utf8())?;
        self.pos += nul + 1;
        Ok(s)
    }
}

/// Server messages are built here, then written in large pieces.
pub struct OutBuf {
    pub buf: Vec<u8>,
}

impl Default for OutBuf {
    fn default() -> Self {
        OutBuf::new()
    }
}

impl OutBuf {
    pub fn new() -> OutBuf {
        OutBuf {
            buf: Vec::with_capacity(FLUSH_BYTES * 2),
        }
    }

    /// Starts a message; returns the offset to pass to [`OutBuf::end`].
    #[inline]
    pub fn begin(&mut self, tag: u8) -> usize {
        self.buf.push(tag);
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0, 0, 0, 0]);
        at
    }

    /// Patches the length of the message started at `at`.
    #[inline]
    pub fn end(&mut self, at: usize) {
        let len = (self.buf.len() - at) as u32;
        self.buf[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn i16(&mut self, v: i16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    pub fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    pub fn cstr(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
    }

    pub fn error(&mut self, e: &Error) {
        let severity = if e.fatal { "FATAL" } else { "ERROR" };
        let at = self.notice_fields(
            b'E',
            severity,
            e.code,
            &e.message,
            e.detail.as_deref(),
            e.hint.as_deref(),
            e.position,
        );
        if let Some(c) = &e.context {
            self.u8(b'W');
            self.cstr(c);
        }
        if let Some(o) = &e.object {
            for (tag, v) in [
                (b's', &o.schema),
                (b't', &o.table),
                (b'c', &o.column),
                (b'n', &o.constraint),
            ] {
                if let Some(v) = v {
                    self.u8(tag);
                    self.cstr(v);
                }
            }
        }
        self.u8(0);
        self.end(at);
    }

    #[allow(clippy::too_many_arguments)]
    pub fn notice_or_error(
        &mut self,
        tag: u8,
        severity: &str,
        code: &str,
        message: &str,
        detail: Option<&str>,
        hint: Option<&str>,
        position: Option<u32>,
    ) {
        let at = self.notice_fields(tag, severity, code, message, detail, hint, position);
        self.u8(0);
        self.end(at);
    }

    /// Starts a NoticeResponse or ErrorResponse and writes its common fields; the
    /// caller adds any others, the terminator and ends the message.
    #[allow(clippy::too_many_arguments)]
    fn notice_fields(
        &mut self,
        tag: u8,
        severity: &str,
        code: &str,
        message: &str,
        detail: Option<&str>,
        hint: Option<&str>,
        position: Option<u32>,
    ) -> usize {
        let at = self.begin(tag);
        self.u8(b'S');
        self.cstr(severity);
        self.u8(b'V');
        self.cstr(severity);
        self.u8(b'C');
        self.cstr(code);
        self.u8(b'M');
        self.cstr(message);
        if let Some(d) = detail {
            self.u8(b'D');
            self.cstr(d);
        }
        if let Some(h) = hint {
            self.u8(b'H');
            self.cstr(h);
        }
        if let Some(p) = position.filter(|&p| p != Error::NO_POSITION) {
            self.u8(b'P');
            self.cstr(&p.to_string());
        }
        at
    }

    pub fn parameter_status(&mut self, name: &str, value: &str) {
        let at = self.begin(b'S');
        self.cstr(name);
        self.cstr(value);
        self.end(at);
    }

    pub fn command_complete(&mut self, tag: &str) {
        let at = self.begin(b'C');
        self.cstr(tag);
        self.end(at);
    }

    pub fn ready_for_query(&mut self, status: u8) {
        let at = self.begin(b'Z');
        self.u8(status);
        self.end(at);
    }

    pub fn empty(&mut self, tag: u8) {
        let at = self.begin(tag);
        self.end(at);
    }

    /// Writes everything buffered.
    pub fn flush(&mut self, w: &mut impl Write) -> io::Result<()> {
        if !self.buf.is_empty() {
            w.write_all(&self.buf)?;
            self.buf.clear();
        }
        w.flush()
    }

    /// Writes if the buffer is past the flush threshold.
    #[inline]
    pub fn maybe_flush(&mut self, w: &mut impl Write) -> io::Result<()> {
        if self.buf.len() >= FLUSH_BYTES {
            self.flush(w)
        } else {
            Ok(())
        }
    }
}
