//! The rows of each system table, built from the catalog at the statement's snapshot.

use super::*;
use crate::types::range::RangeKind;

/// The types pg_type lists: each with an array type (and that array type), the oid
/// aliases kiln has, and `unknown`.
pub(super) fn listed_types() -> Vec<DataType> {
    let mut all = Vec::new();
    for &s in crate::types::array_elements() {
        all.push(s);
        all.extend(DataType::array_of(s));
    }
    all.extend([
        DataType::RegClass,
        DataType::RegType,
        DataType::RegProc,
        DataType::RegProcedure,
        DataType::RegNamespace,
        DataType::RegRole,
        DataType::RegConfig,
        DataType::RegDictionary,
        DataType::Unknown,
        DataType::Json,
    ]);
    all
}

/// pg_type's `typname`.
pub fn type_name(t: DataType) -> String {
    let scalar = |t: DataType| -> &'static str {
        match t {
            DataType::Bool => "bool",
            DataType::Json => "json",
            DataType::Uuid => "uuid",
            DataType::Bytea => "bytea",
            DataType::Jsonb => "jsonb",
            DataType::JsonPath => "jsonpath",
            DataType::Time => "time",
            DataType::TimeTz => "timetz",
            DataType::Inet => "inet",
            DataType::Cidr => "cidr",
            DataType::MacAddr => "macaddr",
            DataType::MacAddr8 => "macaddr8",
            DataType::Int2 => "int2",
            DataType::Int4 => "int4",
            DataType::Int8 => "int8",
            DataType::Float4 => "float4",
            DataType::Float8 => "float8",
            DataType::Numeric => "numeric",
            DataType::Text => "text",
            DataType::Varchar => "varchar",
            DataType::Bpchar => "bpchar",
            DataType::Date => "date",
            DataType::Timestamp => "timestamp",
            DataType::Timestamptz => "timestamptz",
            DataType::Interval => "interval",
            DataType::Unknown => "unknown",
            DataType::Record => "record",
            DataType::Oid => "oid",
            DataType::RegClass => "regclass",
            DataType::RegType => "regtype",
            DataType::RegProc => "regproc",
            DataType::RegProcedure => "regprocedure",
            DataType::RegNamespace => "regnamespace",
            DataType::RegRole => "regrole",
            DataType::RegConfig => "regconfig",
            DataType::RegDictionary => "regdictionary",
            DataType::TsVector => "tsvector",
            DataType::TsQuery => "tsquery",
            DataType::Name => "name",
            DataType::Char => "char",
            DataType::Array(_) => "anyarray",
            DataType::Enum(_) => "anyenum",
            DataType::Range(k) => k.name(),
        }
    };
    match t {
        DataType::Enum(oid) => crate::catalog::types::enum_name(oid).unwrap_or_default(),
        DataType::Array(e) => format!("_{}", scalar(*e)),
        t => scalar(t).to_string(),
    }
}

/// (typlen, typbyval, typalign, typstorage, typcategory, typispreferred).
pub(super) fn type_shape(
    t: DataType,
) -> (i16, bool, &'static str, &'static str, &'static str, bool) {
    match t {
        DataType::Bool => (1, true, "c", "p", "B", true),
        DataType::Int2 => (2, true, "s", "p", "N", false),
        DataType::Int4 => (4, true, "i", "p", "N", false),
        DataType::Int8 => (8, true, "d", "p", "N", false),
        DataType::Float4 => (4, true, "i", "p", "N", false),
        DataType::Float8 => (8, true, "d", "p", "N", true),
        DataType::Numeric => (-1, false, "i", "m", "N", false),
        DataType::Text => (-1, false, "i", "x", "S", true),
        DataType::Varchar => (-1, false, "i", "x", "S", false),
        DataType::Bpchar => (-1, false, "i", "x", "S", false),
        DataType::Date => (4, true, "i", "p", "D", false),
        DataType::Timestamp => (8, true, "d", "p", "D", false),
        DataType::Timestamptz => (8, true, "d", "p", "D", true),
        DataType::Interval => (16, false, "d", "p", "T", true),
        DataType::Record => (-1, false, "d", "x", "P", false),
        DataType::Name => (64, false, "c", "p", "S", false),
        DataType::Char => (1, true, "c", "p", "Z", false),
        DataType::Json => (-1, false, "i", "x", "U", false),
        DataType::Uuid => (16, false, "c", "p", "U", false),
        DataType::Bytea => (-1, false, "i", "x", "U", false),
        DataType::Jsonb => (-1, false, "i", "x", "U", false),
        DataType::JsonPath => (-1, false, "i", "x", "U", false),
        DataType::Time => (8, true, "d", "p", "D", true),
        DataType::TimeTz => (12, false, "d", "p", "D", true),
        DataType::Inet => (-1, false, "i", "m", "I", true),
        DataType::Cidr => (-1, false, "i", "m", "I", false),
        DataType::MacAddr => (6, false, "i", "p", "U", false),
        DataType::MacAddr8 => (8, false, "i", "p", "U", false),
        DataType::Enum(_) => (4, true, "i", "p", "E", false),
        DataType::TsVector => (-1, false, "i", "x", "U", false),
        DataType::TsQuery => (-1, false, "i", "p", "U", false),
        DataType::Range(k) => {
            let align = match k.subtype() {
                DataType::Int4 | DataType::Numeric | DataType::Date => "i",
                _ => "d",
            };
            (-1, false, align, "x", "R", false)
        }
        t if t.is_oid() => (4, true, "i", "p", "N", t == DataType::Oid),
        DataType::Array(_) => (-1, false, "i", "x", "A", false),
        _ => (-2, false, "c", "p", "X", false),
    }
}

/// A rustls cipher suite (`TLS13_AES_256_GCM_SHA384`) as OpenSSL names it, which is
/// what PostgreSQL's pg_stat_ssl shows, with its key bits.
fn openssl_cipher(rustls: &str) -> (String, i64) {
    let bits = if rustls.contains("AES_128") { 128 } else { 256 };
    let name = match rustls.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => match rustls {
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384" => "ECDHE-RSA-AES256-GCM-SHA384".into(),
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" => "ECDHE-RSA-AES128-GCM-SHA256".into(),
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384" => "ECDHE-ECDSA-AES256-GCM-SHA384".into(),
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256" => "ECDHE-ECDSA-AES128-GCM-SHA256".into(),
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256" => "ECDHE-RSA-CHACHA20-POLY1305".into(),
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256" => {
                "ECDHE-ECDSA-CHACHA20-POLY1305".into()
            }
            other => other.to_string(),
        },
    };
    (name, bits)
}

/// The default B-tree operator classes, as PostgreSQL numbers them: `(oid, name, input
/// type oid, family, key type)`.
pub(super) const OPCLASSES: [(u32, &str, u32, u32, u32); 18] = [
    (1978, "int4_ops", 23, 1976, 0),
    (1979, "int2_ops", 21, 1976, 0),
    (1981, "oid_ops", 26, 1989, 0),
    (3122, "date_ops", 1082, 434, 0),
    (3123, "float8_ops", 701, 1970, 0),
    (3124, "int8_ops", 20, 1976, 0),
    (3125, "numeric_ops", 1700, 1988, 0),
    (3126, "text_ops", 25, 1994, 0),
    (3127, "timestamptz_ops", 1184, 434, 0),
    (3128, "timestamp_ops", 1114, 434, 0),
    (10000, "array_ops", 2277, 397, 0),
    (10003, "bool_ops", 16, 424, 0),
    (10004, "bpchar_ops", 1042, 426, 0),
    (10007, "char_ops", 18, 429, 0),
    (10012, "float4_ops", 700, 1970, 0),
    (10022, "interval_ops", 1186, 1982, 0),
    (10028, "name_ops", 19, 1994, 2275),
    (10034, "record_ops", 2249, 2994, 0),
];

/// The default B-tree operator class of a column of type `t` (what pg_index.indclass
/// holds): varchar's is text's, an array's array_ops.
pub(super) fn opclass_of(t: DataType) -> u32 {
    let input = opclass_input(t);
    OPCLASSES.iter().find(|o| o.2 == input).map_or(0, |o| o.0)
}

/// The input type (oid) of the default B-tree class of a column of type `t`.
pub fn opclass_input(t: DataType) -> u32 {
    match t {
        DataType::Varchar => DataType::Text.oid(),
        DataType::Array(_) => 2277,
        DataType::RegClass
        | DataType::RegType
        | DataType::RegProc
        | DataType::RegProcedure
        | DataType::RegNamespace
        | DataType::RegRole => DataType::Oid.oid(),
        other => other.oid(),
    }
}

/// The input type (oid) of default B-tree class `name`, if it is one.
pub fn default_opclass(name: &str) -> Option<u32> {
    OPCLASSES.iter().find(|o| o.1 == name).map(|o| o.2)
}

/// The non-default B-tree classes kiln accepts: `(oid, name, input type oid, family)`.
pub(super) const PATTERN_OPCLASSES: [(u32, &str, u32, u32); 4] = [
    (4217, "text_pattern_ops", 25, 2095),
    (4218, "varchar_pattern_ops", 25, 2095),
    (4219, "bpchar_pattern_ops", 1042, 2097),
    (10044, "varchar_ops", 25, 1994),
];

pub(super) fn collation_of(t: DataType) -> u32 {
    match t {
        DataType::Text | DataType::Varchar | DataType::Bpchar => DEFAULT_COLLATION,
        DataType::Name => 950,
        DataType::Array(e) => collation_of(*e),
        _ => 0,
    }
}

// ---------------------------------------------------------------------------------
// Rows.

pub(super) struct Rows {
    types: Vec<SqlType>,
    cols: Vec<Vector>,
}

impl Rows {
    fn new(t: SystemTable) -> Rows {
        let types: Vec<SqlType> = t.columns().into_iter().map(|c| c.1).collect();
        let cols = types
            .iter()
            .map(|ty| Vector::with_capacity(ty.ty, 16))
            .collect();
        Rows { types, cols }
    }

    fn push(&mut self, row: Vec<Value>) {
        debug_assert_eq!(row.len(), self.cols.len(), "system row width");
        for (i, col) in self.cols.iter_mut().enumerate() {
            match row.get(i) {
                Some(v) => col.push_value(v),
                None => col.push_null(),
            }
        }
    }

    fn batch(self) -> Batch {
        let _ = self.types;
        let rows = self.cols.first().map_or(0, Vector::len);
        Batch::new(self.cols, rows)
    }
}

pub(super) fn oid(v: u32) -> Value {
    Value::Int8(v as i64)
}
pub(super) fn text(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}
pub(super) fn boolean(b: bool) -> Value {
    Value::Bool(b)
}
pub(super) fn int2(v: i64) -> Value {
    Value::Int2(v as i16)
}
pub(super) fn int4(v: i64) -> Value {
    Value::Int4(v as i32)
}
pub(super) const NULL: Value = Value::Null;
pub(super) fn array(elem: DataType, values: &[Value]) -> Value {
    Value::Array(Box::new(crate::types::array::from_values(elem, values)))
}
/// An int2vector or oidvector value: a one-dimensional array whose subscripts start at
/// 0, as PostgreSQL's vector types' do (`indoption[k - 1]` in clients' queries).
pub(super) fn vector(elem: DataType, values: &[Value]) -> Value {
    use crate::types::array::{Builder, Dim};
    let mut bytes = Vec::new();
    let mut b = Builder::new(
        &mut bytes,
        &[Dim {
            len: values.len() as i32,
            lbound: 0,
        }],
    );
    for v in values {
        b.push(v);
    }
    Value::Array(Box::new(crate::types::array::Array { elem, bytes }))
}

pub(super) fn int2_array(values: impl IntoIterator<Item = i64>) -> Value {
    let v: Vec<Value> = values.into_iter().map(int2).collect();
    array(DataType::Int2, &v)
}

pub(super) fn fk_action(a: FkAction) -> &'static str {
    match a {
        FkAction::NoAction => "a",
        FkAction::Restrict => "r",
        FkAction::Cascade => "c",
        FkAction::SetNull => "n",
        FkAction::SetDefault => "d",
    }
}

/// The built-in schemas' comments, as initdb writes them.
const NAMESPACE_COMMENTS: [(u32, &str); 3] = [
    (PG_CATALOG_OID, "system catalog schema"),
    (PG_TOAST_OID, "reserved schema for TOAST tables"),
    (PUBLIC_OID, "standard public schema"),
];

/// The comment of built-in schema `nsp`.
pub(super) fn namespace_comment(nsp: u32) -> Option<&'static str> {
    NAMESPACE_COMMENTS
        .iter()
        .find(|(o, _)| *o == nsp)
        .map(|(_, c)| *c)
}

/// pg_extension's own oid: `classoid` of extensions' comments.
const PG_EXTENSION_OID: u32 = 3079;

/// pg_namespace's own oid: `classoid` of schemas' comments.
const PG_NAMESPACE_OID: u32 = 2615;

/// pg_default_acl's row oids (kiln keeps its entries without one).
const DEFAULT_ACL_OIDS: u32 = 0x5000_0000;

/// Builds the rows of system table `t` for the statement of `ctx`.
pub fn scan(t: SystemTable, ctx: &ExecContext) -> Result<Batch> {
    let v = View::new(ctx)?;
    let mut rows = Rows::new(t);
    let owner = crate::auth::BOOTSTRAP_SUPERUSER_OID;
    match t.name() {
        "pg_namespace" if t.schema_oid() == C => {
            for ns in &v.namespaces {
                let nsp = ns.oid;
                let acl = match nsp {
                    PG_TOAST_OID => NULL,
                    PG_CATALOG_OID | INFORMATION_SCHEMA_OID => {
                        let mut a = crate::catalog::acl::default_acl(
                            crate::catalog::acl::ObjectKind::Schema,
                            owner,
                        );
                        a.grant(
                            crate::catalog::acl::PUBLIC,
                            owner,
                            crate::catalog::acl::Privs::USAGE,
                            false,
                        );
                        v.acl_value(&a)
                    }
                    _ => ns.acl.as_ref().map_or(NULL, |a| v.acl_value(a)),
                };
                rows.push(vec![oid(nsp), text(&ns.name), oid(ns.owner), acl]);
            }
        }
        "pg_class" => {
            for r in relations(&v) {
                // PostgreSQL's foreign keys are triggers on both tables.
                let has_triggers = r.table.is_some_and(|t| {
                    !t.foreign_keys.is_empty()
                        || v.tables.iter().any(|o| {
                            o.foreign_keys.iter().any(|fk| {
                                fk.parent == t.oid
                                    || (o.oid == t.oid
                                        && fk.parent == crate::catalog::SELF_REFERENCE)
                            })
                        })
                });
                let (checks, has_index, tuples) = match r.table {
                    Some(t) => (
                        t.checks.len() as i64,
                        !t.indexes.is_empty(),
                        if t.kind() == RelKind::Table {
                            crate::catalog::stats::live_rows(&t.storage) as f64
                        } else {
                            0.0
                        },
                    ),
                    None => (0, false, -1.0),
                };
                let am = match r.kind {
                    'r' => HEAP_AM,
                    'i' => BTREE_AM,
                    _ => 0,
                };
                rows.push(vec![
                    oid(r.oid),
                    text(r.name),
                    oid(r.nsp),
                    oid(0),
                    oid(0),
                    oid(r.owner),
                    oid(am),
                    oid(if matches!(r.kind, 'r' | 'i' | 'S') {
                        r.oid
                    } else {
                        0
                    }),
                    oid(0),
                    int4(0),
                    Value::Float4(tuples as f32),
                    int4(0),
                    oid(0),
                    boolean(has_index),
                    boolean(false),
                    text(
                        if v.namespaces.iter().any(|n| n.oid == r.nsp && n.is_temp()) {
                            "t"
                        } else {
                            "p"
                        },
                    ),
                    text(r.kind.to_string()),
                    int2(r.columns.len() as i64),
                    int2(checks),
                    boolean(r.kind == 'v'),
                    boolean(has_triggers),
                    boolean(false),
                    boolean(false),
                    boolean(false),
                    boolean(true),
                    text(if matches!(r.kind, 'r') { "d" } else { "n" }),
                    boolean(false),
                    oid(0),
                    Value::Int8(0),
                    Value::Int8(0),
                    match r.table.and_then(|t| t.acl.as_ref()) {
                        Some(acl) if r.kind != 'i' => v.acl_value(acl),
                        _ => NULL,
                    },
                    if r.options.is_empty() {
                        NULL
                    } else {
                        let items: Vec<Value> = r
                            .options
                            .iter()
                            .map(|(n, v)| Value::Text(format!("{n}={v}")))
                            .collect();
                        array(DataType::Text, &items)
                    },
                    NULL,
                ]);
            }
        }
        "pg_attribute" => {
            for r in relations(&v) {
                for (i, c) in r.columns.iter().enumerate() {
                    let (len, byval, align, storage, _, _) = type_shape(c.ty.ty);
                    rows.push(vec![
                        oid(r.oid),
                        text(&c.name),
                        oid(c.ty.oid()),
                        int4(-1),
                        int2(len as i64),
                        int2(i as i64 + 1),
                        int4(c.ty.ty.is_array() as i64),
                        int4(-1),
                        // A domain column's modifier is the domain's (-1).
                        int4(if c.ty.domain != 0 {
                            -1
                        } else {
                            c.ty.typmod as i64
                        }),
                        boolean(byval),
                        text(align),
                        text(storage),
                        text(""),
                        boolean(c.not_null),
                        boolean(c.has_default),
                        boolean(false),
                        text(c.identity),
                        text(c.generated),
                        boolean(false),
                        boolean(true),
                        int4(0),
                        oid(collation_of(c.ty.ty)),
                        NULL,
                        NULL,
                        NULL,
                        NULL,
                    ]);
                }
            }
        }
        "pg_type" => {
            let all = listed_types();
            for ty in all {
                let (len, byval, align, storage, category, preferred) = type_shape(ty);
                // name is subscriptable: its bytes as "char"s.
                let elem = match ty {
                    DataType::Name => DataType::Char.oid(),
                    t => t.elem().map_or(0, |e| e.oid()),
                };
                let arr = DataType::array_of(ty).map_or(0, |a| a.oid());
                let io = super::defs::type_io(ty).unwrap_or([("-", 0); 4]);
                rows.push(vec![
                    oid(ty.oid()),
                    text(type_name(ty)),
                    oid(PG_CATALOG_OID),
                    oid(owner),
                    int2(len as i64),
                    boolean(byval),
                    text(match ty {
                        DataType::Unknown | DataType::Record => "p",
                        DataType::Range(_) => "r",
                        _ => "b",
                    }),
                    text(category),
                    boolean(preferred),
                    boolean(true),
                    text(","),
                    oid(0),
                    oid(0),
                    oid(elem),
                    oid(arr),
                    oid(io[0].1),
                    oid(io[1].1),
                    oid(io[2].1),
                    oid(io[3].1),
                    oid(0),
                    oid(0),
                    oid(0),
                    text(align),
                    text(storage),
                    boolean(false),
                    oid(0),
                    int4(-1),
                    int4(0),
                    oid(collation_of(ty)),
                    NULL,
                    NULL,
                    NULL,
                ]);
            }
            // Enums and domains, and their array types.
            for t in v.db.catalog.visible_user_types(&v.ctx.snapshot) {
                if let Some(d) = &t.domain {
                    let (len, byval, align, storage, category, _) = type_shape(d.base.ty);
                    let io = super::defs::type_io(d.base.ty).unwrap_or([("-", 0); 4]);
                    rows.push(vec![
                        oid(t.oid),
                        text(t.name.clone()),
                        oid(t.namespace),
                        oid(t.owner),
                        int2(len as i64),
                        boolean(byval),
                        text("d"),
                        text(category),
                        boolean(false),
                        boolean(true),
                        text(","),
                        oid(0),
                        oid(0),
                        oid(0),
                        oid(t.array_oid),
                        oid(io[0].1),
                        oid(io[1].1),
                        oid(io[2].1),
                        oid(io[3].1),
                        oid(0),
                        oid(0),
                        oid(0),
                        text(align),
                        text(storage),
                        boolean(d.not_null),
                        oid(d.parent.unwrap_or(d.base.ty.oid())),
                        int4(d.base.typmod as i64),
                        int4(0),
                        oid(collation_of(d.base.ty)),
                        NULL,
                        d.default
                            .as_ref()
                            .map_or(NULL, |(sql, _)| text(sql.clone())),
                        NULL,
                    ]);
                    continue;
                }
                for array in [false, true] {
                    let (io, len, byval, storage, category) = if array {
                        ([750, 751, 2400, 2401], -1, false, "x", "A")
                    } else {
                        ([3504, 3505, 3532, 3533], 4, true, "p", "E")
                    };
                    rows.push(vec![
                        oid(if array { t.array_oid } else { t.oid }),
                        text(if array {
                            format!("_{}", t.name)
                        } else {
                            t.name.clone()
                        }),
                        oid(t.namespace),
                        oid(t.owner),
                        int2(len),
                        boolean(byval),
                        text(if array { "b" } else { "e" }),
                        text(category),
                        boolean(false),
                        boolean(true),
                        text(","),
                        oid(0),
                        oid(if array { 2092 } else { 0 }),
                        oid(if array { t.oid } else { 0 }),
                        oid(if array { 0 } else { t.array_oid }),
                        oid(io[0]),
                        oid(io[1]),
                        oid(io[2]),
                        oid(io[3]),
                        oid(0),
                        oid(0),
                        oid(if array { 3816 } else { 0 }),
                        text("i"),
                        text(storage),
                        boolean(false),
                        oid(0),
                        int4(-1),
                        int4(0),
                        oid(0),
                        NULL,
                        NULL,
                        NULL,
                    ]);
                }
            }
        }
        // The text-search configurations and dictionaries kiln has (`types::tsearch`).
        "pg_ts_config" => {
            for c in crate::types::tsearch::dict::Config::all() {
                rows.push(vec![
                    oid(c.oid()),
                    text(c.name()),
                    oid(PG_CATALOG_OID),
                    oid(owner),
                    oid(3722),
                ]);
            }
        }
        "pg_ts_config_map" => {
            use crate::types::tsearch::{dict::Config, parser::TokenKind};
            for c in Config::all() {
                for &kind in TokenKind::all() {
                    if let Some(d) = c.dictionary(kind) {
                        rows.push(vec![
                            oid(c.oid()),
                            Value::Int4(kind.id()),
                            Value::Int4(1),
                            oid(d.oid()),
                        ]);
                    }
                }
            }
        }
        "pg_ts_parser" => {
            rows.push(vec![
                oid(3722),
                text("default"),
                oid(PG_CATALOG_OID),
                Value::Int8(3717),
                Value::Int8(3718),
                Value::Int8(3719),
                Value::Int8(3720),
                Value::Int8(3721),
            ]);
        }
        "pg_ts_template" => {
            for (o, name, init, lexize) in [
                (3727, "simple", 3725, 3726),
                (13150, "snowball", 13148, 13149),
            ] {
                rows.push(vec![
                    oid(o),
                    text(name),
                    oid(PG_CATALOG_OID),
                    Value::Int8(init),
                    Value::Int8(lexize),
                ]);
            }
        }
        "pg_ts_dict" => {
            let languages = crate::types::tsearch::languages::LANGUAGES
                .iter()
                .map(|l| (l.dict_oid, l.dict, 13150, Some(l.dict_init)));
            for (o, name, template, init) in [
                (3765, "simple", 3727, None),
                (
                    13163,
                    "english_stem",
                    13150,
                    Some("language = 'english', stopwords = 'english'"),
                ),
            ]
            .into_iter()
            .chain(languages)
            {
                rows.push(vec![
                    oid(o),
                    text(name),
                    oid(PG_CATALOG_OID),
                    oid(owner),
                    oid(template),
                    init.map_or(NULL, text),
                ]);
            }
        }
        "pg_range" => {
            // The built-in ranges: subtype, multirange, btree operator class.
            for (k, opc) in [
                (RangeKind::Int4, 1978),
                (RangeKind::Num, 3125),
                (RangeKind::Ts, 3128),
                (RangeKind::Tstz, 3127),
                (RangeKind::Date, 3122),
                (RangeKind::Int8, 3124),
            ] {
                rows.push(vec![
                    oid(k.oid()),
                    oid(k.subtype().oid()),
                    oid(k.multirange_oid()),
                    oid(0),
                    oid(opc),
                    oid(0),
                    oid(0),
                ]);
            }
        }
        "pg_enum" => {
            for t in v.db.catalog.visible_user_types(&v.ctx.snapshot) {
                for l in &t.labels {
                    rows.push(vec![
                        oid(l.oid),
                        oid(t.oid),
                        Value::Float4(l.sortorder),
                        text(&l.label),
                    ]);
                }
            }
        }
        "pg_index" => {
            for t in &v.tables {
                for ix in &t.indexes {
                    let n = ix.index.parts.len() as i64;
                    // indkey, indcollation, indclass, indoption: a vector over the keys.
                    let per_key = |elem, f: &dyn Fn(&crate::storage::index::KeyPart) -> Value| {
                        vector(elem, &ix.index.parts.iter().map(f).collect::<Vec<_>>())
                    };
                    let types: Vec<DataType> = t.columns.iter().map(|c| c.ty.ty).collect();
                    let key_type =
                        |p: &crate::storage::index::KeyPart| ix.index.part_type(p, &types);
                    rows.push(vec![
                        oid(ix.oid),
                        oid(t.oid),
                        int2(n),
                        int2(n),
                        boolean(ix.index.unique),
                        boolean(ix.index.nulls_not_distinct),
                        boolean(ix.constraint == Some(KeyConstraint::PrimaryKey)),
                        boolean(false),
                        boolean(!ix.deferrable),
                        boolean(false),
                        boolean(true),
                        boolean(false),
                        boolean(true),
                        boolean(true),
                        boolean(false),
                        per_key(DataType::Int2, &|p| {
                            int2(p.table_column().map_or(0, |c| c as i64 + 1))
                        }),
                        per_key(DataType::Oid, &|p| oid(key_type(p).map_or(0, collation_of))),
                        per_key(DataType::Oid, &|p| {
                            oid(if p.opclass != 0 {
                                p.opclass
                            } else {
                                key_type(p).map_or(0, opclass_of)
                            })
                        }),
                        per_key(DataType::Int2, &|p| {
                            int2((p.desc as i64) | ((p.nulls_first as i64) << 1))
                        }),
                        if ix.index.exprs.is_empty() {
                            NULL
                        } else {
                            let shown: Vec<String> = ix
                                .index
                                .exprs
                                .iter()
                                .map(|e| expr_sql(&with_current_names(e, &t.columns)))
                                .collect();
                            text(format!("({})", shown.join(", ")))
                        },
                        match &ix.index.predicate {
                            Some(p) => text(expr_sql(&with_current_names(p, &t.columns))),
                            None => NULL,
                        },
                    ]);
                }
            }
        }
        "pg_constraint" => {
            for c in constraints(&v) {
                let (confrelid, confkey, upd, del) = match &c.foreign {
                    Some((p, cols, u, d)) => (
                        *p,
                        int2_array(cols.iter().map(|c| *c as i64 + 1)),
                        fk_action(*u),
                        fk_action(*d),
                    ),
                    None => (0, NULL, " ", " "),
                };
                rows.push(vec![
                    oid(c.oid),
                    text(c.name),
                    oid(PUBLIC_OID),
                    text(c.kind.to_string()),
                    boolean(c.deferrable),
                    boolean(c.deferred),
                    boolean(true),
                    oid(c.table.oid),
                    oid(0),
                    oid(c.index),
                    oid(0),
                    oid(confrelid),
                    text(upd),
                    text(del),
                    text(if c.foreign.is_some() { "s" } else { " " }),
                    boolean(true),
                    int4(0),
                    boolean(false),
                    if c.kind == 'c' {
                        NULL
                    } else {
                        int2_array(c.columns.iter().map(|c| *c as i64 + 1))
                    },
                    confkey,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    match c.check {
                        Some(e) => text(expr_sql(&with_current_names(e, &c.table.columns))),
                        None => NULL,
                    },
                ]);
            }
            for (o, name, domain, ns, sql, validated) in domain_checks(&v) {
                rows.push(vec![
                    oid(o),
                    text(name),
                    oid(ns),
                    text("c"),
                    boolean(false),
                    boolean(false),
                    boolean(validated),
                    oid(0),
                    oid(domain),
                    oid(0),
                    oid(0),
                    oid(0),
                    text(" "),
                    text(" "),
                    text(" "),
                    boolean(true),
                    int4(0),
                    boolean(false),
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    text(sql),
                ]);
            }
        }
        "pg_attrdef" => {
            for t in &v.tables {
                for (i, c) in t.columns.iter().enumerate() {
                    let default = c.default.as_ref().filter(|_| c.identity.is_none());
                    let Some(e) = default.or(c.generated.as_ref()) else {
                        continue;
                    };
                    rows.push(vec![
                        oid(TAG_DEFAULT | (t.oid << 11) | (i as u32 + 1)),
                        oid(t.oid),
                        int2(i as i64 + 1),
                        text(expr_sql_named(
                            &with_current_names(e, &t.columns),
                            &v.names(),
                        )),
                    ]);
                }
            }
        }
        "pg_opclass" => {
            for (o, name, input, family, key) in OPCLASSES {
                rows.push(vec![
                    oid(o),
                    oid(BTREE_AM),
                    text(name),
                    oid(PG_CATALOG_OID),
                    oid(owner),
                    oid(family),
                    oid(input),
                    boolean(true),
                    oid(key),
                ]);
            }
            for (o, name, input, family) in PATTERN_OPCLASSES {
                rows.push(vec![
                    oid(o),
                    oid(BTREE_AM),
                    text(name),
                    oid(PG_CATALOG_OID),
                    oid(owner),
                    oid(family),
                    oid(input),
                    boolean(false),
                    oid(0),
                ]);
            }
        }
        "pg_depend" => {
            // A SERIAL or identity column's sequence depends on its column ('a', 'i').
            for s in v.tables.iter().filter(|t| t.sequence.is_some()) {
                let Some((table, column)) = &s.owned_by else {
                    continue;
                };
                let Some(t) = v.table(*table) else { continue };
                let Some(k) = t.column_index(column) else {
                    continue;
                };
                let identity = t.columns[k].identity.is_some();
                rows.push(vec![
                    oid(PG_CLASS_OID),
                    oid(s.oid),
                    int4(0),
                    oid(PG_CLASS_OID),
                    oid(t.oid),
                    int4(k as i64 + 1),
                    text(if identity { "i" } else { "a" }),
                ]);
            }
        }
        "pg_description" => {
            // Comments of the relations, their columns and indexes this snapshot sees.
            for t in &v.tables {
                let objects = std::iter::once((t.oid, String::new(), 0i64))
                    .chain(
                        t.columns
                            .iter()
                            .enumerate()
                            .map(|(i, c)| (t.oid, c.name.clone(), i as i64 + 1)),
                    )
                    .chain(t.indexes.iter().map(|ix| (ix.oid, String::new(), 0)));
                for (o, column, sub) in objects {
                    if let Some(c) = v.db.catalog.comment(o, &column) {
                        rows.push(vec![oid(o), oid(PG_CLASS_OID), int4(sub), text(c)]);
                    }
                }
            }
            for e in v.db.catalog.visible_extensions(&v.ctx.snapshot) {
                if let Some(a) = crate::catalog::extension::available(&e.name) {
                    rows.push(vec![
                        oid(e.oid),
                        oid(PG_EXTENSION_OID),
                        int4(0),
                        text(a.comment),
                    ]);
                }
            }
            for ns in &v.namespaces {
                let c =
                    v.db.catalog
                        .comment(ns.oid, "")
                        .or_else(|| namespace_comment(ns.oid).map(String::from));
                if let Some(c) = c {
                    rows.push(vec![oid(ns.oid), oid(PG_NAMESPACE_OID), int4(0), text(c)]);
                }
            }
        }
        "pg_am" => {
            for (o, name, kind) in [
                (HEAP_AM, "heap", "t"),
                (BTREE_AM, "btree", "i"),
                (405, "hash", "i"),
                (783, "gist", "i"),
                (2742, "gin", "i"),
                (4000, "spgist", "i"),
                (3580, "brin", "i"),
            ] {
                rows.push(vec![oid(o), text(name), oid(0), text(kind)]);
            }
        }
        "table_privileges" | "role_table_grants" => {
            use crate::catalog::acl::{PUBLIC, Privs, default_acl, privilege_name};
            use crate::session::privileges::{object_kind, owns};
            let me = ctx.role;
            let public_rows = t.name() == "table_privileges";
            for r in v.tables.iter().filter(|t| t.sequence.is_none()) {
                let acl = r
                    .acl
                    .clone()
                    .unwrap_or_else(|| default_acl(object_kind(r), r.owner));
                for item in &acl.0 {
                    let seen = owns(v.db, me, item.grantor)
                        || (item.grantee != PUBLIC && owns(v.db, me, item.grantee))
                        || (public_rows && item.grantee == PUBLIC);
                    if !seen {
                        continue;
                    }
                    let grantee = if item.grantee == PUBLIC {
                        "PUBLIC".to_string()
                    } else {
                        v.role_name(item.grantee).unwrap_or_default()
                    };
                    let grantor = v.role_name(item.grantor).unwrap_or_default();
                    for bit in 0..7 {
                        let p = Privs(1 << bit);
                        if !item.privs.contains(p) {
                            continue;
                        }
                        let grantable = item.grant_options.contains(p)
                            || (item.grantee != PUBLIC && owns(v.db, item.grantee, r.owner));
                        rows.push(vec![
                            text(&grantor),
                            text(&grantee),
                            text(&ctx.database),
                            text(v.namespace_name(r.namespace).unwrap_or_default()),
                            text(&r.name),
                            text(privilege_name(p)),
                            text(if grantable { "YES" } else { "NO" }),
                            text(if p == Privs::SELECT { "YES" } else { "NO" }),
                        ]);
                    }
                }
            }
        }
        "pg_get_keywords" => {
            for &(word, cat, bare) in super::keywords::KEYWORDS {
                let catdesc = match cat {
                    b'U' => "unreserved",
                    b'C' => "unreserved (cannot be function or type name)",
                    b'T' => "reserved (can be function or type name)",
                    _ => "reserved",
                };
                rows.push(vec![
                    text(word),
                    text((cat as char).to_string()),
                    boolean(bare),
                    text(catdesc),
                    text(if bare {
                        "can be bare label"
                    } else {
                        "requires AS"
                    }),
                ]);
            }
        }
        "pg_event_trigger" => {}
        "pg_language" => {
            for (o, name, pl, trusted, handler, inline, validator) in [
                (12, "internal", false, false, 0, 0, 2246),
                (13, "c", false, false, 0, 0, 2247),
                (14, "sql", false, true, 0, 0, 2248),
            ] {
                rows.push(vec![
                    oid(o),
                    text(name),
                    oid(owner),
                    boolean(pl),
                    boolean(trusted),
                    oid(handler),
                    oid(inline),
                    oid(validator),
                    NULL,
                ]);
            }
        }
        "pg_stat_all_tables" | "pg_stat_user_tables" => {
            // kiln keeps no access counters: scans and tuple counts are 0, the vacuum
            // and analyze times NULL; live and dead row counts are the storage's.
            let zero = || Value::Int8(0);
            let mut push = |relid: u32, schema: &str, name: &str, live: i64, dead: i64| {
                let mut row = vec![oid(relid), text(schema), text(name)];
                row.extend((0..8).map(|_| zero()));
                row.extend([Value::Int8(live), Value::Int8(dead), zero(), zero()]);
                row.extend([NULL, NULL, NULL, NULL]);
                row.extend((0..4).map(|_| zero()));
                rows.push(row);
            };
            for t in v.tables.iter().filter(|t| t.kind() == RelKind::Table) {
                push(
                    t.oid,
                    "public",
                    &t.name,
                    crate::catalog::stats::live_rows(&t.storage) as i64,
                    t.storage.dead_rows() as i64,
                );
            }
            if t.name() == "pg_stat_all_tables" {
                for s in SystemTable::all().filter(|s| s.def().kind == 'r') {
                    push(
                        s.oid(),
                        v.namespace_name(s.schema_oid()).unwrap_or_default(),
                        s.name(),
                        0,
                        0,
                    );
                }
            }
        }
        "pg_stat_all_indexes" | "pg_stat_user_indexes" => {
            for t in &v.tables {
                for ix in &t.indexes {
                    rows.push(vec![
                        oid(t.oid),
                        oid(ix.oid),
                        text(v.namespace_name(t.namespace).unwrap_or_default()),
                        text(&t.name),
                        text(&ix.name),
                        Value::Int8(0),
                        Value::Int8(0),
                        Value::Int8(0),
                    ]);
                }
            }
        }
        "pg_default_acl" => {
            for (k, d) in v.db.catalog.default_acls().iter().enumerate() {
                rows.push(vec![
                    oid(DEFAULT_ACL_OIDS + k as u32),
                    oid(d.role),
                    oid(if d.in_schema { PUBLIC_OID } else { 0 }),
                    text(if d.kind == crate::catalog::acl::ObjectKind::Sequence {
                        "S"
                    } else {
                        "r"
                    }),
                    v.acl_value(&d.acl),
                ]);
            }
        }
        "pg_auth_members" => {
            for m in v.db.cluster().roles.memberships() {
                rows.push(vec![
                    oid(m.role),
                    oid(m.member),
                    oid(m.grantor),
                    boolean(m.admin),
                ]);
            }
        }
        "pg_roles" => {
            for (o, name, superuser, login, createdb) in v.roles() {
                rows.push(vec![
                    text(name),
                    boolean(superuser),
                    boolean(true),
                    boolean(superuser),
                    boolean(createdb),
                    boolean(login),
                    boolean(superuser),
                    int4(-1),
                    text("********"),
                    NULL,
                    boolean(superuser),
                    NULL,
                    oid(o),
                ]);
            }
        }
        "pg_user" => {
            for (o, name, superuser, login, createdb) in v.roles() {
                if !login {
                    continue;
                }
                rows.push(vec![
                    text(name),
                    oid(o),
                    boolean(createdb),
                    boolean(superuser),
                    boolean(superuser),
                    boolean(superuser),
                    text("********"),
                    NULL,
                    NULL,
                ]);
            }
        }
        "pg_database" => {
            for d in v.db.cluster().databases() {
                let acl = d.catalog.database_acl();
                rows.push(vec![
                    oid(d.oid),
                    text(d.name()),
                    oid(d.owner()),
                    int4(6),
                    text("c"),
                    boolean(d.is_template()),
                    boolean(d.allow_connections()),
                    int4(d.connection_limit() as i64),
                    Value::Int8(0),
                    Value::Int8(1),
                    oid(PG_DEFAULT_TABLESPACE),
                    text("C"),
                    text("C"),
                    NULL,
                    NULL,
                    match acl {
                        Some(acl) => v.acl_value(&acl),
                        None => NULL,
                    },
                ]);
            }
        }
        "pg_db_role_setting" => {
            for d in v.db.cluster().databases() {
                let settings = d.spec().settings;
                if settings.is_empty() {
                    continue;
                }
                let items: Vec<Value> = settings
                    .iter()
                    .map(|(n, s)| Value::Text(format!("{n}={s}")))
                    .collect();
                rows.push(vec![oid(d.oid), oid(0), array(DataType::Text, &items)]);
            }
            for s in v.db.cluster().roles.settings() {
                let items: Vec<Value> = s
                    .settings
                    .iter()
                    .map(|(n, val)| Value::Text(format!("{n}={val}")))
                    .collect();
                rows.push(vec![
                    oid(s.database),
                    oid(s.role),
                    array(DataType::Text, &items),
                ]);
            }
        }
        "pg_collation" => {
            for (o, name, provider, coll) in [
                (DEFAULT_COLLATION, "default", "d", ""),
                (950, "C", "c", "C"),
                (951, "POSIX", "c", "POSIX"),
            ] {
                rows.push(vec![
                    oid(o),
                    text(name),
                    oid(PG_CATALOG_OID),
                    oid(owner),
                    text(provider),
                    boolean(true),
                    int4(-1),
                    if coll.is_empty() { NULL } else { text(coll) },
                    if coll.is_empty() { NULL } else { text(coll) },
                    NULL,
                    NULL,
                ]);
            }
        }
        "pg_sequence" => {
            for t in &v.tables {
                let Some(seq) = &t.sequence else { continue };
                let o = seq.options();
                rows.push(vec![
                    oid(t.oid),
                    oid(o.ty.oid()),
                    Value::Int8(o.start),
                    Value::Int8(o.increment),
                    Value::Int8(o.max),
                    Value::Int8(o.min),
                    Value::Int8(o.cache),
                    boolean(o.cycle),
                ]);
            }
        }
        "pg_tablespace" => {
            rows.push(vec![
                oid(PG_DEFAULT_TABLESPACE),
                text("pg_default"),
                oid(owner),
                NULL,
                NULL,
            ]);
            rows.push(vec![oid(1664), text("pg_global"), oid(owner), NULL, NULL]);
        }
        "pg_settings" => {
            for (name, value) in ctx.settings.values() {
                let mut row = vec![text(name), text(value)];
                row.resize(17, NULL);
                row[6] = text("user");
                row[7] = text("string");
                row[8] = text("default");
                row[16] = boolean(false);
                rows.push(row);
            }
        }
        "pg_cursors" => {
            for c in ctx.cursors.iter() {
                rows.push(vec![
                    text(&c.name),
                    text(&c.statement),
                    boolean(c.holdable),
                    boolean(c.binary),
                    boolean(c.scrollable),
                    Value::Timestamptz(c.created),
                ]);
            }
        }
        "pg_stat_activity" => {
            if let Some((_, backends, _)) = &ctx.backends {
                let roles = v.roles();
                let cluster = v.db.cluster();
                for (p, user, database, a) in backends.activities() {
                    let role = roles.iter().find(|r| r.1 == user).map_or(0, |r| r.0);
                    let datname = cluster
                        .database_by_oid(database)
                        .map_or(NULL, |d| text(d.name()));
                    let mut row = vec![
                        oid(database),
                        datname,
                        int4(p as i64),
                        NULL,
                        oid(role),
                        text(user),
                        text(&a.application_name),
                    ];
                    row.resize(22, NULL);
                    row[21] = text("client backend");
                    // What it is doing only for its own role, members of it and
                    // superusers (PostgreSQL's HAS_PGSTAT_PERMISSIONS).
                    if !crate::session::privileges::owns(v.db, ctx.role, role) {
                        row[20] = text("<insufficient privilege>");
                        rows.push(row);
                        continue;
                    }
                    let time = |t: Option<i64>| t.map_or(NULL, Value::Timestamptz);
                    if let Some(addr) = a.client {
                        row[7] = text(addr.ip().to_string());
                        row[9] = int4(addr.port() as i64);
                    }
                    row[10] = Value::Timestamptz(a.backend_start);
                    row[11] = time(a.xact_start);
                    row[12] = time(a.query_start);
                    row[13] = time(a.state_change);
                    row[16] = text(a.state);
                    row[20] = text(a.query);
                    rows.push(row);
                }
            }
        }
        "pg_locks" => {
            // Table locks (the catalog's own lock, oid 0, is kiln's and not shown).
            if let Some((_, backends, _)) = &ctx.backends {
                for (rel, owner, mode, granted) in v.db.txns.table_locks() {
                    if rel == 0 {
                        continue;
                    }
                    let Some(pid) = backends.pid_of_owner(owner) else {
                        continue;
                    };
                    let mut row = vec![text("relation"), oid(v.db.oid), oid(rel)];
                    row.resize(11, NULL);
                    row.extend([
                        int4(pid as i64),
                        text(mode.lock_name()),
                        boolean(granted),
                        boolean(false),
                        NULL,
                    ]);
                    rows.push(row);
                }
                // Each writing transaction holds its transaction id; a session waiting
                // for another's row or key waits on that transaction's id.
                let (held, awaited) = v.db.txns.transaction_locks();
                let held = held.into_iter().map(|(t, o)| (t, o, true));
                let awaited = awaited.into_iter().map(|(o, t)| (t, o, false));
                for (txn, owner, granted) in held.chain(awaited) {
                    let Some(pid) = backends.pid_of_owner(owner) else {
                        continue;
                    };
                    let mut row = vec![text("transactionid")];
                    row.resize(6, NULL);
                    row.push(Value::Int8(txn as i64));
                    row.resize(11, NULL);
                    row.extend([
                        int4(pid as i64),
                        text(if granted {
                            "ExclusiveLock"
                        } else {
                            "ShareLock"
                        }),
                        boolean(granted),
                        boolean(false),
                        NULL,
                    ]);
                    rows.push(row);
                }
            }
        }
        "pg_stat_ssl" => {
            if let Some((_, backends, _)) = &ctx.backends {
                for (p, ssl) in backends.ssl() {
                    let (on, version, cipher, bits) = match ssl {
                        Some((v, c)) => {
                            let (name, bits) = openssl_cipher(&c);
                            (true, text(v), text(name), int4(bits))
                        }
                        None => (false, NULL, NULL, NULL),
                    };
                    rows.push(vec![
                        int4(p as i64),
                        boolean(on),
                        version,
                        cipher,
                        bits,
                        NULL,
                        NULL,
                        NULL,
                    ]);
                }
            }
        }
        "pg_tables" => {
            let o = v.owner_name();
            for t in v.tables.iter().filter(|t| t.kind() == RelKind::Table) {
                rows.push(vec![
                    text(v.namespace_name(t.namespace).unwrap_or_default()),
                    text(&t.name),
                    text(v.role_name(t.owner).unwrap_or_default()),
                    NULL,
                    boolean(!t.indexes.is_empty()),
                    boolean(false),
                    boolean(false),
                    boolean(false),
                ]);
            }
            for s in SystemTable::all().filter(|s| s.def().kind == 'r') {
                rows.push(vec![
                    text(v.namespace_name(s.schema_oid()).unwrap_or_default()),
                    text(s.name()),
                    text(&o),
                    NULL,
                    boolean(false),
                    boolean(false),
                    boolean(false),
                    boolean(false),
                ]);
            }
        }
        "pg_extension" => {
            for e in v.db.catalog.visible_extensions(&v.ctx.snapshot) {
                rows.push(vec![
                    oid(e.oid),
                    text(&e.name),
                    oid(e.owner),
                    oid(e.namespace),
                    boolean(e.relocatable),
                    text(e.version),
                    NULL,
                    NULL,
                ]);
            }
        }
        "pg_available_extensions" => {
            let installed = v.db.catalog.visible_extensions(&v.ctx.snapshot);
            for a in crate::catalog::extension::AVAILABLE {
                let version = installed
                    .iter()
                    .find(|e| e.name == a.name)
                    .map_or(NULL, |e| text(e.version));
                rows.push(vec![
                    text(a.name),
                    text(a.version),
                    version,
                    text(a.comment),
                ]);
            }
        }
        "pg_views" => {
            for t in &v.tables {
                let Some(view) = &t.view else { continue };
                rows.push(vec![
                    text(v.namespace_name(t.namespace).unwrap_or_default()),
                    text(&t.name),
                    text(v.role_name(t.owner).unwrap_or_default()),
                    text(view_definition(&view.sql)),
                ]);
            }
        }
        "pg_indexes" => {
            for t in &v.tables {
                for ix in &t.indexes {
                    rows.push(vec![
                        text(v.namespace_name(t.namespace).unwrap_or_default()),
                        text(&t.name),
                        text(&ix.name),
                        NULL,
                        text(index_def(t, ix, v.schema_for_def(t, false).as_deref())),
                    ]);
                }
            }
        }
        "pg_sequences" => {
            for t in &v.tables {
                let Some(seq) = &t.sequence else { continue };
                let opts = seq.options();
                let (last, called) = seq.peek();
                rows.push(vec![
                    text(v.namespace_name(t.namespace).unwrap_or_default()),
                    text(&t.name),
                    text(v.role_name(t.owner).unwrap_or_default()),
                    oid(opts.ty.oid()),
                    Value::Int8(opts.start),
                    Value::Int8(opts.min),
                    Value::Int8(opts.max),
                    Value::Int8(opts.increment),
                    boolean(opts.cycle),
                    Value::Int8(opts.cache),
                    if called { Value::Int8(last) } else { NULL },
                ]);
            }
        }
        "schemata" => {
            // The schemas the role owns (or is a member of the owner of) or may use or
            // create in, as PostgreSQL's view filters them.
            use crate::catalog::acl::Privs;
            use crate::session::privileges::{owns, schema_privs};
            for ns in &v.namespaces {
                let visible = owns(v.db, ctx.role, ns.owner)
                    || !schema_privs(v.db, ctx.role, ns, Privs::USAGE | Privs::CREATE).is_empty()
                    || ns.is_system();
                if !visible {
                    continue;
                }
                let owner = if ns.is_system() {
                    v.owner_name()
                } else {
                    v.role_name(ns.owner).unwrap_or_default()
                };
                rows.push(vec![
                    text(&ctx.database),
                    text(&ns.name),
                    text(owner),
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                ]);
            }
        }
        "tables" => {
            for r in relations(&v)
                .into_iter()
                .filter(|r| matches!(r.kind, 'r' | 'v'))
                .filter(|r| v.may_see(r))
            {
                let view = r.kind == 'v';
                let temp = r.table.is_some_and(|t| t.temp);
                rows.push(vec![
                    text(&ctx.database),
                    text(v.namespace_name(r.nsp).unwrap_or_default()),
                    text(r.name),
                    text(if temp {
                        "LOCAL TEMPORARY"
                    } else if view {
                        "VIEW"
                    } else {
                        "BASE TABLE"
                    }),
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    // kiln's views take no INSERT (PostgreSQL's simple views do).
                    text(if view || r.table.is_none() {
                        "NO"
                    } else {
                        "YES"
                    }),
                    text("NO"),
                    NULL,
                ]);
            }
        }
        "columns" => {
            for r in relations(&v)
                .into_iter()
                .filter(|r| matches!(r.kind, 'r' | 'v'))
                .filter(|r| v.may_see(r))
            {
                for (i, c) in r.columns.iter().enumerate() {
                    let default = r
                        .table
                        .and_then(|t| t.columns.get(i))
                        .filter(|d| d.identity.is_none())
                        .and_then(|d| d.default.as_ref())
                        .map(|e| expr_sql_named(e, &v.names()));
                    let generated = r
                        .table
                        .and_then(|t| t.columns.get(i))
                        .and_then(|d| d.generated.as_ref())
                        .map(expr_sql);
                    // A domain column: the domain's schema and name.
                    let domain = (c.ty.domain != 0)
                        .then(|| v.db.catalog.user_type(c.ty.domain, &v.ctx.snapshot))
                        .flatten()
                        .map(|t| {
                            (
                                v.namespace_name(t.namespace)
                                    .unwrap_or_default()
                                    .to_string(),
                                t.name.clone(),
                            )
                        });
                    // A user-defined type's schema (the built-in ones': pg_catalog).
                    let udt_schema = match c.ty.ty {
                        DataType::Enum(o) => {
                            v.db.catalog
                                .user_type(o, &v.ctx.snapshot)
                                .and_then(|t| v.namespace_name(t.namespace))
                                .unwrap_or("pg_catalog")
                        }
                        _ => "pg_catalog",
                    };
                    rows.push(info_column(
                        &ctx.database,
                        v.namespace_name(r.nsp).unwrap_or_default(),
                        &r,
                        (i, c),
                        default,
                        generated,
                        (udt_schema, domain),
                    ));
                }
            }
        }
        "views" => {
            for t in &v.tables {
                let Some(view) = &t.view else { continue };
                rows.push(vec![
                    text(&ctx.database),
                    text(v.namespace_name(t.namespace).unwrap_or_default()),
                    text(&t.name),
                    text(view_definition(&view.sql)),
                    text("NONE"),
                    text("NO"),
                    text("NO"),
                    text("NO"),
                    text("NO"),
                    text("NO"),
                ]);
            }
        }
        "table_constraints" => {
            // NOT NULL columns are CHECK constraints here, named by PostgreSQL's rule.
            for t in v.tables.iter().filter(|t| t.kind() == RelKind::Table) {
                for (i, c) in t.columns.iter().enumerate() {
                    if !c.not_null {
                        continue;
                    }
                    rows.push(vec![
                        text(&ctx.database),
                        text(v.namespace_name(t.namespace).unwrap_or_default()),
                        text(format!("{}_{}_{}_not_null", t.namespace, t.oid, i + 1)),
                        text(&ctx.database),
                        text(v.namespace_name(t.namespace).unwrap_or_default()),
                        text(&t.name),
                        text("CHECK"),
                        text("NO"),
                        text("NO"),
                        text("YES"),
                        NULL,
                    ]);
                }
            }
            for c in constraints(&v) {
                let kind = match c.kind {
                    'p' => "PRIMARY KEY",
                    'u' => "UNIQUE",
                    'f' => "FOREIGN KEY",
                    _ => "CHECK",
                };
                rows.push(vec![
                    text(&ctx.database),
                    text(v.namespace_name(c.table.namespace).unwrap_or_default()),
                    text(c.name),
                    text(&ctx.database),
                    text(v.namespace_name(c.table.namespace).unwrap_or_default()),
                    text(&c.table.name),
                    text(kind),
                    text(if c.deferrable { "YES" } else { "NO" }),
                    text(if c.deferred { "YES" } else { "NO" }),
                    text("YES"),
                    if c.kind == 'u' {
                        let nnd = c
                            .table
                            .indexes
                            .iter()
                            .find(|i| i.oid == c.index)
                            .is_some_and(|i| i.index.nulls_not_distinct);
                        text(if nnd { "NO" } else { "YES" })
                    } else {
                        NULL
                    },
                ]);
            }
        }
        "key_column_usage" => {
            for c in constraints(&v).iter().filter(|c| c.kind != 'c') {
                for (k, col) in c.columns.iter().enumerate() {
                    let position = c.foreign.as_ref().and_then(|(_, parent_cols, _, _)| {
                        parent_cols.get(k).map(|_| k as i64 + 1)
                    });
                    rows.push(vec![
                        text(&ctx.database),
                        text(v.namespace_name(c.table.namespace).unwrap_or_default()),
                        text(c.name),
                        text(&ctx.database),
                        text(v.namespace_name(c.table.namespace).unwrap_or_default()),
                        text(&c.table.name),
                        text(c.table.columns.get(*col).map_or("", |c| c.name.as_str())),
                        int4(k as i64 + 1),
                        position.map_or(NULL, int4),
                    ]);
                }
            }
        }
        "referential_constraints" => {
            let all = constraints(&v);
            let rule =
                |a: FkAction| crate::catalog::system::fk_action_sql(a).unwrap_or("NO ACTION");
            for c in all.iter().filter(|c| c.kind == 'f') {
                let Some((parent, parent_cols, on_update, on_delete)) = &c.foreign else {
                    continue;
                };
                let mut wanted = parent_cols.clone();
                wanted.sort_unstable();
                let key = all.iter().find(|u| {
                    matches!(u.kind, 'p' | 'u') && u.table.oid == *parent && {
                        let mut k = u.columns.clone();
                        k.sort_unstable();
                        k == wanted
                    }
                });
                let schema = |t: &TableEntry| v.namespace_name(t.namespace).unwrap_or_default();
                rows.push(vec![
                    text(&ctx.database),
                    text(schema(c.table)),
                    text(c.name),
                    key.map_or(NULL, |_| text(&ctx.database)),
                    key.map_or(NULL, |k| text(schema(k.table))),
                    key.map_or(NULL, |k| text(k.name)),
                    text("NONE"),
                    text(rule(*on_update)),
                    text(rule(*on_delete)),
                ]);
            }
        }
        "sequences" => {
            for t in &v.tables {
                let Some(seq) = &t.sequence else { continue };
                let o = seq.options();
                let bits = match o.ty {
                    DataType::Int2 => 16,
                    DataType::Int4 => 32,
                    _ => 64,
                };
                rows.push(vec![
                    text(&ctx.database),
                    text(v.namespace_name(t.namespace).unwrap_or_default()),
                    text(&t.name),
                    text(o.ty.name()),
                    int4(bits),
                    int4(2),
                    int4(0),
                    text(o.start.to_string()),
                    text(o.min.to_string()),
                    text(o.max.to_string()),
                    text(o.increment.to_string()),
                    text(if o.cycle { "YES" } else { "NO" }),
                ]);
            }
        }
        // The catalogs kiln has nothing in: their columns, no rows.
        _ => {}
    }
    Ok(rows.batch())
}

/// One row of information_schema.columns.
fn info_column(
    database: &str,
    schema: &str,
    r: &Rel,
    (i, c): (usize, &Col),
    default: Option<String>,
    generated: Option<String>,
    (udt_schema, domain): (&str, Option<(String, String)>),
) -> Vec<Value> {
    let ty = c.ty;
    let (char_max, octet_max) = match ty.ty {
        DataType::Varchar | DataType::Bpchar if ty.typmod >= 4 => {
            let n = (ty.typmod - 4) as i64;
            (int4(n), int4(n * 4))
        }
        DataType::Varchar | DataType::Bpchar | DataType::Text => (NULL, int4(1_073_741_824)),
        _ => (NULL, NULL),
    };
    let (precision, radix, scale) = match ty.ty {
        DataType::Int2 => (int4(16), int4(2), int4(0)),
        DataType::Int4 => (int4(32), int4(2), int4(0)),
        DataType::Int8 => (int4(64), int4(2), int4(0)),
        DataType::Float4 => (int4(24), int4(2), NULL),
        DataType::Float8 => (int4(53), int4(2), NULL),
        DataType::Numeric if ty.typmod >= 4 => {
            let (p, s) = crate::types::numeric_typmod_parts(ty.typmod);
            (int4(p as i64), int4(10), int4(s as i64))
        }
        DataType::Numeric => (NULL, int4(10), NULL),
        _ => (NULL, NULL, NULL),
    };
    let datetime_precision = match ty.ty {
        DataType::Date => int4(0),
        DataType::Timestamp
        | DataType::Timestamptz
        | DataType::Interval
        | DataType::Time
        | DataType::TimeTz => int4(crate::types::datetime_precision(ty).unwrap_or(6) as i64),
        _ => NULL,
    };
    let data_type = match ty.ty {
        DataType::Array(_) => "ARRAY".to_string(),
        DataType::Enum(_) => "USER-DEFINED".to_string(),
        DataType::Name | DataType::Char | DataType::Oid => type_name(ty.ty),
        t if t.is_reg() => type_name(t),
        t => t.name().to_string(),
    };
    let coll = collation_of(ty.ty) == DEFAULT_COLLATION && !ty.ty.is_array();
    let identity = !c.identity.is_empty();
    vec![
        text(database),
        text(schema),
        text(r.name),
        text(&c.name),
        int4(i as i64 + 1),
        default.map_or(NULL, text),
        text(if c.not_null { "NO" } else { "YES" }),
        text(data_type),
        char_max,
        octet_max,
        precision,
        radix,
        scale,
        datetime_precision,
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        domain.as_ref().map_or(NULL, |_| text(database)),
        domain.as_ref().map_or(NULL, |(s, _)| text(s.clone())),
        domain.as_ref().map_or(NULL, |(_, n)| text(n.clone())),
        text(database),
        text(udt_schema),
        text(type_name(ty.ty)),
        NULL,
        NULL,
        NULL,
        NULL,
        text((i + 1).to_string()),
        text("NO"),
        text(if identity { "YES" } else { "NO" }),
        if identity {
            text(if c.identity == "a" {
                "ALWAYS"
            } else {
                "BY DEFAULT"
            })
        } else {
            NULL
        },
        NULL,
        NULL,
        NULL,
        NULL,
        if identity { text("NO") } else { NULL },
        text(if generated.is_some() {
            "ALWAYS"
        } else {
            "NEVER"
        }),
        generated.map_or(NULL, text),
        text(if r.kind == 'r' && r.nsp == PUBLIC_OID {
            "YES"
        } else {
            "NO"
        }),
    ]
    .into_iter()
    .enumerate()
    .map(|(k, v)| if k == 19 && coll { NULL } else { v })
    .collect()
}
