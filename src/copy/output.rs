//! COPY TO's writer: one row of a batch in PostgreSQL's text, csv or binary format,
//! appended to a buffer (the connection sends each row as one CopyData message, as
//! PostgreSQL does; psycopg and others parse a message as a row).

use crate::exec::vector::{Batch, Data};
use crate::types::SqlType;
use crate::types::text::TextFormat;
use crate::wire::encode;

use super::input::BINARY_SIGNATURE;
use super::options::{CopyOptions, Format, Header};

pub struct CopyWriter {
    opts: CopyOptions,
    types: Vec<SqlType>,
    /// CSV FORCE_QUOTE per column.
    force_quote: Vec<bool>,
    fmt: TextFormat,
    /// A value's text before escaping.
    scratch: Vec<u8>,
}

impl CopyWriter {
    pub fn new(
        opts: CopyOptions,
        types: Vec<SqlType>,
        force_quote: Vec<bool>,
        fmt: TextFormat,
    ) -> CopyWriter {
        CopyWriter {
            opts,
            types,
            force_quote,
            fmt,
            scratch: Vec::new(),
        }
    }

    pub fn format(&self) -> Format {
        self.opts.format
    }

    /// What goes before the first row: the binary header (sent with the first row, as
    /// PostgreSQL sends it) — the header line is a message of its own, see
    /// [`CopyWriter::header_line`].
    pub fn binary_header(&self, out: &mut Vec<u8>) {
        if self.opts.format == Format::Binary {
            out.extend_from_slice(BINARY_SIGNATURE);
            out.extend_from_slice(&0i32.to_be_bytes());
            out.extend_from_slice(&0i32.to_be_bytes());
        }
    }

    /// HEADER: the column names as a line.
    pub fn header_line(&mut self, names: &[String], out: &mut Vec<u8>) -> bool {
        if self.opts.header != Header::Yes || self.opts.format == Format::Binary {
            return false;
        }
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                out.push(self.opts.delimiter);
            }
            if self.opts.format == Format::Csv {
                // Names are quoted like values (FORCE_QUOTE does not apply).
                self.csv_value(name.as_bytes(), false, names.len() == 1, out);
            } else {
                self.text_value(name.as_bytes(), out);
            }
        }
        out.push(b'\n');
        true
    }

    /// The binary trailer, its own message.
    pub fn trailer(&self, out: &mut Vec<u8>) -> bool {
        if self.opts.format == Format::Binary {
            out.extend_from_slice(&(-1i16).to_be_bytes());
            return true;
        }
        false
    }

    /// Appends row `i` of `batch`.
    pub fn row(&mut self, batch: &Batch, i: usize, out: &mut Vec<u8>) {
        if self.opts.format == Format::Binary {
            out.extend_from_slice(&(self.types.len() as i16).to_be_bytes());
            for (v, ty) in batch.columns.iter().zip(&self.types) {
                if v.is_null(i) {
                    out.extend_from_slice(&(-1i32).to_be_bytes());
                    continue;
                }
                let at = out.len();
                out.extend_from_slice(&[0, 0, 0, 0]);
                encode::binary_value(out, v, i, ty.ty);
                let len = (out.len() - at - 4) as i32;
                out[at..at + 4].copy_from_slice(&len.to_be_bytes());
            }
            return;
        }
        let csv = self.opts.format == Format::Csv;
        for (c, v) in batch.columns.iter().enumerate().take(self.types.len()) {
            if c > 0 {
                out.push(self.opts.delimiter);
            }
            if v.is_null(i) {
                out.extend_from_slice(self.opts.null.as_bytes());
                continue;
            }
            // Integers need no escaping unless a digit or '-' could be special.
            if let Data::I32(x) = &v.data
                && !csv
                && self.opts.delimiter != b'-'
                && self.types[c].ty == crate::types::DataType::Int4
            {
                out.extend_from_slice(itoa::Buffer::new().format(x[i]).as_bytes());
                continue;
            }
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            encode::text_value(&mut scratch, v, i, self.types[c].ty, &self.fmt);
            if csv {
                let force = self.force_quote.get(c).copied().unwrap_or(false);
                self.csv_value(&scratch, force, self.types.len() == 1, out);
            } else {
                self.text_value(&scratch, out);
            }
            self.scratch = scratch;
        }
        out.push(b'\n');
    }

    /// Text format: backslash, the delimiter and control characters escaped.
    fn text_value(&self, value: &[u8], out: &mut Vec<u8>) {
        let delim = self.opts.delimiter;
        for &b in value {
            let escaped = match b {
                0x08 => Some(b'b'),
                0x0c => Some(b'f'),
                b'\n' => Some(b'n'),
                b'\r' => Some(b'r'),
                b'\t' => Some(b't'),
                0x0b => Some(b'v'),
                b'\\' => Some(b'\\'),
                _ if b == delim => Some(b),
                _ => None,
            };
            match escaped {
                Some(e) => {
                    out.push(b'\\');
                    out.push(e);
                }
                None => out.push(b),
            }
        }
    }

    /// CSV: quoted when forced, when it equals the null string, when it is `\.` as a
    /// row's only value, or when it holds the delimiter, the quote, CR or LF; quotes
    /// and escapes inside are escaped.
    fn csv_value(&self, value: &[u8], force: bool, single: bool, out: &mut Vec<u8>) {
        let (delim, quote, escape) = (self.opts.delimiter, self.opts.quote, self.opts.escape);
        let null = self.opts.null.as_bytes();
        let needs = force
            || value == null
            || (single && value == b"\\.")
            || value
                .iter()
                .any(|&b| b == delim || b == quote || b == b'\n' || b == b'\r');
        if !needs {
            out.extend_from_slice(value);
            return;
        }
        out.push(quote);
        for &b in value {
            if b == quote || b == escape {
                out.push(escape);
            }
            out.push(b);
        }
        out.push(quote);
    }
}
