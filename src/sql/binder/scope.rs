//! Name scopes: the columns a FROM clause makes visible and how a (qualified) name
//! resolves to one of them.
//!
//! A [`Scope`] lists the columns of one query level in the order `SELECT *` shows them.
//! Each carries the expression it stands for — a column reference, or for a column
//! merged by `JOIN … USING` the merged value — and the name of the relation it belongs
//! to. Columns merged away by USING stay listed (a qualified name still finds them, and
//! `t.*` shows them) but are `hidden` from unqualified names and from `*`.
//!
//! Subqueries see the scopes of the queries around them: a name not found in its own
//! level is looked up in the enclosing ones, innermost first (PostgreSQL's rule). A
//! qualified name whose relation exists at some level resolves at that level only.

use super::*;

#[derive(Clone, Debug)]
pub(super) struct ScopeColumn {
    /// The schema of the table it reads, when named by the table's own name (no alias):
    /// what `schema.table.column` matches.
    pub(super) schema: Option<String>,
    pub(super) qualifier: Option<String>,
    pub(super) name: String,
    pub(super) expr: Expr,
    /// Merged into a USING column: found only by a qualified name or `t.*`.
    pub(super) hidden: bool,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Scope {
    pub(super) columns: Vec<ScopeColumn>,
}

/// What a lookup at one level found.
enum Lookup {
    Found(Expr),
    /// The qualifier names no relation at this level.
    NoRelation,
    /// No such column here (the relation, if named, exists).
    NoColumn,
}

impl ScopeColumn {
    /// Whether `[schema.]q` names this column's relation.
    pub(super) fn is_qualified_by(&self, schema: Option<&str>, q: &str) -> bool {
        self.qualifier.as_deref() == Some(q)
            && schema.is_none_or(|s| self.schema.as_deref() == Some(s))
    }
}

impl Scope {
    fn has_qualifier(&self, schema: Option<&str>, q: &str) -> bool {
        self.columns.iter().any(|c| c.is_qualified_by(schema, q))
    }

    fn lookup(&self, schema: Option<&str>, qualifier: Option<&str>, name: &str) -> Result<Lookup> {
        if let Some(q) = qualifier {
            if !self.has_qualifier(schema, q) {
                return Ok(Lookup::NoRelation);
            }
            // Two tables of one name from two schemas: the bare name is ambiguous.
            if schema.is_none() {
                let mut schemas = self
                    .columns
                    .iter()
                    .filter(|c| c.qualifier.as_deref() == Some(q))
                    .filter_map(|c| c.schema.as_deref());
                if let Some(first) = schemas.next()
                    && schemas.any(|s| s != first)
                {
                    return Err(Error::new(
                        "42P09",
                        format!("table reference \"{q}\" is ambiguous"),
                    ));
                }
            }
        }
        let mut found: Option<&ScopeColumn> = None;
        for c in &self.columns {
            let visible = match qualifier {
                None => !c.hidden,
                Some(q) => c.is_qualified_by(schema, q),
            };
            if visible && c.name == name {
                if found.is_some() {
                    return Err(Error::ambiguous_column(name));
                }
                found = Some(c);
            }
        }
        Ok(match found {
            Some(c) => Lookup::Found(c.expr.clone()),
            None => Lookup::NoColumn,
        })
    }

    /// The qualifier of the column `e` stands for (for messages: `"t.a" must appear…`).
    pub(super) fn qualifier_of(&self, e: &Expr) -> Option<&str> {
        self.columns
            .iter()
            .find(|c| c.expr == *e)
            .and_then(|c| c.qualifier.as_deref())
    }
}

impl Binder<'_> {
    /// Resolves a column name in `scope`, then in the enclosing queries' scopes.
    pub(super) fn resolve_column(
        &self,
        scope: &Scope,
        qualifier: Option<&str>,
        name: &str,
    ) -> Result<Expr> {
        self.resolve_qualified_column(scope, None, qualifier, name)
    }

    /// [`Binder::resolve_column`] of `schema.table.column`.
    pub(super) fn resolve_qualified_column(
        &self,
        scope: &Scope,
        schema: Option<&str>,
        qualifier: Option<&str>,
        name: &str,
    ) -> Result<Expr> {
        let levels = std::iter::once(scope).chain(self.outer_scopes.iter().rev());
        let mut relation_seen = false;
        for level in levels {
            match level.lookup(schema, qualifier, name)? {
                Lookup::Found(e) => return Ok(e),
                Lookup::NoColumn if qualifier.is_some() => {
                    relation_seen = true;
                    break;
                }
                Lookup::NoColumn | Lookup::NoRelation => {}
            }
        }
        if qualifier.is_none()
            && schema.is_none()
            && let Some(row) = self.whole_row(scope, name)
        {
            return Ok(row);
        }
        Err(match qualifier {
            Some(q) if !relation_seen => Error::new(
                "42P01",
                format!(
                    "missing FROM-clause entry for table \"{}\"",
                    schema.map_or_else(|| q.to_string(), |s| format!("{s}.{q}"))
                ),
            ),
            // PostgreSQL quotes a bare name but not a qualified one.
            Some(q) => Error::new("42703", format!("column {q}.{name} does not exist")),
            None => Error::undefined_column(name),
        })
    }
}

impl Binder<'_> {
    /// A whole-row reference: relation `name` of the nearest level naming one, as a
    /// record of its columns named after them (a scalar FROM function's one column as
    /// itself).
    fn whole_row(&self, scope: &Scope, name: &str) -> Option<Expr> {
        let levels = std::iter::once(scope).chain(self.outer_scopes.iter().rev());
        for level in levels {
            let columns: Vec<&ScopeColumn> = level
                .columns
                .iter()
                .filter(|c| c.qualifier.as_deref() == Some(name))
                .collect();
            if columns.is_empty() {
                continue;
            }
            if let [c] = columns.as_slice()
                && let Expr::ColumnRef { id, .. } = &c.expr
                && self.scalar_function_rels.contains(&id.rel)
            {
                return Some(c.expr.clone());
            }
            let fields: Vec<(String, DataType)> = columns
                .iter()
                .map(|c| (c.name.clone(), c.expr.ty().ty))
                .collect();
            let typmod = crate::types::record::bless_owned(&fields);
            return Some(Expr::Func {
                func: Func::RowBuild,
                args: columns.iter().map(|c| c.expr.clone()).collect(),
                ty: SqlType::with_typmod(DataType::Record, typmod),
            });
        }
        None
    }
}

/// The columns of one table row as relation `rel` under `qualifier` (CHECK
/// constraints, generation expressions, RETURNING, ON CONFLICT, ALTER … TYPE USING).
pub(super) fn row_scope(columns: &[ColumnDef], rel: RelId, qualifier: &str) -> Scope {
    Scope {
        columns: columns
            .iter()
            .enumerate()
            .map(|(i, c)| ScopeColumn {
                schema: None,
                qualifier: Some(qualifier.to_string()),
                name: c.name.clone(),
                expr: Expr::ColumnRef {
                    id: ColumnId::new(rel, i as u32),
                    ty: c.ty,
                    name: c.name.clone(),
                },
                hidden: false,
            })
            .collect(),
    }
}

/// Relation `rel`'s `n` columns at positions `0..n`: what expressions over one table
/// row are lowered against.
pub(super) fn row_layout(rel: RelId, n: usize) -> crate::plan::lower::Layout {
    crate::plan::lower::Layout {
        width: n,
        map: (0..n).map(|i| (ColumnId::new(rel, i as u32), i)).collect(),
    }
}
