//! Bound expressions: typed, name-resolved, ready to evaluate a batch at a time.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::plan::Plan;
use crate::plan::logical::{ColumnId, LogicalPlan, RelId};
use crate::types::{DataType, SqlType, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Concat,
}

/// An integer bitwise operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    And,
    Or,
    Xor,
    ShiftLeft,
    ShiftRight,
    Not,
}

impl BitOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BitOp::And => "&",
            BitOp::Or => "|",
            BitOp::Xor => "#",
            BitOp::ShiftLeft => "<<",
            BitOp::ShiftRight => ">>",
            BitOp::Not => "~",
        }
    }
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
        )
    }
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::Pow => "^",
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "<>",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::Concat => "||",
        }
    }
}

/// What a has_*_privilege function asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivilegeOf {
    Table,
    Schema,
    Database,
    Sequence,
    Column,
    AnyColumn,
    Function,
    Type,
    /// pg_has_role.
    Role,
}

impl PrivilegeOf {
    pub const ALL: [(PrivilegeOf, &'static str); 9] = [
        (PrivilegeOf::Table, "has_table_privilege"),
        (PrivilegeOf::Schema, "has_schema_privilege"),
        (PrivilegeOf::Database, "has_database_privilege"),
        (PrivilegeOf::Sequence, "has_sequence_privilege"),
        (PrivilegeOf::Column, "has_column_privilege"),
        (PrivilegeOf::AnyColumn, "has_any_column_privilege"),
        (PrivilegeOf::Function, "has_function_privilege"),
        (PrivilegeOf::Type, "has_type_privilege"),
        (PrivilegeOf::Role, "pg_has_role"),
    ];
}

/// Scalar functions kiln implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Upper,
    Lower,
    Length,
    OctetLength,
    Abs,
    Round,
    Trunc,
    Ceil,
    Floor,
    /// sign(x): -1, 0 or 1 in x's type (0 for NaN).
    Sign,
    Mod,
    Power,
    Sqrt,
    Ln,
    Exp,
    /// `log(x)` and `log10(x)`.
    Log10,
    /// `log(base, x)`, NUMERIC only.
    Log,
    Substr,
    Position,
    Replace,
    Btrim,
    Ltrim,
    Rtrim,
    Concat,
    Left,
    Repeat,
    /// chr(int): the character with that code point.
    Chr,
    /// ascii(text): the first character's code point.
    Ascii,
    Right,
    /// lpad(text, int [, fill]).
    Lpad,
    /// rpad(text, int [, fill]).
    Rpad,
    /// split_part(text, delimiter, n).
    SplitPart,
    Reverse,
    /// translate(text, from, to).
    Translate,
    StartsWith,
    Initcap,
    Md5,
    /// random(): volatile, never folded.
    Random,
    Coalesce,
    Nullif,
    Greatest,
    Least,
    Now,
    CurrentDate,
    Version,
    CurrentDatabase,
    CurrentUser,
    SessionUser,
    /// pg_backend_pid(), pg_cancel_backend(pid), pg_terminate_backend(pid [, timeout]).
    BackendPid,
    CancelBackend,
    TerminateBackend,
    /// pg_notify(channel, payload): NOTIFY as a function.
    PgNotify,
    /// `~` (false) and `~*` (true): POSIX regular expression match.
    RegexMatch(bool),
    /// Functions over catalog objects (`catalog::system`).
    PgTableIsVisible,
    PgTypeIsVisible,
    PgGetUserById,
    FormatType,
    PgGetExpr,
    PgGetIndexDef,
    PgGetConstraintDef,
    PgGetViewDef,
    ObjDescription,
    ColDescription,
    ShobjDescription,
    PgRelationIsPublishable,
    PgGetTriggerDef,
    PgGetStatisticsObjDefColumns,
    /// pg_get_function_result / _arguments / _identity_arguments (kiln has no
    /// user-defined functions: pg_proc is empty, so these meet no function).
    PgGetFunctionInfo,
    /// quote_ident(text), quote_literal(text); quote_nullable(text) is NULL-aware.
    QuoteIdent,
    QuoteLiteral,
    QuoteNullable,
    /// make_time(hour, min, sec float8).
    MakeTime,
    /// make_interval(years, months, weeks, days, hours, mins, secs).
    MakeInterval,
    /// like_escape(pattern, escape): a LIKE pattern with its own escape character
    /// rewritten to the backslash form.
    LikeEscape,
    /// make_date(year, month, day).
    MakeDate,
    /// The regular-expression functions (`exec::regexp`).
    Regexp(RegexpFn),
    /// The network types' operators and functions (`types::net`).
    Net(NetFn),
    /// A function of a built-in extension (`exec::extension_functions`).
    Ext(ExtFn),
    /// A range operator or function (`types::range`), over ranges of one kind.
    Range(RangeFn, crate::types::range::RangeKind),
    /// A full-text search function or operator (`types::tsearch`).
    Ts(TsFn),
    /// to_char(timestamp | timestamptz | interval, text) (`types::datetime::to_char`).
    ToChar,
    /// to_date(text, text), to_timestamp(text, text) (`timestamp`), and
    /// to_timestamp(double precision) (`epoch`).
    ToDate,
    ToTimestamp,
    ToTimestampEpoch,
    /// to_number(text, text).
    ToNumber,
    /// format(fmt, args…): `%s`, `%I`, `%L`, `%%` with positions and widths; the
    /// arguments keep their types and are printed by their output functions.
    Format,
    /// json_build_object(key, value, …) and json_build_array(value, …).
    JsonBuildObject,
    JsonBuildArray,
    /// set_config(name, value, is_local): SET as a function (applied when the
    /// statement has run).
    SetConfig,
    /// to_regclass, to_regtype, to_regproc, to_regnamespace, to_regrole: an oid alias
    /// from a name, NULL when nothing has it.
    ToReg(crate::types::DataType),
    /// Integer bitwise operators: `&` `|` `#` `<<` `>>` and unary `~`.
    Bitwise(BitOp),
    PgEncodingToChar,
    PgCharToEncoding,
    /// pg_size_pretty(bigint), PostgreSQL's units and rounding.
    PgSizePretty,
    /// pg_relation_size / pg_table_size, pg_indexes_size, pg_total_relation_size,
    /// pg_database_size: bytes of memory the data takes.
    RelationSize,
    IndexesSize,
    TotalRelationSize,
    DatabaseSize,
    CurrentSchema,
    CurrentSchemas,
    /// pg_my_temp_schema(): the session's temporary namespace (0 before it has one).
    MyTempSchema,
    /// pg_is_other_temp_schema(oid): another session's temporary namespace.
    IsOtherTempSchema,
    /// pg_blocking_pids(pid): the sessions whose locks or transactions it waits for.
    BlockingPids,
    /// pg_stat_get_numscans and the other access counters: 0 (kiln keeps none).
    StatCounter,
    /// pg_stat_get_live_tuples (true) / pg_stat_get_dead_tuples: the storage's counts.
    StatTuples(bool),
    /// has_table_privilege and its kin: what the ACLs say (`session::privileges`).
    HasPrivilege(PrivilegeOf),
    /// An oid alias's text form (the object's name), and reading one from text: the
    /// casts between the oid aliases and strings.
    RegOut(crate::types::DataType),
    RegIn(crate::types::DataType),
    /// text → the enum of this type oid, the label checked (`catalog::types`).
    EnumIn(u32),
    /// A value of a domain's base type checked by the domain's NOT NULL and CHECK
    /// constraints (not strict: NULL meets NOT NULL).
    DomainCheck(u32),
    /// An enum's label as text.
    EnumOut,
    /// An enum label's place in its type's order (a real): what `<`, ORDER BY and
    /// min / max compare.
    EnumPosition(u32),
    /// The label of enum `oid` at a place (the inverse of `EnumPosition`).
    EnumLabelAt(u32),
    /// current_setting(name [, missing_ok]).
    CurrentSetting,
    /// Sequences: `nextval`, `currval`, `setval`, `lastval` (volatile: never folded).
    NextVal,
    CurrVal,
    SetVal,
    LastVal,
    /// A sequence's `(last_value, is_called)` by oid: what `SELECT … FROM seq`
    /// reads (internal: the binder makes these calls).
    SequenceLastValue,
    SequenceIsCalled,
    /// uuid and bytea functions (`exec::bytes_functions`).
    GenRandomUuid,
    ByteaLength,
    /// length(bytea, encoding): characters in that encoding.
    ByteaEncodedLength,
    ByteaBitLength,
    ByteaSubstr,
    /// strpos(haystack, needle) of bytea (POSITION … IN).
    ByteaPosition,
    GetByte,
    SetByte,
    GetBit,
    SetBit,
    Encode,
    Decode,
    ConvertTo,
    ConvertFrom,
    /// convert(bytea, from encoding, to encoding).
    Convert,
    /// byteacmp and uuid_cmp: -1, 0 or 1.
    BytesCmp,
    /// json and jsonb (`exec::json_functions`). `->` / `->>` by key, by index and
    /// `#>` / `#>>` by path, on json (`json`) or jsonb, giving text (`text`) or json.
    JsonField {
        json: bool,
        text: bool,
    },
    JsonIndex {
        json: bool,
        text: bool,
    },
    JsonPath {
        json: bool,
        text: bool,
    },
    JsonbContains,
    JsonbContained,
    /// `?`, `?|`, `?&`.
    JsonbExists,
    JsonbExistsAny,
    JsonbExistsAll,
    JsonbConcat,
    /// `jsonb - text`, `jsonb - int`, `jsonb - text[]`, `jsonb #- text[]`.
    JsonbDelete,
    JsonbDeleteIndex,
    JsonbDeleteKeys,
    JsonbDeletePath,
    JsonTypeof {
        json: bool,
    },
    JsonArrayLength {
        json: bool,
    },
    /// jsonb_build_object (`object`) / jsonb_build_array: variadic.
    JsonbBuild {
        object: bool,
    },
    /// to_jsonb / to_json (`json`); a record argument's named fields come as a second
    /// argument, the typmod of its blessed type.
    ToJson {
        json: bool,
    },
    /// row_to_json(record, pretty, typmod): as to_json, with `pretty` putting each
    /// field after the first on a line of its own.
    RowToJson,
    JsonStripNulls {
        json: bool,
    },
    JsonbPretty,
    /// jsonb_set (target, path, new [, create_missing]); `lax`: jsonb_set_lax's NULL
    /// handling (a fifth argument).
    JsonbSet {
        lax: bool,
    },
    /// jsonb_insert (target, path, new [, insert_after]).
    JsonbInsert,
    /// The SQL/JSON path functions over (target, path, vars, silent)
    /// (`exec::jsonpath`); `@?` and `@@` are Exists and Match with `op`.
    JsonbPathFn {
        kind: PathFn,
        op: bool,
    },
    /// jsonb_object(text[]) / (keys text[], values text[]).
    JsonbObject {
        json: bool,
    },
    ByteaMd5,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    /// btrim (0), ltrim (1), rtrim (2) of bytea.
    ByteaTrim(u8),
    /// overlay(s placing p from f [for l]) of text (`Overlay(false)`) or bytea.
    Overlay(bool),
    PgGetSerialSequence,
    /// Advisory locks (`storage::advisory`).
    AdvisoryLock,
    AdvisoryLockShared,
    AdvisoryXactLock,
    AdvisoryXactLockShared,
    TryAdvisoryLock,
    TryAdvisoryLockShared,
    TryAdvisoryXactLock,
    TryAdvisoryXactLockShared,
    AdvisoryUnlock,
    AdvisoryUnlockShared,
    AdvisoryUnlockAll,
    /// EXTRACT(unit FROM x), args [unit, x]: numeric.
    Extract,
    /// date_part(unit, x): double precision.
    DatePart,
    /// date_trunc(unit, x [, zone]).
    DateTrunc,
    /// age(a, b).
    Age,
    /// `x AT TIME ZONE zone` / timezone(zone, x), args [zone, x].
    Timezone,
    /// `ARRAY[e1, …]`: args are the elements (arrays make one more dimension).
    ArrayBuild,
    /// `x op ANY (array)`, args [x, array].
    ArrayAny(BinaryOp),
    /// `x op ALL (array)`, args [x, array].
    ArrayAll(BinaryOp),
    /// `a[i][j]…`, args [a, i, j, …].
    ArraySubscript,
    /// `a[lo:hi]`, args [a, lo?, hi?] (which bounds were written: the flags).
    ArraySlice {
        lower: bool,
        upper: bool,
    },
    /// UPDATE's `a[i] = v` (args [a, v, i]) and `a[lo:hi] = array` (`slice`: args [a,
    /// v, lo, hi], NULL for an omitted bound): the array with those elements replaced,
    /// extended with NULLs as needed (not strict: a NULL array becomes one).
    ArrayAssign {
        slice: bool,
    },
    /// array_length(a, dim).
    ArrayLength,
    /// array_lower(a, dim).
    ArrayLower,
    /// array_upper(a, dim).
    ArrayUpper,
    ArrayNdims,
    ArrayDims,
    Cardinality,
    /// array_to_string(a, delimiter [, null_string]).
    ArrayToString,
    /// string_to_array(s, delimiter [, null_string]).
    StringToArray,
    /// array_append(a, x) and `a || x`.
    ArrayAppend,
    /// array_prepend(x, a) and `x || a`.
    ArrayPrepend,
    /// array_cat(a, b) and `a || b`.
    ArrayCat,
    /// array_position(a, x): the first subscript holding `x` (IS NOT DISTINCT FROM).
    ArrayPosition,
    /// array_remove(a, x).
    ArrayRemove,
    /// `a @> b`
    ArrayContains,
    /// `a <@ b`
    ArrayContained,
    /// `a && b`
    ArrayOverlap,
    /// `ROW(a, b, …)`: an anonymous record of the arguments.
    RowBuild,
    /// Field `n` (from 0) of a record; the call's type is the field's.
    RecordField(u16),
}

/// Which range operator or function (`types::range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RangeFn {
    /// int4range(lower, upper [, bounds]) and its kin: not strict (NULL is infinite).
    Construct,
    Lower,
    Upper,
    IsEmpty,
    LowerInc,
    UpperInc,
    LowerInf,
    UpperInf,
    Merge,
    /// range @> range (and <@ with the arguments swapped).
    Contains,
    /// range @> element (and element <@ range, swapped).
    ContainsElem,
    Overlaps,
    /// `<<` (and `>>`, swapped).
    Before,
    OverLeft,
    OverRight,
    Adjacent,
    Union,
    Intersection,
    Difference,
    /// numrange `=` (`<>` negated): bounds compared by value, so `[1.0,2)` equals
    /// `[1,2)` although their stored forms differ in the bounds' display scales.
    Equal,
}

/// Which full-text search function or operator (`types::tsearch`, kernels in
/// `exec::tsearch_functions`). `config` forms take a regconfig first; without it
/// the session's default_text_search_config is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TsFn {
    ToTsVector {
        config: bool,
    },
    ToTsQuery {
        kind: TsQueryKind,
        config: bool,
    },
    /// tsvector @@ tsquery.
    Match,
    SetWeight,
    /// setweight(tsvector, "char", text[]).
    SetWeightFilter,
    Strip,
    Length,
    /// tsvector || tsvector.
    Concat,
    /// ts_delete(tsvector, text).
    Delete,
    /// ts_delete(tsvector, text[]).
    DeleteArray,
    Filter,
    ToArray,
    FromArray,
    NumNode,
    QueryTree,
    /// tsquery && tsquery, || and !!.
    And,
    Or,
    Not,
    /// tsquery <-> tsquery and tsquery_phrase(a, b [, distance]).
    Phrase,
    /// tsquery @> tsquery (<@ with the arguments swapped).
    Contains,
    /// ts_rank / ts_rank_cd([weights,] tsvector, tsquery [, normalization]) (`weights`:
    /// given; the normalization is given when the call has one argument more).
    Rank {
        cd: bool,
        weights: bool,
    },
    /// ts_lexize(dictionary, word).
    Lexize,
    /// get_current_ts_config().
    CurrentConfig,
    /// ts_headline([config,] document, query, options).
    Headline {
        config: bool,
    },
    /// ts_rewrite(query, target, substitute).
    Rewrite,
    /// to_tsvector of a json (`json`) or jsonb document, and json(b)_to_tsvector with a
    /// filter of the values to take (`filter`).
    JsonToTsVector {
        config: bool,
        json: bool,
        filter: bool,
    },
    /// ts_headline([config,] jsonb, query, options).
    JsonHeadline {
        config: bool,
    },
    /// tsquery = <> < <= > >= (tsquery_cmp, which ignores weights and prefix marks).
    QueryCompare(TsCmp),
}

/// A comparison of two tsqueries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TsCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl TsFn {
    /// The function's SQL name, for printing a call back (the operators print as
    /// operators: [`Func::operator_symbol`]).
    pub fn sql_name(self) -> &'static str {
        match self {
            TsFn::ToTsVector { .. } | TsFn::JsonToTsVector { filter: false, .. } => "to_tsvector",
            TsFn::JsonToTsVector { json: true, .. } => "json_to_tsvector",
            TsFn::JsonToTsVector { .. } => "jsonb_to_tsvector",
            TsFn::ToTsQuery { kind, .. } => match kind {
                TsQueryKind::To => "to_tsquery",
                TsQueryKind::Plain => "plainto_tsquery",
                TsQueryKind::Phrase => "phraseto_tsquery",
                TsQueryKind::Websearch => "websearch_to_tsquery",
            },
            TsFn::Match => "ts_match_vq",
            TsFn::SetWeight | TsFn::SetWeightFilter => "setweight",
            TsFn::Strip => "strip",
            TsFn::Length => "length",
            TsFn::Concat => "tsvector_concat",
            TsFn::Delete | TsFn::DeleteArray => "ts_delete",
            TsFn::Filter => "ts_filter",
            TsFn::ToArray => "tsvector_to_array",
            TsFn::FromArray => "array_to_tsvector",
            TsFn::NumNode => "numnode",
            TsFn::QueryTree => "querytree",
            TsFn::And => "tsquery_and",
            TsFn::Or => "tsquery_or",
            TsFn::Not => "tsquery_not",
            TsFn::Phrase => "tsquery_phrase",
            TsFn::Contains => "tsq_mcontains",
            TsFn::Rank { cd: false, .. } => "ts_rank",
            TsFn::Rank { cd: true, .. } => "ts_rank_cd",
            TsFn::Lexize => "ts_lexize",
            TsFn::CurrentConfig => "get_current_ts_config",
            TsFn::QueryCompare(_) => "tsquery_cmp",
            TsFn::Headline { .. } | TsFn::JsonHeadline { .. } => "ts_headline",
            TsFn::Rewrite => "ts_rewrite",
        }
    }
}

/// Which text-to-tsquery function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TsQueryKind {
    To,
    Plain,
    Phrase,
    Websearch,
}

/// Which function or operator of a built-in extension (`catalog::extension`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExtFn {
    // uuid-ossp.
    UuidV1,
    UuidV1Mc,
    UuidV3,
    UuidV4,
    UuidV5,
    UuidNil,
    UuidNsDns,
    UuidNsUrl,
    UuidNsOid,
    UuidNsX500,
    // pgcrypto.
    Digest,
    Hmac,
    GenRandomBytes,
    // pg_trgm.
    Similarity,
    WordSimilarity,
    StrictWordSimilarity,
    ShowTrgm,
    ShowLimit,
    SetLimit,
    /// `%`: similarity at least pg_trgm.similarity_threshold.
    SimilarOp,
    /// `<%` (and `%>` with the arguments swapped): word similarity at least
    /// pg_trgm.word_similarity_threshold.
    WordSimilarOp,
    /// `<<%` (and `%>>`): strict word similarity at least its threshold.
    StrictWordSimilarOp,
    /// `<->`: 1 - similarity.
    Distance,
    /// `<<->` (and `<->>`): 1 - word similarity.
    WordDistance,
    /// `<<<->` (and `<->>>`): 1 - strict word similarity.
    StrictWordDistance,
}

impl ExtFn {
    /// The extension that provides it.
    pub fn extension(self) -> &'static str {
        use ExtFn as E;
        match self {
            E::UuidV1
            | E::UuidV1Mc
            | E::UuidV3
            | E::UuidV4
            | E::UuidV5
            | E::UuidNil
            | E::UuidNsDns
            | E::UuidNsUrl
            | E::UuidNsOid
            | E::UuidNsX500 => "uuid-ossp",
            E::Digest | E::Hmac | E::GenRandomBytes => "pgcrypto",
            _ => "pg_trgm",
        }
    }
}

/// Which network operator or function (`types::net`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetFn {
    /// `<<` / `<<=` (`or_equal`), and `>>` / `>>=` with the arguments swapped.
    Within {
        or_equal: bool,
    },
    Overlaps,
    Not,
    And,
    Or,
    /// inet + bigint (and bigint + inet, swapped), inet - bigint.
    Add,
    SubInt,
    /// inet - inet.
    Diff,
    Abbrev,
    Broadcast,
    Family,
    Host,
    HostMask,
    Merge,
    SameFamily,
    MaskLen,
    NetMask,
    Network,
    SetMaskLen,
    Text,
    Trunc,
    Set7Bit,
}

/// Which regular-expression function (`exec::regexp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegexpFn {
    Match,
    Replace,
    SplitToArray,
    Count,
    Instr,
    Like,
    Substr,
    /// substring(string from pattern).
    Substring,
    /// substring(string similar pattern escape esc).
    SimilarSubstring,
    /// string SIMILAR TO pattern [ESCAPE esc] (`escape`: given).
    SimilarTo {
        escape: bool,
    },
}

/// What a jsonb_path_* function answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathFn {
    Exists,
    Match,
    QueryArray,
    QueryFirst,
}

impl Func {
    /// The operator a function is written as (`doc -> 'k'`), for printing it back.
    pub fn operator_symbol(self) -> Option<&'static str> {
        Some(match self {
            Func::JsonField { text: false, .. } | Func::JsonIndex { text: false, .. } => "->",
            Func::JsonField { text: true, .. } | Func::JsonIndex { text: true, .. } => "->>",
            Func::JsonPath { text: false, .. } => "#>",
            Func::JsonPath { text: true, .. } => "#>>",
            Func::JsonbContains => "@>",
            Func::JsonbContained => "<@",
            Func::JsonbExists => "?",
            Func::JsonbExistsAny => "?|",
            Func::JsonbExistsAll => "?&",
            Func::JsonbConcat => "||",
            Func::JsonbDelete | Func::JsonbDeleteIndex | Func::JsonbDeleteKeys => "-",
            Func::JsonbDeletePath => "#-",
            Func::JsonbPathFn {
                kind: PathFn::Exists,
                op: true,
            } => "@?",
            Func::JsonbPathFn {
                kind: PathFn::Match,
                op: true,
            } => "@@",
            Func::Ts(TsFn::Match) => "@@",
            Func::Ts(TsFn::Concat | TsFn::Or) => "||",
            Func::Ts(TsFn::And) => "&&",
            Func::Ts(TsFn::Phrase) => "<->",
            Func::Ts(TsFn::Contains) => "@>",
            Func::Ts(TsFn::QueryCompare(c)) => match c {
                TsCmp::Eq => "=",
                TsCmp::Ne => "<>",
                TsCmp::Lt => "<",
                TsCmp::Le => "<=",
                TsCmp::Gt => ">",
                TsCmp::Ge => ">=",
            },
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    /// bool_and and every.
    BoolAnd,
    BoolOr,
    /// string_agg(value, delimiter).
    StringAgg,
    /// var_pop / var_samp (= variance) / stddev_pop / stddev_samp (= stddev).
    VarPop,
    VarSamp,
    StddevPop,
    StddevSamp,
    /// The two-variable statistics, over (Y, X): corr(Y, X), covar_pop(Y, X), …
    Corr,
    CovarPop,
    CovarSamp,
    RegrCount,
    RegrSxx,
    RegrSyy,
    RegrSxy,
    RegrAvgX,
    RegrAvgY,
    RegrR2,
    RegrSlope,
    RegrIntercept,
    /// Ordered-set aggregates: `f(direct) WITHIN GROUP (ORDER BY value)`; the value is
    /// `arg`, the direct argument (the fraction) `extra[0]`.
    PercentileCont,
    PercentileDisc,
    Mode,
    /// array_agg(value): the values in input order (or the call's ORDER BY).
    ArrayAgg,
    /// json_agg / jsonb_agg(value): a json array of the values (NULL as null). The
    /// binder hands them over converted (to_json / to_jsonb); json_agg's `extra[0]`
    /// says whether they were arrays or records (set apart by a line break).
    JsonAgg,
    JsonbAgg,
    /// json_object_agg / jsonb_object_agg(key, value): the key as text, the value
    /// (`extra[0]`) converted.
    JsonObjectAgg,
    JsonbObjectAgg,
    /// GROUPING(keys…): which keys the current grouping set leaves out, as bits (its
    /// arguments are `extra`; replaced by constants before the plan runs).
    Grouping,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AggCall {
    pub func: AggFunc,
    /// The (first) argument; None for count(*).
    pub arg: Option<Expr>,
    /// Further arguments (string_agg's delimiter, the X of a regression, a
    /// percentile's fraction).
    pub extra: Vec<Expr>,
    pub distinct: bool,
    /// `FILTER (WHERE …)`: only rows where it is true are aggregated.
    pub filter: Option<Expr>,
    /// `ORDER BY` inside the call (or WITHIN GROUP): the rows are fed in this order.
    pub order_by: Vec<WindowOrder>,
    pub ty: SqlType,
}

impl AggCall {
    /// A plain call: one argument (or none for count(*)), nothing else.
    pub fn simple(func: AggFunc, arg: Option<Expr>, ty: SqlType) -> AggCall {
        AggCall {
            func,
            arg,
            extra: Vec::new(),
            distinct: false,
            filter: None,
            order_by: Vec::new(),
            ty,
        }
    }

    /// Calls `f` on every expression of the call.
    pub fn exprs(&self, f: &mut dyn FnMut(&Expr)) {
        self.arg.iter().for_each(&mut *f);
        self.extra.iter().for_each(&mut *f);
        self.filter.iter().for_each(&mut *f);
        self.order_by.iter().for_each(|o| f(&o.expr));
    }

    pub fn exprs_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        self.arg.iter_mut().for_each(&mut *f);
        self.extra.iter_mut().for_each(&mut *f);
        self.filter.iter_mut().for_each(&mut *f);
        self.order_by.iter_mut().for_each(|o| f(&mut o.expr));
    }

    /// Whether the rows are gathered per group and fed sorted (ORDER BY, DISTINCT and
    /// the ordered-set aggregates), rather than folded in as they come.
    pub fn gathers(&self) -> bool {
        self.distinct || !self.order_by.is_empty()
    }
}

/// Window functions (aggregates over a window are [`WindowFunc::Agg`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// ntile(buckets)
    Ntile,
    /// lag(value [, offset [, default]])
    Lag,
    /// lead(value [, offset [, default]])
    Lead,
    FirstValue,
    LastValue,
    /// nth_value(value, n)
    NthValue,
    Agg(AggFunc),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameUnits {
    Rows,
    Range,
    Groups,
}

/// One end of a window frame.
#[derive(Clone, Debug, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    /// `offset PRECEDING` (rows or groups back; for RANGE a distance in the key's units).
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameExclude {
    NoOthers,
    CurrentRow,
    Group,
    Ties,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub units: FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
    pub exclude: FrameExclude,
}

impl Frame {
    /// PostgreSQL's default: RANGE UNBOUNDED PRECEDING AND CURRENT ROW.
    pub fn default_frame() -> Frame {
        Frame {
            units: FrameUnits::Range,
            start: FrameBound::UnboundedPreceding,
            end: FrameBound::CurrentRow,
            exclude: FrameExclude::NoOthers,
        }
    }
}

/// One ORDER BY key of a window.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowOrder {
    pub expr: Expr,
    pub desc: bool,
    pub nulls_first: bool,
}

/// A window function call: the function, its arguments and its window.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowCall {
    pub func: WindowFunc,
    pub args: Vec<Expr>,
    /// `FILTER (WHERE …)` of a window aggregate.
    pub filter: Option<Expr>,
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<WindowOrder>,
    pub frame: Frame,
    pub ty: SqlType,
}

impl WindowCall {
    /// Calls `f` on every expression of the call.
    pub fn exprs_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        self.args.iter_mut().for_each(&mut *f);
        self.filter.iter_mut().for_each(&mut *f);
        self.partition_by.iter_mut().for_each(&mut *f);
        self.order_by.iter_mut().for_each(|o| f(&mut o.expr));
        for b in [&mut self.frame.start, &mut self.frame.end] {
            if let FrameBound::Preceding(e) | FrameBound::Following(e) = b {
                f(e);
            }
        }
    }

    pub fn exprs(&self, f: &mut dyn FnMut(&Expr)) {
        self.args.iter().for_each(&mut *f);
        self.filter.iter().for_each(&mut *f);
        self.partition_by.iter().for_each(&mut *f);
        self.order_by.iter().for_each(|o| f(&o.expr));
        for b in [&self.frame.start, &self.frame.end] {
            if let FrameBound::Preceding(e) | FrameBound::Following(e) = b {
                f(e);
            }
        }
    }
}

/// What a subquery expression asks of its rows.
#[derive(Clone, Debug, PartialEq)]
pub enum SubqueryKind {
    /// The one value of the one row (NULL without rows; `21000` with more than one).
    Scalar,
    /// Whether there is a row.
    Exists,
    /// `ARRAY(subquery)`: the one column's values in the rows' order, as an array
    /// (empty, not NULL, without rows).
    Array,
    /// `(l1, …) op ANY (subquery)` (and IN): true if `left[i] op right[i]` holds for
    /// every `i` on some row. `right[i]` reads the subquery's output column `i` (cast to
    /// the comparison's common type).
    Any {
        left: Vec<Expr>,
        right: Vec<Expr>,
        op: BinaryOp,
    },
    /// `(l1, …) op ALL (subquery)`: true if the comparison holds on every row.
    All {
        left: Vec<Expr>,
        right: Vec<Expr>,
        op: BinaryOp,
    },
    /// `(l1, …) op (subquery)`: the row comparison with the subquery's one row (NULL
    /// without rows, `21000` with more than one); `<`, `<=`, `>`, `>=` compare the
    /// columns in order, as for row constructors.
    Row {
        left: Vec<Expr>,
        right: Vec<Expr>,
        op: BinaryOp,
    },
}

/// A subquery inside an expression of a logical plan.
#[derive(Clone, Debug)]
pub struct Subquery {
    pub kind: SubqueryKind,
    pub plan: LogicalPlan,
    /// The value's type: the column's for a scalar subquery, boolean otherwise.
    pub ty: SqlType,
}

impl PartialEq for Subquery {
    /// Two subqueries are the same expression only if they are the same node.
    fn eq(&self, other: &Subquery) -> bool {
        std::ptr::eq(self, other)
    }
}

/// A subquery the executor runs: once when it reads nothing of the outer row, else for
/// each distinct combination of the outer values it reads.
#[derive(Debug)]
pub struct SubPlan {
    /// Numbers the subplan within its statement (the executor caches results by it).
    pub id: usize,
    pub kind: SubqueryKind,
    /// In `kind`, `left` expressions read the outer row; `right` ones read the plan's
    /// output row (positions).
    pub plan: Plan,
    /// Outer values the plan reads, as `(slot, expression over the outer row)`: the
    /// plan reads slot `s` as [`Expr::OuterParam`].
    pub params: Vec<(usize, Expr)>,
    pub ty: SqlType,
}

impl PartialEq for SubPlan {
    fn eq(&self, other: &SubPlan) -> bool {
        self.id == other.id
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Column `index` of the input batch (physical plans).
    Column {
        index: usize,
        ty: SqlType,
        name: String,
    },
    /// A column of a relation (logical plans).
    ColumnRef {
        id: ColumnId,
        ty: SqlType,
        name: String,
    },
    /// A subquery (logical plans).
    Subquery(Box<Subquery>),
    /// A subquery the executor runs (physical plans).
    SubPlan(Arc<SubPlan>),
    /// Inside a correlated subplan: the outer row's value in slot `slot`.
    OuterParam {
        slot: usize,
        ty: SqlType,
    },
    Literal {
        value: Value,
        ty: SqlType,
    },
    /// Parameter `$index+1`, supplied at execution.
    Param {
        index: usize,
        ty: SqlType,
    },
    Negate {
        expr: Box<Expr>,
        ty: SqlType,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
        ty: SqlType,
    },
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// `IS [NOT] TRUE/FALSE`
    IsBool {
        expr: Box<Expr>,
        value: bool,
        negated: bool,
    },
    IsDistinct {
        left: Box<Expr>,
        right: Box<Expr>,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        case_insensitive: bool,
    },
    Case {
        whens: Vec<(Expr, Expr)>,
        else_result: Option<Box<Expr>>,
        ty: SqlType,
    },
    Cast {
        expr: Box<Expr>,
        to: SqlType,
        explicit: bool,
    },
    Func {
        func: Func,
        args: Vec<Expr>,
        ty: SqlType,
    },
    /// An aggregate's result while binding; replaced by a column reference before planning.
    Agg {
        index: usize,
        ty: SqlType,
    },
    /// A window function's result while binding; replaced by a column reference.
    Window {
        index: usize,
        ty: SqlType,
    },
    /// A projected column no parent reads (left by column pruning): never computed,
    /// its vector stays empty.
    Unused {
        ty: SqlType,
    },
}

const BOOL: SqlType = SqlType::new(DataType::Bool);

impl Expr {
    /// A SERIAL or identity column's default names its sequence by the placeholder
    /// name the binder gave it until the sequence exists; this puts the sequence's oid
    /// (a regclass constant, as PostgreSQL stores it) in its place, so the default
    /// follows the sequence through renames and moves between schemas.
    pub fn set_sequence_oid(&mut self, placeholder: &str, oid: u32) {
        if let Expr::Func {
            func: Func::NextVal,
            args,
            ..
        } = self
            && let Some(first) = args.first_mut()
            && matches!(first, Expr::Literal { value: Value::Text(t), .. } if t == placeholder)
        {
            *first = Expr::Literal {
                value: Value::Int8(oid as i64),
                ty: SqlType::new(DataType::RegClass),
            };
            return;
        }
        self.children_mut(&mut |c| c.set_sequence_oid(placeholder, oid));
    }

    /// The oid of the sequence a `nextval(regclass constant)` draws from (a SERIAL or
    /// identity column's default), looking through an implicit cast.
    pub fn nextval_oid(&self) -> Option<u32> {
        let call = match self {
            Expr::Cast {
                expr,
                explicit: false,
                ..
            } => expr.as_ref(),
            other => other,
        };
        match call {
            Expr::Func {
                func: Func::NextVal,
                args,
                ..
            } => match args.first() {
                Some(Expr::Literal {
                    value: Value::Int8(o),
                    ty,
                }) if ty.ty == DataType::RegClass => Some(*o as u32),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn ty(&self) -> SqlType {
        match self {
            Expr::Column { ty, .. }
            | Expr::ColumnRef { ty, .. }
            | Expr::OuterParam { ty, .. }
            | Expr::Literal { ty, .. }
            | Expr::Param { ty, .. }
            | Expr::Negate { ty, .. }
            | Expr::Binary { ty, .. }
            | Expr::Case { ty, .. }
            | Expr::Func { ty, .. }
            | Expr::Agg { ty, .. }
            | Expr::Window { ty, .. }
            | Expr::Unused { ty } => *ty,
            Expr::Cast { to, .. } => *to,
            Expr::Subquery(s) => s.ty,
            Expr::SubPlan(s) => s.ty,
            Expr::And(_)
            | Expr::Or(_)
            | Expr::Not(_)
            | Expr::IsNull { .. }
            | Expr::IsBool { .. }
            | Expr::IsDistinct { .. }
            | Expr::InList { .. }
            | Expr::Like { .. } => BOOL,
        }
    }

    pub fn literal(value: Value, ty: SqlType) -> Expr {
        Expr::Literal { value, ty }
    }

    pub fn is_constant(&self) -> bool {
        matches!(self, Expr::Literal { .. })
    }

    /// Calls `f` on every direct child.
    pub fn children_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            Expr::Column { .. }
            | Expr::ColumnRef { .. }
            | Expr::OuterParam { .. }
            | Expr::Literal { .. }
            | Expr::Param { .. }
            | Expr::Agg { .. }
            | Expr::Window { .. }
            | Expr::Unused { .. } => {}
            Expr::Subquery(s) => match &mut s.kind {
                SubqueryKind::Scalar | SubqueryKind::Exists | SubqueryKind::Array => {}
                SubqueryKind::Any { left, .. }
                | SubqueryKind::All { left, .. }
                | SubqueryKind::Row { left, .. } => left.iter_mut().for_each(f),
            },
            // A subplan's outer expressions are its parameters and `left` operands; its
            // plan is already lowered.
            Expr::SubPlan(_) => {}
            Expr::Negate { expr, .. }
            | Expr::Not(expr)
            | Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. } => f(expr),
            Expr::Cast { expr, .. } => f(expr),
            Expr::Binary { left, right, .. } | Expr::IsDistinct { left, right, .. } => {
                f(left);
                f(right);
            }
            Expr::Like { expr, pattern, .. } => {
                f(expr);
                f(pattern);
            }
            Expr::And(list) | Expr::Or(list) => list.iter_mut().for_each(f),
            Expr::InList { expr, list, .. } => {
                f(expr);
                list.iter_mut().for_each(f);
            }
            Expr::Case {
                whens, else_result, ..
            } => {
                for (c, r) in whens {
                    f(c);
                    f(r);
                }
                if let Some(e) = else_result {
                    f(e);
                }
            }
            Expr::Func { args, .. } => args.iter_mut().for_each(f),
        }
    }

    /// Calls `f` on every direct child.
    pub fn children(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Expr::Column { .. }
            | Expr::ColumnRef { .. }
            | Expr::OuterParam { .. }
            | Expr::Literal { .. }
            | Expr::Param { .. }
            | Expr::Agg { .. }
            | Expr::Window { .. }
            | Expr::Unused { .. } => {}
            Expr::Subquery(s) => match &s.kind {
                SubqueryKind::Scalar | SubqueryKind::Exists | SubqueryKind::Array => {}
                SubqueryKind::Any { left, .. }
                | SubqueryKind::All { left, .. }
                | SubqueryKind::Row { left, .. } => left.iter().for_each(f),
            },
            Expr::SubPlan(p) => {
                for (_, e) in &p.params {
                    f(e);
                }
                match &p.kind {
                    SubqueryKind::Scalar | SubqueryKind::Exists | SubqueryKind::Array => {}
                    SubqueryKind::Any { left, .. }
                    | SubqueryKind::All { left, .. }
                    | SubqueryKind::Row { left, .. } => left.iter().for_each(f),
                }
            }
            Expr::Negate { expr, .. }
            | Expr::Not(expr)
            | Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. } => f(expr),
            Expr::Cast { expr, .. } => f(expr),
            Expr::Binary { left, right, .. } | Expr::IsDistinct { left, right, .. } => {
                f(left);
                f(right);
            }
            Expr::Like { expr, pattern, .. } => {
                f(expr);
                f(pattern);
            }
            Expr::And(list) | Expr::Or(list) => list.iter().for_each(f),
            Expr::InList { expr, list, .. } => {
                f(expr);
                list.iter().for_each(f);
            }
            Expr::Case {
                whens, else_result, ..
            } => {
                for (c, r) in whens {
                    f(c);
                    f(r);
                }
                if let Some(e) = else_result {
                    f(e);
                }
            }
            Expr::Func { args, .. } => args.iter().for_each(f),
        }
    }

    /// Whether any node satisfies `pred`.
    pub fn any(&self, pred: &dyn Fn(&Expr) -> bool) -> bool {
        if pred(self) {
            return true;
        }
        let mut found = false;
        self.children(&mut |c| {
            if !found && c.any(pred) {
                found = true;
            }
        });
        found
    }

    /// Relations whose columns this expression reads, including inside subqueries.
    pub fn used_rels(&self, out: &mut BTreeSet<RelId>) {
        match self {
            Expr::ColumnRef { id, .. } => {
                out.insert(id.rel);
            }
            Expr::Subquery(s) => {
                s.plan.used_rels(out);
                if let SubqueryKind::Any { right, .. }
                | SubqueryKind::All { right, .. }
                | SubqueryKind::Row { right, .. } = &s.kind
                {
                    right.iter().for_each(|r| r.used_rels(out));
                }
            }
            _ => {}
        }
        self.children(&mut |c| c.used_rels(out));
    }

    /// Calls `f` with every column this expression reads, inside subqueries too.
    pub fn column_refs(&self, f: &mut dyn FnMut(ColumnId, SqlType)) {
        match self {
            Expr::ColumnRef { id, ty, .. } => f(*id, *ty),
            Expr::Subquery(s) => {
                s.plan.walk(&mut |p| p.exprs(&mut |e| e.column_refs(f)));
                if let SubqueryKind::Any { right, .. }
                | SubqueryKind::All { right, .. }
                | SubqueryKind::Row { right, .. } = &s.kind
                {
                    right.iter().for_each(|r| r.column_refs(f));
                }
            }
            _ => {}
        }
        self.children(&mut |c| c.column_refs(f));
    }

    /// Calls `f` with every column reference node, inside subqueries too, to rewrite it.
    pub fn column_refs_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            Expr::ColumnRef { .. } => return f(self),
            Expr::Subquery(s) => {
                s.plan
                    .walk_mut_pre(&mut |p| p.exprs_mut(&mut |e| e.column_refs_mut(f)));
                if let SubqueryKind::Any { right, .. }
                | SubqueryKind::All { right, .. }
                | SubqueryKind::Row { right, .. } = &mut s.kind
                {
                    right.iter_mut().for_each(|r| r.column_refs_mut(f));
                }
            }
            _ => {}
        }
        self.children_mut(&mut |c| c.column_refs_mut(f));
    }

    pub fn literal_bool(b: bool) -> Expr {
        Expr::Literal {
            value: Value::Bool(b),
            ty: BOOL,
        }
    }

    /// Calls `f` on each subquery of this expression (not on subqueries nested inside
    /// those: they belong to their plans).
    pub fn visit_subqueries(&self, f: &mut dyn FnMut(&Subquery)) {
        if let Expr::Subquery(s) = self {
            f(s);
        }
        self.children(&mut |c| c.visit_subqueries(f));
    }

    /// Whether the expression holds a subquery.
    pub fn has_subquery(&self) -> bool {
        self.any(&|e| matches!(e, Expr::Subquery(_) | Expr::SubPlan(_)))
    }

    /// Splits a conjunction into its conjuncts.
    pub fn conjuncts(self) -> Vec<Expr> {
        match self {
            Expr::And(list) => list.into_iter().flat_map(Expr::conjuncts).collect(),
            e => vec![e],
        }
    }

    /// The conjunction of `list` (`None` when empty).
    pub fn and_all(mut list: Vec<Expr>) -> Option<Expr> {
        match list.len() {
            0 => None,
            1 => list.pop(),
            _ => Some(Expr::And(list)),
        }
    }
}
