//! Catalog objects as SQL text: expressions, index and constraint definitions, views,
//! identifiers quoted as quote_ident quotes them.

use super::*;

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

/// A view's query as pg_get_viewdef prints it (PostgreSQL re-deparses the query; kiln
/// keeps the text it was created with).
pub(super) fn view_definition(sql: &str) -> String {
    format!(" {};", sql.trim().trim_end_matches(';'))
}

/// `CREATE [UNIQUE] INDEX name ON schema.table USING btree (cols)` (`schema`: None
/// when the table is visible without it, for the pretty form).
pub(super) fn index_def(t: &TableEntry, ix: &IndexEntry, schema: Option<&str>) -> String {
    format!(
        "CREATE {}INDEX {} ON {}{} USING btree ({}){}",
        if ix.index.unique { "UNIQUE " } else { "" },
        quote_ident(&ix.name),
        schema.map_or(String::new(), |s| format!("{}.", quote_ident(s))),
        quote_ident(&t.name),
        index_columns(t, ix),
        match &ix.index.predicate {
            Some(p) => format!(" WHERE {}", expr_sql(p)),
            None => String::new(),
        }
    )
}

pub fn index_columns(t: &TableEntry, ix: &IndexEntry) -> String {
    ix.index
        .parts
        .iter()
        .map(|p| {
            let name = t
                .columns
                .get(p.column)
                .map_or_else(String::new, |c| quote_ident(&c.name));
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
            format!("{name}{order}")
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
            let body = c.check.map(expr_sql).unwrap_or_default();
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
            let (pname, pcols) = match v.table(*parent) {
                Some(p) => (quote_ident(&p.name), column_list(p, pcols)),
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
