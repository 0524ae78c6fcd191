//! pg_catalog and information_schema: PostgreSQL's system catalogs, generated from
//! kiln's catalog at the statement's snapshot.
//!
//! kiln keeps no catalog tables of its own kind; a system table is a definition (name,
//! oid, PostgreSQL 15's columns in order) and a generator that builds its rows when a
//! query scans it (`LogicalPlan::Series` with `TableFunc::System`), from the catalog
//! versions the statement's snapshot sees, the roles and the sessions. So `\d` in psql,
//! JDBC's DatabaseMetaData and SQLAlchemy's reflection read what they read from
//! PostgreSQL, with joins, filters and functions run by the ordinary executor.
//!
//! ## Object ids
//!
//! Tables, views, sequences, indexes and foreign keys have oids from the catalog's
//! counter (user objects from 16384, as in PostgreSQL). Namespaces, types, access
//! methods and the system tables themselves have PostgreSQL's fixed oids. Objects kiln
//! stores without an oid get one derived from their owner, tagged in the top four bits
//! so the functions that take an oid (`pg_get_constraintdef`) find them again:
//! `0x9…` a key constraint (the low bits: its index's oid), `0xA…` a CHECK
//! (table oid × 64 + its position), `0xB…` a column default (table oid × 2048 + attnum).
//!
//! ## Not modelled
//!
//! Privileges (every `*acl` is NULL: owners' default rights), comments (pg_description
//! is empty until COMMENT ON exists), functions (pg_proc lists none: kiln's built-ins
//! are not catalog objects yet), inheritance, triggers, policies, publications and
//! extended statistics (empty tables with their real columns, so the queries that
//! join them run). `int2vector` and `oidvector` columns are `int2[]` and `oid[]`.

use std::sync::Arc;

use crate::catalog::{FkAction, IndexEntry, KeyConstraint, RelKind, TableEntry};
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::exec::vector::{Batch, Vector};
use crate::sql::expr::{Expr, Func};
use crate::types::{DataType, SqlType, Value};

pub const PG_CATALOG_OID: u32 = 11;
pub const PG_TOAST_OID: u32 = 99;
pub const PUBLIC_OID: u32 = 2200;
pub const INFORMATION_SCHEMA_OID: u32 = 13_183;
/// pg_class's own oid: `classoid` of relations.
pub const PG_CLASS_OID: u32 = 1259;
/// The one database's oid.
pub const DATABASE_OID: u32 = 5;
const HEAP_AM: u32 = 2;
const BTREE_AM: u32 = 403;
const DEFAULT_COLLATION: u32 = 100;
const PG_DEFAULT_TABLESPACE: u32 = 1663;

const TAG_KEY: u32 = 0x9000_0000;
const TAG_CHECK: u32 = 0xA000_0000;
const TAG_DEFAULT: u32 = 0xB000_0000;

/// A system table or view: an index into [`DEFS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SystemTable(u16);

struct Def {
    schema: u32,
    name: &'static str,
    oid: u32,
    /// 'r' a catalog table, 'v' a system view.
    kind: char,
    /// PostgreSQL 15's columns, in order: `name type, …`.
    columns: &'static str,
}

const fn def(schema: u32, name: &'static str, oid: u32, kind: char, columns: &'static str) -> Def {
    Def {
        schema,
        name,
        oid,
        kind,
        columns,
    }
}

const C: u32 = PG_CATALOG_OID;
const I: u32 = INFORMATION_SCHEMA_OID;

static DEFS: &[Def] = &[
    def(
        C,
        "pg_namespace",
        2615,
        'r',
        "oid oid, nspname name, nspowner oid, nspacl aclitem[]",
    ),
    def(
        C,
        "pg_class",
        PG_CLASS_OID,
        'r',
        "oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, \
         relam oid, relfilenode oid, reltablespace oid, relpages int4, reltuples float4, \
         relallvisible int4, reltoastrelid oid, relhasindex bool, relisshared bool, \
         relpersistence char, relkind char, relnatts int2, relchecks int2, relhasrules bool, \
         relhastriggers bool, relhassubclass bool, relrowsecurity bool, \
         relforcerowsecurity bool, relispopulated bool, relreplident char, \
         relispartition bool, relrewrite oid, relfrozenxid xid, relminmxid xid, \
         relacl aclitem[], reloptions text[], relpartbound pg_node_tree",
    ),
    def(
        C,
        "pg_attribute",
        1249,
        'r',
        "attrelid oid, attname name, atttypid oid, attstattarget int4, attlen int2, \
         attnum int2, attndims int4, attcacheoff int4, atttypmod int4, attbyval bool, \
         attalign char, attstorage char, attcompression char, attnotnull bool, \
         atthasdef bool, atthasmissing bool, attidentity char, attgenerated char, \
         attisdropped bool, attislocal bool, attinhcount int4, attcollation oid, \
         attacl aclitem[], attoptions text[], attfdwoptions text[], attmissingval text",
    ),
    def(
        C,
        "pg_type",
        1247,
        'r',
        "oid oid, typname name, typnamespace oid, typowner oid, typlen int2, typbyval bool, \
         typtype char, typcategory char, typispreferred bool, typisdefined bool, \
         typdelim char, typrelid oid, typsubscript regproc, typelem oid, typarray oid, \
         typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, \
         typmodin regproc, typmodout regproc, typanalyze regproc, typalign char, \
         typstorage char, typnotnull bool, typbasetype oid, typtypmod int4, typndims int4, \
         typcollation oid, typdefaultbin pg_node_tree, typdefault text, typacl aclitem[]",
    ),
    def(
        C,
        "pg_index",
        2610,
        'r',
        "indexrelid oid, indrelid oid, indnatts int2, indnkeyatts int2, indisunique bool, \
         indnullsnotdistinct bool, indisprimary bool, indisexclusion bool, \
         indimmediate bool, indisclustered bool, indisvalid bool, indcheckxmin bool, \
         indisready bool, indislive bool, indisreplident bool, indkey int2vector, \
         indcollation oidvector, indclass oidvector, indoption int2vector, \
         indexprs pg_node_tree, indpred pg_node_tree",
    ),
    def(
        C,
        "pg_constraint",
        2606,
        'r',
        "oid oid, conname name, connamespace oid, contype char, condeferrable bool, \
         condeferred bool, convalidated bool, conrelid oid, contypid oid, conindid oid, \
         conparentid oid, confrelid oid, confupdtype char, confdeltype char, \
         confmatchtype char, conislocal bool, coninhcount int4, connoinherit bool, \
         conkey int2[], confkey int2[], conpfeqop oid[], conppeqop oid[], \
         conffeqop oid[], confdelsetcols int2[], conexclop oid[], conbin pg_node_tree",
    ),
    def(
        C,
        "pg_attrdef",
        2604,
        'r',
        "oid oid, adrelid oid, adnum int2, adbin pg_node_tree",
    ),
    def(
        C,
        "pg_am",
        2601,
        'r',
        "oid oid, amname name, amhandler regproc, amtype char",
    ),
    def(
        C,
        "pg_roles",
        12_001,
        'v',
        "rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, \
         rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolconnlimit int4, \
         rolpassword text, rolvaliduntil timestamptz, rolbypassrls bool, \
         rolconfig text[], oid oid",
    ),
    def(
        C,
        "pg_user",
        12_002,
        'v',
        "usename name, usesysid oid, usecreatedb bool, usesuper bool, userepl bool, \
         usebypassrls bool, passwd text, valuntil timestamptz, useconfig text[]",
    ),
    def(
        C,
        "pg_auth_members",
        1261,
        'r',
        "oid oid, roleid oid, member oid, grantor oid, admin_option bool",
    ),
    def(
        C,
        "pg_database",
        1262,
        'r',
        "oid oid, datname name, datdba oid, encoding int4, datlocprovider char, \
         datistemplate bool, datallowconn bool, datconnlimit int4, datfrozenxid xid, \
         datminmxid xid, dattablespace oid, datcollate text, datctype text, \
         daticulocale text, datcollversion text, datacl aclitem[]",
    ),
    def(
        C,
        "pg_description",
        2609,
        'r',
        "objoid oid, classoid oid, objsubid int4, description text",
    ),
    def(
        C,
        "pg_shdescription",
        2396,
        'r',
        "objoid oid, classoid oid, description text",
    ),
    def(
        C,
        "pg_collation",
        3456,
        'r',
        "oid oid, collname name, collnamespace oid, collowner oid, collprovider char, \
         collisdeterministic bool, collencoding int4, collcollate text, collctype text, \
         colliculocale text, collversion text",
    ),
    def(
        C,
        "pg_inherits",
        2611,
        'r',
        "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool",
    ),
    def(
        C,
        "pg_trigger",
        2620,
        'r',
        "oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype int2, \
         tgenabled char, tgisinternal bool, tgconstrrelid oid, tgconstrindid oid, \
         tgconstraint oid, tgdeferrable bool, tginitdeferred bool, tgnargs int2, \
         tgattr int2vector, tgargs text, tgqual pg_node_tree, tgoldtable name, \
         tgnewtable name",
    ),
    def(
        C,
        "pg_policy",
        3256,
        'r',
        "oid oid, polname name, polrelid oid, polcmd char, polpermissive bool, \
         polroles oid[], polqual pg_node_tree, polwithcheck pg_node_tree",
    ),
    def(
        C,
        "pg_statistic_ext",
        3381,
        'r',
        "oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, \
         stxstattarget int4, stxkeys int2vector, stxkind char[], stxexprs pg_node_tree",
    ),
    def(
        C,
        "pg_publication",
        6104,
        'r',
        "oid oid, pubname name, pubowner oid, puballtables bool, pubinsert bool, \
         pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool",
    ),
    def(
        C,
        "pg_publication_rel",
        6106,
        'r',
        "oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector",
    ),
    def(
        C,
        "pg_publication_namespace",
        6237,
        'r',
        "oid oid, pnpubid oid, pnnspid oid",
    ),
    def(
        C,
        "pg_proc",
        1255,
        'r',
        "oid oid, proname name, pronamespace oid, proowner oid, prolang oid, \
         procost float4, prorows float4, provariadic oid, prosupport regproc, \
         prokind char, prosecdef bool, proleakproof bool, proisstrict bool, \
         proretset bool, provolatile char, proparallel char, pronargs int2, \
         pronargdefaults int2, prorettype oid, proargtypes oidvector, \
         proallargtypes oid[], proargmodes char[], proargnames text[], \
         proargdefaults pg_node_tree, protrftypes oid[], prosrc text, probin text, \
         prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]",
    ),
    def(
        C,
        "pg_depend",
        2608,
        'r',
        "classid oid, objid oid, objsubid int4, refclassid oid, refobjid oid, \
         refobjsubid int4, deptype char",
    ),
    def(
        C,
        "pg_sequence",
        2224,
        'r',
        "seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, \
         seqmin int8, seqcache int8, seqcycle bool",
    ),
    def(
        C,
        "pg_tablespace",
        1213,
        'r',
        "oid oid, spcname name, spcowner oid, spcacl aclitem[], spcoptions text[]",
    ),
    def(
        C,
        "pg_extension",
        3079,
        'r',
        "oid oid, extname name, extowner oid, extnamespace oid, extrelocatable bool, \
         extversion text, extconfig oid[], extcondition text[]",
    ),
    def(
        C,
        "pg_enum",
        3501,
        'r',
        "oid oid, enumtypid oid, enumsortorder float4, enumlabel name",
    ),
    def(
        C,
        "pg_range",
        3541,
        'r',
        "rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, \
         rngsubopc oid, rngcanonical regproc, rngsubdiff regproc",
    ),
    def(
        C,
        "pg_rewrite",
        2618,
        'r',
        "oid oid, rulename name, ev_class oid, ev_type char, ev_enabled char, \
         is_instead bool, ev_qual pg_node_tree, ev_action pg_node_tree",
    ),
    def(
        C,
        "pg_settings",
        12_003,
        'v',
        "name text, setting text, unit text, category text, short_desc text, \
         extra_desc text, context text, vartype text, source text, min_val text, \
         max_val text, enumvals text[], boot_val text, reset_val text, sourcefile text, \
         sourceline int4, pending_restart bool",
    ),
    def(
        C,
        "pg_stat_activity",
        12_004,
        'v',
        "datid oid, datname name, pid int4, leader_pid int4, usesysid oid, usename name, \
         application_name text, client_addr inet, client_hostname text, client_port int4, \
         backend_start timestamptz, xact_start timestamptz, query_start timestamptz, \
         state_change timestamptz, wait_event_type text, wait_event text, state text, \
         backend_xid xid, backend_xmin xid, query_id int8, query text, backend_type text",
    ),
    def(
        C,
        "pg_tables",
        12_005,
        'v',
        "schemaname name, tablename name, tableowner name, tablespace name, \
         hasindexes bool, hasrules bool, hastriggers bool, rowsecurity bool",
    ),
    def(
        C,
        "pg_views",
        12_006,
        'v',
        "schemaname name, viewname name, viewowner name, definition text",
    ),
    def(
        C,
        "pg_indexes",
        12_007,
        'v',
        "schemaname name, tablename name, indexname name, tablespace name, indexdef text",
    ),
    def(
        C,
        "pg_sequences",
        12_008,
        'v',
        "schemaname name, sequencename name, sequenceowner name, data_type regtype, \
         start_value int8, min_value int8, max_value int8, increment_by int8, cycle bool, \
         cache_size int8, last_value int8",
    ),
    def(
        C,
        "pg_matviews",
        12_009,
        'v',
        "schemaname name, matviewname name, matviewowner name, tablespace name, \
         hasindexes bool, ispopulated bool, definition text",
    ),
    def(
        I,
        "schemata",
        13_200,
        'v',
        "catalog_name name, schema_name name, schema_owner name, \
         default_character_set_catalog name, default_character_set_schema name, \
         default_character_set_name name, sql_path text",
    ),
    def(
        I,
        "tables",
        13_201,
        'v',
        "table_catalog name, table_schema name, table_name name, table_type text, \
         self_referencing_column_name name, reference_generation text, \
         user_defined_type_catalog name, user_defined_type_schema name, \
         user_defined_type_name name, is_insertable_into text, is_typed text, \
         commit_action text",
    ),
    def(
        I,
        "columns",
        13_202,
        'v',
        "table_catalog name, table_schema name, table_name name, column_name name, \
         ordinal_position int4, column_default text, is_nullable text, data_type text, \
         character_maximum_length int4, character_octet_length int4, \
         numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, \
         datetime_precision int4, interval_type text, interval_precision int4, \
         character_set_catalog name, character_set_schema name, character_set_name name, \
         collation_catalog name, collation_schema name, collation_name name, \
         domain_catalog name, domain_schema name, domain_name name, udt_catalog name, \
         udt_schema name, udt_name name, scope_catalog name, scope_schema name, \
         scope_name name, maximum_cardinality int4, dtd_identifier name, \
         is_self_referencing text, is_identity text, identity_generation text, \
         identity_start text, identity_increment text, identity_maximum text, \
         identity_minimum text, identity_cycle text, is_generated text, \
         generation_expression text, is_updatable text",
    ),
    def(
        I,
        "views",
        13_203,
        'v',
        "table_catalog name, table_schema name, table_name name, view_definition text, \
         check_option text, is_updatable text, is_insertable_into text, \
         is_trigger_updatable text, is_trigger_deletable text, \
         is_trigger_insertable_into text",
    ),
    def(
        I,
        "table_constraints",
        13_204,
        'v',
        "constraint_catalog name, constraint_schema name, constraint_name name, \
         table_catalog name, table_schema name, table_name name, constraint_type text, \
         is_deferrable text, initially_deferred text, enforced text, nulls_distinct text",
    ),
    def(
        I,
        "key_column_usage",
        13_205,
        'v',
        "constraint_catalog name, constraint_schema name, constraint_name name, \
         table_catalog name, table_schema name, table_name name, column_name name, \
         ordinal_position int4, position_in_unique_constraint int4",
    ),
    def(
        I,
        "sequences",
        13_206,
        'v',
        "sequence_catalog name, sequence_schema name, sequence_name name, data_type text, \
         numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, \
         start_value text, minimum_value text, maximum_value text, increment text, \
         cycle_option text",
    ),
];

/// The type of a column spec's type word.
fn spec_type(word: &str) -> SqlType {
    let array = |elem| SqlType::new(DataType::array_of(elem).unwrap_or(DataType::Text));
    match word {
        "oid" => SqlType::new(DataType::Oid),
        "name" => SqlType::new(DataType::Name),
        "bool" => SqlType::new(DataType::Bool),
        "int2" => SqlType::new(DataType::Int2),
        "int4" => SqlType::new(DataType::Int4),
        "int8" | "xid" => SqlType::new(DataType::Int8),
        "float4" => SqlType::new(DataType::Float4),
        "char" => SqlType::new(DataType::Char),
        "regproc" => SqlType::new(DataType::RegProc),
        "regtype" => SqlType::new(DataType::RegType),
        "timestamptz" => SqlType::new(DataType::Timestamptz),
        "oid[]" | "oidvector" => array(DataType::Oid),
        "int2[]" | "int2vector" => array(DataType::Int2),
        "char[]" => array(DataType::Char),
        "text[]" | "aclitem[]" => array(DataType::Text),
        // text, pg_node_tree, inet
        _ => SqlType::new(DataType::Text),
    }
}

impl SystemTable {
    fn def(self) -> &'static Def {
        &DEFS[self.0 as usize]
    }

    pub fn name(self) -> &'static str {
        self.def().name
    }

    pub fn oid(self) -> u32 {
        self.def().oid
    }

    pub fn schema_oid(self) -> u32 {
        self.def().schema
    }

    /// Column names and types, in order.
    pub fn columns(self) -> Vec<(&'static str, SqlType)> {
        self.def()
            .columns
            .split(',')
            .filter_map(|c| {
                let c = c.trim();
                let (name, ty) = c.split_once(' ')?;
                Some((name, spec_type(ty.trim())))
            })
            .collect()
    }

    /// The system table called `name` in schema `schema` (pg_catalog when None).
    pub fn lookup(schema: Option<&str>, name: &str) -> Option<SystemTable> {
        let nsp = match schema {
            None | Some("pg_catalog") => PG_CATALOG_OID,
            Some("information_schema") => INFORMATION_SCHEMA_OID,
            Some(_) => return None,
        };
        DEFS.iter()
            .position(|d| d.schema == nsp && d.name == name)
            .map(|i| SystemTable(i as u16))
    }

    fn all() -> impl Iterator<Item = SystemTable> {
        (0..DEFS.len()).map(|i| SystemTable(i as u16))
    }

    fn by_oid(oid: u32) -> Option<SystemTable> {
        Self::all().find(|t| t.oid() == oid)
    }
}

/// The name of namespace `oid`.
pub fn namespace_name(oid: u32) -> Option<&'static str> {
    Some(match oid {
        PG_CATALOG_OID => "pg_catalog",
        PUBLIC_OID => "public",
        INFORMATION_SCHEMA_OID => "information_schema",
        PG_TOAST_OID => "pg_toast",
        _ => return None,
    })
}

fn namespace_oid(name: &str) -> Option<u32> {
    [
        PG_CATALOG_OID,
        PUBLIC_OID,
        INFORMATION_SCHEMA_OID,
        PG_TOAST_OID,
    ]
    .into_iter()
    .find(|&o| namespace_name(o) == Some(name))
}

// ---------------------------------------------------------------------------------
// What the generators read.

/// The catalog as one statement sees it.
struct View<'a> {
    ctx: &'a ExecContext,
    db: &'a crate::Database,
    tables: Vec<Arc<TableEntry>>,
}

impl<'a> View<'a> {
    fn new(ctx: &'a ExecContext) -> Result<View<'a>> {
        let Some(db) = ctx.db.as_deref() else {
            return Err(Error::feature_not_supported("system catalogs here"));
        };
        let tables = db.catalog.visible_tables(&ctx.snapshot);
        Ok(View { ctx, db, tables })
    }

    fn table(&self, oid: u32) -> Option<&Arc<TableEntry>> {
        self.tables.iter().find(|t| t.oid == oid)
    }

    fn index(&self, oid: u32) -> Option<(&Arc<TableEntry>, &Arc<IndexEntry>)> {
        self.tables
            .iter()
            .find_map(|t| t.indexes.iter().find(|i| i.oid == oid).map(|i| (t, i)))
    }

    /// The name of the owner of everything: the bootstrap superuser, or the session's
    /// user when no role was made at start.
    fn owner_name(&self) -> String {
        match self.db.roles.by_oid(crate::auth::BOOTSTRAP_SUPERUSER_OID) {
            Some(r) => r.name,
            None => self.ctx.user.clone(),
        }
    }

    /// Every role: (oid, name, superuser, login).
    fn roles(&self) -> Vec<(u32, String, bool, bool)> {
        let mut out: Vec<_> = self
            .db
            .roles
            .all()
            .into_iter()
            .map(|r| (r.oid, r.name, r.superuser, r.login))
            .collect();
        if !out
            .iter()
            .any(|r| r.0 == crate::auth::BOOTSTRAP_SUPERUSER_OID)
            && !out.iter().any(|r| r.1 == self.ctx.user)
        {
            out.push((
                crate::auth::BOOTSTRAP_SUPERUSER_OID,
                self.ctx.user.clone(),
                true,
                true,
            ));
        }
        // PostgreSQL 15's predefined role that owns schema public.
        out.push((6171, "pg_database_owner".into(), false, false));
        out.sort_by_key(|r| r.0);
        out
    }

    fn role_name(&self, oid: u32) -> Option<String> {
        self.roles().into_iter().find(|r| r.0 == oid).map(|r| r.1)
    }
}

/// A relation as pg_class lists it.
struct Rel<'a> {
    oid: u32,
    name: &'a str,
    nsp: u32,
    kind: char,
    columns: Vec<Col>,
    table: Option<&'a Arc<TableEntry>>,
}

struct Col {
    name: String,
    ty: SqlType,
    not_null: bool,
    has_default: bool,
    identity: &'static str,
    generated: &'static str,
}

fn relkind(t: &TableEntry) -> char {
    match t.kind() {
        RelKind::Table => 'r',
        RelKind::View => 'v',
        RelKind::Sequence => 'S',
    }
}

fn table_columns(t: &TableEntry) -> Vec<Col> {
    t.columns
        .iter()
        .map(|c| Col {
            name: c.name.clone(),
            ty: c.ty,
            not_null: c.not_null,
            has_default: c.default.is_some() || c.generated.is_some(),
            identity: match c.identity {
                Some(true) => "a",
                Some(false) => "d",
                None => "",
            },
            generated: if c.generated.is_some() { "s" } else { "" },
        })
        .collect()
}

/// Every relation: the system tables, then kiln's tables, views, sequences and indexes.
fn relations<'a>(v: &'a View<'a>) -> Vec<Rel<'a>> {
    let mut out = Vec::new();
    for t in SystemTable::all() {
        out.push(Rel {
            oid: t.oid(),
            name: t.name(),
            nsp: t.schema_oid(),
            kind: t.def().kind,
            columns: t
                .columns()
                .into_iter()
                .map(|(name, ty)| Col {
                    name: name.to_string(),
                    ty,
                    not_null: false,
                    has_default: false,
                    identity: "",
                    generated: "",
                })
                .collect(),
            table: None,
        });
    }
    for t in &v.tables {
        let columns = if t.kind() == RelKind::Sequence {
            sequence_columns()
        } else {
            table_columns(t)
        };
        out.push(Rel {
            oid: t.oid,
            name: &t.name,
            nsp: PUBLIC_OID,
            kind: relkind(t),
            columns,
            table: Some(t),
        });
        for ix in &t.indexes {
            out.push(Rel {
                oid: ix.oid,
                name: &ix.name,
                nsp: PUBLIC_OID,
                kind: 'i',
                columns: ix
                    .index
                    .parts
                    .iter()
                    .filter_map(|p| t.columns.get(p.column))
                    .map(|c| Col {
                        name: c.name.clone(),
                        ty: c.ty,
                        not_null: false,
                        has_default: false,
                        identity: "",
                        generated: "",
                    })
                    .collect(),
                table: None,
            });
        }
    }
    out
}

/// A sequence's columns as PostgreSQL shows them (`\d seq` reads them).
fn sequence_columns() -> Vec<Col> {
    [
        ("last_value", DataType::Int8),
        ("log_cnt", DataType::Int8),
        ("is_called", DataType::Bool),
    ]
    .into_iter()
    .map(|(n, t)| Col {
        name: n.into(),
        ty: SqlType::new(t),
        not_null: true,
        has_default: false,
        identity: "",
        generated: "",
    })
    .collect()
}

// ---------------------------------------------------------------------------------
// Types.

/// The scalar types pg_type lists (each with its array type).
const TYPES: [DataType; 20] = [
    DataType::Bool,
    DataType::Int2,
    DataType::Int4,
    DataType::Int8,
    DataType::Float4,
    DataType::Float8,
    DataType::Numeric,
    DataType::Text,
    DataType::Varchar,
    DataType::Bpchar,
    DataType::Date,
    DataType::Timestamp,
    DataType::Timestamptz,
    DataType::Interval,
    DataType::Record,
    DataType::Oid,
    DataType::Name,
    DataType::Char,
    DataType::RegClass,
    DataType::RegType,
];

/// pg_type's `typname`.
pub fn type_name(t: DataType) -> String {
    let scalar = |t: DataType| -> &'static str {
        match t {
            DataType::Bool => "bool",
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
            DataType::RegNamespace => "regnamespace",
            DataType::RegRole => "regrole",
            DataType::Name => "name",
            DataType::Char => "char",
            DataType::Array(_) => "anyarray",
        }
    };
    match t {
        DataType::Array(e) => format!("_{}", scalar(*e)),
        t => scalar(t).to_string(),
    }
}

/// (typlen, typbyval, typalign, typstorage, typcategory, typispreferred).
fn type_shape(t: DataType) -> (i16, bool, &'static str, &'static str, &'static str, bool) {
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
        t if t.is_oid() => (4, true, "i", "p", "N", t == DataType::Oid),
        DataType::Array(_) => (-1, false, "i", "x", "A", false),
        _ => (-2, false, "c", "p", "X", false),
    }
}

fn collation_of(t: DataType) -> u32 {
    match t {
        DataType::Text | DataType::Varchar | DataType::Bpchar => DEFAULT_COLLATION,
        DataType::Name => 950,
        DataType::Array(e) => collation_of(*e),
        _ => 0,
    }
}

// ---------------------------------------------------------------------------------
// Rows.

struct Rows {
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

fn oid(v: u32) -> Value {
    Value::Int8(v as i64)
}
fn text(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}
fn boolean(b: bool) -> Value {
    Value::Bool(b)
}
fn int2(v: i64) -> Value {
    Value::Int2(v as i16)
}
fn int4(v: i64) -> Value {
    Value::Int4(v as i32)
}
const NULL: Value = Value::Null;
fn array(elem: DataType, values: &[Value]) -> Value {
    Value::Array(Box::new(crate::types::array::from_values(elem, values)))
}
fn int2_array(values: impl IntoIterator<Item = i64>) -> Value {
    let v: Vec<Value> = values.into_iter().map(int2).collect();
    array(DataType::Int2, &v)
}

fn fk_action(a: FkAction) -> &'static str {
    match a {
        FkAction::NoAction => "a",
        FkAction::Restrict => "r",
        FkAction::Cascade => "c",
        FkAction::SetNull => "n",
        FkAction::SetDefault => "d",
    }
}

/// A constraint as pg_constraint lists it.
struct Constraint<'a> {
    oid: u32,
    name: &'a str,
    kind: char,
    table: &'a Arc<TableEntry>,
    index: u32,
    deferrable: bool,
    deferred: bool,
    columns: Vec<usize>,
    foreign: Option<(u32, Vec<usize>, FkAction, FkAction)>,
    check: Option<&'a Expr>,
}

fn constraints<'a>(v: &'a View<'a>) -> Vec<Constraint<'a>> {
    let mut out = Vec::new();
    for t in &v.tables {
        for ix in &t.indexes {
            let Some(kc) = ix.constraint else { continue };
            out.push(Constraint {
                oid: TAG_KEY | ix.oid,
                name: &ix.name,
                kind: if kc == KeyConstraint::PrimaryKey {
                    'p'
                } else {
                    'u'
                },
                table: t,
                index: ix.oid,
                deferrable: false,
                deferred: false,
                columns: ix.index.parts.iter().map(|p| p.column).collect(),
                foreign: None,
                check: None,
            });
        }
        for (k, c) in t.checks.iter().enumerate() {
            out.push(Constraint {
                oid: TAG_CHECK | (t.oid << 6) | k as u32,
                name: &c.name,
                kind: 'c',
                table: t,
                index: 0,
                deferrable: false,
                deferred: false,
                columns: Vec::new(),
                foreign: None,
                check: Some(&c.expr),
            });
        }
        for fk in &t.foreign_keys {
            let parent = if fk.parent == crate::catalog::SELF_REFERENCE {
                t.oid
            } else {
                fk.parent
            };
            let index = v
                .table(parent)
                .and_then(|p| {
                    p.indexes.iter().find(|i| {
                        i.index.unique
                            && i.index.parts.len() == fk.parent_columns.len()
                            && i.index
                                .parts
                                .iter()
                                .all(|x| fk.parent_columns.contains(&x.column))
                    })
                })
                .map_or(0, |i| i.oid);
            out.push(Constraint {
                oid: fk.oid,
                name: &fk.name,
                kind: 'f',
                table: t,
                index,
                deferrable: fk.deferrable,
                deferred: fk.initially_deferred,
                columns: fk.columns.clone(),
                foreign: Some((
                    parent,
                    fk.parent_columns.clone(),
                    fk.on_update,
                    fk.on_delete,
                )),
                check: None,
            });
        }
    }
    out
}

/// Builds the rows of system table `t` for the statement of `ctx`.
pub fn scan(t: SystemTable, ctx: &ExecContext) -> Result<Batch> {
    let v = View::new(ctx)?;
    let mut rows = Rows::new(t);
    let owner = crate::auth::BOOTSTRAP_SUPERUSER_OID;
    match t.name() {
        "pg_namespace" if t.schema_oid() == C => {
            for nsp in [
                PG_TOAST_OID,
                PG_CATALOG_OID,
                PUBLIC_OID,
                INFORMATION_SCHEMA_OID,
            ] {
                let name = namespace_name(nsp).unwrap_or_default();
                // public belongs to pg_database_owner (oid 6171) since PostgreSQL 15.
                let nspowner = if nsp == PUBLIC_OID { 6171 } else { owner };
                rows.push(vec![oid(nsp), text(name), oid(nspowner), NULL]);
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
                    oid(owner),
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
                    text("p"),
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
                    NULL,
                    NULL,
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
                        oid(c.ty.ty.oid()),
                        int4(-1),
                        int2(len as i64),
                        int2(i as i64 + 1),
                        int4(c.ty.ty.is_array() as i64),
                        int4(-1),
                        int4(c.ty.typmod as i64),
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
            let mut all: Vec<DataType> = Vec::new();
            for s in TYPES {
                all.push(s);
                if let Some(a) = DataType::array_of(s) {
                    all.push(a);
                }
            }
            all.push(DataType::Unknown);
            for ty in all {
                let (len, byval, align, storage, category, preferred) = type_shape(ty);
                // name is subscriptable: its bytes as "char"s.
                let elem = match ty {
                    DataType::Name => DataType::Char.oid(),
                    t => t.elem().map_or(0, |e| e.oid()),
                };
                let arr = DataType::array_of(ty).map_or(0, |a| a.oid());
                rows.push(vec![
                    oid(ty.oid()),
                    text(type_name(ty)),
                    oid(PG_CATALOG_OID),
                    oid(owner),
                    int2(len as i64),
                    boolean(byval),
                    text(if ty == DataType::Unknown || ty == DataType::Record {
                        "p"
                    } else {
                        "b"
                    }),
                    text(category),
                    boolean(preferred),
                    boolean(true),
                    text(","),
                    oid(0),
                    oid(0),
                    oid(elem),
                    oid(arr),
                    oid(0),
                    oid(0),
                    oid(0),
                    oid(0),
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
        }
        "pg_index" => {
            for t in &v.tables {
                for ix in &t.indexes {
                    let n = ix.index.parts.len() as i64;
                    rows.push(vec![
                        oid(ix.oid),
                        oid(t.oid),
                        int2(n),
                        int2(n),
                        boolean(ix.index.unique),
                        boolean(ix.index.nulls_not_distinct),
                        boolean(ix.constraint == Some(KeyConstraint::PrimaryKey)),
                        boolean(false),
                        boolean(true),
                        boolean(false),
                        boolean(true),
                        boolean(false),
                        boolean(true),
                        boolean(true),
                        boolean(false),
                        int2_array(ix.index.parts.iter().map(|p| p.column as i64 + 1)),
                        array(
                            DataType::Oid,
                            &ix.index
                                .parts
                                .iter()
                                .map(|p| {
                                    oid(t
                                        .columns
                                        .get(p.column)
                                        .map_or(0, |c| collation_of(c.ty.ty)))
                                })
                                .collect::<Vec<_>>(),
                        ),
                        array(DataType::Oid, &vec![oid(0); n as usize]),
                        int2_array(
                            ix.index
                                .parts
                                .iter()
                                .map(|p| (p.desc as i64) | ((p.nulls_first as i64) << 1)),
                        ),
                        NULL,
                        match &ix.index.predicate {
                            Some(p) => text(expr_sql(p)),
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
                        Some(e) => text(expr_sql(e)),
                        None => NULL,
                    },
                ]);
            }
        }
        "pg_attrdef" => {
            for t in &v.tables {
                for (i, c) in t.columns.iter().enumerate() {
                    let Some(e) = c.default.as_ref().or(c.generated.as_ref()) else {
                        continue;
                    };
                    rows.push(vec![
                        oid(TAG_DEFAULT | (t.oid << 11) | (i as u32 + 1)),
                        oid(t.oid),
                        int2(i as i64 + 1),
                        text(expr_sql(e)),
                    ]);
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
        "pg_roles" => {
            for (o, name, superuser, login) in v.roles() {
                rows.push(vec![
                    text(name),
                    boolean(superuser),
                    boolean(true),
                    boolean(superuser),
                    boolean(superuser),
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
            for (o, name, superuser, login) in v.roles() {
                if !login {
                    continue;
                }
                rows.push(vec![
                    text(name),
                    oid(o),
                    boolean(superuser),
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
            rows.push(vec![
                oid(DATABASE_OID),
                text(&ctx.database),
                oid(owner),
                int4(6),
                text("c"),
                boolean(false),
                boolean(true),
                int4(-1),
                Value::Int8(0),
                Value::Int8(1),
                oid(PG_DEFAULT_TABLESPACE),
                text("C"),
                text("C"),
                NULL,
                NULL,
                NULL,
            ]);
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
        "pg_stat_activity" => {
            if let Some((pid, backends, _)) = &ctx.backends {
                for (p, user) in backends.list() {
                    let own = p == *pid;
                    let mut row = vec![
                        oid(DATABASE_OID),
                        text(&ctx.database),
                        int4(p as i64),
                        NULL,
                        oid(v.roles().iter().find(|r| r.1 == user).map_or(0, |r| r.0)),
                        text(user),
                    ];
                    row.resize(22, NULL);
                    row[16] = text(if own { "active" } else { "idle" });
                    row[21] = text("client backend");
                    rows.push(row);
                }
            }
        }
        "pg_tables" => {
            let o = v.owner_name();
            for t in v.tables.iter().filter(|t| t.kind() == RelKind::Table) {
                rows.push(vec![
                    text("public"),
                    text(&t.name),
                    text(&o),
                    NULL,
                    boolean(!t.indexes.is_empty()),
                    boolean(false),
                    boolean(false),
                    boolean(false),
                ]);
            }
            for s in SystemTable::all().filter(|s| s.def().kind == 'r') {
                rows.push(vec![
                    text(namespace_name(s.schema_oid()).unwrap_or_default()),
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
        "pg_views" => {
            let o = v.owner_name();
            for t in &v.tables {
                let Some(view) = &t.view else { continue };
                rows.push(vec![
                    text("public"),
                    text(&t.name),
                    text(&o),
                    text(view_definition(&view.sql)),
                ]);
            }
        }
        "pg_indexes" => {
            for t in &v.tables {
                for ix in &t.indexes {
                    rows.push(vec![
                        text("public"),
                        text(&t.name),
                        text(&ix.name),
                        NULL,
                        text(index_def(t, ix, false)),
                    ]);
                }
            }
        }
        "pg_sequences" => {
            let o = v.owner_name();
            for t in &v.tables {
                let Some(seq) = &t.sequence else { continue };
                let opts = seq.options();
                let (last, called) = seq.peek();
                rows.push(vec![
                    text("public"),
                    text(&t.name),
                    text(&o),
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
            let o = v.owner_name();
            for nsp in [
                PG_TOAST_OID,
                PG_CATALOG_OID,
                PUBLIC_OID,
                INFORMATION_SCHEMA_OID,
            ] {
                rows.push(vec![
                    text(&ctx.database),
                    text(namespace_name(nsp).unwrap_or_default()),
                    text(if nsp == PUBLIC_OID {
                        "pg_database_owner"
                    } else {
                        &o
                    }),
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
            {
                let view = r.kind == 'v';
                rows.push(vec![
                    text(&ctx.database),
                    text(namespace_name(r.nsp).unwrap_or_default()),
                    text(r.name),
                    text(if view { "VIEW" } else { "BASE TABLE" }),
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    text(if view || r.nsp != PUBLIC_OID {
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
            {
                for (i, c) in r.columns.iter().enumerate() {
                    let default = r
                        .table
                        .and_then(|t| t.columns.get(i))
                        .and_then(|d| d.default.as_ref())
                        .map(expr_sql);
                    let generated = r
                        .table
                        .and_then(|t| t.columns.get(i))
                        .and_then(|d| d.generated.as_ref())
                        .map(expr_sql);
                    rows.push(info_column(&ctx.database, &r, i, c, default, generated));
                }
            }
        }
        "views" => {
            for t in &v.tables {
                let Some(view) = &t.view else { continue };
                rows.push(vec![
                    text(&ctx.database),
                    text("public"),
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
                        text("public"),
                        text(format!("{PUBLIC_OID}_{}_{}_not_null", t.oid, i + 1)),
                        text(&ctx.database),
                        text("public"),
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
                    text("public"),
                    text(c.name),
                    text(&ctx.database),
                    text("public"),
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
                        text("public"),
                        text(c.name),
                        text(&ctx.database),
                        text("public"),
                        text(&c.table.name),
                        text(c.table.columns.get(*col).map_or("", |c| c.name.as_str())),
                        int4(k as i64 + 1),
                        position.map_or(NULL, int4),
                    ]);
                }
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
                    text("public"),
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
    r: &Rel,
    i: usize,
    c: &Col,
    default: Option<String>,
    generated: Option<String>,
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
        DataType::Timestamp | DataType::Timestamptz | DataType::Interval => {
            int4(crate::types::datetime_precision(ty).unwrap_or(6) as i64)
        }
        _ => NULL,
    };
    let data_type = match ty.ty {
        DataType::Array(_) => "ARRAY".to_string(),
        DataType::Name | DataType::Char | DataType::Oid => type_name(ty.ty),
        t if t.is_reg() => type_name(t),
        t => t.name().to_string(),
    };
    let coll = collation_of(ty.ty) == DEFAULT_COLLATION && !ty.ty.is_array();
    let identity = !c.identity.is_empty();
    vec![
        text(database),
        text(namespace_name(r.nsp).unwrap_or_default()),
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
        NULL,
        NULL,
        NULL,
        text(database),
        text("pg_catalog"),
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

// ---------------------------------------------------------------------------------
// Definitions as SQL text.

/// An expression as pg_get_expr prints it.
fn expr_sql(e: &Expr) -> String {
    crate::plan::explain::expr_sql(e)
}

/// A view's query as pg_get_viewdef prints it (PostgreSQL re-deparses the query; kiln
/// keeps the text it was created with).
fn view_definition(sql: &str) -> String {
    format!(" {};", sql.trim().trim_end_matches(';'))
}

/// `CREATE [UNIQUE] INDEX name ON public.table USING btree (cols)` (pretty: the table
/// without its schema, which is on the search path).
fn index_def(t: &TableEntry, ix: &IndexEntry, pretty: bool) -> String {
    format!(
        "CREATE {}INDEX {} ON {}{} USING btree ({}){}",
        if ix.index.unique { "UNIQUE " } else { "" },
        quote_ident(&ix.name),
        if pretty { "" } else { "public." },
        quote_ident(&t.name),
        index_columns(t, ix),
        match &ix.index.predicate {
            Some(p) => format!(" WHERE {}", expr_sql(p)),
            None => String::new(),
        }
    )
}

fn index_columns(t: &TableEntry, ix: &IndexEntry) -> String {
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

fn column_list(t: &TableEntry, cols: &[usize]) -> String {
    cols.iter()
        .map(|c| {
            t.columns
                .get(*c)
                .map_or_else(String::new, |c| quote_ident(&c.name))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn fk_action_sql(a: FkAction) -> Option<&'static str> {
    match a {
        FkAction::NoAction => None,
        FkAction::Restrict => Some("RESTRICT"),
        FkAction::Cascade => Some("CASCADE"),
        FkAction::SetNull => Some("SET NULL"),
        FkAction::SetDefault => Some("SET DEFAULT"),
    }
}

fn constraint_def(v: &View, c: &Constraint, pretty: bool) -> String {
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

// ---------------------------------------------------------------------------------
// The functions over catalog objects.

/// Evaluates a catalog function row by row.
pub fn eval_function(
    func: Func,
    args: &[Vector],
    arg_types: &[SqlType],
    n: usize,
    ty: SqlType,
    ctx: &ExecContext,
) -> Result<Vector> {
    let v = View::new(ctx)?;
    let mut out = Vector::with_capacity(ty.ty, n);
    for i in 0..n {
        let vals: Vec<Value> = args
            .iter()
            .zip(arg_types)
            .map(|(a, t)| a.value(i, t.ty))
            .collect();
        let value = call(&v, func, &vals)?;
        out.push_value(&value);
    }
    Ok(out)
}

fn arg_oid(vals: &[Value], k: usize) -> Option<u32> {
    vals.get(k).and_then(Value::as_i64).map(|v| v as u32)
}

fn call(v: &View, func: Func, vals: &[Value]) -> Result<Value> {
    // Strict functions: NULL in, NULL out.
    if func != Func::CurrentSchemas && vals.first().is_some_and(Value::is_null) {
        return Ok(NULL);
    }
    let pretty = matches!(vals.last(), Some(Value::Bool(true)));
    Ok(match func {
        Func::PgTableIsVisible => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            match SystemTable::by_oid(o) {
                Some(t) => boolean(t.schema_oid() == PG_CATALOG_OID),
                None => boolean(v.table(o).is_some() || v.index(o).is_some()),
            }
        }
        Func::PgTypeIsVisible => boolean(true),
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
                None => text("???"),
            }
        }
        // Expressions are kept as their SQL text.
        Func::PgGetExpr => vals[0].clone(),
        Func::PgGetIndexDef => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            let column = vals.get(1).and_then(Value::as_i64).unwrap_or(0);
            match v.index(o) {
                Some((t, ix)) if column == 0 => text(index_def(t, ix, pretty)),
                Some((t, ix)) => match ix.index.parts.get(column as usize - 1) {
                    Some(p) => text(
                        t.columns
                            .get(p.column)
                            .map_or_else(String::new, |c| quote_ident(&c.name)),
                    ),
                    None => text(""),
                },
                None => NULL,
            }
        }
        Func::PgGetConstraintDef => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            match constraints(v).iter().find(|c| c.oid == o) {
                Some(c) => text(constraint_def(v, c, pretty)),
                None => NULL,
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
        Func::ObjDescription | Func::ColDescription | Func::ShobjDescription => NULL,
        Func::PgRelationIsPublishable => boolean(false),
        Func::PgGetTriggerDef | Func::PgGetStatisticsObjDefColumns => NULL,
        Func::CurrentSchema => text("public"),
        Func::CurrentSchemas => {
            let implicit = matches!(vals.first(), Some(Value::Bool(true)));
            let mut names = Vec::new();
            if implicit {
                names.push(text("pg_catalog"));
            }
            names.push(text("public"));
            array(DataType::Name, &names)
        }
        Func::HasPrivilege => boolean(true),
        Func::RegOut(t) => {
            let o = arg_oid(vals, 0).unwrap_or(0);
            text(reg_out(v, t, o))
        }
        Func::RegIn(t) => match &vals[0] {
            Value::Text(s) => oid(reg_in(v, t, s)?),
            _ => NULL,
        },
        _ => return Err(Error::internal("not a catalog function")),
    })
}

/// The text form of an oid alias: the object's name, or the number when nothing has it.
fn reg_out(v: &View, t: DataType, o: u32) -> String {
    let name = match t {
        DataType::RegClass => SystemTable::by_oid(o)
            .map(|s| s.name().to_string())
            .or_else(|| v.table(o).map(|t| quote_ident(&t.name)))
            .or_else(|| v.index(o).map(|(_, i)| quote_ident(&i.name))),
        DataType::RegType => DataType::from_oid(o).map(|t| SqlType::new(t).display_name()),
        DataType::RegNamespace => namespace_name(o).map(String::from),
        DataType::RegRole => v.role_name(o),
        _ => None,
    };
    match (name, t, o) {
        (Some(n), _, _) => n,
        (None, DataType::RegClass | DataType::RegType | DataType::RegProc, 0) => "-".into(),
        (None, _, o) => o.to_string(),
    }
}

/// An oid alias read from text: a number, or the name of an object that exists.
fn reg_in(v: &View, t: DataType, s: &str) -> Result<u32> {
    if let Ok(o) = crate::types::text::parse_oid(s) {
        return Ok(o as u32);
    }
    let s = s.trim();
    match t {
        DataType::RegClass => {
            let name = crate::catalog::sequence::relation_name_parts(s)?;
            let (schema, rel) = match name.as_slice() {
                [rel] => (None, rel.as_str()),
                [schema, rel] => (Some(schema.as_str()), rel.as_str()),
                _ => {
                    return Err(Error::new(
                        "42601",
                        format!("improper relation name (too many dotted names): {s}"),
                    ));
                }
            };
            if let Some(st) = SystemTable::lookup(schema, rel) {
                return Ok(st.oid());
            }
            if matches!(schema, None | Some("public")) {
                if let Some(t) = v.tables.iter().find(|t| t.name == rel) {
                    return Ok(t.oid);
                }
                if let Some(ix) = v
                    .tables
                    .iter()
                    .find_map(|t| t.indexes.iter().find(|i| i.name == rel))
                {
                    return Ok(ix.oid);
                }
            }
            Err(Error::undefined_table(s))
        }
        DataType::RegType => {
            let ty = parse_type_name(s)
                .map_err(|_| Error::undefined_object(format!("type \"{s}\" does not exist")))?;
            Ok(ty.ty.oid())
        }
        DataType::RegNamespace => namespace_oid(s)
            .ok_or_else(|| Error::new("3F000", format!("schema \"{s}\" does not exist"))),
        DataType::RegRole => v
            .roles()
            .into_iter()
            .find(|r| r.1 == s)
            .map(|r| r.0)
            .ok_or_else(|| Error::undefined_object(format!("role \"{s}\" does not exist"))),
        _ => Err(Error::feature_not_supported(format!(
            "{} input by name",
            t.name()
        ))),
    }
}

/// regclass input at bind time, for a literal (`'t'::regclass`), as PostgreSQL's parser
/// resolves it.
pub fn reg_in_at_bind(
    catalog: &crate::catalog::Catalog,
    snapshot: &crate::storage::mvcc::Snapshot,
    t: DataType,
    s: &str,
) -> Result<Option<u32>> {
    if let Ok(o) = crate::types::text::parse_oid(s) {
        return Ok(Some(o as u32));
    }
    if t != DataType::RegClass && t != DataType::RegType && t != DataType::RegNamespace {
        return Ok(None);
    }
    let tables = catalog.visible_tables(snapshot);
    let view_tables = tables;
    // Only the name lookups are needed: a View without a context.
    let find = |name: &str| view_tables.iter().find(|t| t.name == name).map(|t| t.oid);
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
            if let Some(st) = SystemTable::lookup(schema, rel) {
                return Ok(Some(st.oid()));
            }
            if matches!(schema, None | Some("public")) {
                if let Some(o) = find(rel) {
                    return Ok(Some(o));
                }
                if let Some(ix) = view_tables
                    .iter()
                    .find_map(|t| t.indexes.iter().find(|i| i.name == rel))
                {
                    return Ok(Some(ix.oid));
                }
            }
            Err(Error::undefined_table(s.trim()))
        }
        DataType::RegType => {
            let ty = parse_type_name(s.trim()).map_err(|_| {
                Error::undefined_object(format!("type \"{}\" does not exist", s.trim()))
            })?;
            Ok(Some(ty.ty.oid()))
        }
        _ => namespace_oid(s.trim())
            .map(Some)
            .ok_or_else(|| Error::new("3F000", format!("schema \"{}\" does not exist", s.trim()))),
    }
}

/// The keywords quote_ident quotes: every one PostgreSQL does not list as unreserved.
const KEYWORDS: &[&str] = &[
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

fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// A type name as regtype input reads it (`integer`, `character varying(20)`, `_int4`).
fn parse_type_name(s: &str) -> Result<SqlType> {
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
