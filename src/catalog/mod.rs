//! The catalog: schema `public` and its tables.
//!
//! A [`TableEntry`] joins what SQL knows of a table (column names, declared types, NOT
//! NULL, DEFAULT expressions) with its storage. Names are stored folded to lower case
//! unless they were quoted, as PostgreSQL does. DDL takes the writer lock (one writer at
//! a time), so catalog changes are serialized with data changes; rollback of a CREATE or
//! DROP is done by the session's undo log.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use parking_lot::RwLock;

use crate::error::{Error, Result};
use crate::sql::expr::Expr;
use crate::storage::table::Table;
use crate::types::SqlType;

#[derive(Clone, Debug)]
pub struct ColumnDef {
    pub name: String,
    pub ty: SqlType,
    pub not_null: bool,
    /// Bound DEFAULT expression (no column references).
    pub default: Option<Expr>,
}

pub struct TableEntry {
    pub oid: u32,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub storage: Arc<Table>,
}

impl TableEntry {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

impl std::fmt::Debug for TableEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TableEntry({})", self.name)
    }
}

/// First OID handed to user tables (PostgreSQL's FirstNormalObjectId).
const FIRST_USER_OID: u32 = 16384;

pub struct Catalog {
    tables: RwLock<HashMap<String, Arc<TableEntry>>>,
    next_oid: AtomicU32,
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
            next_oid: AtomicU32::new(FIRST_USER_OID),
        }
    }

    pub fn table(&self, name: &str) -> Option<Arc<TableEntry>> {
        self.tables.read().get(name).cloned()
    }

    pub fn create_table(&self, name: &str, columns: Vec<ColumnDef>) -> Result<Arc<TableEntry>> {
        let mut tables = self.tables.write();
        if tables.contains_key(name) {
            return Err(Error::duplicate_table(name));
        }
        let types = columns.iter().map(|c| c.ty.ty).collect();
        let entry = Arc::new(TableEntry {
            oid: self.next_oid.fetch_add(1, Ordering::Relaxed),
            name: name.to_string(),
            columns,
            storage: Arc::new(Table::new(types)),
        });
        tables.insert(name.to_string(), entry.clone());
        Ok(entry)
    }

    /// Puts back an entry (rollback of DROP TABLE).
    pub fn restore_table(&self, entry: Arc<TableEntry>) {
        self.tables.write().insert(entry.name.clone(), entry);
    }

    pub fn drop_table(&self, name: &str) -> Option<Arc<TableEntry>> {
        self.tables.write().remove(name)
    }

    pub fn table_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tables.read().keys().cloned().collect();
        names.sort();
        names
    }
}
