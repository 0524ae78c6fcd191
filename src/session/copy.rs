//! Running COPY: the session's side of COPY FROM (storing what the client sends) and
//! COPY TO (a query whose rows the connection writes in the COPY format).
//!
//! COPY FROM is an INSERT whose rows arrive after the statement started: `start_copy_in`
//! takes the locks and the transaction id as an INSERT would and returns a [`CopyIn`];
//! the connection feeds it each CopyData (`copy_data`) and ends it with CopyDone
//! (`copy_done`) or CopyFail. Parsed rows are stored every 8,192 rows (or 8 MB) through
//! `store_rows` — defaults for the columns the data omits, the WHERE filter,
//! generated columns, NOT NULL, CHECK, unique and foreign keys — each batch's undo
//! recorded, so an error anywhere takes back the whole COPY with the statement. A
//! constraint error names the input line of the failing row, as PostgreSQL's CONTEXT.

use std::sync::Arc;

use super::{Outcome, RowStream, Session};
use crate::catalog::TableEntry;
use crate::copy::input::{BATCH_ROWS, CopyReader, Target};
use crate::copy::output::CopyWriter;
use crate::copy::{CopyOptions, Format, ServerEnd};
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::exec::vector::{Batch, Data, Vector};
use crate::exec::{self};
use crate::sql::expr::Expr;
use crate::storage::mvcc::TxnId;
use crate::types::DataType;

/// Or fewer rows than `BATCH_ROWS`, once they hold this many bytes.
const BATCH_BYTES: usize = 8 << 20;

/// A COPY FROM in progress.
pub struct CopyIn {
    table: Arc<TableEntry>,
    columns: Vec<usize>,
    filter: Option<Expr>,
    reader: CopyReader,
    ctx: ExecContext,
    txn: TxnId,
    /// Rows stored so far (the `COPY n` count).
    stored: u64,
    format: Format,
}

impl CopyIn {
    pub fn format(&self) -> Format {
        self.format
    }

    /// The CONTEXT of an error that ends the COPY before the next record.
    pub fn line_context(&self) -> String {
        self.reader.row_context(self.reader.lines_read() + 1)
    }

    /// Columns the data has (CopyInResponse).
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }
}

/// A COPY TO in progress: the rows, and how to write them.
/// PostgreSQL's error for a file COPY cannot open: 58P01 when it does not exist.
fn file_error(e: &std::io::Error, path: &str, how: &str) -> Error {
    let code = match e.kind() {
        std::io::ErrorKind::NotFound => "58P01",
        std::io::ErrorKind::PermissionDenied => "42501",
        _ => "58030",
    };
    let reason = match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => e.to_string(),
    };
    Error::new(
        code,
        format!("could not open file \"{path}\" for {how}: {reason}"),
    )
}

/// A program COPY runs: `sh -c command`, as PostgreSQL's popen does.
fn spawn(cmd: &str, from: bool) -> Result<std::process::Child> {
    use std::process::{Command, Stdio};
    let mut c = Command::new("/bin/sh");
    c.arg("-c").arg(cmd);
    if from {
        c.stdin(Stdio::null()).stdout(Stdio::piped());
    } else {
        c.stdin(Stdio::piped()).stdout(Stdio::null());
    }
    c.spawn()
        .map_err(|e| Error::new("58030", format!("could not execute command \"{cmd}\": {e}")))
}

/// Waits for a COPY program; 38000 when it did not exit with 0 (PostgreSQL's
/// `program "…" failed`).
fn finish_program(child: &mut std::process::Child, cmd: &str) -> Result<()> {
    use std::os::unix::process::ExitStatusExt;
    let status = child.wait().map_err(|e| {
        Error::new(
            "58030",
            format!("could not close pipe to external command: {e}"),
        )
    })?;
    if status.success() {
        return Ok(());
    }
    let detail = match (status.code(), status.signal()) {
        (Some(code), _) => format!("child process exited with exit code {code}"),
        (None, Some(sig)) => format!("child process was terminated by signal {sig}"),
        _ => "child process exited abnormally".to_string(),
    };
    Err(Error::new("38000", format!("program \"{cmd}\" failed")).with_detail(detail))
}

/// COPY TO 'file' | PROGRAM 'command': the rows written to the file (created or
/// truncated) or to the program's standard input.
pub(super) fn copy_to_server(copy: &mut CopyOut, end: &ServerEnd) -> Result<Outcome> {
    match end {
        ServerEnd::File(path) => {
            let file = std::fs::File::create(path).map_err(|e| file_error(&e, path, "writing"))?;
            let write_err = |e: std::io::Error| {
                Error::new("58030", format!("could not write to file \"{path}\": {e}"))
            };
            write_rows(copy, file, &write_err)
        }
        ServerEnd::Program(cmd) => {
            let mut child = spawn(cmd, false)?;
            let Some(stdin) = child.stdin.take() else {
                return Err(Error::internal("COPY program without a pipe"));
            };
            let written = write_rows(copy, stdin, &|e: std::io::Error| {
                Error::new("58030", format!("could not write to COPY program: {e}"))
            });
            // The program's failure is the error to report (a closed pipe follows it).
            finish_program(&mut child, cmd)?;
            written
        }
    }
}

/// The COPY's rows (and its header and trailer) written to `sink`.
fn write_rows(
    copy: &mut CopyOut,
    sink: impl std::io::Write,
    write_err: &dyn Fn(std::io::Error) -> Error,
) -> Result<Outcome> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, sink);
    let mut line = Vec::new();
    if copy.writer.header_line(&copy.names, &mut line) {
        out.write_all(&line).map_err(write_err)?;
        line.clear();
    }
    copy.writer.binary_header(&mut line);
    let mut count = 0u64;
    while let Some(batch) = copy.stream.next_batch()? {
        for r in batch.selection() {
            copy.writer.row(&batch, r as usize, &mut line);
            count += 1;
        }
        out.write_all(&line).map_err(write_err)?;
        line.clear();
    }
    copy.writer.trailer(&mut line);
    out.write_all(&line).map_err(write_err)?;
    out.flush().map_err(write_err)?;
    Ok(Outcome::Done {
        tag: format!("COPY {count}"),
    })
}

pub struct CopyOut {
    pub stream: Box<RowStream>,
    pub writer: CopyWriter,
    pub names: Vec<String>,
}

impl Session {
    /// COPY FROM: the transaction's writer id and a reader for the data.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_copy_in(
        &mut self,
        table: &Arc<TableEntry>,
        columns: &[usize],
        options: &CopyOptions,
        force_not_null: &[bool],
        force_null: &[bool],
        filter: Option<&Expr>,
        ctx: ExecContext,
    ) -> Result<Outcome> {
        if options.freeze && !self.created_or_truncated_here(table.oid) {
            return Err(Error::new(
                "55000",
                "cannot perform COPY FREEZE because the table was not created or truncated in the current subtransaction",
            ));
        }
        let targets = columns
            .iter()
            .enumerate()
            .map(|(k, &c)| Target {
                name: table.columns[c].name.clone(),
                ty: table.columns[c].ty,
                force_not_null: force_not_null.get(k).copied().unwrap_or(false),
                force_null: force_null.get(k).copied().unwrap_or(false),
                not_null: table.columns[c].not_null,
                enum_type: match table.columns[c].ty.ty {
                    DataType::Enum(oid) => self.db.catalog.user_type(oid, &ctx.snapshot),
                    _ => None,
                },
            })
            .collect();
        let keep_raw = !table.checks.is_empty()
            || (0..table.columns.len()).any(|c| table.columns[c].not_null && !columns.contains(&c));
        let reader = CopyReader::new(options.clone(), &table.name, targets, ctx.fmt, keep_raw);
        let txn = ctx.snapshot.own;
        Ok(Outcome::CopyIn(Box::new(CopyIn {
            table: table.clone(),
            columns: columns.to_vec(),
            filter: filter.cloned(),
            reader,
            format: options.format,
            ctx,
            txn,
            stored: 0,
        })))
    }

    /// COPY to or from a file on the server: superusers only, as in PostgreSQL (its
    /// pg_read_server_files / pg_write_server_files roles do not exist in kiln).
    pub(super) fn may_copy_files(&self, end: &ServerEnd, from: bool) -> Result<()> {
        if self.identity().1 {
            return Ok(());
        }
        let (role, direction) = match (end, from) {
            (ServerEnd::Program(_), _) => (
                "pg_execute_server_program",
                "COPY to or from an external program",
            ),
            (_, true) => ("pg_read_server_files", "COPY from a file"),
            (_, false) => ("pg_write_server_files", "COPY to a file"),
        };
        Err(Error::new(
            "42501",
            format!("must be superuser or have privileges of the {role} role to {direction}"),
        )
        .with_hint(
            "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.",
        ))
    }

    /// COPY FROM 'file' | PROGRAM 'command': the file's bytes (the program's output)
    /// through the reader, as CopyData would bring them.
    pub(super) fn copy_from_file(&mut self, copy: &mut CopyIn, end: &ServerEnd) -> Result<Outcome> {
        use std::io::Read;
        let mut buf = vec![0u8; 1 << 20];
        let mut feed =
            |me: &mut Self, source: &mut dyn Read, err: &dyn Fn(std::io::Error) -> Error| {
                loop {
                    let n = source.read(&mut buf).map_err(err)?;
                    if n == 0 {
                        return Ok(());
                    }
                    me.copy_data(copy, &buf[..n])?;
                }
            };
        match end {
            ServerEnd::File(path) => {
                let mut file =
                    std::fs::File::open(path).map_err(|e| file_error(&e, path, "reading"))?;
                feed(self, &mut file, &|e| file_error(&e, path, "reading"))?;
            }
            ServerEnd::Program(cmd) => {
                let mut child = spawn(cmd, true)?;
                let Some(mut stdout) = child.stdout.take() else {
                    return Err(Error::internal("COPY program without a pipe"));
                };
                let read = feed(self, &mut stdout, &|e| {
                    Error::new("58030", format!("could not read from COPY program: {e}"))
                });
                drop(stdout);
                // Bad input is the error (the program is stopped); after good input, a
                // program that failed is.
                if let Err(e) = read {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(e);
                }
                finish_program(&mut child, cmd)?;
            }
        }
        let n = self.copy_done(copy)?;
        Ok(Outcome::Done {
            tag: format!("COPY {n}"),
        })
    }

    /// One CopyData message's bytes.
    pub fn copy_data(&mut self, copy: &mut CopyIn, data: &[u8]) -> Result<()> {
        let mut data = data;
        loop {
            // The reader stops at a full batch; what it has not parsed stays with it.
            if let Err(e) = copy.reader.feed(data) {
                // PostgreSQL stores rows as it reads them: the rows before a bad one are
                // checked (and take their defaults) first.
                self.copy_store(copy)?;
                return Err(e);
            }
            data = &[];
            let full = copy.reader.buffered_rows() >= BATCH_ROWS;
            if full || copy.reader.buffered_bytes() >= BATCH_BYTES {
                self.copy_store(copy)?;
            }
            if !full {
                return Ok(());
            }
        }
    }

    /// CopyDone: the rest is stored; returns the rows stored.
    pub fn copy_done(&mut self, copy: &mut CopyIn) -> Result<u64> {
        self.copy_data(copy, &[])?;
        if let Err(e) = copy.reader.finish() {
            self.copy_store(copy)?;
            return Err(e);
        }
        self.copy_store(copy)?;
        Ok(copy.stored)
    }

    /// Stores the rows parsed so far.
    fn copy_store(&mut self, copy: &mut CopyIn) -> Result<()> {
        copy.ctx.check_interrupt()?;
        let mut taken = copy.reader.take_rows();
        let parsed = std::mem::take(&mut taken.columns);
        let rows = taken.lines.len();
        if rows == 0 {
            return Ok(());
        }
        let table = copy.table.clone();
        let width = table.columns.len();
        let mut slots: Vec<Option<Vector>> = (0..width).map(|_| None).collect();
        for (k, v) in parsed.into_iter().enumerate() {
            slots[copy.columns[k]] = Some(v);
        }
        let all: Vec<u32> = (0..rows as u32).collect();
        let empty = Batch::new(Vec::new(), rows);
        let mut columns = Vec::with_capacity(width);
        for (i, slot) in slots.into_iter().enumerate() {
            let ty = table.columns[i].ty;
            // An array of an enum: every element a label of the type.
            if let (Some(v), DataType::Array(elem)) = (&slot, ty.ty)
                && let DataType::Enum(oid) = *elem
                && let Some(t) = self.db.catalog.user_type(oid, &copy.ctx.snapshot)
            {
                for r in 0..rows {
                    if let crate::types::Value::Array(a) = v.value(r, ty.ty) {
                        for e in crate::types::array::View::new(&a.bytes, a.elem).values() {
                            if let crate::types::Value::Text(s) = &e
                                && t.position(s).is_none()
                            {
                                return Err(t.bad_label(s));
                            }
                        }
                    }
                }
            }
            // A domain column: the domain's default where the column has none, and its
            // constraints over every value.
            let domain = (ty.domain != 0)
                .then(|| self.db.catalog.user_type(ty.domain, &copy.ctx.snapshot))
                .flatten();
            let default = table.columns[i].default.clone().or_else(|| {
                domain.as_ref().and_then(|t| {
                    self.db
                        .catalog
                        .domain_chain(t.oid, &copy.ctx.snapshot)
                        .iter()
                        .find_map(|d| d.default.as_ref().map(|(_, e)| e.clone()))
                })
            });
            let v = match slot {
                Some(v) => v,
                None => match &default {
                    Some(e) => exec::expr::eval(e, &empty, &all, &copy.ctx)?,
                    None => Vector::nulls(ty.ty, rows),
                },
            };
            if let Some(t) = &domain {
                let chain = self.db.catalog.domain_chain(t.oid, &copy.ctx.snapshot);
                let name = exec::functions::shown_type_name(&copy.ctx, t);
                exec::functions::check_domain(&name, &chain, &v, rows, &copy.ctx)?;
            }
            columns.push(v);
        }
        let mut batch = Batch::new(columns, rows);
        if let Some(filter) = &copy.filter {
            let keep = exec::expr::eval(filter, &batch, &all, &copy.ctx)?;
            let Data::Bool(values) = &keep.data else {
                return Err(Error::internal("COPY WHERE did not yield booleans"));
            };
            let sel: Vec<u32> = (0..rows)
                .filter(|&r| values[r] && !keep.is_null(r))
                .map(|r| r as u32)
                .collect();
            if sel.len() < rows {
                taken.keep(&sel);
                batch = Batch::new(
                    batch.columns.iter().map(|c| c.gather(&sel)).collect(),
                    sel.len(),
                );
            }
            if batch.rows == 0 {
                return Ok(());
            }
        }
        self.failed_row = None;
        match self.store_rows(&table, &batch, &copy.ctx, copy.txn, copy.stored, None) {
            Ok(_) => {
                copy.stored += batch.rows as u64;
                Ok(())
            }
            Err(e) => {
                let context = self
                    .failed_row
                    .take()
                    .and_then(|(r, row_check)| taken.context(r, row_check));
                Err(match context {
                    Some(c) if e.context.is_none() => e.with_context(c),
                    _ => e,
                })
            }
        }
    }

    /// Whether `oid` was created or emptied by TRUNCATE in this transaction since its
    /// last savepoint (COPY FREEZE's condition).
    fn created_or_truncated_here(&self, oid: u32) -> bool {
        let depth = self.savepoints.len();
        self.fresh_tables
            .iter()
            .any(|&(o, d)| o == oid && d == depth)
    }
}
