//! The FROM clause: tables, table functions and the scope they make visible.

use super::*;

impl Binder<'_> {
    pub(super) fn bind_from(&mut self, from: &[A::TableWithJoins]) -> Result<(Plan, Scope)> {
        match from {
            [] => Ok((
                Plan::Values {
                    rows: vec![vec![]],
                    types: vec![],
                },
                Scope::default(),
            )),
            [twj] if twj.joins.is_empty() => self.bind_table_factor(&twj.relation),
            _ => {
                // Name a missing table first, as PostgreSQL would, then refuse the join.
                for twj in from {
                    self.bind_table_factor(&twj.relation)?;
                    for j in &twj.joins {
                        self.bind_table_factor(&j.relation)?;
                    }
                }
                Err(Error::feature_not_supported(
                    "JOIN and multiple tables in FROM",
                ))
            }
        }
    }

    pub(super) fn bind_table_factor(&mut self, factor: &A::TableFactor) -> Result<(Plan, Scope)> {
        match factor {
            A::TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => {
                let table = self.table(name)?;
                let qualifier = match alias {
                    Some(a) => {
                        if !a.columns.is_empty() {
                            return Err(Error::feature_not_supported("column aliases in FROM"));
                        }
                        ident_name(&a.name)
                    }
                    None => table.name.clone(),
                };
                let scope = Scope {
                    columns: table
                        .columns
                        .iter()
                        .map(|c| ScopeColumn {
                            qualifier: Some(qualifier.clone()),
                            name: c.name.clone(),
                            ty: c.ty,
                        })
                        .collect(),
                };
                Ok((
                    Plan::Scan {
                        table,
                        filter: None,
                        row_ids: false,
                        needed: None,
                    },
                    scope,
                ))
            }
            A::TableFactor::Table {
                name,
                alias,
                args: Some(args),
                ..
            } => {
                let fname = object_name(name)?;
                if fname != "generate_series" {
                    return Err(Error::undefined_function(format!(
                        "function {fname} does not exist"
                    )));
                }
                let empty = Scope::default();
                let mut bound = Vec::new();
                for a in &args.args {
                    bound.push(self.bind_function_arg(a, &empty)?);
                }
                if !(2..=3).contains(&bound.len()) {
                    return Err(Error::undefined_function(
                        "function generate_series does not exist",
                    ));
                }
                let ty = {
                    let refs: Vec<&Expr> = bound.iter().collect();
                    let t = common_type(&refs, "generate_series")?;
                    match t.ty {
                        DataType::Int2 | DataType::Int4 | DataType::Unknown => INT4,
                        DataType::Int8 => INT8,
                        DataType::Numeric => {
                            return Err(Error::feature_not_supported(
                                "generate_series over numeric",
                            ));
                        }
                        DataType::Timestamp | DataType::Timestamptz => {
                            return Err(Error::feature_not_supported(
                                "generate_series over timestamps",
                            ));
                        }
                        _ => {
                            return Err(Error::undefined_function(format!(
                                "function generate_series({}) does not exist",
                                bound
                                    .iter()
                                    .map(|b| b.ty().display_name())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )));
                        }
                    }
                };
                let args = bound
                    .into_iter()
                    .map(|b| self.coerce(b, ty))
                    .collect::<Result<Vec<_>>>()?;
                let (qualifier, colname) = match alias {
                    Some(a) => {
                        let q = ident_name(&a.name);
                        let c = a
                            .columns
                            .first()
                            .map(|c| ident_name(&c.name))
                            .unwrap_or_else(|| q.clone());
                        (q, c)
                    }
                    None => ("generate_series".to_string(), "generate_series".to_string()),
                };
                let scope = Scope {
                    columns: vec![ScopeColumn {
                        qualifier: Some(qualifier),
                        name: colname,
                        ty,
                    }],
                };
                Ok((Plan::GenerateSeries { args, ty }, scope))
            }
            A::TableFactor::Derived { .. } => {
                Err(Error::feature_not_supported("subqueries in FROM"))
            }
            A::TableFactor::NestedJoin { .. } => Err(Error::feature_not_supported("JOIN")),
            _ => Err(Error::feature_not_supported("this FROM item")),
        }
    }
}
