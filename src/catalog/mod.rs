//! The catalog: schema `public` and its tables, versioned like rows.
//!
//! A [`TableEntry`] joins what SQL knows of a table (column names, declared types, NOT
//! NULL, DEFAULT expressions) with its storage. Names are stored folded to lower case
//! unless they were quoted, as PostgreSQL does.
//!
//! ## Versions
//!
//! The catalog is multi-versioned the way rows are (`storage::mvcc`): every entry carries
//! the transaction that created it (`xmin`) and the one that dropped it (`xmax`), and a
//! name resolves to the one version a snapshot sees. So another session never sees a
//! table whose CREATE has not committed; one that wants a table whose DROP (or ALTER)
//! has not committed waits for the dropper's table lock (`storage::locks`), as in
//! PostgreSQL, and then binds to what the dropper left. DDL takes the catalog's own
//! lock (`session::CATALOG_LOCK`), so at most one transaction has uncommitted versions;
//! its undo log reverses them on rollback
//! ([`Catalog::undo_create`], [`Catalog::undo_drop`]).
//!
//! ```text
//!   "t" ─▶ [ v1: xmin 5, xmax 9 (dropped) | v2: xmin 9, xmax 0 ]
//!          a snapshot taken before 9 committed resolves "t" to v1, a later one to v2
//! ```
//!
//! Bound statements hold `Arc<TableEntry>`; before one runs, the session checks that each
//! table it names still resolves to the same version in the statement's snapshot and
//! binds it again if not (PostgreSQL's plan-cache invalidation). Versions no snapshot can
//! see are removed by the vacuum ([`Catalog::collect`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use parking_lot::RwLock;

pub mod acl;
pub mod extension;
pub mod namespace;
pub mod sequence;
pub mod stats;
pub mod system;
pub mod types;

use crate::error::{Error, Result};
use crate::sql::expr::Expr;
use crate::storage::index::{Index, KeyPart};
use crate::storage::mvcc::{Snapshot, TXN_NONE, TxnId, TxnManager};
use crate::storage::table::Table;
use crate::storage::vacuum::{dead_rows_threshold, vacuum_table};
use crate::types::SqlType;
use namespace::{Namespace, PUBLIC_OID};
use sequence::Sequence;

#[derive(Clone, Debug)]
pub struct ColumnDef {
    pub name: String,
    pub ty: SqlType,
    pub not_null: bool,
    /// Bound DEFAULT expression (no column references).
    pub default: Option<Expr>,
    /// GENERATED … AS IDENTITY: `Some(true)` for ALWAYS, `Some(false)` for BY DEFAULT.
    pub identity: Option<bool>,
    /// GENERATED ALWAYS AS (expr) STORED: the expression, over a batch of the table's
    /// columns by position, computed whenever a row is stored.
    pub generated: Option<Expr>,
}

/// Which constraint an index backs (the constraint has the index's name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyConstraint {
    PrimaryKey,
    Unique,
}

/// An index as the catalog knows it; its entries live in the table's storage.
#[derive(Clone, Debug)]
pub struct IndexEntry {
    pub oid: u32,
    pub name: String,
    pub index: Arc<Index>,
    pub constraint: Option<KeyConstraint>,
    /// Storage parameters (`WITH (fillfactor = 70)`): pg_class.reloptions, as given.
    /// kiln's indexes have no pages to fill; they are kept and shown.
    pub options: Vec<(String, String)>,
    /// A DEFERRABLE key constraint: its uniqueness is checked at the end of the
    /// statement, or at COMMIT when deferred (`session::foreign_keys`' pending checks).
    pub deferrable: bool,
    pub initially_deferred: bool,
}

/// A CHECK constraint.
#[derive(Clone, Debug)]
pub struct CheckConstraint {
    pub name: String,
    /// Evaluated over a batch of the table's columns, in table order.
    pub expr: Expr,
}

/// What a foreign key does to referencing rows when the referenced key goes away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FkAction {
    NoAction,
    Restrict,
    Cascade,
    SetNull,
    SetDefault,
}

/// A FOREIGN KEY constraint of the referencing (child) table.
#[derive(Clone, Debug)]
pub struct ForeignKey {
    /// Creation order (an oid, given when the key is first stored): referencing keys'
    /// actions run in this order, as PostgreSQL's triggers do.
    pub oid: u32,
    pub name: String,
    /// The referencing columns.
    pub columns: Vec<usize>,
    /// The referenced table's oid ([`SELF_REFERENCE`] while its own CREATE TABLE binds).
    pub parent: u32,
    /// The referenced columns, pairwise with `columns`.
    pub parent_columns: Vec<usize>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
    pub deferrable: bool,
    pub initially_deferred: bool,
}

/// The parent oid of a foreign key that references the table being created.
pub const SELF_REFERENCE: u32 = 0;

/// An index to create: what [`Catalog::create_table_with`] and [`Catalog::add_index`]
/// take.
#[derive(Clone, Debug)]
pub struct IndexSpec {
    pub name: String,
    pub parts: Vec<KeyPart>,
    pub unique: bool,
    pub nulls_not_distinct: bool,
    pub constraint: Option<KeyConstraint>,
    /// A partial index's WHERE, over the table's columns by position.
    pub predicate: Option<Expr>,
    /// The key expressions that parts from `storage::index::EXPR_BASE` name.
    pub exprs: Vec<Expr>,
    /// Storage parameters (see [`IndexEntry::options`]).
    pub options: Vec<(String, String)>,
    /// See [`IndexEntry::deferrable`].
    pub deferrable: bool,
    pub initially_deferred: bool,
}

/// What a view is: its query, kept as SQL text and bound anew where it is used.
#[derive(Clone, Debug)]
pub struct ViewDef {
    pub sql: String,
    /// The relations its query reads, by oid (DROP of one of them must cascade or
    /// fail).
    pub depends_on: Vec<u32>,
    /// The namespaces its names resolve in (the search path of its CREATE VIEW), in
    /// order.
    pub search_path: Vec<u32>,
}

/// A relation's name: its namespace and its name there.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RelName {
    pub ns: u32,
    pub name: String,
}

impl RelName {
    pub fn new(ns: u32, name: impl Into<String>) -> RelName {
        RelName {
            ns,
            name: name.into(),
        }
    }

    /// A name in schema public (tests, tools that know no schemas).
    pub fn public(name: impl Into<String>) -> RelName {
        RelName::new(PUBLIC_OID, name)
    }
}

pub struct TableEntry {
    pub oid: u32,
    pub name: String,
    /// The schema it is in.
    pub namespace: u32,
    /// In a session's temporary namespace (relpersistence 't'): never logged or
    /// checkpointed, gone with the session.
    pub temp: bool,
    pub columns: Vec<ColumnDef>,
    /// Set for a view (its storage then stays empty).
    pub view: Option<ViewDef>,
    pub storage: Arc<Table>,
    /// The indexes this version has, in creation order (PostgreSQL checks unique
    /// indexes in OID order).
    pub indexes: Vec<Arc<IndexEntry>>,
    /// CHECK constraints, by name (the order PostgreSQL checks them in).
    pub checks: Vec<CheckConstraint>,
    /// FOREIGN KEY constraints, by name.
    pub foreign_keys: Vec<ForeignKey>,
    /// Set for a sequence (no columns, no rows).
    pub sequence: Option<Arc<Sequence>>,
    /// A sequence made for a SERIAL or identity column: `(table oid, column name)`.
    /// It is dropped with the table.
    pub owned_by: Option<(u32, String)>,
    /// The owning role's oid (the role that created it, or ALTER … OWNER TO).
    pub owner: u32,
    /// GRANTs and REVOKEs (None: the owner's default rights; see [`acl`]).
    pub acl: Option<acl::Acl>,
    /// The transaction that created this version of the table.
    xmin: TxnId,
    /// The transaction that dropped it (`TXN_NONE`: not dropped).
    xmax: AtomicU64,
    /// Planner statistics, computed on demand (see [`stats`]).
    stats: parking_lot::Mutex<Option<Arc<stats::TableStats>>>,
}

/// What kind of relation an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelKind {
    Table,
    View,
    Sequence,
}

impl RelKind {
    /// As DROP and error messages name it.
    pub fn name(self) -> &'static str {
        match self {
            RelKind::Table => "table",
            RelKind::View => "view",
            RelKind::Sequence => "sequence",
        }
    }
}

impl TableEntry {
    pub fn kind(&self) -> RelKind {
        if self.view.is_some() {
            RelKind::View
        } else if self.sequence.is_some() {
            RelKind::Sequence
        } else {
            RelKind::Table
        }
    }

    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// The index (or key constraint) called `name`.
    pub fn index_named(&self, name: &str) -> Option<&Arc<IndexEntry>> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The primary key's index.
    pub fn primary_key(&self) -> Option<&Arc<IndexEntry>> {
        self.indexes
            .iter()
            .find(|i| i.constraint == Some(KeyConstraint::PrimaryKey))
    }

    /// The planner's statistics for this table: computed when first asked for, and
    /// again once the row count has moved by more than a fifth.
    pub fn stats(&self) -> Arc<stats::TableStats> {
        let live = stats::live_rows(&self.storage) as f64;
        let mut cached = self.stats.lock();
        if let Some(s) = cached.as_ref()
            && (live - s.rows).abs() <= 0.2 * s.rows.max(50.0)
        {
            return s.clone();
        }
        let fresh = Arc::new(stats::compute(&self.storage));
        *cached = Some(fresh.clone());
        fresh
    }

    /// ANALYZE: recomputes the statistics now.
    pub fn analyze(&self) {
        let fresh = Arc::new(stats::compute(&self.storage));
        *self.stats.lock() = Some(fresh);
    }

    /// Whether it is a temporary relation.
    pub fn is_temp(&self) -> bool {
        self.temp
    }

    /// Whether some transaction (committed or not) dropped this version.
    pub fn is_dropped(&self) -> bool {
        self.xmax.load(Ordering::Acquire) != TXN_NONE
    }

    fn visible_to(&self, snapshot: &Snapshot) -> bool {
        snapshot.is_visible(self.xmin, self.xmax.load(Ordering::Acquire))
    }
}

impl std::fmt::Debug for TableEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TableEntry({})", self.name)
    }
}

/// The owner of what is made without a session (tests, recovery before ownership is
/// restored): the bootstrap superuser.
pub const BOOTSTRAP_OWNER: u32 = crate::auth::BOOTSTRAP_SUPERUSER_OID;

/// First OID handed to user tables (PostgreSQL's FirstNormalObjectId).
const FIRST_USER_OID: u32 = 16384;

/// Every version of every relation name, by (namespace, name), oldest first.
type Versions = HashMap<(u32, String), Vec<Arc<TableEntry>>>;

pub struct Catalog {
    /// Every version of every relation name, by (namespace, name), oldest first.
    tables: RwLock<Versions>,
    /// Every version of every schema.
    namespaces: RwLock<Vec<Arc<Namespace>>>,
    next_oid: AtomicU32,
    /// Foreign keys ever created: while zero, no write looks for referencing tables.
    foreign_keys: AtomicU64,
    /// COMMENT ON: by object oid and column name ("" for the object itself). Kept by
    /// name, so a dropped column's comment does not move to its neighbour.
    comments: RwLock<HashMap<(u32, String), String>>,
    /// The database's ACL (None: the default, CONNECT and TEMPORARY for PUBLIC).
    database_acl: RwLock<Option<acl::Acl>>,
    /// ALTER DEFAULT PRIVILEGES' entries.
    default_acls: RwLock<Vec<acl::DefaultAcl>>,
    /// Every version of every extension record (`pg_extension`).
    extensions: RwLock<Vec<Arc<extension::Extension>>>,
    /// Every version of every user-defined type (`pg_type`, `pg_enum`).
    types: RwLock<Vec<Arc<types::UserType>>>,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new()
    }
}

impl Catalog {
    pub fn new() -> Catalog {
        Catalog {
            tables: RwLock::new(HashMap::new()),
            namespaces: RwLock::new(namespace::bootstrap()),
            next_oid: AtomicU32::new(FIRST_USER_OID),
            foreign_keys: AtomicU64::new(0),
            comments: RwLock::new(HashMap::new()),
            database_acl: RwLock::new(None),
            default_acls: RwLock::new(Vec::new()),
            extensions: RwLock::new(extension::bootstrap()),
            types: RwLock::new(Vec::new()),
        }
    }

    /// A fresh object id.
    pub fn new_oid(&self) -> u32 {
        self.next_oid.fetch_add(1, Ordering::Relaxed)
    }

    /// ALTER DEFAULT PRIVILEGES' entries.
    pub fn default_acls(&self) -> Vec<acl::DefaultAcl> {
        self.default_acls.read().clone()
    }

    /// Replaces the default-privilege entries; returns what they were.
    pub fn set_default_acls(&self, d: Vec<acl::DefaultAcl>) -> Vec<acl::DefaultAcl> {
        std::mem::replace(&mut self.default_acls.write(), d)
    }

    /// The database's ACL (None: the default).
    pub fn database_acl(&self) -> Option<acl::Acl> {
        self.database_acl.read().clone()
    }

    /// Sets the database's ACL; returns the one it replaced.
    pub fn set_database_acl(&self, acl: Option<acl::Acl>) -> Option<acl::Acl> {
        std::mem::replace(&mut self.database_acl.write(), acl)
    }

    /// GRANT, REVOKE, ALTER … OWNER TO: a new version of `old` with `owner` and `acl`,
    /// made by `txn` (undo as [`Catalog::replace_version`]).
    pub fn set_privileges(
        &self,
        old: &Arc<TableEntry>,
        owner: u32,
        acl: Option<acl::Acl>,
        txn: TxnId,
    ) -> Arc<TableEntry> {
        old.xmax.store(txn, Ordering::Release);
        let entry = Arc::new(TableEntry {
            oid: old.oid,
            name: old.name.clone(),
            namespace: old.namespace,
            temp: old.temp,
            columns: old.columns.clone(),
            view: old.view.clone(),
            storage: old.storage.clone(),
            indexes: old.indexes.clone(),
            checks: old.checks.clone(),
            foreign_keys: old.foreign_keys.clone(),
            sequence: old.sequence.clone(),
            owned_by: old.owned_by.clone(),
            owner,
            acl,
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
            stats: parking_lot::Mutex::new(old.stats.lock().clone()),
        });
        self.tables
            .write()
            .entry((old.namespace, old.name.clone()))
            .or_default()
            .push(entry.clone());
        entry
    }

    /// The comment on object `oid` (its column `column`; "" for the object).
    pub fn comment(&self, oid: u32, column: &str) -> Option<String> {
        self.comments
            .read()
            .get(&(oid, column.to_string()))
            .cloned()
    }

    /// Sets (None: removes) a comment; returns the one it replaced.
    pub fn set_comment(&self, oid: u32, column: &str, text: Option<String>) -> Option<String> {
        let key = (oid, column.to_string());
        let mut comments = self.comments.write();
        match text {
            Some(t) => comments.insert(key, t),
            None => comments.remove(&key),
        }
    }

    /// The version of relation `name` in namespace `ns` that `snapshot` sees.
    pub fn table(&self, ns: u32, name: &str, snapshot: &Snapshot) -> Option<Arc<TableEntry>> {
        let tables = self.tables.read();
        // Borrowed lookup: the key's String is only built for the hash map's sake.
        let versions = tables.get(&(ns, name.to_string()))?;
        versions
            .iter()
            .rev()
            .find(|t| t.visible_to(snapshot))
            .cloned()
    }

    /// [`Catalog::table`] of a [`RelName`].
    pub fn relation(&self, name: &RelName, snapshot: &Snapshot) -> Option<Arc<TableEntry>> {
        self.table(name.ns, &name.name, snapshot)
    }

    /// The first relation called `name` in the namespaces `path` lists, in order.
    pub fn lookup(&self, path: &[u32], name: &str, snapshot: &Snapshot) -> Option<Arc<TableEntry>> {
        path.iter().find_map(|&ns| self.table(ns, name, snapshot))
    }

    /// Whether `entry` is still the version of its name that `snapshot` sees.
    pub fn is_current(&self, entry: &Arc<TableEntry>, snapshot: &Snapshot) -> bool {
        self.table(entry.namespace, &entry.name, snapshot)
            .is_some_and(|t| Arc::ptr_eq(&t, entry))
    }

    /// Creates table `name` (in public) in writing transaction `txn`, whose view is
    /// `snapshot`.
    pub fn create_table(
        &self,
        name: &str,
        columns: Vec<ColumnDef>,
        txn: TxnId,
        snapshot: &Snapshot,
    ) -> Result<Arc<TableEntry>> {
        self.create_relation(
            &RelName::public(name),
            columns,
            None,
            BOOTSTRAP_OWNER,
            txn,
            snapshot,
        )
    }

    /// Creates table or view `name` (tables and views share one namespace).
    pub fn create_relation(
        &self,
        name: &RelName,
        columns: Vec<ColumnDef>,
        view: Option<ViewDef>,
        owner: u32,
        txn: TxnId,
        snapshot: &Snapshot,
    ) -> Result<Arc<TableEntry>> {
        self.create_table_with(
            name,
            columns,
            view,
            &[],
            Vec::new(),
            Vec::new(),
            owner,
            txn,
            snapshot,
        )
    }

    /// Creates a table with its key indexes and CHECK constraints.
    #[allow(clippy::too_many_arguments)]
    pub fn create_table_with(
        &self,
        rel: &RelName,
        columns: Vec<ColumnDef>,
        view: Option<ViewDef>,
        indexes: &[IndexSpec],
        mut checks: Vec<CheckConstraint>,
        mut foreign_keys: Vec<ForeignKey>,
        owner: u32,
        txn: TxnId,
        snapshot: &Snapshot,
    ) -> Result<Arc<TableEntry>> {
        let (ns, name) = (rel.ns, rel.name.as_str());
        if self.relation_exists(ns, name, snapshot) {
            return Err(Error::duplicate_table(name));
        }
        for (i, spec) in indexes.iter().enumerate() {
            if spec.name == name
                || indexes[..i].iter().any(|o| o.name == spec.name)
                || self.relation_exists(ns, &spec.name, snapshot)
            {
                return Err(Error::duplicate_table(&spec.name));
            }
        }
        let types: Vec<_> = columns.iter().map(|c| c.ty.ty).collect();
        let storage = Arc::new(Table::new(types));
        let oid = self.next_oid.fetch_add(1, Ordering::Relaxed);
        let indexes = indexes
            .iter()
            .map(|spec| self.new_index(spec, &storage, 0))
            .collect::<Result<Vec<_>>>()?;
        checks.sort_by(|a, b| a.name.cmp(&b.name));
        for fk in &mut foreign_keys {
            if fk.parent == SELF_REFERENCE {
                fk.parent = oid;
            }
            if fk.oid == 0 {
                fk.oid = self.next_oid.fetch_add(1, Ordering::Relaxed);
            }
        }
        foreign_keys.sort_by(|a, b| a.name.cmp(&b.name));
        let entry = Arc::new(TableEntry {
            oid,
            name: name.to_string(),
            namespace: ns,
            temp: self.is_temp_namespace(ns),
            columns,
            view,
            storage,
            indexes,
            checks,
            foreign_keys,
            sequence: None,
            owned_by: None,
            owner,
            acl: None,
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
            stats: parking_lot::Mutex::new(None),
        });
        self.tables
            .write()
            .entry((ns, name.to_string()))
            .or_default()
            .push(entry.clone());
        Ok(entry)
    }

    /// Creates sequence `name` (owned by a table's column, for SERIAL and identity).
    pub fn create_sequence(
        &self,
        rel: &RelName,
        options: sequence::SequenceOptions,
        owned_by: Option<(u32, String)>,
        owner: u32,
        txn: TxnId,
        snapshot: &Snapshot,
    ) -> Result<Arc<TableEntry>> {
        let (ns, name) = (rel.ns, rel.name.as_str());
        if self.relation_exists(ns, name, snapshot) {
            return Err(Error::duplicate_table(name));
        }
        let entry = Arc::new(TableEntry {
            oid: self.next_oid.fetch_add(1, Ordering::Relaxed),
            name: name.to_string(),
            namespace: ns,
            temp: self.is_temp_namespace(ns),
            columns: Vec::new(),
            view: None,
            storage: Arc::new(Table::new(Vec::new())),
            indexes: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
            sequence: Some(Arc::new(Sequence::new(options))),
            owned_by,
            owner,
            acl: None,
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
            stats: parking_lot::Mutex::new(None),
        });
        self.tables
            .write()
            .entry((ns, name.to_string()))
            .or_default()
            .push(entry.clone());
        Ok(entry)
    }

    /// [`Catalog::referencing`], asking for the snapshot only when some foreign key
    /// exists (a DML statement's lock requests, on the hot path).
    pub fn referencing_if_any<'s>(
        &self,
        parent: u32,
        snapshot: impl FnOnce() -> &'s Snapshot,
    ) -> Vec<(Arc<TableEntry>, ForeignKey)> {
        if self.foreign_keys.load(Ordering::Relaxed) == 0 {
            return Vec::new();
        }
        self.referencing(parent, snapshot())
    }

    /// The tables `snapshot` sees with a foreign key referencing the table with oid
    /// `parent`, and those keys.
    pub fn referencing(
        &self,
        parent: u32,
        snapshot: &Snapshot,
    ) -> Vec<(Arc<TableEntry>, ForeignKey)> {
        if self.foreign_keys.load(Ordering::Relaxed) == 0 {
            return Vec::new();
        }
        let tables = self.tables.read();
        let mut out = Vec::new();
        for t in tables
            .values()
            .filter_map(|versions| versions.iter().rev().find(|t| t.visible_to(snapshot)))
        {
            for fk in t.foreign_keys.iter().filter(|fk| fk.parent == parent) {
                out.push((t.clone(), fk.clone()));
            }
        }
        out.sort_by_key(|(_, fk)| fk.oid);
        out
    }

    /// Notes that a foreign key exists (so [`Catalog::referencing`] looks).
    pub fn foreign_key_created(&self) {
        self.foreign_keys.fetch_add(1, Ordering::Relaxed);
    }

    /// The sequences `snapshot` sees that a column of the table with oid `table` owns.
    pub fn owned_sequences(&self, table: u32, snapshot: &Snapshot) -> Vec<Arc<TableEntry>> {
        let tables = self.tables.read();
        tables
            .values()
            .filter_map(|versions| versions.iter().rev().find(|t| t.visible_to(snapshot)))
            .filter(|t| t.owned_by.as_ref().is_some_and(|(o, _)| *o == table))
            .cloned()
            .collect()
    }

    /// The visible relation with oid `oid`.
    pub fn by_oid(&self, oid: u32, snapshot: &Snapshot) -> Option<Arc<TableEntry>> {
        let tables = self.tables.read();
        tables
            .values()
            .filter_map(|versions| versions.iter().rev().find(|t| t.visible_to(snapshot)))
            .find(|t| t.oid == oid)
            .cloned()
    }

    /// Every relation `snapshot` sees (one version per name), by oid.
    pub fn visible_tables(&self, snapshot: &Snapshot) -> Vec<Arc<TableEntry>> {
        let tables = self.tables.read();
        let mut out: Vec<Arc<TableEntry>> = tables
            .values()
            .filter_map(|versions| versions.iter().rev().find(|t| t.visible_to(snapshot)))
            .cloned()
            .collect();
        out.sort_by_key(|t| t.oid);
        out
    }

    /// A new version of sequence `seq` owned by `owned_by` (its column was renamed).
    pub fn reown(
        &self,
        seq: &Arc<TableEntry>,
        owned_by: Option<(u32, String)>,
        txn: TxnId,
    ) -> Arc<TableEntry> {
        seq.xmax.store(txn, Ordering::Release);
        let entry = Arc::new(TableEntry {
            oid: seq.oid,
            name: seq.name.clone(),
            namespace: seq.namespace,
            temp: seq.temp,
            columns: Vec::new(),
            view: None,
            storage: seq.storage.clone(),
            indexes: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
            sequence: seq.sequence.clone(),
            owned_by,
            owner: seq.owner,
            acl: seq.acl.clone(),
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
            stats: parking_lot::Mutex::new(None),
        });
        self.tables
            .write()
            .entry((seq.namespace, seq.name.clone()))
            .or_default()
            .push(entry.clone());
        entry
    }

    /// An index over `storage`, with entries for its versions but those dead below
    /// `horizon` (see `Table::add_index`).
    fn new_index(
        &self,
        spec: &IndexSpec,
        storage: &Arc<Table>,
        horizon: TxnId,
    ) -> Result<Arc<IndexEntry>> {
        let oid = self.next_oid.fetch_add(1, Ordering::Relaxed);
        let index = Arc::new(
            Index::new(
                oid,
                spec.parts.clone(),
                spec.unique,
                spec.nulls_not_distinct,
            )
            .with_predicate(spec.predicate.clone())
            .with_exprs(spec.exprs.clone()),
        );
        storage.add_index(index.clone(), horizon)?;
        Ok(Arc::new(IndexEntry {
            oid,
            name: spec.name.clone(),
            index,
            constraint: spec.constraint,
            options: spec.options.clone(),
            deferrable: spec.deferrable,
            initially_deferred: spec.initially_deferred,
        }))
    }

    /// Whether a table, view, sequence or index called `name` is visible in namespace
    /// `ns` (they share one name space).
    pub fn relation_exists(&self, ns: u32, name: &str, snapshot: &Snapshot) -> bool {
        self.table(ns, name, snapshot).is_some() || self.index_owner(ns, name, snapshot).is_some()
    }

    /// The table version `snapshot` sees in namespace `ns` that has an index called
    /// `name`.
    pub fn index_owner(&self, ns: u32, name: &str, snapshot: &Snapshot) -> Option<Arc<TableEntry>> {
        let tables = self.tables.read();
        tables
            .iter()
            .filter(|((n, _), _)| *n == ns)
            .filter_map(|(_, versions)| versions.iter().rev().find(|t| t.visible_to(snapshot)))
            .find(|t| t.index_named(name).is_some())
            .cloned()
    }

    /// A new version of `old` with `indexes` and `checks` replacing its own, made by
    /// `txn` (CREATE INDEX, DROP INDEX, ALTER TABLE). Returns it; undo with
    /// [`Catalog::undo_create`] of it and [`Catalog::undo_drop`] of `old`.
    pub fn replace_version(
        &self,
        old: &Arc<TableEntry>,
        columns: Vec<ColumnDef>,
        indexes: Vec<Arc<IndexEntry>>,
        checks: Vec<CheckConstraint>,
        txn: TxnId,
    ) -> Arc<TableEntry> {
        self.new_version(
            old,
            old.name.clone(),
            columns,
            old.storage.clone(),
            indexes,
            checks,
            old.foreign_keys.clone(),
            txn,
        )
    }

    /// The general form of [`Catalog::replace_version`]: the new version may have
    /// another name (RENAME) and other storage (a rewrite).
    #[allow(clippy::too_many_arguments)]
    pub fn new_version(
        &self,
        old: &Arc<TableEntry>,
        name: String,
        columns: Vec<ColumnDef>,
        storage: Arc<Table>,
        indexes: Vec<Arc<IndexEntry>>,
        mut checks: Vec<CheckConstraint>,
        mut foreign_keys: Vec<ForeignKey>,
        txn: TxnId,
    ) -> Arc<TableEntry> {
        old.xmax.store(txn, Ordering::Release);
        checks.sort_by(|a, b| a.name.cmp(&b.name));
        for fk in &mut foreign_keys {
            if fk.oid == 0 {
                fk.oid = self.next_oid.fetch_add(1, Ordering::Relaxed);
            }
        }
        foreign_keys.sort_by(|a, b| a.name.cmp(&b.name));
        let same_storage = Arc::ptr_eq(&storage, &old.storage);
        let entry = Arc::new(TableEntry {
            oid: old.oid,
            name: name.clone(),
            namespace: old.namespace,
            temp: old.temp,
            columns,
            view: old.view.clone(),
            storage,
            indexes,
            checks,
            foreign_keys,
            sequence: old.sequence.clone(),
            owned_by: old.owned_by.clone(),
            owner: old.owner,
            acl: old.acl.clone(),
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
            stats: parking_lot::Mutex::new(if same_storage {
                old.stats.lock().clone()
            } else {
                None
            }),
        });
        self.tables
            .write()
            .entry((old.namespace, name))
            .or_default()
            .push(entry.clone());
        entry
    }

    /// A new version of view `old` with query `view` (its text rewritten because
    /// something it reads moved), made by `txn`; undo as [`Catalog::replace_version`].
    pub fn replace_view(
        &self,
        old: &Arc<TableEntry>,
        view: ViewDef,
        txn: TxnId,
    ) -> Arc<TableEntry> {
        self.successor(old, old.namespace, Some(view), txn)
    }

    /// ALTER … SET SCHEMA: a new version of `old` in namespace `ns` (its indexes go with
    /// it), made by `txn`; undo as [`Catalog::replace_version`].
    pub fn move_relation(&self, old: &Arc<TableEntry>, ns: u32, txn: TxnId) -> Arc<TableEntry> {
        self.successor(old, ns, old.view.clone(), txn)
    }

    /// A copy of `old` as a new version in namespace `ns` with query `view`, made by
    /// `txn` (`old` ends).
    fn successor(
        &self,
        old: &Arc<TableEntry>,
        ns: u32,
        view: Option<ViewDef>,
        txn: TxnId,
    ) -> Arc<TableEntry> {
        old.xmax.store(txn, Ordering::Release);
        let entry = Arc::new(TableEntry {
            oid: old.oid,
            name: old.name.clone(),
            namespace: ns,
            temp: old.temp,
            columns: old.columns.clone(),
            view,
            storage: old.storage.clone(),
            indexes: old.indexes.clone(),
            checks: old.checks.clone(),
            foreign_keys: old.foreign_keys.clone(),
            sequence: old.sequence.clone(),
            owned_by: old.owned_by.clone(),
            owner: old.owner,
            acl: old.acl.clone(),
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
            stats: parking_lot::Mutex::new(old.stats.lock().clone()),
        });
        self.tables
            .write()
            .entry((ns, old.name.clone()))
            .or_default()
            .push(entry.clone());
        entry
    }

    /// Builds index `spec` over `storage` (entries for every stored version).
    /// Fails (building nothing) if a key expression fails on a stored version.
    pub fn build_index(
        &self,
        spec: &IndexSpec,
        storage: &Arc<Table>,
        horizon: TxnId,
    ) -> Result<Arc<IndexEntry>> {
        self.new_index(spec, storage, horizon)
    }

    /// CREATE INDEX: a new version of `table` with the index, its entries built.
    pub fn add_index(
        &self,
        table: &Arc<TableEntry>,
        spec: &IndexSpec,
        txn: TxnId,
        horizon: TxnId,
    ) -> Result<(Arc<TableEntry>, Arc<IndexEntry>)> {
        let index = self.new_index(spec, &table.storage, horizon)?;
        let mut indexes = table.indexes.clone();
        indexes.push(index.clone());
        let entry = self.replace_version(
            table,
            table.columns.clone(),
            indexes,
            table.checks.clone(),
            txn,
        );
        Ok((entry, index))
    }

    /// Drops `entry` (the version `snapshot` sees) in writing transaction `txn`.
    pub fn drop_relation(&self, entry: &Arc<TableEntry>, txn: TxnId) {
        entry.xmax.store(txn, Ordering::Release);
    }

    /// Drops the version of `name` that `snapshot` sees, in writing transaction `txn`.
    pub fn drop_table(
        &self,
        name: &RelName,
        txn: TxnId,
        snapshot: &Snapshot,
    ) -> Option<Arc<TableEntry>> {
        let entry = self.relation(name, snapshot)?;
        entry.xmax.store(txn, Ordering::Release);
        Some(entry)
    }

    /// The views `snapshot` sees that read the relation with oid `oid`.
    pub fn dependents(&self, oid: u32, snapshot: &Snapshot) -> Vec<Arc<TableEntry>> {
        let tables = self.tables.read();
        let mut out: Vec<Arc<TableEntry>> = tables
            .values()
            .filter_map(|versions| versions.iter().rev().find(|t| t.visible_to(snapshot)))
            .filter(|t| t.view.as_ref().is_some_and(|v| v.depends_on.contains(&oid)))
            .cloned()
            .collect();
        out.sort_by_key(|t| t.oid);
        out
    }

    /// The relations `snapshot` sees in namespace `ns`, by oid.
    pub fn relations_in(&self, ns: u32, snapshot: &Snapshot) -> Vec<Arc<TableEntry>> {
        let tables = self.tables.read();
        let mut out: Vec<Arc<TableEntry>> = tables
            .iter()
            .filter(|((n, _), _)| *n == ns)
            .filter_map(|(_, versions)| versions.iter().rev().find(|t| t.visible_to(snapshot)))
            .cloned()
            .collect();
        out.sort_by_key(|t| t.oid);
        out
    }

    /// Rollback of CREATE TABLE: the version was never visible to anyone else.
    pub fn undo_create(&self, entry: &Arc<TableEntry>) {
        let mut tables = self.tables.write();
        let key = (entry.namespace, entry.name.clone());
        if let Some(versions) = tables.get_mut(&key) {
            versions.retain(|t| !Arc::ptr_eq(t, entry));
            Self::forget_unused_indexes(versions);
            if versions.is_empty() {
                tables.remove(&key);
            }
        }
    }

    /// Rollback of DROP TABLE.
    pub fn undo_drop(&self, entry: &Arc<TableEntry>) {
        entry.xmax.store(TXN_NONE, Ordering::Release);
    }

    /// Stops keeping the storage of indexes no version of `table` names any more.
    fn forget_unused_indexes(versions: &[Arc<TableEntry>]) {
        for v in versions {
            for ix in v.storage.indexes() {
                let used = versions
                    .iter()
                    .any(|w| w.indexes.iter().any(|e| Arc::ptr_eq(&e.index, &ix)));
                if !used {
                    v.storage.remove_index(ix.id);
                }
            }
        }
    }

    /// Every live table version (the vacuum's work list).
    pub fn all_tables(&self) -> Vec<Arc<TableEntry>> {
        self.tables.read().values().flatten().cloned().collect()
    }

    /// One vacuum pass (`storage::vacuum`): forgets dropped tables no snapshot can see,
    /// then compacts every live table with enough dead versions. Returns the row
    /// versions removed.
    pub fn vacuum(&self, txns: &TxnManager) -> usize {
        self.collect(txns.gc_horizon());
        let mut removed = 0;
        for table in self.all_tables() {
            let storage = &table.storage;
            if table.is_dropped()
                || !storage.worth_vacuuming(txns.gc_horizon(), dead_rows_threshold(storage))
            {
                continue;
            }
            removed += vacuum_table(storage, txns).removed;
        }
        removed
    }

    /// Forgets versions dropped by a committed transaction below `horizon`: no snapshot
    /// can see them any more. Returns how many were removed.
    pub fn collect(&self, horizon: TxnId) -> usize {
        self.namespaces.write().retain(|n| !n.collectable(horizon));
        self.collect_extensions(horizon);
        self.collect_types(horizon);
        let mut tables = self.tables.write();
        let mut removed = 0;
        tables.retain(|_, versions| {
            let before = versions.len();
            versions.retain(|t| {
                let xmax = t.xmax.load(Ordering::Acquire);
                xmax == TXN_NONE || xmax >= horizon
            });
            removed += before - versions.len();
            if before != versions.len() {
                Self::forget_unused_indexes(versions);
            }
            !versions.is_empty()
        });
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::mvcc::TxnManager;
    use crate::types::DataType;

    fn int_column() -> Vec<ColumnDef> {
        vec![ColumnDef {
            name: "a".into(),
            ty: SqlType::new(DataType::Int4),
            not_null: false,
            default: None,
            identity: None,
            generated: None,
        }]
    }

    #[test]
    fn uncommitted_ddl_is_invisible_to_other_snapshots() -> Result<()> {
        let txns = Arc::new(TxnManager::new());
        let catalog = Catalog::new();
        let t1 = txns.begin_write(&crate::storage::mvcc::WaitLimits::UNBOUNDED)?;
        let v1 = catalog.create_table("t", int_column(), t1, &txns.snapshot(t1))?;
        assert!(
            catalog
                .table(PUBLIC_OID, "t", &txns.snapshot(TXN_NONE))
                .is_none()
        );
        assert!(catalog.table(PUBLIC_OID, "t", &txns.snapshot(t1)).is_some());
        txns.end_write(t1);

        let t2 = txns.begin_write(&crate::storage::mvcc::WaitLimits::UNBOUNDED)?;
        let before = txns.snapshot(TXN_NONE);
        catalog.drop_table(&RelName::public("t"), t2, &txns.snapshot(t2));
        let v2 = catalog.create_table("t", int_column(), t2, &txns.snapshot(t2))?;
        let other = catalog
            .table(PUBLIC_OID, "t", &before)
            .map(|t| Arc::ptr_eq(&t, &v1));
        assert_eq!(other, Some(true), "others still see the committed version");
        let own = catalog
            .table(PUBLIC_OID, "t", &txns.snapshot(t2))
            .map(|t| Arc::ptr_eq(&t, &v2));
        assert_eq!(own, Some(true), "the writer sees its new version");
        txns.end_write(t2);
        assert!(!catalog.is_current(&v1, &txns.snapshot(TXN_NONE)));
        assert!(catalog.is_current(&v2, &txns.snapshot(TXN_NONE)));
        assert_eq!(
            catalog.collect(txns.gc_horizon()),
            1,
            "the dropped version goes"
        );
        assert!(catalog.is_current(&v2, &txns.snapshot(TXN_NONE)));
        Ok(())
    }
}
