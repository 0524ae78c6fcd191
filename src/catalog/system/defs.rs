//! The system tables' definitions: name, oid, kind and PostgreSQL 15's columns.

use super::*;

pub(super) struct Def {
    pub(super) schema: u32,
    pub(super) name: &'static str,
    pub(super) oid: u32,
    /// 'r' a catalog table, 'v' a system view, 'f' a set-returning catalog function
    /// read in FROM (not a relation: pg_class does not list it).
    pub(super) kind: char,
    /// PostgreSQL 15's columns, in order: `name type, …`.
    pub(super) columns: &'static str,
}

pub(super) const fn def(
    schema: u32,
    name: &'static str,
    oid: u32,
    kind: char,
    columns: &'static str,
) -> Def {
    Def {
        schema,
        name,
        oid,
        kind,
        columns,
    }
}

pub(super) const C: u32 = PG_CATALOG_OID;
pub(super) const I: u32 = INFORMATION_SCHEMA_OID;

pub(super) static DEFS: &[Def] = &[
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
        "pg_opclass",
        2616,
        'r',
        "oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, \
         opcfamily oid, opcintype oid, opcdefault bool, opckeytype oid",
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
        "roleid oid, member oid, grantor oid, admin_option bool",
    ),
    def(
        C,
        "pg_event_trigger",
        3466,
        'r',
        "oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled char, \
         evttags text[]",
    ),
    def(
        C,
        "pg_language",
        2612,
        'r',
        "oid oid, lanname name, lanowner oid, lanispl bool, lanpltrusted bool, \
         lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl aclitem[]",
    ),
    def(
        C,
        "pg_stat_all_tables",
        12_142,
        'v',
        "relid oid, schemaname name, relname name, seq_scan int8, seq_tup_read int8, idx_scan int8, idx_tup_fetch int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, n_tup_hot_upd int8, n_live_tup int8, n_dead_tup int8, n_mod_since_analyze int8, n_ins_since_vacuum int8, last_vacuum timestamptz, last_autovacuum timestamptz, last_analyze timestamptz, last_autoanalyze timestamptz, vacuum_count int8, autovacuum_count int8, analyze_count int8, autoanalyze_count int8",
    ),
    def(
        C,
        "pg_stat_user_tables",
        12_161,
        'v',
        "relid oid, schemaname name, relname name, seq_scan int8, seq_tup_read int8, idx_scan int8, idx_tup_fetch int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, n_tup_hot_upd int8, n_live_tup int8, n_dead_tup int8, n_mod_since_analyze int8, n_ins_since_vacuum int8, last_vacuum timestamptz, last_autovacuum timestamptz, last_analyze timestamptz, last_autoanalyze timestamptz, vacuum_count int8, autovacuum_count int8, analyze_count int8, autoanalyze_count int8",
    ),
    def(
        C,
        "pg_stat_all_indexes",
        12_183,
        'v',
        "relid oid, indexrelid oid, schemaname name, relname name, indexrelname name, idx_scan int8, idx_tup_read int8, idx_tup_fetch int8",
    ),
    def(
        C,
        "pg_stat_user_indexes",
        12_192,
        'v',
        "relid oid, indexrelid oid, schemaname name, relname name, indexrelname name, idx_scan int8, idx_tup_read int8, idx_tup_fetch int8",
    ),
    def(
        C,
        "pg_get_keywords",
        1686,
        'f',
        "word text, catcode char, barelabel bool, catdesc text, baredesc text",
    ),
    def(
        C,
        "pg_default_acl",
        826,
        'r',
        "oid oid, defaclrole oid, defaclnamespace oid, defaclobjtype char, defaclacl aclitem[]",
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
        "pg_db_role_setting",
        2964,
        'r',
        "setdatabase oid, setrole oid, setconfig text[]",
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
        "pg_ts_config",
        3602,
        'r',
        "oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid",
    ),
    def(
        C,
        "pg_ts_config_map",
        3603,
        'r',
        "mapcfg oid, maptokentype int4, mapseqno int4, mapdict oid",
    ),
    def(
        C,
        "pg_ts_parser",
        3601,
        'r',
        "oid oid, prsname name, prsnamespace oid, prsstart regproc, prstoken regproc, \
         prsend regproc, prsheadline regproc, prslextype regproc",
    ),
    def(
        C,
        "pg_ts_template",
        3764,
        'r',
        "oid oid, tmplname name, tmplnamespace oid, tmplinit regproc, tmpllexize regproc",
    ),
    def(
        C,
        "pg_ts_dict",
        3600,
        'r',
        "oid oid, dictname name, dictnamespace oid, dictowner oid, dicttemplate oid, \
         dictinitoption text",
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
        "pg_locks",
        12_012,
        'v',
        "locktype text, database oid, relation oid, page int4, tuple int2, virtualxid text, \
         transactionid xid, classid oid, objid oid, objsubid int2, virtualtransaction text, \
         pid int4, mode text, granted bool, fastpath bool, waitstart timestamptz",
    ),
    def(
        C,
        "pg_stat_ssl",
        12_011,
        'v',
        "pid int4, ssl bool, version text, cipher text, bits int4, client_dn text, \
         client_serial numeric, issuer_dn text",
    ),
    def(
        C,
        "pg_cursors",
        12_077,
        'v',
        "name text, statement text, is_holdable bool, is_binary bool, \
         is_scrollable bool, creation_time timestamptz",
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
        "pg_available_extensions",
        12_080,
        'v',
        "name name, default_version text, installed_version text, comment text",
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
        "referential_constraints",
        13_339,
        'v',
        "constraint_catalog name, constraint_schema name, constraint_name name, \
         unique_constraint_catalog name, unique_constraint_schema name, \
         unique_constraint_name name, match_option varchar, update_rule varchar, \
         delete_rule varchar",
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
    def(
        I,
        "table_privileges",
        13_207,
        'v',
        "grantor name, grantee name, table_catalog name, table_schema name, \
         table_name name, privilege_type text, is_grantable text, with_hierarchy text",
    ),
    def(
        I,
        "role_table_grants",
        13_208,
        'v',
        "grantor name, grantee name, table_catalog name, table_schema name, \
         table_name name, privilege_type text, is_grantable text, with_hierarchy text",
    ),
];

/// The type of a column spec's type word.
pub(super) fn spec_type(word: &str) -> SqlType {
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
        "oid[]" => array(DataType::Oid),
        "int2[]" => array(DataType::Int2),
        "oidvector" => SqlType::with_typmod(array(DataType::Oid).ty, crate::types::VECTOR_TYPMOD),
        "int2vector" => SqlType::with_typmod(array(DataType::Int2).ty, crate::types::VECTOR_TYPMOD),
        "char[]" => array(DataType::Char),
        "text[]" | "aclitem[]" => array(DataType::Text),
        // text, pg_node_tree, inet
        _ => SqlType::new(DataType::Text),
    }
}

/// The input, output, receive and send functions of a type, as `(name, oid)` pairs with
/// PostgreSQL's oids: pg_type's typinput … typsend, and the names regproc reads and
/// prints (kiln has no pg_proc rows; these are the functions clients look up by name,
/// as pgJDBC's `typinput = 'array_in'::regproc`).
pub(super) fn type_io(t: DataType) -> Option<[(&'static str, u32); 4]> {
    use DataType as D;
    Some(match t {
        D::Bool => [
            ("boolin", 1242),
            ("boolout", 1243),
            ("boolrecv", 2436),
            ("boolsend", 2437),
        ],
        D::Char => [
            ("charin", 1245),
            ("charout", 33),
            ("charrecv", 2434),
            ("charsend", 2435),
        ],
        D::Range(_) => [
            ("range_in", 3834),
            ("range_out", 3835),
            ("range_recv", 3836),
            ("range_send", 3837),
        ],
        D::Enum(_) => [
            ("enum_in", 3504),
            ("enum_out", 3505),
            ("enum_recv", 3532),
            ("enum_send", 3533),
        ],
        D::Name => [
            ("namein", 34),
            ("nameout", 35),
            ("namerecv", 2422),
            ("namesend", 2423),
        ],
        D::Int8 => [
            ("int8in", 460),
            ("int8out", 461),
            ("int8recv", 2408),
            ("int8send", 2409),
        ],
        D::Int2 => [
            ("int2in", 38),
            ("int2out", 39),
            ("int2recv", 2404),
            ("int2send", 2405),
        ],
        D::Int4 => [
            ("int4in", 42),
            ("int4out", 43),
            ("int4recv", 2406),
            ("int4send", 2407),
        ],
        D::RegProc => [
            ("regprocin", 44),
            ("regprocout", 45),
            ("regprocrecv", 2444),
            ("regprocsend", 2445),
        ],
        D::RegProcedure => [
            ("regprocedurein", 2212),
            ("regprocedureout", 2213),
            ("regprocedurerecv", 2446),
            ("regproceduresend", 2447),
        ],
        D::Text => [
            ("textin", 46),
            ("textout", 47),
            ("textrecv", 2414),
            ("textsend", 2415),
        ],
        D::Oid => [
            ("oidin", 1798),
            ("oidout", 1799),
            ("oidrecv", 2418),
            ("oidsend", 2419),
        ],
        D::Float4 => [
            ("float4in", 200),
            ("float4out", 201),
            ("float4recv", 2424),
            ("float4send", 2425),
        ],
        D::Float8 => [
            ("float8in", 214),
            ("float8out", 215),
            ("float8recv", 2426),
            ("float8send", 2427),
        ],
        D::Unknown => [
            ("unknownin", 109),
            ("unknownout", 110),
            ("unknownrecv", 2416),
            ("unknownsend", 2417),
        ],
        D::Array(_) => [
            ("array_in", 750),
            ("array_out", 751),
            ("array_recv", 2400),
            ("array_send", 2401),
        ],
        D::Bpchar => [
            ("bpcharin", 1044),
            ("bpcharout", 1045),
            ("bpcharrecv", 2430),
            ("bpcharsend", 2431),
        ],
        D::Varchar => [
            ("varcharin", 1046),
            ("varcharout", 1047),
            ("varcharrecv", 2432),
            ("varcharsend", 2433),
        ],
        D::Date => [
            ("date_in", 1084),
            ("date_out", 1085),
            ("date_recv", 2468),
            ("date_send", 2469),
        ],
        D::Timestamp => [
            ("timestamp_in", 1312),
            ("timestamp_out", 1313),
            ("timestamp_recv", 2474),
            ("timestamp_send", 2475),
        ],
        D::Timestamptz => [
            ("timestamptz_in", 1150),
            ("timestamptz_out", 1151),
            ("timestamptz_recv", 2476),
            ("timestamptz_send", 2477),
        ],
        D::Interval => [
            ("interval_in", 1160),
            ("interval_out", 1161),
            ("interval_recv", 2478),
            ("interval_send", 2479),
        ],
        D::Numeric => [
            ("numeric_in", 1701),
            ("numeric_out", 1702),
            ("numeric_recv", 2460),
            ("numeric_send", 2461),
        ],
        D::RegClass => [
            ("regclassin", 2218),
            ("regclassout", 2219),
            ("regclassrecv", 2452),
            ("regclasssend", 2453),
        ],
        D::RegType => [
            ("regtypein", 2220),
            ("regtypeout", 2221),
            ("regtyperecv", 2454),
            ("regtypesend", 2455),
        ],
        D::Record => [
            ("record_in", 2290),
            ("record_out", 2291),
            ("record_recv", 2402),
            ("record_send", 2403),
        ],
        D::RegNamespace => [
            ("regnamespacein", 4084),
            ("regnamespaceout", 4085),
            ("regnamespacerecv", 4087),
            ("regnamespacesend", 4088),
        ],
        D::RegRole => [
            ("regrolein", 4098),
            ("regroleout", 4092),
            ("regrolerecv", 4094),
            ("regrolesend", 4095),
        ],
        D::Json => [
            ("json_in", 321),
            ("json_out", 322),
            ("json_recv", 323),
            ("json_send", 324),
        ],
        D::Uuid => [
            ("uuid_in", 2952),
            ("uuid_out", 2953),
            ("uuid_recv", 2961),
            ("uuid_send", 2962),
        ],
        D::Bytea => [
            ("byteain", 1244),
            ("byteaout", 31),
            ("bytearecv", 2412),
            ("byteasend", 2413),
        ],
        D::Jsonb => [
            ("jsonb_in", 3806),
            ("jsonb_out", 3804),
            ("jsonb_recv", 3805),
            ("jsonb_send", 3803),
        ],
        D::Time => [
            ("time_in", 1143),
            ("time_out", 1144),
            ("time_recv", 2470),
            ("time_send", 2471),
        ],
        D::TimeTz => [
            ("timetz_in", 1350),
            ("timetz_out", 1351),
            ("timetz_recv", 2472),
            ("timetz_send", 2473),
        ],
        D::TsVector => [
            ("tsvectorin", 3610),
            ("tsvectorout", 3611),
            ("tsvectorrecv", 3639),
            ("tsvectorsend", 3638),
        ],
        D::TsQuery => [
            ("tsqueryin", 3612),
            ("tsqueryout", 3613),
            ("tsqueryrecv", 3641),
            ("tsquerysend", 3640),
        ],
        D::RegDictionary => [
            ("regdictionaryin", 3771),
            ("regdictionaryout", 3772),
            ("regdictionaryrecv", 3773),
            ("regdictionarysend", 3774),
        ],
        D::RegConfig => [
            ("regconfigin", 3736),
            ("regconfigout", 3737),
            ("regconfigrecv", 3738),
            ("regconfigsend", 3739),
        ],
        D::Inet => [
            ("inet_in", 910),
            ("inet_out", 911),
            ("inet_recv", 2496),
            ("inet_send", 2497),
        ],
        D::Cidr => [
            ("cidr_in", 1267),
            ("cidr_out", 1427),
            ("cidr_recv", 2498),
            ("cidr_send", 2499),
        ],
        D::MacAddr => [
            ("macaddr_in", 436),
            ("macaddr_out", 437),
            ("macaddr_recv", 2494),
            ("macaddr_send", 2495),
        ],
        D::MacAddr8 => [
            ("macaddr8_in", 4110),
            ("macaddr8_out", 4111),
            ("macaddr8_recv", 3446),
            ("macaddr8_send", 3447),
        ],
        D::JsonPath => [
            ("jsonpath_in", 4001),
            ("jsonpath_out", 4003),
            ("jsonpath_recv", 4002),
            ("jsonpath_send", 4004),
        ],
    })
}

/// The types with I/O functions that are no array elements.
const IO_EXTRA: [DataType; 11] = [
    DataType::Json,
    DataType::Record,
    DataType::Unknown,
    DataType::RegClass,
    DataType::RegType,
    DataType::RegProc,
    DataType::RegNamespace,
    DataType::RegRole,
    DataType::RegConfig,
    DataType::RegDictionary,
    DataType::Array(crate::types::NAME_ARRAY),
];

/// Every type I/O function `(name, oid)` of [`type_io`].
fn io_functions() -> impl Iterator<Item = (&'static str, u32)> {
    crate::types::array_elements()
        .iter()
        .copied()
        .chain(IO_EXTRA)
        .filter_map(type_io)
        .flatten()
}

/// The function named `name` among [`type_io`]'s, by its oid.
pub(super) fn io_function_oid(name: &str) -> Option<u32> {
    io_functions().find(|(n, _)| *n == name).map(|(_, o)| o)
}

/// The argument types of type I/O function `name` (`cstring, oid, integer`).
pub(super) fn io_signature(name: &str) -> &'static str {
    IO_SIGNATURES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, a)| a)
}

/// The name of the function with oid `oid` among [`type_io`]'s (and the text-search
/// parser's and templates' support functions, which pg_ts_parser / pg_ts_template name).
pub(super) fn io_function_name(oid: u32) -> Option<&'static str> {
    io_functions()
        .chain(TS_SUPPORT_FUNCTIONS.iter().copied())
        .find(|(_, o)| *o == oid)
        .map(|(n, _)| n)
}

/// The default text-search parser's functions and the simple / snowball templates',
/// with PostgreSQL 15's oids.
pub(super) const TS_SUPPORT_FUNCTIONS: [(&str, u32); 9] = [
    ("prsd_start", 3717),
    ("prsd_nexttoken", 3718),
    ("prsd_end", 3719),
    ("prsd_headline", 3720),
    ("prsd_lextype", 3721),
    ("dsimple_init", 3725),
    ("dsimple_lexize", 3726),
    ("dsnowball_init", 13148),
    ("dsnowball_lexize", 13149),
];

/// The argument types of the type I/O functions, as regprocedure prints them
/// (PostgreSQL 15's `pg_get_function_identity_arguments`).
pub(super) const IO_SIGNATURES: &[(&str, &str)] = &[
    ("array_in", "cstring, oid, integer"),
    ("array_out", "anyarray"),
    ("array_recv", "internal, oid, integer"),
    ("array_send", "anyarray"),
    ("boolin", "cstring"),
    ("boolout", "boolean"),
    ("boolrecv", "internal"),
    ("boolsend", "boolean"),
    ("bpcharin", "cstring, oid, integer"),
    ("bpcharout", "character"),
    ("bpcharrecv", "internal, oid, integer"),
    ("bpcharsend", "character"),
    ("charin", "cstring"),
    ("charout", "\"char\""),
    ("charrecv", "internal"),
    ("charsend", "\"char\""),
    ("date_in", "cstring"),
    ("date_out", "date"),
    ("date_recv", "internal"),
    ("date_send", "date"),
    ("float4in", "cstring"),
    ("float4out", "real"),
    ("float4recv", "internal"),
    ("float4send", "real"),
    ("float8in", "cstring"),
    ("float8out", "double precision"),
    ("float8recv", "internal"),
    ("float8send", "double precision"),
    ("int2in", "cstring"),
    ("int2out", "smallint"),
    ("int2recv", "internal"),
    ("int2send", "smallint"),
    ("int4in", "cstring"),
    ("int4out", "integer"),
    ("int4recv", "internal"),
    ("int4send", "integer"),
    ("int8in", "cstring"),
    ("int8out", "bigint"),
    ("int8recv", "internal"),
    ("int8send", "bigint"),
    ("interval_in", "cstring, oid, integer"),
    ("interval_out", "interval"),
    ("interval_recv", "internal, oid, integer"),
    ("interval_send", "interval"),
    ("json_in", "cstring"),
    ("json_out", "json"),
    ("json_recv", "internal"),
    ("json_send", "json"),
    ("namein", "cstring"),
    ("nameout", "name"),
    ("namerecv", "internal"),
    ("namesend", "name"),
    ("numeric_in", "cstring, oid, integer"),
    ("numeric_out", "numeric"),
    ("numeric_recv", "internal, oid, integer"),
    ("numeric_send", "numeric"),
    ("oidin", "cstring"),
    ("oidout", "oid"),
    ("oidrecv", "internal"),
    ("oidsend", "oid"),
    ("record_in", "cstring, oid, integer"),
    ("record_out", "record"),
    ("record_recv", "internal, oid, integer"),
    ("record_send", "record"),
    ("regclassin", "cstring"),
    ("regclassout", "regclass"),
    ("regclassrecv", "internal"),
    ("regclasssend", "regclass"),
    ("regnamespacein", "cstring"),
    ("regnamespaceout", "regnamespace"),
    ("regnamespacerecv", "internal"),
    ("regnamespacesend", "regnamespace"),
    ("regprocin", "cstring"),
    ("regprocout", "regproc"),
    ("regprocrecv", "internal"),
    ("regprocsend", "regproc"),
    ("regrolein", "cstring"),
    ("regroleout", "regrole"),
    ("regrolerecv", "internal"),
    ("regrolesend", "regrole"),
    ("regtypein", "cstring"),
    ("regtypeout", "regtype"),
    ("regtyperecv", "internal"),
    ("regtypesend", "regtype"),
    ("textin", "cstring"),
    ("textout", "text"),
    ("textrecv", "internal"),
    ("textsend", "text"),
    ("timestamp_in", "cstring, oid, integer"),
    ("timestamp_out", "timestamp without time zone"),
    ("timestamp_recv", "internal, oid, integer"),
    ("timestamp_send", "timestamp without time zone"),
    ("timestamptz_in", "cstring, oid, integer"),
    ("timestamptz_out", "timestamp with time zone"),
    ("timestamptz_recv", "internal, oid, integer"),
    ("timestamptz_send", "timestamp with time zone"),
    ("unknownin", "cstring"),
    ("unknownout", "unknown"),
    ("unknownrecv", "internal"),
    ("unknownsend", "unknown"),
    ("varcharin", "cstring, oid, integer"),
    ("varcharout", "character varying"),
    ("varcharrecv", "internal, oid, integer"),
    ("varcharsend", "character varying"),
];
