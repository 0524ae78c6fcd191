//! The catalog of scalar functions: one row per function kiln implements, with its SQL
//! names, how its arguments are typed, its strictness and volatility, and which
//! executor module holds its kernel.
//!
//! One table serves every stage. The binder resolves a call by name through it (a row
//! with a declared signature is typed here, by [`resolve`]; overloads whose typing
//! follows PostgreSQL's numeric and datetime categories are typed by hand in
//! `binder::functions`, `binder::array` and the datetime binder, and say so with
//! [`Typing::ByHand`]). The optimizer reads strictness (NULL in, NULL out: outer-join
//! simplification) and volatility (what constant folding may evaluate at plan time,
//! what a filter may be pushed past). The executor dispatches on [`Kernel`].
//!
//! Volatility is PostgreSQL's `provolatile`, as kiln's folding needs it: `Stable` for
//! what reads the session (settings, time zone, the transaction's clock) — never folded;
//! `Volatile` for `random()` — never folded, never moved or duplicated.

use super::expr::{BinaryOp, ExtFn, Func, NetFn, PathFn, RangeFn, RegexpFn};
use crate::types::range::RangeKind;
use crate::types::{DataType, SqlType};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Volatility {
    Immutable,
    Stable,
    Volatile,
}

/// A declared parameter: text (varchar and char(n) and untyped literals coerce to it),
/// or integer (any integer type or an untyped literal, as int4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Text,
    Int,
    /// Any integer, taken as bigint.
    BigInt,
    Bool,
    /// An object identifier: oid, an oid alias, an integer or an untyped literal.
    Oid,
    /// A relation: regclass, an oid, or an untyped literal read as a relation's name.
    RegClass,
}

/// How a call's arguments and result are typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typing {
    /// `params`, of which the first `required` must be given; the result type.
    Params {
        params: &'static [Param],
        required: usize,
        result: DataType,
    },
    /// Overloads typed in the binder (numeric categories, polymorphic arrays, datetime
    /// fields, the session functions' keyword forms).
    ByHand,
}

/// Which executor module evaluates the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// `exec::functions` (math, the common string functions, conditionals, session).
    Scalar,
    /// `exec::string_functions`.
    String,
    /// `exec::date_functions`.
    DateTime,
    /// `exec::array_functions`.
    Array,
    /// `catalog::system`: functions that read the catalog.
    Catalog,
    /// `exec::bytes_functions` (uuid and bytea).
    Bytes,
    /// `exec::json_functions` (json and jsonb).
    Json,
}

/// One function.
#[derive(Debug)]
pub struct FuncInfo {
    pub func: Func,
    /// The SQL names that call it (the first is the one EXPLAIN prints).
    pub names: &'static [&'static str],
    pub typing: Typing,
    /// NULL whenever an argument is NULL.
    pub strict: bool,
    pub volatility: Volatility,
    pub kernel: Kernel,
}

use Kernel as K;
use Param::{BigInt, Int, Text};
use Volatility::{Immutable as I, Stable as S, Volatile as V};

const fn f(
    func: Func,
    names: &'static [&'static str],
    typing: Typing,
    strict: bool,
    volatility: Volatility,
    kernel: Kernel,
) -> FuncInfo {
    FuncInfo {
        func,
        names,
        typing,
        strict,
        volatility,
        kernel,
    }
}

const fn sig(params: &'static [Param], required: usize, result: DataType) -> Typing {
    Typing::Params {
        params,
        required,
        result,
    }
}

const HAND: Typing = Typing::ByHand;
const T: DataType = DataType::Text;
const I4: DataType = DataType::Int4;
const I8: DataType = DataType::Int8;

/// Every scalar function kiln implements. Parameterized variants (`ArrayAny(op)`,
/// `ArraySlice { … }`) appear once, with a representative parameter.
pub static FUNCTIONS: &[FuncInfo] = &[
    // Strings.
    f(
        Func::Upper,
        &["upper"],
        sig(&[Text], 1, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::QuoteIdent,
        &["quote_ident"],
        sig(&[Text], 1, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::QuoteLiteral,
        &["quote_literal"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Abbrev),
        &["abbrev"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Broadcast),
        &["broadcast"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Family),
        &["family"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(Func::Net(NetFn::Host), &["host"], HAND, true, I, K::Scalar),
    f(
        Func::Net(NetFn::HostMask),
        &["hostmask"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Merge),
        &["inet_merge"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::SameFamily),
        &["inet_same_family"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::MaskLen),
        &["masklen"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::NetMask),
        &["netmask"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Network),
        &["network"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::SetMaskLen),
        &["set_masklen"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(Func::Net(NetFn::Text), &["text"], HAND, true, I, K::Scalar),
    f(
        Func::Net(NetFn::Trunc),
        &["trunc"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Set7Bit),
        &["macaddr8_set7bit"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Within { or_equal: false }),
        &["network_sub"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Overlaps),
        &["network_overlap"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Not),
        &["inetnot"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::And),
        &["inetand"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(Func::Net(NetFn::Or), &["inetor"], HAND, true, I, K::Scalar),
    f(Func::Net(NetFn::Add), &["inetpl"], HAND, true, I, K::Scalar),
    f(
        Func::Net(NetFn::SubInt),
        &["inetmi_int8"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Net(NetFn::Diff),
        &["inetmi"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(Func::Format, &["format"], HAND, false, S, K::String),
    f(Func::MakeTime, &["make_time"], HAND, true, I, K::Scalar),
    f(
        Func::MakeInterval,
        &["make_interval"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::LikeEscape,
        &["like_escape"],
        sig(&[Text, Text], 2, T),
        true,
        I,
        K::Scalar,
    ),
    f(Func::MakeDate, &["make_date"], HAND, true, I, K::Scalar),
    f(
        Func::Regexp(RegexpFn::Match),
        &["regexp_match"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::Replace),
        &["regexp_replace"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::SplitToArray),
        &["regexp_split_to_array"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::Count),
        &["regexp_count"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::Instr),
        &["regexp_instr"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::Like),
        &["regexp_like"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::Substr),
        &["regexp_substr"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::Substring),
        &["substring"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::SimilarSubstring),
        &["substring"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Regexp(RegexpFn::SimilarTo { escape: false }),
        &["similar_to_escape"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(Func::ToChar, &["to_char"], HAND, true, S, K::Scalar),
    f(Func::ToDate, &["to_date"], HAND, true, S, K::Scalar),
    f(Func::ToNumber, &["to_number"], HAND, true, S, K::Scalar),
    f(
        Func::ToTimestamp,
        &["to_timestamp"],
        HAND,
        true,
        S,
        K::Scalar,
    ),
    f(
        Func::ToTimestampEpoch,
        &["to_timestamp"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::QuoteNullable,
        &["quote_nullable"],
        HAND,
        false,
        I,
        K::Scalar,
    ),
    f(
        Func::Lower,
        &["lower"],
        sig(&[Text], 1, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Length,
        &["length", "char_length", "character_length"],
        sig(&[Text], 1, I4),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::OctetLength,
        &["octet_length"],
        sig(&[Text], 1, I4),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Substr,
        &["substr", "substring"],
        sig(&[Text, Int, Int], 2, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Position,
        &["strpos"],
        sig(&[Text, Text], 2, I4),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Replace,
        &["replace"],
        sig(&[Text, Text, Text], 3, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Btrim,
        &["btrim", "trim"],
        sig(&[Text, Text], 1, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ltrim,
        &["ltrim"],
        sig(&[Text, Text], 1, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Rtrim,
        &["rtrim"],
        sig(&[Text, Text], 1, T),
        true,
        I,
        K::Scalar,
    ),
    f(Func::Concat, &["concat"], HAND, false, S, K::Scalar),
    f(
        Func::Left,
        &["left"],
        sig(&[Text, Int], 2, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Right,
        &["right"],
        sig(&[Text, Int], 2, T),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Repeat,
        &["repeat"],
        sig(&[Text, Int], 2, T),
        true,
        I,
        K::Scalar,
    ),
    f(Func::Chr, &["chr"], sig(&[Int], 1, T), true, I, K::Scalar),
    f(
        Func::Ascii,
        &["ascii"],
        sig(&[Text], 1, I4),
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Lpad,
        &["lpad"],
        sig(&[Text, Int, Text], 2, T),
        true,
        I,
        K::String,
    ),
    f(
        Func::Rpad,
        &["rpad"],
        sig(&[Text, Int, Text], 2, T),
        true,
        I,
        K::String,
    ),
    f(
        Func::SplitPart,
        &["split_part"],
        sig(&[Text, Text, Int], 3, T),
        true,
        I,
        K::String,
    ),
    f(
        Func::Reverse,
        &["reverse"],
        sig(&[Text], 1, T),
        true,
        I,
        K::String,
    ),
    f(
        Func::Translate,
        &["translate"],
        sig(&[Text, Text, Text], 3, T),
        true,
        I,
        K::String,
    ),
    f(
        Func::StartsWith,
        &["starts_with"],
        sig(&[Text, Text], 2, DataType::Bool),
        true,
        I,
        K::String,
    ),
    f(
        Func::Initcap,
        &["initcap"],
        sig(&[Text], 1, T),
        true,
        I,
        K::String,
    ),
    f(Func::Md5, &["md5"], sig(&[Text], 1, T), true, I, K::String),
    // Numbers.
    f(Func::Abs, &["abs"], HAND, true, I, K::Scalar),
    f(
        Func::Bitwise(super::expr::BitOp::And),
        &[],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(Func::Round, &["round"], HAND, true, I, K::Scalar),
    f(Func::Trunc, &["trunc"], HAND, true, I, K::Scalar),
    f(Func::Ceil, &["ceil", "ceiling"], HAND, true, I, K::Scalar),
    f(Func::Sign, &["sign"], HAND, true, I, K::Scalar),
    f(Func::Floor, &["floor"], HAND, true, I, K::Scalar),
    f(Func::Mod, &["mod"], HAND, true, I, K::Scalar),
    f(Func::Power, &["power", "pow"], HAND, true, I, K::Scalar),
    f(Func::Sqrt, &["sqrt"], HAND, true, I, K::Scalar),
    f(Func::Ln, &["ln"], HAND, true, I, K::Scalar),
    f(Func::Exp, &["exp"], HAND, true, I, K::Scalar),
    f(Func::Log10, &["log10", "log"], HAND, true, I, K::Scalar),
    f(Func::Log, &["log"], HAND, true, I, K::Scalar),
    f(Func::Random, &["random"], HAND, true, V, K::String),
    // Conditionals.
    f(Func::Coalesce, &["coalesce"], HAND, false, I, K::Scalar),
    f(Func::Nullif, &["nullif"], HAND, false, I, K::Scalar),
    f(Func::Greatest, &["greatest"], HAND, false, I, K::Scalar),
    f(Func::Least, &["least"], HAND, false, I, K::Scalar),
    // The session.
    f(
        Func::Now,
        &[
            "now",
            "current_timestamp",
            "transaction_timestamp",
            "statement_timestamp",
            "localtimestamp",
        ],
        HAND,
        false,
        S,
        K::Scalar,
    ),
    f(
        Func::CurrentDate,
        &["current_date"],
        HAND,
        false,
        S,
        K::Scalar,
    ),
    f(Func::Version, &["version"], HAND, false, S, K::Scalar),
    f(
        Func::CurrentDatabase,
        &["current_database", "current_catalog"],
        HAND,
        false,
        S,
        K::Scalar,
    ),
    f(
        Func::CurrentUser,
        &["current_user", "user", "current_role"],
        HAND,
        false,
        S,
        K::Scalar,
    ),
    f(
        Func::SessionUser,
        &["session_user"],
        HAND,
        false,
        S,
        K::Scalar,
    ),
    f(
        Func::JsonBuildObject,
        &["json_build_object"],
        HAND,
        false,
        S,
        K::Scalar,
    ),
    f(
        Func::JsonBuildArray,
        &["json_build_array"],
        HAND,
        false,
        S,
        K::Scalar,
    ),
    f(
        Func::SetConfig,
        &["set_config"],
        sig(&[Text, Text, Param::Bool], 3, T),
        false,
        V,
        K::Scalar,
    ),
    f(
        Func::ToReg(DataType::RegClass),
        &[],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::CurrentSetting,
        &["current_setting"],
        HAND,
        true,
        S,
        K::Scalar,
    ),
    // Sequences (volatile: each call may change state).
    f(
        Func::NextVal,
        &["nextval"],
        sig(&[Text], 1, I8),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::CurrVal,
        &["currval"],
        sig(&[Text], 1, I8),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::SetVal,
        &["setval"],
        sig(&[Text, BigInt, Param::Bool], 2, I8),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::LastVal,
        &["lastval"],
        sig(&[], 0, I8),
        false,
        V,
        K::Scalar,
    ),
    f(
        Func::GenRandomUuid,
        &["gen_random_uuid"],
        sig(&[], 0, DataType::Uuid),
        false,
        V,
        K::Bytes,
    ),
    f(Func::ByteaLength, &["length"], HAND, true, I, K::Bytes),
    f(
        Func::ByteaEncodedLength,
        &["length"],
        HAND,
        true,
        I,
        K::Bytes,
    ),
    f(
        Func::ByteaBitLength,
        &["bit_length"],
        HAND,
        true,
        I,
        K::Bytes,
    ),
    f(Func::ByteaSubstr, &["substr"], HAND, true, I, K::Bytes),
    f(Func::ByteaPosition, &["strpos"], HAND, true, I, K::Bytes),
    f(Func::GetByte, &["get_byte"], HAND, true, I, K::Bytes),
    f(Func::SetByte, &["set_byte"], HAND, true, I, K::Bytes),
    f(Func::GetBit, &["get_bit"], HAND, true, I, K::Bytes),
    f(Func::SetBit, &["set_bit"], HAND, true, I, K::Bytes),
    f(Func::Encode, &["encode"], HAND, true, I, K::Bytes),
    f(Func::Decode, &["decode"], HAND, true, I, K::Bytes),
    f(Func::ConvertTo, &["convert_to"], HAND, true, I, K::Bytes),
    f(
        Func::ConvertFrom,
        &["convert_from"],
        HAND,
        true,
        I,
        K::Bytes,
    ),
    f(Func::Convert, &["convert"], HAND, true, I, K::Bytes),
    f(
        Func::BytesCmp,
        &["byteacmp", "uuid_cmp"],
        HAND,
        true,
        I,
        K::Bytes,
    ),
    f(Func::ByteaMd5, &["md5"], HAND, true, I, K::Bytes),
    f(Func::Sha224, &["sha224"], HAND, true, I, K::Bytes),
    f(Func::Sha256, &["sha256"], HAND, true, I, K::Bytes),
    f(Func::Sha384, &["sha384"], HAND, true, I, K::Bytes),
    f(Func::Sha512, &["sha512"], HAND, true, I, K::Bytes),
    f(Func::ByteaTrim(0), &["btrim"], HAND, true, I, K::Bytes),
    f(Func::Overlay(true), &["overlay"], HAND, true, I, K::Bytes),
    f(
        Func::JsonField {
            json: false,
            text: false,
        },
        &["jsonb_object_field"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonIndex {
            json: false,
            text: false,
        },
        &["jsonb_array_element"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonPath {
            json: false,
            text: false,
        },
        &["jsonb_extract_path"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbContains,
        &["jsonb_contains"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbContained,
        &["jsonb_contained"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(Func::JsonbExists, &["jsonb_exists"], HAND, true, I, K::Json),
    f(
        Func::JsonbExistsAny,
        &["jsonb_exists_any"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbExistsAll,
        &["jsonb_exists_all"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(Func::JsonbConcat, &["jsonb_concat"], HAND, true, I, K::Json),
    f(Func::JsonbDelete, &["jsonb_delete"], HAND, true, I, K::Json),
    f(
        Func::JsonbDeleteIndex,
        &["jsonb_delete"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbDeleteKeys,
        &["jsonb_delete"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbDeletePath,
        &["jsonb_delete_path"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonTypeof { json: false },
        &["jsonb_typeof"],
        HAND,
        false,
        I,
        K::Json,
    ),
    f(
        Func::JsonArrayLength { json: false },
        &["jsonb_array_length"],
        HAND,
        false,
        I,
        K::Json,
    ),
    f(
        Func::JsonbBuild { object: true },
        &["jsonb_build_object"],
        HAND,
        false,
        I,
        K::Json,
    ),
    f(
        Func::ToJson { json: false },
        &["to_jsonb"],
        HAND,
        false,
        I,
        K::Json,
    ),
    f(
        Func::JsonStripNulls { json: false },
        &["jsonb_strip_nulls"],
        HAND,
        false,
        I,
        K::Json,
    ),
    f(
        Func::JsonbPretty,
        &["jsonb_pretty"],
        HAND,
        false,
        I,
        K::Json,
    ),
    f(Func::RowToJson, &["row_to_json"], HAND, false, I, K::Json),
    f(
        Func::JsonbSet { lax: false },
        &["jsonb_set"],
        HAND,
        false,
        I,
        K::Json,
    ),
    f(
        Func::JsonbInsert,
        &["jsonb_insert"],
        HAND,
        false,
        I,
        K::Json,
    ),
    f(
        Func::JsonbPathFn {
            kind: PathFn::Exists,
            op: false,
        },
        &["jsonb_path_exists"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbPathFn {
            kind: PathFn::Match,
            op: false,
        },
        &["jsonb_path_match"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbPathFn {
            kind: PathFn::QueryArray,
            op: false,
        },
        &["jsonb_path_query_array"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbPathFn {
            kind: PathFn::QueryFirst,
            op: false,
        },
        &["jsonb_path_query_first"],
        HAND,
        true,
        I,
        K::Json,
    ),
    f(
        Func::JsonbObject { json: false },
        &["jsonb_object"],
        HAND,
        false,
        I,
        K::Json,
    ),
    // Not callable by name (the space): the binder's reading of a sequence.
    f(
        Func::SequenceLastValue,
        &["sequence last_value"],
        HAND,
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::SequenceIsCalled,
        &["sequence is_called"],
        HAND,
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::AdvisoryLock,
        &["pg_advisory_lock"],
        sig(&[BigInt, Int], 1, T),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::AdvisoryLockShared,
        &["pg_advisory_lock_shared"],
        sig(&[BigInt, Int], 1, T),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::AdvisoryXactLock,
        &["pg_advisory_xact_lock"],
        sig(&[BigInt, Int], 1, T),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::AdvisoryXactLockShared,
        &["pg_advisory_xact_lock_shared"],
        sig(&[BigInt, Int], 1, T),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::TryAdvisoryLock,
        &["pg_try_advisory_lock"],
        sig(&[BigInt, Int], 1, DataType::Bool),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::TryAdvisoryLockShared,
        &["pg_try_advisory_lock_shared"],
        sig(&[BigInt, Int], 1, DataType::Bool),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::TryAdvisoryXactLock,
        &["pg_try_advisory_xact_lock"],
        sig(&[BigInt, Int], 1, DataType::Bool),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::TryAdvisoryXactLockShared,
        &["pg_try_advisory_xact_lock_shared"],
        sig(&[BigInt, Int], 1, DataType::Bool),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::AdvisoryUnlock,
        &["pg_advisory_unlock"],
        sig(&[BigInt, Int], 1, DataType::Bool),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::AdvisoryUnlockShared,
        &["pg_advisory_unlock_shared"],
        sig(&[BigInt, Int], 1, DataType::Bool),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::PgNotify,
        &["pg_notify"],
        sig(&[Text, Text], 2, T),
        false,
        V,
        K::Scalar,
    ),
    f(Func::RegexMatch(false), &[], HAND, true, I, K::String),
    // The catalog's functions (stable: they read the statement's catalog snapshot).
    f(
        Func::BlockingPids,
        &["pg_blocking_pids"],
        sig(&[Param::Int], 1, DataType::Array(crate::types::INT4_ARRAY)),
        true,
        V,
        K::Catalog,
    ),
    f(
        Func::StatCounter,
        &[
            "pg_stat_get_numscans",
            "pg_stat_get_tuples_returned",
            "pg_stat_get_tuples_fetched",
            "pg_stat_get_tuples_inserted",
            "pg_stat_get_tuples_updated",
            "pg_stat_get_tuples_deleted",
            "pg_stat_get_tuples_hot_updated",
            "pg_stat_get_blocks_fetched",
            "pg_stat_get_blocks_hit",
        ],
        sig(&[Param::Oid], 1, DataType::Int8),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::StatTuples(true),
        &["pg_stat_get_live_tuples"],
        sig(&[Param::Oid], 1, DataType::Int8),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::StatTuples(false),
        &["pg_stat_get_dead_tuples"],
        sig(&[Param::Oid], 1, DataType::Int8),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::MyTempSchema,
        &["pg_my_temp_schema"],
        sig(&[], 0, DataType::Oid),
        false,
        S,
        K::Catalog,
    ),
    f(
        Func::IsOtherTempSchema,
        &["pg_is_other_temp_schema"],
        sig(&[Param::Oid], 1, DataType::Bool),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgTableIsVisible,
        &["pg_table_is_visible"],
        sig(&[Param::Oid], 1, DataType::Bool),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgTypeIsVisible,
        &[
            "pg_type_is_visible",
            "pg_function_is_visible",
            "pg_collation_is_visible",
            "pg_opclass_is_visible",
            "pg_operator_is_visible",
            "pg_conversion_is_visible",
            "pg_ts_config_is_visible",
        ],
        sig(&[Param::Oid], 1, DataType::Bool),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgGetUserById,
        &["pg_get_userbyid"],
        sig(&[Param::Oid], 1, DataType::Name),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::FormatType,
        &["format_type"],
        sig(&[Param::Oid, Int], 2, T),
        false,
        S,
        K::Catalog,
    ),
    f(
        Func::PgGetExpr,
        &["pg_get_expr"],
        sig(&[Text, Param::Oid, Param::Bool], 2, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgGetIndexDef,
        &["pg_get_indexdef"],
        sig(&[Param::Oid, Int, Param::Bool], 1, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgGetConstraintDef,
        &["pg_get_constraintdef"],
        sig(&[Param::Oid, Param::Bool], 1, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgGetViewDef,
        &["pg_get_viewdef"],
        sig(&[Param::Oid, Param::Bool], 1, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::ObjDescription,
        &["obj_description"],
        sig(&[Param::Oid, Text], 1, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::ColDescription,
        &["col_description"],
        sig(&[Param::Oid, Int], 2, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::ShobjDescription,
        &["shobj_description"],
        sig(&[Param::Oid, Text], 2, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgRelationIsPublishable,
        &["pg_relation_is_publishable"],
        sig(&[Param::Oid], 1, DataType::Bool),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgGetTriggerDef,
        &["pg_get_triggerdef"],
        sig(&[Param::Oid, Param::Bool], 1, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgGetStatisticsObjDefColumns,
        &["pg_get_statisticsobjdef_columns"],
        sig(&[Param::Oid], 1, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgGetFunctionInfo,
        &[
            "pg_get_function_result",
            "pg_get_function_arguments",
            "pg_get_function_identity_arguments",
        ],
        sig(&[Param::Oid], 1, T),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgEncodingToChar,
        &["pg_encoding_to_char"],
        sig(&[Int], 1, DataType::Name),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgCharToEncoding,
        &["pg_char_to_encoding"],
        sig(&[Text], 1, DataType::Int4),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::PgSizePretty,
        &["pg_size_pretty"],
        sig(&[Param::BigInt], 1, T),
        true,
        I,
        K::Catalog,
    ),
    f(
        Func::RelationSize,
        &["pg_relation_size", "pg_table_size"],
        sig(&[Param::RegClass, Text], 1, DataType::Int8),
        true,
        V,
        K::Catalog,
    ),
    f(
        Func::IndexesSize,
        &["pg_indexes_size"],
        sig(&[Param::RegClass], 1, DataType::Int8),
        true,
        V,
        K::Catalog,
    ),
    f(
        Func::TotalRelationSize,
        &["pg_total_relation_size"],
        sig(&[Param::RegClass], 1, DataType::Int8),
        true,
        V,
        K::Catalog,
    ),
    f(
        Func::DatabaseSize,
        &["pg_database_size"],
        sig(&[Text], 1, DataType::Int8),
        true,
        V,
        K::Catalog,
    ),
    f(
        Func::CurrentSchema,
        &["current_schema"],
        sig(&[], 0, DataType::Name),
        false,
        S,
        K::Catalog,
    ),
    f(
        Func::CurrentSchemas,
        &["current_schemas"],
        sig(&[Param::Bool], 1, DataType::Array(crate::types::NAME_ARRAY)),
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::Table),
        &["has_table_privilege"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::Schema),
        &["has_schema_privilege"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::Database),
        &["has_database_privilege"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::Sequence),
        &["has_sequence_privilege"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::Column),
        &["has_column_privilege"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::AnyColumn),
        &["has_any_column_privilege"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::Function),
        &["has_function_privilege"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::Type),
        &["has_type_privilege"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::HasPrivilege(crate::sql::expr::PrivilegeOf::Role),
        &["pg_has_role"],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::RegOut(DataType::RegClass),
        &[],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(Func::EnumIn(0), &[], HAND, true, S, K::Scalar),
    f(
        Func::ArrayAssign { slice: false },
        &["kiln subscript assign"],
        HAND,
        false,
        I,
        K::Scalar,
    ),
    f(Func::DomainCheck(0), &[], HAND, false, S, K::Scalar),
    f(
        Func::Range(RangeFn::Construct, RangeKind::Int4),
        &[
            "int4range",
            "int8range",
            "numrange",
            "daterange",
            "tsrange",
            "tstzrange",
        ],
        HAND,
        false,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Lower, RangeKind::Int4),
        &["lower"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Upper, RangeKind::Int4),
        &["upper"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::IsEmpty, RangeKind::Int4),
        &["isempty"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::LowerInc, RangeKind::Int4),
        &["lower_inc"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::UpperInc, RangeKind::Int4),
        &["upper_inc"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::LowerInf, RangeKind::Int4),
        &["lower_inf"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::UpperInf, RangeKind::Int4),
        &["upper_inf"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Merge, RangeKind::Int4),
        &["range_merge"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Contains, RangeKind::Int4),
        &["range_contains"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::ContainsElem, RangeKind::Int4),
        &["range_contains_elem"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Overlaps, RangeKind::Int4),
        &["range_overlaps"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Before, RangeKind::Int4),
        &["range_before"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::OverLeft, RangeKind::Int4),
        &["range_overleft"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::OverRight, RangeKind::Int4),
        &["range_overright"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Adjacent, RangeKind::Int4),
        &["range_adjacent"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Union, RangeKind::Int4),
        &["range_union"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Intersection, RangeKind::Int4),
        &["range_intersect"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Difference, RangeKind::Int4),
        &["range_minus"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Range(RangeFn::Equal, RangeKind::Int4),
        &["range_eq"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(Func::EnumOut, &[], HAND, true, I, K::Scalar),
    f(Func::EnumPosition(0), &[], HAND, true, S, K::Scalar),
    f(Func::EnumLabelAt(0), &[], HAND, true, S, K::Scalar),
    f(
        Func::RegIn(DataType::RegClass),
        &[],
        HAND,
        true,
        S,
        K::Catalog,
    ),
    f(
        Func::BackendPid,
        &["pg_backend_pid"],
        sig(&[], 0, I4),
        false,
        S,
        K::Scalar,
    ),
    f(
        Func::CancelBackend,
        &["pg_cancel_backend"],
        sig(&[Int], 1, DataType::Bool),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::TerminateBackend,
        &["pg_terminate_backend"],
        sig(&[Int, BigInt], 1, DataType::Bool),
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::AdvisoryUnlockAll,
        &["pg_advisory_unlock_all"],
        sig(&[], 0, T),
        false,
        V,
        K::Scalar,
    ),
    f(
        Func::PgGetSerialSequence,
        &["pg_get_serial_sequence"],
        sig(&[Text, Text], 2, T),
        true,
        S,
        K::Scalar,
    ),
    // Dates and times (stable: they may read the session's time zone).
    f(Func::Extract, &["extract"], HAND, true, S, K::DateTime),
    f(Func::DatePart, &["date_part"], HAND, true, S, K::DateTime),
    f(Func::DateTrunc, &["date_trunc"], HAND, true, S, K::DateTime),
    f(Func::Age, &["age"], HAND, true, S, K::DateTime),
    f(Func::Timezone, &["timezone"], HAND, true, S, K::DateTime),
    // Arrays (`ARRAY[…]`, subscripts, ANY/ALL and the operators have no function name).
    f(Func::ArrayBuild, &[], HAND, false, I, K::Array),
    f(Func::ArrayAny(BinaryOp::Eq), &[], HAND, false, I, K::Array),
    f(Func::ArrayAll(BinaryOp::Eq), &[], HAND, false, I, K::Array),
    f(Func::ArraySubscript, &[], HAND, true, I, K::Array),
    f(
        Func::ArraySlice {
            lower: true,
            upper: true,
        },
        &[],
        HAND,
        true,
        I,
        K::Array,
    ),
    f(
        Func::ArrayLength,
        &["array_length"],
        HAND,
        true,
        I,
        K::Array,
    ),
    f(Func::ArrayLower, &["array_lower"], HAND, true, I, K::Array),
    f(Func::ArrayUpper, &["array_upper"], HAND, true, I, K::Array),
    f(Func::ArrayNdims, &["array_ndims"], HAND, true, I, K::Array),
    f(Func::ArrayDims, &["array_dims"], HAND, true, I, K::Array),
    f(Func::Cardinality, &["cardinality"], HAND, true, I, K::Array),
    // Elements print with their output functions (timestamptz reads the time zone).
    f(
        Func::ArrayToString,
        &["array_to_string"],
        HAND,
        false,
        S,
        K::Array,
    ),
    f(
        Func::StringToArray,
        &["string_to_array"],
        HAND,
        false,
        I,
        K::Array,
    ),
    f(
        Func::ArrayAppend,
        &["array_append"],
        HAND,
        false,
        I,
        K::Array,
    ),
    f(
        Func::ArrayPrepend,
        &["array_prepend"],
        HAND,
        false,
        I,
        K::Array,
    ),
    f(Func::ArrayCat, &["array_cat"], HAND, false, I, K::Array),
    f(
        Func::ArrayPosition,
        &["array_position"],
        HAND,
        false,
        I,
        K::Array,
    ),
    f(
        Func::ArrayRemove,
        &["array_remove"],
        HAND,
        false,
        I,
        K::Array,
    ),
    f(Func::ArrayContains, &[], HAND, true, I, K::Array),
    f(Func::ArrayContained, &[], HAND, true, I, K::Array),
    f(Func::ArrayOverlap, &[], HAND, true, I, K::Array),
    // Built-in extensions' functions (bound only where the extension is installed).
    f(
        Func::Ext(ExtFn::UuidV1),
        &["uuid_generate_v1"],
        HAND,
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidV1Mc),
        &["uuid_generate_v1mc"],
        HAND,
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidV3),
        &["uuid_generate_v3"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidV4),
        &["uuid_generate_v4"],
        HAND,
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidV5),
        &["uuid_generate_v5"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidNil),
        &["uuid_nil"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidNsDns),
        &["uuid_ns_dns"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidNsUrl),
        &["uuid_ns_url"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidNsOid),
        &["uuid_ns_oid"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::UuidNsX500),
        &["uuid_ns_x500"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::Digest),
        &["digest"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(Func::Ext(ExtFn::Hmac), &["hmac"], HAND, true, I, K::Scalar),
    f(
        Func::Ext(ExtFn::GenRandomBytes),
        &["gen_random_bytes"],
        HAND,
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::Similarity),
        &["similarity"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::WordSimilarity),
        &["word_similarity"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::StrictWordSimilarity),
        &["strict_word_similarity"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::ShowTrgm),
        &["show_trgm"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::ShowLimit),
        &["show_limit"],
        HAND,
        true,
        S,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::SetLimit),
        &["set_limit"],
        HAND,
        true,
        V,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::SimilarOp),
        &["similarity_op"],
        HAND,
        true,
        S,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::WordSimilarOp),
        &["word_similarity_op"],
        HAND,
        true,
        S,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::StrictWordSimilarOp),
        &["strict_word_similarity_op"],
        HAND,
        true,
        S,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::Distance),
        &["similarity_dist"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::WordDistance),
        &["word_similarity_dist_op"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    f(
        Func::Ext(ExtFn::StrictWordDistance),
        &["strict_word_similarity_dist_op"],
        HAND,
        true,
        I,
        K::Scalar,
    ),
    // Records (`ROW(…)` has no function name; its field access is `(r).fN`).
    f(Func::RowBuild, &[], HAND, false, I, K::Array),
    f(Func::RecordField(0), &[], HAND, true, I, K::Array),
];

impl Func {
    /// The variant with its parameters set to the table's representative values.
    fn catalog_key(self) -> Func {
        match self {
            Func::ArrayAny(_) => Func::ArrayAny(BinaryOp::Eq),
            Func::ArrayAll(_) => Func::ArrayAll(BinaryOp::Eq),
            Func::ArraySlice { .. } => Func::ArraySlice {
                lower: true,
                upper: true,
            },
            Func::RecordField(_) => Func::RecordField(0),
            Func::Net(NetFn::Within { .. }) => Func::Net(NetFn::Within { or_equal: false }),
            Func::Regexp(RegexpFn::SimilarTo { .. }) => {
                Func::Regexp(RegexpFn::SimilarTo { escape: false })
            }
            Func::JsonbPathFn { kind, .. } => Func::JsonbPathFn { kind, op: false },
            Func::Bitwise(_) => Func::Bitwise(super::expr::BitOp::And),
            Func::RegOut(_) => Func::RegOut(DataType::RegClass),
            Func::RegexMatch(_) => Func::RegexMatch(false),
            Func::RegIn(_) => Func::RegIn(DataType::RegClass),
            Func::EnumIn(_) => Func::EnumIn(0),
            Func::ArrayAssign { .. } => Func::ArrayAssign { slice: false },
            Func::DomainCheck(_) => Func::DomainCheck(0),
            Func::Range(f, _) => Func::Range(f, RangeKind::Int4),
            Func::EnumPosition(_) => Func::EnumPosition(0),
            Func::EnumLabelAt(_) => Func::EnumLabelAt(0),
            Func::ToReg(_) => Func::ToReg(DataType::RegClass),
            Func::ByteaTrim(_) => Func::ByteaTrim(0),
            Func::Overlay(_) => Func::Overlay(true),
            Func::JsonField { .. } => Func::JsonField {
                json: false,
                text: false,
            },
            Func::JsonIndex { .. } => Func::JsonIndex {
                json: false,
                text: false,
            },
            Func::JsonPath { .. } => Func::JsonPath {
                json: false,
                text: false,
            },
            Func::JsonTypeof { .. } => Func::JsonTypeof { json: false },
            Func::JsonArrayLength { .. } => Func::JsonArrayLength { json: false },
            Func::JsonbBuild { .. } => Func::JsonbBuild { object: true },
            Func::ToJson { .. } => Func::ToJson { json: false },
            Func::JsonStripNulls { .. } => Func::JsonStripNulls { json: false },
            Func::JsonbSet { .. } => Func::JsonbSet { lax: false },
            Func::JsonbObject { .. } => Func::JsonbObject { json: false },
            other => other,
        }
    }

    /// This function's row of [`FUNCTIONS`].
    pub fn info(self) -> &'static FuncInfo {
        let key = self.catalog_key();
        match FUNCTIONS.iter().find(|i| i.func == key) {
            Some(info) => info,
            // Every variant has a row (the catalog's test checks it); a missing one
            // reads as a volatile, non-strict scalar: nothing is folded or moved.
            None => &UNKNOWN,
        }
    }

    pub fn is_strict(self) -> bool {
        self.info().strict
    }

    pub fn volatility(self) -> Volatility {
        self.info().volatility
    }
}

static UNKNOWN: FuncInfo = f(Func::Random, &[], HAND, false, V, K::Scalar);

/// Whether kiln implements a scalar function of this name.
pub fn has_function(name: &str) -> bool {
    FUNCTIONS.iter().any(|i| i.names.contains(&name))
}

/// The declared signature of `name` with `arity` arguments, if its typing is declared
/// here (None: typed by hand, or no such function).
pub fn declared(
    name: &str,
    arity: usize,
) -> Option<(&'static FuncInfo, &'static [Param], DataType)> {
    FUNCTIONS.iter().find_map(|i| match i.typing {
        Typing::Params {
            params,
            required,
            result,
        } if i.names.contains(&name) && (required..=params.len()).contains(&arity) => {
            Some((i, params, result))
        }
        _ => None,
    })
}

/// The type a declared parameter takes its argument at, if the argument's type fits.
pub fn param_type(p: Param, arg: DataType) -> Option<SqlType> {
    match p {
        Param::Text if arg.is_string() || arg == DataType::Unknown => {
            Some(SqlType::new(DataType::Text))
        }
        Param::Int if arg.is_integer() || arg == DataType::Unknown => {
            Some(SqlType::new(DataType::Int4))
        }
        Param::BigInt if arg.is_integer() || arg == DataType::Unknown => {
            Some(SqlType::new(DataType::Int8))
        }
        Param::Bool if arg == DataType::Bool || arg == DataType::Unknown => {
            Some(SqlType::new(DataType::Bool))
        }
        Param::Oid if arg.is_oid() || arg.is_integer() || arg == DataType::Unknown => {
            Some(SqlType::new(DataType::Oid))
        }
        Param::RegClass if arg.is_oid() || arg.is_integer() || arg == DataType::Unknown => {
            Some(SqlType::new(DataType::RegClass))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_one_row() {
        for (i, info) in FUNCTIONS.iter().enumerate() {
            assert_eq!(info.func.info().func, info.func, "row {i}");
            let later = FUNCTIONS[i + 1..].iter().filter(|o| o.func == info.func);
            assert_eq!(later.count(), 0, "{:?} twice", info.func);
        }
        // Parameterized variants find their row.
        assert_eq!(Func::ArrayAny(BinaryOp::Lt).info().kernel, Kernel::Array);
        let slice = Func::ArraySlice {
            lower: false,
            upper: true,
        };
        assert!(slice.is_strict());
    }

    #[test]
    fn declared_signatures_resolve_by_arity() {
        let (info, params, result) =
            declared("btrim", 2).map_or((None, &[][..], T), |d| (Some(d.0.func), d.1, d.2));
        assert_eq!(info, Some(Func::Btrim));
        assert_eq!(params, &[Text, Text]);
        assert_eq!(result, T);
        assert!(declared("btrim", 3).is_none());
        assert!(declared("round", 1).is_none(), "typed by hand");
        assert!(declared("substring", 2).is_some() && declared("substring", 3).is_some());
        assert_eq!(param_type(Int, DataType::Int8), Some(SqlType::new(I4)));
        assert_eq!(param_type(Text, DataType::Int4), None);
    }

    #[test]
    fn volatility_and_strictness() {
        assert_eq!(Func::Random.volatility(), Volatility::Volatile);
        assert_eq!(Func::Now.volatility(), Volatility::Stable);
        assert_eq!(Func::Upper.volatility(), Volatility::Immutable);
        assert!(!Func::Coalesce.is_strict());
        assert!(!Func::ArrayCat.is_strict(), "NULL || array is the array");
        assert!(Func::Upper.is_strict());
    }
}
