//! Checkpoints: the cut, the table files, and the manifest that names them.
//!
//! ```text
//!   DIR/checkpoint        manifest: first log segment to replay, catalog statements,
//!                         sequence states, (table name → file) and privileges; checksummed
//!   DIR/table-<n>         a table's rows at a checkpoint: "KILNTBL1", framed batches, an end frame
//!   DIR/wal-<n>           log segments (see `wal`)
//! ```
//!
//! The manifest is written to `checkpoint.tmp`, synced, and renamed over `checkpoint`
//! (then the directory is synced): a crash leaves the old manifest or the new one, each
//! with every file it names already on disk. Only after the rename are the segments
//! before the new cut and the files no manifest names deleted.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use parking_lot::RwLockWriteGuard;

use super::codec::{Reader, corrupt, encode_batch};
use super::{Durability, Files, TableFile, dump, sync_dir, wal};
use crate::Database;
use crate::catalog::acl::{Acl, AclItem, DefaultAcl, ObjectKind, Privs};
use crate::error::{Error, Result};
use crate::storage::mvcc::{Snapshot, TXN_NONE};
use crate::storage::table::Table;

const MANIFEST: &str = "checkpoint";
const MANIFEST_MAGIC: &[u8; 8] = b"KILNCKP2";
const TABLE_MAGIC: &[u8; 8] = b"KILNTBL1";
/// A table file's last frame: a file cut at a frame boundary lacks it. (A batch's
/// payload is at least six bytes, so this one is never a batch.)
const TABLE_END: &[u8; 4] = b"\xffEND";

/// What a manifest says.
#[derive(Default)]
pub struct Manifest {
    /// The first log segment written after the cut.
    pub segment: u64,
    pub next_file: u64,
    pub before_data: Vec<String>,
    pub after_data: Vec<String>,
    pub sequences: Vec<(String, i64, bool)>,
    /// (table name, file name).
    pub tables: Vec<(String, String)>,
    /// Privileges: every relation's owner and ACL, schema public's and the database's
    /// ACLs (roles and their memberships are the cluster's: `durable::cluster`).
    pub privileges: Privileges,
}

/// What GRANT, REVOKE and OWNER TO left, as a checkpoint keeps it.
#[derive(Default)]
pub struct Privileges {
    /// (relation name, owner, ACL) for relations not owned by the bootstrap superuser
    /// or with an ACL.
    pub relations: Vec<(String, u32, Option<Acl>)>,
    /// Schema public's ACL (checkpoints before schemas; `schemas` now).
    pub schema: Option<Acl>,
    /// Every schema's (name, owner, ACL), public's included.
    pub database: Option<Acl>,
    /// ALTER DEFAULT PRIVILEGES' entries.
    pub defaults: Vec<DefaultAcl>,
    pub schemas: Vec<(String, u32, Option<Acl>)>,
}

impl Privileges {
    /// The privileges of the catalog `snapshot` sees.
    pub fn of(db: &Database, snapshot: &crate::storage::mvcc::Snapshot) -> Privileges {
        let relations = db
            .catalog
            .visible_tables(snapshot)
            .into_iter()
            .filter(|t| !t.temp)
            .filter(|t| t.owner != crate::auth::BOOTSTRAP_SUPERUSER_OID || t.acl.is_some())
            .map(|t| (db.catalog.durable_name(&t), t.owner, t.acl.clone()))
            .collect();
        let schemas = db
            .catalog
            .visible_namespaces(snapshot)
            .into_iter()
            .filter(|n| !n.is_system() && !n.is_temp())
            .map(|n| (n.name.clone(), n.owner, n.acl.clone()))
            .collect();
        Privileges {
            relations,
            schema: None,
            database: db.catalog.database_acl(),
            defaults: db.catalog.default_acls(),
            schemas,
        }
    }
}

fn put_acl(out: &mut Vec<u8>, acl: Option<&Acl>) {
    match acl {
        None => out.push(0),
        Some(a) => {
            out.push(1);
            out.extend_from_slice(&(a.0.len() as u32).to_le_bytes());
            for i in &a.0 {
                out.extend_from_slice(&i.grantee.to_le_bytes());
                out.extend_from_slice(&i.grantor.to_le_bytes());
                out.extend_from_slice(&i.privs.0.to_le_bytes());
                out.extend_from_slice(&i.grant_options.0.to_le_bytes());
            }
        }
    }
}

fn read_acl(r: &mut Reader) -> Result<Option<Acl>> {
    if r.u8()? == 0 {
        return Ok(None);
    }
    let n = r.u32()?;
    let mut items = Vec::new();
    for _ in 0..n {
        let grantee = r.u32()?;
        let grantor = r.u32()?;
        let privs = u16::from_le_bytes(r.take(2)?.try_into().map_err(|_| corrupt("an ACL"))?);
        let options = u16::from_le_bytes(r.take(2)?.try_into().map_err(|_| corrupt("an ACL"))?);
        items.push(AclItem {
            grantee,
            grantor,
            privs: Privs(privs),
            grant_options: Privs(options),
        });
    }
    Ok(Some(Acl(items)))
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::new(
        "58030",
        format!("could not {what} \"{}\": {e}", path.display()),
    )
}

impl Durability {
    /// Writes a checkpoint. The caller holds the checkpointer's lock (`files`) and the
    /// barrier exclusively (`cut`); with `hold`, the barrier stays held until the
    /// manifest is on disk (a catalog change that is only in checkpoints), otherwise
    /// commits resume right after the cut. Sequences are kept as the log promised them
    /// unless `exact_sequences` (shutdown).
    pub(super) fn checkpoint_locked(
        &self,
        db: &Database,
        files: &mut Files,
        cut: RwLockWriteGuard<'_, ()>,
        hold: bool,
        exact_sequences: bool,
    ) -> Result<()> {
        let (snapshot, _pin) = db.txns.pinned_snapshot(TXN_NONE);
        let segment = self.switch_segment()?;
        let d = dump::dump(&db.catalog, &snapshot, exact_sequences);
        let logged: Vec<u64> = d.tables.iter().map(|t| t.storage.logged()).collect();
        let privileges = Privileges::of(db, &snapshot);
        self.since_checkpoint.store(0, Ordering::Relaxed);
        let _held = if hold {
            Some(cut)
        } else {
            drop(cut);
            None
        };

        let mut tables = std::collections::HashMap::new();
        let mut names = Vec::new();
        for (t, &logged) in d.tables.iter().zip(&logged) {
            let key = Arc::as_ptr(&t.storage) as usize;
            let reuse = files.tables.get(&key).filter(|f| {
                f.logged == logged
                    && f.table
                        .upgrade()
                        .is_some_and(|s| Arc::ptr_eq(&s, &t.storage))
            });
            let file = match reuse {
                Some(f) => f.file.clone(),
                None => {
                    let name = format!("table-{:016}", files.next_file);
                    files.next_file += 1;
                    write_table(&self.dir.join(&name), &t.storage, &snapshot)?;
                    name
                }
            };
            names.push((db.catalog.durable_name(t), file.clone()));
            tables.insert(
                key,
                TableFile {
                    table: Arc::downgrade(&t.storage),
                    file,
                    logged,
                },
            );
        }
        let manifest = Manifest {
            segment,
            next_file: files.next_file,
            before_data: d.before_data,
            after_data: d.after_data,
            sequences: d.sequences,
            tables: names,
            privileges,
        };
        write_manifest(&self.dir, &manifest)?;
        files.tables = tables;
        remove_unnamed(&self.dir, &manifest);
        Ok(())
    }
}

/// Writes the rows of `table` that `snapshot` sees to `path`, synced.
fn write_table(path: &Path, table: &Table, snapshot: &Snapshot) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| io_error("create", path, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let write = |out: &mut std::io::BufWriter<std::fs::File>, bytes: &[u8]| {
        out.write_all(bytes).map_err(|e| io_error("write", path, e))
    };
    write(&mut out, TABLE_MAGIC)?;
    let mut sel = Vec::new();
    let mut payload = Vec::new();
    let mut framed = Vec::new();
    for g in table.groups() {
        sel.clear();
        g.visible_rows(snapshot, 0, g.rows(), &mut sel);
        if sel.is_empty() {
            continue;
        }
        let columns: Vec<_> = g.columns.iter().map(|c| c.gather(&sel)).collect();
        payload.clear();
        encode_batch(&columns, sel.len(), &mut payload);
        framed.clear();
        wal::frame(&payload, &mut framed);
        write(&mut out, &framed)?;
    }
    framed.clear();
    wal::frame(TABLE_END, &mut framed);
    write(&mut out, &framed)?;
    let file = out
        .into_inner()
        .map_err(|e| io_error("write", path, e.into_error()))?;
    file.sync_all().map_err(|e| io_error("fsync", path, e))
}

/// Calls `each` with every batch of table file `path` (columns of `types`), reading
/// one frame at a time.
pub fn read_table(
    path: &Path,
    types: &[crate::types::DataType],
    mut each: impl FnMut(Vec<crate::exec::vector::Vector>, usize) -> Result<()>,
) -> Result<()> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| io_error("open", path, e))?;
    let size = file
        .metadata()
        .map_err(|e| io_error("read", path, e))?
        .len();
    let mut input = std::io::BufReader::with_capacity(1 << 20, file);
    let short = || corrupt(&format!("{} is cut short", path.display()));
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic).map_err(|_| short())?;
    if &magic != TABLE_MAGIC {
        return Err(corrupt(&format!("{} is not a table file", path.display())));
    }
    let mut payload = Vec::new();
    let mut read = 8u64;
    loop {
        let mut header = [0u8; 8];
        input.read_exact(&mut header).map_err(|_| short())?;
        let len = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) as u64;
        let crc = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
        read += 8;
        // A length past the file's end is damage, not an allocation.
        if len > size.saturating_sub(read) {
            return Err(short());
        }
        payload.resize(len as usize, 0);
        input.read_exact(&mut payload).map_err(|_| short())?;
        read += len;
        if crc32fast::hash(&payload) != crc {
            return Err(corrupt(&format!("{} fails its checksum", path.display())));
        }
        if payload.as_slice() == TABLE_END {
            return if read == size {
                Ok(())
            } else {
                Err(corrupt(&format!(
                    "{} goes on after its end",
                    path.display()
                )))
            };
        }
        let (columns, rows) = Reader::new(&payload).batch(types)?;
        each(columns, rows)?;
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn encode_manifest(m: &Manifest) -> Vec<u8> {
    let mut out = MANIFEST_MAGIC.to_vec();
    out.extend_from_slice(&m.segment.to_le_bytes());
    out.extend_from_slice(&m.next_file.to_le_bytes());
    for list in [&m.before_data, &m.after_data] {
        out.extend_from_slice(&(list.len() as u32).to_le_bytes());
        for s in list {
            put_str(&mut out, s);
        }
    }
    out.extend_from_slice(&(m.sequences.len() as u32).to_le_bytes());
    for (name, last, called) in &m.sequences {
        put_str(&mut out, name);
        out.extend_from_slice(&last.to_le_bytes());
        out.push(*called as u8);
    }
    out.extend_from_slice(&(m.tables.len() as u32).to_le_bytes());
    for (name, file) in &m.tables {
        put_str(&mut out, name);
        put_str(&mut out, file);
    }
    let p = &m.privileges;
    out.extend_from_slice(&(p.relations.len() as u32).to_le_bytes());
    for (name, owner, acl) in &p.relations {
        put_str(&mut out, name);
        out.extend_from_slice(&owner.to_le_bytes());
        put_acl(&mut out, acl.as_ref());
    }
    put_acl(&mut out, p.schema.as_ref());
    put_acl(&mut out, p.database.as_ref());
    out.extend_from_slice(&(p.defaults.len() as u32).to_le_bytes());
    for d in &p.defaults {
        out.extend_from_slice(&d.role.to_le_bytes());
        out.push(d.in_schema as u8);
        out.push((d.kind == ObjectKind::Sequence) as u8);
        put_acl(&mut out, Some(&d.acl));
    }
    out.extend_from_slice(&(p.schemas.len() as u32).to_le_bytes());
    for (name, owner, acl) in &p.schemas {
        put_str(&mut out, name);
        out.extend_from_slice(&owner.to_le_bytes());
        put_acl(&mut out, acl.as_ref());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn decode_manifest(bytes: &[u8]) -> Result<Manifest> {
    let bad = || corrupt("the checkpoint manifest");
    let (body, crc) = bytes
        .split_at_checked(bytes.len().saturating_sub(4))
        .ok_or_else(bad)?;
    if crc.len() != 4 || crc32fast::hash(body).to_le_bytes() != crc {
        return Err(bad());
    }
    let mut r = Reader::new(body);
    if r.take(8)? != MANIFEST_MAGIC {
        return Err(bad());
    }
    let mut m = Manifest {
        segment: r.u64()?,
        next_file: r.u64()?,
        ..Manifest::default()
    };
    for list in [&mut m.before_data, &mut m.after_data] {
        for _ in 0..r.u32()? {
            list.push(r.string()?);
        }
    }
    for _ in 0..r.u32()? {
        let name = r.string()?;
        let last = r.i64()?;
        let called = r.u8()? != 0;
        m.sequences.push((name, last, called));
    }
    for _ in 0..r.u32()? {
        let name = r.string()?;
        let file = r.string()?;
        m.tables.push((name, file));
    }
    // Privileges (absent from checkpoints written before they existed).
    if !r.is_empty() {
        let p = &mut m.privileges;
        for _ in 0..r.u32()? {
            let name = r.string()?;
            let owner = r.u32()?;
            let acl = read_acl(&mut r)?;
            p.relations.push((name, owner, acl));
        }
        p.schema = read_acl(&mut r)?;
        p.database = read_acl(&mut r)?;
        if !r.is_empty() {
            for _ in 0..r.u32()? {
                let role = r.u32()?;
                let in_schema = r.u8()? != 0;
                let kind = if r.u8()? != 0 {
                    ObjectKind::Sequence
                } else {
                    ObjectKind::Table
                };
                let acl = read_acl(&mut r)?.unwrap_or_default();
                p.defaults.push(DefaultAcl {
                    role,
                    in_schema,
                    kind,
                    acl,
                });
            }
        }
        // Schemas (absent from checkpoints written before them).
        if !r.is_empty() {
            for _ in 0..r.u32()? {
                let name = r.string()?;
                let owner = r.u32()?;
                let acl = read_acl(&mut r)?;
                p.schemas.push((name, owner, acl));
            }
        }
    }
    Ok(m)
}

fn write_manifest(dir: &Path, m: &Manifest) -> Result<()> {
    let tmp = dir.join("checkpoint.tmp");
    let path = dir.join(MANIFEST);
    let mut f = std::fs::File::create(&tmp).map_err(|e| io_error("create", &tmp, e))?;
    f.write_all(&encode_manifest(m))
        .map_err(|e| io_error("write", &tmp, e))?;
    f.sync_all().map_err(|e| io_error("fsync", &tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io_error("rename", &tmp, e))?;
    sync_dir(dir).map_err(|e| io_error("fsync", dir, e))
}

/// The manifest in `dir`, if there is one.
pub fn read_manifest(dir: &Path) -> Result<Option<Manifest>> {
    let path = dir.join(MANIFEST);
    match std::fs::read(&path) {
        Ok(bytes) => decode_manifest(&bytes).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error("read", &path, e)),
    }
}

/// Deletes the segments before `m`'s and the table files it does not name.
fn remove_unnamed(dir: &Path, m: &Manifest) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let stale = if let Some(n) = name.strip_prefix("wal-") {
            n.parse::<u64>().is_ok_and(|n| n < m.segment)
        } else {
            name.starts_with("table-") && !m.tables.iter().any(|(_, f)| f == name)
        };
        if stale && let Err(err) = std::fs::remove_file(e.path()) {
            tracing::warn!("could not remove {}: {err}", e.path().display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_file_reads_back_and_damage_is_an_error() {
        use crate::exec::vector::Vector;
        use crate::types::{DataType, Value};
        let mut v = Vector::with_capacity(DataType::Int4, 3);
        for x in [1, 2, 3] {
            v.push_value(&Value::Int4(x));
        }
        let mut payload = Vec::new();
        encode_batch(&[v], 3, &mut payload);
        let mut bytes = TABLE_MAGIC.to_vec();
        wal::frame(&payload, &mut bytes);
        wal::frame(&payload, &mut bytes);
        wal::frame(TABLE_END, &mut bytes);
        let dir = std::env::temp_dir().join(format!("kiln-table-file-{}", std::process::id()));
        let read = |bytes: &[u8]| -> Result<usize> {
            std::fs::write(&dir, bytes).map_err(|e| io_error("write", &dir, e))?;
            let mut rows = 0;
            read_table(&dir, &[DataType::Int4], |_, n| {
                rows += n;
                Ok(())
            })?;
            Ok(rows)
        };
        assert_eq!(read(&bytes).ok(), Some(6));
        for cut in 9..bytes.len() {
            assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(read(&flipped).is_err());
        assert!(read(b"NOTATABLE").is_err());
        let _ = std::fs::remove_file(&dir);
    }

    #[test]
    fn a_manifest_reads_back_and_damage_is_refused() {
        let m = Manifest {
            segment: 7,
            next_file: 3,
            before_data: vec!["CREATE TABLE t (a integer)".into()],
            after_data: vec!["ALTER TABLE t ADD CONSTRAINT t_pkey PRIMARY KEY (a)".into()],
            sequences: vec![("s".into(), 42, true)],
            tables: vec![("t".into(), "table-0000000000000002".into())],
            privileges: Privileges {
                relations: vec![(
                    "t".into(),
                    16390,
                    Some(Acl(vec![AclItem {
                        grantee: 0,
                        grantor: 16390,
                        privs: Privs::SELECT | Privs::UPDATE,
                        grant_options: Privs::SELECT,
                    }])),
                )],
                schema: None,
                schemas: vec![("app".into(), 16390, None)],
                database: Some(Acl::default()),
                defaults: vec![DefaultAcl {
                    role: 16390,
                    in_schema: true,
                    kind: ObjectKind::Sequence,
                    acl: Acl(vec![AclItem {
                        grantee: 16391,
                        grantor: 16390,
                        privs: Privs::USAGE,
                        grant_options: Privs::NONE,
                    }]),
                }],
            },
        };
        let bytes = encode_manifest(&m);
        let back = decode_manifest(&bytes).unwrap();
        assert_eq!(back.segment, 7);
        assert_eq!(back.before_data, m.before_data);
        assert_eq!(back.after_data, m.after_data);
        assert_eq!(back.sequences, m.sequences);
        assert_eq!(back.tables, m.tables);
        assert_eq!(back.privileges.relations, m.privileges.relations);
        assert_eq!(back.privileges.schema, None);
        assert_eq!(back.privileges.schemas, m.privileges.schemas);
        assert_eq!(back.privileges.database, Some(Acl::default()));
        assert_eq!(back.privileges.defaults, m.privileges.defaults);
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            assert!(decode_manifest(&bad).is_err(), "flipped byte {i}");
        }
        assert!(decode_manifest(&bytes[..bytes.len() - 1]).is_err());
    }
}
