//! Catalog objects as SQL text: expressions, index and constraint definitions, views,
//! identifiers quoted as quote_ident quotes them.

use super::*;
use crate::catalog::ColumnDef;

/// An expression as pg_get_expr prints it: an implicit cast around the whole is not
/// shown (PostgreSQL's deparser hides implicit coercions).
pub fn expr_sql(e: &Expr) -> String {
    expr_sql_named(e, &|_| None)
}

/// [`expr_sql`], with `names` giving a relation's name for its oid (a SERIAL column's
/// `nextval('name'::regclass)`, whose sequence the default holds by oid).
pub fn expr_sql_named(e: &Expr, names: &dyn Fn(u32) -> Option<String>) -> String {
    if let Some(oid) = e.nextval_oid() {
        let name = names(oid).unwrap_or_else(|| oid.to_string());
        return format!("nextval('{}'::regclass)", name.replace('\'', "''"));
    }
    let call = match e {
        Expr::Cast {
            expr,
            explicit: false,
            ..
        } => expr.as_ref(),
        other => other,
    };
    // `DEFAULT nextval('s')` as written: kiln keeps the name as text and looks it up
    // when the default runs; PostgreSQL stores a regclass and prints it so.
    if let Expr::Func {
        func: Func::NextVal,
        args,
        ..
    } = call
        && let [
            Expr::Literal {
                value: Value::Text(seq),
                ..
            },
        ] = args.as_slice()
    {
        return format!("nextval('{}'::regclass)", seq.replace('\'', "''"));
    }
    crate::plan::explain::expr_sql(call)
}

/// `e` (over a table's columns by position) with each column named as the table
/// names it now: a stored expression keeps the names it was bound with, and a
/// column renamed since must print by its new name.
pub fn with_current_names(e: &Expr, columns: &[ColumnDef]) -> Expr {
    let mut out = e.clone();
    fn walk(e: &mut Expr, columns: &[ColumnDef]) {
        if let Expr::Column { index, name, .. } = e
            && let Some(c) = columns.get(*index)
        {
            name.clone_from(&c.name);
        }
        e.children_mut(&mut |c| walk(c, columns));
    }
    walk(&mut out, columns);
    out
}

/// A view's query as pg_get_viewdef prints it (PostgreSQL re-deparses the query; kiln
/// keeps the text it was created with).
pub(super) fn view_definition(sql: &str) -> String {
    format!(" {};", sql.trim().trim_end_matches(';'))
}

/// `CREATE [UNIQUE] INDEX name ON schema.table USING btree (cols)` (`schema`: None
/// when the table is visible without it, for the pretty form).
pub(super) fn index_def(t: &TableEntry, ix: &IndexEntry, schema: Option<&str>) -> String {
    format!(
        "CREATE {}INDEX {} ON {}{} USING btree ({}){}{}",
        if ix.index.unique { "UNIQUE " } else { "" },
        quote_ident(&ix.name),
        schema.map_or(String::new(), |s| format!("{}.", quote_ident(s))),
        quote_ident(&t.name),
        index_columns(t, ix),
        index_options(ix),
        match &ix.index.predicate {
            Some(p) => format!(" WHERE {}", expr_sql(&with_current_names(p, &t.columns))),
            None => String::new(),
        }
    )
}

/// ` WITH (fillfactor='70')`: an index's storage parameters as its definition shows
/// them (a value quoted unless it reads as a plain name), or nothing.
pub fn index_options(ix: &IndexEntry) -> String {
    if ix.options.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = ix
        .options
        .iter()
        .map(|(n, v)| {
            let plain = v
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
                && v.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if plain {
                format!("{n}={v}")
            } else {
                format!("{n}='{}'", v.replace('\'', "''"))
            }
        })
        .collect();
    format!(" WITH ({})", shown.join(", "))
}

/// Whether `e` prints as a call (`lower(name)`, `COALESCE(a, b)`), which an index
/// definition shows without the parentheses other expressions get (PostgreSQL's
/// looks_like_function).
fn prints_as_call(e: &Expr, text: &str) -> Option<String> {
    if !matches!(e, Expr::Func { .. }) {
        return None;
    }
    let open = text.find('(')?;
    let name = &text[..open];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    // The call's parenthesis must be the one that closes the text.
    let mut depth = 0i32;
    let mut in_string = false;
    for (i, ch) in text.char_indices().skip(open) {
        match ch {
            '\'' => in_string = !in_string,
            '(' if !in_string => depth += 1,
            ')' if !in_string => {
                depth -= 1;
                if depth == 0 {
                    return (i == text.len() - 1).then(|| name.to_lowercase());
                }
            }
            _ => {}
        }
    }
    None
}

/// The name PostgreSQL gives an index column holding expression `e` (over
/// `columns`): a call's function name, a cast's operand's, a column's own, else
/// "expr" (FigureIndexColname).
pub fn expr_column_name(e: &Expr, columns: &[ColumnDef]) -> String {
    match e {
        Expr::Column { index, name, .. } => columns
            .get(*index)
            .map_or_else(|| name.clone(), |c| c.name.clone()),
        Expr::Cast { expr, .. } => expr_column_name(expr, columns),
        other => prints_as_call(other, &expr_sql(other)).unwrap_or_else(|| "expr".into()),
    }
}

/// `names` made distinct as PostgreSQL names an index's columns: a repeated name
/// gets the first free number appended (`expr`, `expr1`, `expr2`).
pub fn distinct_names(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        let mut candidate = name.clone();
        let mut n = 0;
        while out.contains(&candidate) {
            n += 1;
            candidate = format!("{name}{n}");
        }
        out.push(candidate);
    }
    out
}

/// The names of index `ix`'s columns (its pg_attribute rows).
pub fn index_column_names(t: &TableEntry, ix: &IndexEntry) -> Vec<String> {
    distinct_names(
        ix.index
            .parts
            .iter()
            .map(|p| match p.expression() {
                Some(k) => ix
                    .index
                    .exprs
                    .get(k)
                    .map_or_else(|| "expr".into(), |e| expr_column_name(e, &t.columns)),
                None => t
                    .columns
                    .get(p.column)
                    .map_or_else(String::new, |c| c.name.clone()),
            })
            .collect(),
    )
}

/// Key part `k` of index `ix` as its definition shows it: a column's quoted name, a
/// call as printed, any other expression in parentheses (`pretty`: as
/// pg_get_indexdef(index, column, true) shows one column: the inside without an
/// operator's outer parentheses).
pub fn index_key_sql(t: &TableEntry, ix: &IndexEntry, k: usize, pretty: bool) -> String {
    let Some(p) = ix.index.parts.get(k) else {
        return String::new();
    };
    match p.expression().and_then(|e| ix.index.exprs.get(e)) {
        None => t
            .columns
            .get(p.column)
            .map_or_else(String::new, |c| quote_ident(&c.name)),
        Some(e) => {
            let e = &with_current_names(e, &t.columns);
            let text = expr_sql(e);
            if prints_as_call(e, &text).is_some() {
                return text;
            }
            let text = if pretty { pretty_sql(e, text) } else { text };
            format!("({text})")
        }
    }
}

/// `text` (expression `e` printed) as the pretty printer shows it: an operator at the
/// top without its parentheses, a cast of a column without the column's.
fn pretty_sql(e: &Expr, text: String) -> String {
    match e {
        Expr::Binary { .. } if text.starts_with('(') && text.ends_with(')') => {
            let inner = &text[1..text.len() - 1];
            // Only if those parentheses are a pair (not `(a) + (b)`).
            let mut depth = 0i32;
            let paired = inner.chars().all(|c| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth >= 0
            });
            if paired {
                strip_column_cast_parens(inner)
            } else {
                text
            }
        }
        Expr::Cast { expr, .. } if matches!(**expr, Expr::Column { .. }) => {
            strip_column_cast_parens(&text)
        }
        _ => text,
    }
}

/// `(a)::text` as `a::text`, wherever a parenthesized plain name is cast.
fn strip_column_cast_parens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        if bytes[i] == b'('
            && let Some(close) = text[i + 1..].find(')')
        {
            let name = &text[i + 1..i + 1 + close];
            let after = i + 1 + close + 1;
            if !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && text[after..].starts_with("::")
            {
                out.push_str(name);
                i = after;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

pub fn index_columns(t: &TableEntry, ix: &IndexEntry) -> String {
    ix.index
        .parts
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let name = index_key_sql(t, ix, k, false);
            let order = match (p.desc, p.nulls_first) {
                (false, false) | (true, true) => "",
                (true, false) => " DESC NULLS LAST",
                (false, true) => " NULLS FIRST",
            };
            let order = if p.desc && p.nulls_first {
                " DESC"
            } else {
                order
            };
            let class = match super::rows::PATTERN_OPCLASSES
                .iter()
                .find(|o| o.0 == p.opclass)
            {
                Some(o) if p.opclass != 0 => format!(" {}", o.1),
                _ => String::new(),
            };
            format!("{name}{class}{order}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A name as PostgreSQL's quote_ident writes it.
pub fn quote_ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '$')
        && !is_keyword(name);
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

pub(super) fn column_list(t: &TableEntry, cols: &[usize]) -> String {
    cols.iter()
        .map(|c| {
            t.columns
                .get(*c)
                .map_or_else(String::new, |c| quote_ident(&c.name))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A referential action as SQL (None for NO ACTION, the default).
pub fn fk_action_sql(a: FkAction) -> Option<&'static str> {
    match a {
        FkAction::NoAction => None,
        FkAction::Restrict => Some("RESTRICT"),
        FkAction::Cascade => Some("CASCADE"),
        FkAction::SetNull => Some("SET NULL"),
        FkAction::SetDefault => Some("SET DEFAULT"),
    }
}

pub(super) fn constraint_def(v: &View, c: &Constraint, pretty: bool) -> String {
    let mut s = match c.kind {
        'p' => format!("PRIMARY KEY ({})", column_list(c.table, &c.columns)),
        'u' => {
            let nnd = c
                .table
                .indexes
                .iter()
                .find(|i| i.oid == c.index)
                .is_some_and(|i| i.index.nulls_not_distinct);
            format!(
                "UNIQUE {}({})",
                if nnd { "NULLS NOT DISTINCT " } else { "" },
                column_list(c.table, &c.columns)
            )
        }
        'c' => {
            let body = c
                .check
                .map(|e| expr_sql(&with_current_names(e, &c.table.columns)))
                .unwrap_or_default();
            if pretty {
                format!("CHECK {body}")
            } else {
                format!("CHECK ({body})")
            }
        }
        _ => {
            let Some((parent, pcols, upd, del)) = &c.foreign else {
                return String::new();
            };
            // The referenced table qualified with its schema when the search path
            // would not find it, as pg_get_constraintdef prints it.
            let (pname, pcols) = match v.table(*parent) {
                Some(p) => (
                    v.relation_name(p.namespace, &p.name, p.oid),
                    column_list(p, pcols),
                ),
                None => (String::new(), String::new()),
            };
            let mut s = format!(
                "FOREIGN KEY ({}) REFERENCES {}({})",
                column_list(c.table, &c.columns),
                pname,
                pcols
            );
            if let Some(a) = fk_action_sql(*upd) {
                s.push_str(&format!(" ON UPDATE {a}"));
            }
            if let Some(a) = fk_action_sql(*del) {
                s.push_str(&format!(" ON DELETE {a}"));
            }
            s
        }
    };
    if c.deferrable {
        s.push_str(" DEFERRABLE");
    }
    if c.deferred {
        s.push_str(" INITIALLY DEFERRED");
    }
    s
}

/// The keywords quote_ident quotes: every one PostgreSQL does not list as unreserved.
pub(super) const KEYWORDS: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "system_user",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
];

pub(super) fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}
