//! EXPLAIN: the chosen physical plan as PostgreSQL-like text or JSON.
//!
//! Each operator is one node, named as PostgreSQL names its counterpart (`Seq Scan on
//! t`, `Hash Join`, `Hash Left Join`, `Nested Loop`, `HashAggregate`, `Sort`, `Limit`
//! …), with the rows the optimizer expects (`rows=…`) and the conditions it applies on
//! their own lines. A hash join's build side is shown under a `Hash` node, as
//! PostgreSQL shows it. Subqueries that run as subplans follow the node that uses them
//! (`SubPlan 1`). EXPLAIN ANALYZE adds, per node, the rows it actually produced and
//! the time from the first call to its first row and to its end (milliseconds,
//! inclusive of its inputs).

use std::fmt::Write;

use super::logical::{JoinKind, SetOpKind};
use super::physical::{Op, Plan};
use crate::sql::expr::{BinaryOp, Expr, Func, SubPlan, SubqueryKind};
use crate::types::Value;
use crate::types::text::{TextFormat, value_to_string};

/// What EXPLAIN ANALYZE measured for one node (in the plan's pre-order).
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeActuals {
    pub rows: u64,
    pub first_ms: f64,
    pub total_ms: f64,
    pub loops: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplainFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug)]
pub struct ExplainOptions {
    pub format: ExplainFormat,
    /// Show the estimated rows.
    pub costs: bool,
}

/// One node as shown.
struct Node {
    name: String,
    /// PostgreSQL's "Node Type" (JSON), e.g. "Hash Join".
    kind: &'static str,
    join: Option<&'static str>,
    relation: Option<(String, String)>,
    rows: f64,
    details: Vec<(&'static str, String)>,
    actual: Option<NodeActuals>,
    children: Vec<Node>,
    subplans: Vec<(usize, Node)>,
    /// The subplans are a CTE's plan (shown as "CTE name").
    cte: bool,
}

/// Renders `plan`: one text line per element (TEXT), or one JSON document.
pub fn render(
    plan: &Plan,
    actuals: Option<&[NodeActuals]>,
    options: ExplainOptions,
) -> Vec<String> {
    let mut index = 0;
    let root = describe(plan, actuals, &mut index);
    match options.format {
        ExplainFormat::Text => {
            let mut lines = Vec::new();
            text(&root, 0, true, options, &mut lines);
            lines
        }
        ExplainFormat::Json => {
            let mut out = String::from("[\n  {\n    \"Plan\": ");
            json(&root, 4, options, &mut out);
            out.push_str("\n  }\n]");
            vec![out]
        }
    }
}

fn describe(plan: &Plan, actuals: Option<&[NodeActuals]>, index: &mut usize) -> Node {
    let actual = actuals.and_then(|a| a.get(*index).copied());
    *index += 1;
    let mut node = Node {
        name: String::new(),
        kind: "",
        join: None,
        relation: None,
        rows: plan.rows,
        details: Vec::new(),
        actual,
        children: Vec::new(),
        subplans: Vec::new(),
        cte: false,
    };
    let mut exprs: Vec<&Expr> = Vec::new();
    match &plan.op {
        Op::Scan {
            table,
            alias,
            index: Some(lookup),
            ..
        } => {
            let backward = lookup.order.as_ref().is_some_and(|o| o.reverse);
            node.kind = if backward {
                "Index Scan Backward"
            } else {
                "Index Scan"
            };
            node.name = format!(
                "{} using {} on {}",
                node.kind, lookup.index.name, table.name
            );
            if *alias != table.name {
                node.name.push(' ');
                node.name.push_str(alias);
            }
            node.relation = Some((table.name.clone(), alias.clone()));
            if let Some(c) = Expr::and_all(lookup.conds.clone()) {
                node.details.push(("Index Cond", show(&c)));
            }
            if let Some(f) = &lookup.residual {
                node.details.push(("Filter", show(f)));
                exprs.push(f);
            }
        }
        Op::Scan {
            table,
            alias,
            filter,
            ..
        } => {
            node.kind = "Seq Scan";
            node.name = format!("Seq Scan on {}", table.name);
            if *alias != table.name {
                node.name.push(' ');
                node.name.push_str(alias);
            }
            node.relation = Some((table.name.clone(), alias.clone()));
            if let Some(f) = filter {
                node.details.push(("Filter", show(f)));
                exprs.push(f);
            }
        }
        Op::Values { .. } => {
            node.kind = "Values Scan";
            node.name = "Values Scan".into();
        }
        Op::GenerateSeries {
            func: crate::plan::logical::TableFunc::System(t),
            ..
        } => {
            node.kind = "Seq Scan";
            node.name = format!("Seq Scan on {}", t.name());
        }
        Op::GenerateSeries { func, .. } => {
            node.kind = "Function Scan";
            node.name = format!("Function Scan on {}", func.name());
        }
        Op::Filter { predicate, .. } => {
            node.kind = "Result";
            node.name = "Result".into();
            node.details.push(("Filter", show(predicate)));
            exprs.push(predicate);
        }
        Op::Project { exprs: list, .. } => {
            node.kind = "Result";
            node.name = "Result".into();
            exprs.extend(list.iter());
        }
        Op::Aggregate { group_by, aggs, .. } => {
            if group_by.is_empty() {
                node.kind = "Aggregate";
                node.name = "Aggregate".into();
            } else {
                node.kind = "Aggregate";
                node.name = "HashAggregate".into();
                node.details.push(("Group Key", list(group_by)));
            }
            exprs.extend(group_by.iter());
            for a in aggs {
                exprs.extend(a.arg.iter());
                exprs.extend(a.extra.iter());
                exprs.extend(a.filter.iter());
            }
        }
        Op::DistinctOn { keys, .. } => {
            node.kind = "Unique";
            node.name = "Unique".into();
            node.details.push(("Key", list(keys)));
        }
        Op::Distinct { .. } => {
            node.kind = "Aggregate";
            node.name = "HashAggregate".into();
            node.details.push(("Group Key", "all columns".into()));
        }
        Op::Sort { keys, limit, input } => {
            node.kind = "Sort";
            node.name = "Sort".into();
            let labels = output_labels(input);
            let shown: Vec<String> = keys
                .iter()
                .map(|k| {
                    let mut s = labels
                        .get(k.column)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| format!("${}", k.column + 1));
                    if k.desc {
                        s.push_str(" DESC");
                    }
                    if k.nulls_first != k.desc {
                        s.push_str(if k.nulls_first {
                            " NULLS FIRST"
                        } else {
                            " NULLS LAST"
                        });
                    }
                    s
                })
                .collect();
            node.details.push(("Sort Key", shown.join(", ")));
            if limit.is_some() {
                node.details.push(("Sort Method", "top-N".into()));
            }
        }
        Op::Limit { .. } => {
            node.kind = "Limit";
            node.name = "Limit".into();
        }
        Op::LockRows { .. } => {
            node.kind = "LockRows";
            node.name = "LockRows".into();
        }
        Op::ProjectSet { calls, .. } => {
            node.kind = "ProjectSet";
            node.name = "ProjectSet".into();
            for c in calls {
                exprs.extend(c.args.iter());
            }
        }
        Op::Window { calls, .. } => {
            node.kind = "WindowAgg";
            node.name = "WindowAgg".into();
            for c in calls {
                exprs.extend(c.args.iter());
                exprs.extend(c.filter.iter());
            }
        }
        Op::Apply {
            kind,
            condition,
            right,
            ..
        } => {
            node.kind = "Nested Loop";
            node.join = Some(if *kind == JoinKind::Left {
                "Left"
            } else {
                "Inner"
            });
            node.name = if *kind == JoinKind::Left {
                "Nested Loop Left Join (lateral)".into()
            } else {
                "Nested Loop (lateral)".into()
            };
            if let Some(c) = condition {
                node.details.push(("Join Filter", show(c)));
            }
            let mut inner = 0;
            node.subplans.push((0, describe(right, None, &mut inner)));
        }
        Op::Append { .. } => {
            node.kind = "Append";
            node.name = "Append".into();
        }
        Op::SetOp { kind, all, .. } => {
            node.kind = "SetOp";
            let what = match kind {
                SetOpKind::Intersect => "Intersect",
                SetOpKind::Except => "Except",
                SetOpKind::Union => "Union",
            };
            node.name = format!("HashSetOp {what}{}", if *all { " All" } else { "" });
        }
        Op::CteScan { name, .. } => {
            node.kind = "CTE Scan";
            node.name = format!("CTE Scan on {name}");
        }
        Op::RecursiveUnion { .. } => {
            node.kind = "Recursive Union";
            node.name = "Recursive Union".into();
        }
        Op::WorkTableScan { name, .. } => {
            node.kind = "WorkTable Scan";
            node.name = format!("WorkTable Scan on {name}");
        }
        Op::Join {
            kind,
            left_keys,
            right_keys,
            residual,
            ..
        } => {
            let hashed = !left_keys.is_empty();
            let join = match kind {
                JoinKind::Inner => "Inner",
                JoinKind::Left | JoinKind::Single => "Left",
                JoinKind::Right => "Right",
                JoinKind::Full => "Full",
                JoinKind::Semi | JoinKind::Mark => "Semi",
                JoinKind::Anti | JoinKind::AntiNullAware => "Anti",
                JoinKind::RightSemi => "Right Semi",
                JoinKind::RightAnti => "Right Anti",
            };
            node.join = Some(join);
            node.kind = if hashed { "Hash Join" } else { "Nested Loop" };
            node.name = match (hashed, *kind) {
                (true, JoinKind::Inner) => "Hash Join".into(),
                (true, _) => format!("Hash {join} Join"),
                (false, JoinKind::Inner) => "Nested Loop".into(),
                (false, _) => format!("Nested Loop {join} Join"),
            };
            if *kind == JoinKind::AntiNullAware {
                node.name.push_str(" (null-aware)");
            }
            if *kind == JoinKind::Single {
                node.name.push_str(" (single row)");
            }
            if hashed {
                let conds: Vec<String> = left_keys
                    .iter()
                    .zip(right_keys)
                    .map(|(l, r)| format!("({} = {})", show_inner(l), show_inner(r)))
                    .collect();
                node.details.push(("Hash Cond", conds.join(" AND ")));
            }
            if let Some(r) = residual {
                node.details.push(("Join Filter", show(r)));
                exprs.push(r);
            }
        }
    }
    let inputs = plan.inputs();
    if let Op::CteScan { id, plan: cte, .. } = &plan.op {
        let mut inner = 0;
        node.subplans
            .push((*id as usize, describe(cte, None, &mut inner)));
        node.cte = true;
    }
    let hashed_join = matches!(&plan.op, Op::Join { left_keys, .. } if !left_keys.is_empty());
    for (i, input) in inputs.into_iter().enumerate() {
        let child = describe(input, actuals, index);
        if hashed_join && i == 1 {
            node.children.push(Node {
                name: "Hash".into(),
                kind: "Hash",
                join: None,
                relation: None,
                rows: child.rows,
                details: Vec::new(),
                actual: child.actual,
                children: vec![child],
                subplans: Vec::new(),
                cte: false,
            });
        } else {
            node.children.push(child);
        }
    }
    for e in exprs {
        collect_subplans(e, &mut node.subplans);
    }
    node
}

fn collect_subplans(e: &Expr, out: &mut Vec<(usize, Node)>) {
    if let Expr::SubPlan(sp) = e {
        let mut index = 0;
        out.push((sp.id + 1, describe(&sp.plan, None, &mut index)));
    }
    e.children(&mut |c| collect_subplans(c, out));
}

fn text(node: &Node, depth: usize, root: bool, options: ExplainOptions, lines: &mut Vec<String>) {
    // PostgreSQL: a child line is "->  Name" indented six more than its parent's
    // text; detail lines sit two spaces in from the node's name.
    let (prefix, detail_indent) = if root {
        (String::new(), 2)
    } else {
        let pad = " ".repeat(depth * 6 - 4);
        (format!("{pad}->  "), depth * 6 + 2)
    };
    let mut line = format!("{prefix}{}", node.name);
    if options.costs {
        let _ = write!(line, "  (rows={})", node.rows.round().max(1.0) as u64);
    }
    if let Some(a) = node.actual {
        let _ = write!(
            line,
            " (actual time={:.3}..{:.3} rows={} loops={})",
            a.first_ms, a.total_ms, a.rows, a.loops
        );
    }
    lines.push(line);
    let pad = " ".repeat(detail_indent);
    for (k, v) in &node.details {
        lines.push(format!("{pad}{k}: {v}"));
    }
    for (n, sub) in &node.subplans {
        if node.cte {
            lines.push(format!("{pad}CTE"));
        } else {
            lines.push(format!("{pad}SubPlan {n}"));
        }
        let mut inner = Vec::new();
        text(sub, 1, false, options, &mut inner);
        for l in inner {
            lines.push(format!("{}{l}", " ".repeat(detail_indent)));
        }
    }
    for c in &node.children {
        text(c, depth + 1, false, options, lines);
    }
}

fn json(node: &Node, indent: usize, options: ExplainOptions, out: &mut String) {
    let pad = " ".repeat(indent + 2);
    out.push_str("{\n");
    let mut fields: Vec<(String, String)> = vec![("Node Type".into(), quote(node.kind))];
    if let Some(j) = node.join {
        fields.push(("Join Type".into(), quote(j)));
    }
    if let Some((rel, alias)) = &node.relation {
        fields.push(("Relation Name".into(), quote(rel)));
        fields.push(("Alias".into(), quote(alias)));
    }
    if options.costs {
        fields.push((
            "Plan Rows".into(),
            (node.rows.round().max(1.0) as u64).to_string(),
        ));
    }
    if let Some(a) = node.actual {
        fields.push(("Actual Startup Time".into(), format!("{:.3}", a.first_ms)));
        fields.push(("Actual Total Time".into(), format!("{:.3}", a.total_ms)));
        fields.push(("Actual Rows".into(), a.rows.to_string()));
        fields.push(("Actual Loops".into(), a.loops.to_string()));
    }
    for (k, v) in &node.details {
        fields.push(((*k).to_string(), quote(v)));
    }
    let mut parts: Vec<String> = fields
        .into_iter()
        .map(|(k, v)| format!("{pad}{}: {v}", quote(&k)))
        .collect();
    if !node.children.is_empty() {
        let mut plans = format!("{pad}\"Plans\": [\n");
        for (i, c) in node.children.iter().enumerate() {
            plans.push_str(&" ".repeat(indent + 4));
            json(c, indent + 4, options, &mut plans);
            if i + 1 < node.children.len() {
                plans.push(',');
            }
            plans.push('\n');
        }
        plans.push_str(&format!("{pad}]"));
        parts.push(plans);
    }
    out.push_str(&parts.join(",\n"));
    out.push('\n');
    out.push_str(&" ".repeat(indent));
    out.push('}');
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn list(exprs: &[Expr]) -> String {
    exprs.iter().map(show_inner).collect::<Vec<_>>().join(", ")
}

/// An expression as a condition line shows it: parenthesized, as PostgreSQL does.
/// How EXPLAIN names each output column of `plan` (`None` where it has no better name
/// than its position): table columns as `alias.column`, projections as their
/// expressions.
fn output_labels(plan: &Plan) -> Vec<Option<String>> {
    match &plan.op {
        Op::Scan { table, alias, .. } => table
            .columns
            .iter()
            .map(|c| Some(format!("{alias}.{}", c.name)))
            .collect(),
        Op::Project { exprs, .. } => exprs.iter().map(|e| Some(show_inner(e))).collect(),
        Op::Filter { input, .. }
        | Op::Sort { input, .. }
        | Op::Limit { input, .. }
        | Op::LockRows { input, .. } => output_labels(input),
        Op::Join {
            left, right, kind, ..
        } => {
            let mut labels = if kind.emits_left() {
                output_labels(left)
            } else {
                Vec::new()
            };
            if kind.emits_right() || !kind.emits_left() {
                labels.extend(output_labels(right));
            }
            labels
        }
        _ => Vec::new(),
    }
}

/// An expression as SQL text, as pg_get_expr prints a stored one.
pub fn expr_sql(e: &Expr) -> String {
    show_inner(e)
}

/// A column reference as PostgreSQL deparses it: each part of a qualified name quoted
/// where it needs to be (`"Key"`, `t."Odd"`).
fn column_name(name: &str) -> String {
    name.split('.')
        .map(crate::catalog::system::quote_ident)
        .collect::<Vec<_>>()
        .join(".")
}

fn show(e: &Expr) -> String {
    let s = show_inner(e);
    if s.starts_with('(') {
        s
    } else {
        format!("({s})")
    }
}

fn show_inner(e: &Expr) -> String {
    match e {
        Expr::Column { name, index, .. } => {
            if name.is_empty() {
                format!("${}", index + 1)
            } else {
                column_name(name)
            }
        }
        Expr::ColumnRef { name, .. } => column_name(name),
        Expr::OuterParam { slot, .. } => format!("$outer{}", slot + 1),
        Expr::Param { index, .. } => format!("${}", index + 1),
        Expr::Literal { value, ty } => match value {
            Value::Null => "NULL".into(),
            Value::Bool(b) => (if *b { "true" } else { "false" }).into(),
            // A configuration prints by its name, as PostgreSQL's deparser has it.
            Value::Int8(o) if ty.ty == crate::types::DataType::RegConfig => {
                match crate::types::tsearch::dict::CONFIGS
                    .iter()
                    .find(|c| i64::from(c.0) == *o)
                {
                    Some(c) => format!("'{}'::regconfig", c.1),
                    None => format!("'{o}'::regconfig"),
                }
            }
            Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Numeric(_) => {
                let s = value_to_string(value, &TextFormat::default());
                // A leading minus would read as an operator: PostgreSQL quotes it.
                if s.starts_with('-') {
                    format!("'{s}'::{}", ty.display_name())
                } else {
                    s
                }
            }
            other => format!(
                "'{}'::{}",
                value_to_string(other, &TextFormat::default()).replace('\'', "''"),
                // character without a length is bpchar to format_type with a typmod
                // given (it is not character(1)).
                if ty.ty == crate::types::DataType::Bpchar && ty.typmod < 0 {
                    "bpchar".to_string()
                } else {
                    ty.display_name()
                }
            ),
        },
        Expr::Negate { expr, .. } => format!("(- {})", show_inner(expr)),
        Expr::Binary {
            op, left, right, ..
        } => format!(
            "({} {} {})",
            show_inner(left),
            op.symbol(),
            show_inner(right)
        ),
        Expr::And(list) | Expr::Or(list) => {
            let word = if matches!(e, Expr::And(_)) {
                " AND "
            } else {
                " OR "
            };
            format!(
                "({})",
                list.iter().map(show_inner).collect::<Vec<_>>().join(word)
            )
        }
        Expr::Not(x) => format!("(NOT {})", show_inner(x)),
        Expr::IsNull { expr, negated } => format!(
            "({} IS {}NULL)",
            show_inner(expr),
            if *negated { "NOT " } else { "" }
        ),
        Expr::IsBool {
            expr,
            value,
            negated,
        } => format!(
            "({} IS {}{})",
            show_inner(expr),
            if *negated { "NOT " } else { "" },
            if *value { "TRUE" } else { "FALSE" }
        ),
        Expr::IsDistinct {
            left,
            right,
            negated,
        } => format!(
            "({} IS {}DISTINCT FROM {})",
            show_inner(left),
            if *negated { "NOT " } else { "" },
            show_inner(right)
        ),
        Expr::InList {
            expr,
            list,
            negated,
        } => format!(
            "({} {}IN ({}))",
            show_inner(expr),
            if *negated { "NOT " } else { "" },
            list.iter().map(show_inner).collect::<Vec<_>>().join(", ")
        ),
        Expr::Like {
            expr,
            pattern,
            negated,
            case_insensitive,
        } => {
            let op = match (negated, case_insensitive) {
                (false, false) => "~~",
                (true, false) => "!~~",
                (false, true) => "~~*",
                (true, true) => "!~~*",
            };
            format!("({} {op} {})", show_inner(expr), show_inner(pattern))
        }
        Expr::Case {
            whens, else_result, ..
        } => {
            let mut s = String::from("CASE");
            for (c, r) in whens {
                let _ = write!(s, " WHEN {} THEN {}", show_inner(c), show_inner(r));
            }
            if let Some(x) = else_result {
                let _ = write!(s, " ELSE {}", show_inner(x));
            }
            s.push_str(" END");
            s
        }
        Expr::Cast { expr, to, .. } => format!("({})::{}", show_inner(expr), to.display_name()),
        // `@?` and `@@` carry the path functions' default vars and silent along.
        Expr::Func { func, args, .. }
            if func.operator_symbol().is_some()
                && (args.len() == 2 || matches!(func, Func::JsonbPathFn { op: true, .. })) =>
        {
            let symbol = func.operator_symbol().unwrap_or("?");
            format!(
                "({} {symbol} {})",
                show_inner(&args[0]),
                show_inner(&args[1])
            )
        }
        Expr::Func {
            func: Func::Ts(crate::sql::expr::TsFn::Not),
            args,
            ..
        } if args.len() == 1 => format!("(!! {})", show_inner(&args[0])),
        Expr::Func { func, args, .. } => {
            let name = match func {
                Func::Ts(f) => f.sql_name(),
                _ => func.info().names.first().copied().unwrap_or("?"),
            };
            // The calls SQL spells as keywords print as PostgreSQL's deparser has them.
            let name = match name {
                "coalesce" | "nullif" | "greatest" | "least" => name.to_uppercase(),
                other => other.to_string(),
            };
            format!(
                "{name}({})",
                args.iter().map(show_inner).collect::<Vec<_>>().join(", ")
            )
        }
        Expr::Agg { index, .. } => format!("agg{index}"),
        Expr::Window { index, .. } => format!("window{index}"),
        Expr::Unused { .. } => "(unused)".into(),
        Expr::Subquery(_) => "(subquery)".into(),
        Expr::SubPlan(sp) => show_subplan(sp),
    }
}

fn show_subplan(sp: &SubPlan) -> String {
    let n = sp.id + 1;
    match &sp.kind {
        SubqueryKind::Scalar => format!("(SubPlan {n})"),
        SubqueryKind::Exists => format!("(EXISTS SubPlan {n})"),
        SubqueryKind::Array => format!("ARRAY(SubPlan {n})"),
        SubqueryKind::Any { left, op, .. }
        | SubqueryKind::All { left, op, .. }
        | SubqueryKind::Row { left, op, .. } => {
            let quant = match sp.kind {
                SubqueryKind::Any { .. } => "ANY ",
                SubqueryKind::All { .. } => "ALL ",
                _ => "",
            };
            let hashed = sp.params.is_empty()
                && *op == BinaryOp::Eq
                && left.len() == 1
                && matches!(sp.kind, SubqueryKind::Any { .. });
            format!(
                "({} {} {quant}({}SubPlan {n}))",
                list(left),
                op.symbol(),
                if hashed { "hashed " } else { "" }
            )
        }
    }
}
