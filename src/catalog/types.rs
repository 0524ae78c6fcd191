//! User-defined types: enums (`CREATE TYPE … AS ENUM`), versioned like schemas so
//! CREATE / ALTER / DROP TYPE are transactional and MVCC.
//!
//! ## Enums
//!
//! A column of an enum type stores its values' labels as text (`DataType::Enum(oid)`
//! over a text vector), so output, COPY, the wire's text and binary forms (both the
//! label), checkpoints and template copies need nothing of the type. What does:
//! checking a label on input (the binder for constants, `Func::EnumIn` at run time),
//! and order — a label's place is its `sortorder` (`Func::EnumPosition`), which the
//! binder puts under `< <= > >=`, ORDER BY and min / max. Equality, hashing, GROUP BY,
//! DISTINCT and keys compare labels, which are unique within a type.
//!
//! ALTER TYPE … ADD VALUE places a label between two others with a sortorder midway
//! between theirs, as PostgreSQL does; RENAME VALUE renames labels in the type only,
//! so it is refused (0A000) while a column of the type exists (the stored labels
//! would have to be rewritten).
//!
//! Type oids come from one counter for the whole process, so an oid names one type
//! everywhere and [`enum_name`] can give it a name where no catalog is at hand (error
//! messages, `format_type`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;

use crate::error::{Error, Result};
use crate::storage::mvcc::{Snapshot, TXN_NONE, TxnId};

/// One label of an enum.
#[derive(Clone, Debug)]
pub struct EnumLabel {
    pub oid: u32,
    pub sortorder: f32,
    pub label: String,
    /// The transaction whose ALTER TYPE … ADD VALUE made it (`TXN_NONE` for CREATE
    /// TYPE's labels): it may not use the label before it commits (55P04).
    pub added_by: TxnId,
}

/// One version of a user-defined type.
pub struct UserType {
    pub oid: u32,
    /// Its array type's oid (arrays of enums are not built yet; pg_type lists it).
    pub array_oid: u32,
    pub name: String,
    pub namespace: u32,
    pub owner: u32,
    /// In sort order.
    pub labels: Vec<EnumLabel>,
    /// A domain's definition (None: an enum).
    pub domain: Option<Arc<DomainDef>>,
    xmin: TxnId,
    xmax: AtomicU64,
}

impl std::fmt::Debug for UserType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UserType({} {})", self.oid, self.name)
    }
}

impl UserType {
    pub fn visible_to(&self, snapshot: &Snapshot) -> bool {
        let xmax = self.xmax.load(Ordering::Acquire);
        (self.xmin == TXN_NONE || snapshot.sees(self.xmin))
            && (xmax == TXN_NONE || !snapshot.sees(xmax))
    }

    /// DROP TYPE, or a new version replacing this one, in `txn`.
    pub fn end(&self, txn: TxnId) {
        self.xmax.store(txn, Ordering::Release);
    }

    pub fn undo_end(&self) {
        self.xmax.store(TXN_NONE, Ordering::Release);
    }

    fn collectable(&self, horizon: TxnId) -> bool {
        let xmax = self.xmax.load(Ordering::Acquire);
        xmax != TXN_NONE && xmax < horizon
    }

    /// The label's place in the type's order.
    pub fn position(&self, label: &str) -> Option<f32> {
        self.labels
            .iter()
            .find(|l| l.label == label)
            .map(|l| l.sortorder)
    }

    /// PostgreSQL's 22P02 for a label the type lacks.
    pub fn bad_label(&self, text: &str) -> Error {
        Error::new(
            "22P02",
            format!("invalid input value for enum {}: \"{text}\"", self.name),
        )
    }
}

/// A domain: its base type and constraints.
#[derive(Debug)]
pub struct DomainDef {
    pub base: crate::types::SqlType,
    /// The domain this one is over, if any (its constraints apply too).
    pub parent: Option<u32>,
    pub not_null: bool,
    /// DEFAULT: its SQL text (checkpoints, pg_type.typdefault) and bound expression.
    pub default: Option<(String, crate::sql::expr::Expr)>,
    /// CHECK constraints: name, SQL text, and the expression over one column (VALUE).
    pub checks: Vec<DomainCheck>,
}

#[derive(Debug)]
pub struct DomainCheck {
    pub name: String,
    pub sql: String,
    pub expr: crate::sql::expr::Expr,
    /// False for one added NOT VALID and not validated since (pg_constraint's
    /// convalidated).
    pub validated: bool,
}

/// Labels are names: at most 63 bytes.
pub const LABEL_MAX: usize = 63;

static NEXT_TYPE_OID: AtomicU32 = AtomicU32::new(0x4000_0000);

fn names() -> &'static RwLock<HashMap<u32, String>> {
    static NAMES: OnceLock<RwLock<HashMap<u32, String>>> = OnceLock::new();
    NAMES.get_or_init(|| RwLock::new(HashMap::new()))
}

/// The name of user-defined type `oid` (its latest version's), for messages and
/// `format_type` where no catalog is at hand.
pub fn enum_name(oid: u32) -> Option<String> {
    names().read().get(&oid).cloned()
}

/// [`enum_name`] as a `&'static str` (what `DataType::name` gives): each distinct
/// name is kept once for the life of the process, the first few thousand of them
/// (past that, `anyenum`).
pub fn enum_static_name(oid: u32) -> &'static str {
    static INTERNED: OnceLock<RwLock<std::collections::HashSet<&'static str>>> = OnceLock::new();
    const MAX_INTERNED: usize = 4096;
    let Some(name) = enum_name(oid) else {
        return "anyenum";
    };
    let shown = quote_type_name(&name);
    let set = INTERNED.get_or_init(|| RwLock::new(std::collections::HashSet::new()));
    if let Some(s) = set.read().get(shown.as_str()) {
        return s;
    }
    let mut set = set.write();
    if let Some(s) = set.get(shown.as_str()) {
        return s;
    }
    if set.len() >= MAX_INTERNED {
        return "anyenum";
    }
    let s: &'static str = Box::leak(shown.into_boxed_str());
    set.insert(s);
    s
}

/// A type's name as format_type prints it (quoted when it must be).
fn quote_type_name(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

impl super::Catalog {
    /// The version of type `oid` that `snapshot` sees.
    pub fn user_type(&self, oid: u32, snapshot: &Snapshot) -> Option<Arc<UserType>> {
        self.types
            .read()
            .iter()
            .rev()
            .find(|t| t.oid == oid && t.visible_to(snapshot))
            .cloned()
    }

    /// Type `name` in schema `namespace`, as `snapshot` sees them.
    pub fn user_type_named(
        &self,
        namespace: u32,
        name: &str,
        snapshot: &Snapshot,
    ) -> Option<Arc<UserType>> {
        self.types
            .read()
            .iter()
            .rev()
            .find(|t| t.namespace == namespace && t.name == name && t.visible_to(snapshot))
            .cloned()
    }

    /// Domain `oid` and the domains it is over, outermost first.
    pub fn domain_chain(&self, oid: u32, snapshot: &Snapshot) -> Vec<Arc<DomainDef>> {
        let mut out: Vec<Arc<DomainDef>> = Vec::new();
        let mut next = Some(oid);
        while let Some(o) = next {
            let Some(d) = self.user_type(o, snapshot).and_then(|t| t.domain.clone()) else {
                break;
            };
            next = d.parent;
            out.push(d);
            if out.len() > 64 {
                break;
            }
        }
        out
    }

    /// The schema of type `oid`'s latest version (checkpoints name types by it).
    pub fn user_type_namespace(&self, oid: u32) -> Option<u32> {
        self.types
            .read()
            .iter()
            .rev()
            .find(|t| t.oid == oid)
            .map(|t| t.namespace)
    }

    /// Every user-defined type `snapshot` sees, by oid.
    pub fn visible_user_types(&self, snapshot: &Snapshot) -> Vec<Arc<UserType>> {
        let mut out: Vec<Arc<UserType>> = self
            .types
            .read()
            .iter()
            .filter(|t| t.visible_to(snapshot))
            .cloned()
            .collect();
        out.sort_by_key(|t| t.oid);
        out
    }

    /// CREATE TYPE `name` AS ENUM (`labels`) in `namespace`, by `txn`.
    pub fn create_enum(
        &self,
        namespace: u32,
        name: &str,
        labels: &[String],
        owner: u32,
        txn: TxnId,
    ) -> Arc<UserType> {
        let labels = labels
            .iter()
            .enumerate()
            .map(|(i, l)| EnumLabel {
                oid: self.new_oid(),
                sortorder: (i + 1) as f32,
                label: l.clone(),
                added_by: TXN_NONE,
            })
            .collect();
        let oid = NEXT_TYPE_OID.fetch_add(2, Ordering::Relaxed);
        let t = Arc::new(UserType {
            oid,
            array_oid: oid + 1,
            name: name.to_string(),
            namespace,
            owner,
            labels,
            domain: None,
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
        });
        names().write().insert(oid, name.to_string());
        self.types.write().push(t.clone());
        t
    }

    /// CREATE DOMAIN `name` in `namespace`, by `txn`.
    pub fn create_domain(
        &self,
        namespace: u32,
        name: &str,
        def: Arc<DomainDef>,
        owner: u32,
        txn: TxnId,
    ) -> Arc<UserType> {
        let oid = NEXT_TYPE_OID.fetch_add(2, Ordering::Relaxed);
        let t = Arc::new(UserType {
            oid,
            array_oid: oid + 1,
            name: name.to_string(),
            namespace,
            owner,
            labels: Vec::new(),
            domain: Some(def),
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
        });
        names().write().insert(oid, name.to_string());
        self.types.write().push(t.clone());
        t
    }

    /// A new version of `old` (ALTER TYPE), made by `txn`; undo with
    /// [`Catalog::undo_type_version`] of it and [`UserType::undo_end`] of `old`.
    pub fn replace_user_type(
        &self,
        old: &Arc<UserType>,
        name: &str,
        namespace: u32,
        owner: u32,
        labels: Vec<EnumLabel>,
        txn: TxnId,
    ) -> Arc<UserType> {
        old.end(txn);
        let t = Arc::new(UserType {
            oid: old.oid,
            array_oid: old.array_oid,
            name: name.to_string(),
            namespace,
            owner,
            labels,
            domain: old.domain.clone(),
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
        });
        names().write().insert(t.oid, name.to_string());
        self.types.write().push(t.clone());
        t
    }

    /// A new version of domain `old` with definition `def` (ALTER DOMAIN), by `txn`;
    /// undone as [`Catalog::replace_user_type`]'s.
    pub fn replace_domain(
        &self,
        old: &Arc<UserType>,
        def: Arc<DomainDef>,
        txn: TxnId,
    ) -> Arc<UserType> {
        old.end(txn);
        let t = Arc::new(UserType {
            oid: old.oid,
            array_oid: old.array_oid,
            name: old.name.clone(),
            namespace: old.namespace,
            owner: old.owner,
            labels: Vec::new(),
            domain: Some(def),
            xmin: txn,
            xmax: AtomicU64::new(TXN_NONE),
        });
        self.types.write().push(t.clone());
        t
    }

    /// Rollback of CREATE TYPE (or of a new version).
    pub fn undo_type_version(&self, t: &Arc<UserType>) {
        let mut all = self.types.write();
        all.retain(|x| !Arc::ptr_eq(x, t));
        // The name the newest remaining version has.
        if let Some(prev) = all.iter().rev().find(|x| x.oid == t.oid) {
            names().write().insert(t.oid, prev.name.clone());
        }
    }

    pub(super) fn collect_types(&self, horizon: TxnId) {
        let mut all = self.types.write();
        let before: std::collections::HashSet<u32> = all.iter().map(|t| t.oid).collect();
        all.retain(|t| !t.collectable(horizon));
        let mut registry = names().write();
        for oid in before {
            if !all.iter().any(|t| t.oid == oid) {
                registry.remove(&oid);
            }
        }
    }
}

/// The sortorder for a label placed before (`before`) or after `neighbour` in
/// `labels` (sorted), or at the end: midway between its neighbours, as PostgreSQL's
/// AddEnumLabel does (kiln's orders are never renumbered: 0A000 when two are too
/// close to put one between).
pub fn place(labels: &[EnumLabel], neighbour: Option<(&str, bool)>) -> Result<f32> {
    let Some((name, before)) = neighbour else {
        return Ok(labels.last().map_or(1.0, |l| l.sortorder + 1.0));
    };
    let Some(at) = labels.iter().position(|l| l.label == name) else {
        return Err(Error::new(
            "22023",
            format!("\"{name}\" is not an existing enum label"),
        ));
    };
    let (low, high) = if before {
        (
            at.checked_sub(1).map(|i| labels[i].sortorder),
            Some(labels[at].sortorder),
        )
    } else {
        (
            Some(labels[at].sortorder),
            labels.get(at + 1).map(|l| l.sortorder),
        )
    };
    let order = match (low, high) {
        (Some(l), Some(h)) => (l + h) / 2.0,
        (None, Some(h)) => h - 1.0,
        (Some(l), None) => l + 1.0,
        (None, None) => 1.0,
    };
    if low.is_some_and(|l| order <= l) || high.is_some_and(|h| order >= h) {
        return Err(Error::feature_not_supported(
            "renumbering an enum's sort orders (too many labels added between two)",
        ));
    }
    Ok(order)
}

/// PostgreSQL's 55P04: a label added by the running transaction `own` is not used
/// before it commits.
pub fn check_committed(t: &UserType, label: &str, own: TxnId) -> Result<()> {
    match t.labels.iter().find(|l| l.label == label) {
        Some(l) if l.added_by != TXN_NONE && l.added_by == own => Err(Error::new(
            "55P04",
            format!(
                "unsafe use of new value \"{label}\" of enum type {}",
                t.name
            ),
        )
        .with_hint("New enum values must be committed before they can be used.")),
        _ => Ok(()),
    }
}
