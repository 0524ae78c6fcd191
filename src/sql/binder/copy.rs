//! Binding COPY: the statement `sql::copy_syntax` read becomes a COPY FROM (a table,
//! the columns the data fills, options, an optional WHERE over the row) or a COPY TO
//! (a query plan and options), with PostgreSQL's checks in its order: the relation,
//! then the options, then the column lists.

use super::*;
use crate::copy::options::{self, ForceQuote};
use crate::sql::copy_syntax::{self, CopySource, CopyTarget};

impl Binder<'_> {
    /// `text` is `<position> <statement after COPY>` (see `sql::parse`).
    pub(super) fn bind_copy(&mut self, text: &str) -> Result<BoundStatement> {
        let (position, rest) = text.split_once(' ').unwrap_or(("1", text));
        let base = position.parse::<u32>().unwrap_or(1);
        let stmt = copy_syntax::parse(rest, base)?;
        let file = match &stmt.target {
            CopyTarget::Client => None,
            CopyTarget::File(path) => Some(crate::copy::ServerEnd::File(path.clone())),
            CopyTarget::Program(cmd) => Some(crate::copy::ServerEnd::Program(cmd.clone())),
        };
        match stmt.source {
            CopySource::Query(q) => {
                let q = match *q {
                    A::Statement::Query(q) if q.locks.is_empty() && dml_free(&q) => q,
                    A::Statement::Insert(A::Insert {
                        returning: None, ..
                    })
                    | A::Statement::Update(A::Update {
                        returning: None, ..
                    })
                    | A::Statement::Delete(A::Delete {
                        returning: None, ..
                    }) => {
                        return Err(Error::new(
                            "0A000",
                            "COPY query must have a RETURNING clause",
                        ));
                    }
                    A::Statement::Query(_)
                    | A::Statement::Insert(_)
                    | A::Statement::Update(_)
                    | A::Statement::Delete(_) => {
                        return Err(Error::feature_not_supported(
                            "COPY of a data-modifying or locking query",
                        ));
                    }
                    _ => return Err(Error::syntax("syntax error at or near \"(\"")),
                };
                // Positions from the inner query's spans would count from its own
                // text; without them, names are found in the statement's text.
                let unplaced = |mut e: Error| {
                    e.position = None;
                    e
                };
                let (plan, columns) = self.bind_query(&q).map_err(unplaced)?;
                let plan = self.finish_plan(plan).map_err(unplaced)?;
                let options = options::process(&stmt.options, false)?;
                let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
                let force_quote = force_quote_flags(&options.force_quote, &names, None)?;
                Ok(BoundStatement::CopyTo {
                    plan,
                    columns,
                    options,
                    force_quote,
                    file,
                })
            }
            CopySource::Table { name, columns } => {
                let table = self.table(&name).map_err(Error::without_position)?;
                self.need(
                    &table,
                    if stmt.from {
                        crate::catalog::acl::Privs::INSERT
                    } else {
                        crate::catalog::acl::Privs::SELECT
                    },
                );
                let kind = if table.view.is_some() {
                    Some("view")
                } else if table.sequence.is_some() {
                    Some("sequence")
                } else {
                    None
                };
                if let Some(kind) = kind {
                    return Err(if stmt.from {
                        let e = Error::new(
                            "42809",
                            format!("cannot copy to {kind} \"{}\"", table.name),
                        );
                        if kind == "view" {
                            e.with_hint(
                                "To enable copying to a view, provide an INSTEAD OF INSERT trigger.",
                            )
                        } else {
                            e
                        }
                    } else {
                        Error::new(
                            "42809",
                            format!("cannot copy from {kind} \"{}\"", table.name),
                        )
                        .with_hint("Try the COPY (SELECT ...) TO variant.")
                    });
                }
                let options = options::process(&stmt.options, stmt.from)?;
                let targets = self.copy_columns(&table, &columns)?;
                let names: Vec<String> = targets
                    .iter()
                    .map(|&i| table.columns[i].name.clone())
                    .collect();
                let flags = |list: &[String], what: &str| -> Result<Vec<bool>> {
                    let mut flags = vec![false; targets.len()];
                    for n in list {
                        let i = column_of(&table, n)?;
                        let k = targets.iter().position(|&t| t == i).ok_or_else(|| {
                            Error::new(
                                "42P10",
                                format!("{what} column \"{n}\" not referenced by COPY"),
                            )
                        })?;
                        flags[k] = true;
                    }
                    Ok(flags)
                };
                if stmt.from {
                    let force_not_null = flags(&options.force_not_null, "FORCE_NOT_NULL")?;
                    let force_null = flags(&options.force_null, "FORCE_NULL")?;
                    let filter = match &stmt.where_clause {
                        Some(w) => Some(self.bind_copy_where(&table, w)?),
                        None => None,
                    };
                    return Ok(BoundStatement::CopyFrom {
                        table,
                        columns: targets,
                        options,
                        force_not_null,
                        force_null,
                        filter,
                        file,
                    });
                }
                let force_quote =
                    force_quote_flags(&options.force_quote, &names, Some((&table, &targets)))?;
                // The rows: a query over the listed columns.
                let list = names
                    .iter()
                    .map(|n| quote_ident(n))
                    .collect::<Vec<_>>()
                    .join(", ");
                let sql = format!("SELECT {list} FROM {name}");
                let parsed = crate::sql::parse::parse(&sql)?;
                let Some(A::Statement::Query(q)) = parsed.first() else {
                    return Err(Error::internal("COPY's query did not parse"));
                };
                let (plan, columns) = self.bind_query(q)?;
                let plan = self.finish_plan(plan)?;
                Ok(BoundStatement::CopyTo {
                    plan,
                    columns,
                    options,
                    force_quote,
                    file,
                })
            }
        }
    }

    /// The table columns a COPY names (all but generated ones when none are named).
    fn copy_columns(&self, table: &TableEntry, columns: &[A::Ident]) -> Result<Vec<usize>> {
        if columns.is_empty() {
            return Ok((0..table.columns.len())
                .filter(|&i| table.columns[i].generated.is_none())
                .collect());
        }
        let mut out = Vec::with_capacity(columns.len());
        for c in columns {
            let name = ident_name(c);
            let i = column_of(table, &name)?;
            if table.columns[i].generated.is_some() {
                return Err(Error::new(
                    "42P10",
                    format!("column \"{name}\" is a generated column"),
                )
                .with_detail("Generated columns cannot be used in COPY."));
            }
            if out.contains(&i) {
                return Err(Error::new(
                    "42701",
                    format!("column \"{name}\" specified more than once"),
                ));
            }
            out.push(i);
        }
        Ok(out)
    }

    /// COPY FROM … WHERE: a condition over the table's row, lowered to its positions.
    fn bind_copy_where(&mut self, table: &TableEntry, expr: &A::Expr) -> Result<Expr> {
        let rel = self.new_rel();
        let scope = row_scope(&table.columns, rel, &table.name);
        let saved = self.agg_forbidden_in.replace("COPY FROM WHERE conditions");
        let bound = self.bind_expr(expr, &scope);
        self.agg_forbidden_in = saved;
        let bound = bound?;
        if bound.any(&|x| matches!(x, Expr::Subquery(_))) {
            return Err(Error::feature_not_supported(
                "subquery in COPY FROM WHERE condition",
            ));
        }
        if bound.any(&|x| matches!(x, Expr::Agg { .. })) {
            return Err(Error::grouping(
                "aggregate functions are not allowed in COPY FROM WHERE conditions",
            ));
        }
        let bound = self.require_bool(bound, "WHERE")?;
        let layout = row_layout(rel, table.columns.len());
        crate::plan::lower::Lowerer::new().expr(&bound, &layout)
    }
}

/// A query with no INSERT/UPDATE/DELETE in its body.
fn dml_free(q: &A::Query) -> bool {
    !matches!(
        q.body.as_ref(),
        A::SetExpr::Insert(_) | A::SetExpr::Update(_) | A::SetExpr::Delete(_)
    )
}

fn column_of(table: &TableEntry, name: &str) -> Result<usize> {
    table.column_index(name).ok_or_else(|| {
        Error::new(
            "42703",
            format!(
                "column \"{name}\" of relation \"{}\" does not exist",
                table.name
            ),
        )
        .without_position()
    })
}

/// FORCE_QUOTE as a flag per output column. For a table the names must be its
/// columns (42703) and among those copied (42P10); for a query, among its outputs.
fn force_quote_flags(
    force: &ForceQuote,
    names: &[String],
    table: Option<(&TableEntry, &[usize])>,
) -> Result<Vec<bool>> {
    match force {
        ForceQuote::None => Ok(vec![false; names.len()]),
        ForceQuote::All => Ok(vec![true; names.len()]),
        ForceQuote::Columns(list) => {
            let mut flags = vec![false; names.len()];
            for n in list {
                if let Some((t, _)) = table {
                    column_of(t, n)?;
                }
                let k = names
                    .iter()
                    .position(|c| c == n)
                    .ok_or_else(|| match table {
                        Some(_) => Error::new(
                            "42P10",
                            format!("FORCE_QUOTE column \"{n}\" not referenced by COPY"),
                        ),
                        None => Error::new("42703", format!("column \"{n}\" does not exist")),
                    })?;
                flags[k] = true;
            }
            Ok(flags)
        }
    }
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
