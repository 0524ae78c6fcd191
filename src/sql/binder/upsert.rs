//! INSERT … ON CONFLICT: which unique indexes arbitrate, and DO UPDATE's new row.
//!
//! The conflict target names the arbiter: a column list is matched to a unique index
//! over exactly those columns (PostgreSQL's inference; `42P10` if none), ON CONSTRAINT to
//! a key constraint by name. DO NOTHING without a target is arbitrated by every unique
//! index. DO UPDATE's SET expressions and WHERE read the existing row (by the table's
//! name or alias) and the proposed one (`excluded`); they are lowered over one batch
//! holding the existing row's columns followed by the proposed row's.

use super::*;
use crate::plan::{ConflictUpdate, OnConflict};

impl Binder<'_> {
    pub(super) fn bind_on_conflict(
        &mut self,
        on: Option<&A::OnInsert>,
        table: &Arc<TableEntry>,
        alias: Option<&str>,
    ) -> Result<Option<OnConflict>> {
        let Some(on) = on else { return Ok(None) };
        let A::OnInsert::OnConflict(oc) = on else {
            return Err(Error::feature_not_supported("ON DUPLICATE KEY UPDATE"));
        };
        // Partial unique indexes arbitrate only with a matching WHERE, which kiln does
        // not read yet: they are left out.
        let unique: Vec<usize> = (0..table.indexes.len())
            .filter(|&k| {
                table.indexes[k].index.unique && table.indexes[k].index.predicate.is_none()
            })
            .collect();
        let arbiters = match &oc.conflict_target {
            None => {
                if matches!(oc.action, A::OnConflictAction::DoUpdate(_)) {
                    return Err(Error::syntax(
                        "ON CONFLICT DO UPDATE requires inference specification or constraint name",
                    )
                    .with_hint("For example, ON CONFLICT (column_name)."));
                }
                unique
            }
            Some(A::ConflictTarget::Columns(cols)) if self.conflict_elements(cols).is_some() => {
                let elements = self.conflict_elements(cols).unwrap_or_default();
                self.infer_arbiters(table, &unique, &elements)?
            }
            Some(A::ConflictTarget::Columns(cols)) => {
                let mut wanted: Vec<usize> = Vec::with_capacity(cols.len());
                for c in cols {
                    let name = ident_name(c);
                    let i = table
                        .column_index(&name)
                        .ok_or_else(|| Error::undefined_column(&name))?;
                    if !wanted.contains(&i) {
                        wanted.push(i);
                    }
                }
                wanted.sort_unstable();
                let matching: Vec<usize> = unique
                    .into_iter()
                    .filter(|&k| {
                        let mut have: Vec<usize> = table.indexes[k]
                            .index
                            .parts
                            .iter()
                            .map(|p| p.column)
                            .collect();
                        have.sort_unstable();
                        have == wanted
                    })
                    .collect();
                if matching.is_empty() {
                    return Err(Error::new(
                        "42P10",
                        "there is no unique or exclusion constraint matching the ON CONFLICT specification",
                    ));
                }
                matching
            }
            Some(A::ConflictTarget::OnConstraint(name)) => {
                let name = object_name(name)?;
                match table
                    .indexes
                    .iter()
                    .position(|i| i.name == name && i.constraint.is_some())
                {
                    Some(k) => vec![k],
                    None => {
                        return Err(Error::new(
                            "42704",
                            format!(
                                "constraint \"{name}\" for table \"{}\" does not exist",
                                table.name
                            ),
                        ));
                    }
                }
            }
        };
        if arbiters.iter().any(|&k| table.indexes[k].deferrable) {
            return Err(Error::new(
                "55000",
                "ON CONFLICT does not support deferrable unique constraints/exclusion constraints as arbiters",
            )
            .on_table(&table.name, None, None));
        }
        let update = match &oc.action {
            A::OnConflictAction::DoNothing => None,
            A::OnConflictAction::DoUpdate(du) => Some(self.bind_conflict_update(du, table, alias)?),
        };
        Ok(Some(OnConflict { arbiters, update }))
    }

    /// The elements of a conflict target holding expressions, read back from the
    /// statement's text where `parse` left `_` in their place (None: a plain column
    /// list).
    fn conflict_elements(&self, cols: &[A::Ident]) -> Option<Vec<(A::Expr, Option<String>)>> {
        let [only] = cols else { return None };
        if only.value != "_" || only.quote_style.is_some() {
            return None;
        }
        let start = crate::sql::parse::byte_offset(self.text, only.span.start)?;
        let rest = self.text.get(start..)?;
        if rest.starts_with('_') {
            return None;
        }
        // Up to the parenthesis that closes the list.
        let mut depth = 0i32;
        let mut quote: Option<char> = None;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(') => depth += 1,
                (None, ')') => {
                    if depth == 0 {
                        end = i;
                        break;
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        let mut parser = sqlparser::parser::Parser::new(&dialect)
            .try_with_sql(&rest[..end])
            .ok()?;
        // Each element: an expression and, perhaps, an operator class.
        parser
            .parse_comma_separated(|p| {
                let e = p.parse_expr()?;
                let class = match p.peek_token().token {
                    sqlparser::tokenizer::Token::Word(_) => Some(p.parse_object_name(false)?),
                    _ => None,
                };
                Ok((e, class.map(|n| n.to_string())))
            })
            .ok()
    }

    /// The unique indexes (of `unique`) whose keys are exactly the conflict target's
    /// columns and expressions, in any order (PostgreSQL's inference; 42P10 if none).
    fn infer_arbiters(
        &mut self,
        table: &Arc<TableEntry>,
        unique: &[usize],
        elements: &[(A::Expr, Option<String>)],
    ) -> Result<Vec<usize>> {
        use crate::storage::index::KeyPart;
        // Each wanted column or expression, with the operator class named for it.
        let mut columns: Vec<(usize, Option<u32>)> = Vec::new();
        let mut exprs: Vec<(Expr, Option<u32>)> = Vec::new();
        for (e, class) in elements {
            let inner = match e {
                A::Expr::Nested(inner) => inner.as_ref(),
                other => other,
            };
            let bound = match inner {
                A::Expr::Identifier(id) => {
                    let name = ident_name(id);
                    let i = table
                        .column_index(&name)
                        .ok_or_else(|| Error::undefined_column(&name))?;
                    Expr::Column {
                        index: i,
                        name,
                        ty: table.columns[i].ty,
                    }
                }
                other => self.bind_inferred_expr(table, other)?,
            };
            let class = match class {
                Some(c) => {
                    let name = c.rsplit('.').next().unwrap_or(c).trim_matches('"');
                    Some(super::constraints::operator_class(name, bound.ty().ty)?)
                }
                None => None,
            };
            match bound {
                Expr::Column { index, .. } => columns.push((index, class)),
                bound => exprs.push((bound, class)),
            }
        }
        let unnamed = |e: &Expr| {
            let mut out = e.clone();
            fn walk(e: &mut Expr) {
                if let Expr::Column { name, .. } = e {
                    name.clear();
                }
                e.children_mut(&mut walk);
            }
            walk(&mut out);
            out
        };
        let wanted: Vec<(Expr, Option<u32>)> =
            exprs.iter().map(|(e, c)| (unnamed(e), *c)).collect();
        let class_fits = |p: &KeyPart, class: Option<u32>| class.is_none_or(|c| c == p.opclass);
        let covers = |k: usize| {
            let ix = &table.indexes[k].index;
            let part_expr = |p: &KeyPart| p.expression().and_then(|x| ix.exprs.get(x)).map(unnamed);
            let part_matches = |p: &KeyPart| match part_expr(p) {
                None => columns.iter().any(|&(c, _)| c == p.column),
                Some(e) => wanted.iter().any(|(w, _)| *w == e),
            };
            let has_column = |&(c, class): &(usize, Option<u32>)| {
                ix.parts
                    .iter()
                    .any(|p| p.table_column() == Some(c) && class_fits(p, class))
            };
            let has_expr = |(w, class): &(Expr, Option<u32>)| {
                ix.parts
                    .iter()
                    .any(|p| part_expr(p).is_some_and(|e| e == *w) && class_fits(p, *class))
            };
            ix.parts.iter().all(part_matches)
                && columns.iter().all(has_column)
                && wanted.iter().all(has_expr)
        };
        let matching: Vec<usize> = unique.iter().copied().filter(|&k| covers(k)).collect();
        if matching.is_empty() {
            return Err(Error::new(
                "42P10",
                "there is no unique or exclusion constraint matching the ON CONFLICT specification",
            ));
        }
        Ok(matching)
    }

    fn bind_conflict_update(
        &mut self,
        du: &A::DoUpdate,
        table: &Arc<TableEntry>,
        alias: Option<&str>,
    ) -> Result<ConflictUpdate> {
        let n = table.columns.len();
        let existing = self.new_rel();
        let proposed = self.new_rel();
        let qualifier = alias.unwrap_or(&table.name).to_string();
        let mut scope = row_scope(&table.columns, existing, &qualifier);
        scope
            .columns
            .extend(row_scope(&table.columns, proposed, "excluded").columns);
        // Unqualified names mean the existing row (the excluded columns are only found
        // qualified): PostgreSQL's scope for DO UPDATE.
        for c in scope.columns.iter_mut().skip(n) {
            c.hidden = true;
        }
        let mut new_row: Vec<Expr> = (0..n).map(|i| scope.columns[i].expr.clone()).collect();
        let mut assigned = vec![false; n];
        for a in &du.assignments {
            for (names, value) in super::dml::assignment_pairs(a)? {
                let (i, value) =
                    self.bind_assignment(table, names, value, &scope, &mut assigned)?;
                new_row[i] = value;
            }
        }
        let filter = self.bind_where(du.selection.as_ref(), &scope)?;
        let layout = crate::plan::lower::Layout {
            width: 2 * n,
            map: (0..n)
                .flat_map(|i| {
                    [
                        (ColumnId::new(existing, i as u32), i),
                        (ColumnId::new(proposed, i as u32), n + i),
                    ]
                })
                .collect(),
        };
        let mut lowerer = Lowerer::new();
        let exprs = new_row
            .iter()
            .map(|e| lowerer.expr(e, &layout))
            .collect::<Result<Vec<_>>>()?;
        let filter = filter.map(|f| lowerer.expr(&f, &layout)).transpose()?;
        Ok(ConflictUpdate { exprs, filter })
    }
}
