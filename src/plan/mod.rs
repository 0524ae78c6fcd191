//! Query plans, in three stages:
//!
//! ```text
//!   sql::binder ──▶ logical plan ──▶ rules (optimizer) ──▶ lower ──▶ physical plan ──▶ exec
//!                   (ColumnIds,       fold, pushdown,        (positions,
//!                    subqueries)      prune, …               operators chosen)
//! ```
//!
//! - [`logical`]: relational operators whose expressions name columns by relation and
//!   column, and may hold subqueries.
//! - [`rules`]: the optimizer — separate rewrite rules over one tree-walking API.
//! - [`lower`]: the physical planner — chooses operators and turns column ids into
//!   positions.
//! - [`physical`]: what the executor runs.
//! - [`BoundStatement`]: a statement ready to run (physical plans for its queries).

use std::sync::Arc;

use crate::catalog::{ColumnDef, RelName, TableEntry};
use crate::sql::expr::Expr;
use crate::types::SqlType;

pub mod access;
pub mod cardinality;
pub mod explain;
pub mod lock_rows;
pub mod logical;
pub mod lower;
pub mod physical;
pub mod rules;

pub use physical::{Plan, SortKey};

#[derive(Clone, Debug, PartialEq)]
pub struct OutputColumn {
    pub name: String,
    pub ty: SqlType,
    /// The table column it reads directly, `(table oid, column number from 1)`: what
    /// RowDescription reports (drivers' getTableName); None for anything computed.
    pub origin: Option<(u32, i16)>,
}

/// A DML statement's RETURNING list: expressions over a batch of the table's columns
/// (the new row; DELETE's old row), and the result columns they make.
#[derive(Clone, Debug)]
pub struct Returning {
    pub exprs: Vec<Expr>,
    pub columns: Vec<OutputColumn>,
}

/// An UPDATE's or DELETE's WHERE and (UPDATE) new row, over a batch of the target
/// table's columns: evaluated again on the newest version of a row that a concurrent
/// transaction updated while this one waited (PostgreSQL's EvalPlanQual).
#[derive(Clone, Debug)]
pub struct Recheck {
    pub filter: Option<Expr>,
    pub new_row: Vec<Expr>,
}

/// INSERT's ON CONFLICT clause, bound.
#[derive(Clone, Debug)]
pub struct OnConflict {
    /// Positions in the table's `indexes` of the unique indexes that arbitrate.
    pub arbiters: Vec<usize>,
    /// DO UPDATE (None: DO NOTHING).
    pub update: Option<ConflictUpdate>,
}

/// DO UPDATE: the new row's columns and the WHERE, over a batch of the existing row's
/// columns followed by the proposed (`excluded`) row's.
#[derive(Clone, Debug)]
pub struct ConflictUpdate {
    pub exprs: Vec<Expr>,
    pub filter: Option<Expr>,
}

#[derive(Clone, Debug)]
pub enum TransactionOp {
    Begin(TxnModes),
    /// SET TRANSACTION.
    SetModes(TxnModes),
    Commit,
    Rollback,
    Savepoint(String),
    RollbackTo(String),
    Release(String),
}

/// PostgreSQL's isolation levels (READ UNCOMMITTED runs as READ COMMITTED).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isolation {
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read committed",
            Isolation::RepeatableRead => "repeatable read",
            Isolation::Serializable => "serializable",
        }
    }

    pub fn parse(text: &str) -> Option<Isolation> {
        match text.to_lowercase().as_str() {
            "read committed" | "read uncommitted" => Some(Isolation::ReadCommitted),
            "repeatable read" => Some(Isolation::RepeatableRead),
            "serializable" => Some(Isolation::Serializable),
            _ => None,
        }
    }
}

/// BEGIN's and SET TRANSACTION's modes (None: as the defaults say).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxnModes {
    pub isolation: Option<Isolation>,
    pub read_only: Option<bool>,
}

/// What a MERGE WHEN clause does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeAction {
    Update,
    Delete,
    Insert,
    Nothing,
}

/// Which ALTER renames a relation: ALTER TABLE and ALTER INDEX take any kind,
/// ALTER VIEW and ALTER SEQUENCE only their own (42809).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameKind {
    Table,
    Index,
    View,
    Sequence,
}

impl RenameKind {
    pub fn command(self) -> &'static str {
        match self {
            RenameKind::Table => "ALTER TABLE",
            RenameKind::Index => "ALTER INDEX",
            RenameKind::View => "ALTER VIEW",
            RenameKind::Sequence => "ALTER SEQUENCE",
        }
    }
}

/// A statement ready to execute.
#[derive(Clone, Debug)]
pub enum BoundStatement {
    Query {
        plan: Plan,
        columns: Vec<OutputColumn>,
        /// FOR UPDATE / FOR SHARE: the query locks rows (and so needs a transaction id).
        locks: bool,
    },
    /// `source` yields rows in table column order, already cast to column types.
    Insert {
        table: Arc<TableEntry>,
        source: Plan,
        returning: Option<Returning>,
        on_conflict: Option<OnConflict>,
    },
    /// `source` is a scan with row ids (last column) whose other columns are the new row.
    Update {
        table: Arc<TableEntry>,
        source: Plan,
        returning: Option<Returning>,
        /// READ COMMITTED's re-check of a row a concurrent transaction changed.
        recheck: Option<Recheck>,
    },
    /// MERGE: `source` yields `[action, target row id, UPDATE's new row, INSERT's
    /// row]` per joined row (`sql::binder::merge`); `actions[k - 1]` is what action
    /// `k` does.
    Merge {
        table: Arc<TableEntry>,
        source: Plan,
        actions: Vec<MergeAction>,
    },
    Delete {
        table: Arc<TableEntry>,
        source: Plan,
        returning: Option<Returning>,
        /// READ COMMITTED's re-check of a row a concurrent transaction changed.
        recheck: Option<Recheck>,
    },
    Truncate {
        tables: Vec<Arc<TableEntry>>,
        /// RESTART IDENTITY: the tables' owned sequences start over.
        restart_identity: bool,
        /// CASCADE: tables with foreign keys to these are emptied too.
        cascade: bool,
    },
    CreateTable {
        name: RelName,
        columns: Vec<ColumnDef>,
        /// PRIMARY KEY and UNIQUE constraints' indexes.
        indexes: Vec<crate::catalog::IndexSpec>,
        checks: Vec<crate::catalog::CheckConstraint>,
        foreign_keys: Vec<crate::catalog::ForeignKey>,
        /// Sequences for SERIAL and identity columns.
        sequences: Vec<crate::sql::binder::sequences::NewSequence>,
        if_not_exists: bool,
        /// A temporary table's ON COMMIT action (None: a permanent table).
        on_commit: Option<OnCommit>,
    },
    /// ALTER TABLE: the actions as parsed, bound one at a time when it runs (each over
    /// the table the ones before it left). A name that resolved to nothing has
    /// namespace 0 and the name as written.
    AlterTable {
        name: RelName,
        if_exists: bool,
        actions: Vec<sqlparser::ast::AlterTableOperation>,
    },
    /// LOCK TABLE: the tables locked in `mode` until the transaction ends.
    LockTable {
        tables: Vec<Arc<TableEntry>>,
        nowait: bool,
        mode: crate::storage::locks::LockMode,
    },
    CreateSequence {
        name: RelName,
        options: crate::catalog::sequence::SequenceOptions,
        if_not_exists: bool,
    },
    /// ALTER SEQUENCE: `changes` over the sequence's options; RESTART (`Some(None)`:
    /// at its start value).
    AlterSequence {
        name: RelName,
        if_exists: bool,
        changes: crate::catalog::sequence::SequenceSpec,
        restart: Option<Option<i64>>,
        /// OWNED BY: `Some(None)` for NONE, else the owning table's oid and column.
        owned_by: Option<Option<(u32, String)>>,
    },
    CreateIndex {
        table: Arc<TableEntry>,
        spec: crate::catalog::IndexSpec,
        if_not_exists: bool,
    },
    /// ALTER { TABLE | INDEX | VIEW | SEQUENCE } … RENAME TO of a relation of any
    /// kind (a table's own rename included: see `session::renames`).
    RenameRelation {
        name: RelName,
        to: String,
        if_exists: bool,
        kind: RenameKind,
    },
    /// ALTER TABLE … ALTER CONSTRAINT (a foreign key's deferral).
    AlterConstraint {
        table: RelName,
        if_exists: bool,
        constraint: String,
        deferrable: bool,
        deferred: bool,
    },
    /// ALTER INDEX … SET / RESET (storage parameters): `None` resets.
    IndexOptions {
        name: RelName,
        if_exists: bool,
        changes: Vec<(String, Option<String>)>,
    },
    DropIndex {
        names: Vec<RelName>,
        if_exists: bool,
    },
    /// CREATE [OR REPLACE] VIEW.
    CreateView {
        name: RelName,
        columns: Vec<ColumnDef>,
        view: crate::catalog::ViewDef,
        or_replace: bool,
    },
    /// CREATE TABLE … AS / SELECT INTO: a new table filled from `source`.
    CreateTableAs {
        name: RelName,
        columns: Vec<ColumnDef>,
        source: Option<Plan>,
        if_not_exists: bool,
        /// A temporary table's ON COMMIT action (None: a permanent table).
        on_commit: Option<OnCommit>,
    },
    /// DROP TABLE / DROP VIEW.
    DropTable {
        names: Vec<RelName>,
        if_exists: bool,
        /// DROP TABLE, DROP VIEW or DROP SEQUENCE.
        kind: crate::catalog::RelKind,
        cascade: bool,
    },
    Transaction(TransactionOp),
    Set {
        name: String,
        value: Option<String>,
        local: bool,
    },
    Show {
        name: String,
    },
    /// DEALLOCATE name, or DEALLOCATE ALL (`None`).
    Deallocate {
        name: Option<String>,
    },
    /// EXPLAIN [ANALYZE] of a query.
    Explain {
        plan: Plan,
        analyze: bool,
        options: explain::ExplainOptions,
    },
    /// ANALYZE / VACUUM: planner statistics recomputed now for `tables`; VACUUM also
    /// wakes the vacuum thread (which otherwise runs by itself).
    Analyze {
        tables: Vec<Arc<TableEntry>>,
        vacuum: bool,
    },
    /// Accepted and ignored, with the command tag to answer.
    NoOp {
        tag: String,
    },
    /// COPY … FROM STDIN: rows the client sends, stored in `table` as an INSERT's.
    CopyFrom {
        table: Arc<TableEntry>,
        /// The table columns the data fills, in the data's order; the others take
        /// their defaults.
        columns: Vec<usize>,
        options: crate::copy::CopyOptions,
        /// CSV FORCE_NOT_NULL / FORCE_NULL, per entry of `columns`.
        force_not_null: Vec<bool>,
        force_null: Vec<bool>,
        /// WHERE: a condition over the table's row (table column positions).
        filter: Option<crate::sql::expr::Expr>,
        /// COPY FROM 'file' | PROGRAM 'command' on the server (superusers only).
        file: Option<crate::copy::ServerEnd>,
    },
    /// DECLARE name CURSOR FOR query: `query` is a bound `Query`.
    DeclareCursor {
        name: String,
        query: Box<BoundStatement>,
        /// SCROLL (Some(true)), NO SCROLL (Some(false)) or neither.
        scroll: Option<bool>,
        hold: bool,
        /// BINARY: FETCH sends its rows in binary (simple query protocol).
        binary: bool,
    },
    /// CREATE ROLE / CREATE USER / ALTER ROLE / DROP ROLE.
    Role(RoleChange),
    /// DISCARD ALL | PLANS | SEQUENCES | TEMP, and RESET ALL (`Discard::Settings`).
    Discard(Discard),
    /// CHECKPOINT (superusers only, as PostgreSQL; writes a checkpoint in the durable
    /// mode).
    Checkpoint,
    /// CREATE DATABASE / DROP DATABASE (`session::databases`).
    Database(DatabaseChange),
    /// CREATE / ALTER / DROP SCHEMA (`session::schemas`).
    Schema(SchemaChange),
    /// CREATE / DROP EXTENSION (`session::extensions`).
    Extension(ExtensionChange),
    /// CREATE / ALTER / DROP TYPE (`session::types`).
    UserType(TypeChange),
    /// ALTER TABLE | VIEW | SEQUENCE name SET SCHEMA schema (`kind`: the statement's
    /// word; TABLE takes any relation).
    SetSchema {
        name: RelName,
        kind: crate::catalog::RelKind,
        if_exists: bool,
        to: String,
    },
    /// COMMENT ON TABLE | VIEW | SEQUENCE | INDEX | COLUMN … IS 'text' | NULL.
    Comment {
        oid: u32,
        /// The column ("" for the relation itself).
        column: String,
        text: Option<String>,
    },
    /// SQL PREPARE name [(types)] AS statement (bound when it runs, as the protocol's
    /// Parse is; the same namespace).
    PrepareSql {
        name: String,
        statement: Arc<sqlparser::ast::Statement>,
        types: Vec<SqlType>,
    },
    /// SQL EXECUTE name [(args)]: the arguments as bound expressions over no row.
    ExecuteSql {
        name: String,
        args: Vec<crate::sql::expr::Expr>,
    },
    /// LISTEN channel / UNLISTEN channel | * (None).
    Listen {
        channel: Option<String>,
        listen: bool,
    },
    /// NOTIFY channel [, payload].
    Notify {
        channel: String,
        payload: String,
    },
    /// FETCH / MOVE.
    Fetch {
        cursor: String,
        direction: FetchDirection,
        is_move: bool,
    },
    /// CLOSE name, or CLOSE ALL (None).
    CloseCursor {
        name: Option<String>,
    },
    /// COPY … TO STDOUT: the rows of `plan`.
    CopyTo {
        plan: Plan,
        columns: Vec<OutputColumn>,
        options: crate::copy::CopyOptions,
        /// CSV FORCE_QUOTE, per column.
        force_quote: Vec<bool>,
        /// COPY TO 'file' | PROGRAM 'command' on the server (superusers only).
        file: Option<crate::copy::ServerEnd>,
    },
}

/// What a temporary table does at the end of each transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnCommit {
    PreserveRows,
    DeleteRows,
    Drop,
}

/// CREATE, ALTER or DROP SCHEMA.
#[derive(Clone, Debug)]
pub enum SchemaChange {
    Create {
        name: String,
        /// AUTHORIZATION role (None: the current role).
        owner: Option<RoleSpec>,
        if_not_exists: bool,
        /// The schema elements written after the name (CREATE TABLE, VIEW, SEQUENCE,
        /// INDEX, GRANT), as SQL, in the order PostgreSQL runs them: made in the new
        /// schema, owned by its owner.
        elements: Vec<String>,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
        cascade: bool,
    },
    Rename {
        name: String,
        to: String,
    },
    Owner {
        name: String,
        to: RoleSpec,
    },
}

/// CREATE TYPE … AS ENUM, ALTER TYPE, DROP TYPE (types by oid, as bound).
#[derive(Clone, Debug)]
pub enum TypeChange {
    /// ALTER DOMAIN (the domain by oid).
    AlterDomain {
        oid: u32,
        action: DomainAction,
    },
    CreateDomain {
        namespace: u32,
        name: String,
        def: std::sync::Arc<crate::catalog::types::DomainDef>,
    },
    CreateEnum {
        namespace: u32,
        name: String,
        labels: Vec<String>,
    },
    AddValue {
        oid: u32,
        label: String,
        if_not_exists: bool,
        /// BEFORE (true) or AFTER this label; None: at the end.
        neighbour: Option<(String, bool)>,
    },
    RenameValue {
        oid: u32,
        from: String,
        to: String,
    },
    Rename {
        oid: u32,
        to: String,
    },
    /// Each named type with its oid (None: missing, under IF EXISTS).
    Drop {
        types: Vec<(String, Option<u32>)>,
        cascade: bool,
        /// DROP DOMAIN (its tag; the types are domains).
        domain: bool,
    },
}

/// What ALTER DOMAIN does.
#[derive(Clone, Debug)]
pub enum DomainAction {
    /// SET DEFAULT (its SQL text and bound expression) / DROP DEFAULT (None).
    Default(Option<(String, crate::sql::expr::Expr)>),
    /// SET NOT NULL (true) / DROP NOT NULL.
    NotNull(bool),
    /// ADD [CONSTRAINT name] CHECK (…) [NOT VALID].
    AddCheck {
        name: Option<String>,
        sql: String,
        expr: crate::sql::expr::Expr,
        validate: bool,
    },
    DropConstraint {
        name: String,
        if_exists: bool,
    },
    RenameConstraint {
        from: String,
        to: String,
    },
    ValidateConstraint(String),
    /// RENAME TO.
    Rename(String),
}

/// CREATE or DROP EXTENSION.
#[derive(Clone, Debug)]
pub enum ExtensionChange {
    Create {
        name: String,
        if_not_exists: bool,
        /// WITH SCHEMA (None: the creation schema of the search path).
        schema: Option<String>,
        cascade: bool,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
        cascade: bool,
    },
}

/// What DISCARD (or RESET ALL) forgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discard {
    All,
    Plans,
    Sequences,
    Temp,
    /// RESET ALL.
    Settings,
}

/// CREATE or DROP DATABASE, as written (names are resolved when it runs).
#[derive(Clone, Debug)]
pub enum DatabaseChange {
    Create {
        name: String,
        owner: Option<RoleSpec>,
        template: Option<String>,
        is_template: Option<bool>,
        allow_connections: Option<bool>,
        connection_limit: Option<i32>,
    },
    Drop {
        name: String,
        if_exists: bool,
        /// WITH (FORCE): other sessions on it are terminated.
        force: bool,
    },
    Alter {
        name: String,
        action: AlterDatabase,
    },
}

/// What ALTER DATABASE does.
#[derive(Clone, Debug)]
pub enum AlterDatabase {
    /// `[WITH] ALLOW_CONNECTIONS b | CONNECTION LIMIT n | IS_TEMPLATE b …`
    Options {
        is_template: Option<bool>,
        allow_connections: Option<bool>,
        connection_limit: Option<i32>,
    },
    Rename(String),
    Owner(RoleSpec),
    /// `SET name TO value` (None: `SET name TO DEFAULT` / `RESET name`).
    Set(String, Option<String>),
    ResetAll,
    /// `SET TABLESPACE`, `REFRESH COLLATION VERSION`: nothing to do in memory.
    NoOp,
}

/// A change to the roles (`auth::Roles`).
#[derive(Clone, Debug)]
pub enum RoleChange {
    Create {
        name: String,
        superuser: bool,
        /// CREATEDB.
        createdb: bool,
        login: bool,
        password: Option<String>,
    },
    /// None: unchanged; a password of None removes it (PASSWORD NULL).
    Alter {
        name: String,
        superuser: Option<bool>,
        login: Option<bool>,
        createdb: Option<bool>,
        password: Option<Option<String>>,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
    },
    /// GRANT / REVOKE privileges ON objects.
    Privileges(PrivilegeChange),
    /// GRANT / REVOKE role TO / FROM members.
    Membership {
        grant: bool,
        roles: Vec<String>,
        members: Vec<RoleSpec>,
        /// WITH ADMIN OPTION (GRANT), ADMIN OPTION FOR (REVOKE).
        admin: bool,
    },
    /// ALTER TABLE | SEQUENCE | VIEW name OWNER TO role.
    Owner {
        name: RelName,
        if_exists: bool,
        /// The statement's word for the relation (its kind must match, but TABLE
        /// takes any).
        kind: crate::catalog::RelKind,
        to: RoleSpec,
    },
    /// ALTER DEFAULT PRIVILEGES: `change` (its target AllTables or AllSequences) to the
    /// ACLs of relations `roles` create from now on.
    DefaultPrivileges {
        roles: Vec<RoleSpec>,
        /// IN SCHEMA public (added to the global defaults) rather than global.
        in_schema: bool,
        change: PrivilegeChange,
    },
    /// REASSIGN OWNED BY roles TO role.
    ReassignOwned {
        from: Vec<RoleSpec>,
        to: RoleSpec,
    },
    /// ALTER ROLE role | ALL [IN DATABASE db] SET / RESET: `setting` None for RESET ALL,
    /// a value of None for RESET of one setting.
    SetConfig {
        /// None: ALL roles.
        role: Option<String>,
        database: Option<String>,
        setting: Option<(String, Option<String>)>,
    },
    /// DROP OWNED BY roles [CASCADE].
    DropOwned {
        roles: Vec<RoleSpec>,
        cascade: bool,
    },
}

/// A role as GRANT, REVOKE and OWNER TO name one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoleSpec {
    Name(String),
    Public,
    CurrentUser,
    SessionUser,
}

/// What GRANT / REVOKE privileges act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrantTarget {
    /// `[TABLE] names` (views and sequences too).
    Tables(Vec<RelName>),
    Sequences(Vec<RelName>),
    /// `ALL TABLES IN SCHEMA s, …` (views included) / `ALL SEQUENCES IN SCHEMA`: the
    /// schemas' oids.
    AllTables(Vec<u32>),
    AllSequences(Vec<u32>),
    Schemas(Vec<String>),
    Databases(Vec<String>),
}

/// GRANT or REVOKE of privileges.
#[derive(Clone, Debug)]
pub struct PrivilegeChange {
    pub grant: bool,
    /// The privileges named (None: ALL), with the words as written for messages.
    pub privileges: Option<Vec<(String, crate::catalog::acl::Privs)>>,
    pub target: GrantTarget,
    pub grantees: Vec<RoleSpec>,
    /// WITH GRANT OPTION (GRANT), GRANT OPTION FOR (REVOKE).
    pub grant_option: bool,
    pub cascade: bool,
}

/// Where a FETCH or MOVE goes, as PostgreSQL's FetchDirection: NEXT is Forward(1),
/// PRIOR Backward(1), FIRST Absolute(1), LAST Absolute(-1), ALL a count of i64::MAX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchDirection {
    Forward(i64),
    Backward(i64),
    Absolute(i64),
    Relative(i64),
}

impl BoundStatement {
    /// The command a read-only transaction refuses (`25006`), as PostgreSQL names it.
    pub fn command_name(&self) -> &'static str {
        match self {
            BoundStatement::Insert { .. } => "INSERT",
            BoundStatement::Update { .. } => "UPDATE",
            BoundStatement::Delete { .. } => "DELETE",
            BoundStatement::Merge { .. } => "MERGE",
            BoundStatement::Truncate { .. } => "TRUNCATE TABLE",
            BoundStatement::CreateTable { .. } => "CREATE TABLE",
            BoundStatement::CreateIndex { .. } => "CREATE INDEX",
            BoundStatement::DropIndex { .. } => "DROP INDEX",
            BoundStatement::CreateSequence { .. } => "CREATE SEQUENCE",
            BoundStatement::AlterSequence { .. } => "ALTER SEQUENCE",
            BoundStatement::RenameRelation { kind, .. } => kind.command(),
            BoundStatement::IndexOptions { .. } => "ALTER INDEX",
            BoundStatement::AlterConstraint { .. } => "ALTER TABLE",
            BoundStatement::AlterTable { .. } => "ALTER TABLE",
            BoundStatement::CreateView { .. } => "CREATE VIEW",
            BoundStatement::CreateTableAs { .. } => "CREATE TABLE AS",
            BoundStatement::DropTable { .. } => "DROP TABLE",
            BoundStatement::LockTable { .. } => "LOCK TABLE",
            BoundStatement::CopyFrom { .. } => "COPY FROM",
            BoundStatement::Schema(SchemaChange::Create { .. }) => "CREATE SCHEMA",
            BoundStatement::Schema(SchemaChange::Drop { .. }) => "DROP SCHEMA",
            BoundStatement::Schema(_) => "ALTER SCHEMA",
            BoundStatement::Extension(ExtensionChange::Create { .. }) => "CREATE EXTENSION",
            BoundStatement::UserType(TypeChange::CreateEnum { .. }) => "CREATE TYPE",
            BoundStatement::UserType(TypeChange::CreateDomain { .. }) => "CREATE DOMAIN",
            BoundStatement::UserType(TypeChange::AlterDomain { .. }) => "ALTER DOMAIN",
            BoundStatement::UserType(TypeChange::Drop { domain: true, .. }) => "DROP DOMAIN",
            BoundStatement::UserType(TypeChange::Drop { .. }) => "DROP TYPE",
            BoundStatement::UserType(_) => "ALTER TYPE",
            BoundStatement::Extension(ExtensionChange::Drop { .. }) => "DROP EXTENSION",
            BoundStatement::SetSchema { kind, .. } => match kind {
                crate::catalog::RelKind::View => "ALTER VIEW",
                crate::catalog::RelKind::Sequence => "ALTER SEQUENCE",
                crate::catalog::RelKind::Table => "ALTER TABLE",
            },
            BoundStatement::Role(RoleChange::Create { .. }) => "CREATE ROLE",
            BoundStatement::Role(RoleChange::Alter { .. }) => "ALTER ROLE",
            BoundStatement::Role(RoleChange::Drop { .. }) => "DROP ROLE",
            BoundStatement::Role(RoleChange::Privileges(p)) if p.grant => "GRANT",
            BoundStatement::Role(RoleChange::Privileges(_)) => "REVOKE",
            BoundStatement::Role(RoleChange::Membership { grant: true, .. }) => "GRANT ROLE",
            BoundStatement::Role(RoleChange::Membership { .. }) => "REVOKE ROLE",
            BoundStatement::Role(RoleChange::Owner { .. }) => "ALTER TABLE",
            BoundStatement::Role(RoleChange::ReassignOwned { .. }) => "REASSIGN OWNED",
            BoundStatement::Role(RoleChange::DefaultPrivileges { .. }) => {
                "ALTER DEFAULT PRIVILEGES"
            }
            BoundStatement::Role(RoleChange::DropOwned { .. }) => "DROP OWNED",
            _ => "this statement",
        }
    }

    /// Whether the statement changes the catalog (or empties tables wholesale): it takes
    /// the catalog's lock (`session::CATALOG_LOCK`) besides its tables' locks.
    pub fn is_ddl(&self) -> bool {
        matches!(
            self,
            BoundStatement::Truncate { .. }
                | BoundStatement::CreateTable { .. }
                | BoundStatement::CreateIndex { .. }
                | BoundStatement::DropIndex { .. }
                | BoundStatement::RenameRelation { .. }
                | BoundStatement::IndexOptions { .. }
                | BoundStatement::AlterConstraint { .. }
                | BoundStatement::CreateSequence { .. }
                | BoundStatement::LockTable { .. }
                | BoundStatement::AlterTable { .. }
                | BoundStatement::CreateView { .. }
                | BoundStatement::CreateTableAs { .. }
                | BoundStatement::DropTable { .. }
                | BoundStatement::Comment { .. }
                | BoundStatement::Schema(_)
                | BoundStatement::Extension(_)
                | BoundStatement::UserType(_)
                | BoundStatement::SetSchema { .. }
                | BoundStatement::AlterSequence {
                    owned_by: Some(_),
                    ..
                }
                | BoundStatement::Role(
                    RoleChange::Privileges(_)
                        | RoleChange::Owner { .. }
                        | RoleChange::DefaultPrivileges { .. }
                        | RoleChange::ReassignOwned { .. }
                        | RoleChange::DropOwned { .. }
                )
        )
    }

    /// Whether running the statement writes (and so needs a transaction id).
    pub fn takes_writer_lock(&self) -> bool {
        match self {
            BoundStatement::Query { locks, .. } => *locks,
            BoundStatement::Insert { .. }
            | BoundStatement::Update { .. }
            | BoundStatement::Delete { .. }
            | BoundStatement::Merge { .. }
            | BoundStatement::Truncate { .. }
            | BoundStatement::CreateTable { .. }
            | BoundStatement::CreateIndex { .. }
            | BoundStatement::CreateSequence { .. }
            | BoundStatement::AlterSequence { .. }
            | BoundStatement::LockTable { .. }
            | BoundStatement::AlterTable { .. }
            | BoundStatement::DropIndex { .. }
            | BoundStatement::RenameRelation { .. }
            | BoundStatement::IndexOptions { .. }
            | BoundStatement::AlterConstraint { .. }
            | BoundStatement::CreateView { .. }
            | BoundStatement::CreateTableAs { .. }
            | BoundStatement::CopyFrom { .. }
            | BoundStatement::DropTable { .. } => true,
            BoundStatement::DeclareCursor { query, .. } => query.takes_writer_lock(),
            BoundStatement::Role(_)
            | BoundStatement::Comment { .. }
            | BoundStatement::Schema(_)
            | BoundStatement::Extension(_)
            | BoundStatement::UserType(_)
            | BoundStatement::SetSchema { .. } => true,
            BoundStatement::Fetch { .. }
            | BoundStatement::CloseCursor { .. }
            | BoundStatement::Discard(_)
            | BoundStatement::Listen { .. }
            | BoundStatement::Notify { .. }
            | BoundStatement::PrepareSql { .. }
            | BoundStatement::ExecuteSql { .. }
            | BoundStatement::Database(_)
            | BoundStatement::Checkpoint => false,
            BoundStatement::Explain { .. }
            | BoundStatement::CopyTo { .. }
            | BoundStatement::Transaction(_)
            | BoundStatement::Set { .. }
            | BoundStatement::Show { .. }
            | BoundStatement::Analyze { .. }
            | BoundStatement::Deallocate { .. }
            | BoundStatement::NoOp { .. } => false,
        }
    }

    /// The result columns, if the statement returns rows.
    pub fn output_columns(&self) -> Option<Vec<OutputColumn>> {
        match self {
            BoundStatement::Query { columns, .. } => Some(columns.clone()),
            BoundStatement::Explain { .. } => Some(vec![OutputColumn {
                name: "QUERY PLAN".into(),
                ty: SqlType::new(crate::types::DataType::Text),
                origin: None,
            }]),
            BoundStatement::Show { name } => Some(vec![OutputColumn {
                name: name.clone(),
                ty: SqlType::new(crate::types::DataType::Text),
                origin: None,
            }]),
            BoundStatement::Insert { returning, .. }
            | BoundStatement::Update { returning, .. }
            | BoundStatement::Delete { returning, .. } => {
                returning.as_ref().map(|r| r.columns.clone())
            }
            _ => None,
        }
    }
}
