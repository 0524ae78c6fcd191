//! The functions over catalog objects (pg_get_*def, format_type, pg_table_is_visible,
//! …) and the oid aliases' name input and output.

use super::*;

/// Evaluates a catalog function row by row.
pub fn eval_function(
    func: Func,
    args: &[Vector],
    arg_types: &[SqlType],
    n: usize,
    ty: SqlType,
    ctx: &ExecContext,
) -> Result<Vector> {
    let mut out = Vector::with_capacity(ty.ty, n);
    let row = |i: usize| -> Vec<Value> {
        args.iter()
            .zip(arg_types)
            .map(|(a, t)| a.value(i, t.ty))
            .collect()
    };
    // Pure functions are folded at bind time, where no catalog view exists.
    let pure_function = matches!(
        func,
        Func::PgSizePretty | Func::PgEncodingToChar | Func::PgCharToEncoding
    );
    let v = if pure_function {
        None
    } else {
        Some(View::new(ctx)?)
    };
    for i in 0..n {
        let value = match &v {
            Some(v) => call(v, func, &row(i))?,
            None => pure(func, &row(i)),
        };
        out.push_value(&value);
    }
    Ok(out)
}

pub(super) fn arg_oid(vals: &[Value], k: usize) -> Option<u32> {
    vals.get(k).and_then(Value::as_i64).map(|v| v as u32)
}

pub(super) fn call(v: &View, func: Func, vals: &[Value]) -> Result<Value> {
    // Strict functions: NULL in, NULL out.
    if func != Func::CurrentSchemas && vals.first().is_some_and(Value::is_null) {
        return Ok(NULL);
    }
    let pretty = matches!(vals.last(), Some(Value::Bool(true)));
    Ok(match func {
        Func::StatCounter => Value::Int8(0),
        Func::BlockingPids => {
            let pid = vals.first().and_then(Value::as_i64).unwrap_or(0) as i32;
            let mut pids: Vec<i32> = match &v.ctx.backends {
                Some((_, backends, _)) => backends
                    .owner_of_pid(pid)
                    .map(|owner| v.db.txns.blockers(owner))
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|o| backends.pid_of_owner(o))
                    .collect(),
                None => Vec::new(),
            };
            pids.sort_unstable();
            pids.dedup();
            let values: Vec<Value> = pids.into_iter().map(Value::Int4).collect();
            array(DataType::Int4, &values)
        }
        Func::StatTuples(live) => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            match v.table(o) {
                Some(t) if live => Value::Int8(crate::catalog::stats::live_rows(&t.storage) as i64),
                Some(t) => Value::Int8(t.storage.dead_rows() as i64),
                None => Value::Int8(0),
            }
        }
        Func::PgTableIsVisible => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            match SystemTable::by_oid(o) {
                Some(t) => boolean(t.schema_oid() == PG_CATALOG_OID),
                None => {
                    let found = v
                        .table(o)
                        .map(|t| (t.namespace, t.name.clone()))
                        .or_else(|| v.index(o).map(|(t, i)| (t.namespace, i.name.clone())));
                    match found {
                        Some((_, name)) => boolean(v.visible(&name, o)),
                        None => NULL,
                    }
                }
            }
        }
        // Built-in types are in pg_catalog, always searched; a user-defined type (or its
        // array type) is visible when the search path finds it by its name.
        Func::PgTypeIsVisible => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            let user =
                v.db.catalog
                    .visible_user_types(&v.ctx.snapshot)
                    .into_iter()
                    .find(|t| t.oid == o || t.array_oid == o);
            match user {
                None => boolean(true),
                Some(t) => {
                    let found =
                        v.ctx.search_path.search.iter().find_map(|&ns| {
                            v.db.catalog.user_type_named(ns, &t.name, &v.ctx.snapshot)
                        });
                    boolean(found.is_some_and(|f| f.oid == t.oid))
                }
            }
        }
        Func::MyTempSchema => oid(v.ctx.search_path.temp.unwrap_or(0)),
        Func::IsOtherTempSchema => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            boolean(
                Some(o) != v.ctx.search_path.temp
                    && v.namespaces.iter().any(|n| n.oid == o && n.is_temp()),
            )
        }
        Func::PgGetUserById => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            text(
                v.role_name(o)
                    .unwrap_or_else(|| format!("unknown (OID={o})")),
            )
        }
        Func::FormatType => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            let typmod = vals.get(1).and_then(Value::as_i64).unwrap_or(-1) as i32;
            match DataType::from_oid(o) {
                Some(t) => text(SqlType::with_typmod(t, typmod).display_name()),
                None => user_type_out(v, o).map_or_else(|| text("???"), text),
            }
        }
        // Expressions are kept as their SQL text.
        Func::PgGetExpr => vals[0].clone(),
        Func::PgGetIndexDef => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            let column = vals.get(1).and_then(Value::as_i64).unwrap_or(0);
            match v.index(o) {
                Some((t, ix)) if column == 0 => {
                    let schema = v.schema_for_def(t, pretty);
                    text(index_def(t, ix, schema.as_deref()))
                }
                Some((t, ix)) => match usize::try_from(column - 1) {
                    Ok(k) if k < ix.index.parts.len() => {
                        text(super::index_key_sql(t, ix, k, pretty))
                    }
                    _ => text(""),
                },
                None => NULL,
            }
        }
        Func::PgGetConstraintDef => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            match constraints(v).iter().find(|c| c.oid == o) {
                Some(c) => text(constraint_def(v, c, pretty)),
                // A domain's check: its expression keeps its parentheses unless
                // pretty-printed (as PostgreSQL's does).
                None => domain_checks(v)
                    .into_iter()
                    .find(|c| c.0 == o)
                    .map_or(NULL, |c| {
                        if pretty {
                            let inner =
                                c.4.strip_prefix("CHECK (")
                                    .and_then(|s| s.strip_suffix(')'));
                            text(format!("CHECK {}", inner.unwrap_or(&c.4)))
                        } else {
                            text(c.4)
                        }
                    }),
            }
        }
        Func::PgGetViewDef => {
            let t = match &vals[0] {
                Value::Text(name) => v.tables.iter().find(|t| &t.name == name),
                other => other.as_i64().and_then(|o| v.table(o as u32)),
            };
            match t.and_then(|t| t.view.as_ref()) {
                Some(view) => text(view_definition(&view.sql)),
                None => NULL,
            }
        }
        Func::ObjDescription => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            let catalog = match vals.get(1) {
                Some(Value::Text(c)) => c.as_str(),
                _ => "",
            };
            if catalog == "pg_extension" || catalog.is_empty() {
                // An extension's comment is its control file's.
                let extension =
                    v.db.catalog
                        .visible_extensions(&v.ctx.snapshot)
                        .into_iter()
                        .find(|e| e.oid == o);
                if let Some(e) = extension {
                    return Ok(crate::catalog::extension::available(&e.name)
                        .map_or(NULL, |a| text(a.comment)));
                }
            }
            let is_schema = v.namespace_name(o).is_some();
            if (catalog == "pg_namespace" || catalog.is_empty()) && is_schema {
                return Ok(v
                    .db
                    .catalog
                    .comment(o, "")
                    .or_else(|| rows::namespace_comment(o).map(String::from))
                    .map_or(NULL, text));
            }
            match v
                .db
                .catalog
                .comment(o, "")
                .filter(|_| catalog != "pg_namespace")
            {
                Some(c) if catalog.is_empty() || catalog == "pg_class" => text(c),
                _ => NULL,
            }
        }
        Func::ColDescription => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            let attnum = vals.get(1).and_then(Value::as_i64).unwrap_or(0);
            let column = v
                .table(o)
                .and_then(|t| t.columns.get(usize::try_from(attnum - 1).ok()?))
                .map(|c| c.name.clone());
            match column.and_then(|c| v.db.catalog.comment(o, &c)) {
                Some(c) => text(c),
                None => NULL,
            }
        }
        Func::ShobjDescription => NULL,
        Func::PgRelationIsPublishable => boolean(false),
        Func::PgGetTriggerDef | Func::PgGetStatisticsObjDefColumns => NULL,
        Func::PgGetFunctionInfo => NULL,
        Func::PgEncodingToChar | Func::PgCharToEncoding | Func::PgSizePretty => pure(func, vals),
        Func::RelationSize | Func::IndexesSize | Func::TotalRelationSize => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            let (table, index) = match (v.table(o), v.index(o)) {
                (Some(t), _) => (Some(t), None),
                (None, Some((_, ix))) => (None, Some(ix)),
                (None, None) => return Ok(NULL),
            };
            let indexes = |t: &TableEntry| t.indexes.iter().map(|i| i.index.bytes()).sum::<u64>();
            let bytes = match (func, table, index) {
                (_, None, Some(ix)) if func != Func::IndexesSize => ix.index.bytes(),
                (_, None, Some(_)) => 0,
                (Func::RelationSize, Some(t), _) => t.storage.bytes(),
                (Func::IndexesSize, Some(t), _) => indexes(t),
                (_, Some(t), _) => t.storage.bytes() + indexes(t),
                _ => 0,
            };
            Value::Int8(bytes as i64)
        }
        Func::DatabaseSize => Value::Int8(
            v.tables
                .iter()
                .map(|t| t.storage.bytes() + t.indexes.iter().map(|i| i.index.bytes()).sum::<u64>())
                .sum::<u64>() as i64,
        ),
        Func::CurrentSchema => {
            let path = &v.ctx.search_path;
            match path.explicit.first().and_then(|&o| v.namespace_name(o)) {
                Some(n) => text(n),
                None => NULL,
            }
        }
        Func::CurrentSchemas => {
            let implicit = matches!(vals.first(), Some(Value::Bool(true)));
            let path = &v.ctx.search_path;
            let list = if implicit {
                &path.search
            } else {
                &path.explicit
            };
            let names: Vec<Value> = list
                .iter()
                .filter_map(|&o| v.namespace_name(o))
                .map(text)
                .collect();
            array(DataType::Name, &names)
        }
        Func::HasPrivilege(of) => has_privilege(v, of, vals)?,
        Func::RegOut(t) => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            text(reg_out(v, t, o))
        }
        Func::ToReg(t) => match &vals[0] {
            Value::Text(s) => match reg_in(v, t, s) {
                Ok(o) => oid(o),
                Err(_) => NULL,
            },
            _ => NULL,
        },
        Func::RegIn(t) => match &vals[0] {
            Value::Text(s) => oid(reg_in(v, t, s)?),
            _ => NULL,
        },
        _ => return Err(Error::internal("not a catalog function")),
    })
}

/// The text form of an oid alias: the object's name, or the number when nothing has it.
pub(super) fn reg_out(v: &View, t: DataType, o: u32) -> String {
    let name = match t {
        DataType::RegClass => SystemTable::by_oid(o)
            .map(|s| v.relation_name(s.schema_oid(), s.name(), o))
            .or_else(|| v.table(o).map(|t| v.relation_name(t.namespace, &t.name, o)))
            .or_else(|| {
                v.index(o)
                    .map(|(t, i)| v.relation_name(t.namespace, &i.name, o))
            }),
        DataType::RegType => DataType::from_oid(o)
            .map(|t| SqlType::new(t).display_name())
            .or_else(|| user_type_out(v, o))
            .or_else(|| {
                // Pseudo-types the catalogs name (operator classes' input types).
                match o {
                    2276 => Some("\"any\"".to_string()),
                    2277 => Some("anyarray".to_string()),
                    2283 => Some("anyelement".to_string()),
                    _ => None,
                }
            }),
        DataType::RegNamespace => v.namespace_name(o).map(quote_ident),
        DataType::RegDictionary => crate::types::tsearch::dict::Dictionary::all()
            .find(|d| d.oid() == o)
            .map(|d| d.name().to_string()),
        DataType::RegConfig => crate::types::tsearch::dict::CONFIGS
            .iter()
            .find(|c| c.0 == o)
            .map(|c| c.1.to_string()),
        DataType::RegRole => v.role_name(o),
        DataType::RegProc => defs::io_function_name(o).map(String::from),
        DataType::RegProcedure => defs::io_function_name(o)
            .map(|n| format!("{n}({})", defs::io_signature(n).replace(", ", ","))),
        _ => None,
    };
    match (name, t, o) {
        (Some(n), _, _) => n,
        (
            None,
            DataType::RegClass | DataType::RegType | DataType::RegProc | DataType::RegProcedure,
            0,
        ) => "-".into(),
        (None, _, o) => o.to_string(),
    }
}

/// An oid alias read from text: a number, or the name of an object that exists.
pub(super) fn reg_in(v: &View, t: DataType, s: &str) -> Result<u32> {
    if t == DataType::RegRole && crate::types::text::parse_oid(s).is_err() {
        let s = s.trim();
        return v
            .roles()
            .into_iter()
            .find(|r| r.1 == s)
            .map(|r| r.0)
            .ok_or_else(|| Error::undefined_object(format!("role \"{s}\" does not exist")));
    }
    match resolve_name(&v.db.catalog, &v.ctx.snapshot, &v.ctx.search_path, t, s)? {
        Some(o) => Ok(o),
        None => Err(Error::feature_not_supported(format!(
            "{} input by name",
            t.name()
        ))),
    }
}

/// regclass (regtype, regnamespace) input at bind time, for a literal (`'t'::regclass`),
/// as PostgreSQL's parser resolves it; None for what only the executor resolves.
pub fn reg_in_at_bind(
    catalog: &crate::catalog::Catalog,
    snapshot: &crate::storage::mvcc::Snapshot,
    path: &crate::catalog::namespace::SearchPath,
    t: DataType,
    s: &str,
) -> Result<Option<u32>> {
    if crate::types::text::parse_oid(s).is_ok() {
        return resolve_name(catalog, snapshot, path, t, s);
    }
    if !matches!(
        t,
        DataType::RegClass
            | DataType::RegType
            | DataType::RegNamespace
            | DataType::RegProc
            | DataType::RegProcedure
            | DataType::RegConfig
            | DataType::RegDictionary
    ) {
        return Ok(None);
    }
    resolve_name(catalog, snapshot, path, t, s)
}

/// The oid `s` names as an object of alias type `t` (a number is itself): a relation
/// along the search path (or in the schema it names), a type, a schema; None for an
/// alias whose names live elsewhere (regrole, regproc).
pub(super) fn resolve_name(
    catalog: &crate::catalog::Catalog,
    snapshot: &crate::storage::mvcc::Snapshot,
    path: &crate::catalog::namespace::SearchPath,
    t: DataType,
    s: &str,
) -> Result<Option<u32>> {
    if let Ok(o) = crate::types::text::parse_oid(s) {
        return Ok(Some(o as u32));
    }
    let s = s.trim();
    match t {
        DataType::RegClass => {
            let parts = crate::catalog::sequence::relation_name_parts(s)?;
            let (schema, rel) = match parts.as_slice() {
                [rel] => (None, rel.as_str()),
                [schema, rel] => (Some(schema.as_str()), rel.as_str()),
                _ => {
                    return Err(Error::new(
                        "42601",
                        format!("improper relation name (too many dotted names): {s}"),
                    ));
                }
            };
            let search: Vec<u32> = match schema {
                Some("pg_temp") => path.temp.into_iter().collect(),
                Some(n) => match catalog.namespace(n, snapshot) {
                    Some(ns) => vec![ns.oid],
                    None => {
                        return Err(Error::new(
                            "3F000",
                            format!("schema \"{n}\" does not exist"),
                        ));
                    }
                },
                None => path.search.clone(),
            };
            for ns in search {
                let system = match ns {
                    PG_CATALOG_OID => SystemTable::lookup(None, rel),
                    INFORMATION_SCHEMA_OID => SystemTable::lookup(Some("information_schema"), rel),
                    _ => None,
                };
                if let Some(st) = system {
                    return Ok(Some(st.oid()));
                }
                if let Some(t) = catalog.table(ns, rel, snapshot) {
                    return Ok(Some(t.oid));
                }
                if let Some(owner) = catalog.index_owner(ns, rel, snapshot)
                    && let Some(ix) = owner.index_named(rel)
                {
                    return Ok(Some(ix.oid));
                }
            }
            Err(Error::undefined_table(s))
        }
        DataType::RegType => {
            if let Ok(ty) = parse_type_name(s) {
                return Ok(Some(ty.ty.oid()));
            }
            user_type_in(catalog, snapshot, path, s)?
                .map(Some)
                .ok_or_else(|| Error::undefined_object(format!("type \"{s}\" does not exist")))
        }
        DataType::RegDictionary => {
            let parts = crate::catalog::sequence::relation_name_parts(s)?;
            let name = match parts.as_slice() {
                [n] => n.as_str(),
                [schema, n] if schema == "pg_catalog" => n.as_str(),
                [_, _] => "",
                _ => return Err(Error::new("42601", "invalid name syntax")),
            };
            if let Some(d) =
                crate::types::tsearch::dict::Dictionary::all().find(|d| d.name() == name)
            {
                return Ok(Some(d.oid()));
            }
            // PostgreSQL's other snowball dictionaries exist there, not in kiln.
            let known = name.strip_suffix("_stem").is_some_and(|lang| {
                lang != "simple"
                    && crate::types::tsearch::dict::CONFIGS
                        .iter()
                        .any(|c| c.1 == lang)
            });
            Err(if known {
                Error::feature_not_supported(format!("text search dictionary \"{name}\""))
            } else {
                Error::undefined_object(format!("text search dictionary \"{s}\" does not exist"))
            })
        }
        DataType::RegConfig => {
            let parts = crate::catalog::sequence::relation_name_parts(s)?;
            let name = match parts.as_slice() {
                [n] => n.as_str(),
                [schema, n] if schema == "pg_catalog" => n.as_str(),
                [schema, _] if catalog.namespace(schema, snapshot).is_none() => {
                    return Err(Error::new(
                        "3F000",
                        format!("schema \"{schema}\" does not exist"),
                    ));
                }
                [_, _] => "",
                _ => return Err(Error::new("42601", "invalid name syntax")),
            };
            crate::types::tsearch::dict::CONFIGS
                .iter()
                .find(|c| c.1 == name)
                .map(|c| Some(c.0))
                .ok_or_else(|| {
                    Error::undefined_object(format!(
                        "text search configuration \"{s}\" does not exist"
                    ))
                })
        }
        DataType::RegNamespace => {
            let parts = crate::catalog::sequence::relation_name_parts(s)?;
            let name = match parts.as_slice() {
                [n] => n.as_str(),
                _ => return Err(Error::new("42601", "invalid name syntax")),
            };
            catalog
                .namespace(name, snapshot)
                .map(|n| Some(n.oid))
                .ok_or_else(|| Error::new("3F000", format!("schema \"{s}\" does not exist")))
        }
        // Functions by name: the types' I/O functions (kiln's pg_proc has no rows).
        DataType::RegProc => {
            let name = s.strip_prefix("pg_catalog.").unwrap_or(s);
            defs::io_function_oid(name)
                .map(Some)
                .ok_or_else(|| Error::new("42883", format!("function \"{s}\" does not exist")))
        }
        // `name(argument types)`: the argument types must be the function's.
        DataType::RegProcedure => {
            let missing = || Error::new("42883", format!("function \"{s}\" does not exist"));
            let (name, args) = s
                .trim()
                .strip_suffix(')')
                .and_then(|x| x.split_once('('))
                .ok_or_else(|| Error::new("22P02", "expected a left parenthesis"))?;
            let name = name.trim();
            let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
            let oid = defs::io_function_oid(name).ok_or_else(missing)?;
            let given: Vec<&str> = args
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .collect();
            let wanted: Vec<&str> = defs::io_signature(name).split(", ").collect();
            let same = |a: &str, b: &str| {
                a.eq_ignore_ascii_case(b)
                    || matches!(
                        (parse_type_name(a), parse_type_name(b)),
                        (Ok(x), Ok(y)) if x.ty == y.ty
                    )
            };
            if given.len() != wanted.len() || !given.iter().zip(&wanted).all(|(a, b)| same(a, b)) {
                return Err(missing());
            }
            Ok(Some(oid))
        }
        _ => Ok(None),
    }
}

/// A type name as regtype input reads it (`integer`, `character varying(20)`, `_int4`).
pub(super) fn parse_type_name(s: &str) -> Result<SqlType> {
    use sqlparser::ast as A;
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let sql = format!("SELECT NULL::{s}");
    let stmts = sqlparser::parser::Parser::parse_sql(&dialect, &sql)
        .map_err(|_| Error::syntax(format!("invalid type name \"{s}\"")))?;
    let Some(A::Statement::Query(q)) = stmts.first() else {
        return Err(Error::syntax(format!("invalid type name \"{s}\"")));
    };
    let A::SetExpr::Select(sel) = q.body.as_ref() else {
        return Err(Error::syntax(format!("invalid type name \"{s}\"")));
    };
    match sel.projection.first() {
        Some(A::SelectItem::UnnamedExpr(A::Expr::Cast { data_type, .. })) => {
            crate::types::type_from_ast(data_type)
        }
        _ => Err(Error::syntax(format!("invalid type name \"{s}\""))),
    }
}

/// The catalog functions that read no catalog (strict: NULL in, NULL out).
fn pure(func: Func, vals: &[Value]) -> Value {
    if vals.first().is_none_or(Value::is_null) {
        return NULL;
    }
    match func {
        Func::PgEncodingToChar => {
            let n = vals[0].as_i64().unwrap_or(-1);
            let name = usize::try_from(n)
                .ok()
                .and_then(|i| ENCODINGS.get(i))
                .copied()
                .unwrap_or("");
            text(name)
        }
        Func::PgCharToEncoding => {
            let Value::Text(name) = &vals[0] else {
                return NULL;
            };
            let found = ENCODINGS.iter().position(|e| {
                e.replace('_', "")
                    .eq_ignore_ascii_case(&name.replace(['_', '-'], ""))
            });
            Value::Int4(found.map_or(-1, |i| i as i32))
        }
        Func::PgSizePretty => text(size_pretty(vals[0].as_i64().unwrap_or(0))),
        _ => NULL,
    }
}

/// PostgreSQL's encodings, by number (pg_wchar.h's `pg_enc`).
const ENCODINGS: [&str; 42] = [
    "SQL_ASCII",
    "EUC_JP",
    "EUC_CN",
    "EUC_KR",
    "EUC_TW",
    "EUC_JIS_2004",
    "UTF8",
    "MULE_INTERNAL",
    "LATIN1",
    "LATIN2",
    "LATIN3",
    "LATIN4",
    "LATIN5",
    "LATIN6",
    "LATIN7",
    "LATIN8",
    "LATIN9",
    "LATIN10",
    "WIN1256",
    "WIN1258",
    "WIN866",
    "WIN874",
    "KOI8R",
    "WIN1251",
    "WIN1252",
    "ISO_8859_5",
    "ISO_8859_6",
    "ISO_8859_7",
    "ISO_8859_8",
    "WIN1250",
    "WIN1253",
    "WIN1254",
    "WIN1255",
    "WIN1257",
    "KOI8U",
    "SJIS",
    "BIG5",
    "GBK",
    "UHC",
    "GB18030",
    "JOHAB",
    "SHIFT_JIS_2004",
];

/// pg_size_pretty: bytes below 10 kB, then kB, MB, GB, TB, PB, each used while the value
/// stays under 20 × 1024 − 1 of it, rounded half away from zero (PostgreSQL 15's table
/// of units, keeping one extra bit for the rounding).
pub(super) fn size_pretty(mut size: i64) -> String {
    // (name, limit, rounded, bits of the unit)
    const UNITS: [(&str, i64, bool, u32); 6] = [
        ("bytes", 10 * 1024, false, 0),
        ("kB", 20 * 1024 - 1, true, 10),
        ("MB", 20 * 1024 - 1, true, 20),
        ("GB", 20 * 1024 - 1, true, 30),
        ("TB", 20 * 1024 - 1, true, 40),
        ("PB", 20 * 1024 - 1, true, 50),
    ];
    let half_rounded = |x: i64| (x + if x < 0 { -1 } else { 1 }) / 2;
    for (k, &(name, limit, round, bits)) in UNITS.iter().enumerate() {
        let last = k + 1 == UNITS.len();
        if last || size.unsigned_abs() < limit as u64 {
            let shown = if round { half_rounded(size) } else { size };
            return format!("{shown} {name}");
        }
        let (_, _, next_round, next_bits) = UNITS[k + 1];
        let shift = next_bits - bits - next_round as u32 + round as u32;
        size /= 1i64 << shift;
    }
    String::new()
}

/// has_table_privilege and its kin: `([role,] object, [column,] privileges)`, the
/// role and the object by name or oid; true when the role holds any of the listed
/// privileges (`SELECT, UPDATE WITH GRANT OPTION`). An object named that does not
/// exist is an error; one given by an oid that names nothing is NULL.
fn has_privilege(v: &View, of: crate::sql::expr::PrivilegeOf, vals: &[Value]) -> Result<Value> {
    use crate::catalog::acl::{ObjectKind, Privs, privilege_named};
    use crate::session::privileges as p;
    use crate::sql::expr::PrivilegeOf as O;
    if vals.iter().any(Value::is_null) {
        return Ok(NULL);
    }
    let objects = if matches!(of, O::Column) { 2 } else { 1 };
    let (role, rest) = if vals.len() > objects + 1 {
        let role = match &vals[0] {
            Value::Text(name) => match v.db.cluster().roles.get(name) {
                Some(r) => r.oid,
                None if *name == v.ctx.session_user || *name == v.ctx.user => v.ctx.role,
                None if name.eq_ignore_ascii_case("public") => crate::catalog::acl::PUBLIC,
                None => {
                    return Err(Error::new(
                        "42704",
                        format!("role \"{name}\" does not exist"),
                    ));
                }
            },
            other => other.as_i64().map_or(0, |o| o as u32),
        };
        (role, &vals[1..])
    } else {
        (v.ctx.role, vals)
    };
    let Some(Value::Text(list)) = rest.last() else {
        return Ok(NULL);
    };
    // The privileges asked, and which of them with the grant option.
    let mut wanted = Privs::NONE;
    let mut options = Privs::NONE;
    let mut role_modes = (false, false, false);
    for item in list.split(',') {
        let item = item.trim();
        let upper = item.to_uppercase();
        let (name, with_option) = match upper.strip_suffix("WITH GRANT OPTION") {
            Some(n) => (n.trim().to_string(), true),
            None => match upper.strip_suffix("WITH ADMIN OPTION") {
                Some(n) if of == O::Role => (n.trim().to_string(), true),
                _ => (upper.trim().to_string(), false),
            },
        };
        if of == O::Role {
            match (name.as_str(), with_option) {
                ("MEMBER", false) => role_modes.0 = true,
                ("USAGE", false) => role_modes.1 = true,
                ("MEMBER" | "USAGE", true) => role_modes.2 = true,
                _ => {
                    return Err(Error::new(
                        "22023",
                        format!("unrecognized privilege type: \"{item}\""),
                    ));
                }
            }
            continue;
        }
        let valid = match of {
            O::Table | O::Column | O::AnyColumn => ObjectKind::Table.all(),
            O::Sequence => ObjectKind::Sequence.all(),
            O::Schema => ObjectKind::Schema.all(),
            O::Database => ObjectKind::Database.all(),
            O::Function => Privs::EXECUTE,
            O::Type | O::Role => Privs::USAGE,
        };
        let valid = if matches!(of, O::Column | O::AnyColumn) {
            Privs::SELECT | Privs::INSERT | Privs::UPDATE | Privs::REFERENCES
        } else {
            valid
        };
        let name = if name == "TEMP" {
            "TEMPORARY".to_string()
        } else {
            name
        };
        match privilege_named(&name).filter(|p| valid.contains(*p)) {
            Some(p) => {
                wanted = wanted | p;
                if with_option {
                    options = options | p;
                }
            }
            None => {
                return Err(Error::new(
                    "22023",
                    format!("unrecognized privilege type: \"{item}\""),
                ));
            }
        }
    }
    let db = v.db;
    let relation = |k: usize| -> Result<Option<Arc<TableEntry>>> {
        match &rest[k] {
            Value::Text(name) => {
                let (schema, n) = crate::catalog::sequence::parse_relation_name(name)?;
                match db.catalog.resolve_name(
                    schema.as_deref(),
                    &n,
                    &v.ctx.search_path,
                    &v.ctx.snapshot,
                )? {
                    Some(t) => Ok(Some(t)),
                    None => Err(Error::undefined_table(name)),
                }
            }
            other => Ok(other.as_i64().and_then(|o| v.table(o as u32).cloned())),
        }
    };
    let superuser = p::is_superuser_role(db, role);
    let holds = |have: Privs, opts: Privs| -> bool {
        // Any one privilege of the list suffices.
        !(have & wanted.minus(options)).is_empty() || !(opts & options).is_empty()
    };
    Ok(boolean(match of {
        O::Table | O::Sequence | O::Column | O::AnyColumn => {
            let system = match &rest[0] {
                Value::Text(n) => match n.split_once('.') {
                    Some((schema, name)) => SystemTable::lookup(Some(schema), name).is_some(),
                    None => {
                        SystemTable::lookup(None, n).is_some()
                            && db
                                .catalog
                                .lookup(&v.ctx.search_path.search, n, &v.ctx.snapshot)
                                .is_none()
                    }
                },
                other => other
                    .as_i64()
                    .is_some_and(|o| SystemTable::by_oid(o as u32).is_some()),
            };
            if system {
                // System catalogs: readable by everyone, written by no one.
                return Ok(boolean(
                    superuser
                        || (wanted.minus(options) & Privs::SELECT) == wanted.minus(options)
                            && options.is_empty(),
                ));
            }
            let Some(t) = relation(0)? else {
                return Ok(NULL);
            };
            if of == O::Sequence && t.sequence.is_none() {
                return Err(Error::new(
                    "42809",
                    format!("\"{}\" is not a sequence", t.name),
                ));
            }
            if of == O::Column
                && let Value::Text(c) = &rest[1]
                && t.column_index(c).is_none()
            {
                return Err(Error::new(
                    "42703",
                    format!("column \"{c}\" of relation \"{}\" does not exist", t.name),
                ));
            }
            let have = p::relation_privs(db, role, &t, wanted);
            let opts = p::relation_grant_options(db, role, &t, options);
            holds(have, opts)
        }
        O::Schema => {
            let ns = match &rest[0] {
                Value::Text(n) => match db.catalog.namespace(n, &v.ctx.snapshot) {
                    Some(ns) => ns,
                    None => {
                        return Err(Error::new(
                            "3F000",
                            format!("schema \"{n}\" does not exist"),
                        ));
                    }
                },
                other => match other
                    .as_i64()
                    .and_then(|o| db.catalog.namespace_by_oid(o as u32, &v.ctx.snapshot))
                {
                    Some(ns) => ns,
                    None => return Ok(NULL),
                },
            };
            if ns.is_system() {
                // System schemas: USAGE for everyone, CREATE for superusers.
                superuser || (options.is_empty() && wanted.contains(Privs::USAGE))
            } else {
                holds(
                    p::schema_privs(db, role, &ns, wanted),
                    if superuser || p::owns(db, role, ns.owner) {
                        options
                    } else {
                        Privs::NONE
                    },
                )
            }
        }
        O::Database => {
            let cluster = db.cluster();
            let target = match &rest[0] {
                Value::Text(n) => match cluster.database(n) {
                    Some(d) => d,
                    None => {
                        return Err(Error::new(
                            "3D000",
                            format!("database \"{n}\" does not exist"),
                        ));
                    }
                },
                other => match other
                    .as_i64()
                    .and_then(|o| cluster.database_by_oid(o as u32))
                {
                    Some(d) => d,
                    None => return Ok(NULL),
                },
            };
            holds(
                p::database_privs(&target, role, wanted),
                if superuser { options } else { Privs::NONE },
            )
        }
        // Functions and types: PUBLIC may execute and use them all.
        O::Function | O::Type => options.is_empty() || superuser,
        O::Role => {
            let target = match &rest[0] {
                Value::Text(name) => match db.cluster().roles.get(name) {
                    Some(r) => r.oid,
                    None => {
                        return Err(Error::new(
                            "42704",
                            format!("role \"{name}\" does not exist"),
                        ));
                    }
                },
                other => other.as_i64().map_or(0, |o| o as u32),
            };
            let member =
                superuser || role == target || db.cluster().roles.is_member_of(role, target);
            let admin = superuser
                || db
                    .cluster()
                    .roles
                    .memberships()
                    .iter()
                    .any(|m| m.role == target && m.member == role && m.admin);
            ((role_modes.0 || role_modes.1) && member) || (role_modes.2 && admin)
        }
    }))
}

/// regtype output of a user-defined type (or its array type): its name, with its
/// schema when the search path does not find it.
fn user_type_out(v: &View, o: u32) -> Option<String> {
    let t =
        v.db.catalog
            .visible_user_types(&v.ctx.snapshot)
            .into_iter()
            .find(|t| t.oid == o || t.array_oid == o)?;
    let visible = v
        .ctx
        .search_path
        .search
        .iter()
        .find_map(|&ns| v.db.catalog.user_type_named(ns, &t.name, &v.ctx.snapshot));
    let name = quote_ident(&t.name);
    let name = match visible {
        Some(found) if found.oid == t.oid => name,
        _ => format!("{}.{name}", quote_ident(v.namespace_name(t.namespace)?)),
    };
    Some(if t.array_oid == o {
        format!("{name}[]")
    } else {
        name
    })
}

/// regtype input of a user-defined type's name: `name`, `schema.name`, `name[]` or
/// `_name` (its array type).
fn user_type_in(
    catalog: &crate::catalog::Catalog,
    snapshot: &crate::storage::mvcc::Snapshot,
    path: &crate::catalog::namespace::SearchPath,
    s: &str,
) -> Result<Option<u32>> {
    let (s, mut array) = match s.trim().strip_suffix("[]") {
        Some(base) => (base.trim_end(), true),
        None => (s.trim(), false),
    };
    let parts = crate::catalog::sequence::relation_name_parts(s)?;
    let (schema, name) = match parts.as_slice() {
        [n] => (None, n.clone()),
        [schema, n] => (Some(schema.clone()), n.clone()),
        _ => return Ok(None),
    };
    let search: Vec<u32> = match &schema {
        Some(n) => match catalog.namespace(n, snapshot) {
            Some(ns) => vec![ns.oid],
            None => {
                return Err(Error::new(
                    "3F000",
                    format!("schema \"{n}\" does not exist"),
                ));
            }
        },
        None => path.search.clone(),
    };
    let find = |name: &str| {
        search
            .iter()
            .find_map(|&ns| catalog.user_type_named(ns, name, snapshot))
    };
    let t = match find(&name) {
        Some(t) => Some(t),
        None => match name.strip_prefix('_') {
            Some(elem) if !array => {
                array = true;
                find(elem)
            }
            _ => None,
        },
    };
    Ok(t.map(|t| if array { t.array_oid } else { t.oid }))
}
