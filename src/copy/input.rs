//! COPY FROM's reader: bytes as they arrive (CopyData messages cut anywhere) become
//! rows in column vectors, in PostgreSQL's text, csv and binary formats.
//!
//! The reader keeps the bytes of the record it has not finished and a scan position
//! with the scanner's state (inside a quoted csv field, after a backslash), so a record
//! spread over many messages is scanned once. A complete record is split into fields
//! and each field is parsed straight into its column's vector by the column type's
//! input rules — integers, floats, dates and unconstrained text without a `Value` in
//! between. Errors carry PostgreSQL's CONTEXT line: `COPY t, line 3, column b: "x"` for a
//! field, `COPY t, line 3: "…"` for the record as a whole.

use crate::error::{Error, Result};
use crate::exec::vector::{Data, Vector};
use crate::types::text::{self, TextFormat};
use crate::types::{DataType, Numeric, SqlType, Value, cast, datetime};

use super::options::{CopyOptions, Format, Header};

/// The binary format's signature: `PGCOPY\n\377\r\n\0`.
pub const BINARY_SIGNATURE: &[u8; 11] = b"PGCOPY\n\xff\r\n\0";
/// The longest record kept while waiting for its end (PostgreSQL's limit on a line
/// is 1 GB; a client cannot make the server hold more than this for one record).
const RECORD_BYTES_MAX: usize = 512 << 20;
/// Rows the session stores at a time (and the capacity the column vectors start with).
pub const BATCH_ROWS: usize = 8192;
/// PostgreSQL shows at most this many bytes of a line or value in a CONTEXT line.
const DISPLAY_MAX: usize = 100;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Eol {
    Unknown,
    Nl,
    Cr,
    CrNl,
}

/// One target column of the COPY.
pub struct Target {
    pub name: String,
    pub ty: SqlType,
    /// CSV FORCE_NOT_NULL: an unquoted null string is an empty string here.
    pub force_not_null: bool,
    /// CSV FORCE_NULL: a quoted null string is NULL here too.
    pub force_null: bool,
    /// NOT NULL: a row with NULL here keeps its text for the error's CONTEXT.
    pub not_null: bool,
    /// An enum column's type: its labels are the only values (22P02 for others).
    pub enum_type: Option<std::sync::Arc<crate::catalog::types::UserType>>,
}

impl Target {
    /// 22P02 unless `s` is one of an enum column's labels.
    fn check_label(&self, s: &str) -> Result<()> {
        match &self.enum_type {
            Some(t) if t.position(s).is_none() => Err(t.bad_label(s)),
            _ => Ok(()),
        }
    }
}

/// Rows a reader parsed: one vector per target column, each row's input line and
/// (text and csv) raw text.
pub struct Rows {
    table: String,
    pub columns: Vec<Vector>,
    pub lines: Vec<u64>,
    raw: Vec<u8>,
    raw_ends: Vec<usize>,
}

impl Rows {
    /// The CONTEXT of a constraint error on row `r`: with the row's text when
    /// `with_text` (PostgreSQL checks NOT NULL and CHECK as it reads a line; unique
    /// keys later, when the line is gone).
    pub fn context(&self, r: usize, with_text: bool) -> Option<String> {
        let line = *self.lines.get(r)?;
        let start = match r {
            0 => 0,
            _ => self.raw_ends.get(r - 1).copied().unwrap_or(0),
        };
        if with_text && self.raw_ends.get(r).is_some_and(|&e| e > start) {
            let text = display(&self.raw[start..self.raw_ends[r]]);
            return Some(format!("COPY {}, line {line}: \"{text}\"", self.table));
        }
        Some(format!("COPY {}, line {line}", self.table))
    }

    /// Keeps only rows `sel` (COPY … WHERE).
    pub fn keep(&mut self, sel: &[u32]) {
        self.lines = sel.iter().map(|&r| self.lines[r as usize]).collect();
        if !self.raw_ends.is_empty() {
            let mut raw = Vec::new();
            let mut ends = Vec::with_capacity(sel.len());
            for &r in sel {
                let r = r as usize;
                let start = if r == 0 { 0 } else { self.raw_ends[r - 1] };
                raw.extend_from_slice(&self.raw[start..self.raw_ends[r]]);
                ends.push(raw.len());
            }
            self.raw = raw;
            self.raw_ends = ends;
        }
    }
}

pub struct CopyReader {
    opts: CopyOptions,
    table: String,
    targets: Vec<Target>,
    fmt: TextFormat,
    /// Unconsumed input: the start of the record being read.
    pending: Vec<u8>,
    /// How far into `pending` the scan for the record's end got, and its state there.
    scanned: usize,
    in_quote: bool,
    last_was_escape: bool,
    eol: Eol,
    /// Records read (the line number of errors).
    line: u64,
    header_left: bool,
    binary_header_read: bool,
    /// The end marker (`\.`) or the binary trailer was read: the rest is ignored.
    ended: bool,
    columns: Vec<Vector>,
    /// The line number of each buffered row.
    lines: Vec<u64>,
    /// The raw text of the buffered rows that may fail a row check (text and csv), for
    /// CONTEXT lines: every row when `keep_raw`, else rows with NULL in a NOT NULL
    /// column.
    raw: Vec<u8>,
    raw_ends: Vec<usize>,
    keep_raw: bool,
    /// Scratch: fields' de-escaped bytes, and each field of the record being read: its
    /// range in `field_bytes` (true) or in `pending` (false); None is NULL.
    field_bytes: Vec<u8>,
    fields: Vec<Option<(usize, usize, bool)>>,
}

impl CopyReader {
    /// `keep_raw`: the table has checks that could fail any row (CHECK constraints, or
    /// NOT NULL columns the data leaves to their defaults).
    pub fn new(
        opts: CopyOptions,
        table: &str,
        targets: Vec<Target>,
        fmt: TextFormat,
        keep_raw: bool,
    ) -> CopyReader {
        let columns = targets
            .iter()
            .map(|t| Vector::with_capacity(t.ty.ty, BATCH_ROWS))
            .collect();
        CopyReader {
            header_left: opts.header != Header::No,
            opts,
            table: table.to_string(),
            targets,
            fmt,
            pending: Vec::new(),
            scanned: 0,
            in_quote: false,
            last_was_escape: false,
            eol: Eol::Unknown,
            line: 0,
            binary_header_read: false,
            ended: false,
            columns,
            lines: Vec::new(),
            raw: Vec::new(),
            raw_ends: Vec::new(),
            keep_raw,
            field_bytes: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// Rows parsed and not yet taken.
    pub fn buffered_rows(&self) -> usize {
        self.lines.len()
    }

    /// Bytes the buffered rows hold (for batching by size).
    pub fn buffered_bytes(&self) -> usize {
        self.columns.iter().map(|c| c.heap_bytes()).sum()
    }

    /// The buffered rows.
    pub fn take_rows(&mut self) -> Rows {
        // The next batch's vectors, sized like this one's (no regrowth while parsing).
        let fresh = self
            .targets
            .iter()
            .zip(&self.columns)
            .map(|(t, used)| {
                let mut v = Vector::with_capacity(t.ty.ty, BATCH_ROWS);
                if let (Data::Text(new), Data::Text(old)) = (&mut v.data, &used.data) {
                    new.data
                        .reserve(old.data.len().saturating_sub(new.data.capacity()));
                }
                v
            })
            .collect();
        let raw_capacity = self.raw.len();
        Rows {
            table: self.table.clone(),
            columns: std::mem::replace(&mut self.columns, fresh),
            lines: std::mem::take(&mut self.lines),
            raw: std::mem::replace(&mut self.raw, Vec::with_capacity(raw_capacity)),
            raw_ends: std::mem::replace(&mut self.raw_ends, Vec::with_capacity(BATCH_ROWS)),
        }
    }

    /// Records read so far.
    pub fn lines_read(&self) -> u64 {
        self.line
    }

    /// `COPY t, line N`.
    pub fn row_context(&self, line: u64) -> String {
        format!("COPY {}, line {line}", self.table)
    }

    /// Takes back the first `k` fields of a row that failed at field `k`.
    fn drop_partial_row(&mut self, k: usize) {
        for c in &mut self.columns[..k] {
            let len = c.len();
            *c = c.slice(0, len - 1);
        }
    }

    /// Takes the next chunk of input and parses every record it completes.
    pub fn feed(&mut self, data: &[u8]) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        self.pending.extend_from_slice(data);
        let consumed = match self.opts.format {
            Format::Binary => self.parse_binary(false)?,
            _ => self.parse_lines(false)?,
        };
        self.pending.drain(..consumed);
        self.scanned -= consumed.min(self.scanned);
        if self.pending.len() > RECORD_BYTES_MAX {
            return Err(Error::program_limit(format!(
                "COPY record is longer than {} bytes",
                RECORD_BYTES_MAX
            ))
            .with_context(format!("COPY {}, line {}", self.table, self.line + 1)));
        }
        Ok(())
    }

    /// The end of the input: the last record may lack its line end.
    pub fn finish(&mut self) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        let consumed = match self.opts.format {
            Format::Binary => self.parse_binary(true)?,
            _ => self.parse_lines(true)?,
        };
        self.pending.drain(..consumed);
        self.ended = true;
        Ok(())
    }

    // ---- text and csv -------------------------------------------------------------

    /// Parses the complete records in `pending`; returns the bytes consumed.
    fn parse_lines(&mut self, at_end: bool) -> Result<usize> {
        let csv = self.opts.format == Format::Csv;
        let mut start = 0;
        loop {
            if self.ended {
                return Ok(self.pending.len());
            }
            // A full batch goes to the table before more is parsed (`feed(&[])` goes on).
            if self.lines.len() >= BATCH_ROWS && !at_end {
                return Ok(start);
            }
            let Some((end, next)) = self.find_record_end(start, at_end)? else {
                if at_end && start < self.pending.len() {
                    // The last record, without a line end.
                    if csv && self.in_quote {
                        self.line += 1;
                        return Err(Error::new("22P04", "unterminated CSV quoted field")
                            .with_context(self.line_context(start, self.pending.len())));
                    }
                    let end = self.pending.len();
                    self.line += 1;
                    self.record(start, end)?;
                    return Ok(end);
                }
                return Ok(start);
            };
            self.line += 1;
            self.record(start, end)?;
            start = next;
            self.scanned = start;
            self.in_quote = false;
            self.last_was_escape = false;
        }
    }

    /// Finds where the record starting at `start` ends: `(end of its data, start of the
    /// next)`, or None if its end has not arrived.
    fn find_record_end(&mut self, start: usize, at_end: bool) -> Result<Option<(usize, usize)>> {
        let csv = self.opts.format == Format::Csv;
        let (quote, escape) = (self.opts.quote, self.opts.escape);
        let mut i = self.scanned.max(start);
        let eol_char = if self.eol == Eol::Nl { b'\n' } else { b'\r' };
        while i < self.pending.len() {
            // Jump to the next byte that matters here.
            let hay = &self.pending[i..];
            let skip = if !csv {
                memchr::memchr3(b'\\', b'\n', b'\r', hay)
            } else if !self.in_quote {
                memchr::memchr3(quote, b'\n', b'\r', hay)
            } else if self.last_was_escape {
                Some(0)
            } else if escape == quote {
                memchr::memchr2(quote, eol_char, hay)
            } else {
                memchr::memchr3(quote, escape, eol_char, hay)
            };
            let Some(skip) = skip else {
                i = self.pending.len();
                break;
            };
            i += skip;
            let c = self.pending[i];
            let len = self.pending.len();
            if csv {
                if self.in_quote {
                    if c == escape && !self.last_was_escape && i + 1 >= len && !at_end {
                        // Whether it escapes depends on the next byte.
                        self.scanned = i;
                        return Ok(None);
                    }
                    if c == escape && escape != quote && !self.last_was_escape {
                        self.last_was_escape = true;
                        i += 1;
                        continue;
                    }
                    if c == quote && !self.last_was_escape {
                        self.in_quote = false;
                    }
                    // PostgreSQL counts a line end inside quotes as a line once the
                    // data's line ends are known (its copyfromparse.c).
                    if c == if self.eol == Eol::Nl { b'\n' } else { b'\r' } {
                        self.line += 1;
                    }
                    self.last_was_escape = false;
                    i += 1;
                    continue;
                }
                if c == quote {
                    self.in_quote = true;
                    i += 1;
                    continue;
                }
            } else if c == b'\\' {
                if i + 1 >= len {
                    if at_end {
                        i += 1;
                        continue;
                    }
                    self.scanned = i;
                    return Ok(None);
                }
                if self.pending[i + 1] == b'.' {
                    if !self.end_marker(i, at_end)? {
                        self.scanned = i;
                        return Ok(None);
                    }
                    // The end: what came before the marker on its line is a row.
                    return Ok((i > start).then_some((i, i)));
                }
                i += 2;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                let crnl = c == b'\r' && self.pending.get(i + 1) == Some(&b'\n');
                if c == b'\r' && i + 1 >= len && !at_end && self.eol != Eol::Cr {
                    self.scanned = i;
                    return Ok(None);
                }
                let found = if c == b'\n' {
                    Eol::Nl
                } else if crnl {
                    Eol::CrNl
                } else {
                    Eol::Cr
                };
                if self.eol == Eol::Unknown {
                    self.eol = found;
                } else if self.eol != found {
                    self.line += 1;
                    let (message, hint) = match (self.eol, csv) {
                        (Eol::Nl | Eol::Cr, false) if c == b'\r' => (
                            "literal carriage return found in data",
                            "Use \"\\r\" to represent carriage return.",
                        ),
                        (Eol::Nl | Eol::Cr, true) if c == b'\r' => (
                            "unquoted carriage return found in data",
                            "Use quoted CSV field to represent carriage return.",
                        ),
                        (_, false) => (
                            "literal newline found in data",
                            "Use \"\\n\" to represent newline.",
                        ),
                        (_, true) => (
                            "unquoted newline found in data",
                            "Use quoted CSV field to represent newline.",
                        ),
                    };
                    return Err(Error::new("22P04", message)
                        .with_hint(hint)
                        .with_context(format!("COPY {}, line {}", self.table, self.line)));
                }
                let next = if crnl { i + 2 } else { i + 1 };
                // CSV: a line that is exactly `\.` ends the data.
                if csv && &self.pending[start..i] == b"\\." {
                    self.ended = true;
                    return Ok(None);
                }
                return Ok(Some((i, next)));
            }
            i += 1;
        }
        self.scanned = i;
        if at_end && csv && !self.in_quote && &self.pending[start..] == b"\\." {
            self.ended = true;
        }
        Ok(None)
    }

    /// A `\.` at `at` in text format: the end of the data (true) when a line end in
    /// the data's style follows it, false when what follows has not arrived; anything
    /// else is one of PostgreSQL's end-of-copy errors.
    fn end_marker(&mut self, at: usize, at_end: bool) -> Result<bool> {
        let context = format!("COPY {}, line {}", self.table, self.line + 1);
        let corrupt = || Error::new("22P04", "end-of-copy marker corrupt").with_context(&context);
        let style = || {
            Error::new(
                "22P04",
                "end-of-copy marker does not match previous newline style",
            )
            .with_context(&context)
        };
        let mut q = at + 2;
        if self.eol == Eol::CrNl {
            match self.pending.get(q) {
                None if at_end => return Err(corrupt()),
                None => return Ok(false),
                Some(b'\n') => return Err(style()),
                Some(b'\r') => q += 1,
                Some(_) => return Err(corrupt()),
            }
        }
        match self.pending.get(q).copied() {
            None if at_end => Err(corrupt()),
            None => Ok(false),
            Some(c) if c != b'\r' && c != b'\n' => Err(corrupt()),
            Some(c) => {
                let expected = if self.eol == Eol::Cr { b'\r' } else { b'\n' };
                if self.eol != Eol::Unknown && c != expected {
                    return Err(style());
                }
                self.ended = true;
                Ok(true)
            }
        }
    }

    /// `COPY t, line N: "<the line>"`, the line cut as PostgreSQL cuts it.
    fn line_context(&self, start: usize, end: usize) -> String {
        let raw = &self.pending[start..end.min(self.pending.len())];
        format!(
            "COPY {}, line {}: \"{}\"",
            self.table,
            self.line,
            display(raw)
        )
    }

    /// Splits the record `pending[start..end]` into fields and stores its row.
    fn record(&mut self, start: usize, end: usize) -> Result<()> {
        if self.header_left {
            self.header_left = false;
            if self.opts.header == Header::Match {
                self.split(start, end)?;
                self.match_header(start, end)?;
            }
            return Ok(());
        }
        // Bytes that are not UTF-8 are found field by field below; NUL is valid UTF-8
        // but never text.
        let record = &self.pending[start..end];
        if memchr::memchr(0, record).is_some() {
            return Err(invalid_utf8(record).with_context(self.line_context(start, end)));
        }
        self.split(start, end)?;
        // The record is checked as UTF-8 once; its fields are slices of it.
        let Ok(text) = std::str::from_utf8(&self.pending[start..end]) else {
            let e = invalid_utf8(&self.pending[start..end]);
            // PostgreSQL checks the encoding before it splits lines.
            return Err(e.with_context(self.row_context(self.line)));
        };
        let n = self.targets.len();
        if self.fields.len() > n && !(n == 0 && self.fields.len() == 1 && end == start) {
            return Err(Error::new("22P04", "extra data after last expected column")
                .with_context(self.line_context(start, end)));
        }
        // Fields in order: (the failing field, its error) or None.
        let mut failed: Option<(usize, Error)> = None;
        for k in 0..n {
            // PostgreSQL converts the fields in order and finds a missing one when it
            // gets there.
            let Some(&field) = self.fields.get(k) else {
                failed = Some((k, Error::new("22P04", "")));
                break;
            };
            let result = match field {
                None => {
                    self.columns[k].push_null();
                    Ok(())
                }
                Some((a, b, false)) => match text.get(a - start..b - start) {
                    Some(s) => self.targets[k].check_label(s).and_then(|()| {
                        push_text(&mut self.columns[k], self.targets[k].ty, s, &self.fmt)
                    }),
                    None => Err(Error::internal("COPY field split inside a character")),
                },
                Some((a, b, true)) => match std::str::from_utf8(&self.field_bytes[a..b]) {
                    Ok(s) => self.targets[k].check_label(s).and_then(|()| {
                        push_text(&mut self.columns[k], self.targets[k].ty, s, &self.fmt)
                    }),
                    Err(_) => Err(invalid_utf8(&self.field_bytes[a..b])
                        .with_context(format!("COPY {}, line {}", self.table, self.line))),
                },
            };
            if let Err(e) = result {
                failed = Some((k, e));
                break;
            }
        }
        if let Some((k, e)) = failed {
            self.drop_partial_row(k);
            if k >= self.fields.len() {
                let missing = &self.targets[k].name;
                return Err(
                    Error::new("22P04", format!("missing data for column \"{missing}\""))
                        .with_context(self.line_context(start, end)),
                );
            }
            if e.context.is_some() {
                return Err(e);
            }
            let context = match self.fields[k] {
                Some(f) => format!(
                    "COPY {}, line {}, column {}: \"{}\"",
                    self.table,
                    self.line,
                    self.targets[k].name,
                    display(self.field_slice(f))
                ),
                None => format!(
                    "COPY {}, line {}, column {}: null input",
                    self.table, self.line, self.targets[k].name
                ),
            };
            return Err(e.with_context(context));
        }
        let may_fail = self.keep_raw
            || self
                .targets
                .iter()
                .zip(&self.fields)
                .any(|(t, f)| t.not_null && f.is_none());
        if may_fail {
            self.raw.extend_from_slice(&self.pending[start..end]);
        }
        self.raw_ends.push(self.raw.len());
        self.lines.push(self.line);
        Ok(())
    }

    /// Splits `pending[start..end]` into `fields` (text or csv rules), de-escaped into
    /// `field_bytes`; a NULL field is None.
    fn split(&mut self, start: usize, end: usize) -> Result<()> {
        self.fields.clear();
        self.field_bytes.clear();
        if self.opts.format == Format::Csv {
            self.split_csv(start, end)
        } else {
            self.split_text(start, end)
        }
    }

    fn split_text(&mut self, start: usize, end: usize) -> Result<()> {
        let delim = self.opts.delimiter;
        let null = self.opts.null.as_bytes();
        let mut i = start;
        loop {
            let raw_start = i;
            // Up to the next delimiter; a field without a backslash is a slice of the
            // record, one with escapes is copied out, de-escaped.
            let stop = memchr::memchr2(delim, b'\\', &self.pending[i..end]).map_or(end, |k| i + k);
            if stop == end || self.pending[stop] == delim {
                i = stop;
                let raw = &self.pending[raw_start..i];
                self.fields.push(if raw == null {
                    None
                } else {
                    Some((raw_start, i, false))
                });
            } else {
                let out_start = self.field_bytes.len();
                let mut high_bit = false;
                while i < end && self.pending[i] != delim {
                    let c = self.pending[i];
                    if c != b'\\' || i + 1 >= end {
                        self.field_bytes.push(c);
                        i += 1;
                        continue;
                    }
                    let e = self.pending[i + 1];
                    i += 2;
                    let v = match e {
                        b'0'..=b'7' => {
                            let mut v = (e - b'0') as u32;
                            for _ in 0..2 {
                                match self.pending[..end].get(i) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + (d - b'0') as u32;
                                        i += 1;
                                    }
                                    _ => break,
                                }
                            }
                            high_bit |= v == 0 || v >= 0x80;
                            (v & 0xff) as u8
                        }
                        b'x' => match self.pending[..end].get(i).and_then(|&d| hex(d)) {
                            Some(h) => {
                                i += 1;
                                let mut v = h;
                                if let Some(l) = self.pending[..end].get(i).and_then(|&d| hex(d)) {
                                    v = v * 16 + l;
                                    i += 1;
                                }
                                high_bit |= v == 0 || v >= 0x80;
                                v
                            }
                            None => b'x',
                        },
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'v' => 0x0b,
                        other => other,
                    };
                    self.field_bytes.push(v);
                }
                if &self.pending[raw_start..i] == null {
                    self.field_bytes.truncate(out_start);
                    self.fields.push(None);
                } else {
                    let field = &self.field_bytes[out_start..];
                    if high_bit && (field.contains(&0) || std::str::from_utf8(field).is_err()) {
                        return Err(invalid_utf8(field).with_context(self.line_context(start, end)));
                    }
                    self.fields
                        .push(Some((out_start, self.field_bytes.len(), true)));
                }
            }
            if i >= end {
                return Ok(());
            }
            i += 1; // the delimiter
        }
    }

    fn split_csv(&mut self, start: usize, end: usize) -> Result<()> {
        let (delim, quote, escape) = (self.opts.delimiter, self.opts.quote, self.opts.escape);
        let null = self.opts.null.as_bytes();
        let line = &self.pending[start..end];
        let mut i = 0;
        loop {
            let raw_start = i;
            // A field without quotes is a slice of the record.
            let stop = memchr::memchr2(delim, quote, &line[i..]).map_or(line.len(), |k| i + k);
            if stop == line.len() || line[stop] == delim {
                i = stop;
                let forced = self
                    .targets
                    .get(self.fields.len())
                    .is_some_and(|t| t.force_not_null);
                self.fields.push(if &line[raw_start..i] == null && !forced {
                    None
                } else {
                    Some((start + raw_start, start + i, false))
                });
                if i >= line.len() {
                    return Ok(());
                }
                i += 1;
                continue;
            }
            let out_start = self.field_bytes.len();
            let mut quoted = false;
            let mut in_quote = false;
            while i < line.len() {
                let c = line[i];
                if in_quote {
                    if c == escape
                        && escape != quote
                        && let Some(&n) = line.get(i + 1)
                        && (n == quote || n == escape)
                    {
                        self.field_bytes.push(n);
                        i += 2;
                        continue;
                    }
                    if c == quote {
                        if escape == quote && line.get(i + 1) == Some(&quote) {
                            self.field_bytes.push(quote);
                            i += 2;
                            continue;
                        }
                        in_quote = false;
                        i += 1;
                        continue;
                    }
                    self.field_bytes.push(c);
                    i += 1;
                    continue;
                }
                if c == delim {
                    break;
                }
                if c == quote {
                    in_quote = true;
                    quoted = true;
                    i += 1;
                    continue;
                }
                self.field_bytes.push(c);
                i += 1;
            }
            if in_quote {
                return Err(Error::new("22P04", "unterminated CSV quoted field")
                    .with_context(self.line_context(start, end)));
            }
            let k = self.fields.len();
            let raw = &line[raw_start..i];
            let target = self.targets.get(k);
            let is_null = if quoted {
                // A quoted value is the null string only under FORCE_NULL.
                target.is_some_and(|t| t.force_null) && &self.field_bytes[out_start..] == null
            } else {
                raw == null && !target.is_some_and(|t| t.force_not_null)
            };
            if is_null {
                self.field_bytes.truncate(out_start);
                self.fields.push(None);
            } else {
                self.fields
                    .push(Some((out_start, self.field_bytes.len(), true)));
            }
            if i >= line.len() {
                return Ok(());
            }
            i += 1;
        }
    }

    /// A field's bytes: copied out (de-escaped, unquoted) or a slice of the record.
    fn field_slice(&self, (a, b, owned): (usize, usize, bool)) -> &[u8] {
        if owned {
            &self.field_bytes[a..b]
        } else {
            &self.pending[a..b]
        }
    }

    /// HEADER MATCH: the header line's names must be the columns', in order.
    fn match_header(&self, start: usize, end: usize) -> Result<()> {
        let n = self.targets.len();
        if self.fields.len() != n {
            return Err(Error::new(
                "22P04",
                format!(
                    "wrong number of fields in header line: got {}, expected {n}",
                    self.fields.len()
                ),
            )
            .with_context(self.line_context(start, end)));
        }
        for (k, t) in self.targets.iter().enumerate() {
            let got = self.fields[k].map(|f| self.field_slice(f));
            match got {
                None => {
                    return Err(Error::new(
                        "22P04",
                        format!(
                            "column name mismatch in header line field {}: got null value (\"{}\"), expected \"{}\"",
                            k + 1,
                            self.opts.null,
                            t.name
                        ),
                    )
                    .with_context(self.line_context(start, end)));
                }
                Some(g) if g != t.name.as_bytes() => {
                    return Err(Error::new(
                        "22P04",
                        format!(
                            "column name mismatch in header line field {}: got \"{}\", expected \"{}\"",
                            k + 1,
                            String::from_utf8_lossy(g),
                            t.name
                        ),
                    )
                    .with_context(self.line_context(start, end)));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    // ---- binary --------------------------------------------------------------------

    /// Parses the complete tuples in `pending`; returns the bytes consumed.
    fn parse_binary(&mut self, at_end: bool) -> Result<usize> {
        let mut at = 0;
        let eof = |me: &CopyReader| {
            Error::new("22P04", "unexpected EOF in COPY data").with_context(format!(
                "COPY {}, line {}",
                me.table,
                me.line.max(1)
            ))
        };
        if !self.binary_header_read {
            // Header errors have no CONTEXT: PostgreSQL reads the header before it
            // reads lines.
            let header_error = |m: &str| Error::new("22P04", m.to_string());
            let buf = &self.pending;
            let need_more = |n: usize| buf.len() < n;
            if need_more(11) && !at_end {
                return Ok(0);
            }
            if at_end && buf.is_empty() {
                return Ok(0);
            }
            if need_more(11) || &buf[..11] != BINARY_SIGNATURE {
                return Err(header_error("COPY file signature not recognized"));
            }
            if need_more(15) {
                return if at_end {
                    Err(header_error("invalid COPY file header (missing flags)"))
                } else {
                    Ok(0)
                };
            }
            let flags = u32::from_be_bytes([buf[11], buf[12], buf[13], buf[14]]);
            if flags & (1 << 16) != 0 {
                return Err(Error::new(
                    "0A000",
                    "COPY BINARY with OIDS is not supported",
                ));
            }
            if flags & 0xfffe_0000 != 0 {
                return Err(header_error(
                    "unrecognized critical flags in COPY file header",
                ));
            }
            if need_more(19) {
                return if at_end {
                    Err(header_error("invalid COPY file header (missing length)"))
                } else {
                    Ok(0)
                };
            }
            let ext = i32::from_be_bytes([buf[15], buf[16], buf[17], buf[18]]);
            if ext < 0 {
                return Err(header_error("invalid COPY file header (missing length)"));
            }
            let header_len = 19 + ext as usize;
            if need_more(header_len) {
                return if at_end {
                    Err(header_error("invalid COPY file header (wrong length)"))
                } else {
                    Ok(0)
                };
            }
            self.binary_header_read = true;
            at = header_len;
        }
        let n = self.targets.len();
        loop {
            if self.lines.len() >= BATCH_ROWS && !at_end {
                return Ok(at);
            }
            let buf = &self.pending;
            if at + 2 > buf.len() {
                if at_end && at < buf.len() {
                    return Err(eof(self));
                }
                return Ok(at);
            }
            let count = i16::from_be_bytes([buf[at], buf[at + 1]]);
            if count == -1 {
                self.ended = true;
                return Ok(buf.len());
            }
            // Find the tuple's end before parsing any of it.
            let mut p = at + 2;
            let mut complete = true;
            let mut spans: Vec<Option<(usize, usize)>> = Vec::with_capacity(n);
            for _ in 0..count.max(0) {
                if p + 4 > buf.len() {
                    complete = false;
                    break;
                }
                let len = i32::from_be_bytes([buf[p], buf[p + 1], buf[p + 2], buf[p + 3]]);
                p += 4;
                if len < 0 {
                    spans.push(None);
                    continue;
                }
                let len = len as usize;
                if p + len > buf.len() {
                    complete = false;
                    break;
                }
                spans.push(Some((p, p + len)));
                p += len;
            }
            if !complete {
                if at_end {
                    // PostgreSQL names the field it was reading.
                    self.line += 1;
                    let mut context = format!("COPY {}, line {}", self.table, self.line);
                    if let Some(t) = self.targets.get(spans.len()) {
                        context.push_str(&format!(", column {}", t.name));
                    }
                    return Err(
                        Error::new("22P04", "unexpected EOF in COPY data").with_context(context)
                    );
                }
                return Ok(at);
            }
            self.line += 1;
            if count as usize != n {
                return Err(Error::new(
                    "22P04",
                    format!("row field count is {count}, expected {n}"),
                )
                .with_context(format!("COPY {}, line {}", self.table, self.line)));
            }
            for (k, span) in spans.iter().enumerate() {
                let result = match span {
                    None => {
                        self.columns[k].push_null();
                        Ok(())
                    }
                    Some((a, b))
                        if fixed_width(self.targets[k].ty.ty).is_some_and(|w| b - a < w) =>
                    {
                        Err(Error::new("08P01", "insufficient data left in message"))
                    }
                    Some((a, b)) => {
                        let ty = self.targets[k].ty;
                        crate::wire::encode::decode_param(
                            Some(&self.pending[*a..*b]),
                            ty,
                            true,
                            k,
                            &self.fmt,
                        )
                        .and_then(|v| {
                            if let Value::Text(s) = &v {
                                self.targets[k].check_label(s)?;
                            }
                            // The column's length or precision applies, as to text.
                            if ty.typmod >= 0 && !matches!(v, Value::Null) {
                                cast::cast_value(v, ty, false, &self.fmt)
                            } else {
                                Ok(v)
                            }
                        })
                        .map(|v| self.columns[k].push_value(&v))
                    }
                };
                if let Err(mut e) = result {
                    for c in &mut self.columns[..k] {
                        let len = c.len();
                        *c = c.slice(0, len - 1);
                    }
                    if e.code == "22P03" {
                        e.message = "incorrect binary data format".into();
                    }
                    return Err(e.with_context(format!(
                        "COPY {}, line {}, column {}",
                        self.table, self.line, self.targets[k].name
                    )));
                }
            }
            self.lines.push(self.line);
            at = p;
        }
    }
}

/// The size of a fixed-width type's binary form.
fn fixed_width(ty: DataType) -> Option<usize> {
    match ty {
        DataType::Bool => Some(1),
        DataType::Int2 => Some(2),
        DataType::Int4 | DataType::Float4 | DataType::Date => Some(4),
        DataType::Int8
        | DataType::Float8
        | DataType::Timestamp
        | DataType::Timestamptz
        | DataType::Time => Some(8),
        DataType::TimeTz => Some(12),
        DataType::Interval => Some(16),
        _ => None,
    }
}

fn hex(d: u8) -> Option<u8> {
    (d as char).to_digit(16).map(|v| v as u8)
}

/// A line or value as PostgreSQL prints it in CONTEXT: at most 100 bytes (whole
/// characters), then "...".
fn display(raw: &[u8]) -> String {
    let s = String::from_utf8_lossy(raw);
    if s.len() <= DISPLAY_MAX {
        return s.into_owned();
    }
    let mut cut = DISPLAY_MAX;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &s[..cut])
}

/// PostgreSQL's message for bytes that are not UTF-8: the offending sequence in hex.
fn invalid_utf8(bytes: &[u8]) -> Error {
    let at = match std::str::from_utf8(bytes) {
        Err(e) => e.valid_up_to(),
        Ok(_) => bytes.len(),
    };
    let at = at.min(bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len()));
    let bad = &bytes[at..];
    let width = match bad.first() {
        Some(b) if b & 0xe0 == 0xc0 => 2,
        Some(b) if b & 0xf0 == 0xe0 => 3,
        Some(b) if b & 0xf8 == 0xf0 => 4,
        _ => 1,
    };
    let shown: Vec<String> = bad
        .iter()
        .take(width.min(bad.len()))
        .map(|b| format!("0x{b:02x}"))
        .collect();
    Error::new(
        "22021",
        format!(
            "invalid byte sequence for encoding \"UTF8\": {}",
            shown.join(" ")
        ),
    )
}

/// A plain decimal (`-123.45`, at most 30 digits) that already has the typmod's scale
/// and fits its precision, read without the general parser; None for anything else.
fn simple_decimal(s: &str, typmod: i32) -> Option<Numeric> {
    let b = s.as_bytes();
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 30 {
        return None;
    }
    let mut m: i128 = 0;
    let mut scale: u16 = 0;
    let mut point = false;
    let mut any = false;
    for &c in digits {
        match c {
            b'0'..=b'9' => {
                m = m * 10 + (c - b'0') as i128;
                any = true;
                scale += point as u16;
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    if !any {
        return None;
    }
    if typmod >= 4 {
        // Fewer fraction digits than the typmod's scale are padded (`17` is 17.00).
        let (precision, want) = crate::types::numeric_typmod_parts(typmod);
        if (scale as i32) > want || !(0..=38).contains(&precision) {
            return None;
        }
        m *= 10i128.pow((want - scale as i32) as u32);
        scale = want as u16;
        if m >= 10i128.pow(precision as u32) {
            return None;
        }
    }
    Numeric::new(if neg { -m } else { m }, scale).ok()
}

/// An integer of at most `digits` digits and an optional `-`, which cannot overflow;
/// None for anything else (the general parser then decides, with its errors).
#[inline]
fn plain_int(s: &str, digits: usize) -> Option<i64> {
    let b = s.as_bytes();
    let (neg, d) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    if d.is_empty() || d.len() > digits {
        return None;
    }
    let mut v: i64 = 0;
    for &c in d {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
    }
    Some(if neg { -v } else { v })
}

/// Whether `s` has at most `n` characters.
fn fits(s: &str, n: usize) -> bool {
    s.len() <= n || (!s.is_ascii() && s.chars().count() <= n)
}

/// Parses one text field into `v` by `ty`'s input rules.
fn push_text(v: &mut Vector, ty: SqlType, s: &str, fmt: &TextFormat) -> Result<()> {
    let constrained = ty.typmod >= 0;
    match (&mut v.data, ty.ty) {
        (Data::I16(x), DataType::Int2) => x.push(text::parse_int(s, ty.ty)? as i16),
        (Data::I32(x), DataType::Int4) => x.push(match plain_int(s, 9) {
            Some(v) => v as i32,
            None => text::parse_int(s, ty.ty)? as i32,
        }),
        (Data::I64(x), DataType::Int8) => x.push(match plain_int(s, 18) {
            Some(v) => v,
            None => text::parse_int(s, ty.ty)?,
        }),
        (Data::F64(x), DataType::Float8) => x.push(text::parse_float(s, ty.ty)?),
        (Data::I32(x), DataType::Date) => x.push(datetime::parse_date(s, &fmt.date_input())?),
        // Strings that fit their length need no cast: only a longer one (an error, or
        // trailing spaces to cut) takes the general path.
        (Data::Text(t), DataType::Text | DataType::Varchar)
            if ty.typmod < 4 || fits(s, (ty.typmod - 4) as usize) =>
        {
            t.push(s.as_bytes())
        }
        (Data::Text(t), DataType::Bpchar)
            if ty.typmod >= 4 && fits(s, (ty.typmod - 4) as usize) =>
        {
            let chars = if s.is_ascii() {
                s.len()
            } else {
                s.chars().count()
            };
            t.push_padded(s.as_bytes(), (ty.typmod - 4) as usize - chars);
        }
        (Data::Num(x), DataType::Numeric) => {
            if let Some(n) = simple_decimal(s, ty.typmod) {
                x.push(n);
                v.push_valid_flag(false);
                return Ok(());
            }
            let n = Numeric::parse(s)?;
            x.push(if ty.typmod >= 4 {
                let (p, scale) = crate::types::numeric_typmod_parts(ty.typmod);
                n.apply_typmod(p, scale)?
            } else {
                n
            });
        }
        _ => {
            let value = text::parse_value(s, ty.ty, fmt)?;
            let value = if constrained && !matches!(value, Value::Null) {
                cast::cast_value(value, ty, false, fmt)?
            } else {
                value
            };
            v.push_value(&value);
            return Ok(());
        }
    }
    v.push_valid_flag(false);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy::options::{self, OptionArg, RawOption};

    fn reader(opts: &[(&str, &str)], types: &[DataType]) -> CopyReader {
        let raw: Vec<RawOption> = opts
            .iter()
            .map(|(n, v)| RawOption {
                name: n.to_string(),
                arg: if v.is_empty() {
                    OptionArg::None
                } else {
                    OptionArg::Text(v.to_string())
                },
                position: None,
            })
            .collect();
        let opts = options::process(&raw, true).unwrap();
        let targets = types
            .iter()
            .enumerate()
            .map(|(i, &t)| Target {
                name: format!("c{i}"),
                ty: SqlType::new(t),
                force_not_null: false,
                force_null: false,
                not_null: false,
                enum_type: None,
            })
            .collect();
        CopyReader::new(opts, "t", targets, TextFormat::default(), false)
    }

    fn texts(r: &mut CopyReader) -> Vec<Vec<String>> {
        let rows = r.take_rows();
        let (cols, lines) = (rows.columns, rows.lines);
        (0..lines.len())
            .map(|i| {
                cols.iter()
                    .map(|c| {
                        if c.is_null(i) {
                            "NULL".to_string()
                        } else {
                            match &c.data {
                                crate::exec::vector::Data::Text(t) => t.get_str(i).to_string(),
                                crate::exec::vector::Data::I32(x) => x[i].to_string(),
                                _ => "?".into(),
                            }
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn text_records_split_across_chunks() {
        let mut r = reader(&[], &[DataType::Int4, DataType::Text]);
        let data = b"1\ta\\tb\n2\t\\N\n3\t\\101\\x42\\\\\n";
        for chunk in data.chunks(3) {
            r.feed(chunk).unwrap();
        }
        r.finish().unwrap();
        assert_eq!(
            texts(&mut r),
            vec![
                vec!["1".to_string(), "a\tb".into()],
                vec!["2".into(), "NULL".into()],
                vec!["3".into(), "AB\\".into()]
            ]
        );
    }

    #[test]
    fn csv_quotes_span_lines_and_null_rules_hold() {
        let mut r = reader(&[("format", "csv")], &[DataType::Text, DataType::Text]);
        for chunk in b"\"a,\"\"b\nc\",\n\"\",x\n".chunks(2) {
            r.feed(chunk).unwrap();
        }
        r.finish().unwrap();
        assert_eq!(
            texts(&mut r),
            vec![
                vec!["a,\"b\nc".to_string(), "NULL".into()],
                vec!["".into(), "x".into()]
            ]
        );
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let mut r = reader(&[], &[DataType::Int4, DataType::Int4]);
        let e = r.feed(b"1\t2\n3\tx\n").unwrap_err();
        assert_eq!(e.code, "22P02");
        assert_eq!(
            e.context.as_deref().map(String::as_str),
            Some("COPY t, line 2, column c1: \"x\"")
        );
        let mut r = reader(&[], &[DataType::Int4, DataType::Int4]);
        let e = r.feed(b"1\t2\t3\n").unwrap_err();
        assert_eq!(e.message, "extra data after last expected column");
        assert_eq!(
            e.context.as_deref().map(String::as_str),
            Some("COPY t, line 1: \"1\t2\t3\"")
        );
        let mut r = reader(&[], &[DataType::Int4, DataType::Int4]);
        let e = r.feed(b"1\n").unwrap_err();
        assert_eq!(e.message, "missing data for column \"c1\"");
    }

    #[test]
    fn the_end_marker_ends_the_data() {
        let mut r = reader(&[], &[DataType::Int4]);
        r.feed(b"1\n\\.\ngarbage\n").unwrap();
        r.finish().unwrap();
        assert_eq!(texts(&mut r), vec![vec!["1".to_string()]]);
    }

    #[test]
    fn fast_paths_agree_with_the_general_parsers() {
        let typmod = |p: i32, s: i32| ((p << 16) | s) + 4;
        let text = |n: Option<Numeric>| n.map(|n| n.to_text());
        assert_eq!(
            text(simple_decimal("17", typmod(15, 2))),
            Some("17.00".into())
        );
        assert_eq!(
            text(simple_decimal("-0.5", typmod(3, 1))),
            Some("-0.5".into())
        );
        assert_eq!(text(simple_decimal("12.345", -1)), Some("12.345".into()));
        // More fraction digits than the scale (rounding), too many digits, odd forms:
        // the general parser decides.
        assert_eq!(simple_decimal("999.999", typmod(5, 2)), None);
        assert_eq!(simple_decimal("1234", typmod(5, 2)), None);
        assert_eq!(simple_decimal(" 1", -1), None);
        assert_eq!(simple_decimal(".", -1), None);
        assert_eq!(plain_int("-123", 9), Some(-123));
        assert_eq!(plain_int("1234567890", 9), None);
        assert_eq!(plain_int("+1", 9), None);
        let ctx = TextFormat::default().date_input();
        assert_eq!(datetime::parse_date("2000-01-02", &ctx).unwrap(), 1);
        assert_eq!(
            datetime::parse_date("2024-02-30", &ctx).unwrap_err().code,
            "22008"
        );
    }

    #[test]
    fn binary_tuples_split_across_chunks() {
        let mut data = BINARY_SIGNATURE.to_vec();
        data.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
        for v in [7i32, -1] {
            data.extend_from_slice(&1i16.to_be_bytes());
            if v < 0 {
                data.extend_from_slice(&(-1i32).to_be_bytes());
            } else {
                data.extend_from_slice(&4i32.to_be_bytes());
                data.extend_from_slice(&v.to_be_bytes());
            }
        }
        data.extend_from_slice(&(-1i16).to_be_bytes());
        let mut r = reader(&[("format", "binary")], &[DataType::Int4]);
        for chunk in data.chunks(5) {
            r.feed(chunk).unwrap();
        }
        r.finish().unwrap();
        assert_eq!(
            texts(&mut r),
            vec![vec!["7".to_string()], vec!["NULL".into()]]
        );
    }
}
