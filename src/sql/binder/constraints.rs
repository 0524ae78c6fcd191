//! Keys, CHECK constraints and indexes: what CREATE TABLE's constraint clauses and
//! CREATE INDEX bind to.
//!
//! A PRIMARY KEY or UNIQUE constraint is a unique index that carries the constraint's
//! name, as in PostgreSQL; a PRIMARY KEY also makes its columns NOT NULL. Names left
//! out are chosen as PostgreSQL chooses them (`t_pkey`, `t_a_b_key`, `t_a_check`,
//! `t_check`, `t_a_idx`, with a number appended until the name is free). A CHECK
//! expression is bound over the table's columns and lowered to column positions, so the
//! writer evaluates it over the batch of new rows it is about to store.

use super::*;
use crate::catalog::{
    CheckConstraint, FkAction, ForeignKey, IndexEntry, IndexSpec, KeyConstraint, SELF_REFERENCE,
};
use crate::storage::index::{EXPR_BASE, KeyPart, indexable};

/// PostgreSQL's NAMEDATALEN - 1.
const NAME_BYTES_MAX: usize = 63;

/// `table_column…_label`, shortened to 63 bytes as PostgreSQL's makeObjectName does
/// (the longer of the two name parts loses bytes first).
fn object_name_for(table: &str, columns: &str, label: &str) -> String {
    let mut a = table.to_string();
    let mut b = columns.to_string();
    let overhead = label.len() + 1 + usize::from(!b.is_empty());
    while a.len() + b.len() + overhead > NAME_BYTES_MAX {
        let longer = if a.len() >= b.len() { &mut a } else { &mut b };
        let mut cut = longer.len() - 1;
        while !longer.is_char_boundary(cut) {
            cut -= 1;
        }
        longer.truncate(cut);
    }
    if b.is_empty() {
        format!("{a}_{label}")
    } else {
        format!("{a}_{b}_{label}")
    }
}

/// The first of `base`, `base1`, `base2`, … that `taken` says is free.
pub(super) fn first_free(
    table: &str,
    columns: &str,
    label: &str,
    taken: &dyn Fn(&str) -> bool,
) -> String {
    let mut n = 0;
    loop {
        let label = if n == 0 {
            label.to_string()
        } else {
            format!("{label}{n}")
        };
        let name = object_name_for(table, columns, &label);
        if !taken(&name) {
            return name;
        }
        n += 1;
    }
}

/// A table's constraints as CREATE TABLE or ALTER TABLE binds them.
#[derive(Debug, Default)]
pub struct BoundConstraints {
    pub indexes: Vec<IndexSpec>,
    pub checks: Vec<CheckConstraint>,
    pub foreign_keys: Vec<ForeignKey>,
}

/// What a table already has that new constraints must not collide with (ALTER TABLE).
#[derive(Default)]
pub(super) struct Existing {
    pub(super) oid: Option<u32>,
    pub(super) has_primary_key: bool,
    pub(super) primary_key: Option<(Vec<usize>, bool)>,
    /// The column sets of its unique constraints, and whether each is DEFERRABLE.
    pub(super) unique_keys: Vec<(Vec<usize>, bool)>,
    /// Constraint names (keys, CHECKs, foreign keys).
    pub(super) constraints: Vec<String>,
}

impl Existing {
    pub(super) fn of(table: &TableEntry) -> Existing {
        let mut constraints: Vec<String> = table
            .indexes
            .iter()
            .filter(|i| i.constraint.is_some())
            .map(|i| i.name.clone())
            .collect();
        constraints.extend(table.checks.iter().map(|c| c.name.clone()));
        constraints.extend(table.foreign_keys.iter().map(|c| c.name.clone()));
        let columns = |i: &IndexEntry| i.index.parts.iter().map(|p| p.column).collect::<Vec<_>>();
        Existing {
            oid: Some(table.oid),
            has_primary_key: table.primary_key().is_some(),
            primary_key: table.primary_key().map(|k| (columns(k), k.deferrable)),
            unique_keys: table
                .indexes
                .iter()
                .filter(|i| i.index.unique && i.index.predicate.is_none())
                .map(|i| (columns(i), i.deferrable))
                .collect(),
            constraints,
        }
    }
}

/// A key constraint as written, before names are chosen.
struct KeyClause {
    name: Option<String>,
    columns: Vec<String>,
    primary: bool,
    nulls_not_distinct: bool,
    /// (DEFERRABLE, INITIALLY DEFERRED)
    deferral: (bool, bool),
}

impl Binder<'_> {
    /// Binds CREATE TABLE's column and table constraints over `columns` (PRIMARY KEY
    /// marks its columns NOT NULL). Returns the key indexes to build and the CHECKs.
    pub(super) fn bind_table_constraints(
        &mut self,
        rel: &crate::catalog::RelName,
        columns: &mut [ColumnDef],
        column_asts: &[A::ColumnDef],
        constraints: &[A::TableConstraint],
        existing: &Existing,
    ) -> Result<BoundConstraints> {
        let table = rel.name.as_str();
        let mut keys: Vec<KeyClause> = Vec::new();
        // (name, referencing column names, the FOREIGN KEY clause)
        let mut fks: Vec<(Option<String>, Vec<String>, A::ForeignKeyConstraint)> = Vec::new();
        // (name, expression, the column it was written on)
        let mut checks: Vec<(Option<String>, A::Expr, Option<String>)> = Vec::new();
        for c in column_asts {
            let cname = ident_name(&c.name);
            for opt in &c.options {
                let name = opt.name.as_ref().map(ident_name);
                match &opt.option {
                    A::ColumnOption::PrimaryKey(pk) => keys.push(KeyClause {
                        name,
                        columns: vec![cname.clone()],
                        primary: true,
                        nulls_not_distinct: false,
                        deferral: deferral(&pk.characteristics)?,
                    }),
                    A::ColumnOption::Unique(u) => keys.push(KeyClause {
                        name,
                        columns: vec![cname.clone()],
                        primary: false,
                        nulls_not_distinct: u.nulls_distinct == A::NullsDistinctOption::NotDistinct,
                        deferral: deferral(&u.characteristics)?,
                    }),
                    A::ColumnOption::Check(ck) => {
                        checks.push((name, (*ck.expr).clone(), Some(cname.clone())))
                    }
                    A::ColumnOption::ForeignKey(fk) => fks.push((
                        name.or(fk.name.as_ref().map(ident_name)),
                        vec![cname.clone()],
                        fk.clone(),
                    )),
                    _ => {}
                }
            }
        }
        for tc in constraints {
            match tc {
                A::TableConstraint::PrimaryKey(pk) => keys.push(KeyClause {
                    name: pk.name.as_ref().map(ident_name),
                    columns: key_columns(&pk.columns)?,
                    primary: true,
                    nulls_not_distinct: false,
                    deferral: deferral(&pk.characteristics)?,
                }),
                A::TableConstraint::Unique(u) => keys.push(KeyClause {
                    name: u.name.as_ref().map(ident_name),
                    columns: key_columns(&u.columns)?,
                    primary: false,
                    nulls_not_distinct: u.nulls_distinct == A::NullsDistinctOption::NotDistinct,
                    deferral: deferral(&u.characteristics)?,
                }),
                A::TableConstraint::Check(ck) => {
                    checks.push((ck.name.as_ref().map(ident_name), (*ck.expr).clone(), None))
                }
                A::TableConstraint::ForeignKey(fk) => fks.push((
                    fk.name.as_ref().map(ident_name),
                    fk.columns.iter().map(ident_name).collect(),
                    fk.clone(),
                )),
                other => {
                    return Err(Error::feature_not_supported(format!(
                        "table constraint {other}"
                    )));
                }
            }
        }
        if keys.iter().filter(|k| k.primary).count() + usize::from(existing.has_primary_key) > 1 {
            return Err(Error::new(
                "42P16",
                format!("multiple primary keys for table \"{table}\" are not allowed"),
            ));
        }
        // The primary key first: PostgreSQL creates (and so checks) it before the others.
        keys.sort_by_key(|k| !k.primary);
        let mut specs: Vec<IndexSpec> = Vec::new();
        for k in keys {
            let mut parts = Vec::with_capacity(k.columns.len());
            for name in &k.columns {
                let Some(i) = columns.iter().position(|c| &c.name == name) else {
                    return Err(Error::new(
                        "42703",
                        format!("column \"{name}\" named in key does not exist"),
                    ));
                };
                if parts.iter().any(|p: &KeyPart| p.column == i) {
                    return Err(Error::new(
                        "42701",
                        format!("column \"{name}\" appears twice in primary key constraint"),
                    ));
                }
                check_indexable(columns[i].ty)?;
                if k.primary {
                    columns[i].not_null = true;
                }
                parts.push(KeyPart {
                    column: i,
                    desc: false,
                    nulls_first: false,
                    opclass: 0,
                });
            }
            let catalog = self.catalog;
            let snapshot = &self.snapshot;
            let taken = |n: &str| {
                specs.iter().any(|s| s.name == n)
                    || existing.constraints.iter().any(|c| c == n)
                    || catalog.relation_exists(rel.ns, n, snapshot)
            };
            let name = match k.name {
                Some(n) => {
                    if taken(&n) {
                        return Err(Error::duplicate_table(&n));
                    }
                    n
                }
                None if k.primary => first_free(table, "", "pkey", &taken),
                None => first_free(table, &k.columns.join("_"), "key", &taken),
            };
            specs.push(IndexSpec {
                name,
                parts,
                unique: true,
                nulls_not_distinct: k.nulls_not_distinct,
                constraint: Some(if k.primary {
                    KeyConstraint::PrimaryKey
                } else {
                    KeyConstraint::Unique
                }),
                predicate: None,
                exprs: Vec::new(),
                options: Vec::new(),
                deferrable: k.deferral.0,
                initially_deferred: k.deferral.1,
            });
        }
        let mut bound: Vec<CheckConstraint> = Vec::new();
        for (name, expr, on_column) in checks {
            let (e, referenced) = self.bind_check(table, columns, &expr)?;
            let name = match name {
                Some(n) => {
                    if bound.iter().any(|c| c.name == n) || existing.constraints.contains(&n) {
                        return Err(Error::new(
                            "42710",
                            format!("constraint \"{n}\" for relation \"{table}\" already exists"),
                        ));
                    }
                    n
                }
                None => {
                    // A column's CHECK is named for its column; a table CHECK for the
                    // one column it reads, if it reads only one (PostgreSQL's rule).
                    let column = on_column.or(match referenced.as_slice() {
                        [only] => Some(columns[*only].name.clone()),
                        _ => None,
                    });
                    first_free(table, column.as_deref().unwrap_or(""), "check", &|n| {
                        bound.iter().any(|c| c.name == n)
                            || existing.constraints.iter().any(|c| c == n)
                    })
                }
            };
            bound.push(CheckConstraint { name, expr: e });
        }
        let mut foreign_keys: Vec<ForeignKey> = Vec::new();
        for (name, cols, fk) in fks {
            let key = self.bind_foreign_key(
                rel,
                columns,
                &specs,
                name,
                &cols,
                &fk,
                existing,
                &foreign_keys,
            )?;
            foreign_keys.push(key);
        }
        Ok(BoundConstraints {
            indexes: specs,
            checks: bound,
            foreign_keys,
        })
    }

    /// One FOREIGN KEY: the referenced table (this one, for a self-reference) must have
    /// a primary key or unique constraint over exactly the referenced columns, of
    /// comparable types.
    #[allow(clippy::too_many_arguments)]
    fn bind_foreign_key(
        &mut self,
        rel: &crate::catalog::RelName,
        columns: &[ColumnDef],
        specs: &[IndexSpec],
        name: Option<String>,
        cols: &[String],
        fk: &A::ForeignKeyConstraint,
        existing: &Existing,
        bound: &[ForeignKey],
    ) -> Result<ForeignKey> {
        if fk
            .match_kind
            .is_some_and(|m| !matches!(m, A::ConstraintReferenceMatchKind::Simple))
        {
            return Err(Error::feature_not_supported("MATCH FULL and MATCH PARTIAL"));
        }
        let mut child = Vec::with_capacity(cols.len());
        for c in cols {
            let i = columns.iter().position(|d| &d.name == c).ok_or_else(|| {
                Error::new(
                    "42703",
                    format!("column \"{c}\" referenced in foreign key constraint does not exist"),
                )
            })?;
            child.push(i);
        }
        let table = rel.name.as_str();
        let (parent_schema, parent_name) = split_name(&fk.foreign_table)?;
        let own = parent_name == table
            && match &parent_schema {
                Some(s) => self.namespace_named(s)? == Some(rel.ns),
                None => self
                    .catalog
                    .lookup(&self.search_path.search, &parent_name, &self.snapshot)
                    .is_none(),
            };
        // The referenced table's columns and unique keys (its own, when it is this one).
        type Keys = Vec<(Vec<usize>, bool)>;
        let (parent_oid, parent_columns, parent_keys): (u32, Vec<ColumnDef>, Keys) = if own {
            let mut keys: Keys = specs
                .iter()
                .filter(|s| s.unique)
                .map(|s| (s.parts.iter().map(|p| p.column).collect(), s.deferrable))
                .collect();
            keys.extend(existing.unique_keys.iter().cloned());
            let oid = existing.oid.unwrap_or(SELF_REFERENCE);
            (oid, columns.to_vec(), keys)
        } else {
            let parent = self.table(&fk.foreign_table)?;
            self.need(&parent, crate::catalog::acl::Privs::REFERENCES);
            if parent.view.is_some() || parent.sequence.is_some() {
                return Err(Error::new(
                    "42809",
                    format!("referenced relation \"{}\" is not a table", parent.name),
                ));
            }
            let keys = parent
                .indexes
                .iter()
                .filter(|i| i.index.unique && i.index.predicate.is_none())
                .map(|i| {
                    (
                        i.index.parts.iter().map(|p| p.column).collect(),
                        i.deferrable,
                    )
                })
                .collect();
            (parent.oid, parent.columns.clone(), keys)
        };
        let parent_cols: Vec<usize> = if fk.referred_columns.is_empty() {
            // The primary key (the first key is the primary key when there is one).
            let pk: Option<(Vec<usize>, bool)> = if own {
                specs
                    .iter()
                    .find(|s| s.constraint == Some(KeyConstraint::PrimaryKey))
                    .map(|s| (s.parts.iter().map(|p| p.column).collect(), s.deferrable))
                    .or_else(|| existing.primary_key.clone())
            } else {
                self.catalog
                    .by_oid(parent_oid, &self.snapshot)
                    .and_then(|p| {
                        p.primary_key().map(|k| {
                            (
                                k.index.parts.iter().map(|x| x.column).collect(),
                                k.deferrable,
                            )
                        })
                    })
            };
            let (pk, deferrable) = pk.ok_or_else(|| {
                Error::new(
                    "42704",
                    format!("there is no primary key for referenced table \"{parent_name}\""),
                )
            })?;
            if deferrable {
                return Err(Error::new(
                    "55000",
                    format!(
                        "cannot use a deferrable primary key for referenced table \"{parent_name}\""
                    ),
                ));
            }
            pk
        } else {
            let mut out = Vec::new();
            for r in &fk.referred_columns {
                let n = ident_name(r);
                let i = parent_columns
                    .iter()
                    .position(|d| d.name == n)
                    .ok_or_else(|| {
                        Error::new(
                            "42703",
                            format!(
                                "column \"{n}\" referenced in foreign key constraint does not exist"
                            ),
                        )
                    })?;
                out.push(i);
            }
            out
        };
        if parent_cols.len() != child.len() {
            return Err(Error::new(
                "42830",
                "number of referencing and referenced columns for foreign key disagree",
            ));
        }
        let mut wanted = parent_cols.clone();
        wanted.sort_unstable();
        let same = |k: &Vec<usize>| {
            let mut k = k.clone();
            k.sort_unstable();
            k == wanted
        };
        let matched = parent_keys
            .iter()
            .any(|(k, deferrable)| !deferrable && same(k));
        if !matched && parent_keys.iter().any(|(k, _)| same(k)) {
            // Only a DEFERRABLE key has these columns: a reference could not rely on it.
            return Err(Error::new(
                "55000",
                format!(
                    "cannot use a deferrable unique constraint for referenced table \"{parent_name}\""
                ),
            ));
        }
        if !matched {
            return Err(Error::new(
                "42830",
                format!(
                    "there is no unique constraint matching given keys for referenced table \"{parent_name}\""
                ),
            ));
        }
        let name = match name {
            Some(n) => n,
            None => first_free(table, &cols.join("_"), "fkey", &|n| {
                bound.iter().any(|f| f.name == n) || existing.constraints.iter().any(|c| c == n)
            }),
        };
        for (&c, &p) in child.iter().zip(&parent_cols) {
            let (a, b) = (columns[c].ty.ty, parent_columns[p].ty.ty);
            let comparable =
                a == b || (a.is_integer() && b.is_integer()) || (a.is_string() && b.is_string());
            if !comparable {
                return Err(Error::new(
                    "42804",
                    format!("foreign key constraint \"{name}\" cannot be implemented"),
                )
                .with_detail(format!(
                    "Key columns \"{}\" and \"{}\" are of incompatible types: {} and {}.",
                    columns[c].name,
                    parent_columns[p].name,
                    columns[c].ty.display_name(),
                    parent_columns[p].ty.display_name()
                )));
            }
        }
        let action = |a: Option<A::ReferentialAction>| match a {
            None | Some(A::ReferentialAction::NoAction) => FkAction::NoAction,
            Some(A::ReferentialAction::Restrict) => FkAction::Restrict,
            Some(A::ReferentialAction::Cascade) => FkAction::Cascade,
            Some(A::ReferentialAction::SetNull) => FkAction::SetNull,
            Some(A::ReferentialAction::SetDefault) => FkAction::SetDefault,
        };
        let (deferrable, initially_deferred) = deferral(&fk.characteristics)?;

        Ok(ForeignKey {
            oid: 0,
            name,
            columns: child,
            parent: parent_oid,
            parent_columns: parent_cols,
            on_delete: action(fk.on_delete),
            on_update: action(fk.on_update),
            deferrable,
            initially_deferred,
        })
    }

    /// Binds a CHECK expression over the table's columns; returns it lowered to column
    /// positions, and the columns it reads (in order of first use).
    pub(super) fn bind_check(
        &mut self,
        table: &str,
        columns: &[ColumnDef],
        expr: &A::Expr,
    ) -> Result<(Expr, Vec<usize>)> {
        let (rel, bound) = self.bind_row_expr(table, columns, expr, RowExpr::CHECK)?;
        let bound = self.require_bool(bound, "CHECK")?;
        self.lower_row_expr(rel, columns, bound)
    }

    /// Binds an expression over one row of a table (a CHECK constraint, an index's
    /// key expression or WHERE), refusing what `kind` cannot hold as PostgreSQL does:
    /// subqueries (0A000), aggregates (42803), window and set-returning functions.
    /// Returns the relation id its columns were bound under, and the bound expression.
    fn bind_row_expr(
        &mut self,
        table: &str,
        columns: &[ColumnDef],
        expr: &A::Expr,
        kind: RowExpr,
    ) -> Result<(RelId, Expr)> {
        let rel = self.new_rel();
        let scope = row_scope(columns, rel, table);
        let saved = (
            self.agg_forbidden_in.replace(kind.plural),
            self.window_forbidden.replace(kind.plural),
            self.srf_forbidden.replace(kind.plural),
        );
        let bound = self.bind_expr(expr, &scope);
        (
            self.agg_forbidden_in,
            self.window_forbidden,
            self.srf_forbidden,
        ) = saved;
        let bound = bound?;
        if bound.any(&|x| matches!(x, Expr::Subquery(_))) {
            return Err(Error::new(
                "0A000",
                format!("cannot use subquery in {}", kind.singular),
            ));
        }
        if bound.any(&|x| matches!(x, Expr::Agg { .. })) {
            return Err(Error::grouping(format!(
                "aggregate functions are not allowed in {}",
                kind.plural
            )));
        }
        Ok((rel, bound))
    }

    /// A row expression lowered to the table's column positions, and the columns it
    /// reads (in order of first use).
    fn lower_row_expr(
        &mut self,
        rel: RelId,
        columns: &[ColumnDef],
        bound: Expr,
    ) -> Result<(Expr, Vec<usize>)> {
        let mut referenced: Vec<usize> = Vec::new();
        bound.column_refs(&mut |id, _| {
            let c = id.col as usize;
            if !referenced.contains(&c) {
                referenced.push(c);
            }
        });
        let layout = row_layout(rel, columns.len());
        let lowered = crate::plan::lower::Lowerer::new().expr(&bound, &layout)?;
        Ok((lowered, referenced))
    }

    /// CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table (columns …).
    pub(super) fn bind_create_index(&mut self, ci: &A::CreateIndex) -> Result<BoundStatement> {
        if let Some(using) = &ci.using {
            let method = using.to_string().to_lowercase();
            if method != "btree" {
                return Err(Error::feature_not_supported(format!(
                    "index access method \"{method}\""
                )));
            }
        }
        let table = self.table(&ci.table_name)?;
        if table.view.is_some() {
            return Err(Error::new(
                "42809",
                format!("cannot create index on relation \"{}\"", table.name),
            )
            .with_detail("This operation is not supported for views."));
        }
        let mut parts = Vec::with_capacity(ci.columns.len());
        let mut names: Vec<String> = Vec::with_capacity(ci.columns.len());
        let mut exprs = Vec::new();
        for c in &ci.columns {
            let element = index_element(&c.column.expr)?;
            let (column, ty, name) = match element {
                A::Expr::Identifier(id) => {
                    let name = ident_name(id);
                    let i = table.column_index(&name).ok_or_else(|| {
                        Error::new("42703", format!("column \"{name}\" does not exist"))
                    })?;
                    (i, table.columns[i].ty, name)
                }
                e => {
                    let bound = self.bind_index_expr(
                        &table.name,
                        &table.columns,
                        e,
                        RowExpr::INDEX_EXPRESSION,
                    )?;
                    match bound {
                        // `((a))` is column a.
                        Expr::Column { index, .. } => (
                            index,
                            table.columns[index].ty,
                            table.columns[index].name.clone(),
                        ),
                        bound => {
                            let ty = bound.ty();
                            let name =
                                crate::catalog::system::expr_column_name(&bound, &table.columns);
                            exprs.push(bound);
                            (EXPR_BASE + exprs.len() - 1, ty, name)
                        }
                    }
                }
            };
            check_indexable(ty)?;
            let opclass = match &c.operator_class {
                Some(n) => operator_class(&split_name(n)?.1, ty.ty)?,
                None => 0,
            };
            let desc = matches!(c.column.options.sort, Some(A::OrderBySort::Desc));
            if matches!(c.column.options.sort, Some(A::OrderBySort::Using(_))) {
                return Err(Error::feature_not_supported("USING in an index column"));
            }
            parts.push(KeyPart {
                column,
                desc,
                // NULLs sort as if larger than any value: last ascending, first descending.
                nulls_first: c.column.options.nulls_first.unwrap_or(desc),
                opclass,
            });
            names.push(name);
        }
        let names = crate::catalog::system::distinct_names(names);
        // INCLUDE columns are stored by the table already (no index-only scans): they
        // must exist, and take no part in the key.
        for c in &ci.include {
            let n = ident_name(c);
            if table.column_index(&n).is_none() {
                return Err(Error::new(
                    "42703",
                    format!("column \"{n}\" does not exist"),
                ));
            }
        }
        let predicate = match &ci.predicate {
            Some(p) => Some(self.bind_index_predicate(&table, p)?),
            None => None,
        };
        let mut options = Vec::new();
        for w in &ci.with {
            let A::Expr::BinaryOp {
                left,
                op: A::BinaryOperator::Eq,
                right,
            } = w
            else {
                return Err(Error::syntax(format!("syntax error at or near \"{w}\"")));
            };
            let value = match right.as_ref() {
                A::Expr::Value(v) => match &v.value {
                    A::Value::SingleQuotedString(s) => s.clone(),
                    other => other.to_string(),
                },
                A::Expr::Identifier(id) => id.value.clone(),
                other => other.to_string(),
            };
            set_index_option(&mut options, &left.to_string().to_lowercase(), Some(&value))?;
        }
        let name = match &ci.name {
            Some(n) => bare_name(n)?,
            None => {
                let catalog = self.catalog;
                let snapshot = &self.snapshot;
                first_free(&table.name, &names.join("_"), "idx", &|n| {
                    catalog.relation_exists(table.namespace, n, snapshot)
                })
            }
        };
        Ok(BoundStatement::CreateIndex {
            table,
            spec: IndexSpec {
                name,
                parts,
                unique: ci.unique,
                nulls_not_distinct: ci.nulls_distinct == Some(false),
                constraint: None,
                predicate,
                exprs,
                options,
                deferrable: false,
                initially_deferred: false,
            },
            if_not_exists: ci.if_not_exists,
        })
    }
}

impl Binder<'_> {
    /// A partial index's WHERE: boolean, immutable, no subqueries; over the table's
    /// columns by position.
    fn bind_index_predicate(&mut self, table: &TableEntry, p: &A::Expr) -> Result<Expr> {
        self.bind_index_expr(&table.name, &table.columns, p, RowExpr::INDEX_PREDICATE)
    }

    /// An ON CONFLICT target's expression, bound as an index's key expression is.
    pub(super) fn bind_inferred_expr(&mut self, table: &TableEntry, e: &A::Expr) -> Result<Expr> {
        self.bind_index_expr(&table.name, &table.columns, e, RowExpr::INDEX_EXPRESSION)
    }

    /// An index's key expression or WHERE over the table's columns by position:
    /// immutable (42P17), a WHERE boolean.
    pub(super) fn bind_index_expr(
        &mut self,
        table: &str,
        columns: &[ColumnDef],
        e: &A::Expr,
        kind: RowExpr,
    ) -> Result<Expr> {
        let (rel, bound) = self.bind_row_expr(table, columns, e, kind)?;
        let bound = if kind.plural == RowExpr::INDEX_PREDICATE.plural {
            self.require_bool(bound, "WHERE")?
        } else {
            bound
        };
        if bound.any(&changes_between_calls) {
            return Err(Error::new(
                "42P17",
                format!("functions in {} must be marked IMMUTABLE", kind.singular),
            ));
        }
        Ok(self.lower_row_expr(rel, columns, bound)?.0)
    }
}

/// Where a row expression is bound, for PostgreSQL's messages about what it cannot hold.
#[derive(Clone, Copy)]
pub(super) struct RowExpr {
    plural: &'static str,
    singular: &'static str,
}

impl RowExpr {
    pub(super) const CHECK: RowExpr = RowExpr {
        plural: "check constraints",
        singular: "check constraint",
    };
    pub(super) const INDEX_EXPRESSION: RowExpr = RowExpr {
        plural: "index expressions",
        singular: "index expression",
    };
    pub(super) const INDEX_PREDICATE: RowExpr = RowExpr {
        plural: "index predicates",
        singular: "index predicate",
    };
}

/// Whether node `e` may give different answers for the same inputs (PostgreSQL's
/// functions not marked IMMUTABLE): volatile and stable functions, and what reads the
/// time zone or the date style — conversions between text and the date/time types,
/// from or to timestamptz, timestamptz arithmetic, comparisons across it and the
/// functions taking one. A literal's conversion is made once, when it is bound.
fn changes_between_calls(e: &Expr) -> bool {
    use crate::sql::functions::Volatility;
    let datetime = |t: DataType| {
        matches!(
            t,
            DataType::Date
                | DataType::Timestamp
                | DataType::Timestamptz
                | DataType::Interval
                | DataType::Time
                | DataType::TimeTz
        )
    };
    match e {
        Expr::Func { func, args, .. } => {
            func.volatility() != Volatility::Immutable
                || args.iter().any(|a| a.ty().ty == DataType::Timestamptz)
        }
        Expr::Cast { expr, to, .. } => {
            if matches!(**expr, Expr::Literal { .. }) {
                return false;
            }
            let from = expr.ty().ty;
            let zoned = |t: DataType| matches!(t, DataType::Timestamptz | DataType::TimeTz);
            let tz = zoned(from) != zoned(to.ty);
            let text =
                (from.is_string() && datetime(to.ty)) || (datetime(from) && to.ty.is_string());
            tz || text
        }
        Expr::Binary {
            op,
            left,
            right,
            ty,
            ..
        } => {
            let (l, r) = (left.ty().ty, right.ty().ty);
            if ty.ty == DataType::Timestamptz {
                return true;
            }
            matches!(
                op,
                BinaryOp::Eq
                    | BinaryOp::NotEq
                    | BinaryOp::Lt
                    | BinaryOp::LtEq
                    | BinaryOp::Gt
                    | BinaryOp::GtEq
            ) && l != r
                && (l == DataType::Timestamptz || r == DataType::Timestamptz)
        }
        _ => false,
    }
}

/// An index element as PostgreSQL's grammar takes it: a column, a function call (or
/// one of the SQL-syntax calls: CAST, EXTRACT, SUBSTRING…), or any expression in
/// parentheses, whose inside is returned. Anything else is a syntax error at the
/// token the grammar stops at.
fn index_element(e: &A::Expr) -> Result<&A::Expr> {
    match e {
        A::Expr::Nested(inner) => Ok(inner),
        A::Expr::Identifier(_)
        | A::Expr::Function(_)
        | A::Expr::Extract { .. }
        | A::Expr::Substring { .. }
        | A::Expr::Trim { .. }
        | A::Expr::Position { .. }
        | A::Expr::Overlay { .. }
        | A::Expr::Ceil { .. }
        | A::Expr::Floor { .. } => Ok(e),
        A::Expr::Cast { kind, .. } if !matches!(kind, A::CastKind::DoubleColon) => Ok(e),
        _ => {
            let text = e.to_string();
            let tokens: Vec<sqlparser::tokenizer::Token> = sqlparser::tokenizer::Tokenizer::new(
                &sqlparser::dialect::PostgreSqlDialect {},
                &text,
            )
            .tokenize()
            .unwrap_or_default()
            .into_iter()
            .filter(|t| !matches!(t, sqlparser::tokenizer::Token::Whitespace(_)))
            .collect();
            // A column or call followed by more: the grammar stops after it.
            let at = match tokens.first() {
                Some(sqlparser::tokenizer::Token::Word(w))
                    if w.keyword == sqlparser::keywords::Keyword::NoKeyword =>
                {
                    tokens.get(1)
                }
                first => first,
            };
            Err(Error::syntax(match at {
                Some(t) => format!("syntax error at or near \"{t}\""),
                None => "syntax error at end of input".to_string(),
            }))
        }
    }
}

/// Sets (or, `value` None, resets) B-tree storage parameter `name` in `options`:
/// fillfactor (10 to 100) and deduplicate_items (a boolean), as PostgreSQL checks
/// them (22023).
pub fn set_index_option(
    options: &mut Vec<(String, String)>,
    name: &str,
    value: Option<&str>,
) -> Result<()> {
    match (name, value) {
        ("fillfactor" | "deduplicate_items", None) => {}
        ("fillfactor", Some(v)) => {
            let n: Option<i64> = v.trim().parse().ok();
            match n {
                Some(n) if (10..=100).contains(&n) => {}
                Some(_) => {
                    return Err(Error::new(
                        "22023",
                        format!("value {v} out of bounds for option \"fillfactor\""),
                    )
                    .with_detail("Valid values are between \"10\" and \"100\"."));
                }
                None => {
                    return Err(Error::new(
                        "22023",
                        format!("invalid value for integer option \"fillfactor\": {v}"),
                    ));
                }
            }
        }
        ("deduplicate_items", Some(v)) => {
            if crate::types::text::parse_bool(v).is_err() {
                return Err(Error::new(
                    "22023",
                    format!("invalid value for boolean option \"deduplicate_items\": {v}"),
                ));
            }
        }
        _ => {
            return Err(Error::new(
                "22023",
                format!("unrecognized parameter \"{name}\""),
            ));
        }
    }
    options.retain(|(n, _)| n != name);
    if let Some(v) = value {
        options.push((name.to_string(), v.to_string()));
    }
    Ok(())
}

fn key_columns(columns: &[A::IndexColumn]) -> Result<Vec<String>> {
    columns
        .iter()
        .map(|c| match &c.column.expr {
            A::Expr::Identifier(id) => Ok(ident_name(id)),
            _ => Err(Error::syntax("syntax error in key column list")),
        })
        .collect()
}

/// An index column's operator class by name: 0 for the type's default class, the
/// pattern classes' oids for text-like columns (42704 for a class B-trees lack, 42804
/// for one of another type).
pub(super) fn operator_class(name: &str, ty: DataType) -> Result<u32> {
    let text_like = matches!(ty, DataType::Text | DataType::Varchar | DataType::Name);
    let (oid, fits) = match name {
        "text_pattern_ops" => (4217, text_like),
        "varchar_pattern_ops" => (4218, text_like),
        "bpchar_pattern_ops" => (4219, ty == DataType::Bpchar),
        "varchar_ops" => (0, text_like),
        _ => match crate::catalog::system::default_opclass(name) {
            Some(input) => (0, crate::catalog::system::opclass_input(ty) == input),
            None => {
                return Err(Error::new(
                    "42704",
                    format!("operator class \"{name}\" does not exist for access method \"btree\""),
                ));
            }
        },
    };
    if !fits {
        return Err(Error::new(
            "42804",
            format!(
                "operator class \"{name}\" does not accept data type {}",
                SqlType::new(ty).display_name()
            ),
        ));
    }
    Ok(oid)
}

fn check_indexable(ty: SqlType) -> Result<()> {
    if indexable(ty.ty) {
        Ok(())
    } else {
        Err(Error::feature_not_supported(format!(
            "an index on a column of type {}",
            ty.display_name()
        )))
    }
}

/// A key's or foreign key's `(DEFERRABLE, INITIALLY DEFERRED)`; 42601 for NOT
/// DEFERRABLE INITIALLY DEFERRED.
pub(super) fn deferral(ch: &Option<A::ConstraintCharacteristics>) -> Result<(bool, bool)> {
    let Some(ch) = ch else {
        return Ok((false, false));
    };
    let deferred = ch.initially == Some(A::DeferrableInitial::Deferred);
    if deferred && ch.deferrable == Some(false) {
        return Err(Error::syntax(
            "constraint declared INITIALLY DEFERRED must be DEFERRABLE",
        ));
    }
    // INITIALLY DEFERRED alone implies DEFERRABLE.
    Ok((ch.deferrable.unwrap_or(false) || deferred, deferred))
}
