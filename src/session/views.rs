//! Views follow what they read. A view keeps its query as SQL text and binds it where
//! it is used; PostgreSQL's views hold the relations they read by oid, so renaming a
//! table, moving it to another schema or renaming a schema leaves them working. kiln
//! does the same by rewriting the text: before such a change, every view that reads a
//! moving relation gets its relation names that resolve to it (as the view's own search
//! path resolves them now) replaced by the relation's new `schema.name`.

use std::collections::HashMap;
use std::ops::ControlFlow;

use super::*;
use crate::catalog::system::quote_ident;

/// A relation about to move: its oid and its new (schema, name).
pub(super) struct Moving {
    pub oid: u32,
    pub schema: String,
    pub name: String,
}

impl Session {
    /// Rewrites the views that read any of `moving` (see the module doc), as new
    /// versions made by `txn`. Called before the catalog change, under its snapshot.
    pub(super) fn follow_moves(
        &mut self,
        moving: &[Moving],
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<()> {
        if moving.is_empty() {
            return Ok(());
        }
        let catalog = self.db.catalog.clone();
        let by_oid: HashMap<u32, &Moving> = moving.iter().map(|m| (m.oid, m)).collect();
        for view in catalog.visible_tables(&ctx.snapshot) {
            let Some(def) = &view.view else { continue };
            if !def.depends_on.iter().any(|o| by_oid.contains_key(o)) {
                continue;
            }
            let Some(sql) = rewrite(&catalog, def, &by_oid, &ctx.snapshot) else {
                continue;
            };
            let new_def = crate::catalog::ViewDef {
                sql,
                depends_on: def.depends_on.clone(),
                search_path: def.search_path.clone(),
            };
            let made = catalog.replace_view(&view, new_def, txn);
            self.undo.push(Undo::DropTable(view.clone()));
            self.undo.push(Undo::CreateTable(made));
        }
        Ok(())
    }
}

/// The view's text with its names of moving relations replaced; None when it names
/// none of them.
fn rewrite(
    catalog: &crate::catalog::Catalog,
    def: &crate::catalog::ViewDef,
    moving: &HashMap<u32, &Moving>,
    snapshot: &crate::storage::mvcc::Snapshot,
) -> Option<String> {
    let mut statements = crate::sql::parse::parse(&def.sql).ok()?;
    let first = statements.first_mut()?;
    // WITH queries' names are not relations.
    let mut ctes: Vec<String> = Vec::new();
    let _ = sqlparser::ast::visit_statements(&*first, |s| {
        if let sqlparser::ast::Statement::Query(q) = s
            && let Some(with) = &q.with
        {
            for c in &with.cte_tables {
                ctes.push(crate::sql::binder::ident_name(&c.alias.name));
            }
        }
        ControlFlow::<()>::Continue(())
    });
    let mut changed = false;
    let _ = sqlparser::ast::visit_relations_mut(first, |name| {
        let parts: Vec<String> = name
            .0
            .iter()
            .filter_map(|p| match p {
                sqlparser::ast::ObjectNamePart::Identifier(i) => {
                    Some(crate::sql::binder::ident_name(i))
                }
                _ => None,
            })
            .collect();
        let found = match parts.as_slice() {
            [n] if ctes.contains(n) => None,
            [n] => catalog.lookup(&def.search_path, n, snapshot),
            [s, n] => catalog
                .namespace(s, snapshot)
                .and_then(|ns| catalog.table(ns.oid, n, snapshot)),
            _ => None,
        };
        if let Some(t) = found
            && let Some(m) = moving.get(&t.oid)
        {
            *name = sqlparser::ast::ObjectName::from(vec![ident(&m.schema), ident(&m.name)]);
            changed = true;
        }
        ControlFlow::<()>::Continue(())
    });
    changed.then(|| match first {
        sqlparser::ast::Statement::Query(q) => q.to_string(),
        other => other.to_string(),
    })
}

/// An identifier that reads back as `name` (quoted where it has to be).
fn ident(name: &str) -> sqlparser::ast::Ident {
    if quote_ident(name) == name {
        sqlparser::ast::Ident::new(name)
    } else {
        sqlparser::ast::Ident::with_quote('"', name)
    }
}
