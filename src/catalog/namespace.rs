//! Schemas (PostgreSQL's namespaces) and the search path that resolves unqualified
//! names through them.
//!
//! Every relation belongs to one namespace; a relation's name is unique within its
//! namespace (tables, views, sequences and indexes share it, as in pg_class). The
//! namespaces are versioned like tables: CREATE / DROP / ALTER SCHEMA make or end
//! versions stamped with the writing transaction, so they are transactional and a
//! snapshot sees the schemas of its moment. Three are fixed and always visible —
//! `pg_catalog` (the system tables, `catalog::system`), `information_schema` and
//! `pg_toast`; `public` is an ordinary schema made at the start (a database's owner
//! may drop it and make it again, as test setups do).
//!
//! A session's temporary tables live in its own namespace, `pg_temp_N`, made when it
//! first creates one (outside any transaction's versioning: it exists until the
//! session ends, when it goes with everything in it). `pg_temp` in a name or in
//! search_path means the session's own.
//!
//! ## The search path
//!
//! [`SearchPath`] is what PostgreSQL's `namespace.c` computes from `search_path`: the
//! namespaces an unqualified name is looked up in, in order, and the one an unqualified
//! CREATE goes to. `"$user"` is the schema named like the session's user, if there is
//! one; schemas that do not exist are skipped; `pg_catalog` is searched first unless
//! the path places it, and the session's temporary namespace before everything unless
//! the path places `pg_temp`. The creation namespace is the first schema the path
//! names explicitly that exists (never pg_catalog's implicit place, nor pg_temp).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::acl::Acl;
use crate::storage::mvcc::{Snapshot, TXN_NONE, TxnId};

pub const PG_CATALOG_OID: u32 = 11;
pub const PG_TOAST_OID: u32 = 99;
pub const PUBLIC_OID: u32 = 2200;
pub const INFORMATION_SCHEMA_OID: u32 = 13_183;
/// The owner PostgreSQL 15 gives schema public: pg_database_owner.
pub const PG_DATABASE_OWNER: u32 = 6171;

/// One version of a schema.
pub struct Namespace {
    pub oid: u32,
    pub name: String,
    pub owner: u32,
    /// GRANTs on it (None: only its owner's default rights).
    pub acl: Option<Acl>,
    /// A session's temporary namespace: that session's process id.
    pub temp_of: Option<i32>,
    xmin: TxnId,
    xmax: AtomicU64,
}

impl std::fmt::Debug for Namespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Namespace({} {})", self.oid, self.name)
    }
}

impl Namespace {
    pub fn new(
        oid: u32,
        name: &str,
        owner: u32,
        acl: Option<Acl>,
        temp_of: Option<i32>,
        xmin: TxnId,
    ) -> Namespace {
        Namespace {
            oid,
            name: name.to_string(),
            owner,
            acl,
            temp_of,
            xmin,
            xmax: AtomicU64::new(TXN_NONE),
        }
    }

    /// Whether `snapshot` sees this version (one made at the start, `xmin`
    /// `TXN_NONE`, every snapshot sees until something ends it).
    pub fn visible_to(&self, snapshot: &Snapshot) -> bool {
        let xmax = self.xmax.load(Ordering::Acquire);
        (self.xmin == TXN_NONE || snapshot.sees(self.xmin))
            && (xmax == TXN_NONE || !snapshot.sees(xmax))
    }

    /// Ends this version in transaction `txn` (DROP, or a new version replacing it).
    pub fn end(&self, txn: TxnId) {
        self.xmax.store(txn, Ordering::Release);
    }

    /// Rollback of [`Namespace::end`].
    pub fn undo_end(&self) {
        self.xmax.store(TXN_NONE, Ordering::Release);
    }

    /// Whether a committed transaction below `horizon` ended this version (no snapshot
    /// can see it any more).
    pub fn collectable(&self, horizon: TxnId) -> bool {
        let xmax = self.xmax.load(Ordering::Acquire);
        xmax != TXN_NONE && xmax < horizon
    }

    pub fn is_temp(&self) -> bool {
        self.temp_of.is_some()
    }

    /// One of the schemas nobody may change (pg_catalog, information_schema, pg_toast).
    pub fn is_system(&self) -> bool {
        is_system_namespace(self.oid)
    }
}

pub fn is_system_namespace(oid: u32) -> bool {
    matches!(oid, PG_CATALOG_OID | INFORMATION_SCHEMA_OID | PG_TOAST_OID)
}

/// The fixed namespaces, and public as made at the start (owned by pg_database_owner,
/// with PostgreSQL 15's ACL).
pub fn bootstrap() -> Vec<Arc<Namespace>> {
    let superuser = crate::auth::BOOTSTRAP_SUPERUSER_OID;
    vec![
        Arc::new(Namespace::new(
            PG_CATALOG_OID,
            "pg_catalog",
            superuser,
            None,
            None,
            TXN_NONE,
        )),
        Arc::new(Namespace::new(
            PG_TOAST_OID,
            "pg_toast",
            superuser,
            None,
            None,
            TXN_NONE,
        )),
        Arc::new(Namespace::new(
            PUBLIC_OID,
            "public",
            PG_DATABASE_OWNER,
            Some(super::acl::public_schema_acl()),
            None,
            TXN_NONE,
        )),
        Arc::new(Namespace::new(
            INFORMATION_SCHEMA_OID,
            "information_schema",
            superuser,
            None,
            None,
            TXN_NONE,
        )),
    ]
}

/// One entry of search_path as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathItem {
    /// `"$user"`.
    User,
    /// `pg_temp`: the session's temporary namespace.
    Temp,
    Schema(String),
}

/// Reads search_path's value (PostgreSQL's SplitIdentifierString: comma-separated
/// identifiers, unquoted ones folded to lower case, `"…"` kept as written). None for
/// a malformed list.
pub fn parse_path(value: &str) -> Option<Vec<PathItem>> {
    let mut out = Vec::new();
    let mut rest = value.trim_start();
    if rest.is_empty() {
        return Some(out);
    }
    loop {
        let (name, quoted, after) = if let Some(r) = rest.strip_prefix('"') {
            let mut name = String::new();
            let mut chars = r.char_indices();
            let end = loop {
                match chars.next() {
                    None => return None,
                    Some((i, '"')) => {
                        if r[i + 1..].starts_with('"') {
                            name.push('"');
                            chars.next();
                        } else {
                            break i + 1;
                        }
                    }
                    Some((_, c)) => name.push(c),
                }
            };
            (name, true, &r[end..])
        } else {
            let end = rest
                .find(|c: char| c == ',' || c.is_whitespace())
                .unwrap_or(rest.len());
            if end == 0 {
                return None;
            }
            (rest[..end].to_lowercase(), false, &rest[end..])
        };
        out.push(match name.as_str() {
            "$user" if quoted => PathItem::User,
            "pg_temp" => PathItem::Temp,
            _ => PathItem::Schema(name),
        });
        rest = after.trim_start();
        if rest.is_empty() {
            return Some(out);
        }
        rest = rest.strip_prefix(',')?.trim_start();
    }
}

/// Where an unqualified CREATE goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Creation {
    Namespace(u32),
    /// The session's temporary namespace (`pg_temp` first in the path), made when
    /// needed.
    Temp,
}

/// How a statement resolves unqualified names (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchPath {
    /// The namespaces searched, in order (pg_catalog and the session's temporary
    /// namespace included where they are searched).
    pub search: Vec<u32>,
    /// Where an unqualified CREATE puts its relation (None: no schema was selected).
    pub creation: Option<Creation>,
    /// The session's temporary namespace, once it has one.
    pub temp: Option<u32>,
    /// The schemas the path names explicitly (current_schemas(false)).
    pub explicit: Vec<u32>,
}

impl SearchPath {
    /// The path search_path `items` make for `user`, given the namespaces a snapshot
    /// sees (`lookup` by name) and the session's temporary namespace.
    pub fn resolve(
        items: &[PathItem],
        user: &str,
        temp: Option<u32>,
        lookup: impl Fn(&str) -> Option<u32>,
    ) -> SearchPath {
        let mut explicit = Vec::new();
        let mut temp_placed = false;
        let mut creation = None;
        for item in items {
            let oid = match item {
                PathItem::User => lookup(user),
                PathItem::Temp => {
                    temp_placed = true;
                    if creation.is_none() {
                        creation = Some(Creation::Temp);
                    }
                    temp
                }
                PathItem::Schema(s) => lookup(s),
            };
            if let Some(o) = oid {
                if creation.is_none() {
                    creation = Some(Creation::Namespace(o));
                }
                if !explicit.contains(&o) {
                    explicit.push(o);
                }
            }
        }
        let mut search = Vec::with_capacity(explicit.len() + 2);
        if let Some(t) = temp
            && !temp_placed
        {
            search.push(t);
        }
        if !explicit.contains(&PG_CATALOG_OID) {
            search.push(PG_CATALOG_OID);
        }
        search.extend(explicit.iter().copied());
        SearchPath {
            search,
            creation,
            temp,
            explicit,
        }
    }

    /// PostgreSQL's default path (`"$user", public`) for a user with no schema of
    /// their name: what statements without a session see.
    pub fn default_public() -> SearchPath {
        SearchPath {
            search: vec![PG_CATALOG_OID, PUBLIC_OID],
            creation: Some(Creation::Namespace(PUBLIC_OID)),
            temp: None,
            explicit: vec![PUBLIC_OID],
        }
    }
}

impl super::Catalog {
    /// The version of schema `name` that `snapshot` sees.
    pub fn namespace(&self, name: &str, snapshot: &Snapshot) -> Option<Arc<Namespace>> {
        self.namespaces
            .read()
            .iter()
            .rev()
            .find(|n| n.name == name && n.visible_to(snapshot))
            .cloned()
    }

    /// The version of schema `oid` that `snapshot` sees.
    pub fn namespace_by_oid(&self, oid: u32, snapshot: &Snapshot) -> Option<Arc<Namespace>> {
        self.namespaces
            .read()
            .iter()
            .rev()
            .find(|n| n.oid == oid && n.visible_to(snapshot))
            .cloned()
    }

    /// Every schema `snapshot` sees, by oid.
    pub fn visible_namespaces(&self, snapshot: &Snapshot) -> Vec<Arc<Namespace>> {
        let mut out: Vec<Arc<Namespace>> = self
            .namespaces
            .read()
            .iter()
            .filter(|n| n.visible_to(snapshot))
            .cloned()
            .collect();
        out.sort_by_key(|n| n.oid);
        out
    }

    /// CREATE SCHEMA `name` in transaction `txn` (42P06 when the name is taken).
    pub fn create_namespace(
        &self,
        name: &str,
        owner: u32,
        txn: TxnId,
        snapshot: &Snapshot,
    ) -> crate::error::Result<Arc<Namespace>> {
        if self.namespace(name, snapshot).is_some() {
            return Err(crate::error::Error::new(
                "42P06",
                format!("schema \"{name}\" already exists"),
            ));
        }
        let oid = self.new_oid();
        let ns = Arc::new(Namespace::new(oid, name, owner, None, None, txn));
        self.namespaces.write().push(ns.clone());
        Ok(ns)
    }

    /// A new version of schema `old` (RENAME, OWNER TO, GRANT / REVOKE), made by `txn`;
    /// undo with [`Catalog::undo_create_namespace`] of it and [`Namespace::undo_end`] of
    /// `old`.
    pub fn replace_namespace(
        &self,
        old: &Arc<Namespace>,
        name: &str,
        owner: u32,
        acl: Option<Acl>,
        txn: TxnId,
    ) -> Arc<Namespace> {
        old.end(txn);
        let ns = Arc::new(Namespace::new(old.oid, name, owner, acl, old.temp_of, txn));
        self.namespaces.write().push(ns.clone());
        ns
    }

    /// Rollback of CREATE SCHEMA (or of a new version): the version goes.
    pub fn undo_create_namespace(&self, ns: &Arc<Namespace>) {
        self.namespaces.write().retain(|n| !Arc::ptr_eq(n, ns));
    }

    /// The temporary namespace of session `pid`, made (as `pg_temp_N`, the first free
    /// N) when it has none yet. It is visible to every snapshot: it is the session's
    /// until [`Catalog::drop_temp_namespace`].
    pub fn temp_namespace(&self, pid: i32) -> Arc<Namespace> {
        let mut namespaces = self.namespaces.write();
        if let Some(ns) = namespaces.iter().find(|n| n.temp_of == Some(pid)) {
            return ns.clone();
        }
        let taken: Vec<&str> = namespaces
            .iter()
            .filter(|n| n.is_temp())
            .map(|n| n.name.as_str())
            .collect();
        let name = (1..)
            .map(|k| format!("pg_temp_{k}"))
            .find(|n| !taken.contains(&n.as_str()))
            .unwrap_or_else(|| format!("pg_temp_{pid}"));
        let oid = self.new_oid();
        let ns = Arc::new(Namespace::new(
            oid,
            &name,
            crate::auth::BOOTSTRAP_SUPERUSER_OID,
            None,
            Some(pid),
            TXN_NONE,
        ));
        namespaces.push(ns.clone());
        ns
    }

    /// The temporary namespace of session `pid`, if it made one.
    pub fn temp_namespace_of(&self, pid: i32) -> Option<Arc<Namespace>> {
        self.namespaces
            .read()
            .iter()
            .find(|n| n.temp_of == Some(pid))
            .cloned()
    }

    /// The session ended: its temporary namespace and every version of every relation
    /// in it go (nothing else can reach them).
    pub fn drop_temp_namespace(&self, pid: i32) {
        let Some(ns) = self.temp_namespace_of(pid) else {
            return;
        };
        self.tables.write().retain(|(n, _), _| *n != ns.oid);
        self.undo_create_namespace(&ns);
    }

    /// The relation a run-time name names (regclass input, nextval's argument):
    /// `schema.name` in its schema (3F000 when the schema does not exist; `pg_temp` is
    /// the path's temporary namespace), else the first along `path`.
    pub fn resolve_name(
        &self,
        schema: Option<&str>,
        name: &str,
        path: &SearchPath,
        snapshot: &Snapshot,
    ) -> crate::error::Result<Option<Arc<super::TableEntry>>> {
        match schema {
            Some("pg_temp") => Ok(path.temp.and_then(|ns| self.table(ns, name, snapshot))),
            Some(s) => match self.namespace(s, snapshot) {
                Some(ns) => Ok(self.table(ns.oid, name, snapshot)),
                None => Err(crate::error::Error::new(
                    "3F000",
                    format!("schema \"{s}\" does not exist"),
                )),
            },
            None => Ok(self.lookup(&path.search, name, snapshot)),
        }
    }

    /// [`Catalog::resolve_name`], with a missing schema meaning nothing found.
    pub fn resolve(
        &self,
        schema: Option<&str>,
        name: &str,
        path: &SearchPath,
        snapshot: &Snapshot,
    ) -> Option<Arc<super::TableEntry>> {
        self.resolve_name(schema, name, path, snapshot)
            .ok()
            .flatten()
    }

    /// Whether namespace `oid` is a session's temporary namespace.
    pub fn is_temp_namespace(&self, oid: u32) -> bool {
        self.namespaces
            .read()
            .iter()
            .any(|n| n.oid == oid && n.is_temp())
    }

    /// The newest name of namespace `oid` (whoever made it).
    pub fn latest_namespace_name(&self, oid: u32) -> String {
        self.namespaces
            .read()
            .iter()
            .rev()
            .find(|n| n.oid == oid)
            .map_or_else(|| "public".to_string(), |n| n.name.clone())
    }

    /// `schema.name`, each part quoted as quote_ident quotes it (pg_get_serial_sequence;
    /// a temporary relation of the session whose namespace is `temp` is `pg_temp.name`).
    pub fn qualified_name(
        &self,
        entry: &super::TableEntry,
        snapshot: &Snapshot,
        temp: Option<u32>,
    ) -> String {
        let schema = if Some(entry.namespace) == temp {
            "pg_temp".to_string()
        } else {
            self.namespace_by_oid(entry.namespace, snapshot)
                .map_or_else(
                    || self.latest_namespace_name(entry.namespace),
                    |n| n.name.clone(),
                )
        };
        format!(
            "{}.{}",
            super::system::quote_ident(&schema),
            super::system::quote_ident(&entry.name)
        )
    }

    /// How the durable mode names a relation in its log and checkpoints: `schema.name`
    /// (regclass input reads it back; a name without a schema is public's).
    pub fn durable_name(&self, entry: &super::TableEntry) -> String {
        format!(
            "{}.{}",
            super::system::quote_ident(&self.latest_namespace_name(entry.namespace)),
            super::system::quote_ident(&entry.name)
        )
    }

    /// The relation a durable name names (see [`Catalog::durable_name`]).
    pub fn by_durable_name(
        &self,
        name: &str,
        snapshot: &Snapshot,
    ) -> Option<Arc<super::TableEntry>> {
        let (schema, rel) = super::sequence::parse_relation_name(name).ok()?;
        let ns = match schema {
            Some(s) => self.namespace(&s, snapshot)?.oid,
            None => PUBLIC_OID,
        };
        self.table(ns, &rel, snapshot)
    }

    /// DISCARD TEMP: every version of every relation in namespace `ns` goes.
    pub fn clear_namespace(&self, ns: u32) {
        self.tables.write().retain(|(n, _), _| *n != ns);
    }

    /// The search path that search_path `items` make for `user` under `snapshot`.
    pub fn search_path(
        &self,
        items: &[PathItem],
        user: &str,
        temp: Option<u32>,
        snapshot: &Snapshot,
    ) -> SearchPath {
        let namespaces = self.namespaces.read();
        SearchPath::resolve(items, user, temp, |name| {
            namespaces
                .iter()
                .rev()
                .find(|n| n.name == name && !n.is_temp() && n.visible_to(snapshot))
                .map(|n| n.oid)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_path_syntax() {
        assert_eq!(
            parse_path("\"$user\", public"),
            Some(vec![PathItem::User, PathItem::Schema("public".into())])
        );
        assert_eq!(
            parse_path(" A ,\"B c\",pg_temp"),
            Some(vec![
                PathItem::Schema("a".into()),
                PathItem::Schema("B c".into()),
                PathItem::Temp
            ])
        );
        assert_eq!(parse_path(""), Some(vec![]));
        assert_eq!(parse_path("a,,b"), None);
        assert_eq!(parse_path("\"a"), None);
        assert_eq!(
            parse_path("\"\""),
            Some(vec![PathItem::Schema(String::new())])
        );
        assert_eq!(parse_path("a b"), None);
    }

    #[test]
    fn the_path_puts_temp_and_pg_catalog_first_unless_placed() {
        let lookup = |n: &str| match n {
            "public" => Some(PUBLIC_OID),
            "s" => Some(20_000),
            "pg_catalog" => Some(PG_CATALOG_OID),
            _ => None,
        };
        let p = SearchPath::resolve(
            &parse_path("\"$user\", s, nosuch, public").unwrap_or_default(),
            "alice",
            Some(30_000),
            lookup,
        );
        assert_eq!(p.search, [30_000, PG_CATALOG_OID, 20_000, PUBLIC_OID]);
        assert_eq!(p.creation, Some(Creation::Namespace(20_000)));
        let p = SearchPath::resolve(
            &parse_path("public, pg_catalog, pg_temp").unwrap_or_default(),
            "alice",
            Some(30_000),
            lookup,
        );
        assert_eq!(p.search, [PUBLIC_OID, PG_CATALOG_OID, 30_000]);
        let p = SearchPath::resolve(
            &parse_path("pg_temp, public").unwrap_or_default(),
            "alice",
            None,
            lookup,
        );
        assert_eq!(p.creation, Some(Creation::Temp));
        assert_eq!(p.search, [PG_CATALOG_OID, PUBLIC_OID]);
        let p = SearchPath::resolve(&[], "alice", None, lookup);
        assert_eq!(p.search, [PG_CATALOG_OID]);
        assert_eq!(p.creation, None);
    }
}
