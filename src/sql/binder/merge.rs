//! MERGE (PostgreSQL 15): the target joined to the source, each joined row's action.
//!
//! `MERGE INTO t USING s ON cond WHEN …` binds to one plan: the source LEFT JOIN the
//! target (reading its row ids) on `cond`, projected to `[action, row id, the new row
//! an UPDATE would store, the row an INSERT would store]`. `action` is the number of
//! the first WHEN clause that applies to the row (1-based; 0: none) — WHEN MATCHED
//! clauses for rows that found a target row, WHEN NOT MATCHED for those that did not —
//! and the two payloads are CASEs over the same conditions, so a clause's expressions
//! (and its defaults: a SERIAL's nextval) run only for the rows it acts on, as in
//! PostgreSQL. `session::merge` runs the plan once and stores what it says.
//!
//! Scopes are PostgreSQL's: ON, WHEN MATCHED conditions and UPDATE SET see the target
//! and the source (a name both have is ambiguous); WHEN NOT MATCHED sees the source
//! only (the target's name there is 42P01, "invalid reference to FROM-clause entry").

use super::dml::{dml_target, refuse_identity_value, row_id_ref};
use super::*;
use crate::catalog::acl::Privs;
use crate::plan::MergeAction;

/// A WHEN clause bound: its whole condition (matched or not, and its AND), the row
/// its UPDATE stores, the row its INSERT stores.
type Arm = (Expr, Option<Vec<Expr>>, Option<Vec<Expr>>);

impl Binder<'_> {
    pub(super) fn bind_merge(&mut self, m: &A::Merge) -> Result<BoundStatement> {
        // PostgreSQL 15's MERGE has no RETURNING.
        match &m.output {
            Some(A::OutputClause::Returning { .. }) => {
                return Err(Error::syntax("syntax error at or near \"RETURNING\""));
            }
            Some(_) => return Err(Error::syntax("syntax error at or near \"OUTPUT\"")),
            None => {}
        }
        if m.clauses.is_empty() {
            return Err(Error::syntax("syntax error at end of input"));
        }
        if let A::TableFactor::Table { name, .. } = &m.table
            && let Some(super::schemas::Found::Relation(t)) = self.find_relation(name)?
            && t.view.is_some()
        {
            return Err(Error::new(
                "0A000",
                format!("cannot execute MERGE on relation \"{}\"", t.name),
            )
            .with_detail("This operation is not supported for views."));
        }
        let mark = self.access.len();
        let (plan, tscope) = self.bind_table_factor(&m.table)?;
        let (table, get) = dml_target(plan, "MERGE into")?;
        let target_name = tscope
            .columns
            .first()
            .and_then(|c| c.qualifier.clone())
            .unwrap_or_else(|| table.name.clone());
        let n = table.columns.len();
        let row_id = row_id_ref(&get, n);
        let (source, sscope) = self.bind_table_factor(&m.source)?;
        super::from::check_duplicate_aliases(&tscope, &sscope)?;
        let mut both = sscope.clone();
        both.columns.extend(tscope.columns.iter().cloned());
        let on = self.bind_expr(&m.on, &both)?;
        let on = self.require_bool(on, "JOIN/ON")?;
        let target_rel = match &row_id {
            Expr::ColumnRef { id, .. } => id.rel,
            _ => 0,
        };
        let matched = Expr::IsNull {
            expr: Box::new(row_id.clone()),
            negated: true,
        };
        let unmatched = Expr::IsNull {
            expr: Box::new(row_id.clone()),
            negated: false,
        };
        let mut actions: Vec<MergeAction> = Vec::with_capacity(m.clauses.len());
        let mut arms: Vec<Arm> = Vec::new();
        let mut unconditional = [false, false];
        let mut needs = Privs::NONE;
        let mut reads_target = false;
        for clause in &m.clauses {
            let is_matched = match clause.clause_kind {
                A::MergeClauseKind::Matched => true,
                A::MergeClauseKind::NotMatched => false,
                A::MergeClauseKind::NotMatchedByTarget | A::MergeClauseKind::NotMatchedBySource => {
                    return Err(Error::syntax("syntax error at or near \"BY\""));
                }
            };
            let kind = usize::from(!is_matched);
            if unconditional[kind] {
                return Err(Error::syntax(
                    "unreachable WHEN clause specified after unconditional WHEN clause",
                ));
            }
            let scope = if is_matched { &both } else { &sscope };
            let condition = match &clause.predicate {
                Some(p) => {
                    let saved = self.agg_forbidden_in.replace("MERGE WHEN conditions");
                    let bound = self.bind_expr(p, scope);
                    self.agg_forbidden_in = saved;
                    let bound = bound.map_err(|e| invalid_reference(e, &target_name))?;
                    reads_target |= reads_rel(&bound, target_rel);
                    Some(self.require_bool(bound, "WHEN")?)
                }
                None => {
                    unconditional[kind] = true;
                    None
                }
            };
            let full = match condition {
                Some(c) => Expr::And(vec![
                    if is_matched {
                        matched.clone()
                    } else {
                        unmatched.clone()
                    },
                    c,
                ]),
                None => {
                    if is_matched {
                        matched.clone()
                    } else {
                        unmatched.clone()
                    }
                }
            };
            match (&clause.action, is_matched) {
                (A::MergeAction::Update(u), true) => {
                    let A::MergeUpdateKind::Set(assignments) = &u.kind else {
                        return Err(Error::syntax("syntax error at or near \"*\""));
                    };
                    needs = needs | Privs::UPDATE;
                    let mut new_row: Vec<Expr> =
                        tscope.columns.iter().map(|c| c.expr.clone()).collect();
                    let mut assigned = vec![false; n];
                    for a in assignments {
                        for (names, value) in super::dml::assignment_pairs(a)? {
                            let (i, value) =
                                self.bind_assignment(&table, names, value, &both, &mut assigned)?;
                            reads_target |= reads_rel(&value, target_rel);
                            new_row[i] = value;
                        }
                    }
                    actions.push(MergeAction::Update);
                    arms.push((full, Some(new_row), None));
                }
                (A::MergeAction::Delete { .. }, true) => {
                    needs = needs | Privs::DELETE;
                    actions.push(MergeAction::Delete);
                    arms.push((full, None, None));
                }
                (A::MergeAction::Insert(ins), false) => {
                    needs = needs | Privs::INSERT;
                    let row = self.bind_merge_insert(&table, ins, &sscope, &target_name)?;
                    actions.push(MergeAction::Insert);
                    arms.push((full, None, Some(row)));
                }
                (A::MergeAction::DoNothing { .. }, _) => {
                    actions.push(MergeAction::Nothing);
                    arms.push((full, None, None));
                }
                (A::MergeAction::Update(_), false) => {
                    return Err(Error::syntax("syntax error at or near \"UPDATE\""));
                }
                (A::MergeAction::Delete { .. }, false) => {
                    return Err(Error::syntax("syntax error at or near \"DELETE\""));
                }
                (A::MergeAction::Insert(_), true) => {
                    return Err(Error::syntax("syntax error at or near \"INSERT\""));
                }
            }
        }
        self.target_needs(mark, &table, needs);
        if reads_target || reads_rel(&on, target_rel) {
            self.need(&table, Privs::SELECT);
        }
        // [action, row id, UPDATE's row…, INSERT's row…]
        let int4 = SqlType::new(DataType::Int4);
        let case = |values: Vec<(Expr, Expr)>, ty: SqlType| Expr::Case {
            whens: values,
            else_result: Some(Box::new(Expr::Literal {
                value: Value::Null,
                ty,
            })),
            ty,
        };
        let mut exprs = Vec::with_capacity(2 + 2 * n);
        exprs.push(case(
            arms.iter()
                .enumerate()
                .map(|(k, (cond, _, _))| {
                    (
                        cond.clone(),
                        Expr::Literal {
                            value: Value::Int4(k as i32 + 1),
                            ty: int4,
                        },
                    )
                })
                .collect(),
            int4,
        ));
        exprs.push(row_id);
        for payload in [1usize, 2] {
            for c in 0..n {
                let ty = table.columns[c].ty;
                let null = Expr::Literal {
                    value: Value::Null,
                    ty,
                };
                let whens = arms
                    .iter()
                    .map(|(cond, update, insert)| {
                        let row = if payload == 1 { update } else { insert };
                        let value = row.as_ref().map_or_else(|| null.clone(), |r| r[c].clone());
                        (cond.clone(), value)
                    })
                    .collect();
                exprs.push(case(whens, ty));
            }
        }
        let join = LogicalPlan::Join {
            left: Box::new(source),
            right: Box::new(get),
            kind: JoinKind::Left,
            on,
            mark: None,
        };
        let rel = self.new_rel();
        let source = self.finish_plan(LogicalPlan::Project {
            input: Box::new(join),
            rel,
            exprs,
        })?;
        Ok(BoundStatement::Merge {
            table,
            source,
            actions,
        })
    }

    /// WHEN NOT MATCHED THEN INSERT [(columns)] { VALUES (…) | DEFAULT VALUES }: the
    /// whole row to store, defaults filling what is not given.
    fn bind_merge_insert(
        &mut self,
        table: &Arc<TableEntry>,
        ins: &A::MergeInsertExpr,
        scope: &Scope,
        target_name: &str,
    ) -> Result<Vec<Expr>> {
        let n = table.columns.len();
        let mut targets: Vec<usize> = Vec::with_capacity(ins.columns.len());
        for c in &ins.columns {
            let cname = object_name(c)?;
            let i = table.column_index(&cname).ok_or_else(|| {
                Error::new(
                    "42703",
                    format!(
                        "column \"{cname}\" of relation \"{}\" does not exist",
                        table.name
                    ),
                )
            })?;
            if targets.contains(&i) {
                return Err(Error::new(
                    "42701",
                    format!("column \"{cname}\" specified more than once"),
                ));
            }
            targets.push(i);
        }
        let values: &[A::Expr] = match &ins.kind {
            A::MergeInsertKind::Values(v) => match v.rows.as_slice() {
                [row] => row,
                _ => return Err(Error::syntax("syntax error at or near \",\"")),
            },
            // `*` stands where `sql::parse` found DEFAULT VALUES.
            A::MergeInsertKind::Wildcard if self.written_default(ins) => {
                return (0..table.columns.len())
                    .map(|i| self.default_expr(table, i))
                    .collect();
            }
            A::MergeInsertKind::Wildcard => {
                return Err(Error::syntax("syntax error at or near \"*\""));
            }
            _ => return Err(Error::syntax("syntax error at or near \"ROW\"")),
        };
        let targets: Vec<usize> = if ins.columns.is_empty() {
            (0..n.min(values.len())).collect()
        } else {
            targets
        };
        if values.len() > targets.len() {
            return Err(Error::syntax(
                "INSERT has more expressions than target columns",
            ));
        }
        if values.len() < targets.len() {
            return Err(Error::syntax(
                "INSERT has more target columns than expressions",
            ));
        }
        let mut row: Vec<Option<Expr>> = vec![None; n];
        for (e, &col) in values.iter().zip(&targets) {
            let bound = if is_default_keyword(e) {
                self.default_expr(table, col)?
            } else {
                refuse_identity_value(&table.columns[col])?;
                let b = self
                    .bind_expr(e, scope)
                    .map_err(|err| invalid_reference(err, target_name))?;
                let coerced = self.coerce_column(b, &table.columns[col]);
                coerced.map_err(|err| self.locate(err, e))?
            };
            row[col] = Some(bound);
        }
        row.into_iter()
            .enumerate()
            .map(|(i, e)| match e {
                Some(e) => Ok(e),
                None => self.default_expr(table, i),
            })
            .collect()
    }
}

impl Binder<'_> {
    /// Whether the statement's text says DEFAULT VALUES where `sql::parse` put the
    /// `*` of `_ins` (`INSERT *` itself is not PostgreSQL's).
    fn written_default(&self, _ins: &A::MergeInsertExpr) -> bool {
        crate::sql::parse::merge_default_values(self.text).is_some()
    }
}

/// Whether `e` reads a column of relation `rel`.
fn reads_rel(e: &Expr, rel: RelId) -> bool {
    e.any(&|x| matches!(x, Expr::ColumnRef { id, .. } if id.rel == rel))
}

/// The target named where only the source is visible: PostgreSQL's message for it.
fn invalid_reference(e: Error, target: &str) -> Error {
    if e.code == "42P01" && e.message == format!("missing FROM-clause entry for table \"{target}\"")
    {
        return Error::new(
            "42P01",
            format!("invalid reference to FROM-clause entry for table \"{target}\""),
        )
        .with_hint(format!(
            "There is an entry for table \"{target}\", but it cannot be referenced from this part of the query."
        ));
    }
    e
}
