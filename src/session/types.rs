//! CREATE TYPE … AS ENUM, ALTER TYPE and DROP TYPE (`catalog::types`), checked as
//! PostgreSQL checks them.

use std::sync::Arc;

use super::{Outcome, Session, Undo};
use crate::catalog::types::{EnumLabel, LABEL_MAX, UserType, place};
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::plan::TypeChange;
use crate::session::privileges;
use crate::storage::mvcc::TxnId;
use crate::types::DataType;

impl Session {
    pub(super) fn change_type(
        &mut self,
        change: &TypeChange,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let catalog = self.db.catalog.clone();
        let (me, superuser) = self.identity();
        match change {
            TypeChange::AlterDomain { oid, action } => self.alter_domain(*oid, action, ctx, txn),
            TypeChange::CreateDomain {
                namespace,
                name,
                def,
            } => {
                self.check_type_name_free(*namespace, name, ctx)?;
                let t = catalog.create_domain(*namespace, name, def.clone(), me, txn);
                self.undo.push(Undo::TypeVersion(t, None));
                Ok(Outcome::Done {
                    tag: "CREATE DOMAIN".into(),
                })
            }
            TypeChange::CreateEnum {
                namespace,
                name,
                labels,
            } => {
                self.check_type_name_free(*namespace, name, ctx)?;
                for (i, l) in labels.iter().enumerate() {
                    check_label(l)?;
                    if labels[..i].contains(l) {
                        return Err(Error::new(
                            "23505",
                            "duplicate key value violates unique constraint \
                             \"pg_enum_typid_label_index\"",
                        ));
                    }
                }
                let t = catalog.create_enum(*namespace, name, labels, me, txn);
                self.undo.push(Undo::TypeVersion(t, None));
                Ok(Outcome::Done {
                    tag: "CREATE TYPE".into(),
                })
            }
            TypeChange::AddValue {
                oid,
                label,
                if_not_exists,
                neighbour,
            } => {
                let old = self.type_to_change(*oid, ctx, me, superuser)?;
                let done = Outcome::Done {
                    tag: "ALTER TYPE".into(),
                };
                if old.position(label).is_some() {
                    if *if_not_exists {
                        self.notices.push((
                            "NOTICE".into(),
                            "42710".into(),
                            format!("enum label \"{label}\" already exists, skipping"),
                        ));
                        return Ok(done);
                    }
                    return Err(Error::new(
                        "42710",
                        format!("enum label \"{label}\" already exists"),
                    ));
                }
                check_label(label)?;
                let order = place(
                    &old.labels,
                    neighbour.as_ref().map(|(n, before)| (n.as_str(), *before)),
                )?;
                let mut labels = old.labels.clone();
                labels.push(EnumLabel {
                    oid: catalog.new_oid(),
                    sortorder: order,
                    label: label.clone(),
                    added_by: txn,
                });
                labels.sort_by(|a, b| a.sortorder.total_cmp(&b.sortorder));
                let new = catalog.replace_user_type(
                    &old,
                    &old.name,
                    old.namespace,
                    old.owner,
                    labels,
                    txn,
                );
                self.undo.push(Undo::TypeVersion(new, Some(old)));
                Ok(done)
            }
            TypeChange::RenameValue { oid, from, to } => {
                let old = self.type_to_change(*oid, ctx, me, superuser)?;
                if old.position(from).is_none() {
                    return Err(Error::new(
                        "22023",
                        format!("\"{from}\" is not an existing enum label"),
                    ));
                }
                if old.position(to).is_some() {
                    return Err(Error::new(
                        "42710",
                        format!("enum label \"{to}\" already exists"),
                    ));
                }
                check_label(to)?;
                let labels = old
                    .labels
                    .iter()
                    .map(|l| EnumLabel {
                        label: if &l.label == from {
                            to.clone()
                        } else {
                            l.label.clone()
                        },
                        ..l.clone()
                    })
                    .collect();
                let new = catalog.replace_user_type(
                    &old,
                    &old.name,
                    old.namespace,
                    old.owner,
                    labels,
                    txn,
                );
                self.undo.push(Undo::TypeVersion(new, Some(old.clone())));
                // Columns store labels: their rows with the old one get the new one
                // (new row versions, so the rename stays transactional).
                let quote = crate::catalog::system::quote_ident;
                let literal = |s: &str| format!("'{}'", s.replace('\'', "''"));
                for (table, column) in type_columns(&self.db, old.oid, ctx) {
                    let sql = format!(
                        "UPDATE {table} SET {c} = {to} WHERE {c}::text = {from}",
                        c = quote(&column),
                        to = literal(to),
                        from = literal(from),
                    );
                    self.run_internal(&sql)?;
                }
                Ok(Outcome::Done {
                    tag: "ALTER TYPE".into(),
                })
            }
            TypeChange::Rename { oid, to } => {
                let old = self.type_to_change(*oid, ctx, me, superuser)?;
                self.check_type_name_free(old.namespace, to, ctx)?;
                let new = catalog.replace_user_type(
                    &old,
                    to,
                    old.namespace,
                    old.owner,
                    old.labels.clone(),
                    txn,
                );
                self.undo.push(Undo::TypeVersion(new, Some(old)));
                Ok(Outcome::Done {
                    tag: "ALTER TYPE".into(),
                })
            }
            TypeChange::Drop {
                types,
                cascade,
                domain,
            } => {
                let mut found = Vec::new();
                for (name, oid) in types {
                    let t = oid.and_then(|o| catalog.user_type(o, &ctx.snapshot));
                    match t {
                        Some(t) => {
                            if !superuser && !privileges::owns(&self.db, me, t.owner) {
                                return Err(Error::new(
                                    "42501",
                                    format!("must be owner of type {}", t.name),
                                ));
                            }
                            found.push(t);
                        }
                        None => self.notices.push((
                            "NOTICE".into(),
                            "00000".into(),
                            format!("type \"{name}\" does not exist, skipping"),
                        )),
                    }
                }
                for t in &found {
                    let users = type_users(&self.db, t.oid, ctx);
                    if users.is_empty() {
                        continue;
                    }
                    if *cascade && users.iter().any(|u| u.starts_with("type ")) {
                        return Err(Error::feature_not_supported(
                            "DROP … CASCADE of a type other types are over",
                        ));
                    }
                    if *cascade {
                        // The columns go with the type, as PostgreSQL drops them.
                        for u in &users {
                            self.notices.push((
                                "NOTICE".into(),
                                "00000".into(),
                                format!("drop cascades to {u}"),
                            ));
                        }
                        let quote = crate::catalog::system::quote_ident;
                        for (table, column) in type_columns(&self.db, t.oid, ctx) {
                            self.run_internal(&format!(
                                "ALTER TABLE {table} DROP COLUMN {}",
                                quote(&column)
                            ))?;
                        }
                        continue;
                    }
                    let detail: Vec<String> = users
                        .iter()
                        .map(|u| format!("{u} depends on type {}", t.name))
                        .collect();
                    return Err(Error::new(
                        "2BP01",
                        format!(
                            "cannot drop type {} because other objects depend on it",
                            t.name
                        ),
                    )
                    .with_detail(detail.join("\n"))
                    .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
                }
                for t in found {
                    t.end(txn);
                    self.undo.push(Undo::DropType(t));
                }
                Ok(Outcome::Done {
                    tag: if *domain { "DROP DOMAIN" } else { "DROP TYPE" }.into(),
                })
            }
        }
    }

    /// 42710 when schema `namespace` has a type (or a relation, whose row type would
    /// have the name) called `name`.
    fn check_type_name_free(&self, namespace: u32, name: &str, ctx: &ExecContext) -> Result<()> {
        let catalog = &self.db.catalog;
        let builtin = namespace == crate::catalog::namespace::PG_CATALOG_OID
            && crate::types::type_from_ast(&sqlparser::ast::DataType::Custom(
                sqlparser::ast::ObjectName::from(vec![sqlparser::ast::Ident::new(name)]),
                vec![],
            ))
            .is_ok();
        if builtin
            || catalog
                .user_type_named(namespace, name, &ctx.snapshot)
                .is_some()
            || catalog.table(namespace, name, &ctx.snapshot).is_some()
        {
            return Err(Error::new(
                "42710",
                format!("type \"{name}\" already exists"),
            ));
        }
        Ok(())
    }

    /// The type ALTER TYPE changes, as this statement sees it (its owner or a
    /// superuser may).
    fn type_to_change(
        &self,
        oid: u32,
        ctx: &ExecContext,
        me: u32,
        superuser: bool,
    ) -> Result<Arc<UserType>> {
        let Some(t) = self.db.catalog.user_type(oid, &ctx.snapshot) else {
            return Err(Error::new(
                "42704",
                format!("type with OID {oid} does not exist"),
            ));
        };
        if !superuser && !privileges::owns(&self.db, me, t.owner) {
            return Err(Error::new(
                "42501",
                format!("must be owner of type {}", t.name),
            ));
        }
        Ok(t)
    }
}

impl Session {
    /// ALTER DOMAIN: a new version of the domain; constraints it adds are checked
    /// against the rows of the columns of the domain (23514 / 23502 naming the column)
    /// by putting each value through the new domain inside the transaction.
    fn alter_domain(
        &mut self,
        oid: u32,
        action: &crate::plan::DomainAction,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        use crate::catalog::types::{DomainCheck, DomainDef};
        use crate::plan::DomainAction as A;
        let (me, superuser) = self.identity();
        let old = self.type_to_change(oid, ctx, me, superuser)?;
        let Some(d) = old.domain.clone() else {
            return Err(Error::new("42809", format!("{} is not a domain", old.name)));
        };
        let mut checks: Vec<DomainCheck> = d
            .checks
            .iter()
            .map(|c| DomainCheck {
                name: c.name.clone(),
                sql: c.sql.clone(),
                expr: c.expr.clone(),
                validated: c.validated,
            })
            .collect();
        let mut default = d.default.clone();
        let mut not_null = d.not_null;
        // What to verify of the stored values: (message for a violation, code).
        let mut verify: Option<(String, &str)> = None;
        let done = Outcome::Done {
            tag: "ALTER DOMAIN".into(),
        };
        match action {
            A::Rename(to) => {
                self.check_type_name_free(old.namespace, to, ctx)?;
                let new = self.db.catalog.replace_user_type(
                    &old,
                    to,
                    old.namespace,
                    old.owner,
                    Vec::new(),
                    txn,
                );
                self.undo.push(Undo::TypeVersion(new, Some(old.clone())));
                return Ok(done);
            }
            A::Default(new) => default = new.clone(),
            A::NotNull(on) => {
                if *on && !not_null {
                    verify = Some(("contains null values".into(), "23502"));
                }
                not_null = *on;
            }
            A::AddCheck {
                name,
                sql,
                expr,
                validate,
            } => {
                let name = match name {
                    Some(n) => {
                        if checks.iter().any(|c| &c.name == n) {
                            return Err(Error::new(
                                "42710",
                                format!(
                                    "constraint \"{n}\" for domain \"{}\" already exists",
                                    old.name
                                ),
                            ));
                        }
                        n.clone()
                    }
                    None => {
                        let base = format!("{}_check", old.name);
                        (0..)
                            .map(|k| {
                                if k == 0 {
                                    base.clone()
                                } else {
                                    format!("{base}{k}")
                                }
                            })
                            .find(|n| checks.iter().all(|c| &c.name != n))
                            .unwrap_or(base)
                    }
                };
                checks.push(DomainCheck {
                    name,
                    sql: sql.clone(),
                    expr: expr.clone(),
                    validated: *validate,
                });
                if *validate {
                    verify = Some((
                        "contains values that violate the new constraint".into(),
                        "23514",
                    ));
                }
            }
            A::DropConstraint { name, if_exists } => {
                let before = checks.len();
                checks.retain(|c| &c.name != name);
                if checks.len() == before {
                    if *if_exists {
                        self.notices.push((
                            "NOTICE".into(),
                            "00000".into(),
                            format!(
                                "constraint \"{name}\" of domain \"{}\" does not exist, skipping",
                                old.name
                            ),
                        ));
                        return Ok(done);
                    }
                    return Err(Error::new(
                        "42704",
                        format!(
                            "constraint \"{name}\" of domain \"{}\" does not exist",
                            old.name
                        ),
                    ));
                }
            }
            A::RenameConstraint { from, to } => {
                if checks.iter().any(|c| &c.name == to) {
                    return Err(Error::new(
                        "42710",
                        format!(
                            "constraint \"{to}\" for domain \"{}\" already exists",
                            old.name
                        ),
                    ));
                }
                let Some(c) = checks.iter_mut().find(|c| &c.name == from) else {
                    return Err(Error::new(
                        "42704",
                        format!(
                            "constraint \"{from}\" of domain \"{}\" does not exist",
                            old.name
                        ),
                    ));
                };
                c.name = to.clone();
            }
            A::ValidateConstraint(name) => {
                if let Some(c) = checks.iter_mut().find(|c| &c.name == name) {
                    c.validated = true;
                }
                if checks.iter().all(|c| &c.name != name) {
                    return Err(Error::new(
                        "42704",
                        format!(
                            "constraint \"{name}\" of domain \"{}\" does not exist",
                            old.name
                        ),
                    ));
                }
                verify = Some((
                    "contains values that violate the new constraint".into(),
                    "23514",
                ));
            }
        }
        let def = std::sync::Arc::new(DomainDef {
            base: d.base,
            parent: d.parent,
            not_null,
            default,
            checks,
        });
        let new = self.db.catalog.replace_domain(&old, def, txn);
        self.undo.push(Undo::TypeVersion(new, Some(old.clone())));
        if let Some((what, code)) = verify {
            let base = d.base.display_name();
            for (table, column) in type_columns(&self.db, oid, ctx) {
                let c = crate::catalog::system::quote_ident(&column);
                let sql = format!("UPDATE {table} SET {c} = CAST({c} AS {base})");
                match self.run_internal(&sql) {
                    Err(e) if e.code == "23514" || e.code == "23502" => {
                        let bare = table.rsplit_once('.').map_or(table.as_str(), |(_, t)| t);
                        let bare = bare.trim_matches('"');
                        return Err(Error::new(
                            code,
                            format!("column \"{column}\" of table \"{bare}\" {what}"),
                        ));
                    }
                    Err(e) => return Err(e),
                    Ok(()) => {}
                }
            }
        }
        Ok(done)
    }
}

/// PostgreSQL's 42602 for a label longer than a name.
fn check_label(label: &str) -> Result<()> {
    if label.len() > LABEL_MAX {
        return Err(
            Error::new("42602", format!("invalid enum label \"{label}\""))
                .with_detail(format!("Labels must be {LABEL_MAX} bytes or less.")),
        );
    }
    Ok(())
}

/// The tables' columns of type `oid`: (the table's qualified name, the column).
fn type_columns(db: &crate::Database, oid: u32, ctx: &ExecContext) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for t in db.catalog.visible_tables(&ctx.snapshot) {
        if t.view.is_some() {
            continue;
        }
        for c in &t.columns {
            if c.ty.ty == DataType::Enum(oid) || c.ty.domain == oid {
                out.push((db.catalog.durable_name(&t), c.name.clone()));
            }
        }
    }
    out
}

/// The columns of type `oid`, as PostgreSQL's dependency messages name them.
fn type_users(db: &crate::Database, oid: u32, ctx: &ExecContext) -> Vec<String> {
    let mut out = Vec::new();
    for t in db.catalog.visible_tables(&ctx.snapshot) {
        for c in &t.columns {
            if c.ty.ty == DataType::Enum(oid) || c.ty.domain == oid {
                let kind = if t.view.is_some() { "view" } else { "table" };
                out.push(format!("column {} of {kind} {}", c.name, t.name));
            }
        }
    }
    // Domains over it.
    for t in db.catalog.visible_user_types(&ctx.snapshot) {
        if let Some(d) = &t.domain
            && t.oid != oid
            && (d.parent == Some(oid) || d.base.ty == DataType::Enum(oid))
        {
            out.push(format!("type {}", t.name));
        }
    }
    out
}
