//! The catalog as SQL, the way pg_dump writes a schema: what a checkpoint keeps of the
//! catalog, and what recovery runs to rebuild it.
//!
//! Statements come in two parts, as in pg_dump: *before the data* — schemas (public
//! dropped when it was, made again when it was), extensions, sequences, tables
//! (columns, types, defaults, NOT NULL, identity and generated columns, CHECK
//! constraints), views — and *after the data* — primary keys, unique constraints and
//! indexes (built once over the loaded rows), then foreign keys in creation order (their
//! actions run in that order). Expressions are printed by the same deparser as
//! `pg_get_expr`, so what kiln prints it can read back; a checkpoint test dumps, restores
//! and dumps again and asks for the same text. Objects get new oids when recreated.
//! Every relation is named with its schema; a view's query is created under the
//! search path it was created with (`SET search_path` around it). Temporary relations
//! are the session's and are not kept.

use std::sync::Arc;

use crate::catalog::namespace::{PG_CATALOG_OID, PUBLIC_OID};
use crate::catalog::system::{
    expr_sql, expr_sql_named, fk_action_sql, index_columns, index_options, quote_ident,
    with_current_names,
};
use crate::catalog::{Catalog, ColumnDef, KeyConstraint, RelKind, TableEntry};
use crate::storage::mvcc::Snapshot;
use crate::types::DataType;

/// A catalog as statements, with the state SQL text does not carry.
#[derive(Default)]
pub struct Dump {
    pub before_data: Vec<String>,
    pub after_data: Vec<String>,
    /// Every sequence's `(name, last value, is_called)`, set after the data.
    pub sequences: Vec<(String, i64, bool)>,
    /// The tables whose rows a checkpoint keeps.
    pub tables: Vec<Arc<TableEntry>>,
}

/// The catalog as `snapshot` sees it; sequences at their last values (`exact`) or at
/// what the redo log promised of them.
pub fn dump(catalog: &Catalog, snapshot: &Snapshot, exact: bool) -> Dump {
    let entries: Vec<Arc<TableEntry>> = catalog
        .visible_tables(snapshot)
        .into_iter()
        .filter(|t| !t.temp)
        .collect();
    let mut d = Dump::default();
    let name = |e: &TableEntry| catalog.durable_name(e);
    // Schemas first: public as made at the start unless it was dropped (or made anew).
    let namespaces = catalog.visible_namespaces(snapshot);
    let public_kept = namespaces.iter().any(|n| n.oid == PUBLIC_OID);
    if !public_kept {
        d.before_data.push("DROP SCHEMA public".into());
    }
    for n in namespaces
        .iter()
        .filter(|n| !n.is_system() && !n.is_temp() && n.oid != PUBLIC_OID)
    {
        d.before_data
            .push(format!("CREATE SCHEMA {}", quote_ident(&n.name)));
    }
    // Enums and domains (before the tables whose columns have them): enum labels in
    // their order; a domain's base type, default and constraints as written.
    for t in catalog.visible_user_types(snapshot) {
        if let Some(dom) = &t.domain {
            let schema = namespaces
                .iter()
                .find(|n| n.oid == t.namespace)
                .map_or("public", |n| n.name.as_str());
            let mut s = format!(
                "CREATE DOMAIN {}.{} AS {}",
                quote_ident(schema),
                quote_ident(&t.name),
                type_sql(
                    catalog,
                    crate::types::SqlType {
                        domain: dom.parent.unwrap_or(0),
                        ..dom.base
                    }
                )
            );
            if let Some((sql, _)) = &dom.default {
                s.push_str(&format!(" DEFAULT {sql}"));
            }
            if dom.not_null {
                s.push_str(" NOT NULL");
            }
            for c in &dom.checks {
                s.push_str(&format!(
                    " CONSTRAINT {} CHECK ({})",
                    quote_ident(&c.name),
                    c.sql
                ));
            }
            d.before_data.push(s);
            continue;
        }
        let schema = namespaces
            .iter()
            .find(|n| n.oid == t.namespace)
            .map_or("public", |n| n.name.as_str());
        let labels: Vec<String> = t
            .labels
            .iter()
            .map(|l| format!("'{}'", l.label.replace('\'', "''")))
            .collect();
        d.before_data.push(format!(
            "CREATE TYPE {}.{} AS ENUM ({})",
            quote_ident(schema),
            quote_ident(&t.name),
            labels.join(", ")
        ));
    }
    // Extensions next (their functions may appear in defaults and views): plpgsql as
    // initdb leaves it unless it was dropped.
    let extensions = catalog.visible_extensions(snapshot);
    if !extensions.iter().any(|e| e.is_initial()) {
        d.before_data.push("DROP EXTENSION plpgsql".into());
    }
    for e in extensions.iter().filter(|e| !e.is_initial()) {
        let schema = namespaces
            .iter()
            .find(|n| n.oid == e.namespace)
            .map_or("public", |n| n.name.as_str());
        d.before_data.push(format!(
            "CREATE EXTENSION {} WITH SCHEMA {}",
            quote_ident(&e.name),
            quote_ident(schema)
        ));
    }
    // Sequences a column owns come with their column (SERIAL, identity).
    let owned_by_column = |seq: &TableEntry| -> Option<(&Arc<TableEntry>, &ColumnDef)> {
        let (table, column) = seq.owned_by.as_ref()?;
        let t = entries.iter().find(|t| t.oid == *table)?;
        let c = t.columns.iter().find(|c| &c.name == column)?;
        let serial = c.identity.is_none()
            && c.default.as_ref().and_then(|d| d.nextval_oid()) == Some(seq.oid);
        (c.identity.is_some() || serial).then_some((t, c))
    };
    for e in entries.iter().filter(|e| e.kind() == RelKind::Sequence) {
        let Some(seq) = &e.sequence else { continue };
        let (last, called) = if exact {
            seq.peek()
        } else {
            seq.durable_state()
        };
        d.sequences.push((name(e), last, called));
        if owned_by_column(e).is_none() {
            d.before_data.push(format!(
                "CREATE SEQUENCE {} {}",
                name(e),
                sequence_options(&seq.options(), true)
            ));
        }
    }
    for e in &entries {
        match e.kind() {
            RelKind::Table => {
                d.before_data.push(create_table(catalog, e, &entries));
                // A column's own sequence renamed since: made under the name SERIAL or
                // identity gives it, then renamed.
                for c in &e.columns {
                    let made = format!("{}_{}_seq", e.name, c.name);
                    if let Some(seq) = column_sequence(e, c, &entries)
                        && seq.name != made
                    {
                        let schema = name(e);
                        let schema = schema.strip_suffix(&quote_ident(&e.name)).unwrap_or("");
                        d.before_data.push(format!(
                            "ALTER SEQUENCE {schema}{} RENAME TO {}",
                            quote_ident(&made),
                            quote_ident(&seq.name)
                        ));
                    }
                }
                d.tables.push(e.clone());
            }
            RelKind::View => {
                if let Some(v) = &e.view {
                    let cols: Vec<String> =
                        e.columns.iter().map(|c| quote_ident(&c.name)).collect();
                    // Its query's names resolve as where it was made.
                    let path: Vec<String> = v
                        .search_path
                        .iter()
                        .filter(|&&o| o != PG_CATALOG_OID)
                        .filter_map(|&o| catalog.namespace_by_oid(o, snapshot))
                        .filter(|n| !n.is_temp())
                        .map(|n| quote_ident(&n.name))
                        .collect();
                    let path = if path.is_empty() {
                        "''".to_string()
                    } else {
                        path.join(", ")
                    };
                    d.before_data.push(format!("SET search_path = {path}"));
                    d.before_data.push(format!(
                        "CREATE VIEW {} ({}) AS {}",
                        name(e),
                        cols.join(", "),
                        v.sql
                    ));
                    d.before_data.push("RESET search_path".into());
                }
            }
            RelKind::Sequence => {}
        }
    }
    // A SERIAL column's sequence whose options were altered.
    for e in entries.iter().filter(|e| e.kind() == RelKind::Sequence) {
        if let (Some(seq), Some((_, c))) = (&e.sequence, owned_by_column(e))
            && c.identity.is_none()
        {
            let o = seq.options();
            if Some(&o) != default_serial_options(o.ty).as_ref() {
                d.after_data.push(format!(
                    "ALTER SEQUENCE {} {}",
                    name(e),
                    sequence_options(&o, false)
                ));
            }
        }
    }
    for t in &d.tables {
        for ix in &t.indexes {
            let nnd = if ix.index.nulls_not_distinct {
                " NULLS NOT DISTINCT"
            } else {
                ""
            };
            d.after_data.push(match ix.constraint {
                Some(k) => format!(
                    "ALTER TABLE {} ADD CONSTRAINT {} {}{} ({}){}",
                    name(t),
                    quote_ident(&ix.name),
                    if k == KeyConstraint::PrimaryKey {
                        "PRIMARY KEY"
                    } else {
                        "UNIQUE"
                    },
                    nnd,
                    index_columns(t, ix),
                    match (ix.deferrable, ix.initially_deferred) {
                        (true, true) => " DEFERRABLE INITIALLY DEFERRED",
                        (true, false) => " DEFERRABLE",
                        _ => "",
                    }
                ),
                None => format!(
                    "CREATE {}INDEX {} ON {} ({}){}{}{}",
                    if ix.index.unique { "UNIQUE " } else { "" },
                    quote_ident(&ix.name),
                    name(t),
                    index_columns(t, ix),
                    nnd,
                    index_options(ix),
                    match &ix.index.predicate {
                        Some(p) =>
                            format!(" WHERE {}", expr_sql(&with_current_names(p, &t.columns))),
                        None => String::new(),
                    }
                ),
            });
            // A key's index parameters (ALTER INDEX … SET), which ADD CONSTRAINT's
            // form does not carry.
            if ix.constraint.is_some() && !ix.options.is_empty() {
                let schema = name(t);
                let schema = schema.strip_suffix(&quote_ident(&t.name)).unwrap_or("");
                let set: Vec<String> = ix
                    .options
                    .iter()
                    .map(|(n, v)| format!("{n} = '{}'", v.replace('\'', "''")))
                    .collect();
                d.after_data.push(format!(
                    "ALTER INDEX {schema}{} SET ({})",
                    quote_ident(&ix.name),
                    set.join(", ")
                ));
            }
        }
    }
    let mut fks: Vec<(u32, String)> = Vec::new();
    for t in &d.tables {
        for fk in &t.foreign_keys {
            let Some(parent) = entries.iter().find(|p| p.oid == fk.parent) else {
                continue;
            };
            let names = |table: &TableEntry, cols: &[usize]| -> String {
                cols.iter()
                    .filter_map(|&c| table.columns.get(c))
                    .map(|c| quote_ident(&c.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let mut s = format!(
                "ALTER TABLE {} ADD CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})",
                name(t),
                quote_ident(&fk.name),
                names(t, &fk.columns),
                name(parent),
                names(parent, &fk.parent_columns)
            );
            for (word, action) in [("UPDATE", fk.on_update), ("DELETE", fk.on_delete)] {
                if let Some(a) = fk_action_sql(action) {
                    s.push_str(&format!(" ON {word} {a}"));
                }
            }
            if fk.deferrable {
                s.push_str(" DEFERRABLE");
            }
            if fk.initially_deferred {
                s.push_str(" INITIALLY DEFERRED");
            }
            fks.push((fk.oid, s));
        }
    }
    fks.sort_by_key(|(oid, _)| *oid);
    d.after_data.extend(fks.into_iter().map(|(_, s)| s));
    // Comments, last: on relations, their columns and their indexes (sorted: their
    // objects' oids change when recovery makes them again).
    let mut comments = Vec::new();
    let literal = |s: &str| format!("'{}'", s.replace('\'', "''"));
    for e in &entries {
        let kind = match e.kind() {
            RelKind::Table => "TABLE",
            RelKind::View => "VIEW",
            RelKind::Sequence => "SEQUENCE",
        };
        if let Some(c) = catalog.comment(e.oid, "") {
            comments.push(format!("COMMENT ON {kind} {} IS {}", name(e), literal(&c)));
        }
        for col in &e.columns {
            if let Some(c) = catalog.comment(e.oid, &col.name) {
                comments.push(format!(
                    "COMMENT ON COLUMN {}.{} IS {}",
                    name(e),
                    quote_ident(&col.name),
                    literal(&c)
                ));
            }
        }
        for ix in &e.indexes {
            if let Some(c) = catalog.comment(ix.oid, "") {
                let schema = name(e);
                let schema = schema.rsplit_once('.').map_or("public", |(s, _)| s);
                comments.push(format!(
                    "COMMENT ON INDEX {schema}.{} IS {}",
                    quote_ident(&ix.name),
                    literal(&c)
                ));
            }
        }
    }
    for n in &namespaces {
        if !n.is_temp()
            && let Some(c) = catalog.comment(n.oid, "")
        {
            comments.push(format!(
                "COMMENT ON SCHEMA {} IS {}",
                quote_ident(&n.name),
                literal(&c)
            ));
        }
    }
    comments.sort();
    d.after_data.extend(comments);
    d
}

/// A SERIAL column's sequence options as CREATE TABLE makes them.
fn default_serial_options(ty: DataType) -> Option<crate::catalog::sequence::SequenceOptions> {
    crate::catalog::sequence::SequenceSpec {
        ty: Some(ty),
        ..Default::default()
    }
    .resolve()
    .ok()
}

/// `AS type INCREMENT BY … CYCLE` (`with_type`: CREATE SEQUENCE's form).
fn sequence_options(o: &crate::catalog::sequence::SequenceOptions, with_type: bool) -> String {
    let ty = match o.ty {
        DataType::Int2 => "smallint",
        DataType::Int4 => "integer",
        _ => "bigint",
    };
    format!(
        "{}INCREMENT BY {} MINVALUE {} MAXVALUE {} START WITH {} CACHE {} {}CYCLE",
        if with_type {
            format!("AS {ty} ")
        } else {
            String::new()
        },
        o.increment,
        o.min,
        o.max,
        o.start,
        o.cache,
        if o.cycle { "" } else { "NO " }
    )
}

/// The sequence column `c` of `t` owns and draws from (SERIAL), or owns as an
/// identity column, whatever it is called now.
fn column_sequence<'a>(
    t: &TableEntry,
    c: &ColumnDef,
    entries: &'a [Arc<TableEntry>],
) -> Option<&'a Arc<TableEntry>> {
    let draws = c.default.as_ref().and_then(|d| d.nextval_oid());
    entries.iter().find(|e| {
        e.kind() == RelKind::Sequence
            && e.owned_by.as_ref() == Some(&(t.oid, c.name.clone()))
            && (c.identity.is_some() || draws == Some(e.oid))
    })
}

fn create_table(catalog: &Catalog, t: &TableEntry, entries: &[Arc<TableEntry>]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in &t.columns {
        // The sequence made for this column, if it draws from it (owned by the column).
        let own_sequence = column_sequence(t, c, entries);
        let draws_from_it = c
            .default
            .as_ref()
            .and_then(|d| d.nextval_oid())
            .is_some_and(|seq| own_sequence.is_some_and(|o| seq == o.oid));
        let mut s = quote_ident(&c.name);
        let serial = c.identity.is_none() && draws_from_it && own_sequence.is_some();
        let serial_type = match c.ty.ty {
            DataType::Int2 => Some("smallserial"),
            DataType::Int4 => Some("serial"),
            DataType::Int8 => Some("bigserial"),
            _ => None,
        };
        match serial_type.filter(|_| serial) {
            Some(ty) => {
                s.push(' ');
                s.push_str(ty);
            }
            None => {
                s.push(' ');
                s.push_str(&type_sql(catalog, c.ty));
                if let Some(always) = c.identity {
                    let seq = own_sequence.and_then(|e| e.sequence.clone());
                    s.push_str(if always {
                        " GENERATED ALWAYS AS IDENTITY"
                    } else {
                        " GENERATED BY DEFAULT AS IDENTITY"
                    });
                    if let Some(seq) = seq {
                        s.push_str(&format!(" ({})", sequence_options(&seq.options(), false)));
                    }
                } else if let Some(g) = &c.generated {
                    s.push_str(&format!(
                        " GENERATED ALWAYS AS ({}) STORED",
                        expr_sql(&with_current_names(g, &t.columns))
                    ));
                } else if let Some(d) = &c.default {
                    s.push_str(" DEFAULT ");
                    s.push_str(&expr_sql_named(d, &|o| {
                        entries
                            .iter()
                            .find(|e| e.oid == o)
                            .map(|e| catalog.durable_name(e))
                    }));
                }
            }
        }
        if c.not_null {
            s.push_str(" NOT NULL");
        }
        parts.push(s);
    }
    for ck in &t.checks {
        parts.push(format!(
            "CONSTRAINT {} CHECK ({})",
            quote_ident(&ck.name),
            expr_sql(&with_current_names(&ck.expr, &t.columns))
        ));
    }
    format!(
        "CREATE TABLE {} ({})",
        catalog.durable_name(t),
        parts.join(", ")
    )
}

/// A column's type as SQL: an enum or domain by its schema-qualified name (its latest,
/// as with tables), a built-in type by format_type's spelling.
fn type_sql(catalog: &Catalog, ty: crate::types::SqlType) -> String {
    if let DataType::Array(e) = ty.ty
        && let DataType::Enum(_) = *e
    {
        return format!("{}[]", type_sql(catalog, crate::types::SqlType::new(*e)));
    }
    let user = match (ty.domain, ty.ty) {
        (0, DataType::Enum(oid)) => Some(oid),
        (0, _) => None,
        (oid, _) => Some(oid),
    };
    match user {
        Some(oid) => {
            let name = crate::catalog::types::enum_name(oid).unwrap_or_default();
            let schema = catalog
                .user_type_namespace(oid)
                .map(|ns| catalog.latest_namespace_name(ns))
                .unwrap_or_else(|| "public".into());
            format!("{}.{}", quote_ident(&schema), quote_ident(&name))
        }
        None => ty.display_name(),
    }
}
