//! The durable layout of a whole cluster: what databases share, and a directory per
//! database.
//!
//! ```text
//!   DIR/kiln.lock       held while a server runs on DIR
//!   DIR/global          roles, role memberships and the list of databases (oid, name,
//!                       owner, flags): "KILNGLB1", checksummed, replaced by rename
//!   DIR/base/<oid>/     one database: its checkpoint, log and table files
//!                       (`checkpoint`, `wal`), a [`Durability`] of its own
//! ```
//!
//! As in PostgreSQL (`global/` beside `base/<oid>/`), roles belong to the cluster and
//! everything else to one database. Role changes and CREATE / DROP DATABASE are rare,
//! so the global file is simply written whole, to `global.tmp`, synced and renamed,
//! when one commits (before the client hears of it). CREATE DATABASE fills the new
//! database's directory (a first checkpoint) before the global file names it; DROP
//! DATABASE takes it out of the global file before deleting the directory. A crash
//! between the two steps leaves a directory no global file names, which the next start
//! deletes.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::codec::{Reader, corrupt};
use super::{Durability, sync_dir};
use crate::auth::{BOOTSTRAP_SUPERUSER_OID, Membership, Role, ScramVerifier, Secret};
use crate::error::{Error, Result};
use crate::{Cluster, Database, DatabaseSpec};

const GLOBAL: &str = "global";
const GLOBAL_MAGIC: &[u8; 8] = b"KILNGLB1";

/// A cluster's data directory.
pub struct DataDir {
    root: PathBuf,
    /// Held (locked) while the server runs: a second server on the directory is refused.
    _lock: File,
    /// Keeps writes of the global file one at a time.
    writing: Mutex<()>,
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::new(
        "58030",
        format!("could not {what} \"{}\": {e}", path.display()),
    )
}

/// What the global file holds.
#[derive(Default)]
struct Globals {
    roles: Vec<Role>,
    memberships: Vec<Membership>,
    /// ALTER ROLE … SET.
    role_settings: Vec<crate::auth::RoleSetting>,
    /// (oid, spec).
    databases: Vec<(u32, DatabaseSpec)>,
}

impl DataDir {
    /// Opens (creating it if need be) data directory `root` for `cluster`: restores the
    /// roles and databases it holds (a new directory gets the cluster's three initial
    /// databases), recovers each database and starts its log.
    pub fn open(cluster: &Arc<Cluster>, root: &Path) -> Result<Arc<DataDir>> {
        std::fs::create_dir_all(root.join("base"))
            .map_err(|e| io_error("create data directory", root, e))?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(root.join("kiln.lock"))
            .map_err(|e| io_error("open the lock file in", root, e))?;
        if lock.try_lock().is_err() {
            return Err(Error::new(
                "55006",
                format!(
                    "data directory \"{}\" is in use by another kiln server",
                    root.display()
                ),
            ));
        }
        if root.join("checkpoint").exists() && !root.join(GLOBAL).exists() {
            return Err(Error::new(
                "58030",
                format!(
                    "data directory \"{}\" was written by an older kiln (one database, no \
                     \"global\" file) and cannot be read by this one",
                    root.display()
                ),
            ));
        }
        let dir = Arc::new(DataDir {
            root: root.to_path_buf(),
            _lock: lock,
            writing: Mutex::new(()),
        });
        match read_globals(&root.join(GLOBAL))? {
            Some(g) => {
                for role in g.roles {
                    if role.oid != BOOTSTRAP_SUPERUSER_OID {
                        cluster.roles.restore(role);
                    }
                }
                cluster.roles.set_memberships(g.memberships);
                cluster.roles.set_settings(g.role_settings);
                cluster.clear();
                for (oid, spec) in g.databases {
                    cluster.oid_seen(oid);
                    let db = cluster.insert(Database::new(cluster, oid, spec));
                    dir.attach(&db)?;
                }
            }
            None => {
                for db in cluster.databases() {
                    dir.attach(&db)?;
                }
                dir.save(cluster)?;
            }
        }
        dir.remove_unnamed(cluster);
        Ok(dir)
    }

    /// The directory of database `oid`.
    fn base(&self, oid: u32) -> PathBuf {
        self.root.join("base").join(oid.to_string())
    }

    /// Recovers `db` from its directory (empty for a new one) and starts its log.
    pub fn attach(&self, db: &Arc<Database>) -> Result<()> {
        let durable = Durability::open(db, &self.base(db.oid))?;
        durable.start_worker(db);
        let _ = db.durable.set(durable);
        Ok(())
    }

    /// A database made by CREATE DATABASE (filled from its template, in the cluster's
    /// list): its directory gets a first checkpoint, then the global file names it.
    pub fn create_database(&self, cluster: &Cluster, db: &Arc<Database>) -> Result<()> {
        self.attach(db)?;
        if let Some(d) = db.durable.get() {
            d.checkpoint(db)?;
        }
        self.save(cluster)
    }

    /// A database DROP DATABASE took out of the cluster's list: the global file forgets
    /// it, then its directory goes.
    pub fn drop_database(&self, cluster: &Cluster, db: &Database) -> Result<()> {
        self.save(cluster)?;
        if let Some(d) = db.durable.get() {
            d.stop();
        }
        let base = self.base(db.oid);
        if let Err(e) = std::fs::remove_dir_all(&base) {
            tracing::warn!("could not remove \"{}\": {e}", base.display());
        }
        Ok(())
    }

    /// Writes the global file: roles, memberships and databases as they are now.
    pub fn save(&self, cluster: &Cluster) -> Result<()> {
        let _one = self.writing.lock();
        let g = Globals {
            roles: cluster.roles.all(),
            memberships: cluster.roles.memberships(),
            role_settings: cluster.roles.settings(),
            databases: cluster
                .databases()
                .iter()
                .map(|d| (d.oid, d.spec()))
                .collect(),
        };
        let tmp = self.root.join("global.tmp");
        let path = self.root.join(GLOBAL);
        let mut f = File::create(&tmp).map_err(|e| io_error("create", &tmp, e))?;
        f.write_all(&encode(&g))
            .map_err(|e| io_error("write", &tmp, e))?;
        f.sync_all().map_err(|e| io_error("fsync", &tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| io_error("rename", &tmp, e))?;
        sync_dir(&self.root).map_err(|e| io_error("fsync", &self.root, e))
    }

    /// At shutdown: every database's last checkpoint.
    pub fn shutdown(&self, cluster: &Cluster) {
        for db in cluster.databases() {
            if let Some(durable) = db.durable.get() {
                durable.stop();
                match durable.shutdown_checkpoint(&db) {
                    Ok(()) => {
                        tracing::info!("database \"{}\": shutdown checkpoint written", db.name())
                    }
                    Err(e) => tracing::error!(
                        "database \"{}\": shutdown checkpoint failed: {}",
                        db.name(),
                        e.message
                    ),
                }
            }
        }
    }

    /// Deletes database directories the global file does not name (a crash in the
    /// middle of CREATE or DROP DATABASE).
    fn remove_unnamed(&self, cluster: &Cluster) {
        let Ok(entries) = std::fs::read_dir(self.root.join("base")) else {
            return;
        };
        let named: Vec<String> = cluster
            .databases()
            .iter()
            .map(|d| d.oid.to_string())
            .collect();
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if !named.contains(&name) {
                tracing::warn!("removing \"{}\": no database has it", e.path().display());
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn encode(g: &Globals) -> Vec<u8> {
    let mut out = GLOBAL_MAGIC.to_vec();
    out.extend_from_slice(&(g.roles.len() as u32).to_le_bytes());
    for r in &g.roles {
        put_str(&mut out, &r.name);
        out.extend_from_slice(&r.oid.to_le_bytes());
        out.push(r.superuser as u8 | (r.login as u8) << 1 | (r.createdb as u8) << 2);
        match &r.secret {
            None => out.push(0),
            Some(s) => {
                out.push(1);
                let (salt, iterations, stored, server) = s.scram.parts();
                out.extend_from_slice(&(salt.len() as u32).to_le_bytes());
                out.extend_from_slice(salt);
                out.extend_from_slice(&iterations.to_le_bytes());
                out.extend_from_slice(stored);
                out.extend_from_slice(server);
            }
        }
    }
    out.extend_from_slice(&(g.memberships.len() as u32).to_le_bytes());
    for m in &g.memberships {
        for v in [m.role, m.member, m.grantor] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(m.admin as u8);
    }
    out.extend_from_slice(&(g.databases.len() as u32).to_le_bytes());
    for (oid, d) in &g.databases {
        out.extend_from_slice(&oid.to_le_bytes());
        put_str(&mut out, &d.name);
        out.extend_from_slice(&d.owner.to_le_bytes());
        out.push(d.is_template as u8 | (d.allow_connections as u8) << 1);
        out.extend_from_slice(&d.connection_limit.to_le_bytes());
        out.extend_from_slice(&(d.settings.len() as u32).to_le_bytes());
        for (name, value) in &d.settings {
            put_str(&mut out, name);
            put_str(&mut out, value);
        }
    }
    out.extend_from_slice(&(g.role_settings.len() as u32).to_le_bytes());
    for rs in &g.role_settings {
        out.extend_from_slice(&rs.role.to_le_bytes());
        out.extend_from_slice(&rs.database.to_le_bytes());
        out.extend_from_slice(&(rs.settings.len() as u32).to_le_bytes());
        for (name, value) in &rs.settings {
            put_str(&mut out, name);
            put_str(&mut out, value);
        }
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn decode(bytes: &[u8]) -> Result<Globals> {
    let bad = || corrupt("the global file");
    let (body, crc) = bytes
        .split_at_checked(bytes.len().saturating_sub(4))
        .ok_or_else(bad)?;
    if crc.len() != 4 || crc32fast::hash(body).to_le_bytes() != crc {
        return Err(bad());
    }
    let mut r = Reader::new(body);
    if r.take(8)? != GLOBAL_MAGIC {
        return Err(bad());
    }
    let mut g = Globals::default();
    for _ in 0..r.u32()? {
        let name = r.string()?;
        let oid = r.u32()?;
        let flags = r.u8()?;
        let secret = match r.u8()? {
            0 => None,
            _ => {
                let n = r.u32()? as usize;
                let salt = r.take(n)?.to_vec();
                let iterations = r.u32()?;
                let stored: [u8; 32] = r.take(32)?.try_into().map_err(|_| bad())?;
                let server: [u8; 32] = r.take(32)?.try_into().map_err(|_| bad())?;
                Some(Secret {
                    scram: ScramVerifier::from_parts(salt, iterations, stored, server),
                })
            }
        };
        g.roles.push(Role {
            oid,
            name,
            superuser: flags & 1 != 0,
            login: flags & 2 != 0,
            createdb: flags & 4 != 0,
            secret,
        });
    }
    for _ in 0..r.u32()? {
        let (role, member, grantor) = (r.u32()?, r.u32()?, r.u32()?);
        let admin = r.u8()? != 0;
        g.memberships.push(Membership {
            role,
            member,
            grantor,
            admin,
        });
    }
    for _ in 0..r.u32()? {
        let oid = r.u32()?;
        let name = r.string()?;
        let owner = r.u32()?;
        let flags = r.u8()?;
        let limit = r.u32()? as i32;
        let mut settings = Vec::new();
        for _ in 0..r.u32()? {
            settings.push((r.string()?, r.string()?));
        }
        g.databases.push((
            oid,
            DatabaseSpec {
                name,
                owner,
                is_template: flags & 1 != 0,
                allow_connections: flags & 2 != 0,
                connection_limit: limit,
                settings,
            },
        ));
    }
    // ALTER ROLE … SET (absent from files written before it).
    if !r.is_empty() {
        for _ in 0..r.u32()? {
            let (role, database) = (r.u32()?, r.u32()?);
            let mut settings = Vec::new();
            for _ in 0..r.u32()? {
                settings.push((r.string()?, r.string()?));
            }
            g.role_settings.push(crate::auth::RoleSetting {
                role,
                database,
                settings,
            });
        }
    }
    if !r.is_empty() {
        return Err(bad());
    }
    Ok(g)
}

fn read_globals(path: &Path) -> Result<Option<Globals>> {
    match std::fs::read(path) {
        Ok(bytes) => decode(&bytes).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error("read", path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_global_file_reads_back_and_damage_is_refused() {
        let g = Globals {
            roles: vec![Role {
                oid: 16390,
                name: "app".into(),
                superuser: false,
                login: true,
                createdb: true,
                secret: Some(Secret::new("pw")),
            }],
            memberships: vec![Membership {
                role: 16391,
                member: 16390,
                grantor: 10,
                admin: true,
            }],
            databases: vec![(
                16400,
                DatabaseSpec {
                    name: "test_app".into(),
                    owner: 16390,
                    is_template: false,
                    allow_connections: true,
                    connection_limit: 7,
                    settings: vec![("timezone".into(), "UTC".into())],
                },
            )],
            role_settings: vec![crate::auth::RoleSetting {
                role: 16390,
                database: 0,
                settings: vec![("search_path".into(), "app, public".into())],
            }],
        };
        let bytes = encode(&g);
        let back = decode(&bytes).unwrap();
        let r = &back.roles[0];
        assert_eq!(
            (r.oid, r.name.as_str(), r.superuser, r.login, r.createdb),
            (16390, "app", false, true, true)
        );
        assert_eq!(
            r.secret.as_ref().map(|s| s.scram.parts().0.to_vec()),
            g.roles[0]
                .secret
                .as_ref()
                .map(|s| s.scram.parts().0.to_vec())
        );
        assert_eq!(back.memberships, g.memberships);
        let (oid, d) = &back.databases[0];
        assert_eq!(
            (*oid, d.name.as_str(), d.owner, d.connection_limit),
            (16400, "test_app", 16390, 7)
        );
        assert_eq!(d.settings, [("timezone".to_string(), "UTC".to_string())]);
        assert_eq!(back.role_settings, g.role_settings);
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            assert!(decode(&bad).is_err(), "flipped byte {i}");
        }
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
    }
}
