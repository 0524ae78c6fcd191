//! Extensions: the ones kiln has built in (PostgreSQL ships them as shared libraries and
//! SQL scripts; kiln has their functions compiled in) and the versions of each
//! database's `pg_extension`.
//!
//! `CREATE EXTENSION` does not load anything: it records that the database has the
//! extension, which makes its functions and operators visible to the binder (as in
//! PostgreSQL, where they exist only once the script has run); `DROP EXTENSION` takes
//! them away. The records are versioned like schemas (stamped with the writing
//! transaction), so both are transactional. plpgsql is there from the start, as
//! initdb leaves it. A checkpoint keeps them as `CREATE EXTENSION` statements.
//!
//! [`AVAILABLE`] is `pg_available_extensions`: the names PostgreSQL 15's contrib
//! packages that applications install, each with whether kiln implements it. A name
//! not listed gets PostgreSQL's "is not available" error; a listed one kiln lacks
//! (citext, hstore, unaccent) answers 0A000 naming it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::storage::mvcc::{Snapshot, TXN_NONE, TxnId};

/// One extension PostgreSQL's packages offer.
pub struct Available {
    pub name: &'static str,
    pub version: &'static str,
    pub comment: &'static str,
    pub relocatable: bool,
    /// Whether kiln implements it (else CREATE EXTENSION answers 0A000).
    pub implemented: bool,
}

const fn ext(
    name: &'static str,
    version: &'static str,
    relocatable: bool,
    implemented: bool,
    comment: &'static str,
) -> Available {
    Available {
        name,
        version,
        comment,
        relocatable,
        implemented,
    }
}

/// The extensions kiln knows, by name.
pub const AVAILABLE: &[Available] = &[
    ext(
        "btree_gin",
        "1.3",
        true,
        true,
        "support for indexing common datatypes in GIN",
    ),
    ext(
        "btree_gist",
        "1.7",
        true,
        true,
        "support for indexing common datatypes in GiST",
    ),
    ext(
        "citext",
        "1.6",
        true,
        false,
        "data type for case-insensitive character strings",
    ),
    ext(
        "hstore",
        "1.8",
        true,
        false,
        "data type for storing sets of (key, value) pairs",
    ),
    ext(
        "pg_trgm",
        "1.6",
        true,
        true,
        "text similarity measurement and index searching based on trigrams",
    ),
    ext("pgcrypto", "1.3", true, true, "cryptographic functions"),
    ext(
        "plpgsql",
        "1.0",
        false,
        true,
        "PL/pgSQL procedural language",
    ),
    ext(
        "unaccent",
        "1.1",
        true,
        false,
        "text search dictionary that removes accents",
    ),
    ext(
        "uuid-ossp",
        "1.1",
        true,
        true,
        "generate universally unique identifiers (UUIDs)",
    ),
];

/// plpgsql's oid in PostgreSQL 15's initdb.
pub const PLPGSQL_OID: u32 = 13_559;

/// The extension `name` if kiln knows it.
pub fn available(name: &str) -> Option<&'static Available> {
    AVAILABLE.iter().find(|a| a.name == name)
}

/// One version of a database's record of an extension.
pub struct Extension {
    pub oid: u32,
    pub name: String,
    pub owner: u32,
    /// The schema its objects belong to.
    pub namespace: u32,
    pub version: &'static str,
    pub relocatable: bool,
    xmin: TxnId,
    xmax: AtomicU64,
}

impl std::fmt::Debug for Extension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Extension({} {})", self.oid, self.name)
    }
}

impl Extension {
    /// Whether `snapshot` sees this version.
    pub fn visible_to(&self, snapshot: &Snapshot) -> bool {
        let xmax = self.xmax.load(Ordering::Acquire);
        (self.xmin == TXN_NONE || snapshot.sees(self.xmin))
            && (xmax == TXN_NONE || !snapshot.sees(xmax))
    }

    /// DROP EXTENSION in transaction `txn`.
    pub fn end(&self, txn: TxnId) {
        self.xmax.store(txn, Ordering::Release);
    }

    /// Rollback of [`Extension::end`].
    pub fn undo_end(&self) {
        self.xmax.store(TXN_NONE, Ordering::Release);
    }

    /// Whether no snapshot can see it any more.
    pub fn collectable(&self, horizon: TxnId) -> bool {
        let xmax = self.xmax.load(Ordering::Acquire);
        xmax != TXN_NONE && xmax < horizon
    }

    /// Made at the start (plpgsql), not by a statement.
    pub fn is_initial(&self) -> bool {
        self.xmin == TXN_NONE
    }
}

/// What initdb leaves: plpgsql in pg_catalog.
pub fn bootstrap() -> Vec<Arc<Extension>> {
    vec![Arc::new(Extension {
        oid: PLPGSQL_OID,
        name: "plpgsql".into(),
        owner: crate::auth::BOOTSTRAP_SUPERUSER_OID,
        namespace: super::namespace::PG_CATALOG_OID,
        version: "1.0",
        relocatable: false,
        xmin: TXN_NONE,
        xmax: AtomicU64::new(TXN_NONE),
    })]
}

impl super::Catalog {
    /// The version of extension `name` that `snapshot` sees.
    pub fn extension(&self, name: &str, snapshot: &Snapshot) -> Option<Arc<Extension>> {
        self.extensions
            .read()
            .iter()
            .rev()
            .find(|e| e.name == name && e.visible_to(snapshot))
            .cloned()
    }

    /// Whether extension `name` is installed as `snapshot` sees the catalog.
    pub fn has_extension(&self, name: &str, snapshot: &Snapshot) -> bool {
        self.extensions
            .read()
            .iter()
            .any(|e| e.name == name && e.visible_to(snapshot))
    }

    /// Every extension `snapshot` sees, by oid.
    pub fn visible_extensions(&self, snapshot: &Snapshot) -> Vec<Arc<Extension>> {
        let mut out: Vec<Arc<Extension>> = self
            .extensions
            .read()
            .iter()
            .filter(|e| e.visible_to(snapshot))
            .cloned()
            .collect();
        out.sort_by_key(|e| e.oid);
        out
    }

    /// CREATE EXTENSION `name` (one of [`AVAILABLE`]) in schema `namespace`, by `txn`.
    pub fn create_extension(
        &self,
        info: &'static Available,
        owner: u32,
        namespace: u32,
        txn: TxnId,
        snapshot: &Snapshot,
    ) -> Result<Arc<Extension>> {
        let mut all = self.extensions.write();
        // A version another transaction made and has not ended, visible or not: two
        // sessions creating one extension at once, the second fails (PostgreSQL's
        // unique index on extname).
        if all.iter().any(|e| {
            e.name == info.name
                && (e.visible_to(snapshot)
                    || e.xmax.load(Ordering::Acquire) == TXN_NONE && !snapshot.sees(e.xmin))
        }) {
            return Err(Error::new(
                "42710",
                format!("extension \"{}\" already exists", info.name),
            ));
        }
        let e = Arc::new(Extension {
            oid: self.new_oid(),
            name: info.name.to_string(),
            owner,
            namespace,
            version: info.version,
            relocatable: info.relocatable,
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
        });
        all.push(e.clone());
        Ok(e)
    }

    /// Rollback of CREATE EXTENSION.
    pub fn undo_create_extension(&self, e: &Arc<Extension>) {
        self.extensions.write().retain(|x| !Arc::ptr_eq(x, e));
    }

    /// Forgets extension versions no snapshot can see.
    pub(super) fn collect_extensions(&self, horizon: TxnId) {
        self.extensions.write().retain(|e| !e.collectable(horizon));
    }
}
